// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The model's fit (see analysis.c, steps 3 to 6): the candidate units and
 * the one that explains the per-offset medians best, its nested
 * neighbours, the two-level split of the offsets with or without a phase,
 * and the tests on them (misfit, held-out rounds, equivalence).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysisP.h"
#include "lib/stats.h"
#include "lib/util.h"

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
double ap_fit_slowdown_of(const struct ctx *c, const bool *fastoff, double *fast, double *slow,
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
size_t ap_fit_choose_candidate(const struct ctx *c, struct choice *ch, bool *fastoff)
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

void ap_fit_two_clusters(const struct ctx *c, const bool *mask, bool *fastoff)
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
double ap_fit_cross_validated_p(const struct ctx *c, double *slowdown)
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
bool ap_fit_model_misfit(const struct ctx *c, const bool *fastoff, double alpha)
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
		ap_fit_two_clusters(c, mask, lower);
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
 * The equivalence tests at @margin (see ap_fit_absence_confidence()): the
 * largest p over them; with @weak, also each residue modulo max_period
 * marked whose own candidate or any coarser one containing it has p > @level.
 */
static int cmp_work_cost(const void *a, const void *b)
{
	const struct work *x = *(const struct work *const *)a, *y = *(const struct work *const *)b;

	return (x->cost > y->cost) - (x->cost < y->cost);
}

static double absence_worst(const struct ctx *c, double margin, double *fast, double *slow,
			    double level, bool *weak)
{
	unsigned P, R = c->p->max_period, top = 1;
	size_t n = c->n ? c->n : 1, i;
	const struct work **by_cost = ap_xreallocarray(NULL, n, sizeof(*by_cost));
	unsigned *lo = ap_xreallocarray(NULL, n, sizeof(*lo));
	double *cost = ap_xreallocarray(NULL, n, sizeof(*cost)), worst = 0;

	/*
	 * Every test splits the same writes: sorted by cost once, each split
	 * comes out sorted (cost / margin keeps the order), and the rank test
	 * merges instead of sorting. The periods are powers of two: a phase
	 * is the offset's low bits, kept beside the costs in that order.
	 */
	for (i = 0; i < c->n; i++)
		by_cost[i] = &c->w[i];
	qsort(by_cost, c->n, sizeof(*by_cost), cmp_work_cost);
	while (top <= R / 2)
		top *= 2;
	for (i = 0; i < c->n; i++) {
		lo[i] = (unsigned)(by_cost[i]->offset & (top - 1));
		cost[i] = by_cost[i]->cost;
	}
	for (P = 2; P >= 2 && P <= R; P *= 2) {
		unsigned ph, res;

		for (ph = 0; ph < P; ph++) {
			size_t nf = 0, ns = 0, fo = 0;
			double pv;

			for (i = 0; i < c->k; i++)
				if ((c->off[i] & (P - 1)) == ph)
					fo++;
			if (!fo || fo == c->k)
				continue;
			for (i = 0; i < c->n; i++) {
				if ((lo[i] & (P - 1)) == ph)
					fast[nf++] = cost[i];
				else
					slow[ns++] = cost[i] / margin;
			}
			/* small p: slow / margin is below fast */
			pv = ap_stats_mann_whitney_sorted_p(slow, ns, fast, nf);
			if (pv > worst)
				worst = pv;
			if (weak && pv > level)
				for (res = ph; res < R; res += P)
					weak[res] = true;
			if (worst >= 1 && !weak)
				goto out;
		}
	}
out:
	free(by_cost);
	free(lo);
	free(cost);
	return worst;
}

/*
 * Confidence that there is no unit with a slowdown of @margin or more
 * among the candidates the measured offsets can test (every phase with a
 * measured member and a measured non-member, single members included): 1 -
 * the largest equivalence-test p-value over them. Phases without a measured
 * member are not covered: see ap_fit_missing_residue().
 */
double ap_fit_absence_confidence(const struct ctx *c, double margin, double *fast,
				 double *slow)
{
	return 1 - absence_worst(c, margin, fast, slow, 1, NULL);
}

/*
 * The residues modulo max_period (@weak, max_period entries, set true) in
 * a candidate whose equivalence test at @margin has p > @level: where more
 * observations can bring "no effect" to that level. Their number.
 */
unsigned ap_fit_absence_weak(const struct ctx *c, double margin, double level, double *fast,
			     double *slow, bool *weak)
{
	unsigned i, nweak = 0;

	absence_worst(c, margin, fast, slow, level, weak);
	for (i = 0; i < c->p->max_period; i++)
		nweak += weak[i];
	return nweak;
}

/* The smallest residue modulo max_period that no measured offset has, or -1. */
long ap_fit_missing_residue(const struct ctx *c)
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
bool ap_fit_identifiable(const struct ctx *c, const struct choice *ch)
{
	return ch->nalias == 1 && ch->best.nf >= 2 && c->k - ch->best.nf >= 2;
}
