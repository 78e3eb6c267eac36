// SPDX-License-Identifier: GPL-2.0-or-later
/* The emulated drive's cost/fault models, spec parser and profiles: pure functions. */
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

#include "emu/model.h"
#include "emu/emuP.h"
#include "lib/util.h"
#include "emu_fixture.h"

static void test_partial(void **state)
{
	(void)state;
	/* 4K writes on a 4096 drive, boundaries at multiples of 8 LBAs */
	assert_int_equal(ap_emu_model_partial(40 * S, 4096, 4096, 0), 0);
	assert_int_equal(ap_emu_model_partial(34 * S, 4096, 4096, 0), 2);
	assert_int_equal(ap_emu_model_partial(0, 4096, 4096, 0), 0);
	assert_int_equal(ap_emu_model_partial(0, 512, 4096, 0), 1);	/* head of one sector */
	assert_int_equal(ap_emu_model_partial(S, 512, 4096, 0), 1);	/* inside one sector */
	assert_int_equal(ap_emu_model_partial(7 * S, 512, 4096, 0), 1);	/* tail of one sector */
	assert_int_equal(ap_emu_model_partial(4 * S, 8192, 4096, 0), 2);
	assert_int_equal(ap_emu_model_partial(4 * S, 4 * S + 8192, 4096, 0), 1); /* ends on a boundary */
	assert_int_equal(ap_emu_model_partial(0, 1 << 20, 4096, 0), 0);
	assert_int_equal(ap_emu_model_partial(0, 0, 4096, 0), 0);
	/* lowest aligned LBA 7: boundaries at LBA 7, 15, ..., 39, 47 */
	assert_int_equal(ap_emu_model_partial(39 * S, 4096, 4096, 7 * 512), 0);
	assert_int_equal(ap_emu_model_partial(47 * S, 4096, 4096, 7 * 512), 0);
	assert_int_equal(ap_emu_model_partial(40 * S, 4096, 4096, 7 * 512), 2);
	assert_int_equal(ap_emu_model_partial(34 * S, 4096, 4096, 7 * 512), 2);
	assert_int_equal(ap_emu_model_partial(63 * S, 4096, 4096, 7 * 512), 0);
	assert_int_equal(ap_emu_model_partial(0, 7 * S, 4096, 7 * 512), 1);
	/* an honest 512 drive: nothing is ever partial */
	for (uint64_t lba = 0; lba < 64; lba++) {
		assert_int_equal(ap_emu_model_partial(lba * S, 512, 512, 0), 0);
		assert_int_equal(ap_emu_model_partial(lba * S, 4096, 512, 0), 0);
		assert_int_equal(ap_emu_model_partial(lba * S, 12345 * 512, 512, 0), 0);
	}
	/* 64K sectors */
	assert_int_equal(ap_emu_model_partial(128 * S, 65536, 65536, 0), 0);
	assert_int_equal(ap_emu_model_partial(120 * S, 65536, 65536, 0), 2);
	assert_int_equal(ap_emu_model_partial(120 * S, 4096, 65536, 0), 1);
	/* brute force against a sector-by-sector count */
	for (uint32_t phys = 1024; phys <= 16384; phys *= 2)
		for (uint32_t a = 0; a < phys; a += 512)
			for (uint64_t off = 0; off < 3 * phys; off += 512)
				for (uint64_t len = 512; len <= 3 * phys; len += 512) {
					unsigned n = 0;
					uint64_t first = (off + phys - a) / phys,
						 last = (off + len - 1 + phys - a) / phys, k;

					for (k = first; k <= last; k++) {
						int64_t lo = (int64_t)(k * phys) - (int64_t)(phys - a),
							hi = lo + phys;

						if ((int64_t)off > lo || (int64_t)(off + len) < hi)
							n++;
					}
					assert_int_equal(ap_emu_model_partial(off, len, phys, a), n);
				}
}


static void test_costs(void **state)
{
	struct ap_emu_model m;
	struct ap_emu_cost c;

	(void)state;
	model_for(&m, "phys=4096,rmw=8ms,base=100us");
	ap_emu_model_request(&m, AP_EMU_WRITE, 40 * S, 4096, 0, 0, &c);
	assert_false(c.fail);
	assert_true(c.aligned);
	assert_int_equal(c.partial, 0);
	assert_int_equal(c.cost_ns, 100000);
	ap_emu_model_request(&m, AP_EMU_WRITE, 34 * S, 4096, 0, 0, &c);
	assert_false(c.aligned);
	assert_int_equal(c.partial, 2);
	assert_int_equal(c.cost_ns, 100000 + 2 * 8000000);
	ap_emu_model_request(&m, AP_EMU_READ, 34 * S, 4096, 0, 0, &c);
	assert_int_equal(c.cost_ns, 100000);
	ap_emu_model_request(&m, AP_EMU_FLUSH, 0, 0, 0, 0, &c);
	assert_int_equal(c.cost_ns, 100000);	/* no cache: nothing pending */

	/* write cache: writes absorbed, the flush pays */
	model_for(&m, "phys=4096,rmw=1ms,base=10us,cache=on,flush=2ms");
	ap_emu_model_request(&m, AP_EMU_WRITE, 34 * S, 4096, 0, 0, &c);
	assert_int_equal(c.partial, 2);
	assert_int_equal(c.cost_ns, 10000);
	ap_emu_model_request(&m, AP_EMU_WRITE, 1 * S, 512, 0, 0, &c);
	assert_int_equal(c.cost_ns, 10000);
	ap_emu_model_request(&m, AP_EMU_FLUSH, 0, 0, 0, 0, &c);
	assert_int_equal(c.cost_ns, 10000 + 2000000 + 3 * 1000000);
	ap_emu_model_request(&m, AP_EMU_FLUSH, 0, 0, 0, 0, &c);
	assert_int_equal(c.cost_ns, 10000 + 2000000);

	/* 512: the same write costs nothing extra */
	model_for(&m, "phys=512,rmw=8ms");
	ap_emu_model_request(&m, AP_EMU_WRITE, 34 * S, 4096, 0, 0, &c);
	assert_true(c.aligned);
	assert_int_equal(c.cost_ns, 0);
}

