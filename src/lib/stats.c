// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Statistics over arrays (see stats.h): quantiles, ranks, the Mann-Whitney
 * and Kruskal-Wallis tests, the chi-square tail. Pure, no I/O.
 */
#include "lib/stats.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

#define AP_EXACT_WORK	5e5	/* steps an exact Mann-Whitney p may take, else normal */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double ap_stats_quantile(double *v, size_t n, double q)
{
	if (!v || n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return ap_stats_quantile_sorted(v, n, q);
}

double ap_stats_quantile_sorted(const double *v, size_t n, double q)
{
	double h, frac;
	size_t lo;

	if (!v || n == 0)
		return NAN;
	if (!(q > 0))
		return v[0];
	if (q >= 1)
		return v[n - 1];
	h = (double)(n - 1) * q;
	lo = (size_t)floor(h);
	frac = h - (double)lo;
	if (lo + 1 >= n)
		return v[n - 1];
	return v[lo] + frac * (v[lo + 1] - v[lo]);
}

void ap_stats_sorted_insert(double *v, size_t *n, double x)
{
	size_t i = *n;

	for (; i > 0 && v[i - 1] > x; i--)
		v[i] = v[i - 1];
	v[i] = x;
	(*n)++;
}

void ap_stats_sorted_remove(double *v, size_t *n, double x)
{
	size_t i = 0;

	while (i + 1 < *n && v[i] != x)
		i++;
	memmove(&v[i], &v[i + 1], (*n - i - 1) * sizeof(*v));
	(*n)--;
}

int ap_stats_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t ap_stats_median_u64(uint64_t *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), ap_stats_cmp_u64);
	return n % 2 ? v[n / 2] : v[n / 2 - 1] / 2 + v[n / 2] / 2 + (v[n / 2 - 1] & v[n / 2] & 1);
}

double ap_stats_median(double *v, size_t n)
{
	return ap_stats_quantile(v, n, 0.5);
}

int ap_stats_cmp_ranked(const void *a, const void *b)
{
	const struct ap_ranked *x = a, *y = b;

	return (x->v > y->v) - (x->v < y->v);
}

/* Mid-ranks of @r, sorted by value already; sum(t^3 - t) over the ties. */
static double ranks_of_sorted(struct ap_ranked *r, size_t n)
{
	double ties = 0;
	size_t i, j, k;

	for (i = 0; i < n; i = j) {
		double mid, t;

		for (j = i + 1; j < n && r[j].v == r[i].v; j++)
			;
		mid = ((double)(i + 1) + (double)j) / 2.0;
		for (k = i; k < j; k++)
			r[k].rank = mid;
		t = (double)(j - i);
		ties += t * t * t - t;
	}
	return ties;
}

double ap_stats_assign_ranks(struct ap_ranked *r, size_t n)
{
	qsort(r, n, sizeof(*r), ap_stats_cmp_ranked);
	return ranks_of_sorted(r, n);
}

/*
 * How many arrangements of m x-values and n y-values without ties have a
 * Mann-Whitney statistic (pairs x < y) of at most K: c(m, n, u) =
 * c(m - 1, n, u) + c(m, n - 1, u - m) (the largest value is an x, which
 * precedes no y, or a y, which all m x-values precede), for u <= K only.
 */
static double mw_count_le(size_t m, size_t n, size_t K)
{
	size_t w = K + 1, i, j, k;
	double *prev, *cur, sum = 0;

	/* the distribution is the same with the roles swapped: rows over the larger */
	if (n > m) {
		size_t t = m;

		m = n;
		n = t;
	}
	prev = ap_xcalloc((n + 1) * w, sizeof(*prev));
	cur = ap_xcalloc((n + 1) * w, sizeof(*cur));

	/* row i = 0: c(0, j, 0) = 1 */
	for (j = 0; j <= n; j++)
		prev[j * w] = 1;
	for (i = 1; i <= m; i++) {
		double *t;

		/*
		 * No clearing: row i writes every u <= min(i * j, K) of column
		 * j, and what lies beyond was written by no earlier row of this
		 * buffer (those wrote less), so it is still zero.
		 */
		cur[0] = 1;	/* c(i, 0, 0) */
		for (j = 1; j <= n; j++) {
			double *cj = cur + j * w, *cj1 = cur + (j - 1) * w, *pj = prev + j * w;
			size_t top = i * j < K ? i * j : K;

			for (k = 0; k <= top; k++)
				cj[k] = pj[k] + (k >= i ? cj1[k - i] : 0);
		}
		t = prev;
		prev = cur;
		cur = t;
	}
	for (k = 0; k < w; k++)
		sum += prev[n * w + k];
	free(prev);
	free(cur);
	return sum;
}

