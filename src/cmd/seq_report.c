// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What alignprobe seq prints (see seqP.h): one column table drives the
 * table and the JSON cells; the knees, the human head and tail and the plot
 * come per write cache state when --write-cache ran the matrix once per
 * state.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "cmd/commands.h"
#include "cmd/seqP.h"
#include "lib/exitcodes.h"
#include "lib/util.h"
#include "ui/plot.h"

/* the columns: the one table (infos, ap_seq_cols) drives -o, the table and JSON */
enum {
	COL_MODE, COL_OP, COL_BS, COL_BYTES, COL_SECONDS, COL_MBPS, COL_IOPS,
	COL_STABLE, COL_KNEE, COL_RUNS, COL_PARTIAL, COL_DD, COL_IOS, COL_WCACHE,
	COL_COUNT
};
_Static_assert(COL_COUNT == SEQ_NCOLS, "seqP.h's SEQ_NCOLS counts the columns");

static const struct ap_colinfo infos[SEQ_NCOLS] = {
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
	[COL_WCACHE]  = { "WCACHE", 6, 0, AP_COL_STRING, "the drive's write cache during the cell: on or off (--write-cache), else as found; empty when unknown" },
};

static const int default_cols[] = {
	COL_MODE, COL_BS, COL_BYTES, COL_SECONDS, COL_MBPS, COL_IOPS, COL_STABLE, COL_KNEE,
};
/* with --write-cache: WCACHE first */
static const int default_cols_wc[] = {
	COL_WCACHE, COL_MODE, COL_BS, COL_BYTES, COL_SECONDS, COL_MBPS, COL_IOPS, COL_STABLE,
	COL_KNEE,
};

const struct ap_opts_cols ap_seq_cols[2] = {
	{ infos, SEQ_NCOLS, default_cols, AP_ARRAY_SIZE(default_cols) },
	{ infos, SEQ_NCOLS, default_cols_wc, AP_ARRAY_SIZE(default_cols_wc) },
};

/* The keys of the "cells" objects without -o, in their documented order. */
static const int json_cols[] = {
	COL_MODE, COL_OP, COL_BS, COL_BYTES, COL_SECONDS, COL_MBPS, COL_IOPS, COL_IOS,
	COL_STABLE, COL_KNEE, COL_RUNS, COL_PARTIAL, COL_DD, COL_WCACHE,
};

const char *ap_seq_out_wc_name(const struct seq_cmd *c, enum ap_seq_wc wc)
{
	return wc == AP_SEQ_WC_ASIS ? c->wc.found : ap_seq_wc_name(wc);
}

static void seq_cols(const struct seq_cmd *c, struct ap_cols *cs)
{
	ap_cols_init(cs, &c->out, infos, SEQ_NCOLS, c->cols, c->ncols,
		     json_cols, AP_ARRAY_SIZE(json_cols));
}

static bool seq_is_knee(const struct seq_cmd *c, const struct ap_seq_result *r, size_t i)
{
	size_t k;

	for (k = 0; k < ap_seq_nstates(&c->o); k++)
		if (c->knee[k][r->cells[i].mode] == (int)i)
			return true;
	return false;
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
	ap_row_bool(row, COL_KNEE, seq_is_knee(c, r, i));
	ap_row_u64(row, COL_RUNS, cell->runs);
	ap_row_bool(row, COL_PARTIAL, cell->partial);
	ap_row_str(row, COL_DD, dd);
	ap_row_u64(row, COL_IOS, cell->ios);
	ap_row_str(row, COL_WCACHE, ap_seq_out_wc_name(c, cell->wc));
	free(dd);
}

struct seq_rows {
	const struct seq_cmd *c;
	const struct ap_seq_result *r;
};

/* The table's row of cell @i, if it ran (ap_cols_table_rows()). */
static bool seq_row(void *ctx, struct ap_row *row, size_t i)
{
	const struct seq_rows *sr = ctx;

	if (!sr->r->cells[i].runs)
		return false;
	seq_fill_row(sr->c, row, sr->r, i);
	return true;
}

int ap_seq_out_table(struct seq_cmd *c, struct ap_seq_result *r)
{
	struct seq_rows sr = { c, r };
	struct libscols_table *tb;
	struct ap_cols cs;
	int rc;

	seq_cols(c, &cs);
	tb = ap_cols_table_rows(&cs, "cells", r->ncells, seq_row, &sr);
	if (!tb) {
		ap_warnx(SEQ_CMD, NULL, "cannot allocate a table line");
		exit(AP_EXIT_FAILURE);
	}
	rc = ap_out_print(&c->out, tb);
	scols_unref_table(tb);
	return rc;
}

