// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The probe's decision (see probe.h): the analysis of each size, and the
 * verdict over them. The schedule that measures them is in schedule.c.
 */
#include "probe/probe.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stats.h"

void ap_probe_size_params(const struct ap_probe_result *r, const struct ap_probe_opts *o,
			  const struct ap_probe_size *sz, struct ap_analysis_params *p)
{
	ap_analysis_params_init(p, r->plan.logical_sector, r->plan.reported_physical);
	p->max_period = (unsigned)(sz->size / r->plan.logical_sector);
	if (o->alpha > 0)
		p->alpha = o->alpha;
	if (o->min_slowdown > 0)
		p->min_slowdown = o->min_slowdown;
	p->absence_margin = o->absence_margin > 0 ? o->absence_margin : AP_PROBE_ABSENCE_MARGIN;
	if (sz->margin > 0)
		p->absence_margin = sz->margin;
	if (sz->hyp && r->screen.size && r->screen.verdict.period <= p->max_period) {
		p->hyp_period = r->screen.verdict.period;
		p->hyp_phase = r->screen.verdict.lowest_aligned_lba;
	}
}

/*
 * The phase screen measures each phase k at offset k or k + noffsets (the
 * half alternates with the round): a unit larger than the size makes the
 * writes of one half straddle its boundary, and slower -- as the full size
 * would show (every offset up to twice the size). Do the halves differ, by
 * min(absence margin) or more, at alpha / 2 either way?
 */
static bool halves_differ(const struct ap_probe_result *r, size_t idx,
			  const struct ap_analysis_params *p)
{
	const struct ap_probe_size *sz = &r->sizes[idx];
	double *a = ap_xmalloc(sz->n * sizeof(*a)), *b = ap_xmalloc(sz->n * sizeof(*b));
	double ma, mb, lo, hi;
	size_t i, na = 0, nb = 0;
	bool differ = false;

	for (i = 0; i < sz->n; i++) {
		const struct ap_probe_sample *s = &r->samples[sz->first + i];

		if (s->offset < sz->noffsets)
			a[na++] = (double)s->ns;
		else
			b[nb++] = (double)s->ns;
	}
	if (na >= 3 && nb >= 3) {
		double pa = ap_stats_mann_whitney_p(a, na, b, nb);
		double pb = ap_stats_mann_whitney_p(b, nb, a, na);

		ma = ap_stats_median(a, na);
		mb = ap_stats_median(b, nb);
		lo = ma < mb ? ma : mb;
		hi = ma < mb ? mb : ma;
		differ = (pa < p->alpha / 2 || pb < p->alpha / 2) &&
			 hi >= ap_analysis_absence_margin(p) * lo;
	}
	free(a);
	free(b);
	return differ;
}

double ap_probe_size_quantile(const struct ap_probe_result *r, size_t idx, double q)
{
	const struct ap_probe_size *sz = &r->sizes[idx];
	double *v, x;
	size_t i;

	if (!sz->n)
		return 0;
	v = ap_xmalloc(sz->n * sizeof(*v));
	for (i = 0; i < sz->n; i++)
		v[i] = (double)r->samples[sz->first + i].ns;
	x = ap_stats_quantile(v, sz->n, q);
	free(v);
	return x;
}

/* The observations of size @sz for the analysis. Caller frees. */
static struct ap_obs *size_obs(const struct ap_probe_result *r, const struct ap_probe_size *sz)
{
	struct ap_obs *obs = ap_xmalloc(sz->n * sizeof(*obs));
	size_t i;

	for (i = 0; i < sz->n; i++) {
		const struct ap_probe_sample *s = &r->samples[sz->first + i];

		/* the phase screen: its phase (it measured it in either half) */
		obs[i] = (struct ap_obs){ .offset = sz->phases ? s->offset % sz->noffsets :
					  s->offset, .round = s->round,
					  .cost = (double)s->ns, .seq = sz->first + i + 1 };
	}
	return obs;
}

