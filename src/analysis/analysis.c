// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * From timings to a verdict (see analysis.h): pure functions, no I/O.
 *
 * 1. Drift: with several rounds, every observation is divided by its
 *    round's level, the median over the round of cost / (median cost of
 *    the same offset). The ratio makes the level independent of which
 *    offsets a round happened to contain.
 *    When the measurement order is known (ap_obs.seq), the same is done
 *    locally: each observation is divided by the median ratio of its 16
 *    neighbours in time on either side (bursts of slowness).
 * 2. Per-offset medians and quartiles.
 * 3. Every candidate (period P = 2, 4, ... max_period, phase 0..P-1) whose
 *    predicted fast set holds at least two measured offsets (so that the
 *    measured range supports the period) and leaves at least one slow one
 *    splits the per-offset (log) medians in two classes; the candidate with
 *    the smallest within-class sum of squares wins (ties: the smaller
 *    period). Its AUC (fast medians below slow ones) must reach
 *    AP_FIT_CLEAN, its nested neighbours (P/2, 2P) must be rejected by rank
 *    tests, and neither class may hold offsets of the other's level
 *    (Kruskal-Wallis within the class), else the period is not settled.
 * 4. Mann-Whitney U of the fast vs slow observations under that candidate,
 *    Bonferroni-corrected for the number of candidates tried; slowdown =
 *    median slow / median fast.
 * 5. When no single phase explains the data, Kruskal-Wallis over offsets
 *    tells whether there is structure at all (e.g. writes smaller than the
 *    hidden unit: every write is partial, 1 or 2 read-modify-writes); the
 *    two-level split must also hold across halves of the rounds (found on
 *    one half, its slowdown measured on the other), so that a few offsets
 *    hit by bursts of slowness do not count as structure.
 * 6. "No effect" is only claimed with a confidence from an equivalence test:
 *    for every candidate, the slow observations divided by min_slowdown
 *    must be significantly faster than the fast ones (an intersection-union
 *    test, so no multiplicity correction is needed).
 */
#include "analysis/analysis.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stats.h"
#include "lib/util.h"

#define AP_FIT_CLEAN	0.90	/* AUC from which one phase explains the data */
#define AP_FIT_STABLE	0.98	/* AUC needed for an early stop */
#define AP_MIN_N_CLEAR	3	/* observations per offset needed for an early stop */
#define AP_ABSENCE_CONF	0.95	/* "no effect" is claimed from this confidence on */
#define AP_MODEL_ALPHA	0.002	/* evidence needed to prefer a period over its half */
#define AP_HINT_P	0.01	/* evidence a hint at a unit needs (corrected p) */
/*
 * The smallest slowdown taken for the drive's own: the I/O stack above it
 * (page cache, FUSE, loop, the block layer splitting a request) shows
 * offset effects of a few per cent at 4 KiB boundaries on drives that have
 * no hidden unit, and with enough rounds those are highly significant.
 * Flash, the subtlest real case, costs 1.1x and more.
 */
#define AP_NEGLIGIBLE	1.05
#define AP_QUIET_P	0.05	/* "no effect" stops early only when the test for an
				   effect is above this */
#define AP_BURST_WINDOW	16	/* neighbours on each side for the local level */
#define AP_HINT "either honest %u-byte sectors or a unit larger than the write size " \
	"(block size): use alignprobe probe with larger sizes"

/* ------------------------------------------------------------------ */
/* the analysis */

void ap_analysis_params_init(struct ap_analysis_params *p, unsigned logical_sector,
			     unsigned reported_physical)
{
	unsigned maxp = logical_sector ? 65536 / logical_sector : 128;

	memset(p, 0, sizeof(*p));
	p->logical_sector = logical_sector;
	p->reported_physical = reported_physical;
	p->max_period = maxp < 2 ? 2 : maxp;
	p->alpha = 0.001;
	p->min_slowdown = 1.15;
	p->offset_name = "offset";
}

/* The significance level an effect of @slowdown must reach to count. */
static double level_for(const struct ap_analysis_params *p, double slowdown)
{
	return slowdown >= p->min_slowdown ? p->alpha : p->alpha / 100;
}

/* The level of the "no effect" equivalence test used for an early stop. */
static double eq_alpha(const struct ap_analysis_params *p)
{
	double a = p->alpha * 10;

	return a > 0.05 ? 0.05 : a;
}

struct work {
	uint64_t offset;
	unsigned round;
	double cost;
	uint64_t seq;
	size_t oi;		/* offset index */
	size_t ri;		/* round index */
};

static int cmp_work_offset(const void *a, const void *b)
{
	const struct work *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return (x->round > y->round) - (x->round < y->round);
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return (x > y) - (x < y);
}

struct ctx {
	const struct ap_analysis_params *p;
	struct work *w;		/* sorted by offset */
	size_t n;
	uint64_t *off;		/* distinct offsets */
	size_t *first, *cnt;	/* their range in w */
	size_t k;
	double *med;		/* per-offset medians */
	double *tmp;		/* scratch, n */
};

static void offset_medians(struct ctx *c)
{
	size_t i, j;

	for (i = 0; i < c->k; i++) {
		for (j = 0; j < c->cnt[i]; j++)
			c->tmp[j] = c->w[c->first[i] + j].cost;
		c->med[i] = ap_stats_median(c->tmp, c->cnt[i]);
	}
}

/* Divide out the level of each round (see the top comment); the drift seen. */
static double correct_drift(struct ctx *c, size_t nrounds)
{
	double *f = ap_xmalloc(nrounds * sizeof(*f));
	size_t *order = ap_xmalloc(c->n * sizeof(*order));
	size_t *rfirst = ap_xcalloc(nrounds + 1, sizeof(*rfirst));
	double drift = 1;
	size_t i, r, pass;

	/* counting sort of observation indexes by round */
	for (i = 0; i < c->n; i++)
		rfirst[c->w[i].ri + 1]++;
	for (r = 0; r < nrounds; r++)
		rfirst[r + 1] += rfirst[r];
	{
		size_t *pos = ap_xmalloc(nrounds * sizeof(*pos));

		memcpy(pos, rfirst, nrounds * sizeof(*pos));
		for (i = 0; i < c->n; i++)
			order[pos[c->w[i].ri]++] = i;
		free(pos);
	}

	for (pass = 0; pass < 2; pass++) {
		double fmed, fmin = INFINITY, fmax = 0;
		size_t nf = 0;

		offset_medians(c);
		for (r = 0; r < nrounds; r++) {
			size_t m = 0;

			for (i = rfirst[r]; i < rfirst[r + 1]; i++) {
				const struct work *x = &c->w[order[i]];

				if (c->med[x->oi] > 0 && c->cnt[x->oi] > 1)
					c->tmp[m++] = x->cost / c->med[x->oi];
			}
			f[r] = m >= 3 ? ap_stats_median(c->tmp, m) : NAN;
			if (!(f[r] > 0))
				f[r] = NAN;
		}
		/* normalise the levels to their median: the overall scale stays */
		for (r = 0; r < nrounds; r++)
			if (!isnan(f[r]))
				c->tmp[nf++] = f[r];
		if (nf < 2)
			break;
		fmed = ap_stats_median(c->tmp, nf);
		for (r = 0; r < nrounds; r++) {
			if (isnan(f[r])) {
				f[r] = 1;
				continue;
			}
			f[r] /= fmed;
			fmin = fmin < f[r] ? fmin : f[r];
			fmax = fmax > f[r] ? fmax : f[r];
		}
		if (pass == 0 && fmin > 0)
			drift = fmax / fmin;
		for (i = 0; i < c->n; i++)
			c->w[i].cost /= f[c->w[i].ri];
	}
	free(f);
	free(order);
	free(rfirst);
	return drift;
}

