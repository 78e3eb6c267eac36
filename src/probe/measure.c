// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The probe's measurement (see probe.h): the timed writes (or reads) in a
 * randomized interleaved schedule over the write sizes, the analysis of
 * each size, and the decision over them.
 */
#include "probe/probe.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/rng.h"
#include "lib/stats.h"

static void params_for(const struct ap_probe_result *r, const struct ap_probe_opts *o,
		       uint64_t size, struct ap_analysis_params *p)
{
	ap_analysis_params_init(p, r->plan.logical_sector, r->plan.reported_physical);
	p->max_period = (unsigned)(size / r->plan.logical_sector);
	if (o->alpha > 0)
		p->alpha = o->alpha;
	if (o->min_slowdown > 0)
		p->min_slowdown = o->min_slowdown;
	p->absence_margin = o->absence_margin > 0 ? o->absence_margin : AP_PROBE_ABSENCE_MARGIN;
}

int ap_probe_analyse_size(struct ap_probe_result *r, size_t idx, const struct ap_probe_opts *o)
{
	struct ap_probe_size *sz = &r->sizes[idx];
	struct ap_analysis_params p;
	struct ap_obs *obs;
	size_t i;
	int rc;

	ap_verdict_free(&sz->verdict);
	sz->analysed = false;
	sz->clear = false;
	if (!sz->n)
		return -EINVAL;
	params_for(r, o, sz->size, &p);
	obs = ap_xmalloc(sz->n * sizeof(*obs));
	for (i = 0; i < sz->n; i++) {
		const struct ap_probe_sample *s = &r->samples[sz->first + i];

		obs[i] = (struct ap_obs){ .offset = s->offset, .round = s->round,
					  .cost = (double)s->ns, .seq = sz->first + i + 1 };
	}
	rc = ap_analysis_run(obs, sz->n, &p, &sz->verdict);
	free(obs);
	if (rc)
		return rc;
	sz->analysed = true;
	sz->clear = ap_analysis_is_clear(&sz->verdict, &p);
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

	params_for(r, o, sz->size, &p);
	why = sz->clear ? NULL : ap_analysis_unclear_reason(&sz->verdict, &p);
	if (why)
		snprintf(r->unclear, sizeof(r->unclear), "%s writes: %s",
			 ap_size_exact(sz->size, b, sizeof(b)), why);
	else
		r->unclear[0] = '\0';
}

/* The deciding size @d against the confirming one: confirmed, inconsistent, or no verdict. */
static void confirm_unit(struct ap_probe_result *r, const struct ap_probe_opts *o,
			 const struct ap_probe_size *d)
{
	struct ap_verdict *v = &r->verdict;
	const struct ap_probe_size *c = &r->sizes[r->confirmed];
	const struct ap_verdict *cv = &c->verdict;
	char b1[32], b2[32];

	if (cv->sensitive && cv->resolved && cv->period == v->period &&
	    cv->lowest_aligned_lba == v->lowest_aligned_lba) {
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

void ap_probe_decide(struct ap_probe_result *r, const struct ap_probe_opts *o)
{
	struct ap_verdict *v = &r->verdict;
	size_t i, last = SIZE_MAX, structured = SIZE_MAX;
	char b1[32], b2[32], pb[32];

	ap_verdict_free(v);
	r->decided = r->confirmed = -1;
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
		} else if (o->confirm && (size_t)r->decided + 1 < r->plan.nsizes) {
			ap_verdict_set_note(v, "%s writes show %u-byte physical sectors from LBA %u; not "
				 "confirmed with larger writes (stopped early)",
				 ap_size_exact(d->size, b1, sizeof(b1)), v->physical_sector,
				 v->lowest_aligned_lba);
			r->clear = false;
			snprintf(r->unclear, sizeof(r->unclear), "not confirmed with larger writes");
		}
	} else if (last == SIZE_MAX) {
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
		r->clear = r->sizes[structured].clear && last + 1 == r->plan.nsizes;
		if (last + 1 < r->plan.nsizes)
			snprintf(r->unclear, sizeof(r->unclear), "larger writes were not measured");
		else
			size_unclear(r, structured, o);
		ap_verdict_set_note(v, "every write size up to %s shows an alignment effect without a "
			 "single aligned phase: the hidden unit is probably larger than %s "
			 "(try a larger --max-size)", ap_size_exact(r->sizes[last].size, b1, sizeof(b1)),
			 ap_size_exact(r->sizes[last].size, b2, sizeof(b2)));
	} else if (structured == SIZE_MAX && last + 1 == r->plan.nsizes &&
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
			ap_verdict_set_note(v, "no alignment effect of %.2fx or more for writes from %s "
				 "to %s: the drive behaves like honest %u-byte sectors (or hides "
				 "a unit larger than %s)", v->absence_margin,
				 ap_size_exact(r->sizes[0].size, b1, sizeof(b1)),
				 ap_size_exact(r->sizes[last].size, b2, sizeof(b2)),
				 r->plan.logical_sector, ap_size_exact(r->sizes[last].size, b2, sizeof(b2)));
		}
	} else if (structured == SIZE_MAX && last + 1 == r->plan.nsizes &&
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
	if (r->mode == AP_PROBE_READONLY && v->sensitive && v->resolved && !v->note)
		ap_verdict_set_note(v, "from read timings only");
	/* what the verdict claims, no more: not clear is tentative */
	v->tentative = v->resolved && !r->clear;
	if (!v->resolved || v->sensitive)
		v->ruled_out_up_to = 0;
}

