/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sweep: for every start sector in a range, a fresh GPT with one
 * partition starting exactly there (src/sweep/part.h), mkfs (src/sweep/mkfs.h), mount
 * (src/device/mount.h), the PostMark-compatible workload with fsync after every file
 * write (src/workload/pm.h), unmount; the starts visited in a new random order every
 * round; stop early when the verdict (src/analysis/analysis.h) is clear. Results are
 * kept per start and round, can be saved as JSON and replayed.
 *
 * Nothing here prints: the command (src/cmd/sweep.c) gets events through a
 * callback.
 *
 * One header for the four files of the engine, section by section:
 * plan.c (presets, starts, order), result.c (names, observations, the
 * per-start table, recommendations), run.c (the run) and doc.c (the saved
 * document). They share struct ap_sweep_result and the stage and stop
 * enums, and every user (the command, the unit test, the JSON fuzzer) needs
 * all four parts: separate headers would only add include lines.
 */
#ifndef AP_SWEEP_H
#define AP_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"
#include "device/identity.h"
#include "device/rmwbuf.h"
#include "lib/cancel.h"
#include "lib/rng.h"
#include "lib/outfile.h"
#include "lib/util.h"
#include "workload/pm.h"

struct json_object;
struct ap_sweep_run;

/* ---- the plan (plan.c): pure helpers, unit-tested ---- */

#define AP_SWEEP_MAX_STARTS	4096

/*
 * The order of one round: a fresh random permutation of @starts into @out.
 * When @prev_last is not NULL (the start measured last in the previous
 * round) and n > 1, the round never begins with that start, so no start is
 * ever measured twice in a row.
 */
void ap_sweep_order(const uint64_t *starts, size_t n, const uint64_t *prev_last,
		    struct ap_rng *r, uint64_t *out);

/*
 * "34..64", "34..64:2" (step), "35,40,63", "34..40,48": ascending, no
 * duplicates, at most 4096 starts. 0 or -EINVAL/-ERANGE with a message.
 */
int ap_sweep_parse_starts(const char *s, uint64_t **starts, size_t *n, struct ap_error *e);

/* --rounds: "N" or "MIN..MAX", 1..1000: 0 or -EINVAL. */
int ap_sweep_parse_rounds(const char *s, unsigned *min, unsigned *max);

/* Sort @v ascending; with @unique drop repeated values. Returns the count kept. */
size_t ap_sweep_sort_starts(uint64_t *v, size_t n, bool unique);

/* The default starts: 34..64 for 512-byte logical sectors (31 starts,
 * ~4 periods of 4 KiB), 6..37 for 4096-byte ones (32 starts, two periods
 * of 64 KiB), else from the GPT's first usable sector, 32 starts. */
void ap_sweep_default_starts(unsigned logical_sector, uint64_t **starts, size_t *n);

struct ap_sweep_preset {
	const char *name;
	const char *help;
	/* PostMark settings of the workload (the rest: PostMark's defaults) */
	uint64_t number, transactions, size_lo, size_hi;
	uint64_t read_block, write_block;
	uint64_t part_size;		/* bytes, capped by the disk */
	unsigned min_rounds, max_rounds;
	uint64_t time_budget_ns;	/* 0 = none */
};

/* NULL when unknown. ap_sweep_presets[] ends with a NULL name. */
const struct ap_sweep_preset *ap_sweep_preset_find(const char *name);
extern const struct ap_sweep_preset ap_sweep_presets[];

/*
 * --workload FILE is read by the workload's own loader, ap_pm_config_load()
 * (src/workload/pm.h): the settings in force at the first `run`, `set
 * location` lines skipped (the sweep's mount point replaces them).
 */

/* ---- one measurement (result.c) ---- */

enum ap_sweep_stage {
	AP_SWEEP_STAGE_NONE = 0,
	AP_SWEEP_STAGE_PARTITION,
	AP_SWEEP_STAGE_MKFS,
	AP_SWEEP_STAGE_MOUNT,
	AP_SWEEP_STAGE_WORKLOAD,
	AP_SWEEP_STAGE_UMOUNT,
	AP_SWEEP_STAGE_COUNT
};
const char *ap_sweep_stage_name(enum ap_sweep_stage s);

struct ap_sweep_result {
	uint64_t start;			/* logical sectors */
	unsigned round;			/* 1-based */
	unsigned seq;			/* 1-based order of execution */
	bool ok;
	enum ap_sweep_stage failed_stage;	/* when !ok */
	int error;			/* positive errno when !ok */
	char *message;			/* when !ok */

