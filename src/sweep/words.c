// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a sweep says in words (see sweep.h, setup.h): its starts, the plan
 * of a dry run, why a run stopped, its verdict in one line (the plot's
 * title) and in a paragraph, with the caveats after what to run next.
 * The analysis's own note (analysis/notes.c) is quoted, not rewritten;
 * the command prints what these return.
 */
#include "sweep/setup.h"
#include "sweep/sweep.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/stats.h"
#include "lib/util.h"
#include "sweep/mkfs.h"
#include "workload/pm.h"

/* Append to the paragraph *@s (NULL: empty), printf-style. */
#define say(s, ...) ap_strappendf(s, NULL, __VA_ARGS__)

void ap_sweep_fmt_starts(char *buf, size_t len, const uint64_t *v, size_t n, size_t max)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < n && i < max && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%" PRIu64, i ? " " : "", v[i]);
	if (n > max && off < len)
		snprintf(buf + off, len - off, " ...");
}

char *ap_sweep_verdict_line(const struct ap_verdict *v, const char *early)
{
	char *s;

	if (!v && early)
		ap_xasprintf(&s, "no verdict: the run was %s", early);
	else if (!v)
		ap_xasprintf(&s, "no verdict: no successful measurement");
	else if (v->sensitive && v->resolved)
		ap_xasprintf(&s, "physical sector %u bytes (reported %u), lowest aligned LBA %u, "
			     "%.*fx slower misaligned", v->physical_sector, v->reported_physical,
			     v->lowest_aligned_lba, v->small ? 2 : 1, v->slowdown);
	else if (v->sensitive && v->starts_insufficient)
		ap_xasprintf(&s, "alignment matters (%.1fx); these starts cannot resolve the sector "
			     "size", v->slowdown);
	else if (v->sensitive)
		ap_xasprintf(&s, "alignment matters (%.1fx) but no sector size explains it",
			     v->slowdown);
	else if (v->resolved)
		ap_xasprintf(&s, "no alignment effect of %.2fx or more", v->min_slowdown);
	else if (v->starts_insufficient)
		ap_xasprintf(&s, "no verdict: these starts cannot resolve the sector size (%.2fx, p %.2g)",
			     v->slowdown, v->p_value);
	else
		ap_xasprintf(&s, "no verdict yet (%.2fx, p %.2g)", v->slowdown, v->p_value);
	if (v && v->resolved && v->tentative)
		ap_strappendf(&s, NULL, " (tentative)");
	return s;
}

/* "10 measurements (3 rounds and 1 of 3 starts of round 4)" */
static const char *count_words(const struct ap_sweep_run *run, char *buf, size_t len)
{
	size_t full = (size_t)run->rounds_done * run->nstarts;
	size_t extra = run->nresults > full ? run->nresults - full : 0;

	if (!extra)
		snprintf(buf, len, "%zu measurement%s (%u round%s)", run->nresults,
			 run->nresults == 1 ? "" : "s", run->rounds_done,
			 run->rounds_done == 1 ? "" : "s");
	else if (!run->rounds_done)
		snprintf(buf, len, "%zu measurement%s (%zu of %zu starts of round 1)", run->nresults,
			 run->nresults == 1 ? "" : "s", extra, run->nstarts);
	else
		snprintf(buf, len, "%zu measurements (%u round%s and %zu of %zu starts of round %u)",
			 run->nresults, run->rounds_done, run->rounds_done == 1 ? "" : "s", extra,
			 run->nstarts, run->rounds_done + 1);
	return buf;
}

const char *ap_sweep_stop_words(const struct ap_sweep_run *run, char *buf, size_t len)
{
	char t[32], cnt[128];

	ap_format_duration(run->elapsed_ns, t, sizeof(t));
	count_words(run, cnt, sizeof(cnt));
	switch (run->stop) {
	case AP_SWEEP_STOP_CLEAR:
		if (run->verdict_valid && !run->verdict.resolved)
			snprintf(buf, len, "stopped after %s in %s: more rounds cannot change "
				 "the verdict", cnt, t);
		else
			snprintf(buf, len, "the verdict was clear after %s in %s", cnt, t);
		break;
	case AP_SWEEP_STOP_ROUNDS:
		snprintf(buf, len, "%u round%s done (%zu measurements) in %s, verdict not clear",
			 run->max_rounds, run->max_rounds == 1 ? "" : "s", run->nresults, t);
		break;
	case AP_SWEEP_STOP_BUDGET:
		snprintf(buf, len, "time budget spent after %s in %s, verdict not clear", cnt, t);
		break;
	case AP_SWEEP_STOP_SIGNAL:
		snprintf(buf, len, "interrupted by signal %d after %s in %s", run->signo, cnt, t);
		break;
	case AP_SWEEP_STOP_UNMEASURABLE:
		snprintf(buf, len, "stopped after %s in %s: no verdict: %s", cnt, t, run->cause);
		break;
	default:
		snprintf(buf, len, "stopped by an error after %s in %s", cnt, t);
		break;
	}
	return buf;
}

