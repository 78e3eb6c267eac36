// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The workload's reports: PostMark's Time / Files / Data sections (same
 * lines, same counts, byte totals printed from the 32-bit float sums
 * exactly as PostMark prints them, so scripts that read PostMark output
 * keep working; times with sub-second precision from the monotonic clock
 * in the "%.4f" of PostMark 1.54), then the per-phase rates and the
 * latency percentiles; the terse line; JSON; PostMark's `show`.
 *
 * In the PostMark section the rates keep PostMark's definitions (created,
 * deleted and bytes per total second); the "Phases" section gives every
 * rate over the phase in which the operations happened.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "workload/pm.h"
#include "workload/pmP.h"

#define KB	1024.0
#define MB	(1024.0 * 1024.0)

void ap_pm_scalef(char *buf, size_t len, float v)
{
	/* PostMark's scalef(), operation for operation in float */
	if (v / (float)MB > 1)
		snprintf(buf, len, "%.2f megabytes", (double)(v / (float)MB));
	else if (v / (float)KB != 0)
		snprintf(buf, len, "%.2f kilobytes", (double)(v / (float)KB));
	else
		snprintf(buf, len, "%f bytes", (double)v);
}

void ap_pm_scaled(char *buf, size_t len, double v)
{
	if (v / MB > 1)
		snprintf(buf, len, "%.2f megabytes", v / MB);
	else if (v / KB != 0)
		snprintf(buf, len, "%.2f kilobytes", v / KB);
	else
		snprintf(buf, len, "%f bytes", v);
}

static double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

static double rate(uint64_t n, uint64_t ns)
{
	return ns ? (double)n * 1e9 / (double)ns : 0.0;
}

static const char *phase_label(int ph)
{
	static const char *const l[AP_PM_PHASE_COUNT] = {
		"creating files", "transactions", "deleting files"
	};

	return ph >= 0 && ph < AP_PM_PHASE_COUNT ? l[ph] : "?";
}

/* The phase a stopped run was in: the first one that has no time yet
 * after the last one that has. */
static int stopped_phase(const struct ap_pm_result *res)
{
	int ph;

	for (ph = AP_PM_PHASE_COUNT - 1; ph > 0; ph--) {
		if (res->phase_ns[ph])
			return ph;
	}
	return 0;
}

static void notes(FILE *f, const struct ap_pm_config *cfg, const struct ap_pm_result *res)
{
	if (res->out_of_files)
		fprintf(f, "out of files after %" PRIu64 " of %" PRIu64 " transactions!\n"
			"For this workload, either increase the number of files or\n"
			"decrease the number of transactions.\n",
			res->transactions_done, cfg->transactions);
	if (res->interrupted)
		fprintf(f, "Interrupted by signal %d while %s: partial results "
			"(%" PRIu64 " of %" PRIu64 " transactions done).\n",
			res->interrupted, phase_label(stopped_phase(res)),
			res->transactions_done, cfg->transactions);
	else if (res->error)
		fprintf(f, "Stopped by an I/O error while %s: partial results.\n",
			phase_label(stopped_phase(res)));
}

/* Files created or deleted: in all, then alone (its phase) and mixed with transactions. */
static void files_line(FILE *f, uint64_t n, const char *done, double per_s, const char *phase,
		       uint64_t alone, double alone_per_s, uint64_t mixed, double mixed_per_s)
{
	fprintf(f, "\t%" PRIu64 " %s (%.2f per second)\n", n, done, per_s);
	fprintf(f, "\t\t%s alone: %" PRIu64 " files (%.2f per second)\n", phase, alone,
		alone_per_s);
	fprintf(f, "\t\tMixed with transactions: %" PRIu64 " files (%.2f per second)\n", mixed,
		mixed_per_s);
}

