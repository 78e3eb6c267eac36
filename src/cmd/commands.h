/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The subcommands. Each lives in src/cmd/<name>.c, parses its own options
 * (argv[0] is the subcommand name), prints, and returns an AP_EXIT_* code.
 */
#ifndef AP_COMMANDS_H
#define AP_COMMANDS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

int ap_cmd_sweep(int argc, char **argv);
int ap_cmd_probe(int argc, char **argv);
int ap_cmd_check(int argc, char **argv);
int ap_cmd_postmark(int argc, char **argv);
int ap_cmd_seq(int argc, char **argv);
int ap_cmd_emulate(int argc, char **argv);
int ap_cmd_cleanup(int argc, char **argv);

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
 * AP_EXIT_FAILURE whatever its errno. The table is in cmdutil.c.
 */
int ap_exit_for_errno(int err);
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

/* Shared by every command's option parsing. */
void ap_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));	/* prints "try --help", returns */
/* After getopt's own message: "Try 'alignprobe CMD --help' ..." (@cmd may be NULL). */
void ap_usage_hint(const char *cmd);
void ap_print_version(void);
/* For a subcommand that this build lacks: a message, AP_EXIT_NOTBUILT. */
int ap_cmd_not_built(const char *cmd);

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

#endif
