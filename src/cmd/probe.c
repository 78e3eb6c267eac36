// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * alignprobe probe DEVICE... | --emulate[=SPEC] | --undo JOURNAL [DEVICE]
 *
 * Options, the safety gate, emulated drives, one thread per device, the
 * progress line, and everything printed: the table per write size and
 * offset, the verdict in words, JSON and the plot. The work is done by
 * src/probe/probe.c (engine), src/probe/journal.c (undo journal) and src/analysis/analysis.c.
 *
 * Modes and what the gate requires:
 *   destructive (default)  every in-use check of the safety gate, the
 *                          device held O_EXCL, and a confirmation (typing
 *                          the device name) or --yes; only the scratch
 *                          region is written.
 *   --preserve             the same in-use checks and O_EXCL hold (nothing
 *                          else may write while the original bytes are
 *                          journalled and written back), no confirmation:
 *                          every byte is written back, verified, and the
 *                          undo journal covers a crash.
 *   --read-only            no gate (nothing is written).
 *   --emulate              drives we create ourselves: no confirmation.
 *
 * JSON: one device prints {"device", "verdict", "results", ...}; several
 * print {"devices": [ {same}, ... ]}.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>

#include "analysis/verdict_json.h"
#include "cmd/commands.h"
#include "cmd/fleet.h"
#include "device/safety.h"
#include "emu/emu.h"
#include "fleet/vstore.h"
#include "lib/exitcodes.h"
#include "lib/outfile.h"
#include "lib/sig.h"
#include "lib/state.h"
#include "lib/stats.h"
#include "lib/util.h"
#include "probe/journal.h"
#include "probe/probe.h"
#include "ui/confirm.h"
#include "ui/out.h"
#include "ui/plot.h"
#include "ui/progress.h"

#define CMD "probe"
#define DEFAULT_BUDGET_NS (120ULL * AP_NSEC_PER_SEC)

enum {
	COL_DEVICE, COL_SIZE, COL_OFFSET, COL_N, COL_MEDIAN, COL_Q1, COL_Q3, COL_FAST,
	COL_ALIGNED, COL_REL,
};

