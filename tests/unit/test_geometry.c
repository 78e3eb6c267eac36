// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The alignment predicate (exhaustively against a reference) and
 * geometries (device/geometry.c), the rule that decides among them
 * (check/rule.c) and saved verdicts loaded as geometries (fleet/load.c).
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
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <json-c/json.h>

#include "analysis/analysis.h"
#include "check/rule.h"
#include "device/geometry.h"
#include "fleet/load.h"

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
					bool got = ap_align_is_aligned((uint64_t)lba, logicals[a],
									  units[b], (uint64_t)low);
					uint64_t mis = ap_align_misalignment((uint64_t)lba, logicals[a],
										units[b], (uint64_t)low);
					uint64_t next = ap_align_next((uint64_t)lba, logicals[a],
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
	assert_true(ap_align_is_aligned(2048, 512, 4096, 0));
	for (k = 1; k <= 7; k++) {
		assert_false(ap_align_is_aligned(2048 + k, 512, 4096, 0));
		assert_int_equal(ap_align_misalignment(2048 + k, 512, 4096, 0), k * 512);
		assert_int_equal(ap_align_next(2048 + k, 512, 4096, 0), 2056);
		/* the reported 512-byte geometry calls every one of them aligned */
		assert_true(ap_align_is_aligned(2048 + k, 512, 512, 0));
	}
	assert_int_equal(ap_align_misalignment(2056, 512, 4096, 0), 0);
	/* the DOS-era start 63 is misaligned by 7 sectors on an unshifted drive */
	assert_false(ap_align_is_aligned(63, 512, 4096, 0));
	assert_int_equal(ap_align_misalignment(63, 512, 4096, 0), 7 * 512);
}

static void test_shifted_geometry(void **state)
{
	unsigned k;

	(void)state;
	/* lowest aligned LBA 7 (WD "jumper 7-8"): 63 is aligned, 64 and 2048 are not */
	assert_true(ap_align_is_aligned(63, 512, 4096, 7));
	assert_true(ap_align_is_aligned(7, 512, 4096, 7));
	assert_true(ap_align_is_aligned(2055, 512, 4096, 7));
	assert_false(ap_align_is_aligned(64, 512, 4096, 7));
	assert_false(ap_align_is_aligned(2048, 512, 4096, 7));
	assert_int_equal(ap_align_misalignment(2048, 512, 4096, 7), 512);
	assert_int_equal(ap_align_next(2048, 512, 4096, 7), 2055);
	/* below the lowest aligned LBA */
	assert_false(ap_align_is_aligned(0, 512, 4096, 7));
	assert_int_equal(ap_align_misalignment(0, 512, 4096, 7), 512);
	assert_int_equal(ap_align_next(0, 512, 4096, 7), 7);
	for (k = 1; k <= 7; k++)
		assert_false(ap_align_is_aligned(63 + k, 512, 4096, 7));
	/* a lowest aligned LBA given as any aligned LBA means the same */
	assert_true(ap_align_is_aligned(63, 512, 4096, 63));
	assert_true(ap_align_is_aligned(2055, 512, 4096, 63));
}

