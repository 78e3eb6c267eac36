/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Statistics over arrays of doubles, for the analysis and for every command
 * that summarises timings: order statistics, mid-ranks, rank tests. Pure
 * functions, no I/O, no allocation visible to the caller.
 */
#ifndef AP_LIB_STATS_H
#define AP_LIB_STATS_H

#include <stddef.h>
#include <stdint.h>

double ap_stats_median(double *v, size_t n);		/* sorts @v */
/* qsort() comparator of uint64_t values, ascending. */
int ap_stats_cmp_u64(const void *a, const void *b);
/* The median of @n nanosecond counts (0 when @n is 0); sorts @v. */
uint64_t ap_stats_median_u64(uint64_t *v, size_t n);
double ap_stats_quantile(double *v, size_t n, double q);	/* sorts @v */
/* The @q quantile of @v, sorted ascending already (NAN when @n is 0). */
double ap_stats_quantile_sorted(const double *v, size_t n, double q);
/*
 * A sorted window of values, for running medians: insert @x keeping @v
 * (*@n values, room for one more) ascending; remove a value equal to @x,
 * which must be there.
 */
void ap_stats_sorted_insert(double *v, size_t *n, double x);
void ap_stats_sorted_remove(double *v, size_t *n, double x);

/* A value with its group, ranked by ap_stats_assign_ranks(). */
struct ap_ranked {
	double v;
	size_t grp;
	double rank;
};
/* qsort() comparator of struct ap_ranked by value. */
int ap_stats_cmp_ranked(const void *a, const void *b);
/* Sort @r by value and assign mid-ranks (1-based). Returns sum(t^3 - t) over ties. */
double ap_stats_assign_ranks(struct ap_ranked *r, size_t n);

double ap_stats_mann_whitney_p(const double *fast, size_t nf,
			       const double *slow, size_t ns);	/* P(fast not < slow) */
/*
 * The same p-value of samples each sorted ascending, without sorting them
 * again (O(n)): for many tests of one set of values split in different ways.
 */
double ap_stats_mann_whitney_sorted_p(const double *fast, size_t nf,
				      const double *slow, size_t ns);
/* Kruskal-Wallis p-value: @group[i] in [0, @ngroups) names the group of @v[i]. */
double ap_stats_kruskal_wallis_p(const double *v, const size_t *group, size_t n,
				 size_t ngroups);
/* Upper tail of the chi-square distribution with @df degrees of freedom. */
double ap_stats_chi2_sf(double x, double df);

/* For humans: "3.2e-06", "0.217", "< 1e-300"; "99.9500%", "> 99.9999%" (never
 * rounded up to 100 %). Return @buf. */
const char *ap_stats_format_p(double p, char *buf, size_t len);
const char *ap_stats_format_confidence(double c, char *buf, size_t len);

#endif
