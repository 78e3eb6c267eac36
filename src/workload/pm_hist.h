/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Latency histogram of the workload: log-linear buckets (fio/HDR style),
 * exact below 64 ns and then 64 buckets per power of two, so a percentile
 * is within 1/64 of the true value. Fixed size, no allocation per sample.
 */
#ifndef AP_PM_HIST_H
#define AP_PM_HIST_H

#include <stdint.h>

#include "workload/pm.h"

#define AP_PM_HIST_SUB_BITS	6
#define AP_PM_HIST_SUB		(1U << AP_PM_HIST_SUB_BITS)
#define AP_PM_HIST_BUCKETS	(AP_PM_HIST_SUB + (64 - AP_PM_HIST_SUB_BITS) * AP_PM_HIST_SUB)

struct ap_pm_hist {
	uint64_t count, min, max;
	double sum;
	uint64_t b[AP_PM_HIST_BUCKETS];
};

void ap_pm_hist_init(struct ap_pm_hist *h);
void ap_pm_hist_add(struct ap_pm_hist *h, uint64_t ns);
/* Bucket index of @ns and the range [lo, hi] a bucket covers (tests). */
unsigned int ap_pm_hist_bucket(uint64_t ns);
void ap_pm_hist_range(unsigned int bucket, uint64_t *lo, uint64_t *hi);
/* Nearest-rank percentile (@p in [0, 100]): the middle of the bucket that
 * holds the sample of rank ceil(p/100 * count), clamped to [min, max]. */
uint64_t ap_pm_hist_percentile(const struct ap_pm_hist *h, double p);
void ap_pm_hist_summary(const struct ap_pm_hist *h, struct ap_pm_latency *out);

#endif