/*
 * Exact upper tail P(U >= u) without ties. By symmetry (U and m n - U have
 * one distribution) only the smaller side is counted, up to the observed
 * value: cheap for the small p-values that decide. -1 when that would take
 * more than @budget steps.
 */
static double mw_exact_upper(size_t m, size_t n, double u, double budget)
{
	size_t M = m * n, uk, i;
	double total = 1;

	if (u <= 0)
		return 1.0;
	uk = (size_t)ceil(u - 1e-9);
	if (uk > M)
		return 0.0;
	for (i = 0; i < n; i++)	/* C(m + n, n) */
		total = total * (double)(m + n - i) / (double)(i + 1);
	if (M - uk <= uk - 1) {
		/* #(U >= uk) = #(U <= M - uk) */
		if ((double)m * (double)n * (double)(M - uk + 1) > budget)
			return -1;
		return fmin(1.0, mw_count_le(m, n, M - uk) / total);
	}
	/* 1 - #(U <= uk - 1) */
	if ((double)m * (double)n * (double)uk > budget)
		return -1;
	return fmax(0.0, 1.0 - mw_count_le(m, n, uk - 1) / total);
}

/*
 * Exact P(U >= u) with ties: the permutation distribution of the rank sum
 * of the smaller group given the observed mid-ranks (doubled, so they are
 * integers). Counts the subsets of that size whose rank sum is at least as
 * extreme; only sums up to the observed one matter, which bounds the work.
 * Returns -1 when that work would exceed @budget steps.
 */
static double mw_exact_tied(const struct ap_ranked *r, size_t n, size_t nf, double budget)
{
	size_t ns = n - nf, m = nf <= ns ? nf : ns, i, j;
	unsigned grp = nf <= ns ? 0 : 1;
	long long *val = ap_xmalloc(n * sizeof(*val)), obs = 0, s, cap;
	double *cnt, total = 1, tail = 0;

	/* the smaller group's rank sum, oriented so that small = extreme
	 * (the fast group's ranks low, or the slow group's ranks high) */
	for (i = 0; i < n; i++) {
		long long r2 = (long long)llround(2 * r[i].rank);

		val[i] = grp == 0 ? r2 : 2 * (long long)(n + 1) - r2;
		if (r[i].grp == grp)
			obs += val[i];
	}
	cap = obs;
	if ((double)n * (double)m * (double)(cap + 1) > budget) {
		free(val);
		return -1;
	}
	/* cnt[j * (cap + 1) + s]: subsets of j values seen so far with sum s */
	cnt = ap_xcalloc((m + 1) * (size_t)(cap + 1), sizeof(*cnt));
	cnt[0] = 1;
	for (i = 0; i < n; i++) {
		for (j = i + 1 < m ? i + 1 : m; j >= 1; j--) {
			double *cj = cnt + j * (size_t)(cap + 1), *cj1 = cj - (cap + 1);

			for (s = cap; s >= val[i]; s--)
				cj[s] += cj1[s - val[i]];
		}
	}
	for (s = 0; s <= cap; s++)
		tail += cnt[m * (size_t)(cap + 1) + s];
	for (i = 0; i < m; i++)	/* C(n, m) */
		total = total * (double)(n - i) / (double)(i + 1);
	free(cnt);
	free(val);
	return total > 0 ? fmin(1.0, tail / total) : 1.0;
}

/* Are there too many ties for the untied distribution (below)? */
static bool mw_many_ties(double ties, size_t n)
{
	double nn = (double)n;

	return !(ties <= 0.01 * (nn * nn * nn - nn));
}

