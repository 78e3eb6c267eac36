/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The subcommands. Each lives in src/cmd/<name>.c, parses its own options
 * (argv[0] is the subcommand name), prints, and returns an AP_EXIT_* code.
 * A new one is HACKING.md's recipe "A command" (docs/command-template.c).
 */
#ifndef AP_COMMANDS_H
#define AP_COMMANDS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>

/*
 * The command table, in `alignprobe --help`'s order: X(name, summary) is
 * `alignprobe name`, run by int ap_cmd_name(argc, argv) (declared here) and
 * listed with its summary by src/main.c. The tests (ts_commands), the
 * completion and the man page's check take the list from --help.
 */
#define AP_COMMANDS(X) \
	X(sweep, "partition, mkfs and time a small-file workload at every start sector") \
	X(probe, "time direct synchronous writes at sector offsets (seconds; can preserve data)") \
	X(check, "validate a partition table against the reported and the probed geometry") \
	X(postmark, "run the PostMark-compatible small-file workload on a directory") \
	X(smr, "find a drive-managed SMR disk (or a hybrid) by timing random writes") \
	X(seq, "sequential throughput matrix: block size x synchronization mode") \
	X(emulate, "attach or detach an emulated Advanced Format drive (FUSE + loop)") \
	X(cleanup, "remove mounts, directories and emulated drives left by a killed run") \
	X(verdicts, "list, show, merge and forget the verdicts of the verdict store")

#define AP_CMD_DECLARE(name, summary) int ap_cmd_##name(int argc, char **argv);
AP_COMMANDS(AP_CMD_DECLARE)
#undef AP_CMD_DECLARE

#define AP_PROG "alignprobe"

struct ap_error;

/*
 * Every message about an error or a warning goes through these, in one
 * form: "alignprobe CMD: THING: reason" on stderr, stdout flushed first.
 * @cmd is NULL for the top level; @thing (the device, file or option the
 * message is about) may be NULL. A reason that already starts with
 * "THING:" (a module's message, "FILE:LINE: ..." too) does not name it twice.
 */
