// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * alignprobe probe: everything printed after the run (the table per write
 * size and offset, the verdict in words, JSON, the plot, the samples, the
 * --record and --prometheus files, the exit status) and the plan --dry-run
 * prints instead of running.
 *
 * JSON: one device prints {"device", "verdict", "results", ...}; several
 * print {"devices": [ {same}, ... ]}.
 */
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "analysis/verdict_json.h"
#include "cmd/commands.h"
#include "cmd/fleet.h"
#include "cmd/probe.h"
#include "emu/model.h"
#include "device/nextsteps.h"
#include "fleet/vstore.h"
#include "lib/align.h"
#include "lib/exitcodes.h"
#include "lib/outfile.h"
#include "lib/sig.h"
#include "lib/stats.h"
#include "lib/util.h"
#include "probe/probe.h"
#include "ui/out.h"
#include "ui/plot.h"
#include "ui/progress.h"

/* probe's columns (declared in cmd/probe.h); their names are API. */
const struct ap_colinfo probe_infos[PROBE_NCOLS] = {
	[COL_DEVICE]  = { "DEVICE", 0.2, 0, AP_COL_STRING, "device probed" },
	[COL_SIZE]    = { "SIZE", 5, SCOLS_FL_RIGHT, AP_COL_SIZE, "write (or read) size" },
	[COL_OFFSET]  = { "OFFSET", 6, SCOLS_FL_RIGHT, AP_COL_NUMBER,
			  "offset in logical sectors from a 1 MiB-aligned place (= LBA modulo the unit)" },
	[COL_N]       = { "N", 4, SCOLS_FL_RIGHT, AP_COL_NUMBER, "measurements at this offset" },
	[COL_MEDIAN]  = { "MEDIAN_US", 9, SCOLS_FL_RIGHT, AP_COL_NUMBER,
			  "median latency, microseconds", .fmt = "%.1f" },
	[COL_Q1]      = { "Q1_US", 8, SCOLS_FL_RIGHT, AP_COL_NUMBER,
			  "first quartile of the latency, microseconds", .fmt = "%.1f" },
	[COL_Q3]      = { "Q3_US", 8, SCOLS_FL_RIGHT, AP_COL_NUMBER,
			  "third quartile of the latency, microseconds", .fmt = "%.1f" },
	[COL_FAST]    = { "FAST", 4, 0, AP_COL_BOOLEAN,
			  "classified fast by the analysis of this size" },
	[COL_ALIGNED] = { "ALIGNED", 7, 0, AP_COL_BOOLEAN,
			  "aligned under the final verdict (empty: unresolved)" },
	[COL_REL]     = { "REL", 6, SCOLS_FL_RIGHT, AP_COL_NUMBER,
			  "median relative to the fastest offset of this size", .fmt = "%.2f" },
};

const int probe_default_cols[] = {
	COL_DEVICE, COL_SIZE, COL_OFFSET, COL_N, COL_MEDIAN, COL_Q1, COL_Q3, COL_FAST, COL_REL,
};
const size_t probe_ndefault_cols = AP_ARRAY_SIZE(probe_default_cols);

/* The keys of the "results" objects without -o: the device is the document's. */
static const int json_cols[] = {
	COL_SIZE, COL_OFFSET, COL_N, COL_MEDIAN, COL_Q1, COL_Q3, COL_FAST, COL_ALIGNED, COL_REL,
};

/* The size whose rows the table shows by default. */
static int shown_size(const struct ap_probe_result *r)
{
	if (r->decided >= 0)
		return r->decided;
	return r->nsizes ? (int)r->nsizes - 1 : -1;
}

static double min_median(const struct ap_verdict *v)
{
	double m = INFINITY;
	size_t i;

	for (i = 0; i < v->nstats; i++)
		if (v->stats[i].median < m)
			m = v->stats[i].median;
	return m;
}

static bool offset_aligned(const struct ap_verdict *v, uint64_t off)
{
	return !v->period || ap_align_is_aligned(off, 1, v->period, v->lowest_aligned_lba);
}

/*
 * Offset @i of size @sz of job @j, every column: a table line and an object
 * of "results". @best: min_median() of the size.
 */
