// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * PostMark's configuration language: every command, PostMark's defaults and
 * quirks for valid input, and every kind of bad input (an error naming
 * file:line, the configuration unchanged).
 */
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

static char tmpdir[64];
static char dir_a[128], dir_b[128], dir_sp[128], afile[128];

static int setup(void **state)
{
	FILE *f;

	(void)state;
	strcpy(tmpdir, "/tmp/test_pm_config.XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(dir_a, sizeof(dir_a), "%s/a", tmpdir);
	snprintf(dir_b, sizeof(dir_b), "%s/b", tmpdir);
	snprintf(dir_sp, sizeof(dir_sp), "%s/with space", tmpdir);
	snprintf(afile, sizeof(afile), "%s/file", tmpdir);
	mkdir(dir_a, 0755);
	mkdir(dir_b, 0755);
	mkdir(dir_sp, 0755);
	f = fopen(afile, "w");
	if (!f)
		return -1;
	fclose(f);
	return 0;
}

static int teardown(void **state)
{
	char cmd[200];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* One line; returns rc, frees the action's argument. */
static int line(struct ap_pm_config *c, const char *s, enum ap_pm_cmd *cmd, char **arg,
		struct ap_error *e)
{
	struct ap_pm_line pl;
	int rc = ap_pm_config_line(c, s, "test.pm", 7, &pl, e);

	if (cmd)
		*cmd = pl.cmd;
	if (arg)
		*arg = pl.arg;
	else
		free(pl.arg);
	return rc;
}

static void ok(struct ap_pm_config *c, const char *s)
{
	struct ap_error e;
	int rc = line(c, s, NULL, NULL, &e);

	if (rc)
		fail_msg("'%s' rejected: %s", s, e.msg);
}

/* Bad: the error code, "test.pm:7:" in the message, config unchanged. */
static void bad(struct ap_pm_config *c, const char *s, int code)
{
	struct ap_pm_config before = *c;
	struct ap_error e;
	int rc = line(c, s, NULL, NULL, &e);

	if (rc != -code)
		fail_msg("'%s': expected %d, got %d (%s)", s, -code, rc, rc ? e.msg : "");
	assert_non_null(strstr(e.msg, "test.pm:7: "));
	assert_int_equal(c->size_lo, before.size_lo);
	assert_int_equal(c->size_hi, before.size_hi);
	assert_int_equal(c->number, before.number);
	assert_int_equal(c->seed, before.seed);
	assert_int_equal(c->transactions, before.transactions);
	assert_int_equal(c->nlocations, before.nlocations);
	assert_int_equal(c->bias_read, before.bias_read);
	assert_int_equal(c->bias_create, before.bias_create);
	assert_int_equal(c->buffering, before.buffering);
}

static void test_defaults(void **state)
{
	struct ap_pm_config c;

	(void)state;
	ap_pm_config_init(&c);
	assert_int_equal(c.size_lo, 500);
	assert_int_equal(c.size_hi, 10000);
	assert_int_equal(c.number, 500);
	assert_int_equal(c.seed, 42);
	assert_int_equal(c.transactions, 500);
	assert_int_equal(c.nlocations, 0);
	assert_int_equal(c.subdirectories, 0);
	assert_int_equal(c.read_block, 512);
	assert_int_equal(c.write_block, 512);
	assert_true(c.buffering);
	assert_int_equal(c.bias_read, 5);
	assert_int_equal(c.bias_create, 5);
	assert_int_equal(c.report, AP_PM_REPORT_VERBOSE);
	assert_int_equal(c.sync, AP_PM_SYNC_NONE);
	assert_int_equal(c.data, AP_PM_DATA_PRINTABLE);
	assert_false(c.drop_caches);
	ap_pm_config_free(&c);
}

static void test_settings(void **state)
{
	struct ap_pm_config c;

	(void)state;
	ap_pm_config_init(&c);
	ok(&c, "set size 512 2048\n");
	assert_int_equal(c.size_lo, 512);
	assert_int_equal(c.size_hi, 2048);
	ok(&c, "set size 100");			/* one value: fixed size */
	assert_int_equal(c.size_lo, 100);
	assert_int_equal(c.size_hi, 100);
	ok(&c, "set size 4K 1M");		/* extension: size suffixes */
	assert_int_equal(c.size_lo, 4096);
	assert_int_equal(c.size_hi, 1048576);
	ok(&c, "set size\t7   9  ");
	assert_int_equal(c.size_lo, 7);
	assert_int_equal(c.size_hi, 9);
	ok(&c, "set number 262144");
	assert_int_equal(c.number, 262144);
	ok(&c, "set seed 12345678");
	assert_int_equal(c.seed, 12345678);
	ok(&c, "set seed 4294967295");
	assert_int_equal(c.seed, 4294967295U);
	ok(&c, "set transactions 65536");
	assert_int_equal(c.transactions, 65536);
	ok(&c, "set subdirectories 10");
	assert_int_equal(c.subdirectories, 10);
	ok(&c, "set subdirectories 0");
	assert_int_equal(c.subdirectories, 0);
	ok(&c, "set read 1024");
	assert_int_equal(c.read_block, 1024);
	ok(&c, "set write 4096");
	assert_int_equal(c.write_block, 4096);
	ok(&c, "set buffering false");
	assert_false(c.buffering);
	ok(&c, "set buffering true");
	assert_true(c.buffering);
	ok(&c, "set bias read -1");
	assert_int_equal(c.bias_read, -1);
	ok(&c, "set bias read 10");
	assert_int_equal(c.bias_read, 10);
	ok(&c, "set bias create 0");
	assert_int_equal(c.bias_create, 0);
	ok(&c, "set bias create -1");
	assert_int_equal(c.bias_create, -1);
	ok(&c, "set report terse");
	assert_int_equal(c.report, AP_PM_REPORT_TERSE);
	ok(&c, "set report verbose");
	assert_int_equal(c.report, AP_PM_REPORT_VERBOSE);
	ok(&c, "set sync fdatasync");
	assert_int_equal(c.sync, AP_PM_SYNC_FDATASYNC);
	ok(&c, "set sync direct");
	assert_int_equal(c.sync, AP_PM_SYNC_DIRECT);
	ok(&c, "set data random");
	assert_int_equal(c.data, AP_PM_DATA_RANDOM);
	ok(&c, "set dropcaches true");
	assert_true(c.drop_caches);
	/* CRLF and a missing newline are fine */
	ok(&c, "set number 77\r\n");
	assert_int_equal(c.number, 77);
	ok(&c, "set number 78");
	assert_int_equal(c.number, 78);
	ok(&c, "set buffering false\r\n");
	assert_false(c.buffering);
	ap_pm_config_free(&c);
}

static void test_locations(void **state)
{
	struct ap_pm_config c;
	char buf[512];

	(void)state;
	ap_pm_config_init(&c);
	snprintf(buf, sizeof(buf), "set location %s", dir_a);
	ok(&c, buf);
	assert_int_equal(c.nlocations, 1);
	assert_string_equal(c.locations[0].path, dir_a);
	assert_int_equal(c.locations[0].weight, 1);
	snprintf(buf, sizeof(buf), "set location +%s 3", dir_b);
	ok(&c, buf);
	assert_int_equal(c.nlocations, 2);
	assert_string_equal(c.locations[1].path, dir_b);
	assert_int_equal(c.locations[1].weight, 3);
	snprintf(buf, sizeof(buf), "set location +%s", dir_sp);	/* name with a blank */
	ok(&c, buf);
	assert_int_equal(c.nlocations, 3);
	assert_string_equal(c.locations[2].path, dir_sp);
	snprintf(buf, sizeof(buf), "set location -%s", dir_a);
	ok(&c, buf);
	assert_int_equal(c.nlocations, 2);
	assert_string_equal(c.locations[0].path, dir_b);
	snprintf(buf, sizeof(buf), "set location %s 2", dir_a);	/* replaces */
	ok(&c, buf);
	assert_int_equal(c.nlocations, 1);
	assert_int_equal(c.locations[0].weight, 2);

	snprintf(buf, sizeof(buf), "set location %s/missing", tmpdir);
	bad(&c, buf, ENOENT);
	snprintf(buf, sizeof(buf), "set location %s", afile);
	bad(&c, buf, ENOTDIR);
	snprintf(buf, sizeof(buf), "set location %s 0", dir_b);
	bad(&c, buf, ERANGE);
	snprintf(buf, sizeof(buf), "set location %s heavy", dir_b);
	bad(&c, buf, ENOENT);
	snprintf(buf, sizeof(buf), "set location -%s", dir_b);	/* not in the list */
	bad(&c, buf, ENOENT);
	bad(&c, "set location", EINVAL);
	bad(&c, "set location +", EINVAL);
	if (geteuid() != 0) {
		char ro[160];

		snprintf(ro, sizeof(ro), "%s/ro", tmpdir);
		mkdir(ro, 0555);
		snprintf(buf, sizeof(buf), "set location %s", ro);
		bad(&c, buf, EACCES);
	}
	ap_pm_config_free(&c);
}

static void test_bad_values(void **state)
{
	struct ap_pm_config c;

	(void)state;
	ap_pm_config_init(&c);
	bad(&c, "set size", EINVAL);
	bad(&c, "set size 0", ERANGE);
	bad(&c, "set size 2048 512", EINVAL);	/* min > max */
	bad(&c, "set size abc", EINVAL);
	bad(&c, "set size 5x", EINVAL);		/* PostMark's atoi would take 5 */
	bad(&c, "set size 1 2 3", EINVAL);
	bad(&c, "set size -5", EINVAL);
	bad(&c, "set size 2G", ERANGE);
	bad(&c, "set number 0", ERANGE);
	bad(&c, "set number", EINVAL);
	bad(&c, "set number 12 13", EINVAL);
	bad(&c, "set number 99999999999999999999999", ERANGE);
	bad(&c, "set number 1e3", EINVAL);
	bad(&c, "set seed 0", ERANGE);
	bad(&c, "set seed 4294967296", ERANGE);
	bad(&c, "set seed -1", EINVAL);
	bad(&c, "set transactions 0", ERANGE);
	bad(&c, "set transactions ten", EINVAL);
	bad(&c, "set subdirectories -1", EINVAL);
	bad(&c, "set read 0", ERANGE);
	bad(&c, "set write x", EINVAL);
	bad(&c, "set buffering yes", EINVAL);
	bad(&c, "set buffering", EINVAL);
	bad(&c, "set bias read 11", ERANGE);
	bad(&c, "set bias read -2", ERANGE);
	bad(&c, "set bias create 5.5", EINVAL);
	bad(&c, "set report loud", EINVAL);
	bad(&c, "set sync sometimes", EINVAL);
	bad(&c, "set data ones", EINVAL);
	bad(&c, "set dropcaches 1", EINVAL);
	ap_pm_config_free(&c);
}

static void test_commands(void **state)
{
	struct ap_pm_config c;
	struct ap_error e;
	enum ap_pm_cmd cmd;
	char *arg;

	(void)state;
	ap_pm_config_init(&c);
	assert_int_equal(line(&c, "run", &cmd, &arg, &e), 0);
	assert_int_equal(cmd, AP_PM_CMD_RUN);
	assert_null(arg);
	assert_int_equal(line(&c, "run out.txt\n", &cmd, &arg, &e), 0);
	assert_int_equal(cmd, AP_PM_CMD_RUN);
	assert_string_equal(arg, "out.txt");
	free(arg);
	assert_int_equal(line(&c, "show", &cmd, &arg, &e), 0);
	assert_int_equal(cmd, AP_PM_CMD_SHOW);
	assert_int_equal(line(&c, "show cfg.txt", &cmd, &arg, &e), 0);
	assert_string_equal(arg, "cfg.txt");
	free(arg);
	assert_int_equal(line(&c, "load other.pm", &cmd, &arg, &e), 0);
	assert_int_equal(cmd, AP_PM_CMD_LOAD);
	assert_string_equal(arg, "other.pm");
	free(arg);
	assert_int_equal(line(&c, "help", &cmd, &arg, &e), 0);
	assert_int_equal(cmd, AP_PM_CMD_HELP);
	assert_int_equal(line(&c, "help set", &cmd, &arg, &e), 0);
	assert_string_equal(arg, "set");
	free(arg);
	assert_int_equal(line(&c, "quit", &cmd, &arg, &e), 0);
	assert_int_equal(cmd, AP_PM_CMD_QUIT);
	assert_int_equal(line(&c, "set number 5", &cmd, &arg, &e), 0);
	assert_int_equal(cmd, AP_PM_CMD_SET);
	/* blank lines and comments: nothing */
	assert_int_equal(line(&c, "", &cmd, &arg, &e), 0);
	assert_int_equal(cmd, AP_PM_CMD_NONE);
	assert_int_equal(line(&c, "\n", &cmd, &arg, &e), 0);
	assert_int_equal(line(&c, " \t \r\n", &cmd, &arg, &e), 0);
	assert_int_equal(cmd, AP_PM_CMD_NONE);
	assert_int_equal(line(&c, "# set number 9", &cmd, &arg, &e), 0);
	assert_int_equal(cmd, AP_PM_CMD_NONE);
	assert_int_equal(c.number, 5);

	bad(&c, "load", EINVAL);
	bad(&c, "quit now", EINVAL);
	bad(&c, "frobnicate", EINVAL);
	bad(&c, "set sizes 5", EINVAL);		/* PostMark's prefix match would take it */
	bad(&c, "runs", EINVAL);
	bad(&c, " set number 5", EINVAL);	/* PostMark would ignore it */
	bad(&c, "set", EINVAL);
	bad(&c, "!rm -rf /", EINVAL);		/* no shell escapes */
	bad(&c, "!", EINVAL);
	bad(&c, "set number 5\rset seed 3", EINVAL);
	ap_pm_config_free(&c);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_scripts(void **state)
{
	struct ap_pm_config base, c;
	struct ap_pm_script s;
	struct ap_error e;
	char p1[200], p2[200], p3[200], text[600];
	unsigned nloc = 0;

	(void)state;
	ap_pm_config_init(&base);
	snprintf(p1, sizeof(p1), "%s/main.pm", tmpdir);
	snprintf(p2, sizeof(p2), "%s/inner.pm", tmpdir);
	snprintf(p3, sizeof(p3), "%s/bad.pm", tmpdir);

	/* nested load; a quit in the inner file ends only that file; CRLF;
	 * no newline at the end */
	write_file(p2, "set seed 7\r\nquit\r\nset seed 8\r\n");
	snprintf(text, sizeof(text),
		 "# classic\n\nset number 100\nset location %s\nload %s\nrun\n"
		 "set number 200\nshow\nrun %s/out.txt\nset transactions 9", dir_a, p2, tmpdir);
	write_file(p1, text);
	assert_int_equal(ap_pm_script_load(&s, &base, p1, &e), 0);
	assert_false(s.quit);
	assert_int_equal(s.nsteps, 3);
	assert_int_equal(s.steps[0].cmd, AP_PM_CMD_RUN);
	assert_int_equal(s.steps[0].cfg.number, 100);
	assert_int_equal(s.steps[0].cfg.seed, 7);
	assert_int_equal(s.steps[0].cfg.nlocations, 1);
	assert_null(s.steps[0].output);
	assert_non_null(strstr(s.steps[0].where, "main.pm:6"));
	assert_int_equal(s.steps[1].cmd, AP_PM_CMD_SHOW);
	assert_int_equal(s.steps[2].cmd, AP_PM_CMD_RUN);
	assert_int_equal(s.steps[2].cfg.number, 200);
	assert_non_null(strstr(s.steps[2].output, "out.txt"));
	assert_int_equal(s.final.transactions, 9);
	ap_pm_script_free(&s);

	/* the sweep's loader: settings at the first run */
	ap_pm_config_init(&c);
	assert_int_equal(ap_pm_config_load(&c, p1, &nloc, &e), 0);
	assert_int_equal(nloc, 1);		/* skipped, not applied */
	assert_int_equal(c.nlocations, 0);
	assert_int_equal(c.number, 100);
	assert_int_equal(c.seed, 7);
	assert_int_equal(c.transactions, 500);
	ap_pm_config_free(&c);

	/* a top-level quit */
	write_file(p3, "set number 3\nquit\nset number 4\n");
	assert_int_equal(ap_pm_script_load(&s, &base, p3, &e), 0);
	assert_true(s.quit);
	assert_int_equal(s.final.number, 3);
	ap_pm_script_free(&s);

	/* a bad line anywhere: file:line, nothing returned */
	write_file(p3, "set number 3\nrun\nset size 9 3\nrun\n");
	assert_int_equal(ap_pm_script_load(&s, &base, p3, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "bad.pm:3: "));
	assert_null(s.steps);
	/* ... also in a nested file */
	snprintf(text, sizeof(text), "run\nload %s\n", p3);
	write_file(p1, text);
	assert_int_equal(ap_pm_script_load(&s, &base, p1, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "bad.pm:3: "));
	/* a file that loads itself */
	snprintf(text, sizeof(text), "set number 2\nload %s\n", p1);
	write_file(p1, text);
	assert_int_equal(ap_pm_script_load(&s, &base, p1, &e), -ELOOP);
	/* unreadable / missing files */
	snprintf(text, sizeof(text), "load %s/nope.pm\n", tmpdir);
	write_file(p1, text);
	assert_int_equal(ap_pm_script_load(&s, &base, p1, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "main.pm:1: "));
	assert_non_null(strstr(e.msg, "nope.pm"));
	snprintf(text, sizeof(text), "%s/nope.pm", tmpdir);
	assert_int_equal(ap_pm_script_load(&s, &base, text, &e), -ENOENT);
	assert_int_equal(ap_pm_script_load(&s, &base, tmpdir, &e) < 0, 1);
	/* run F where F cannot be written */
	snprintf(text, sizeof(text), "run %s/nodir/out.txt\n", tmpdir);
	write_file(p1, text);
	assert_int_equal(ap_pm_script_load(&s, &base, p1, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "main.pm:1: "));
	/* a binary file */
	{
		FILE *f = fopen(p1, "w");

		fwrite("run\n\0\1\2\n", 1, 8, f);
		fclose(f);
	}
	assert_int_equal(ap_pm_script_load(&s, &base, p1, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "main.pm:2: "));
	ap_pm_config_free(&base);
}

static void test_validate(void **state)
{
	struct ap_pm_config c;
	struct ap_error e;

	(void)state;
	ap_pm_config_init(&c);
	assert_int_equal(ap_pm_config_set_location(&c, dir_a, &e), 0);
	assert_int_equal(ap_pm_config_validate(&c, &e), 0);
	c.size_lo = 10;
	c.size_hi = 5;
	assert_int_equal(ap_pm_config_validate(&c, &e), -EINVAL);
	c.size_hi = 10;
	c.bias_read = 12;
	assert_int_equal(ap_pm_config_validate(&c, &e), -ERANGE);
	c.bias_read = 5;
	c.number = 0;
	assert_int_equal(ap_pm_config_validate(&c, &e), -ERANGE);
	c.number = 10;
	assert_int_equal(ap_pm_config_add_location(&c, dir_b, 0, &e), -ERANGE);
	assert_int_equal(ap_pm_config_add_location(&c, afile, 1, &e), -ENOTDIR);
	assert_int_equal(ap_pm_config_set_location(&c, "/nonexistent/x", &e), -ENOENT);
	assert_int_equal(c.nlocations, 1);
	/* a location removed after it was set */
	{
		char gone[160];
		struct ap_pm_config d;

		snprintf(gone, sizeof(gone), "%s/gone", tmpdir);
		mkdir(gone, 0755);
		ap_pm_config_init(&d);
		assert_int_equal(ap_pm_config_set_location(&d, gone, &e), 0);
		rmdir(gone);
		assert_int_equal(ap_pm_config_validate(&d, &e), -ENOENT);
		assert_non_null(strstr(e.msg, "gone"));
		ap_pm_config_free(&d);
	}
	ap_pm_config_free(&c);
}

static void test_show(void **state)
{
	struct ap_pm_config c;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	ap_pm_config_init(&c);
	ok(&c, "set size 512 2048");
	ok(&c, "set read 1024");
	f = open_memstream(&buf, &len);
	ap_pm_config_show(f, &c);
	fclose(f);
	assert_non_null(strstr(buf, "The base number of files is 500\n"));
	assert_non_null(strstr(buf, "Files range between 512 bytes and 2.00 kilobytes in size\n"));
	assert_non_null(strstr(buf, "Block sizes are: read=1.00 kilobytes, write=512 bytes\n"));
	assert_non_null(strstr(buf, "Biases are: read/append=5, create/delete=5\n"));
	assert_non_null(strstr(buf, "Using Unix buffered file I/O\n"));
	assert_non_null(strstr(buf, "Random number generator seed is 42\n"));
	assert_non_null(strstr(buf, "Report format is verbose.\n"));
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	ap_pm_help(f, "set bias");
	fclose(f);
	assert_string_equal(buf, "set bias read - Sets the chance of choosing read over append\n"
			    "set bias create - Sets the chance of choosing create over delete\n");
	free(buf);
	ap_pm_config_free(&c);
}

/* Cancels from its (after + 1)-th question on, with reason 99: no signal. */
struct countdown {
	unsigned asked, after;
};

static int countdown(void *arg)
{
	struct countdown *c = arg;

	return ++c->asked > c->after ? 99 : 0;
}

/* The workload asks cfg->cancel before every operation and stops there. */
static void test_cancel(void **state)
{
	struct countdown cd = { .after = 30 };
	struct ap_pm_config c;
	struct ap_pm_result res;
	struct ap_error e;
	char dir[160];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/cancel", tmpdir);
	assert_int_equal(mkdir(dir, 0755), 0);
	ap_pm_config_init(&c);
	assert_int_equal(ap_pm_config_set_location(&c, dir, &e), 0);
	c.number = 20;
	c.transactions = 100;
	c.cancel.fn = countdown;
	c.cancel.arg = &cd;
	/* 20 creates, then 10 transactions: the 31st question cancels */
	assert_int_equal(ap_pm_run(&c, &res, &e), -EINTR);
	assert_int_equal(res.interrupted, 99);
	assert_int_equal(res.created_alone, 20);
	assert_int_equal(res.transactions_done, 10);
	assert_true(res.cleanup_removed > 0);
	assert_non_null(strstr(e.msg, "interrupted"));
	assert_int_equal(rmdir(dir), 0);	/* nothing left behind */

	/* an empty one never cancels */
	assert_int_equal(mkdir(dir, 0755), 0);
	memset(&c.cancel, 0, sizeof(c.cancel));
	assert_int_equal(ap_pm_run(&c, &res, &e), 0);
	assert_int_equal(res.interrupted, 0);
	assert_int_equal(res.transactions_done, 100);
	assert_int_equal(rmdir(dir), 0);
	ap_pm_config_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_settings),
		cmocka_unit_test(test_locations),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_commands),
		cmocka_unit_test(test_scripts),
		cmocka_unit_test(test_validate),
		cmocka_unit_test(test_show),
		cmocka_unit_test(test_cancel),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