static int cmp_size_by_seq(const void *a, const void *b, void *arg)
{
	const struct work *w = arg;
	uint64_t x = w[*(const size_t *)a].seq, y = w[*(const size_t *)b].seq;

	return (x > y) - (x < y);
}

/*
 * With the measurement order known: divide every observation by the local
 * level around it in time, the median of cost / (median cost of the same
 * offset) over AP_BURST_WINDOW neighbours on each side. The ratio makes the
 * level independent of which offsets happen to be neighbours, so an
 * alignment effect is untouched while a burst of slowness that hit a few
 * consecutive measurements is removed.
 */
static void correct_bursts(struct ctx *c)
{
	size_t *order, i, pass;
	double *ratio, *f;

	if (c->n < 4 * AP_BURST_WINDOW)
		return;
	for (i = 0; i < c->n; i++)
		if (!c->w[i].seq)
			return;
	order = ap_xmalloc(c->n * sizeof(*order));
	ratio = ap_xmalloc(c->n * sizeof(*ratio));
	f = ap_xmalloc(c->n * sizeof(*f));
	for (i = 0; i < c->n; i++)
		order[i] = i;
	qsort_r(order, c->n, sizeof(*order), cmp_size_by_seq, c->w);
	for (pass = 0; pass < 2; pass++) {
		double buf[2 * AP_BURST_WINDOW + 1];

		offset_medians(c);
		for (i = 0; i < c->n; i++) {
			const struct work *x = &c->w[order[i]];
			double m = c->med[x->oi];

			ratio[i] = m > 0 && c->cnt[x->oi] > 1 ? x->cost / m : NAN;
		}
		for (i = 0; i < c->n; i++) {
			size_t lo = i >= AP_BURST_WINDOW ? i - AP_BURST_WINDOW : 0;
			size_t hi = i + AP_BURST_WINDOW < c->n ? i + AP_BURST_WINDOW : c->n - 1;
			size_t j, m = 0;

			for (j = lo; j <= hi; j++)
				if (!isnan(ratio[j]))
					buf[m++] = ratio[j];
			f[i] = m >= AP_BURST_WINDOW ? ap_stats_median(buf, m) : 1;
			if (!(f[i] > 0))
				f[i] = 1;
		}
		for (i = 0; i < c->n; i++)
			c->w[order[i]].cost /= f[i];
	}
	free(order);
	free(ratio);
	free(f);
}

/* Split the observations by a predicate on offset index; returns counts. */
static void split_obs(const struct ctx *c, const bool *fastoff, double *fast, size_t *nf,
		      double *slow, size_t *ns)
{
	size_t i;

	*nf = *ns = 0;
	for (i = 0; i < c->n; i++) {
		if (fastoff[c->w[i].oi])
			fast[(*nf)++] = c->w[i].cost;
		else
			slow[(*ns)++] = c->w[i].cost;
	}
}

static double ratio(double slow, double fast)
{
	double r;

	if (!(fast > 0))
		return slow > 0 ? AP_SLOWDOWN_MAX : 1.0;
	r = slow / fast;
	return r > AP_SLOWDOWN_MAX ? AP_SLOWDOWN_MAX : r;
}

/* median(slow obs) / median(fast obs) for an offset classification */
static double slowdown_of(const struct ctx *c, const bool *fastoff, double *fast, double *slow,
			  size_t *pnf, size_t *pns)
{
	size_t nf, ns;
	double mf, ms;

	split_obs(c, fastoff, fast, &nf, slow, &ns);
	if (pnf)
		*pnf = nf;
	if (pns)
		*pns = ns;
	if (!nf || !ns)
		return 1.0;
	mf = ap_stats_median(fast, nf);
	ms = ap_stats_median(slow, ns);
	return ratio(ms, mf);
}

struct cand {
	unsigned period, phase;
	size_t nf;		/* measured offsets in the predicted fast set */
	double auc;		/* fast medians below slow medians */
	double ss;		/* within-class sum of squares of the log medians */
	bool faster;		/* the fast class is the faster one */
	bool alias;		/* the same fast set as a candidate of a smaller period */
};

/* The chosen candidate and what the measured offsets can tell about it. */
struct choice {
	struct cand best;
	size_t ncand;		/* candidates tried */
	size_t ndistinct;	/* distinct predicted fast sets: the Bonferroni factor */
	unsigned alias[32];	/* periods predicting best's fast set (ascending, best first) */
	unsigned nalias;
	unsigned unsettled;	/* AP_UNSETTLED_*: neighbours not ruled out */
};

#define AP_UNSETTLED_HALF	1u	/* P / 2 */
#define AP_UNSETTLED_DOUBLE	2u	/* 2 P */

static const struct cand *find_cand(const struct cand *all, size_t nall, unsigned P,
				    unsigned ph)
{
	size_t i;

	for (i = 0; i < nall; i++)
		if (all[i].period == P && all[i].phase == ph)
			return &all[i];
	return NULL;
}

/* The level halfway between a fast and a slow one (geometric when possible). */
static double midpoint(double fast, double slow)
{
	if (fast > 0 && slow > 0)
		return sqrt(fast * slow);
	return (fast + slow) / 2;
}

/* The observations at offsets o with o % P == ph (or the others, @inv). */
static size_t obs_where(const struct ctx *c, unsigned P, unsigned ph, bool inv,
			unsigned P2, unsigned ph2, double *out)
{
	size_t i, m = 0;

	for (i = 0; i < c->n; i++) {
		uint64_t o = c->w[i].offset;

		if ((o % P == ph) == inv)
			continue;
		if (P2 && o % P2 == ph2)
			continue;
		out[m++] = c->w[i].cost;
	}
	return m;
}