/*
 * The test from the fast group's rank sum @rf (nf of n = nf + ns values)
 * and the ties' sum(t^3 - t), @ties; @r, the pooled samples ranked, is
 * read only when the ties are many (mw_many_ties()).
 */
static double mw_p_sums(size_t nf, size_t ns, double rf, double ties, const struct ap_ranked *r)
{
	double u, mean, var, z, p, nn = (double)(nf + ns);

	/* U = pairs with fast < slow (ties count one half) */
	u = (double)nf * (double)ns - (rf - (double)nf * ((double)nf + 1) / 2.0);

	/*
	 * Exact where that is cheap: small samples, and the small p-values
	 * of large ones (the work grows with how far U is from its extreme).
	 * A few ties (timings in whole nanoseconds) barely change the
	 * distribution: use the untied one at U rounded down, which can only
	 * make the p-value larger. More ties (the drift correction makes
	 * some; quantized timings) get the exact distribution given the ties.
	 * Else the normal approximation.
	 */
	if (!mw_many_ties(ties, nf + ns))
		p = mw_exact_upper(nf, ns, floor(u), AP_EXACT_WORK);
	else
		p = mw_exact_tied(r, nf + ns, nf, AP_EXACT_WORK);
	if (p >= 0)
		return p;

	mean = (double)nf * (double)ns / 2.0;
	var = (double)nf * (double)ns / 12.0 * ((nn + 1) - ties / (nn * (nn - 1)));
	if (!(var > 0))
		return 1.0;
	z = (u - mean - 0.5) / sqrt(var);	/* continuity correction */
	p = 0.5 * erfc(z / M_SQRT2);
	if (p > 1)
		p = 1;
	return p;
}

double ap_stats_mann_whitney_p(const double *fast, size_t nf,
			       const double *slow, size_t ns)
{
	struct ap_ranked *r;
	size_t i, n = nf + ns;
	double ties, rf = 0, p;

	if (!fast || !slow || nf == 0 || ns == 0)
		return 1.0;
	r = ap_xmalloc(n * sizeof(*r));
	for (i = 0; i < nf; i++)
		r[i] = (struct ap_ranked){ .v = fast[i], .grp = 0 };
	for (i = 0; i < ns; i++)
		r[nf + i] = (struct ap_ranked){ .v = slow[i], .grp = 1 };
	ties = ap_stats_assign_ranks(r, n);
	for (i = 0; i < n; i++)
		if (r[i].grp == 0)
			rf += r[i].rank;
	p = mw_p_sums(nf, ns, rf, ties, r);
	free(r);
	return p;
}

/*
 * The fast group's rank sum and the ties' sum(t^3 - t) in one walk through
 * both sorted samples, without pooling them: each run of equal values
 * shares its mid-rank (halves: the sums are exact, as ranks_of_sorted()'s).
 * The ranked pool is built only for the exact distribution given many ties.
 */
double ap_stats_mann_whitney_sorted_p(const double *fast, size_t nf,
				      const double *slow, size_t ns)
{
	size_t i = 0, j = 0, pos = 0, n = nf + ns;
	double rf = 0, ties = 0, p;
	struct ap_ranked *r;

	if (!fast || !slow || nf == 0 || ns == 0)
		return 1.0;
	while (pos < n) {
		bool f = j == ns || (i < nf && fast[i] <= slow[j]);
		double v = f ? fast[i++] : slow[j++], t;
		size_t cf = f, cs = !f;

		while (i < nf && fast[i] == v) {
			i++;
			cf++;
		}
		while (j < ns && slow[j] == v) {
			j++;
			cs++;
		}
		t = (double)(cf + cs);
		rf += (double)cf * (((double)pos + 1) + ((double)pos + t)) / 2.0;
		ties += t * t * t - t;
		pos += cf + cs;
	}
	if (!mw_many_ties(ties, n))
		return mw_p_sums(nf, ns, rf, ties, NULL);
	r = ap_xmalloc(n * sizeof(*r));
	for (i = j = pos = 0; pos < n; pos++) {
		if (j == ns || (i < nf && fast[i] <= slow[j]))
			r[pos] = (struct ap_ranked){ .v = fast[i++], .grp = 0 };
		else
			r[pos] = (struct ap_ranked){ .v = slow[j++], .grp = 1 };
	}
	ranks_of_sorted(r, n);
	p = mw_p_sums(nf, ns, rf, ties, r);
	free(r);
	return p;
}

