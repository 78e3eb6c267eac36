// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The levels of a geometry: the arithmetic (every level a rule, the first
 * start that satisfies all), and the JSON of the verdict, the saved
 * geometry and the verdict store, both ways, with the files of alignprobe
 * versions before levels still read as they were meant.
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
#include <json-c/json.h>

#include "analysis/analysis.h"
#include "analysis/verdict_json.h"
#include "check/rule.h"
#include "device/claims.h"
#include "device/geometry.h"
#include "device/sgio.h"
#include "device/topology.h"
#include "fleet/load.h"
#include "fleet/vstore.h"
#include "lib/levels.h"

#define KIB	1024ULL

static struct ap_level lvl(enum ap_level_kind k, uint64_t unit, uint64_t lowest)
{
	return (struct ap_level){ .kind = k, .unit = unit, .lowest_aligned_lba = lowest };
}

static void test_order_and_next(void **state)
{
	struct ap_levels ls = { .n = 0 };
	struct ap_level x;
	struct ap_error e;

	(void)state;
	x = lvl(AP_LEVEL_STRIPE, 192 * KIB, 0);
	assert_int_equal(ap_levels_add(&ls, 512, &x, false, &e), 0);
	x = lvl(AP_LEVEL_SECTOR, 4096, 0);
	assert_int_equal(ap_levels_add(&ls, 512, &x, false, &e), 0);
	x = lvl(AP_LEVEL_CHUNK, 64 * KIB, 0);
	assert_int_equal(ap_levels_add(&ls, 512, &x, false, &e), 0);
	assert_int_equal(ls.n, 3);
	assert_int_equal(ls.l[0].kind, AP_LEVEL_SECTOR);
	assert_int_equal(ls.l[1].kind, AP_LEVEL_CHUNK);
	assert_int_equal(ls.l[2].kind, AP_LEVEL_STRIPE);

	/* 1 MiB (2048) is aligned to the sector and the chunk, not the stripe */
	assert_int_equal(ap_levels_misaligned(&ls, 512, 2048), 2);
	/* the first start from 2048 that is a whole MiB and a whole stripe: 3 MiB */
	assert_int_equal(ap_levels_next(&ls, 512, 1024 * KIB, 2048), 6144);
	assert_int_equal(ap_levels_lcm(&ls, 1024 * KIB), 3 * 1024 * KIB);
	/* without the MiB convention: the next stripe, 384 KiB */
	assert_int_equal(ap_levels_next(&ls, 512, 0, 2048), 2304);
	assert_int_equal(ap_levels_misaligned(&ls, 512, 6144), -1);

	/* a phase: a 4096-byte sector from LBA 7 and a 64 KiB unit from LBA 7 */
	ls.n = 0;
	x = lvl(AP_LEVEL_SECTOR, 4096, 7);
	assert_int_equal(ap_levels_add(&ls, 512, &x, false, &e), 0);
	x = lvl(AP_LEVEL_ALLOCATION, 64 * KIB, 7);
	assert_int_equal(ap_levels_add(&ls, 512, &x, false, &e), 0);
	assert_int_equal(ap_levels_next(&ls, 512, 0, 0), 7);
	assert_int_equal(ap_levels_next(&ls, 512, 0, 8), 135);
	/* phases that exclude each other, and a MiB grain against LBA 7: none */
	assert_int_equal(ap_levels_next(&ls, 512, 1024 * KIB, 0), UINT64_MAX);
	x = lvl(AP_LEVEL_STRIPE, 128 * KIB, 0);
	assert_int_equal(ap_levels_add(&ls, 512, &x, false, &e), 0);
	assert_int_equal(ap_levels_next(&ls, 512, 0, 0), UINT64_MAX);

	/* bad levels */
	x = lvl(AP_LEVEL_STRIPE, 1000, 0);
	assert_int_equal(ap_levels_add(&ls, 512, &x, false, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "stripe"));
	x = lvl(AP_LEVEL_STRIPE, 192 * KIB, 384);
	assert_int_equal(ap_levels_add(&ls, 512, &x, false, &e), -EINVAL);
	assert_int_equal(ap_levels_add(&ls, 512, &x, true, &e), 0);
}

