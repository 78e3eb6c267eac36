// SPDX-License-Identifier: GPL-2.0-or-later
/* The emulated drive's cost/fault model and spec parser: pure functions. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emu/model.h"
#include "emu/priv.h"
#include "lib/util.h"

#define S 512ULL

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

static void model_for(struct ap_emu_model *m, const char *spec)
{
	struct ap_emu_spec s;
	struct ap_error e;

	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse(spec, &s, &e), 0);
	ap_emu_model_init(m, &s);
	ap_emu_spec_free(&s);
}

static void test_costs(void **state)
{
	struct ap_emu_model m;
	struct ap_emu_cost c;

	(void)state;
	model_for(&m, "phys=4096,rmw=8ms,base=100us");
	ap_emu_model_request(&m, AP_EMU_WRITE, 40 * S, 4096, 0, &c);
	assert_false(c.fail);
	assert_true(c.aligned);
	assert_int_equal(c.partial, 0);
	assert_int_equal(c.cost_ns, 100000);
	ap_emu_model_request(&m, AP_EMU_WRITE, 34 * S, 4096, 0, &c);
	assert_false(c.aligned);
	assert_int_equal(c.partial, 2);
	assert_int_equal(c.cost_ns, 100000 + 2 * 8000000);
	ap_emu_model_request(&m, AP_EMU_READ, 34 * S, 4096, 0, &c);
	assert_int_equal(c.cost_ns, 100000);
	ap_emu_model_request(&m, AP_EMU_FLUSH, 0, 0, 0, &c);
	assert_int_equal(c.cost_ns, 100000);	/* no cache: nothing pending */

	/* write cache: writes absorbed, the flush pays */
	model_for(&m, "phys=4096,rmw=1ms,base=10us,cache=on,flush=2ms");
	ap_emu_model_request(&m, AP_EMU_WRITE, 34 * S, 4096, 0, &c);
	assert_int_equal(c.partial, 2);
	assert_int_equal(c.cost_ns, 10000);
	ap_emu_model_request(&m, AP_EMU_WRITE, 1 * S, 512, 0, &c);
	assert_int_equal(c.cost_ns, 10000);
	ap_emu_model_request(&m, AP_EMU_FLUSH, 0, 0, 0, &c);
	assert_int_equal(c.cost_ns, 10000 + 2000000 + 3 * 1000000);
	ap_emu_model_request(&m, AP_EMU_FLUSH, 0, 0, 0, &c);
	assert_int_equal(c.cost_ns, 10000 + 2000000);

	/* 512: the same write costs nothing extra */
	model_for(&m, "phys=512,rmw=8ms");
	ap_emu_model_request(&m, AP_EMU_WRITE, 34 * S, 4096, 0, &c);
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
		ap_emu_model_request(&a, AP_EMU_READ, 0, 512, 0, &ca);
		ap_emu_model_request(&b, AP_EMU_READ, 0, 512, 0, &cb);
		ap_emu_model_request(&d, AP_EMU_READ, 0, 512, 0, &cd);
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

static void test_faults(void **state)
{
	struct ap_emu_model m;
	struct ap_emu_cost c;

	(void)state;
	model_for(&m, "fail=100+8,base=5us");
	ap_emu_model_request(&m, AP_EMU_WRITE, 92 * S, 4096, 0, &c);	/* 92..99 */
	assert_false(c.fail);
	ap_emu_model_request(&m, AP_EMU_WRITE, 93 * S, 4096, 0, &c);	/* 93..100 */
	assert_true(c.fail);
	assert_int_equal(c.cost_ns, 5000);
	ap_emu_model_request(&m, AP_EMU_READ, 107 * S, 512, 0, &c);
	assert_true(c.fail);
	ap_emu_model_request(&m, AP_EMU_READ, 108 * S, 512, 0, &c);
	assert_false(c.fail);
	ap_emu_model_request(&m, AP_EMU_FLUSH, 0, 0, 0, &c);
	assert_false(c.fail);

	model_for(&m, "fail=100+8,fail-rw=w");
	ap_emu_model_request(&m, AP_EMU_READ, 100 * S, 512, 0, &c);
	assert_false(c.fail);
	ap_emu_model_request(&m, AP_EMU_WRITE, 100 * S, 512, 0, &c);
	assert_true(c.fail);

	model_for(&m, "fail-after=3,fail-rw=r");
	ap_emu_model_request(&m, AP_EMU_READ, 0, 512, 2, &c);
	assert_false(c.fail);
	ap_emu_model_request(&m, AP_EMU_READ, 0, 512, 3, &c);
	assert_true(c.fail);
	ap_emu_model_request(&m, AP_EMU_WRITE, 0, 512, 3, &c);
	assert_false(c.fail);

	/* both: in the range, once N were served */
	model_for(&m, "fail=10+1,fail-after=2");
	ap_emu_model_request(&m, AP_EMU_WRITE, 10 * S, 512, 1, &c);
	assert_false(c.fail);
	ap_emu_model_request(&m, AP_EMU_WRITE, 10 * S, 512, 2, &c);
	assert_true(c.fail);
	ap_emu_model_request(&m, AP_EMU_WRITE, 11 * S, 512, 2, &c);
	assert_false(c.fail);

	/* a failed write leaves the cache's debt alone */
	model_for(&m, "fail=0+8,cache=on,rmw=1ms");
	ap_emu_model_request(&m, AP_EMU_WRITE, 1 * S, 512, 0, &c);
	assert_true(c.fail);
	ap_emu_model_request(&m, AP_EMU_FLUSH, 0, 0, 0, &c);
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
		cmocka_unit_test(test_faults),
		cmocka_unit_test(test_spec),
		cmocka_unit_test(test_shm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
