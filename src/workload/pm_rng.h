/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * PostMark's random numbers: MT19937 (the 1999 integer version) with its
 * old seeding (sgenrand: two 69069 LCG steps per state word), not
 * init_genrand() and not C++ std::mt19937. RND(x) is a draw mod x, and for
 * x == 0 it is 0 without a draw, as PostMark's macro.
 */
#ifndef AP_PM_RNG_H
#define AP_PM_RNG_H

#include <stdint.h>

#define AP_PM_MT_N	624

struct ap_pm_rng {
	uint32_t mt[AP_PM_MT_N];
	unsigned int mti;
};

/* PostMark's sgenrand(): only the low 32 bits of @seed matter. */
void ap_pm_rng_seed(struct ap_pm_rng *r, uint64_t seed);
/* Refill the state (called by ap_pm_rng_next every 624 draws). */
void ap_pm_rng_twist(struct ap_pm_rng *r);

/* genrand(): the next tempered 32-bit draw. */
static inline uint32_t ap_pm_rng_next(struct ap_pm_rng *r)
{
	uint32_t y;

	if (r->mti >= AP_PM_MT_N)
		ap_pm_rng_twist(r);
	y = r->mt[r->mti++];
	y ^= y >> 11;
	y ^= (y << 7) & 0x9d2c5680U;
	y ^= (y << 15) & 0xefc60000U;
	y ^= y >> 18;
	return y;
}

/*
 * RND(x): PostMark's macro ((x > 0) ? genrand() % x : 0). In PostMark x is
 * a C int; here it is unsigned and 0 stands for every x <= 0 (callers
 * never pass a negative value: the cases where PostMark's x can be <= 0 are
 * an empty size range and a file already at the size limit).
 */
static inline uint64_t ap_pm_rnd(struct ap_pm_rng *r, uint64_t x)
{
	return x ? ap_pm_rng_next(r) % x : 0;
}

#endif
