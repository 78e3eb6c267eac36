// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * alignprobe cleanup [DEVICE]: take down what a killed run left behind, as
 * recorded in the state registry (src/lib/state.h): mounts, temporary
 * directories, loop devices, emulated drives; and put back a write cache
 * that seq --write-cache switched. Undo journals are reported, never
 * deleted unless asked.
 *
 * Safe at any time: an entry whose owner still runs is left alone, and
 * nothing outside the registry is touched; a registered mount point that
 * now carries somebody else's mount is left alone too. An emulated drive
 * belongs to the run that attached it, not to its server: the server of a
 * dead run's drive is stopped like the rest of it.
 *
 * The exit status says whether anything it found remains: 0 only when
 * nothing does (what the run could not remove, what live runs still use,
 * kept journals and drives handed over by `emulate --attach` all count).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup/cleanup.h"
#include "cmd/commands.h"
#include "cmd/opts.h"
#include "lib/exitcodes.h"
#include "lib/state.h"
#include "lib/util.h"
#include "ui/out.h"

#define CMD "cleanup"

enum {
	COL_ACTION,
	COL_KIND,
	COL_PATH,
	COL_DEV,
	COL_OWNER,
	COL_DETAIL,
};

static const struct ap_colinfo infos[] = {
	[COL_ACTION] = { "ACTION", 0.1, 0, AP_COL_STRING,
			 "what was done: unmounted, removed, detached, restored, gone; what remains: kept, skipped, deferred, failed (or would-...)" },
	[COL_KIND] = { "KIND", 0.1, 0, AP_COL_STRING, "resource kind: mount, tmpdir, emu, loop, journal, wcache, unknown" },
	[COL_PATH] = { "PATH", 0.3, 0, AP_COL_STRING, "mount point, directory, backing file, journal or write cache attribute" },
	[COL_DEV] = { "DEV", 0.1, 0, AP_COL_STRING, "device the resource belongs to" },
	[COL_OWNER] = { "OWNER", 0.05, SCOLS_FL_RIGHT, AP_COL_NUMBER, "PID of the run it belongs to" },
	[COL_DETAIL] = { "DETAIL", 0.3, SCOLS_FL_WRAP, AP_COL_STRING, "why, or what to do" },
};

static const int default_cols[] = { COL_ACTION, COL_KIND, COL_PATH, COL_DEV, COL_OWNER, COL_DETAIL };

static const struct ap_opts_cols cleanup_cols = {
	infos, AP_ARRAY_SIZE(infos), default_cols, AP_ARRAY_SIZE(default_cols)
};

enum {
	OPT_REMOVE_JOURNALS = AP_OPT_OUT_LAST,
};

struct cleanup_cmd {
	bool dry_run;
	bool remove_journals;
	bool quiet;
	const char *device;	/* as given */
	char *device_canon;	/* realpath, when it exists (the engine's c->device_canon) */
	struct ap_out out;
	struct libscols_table *tb;
	int cols[AP_ARRAY_SIZE(infos) * 2];
	size_t ncols;
	struct ap_cols cs;	/* of cols */
};

/* what --help prints after "Usage:" (the option kit) */
static const char *const synopsis[] = {
	"[options] [<device>]",
	NULL
};

static void __attribute__((noreturn)) usage(void)
{
	puts("Remove what a killed run (SIGKILL, power cut) left behind: stale mounts,\n"
	     "temporary directories, loop devices and emulated drives recorded in the\n"
	     "state directory. Resources of runs that are still alive are never touched.\n"
	     "An emulated drive belongs to the run that attached it: a dead run's drive\n"
	     "is taken down, its server included; one attached with 'emulate --attach'\n"
	     "stays until 'emulate --detach'. A write cache that 'seq --write-cache'\n"
	     "switched is put back as it was found.\n"
	     "With DEVICE, only the resources of that device (its partitions, its\n"
	     "emulated drive) are considered.\n");
	puts("Options:\n"
	     "     --dry-run          list what would be done, change nothing\n"
	     "     --remove-journals  also delete stale undo journals (default: keep them\n"
	     "                        and tell how to restore with 'probe --undo')\n"
	     " -q, --quiet            print nothing when there is nothing to do");
	ap_out_usage(stdout, 24);
	puts(" -h, --help             display this help\n"
	     " -V, --version          display version\n");
	puts("Available output columns:");
	ap_out_list_columns(NULL, infos, AP_ARRAY_SIZE(infos));
	putchar('\n');
	puts("Environment:\n"
	     " ALIGNPROBE_STATE_DIR   state directory (default /run/alignprobe)\n");
	puts("Exit status:\n"
	     " 0  nothing of what it found remains (or there was nothing to do)\n"
	     " 1  something remains: it could not be removed, a running process\n"
	     "    still uses it, or it is kept (an undo journal, a drive attached with\n"
	     "    'emulate --attach'); the ACTION and DETAIL columns say which\n"
	     " 2  usage error (also a DEVICE that does not exist and that no entry names)");
	exit(AP_EXIT_OK);
}