unsigned ap_probe_weak_phases(const struct ap_probe_result *r, size_t idx,
			      const struct ap_probe_opts *o, bool *weak)
{
	const struct ap_probe_size *sz = &r->sizes[idx];
	struct ap_analysis_params p;
	struct ap_obs *obs;
	unsigned nweak;

	if (!sz->n)
		return 0;
	ap_probe_size_params(r, o, sz, &p);
	obs = size_obs(r, sz);
	nweak = ap_analysis_absence_weak(obs, sz->n, &p, weak);
	free(obs);
	return nweak;
}

int ap_probe_analyse_size(struct ap_probe_result *r, size_t idx, const struct ap_probe_opts *o)
{
	struct ap_probe_size *sz = &r->sizes[idx];
	struct ap_analysis_params p;
	struct ap_obs *obs;
	int rc;

	/* nothing of an earlier analysis outlives its verdict */
	ap_verdict_free(&sz->verdict);
	sz->analysed = sz->clear = sz->halves_differ = sz->nominates = false;
	if (!sz->n)
		return -EINVAL;
	ap_probe_size_params(r, o, sz, &p);
	obs = size_obs(r, sz);
	rc = ap_analysis_run(obs, sz->n, &p, &sz->verdict);
	free(obs);
	if (rc)
		return rc;
	sz->analysed = true;
	if (sz->phases)
		sz->halves_differ = halves_differ(r, idx, &p);
	sz->clear = ap_analysis_is_clear(&sz->verdict, &p);
	sz->nominates = sz->phases && sz->verdict.sensitive && sz->verdict.resolved &&
			!sz->halves_differ && ap_analysis_is_clear_but_count(&sz->verdict, &p);
	return 0;
}

static void unresolve(struct ap_verdict *v)
{
	v->resolved = false;
	v->physical_sector = 0;
	v->period = 0;
	v->lowest_aligned_lba = 0;
	free(v->fast_starts);
	v->fast_starts = NULL;
	v->nfast = 0;
}

/* No verdict at all: neither an effect nor its absence is claimed. */
static void no_claim(struct ap_verdict *v)
{
	unresolve(v);
	v->sensitive = false;
	v->small = false;
	v->confidence = 0;
}

/* Why size @idx is not clear, into r->unclear ("" when it is). */
static void size_unclear(struct ap_probe_result *r, int idx, const struct ap_probe_opts *o)
{
	const struct ap_probe_size *sz = &r->sizes[idx];
	struct ap_analysis_params p;
	const char *why;
	char b[32];

	ap_probe_size_params(r, o, sz, &p);
	why = sz->clear ? NULL : ap_analysis_unclear_reason(&sz->verdict, &p);
	if (why)
		snprintf(r->unclear, sizeof(r->unclear), "%s writes: %s",
			 ap_size_exact(sz->size, b, sizeof(b)), why);
	else
		r->unclear[0] = '\0';
}

/* Do @a and @b both show a unit, the same one at the same phase? */
static bool same_unit(const struct ap_verdict *a, const struct ap_verdict *b)
{
	return a->sensitive && a->resolved && b->sensitive && b->resolved &&
	       a->period == b->period && a->lowest_aligned_lba == b->lowest_aligned_lba;
}

