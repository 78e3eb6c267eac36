// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * MT19937 as in Matsumoto and Nishimura's 1999 integer version (the one
 * PostMark 1.5 embeds), written from the algorithm's description: the
 * recurrence over 624 words with twist matrix 0x9908b0df, and the old
 * sgenrand() seeding that PostMark calls.
 */
#include "workload/pm_rng.h"

#define MT_M		397
#define MATRIX_A	0x9908b0dfU
#define UPPER_MASK	0x80000000U
#define LOWER_MASK	0x7fffffffU

void ap_pm_rng_seed(struct ap_pm_rng *r, uint64_t seed)
{
	uint32_t s = (uint32_t)seed;
	unsigned int i;

	for (i = 0; i < AP_PM_MT_N; i++) {
		r->mt[i] = s & 0xffff0000U;
		s = 69069U * s + 1U;
		r->mt[i] |= (s & 0xffff0000U) >> 16;
		s = 69069U * s + 1U;
	}
	r->mti = AP_PM_MT_N;
}

static inline uint32_t mt_mix(uint32_t a, uint32_t b, uint32_t c)
{
	uint32_t y = (a & UPPER_MASK) | (b & LOWER_MASK);

	return c ^ (y >> 1) ^ ((y & 1U) ? MATRIX_A : 0U);
}

void ap_pm_rng_twist(struct ap_pm_rng *r)
{
	uint32_t *mt = r->mt;
	unsigned int k;

	for (k = 0; k < AP_PM_MT_N - MT_M; k++)
		mt[k] = mt_mix(mt[k], mt[k + 1], mt[k + MT_M]);
	for (; k < AP_PM_MT_N - 1; k++)
		mt[k] = mt_mix(mt[k], mt[k + 1], mt[k + MT_M - AP_PM_MT_N]);
	mt[AP_PM_MT_N - 1] = mt_mix(mt[AP_PM_MT_N - 1], mt[0], mt[MT_M - 1]);
	r->mti = 0;
}