void ap_seq_out_head(struct seq_cmd *c, const struct ap_seq_target *t)
{
	char *sz = ap_size_to_human(c->o.size);
	size_t k;

	printf("target: %s (%s), %s per cell, data %s, seed %llu, %u round%s, runs in random order\n",
	       c->target, c->emulate ? "emulated drive" : t->is_bdev ? "block device" : "regular file", sz,
	       ap_datagen_kind_name(c->o.data), (unsigned long long)c->o.seed,
	       c->o.rounds, c->o.rounds == 1 ? "" : "s");
	printf("write cache: kernel (sysfs queue/write_cache%s%s): %s; drive: %s\n",
	       t->disk ? " of " : "", t->disk ? t->disk : "",
	       c->wc.sysfs ? c->wc.sysfs : "not available", c->wc.drive);
	if (c->o.nwc) {
		printf("write cache switched (%s): ", ap_wcache_how_name(c->wc.ctl.w.how));
		for (k = 0; k < c->o.nwc; k++)
			printf("%s%s", k ? ", then " : "", ap_seq_wc_name(c->o.wc[k]));
		printf("; found %s (\"%s\"), %s\n", c->wc.found ? c->wc.found : "?", c->wc.ctl.w.orig,
		       c->wc.restored ? "restored" : "NOT restored (see alignprobe cleanup)");
	}
	free(sz);
}

static void seq_knee_line(const struct seq_cmd *c, size_t k, unsigned m, const struct ap_seq_cell *kc,
			  const struct ap_seq_cell *best)
{
	char *kb = ap_size_to_human(kc->bs), *bb = ap_size_to_human(best->bs);
	char state[24] = "";

	if (c->o.nwc)
		snprintf(state, sizeof(state), "cache %-4s", ap_seq_wc_name(ap_seq_state(&c->o, k)));
	printf("  %s%-14s %6s  %9.1f MB/s %8.0f IOPS   (best %.1f MB/s at %s)\n",
	       state, ap_seq_modes[m].name, kb, kc->mbps, kc->iops, best->mbps, bb);
	free(kb);
	free(bb);
}

void ap_seq_out_tail(struct seq_cmd *c, struct ap_seq_result *r)
{
	bool unstable = false, head = false;
	unsigned m, np;
	size_t k;

	for (k = 0; k < ap_seq_nstates(&c->o); k++) {
		enum ap_seq_wc wc = ap_seq_state(&c->o, k);

		for (m = 0; m < AP_SEQ_NMODES; m++) {
			const struct ap_seq_cell *best = ap_seq_best(r, wc, m);

			if (c->knee[k][m] < 0 || !best)
				continue;
			if (!head) {
				printf("\nknee (smallest block size within 5%% of the mode's best):\n");
				head = true;
			}
			seq_knee_line(c, k, m, &r->cells[c->knee[k][m]], best);
			if (!ap_seq_modes[m].stable)
				unstable = true;
		}
	}
	for (m = 0, np = 0; m < r->ncells; m++)
		np += r->cells[m].runs && r->cells[m].partial;
	if (np)
		printf("\n%u cell%s stopped at --cell-time before the full size (BYTES shows what %s moved)\n",
		       np, np == 1 ? "" : "s", np == 1 ? "it" : "they");
	if (unstable) {
		printf("\nNOT on stable storage when the timer stopped (STABLE=no):\n");
		if (ap_seq_any(r, AP_SEQ_NONE))
			printf("  none: page cache only, what plain dd reports; compare fdatasync or direct\n");
		if (ap_seq_any(r, AP_SEQ_DIRECT_NOSYNC))
			printf("  direct-nosync: may still sit in the drive's volatile write cache; compare direct\n");
	}
}

/* The knees of state @k: {MODE: {...}}. */
static struct json_object *seq_json_knees(const struct seq_cmd *c, const struct ap_seq_result *r,
					  size_t k)
{
	struct json_object *knees = json_object_new_object();
	enum ap_seq_wc wc = ap_seq_state(&c->o, k);
	unsigned m;

	for (m = 0; m < AP_SEQ_NMODES; m++) {
		const struct ap_seq_cell *best = ap_seq_best(r, wc, m), *kc;
		struct json_object *o;

		if (c->knee[k][m] < 0 || !best)
			continue;
		kc = &r->cells[c->knee[k][m]];
		o = json_object_new_object();
		json_object_object_add(o, "bs", json_object_new_uint64(kc->bs));
		json_object_object_add(o, "mbps", json_object_new_double(kc->mbps));
		json_object_object_add(o, "iops", json_object_new_double(kc->iops));
		json_object_object_add(o, "best_bs", json_object_new_uint64(best->bs));
		json_object_object_add(o, "best_mbps", json_object_new_double(best->mbps));
		json_object_object_add(o, "stable", json_object_new_boolean(ap_seq_modes[m].stable));
		json_object_object_add(knees, ap_seq_modes[m].name, o);
	}
	return knees;
}

static struct json_object *seq_json_write_cache(const struct seq_cmd *c,
						const struct ap_seq_target *t)
{
	struct json_object *wc = json_object_new_object();
	struct json_object *states = json_object_new_array();
	size_t k;

	json_object_object_add(wc, "disk", ap_json_string(t->disk));
	json_object_object_add(wc, "sysfs", ap_json_string(c->wc.sysfs));
	json_object_object_add(wc, "drive", json_object_new_string(c->wc.drive));
	json_object_object_add(wc, "found", ap_json_string(c->wc.found));
	for (k = 0; k < c->o.nwc; k++)
		json_object_array_add(states, json_object_new_string(ap_seq_wc_name(c->o.wc[k])));
	json_object_object_add(wc, "states", states);
	json_object_object_add(wc, "restored", c->o.nwc ? json_object_new_boolean(c->wc.restored)
							: NULL);
	return wc;
}

