/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * From timings to a verdict: pure functions over arrays, shared by sweep
 * (cost = seconds per transaction at a partition start) and probe (cost =
 * latency of a write at a logical-sector offset). No I/O, no printing.
 *
 * Model: a drive with a hidden physical unit of P logical sectors whose
 * first aligned LBA is L is fast exactly at offsets o with o % P == L % P
 * (for writes of at least P sectors), slow elsewhere. The analysis finds
 * the fast set from the data, then the (P, L) that explains it, tested with
 * a rank test (Mann-Whitney U) of fast vs slow observations.
 *
 * An effect established by one aligned phase is reported whatever its size
 * (min_slowdown only marks it "small" and words the recommendation); "no
 * effect" is the claim of an equivalence test whose margin is the smaller
 * of absence_margin and min_slowdown, and needs offsets of every residue
 * modulo max_period. When the data rule out effects of min_slowdown or more
 * but not down to that margin, the verdict is unresolved and says so
 * (absence_partial): a small effect (flash: 1.1-1.5x) is not ruled out.
 * A set of offsets that cannot tell the candidate units apart gives an
 * unresolved verdict that says what is missing (starts_insufficient),
 * never a unit or "no effect".
 */
#ifndef AP_ANALYSIS_H
#define AP_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/levels.h"

/* One trial: lower cost is better. */
struct ap_obs {
	uint64_t offset;	/* partition start sector, or write offset in logical sectors */
	unsigned round;		/* repeat number, for drift checks */
	double cost;
	uint64_t seq;		/* order of measurement, 1-based; 0 = unknown. When every
				   observation has one, bursts of slowness (a busy machine,
				   a drive's housekeeping) are divided out locally too */
};

struct ap_analysis_params {
	unsigned logical_sector;	/* bytes, e.g. 512 */
	unsigned reported_physical;	/* bytes, what the device claims */
	unsigned max_period;		/* largest P considered, logical sectors (power of 2) */
	double alpha;			/* significance level, e.g. 0.001 */
	double min_slowdown;		/* an established effect below it is reported as small
					   (the recommendation's wording), e.g. 1.15 */
	double absence_margin;		/* "no effect" needs effects down to min(this,
					   min_slowdown) ruled out; 0: min_slowdown. Default
					   1.15; the probe uses 1.10 (flash costs 1.1x and more) */
	const char *offset_name;	/* what an offset is in notes: "offset" (default), "start" */
	/*
	 * A unit named beforehand by other data (the probe's phase screen):
	 * period and phase (lowest aligned LBA), 0 = none. Where the best
	 * candidate is that unit, the one test confirms one hypothesis: no
	 * Bonferroni factor, no settling of the period by its neighbours'
	 * tests (the other data settled it), and AP_MIN_N_HYP observations
	 * per offset suffice for an early stop.
	 */
	unsigned hyp_period, hyp_phase;
	/*
	 * Observations per offset that suffice for an early stop where the
	 * unit's split is complete: every observation at an aligned offset
	 * below every one elsewhere, so that no outlier is there to discount
	 * (struct ap_verdict's split). 0: AP_MIN_N_CLEAR, as everywhere
	 * else; the sweep's quick preset: 2 (sweep/setup.c).
	 */
	unsigned split_min_n;
};

struct ap_offset_stat {
	uint64_t offset;
	size_t n;
	double median;
	double q1, q3;
	bool fast;
};

