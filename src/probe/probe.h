/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The raw probe: time single synchronous direct writes (or reads) of size S
 * at logical-sector offsets k = 0 .. 2*S/logical - 1 from places spread over
 * a region larger than any drive cache, in a randomized interleaved order,
 * for S = 4 KiB, 8 KiB, ... 64 KiB, and let the analysis decide.
 *
 * Why several sizes: a write of S bytes on a drive with a hidden unit of P
 * bytes costs
 *   S >= P: nothing extra when aligned, two read-modify-writes (both ends
 *           partial) otherwise: one fast phase with period P/logical;
 *   S <  P: one RMW when it fits into one unit, two when it straddles a
 *           boundary: a run of fast offsets, not a single phase.
 * So the smallest S with a clean single fast phase gives P (and the phase
 * the lowest aligned LBA); the next size confirms it. An honest drive shows
 * no structure at any size; structure without a clean phase at every size
 * means a unit larger than the largest size.
 *
 * The engine does not print. I/O goes through a small vtable so that the
 * whole schedule and decision can be unit-tested against a simulated drive.
 */
#ifndef AP_PROBE_H
#define AP_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"
#include "device/identity.h"
#include "lib/cancel.h"
#include "lib/util.h"
#include "probe/journal.h"

enum ap_probe_mode {
	AP_PROBE_DESTRUCTIVE,	/* write a pattern into the scratch region */
	AP_PROBE_PRESERVE,	/* write the original bytes back, with an undo journal */
	AP_PROBE_READONLY,	/* timing reads only (weak evidence) */
};

#define AP_PROBE_MAX_SIZES	16
/*
 * The margin of "no effect": flash behind an FTL costs 1.1-1.5x for a
 * misaligned write, so "honest" needs effects down to 1.10x ruled out;
 * --min-slowdown only words the recommendation.
 */
#define AP_PROBE_ABSENCE_MARGIN	1.10
#define AP_PROBE_ALIGN		(1024 * 1024)	/* region start and slot stride */
/*
 * --max-size: the largest unit looked for (default 4 MiB, at most 64 MiB,
 * a multiple of the logical sector). The timed rewrites (the sizes) go up
 * to AP_PROBE_STEADY_MAX of it; first-write units (fresh.c) up to all of it.
 */
#define AP_PROBE_MAX_SIZE_DEFAULT	(4ULL * 1024 * 1024)
#define AP_PROBE_MAX_SIZE_LIMIT		(64ULL * 1024 * 1024)
#define AP_PROBE_STEADY_MAX		(64ULL * 1024)
/* The rounds after which the size the phase screen handed its unit to is first analysed. */
#define AP_PROBE_HYP_ROUNDS		2

struct ap_probe_opts {
	enum ap_probe_mode mode;
	uint64_t min_size;		/* bytes, a power of two (default 4 KiB) */
	uint64_t max_size;		/* bytes, the largest unit looked for (see
					   AP_PROBE_MAX_SIZE_DEFAULT) */
	uint64_t region_start;		/* bytes (default 1 MiB) */
	uint64_t region_size;		/* bytes, 0 = min(1 GiB, what the device has) */
	unsigned slots;			/* places the writes are spread over (default 128) */
	unsigned min_rounds;		/* per size before an early stop (default 3) */
	unsigned max_rounds;		/* per size (default 40) */
	uint64_t deadline_ns;		/* ap_now_ns() time to stop at, 0 = none */
	uint64_t seed;
	bool allow_metadata;		/* may touch LBA 0..33 and the last 33 sectors */
	bool confirm;			/* measure the next size too, as a check (default) */
	bool first_writes;		/* measure first writes first (default; fresh.c) */
	bool stripes;			/* destructive: look for stripes above the timed
					   sizes (default; stripe.c) */
	bool stripes_always;		/* ... on one rotating ATA disk too (--stripes) */
	bool one_disk;			/* the identity: one ATA disk, no RAID volume
					   (ap_identity_one_disk(); set by prepare) */
	bool phase_screen;		/* after a smallest size without a unit, the
					   largest size at each of its phases first
					   (default; see ap_probe_measure()) */
	double alpha, min_slowdown;	/* 0 = the analysis defaults */
	double absence_margin;		/* "no effect" rules out effects down to this
					   (default AP_PROBE_ABSENCE_MARGIN) */
	/*
	 * Asked between operations: a nonzero answer (a signal number) stops
	 * the probe with what was measured (r->interrupted). Empty: never.
	 */
	struct ap_cancel cancel;
	const char *journal;		/* AP_PROBE_PRESERVE: the undo journal to create */
	/*
	 * Called once, after every preparation (plan, identity, journal,
	 * originals) and right before the first timed write. Several devices
	 * probed at once pass one start gate here, so that their measurements
	 * run side by side; it returns the ap_now_ns() time the gate opened,
	 * which becomes start_ns (0: the time it returned). NULL: none.
	 */
	uint64_t (*ready)(void *arg);
	void *ready_arg;
};

