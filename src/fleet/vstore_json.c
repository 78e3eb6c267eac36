// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The verdict store's JSON form (see vstore.h): a store written as the
 * document `alignprobe-verdicts` version 1 and read back, every field
 * checked, a newer version told apart from a corrupt one (-EPROTO).
 */
#include "fleet/vstore.h"
#include "fleet/vstoreP.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "lib/json.h"

#define FORMAT_NAME	"alignprobe-verdicts"
#define FORMAT_VERSION	1

static const char *const known_doc[] = { "format", "version", "models", "smr", NULL };
static const char *const known_model[] = { "vendor", "model", "revision", "verdicts", NULL };
static const char *const known_verdict[] = {
	"logical_sector", "physical_sector", "lowest_aligned_lba", "sensitive", "absence_margin",
	"ruled_out_up_to", "levels", "ruled_out", "first_writes_unplaced", "examples", NULL
};
static const char *const known_example[] = {
	"serial", "wwn", "device", "host", "source", "recorded", "confidence", "runs", NULL
};

/* The members of @o not in @known: a new object holding them, NULL when none. */
static struct json_object *extras_of(struct json_object *o, const char *const *known)
{
	struct json_object *x = NULL;

	json_object_object_foreach(o, key, val) {
		size_t i;

		for (i = 0; known[i] && strcmp(known[i], key) != 0; i++)
			;
		if (known[i])
			continue;
		if (!x)
			x = json_object_new_object();
		json_object_object_add(x, key, json_object_get(val));
	}
	return x;
}

/* @extra's members into @o, where @o has none of the name (what is known wins). */
static void extras_add(struct json_object *o, struct json_object *extra)
{
	if (!extra)
		return;
	json_object_object_foreach(extra, key, val)
		if (!json_object_object_get_ex(o, key, NULL))
			json_object_object_add(o, key, json_object_get(val));
}

struct json_object *ap_vstore_example_to_json(const struct ap_vstore_example *x)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "serial", ap_json_string(x->serial));
	json_object_object_add(o, "wwn", ap_json_string(x->wwn));
	json_object_object_add(o, "device", ap_json_string(x->device));
	json_object_object_add(o, "host", ap_json_string(x->host));
	json_object_object_add(o, "source", ap_json_string(x->source));
	json_object_object_add(o, "recorded", ap_json_string(x->recorded));
	json_object_object_add(o, "confidence", isfinite(x->confidence)
			       ? json_object_new_double(x->confidence) : NULL);
	json_object_object_add(o, "runs", ap_json_u64(x->runs));
	extras_add(o, x->extra);
	return o;
}

struct json_object *ap_vstore_verdict_to_json(const struct ap_vstore_verdict *v,
					      struct json_object *o, bool nulls)
{
	struct json_object *xa = json_object_new_array();
	bool margin = !v->sensitive && v->absence_margin >= 1;
	bool ruled = !v->sensitive && v->ruled_out_up_to;
	static const struct ap_levels no_levels;
	size_t l;

	if (!o)
		o = json_object_new_object();
	json_object_object_add(o, "logical_sector", ap_json_u64(v->logical_sector));
	json_object_object_add(o, "physical_sector", ap_json_u64(v->physical_sector));
	json_object_object_add(o, "lowest_aligned_lba", ap_json_u64(v->lowest_aligned_lba));
	json_object_object_add(o, "sensitive", json_object_new_boolean(v->sensitive));
	if (margin || nulls)
		json_object_object_add(o, "absence_margin",
				       margin ? json_object_new_double(v->absence_margin) : NULL);
	if (ruled || nulls)
		json_object_object_add(o, "ruled_out_up_to",
				       ruled ? ap_json_u64(v->ruled_out_up_to) : NULL);
	/* newer members: only where they say something (older readers, diffs) */
	if (!ap_levels_same_above(&v->levels, &no_levels))
		json_object_object_add(o, "levels", ap_levels_to_json(&v->levels));
	if (!v->sensitive && v->ruled_out.up_to)
		json_object_object_add(o, "ruled_out", ap_ruled_out_to_json(&v->ruled_out));
	if (v->sensitive && v->first_writes_unplaced)
		json_object_object_add(o, "first_writes_unplaced", json_object_new_boolean(true));
	for (l = 0; l < v->nexamples; l++)
		json_object_array_add(xa, ap_vstore_example_to_json(&v->examples[l]));
	json_object_object_add(o, "examples", xa);
	extras_add(o, v->extra);
	return o;
}

