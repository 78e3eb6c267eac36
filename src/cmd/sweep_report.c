// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * alignprobe sweep: what is printed of a run or its replay. The table per
 * start (one row fills a table line and an object of "starts"), the verdict
 * in words, the JSON document (the one a run saves, too) and the plot.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "cmd/commands.h"
#include "cmd/sweepP.h"
#include "lib/exitcodes.h"
#include "lib/outfile.h"
#include "lib/util.h"
#include "sweep/sweep.h"
#include "ui/out.h"
#include "ui/plot.h"

/* sweep's columns (declared in cmd/sweepP.h); their names are API. */
const struct ap_colinfo sweep_infos[SWEEP_NCOLS] = {
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
const struct ap_opts_cols sweep_cols = {
	sweep_infos, SWEEP_NCOLS, default_cols, AP_ARRAY_SIZE(default_cols)
};

/* The keys of the "starts" objects without -o (and in --save), in their documented order. */
const int sweep_json_cols[] = {
	COL_START, COL_RUNS, COL_FAILED, COL_ALIGNED, COL_FAST, COL_TPS, COL_COST, COL_CREATES,
	COL_DELETES, COL_READ, COL_WRITE, COL_FSYNC, COL_REL, COL_RMW,
};
const size_t sweep_njson_cols = AP_ARRAY_SIZE(sweep_json_cols);

/* The columns of -o (@cols: room for SWEEP_NCOLS * 2): 0 or an exit code. */
static int select_cols(struct sweep_cmd *c, struct ap_cols *cs, int *cols)
{
	size_t ncols;

	if (ap_opts_columns(CMD, &c->out, &sweep_cols, cols, &ncols) != 0)
		return AP_EXIT_USAGE;	/* parse_args checked it already */
	ap_cols_init(cs, &c->out, sweep_infos, SWEEP_NCOLS, cols, ncols,
		     sweep_json_cols, sweep_njson_cols);
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
	int cols[SWEEP_NCOLS * 2];
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

/*
 * The device next steps may name: none (NULL, the placeholder) where the
 * run no longer holds it (an emulated drive, detached at exit) or never did
 * (--replay: the name may be another disk's now); @why says which.
 */
static const char *sweep_next_device(const struct sweep_cmd *c, const char *dev,
				     const char **why)
{
	*why = NULL;
	if (c->replay)
		*why = "a replayed result holds no device, and the one it names may be "
		       "another disk now";
	else if (c->emulate)
		*why = "the emulated drive this run measured was detached when it ended";
	return *why ? NULL : dev;
}

struct json_object *sweep_doc_json(const struct sweep_cmd *c, const struct ap_cols *cs,
				   const struct ap_sweep_doc *doc, const struct ap_verdict *v,
				   const char *stopped, const struct ap_sweep_start_stat *st, size_t n)
{
	struct ap_sweep_doc_parts p = { .id = &c->id, .placeholder = AP_CMD_NEXT_PLACEHOLDER };
	const char *next = sweep_next_device(c, doc->device, &p.why);
	struct ap_cols all;

	if (!cs) {
		ap_cols_init(&all, NULL, sweep_infos, SWEEP_NCOLS, NULL, 0,
			     sweep_json_cols, sweep_njson_cols);
		cs = &all;
	}
	p.starts = starts_json(cs, st, n);
	p.next_steps = ap_cmd_verdict_next_steps_json(next, v, true);
	return ap_sweep_doc_to_json(doc, v, stopped, &p);
}

/*
 * The verdict in words (sweep/words.c), what to run next after a clear
 * one, then its caveats; see ap_sweep_verdict_words() for @partial, @early.
 */
static void print_verdict(const struct sweep_cmd *c, const char *dev, const struct ap_verdict *v,
			  uint64_t first_usable, bool partial, const char *early)
{
	char *s = ap_sweep_verdict_words(dev, v, first_usable, partial, early);
	const char *why, *next = sweep_next_device(c, dev, &why);

	fputs(s, stdout);
	free(s);
	if (v && v->sensitive && v->resolved)	/* a verdict shown is a clear one */
		ap_cmd_print_verdict_next_steps(next, why, v, true);
	s = ap_sweep_verdict_caveats(v);
	if (s)
		fputs(s, stdout);
	free(s);
}

static int write_plot(struct sweep_cmd *c, const struct ap_sweep_start_stat *st, size_t n,
		      const struct ap_verdict *v, const char *early)
{
	struct ap_plot_bar *bars = ap_xcalloc(n ? n : 1, sizeof(*bars));
	struct ap_plot_bars p = { 0 };
	struct ap_error e = { 0 };
	char *title = ap_sweep_verdict_line(v, early), *svg;
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
	rc = ap_outfile_write_commit(&c->plot_out, c->plot, svg, strlen(svg), &e);
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
int sweep_report(struct sweep_cmd *c, const struct ap_sweep_doc *doc,
	   const struct ap_verdict *v, const char *stopped)
{
	struct ap_sweep_start_stat *st = NULL;
	enum ap_sweep_stop stop = ap_sweep_stop_parse(stopped);
	const char *early = ap_sweep_stopped_early(stop);
	size_t n;
	int rc = 0, rc2;

	v = ap_sweep_shown_verdict(v, stop);	/* nor used to mark starts aligned */
	n = ap_sweep_summarize(doc->results, doc->nresults, doc->starts, doc->nstarts, v, &st);
	if (c->out.json) {
		int cols[SWEEP_NCOLS * 2];
		struct json_object *o;
		struct ap_cols cs;

		rc = select_cols(c, &cs, cols);
		if (rc) {
			free(st);
			return rc;
		}
		o = sweep_doc_json(c, &cs, doc, v, stopped, st, n);
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
			print_verdict(c, doc->device, v, ap_part_gpt_first_usable(doc->logical_sector),
				      partial, early);
			if (ap_out_flush(stdout) != 0) {	/* a reader gone is no error */
				ap_warnx(CMD, NULL, "write error on standard output");
				rc = AP_EXIT_FAILURE;
			}
		}
	}
	if (c->plot && (rc2 = write_plot(c, st, n, v, early)) != 0 && !rc)
		rc = rc2;
	free(st);
	return rc;
}