void ap_probe_opts_init(struct ap_probe_opts *o);

/* Where the probe writes: computed by ap_probe_plan(). */
struct ap_probe_plan {
	unsigned logical_sector;
	uint64_t dev_size;
	uint64_t sizes[AP_PROBE_MAX_SIZES];	/* ascending */
	size_t nsizes;
	uint64_t region_start, region_size;	/* bytes */
	uint64_t stride;			/* between slots, bytes */
	unsigned slots;
	uint64_t span;				/* bytes written per slot */
	/*
	 * Bytes journalled on each side of a slot's span, inside the region:
	 * the largest write size. A write that does not cover whole physical
	 * sectors makes the drive rewrite them (read-modify-write), and a
	 * power cut then tears bytes the host never sent, up to P - 1 past
	 * the write's edge for a physical sector of P bytes. The probe
	 * identifies units up to its largest size, so for those the tear
	 * stays in the record and undo restores it. A hidden unit larger
	 * than that (a "larger than" verdict) may tear up to P - 1 - margin
	 * bytes outside every journal: never outside the region, since the
	 * margins and the gaps between slots are in it.
	 */
	uint64_t margin;
	unsigned reported_physical;		/* bytes, for the verdict (default logical) */
	/*
	 * The first-write step (fresh.c): @fw_windows never-written windows
	 * of @fw_len bytes, @fw_pitch apart from @fw_start (destructive:
	 * anywhere in the region, before any other write; preserve: the
	 * slots' records, which the journal holds), 0 windows: none (reads).
	 * Its scan writes @fw_granule bytes at a time and resolves units up
	 * to @fw_unit_max; its comparison of first writes with rewrites rules
	 * units out up to @fw_claim_max. At most @fw_write_max bytes written.
	 */
	unsigned fw_windows;
	uint64_t fw_start, fw_pitch, fw_len;
	uint64_t fw_granule, fw_unit_max, fw_claim_max, fw_write_max;
	uint64_t max_unit;			/* --max-size */
	/*
	 * The stripe step (stripe.c, destructive only): @st_len bytes from
	 * @st_start, writes up to @st_cap bytes; 0: none.
	 */
	uint64_t st_start, st_len, st_cap;
};

/*
 * Sizes, region and slots for a device of @dev_size bytes with @logical
 * byte sectors. -EINVAL / -ENOSPC with the reason in @e (e.g. a region that
 * touches LBA 0..33 or the backup GPT without allow_metadata).
 */
int ap_probe_plan(const struct ap_probe_opts *o, uint64_t dev_size, unsigned logical,
		  struct ap_probe_plan *plan, struct ap_error *e);

/*
 * Where slot @slot's writes start: its record's start (region start +
 * slot * stride) plus the margin. The record (journalled, the slot's whole
 * share of the device) is ap_probe_record_len() bytes: span + 2 * margin.
 */