	/* the workload (valid when ok) */
	double cost;			/* seconds per transaction = 1 / tps */
	double tps;			/* transactions per transaction second */
	double creates_per_s;		/* all creates / (create + transaction seconds) */
	double deletes_per_s;		/* all deletes / (transaction + delete seconds) */
	double read_kibs;		/* KiB read per transaction second */
	double write_kibs;		/* KiB written per (create + transaction) second */
	double fsync_med_ms;		/* median fsync latency */
	uint64_t transactions;		/* done */
	uint64_t created, deleted;
	uint64_t bytes_read, bytes_written;
	double workload_s;		/* the workload's three phases */

	/* the setup around it */
	double partition_s, mkfs_s, mount_s, umount_s;

	/* emulated drive only: counters over the workload (has_emu), from
	 * the command's ap_sweep_hook */
	bool has_emu;
	uint64_t emu_writes, emu_rmw, emu_flushes;
};

/*
 * The analysis as the sweep needs it: a file system of 4096-byte blocks
 * cannot show units larger than its block, so periods beyond 4096 bytes
 * are not candidates (fewer candidates, a milder multiple-test
 * correction). The same for a run and its replay.
 */
void ap_sweep_analysis_params(struct ap_analysis_params *p, unsigned logical, unsigned reported);

/* Observations for the analysis: one per ok result. Caller frees. */
size_t ap_sweep_obs(const struct ap_sweep_result *r, size_t n, struct ap_obs **obs);

/* JSON of one result, and back (for --replay). */
struct json_object *ap_sweep_result_to_json(const struct ap_sweep_result *r);
int ap_sweep_result_from_json(struct json_object *o, struct ap_sweep_result *r,
			      struct ap_error *e);
void ap_sweep_result_free(struct ap_sweep_result *r);

/* Per start, over its rounds (the table). */
struct ap_sweep_start_stat {
	uint64_t start;
	size_t runs, failed;
	bool has_aligned, aligned;	/* aligned under the inferred geometry */
	bool has_fast, fast;		/* classified fast by the analysis */
	/* medians over the ok rounds; NAN when there is none */
	double tps, cost, creates_per_s, deletes_per_s, read_kibs, write_kibs, fsync_med_ms;
	double rel;			/* tps / the best start's tps */
	double emu_rmw;			/* mean per run, NAN when not emulated */
};

/* @starts may be NULL: then the starts found in @r. Caller frees *out. */
size_t ap_sweep_summarize(const struct ap_sweep_result *r, size_t n,
			  const uint64_t *starts, size_t nstarts,
			  const struct ap_verdict *v, struct ap_sweep_start_stat **out);

/* Is @start aligned under @v? false with *known = false when unresolved. */
bool ap_sweep_is_aligned(const struct ap_verdict *v, uint64_t start, bool *known);

/* Recommended partition starts: ap_verdict_recommend() (analysis/analysis.h). */

/* ---- what a sweep says in words (words.c) ---- */

/*
 * The first @max of @n starts, blank-separated, " ..." when there are
 * more: "34 35 36 ...".
 */
void ap_sweep_fmt_starts(char *buf, size_t len, const uint64_t *v, size_t n, size_t max);
/*
 * The verdict in one line (the plot's title): @v, or NULL for none;
 * @early: ap_sweep_stopped_early()'s reason. Caller frees.
 */
char *ap_sweep_verdict_line(const struct ap_verdict *v, const char *early);
/*
 * Why @run stopped, after how many measurements and how long: "the verdict
 * was clear after 31 measurements (1 round) in 42s", "interrupted by
 * signal 2 after ...". Returns @buf.
 */
const char *ap_sweep_stop_words(const struct ap_sweep_run *run, char *buf, size_t len);
/*
 * The verdict of a sweep of @dev in words, the paragraph after the table
 * (each line ends in a newline; what to run next follows a clear verdict
 * that alignment matters, then ap_sweep_verdict_caveats()): @v, or NULL
 * for none; @partial: some planned start has no successful measurement
 * (an interrupted sweep), so what "these starts" cannot resolve may be
 * resolved by the rest; @early: ap_sweep_stopped_early()'s reason.
 * Caller frees.
 */
char *ap_sweep_verdict_words(const char *dev, const struct ap_verdict *v, uint64_t first_usable,
			     bool partial, const char *early);
/*
 * Why a sweep gives no verdict to act on (exit 5), in one line without a
 * newline: @v (NULL: none), @stop: why the run stopped
 * (ap_sweep_stop_words(), or NULL). Caller frees.
 */
char *ap_sweep_no_verdict_reason(const struct ap_verdict *v, const char *stop);
/* The analysis's note and what a tentative verdict still misses; NULL: none. Caller frees. */
char *ap_sweep_verdict_caveats(const struct ap_verdict *v);

/* ---- the run (run.c) ---- */

/*
 * Measure something of one's own around the workload of every step (the
 * command reads the emulated drive's counters into r->has_emu, r->emu_*):
 * before() right before the workload starts, 0 when it could measure;
 * then, only in that case, after() right after the workload with the
 * step's result to complete. Both or neither.
 */
