/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The built-in PostMark-compatible workload.
 *
 * For the same configuration (and seed) ap_pm_run() performs exactly the
 * file operations PostMark 1.5x performs, in the same order: same files
 * created (alone and mixed with transactions), read, appended, deleted, same
 * bytes read and written (see shared/postmark-spec.md). It times them with
 * CLOCK_MONOTONIC in nanoseconds, counts in 64 bits, aborts cleanly on I/O
 * errors, stops promptly when cfg->cancel cancels (lib/cancel.h; the
 * commands hand it ap_sig_cancel: SIGINT/TERM/HUP), and always
 * removes the files and subdirectories it created.
 *
 * Extensions, all off by default so that a compatible run stays compatible:
 * a sync policy for every file write, dropping the page cache between the
 * phases, and the choice of the data written.
 *
 * Typical use (the sweep):
 *
 *	struct ap_pm_config cfg;
 *	struct ap_pm_result res;
 *	struct ap_error err;
 *
 *	ap_pm_config_init(&cfg);
 *	if (workload_file && ap_pm_config_load(&cfg, workload_file, NULL, &err))
 *		...;				// err.msg has "file:line: ..."
 *	ap_pm_config_set_location(&cfg, mountpoint, &err);
 *	cfg.sync = AP_PM_SYNC_FSYNC;
 *	rc = ap_pm_run(&cfg, &res, &err);	// 0, -EINTR, or -errno
 *	... res.tps, res.lat[AP_PM_OP_SYNC].p50_ns ...
 *	ap_pm_config_free(&cfg);
 *
 * Nothing here prints or exits, except ap_pm_report_*() which write the
 * report to the FILE they are given.
 */
#ifndef AP_PM_H
#define AP_PM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/cancel.h"
#include "lib/util.h"

/* PostMark's defaults (shared/postmark-spec.md). */
#define AP_PM_DEFAULT_SIZE_LO		500
#define AP_PM_DEFAULT_SIZE_HI		10000
#define AP_PM_DEFAULT_NUMBER		500
#define AP_PM_DEFAULT_SEED		42
#define AP_PM_DEFAULT_TRANSACTIONS	500
#define AP_PM_DEFAULT_BLOCK		512
#define AP_PM_DEFAULT_BIAS		5

/*
 * Limits, checked by the parser and by ap_pm_config_validate(). PostMark
 * keeps these in C ints; we allow more where it costs nothing, but the
 * source buffer is size_hi bytes and the file table 2*number slots of 16
 * bytes, so both stay bounded.
 */
#define AP_PM_MAX_SIZE		(1ULL << 30)	/* size_hi, read/write block */
#define AP_PM_MAX_NUMBER	(1ULL << 31)	/* files in the initial set */
#define AP_PM_MAX_SUBDIRS	(1ULL << 20)
#define AP_PM_MAX_WEIGHT	1000000U	/* per location */
#define AP_PM_MAX_LOAD_DEPTH	16		/* nested `load` */

/*
 * What happens to every file write (the initial write of a create and every
 * append). The time of the synchronisation is part of the operation's
 * latency; for FSYNC and FDATASYNC the call is also timed on its own
 * (AP_PM_OP_SYNC).
 */
enum ap_pm_sync {
	AP_PM_SYNC_NONE = 0,	/* PostMark: page cache only */
	AP_PM_SYNC_FSYNC,	/* fsync(2) after the file's writes, before close */
	AP_PM_SYNC_FDATASYNC,	/* fdatasync(2) likewise */
	AP_PM_SYNC_DSYNC,	/* open(2) with O_DSYNC: every write(2) is durable */
	AP_PM_SYNC_SYNC,	/* open(2) with O_SYNC */
	/*
	 * O_DIRECT|O_DSYNC: the part of each write(2) whose file offset and
	 * length are multiples of the file system's direct-I/O alignment
	 * (statx STATX_DIOALIGN of the first file in each location, else
	 * 4096) bypasses the page cache; the rest (the unaligned tail of a
	 * create, almost every append, which starts at an unaligned end of
	 * file) is written through the page cache on the same descriptor
	 * after clearing O_DIRECT with fcntl(F_SETFL); O_DSYNC stays set, so
	 * every write is on stable storage when it returns either way.
	 * Reads use O_DIRECT too where the read block size is a multiple of
	 * the alignment (the last, short request is rounded up; the file's
	 * end makes it short). A file system that refuses O_DIRECT (EINVAL
	 * at open) aborts the run with an error naming the file.
	 */
	AP_PM_SYNC_DIRECT,
	AP_PM_SYNC_COUNT
};

