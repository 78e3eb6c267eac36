// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * alignprobe sweep DEVICE | --emulate[=SPEC] | --replay FILE
 *
 * Options, the safety gate, the emulated drive, and everything printed:
 * progress, the table per start, the verdict in words, JSON, the plot and
 * the results file. The work is done by src/sweep/ (sweep.h).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "cmd/commands.h"
#include "cmd/fleet.h"
#include "device/identity.h"
#include "device/safety.h"
#include "emu/emu.h"
#include "fleet/vstore.h"
#include "lib/exitcodes.h"
#include "lib/outfile.h"
#include "lib/sig.h"
#include "lib/state.h"
#include "lib/stats.h"
#include "lib/util.h"
#include "sweep/mkfs.h"
#include "sweep/mnt.h"
#include "sweep/part.h"
#include "sweep/sweep.h"
#include "ui/confirm.h"
#include "ui/out.h"
#include "ui/plot.h"
#include "ui/progress.h"
#include "workload/pm.h"

#define CMD "sweep"

enum {
	COL_START, COL_ALIGNED, COL_FAST, COL_RUNS, COL_FAILED, COL_TPS, COL_COST,
	COL_CREATES, COL_DELETES, COL_READ, COL_WRITE, COL_FSYNC, COL_REL, COL_RMW,
};

static const struct ap_colinfo infos[] = {
	[COL_START]   = { "START", 6, SCOLS_FL_RIGHT, AP_COL_NUMBER,
			  "partition start, logical sectors" },
	[COL_ALIGNED] = { "ALIGNED", 7, 0, AP_COL_BOOLEAN,
			  "aligned under the inferred physical sector size and offset (empty: unresolved)" },
	[COL_FAST]    = { "FAST", 4, 0, AP_COL_BOOLEAN,
			  "classified fast by the analysis (from the timings alone)" },
	[COL_RUNS]    = { "RUNS", 4, SCOLS_FL_RIGHT, AP_COL_NUMBER,
			  "measurements at this start (rounds), failed ones included" },
	[COL_FAILED]  = { "FAILED", 6, SCOLS_FL_RIGHT, AP_COL_NUMBER,
			  "measurements that failed at this start (never counted as slow)" },
	[COL_TPS]     = { "TPS", 8, SCOLS_FL_RIGHT, AP_COL_NUMBER,
			  "workload transactions per second (median over the rounds)",
			  .fmt = "%.1f", .null = "-" },
	[COL_COST]    = { "COST", 8, SCOLS_FL_RIGHT, AP_COL_NUMBER,
			  "milliseconds per transaction (median), what the analysis uses",
			  .fmt = "%.2f", .null = "-" },
	[COL_CREATES] = { "CREATES", 8, SCOLS_FL_RIGHT, AP_COL_NUMBER,
			  "files created per second of the creation and transaction phases",
			  .fmt = "%.1f", .null = "-" },
	[COL_DELETES] = { "DELETES", 8, SCOLS_FL_RIGHT, AP_COL_NUMBER,
			  "files deleted per second of the transaction and deletion phases",
			  .fmt = "%.1f", .null = "-" },
	[COL_READ]    = { "READ_KIBS", 9, SCOLS_FL_RIGHT, AP_COL_NUMBER,
			  "KiB read per second of the transaction phase",
			  .fmt = "%.1f", .null = "-" },
	[COL_WRITE]   = { "WRITE_KIBS", 10, SCOLS_FL_RIGHT, AP_COL_NUMBER,
			  "KiB written per second of the creation and transaction phases",
			  .fmt = "%.1f", .null = "-" },
	[COL_FSYNC]   = { "FSYNC_MED", 9, SCOLS_FL_RIGHT, AP_COL_NUMBER,
			  "median fsync latency, milliseconds",
			  .fmt = "%.2f", .null = "-" },
	[COL_REL]     = { "REL", 5, SCOLS_FL_RIGHT, AP_COL_NUMBER,
			  "TPS relative to the best start (1.00 = best)",
			  .fmt = "%.2f", .null = "-" },
	[COL_RMW]     = { "RMW", 6, SCOLS_FL_RIGHT, AP_COL_NUMBER,
			  "emulated drive only: read-modify-writes per workload run (mean)",
			  .fmt = "%.0f", .null = "-" },
};

static const int default_cols[] = {
	COL_START, COL_ALIGNED, COL_TPS, COL_CREATES, COL_DELETES, COL_READ, COL_WRITE,
	COL_FSYNC, COL_REL, COL_FAILED,
};

/* The keys of the "starts" objects without -o (and in --save), in their documented order. */
static const int json_cols[] = {
	COL_START, COL_RUNS, COL_FAILED, COL_ALIGNED, COL_FAST, COL_TPS, COL_COST, COL_CREATES,
	COL_DELETES, COL_READ, COL_WRITE, COL_FSYNC, COL_REL, COL_RMW,
};

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
	OPT_PLOT,
	OPT_DRY_RUN,
	OPT_RECORD,
};

struct sweep_cmd {
	struct ap_out out;
	const char *device;
	const struct ap_sweep_preset *preset;
	uint64_t *starts;
	size_t nstarts;
	unsigned min_rounds, max_rounds;
	bool rounds_set;
	uint64_t budget_ns;
	bool budget_set;
	uint64_t part_size;
	bool size_set;
	const char *fs;
	char **mkfs_opts;
	size_t nmkfs_opts;
	const char *mount_opts;
	const char *workload_file;
	enum ap_pm_sync sync;
	uint64_t seed;
	bool seed_set;
	bool emulate;
	const char *emu_spec;
	const char *replay, *save, *plot;
	struct ap_outfile save_out, plot_out;	/* opened before anything is written */
	bool yes, dry_run, quiet;
	bool measuring_opts;	/* an option that --replay cannot take */
	const char *record;	/* --record[=STORE]: the store, once checked */
	bool record_set;
	struct ap_disk_identity id;	/* the disk's, for --record */

	/* the run */
	const char *disk;
	struct ap_part_disk info;
	struct ap_pm_config workload;
	bool workload_init;
	struct json_object *params;
	struct ap_progress pg;
	char *what;
	int save_errors;
};

