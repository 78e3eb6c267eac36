// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The band size's pure parts (smr.h, "band.c"; the deep test's third
 * figure). A drive-managed SMR disk cleans its persistent cache band by
 * band: the band read and rewritten whole (Skylight, FAST '15). Two
 * writes into one band leave one band to clean, into two bands two: the
 * band size is where that changes, found by timing alone:
 * - the idle delay (struct ap_smr_delay): the shortest idle after which
 *   a probe finds the drive cleaning (it waits for the band in hand);
 * - one pair (ap_smr_pair_classify): two writes @d apart, then probes an
 *   idle delay apart: the first waits for one band's cleaning, the second
 *   for another only when the two writes fell in two bands;
 * - a boundary (struct ap_smr_boundary): the smallest distance from a
 *   place at which a pair falls in two bands, doubled then bisected to
 *   AP_SMR_BAND_STEP; the band is the distance between two boundaries
 *   found one after the other (ap_smr_band_estimate).
 * No I/O: unit tested on a synthetic drive with noise
 * (tests/unit/test_smr.c); deep.c does the writes.
 */
#include "smr/smr.h"

#include <string.h>

void ap_smr_delay_init(struct ap_smr_delay *s, uint64_t fast_ns, uint64_t max_ns)
{
	memset(s, 0, sizeof(*s));
	s->fast_ns = fast_ns;
	s->max_ns = max_ns && 2 * max_ns < AP_SMR_DELAY_MAX ? 2 * max_ns : AP_SMR_DELAY_MAX;
	s->try_ns = AP_SMR_DELAY_FIRST;
}

void ap_smr_delay_step(struct ap_smr_delay *s, uint64_t idle_ns, uint64_t lat_ns)
{
	uint64_t back = s->fast_ns + AP_SMR_DELAY_RES;

	if (lat_ns > s->fast_ns) {
		s->hi_ns = idle_ns;
		s->fast_n = 0;
	} else if (s->fast_n < AP_SMR_DELAY_CONFIRM && idle_ns > back) {
		/*
		 * A read in the last fast_ns of a band's cleaning waits only a
		 * little: one earlier by more than that would wait long. Fast
		 * there too, and once more earlier: before the cleaning.
		 */
		if (!s->fast_n++)
			s->fast_at = idle_ns;
		s->try_ns = idle_ns - back;
		return;
	} else {
		if (s->fast_n)
			idle_ns = s->fast_at;
		s->fast_n = 0;
		if (idle_ns > s->lo_ns)
			s->lo_ns = idle_ns;
	}
	if (s->hi_ns && s->lo_ns >= s->hi_ns)	/* noise: a slow probe earlier than a fast one */
		s->lo_ns = s->hi_ns > AP_SMR_DELAY_RES ? s->hi_ns - AP_SMR_DELAY_RES : 0;
	if (!s->hi_ns) {
		s->try_ns = idle_ns * 5 / 4;
		if (s->try_ns > s->max_ns)
			s->failed = true;
		return;
	}
	if (s->hi_ns - s->lo_ns <= AP_SMR_DELAY_RES) {
		s->done = true;
		s->try_ns = s->hi_ns;
		return;
	}
	s->try_ns = s->lo_ns + (s->hi_ns - s->lo_ns) / 2;
}

int ap_smr_pair_classify(uint64_t fast_ns, uint64_t first_ns, uint64_t second_ns)
{
	uint64_t limit = first_ns / 4;

	if (first_ns <= fast_ns)
		return AP_SMR_PAIR_MISSED;
	if (first_ns < AP_SMR_PAIR_SHORT_FACTOR * fast_ns)
		return AP_SMR_PAIR_SHORT;
	if (limit < fast_ns)
		limit = fast_ns;
	return second_ns > limit ? AP_SMR_PAIR_TWO : AP_SMR_PAIR_ONE;
}

void ap_smr_boundary_init(struct ap_smr_boundary *b, uint64_t from, uint64_t max)
{
	memset(b, 0, sizeof(*b));
	b->from = from;
	b->max = max;
	b->next = AP_SMR_BAND_STEP;
}

void ap_smr_boundary_step(struct ap_smr_boundary *b, uint64_t d, bool same)
{
	if (same) {
		if (d > b->lo)
			b->lo = d;
	} else if (!b->hi || d < b->hi) {
		b->hi = d;
	}
	if (b->hi && b->lo >= b->hi)	/* contradicting answers: start this interval again */
		b->lo = 0;
	if (!b->hi) {
		b->next = b->lo * 2;
		if (b->next > b->max)
			b->failed = true;
		return;
	}
	if (b->hi - b->lo <= AP_SMR_BAND_STEP) {
		b->done = true;
		return;
	}
	b->next = (b->lo + (b->hi - b->lo) / 2) / AP_SMR_BAND_STEP * AP_SMR_BAND_STEP;
	if (b->next <= b->lo)
		b->next = b->lo + AP_SMR_BAND_STEP;
}

/* a's boundary in (a->from + a->lo, a->from + a->hi]; b searched from a->from + a->hi */
bool ap_smr_band_estimate(const struct ap_smr_boundary *a, const struct ap_smr_boundary *b,
			  uint64_t *bytes, uint64_t *error)
{
	uint64_t lo = b->lo, hi = b->hi + (a->hi - a->lo);

	if (b->lo < AP_SMR_BAND_STEP)	/* no pair was ever one band past a boundary */
		return false;
	*bytes = lo + (hi - lo) / 2;
	*error = (hi - lo) / 2;
	return true;
}
