/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The option kit: the options every command spells the same way, in one
 * table per command, as git's parse-options.h (OPT__DRY_RUN, OPT__QUIET)
 * or fio's options table. A command lists the shared options it takes,
 * each with the variable it sets:
 *
 *	const struct ap_opt common[] = {
 *		AP_OPT_YES(&c->yes), AP_OPT_DRY_RUN(&c->dry_run),
 *		AP_OPT_QUIET(&c->quiet), AP_OPT_OUTPUT(&c->out),
 *		AP_OPT_HELP(usage), AP_OPT_VERSION, AP_OPT_END
 *	};
 *
 * and ap_opts_parse() runs getopt_long over those and the command's own
 * options (its struct option array and letters), handing each of its own
 * to the command's callback. The spelling, the argument and the message
 * of each shared option are here, once.
 */
#ifndef AP_CMD_OPTS_H
#define AP_CMD_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "ui/out.h"

enum ap_opt_kind {
	AP_OPTK_END = 0,
	AP_OPTK_FLAG,		/* no argument: *(bool *)value = true */
	AP_OPTK_STR,		/* an argument: *(const char **)value = it */
	AP_OPTK_STR_OPT,	/* --NAME[=ARG]: *(const char **)value = ARG or NULL, *set = true */
	AP_OPTK_OUTPUT,		/* ui/out.h's -o --output-all -J -r -n -H -b --csv */
	AP_OPTK_HELP,		/* the command's usage(), then parsing ends */
	AP_OPTK_VERSION,	/* the version, then parsing ends */
};

/* getopt_long values of the shared long-only options (below AP_OPT_OUTPUT_ALL) */
enum {
	AP_OPTV_DRY_RUN = 0x180,
	AP_OPTV_PLOT,
	AP_OPTV_RECORD,
	AP_OPTV_PROMETHEUS,
};

struct ap_opt {
	enum ap_opt_kind kind;
	const char *name;	/* long name; NULL for AP_OPTK_OUTPUT (several) */
	int val;		/* short letter, or AP_OPTV_* */
	void *value;		/* bool *, const char ** or struct ap_out * */
	bool *set;		/* AP_OPTK_STR_OPT: the option was given */
	void (*usage)(void);	/* AP_OPTK_HELP */
};

#define AP_OPT_YES(v)		{ AP_OPTK_FLAG, "yes", 'y', (v), NULL, NULL }
#define AP_OPT_DRY_RUN(v)	{ AP_OPTK_FLAG, "dry-run", AP_OPTV_DRY_RUN, (v), NULL, NULL }
#define AP_OPT_JSON(v)		{ AP_OPTK_FLAG, "json", 'J', (v), NULL, NULL }	/* -J alone, no table */
#define AP_OPT_QUIET(v)		{ AP_OPTK_FLAG, "quiet", 'q', (v), NULL, NULL }
#define AP_OPT_PLOT(v)		{ AP_OPTK_STR, "plot", AP_OPTV_PLOT, (v), NULL, NULL }
#define AP_OPT_RECORD(v, set)	{ AP_OPTK_STR_OPT, "record", AP_OPTV_RECORD, (v), (set), NULL }
#define AP_OPT_PROMETHEUS(v)	{ AP_OPTK_STR, "prometheus", AP_OPTV_PROMETHEUS, (v), NULL, NULL }
#define AP_OPT_OUTPUT(o)	{ AP_OPTK_OUTPUT, NULL, 0, (o), NULL, NULL }
#define AP_OPT_HELP(fn)		{ AP_OPTK_HELP, "help", 'h', NULL, NULL, (fn) }
#define AP_OPT_VERSION		{ AP_OPTK_VERSION, "version", 'V', NULL, NULL, NULL }
#define AP_OPT_END		{ AP_OPTK_END, NULL, 0, NULL, NULL, NULL }

/*
 * One command's parser: the shared options of @common (ended by
 * AP_OPT_END), and its own: @longopts (ended by a NULL name; may be NULL)
 * and @shortopts (getopt's letters; may be NULL), each handed to @own.
 * @own returns 0, or an exit code after its message (or -1 after
 * printing what ends the command with success). @synopsis (NULL-ended,
 * every command gives one): the forms --help prints as "Usage:\n alignprobe
 * CMD FORM" before the AP_OPT_HELP function's text, placeholders written
 * <arg> as util-linux does ("[options] <device>...", "--undo <journal>").
 */
struct ap_opts {
	const char *cmd;
	const char *const *synopsis;
	const struct ap_opt *common;
	const struct option *longopts;
	const char *shortopts;
	int (*own)(void *ctx, int ch, const char *arg);
	void *ctx;
};

/*
 * Parse @argv (argv[0] the command's name) from the start: 0 with optind
 * at the first operand; -1 after --help or --version were printed;
 * AP_EXIT_USAGE after getopt's message and the "Try ... --help" hint;
 * or what @own returned.
 */
int ap_opts_parse(const struct ap_opts *p, int argc, char **argv);

/*
 * The output options once parsed, in the order the command checks them:
 * ap_opts_out_check(): mutually exclusive formats, 0 or AP_EXIT_USAGE
 * after the message; ap_opts_list_columns(): -H, the columns of @t
 * printed and -1, else 0; ap_opts_columns(): -o resolved into @cols (room
 * for t->ninfos * 2; as ap_out_columns()), 0 or AP_EXIT_USAGE after the
 * message. With @cols NULL it only checks -o: a command does so with its
 * other options, before anything runs, and resolves it again to report.
 */
int ap_opts_out_check(const char *cmd, const struct ap_out *o);

/*
 * A command's column table (the one that drives -o, the table and JSON)
 * and its defaults: every command that prints a table has one.
 */
struct ap_opts_cols {
	const struct ap_colinfo *infos;
	size_t ninfos;
	const int *defaults;	/* the columns shown without -o */
	size_t ndefaults;
};

int ap_opts_list_columns(const struct ap_out *o, const struct ap_opts_cols *t);
int ap_opts_columns(const char *cmd, const struct ap_out *o, const struct ap_opts_cols *t,
		    int *cols, size_t *ncols);

#endif