static const struct ap_colinfo infos[] = {
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

/* The keys of the "results" objects without -o: the device is the document's. */
static const int json_cols[] = {
	COL_SIZE, COL_OFFSET, COL_N, COL_MEDIAN, COL_Q1, COL_Q3, COL_FAST, COL_ALIGNED, COL_REL,
};

enum {
	OPT_EMULATE = AP_OPT_OUT_LAST,
	OPT_PRESERVE,
	OPT_READ_ONLY,
	OPT_JOURNAL,
	OPT_UNDO,
	OPT_MIN_SIZE,
	OPT_MAX_SIZE,
	OPT_REGION_START,
	OPT_REGION_SIZE,
	OPT_SLOTS,
	OPT_MIN_ROUNDS,
	OPT_MAX_ROUNDS,
	OPT_BUDGET,
	OPT_SEED,
	OPT_NO_CONFIRM,
	OPT_ALPHA,
	OPT_MIN_SLOWDOWN,
	OPT_ALLOW_METADATA,
	OPT_ALLOW_PARTITION,
	OPT_PLOT,
	OPT_ALL_SIZES,
	OPT_SAMPLES,
	OPT_ALLOW_UNIDENTIFIED,
	OPT_RECORD,
	OPT_PROMETHEUS,
	OPT_DRY_RUN,
};

struct job {
	char *dev;			/* what the user named, or the emulated loop device */
	bool emulated;
	struct ap_emu *emu;
	struct ap_probe_dev d;
	struct ap_probe_plan plan;
	struct ap_probe_opts o;
	struct ap_probe_result r;
	struct ap_error e;
	int rc;
	int fd_hold;
	struct ap_safety_target t;	/* from the gate's checks until confirmed */
	bool have_t;
	char *journal;
	struct ap_outfile plot;		/* --plot, opened before anything is written */
	pthread_t th;
	bool started, passed_gate;
	volatile int done;
};

struct ctl {
	struct ap_out out;
	struct ap_probe_opts o;
	bool yes, quiet, all_sizes, allow_partition, budget_set, slots_set, allow_unidentified;
	bool dry_run;
	uint64_t budget_ns;
	const char *journal;
	const char *undo;
	const char *plot;
	const char *samples;
	struct ap_outfile samples_out;	/* opened before anything is written */
	const char *record;		/* --record[=STORE]: the store, once checked */
	bool record_set;
	const char *prometheus;		/* --prometheus FILE */
	struct ap_outfile prom;		/* opened before anything is written */
	char **emu_specs;
	size_t nemu;
	char **names;			/* the devices named */
	size_t nnamed;
	struct job *jobs;		/* the named ones first, then the emulated ones */
	size_t njobs;
};

static void usage(void)
{
	FILE *f = stdout;
	size_t i;

	fprintf(f, "Usage:\n %s %s [options] DEVICE...\n", AP_PROG, CMD);
	fprintf(f, " %s %s [options] --emulate[=SPEC]\n", AP_PROG, CMD);
	fprintf(f, " %s %s --undo JOURNAL [DEVICE]\n\n", AP_PROG, CMD);
	fputs("Time single synchronous direct writes of 4 KiB .. 64 KiB at every logical-sector\n"
	      "offset, randomized and interleaved over a region larger than any drive cache,\n"
	      "and infer the hidden physical sector size and the lowest aligned LBA. Several\n"
	      "devices are probed in parallel, one thread each.\n\n", f);
	fputs("Modes:\n"
	      "     (default)              destructive: writes a pattern into the scratch region\n"
	      "                            (asks for the device name unless --yes)\n"
	      " -P, --preserve             read the original bytes first, keep them in an undo\n"
	      "                            journal, write them back, verify; nothing is lost\n"
	      " -R, --read-only            timing reads only (much weaker evidence)\n"
	      "     --undo JOURNAL [DEV]   restore a device from the journal of a killed\n"
	      "                            preserving probe, verify, delete the journal; the\n"
	      "                            disk is found by its identity (WWN, serial, model,\n"
	      "                            backing file, content) and must be DEV if given\n\n", f);
	fputs("Options:\n"
	      "     --emulate[=SPEC]       probe an emulated drive (repeatable), e.g.\n"
	      "                            phys=4096,lba=7,rmw=300us,size=256M; default\n"
	      "                            " AP_CMD_EMU_DEFAULT_SPEC "\n"
	      "     --journal FILE         the undo journal (default\n"
	      "                            /var/tmp/alignprobe-undo-DEV-PID.journal, or in\n"
	      "                            $ALIGNPROBE_JOURNAL_DIR); several devices: FILE.DEV\n"
	      "     --min-size SIZE        smallest write size (default 4K)\n"
	      "     --max-size SIZE        largest write size (default 64K)\n"
	      "     --region-start SIZE    where the scratch region starts (default 1M)\n"
	      "     --region-size SIZE     its size (default 1G or what the device has)\n"
	      "     --slots N              places the writes are spread over (default 128)\n"
	      "     --min-rounds N         rounds per size before an early stop (default 3)\n"
	      "     --max-rounds N         rounds per size at most (default 40)\n"
	      "     --time-budget DUR      for the whole call (default 2m), e.g. 30s\n"
	      "     --seed N               of the randomized order (default 1)\n"
	      "     --no-confirm           stop at the first size that shows the unit\n"
	      "     --alpha P              significance level (default 0.001)\n"
	      "     --min-slowdown X       margin of \"no effect\": none of X or more; an\n"
	      "                            effect below it is reported as small (default 1.5)\n"
	      "     --allow-metadata-area  allow a region over LBA 0..33 or the last 33 sectors\n"
	      "     --allow-partition      probe a partition instead of a whole disk\n"
	      "     --allow-unidentified   --undo JOURNAL DEV: restore although the journal\n"
	      "                            cannot tell its disk from another (an older one)\n"
	      " -y, --yes                  destructive mode without the confirmation\n"
	      "     --dry-run              run the safety checks and print the plan (device,\n"
	      "                            region, sizes, number of writes, duration);\n"
	      "                            write nothing\n"
	      "     --plot FILE.svg        median latency per offset (several devices:\n"
	      "                            FILE-DEV.svg)\n"
	      "     --all-sizes            table rows for every size (default: the deciding one)\n"
	      "     --samples FILE         save every timed operation as CSV (device, size,\n"
	      "                            offset, round, slot, ns)\n"
	      "     --record[=STORE]       add each verdict to the verdict store for the\n"
	      "                            disk's model (default $ALIGNPROBE_VERDICTS or\n"
	      "                            " AP_VSTORE_DEFAULT ")\n"
	      "     --prometheus FILE      write the results for node_exporter's textfile\n"
	      "                            collector (atomically)\n"
	      " -q, --quiet                no progress line\n", f);
	ap_out_usage(f);
	fputs(" -h, --help                 display this help\n"
	      " -V, --version              display version\n", f);
	fputs("\nAvailable output columns:\n", f);
	for (i = 0; i < AP_ARRAY_SIZE(infos); i++)
		fprintf(f, " %-10s %s\n", infos[i].name, infos[i].help);
	fputs("\n--json prints {\"device\", \"verdict\", \"results\": [per size and offset],\n"
	      "\"sizes\": [per size, with its own verdict], ...}; several devices print\n"
	      "{\"devices\": [ that, ... ]}. The table shows the size that decided\n"
	      "(--all-sizes: every size).\n\n", f);
	fputs("Exit status: 0 verdict, 1 failure, 2 usage, 3 refused for safety, 5 no verdict\n"
	      "within the budget, 128+N interrupted by signal N (preserving mode restored first).\n",
	      f);
}

/* ------------------------------------------------------------------ */

/*
 * The start gate: no device's timed writes begin before every device is
 * ready or has failed, so the disks of a JBOD are measured side by side
 * whatever each one's preparation (identity, journal, originals) costs.
 */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t waiting;		/* started devices neither ready nor finished */
	uint64_t opened_ns;
} gate = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0 };

/* One device no longer holds the gate closed (locked by the caller). */
static void gate_leave_locked(void)
{
	if (gate.waiting && --gate.waiting == 0) {
		gate.opened_ns = ap_now_ns();
		pthread_cond_broadcast(&gate.cond);
	}
}

static uint64_t gate_pass(void *arg)
{
	struct job *j = arg;
	uint64_t t;

	pthread_mutex_lock(&gate.lock);
	j->passed_gate = true;
	gate_leave_locked();
	while (gate.waiting && !ap_sig_pending()) {
		struct timespec ts;

		/* wake up now and then: a signal ends the wait (and the probe) */
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 100 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&gate.cond, &gate.lock, &ts);
	}
	t = gate.waiting ? 0 : gate.opened_ns;
	pthread_mutex_unlock(&gate.lock);
	return t;
}

