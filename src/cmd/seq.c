// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * alignprobe seq TARGET: the sequential throughput matrix, block size x
 * synchronization mode, on a device, a partition or a regular file.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>

#include "cmd/commands.h"
#include "device/safety.h"
#include "device/sgio.h"
#include "emu/emu.h"
#include "emu/model.h"
#include "lib/exitcodes.h"
#include "lib/outfile.h"
#include "lib/sig.h"
#include "lib/util.h"
#include "seq/seq.h"
#include "ui/confirm.h"
#include "ui/out.h"
#include "ui/plot.h"
#include "ui/progress.h"

#define CMD "seq"
#define SEQ_DEFAULT_SIZE	(256ULL << 20)
#define SEQ_DEFAULT_CELL_NS	(10ULL * AP_NSEC_PER_SEC)

enum {
	COL_MODE, COL_OP, COL_BS, COL_BYTES, COL_SECONDS, COL_MBPS, COL_IOPS,
	COL_STABLE, COL_KNEE, COL_RUNS, COL_PARTIAL, COL_DD, COL_IOS,
};

static const struct ap_colinfo infos[] = {
	[COL_MODE]    = { "MODE", 13, 0, AP_COL_STRING, "synchronization mode (none, sync-after, fdatasync, dsync, sync, direct, ...)" },
	[COL_OP]      = { "OP", 5, 0, AP_COL_STRING, "write or read" },
	[COL_BS]      = { "BS", 6, SCOLS_FL_RIGHT, AP_COL_SIZE, "block size" },
	[COL_BYTES]   = { "BYTES", 6, SCOLS_FL_RIGHT, AP_COL_SIZE, "bytes moved in the reported run" },
	[COL_SECONDS] = { "SECONDS", 8, SCOLS_FL_RIGHT, AP_COL_NUMBER, "time of the reported run, including the mode's sync", .fmt = "%.6f" },
	[COL_MBPS]    = { "MBPS", 8, SCOLS_FL_RIGHT, AP_COL_NUMBER, "throughput, 10^6 bytes per second (median run)", .fmt = "%.1f" },
	[COL_IOPS]    = { "IOPS", 8, SCOLS_FL_RIGHT, AP_COL_NUMBER, "blocks per second", .fmt = "%.0f" },
	[COL_STABLE]  = { "STABLE", 6, 0, AP_COL_BOOLEAN, "the data was on stable storage when the timer stopped" },
	[COL_KNEE]    = { "KNEE", 4, 0, AP_COL_BOOLEAN, "smallest block size within 5% of the mode's best" },
	[COL_RUNS]    = { "RUNS", 4, SCOLS_FL_RIGHT, AP_COL_NUMBER, "completed runs (--rounds)" },
	[COL_PARTIAL] = { "PARTIAL", 7, 0, AP_COL_BOOLEAN, "the run stopped at --cell-time before the full size" },
	[COL_DD]      = { "DD", 30, SCOLS_FL_TRUNC, AP_COL_STRING, "the dd command line this mode corresponds to" },
	[COL_IOS]     = { "IOS", 8, SCOLS_FL_RIGHT, AP_COL_NUMBER, "blocks moved in the reported run" },
};

static const int default_cols[] = {
	COL_MODE, COL_BS, COL_BYTES, COL_SECONDS, COL_MBPS, COL_IOPS, COL_STABLE, COL_KNEE,
};

/* The keys of the "cells" objects without -o, in their documented order. */
static const int json_cols[] = {
	COL_MODE, COL_OP, COL_BS, COL_BYTES, COL_SECONDS, COL_MBPS, COL_IOPS, COL_IOS,
	COL_STABLE, COL_KNEE, COL_RUNS, COL_PARTIAL, COL_DD,
};