uint64_t ap_probe_slot_offset(const struct ap_probe_plan *plan, uint64_t slot);
uint64_t ap_probe_record_len(const struct ap_probe_plan *plan);
/* The journal's plan of @plan: one record per slot, ap_probe_record_len() bytes each. */
void ap_probe_journal_plan(const struct ap_probe_plan *plan, bool allow_metadata,
			   struct ap_journal_plan *jp);

/* Number of offsets measured at size @size: 2 * size / logical. */
unsigned ap_probe_noffsets(const struct ap_probe_plan *plan, uint64_t size);

/*
 * Byte ranges the plan never writes, for the identity's content check
 * (at most 1 MiB each): the one before the region (by default the first
 * MiB: partition table and boot area) and the one at the end of the
 * device, after the last slot. 0..@max ranges (offset and length set).
 */
#define AP_PROBE_UNTOUCHED_MAX	(1024 * 1024)
size_t ap_probe_untouched(const struct ap_probe_plan *plan, struct ap_identity_content *r,
			  size_t max);

/* The I/O under test. */
struct ap_probe_io {
	/* one timed write or read of @len bytes at byte @off: ns, or -errno */
	int (*op)(void *arg, bool write, uint64_t slot, uint64_t off, size_t len,
		  uint64_t *ns);
	/*
	 * Optional (writing modes): a read of @len bytes at @off, the lead-in
	 * of the next timed write, and its latency in *@ns (not a sample: the
	 * probe checks with it that the read reached the media). 0 or -errno.
	 * See ap_probe_lead_in().
	 */
	int (*lead_in)(void *arg, uint64_t off, size_t len, uint64_t *ns);
	/*
	 * Optional (writing modes): write slot @slot's whole span once,
	 * untimed, before its first timed write: storage that allocates on
	 * first write (thin provisioning, sparse images, the emulated drive)
	 * then shows its steady-state cost from the first write on. 0 or -errno.
	 */
	int (*warm)(void *arg, uint64_t slot);
	/*
	 * Optional (writing modes): the timed write of @len bytes at @off
	 * comes next, before its lead-in (preserve: recorded in the undo
	 * journal as the write in flight, ap_journal_intent()). 0 or -errno.
	 */
	int (*announce)(void *arg, uint64_t off, size_t len);
	void *arg;
};

/*
 * Where the lead-in read of a timed write of @len bytes at @off goes:
 * *at, *n (0 when there is none: no room before the end of the device).
 *
 * A synchronous write on a rotating disk waits for its sectors to come
 * round: from a random place that is up to one revolution (8.3 ms at 7200
 * rpm, as much as the effect sought), which takes hundreds of rounds to
 * average out. Read just behind the write first and the wait is always
 * about one revolution minus the gap, aligned or not, so that a
 * read-modify-write's extra revolution stands out in a few rounds. The read
 * starts 2 * the largest size + AP_PROBE_LEAD_IN_AHEAD past the write's
 * end: past any unit the probe can identify (the drive's buffer then holds
 * no sector the write needs), and ahead of where the previous write of the
 * same slot ended (the offsets span 2 * the largest size) by enough for the
 * host's latency (256 KiB: 0.85-4 ms of a revolution on tracks of 0.5-2.5
 * MiB), so that the drive reaches it in the same revolution. Flash does not
 * care.
 */
#define AP_PROBE_LEAD_IN_AHEAD	(256 * 1024)
/*
 * The measurement's own checks (see ap_probe_measure()). Reads a seek away
 * before the first write say whether the drive rotates (device/rotation.h).
 * On such a disk a lead-in waits for AP_PROBE_LEAD_IN_AHEAD bytes or
 * more to pass under the head, at least 0.6 ms on any disk made: one
 * answered in less than AP_PROBE_LEAD_IN_HIT_NS came from the drive's
 * read-ahead buffer and placed nothing. And a synchronous write there waits
 * for its sectors to come round: one faster than that never reached the
 * media (ap_rotation_write_unflushed()).
 */