static int add_sample(struct ap_probe_result *r, const struct ap_probe_sample *s)
{
	if (r->nsamples == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 4096;
		r->samples = ap_xreallocarray(r->samples, r->cap, sizeof(*r->samples));
	}
	r->samples[r->nsamples++] = *s;
	return 0;
}

/* The next of the shuffled @slots, shuffled again after each pass. */
static uint32_t next_slot(struct ap_rng *rng, uint32_t *slots, unsigned n, uint64_t *cursor)
{
	uint32_t slot = slots[(*cursor)++ % n];

	if (*cursor % n == 0)
		ap_rng_shuffle(rng, slots, n, sizeof(*slots));
	return slot;
}

/* The untimed lead-in read before a timed write (see ap_probe_lead_in()). */
static int lead_in(const struct ap_probe_io *io, const struct ap_probe_plan *plan,
		   uint64_t off, uint64_t len, struct ap_error *e)
{
	uint64_t at;
	size_t n;
	int rc;

	ap_probe_lead_in(plan, off, len, &at, &n);
	if (!n)
		return 0;
	rc = io->lead_in(io->arg, at, n);
	if (rc)
		ap_error_set(e, -rc, "read of %zu bytes at offset %llu failed: %s", n,
			     (unsigned long long)at, strerror(-rc));
	return rc;
}

/* Warm slot @slot up before its first timed write (see struct ap_probe_io). */
static int warm(const struct ap_probe_io *io, const struct ap_probe_plan *plan, uint32_t slot,
		bool *warmed, struct ap_error *e)
{
	int rc;

	if (warmed[slot])
		return 0;
	rc = io->warm(io->arg, slot);
	if (rc)
		return ap_error_set(e, -rc, "write of %llu bytes at offset %llu failed: %s",
				    (unsigned long long)plan->span,
				    (unsigned long long)ap_probe_slot_offset(plan, slot),
				    strerror(-rc));
	warmed[slot] = true;
	return 0;
}

int ap_probe_measure(const struct ap_probe_io *io, const struct ap_probe_opts *o,
		     const struct ap_probe_plan *plan, struct ap_probe_result *r,
		     struct ap_error *e)
{
	struct ap_rng rng = { .s = o->seed * 0x2545F4914F6CDD1DULL + 1 };
	uint64_t cursor = 0;
	uint32_t *slots = ap_xmalloc(plan->slots * sizeof(*slots)), *order = NULL;
	bool write = o->mode != AP_PROBE_READONLY, stop = false;
	/* with lead-ins, a round stays in one slot: each lead-in is near the last write */
	bool lead = write && io->lead_in;
	uint32_t round_slot = 0;
	bool *warmed = write && io->warm ? ap_xcalloc(plan->slots, sizeof(*warmed)) : NULL;
	size_t si;
	int rc = 0;

	r->plan = *plan;
	r->mode = o->mode;
	r->decided = r->confirmed = -1;
	r->start_ns = o->ready ? o->ready(o->ready_arg) : 0;
	if (!r->start_ns)
		r->start_ns = ap_now_ns();
	for (si = 0; si < plan->slots; si++)
		slots[si] = (uint32_t)si;
	ap_rng_shuffle(&rng, slots, plan->slots, sizeof(*slots));