struct ap_sweep_hook {
	int (*before)(void *arg);
	void (*after)(void *arg, struct ap_sweep_result *r);
	void *arg;
};

enum ap_sweep_stop {
	AP_SWEEP_STOP_NONE = 0,
	AP_SWEEP_STOP_CLEAR,		/* the verdict became clear */
	AP_SWEEP_STOP_ROUNDS,		/* max rounds done */
	AP_SWEEP_STOP_BUDGET,		/* time budget spent */
	AP_SWEEP_STOP_SIGNAL,		/* cancelled (SIGINT/TERM/HUP in the command) */
	AP_SWEEP_STOP_FATAL,		/* an error that ends the sweep */
	AP_SWEEP_STOP_UNMEASURABLE,	/* an assumption of the measurement failed
					   (run->cause): no verdict from it */
};
/*
 * The stop states and their names in the documents ("stopped": "clear",
 * "signal", ...), one table (result.c): the name of a state, and the state
 * of a name (a saved document's; unknown or NULL: AP_SWEEP_STOP_NONE).
 */
const char *ap_sweep_stop_name(enum ap_sweep_stop s);
enum ap_sweep_stop ap_sweep_stop_parse(const char *name);

/*
 * A run stopped by a signal, an error or a failed assumption has no
 * verdict, whatever its partial results show: "interrupted", "stopped by
 * an error", "stopped: the drive broke an assumption of the measurement";
 * NULL for the other stop states. (result.c)
 */
const char *ap_sweep_stopped_early(enum ap_sweep_stop s);
/*
 * The analysis every output (text, JSON, chart, --save, --replay) shows
 * of a run that stopped in state @s: @v, or NULL when the run stopped
 * early and @v would state a verdict (an effect, or none); an unresolved
 * analysis, which claims nothing, is shown as it is.
 */
const struct ap_verdict *ap_sweep_shown_verdict(const struct ap_verdict *v, enum ap_sweep_stop s);

struct ap_sweep_opts {
	const char *disk;
	const uint64_t *starts;
	size_t nstarts;
	uint64_t part_sectors;		/* partition size, logical sectors */
	const char *fs;			/* "ext4" */
	char *const *mkfs_opts;
	size_t nmkfs_opts;
	const char *mount_opts;		/* mount(2) data, or NULL */
	const struct ap_pm_config *workload;	/* location is set per step */
	unsigned min_rounds, max_rounds;
	uint64_t time_budget_ns;	/* 0 = none */
	uint64_t seed;
	struct ap_analysis_params analysis;
	/*
	 * The disk held open O_EXCL between the steps (src/device/safety.h), or -1.
	 * The run closes it before mkfs and takes it again after umount; the
	 * final descriptor is returned in ap_sweep_run.excl_fd.
	 */
	int excl_fd;

	/* events: before and after every step (may be NULL) */
	void (*on_step)(void *ctx, const struct ap_sweep_run *run, bool done);
	void *ctx;

	/*
	 * Asked between the stages of a step and handed to mkfs and the
	 * workload: a reason (a signal number) stops the run as
	 * AP_SWEEP_STOP_SIGNAL with run->signo set to it. Empty: never.
	 */
	struct ap_cancel cancel;
	/* Around every step's workload (may be empty): see ap_sweep_hook. */
	struct ap_sweep_hook hook;
};

struct ap_sweep_run {
	struct ap_sweep_result *results;	/* in the order measured */
	size_t nresults;
	/* the step running or just done */
	uint64_t cur_start;
	unsigned cur_round;
	size_t cur_index;		/* 1-based within the round */
	size_t nstarts;
	unsigned max_rounds;
	unsigned rounds_done;		/* complete rounds */
	size_t nfailed;
	enum ap_sweep_stop stop;
	int signo;			/* when cancelled: the reason (signal) */
	struct ap_error fatal;		/* when stopped by a fatal error */
	uint64_t t0_ns, elapsed_ns;
	bool verdict_valid;
	struct ap_verdict verdict;	/* the last analysis (verdict_valid) */
	int excl_fd;			/* see ap_sweep_opts.excl_fd */
	struct ap_error wipe_error;	/* the final empty GPT failed (code != 0) */
	/*
	 * The run's check of its own assumptions: whether the disk rotates
	 * (device/rotation.h, measured before the first step), and on one
	 * that does, whether its flushes cost anything: an fsync a rotating
	 * disk answers faster than AP_SWEEP_FLUSH_MIN_MS or than its reads a
	 * seek away (a file's data and the journal's commit, each waiting for
	 * the platter; 17-76 ms on hdd-7200-nocache, 1-1.3 ms on a bridge
	 * that ignores flushes, on a busy machine) was answered by
	 * a write cache that ignores flushes, and the timings show that cache,
	 * not the disk. @cause: the sentence, when it stopped the run.
	 */
	bool rotating;
	uint64_t seek_read_ns;
	/*
	 * Before the first step: does a buffer answer the
	 * read-modify-writes (device/rmwbuf.h)? When it does, a small
	 * workload stops the run there, and a larger one's verdict of no
	 * effect at its end (ap_sweep_rmw_hides(); stopped: unmeasurable,
	 * @cause): the buffer hides the effect the sweep looks for.
	 */
	struct ap_rmwbuf_check rmw;
	char cause[512];
};
#define AP_SWEEP_FLUSH_MIN_MS	1.0

