// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The alignment arithmetic (see align.h): the one copy, used by check's
 * geometry, the sweep's and the probe's recommendations, the analysis'
 * notes and the plots.
 */
#include "lib/align.h"

typedef unsigned __int128 u128;

/* (lba * logical - lowest * logical) mod unit, in [0, unit) */
static uint64_t mod_distance(uint64_t lba, unsigned logical, uint64_t unit, uint64_t lowest)
{
	u128 pos = (u128)lba * logical, off = (u128)lowest * logical;
	uint64_t a = (uint64_t)(pos % unit), b = (uint64_t)(off % unit);

	return a >= b ? a - b : unit - (b - a);
}

bool ap_align_is_aligned(uint64_t lba, unsigned logical, uint64_t unit,
			    uint64_t lowest_aligned_lba)
{
	if (!unit || !logical)
		return false;
	return mod_distance(lba, logical, unit, lowest_aligned_lba) == 0;
}

uint64_t ap_align_misalignment(uint64_t lba, unsigned logical, uint64_t unit,
				  uint64_t lowest_aligned_lba)
{
	if (!unit || !logical)
		return 0;
	return mod_distance(lba, logical, unit, lowest_aligned_lba);
}

uint64_t ap_align_next(uint64_t lba, unsigned logical, uint64_t unit,
				  uint64_t lowest_aligned_lba)
{
	uint64_t d, step;

	if (!unit || !logical || unit % logical)
		return UINT64_MAX;
	d = mod_distance(lba, logical, unit, lowest_aligned_lba);
	if (d == 0)
		return lba;
	step = (unit - d) / logical;	/* d is a multiple of logical here */
	if (lba > UINT64_MAX - step)
		return UINT64_MAX;
	return lba + step;
}

bool ap_align_size_is_aligned(uint64_t nsectors, unsigned logical, uint64_t unit)
{
	if (!unit || !logical)
		return false;
	return ((u128)nsectors * logical) % unit == 0;
}