static void test_jitter(void **state)
{
	struct ap_emu_model a, b, d;
	struct ap_emu_cost ca, cb, cd;
	double lo = 1e30, hi = 0, sum = 0;
	bool differ = false;
	int i, n = 20000;

	(void)state;
	model_for(&a, "rmw=1ms,base=1ms,jitter=30%,seed=7");
	model_for(&b, "rmw=1ms,base=1ms,jitter=30%,seed=7");
	model_for(&d, "rmw=1ms,base=1ms,jitter=30%,seed=8");
	for (i = 0; i < n; i++) {
		ap_emu_model_request(&a, AP_EMU_READ, 0, 512, 0, 0, &ca);
		ap_emu_model_request(&b, AP_EMU_READ, 0, 512, 0, 0, &cb);
		ap_emu_model_request(&d, AP_EMU_READ, 0, 512, 0, 0, &cd);
		assert_int_equal(ca.cost_ns, cb.cost_ns);	/* reproducible */
		if (ca.cost_ns != cd.cost_ns)
			differ = true;
		lo = fmin(lo, (double)ca.cost_ns);
		hi = fmax(hi, (double)ca.cost_ns);
		sum += (double)ca.cost_ns;
	}
	assert_true(differ);
	assert_true(lo >= 700000 && lo < 710000);
	assert_true(hi <= 1300000 && hi > 1290000);
	assert_true(fabs(sum / n - 1000000) < 10000);
	for (i = 0; i < 1000; i++) {
		double u = ap_emu_model_uniform(&a);

		assert_true(u >= -1.0 && u <= 1.0);
	}
}

/*
 * The jitter's sequence, recorded from the model before it drew from
 * lib/rng (its own splitmix64 and xoshiro256** copy): the state seeded from
 * the spec's seed, the first jittered costs and uniform draws. A run's
 * emulated timings depend on it: it must not change.
 */
static void test_jitter_sequence(void **state)
{
	static const struct {
		const char *spec;
		uint64_t rng[4];
		uint64_t cost[8];
		double u[4];
	} rec[] = {
		{ "rmw=1ms,base=1ms,jitter=30%,seed=7",
		  { 0x63cbe1e459320dd7ULL, 0x044c3cd7f43c661cULL, 0xe6984080bab12a02ULL,
		    0x953aeb70673e29cbULL },
		  { 1120346, 867251, 1203776, 1288659, 1294516, 1223664, 736451, 762661 },
		  { -0x1.8a6b06935377cp-3, -0x1.648a517ff9c8p-1, 0x1.52e2245ac3edp-4,
		    0x1.dad879c48f95p-2 } },
		{ "rmw=1ms,base=1ms,jitter=30%,seed=0",
		  { 0xe220a8397b1dcdafULL, 0x6e789e6aa1b965f4ULL, 0x06c45d188009454fULL,
		    0xf88bb8a8724c81ecULL },
		  { 1060758, 1148664, 761812, 949953, 1139798, 1299849, 953327, 1021393 },
		  { 0x1.6c0cb02e9d4e6p-1, 0x1.ace91d68f9d28p-1, -0x1.8af59b016f036p-1,
		    -0x1.bb27902b657aep-1 } },
		{ "base=1ms,jitter=50%,seed=18446744073709551615",
		  { 0xe4d971771b652c20ULL, 0xe99ff867dbf682c9ULL, 0x382ff84cb27281e9ULL,
		    0x6d1db36ccba982d2ULL },
		  { 1059893, 1267435, 1007297, 1247643, 1067224, 1231741, 870325, 1267688 },
		  { 0x1.033a36ddabe28p-2, 0x1.d414196fdf06p-3, -0x1.f1872832f439ep-2,
		    -0x1.d31315a861df2p-1 } },
	};
	size_t i, k;

	(void)state;
	for (i = 0; i < sizeof(rec) / sizeof(rec[0]); i++) {
		struct ap_emu_model m;
		struct ap_emu_cost c;

		model_for(&m, rec[i].spec);
		for (k = 0; k < 4; k++)
			assert_int_equal(m.rng[k], rec[i].rng[k]);
		for (k = 0; k < 8; k++) {
			ap_emu_model_request(&m, AP_EMU_READ, 0, 512, 0, 0, &c);
			assert_int_equal(c.cost_ns, rec[i].cost[k]);
		}
		for (k = 0; k < 4; k++)
			assert_true(ap_emu_model_uniform(&m) == rec[i].u[k]);
	}
}

