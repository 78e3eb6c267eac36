// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Seeded generators (see rng.h).
 */
#include "lib/rng.h"

#include <assert.h>
#include <string.h>

uint64_t ap_rng_below(struct ap_rng *r, uint64_t n)
{
	uint64_t lim, x;

	if (n <= 1)
		return 0;
	/* reject the top partial range: no modulo bias */
	lim = UINT64_MAX - UINT64_MAX % n;
	do
		x = ap_rng_next(r);
	while (x >= lim);
	return x % n;
}

void ap_rng_shuffle(struct ap_rng *r, void *base, size_t n, size_t size)
{
	unsigned char tmp[64], *a = base;
	size_t i;

	assert(size <= sizeof(tmp));
	for (i = n; i > 1; i--) {
		size_t j = (size_t)ap_rng_below(r, i);

		if (j == i - 1)
			continue;
		memcpy(tmp, a + (i - 1) * size, size);
		memcpy(a + (i - 1) * size, a + j * size, size);
		memcpy(a + j * size, tmp, size);
	}
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void ap_xoshiro_seed(uint64_t s[4], uint64_t seed)
{
	uint64_t x = seed;
	int i;

	for (i = 0; i < 4; i++)
		s[i] = ap_splitmix64(&x);
}

uint64_t ap_xoshiro_next(uint64_t s[4])
{
	uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}