/* A model as the store writes it: vendor, model, revision, its verdicts. */
static struct json_object *model_json(const struct ap_vstore_model *m)
{
	struct json_object *mo = json_object_new_object(), *va = json_object_new_array();
	size_t k;

	json_object_object_add(mo, "vendor", ap_json_string(m->vendor));
	json_object_object_add(mo, "model", ap_json_string(m->model));
	json_object_object_add(mo, "revision", ap_json_string(m->revision));
	for (k = 0; k < m->nverdicts; k++)
		json_object_array_add(va, ap_vstore_verdict_to_json(&m->verdicts[k], NULL, false));
	json_object_object_add(mo, "verdicts", va);
	extras_add(mo, m->extra);
	return mo;
}

struct json_object *ap_vstore_to_json(const struct ap_vstore *s)
{
	struct json_object *doc = json_object_new_object(), *models = json_object_new_array();
	size_t i;

	json_object_object_add(doc, "format", json_object_new_string(FORMAT_NAME));
	json_object_object_add(doc, "version", json_object_new_int(FORMAT_VERSION));
	for (i = 0; i < s->nmodels; i++)
		json_object_array_add(models, model_json(&s->models[i]));
	json_object_object_add(doc, "models", models);
	extras_add(doc, s->extra);
	if (s->nsmr)
		json_object_object_add(doc, "smr", ap_vstore_smr_to_json(s));
	return doc;
}

struct json_object *ap_vstore_model_to_json(const struct ap_vstore_model *m, const char *store)
{
	struct json_object *o = model_json(m);
	char *name = ap_vstore_model_name(m), entry[32];

	snprintf(entry, sizeof(entry), "models[%zu]", m->index);
	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "store", json_object_new_string(store));
	json_object_object_add(o, "entry", json_object_new_string(entry));
	json_object_object_add(o, "conflict", json_object_new_boolean(ap_vstore_model_in_conflict(m)));
	free(name);
	return o;
}

/* Member @key of @o, an array (required): or NULL with @e. */
static struct json_object *get_array(struct json_object *o, const char *key, struct ap_error *e)
{
	struct json_object *a = NULL;

	if (!json_object_object_get_ex(o, key, &a) || !json_object_is_type(a, json_type_array)) {
		ap_error_set(e, EINVAL, "\"%s\" is %s", key, a ? "not an array" : "missing");
		return NULL;
	}
	return a;
}

static int example_from_json(struct json_object *o, struct ap_vstore_example *x,
			     struct ap_error *e)
{
	struct json_object *c = NULL;
	int rc;

	memset(x, 0, sizeof(*x));
	x->confidence = NAN;
	if (!json_object_is_type(o, json_type_object))
		return ap_error_set(e, EINVAL, "not an object");
	if ((rc = ap_json_get_string(o, "serial", false, &x->serial, e)) ||
	    (rc = ap_json_get_string(o, "wwn", false, &x->wwn, e)) ||
	    (rc = ap_json_get_string(o, "device", false, &x->device, e)) ||
	    (rc = ap_json_get_string(o, "host", false, &x->host, e)) ||
	    (rc = ap_json_get_string(o, "source", false, &x->source, e)) ||
	    (rc = ap_json_get_string(o, "recorded", false, &x->recorded, e)) ||
	    (rc = ap_json_get_u64(o, "runs", UINT32_MAX, false, &x->runs, e)))
		return rc;
	if (json_object_object_get_ex(o, "confidence", &c) && c) {
		if (!json_object_is_type(c, json_type_double) && !json_object_is_type(c, json_type_int))
			return ap_error_set(e, EINVAL, "\"confidence\" is not a number");
		x->confidence = json_object_get_double(c);
	}
	x->extra = extras_of(o, known_example);
	return 0;
}

/* "levels" (level 0 the physical sector) and "ruled_out", optional. */
static int levels_from_json(struct json_object *o, struct ap_vstore_verdict *v,
			    struct ap_error *e)
{
	struct json_object *x;
	size_t i;
	int rc;

