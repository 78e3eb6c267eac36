/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Private to src/analysis: the thresholds of the model, the working context
 * of one ap_analysis_run(), and the steps it is made of (analysis.c: the
 * run, drift correction; fit.c: the candidates, the two-level split and the
 * tests; notes.c: what a verdict says to a human). See analysis.c for the
 * method.
 */
#ifndef AP_ANALYSIS_P_H
#define AP_ANALYSIS_P_H

#include "analysis/analysis.h"

#define AP_FIT_CLEAN	0.90	/* AUC from which one phase explains the data */
#define AP_FIT_STABLE	0.98	/* AUC needed for an early stop */
#define AP_MIN_N_CLEAR	3	/* observations per offset needed for an early stop */
#define AP_MIN_N_HYP	2	/* the same, confirming a unit named beforehand */
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

/* The significance level an effect of @slowdown must reach to count. */
static inline double level_for(const struct ap_analysis_params *p, double slowdown)
{
	return slowdown >= p->min_slowdown ? p->alpha : p->alpha / 100;
}

/* The level of the "no effect" equivalence test used for an early stop. */
static inline double eq_alpha(const struct ap_analysis_params *p)
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

/* What the tests of one run found, for the verdict and its note. */
struct findings {
	size_t nrounds;		/* distinct rounds */
	bool *candfast;		/* per offset: in the best candidate's fast phase */
	bool *clusfast;		/* per offset: in the lower class of the two-level split */
	double *fast, *slow;	/* scratch, n each */
	struct choice ch;	/* the best candidate (when ncand) */
	size_t ncand;		/* candidates tried */
	double p_mw;		/* rank test fast < slow of the candidate, corrected */
	double slow_c;		/* the candidate's slowdown */
	double slow_d;		/* the two-level split's slowdown */
	double p_cv, slow_cv;	/* the split found on one half of the rounds, tested on the other */
	bool misfit;		/* one phase leaves unlike offsets in one class */
	bool hyp;		/* the best candidate is the unit named beforehand */
	bool split;		/* every observation of its fast class below every slow one */
	bool phase_effect;	/* an established effect of one aligned phase */
	bool structure;		/* an effect without a phase, held out */
	long missing;		/* a residue modulo max_period no offset has, or -1 */
};

/* fit.c */
double ap_fit_slowdown_of(const struct ctx *c, const bool *fastoff, double *fast, double *slow,
			  size_t *pnf, size_t *pns);
size_t ap_fit_choose_candidate(const struct ctx *c, struct choice *ch, bool *fastoff);
void ap_fit_two_clusters(const struct ctx *c, const bool *mask, bool *fastoff);
double ap_fit_cross_validated_p(const struct ctx *c, double *slowdown);
bool ap_fit_model_misfit(const struct ctx *c, const bool *fastoff, double alpha);
double ap_fit_absence_confidence(const struct ctx *c, double margin, double *fast,
				 double *slow);
unsigned ap_fit_absence_weak(const struct ctx *c, double margin, double level, double *fast,
			     double *slow, bool *weak);
long ap_fit_missing_residue(const struct ctx *c);
bool ap_fit_identifiable(const struct ctx *c, const struct choice *ch);

/* notes.c: set the verdict's note of each outcome */
void ap_note_unit(struct ap_verdict *v, const struct ctx *c);
void ap_note_unsettled(struct ap_verdict *v, const struct ctx *c, const struct choice *ch);
void ap_note_phase_unresolved(struct ap_verdict *v, const struct ctx *c,
			      const struct findings *f);
void ap_note_structure(struct ap_verdict *v, const struct ctx *c);
void ap_note_no_candidate(struct ap_verdict *v, const struct ctx *c);
void ap_note_no_effect(struct ap_verdict *v, const struct ctx *c, const struct findings *f,
		       double conf);
void ap_note_partial(struct ap_verdict *v, const struct ctx *c, const struct findings *f);
void ap_note_inconclusive(struct ap_verdict *v, const struct ctx *c, const struct findings *f,
			  bool seen, bool hint, bool large_out);

#endif