/* The deciding size @d against the confirming one: confirmed, inconsistent, or no verdict. */
static void confirm_unit(struct ap_probe_result *r, const struct ap_probe_opts *o,
			 const struct ap_probe_size *d)
{
	struct ap_verdict *v = &r->verdict;
	const struct ap_probe_size *c = &r->sizes[r->confirmed];
	const struct ap_verdict *cv = &c->verdict;
	char b1[32], b2[32];

	if (same_unit(cv, v)) {	/* v: the deciding size's, which shows its unit */
		ap_verdict_set_note(v, "%s writes show %u-byte physical sectors from LBA %u; "
			 "%s writes confirm it", ap_size_exact(d->size, b1, sizeof(b1)),
			 v->physical_sector, v->lowest_aligned_lba,
			 ap_size_exact(c->size, b2, sizeof(b2)));
		r->clear = d->clear && c->clear;
		if (d->clear)
			size_unclear(r, r->confirmed, o);
	} else if (cv->sensitive && cv->resolved) {
		ap_verdict_set_note(v, "inconsistent: %s writes show %u-byte physical sectors "
			 "from LBA %u, %s writes %u-byte ones from LBA %u",
			 ap_size_exact(d->size, b1, sizeof(b1)), v->physical_sector,
			 v->lowest_aligned_lba, ap_size_exact(c->size, b2, sizeof(b2)),
			 cv->physical_sector, cv->lowest_aligned_lba);
		unresolve(v);
		r->clear = false;
		snprintf(r->unclear, sizeof(r->unclear), "the write sizes disagree");
	} else {
		/*
		 * A unit of P sectors shows the same phase at every size of P
		 * sectors or more: one the next size does not show is no
		 * property of the drive (load can fake one size), so no verdict.
		 */
		ap_verdict_set_note(v, "no verdict: %s writes show %u-byte physical "
			 "sectors from LBA %u, but %s writes did not confirm it (%s)",
			 ap_size_exact(d->size, b1, sizeof(b1)), v->physical_sector,
			 v->lowest_aligned_lba, ap_size_exact(c->size, b2, sizeof(b2)),
			 cv->note ? cv->note : "inconclusive");
		no_claim(v);
		r->clear = false;
		snprintf(r->unclear, sizeof(r->unclear), "%s writes did not confirm it",
			 ap_size_exact(c->size, b2, sizeof(b2)));
	}
}

bool ap_probe_screen_agrees(const struct ap_probe_result *r, const struct ap_verdict *v)
{
	return r->screen.size && r->screen.nominates && same_unit(&r->screen.verdict, v);
}

/* Is size @i the largest the plan has (whose "no effect" covers every unit up to it)? */
static bool covers_largest(const struct ap_probe_result *r, size_t i)
{
	return r->plan.nsizes && r->sizes[i].size == r->plan.sizes[r->plan.nsizes - 1];
}

/* The margin a phase screen's "no effect" claims for every size (see phase_screen_margin()). */
static double claimed_margin(const struct ap_probe_result *r, const struct ap_probe_opts *o)
{
	struct ap_analysis_params p;

	ap_probe_size_params(r, o, &r->sizes[0], &p);
	return ap_analysis_absence_margin(&p);
}

/* What a phase screen's "no effect" rests on, for the note. */
static const char *screen_words(const struct ap_probe_result *r, size_t i)
{
	static __thread char b[192];
	char b1[32];

	snprintf(b, sizeof(b), "; %s writes at each of its %u phases show none, with a margin "
		 "of %.3fx: their cost does not grow with the size, so a partial sector would "
		 "cost smaller writes at least as much", ap_size_exact(r->sizes[i].size, b1,
		 sizeof(b1)), r->sizes[i].noffsets, r->sizes[i].verdict.absence_margin);
	return b;
}