static void fill_row(struct ap_row *r, const struct job *j, const struct ap_probe_size *sz,
		     size_t i, double best)
{
	const struct ap_verdict *v = &sz->verdict, *fv = &j->r.verdict;
	const struct ap_offset_stat *st = &v->stats[i];

	ap_row_reset(r);
	ap_row_str(r, COL_DEVICE, j->dev);
	ap_row_u64(r, COL_SIZE, sz->size);
	ap_row_u64(r, COL_OFFSET, st->offset);
	ap_row_u64(r, COL_N, st->n);
	ap_row_double(r, COL_MEDIAN, st->median / 1e3);
	ap_row_double(r, COL_Q1, st->q1 / 1e3);
	ap_row_double(r, COL_Q3, st->q3 / 1e3);
	ap_row_bool(r, COL_FAST, st->fast);
	if (fv->resolved)
		ap_row_bool(r, COL_ALIGNED, offset_aligned(fv, st->offset));
	ap_row_double(r, COL_REL, best > 0 ? st->median / best : 1.0);
}

static void add_rows(struct libscols_table *tb, struct ap_row *r, const struct job *j,
		     const struct ap_probe_size *sz)
{
	double best = min_median(&sz->verdict);
	size_t i;

	for (i = 0; i < sz->verdict.nstats; i++) {
		fill_row(r, j, sz, i, best);
		(void)ap_row_add_line(r, tb);	/* out of memory: a line less, as before */
	}
}

/* The first LBA >= @from that is aligned under @v. */
static uint64_t first_aligned(const struct ap_verdict *v, uint64_t from)
{
	return ap_align_next(from, 1, v->period ? v->period : 1, v->lowest_aligned_lba);
}

/* The verdict in one line (also the plot's title). */
static char *verdict_line(const struct job *j)
{
	const struct ap_verdict *v = &j->r.verdict;
	char *s;

	if (j->r.interrupted && !v->resolved)
		ap_xasprintf(&s, "%s: interrupted, no verdict", j->dev);
	else if (v->sensitive && v->resolved)
		ap_xasprintf(&s, "%s: %u-byte physical sectors (reported %u), lowest aligned LBA %u%s",
			     j->dev, v->physical_sector, v->reported_physical,
			     v->lowest_aligned_lba, v->small ? "; alignment matters a little" : "");
	else if (v->resolved && v->reported_physical == v->physical_sector)
		ap_xasprintf(&s, "%s: no alignment effect of %.2fx or more: %u-byte sectors behave as "
			     "reported (%u logical, %u physical)", j->dev, v->absence_margin,
			     v->physical_sector, v->logical_sector, v->reported_physical);
	else if (v->resolved)
		ap_xasprintf(&s, "%s: no alignment effect of %.2fx or more, although the drive reports "
			     "%u-byte physical sectors (%u logical)", j->dev, v->absence_margin,
			     v->reported_physical, v->logical_sector);
	else if (v->sensitive)
		ap_xasprintf(&s, "%s: alignment matters, but the physical sector size is not "
			     "resolved", j->dev);
	else
		ap_xasprintf(&s, "%s: no verdict", j->dev);
	return s;
}

static void print_next_steps(const struct job *j)
{
	struct ap_next_steps s;

	ap_cmd_verdict_next_steps(j->dev, &j->r.verdict, j->r.clear, &s);
	ap_cmd_print_next_steps(&s, "  what to run next (each writes the disk):", "    ");
	ap_next_steps_free(&s);
}