static void usage(void)
{
	FILE *f = stdout;
	const struct ap_sweep_preset *p;
	size_t i;

	fprintf(f, "Usage:\n"
		" %s %s [options] DEVICE\n"
		" %s %s [options] --emulate[=SPEC]\n"
		" %s %s --replay FILE [output options]\n\n", AP_PROG, CMD, AP_PROG, CMD, AP_PROG, CMD);
	fputs("Find a drive's real physical sector size and alignment the way it hurts:\n"
	      "for every partition start in a range, write a fresh GPT with one partition\n"
	      "starting exactly there, make a file system, mount it, time a small-file\n"
	      "workload (PostMark-compatible, fsync after every file write), unmount. The\n"
	      "starts are visited in a new random order every round; the sweep stops as\n"
	      "soon as the verdict is clear. DESTROYS everything on DEVICE; leaves it with\n"
	      "an empty GPT.\n\n", f);
	fputs("Options:\n"
	      " -p, --preset NAME        quick (default) or thorough, see below\n"
	      "     --starts LIST        partition starts, logical sectors: 34..64, 34..64:2,\n"
	      "                          35,40,63 (default 34..64 with 512-byte sectors,\n"
	      "                          6..37 with 4096-byte sectors)\n"
	      "     --rounds N|MIN..MAX  rounds: at least MIN, at most MAX (preset's)\n"
	      " -t, --time-budget TIME   no new step after this long, e.g. 10m (preset's)\n"
	      "     --size SIZE          partition size (preset's, capped by the disk)\n"
	      "     --fs TYPE            ext4 (default), ext2 or xfs (xfs: >= 300M)\n"
	      "     --mkfs-opt OPTS      more mkfs options, split at blanks (repeatable)\n"
	      "     --mount-opt OPTS     mount(2) data, e.g. data=journal\n"
	      " -w, --workload FILE      a PostMark configuration file instead of the preset's\n"
	      "                          workload (its locations are replaced by the mount)\n"
	      "     --sync POLICY        after every file write: none, fsync (default),\n"
	      "                          fdatasync, dsync, sync, direct\n"
	      "     --seed N             order of the starts (and the emulator's jitter);\n"
	      "                          default: from the clock, saved in the results\n"
	      "     --emulate[=SPEC]     sweep an emulated drive set up for this run: by\n"
	      "                          default " AP_CMD_EMU_DEFAULT_SPEC ",\n"
	      "                          SPEC as for 'alignprobe emulate --spec' changes it\n"
	      "     --replay FILE        re-analyse and print saved results (--save or --json\n"
	      "                          output); touches no device\n"
	      "     --save FILE          write the results as JSON, updated after every step\n"
	      "                          (nothing is saved unless asked; the --json output\n"
	      "                          can be replayed as well)\n"
	      "     --plot FILE.svg      bars of TPS per start, aligned starts in blue\n"
	      "     --record[=STORE]     add the verdict to the verdict store for the disk's\n"
	      "                          model (default $ALIGNPROBE_VERDICTS or\n"
	      "                          " AP_VSTORE_DEFAULT ")\n"
	      " -y, --yes                no confirmation (typing the device name)\n"
	      "     --dry-run            check and print the plan, write nothing\n"
	      " -q, --quiet              no progress line\n", f);
	ap_out_usage(f);
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
	for (i = 0; i < AP_ARRAY_SIZE(infos); i++)
		fprintf(f, " %-11s %s\n", infos[i].name, infos[i].help);
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

static int parse_rounds(const char *s, unsigned *min, unsigned *max)
{
	const char *dots = strstr(s, "..");
	uint32_t a, b;
	char *tmp;
	int rc;

	if (!dots) {
		if (ap_parse_u32(s, &a) != 0 || a == 0 || a > 1000)
			return -EINVAL;
		*min = *max = a;
		return 0;
	}
	tmp = strndup(s, (size_t)(dots - s));
	if (!tmp)
		return -ENOMEM;
	rc = ap_parse_u32(tmp, &a);
	free(tmp);
	if (rc || ap_parse_u32(dots + 2, &b) != 0 || a == 0 || b < a || b > 1000)
		return -EINVAL;
	*min = a;
	*max = b;
	return 0;
}

/* 0 to go on; AP_EXIT_* to return; -1 when help/version was printed. */
static int parse_args(struct sweep_cmd *c, int argc, char **argv)
{
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
		{ "plot",        required_argument, NULL, OPT_PLOT },
		{ "yes",         no_argument,       NULL, 'y' },
		{ "dry-run",     no_argument,       NULL, OPT_DRY_RUN },
		{ "record",      optional_argument, NULL, OPT_RECORD },
		{ "quiet",       no_argument,       NULL, 'q' },
		{ "help",        no_argument,       NULL, 'h' },
		{ "version",     no_argument,       NULL, 'V' },
		AP_OUT_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	struct ap_error e = { 0 };
	int ch;

	c->preset = ap_sweep_preset_find("quick");
	c->fs = "ext4";
	c->sync = AP_PM_SYNC_FSYNC;
	while ((ch = getopt_long(argc, argv, "p:t:w:yqhV" AP_OUT_OPTSTRING, longopts, NULL)) != -1) {
		if (ap_out_parse_opt(&c->out, ch, optarg))
			continue;
		switch (ch) {
		case 'p':
			c->preset = ap_sweep_preset_find(optarg);
			if (!c->preset) {
				ap_usage_error(CMD, "unknown preset '%s' (quick or thorough)", optarg);
				return AP_EXIT_USAGE;
			}
			c->measuring_opts = true;
			break;
		case OPT_STARTS:
			free(c->starts);
			if (ap_sweep_parse_starts(optarg, &c->starts, &c->nstarts, &e) != 0) {
				ap_usage_error(CMD, "--starts: %s", e.msg);
				return AP_EXIT_USAGE;
			}
			c->measuring_opts = true;
			break;
		case OPT_ROUNDS:
			if (parse_rounds(optarg, &c->min_rounds, &c->max_rounds) != 0) {
				ap_usage_error(CMD, "--rounds: '%s' is not N or MIN..MAX (1..1000)", optarg);
				return AP_EXIT_USAGE;
			}
			c->rounds_set = true;
			c->measuring_opts = true;
			break;
		case 't':
			if (ap_parse_duration_ns(optarg, &c->budget_ns) != 0) {
				ap_usage_error(CMD, "--time-budget: '%s' is not a duration (e.g. 10m, 90s)",
					       optarg);
				return AP_EXIT_USAGE;
			}
			c->budget_set = true;
			c->measuring_opts = true;
			break;
		case OPT_SIZE:
			if (ap_parse_size(optarg, &c->part_size) != 0 || c->part_size == 0) {
				ap_usage_error(CMD, "--size: '%s' is not a size (e.g. 256M)", optarg);
				return AP_EXIT_USAGE;
			}
			c->size_set = true;
			c->measuring_opts = true;
			break;
		case OPT_FS:
			if (!ap_mkfs_is_known(optarg)) {
				ap_usage_error(CMD, "--fs: unknown file system '%s' (ext4, ext2 or xfs)",
					       optarg);
				return AP_EXIT_USAGE;
			}
			c->fs = optarg;
			c->measuring_opts = true;
			break;
		case OPT_MKFS_OPT:
			if (ap_mkfs_split_opts(optarg, &c->mkfs_opts, &c->nmkfs_opts) != 0) {
				ap_usage_error(CMD, "--mkfs-opt: empty");
				return AP_EXIT_USAGE;
			}
			c->measuring_opts = true;
			break;
		case OPT_MOUNT_OPT:
			c->mount_opts = optarg;
			c->measuring_opts = true;
			break;
		case 'w':
			c->workload_file = optarg;
			c->measuring_opts = true;
			break;
		case OPT_SYNC:
			if (ap_pm_sync_parse(optarg, &c->sync) != 0) {
				ap_usage_error(CMD, "--sync: unknown policy '%s' (none, fsync, fdatasync, "
					       "dsync, sync, direct)", optarg);
				return AP_EXIT_USAGE;
			}
			c->measuring_opts = true;
			break;
		case OPT_SEED:
			if (ap_parse_u64(optarg, &c->seed) != 0) {
				ap_usage_error(CMD, "--seed: '%s' is not a number", optarg);
				return AP_EXIT_USAGE;
			}
			c->seed_set = true;
			c->measuring_opts = true;
			break;
		case OPT_EMULATE:
			c->emulate = true;
			c->emu_spec = optarg;
			break;
		case OPT_REPLAY:
			c->replay = optarg;
			break;
		case OPT_SAVE:
			c->save = optarg;
			c->measuring_opts = true;
			break;
		case OPT_PLOT:
			c->plot = optarg;
			break;
		case 'y':
			c->yes = true;
			break;
		case OPT_DRY_RUN:
			c->dry_run = true;
			break;
		case OPT_RECORD:
			c->record = optarg;
			c->record_set = true;
			c->measuring_opts = true;
			break;
		case 'q':
			c->quiet = true;
			break;
		case 'h':
			usage();
			return -1;
		case 'V':
			ap_print_version();
			return -1;
		default:
			ap_usage_hint(CMD);
			return AP_EXIT_USAGE;
		}
	}
	if (ap_out_validate(&c->out, &e) != 0) {
		ap_usage_error(CMD, "%s", e.msg);
		return AP_EXIT_USAGE;
	}
	if (c->out.list_columns) {
		ap_out_list_columns(&c->out, infos, AP_ARRAY_SIZE(infos));
		return -1;
	}
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
	if (!c->rounds_set) {
		c->min_rounds = c->preset->min_rounds;
		c->max_rounds = c->preset->max_rounds;
	}
	if (!c->budget_set)
		c->budget_ns = c->preset->time_budget_ns;
	if (!c->seed_set)
		c->seed = ap_now_ns() ^ ((uint64_t)getpid() << 32);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Output                                                             */
/* ------------------------------------------------------------------ */

/* The columns of -o (@cols: room for AP_ARRAY_SIZE(infos) * 2): 0 or an exit code. */
static int select_cols(struct sweep_cmd *c, struct ap_cols *cs, int *cols)
{
	struct ap_error e = { 0 };
	size_t ncols;

	if (ap_out_columns(&c->out, infos, AP_ARRAY_SIZE(infos), default_cols,
			   AP_ARRAY_SIZE(default_cols), cols, &ncols, &e) != 0) {
		ap_warnx(CMD, NULL, "%s", e.msg);
		return AP_EXIT_USAGE;
	}
	ap_cols_init(cs, &c->out, infos, AP_ARRAY_SIZE(infos), cols, ncols,
		     json_cols, AP_ARRAY_SIZE(json_cols));
	return 0;
}

/* One start, every column: a table line and an object of "starts". */
static void fill_row(struct ap_row *r, const struct ap_sweep_start_stat *st)
{
	ap_row_reset(r);
	ap_row_u64(r, COL_START, st->start);
	if (st->has_aligned)
		ap_row_bool(r, COL_ALIGNED, st->aligned);
	if (st->has_fast)
		ap_row_bool(r, COL_FAST, st->fast);
	ap_row_u64(r, COL_RUNS, st->runs);
	ap_row_u64(r, COL_FAILED, st->failed);
	ap_row_double(r, COL_TPS, st->tps);
	ap_row_double(r, COL_COST, st->cost * 1e3);	/* ms */
	ap_row_double(r, COL_CREATES, st->creates_per_s);
	ap_row_double(r, COL_DELETES, st->deletes_per_s);
	ap_row_double(r, COL_READ, st->read_kibs);
	ap_row_double(r, COL_WRITE, st->write_kibs);
	ap_row_double(r, COL_FSYNC, st->fsync_med_ms);
	ap_row_double(r, COL_REL, st->rel);
	ap_row_double(r, COL_RMW, st->emu_rmw);
}

/* The "starts" array of the JSON document, with the keys of @cs. */
static struct json_object *starts_json(const struct ap_cols *cs,
				       const struct ap_sweep_start_stat *st, size_t n)
{
	struct json_object *a = json_object_new_array();
	struct ap_row r;
	size_t i;

	ap_row_init(&r, cs);
	for (i = 0; i < n; i++) {
		fill_row(&r, &st[i]);
		json_object_array_add(a, ap_row_json(&r));
	}
	ap_row_free(&r);
	return a;
}

static int print_table(struct sweep_cmd *c, const struct ap_sweep_start_stat *st, size_t n)
{
	int cols[AP_ARRAY_SIZE(infos) * 2];
	struct libscols_table *tb;
	struct ap_cols cs;
	struct ap_row r;
	size_t i;
	int rc;

	rc = select_cols(c, &cs, cols);
	if (rc)
		return rc;
	tb = ap_cols_table_new(&cs, "starts");
	ap_row_init(&r, &cs);
	for (i = 0; i < n; i++) {
		if (!st[i].runs)	/* not measured yet (interrupted, budget) */
			continue;
		fill_row(&r, &st[i]);
		if (ap_row_add_line(&r, tb) != 0) {
			ap_row_free(&r);
			scols_unref_table(tb);
			ap_warnx(CMD, NULL, "cannot allocate a table line");
			return AP_EXIT_FAILURE;
		}
	}
	ap_row_free(&r);
	rc = ap_out_print(&c->out, tb);
	scols_unref_table(tb);
	if (rc) {
		ap_warnx(CMD, NULL, "write error on standard output");
		return AP_EXIT_FAILURE;
	}
	return 0;
}

static void fmt_starts(char *buf, size_t len, const uint64_t *v, size_t n, size_t max)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < n && i < max && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%" PRIu64, i ? " " : "", v[i]);
	if (n > max && off < len)
		snprintf(buf + off, len - off, " ...");
}

/* One line for titles (the plot). */
static char *verdict_line(const struct ap_verdict *v)
{
	char *s;

	if (!v)
		ap_xasprintf(&s, "no verdict: no successful measurement");
	else if (v->sensitive && v->resolved)
		ap_xasprintf(&s, "physical sector %u bytes (reported %u), lowest aligned LBA %u, "
			     "%.*fx slower misaligned", v->physical_sector, v->reported_physical,
			     v->lowest_aligned_lba, v->small ? 2 : 1, v->slowdown);
	else if (v->sensitive && v->starts_insufficient)
		ap_xasprintf(&s, "alignment matters (%.1fx); these starts cannot resolve the sector "
			     "size", v->slowdown);
	else if (v->sensitive)
		ap_xasprintf(&s, "alignment matters (%.1fx) but no sector size explains it",
			     v->slowdown);
	else if (v->resolved)
		ap_xasprintf(&s, "no alignment effect of %.2fx or more", v->min_slowdown);
	else if (v->starts_insufficient)
		ap_xasprintf(&s, "no verdict: these starts cannot resolve the sector size (%.2fx, p %.2g)",
			     v->slowdown, v->p_value);
	else
		ap_xasprintf(&s, "no verdict yet (%.2fx, p %.2g)", v->slowdown, v->p_value);
	return s;
}

/*
 * @partial: some planned start has no successful measurement (an
 * interrupted sweep): what "these starts" cannot resolve may be resolved by
 * the rest.
 */
static void print_verdict(const char *dev, const struct ap_verdict *v, uint64_t first_usable,
			  bool partial)
{
	char buf[512], pb[32], cb[32];

	if (!v) {
		printf("\nNo verdict for %s: no start was measured successfully.\n", dev);
		return;
	}
	if (v->sensitive && v->resolved) {
		uint64_t mib, first;

		ap_sweep_recommend(v, first_usable, &mib, &first);
		fmt_starts(buf, sizeof(buf), v->fast_starts, v->nfast, 24);
		printf("\nVerdict for %s: partition alignment matters%s.\n", dev,
		       v->small ? ", a little" : "");
		printf("  Physical sector: %u bytes, inferred (the drive reports %u%s).\n",
		       v->physical_sector, v->reported_physical,
		       v->reported_physical == v->physical_sector ? ", correctly" : ": it hides the truth");
		printf("  Alignment offset: lowest aligned LBA %u; a start is aligned when\n"
		       "  start %% %u == %u. Fast starts measured: %s.\n",
		       v->lowest_aligned_lba, v->period, v->lowest_aligned_lba % v->period, buf);
		printf("  Slowdown: misaligned starts are %.*fx slower (rank test p = %s;\n"
		       "  confidence that alignment matters %s).\n", v->small ? 2 : 1, v->slowdown,
		       ap_stats_format_p(v->p_value, pb, sizeof(pb)),
		       ap_stats_format_confidence(v->confidence, cb, sizeof(cb)));
		if (v->small)
			printf("  That is less than %.2fx: a misaligned start costs little here, but\n"
			       "  an aligned one costs nothing.\n", v->min_slowdown);
		printf("  Recommended partition starts: %" PRIu64 " (%s),\n"
		       "  or %" PRIu64 " (the first aligned start >= %" PRIu64 ").\n", mib,
		       mib * v->logical_sector == (1ULL << 20) ? "1 MiB" :
		       "the first aligned start after 1 MiB", first, first_usable);
	} else if (v->sensitive) {
		printf("\nVerdict for %s: alignment matters (%.*fx, rank test p = %s), but\n"
		       "  %s.\n", dev, v->small ? 2 : 1, v->slowdown,
		       ap_stats_format_p(v->p_value, pb, sizeof(pb)), !v->starts_insufficient ?
		       "no physical sector size and offset explain which starts are fast" : partial ?
		       "the starts measured so far cannot resolve the physical sector size\n"
		       "  (see the note)" :
		       "these starts cannot resolve the physical sector size, whatever the\n"
		       "  number of rounds (see the note)");
		fmt_starts(buf, sizeof(buf), v->fast_starts, v->nfast, 24);
		if (v->nfast)
			printf("  Fast starts measured: %s.\n", buf);
		printf("  Partition starts at multiples of 2048 (1 MiB) are the safe choice; run\n"
		       "  'alignprobe probe %s' for a direct measurement.\n", dev);
	} else if (v->resolved) {
		printf("\nVerdict for %s: no alignment sensitivity: no start is %.2fx or more\n"
		       "  slower than another (equivalence test, confidence %s; the rank\n"
		       "  test for an effect: p = %s). The drive reports %u-byte physical\n"
		       "  sectors. With 4096-byte file-system blocks a sweep cannot tell an\n"
		       "  honest drive from one that hides a unit larger than the block: every\n"
		       "  start is equally fast or equally slow. Run 'alignprobe probe %s' to\n"
		       "  tell. 2048 (1 MiB) is the safe partition start.\n", dev, v->min_slowdown,
		       ap_stats_format_confidence(v->confidence, cb, sizeof(cb)),
		       ap_stats_format_p(v->p_value, pb, sizeof(pb)), v->reported_physical, dev);
	} else if (v->starts_insufficient) {
		printf("\nNo verdict for %s: slowdown %.2fx, rank test p = %s. %s\n", dev,
		       v->slowdown, ap_stats_format_p(v->p_value, pb, sizeof(pb)), partial ?
		       "The starts\n  measured so far cannot resolve the physical sector size "
		       "(see the note)." :
		       "These starts\n  cannot resolve the physical sector size, whatever the "
		       "number of\n  rounds (see the note).");
	} else {
		printf("\nNo verdict for %s yet: slowdown %.2fx, rank test p = %s. More rounds\n"
		       "  (--rounds, --time-budget, --preset thorough) may decide.\n", dev,
		       v->slowdown, ap_stats_format_p(v->p_value, pb, sizeof(pb)));
	}
	if (v->note && *v->note)
		printf("  Note: %s\n", v->note);
}

static int write_plot(struct sweep_cmd *c, const struct ap_sweep_start_stat *st, size_t n,
		      const struct ap_verdict *v)
{
	struct ap_plot_bar *bars = ap_xcalloc(n ? n : 1, sizeof(*bars));
	struct ap_plot_bars p = { 0 };
	struct ap_error e = { 0 };
	char *title = verdict_line(v), *svg;
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		bars[i].x = st[i].start;
		bars[i].value = st[i].tps;
		bars[i].aligned = st[i].has_aligned && st[i].aligned;
	}
	p.title = title;
	p.xlabel = "partition start (logical sectors)";
	p.ylabel = "transactions per second";
	p.bars = bars;
	p.nbars = n;
	if (v && v->sensitive && v->resolved) {
		p.period = v->period;
		p.phase = v->lowest_aligned_lba;
	}
	svg = ap_plot_bars_svg(&p);
	rc = ap_outfile_write(&c->plot_out, svg, strlen(svg));
	if (rc) {
		ap_error_set(&e, -rc, "%s: %s", c->plot, strerror(-rc));
		ap_outfile_discard(&c->plot_out);
	} else {
		rc = ap_outfile_commit(&c->plot_out, &e);
	}
	if (rc)
		ap_warnx(CMD, NULL, "cannot write plot: %s", e.msg);
	free(svg);
	free(title);
	free(bars);
	return rc ? AP_EXIT_FAILURE : 0;
}

