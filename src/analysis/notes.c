// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a verdict says to a human (ap_verdict.note): for each outcome of
 * ap_analysis_run(), the claim, its caveats and, when the measured offsets
 * cannot settle it, what to measure instead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysisP.h"
#include "lib/align.h"
#include "lib/stats.h"
#include "lib/util.h"

static const char *oname(const struct ctx *c)
{
	return c->p->offset_name ? c->p->offset_name : "offset";
}

/* Append to a note being built (NULL: empty). */
#define note_add(s, ...)	ap_strappendf((s), NULL, __VA_ARGS__)

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

/*
 * What to measure instead: two full periods from the first start (the
 * sweep's --starts). The probe measures every offset of a size in each
 * round, so missing offsets mean a round cut short: the advice is one its
 * options can follow.
 */
static void note_remedy(char **s, const struct ctx *c)
{
	unsigned long long a = c->off[0], b = a + 2ULL * c->p->max_period - 1;

	if (strcmp(oname(c), "offset") == 0)
		note_add(s, ": the round was cut short; run the probe to the end of its rounds "
			 "(a longer --time-budget, not interrupted)");
	else
		note_add(s, ": measure at least two %ss of each class, e.g. every %s from %llu "
			 "to %llu", oname(c), oname(c), a, b);
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
void ap_note_unsettled(struct ap_verdict *v, const struct ctx *c, const struct choice *ch)
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

/* A unit: a caveat, if any. */
void ap_note_unit(struct ap_verdict *v, const struct ctx *c)
{
	const struct ap_analysis_params *p = c->p;

	if (v->drift >= 1.5)
		ap_verdict_set_note(v, "the drive's speed drifted by a factor of %.1f between rounds "
			 "(corrected)", v->drift);
	else if (p->reported_physical && v->physical_sector != p->reported_physical)
		ap_verdict_set_note(v, "the drive reports %u-byte physical sectors but behaves like "
			 "%u-byte ones", p->reported_physical, v->physical_sector);
}

/* An aligned phase, but the measured offsets cannot resolve its period. */
void ap_note_phase_unresolved(struct ap_verdict *v, const struct ctx *c,
			      const struct findings *f)
{
	const struct ap_analysis_params *p = c->p;
	const struct cand *best = &f->ch.best;
	double slow_c = f->slow_c;
	char *s = NULL;

	note_add(&s, "alignment matters: %s ", best->nf == 1 ? oname(c) : "");
	if (best->nf > 1)
		note_add(&s, "%ss ", oname(c));
	note_offsets(&s, c, f->candfast);
	note_add(&s, " %s %.*fx faster than the others, but ", best->nf == 1 ? "is" : "are",
		 slow_c < p->min_slowdown ? 2 : 1, slow_c);
	note_unresolvable(&s, c, &f->ch);
	ap_verdict_set_note(v, "%s", s);
	free(s);
}

/* An effect, but no single aligned phase. */
void ap_note_structure(struct ap_verdict *v, const struct ctx *c)
{
	ap_verdict_set_note(v, "the %ss differ, but the fast ones do not form a single aligned "
		 "phase: the hidden unit is probably larger than the write size (block "
		 "size); use alignprobe probe with larger sizes", oname(c));
}

/* No candidate: every offset is in the same phase of every unit. */
void ap_note_no_candidate(struct ap_verdict *v, const struct ctx *c)
{
	char *s = NULL;

	if (c->k == 1)
		note_add(&s, "a single %s cannot show a period", oname(c));
	else
		note_add(&s, "every measured %s is in the same phase of every candidate unit, "
			 "so no unit can be told from another", oname(c));
	note_remedy(&s, c);
	ap_verdict_set_note(v, "%s", s);
	free(s);
}

/* "No effect", with its confidence @conf, and what smaller difference was seen. */
void ap_note_no_effect(struct ap_verdict *v, const struct ctx *c, const struct findings *f,
		       double conf)
{
	const struct ap_analysis_params *p = c->p;
	const struct cand *best = &f->ch.best;
	double p_mw = f->p_mw, slow_c = f->slow_c;
	char *s = NULL, pb[32];

	note_add(&s, "no alignment effect of %.2fx or more", v->absence_margin);
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
			 oname(c), f->slow_d);
	note_add(&s, ": " AP_HINT, p->logical_sector);
	ap_verdict_set_note(v, "%s", s);
	free(s);
}

/*
 * Effects of min_slowdown or more ruled out, but not down to the absence
 * margin: exactly that, and what smaller difference was seen.
 */