/* What the files contain. */
enum ap_pm_data {
	AP_PM_DATA_PRINTABLE = 0, /* PostMark: 32 + RND(95), same buffer for every write */
	AP_PM_DATA_ZEROS,	  /* zero bytes */
	AP_PM_DATA_RANDOM,	  /* fresh pseudo-random bytes (datagen.h) for every create and append */
	AP_PM_DATA_COUNT
};

/*
 * The random draws of the printable buffer are made whatever the data
 * source, so the sequence of operations never depends on it.
 */

enum ap_pm_report {
	AP_PM_REPORT_VERBOSE = 0,
	AP_PM_REPORT_TERSE,
};

struct ap_pm_location {
	char *path;		/* malloc'd; as given (relative paths allowed) */
	unsigned weight;	/* >= 1 */
};

struct ap_pm_config {
	uint64_t size_lo, size_hi;	/* file sizes in [lo, hi-1]; lo == hi: fixed */
	uint64_t number;		/* files in the initial set */
	uint64_t seed;			/* PostMark uses the low 32 bits */
	uint64_t transactions;
	/*
	 * Weighted locations in insertion order. None: the current
	 * directory, bare file names (as PostMark).
	 */
	struct ap_pm_location *locations;
	size_t nlocations;
	uint64_t subdirectories;	/* K > 1: s0..s(K-1) in each location */
	size_t read_block, write_block;
	bool buffering;			/* PostMark's stdio mode (default true) */
	int bias_read, bias_create;	/* -1..10; -1 switches that half off */
	enum ap_pm_report report;

	/* Extensions (off by default). */
	enum ap_pm_sync sync;
	bool drop_caches;	/* sync + drop_caches=3 before each timed phase (root) */
	enum ap_pm_data data;

	/*
	 * Optional progress callback, called at each phase start and then
	 * at most about 100 times per phase. @phase is an enum ap_pm_phase.
	 */
	void (*progress)(void *ctx, int phase, uint64_t done, uint64_t total);
	void *progress_ctx;

	/*
	 * Asked before every file operation (and when a system call returns
	 * EINTR): a reason stops the run with -EINTR and res->interrupted
	 * set to it. Empty: never. Copied with the rest by
	 * ap_pm_config_copy(); not part of the file syntax, `show` or JSON.
	 */
	struct ap_cancel cancel;
};

enum ap_pm_phase {
	AP_PM_PHASE_CREATE = 0,		/* creation alone */
	AP_PM_PHASE_TRANSACTIONS,
	AP_PM_PHASE_DELETE,		/* deletion alone */
	AP_PM_PHASE_COUNT
};

enum ap_pm_op {
	AP_PM_OP_CREATE = 0,	/* open, write, [sync], close */
	AP_PM_OP_READ,		/* open, read, close */
	AP_PM_OP_APPEND,	/* open, write, [sync], close */
	AP_PM_OP_DELETE,	/* unlink */
	AP_PM_OP_SYNC,		/* the fsync/fdatasync call alone (policies fsync and fdatasync) */
	AP_PM_OP_COUNT
};

/* Latency summary of one operation type, from a log-linear histogram
 * (relative error of a percentile < 1/64). All 0 when count is 0. */
struct ap_pm_latency {
	uint64_t count;
	uint64_t min_ns, max_ns;
	double mean_ns;
	uint64_t p50_ns, p90_ns, p99_ns, p999_ns;
};

