/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The subcommands. Each lives in src/cmd_<name>.c, parses its own options
 * (argv[0] is the subcommand name), prints, and returns an AP_EXIT_* code.
 */
#ifndef AP_COMMANDS_H
#define AP_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>

int ap_cmd_sweep(int argc, char **argv);
int ap_cmd_probe(int argc, char **argv);
int ap_cmd_check(int argc, char **argv);
int ap_cmd_postmark(int argc, char **argv);
int ap_cmd_seq(int argc, char **argv);
int ap_cmd_emulate(int argc, char **argv);
int ap_cmd_cleanup(int argc, char **argv);

/* Shared by every command's option parsing. */
#define AP_PROG "alignprobe"
void ap_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));	/* prints "try --help", returns */
/* After getopt's own message: "Try 'alignprobe CMD --help' ...". */
void ap_usage_hint(const char *cmd);
void ap_print_version(void);
/* For a subcommand that this build lacks: a message, AP_EXIT_NOTBUILT. */
int ap_cmd_not_built(const char *cmd);

/*
 * Every file a command writes is opened (src/outfile.h) before its first
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
