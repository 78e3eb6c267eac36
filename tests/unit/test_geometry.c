// SPDX-License-Identifier: GPL-2.0-or-later
/* The alignment predicate (exhaustively against a reference) and geometries. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "geometry.h"

/* Reference: exists integer m with lba*logical == lowest*logical + m*unit. */
static bool ref_aligned(int64_t lba, int64_t logical, int64_t unit, int64_t lowest)
{
	return (lba * logical - lowest * logical) % unit == 0;
}

static void test_predicate_exhaustive(void **state)
{
	static const unsigned logicals[] = { 512, 4096 };
	static const uint64_t units[] = { 512, 1024, 4096, 8192, 65536, 1048576, 786432, 1536 };
	size_t a, b;
	int64_t lba, low;

	(void)state;
	for (a = 0; a < AP_ARRAY_SIZE(logicals); a++)
		for (b = 0; b < AP_ARRAY_SIZE(units); b++)
			for (low = 0; low < 16; low++)
				for (lba = 0; lba < 3000; lba++) {
					bool want = ref_aligned(lba, logicals[a], (int64_t)units[b], low);
					bool got = ap_geometry_is_aligned((uint64_t)lba, logicals[a],
									  units[b], (uint64_t)low);
					uint64_t mis = ap_geometry_misalignment((uint64_t)lba, logicals[a],
										units[b], (uint64_t)low);
					uint64_t next = ap_geometry_next_aligned((uint64_t)lba, logicals[a],
										 units[b], (uint64_t)low);

					if (got != want)
						fail_msg("lba %lld logical %u unit %llu lowest %lld: got %d",
							 (long long)lba, logicals[a],
							 (unsigned long long)units[b], (long long)low, got);
					assert_int_equal(mis == 0, want);
					assert_true(mis < units[b]);
					if (units[b] % logicals[a]) {
						assert_true(next == UINT64_MAX);
					} else {
						/* aligned starts lie exactly one unit apart: the
						 * first one at or after lba is less than a unit on */
						assert_true(next >= (uint64_t)lba);
						assert_true(ref_aligned((int64_t)next, logicals[a],
									(int64_t)units[b], low));
						assert_true((next - (uint64_t)lba) * logicals[a] < units[b]);
					}
				}
}

static void test_misaligned_by_1_to_7(void **state)
{
	unsigned k;

	(void)state;
	/* 512e drive, unshifted: 2048 aligned, 2048+k for k=1..7 not */
	assert_true(ap_geometry_is_aligned(2048, 512, 4096, 0));
	for (k = 1; k <= 7; k++) {
		assert_false(ap_geometry_is_aligned(2048 + k, 512, 4096, 0));
		assert_int_equal(ap_geometry_misalignment(2048 + k, 512, 4096, 0), k * 512);
		assert_int_equal(ap_geometry_next_aligned(2048 + k, 512, 4096, 0), 2056);
		/* the reported 512-byte geometry calls every one of them aligned */
		assert_true(ap_geometry_is_aligned(2048 + k, 512, 512, 0));
	}
	assert_int_equal(ap_geometry_misalignment(2056, 512, 4096, 0), 0);
	/* the DOS-era start 63 is misaligned by 7 sectors on an unshifted drive */
	assert_false(ap_geometry_is_aligned(63, 512, 4096, 0));
	assert_int_equal(ap_geometry_misalignment(63, 512, 4096, 0), 7 * 512);
}

static void test_shifted_geometry(void **state)
{
	unsigned k;

	(void)state;
	/* lowest aligned LBA 7 (WD "jumper 7-8"): 63 is aligned, 64 and 2048 are not */
	assert_true(ap_geometry_is_aligned(63, 512, 4096, 7));
	assert_true(ap_geometry_is_aligned(7, 512, 4096, 7));
	assert_true(ap_geometry_is_aligned(2055, 512, 4096, 7));
	assert_false(ap_geometry_is_aligned(64, 512, 4096, 7));
	assert_false(ap_geometry_is_aligned(2048, 512, 4096, 7));
	assert_int_equal(ap_geometry_misalignment(2048, 512, 4096, 7), 512);
	assert_int_equal(ap_geometry_next_aligned(2048, 512, 4096, 7), 2055);
	/* below the lowest aligned LBA */
	assert_false(ap_geometry_is_aligned(0, 512, 4096, 7));
	assert_int_equal(ap_geometry_misalignment(0, 512, 4096, 7), 512);
	assert_int_equal(ap_geometry_next_aligned(0, 512, 4096, 7), 7);
	for (k = 1; k <= 7; k++)
		assert_false(ap_geometry_is_aligned(63 + k, 512, 4096, 7));
	/* a lowest aligned LBA given as any aligned LBA means the same */
	assert_true(ap_geometry_is_aligned(63, 512, 4096, 63));
	assert_true(ap_geometry_is_aligned(2055, 512, 4096, 63));
}