static void print_words(struct ctl *c, const struct job *j)
{
	const struct ap_probe_result *r = &j->r;
	const struct ap_verdict *v = &r->verdict;
	char *line = verdict_line(j), b[32], pb[32], cb[32];

	(void)c;
	printf("%s\n", line);
	free(line);
	if (v->sensitive && v->resolved) {
		uint64_t mib = 1048576 / v->logical_sector, s1 = first_aligned(v, mib);

		printf("  misaligned writes are %.*fx slower (rank test p = %s; confidence that "
		       "alignment matters %s)\n", v->small ? 2 : 1, v->slowdown,
		       ap_stats_format_p(v->p_value, pb, sizeof(pb)),
		       ap_stats_format_confidence(v->confidence, cb, sizeof(cb)));
		if (v->small)
			printf("  alignment matters a little: %.2fx, less than --min-slowdown %.2fx; "
			       "aligned partitions still cost nothing\n", v->slowdown, v->min_slowdown);
		if (s1 == mib)
			printf("  recommended partition starts: %" PRIu64 " (1 MiB)", s1);
		else
			printf("  recommended partition starts: %" PRIu64 " (1 MiB + %" PRIu64
			       " sectors)", s1, s1 - mib);
		printf("; first aligned start >= 34: %" PRIu64 "\n", first_aligned(v, 34));
		print_next_steps(j);
	} else if (v->resolved) {
		printf("  no effect of %.2fx or more: equivalence test, confidence %s (the rank "
		       "test for an effect: p = %s)\n", v->absence_margin,
		       ap_stats_format_confidence(v->confidence, cb, sizeof(cb)),
		       ap_stats_format_p(v->p_value, pb, sizeof(pb)));
	}
	if (!r->clear && v->resolved && r->unclear[0])
		printf("  tentative: %s\n", r->unclear);
	if (v->note)
		printf("  %s\n", v->note);
	if (r->mode == AP_PROBE_READONLY)
		printf("  read-only mode: read timings are weak evidence; a drive may hide its "
		       "sectors from reads entirely\n");
	if (r->budget_out)
		printf("  the time budget ran out\n");
	if (r->decided < 0 && r->nsizes)
		printf("  measured sizes: %s .. %s\n",
		       ap_size_exact(r->sizes[0].size, b, sizeof(b)),
		       ap_size_exact(r->sizes[r->nsizes - 1].size, b + 16, sizeof(b) - 16));
	if (r->mode == AP_PROBE_PRESERVE && j->d.restored)
		printf("  data preserved: %" PRIu64 " ranges of %s verified identical (%" PRIu64
		       " rewritten), undo journal removed\n", j->d.restore.records,
		       ap_size_exact(ap_probe_record_len(&r->plan), b, sizeof(b)),
		       j->d.restore.restored);
}

/* What the measurement's checks of its own assumptions measured, and the one that failed. */
static struct json_object *checks_json(const struct ap_probe_result *r)
{
	static const char *const failed[] = {
		[AP_PROBE_OK] = NULL,
		[AP_PROBE_FLUSH_IGNORED] = "flush_ignored",
		[AP_PROBE_LEAD_IN_BUFFERED] = "lead_in_buffered",
		[AP_PROBE_RMW_BUFFERED] = "rmw_buffered",
	};
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "rotating", json_object_new_boolean(r->rotating));
	json_object_object_add(o, "seek_read_us", r->seek_read_ns ?
			       json_object_new_double((double)r->seek_read_ns / 1e3) : NULL);
	json_object_object_add(o, "write_us", r->write_ns ?
			       json_object_new_double((double)r->write_ns / 1e3) : NULL);
	json_object_object_add(o, "lead_ins", json_object_new_int64((int64_t)r->lead_ins));
	json_object_object_add(o, "lead_ins_buffered",
			       json_object_new_int64((int64_t)r->lead_in_hits));
	json_object_object_add(o, "failed", failed[r->failed] ?
			       json_object_new_string(failed[r->failed]) : NULL);
	json_object_object_add(o, "cause", r->failed ? json_object_new_string(r->cause) : NULL);
	return o;
}

static struct json_object *job_json(const struct ap_cols *cs, const struct job *j)
{
	const struct ap_probe_result *r = &j->r;
	struct json_object *o = json_object_new_object(), *res = json_object_new_array();
	struct json_object *sizes = json_object_new_array();
	const char *mode = r->mode == AP_PROBE_PRESERVE ? "preserve" :
			   r->mode == AP_PROBE_READONLY ? "read-only" : "destructive";
	struct ap_row row;
	double best;
	size_t i, k;

