// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The probe's schedule (see probe.h): the calibration, the timed writes (or
 * reads) with their lead-ins in a randomized interleaved order over the
 * write sizes, the phase screen, and the checks of the measurement's own
 * assumptions as it runs. The analysis and the verdict are in measure.c.
 */
#include "probe/probe.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/rotation.h"
#include "lib/rng.h"
#include "lib/stats.h"

/*
 * How much cheaper the smallest writes are than the phase screen's @idx:
 * the median of the first size's latencies over the screen's, at most 1
 * (the slowdown the claim is about is a ratio of medians too).
 */
static double screen_cost_ratio(const struct ap_probe_result *r, size_t idx)
{
	double small = ap_probe_size_quantile(r, 0, 0.5), large = ap_probe_size_quantile(r, idx, 0.5);

	if (!(large > 0))
		return 0;
	return small / large < 1 ? small / large : 1;
}

/*
 * The phase screen is worth it where the smallest writes cost nearly as much
 * as the largest (a rotating disk: about a revolution each). Where the cost
 * grows with the size (flash), a partial unit's fixed penalty is a smaller
 * share of a large write: smaller sizes show what it cannot.
 */
#define AP_PROBE_SCREEN_MIN_RATIO	0.8
static bool phase_screen_pays(const struct ap_probe_result *r, size_t idx)
{
	return screen_cost_ratio(r, idx) >= AP_PROBE_SCREEN_MIN_RATIO;
}

/*
 * The margin the screen's "no effect" needs so that it holds for every size:
 * a partial unit's penalty d (one read-modify-write, whatever the write's
 * size) below (m - 1) * c_small, c_small the smallest writes' cost, is less
 * than m - 1 of every larger write's cost too; the screen shows d < (M - 1)
 * * c_large, so M = 1 + (m - 1) * c_small / c_large.
 */