static void test_units_and_edges(void **state)
{
	(void)state;
	/* 4Kn: every sector is aligned to its 4 KiB physical sector */
	assert_true(ap_geometry_is_aligned(1, 4096, 4096, 0));
	assert_true(ap_geometry_is_aligned(256, 4096, AP_MIB, 0));
	assert_false(ap_geometry_is_aligned(255, 4096, AP_MIB, 0));
	assert_true(ap_geometry_is_aligned(2048, 512, AP_MIB, 0));
	assert_false(ap_geometry_is_aligned(2049, 512, AP_MIB, 0));
	/* zero unit or logical size never aligns */
	assert_false(ap_geometry_is_aligned(0, 512, 0, 0));
	assert_false(ap_geometry_is_aligned(0, 0, 4096, 0));
	assert_int_equal(ap_geometry_next_aligned(5, 512, 0, 0), UINT64_MAX);
	/* huge LBAs do not overflow */
	assert_true(ap_geometry_is_aligned(UINT64_MAX - 7, 4096, 4096 * 8, 0));
	assert_false(ap_geometry_is_aligned(UINT64_MAX, 512, 4096, 0));
	assert_true(ap_geometry_is_aligned(UINT64_MAX, 512, 4096, 7));
	assert_int_equal(ap_geometry_next_aligned(UINT64_MAX - 1, 512, 4096, 0), UINT64_MAX);
	/* sizes */
	assert_true(ap_geometry_size_is_aligned(8, 512, 4096));
	assert_false(ap_geometry_size_is_aligned(9, 512, 4096));
	assert_true(ap_geometry_size_is_aligned(0, 512, 4096));
	assert_true(ap_geometry_size_is_aligned(2048, 512, AP_MIB));
	assert_false(ap_geometry_size_is_aligned(2048, 512, 0));
}

static void test_optio(void **state)
{
	(void)state;
	assert_false(ap_geometry_optio_is_sane(0, 512, 4096));
	assert_false(ap_geometry_optio_is_sane(AP_OPTIO_BOGUS, 512, 512));
	assert_false(ap_geometry_optio_is_sane(6144, 512, 4096));	/* not a multiple */
	assert_false(ap_geometry_optio_is_sane(2048, 512, 4096));	/* below physical */
	assert_true(ap_geometry_optio_is_sane(65536, 512, 4096));
	assert_true(ap_geometry_optio_is_sane(3 * 65536, 512, 4096));	/* RAID-5 stripe */
	assert_false(ap_geometry_optio_is_sane(2048ULL * AP_MIB, 512, 4096));
	assert_false(ap_geometry_optio_is_sane(1000, 512, 0));
	assert_true(ap_geometry_optio_is_sane(1024, 512, 0));
}

static void test_geometry_set(void **state)
{
	struct ap_geometry g;
	struct ap_error e;

	(void)state;
	assert_int_equal(ap_geometry_set(&g, AP_GEOM_MANUAL, 512, 4096, 7, &e), 0);
	assert_int_equal(g.physical, 4096);
	assert_int_equal(g.lowest_aligned, 7);
	assert_int_equal(g.source, AP_GEOM_MANUAL);
	assert_string_equal(ap_geometry_source_name(g.source), "given");
	/* an aligned LBA instead of the lowest: normalised */
	assert_int_equal(ap_geometry_set(&g, AP_GEOM_MANUAL, 512, 4096, 63, &e), 0);
	assert_int_equal(g.lowest_aligned, 7);
	assert_int_equal(ap_geometry_set(&g, AP_GEOM_MANUAL, 512, 3000, 0, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "3000"));
	assert_int_equal(ap_geometry_set(&g, AP_GEOM_MANUAL, 4096, 512, 0, &e), -EINVAL);
	assert_int_equal(ap_geometry_set(&g, AP_GEOM_MANUAL, 500, 4096, 0, &e), -EINVAL);
	assert_int_equal(ap_geometry_set(&g, AP_GEOM_MANUAL, 512, 1ULL << 40, 0, &e), -ERANGE);
}

#define VERDICT_FMT \
	"{\"sensitive\": true, \"resolved\": %s, \"logical_sector\": 512," \
	" \"reported_physical_sector\": 512, \"physical_sector\": %s, \"period\": %s," \
	" \"lowest_aligned_lba\": %s, \"fast_starts\": [7, 15], \"slowdown\": 8.5," \
	" \"p_value\": 0.0001, \"confidence\": 0.9999}"

static struct json_object *verdict(const char *resolved, const char *phys, const char *period,
				   const char *lowest)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), VERDICT_FMT, resolved, phys, period, lowest);
	return json_tokener_parse(buf);
}