static void test_faults(void **state)
{
	struct ap_emu_model m;
	struct ap_emu_cost c;

	(void)state;
	model_for(&m, "fail=100+8,base=5us");
	ap_emu_model_request(&m, AP_EMU_WRITE, 92 * S, 4096, 0, 0, &c);	/* 92..99 */
	assert_false(c.fail);
	ap_emu_model_request(&m, AP_EMU_WRITE, 93 * S, 4096, 0, 0, &c);	/* 93..100 */
	assert_true(c.fail);
	assert_int_equal(c.cost_ns, 5000);
	ap_emu_model_request(&m, AP_EMU_READ, 107 * S, 512, 0, 0, &c);
	assert_true(c.fail);
	ap_emu_model_request(&m, AP_EMU_READ, 108 * S, 512, 0, 0, &c);
	assert_false(c.fail);
	ap_emu_model_request(&m, AP_EMU_FLUSH, 0, 0, 0, 0, &c);
	assert_false(c.fail);

	model_for(&m, "fail=100+8,fail-rw=w");
	ap_emu_model_request(&m, AP_EMU_READ, 100 * S, 512, 0, 0, &c);
	assert_false(c.fail);
	ap_emu_model_request(&m, AP_EMU_WRITE, 100 * S, 512, 0, 0, &c);
	assert_true(c.fail);

	model_for(&m, "fail-after=3,fail-rw=r");
	ap_emu_model_request(&m, AP_EMU_READ, 0, 512, 2, 0, &c);
	assert_false(c.fail);
	ap_emu_model_request(&m, AP_EMU_READ, 0, 512, 3, 0, &c);
	assert_true(c.fail);
	ap_emu_model_request(&m, AP_EMU_WRITE, 0, 512, 3, 0, &c);
	assert_false(c.fail);

	/* both: in the range, once N were served */
	model_for(&m, "fail=10+1,fail-after=2");
	ap_emu_model_request(&m, AP_EMU_WRITE, 10 * S, 512, 1, 0, &c);
	assert_false(c.fail);
	ap_emu_model_request(&m, AP_EMU_WRITE, 10 * S, 512, 2, 0, &c);
	assert_true(c.fail);
	ap_emu_model_request(&m, AP_EMU_WRITE, 11 * S, 512, 2, 0, &c);
	assert_false(c.fail);

	/* a failed write leaves the cache's debt alone */
	model_for(&m, "fail=0+8,cache=on,rmw=1ms");
	ap_emu_model_request(&m, AP_EMU_WRITE, 1 * S, 512, 0, 0, &c);
	assert_true(c.fail);
	ap_emu_model_request(&m, AP_EMU_FLUSH, 0, 0, 0, 0, &c);
	assert_int_equal(c.cost_ns, 0);
}

static void test_spec(void **state)
{
	struct ap_emu_spec s;
	struct ap_error e;
	char *str;

	(void)state;
	ap_emu_spec_init(&s);
	assert_true(s.capacity == 1ULL << 30);
	assert_int_equal(s.phys_sector, 4096);
	assert_int_equal(s.lowest_aligned, 0);
	assert_int_equal(s.rmw_ns, 8000000);
	assert_int_equal(s.base_ns, 0);
	assert_false(s.write_cache);
	assert_int_equal(ap_emu_spec_parse(NULL, &s, &e), 0);
	assert_int_equal(ap_emu_spec_parse("phys=8K,lba=7,size=2G,rmw=300us,base=50us,jitter=30%,"
					   "seed=9,cache=on,flush=1ms,fail=100+4,fail-rw=r,fail-after=5,"
					   "image=/x.img", &s, &e), 0);
	assert_int_equal(s.phys_sector, 8192);
	assert_int_equal(s.lowest_aligned, 7);
	assert_true(s.capacity == 2ULL << 30);
	assert_int_equal(s.rmw_ns, 300000);
	assert_int_equal(s.base_ns, 50000);
	assert_int_equal(s.flush_ns, 1000000);
	assert_true(fabs(s.jitter - 0.3) < 1e-12);
	assert_int_equal(s.seed, 9);
	assert_true(s.write_cache);
	assert_int_equal(s.fail_lba, 100);
	assert_int_equal(s.fail_count, 4);
	assert_true(s.fail_reads);
	assert_false(s.fail_writes);
	assert_int_equal(s.fail_after, 5);
	assert_string_equal(s.image, "/x.img");
	str = ap_emu_spec_format(&s);
	assert_string_equal(str, "size=2147483648,phys=8192,lba=7,rmw=300us,base=50us,jitter=30%,"
			    "seed=9,cache=on,flush=1ms,fail=100+4,fail-after=5,fail-rw=r");
	free(str);
	ap_emu_spec_free(&s);

	/* long option names work as keys, "0" needs no unit */
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("lowest-aligned=1,rmw-cost=0,base-cost=1ms,write-cache=off,"
					   "fail-lba=3,fail-count=2", &s, &e), 0);
	assert_int_equal(s.lowest_aligned, 1);
	assert_int_equal(s.rmw_ns, 0);
	assert_int_equal(s.fail_lba, 3);
	assert_int_equal(s.fail_count, 2);

	/* rejected, with the reason */
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("phys=3000", &s, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "power of two"));
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("phys=128K", &s, &e), -EINVAL);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("phys=256", &s, &e), -EINVAL);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("lba=8", &s, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "lowest aligned"));
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("phys=8192,lba=15", &s, &e), 0);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("size=1000", &s, &e), -EINVAL);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("size=1M", &s, &e), 0);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("size=1000K", &s, &e), -EINVAL);	/* < 1 MiB */
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("size=1048577", &s, &e), -EINVAL);	/* not x512 */
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("rmw=8", &s, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "unit"));
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("jitter=150%", &s, &e), -EINVAL);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("cache=maybe", &s, &e), -EINVAL);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("fail=1+0", &s, &e), -EINVAL);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("size=1M,fail=2047+2", &s, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "beyond"));
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("fail-rw=x", &s, &e), -EINVAL);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("colour=red", &s, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "colour"));
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("phys", &s, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "KEY=VALUE"));
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("image=", &s, &e), -EINVAL);
	/* an image without a size: the capacity is decided at attach */
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("image=/a", &s, &e), 0);
	assert_false(s.capacity_set);
	ap_emu_spec_free(&s);
}

/* ---- the hdd model ---- */

/* One 4 KiB O_DSYNC-style write (write, then flush) at @now: the total cost. */
static uint64_t dsync_write(struct ap_emu_model *m, uint64_t off, uint64_t now,
			    struct ap_emu_cost *w, struct ap_emu_cost *f)
{
	ap_emu_model_request(m, AP_EMU_WRITE, off, 4096, 0, now, w);
	ap_emu_model_request(m, AP_EMU_FLUSH, 0, 0, 0, now + w->cost_ns, f);
	return w->cost_ns + f->cost_ns;
}