	if (json_object_object_get_ex(o, "levels", &x) && x) {
		if ((rc = ap_levels_from_json(x, v->logical_sector, &v->levels, e)))
			return rc;
		for (i = 0; i < v->levels.n; i++)
			if (v->levels.l[i].kind == AP_LEVEL_SECTOR &&
			    (i || v->levels.l[i].unit != v->physical_sector ||
			     v->levels.l[i].lowest_aligned_lba != v->lowest_aligned_lba))
				return ap_error_set(e, EINVAL, "levels[%zu]: a sector level that "
						    "is not level 0, the physical sector", i);
	}
	if (json_object_object_get_ex(o, "ruled_out", &x) && x)
		return ap_ruled_out_from_json(x, &v->ruled_out, e);
	return 0;
}

static int verdict_from_json(struct json_object *o, struct ap_vstore_verdict *v,
			     struct ap_error *e)
{
	struct json_object *xa;
	uint64_t logical = 0;
	size_t i, n;
	int rc;

	memset(v, 0, sizeof(*v));
	if (!json_object_is_type(o, json_type_object))
		return ap_error_set(e, EINVAL, "not an object");
	if ((rc = ap_json_get_u64(o, "logical_sector", 65536, true, &logical, e)) ||
	    (rc = ap_json_get_u64(o, "physical_sector", 1u << 30, true, &v->physical_sector, e)) ||
	    (rc = ap_json_get_u64(o, "lowest_aligned_lba", 1u << 30, true,
				  &v->lowest_aligned_lba, e)) ||
	    (rc = ap_json_get_bool(o, "sensitive", false, &v->sensitive, e)) ||
	    (rc = ap_json_get_bool(o, "first_writes_unplaced", false, &v->first_writes_unplaced, e)))
		return rc;
	v->first_writes_unplaced = v->first_writes_unplaced && v->sensitive;
	v->logical_sector = (unsigned)logical;
	if (json_object_object_get_ex(o, "absence_margin", &xa) && xa) {
		if (!json_object_is_type(xa, json_type_double) &&
		    !json_object_is_type(xa, json_type_int))
			return ap_error_set(e, EINVAL, "\"absence_margin\" is not a number");
		v->absence_margin = json_object_get_double(xa);
		if (!(v->absence_margin >= 1 && v->absence_margin <= 1e6))
			return ap_error_set(e, EINVAL, "\"absence_margin\" is out of range "
					    "(1 or more)");
	}
	if (json_object_object_get_ex(o, "ruled_out_up_to", NULL) &&
	    (rc = ap_json_get_u64(o, "ruled_out_up_to", UINT64_MAX, true, &v->ruled_out_up_to, e)))
		return rc;
	rc = ap_vstore_check_geometry(v->logical_sector, v->physical_sector,
				      v->lowest_aligned_lba, e);
	if (rc)
		return rc;
	v->extra = extras_of(o, known_verdict);
	if ((rc = levels_from_json(o, v, e)))
		return rc;
	xa = get_array(o, "examples", e);
	if (!xa)
		return -EINVAL;
	n = json_object_array_length(xa);
	v->examples = ap_xcalloc(n ? n : 1, sizeof(*v->examples));
	for (i = 0; i < n; i++) {
		struct ap_error le = { 0 };

		rc = example_from_json(json_object_array_get_idx(xa, i), &v->examples[i], &le);
		v->nexamples = i + 1;
		if (rc)
			return ap_error_set(e, EINVAL, "examples[%zu]: %s", i, le.msg);
	}
	return 0;
}

static int model_from_json(struct json_object *o, struct ap_vstore_model *m,
			   struct ap_error *e)
{
	struct json_object *va;
	size_t i, k, n;
	int rc;

