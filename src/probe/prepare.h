/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The probe's checks before anything is written (prepare.c): that the
 * plan holds the slots asked for, where each device's undo journal goes
 * and that it can be created there and registered, off the device it
 * protects; the order of a device's preparation, with hooks for what
 * only the command does (the gate, its prompt and messages; the emulated
 * drive's cache model), and the write caches switched around the run;
 * how many timed operations a plan takes; and the result of a
 * device as JSON (result_json.c). Nothing here prints: each error's
 * message names what it is about ("JOURNAL: is a directory ...") and its
 * code says what kind of error it is (bad input, refused, failed).
 */
#ifndef AP_PROBE_PREPARE_H
#define AP_PROBE_PREPARE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "device/cachectl.h"
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

/* ---- the order of a probe's preparation and run (prepare.c) ---- */

/*
 * What only the front end does in the preparation of a probe, called by
 * ap_probe_prepare() at its place in the order. Each returns 0 to go on,
 * or a positive status that ends the preparation there, returned as is
 * (the hook has said why). @arg is the hooks' own.
 */
struct ap_probe_prep_hooks {
	/*
	 * Who else uses @dev, before anything of it is read: for a probe
	 * that @writes, the safety gate's in-use checks (any refusal is the
	 * gate's); for a read-only one, that no run writes it.
	 */
	int (*admit)(void *arg, const char *dev, bool writes);
	/* The disk's identity @id, read with its geometry (may be NULL). */
	int (*identity)(void *arg, const char *dev, const struct ap_disk_identity *id);
	/* The emulated drive's cache model, for --write-cache off (may be NULL). */
	const struct ap_cache_model *cache_model;
	void *arg;
};

/* What every device's preparation is asked for. */
struct ap_probe_prep_opts {
	const struct ap_probe_opts *o;	/* the run's options; each device gets a copy */
	const char *journal;		/* --journal, or NULL: the default place */
	bool several;			/* several devices: journals named after each */
	unsigned slots;			/* --slots asked for, 0: the plan's */
	bool wcache_off;		/* --write-cache off: find each disk's switch */
	struct ap_probe_prep_hooks hooks;
};

/* One device, prepared: what its run needs. */
struct ap_probe_prep {
	struct ap_probe_opts o;		/* its run's options (o.journal: its journal) */
	struct ap_probe_dev d;		/* geometry and identity (d.dev: the device) */
	struct ap_probe_plan plan;
	char *journal;			/* preserving mode: its undo journal */
	struct ap_cachectl wc;		/* --write-cache off: the disk's switch */
	bool wc_found;
	/* after an error: what its message is about (the device), or NULL
	   when the message names it (the journal, the slots of DEV) */
	const char *about;
};

/*
 * Everything the probe of @dev checks before anything is written, in
 * this order: a name that exists (-ENOENT); the hook admit; the
 * geometry and identity; the hook identity; the plan (too small:
 * -EINVAL, on the metadata: -EPERM); with --write-cache off, how its
 * disk switches the cache (-ENODEV: no way); the slots asked for
 * (-EINVAL); in preserving mode, its undo journal: usable, registrable,
 * not on @dev itself (-EPERM). @dev is kept, not copied. 0; -errno with
 * the message in @e, about p->about; or a hook's status. Free @p with
 * ap_probe_prep_free() either way.
 */
int ap_probe_prepare(struct ap_probe_prep *p, const char *dev, const struct ap_probe_prep_opts *po,
		     struct ap_error *e);
void ap_probe_prep_free(struct ap_probe_prep *p);

/*
 * The order across the devices of one probe, what only the front end does
 * at each step through these hooks, @i a device's index: the named ones
 * first (0 to @nnamed - 1), then the emulated drives. Each returns 0 to go
 * on or a positive status that ends the order there, returned as is (the
 * hook has said why).
 */
struct ap_probe_order_hooks {
	/* Device @i checked (ap_probe_prepare() with hooks of its own). */
	int (*check)(void *arg, size_t i);
	/* Device @i confirmed (a destructive probe of a drive not ours asks) and held. */
	int (*confirm)(void *arg, size_t i);
	/* The emulated drive @i set up: its device is known only now. */
	int (*attach)(void *arg, size_t i);
	void *arg;
};

/*
 * Every named device checked, none asked about or held yet: what a dry
 * run describes. 0 or the first hook's status.
 */
int ap_probe_check_named(size_t nnamed, const struct ap_probe_order_hooks *h);
/*
 * After ap_probe_check_named(): every named device confirmed and held,
 * and only then each of the @nemu emulated drives set up, checked and
 * confirmed in turn, so that nothing is set up for a probe a named
 * device refuses and nothing is written before every device has passed.
 * 0 or the first hook's status.
 */
int ap_probe_confirm_all(size_t nnamed, size_t nemu, const struct ap_probe_order_hooks *h);

struct ap_probe_thread;
struct ap_probe_threads_live;
/*
 * What only the front end does around the run (ap_probe_run_prepared()):
 * @tick shows what the probes have done (every 100 ms, may be NULL);
 * @cache_failed says that the cache of @p could not be switched off
 * (@restoring false: nothing ran) or put back (true; the registry keeps
 * its record for `alignprobe cleanup`), with the reason @e.
 */
struct ap_probe_run_hooks {
	void (*tick)(void *arg, const struct ap_probe_threads_live *l);
	void (*cache_failed)(void *arg, const struct ap_probe_prep *p, bool restoring,
			     const struct ap_error *e);
	void *arg;
};

/*
 * The run of the @n prepared devices @p, each on its thread @t (its
 * result and error given; its device and options set here): the caches
 * found switched off (each state recorded first, so that cleanup puts it
 * back after a SIGKILL), every probe within @budget_ns from now, side by
 * side (probe/threads.h), then every cache put back as found, whatever
 * happened. 0, or -EIO when a cache could not be switched or put back
 * (each said through the hook).
 */
int ap_probe_run_prepared(struct ap_probe_prep *const *p, struct ap_probe_thread *const *t,
			  size_t n, uint64_t budget_ns, const struct ap_probe_run_hooks *h);

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
