// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The deep test's pure parts (smr.h, "cliff.c"): the cliff in a sequence
 * of write latencies, where a persistent media cache is full, and the
 * schedule and decision of the idle probes that follow it. No I/O: unit
 * tested on synthetic latencies (tests/unit/test_smr.c).
 */
#include "smr/smr.h"

#include <stdlib.h>
#include <string.h>

#include "lib/stats.h"

/* The mean latency of windows [w, w + k). */
static uint64_t windows_mean(const uint64_t *lat, size_t w, size_t k)
{
	unsigned __int128 sum = 0;
	size_t i, from = w * AP_SMR_CLIFF_WINDOW, to = (w + k) * AP_SMR_CLIFF_WINDOW;

	for (i = from; i < to; i++)
		sum += lat[i];
	return (uint64_t)(sum / (to - from));
}

static uint64_t base_of(const uint64_t *lat)
{
	uint64_t m[AP_SMR_CLIFF_BASE];
	size_t w;

	for (w = 0; w < AP_SMR_CLIFF_BASE; w++)
		m[w] = windows_mean(lat, w, 1);
	qsort(m, AP_SMR_CLIFF_BASE, sizeof(*m), ap_stats_cmp_u64);
	return m[AP_SMR_CLIFF_BASE / 2];
}

bool ap_smr_cliff_find(const uint64_t *lat, size_t n, struct ap_smr_cliff *c)
{
	size_t windows = n / AP_SMR_CLIFF_WINDOW, w, i;
	uint64_t limit;

	if (c->found)
		return true;
	if (windows < AP_SMR_CLIFF_BASE)
		return false;
	if (!c->base_ns) {
		c->base_ns = base_of(lat);
		if (!c->base_ns)
			c->base_ns = 1;
		c->next = AP_SMR_CLIFF_BASE;
	}
	limit = c->base_ns * AP_SMR_CLIFF_FACTOR;
	for (w = c->next; w + AP_SMR_CLIFF_CONFIRM <= windows; w++) {
		c->next = w + 1;
		if (windows_mean(lat, w, 1) <= limit)
			continue;
		c->after_ns = windows_mean(lat, w, AP_SMR_CLIFF_CONFIRM);
		if (c->after_ns <= limit)
			continue;	/* one slow window: noise */
		/* the first write of the window over the limit: the first stall */
		for (i = w * AP_SMR_CLIFF_WINDOW; lat[i] <= limit; i++)
			;
		c->found = true;
		c->at = i;
		return true;
	}
	if (w < windows)
		c->next = w;	/* waits for its confirming windows */
	return false;
}

void ap_smr_idle_init(struct ap_smr_idle *s, uint64_t base_ns)
{
	memset(s, 0, sizeof(*s));
	s->fast_ns = base_ns * AP_SMR_CLIFF_FACTOR;
	s->interval_ns = AP_SMR_IDLE_FIRST;
}

bool ap_smr_idle_step(struct ap_smr_idle *s, uint64_t t_ns, uint64_t lat_ns)
{
	s->probes++;
	if (lat_ns > s->longest_ns)
		s->longest_ns = lat_ns;
	if (lat_ns > s->fast_ns) {
		if (!s->slow)
			s->first_slow_wait_ns = s->interval_ns;
		s->slow++;
		s->pending = false;
		s->last_slow_ns = t_ns;
		s->interval_ns = s->interval_ns * 3 / 2;
		if (s->interval_ns > AP_SMR_IDLE_MAX)
			s->interval_ns = AP_SMR_IDLE_MAX;
		return false;
	}
	if (s->pending) {
		s->clean = true;
		s->clean_ns = s->pending_at;
		return true;
	}
	/* confirm at the same interval: the drive idles as long as before */
	s->pending = true;
	s->pending_at = t_ns;
	return false;
}
