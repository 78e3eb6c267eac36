// SPDX-License-Identifier: GPL-2.0-or-later
/* The Prometheus text format: names, escaping, values, families, duplicates. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/prom.h"

static void test_names(void **state)
{
	(void)state;
	assert_true(ap_prom_is_metric_name("alignprobe_partition_aligned"));
	assert_true(ap_prom_is_metric_name("a:b_c9"));
	assert_true(ap_prom_is_metric_name("_x"));
	assert_false(ap_prom_is_metric_name(""));
	assert_false(ap_prom_is_metric_name("9lives"));
	assert_false(ap_prom_is_metric_name("a-b"));
	assert_false(ap_prom_is_metric_name("a b"));
	assert_false(ap_prom_is_metric_name("caf\xc3\xa9"));
	assert_true(ap_prom_is_label_name("device"));
	assert_true(ap_prom_is_label_name("_x9"));
	assert_false(ap_prom_is_label_name("__name__"));	/* reserved */
	assert_false(ap_prom_is_label_name("a:b"));		/* colons: metric names only */
	assert_false(ap_prom_is_label_name("1a"));
	assert_false(ap_prom_is_label_name(""));
}

static void check_escape(const char *in, const char *want)
{
	char *s = ap_prom_escape_label_value(in);

	assert_non_null(s);
	assert_string_equal(s, want);
	free(s);
}

static void test_escape(void **state)
{
	(void)state;
	check_escape("/dev/sda", "/dev/sda");
	check_escape("a\\b", "a\\\\b");
	check_escape("say \"hi\"", "say \\\"hi\\\"");
	check_escape("two\nlines", "two\\nlines");
	check_escape("\\\"\n", "\\\\\\\"\\n");
	check_escape("", "");
	check_escape("caf\xc3\xa9 {x=\"1\"}", "caf\xc3\xa9 {x=\\\"1\\\"}");
}