static void test_hdd_revolution(void **state)
{
	struct ap_emu_model a, b;
	struct ap_emu_cost ca, cb, fa, fb;
	uint64_t ta, tb, now;

	(void)state;
	/* cache off: the write goes to the media at once */
	model_for(&a, "hdd-7200,cache=off");
	model_for(&b, "hdd-7200,cache=off,lba=1");	/* LBA 40 straddles two sectors */
	assert_int_equal(a.rev_ns, REV7200);
	for (now = T0; now < T0 + 3 * REV7200; now += 777777) {
		model_for(&a, "hdd-7200,cache=off");
		model_for(&b, "hdd-7200,cache=off,lba=1");
		ap_emu_model_request(&a, AP_EMU_WRITE, 40 * S, 4096, 0, now, &ca);
		ap_emu_model_request(&b, AP_EMU_WRITE, 40 * S, 4096, 0, now, &cb);
		assert_true(ca.aligned);
		assert_int_equal(ca.rmw, 0);
		assert_false(cb.aligned);
		assert_int_equal(cb.partial, 2);
		assert_int_equal(cb.rmw, 2);
		/* exactly one more revolution, wherever the platter is */
		assert_int_equal(cb.cost_ns - ca.cost_ns, REV7200);
	}
	/* the aligned write itself: base + seek 0 + rotation + 4 KiB of a 2442-sector track */
	model_for(&a, "hdd-7200,cache=off");
	ap_emu_model_request(&a, AP_EMU_WRITE, 40 * S, 4096, 0, T0, &ca);
	assert_int_equal(ca.cost_ns, 50000 + ap_emu_model_rotation_ns(&a, 40 * S, T0 + 50000) +
			 4096ULL * REV7200 / 1250304);
	/* LBA 34 on the same drive: its own angle, and the revolution */
	model_for(&b, "hdd-7200,cache=off");
	ap_emu_model_request(&b, AP_EMU_WRITE, 34 * S, 4096, 0, T0, &cb);
	assert_int_equal(cb.cost_ns, 50000 + ap_emu_model_rotation_ns(&b, 34 * S, T0 + 50000) +
			 4096ULL * REV7200 / 1250304 + REV7200);

	/* cache on, as shipped: the write is cheap, the flush destages and pays */
	for (now = T0; now < T0 + 2 * REV7200; now += 1234567) {
		model_for(&a, "hdd-7200");
		model_for(&b, "hdd-7200,lba=1");
		ta = dsync_write(&a, 40 * S, now, &ca, &fa);
		tb = dsync_write(&b, 40 * S, now, &cb, &fb);
		assert_int_equal(ca.cost_ns, cb.cost_ns);	/* base + bus only */
		assert_int_equal(ca.cost_ns, 50000 + 4096ULL * 1000000000 / 300000000);
		assert_int_equal(cb.partial, 2);		/* the write is classified */
		assert_int_equal(cb.rmw, 0);			/* ... the RMW happens later */
		assert_int_equal(fb.rmw, 2);
		assert_int_equal(fa.rmw, 0);
		assert_int_equal(fa.destaged, 1);
		assert_int_equal(tb - ta, REV7200);
	}
	/* 5400 rpm: 11.1 ms */
	model_for(&a, "hdd-5400");
	assert_int_equal(a.rev_ns, 11111111);
}

static void test_hdd_seek(void **state)
{
	struct ap_emu_model m;
	uint64_t d, prev = 0;
	double tk = (1e6 * 0.7 + 2 * 0.3 * 16e6) / 1.3;

	(void)state;
	/* 512 MiB on a 1001 MiB disk of 1 MiB tracks: x = d / 1000 */
	model_for(&m, "model=hdd,size=512M,disk=1001M,track=1M,settle=1ms,seek=16ms,knee=30%");
	assert_int_equal(m.ntracks, 1001);
	assert_int_equal(ap_emu_model_seek_ns(&m, 0), 0);
	assert_int_equal(ap_emu_model_seek_ns(&m, 75), (uint64_t)(1e6 + (tk - 1e6) * 0.5 + 0.5));
	assert_int_equal(ap_emu_model_seek_ns(&m, 75), 4461538);
	assert_int_equal(ap_emu_model_seek_ns(&m, 300), 7923077);	/* the knee */
	assert_int_equal(ap_emu_model_seek_ns(&m, 650), 11961538);
	assert_int_equal(ap_emu_model_seek_ns(&m, 1000), 16000000);	/* full stroke */
	assert_int_equal(ap_emu_model_seek_ns(&m, 5000), 16000000);
	/* one track of 1000: the settle time and the start of the sqrt */
	assert_int_equal(ap_emu_model_seek_ns(&m, 1), (uint64_t)(1e6 + (tk - 1e6) * sqrt(0.001 / 0.3) + 0.5));
	for (d = 1; d <= 1000; d++) {
		uint64_t t = ap_emu_model_seek_ns(&m, d);

		assert_true(t > prev);	/* strictly monotone */
		prev = t;
	}
	/* the profile's disk: 2 TB of 2442-sector tracks, a short seek is short */
	model_for(&m, "hdd-7200");
	assert_int_equal(m.ntracks, (3907029168ULL * 512 + 1250303) / 1250304);
	assert_true(ap_emu_model_seek_ns(&m, 8) < 1100000);
	assert_int_equal(ap_emu_model_seek_ns(&m, m.ntracks - 1), 16000000);
	/* a seek is charged: the head moves from track 0 to track 100 */
	model_for(&m, "model=hdd,size=512M,disk=1001M,track=1M,settle=1ms,seek=16ms,rpm=6000,base=0,"
		  "cache=off");
	{
		struct ap_emu_cost c;

		ap_emu_model_request(&m, AP_EMU_READ, 100ULL << 20, 4096, 0, 0, &c);
		assert_int_equal(c.cost_ns, ap_emu_model_seek_ns(&m, 100) +
				 ap_emu_model_rotation_ns(&m, 0, ap_emu_model_seek_ns(&m, 100)) +
				 4096ULL * 10000000 / (1 << 20));
		assert_int_equal(m.head, 100);
	}
}

