// SPDX-License-Identifier: GPL-2.0-or-later
/* The workload's file table; see pm_slots.h. */
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "workload/pm_slots.h"

void ap_pm_slots_init(struct ap_pm_slots *t, uint64_t n)
{
	memset(t, 0, sizeof(*t));
	t->n = n;
	t->nwords = (n + 63) / 64;
	t->slot = ap_xcalloc((size_t)n, sizeof(*t->slot));
	t->freemap = ap_xmalloc((size_t)t->nwords * sizeof(*t->freemap));
	memset(t->freemap, 0xff, (size_t)t->nwords * sizeof(*t->freemap));
	if (n & 63)	/* bits past the end are never free */
		t->freemap[t->nwords - 1] = (1ULL << (n & 63)) - 1;
}

void ap_pm_slots_free(struct ap_pm_slots *t)
{
	free(t->slot);
	free(t->freemap);
	memset(t, 0, sizeof(*t));
}

static uint64_t lowest_free(struct ap_pm_slots *t)
{
	uint64_t w;

	for (w = t->low >> 6; w < t->nwords; w++) {
		if (t->freemap[w]) {
			t->low = (w << 6) + (uint64_t)__builtin_ctzll(t->freemap[w]);
			return t->low;
		}
	}
	t->low = t->n;
	return t->n;
}

int64_t ap_pm_slots_find_free(struct ap_pm_slots *t)
{
	uint64_t i;

	if (t->cursor < t->n && ap_pm_slots_is_free(t, t->cursor))
		return (int64_t)t->cursor++;
	i = lowest_free(t);
	if (i >= t->n)
		return -1;
	t->cursor = i + 1;
	return (int64_t)i;
}

void ap_pm_slots_take(struct ap_pm_slots *t, uint64_t i, uint32_t size)
{
	t->freemap[i >> 6] &= ~(1ULL << (i & 63));
	t->slot[i].size = size;
	t->live++;
}

void ap_pm_slots_release(struct ap_pm_slots *t, uint64_t i)
{
	t->freemap[i >> 6] |= 1ULL << (i & 63);
	t->slot[i].size = 0;
	t->live--;
	if (i < t->low)
		t->low = i;
}

uint64_t ap_pm_slots_find_used(const struct ap_pm_slots *t, struct ap_pm_rng *rng)
{
	uint64_t i;

	do
		i = ap_pm_rnd(rng, t->n);
	while (!t->slot[i].size);
	return i;
}

uint64_t ap_pm_slots_next_live(const struct ap_pm_slots *t, uint64_t from)
{
	uint64_t w = from >> 6, used;

	if (from >= t->n)
		return t->n;
	used = ~t->freemap[w] & (~0ULL << (from & 63));
	for (;;) {
		if (used) {
			uint64_t i = (w << 6) + (uint64_t)__builtin_ctzll(used);

			return i < t->n ? i : t->n;
		}
		if (++w >= t->nwords)
			return t->n;
		used = ~t->freemap[w];
	}
}