struct ap_pm_result {
	/* Exact 64-bit counts. */
	uint64_t created_alone, created_mixed;
	uint64_t read, appended;
	uint64_t deleted_alone, deleted_mixed;
	uint64_t transactions_done;		/* transactions completed */
	uint64_t bytes_read;			/* actually read */
	uint64_t bytes_written_alone;		/* initial files (creation phase) */
	uint64_t bytes_written_mixed;		/* creates and appends in transactions */
	uint64_t bytes_written;			/* sum of both */
	/* The totals as PostMark accumulates them, in 32-bit floats: only
	 * for printing the figures PostMark prints. */
	float pm_bytes_read, pm_bytes_written;

	/* Phase durations, CLOCK_MONOTONIC ns (cache drops not included). */
	uint64_t phase_ns[AP_PM_PHASE_COUNT];
	uint64_t total_ns;			/* sum of the phases */

	/*
	 * Rates over the phase where the operations happened (0 when
	 * the duration is 0): honest figures, unlike PostMark's per total
	 * second. Creates alone per creation second, mixed per transaction
	 * second, etc.
	 */
	double tps;				/* transactions per transaction second */
	double created_alone_per_s, created_mixed_per_s;
	double read_per_s, appended_per_s;
	double deleted_alone_per_s, deleted_mixed_per_s;
	double read_bytes_per_s;		/* per transaction second */
	double write_bytes_per_s;		/* bytes_written per (create + transaction) second */

	struct ap_pm_latency lat[AP_PM_OP_COUNT];

	bool out_of_files;	/* the transactions stopped: no file left */
	int interrupted;	/* the reason cfg->cancel gave (a signal number), or 0 */
	int error;		/* -errno of the I/O error that aborted the run, or 0 */
	uint64_t cleanup_removed; /* files removed after an interruption or error */
};

/* Defaults as PostMark's, extensions off. */
void ap_pm_config_init(struct ap_pm_config *cfg);
void ap_pm_config_free(struct ap_pm_config *cfg);
/* Deep copy of @src into @dst (which must not hold allocations). */
void ap_pm_config_copy(struct ap_pm_config *dst, const struct ap_pm_config *src);

/* Replace the locations by @dir, weight 1 (must exist and be a writable
 * directory: -ENOENT/-ENOTDIR/-EACCES with a message). */
int ap_pm_config_set_location(struct ap_pm_config *cfg, const char *dir,
			      struct ap_error *e);
/* Append @dir with @weight (PostMark's `set location +dir weight`). */
int ap_pm_config_add_location(struct ap_pm_config *cfg, const char *dir,
			      unsigned weight, struct ap_error *e);

/* Check the configuration as a whole (ranges, lo <= hi, locations exist and
 * are writable directories, drop_caches allowed): 0 or -errno + message. */
int ap_pm_config_validate(const struct ap_pm_config *cfg, struct ap_error *e);

/* Names for options, reports and JSON ("none", "fsync", ...). */
const char *ap_pm_sync_name(enum ap_pm_sync s);
int ap_pm_sync_parse(const char *s, enum ap_pm_sync *out);	/* 0 or -EINVAL */
/* The policies' names in their table's order, joined by @sep: free() it. */
char *ap_pm_sync_list(const char *sep);
const char *ap_pm_data_name(enum ap_pm_data d);
int ap_pm_data_parse(const char *s, enum ap_pm_data *out);
const char *ap_pm_op_name(enum ap_pm_op op);
const char *ap_pm_phase_name(enum ap_pm_phase ph);

/*
 * Configuration lines, PostMark's grammar (commands matched by prefix, in
 * PostMark's table order). Blank lines and lines starting with '#' are
 * accepted and ignored; everything PostMark would answer with "Eh?" or
 * accept with a junk number is an error here, with "file:line: " in front
 * of the message (@file may be NULL, then "line N: "). `!cmd` (a shell
 * escape in PostMark) is refused.
 */
enum ap_pm_cmd {
	AP_PM_CMD_NONE = 0,	/* blank or comment */
	AP_PM_CMD_SET,		/* a setting, applied to the config */
	AP_PM_CMD_RUN,		/* arg: output file or NULL */
	AP_PM_CMD_SHOW,		/* arg: output file or NULL */
	AP_PM_CMD_LOAD,		/* arg: file to read */
	AP_PM_CMD_HELP,
	AP_PM_CMD_QUIT,
};