/* The verdict when no size showed a unit: honest, too large a unit, or none. */
static void decide_without_unit(struct ap_probe_result *r, const struct ap_probe_opts *o,
				size_t last, size_t structured)
{
	struct ap_verdict *v = &r->verdict;
	char b1[32], b2[32], pb[32];

	if (last == SIZE_MAX) {
		v->logical_sector = r->plan.logical_sector;
		v->reported_physical = r->plan.reported_physical;
		v->p_value = 1;
		v->slowdown = 1;
		v->equivalence_p = NAN;
		ap_verdict_set_note(v, "nothing was measured");
		snprintf(r->unclear, sizeof(r->unclear), "nothing was measured");
	} else if (structured != SIZE_MAX && structured == last) {
		/* the largest size measured still shows structure without a clean phase */
		ap_verdict_copy(v, &r->sizes[structured].verdict);
		unresolve(v);
		r->clear = r->sizes[structured].clear && covers_largest(r, last);
		if (!covers_largest(r, last))
			snprintf(r->unclear, sizeof(r->unclear), "larger writes were not measured");
		else
			size_unclear(r, structured, o);
		ap_verdict_set_note(v, "every write size up to %s shows an alignment effect without a "
			 "single aligned phase: the hidden unit is probably larger than %s "
			 "(try a larger --max-size)", ap_size_exact(r->sizes[last].size, b1, sizeof(b1)),
			 ap_size_exact(r->sizes[last].size, b2, sizeof(b2)));
	} else if (structured == SIZE_MAX && covers_largest(r, last) &&
		   r->sizes[last].verdict.resolved && !r->sizes[last].verdict.sensitive) {
		/*
		 * No size shows an effect, and the largest one, which would show
		 * any unit up to its own size as a clean phase, rules one out
		 * (smaller sizes that stayed inconclusive do not change that).
		 */
		ap_verdict_copy(v, &r->sizes[last].verdict);
		r->clear = r->sizes[last].clear;
		size_unclear(r, last, o);
		if (r->mode == AP_PROBE_READONLY) {
			unresolve(v);
			r->clear = false;
			v->confidence = 0;
			v->equivalence_p = NAN;
			snprintf(r->unclear, sizeof(r->unclear), "read timings only");
			ap_verdict_set_note(v, "read timings show no alignment effect at any size from %s to "
				 "%s; this is weak evidence: most drives read misaligned data at "
				 "almost no extra cost, so it does not show honest sectors. Only "
				 "a writing probe (--preserve keeps the data) can tell",
				 ap_size_exact(r->sizes[0].size, b1, sizeof(b1)),
				 ap_size_exact(r->sizes[last].size, b2, sizeof(b2)));
		} else {
			if (r->sizes[last].phases)
				v->absence_margin = claimed_margin(r, o);
			ap_verdict_set_note(v, "no alignment effect of %.2fx or more for writes from %s "
				 "to %s: the drive behaves like honest %u-byte sectors (or hides "
				 "a unit larger than %s)%s", v->absence_margin,
				 ap_size_exact(r->sizes[0].size, b1, sizeof(b1)),
				 ap_size_exact(r->sizes[last].size, b2, sizeof(b2)),
				 r->plan.logical_sector, ap_size_exact(r->sizes[last].size, b2, sizeof(b2)),
				 r->sizes[last].phases ? screen_words(r, last) : "");
		}
	} else if (structured == SIZE_MAX && covers_largest(r, last) &&
		   r->sizes[last].verdict.absence_partial) {
		/*
		 * The largest size rules out effects of min_slowdown or more, not
		 * a smaller one: said exactly, no verdict.
		 */
		const struct ap_verdict *lv = &r->sizes[last].verdict;

		ap_verdict_copy(v, lv);
		size_unclear(r, last, o);
		ap_verdict_set_note(v, "no alignment effect of %.2fx or more for writes from %s to "
			 "%s, but a smaller one (flash shows 1.1-1.5x) is not ruled out (%s "
			 "writes: equivalence p = %s for %.2fx): no verdict, the drive is not "
			 "shown to be honest", lv->min_slowdown,
			 ap_size_exact(r->sizes[0].size, b1, sizeof(b1)),
			 ap_size_exact(r->sizes[last].size, b2, sizeof(b2)),
			 ap_size_exact(r->sizes[last].size, b2, sizeof(b2)),
			 ap_stats_format_p(lv->equivalence_p, pb, sizeof(pb)), lv->absence_margin);
	} else {
		ap_verdict_copy(v, &r->sizes[last].verdict);
		no_claim(v);
		snprintf(r->unclear, sizeof(r->unclear), "no verdict");
		ap_verdict_set_note(v, "no verdict: %s (measured up to %s writes)",
			 r->interrupted ? "interrupted" : r->budget_out ? "the time budget ran out" :
			 "the timings were inconclusive", ap_size_exact(r->sizes[last].size, b1, sizeof(b1)));
}
}

