/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The probe's checks before anything is written (prepare.c): that the
 * plan holds the slots asked for, where each device's undo journal goes
 * and that it can be created there and registered, off the device it
 * protects; how many timed operations a plan takes; and the result of a
 * device as JSON (result_json.c). Nothing here prints: each error's
 * message names what it is about ("JOURNAL: is a directory ...") and its
 * code says what kind of error it is (bad input, refused, failed).
 */
#ifndef AP_PROBE_PREPARE_H
#define AP_PROBE_PREPARE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "device/identity.h"
#include "lib/util.h"
#include "probe/probe.h"

struct json_object;

/*
 * The sizes and rounds of @o go together: powers of two from 512 bytes,
 * min <= max. 0 or -EINVAL with the options named in @e.
 */
int ap_probe_opts_check(const struct ap_probe_opts *o, struct ap_error *e);

/*
 * The journal of @dev: @journal itself for one device; @journal.NAME
 * (the device's base name) for several; without --journal, in
 * $ALIGNPROBE_JOURNAL_DIR or /var/tmp, named after the device and the
 * process. Caller frees.
 */
char *ap_probe_journal_path(const char *journal, bool several, const char *dev);

/*
 * The plot of @dev: @plot itself for one device (or "-"), PLOT-NAME.EXT
 * (the device's base name before the extension) for several. Caller frees.
 */
char *ap_probe_plot_path(const char *plot, const char *dev, bool several);

/*
 * The undo journal @journal of @dev can be created and hold @plan's
 * slots for the disk @id: it does not exist yet (what is there, said),
 * and its file system has room for every record (a dry run checks what
 * the run will). 0 or -errno with the message in @e.
 */
int ap_probe_journal_usable(const char *dev, const char *journal, const struct ap_probe_plan *plan,
			    const struct ap_disk_identity *id, struct ap_error *e);

/*
 * All a preserving probe needs of its journal before it starts:
 * ap_probe_journal_usable(), the run registry takes its entry, and the
 * journal is not on @dev itself (-EPERM: refused). 0 or -errno with @e.
 */
int ap_probe_journal_check(const char *dev, const char *journal, const struct ap_probe_plan *plan,
			   const struct ap_disk_identity *id, struct ap_error *e);
/*
 * The same for any journal plan @jp (probe/journal.h): what `smr
 * --preserve` checks of its own journal.
 */
struct ap_journal_plan;
int ap_journal_usable(const char *dev, const char *journal, const struct ap_journal_plan *jp,
		      const struct ap_disk_identity *id, struct ap_error *e);
int ap_journal_check(const char *dev, const char *journal, const struct ap_journal_plan *jp,
		     const struct ap_disk_identity *id, struct ap_error *e);

/*
 * --slots @asked: the plan of @dev holds as many (it never takes fewer,
 * silently): 0 or -EINVAL with the range that fits in @e.
 */
int ap_probe_slots_check(const struct ap_probe_plan *plan, unsigned asked, const char *dev,
			 struct ap_error *e);

/*
 * The plan of a drive that is not there yet (an emulated one before it is
 * set up: @capacity bytes of @logical-byte sectors, which it reports as
 * its physical ones), with, when @o preserves, its journal @journal
 * checked as the run will check it. 0 or -errno with the message in @e,
 * naming @what (the option that asks for the drive).
 */
int ap_probe_plan_ahead(const struct ap_probe_opts *o, uint64_t capacity, unsigned logical,
			const char *what, const char *journal, struct ap_probe_plan *plan,
			struct ap_error *e);

/*
 * The timed operations of @plan with @o's rounds (dry runs): @lo the
 * fewest (the first size, and with confirmation the second, clear after
 * the minimum of rounds), @hi the most (every size, every round), @honest
 * what an honest drive needs (the smallest size and the largest at each
 * of its phases, or every size, at the minimum of rounds).
 */
void ap_probe_plan_counts(const struct ap_probe_plan *plan, const struct ap_probe_opts *o,
			  uint64_t *lo, uint64_t *hi, uint64_t *honest);

/* ---- result_json.c ---- */

/* How long the probe of @r took, seconds (0 when it never started). */
double ap_probe_result_seconds(const struct ap_probe_result *r);

/*
 * @r's timed operations as CSV lines "DEV,size,offset,round,slot,ns"
 * (--samples; the header "device,size,offset,round,slot,ns" is the
 * caller's, once for every device).
 */
void ap_probe_samples_csv(FILE *f, const char *dev, const struct ap_probe_result *r);

/*
 * One device's result: {"device", "verdict", "clear", "unclear_reason",
 * "mode", "emulated", "identity", "next_steps", "results", "sizes",
 * "operations", "start_ns", "end_ns", "seconds", "interrupted",
 * "budget_exhausted", "region_start", "region_size", "slots", "checks",
 * "preserve" (preserving mode), "error" (@error not NULL)}. @next_steps
 * and @results (the rows of the front end's columns) are taken, owned.
 */
struct json_object *ap_probe_result_to_json(const char *dev, bool emulated,
					    const struct ap_probe_dev *d,
					    const struct ap_probe_result *r,
					    struct json_object *next_steps,
					    struct json_object *results, const char *error);

/* ---- words.c ---- */

/* The verdict of @dev's probe in one line ("DEV: ..."; the plot's title). Caller frees. */
char *ap_probe_verdict_line(const char *dev, const struct ap_probe_result *r);
/*
 * What a probe of @dev found, in the words printed after the table: the
 * verdict's line and, for an effect, its size and the recommended starts
 * (what to run next follows those), or the equivalence test's claim.
 * Each line ends in a newline. Caller frees.
 */
char *ap_probe_verdict_words(const char *dev, const struct ap_probe_result *r);
/*
 * Why the probe gives no verdict to act on (exit 5), in one line without
 * a newline: "no verdict: ..." (the note or what was unclear), or "a
 * tentative verdict only (...): ..." for one that is not statistically
 * clear. Caller frees.
 */
char *ap_probe_no_verdict_reason(const struct ap_probe_result *r);
/*
 * The lines after that: what a tentative verdict misses, the note, the
 * read-only mode's caveat, a spent budget, the sizes measured, the data
 * preserved (@d). NULL when there is none. Caller frees.
 */
char *ap_probe_result_caveats(const struct ap_probe_result *r, const struct ap_probe_dev *d);

/*
 * --dry-run: what the probe of @dev would do under @plan and @o within
 * @budget_ns: the region and its slots, the journal (@journal, preserving
 * mode), the writes per size and in all, a rough duration, and with
 * @wcache_off the write cache @wc (NULL: not known yet) off. Caller frees.
 */
struct ap_cachectl;
char *ap_probe_plan_words(const struct ap_probe_opts *o, uint64_t budget_ns, bool wcache_off,
			  const char *dev, const struct ap_probe_plan *plan, const char *journal,
			  const struct ap_cachectl *wc);

/* What --undo JOURNAL did (the lines on standard output). Caller frees. */
char *ap_probe_undo_words(const struct ap_probe_undo *u, const char *journal);
/* What a destructive probe of @dev overwrites, for its confirmation. Caller frees. */
char *ap_probe_overwrite_words(const char *dev, const struct ap_probe_plan *plan);

#endif
