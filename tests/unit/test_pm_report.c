// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The workload's numbers as printed: PostMark's scale()/scalef() rules,
 * float accumulation, the verbose/terse reports and JSON from a synthetic
 * result, and the latency histogram's percentiles.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "workload/pm.h"
#include "workload/pm_hist.h"
#include "workload/pmP.h"

static void test_scalef(void **state)
{
	char b[64];

	(void)state;
	ap_pm_scalef(b, sizeof(b), 0);
	assert_string_equal(b, "0.000000 bytes");
	ap_pm_scalef(b, sizeof(b), 512);
	assert_string_equal(b, "0.50 kilobytes");
	ap_pm_scalef(b, sizeof(b), 1);
	assert_string_equal(b, "0.00 kilobytes");
	ap_pm_scalef(b, sizeof(b), 1048576);		/* not > 1 MB */
	assert_string_equal(b, "1024.00 kilobytes");
	ap_pm_scalef(b, sizeof(b), 1048577);
	assert_string_equal(b, "1.00 megabytes");
	ap_pm_scalef(b, sizeof(b), 338840256.0f);	/* the spec's reference run */
	assert_string_equal(b, "323.14 megabytes");
	ap_pm_scalef(b, sizeof(b), 2617690.0f);
	assert_string_equal(b, "2.50 megabytes");
	ap_pm_scaled(b, sizeof(b), 409784.5);
	assert_string_equal(b, "400.18 kilobytes");
	ap_pm_scale(b, sizeof(b), 512);
	assert_string_equal(b, "512 bytes");
	ap_pm_scale(b, sizeof(b), 2048);
	assert_string_equal(b, "2.00 kilobytes");
	ap_pm_scale(b, sizeof(b), 10000);
	assert_string_equal(b, "9.77 kilobytes");
	ap_pm_scale(b, sizeof(b), 3 << 20);
	assert_string_equal(b, "3.00 megabytes");
}

/* A float total drifts from the exact sum once past 2^24, as PostMark's */
static void test_float_accumulation(void **state)
{
	float f = 0;
	uint64_t exact = 0;
	unsigned i;

	(void)state;
	for (i = 0; i < 300000; i++) {
		f += (float)(512 + i % 1536);
		exact += 512 + i % 1536;
	}
	assert_true((uint64_t)f != exact);
	/* and the printed figure is the float's */
	{
		char a[64], b[64];

		ap_pm_scalef(a, sizeof(a), f);
		snprintf(b, sizeof(b), "%.2f megabytes", (double)(f / 1048576.0f));
		assert_string_equal(a, b);
	}
}

static void test_hist(void **state)
{
	struct ap_pm_hist h;
	struct ap_pm_latency l;
	uint64_t lo, hi, v;
	unsigned i, b;

	(void)state;
	/* buckets cover every value exactly once, width <= value / 64 */
	for (v = 0; v < 100000; v += 7) {
		b = ap_pm_hist_bucket(v);
		ap_pm_hist_range(b, &lo, &hi);
		assert_true(lo <= v && v <= hi);
		assert_true(hi - lo <= v / 64 + 1);
	}
	v = UINT64_MAX;
	b = ap_pm_hist_bucket(v);
	assert_true(b < AP_PM_HIST_BUCKETS);
	ap_pm_hist_range(b, &lo, &hi);
	assert_true(hi == UINT64_MAX);

	ap_pm_hist_init(&h);
	ap_pm_hist_summary(&h, &l);
	assert_int_equal(l.count, 0);
	assert_int_equal(l.p50_ns, 0);
	for (i = 1; i <= 1000; i++)
		ap_pm_hist_add(&h, i * 1000ULL);	/* 1 us .. 1 ms */
	ap_pm_hist_summary(&h, &l);
	assert_int_equal(l.count, 1000);
	assert_int_equal(l.min_ns, 1000);
	assert_int_equal(l.max_ns, 1000000);
	assert_true(l.mean_ns > 500499 && l.mean_ns < 500501);
	/* within 1/64 of the true percentiles 500 us, 900 us, 990 us */
	assert_true(l.p50_ns >= 500000 - 500000 / 64 && l.p50_ns <= 500000 + 500000 / 64);
	assert_true(l.p90_ns >= 900000 - 900000 / 64 && l.p90_ns <= 900000 + 900000 / 64);
	assert_true(l.p99_ns >= 990000 - 990000 / 64 && l.p99_ns <= 990000 + 990000 / 64);
	assert_true(l.p999_ns <= l.max_ns && l.p999_ns >= l.p99_ns);
	/* an outlier does not move the median */
	ap_pm_hist_add(&h, 5000000000ULL);
	assert_true(ap_pm_hist_percentile(&h, 50) <= 500000 + 500000 / 64 + 1000);
	assert_int_equal(ap_pm_hist_percentile(&h, 100), 5000000000ULL);
	assert_int_equal(ap_pm_hist_percentile(&h, 0), 1000);
}