struct ap_verdict {
	bool sensitive;			/* alignment matters on this drive */
	bool resolved;			/* physical_sector is known (also when not sensitive) */
	unsigned logical_sector;
	unsigned reported_physical;
	unsigned physical_sector;	/* inferred, bytes; 0 when unresolved */
	unsigned period;		/* physical_sector / logical_sector */
	unsigned lowest_aligned_lba;	/* phase: fast offsets are == this mod period */
	double slowdown;		/* median slow / median fast */
	double p_value;			/* the test for an effect: one-sided rank test fast <
					   slow, corrected for the candidates searched (or
					   Kruskal-Wallis when no phase fits) */
	double confidence;		/* in the verdict's claim: 1 - p_value when sensitive,
					   1 - equivalence_p when "no effect", 0 otherwise */
	uint64_t *fast_starts;		/* measured offsets classified fast */
	size_t nfast;
	struct ap_offset_stat *stats;	/* per offset, ascending */
	size_t nstats;
	const char *note;		/* why unresolved, caveats (valid until ap_verdict_free) */
	double min_slowdown;		/* the wording threshold used (JSON "min_slowdown") */
	double absence_margin;		/* the margin of "no effect" (JSON "absence_margin"):
					   min(absence_margin, min_slowdown) of the params */
	double equivalence_p;		/* the test for "no effect of absence_margin or more":
					   H0 an effect that large; NAN when not run */
	bool absence_partial;		/* unresolved: no effect of min_slowdown or more, but
					   one between absence_margin and it is not ruled out */
	bool small;			/* sensitive, but slowdown < min_slowdown */
	bool starts_insufficient;	/* the measured offsets cannot resolve a period or rule
					   one out, whatever the number of rounds */
	uint64_t ruled_out_up_to;	/* "no effect": every unit up to this many bytes is
					   ruled out (JSON "ruled_out_up_to"), 0 otherwise or
					   not stated (an older alignprobe) */
	bool tentative;			/* resolved, but not statistically clear (an early-stop
					   condition unmet: too few rounds, the budget): no
					   verdict to act on (JSON "tentative") */
	struct ap_levels levels;	/* every level found, ordered by unit (JSON "levels");
					   empty: the physical sector alone, level 0 of the
					   JSON (lib/levels.h) */
	struct ap_ruled_out ruled_out;	/* what a "no effect" covers (JSON "ruled_out");
					   up_to 0: ruled_out_up_to on rewrites (older files) */
	bool first_writes_unplaced;	/* sensitive: first writes cost more than rewrites and
					   no unit of theirs was placed (JSON
					   "first_writes_unplaced"): a start aligned to every
					   level may still pay one; false in older files */

	/* Added by the analysis (not part of the JSON): */
	double fit;			/* AUC of the chosen (period, phase) over per-offset
					   medians: 1 = every fast median below every slow one */
	double p_structure;		/* Kruskal-Wallis p: any offset effect at all */
	double drift;			/* largest / smallest per-round level (1 = none) */
	size_t nobs;			/* observations used */
	size_t min_n;			/* fewest observations of any offset */
	bool misfit;			/* the best phase leaves unlike offsets in one class */
	bool split;			/* resolved and sensitive, and every observation at an
					   aligned offset below every other one */
	char *note_buf;			/* owns the text @note points to, or NULL */
};

void ap_analysis_params_init(struct ap_analysis_params *p, unsigned logical_sector,
			     unsigned reported_physical);

/* 0 or -EINVAL (no observations, bad params). Free with ap_verdict_free(). */
int ap_analysis_run(const struct ap_obs *obs, size_t n,
		    const struct ap_analysis_params *p, struct ap_verdict *v);