enum {
	OPT_OFFSET = AP_OPT_OUT_LAST,
	OPT_ROUNDS,
	OPT_SEED,
	OPT_DATA,
	OPT_CELL_TIME,
	OPT_VERIFY,
	OPT_KEEP,
	OPT_PLOT,
	OPT_DRY_RUN,
	OPT_ALLOW_PARTITION,
	OPT_EMULATE,
	OPT_POOL,
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
	{ "plot",            required_argument, NULL, OPT_PLOT },
	{ "yes",             no_argument,       NULL, 'y' },
	{ "dry-run",         no_argument,       NULL, OPT_DRY_RUN },
	{ "allow-partition", no_argument,       NULL, OPT_ALLOW_PARTITION },
	{ "emulate",         optional_argument, NULL, OPT_EMULATE },
	{ "pool",            required_argument, NULL, OPT_POOL },
	{ "quiet",           no_argument,       NULL, 'q' },
	{ "help",            no_argument,       NULL, 'h' },
	{ "version",         no_argument,       NULL, 'V' },
	AP_OUT_LONGOPTS,
	{ NULL, 0, NULL, 0 }
};

static void usage(void)
{
	FILE *f = stdout;
	unsigned i;

	fprintf(f, "Usage:\n %s %s [options] TARGET\n %s %s [options] --emulate[=SPEC]\n\n",
		AP_PROG, CMD, AP_PROG, CMD);
	fputs("Sequential throughput matrix: block size x synchronization mode, the dd\n"
	      "experiments done properly. TARGET is a whole disk, a partition\n"
	      "(--allow-partition) or a regular file.\n\n", f);
	fputs("Options:\n"
	      " -s, --size SIZE          bytes written per cell (default 256M, capped by the target)\n"
	      "     --offset OFFSET      where the region starts (default 0)\n"
	      " -B, --block-sizes LIST   e.g. 4K,64K,1M (default powers of 4 from 4K to 1G, <= size)\n"
	      " -m, --modes LIST         modes to run, or 'default', 'all' (default: default)\n"
	      " -R, --read               also the read cells: read-direct and read-cached\n"
	      "     --rounds N           runs per cell, the median is reported (default 1)\n"
	      "     --seed N             order of the runs and data (default 1)\n"
	      "     --data random|zero   data written (default random: xoshiro256+, generated ahead)\n"
	      "     --pool SIZE          random data generated ahead; it repeats with this period\n"
	      "                          (default 4M, or the block size if larger; --pool=SIZE for\n"
	      "                          all-unique data, at the cost of copying from memory)\n"
	      "     --cell-time DURATION stop a run after this long, e.g. 30s; 0 = never (default 10s)\n"
	      "     --verify             read back and compare after every write run (untimed)\n"
	      "     --keep               keep a file this run created\n"
	      "     --plot FILE.svg      MB/s by block size, one line per mode\n"
	      " -y, --yes                no confirmation before writing a device\n"
	      "     --dry-run            check and plan, write nothing\n"
	      "     --allow-partition    accept a partition as TARGET\n"
	      "     --emulate[=SPEC]     run on an emulated drive set up for this run\n"
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
	fputs("-J/--json prints one document (with -o, the cells hold those columns only):\n"
	      "{\"target\", \"type\", \"emulated\", \"size\", \"offset\", \"data\", \"seed\", \"pool\",\n"
	      " \"rounds\", \"write_cache\": {\"disk\", \"sysfs\", \"drive\"}, \"cells\": [{\"mode\", \"op\",\n"
	      " \"bs\", \"bytes\", \"seconds\", \"mbps\", \"iops\", \"ios\", \"stable\", \"knee\", \"runs\",\n"
	      " \"partial\", \"dd\"}], \"knees\": {MODE: {\"bs\", \"mbps\", \"iops\", \"best_bs\",\n"
	      " \"best_mbps\", \"stable\"}}, \"interrupted\"}\n\n", f);
	fprintf(f, "Available output columns:\n");
	for (i = 0; i < AP_ARRAY_SIZE(infos); i++)
		fprintf(f, " %8s  %s\n", infos[i].name, infos[i].help);
	fputs("\nExit status: 0 ok, 1 failure, 2 usage, 3 refused for safety, 6 not built,\n"
	      "128+N interrupted by signal N (the cells done so far are printed).\n", f);
}

struct seq_cmd {
	struct ap_out out;
	int cols[AP_ARRAY_SIZE(infos) * 2];
	size_t ncols;
	struct ap_seq_opts o;
	uint64_t *bs;
	size_t nbs;
	bool size_set, read, quiet, keep, dry_run, emulate;
	struct ap_safety_opts so;
	const char *plot, *modes_arg, *bs_arg, *emu_spec;
	struct ap_outfile plot_out;	/* opened before anything is written */
	const char *target;
	char *wc_sysfs, *wc_drive;
	int knee[AP_SEQ_NMODES];
	struct ap_progress prog;
};

/* Knees per mode, from the planned cells (ascending block sizes). */
static void seq_knees(struct seq_cmd *c, struct ap_seq_result *r)
{
	unsigned m;

	for (m = 0; m < AP_SEQ_NMODES; m++) {
		uint64_t bs[64];
		double v[64];
		size_t n = 0, i;
		int k;

		c->knee[m] = -1;
		for (i = 0; i < r->ncells && n < 64; i++) {
			if (r->cells[i].mode != m)
				continue;
			bs[n] = r->cells[i].bs;
			v[n++] = r->cells[i].runs ? r->cells[i].mbps : NAN;
		}
		k = ap_seq_knee(bs, v, n, AP_SEQ_KNEE_TOLERANCE);
		if (k >= 0) {
			struct ap_seq_cell *cell = ap_seq_cell_find(r, (enum ap_seq_mode)m, bs[k]);

			c->knee[m] = (int)(cell - r->cells);
		}
	}
}

static const struct ap_seq_cell *seq_best(const struct ap_seq_result *r, unsigned m)
{
	const struct ap_seq_cell *best = NULL;
	size_t i;

	for (i = 0; i < r->ncells; i++)
		if (r->cells[i].mode == m && r->cells[i].runs &&
		    (!best || r->cells[i].mbps > best->mbps))
			best = &r->cells[i];
	return best;
}

static void seq_cols(const struct seq_cmd *c, struct ap_cols *cs)
{
	ap_cols_init(cs, &c->out, infos, AP_ARRAY_SIZE(infos), c->cols, c->ncols,
		     json_cols, AP_ARRAY_SIZE(json_cols));
}

/* Cell @i, every column: a table line and an object of "cells". */
static void seq_fill_row(const struct seq_cmd *c, struct ap_row *row, const struct ap_seq_result *r,
			 size_t i)
{
	const struct ap_seq_cell *cell = &r->cells[i];
	const struct ap_seq_modeinfo *mi = &ap_seq_modes[cell->mode];
	char *dd = ap_seq_dd_line(cell->mode, cell->bs);

	ap_row_reset(row);
	ap_row_str(row, COL_MODE, mi->name);
	ap_row_str(row, COL_OP, mi->read ? "read" : "write");
	ap_row_u64(row, COL_BS, cell->bs);
	ap_row_u64(row, COL_BYTES, cell->bytes);
	ap_row_double(row, COL_SECONDS, (double)cell->ns / 1e9);
	ap_row_double(row, COL_MBPS, cell->mbps);
	ap_row_double(row, COL_IOPS, cell->iops);
	ap_row_bool(row, COL_STABLE, mi->stable);
	ap_row_bool(row, COL_KNEE, c->knee[cell->mode] == (int)i);
	ap_row_u64(row, COL_RUNS, cell->runs);
	ap_row_bool(row, COL_PARTIAL, cell->partial);
	ap_row_str(row, COL_DD, dd);
	ap_row_u64(row, COL_IOS, cell->ios);
	free(dd);
}

static int seq_print_table(struct seq_cmd *c, struct ap_seq_result *r)
{
	struct libscols_table *tb;
	struct ap_cols cs;
	struct ap_row row;
	size_t i;
	int rc;

	seq_cols(c, &cs);
	tb = ap_cols_table_new(&cs, "cells");
	ap_row_init(&row, &cs);
	for (i = 0; i < r->ncells; i++) {
		if (!r->cells[i].runs)
			continue;
		seq_fill_row(c, &row, r, i);
		if (ap_row_add_line(&row, tb) != 0) {
			ap_warnx(CMD, NULL, "cannot allocate a table line");
			exit(AP_EXIT_FAILURE);
		}
	}
	ap_row_free(&row);
	rc = ap_out_print(&c->out, tb);
	scols_unref_table(tb);
	return rc;
}

static void seq_print_human_head(struct seq_cmd *c, const struct ap_seq_target *t)
{
	char *sz = ap_size_to_human(c->o.size);

	printf("target: %s (%s), %s per cell, data %s, seed %llu, %u round%s, runs in random order\n",
	       c->target, c->emulate ? "emulated drive" : t->is_bdev ? "block device" : "regular file", sz,
	       ap_datagen_kind_name(c->o.data), (unsigned long long)c->o.seed,
	       c->o.rounds, c->o.rounds == 1 ? "" : "s");
	printf("write cache: kernel (sysfs queue/write_cache%s%s): %s; drive: %s\n",
	       t->disk ? " of " : "", t->disk ? t->disk : "",
	       c->wc_sysfs ? c->wc_sysfs : "not available", c->wc_drive);
	free(sz);
}

static void seq_print_human_tail(struct seq_cmd *c, struct ap_seq_result *r)
{
	bool unstable = false, head = false;
	unsigned m, np;

	for (m = 0; m < AP_SEQ_NMODES; m++) {
		const struct ap_seq_cell *best = seq_best(r, m), *k;
		char *kb, *bb;

		if (c->knee[m] < 0 || !best)
			continue;
		if (!head) {
			printf("\nknee (smallest block size within 5%% of the mode's best):\n");
			head = true;
		}
		k = &r->cells[c->knee[m]];
		kb = ap_size_to_human(k->bs);
		bb = ap_size_to_human(best->bs);
		printf("  %-14s %6s  %9.1f MB/s %8.0f IOPS   (best %.1f MB/s at %s)\n",
		       ap_seq_modes[m].name, kb, k->mbps, k->iops, best->mbps, bb);
		free(kb);
		free(bb);
		if (!ap_seq_modes[m].stable)
			unstable = true;
	}
	for (m = 0, np = 0; m < r->ncells; m++)
		np += r->cells[m].runs && r->cells[m].partial;
	if (np)
		printf("\n%u cell%s stopped at --cell-time before the full size (BYTES shows what %s moved)\n",
		       np, np == 1 ? "" : "s", np == 1 ? "it" : "they");
	if (unstable) {
		printf("\nNOT on stable storage when the timer stopped (STABLE=no):\n");
		if (seq_best(r, AP_SEQ_NONE))
			printf("  none: page cache only, what plain dd reports; compare fdatasync or direct\n");
		if (seq_best(r, AP_SEQ_DIRECT_NOSYNC))
			printf("  direct-nosync: may still sit in the drive's volatile write cache; compare direct\n");
	}
}

static struct json_object *json_str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static int seq_print_json(struct seq_cmd *c, const struct ap_seq_target *t,
			  struct ap_seq_result *r, bool interrupted)
{
	struct json_object *doc = json_object_new_object();
	struct json_object *wc = json_object_new_object();
	struct json_object *cells = json_object_new_array();
	struct json_object *knees = json_object_new_object();
	struct ap_cols cs;
	struct ap_row row;
	size_t i;
	unsigned m;
	int rc;

	json_object_object_add(doc, "target", json_object_new_string(c->target));
	json_object_object_add(doc, "type", json_object_new_string(t->is_bdev ? "device" : "file"));
	json_object_object_add(doc, "emulated", json_object_new_boolean(c->emulate));
	json_object_object_add(doc, "size", json_object_new_uint64(c->o.size));
	json_object_object_add(doc, "offset", json_object_new_uint64(c->o.offset));
	json_object_object_add(doc, "data", json_object_new_string(ap_datagen_kind_name(c->o.data)));
	json_object_object_add(doc, "seed", json_object_new_uint64(c->o.seed));
	json_object_object_add(doc, "pool", json_object_new_uint64(c->o.pool_max ? c->o.pool_max
									     : AP_SEQ_POOL_DEFAULT));
	json_object_object_add(doc, "rounds", json_object_new_uint64(c->o.rounds));
	json_object_object_add(wc, "disk", json_str_or_null(t->disk));
	json_object_object_add(wc, "sysfs", json_str_or_null(c->wc_sysfs));
	json_object_object_add(wc, "drive", json_object_new_string(c->wc_drive));
	json_object_object_add(doc, "write_cache", wc);
	seq_cols(c, &cs);
	ap_row_init(&row, &cs);
	for (i = 0; i < r->ncells; i++) {
		if (!r->cells[i].runs)
			continue;
		seq_fill_row(c, &row, r, i);
		json_object_array_add(cells, ap_row_json(&row));
	}
	ap_row_free(&row);
	json_object_object_add(doc, "cells", cells);
	for (m = 0; m < AP_SEQ_NMODES; m++) {
		const struct ap_seq_cell *best = seq_best(r, m), *k;
		struct json_object *o;

		if (c->knee[m] < 0 || !best)
			continue;
		k = &r->cells[c->knee[m]];
		o = json_object_new_object();
		json_object_object_add(o, "bs", json_object_new_uint64(k->bs));
		json_object_object_add(o, "mbps", json_object_new_double(k->mbps));
		json_object_object_add(o, "iops", json_object_new_double(k->iops));
		json_object_object_add(o, "best_bs", json_object_new_uint64(best->bs));
		json_object_object_add(o, "best_mbps", json_object_new_double(best->mbps));
		json_object_object_add(o, "stable", json_object_new_boolean(ap_seq_modes[m].stable));
		json_object_object_add(knees, ap_seq_modes[m].name, o);
	}
	json_object_object_add(doc, "knees", knees);
	json_object_object_add(doc, "interrupted", json_object_new_boolean(interrupted));
	rc = ap_out_json_print(stdout, doc);
	json_object_put(doc);
	return rc;
}

static int seq_plot(struct seq_cmd *c, struct ap_seq_result *r)
{
	struct ap_plot_series series[AP_SEQ_NMODES];
	double *ys = ap_xcalloc(AP_SEQ_NMODES * (c->nbs ? c->nbs : 1), sizeof(*ys));
	struct ap_plot_lines pl = {
		.xlabel = "block size (bytes)", .ylabel = "MB/s", .x = c->bs, .logx = true,
		.series = series,
	};
	char title[PATH_MAX + 64];
	struct ap_error e = { 0 };
	size_t ns = 0, i;
	unsigned m;
	char *svg;
	int rc;

	for (i = 0; i < c->nbs && c->bs[i] <= c->o.size; i++)
		;
	pl.nx = i;
	for (m = 0; m < AP_SEQ_NMODES; m++) {
		double *y = ys + (size_t)m * c->nbs;
		bool any = false;

		if (!(c->o.modes & (1u << m)))
			continue;
		for (i = 0; i < pl.nx; i++) {
			struct ap_seq_cell *cell = ap_seq_cell_find(r, (enum ap_seq_mode)m, c->bs[i]);

			y[i] = cell && cell->runs ? cell->mbps : NAN;
			any |= cell && cell->runs;
		}
		if (!any)
			continue;
		series[ns].name = ap_seq_modes[m].name;
		series[ns++].y = y;
	}
	pl.nseries = ns;
	snprintf(title, sizeof(title), "alignprobe seq %s: MB/s by block size and mode", c->target);
	pl.title = title;
	svg = ap_plot_lines_svg(&pl);
	rc = ap_outfile_write(&c->plot_out, svg, strlen(svg));
	if (rc < 0) {
		ap_error_set(&e, -rc, "%s: %s", c->plot, strerror(-rc));
		ap_outfile_discard(&c->plot_out);
	} else {
		rc = ap_outfile_commit(&c->plot_out, &e);
	}
	free(svg);
	free(ys);
	if (rc < 0)
		ap_warnx(CMD, NULL, "cannot write plot: %s", e.msg);
	return rc;
}

static void seq_progress(void *arg, const struct ap_seq_result *r, const struct ap_seq_cell *cell)
{
	struct seq_cmd *c = arg;
	char detail[96], *bs = ap_size_to_human(cell->bs);

	snprintf(detail, sizeof(detail), "%s %s: %.1f MB/s", ap_seq_modes[cell->mode].name, bs,
		 cell->samples[cell->runs - 1]);
	free(bs);
	ap_progress_update(&c->prog, r->runs_done, detail);
}

/* The drive's own write cache state, through SG_IO. */
static char *seq_drive_write_cache(const struct ap_seq_target *t)
{
	struct ap_write_cache wc;
	struct ap_error e = { 0 };
	char *s;
	int rc;

	if (!t->is_bdev)
		return ap_xstrdup("not available (a regular file)");
	rc = ap_sgio_write_cache(t->fd, &wc, &e);
	if (rc == -EOPNOTSUPP)
		return ap_xstrdup("not available (the device does not answer ATA, SCSI or NVMe queries)");
	if (rc < 0) {
		ap_xasprintf(&s, "not available (%s)", e.msg[0] ? e.msg : strerror(-rc));
		return s;
	}
	ap_xasprintf(&s, "%s (%s)", wc.enabled ? "enabled" : "disabled",
		     ap_sgio_wc_source_name(wc.source));
	return s;
}

static int seq_parse(struct seq_cmd *c, int argc, char **argv)
{
	struct ap_error e = { 0 };
	uint64_t v;
	int ch;

	c->o.rounds = 1;
	c->o.seed = 1;
	c->o.data = AP_DATAGEN_RANDOM;
	c->o.max_cell_ns = SEQ_DEFAULT_CELL_NS;
	c->o.cancel = ap_sig_cancel;
	while ((ch = getopt_long(argc, argv, "s:B:m:Ryqh" AP_OUT_OPTSTRING "V", longopts,
				 NULL)) != -1) {
		if (ap_out_parse_opt(&c->out, ch, optarg))
			continue;
		switch (ch) {
		case 's':
			if (ap_parse_size(optarg, &c->o.size) < 0 || !c->o.size) {
				ap_usage_error(CMD, "invalid --size '%s'", optarg);
				return AP_EXIT_USAGE;
			}
			c->size_set = true;
			break;
		case OPT_OFFSET:
			if (ap_parse_size(optarg, &c->o.offset) < 0) {
				ap_usage_error(CMD, "invalid --offset '%s'", optarg);
				return AP_EXIT_USAGE;
			}
			break;
		case 'B':
			c->bs_arg = optarg;
			break;
		case 'm':
			c->modes_arg = optarg;
			break;
		case 'R':
			c->read = true;
			break;
		case OPT_ROUNDS:
			if (ap_parse_u64(optarg, &v) < 0 || !v || v > 1000) {
				ap_usage_error(CMD, "invalid --rounds '%s' (1 to 1000)", optarg);
				return AP_EXIT_USAGE;
			}
			c->o.rounds = (unsigned)v;
			break;
		case OPT_SEED:
			if (ap_parse_u64(optarg, &c->o.seed) < 0) {
				ap_usage_error(CMD, "invalid --seed '%s'", optarg);
				return AP_EXIT_USAGE;
			}
			break;
		case OPT_DATA:
			if (ap_datagen_kind_parse(optarg, &c->o.data) < 0) {
				ap_usage_error(CMD, "invalid --data '%s' (random or zero)", optarg);
				return AP_EXIT_USAGE;
			}
			break;
		case OPT_CELL_TIME:
			if (!strcmp(optarg, "0"))
				c->o.max_cell_ns = 0;
			else if (ap_parse_duration_ns(optarg, &c->o.max_cell_ns) < 0 ||
				 !c->o.max_cell_ns) {
				ap_usage_error(CMD, "invalid --cell-time '%s' (e.g. 30s, or 0)", optarg);
				return AP_EXIT_USAGE;
			}
			break;
		case OPT_VERIFY:
			c->o.verify = true;
			break;
		case OPT_POOL:
			if (ap_parse_size(optarg, &c->o.pool_max) < 0 || c->o.pool_max < 4096 ||
			    c->o.pool_max % 4096) {
				ap_usage_error(CMD, "invalid --pool '%s' (a multiple of 4K)", optarg);
				return AP_EXIT_USAGE;
			}
			break;
		case OPT_KEEP:
			c->keep = true;
			break;
		case OPT_PLOT:
			c->plot = optarg;
			break;
		case 'y':
			c->so.yes = true;
			break;
		case OPT_DRY_RUN:
			c->so.dry_run = c->dry_run = true;
			break;
		case OPT_ALLOW_PARTITION:
			c->so.allow_partition = true;
			break;
		case OPT_EMULATE:
			c->emulate = true;
			c->emu_spec = optarg;
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
	if (ap_out_validate(&c->out, &e) < 0) {
		ap_usage_error(CMD, "%s", e.msg);
		return AP_EXIT_USAGE;
	}
	if (c->dry_run && c->out.json) {
		/* the plan is text: no JSON consumer should be handed it */
		ap_usage_error(CMD, "--dry-run prints its plan as text: -J/--json cannot go with it");
		return AP_EXIT_USAGE;
	}
	if (c->out.list_columns) {
		ap_out_list_columns(&c->out, infos, AP_ARRAY_SIZE(infos));
		return -1;
	}
	if (ap_out_columns(&c->out, infos, AP_ARRAY_SIZE(infos), default_cols,
			   AP_ARRAY_SIZE(default_cols), c->cols, &c->ncols, &e) < 0) {
		ap_usage_error(CMD, "%s", e.msg);
		return AP_EXIT_USAGE;
	}
	if (c->emulate) {
		if (optind < argc) {
			ap_usage_error(CMD, "--emulate and a TARGET ('%s') exclude each other",
				       argv[optind]);
			return AP_EXIT_USAGE;
		}
	} else if (optind + 1 != argc) {
		ap_usage_error(CMD, optind < argc ? "one TARGET only" : "no TARGET given");
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

/* Size and block sizes once the target's capacity is known. */
static int seq_finish_opts(struct seq_cmd *c, const struct ap_seq_target *t)
{
	uint64_t room = UINT64_MAX;

	if (t->is_bdev || t->capacity)	/* an empty or new file grows */
		room = t->capacity > c->o.offset ? t->capacity - c->o.offset : 0;

	if (!c->size_set) {
		c->o.size = SEQ_DEFAULT_SIZE < room ? SEQ_DEFAULT_SIZE : room;
		c->o.size -= c->o.size % 4096;
		if (!c->o.size) {
			ap_warnx(CMD, c->target, "no room after offset %llu (%llu bytes)",
				 (unsigned long long)c->o.offset, (unsigned long long)t->capacity);
			return AP_EXIT_USAGE;
		}
	}
	if (!c->bs) {
		c->bs = ap_xcalloc(16, sizeof(*c->bs));
		c->nbs = ap_seq_bs_default(c->o.size, c->bs, 16);
		if (!c->nbs) {
			ap_usage_error(CMD, "--size %llu is smaller than 4K, the smallest default block size",
				       (unsigned long long)c->o.size);
			return AP_EXIT_USAGE;
		}
	}
	c->o.bs = c->bs;
	c->o.nbs = c->nbs;
	return 0;
}

static void seq_dry_run_outputs(const struct seq_cmd *c)
{
	const struct ap_cmd_output outs[] = { { "--plot", c->plot } };

	ap_cmd_dry_run_outputs(outs, AP_ARRAY_SIZE(outs));
}

static void seq_print_plan(struct seq_cmd *c, struct ap_seq_result *r)
{
	char *sz = ap_size_to_human(c->o.size);
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < r->ncells; i++)
		total += (c->o.size / r->cells[i].bs) * r->cells[i].bs * c->o.rounds;
	printf("dry run: %s: %zu cell%s x %u round%s, %s per cell, %llu bytes moved in all (at most);"
	       " nothing was written\n", c->target, r->ncells, r->ncells == 1 ? "" : "s",
	       c->o.rounds, c->o.rounds == 1 ? "" : "s", sz, (unsigned long long)total);
	for (i = 0; i < r->ncells; i++) {
		char *bs = ap_size_to_human(r->cells[i].bs);
		char *dd = ap_seq_dd_line(r->cells[i].mode, r->cells[i].bs);

		printf("  %-14s %6s  %s\n", ap_seq_modes[r->cells[i].mode].name, bs, dd);
		free(dd);
		free(bs);
	}
	free(sz);
	seq_dry_run_outputs(c);
}

static int seq_main(struct seq_cmd *c)
{
	struct ap_safety_target st = { .fd = -1 };
	struct ap_seq_target t = { .fd = -1 };
	struct ap_seq_result r = { 0 };
	struct ap_error e = { 0 };
	struct stat sb;
	bool exists, is_bdev, interrupted = false;
	int hold = -1, rc, ret = AP_EXIT_OK, serr;
	char what[PATH_MAX + 8];

	exists = stat(c->target, &sb) == 0;
	serr = exists ? 0 : errno;
	is_bdev = exists && S_ISBLK(sb.st_mode);
	if (is_bdev) {
		/* the gate first: it takes the device O_EXCL before its checks */
		rc = ap_cmd_gate(CMD, c->target, &c->so, &st);
		if (rc)
			return rc;	/* 3, or 2 */
		hold = st.fd;
		st.fd = -1;
	} else if (exists && !S_ISREG(sb.st_mode)) {
		return ap_errx(CMD, c->target, S_ISDIR(sb.st_mode) ? EISDIR : ENOTBLK,
			       "not a block device or a regular file");
	} else if (serr == ENOENT && strncmp(c->target, "/dev/", 5) == 0) {
		/* a mistyped device name: never a file in /dev */
		return ap_errx(CMD, c->target, ENOENT, "no such device (a new regular file "
			       "is created only outside /dev)");
	}

	if (c->dry_run && !is_bdev) {
		/* plan without creating anything */
		t.path = ap_xstrdup(c->target);
		t.align = 4096;
		if (stat(c->target, &sb) == 0)
			t.capacity = (uint64_t)sb.st_size;
	} else {
		rc = ap_seq_target_open(&t, c->target, hold, &e);
		if (rc < 0) {
			if (hold >= 0)
				close(hold);
			ap_safety_target_free(&st);
			return ap_err_error(CMD, c->target, &e);	/* cannot create: 2 */
		}
	}
	/* every check before anything is written or confirmed */
	rc = seq_finish_opts(c, &t);
	if (!rc && ap_seq_plan(&t, &c->o, &r, &e) < 0) {
		ap_warnx(CMD, c->target, "%s", e.msg);
		rc = AP_EXIT_USAGE;
	}
	if (!rc && is_bdev && !c->emulate)
		rc = ap_cmd_confirm(CMD, c->target, &st, &c->so, NULL);
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
	c->wc_sysfs = ap_seq_sysfs_write_cache(&t);
	c->wc_drive = seq_drive_write_cache(&t);

	snprintf(what, sizeof(what), "seq %s", c->target);
	ap_progress_init(&c->prog, what, r.runs_total, c->quiet);
	rc = ap_seq_run(&t, &c->o, &r, seq_progress, c, &e);
	ap_progress_clear(&c->prog);
	if (rc == -EINTR || ap_sig_pending()) {
		interrupted = true;
		ret = AP_EXIT_SIGNAL_BASE + (ap_sig_pending() ? ap_sig_pending() : 2);
		ap_warnx(CMD, c->target, "interrupted after %zu of %zu runs; printing the cells done",
			 r.runs_done, r.runs_total);
	} else if (rc < 0) {
		ap_warnx(CMD, c->target, "%s", e.msg);
		ret = AP_EXIT_FAILURE;
		if (r.runs_done)
			ap_warnx(CMD, c->target, "printing the %zu runs done before the error",
				 r.runs_done);
	}
	seq_knees(c, &r);
	{
		bool human = !c->out.json && !c->out.raw && !c->out.csv && !c->out.noheadings;

		if (c->out.json) {
			rc = seq_print_json(c, &t, &r, interrupted);
		} else {
			if (human)
				seq_print_human_head(c, &t);
			rc = seq_print_table(c, &r);
			if (human)
				seq_print_human_tail(c, &r);
		}
		if (rc < 0 && ret == AP_EXIT_OK)
			ret = AP_EXIT_FAILURE;
		if (c->plot && r.runs_done && seq_plot(c, &r) < 0 && ret == AP_EXIT_OK)
			ret = AP_EXIT_FAILURE;
	}
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
	rc = seq_parse(&c, argc, argv);
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
	free(c.wc_sysfs);
	free(c.wc_drive);
	return ap_cmd_close_stdout(CMD, rc);
}