#define AP_PROBE_LEAD_IN_HIT_NS	400000ULL
void ap_probe_lead_in(const struct ap_probe_plan *plan, uint64_t off, uint64_t len,
		      uint64_t *at, size_t *n);
/*
 * The lead-in of a write in a slot of its own (the phase screen's, struct
 * sched's spread in schedule.c): it ends the largest size +
 * AP_PROBE_LEAD_IN_AHEAD *before* the write's start, so that the write
 * waits only for that gap to pass under the head (0.1-0.6 of a revolution
 * on tracks of 0.5-2.5 MiB), not for most of a revolution. No previous
 * write of the same slot has to be caught up with here (the head comes
 * from another slot, after a seek), and the gap still keeps the lead-in
 * past every unit the probe can identify. Where there is no room before
 * the write, ap_probe_lead_in()'s place.
 */
void ap_probe_lead_in_before(const struct ap_probe_plan *plan, uint64_t off, uint64_t len,
			     uint64_t *at, size_t *n);
/* The length of a lead-in read: a page, or a logical sector when larger. */
size_t ap_probe_lead_in_len(const struct ap_probe_plan *plan);

struct ap_probe_sample {
	uint64_t size;
	uint32_t offset;	/* logical sectors from the slot's (aligned) start */
	uint32_t round;
	uint32_t slot;
	uint64_t ns;
	uint64_t lead_ns;	/* its lead-in's latency, 0: none */
};

/* One write size. */
struct ap_probe_size {
	uint64_t size;
	unsigned noffsets;
	unsigned rounds;		/* complete rounds */
	unsigned targeted;		/* the phase screen: its targeted rounds (of the
					   phases "no effect" lacked, design.md 3.5) */
	bool phases;			/* the phase screen: one offset per phase of the
					   largest size (see ap_probe_measure()) */
	bool halves_differ;		/* the phase screen: its two halves differ (a
					   unit larger than the size) */
	bool nominates;			/* the phase screen: it shows a unit, clear but
					   for its rounds (handed over to the sizes) */
	bool hyp;			/* the size the screen handed its unit to: its
					   analysis confirms that one unit (the analysis
					   params' hyp_period), after 2 rounds already */
	double margin;			/* the phase screen: the margin its "no effect"
					   needs for the claim at every size; 0 = the
					   options' absence_margin */
	size_t first, n;		/* its samples */
	struct ap_verdict verdict;	/* of this size alone (max period size / logical) */
	bool analysed, clear;
	uint64_t t_start_ns, t_end_ns;
};

/* The first-write step's samples (fresh.c). */
enum ap_fw_kind {
	AP_FW_FIRST,		/* the first write into a never-written place */
	AP_FW_REWRITE,		/* the same place again */
	AP_FW_SCAN,		/* sequential first writes through a window */
	AP_FW_REFINE,		/* logical sectors across a unit's boundary */
};
struct ap_fw_sample {
	uint64_t off;		/* bytes, on the device */
	uint64_t ns;
	uint32_t window;
	uint32_t kind;		/* enum ap_fw_kind */
};

/*
 * First writes (issue 33): storage that allocates on the first write
 * (qcow2 clusters, thin-pool chunks) makes the first write into a unit
 * expensive and every later one cheap, so the timed rewrites cannot see
 * it. The step compares first writes into never-written places with
 * rewrites of the same places; where they differ, it writes through
 * never-written windows sequentially, where only the write that enters a
 * new unit pays, and takes the unit and its phase from those writes.
 */
