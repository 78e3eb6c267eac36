// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "out.h"

enum { COL_START, COL_ALIGNED, COL_TPS, COL_SIZE };
static const struct ap_colinfo infos[] = {
	[COL_START] = { "START", 6, SCOLS_FL_RIGHT, AP_COL_NUMBER, "start sector" },
	[COL_ALIGNED] = { "ALIGNED", 1, 0, AP_COL_BOOLEAN, "aligned" },
	[COL_TPS] = { "TPS", 8, SCOLS_FL_RIGHT, AP_COL_NUMBER, "transactions/s" },
	[COL_SIZE] = { "SIZE", 6, SCOLS_FL_RIGHT, AP_COL_SIZE, "size" },
};
static const int defaults[] = { COL_START, COL_TPS };

static void test_columns(void **state)
{
	struct ap_out o = { 0 };
	struct ap_error e;
	int cols[8];
	size_t n;

	(void)state;
	assert_int_equal(ap_out_columns(&o, infos, 4, defaults, 2, cols, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_int_equal(cols[0], COL_START);
	assert_int_equal(cols[1], COL_TPS);

	o.columns = "size,start";
	assert_int_equal(ap_out_columns(&o, infos, 4, defaults, 2, cols, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_int_equal(cols[0], COL_SIZE);
	assert_int_equal(cols[1], COL_START);

	o.columns = "+ALIGNED";
	assert_int_equal(ap_out_columns(&o, infos, 4, defaults, 2, cols, &n, &e), 0);
	assert_int_equal(n, 3);
	assert_int_equal(cols[2], COL_ALIGNED);

	o.columns = "START,NOPE";
	assert_int_equal(ap_out_columns(&o, infos, 4, defaults, 2, cols, &n, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "NOPE"));

	o.columns = "START,,TPS";
	assert_int_equal(ap_out_columns(&o, infos, 4, defaults, 2, cols, &n, &e), -EINVAL);

	o.columns = NULL;
	o.all = true;
	assert_int_equal(ap_out_columns(&o, infos, 4, defaults, 2, cols, &n, &e), 0);
	assert_int_equal(n, 4);
}

static void test_validate(void **state)
{
	struct ap_out o = { 0 };
	struct ap_error e;

	(void)state;
	o.json = o.csv = true;
	assert_int_equal(ap_out_validate(&o, &e), -EINVAL);
	o.csv = false;
	assert_int_equal(ap_out_validate(&o, &e), 0);
	o.all = true;
	o.columns = "START";
	assert_int_equal(ap_out_validate(&o, &e), -EINVAL);
}

static char *render(struct ap_out *o)
{
	int cols[8];
	size_t n;
	struct libscols_table *tb;
	struct libscols_line *ln;
	char *s = NULL;

	assert_int_equal(ap_out_columns(o, infos, 4, defaults, 2, cols, &n, NULL), 0);
	tb = ap_out_table_new(o, "results", infos, cols, n);
	ln = scols_table_new_line(tb, NULL);
	ap_out_set_u64(ln, cols, n, COL_START, 40);
	ap_out_set_bool(ln, cols, n, COL_ALIGNED, true);
	ap_out_set_double(ln, cols, n, COL_TPS, "%.1f", 119.04);
	ap_out_set_size(o, ln, cols, n, COL_SIZE, 300ULL << 20);
	ln = scols_table_new_line(tb, NULL);
	ap_out_set_u64(ln, cols, n, COL_START, 34);
	ap_out_set_bool(ln, cols, n, COL_ALIGNED, false);
	ap_out_set_double(ln, cols, n, COL_TPS, "%.1f", 13);
	ap_out_set_size(o, ln, cols, n, COL_SIZE, 512);
	assert_int_equal(scols_print_table_to_string(tb, &s), 0);
	scols_unref_table(tb);
	return s;
}

static void test_render(void **state)
{
	struct ap_out o = { 0 };
	char *s;

	(void)state;
	o.all = true;
	o.raw = true;
	s = render(&o);
	assert_string_equal(s, "START ALIGNED TPS SIZE\n40 yes 119.0 300M\n34 no 13.0 512B");
	free(s);


	o.raw = false;
	o.json = true;
	s = render(&o);
	assert_non_null(strstr(s, "\"results\": ["));
	assert_non_null(strstr(s, "\"start\": 40"));
	assert_non_null(strstr(s, "\"aligned\": true"));
	assert_non_null(strstr(s, "\"aligned\": false"));
	assert_non_null(strstr(s, "\"size\": 314572800"));	/* bytes in JSON, without -b */
	free(s);
}

/* CSV is printed by ap_out_print() itself: capture stdout in a file. */
static char *render_csv(struct ap_out *o, const char *cell)
{
	static const int cols[] = { COL_START, COL_ALIGNED };
	struct libscols_table *tb;
	struct libscols_line *ln;
	char tmpl[] = "/tmp/ap-test-out.XXXXXX", *buf;
	int fd = mkstemp(tmpl), saved = dup(STDOUT_FILENO);
	long len;
	FILE *f;

	assert_true(fd >= 0 && saved >= 0);
	tb = ap_out_table_new(o, "t", infos, cols, 2);
	ln = scols_table_new_line(tb, NULL);
	ap_out_set_u64(ln, cols, 2, COL_START, 40);
	ap_out_set_str(ln, cols, 2, COL_ALIGNED, cell);
	fflush(stdout);
	dup2(fd, STDOUT_FILENO);
	assert_int_equal(ap_out_print(o, tb), 0);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	scols_unref_table(tb);
	f = fdopen(fd, "r");
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)len + 1);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	unlink(tmpl);
	return buf;
}

static void test_csv(void **state)
{
	struct ap_out o = { 0 };
	char *s;

	(void)state;
	o.csv = true;
	s = render_csv(&o, "plain");
	assert_string_equal(s, "START,ALIGNED\n40,plain\n");
	free(s);
	s = render_csv(&o, "dd bs=4K, conv=\"x\"");
	assert_string_equal(s, "START,ALIGNED\n40,\"dd bs=4K, conv=\"\"x\"\"\"\n");
	free(s);
	o.noheadings = true;
	s = render_csv(&o, " edge");
	assert_string_equal(s, "40,\" edge\"\n");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_columns),
		cmocka_unit_test(test_validate),
		cmocka_unit_test(test_render),
		cmocka_unit_test(test_csv),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