/*
 * Everything printed at the end (and by --replay): JSON, or the table and
 * the verdict; the plot. Returns 0 or an exit code.
 */
static int report(struct sweep_cmd *c, const struct ap_sweep_doc *doc,
		  const struct ap_verdict *v, const char *stopped)
{
	struct ap_sweep_start_stat *st = NULL;
	size_t n;
	int rc = 0, rc2;

	n = ap_sweep_summarize(doc->results, doc->nresults, doc->starts, doc->nstarts, v, &st);
	if (c->out.json) {
		int cols[AP_ARRAY_SIZE(infos) * 2];
		struct json_object *o;
		struct ap_cols cs;

		rc = select_cols(c, &cs, cols);
		if (rc) {
			free(st);
			return rc;
		}
		o = ap_sweep_doc_to_json(doc, v, starts_json(&cs, st, n), stopped);
		if (ap_out_json_print(stdout, o) != 0) {
			ap_warnx(CMD, NULL, "write error on standard output");
			rc = AP_EXIT_FAILURE;
		}
		json_object_put(o);
	} else {
		if (n)
			rc = print_table(c, st, n);
		if (!rc && !c->out.raw && !c->out.csv) {
			bool partial = false;
			size_t i;

			for (i = 0; i < n; i++)
				if (st[i].runs <= st[i].failed)
					partial = true;
			print_verdict(doc->device, v, ap_part_gpt_first_usable(doc->logical_sector),
				      partial);
			if (ap_out_flush(stdout) != 0) {	/* a reader gone is no error */
				ap_warnx(CMD, NULL, "write error on standard output");
				rc = AP_EXIT_FAILURE;
			}
		}
	}
	if (c->plot && (rc2 = write_plot(c, st, n, v)) != 0 && !rc)
		rc = rc2;
	free(st);
	return rc;
}

