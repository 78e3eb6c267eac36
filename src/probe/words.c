// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a probe says in words (see prepare.h): its verdict in one line (the
 * plot's title) and the lines after it, split where the command lists
 * what to run next; what a dry run would do, what the confirmation says
 * will be overwritten, what an undo restored. The analysis's note
 * (analysis/notes.c) and the effect's sentence are the analysis's, quoted
 * here.
 */
#include "probe/prepare.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stats.h"
#include "lib/util.h"
#include "device/cachectl.h"

/* Append a line to the paragraph *@s (NULL: empty), printf-style. */
#define say(s, ...) ap_strappendf(s, NULL, __VA_ARGS__)

char *ap_probe_verdict_line(const char *dev, const struct ap_probe_result *r)
{
	const struct ap_verdict *v = &r->verdict;
	char *s;

	if (r->interrupted && !v->resolved)
		ap_xasprintf(&s, "%s: interrupted, no verdict", dev);
	else if (v->sensitive && v->resolved)
		ap_xasprintf(&s, "%s: %u-byte physical sectors (reported %u), lowest aligned LBA %u%s",
			     dev, v->physical_sector, v->reported_physical,
			     v->lowest_aligned_lba, v->small ? "; alignment matters a little" : "");
	else if (v->resolved && v->reported_physical == v->physical_sector)
		ap_xasprintf(&s, "%s: no alignment effect of %.2fx or more: %u-byte sectors behave as "
			     "reported (%u logical, %u physical)", dev, v->absence_margin,
			     v->physical_sector, v->logical_sector, v->reported_physical);
	else if (v->resolved)
		ap_xasprintf(&s, "%s: no alignment effect of %.2fx or more, although the drive reports "
			     "%u-byte physical sectors (%u logical)", dev, v->absence_margin,
			     v->reported_physical, v->logical_sector);
	else if (v->sensitive)
		ap_xasprintf(&s, "%s: alignment matters, but the physical sector size is not "
			     "resolved", dev);
	else
		ap_xasprintf(&s, "%s: no verdict", dev);
	return s;
}

char *ap_probe_verdict_words(const char *dev, const struct ap_probe_result *r)
{
	const struct ap_verdict *v = &r->verdict;
	char *s = ap_probe_verdict_line(dev, r), pb[32], cb[32];

	say(&s, "\n");
	if (v->sensitive && v->resolved) {
		uint64_t mib = 1048576 / v->logical_sector, s1, s34;
		char *effect = ap_verdict_effect_words(v, "writes", " ");

		ap_verdict_recommend(v, 34, &s1, &s34);
		say(&s, "  %s\n", effect);
		free(effect);
		if (v->small)
			say(&s, "  alignment matters a little: %.2fx, less than --min-slowdown "
			    "%.2fx; aligned partitions still cost nothing\n", v->slowdown,
			    v->min_slowdown);
		if (s1 == mib)
			say(&s, "  recommended partition starts: %" PRIu64 " (1 MiB)", s1);
		else
			say(&s, "  recommended partition starts: %" PRIu64 " (1 MiB + %" PRIu64
			    " sectors)", s1, s1 - mib);
		say(&s, "; first aligned start >= 34: %" PRIu64 "\n", s34);
	} else if (v->resolved) {
		say(&s, "  no effect of %.2fx or more: equivalence test, confidence %s (the rank "
		    "test for an effect: p = %s)\n", v->absence_margin,
		    ap_stats_format_confidence(v->confidence, cb, sizeof(cb)),
		    ap_stats_format_p(v->p_value, pb, sizeof(pb)));
	}
	return s;
}

char *ap_probe_no_verdict_reason(const struct ap_probe_result *r)
{
	const struct ap_verdict *v = &r->verdict;
	const char *why = r->unclear[0] ? r->unclear : "the timings were inconclusive";
	char *s = NULL;

	if (v->resolved && v->sensitive)
		say(&s, "a tentative verdict only (%u-byte physical sectors from LBA %u), not "
		    "statistically clear: %s", v->physical_sector, v->lowest_aligned_lba, why);
	else if (v->resolved)
		say(&s, "a tentative verdict only (no alignment effect), not statistically "
		    "clear: %s", why);
	else if (v->note && strncmp(v->note, "no verdict", 10) == 0)
		say(&s, "%s", v->note);
	else
		say(&s, "no verdict: %s", v->note ? v->note : why);
	return s;
}