static void test_units_and_edges(void **state)
{
	(void)state;
	/* 4Kn: every sector is aligned to its 4 KiB physical sector */
	assert_true(ap_align_is_aligned(1, 4096, 4096, 0));
	assert_true(ap_align_is_aligned(256, 4096, AP_MIB, 0));
	assert_false(ap_align_is_aligned(255, 4096, AP_MIB, 0));
	assert_true(ap_align_is_aligned(2048, 512, AP_MIB, 0));
	assert_false(ap_align_is_aligned(2049, 512, AP_MIB, 0));
	/* zero unit or logical size never aligns */
	assert_false(ap_align_is_aligned(0, 512, 0, 0));
	assert_false(ap_align_is_aligned(0, 0, 4096, 0));
	assert_int_equal(ap_align_next(5, 512, 0, 0), UINT64_MAX);
	/* huge LBAs do not overflow */
	assert_true(ap_align_is_aligned(UINT64_MAX - 7, 4096, 4096 * 8, 0));
	assert_false(ap_align_is_aligned(UINT64_MAX, 512, 4096, 0));
	assert_true(ap_align_is_aligned(UINT64_MAX, 512, 4096, 7));
	assert_int_equal(ap_align_next(UINT64_MAX - 1, 512, 4096, 0), UINT64_MAX);
	/* sizes */
	assert_true(ap_align_size_is_aligned(8, 512, 4096));
	assert_false(ap_align_size_is_aligned(9, 512, 4096));
	assert_true(ap_align_size_is_aligned(0, 512, 4096));
	assert_true(ap_align_size_is_aligned(2048, 512, AP_MIB));
	assert_false(ap_align_size_is_aligned(2048, 512, 0));
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

/* The geometry of the verdict whose members are @head and @extra (", \"key\": ..."). */
static int geometry_of(const char *head, const char *extra, struct ap_geometry *g,
		       struct ap_error *e)
{
	char buf[1024];
	struct json_object *doc;
	int rc;

	snprintf(buf, sizeof(buf), "{\"verdict\": {%s%s}}", head, extra);
	doc = json_tokener_parse(buf);
	assert_non_null(doc);
	rc = ap_fleet_geometry_from_json(doc, NULL, g, NULL, e);
	json_object_put(doc);
	return rc;
}

/* A "no effect" verdict: @extra adds keys (", \"ruled_out_up_to\": 8192"). */
static int no_effect(const char *extra, struct ap_geometry *g, struct ap_error *e)
{
	return geometry_of("\"sensitive\": false, \"resolved\": true, \"logical_sector\": 512, "
			   "\"reported_physical_sector\": 512, \"physical_sector\": 512, "
			   "\"period\": 1, \"lowest_aligned_lba\": 0, \"fast_starts\": [0], "
			   "\"slowdown\": 1.0, \"p_value\": 0.5, \"confidence\": 0.999, "
			   "\"absence_margin\": 1.1", extra, g, e);
}

/* 4096-byte sectors from LBA 7: @extra adds keys. */
static int sectors_lba7(const char *extra, struct ap_geometry *g, struct ap_error *e)
{
	return geometry_of("\"sensitive\": true, \"resolved\": true, \"logical_sector\": 512, "
			   "\"reported_physical_sector\": 512, \"physical_sector\": 4096, "
			   "\"period\": 8, \"lowest_aligned_lba\": 7, \"fast_starts\": [7, 15], "
			   "\"slowdown\": 8.5, \"p_value\": 0.0001, \"confidence\": 0.9999",
			   extra, g, e);
}

/* What a verdict covers, no more (issue 23, items 6 and 7). */
static void test_verdict_scope(void **state)
{
	struct ap_geometry g;
	struct ap_error e;

	(void)state;
	/* the unit a "no effect" stands for */
	assert_int_equal(ap_no_effect_unit(512, 0), 0);
	assert_int_equal(ap_no_effect_unit(512, 1024), 4096);
	assert_int_equal(ap_no_effect_unit(512, 4096), 8192);
	assert_int_equal(ap_no_effect_unit(512, 8192), 16384);
	assert_int_equal(ap_no_effect_unit(512, 32768), 65536);
	assert_int_equal(ap_no_effect_unit(512, 65536), 512);
	assert_int_equal(ap_no_effect_unit(4096, 1 << 20), 4096);
	/* up to 8 KiB ruled out: a 16 KiB unit may hide; 2049 is not aligned to it */
	assert_int_equal(no_effect(", \"ruled_out_up_to\": 8192", &g, &e), 0);
	assert_int_equal(g.physical, 16384);
	assert_int_equal(g.lowest_aligned, 0);
	assert_int_equal(g.ruled_out_up_to, 8192);
	assert_false(ap_align_is_aligned(2049, 512, g.physical, g.lowest_aligned));
	assert_true(ap_align_is_aligned(2048, 512, g.physical, g.lowest_aligned));
	/* up to 64 KiB: honest */
	assert_int_equal(no_effect(", \"ruled_out_up_to\": 65536", &g, &e), 0);
	assert_int_equal(g.physical, 512);
	assert_true(ap_align_is_aligned(2049, 512, g.physical, g.lowest_aligned));
	/* not said (an older alignprobe): not used */
	assert_int_equal(no_effect("", &g, &e), -ENODATA);
	assert_non_null(strstr(e.msg, "ruled_out_up_to"));
	/* tentative: never a geometry */
	assert_int_equal(no_effect(", \"ruled_out_up_to\": 65536, \"tentative\": true", &g, &e),
			 -ENODATA);
	assert_non_null(strstr(e.msg, "tentative"));
}

#define REWRITES_ONLY(up_to) \
	", \"ruled_out\": {\"up_to\": " up_to ", \"first_writes\": false, \"rewrites\": true}"
#define ALLOCATION(unit) \
	", \"levels\": [{\"kind\": \"sector\", \"unit\": 512, \"lowest_aligned_lba\": 0," \
	" \"paid\": \"every_write\", \"ratio\": null}, {\"kind\": \"allocation\"," \
	" \"unit\": " unit ", \"lowest_aligned_lba\": 0, \"paid\": \"first_write\"," \
	" \"ratio\": 4.4}]"

/*
 * First writes (issue 33, item 5): a unit they placed is a rule of its own
 * beside the rewrites' "no effect" (a thin volume's, a qcow2 overlay's
 * 64 KiB); before, the verdict was refused as a "no effect on rewrites
 * only" although the probe had found the unit. Without it no geometry;
 * first writes that cost more and placed nothing beside a unit (sensitive)
 * are carried for check's warning.
 */
static void test_first_write_scope(void **state)
{
	struct ap_ruled_out ro = { .up_to = 65536, .rewrites = true };
	struct ap_levels ls = { 0 };
	struct ap_level a = { .kind = AP_LEVEL_ALLOCATION, .unit = 65536,
			      .paid = AP_PAID_FIRST_WRITE };
	struct ap_geometry g;
	struct ap_error e;
	uint64_t up_to = 1;

	(void)state;
	/* the scope itself: the old key first, then rewrites beside a placed unit */
	assert_int_equal(ap_no_effect_scope(512, 0, &ro, &ls, &up_to), 0);
	assert_int_equal(up_to, 0);
	assert_int_equal(ap_levels_add(&ls, 512, &a, false, NULL), 0);
	assert_int_equal(ap_no_effect_scope(512, 0, &ro, &ls, &up_to), 512);
	assert_int_equal(up_to, 65536);
	assert_int_equal(ap_no_effect_scope(512, 8192, &ro, &ls, &up_to), 16384);
	assert_int_equal(up_to, 8192);
	ro.first_writes = true;		/* not rewrites only: the old key alone */
	assert_int_equal(ap_no_effect_scope(512, 0, &ro, &ls, NULL), 0);
	ro = (struct ap_ruled_out){ .up_to = 8192, .rewrites = true };
	assert_int_equal(ap_no_effect_scope(512, 0, &ro, &ls, NULL), 16384);
	a.unit = 4096;			/* no multiple of the 16 KiB it stands for */
	memset(&ls, 0, sizeof(ls));
	assert_int_equal(ap_levels_add(&ls, 512, &a, false, NULL), 0);
	assert_int_equal(ap_no_effect_scope(512, 0, &ro, &ls, &up_to), 0);
	assert_int_equal(up_to, 0);

	/* a saved verdict: honest rewrites, a 64 KiB first-write unit */
	assert_int_equal(no_effect(REWRITES_ONLY("65536") ALLOCATION("65536"), &g, &e), 0);
	assert_int_equal(g.physical, 512);
	assert_int_equal(g.ruled_out_up_to, 65536);
	assert_true(ap_ruled_out_rewrites_only(&g.ruled_out));
	assert_int_equal(g.levels.n, 2);
	assert_int_equal(g.levels.l[1].kind, AP_LEVEL_ALLOCATION);
	assert_int_equal(g.levels.l[1].unit, 65536);
	assert_true(ap_levels_misaligned(&g.levels, 512, 2056) >= 0);
	assert_true(ap_levels_misaligned(&g.levels, 512, 2048) < 0);
	/* rewrites up to 8 KiB: a 16 KiB unit may hide beside it */
	assert_int_equal(no_effect(REWRITES_ONLY("8192") ALLOCATION("65536"), &g, &e), 0);
	assert_int_equal(g.physical, 16384);
	assert_int_equal(g.levels.l[g.levels.n - 1].unit, 65536);
	/* rewrites only, nothing placed: refused as before */
	assert_int_equal(no_effect(REWRITES_ONLY("65536"), &g, &e), -ENODATA);
	assert_non_null(strstr(e.msg, "on rewrites only"));

	/* a unit found, first writes that cost more with none of theirs placed: used, said */
	assert_int_equal(sectors_lba7(", \"first_writes_unplaced\": true", &g, &e), 0);
	assert_int_equal(g.physical, 4096);
	assert_int_equal(g.lowest_aligned, 7);
	assert_true(g.first_writes_unplaced);
	assert_int_equal(sectors_lba7(", \"first_writes_unplaced\": false", &g, &e), 0);
	assert_false(g.first_writes_unplaced);
	assert_int_equal(sectors_lba7("", &g, &e), 0);	/* an older document */
	assert_false(g.first_writes_unplaced);
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
	assert_int_equal(ap_fleet_geometry_from_json(doc, NULL, &g, NULL, &e), 0);
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
	assert_int_equal(ap_fleet_geometry_from_json(doc, NULL, &g, NULL, &e), 0);
	assert_int_equal(g.physical, 8192);
	assert_int_equal(g.lowest_aligned, 3);
	json_object_put(doc);

	/* unresolved */
	doc = json_object_new_object();
	json_object_object_add(doc, "verdict", verdict("false", "null", "null", "null"));
	assert_int_equal(ap_fleet_geometry_from_json(doc, NULL, &g, NULL, &e), -ENODATA);
	assert_non_null(strstr(e.msg, "unresolved"));
	json_object_put(doc);

	/* inconsistent: not a power of two */
	doc = json_object_new_object();
	json_object_object_add(doc, "verdict", verdict("true", "3072", "6", "0"));
	assert_int_equal(ap_fleet_geometry_from_json(doc, NULL, &g, NULL, &e), -EINVAL);
	json_object_put(doc);

	/* a missing key is named */
	doc = json_object_new_object();
	v = verdict("true", "4096", "8", "0");
	json_object_object_del(v, "fast_starts");
	json_object_object_add(doc, "verdict", v);
	assert_int_equal(ap_fleet_geometry_from_json(doc, NULL, &g, NULL, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "fast_starts"));
	json_object_put(doc);

	/* wrong shapes */
	doc = json_tokener_parse("{\"results\": []}");
	assert_int_equal(ap_fleet_geometry_from_json(doc, NULL, &g, NULL, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "verdict"));
	json_object_put(doc);
	doc = json_tokener_parse("{\"verdict\": 7}");
	assert_int_equal(ap_fleet_geometry_from_json(doc, NULL, &g, NULL, &e), -EINVAL);
	json_object_put(doc);
	doc = json_tokener_parse("{\"devices\": []}");
	assert_int_equal(ap_fleet_geometry_from_json(doc, NULL, &g, NULL, &e), -EINVAL);
	json_object_put(doc);
	doc = json_tokener_parse("[1, 2]");
	assert_int_equal(ap_fleet_geometry_from_json(doc, NULL, &g, NULL, &e), -EINVAL);
	json_object_put(doc);
	assert_int_equal(ap_fleet_geometry_from_json(NULL, NULL, &g, NULL, &e), -EINVAL);
}

/* The rule: what decides when, and the 4 KiB minimum for unproven 512 reports. */
static void test_decide(void **state)
{
	struct ap_geometry b, out;

	(void)state;
	/* an unproven 512-byte report: 4 KiB from the reported alignment offset */
	assert_int_equal(ap_geometry_set(&b, AP_GEOM_REPORTED, 512, 512, 0, NULL), 0);
	assert_int_equal(ap_check_rule_decide(&b, 0, false, &out), AP_RULE_MINIMUM_4K);
	assert_int_equal(out.source, AP_GEOM_MINIMUM);
	assert_int_equal(out.physical, 4096);
	assert_int_equal(out.lowest_aligned, 0);
	assert_false(ap_align_is_aligned(63, out.logical, out.physical, out.lowest_aligned));
	assert_true(ap_align_is_aligned(64, out.logical, out.physical, out.lowest_aligned));
	assert_string_equal(ap_check_rule_name(AP_RULE_MINIMUM_4K), "minimum_4k");
	assert_string_equal(ap_geometry_source_name(out.source), "minimum_4k");
	/* an alignment offset of 3584 bytes: LBA 7 of each 4 KiB */
	assert_int_equal(ap_check_rule_decide(&b, 3584, false, &out), AP_RULE_MINIMUM_4K);
	assert_int_equal(out.lowest_aligned, 7);
	assert_true(ap_align_is_aligned(63, 512, out.physical, out.lowest_aligned));
	/* the drive's own claim of 512 is no proof either */
	assert_int_equal(ap_geometry_set(&b, AP_GEOM_DRIVE, 512, 512, 0, NULL), 0);
	assert_int_equal(ap_check_rule_decide(&b, 0, false, &out), AP_RULE_MINIMUM_4K);
	/* 1 KiB and 2 KiB reports: below 4 KiB too */
	assert_int_equal(ap_geometry_set(&b, AP_GEOM_REPORTED, 512, 2048, 0, NULL), 0);
	assert_int_equal(ap_check_rule_decide(&b, 0, false, &out), AP_RULE_MINIMUM_4K);
	assert_int_equal(out.physical, 4096);
	assert_int_equal(ap_geometry_set(&b, AP_GEOM_REPORTED, 1024, 1024, 0, NULL), 0);
	assert_int_equal(ap_check_rule_decide(&b, 0, false, &out), AP_RULE_MINIMUM_4K);
	assert_int_equal(out.logical, 1024);
	assert_int_equal(out.physical, 4096);
	/* --trust-reported: as stated */
	assert_int_equal(ap_geometry_set(&b, AP_GEOM_REPORTED, 512, 512, 0, NULL), 0);
	assert_int_equal(ap_check_rule_decide(&b, 0, true, &out), AP_RULE_TRUST_REPORTED);
	assert_int_equal(out.physical, 512);
	assert_int_equal(out.source, AP_GEOM_REPORTED);
	/* reports of 4 KiB or more: as stated, trust or not */
	assert_int_equal(ap_geometry_set(&b, AP_GEOM_REPORTED, 512, 4096, 7, NULL), 0);
	assert_int_equal(ap_check_rule_decide(&b, 3584, false, &out), AP_RULE_AS_REPORTED);
	assert_int_equal(out.physical, 4096);
	assert_int_equal(out.lowest_aligned, 7);
	assert_int_equal(ap_geometry_set(&b, AP_GEOM_REPORTED, 4096, 4096, 0, NULL), 0);
	assert_int_equal(ap_check_rule_decide(&b, 0, false, &out), AP_RULE_AS_REPORTED);
	assert_int_equal(ap_geometry_set(&b, AP_GEOM_DRIVE, 512, 8192, 0, NULL), 0);
	assert_int_equal(ap_check_rule_decide(&b, 0, false, &out), AP_RULE_AS_REPORTED);
	assert_int_equal(out.physical, 8192);
	/* a probe that found an honest 512-byte drive accepts 512-byte starts */
	assert_int_equal(ap_geometry_set(&b, AP_GEOM_PROBED, 512, 512, 0, NULL), 0);
	assert_int_equal(ap_check_rule_decide(&b, 0, false, &out), AP_RULE_PROBED);
	assert_int_equal(out.physical, 512);
	assert_true(ap_align_is_aligned(63, 512, out.physical, out.lowest_aligned));
	/* a probed 4096/7 drive accepts 63; a given geometry decides as given */
	assert_int_equal(ap_geometry_set(&b, AP_GEOM_PROBED, 512, 4096, 7, NULL), 0);
	assert_int_equal(ap_check_rule_decide(&b, 0, false, &out), AP_RULE_PROBED);
	assert_true(ap_align_is_aligned(63, 512, out.physical, out.lowest_aligned));
	assert_int_equal(ap_geometry_set(&b, AP_GEOM_MANUAL, 512, 512, 0, NULL), 0);
	assert_int_equal(ap_check_rule_decide(&b, 0, false, &out), AP_RULE_GIVEN);
	assert_int_equal(out.physical, 512);
	assert_string_equal(ap_check_rule_name(AP_RULE_AS_REPORTED), "as_reported");
	assert_string_equal(ap_check_rule_name(AP_RULE_TRUST_REPORTED), "trust_reported");
	assert_string_equal(ap_check_rule_name(AP_RULE_PROBED), "probed");
	assert_string_equal(ap_check_rule_name(AP_RULE_GIVEN), "given");
	/* the verdict for the disk's model (check --verdicts) decides as it is */
	assert_int_equal(ap_geometry_set(&b, AP_GEOM_MODEL, 512, 512, 0, NULL), 0);
	assert_int_equal(ap_check_rule_decide(&b, 0, false, &out), AP_RULE_MODEL);
	assert_int_equal(out.physical, 512);
	assert_int_equal(out.source, AP_GEOM_MODEL);
	assert_int_equal(ap_geometry_set(&b, AP_GEOM_MODEL, 512, 4096, 7, NULL), 0);
	assert_int_equal(ap_check_rule_decide(&b, 3584, true, &out), AP_RULE_MODEL);
	assert_int_equal(out.lowest_aligned, 7);
	assert_string_equal(ap_check_rule_name(AP_RULE_MODEL), "model_verdict");
	assert_string_equal(ap_geometry_source_name(AP_GEOM_MODEL), "model");
}

static void test_id_equal(void **state)
{
	(void)state;
	assert_true(ap_fleet_id_equal("0x5000c500a1b2c3d4", "naa.5000C500A1B2C3D4"));
	assert_true(ap_fleet_id_equal("wwn-0x5000c500a1b2c3d4", "5000c500a1b2c3d4"));
	assert_true(ap_fleet_id_equal("eui.0025388b91b1c3d4", "0x0025388B91B1C3D4"));
	assert_true(ap_fleet_id_equal("  ZFN0ABCD ", "zfn0abcd"));
	assert_true(ap_fleet_id_equal("WD-WCC4E 1234", "WD-WCC4E1234"));
	assert_false(ap_fleet_id_equal("0x5000c500a1b2c3d4", "0x5000c500a1b2c3d5"));
	assert_false(ap_fleet_id_equal("ZFN0ABCD", "ZFN0ABC"));
	assert_false(ap_fleet_id_equal("", ""));
	assert_false(ap_fleet_id_equal("0x", "naa."));
	assert_false(ap_fleet_id_equal(NULL, "x"));
	assert_false(ap_fleet_id_equal("x", NULL));
}

/* {"devices": [...]} with entries (device, wwn, serial) and verdicts (phys/lowest) */
static struct json_object *multi(size_t n, const char *const *devs, const char *const *wwns,
				 const char *const *serials, const char *const *phys,
				 const char *const *lowest)
{
	struct json_object *doc = json_object_new_object(), *arr = json_object_new_array();
	size_t i;

	for (i = 0; i < n; i++) {
		struct json_object *d = json_object_new_object();
		char period[16];

		snprintf(period, sizeof(period), "%d", atoi(phys[i]) / 512);
		if (devs && devs[i])
			json_object_object_add(d, "device", json_object_new_string(devs[i]));
		if (wwns && wwns[i])
			json_object_object_add(d, "wwn", json_object_new_string(wwns[i]));
		if (serials && serials[i])
			json_object_object_add(d, "serial", json_object_new_string(serials[i]));
		json_object_object_add(d, "verdict", verdict("true", phys[i], period, lowest[i]));
		json_object_array_add(arr, d);
	}
	json_object_object_add(doc, "devices", arr);
	return doc;
}

static void test_match(void **state)
{
	static const char *const devs[] = { "/dev/nonexistent-sdz", "/dev/nonexistent-sdy",
					    "/dev/nonexistent-sdx" };
	static const char *const wwns[] = { "0x5000c500aaaaaaaa", "0x5000c500bbbbbbbb", NULL };
	static const char *const serials[] = { "SER-A", "SER-B", "SER-C" };
	static const char *const phys[] = { "4096", "8192", "16384" };
	static const char *const lowest[] = { "0", "7", "3" };
	static const char *const same[] = { "4096", "4096", "4096" };
	static const char *const zero[] = { "7", "7", "7" };
	struct ap_fleet_target t;
	struct ap_fleet_pick pick;
	struct json_object *doc;
	struct ap_geometry g;
	struct ap_error e;
	char img[] = "/tmp/test_geometry_img.XXXXXX", link[64];
	struct stat st;
	int fd;

	(void)state;
	doc = multi(3, devs, wwns, serials, phys, lowest);

	/* by path string: the second entry, not devices[0] */
	memset(&t, 0, sizeof(t));
	t.path = "/dev/nonexistent-sdy";
	t.is_blockdev = true;
	assert_int_equal(ap_fleet_geometry_from_json(doc, &t, &g, &pick, &e), 0);
	assert_int_equal(g.physical, 8192);
	assert_int_equal(g.lowest_aligned, 7);
	assert_int_equal(pick.match, AP_MATCH_PATH);
	assert_string_equal(pick.where, "devices[1].verdict");
	assert_string_equal(pick.device, "/dev/nonexistent-sdy");
	assert_string_equal(ap_fleet_match_name(pick.match), "path");

	/* by WWN, whatever the path says (the disk was renamed) */
	t.wwn = "naa.5000C500AAAAAAAA";
	assert_int_equal(ap_fleet_geometry_from_json(doc, &t, &g, &pick, &e), 0);
	assert_int_equal(g.physical, 4096);
	assert_int_equal(pick.match, AP_MATCH_WWN);
	assert_string_equal(pick.where, "devices[0].verdict");

	/* a WWN both know and that differs rules the entry out, path or not;
	 * the third entry has no WWN and is matched by serial */
	t.wwn = "0x5000c500cccccccc";
	t.serial = "ser-c";
	assert_int_equal(ap_fleet_geometry_from_json(doc, &t, &g, &pick, &e), 0);
	assert_int_equal(pick.match, AP_MATCH_SERIAL);
	assert_int_equal(g.physical, 16384);
	assert_string_equal(pick.where, "devices[2].verdict");

	/* a probe result keeps them in the entry's "identity" (identity.h) */
	{
		struct json_object *d0 = json_object_array_get_idx(
			json_object_object_get(doc, "devices"), 0), *idn = json_object_new_object();

		json_object_object_add(idn, "serial", json_object_new_string("SER-ID"));
		json_object_object_add(d0, "identity", idn);
		json_object_object_del(d0, "serial");
		json_object_object_del(d0, "wwn");
		t.wwn = NULL;
		t.serial = "SER-ID";
		assert_int_equal(ap_fleet_geometry_from_json(doc, &t, &g, &pick, &e), 0);
		assert_int_equal(pick.match, AP_MATCH_SERIAL);
		assert_string_equal(pick.where, "devices[0].verdict");
		t.wwn = "0x5000c500cccccccc";
	}

	/* nothing matches: refused, the entries named */
	t.serial = "SER-Z";
	assert_int_equal(ap_fleet_geometry_from_json(doc, &t, &g, &pick, &e), -ENODEV);
	assert_non_null(strstr(e.msg, "no entry is for /dev/nonexistent-sdy"));
	assert_non_null(strstr(e.msg, "/dev/nonexistent-sdz, /dev/nonexistent-sdy, "
			       "/dev/nonexistent-sdx"));
	assert_non_null(strstr(e.msg, "--geometry-any"));
	/* --geometry-any: the entries disagree, so they describe no one model */
	t.any = true;
	assert_int_equal(ap_fleet_geometry_from_json(doc, &t, &g, &pick, &e), -ENODEV);
	assert_non_null(strstr(e.msg, "disagree"));
	json_object_put(doc);

	/* --geometry-any with agreeing entries: the first, said so */
	doc = multi(3, devs, NULL, NULL, same, zero);
	t.path = "/dev/nonexistent-sdq";
	assert_int_equal(ap_fleet_geometry_from_json(doc, &t, &g, &pick, &e), 0);
	assert_int_equal(pick.match, AP_MATCH_ANY);
	assert_int_equal(g.lowest_aligned, 7);
	assert_string_equal(pick.where, "devices[0].verdict");
	/* and a matching entry still wins over --geometry-any */
	t.wwn = t.serial = NULL;
	t.path = "/dev/nonexistent-sdx";
	assert_int_equal(ap_fleet_geometry_from_json(doc, &t, &g, &pick, &e), 0);
	assert_int_equal(pick.match, AP_MATCH_PATH);
	assert_string_equal(pick.where, "devices[2].verdict");
	json_object_put(doc);

	/* a single-device document is matched too */
	doc = json_object_new_object();
	json_object_object_add(doc, "device", json_object_new_string("/dev/nonexistent-sdz"));
	json_object_object_add(doc, "verdict", verdict("true", "4096", "8", "7"));
	memset(&t, 0, sizeof(t));
	t.path = "/dev/nonexistent-sdq";
	assert_int_equal(ap_fleet_geometry_from_json(doc, &t, &g, &pick, &e), -ENODEV);
	t.any = true;
	assert_int_equal(ap_fleet_geometry_from_json(doc, &t, &g, &pick, &e), 0);
	assert_int_equal(pick.match, AP_MATCH_ANY);
	assert_string_equal(pick.where, "verdict");
	json_object_put(doc);

	/* an image file by identity of the file: another path to it (a symlink) */
	fd = mkstemp(img);
	assert_true(fd >= 0);
	close(fd);
	snprintf(link, sizeof(link), "%s.link", img);
	assert_int_equal(symlink(img, link), 0);
	assert_int_equal(stat(img, &st), 0);
	doc = json_object_new_object();
	json_object_object_add(doc, "device", json_object_new_string(link));
	json_object_object_add(doc, "verdict", verdict("true", "4096", "8", "0"));
	memset(&t, 0, sizeof(t));
	t.path = img;
	t.dev = st.st_dev;
	t.ino = st.st_ino;
	assert_int_equal(ap_fleet_geometry_from_json(doc, &t, &g, &pick, &e), 0);
	assert_int_equal(pick.match, AP_MATCH_PATH);
	/* a block device is not the file */
	t.is_blockdev = true;
	t.rdev = st.st_dev;
	assert_int_equal(ap_fleet_geometry_from_json(doc, &t, &g, &pick, &e), -ENODEV);
	json_object_put(doc);
	unlink(link);
	unlink(img);
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
	assert_int_equal(ap_fleet_geometry_load(path, NULL, &g, NULL, &e), 0);
	assert_int_equal(g.physical, 4096);
	assert_int_equal(g.lowest_aligned, 7);

	f = fopen(path, "w");
	fputs("{\"verdict\": {", f);	/* truncated */
	fclose(f);
	assert_int_equal(ap_fleet_geometry_load(path, NULL, &g, NULL, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "not valid JSON"));
	assert_non_null(strstr(e.msg, path));

	f = fopen(path, "w");
	fputs("{\"verdict\": {\"resolved\": true}}", f);
	fclose(f);
	assert_int_equal(ap_fleet_geometry_load(path, NULL, &g, NULL, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "missing key"));

	f = fopen(path, "w");
	fwrite("{\0}", 1, 3, f);
	fclose(f);
	assert_int_equal(ap_fleet_geometry_load(path, NULL, &g, NULL, &e), -EINVAL);

	unlink(path);
	assert_int_equal(ap_fleet_geometry_load(path, NULL, &g, NULL, &e), -ENOENT);
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
		cmocka_unit_test(test_verdict_scope),
		cmocka_unit_test(test_first_write_scope),
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_id_equal),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
