// SPDX-License-Identifier: GPL-2.0-or-later
/* Log-linear latency histogram; see pm_hist.h. */
#include <math.h>
#include <string.h>

#include "workload/pm_hist.h"

void ap_pm_hist_init(struct ap_pm_hist *h)
{
	memset(h, 0, sizeof(*h));
}

unsigned int ap_pm_hist_bucket(uint64_t ns)
{
	unsigned int e;

	if (ns < AP_PM_HIST_SUB)
		return (unsigned int)ns;
	e = 63 - (unsigned int)__builtin_clzll(ns);	/* >= SUB_BITS */
	return AP_PM_HIST_SUB + (e - AP_PM_HIST_SUB_BITS) * AP_PM_HIST_SUB +
	       (unsigned int)((ns >> (e - AP_PM_HIST_SUB_BITS)) & (AP_PM_HIST_SUB - 1));
}

void ap_pm_hist_range(unsigned int bucket, uint64_t *lo, uint64_t *hi)
{
	unsigned int e, sub;

	if (bucket < AP_PM_HIST_SUB) {
		*lo = *hi = bucket;
		return;
	}
	e = (bucket - AP_PM_HIST_SUB) / AP_PM_HIST_SUB + AP_PM_HIST_SUB_BITS;
	sub = (bucket - AP_PM_HIST_SUB) % AP_PM_HIST_SUB;
	*lo = (1ULL << e) + ((uint64_t)sub << (e - AP_PM_HIST_SUB_BITS));
	*hi = *lo + (1ULL << (e - AP_PM_HIST_SUB_BITS)) - 1;
}

void ap_pm_hist_add(struct ap_pm_hist *h, uint64_t ns)
{
	if (!h->count || ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
	h->count++;
	h->sum += (double)ns;
	h->b[ap_pm_hist_bucket(ns)]++;
}

uint64_t ap_pm_hist_percentile(const struct ap_pm_hist *h, double p)
{
	uint64_t rank, seen = 0, lo, hi, v;
	unsigned int i;

	if (!h->count)
		return 0;
	if (p <= 0)
		return h->min;
	if (p >= 100)
		return h->max;
	rank = (uint64_t)ceil(p / 100.0 * (double)h->count);
	if (rank < 1)
		rank = 1;
	for (i = 0; i < AP_PM_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank)
			break;
	}
	if (i == AP_PM_HIST_BUCKETS)
		return h->max;
	ap_pm_hist_range(i, &lo, &hi);
	v = lo + (hi - lo) / 2;
	if (v < h->min)
		v = h->min;
	if (v > h->max)
		v = h->max;
	return v;
}

void ap_pm_hist_summary(const struct ap_pm_hist *h, struct ap_pm_latency *out)
{
	memset(out, 0, sizeof(*out));
	if (!h->count)
		return;
	out->count = h->count;
	out->min_ns = h->min;
	out->max_ns = h->max;
	out->mean_ns = h->sum / (double)h->count;
	out->p50_ns = ap_pm_hist_percentile(h, 50);
	out->p90_ns = ap_pm_hist_percentile(h, 90);
	out->p99_ns = ap_pm_hist_percentile(h, 99);
	out->p999_ns = ap_pm_hist_percentile(h, 99.9);
}