char *ap_probe_result_caveats(const struct ap_probe_result *r, const struct ap_probe_dev *d)
{
	const struct ap_verdict *v = &r->verdict;
	char *s = NULL, b[32];

	if (!r->clear && v->resolved && r->unclear[0])
		say(&s, "  tentative: %s\n", r->unclear);
	if (v->note)
		say(&s, "  %s\n", v->note);
	if (r->mode == AP_PROBE_READONLY)
		say(&s, "  read-only mode: read timings are weak evidence; a drive may hide its "
		    "sectors from reads entirely\n");
	if (r->budget_out)
		say(&s, "  the time budget ran out\n");
	if (r->decided < 0 && r->nsizes)
		say(&s, "  measured sizes: %s .. %s\n",
		    ap_size_exact(r->sizes[0].size, b, sizeof(b)),
		    ap_size_exact(r->sizes[r->nsizes - 1].size, b + 16, sizeof(b) - 16));
	if (r->mode == AP_PROBE_PRESERVE && d->restored)
		say(&s, "  data preserved: %" PRIu64 " ranges of %s verified identical (%" PRIu64
		    " rewritten), undo journal removed\n", d->restore.records,
		    ap_size_exact(ap_probe_record_len(&r->plan), b, sizeof(b)),
		    d->restore.restored);
	return s;
}

/* The plan's stripe step (stripe.c), or why there is none, appended to @s. */
static void stripe_words(char **s, const struct ap_probe_opts *o, const struct ap_probe_plan *p)
{
	char b1[32], b2[32], t[32], *h;
	uint64_t sw, sb, sc;

	if (!p->st_cap || !o->stripes) {
		if (o->mode == AP_PROBE_PRESERVE && p->max_unit > AP_PROBE_STEADY_MAX)
			say(s, "  (RAID stripes above 64 KiB are not measured: a destructive probe's\n"
			    "  whole-stripe writes take more than the undo journal holds),\n");
		return;
	}
	ap_probe_stripe_plan_counts(p, &sw, &sb, &sc);
	h = ap_size_to_human(sb);
	/*
	 * Its writes at the 10 ms a write the estimate of the timed writes
	 * assumes, and its bytes at a 7200 rpm disk's 150 MB/s: these writes
	 * are large, so their transfer counts as much as their number.
	 */
	ap_format_duration((sw * 10 * 1000000ULL + sb / 150 * 1000 + 999999999ULL) /
			   1000000000ULL * 1000000000ULL, t, sizeof(t));
	say(s, "  then, for RAID stripes above 64 KiB, write %s from byte %" PRIu64 "\n"
	    "  once (untimed) and whole-stripe widths up to %s at every offset of\n"
	    "  their grid: %" PRIu64 " writes, %s with the warm-up (roughly %s more\n"
	    "  at 10 ms a write and 150 MB/s); and confirm up to %" PRIu64 " writes\n"
	    "  more (a quarter of the time budget is kept for it),\n",
	    ap_size_exact(p->st_len, b1, sizeof(b1)), p->st_start,
	    ap_size_exact(p->st_cap, b2, sizeof(b2)), sw, h, t, sc);
	free(h);
	if (o->one_disk && !o->stripes_always)
		say(s, "  (not if the disk is found rotating: one ATA disk has no RAID\n"
		    "  stripe; --stripes looks anyway),\n");
}