	memset(m, 0, sizeof(*m));
	if (!json_object_is_type(o, json_type_object))
		return ap_error_set(e, EINVAL, "not an object");
	if ((rc = ap_json_get_string(o, "vendor", false, &m->vendor, e)) ||
	    (rc = ap_json_get_string(o, "model", true, &m->model, e)) ||
	    (rc = ap_json_get_string(o, "revision", false, &m->revision, e)))
		return rc;
	if (!*m->model)
		return ap_error_set(e, EINVAL, "\"model\" is empty");
	m->extra = extras_of(o, known_model);
	va = get_array(o, "verdicts", e);
	if (!va)
		return -EINVAL;
	n = json_object_array_length(va);
	if (!n)
		return ap_error_set(e, EINVAL, "\"verdicts\" is empty");
	m->verdicts = ap_xcalloc(n, sizeof(*m->verdicts));
	for (i = 0; i < n; i++) {
		struct ap_error le = { 0 };

		rc = verdict_from_json(json_object_array_get_idx(va, i), &m->verdicts[i], &le);
		m->nverdicts = i + 1;
		if (rc)
			return ap_error_set(e, EINVAL, "verdicts[%zu]: %s", i, le.msg);
		for (k = 0; k < i; k++)
			if (m->verdicts[k].logical_sector == m->verdicts[i].logical_sector &&
			    m->verdicts[k].physical_sector == m->verdicts[i].physical_sector &&
			    m->verdicts[k].lowest_aligned_lba == m->verdicts[i].lowest_aligned_lba &&
			    ap_levels_same_above(&m->verdicts[k].levels, &m->verdicts[i].levels))
				return ap_error_set(e, EINVAL, "verdicts[%zu] repeats verdicts[%zu]",
						    i, k);
	}
	return 0;
}

int ap_vstore_from_json(struct json_object *o, struct ap_vstore *s, struct ap_error *e)
{
	struct ap_vstore_index ix;
	struct json_object *ma;
	struct ap_error le = { 0 };
	uint64_t version = 0;
	char *format = NULL;
	size_t i, n;
	int rc;

	ap_vstore_init(s);
	if (!o || !json_object_is_type(o, json_type_object))
		return ap_error_set(e, EINVAL, "not a verdict store (not a JSON object)");
	rc = ap_json_get_string(o, "format", true, &format, &le);
	if (!rc && strcmp(format, FORMAT_NAME) != 0)
		rc = ap_error_set(&le, EINVAL, "\"format\" is '%s', not '%s'", format, FORMAT_NAME);
	free(format);
	if (!rc)
		rc = ap_json_get_u64(o, "version", UINT32_MAX, true, &version, &le);
	if (!rc && version > FORMAT_VERSION)
		/* a rolling upgrade: a newer alignprobe wrote it (-EPROTO, not corrupt) */
		return ap_error_set(e, EPROTO, "version %llu, written by a newer alignprobe "
				    "(this one reads version %d)", (unsigned long long)version,
				    FORMAT_VERSION);
	if (!rc && version != FORMAT_VERSION)
		rc = ap_error_set(&le, EINVAL, "version %llu (this alignprobe reads version %d)",
				  (unsigned long long)version, FORMAT_VERSION);
	if (rc)
		return ap_error_set(e, EINVAL, "not a verdict store: %s", le.msg);
	ma = get_array(o, "models", &le);
	if (!ma)
		return ap_error_set(e, EINVAL, "not a verdict store: %s", le.msg);
	n = json_object_array_length(ma);
	s->models = ap_xcalloc(n ? n : 1, sizeof(*s->models));
	s->extra = extras_of(o, known_doc);
	ap_vstore_index_init(&ix, s, 0);
	for (i = 0; i < n; i++) {
		struct ap_vstore_model *m = &s->models[i];
		ssize_t twin;

		rc = model_from_json(json_object_array_get_idx(ma, i), m, &le);
		m->index = i;
		s->nmodels = i + 1;
		twin = rc ? -1 : ap_vstore_index_find(&ix, s, m->vendor, m->model, m->revision);
		if (twin >= 0)
			rc = ap_error_set(&le, EINVAL, "the model is listed twice");
		if (rc) {
			ap_vstore_index_free(&ix);
			ap_vstore_free(s);
			return ap_error_set(e, EINVAL, "models[%zu]: %s", i, le.msg);
		}
		ap_vstore_index_add(&ix, s, i);
	}
	ap_vstore_index_free(&ix);
	if (ap_vstore_smr_from_json(o, s, &le) != 0) {
		ap_vstore_free(s);
		return ap_error_set(e, EINVAL, "not a verdict store: %s", le.msg);
	}
	return 0;
}
