// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sweep's orchestration, one stage per module:
 *
 *   part (libparted) -> mkfs (spawned) -> mnt (mount(2)) -> pm (workload)
 *   -> umount -> next start
 *
 * in a randomized, interleaved order (every round a fresh permutation of the
 * starts, seeded), with the analysis run after every step once the minimum
 * number of rounds is done, so the sweep stops as soon as the verdict is
 * clear. A failed step is recorded as failed (with its stage and message)
 * and never enters the analysis; an interrupted step is not recorded.
 */
#include "analysis/verdict_json.h"
#include "device/safety.h"
#include "emu/emu.h"
#include "lib/sig.h"
#include "lib/stats.h"
#include "sweep/mkfs.h"
#include "sweep/mnt.h"
#include "sweep/part.h"
#include "sweep/sweep.h"
#include "ui/out.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#define MAX_STARTS		4096
#define MAX_CONSECUTIVE_FAILURES 3
#define MAX_DOC_RESULTS		1000000
#define MAX_DOC_START		(1ULL << 48)
#define MAX_DOC_ROUND		1000000U

/* ------------------------------------------------------------------ */
/* Presets                                                            */
/* ------------------------------------------------------------------ */

const struct ap_sweep_preset ap_sweep_presets[] = {
	{
		.name = "quick",
		.help = "a verdict in about 3 minutes on the emulated drive (the default)",
		.number = 8, .transactions = 20, .size_lo = 512, .size_hi = 2048,
		.read_block = 1024, .write_block = 1024,
		.part_size = 128ULL << 20,
		.min_rounds = 3, .max_rounds = 8,
		.time_budget_ns = 15ULL * 60 * AP_NSEC_PER_SEC,
	},
	{
		.name = "thorough",
		.help = "more files, transactions and rounds; a bigger partition",
		.number = 100, .transactions = 300, .size_lo = 512, .size_hi = 16384,
		.read_block = 4096, .write_block = 4096,
		.part_size = 512ULL << 20,
		.min_rounds = 3, .max_rounds = 10,
		.time_budget_ns = 120ULL * 60 * AP_NSEC_PER_SEC,
	},
	{ .name = NULL },
};