int ap_pm_report_text(FILE *f, const struct ap_pm_config *cfg,
		      const struct ap_pm_result *res)
{
	const uint64_t *ph = res->phase_ns;
	uint64_t created = res->created_alone + res->created_mixed;
	uint64_t deleted = res->deleted_alone + res->deleted_mixed;
	uint64_t trans = res->transactions_done;
	char a[64], b[64];
	unsigned int i;

	if (cfg->report == AP_PM_REPORT_TERSE)
		return ap_pm_report_terse(f, cfg, res);

	notes(f, cfg, res);
	fprintf(f, "Time:\n");
	fprintf(f, "\t%.4f seconds total\n", secs(res->total_ns));
	fprintf(f, "\t%.4f seconds of transactions (%.2f per second)\n",
		secs(ph[AP_PM_PHASE_TRANSACTIONS]), res->tps);

	fprintf(f, "\nFiles:\n");
	files_line(f, created, "created", rate(created, res->total_ns), "Creation",
		   res->created_alone, res->created_alone_per_s, res->created_mixed,
		   res->created_mixed_per_s);
	fprintf(f, "\t%" PRIu64 " read (%.2f per second)\n", res->read, res->read_per_s);
	fprintf(f, "\t%" PRIu64 " appended (%.2f per second)\n", res->appended,
		res->appended_per_s);
	files_line(f, deleted, "deleted", rate(deleted, res->total_ns), "Deletion",
		   res->deleted_alone, res->deleted_alone_per_s, res->deleted_mixed,
		   res->deleted_mixed_per_s);

	fprintf(f, "\nData:\n");
	ap_pm_scalef(a, sizeof(a), res->pm_bytes_read);
	ap_pm_scaled(b, sizeof(b), rate(res->bytes_read, res->total_ns));
	fprintf(f, "\t%s read (%s per second)\n", a, b);
	ap_pm_scalef(a, sizeof(a), res->pm_bytes_written);
	ap_pm_scaled(b, sizeof(b), rate(res->bytes_written, res->total_ns));
	fprintf(f, "\t%s written (%s per second)\n", a, b);

	/* alignprobe's additions */
	fprintf(f, "\nPhases:\n");
	ap_pm_scaled(a, sizeof(a), (double)res->bytes_written_alone);
	ap_pm_scaled(b, sizeof(b), rate(res->bytes_written_alone, ph[AP_PM_PHASE_CREATE]));
	fprintf(f, "\tcreation alone: %.6f seconds, %" PRIu64 " files (%.2f per second), "
		"%s written (%s per second)\n", secs(ph[AP_PM_PHASE_CREATE]),
		res->created_alone, res->created_alone_per_s, a, b);
	fprintf(f, "\ttransactions: %.6f seconds, %" PRIu64 " transactions (%.2f per second)\n",
		secs(ph[AP_PM_PHASE_TRANSACTIONS]), trans, res->tps);
	ap_pm_scaled(a, sizeof(a), (double)res->bytes_read);
	ap_pm_scaled(b, sizeof(b), res->read_bytes_per_s);
	fprintf(f, "\t\t%s read (%s per second)\n", a, b);
	ap_pm_scaled(a, sizeof(a), (double)res->bytes_written_mixed);
	ap_pm_scaled(b, sizeof(b), rate(res->bytes_written_mixed, ph[AP_PM_PHASE_TRANSACTIONS]));
	fprintf(f, "\t\t%s written (%s per second)\n", a, b);
	fprintf(f, "\tdeletion alone: %.6f seconds, %" PRIu64 " files (%.2f per second)\n",
		secs(ph[AP_PM_PHASE_DELETE]), res->deleted_alone, res->deleted_alone_per_s);
	fprintf(f, "\tbytes read: %" PRIu64 ", bytes written: %" PRIu64 " (exact)\n",
		res->bytes_read, res->bytes_written);
	fprintf(f, "\tsync policy: %s\n", ap_pm_sync_name(cfg->sync));

	fprintf(f, "\nLatency (microseconds):\n");
	fprintf(f, "\t%-8s %10s %10s %10s %10s %10s %10s %10s %10s\n", "op", "count", "min",
		"mean", "p50", "p90", "p99", "p99.9", "max");
	for (i = 0; i < AP_PM_OP_COUNT; i++) {
		const struct ap_pm_latency *l = &res->lat[i];

		if (!l->count)
			continue;
		fprintf(f, "\t%-8s %10" PRIu64 " %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f\n",
			ap_pm_op_name(i), l->count, l->min_ns / 1e3, l->mean_ns / 1e3,
			l->p50_ns / 1e3, l->p90_ns / 1e3, l->p99_ns / 1e3, l->p999_ns / 1e3,
			l->max_ns / 1e3);
	}
	return ferror(f) ? -EIO : 0;
}

int ap_pm_report_terse(FILE *f, const struct ap_pm_config *cfg,
		       const struct ap_pm_result *res)
{
	const uint64_t *ph = res->phase_ns;
	uint64_t created = res->created_alone + res->created_mixed;
	uint64_t deleted = res->deleted_alone + res->deleted_mixed;

	(void)cfg;
	fprintf(f, "%.4f %.4f %.2f ", secs(res->total_ns), secs(ph[AP_PM_PHASE_TRANSACTIONS]),
		res->tps);
	fprintf(f, "%.2f %.2f %.2f ", rate(created, res->total_ns), res->created_alone_per_s,
		res->created_mixed_per_s);
	fprintf(f, "%.2f %.2f ", res->read_per_s, res->appended_per_s);
	fprintf(f, "%.2f %.2f %.2f ", rate(deleted, res->total_ns), res->deleted_alone_per_s,
		res->deleted_mixed_per_s);
	fprintf(f, "%.2f %.2f\n", rate(res->bytes_read, res->total_ns),
		rate(res->bytes_written, res->total_ns));
	return ferror(f) ? -EIO : 0;
}

