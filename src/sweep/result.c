// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sweep's results, measured or replayed: the names of stages and stop
 * reasons, the observations handed to the analysis, the per-start table and
 * the recommended starts. Pure functions (tests/unit/test_sweep.c).
 */
#include "lib/align.h"
#include "lib/stats.h"
#include "sweep/sweep.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Results                                                            */
/* ------------------------------------------------------------------ */

static const char *const stage_names[] = {
	[AP_SWEEP_STAGE_NONE] = "none",
	[AP_SWEEP_STAGE_PARTITION] = "partition",
	[AP_SWEEP_STAGE_MKFS] = "mkfs",
	[AP_SWEEP_STAGE_MOUNT] = "mount",
	[AP_SWEEP_STAGE_WORKLOAD] = "workload",
	[AP_SWEEP_STAGE_UMOUNT] = "umount",
};

const char *ap_sweep_stage_name(enum ap_sweep_stage s)
{
	if ((size_t)s < AP_ARRAY_SIZE(stage_names))
		return stage_names[s];
	return "unknown";
}

/* The stop states: their names in the documents, and why a run so stopped has no verdict. */
static const struct {
	const char *name, *early;
} stops[] = {
	[AP_SWEEP_STOP_NONE] = { "running", NULL },
	[AP_SWEEP_STOP_CLEAR] = { "clear", NULL },
	[AP_SWEEP_STOP_ROUNDS] = { "rounds", NULL },
	[AP_SWEEP_STOP_BUDGET] = { "budget", NULL },
	[AP_SWEEP_STOP_SIGNAL] = { "signal", "interrupted" },
	[AP_SWEEP_STOP_FATAL] = { "error", "stopped by an error" },
	[AP_SWEEP_STOP_UNMEASURABLE] = { "unmeasurable",
					 "stopped: the drive broke an assumption of the measurement" },
};

const char *ap_sweep_stop_name(enum ap_sweep_stop s)
{
	if ((size_t)s < AP_ARRAY_SIZE(stops))
		return stops[s].name;
	return "unknown";
}

enum ap_sweep_stop ap_sweep_stop_parse(const char *name)
{
	size_t i;

	for (i = 0; name && i < AP_ARRAY_SIZE(stops); i++)
		if (!strcmp(name, stops[i].name))
			return (enum ap_sweep_stop)i;
	return AP_SWEEP_STOP_NONE;
}

const char *ap_sweep_stopped_early(enum ap_sweep_stop s)
{
	return (size_t)s < AP_ARRAY_SIZE(stops) ? stops[s].early : NULL;
}

const struct ap_verdict *ap_sweep_shown_verdict(const struct ap_verdict *v, enum ap_sweep_stop s)
{
	if (v && ap_sweep_stopped_early(s) && (v->sensitive || v->resolved))
		return NULL;
	return v;
}

void ap_sweep_result_free(struct ap_sweep_result *r)
{
	if (r) {
		free(r->message);
		r->message = NULL;
	}
}

size_t ap_sweep_obs(const struct ap_sweep_result *r, size_t n, struct ap_obs **obs)
{
	size_t i, k = 0;

	*obs = ap_xcalloc(n ? n : 1, sizeof(**obs));
	for (i = 0; i < n; i++) {
		if (!r[i].ok || !(r[i].cost > 0) || !isfinite(r[i].cost))
			continue;
		(*obs)[k].offset = r[i].start;
		(*obs)[k].round = r[i].round;
		(*obs)[k].seq = r[i].seq;	/* time order: local drift */
		(*obs)[k].cost = r[i].cost;
		k++;
	}
	return k;
}

void ap_sweep_analysis_params(struct ap_analysis_params *p, unsigned logical, unsigned reported)
{
	unsigned maxp = logical ? 4096 / logical : 8;

	ap_analysis_params_init(p, logical, reported);
	p->max_period = maxp < 2 ? 2 : maxp;
	p->offset_name = "start";
	/* a complete split may stop after 2 rounds (design.md 3.6) */
	p->split_min_n = 2;
}