static void test_hdd_rotation(void **state)
{
	struct ap_emu_model m;
	struct ap_emu_cost c1, c2, c3;

	(void)state;
	/* 6000 rpm: one revolution is 10 ms */
	model_for(&m, "model=hdd,rpm=6000,track=1M,base=0,cache=off");
	assert_int_equal(m.rev_ns, 10000000);
	assert_int_equal(ap_emu_model_rotation_ns(&m, 0, 0), 0);
	assert_int_equal(ap_emu_model_rotation_ns(&m, 0, 10000000 * 123ULL), 0);
	assert_int_equal(ap_emu_model_rotation_ns(&m, 0, 2500000), 7500000);
	assert_int_equal(ap_emu_model_rotation_ns(&m, 512 * 1024, 0), 5000000);
	assert_int_equal(ap_emu_model_rotation_ns(&m, 512 * 1024, 5000005), 9999995);
	assert_int_equal(ap_emu_model_rotation_ns(&m, (1 << 20) + 256 * 1024, 1000000), 1500000);
	/* the same request one revolution later costs the same, half one later not */
	ap_emu_model_request(&m, AP_EMU_WRITE, 0, 4096, 0, 3000000, &c1);
	model_for(&m, "model=hdd,rpm=6000,track=1M,base=0,cache=off");
	ap_emu_model_request(&m, AP_EMU_WRITE, 0, 4096, 0, 13000000, &c2);
	model_for(&m, "model=hdd,rpm=6000,track=1M,base=0,cache=off");
	ap_emu_model_request(&m, AP_EMU_WRITE, 0, 4096, 0, 8000000, &c3);
	assert_int_equal(c1.cost_ns, c2.cost_ns);
	assert_int_equal(c1.cost_ns, 7000000 + 39062);		/* wait + 4 KiB transfer */
	assert_int_equal(c3.cost_ns, 2000000 + 39062);
}

static void test_hdd_merge(void **state)
{
	struct ap_emu_model m, r;
	struct ap_emu_cost c;
	uint64_t k, rmw = 0, partial = 0;
	const char *spec = "model=hdd,rpm=6000,track=1M,base=10us,bus=0,cache=on";

	(void)state;
	/* 16 sequential misaligned 4 KiB writes from LBA 1: each partial... */
	model_for(&m, spec);
	for (k = 0; k < 16; k++) {
		ap_emu_model_request(&m, AP_EMU_WRITE, S + k * 4096, 4096, 0, T0, &c);
		assert_int_equal(c.partial, 2);
		assert_false(c.aligned);
		assert_int_equal(c.cost_ns, 10000);
		partial += c.partial;
		rmw += c.rmw;
	}
	assert_int_equal(partial, 32);
	assert_int_equal(rmw, 0);
	assert_int_equal(m.nextents, 1);
	assert_int_equal(m.cached, 65536);
	/* ...one extent [LBA 1, LBA 129): only its two edges pay, one revolution */
	ap_emu_model_request(&m, AP_EMU_FLUSH, 0, 0, 0, T0, &c);
	assert_int_equal(c.rmw, 2);
	assert_int_equal(c.destaged, 1);
	model_for(&r, spec);
	assert_int_equal(c.cost_ns, 10000 + ap_emu_model_rotation_ns(&r, S, T0 + 10000) +
			 65536ULL * 10000000 / (1 << 20) + 10000000);
	/* the same run aligned: no revolution */
	model_for(&m, spec);
	for (k = 0; k < 16; k++)
		ap_emu_model_request(&m, AP_EMU_WRITE, k * 4096, 4096, 0, T0, &c);
	ap_emu_model_request(&m, AP_EMU_FLUSH, 0, 0, 0, T0, &c);
	assert_int_equal(c.rmw, 0);
	assert_int_equal(c.cost_ns, 10000 + ap_emu_model_rotation_ns(&r, 0, T0 + 10000) +
			 65536ULL * 10000000 / (1 << 20));
	/* partial writes that add up to whole sectors pay nothing: halves, overlaps */
	model_for(&m, spec);
	ap_emu_model_request(&m, AP_EMU_WRITE, 2048, 2048, 0, T0, &c);
	assert_int_equal(c.partial, 1);
	ap_emu_model_request(&m, AP_EMU_WRITE, 0, 2048, 0, T0, &c);
	assert_int_equal(c.partial, 1);
	ap_emu_model_request(&m, AP_EMU_WRITE, 4096, 3072, 0, T0, &c);
	ap_emu_model_request(&m, AP_EMU_WRITE, 5120, 3072, 0, T0, &c);	/* overlaps */
	assert_int_equal(m.nextents, 1);
	assert_int_equal(m.cached, 8192);
	ap_emu_model_request(&m, AP_EMU_FLUSH, 0, 0, 0, T0, &c);
	assert_int_equal(c.rmw, 0);
	assert_int_equal(c.destaged, 1);
	/* a read inside a cached extent is a hit; the cache is empty after a flush */
	model_for(&m, "model=hdd,rpm=6000,track=1M,base=10us,bus=100MB,cache=on");
	ap_emu_model_request(&m, AP_EMU_WRITE, 1 << 20, 8192, 0, T0, &c);
	ap_emu_model_request(&m, AP_EMU_READ, (1 << 20) + 4096, 4096, 0, T0, &c);
	assert_int_equal(c.cost_ns, 10000 + 40960);
	ap_emu_model_request(&m, AP_EMU_FLUSH, 0, 0, 0, T0, &c);
	ap_emu_model_request(&m, AP_EMU_FLUSH, 0, 0, 0, T0, &c);
	assert_int_equal(c.cost_ns, 10000);	/* nothing left to destage */
	assert_int_equal(c.destaged, 0);
}