struct ap_pm_line {
	enum ap_pm_cmd cmd;
	char *arg;		/* malloc'd or NULL; the caller frees */
};

/*
 * Parse one line (without or with its "\n" / "\r\n") and apply a `set`
 * command to @cfg. Other commands are returned in @out for the caller.
 * On error @cfg is unchanged.
 */
int ap_pm_config_line(struct ap_pm_config *cfg, const char *line,
		      const char *file, unsigned lineno,
		      struct ap_pm_line *out, struct ap_error *e);

/*
 * A parsed script: every `run` with the configuration in force at that
 * point, and every `show`, in order; nested `load` files expanded (a `quit`
 * ends only the file it is in). Parsed and validated completely before
 * anything runs, so a bad line anywhere means nothing is created.
 */
struct ap_pm_step {
	enum ap_pm_cmd cmd;		/* AP_PM_CMD_RUN, _SHOW or _HELP */
	char *output;			/* run/show F: append to F; or NULL */
	struct ap_pm_config cfg;	/* the settings at that point */
	char *where;			/* "file:line" of the command */
};

struct ap_pm_script {
	struct ap_pm_step *steps;
	size_t nsteps;
	bool quit;			/* a top-level quit was read */
	struct ap_pm_config final;	/* the settings after the last line */
};

/* Read @path (PostMark's file syntax) starting from @base's settings. */
int ap_pm_script_load(struct ap_pm_script *s, const struct ap_pm_config *base,
		      const char *path, struct ap_error *e);
void ap_pm_script_free(struct ap_pm_script *s);

/*
 * For the sweep's --workload FILE: apply @path's settings to @cfg, those in
 * force at the file's first `run` (nothing after it is read), or at its end
 * when it has none; nested `load` files followed, a `quit` ends the file it
 * is in; `show` and `help` ignored. `set location` lines are skipped, not
 * checked: the caller picks the directory (the sweep its mount point, so a
 * classic config naming /mnt/test works anywhere); *@nlocations (may be
 * NULL) receives how many. Errors as above; @cfg is unchanged on error.
 */
int ap_pm_config_load(struct ap_pm_config *cfg, const char *path, unsigned *nlocations,
		      struct ap_error *e);

/*
 * Run the workload. Returns 0; -EINTR when cfg->cancel stopped it
 * (res->interrupted); -errno when an I/O error aborted it (res->error, and
 * @e names the file and the call); -EINVAL etc. when the configuration is
 * invalid (nothing created). In every case @res holds what was measured and
 * every file and subdirectory the run created has been removed.
 * Out of files is not an error (res->out_of_files).
 */
int ap_pm_run(const struct ap_pm_config *cfg, struct ap_pm_result *res,
	      struct ap_error *e);

/*
 * Reports. Verbose: PostMark's Time / Files / Data sections, same counts
 * and byte figures (bytes printed from the float totals exactly as PostMark
 * prints them), sub-second times, then per-phase rates and latency
 * percentiles. Terse: PostMark's one line (with fractional seconds).
 * Return 0 or -EIO.
 */
int ap_pm_report_text(FILE *f, const struct ap_pm_config *cfg,
		      const struct ap_pm_result *res);
int ap_pm_report_terse(FILE *f, const struct ap_pm_config *cfg,
		       const struct ap_pm_result *res);
/* PostMark's `show`. */
int ap_pm_config_show(FILE *f, const struct ap_pm_config *cfg);
/* PostMark's `help [topic]`: the command table (with the extensions). */
int ap_pm_help(FILE *f, const char *topic);

/* JSON: {"config": {...}, "result": {...}} (json-c; the caller puts it). */
struct json_object;
struct json_object *ap_pm_config_to_json(const struct ap_pm_config *cfg);
struct json_object *ap_pm_result_to_json(const struct ap_pm_result *res);
/* One run: {"config": ..., "result": ...}, as postmark -J lists its runs. */
struct json_object *ap_pm_run_to_json(const struct ap_pm_config *cfg,
				      const struct ap_pm_result *res);

#endif