char *ap_probe_plan_words(const struct ap_probe_opts *o, uint64_t budget_ns, bool wcache_off,
			  const char *dev, const struct ap_probe_plan *p, const char *journal,
			  const struct ap_cachectl *wc)
{
	uint64_t lo, hi, all, lead_at, before_at;
	size_t lead_n, before_n;
	unsigned nominal = o->confirm && p->nsizes > 1 ? 2 : 1;
	char b1[32], b2[32], b3[32], b4[32], t[32], *rs, *s = NULL;
	size_t i;

	say(&s, "dry run: nothing written. The probe would:\n");
	say(&s, "  on %s (%u-byte logical, %u-byte reported physical sectors, %s),\n", dev,
	    p->logical_sector, p->reported_physical,
	    ap_size_exact(p->dev_size, b1, sizeof(b1)));
	rs = ap_size_to_human(p->region_size);
	say(&s, "  use the scratch region of %" PRIu64 " bytes (%s) from byte %" PRIu64 " (%s):\n"
	    "  %u slots %s apart, %s touched in each;\n", p->region_size, rs, p->region_start,
	    ap_size_exact(p->region_start, b1, sizeof(b1)), p->slots,
	    ap_size_exact(p->stride, b2, sizeof(b2)),
	    ap_size_exact(p->span, b3, sizeof(b3)));
	free(rs);
	if (o->mode == AP_PROBE_PRESERVE)
		say(&s, "  read the %u slots, each with the %s on either side that a torn\n"
		    "  write may reach (%s in all), into the undo journal\n  %s and sync it,\n",
		    p->slots, ap_size_exact(p->margin, b2, sizeof(b2)),
		    ap_size_exact((uint64_t)p->slots * ap_probe_record_len(p), b1, sizeof(b1)),
		    journal);
	if (o->mode != AP_PROBE_READONLY && p->fw_windows && o->first_writes) {
		say(&s, "  first, before any other write, time first writes of %s into %u\n"
		    "  never-written places (%s apart from byte %" PRIu64 ", in %s\n"
		    "  windows%s) against rewrites of them; where they differ, write\n"
		    "  through the windows in order to find the allocation unit (up to %s;\n"
		    "  at most %s written); on a thin device or image the first write into\n"
		    "  unallocated space allocates it,\n",
		    ap_size_exact(p->fw_granule, b1, sizeof(b1)),
		    p->fw_windows, ap_size_exact(p->fw_pitch, b2, sizeof(b2)), p->fw_start,
		    ap_size_exact(p->fw_len, b3, sizeof(b3)),
		    o->mode == AP_PROBE_PRESERVE ? ",\n  the slots' journalled records" : "",
		    ap_size_exact(p->fw_unit_max ? p->fw_unit_max : p->fw_granule, t, sizeof(t)),
		    ap_size_exact(p->fw_write_max, b4, sizeof(b4)));
	} else if (o->mode == AP_PROBE_READONLY) {
		say(&s, "  (first-write units cannot be seen by reads),\n");
	} else if (o->first_writes) {
		say(&s, "  (no room for first writes: 8 never-written windows do not fit the\n"
		    "  region, so first-write units stay unresolved),\n");
	}
	if (o->mode != AP_PROBE_READONLY)
		say(&s, "  write a slot's %s once before its first timed write (untimed, to\n"
		    "  warm up; only the slots the rounds use),\n",
		    ap_size_exact(p->span, b1, sizeof(b1)));
	say(&s, "  then time %s at every offset of each size,\n",
	    o->mode == AP_PROBE_READONLY ? "O_DIRECT reads" : "single O_DIRECT|O_DSYNC writes");
	ap_probe_lead_in(p, 0, 0, &lead_at, &lead_n);
	ap_probe_lead_in_before(p, 1ULL << 40, 0, &before_at, &before_n);
	if (o->mode != AP_PROBE_READONLY && lead_n)
		say(&s, "  on a rotating disk each after an untimed read of %s from %s past its\n"
		    "  end (its lead-in), a round's writes in one slot (the phase screen's\n"
		    "  each in the next slot, its lead-in ending %s before the write),\n",
		    ap_size_exact(lead_n, b1, sizeof(b1)), ap_size_exact(lead_at, b2, sizeof(b2)),
		    ap_size_exact((1ULL << 40) - before_at - before_n, t, sizeof(t)));
	say(&s, "  %u to %u rounds per size:\n", o->min_rounds, o->max_rounds);
	for (i = 0; i < p->nsizes; i++) {
		unsigned n = ap_probe_noffsets(p, p->sizes[i]);

		say(&s, "    %8s: %4u offsets, %" PRIu64 " to %" PRIu64 " %s\n",
		    ap_size_exact(p->sizes[i], b1, sizeof(b1)), n, (uint64_t)n * o->min_rounds,
		    (uint64_t)n * o->max_rounds,
		    o->mode == AP_PROBE_READONLY ? "reads" : "writes");
	}
	stripe_words(&s, o, p);
	ap_probe_plan_counts(p, o, &lo, &hi, &all);
	say(&s, "  in all %" PRIu64 " to %" PRIu64 " timed %s: the fewest when the first %s\n"
	    "  clear after %u rounds, the most when every size runs %u rounds;\n", lo, hi,
	    o->mode == AP_PROBE_READONLY ? "reads" : "writes",
	    nominal == 2 ? "two sizes are" : "size is", o->min_rounds, o->max_rounds);
	/*
	 * A rough estimate from an assumed 10 ms per write (about a
	 * revolution of a 7200 rpm disk and the lead-in), rounded up to a
	 * second. An honest drive needs every size.
	 */
	ap_format_duration(budget_ns, t, sizeof(t));
	ap_format_duration((lo * 10 + 999) / 1000 * 1000 * 1000 * 1000, b1, sizeof(b1));
	ap_format_duration((all * 10 + 999) / 1000 * 1000 * 1000 * 1000, b2, sizeof(b2));
	say(&s, "  duration: at most %s (--time-budget); the fewest, %" PRIu64 " %s, take\n"
	    "  roughly %s at an assumed 10 ms each (a rough estimate for a 7200 rpm\n"
	    "  disk, rounded up); an honest drive needs the smallest size and the\n"
	    "  largest at each of its phases, at least %" PRIu64 " %s, roughly %s.\n", t, lo,
	    o->mode == AP_PROBE_READONLY ? "reads" : "writes",
	    b1, all, o->mode == AP_PROBE_READONLY ? "reads" : "writes", b2);
	if (wcache_off && wc)
		say(&s, "  With the write cache of %s off (%s, now \"%s\"), restored after.\n",
		    wc->dev, ap_wcache_how_name(wc->w.how), wc->w.orig);
	else if (wcache_off)
		say(&s, "  With the drive's write cache off, restored after.\n");
	if (o->mode == AP_PROBE_PRESERVE)
		say(&s, "  Then write the original bytes back, verify every one and delete the "
		    "journal.\n");
	else if (o->mode == AP_PROBE_DESTRUCTIVE)
		say(&s, "  The region's data is destroyed; the rest of the device is not "
		    "touched.\n");
	else
		say(&s, "  Nothing is written.\n");
	return s;
}