static void test_hdd_destage_order(void **state)
{
	static const uint64_t offs[] = { 700ULL << 20, 30ULL << 20, 300ULL << 20, 5ULL << 20 };
	static const uint64_t sorted[] = { 5ULL << 20, 30ULL << 20, 300ULL << 20, 700ULL << 20 };
	const char *spec = "model=hdd,size=1G,disk=1G,rpm=6000,track=1M,base=10us,bus=0,"
			   "cache=on,flush=1ms";
	struct ap_emu_model m, r;
	struct ap_emu_cost c;
	uint64_t want = 0, unsorted = 0, t, head;
	size_t i;

	(void)state;
	model_for(&m, spec);
	for (i = 0; i < AP_ARRAY_SIZE(offs); i++)
		ap_emu_model_request(&m, AP_EMU_WRITE, offs[i] + S, 4096, 0, T0, &c);
	assert_int_equal(m.nextents, 4);
	for (i = 0; i < 4; i++)
		assert_true(m.ext[i].start == sorted[i] + S);
	ap_emu_model_request(&m, AP_EMU_FLUSH, 0, 0, 0, T0, &c);
	assert_int_equal(c.destaged, 4);
	assert_int_equal(c.rmw, 8);
	/* what ascending order costs, from the head on track 0 */
	model_for(&r, spec);
	t = T0 + 10000;
	head = 0;
	for (i = 0; i < 4; i++) {
		uint64_t trk = (sorted[i] + S) >> 20, ns;

		ns = ap_emu_model_seek_ns(&r, trk - head);
		ns += ap_emu_model_rotation_ns(&r, sorted[i] + S, t + ns);
		ns += 4096ULL * 10000000 / (1 << 20) + 10000000;
		want += ns;
		t += ns;
		head = trk;
	}
	assert_int_equal(c.cost_ns, 10000 + want + 1000000);
	assert_int_equal(m.head, 700);
	/* the order of arrival would have cost more (long seeks back and forth) */
	t = T0 + 10000;
	head = 0;
	for (i = 0; i < 4; i++) {
		uint64_t trk = (offs[i] + S) >> 20, ns;

		ns = ap_emu_model_seek_ns(&r, trk > head ? trk - head : head - trk);
		ns += ap_emu_model_rotation_ns(&r, offs[i] + S, t + ns);
		ns += 4096ULL * 10000000 / (1 << 20) + 10000000;
		unsorted += ns;
		t += ns;
		head = trk;
	}
	assert_true(unsorted > want);
}

static void test_hdd_cache_full(void **state)
{
	struct ap_emu_model m;
	struct ap_emu_cost c;
	uint64_t k;

	(void)state;
	/* 16 KiB of cache: four scattered 4 KiB writes fit, the fifth destages */
	model_for(&m, "model=hdd,rpm=6000,track=1M,base=10us,bus=0,cache=on,cache-size=16K");
	for (k = 0; k < 4; k++) {
		ap_emu_model_request(&m, AP_EMU_WRITE, k * (1 << 20) + S, 4096, 0, T0, &c);
		assert_int_equal(c.cost_ns, 10000);
		assert_int_equal(c.destaged, 0);
	}
	assert_int_equal(m.cached, 16384);
	ap_emu_model_request(&m, AP_EMU_WRITE, 9 << 20, 4096, 0, T0, &c);
	assert_int_equal(c.destaged, 4);
	assert_int_equal(c.rmw, 8);		/* the destaged ones' edges */
	assert_int_equal(c.partial, 0);		/* this write is aligned */
	assert_true(c.cost_ns > 4 * 10000000);	/* four RMW revolutions at least */
	assert_int_equal(m.nextents, 1);
	assert_int_equal(m.cached, 4096);
	/* a write larger than the cache goes straight to the media */
	ap_emu_model_request(&m, AP_EMU_WRITE, 20 << 20, 32768, 0, T0, &c);
	assert_int_equal(c.destaged, 1);
	assert_int_equal(m.nextents, 0);
	/* out of extents: AP_EMU_CACHE_EXTENTS scattered writes, the next destages */
	model_for(&m, "model=hdd,rpm=6000,track=1M,base=10us,bus=0,cache=on,cache-size=1G");
	for (k = 0; k < AP_EMU_CACHE_EXTENTS; k++) {
		ap_emu_model_request(&m, AP_EMU_WRITE, k * 8192, 4096, 0, T0, &c);
		assert_int_equal(c.destaged, 0);
	}
	ap_emu_model_request(&m, AP_EMU_WRITE, 4096, 4096, 0, T0, &c);	/* would merge, but full */
	assert_int_equal(c.destaged, AP_EMU_CACHE_EXTENTS);
	assert_int_equal(c.rmw, 0);
}

