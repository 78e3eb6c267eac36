// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/rng.h"
#include "workload/datagen.h"

/* The xoshiro256+ reference (prng.di.unimi.it/xoshiro256plus.c), one lane. */
struct ref {
	uint64_t s[4];
};

static uint64_t ref_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t ref_next(struct ref *r)
{
	uint64_t result = r->s[0] + r->s[3];
	uint64_t t = r->s[1] << 17;

	r->s[2] ^= r->s[0];
	r->s[3] ^= r->s[1];
	r->s[1] ^= r->s[2];
	r->s[0] ^= r->s[3];
	r->s[2] ^= t;
	r->s[3] = ref_rotl(r->s[3], 45);
	return result;
}

static uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static void test_splitmix(void **state)
{
	uint64_t x = 0;

	(void)state;
	/* the published first output of SplitMix64 seeded with 0 */
	assert_int_equal(ap_splitmix64(&x), 0xe220a8397b1dcdafULL);
}

static void test_known_output(void **state)
{
	struct ap_datagen g;
	unsigned char b[256];

	(void)state;
	ap_datagen_init(&g, AP_DATAGEN_RANDOM, 42);
	ap_datagen_fill(&g, b, sizeof(b));
	/* lane 0, outputs 1..3, and lane 1 output 1 for seed 42 */
	assert_int_equal(le64(b), 0x15f414253e365229ULL);
	assert_int_equal(le64(b + 64), 0x4f771f08f4211387ULL);
	assert_int_equal(le64(b + 128), 0x100492bd8828891eULL);
	assert_int_equal(le64(b + 8), 0xd6b28e48c2e65396ULL);
}

/* Every lane is the reference generator seeded as documented. */
static void test_matches_reference(void **state)
{
	enum { STEPS = 1000 };
	struct ap_datagen g;
	struct ref r[AP_DATAGEN_LANES];
	unsigned char *b = malloc(STEPS * AP_DATAGEN_BLOCK);
	uint64_t x = 0xdeadbeef;
	unsigned lane, i, k;

	(void)state;
	assert_non_null(b);
	for (lane = 0; lane < AP_DATAGEN_LANES; lane++)
		for (k = 0; k < 4; k++)
			r[lane].s[k] = ap_splitmix64(&x);
	ap_datagen_init(&g, AP_DATAGEN_RANDOM, 0xdeadbeef);
	ap_datagen_fill(&g, b, STEPS * AP_DATAGEN_BLOCK);
	for (i = 0; i < STEPS; i++)
		for (lane = 0; lane < AP_DATAGEN_LANES; lane++)
			assert_int_equal(le64(b + (size_t)i * AP_DATAGEN_BLOCK + lane * 8),
					 ref_next(&r[lane]));
	assert_int_equal(g.produced, STEPS * AP_DATAGEN_BLOCK);
	free(b);
}

/* Odd-sized fills at odd offsets give exactly the one-shot stream. */
static void test_chunking(void **state)
{
	enum { LEN = 1 << 16 };
	static const size_t chunks[] = { 1, 7, 63, 64, 65, 3, 4096, 129, 0, 5000, 1 };
	struct ap_datagen a, c;
	unsigned char *one = malloc(LEN), *many = malloc(LEN);
	size_t off = 0, i = 0, n;

	(void)state;
	assert_non_null(one);
	assert_non_null(many);
	ap_datagen_init(&a, AP_DATAGEN_RANDOM, 7);
	ap_datagen_fill(&a, one, LEN);
	ap_datagen_init(&c, AP_DATAGEN_RANDOM, 7);
	while (off < LEN) {
		n = chunks[i++ % (sizeof(chunks) / sizeof(chunks[0]))];
		if (n > LEN - off)
			n = LEN - off;
		ap_datagen_fill(&c, many + off, n);
		off += n;
	}
	assert_memory_equal(one, many, LEN);
	free(one);
	free(many);
}