/*
 * A buffer that serves read-modify-writes (issue 26) makes one offset fast in
 * one round and slow in the next, as what the writes before it touched
 * decides: no property of the offset. A hidden unit's effect, whatever its
 * size, is one: the slots are aligned, so an offset has the same partial
 * sectors in every round. On a rotating disk (two levels a revolution apart)
 * an effect without a unit whose offsets are mixed -- a third of them with
 * observations on both sides of the levels' midpoint, the minority a
 * quarter of their own or more -- has that cause, not a larger unit.
 */
static bool size_mixed(const struct ap_probe_result *r, size_t idx, unsigned *nmixed)
{
	const struct ap_probe_size *sz = &r->sizes[idx];
	unsigned *lo, *hi, k, mixed = 0, measured = 0;
	unsigned noff = sz->phases ? 2 * sz->noffsets : sz->noffsets;
	double qlo = ap_probe_size_quantile(r, idx, 0.1), qhi = ap_probe_size_quantile(r, idx, 0.9), mid;
	size_t i;

	if (!(qhi > 1.5 * qlo))
		return false;	/* not two levels */
	mid = (qlo + qhi) / 2;
	lo = ap_xcalloc(noff, sizeof(*lo));
	hi = ap_xcalloc(noff, sizeof(*hi));
	for (i = 0; i < sz->n; i++) {
		const struct ap_probe_sample *s = &r->samples[sz->first + i];

		if (s->offset < noff)
			((double)s->ns < mid ? lo : hi)[s->offset]++;
	}
	for (k = 0; k < noff; k++) {
		unsigned n = lo[k] + hi[k], m = lo[k] < hi[k] ? lo[k] : hi[k];

		if (n < 3)
			continue;
		measured++;
		if (m >= 1 && 4 * m >= n)
			mixed++;
	}
	free(lo);
	free(hi);
	*nmixed = mixed;
	return measured && 3 * mixed >= measured;
}

static void mixed_levels_check(struct ap_probe_result *r)
{
	unsigned nmixed = 0;
	size_t i;
	char b1[32];

	if (r->failed || !r->rotating || r->mode == AP_PROBE_READONLY ||
	    (r->verdict.resolved && (!r->verdict.sensitive || r->confirmed >= 0 ||
				     r->screen_confirms)))
		return;
	for (i = 0; i < r->nsizes; i++) {
		if (!r->sizes[i].analysed || !r->sizes[i].verdict.sensitive ||
		    !size_mixed(r, i, &nmixed))
			continue;
		ap_probe_result_fail(r, AP_PROBE_RMW_BUFFERED,
				     "%u of %u offsets of the %s writes were fast in some "
				     "rounds and a revolution slower in others: a buffer in "
				     "the drive serves some read-modify-writes from data it "
				     "still holds, so a write's cost depends on what was "
				     "written before it, not on its alignment, and these "
				     "timings show no unit; a sweep, whose workload exceeds "
				     "such a buffer, can still tell", nmixed,
				     r->sizes[i].noffsets,
				     ap_size_exact(r->sizes[i].size, b1, sizeof(b1)));
		return;
	}
}