/*
 * Does the buffer the check before the first step found (@k->buffered,
 * device/rmwbuf.h) make the sweep's verdict wrong? Before the first step
 * (@v NULL): when workload @w has fewer than AP_SWEEP_RMWBUF_FILES files
 * and transactions, too few to reach past any such buffer (the quick
 * preset: 3 and 4; the emulator's buffer: 256 sectors). After the last: when
 * @v resolved to no effect, which the buffer may have hidden; an effect
 * stands (a buffer can only hide one), an unresolved verdict says so
 * itself. True with the sentence, cause and remedy, in @cause: the run
 * stops as unmeasurable.
 */
#define AP_SWEEP_RMWBUF_FILES	256
bool ap_sweep_rmw_hides(const struct ap_rmwbuf_check *k, const struct ap_pm_config *w,
			const struct ap_verdict *v, char *cause, size_t len);

/*
 * Run the sweep on o->disk until the verdict is clear, the rounds or the
 * time budget are spent, o->cancel cancels it, or a fatal error. Always leaves
 * nothing mounted and the disk with an empty GPT (or says why not in
 * run->wipe_error). Returns 0 (see run->stop) or -errno for bad options.
 */
int ap_sweep_run(const struct ap_sweep_opts *o, struct ap_sweep_run *run, struct ap_error *e);
void ap_sweep_run_free(struct ap_sweep_run *run);

/* Run the analysis over the ok results: 0 or -EINVAL (no observations).
 * (result.c) */
int ap_sweep_analyse(const struct ap_sweep_result *r, size_t n,
		     const struct ap_analysis_params *p, struct ap_verdict *v);

/* ---- results documents (--json, --save, --replay): doc.c ---- */

struct ap_sweep_doc {
	char *device;
	unsigned logical_sector, reported_physical;
	uint64_t *starts;
	size_t nstarts;
	struct ap_sweep_result *results;
	size_t nresults;
	struct json_object *parameters;	/* kept as is (owned), may be NULL */
	char *stopped;			/* why the run stopped, read back; may be NULL */
	char *cause;			/* stopped "unmeasurable": the assumption the
					   drive broke and the remedy; may be NULL */
};

/*
 * What a run's document holds that only the front end has, handed to
 * ap_sweep_doc_to_json() (every pointer may be NULL):
 *  @starts       "starts": the per-start objects, built from the front end's
 *                columns (owned); NULL: an empty array
 *  @id           "identity": the disk measured, when its size is known
 *                (verdicts merge reads it)
 *  @next_steps   "next_steps": what to run next (owned); NULL: left out
 *  @placeholder, @why  "next_steps_device": when @why is set and @next_steps
 *                lists a step, the name the steps use for the device (the
 *                run no longer holds it, or never did) and why
 */
struct ap_sweep_doc_parts {
	struct json_object *starts;
	const struct ap_disk_identity *id;
	struct json_object *next_steps;
	const char *placeholder, *why;
};

/*
 * The one document of a run, for --json, --save and --replay --json:
 * {"device", "logical_sector", "reported_physical_sector", "stopped",
 *  "cause" (only when set), "verdict" (@v or null), "parameters", "starts",
 *  "results", then "identity", "next_steps", "next_steps_device" from @p}.
 */
struct json_object *ap_sweep_doc_to_json(const struct ap_sweep_doc *d,
					 const struct ap_verdict *v, const char *stopped,
					 const struct ap_sweep_doc_parts *p);
/* Read a document written by --json or --save. 0, or -EINVAL with a message. */
int ap_sweep_doc_from_json(struct json_object *o, struct ap_sweep_doc *d, struct ap_error *e);
int ap_sweep_doc_load(const char *path, struct ap_sweep_doc *d, struct ap_error *e);
void ap_sweep_doc_free(struct ap_sweep_doc *d);

/* The analysis of a document's results, as its run did it: 0 or -EINVAL (none). */
int ap_sweep_doc_analyse(const struct ap_sweep_doc *d, struct ap_verdict *v);

/*
 * Replace the content of the output @of (opened before the run) with @o,
 * atomically (ap_outfile_replace): 0 or -errno with the reason in @e.
 */
int ap_sweep_json_save(struct ap_outfile *of, struct json_object *o, struct ap_error *e);

#endif