static void *job_thread(void *arg)
{
	struct job *j = arg;

	j->o.ready = gate_pass;
	j->o.ready_arg = j;
	j->rc = ap_probe_device(&j->d, &j->o, &j->r, &j->e);
	pthread_mutex_lock(&gate.lock);
	if (!j->passed_gate)
		gate_leave_locked();	/* failed before measuring */
	pthread_mutex_unlock(&gate.lock);
	__atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static const char *dev_base(const char *dev)
{
	const char *s = strrchr(dev, '/');

	return s ? s + 1 : dev;
}

static char *journal_path(const struct ctl *c, const struct job *j)
{
	const char *dir = getenv("ALIGNPROBE_JOURNAL_DIR");
	char *p;

	if (c->journal) {
		if (c->njobs == 1)
			return ap_xstrdup(c->journal);
		ap_xasprintf(&p, "%s.%s", c->journal, dev_base(j->dev));
		return p;
	}
	ap_xasprintf(&p, "%s/alignprobe-undo-%s-%d.journal", dir && *dir ? dir : "/var/tmp",
		     dev_base(j->dev), (int)getpid());
	return p;
}

static char *plot_path(const char *plot, const char *dev, bool several)
{
	const char *dot, *slash;
	char *p;

	if (!several || strcmp(plot, "-") == 0)
		return ap_xstrdup(plot);
	dot = strrchr(plot, '.');
	slash = strrchr(plot, '/');
	if (!dot || (slash && dot < slash))
		ap_xasprintf(&p, "%s-%s", plot, dev_base(dev));
	else
		ap_xasprintf(&p, "%.*s-%s%s", (int)(dot - plot), plot, dev_base(dev), dot);
	return p;
}

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
	return v->period ? off % v->period == v->lowest_aligned_lba % v->period : true;
}

/* Offset @i of size @sz of job @j, every column: a table line and an object of "results". */
static void fill_row(struct ap_row *r, const struct job *j, const struct ap_probe_size *sz,
		     size_t i)
{
	const struct ap_verdict *v = &sz->verdict, *fv = &j->r.verdict;
	const struct ap_offset_stat *st = &v->stats[i];
	double best = min_median(v);

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
	size_t i;

	for (i = 0; i < sz->verdict.nstats; i++) {
		fill_row(r, j, sz, i);
		(void)ap_row_add_line(r, tb);	/* out of memory: a line less, as before */
	}
}

/* The first LBA >= @from that is aligned under @v. */
static uint64_t first_aligned(const struct ap_verdict *v, uint64_t from)
{
	uint64_t p = v->period ? v->period : 1, ph = v->lowest_aligned_lba % p;
	uint64_t x = from - from % p + ph;

	return x < from ? x + p : x;
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
			     "reported (%u logical, %u physical)", j->dev, v->min_slowdown,
			     v->physical_sector, v->logical_sector, v->reported_physical);
	else if (v->resolved)
		ap_xasprintf(&s, "%s: no alignment effect of %.2fx or more, although the drive reports "
			     "%u-byte physical sectors (%u logical)", j->dev, v->min_slowdown,
			     v->reported_physical, v->logical_sector);
	else if (v->sensitive)
		ap_xasprintf(&s, "%s: alignment matters, but the physical sector size is not "
			     "resolved", j->dev);
	else
		ap_xasprintf(&s, "%s: no verdict", j->dev);
	return s;
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
	} else if (v->resolved) {
		printf("  no effect of %.2fx or more: equivalence test, confidence %s (the rank "
		       "test for an effect: p = %s)\n", v->min_slowdown,
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
		       ap_size_exact(r->plan.span, b, sizeof(b)), j->d.restore.restored);
}