struct ap_probe_first {
	bool measured;
	struct ap_fw_sample *s;
	size_t n, cap;
	unsigned windows;		/* used */
	double ratio;			/* median first write / median rewrite */
	double p_effect, p_absent;	/* rank test for an effect; equivalence test */
	bool effect, absent;		/* first writes slower; ruled out at the margin */
	double margin;			/* of "absent" */
	bool resolved;			/* @unit and @lba known */
	uint64_t unit, lba;		/* bytes; lowest aligned LBA */
	uint64_t cell;			/* the scan's: a boundary lies in [cell, cell + G) mod unit */
	bool fine;			/* the scan stopped with no unit (scan_stops()) */
	bool per_write;			/* every scan write paid: one of at most G unresolved */
	bool scan_done;			/* the scan wrote through every window it may */
	double again;			/* then, no unit: a fresh batch's ratio (0: none) */
	double unit_ratio;		/* a write entering a new unit / one that does not */
	uint64_t unconfirmed;		/* a unit the scan showed, its boundary's writes not */
	uint64_t scanned, written;	/* bytes */
	char why[512];			/* effect without a unit: what is not resolved */
	uint64_t ns;			/* the step's duration */
};

/* The stripe step's samples (stripe.c). */
enum ap_st_kind {
	AP_ST_WARM,		/* the area written once, untimed (not kept) */
	AP_ST_SCAN,		/* a family's width at an offset of its grid */
	AP_ST_ALIGNED,		/* the confirmation: a stripe at its phase */
	AP_ST_MISALIGNED,	/* ... 64 KiB off */
};
struct ap_st_sample {
	uint64_t off, len, ns;
	uint32_t kind;		/* enum ap_st_kind */
	uint32_t family;	/* AP_ST_SCAN: which width */
};

/*
 * Stripes (issue 33): every-write units above the timed sizes, found by
 * writes of whole stripes at a grid of offsets (stripe.c says why).
 */
struct ap_probe_stripe {
	bool measured;			/* the scan ran to its end */
	struct ap_st_sample *s;
	size_t n, cap;
	unsigned candidates;		/* confirmations made (shows()), each candidate's and descend()'s */
	bool found;
	uint64_t unit, lba;		/* bytes; lowest aligned LBA */
	double ratio, p;		/* 64 KiB off / aligned; rank test */
	uint64_t covered;		/* the largest width written */
	bool skipped;			/* not measured: one rotating ATA disk (no stripe) */
	char why[256];			/* a candidate not confirmed */
	uint64_t written, ns;		/* bytes (the area's warm-up too); duration */
};

struct ap_probe_result {
	struct ap_probe_plan plan;
	struct ap_probe_first fw;
	struct ap_probe_stripe st;
	enum ap_probe_mode mode;
	struct ap_probe_sample *samples;
	size_t nsamples, cap;
	struct ap_probe_size sizes[AP_PROBE_MAX_SIZES];
	size_t nsizes;
	int decided;		/* index of the size that gave the verdict, -1 */
	int confirmed;		/* index of the confirming size, -1 */
	/*
	 * The phase screen that handed a unit over to the sizes (schedule.c;
	 * its size 0: none did), moved out of @sizes: clear but for its
	 * rounds (nominates), it confirms a deciding size that shows the same
	 * unit at the same phase, as the next size would (measure.c).
	 */
	struct ap_probe_size screen;
	bool screen_confirms;	/* ... and it did: the verdict's confirmation */
	struct ap_verdict verdict;	/* final; stats = those of the deciding size */
	bool clear;		/* statistically clear (not a budget stop) */
	char unclear[192];	/* when not clear, why (for humans); "" when clear */
	bool budget_out;	/* the deadline ended the measurement */
	/*
	 * An assumption of the measurement that the drive broke (the writes
	 * never reached its media, its buffer answered the lead-ins or the
	 * read-modify-writes): no claim, and @cause says which and the remedy.
	 */
	enum ap_probe_failed {
		AP_PROBE_OK,
		AP_PROBE_FLUSH_IGNORED,	/* writes acknowledged faster than a rotating
					   disk's media can take them */
		AP_PROBE_LEAD_IN_BUFFERED,	/* the lead-in reads came from a buffer */
		AP_PROBE_RMW_BUFFERED,	/* the same offsets were fast and slow: a buffer
					   serves some read-modify-writes */
	} failed;
	char cause[768];
	/* what the checks measured (ns; 0: not measured) */
	uint64_t seek_read_ns;		/* reads a seek away: ap_rotation_value() */
	bool rotating;			/* ... slower than AP_ROTATING_NS */
	uint64_t write_ns;		/* median timed write so far behind its lead-in
					   (the spread's, just after theirs, excepted) */
	uint64_t lead_ins, lead_in_hits;	/* lead-ins, and those answered too fast */
	int interrupted;	/* signal number, 0 */
	uint64_t start_ns, end_ns;
	/* live, for the progress line of another thread */
	volatile uint64_t live_ops;
	volatile uint64_t live_size;
	volatile unsigned live_round;
};

