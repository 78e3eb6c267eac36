// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sweep's pure logic: the order of the starts, the list of starts,
 * presets, results and documents to JSON and back, the per-start summary,
 * recommendations, the mkfs argv and the GPT arithmetic.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "device/rmwbuf.h"
#include "device/rotation.h"
#include "sweep/mkfs.h"
#include "sweep/part.h"
#include "sweep/setup.h"
#include "sweep/sweep.h"
#include "workload/pm.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_order_is_permutation(void **state)
{
	uint64_t starts[31], out[31], sorted[31];
	struct ap_rng r;
	size_t i, round;

	(void)state;
	for (i = 0; i < 31; i++)
		starts[i] = 34 + i;
	ap_rng_seed(&r, 42);
	for (round = 0; round < 50; round++) {
		ap_sweep_order(starts, 31, NULL, &r, out);
		memcpy(sorted, out, sizeof(out));
		qsort(sorted, 31, sizeof(*sorted), cmp_u64);
		assert_memory_equal(sorted, starts, sizeof(starts));
	}
}

static void test_order_seeded(void **state)
{
	uint64_t starts[31], a[31], b[31], c[31];
	struct ap_rng r1, r2, r3;
	size_t i;

	(void)state;
	for (i = 0; i < 31; i++)
		starts[i] = 34 + i;
	ap_rng_seed(&r1, 7);
	ap_rng_seed(&r2, 7);
	ap_rng_seed(&r3, 8);
	ap_sweep_order(starts, 31, NULL, &r1, a);
	ap_sweep_order(starts, 31, NULL, &r2, b);
	ap_sweep_order(starts, 31, NULL, &r3, c);
	assert_memory_equal(a, b, sizeof(a));
	assert_memory_not_equal(a, c, sizeof(a));
	/* a shuffle, not the identity */
	assert_memory_not_equal(a, starts, sizeof(a));
	/* a fresh permutation every round */
	ap_sweep_order(starts, 31, NULL, &r1, b);
	assert_memory_not_equal(a, b, sizeof(a));
}

/* Never the same start twice in a row, also across round boundaries. */
static void test_order_no_back_to_back(void **state)
{
	uint64_t starts[2] = { 40, 41 }, out[2], prev = 0;
	uint64_t s3[3] = { 1, 2, 3 }, o3[3];
	struct ap_rng r;
	bool have = false;
	int round;

	(void)state;
	ap_rng_seed(&r, 1);
	for (round = 0; round < 1000; round++) {
		ap_sweep_order(starts, 2, have ? &prev : NULL, &r, out);
		if (have)
			assert_true(out[0] != prev);
		assert_true(out[0] != out[1]);
		prev = out[1];
		have = true;
	}
	have = false;
	for (round = 0; round < 1000; round++) {
		ap_sweep_order(s3, 3, have ? &prev : NULL, &r, o3);
		if (have)
			assert_true(o3[0] != prev);
		prev = o3[2];
		have = true;
	}
	/* one start: nothing to avoid, no crash */
	ap_sweep_order(starts, 1, &starts[0], &r, out);
	assert_int_equal(out[0], 40);
}

/* Every start lands in every position about equally often. */
static void test_order_uniform(void **state)
{
	enum { N = 8, ROUNDS = 40000 };
	uint64_t starts[N], out[N];
	unsigned count[N][N];
	struct ap_rng r;
	size_t i, j;
	int round;

	(void)state;
	memset(count, 0, sizeof(count));
	for (i = 0; i < N; i++)
		starts[i] = i;
	ap_rng_seed(&r, 12345);
	for (round = 0; round < ROUNDS; round++) {
		ap_sweep_order(starts, N, NULL, &r, out);
		for (i = 0; i < N; i++)
			count[out[i]][i]++;
	}
	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++)	/* expected 5000, sd ~66 */
			assert_true(count[i][j] > 4600 && count[i][j] < 5400);
}

static void test_rng_below(void **state)
{
	struct ap_rng r;
	unsigned hist[3] = { 0 };
	int i;

	(void)state;
	ap_rng_seed(&r, 99);
	assert_int_equal(ap_rng_below(&r, 1), 0);
	assert_int_equal(ap_rng_below(&r, 0), 0);
	for (i = 0; i < 30000; i++) {
		uint64_t x = ap_rng_below(&r, 3);

		assert_true(x < 3);
		hist[x]++;
	}
	for (i = 0; i < 3; i++)
		assert_true(hist[i] > 9500 && hist[i] < 10500);
}

