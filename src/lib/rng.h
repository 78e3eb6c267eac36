/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The project's one small seeded generator: splitmix64 (Steele, Lea,
 * Flood 2014), an unbiased draw below n, and a Fisher-Yates shuffle; and
 * xoshiro256** (Blackman, Vigna) for the emulated drive's jitter. Every
 * measurement order and every seeded model draws from here, so one seed
 * means one sequence everywhere. Not for cryptography. Pure, no I/O.
 */
#ifndef AP_LIB_RNG_H
#define AP_LIB_RNG_H

#include <stddef.h>
#include <stdint.h>

/* splitmix64: advance @x and return the next output. */
static inline uint64_t ap_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A splitmix64 generator. */
struct ap_rng {
	uint64_t s;
};

static inline void ap_rng_seed(struct ap_rng *r, uint64_t seed)
{
	r->s = seed;
}

static inline uint64_t ap_rng_next(struct ap_rng *r)
{
	return ap_splitmix64(&r->s);
}

/* Uniform in [0, @n) without modulo bias; 0 when @n <= 1. */
uint64_t ap_rng_below(struct ap_rng *r, uint64_t n);

/* Shuffle @n elements of @size bytes (at most 64) at @base (Fisher-Yates). */
void ap_rng_shuffle(struct ap_rng *r, void *base, size_t n, size_t size);

/* xoshiro256**: seed the four words from @seed through splitmix64. */
void ap_xoshiro_seed(uint64_t s[4], uint64_t seed);
uint64_t ap_xoshiro_next(uint64_t s[4]);

#endif
