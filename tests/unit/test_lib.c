// SPDX-License-Identifier: GPL-2.0-or-later
/* src/lib: the seeded generators (rng.c) and the order statistics (stats.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lib/align.h"
#include "lib/rng.h"
#include "lib/stats.h"

static void test_splitmix64(void **state)
{
	uint64_t x = 0;

	(void)state;
	/* the reference implementation's first outputs from seed 0 */
	assert_true(ap_splitmix64(&x) == 0xe220a8397b1dcdafULL);
	assert_true(ap_splitmix64(&x) == 0x6e789e6aa1b965f4ULL);
}

static void test_below(void **state)
{
	struct ap_rng r;
	unsigned hist[3] = { 0 };
	int i;

	(void)state;
	ap_rng_seed(&r, 99);
	assert_int_equal(ap_rng_below(&r, 0), 0);
	assert_int_equal(ap_rng_below(&r, 1), 0);
	for (i = 0; i < 3000; i++) {
		uint64_t x = ap_rng_below(&r, 3);

		assert_true(x < 3);
		hist[x]++;
	}
	for (i = 0; i < 3; i++)
		assert_true(hist[i] > 800 && hist[i] < 1200);
}

static void test_shuffle(void **state)
{
	enum { N = 60 };
	size_t a[N], b[N], seen[N];
	uint32_t c[N];
	struct ap_rng r1, r2;
	size_t i, moved = 0;

	(void)state;
	for (i = 0; i < N; i++)
		a[i] = b[i] = c[i] = (uint32_t)i;
	ap_rng_seed(&r1, 1);
	ap_rng_seed(&r2, 1);
	ap_rng_shuffle(&r1, a, N, sizeof(*a));
	ap_rng_shuffle(&r2, b, N, sizeof(*b));
	assert_memory_equal(a, b, sizeof(a));	/* seeded: reproducible */
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < N; i++) {
		assert_true(a[i] < N);
		seen[a[i]]++;
		moved += a[i] != i;
	}
	for (i = 0; i < N; i++)
		assert_int_equal(seen[i], 1);	/* a permutation */
	assert_true(moved > N / 2);		/* really shuffled */
	/* the same draws move elements of any size the same way */
	ap_rng_seed(&r1, 1);
	ap_rng_shuffle(&r1, c, N, sizeof(*c));
	for (i = 0; i < N; i++)
		assert_int_equal(c[i], a[i]);
	for (i = 0; i < N; i++)
		b[i] = i;
	ap_rng_seed(&r2, 2);
	ap_rng_shuffle(&r2, b, N, sizeof(*b));
	assert_memory_not_equal(a, b, sizeof(a));
	ap_rng_shuffle(&r1, a, 0, sizeof(*a));
	ap_rng_shuffle(&r1, a, 1, sizeof(*a));
}

static void test_xoshiro(void **state)
{
	uint64_t s[4] = { 1, 2, 3, 4 }, t[4];

	(void)state;
	/* xoshiro256** from the state {1, 2, 3, 4}: the reference's first outputs */
	assert_true(ap_xoshiro_next(s) == 11520ULL);
	assert_true(ap_xoshiro_next(s) == 0ULL);
	assert_true(ap_xoshiro_next(s) == 1509978240ULL);
	ap_xoshiro_seed(s, 7);
	ap_xoshiro_seed(t, 7);
	assert_true(ap_xoshiro_next(s) == ap_xoshiro_next(t));
}

static void test_median(void **state)
{
	double a[] = { 3, 1, 2 };
	double b[] = { 4, 1, 3, 2 };

	(void)state;
	assert_true(ap_stats_median(a, 3) == 2);
	assert_true(ap_stats_median(b, 4) == 2.5);
	assert_true(isnan(ap_stats_median(b, 0)));
}

/* Nanosecond counts: the lower middle's floor, no overflow near 2^64. */
static void test_median_u64(void **state)
{
	uint64_t a[] = { 30, 10, 20 };
	uint64_t b[] = { 9, 2, 7, 4 };
	uint64_t c[] = { UINT64_MAX, UINT64_MAX - 2 };

	(void)state;
	assert_int_equal(ap_stats_median_u64(a, 3), 20);
	assert_int_equal(a[0], 10);			/* sorted */
	assert_int_equal(ap_stats_median_u64(b, 4), 5);	/* (4 + 7) / 2 */
	assert_true(ap_stats_median_u64(c, 2) == UINT64_MAX - 1);
	assert_int_equal(ap_stats_median_u64(c, 0), 0);
}

static void test_align_sectors(void **state)
{
	(void)state;
	/* in sectors (logical = 1): a period of 8 starting at LBA 0 or 7 */
	assert_true(ap_align_is_aligned(40, 1, 8, 0));
	assert_false(ap_align_is_aligned(34, 1, 8, 0));
	assert_true(ap_align_is_aligned(63, 1, 8, 7));
	assert_int_equal(ap_align_next(34, 1, 8, 0), 40);
	assert_int_equal(ap_align_next(40, 1, 8, 0), 40);
	assert_int_equal(ap_align_next(34, 1, 8, 7), 39);
	assert_int_equal(ap_align_next(2048, 1, 8, 7), 2055);
	/* in bytes: 4096-byte units over 512-byte sectors, the same answers */
	assert_true(ap_align_is_aligned(40, 512, 4096, 0));
	assert_int_equal(ap_align_next(34, 512, 4096, 7), 39);
	assert_int_equal(ap_align_misalignment(41, 512, 4096, 0), 512);
	/* no boundary on a sector when the unit is no multiple of it */
	assert_true(ap_align_next(1, 512, 1000, 0) == UINT64_MAX);
	assert_false(ap_align_is_aligned(1, 1, 0, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_splitmix64),
		cmocka_unit_test(test_below),
		cmocka_unit_test(test_shuffle),
		cmocka_unit_test(test_xoshiro),
		cmocka_unit_test(test_median),
		cmocka_unit_test(test_median_u64),
		cmocka_unit_test(test_align_sectors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