static void test_parse_starts(void **state)
{
	struct ap_error e = { 0 };
	uint64_t *v;
	size_t n;

	(void)state;
	assert_int_equal(ap_sweep_parse_starts("34..64", &v, &n, &e), 0);
	assert_int_equal(n, 31);
	assert_int_equal(v[0], 34);
	assert_int_equal(v[30], 64);
	free(v);
	assert_int_equal(ap_sweep_parse_starts("34..64:8", &v, &n, &e), 0);
	assert_int_equal(n, 4);
	assert_int_equal(v[0], 34);
	assert_int_equal(v[3], 58);
	free(v);
	assert_int_equal(ap_sweep_parse_starts("63,35,40,40", &v, &n, &e), 0);
	assert_int_equal(n, 3);
	assert_int_equal(v[0], 35);
	assert_int_equal(v[1], 40);
	assert_int_equal(v[2], 63);
	free(v);
	assert_int_equal(ap_sweep_parse_starts("48,34..36", &v, &n, &e), 0);
	assert_int_equal(n, 4);
	assert_int_equal(v[3], 48);
	free(v);
	assert_int_equal(ap_sweep_parse_starts("2048", &v, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_int_equal(v[0], 2048);
	free(v);

	assert_int_equal(ap_sweep_parse_starts("", &v, &n, &e), -EINVAL);
	assert_int_equal(ap_sweep_parse_starts("64..34", &v, &n, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "end before"));
	assert_int_equal(ap_sweep_parse_starts("34..64:0", &v, &n, &e), -EINVAL);
	assert_int_equal(ap_sweep_parse_starts("34..", &v, &n, &e), -EINVAL);
	assert_int_equal(ap_sweep_parse_starts("..64", &v, &n, &e), -EINVAL);
	assert_int_equal(ap_sweep_parse_starts("34,", &v, &n, &e), -EINVAL);
	assert_int_equal(ap_sweep_parse_starts(",34", &v, &n, &e), -EINVAL);
	assert_int_equal(ap_sweep_parse_starts("3a", &v, &n, &e), -EINVAL);
	assert_int_equal(ap_sweep_parse_starts("-5", &v, &n, &e), -EINVAL);
	assert_int_equal(ap_sweep_parse_starts("34...64", &v, &n, &e), -EINVAL);
	assert_int_equal(ap_sweep_parse_starts("0..100000", &v, &n, &e), -ERANGE);
	assert_null(v);
	assert_int_equal(n, 0);
}

static void test_defaults_and_presets(void **state)
{
	const struct ap_sweep_preset *q, *t;
	uint64_t *v;
	size_t n;

	(void)state;
	ap_sweep_default_starts(512, &v, &n);
	assert_int_equal(n, 31);
	assert_int_equal(v[0], 34);
	assert_int_equal(v[n - 1], 64);
	free(v);
	ap_sweep_default_starts(4096, &v, &n);
	assert_int_equal(v[0], ap_part_gpt_first_usable(4096));
	assert_int_equal(n, 32);
	free(v);
	assert_int_equal(ap_part_gpt_first_usable(512), 34);
	assert_int_equal(ap_part_gpt_first_usable(4096), 6);

	q = ap_sweep_preset_find("quick");
	t = ap_sweep_preset_find("thorough");
	assert_non_null(q);
	assert_non_null(t);
	assert_null(ap_sweep_preset_find("fast"));
	assert_null(ap_sweep_preset_find(NULL));
	assert_ptr_equal(&ap_sweep_presets[0], q);	/* the default comes first */
	assert_true(q->min_rounds >= 1 && q->min_rounds <= q->max_rounds);
	assert_true(t->min_rounds >= q->min_rounds && t->max_rounds >= q->max_rounds);
	assert_true(t->transactions > q->transactions && t->number > q->number);
	assert_true(q->size_lo <= q->size_hi && q->part_size >= (16ULL << 20));
}

static struct ap_verdict fake_verdict(unsigned period, unsigned lba, bool sensitive, bool resolved)
{
	struct ap_verdict v;

	memset(&v, 0, sizeof(v));
	v.sensitive = sensitive;
	v.resolved = resolved;
	v.logical_sector = 512;
	v.reported_physical = 512;
	v.period = period;
	v.physical_sector = period * 512;
	v.lowest_aligned_lba = lba;
	return v;
}

static void test_recommend(void **state)
{
	struct ap_verdict v = fake_verdict(8, 0, true, true);
	uint64_t mib, first;
	bool known;

	(void)state;
	ap_verdict_recommend(&v, 34, &mib, &first);
	assert_int_equal(mib, 2048);
	assert_int_equal(first, 40);
	assert_true(ap_sweep_is_aligned(&v, 40, &known));
	assert_true(known);
	assert_false(ap_sweep_is_aligned(&v, 39, &known));

	v = fake_verdict(8, 7, true, true);	/* the WD jumper: 63 aligned */
	ap_verdict_recommend(&v, 34, &mib, &first);
	assert_int_equal(mib, 2055);
	assert_int_equal(first, 39);
	assert_true(ap_sweep_is_aligned(&v, 63, &known));
	assert_false(ap_sweep_is_aligned(&v, 64, &known));

	v = fake_verdict(16, 3, true, true);
	ap_verdict_recommend(&v, 34, &mib, &first);
	assert_int_equal(mib % 16, 3);
	assert_true(mib >= 2048 && mib < 2048 + 16);
	assert_int_equal(first, 35);

	v = fake_verdict(1, 0, false, true);	/* not sensitive: anything goes */
	ap_verdict_recommend(&v, 34, &mib, &first);
	assert_int_equal(mib, 2048);
	assert_int_equal(first, 34);
	assert_true(ap_sweep_is_aligned(&v, 35, &known));
	assert_true(known);

	v = fake_verdict(8, 0, true, false);	/* unresolved */
	ap_sweep_is_aligned(&v, 40, &known);
	assert_false(known);
	ap_sweep_is_aligned(NULL, 40, &known);
	assert_false(known);
}

static struct ap_sweep_result ok_result(uint64_t start, unsigned round, double tps)
{
	struct ap_sweep_result r;

	memset(&r, 0, sizeof(r));
	r.start = start;
	r.round = round;
	r.seq = round * 100 + (unsigned)start;
	r.ok = true;
	r.tps = tps;
	r.cost = 1.0 / tps;
	r.creates_per_s = tps / 2;
	r.deletes_per_s = tps / 3;
	r.read_kibs = 10;
	r.write_kibs = 20;
	r.fsync_med_ms = 1000.0 / tps;
	r.transactions = 25;
	r.created = 22;
	r.deleted = 22;
	r.bytes_read = 12345;
	r.bytes_written = 67890;
	r.workload_s = 1.5;
	r.mkfs_s = 0.1;
	return r;
}

static struct ap_sweep_result failed_result(uint64_t start, unsigned round)
{
	struct ap_sweep_result r;

	memset(&r, 0, sizeof(r));
	r.start = start;
	r.round = round;
	r.ok = false;
	r.failed_stage = AP_SWEEP_STAGE_MKFS;
	r.error = EIO;
	r.message = strdup("mkfs.ext4 failed (exit status 1): boom");
	return r;
}

static void test_result_json_roundtrip(void **state)
{
	struct ap_sweep_result a = ok_result(40, 2, 500), b, f = failed_result(35, 1), g;
	struct ap_error e = { 0 };
	struct json_object *o;

	(void)state;
	a.has_emu = true;
	a.emu_rmw = 7;
	a.emu_writes = 100;
	o = ap_sweep_result_to_json(&a);
	assert_int_equal(ap_sweep_result_from_json(o, &b, &e), 0);
	json_object_put(o);
	assert_int_equal(b.start, 40);
	assert_int_equal(b.round, 2);
	assert_true(b.ok);
	assert_true(fabs(b.cost - a.cost) < 1e-12);
	assert_true(fabs(b.tps - 500) < 1e-9);
	assert_int_equal(b.transactions, 25);
	assert_int_equal(b.bytes_written, 67890);
	assert_true(b.has_emu);
	assert_int_equal(b.emu_rmw, 7);
	ap_sweep_result_free(&b);

	o = ap_sweep_result_to_json(&f);
	assert_int_equal(ap_sweep_result_from_json(o, &g, &e), 0);
	json_object_put(o);
	assert_false(g.ok);
	assert_int_equal(g.failed_stage, AP_SWEEP_STAGE_MKFS);
	assert_int_equal(g.error, EIO);
	assert_string_equal(g.message, f.message);
	ap_sweep_result_free(&g);
	ap_sweep_result_free(&f);
}

static void expect_bad(const char *text, const char *what)
{
	struct json_object *o = json_tokener_parse(text);
	struct ap_sweep_result r;
	struct ap_error e = { 0 };

	assert_non_null(o);
	assert_true(ap_sweep_result_from_json(o, &r, &e) < 0);
	assert_non_null(strstr(e.msg, what));
	json_object_put(o);
}

static void test_result_json_bad(void **state)
{
	(void)state;
	expect_bad("{\"round\": 1, \"ok\": true, \"cost\": 1}", "start");
	expect_bad("{\"start\": -1, \"round\": 1, \"ok\": true, \"cost\": 1}", "start");
	expect_bad("{\"start\": 40, \"round\": 0, \"ok\": true, \"cost\": 1}", "round");
	expect_bad("{\"start\": 40, \"round\": 1, \"ok\": 1, \"cost\": 1}", "ok");
	expect_bad("{\"start\": 40, \"round\": 1, \"ok\": true}", "cost");
	expect_bad("{\"start\": 40, \"round\": 1, \"ok\": true, \"cost\": 0}", "cost");
	expect_bad("{\"start\": 40, \"round\": 1, \"ok\": true, \"cost\": -2}", "cost");
	expect_bad("{\"start\": 40, \"round\": 1, \"ok\": true, \"cost\": \"x\"}", "cost");
	expect_bad("{\"start\": \"40\", \"round\": 1, \"ok\": true, \"cost\": 1}", "start");
	expect_bad("{\"start\": 40, \"round\": 1, \"ok\": true, \"cost\": 1, \"tps\": []}", "tps");
	expect_bad("{\"start\": 40, \"round\": 1, \"ok\": true, \"cost\": 1, \"emulator\": 3}",
		   "emulator");
	expect_bad("[1]", "object");
}

static void fill_doc(struct ap_sweep_doc *d)
{
	static const uint64_t starts[] = { 38, 39, 40, 41 };
	unsigned round;
	size_t i, k = 0;

	memset(d, 0, sizeof(*d));
	d->device = strdup("/dev/loop9");
	d->logical_sector = 512;
	d->reported_physical = 512;
	d->nstarts = 4;
	d->starts = calloc(4, sizeof(uint64_t));
	memcpy(d->starts, starts, sizeof(starts));
	d->results = calloc(13, sizeof(*d->results));
	for (round = 1; round <= 3; round++)
		for (i = 0; i < 4; i++)
			d->results[k++] = ok_result(starts[i], round,
						    starts[i] == 40 ? 900 + round : 100 + round);
	d->results[k++] = failed_result(41, 4);
	d->nresults = k;
	d->parameters = json_tokener_parse("{\"starts\": [38, 39, 40, 41], \"seed\": 5}");
}

static void test_summarize(void **state)
{
	struct ap_verdict v = fake_verdict(8, 0, true, true);
	struct ap_sweep_start_stat *st;
	struct ap_sweep_doc d;
	size_t n;

	(void)state;
	fill_doc(&d);
	n = ap_sweep_summarize(d.results, d.nresults, d.starts, d.nstarts, &v, &st);
	assert_int_equal(n, 4);
	assert_int_equal(st[2].start, 40);
	assert_true(fabs(st[2].tps - 902) < 1e-9);	/* median of 901..903 */
	assert_true(fabs(st[2].rel - 1.0) < 1e-12);
	assert_true(fabs(st[0].rel - 102.0 / 902.0) < 1e-12);
	assert_true(st[2].has_aligned && st[2].aligned);
	assert_true(st[1].has_aligned && !st[1].aligned);
	assert_int_equal(st[3].runs, 4);
	assert_int_equal(st[3].failed, 1);	/* reported, not dropped */
	assert_true(fabs(st[3].tps - 102) < 1e-9);	/* and not counted as slow */
	assert_true(isnan(st[0].emu_rmw));
	free(st);

	/* a start whose every run failed: NAN figures, still listed */
	d.results[12].start = 99;
	n = ap_sweep_summarize(d.results, d.nresults, NULL, 0, NULL, &st);
	assert_int_equal(n, 5);
	assert_int_equal(st[4].start, 99);
	assert_int_equal(st[4].failed, 1);
	assert_true(isnan(st[4].tps));
	assert_true(isnan(st[4].rel));
	assert_false(st[4].has_aligned);
	free(st);
	ap_sweep_doc_free(&d);
}

static void test_obs(void **state)
{
	struct ap_sweep_doc d;
	struct ap_obs *obs;
	size_t n, i;

	(void)state;
	fill_doc(&d);
	n = ap_sweep_obs(d.results, d.nresults, &obs);
	assert_int_equal(n, 12);	/* the failed one is left out */
	for (i = 0; i < n; i++)
		assert_true(obs[i].cost > 0);
	assert_int_equal(obs[0].offset, 38);
	assert_true(fabs(obs[2].cost - 1.0 / 901) < 1e-15);
	free(obs);
	ap_sweep_doc_free(&d);
}

/*
 * The one document of a run: what the front end hands in lands after the
 * results, in the documented order; "next_steps_device" only when a
 * placeholder stands in a step.
 */
static void test_doc_parts(void **state)
{
	static const char *const keys[] = {
		"device", "logical_sector", "reported_physical_sector", "stopped", "verdict",
		"parameters", "starts", "results", "identity", "next_steps", "next_steps_device",
	};
	struct ap_disk_identity id = { .model = (char *)"DISK 1", .size = 1 << 30 };
	struct ap_sweep_doc_parts p = { .id = &id, .placeholder = "DEVICE", .why = "detached" };
	struct json_object *o, *v;
	struct ap_sweep_doc d;
	size_t i = 0;

	(void)state;
	fill_doc(&d);
	p.starts = json_tokener_parse("[{\"start\": 38}]");
	p.next_steps = json_tokener_parse("[\"parted DEVICE\"]");
	o = ap_sweep_doc_to_json(&d, NULL, "clear", &p);
	json_object_object_foreach(o, k, val) {
		(void)val;
		assert_true(i < sizeof(keys) / sizeof(keys[0]));
		assert_string_equal(k, keys[i]);
		i++;
	}
	assert_int_equal(i, sizeof(keys) / sizeof(keys[0]));
	assert_true(json_object_object_get_ex(o, "next_steps_device", &v));
	assert_string_equal(json_object_get_string(json_object_object_get(v, "placeholder")),
			    "DEVICE");
	assert_string_equal(json_object_get_string(json_object_object_get(v, "why")), "detached");
	assert_true(json_object_object_get_ex(o, "identity", &v));
	assert_string_equal(json_object_get_string(json_object_object_get(v, "model")), "DISK 1");
	json_object_put(o);

	/* no step listed: no placeholder; no size: no identity; no steps: no key */
	id.size = 0;
	p.starts = NULL;
	p.next_steps = json_object_new_array();
	o = ap_sweep_doc_to_json(&d, NULL, NULL, &p);
	assert_true(json_object_object_get_ex(o, "next_steps", NULL));
	assert_false(json_object_object_get_ex(o, "next_steps_device", NULL));
	assert_false(json_object_object_get_ex(o, "identity", NULL));
	assert_false(json_object_object_get_ex(o, "stopped", NULL));
	assert_int_equal(json_object_array_length(json_object_object_get(o, "starts")), 0);
	json_object_put(o);
	p.next_steps = NULL;
	o = ap_sweep_doc_to_json(&d, NULL, NULL, &p);
	assert_false(json_object_object_get_ex(o, "next_steps", NULL));
	json_object_put(o);
	ap_sweep_doc_free(&d);
}

static void test_doc_roundtrip(void **state)
{
	struct ap_sweep_doc d, d2;
	struct ap_error e = { 0 };
	struct json_object *o;
	char path[] = "/tmp/test_sweep.XXXXXX";
	int fd;

	(void)state;
	fill_doc(&d);
	d.cause = ap_xstrdup("a buffer in the drive answers read-modify-writes");
	o = ap_sweep_doc_to_json(&d, NULL, "unmeasurable", NULL);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	{
		struct ap_outfile of;

		assert_int_equal(ap_outfile_open(&of, path, &e), 0);
		assert_int_equal(ap_sweep_json_save(&of, o, &e), 0);
		assert_int_equal(ap_outfile_commit(&of, &e), 0);
	}
	json_object_put(o);
	assert_int_equal(ap_sweep_doc_load(path, &d2, &e), 0);
	assert_string_equal(d2.device, "/dev/loop9");
	assert_int_equal(d2.logical_sector, 512);
	assert_int_equal(d2.nresults, d.nresults);
	assert_int_equal(d2.nstarts, 4);
	assert_int_equal(d2.starts[3], 41);
	assert_false(d2.results[12].ok);
	assert_true(fabs(d2.results[5].cost - d.results[5].cost) < 1e-15);
	assert_string_equal(d2.stopped, "unmeasurable");
	assert_string_equal(d2.cause, d.cause);
	ap_sweep_doc_free(&d2);
	/* no cause: no key */
	free(d.cause);
	d.cause = NULL;
	o = ap_sweep_doc_to_json(&d, NULL, "clear", NULL);
	assert_false(json_object_object_get_ex(o, "cause", NULL));
	json_object_put(o);

	/* not JSON, trailing garbage, wrong shapes */
	{
		static const char *const bad[] = {
			"", "{", "nope", "{\"results\": []} x", "[]",
			"{\"logical_sector\": 512}",
			"{\"logical_sector\": 500, \"results\": []}",
			"{\"logical_sector\": 512, \"results\": {}}",
			"{\"logical_sector\": 512, \"reported_physical_sector\": 256, \"results\": []}",
			"{\"logical_sector\": 512, \"results\": [{\"start\": 1}]}",
			"{\"devices\": []}",
		};
		size_t i;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			FILE *f = fopen(path, "w");

			assert_non_null(f);
			fputs(bad[i], f);
			fclose(f);
			assert_int_not_equal(ap_sweep_doc_load(path, &d2, &e), 0);
			assert_non_null(strstr(e.msg, path));
		}
	}
	unlink(path);
	assert_int_equal(ap_sweep_doc_load("/nonexistent/x.json", &d2, &e), -ENOENT);
	ap_sweep_doc_free(&d);
}

static void test_mkfs_argv(void **state)
{
	char **v = NULL, **argv;
	size_t n = 0;

	(void)state;
	assert_true(ap_mkfs_is_known("ext4"));
	assert_true(ap_mkfs_is_known("xfs"));
	assert_false(ap_mkfs_is_known("btrfs"));
	assert_string_equal(ap_mkfs_program("ext2"), "mkfs.ext2");
	{
		/* a missing mkfs names the package to install */
		char *path = getenv("PATH") ? ap_xstrdup(getenv("PATH")) : NULL;
		struct ap_error e = { 0 };

		setenv("PATH", "/nonexistent", 1);
		assert_int_equal(ap_mkfs_check("xfs", &e), -ENOENT);
		assert_non_null(strstr(e.msg, "mkfs.xfs not found in PATH (install xfsprogs)"));
		if (path)
			setenv("PATH", path, 1);
		else
			unsetenv("PATH");
		free(path);
	}
	assert_true(ap_mkfs_min_size("xfs") >= (300ULL << 20));

	assert_int_equal(ap_mkfs_split_opts("  -O  ^has_journal ", &v, &n), 0);
	assert_int_equal(ap_mkfs_split_opts("-m0", &v, &n), 0);
	assert_int_equal(ap_mkfs_split_opts("   ", &v, &n), -EINVAL);
	assert_int_equal(n, 3);
	argv = ap_mkfs_argv("ext4", "/dev/loop3p1", v, n);
	assert_string_equal(argv[0], "mkfs.ext4");
	assert_string_equal(argv[1], "-q");
	assert_string_equal(argv[2], "-F");
	assert_string_equal(argv[3], "-b");
	assert_string_equal(argv[4], "4096");
	assert_string_equal(argv[5], "-E");
	assert_string_equal(argv[6], "lazy_itable_init=1,lazy_journal_init=1,nodiscard");
	assert_string_equal(argv[7], "-O");
	assert_string_equal(argv[8], "^has_journal");
	assert_string_equal(argv[9], "-m0");
	assert_string_equal(argv[10], "/dev/loop3p1");
	assert_null(argv[11]);
	ap_mkfs_free_opts(argv, SIZE_MAX);
	argv = ap_mkfs_argv("xfs", "/dev/x", NULL, 0);
	assert_string_equal(argv[0], "mkfs.xfs");
	assert_string_equal(argv[3], "-K");
	assert_string_equal(argv[5], "size=4096");
	assert_string_equal(argv[6], "/dev/x");
	assert_null(argv[7]);
	ap_mkfs_free_opts(argv, SIZE_MAX);
	assert_null(ap_mkfs_argv("btrfs", "/dev/x", NULL, 0));
	ap_mkfs_free_opts(v, n);
}

/* ext4's unzeroed inode tables go with a mount that never zeroes them in the background */
static void test_mkfs_mount_data(void **state)
{
	char *s;

	(void)state;
	s = ap_mkfs_mount_data("ext4", NULL);
	assert_string_equal(s, "noinit_itable");
	free(s);
	s = ap_mkfs_mount_data("ext4", "");
	assert_string_equal(s, "noinit_itable");
	free(s);
	s = ap_mkfs_mount_data("ext4", "data=journal,nodelalloc");
	assert_string_equal(s, "noinit_itable,data=journal,nodelalloc");
	free(s);
	assert_null(ap_mkfs_mount_data("ext2", NULL));
	assert_null(ap_mkfs_mount_data("xfs", ""));
	s = ap_mkfs_mount_data("xfs", "noatime");
	assert_string_equal(s, "noatime");
	free(s);
}

/* only ext4's umount flushes around its journal's writes; xfs has no nobarrier any more */
static void test_mkfs_umount_data(void **state)
{
	(void)state;
	assert_string_equal(ap_mkfs_umount_data("ext4"), "nobarrier");
	assert_null(ap_mkfs_umount_data("ext2"));
	assert_null(ap_mkfs_umount_data("xfs"));
	assert_null(ap_mkfs_umount_data("btrfs"));
	assert_null(ap_mkfs_umount_data(NULL));
}

static void test_mkfs_missing(void **state)
{
	struct ap_error e = { 0 };
	char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;

	(void)state;
	setenv("PATH", "/nonexistent", 1);
	assert_int_equal(ap_mkfs_check("ext4", &e), -ENOENT);
	assert_non_null(strstr(e.msg, "mkfs.ext4 not found in PATH"));
	assert_non_null(strstr(e.msg, "e2fsprogs"));
	assert_int_equal(ap_mkfs_run("ext4", "/dev/null", NULL, 0, NULL, &e), -ENOENT);
	assert_int_equal(ap_mkfs_check("btrfs", &e), -EINVAL);
	if (old) {
		setenv("PATH", old, 1);
		free(old);
	}
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(ap_sweep_stage_name(AP_SWEEP_STAGE_MKFS), "mkfs");
	assert_string_equal(ap_sweep_stage_name((enum ap_sweep_stage)99), "unknown");
	assert_string_equal(ap_sweep_stop_name(AP_SWEEP_STOP_CLEAR), "clear");
	assert_string_equal(ap_sweep_stop_name(AP_SWEEP_STOP_SIGNAL), "signal");
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* --workload: PostMark's syntax; locations skipped; the first run's settings */
static void test_workload_load(void **state)
{
	char dir[] = "/tmp/test_sweep_wl.XXXXXX", a[64], b[64], c[64], text[256];
	struct ap_pm_config cfg;
	struct ap_error e = { 0 };
	unsigned nloc = 99;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a.pm", dir);
	snprintf(b, sizeof(b), "%s/b.pm", dir);
	snprintf(c, sizeof(c), "%s/c.pm", dir);
	snprintf(text, sizeof(text),
		 "# classic\nset location /nonexistent/mnt\nset number 262144\n"
		 "load %s\nset size 512 2048\nrun\nset number 5\nrun\n", b);
	write_file(a, text);
	write_file(b, "set transactions 4096\nset location +/also/missing 2\nquit\nset seed 1\n");
	ap_pm_config_init(&cfg);
	assert_int_equal(ap_pm_config_load(&cfg, a, &nloc, &e), 0);
	assert_int_equal(nloc, 2);
	assert_int_equal(cfg.number, 262144);		/* the first run's */
	assert_int_equal(cfg.transactions, 4096);	/* from the loaded file */
	assert_int_equal(cfg.seed, 42);			/* after its quit: not read */
	assert_int_equal(cfg.size_lo, 512);
	assert_int_equal(cfg.size_hi, 2048);
	assert_int_equal(cfg.nlocations, 0);
	ap_pm_config_free(&cfg);

	/* errors name file:line and leave the config unchanged */
	write_file(c, "set number 7\nbogus\n");
	ap_pm_config_init(&cfg);
	assert_true(ap_pm_config_load(&cfg, c, &nloc, &e) < 0);
	assert_non_null(strstr(e.msg, "c.pm:2"));
	assert_int_equal(cfg.number, 500);
	snprintf(text, sizeof(text), "load %s\n", c);
	write_file(c, text);		/* loads itself */
	assert_true(ap_pm_config_load(&cfg, c, &nloc, &e) < 0);
	assert_non_null(strstr(e.msg, "nested"));
	snprintf(text, sizeof(text), "%s/missing.pm", dir);
	assert_int_equal(ap_pm_config_load(&cfg, text, &nloc, &e), -ENOENT);
	ap_pm_config_free(&cfg);
	unlink(a);
	unlink(b);
	unlink(c);
	rmdir(dir);
}

/* The starts and the verdict in one line, as the dry run, the verdict and the plot say them. */
static void test_words(void **state)
{
	const uint64_t st[] = { 34, 35, 36, 37 };
	struct ap_verdict v = { 0 };
	char buf[64], *s;

	(void)state;
	ap_sweep_fmt_starts(buf, sizeof(buf), st, 4, 3);
	assert_string_equal(buf, "34 35 36 ...");
	ap_sweep_fmt_starts(buf, sizeof(buf), st, 2, 3);
	assert_string_equal(buf, "34 35");
	s = ap_sweep_verdict_line(NULL, "interrupted");
	assert_string_equal(s, "no verdict: the run was interrupted");
	free(s);
	v.resolved = true;
	v.tentative = true;
	v.min_slowdown = 1.1;
	s = ap_sweep_verdict_line(&v, NULL);
	assert_string_equal(s, "no alignment effect of 1.10x or more (tentative)");
	free(s);
	/* the stop states: one table of names and reasons */
	assert_null(ap_sweep_stopped_early(ap_sweep_stop_parse("clear")));
	assert_string_equal(ap_sweep_stopped_early(ap_sweep_stop_parse("error")),
			    "stopped by an error");
	assert_int_equal(ap_sweep_stop_parse("unmeasurable"), AP_SWEEP_STOP_UNMEASURABLE);
	assert_int_equal(ap_sweep_stop_parse("bogus"), AP_SWEEP_STOP_NONE);
	assert_int_equal(ap_sweep_stop_parse(NULL), AP_SWEEP_STOP_NONE);
	for (unsigned k = AP_SWEEP_STOP_NONE; k <= AP_SWEEP_STOP_UNMEASURABLE; k++)
		assert_int_equal(ap_sweep_stop_parse(ap_sweep_stop_name(k)), k);
	v.sensitive = true;
	assert_null(ap_sweep_shown_verdict(&v, AP_SWEEP_STOP_SIGNAL));
	assert_ptr_equal(ap_sweep_shown_verdict(&v, AP_SWEEP_STOP_ROUNDS), &v);
}

/* The plan on a disk: the defaults, one start, what does not fit, and the saved parameters. */
static void test_setup_plan(void **state)
{
	struct ap_sweep_setup st;
	struct ap_error e = { 0 };
	struct json_object *x;
	uint64_t ps = 0;
	unsigned nloc;

	(void)state;
	ap_sweep_setup_init(&st);
	ap_sweep_setup_preset(&st, false, false);
	/* quick: 2 rounds may be clear, where the split is complete */
	assert_int_equal(st.min_rounds, 2);
	{
		struct ap_analysis_params p;

		ap_sweep_analysis_params(&p, 512, 512);
		assert_int_equal(p.split_min_n, 2);
	}
	assert_int_equal(ap_sweep_setup_workload(&st, &nloc, &e), 0);
	assert_int_equal(st.workload.number, 3);
	st.disk = "/dev/x";
	ap_part_disk_geometry(512, 512, (1ULL << 30) / 512, &st.info);
	assert_int_equal(ap_sweep_setup_plan(&st, &ps, &e), 0);
	assert_int_equal(st.nstarts, 31);
	assert_int_equal(st.starts[0], 34);
	assert_int_equal(st.part_size, 64ULL << 20);
	assert_int_equal(ps, (64ULL << 20) / 512);
	ap_sweep_setup_params(&st, ps);
	assert_true(json_object_object_get_ex(st.params, "partition_bytes", &x));
	assert_int_equal(json_object_get_int64(x), 64LL << 20);
	assert_true(json_object_object_get_ex(st.params, "preset", &x));
	assert_string_equal(json_object_get_string(x), "quick");
	/* a disk of 40 MiB: too small for the preset's partition, cut to what fits */
	ap_part_disk_geometry(512, 512, (40ULL << 20) / 512, &st.info);
	st.part_size = 0;
	assert_int_equal(ap_sweep_setup_plan(&st, &ps, &e), 0);
	assert_true(st.part_size < (40ULL << 20) && st.part_size % 4096 == 0);
	/* 10 MiB: less than the file system needs (16 MiB), said of the disk */
	ap_part_disk_geometry(512, 512, (10ULL << 20) / 512, &st.info);
	assert_int_equal(ap_sweep_setup_plan(&st, &ps, &e), -ENOSPC);
	assert_non_null(strstr(e.msg, "/dev/x: too small: only "));
	/* --size larger than the disk holds: the option's fault */
	ap_part_disk_geometry(512, 512, (1ULL << 30) / 512, &st.info);
	st.size_set = true;
	st.part_size = 2ULL << 30;
	assert_int_equal(ap_sweep_setup_plan(&st, &ps, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "--size: a partition at start 64 can have at most"));
	/* a start before the first usable sector; one start: one round */
	st.size_set = false;
	free(st.starts);
	st.starts = ap_xcalloc(1, sizeof(*st.starts));
	st.starts[0] = 20;
	st.nstarts = 1;
	assert_int_equal(ap_sweep_setup_plan(&st, &ps, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "start 20 is before the first sector"));
	assert_int_equal(st.max_rounds, 1);
	ap_sweep_setup_free(&st);
}

/* Why a run stopped, in words. */
static void test_stop_words(void **state)
{
	struct ap_sweep_run run = { 0 };
	char buf[256];

	(void)state;
	run.nstarts = 3;
	run.rounds_done = 3;
	run.nresults = 10;
	run.elapsed_ns = 42ULL * 1000000000;
	run.stop = AP_SWEEP_STOP_CLEAR;
	assert_string_equal(ap_sweep_stop_words(&run, buf, sizeof(buf)), "the verdict was clear "
			    "after 10 measurements (3 rounds and 1 of 3 starts of round 4) in 42s");
	run.stop = AP_SWEEP_STOP_SIGNAL;
	run.signo = 2;
	run.nresults = 9;
	assert_string_equal(ap_sweep_stop_words(&run, buf, sizeof(buf)),
			    "interrupted by signal 2 after 9 measurements (3 rounds) in 42s");
}

/*
 * The sweep's check for a buffer that answers read-modify-writes
 * (device/rmwbuf.h): where its writes go, and its decision on the latencies
 * of the emulated drives (hdd-lba7-rmwbuf: 16.3 ms, then 8.0 ms).
 */
static void test_rmwbuf(void **state)
{
	const uint64_t MiB = 1024 * 1024, size = 256 * MiB;
	uint64_t first[AP_RMWBUF_TRIALS], second[AP_RMWBUF_TRIALS];
	struct ap_rmwbuf_check c;
	unsigned i;

	(void)state;
	for (i = 0; i < AP_RMWBUF_MAX_TRIALS; i++) {
		uint64_t at = ap_rmwbuf_write_at(i, size, 4096);

		assert_int_equal(at % 4096, 0);
		assert_true(at >= MiB);
		/* its reads stay below the middle, which the rotation check reads */
		assert_true(at + AP_RMWBUF_GAP + 4096 <= size / 2 - 16 * 4096);
		if (i)	/* downward, a step apart: no read-ahead reaches the next */
			assert_int_equal(ap_rmwbuf_write_at(i - 1, size, 4096) - at, AP_RMWBUF_STEP);
	}
	assert_int_equal(ap_rmwbuf_write_at(AP_RMWBUF_MAX_TRIALS, size, 4096), UINT64_MAX);
	/* 128 MiB (the sweep tests' drives) hold both batches; 50 MiB not the first */
	assert_int_not_equal(ap_rmwbuf_write_at(AP_RMWBUF_MAX_TRIALS - 1, 128 * MiB, 512),
			     UINT64_MAX);
	assert_int_equal(ap_rmwbuf_write_at(AP_RMWBUF_TRIALS - 1, 50 * MiB, 512), UINT64_MAX);
	assert_int_equal(ap_rmwbuf_write_at(0, size, 0), UINT64_MAX);

	/* buffered: the second write skips the read pass, a revolution */
	for (i = 0; i < AP_RMWBUF_TRIALS; i++) {
		first[i] = 16300000 + i * 10000;
		second[i] = 7900000 + i * 10000;
	}
	ap_rmwbuf_decide(first, second, AP_RMWBUF_TRIALS, &c);
	assert_true(c.buffered);
	assert_int_equal(c.served, AP_RMWBUF_TRIALS);
	assert_int_equal(c.trials, AP_RMWBUF_TRIALS);
	assert_in_range(c.first_ns, 16300000, 16420000);
	assert_in_range(c.second_ns, 7900000, 8020000);
	assert_int_equal(first[0], 16300000);	/* not sorted in place */
	/*
	 * half served are enough, fewer are not: a busy machine's delays on
	 * 6 of the second writes (the rule before wanted three quarters)
	 */
	for (i = 0; i < 6; i++)
		second[i] += 5000000 + i * 700000;
	ap_rmwbuf_decide(first, second, AP_RMWBUF_TRIALS, &c);
	assert_int_equal(c.served, 6);
	assert_true(c.buffered);
	second[6] = first[6] + 5000000;
	ap_rmwbuf_decide(first, second, AP_RMWBUF_TRIALS, &c);
	assert_false(c.buffered);

	/* honest (8.1 ms each), 4096 without a buffer (16.4 ms each), flash */
	for (i = 0; i < AP_RMWBUF_TRIALS; i++) {
		first[i] = 8100000 + (i % 3) * 300000;
		second[i] = 8100000 + (i % 2) * 300000;
	}
	ap_rmwbuf_decide(first, second, AP_RMWBUF_TRIALS, &c);
	assert_false(c.buffered);
	assert_int_equal(c.served, 0);
	for (i = 0; i < AP_RMWBUF_TRIALS; i++) {
		first[i] = 16400000;
		second[i] = 16500000;
	}
	ap_rmwbuf_decide(first, second, AP_RMWBUF_TRIALS, &c);
	assert_false(c.buffered);
	for (i = 0; i < AP_RMWBUF_TRIALS; i++) {
		first[i] = 900000;	/* 3x, but less than a seek */
		second[i] = 300000;
	}
	ap_rmwbuf_decide(first, second, AP_RMWBUF_TRIALS, &c);
	assert_int_equal(c.served, 0);
	/* more than a seek, but less than half the write: not a read pass */
	for (i = 0; i < AP_RMWBUF_TRIALS; i++) {
		first[i] = 22000000;
		second[i] = 20000000;
	}
	ap_rmwbuf_decide(first, second, AP_RMWBUF_TRIALS, &c);
	assert_int_equal(c.served, 0);
	ap_rmwbuf_decide(first, second, 0, &c);
	assert_false(c.buffered);
}

/*
 * A "buffered" answer checked against fresh places whose 64 KiB was
 * allocated by a neighbour's write: thin-1m's pairs (a 1 MiB unit copied on
 * the first write, 5.8 ms, then 0.2 ms) looked buffered, and the sweep
 * stopped with "a buffer in the drive answers read-modify-writes"; its
 * controls are as fast as the rewrites. hdd-lba7-rmwbuf's controls pay the
 * read pass (16.3 ms, 8.0 ms, and 16.2 ms).
 */
static void test_rmwbuf_controls(void **state)
{
	const uint64_t MiB = 1024 * 1024, size = 256 * MiB;
	uint64_t first[AP_RMWBUF_TRIALS], second[AP_RMWBUF_TRIALS], control[AP_RMWBUF_TRIALS];
	struct ap_rmwbuf_check c;
	unsigned i, j;

	(void)state;
	for (i = 0; i < AP_RMWBUF_MAX_TRIALS; i++) {
		uint64_t q = ap_rmwbuf_control_at(i, size, 512), at = ap_rmwbuf_write_at(i, size, 512);

		assert_int_equal(q % AP_RMWBUF_UNIT, 0);
		assert_true(q >= MiB);
		/* the neighbour: another physical sector of 32 KiB or less, the same unit */
		assert_int_equal((q + AP_RMWBUF_NEIGHBOUR) / AP_RMWBUF_UNIT, q / AP_RMWBUF_UNIT);
		/* clear of every trial's write and reads, and of the other controls */
		for (j = 0; j < AP_RMWBUF_MAX_TRIALS; j++) {
			uint64_t t = ap_rmwbuf_write_at(j, size, 512);

			assert_true(q + AP_RMWBUF_GAP + 512 <= t || q >= t + AP_RMWBUF_GAP + 512);
			if (j != i)
				assert_true(ap_rmwbuf_control_at(j, size, 512) != q);
		}
		assert_true(q < at && at - q <= AP_RMWBUF_STEP / 2 + AP_RMWBUF_UNIT);
	}
	assert_int_equal(ap_rmwbuf_control_at(AP_RMWBUF_MAX_TRIALS, size, 512), UINT64_MAX);
	/* the lowest trial of a small device: its control would be in the first MiB */
	assert_int_equal(ap_rmwbuf_control_at(AP_RMWBUF_TRIALS - 1, 54 * MiB, 512), UINT64_MAX);

	/* thin-1m: the pairs say buffered, the controls are rewrites' cost */
	for (i = 0; i < AP_RMWBUF_TRIALS; i++) {
		first[i] = 5800000 + i * 20000;
		second[i] = 200000 + i * 5000;
		control[i] = 220000 + i * 5000;
	}
	ap_rmwbuf_decide(first, second, AP_RMWBUF_TRIALS, &c);
	assert_true(c.buffered);
	ap_rmwbuf_control(control, AP_RMWBUF_TRIALS, &c);
	assert_false(c.buffered);
	assert_true(c.first_writes);
	assert_int_equal(c.controls, AP_RMWBUF_TRIALS);
	assert_in_range(c.control_ns, 220000, 280000);
	/* faster still than the rewrites (noise): first writes all the same */
	for (i = 0; i < AP_RMWBUF_TRIALS; i++)
		control[i] = 150000;
	ap_rmwbuf_decide(first, second, AP_RMWBUF_TRIALS, &c);
	ap_rmwbuf_control(control, AP_RMWBUF_TRIALS, &c);
	assert_false(c.buffered);
	assert_true(c.first_writes);

	/* hdd-lba7-rmwbuf: the controls pay the read pass, it stays buffered */
	for (i = 0; i < AP_RMWBUF_TRIALS; i++) {
		first[i] = 16300000 + i * 10000;
		second[i] = 8000000 + i * 10000;
		control[i] = 16200000 + (i % 3) * 900000;
	}
	ap_rmwbuf_decide(first, second, AP_RMWBUF_TRIALS, &c);
	ap_rmwbuf_control(control, AP_RMWBUF_TRIALS, &c);
	assert_true(c.buffered);
	assert_false(c.first_writes);
	/* halfway is enough (a busy machine slows some), less is not */
	for (i = 0; i < AP_RMWBUF_TRIALS; i++) {
		first[i] = 16000000;
		second[i] = 8000000;
		control[i] = 12000000;
	}
	ap_rmwbuf_decide(first, second, AP_RMWBUF_TRIALS, &c);
	ap_rmwbuf_control(control, AP_RMWBUF_TRIALS, &c);
	assert_true(c.buffered);
	for (i = 0; i < AP_RMWBUF_TRIALS; i++)
		control[i] = 11900000;
	ap_rmwbuf_decide(first, second, AP_RMWBUF_TRIALS, &c);
	ap_rmwbuf_control(control, AP_RMWBUF_TRIALS, &c);
	assert_false(c.buffered);
	/* no controls (no room): the pairs decide */
	ap_rmwbuf_decide(first, second, AP_RMWBUF_TRIALS, &c);
	ap_rmwbuf_control(control, 0, &c);
	assert_true(c.buffered);
	assert_int_equal(c.controls, 0);
	/* not buffered: nothing to check */
	for (i = 0; i < AP_RMWBUF_TRIALS; i++)
		second[i] = first[i];
	ap_rmwbuf_decide(first, second, AP_RMWBUF_TRIALS, &c);
	ap_rmwbuf_control(control, AP_RMWBUF_TRIALS, &c);
	assert_false(c.buffered);
	assert_false(c.first_writes);
	assert_int_equal(c.controls, 0);

	/* its first writes on a rotating disk, for the probe's flush rule */
	assert_true(ap_rotation_write_unflushed(600000, 3600000));	/* usb-bridge-noflush */
	assert_true(ap_rotation_write_unflushed(1200000, 4000000));	/* under a third */
	assert_false(ap_rotation_write_unflushed(1100000, 3000000));
	assert_false(ap_rotation_write_unflushed(8100000, 4100000));	/* honest-512n */
}

/*
 * The clock of ap_rmwbuf_measure() (linked with --wrap=ap_now_ns, mk/sweep.am):
 * the real one unless fake_ns is set, then fake_ns[fake_at++] per call.
 */
uint64_t __real_ap_now_ns(void);
uint64_t __wrap_ap_now_ns(void);
static const uint64_t *fake_ns;
static size_t fake_at, fake_n;

uint64_t __wrap_ap_now_ns(void)
{
	if (!fake_ns)
		return __real_ap_now_ns();
	assert_true(fake_at < fake_n);
	return fake_ns[fake_at++];
}

/*
 * The check itself on a small device (a sparse file of 64 MiB: room for the
 * first batch and two trials of the second), one pair in three served: the
 * second batch runs as far as there is room, and the decision counts every
 * trial done (5 of 14 served: no buffer, so no controls). It wrote at
 * UINT64_MAX at its 15th trial (EINVAL: the 14 good trials thrown away)
 * on every device of 58-102 MiB.
 */
static void test_rmwbuf_small_device(void **state)
{
	const uint64_t MiB = 1024 * 1024, size = 64 * MiB;
	uint64_t clock[4 * AP_RMWBUF_MAX_TRIALS], t = 1000000000;
	char path[] = "/tmp/test_rmwbuf.XXXXXX";
	struct ap_rmwbuf_check c;
	unsigned i, room = 0;
	int fd;

	(void)state;
	while (room < AP_RMWBUF_MAX_TRIALS && ap_rmwbuf_write_at(room, size, 512) != UINT64_MAX)
		room++;
	assert_true(room > AP_RMWBUF_TRIALS && room < AP_RMWBUF_MAX_TRIALS);
	/* pairs: 16.3 ms then 8.0 ms (served), then twice 8.0 ms twice */
	for (i = 0; i < AP_RMWBUF_MAX_TRIALS; i++) {
		uint64_t first = i % 3 ? 8000000 : 16300000;

		clock[4 * i] = t;
		clock[4 * i + 1] = t + first;
		clock[4 * i + 2] = t + first + 1000000;
		clock[4 * i + 3] = t + first + 1000000 + 8000000;
		t += 100000000;
	}
	fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(ftruncate(fd, (off_t)size), 0);
	fake_ns = clock;
	fake_at = 0;
	fake_n = AP_ARRAY_SIZE(clock);
	assert_int_equal(ap_rmwbuf_measure(fd, size, 512, &c), 0);
	fake_ns = NULL;
	close(fd);
	assert_int_equal(c.trials, room);
	assert_int_equal(c.served, (room + 2) / 3);
	assert_false(c.buffered);
	assert_int_equal(fake_at, 4 * room);
}

/* When the buffer stops the sweep: a small workload at once, a no-effect verdict at the end. */
static void test_rmw_hides(void **state)
{
	struct ap_rmwbuf_check k = { .trials = 12, .served = 12, .first_ns = 16300000,
				     .second_ns = 7900000, .buffered = true };
	struct ap_pm_config quick = { .number = 3, .transactions = 4 };
	struct ap_pm_config thorough = { .number = 100, .transactions = 300 };
	struct ap_verdict none = { .resolved = true, .sensitive = false };
	struct ap_verdict unit = { .resolved = true, .sensitive = true };
	struct ap_verdict open = { .resolved = false, .sensitive = false };
	char cause[512] = "";

	(void)state;
	assert_true(ap_sweep_rmw_hides(&k, &quick, NULL, cause, sizeof(cause)));
	assert_non_null(strstr(cause, "12 of 12 one-sector writes"));
	assert_non_null(strstr(cause, "a buffer in the drive answers read-modify-writes"));
	assert_non_null(strstr(cause, "misaligned writes cost nothing"));
	assert_non_null(strstr(cause, "--preset thorough"));
	assert_non_null(strstr(cause, "alignprobe probe"));
	assert_null(strstr(cause, "no effect seen"));
	assert_true(strlen(cause) < sizeof(cause) - 1);	/* not cut */
	assert_false(ap_sweep_rmw_hides(&k, &thorough, NULL, cause, sizeof(cause)));
	/* the larger workload's verdict */
	assert_true(ap_sweep_rmw_hides(&k, &thorough, &none, cause, sizeof(cause)));
	assert_non_null(strstr(cause, "no effect seen, but "));
	assert_true(strlen(cause) < sizeof(cause) - 1);
	assert_false(ap_sweep_rmw_hides(&k, &thorough, &unit, cause, sizeof(cause)));
	assert_false(ap_sweep_rmw_hides(&k, &thorough, &open, cause, sizeof(cause)));
	/* no buffer: nothing stops */
	k.buffered = false;
	assert_false(ap_sweep_rmw_hides(&k, &quick, NULL, cause, sizeof(cause)));
	assert_false(ap_sweep_rmw_hides(&k, &quick, &none, cause, sizeof(cause)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_setup_plan),
		cmocka_unit_test(test_stop_words),
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_order_is_permutation),
		cmocka_unit_test(test_order_seeded),
		cmocka_unit_test(test_order_no_back_to_back),
		cmocka_unit_test(test_order_uniform),
		cmocka_unit_test(test_rng_below),
		cmocka_unit_test(test_parse_starts),
		cmocka_unit_test(test_defaults_and_presets),
		cmocka_unit_test(test_recommend),
		cmocka_unit_test(test_result_json_roundtrip),
		cmocka_unit_test(test_result_json_bad),
		cmocka_unit_test(test_summarize),
		cmocka_unit_test(test_obs),
		cmocka_unit_test(test_doc_roundtrip),
		cmocka_unit_test(test_doc_parts),
		cmocka_unit_test(test_mkfs_argv),
		cmocka_unit_test(test_mkfs_mount_data),
		cmocka_unit_test(test_mkfs_umount_data),
		cmocka_unit_test(test_mkfs_missing),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_workload_load),
		cmocka_unit_test(test_rmwbuf),
		cmocka_unit_test(test_rmwbuf_controls),
		cmocka_unit_test(test_rmwbuf_small_device),
		cmocka_unit_test(test_rmw_hides),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
