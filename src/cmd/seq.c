// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * alignprobe seq TARGET: the sequential throughput matrix, block size x
 * synchronization mode, on a device, a partition or a regular file.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/opts.h"
#include "cmd/seqP.h"
#include "device/safety.h"
#include "emu/emu.h"
#include "emu/model.h"
#include "lib/exitcodes.h"
#include "lib/outfile.h"
#include "lib/sig.h"
#include "lib/util.h"
#include "seq/seq.h"
#include "ui/confirm.h"
#include "ui/out.h"
#include "ui/progress.h"

#define CMD SEQ_CMD
#define SEQ_DEFAULT_CELL_NS	(10ULL * AP_NSEC_PER_SEC)

enum {
	OPT_OFFSET = AP_OPT_OUT_LAST,
	OPT_ROUNDS,
	OPT_SEED,
	OPT_DATA,
	OPT_CELL_TIME,
	OPT_VERIFY,
	OPT_KEEP,
	OPT_ALLOW_PARTITION,
	OPT_EMULATE,
	OPT_POOL,
	OPT_WRITE_CACHE,
};

static const struct option longopts[] = {
	{ "size",            required_argument, NULL, 's' },
	{ "block-sizes",     required_argument, NULL, 'B' },
	{ "modes",           required_argument, NULL, 'm' },
	{ "read",            no_argument,       NULL, 'R' },
	{ "offset",          required_argument, NULL, OPT_OFFSET },
	{ "rounds",          required_argument, NULL, OPT_ROUNDS },
	{ "seed",            required_argument, NULL, OPT_SEED },
	{ "data",            required_argument, NULL, OPT_DATA },
	{ "cell-time",       required_argument, NULL, OPT_CELL_TIME },
	{ "verify",          no_argument,       NULL, OPT_VERIFY },
	{ "keep",            no_argument,       NULL, OPT_KEEP },
	{ "allow-partition", no_argument,       NULL, OPT_ALLOW_PARTITION },
	{ "emulate",         optional_argument, NULL, OPT_EMULATE },
	{ "pool",            required_argument, NULL, OPT_POOL },
	{ "write-cache",     required_argument, NULL, OPT_WRITE_CACHE },
	{ NULL, 0, NULL, 0 }
};

/* what --help prints after "Usage:" (the option kit) */
static const char *const synopsis[] = {
	"[options] <target>",
	"[options] --emulate[=<spec>]",
	NULL
};