/*
 * The analysis as the sweep needs it: a file system of 4096-byte blocks
 * cannot show units larger than its block, so periods beyond 4096 bytes are
 * not candidates (fewer candidates, a milder multiple-test correction).
 * The same for a run and its replay.
 */
static void sweep_params(struct ap_analysis_params *p, unsigned logical, unsigned reported)
{
	unsigned maxp = logical ? 4096 / logical : 8;

	ap_analysis_params_init(p, logical, reported);
	p->max_period = maxp < 2 ? 2 : maxp;
	p->offset_name = "start";
}

/* ------------------------------------------------------------------ */
/* Replay                                                             */
/* ------------------------------------------------------------------ */

static int verdict_exit(const struct ap_verdict *v)
{
	return v && v->resolved ? AP_EXIT_OK : AP_EXIT_INCONCLUSIVE;
}

static int do_replay(struct sweep_cmd *c)
{
	struct ap_analysis_params ap;
	struct ap_sweep_doc doc;
	struct ap_verdict v;
	struct ap_error e = { 0 };
	const char *stopped;
	bool have_v;
	int rc;

	if (ap_sweep_doc_load(c->replay, &doc, &e) != 0)
		return ap_err_error(CMD, c->replay, &e);	/* missing, malformed: 2 */
	stopped = doc.stopped;
	sweep_params(&ap, doc.logical_sector, doc.reported_physical);
	memset(&v, 0, sizeof(v));
	have_v = ap_sweep_analyse(doc.results, doc.nresults, &ap, &v) == 0;
	rc = report(c, &doc, have_v ? &v : NULL, stopped);
	if (!rc)
		rc = verdict_exit(have_v ? &v : NULL);
	/*
	 * A run stopped by a signal or an error gave no verdict (it exited
	 * 128+N or 1): its partial results do not make one now either.
	 */
	if (!rc && stopped && (!strcmp(stopped, "signal") || !strcmp(stopped, "error"))) {
		ap_warnx(CMD, c->replay, "the run was %s: no verdict from its partial results",
			 !strcmp(stopped, "signal") ? "interrupted" : "stopped by an error");
		rc = AP_EXIT_INCONCLUSIVE;
	}
	if (have_v)
		ap_verdict_free(&v);
	ap_sweep_doc_free(&doc);
	return rc;
}