char *ap_probe_undo_words(const struct ap_probe_undo *u, const char *journal)
{
	char *s = NULL;

	if (u->incomplete)
		say(&s, "%s: the journal was never completed, so the probe had written nothing to "
		    "%s%s\n", journal, u->dev, u->removed ? "; journal removed" : "");
	else
		say(&s, "%s: restored from %s: %" PRIu64 " ranges checked, %" PRIu64
		    " rewritten, every byte verified%s\n", u->dev, journal, u->st.records,
		    u->st.restored, u->removed ? "; journal removed" : "");
	if (u->st.torn)
		say(&s, "%s: %" PRIu64 " of them held a write the probe had in flight, torn by a "
		    "power cut in the physical sectors at its edges: restored\n", u->dev,
		    u->st.torn);
	if (u->found)
		say(&s, "%s: found by its identity; the journal named it %s\n", u->dev, u->named);
	return s;
}

char *ap_probe_overwrite_words(const char *dev, const struct ap_probe_plan *plan)
{
	char b1[32], *s;

	ap_xasprintf(&s, "The probe overwrites up to %s of %s from byte %llu on (the scratch "
		     "region); the rest of the device is not touched.\n",
		     ap_size_exact(plan->region_size, b1, sizeof(b1)), dev,
		     (unsigned long long)plan->region_start);
	return s;
}