/* The engine's report hook: a line of the table; a failure or a kept journal said on stderr. */
static void report(struct ap_cleanup *ck, const struct ap_state_entry *en, const char *action,
		   bool failed, const char *detail)
{
	struct cleanup_cmd *c = ck->arg;
	struct ap_row r;

	ap_row_init(&r, &c->cs);
	ap_row_str(&r, COL_ACTION, action);
	ap_row_str(&r, COL_KIND, ap_state_kind_name(en->kind));
	ap_row_str(&r, COL_PATH, en->path);
	ap_row_str(&r, COL_DEV, en->dev);
	ap_row_u64(&r, COL_OWNER, (uint64_t)en->owner);
	ap_row_str(&r, COL_DETAIL, detail);
	if (ap_row_add_line(&r, c->tb) != 0) {
		ap_warnx(CMD, NULL, "cannot allocate a table line");
		exit(AP_EXIT_FAILURE);
	}
	ap_row_free(&r);
	if (failed)
		ap_warnx(CMD, NULL, "%s %s: %s", ap_state_kind_name(en->kind),
			 en->path ? en->path : en->dev ? en->dev : en->file, detail);
	else if (en->kind == AP_STATE_JOURNAL && strcmp(action, "kept") == 0)
		ap_warnx(CMD, en->path, "undo journal of %s kept: run 'alignprobe probe --undo %s' "
			 "to restore the data (or cleanup --remove-journals to delete it)",
			 en->dev ? en->dev : "?", en->path);
}

/* What the engine is given, from the options (the DEVICE apart). */
static void engine_of(struct cleanup_cmd *c, struct ap_cleanup *ck)
{
	memset(ck, 0, sizeof(*ck));
	ck->dry_run = c->dry_run;
	ck->remove_journals = c->remove_journals;
	ck->cache_model = &ap_cmd_emu_cache;
	ck->report = report;
	ck->arg = c;
}

/* cleanup's one option of its own */
static int cleanup_opt(void *ctx, int ch, const char *arg)
{
	struct cleanup_cmd *c = ctx;

	(void)arg;
	if (ch == OPT_REMOVE_JOURNALS)
		c->remove_journals = true;
	return 0;
}

/*
 * Options and the DEVICE: 0 to go on; an exit code after the message; -1
 * when the version or the columns were printed.
 */
static int parse_args(struct cleanup_cmd *c, struct ap_cleanup *ck, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "remove-journals", no_argument, NULL, OPT_REMOVE_JOURNALS },
		{ NULL, 0, NULL, 0 }
	};
	const struct ap_opt common[] = {
		AP_OPT_DRY_RUN(&c->dry_run), AP_OPT_QUIET(&c->quiet), AP_OPT_HELP(usage),
		AP_OPT_VERSION, AP_OPT_OUTPUT(&c->out), AP_OPT_END
	};
	const struct ap_opts p = {
		.cmd = CMD, .synopsis = synopsis, .common = common, .longopts = longopts, .own = cleanup_opt, .ctx = c,
	};
	int rc = ap_opts_parse(&p, argc, argv);

	if (!rc)
		rc = ap_opts_out_check(CMD, &c->out);
	if (!rc)
		rc = ap_opts_list_columns(&c->out, &cleanup_cols);
	if (rc)
		return rc;
	if (optind + 1 < argc) {
		ap_usage_error(CMD, "too many arguments (one DEVICE at most)");
		return AP_EXIT_USAGE;
	}
	if (ap_opts_columns(CMD, &c->out, &cleanup_cols, c->cols, &c->ncols))
		return AP_EXIT_USAGE;
	engine_of(c, ck);
	if (optind < argc) {
		struct ap_error e = { 0 };

		c->device = argv[optind];
		if (!*c->device) {
			ap_usage_error(CMD, "an empty DEVICE name");
			return AP_EXIT_USAGE;
		}
		if (ap_cleanup_set_device(ck, c->device, &c->device_canon, &e) < 0) {
			free(c->device_canon);
			return ap_err_error(CMD, c->device, &e);
		}
	}
	return 0;
}

int ap_cmd_cleanup(int argc, char **argv)
{
	struct cleanup_cmd c = { 0 };
	struct ap_cleanup ck;
	struct ap_error e = { 0 };
	bool write_error = false;
	int rc;

	rc = parse_args(&c, &ck, argc, argv);
	if (rc)
		return rc < 0 ? AP_EXIT_OK : rc;
	ap_cols_init(&c.cs, &c.out, infos, AP_ARRAY_SIZE(infos), c.cols, c.ncols, NULL, 0);
	c.tb = ap_cols_table_new(&c.cs, "cleanup");
	rc = ap_cleanup_run(&ck, &e);
	if (rc) {
		ap_warnx(CMD, ap_state_dir(), "%s", e.msg);
		scols_unref_table(c.tb);
		free(c.device_canon);
		return AP_EXIT_FAILURE;
	}
	if (ck.nsel || c.out.json) {
		if (ap_out_print(&c.out, c.tb) != 0) {
			ap_warnx(CMD, NULL, "write error on standard output");
			write_error = true;
		}
	} else if (!c.quiet && !c.out.raw && !c.out.csv && !c.out.noheadings) {
		/* the sentence only for humans: -r/--csv/-n print an empty table */
		printf("nothing to clean up in %s%s%s\n", ap_state_dir(),
		       c.device ? " for " : "", c.device ? c.device : "");
	}
	scols_unref_table(c.tb);
	ap_cleanup_free(&ck);
	free(c.device_canon);
	if (ck.nremain)
		ap_warnx(CMD, NULL, "%d of %zu %s: see the ACTION and DETAIL columns", ck.nremain,
			 ck.nsel, c.dry_run ? "would remain" : "remain");
	return ck.nremain || write_error ? AP_EXIT_FAILURE : AP_EXIT_OK;
}
