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
 *    for every candidate, the slow observations divided by the margin must
 *    be significantly faster than the fast ones (an intersection-union
 *    test, so no multiplicity correction is needed). The margin is the
 *    smaller of absence_margin and min_slowdown: min_slowdown words the
 *    recommendation, it does not decide whether an effect exists. When only
 *    min_slowdown is ruled out, the verdict says exactly that, unresolved.
 *
 * The steps are in fit.c (3 to 6) and notes.c (what a verdict says); the
 * thresholds in analysisP.h.
 */
#include "analysis/analysis.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysisP.h"
#include "lib/align.h"
#include "lib/stats.h"
#include "lib/util.h"

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
	p->absence_margin = AP_ABSENCE_MARGIN;
	p->offset_name = "offset";
}

double ap_analysis_absence_margin(const struct ap_analysis_params *p)
{
	if (p->absence_margin >= 1 && p->absence_margin < p->min_slowdown)
		return p->absence_margin;
	return p->min_slowdown;
}

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
		/* the window's ratios, sorted: one leaves and one enters a step */
		double win[2 * AP_BURST_WINDOW + 1];
		size_t lo = 0, next = 0, m = 0;

		offset_medians(c);
		for (i = 0; i < c->n; i++) {
			const struct work *x = &c->w[order[i]];
			double med = c->med[x->oi];

			ratio[i] = med > 0 && c->cnt[x->oi] > 1 ? x->cost / med : NAN;
		}
		for (i = 0; i < c->n; i++) {
			size_t hi = i + AP_BURST_WINDOW < c->n ? i + AP_BURST_WINDOW : c->n - 1;

			for (; lo + AP_BURST_WINDOW < i; lo++)
				if (!isnan(ratio[lo]))
					ap_stats_sorted_remove(win, &m, ratio[lo]);
			for (; next <= hi; next++)
				if (!isnan(ratio[next]))
					ap_stats_sorted_insert(win, &m, ratio[next]);
			f[i] = m >= AP_BURST_WINDOW ? ap_stats_quantile_sorted(win, m, 0.5) : 1;
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

void ap_verdict_append_note(struct ap_verdict *v, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (rc < 0)
		return;
	if (v->note)
		ap_verdict_set_note(v, "%s; %s", v->note, s);
	else
		ap_verdict_set_note(v, "%s", s);
	free(s);
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

/* Sort the observations by offset, index their offsets and rounds; the number of rounds. */
static size_t ctx_init(struct ctx *c, const struct ap_obs *obs)
{
	size_t n = c->n, nrounds = 0, i;
	unsigned *rounds;

	c->w = ap_xmalloc(n * sizeof(*c->w));
	for (i = 0; i < n; i++)
		c->w[i] = (struct work){ .offset = obs[i].offset, .round = obs[i].round,
					 .cost = obs[i].cost, .seq = obs[i].seq };
	qsort(c->w, n, sizeof(*c->w), cmp_work_offset);

	/* distinct offsets */
	c->off = ap_xmalloc(n * sizeof(*c->off));
	c->first = ap_xmalloc(n * sizeof(*c->first));
	c->cnt = ap_xmalloc(n * sizeof(*c->cnt));
	for (i = 0; i < n; i++) {
		if (!c->k || c->off[c->k - 1] != c->w[i].offset) {
			c->off[c->k] = c->w[i].offset;
			c->first[c->k] = i;
			c->cnt[c->k] = 0;
			c->k++;
		}
		c->w[i].oi = c->k - 1;
		c->cnt[c->k - 1]++;
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
		unsigned *hit = bsearch(&c->w[i].round, rounds, nrounds, sizeof(*rounds),
					cmp_uint);

		c->w[i].ri = (size_t)(hit - rounds);
	}
	free(rounds);

	c->med = ap_xmalloc(c->k * sizeof(*c->med));
	c->tmp = ap_xmalloc(n * sizeof(*c->tmp));
	return nrounds;
}

static void ctx_free(struct ctx *c)
{
	free(c->w);
	free(c->off);
	free(c->first);
	free(c->cnt);
	free(c->med);
	free(c->tmp);
}

/* Per-offset statistics into @v; c->med becomes their medians. */
static void offset_stats(struct ctx *c, struct ap_verdict *v)
{
	size_t i, j;

	v->nstats = c->k;
	v->stats = ap_xcalloc(c->k, sizeof(*v->stats));
	v->min_n = SIZE_MAX;
	for (i = 0; i < c->k; i++) {
		struct ap_offset_stat *st = &v->stats[i];

		for (j = 0; j < c->cnt[i]; j++)
			c->tmp[j] = c->w[c->first[i] + j].cost;
		st->offset = c->off[i];
		st->n = c->cnt[i];
		st->q1 = ap_stats_quantile(c->tmp, c->cnt[i], 0.25);
		st->median = ap_stats_quantile(c->tmp, c->cnt[i], 0.5);
		st->q3 = ap_stats_quantile(c->tmp, c->cnt[i], 0.75);
		c->med[i] = st->median;
		if (st->n < v->min_n)
			v->min_n = st->n;
	}
}

/* Any offset effect at all (Kruskal-Wallis), and the two-level split of the offsets. */
static void test_structure(const struct ctx *c, struct findings *f, struct ap_verdict *v)
{
	size_t *grp, i;
	double *val;

	if (c->k < 2)
		return;
	grp = ap_xmalloc(c->n * sizeof(*grp));
	val = ap_xmalloc(c->n * sizeof(*val));
	for (i = 0; i < c->n; i++) {
		grp[i] = c->w[i].oi;
		val[i] = c->w[i].cost;
	}
	v->p_structure = ap_stats_kruskal_wallis_p(val, grp, c->n, c->k);
	free(grp);
	free(val);
	ap_fit_two_clusters(c, NULL, f->clusfast);
	f->slow_d = ap_fit_slowdown_of(c, f->clusfast, f->fast, f->slow, NULL, NULL);
}

/* Is every one of @fast below every one of @slow? */
static bool complete_split(const double *fast, size_t nf, const double *slow, size_t ns)
{
	double hi = -INFINITY, lo = INFINITY;
	size_t i;

	for (i = 0; i < nf; i++)
		hi = fmax(hi, fast[i]);
	for (i = 0; i < ns; i++)
		lo = fmin(lo, slow[i]);
	return nf && ns && hi < lo;
}

/* The candidate that explains the offsets best, and the test for its effect. */
static void test_effect(const struct ctx *c, struct findings *f, struct ap_verdict *v)
{
	const struct ap_analysis_params *p = c->p;
	const struct cand *best = &f->ch.best;
	size_t nf, ns;

	f->ncand = ap_fit_choose_candidate(c, &f->ch, f->candfast);
	if (f->ncand) {
		v->fit = best->auc;
		f->misfit = ap_fit_model_misfit(c, f->candfast, p->alpha);
		v->misfit = f->misfit;
		f->slow_c = ap_fit_slowdown_of(c, f->candfast, f->fast, f->slow, &nf, &ns);
		f->split = complete_split(f->fast, nf, f->slow, ns);
		/*
		 * Bonferroni over the distinct hypotheses (aliases test the
		 * same), but for the one named beforehand: the chance that it
		 * is both the best and significant is at most its own level.
		 */
		f->hyp = p->hyp_period && best->period == p->hyp_period &&
			 best->phase == p->hyp_phase;
		f->p_mw = ap_stats_mann_whitney_p(f->fast, nf, f->slow, ns) *
			  (f->hyp ? 1 : (double)f->ch.ndistinct);
		if (f->p_mw > 1)
			f->p_mw = 1;
	}
	f->missing = ap_fit_missing_residue(c);
	/*
	 * An established effect, whatever its size: one aligned phase explains
	 * it. Below min_slowdown, where a drift or the I/O stack could fake
	 * one, at the stricter level an early stop needs (alpha / 100).
	 */
	f->phase_effect = f->ncand && best->faster && best->auc >= AP_FIT_CLEAN && !f->misfit &&
			  f->slow_c >= AP_NEGLIGIBLE && f->p_mw <= level_for(p, f->slow_c);
}

/*
 * Or structure without a phase, confirmed on rounds it was not found on.
 * No model protects such a claim from what the I/O stack does at some
 * offsets (a few per cent where a write crosses a boundary of the layers
 * below), so here min_slowdown stays a gate, on the slowdown found and on
 * the one held out.
 */
static void test_held_out(const struct ctx *c, struct findings *f, const struct ap_verdict *v)
{
	const struct ap_analysis_params *p = c->p;

	if (c->k >= 2 && f->nrounds >= 2 && v->p_structure <= p->alpha &&
	    f->slow_d >= p->min_slowdown)
		f->p_cv = ap_fit_cross_validated_p(c, &f->slow_cv);
	f->structure = f->p_cv <= p->alpha && f->slow_cv >= p->min_slowdown;
}

/* The fields every outcome sets: the claim, the effect's size and evidence, the fast offsets. */
static void set_outcome(struct ap_verdict *v, const struct ctx *c, bool sensitive,
			double slowdown, double p_value, double confidence, const bool *fastoff)
{
	v->sensitive = sensitive;
	v->slowdown = slowdown;
	v->p_value = p_value;
	v->confidence = ap_clamp01(confidence);
	set_fast(v, c, fastoff);
}

/* A resolved verdict: a unit of @period logical sectors from LBA @phase (1, 0: none). */
static void set_unit(struct ap_verdict *v, unsigned period, unsigned phase)
{
	v->resolved = true;
	v->period = period;
	v->physical_sector = period * v->logical_sector;
	v->lowest_aligned_lba = phase;
}

/*
 * No effect established: "no effect" when the equivalence test at the
 * absence margin shows it; "none of min_slowdown or more" (unresolved) when
 * only that larger margin is ruled out; else inconclusive.
 */
static void test_absence(struct ap_verdict *v, const struct ctx *c, const struct findings *f)
{
	const struct ap_analysis_params *p = c->p;
	const struct cand *best = &f->ch.best;
	double margin = ap_analysis_absence_margin(p);
	double conf = ap_fit_absence_confidence(c, margin, f->fast, f->slow), conf_large;
	/* a visible difference: a clean split that is the medians' own,
	 * of a size that counts; a hint at a unit only with some evidence */
	bool seen = best->faster && best->auc >= AP_FIT_CLEAN && f->slow_c >= p->min_slowdown &&
		    !memcmp(f->candfast, f->clusfast, c->k * sizeof(*f->candfast));
	bool hint = seen && f->p_mw <= AP_HINT_P;
	/* a significant phase effect that is not clean yet blocks "no effect" */
	bool blocked = best->faster && f->slow_c >= AP_NEGLIGIBLE &&
		       f->p_mw <= level_for(p, f->slow_c);

	v->equivalence_p = ap_clamp01(1 - conf);
	conf_large = margin < p->min_slowdown && conf < AP_ABSENCE_CONF ?
		     ap_fit_absence_confidence(c, p->min_slowdown, f->fast, f->slow) : conf;
	if (f->missing < 0 && conf >= AP_ABSENCE_CONF && !blocked) {
		bool *allfast = ap_xmalloc(c->k * sizeof(*allfast));
		size_t i;

		for (i = 0; i < c->k; i++)
			allfast[i] = true;
		set_unit(v, 1, 0);
		set_outcome(v, c, false, f->slow_c, f->p_mw, conf, allfast);
		v->ruled_out_up_to = (uint64_t)p->max_period * v->logical_sector;
		free(allfast);
		ap_note_no_effect(v, c, f, conf);
	} else if (f->missing < 0 && conf_large >= AP_ABSENCE_CONF && !blocked) {
		/* true, but not "no effect": a small one may be there */
		v->absence_partial = true;
		set_outcome(v, c, false, f->slow_c, f->p_mw, 0, NULL);
		ap_note_partial(v, c, f);
	} else {
		/* neither an effect nor its absence is established */
		v->starts_insufficient = f->missing >= 0 ||
					 (seen && !ap_fit_identifiable(c, &f->ch));
		set_outcome(v, c, false, f->slow_c, f->p_mw, 0, NULL);
		ap_note_inconclusive(v, c, f, seen, hint,
				     margin < p->min_slowdown && conf_large >= AP_ABSENCE_CONF);
	}
}

/*
 * The observations as every test sees them: @c filled from @obs, the
 * drift between rounds corrected (its factor in @drift, 1 without two
 * rounds) and the bursts; the number of rounds.
 */
static size_t ctx_corrected(struct ctx *c, const struct ap_obs *obs, double *drift)
{
	size_t nrounds = ctx_init(c, obs);

	*drift = nrounds >= 2 ? correct_drift(c, nrounds) : 1;
	correct_bursts(c);
	return nrounds;
}

/* The verdict from what the tests found. */
static void decide(struct ap_verdict *v, const struct ctx *c, const struct findings *f)
{
	const struct cand *best = &f->ch.best;
	bool identifiable = f->phase_effect && ap_fit_identifiable(c, &f->ch);

	if (identifiable && (!f->ch.unsettled || f->hyp)) {
		/* one phase explains it: the hidden unit */
		set_unit(v, best->period, best->phase);
		set_outcome(v, c, true, f->slow_c, f->p_mw, 1 - f->p_mw, f->candfast);
		v->split = f->split;
		ap_note_unit(v, c);
	} else if (identifiable) {
		/* an aligned phase, but its period is not settled yet */
		set_outcome(v, c, true, f->slow_c, f->p_mw, 1 - f->p_mw, NULL);
		ap_note_unsettled(v, c, &f->ch);
	} else if (f->phase_effect) {
		/* an aligned phase, but these offsets cannot resolve its period */
		v->starts_insufficient = true;
		set_outcome(v, c, true, f->slow_c, f->p_mw, 1 - f->p_mw, f->candfast);
		ap_note_phase_unresolved(v, c, f);
	} else if (f->structure) {
		/* an effect, but no single aligned phase */
		set_outcome(v, c, true, f->slow_d, v->p_structure, 1 - v->p_structure,
			    f->clusfast);
		ap_note_structure(v, c);
	} else if (!f->ncand) {
		v->starts_insufficient = true;
		set_outcome(v, c, false, f->slow_d, v->p_structure, 0, NULL);
		ap_note_no_candidate(v, c);
	} else {
		test_absence(v, c, f);
	}
}

int ap_analysis_run(const struct ap_obs *obs, size_t n,
		    const struct ap_analysis_params *p, struct ap_verdict *v)
{
	struct ctx c = { .p = p, .n = n };
	struct findings f = { .p_mw = 1, .slow_c = 1, .slow_d = 1, .p_cv = 1, .slow_cv = 0 };
	size_t i;

	if (!v)
		return -EINVAL;
	memset(v, 0, sizeof(*v));
	if (!obs || !n || !p || !p->logical_sector || !p->max_period ||
	    !(p->alpha > 0 && p->alpha < 1) || !(p->min_slowdown >= 1) ||
	    !(p->absence_margin == 0 || p->absence_margin >= 1))
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
	v->absence_margin = ap_analysis_absence_margin(p);
	v->equivalence_p = NAN;

	f.nrounds = ctx_corrected(&c, obs, &v->drift);
	offset_stats(&c, v);

	f.candfast = ap_xcalloc(c.k, sizeof(*f.candfast));
	f.clusfast = ap_xcalloc(c.k, sizeof(*f.clusfast));
	f.fast = ap_xmalloc(n * sizeof(*f.fast));
	f.slow = ap_xmalloc(n * sizeof(*f.slow));
	test_structure(&c, &f, v);
	test_effect(&c, &f, v);
	test_held_out(&c, &f, v);
	decide(v, &c, &f);
	v->small = v->sensitive && v->slowdown < p->min_slowdown;
	v->tentative = v->resolved && !ap_analysis_is_clear(v, p);

	free(f.candfast);
	free(f.clusfast);
	free(f.fast);
	free(f.slow);
	ctx_free(&c);
	return 0;
}

unsigned ap_analysis_absence_weak(const struct ap_obs *obs, size_t n,
				  const struct ap_analysis_params *p, bool *weak)
{
	struct ctx c = { .p = p, .n = n };
	double *fast, *slow, drift;
	unsigned nweak;
	size_t i;

	if (!obs || !n || !p || !p->max_period || !weak)
		return 0;
	for (i = 0; i < p->max_period; i++)
		weak[i] = false;
	/* the observations as ap_analysis_run() tests them */
	ctx_corrected(&c, obs, &drift);
	fast = ap_xmalloc(n * sizeof(*fast));
	slow = ap_xmalloc(n * sizeof(*slow));
	nweak = ap_fit_absence_weak(&c, ap_analysis_absence_margin(p), eq_alpha(p), fast, slow,
				    weak);
	free(fast);
	free(slow);
	ctx_free(&c);
	return nweak;
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

bool ap_verdict_offset_aligned(const struct ap_verdict *v, uint64_t off)
{
	return !v->period || ap_align_is_aligned(off, 1, v->period, v->lowest_aligned_lba);
}

static uint64_t recommended_from(const struct ap_verdict *v, uint64_t from)
{
	if (!v || !v->resolved || !v->sensitive || v->period <= 1)
		return from;
	return ap_align_next(from, 1, v->period, v->lowest_aligned_lba);
}

void ap_verdict_recommend(const struct ap_verdict *v, uint64_t first_usable, uint64_t *at_1mib,
			  uint64_t *first)
{
	uint64_t mib = v && v->logical_sector ? (1ULL << 20) / v->logical_sector : 2048;

	if (!mib)
		mib = 1;
	*at_1mib = recommended_from(v, mib);
	*first = recommended_from(v, first_usable);
}

double ap_verdict_min_median(const struct ap_verdict *v)
{
	double m = INFINITY;
	size_t i;

	for (i = 0; i < v->nstats; i++)
		if (v->stats[i].median < m)
			m = v->stats[i].median;
	return m;
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

/* Does @v show the unit @p named beforehand (hyp_period)? */
static bool confirms_hyp(const struct ap_verdict *v, const struct ap_analysis_params *p)
{
	return p->hyp_period && v->sensitive && v->resolved && v->period == p->hyp_period &&
	       v->lowest_aligned_lba == p->hyp_phase;
}

/*
 * Observations per offset an early stop needs: AP_MIN_N_CLEAR, so that
 * each offset's median outvotes an outlier; fewer where there is nothing
 * to outvote: a unit named beforehand (design.md 3.4), or a complete
 * split where the params allow it (3.6).
 */
static size_t min_n_needed(const struct ap_verdict *v, const struct ap_analysis_params *p)
{
	size_t n = AP_MIN_N_CLEAR;

	if (confirms_hyp(v, p))
		n = AP_MIN_N_HYP;
	if (p->split_min_n && v->split && p->split_min_n < n)
		n = p->split_min_n;
	return n;
}

const char *ap_analysis_unclear_reason(const struct ap_verdict *v,
				       const struct ap_analysis_params *p)
{
	if (!v || !p)
		return "no verdict";
	if (v->min_n < min_n_needed(v, p))
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
	if (v->absence_partial)
		return "no effect of --min-slowdown or more, but a smaller one (down to the "
		       "margin of \"no effect\") is neither established nor ruled out yet";
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

bool ap_analysis_is_clear_but_count(const struct ap_verdict *v,
				    const struct ap_analysis_params *p)
{
	struct ap_verdict c;

	if (!v || !p)
		return false;
	c = *v;		/* shallow: only read */
	if (c.min_n < AP_MIN_N_CLEAR)
		c.min_n = AP_MIN_N_CLEAR;
	return !ap_analysis_unclear_reason(&c, p);
}

const char *ap_verdict_confidence_of(const struct ap_verdict *v)
{
	if (v->sensitive)
		return "effect";
	if (v->resolved)
		return "no_effect";
	return NULL;
}