/*
 * Consecutive buffers never repeat: no 64-bit word of a 1 MiB buffer
 * (generated in 4 KiB pieces, the way a writer asks) appears twice, and
 * each 4 KiB piece differs from the one before it.
 */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_no_repeats(void **state)
{
	enum { PIECE = 4096, N = 256 };
	struct ap_datagen g;
	unsigned char *b = malloc((size_t)PIECE * N);
	uint64_t *w = malloc((size_t)PIECE * N);
	size_t i, nw = (size_t)PIECE * N / 8;

	(void)state;
	assert_non_null(b);
	assert_non_null(w);
	ap_datagen_init(&g, AP_DATAGEN_RANDOM, 1);
	for (i = 0; i < N; i++) {
		ap_datagen_fill(&g, b + i * PIECE, PIECE);
		if (i)
			assert_memory_not_equal(b + i * PIECE, b + (i - 1) * PIECE, PIECE);
	}
	for (i = 0; i < nw; i++)
		w[i] = le64(b + i * 8);
	qsort(w, nw, sizeof(*w), cmp_u64);
	for (i = 1; i < nw; i++)
		assert_true(w[i] != w[i - 1]);
	free(b);
	free(w);
}

static void test_seeds_differ(void **state)
{
	struct ap_datagen a, b;
	unsigned char x[512], y[512];

	(void)state;
	ap_datagen_init(&a, AP_DATAGEN_RANDOM, 1);
	ap_datagen_init(&b, AP_DATAGEN_RANDOM, 2);
	ap_datagen_fill(&a, x, sizeof(x));
	ap_datagen_fill(&b, y, sizeof(y));
	assert_memory_not_equal(x, y, sizeof(x));
	/* same seed, same bytes */
	ap_datagen_init(&b, AP_DATAGEN_RANDOM, 1);
	ap_datagen_fill(&b, y, sizeof(y));
	assert_memory_equal(x, y, sizeof(x));
}

/* Roughly balanced bits: a broken scrambler (all zero, stuck lane) fails. */
static void test_bit_balance(void **state)
{
	enum { LEN = 1 << 16 };
	struct ap_datagen g;
	unsigned char *b = malloc(LEN);
	uint64_t ones = 0;
	size_t i;

	(void)state;
	assert_non_null(b);
	ap_datagen_init(&g, AP_DATAGEN_RANDOM, 99);
	ap_datagen_fill(&g, b, LEN);
	for (i = 0; i < LEN; i++)
		ones += (uint64_t)__builtin_popcount(b[i]);
	/* expected LEN*4 = 262144, sd = 362: +-5000 is > 13 sd */
	assert_in_range(ones, LEN * 4 - 5000, LEN * 4 + 5000);
	free(b);
}

static void test_zero(void **state)
{
	struct ap_datagen g;
	unsigned char b[1000], z[1000];

	(void)state;
	memset(b, 0xaa, sizeof(b));
	memset(z, 0, sizeof(z));
	ap_datagen_init(&g, AP_DATAGEN_ZERO, 5);
	ap_datagen_fill(&g, b, 13);
	ap_datagen_fill(&g, b + 13, sizeof(b) - 13);
	assert_memory_equal(b, z, sizeof(b));
	assert_int_equal(g.produced, sizeof(b));
}

static void test_kind_parse(void **state)
{
	enum ap_datagen_kind k;

	(void)state;
	assert_int_equal(ap_datagen_kind_parse("random", &k), 0);
	assert_int_equal(k, AP_DATAGEN_RANDOM);
	assert_int_equal(ap_datagen_kind_parse("zero", &k), 0);
	assert_int_equal(k, AP_DATAGEN_ZERO);
	assert_int_equal(ap_datagen_kind_parse("zeros", &k), 0);
	assert_int_equal(k, AP_DATAGEN_ZERO);
	assert_int_equal(ap_datagen_kind_parse("urandom", &k), -EINVAL);
	assert_int_equal(ap_datagen_kind_parse("", &k), -EINVAL);
	assert_string_equal(ap_datagen_kind_name(AP_DATAGEN_ZERO), "zero");
	assert_string_equal(ap_datagen_kind_name(AP_DATAGEN_RANDOM), "random");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_splitmix),
		cmocka_unit_test(test_known_output),
		cmocka_unit_test(test_matches_reference),
		cmocka_unit_test(test_chunking),
		cmocka_unit_test(test_no_repeats),
		cmocka_unit_test(test_seeds_differ),
		cmocka_unit_test(test_bit_balance),
		cmocka_unit_test(test_zero),
		cmocka_unit_test(test_kind_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