/* One-sided Mann-Whitney p that set A is faster than set B. */
static double p_faster(const struct ctx *c, unsigned Pa, unsigned pha, unsigned Pa2,
		       unsigned pha2, unsigned Pb, unsigned phb, unsigned Pb2, unsigned phb2)
{
	double *a = ap_xmalloc(c->n * sizeof(*a)), *b = ap_xmalloc(c->n * sizeof(*b)), p;
	size_t na = obs_where(c, Pa, pha, false, Pa2, pha2, a);
	size_t nb = obs_where(c, Pb, phb, false, Pb2, phb2, b);

	p = ap_stats_mann_whitney_p(a, na, b, nb);
	free(a);
	free(b);
	return p;
}

/*
 * One-sided Mann-Whitney p that the disputed offsets are faster than the
 * slow ones. Disputed: o % Pd == phd but not o % Pf == phf when Pd < Pf
 * (down), or exactly o % Pd == phd when Pd > Pf (up). Slow: o % Pf != phf
 * (up) or o % Pd != phd (down).
 */
static double p_faster_than_rest(const struct ctx *c, unsigned Pd, unsigned phd, unsigned Pf,
				 unsigned phf)
{
	double *a = ap_xmalloc(c->n * sizeof(*a)), *b = ap_xmalloc(c->n * sizeof(*b)), p;
	size_t i, na = 0, nb = 0;

	for (i = 0; i < c->n; i++) {
		uint64_t o = c->w[i].offset;
		bool ind = o % Pd == phd, inf = o % Pf == phf;

		if (Pd < Pf) {
			if (ind && !inf)
				a[na++] = c->w[i].cost;
			else if (!ind)
				b[nb++] = c->w[i].cost;
		} else {
			if (ind)
				a[na++] = c->w[i].cost;
			else if (!inf)
				b[nb++] = c->w[i].cost;
		}
	}
	p = ap_stats_mann_whitney_p(a, na, b, nb);
	free(a);
	free(b);
	return p;
}

/*
 * The chosen partition against its nested neighbours: the offsets that
 * P / 2 would add to the fast set must be significantly slower than the
 * fast offsets, and each half of the fast phase (the phases of 2P) must be
 * significantly faster than the slow offsets. Otherwise the period is not
 * settled yet: more samples needed. Returns the AP_UNSETTLED_* bits.
 */
static unsigned neighbours_unsettled(const struct ctx *c, const struct cand *all, size_t nall,
				     const struct cand *best)
{
	unsigned P = best->period, ph = best->phase, bits = 0;

	if (P >= 4 && find_cand(all, nall, P / 2, ph % (P / 2)) &&
	    p_faster(c, P, ph, 0, 0, P / 2, ph % (P / 2), P, ph) > AP_MODEL_ALPHA)
		bits |= AP_UNSETTLED_HALF;
	if (2 * P <= c->p->max_period && find_cand(all, nall, 2 * P, ph) &&
	    find_cand(all, nall, 2 * P, ph + P) &&
	    (p_faster_than_rest(c, 2 * P, ph, P, ph) > AP_MODEL_ALPHA ||
	     p_faster_than_rest(c, 2 * P, ph + P, P, ph) > AP_MODEL_ALPHA))
		bits |= AP_UNSETTLED_DOUBLE;
	return bits;
}

/*
 * Enumerate candidates: every (P, phase) whose predicted fast set holds at
 * least one measured offset and leaves at least one. Candidates predicting
 * the same set as one of a smaller period (a nested phase with the same
 * members) are aliases: the data cannot tell them apart, and they count
 * once in the multiple-test correction. @fastoff receives the predicted
 * set of the chosen one. Returns the number of candidates.
 */
static size_t choose_candidate(const struct ctx *c, struct choice *ch, bool *fastoff)
{
	struct ap_ranked *r = ap_xmalloc(c->k * sizeof(*r));
	double *mrank = ap_xmalloc(c->k * sizeof(*mrank));
	double *x = ap_xmalloc(c->k * sizeof(*x));
	double tsum = 0, tsq = 0, best_ss = INFINITY;
	struct cand *all = NULL, *best = &ch->best;
	size_t nall = 0, i;
	bool uselog = true;
	unsigned P;

	memset(ch, 0, sizeof(*ch));
	for (i = 0; i < c->k; i++) {
		r[i] = (struct ap_ranked){ .v = c->med[i], .grp = i };
		if (!(c->med[i] > 0))
			uselog = false;
	}
	ap_stats_assign_ranks(r, c->k);
	for (i = 0; i < c->k; i++)
		mrank[r[i].grp] = r[i].rank;
	free(r);
	for (i = 0; i < c->k; i++) {
		x[i] = uselog ? log(c->med[i]) : c->med[i];
		tsum += x[i];
		tsq += x[i] * x[i];
	}

	for (P = 2; P >= 2 && P <= c->p->max_period; P *= 2) {
		unsigned ph;

		for (ph = 0; ph < P; ph++) {
			double rs = 0, nf = 0, ns, fsum = 0, fsq = 0, ssum, ss;
			struct cand cd = { .period = P, .phase = ph };
			const struct cand *half;

			for (i = 0; i < c->k; i++) {
				if (c->off[i] % P == ph) {
					nf++;
					rs += mrank[i];
					fsum += x[i];
					fsq += x[i] * x[i];
				}
			}
			ns = (double)c->k - nf;
			if (nf < 1 || ns < 1)
				continue;
			cd.nf = (size_t)nf;
			/* pairs (fast median < slow median), ties one half */
			cd.auc = (nf * ns - (rs - nf * (nf + 1) / 2)) / (nf * ns);
			ssum = tsum - fsum;
			/* within-class sum of squares of the (log) medians */
			ss = (fsq - fsum * fsum / nf) + ((tsq - fsq) - ssum * ssum / ns);
			cd.ss = ss < 0 ? 0 : ss;
			cd.faster = fsum / nf < ssum / ns;
			/* a subset of the phase of P / 2 with as many members is that set */
			half = P >= 4 ? find_cand(all, nall, P / 2, ph % (P / 2)) : NULL;
			cd.alias = half && half->nf == cd.nf;
			if (!cd.alias)
				ch->ndistinct++;
			all = ap_xreallocarray(all, nall + 1, sizeof(*all));
			all[nall++] = cd;
		}
	}
	free(mrank);
	free(x);
	ch->ncand = nall;
	if (!nall) {
		free(all);
		return 0;
	}
	/* the partition that explains the medians best; ties (aliases
	 * among them): the smaller period */
	best->period = 0;
	for (i = 0; i < nall; i++) {
		if (!all[i].faster)
			continue;
		if (!best->period || all[i].ss < best_ss * (1 - 1e-9) - 1e-300) {
			*best = all[i];
			best_ss = all[i].ss;
		}
	}
	if (!best->period) {
		/* no candidate has a faster phase: any will do for the tests */
		*best = all[0];
	}
	for (i = 0; i < nall && ch->nalias < AP_ARRAY_SIZE(ch->alias); i++)
		if (all[i].period >= best->period && all[i].phase % best->period == best->phase &&
		    all[i].nf == best->nf)
			ch->alias[ch->nalias++] = all[i].period;
	ch->unsettled = neighbours_unsettled(c, all, nall, best);
	free(all);
	for (i = 0; i < c->k; i++)
		fastoff[i] = c->off[i] % best->period == best->phase;
	return nall;
}

