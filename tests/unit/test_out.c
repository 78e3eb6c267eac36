// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "ui/out.h"

enum { COL_START, COL_ALIGNED, COL_TPS, COL_SIZE, COL_NAME, COL_MED };
static const struct ap_colinfo infos[] = {
	[COL_START] = { "START", 6, SCOLS_FL_RIGHT, AP_COL_NUMBER, "start sector" },
	[COL_ALIGNED] = { "ALIGNED", 1, 0, AP_COL_BOOLEAN, "aligned" },
	[COL_TPS] = { "TPS", 8, SCOLS_FL_RIGHT, AP_COL_NUMBER, "transactions/s", .fmt = "%.1f",
		      .null = "-" },
	[COL_SIZE] = { "SIZE", 6, SCOLS_FL_RIGHT, AP_COL_SIZE, "size" },
	[COL_NAME] = { "NAME", 0.1, 0, AP_COL_STRING, "name" },
	[COL_MED] = { "MEDIAN_MS", 6, SCOLS_FL_RIGHT, AP_COL_NUMBER, "median", .json = "median" },
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

/* Two rows of the four first columns, every one selected (the first four infos). */
static void fill(struct ap_row *r, int row)
{
	ap_row_reset(r);
	ap_row_u64(r, COL_START, row ? 34 : 40);
	ap_row_bool(r, COL_ALIGNED, !row);
	ap_row_double(r, COL_TPS, row ? 13 : 119.04);
	ap_row_u64(r, COL_SIZE, row ? 512 : 300ULL << 20);
}

static char *render(struct ap_out *o)
{
	int cols[8];
	size_t n;
	struct libscols_table *tb;
	struct ap_cols cs;
	struct ap_row r;
	char *s = NULL;

	assert_int_equal(ap_out_columns(o, infos, 4, defaults, 2, cols, &n, NULL), 0);
	ap_cols_init(&cs, o, infos, 4, cols, n, NULL, 0);
	tb = ap_cols_table_new(&cs, "results");
	ap_row_init(&r, &cs);
	fill(&r, 0);
	assert_int_equal(ap_row_add_line(&r, tb), 0);
	fill(&r, 1);
	assert_int_equal(ap_row_add_line(&r, tb), 0);
	ap_row_free(&r);
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
	o.bytes = true;
	s = render(&o);
	assert_string_equal(s, "START ALIGNED TPS SIZE\n40 yes 119.0 314572800\n34 no 13.0 512");
	free(s);
	o.bytes = false;

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

/* The JSON object of one row, as text, under output options @o (NULL: a saved document). */
static char *row_json(const struct ap_out *o, const int *json_all, size_t njson_all)
{
	int cols[16];
	size_t n = 0;
	struct ap_cols cs;
	struct ap_row r;
	struct json_object *j;
	char *s;

	if (o)
		assert_int_equal(ap_out_columns(o, infos, AP_ARRAY_SIZE(infos), defaults, 2, cols,
						&n, NULL), 0);
	ap_cols_init(&cs, o, infos, AP_ARRAY_SIZE(infos), cols, n, json_all, njson_all);
	ap_row_init(&r, &cs);
	ap_row_u64(&r, COL_START, 2048);
	ap_row_bool(&r, COL_ALIGNED, true);
	ap_row_double(&r, COL_TPS, 0.5);
	ap_row_u64(&r, COL_SIZE, 4096);
	ap_row_str(&r, COL_NAME, "a \"b\"");
	ap_row_double(&r, COL_MED, 1.25);
	j = ap_row_json(&r);
	ap_row_free(&r);
	s = strdup(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
	json_object_put(j);
	return s;
}

static void test_row_json(void **state)
{
	static const int order[] = { COL_SIZE, COL_START, COL_MED };
	struct ap_out o = { 0 };
	char *s;

	(void)state;
	/* without -o: every column in infos order, or the document's own */
	s = row_json(&o, NULL, 0);
	assert_string_equal(s, "{\"start\":2048,\"aligned\":true,\"tps\":0.5,\"size\":4096,"
			    "\"name\":\"a \\\"b\\\"\",\"median\":1.25}");
	free(s);
	s = row_json(&o, order, AP_ARRAY_SIZE(order));
	assert_string_equal(s, "{\"size\":4096,\"start\":2048,\"median\":1.25}");
	free(s);
	/* --output-all does not change a document's keys */
	o.all = true;
	s = row_json(&o, order, AP_ARRAY_SIZE(order));
	assert_string_equal(s, "{\"size\":4096,\"start\":2048,\"median\":1.25}");
	free(s);
	o.all = false;
	/* -o: exactly those keys, in that order, once; an explicit key */
	o.columns = "median_ms,Aligned,median_ms";
	s = row_json(&o, order, AP_ARRAY_SIZE(order));
	assert_string_equal(s, "{\"median\":1.25,\"aligned\":true}");
	free(s);
	/* +LIST: the defaults and the list */
	o.columns = "+SIZE";
	s = row_json(&o, order, AP_ARRAY_SIZE(order));
	assert_string_equal(s, "{\"start\":2048,\"tps\":0.5,\"size\":4096}");
	free(s);
	/* sizes stay bytes with -o and without -b; NULL options: a saved document */
	s = row_json(NULL, order, AP_ARRAY_SIZE(order));
	assert_string_equal(s, "{\"size\":4096,\"start\":2048,\"median\":1.25}");
	free(s);
}

/* Null cells: JSON null; in tables the column's null text, or empty. */
static void test_row_null(void **state)
{
	static const int cols[] = { COL_START, COL_ALIGNED, COL_TPS, COL_NAME, COL_MED };
	struct ap_out o = { .raw = true, .columns = "x" };
	struct libscols_table *tb;
	struct json_object *j;
	struct ap_cols cs;
	struct ap_row r;
	char *s = NULL;

	(void)state;
	ap_cols_init(&cs, &o, infos, AP_ARRAY_SIZE(infos), cols, AP_ARRAY_SIZE(cols), NULL, 0);
	tb = ap_cols_table_new(&cs, "t");
	ap_row_init(&r, &cs);
	ap_row_u64(&r, COL_START, 1);
	ap_row_double(&r, COL_TPS, NAN);	/* not finite: null */
	ap_row_str(&r, COL_NAME, NULL);
	ap_row_double(&r, COL_MED, 2);
	ap_row_null(&r, COL_MED);
	assert_int_equal(ap_row_add_line(&r, tb), 0);
	j = ap_row_json(&r);
	assert_string_equal(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN),
			    "{\"start\":1,\"aligned\":null,\"tps\":null,\"name\":null,"
			    "\"median\":null}");
	json_object_put(j);
	ap_row_free(&r);
	assert_int_equal(scols_print_table_to_string(tb, &s), 0);
	assert_string_equal(s, "START ALIGNED TPS NAME MEDIAN_MS\n1  -  ");
	free(s);
	scols_unref_table(tb);
}

/* CSV is printed by ap_out_print() itself: capture stdout in a file. */
static char *render_csv(struct ap_out *o, const char *cell)
{
	static const int cols[] = { COL_START, COL_NAME };
	struct libscols_table *tb;
	struct ap_cols cs;
	struct ap_row r;
	char tmpl[] = "/tmp/ap-test-out.XXXXXX", *buf;
	int fd = mkstemp(tmpl), saved = dup(STDOUT_FILENO);
	long len;
	FILE *f;

	assert_true(fd >= 0 && saved >= 0);
	ap_cols_init(&cs, o, infos, AP_ARRAY_SIZE(infos), cols, 2, NULL, 0);
	tb = ap_cols_table_new(&cs, "t");
	ap_row_init(&r, &cs);
	ap_row_u64(&r, COL_START, 40);
	ap_row_str(&r, COL_NAME, cell);
	assert_int_equal(ap_row_add_line(&r, tb), 0);
	ap_row_free(&r);
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
	assert_string_equal(s, "START,NAME\n40,plain\n");
	free(s);
	s = render_csv(&o, "dd bs=4K, conv=\"x\"");
	assert_string_equal(s, "START,NAME\n40,\"dd bs=4K, conv=\"\"x\"\"\"\n");
	free(s);
	o.noheadings = true;
	s = render_csv(&o, " edge");
	assert_string_equal(s, "40,\" edge\"\n");
	free(s);
}

/* Write @text to a temporary file; its name is returned (static buffer). */
static const char *tmpfile_with(const char *text, size_t len)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/test_out.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

static void load_fails(const char *text, size_t len, size_t max, int code, const char *what)
{
	const char *p = tmpfile_with(text, len);
	struct json_object *doc = (struct json_object *)1;
	struct ap_error e = { 0 };

	assert_int_equal(ap_json_load(p, max, &doc, &e), -code);
	assert_null(doc);
	assert_non_null(strstr(e.msg, p));
	if (!strstr(e.msg, what))
		fail_msg("'%s' does not say '%s'", e.msg, what);
	unlink(p);
}

static void test_json_load(void **state)
{
	struct json_object *doc = NULL, *v;
	struct ap_error e = { 0 };
	const char *p;
	char *s;
	bool b;

	(void)state;
	p = tmpfile_with("{\"a\": \"x\", \"b\": true}\n\n", 23);
	assert_int_equal(ap_json_load(p, 1 << 20, &doc, &e), 0);
	assert_int_equal(ap_json_get_string(doc, "a", true, &s, &e), 0);
	assert_string_equal(s, "x");
	free(s);
	assert_int_equal(ap_json_get_string(doc, "none", false, &s, &e), 0);
	assert_null(s);
	assert_int_equal(ap_json_get_string(doc, "none", true, &s, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "\"none\" is missing"));
	assert_int_equal(ap_json_get_string(doc, "b", false, &s, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "\"b\" is not a string"));
	assert_int_equal(ap_json_get_bool(doc, "b", true, &b, &e), 0);
	assert_true(b);
	assert_int_equal(ap_json_get_bool(doc, "a", false, &b, &e), -EINVAL);
	assert_true(json_object_object_get_ex(doc, "a", &v));
	json_object_put(doc);
	unlink(p);

	load_fails("{\"a\": 1", 7, 1 << 20, EINVAL, "not valid JSON: unexpected end of file");
	load_fails("", 0, 1 << 20, EINVAL, "not valid JSON: unexpected end of file");
	load_fails("{} {}", 5, 1 << 20, EINVAL, "not valid JSON: more after the end");
	load_fails("{\"a\": \0}", 8, 1 << 20, EINVAL, "binary data");
	load_fails("{\"a\": nope}", 11, 1 << 20, EINVAL, "not valid JSON");
	load_fails("[1, 2, 3, 4, 5, 6, 7, 8, 9]", 27, 16, EFBIG, "larger than");
	assert_int_equal(ap_json_load("/nonexistent/x.json", 1 << 20, &doc, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "/nonexistent/x.json: No such file"));
	assert_int_equal(ap_json_load("/tmp", 1 << 20, &doc, &e), -EISDIR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_columns),
		cmocka_unit_test(test_validate),
		cmocka_unit_test(test_render),
		cmocka_unit_test(test_row_json),
		cmocka_unit_test(test_row_null),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_json_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