static void usage(void)
{
	FILE *f = stdout;
	unsigned i;

	fputs("Sequential throughput matrix: block size x synchronization mode, the dd\n"
	      "experiments done properly. TARGET is a whole disk, a partition\n"
	      "(--allow-partition) or a regular file.\n\n", f);
	fputs("Options:\n"
	      " -s, --size <size>        bytes written per cell (default 256M, capped by the target)\n"
	      "     --offset <offset>    where the region starts (default 0)\n"
	      " -B, --block-sizes <list>\n"
	      "                          e.g. 4K,64K,1M (default powers of 4 from 4K to 1G, <= size)\n"
	      " -m, --modes <list>       modes to run, or 'default', 'all' (default: default)\n"
	      " -R, --read               also the read cells: read-direct and read-cached\n"
	      "     --rounds <n>         runs per cell, the median is reported (default 1)\n"
	      "     --seed <n>           order of the runs and data (default 1)\n"
	      "     --data random|zero   data written (default random: xoshiro256+, generated ahead)\n"
	      "     --pool <size>        random data generated ahead; it repeats with this period\n"
	      "                          (default 4M, or the block size if larger; --pool=SIZE for\n"
	      "                          all-unique data, at the cost of copying from memory)\n"
	      "     --cell-time <duration>\n"
	      "                          stop a run after this long, e.g. 30s; 0 = never (default 10s)\n"
	      "     --verify             read back and compare after every write run (untimed)\n"
	      "     --keep               keep a file this run created\n"
	      "     --plot <file.svg>    MB/s by block size, one line per mode\n"
	      "     --write-cache <list>\n"
	      "                          on, off, or on,off: run the matrix once per state of\n"
	      "                          the drive's write cache, switched for the run and\n"
	      "                          restored after it (a SCSI disk or the emulated drive)\n"
	      " -y, --yes                no confirmation before writing a device\n"
	      "     --dry-run            check and plan, write nothing\n"
	      "     --allow-partition    accept a partition as TARGET\n"
	      "     --emulate[=<spec>]   run on an emulated drive set up for this run\n"
	      "                          (SPEC as for 'alignprobe emulate', e.g. cache=on,base=100us)\n"
	      " -q, --quiet              no progress line\n", f);
	ap_out_usage(f, 26);
	fputs(" -h, --help               display this help\n"
	      " -V, --version            display version\n\n", f);
	fputs("Modes (the time of a cell includes what the mode needs for its data to be\n"
	      "on stable storage; STABLE=no marks the modes that do NOT get there):\n", f);
	for (i = 0; i < AP_SEQ_NMODES; i++)
		fprintf(f, " %-14s %s%s\n                %s\n", ap_seq_modes[i].name,
			ap_seq_modes[i].stable ? "" : "[NOT STABLE] ",
			ap_seq_modes[i].help, ap_seq_modes[i].dd);
	fputs("\nA device goes through the safety gate: it is refused (exit 3) when mounted,\n"
	      "in use or held, and needs --yes or the device name typed at a terminal.\n"
	      "A regular file needs no confirmation: a missing file is created and removed\n"
	      "at the end (--keep keeps it); an existing file is never truncated, its\n"
	      "first SIZE bytes are overwritten (the default size is capped by the file's\n"
	      "length when it is not empty; a larger --size is refused). The region is\n"
	      "written once before the first run (not when an existing file's region is\n"
	      "already written, without holes).\n"
	      "Between runs the dirty data is synced and the target's page cache dropped\n"
	      "(untimed); the runs go in a seeded random order.\n\n", f);
	fputs("--write-cache switches the drive's volatile write cache the way the kernel\n"
	      "offers it: a SCSI disk's cache_type (a MODE SELECT, which the drive may\n"
	      "save), the emulated drive's cache model and its loop device's write_cache.\n"
	      "A disk without a way is refused (exit 2) before anything is written. The\n"
	      "state found is recorded in the state directory first and put back after\n"
	      "the run, after an error or a signal; after a SIGKILL, 'alignprobe cleanup'\n"
	      "puts it back.\n\n", f);
	fputs("-J/--json prints one document (with -o, the cells hold those columns only):\n"
	      "{\"target\", \"type\", \"emulated\", \"size\", \"offset\", \"data\", \"seed\", \"pool\",\n"
	      " \"rounds\", \"write_cache\": {\"disk\", \"sysfs\", \"drive\", \"found\", \"states\",\n"
	      " \"restored\"}, \"cells\": [{\"mode\", \"op\", \"bs\", \"bytes\", \"seconds\", \"mbps\",\n"
	      " \"iops\", \"ios\", \"stable\", \"knee\", \"runs\", \"partial\", \"dd\", \"wcache\"}],\n"
	      " \"knees\": {MODE: {\"bs\", \"mbps\", \"iops\", \"best_bs\", \"best_mbps\", \"stable\"}}\n"
	      " (with --write-cache: {\"on\": {MODE: ...}, \"off\": {MODE: ...}}), \"interrupted\"}\n\n", f);
	fprintf(f, "Available output columns:\n");
	for (i = 0; i < SEQ_NCOLS; i++)
		fprintf(f, " %8s  %s\n", ap_seq_cols[0].infos[i].name, ap_seq_cols[0].infos[i].help);
	fputs("\nExit status: 0 ok, 1 failure, 2 usage, 3 refused for safety, 6 not built,\n"
	      "128+N interrupted by signal N (the cells done so far are printed).\n", f);
}


static void seq_progress(void *arg, const struct ap_seq_result *r, const struct ap_seq_cell *cell)
{
	struct seq_cmd *c = arg;
	char detail[96], *bs = ap_size_to_human(cell->bs);

	snprintf(detail, sizeof(detail), "%s %s%s%s: %.1f MB/s", ap_seq_modes[cell->mode].name, bs,
		 cell->wc ? " cache " : "", cell->wc ? ap_seq_wc_name(cell->wc) : "",
		 cell->samples[cell->runs - 1]);
	free(bs);
	ap_progress_update(&c->prog, r->runs_done, detail);
}

