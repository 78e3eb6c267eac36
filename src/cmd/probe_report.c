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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "cmd/commands.h"
#include "cmd/publish.h"
#include "cmd/probeP.h"
#include "analysis/verdict_json.h"
#include "device/claims.h"
#include "device/topology.h"
#include "emu/model.h"
#include "lib/exitcodes.h"
#include "lib/outfile.h"
#include "lib/sig.h"
#include "lib/util.h"
#include "probe/prepare.h"
#include "probe/probe.h"
#include "ui/out.h"
#include "ui/plot.h"

/* probe's columns (declared in cmd/probeP.h); their names are API. */
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

static const int default_cols[] = {
	COL_DEVICE, COL_SIZE, COL_OFFSET, COL_N, COL_MEDIAN, COL_Q1, COL_Q3, COL_FAST, COL_REL,
};
const struct ap_opts_cols probe_cols = {
	probe_infos, PROBE_NCOLS, default_cols, AP_ARRAY_SIZE(default_cols)
};

/* The keys of the "results" objects without -o: the device is the document's. */
static const int json_cols[] = {
	COL_SIZE, COL_OFFSET, COL_N, COL_MEDIAN, COL_Q1, COL_Q3, COL_FAST, COL_ALIGNED, COL_REL,
};

/*
 * Offset @i of size @sz of job @j, every column: a table line and an object
 * of "results". @best: ap_verdict_min_median() of the size.
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
		ap_row_bool(r, COL_ALIGNED, ap_verdict_offset_aligned(fv, st->offset));
	ap_row_double(r, COL_REL, best > 0 ? st->median / best : 1.0);
}

static void add_rows(struct libscols_table *tb, struct ap_row *r, const struct job *j,
		     const struct ap_probe_size *sz)
{
	double best = ap_verdict_min_median(&sz->verdict);
	size_t i;

	for (i = 0; i < sz->verdict.nstats; i++) {
		fill_row(r, j, sz, i, best);
		(void)ap_row_add_line(r, tb);	/* out of memory: a line less, as before */
	}
}

/*
 * What @j's device claims of its I/O units (device/claims.h) and the levels
 * its verdict found: false when the device's topology cannot be read.
 */
static bool job_claims(const struct job *j, struct ap_claims *cl, struct ap_levels *lv)
{
	struct ap_topology t;
	struct ap_error e = { 0 };

	if (ap_topology_read(j->dev, &t, &e) != 0)
		return false;
	ap_claims_read(&t, cl);
	ap_topology_free(&t);
	ap_verdict_levels(&j->r.verdict, lv);
	return true;
}

/* The words after the table (probe/words.c), the device's claims against them,
 * what to run next after an effect. */
static void print_words(const struct job *j)
{
	const struct ap_verdict *v = &j->r.verdict;
	char *s = ap_probe_verdict_words(j->dev, &j->r);
	struct ap_claims cl;
	struct ap_levels lv;

	fputs(s, stdout);
	free(s);
	if (job_claims(j, &cl, &lv))
		ap_cmd_print_claims(&cl, &lv, true, "  ");
	if (v->sensitive && v->resolved)
		ap_cmd_print_verdict_next_steps(j->dev, j->emulated ? "the emulated drive this run "
						"measured is detached when it ends" : NULL,
						&j->r.verdict, j->r.clear);
	s = ap_probe_result_caveats(&j->r, &j->p.d);
	if (s)
		fputs(s, stdout);
	free(s);
}

/* One device's result: the engine's document, the rows of the columns in it. */
static struct json_object *job_json(const struct ap_cols *cs, const struct job *j)
{
	const struct ap_probe_result *r = &j->r;
	struct json_object *res = json_object_new_array(), *doc;
	struct ap_claims cl;
	struct ap_levels lv;
	struct ap_row row;
	size_t i, k;