const struct ap_sweep_preset *ap_sweep_preset_find(const char *name)
{
	const struct ap_sweep_preset *p;

	for (p = ap_sweep_presets; name && p->name; p++)
		if (strcmp(p->name, name) == 0)
			return p;
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Order                                                              */
/* ------------------------------------------------------------------ */

void ap_sweep_order(const uint64_t *starts, size_t n, const uint64_t *prev_last,
		    struct ap_rng *r, uint64_t *out)
{
	if (!n)
		return;
	memcpy(out, starts, n * sizeof(*out));
	ap_rng_shuffle(r, out, n, sizeof(*out));
	if (prev_last && n > 1 && out[0] == *prev_last) {
		/* swap the head with a random other position */
		size_t j = 1 + (size_t)ap_rng_below(r, n - 1);
		uint64_t t = out[0];

		out[0] = out[j];
		out[j] = t;
	}
}

/* ------------------------------------------------------------------ */
/* Starts                                                             */
/* ------------------------------------------------------------------ */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int parse_num(const char *s, size_t len, uint64_t *v)
{
	char buf[32];

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return ap_parse_u64(buf, v);
}

int ap_sweep_parse_starts(const char *s, uint64_t **starts, size_t *n, struct ap_error *e)
{
	uint64_t *v = NULL;
	size_t cnt = 0, i, k;
	const char *p = s;

	*starts = NULL;
	*n = 0;
	if (!s || !*s)
		return ap_error_set(e, EINVAL, "empty list of starts");
	while (*p) {
		size_t len = strcspn(p, ",");
		const char *dots = memmem(p, len, "..", 2);
		uint64_t a, b, step = 1, x;

		if (!dots) {
			if (parse_num(p, len, &a) != 0)
				goto bad;
			b = a;
		} else {
			const char *q = dots + 2, *colon;
			size_t rest = len - (size_t)(q - p);

			colon = memchr(q, ':', rest);
			if (parse_num(p, (size_t)(dots - p), &a) != 0)
				goto bad;
			if (colon) {
				if (parse_num(q, (size_t)(colon - q), &b) != 0 ||
				    parse_num(colon + 1, rest - (size_t)(colon + 1 - q), &step) != 0)
					goto bad;
				if (step == 0) {
					free(v);
					return ap_error_set(e, EINVAL, "starts '%.*s': step 0",
							    (int)len, p);
				}
			} else if (parse_num(q, rest, &b) != 0) {
				goto bad;
			}
			if (b < a) {
				free(v);
				return ap_error_set(e, EINVAL, "starts '%.*s': end before beginning",
						    (int)len, p);
			}
		}
		for (x = a; ; x += step) {
			if (cnt >= MAX_STARTS) {
				free(v);
				return ap_error_set(e, ERANGE, "more than %d starts", MAX_STARTS);
			}
			v = ap_xreallocarray(v, cnt + 1, sizeof(*v));
			v[cnt++] = x;
			if (b - x < step)
				break;
		}
		p += len;
		if (*p == ',') {
			p++;
			if (!*p)
				goto bad_end;
		}
	}
	qsort(v, cnt, sizeof(*v), cmp_u64);
	for (i = 1, k = 1; i < cnt; i++)	/* drop duplicates */
		if (v[i] != v[k - 1])
			v[k++] = v[i];
	*starts = v;
	*n = cnt ? k : 0;
	return 0;
bad:
	free(v);
	return ap_error_set(e, EINVAL,
			    "bad list of starts '%s' (e.g. 34..64, 34..64:2 or 35,40,63)", s);
bad_end:
	free(v);
	return ap_error_set(e, EINVAL, "bad list of starts '%s': trailing comma", s);
}

void ap_sweep_default_starts(unsigned logical_sector, uint64_t **starts, size_t *n)
{
	uint64_t first, count, i;

	if (logical_sector == 512) {
		first = 34;
		count = 31;
	} else if (logical_sector == 4096) {
		first = 6;
		count = 32;
	} else {
		first = logical_sector ? 2 + (128 * 128 + logical_sector - 1) / logical_sector : 34;
		count = 32;
	}
	*starts = ap_xcalloc(count, sizeof(**starts));
	for (i = 0; i < count; i++)
		(*starts)[i] = first + i;
	*n = count;
}

/* ------------------------------------------------------------------ */
/* Workload file                                                      */
/* ------------------------------------------------------------------ */

#define MAX_LOAD_DEPTH	16

/* 1: a `run` was read (stop everything), 0: end of file or `quit`, <0: error */
static int load_file(struct ap_pm_config *cfg, const char *path, unsigned depth,
		     unsigned *nloc, struct ap_error *e)
{
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	ssize_t len;
	FILE *f;
	int rc = 0;

	if (depth > MAX_LOAD_DEPTH)
		return ap_error_set(e, ELOOP, "%s: more than %d nested 'load' commands",
				    path, MAX_LOAD_DEPTH);
	f = strcmp(path, "-") == 0 ? stdin : fopen(path, "re");
	if (!f)
		return ap_error_set(e, errno, "%s: %s", path, strerror(errno));
	while ((len = getline(&line, &cap, f)) >= 0) {
		struct ap_pm_line out = { .cmd = AP_PM_CMD_NONE, .arg = NULL };

		lineno++;
		if ((size_t)len != strlen(line)) {
			rc = ap_error_set(e, EINVAL, "%s:%u: a NUL byte in the line", path, lineno);
			break;
		}
		/* PostMark matches commands by prefix: this is `set location` */
		if (strncmp(line, "set location", 12) == 0) {
			(*nloc)++;
			continue;
		}
		rc = ap_pm_config_line(cfg, line, path, lineno, &out, e);
		if (rc)
			break;
		if (out.cmd == AP_PM_CMD_RUN) {
			rc = 1;
		} else if (out.cmd == AP_PM_CMD_QUIT) {
			free(out.arg);
			break;
		} else if (out.cmd == AP_PM_CMD_LOAD) {
			if (!out.arg || !*out.arg)
				rc = ap_error_set(e, EINVAL, "%s:%u: 'load' without a file", path, lineno);
			else
				rc = load_file(cfg, out.arg, depth + 1, nloc, e);
		}
		free(out.arg);
		if (rc)
			break;
	}
	if (rc == 0 && ferror(f))	/* errno is getline's: EISDIR for a directory */
		rc = ap_error_set(e, errno ? errno : EIO, "%s: %s", path,
				  strerror(errno ? errno : EIO));
	free(line);
	if (f != stdin)
		fclose(f);
	return rc;
}

int ap_sweep_workload_load(struct ap_pm_config *cfg, const char *path,
			   unsigned *nlocations, struct ap_error *e)
{
	struct ap_pm_config tmp;
	unsigned nloc = 0;
	int rc;

	ap_pm_config_copy(&tmp, cfg);
	rc = load_file(&tmp, path, 0, &nloc, e);
	if (rc < 0) {
		ap_pm_config_free(&tmp);
		return rc;
	}
	ap_pm_config_free(cfg);
	*cfg = tmp;
	if (nlocations)
		*nlocations = nloc;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Results                                                            */
/* ------------------------------------------------------------------ */

static const char *const stage_names[] = {
	[AP_SWEEP_STAGE_NONE] = "none",
	[AP_SWEEP_STAGE_PARTITION] = "partition",
	[AP_SWEEP_STAGE_MKFS] = "mkfs",
	[AP_SWEEP_STAGE_MOUNT] = "mount",
	[AP_SWEEP_STAGE_WORKLOAD] = "workload",
	[AP_SWEEP_STAGE_UMOUNT] = "umount",
};

const char *ap_sweep_stage_name(enum ap_sweep_stage s)
{
	if ((size_t)s < AP_ARRAY_SIZE(stage_names))
		return stage_names[s];
	return "unknown";
}

static const char *const stop_names[] = {
	[AP_SWEEP_STOP_NONE] = "running",
	[AP_SWEEP_STOP_CLEAR] = "clear",
	[AP_SWEEP_STOP_ROUNDS] = "rounds",
	[AP_SWEEP_STOP_BUDGET] = "budget",
	[AP_SWEEP_STOP_SIGNAL] = "signal",
	[AP_SWEEP_STOP_FATAL] = "error",
};

const char *ap_sweep_stop_name(enum ap_sweep_stop s)
{
	if ((size_t)s < AP_ARRAY_SIZE(stop_names))
		return stop_names[s];
	return "unknown";
}

void ap_sweep_result_free(struct ap_sweep_result *r)
{
	if (r) {
		free(r->message);
		r->message = NULL;
	}
}

size_t ap_sweep_obs(const struct ap_sweep_result *r, size_t n, struct ap_obs **obs)
{
	size_t i, k = 0;

	*obs = ap_xcalloc(n ? n : 1, sizeof(**obs));
	for (i = 0; i < n; i++) {
		if (!r[i].ok || !(r[i].cost > 0) || !isfinite(r[i].cost))
			continue;
		(*obs)[k].offset = r[i].start;
		(*obs)[k].round = r[i].round;
		(*obs)[k].seq = r[i].seq;	/* time order: local drift */
		(*obs)[k].cost = r[i].cost;
		k++;
	}
	return k;
}

int ap_sweep_analyse(const struct ap_sweep_result *r, size_t n,
		     const struct ap_analysis_params *p, struct ap_verdict *v)
{
	struct ap_obs *obs;
	size_t k = ap_sweep_obs(r, n, &obs);
	int rc = k ? ap_analysis_run(obs, k, p, v) : -EINVAL;

	free(obs);
	return rc;
}

bool ap_sweep_is_aligned(const struct ap_verdict *v, uint64_t start, bool *known)
{
	*known = false;
	if (!v || !v->resolved)
		return false;
	*known = true;
	if (!v->sensitive || v->period <= 1)
		return true;
	return start % v->period == v->lowest_aligned_lba % v->period;
}

static uint64_t first_aligned_from(const struct ap_verdict *v, uint64_t from)
{
	uint64_t p, want;

	if (!v || !v->resolved || !v->sensitive || v->period <= 1)
		return from;
	p = v->period;
	want = v->lowest_aligned_lba % p;
	return from + (want + p - from % p) % p;
}

void ap_sweep_recommend(const struct ap_verdict *v, uint64_t first_usable,
			uint64_t *at_1mib, uint64_t *first)
{
	uint64_t mib = v && v->logical_sector ? (1ULL << 20) / v->logical_sector : 2048;

	if (!mib)
		mib = 1;
	*at_1mib = first_aligned_from(v, mib);
	*first = first_aligned_from(v, first_usable);
}

size_t ap_sweep_summarize(const struct ap_sweep_result *r, size_t n,
			  const uint64_t *starts, size_t nstarts,
			  const struct ap_verdict *v, struct ap_sweep_start_stat **out)
{
	struct ap_sweep_start_stat *st;
	uint64_t *own = NULL;
	double *buf[8], best = 0;
	size_t i, j, k;

	if (!starts) {
		own = ap_xcalloc(n ? n : 1, sizeof(*own));
		for (i = 0; i < n; i++)
			own[i] = r[i].start;
		qsort(own, n, sizeof(*own), cmp_u64);
		for (i = 0, k = 0; i < n; i++)
			if (k == 0 || own[i] != own[k - 1])
				own[k++] = own[i];
		starts = own;
		nstarts = k;
	}
	st = ap_xcalloc(nstarts ? nstarts : 1, sizeof(*st));
	for (j = 0; j < AP_ARRAY_SIZE(buf); j++)
		buf[j] = ap_xcalloc(n ? n : 1, sizeof(double));
	for (i = 0; i < nstarts; i++) {
		struct ap_sweep_start_stat *s = &st[i];
		double rmw = 0;
		size_t nemu = 0;

		s->start = starts[i];
		for (j = 0, k = 0; j < n; j++) {
			if (r[j].start != s->start)
				continue;
			s->runs++;
			if (!r[j].ok) {
				s->failed++;
				continue;
			}
			buf[0][k] = r[j].tps;
			buf[1][k] = r[j].cost;
			buf[2][k] = r[j].creates_per_s;
			buf[3][k] = r[j].deletes_per_s;
			buf[4][k] = r[j].read_kibs;
			buf[5][k] = r[j].write_kibs;
			buf[6][k] = r[j].fsync_med_ms;
			if (r[j].has_emu) {
				rmw += (double)r[j].emu_rmw;
				nemu++;
			}
			k++;
		}
		s->tps = ap_stats_median(buf[0], k);
		s->cost = ap_stats_median(buf[1], k);
		s->creates_per_s = ap_stats_median(buf[2], k);
		s->deletes_per_s = ap_stats_median(buf[3], k);
		s->read_kibs = ap_stats_median(buf[4], k);
		s->write_kibs = ap_stats_median(buf[5], k);
		s->fsync_med_ms = ap_stats_median(buf[6], k);
		s->emu_rmw = nemu ? rmw / (double)nemu : NAN;
		if (k && s->tps > best)
			best = s->tps;
		s->aligned = ap_sweep_is_aligned(v, s->start, &s->has_aligned);
		for (j = 0; v && j < v->nstats; j++) {
			if (v->stats[j].offset == s->start) {
				s->has_fast = true;
				s->fast = v->stats[j].fast;
			}
		}
	}
	for (i = 0; i < nstarts; i++)
		st[i].rel = best > 0 && !isnan(st[i].tps) ? st[i].tps / best : NAN;
	for (j = 0; j < AP_ARRAY_SIZE(buf); j++)
		free(buf[j]);
	free(own);
	*out = st;
	return nstarts;
}

/* ------------------------------------------------------------------ */
/* JSON                                                               */
/* ------------------------------------------------------------------ */

static void jadd(struct json_object *o, const char *k, struct json_object *v)
{
	json_object_object_add(o, k, v);
}

static struct json_object *jdouble(double d)
{
	return isfinite(d) ? json_object_new_double(d) : NULL;
}

struct json_object *ap_sweep_result_to_json(const struct ap_sweep_result *r)
{
	struct json_object *o = json_object_new_object();

	jadd(o, "start", json_object_new_uint64(r->start));
	jadd(o, "round", json_object_new_int64(r->round));
	jadd(o, "seq", json_object_new_int64(r->seq));
	jadd(o, "ok", json_object_new_boolean(r->ok));
	if (!r->ok) {
		jadd(o, "stage", json_object_new_string(ap_sweep_stage_name(r->failed_stage)));
		jadd(o, "errno", json_object_new_int(r->error));
		jadd(o, "error", json_object_new_string(r->message ? r->message : ""));
	} else {
		jadd(o, "cost", jdouble(r->cost));
		jadd(o, "tps", jdouble(r->tps));
		jadd(o, "creates_per_s", jdouble(r->creates_per_s));
		jadd(o, "deletes_per_s", jdouble(r->deletes_per_s));
		jadd(o, "read_kibs", jdouble(r->read_kibs));
		jadd(o, "write_kibs", jdouble(r->write_kibs));
		jadd(o, "fsync_med_ms", jdouble(r->fsync_med_ms));
		jadd(o, "transactions", json_object_new_uint64(r->transactions));
		jadd(o, "created", json_object_new_uint64(r->created));
		jadd(o, "deleted", json_object_new_uint64(r->deleted));
		jadd(o, "bytes_read", json_object_new_uint64(r->bytes_read));
		jadd(o, "bytes_written", json_object_new_uint64(r->bytes_written));
		jadd(o, "workload_s", jdouble(r->workload_s));
	}
	jadd(o, "partition_s", jdouble(r->partition_s));
	jadd(o, "mkfs_s", jdouble(r->mkfs_s));
	jadd(o, "mount_s", jdouble(r->mount_s));
	jadd(o, "umount_s", jdouble(r->umount_s));
	if (r->has_emu) {
		struct json_object *em = json_object_new_object();

		jadd(em, "writes", json_object_new_uint64(r->emu_writes));
		jadd(em, "rmw", json_object_new_uint64(r->emu_rmw));
		jadd(em, "flushes", json_object_new_uint64(r->emu_flushes));
		jadd(o, "emulator", em);
	}
	return o;
}

static int jget_double(struct json_object *o, const char *k, bool required,
		       double *out, struct ap_error *e)
{
	struct json_object *v;
	double d;

	if (!json_object_object_get_ex(o, k, &v) || !v) {
		if (required)
			return ap_error_set(e, EINVAL, "\"%s\" is missing", k);
		*out = NAN;
		return 0;
	}
	if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
		return ap_error_set(e, EINVAL, "\"%s\" is not a number", k);
	d = json_object_get_double(v);
	if (!isfinite(d) || d < 0)
		return ap_error_set(e, ERANGE, "\"%s\" is not a finite number >= 0", k);
	*out = d;
	return 0;
}

int ap_sweep_result_from_json(struct json_object *o, struct ap_sweep_result *r,
			      struct ap_error *e)
{
	struct json_object *v;
	uint64_t u = 0;
	int rc;

	memset(r, 0, sizeof(*r));
	if (!json_object_is_type(o, json_type_object))
		return ap_error_set(e, EINVAL, "a result is not an object");
	if ((rc = ap_json_get_u64(o, "start", MAX_DOC_START, true, &r->start, e)))
		return rc;
	if ((rc = ap_json_get_u64(o, "round", MAX_DOC_ROUND, true, &u, e)))
		return rc;
	if (u == 0)
		return ap_error_set(e, ERANGE, "\"round\" must be >= 1");
	r->round = (unsigned)u;
	u = 0;
	if ((rc = ap_json_get_u64(o, "seq", UINT32_MAX, false, &u, e)))
		return rc;
	r->seq = (unsigned)u;
	if (!json_object_object_get_ex(o, "ok", &v) || !json_object_is_type(v, json_type_boolean))
		return ap_error_set(e, EINVAL, "\"ok\" is missing or not a boolean");
	r->ok = json_object_get_boolean(v);
	if (!r->ok) {
		const char *s;
		size_t i;

		r->failed_stage = AP_SWEEP_STAGE_NONE;
		if (json_object_object_get_ex(o, "stage", &v) && json_object_is_type(v, json_type_string)) {
			s = json_object_get_string(v);
			for (i = 0; i < AP_ARRAY_SIZE(stage_names); i++)
				if (strcmp(s, stage_names[i]) == 0)
					r->failed_stage = (enum ap_sweep_stage)i;
		}
		u = 0;
		if ((rc = ap_json_get_u64(o, "errno", 4095, false, &u, e)))
			return rc;
		r->error = (int)u;
		if (json_object_object_get_ex(o, "error", &v) && json_object_is_type(v, json_type_string))
			r->message = ap_xstrdup(json_object_get_string(v));
		else
			r->message = ap_xstrdup("failed");
	} else {
		if ((rc = jget_double(o, "cost", true, &r->cost, e)))
			return rc;
		if (!(r->cost > 0))
			return ap_error_set(e, ERANGE, "\"cost\" must be > 0");
		if ((rc = jget_double(o, "tps", false, &r->tps, e)) ||
		    (rc = jget_double(o, "creates_per_s", false, &r->creates_per_s, e)) ||
		    (rc = jget_double(o, "deletes_per_s", false, &r->deletes_per_s, e)) ||
		    (rc = jget_double(o, "read_kibs", false, &r->read_kibs, e)) ||
		    (rc = jget_double(o, "write_kibs", false, &r->write_kibs, e)) ||
		    (rc = jget_double(o, "fsync_med_ms", false, &r->fsync_med_ms, e)) ||
		    (rc = jget_double(o, "workload_s", false, &r->workload_s, e)) ||
		    (rc = ap_json_get_u64(o, "transactions", UINT64_MAX, false, &r->transactions, e)) ||
		    (rc = ap_json_get_u64(o, "created", UINT64_MAX, false, &r->created, e)) ||
		    (rc = ap_json_get_u64(o, "deleted", UINT64_MAX, false, &r->deleted, e)) ||
		    (rc = ap_json_get_u64(o, "bytes_read", UINT64_MAX, false, &r->bytes_read, e)) ||
		    (rc = ap_json_get_u64(o, "bytes_written", UINT64_MAX, false, &r->bytes_written, e)))
			return rc;
		if (isnan(r->tps))
			r->tps = 1.0 / r->cost;
	}
	if ((rc = jget_double(o, "partition_s", false, &r->partition_s, e)) ||
	    (rc = jget_double(o, "mkfs_s", false, &r->mkfs_s, e)) ||
	    (rc = jget_double(o, "mount_s", false, &r->mount_s, e)) ||
	    (rc = jget_double(o, "umount_s", false, &r->umount_s, e)))
		goto fail;
	if (json_object_object_get_ex(o, "emulator", &v) && v) {
		if (!json_object_is_type(v, json_type_object)) {
			rc = ap_error_set(e, EINVAL, "\"emulator\" is not an object");
			goto fail;
		}
		r->has_emu = true;
		if ((rc = ap_json_get_u64(v, "writes", UINT64_MAX, false, &r->emu_writes, e)) ||
		    (rc = ap_json_get_u64(v, "rmw", UINT64_MAX, false, &r->emu_rmw, e)) ||
		    (rc = ap_json_get_u64(v, "flushes", UINT64_MAX, false, &r->emu_flushes, e)))
			goto fail;
	}
	return 0;
fail:
	ap_sweep_result_free(r);
	return rc;
}

struct json_object *ap_sweep_doc_to_json(const struct ap_sweep_doc *d,
					 const struct ap_verdict *v, struct json_object *starts,
					 const char *stopped)
{
	struct json_object *o = json_object_new_object(), *a;
	size_t i;

	jadd(o, "device", json_object_new_string(d->device ? d->device : ""));
	jadd(o, "logical_sector", json_object_new_int64(d->logical_sector));
	jadd(o, "reported_physical_sector", json_object_new_int64(d->reported_physical));
	if (stopped)
		jadd(o, "stopped", json_object_new_string(stopped));
	jadd(o, "verdict", v ? ap_verdict_to_json(v) : NULL);
	if (d->parameters)
		jadd(o, "parameters", json_object_get(d->parameters));
	jadd(o, "starts", starts ? starts : json_object_new_array());
	a = json_object_new_array();
	for (i = 0; i < d->nresults; i++)
		json_object_array_add(a, ap_sweep_result_to_json(&d->results[i]));
	jadd(o, "results", a);
	return o;
}

void ap_sweep_doc_free(struct ap_sweep_doc *d)
{
	size_t i;

	free(d->device);
	free(d->stopped);
	free(d->starts);
	for (i = 0; i < d->nresults; i++)
		ap_sweep_result_free(&d->results[i]);
	free(d->results);
	if (d->parameters)
		json_object_put(d->parameters);
	memset(d, 0, sizeof(*d));
}

static bool valid_sector_size(uint64_t s)
{
	return s >= 512 && s <= 65536 && ap_is_power_of_2(s);
}

int ap_sweep_doc_from_json(struct json_object *o, struct ap_sweep_doc *d, struct ap_error *e)
{
	struct json_object *v, *a;
	uint64_t u;
	size_t i, n;
	int rc;

	memset(d, 0, sizeof(*d));
	if (!json_object_is_type(o, json_type_object))
		return ap_error_set(e, EINVAL, "not a JSON object");
	if (json_object_object_get_ex(o, "device", &v) && json_object_is_type(v, json_type_string))
		d->device = ap_xstrdup(json_object_get_string(v));
	else
		d->device = ap_xstrdup("");
	if ((rc = ap_json_get_u64(o, "logical_sector", 65536, true, &u, e)))
		goto fail;
	if (!valid_sector_size(u)) {
		rc = ap_error_set(e, ERANGE, "\"logical_sector\" %llu is not a sector size",
				  (unsigned long long)u);
		goto fail;
	}
	d->logical_sector = (unsigned)u;
	u = d->logical_sector;
	if ((rc = ap_json_get_u64(o, "reported_physical_sector", 1 << 20, false, &u, e)))
		goto fail;
	if (!valid_sector_size(u) || u < d->logical_sector) {
		rc = ap_error_set(e, ERANGE, "\"reported_physical_sector\" %llu is not a sector size",
				  (unsigned long long)u);
		goto fail;
	}
	d->reported_physical = (unsigned)u;
	if (json_object_object_get_ex(o, "parameters", &v) && v &&
	    json_object_is_type(v, json_type_object))
		d->parameters = json_object_get(v);
	if (json_object_object_get_ex(o, "stopped", &v) && json_object_is_type(v, json_type_string))
		d->stopped = ap_xstrdup(json_object_get_string(v));

	if (!json_object_object_get_ex(o, "results", &a) || !json_object_is_type(a, json_type_array)) {
		rc = ap_error_set(e, EINVAL, "\"results\" is missing or not an array");
		goto fail;
	}
	n = json_object_array_length(a);
	if (n > MAX_DOC_RESULTS) {
		rc = ap_error_set(e, ERANGE, "too many results (%zu)", n);
		goto fail;
	}
	d->results = ap_xcalloc(n ? n : 1, sizeof(*d->results));
	for (i = 0; i < n; i++) {
		struct ap_error e2 = { 0 };

		rc = ap_sweep_result_from_json(json_object_array_get_idx(a, i), &d->results[i], &e2);
		if (rc) {
			rc = ap_error_set(e, e2.code ? e2.code : EINVAL, "results[%zu]: %s", i, e2.msg);
			goto fail;
		}
		d->nresults++;
	}
	/* the starts: those of the parameters when present, else the results' */
	if (d->parameters && json_object_object_get_ex(d->parameters, "starts", &v) &&
	    json_object_is_type(v, json_type_array) && json_object_array_length(v) <= MAX_STARTS) {
		size_t m = json_object_array_length(v), k = 0;

		d->starts = ap_xcalloc(m ? m : 1, sizeof(*d->starts));
		for (i = 0; i < m; i++) {
			struct json_object *x = json_object_array_get_idx(v, i);

			if (!json_object_is_type(x, json_type_int) || json_object_get_int64(x) < 0)
				break;
			d->starts[k++] = (uint64_t)json_object_get_int64(x);
		}
		if (k != m || !m) {
			free(d->starts);
			d->starts = NULL;
		} else {
			qsort(d->starts, k, sizeof(*d->starts), cmp_u64);
			d->nstarts = k;
		}
	}
	if (!d->starts) {
		d->starts = ap_xcalloc(d->nresults ? d->nresults : 1, sizeof(*d->starts));
		for (i = 0, n = 0; i < d->nresults; i++)
			d->starts[n++] = d->results[i].start;
		qsort(d->starts, n, sizeof(*d->starts), cmp_u64);
		for (i = 0, d->nstarts = 0; i < n; i++)
			if (!d->nstarts || d->starts[i] != d->starts[d->nstarts - 1])
				d->starts[d->nstarts++] = d->starts[i];
	}
	return 0;
fail:
	ap_sweep_doc_free(d);
	return rc;
}

int ap_sweep_doc_load(const char *path, struct ap_sweep_doc *d, struct ap_error *e)
{
	enum json_tokener_error jerr = json_tokener_success;
	struct json_tokener *tok;
	struct json_object *o = NULL;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	FILE *f;
	int rc;

	memset(d, 0, sizeof(*d));
	f = strcmp(path, "-") == 0 ? stdin : fopen(path, "re");
	if (!f)
		return ap_error_set(e, errno, "%s: %s", path, strerror(errno));
	for (;;) {
		size_t n;

		if (cap - len < 65536) {
			if (cap > (256U << 20)) {
				if (f != stdin)
					fclose(f);
				free(buf);
				return ap_error_set(e, EFBIG, "%s: too big for a results file", path);
			}
			cap = cap ? cap * 2 : 65536;
			buf = ap_xrealloc(buf, cap);
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
		if (n == 0)
			break;
	}
	rc = ferror(f) ? -(errno ? errno : EIO) : 0;	/* EISDIR for a directory */
	if (f != stdin)
		fclose(f);
	if (rc) {
		free(buf);
		return ap_error_set(e, -rc, "%s: %s", path, strerror(-rc));
	}
	buf[len] = '\0';
	tok = json_tokener_new();
	if (len <= INT32_MAX)
		o = json_tokener_parse_ex(tok, buf, (int)len);
	jerr = json_tokener_get_error(tok);
	if (o && (size_t)json_tokener_get_parse_end(tok) < len) {
		/* trailing garbage other than white space */
		const char *p = buf + json_tokener_get_parse_end(tok);

		p += strspn(p, " \t\r\n");
		if (*p)
			jerr = json_tokener_error_parse_unexpected;
	}
	json_tokener_free(tok);
	free(buf);
	if (!o || jerr != json_tokener_success) {
		if (o)
			json_object_put(o);
		return ap_error_set(e, EINVAL, "%s: not valid JSON: %s", path,
				    jerr == json_tokener_success || jerr == json_tokener_continue ?
				    "unexpected end of input" : json_tokener_error_desc(jerr));
	}
	if (json_object_object_get_ex(o, "devices", NULL) &&
	    !json_object_object_get_ex(o, "results", NULL)) {
		json_object_put(o);
		return ap_error_set(e, EINVAL, "%s: a probe document, not sweep results", path);
	}
	{
		struct ap_error e2 = { 0 };

		rc = ap_sweep_doc_from_json(o, d, &e2);
		if (rc)
			ap_error_set(e, e2.code ? e2.code : EINVAL, "%s: not sweep results: %s",
				     path, e2.msg);
	}
	json_object_put(o);
	return rc;
}

int ap_sweep_json_save(struct ap_outfile *of, struct json_object *o, struct ap_error *e)
{
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						       JSON_C_TO_STRING_SPACED |
						       JSON_C_TO_STRING_NOSLASHESCAPE);
	char *doc;
	int rc;

	ap_xasprintf(&doc, "%s\n", s);
	rc = ap_outfile_replace(of, doc, strlen(doc), e);
	free(doc);
	return rc;
}

/* ------------------------------------------------------------------ */
/* The run                                                            */
/* ------------------------------------------------------------------ */

static double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

static void set_failed(struct ap_sweep_result *r, enum ap_sweep_stage stage, int rc,
		       const struct ap_error *e)
{
	r->ok = false;
	r->failed_stage = stage;
	r->error = rc < 0 ? -rc : rc;
	free(r->message);
	if (e && e->msg[0])
		r->message = ap_xstrdup(e->msg);
	else
		r->message = ap_xstrdup(strerror(r->error));
}

static void fill_workload(struct ap_sweep_result *r, const struct ap_pm_result *pm)
{
	double create_s = secs(pm->phase_ns[AP_PM_PHASE_CREATE]);
	double trans_s = secs(pm->phase_ns[AP_PM_PHASE_TRANSACTIONS]);
	double del_s = secs(pm->phase_ns[AP_PM_PHASE_DELETE]);

	r->transactions = pm->transactions_done;
	r->created = pm->created_alone + pm->created_mixed;
	r->deleted = pm->deleted_alone + pm->deleted_mixed;
	r->bytes_read = pm->bytes_read;
	r->bytes_written = pm->bytes_written;
	r->workload_s = secs(pm->total_ns);
	r->tps = pm->tps;
	r->cost = pm->tps > 0 ? 1.0 / pm->tps : NAN;
	r->creates_per_s = create_s + trans_s > 0 ? (double)r->created / (create_s + trans_s) : 0;
	r->deletes_per_s = trans_s + del_s > 0 ? (double)r->deleted / (trans_s + del_s) : 0;
	r->read_kibs = pm->read_bytes_per_s / 1024.0;
	r->write_kibs = pm->write_bytes_per_s / 1024.0;
	r->fsync_med_ms = (double)pm->lat[AP_PM_OP_SYNC].p50_ns / 1e6;
}

static bool is_device_gone(int rc)
{
	return rc == -ENODEV || rc == -ENXIO || rc == -ENOENT || rc == -ENOMEDIUM ||
	       rc == -ENOTBLK;
}

struct step_ctx {
	const struct ap_sweep_opts *o;
	struct ap_sweep_run *run;
	bool hold;		/* keep the disk O_EXCL between steps */
	bool interrupted;
	bool fatal;
};

/* Take the disk again after a step (see src/device/safety.h). */
static int retake(struct step_ctx *c)
{
	int fd;

	if (!c->hold || c->run->excl_fd >= 0)
		return 0;
	fd = ap_safety_open_excl(c->o->disk, O_RDWR);
	if (fd < 0) {
		c->fatal = true;
		return ap_error_set(&c->run->fatal, -fd,
				    "%s: cannot hold the disk exclusively again: %s%s",
				    c->o->disk, strerror(-fd),
				    fd == -EBUSY ? " (someone else opened or mounted it)" : "");
	}
	c->run->excl_fd = fd;
	return 0;
}

static void release_excl(struct step_ctx *c)
{
	if (c->run->excl_fd >= 0) {
		close(c->run->excl_fd);
		c->run->excl_fd = -1;
	}
}

static void step(struct step_ctx *c, struct ap_sweep_result *r)
{
	const struct ap_sweep_opts *o = c->o;
	struct ap_part part = { 0 };
	struct ap_mnt m = { 0 };
	struct ap_pm_config cfg;
	struct ap_pm_result pm;
	struct ap_error e = { 0 };
	uint64_t t;
	int rc;
	struct ap_emu_counters c0, c1;
	bool emu_ok = false;

	r->ok = false;
	t = ap_now_ns();
	rc = ap_part_create(o->disk, r->start, o->part_sectors, 5000, &part, &e);
	r->partition_s = secs(ap_now_ns() - t);
	if (rc) {
		set_failed(r, AP_SWEEP_STAGE_PARTITION, rc, &e);
		if (is_device_gone(rc) || rc == -EBUSY || rc == -ERANGE)
			c->fatal = true;
		goto out;
	}
	if (ap_sig_pending()) {
		c->interrupted = true;
		goto out;
	}

	release_excl(c);
	t = ap_now_ns();
	rc = ap_mkfs_run(o->fs, part.node, o->mkfs_opts, o->nmkfs_opts, &e);
	r->mkfs_s = secs(ap_now_ns() - t);
	if (rc == -EINTR || ap_sig_pending()) {
		c->interrupted = true;
		goto out;
	}
	if (rc) {
		set_failed(r, AP_SWEEP_STAGE_MKFS, rc, &e);
		if (rc == -ENOENT || rc == -EINVAL)
			c->fatal = true;	/* mkfs missing, unknown fs */
		goto out;
	}

	t = ap_now_ns();
	rc = ap_mnt_mount(part.node, o->fs, o->mount_opts, o->disk, &m, &e);
	r->mount_s = secs(ap_now_ns() - t);
	if (rc) {
		set_failed(r, AP_SWEEP_STAGE_MOUNT, rc, &e);
		goto out;
	}
	if (ap_sig_pending()) {
		c->interrupted = true;
		goto out;
	}

	ap_pm_config_copy(&cfg, o->workload);
	rc = ap_pm_config_set_location(&cfg, m.dir, &e);
	if (rc) {
		ap_pm_config_free(&cfg);
		set_failed(r, AP_SWEEP_STAGE_WORKLOAD, rc, &e);
		goto out;
	}
	if (o->emulated)
		emu_ok = ap_emu_counters_read(o->disk, &c0) == 0;
	memset(&pm, 0, sizeof(pm));
	rc = ap_pm_run(&cfg, &pm, &e);
	ap_pm_config_free(&cfg);
	if (emu_ok && ap_emu_counters_read(o->disk, &c1) == 0) {
		r->has_emu = true;
		r->emu_writes = c1.writes - c0.writes;
		r->emu_rmw = c1.rmw - c0.rmw;
		r->emu_flushes = c1.flushes - c0.flushes;
	}
	if (rc == -EINTR || pm.interrupted) {
		c->interrupted = true;
		goto out;
	}
	if (rc) {
		set_failed(r, AP_SWEEP_STAGE_WORKLOAD, rc, &e);
		goto out;
	}
	fill_workload(r, &pm);
	if (!(r->tps > 0) || !r->transactions) {
		ap_error_set(&e, EIO, "the workload completed no transaction%s",
			     pm.out_of_files ? " (out of files)" : "");
		set_failed(r, AP_SWEEP_STAGE_WORKLOAD, -EIO, &e);
		goto out;
	}
	r->ok = true;

out:
	if (m.dir) {
		struct ap_error e2 = { 0 };

		t = ap_now_ns();
		rc = ap_mnt_umount(&m, &e2);
		r->umount_s = secs(ap_now_ns() - t);
		if (rc) {
			/* something stays mounted: never go on */
			if (r->ok || !r->message)
				set_failed(r, AP_SWEEP_STAGE_UMOUNT, rc, &e2);
			c->fatal = true;
			if (!c->run->fatal.code)
				ap_error_set(&c->run->fatal, -rc, "%s", e2.msg);
		}
	}
	ap_part_release(&part);
	retake(c);
	if (c->fatal && !c->run->fatal.code)
		ap_error_set(&c->run->fatal, r->error ? r->error : EIO, "start %llu: %s: %s",
			     (unsigned long long)r->start, ap_sweep_stage_name(r->failed_stage),
			     r->message ? r->message : "failed");
}

static void analyse(const struct ap_sweep_opts *o, struct ap_sweep_run *run)
{
	if (run->verdict_valid) {
		ap_verdict_free(&run->verdict);
		run->verdict_valid = false;
	}
	memset(&run->verdict, 0, sizeof(run->verdict));
	if (ap_sweep_analyse(run->results, run->nresults, &o->analysis, &run->verdict) == 0)
		run->verdict_valid = true;
}

int ap_sweep_run(const struct ap_sweep_opts *o, struct ap_sweep_run *run, struct ap_error *e)
{
	struct step_ctx c = { .o = o, .run = run };
	struct ap_rng rng;
	uint64_t *order, prev = 0;
	bool have_prev = false;
	unsigned round, consecutive = 0;
	size_t i;

	memset(run, 0, sizeof(*run));
	run->excl_fd = o->excl_fd;
	c.hold = o->excl_fd >= 0;
	if (!o->disk || !o->nstarts || !o->workload || !o->fs || !o->part_sectors)
		return ap_error_set(e, EINVAL, "nothing to sweep");
	if (!o->max_rounds || o->min_rounds > o->max_rounds)
		return ap_error_set(e, EINVAL, "bad number of rounds (%u..%u)",
				    o->min_rounds, o->max_rounds);
	run->nstarts = o->nstarts;
	run->max_rounds = o->max_rounds;
	run->t0_ns = ap_now_ns();
	ap_rng_seed(&rng, o->seed);
	order = ap_xcalloc(o->nstarts, sizeof(*order));

	for (round = 1; round <= o->max_rounds && !run->stop; round++) {
		ap_sweep_order(o->starts, o->nstarts, have_prev ? &prev : NULL, &rng, order);
		for (i = 0; i < o->nstarts; i++) {
			struct ap_sweep_result r;
			uint64_t now = ap_now_ns(), el = now - run->t0_ns;

			if (ap_sig_pending()) {
				run->stop = AP_SWEEP_STOP_SIGNAL;
				break;
			}
			/* would the next step end past the budget? */
			if (o->time_budget_ns && run->nresults &&
			    el + el / run->nresults > o->time_budget_ns) {
				run->stop = AP_SWEEP_STOP_BUDGET;
				break;
			}
			run->cur_start = order[i];
			run->cur_round = round;
			run->cur_index = i + 1;
			run->elapsed_ns = el;
			if (o->on_step)
				o->on_step(o->ctx, run, false);

			memset(&r, 0, sizeof(r));
			r.start = order[i];
			r.round = round;
			r.seq = (unsigned)run->nresults + 1;
			c.interrupted = false;
			step(&c, &r);
			if (c.interrupted && r.ok == false && !r.message) {
				run->stop = AP_SWEEP_STOP_SIGNAL;
				ap_sweep_result_free(&r);
				break;
			}
			run->results = ap_xreallocarray(run->results, run->nresults + 1,
							sizeof(*run->results));
			run->results[run->nresults++] = r;
			prev = order[i];
			have_prev = true;
			if (!r.ok) {
				run->nfailed++;
				consecutive++;
			} else {
				consecutive = 0;
			}
			if (c.fatal) {
				run->stop = AP_SWEEP_STOP_FATAL;
			} else if (consecutive >= MAX_CONSECUTIVE_FAILURES) {
				ap_error_set(&run->fatal, r.error ? r.error : EIO,
					     "%u steps in a row failed; the last: start %llu: %s: %s",
					     consecutive, (unsigned long long)r.start,
					     ap_sweep_stage_name(r.failed_stage),
					     r.message ? r.message : "failed");
				run->stop = AP_SWEEP_STOP_FATAL;
			}
			if (i + 1 == o->nstarts)
				run->rounds_done = round;
			if (round > o->min_rounds || (round == o->min_rounds && i + 1 == o->nstarts)) {
				analyse(o, run);
				if (!run->stop && run->verdict_valid &&
				    ap_analysis_is_clear(&run->verdict, &o->analysis))
					run->stop = AP_SWEEP_STOP_CLEAR;
			}
			if (c.interrupted || ap_sig_pending())
				if (!run->stop)
					run->stop = AP_SWEEP_STOP_SIGNAL;
			run->elapsed_ns = ap_now_ns() - run->t0_ns;
			if (o->on_step)
				o->on_step(o->ctx, run, true);
			if (run->stop)
				break;
		}
	}
	if (!run->stop)
		run->stop = AP_SWEEP_STOP_ROUNDS;
	if (run->stop == AP_SWEEP_STOP_SIGNAL)
		run->signo = ap_sig_pending();
	free(order);

	analyse(o, run);
	/* leave an empty GPT: also after a signal or an error */
	ap_part_wipe(o->disk, &run->wipe_error);
	run->elapsed_ns = ap_now_ns() - run->t0_ns;
	return 0;
}

void ap_sweep_run_free(struct ap_sweep_run *run)
{
	size_t i;

	for (i = 0; i < run->nresults; i++)
		ap_sweep_result_free(&run->results[i]);
	free(run->results);
	if (run->verdict_valid)
		ap_verdict_free(&run->verdict);
	if (run->excl_fd >= 0)
		close(run->excl_fd);
	memset(run, 0, sizeof(*run));
	run->excl_fd = -1;
}