/* Otsu's two-class split of the sorted per-offset medians (log scale when possible). */
static double ratio(double slow, double fast);

static void two_clusters_of(const struct ctx *c, const double *med, const bool *mask,
			    bool *fastoff)
{
	struct ap_ranked *r = ap_xmalloc(c->k * sizeof(*r));
	bool uselog = true;
	double total = 0, left = 0, bestv = -1;
	size_t i, m = 0, split = 1;

	for (i = 0; i < c->k; i++) {
		fastoff[i] = false;
		if ((!mask || mask[i]) && !(med[i] > 0))
			uselog = false;
	}
	for (i = 0; i < c->k; i++) {
		if (mask && !mask[i])
			continue;
		r[m] = (struct ap_ranked){ .v = uselog ? log(med[i]) : med[i], .grp = i };
		total += r[m++].v;
	}
	qsort(r, m, sizeof(*r), ap_stats_cmp_ranked);
	for (i = 1; i < m; i++) {
		double w0 = (double)i, w1 = (double)(m - i), m0, m1, bv;

		left += r[i - 1].v;
		m0 = left / w0;
		m1 = (total - left) / w1;
		bv = w0 * w1 * (m0 - m1) * (m0 - m1);
		if (bv > bestv) {
			bestv = bv;
			split = i;
		}
	}
	for (i = 0; i < m; i++)
		fastoff[r[i].grp] = i < split;
	free(r);
}

static void two_clusters(const struct ctx *c, const bool *mask, bool *fastoff)
{
	two_clusters_of(c, c->med, mask, fastoff);
}

/*
 * Is a two-level split of the offsets real or the luck of a few bursts?
 * Split the rounds in two halves (even, odd), find the split on the
 * medians of one half and test it on the observations of the other (a
 * one-sided Mann-Whitney U on data the split was not chosen from, so its
 * p-value needs no correction for the search); both directions. Returns the
 * larger p-value (both must hold: an intersection-union test) and, in
 * @slowdown, the smaller held-out slowdown; 1 and 0 when there are not two
 * halves.
 */
static double cross_validated_p(const struct ctx *c, double *slowdown)
{
	double *med = ap_xmalloc(c->k * sizeof(*med)), *a = ap_xmalloc(c->n * sizeof(*a));
	double *b = ap_xmalloc(c->n * sizeof(*b)), worst = INFINITY, pmax = 0;
	bool *lower = ap_xcalloc(c->k, sizeof(*lower));
	size_t h, i, j;

	for (h = 0; h < 2; h++) {
		size_t na = 0, nb = 0;
		double r, pv;

		for (i = 0; i < c->k; i++) {
			size_t m = 0;

			for (j = 0; j < c->cnt[i]; j++) {
				const struct work *x = &c->w[c->first[i] + j];

				if (x->ri % 2 == h)
					c->tmp[m++] = x->cost;
			}
			if (!m) {
				worst = 0;	/* an offset missing from a half */
				pmax = 1;
				goto out;
			}
			med[i] = ap_stats_median(c->tmp, m);
		}
		two_clusters_of(c, med, NULL, lower);
		for (i = 0; i < c->n; i++) {
			const struct work *x = &c->w[i];

			if (x->ri % 2 == h)
				continue;
			if (lower[x->oi])
				a[na++] = x->cost;
			else
				b[nb++] = x->cost;
		}
		if (!na || !nb) {
			worst = 0;
			pmax = 1;
			goto out;
		}
		pv = ap_stats_mann_whitney_p(a, na, b, nb);
		if (pv > pmax)
			pmax = pv;
		r = ratio(ap_stats_median(b, nb), ap_stats_median(a, na));
		if (r < worst)
			worst = r;
	}
out:
	free(med);
	free(a);
	free(b);
	free(lower);
	*slowdown = isfinite(worst) ? worst : 0;
	return pmax;
}

/* Median of the observations at the offsets selected by @sel (== @want). */
static double median_sel(const struct ctx *c, const bool *sel, bool want)
{
	size_t i, m = 0;

	for (i = 0; i < c->n; i++)
		if (sel[c->w[i].oi] == want)
			c->tmp[m++] = c->w[i].cost;
	return m ? ap_stats_median(c->tmp, m) : NAN;
}

/*
 * Does one aligned phase really explain the data? Under the model the slow
 * offsets are alike and so are the fast ones. When the offsets within one
 * class differ significantly (Kruskal-Wallis) and part of them sits nearer
 * the other class's level, the model is wrong: e.g. writes smaller than the
 * hidden unit, where a run of offsets fits into one unit.
 */