static void check_value(double v, const char *want)
{
	char buf[32];

	ap_prom_format_value(v, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void test_values(void **state)
{
	(void)state;
	check_value(0, "0");
	check_value(-0.0, "0");
	check_value(1, "1");
	check_value(4096, "4096");
	check_value(-7, "-7");
	check_value(1764576000, "1764576000");
	check_value(9007199254740992.0, "9007199254740992");
	check_value(0.5, "0.5");
	check_value(0.1, "0.10000000000000001");	/* round-trips exactly */
	check_value(1e300, "1.0000000000000001e+300");
	check_value(NAN, "NaN");
	check_value(INFINITY, "+Inf");
	check_value(-INFINITY, "-Inf");
}

static void test_render(void **state)
{
	struct ap_prom *p = ap_prom_new();
	char *s;

	(void)state;
	assert_int_equal(ap_prom_family(p, "alignprobe_partition_aligned", AP_PROM_GAUGE,
					"1 when the partition starts aligned"), 0);
	assert_int_equal(ap_prom_family(p, "alignprobe_check_success", AP_PROM_GAUGE,
					"backslash \\ and\nnewline in help"), 0);
	assert_int_equal(ap_prom_family(p, "alignprobe_runs_total", AP_PROM_COUNTER, "runs"), 0);
	/* samples of the first family after those of the second: still grouped */
	assert_int_equal(ap_prom_add(p, "alignprobe_check_success", 1, "device", "/dev/sda",
				     NULL), 0);
	assert_int_equal(ap_prom_add(p, "alignprobe_partition_aligned", 1, "device", "/dev/sda",
				     "partition", "1", NULL), 0);
	assert_int_equal(ap_prom_add(p, "alignprobe_partition_aligned", 0, "device",
				     "/dev/disk/by-id/a\"b\\c", "partition", "2", NULL), 0);
	assert_int_equal(ap_prom_add(p, "alignprobe_runs_total", 3, NULL), 0);
	s = ap_prom_render(p);
	assert_non_null(s);
	assert_string_equal(s,
		"# HELP alignprobe_partition_aligned 1 when the partition starts aligned\n"
		"# TYPE alignprobe_partition_aligned gauge\n"
		"alignprobe_partition_aligned{device=\"/dev/sda\",partition=\"1\"} 1\n"
		"alignprobe_partition_aligned{device=\"/dev/disk/by-id/a\\\"b\\\\c\",partition=\"2\"} 0\n"
		"# HELP alignprobe_check_success backslash \\\\ and\\nnewline in help\n"
		"# TYPE alignprobe_check_success gauge\n"
		"alignprobe_check_success{device=\"/dev/sda\"} 1\n"
		"# HELP alignprobe_runs_total runs\n"
		"# TYPE alignprobe_runs_total counter\n"
		"alignprobe_runs_total 3\n");
	free(s);
	ap_prom_free(p);
}

static void test_empty_family(void **state)
{
	struct ap_prom *p = ap_prom_new();
	char *s;

	(void)state;
	s = ap_prom_render(p);
	assert_string_equal(s, "");
	free(s);
	assert_int_equal(ap_prom_family(p, "x_bytes", AP_PROM_GAUGE, "nothing yet"), 0);
	s = ap_prom_render(p);
	assert_string_equal(s, "# HELP x_bytes nothing yet\n# TYPE x_bytes gauge\n");
	free(s);
	ap_prom_free(p);
}

static void test_refusals(void **state)
{
	struct ap_prom *p = ap_prom_new();
	const char *pairs[] = { "device", "a", "device", "b" };

	(void)state;
	assert_int_equal(ap_prom_family(p, "bad-name", AP_PROM_GAUGE, "x"), -EINVAL);
	assert_int_equal(ap_prom_family(p, "ok", AP_PROM_GAUGE, "bad \xff help"), -EINVAL);
	assert_int_equal(ap_prom_family(p, "ok", AP_PROM_GAUGE, "help"), 0);
	/* again the same: fine; another type or help: a conflict */
	assert_int_equal(ap_prom_family(p, "ok", AP_PROM_GAUGE, "help"), 0);
	assert_int_equal(ap_prom_family(p, "ok", AP_PROM_COUNTER, "help"), -EEXIST);
	assert_int_equal(ap_prom_family(p, "ok", AP_PROM_GAUGE, "other"), -EEXIST);

	assert_int_equal(ap_prom_add(p, "undeclared", 1, NULL), -ENOENT);
	assert_int_equal(ap_prom_add(p, "ok", 1, "__name__", "x", NULL), -EINVAL);
	assert_int_equal(ap_prom_add(p, "ok", 1, "a-b", "x", NULL), -EINVAL);
	assert_int_equal(ap_prom_add_labels(p, "ok", 1, pairs, 2), -EINVAL);	/* twice */
	assert_int_equal(ap_prom_add(p, "ok", 1, "device", "\xc3(", NULL), -EILSEQ);
	assert_int_equal(ap_prom_add(p, "ok", 1, "device", "\xed\xa0\x80", NULL), -EILSEQ);

	/* one series per label set, whatever the order of the labels */
	assert_int_equal(ap_prom_add(p, "ok", 1, "device", "a", "partition", "1", NULL), 0);
	assert_int_equal(ap_prom_add(p, "ok", 0, "partition", "1", "device", "a", NULL),
			 -EEXIST);
	assert_int_equal(ap_prom_add(p, "ok", 0, "device", "a", "partition", "2", NULL), 0);
	assert_int_equal(ap_prom_add(p, "ok", 0, "device", "a", NULL), 0);
	assert_int_equal(ap_prom_add(p, "ok", 0, "device", "a", NULL), -EEXIST);
	assert_int_equal(ap_prom_add(p, "ok", 0, NULL), 0);
	assert_int_equal(ap_prom_add(p, "ok", 0, NULL), -EEXIST);
	ap_prom_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_render),
		cmocka_unit_test(test_empty_family),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