static double phase_screen_margin(const struct ap_probe_result *r, size_t idx,
				  const struct ap_probe_opts *o)
{
	struct ap_analysis_params p;

	ap_probe_size_params(r, o, &r->sizes[0], &p);
	return 1 + (ap_analysis_absence_margin(&p) - 1) * screen_cost_ratio(r, idx);
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

/* The schedule's state, shared by the sizes of one measurement. */
struct sched {
	const struct ap_probe_io *io;
	const struct ap_probe_opts *o;
	const struct ap_probe_plan *plan;
	struct ap_probe_result *r;
	struct ap_error *e;
	struct ap_rng rng;
	uint64_t cursor;
	uint32_t *slots, *order;
	bool *warmed;		/* slots written once (NULL: no warm-up) */
	bool write;
	bool lead;		/* lead-ins: a round stays in one slot, near the last write */
	bool rotating;		/* the calibration's reads waited for a rotating disk */
	bool stop;
	/*
	 * Each write in another slot (from the phase screen on): a round in one
	 * slot rewrites the same few physical sectors, and a drive whose buffer
	 * still holds them serves their read-modify-writes, which can hide a
	 * unit entirely. In another slot every write finds sectors last touched
	 * a whole round of writes ago. Its lead-in follows a seek: about half a
	 * revolution more per write.
	 */
	bool spread;
	uint32_t spread_next;	/* the spread's next slot: ascending, a short seek */
	size_t spread_from;	/* the first sample of the spread */
	bool screened;		/* the phase screen was measured */
	bool hyp;		/* the next size confirms the unit the screen named */
	uint32_t round_slot;
	uint64_t forced;	/* writes done after AP_PROBE_LEAD_IN_TRIES buffered lead-ins */
	bool rechecked;		/* the rotation timed a second time (rotation_holds()) */
	int rc;
};

/* A lead-in answered from a buffer is tried this often, each time in another slot. */
#define AP_PROBE_LEAD_IN_TRIES	4

/* The untimed lead-in read before a timed write (see ap_probe_lead_in()). */
static int lead_in(struct sched *x, uint64_t off, uint64_t len, uint64_t *ns)
{
	uint64_t at;
	size_t n;
	int rc;

	*ns = 0;
	if (x->spread)	/* the head comes from another slot: the lead-in just before */
		ap_probe_lead_in_before(x->plan, off, len, &at, &n);
	else
		ap_probe_lead_in(x->plan, off, len, &at, &n);
	if (!n)
		return 0;
	rc = x->io->lead_in(x->io->arg, at, n, ns);
	if (rc)
		ap_error_set(x->e, -rc, "read of %zu bytes at offset %llu failed: %s", n,
			     (unsigned long long)at, strerror(-rc));
	if (!*ns)
		*ns = 1;
	return rc;
}

/* Warm slot @slot up before its first timed write (see struct ap_probe_io). */
static int warm(struct sched *x, uint32_t slot)
{
	const struct ap_probe_plan *plan = x->plan;
	int rc;

	if (!x->warmed || x->warmed[slot])
		return 0;
	rc = x->io->warm(x->io->arg, slot);
	if (rc)
		return ap_error_set(x->e, -rc, "write of %llu bytes at offset %llu failed: %s",
				    (unsigned long long)plan->span,
				    (unsigned long long)ap_probe_slot_offset(plan, slot),
				    strerror(-rc));
	x->warmed[slot] = true;
	return 0;
}

/*
 * The reads a seek apart (device/rotation.h) from @low downward and from
 * 1 MiB before @top: their ap_rotation_value() in *@value. 0, 1 without
 * the room or when stopped (x->stop), or -errno with x->e.
 */
static int rotation_reads(struct sched *x, uint64_t low, uint64_t top, uint64_t *value)
{
	uint64_t ns[AP_ROTATION_READS], page = ap_probe_lead_in_len(x->plan);
	unsigned i;
	int rc;

	if (ap_rotation_read_at(0, low, top, low, page) == UINT64_MAX)
		return 1;
	for (i = 0; i < AP_ROTATION_READS; i++) {
		uint64_t at = ap_rotation_read_at(i, low, top, low, page);
		int sig = ap_cancelled(&x->o->cancel);

		if (sig) {
			x->r->interrupted = sig;
			x->stop = true;
			return 1;
		}
		ns[i] = 0;
		rc = x->io->lead_in(x->io->arg, at, (size_t)page, &ns[i]);
		if (rc)
			return ap_error_set(x->e, -rc, "read of %llu bytes at offset %llu failed: "
					    "%s", (unsigned long long)page,
					    (unsigned long long)at, strerror(-rc));
	}
	*value = ap_rotation_value(ns);
	return 0;
}

/* Past the slots and their lead-ins: where the calibration's reads may go (0: no room). */
static uint64_t rotation_zone(const struct sched *x)
{
	const struct ap_probe_plan *plan = x->plan;
	uint64_t page = ap_probe_lead_in_len(plan), maxs = plan->sizes[plan->nsizes - 1];
	uint64_t zone_end = ap_probe_slot_offset(plan, plan->slots - 1) +
			    4 * maxs + AP_PROBE_LEAD_IN_AHEAD + page;

	return plan->dev_size > zone_end + AP_ROTATION_READS * page ? zone_end : 0;
}

/*
 * The calibration (device/rotation.h): whether the drive rotates decides
 * whether the writes get lead-ins and whether the checks of the lead-ins
 * and the writes apply. The reads lie past the slots and their lead-ins,
 * half-way to the end (what udev and blkid read at attach is elsewhere);
 * without the room for them, lead-ins as the backend offers them and no
 * checks.
 */
static int calibrate(struct sched *x)
{
	uint64_t zone = rotation_zone(x), size = x->plan->dev_size;
	int rc;

	if (!zone)
		return 0;
	rc = rotation_reads(x, zone + (size - zone) / 2, size, &x->r->seek_read_ns);
	if (rc)
		return rc < 0 ? rc : 0;	/* no room: no checks that need it */
	x->rotating = x->r->rotating = x->r->seek_read_ns >= AP_ROTATING_NS;
	/* lead-ins place a rotating disk's head; flash they only cost a read */
	x->lead = x->rotating;
	return 0;
}

/*
 * Before a check of the writes or the lead-ins fails a rotating disk: does
 * it rotate? Reads slowed by a busy host made a drive that does not rotate
 * look like one (fleet/alerts under four tests: "media take 2.1 ms a seek
 * away", then lead-ins answered in 0.4 ms, exit 5). A busy host only adds
 * time: the reads once more, at places not read before (a quarter and
 * three quarters of the way past the slots), and the smaller of the two.
 * True when the disk still rotates; false, the checks and lead-ins off,
 * when it does not.
 */
static bool rotation_holds(struct sched *x)
{
	uint64_t zone = rotation_zone(x), size = x->plan->dev_size, again = 0;

	if (x->rechecked || !zone)
		return true;
	x->rechecked = true;
	if (rotation_reads(x, zone + (size - zone) / 4, zone + (size - zone) / 4 * 3, &again) ||
	    again >= x->r->seek_read_ns)
		return true;
	x->r->seek_read_ns = again;
	x->rotating = x->r->rotating = again >= AP_ROTATING_NS;
	x->lead = x->rotating;
	return x->rotating;
}

/*
 * Sample @s (size, offset, round set): its slot, warm-up, lead-in and the
 * timed operation. A lead-in a rotating disk answered faster than its media
 * can (AP_PROBE_LEAD_IN_HIT_NS) came from its read-ahead buffer and left the
 * head anywhere: the round moves on to another slot, far from what the
 * buffer holds, and reads a lead-in there. 0, or -errno with x->e.
 */
static int one_op(struct sched *x, struct ap_probe_sample *s)
{
	struct ap_probe_result *r = x->r;
	uint64_t off = 0, ns = 0;
	unsigned tries;
	int rc = 0;

	for (tries = 0; tries < AP_PROBE_LEAD_IN_TRIES; tries++) {
		s->slot = x->lead && !x->spread ? x->round_slot :
			  x->spread ? x->spread_next++ % x->plan->slots :
			  next_slot(&x->rng, x->slots, x->plan->slots, &x->cursor);
		off = ap_probe_slot_offset(x->plan, s->slot) +
		      (uint64_t)s->offset * x->plan->logical_sector;
		rc = warm(x, s->slot);
		if (!rc && x->write && x->io->announce) {
			rc = x->io->announce(x->io->arg, off, s->size);
			if (rc)
				return ap_error_set(x->e, -rc, "cannot record the write of %llu "
						    "bytes at offset %llu: %s",
						    (unsigned long long)s->size,
						    (unsigned long long)off, strerror(-rc));
		}
		if (rc || !x->lead)
			break;
		rc = lead_in(x, off, s->size, &s->lead_ns);
		if (rc)
			return rc;
		r->lead_ins++;
		if (!x->rotating || s->lead_ns >= AP_PROBE_LEAD_IN_HIT_NS)
			break;
		r->lead_in_hits++;
		x->round_slot = next_slot(&x->rng, x->slots, x->plan->slots, &x->cursor);
	}
	if (rc)
		return rc;
	if (x->lead && tries == AP_PROBE_LEAD_IN_TRIES)
		x->forced++;
	rc = x->io->op(x->io->arg, x->write, s->slot, off, s->size, &ns);
	if (rc)
		return ap_error_set(x->e, -rc, "%s of %llu bytes at offset %llu failed: %s",
				    x->write ? "write" : "read", (unsigned long long)s->size,
				    (unsigned long long)off, strerror(-rc));
	s->ns = ns;
	add_sample(r, s);
	return 0;
}

/*
 * The checks of the measurement's assumptions after a round (see probe.h):
 * true when one failed (r->failed and r->cause set), which ends the probe.
 */
static bool assumptions_fail(struct sched *x)
{
	struct ap_probe_result *r = x->r;
	/*
	 * every write so far behind its lead-in (a first round can pay for a
	 * cache's warm-up): the spread's wait only for the gap before theirs
	 */
	size_t i, n = x->spread ? x->spread_from : r->nsamples;
	uint64_t *v;

	if (!x->rotating || !x->write || r->failed)
		return r->failed != AP_PROBE_OK;
	if (n) {
		v = ap_xmalloc(n * sizeof(*v));
		for (i = 0; i < n; i++)
			v[i] = r->samples[i].ns;
		r->write_ns = ap_stats_median_u64(v, n);
		free(v);
		/* the rotation's second look may have lowered seek_read_ns */
		if (ap_rotation_write_unflushed(r->write_ns, r->seek_read_ns) &&
		    rotation_holds(x) && ap_rotation_write_unflushed(r->write_ns, r->seek_read_ns)) {
			r->failed = AP_PROBE_FLUSH_IGNORED;
			ap_rotation_unflushed_cause(r->cause, sizeof(r->cause), r->write_ns,
						    n, r->seek_read_ns, "turn the cache "
						    "off (probe --write-cache off, " AP_REMEDY_WCE_OFF
						    ") or " AP_REMEDY_NO_BRIDGE "; "
						    AP_REMEDY_RAID_CACHE);
			return true;
		}
	}
	if (x->forced * 20 > r->nsamples && r->nsamples >= 32 && rotation_holds(x)) {
		ap_probe_result_fail(r, AP_PROBE_LEAD_IN_BUFFERED,
				     "the drive answered %llu of %llu lead-in reads from its "
				     "buffer (faster than %.1f ms, where its media take %.1f "
				     "ms and more a seek away), also in other slots: the probe "
				     "cannot place the head before a write, and the rotational "
				     "wait would hide the effect; disable read-ahead (hdparm "
				     "-A0, or sdparm --set DRA) and probe again",
				     (unsigned long long)r->lead_in_hits,
				     (unsigned long long)r->lead_ins,
				     (double)AP_PROBE_LEAD_IN_HIT_NS / 1e6,
				     (double)r->seek_read_ns / 1e6);
		return true;
	}
	return false;
}

/*
 * Analyse after round @rounds (from min_rounds on) only when the rounds
 * grew by a quarter since the last analysis: the analysis of a large size
 * costs more than a round of a fast drive, and the early stop's margin
 * (alpha / 100) pays for the looks anyway.
 */
static bool analysis_due(unsigned rounds, unsigned min_rounds, unsigned *next)
{
	if (rounds < min_rounds || rounds < *next)
		return false;
	*next = rounds + (rounds + 3) / 4;
	return true;
}

/*
 * The phase screen's rounds at most: the writes of the sizes it stands for
 * (all but the smallest) at --max-rounds, in rounds of one per phase.
 */
static unsigned screen_rounds(const struct sched *x)
{
	const struct ap_probe_plan *plan = x->plan;
	uint64_t writes = 0, phases = plan->sizes[plan->nsizes - 1] / plan->logical_sector;
	size_t i;

	for (i = 1; i < plan->nsizes; i++)
		writes += (uint64_t)ap_probe_noffsets(plan, plan->sizes[i]) * x->o->max_rounds;
	return (unsigned)(writes / phases > x->o->max_rounds ? writes / phases : x->o->max_rounds);
}

/*
 * One round of size @sz: each of @list's @n offsets once (shuffled), the
 * round's samples numbered @round. True when it completed.
 */
static bool one_round(struct sched *x, struct ap_probe_size *sz, uint32_t *list, unsigned n,
		      unsigned round)
{
	struct ap_probe_result *r = x->r;
	const struct ap_probe_opts *o = x->o;
	unsigned k;

	r->live_round = round;
	ap_rng_shuffle(&x->rng, list, n, sizeof(*list));
	if (x->lead && !x->spread)
		x->round_slot = next_slot(&x->rng, x->slots, x->plan->slots, &x->cursor);
	for (k = 0; k < n; k++) {
		struct ap_probe_sample s = { .size = sz->size, .offset = list[k], .round = round };
		int sig = ap_cancelled(&o->cancel);

		if (sz->phases)	/* the phase in either half (halves_differ()) */
			s.offset += sz->noffsets * ((round + list[k]) % 2);
		if (sig) {
			r->interrupted = sig;
			x->stop = true;
			return false;
		}
		if (o->deadline_ns && ap_now_ns() >= o->deadline_ns) {
			r->budget_out = true;
			x->stop = true;
			return false;
		}
		x->rc = one_op(x, &s);
		if (x->rc) {
			x->stop = true;
			return false;
		}
		sz->n++;
		r->live_ops++;
	}
	return true;
}

/* Analyse size @idx (the screen's margin first): clear, by its own rule? */
static bool analyse(struct sched *x, size_t idx, bool confirming)
{
	struct ap_probe_size *sz = &x->r->sizes[idx];

	if (sz->phases)
		sz->margin = phase_screen_margin(x->r, idx, x->o);
	ap_probe_analyse_size(x->r, idx, x->o);
	/* a size confirming another stops early only when it shows the unit
	 * too: "no effect of min-slowdown or more" does not contradict a
	 * smaller one */
	return sz->clear && (!confirming || (sz->verdict.sensitive && sz->verdict.resolved));
}

/*
 * The phase screen's targeted rounds (design.md 3.5), on a rotating disk
 * (x->spread: each write costs a seek and a lead-in, an analysis less):
 * while its verdict shows no effect and lacks only some phases' "no
 * effect" tests (at most half of them), rounds of just those phases,
 * each write in its own next slot as ever, until each has a quarter more
 * writes (analysis_due()'s looks, per phase), then the analysis of all the
 * data again. True when that made the size clear. *@round numbers the
 * rounds; @budget: the size's writes at most.
 */
static bool targeted_rounds(struct sched *x, size_t idx, unsigned *round, uint64_t budget)
{
	struct ap_probe_size *sz = &x->r->sizes[idx];
	bool *weak = ap_xmalloc(sz->noffsets * sizeof(*weak)), clear = false;
	uint32_t *list = ap_xmalloc(sz->noffsets * sizeof(*list));
	unsigned *cnt = ap_xmalloc(sz->noffsets * sizeof(*cnt));
	unsigned k, n, least, goal;
	size_t i;

	while (x->spread && !x->stop && !sz->verdict.sensitive && !sz->halves_differ &&
	       sz->verdict.min_n >= x->o->min_rounds) {
		n = ap_probe_weak_phases(x->r, idx, x->o, weak);
		if (!n || n > sz->noffsets / 2)
			break;
		memset(cnt, 0, sz->noffsets * sizeof(*cnt));
		for (i = 0; i < sz->n; i++)
			cnt[x->r->samples[sz->first + i].offset % sz->noffsets]++;
		for (least = UINT_MAX, k = 0; k < sz->noffsets; k++)
			if (weak[k] && cnt[k] < least)
				least = cnt[k];
		goal = least + (least + 3) / 4;
		for (;;) {
			for (n = 0, k = 0; k < sz->noffsets; k++)
				if (weak[k] && cnt[k] < goal)
					list[n++] = k;
			if (!n || sz->n + n > budget || !one_round(x, sz, list, n, (*round)++))
				break;
			for (k = 0; k < n; k++)
				cnt[list[k]]++;
			sz->targeted++;
			if (assumptions_fail(x))
				x->stop = true;
		}
		if (n || x->stop)
			break;	/* the budget, or stopped */
		clear = analyse(x, idx, false);
		if (clear)
			break;
	}
	free(weak);
	free(list);
	free(cnt);
	return clear;
}

/*
 * Measure one size (its rounds, interleaved offsets, analysis and early
 * stop) into a new entry of r->sizes: its index. @noffsets offsets
 * 0..noffsets-1; @confirming: it confirms a unit a smaller size showed.
 */
static size_t measure_size(struct sched *x, uint64_t size, unsigned noffsets, bool phases,
			   bool confirming)
{
	struct ap_probe_result *r = x->r;
	const struct ap_probe_opts *o = x->o;
	struct ap_probe_size *sz = &r->sizes[r->nsizes++];
	size_t idx = r->nsizes - 1;
	unsigned k, round = 0, next = o->min_rounds, max_rounds = phases ? screen_rounds(x) :
								  o->max_rounds;

	memset(sz, 0, sizeof(*sz));
	sz->size = size;
	sz->noffsets = noffsets;
	sz->phases = phases;
	sz->hyp = x->hyp && !phases;
	x->hyp = false;
	sz->first = r->nsamples;
	sz->t_start_ns = ap_now_ns();
	r->live_size = sz->size;
	x->order = ap_xreallocarray(x->order, sz->noffsets, sizeof(*x->order));
	for (k = 0; k < sz->noffsets; k++)
		x->order[k] = k;

	/* max_rounds full rounds' writes at most, targeted ones included */
	while (sz->rounds < max_rounds && sz->n + noffsets <= (uint64_t)max_rounds * noffsets &&
	       !x->stop) {
		if (one_round(x, sz, x->order, sz->noffsets, round++))
			sz->rounds++;
		if (!x->stop && assumptions_fail(x))
			x->stop = true;
		if (!x->stop && phases && sz->rounds == 1 && !phase_screen_pays(r, idx)) {
			sz->t_end_ns = ap_now_ns();
			return idx;	/* the cost grows with the size: not worth it */
		}
		/*
		 * The screen only names the unit, which its sizes measure again
		 * from scratch to their own early stop: it hands a unit over as
		 * soon as it is clear but for the rounds (one round on a disk
		 * that hides 8 KiB: 2 of its 6 s), never one its halves
		 * contradict (a unit larger than the size).
		 */
		if (!x->stop && phases && sz->rounds < o->min_rounds) {
			analyse(x, idx, confirming);
			if (sz->nominates)
				break;
		}
		/*
		 * The size the screen handed its unit to tests that one unit
		 * (no correction over every period and phase): 2 rounds can
		 * reach alpha / 100, where the search over all of them needs 3
		 * (a disk hiding 8 KiB: 64 writes instead of 96). Not clear:
		 * on to the rounds of every size.
		 */
		if (!x->stop && sz->hyp && sz->rounds == AP_PROBE_HYP_ROUNDS &&
		    sz->rounds < o->min_rounds && analyse(x, idx, confirming))
			break;
		if (!x->stop && analysis_due(sz->rounds, o->min_rounds, &next)) {
			if (analyse(x, idx, confirming))
				break;
			if (phases && targeted_rounds(x, idx, &round,
						      (uint64_t)max_rounds * sz->noffsets))
				break;
		}
	}
	sz->t_end_ns = ap_now_ns();
	if (sz->n)
		analyse(x, idx, confirming);
	return idx;
}

static bool unit_shown(const struct ap_probe_size *sz)
{
	return sz->analysed && sz->verdict.sensitive && sz->verdict.resolved;
}

/* Drop the last size entry (its samples stay: they were measured). */
static void drop_last_size(struct ap_probe_result *r)
{
	ap_verdict_free(&r->sizes[r->nsizes - 1].verdict);
	r->nsizes--;
}

/*
 * From now on each write in another slot (struct sched's spread), every
 * slot warmed up first so that no write follows its slot's warm-up closely.
 */
static int spread_out(struct sched *x)
{
	uint32_t i;
	int rc;

	x->spread = true;
	x->spread_from = x->r->nsamples;
	for (i = 0; i < x->plan->slots && x->warmed; i++) {
		int sig = ap_cancelled(&x->o->cancel);

		if (sig) {
			x->r->interrupted = sig;
			x->stop = true;
			return 0;
		}
		rc = warm(x, i);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * The phase screen (issue 26): after the smallest size showed no unit,
 * writes of the largest size at each of its phases (one offset per phase).
 * On a rotating disk a partial physical sector costs a revolution whatever
 * the write's size, so these writes alone show every unit up to the largest
 * size, and their "no effect" (at a margin narrowed by how much cheaper
 * the smallest writes are, phase_screen_margin()) is the claim for every
 * size. Where the cost grows with the size (flash), the smaller sizes are
 * measured instead. What it returns: the size index to go on from (the
 * unit it shows, or the second size), or plan->nsizes when it decided.
 */
static size_t phase_screen(struct sched *x)
{
	const struct ap_probe_plan *plan = x->plan;
	struct ap_probe_result *r = x->r;
	uint64_t maxs = plan->sizes[plan->nsizes - 1];
	size_t idx, si;

	x->screened = true;
	if (x->lead) {
		x->rc = spread_out(x);
		if (x->rc) {
			x->stop = true;
			return plan->nsizes;
		}
	}

	idx = measure_size(x, maxs, (unsigned)(maxs / plan->logical_sector), true, false);
	if (!r->sizes[idx].n) {
		drop_last_size(r);
		return plan->nsizes;
	}
	if (x->stop) {
		if (r->sizes[idx].verdict.sensitive || r->sizes[idx].halves_differ)
			drop_last_size(r);	/* no unit from it */
		return plan->nsizes;
	}
	if (!r->sizes[idx].analysed) {	/* given up after its first round */
		drop_last_size(r);
		return 1;
	}
	if (!r->sizes[idx].verdict.sensitive && !r->sizes[idx].halves_differ)
		return plan->nsizes;	/* its verdict, or none */
	/*
	 * An effect: the sizes show the unit, from the one it suggests, each
	 * write in another slot now -- also the smallest size again when the
	 * unit is its own, which a buffer can have hidden in its rounds.
	 */
	si = 1;
	if (unit_shown(&r->sizes[idx]))
		for (si = 0; si + 1 < plan->nsizes &&
		     plan->sizes[si] < r->sizes[idx].verdict.physical_sector; si++)
			;
	if (r->sizes[idx].nominates) {
		r->screen = r->sizes[idx];	/* kept: it can confirm the deciding size */
		r->nsizes--;
		/* nominating, it shows the unit (unit_shown()) */
		x->hyp = plan->sizes[si] >= r->screen.verdict.physical_sector;
	} else {
		drop_last_size(r);
	}
	return si;
}

int ap_probe_measure(const struct ap_probe_io *io, const struct ap_probe_opts *o,
		     const struct ap_probe_plan *plan, struct ap_probe_result *r,
		     struct ap_error *e)
{
	struct sched x = { .io = io, .o = o, .plan = plan, .r = r, .e = e,
			   .rng = { .s = o->seed * 0x2545F4914F6CDD1DULL + 1 } };
	struct ap_probe_opts sized;
	size_t si;

	x.write = o->mode != AP_PROBE_READONLY;
	x.lead = x.write && io->lead_in;
	x.slots = ap_xmalloc(plan->slots * sizeof(*x.slots));
	x.warmed = x.write && io->warm ? ap_xcalloc(plan->slots, sizeof(*x.warmed)) : NULL;
	r->plan = *plan;
	r->mode = o->mode;
	r->decided = r->confirmed = -1;
	r->start_ns = o->ready ? o->ready(o->ready_arg) : 0;
	if (!r->start_ns)
		r->start_ns = ap_now_ns();
	for (si = 0; si < plan->slots; si++)
		x.slots[si] = (uint32_t)si;
	ap_rng_shuffle(&x.rng, x.slots, plan->slots, sizeof(*x.slots));
	if (x.lead)
		x.rc = calibrate(&x);
	/* tests: the rotation timed, nothing written yet */
	ap_test_pause("ALIGNPROBE_TEST_PROBE_CALIBRATED");
	/* first writes before any other write: every window is never written */
	if (!x.rc && !x.stop && x.write) {
		x.rc = ap_probe_first_writes(io, o, plan, x.lead, r, e);
		if (r->interrupted || r->budget_out)
			x.stop = true;
	}
	if (x.rc)
		x.stop = true;
	/*
	 * The slots' warm-up keeps a first write's extra cost out of the timed
	 * writes. Where the first-write step has just ruled that cost out on a
	 * rotating disk, it only costs a write of the span per slot: 0.9 s of
	 * an honest 7200 rpm disk's 5 s (the lead-ins lie outside the spans).
	 */
	if (x.warmed && x.rotating && r->fw.measured && r->fw.absent) {
		free(x.warmed);
		x.warmed = NULL;
	}
	/*
	 * The stripe step comes last (the sizes check first that the writes
	 * reach the media), and keeps a quarter of what is left of the
	 * budget: on a parity RAID volume every small write pays a
	 * read-modify-write on several members, whose independent rotations
	 * can keep the sizes' "no effect" out of reach for minutes, and the
	 * stripe is what matters there.
	 */
	sized = *o;
	if (o->deadline_ns && x.write && o->stripes && plan->st_cap) {
		uint64_t now = ap_now_ns();

		if (o->deadline_ns > now)
			sized.deadline_ns = now + (o->deadline_ns - now) / 4 * 3;
	}
	x.o = &sized;

	for (si = 0; si < plan->nsizes && !x.stop; si++) {
		bool confirming = false;
		size_t j, idx;

		for (j = 0; j < r->nsizes; j++)
			if (unit_shown(&r->sizes[j]))
				confirming = true;
		idx = measure_size(&x, plan->sizes[si], ap_probe_noffsets(plan, plan->sizes[si]),
				   false, confirming);
		if (!r->sizes[idx].n) {
			drop_last_size(r);
			break;
		}
		/*
		 * The deciding size, then (optionally) one more to confirm it,
		 * unless the screen that handed the unit over shows it at the
		 * same phase: its writes are the larger size, at every phase.
		 */
		if (unit_shown(&r->sizes[idx])) {
			if (confirming || !o->confirm ||
			    ap_probe_screen_agrees(r, &r->sizes[idx].verdict))
				x.stop = true;
		} else if (idx >= 1 && unit_shown(&r->sizes[idx - 1])) {
			x.stop = true;	/* that was the confirmation */
		} else if (si == 0 && x.write && o->phase_screen && plan->nsizes >= 3 &&
			   !x.screened && !x.stop) {
			si = phase_screen(&x) - 1;	/* the loop's si++ (size_t wraps) */
		}
	}
	if (!x.rc && x.write && !r->failed && !r->interrupted &&
	    (!o->deadline_ns || ap_now_ns() < o->deadline_ns))
		x.rc = ap_probe_stripes(io, o, plan, x.rotating, r, e);
	free(x.slots);
	free(x.order);
	free(x.warmed);
	r->end_ns = ap_now_ns();
	ap_probe_decide(r, o);
	return x.rc;
}