static bool model_misfit(const struct ctx *c, const bool *fastoff, double alpha)
{
	double mf = median_sel(c, fastoff, true), ms = median_sel(c, fastoff, false);
	bool *mask = ap_xcalloc(c->k, sizeof(*mask)), *lower = ap_xcalloc(c->k, sizeof(*lower));
	double *val = ap_xmalloc(c->n * sizeof(*val));
	size_t *grp = ap_xmalloc(c->n * sizeof(*grp));
	bool misfit = false;
	int cls;

	for (cls = 0; cls < 2 && !misfit && !isnan(mf) && !isnan(ms); cls++) {
		bool want = cls == 0;	/* 0: the fast class, 1: the slow one */
		size_t i, m = 0, nk = 0;
		double plo, phi;

		for (i = 0; i < c->k; i++) {
			mask[i] = fastoff[i] == want;
			nk += mask[i];
		}
		if (nk < 2)
			continue;
		for (i = 0; i < c->n; i++) {
			if (!mask[c->w[i].oi])
				continue;
			val[m] = c->w[i].cost;
			grp[m++] = c->w[i].oi;
		}
		if (ap_stats_kruskal_wallis_p(val, grp, m, c->k) > alpha)
			continue;
		two_clusters(c, mask, lower);
		for (i = 0, m = 0; i < c->n; i++)
			if (mask[c->w[i].oi] && lower[c->w[i].oi])
				c->tmp[m++] = c->w[i].cost;
		plo = m ? ap_stats_median(c->tmp, m) : NAN;
		for (i = 0, m = 0; i < c->n; i++)
			if (mask[c->w[i].oi] && !lower[c->w[i].oi])
				c->tmp[m++] = c->w[i].cost;
		phi = m ? ap_stats_median(c->tmp, m) : NAN;
		if (isnan(plo) || isnan(phi))
			continue;
		/*
		 * fast class: its upper part nearer the slow level than its lower
		 * part; slow class: its lower part nearer the fast level than its
		 * upper part
		 */
		if (want ? phi >= midpoint(plo, ms) : plo <= midpoint(mf, phi))
			misfit = true;
	}
	free(mask);
	free(lower);
	free(val);
	free(grp);
	return misfit;
}

/*
 * Confidence that there is no unit with a slowdown of min_slowdown or more
 * among the candidates the measured offsets can test (every phase with a
 * measured member and a measured non-member, single members included): 1 -
 * the largest equivalence-test p-value over them. Phases without a measured
 * member are not covered: see missing_residue().
 */
static double absence_confidence(const struct ctx *c, double *fast, double *slow)
{
	double worst = 0;
	unsigned P;
	size_t i;

	for (P = 2; P >= 2 && P <= c->p->max_period; P *= 2) {
		unsigned ph;

		for (ph = 0; ph < P; ph++) {
			size_t nf = 0, ns = 0, fo = 0;
			double pv;

			for (i = 0; i < c->k; i++)
				if (c->off[i] % P == ph)
					fo++;
			if (!fo || fo == c->k)
				continue;
			for (i = 0; i < c->n; i++) {
				if (c->w[i].offset % P == ph)
					fast[nf++] = c->w[i].cost;
				else
					slow[ns++] = c->w[i].cost / c->p->min_slowdown;
			}
			/* small p: slow / min_slowdown is below fast */
			pv = ap_stats_mann_whitney_p(slow, ns, fast, nf);
			if (pv > worst)
				worst = pv;
			if (worst >= 1)
				return 0;
		}
	}
	return 1 - worst;
}

void ap_verdict_set_note(struct ap_verdict *v, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		return;
	free(v->note_buf);
	v->note_buf = s;
	v->note = s;
}

static void set_fast(struct ap_verdict *v, const struct ctx *c, const bool *fastoff)
{
	size_t i;

	free(v->fast_starts);
	v->fast_starts = NULL;
	v->nfast = 0;
	for (i = 0; i < c->k; i++) {
		v->stats[i].fast = fastoff ? fastoff[i] : false;
		if (v->stats[i].fast)
			v->nfast++;
	}
	if (!v->nfast)
		return;
	v->fast_starts = ap_xmalloc(v->nfast * sizeof(*v->fast_starts));
	v->nfast = 0;
	for (i = 0; i < c->k; i++)
		if (v->stats[i].fast)
			v->fast_starts[v->nfast++] = c->off[i];
}

static const char *oname(const struct ctx *c)
{
	return c->p->offset_name ? c->p->offset_name : "offset";
}