/* What a run writes and how long a cell may take: 0, or AP_EXIT_USAGE. */
static int seq_data_opt(struct seq_cmd *c, int ch, const char *arg)
{
	switch (ch) {
	case OPT_DATA:
		if (ap_datagen_kind_parse(arg, &c->o.data) < 0) {
			ap_usage_error(CMD, "invalid --data '%s' (random or zero)", arg);
			return AP_EXIT_USAGE;
		}
		break;
	case OPT_CELL_TIME:
		if (!strcmp(arg, "0"))
			c->o.max_cell_ns = 0;
		else if (ap_parse_duration_ns(arg, &c->o.max_cell_ns) < 0 || !c->o.max_cell_ns) {
			ap_usage_error(CMD, "invalid --cell-time '%s' (e.g. 30s, or 0)", arg);
			return AP_EXIT_USAGE;
		}
		break;
	case OPT_POOL:
		if (ap_parse_size(arg, &c->o.pool_max) < 0 || c->o.pool_max < 4096 ||
		    c->o.pool_max % 4096) {
			ap_usage_error(CMD, "invalid --pool '%s' (a multiple of 4K)", arg);
			return AP_EXIT_USAGE;
		}
		break;
	}
	return 0;
}

/* The size of a run and how it runs: 0, or AP_EXIT_USAGE after the message. */
static int seq_run_opt(struct seq_cmd *c, int ch, const char *arg)
{
	uint64_t v;

	switch (ch) {
	case 's':
		if (ap_parse_size(arg, &c->o.size) < 0 || !c->o.size) {
			ap_usage_error(CMD, "invalid --size '%s'", arg);
			return AP_EXIT_USAGE;
		}
		c->size_set = true;
		break;
	case OPT_OFFSET:
		if (ap_parse_size(arg, &c->o.offset) < 0) {
			ap_usage_error(CMD, "invalid --offset '%s'", arg);
			return AP_EXIT_USAGE;
		}
		break;
	case OPT_ROUNDS:
		if (ap_parse_u64(arg, &v) < 0 || !v || v > 1000) {
			ap_usage_error(CMD, "invalid --rounds '%s' (1 to 1000)", arg);
			return AP_EXIT_USAGE;
		}
		c->o.rounds = (unsigned)v;
		break;
	case OPT_SEED:
		if (ap_parse_u64(arg, &c->o.seed) < 0) {
			ap_usage_error(CMD, "invalid --seed '%s'", arg);
			return AP_EXIT_USAGE;
		}
		break;
	default:
		return seq_data_opt(c, ch, arg);
	}
	return 0;
}

/* One of seq's own options: 0, or AP_EXIT_USAGE after the message. */
static int seq_opt(void *ctx, int ch, const char *arg)
{
	struct seq_cmd *c = ctx;

	switch (ch) {
	case 'B':
		c->bs_arg = arg;
		break;
	case 'm':
		c->modes_arg = arg;
		break;
	case 'R':
		c->read = true;
		break;
	case OPT_VERIFY:
		c->o.verify = true;
		break;
	case OPT_KEEP:
		c->keep = true;
		break;
	case OPT_WRITE_CACHE:
		c->wc_arg = arg;
		break;
	case OPT_ALLOW_PARTITION:
		c->so.allow_partition = true;
		break;
	case OPT_EMULATE:
		c->emulate = true;
		c->emu_spec = arg;
		break;
	default:
		return seq_run_opt(c, ch, arg);
	}
	return 0;
}