	ap_row_init(&row, cs);
	json_object_object_add(o, "device", json_object_new_string(j->dev));
	json_object_object_add(o, "verdict", ap_verdict_to_json(&r->verdict));
	json_object_object_add(o, "clear", json_object_new_boolean(r->clear));
	json_object_object_add(o, "unclear_reason", r->clear || !r->unclear[0] ? NULL :
			       json_object_new_string(r->unclear));
	json_object_object_add(o, "mode", json_object_new_string(mode));
	json_object_object_add(o, "emulated", json_object_new_boolean(j->emulated));
	json_object_object_add(o, "identity", ap_identity_to_json(&j->d.id));
	json_object_object_add(o, "next_steps",
			       ap_cmd_verdict_next_steps_json(j->dev, &j->r.verdict, j->r.clear));
	for (i = 0; i < r->nsizes; i++) {
		const struct ap_probe_size *sz = &r->sizes[i];
		const struct ap_verdict *v = &sz->verdict;
		struct json_object *so = json_object_new_object();

		json_object_object_add(so, "size", json_object_new_int64((int64_t)sz->size));
		json_object_object_add(so, "offsets", json_object_new_int64(sz->noffsets));
		json_object_object_add(so, "rounds", json_object_new_int64(sz->rounds));
		json_object_object_add(so, "n", json_object_new_int64((int64_t)sz->n));
		json_object_object_add(so, "clear", json_object_new_boolean(sz->clear));
		json_object_object_add(so, "deciding", json_object_new_boolean((int)i == r->decided));
		json_object_object_add(so, "confirming",
				       json_object_new_boolean((int)i == r->confirmed));
		json_object_object_add(so, "seconds", json_object_new_double(
			(double)(sz->t_end_ns - sz->t_start_ns) / 1e9));
		json_object_object_add(so, "verdict", sz->analysed ? ap_verdict_to_json(v) : NULL);
		json_object_array_add(sizes, so);
		best = min_median(v);
		for (k = 0; k < v->nstats; k++) {
			fill_row(&row, j, sz, k, best);
			json_object_array_add(res, ap_row_json(&row));
		}
	}
	ap_row_free(&row);
	json_object_object_add(o, "results", res);
	json_object_object_add(o, "sizes", sizes);
	json_object_object_add(o, "operations", json_object_new_int64((int64_t)r->nsamples));
	/* monotonic clock: comparable between the devices of one call */
	json_object_object_add(o, "start_ns", json_object_new_int64((int64_t)r->start_ns));
	json_object_object_add(o, "end_ns", json_object_new_int64((int64_t)r->end_ns));
	json_object_object_add(o, "seconds", json_object_new_double(
		r->end_ns > r->start_ns ? (double)(r->end_ns - r->start_ns) / 1e9 : 0));
	json_object_object_add(o, "interrupted", json_object_new_boolean(r->interrupted != 0));
	json_object_object_add(o, "budget_exhausted", json_object_new_boolean(r->budget_out));
	json_object_object_add(o, "region_start", json_object_new_int64((int64_t)r->plan.region_start));
	json_object_object_add(o, "region_size", json_object_new_int64((int64_t)r->plan.region_size));
	json_object_object_add(o, "slots", json_object_new_int64(r->plan.slots));
	json_object_object_add(o, "checks", checks_json(r));
	if (r->mode == AP_PROBE_PRESERVE) {
		struct json_object *p = json_object_new_object();

		json_object_object_add(p, "journal", j->d.journal ?
				       json_object_new_string(j->d.journal) : NULL);
		json_object_object_add(p, "records", json_object_new_int64(
			(int64_t)j->d.restore.records));
		json_object_object_add(p, "rewritten", json_object_new_int64(
			(int64_t)j->d.restore.restored));
		json_object_object_add(p, "verified", json_object_new_boolean(j->d.restored));
		json_object_object_add(p, "journal_kept", json_object_new_boolean(j->d.journal_kept));
		json_object_object_add(o, "preserve", p);
	}
	if (j->run.rc)
		json_object_object_add(o, "error", json_object_new_string(j->e.msg));
	return o;
}