/* Append to a note being built (NULL: empty). */
static void note_add(char **s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note_add(char **s, const char *fmt, ...)
{
	va_list ap;
	char *t, *u;

	va_start(ap, fmt);
	if (vasprintf(&t, fmt, ap) < 0)
		t = NULL;
	va_end(ap);
	if (!t)
		return;
	if (!*s) {
		*s = t;
		return;
	}
	ap_xasprintf(&u, "%s%s", *s, t);
	free(*s);
	free(t);
	*s = u;
}

/* The smallest residue modulo max_period that no measured offset has, or -1. */
static long missing_residue(const struct ctx *c)
{
	unsigned P = c->p->max_period, left = P;
	bool *seen = ap_xcalloc(P, sizeof(*seen));
	long miss = -1;
	size_t i;

	for (i = 0; i < c->k && left; i++) {
		if (!seen[c->off[i] % P]) {
			seen[c->off[i] % P] = true;
			left--;
		}
	}
	for (i = 0; i < P && left; i++) {
		if (!seen[i]) {
			miss = (long)i;
			break;
		}
	}
	free(seen);
	return miss;
}

/* Can the measured offsets tell the chosen unit from every other candidate? */
static bool identifiable(const struct ctx *c, const struct choice *ch)
{
	return ch->nalias == 1 && ch->best.nf >= 2 && c->k - ch->best.nf >= 2;
}

/* "40", "40 and 48", "40, 48 and 56", "40, 48, 56, ... (9)" */
static void note_offsets(char **s, const struct ctx *c, const bool *sel)
{
	size_t i, m = 0, total = 0;

	for (i = 0; i < c->k; i++)
		total += sel[i];
	for (i = 0; i < c->k; i++) {
		if (!sel[i])
			continue;
		if (m == 4 && total > 5) {
			note_add(s, ", ... (%zu)", total);
			return;
		}
		note_add(s, "%s%llu", !m ? "" : m + 1 == total ? " and " : ", ",
			 (unsigned long long)c->off[i]);
		m++;
	}
}

/* What to measure instead: two full periods from the first offset. */
static void note_remedy(char **s, const struct ctx *c)
{
	unsigned long long a = c->off[0], b = a + 2ULL * c->p->max_period - 1;

	note_add(s, ": measure at least two %ss of each class, e.g. every %s from %llu to %llu",
		 oname(c), oname(c), a, b);
}

/* Why the chosen phase cannot be resolved from these offsets. */
static void note_unresolvable(char **s, const struct ctx *c, const struct choice *ch)
{
	unsigned i;

	if (ch->nalias > 1) {
		note_add(s, "these %ss cannot tell ", oname(c));
		for (i = 0; i < ch->nalias; i++)
			note_add(s, "%s%u-", !i ? "" : i + 1 == ch->nalias ? " or " : ", ",
				 ch->alias[i] * c->p->logical_sector);
		note_add(s, "byte physical sectors apart");
	} else if (ch->best.nf < 2) {
		note_add(s, "a period must be seen at least twice, and only one fast %s was measured",
			 oname(c));
	} else {
		note_add(s, "only one slow %s was measured", oname(c));
	}
	note_remedy(s, c);
}

/* The note of an unsettled period: the neighbours not ruled out. */
static void note_unsettled(struct ap_verdict *v, const struct ctx *c, const struct choice *ch)
{
	unsigned b = ch->best.period * c->p->logical_sector;
	char *s = NULL;

	note_add(&s, "alignment matters, but the timings cannot yet tell %u-byte from ", b);
	if ((ch->unsettled & AP_UNSETTLED_HALF) && (ch->unsettled & AP_UNSETTLED_DOUBLE))
		note_add(&s, "%u- or %u-byte", b / 2, b * 2);
	else
		note_add(&s, "%u-byte", ch->unsettled & AP_UNSETTLED_HALF ? b / 2 : b * 2);
	note_add(&s, " physical sectors: more samples needed");
	ap_verdict_set_note(v, "%s", s);
	free(s);
}

int ap_analysis_run(const struct ap_obs *obs, size_t n,
		    const struct ap_analysis_params *p, struct ap_verdict *v)
{
	struct ctx c = { .p = p, .n = n };
	unsigned *rounds;
	size_t nrounds = 0, i, j, ncand, nf, ns;
	bool *candfast, *clusfast, *allfast;
	double *fast, *slow, p_mw = 1, slow_c = 1, slow_d = 1, p_cv = 1, slow_cv = 0;
	struct choice ch;
	const struct cand *best = &ch.best;
	bool misfit = false, phase_effect, structure;
	long missing;

	if (!v)
		return -EINVAL;
	memset(v, 0, sizeof(*v));
	if (!obs || !n || !p || !p->logical_sector || !p->max_period ||
	    !(p->alpha > 0 && p->alpha < 1) || !(p->min_slowdown >= 1))
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!isfinite(obs[i].cost) || obs[i].cost < 0)
			return -EINVAL;

	v->logical_sector = p->logical_sector;
	v->reported_physical = p->reported_physical;
	v->p_value = 1;
	v->p_structure = 1;
	v->slowdown = 1;
	v->drift = 1;
	v->nobs = n;
	v->min_slowdown = p->min_slowdown;
	v->equivalence_p = NAN;

	c.w = ap_xmalloc(n * sizeof(*c.w));
	for (i = 0; i < n; i++)
		c.w[i] = (struct work){ .offset = obs[i].offset, .round = obs[i].round,
					.cost = obs[i].cost, .seq = obs[i].seq };
	qsort(c.w, n, sizeof(*c.w), cmp_work_offset);

	/* distinct offsets */
	c.off = ap_xmalloc(n * sizeof(*c.off));
	c.first = ap_xmalloc(n * sizeof(*c.first));
	c.cnt = ap_xmalloc(n * sizeof(*c.cnt));
	for (i = 0; i < n; i++) {
		if (!c.k || c.off[c.k - 1] != c.w[i].offset) {
			c.off[c.k] = c.w[i].offset;
			c.first[c.k] = i;
			c.cnt[c.k] = 0;
			c.k++;
		}
		c.w[i].oi = c.k - 1;
		c.cnt[c.k - 1]++;
	}

	/* distinct rounds */
	rounds = ap_xmalloc(n * sizeof(*rounds));
	for (i = 0; i < n; i++)
		rounds[i] = obs[i].round;
	qsort(rounds, n, sizeof(*rounds), cmp_uint);
	for (i = 0; i < n; i++)
		if (!nrounds || rounds[nrounds - 1] != rounds[i])
			rounds[nrounds++] = rounds[i];
	for (i = 0; i < n; i++) {
		unsigned *hit = bsearch(&c.w[i].round, rounds, nrounds, sizeof(*rounds), cmp_uint);

		c.w[i].ri = (size_t)(hit - rounds);
	}
	free(rounds);

	c.med = ap_xmalloc(c.k * sizeof(*c.med));
	c.tmp = ap_xmalloc(n * sizeof(*c.tmp));
	if (nrounds >= 2)
		v->drift = correct_drift(&c, nrounds);
	correct_bursts(&c);

	/* per-offset statistics */
	v->nstats = c.k;
	v->stats = ap_xcalloc(c.k, sizeof(*v->stats));
	v->min_n = SIZE_MAX;
	for (i = 0; i < c.k; i++) {
		struct ap_offset_stat *st = &v->stats[i];

		for (j = 0; j < c.cnt[i]; j++)
			c.tmp[j] = c.w[c.first[i] + j].cost;
		st->offset = c.off[i];
		st->n = c.cnt[i];
		st->q1 = ap_stats_quantile(c.tmp, c.cnt[i], 0.25);
		st->median = ap_stats_quantile(c.tmp, c.cnt[i], 0.5);
		st->q3 = ap_stats_quantile(c.tmp, c.cnt[i], 0.75);
		c.med[i] = st->median;
		if (st->n < v->min_n)
			v->min_n = st->n;
	}

	candfast = ap_xcalloc(c.k, sizeof(*candfast));
	clusfast = ap_xcalloc(c.k, sizeof(*clusfast));
	allfast = ap_xcalloc(c.k, sizeof(*allfast));
	for (i = 0; i < c.k; i++)
		allfast[i] = true;
	fast = ap_xmalloc(n * sizeof(*fast));
	slow = ap_xmalloc(n * sizeof(*slow));

	if (c.k >= 2) {
		size_t *grp = ap_xmalloc(n * sizeof(*grp));
		double *val = ap_xmalloc(n * sizeof(*val));

		for (i = 0; i < n; i++) {
			grp[i] = c.w[i].oi;
			val[i] = c.w[i].cost;
		}
		v->p_structure = ap_stats_kruskal_wallis_p(val, grp, n, c.k);
		free(grp);
		free(val);
		two_clusters(&c, NULL, clusfast);
		slow_d = slowdown_of(&c, clusfast, fast, slow, NULL, NULL);
	}

	ncand = choose_candidate(&c, &ch, candfast);
	if (ncand) {
		v->fit = best->auc;
		misfit = model_misfit(&c, candfast, p->alpha);
		v->misfit = misfit;
		slow_c = slowdown_of(&c, candfast, fast, slow, &nf, &ns);
		/* Bonferroni over the distinct hypotheses (aliases test the same) */
		p_mw = ap_stats_mann_whitney_p(fast, nf, slow, ns) * (double)ch.ndistinct;
		if (p_mw > 1)
			p_mw = 1;
	}
	missing = missing_residue(&c);
	/*
	 * An established effect, whatever its size: one aligned phase explains
	 * it. Below min_slowdown, where a drift or the I/O stack could fake
	 * one, at the stricter level an early stop needs (alpha / 100).
	 */
	phase_effect = ncand && best->faster && best->auc >= AP_FIT_CLEAN && !misfit &&
		       slow_c >= AP_NEGLIGIBLE && p_mw <= level_for(p, slow_c);
	/*
	 * Or structure without a phase, confirmed on rounds it was not found
	 * on. No model protects such a claim from what the I/O stack does at
	 * some offsets (a few per cent where a write crosses a boundary of the
	 * layers below), so here min_slowdown stays a gate, on the slowdown
	 * found and on the one held out.
	 */
	if (c.k >= 2 && nrounds >= 2 && v->p_structure <= p->alpha && slow_d >= p->min_slowdown)
		p_cv = cross_validated_p(&c, &slow_cv);
	structure = p_cv <= p->alpha && slow_cv >= p->min_slowdown;

	if (phase_effect && identifiable(&c, &ch) && !ch.unsettled) {
		/* one phase explains it: the hidden unit */
		v->sensitive = true;
		v->resolved = true;
		v->period = best->period;
		v->physical_sector = best->period * p->logical_sector;
		v->lowest_aligned_lba = best->phase;
		v->slowdown = slow_c;
		v->p_value = p_mw;
		v->confidence = ap_clamp01(1 - p_mw);
		set_fast(v, &c, candfast);
		if (v->drift >= 1.5)
			ap_verdict_set_note(v, "the drive's speed drifted by a factor of %.1f between rounds "
				 "(corrected)", v->drift);
		else if (p->reported_physical && v->physical_sector != p->reported_physical)
			ap_verdict_set_note(v, "the drive reports %u-byte physical sectors but behaves like "
				 "%u-byte ones", p->reported_physical, v->physical_sector);
	} else if (phase_effect && identifiable(&c, &ch)) {
		/* an aligned phase, but its period is not settled yet */
		v->sensitive = true;
		v->resolved = false;
		v->slowdown = slow_c;
		v->p_value = p_mw;
		v->confidence = ap_clamp01(1 - p_mw);
		set_fast(v, &c, NULL);
		note_unsettled(v, &c, &ch);
	} else if (phase_effect) {
		/* an aligned phase, but these offsets cannot resolve its period */
		char *s = NULL;

		v->sensitive = true;
		v->resolved = false;
		v->starts_insufficient = true;
		v->slowdown = slow_c;
		v->p_value = p_mw;
		v->confidence = ap_clamp01(1 - p_mw);
		set_fast(v, &c, candfast);
		note_add(&s, "alignment matters: %s ", best->nf == 1 ? oname(&c) : "");
		if (best->nf > 1)
			note_add(&s, "%ss ", oname(&c));
		note_offsets(&s, &c, candfast);
		note_add(&s, " %s %.*fx faster than the others, but ", best->nf == 1 ? "is" : "are",
			 slow_c < p->min_slowdown ? 2 : 1, slow_c);
		note_unresolvable(&s, &c, &ch);
		ap_verdict_set_note(v, "%s", s);
		free(s);
	} else if (structure) {
		/* an effect, but no single aligned phase */
		v->sensitive = true;
		v->resolved = false;
		v->slowdown = slow_d;
		v->p_value = v->p_structure;
		v->confidence = ap_clamp01(1 - v->p_structure);
		set_fast(v, &c, clusfast);
		ap_verdict_set_note(v, "the %ss differ, but the fast ones do not form a single aligned "
			 "phase: the hidden unit is probably larger than the write size (block "
			 "size); use alignprobe probe with larger sizes", oname(&c));
	} else if (!ncand) {
		char *s = NULL;

		v->resolved = false;
		v->starts_insufficient = true;
		v->slowdown = slow_d;
		v->p_value = v->p_structure;
		v->confidence = 0;
		set_fast(v, &c, NULL);
		if (c.k == 1)
			note_add(&s, "a single %s cannot show a period", oname(&c));
		else
			note_add(&s, "every measured %s is in the same phase of every candidate unit, "
				 "so no unit can be told from another", oname(&c));
		note_remedy(&s, &c);
		ap_verdict_set_note(v, "%s", s);
		free(s);
	} else {
		double conf = absence_confidence(&c, fast, slow);
		/* a visible difference: a clean split that is the medians' own,
		 * of a size that counts; a hint at a unit only with some evidence */
		bool seen = best->faster && best->auc >= AP_FIT_CLEAN && slow_c >= p->min_slowdown &&
			    !memcmp(candfast, clusfast, c.k * sizeof(*candfast));
		bool hint = seen && p_mw <= AP_HINT_P;
		/* a significant phase effect that is not clean yet blocks "no effect" */
		bool blocked = best->faster && slow_c >= AP_NEGLIGIBLE &&
			       p_mw <= level_for(p, slow_c);

		v->slowdown = slow_c;
		v->p_value = p_mw;
		v->equivalence_p = ap_clamp01(1 - conf);
		if (missing < 0 && conf >= AP_ABSENCE_CONF && !blocked) {
			char *s = NULL, pb[32];

			v->resolved = true;
			v->period = 1;
			v->physical_sector = p->logical_sector;
			v->lowest_aligned_lba = 0;
			v->confidence = ap_clamp01(conf);
			set_fast(v, &c, allfast);
			note_add(&s, "no alignment effect of %.2fx or more", p->min_slowdown);
			if (conf < 1 - eq_alpha(p))
				note_add(&s, " found, but the evidence is still weak (more samples would "
					 "help)");
			/* what is smaller than the margin and not an effect, said */
			if (best->faster && p_mw <= p->alpha && slow_c < AP_NEGLIGIBLE)
				note_add(&s, " (a %.2fx difference in one aligned phase, p = %s, is "
					 "less than the %.2fx the I/O stack itself can show, and not "
					 "taken for the drive's)", slow_c,
					 ap_stats_format_p(p_mw, pb, sizeof(pb)), AP_NEGLIGIBLE);
			else if (best->faster && p_mw <= p->alpha)
				note_add(&s, " (a %.2fx difference in one aligned phase has p = %s, short "
					 "of the %g an effect below %.2fx needs)", slow_c,
					 ap_stats_format_p(p_mw, pb, sizeof(pb)), p->alpha / 100,
					 p->min_slowdown);
			else if (v->p_structure <= p->alpha)
				note_add(&s, " (the %ss differ a little, by %.2fx, in no aligned phase)",
					 oname(&c), slow_d);
			note_add(&s, ": " AP_HINT, p->logical_sector);
			ap_verdict_set_note(v, "%s", s);
			free(s);
		} else {
			/* neither an effect nor its absence is established */
			char *s = NULL, pb[32];

			v->resolved = false;
			v->confidence = 0;
			v->starts_insufficient = missing >= 0 || (seen && !identifiable(&c, &ch));
			set_fast(v, &c, NULL);
			if (best->faster && p_mw <= p->alpha && p_mw > level_for(p, slow_c))
				note_add(&s, "inconclusive: a small alignment effect of %.2fx (p = %s) has "
					 "not yet reached the level an effect below %.2fx needs (p <= "
					 "%g)", slow_c, ap_stats_format_p(p_mw, pb, sizeof(pb)),
					 p->min_slowdown, p->alpha / 100);
			else if (best->faster && p_mw <= p->alpha)
				note_add(&s, "inconclusive: an alignment effect of %.2fx is significant "
					 "(p = %s), but %s", slow_c,
					 ap_stats_format_p(p_mw, pb, sizeof(pb)), misfit ?
					 "one aligned phase does not explain them all" :
					 "the fast and the slow ones do not separate cleanly yet: more "
					 "samples needed");
			else if (v->p_structure <= p->alpha)
				note_add(&s, "inconclusive: the %ss differ (Kruskal-Wallis p = %s), but "
					 "neither one aligned phase nor a split that holds from one "
					 "half of the rounds to the other explains it", oname(&c),
					 ap_stats_format_p(v->p_structure, pb, sizeof(pb)));
			else if (hint && identifiable(&c, &ch))
				note_add(&s, "inconclusive: the timings hint at %u-byte physical sectors "
					 "starting at LBA %u (%.2fx), but there are too few samples",
					 best->period * p->logical_sector, best->phase, slow_c);
			else if (seen) {
				note_add(&s, "inconclusive: %s%s ", oname(&c), best->nf > 1 ? "s" : "");
				note_offsets(&s, &c, candfast);
				note_add(&s, " %s %.2fx faster than the others, but with so few samples "
					 "that is not yet significant (p = %s)", best->nf > 1 ? "are" : "is",
					 slow_c, ap_stats_format_p(p_mw, pb, sizeof(pb)));
			} else if (missing >= 0 && v->equivalence_p <= eq_alpha(p))
				note_add(&s, "inconclusive: the measured %ss do not differ (none by "
					 "%.2fx or more)", oname(&c), p->min_slowdown);
			else
				note_add(&s, "inconclusive: no clear alignment effect, but too few "
					 "samples to rule one out");
			if (missing >= 0) {
				unsigned long long ex = c.off[0] - c.off[0] % p->max_period +
							(unsigned long long)missing;

				if (ex < c.off[0])
					ex += p->max_period;
				note_add(&s, "; and no %s at %ld modulo %u (such as %llu) was measured, "
					 "so %u-byte physical sectors aligned there would leave every "
					 "measured %s equally slow", oname(&c), missing, p->max_period,
					 ex, p->max_period * p->logical_sector, oname(&c));
				note_remedy(&s, &c);
			} else if (seen && !identifiable(&c, &ch)) {
				note_add(&s, "; and ");
				note_unresolvable(&s, &c, &ch);
			}
			ap_verdict_set_note(v, "%s", s);
			free(s);
		}
	}
	v->small = v->sensitive && v->slowdown < p->min_slowdown;

	free(candfast);
	free(clusfast);
	free(allfast);
	free(fast);
	free(slow);
	free(c.w);
	free(c.off);
	free(c.first);
	free(c.cnt);
	free(c.med);
	free(c.tmp);
	return 0;
}