static struct json_object *job_json(const struct ap_cols *cs, const struct job *j)
{
	const struct ap_probe_result *r = &j->r;
	struct json_object *o = json_object_new_object(), *res = json_object_new_array();
	struct json_object *sizes = json_object_new_array();
	const char *mode = r->mode == AP_PROBE_PRESERVE ? "preserve" :
			   r->mode == AP_PROBE_READONLY ? "read-only" : "destructive";
	struct ap_row row;
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
		for (k = 0; k < v->nstats; k++) {
			fill_row(&row, j, sz, k);
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
	if (j->rc)
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
	rc = ap_outfile_write(&j->plot, svg, strlen(svg));
	if (rc) {
		ap_error_set(&e, -rc, "%s: %s", j->plot.path, strerror(-rc));
		ap_outfile_discard(&j->plot);
	} else {
		rc = ap_outfile_commit(&j->plot, &e);
	}
	if (rc)
		ap_warnx(CMD, NULL, "cannot write plot: %s", e.msg);
	free(svg);
	free(title);
	free(bars);
	return rc;
}

static int print_results(struct ctl *c)
{
	int cols[AP_ARRAY_SIZE(infos) * 2];
	size_t ncols = 0, i, k;
	struct ap_error e = { 0 };
	struct ap_cols cs;
	bool have_cols;
	int rc = 0;

	/* -o was checked before the run */
	have_cols = ap_out_columns(&c->out, infos, AP_ARRAY_SIZE(infos), default_cols,
				   AP_ARRAY_SIZE(default_cols), cols, &ncols, &e) == 0;
	ap_cols_init(&cs, &c->out, infos, AP_ARRAY_SIZE(infos), cols, have_cols ? ncols : 0,
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
			if (!c->jobs[i].started)
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
	if (!rc && (rc = ap_outfile_write(&c->samples_out, buf, len)) != 0)
		ap_error_set(&e, -rc, "%s: %s", c->samples, strerror(-rc));
	if (!rc)
		rc = ap_outfile_commit(&c->samples_out, &e);
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

		if (c->record_set && j->started && !j->rc && !r->interrupted &&
		    ap_fleet_record(CMD, c->record, "probe", j->dev, &j->d.id, &r->verdict,
				    c->quiet) != 0)
			rc = -1;
		if (p) {
			struct ap_fleet_probe m = {
				.dev = j->dev, .id = &j->d.id, .v = j->started ? &r->verdict : NULL,
				.logical_sector = j->d.logical_sector,
				.reported_physical = j->d.reported_physical,
				.seconds = r->end_ns > r->start_ns ?
					   (double)(r->end_ns - r->start_ns) / 1e9 : 0,
				.ok = j->started && !j->rc && !r->interrupted,
			};

			ap_fleet_prom_probe(p, &m);
		}
	}
	if (p && ap_fleet_prom_commit(CMD, &c->prom, p) != 0)
		rc = -1;
	ap_prom_free(p);
	return rc;
}

/* ------------------------------------------------------------------ */

static int do_undo(struct ctl *c, int argc, char **argv)
{
	struct ap_probe_undo u;
	struct ap_error e = { 0 };
	const char *dev = NULL;

	if (argc - optind > 1) {
		ap_usage_error(CMD, "--undo takes one journal and at most one device");
		return AP_EXIT_USAGE;
	}
	if (argc - optind == 1)
		dev = argv[optind];
	if (c->allow_unidentified && !dev) {
		ap_usage_error(CMD, "--allow-unidentified needs the device: --undo JOURNAL DEVICE");
		return AP_EXIT_USAGE;
	}
	/* not the journal's disk: EPERM, refused (3); a bad journal: 2 */
	if (ap_probe_undo(c->undo, dev, c->allow_unidentified, &u, &e) != 0)
		return ap_err_error(CMD, c->undo, &e);
	if (u.incomplete)
		printf("%s: the journal was never completed, so the probe had written nothing to "
		       "%s; journal removed\n", c->undo, u.dev);
	else
		printf("%s: restored from %s: %" PRIu64 " ranges checked, %" PRIu64
		       " rewritten, every byte verified; journal removed\n", u.dev, c->undo,
		       u.st.records, u.st.restored);
	if (u.found)
		printf("%s: found by its identity; the journal named it %s\n", u.dev, u.named);
	return AP_EXIT_OK;
}

/* Refusals and errors before anything is written: 2 or 3. */
static int prepare_job(struct ctl *c, struct job *j)
{
	struct ap_error e = { 0 };
	int rc;

	j->fd_hold = -1;
	j->o = c->o;
	if (access(j->dev, F_OK) != 0)
		return ap_errx(CMD, j->dev, errno, "%s", strerror(errno));
	if (c->o.mode != AP_PROBE_READONLY) {
		/* every in-use check first: any refusal is the gate's (exit 3) */
		struct ap_safety_opts so = { .yes = true, .allow_partition = c->allow_partition };

		rc = ap_cmd_gate(CMD, j->dev, &so, &j->t);
		if (rc)
			return rc;
		j->have_t = true;
	}
	rc = ap_probe_device_geometry(j->dev, &j->d, &e);
	if (rc)
		return ap_err_error(CMD, j->dev, &e);
	j->d.dev = j->dev;
	j->d.fd_hold = -1;
	if (c->record_set && (rc = ap_fleet_record_check_disk(CMD, j->dev, &j->d.id)) != 0)
		return rc;
	rc = ap_probe_plan(&j->o, j->d.size, j->d.logical_sector, &j->plan, &e);
	if (rc)
		return ap_err_error(CMD, j->dev, &e);	/* too small 2, metadata area 3 */
	if (c->slots_set && j->plan.slots < c->o.slots) {
		char b1[32];

		/* the plan fits what the region holds: never fewer than asked, silently */
		ap_warnx(CMD, j->dev, "--slots %u: the scratch region (%s from byte %llu) holds "
			 "at most %u slots; use 1..%u", c->o.slots,
			 ap_size_exact(j->plan.region_size, b1, sizeof(b1)),
			 (unsigned long long)j->plan.region_start, j->plan.slots, j->plan.slots);
		return AP_EXIT_USAGE;
	}
	if (c->o.mode == AP_PROBE_PRESERVE) {
		int on;

		j->journal = journal_path(c, j);
		j->o.journal = j->journal;
		if (access(j->journal, F_OK) == 0) {
			ap_warnx(CMD, j->dev, "the undo journal %s already exists (a killed "
				 "probe's? restore with --undo, or choose another --journal)",
				 j->journal);
			return AP_EXIT_USAGE;
		}
		on = ap_probe_path_on_device(j->journal, j->dev);
		if (on < 0) {
			ap_warnx(CMD, j->dev, "cannot use the journal %s: %s", j->journal,
				 strerror(-on));
			return AP_EXIT_USAGE;
		}
		if (on) {
			ap_warnx(CMD, j->dev, "the undo journal %s would live on the device "
				 "itself; choose another --journal", j->journal);
			return AP_EXIT_REFUSED;
		}
	}
	return 0;
}

/* The confirmation (destructive mode on a drive that is not ours), then hold it. */
static int gate_job(struct ctl *c, struct job *j)
{
	struct ap_safety_opts so = { .yes = c->yes || j->emulated,
				     .allow_partition = c->allow_partition };

	if (!j->have_t)
		return 0;
	so.ask = ap_ui_confirm;
	if (c->o.mode == AP_PROBE_DESTRUCTIVE && !so.yes) {
		char *what, b1[32];
		int rc;

		ap_xasprintf(&what, "The probe overwrites up to %s of %s from byte %llu on (the "
			     "scratch region); the rest of the device is not touched.\n",
			     ap_size_exact(j->plan.region_size, b1, sizeof(b1)), j->dev,
			     (unsigned long long)j->plan.region_start);
		rc = ap_cmd_confirm(CMD, j->dev, &j->t, &so, what);
		free(what);
		if (rc)
			return rc;
	}
	j->fd_hold = j->t.fd;
	j->t.fd = -1;
	ap_safety_target_free(&j->t);
	j->have_t = false;
	return 0;
}

/* The spec of the emulated drive @i: 0 or AP_EXIT_USAGE (printed). */
static int emu_spec(struct ctl *c, size_t i, struct ap_emu_spec *spec)
{
	char *s = ap_cmd_emu_spec_text(c->emu_specs[i]);
	int rc;

	/* one string: a malformed SPEC is quoted with the default before it */
	ap_emu_spec_init(spec);
	rc = ap_cmd_emu_spec(CMD, NULL, s, false, spec);
	free(s);
	return rc;
}

static int attach_emulated(struct ctl *c, size_t i, struct job *j)
{
	struct ap_emu_spec spec;
	struct ap_error e = { 0 };
	int rc;

	rc = emu_spec(c, i, &spec);
	if (rc)
		return rc;
	rc = ap_cmd_emu_attach(CMD, &spec, &j->emu);
	ap_emu_spec_free(&spec);
	if (rc)
		return rc;
	j->dev = ap_xstrdup(ap_emu_device(j->emu));
	j->emulated = true;
	if (c->plot && c->njobs > 1) {
		/* the plot's name carries the device, known only now */
		char *p = plot_path(c->plot, j->dev, true);

		rc = ap_outfile_rename(&j->plot, p, &e);
		free(p);
		if (rc) {
			ap_warnx(CMD, NULL, "%s", e.msg);
			return AP_EXIT_USAGE;
		}
	}
	return 0;
}

/* What names an emulated drive's outputs before it exists. */
static char *emu_placeholder(size_t i)
{
	char *s;

	ap_xasprintf(&s, "emulated-%zu", i);
	return s;
}

/*
 * Every file the run writes, before anything touches a device and before
 * an emulated drive is attached: the plots (one per device), the samples,
 * and (preserving mode) that the undo journals can be created where they
 * go. 0 or an exit code, with the message printed.
 */
static int open_outputs(struct ctl *c, size_t nnamed)
{
	size_t i;
	int rc;

	if (c->samples && (rc = ap_cmd_open_output(CMD, &c->samples_out, c->samples)))
		return rc;
	if (c->prometheus && (rc = ap_cmd_open_output(CMD, &c->prom, c->prometheus)))
		return rc;
	if (c->samples && c->prometheus && ap_outfile_is(&c->prom, c->samples)) {
		ap_warnx(CMD, c->samples, "given for both --samples and --prometheus");
		return AP_EXIT_USAGE;
	}
	for (i = 0; i < c->njobs; i++) {
		struct job *j = &c->jobs[i];
		char *name = i < nnamed ? ap_xstrdup(j->dev) : emu_placeholder(i - nnamed);
		char *p;

		rc = 0;
		if (c->plot) {
			p = plot_path(c->plot, name, c->njobs > 1);
			rc = ap_cmd_open_output(CMD, &j->plot, p);
			free(p);
		}
		if (!rc && c->o.mode == AP_PROBE_PRESERVE) {
			struct job tmp = { .dev = name };

			/* created by the probe itself; an existing one: prepare_job() */
			p = journal_path(c, &tmp);
			if (access(p, F_OK) != 0)
				rc = ap_cmd_check_output(CMD, p, true);
			free(p);
		}
		free(name);
		if (rc)
			return rc;
		if (c->samples && ap_outfile_is(&j->plot, c->samples)) {
			ap_warnx(CMD, c->samples, "given for both --samples and --plot");
			return AP_EXIT_USAGE;
		}
		if (c->prometheus && ap_outfile_is(&j->plot, c->prometheus)) {
			ap_warnx(CMD, c->prometheus, "given for both --prometheus and --plot");
			return AP_EXIT_USAGE;
		}
	}
	return 0;
}

/* --dry-run: what the probe of @dev would do, from its plan. */
static void print_plan(const struct ctl *c, const char *dev, const struct ap_probe_plan *p,
		       const char *journal)
{
	uint64_t lo = 0, hi = 0;
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
		printf("  read the %u slots (%s) into the undo journal\n  %s and sync it,\n",
		       p->slots, ap_size_exact((uint64_t)p->slots * p->span, b1, sizeof(b1)),
		       journal);
	if (c->o.mode != AP_PROBE_READONLY)
		printf("  write each slot once (%u writes of %s, untimed, to warm up),\n", p->slots,
		       ap_size_exact(p->span, b1, sizeof(b1)));
	printf("  then time %s at every offset of each size,\n"
	       "  %u to %u rounds per size:\n",
	       c->o.mode == AP_PROBE_READONLY ? "O_DIRECT reads" : "single O_DIRECT|O_DSYNC writes",
	       c->o.min_rounds, c->o.max_rounds);
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
	printf("  in all %" PRIu64 " to %" PRIu64 " timed %s: the fewest when the first %s\n"
	       "  clear after %u rounds, the most when every size runs %u rounds;\n", lo, hi,
	       c->o.mode == AP_PROBE_READONLY ? "reads" : "writes",
	       nominal == 2 ? "two sizes are" : "size is", c->o.min_rounds, c->o.max_rounds);
	/* 10 ms: a misaligned write on a drive that hides its sectors */
	ap_progress_format_eta(c->budget_ns, t, sizeof(t));
	ap_progress_format_eta(lo * 10 * 1000 * 1000, b1, sizeof(b1));
	printf("  duration: at most %s (--time-budget); the fewest take about %s at 10 ms\n"
	       "  each (a drive that hides its sectors), far less on an honest drive.\n", t, b1);
	if (c->o.mode == AP_PROBE_PRESERVE)
		printf("  Then write the original bytes back, verify every one and delete the "
		       "journal.\n");
	else if (c->o.mode == AP_PROBE_DESTRUCTIVE)
		printf("  The region's data is destroyed; the rest of the device is not touched.\n");
	else
		printf("  Nothing is written.\n");
}

/* --dry-run after every check: the gate's description and the plan of each device. */
static int dry_run(struct ctl *c, size_t nnamed)
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
			print_plan(c, j->dev, &j->plan, j->journal);
		} else {
			struct ap_emu_spec spec;
			struct ap_probe_plan plan;
			struct ap_error e = { 0 };
			char *name = emu_placeholder(i - nnamed), *jp, *jd, *text;
			struct job tmp = { .dev = name };
			int rc = emu_spec(c, i - nnamed, &spec);

			if (rc) {
				free(name);
				return rc;
			}
			/* the emulated drive reports 512-byte sectors */
			rc = ap_probe_plan(&c->o, spec.capacity, 512, &plan, &e);
			ap_emu_spec_free(&spec);
			if (rc) {
				free(name);
				return ap_errx(CMD, "--emulate", rc, "%s", e.msg);
			}
			plan.reported_physical = 512;
			text = ap_cmd_emu_spec_text(c->emu_specs[i - nnamed]);
			printf("dry run: would set up an emulated drive (%s).\n", text);
			free(text);
			jp = journal_path(c, &tmp);
			ap_xasprintf(&jd, "in %s", dirname(jp));
			print_plan(c, "the emulated drive", &plan, jd);
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

static void detach_emulated(struct job *j)
{
	struct ap_error e = { 0 };

	if (!j->emu)
		return;
	if (ap_emu_detach(j->emu, &e) != 0)
		ap_warnx(CMD, j->dev, "cannot detach the emulated drive: %s", e.msg);
	j->emu = NULL;
}

static void run_jobs(struct ctl *c)
{
	struct ap_progress pg;
	char what[96];
	size_t i;

	if (c->njobs == 1)
		snprintf(what, sizeof(what), "probe %s", c->jobs[0].dev);
	else
		snprintf(what, sizeof(what), "probe %zu devices", c->njobs);
	ap_progress_init(&pg, what, 0, c->quiet || c->out.json);

	gate.waiting = c->njobs;
	for (i = 0; i < c->njobs; i++) {
		struct job *j = &c->jobs[i];

		j->d.fd_hold = j->fd_hold;
		j->o.seed = c->o.seed + i;
		if (pthread_create(&j->th, NULL, job_thread, j) != 0) {
			j->rc = ap_error_set(&j->e, EAGAIN, "cannot start a thread");
			pthread_mutex_lock(&gate.lock);
			gate_leave_locked();
			pthread_mutex_unlock(&gate.lock);
			j->done = 1;
			continue;
		}
		j->started = true;
	}
	for (;;) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		uint64_t ops = 0, size = 0;
		unsigned round = 0, ndone = 0;
		char detail[96], b[32];

		for (i = 0; i < c->njobs; i++) {
			ops += c->jobs[i].r.live_ops;
			if (__atomic_load_n(&c->jobs[i].done, __ATOMIC_ACQUIRE))
				ndone++;
			else {
				size = c->jobs[i].r.live_size;
				round = c->jobs[i].r.live_round;
			}
		}
		if (ndone == c->njobs)
			break;
		if (c->njobs == 1)
			snprintf(detail, sizeof(detail), "%s, round %u, %llu operations",
				 size ? ap_size_exact(size, b, sizeof(b)) : "reading", round + 1,
				 (unsigned long long)ops);
		else
			snprintf(detail, sizeof(detail), "%u of %zu done, %llu operations", ndone,
				 c->njobs, (unsigned long long)ops);
		ap_progress_update(&pg, ops, detail);
		nanosleep(&ts, NULL);
	}
	for (i = 0; i < c->njobs; i++)
		if (c->jobs[i].started)
			pthread_join(c->jobs[i].th, NULL);
	ap_progress_clear(&pg);
}