static int write_plot(struct job *j)
{
	const struct ap_probe_result *r = &j->r;
	const struct ap_verdict *fv = &r->verdict;
	int idx = shown_size(r);
	struct ap_plot_bars pb = { 0 };
	struct ap_plot_bar *bars;
	struct ap_error e = { 0 };
	char *title, *svg, xl[96], b[32];
	size_t i;
	int rc;

	if (idx < 0 || !r->sizes[idx].analysed) {
		ap_outfile_discard(&j->plot);	/* nothing to draw */
		return 0;
	}
	const struct ap_verdict *v = &r->sizes[idx].verdict;

	bars = ap_xcalloc(v->nstats ? v->nstats : 1, sizeof(*bars));
	for (i = 0; i < v->nstats; i++) {
		bars[i].x = v->stats[i].offset;
		bars[i].value = v->stats[i].median / 1e3;
		bars[i].aligned = fv->resolved && fv->sensitive ?
				  offset_aligned(fv, v->stats[i].offset) : v->stats[i].fast;
	}
	title = verdict_line(j);
	snprintf(xl, sizeof(xl), "offset (logical sectors) of %s %s",
		 ap_size_exact(r->sizes[idx].size, b, sizeof(b)),
		 r->mode == AP_PROBE_READONLY ? "reads" : "writes");
	pb.title = title;
	pb.xlabel = xl;
	pb.ylabel = "median latency (us)";
	pb.bars = bars;
	pb.nbars = v->nstats;
	pb.period = fv->resolved && fv->sensitive ? fv->period : 0;
	pb.phase = fv->lowest_aligned_lba;
	svg = ap_plot_bars_svg(&pb);
	rc = ap_outfile_write_commit(&j->plot, j->plot.path, svg, strlen(svg), &e);
	if (rc)
		ap_warnx(CMD, NULL, "cannot write plot: %s", e.msg);
	free(svg);
	free(title);
	free(bars);
	return rc;
}

static int print_results(struct ctl *c)
{
	int cols[PROBE_NCOLS * 2];
	size_t ncols = 0, i, k;
	struct ap_error e = { 0 };
	struct ap_cols cs;
	bool have_cols;
	int rc = 0;

	/* -o was checked before the run */
	have_cols = ap_out_columns(&c->out, probe_infos, PROBE_NCOLS, probe_default_cols,
				   probe_ndefault_cols, cols, &ncols, &e) == 0;
	ap_cols_init(&cs, &c->out, probe_infos, PROBE_NCOLS, cols, have_cols ? ncols : 0,
		     json_cols, AP_ARRAY_SIZE(json_cols));
	if (c->out.json) {
		struct json_object *doc;

		if (c->njobs == 1) {
			doc = job_json(&cs, &c->jobs[0]);
		} else {
			struct json_object *a = json_object_new_array();

			doc = json_object_new_object();
			for (i = 0; i < c->njobs; i++)
				json_object_array_add(a, job_json(&cs, &c->jobs[i]));
			json_object_object_add(doc, "devices", a);
		}
		rc = ap_out_json_print(stdout, doc);
		json_object_put(doc);
		return rc;
	}
	if (have_cols) {
		struct libscols_table *tb = ap_cols_table_new(&cs, "probe");
		struct ap_row row;

		ap_row_init(&row, &cs);
		for (i = 0; tb && i < c->njobs; i++) {
			const struct ap_probe_result *r = &c->jobs[i].r;
			int idx = shown_size(r);

			for (k = 0; k < r->nsizes; k++)
				if (r->sizes[k].analysed && (c->all_sizes || (int)k == idx))
					add_rows(tb, &row, &c->jobs[i], &r->sizes[k]);
		}
		ap_row_free(&row);
		if (tb) {
			rc = ap_out_print(&c->out, tb);
			scols_unref_table(tb);
		}
	}
	if (!c->out.raw && !c->out.csv) {
		for (i = 0; i < c->njobs; i++) {
			if (!c->jobs[i].run.started)
				continue;
			printf("\n");
			print_words(c, &c->jobs[i]);
		}
	}
	return rc;
}

static int write_samples(struct ctl *c)
{
	struct ap_error e = { 0 };
	char *buf = NULL;
	size_t len = 0, i, k;
	FILE *f = open_memstream(&buf, &len);
	int rc = 0;

	if (!f) {
		ap_outfile_discard(&c->samples_out);
		ap_warnx(CMD, c->samples, "%s", strerror(errno));
		return -ENOMEM;
	}
	fprintf(f, "device,size,offset,round,slot,ns\n");
	for (i = 0; i < c->njobs; i++) {
		const struct ap_probe_result *r = &c->jobs[i].r;

		for (k = 0; k < r->nsamples; k++) {
			const struct ap_probe_sample *s = &r->samples[k];

			fprintf(f, "%s,%" PRIu64 ",%u,%u,%u,%" PRIu64 "\n", c->jobs[i].dev, s->size,
				s->offset, s->round, s->slot, s->ns);
		}
	}
	if (fclose(f) != 0)
		rc = ap_error_set(&e, ENOMEM, "%s: %s", c->samples, strerror(ENOMEM));
	if (!rc)
		rc = ap_outfile_write_commit(&c->samples_out, c->samples, buf, len, &e);
	ap_outfile_discard(&c->samples_out);
	free(buf);
	if (rc)
		ap_warnx(CMD, NULL, "%s", e.msg);
	return rc;
}

