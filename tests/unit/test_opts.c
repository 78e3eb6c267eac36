// SPDX-License-Identifier: GPL-2.0-or-later
/* The option kit of src/cmd/opts.c: the shared options from a table, a command's own to it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd/opts.h"
#include "lib/exitcodes.h"
#include "lib/util.h"

enum { OPT_LEVEL = AP_OPT_OUT_LAST, OPT_FAIL };

struct cmd {
	bool yes, dry_run, quiet, record_set, keep;
	const char *plot, *record, *prometheus, *level;
	struct ap_out out;
	int nown;
};

static int nusage;

static void usage(void)
{
	nusage++;
}

static int own(void *ctx, int ch, const char *arg)
{
	struct cmd *c = ctx;

	c->nown++;
	switch (ch) {
	case 'k':
		c->keep = true;
		return 0;
	case OPT_LEVEL:
		c->level = arg;
		return 0;
	case OPT_FAIL:
		return AP_EXIT_REFUSED;	/* what a callback returns ends the parsing */
	}
	return AP_EXIT_FAILURE;
}

static const struct option longopts[] = {
	{ "keep",  no_argument,       NULL, 'k' },
	{ "level", required_argument, NULL, OPT_LEVEL },
	{ "fail",  no_argument,       NULL, OPT_FAIL },
	{ NULL, 0, NULL, 0 }
};

static int parse(struct cmd *c, int argc, char **argv)
{
	const struct ap_opt common[] = {
		AP_OPT_YES(&c->yes), AP_OPT_DRY_RUN(&c->dry_run), AP_OPT_PLOT(&c->plot),
		AP_OPT_RECORD(&c->record, &c->record_set), AP_OPT_PROMETHEUS(&c->prometheus),
		AP_OPT_QUIET(&c->quiet), AP_OPT_OUTPUT(&c->out), AP_OPT_HELP(usage),
		AP_OPT_VERSION, AP_OPT_END
	};
	const struct ap_opts p = {
		.cmd = "test", .common = common, .longopts = longopts, .shortopts = "k",
		.own = own, .ctx = c,
	};

	memset(c, 0, sizeof(*c));
	return ap_opts_parse(&p, argc, argv);
}

static void test_shared(void **state)
{
	char *argv[] = { "test", "-y", "--dry-run", "--plot", "p.svg", "--record", "--prom=m.prom",
			 "-q", "-J", "-o", "A,B", "-n", "DEV", NULL };
	struct cmd c;

	(void)state;
	assert_int_equal(parse(&c, 13, argv), 0);
	assert_true(c.yes && c.dry_run && c.quiet && c.record_set);
	assert_null(c.record);			/* --record without =STORE */
	assert_string_equal(c.plot, "p.svg");
	assert_string_equal(c.prometheus, "m.prom");	/* an abbreviation */
	assert_true(c.out.json && c.out.noheadings);
	assert_string_equal(c.out.columns, "A,B");
	assert_int_equal(c.nown, 0);
	assert_int_equal(optind, 12);
	assert_string_equal(argv[optind], "DEV");
}

static void test_own(void **state)
{
	char *argv[] = { "test", "DEV", "-k", "--level=3", "--record=S", "-kq", NULL };
	struct cmd c;

	(void)state;
	assert_int_equal(parse(&c, 6, argv), 0);
	assert_true(c.keep && c.quiet);
	assert_string_equal(c.level, "3");
	assert_true(c.record_set);
	assert_string_equal(c.record, "S");
	assert_int_equal(c.nown, 3);
	/* getopt permutes: the operand last */
	assert_int_equal(optind, 5);
	assert_string_equal(argv[optind], "DEV");
}

static void test_ends(void **state)
{
	char *help[] = { "test", "-y", "--help", "--bogus", NULL };
	char *bogus[] = { "test", "--bogus", "--help", NULL };
	char *noarg[] = { "test", "--plot", NULL };
	char *fail[] = { "test", "--fail", "-y", NULL };
	char *version[] = { "test", "-V", NULL };
	struct cmd c;

	(void)state;
	nusage = 0;
	/* --help stops at once: what follows is not looked at */
	assert_int_equal(parse(&c, 4, help), -1);
	assert_int_equal(nusage, 1);
	/* an unknown option or a missing argument: usage, before a later --help */
	assert_int_equal(parse(&c, 3, bogus), AP_EXIT_USAGE);
	assert_int_equal(nusage, 1);
	assert_int_equal(parse(&c, 2, noarg), AP_EXIT_USAGE);
	/* the callback's code ends the parsing */
	assert_int_equal(parse(&c, 3, fail), AP_EXIT_REFUSED);
	assert_false(c.yes);
	assert_int_equal(parse(&c, 2, version), -1);
}

static void test_output_steps(void **state)
{
	static const struct ap_colinfo infos[] = {
		{ "A", 0, 0, AP_COL_STRING, "a", NULL, NULL, NULL },
		{ "B", 0, 0, AP_COL_NUMBER, "b", NULL, NULL, NULL },
	};
	static const int defaults[] = { 0 };
	static const struct ap_opts_cols t = { infos, 2, defaults, 1 };
	struct ap_out o = { 0 };
	int cols[4];
	size_t ncols = 0;

	(void)state;
	assert_int_equal(ap_opts_out_check("test", &o), 0);
	assert_int_equal(ap_opts_list_columns(&o, &t), 0);
	assert_int_equal(ap_opts_columns("test", &o, &t, cols, &ncols), 0);
	assert_int_equal(ncols, 1);
	o.columns = "+B";
	assert_int_equal(ap_opts_columns("test", &o, &t, cols, &ncols), 0);
	assert_int_equal(ncols, 2);
	o.columns = "C";
	assert_int_equal(ap_opts_columns("test", &o, &t, cols, &ncols), AP_EXIT_USAGE);
	/* only checked (before anything runs): no room needed */
	assert_int_equal(ap_opts_columns("test", &o, &t, NULL, NULL), AP_EXIT_USAGE);
	o.columns = "b,a";
	assert_int_equal(ap_opts_columns("test", &o, &t, NULL, NULL), 0);
	o.json = o.raw = true;
	assert_int_equal(ap_opts_out_check("test", &o), AP_EXIT_USAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shared),
		cmocka_unit_test(test_own),
		cmocka_unit_test(test_ends),
		cmocka_unit_test(test_output_steps),
	};

	/* getopt's own messages and the kit's hints go to stderr */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