void ap_warnx(const char *cmd, const char *thing, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void ap_vwarnx(const char *cmd, const char *thing, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/*
 * The one mapping of an error to an exit status, for what a command finds
 * wrong before its work starts (arguments, devices, files): bad input
 * (ENOENT, ENOTBLK, ENOSPC for "too small", EINVAL, ...) is AP_EXIT_USAGE,
 * a refusal for safety (EBUSY, EPERM, EROFS, ECANCELED) AP_EXIT_REFUSED,
 * ENOTSUP AP_EXIT_NOTBUILT, anything else AP_EXIT_FAILURE. @err may be
 * positive or negative. A failure once the work has started is
 * AP_EXIT_FAILURE whatever its errno, but for ENOTSUP: ap_exit_for_failure().
 * The table is in common.c.
 */
int ap_exit_for_errno(int err);
/*
 * Once the work has started (an emulated drive set up, a run): ENOTSUP
 * (not built in) is AP_EXIT_NOTBUILT, anything else AP_EXIT_FAILURE.
 */
int ap_exit_for_failure(int err);
/* ap_warnx(), then return ap_exit_for_errno(@err): `return ap_errx(...)`. */
int ap_errx(const char *cmd, const char *thing, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The same for a module's error record (its message and code). */
int ap_err_error(const char *cmd, const char *thing, const struct ap_error *e);

/*
 * The end of every command: close stdout; a write error (not a reader that
 * went away, see ap_out_reader_gone()) is reported and turns @status
 * AP_EXIT_OK into AP_EXIT_FAILURE. Returns the status to exit with.
 */
int ap_cmd_close_stdout(const char *cmd, int status);

/*
 * Several devices on one command line: one named twice, also through
 * another path to it (a symbolic link, /dev/disk/by-id/...; block devices
 * compare by st_rdev), is bad input, said before anything is opened.
 * 0, or AP_EXIT_USAGE after the message.
 */
int ap_check_listed_twice(const char *cmd, char *const *devs, size_t n);

/*
 * For a read-only command (check): the same, but a device named again is
 * dropped with a note ("listed twice (also as X): checked once", unless
 * @quiet) and the run goes on. The number of devices left in @devs.
 */
size_t ap_dedupe_devices(const char *cmd, char **devs, size_t n, bool quiet);

/* Shared by every command's option parsing. */
void ap_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));	/* prints "try --help", returns */
/* After getopt's own message: "Try 'alignprobe CMD --help' ..." (@cmd may be NULL). */
void ap_usage_hint(const char *cmd);
void ap_print_version(void);
/*
 * A --help description generated from a table (the profiles, the sync
 * policies): @text printed from column @col, where the option's line
 * stands, wrapped at blanks before column 80, continuation lines indented
 * to @col; a newline ends it.
 */
void ap_cmd_usage_wrap(FILE *f, size_t col, const char *text);

/*
 * Every file a command writes is opened (src/lib/outfile.h) before its first
 * write to a device: 0, or "alignprobe CMD: PATH: reason" and
 * AP_EXIT_USAGE. ap_cmd_check_output() is for files another module creates
 * later (ap_outfile_check()).
 */
struct ap_outfile;
int ap_cmd_open_output(const char *cmd, struct ap_outfile *of, const char *path);
int ap_cmd_check_output(const char *cmd, const char *path, bool must_not_exist);
/* The same for a directory the run creates files in; @what says which. */
int ap_cmd_check_dir(const char *cmd, const char *dir, const char *what);

/* --dry-run: one line naming the output files that were checked (path NULL: none). */
struct ap_cmd_output {
	const char *opt, *path;
};
void ap_cmd_dry_run_outputs(const struct ap_cmd_output *o, size_t n);

/*
 * The safety gate of a command that writes a device (probe, sweep, seq), in
 * its two steps; between them the command plans, so that a plan that does
 * not fit is said before anything is asked.
 * ap_cmd_gate(): every check of ap_safety_check() on @dev, @t filled and
 * the device held (O_EXCL, and unless @so says dry run, the registry's hold
 * for @cmd until the process exits): 0, or the gate's message and its exit
 * code (2 for no usable block device, 3 for a refusal), @t freed.
 * ap_cmd_confirm(): the description of @t (on stdout under --dry-run, where
 * it heads the plan; else on stderr, before the prompt), then @extra (what
 * will be overwritten; NULL: nothing) on the same stream, then the
 * confirmation unless @so says --yes or --dry-run. 0, or AP_EXIT_REFUSED
 * after "alignprobe CMD: THING: not confirmed ...". @t stays the caller's.
 */
struct ap_safety_opts;
struct ap_safety_target;
/*
 * For a command without the gate that still must not run next to a live
 * run on @dev (probe --read-only): 0, or AP_EXIT_REFUSED after "CMD: DEV:
 * in use by a running alignprobe sweep (PID N)". Opens nothing.
 */
int ap_cmd_refuse_held(const char *cmd, const char *dev);
int ap_cmd_gate(const char *cmd, const char *dev, const struct ap_safety_opts *so,
		struct ap_safety_target *t);
int ap_cmd_confirm(const char *cmd, const char *thing, const struct ap_safety_target *t,
		   const struct ap_safety_opts *so, const char *extra);

/*
 * --emulate[=SPEC] of probe and sweep: the drive they set up when no SPEC
 * says otherwise; SPEC's parameters apply on top of it (a profile name in
 * SPEC replaces it: "simple,rmw=1ms" is the constant-cost model). A 512e
 * desktop disk, so that the first command shows what a real one shows.
 */
#define AP_CMD_EMU_DEFAULT_SPEC "hdd-7200"
struct ap_emu_spec;
/*
 * The drive of --emulate[=SPEC], before it is set up: @base (a default
 * spec, or NULL for the emulator's own defaults), then @spec (NULL: none)
 * applied on top of @s (ap_emu_spec_init()ed, perhaps with a seed, by the
 * caller), checked as ap_emu_attach() will check it (image=FILE too).
 * When @spec names a drive profile (NAME or profile=NAME), @base is not
 * applied: the user's profile replaces the default entirely. What dry
 * runs and saved documents show is ap_emu_spec_format() of @s: the whole
 * drive, each key once.
 * 0, or the message and an exit code with @s freed: "alignprobe CMD:
 * --emulate: reason", followed by the "Try ... --help" hint when @hint,
 * for a bad @spec (2); a missing image is bad input too (2).
 */
int ap_cmd_emu_spec(const char *cmd, const char *base, const char *spec, bool hint,
		    struct ap_emu_spec *s);
/*
 * Set up the drive of @s: 0 with *@emu, or "cannot set up the emulated
 * drive: reason" and ap_exit_for_failure() (6 when not built in, else 1).
 */
struct ap_emu;
int ap_cmd_emu_attach(const char *cmd, const struct ap_emu_spec *s, struct ap_emu **emu);

/*
 * What to run next (src/device/nextsteps.h): after a clear verdict of
 * hidden sectors (or levels above them) on @dev, the disk's steps in @s
 * (none otherwise; free with ap_next_steps_free()); and the one way of
 * printing steps: @heading, then "# why" and the shell line of each, after
 * @indent. @dev NULL: a device the run no longer holds or never held (an
 * emulated drive detached at exit, a replayed result): the steps name
 * AP_CMD_NEXT_PLACEHOLDER, never a device that may be another disk now.
 */
#define AP_CMD_NEXT_PLACEHOLDER	"DEVICE"
struct ap_verdict;
struct ap_next_steps;
void ap_cmd_verdict_next_steps(const char *dev, const struct ap_verdict *v, bool clear,
			       struct ap_next_steps *s);
void ap_cmd_print_next_steps(const struct ap_next_steps *s, const char *heading,
			     const char *indent);
/* The steps after the verdict, printed under probe's and sweep's one heading. */
/* @why: the run no longer holds @dev (or never did): DEVICE is printed, and why */
void ap_cmd_print_verdict_next_steps(const char *dev, const char *why,
				     const struct ap_verdict *v, bool clear);
/* The steps after the verdict as the JSON "next_steps" array. */
struct json_object;
struct json_object *ap_cmd_verdict_next_steps_json(const char *dev, const struct ap_verdict *v,
						   bool clear);

/*
 * What the device claims of its I/O units against what was measured
 * (device/claims.h): with @all a line "Claims: minimum_io 512 (kernel),
 * ..." when it states any, then "Contradicted: ..." for each claim the
 * measured levels @ls (NULL: none) contradict, each line after @indent.
 * probe and check.
 */
struct ap_claims;
struct ap_levels;
void ap_cmd_print_claims(const struct ap_claims *cl, const struct ap_levels *ls, bool all,
			 const char *indent);

/* The emulated drive's write cache model (device/cachectl.h's hook): seq, cleanup. */
struct ap_cache_model;
extern const struct ap_cache_model ap_cmd_emu_cache;

#endif
