// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The verdict store's smr rows (vstore.h, "the smr rows"): what `smr
 * --record` found per model, read by `check --refuse-smr` so that one
 * disk measured answers for its model across the fleet.
 */
#include "fleet/vstore.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static char *dup0(const char *s)
{
	return s ? ap_xstrdup(s) : NULL;
}

static void row_free(struct ap_vstore_smr *x)
{
	free(x->vendor);
	free(x->model);
	free(x->revision);
	free(x->verdict);
	free(x->serial);
	free(x->device);
	free(x->host);
	free(x->recorded);
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

size_t ap_vstore_smr_find(const struct ap_vstore *s, const char *vendor, const char *model,
			  const char *revision, size_t *idx, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < s->nsmr; i++)
		if (same(s->smr[i].vendor, vendor) && same(s->smr[i].model, model) &&
		    same(s->smr[i].revision, revision) && n < max)
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
	if (same(*f, v))
		return;
	free(*f);
	*f = dup0(v);
	*changed = true;
}

int ap_vstore_smr_set(struct ap_vstore *s, const struct ap_vstore_record *r,
		      const char *verdict, struct ap_error *e)
{
	struct ap_vstore_smr *x = NULL;
	char when[40];
	bool changed = false;
	size_t i;

	if (!r->model || !*r->model || !verdict)
		return ap_error_set(e, EINVAL, "a verdict for the store needs the disk's model");
	for (i = 0; i < s->nsmr && !x; i++)
		if (same(s->smr[i].vendor, r->vendor) && same(s->smr[i].model, r->model) &&
		    same(s->smr[i].revision, r->revision) && same(s->smr[i].verdict, verdict))
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
	return changed ? 1 : 0;
}

struct json_object *ap_vstore_smr_to_json(const struct ap_vstore *s)
{
	struct json_object *a;
	size_t i;

	if (!s->nsmr)
		return NULL;
	a = json_object_new_array();
	for (i = 0; i < s->nsmr; i++) {
		const struct ap_vstore_smr *x = &s->smr[i];
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "vendor", ap_json_string(x->vendor));
		json_object_object_add(o, "model", ap_json_string(x->model));
		json_object_object_add(o, "revision", ap_json_string(x->revision));
		json_object_object_add(o, "verdict", ap_json_string(x->verdict));
		json_object_object_add(o, "serial", ap_json_string(x->serial));
		json_object_object_add(o, "device", ap_json_string(x->device));
		json_object_object_add(o, "host", ap_json_string(x->host));
		json_object_object_add(o, "recorded", ap_json_string(x->recorded));
		json_object_array_add(a, o);
	}
	return a;
}

static int row_from_json(struct json_object *o, struct ap_vstore_smr *x, struct ap_error *e)
{
	int rc;

	if (!json_object_is_type(o, json_type_object))
		return ap_error_set(e, EINVAL, "not an object");
	if ((rc = ap_json_get_string(o, "vendor", false, &x->vendor, e)) ||
	    (rc = ap_json_get_string(o, "model", true, &x->model, e)) ||
	    (rc = ap_json_get_string(o, "revision", false, &x->revision, e)) ||
	    (rc = ap_json_get_string(o, "verdict", true, &x->verdict, e)) ||
	    (rc = ap_json_get_string(o, "serial", false, &x->serial, e)) ||
	    (rc = ap_json_get_string(o, "device", false, &x->device, e)) ||
	    (rc = ap_json_get_string(o, "host", false, &x->host, e)) ||
	    (rc = ap_json_get_string(o, "recorded", false, &x->recorded, e)))
		return rc;
	if (!*x->model)
		return ap_error_set(e, EINVAL, "\"model\" is empty");
	return 0;
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
		y->vendor = dup0(x->vendor);
		y->model = ap_xstrdup(x->model);
		y->revision = dup0(x->revision);
		y->verdict = ap_xstrdup(x->verdict);
		y->serial = dup0(x->serial);
		y->device = dup0(x->device);
		y->host = dup0(x->host);
		y->recorded = dup0(x->recorded);
		y->layer = layer;
	}
}