/*
 * Measure and decide. Asks o->cancel and the deadline between
 * operations. 0 (also when interrupted: r->interrupted), or -errno from an
 * I/O operation with @e; r holds what was measured either way.
 */
int ap_probe_measure(const struct ap_probe_io *io, const struct ap_probe_opts *o,
		     const struct ap_probe_plan *plan, struct ap_probe_result *r,
		     struct ap_error *e);

/*
 * The first-write step's layout in @plan (called by ap_probe_plan(), in
 * plan.c): 0, or -ENOSPC naming the largest --max-size that fits the region.
 */
#define AP_FW_WINDOWS		40	/* never-written windows at most */
#define AP_FW_MIN_WINDOWS	8	/* 8 against 8 first writes: a rank test can reach 0.001 */
#define AP_FW_REWRITES		3	/* rewrites of each place */
#define AP_FW_SCANNED		12	/* windows scanned at most: caps what a run writes */
#define AP_FW_BEYOND_RATIO	3.0	/* a unit above the sizes (ap_probe_first_decide()) */
int ap_probe_plan_fresh(const struct ap_probe_opts *o, struct ap_probe_plan *plan,
			struct ap_error *e);
/*
 * Measure first writes (before any other write: every window is never
 * written), each timed write after its lead-in when @lead (as the timed
 * sizes' writes: a rotating disk, or one whose rotation the calibration
 * had no room to measure). 0 (also when stopped: r->interrupted,
 * r->budget_out), or -errno from an I/O operation with @e.
 */
int ap_probe_first_writes(const struct ap_probe_io *io, const struct ap_probe_opts *o,
			  const struct ap_probe_plan *plan, bool lead,
			  struct ap_probe_result *r, struct ap_error *e);
/* The first-write analysis of r->fw's samples (called by the step; for tests). */
void ap_probe_first_analyse(struct ap_probe_result *r, const struct ap_probe_opts *o);
/*
 * Add the levels, what "no effect" covers and the first writes' words to
 * r->verdict (called by ap_probe_decide()).
 */
void ap_probe_first_decide(struct ap_probe_result *r, const struct ap_probe_opts *o);

/* What a step outside the timed sizes works with (fresh.c, stripe.c). */
struct ap_probe_step {
	const struct ap_probe_io *io;
	const struct ap_probe_opts *o;
	const struct ap_probe_plan *plan;
	struct ap_probe_result *r;
	struct ap_error *e;
	bool lead;		/* lead-ins before the timed writes */
};

/*
 * Shared by the steps outside the timed sizes (step.c): stop between
 * operations? 1 with r->interrupted or r->budget_out set, 0 no.
 */
int ap_probe_step_stop(const struct ap_probe_opts *o, struct ap_probe_result *r);
/*
 * One timed write of @len bytes at @off (slot @slot for io->op), after
 * its lead-in (ap_probe_lead_in_before()) when @lead: 0 with *@ns (at
 * least 1), or -errno with @e in words (ENOSPC: a thin device full).
 */