/* ------------------------------------------------------------------ */
/* The run                                                            */
/* ------------------------------------------------------------------ */

static struct json_object *make_params(struct sweep_cmd *c, uint64_t part_sectors)
{
	struct json_object *o = json_object_new_object(), *a;
	size_t i;

	json_object_object_add(o, "preset", c->workload_file ? NULL :
			       json_object_new_string(c->preset->name));
	json_object_object_add(o, "workload_file", c->workload_file ?
			       json_object_new_string(c->workload_file) : NULL);
	a = json_object_new_array();
	for (i = 0; i < c->nstarts; i++)
		json_object_array_add(a, json_object_new_uint64(c->starts[i]));
	json_object_object_add(o, "starts", a);
	json_object_object_add(o, "min_rounds", json_object_new_int64(c->min_rounds));
	json_object_object_add(o, "max_rounds", json_object_new_int64(c->max_rounds));
	json_object_object_add(o, "time_budget_s",
			       json_object_new_double((double)c->budget_ns / 1e9));
	json_object_object_add(o, "partition_sectors", json_object_new_uint64(part_sectors));
	json_object_object_add(o, "partition_bytes",
			       json_object_new_uint64(part_sectors * c->info.logical_sector));
	json_object_object_add(o, "fs", json_object_new_string(c->fs));
	a = json_object_new_array();
	for (i = 0; i < c->nmkfs_opts; i++)
		json_object_array_add(a, json_object_new_string(c->mkfs_opts[i]));
	json_object_object_add(o, "mkfs_opts", a);
	json_object_object_add(o, "mount_opts", c->mount_opts ?
			       json_object_new_string(c->mount_opts) : NULL);
	json_object_object_add(o, "seed", json_object_new_uint64(c->seed));
	json_object_object_add(o, "workload", ap_pm_config_to_json(&c->workload));
	if (c->emulate) {
		char *s;

		s = ap_cmd_emu_spec_text(c->emu_spec);
		json_object_object_add(o, "emulate", json_object_new_string(s));
		free(s);
	} else {
		json_object_object_add(o, "emulate", NULL);
	}
	return o;
}

static void doc_of_run(struct sweep_cmd *c, const struct ap_sweep_run *run, struct ap_sweep_doc *d)
{
	memset(d, 0, sizeof(*d));
	d->device = (char *)c->disk;
	d->logical_sector = c->info.logical_sector;
	d->reported_physical = c->info.physical_sector;
	d->starts = c->starts;
	d->nstarts = c->nstarts;
	d->results = run->results;
	d->nresults = run->nresults;
	d->parameters = c->params;
}