/* The output options and what they depend on (--write-cache's columns). */
static int seq_output_args(struct seq_cmd *c)
{
	struct ap_error e = { 0 };
	int rc = ap_opts_out_check(CMD, &c->out);

	if (rc)
		return rc;
	if (c->dry_run && c->out.json) {
		/* the plan is text: no JSON consumer should be handed it */
		ap_usage_error(CMD, "--dry-run prints its plan as text: -J/--json cannot go with it");
		return AP_EXIT_USAGE;
	}
	rc = ap_opts_list_columns(&c->out, &ap_seq_cols[0]);
	if (rc)
		return rc;
	if (c->wc_arg && ap_seq_wc_parse(c->wc_arg, c->o.wc, &c->o.nwc, &e) < 0) {
		ap_usage_error(CMD, "--write-cache: %s", e.msg);
		return AP_EXIT_USAGE;
	}
	return ap_opts_columns(CMD, &c->out, &ap_seq_cols[c->o.nwc != 0], c->cols, &c->ncols);
}

/* TARGET or --emulate, then the matrix: modes and block sizes. */
static int seq_operands(struct seq_cmd *c, int argc, char **argv)
{
	struct ap_error e = { 0 };

	if (c->emulate) {
		if (optind < argc) {
			ap_usage_error(CMD, "--emulate and a TARGET ('%s') exclude each other",
				       argv[optind]);
			return AP_EXIT_USAGE;
		}
	} else if (optind + 1 != argc) {
		ap_usage_error(CMD, optind < argc ? "one TARGET only" : "no TARGET given");
		return AP_EXIT_USAGE;
	} else if (!argv[optind][0]) {
		ap_usage_error(CMD, "an empty TARGET: name a file or a device");
		return AP_EXIT_USAGE;
	} else {
		c->target = argv[optind];
	}
	if (c->modes_arg) {
		if (ap_seq_modes_parse(c->modes_arg, &c->o.modes, &e) < 0) {
			ap_usage_error(CMD, "--modes: %s", e.msg);
			return AP_EXIT_USAGE;
		}
	} else {
		ap_seq_modes_parse("default", &c->o.modes, NULL);
	}
	if (c->read)
		c->o.modes |= (1u << AP_SEQ_READ_DIRECT) | (1u << AP_SEQ_READ_CACHED);
	if (c->bs_arg && ap_seq_bs_parse(c->bs_arg, &c->bs, &c->nbs, &e) < 0) {
		ap_usage_error(CMD, "--block-sizes: %s", e.msg);
		return AP_EXIT_USAGE;
	}
	return 0;
}

static int seq_parse_args(struct seq_cmd *c, int argc, char **argv)
{
	const struct ap_opt common[] = {
		AP_OPT_PLOT(&c->plot), AP_OPT_YES(&c->so.yes), AP_OPT_DRY_RUN(&c->dry_run),
		AP_OPT_QUIET(&c->quiet), AP_OPT_HELP(usage), AP_OPT_VERSION,
		AP_OPT_OUTPUT(&c->out), AP_OPT_END
	};
	const struct ap_opts p = {
		.cmd = CMD, .synopsis = synopsis, .common = common, .longopts = longopts, .shortopts = "s:B:m:R",
		.own = seq_opt, .ctx = c,
	};
	int rc;

	c->o.rounds = 1;
	c->o.seed = 1;
	c->o.data = AP_DATAGEN_RANDOM;
	c->o.max_cell_ns = SEQ_DEFAULT_CELL_NS;
	c->o.cancel = ap_sig_cancel;
	ap_seq_wcache_init(&c->wc, &c->o);
	rc = ap_opts_parse(&p, argc, argv);
	c->so.dry_run = c->dry_run;
	if (!rc)
		rc = seq_output_args(c);
	if (!rc)
		rc = seq_operands(c, argc, argv);
	return rc;
}

/* Size and block sizes once the target's capacity is known: 0, or 2 after the message. */
static int seq_finish_opts(struct seq_cmd *c, const struct ap_seq_target *t)
{
	struct ap_error e = { 0 };
	int rc = ap_seq_fit(&c->o, t, c->size_set, &c->bs, &c->nbs, &e);

	if (rc == -ENOSPC)
		ap_warnx(CMD, c->target, "%s", e.msg);
	else if (rc)
		ap_usage_error(CMD, "%s", e.msg);
	return rc ? AP_EXIT_USAGE : 0;
}