int ap_probe_step_write(const struct ap_probe_io *io, const struct ap_probe_plan *plan, bool lead,
			uint64_t slot, uint64_t off, uint64_t len, uint64_t *ns, struct ap_error *e);

/* The stripe step's layout in @plan (called by ap_probe_plan()): 0. */
int ap_probe_plan_stripe(const struct ap_probe_opts *o, struct ap_probe_plan *plan,
			 struct ap_error *e);
/*
 * Look for stripes (destructive, after the timed sizes). 0 (also when
 * stopped), or -errno from an I/O operation with @e.
 */
int ap_probe_stripes(const struct ap_probe_io *io, const struct ap_probe_opts *o,
		     const struct ap_probe_plan *plan, bool rotating, struct ap_probe_result *r,
		     struct ap_error *e);
/*
 * What the stripe step of @plan writes: the scan's writes and bytes (the
 * area's warm-up included) and the confirmations' writes at most (each at
 * most plan->st_cap bytes); all 0 when it does not run.
 */
void ap_probe_stripe_plan_counts(const struct ap_probe_plan *plan, uint64_t *writes,
				 uint64_t *bytes, uint64_t *confirm_max);
/*
 * The stripe scan's widths (a family each, in the order of r->st's
 * samples' family numbers) and their grids for @plan, into @width and
 * @grid (at most @max). Their number.
 */
size_t ap_probe_stripe_widths(const struct ap_probe_plan *plan, uint64_t *width, uint64_t *grid,
			      size_t max);
/* A stripe the scan suggests: its class of offsets against the others. */
struct ap_st_candidate {
	uint64_t unit, phase;		/* bytes; the phase mod unit, on the device */
	double p, ratio;		/* rank test; the others' median over the class's */
	unsigned members;		/* offsets in the class */
};
/*
 * The stripes @t's scan suggests, best (largest ratio, then unit) first,
 * into @c (at most @max): every stripe width (m x 2^j x 4 KiB, m odd <=
 * 15, above the timed sizes) dividing a family's width, at every phase of
 * its grid, each offset's fastest time relative to its family's median,
 * the class faster at p < 0.01 by 1.2x. Their number.
 */
size_t ap_probe_stripe_candidates(const struct ap_probe_stripe *t, const struct ap_probe_plan *p,
				  struct ap_st_candidate *c, size_t max);
/* Add a stripe found, or what the step covers, to r->verdict (ap_probe_decide()). */
void ap_probe_stripe_decide(struct ap_probe_result *r, const struct ap_probe_opts *o);

/* Combine the per-size verdicts into r->verdict (called by ap_probe_measure). */
void ap_probe_decide(struct ap_probe_result *r, const struct ap_probe_opts *o);
/*
 * Does r->screen (a phase screen that handed a unit over) show the unit of
 * @v, a size's verdict, at the same phase: it confirms it.
 */
bool ap_probe_screen_agrees(const struct ap_probe_result *r, const struct ap_verdict *v);

/* The analysis parameters of size @sz (its margin, when a phase screen's). */
void ap_probe_size_params(const struct ap_probe_result *r, const struct ap_probe_opts *o,
			  const struct ap_probe_size *sz, struct ap_analysis_params *p);
/* The @q quantile of size @idx's latencies (0.5: the median), ns; 0 when none. */
double ap_probe_size_quantile(const struct ap_probe_result *r, size_t idx, double q);

/* Analyse one size's samples (called by ap_probe_measure). */
int ap_probe_analyse_size(struct ap_probe_result *r, size_t idx, const struct ap_probe_opts *o);
/*
 * The phases of size @idx (of the phase screen: @weak, noffsets entries)
 * whose "no effect" test has not reached the early stop's level yet
 * (ap_analysis_absence_weak()); their number.
 */