#define OLD_VERDICT \
	"{\"sensitive\": true, \"resolved\": true, \"logical_sector\": 512, " \
	"\"reported_physical_sector\": 512, \"physical_sector\": 4096, \"period\": 8, " \
	"\"lowest_aligned_lba\": 0, \"fast_starts\": [0, 8], \"slowdown\": 5.0, " \
	"\"p_value\": 0.0001, \"confidence\": 0.9999%s}"

static struct json_object *verdict_with(const char *extra)
{
	char buf[2048];
	struct json_object *o;

	snprintf(buf, sizeof(buf), OLD_VERDICT, extra);
	o = json_tokener_parse(buf);
	assert_non_null(o);
	return o;
}

static void test_verdict_json(void **state)
{
	struct json_object *o, *a, *x;
	struct ap_verdict v, w;
	struct ap_levels all;
	struct ap_ruled_out ro;

	(void)state;
	/* an older verdict: no levels; level 0 is its physical sector */
	o = verdict_with("");
	assert_int_equal(ap_verdict_from_json(o, &v), 0);
	json_object_put(o);
	assert_int_equal(v.levels.n, 0);
	ap_verdict_levels(&v, &all);
	assert_int_equal(all.n, 1);
	assert_int_equal(all.l[0].kind, AP_LEVEL_SECTOR);
	assert_int_equal(all.l[0].unit, 4096);
	assert_true(fabs(all.l[0].ratio - 5.0) < 1e-9);

	/* written: "levels" with level 0, "ruled_out" null (sensitive) */
	o = ap_verdict_to_json(&v);
	assert_true(json_object_object_get_ex(o, "levels", &a));
	assert_int_equal(json_object_array_length(a), 1);
	assert_string_equal(json_object_get_string(json_object_object_get(
		json_object_array_get_idx(a, 0), "kind")), "sector");
	assert_true(json_object_object_get_ex(o, "ruled_out", &x));
	assert_null(x);
	json_object_put(o);
	ap_verdict_free(&v);

	/* a verdict with a stripe, round trip */
	o = verdict_with(", \"levels\": [{\"kind\": \"sector\", \"unit\": 4096, "
			 "\"lowest_aligned_lba\": 0, \"paid\": \"every_write\", \"ratio\": 5}, "
			 "{\"kind\": \"stripe\", \"unit\": 196608, \"lowest_aligned_lba\": 0, "
			 "\"paid\": \"every_write\", \"ratio\": 2.5}]");
	assert_int_equal(ap_verdict_from_json(o, &v), 0);
	json_object_put(o);
	o = ap_verdict_to_json(&v);
	assert_int_equal(ap_verdict_from_json(o, &w), 0);
	json_object_put(o);
	ap_verdict_levels(&w, &all);
	assert_int_equal(all.n, 2);
	assert_int_equal(all.l[1].kind, AP_LEVEL_STRIPE);
	assert_int_equal(all.l[1].unit, 196608);
	assert_true(fabs(all.l[1].ratio - 2.5) < 1e-9);
	ap_verdict_free(&v);
	ap_verdict_free(&w);

	/* level 0 must mirror the physical sector; bad members are refused */
	o = verdict_with(", \"levels\": [{\"kind\": \"sector\", \"unit\": 8192, "
			 "\"lowest_aligned_lba\": 0, \"paid\": \"every_write\", \"ratio\": null}]");
	assert_int_equal(ap_verdict_from_json(o, &v), -EINVAL);
	json_object_put(o);
	o = verdict_with(", \"levels\": [{\"kind\": \"raid\", \"unit\": 8192, "
			 "\"lowest_aligned_lba\": 0, \"paid\": \"every_write\"}]");
	assert_int_equal(ap_verdict_from_json(o, &v), -EINVAL);
	json_object_put(o);
	o = verdict_with(", \"levels\": [{\"kind\": \"stripe\", \"unit\": 1000, "
			 "\"lowest_aligned_lba\": 0, \"paid\": \"first_write\"}]");
	assert_int_equal(ap_verdict_from_json(o, &v), -EINVAL);
	json_object_put(o);

	/* "no effect": an older ruled_out_up_to means rewrites up to it */
	memset(&v, 0, sizeof(v));
	v.resolved = true;
	v.logical_sector = 512;
	v.physical_sector = 512;
	v.period = 1;
	v.ruled_out_up_to = 65536;
	ap_verdict_ruled_out(&v, &ro);
	assert_int_equal(ro.up_to, 65536);
	assert_true(ro.rewrites);
	assert_false(ro.first_writes);
	v.ruled_out = (struct ap_ruled_out){ .up_to = 4 << 20, .first_writes = true,
					     .rewrites = true };
	o = ap_verdict_to_json(&v);
	assert_int_equal(ap_verdict_from_json(o, &w), 0);
	json_object_put(o);
	assert_int_equal(w.ruled_out.up_to, 4 << 20);
	assert_true(w.ruled_out.first_writes);
	ap_verdict_free(&w);
}