static int parse_count(const char *arg, const char *what, unsigned *out)
{
	uint64_t v;

	if (ap_parse_u64(arg, &v) != 0 || v == 0 || v > 1000000) {
		ap_usage_error(CMD, "invalid %s: '%s'", what, arg);
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}

/*
 * The options and their combinations, nothing opened yet: 0 to go on (to
 * do_undo() when c->undo is set), AP_EXIT_USAGE after the message, -1 when
 * the help, the version or the columns were printed.
 */
static int parse_args(struct ctl *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "emulate",             optional_argument, NULL, OPT_EMULATE },
		{ "preserve",            no_argument,       NULL, 'P' },
		{ "read-only",           no_argument,       NULL, 'R' },
		{ "journal",             required_argument, NULL, OPT_JOURNAL },
		{ "undo",                required_argument, NULL, OPT_UNDO },
		{ "min-size",            required_argument, NULL, OPT_MIN_SIZE },
		{ "max-size",            required_argument, NULL, OPT_MAX_SIZE },
		{ "region-start",        required_argument, NULL, OPT_REGION_START },
		{ "region-size",         required_argument, NULL, OPT_REGION_SIZE },
		{ "slots",               required_argument, NULL, OPT_SLOTS },
		{ "min-rounds",          required_argument, NULL, OPT_MIN_ROUNDS },
		{ "max-rounds",          required_argument, NULL, OPT_MAX_ROUNDS },
		{ "time-budget",         required_argument, NULL, OPT_BUDGET },
		{ "seed",                required_argument, NULL, OPT_SEED },
		{ "no-confirm",          no_argument,       NULL, OPT_NO_CONFIRM },
		{ "alpha",               required_argument, NULL, OPT_ALPHA },
		{ "min-slowdown",        required_argument, NULL, OPT_MIN_SLOWDOWN },
		{ "allow-metadata-area", no_argument,       NULL, OPT_ALLOW_METADATA },
		{ "allow-partition",     no_argument,       NULL, OPT_ALLOW_PARTITION },
		{ "allow-unidentified",  no_argument,       NULL, OPT_ALLOW_UNIDENTIFIED },
		{ "yes",                 no_argument,       NULL, 'y' },
		{ "plot",                required_argument, NULL, OPT_PLOT },
		{ "all-sizes",           no_argument,       NULL, OPT_ALL_SIZES },
		{ "samples",             required_argument, NULL, OPT_SAMPLES },
		{ "record",              optional_argument, NULL, OPT_RECORD },
		{ "prometheus",          required_argument, NULL, OPT_PROMETHEUS },
		{ "dry-run",             no_argument,       NULL, OPT_DRY_RUN },
		{ "quiet",               no_argument,       NULL, 'q' },
		AP_OUT_LONGOPTS,
		{ "help",                no_argument,       NULL, 'h' },
		{ "version",             no_argument,       NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct ap_error e = { 0 };
	bool preserve = false, readonly = false;
	uint64_t v;
	double d;
	int ch;

	ap_probe_opts_init(&c->o);
	c->o.cancel = ap_sig_cancel;
	c->budget_ns = DEFAULT_BUDGET_NS;
	optind = 0;
	while ((ch = getopt_long(argc, argv, "PRyqhV" AP_OUT_OPTSTRING, longopts, NULL)) != -1) {
		if (ap_out_parse_opt(&c->out, ch, optarg))
			continue;
		switch (ch) {
		case OPT_EMULATE:
			c->emu_specs = ap_xreallocarray(c->emu_specs, c->nemu + 1, sizeof(char *));
			c->emu_specs[c->nemu++] = optarg;
			break;
		case 'P':
			preserve = true;
			break;
		case 'R':
			readonly = true;
			break;
		case OPT_JOURNAL:
			c->journal = optarg;
			break;
		case OPT_UNDO:
			c->undo = optarg;
			break;
		case OPT_MIN_SIZE:
		case OPT_MAX_SIZE:
		case OPT_REGION_START:
		case OPT_REGION_SIZE:
			if (ap_parse_size(optarg, &v) != 0) {
				ap_usage_error(CMD, "invalid size: '%s'", optarg);
				return AP_EXIT_USAGE;
			}
			if (ch == OPT_MIN_SIZE)
				c->o.min_size = v;
			else if (ch == OPT_MAX_SIZE)
				c->o.max_size = v;
			else if (ch == OPT_REGION_START)
				c->o.region_start = v;
			else
				c->o.region_size = v;
			break;
		case OPT_SLOTS:
			if (parse_count(optarg, "slot count", &c->o.slots))
				return AP_EXIT_USAGE;
			c->slots_set = true;
			break;
		case OPT_MIN_ROUNDS:
			if (parse_count(optarg, "round count", &c->o.min_rounds))
				return AP_EXIT_USAGE;
			break;
		case OPT_MAX_ROUNDS:
			if (parse_count(optarg, "round count", &c->o.max_rounds))
				return AP_EXIT_USAGE;
			break;
		case OPT_BUDGET:
			if (ap_parse_duration_ns(optarg, &v) != 0 || v == 0) {
				ap_usage_error(CMD, "invalid time budget: '%s' (e.g. 30s, 2m)", optarg);
				return AP_EXIT_USAGE;
			}
			c->budget_ns = v;
			c->budget_set = true;
			break;
		case OPT_SEED:
			if (ap_parse_u64(optarg, &c->o.seed) != 0) {
				ap_usage_error(CMD, "invalid seed: '%s'", optarg);
				return AP_EXIT_USAGE;
			}
			break;
		case OPT_NO_CONFIRM:
			c->o.confirm = false;
			break;
		case OPT_ALPHA:
			if (ap_parse_double(optarg, &d) != 0 || !(d > 0 && d < 0.5)) {
				ap_usage_error(CMD, "invalid significance level: '%s' (0 < P < 0.5)",
					       optarg);
				return AP_EXIT_USAGE;
			}
			c->o.alpha = d;
			break;
		case OPT_MIN_SLOWDOWN:
			if (ap_parse_double(optarg, &d) != 0 || !(d >= 1 && d < 1000)) {
				ap_usage_error(CMD, "invalid minimal slowdown: '%s' (>= 1)", optarg);
				return AP_EXIT_USAGE;
			}
			c->o.min_slowdown = d;
			break;
		case OPT_ALLOW_METADATA:
			c->o.allow_metadata = true;
			break;
		case OPT_ALLOW_PARTITION:
			c->allow_partition = true;
			break;
		case OPT_ALLOW_UNIDENTIFIED:
			c->allow_unidentified = true;
			break;
		case 'y':
			c->yes = true;
			break;
		case OPT_PLOT:
			c->plot = optarg;
			break;
		case OPT_ALL_SIZES:
			c->all_sizes = true;
			break;
		case OPT_SAMPLES:
			c->samples = optarg;
			break;
		case OPT_RECORD:
			c->record = optarg;
			c->record_set = true;
			break;
		case OPT_PROMETHEUS:
			c->prometheus = optarg;
			break;
		case OPT_DRY_RUN:
			c->dry_run = true;
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
	if (c->out.list_columns) {
		ap_out_list_columns(&c->out, infos, AP_ARRAY_SIZE(infos));
		return -1;
	}
	if (ap_out_validate(&c->out, &e) != 0) {
		ap_usage_error(CMD, "%s", e.msg);
		return AP_EXIT_USAGE;
	}
	{
		/* a bad -o list is a usage error before anything is written */
		int cols[AP_ARRAY_SIZE(infos) * 2];
		size_t ncols;

		if (ap_out_columns(&c->out, infos, AP_ARRAY_SIZE(infos), default_cols,
				   AP_ARRAY_SIZE(default_cols), cols, &ncols, &e) != 0) {
			ap_usage_error(CMD, "%s", e.msg);
			return AP_EXIT_USAGE;
		}
	}
	if (c->undo) {
		if (c->nemu || preserve || readonly || c->dry_run || c->record_set || c->prometheus) {
			ap_usage_error(CMD, "--undo cannot be combined with a probe%s",
				       c->dry_run ? " (or --dry-run)" : "");
			return AP_EXIT_USAGE;
		}
		return 0;	/* do_undo() */
	}
	if (c->allow_unidentified) {
		ap_usage_error(CMD, "--allow-unidentified is only used with --undo");
		return AP_EXIT_USAGE;
	}
	if (preserve && readonly) {
		ap_usage_error(CMD, "--preserve and --read-only are mutually exclusive");
		return AP_EXIT_USAGE;
	}
	if (c->journal && !preserve) {
		ap_usage_error(CMD, "--journal is only used with --preserve");
		return AP_EXIT_USAGE;
	}
	c->o.mode = preserve ? AP_PROBE_PRESERVE : readonly ? AP_PROBE_READONLY :
		   AP_PROBE_DESTRUCTIVE;
	if (optind >= argc && !c->nemu) {
		ap_usage_error(CMD, "no device given (or --emulate)");
		return AP_EXIT_USAGE;
	}
	if (!ap_is_power_of_2(c->o.min_size) || !ap_is_power_of_2(c->o.max_size) ||
	    c->o.min_size > c->o.max_size || c->o.min_size < 512) {
		ap_usage_error(CMD, "--min-size and --max-size must be powers of two from 512 "
			       "bytes, min <= max");
		return AP_EXIT_USAGE;
	}
	if (c->o.min_rounds > c->o.max_rounds) {
		ap_usage_error(CMD, "--min-rounds is larger than --max-rounds");
		return AP_EXIT_USAGE;
	}

	if (ap_check_listed_twice(CMD, argv + optind, (size_t)(argc - optind)))
		return AP_EXIT_USAGE;
	c->names = argv + optind;
	c->nnamed = (size_t)(argc - optind);
	return 0;
}

/* One job per device named, then one per --emulate (its device comes later). */
static void setup_jobs(struct ctl *c)
{
	size_t i;

	c->njobs = c->nnamed + c->nemu;
	c->jobs = ap_xcalloc(c->njobs, sizeof(*c->jobs));
	for (i = 0; i < c->njobs; i++) {
		c->jobs[i].fd_hold = -1;
		if (i < c->nnamed)
			c->jobs[i].dev = ap_xstrdup(c->names[i]);
	}
}

/*
 * The output files, then every check on every named device: 0 or an exit
 * code, with nothing written.
 */
static int plan_jobs(struct ctl *c)
{
	size_t i;
	int rc;

	rc = open_outputs(c, c->nnamed);
	for (i = 0; !rc && i < c->nnamed; i++)
		rc = prepare_job(c, &c->jobs[i]);
	return rc;
}

static int signal_status(void)
{
	int sig = ap_sig_pending();

	return sig ? AP_EXIT_SIGNAL_BASE + sig : 0;
}

/*
 * The gate of every named device, then the emulated drives (set up,
 * checked, held): nothing is written before all of them passed.
 */
static int gate_jobs(struct ctl *c)
{
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < c->nnamed; i++)
		rc = gate_job(c, &c->jobs[i]);
	for (i = 0; !rc && i < c->nemu; i++) {
		struct job *j = &c->jobs[c->nnamed + i];

		rc = signal_status();
		if (!rc)
			rc = attach_emulated(c, i, j);
		if (!rc)
			rc = prepare_job(c, j);
		if (!rc)
			rc = gate_job(c, j);
	}
	return rc ? rc : signal_status();
}

/* Every device at once, within the one time budget of the call. */
static void start_jobs(struct ctl *c)
{
	size_t i;

	c->o.deadline_ns = ap_now_ns() + c->budget_ns;
	for (i = 0; i < c->njobs; i++)
		c->jobs[i].o.deadline_ns = c->o.deadline_ns;
	run_jobs(c);
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
		else if ((j->rc || j->d.journal_kept) && worst < AP_EXIT_SIGNAL_BASE)
			worst = AP_EXIT_FAILURE;
		else if (!j->r.verdict.resolved && worst == AP_EXIT_OK)
			worst = AP_EXIT_INCONCLUSIVE;
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
static int report_jobs(struct ctl *c)
{
	int rc = AP_EXIT_OK;
	size_t i;

	for (i = 0; i < c->njobs; i++) {
		struct job *j = &c->jobs[i];

		if (j->fd_hold >= 0) {
			close(j->fd_hold);
			j->fd_hold = -1;
		}
		if (j->rc)
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

static void free_ctl(struct ctl *c)
{
	size_t i;

	for (i = 0; i < c->njobs; i++) {
		struct job *j = &c->jobs[i];

		if (j->fd_hold >= 0)
			close(j->fd_hold);
		if (j->have_t)
			ap_safety_target_free(&j->t);
		detach_emulated(j);
		ap_outfile_discard(&j->plot);	/* not written: the target is untouched */
		ap_probe_result_free(&j->r);
		ap_probe_dev_free(&j->d);
		free(j->journal);
		free(j->dev);
	}
	ap_outfile_discard(&c->samples_out);
	free(c->jobs);
	free(c->emu_specs);
	ap_outfile_discard(&c->prom);	/* not committed: the old file stays */
}

int ap_cmd_probe(int argc, char **argv)
{
	struct ctl c = { 0 };
	int rc;

	rc = parse_args(&c, argc, argv);
	if (!rc && c.undo) {
		free(c.emu_specs);
		ap_sig_install();
		return do_undo(&c, argc, argv);
	}
	if (!rc && c.record_set && ap_fleet_record_prepare(CMD, c.record, &c.record) != 0)
		rc = AP_EXIT_USAGE;
	if (rc) {
		free(c.emu_specs);
		ap_outfile_discard(&c.prom);
		return rc < 0 ? AP_EXIT_OK : rc;
	}

	ap_sig_install();
	setup_jobs(&c);
	rc = plan_jobs(&c);
	if (!rc && c.dry_run) {
		rc = dry_run(&c, c.nnamed);
	} else if (!rc) {
		rc = gate_jobs(&c);
		if (!rc) {
			start_jobs(&c);
			rc = report_jobs(&c);
		}
	}
	free_ctl(&c);
	return ap_cmd_close_stdout(CMD, rc);
}