unsigned ap_probe_weak_phases(const struct ap_probe_result *r, size_t idx,
			      const struct ap_probe_opts *o, bool *weak);

/*
 * The size a report shows by default: the one that decided, else the
 * largest measured; -1 when none was.
 */
int ap_probe_shown_size(const struct ap_probe_result *r);

/*
 * A check of the measurement's own assumptions failed: r->failed = @f and
 * r->cause the sentence (what was measured, what it means, the remedy).
 */
void ap_probe_result_fail(struct ap_probe_result *r, enum ap_probe_failed f, const char *fmt,
			  ...) __attribute__((format(printf, 3, 4)));
void ap_probe_result_free(struct ap_probe_result *r);

/* A device to probe. */
struct ap_probe_dev {
	const char *dev;
	unsigned logical_sector, reported_physical;
	uint64_t size;
	struct ap_disk_identity id;	/* who it is (preserve: what the journal records) */
	int fd_hold;		/* the safety gate's O_EXCL descriptor, or -1 */
	/* preserve mode, filled by ap_probe_device() */
	char *journal;		/* absolute path while it exists */
	struct ap_journal_restore_stats restore;
	bool restored;		/* the device was verified equal to the journal */
	bool journal_kept;	/* left on disk because the restore failed */
	bool changed;		/* ... because another writer changed probed ranges
				   (restore.changed_at): left alone */
};

/* Logical and physical sector size, size and identity of a block device. */
int ap_probe_device_geometry(const char *dev, struct ap_probe_dev *d, struct ap_error *e);

/*
 * Is @path (a file to be created) on the device @dev itself? 1 yes, 0 no,
 * -errno when its directory cannot be examined.
 */
int ap_probe_path_on_device(const char *path, const char *dev);

/*
 * The real thing: plan, (preserve: read every slot once, in one ascending
 * pass over the region, into the undo journal, fsync it and register it),
 * measure with O_DIRECT | O_DSYNC writes (or O_DIRECT reads), and
 * (preserve) compare the device with the journal, repair what differs,
 * verify, delete the journal. The write modes must have passed the safety
 * gate. 0, or -errno with @e (r holds what was measured).
 */
int ap_probe_device(struct ap_probe_dev *d, const struct ap_probe_opts *o,
		    struct ap_probe_result *r, struct ap_error *e);
void ap_probe_dev_free(struct ap_probe_dev *d);

/* `probe --undo JOURNAL [DEVICE]` */
struct ap_probe_undo {
	char dev[256];		/* the device restored */
	char named[256];	/* the device's name in the journal */
	bool found;		/* found by its identity under another name */
	bool incomplete;	/* the journal was never completed: nothing to restore */
	bool removed;		/* the journal was deleted (after a restore) */
	int remove_err;		/* else why not (positive errno), 0 */
	struct ap_journal_restore_stats st;
};

/*
 * Restore the journal's disk from it, verify every byte, then delete the
 * journal and its registry entry (u->removed; a journal that cannot be
 * deleted, on a read-only file system say, is u->remove_err and the call
 * still returns 0: the disk is restored). Ranges someone else changed since
 * the probe are refused (-EPERM, ap_journal_restore()) unless @force. The disk is @dev, or without @dev the
 * device whose identity is the journal's (the name the journal recorded
 * when it still is that disk, else found among all block devices). The
 * identity is checked again on the device once it is held O_EXCL, before
 * the first write. Refusals (nothing written, journal kept) return -EPERM
 * with the reason in @e: @dev is another disk, no device or several match,
 * the device is in use (-EBUSY), or the journal cannot tell its disk from
 * another (an older alignprobe's, or a disk without any identity) and not
 * both @dev and @allow_unidentified are given.
 */
int ap_probe_undo(const char *journal, const char *dev, bool allow_unidentified, bool force,
		  struct ap_probe_undo *u, struct ap_error *e);

#endif