int ap_seq_out_json(struct seq_cmd *c, const struct ap_seq_target *t, struct ap_seq_result *r,
		    bool interrupted)
{
	struct json_object *doc = json_object_new_object();
	struct json_object *cells = json_object_new_array();
	struct json_object *knees;
	struct ap_cols cs;
	struct ap_row row;
	size_t i;
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
	json_object_object_add(doc, "write_cache", seq_json_write_cache(c, t));
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
	if (!c->o.nwc) {
		knees = seq_json_knees(c, r, 0);
	} else {
		/* with --write-cache: {"on": {MODE: ...}, "off": {MODE: ...}} */
		knees = json_object_new_object();
		for (i = 0; i < c->o.nwc; i++)
			json_object_object_add(knees, ap_seq_wc_name(c->o.wc[i]),
					       seq_json_knees(c, r, i));
	}
	json_object_object_add(doc, "knees", knees);
	json_object_object_add(doc, "interrupted", json_object_new_boolean(interrupted));
	rc = ap_out_json_print(stdout, doc);
	json_object_put(doc);
	return rc;
}

/*
 * The series: one per mode that ran; with --write-cache, the modes with the
 * cache on, then the same modes with it off (dashed, same colours).
 */
static size_t seq_plot_series(const struct seq_cmd *c, struct ap_seq_result *r, size_t nx,
			      struct ap_plot_series *series, double *ys, char **names)
{
	enum ap_seq_wc states[AP_SEQ_WC_MAX] = { AP_SEQ_WC_ON, AP_SEQ_WC_OFF };
	size_t ns = 0, k, nk = c->o.nwc == AP_SEQ_WC_MAX ? AP_SEQ_WC_MAX : 1, i;
	unsigned m;

	if (nk == 1)
		states[0] = ap_seq_state(&c->o, 0);
	for (k = 0; k < nk; k++) {
		enum ap_seq_wc wc = states[k];

		for (m = 0; m < AP_SEQ_NMODES; m++) {
			double *y = ys + ns * (c->nbs ? c->nbs : 1);

			if (!(c->o.modes & (1u << m)) || !ap_seq_any(r, m))
				continue;
			for (i = 0; i < nx; i++) {
				struct ap_seq_cell *cell =
					ap_seq_cell_find_wc(r, wc, (enum ap_seq_mode)m, c->bs[i]);

				y[i] = cell && cell->runs ? cell->mbps : NAN;
			}
			if (c->o.nwc)
				ap_xasprintf(&names[ns], "%s (cache %s)", ap_seq_modes[m].name,
					     ap_seq_wc_name(wc));
			else
				names[ns] = ap_xstrdup(ap_seq_modes[m].name);
			series[ns].name = names[ns];
			series[ns++].y = y;
		}
	}
	return ns;
}

int ap_seq_out_plot(struct seq_cmd *c, struct ap_seq_result *r)
{
	struct ap_plot_series series[AP_SEQ_NMODES * AP_SEQ_WC_MAX];
	char *names[AP_SEQ_NMODES * AP_SEQ_WC_MAX] = { NULL };
	double *ys = ap_xcalloc(AP_ARRAY_SIZE(series) * (c->nbs ? c->nbs : 1), sizeof(*ys));
	struct ap_plot_lines pl = {
		.xlabel = "block size (bytes)", .ylabel = "MB/s", .x = c->bs, .logx = true,
		.series = series,
	};
	char title[PATH_MAX + 96];
	struct ap_error e = { 0 };
	size_t i;
	char *svg;
	int rc;

	memset(series, 0, sizeof(series));
	for (i = 0; i < c->nbs && c->bs[i] <= c->o.size; i++)
		;
	pl.nx = i;
	pl.nseries = seq_plot_series(c, r, pl.nx, series, ys, names);
	if (c->o.nwc == AP_SEQ_WC_MAX)
		pl.dash_from = pl.nseries / 2;
	snprintf(title, sizeof(title), "alignprobe seq %s: MB/s by block size and mode%s", c->target,
		 pl.dash_from ? ", write cache on (solid) and off (dashed)" : "");
	if (c->o.nwc == 1)
		snprintf(title, sizeof(title), "alignprobe seq %s: MB/s by block size and mode, write cache %s",
			 c->target, ap_seq_wc_name(c->o.wc[0]));
	pl.title = title;
	svg = ap_plot_lines_svg(&pl);
	rc = ap_outfile_write_commit(&c->plot_out, c->plot, svg, strlen(svg), &e);
	free(svg);
	free(ys);
	for (i = 0; i < AP_ARRAY_SIZE(names); i++)
		free(names[i]);
	if (rc < 0)
		ap_warnx(SEQ_CMD, NULL, "cannot write plot: %s", e.msg);
	return rc;
}