char *ap_sweep_plan_words(const struct ap_sweep_setup *s, uint64_t part_sectors)
{
	char buf[256], *sz = ap_size_to_human(part_sectors * s->info.logical_sector), *text;

	ap_sweep_fmt_starts(buf, sizeof(buf), s->starts, s->nstarts, 40);
	ap_xasprintf(&text, "dry run: nothing written. The sweep would:\n"
		     "  on %s (%u-byte logical, %u-byte reported physical sectors),\n"
		     "  for each of %zu starts (%s), %u to %u rounds in a random order\n"
		     "  (seed %" PRIu64 "), budget %" PRIu64 "s:\n"
		     "    write a GPT with one partition of %s at exactly that start,\n"
		     "    %s it, mount it, run %s (number %" PRIu64 ", transactions %" PRIu64
		     ", sync %s), unmount;\n"
		     "  and leave an empty GPT.\n",
		     s->disk, s->info.logical_sector, s->info.physical_sector, s->nstarts, buf,
		     s->min_rounds, s->max_rounds, s->seed,
		     (uint64_t)(s->budget_ns / AP_NSEC_PER_SEC), sz, ap_mkfs_program(s->fs),
		     s->workload_file ? s->workload_file : "the preset's workload",
		     s->workload.number, s->workload.transactions,
		     ap_pm_sync_name(s->workload.sync));
	free(sz);
	return text;
}