void ap_verdict_free(struct ap_verdict *v)
{
	if (!v)
		return;
	free(v->fast_starts);
	free(v->stats);
	free(v->note_buf);
	memset(v, 0, sizeof(*v));
}

void ap_verdict_copy(struct ap_verdict *dst, const struct ap_verdict *src)
{
	*dst = *src;
	dst->fast_starts = NULL;
	dst->stats = NULL;
	dst->note_buf = NULL;
	if (src->nfast) {
		dst->fast_starts = ap_xmalloc(src->nfast * sizeof(*dst->fast_starts));
		memcpy(dst->fast_starts, src->fast_starts, src->nfast * sizeof(*dst->fast_starts));
	}
	if (src->nstats) {
		dst->stats = ap_xmalloc(src->nstats * sizeof(*dst->stats));
		memcpy(dst->stats, src->stats, src->nstats * sizeof(*dst->stats));
	}
	if (src->note) {
		dst->note_buf = ap_xstrdup(src->note);
		dst->note = dst->note_buf;
	}
}

const char *ap_analysis_unclear_reason(const struct ap_verdict *v,
				       const struct ap_analysis_params *p)
{
	if (!v || !p)
		return "no verdict";
	if (v->min_n < AP_MIN_N_CLEAR)
		return "fewer than 3 measurements at some offset";
	if (v->sensitive && (v->resolved || v->starts_insufficient)) {
		if (!(v->p_value <= p->alpha / 100))
			return "the rank test is significant, but not yet at the stricter level "
			       "(alpha / 100) that an early stop needs after looking at every round";
		if (v->fit < AP_FIT_STABLE)
			return "the fast and the slow offsets do not yet separate cleanly "
			       "(fit below 0.98)";
		return NULL;
	}
	if (v->sensitive) {
		if (v->fit >= AP_FIT_CLEAN && !v->misfit)
			return "the period is not settled yet: more samples needed";
		if (!(v->p_value <= p->alpha / 100))
			return "the offsets differ, but not yet at the stricter level (alpha / 100) "
			       "that an early stop needs";
		if (!(v->fit < AP_FIT_CLEAN - 0.05))
			return "whether one aligned phase explains the offsets is not settled yet";
		return NULL;
	}
	if (v->resolved) {
		if (!(v->confidence >= 1 - eq_alpha(p)))
			return "the test for \"no effect\" has not yet reached the level an early "
			       "stop needs";
		/* a small effect may still emerge: the margin must not hide it */
		if (!(v->p_value > AP_QUIET_P) && v->slowdown >= AP_NEGLIGIBLE)
			return "a difference smaller than the margin is not yet ruled in or out";
		return NULL;
	}
	if (v->starts_insufficient) {
		if (!(v->equivalence_p <= eq_alpha(p)))
			return "neither an effect nor its absence among the measured offsets is "
			       "established yet";
		return NULL;
	}
	return "neither an effect nor its absence is established yet";
}

bool ap_analysis_is_clear(const struct ap_verdict *v, const struct ap_analysis_params *p)
{
	return v && p && !ap_analysis_unclear_reason(v, p);
}

const char *ap_verdict_confidence_of(const struct ap_verdict *v)
{
	if (v->sensitive)
		return "effect";
	if (v->resolved)
		return "no_effect";
	return NULL;
}