static void fill_result(struct ap_pm_result *r)
{
	memset(r, 0, sizeof(*r));
	r->created_alone = 20000;
	r->created_mixed = 9953;
	r->read = 10008;
	r->appended = 9972;
	r->deleted_alone = 19906;
	r->deleted_mixed = 10047;
	r->transactions_done = 20000;
	r->bytes_read = 13557000;
	r->bytes_written_alone = 25000000;
	r->bytes_written_mixed = 16848000;
	r->bytes_written = 41848000;
	r->pm_bytes_read = 13557000.0f;
	r->pm_bytes_written = 41848000.0f;
	r->phase_ns[AP_PM_PHASE_CREATE] = 500000000;
	r->phase_ns[AP_PM_PHASE_TRANSACTIONS] = 250000000;
	r->phase_ns[AP_PM_PHASE_DELETE] = 250000000;
	r->total_ns = 1000000000;
	r->tps = 80000;
	r->created_alone_per_s = 40000;
	r->lat[AP_PM_OP_CREATE].count = 29953;
	r->lat[AP_PM_OP_CREATE].p50_ns = 12345;
}

static char *report(const struct ap_pm_config *c, const struct ap_pm_result *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_int_equal(ap_pm_report_text(f, c, r), 0);
	fclose(f);
	return buf;
}

static void test_report(void **state)
{
	struct ap_pm_config c;
	struct ap_pm_result r;
	char *t;
	int fields = 0;
	char *p, *save = NULL;

	(void)state;
	ap_pm_config_init(&c);
	fill_result(&r);
	t = report(&c, &r);
	assert_non_null(strstr(t, "Time:\n\t1.0000 seconds total\n"
			       "\t0.2500 seconds of transactions (80000.00 per second)\n"));
	assert_non_null(strstr(t, "\t29953 created (29953.00 per second)\n"
			       "\t\tCreation alone: 20000 files (40000.00 per second)\n"
			       "\t\tMixed with transactions: 9953 files"));
	assert_non_null(strstr(t, "\t10008 read ("));
	assert_non_null(strstr(t, "\t9972 appended ("));
	assert_non_null(strstr(t, "\t29953 deleted (29953.00 per second)\n"
			       "\t\tDeletion alone: 19906 files"));
	assert_non_null(strstr(t, "\t\tMixed with transactions: 10047 files"));
	assert_non_null(strstr(t, "Data:\n\t12.93 megabytes read (12.93 megabytes per second)\n"
			       "\t39.91 megabytes written (39.91 megabytes per second)\n"));
	assert_non_null(strstr(t, "Latency (microseconds):"));
	assert_non_null(strstr(t, "\tcreate        29953"));
	assert_null(strstr(t, "out of files"));
	free(t);

	r.out_of_files = true;
	r.transactions_done = 77;
	t = report(&c, &r);
	assert_non_null(strstr(t, "out of files after 77 of 500 transactions!\n"));
	assert_non_null(strstr(t, "Time:\n"));		/* a report all the same */
	free(t);
	r.out_of_files = false;
	r.interrupted = 2;
	t = report(&c, &r);
	assert_non_null(strstr(t, "Interrupted by signal 2"));
	free(t);

	c.report = AP_PM_REPORT_TERSE;
	t = report(&c, &r);
	for (p = strtok_r(t, " \n", &save); p; p = strtok_r(NULL, " \n", &save))
		fields++;
	assert_int_equal(fields, 13);
	free(t);
	ap_pm_config_free(&c);
}

static void test_json(void **state)
{
	struct ap_pm_config c;
	struct ap_pm_result r;
	struct json_object *o, *x, *y;

	(void)state;
	ap_pm_config_init(&c);
	fill_result(&r);
	o = ap_pm_result_to_json(&r);
	assert_true(json_object_object_get_ex(o, "created", &x));
	assert_int_equal(json_object_get_uint64(x), 29953);
	assert_true(json_object_object_get_ex(o, "deleted_mixed", &x));
	assert_int_equal(json_object_get_uint64(x), 10047);
	assert_true(json_object_object_get_ex(o, "postmark_bytes_written", &x));
	assert_int_equal(json_object_get_uint64(x), 41848000);
	assert_true(json_object_object_get_ex(o, "latency", &x));
	assert_true(json_object_object_get_ex(x, "sync", &y));
	assert_true(json_object_object_get_ex(x, "create", &y));
	assert_true(json_object_object_get_ex(y, "p50_ns", &x));
	assert_int_equal(json_object_get_uint64(x), 12345);
	assert_true(json_object_object_get_ex(o, "time_ns", &x));
	assert_true(json_object_object_get_ex(x, "transactions", &y));
	assert_int_equal(json_object_get_uint64(y), 250000000);
	json_object_put(o);
	o = ap_pm_config_to_json(&c);
	assert_true(json_object_object_get_ex(o, "sync", &x));
	assert_string_equal(json_object_get_string(x), "none");
	assert_true(json_object_object_get_ex(o, "size_high", &x));
	assert_int_equal(json_object_get_uint64(x), 10000);
	json_object_put(o);
	ap_pm_config_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scalef),
		cmocka_unit_test(test_float_accumulation),
		cmocka_unit_test(test_hist),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
