// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The verdict store's smr rows (vstore.h, "the smr rows"): what `smr
 * --record` found per model, read by `check --refuse-smr` so that one
 * disk measured answers for its model across the fleet.
 */
#include "fleet/vstore.h"
#include "fleet/vstoreP.h"

#include <errno.h>
#include <json-c/json.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "lib/util.h"

static char *dup0(const char *s)
{
	return s ? ap_xstrdup(s) : NULL;
}

/* A row's fields, in the order of the store's "smr" objects. */
static const struct {
	const char *key;
	size_t off;
	bool required;
} fields[] = {
	{ "vendor", offsetof(struct ap_vstore_smr, vendor), false },
	{ "model", offsetof(struct ap_vstore_smr, model), true },
	{ "revision", offsetof(struct ap_vstore_smr, revision), false },
	{ "verdict", offsetof(struct ap_vstore_smr, verdict), true },
	{ "serial", offsetof(struct ap_vstore_smr, serial), false },
	{ "device", offsetof(struct ap_vstore_smr, device), false },
	{ "host", offsetof(struct ap_vstore_smr, host), false },
	{ "recorded", offsetof(struct ap_vstore_smr, recorded), false },
};

static char **field(struct ap_vstore_smr *x, size_t i)
{
	return (char **)((char *)x + fields[i].off);
}

static const char *field_value(const struct ap_vstore_smr *x, size_t i)
{
	return *(char *const *)((const char *)x + fields[i].off);
}

static void row_free(struct ap_vstore_smr *x)
{
	size_t i;

	for (i = 0; i < AP_ARRAY_SIZE(fields); i++)
		free(*field(x, i));
}

void ap_vstore_smr_free(struct ap_vstore *s)
{
	size_t i;

	for (i = 0; i < s->nsmr; i++)
		row_free(&s->smr[i]);
	free(s->smr);
	s->smr = NULL;
	s->nsmr = 0;
}

/* The row is of the model @vendor/@model/@revision (NULLs match NULLs). */
static bool same_key(const struct ap_vstore_smr *x, const char *vendor, const char *model,
		     const char *revision)
{
	return ap_vstore_same_str(x->vendor, vendor) && ap_vstore_same_str(x->model, model) &&
	       ap_vstore_same_str(x->revision, revision);
}

size_t ap_vstore_smr_find(const struct ap_vstore *s, const char *vendor, const char *model,
			  const char *revision, size_t *idx, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < s->nsmr; i++)
		if (same_key(&s->smr[i], vendor, model, revision) && n < max)
			idx[n++] = i;
	return n;
}

static struct ap_vstore_smr *row_new(struct ap_vstore *s)
{
	s->smr = ap_xreallocarray(s->smr, s->nsmr + 1, sizeof(*s->smr));
	memset(&s->smr[s->nsmr], 0, sizeof(*s->smr));
	return &s->smr[s->nsmr++];
}

static void set_field(char **f, const char *v, bool *changed)
{
	if (ap_vstore_same_str(*f, v))
		return;
	free(*f);
	*f = dup0(v);
	*changed = true;
}

/* The "deep" object's members and where they go. */
static const struct {
	const char *key;
	size_t off;
} deep_fields[] = {
	{ "cache_bytes", offsetof(struct ap_vstore_smr_deep, cache_bytes) },
	{ "band_bytes", offsetof(struct ap_vstore_smr_deep, band_bytes) },
	{ "band_error_bytes", offsetof(struct ap_vstore_smr_deep, band_error_bytes) },
	{ "idle_clean_ns", offsetof(struct ap_vstore_smr_deep, idle_clean_ns) },
};

static uint64_t *deep_field(struct ap_vstore_smr_deep *d, size_t i)
{
	return (uint64_t *)((char *)d + deep_fields[i].off);
}

bool ap_vstore_smr_deep_any(const struct ap_vstore_smr_deep *d)
{
	return d && (d->cache_bytes || d->band_bytes || d->idle_clean_ns);
}

/* A deep test's figures replace the row's; none leave them. */
static void set_deep(struct ap_vstore_smr *x, const struct ap_vstore_smr_deep *d, bool *changed)
{
	if (!ap_vstore_smr_deep_any(d) || memcmp(&x->deep, d, sizeof(*d)) == 0)
		return;
	x->deep = *d;
	*changed = true;
}

int ap_vstore_smr_set(struct ap_vstore *s, const struct ap_vstore_record *r,
		      const char *verdict, const struct ap_vstore_smr_deep *deep,
		      struct ap_error *e)
{
	struct ap_vstore_smr *x = NULL;
	char when[40];
	bool changed = false;
	size_t i;

	if (!r->model || !*r->model || !verdict)
		return ap_error_set(e, EINVAL, "a verdict for the store needs the disk's model");
	for (i = 0; i < s->nsmr && !x; i++)
		if (same_key(&s->smr[i], r->vendor, r->model, r->revision) &&
		    ap_vstore_same_str(s->smr[i].verdict, verdict))
			x = &s->smr[i];
	if (!x) {
		x = row_new(s);
		x->vendor = dup0(r->vendor);
		x->model = ap_xstrdup(r->model);
		x->revision = dup0(r->revision);
		x->verdict = ap_xstrdup(verdict);
		changed = true;
	}
	ap_vstore_format_time(r->when, when, sizeof(when));
	set_field(&x->serial, r->serial, &changed);
	set_field(&x->device, r->device, &changed);
	set_field(&x->host, r->host, &changed);
	set_field(&x->recorded, when, &changed);
	set_deep(x, deep, &changed);
	return changed ? 1 : 0;
}

struct json_object *ap_vstore_smr_row_to_json(const struct ap_vstore_smr *x)
{
	struct json_object *o = json_object_new_object();
	size_t f;

	for (f = 0; f < AP_ARRAY_SIZE(fields); f++)
		json_object_object_add(o, fields[f].key, ap_json_string(field_value(x, f)));
	if (ap_vstore_smr_deep_any(&x->deep)) {
		struct json_object *d = json_object_new_object();
		struct ap_vstore_smr_deep v = x->deep;

		for (f = 0; f < AP_ARRAY_SIZE(deep_fields); f++)
			json_object_object_add(d, deep_fields[f].key, *deep_field(&v, f) ?
					       json_object_new_int64((int64_t)*deep_field(&v, f)) :
					       NULL);
		json_object_object_add(o, "deep", d);
	}
	return o;
}

struct json_object *ap_vstore_smr_to_json(const struct ap_vstore *s)
{
	struct json_object *a;
	size_t i;

	if (!s->nsmr)
		return NULL;
	a = json_object_new_array();
	for (i = 0; i < s->nsmr; i++)
		json_object_array_add(a, ap_vstore_smr_row_to_json(&s->smr[i]));
	return a;
}

/* The row's "deep" object (absent: nothing measured; null members: that figure not). */
static int deep_from_json(struct json_object *o, struct ap_vstore_smr_deep *d,
			  struct ap_error *e)
{
	struct json_object *dj = NULL, *v;
	size_t f;

	if (!json_object_object_get_ex(o, "deep", &dj) || !dj)
		return 0;
	if (!json_object_is_type(dj, json_type_object))
		return ap_error_set(e, EINVAL, "\"deep\" is not an object");
	for (f = 0; f < AP_ARRAY_SIZE(deep_fields); f++) {
		if (!json_object_object_get_ex(dj, deep_fields[f].key, &v) || !v)
			continue;
		if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
			return ap_error_set(e, EINVAL, "deep.%s is not a count",
					    deep_fields[f].key);
		*deep_field(d, f) = (uint64_t)json_object_get_int64(v);
	}
	return 0;
}

static int row_from_json(struct json_object *o, struct ap_vstore_smr *x, struct ap_error *e)
{
	size_t f;
	int rc;

	if (!json_object_is_type(o, json_type_object))
		return ap_error_set(e, EINVAL, "not an object");
	for (f = 0; f < AP_ARRAY_SIZE(fields); f++)
		if ((rc = ap_json_get_string(o, fields[f].key, fields[f].required, field(x, f), e)))
			return rc;
	if (!*x->model)
		return ap_error_set(e, EINVAL, "\"model\" is empty");
	return deep_from_json(o, &x->deep, e);
}

int ap_vstore_smr_from_json(struct json_object *doc, struct ap_vstore *s, struct ap_error *e)
{
	struct json_object *a = NULL;
	size_t i, n;

	if (!json_object_object_get_ex(doc, "smr", &a) || !a)
		return 0;
	if (!json_object_is_type(a, json_type_array))
		return ap_error_set(e, EINVAL, "\"smr\" is not an array");
	n = json_object_array_length(a);
	for (i = 0; i < n; i++) {
		struct ap_error le = { 0 };

		if (row_from_json(json_object_array_get_idx(a, i), row_new(s), &le) != 0)
			return ap_error_set(e, EINVAL, "smr[%zu]: %s", i, le.msg);
	}
	return 0;
}

/* @x again, all but the layer */
static void row_copy(struct ap_vstore_smr *y, const struct ap_vstore_smr *x)
{
	size_t f;

	for (f = 0; f < AP_ARRAY_SIZE(fields); f++)
		*field(y, f) = dup0(field_value(x, f));
	y->deep = x->deep;
}

void ap_vstore_smr_layer(struct ap_vstore *dst, const struct ap_vstore *src, size_t layer)
{
	size_t i, idx;

	for (i = 0; i < src->nsmr; i++) {
		const struct ap_vstore_smr *x = &src->smr[i];
		struct ap_vstore_smr *y;

		/* the first row of a model is its earliest layer's: that layer decides */
		if (ap_vstore_smr_find(dst, x->vendor, x->model, x->revision, &idx, 1) &&
		    dst->smr[idx].layer < layer)
			continue;
		y = row_new(dst);
		row_copy(y, x);
		y->layer = layer;
	}
}

void ap_vstore_smr_merge(struct ap_vstore *dst, const struct ap_vstore *src,
			 struct ap_vstore_merged *st)
{
	size_t i, k;

	for (i = 0; i < src->nsmr; i++) {
		const struct ap_vstore_smr *x = &src->smr[i];
		struct ap_vstore_smr *y = NULL;
		bool changed = false;

		for (k = 0; k < dst->nsmr && !y; k++)
			if (same_key(&dst->smr[k], x->vendor, x->model, x->revision) &&
			    ap_vstore_same_str(dst->smr[k].verdict, x->verdict))
				y = &dst->smr[k];
		if (!y) {
			row_copy(row_new(dst), x);
			st->smr_added++;
			continue;
		}
		/* the later measurement names the disk (ISO 8601 UTC sorts as text) */
		if (!x->recorded || (y->recorded && strcmp(x->recorded, y->recorded) <= 0)) {
			/* an earlier deep test still tells what the later run did not */
			if (!ap_vstore_smr_deep_any(&y->deep) && ap_vstore_smr_deep_any(&x->deep)) {
				y->deep = x->deep;
				st->smr_updated++;
			}
			continue;
		}
		set_deep(y, &x->deep, &changed);
		set_field(&y->serial, x->serial, &changed);
		set_field(&y->device, x->device, &changed);
		set_field(&y->host, x->host, &changed);
		set_field(&y->recorded, x->recorded, &changed);
		if (changed)
			st->smr_updated++;
	}
}

void ap_vstore_smr_remove(struct ap_vstore *s, size_t index)
{
	if (index >= s->nsmr)
		return;
	row_free(&s->smr[index]);
	memmove(&s->smr[index], &s->smr[index + 1], (s->nsmr - index - 1) * sizeof(*s->smr));
	s->nsmr--;
}

char *ap_vstore_smr_verdicts(const struct ap_vstore *s, const char *vendor, const char *model,
			     const char *revision)
{
	size_t idx[8], i, n = ap_vstore_smr_find(s, vendor, model, revision, idx, 8);
	char *out = NULL, *t;

	for (i = 0; i < n; i++) {
		ap_xasprintf(&t, "%s%s%s", out ? out : "", out ? "," : "", s->smr[idx[i]].verdict);
		free(out);
		out = t;
	}
	return out;
}