	ap_row_init(&row, cs);
	for (i = 0; i < r->nsizes; i++) {
		const struct ap_probe_size *sz = &r->sizes[i];
		double best = ap_verdict_min_median(&sz->verdict);

		for (k = 0; k < sz->verdict.nstats; k++) {
			fill_row(&row, j, sz, k, best);
			json_object_array_add(res, ap_row_json(&row));
		}
	}
	ap_row_free(&row);
	doc = ap_probe_result_to_json(j->dev, j->emulated, &j->p.d, r,
				      ap_cmd_verdict_next_steps_json(j->emulated ? NULL : j->dev,
								     &r->verdict, r->clear),
				      res, j->run.rc ? j->e.msg : NULL);
	json_object_object_add(doc, "claims", job_claims(j, &cl, &lv) ?
			       ap_claims_to_json(&cl, &lv) : NULL);
	return doc;
}

static int write_plot(struct job *j)
{
	const struct ap_probe_result *r = &j->r;
	const struct ap_verdict *fv = &r->verdict;
	int idx = ap_probe_shown_size(r);
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
				  ap_verdict_offset_aligned(fv, v->stats[i].offset) : v->stats[i].fast;
	}
	title = ap_probe_verdict_line(j->dev, &j->r);
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

static int print_results(struct probe_cmd *c)
{
	int cols[PROBE_NCOLS * 2];
	size_t ncols = 0, i, k;
	struct ap_cols cs;
	bool have_cols;
	int rc = 0;

	/* -o was checked before the run */
	have_cols = ap_opts_columns(CMD, &c->out, &probe_cols, cols, &ncols) == 0;
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
			int idx = ap_probe_shown_size(r);

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
			print_words(&c->jobs[i]);
		}
	}
	return rc;
}

static int write_samples(struct probe_cmd *c)
{
	struct ap_error e = { 0 };
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);
	int rc = 0;

	if (!f) {
		ap_outfile_discard(&c->samples_out);
		ap_warnx(CMD, c->samples, "%s", strerror(errno));
		return -ENOMEM;
	}
	fprintf(f, "device,size,offset,round,slot,ns\n");
	for (i = 0; i < c->njobs; i++)
		ap_probe_samples_csv(f, c->jobs[i].dev, &c->jobs[i].r);
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
static int report_fleet(struct probe_cmd *c)
{
	struct ap_prom *p = c->prometheus ? ap_prom_new() : NULL;
	size_t i;
	int rc = 0;

	for (i = 0; i < c->njobs; i++) {
		const struct job *j = &c->jobs[i];
		const struct ap_probe_result *r = &j->r;
		bool ok = j->run.started && !j->run.rc && !r->interrupted;	/* ran to its end */

		if (c->record_set && ok &&
		    ap_publish_record(CMD, c->record, "probe", j->dev, &j->p.d.id, &r->verdict,
				    c->quiet) != 0)
			rc = -1;
		if (p) {
			struct ap_fleet_probe m = {
				.dev = j->dev, .id = &j->p.d.id, .v = j->run.started ? &r->verdict : NULL,
				.logical_sector = j->p.d.logical_sector,
				.reported_physical = j->p.d.reported_physical,
				.seconds = ap_probe_result_seconds(r), .ok = ok,
			};

			ap_fleet_prom_probe(p, &m);
		}
	}
	if (p && ap_publish_prom_commit(CMD, &c->prom, p) != 0)
		rc = -1;
	ap_prom_free(p);
	return rc;
}

/*
 * --dry-run: what the probe of @dev would do, from its plan and its options
 * @o (a device's own: its identity may skip a step; probe/words.c).
 */
static void print_plan(const struct probe_cmd *c, const struct ap_probe_opts *o, const char *dev,
		       const struct ap_probe_plan *p, const char *journal,
		       const struct ap_cachectl *wc)
{
	char *s = ap_probe_plan_words(o, c->budget_ns, c->wcache_off, dev, p, journal, wc);

	fputs(s, stdout);
	free(s);
}

