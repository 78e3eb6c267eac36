// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Can a power cut during one write explain what differs in a journal's
 * record (see journal.h, ap_journal_torn_explains())? A preserving probe
 * writes back the bytes it read, so before and after any of its writes a
 * slot holds the original bytes; only the write in flight at a cut can
 * leave anything else, and only in the physical sectors it covers partly:
 * those the drive was rewriting (read-modify-write). The drive's unit is
 * what the probe was measuring, so it is not known here: any power-of-two
 * unit from a logical sector up to the journal's margin (the largest
 * write size: the largest unit the probe identifies, the reach its
 * records are sized for), at any phase, will do, as long as one unit and
 * one phase explain every differing sector of the record.
 */
#include "probe/journal.h"

#include <string.h>

/* The physical sector of unit @p, phase @a, that @edge falls inside of (not on its start): 0 or 1. */
static int edge_sector(uint64_t edge, uint64_t p, uint64_t a, uint64_t *start)
{
	uint64_t r = (edge % p + p - a % p) % p;

	if (!r)
		return 0;	/* on a boundary: no partial sector there */
	*start = edge - r;
	return 1;
}

static int inside(uint64_t x, uint64_t len, uint64_t s, uint64_t p)
{
	return x >= s && x + len <= s + p;
}

bool ap_journal_torn_explains(const unsigned char *have, const unsigned char *want, size_t len,
			      uint64_t off, unsigned lss, const struct ap_journal_range *w,
			      uint64_t max_unit)
{
	uint64_t p, a, lo = UINT64_MAX, hi = 0;
	size_t i;

	if (!lss || !w->length || max_unit < lss)
		return false;
	/* the first and last differing sector: every one between must be explained too */
	for (i = 0; i + lss <= len; i += lss) {
		if (!memcmp(have + i, want + i, lss))
			continue;
		if (lo == UINT64_MAX)
			lo = off + i;
		hi = off + i + lss;
	}
	if (lo == UINT64_MAX)
		return true;	/* nothing differs */
	for (p = lss; p <= max_unit; p *= 2) {
		for (a = 0; a < p; a += lss) {
			uint64_t s1 = 0, s2 = 0, x;
			int e1 = edge_sector(w->offset, p, a, &s1);
			int e2 = edge_sector(w->offset + w->length, p, a, &s2);
			bool ok = e1 || e2;

			/* at most two sectors: check the differing ones only */
			for (x = lo; ok && x < hi; x += lss) {
				if (!memcmp(have + (x - off), want + (x - off), lss))
					continue;
				ok = (e1 && inside(x, lss, s1, p)) || (e2 && inside(x, lss, s2, p));
			}
			if (ok)
				return true;
		}
	}
	return false;
}