static void save_doc(struct sweep_cmd *c, const struct ap_sweep_run *run, const char *stopped)
{
	const struct ap_verdict *v = run->verdict_valid ? &run->verdict : NULL;
	struct ap_sweep_start_stat *st = NULL;
	struct json_object *o;
	struct ap_sweep_doc d;
	struct ap_error e = { 0 };
	struct ap_cols cs;
	size_t n;

	doc_of_run(c, run, &d);
	n = ap_sweep_summarize(d.results, d.nresults, d.starts, d.nstarts, v, &st);
	/* a results file holds every column, whatever -o says */
	ap_cols_init(&cs, NULL, infos, AP_ARRAY_SIZE(infos), NULL, 0,
		     json_cols, AP_ARRAY_SIZE(json_cols));
	o = ap_sweep_doc_to_json(&d, v, starts_json(&cs, st, n), stopped);
	if (ap_sweep_json_save(&c->save_out, o, &e) != 0 && c->save_errors++ == 0) {
		ap_progress_clear(&c->pg);
		ap_warnx(CMD, NULL, "--save: %s", e.msg);
	}
	json_object_put(o);
	free(st);
}

static void on_step(void *ctx, const struct ap_sweep_run *run, bool done)
{
	struct sweep_cmd *c = ctx;
	char detail[128];
	uint64_t total = (uint64_t)c->nstarts * c->min_rounds;

	if (run->cur_round > c->min_rounds)
		total = (uint64_t)c->nstarts * run->cur_round;
	if (done) {
		if (c->save)
			save_doc(c, run, NULL);
		if (run->nresults && !run->results[run->nresults - 1].ok) {
			const struct ap_sweep_result *r = &run->results[run->nresults - 1];

			ap_progress_clear(&c->pg);
			ap_warnx(CMD, c->disk, "start %" PRIu64 ": %s failed: %s", r->start,
				 ap_sweep_stage_name(r->failed_stage), r->message ? r->message : "");
		}
		return;
	}
	snprintf(detail, sizeof(detail), "start %" PRIu64 " (%zu of %zu), round %u", run->cur_start,
		 run->cur_index, c->nstarts, run->cur_round);
	ap_progress_update(&c->pg, run->nresults, detail);
	c->pg.total = total;
}

static uint64_t default_part_size(const struct sweep_cmd *c)
{
	uint64_t sz = c->preset->part_size, need;
	uint64_t blk = (c->workload.size_hi + 4095) / 4096 * 4096;

	if (!c->workload_file)
		return sz;
	/* room for the files (twice over) and ext4's inodes (one per 16 KiB) */
	need = c->workload.number * 2 * (blk ? blk : 4096) + (64ULL << 20);
	if (c->workload.number * 16384 + (64ULL << 20) > need)
		need = c->workload.number * 16384 + (64ULL << 20);
	return need > sz ? need : sz;
}

static int prepare_workload(struct sweep_cmd *c)
{
	struct ap_error e = { 0 };

	ap_pm_config_init(&c->workload);
	c->workload_init = true;
	if (c->workload_file) {
		unsigned nloc = 0;

		/* a bad input file: 2 (the message names it) */
		if (ap_pm_config_load(&c->workload, c->workload_file, &nloc, &e) != 0)
			return ap_err_error(CMD, c->workload_file, &e);
		if (nloc && !c->quiet)
			ap_warnx(CMD, c->workload_file, "'set location' ignored: the workload runs "
				 "on the sweep's file system");
	} else {
		c->workload.number = c->preset->number;
		c->workload.transactions = c->preset->transactions;
		c->workload.size_lo = c->preset->size_lo;
		c->workload.size_hi = c->preset->size_hi;
		c->workload.read_block = c->preset->read_block;
		c->workload.write_block = c->preset->write_block;
		c->workload.buffering = false;
	}
	c->workload.sync = c->sync;
	return 0;
}

static void dry_run_outputs(const struct sweep_cmd *c)
{
	const struct ap_cmd_output outs[] = { { "--save", c->save }, { "--plot", c->plot },
					      { "--record", c->record_set ? c->record : NULL } };

	ap_cmd_dry_run_outputs(outs, AP_ARRAY_SIZE(outs));
}

static void print_plan(struct sweep_cmd *c, uint64_t part_sectors)
{
	char buf[256], *sz = ap_size_to_human(part_sectors * c->info.logical_sector);

	fmt_starts(buf, sizeof(buf), c->starts, c->nstarts, 40);
	printf("dry run: nothing written. The sweep would:\n"
	       "  on %s (%u-byte logical, %u-byte reported physical sectors),\n"
	       "  for each of %zu starts (%s), %u to %u rounds in a random order\n"
	       "  (seed %" PRIu64 "), budget %" PRIu64 "s:\n"
	       "    write a GPT with one partition of %s at exactly that start,\n"
	       "    %s it, mount it, run %s (number %" PRIu64 ", transactions %" PRIu64
	       ", sync %s), unmount;\n"
	       "  and leave an empty GPT.\n",
	       c->disk, c->info.logical_sector, c->info.physical_sector, c->nstarts, buf,
	       c->min_rounds, c->max_rounds, c->seed, (uint64_t)(c->budget_ns / AP_NSEC_PER_SEC), sz,
	       ap_mkfs_program(c->fs), c->workload_file ? c->workload_file : "the preset's workload",
	       c->workload.number, c->workload.transactions, ap_pm_sync_name(c->workload.sync));
	free(sz);
	dry_run_outputs(c);
}

/* "10 measurements (3 rounds and 1 of 3 starts of round 4)" */
static const char *fmt_count(const struct ap_sweep_run *run, char *buf, size_t len)
{
	size_t full = (size_t)run->rounds_done * run->nstarts;
	size_t extra = run->nresults > full ? run->nresults - full : 0;

	if (!extra)
		snprintf(buf, len, "%zu measurement%s (%u round%s)", run->nresults,
			 run->nresults == 1 ? "" : "s", run->rounds_done,
			 run->rounds_done == 1 ? "" : "s");
	else if (!run->rounds_done)
		snprintf(buf, len, "%zu measurement%s (%zu of %zu starts of round 1)", run->nresults,
			 run->nresults == 1 ? "" : "s", extra, run->nstarts);
	else
		snprintf(buf, len, "%zu measurements (%u round%s and %zu of %zu starts of round %u)",
			 run->nresults, run->rounds_done, run->rounds_done == 1 ? "" : "s", extra,
			 run->nstarts, run->rounds_done + 1);
	return buf;
}