static void test_geometry_levels(void **state)
{
	struct json_object *doc;
	struct ap_geometry g, d;
	struct ap_error e;
	char buf[2048];

	(void)state;
	/* an older file: one level, the physical sector */
	snprintf(buf, sizeof(buf), "{\"device\": \"x\", \"verdict\": " OLD_VERDICT "}", "");
	doc = json_tokener_parse(buf);
	assert_int_equal(ap_fleet_geometry_from_json(doc, NULL, &g, NULL, &e), 0);
	json_object_put(doc);
	assert_int_equal(g.levels.n, 1);
	assert_false(ap_geometry_has_levels(&g));
	assert_int_equal(g.levels.l[0].unit, 4096);

	/* with a 192 KiB stripe */
	snprintf(buf, sizeof(buf), "{\"device\": \"x\", \"verdict\": " OLD_VERDICT "}",
		 ", \"levels\": [{\"kind\": \"sector\", \"unit\": 4096, \"lowest_aligned_lba\": 0, "
		 "\"paid\": \"every_write\", \"ratio\": 5}, {\"kind\": \"stripe\", \"unit\": "
		 "196608, \"lowest_aligned_lba\": 0, \"paid\": \"every_write\", \"ratio\": 2}]");
	doc = json_tokener_parse(buf);
	assert_int_equal(ap_fleet_geometry_from_json(doc, NULL, &g, NULL, &e), 0);
	json_object_put(doc);
	assert_int_equal(g.levels.n, 2);
	assert_true(ap_geometry_has_levels(&g));
	assert_int_equal(ap_levels_next(&g.levels, 512, 1024 * KIB, 2048), 6144);
	doc = ap_geometry_to_json(&g, NULL);
	assert_true(json_object_object_get_ex(doc, "levels", NULL));
	json_object_put(doc);

	/* the 4 KiB minimum keeps the levels above it */
	assert_int_equal(ap_geometry_set(&g, AP_GEOM_REPORTED, 512, 512, 0, &e), 0);
	{
		struct ap_level x = lvl(AP_LEVEL_STRIPE, 192 * KIB, 0);

		assert_int_equal(ap_geometry_add_level(&g, &x, &e), 0);
		x = lvl(AP_LEVEL_CHUNK, 1000 * 512 + 256, 0);
		assert_int_equal(ap_geometry_add_level(&g, &x, &e), -EINVAL);
	}
	assert_int_equal(ap_check_rule_decide(&g, 0, false, &d), AP_RULE_MINIMUM_4K);
	assert_int_equal(d.physical, 4096);
	assert_int_equal(d.levels.n, 2);
	assert_int_equal(d.levels.l[1].unit, 192 * KIB);
}

#define STORE_FMT \
	"{\"format\": \"alignprobe-verdicts\", \"version\": 1, \"models\": [{\"vendor\": " \
	"\"ATA\", \"model\": \"M\", \"revision\": \"1\", \"verdicts\": [{\"logical_sector\": " \
	"512, \"physical_sector\": 4096, \"lowest_aligned_lba\": 0, \"sensitive\": true%s, " \
	"\"examples\": []}]}]}"