/* --record and --prometheus: each device's verdict, then the metrics file. */
static int report_fleet(struct ctl *c)
{
	struct ap_prom *p = c->prometheus ? ap_prom_new() : NULL;
	size_t i;
	int rc = 0;

	for (i = 0; i < c->njobs; i++) {
		const struct job *j = &c->jobs[i];
		const struct ap_probe_result *r = &j->r;

		if (c->record_set && j->run.started && !j->run.rc && !r->interrupted &&
		    ap_fleet_record(CMD, c->record, "probe", j->dev, &j->d.id, &r->verdict,
				    c->quiet) != 0)
			rc = -1;
		if (p) {
			struct ap_fleet_probe m = {
				.dev = j->dev, .id = &j->d.id, .v = j->run.started ? &r->verdict : NULL,
				.logical_sector = j->d.logical_sector,
				.reported_physical = j->d.reported_physical,
				.seconds = r->end_ns > r->start_ns ?
					   (double)(r->end_ns - r->start_ns) / 1e9 : 0,
				.ok = j->run.started && !j->run.rc && !r->interrupted,
			};

			ap_fleet_prom_probe(p, &m);
		}
	}
	if (p && ap_fleet_prom_commit(CMD, &c->prom, p) != 0)
		rc = -1;
	ap_prom_free(p);
	return rc;
}