static const char *stop_text(const struct ap_sweep_run *run, char *buf, size_t len)
{
	char t[32], cnt[128];

	ap_progress_format_eta(run->elapsed_ns, t, sizeof(t));
	fmt_count(run, cnt, sizeof(cnt));
	switch (run->stop) {
	case AP_SWEEP_STOP_CLEAR:
		if (run->verdict_valid && !run->verdict.resolved)
			snprintf(buf, len, "stopped after %s in %s: more rounds cannot change "
				 "the verdict", cnt, t);
		else
			snprintf(buf, len, "the verdict was clear after %s in %s", cnt, t);
		break;
	case AP_SWEEP_STOP_ROUNDS:
		snprintf(buf, len, "%u round%s done (%zu measurements) in %s, verdict not clear",
			 run->max_rounds, run->max_rounds == 1 ? "" : "s", run->nresults, t);
		break;
	case AP_SWEEP_STOP_BUDGET:
		snprintf(buf, len, "time budget spent after %s in %s, verdict not clear", cnt, t);
		break;
	case AP_SWEEP_STOP_SIGNAL:
		snprintf(buf, len, "interrupted by signal %d after %s in %s", run->signo, cnt, t);
		break;
	default:
		snprintf(buf, len, "stopped by an error after %s in %s", cnt, t);
		break;
	}
	return buf;
}

/* The sweep's hook on an emulated drive: its counters over each workload. */
struct emu_hook {
	const char *disk;
	struct ap_emu_counters c0;
};

static int emu_before(void *arg)
{
	struct emu_hook *h = arg;

	return ap_emu_counters_read(h->disk, &h->c0);
}

static void emu_after(void *arg, struct ap_sweep_result *r)
{
	struct emu_hook *h = arg;
	struct ap_emu_counters c1;

	if (ap_emu_counters_read(h->disk, &c1) != 0)
		return;
	r->has_emu = true;
	r->emu_writes = c1.writes - h->c0.writes;
	r->emu_rmw = c1.rmw - h->c0.rmw;
	r->emu_flushes = c1.flushes - h->c0.flushes;
}

static int do_sweep(struct sweep_cmd *c, int excl_fd)
{
	struct emu_hook eh = { .disk = c->disk };
	struct ap_sweep_opts o = { 0 };
	struct ap_sweep_run run;
	struct ap_sweep_doc d;
	struct ap_error e = { 0 };
	const struct ap_verdict *v;
	uint64_t part_sectors = c->part_size / c->info.logical_sector;
	char stopbuf[256];
	int rc, rc2, sig;

	o.disk = c->disk;
	o.starts = c->starts;
	o.nstarts = c->nstarts;
	o.part_sectors = part_sectors;
	o.fs = c->fs;
	o.mkfs_opts = c->mkfs_opts;
	o.nmkfs_opts = c->nmkfs_opts;
	o.mount_opts = c->mount_opts;
	o.workload = &c->workload;
	o.min_rounds = c->min_rounds;
	o.max_rounds = c->max_rounds;
	o.time_budget_ns = c->budget_ns;
	o.seed = c->seed;
	if (c->emulate) {
		o.hook.before = emu_before;
		o.hook.after = emu_after;
		o.hook.arg = &eh;
	}
	o.cancel = ap_sig_cancel;
	sweep_params(&o.analysis, c->info.logical_sector, c->info.physical_sector);
	o.excl_fd = excl_fd;
	o.on_step = on_step;
	o.ctx = c;

	ap_xasprintf(&c->what, "sweep %s", c->disk);
	ap_progress_init(&c->pg, c->what, (uint64_t)c->nstarts * c->min_rounds, c->quiet);
	rc = ap_sweep_run(&o, &run, &e);
	ap_progress_clear(&c->pg);
	if (rc) {
		ap_warnx(CMD, c->disk, "%s", e.msg);
		if (excl_fd >= 0)
			close(excl_fd);
		return AP_EXIT_FAILURE;
	}
	stop_text(&run, stopbuf, sizeof(stopbuf));
	if (c->save)
		save_doc(c, &run, ap_sweep_stop_name(run.stop));
	if (run.stop == AP_SWEEP_STOP_FATAL)
		ap_warnx(CMD, c->disk, "%s", run.fatal.msg);
	if (run.wipe_error.code)
		ap_warnx(CMD, c->disk, "could not leave an empty GPT: %s", run.wipe_error.msg);
	if (run.nfailed)
		ap_warnx(CMD, c->disk, "%zu of %zu measurements failed (see FAILED; not counted as slow)",
			 run.nfailed, run.nresults);
	if (!c->out.json && !c->out.raw && !c->out.csv)
		printf("Sweep of %s: %s.\n", c->disk, stopbuf);
	else if (!c->quiet && run.stop != AP_SWEEP_STOP_CLEAR)
		ap_warnx(CMD, c->disk, "%s", stopbuf);

	v = run.verdict_valid ? &run.verdict : NULL;
	doc_of_run(c, &run, &d);
	rc = report(c, &d, v, ap_sweep_stop_name(run.stop));

	/* a signal after the last step (analysis, wipe, report) still
	 * ends the run as interrupted: its report is complete, though */
	sig = run.stop == AP_SWEEP_STOP_SIGNAL ? run.signo : ap_sig_pending();
	if (sig)
		rc2 = AP_EXIT_SIGNAL_BASE + sig;
	else if (run.stop == AP_SWEEP_STOP_FATAL || run.nfailed || run.wipe_error.code)
		rc2 = AP_EXIT_FAILURE;
	else
		rc2 = verdict_exit(v);
	/* --record: a clean run's verdict (an unresolved one is said, not kept) */
	if (c->record_set && (rc2 == AP_EXIT_OK || rc2 == AP_EXIT_INCONCLUSIVE) &&
	    ap_fleet_record(CMD, c->record, "sweep", c->disk, &c->id, v, c->quiet) != 0)
		rc2 = AP_EXIT_FAILURE;
	if (rc2 != AP_EXIT_OK)
		rc = rc2;
	ap_sweep_run_free(&run);	/* closes the held descriptor */
	return rc;
}