/* ---- JSON ---- */

static void put_u64(struct json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, json_object_new_uint64(v));
}

static void put_dbl(struct json_object *o, const char *k, double v)
{
	json_object_object_add(o, k, json_object_new_double(v));
}

struct json_object *ap_pm_config_to_json(const struct ap_pm_config *cfg)
{
	struct json_object *o = json_object_new_object();
	struct json_object *locs = json_object_new_array();
	size_t i;

	put_u64(o, "size_low", cfg->size_lo);
	put_u64(o, "size_high", cfg->size_hi);
	put_u64(o, "number", cfg->number);
	put_u64(o, "seed", cfg->seed);
	put_u64(o, "transactions", cfg->transactions);
	for (i = 0; i < cfg->nlocations; i++) {
		struct json_object *l = json_object_new_object();

		json_object_object_add(l, "path", json_object_new_string(cfg->locations[i].path));
		put_u64(l, "weight", cfg->locations[i].weight);
		json_object_array_add(locs, l);
	}
	json_object_object_add(o, "locations", locs);
	put_u64(o, "subdirectories", cfg->subdirectories);
	put_u64(o, "read_block", cfg->read_block);
	put_u64(o, "write_block", cfg->write_block);
	json_object_object_add(o, "buffering", json_object_new_boolean(cfg->buffering));
	json_object_object_add(o, "bias_read", json_object_new_int(cfg->bias_read));
	json_object_object_add(o, "bias_create", json_object_new_int(cfg->bias_create));
	json_object_object_add(o, "sync", json_object_new_string(ap_pm_sync_name(cfg->sync)));
	json_object_object_add(o, "data", json_object_new_string(ap_pm_data_name(cfg->data)));
	json_object_object_add(o, "drop_caches", json_object_new_boolean(cfg->drop_caches));
	return o;
}

struct json_object *ap_pm_result_to_json(const struct ap_pm_result *res)
{
	struct json_object *o = json_object_new_object();
	struct json_object *t = json_object_new_object();
	struct json_object *r = json_object_new_object();
	struct json_object *lat = json_object_new_object();
	unsigned int i;

	put_u64(o, "created", res->created_alone + res->created_mixed);
	put_u64(o, "created_alone", res->created_alone);
	put_u64(o, "created_mixed", res->created_mixed);
	put_u64(o, "read", res->read);
	put_u64(o, "appended", res->appended);
	put_u64(o, "deleted", res->deleted_alone + res->deleted_mixed);
	put_u64(o, "deleted_alone", res->deleted_alone);
	put_u64(o, "deleted_mixed", res->deleted_mixed);
	put_u64(o, "transactions_done", res->transactions_done);
	put_u64(o, "bytes_read", res->bytes_read);
	put_u64(o, "bytes_written", res->bytes_written);
	put_u64(o, "bytes_written_alone", res->bytes_written_alone);
	put_u64(o, "bytes_written_mixed", res->bytes_written_mixed);
	/* the float totals PostMark prints (integers: a float sum of integers) */
	put_u64(o, "postmark_bytes_read", (uint64_t)res->pm_bytes_read);
	put_u64(o, "postmark_bytes_written", (uint64_t)res->pm_bytes_written);

	put_u64(t, "creation", res->phase_ns[AP_PM_PHASE_CREATE]);
	put_u64(t, "transactions", res->phase_ns[AP_PM_PHASE_TRANSACTIONS]);
	put_u64(t, "deletion", res->phase_ns[AP_PM_PHASE_DELETE]);
	put_u64(t, "total", res->total_ns);
	json_object_object_add(o, "time_ns", t);

	put_dbl(r, "transactions", res->tps);
	put_dbl(r, "created_alone", res->created_alone_per_s);
	put_dbl(r, "created_mixed", res->created_mixed_per_s);
	put_dbl(r, "read", res->read_per_s);
	put_dbl(r, "appended", res->appended_per_s);
	put_dbl(r, "deleted_alone", res->deleted_alone_per_s);
	put_dbl(r, "deleted_mixed", res->deleted_mixed_per_s);
	put_dbl(r, "read_bytes", res->read_bytes_per_s);
	put_dbl(r, "write_bytes", res->write_bytes_per_s);
	json_object_object_add(o, "per_second", r);