/* --dry-run: what the probe of @dev would do, from its plan. */
static void print_plan(const struct ctl *c, const char *dev, const struct ap_probe_plan *p,
		       const char *journal, const struct ap_cachectl *wc)
{
	uint64_t lo = 0, hi = 0, all = 0, lead_at, before_at;
	size_t lead_n, before_n;
	unsigned nominal = c->o.confirm && p->nsizes > 1 ? 2 : 1;
	char b1[32], b2[32], b3[32], t[32], *rs;
	size_t i;

	printf("dry run: nothing written. The probe would:\n");
	printf("  on %s (%u-byte logical, %u-byte reported physical sectors, %s),\n", dev,
	       p->logical_sector, p->reported_physical,
	       ap_size_exact(p->dev_size, b1, sizeof(b1)));
	rs = ap_size_to_human(p->region_size);
	printf("  use the scratch region of %" PRIu64 " bytes (%s) from byte %" PRIu64 " (%s):\n"
	       "  %u slots %s apart, %s touched in each;\n", p->region_size, rs, p->region_start,
	       ap_size_exact(p->region_start, b1, sizeof(b1)), p->slots,
	       ap_size_exact(p->stride, b2, sizeof(b2)),
	       ap_size_exact(p->span, b3, sizeof(b3)));
	free(rs);
	if (c->o.mode == AP_PROBE_PRESERVE)
		printf("  read the %u slots, each with the %s on either side that a torn\n"
		       "  write may reach (%s in all), into the undo journal\n  %s and sync it,\n",
		       p->slots, ap_size_exact(p->margin, b2, sizeof(b2)),
		       ap_size_exact((uint64_t)p->slots * ap_probe_record_len(p), b1, sizeof(b1)),
		       journal);
	if (c->o.mode != AP_PROBE_READONLY)
		printf("  write a slot's %s once before its first timed write (untimed, to\n"
		       "  warm up; only the slots the rounds use),\n",
		       ap_size_exact(p->span, b1, sizeof(b1)));
	printf("  then time %s at every offset of each size,\n",
	       c->o.mode == AP_PROBE_READONLY ? "O_DIRECT reads" : "single O_DIRECT|O_DSYNC writes");
	ap_probe_lead_in(p, 0, 0, &lead_at, &lead_n);
	ap_probe_lead_in_before(p, 1ULL << 40, 0, &before_at, &before_n);
	if (c->o.mode != AP_PROBE_READONLY && lead_n)
		printf("  on a rotating disk each after an untimed read of %s from %s past its\n"
		       "  end (its lead-in), a round's writes in one slot (the phase screen's\n"
		       "  each in the next slot, its lead-in ending %s before the write),\n",
		       ap_size_exact(lead_n, b1, sizeof(b1)), ap_size_exact(lead_at, b2, sizeof(b2)),
		       ap_size_exact((1ULL << 40) - before_at - before_n, t, sizeof(t)));
	printf("  %u to %u rounds per size:\n", c->o.min_rounds, c->o.max_rounds);
	for (i = 0; i < p->nsizes; i++) {
		unsigned n = ap_probe_noffsets(p, p->sizes[i]);

		printf("    %8s: %4u offsets, %" PRIu64 " to %" PRIu64 " %s\n",
		       ap_size_exact(p->sizes[i], b1, sizeof(b1)), n, (uint64_t)n * c->o.min_rounds,
		       (uint64_t)n * c->o.max_rounds,
		       c->o.mode == AP_PROBE_READONLY ? "reads" : "writes");
		if (i < nominal)
			lo += (uint64_t)n * c->o.min_rounds;
		hi += (uint64_t)n * c->o.max_rounds;
	}
	/* an honest drive: the smallest size, then the phase screen (or every size) */
	all = (uint64_t)ap_probe_noffsets(p, p->sizes[0]) * c->o.min_rounds;
	if (p->nsizes >= 3 && c->o.mode != AP_PROBE_READONLY)
		all += p->sizes[p->nsizes - 1] / p->logical_sector * c->o.min_rounds;
	else
		for (i = 1; i < p->nsizes; i++)
			all += (uint64_t)ap_probe_noffsets(p, p->sizes[i]) * c->o.min_rounds;
	printf("  in all %" PRIu64 " to %" PRIu64 " timed %s: the fewest when the first %s\n"
	       "  clear after %u rounds, the most when every size runs %u rounds;\n", lo, hi,
	       c->o.mode == AP_PROBE_READONLY ? "reads" : "writes",
	       nominal == 2 ? "two sizes are" : "size is", c->o.min_rounds, c->o.max_rounds);
	/*
	 * A rough estimate from an assumed 10 ms per write (about a
	 * revolution of a 7200 rpm disk and the lead-in), rounded up to a
	 * second. An honest drive needs every size.
	 */
	ap_progress_format_eta(c->budget_ns, t, sizeof(t));
	ap_progress_format_eta((lo * 10 + 999) / 1000 * 1000 * 1000 * 1000, b1, sizeof(b1));
	ap_progress_format_eta((all * 10 + 999) / 1000 * 1000 * 1000 * 1000, b2, sizeof(b2));
	printf("  duration: at most %s (--time-budget); the fewest, %" PRIu64 " %s, take\n"
	       "  roughly %s at an assumed 10 ms each (a rough estimate for a 7200 rpm\n"
	       "  disk, rounded up); an honest drive needs the smallest size and the\n"
	       "  largest at each of its phases, at least %" PRIu64 " %s, roughly %s.\n", t, lo,
	       c->o.mode == AP_PROBE_READONLY ? "reads" : "writes",
	       b1, all, c->o.mode == AP_PROBE_READONLY ? "reads" : "writes", b2);
	if (c->wcache_off && wc)
		printf("  With the write cache of %s off (%s, now \"%s\"), restored after.\n",
		       wc->dev, ap_wcache_how_name(wc->w.how), wc->w.orig);
	else if (c->wcache_off)
		printf("  With the drive's write cache off, restored after.\n");
	if (c->o.mode == AP_PROBE_PRESERVE)
		printf("  Then write the original bytes back, verify every one and delete the "
		       "journal.\n");
	else if (c->o.mode == AP_PROBE_DESTRUCTIVE)
		printf("  The region's data is destroyed; the rest of the device is not touched.\n");
	else
		printf("  Nothing is written.\n");
}