/* Regularized upper incomplete gamma Q(a, x). */
static double gamma_q(double a, double x)
{
	double lg, pre;
	int sign, i;

	if (!(x > 0))
		return 1.0;
	lg = lgamma_r(a, &sign);
	pre = exp(-x + a * log(x) - lg);
	if (x < a + 1) {
		double sum = 1.0 / a, del = sum, ap = a;

		for (i = 0; i < 100000; i++) {
			ap += 1;
			del *= x / ap;
			sum += del;
			if (fabs(del) < fabs(sum) * 1e-16)
				break;
		}
		return fmax(0.0, fmin(1.0, 1.0 - sum * pre));
	} else {
		double b = x + 1 - a, c = 1.0 / DBL_MIN, d = 1.0 / b, h = d;

		for (i = 1; i < 100000; i++) {
			double an = -(double)i * ((double)i - a), del;

			b += 2;
			d = an * d + b;
			if (fabs(d) < DBL_MIN)
				d = DBL_MIN;
			c = b + an / c;
			if (fabs(c) < DBL_MIN)
				c = DBL_MIN;
			d = 1.0 / d;
			del = d * c;
			h *= del;
			if (fabs(del - 1) < 1e-16)
				break;
		}
		return fmax(0.0, fmin(1.0, pre * h));
	}
}

double ap_stats_chi2_sf(double x, double df)
{
	if (!(df > 0))
		return NAN;
	return gamma_q(df / 2.0, x / 2.0);
}

double ap_stats_kruskal_wallis_p(const double *v, const size_t *group, size_t n,
				 size_t ngroups)
{
	struct ap_ranked *r;
	double *rsum, h = 0, ties, nn = (double)n, corr;
	size_t *cnt, i, k = 0;

	if (!v || !group || n < 2 || ngroups < 2)
		return 1.0;
	r = ap_xmalloc(n * sizeof(*r));
	rsum = ap_xcalloc(ngroups, sizeof(*rsum));
	cnt = ap_xcalloc(ngroups, sizeof(*cnt));
	for (i = 0; i < n; i++) {
		r[i] = (struct ap_ranked){ .v = v[i], .grp = group[i] < ngroups ? group[i] : 0 };
		cnt[r[i].grp]++;
	}
	ties = ap_stats_assign_ranks(r, n);
	for (i = 0; i < n; i++)
		rsum[r[i].grp] += r[i].rank;
	for (i = 0; i < ngroups; i++) {
		if (!cnt[i])
			continue;
		k++;
		h += rsum[i] * rsum[i] / (double)cnt[i];
	}
	free(r);
	free(rsum);
	free(cnt);
	if (k < 2 || n <= k)
		return 1.0;
	h = 12.0 / (nn * (nn + 1)) * h - 3 * (nn + 1);
	corr = 1 - ties / (nn * nn * nn - nn);
	if (!(corr > 0))
		return 1.0;
	h /= corr;
	if (h < 0)
		h = 0;
	return ap_stats_chi2_sf(h, (double)(k - 1));
}

const char *ap_stats_format_p(double p, char *buf, size_t len)
{
	if (!isfinite(p))
		snprintf(buf, len, "n/a");
	else if (p < 1e-300)
		snprintf(buf, len, "< 1e-300");
	else if (p < 0.001)
		snprintf(buf, len, "%.1e", p);
	else
		snprintf(buf, len, "%.3f", p);
	return buf;
}

const char *ap_stats_format_confidence(double c, char *buf, size_t len)
{
	if (!isfinite(c))
		snprintf(buf, len, "n/a");
	else if (c > 0.999999)
		snprintf(buf, len, "> 99.9999%%");
	else	/* truncated, never rounded up to 100 % */
		snprintf(buf, len, "%.4f%%", floor(c * 1e6) / 1e4);
	return buf;
}