	for (si = 0; si < plan->nsizes && !stop; si++) {
		struct ap_probe_size *sz = &r->sizes[r->nsizes++];
		bool confirming = false;
		unsigned k, round;
		size_t j;

		memset(sz, 0, sizeof(*sz));
		sz->size = plan->sizes[si];
		sz->noffsets = ap_probe_noffsets(plan, sz->size);
		for (j = 0; j + 1 < r->nsizes; j++)
			if (r->sizes[j].analysed && r->sizes[j].verdict.sensitive &&
			    r->sizes[j].verdict.resolved)
				confirming = true;
		sz->first = r->nsamples;
		sz->t_start_ns = ap_now_ns();
		r->live_size = sz->size;
		order = ap_xreallocarray(order, sz->noffsets, sizeof(*order));
		for (k = 0; k < sz->noffsets; k++)
			order[k] = k;

		for (round = 0; round < o->max_rounds && !stop; round++) {
			r->live_round = round;
			ap_rng_shuffle(&rng, order, sz->noffsets, sizeof(*order));
			if (lead)
				round_slot = next_slot(&rng, slots, plan->slots, &cursor);
			for (k = 0; k < sz->noffsets; k++) {
				struct ap_probe_sample s = { .size = sz->size, .offset = order[k],
							     .round = round };
				uint64_t off, ns = 0;
				int sig = ap_cancelled(&o->cancel);

				if (sig) {
					r->interrupted = sig;
					stop = true;
					break;
				}
				if (o->deadline_ns && ap_now_ns() >= o->deadline_ns) {
					r->budget_out = true;
					stop = true;
					break;
				}
				s.slot = lead ? round_slot :
					 next_slot(&rng, slots, plan->slots, &cursor);
				off = ap_probe_slot_offset(plan, s.slot) +
				      (uint64_t)s.offset * plan->logical_sector;
				rc = warmed ? warm(io, plan, s.slot, warmed, e) : 0;
				if (!rc && lead)
					rc = lead_in(io, plan, off, sz->size, e);
				if (rc) {
					stop = true;
					break;
				}
				rc = io->op(io->arg, write, s.slot, off, sz->size, &ns);
				if (rc) {
					ap_error_set(e, -rc, "%s of %llu bytes at offset %llu failed: %s",
						     write ? "write" : "read",
						     (unsigned long long)sz->size,
						     (unsigned long long)off, strerror(-rc));
					stop = true;
					break;
				}
				s.ns = ns;
				add_sample(r, &s);
				sz->n++;
				r->live_ops++;
			}
			if (k == sz->noffsets)
				sz->rounds++;
			if (!stop && sz->rounds >= o->min_rounds) {
				ap_probe_analyse_size(r, r->nsizes - 1, o);
				/* a size confirming another stops early only when it
				 * shows the unit too: "no effect of min-slowdown or
				 * more" does not contradict a smaller one */
				if (sz->clear && (!confirming || (sz->verdict.sensitive &&
								  sz->verdict.resolved)))
					break;
			}
		}
		sz->t_end_ns = ap_now_ns();
		if (sz->n)
			ap_probe_analyse_size(r, r->nsizes - 1, o);
		if (!sz->n) {
			r->nsizes--;
			break;
		}
		/* the deciding size, then (optionally) one more to confirm it */
		if (sz->analysed && sz->verdict.sensitive && sz->verdict.resolved) {
			if (confirming || !o->confirm)
				stop = true;
		} else if (r->nsizes >= 2 && r->sizes[r->nsizes - 2].verdict.sensitive &&
			   r->sizes[r->nsizes - 2].verdict.resolved) {
			stop = true;	/* that was the confirmation */
		}
	}
	free(slots);
	free(order);
	free(warmed);
	r->end_ns = ap_now_ns();
	ap_probe_decide(r, o);
	return rc;
}

void ap_probe_result_free(struct ap_probe_result *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nsizes; i++)
		ap_verdict_free(&r->sizes[i].verdict);
	ap_verdict_free(&r->verdict);
	free(r->samples);
	memset(r, 0, sizeof(*r));
	r->decided = r->confirmed = -1;
}
