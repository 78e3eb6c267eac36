/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Is a position aligned to a unit whose boundaries start at an offset (the
 * lowest aligned LBA)? The tool's core arithmetic, in one place: check's
 * geometry (bytes: @logical is the logical sector size), and the verdicts'
 * recommendations, notes and plots (sectors: @logical = 1, @unit the period
 * in sectors, @lowest_aligned_lba its phase). Pure; 128-bit intermediate
 * products, so no overflow for any 64-bit LBA.
 */
#ifndef AP_LIB_ALIGN_H
#define AP_LIB_ALIGN_H

#include <stdbool.h>
#include <stdint.h>

/* (lba * logical - lowest * logical) mod unit == 0; false when unit or logical is 0. */
bool ap_align_is_aligned(uint64_t lba, unsigned logical, uint64_t unit,
			 uint64_t lowest_aligned_lba);
/* Bytes past the last aligned boundary at or before @lba (0 when aligned). */
uint64_t ap_align_misalignment(uint64_t lba, unsigned logical, uint64_t unit,
			       uint64_t lowest_aligned_lba);
/* The first aligned LBA >= @lba; UINT64_MAX when @unit is not a multiple of
 * @logical (no sector boundary is ever aligned) or on overflow. */
uint64_t ap_align_next(uint64_t lba, unsigned logical, uint64_t unit,
		       uint64_t lowest_aligned_lba);
/* A size of @nsectors logical sectors is a whole number of units. */
bool ap_align_size_is_aligned(uint64_t nsectors, unsigned logical, uint64_t unit);

#endif
