// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * alignprobe sweep <device> | --emulate[=<spec>] | --replay <file>
 *
 * The options and --replay (this file); the run on a device or an
 * emulated drive, the safety gate, progress and the results file
 * (sweep_target.c); everything printed: the table per start, the verdict
 * in words, JSON and the plot (sweep_report.c); what they share
 * (sweepP.h).
 * The work is done by src/sweep/ (sweep/sweep.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "cmd/commands.h"
#include "cmd/opts.h"
#include "cmd/publish.h"
#include "cmd/sweepP.h"
#include "device/identity.h"
#include "fleet/vstore.h"
#include "lib/exitcodes.h"
#include "lib/outfile.h"
#include "lib/sig.h"
#include "lib/state.h"
#include "lib/util.h"
#include "sweep/mkfs.h"
#include "device/mount.h"
#include "sweep/sweep.h"
#include "ui/out.h"
#include "workload/pm.h"

enum {
	OPT_STARTS = AP_OPT_OUT_LAST,
	OPT_ROUNDS,
	OPT_SIZE,
	OPT_FS,
	OPT_MKFS_OPT,
	OPT_MOUNT_OPT,
	OPT_SYNC,
	OPT_SEED,
	OPT_EMULATE,
	OPT_REPLAY,
	OPT_SAVE,
};

/* --sync: the workload's policies (their table), the sweep's default marked. */
static void usage_sync(FILE *f)
{
	struct ap_sweep_setup d;
	char *text = ap_xstrdup("after every file write:"), *next;
	unsigned i;

	ap_sweep_setup_init(&d);
	for (i = 0; i < AP_PM_SYNC_COUNT; i++) {
		ap_xasprintf(&next, "%s %s%s%s", text, ap_pm_sync_name((enum ap_pm_sync)i),
			     i == d.sync ? " (default)" : "", i + 1 < AP_PM_SYNC_COUNT ? "," : "");
		free(text);
		text = next;
	}
	fputs("     --sync <policy>      ", f);
	ap_cmd_usage_wrap(f, 26, text);
	free(text);
}

/* what --help prints after "Usage:" (the option kit) */
static const char *const synopsis[] = {
	"[options] <device>",
	"[options] --emulate[=<spec>]",
	"--replay <file> [output options]",
	NULL
};

static void usage(void)
{
	FILE *f = stdout;
	const struct ap_sweep_preset *p;
	size_t i;

	fputs("Find a drive's real physical sector size and alignment the way it hurts:\n"
	      "for every partition start in a range, write a fresh GPT with one partition\n"
	      "starting exactly there, make a file system, mount it, time a small-file\n"
	      "workload (PostMark-compatible, fsync after every file write), unmount. The\n"
	      "starts are visited in a new random order every round; the sweep stops as\n"
	      "soon as the verdict is clear. DESTROYS everything on DEVICE; leaves it with\n"
	      "an empty GPT.\n\n", f);
	fputs("Options:\n"
	      " -p, --preset <name>      quick (default) or thorough, see below\n"
	      "     --starts <list>      partition starts, logical sectors: 34..64, 34..64:2,\n"
	      "                          35,40,63 (default 34..64 with 512-byte sectors,\n"
	      "                          6..37 with 4096-byte sectors)\n"
	      "     --rounds <n>|<min>..<max>\n"
	      "                          rounds: at least MIN, at most MAX (preset's)\n"
	      " -t, --time-budget <time>\n"
	      "                          no new step after this long, e.g. 10m (preset's)\n"
	      "     --size <size>        partition size (preset's, capped by the disk)\n"
	      "     --fs <type>          ext4 (default), ext2 or xfs (xfs: >= 300M)\n"
	      "     --mkfs-opt <opts>    more mkfs options, split at blanks (repeatable)\n"
	      "     --mount-opt <opts>   mount(2) data, e.g. data=journal\n"
	      " -w, --workload <file>    a PostMark configuration file instead of the preset's\n"
	      "                          workload (its locations are replaced by the mount)\n", f);
	usage_sync(f);
	fputs("     --seed <n>           order of the starts (and the emulator's jitter);\n"
	      "                          default: from the clock, saved in the results\n"
	      "     --emulate[=<spec>]   sweep an emulated drive set up for this run: by\n"
	      "                          default " AP_CMD_EMU_DEFAULT_SPEC " (a 7200 rpm 512e disk); SPEC\n"
	      "                          as for 'alignprobe emulate --spec' applies on top\n"
	      "                          (size=256M) or names another profile (simple)\n"
	      "     --replay <file>      re-analyse and print saved results (--save or --json\n"
	      "                          output); touches no device\n"
	      "     --save <file>        write the results as JSON, updated after every step\n"
	      "                          (nothing is saved unless asked; the --json output\n"
	      "                          can be replayed as well)\n"
	      "     --plot <file.svg>    bars of TPS per start, aligned starts in blue\n"
	      "     --record[=<store>]   add the verdict to the verdict store for the disk's\n"
	      "                          model (default $ALIGNPROBE_VERDICTS or\n"
	      "                          " AP_VSTORE_DEFAULT ")\n"
	      " -y, --yes                no confirmation (typing the device name)\n"
	      "     --dry-run            check and print the plan, write nothing\n"
	      " -q, --quiet              no progress line\n", f);
	ap_out_usage(f, 26);
	fputs(" -h, --help               display this help\n"
	      " -V, --version            display version\n\n", f);
	fputs("Presets:\n", f);
	for (p = ap_sweep_presets; p->name; p++) {
		char *sz = ap_size_to_human(p->part_size);

		fprintf(f, " %-9s %s\n           number %" PRIu64 ", transactions %" PRIu64
			", size %" PRIu64 "..%" PRIu64 ", read/write %" PRIu64 "/%" PRIu64
			", buffering false;\n           partition %s, rounds %u..%u, budget %" PRIu64 "m\n",
			p->name, p->help, p->number, p->transactions, p->size_lo, p->size_hi,
			p->read_block, p->write_block, sz, p->min_rounds, p->max_rounds,
			(uint64_t)(p->time_budget_ns / (60 * AP_NSEC_PER_SEC)));
		free(sz);
	}
	fputs("\nAvailable output columns:\n", f);
	for (i = 0; i < SWEEP_NCOLS; i++)
		fprintf(f, " %-11s %s\n", sweep_infos[i].name, sweep_infos[i].help);
	fputs("\n--json prints {\"device\", \"logical_sector\", \"reported_physical_sector\",\n"
	      "\"parameters\", \"stopped\", \"verdict\", \"starts\": [per start, every column in\n"
	      "lower case, or those of -o], \"results\": [per start and round]}; --replay\n"
	      "reads it back.\n"
	      "-r and --csv print the table only.\n\n", f);
	fputs("Exit status: 0 verdict, 1 a step failed (reported per start, never counted\n"
	      "as slow) or another failure, 2 usage, 3 refused for safety, 5 no verdict\n"
	      "within the budget, 128+N interrupted by signal N (nothing left mounted,\n"
	      "empty GPT, results so far printed).\n", f);
	printf("\nFor more details see alignprobe(8).\n");
}

static const struct option longopts[] = {
	{ "preset",      required_argument, NULL, 'p' },
	{ "starts",      required_argument, NULL, OPT_STARTS },
	{ "rounds",      required_argument, NULL, OPT_ROUNDS },
	{ "time-budget", required_argument, NULL, 't' },
	{ "size",        required_argument, NULL, OPT_SIZE },
	{ "fs",          required_argument, NULL, OPT_FS },
	{ "mkfs-opt",    required_argument, NULL, OPT_MKFS_OPT },
	{ "mount-opt",   required_argument, NULL, OPT_MOUNT_OPT },
	{ "workload",    required_argument, NULL, 'w' },
	{ "sync",        required_argument, NULL, OPT_SYNC },
	{ "seed",        required_argument, NULL, OPT_SEED },
	{ "emulate",     optional_argument, NULL, OPT_EMULATE },
	{ "replay",      required_argument, NULL, OPT_REPLAY },
	{ "save",        required_argument, NULL, OPT_SAVE },
	{ NULL, 0, NULL, 0 }
};

/* The options of the file system and the workload on it: 0, or AP_EXIT_USAGE. */
static int workload_opt(struct sweep_cmd *c, int ch, const char *arg)
{
	switch (ch) {
	case OPT_FS:
		if (!ap_mkfs_is_known(arg)) {
			ap_usage_error(CMD, "--fs: unknown file system '%s' (ext4, ext2 or xfs)", arg);
			return AP_EXIT_USAGE;
		}
		c->s.fs = arg;
		break;
	case OPT_MKFS_OPT:
		if (ap_mkfs_split_opts(arg, &c->s.mkfs_opts, &c->s.nmkfs_opts) != 0) {
			ap_usage_error(CMD, "--mkfs-opt: empty");
			return AP_EXIT_USAGE;
		}
		break;
	case OPT_MOUNT_OPT:
		c->s.mount_opts = arg;
		break;
	case 'w':
		c->s.workload_file = arg;
		break;
	case OPT_SYNC:
		if (ap_pm_sync_parse(arg, &c->s.sync) != 0) {
			char *names = ap_pm_sync_list(", ");

			ap_usage_error(CMD, "--sync: unknown policy '%s' (%s)", arg, names);
			free(names);
			return AP_EXIT_USAGE;
		}
		break;
	}
	return 0;
}

/* The options of what is measured and how: 0, or AP_EXIT_USAGE after the message. */
static int measure_opt(struct sweep_cmd *c, int ch, const char *arg)
{
	struct ap_error e = { 0 };

	switch (ch) {
	case 'p':
		c->s.preset = ap_sweep_preset_find(arg);
		if (!c->s.preset) {
			ap_usage_error(CMD, "unknown preset '%s' (quick or thorough)", arg);
			return AP_EXIT_USAGE;
		}
		break;
	case OPT_STARTS:
		free(c->s.starts);
		if (ap_sweep_parse_starts(arg, &c->s.starts, &c->s.nstarts, &e) != 0) {
			ap_usage_error(CMD, "--starts: %s", e.msg);
			return AP_EXIT_USAGE;
		}
		break;
	case OPT_ROUNDS:
		if (ap_sweep_parse_rounds(arg, &c->s.min_rounds, &c->s.max_rounds) != 0) {
			ap_usage_error(CMD, "--rounds: '%s' is not N or MIN..MAX (1..1000)", arg);
			return AP_EXIT_USAGE;
		}
		c->rounds_set = true;
		break;
	case 't':
		if (ap_parse_duration_ns(arg, &c->s.budget_ns) != 0) {
			ap_usage_error(CMD, "--time-budget: '%s' is not a duration (e.g. 10m, 90s)",
				       arg);
			return AP_EXIT_USAGE;
		}
		c->budget_set = true;
		break;
	case OPT_SIZE:
		if (ap_parse_size(arg, &c->s.part_size) != 0 || c->s.part_size == 0) {
			ap_usage_error(CMD, "--size: '%s' is not a size (e.g. 256M)", arg);
			return AP_EXIT_USAGE;
		}
		c->s.size_set = true;
		break;
	case OPT_SEED:
		if (ap_parse_u64(arg, &c->s.seed) != 0) {
			ap_usage_error(CMD, "--seed: '%s' is not a number", arg);
			return AP_EXIT_USAGE;
		}
		c->seed_set = true;
		break;
	case OPT_SAVE:
		c->save = arg;
		break;
	default:
		return workload_opt(c, ch, arg);
	}
	return 0;
}

/* One of sweep's own options; all but --emulate and --replay set what is measured. */
static int sweep_opt(void *ctx, int ch, const char *arg)
{
	struct sweep_cmd *c = ctx;

	if (ch == OPT_EMULATE) {
		c->emulate = true;
		c->emu_spec = arg;
		return 0;
	}
	if (ch == OPT_REPLAY) {
		c->replay = arg;
		return 0;
	}
	c->measuring_opts = true;
	return measure_opt(c, ch, arg);
}

/* The operands and the options' combinations: 0, or AP_EXIT_USAGE after the message. */
static int check_operands(struct sweep_cmd *c, int argc, char **argv)
{
	if (optind < argc)
		c->device = argv[optind++];
	if (optind < argc) {
		ap_usage_error(CMD, "unexpected argument '%s'", argv[optind]);
		return AP_EXIT_USAGE;
	}
	if (c->replay) {
		if (c->device || c->emulate || c->measuring_opts || c->dry_run || c->yes) {
			ap_usage_error(CMD, "--replay FILE takes output options only (-o, -J, -r, "
				       "--csv, -n, -b, --plot), no device and no measurement options");
			return AP_EXIT_USAGE;
		}
		return 0;
	}
	if (c->device && c->emulate) {
		ap_usage_error(CMD, "give a DEVICE or --emulate, not both");
		return AP_EXIT_USAGE;
	}
	if (!c->device && !c->emulate) {
		ap_usage_error(CMD, "no device given (or --emulate, or --replay FILE)");
		return AP_EXIT_USAGE;
	}
	return 0;
}

/* 0 to go on; AP_EXIT_* to return; -1 when help/version was printed. */
static int parse_args(struct sweep_cmd *c, int argc, char **argv)
{
	const struct ap_opt common[] = {
		AP_OPT_PLOT(&c->plot), AP_OPT_YES(&c->yes), AP_OPT_DRY_RUN(&c->dry_run),
		AP_OPT_RECORD(&c->record, &c->record_set), AP_OPT_QUIET(&c->quiet),
		AP_OPT_HELP(usage), AP_OPT_VERSION, AP_OPT_OUTPUT(&c->out), AP_OPT_END
	};
	const struct ap_opts p = {
		.cmd = CMD, .synopsis = synopsis, .common = common, .longopts = longopts,
		.shortopts = "p:t:w:",
		.own = sweep_opt, .ctx = c,
	};
	int rc;

	rc = ap_opts_parse(&p, argc, argv);
	if (c->record_set)
		c->measuring_opts = true;	/* a verdict to record is measured */
	if (!rc)
		rc = ap_opts_out_check(CMD, &c->out);
	if (!rc)
		rc = ap_opts_list_columns(&c->out, &sweep_cols);
	/* -o before anything is measured, not when reporting */
	if (!rc)
		rc = ap_opts_columns(CMD, &c->out, &sweep_cols, NULL, NULL);
	if (!rc)
		rc = check_operands(c, argc, argv);
	if (rc || c->replay)
		return rc;
	ap_sweep_setup_preset(&c->s, c->rounds_set, c->budget_set);
	if (!c->seed_set)
		c->s.seed = ap_now_ns() ^ ((uint64_t)getpid() << 32);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Replay                                                             */
/* ------------------------------------------------------------------ */

int sweep_verdict_exit(const struct ap_verdict *v)
{
	/* a tentative verdict (not statistically clear) is none */
	return v && v->resolved && !v->tentative ? AP_EXIT_OK : AP_EXIT_INCONCLUSIVE;
}

static int do_replay(struct sweep_cmd *c)
{
	struct ap_sweep_doc doc;
	struct ap_verdict v;
	struct ap_error e = { 0 };
	const char *stopped, *early;
	bool have_v;
	int rc;

	if (ap_sweep_doc_load(c->replay, &doc, &e) != 0)
		return ap_err_error(CMD, c->replay, &e);	/* missing, malformed: 2 */
	stopped = doc.stopped;
	early = ap_sweep_stopped_early(ap_sweep_stop_parse(stopped));
	have_v = ap_sweep_doc_analyse(&doc, &v) == 0;
	rc = sweep_report(c, &doc, have_v ? &v : NULL, stopped);
	if (!rc)
		rc = sweep_verdict_exit(have_v ? &v : NULL);
	/*
	 * A run stopped by a signal or an error gave no verdict (it exited
	 * 128+N or 1): its partial results do not make one now either.
	 */
	if (!rc && early) {
		ap_warnx(CMD, c->replay, "the run was %s: no verdict from its partial results",
			 early);
		rc = AP_EXIT_INCONCLUSIVE;
	} else if (rc == AP_EXIT_INCONCLUSIVE) {
		/* the reason on stderr, -q or not, as a live run's */
		char *why = ap_sweep_no_verdict_reason(have_v ? &v : NULL, NULL);

		ap_warnx(CMD, c->replay, "%s", why);
		free(why);
	}
	if (have_v)
		ap_verdict_free(&v);
	ap_sweep_doc_free(&doc);
	return rc;
}

int ap_cmd_sweep(int argc, char **argv)
{
	struct sweep_cmd c;
	struct ap_error e = { 0 };
	int rc;

	memset(&c, 0, sizeof(c));
	ap_sweep_setup_init(&c.s);
	rc = parse_args(&c, argc, argv);
	if (rc)
		goto out;
	/* the output files first: a path that cannot be written is exit 2, with nothing done */
	if (c.plot && (rc = ap_cmd_open_output(CMD, &c.plot_out, c.plot)) != 0)
		goto out;
	if (c.save && (rc = ap_cmd_open_output(CMD, &c.save_out, c.save)) != 0)
		goto out;
	if (c.plot && c.save && ap_outfile_is(&c.plot_out, c.save)) {
		ap_warnx(CMD, c.save, "given for both --save and --plot");
		rc = AP_EXIT_USAGE;
		goto out;
	}
	if (c.replay) {
		rc = do_replay(&c);
		goto out;
	}
	/* where each step creates its mount point and registers it */
	if ((rc = ap_cmd_check_dir(CMD, ap_mount_parent(), "TMPDIR, for the mount points")) ||
	    (rc = ap_cmd_check_dir(CMD, ap_state_dir(), "the state directory")))
		goto out;
	if (c.record_set && (rc = ap_publish_record_prepare(CMD, c.record, &c.record)) != 0)
		goto out;
	rc = sweep_prepare_workload(&c);
	if (rc)
		goto out;
	/* every check before anything is written */
	if (ap_mkfs_check(c.s.fs, &e) != 0) {
		ap_warnx(CMD, NULL, "%s", e.msg);
		rc = AP_EXIT_FAILURE;
		goto out;
	}
	ap_sig_install();
	rc = c.emulate ? sweep_run_emulated(&c) : sweep_run_device(&c);
out:
	if (c.save && rc >= 0 && ap_outfile_commit(&c.save_out, &e) != 0) {
		/* after the last update: closes, or writes a FIFO's content */
		ap_warnx(CMD, "--save", "%s", e.msg);
		if (rc == AP_EXIT_OK)
			rc = AP_EXIT_FAILURE;
	}
	ap_outfile_discard(&c.save_out);
	ap_outfile_discard(&c.plot_out);
	ap_sweep_setup_free(&c.s);
	ap_identity_free(&c.id);
	free(c.what);
	if (rc < 0)
		return AP_EXIT_OK;	/* help, version, list of columns */
	return ap_cmd_close_stdout(CMD, rc);
}