static void test_flash(void **state)
{
	struct ap_emu_model m;
	struct ap_emu_cost c;
	double al = 0, mis = 0, quarter1 = 0, quarter2 = 0, lo = 1e30, hi = 0;
	int i, n = 4000;

	(void)state;
	model_for(&m, "flash-8k");
	assert_int_equal(m.phys, 8192);
	for (i = 0; i < n; i++) {
		ap_emu_model_request(&m, AP_EMU_WRITE, 64 * S, 8192, 0, 0, &c);	/* aligned */
		assert_int_equal(c.partial, 0);
		al += (double)c.cost_ns;
		lo = fmin(lo, (double)c.cost_ns);
		hi = fmax(hi, (double)c.cost_ns);
		ap_emu_model_request(&m, AP_EMU_WRITE, 72 * S, 8192, 0, 0, &c);	/* half a page off */
		assert_int_equal(c.partial, 2);
		assert_int_equal(c.rmw, 2);
		mis += (double)c.cost_ns;
		/* 4 KiB on 8 KiB pages: always partial, one page or two */
		ap_emu_model_request(&m, AP_EMU_WRITE, 64 * S, 4096, 0, 0, &c);
		assert_int_equal(c.partial, 1);
		quarter1 += (double)c.cost_ns;
		ap_emu_model_request(&m, AP_EMU_WRITE, 76 * S, 4096, 0, 0, &c);
		assert_int_equal(c.partial, 2);
		quarter2 += (double)c.cost_ns;
	}
	/* small and noisy: 1.1-1.5x, and the aligned cost itself varies by +-15% */
	assert_true(mis / al > 1.1 && mis / al < 1.5);
	assert_true(quarter2 / quarter1 > 1.1 && quarter2 / quarter1 < 1.5);
	assert_true(fabs(al / n - (100000 + 8192 * 1e9 / 400e6)) < 2000);
	assert_true(lo < 0.9 * al / n && hi > 1.1 * al / n);
	model_for(&m, "flash-16k");
	assert_int_equal(m.phys, 16384);
	al = mis = 0;
	for (i = 0; i < n; i++) {
		ap_emu_model_request(&m, AP_EMU_WRITE, 0, 16384, 0, 0, &c);
		al += (double)c.cost_ns;
		ap_emu_model_request(&m, AP_EMU_WRITE, 8 * S, 16384, 0, 0, &c);
		mis += (double)c.cost_ns;
	}
	assert_true(mis / al > 1.1 && mis / al < 1.5);
}

static void test_simple_profile(void **state)
{
	struct ap_emu_model a, b;
	struct ap_emu_cost ca, cb;
	struct ap_emu_spec s, d;
	struct ap_error e;
	int i;

	(void)state;
	/* the simple profile is today's defaults */
	ap_emu_spec_init(&d);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("jitter=30%,rmw=1ms,simple", &s, &e), 0);
	assert_string_equal(s.profile, "simple");
	assert_int_equal(s.model, AP_EMU_MODEL_SIMPLE);
	assert_int_equal(s.rmw_ns, d.rmw_ns);
	assert_true(s.jitter == d.jitter);
	assert_int_equal(s.phys_sector, d.phys_sector);
	assert_int_equal(s.write_cache, d.write_cache);
	/* ... and costs bit for bit what the plain spec costs, at any clock */
	model_for(&a, "rmw=1ms,base=1ms,jitter=30%,seed=7,cache=on,flush=2ms");
	model_for(&b, "simple,rmw=1ms,base=1ms,jitter=30%,seed=7,cache=on,flush=2ms");
	for (i = 0; i < 1000; i++) {
		enum ap_emu_op op = i % 3 == 0 ? AP_EMU_WRITE : i % 3 == 1 ? AP_EMU_READ : AP_EMU_FLUSH;

		ap_emu_model_request(&a, op, (uint64_t)i * 3 * S, 4096, 0, 0, &ca);
		ap_emu_model_request(&b, op, (uint64_t)i * 3 * S, 4096, 0, T0 + (uint64_t)i * 77, &cb);
		assert_int_equal(ca.cost_ns, cb.cost_ns);
		assert_int_equal(ca.rmw, cb.rmw);
		if (op == AP_EMU_WRITE)
			assert_int_equal(ca.rmw, ca.partial);	/* counted at the write */
	}
}

