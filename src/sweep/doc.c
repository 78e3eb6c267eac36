// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sweep's document (--json, --save, --replay): one result and the
 * whole document to JSON and back, built here once for every output (the
 * front end hands in what only it has: the per-start rows of its columns,
 * what to run next), read from a file, written atomically.
 * Everything read is checked (ranges, types): a replayed file is input.
 */
#include "analysis/verdict_json.h"
#include "lib/json.h"
#include "sweep/sweep.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#define MAX_DOC_RESULTS		1000000
#define MAX_DOC_START		(1ULL << 48)
#define MAX_DOC_ROUND		1000000U

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
			for (i = 0; i < AP_SWEEP_STAGE_COUNT; i++)
				if (strcmp(s, ap_sweep_stage_name((enum ap_sweep_stage)i)) == 0)
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

/* "next_steps_device": the placeholder the steps name, and why (see ap_sweep_doc_parts) */
static void add_next_steps(struct json_object *o, const struct ap_sweep_doc_parts *p)
{
	struct json_object *d;

	if (!p->next_steps)
		return;
	jadd(o, "next_steps", p->next_steps);
	if (!p->why || !json_object_array_length(p->next_steps))
		return;
	d = json_object_new_object();
	jadd(d, "placeholder", json_object_new_string(p->placeholder ? p->placeholder : ""));
	jadd(d, "why", json_object_new_string(p->why));
	jadd(o, "next_steps_device", d);
}

struct json_object *ap_sweep_doc_to_json(const struct ap_sweep_doc *d,
					 const struct ap_verdict *v, const char *stopped,
					 const struct ap_sweep_doc_parts *p)
{
	static const struct ap_sweep_doc_parts none;
	struct json_object *o = json_object_new_object(), *a;
	size_t i;

	if (!p)
		p = &none;
	jadd(o, "device", json_object_new_string(d->device ? d->device : ""));
	jadd(o, "logical_sector", json_object_new_int64(d->logical_sector));
	jadd(o, "reported_physical_sector", json_object_new_int64(d->reported_physical));
	if (stopped)
		jadd(o, "stopped", json_object_new_string(stopped));
	if (d->cause)
		jadd(o, "cause", json_object_new_string(d->cause));
	jadd(o, "verdict", v ? ap_verdict_to_json(v) : NULL);
	if (d->parameters)
		jadd(o, "parameters", json_object_get(d->parameters));
	jadd(o, "starts", p->starts ? p->starts : json_object_new_array());
	a = json_object_new_array();
	for (i = 0; i < d->nresults; i++)
		json_object_array_add(a, ap_sweep_result_to_json(&d->results[i]));
	jadd(o, "results", a);
	if (p->id && p->id->size)
		jadd(o, "identity", ap_identity_to_json(p->id));
	add_next_steps(o, p);
	return o;
}

void ap_sweep_doc_free(struct ap_sweep_doc *d)
{
	size_t i;

	free(d->device);
	free(d->stopped);
	free(d->cause);
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
	if (json_object_object_get_ex(o, "cause", &v) && json_object_is_type(v, json_type_string))
		d->cause = ap_xstrdup(json_object_get_string(v));

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
	    json_object_is_type(v, json_type_array) &&
	    json_object_array_length(v) <= AP_SWEEP_MAX_STARTS) {
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
			d->nstarts = ap_sweep_sort_starts(d->starts, k, false);
		}
	}
	if (!d->starts) {
		d->starts = ap_xcalloc(d->nresults ? d->nresults : 1, sizeof(*d->starts));
		for (i = 0, n = 0; i < d->nresults; i++)
			d->starts[n++] = d->results[i].start;
		d->nstarts = ap_sweep_sort_starts(d->starts, n, true);
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
