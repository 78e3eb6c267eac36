// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the probe's first-write step (fresh.c) adds to the verdict: its
 * level (an allocation unit paid on the first write), what it rules out
 * (the keys ruled_out.first_writes and the old ruled_out_up_to), the
 * note's sentence, and when it withholds the steady state's verdict.
 */
#include "probe/probe.h"

#include <stdio.h>
#include <string.h>

/* Add @l to @v's levels (lib/levels.h orders them; a level it refuses is left out). */
static void add_level(struct ap_verdict *v, unsigned logical, const struct ap_level *l)
{
	struct ap_error e = { 0 };

	(void)ap_levels_add(&v->levels, logical, l, true, &e);
}

/* The first writes' sentence into @b: what they show or rule out, "" when nothing. */
static bool first_words(const struct ap_probe_result *r, char *b, size_t n)
{
	const struct ap_probe_first *f = &r->fw;
	const struct ap_probe_plan *p = &r->plan;
	char b1[32], b2[32];

	b[0] = '\0';
	if (r->mode == AP_PROBE_READONLY) {
		snprintf(b, n, "first-write units (qcow2 clusters, thin-pool chunks) cannot be "
			 "seen by reads: only a writing probe (--preserve keeps the data) shows them");
		return false;
	}
	if (!f->measured) {
		if (!r->interrupted && !r->budget_out && !r->failed)
			snprintf(b, n, "first writes were not measured: the region has no room for "
				 "%u never-written windows", AP_FW_MIN_WINDOWS);
		return false;
	}
	if (f->resolved) {
		snprintf(b, n, "first writes: %s allocation unit from LBA %llu (a write entering a "
			 "new unit costs %.1fx; a first write %.1fx a rewrite)",
			 ap_size_exact(f->unit, b1, sizeof(b1)), (unsigned long long)f->lba,
			 f->unit_ratio, f->ratio);
		return true;
	}
	if (f->per_write) {
		snprintf(b, n, "%s", f->why);	/* scan_words() */
		return true;
	}
	if (f->absent) {
		snprintf(b, n, "first writes: no effect of %.2fx or more (units up to %s; %u first "
			 "writes into never-written places against their rewrites: %.2fx)",
			 f->margin, ap_size_exact(p->fw_claim_max, b1, sizeof(b1)), f->windows,
			 f->ratio);
		return true;
	}
	if (f->why[0])
		snprintf(b, n, "%s", f->why);
	else
		snprintf(b, n, "first writes: neither an effect nor its absence is shown (%u first "
			 "writes into never-written places cost %.2fx their rewrites; rank test p = "
			 "%.3g, equivalence p = %.3g for %.2fx, units up to %s)", f->windows, f->ratio,
			 f->p_effect, f->p_absent, f->margin,
			 ap_size_exact(p->fw_claim_max, b2, sizeof(b2)));
	return false;
}

void ap_probe_first_decide(struct ap_probe_result *r, const struct ap_probe_opts *o)
{
	struct ap_verdict *v = &r->verdict;
	const struct ap_probe_first *f = &r->fw;
	bool rewrites, settled, beyond, claim = !r->failed && !r->interrupted;
	char words[512];	/* as fw.why, which it may copy */
	uint64_t steady = v->ruled_out_up_to;

	unsigned logical = r->plan.logical_sector ? r->plan.logical_sector : 512;

	memset(&v->levels, 0, sizeof(v->levels));
	memset(&v->ruled_out, 0, sizeof(v->ruled_out));
	v->first_writes_unplaced = false;
	if (v->resolved && v->physical_sector)
		add_level(v, logical, &(struct ap_level){ .kind = AP_LEVEL_SECTOR,
			  .unit = v->physical_sector, .lowest_aligned_lba = v->lowest_aligned_lba,
			  .ratio = v->sensitive ? v->slowdown : 0 });
	if (claim && f->measured && f->resolved)
		add_level(v, logical, &(struct ap_level){ .kind = AP_LEVEL_ALLOCATION,
			  .unit = f->unit, .lowest_aligned_lba = f->lba,
			  .paid = AP_PAID_FIRST_WRITE, .ratio = f->unit_ratio });
	rewrites = claim && v->resolved && !v->sensitive && steady;
	if (!o->first_writes && r->mode != AP_PROBE_READONLY) {
		/* not asked (the steady state's own tests): what it meant before */
		v->ruled_out.rewrites = rewrites;
		v->ruled_out.up_to = rewrites ? steady : 0;
		return;
	}
	settled = first_words(r, words, sizeof(words));
	if (claim && f->measured && f->absent) {
		v->ruled_out.first_writes = true;
		v->ruled_out.up_to = r->plan.fw_claim_max;
	}
	if (rewrites) {
		v->ruled_out.rewrites = true;
		if (!v->ruled_out.up_to || steady < v->ruled_out.up_to)
			v->ruled_out.up_to = steady;
	}
	/*
	 * The old key claims every unit up to it, first writes' too (its
	 * readers know no other): not where first writes show a unit (placed
	 * or not), nor where they cost more than rewrites with no unit to show
	 * for it -- on QEMU's 64 KiB clusters with --preserve under load the
	 * scan can stop before the clusters stand out, and the rewrites' "no
	 * effect" up to 64 KiB then passed a start at sector 34. That includes
	 * every write paying (f->per_write): under CI's load the scan's writes
	 * through those clusters cost 3.3x a rewrite, each of them.
	 */
	if (!v->ruled_out.first_writes && r->mode != AP_PROBE_READONLY &&
	    (f->unit || (f->measured && f->effect)))
		v->ruled_out_up_to = 0;
	/*
	 * The same for a sensitive verdict: first writes that cost more with
	 * no unit to show for it (the scan found none, or stopped) may pay
	 * one at a start aligned to every level; check warns (an emulated
	 * drive's sparse image under load looks the same). Not a unit seen
	 * and not placed (below), nor every write paying (f->per_write).
	 */
	v->first_writes_unplaced = claim && v->resolved && v->sensitive &&
				   r->mode != AP_PROBE_READONLY && f->measured && f->effect &&
				   !f->resolved && !f->unit && !f->per_write;
	if (words[0] && claim)
		ap_verdict_append_note(v, "%s", words);
	/*
	 * A unit seen and not placed (or not confirmed) withholds the steady
	 * state's verdict; so do, against a "no effect", first writes at
	 * AP_FW_BEYOND_RATIO their rewrites or more, again in a fresh batch,
	 * with no unit after the whole scan: one above the sizes looked for
	 * (QEMU's VHDX, 8 and 32 MiB blocks: 19x and 8.7x; "no effect", exit 0
	 * before). The rest (QEMU's 64 KiB clusters under load; a sparse image on ext4 1.2-4.3x; an
	 * emulated drive of 300 us a request 8.6x once, under CI's load, in a
	 * sensitive verdict) is said in the note, flagged, and claimed by no key.
	 */
	beyond = f->measured && f->effect && f->scan_done && !f->unit && !f->fine &&
		 f->ratio >= AP_FW_BEYOND_RATIO && f->again >= AP_FW_BEYOND_RATIO &&
		 !v->sensitive;
	if (claim && !settled && (f->unit || f->unconfirmed || beyond) &&
	    r->mode != AP_PROBE_READONLY && v->resolved) {
		r->clear = false;
		snprintf(r->unclear, sizeof(r->unclear), "%.*s", (int)sizeof(r->unclear) - 1,
			 words);
	}
}