char *ap_sweep_verdict_words(const char *dev, const struct ap_verdict *v, uint64_t first_usable,
			     bool partial, const char *early)
{
	char buf[512], pb[32], cb[32], *s = NULL;

	if (!v && early) {
		say(&s, "\nNo verdict for %s: the run was %s before the analysis was clear;\n"
		    "  its partial results above decide nothing.\n", dev, early);
		return s;
	}
	if (!v) {
		say(&s, "\nNo verdict for %s: no start was measured successfully.\n", dev);
		return s;
	}
	if (v->sensitive && v->resolved) {
		uint64_t mib, first;
		char *effect;

		ap_verdict_recommend(v, first_usable, &mib, &first);
		ap_sweep_fmt_starts(buf, sizeof(buf), v->fast_starts, v->nfast, 24);
		say(&s, "\nVerdict for %s: partition alignment matters%s.\n", dev,
		    v->small ? ", a little" : "");
		say(&s, "  Physical sector: %u bytes, inferred (the drive reports %u%s).\n",
		    v->physical_sector, v->reported_physical,
		    v->reported_physical == v->physical_sector ? ", correctly" :
		    ": it hides the truth");
		say(&s, "  Alignment offset: lowest aligned LBA %u; a start is aligned when\n"
		    "  start %% %u == %u. Fast starts measured: %s.\n",
		    v->lowest_aligned_lba, v->period, v->lowest_aligned_lba % v->period, buf);
		effect = ap_verdict_effect_words(v, "starts", "\n  ");
		say(&s, "  Slowdown: %s.\n", effect);
		free(effect);
		if (v->small)
			say(&s, "  That is less than %.2fx: a misaligned start costs little "
			    "here, but\n  an aligned one costs nothing.\n", v->min_slowdown);
		say(&s, "  Recommended partition starts: %" PRIu64 " (%s),\n"
		    "  or %" PRIu64 " (the first aligned start >= %" PRIu64 ").\n", mib,
		    mib * v->logical_sector == (1ULL << 20) ? "1 MiB" :
		    "the first aligned start after 1 MiB", first, first_usable);
	} else if (v->sensitive) {
		say(&s, "\nVerdict for %s: alignment matters (%.*fx, rank test p = %s), but\n"
		    "  %s.\n", dev, v->small ? 2 : 1, v->slowdown,
		    ap_stats_format_p(v->p_value, pb, sizeof(pb)),
		    !v->starts_insufficient ?
		    "no physical sector size and offset explain which starts are fast" :
		    partial ?
		    "the starts measured so far cannot resolve the physical sector size\n"
		    "  (see the note)" :
		    "these starts cannot resolve the physical sector size, whatever the\n"
		    "  number of rounds (see the note)");
		ap_sweep_fmt_starts(buf, sizeof(buf), v->fast_starts, v->nfast, 24);
		if (v->nfast)
			say(&s, "  Fast starts measured: %s.\n", buf);
		say(&s, "  Partition starts at multiples of 2048 (1 MiB) are the safe choice; run\n"
		    "  'alignprobe probe %s' for a direct measurement.\n", dev);
	} else if (v->resolved) {
		say(&s, "\nVerdict for %s: no alignment sensitivity: no start is %.2fx or more\n"
		    "  slower than another (equivalence test, confidence %s; the rank\n"
		    "  test for an effect: p = %s). The drive reports %u-byte physical\n"
		    "  sectors. With 4096-byte file-system blocks a sweep cannot tell an\n"
		    "  honest drive from one that hides a unit larger than the block: every\n"
		    "  start is equally fast or equally slow. Run 'alignprobe probe %s' to\n"
		    "  tell. 2048 (1 MiB) is the safe partition start.\n", dev, v->min_slowdown,
		    ap_stats_format_confidence(v->confidence, cb, sizeof(cb)),
		    ap_stats_format_p(v->p_value, pb, sizeof(pb)), v->reported_physical, dev);
	} else if (v->starts_insufficient) {
		say(&s, "\nNo verdict for %s: slowdown %.2fx, rank test p = %s. %s\n", dev,
		    v->slowdown, ap_stats_format_p(v->p_value, pb, sizeof(pb)), partial ?
		    "The starts\n  measured so far cannot resolve the physical sector size "
		    "(see the note)." :
		    "These starts\n  cannot resolve the physical sector size, whatever the "
		    "number of\n  rounds (see the note).");
	} else {
		say(&s, "\nNo verdict for %s yet: slowdown %.2fx, rank test p = %s. More rounds\n"
		    "  (--rounds, --time-budget, --preset thorough) may decide.\n", dev,
		    v->slowdown, ap_stats_format_p(v->p_value, pb, sizeof(pb)));
	}
	return s;
}

char *ap_sweep_no_verdict_reason(const struct ap_verdict *v, const char *stop)
{
	char *s = NULL;

	if (v && v->resolved && v->tentative) {
		struct ap_analysis_params p;
		const char *why;

		ap_sweep_analysis_params(&p, v->logical_sector, v->reported_physical);
		why = ap_analysis_unclear_reason(v, &p);
		say(&s, "a tentative verdict only, not yet statistically clear (%s); more "
		    "rounds (--rounds, --time-budget) decide",
		    why ? why : "an early-stop condition is not met");
	} else if (v && v->note && *v->note) {
		if (stop && *stop)
			say(&s, "no verdict (%s): %s", stop, v->note);
		else
			say(&s, "no verdict: %s", v->note);
	} else if (v && v->sensitive) {
		say(&s, "no verdict: alignment matters, but the starts measured cannot resolve "
		    "the physical sector size");
	} else {
		say(&s, "no verdict: %s", stop && *stop ? stop : "the starts measured so far "
		    "cannot decide");
	}
	return s;
}

char *ap_sweep_verdict_caveats(const struct ap_verdict *v)
{
	char *s = NULL;

	if (!v)
		return NULL;
	if (v->note && *v->note)
		say(&s, "  Note: %s\n", v->note);
	if (v->resolved && v->tentative) {
		struct ap_analysis_params p;
		const char *why;

		ap_sweep_analysis_params(&p, v->logical_sector, v->reported_physical);
		why = ap_analysis_unclear_reason(v, &p);
		say(&s, "  Tentative: not yet statistically clear (%s):\n"
		    "  no verdict to act on (exit 5); more rounds (--rounds, --time-budget)\n"
		    "  decide.\n",
		    why ? why : "an early-stop condition is not met");
	}
	return s;
}