/* --dry-run after every check: the gate's description and the plan of each device. */
/* --dry-run of the emulated drive @k: its plan, from its spec, before it is set up. */
static int dry_run_emulated(struct probe_cmd *c, size_t k)
{
	struct ap_emu_spec spec;
	struct ap_probe_plan plan;
	struct ap_error e = { 0 };
	char *name = probe_emu_placeholder(k), *jp, *jd, *text;
	struct job tmp = { .dev = name };
	int rc = probe_emu_spec(c, k, &spec);

	if (rc) {
		free(name);
		return rc;
	}
	text = ap_emu_spec_format(&spec);
	jp = probe_journal_path(c, &tmp);
	rc = ap_probe_plan_ahead(&c->o, spec.capacity, spec.logical_sector, "--emulate", jp,
				 &plan, &e);
	ap_emu_spec_free(&spec);
	if (!rc) {
		printf("dry run: would set up an emulated drive (%s).\n", text);
		ap_xasprintf(&jd, "in %s", dirname(jp));
		print_plan(c, &c->o, "the emulated drive", &plan, jd, NULL);
		free(jd);
	}
	free(jp);
	free(text);
	free(name);
	return rc ? ap_err_error(CMD, NULL, &e) : 0;
}

int probe_dry_run(struct probe_cmd *c, size_t nnamed)
{
	size_t i;
	int rc;

	for (i = 0; i < c->njobs; i++) {
		struct job *j = &c->jobs[i];

		if (i)
			printf("\n");
		if (i < nnamed) {
			if (j->have_t) {
				struct ap_safety_opts so = { .dry_run = true };

				ap_cmd_confirm(CMD, j->dev, &j->t, &so, NULL);	/* describes only */
			}
			print_plan(c, &j->p.o, j->dev, &j->p.plan, j->p.journal,
				   j->p.wc_found ? &j->p.wc : NULL);
		} else if ((rc = dry_run_emulated(c, i - nnamed)) != 0) {
			return rc;
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
static int jobs_status(const struct probe_cmd *c)
{
	int worst = AP_EXIT_OK, sig;
	size_t i;

	for (i = 0; i < c->njobs; i++) {
		const struct job *j = &c->jobs[i];

		if (j->r.interrupted) {
			worst = AP_EXIT_SIGNAL_BASE + j->r.interrupted;
		} else if (j->run.rc || j->p.d.journal_kept) {
			/* another writer's ranges left alone: refused for safety */
			int st = j->p.d.changed && (!j->run.rc || j->run.rc == -EPERM) ?
				 AP_EXIT_REFUSED : AP_EXIT_FAILURE;

			if (worst < AP_EXIT_SIGNAL_BASE && (worst == AP_EXIT_OK ||
			    worst == AP_EXIT_INCONCLUSIVE || st == AP_EXIT_FAILURE))
				worst = st;
		} else if (!j->r.verdict.resolved || j->r.verdict.tentative) {
			/* a tentative verdict is none; said on stderr, -q or not */
			char *why = ap_probe_no_verdict_reason(&j->r);

			ap_warnx(CMD, j->dev, "%s", why);
			free(why);
			if (worst == AP_EXIT_OK)
				worst = AP_EXIT_INCONCLUSIVE;
		}
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
int probe_report_jobs(struct probe_cmd *c)
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
		if (j->p.d.journal_kept && j->p.d.changed)
			ap_warnx(CMD, j->dev, "the ranges named were written by someone else during "
				 "the probe and are left as they are; the undo journal %s is kept: "
				 "'%s %s --force --undo %s' puts the probe's original bytes back over "
				 "them, or delete it to keep the other writer's", j->p.d.journal,
				 AP_PROG, CMD, j->p.d.journal);
		else if (j->p.d.journal_kept)
			ap_warnx(CMD, j->dev, "the data could not be verified; the undo journal "
				 "%s was kept: run '%s %s --undo %s'", j->p.d.journal, AP_PROG, CMD,
				 j->p.d.journal);
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