void ap_verdict_free(struct ap_verdict *v);
/* Replace the verdict's note with a formatted one (kept in note_buf). */
void ap_verdict_set_note(struct ap_verdict *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Add a formatted clause to the verdict's note, after "; " when it has one. */
void ap_verdict_append_note(struct ap_verdict *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Is @off aligned under @v's period and phase (every offset is without a period)? */
bool ap_verdict_offset_aligned(const struct ap_verdict *v, uint64_t off);
/*
 * Recommended partition starts under @v: the first aligned start at or
 * after 1 MiB (2048 with 512-byte sectors, itself unless the drive is
 * shifted) and the first aligned start at or after @first_usable. Without
 * a resolved verdict that alignment matters (@v may be NULL), those
 * starts themselves.
 */
void ap_verdict_recommend(const struct ap_verdict *v, uint64_t first_usable, uint64_t *at_1mib,
			  uint64_t *first);
/* The lowest median of @v's offsets (INFINITY when none): the best one. */
double ap_verdict_min_median(const struct ap_verdict *v);
/* Deep copy (fast_starts, stats, note): @dst is overwritten. */
void ap_verdict_copy(struct ap_verdict *dst, const struct ap_verdict *src);

/*
 * Where "no effect" lacks observations: @weak (p->max_period entries) marks
 * each residue modulo max_period in a candidate whose equivalence test (the
 * one of ap_analysis_run(), at the absence margin) has not reached the
 * early stop's level. The number marked (0 also on bad input).
 */
unsigned ap_analysis_absence_weak(const struct ap_obs *obs, size_t n,
				  const struct ap_analysis_params *p, bool *weak);
/* True when more observations cannot change the verdict (early stop). */
bool ap_analysis_is_clear(const struct ap_verdict *v, const struct ap_analysis_params *p);
/*
 * Clear but for the number of observations at each offset: the early stop's
 * other conditions met (a screen whose unit is measured again from scratch
 * may hand it over before the rounds an early stop needs).
 */
bool ap_analysis_is_clear_but_count(const struct ap_verdict *v,
				    const struct ap_analysis_params *p);
/* Which early-stop condition a verdict misses, in words; NULL when clear. */
const char *ap_analysis_unclear_reason(const struct ap_verdict *v,
				       const struct ap_analysis_params *p);
/*
 * The effect a verdict that alignment matters found, in words (notes.c):
 * "misaligned WHAT are 1.8x slower (rank test p = P;SEPconfidence that
 * alignment matters C)" (two decimals for a small effect). Caller frees.
 */
char *ap_verdict_effect_words(const struct ap_verdict *v, const char *what, const char *sep);
/* What the verdict's confidence is about: "effect", "no_effect" or NULL (no claim). */
const char *ap_verdict_confidence_of(const struct ap_verdict *v);


/* The margin of "no effect" the params ask for: min(absence_margin, min_slowdown). */
double ap_analysis_absence_margin(const struct ap_analysis_params *p);

/*
 * The margin of "no effect" by default (the sweep's, whose min_slowdown is
 * 1.15 too); the probe asks for AP_PROBE_ABSENCE_MARGIN (probe.h). A saved
 * "no effect" with a wider margin, or none (older alignprobes ruled out
 * only --min-slowdown, 1.5x), does not show honest sectors: flash shows
 * 1.1-1.5x.
 */
#define AP_ABSENCE_MARGIN	1.15

/*
 * Does a "no effect" shown down to @margin (0: not said) show honest
 * sectors, i.e. rule out effects down to AP_ABSENCE_MARGIN? For a saved
 * verdict and for the verdict store's alike.
 */
static inline bool ap_absence_margin_shown(double margin)
{
	return margin >= 1 && margin <= AP_ABSENCE_MARGIN + 1e-9;
}

/*
 * A "no effect" verdict rules out every unit up to the largest one its
 * offsets could show (ruled_out_up_to), no more: a larger unit may still
 * hide. Covering AP_NO_EFFECT_HONEST (the probe's default largest write,
 * 64 KiB, above every unit a drive has been seen to hide) it shows honest
 * sectors. Below that, the unit it stands for is the next one that could
 * hide: the smallest power of two above what was ruled out, at least 4 KiB
 * (AP_RULE_MINIMUM_UNIT: as for a drive never probed). 0 when nothing
 * ruled out is stated (an older alignprobe's verdict).
 */
#define AP_NO_EFFECT_HONEST	65536u
static inline uint64_t ap_no_effect_unit(unsigned logical, uint64_t ruled_out_up_to)
{
	uint64_t u = 4096;

	if (!ruled_out_up_to)
		return 0;
	if (ruled_out_up_to >= AP_NO_EFFECT_HONEST)
		return logical;
	while (u <= ruled_out_up_to)
		u *= 2;
	return u < logical ? logical : u;
}

/*
 * What a "no effect" verdict rules out, as check judges starts by it: units
 * up to its ruled_out_up_to, on every write. A probe leaves that key out
 * where first writes were not ruled out (@ro on rewrites only); a
 * first-write unit it placed (an allocation level in @ls) then speaks for
 * the first writes, a rule of its own, and the rewrites' "no effect" for
 * the rest. Without that level first writes may hide a unit: nothing is
 * ruled out; nor where the level is no multiple of the unit the rewrites
 * stand for. *@up_to (may be NULL) gets the size ruled out, 0 when none;
 * the result is ap_no_effect_unit() of it.
 */
static inline uint64_t ap_no_effect_scope(unsigned logical, uint64_t ruled_out_up_to,
					  const struct ap_ruled_out *ro,
					  const struct ap_levels *ls, uint64_t *up_to)
{
	const struct ap_level *a = ap_levels_find(ls, AP_LEVEL_ALLOCATION);
	uint64_t u = ruled_out_up_to, unit;

	if (!u && ap_ruled_out_rewrites_only(ro) && a && a->paid == AP_PAID_FIRST_WRITE)
		u = ro->up_to;
	unit = ap_no_effect_unit(logical, u);
	/* a first-write unit that is no multiple of it cannot be judged beside it */
	if (!ruled_out_up_to && unit && a->unit % unit)
		u = unit = 0;
	if (up_to)
		*up_to = u;
	return unit;
}

/* The largest slowdown a verdict states (a drive with no fast class). */
#define AP_SLOWDOWN_MAX	1e6

/* @x clamped to [0, 1]; NaN gives 0. */
static inline double ap_clamp01(double x)
{
	if (!(x > 0))
		return 0;
	return x > 1 ? 1 : x;
}

#endif