static void test_store_levels(void **state)
{
	struct json_object *doc, *back, *vo;
	struct ap_vstore s, t;
	struct ap_error e;
	char buf[2048];

	(void)state;
	/* today's store: read, and written back without new keys */
	snprintf(buf, sizeof(buf), STORE_FMT, "");
	doc = json_tokener_parse(buf);
	assert_int_equal(ap_vstore_from_json(doc, &s, &e), 0);
	json_object_put(doc);
	assert_int_equal(s.models[0].verdicts[0].levels.n, 0);
	back = ap_vstore_to_json(&s);
	vo = json_object_array_get_idx(json_object_object_get(json_object_array_get_idx(
		json_object_object_get(back, "models"), 0), "verdicts"), 0);
	assert_false(json_object_object_get_ex(vo, "levels", NULL));
	assert_false(json_object_object_get_ex(vo, "ruled_out", NULL));
	json_object_put(back);

	/* with a stripe: kept, and a verdict of its own */
	snprintf(buf, sizeof(buf), STORE_FMT, ", \"levels\": [{\"kind\": \"sector\", \"unit\": "
		 "4096, \"lowest_aligned_lba\": 0, \"paid\": \"every_write\", \"ratio\": null}, "
		 "{\"kind\": \"stripe\", \"unit\": 196608, \"lowest_aligned_lba\": 0, \"paid\": "
		 "\"every_write\", \"ratio\": 3}]");
	doc = json_tokener_parse(buf);
	assert_int_equal(ap_vstore_from_json(doc, &t, &e), 0);
	json_object_put(doc);
	assert_int_equal(t.models[0].verdicts[0].levels.n, 2);
	back = ap_vstore_to_json(&t);
	ap_vstore_free(&t);
	assert_int_equal(ap_vstore_from_json(back, &t, &e), 0);
	json_object_put(back);
	assert_int_equal(t.models[0].verdicts[0].levels.l[1].unit, 196608);
	{
		struct ap_vstore_merged st = { 0 };

		ap_vstore_merge(&s, &t, false, &st);
		assert_int_equal(st.verdicts_added, 1);	/* another geometry: a conflict */
	}
	ap_vstore_free(&s);
	ap_vstore_free(&t);

	/* a sector level that does not mirror the verdict's */
	snprintf(buf, sizeof(buf), STORE_FMT, ", \"levels\": [{\"kind\": \"sector\", \"unit\": "
		 "8192, \"lowest_aligned_lba\": 0, \"paid\": \"every_write\"}]");
	doc = json_tokener_parse(buf);
	assert_int_equal(ap_vstore_from_json(doc, &t, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "levels[0]"));
	json_object_put(doc);
}

/* Claims against measured levels; VPD B0h decoded. */
/* The levels above the sector in brief (verdicts list) and in words (check, verdicts show). */
static void test_brief_and_words(void **state)
{
	struct ap_levels ls = { .n = 0 };
	struct ap_level x;
	struct ap_error e;
	char b[256], tiny[12];

	(void)state;
	x = lvl(AP_LEVEL_SECTOR, 4096, 0);
	assert_int_equal(ap_levels_add(&ls, 512, &x, false, &e), 0);
	ap_levels_brief(&ls, b, sizeof(b));
	assert_string_equal(b, "");
	strcpy(b, "4096-byte sectors");
	ap_levels_words(&ls, " and ", b, sizeof(b));
	assert_string_equal(b, "4096-byte sectors");

	x = lvl(AP_LEVEL_STRIPE, 192 * KIB, 0);
	assert_int_equal(ap_levels_add(&ls, 512, &x, false, &e), 0);
	x = lvl(AP_LEVEL_ALLOCATION, 64 * KIB, 8);
	x.paid = AP_PAID_FIRST_WRITE;
	assert_int_equal(ap_levels_add(&ls, 512, &x, false, &e), 0);
	ap_levels_brief(&ls, b, sizeof(b));
	assert_string_equal(b, "allocation 65536@8 first-write, stripe 196608@0");
	b[0] = '\0';
	ap_levels_words(&ls, "", b, sizeof(b));
	assert_string_equal(b, "a 65536-byte allocation unit, paid on first writes (from LBA 8) "
			    "and a 196608-byte stripe (from LBA 0)");
	strcpy(b, "sectors");
	ap_levels_words(&ls, " and ", b, sizeof(b));
	assert_string_equal(b, "sectors and a 65536-byte allocation unit, paid on first writes "
			    "(from LBA 8) and a 196608-byte stripe (from LBA 0)");
	/* a short buffer: cut, terminated */
	ap_levels_brief(&ls, tiny, sizeof(tiny));
	assert_int_equal(strlen(tiny), sizeof(tiny) - 1);
	assert_memory_equal(tiny, "allocation ", 11);
}