/* --emulate --dry-run: the size and cell checks on the spec's drive; 0 or 2. */
static int seq_dry_run_emulated(struct seq_cmd *c, const struct ap_emu_spec *spec)
{
	struct ap_seq_target t;
	struct ap_seq_result r = { 0 };
	struct ap_error e = { 0 };
	int rc;

	ap_seq_target_planned(&t, "the emulated drive", spec->capacity, spec->logical_sector);
	c->target = t.path;
	rc = seq_finish_opts(c, &t);
	if (!rc && ap_seq_plan(&t, &c->o, &r, &e) < 0) {
		ap_warnx(CMD, t.path, "%s", e.msg);
		rc = AP_EXIT_USAGE;
	}
	ap_seq_result_free(&r);
	c->target = NULL;
	return rc;
}

static void seq_dry_run_outputs(const struct seq_cmd *c)
{
	const struct ap_cmd_output outs[] = { { "--plot", c->plot } };

	ap_cmd_dry_run_outputs(outs, AP_ARRAY_SIZE(outs));
}

/* Put the write cache back as found and drop the record: 0, or -errno after a message. */
static int seq_wc_restore(struct seq_cmd *c)
{
	struct ap_error e = { 0 };
	int rc = ap_seq_wcache_restore(&c->wc, &e);

	if (rc < 0)
		ap_warnx(CMD, c->target, "cannot restore the write cache (\"%s\"): %s; "
			 "'alignprobe cleanup' puts it back", c->wc.ctl.w.orig, e.msg);
	return rc;
}

static void seq_print_plan(struct seq_cmd *c, struct ap_seq_result *r)
{
	char *sz = ap_size_to_human(c->o.size);
	uint64_t total = ap_seq_plan_bytes(&c->o, r);
	size_t i;

	printf("dry run: %s: %zu cell%s x %u round%s, %s per cell, %llu bytes moved in all (at most);"
	       " nothing was written\n", c->target, r->ncells, r->ncells == 1 ? "" : "s",
	       c->o.rounds, c->o.rounds == 1 ? "" : "s", sz, (unsigned long long)total);
	for (i = 0; i < r->ncells; i++) {
		char *bs = ap_size_to_human(r->cells[i].bs);
		char *dd = ap_seq_dd_line(r->cells[i].mode, r->cells[i].bs);

		if (c->o.nwc)
			printf("  cache %-4s", ap_seq_wc_name(r->cells[i].wc));
		printf("  %-14s %6s  %s\n", ap_seq_modes[r->cells[i].mode].name, bs, dd);
		free(dd);
		free(bs);
	}
	free(sz);
	if (c->o.nwc)
		printf("would switch the write cache of /dev/%s (%s, now \"%s\") and restore it\n",
		       c->wc.ctl.w.disk, ap_wcache_how_name(c->wc.ctl.w.how), c->wc.ctl.w.orig);
	seq_dry_run_outputs(c);
}

/*
 * The target through the gate (a device) or the file checks (a file):
 * 0 with *@is_bdev and, for a device, *@hold and @st; else the exit code.
 */
static int seq_gate(struct seq_cmd *c, struct ap_safety_target *st, int *hold, bool *is_bdev)
{
	struct ap_error e = { 0 };
	int rc;

	if (ap_seq_target_classify(c->target, c->dry_run, is_bdev, &e) < 0)
		return ap_err_error(CMD, c->target, &e);
	if (!*is_bdev)
		return 0;
	/* the gate first: it takes the device O_EXCL before its checks */
	rc = ap_cmd_gate(CMD, c->target, &c->so, st);
	if (rc)
		return rc;	/* 3, or 2 */
	*hold = st->fd;
	st->fd = -1;
	return 0;
}

/* Open the target (a dry run on a file: only its size): 0, or 2 after the message. */
static int seq_open(struct seq_cmd *c, struct ap_seq_target *t, int hold, bool is_bdev,
		    struct ap_safety_target *st)
{
	struct ap_error e = { 0 };

	if (ap_seq_target_prepare(t, c->target, hold, is_bdev, c->dry_run, &e) < 0) {
		if (hold >= 0)
			close(hold);
		ap_safety_target_free(st);
		return ap_err_error(CMD, c->target, &e);	/* cannot create: 2 */
	}
	return 0;
}

