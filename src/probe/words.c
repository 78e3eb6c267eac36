// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a probe says in words (see prepare.h): its verdict in one line (the
 * plot's title) and the lines after it, split where the command lists
 * what to run next. The analysis's note (analysis/notes.c) and the
 * effect's sentence are the analysis's, quoted here.
 */
#include "probe/prepare.h"

#include <inttypes.h>
#include <stdlib.h>

#include "lib/stats.h"
#include "lib/util.h"

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