static void test_claims(void **state)
{
	struct ap_topology t;
	struct ap_claims c;
	struct ap_levels ls = { .n = 0 };
	struct ap_level l;
	char *m[AP_CLAIMS_MAX];
	uint8_t b0[64] = { 0, 0xb0, 0, 0x3c };
	struct ap_scsi_block_limits bl;
	size_t n, i;

	(void)state;
	b0[6] = 0x00;
	b0[7] = 0x80;		/* OTLG 128 blocks */
	b0[15] = 0x40;		/* OPTIMAL TRANSFER LENGTH 64 blocks */
	assert_int_equal(ap_sgio_parse_vpd_block_limits(b0, sizeof(b0), &bl), 0);
	assert_int_equal(bl.otlg, 128);
	assert_int_equal(bl.optimal_transfer, 64);
	b0[1] = 0x80;
	assert_int_equal(ap_sgio_parse_vpd_block_limits(b0, sizeof(b0), &bl), -EINVAL);

	memset(&t, 0, sizeof(t));
	t.kernel.available = true;
	t.kernel.minimum_io = 512;
	t.kernel.optimal_io = 0;
	t.drive.nvme_ok = true;
	t.drive.nvme.optperf_valid = true;
	t.drive.nvme.logical_sector = 512;
	t.drive.nvme.npwg = 8;		/* 4 KiB */
	t.drive.nvme.nows = 256;	/* 128 KiB */
	t.drive.scsi_ok = true;
	t.drive.scsi.logical_sector = 512;
	t.drive.limits_ok = true;
	t.drive.limits.otlg = 128;	/* 64 KiB */
	ap_claims_read(&t, &c);
	assert_int_equal(c.n, 5);

	/* nothing measured: nothing contradicted */
	assert_int_equal(ap_claims_contradicted(&c, NULL, m, AP_CLAIMS_MAX), 0);
	/* 4096-byte sectors, 64 KiB chunk, 192 KiB stripe */
	l = lvl(AP_LEVEL_SECTOR, 4096, 0);
	ap_levels_add(&ls, 512, &l, false, NULL);
	l = lvl(AP_LEVEL_CHUNK, 64 * KIB, 0);
	ap_levels_add(&ls, 512, &l, false, NULL);
	l = lvl(AP_LEVEL_STRIPE, 192 * KIB, 0);
	ap_levels_add(&ls, 512, &l, false, NULL);
	n = ap_claims_contradicted(&c, &ls, m, AP_CLAIMS_MAX);
	assert_int_equal(n, 4);
	assert_string_equal(m[0], "reports minimum_io 512; the chunk is 65536 bytes");
	assert_string_equal(m[1], "reports optimal_io 0; the stripe is 196608 bytes");
	assert_string_equal(m[2], "reports nvme_npwg 4096; the chunk is 65536 bytes");
	assert_string_equal(m[3], "reports nvme_nows 131072; the stripe is 196608 bytes");
	for (i = 0; i < n; i++)
		free(m[i]);	/* scsi_otlg 64 KiB is the chunk: not contradicted */
	/* claims that fit: none */
	t.kernel.minimum_io = 65536;
	t.kernel.optimal_io = 196608;
	t.drive.nvme.npwg = 128;
	t.drive.nvme.nows = 384;
	ap_claims_read(&t, &c);
	assert_int_equal(ap_claims_contradicted(&c, &ls, m, AP_CLAIMS_MAX), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_next),
		cmocka_unit_test(test_verdict_json),
		cmocka_unit_test(test_geometry_levels),
		cmocka_unit_test(test_store_levels),
		cmocka_unit_test(test_brief_and_words),
		cmocka_unit_test(test_claims),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
