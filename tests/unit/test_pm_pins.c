// SPDX-License-Identifier: GPL-2.0-or-later
/* postmark's pinned settings and its CONFIG files (workload/pm_pins.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "workload/pm.h"
#include "workload/pm_pins.h"

static char tmpdir[128];

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_pm_pins.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[200];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_pins(void **state)
{
	struct ap_pm_pins p = { 0 };
	struct ap_pm_config cfg;
	struct ap_error e;
	char loc[200];

	(void)state;
	ap_pm_pin(&p, "set seed", "7");
	ap_pm_pin_size(&p, "100:200");
	assert_string_equal(p.lines[1], "set size 100 200");
	assert_int_equal(ap_pm_pin_buffering(&p, "no", &e), 0);
	assert_string_equal(p.lines[2], "set buffering false");
	assert_int_equal(ap_pm_pin_buffering(&p, "maybe", &e), -EINVAL);
	assert_non_null(strstr(e.msg, "'maybe'"));
	/* DIR=W: a weight only when what comes before '=' is a directory */
	snprintf(loc, sizeof(loc), "%s=3", tmpdir);
	assert_int_equal(ap_pm_pin_location(&p, loc, &e), 0);
	assert_string_equal(p.locs[0].path, tmpdir);
	assert_int_equal(p.locs[0].weight, 3);
	assert_int_equal(ap_pm_pin_location(&p, "/nonexistent=2", &e), 0);
	assert_string_equal(p.locs[1].path, "/nonexistent=2");
	assert_int_equal(p.locs[1].weight, 1);
	snprintf(loc, sizeof(loc), "%s=0", tmpdir);
	assert_int_equal(ap_pm_pin_location(&p, loc, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "weight out of range"));
	ap_pm_pins_free(&p);

	/* applied: the lines over the configuration, the locations replacing its own */
	memset(&p, 0, sizeof(p));
	ap_pm_pin(&p, "set number", "42");
	snprintf(loc, sizeof(loc), "%s=2", tmpdir);
	assert_int_equal(ap_pm_pin_location(&p, loc, &e), 0);
	ap_pm_config_init(&cfg);
	assert_int_equal(ap_pm_pins_apply(&p, &cfg, &e), 0);
	assert_int_equal(cfg.number, 42);
	assert_int_equal(cfg.nlocations, 1);
	assert_string_equal(cfg.locations[0].path, tmpdir);
	assert_int_equal(cfg.locations[0].weight, 2);
	ap_pm_config_free(&cfg);
	ap_pm_pins_free(&p);

	/* a pin that does not parse is the configuration's error */
	memset(&p, 0, sizeof(p));
	ap_pm_pin(&p, "set number", "many");
	ap_pm_config_init(&cfg);
	assert_int_not_equal(ap_pm_pins_apply(&p, &cfg, &e), 0);
	ap_pm_config_free(&cfg);
	ap_pm_pins_free(&p);
}

static void test_scripts(void **state)
{
	struct ap_pm_scripts ss;
	struct ap_pm_pins p = { 0 };
	struct ap_pm_config base;
	struct ap_error e;
	const char *failed, *where;
	char a[200], b[200], c[200], text[300];
	char *paths[3] = { a, b, c };

	(void)state;
	snprintf(a, sizeof(a), "%s/a.pm", tmpdir);
	snprintf(b, sizeof(b), "%s/b.pm", tmpdir);
	snprintf(c, sizeof(c), "%s/c.pm", tmpdir);
	snprintf(text, sizeof(text), "set location %s\nset number 10\n", tmpdir);
	write_file(a, text);
	write_file(b, "set seed 5\n");
	write_file(c, "set transactions 3\n");

	/* no run, no quit: one implicit run at the end of the last file */
	ap_pm_config_init(&base);
	assert_int_equal(ap_pm_scripts_load(&ss, &base, paths, 3, false, &failed, &e), 0);
	assert_int_equal(ss.n, 3);
	assert_int_equal(ss.nrun, 3);
	assert_false(ap_pm_scripts_implicit(&ss, 0));
	assert_true(ap_pm_scripts_implicit(&ss, 2));
	/* each file starts from the previous one's settings; base is the last's */
	assert_int_equal(ss.s[2].final.number, 10);
	assert_int_equal(base.seed, 5);
	assert_int_equal(base.transactions, 3);
	ap_pm_scripts_free(&ss);
	/* with -i no implicit run */
	assert_int_equal(ap_pm_scripts_load(&ss, &base, paths, 3, true, &failed, &e), 0);
	assert_false(ap_pm_scripts_implicit(&ss, 2));
	ap_pm_scripts_free(&ss);
	ap_pm_config_free(&base);

	/* a quit in the second file: the third is read (checked), not run */
	write_file(b, "set seed 5\nquit\n");
	ap_pm_config_init(&base);
	assert_int_equal(ap_pm_scripts_load(&ss, &base, paths, 3, false, &failed, &e), 0);
	assert_true(ss.quit);
	assert_int_equal(ss.n, 3);
	assert_int_equal(ss.nrun, 2);
	assert_false(ss.implicit);
	ap_pm_scripts_free(&ss);
	ap_pm_config_free(&base);

	/* a run anywhere: no implicit run */
	write_file(b, "run\n");
	ap_pm_config_init(&base);
	assert_int_equal(ap_pm_scripts_load(&ss, &base, paths, 3, false, &failed, &e), 0);
	assert_true(ap_pm_script_has_run(&ss.s[1]));
	assert_false(ap_pm_script_has_run(&ss.s[0]));
	assert_false(ss.implicit);
	/* checked against the pins: a pin that makes a run invalid names its line */
	ap_pm_pin(&p, "set number", "0");
	assert_int_not_equal(ap_pm_script_check(&ss.s[1], &p, false, &where, &e), 0);
	assert_non_null(where);
	assert_non_null(strstr(where, "b.pm:1"));
	ap_pm_pins_free(&p);
	ap_pm_scripts_free(&ss);
	ap_pm_config_free(&base);

	/* a missing file: its path */
	unlink(c);
	ap_pm_config_init(&base);
	assert_int_not_equal(ap_pm_scripts_load(&ss, &base, paths, 3, false, &failed, &e), 0);
	assert_ptr_equal(failed, c);
	ap_pm_scripts_free(&ss);
	ap_pm_config_free(&base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pins),
		cmocka_unit_test(test_scripts),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