/* --dry-run after every check: the gate's description and the plan of each device. */
int probe_dry_run(struct ctl *c, size_t nnamed)
{
	size_t i;

	for (i = 0; i < c->njobs; i++) {
		struct job *j = &c->jobs[i];

		if (i)
			printf("\n");
		if (i < nnamed) {
			if (j->have_t) {
				struct ap_safety_opts so = { .dry_run = true };

				ap_cmd_confirm(CMD, j->dev, &j->t, &so, NULL);	/* describes only */
			}
			print_plan(c, j->dev, &j->plan, j->journal, j->wc_found ? &j->wc : NULL);
		} else {
			struct ap_emu_spec spec;
			struct ap_probe_plan plan;
			struct ap_error e = { 0 };
			char *name = probe_emu_placeholder(i - nnamed), *jp, *jd, *text;
			struct job tmp = { .dev = name };
			int rc = probe_emu_spec(c, i - nnamed, &spec);

			if (rc) {
				free(name);
				return rc;
			}
			/* it reports its logical sector as its physical one */
			rc = ap_probe_plan(&c->o, spec.capacity, spec.logical_sector, &plan, &e);
			text = ap_emu_spec_format(&spec);
			ap_emu_spec_free(&spec);
			if (rc) {
				free(text);
				free(name);
				return ap_errx(CMD, "--emulate", rc, "%s", e.msg);
			}
			plan.reported_physical = spec.logical_sector;
			jp = probe_journal_path(c, &tmp);
			if (c->o.mode == AP_PROBE_PRESERVE) {
				struct ap_disk_identity id = { .size = spec.capacity,
							       .logical_sector = spec.logical_sector };

				rc = probe_journal_usable("--emulate", jp, &plan, &id);
				if (rc) {
					free(jp);
					free(text);
					free(name);
					return rc;
				}
			}
			printf("dry run: would set up an emulated drive (%s).\n", text);
			free(text);
			ap_xasprintf(&jd, "in %s", dirname(jp));
			print_plan(c, "the emulated drive", &plan, jd, NULL);
			free(jd);
			free(jp);
			free(name);
		}
	}
	{
		const struct ap_cmd_output outs[] = { { "--plot", c->plot },
						      { "--samples", c->samples },
						      { "--prometheus", c->prometheus },
						      { "--record", c->record_set ? c->record : NULL } };

		ap_cmd_dry_run_outputs(outs, AP_ARRAY_SIZE(outs));
	}
	return AP_EXIT_OK;
}

/* The worst outcome over the devices: signal, failure, no verdict, success. */
static int jobs_status(const struct ctl *c)
{
	int worst = AP_EXIT_OK, sig;
	size_t i;

	for (i = 0; i < c->njobs; i++) {
		const struct job *j = &c->jobs[i];

		if (j->r.interrupted)
			worst = AP_EXIT_SIGNAL_BASE + j->r.interrupted;
		else if ((j->run.rc || j->d.journal_kept) && worst < AP_EXIT_SIGNAL_BASE)
			worst = AP_EXIT_FAILURE;
		else if ((!j->r.verdict.resolved || j->r.verdict.tentative) &&
			 worst == AP_EXIT_OK)
			worst = AP_EXIT_INCONCLUSIVE;	/* a tentative verdict is none */
	}
	if ((sig = ap_sig_pending()) && worst < AP_EXIT_SIGNAL_BASE)
		worst = AP_EXIT_SIGNAL_BASE + sig;
	return worst;
}

/*
 * After the run: the devices go back first (emulated drives detach after
 * the output), then the results, the samples, the fleet's files and the
 * plots. The exit status.
 */
int probe_report_jobs(struct ctl *c)
{
	int rc = AP_EXIT_OK;
	size_t i;

	for (i = 0; i < c->njobs; i++) {
		struct job *j = &c->jobs[i];

		if (j->fd_hold >= 0) {
			close(j->fd_hold);
			j->fd_hold = -1;
		}
		if (j->run.rc)
			ap_warnx(CMD, j->dev, "%s", j->e.msg);
		if (j->d.journal_kept)
			ap_warnx(CMD, j->dev, "the data could not be verified; the undo journal "
				 "%s was kept: run '%s %s --undo %s'", j->d.journal, AP_PROG, CMD,
				 j->d.journal);
	}
	if (print_results(c) != 0) {
		ap_warnx(CMD, NULL, "write error on standard output");
		rc = AP_EXIT_FAILURE;
	}
	if (c->samples && write_samples(c) != 0 && !rc)
		rc = AP_EXIT_FAILURE;
	if ((c->record_set || c->prometheus) && report_fleet(c) != 0 && !rc)
		rc = AP_EXIT_FAILURE;
	if (c->plot)
		for (i = 0; i < c->njobs; i++)
			if (write_plot(&c->jobs[i]) != 0 && !rc)
				rc = AP_EXIT_FAILURE;
	return rc ? rc : jobs_status(c);
}