static void test_profiles(void **state)
{
	static const char *const names[] = {
		"simple", "hdd-7200", "hdd-5400", "wd-ears-jumper", "flash-8k", "flash-16k",
		"usb-4kn", "honest-512n", "hdd-7200-nocache", "hdd-7200-nocache-flush",
		"hdd-7200-ra", "honest-512n-ra",
		"hdd-lba7-rmwbuf", "usb-bridge-noflush", "noisy-512n",
	};
	struct ap_emu_spec s, t;
	struct ap_error e;
	char *str, *str2;
	size_t i;

	(void)state;
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("hdd-7200", &s, &e), 0);
	assert_string_equal(s.profile, "hdd-7200");
	assert_int_equal(s.model, AP_EMU_MODEL_HDD);
	assert_int_equal(s.phys_sector, 4096);
	assert_int_equal(s.lowest_aligned, 0);
	assert_int_equal(s.logical_sector, 512);
	assert_int_equal(s.rpm, 7200);
	assert_true(s.write_cache);
	assert_true(s.capacity == 1ULL << 30);
	/* overrides after the name; size, seed, faults before it survive */
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("size=4G,seed=5,fail=9+1,jitter=30%,phys=8K,"
					   "profile=hdd-7200,rpm=10000,cache=off", &s, &e), 0);
	assert_true(s.capacity == 4ULL << 30);
	assert_int_equal(s.seed, 5);
	assert_int_equal(s.fail_lba, 9);
	assert_true(s.jitter == 0);		/* the profile's */
	assert_int_equal(s.phys_sector, 4096);	/* the profile's */
	assert_int_equal(s.rpm, 10000);
	assert_false(s.write_cache);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("hdd-7200,size=2G,seed=3", &s, &e), 0);
	assert_true(s.capacity == 2ULL << 30);
	assert_int_equal(s.seed, 3);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("wd-ears-jumper", &s, &e), 0);
	assert_int_equal(s.lowest_aligned, 7);
	assert_int_equal(s.rpm, 5400);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("usb-4kn", &s, &e), 0);
	assert_int_equal(s.logical_sector, 4096);
	assert_int_equal(s.phys_sector, 4096);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("usb-4kn,size=1049088", &s, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "4096"));
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("usb-4kn,lba=1", &s, &e), -EINVAL);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("honest-512n", &s, &e), 0);
	assert_int_equal(s.phys_sector, 512);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("flash-16k", &s, &e), 0);
	assert_int_equal(s.model, AP_EMU_MODEL_FLASH);
	assert_int_equal(s.phys_sector, 16384);
	/* the long option of emulate --attach */
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_set(&s, "profile", "flash-8k", &e), 0);
	assert_int_equal(s.phys_sector, 8192);
	/* emulate --attach's options: keys or aliases of the key table, each once */
	{
		static const char *const opts[] = {
			"size", "phys", "lowest-aligned", "lba", "rmw-cost", "base-cost", "jitter",
			"seed", "write-cache", "fail-lba", "fail-count", "fail-after", "image",
			"flush-cost", "profile", "logical", "drive-model",
		};
		size_t k, n = 0;

		while (ap_emu_spec_option(n))
			n++;
		assert_int_equal(n, AP_ARRAY_SIZE(opts));
		for (k = 0; k < AP_ARRAY_SIZE(opts); k++) {
			bool found = false;

			for (i = 0; i < n; i++)
				found |= strcmp(ap_emu_spec_option(i), opts[k]) == 0;
			assert_true(found);
		}
	}

	/* every profile: the format names it and round-trips */
	for (i = 0; i < AP_ARRAY_SIZE(names); i++) {
		char want[48];

		assert_non_null(ap_emu_profile_spec(names[i]));
		assert_non_null(strstr(ap_emu_profile_names(), names[i]));
		ap_emu_spec_init(&s);
		assert_int_equal(ap_emu_spec_parse(names[i], &s, &e), 0);
		str = ap_emu_spec_format(&s);
		snprintf(want, sizeof(want), "profile=%s,", names[i]);
		assert_true(strncmp(str, want, strlen(want)) == 0);
		ap_emu_spec_init(&t);
		assert_int_equal(ap_emu_spec_parse(str, &t, &e), 0);
		str2 = ap_emu_spec_format(&t);
		assert_string_equal(str, str2);
		assert_int_equal(s.model, t.model);
		assert_int_equal(s.phys_sector, t.phys_sector);
		assert_int_equal(s.logical_sector, t.logical_sector);
		assert_int_equal(s.rpm, t.rpm);
		assert_true(s.disk_size == t.disk_size && s.track == t.track);
		assert_true(s.settle_ns == t.settle_ns && s.seek_ns == t.seek_ns);
		assert_true(s.knee == t.knee && s.jitter == t.jitter);
		assert_true(s.cache_size == t.cache_size && s.bus_rate == t.bus_rate);
		assert_true(s.write_cache == t.write_cache);
		free(str);
		free(str2);
	}
	/* with overrides: still round-trips, overrides included */
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("hdd-7200,size=2G,seed=3,rpm=5400,track=2M,settle=800us,"
					   "seek=18ms,knee=25%,cache-size=8M,bus=150MB,lba=3,"
					   "fail=10+2", &s, &e), 0);
	str = ap_emu_spec_format(&s);
	assert_string_equal(str, "profile=hdd-7200,size=2147483648,phys=4096,lba=3,rmw=8ms,base=50us,"
			    "jitter=0%,seed=3,cache=on,flush=0,model=hdd,rpm=5400,disk=2000398934016,"
			    "track=2097152,settle=800us,seek=18ms,knee=25%,cache-size=8388608,"
			    "bus=150000000,fail=10+2,fail-rw=rw");
	assert_round_trip(str);
	/* a profile whose model was overridden back to simple keeps saying so */
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("hdd-7200,model=simple", &s, &e), 0);
	str = ap_emu_spec_format(&s);
	ap_emu_spec_init(&t);
	assert_int_equal(ap_emu_spec_parse(str, &t, &e), 0);
	assert_int_equal(t.model, AP_EMU_MODEL_SIMPLE);
	free(str);

	/* bad names and values: -EINVAL with a clear message */
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("hdd-9000", &s, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "'hdd-9000'"));
	assert_non_null(strstr(e.msg, "hdd-7200"));
	assert_non_null(strstr(e.msg, "honest-512n"));
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("profile=hdd-9000", &s, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "unknown drive profile 'hdd-9000'"));
	assert_non_null(strstr(e.msg, "flash-8k"));
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_set(&s, "profile", "", &e), -EINVAL);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("model=ssd", &s, &e), -EINVAL);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("logical=8192", &s, &e), -EINVAL);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("logical=4096,phys=512", &s, &e), -EINVAL);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("rpm=0", &s, &e), -EINVAL);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("knee=100%", &s, &e), -EINVAL);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("settle=20ms,seek=10ms", &s, &e), -EINVAL);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("track=100", &s, &e), -EINVAL);
}

static void test_shm(void **state)
{
	struct ap_emu_shm shm;
	struct ap_emu_counters_raw c;

	(void)state;
	memset(&shm, 0, sizeof(shm));
	shm.live.writes = 10;
	shm.live.rmw = 7;
	shm.live.busy_ns = 1000;
	ap_emu_shm_read(&shm, &c);
	assert_int_equal(c.writes, 10);
	assert_int_equal(c.rmw, 7);
	/* a reset stores the live values as the base: counting restarts at 0 */
	shm.base = shm.live;
	shm.live.writes = 12;
	shm.seq = 2;
	ap_emu_shm_read(&shm, &c);
	assert_int_equal(c.writes, 2);
	assert_int_equal(c.rmw, 0);
	assert_int_equal(c.busy_ns, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_partial),
		cmocka_unit_test(test_costs),
		cmocka_unit_test(test_jitter),
		cmocka_unit_test(test_jitter_sequence),
		cmocka_unit_test(test_faults),
		cmocka_unit_test(test_spec),
		cmocka_unit_test(test_hdd_revolution),
		cmocka_unit_test(test_hdd_seek),
		cmocka_unit_test(test_hdd_rotation),
		cmocka_unit_test(test_hdd_merge),
		cmocka_unit_test(test_hdd_destage_order),
		cmocka_unit_test(test_hdd_cache_full),
		cmocka_unit_test(test_flash),
		cmocka_unit_test(test_simple_profile),
		cmocka_unit_test(test_profiles),
		cmocka_unit_test(test_shm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
