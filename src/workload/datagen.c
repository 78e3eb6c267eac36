// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fast pseudo-random data: xoshiro256+ (Blackman & Vigna, public domain
 * reference at https://prng.di.unimi.it/xoshiro256plus.c) run as eight
 * independent lanes in GCC vector types, so one step makes 64 bytes with
 * plain SIMD adds, xors and shifts. The "+" scrambler has weak low bits,
 * which does not matter for disk data and avoids 64-bit vector multiplies.
 */
#include <errno.h>
#include <string.h>

#include "workload/datagen.h"

#include "lib/rng.h"

typedef uint64_t ap_v8u64 __attribute__((vector_size(AP_DATAGEN_BLOCK)));

void ap_datagen_init(struct ap_datagen *g, enum ap_datagen_kind kind, uint64_t seed)
{
	uint64_t x = seed;
	unsigned lane, i;

	memset(g, 0, sizeof(*g));
	g->kind = kind;
	for (lane = 0; lane < AP_DATAGEN_LANES; lane++)
		for (i = 0; i < 4; i++)
			g->s[i][lane] = ap_splitmix64(&x);
	/* splitmix64 never yields four zeros in a row for a lane in practice,
	 * but an all-zero xoshiro state would stick at zero: guard anyway */
	for (lane = 0; lane < AP_DATAGEN_LANES; lane++)
		if (!(g->s[0][lane] | g->s[1][lane] | g->s[2][lane] | g->s[3][lane]))
			g->s[0][lane] = 1;
}

/*
 * The hot loop, compiled for several instruction sets and picked at load
 * time (glibc ifunc); "default" is plain x86-64 SSE2 or the generic
 * lowering on other architectures.
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
	!defined(__SANITIZE_ADDRESS__)
#define AP_DATAGEN_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define AP_DATAGEN_CLONES
#endif

AP_DATAGEN_CLONES
static void datagen_blocks(uint64_t (*st)[AP_DATAGEN_LANES], unsigned char *dst, size_t nblocks)
{
	ap_v8u64 s0, s1, s2, s3, t, out;
	size_t i;

	memcpy(&s0, st[0], sizeof(s0));
	memcpy(&s1, st[1], sizeof(s1));
	memcpy(&s2, st[2], sizeof(s2));
	memcpy(&s3, st[3], sizeof(s3));
	for (i = 0; i < nblocks; i++) {
		out = s0 + s3;
		t = s1 << 17;
		s2 ^= s0;
		s3 ^= s1;
		s1 ^= s2;
		s0 ^= s3;
		s2 ^= t;
		s3 = (s3 << 45) | (s3 >> 19);
		memcpy(dst + i * AP_DATAGEN_BLOCK, &out, sizeof(out));
	}
	memcpy(st[0], &s0, sizeof(s0));
	memcpy(st[1], &s1, sizeof(s1));
	memcpy(st[2], &s2, sizeof(s2));
	memcpy(st[3], &s3, sizeof(s3));
}

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
static void datagen_to_le(unsigned char *p, size_t nblocks)
{
	size_t i;

	for (i = 0; i < nblocks * AP_DATAGEN_BLOCK; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		w = __builtin_bswap64(w);
		memcpy(p + i, &w, 8);
	}
}
#else
static inline void datagen_to_le(unsigned char *p, size_t nblocks)
{
	(void)p;
	(void)nblocks;
}
#endif

void ap_datagen_fill(struct ap_datagen *g, void *buf, size_t len)
{
	unsigned char *p = buf;
	size_t n, nblocks;

	g->produced += len;
	if (g->kind == AP_DATAGEN_ZERO) {
		memset(buf, 0, len);
		return;
	}
	/* what the previous call left of its last block */
	n = len < g->nleft ? len : g->nleft;
	if (n) {
		memcpy(p, g->left + AP_DATAGEN_BLOCK - g->nleft, n);
		g->nleft -= n;
		p += n;
		len -= n;
	}
	nblocks = len / AP_DATAGEN_BLOCK;
	if (nblocks) {
		datagen_blocks(g->s, p, nblocks);
		datagen_to_le(p, nblocks);
		p += nblocks * AP_DATAGEN_BLOCK;
		len -= nblocks * AP_DATAGEN_BLOCK;
	}
	if (len) {
		datagen_blocks(g->s, g->left, 1);
		datagen_to_le(g->left, 1);
		memcpy(p, g->left, len);
		g->nleft = AP_DATAGEN_BLOCK - len;
	}
}

int ap_datagen_kind_parse(const char *s, enum ap_datagen_kind *out)
{
	if (!strcmp(s, "random")) {
		*out = AP_DATAGEN_RANDOM;
		return 0;
	}
	if (!strcmp(s, "zero") || !strcmp(s, "zeros")) {
		*out = AP_DATAGEN_ZERO;
		return 0;
	}
	return -EINVAL;
}

const char *ap_datagen_kind_name(enum ap_datagen_kind kind)
{
	return kind == AP_DATAGEN_ZERO ? "zero" : "random";
}