/* Checks and plans shared by a device and the emulated drive. */
static int plan(struct sweep_cmd *c, uint64_t *part_sectors)
{
	struct ap_error e = { 0 };
	uint64_t last, avail, min;
	size_t i;

	if (ap_part_disk_info(c->disk, &c->info, &e) != 0) {
		ap_warnx(CMD, c->disk, "%s", e.msg);
		return AP_EXIT_FAILURE;
	}
	if (!c->starts)
		ap_sweep_default_starts(c->info.logical_sector, &c->starts, &c->nstarts);
	for (i = 0; i < c->nstarts; i++) {
		if (c->starts[i] < c->info.first_usable) {
			ap_usage_error(CMD, "start %" PRIu64 " is before the first sector a GPT "
				       "partition can use (%" PRIu64 " with %u-byte sectors)",
				       c->starts[i], c->info.first_usable, c->info.logical_sector);
			return AP_EXIT_USAGE;
		}
	}
	last = c->starts[c->nstarts - 1];
	if (last >= c->info.last_usable) {
		ap_usage_error(CMD, "start %" PRIu64 " is beyond the disk's last usable sector %" PRIu64,
			       last, c->info.last_usable);
		return AP_EXIT_USAGE;
	}
	avail = (c->info.last_usable - last + 1) * c->info.logical_sector;
	min = ap_mkfs_min_size(c->fs);
	if (min < (16ULL << 20))
		min = 16ULL << 20;
	if (!c->size_set) {
		c->part_size = default_part_size(c);
		if (c->part_size < min)
			c->part_size = min;
	}
	if (c->part_size > avail) {
		if (c->size_set) {
			char *a = ap_size_to_human(avail);

			ap_usage_error(CMD, "--size: a partition at start %" PRIu64 " can have at most %s",
				       last, a);
			free(a);
			return AP_EXIT_USAGE;
		}
		c->part_size = avail;
	}
	c->part_size -= c->part_size % 4096;	/* whole 4 KiB file-system blocks */
	if (c->part_size < min) {
		char *a = ap_size_to_human(c->part_size), *b = ap_size_to_human(min);

		if (c->size_set)
			ap_usage_error(CMD, "--size: %s is too small for %s (at least %s)", a, c->fs, b);
		else
			ap_warnx(CMD, c->disk, "too small: only %s fit after start %" PRIu64
				 "; %s needs at least %s", a, last, c->fs, b);
		free(a);
		free(b);
		return AP_EXIT_USAGE;	/* a device too small is bad input, as in probe */
	}
	*part_sectors = c->part_size / c->info.logical_sector;
	return 0;
}

/* --record: the disk's identity, which must state a model. 0 or an exit code. */
static int record_identity(struct sweep_cmd *c)
{
	struct ap_error e = { 0 };

	if (ap_identity_read_path(c->disk, NULL, &c->id, &e) != 0)
		return ap_err_error(CMD, c->disk, &e);
	return ap_fleet_record_check_disk(CMD, c->disk, &c->id);
}

static int run_device(struct sweep_cmd *c)
{
	struct ap_safety_opts so = { .yes = c->yes, .dry_run = c->dry_run,
				     .ask = ap_ui_confirm };
	struct ap_safety_target t;
	uint64_t part_sectors;
	int rc, fd;

	rc = ap_cmd_gate(CMD, c->device, &so, &t);
	if (rc)
		return rc;
	c->disk = t.dev ? t.dev : c->device;
	rc = plan(c, &part_sectors);
	if (!rc && c->record_set)
		rc = record_identity(c);
	if (!rc)
		rc = ap_cmd_confirm(CMD, c->device, &t, &so, NULL);
	if (rc || c->dry_run) {
		if (!rc)
			print_plan(c, part_sectors);
		ap_safety_target_free(&t);
		return rc;
	}
	c->params = make_params(c, part_sectors);
	fd = t.fd;
	t.fd = -1;
	c->disk = ap_xstrdup(c->disk);
	ap_safety_target_free(&t);
	rc = do_sweep(c, fd);
	free((char *)c->disk);
	c->disk = NULL;
	return rc;
}

static int run_emulated(struct sweep_cmd *c)
{
	struct ap_emu_spec spec;
	struct ap_emu *emu = NULL;
	struct ap_error e = { 0 };
	uint64_t part_sectors;
	int rc, fd;

	ap_emu_spec_init(&spec);
	spec.seed = c->seed;	/* SPEC's seed= before it */
	rc = ap_cmd_emu_spec(CMD, AP_CMD_EMU_DEFAULT_SPEC, c->emu_spec, true, &spec);
	if (rc)
		return rc;
	if (c->dry_run) {
		char *text = ap_cmd_emu_spec_text(c->emu_spec);

		ap_emu_spec_free(&spec);
		printf("dry run: would set up an emulated drive (%s) and sweep it;\n"
		       "nothing is written.\n", text);
		free(text);
		dry_run_outputs(c);
		return AP_EXIT_OK;
	}
	rc = ap_cmd_emu_attach(CMD, &spec, &emu);
	ap_emu_spec_free(&spec);
	if (rc)
		return rc;
	c->disk = ap_emu_device(emu);
	rc = ap_sig_pending() ? AP_EXIT_SIGNAL_BASE + ap_sig_pending() : plan(c, &part_sectors);
	if (!rc && c->record_set)
		rc = record_identity(c);
	if (!rc) {
		c->params = make_params(c, part_sectors);
		/* the drive is ours: no confirmation, but held like any disk */
		fd = ap_safety_open_excl(c->disk, O_RDWR);
		if (fd < 0) {
			ap_warnx(CMD, c->disk, "cannot open exclusively: %s", strerror(-fd));
			rc = AP_EXIT_FAILURE;
		} else {
			rc = do_sweep(c, fd);
		}
	}
	if (ap_emu_detach(emu, &e) != 0) {
		ap_warnx(CMD, NULL, "cannot tear down the emulated drive: %s", e.msg);
		if (rc == AP_EXIT_OK)
			rc = AP_EXIT_FAILURE;
	}
	c->disk = NULL;
	return rc;
}

int ap_cmd_sweep(int argc, char **argv)
{
	struct sweep_cmd c;
	struct ap_error e = { 0 };
	int rc;

	memset(&c, 0, sizeof(c));
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
	if ((rc = ap_cmd_check_dir(CMD, ap_mnt_parent(), "TMPDIR, for the mount points")) ||
	    (rc = ap_cmd_check_dir(CMD, ap_state_dir(), "the state directory")))
		goto out;
	if (c.record_set && (rc = ap_fleet_record_prepare(CMD, c.record, &c.record)) != 0)
		goto out;
	rc = prepare_workload(&c);
	if (rc)
		goto out;
	/* every check before anything is written */
	if (ap_mkfs_check(c.fs, &e) != 0) {
		ap_warnx(CMD, NULL, "%s", e.msg);
		rc = AP_EXIT_FAILURE;
		goto out;
	}
	ap_sig_install();
	rc = c.emulate ? run_emulated(&c) : run_device(&c);
out:
	if (c.save && rc >= 0 && ap_outfile_commit(&c.save_out, &e) != 0) {
		/* after the last update: closes, or writes a FIFO's content */
		ap_warnx(CMD, "--save", "%s", e.msg);
		if (rc == AP_EXIT_OK)
			rc = AP_EXIT_FAILURE;
	}
	ap_outfile_discard(&c.save_out);
	ap_outfile_discard(&c.plot_out);
	if (c.params)
		json_object_put(c.params);
	if (c.workload_init)
		ap_pm_config_free(&c.workload);
	ap_mkfs_free_opts(c.mkfs_opts, c.nmkfs_opts);
	ap_identity_free(&c.id);
	free(c.starts);
	free(c.what);
	if (rc < 0)
		return AP_EXIT_OK;	/* help, version, list of columns */
	return ap_cmd_close_stdout(CMD, rc);
}
