/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The workload's file table: PostMark's 2N slots and its two selection
 * rules, with compact slots (16 bytes instead of an 81-byte name and an
 * int) and a bitmap of free slots so that "the first free slot from 0" is
 * found a word at a time. The choices are exactly PostMark's.
 */
#ifndef AP_PM_SLOTS_H
#define AP_PM_SLOTS_H

#include <stdbool.h>
#include <stdint.h>

#include "workload/pm_rng.h"

struct ap_pm_slot {
	uint64_t id;		/* the file's name: created counter at its create */
	uint32_t size;		/* current size, 0 = free slot */
	uint32_t dir;		/* location * nsub + subdirectory */
};

struct ap_pm_slots {
	struct ap_pm_slot *slot;
	uint64_t n;		/* 2N */
	uint64_t *freemap;	/* bit set: slot free */
	uint64_t nwords;
	uint64_t low;		/* no free slot below this index */
	uint64_t cursor;	/* PostMark's file_allocated */
	uint64_t live;
};

void ap_pm_slots_init(struct ap_pm_slots *t, uint64_t n);
void ap_pm_slots_free(struct ap_pm_slots *t);

static inline bool ap_pm_slots_is_free(const struct ap_pm_slots *t, uint64_t i)
{
	return t->freemap[i >> 6] & (1ULL << (i & 63));
}

/*
 * PostMark's find_free_file(): the slot at the cursor if it is free (the
 * cursor advances), else the first free slot from 0 (the cursor moves just
 * past it); -1 when the table is full. The slot is not taken yet.
 */
int64_t ap_pm_slots_find_free(struct ap_pm_slots *t);
/* Mark @i live with @size (> 0). */
void ap_pm_slots_take(struct ap_pm_slots *t, uint64_t i, uint32_t size);
/* Free @i. */
void ap_pm_slots_release(struct ap_pm_slots *t, uint64_t i);
/* PostMark's find_used_file(): RND(2N) until a live slot. At least one
 * slot must be live. */
uint64_t ap_pm_slots_find_used(const struct ap_pm_slots *t, struct ap_pm_rng *rng);
/* The first live slot at or after @from, or t->n. */
uint64_t ap_pm_slots_next_live(const struct ap_pm_slots *t, uint64_t from);

#endif
