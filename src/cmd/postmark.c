// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * alignprobe postmark [options] [CONFIG...]: the built-in PostMark-compatible
 * workload on its own.
 *
 * - Without CONFIG: one run with PostMark's defaults and the options.
 * - With CONFIG files (PostMark's syntax; "-" is stdin): every file is read
 *   and checked completely (nested `load`s too) before anything runs, the
 *   files after a `quit` too; then the `run` and `show` commands are
 *   executed in order, up to the first `quit` of a file given here (a
 *   `quit` in a `load`ed file ends only that file, as in PostMark). Files
 *   with neither `run` nor `quit` get one run at their end.
 * - -i/--interactive: afterwards (unless a file said `quit`), commands are
 *   read from stdin and executed line by line, PostMark's "pm>" prompt on
 *   a terminal; a bad line is reported and skipped.
 * - Options pin settings: they override what the files `set`.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "cmd/commands.h"
#include "cmd/opts.h"
#include "lib/exitcodes.h"
#include "lib/sig.h"
#include "lib/util.h"
#include "ui/out.h"
#include "ui/progress.h"
#include "workload/pm.h"
#include "workload/pm_pins.h"

#define CMD "postmark"

enum {
	OPT_READ_BLOCK = AP_OPT_OUT_LAST,
	OPT_WRITE_BLOCK,
	OPT_BUFFERING,
	OPT_BIAS_READ,
	OPT_BIAS_CREATE,
	OPT_SYNC,
	OPT_DROP_CACHES,
	OPT_DATA,
	OPT_TERSE,
};

/*
 * A configuration that cannot run: 2, or 3 where the errno table says a
 * refusal (a location on a read-only file system: EROFS).
 */
static int usage_or_refused(int err)
{
	return ap_exit_for_errno(err) == AP_EXIT_REFUSED ? AP_EXIT_REFUSED : AP_EXIT_USAGE;
}

/* what --help prints after "Usage:" (the option kit) */
static const char *const synopsis[] = {
	"[options] [<config>...]",
	NULL
};

static void usage(void)
{
	FILE *f = stdout;
	struct ap_pm_config d;
	char *syncs;

	fputs("The built-in PostMark-compatible workload: for the same settings it performs\n"
	      "exactly the file operations of PostMark 1.5 (same files created, read,\n"
	      "appended and deleted, same bytes), timed in nanoseconds, and always removes\n"
	      "what it created. CONFIG files use PostMark's commands (set size, set number,\n"
	      "set seed, set transactions, set location, set subdirectories, set read,\n"
	      "set write, set buffering, set bias read, set bias create, set report, run,\n"
	      "show, load, help, quit; plus set sync, set data, set dropcaches); '-' reads\n"
	      "stdin. Each file is checked completely before anything runs. Without CONFIG,\n"
	      "or when the files contain neither 'run' nor 'quit', it runs once.\n\n", f);
	fputs("Options (they override the files' settings):\n"
	      " -s, --size <lo>[:<hi>]    created files have LO..HI-1 bytes, appends grow them\n"
	      "                           up to HI; LO alone: fixed size (default 500:10000)\n"
	      " -N, --number <n>          files in the initial set (default 500)\n"
	      " -S, --seed <n>            random seed, 1..4294967295 (default 42)\n"
	      " -t, --transactions <n>    transactions (default 500)\n"
	      " -l, --location <dir>[=<w>]\n"
	      "                           directory for the files, weight W; repeatable\n"
	      "                           (default: the current directory)\n"
	      " -d, --subdirectories <k>  spread the files over s0..s(K-1) in each location\n"
	      "     --read-block <b>      read block size (default 512)\n"
	      "     --write-block <b>     write block size (default 512)\n"
	      "     --buffering yes|no    PostMark's stdio mode (default yes)\n"
	      "     --bias-read <n>       0..10 chance of read over append, -1 off (default 5)\n"
	      "     --bias-create <n>     0..10 chance of create over delete, -1 off (default 5)\n"
	      , f);
	/* the policies of their table, PostMark's default */
	syncs = ap_pm_sync_list(", ");
	ap_pm_config_init(&d);
	fprintf(f, "     --sync <policy>       %s (default %s)\n", syncs, ap_pm_sync_name(d.sync));
	free(syncs);
	fputs("     --drop-caches         sync and drop the page cache before each phase (root)\n"
	      "     --data <source>       printable (PostMark), zeros, random (default printable)\n"
	      " -J, --json                print a JSON document instead of the reports\n"
	      "     --terse               PostMark's one-line report\n"
	      " -i, --interactive         then read commands from stdin (PostMark's pm> prompt)\n"
	      " -q, --quiet               no progress line\n"
	      " -h, --help                display this help\n"
	      " -V, --version             display version\n\n", f);
	fputs("Exit status: 0 done, 1 I/O error (files removed), 2 bad option or config\n"
	      "(nothing created), 128+N interrupted by signal N (files removed, partial\n"
	      "results printed).\n", f);
}

struct postmark_cmd {
	struct ap_pm_pins pins;		/* the options' settings, over the files' */
	bool json, quiet;
	struct json_object *runs;	/* --json: the runs so far */
	struct ap_progress prog;
	char prog_what[64];
};

static void on_progress(void *arg, int phase, uint64_t done, uint64_t total)
{
	struct postmark_cmd *c = arg;

	if (done == 0) {
		ap_progress_clear(&c->prog);
		snprintf(c->prog_what, sizeof(c->prog_what), "postmark: %s",
			 ap_pm_phase_name(phase));
		ap_progress_init(&c->prog, c->prog_what, total, c->quiet);
	}
	ap_progress_update(&c->prog, done, NULL);
}

static FILE *open_output(const char *path)
{
	FILE *f;

	if (!path)
		return stdout;
	f = fopen(path, "ae");
	if (!f)
		ap_warnx(CMD, path, "cannot write: %s", strerror(errno));
	return f;
}

static int close_output(FILE *f, const char *path)
{
	if (f == stdout)
		return ap_out_flush(f);	/* a reader gone (| head) is no error */
	if (fclose(f) != 0) {
		ap_warnx(CMD, path, "write error: %s", strerror(errno));
		return -EIO;
	}
	return 0;
}

/* One `run`: returns an exit code. */
static int do_run(struct postmark_cmd *c, struct ap_pm_config *cfg, const char *output,
		  const char *where)
{
	struct ap_pm_result res;
	struct ap_error e;
	FILE *out;
	int rc, ret = AP_EXIT_OK;

	cfg->progress = on_progress;
	cfg->progress_ctx = c;
	cfg->cancel = ap_sig_cancel;
	rc = ap_pm_run(cfg, &res, &e);
	ap_progress_clear(&c->prog);
	if (rc == -EINTR) {
		ret = AP_EXIT_SIGNAL_BASE + res.interrupted;
		ap_warnx(CMD, NULL, "interrupted by signal %d; %llu files removed", res.interrupted,
			 (unsigned long long)res.cleanup_removed);
	} else if (rc && !res.error) {
		/* configuration refused before anything was created */
		ap_warnx(CMD, where, "%s", e.msg);
		return usage_or_refused(e.code);
	} else if (rc) {
		ap_warnx(CMD, NULL, "%s", e.msg);
		ret = AP_EXIT_FAILURE;
	}
	if (res.out_of_files)
		ap_warnx(CMD, NULL, "out of files after %llu transactions: increase the number of "
			 "files or decrease the number of transactions",
			 (unsigned long long)res.transactions_done);

	if (c->json) {
		json_object_array_add(c->runs, ap_pm_run_to_json(cfg, &res));
		if (!output)
			return ret;
	}
	out = open_output(output);
	if (!out)
		return ret ? ret : AP_EXIT_FAILURE;
	ap_pm_report_text(out, cfg, &res);
	if (close_output(out, output) && !ret)
		ret = AP_EXIT_FAILURE;
	return ret;
}

static int do_show(struct postmark_cmd *c, const struct ap_pm_config *cfg, const char *output)
{
	FILE *out;

	if (c->json && !output)
		return AP_EXIT_OK;	/* stdout carries the JSON document only */
	out = open_output(output);
	if (!out)
		return AP_EXIT_FAILURE;
	ap_pm_config_show(out, cfg);
	return close_output(out, output) ? AP_EXIT_FAILURE : AP_EXIT_OK;
}

/* Options re-applied to every step, every run's settings checked: an
 * exit code (AP_EXIT_USAGE with a message naming file:line). */
static int check_script(struct postmark_cmd *c, struct ap_pm_script *s, bool implicit_run)
{
	const char *where;
	struct ap_error e;

	if (ap_pm_script_check(s, &c->pins, implicit_run, &where, &e)) {
		ap_warnx(CMD, where, "%s", e.msg);
		return usage_or_refused(e.code);
	}
	return AP_EXIT_OK;
}

/* Execute the checked steps in order; an exit code. */
static int exec_script(struct postmark_cmd *c, struct ap_pm_script *s, bool implicit_run)
{
	size_t i;
	int ret;

	for (i = 0; i < s->nsteps; i++) {
		struct ap_pm_step *st = &s->steps[i];

		switch (st->cmd) {
		case AP_PM_CMD_RUN:
			ret = do_run(c, &st->cfg, st->output, st->where);
			break;
		case AP_PM_CMD_SHOW:
			ret = do_show(c, &st->cfg, st->output);
			break;
		case AP_PM_CMD_HELP:
			if (!c->json)
				ap_pm_help(stdout, st->output);
			ret = AP_EXIT_OK;
			break;
		default:
			ret = AP_EXIT_OK;
			break;
		}
		if (ret)
			return ret;
	}
	if (implicit_run)
		return do_run(c, &s->final, NULL, NULL);
	return AP_EXIT_OK;
}

/* -i: PostMark's command loop on stdin. */
static int interactive(struct postmark_cmd *c, struct ap_pm_config *cfg, bool *quit)
{
	bool tty = isatty(STDIN_FILENO);
	struct ap_pm_script s;
	struct ap_pm_line pl;
	struct ap_pm_config tmp;
	struct ap_error e;
	unsigned lineno = 0;
	char *line = NULL;
	size_t cap = 0;
	int ret = AP_EXIT_OK, rc;

	for (;;) {
		if (tty) {
			fputs("pm>", stdout);
			fflush(stdout);
		}
		if (getline(&line, &cap, stdin) < 0)
			break;
		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (!strcmp(line, "?"))
			strcpy(line, "help");		/* PostMark's aliases */
		else if (!strcmp(line, "exit"))
			strcpy(line, "quit");
		if (ap_pm_config_line(cfg, line, "<stdin>", lineno, &pl, &e)) {
			ap_warnx(CMD, NULL, "%s", e.msg);
			ret = AP_EXIT_USAGE;
			continue;
		}
		rc = AP_EXIT_OK;
		/* the report's file before the run, as for a file's `run F` */
		if ((pl.cmd == AP_PM_CMD_RUN || pl.cmd == AP_PM_CMD_SHOW) && pl.arg &&
		    (rc = ap_cmd_check_output(CMD, pl.arg, false)) != 0)
			pl.cmd = AP_PM_CMD_NONE;
		switch (pl.cmd) {
		case AP_PM_CMD_RUN:
			ap_pm_config_copy(&tmp, cfg);
			if (ap_pm_pins_apply(&c->pins, &tmp, &e)) {
				ap_warnx(CMD, NULL, "%s", e.msg);
				rc = AP_EXIT_USAGE;
			} else {
				rc = do_run(c, &tmp, pl.arg, NULL);
			}
			ap_pm_config_free(&tmp);
			break;
		case AP_PM_CMD_SHOW:
			ap_pm_config_copy(&tmp, cfg);
			ap_pm_pins_apply(&c->pins, &tmp, &e);
			rc = do_show(c, &tmp, pl.arg);
			ap_pm_config_free(&tmp);
			break;
		case AP_PM_CMD_HELP:
			ap_pm_help(stdout, pl.arg);
			break;
		case AP_PM_CMD_LOAD:
			if (ap_pm_script_load(&s, cfg, pl.arg, &e)) {
				ap_warnx(CMD, NULL, "<stdin>:%u: %s", lineno, e.msg);
				rc = AP_EXIT_USAGE;
				break;
			}
			rc = check_script(c, &s, false);
			if (!rc)
				rc = exec_script(c, &s, false);
			ap_pm_config_free(cfg);
			ap_pm_config_copy(cfg, &s.final);
			ap_pm_script_free(&s);
			break;
		case AP_PM_CMD_QUIT:
			*quit = true;
			break;
		default:
			break;
		}
		free(pl.arg);
		if (rc == AP_EXIT_USAGE) {
			ret = rc;
			continue;
		}
		if (rc || *quit) {
			ret = rc ? rc : ret;
			break;
		}
	}
	free(line);
	return ret;
}

/*
 * postmark's own options; those that pin one line of the configuration
 * name it: "set KEY ARG", or "set KEY VALUE" for those without an argument.
 */
static const struct pm_opt {
	const char *name;
	int has_arg, val;
	const char *set, *value;
} pm_opts[] = {
	{ "size",           required_argument, 's', NULL, NULL },
	{ "number",         required_argument, 'N', "set number", NULL },
	{ "seed",           required_argument, 'S', "set seed", NULL },
	{ "transactions",   required_argument, 't', "set transactions", NULL },
	{ "location",       required_argument, 'l', NULL, NULL },
	{ "subdirectories", required_argument, 'd', "set subdirectories", NULL },
	{ "read-block",     required_argument, OPT_READ_BLOCK, "set read", NULL },
	{ "write-block",    required_argument, OPT_WRITE_BLOCK, "set write", NULL },
	{ "buffering",      required_argument, OPT_BUFFERING, NULL, NULL },
	{ "bias-read",      required_argument, OPT_BIAS_READ, "set bias read", NULL },
	{ "bias-create",    required_argument, OPT_BIAS_CREATE, "set bias create", NULL },
	{ "sync",           required_argument, OPT_SYNC, "set sync", NULL },
	{ "drop-caches",    no_argument,       OPT_DROP_CACHES, "set dropcaches", "true" },
	{ "data",           required_argument, OPT_DATA, "set data", NULL },
	{ "terse",          no_argument,       OPT_TERSE, "set report", "terse" },
	{ "interactive",    no_argument,       'i', NULL, NULL },
};

struct pm_parse {
	struct postmark_cmd *c;
	bool *interact;
};

/* One of postmark's own options: 0, or AP_EXIT_USAGE after the message. */
static int postmark_opt(void *ctx, int ch, const char *arg)
{
	struct pm_parse *pp = ctx;
	struct ap_pm_pins *pins = &pp->c->pins;
	struct ap_error e;
	size_t i;

	for (i = 0; i < AP_ARRAY_SIZE(pm_opts); i++)
		if (pm_opts[i].val == ch && pm_opts[i].set) {
			ap_pm_pin(pins, pm_opts[i].set, pm_opts[i].value ? pm_opts[i].value : arg);
			return 0;
		}
	switch (ch) {
	case 's':
		ap_pm_pin_size(pins, arg);
		break;
	case 'l':
	case OPT_BUFFERING:
		if ((ch == 'l' ? ap_pm_pin_location(pins, arg, &e) :
				 ap_pm_pin_buffering(pins, arg, &e)) < 0) {
			ap_usage_error(CMD, "%s", e.msg);
			return AP_EXIT_USAGE;
		}
		break;
	case 'i':
		*pp->interact = true;
		break;
	}
	return 0;
}

/*
 * The options, pinned as PostMark commands: 0 to go on; AP_EXIT_USAGE after
 * the message; -1 when the help or the version was printed. The pins are
 * freed unless 0.
 */
static int parse_args(struct postmark_cmd *c, int argc, char **argv, bool *interact)
{
	const struct ap_opt common[] = {
		AP_OPT_JSON(&c->json), AP_OPT_QUIET(&c->quiet), AP_OPT_HELP(usage),
		AP_OPT_VERSION, AP_OPT_END
	};
	struct option longopts[AP_ARRAY_SIZE(pm_opts) + 1] = { { NULL, 0, NULL, 0 } };
	struct pm_parse pp = { c, interact };
	const struct ap_opts p = {
		.cmd = CMD, .synopsis = synopsis, .common = common, .longopts = longopts, .shortopts = "s:N:S:t:l:d:i",
		.own = postmark_opt, .ctx = &pp,
	};
	size_t i;
	int rc;

	for (i = 0; i < AP_ARRAY_SIZE(pm_opts); i++)
		longopts[i] = (struct option){ pm_opts[i].name, pm_opts[i].has_arg, NULL,
					       pm_opts[i].val };
	rc = ap_opts_parse(&p, argc, argv);
	if (rc)
		ap_pm_pins_free(&c->pins);
	return rc;
}

int ap_cmd_postmark(int argc, char **argv)
{
	struct postmark_cmd c;
	struct ap_pm_config base;
	struct ap_pm_scripts ss = { 0 };
	const char *failed = NULL;
	struct ap_error e;
	bool interact = false, quit = false;
	size_t k;
	int rc, ret = AP_EXIT_OK;

	memset(&c, 0, sizeof(c));
	rc = parse_args(&c, argc, argv, &interact);
	if (rc)
		return rc < 0 ? AP_EXIT_OK : rc;

	/* the options themselves must be valid before any file is read */
	ap_pm_config_init(&base);
	if (ap_pm_pins_apply(&c.pins, &base, &e)) {
		/* a location on a read-only file system is the table's 3, not a usage error */
		if (usage_or_refused(e.code) == AP_EXIT_REFUSED) {
			ap_warnx(CMD, NULL, "%s", e.msg);
			ret = AP_EXIT_REFUSED;
		} else {
			ap_usage_error(CMD, "%s", e.msg);
			ret = AP_EXIT_USAGE;
		}
		goto out;
	}
	if (c.json)
		c.runs = json_object_new_array();
	ap_sig_install();

	if (optind == argc && !interact) {
		if (ap_pm_config_validate(&base, &e)) {
			ap_warnx(CMD, NULL, "%s", e.msg);
			ret = AP_EXIT_USAGE;
			goto out;
		}
		ret = do_run(&c, &base, NULL, NULL);
	}

	/* every file read and checked before anything runs */
	if (ap_pm_scripts_load(&ss, &base, argv + optind, (size_t)(argc - optind), interact,
			       &failed, &e)) {
		ret = ap_err_error(CMD, failed, &e);	/* missing, a directory, malformed: 2 */
		goto out;
	}
	quit = ss.quit;
	for (k = 0; k < ss.n && !ret; k++)
		ret = check_script(&c, &ss.s[k], ap_pm_scripts_implicit(&ss, k));
	for (k = 0; k < ss.nrun && !ret; k++)
		ret = exec_script(&c, &ss.s[k], ap_pm_scripts_implicit(&ss, k));
	if (ss.nrun) {
		/* interactive commands go on from the last file's settings */
		ap_pm_config_free(&base);
		ap_pm_config_copy(&base, &ss.s[ss.nrun - 1].final);
	}

	if (interact && !quit && !ret)
		ret = interactive(&c, &base, &quit);

	if (c.json) {
		struct json_object *doc = json_object_new_object();

		json_object_object_add(doc, "runs", c.runs);
		c.runs = NULL;
		if (ap_out_json_print(stdout, doc) && !ret)
			ret = AP_EXIT_FAILURE;
		json_object_put(doc);
	}
out:
	ap_pm_scripts_free(&ss);
	if (c.runs)
		json_object_put(c.runs);
	ap_pm_config_free(&base);
	ap_pm_pins_free(&c.pins);
	return ap_cmd_close_stdout(CMD, ret);
}