void ap_note_partial(struct ap_verdict *v, const struct ctx *c, const struct findings *f)
{
	const struct ap_analysis_params *p = c->p;
	const struct cand *best = &f->ch.best;
	char *s = NULL, pb[32];

	note_add(&s, "no alignment effect of %.2fx or more, but a smaller one (flash shows "
		 "1.1-1.5x) is not ruled out: \"no effect\" needs effects down to %.2fx "
		 "excluded (equivalence p = %s)", p->min_slowdown, v->absence_margin,
		 ap_stats_format_p(v->equivalence_p, pb, sizeof(pb)));
	if (best->faster && f->p_mw <= p->alpha)
		note_add(&s, ", and a %.2fx difference in one aligned phase (p = %s) has not "
			 "yet reached the %g an effect below %.2fx needs", f->slow_c,
			 ap_stats_format_p(f->p_mw, pb, sizeof(pb)), p->alpha / 100,
			 p->min_slowdown);
	note_add(&s, "; more samples needed");
	ap_verdict_set_note(v, "%s", s);
	free(s);
}

/*
 * Neither an effect nor its absence: why not, and what is missing. @seen:
 * a visible difference in one phase; @hint: with some evidence; @large_out:
 * differences of min_slowdown or more are ruled out.
 */
void ap_note_inconclusive(struct ap_verdict *v, const struct ctx *c, const struct findings *f,
			  bool seen, bool hint, bool large_out)
{
	const struct ap_analysis_params *p = c->p;
	const struct cand *best = &f->ch.best;
	double p_mw = f->p_mw, slow_c = f->slow_c;
	long missing = f->missing;
	char *s = NULL, pb[32];

	if (best->faster && p_mw <= p->alpha && p_mw > level_for(p, slow_c))
		note_add(&s, "inconclusive: a small alignment effect of %.2fx (p = %s) has "
			 "not yet reached the level an effect below %.2fx needs (p <= "
			 "%g)", slow_c, ap_stats_format_p(p_mw, pb, sizeof(pb)),
			 p->min_slowdown, p->alpha / 100);
	else if (best->faster && p_mw <= p->alpha)
		note_add(&s, "inconclusive: an alignment effect of %.2fx is significant "
			 "(p = %s), but %s", slow_c,
			 ap_stats_format_p(p_mw, pb, sizeof(pb)), f->misfit ?
			 "one aligned phase does not explain them all" :
			 "the fast and the slow ones do not separate cleanly yet: more "
			 "samples needed");
	else if (v->p_structure <= p->alpha)
		note_add(&s, "inconclusive: the %ss differ (Kruskal-Wallis p = %s), but "
			 "neither one aligned phase nor a split that holds from one "
			 "half of the rounds to the other explains it", oname(c),
			 ap_stats_format_p(v->p_structure, pb, sizeof(pb)));
	else if (hint && ap_fit_identifiable(c, &f->ch))
		note_add(&s, "inconclusive: the timings hint at %u-byte physical sectors "
			 "starting at LBA %u (%.2fx), but there are too few samples",
			 best->period * p->logical_sector, best->phase, slow_c);
	else if (seen) {
		note_add(&s, "inconclusive: %s%s ", oname(c), best->nf > 1 ? "s" : "");
		note_offsets(&s, c, f->candfast);
		note_add(&s, " %s %.2fx faster than the others, but with so few samples "
			 "that is not yet significant (p = %s)", best->nf > 1 ? "are" : "is",
			 slow_c, ap_stats_format_p(p_mw, pb, sizeof(pb)));
	} else if (missing >= 0 && v->equivalence_p <= eq_alpha(p))
		note_add(&s, "inconclusive: the measured %ss do not differ (none by "
			 "%.2fx or more)", oname(c), v->absence_margin);
	else if (missing >= 0 && large_out)
		note_add(&s, "inconclusive: the measured %ss do not differ by %.2fx or more "
			 "(a smaller difference is not ruled out)", oname(c), p->min_slowdown);
	else
		note_add(&s, "inconclusive: no clear alignment effect, but too few "
			 "samples to rule one out");
	if (missing >= 0) {
		unsigned long long ex = ap_align_next(c->off[0], 1, p->max_period,
						      (uint64_t)missing);
		note_add(&s, "; and no %s at %ld modulo %u (such as %llu) was measured, "
			 "so %u-byte physical sectors aligned there would leave every "
			 "measured %s equally slow", oname(c), missing, p->max_period,
			 ex, p->max_period * p->logical_sector, oname(c));
		note_remedy(&s, c);
	} else if (seen && !ap_fit_identifiable(c, &f->ch)) {
		note_add(&s, "; and ");
		note_unresolvable(&s, c, &f->ch);
	}
	ap_verdict_set_note(v, "%s", s);
	free(s);
}

char *ap_verdict_effect_words(const struct ap_verdict *v, const char *what, const char *sep)
{
	char pb[32], cb[32], *s;

	ap_xasprintf(&s, "misaligned %s are %.*fx slower (rank test p = %s;%sconfidence that "
		     "alignment matters %s)", what, v->small ? 2 : 1, v->slowdown,
		     ap_stats_format_p(v->p_value, pb, sizeof(pb)), sep,
		     ap_stats_format_confidence(v->confidence, cb, sizeof(cb)));
	return s;
}