/* Every check before anything is written, the confirmation last: 0 or the exit code. */
static int seq_prepare(struct seq_cmd *c, struct ap_seq_target *t, struct ap_seq_result *r,
		       const struct ap_safety_target *st, bool is_bdev)
{
	struct ap_error e = { 0 };
	int rc = seq_finish_opts(c, t);

	if (!rc && ap_seq_plan(t, &c->o, r, &e) < 0) {
		ap_warnx(CMD, c->target, "%s", e.msg);
		rc = AP_EXIT_USAGE;
	}
	if (!rc && c->o.nwc &&
	    ap_seq_wcache_find(&c->wc, t, is_bdev, &ap_cmd_emu_cache, &e) < 0)
		rc = ap_err_error(CMD, c->target, &e);
	if (!rc && is_bdev && !c->emulate)
		rc = ap_cmd_confirm(CMD, c->target, st, &c->so, NULL);
	return rc;
}

/* The write cache before the first run: 0, or AP_EXIT_FAILURE after the message. */
static int seq_wc_before(struct seq_cmd *c, const struct ap_seq_target *t)
{
	struct ap_error e = { 0 };

	if (ap_seq_wcache_before(&c->wc, &c->o, t, &e) < 0) {
		ap_warnx(CMD, c->target, "%s", e.msg);
		return AP_EXIT_FAILURE;
	}
	return 0;
}

/* The runs, the cache put back after them: the exit status so far. */
static int seq_run_cells(struct seq_cmd *c, struct ap_seq_target *t, struct ap_seq_result *r,
			 bool *interrupted)
{
	struct ap_error e = { 0 };
	char what[PATH_MAX + 8];
	int rc, ret = AP_EXIT_OK;

	snprintf(what, sizeof(what), "seq %s", c->target);
	ap_progress_init(&c->prog, what, r->runs_total, c->quiet);
	rc = ap_seq_run(t, &c->o, r, seq_progress, c, &e);
	ap_progress_clear(&c->prog);
	/* put the cache back whatever happened: done, an error, a signal */
	if (c->o.nwc && seq_wc_restore(c) < 0)
		ret = AP_EXIT_FAILURE;
	if (rc == -EINTR || ap_sig_pending()) {
		*interrupted = true;
		ret = AP_EXIT_SIGNAL_BASE + (ap_sig_pending() ? ap_sig_pending() : 2);
		ap_warnx(CMD, c->target, "interrupted after %zu of %zu runs; printing the cells done",
			 r->runs_done, r->runs_total);
	} else if (rc < 0) {
		ap_warnx(CMD, c->target, "%s", e.msg);
		ret = AP_EXIT_FAILURE;	/* a failed restore said so already */
		if (r->runs_done)
			ap_warnx(CMD, c->target, "printing the %zu runs done before the error",
				 r->runs_done);
	}
	return ret;
}

/* The cells as a table (with the human head and tail) or JSON, and the plot: 0 or -1. */
static int seq_print(struct seq_cmd *c, const struct ap_seq_target *t, struct ap_seq_result *r,
		     bool interrupted)
{
	bool human = !c->out.json && !c->out.raw && !c->out.csv && !c->out.noheadings;
	int rc;

	ap_seq_knees(&c->o, r, c->knee);
	if (c->out.json) {
		rc = ap_seq_out_json(c, t, r, interrupted);
	} else {
		if (human)
			ap_seq_out_head(c, t);
		rc = ap_seq_out_table(c, r);
		if (human)
			ap_seq_out_tail(c, r);
	}
	if (c->plot && r->runs_done && ap_seq_out_plot(c, r) < 0)
		rc = -1;
	return rc < 0 ? -1 : 0;
}