int ap_sweep_analyse(const struct ap_sweep_result *r, size_t n,
		     const struct ap_analysis_params *p, struct ap_verdict *v)
{
	struct ap_obs *obs;
	size_t k = ap_sweep_obs(r, n, &obs);
	int rc = k ? ap_analysis_run(obs, k, p, v) : -EINVAL;

	free(obs);
	return rc;
}

int ap_sweep_doc_analyse(const struct ap_sweep_doc *d, struct ap_verdict *v)
{
	struct ap_analysis_params p;

	ap_sweep_analysis_params(&p, d->logical_sector, d->reported_physical);
	memset(v, 0, sizeof(*v));
	return ap_sweep_analyse(d->results, d->nresults, &p, v);
}

bool ap_sweep_is_aligned(const struct ap_verdict *v, uint64_t start, bool *known)
{
	*known = false;
	if (!v || !v->resolved)
		return false;
	*known = true;
	if (!v->sensitive || v->period <= 1)
		return true;
	return ap_align_is_aligned(start, 1, v->period, v->lowest_aligned_lba);
}

size_t ap_sweep_summarize(const struct ap_sweep_result *r, size_t n,
			  const uint64_t *starts, size_t nstarts,
			  const struct ap_verdict *v, struct ap_sweep_start_stat **out)
{
	struct ap_sweep_start_stat *st;
	uint64_t *own = NULL;
	double *buf[7], best = 0;
	size_t i, j, k;

	if (!starts) {
		own = ap_xcalloc(n ? n : 1, sizeof(*own));
		for (i = 0; i < n; i++)
			own[i] = r[i].start;
		starts = own;
		nstarts = ap_sweep_sort_starts(own, n, true);
	}
	st = ap_xcalloc(nstarts ? nstarts : 1, sizeof(*st));
	for (j = 0; j < AP_ARRAY_SIZE(buf); j++)
		buf[j] = ap_xcalloc(n ? n : 1, sizeof(double));
	for (i = 0; i < nstarts; i++) {
		struct ap_sweep_start_stat *s = &st[i];
		double rmw = 0;
		size_t nemu = 0;

		s->start = starts[i];
		for (j = 0, k = 0; j < n; j++) {
			if (r[j].start != s->start)
				continue;
			s->runs++;
			if (!r[j].ok) {
				s->failed++;
				continue;
			}
			buf[0][k] = r[j].tps;
			buf[1][k] = r[j].cost;
			buf[2][k] = r[j].creates_per_s;
			buf[3][k] = r[j].deletes_per_s;
			buf[4][k] = r[j].read_kibs;
			buf[5][k] = r[j].write_kibs;
			buf[6][k] = r[j].fsync_med_ms;
			if (r[j].has_emu) {
				rmw += (double)r[j].emu_rmw;
				nemu++;
			}
			k++;
		}
		s->tps = ap_stats_median(buf[0], k);
		s->cost = ap_stats_median(buf[1], k);
		s->creates_per_s = ap_stats_median(buf[2], k);
		s->deletes_per_s = ap_stats_median(buf[3], k);
		s->read_kibs = ap_stats_median(buf[4], k);
		s->write_kibs = ap_stats_median(buf[5], k);
		s->fsync_med_ms = ap_stats_median(buf[6], k);
		s->emu_rmw = nemu ? rmw / (double)nemu : NAN;
		if (k && s->tps > best)
			best = s->tps;
		s->aligned = ap_sweep_is_aligned(v, s->start, &s->has_aligned);
		for (j = 0; v && j < v->nstats; j++) {
			if (v->stats[j].offset == s->start) {
				s->has_fast = true;
				s->fast = v->stats[j].fast;
			}
		}
	}
	for (i = 0; i < nstarts; i++)
		st[i].rel = best > 0 && !isnan(st[i].tps) ? st[i].tps / best : NAN;
	for (j = 0; j < AP_ARRAY_SIZE(buf); j++)
		free(buf[j]);
	free(own);
	*out = st;
	return nstarts;
}