void ap_probe_decide(struct ap_probe_result *r, const struct ap_probe_opts *o)
{
	struct ap_verdict *v = &r->verdict;
	size_t i, last = SIZE_MAX, structured = SIZE_MAX;
	char b1[32], b2[32];

	ap_verdict_free(v);
	r->decided = r->confirmed = -1;
	r->screen_confirms = false;
	r->clear = false;
	r->unclear[0] = '\0';

	for (i = 0; i < r->nsizes; i++) {
		const struct ap_probe_size *sz = &r->sizes[i];

		if (!sz->analysed)
			continue;
		last = i;
		if (sz->verdict.sensitive && sz->verdict.resolved && r->decided < 0) {
			r->decided = (int)i;
			continue;
		}
		if (r->decided >= 0 && r->confirmed < 0 && i == (size_t)r->decided + 1)
			r->confirmed = (int)i;	/* the confirmation size, checked below */
		if (sz->verdict.sensitive)
			structured = i;
	}

	if (r->decided >= 0) {
		const struct ap_probe_size *d = &r->sizes[r->decided];

		ap_verdict_copy(v, &d->verdict);
		r->clear = d->clear;
		size_unclear(r, r->decided, o);
		if (r->confirmed >= 0) {
			confirm_unit(r, o, d);
		} else if (o->confirm && ap_probe_screen_agrees(r, v)) {
			ap_verdict_set_note(v, "%s writes show %u-byte physical sectors from LBA %u; "
				 "%s writes at each of their %u phases confirm it",
				 ap_size_exact(d->size, b1, sizeof(b1)), v->physical_sector,
				 v->lowest_aligned_lba,
				 ap_size_exact(r->screen.size, b2, sizeof(b2)), r->screen.noffsets);
			r->screen_confirms = true;
		} else if (o->confirm && (size_t)r->decided + 1 < r->plan.nsizes) {
			ap_verdict_set_note(v, "%s writes show %u-byte physical sectors from LBA %u; not "
				 "confirmed with larger writes (stopped early)",
				 ap_size_exact(d->size, b1, sizeof(b1)), v->physical_sector,
				 v->lowest_aligned_lba);
			r->clear = false;
			snprintf(r->unclear, sizeof(r->unclear), "not confirmed with larger writes");
		}
	} else {
		decide_without_unit(r, o, last, structured);
	}
	mixed_levels_check(r);
	if (r->failed) {
		no_claim(v);
		v->equivalence_p = NAN;
		r->clear = false;
		ap_verdict_set_note(v, "no verdict: %s", r->cause);
		snprintf(r->unclear, sizeof(r->unclear), "%s",
			 r->failed == AP_PROBE_FLUSH_IGNORED ? "the writes did not reach the media" :
			 r->failed == AP_PROBE_LEAD_IN_BUFFERED ? "the lead-ins came from a buffer" :
			 "a buffer served read-modify-writes");
	}
	if (r->mode == AP_PROBE_READONLY && v->sensitive && v->resolved && !v->note)
		ap_verdict_set_note(v, "from read timings only");
	ap_probe_first_decide(r, o);
	ap_probe_stripe_decide(r, o);
	/* what the verdict claims, no more: not clear is tentative */
	v->tentative = v->resolved && !r->clear;
	if (!v->resolved || v->sensitive)
		v->ruled_out_up_to = 0;
}

int ap_probe_shown_size(const struct ap_probe_result *r)
{
	if (r->decided >= 0)
		return r->decided;
	return r->nsizes ? (int)r->nsizes - 1 : -1;
}

void ap_probe_result_fail(struct ap_probe_result *r, enum ap_probe_failed f, const char *fmt, ...)
{
	va_list ap;

	r->failed = f;
	va_start(ap, fmt);
	vsnprintf(r->cause, sizeof(r->cause), fmt, ap);
	va_end(ap);
}

void ap_probe_result_free(struct ap_probe_result *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nsizes; i++)
		ap_verdict_free(&r->sizes[i].verdict);
	ap_verdict_free(&r->screen.verdict);
	ap_verdict_free(&r->verdict);
	free(r->samples);
	free(r->fw.s);
	free(r->st.s);
	memset(r, 0, sizeof(*r));
	r->decided = r->confirmed = -1;
}