static int seq_main(struct seq_cmd *c)
{
	struct ap_safety_target st = { .fd = -1 };
	struct ap_seq_target t = { .fd = -1 };
	struct ap_seq_result r = { 0 };
	bool is_bdev, interrupted = false;
	int hold = -1, rc, ret;

	rc = seq_gate(c, &st, &hold, &is_bdev);
	if (!rc)
		rc = seq_open(c, &t, hold, is_bdev, &st);
	if (rc)
		return rc;
	rc = seq_prepare(c, &t, &r, &st, is_bdev);
	ap_safety_target_free(&st);
	if (!rc && c->dry_run) {
		seq_print_plan(c, &r);
		ap_seq_result_free(&r);
		if (is_bdev)
			ap_seq_target_close(&t, true);
		else
			free(t.path);
		return AP_EXIT_OK;
	}
	if (rc) {
		ap_seq_result_free(&r);
		if (c->dry_run && !is_bdev)
			free(t.path);
		else
			ap_seq_target_close(&t, c->keep);
		return rc;
	}
	rc = seq_wc_before(c, &t);
	if (rc) {
		ap_seq_result_free(&r);
		ap_seq_target_close(&t, c->keep);
		return rc;
	}
	ret = seq_run_cells(c, &t, &r, &interrupted);
	if (seq_print(c, &t, &r, interrupted) < 0 && ret == AP_EXIT_OK)
		ret = AP_EXIT_FAILURE;
	ap_seq_result_free(&r);
	if (ap_seq_target_close(&t, c->keep) < 0 && ret == AP_EXIT_OK) {
		ap_warnx(CMD, c->target, "cannot close or remove: %s", strerror(errno));
		ret = AP_EXIT_FAILURE;
	}
	return ret;
}

int ap_cmd_seq(int argc, char **argv)
{
	struct seq_cmd c;
	struct ap_emu *emu = NULL;
	struct ap_error e = { 0 };
	int rc;

	memset(&c, 0, sizeof(c));
	c.so.ask = ap_ui_confirm;	/* the gate asks through it */
	rc = seq_parse_args(&c, argc, argv);
	if (rc) {
		free(c.bs);
		return rc < 0 ? AP_EXIT_OK : rc;
	}
	/* the plot first: a path that cannot be written is exit 2, with nothing done */
	if (c.plot && (rc = ap_cmd_open_output(CMD, &c.plot_out, c.plot)) != 0) {
		free(c.bs);
		return rc;
	}
	if (c.plot && c.target && ap_outfile_is(&c.plot_out, c.target)) {
		ap_warnx(CMD, c.plot, "the plot would replace the target itself");
		ap_outfile_discard(&c.plot_out);
		free(c.bs);
		return AP_EXIT_USAGE;
	}
	ap_sig_install();
	if (c.emulate) {
		struct ap_emu_spec spec;

		/* the emulator's own defaults, not probe's and sweep's */
		ap_emu_spec_init(&spec);
		rc = ap_cmd_emu_spec(CMD, NULL, c.emu_spec, true, &spec);
		if (rc) {
			free(c.bs);
			ap_outfile_discard(&c.plot_out);
			return rc;
		}
		if (c.dry_run) {
			char *text = ap_emu_spec_format(&spec);

			/* every check of the run, on the drive the spec describes */
			rc = seq_dry_run_emulated(&c, &spec);
			if (rc) {
				free(text);
				ap_emu_spec_free(&spec);
				free(c.bs);
				ap_outfile_discard(&c.plot_out);
				return rc;
			}
			ap_emu_spec_free(&spec);
			free(c.bs);
			printf("dry run: would set up an emulated drive (%s) and run on it;\n"
			       "nothing is written.\n", text);
			free(text);
			seq_dry_run_outputs(&c);
			ap_outfile_discard(&c.plot_out);
			return AP_EXIT_OK;
		}
		rc = ap_cmd_emu_attach(CMD, &spec, &emu);
		ap_emu_spec_free(&spec);
		if (rc) {
			free(c.bs);
			ap_outfile_discard(&c.plot_out);
			return rc;
		}
		c.target = ap_emu_device(emu);
		c.so.yes = true;	/* ours */
	}
	rc = seq_main(&c);
	if (emu && ap_emu_detach(emu, &e) < 0) {
		ap_warnx(CMD, c.target, "cannot tear down the emulated drive: %s", e.msg);
		if (rc == AP_EXIT_OK)
			rc = AP_EXIT_FAILURE;
	}
	ap_outfile_discard(&c.plot_out);	/* not written: the target is untouched */
	free(c.bs);
	ap_seq_wcache_free(&c.wc);
	return ap_cmd_close_stdout(CMD, rc);
}