static void test_from_json(void **state)
{
	struct json_object *doc, *v, *arr, *dev;
	struct ap_geometry g;
	struct ap_error e;

	(void)state;
	/* sweep/probe shape: {"device", "verdict", "results"} */
	doc = json_object_new_object();
	json_object_object_add(doc, "device", json_object_new_string("/dev/loop3"));
	json_object_object_add(doc, "verdict", verdict("true", "4096", "8", "7"));
	assert_int_equal(ap_geometry_from_json(doc, &g, &e), 0);
	assert_int_equal(g.source, AP_GEOM_PROBED);
	assert_int_equal(g.logical, 512);
	assert_int_equal(g.physical, 4096);
	assert_int_equal(g.lowest_aligned, 7);
	assert_true(g.sensitive);
	assert_int_equal(g.reported_physical, 512);
	assert_true(fabs(g.confidence - 0.9999) < 1e-9);
	json_object_put(doc);

	/* probe with several devices: the first */
	doc = json_object_new_object();
	arr = json_object_new_array();
	dev = json_object_new_object();
	json_object_object_add(dev, "verdict", verdict("true", "8192", "16", "3"));
	json_object_array_add(arr, dev);
	json_object_object_add(doc, "devices", arr);
	assert_int_equal(ap_geometry_from_json(doc, &g, &e), 0);
	assert_int_equal(g.physical, 8192);
	assert_int_equal(g.lowest_aligned, 3);
	json_object_put(doc);

	/* unresolved */
	doc = json_object_new_object();
	json_object_object_add(doc, "verdict", verdict("false", "null", "null", "null"));
	assert_int_equal(ap_geometry_from_json(doc, &g, &e), -ENODATA);
	assert_non_null(strstr(e.msg, "unresolved"));
	json_object_put(doc);

	/* inconsistent: not a power of two */
	doc = json_object_new_object();
	json_object_object_add(doc, "verdict", verdict("true", "3072", "6", "0"));
	assert_int_equal(ap_geometry_from_json(doc, &g, &e), -EINVAL);
	json_object_put(doc);

	/* a missing key is named */
	doc = json_object_new_object();
	v = verdict("true", "4096", "8", "0");
	json_object_object_del(v, "fast_starts");
	json_object_object_add(doc, "verdict", v);
	assert_int_equal(ap_geometry_from_json(doc, &g, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "fast_starts"));
	json_object_put(doc);

	/* wrong shapes */
	doc = json_tokener_parse("{\"results\": []}");
	assert_int_equal(ap_geometry_from_json(doc, &g, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "verdict"));
	json_object_put(doc);
	doc = json_tokener_parse("{\"verdict\": 7}");
	assert_int_equal(ap_geometry_from_json(doc, &g, &e), -EINVAL);
	json_object_put(doc);
	doc = json_tokener_parse("{\"devices\": []}");
	assert_int_equal(ap_geometry_from_json(doc, &g, &e), -EINVAL);
	json_object_put(doc);
	doc = json_tokener_parse("[1, 2]");
	assert_int_equal(ap_geometry_from_json(doc, &g, &e), -EINVAL);
	json_object_put(doc);
	assert_int_equal(ap_geometry_from_json(NULL, &g, &e), -EINVAL);
}

static void test_load(void **state)
{
	char path[] = "/tmp/test_geometry.XXXXXX";
	struct ap_geometry g;
	struct ap_error e;
	FILE *f;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fprintf(f, "{\"device\": \"x\", \"verdict\": ");
	fprintf(f, VERDICT_FMT, "true", "4096", "8", "7");
	fprintf(f, "}\n");
	fclose(f);
	assert_int_equal(ap_geometry_load(path, &g, &e), 0);
	assert_int_equal(g.physical, 4096);
	assert_int_equal(g.lowest_aligned, 7);

	f = fopen(path, "w");
	fputs("{\"verdict\": {", f);	/* truncated */
	fclose(f);
	assert_int_equal(ap_geometry_load(path, &g, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "not valid JSON"));
	assert_non_null(strstr(e.msg, path));

	f = fopen(path, "w");
	fputs("{\"verdict\": {\"resolved\": true}}", f);
	fclose(f);
	assert_int_equal(ap_geometry_load(path, &g, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "missing key"));

	f = fopen(path, "w");
	fwrite("{\0}", 1, 3, f);
	fclose(f);
	assert_int_equal(ap_geometry_load(path, &g, &e), -EINVAL);

	unlink(path);
	assert_int_equal(ap_geometry_load(path, &g, &e), -ENOENT);
	assert_non_null(strstr(e.msg, path));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_predicate_exhaustive),
		cmocka_unit_test(test_misaligned_by_1_to_7),
		cmocka_unit_test(test_shifted_geometry),
		cmocka_unit_test(test_units_and_edges),
		cmocka_unit_test(test_optio),
		cmocka_unit_test(test_geometry_set),
		cmocka_unit_test(test_from_json),
		cmocka_unit_test(test_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