	for (i = 0; i < AP_PM_OP_COUNT; i++) {
		const struct ap_pm_latency *l = &res->lat[i];
		struct json_object *x = json_object_new_object();

		put_u64(x, "count", l->count);
		put_u64(x, "min_ns", l->min_ns);
		put_dbl(x, "mean_ns", l->mean_ns);
		put_u64(x, "p50_ns", l->p50_ns);
		put_u64(x, "p90_ns", l->p90_ns);
		put_u64(x, "p99_ns", l->p99_ns);
		put_u64(x, "p999_ns", l->p999_ns);
		put_u64(x, "max_ns", l->max_ns);
		json_object_object_add(lat, ap_pm_op_name(i), x);
	}
	json_object_object_add(o, "latency", lat);

	json_object_object_add(o, "out_of_files", json_object_new_boolean(res->out_of_files));
	json_object_object_add(o, "interrupted", res->interrupted ?
			       json_object_new_int(res->interrupted) : NULL);
	json_object_object_add(o, "error", res->error ?
			       json_object_new_string(strerror(-res->error)) : NULL);
	put_u64(o, "cleanup_removed", res->cleanup_removed);
	return o;
}

/* ---- show ---- */

/* PostMark's scale(): integer sizes in bytes/kilobytes/megabytes. */
void ap_pm_scale(char *buf, size_t len, uint64_t v)
{
	if (v / (1024 * 1024))
		snprintf(buf, len, "%.2f megabytes", (double)(float)v / (1024 * 1024));
	else if (v / 1024)
		snprintf(buf, len, "%.2f kilobytes", (double)(float)v / 1024);
	else
		snprintf(buf, len, "%" PRIu64 " bytes", v);
}

int ap_pm_config_show(FILE *f, const struct ap_pm_config *cfg)
{
	char a[64], b[64], *cwd;
	size_t i;

	fprintf(f, "Current configuration is:\n");
	fprintf(f, "The base number of files is %" PRIu64 "\n", cfg->number);
	fprintf(f, "Transactions: %" PRIu64 "\n", cfg->transactions);
	ap_pm_scale(a, sizeof(a), cfg->size_lo);
	ap_pm_scale(b, sizeof(b), cfg->size_hi);
	if (cfg->size_lo != cfg->size_hi)
		fprintf(f, "Files range between %s and %s in size\n", a, b);
	else
		fprintf(f, "Files are %s in size\n", a);
	cwd = cfg->nlocations ? NULL : getcwd(NULL, 0);
	fprintf(f, "Working director%s: %s\n", cfg->nlocations > 1 ? "ies" : "y",
		cfg->nlocations ? "" : (cwd ? cwd : "."));
	free(cwd);
	for (i = 0; i < cfg->nlocations; i++)
		fprintf(f, "\t%s (weight=%u)\n", cfg->locations[i].path,
			cfg->locations[i].weight);
	if (cfg->subdirectories > 0)
		fprintf(f, "%" PRIu64 " subdirector%s will be used\n", cfg->subdirectories,
			cfg->subdirectories == 1 ? "y" : "ies");
	ap_pm_scale(a, sizeof(a), cfg->read_block);
	ap_pm_scale(b, sizeof(b), cfg->write_block);
	fprintf(f, "Block sizes are: read=%s, write=%s\n", a, b);
	fprintf(f, "Biases are: read/append=%d, create/delete=%d\n",
		cfg->bias_read, cfg->bias_create);
	fprintf(f, "%ssing Unix buffered file I/O\n", cfg->buffering ? "U" : "Not u");
	fprintf(f, "Random number generator seed is %" PRIu64 "\n", cfg->seed);
	fprintf(f, "Report format is %s.\n",
		cfg->report == AP_PM_REPORT_TERSE ? "terse" : "verbose");
	/* alignprobe's extensions, only when not at their defaults */
	if (cfg->sync != AP_PM_SYNC_NONE)
		fprintf(f, "Sync policy is %s.\n", ap_pm_sync_name(cfg->sync));
	if (cfg->data != AP_PM_DATA_PRINTABLE)
		fprintf(f, "Data source is %s.\n", ap_pm_data_name(cfg->data));
	if (cfg->drop_caches)
		fprintf(f, "Caches are dropped before each phase.\n");
	return ferror(f) ? -EIO : 0;
}

struct json_object *ap_pm_run_to_json(const struct ap_pm_config *cfg,
				      const struct ap_pm_result *res)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "config", ap_pm_config_to_json(cfg));
	json_object_object_add(o, "result", ap_pm_result_to_json(res));
	return o;
}
