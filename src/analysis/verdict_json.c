// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The verdict as the stable JSON "verdict" object (see verdict_json.h), and
 * back. Kept apart from the analysis so that the analysis stays pure
 * arithmetic without json-c.
 */
#include "analysis/verdict_json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "lib/util.h"

struct json_object *ap_verdict_to_json(const struct ap_verdict *v)
{
	struct json_object *o = json_object_new_object(), *a;
	struct ap_ruled_out ro;
	struct ap_levels lv;
	const char *conf_of;
	size_t i;

	json_object_object_add(o, "sensitive", json_object_new_boolean(v->sensitive));
	json_object_object_add(o, "resolved", json_object_new_boolean(v->resolved));
	json_object_object_add(o, "logical_sector", json_object_new_int64(v->logical_sector));
	json_object_object_add(o, "reported_physical_sector",
			       json_object_new_int64(v->reported_physical));
	json_object_object_add(o, "physical_sector", v->resolved ?
			       json_object_new_int64(v->physical_sector) : NULL);
	json_object_object_add(o, "period", v->resolved ?
			       json_object_new_int64(v->period) : NULL);
	json_object_object_add(o, "lowest_aligned_lba", v->resolved ?
			       json_object_new_int64(v->lowest_aligned_lba) : NULL);
	a = json_object_new_array();
	for (i = 0; i < v->nfast; i++)
		json_object_array_add(a, json_object_new_int64((int64_t)v->fast_starts[i]));
	json_object_object_add(o, "fast_starts", a);
	json_object_object_add(o, "slowdown", json_object_new_double(isfinite(v->slowdown) ?
								     v->slowdown : 0));
	json_object_object_add(o, "p_value", json_object_new_double(isfinite(v->p_value) ?
								    v->p_value : 1));
	json_object_object_add(o, "confidence", json_object_new_double(ap_clamp01(v->confidence)));
	conf_of = ap_verdict_confidence_of(v);
	json_object_object_add(o, "confidence_of", conf_of ? json_object_new_string(conf_of) : NULL);
	json_object_object_add(o, "equivalence_p_value", isfinite(v->equivalence_p) ?
			       json_object_new_double(v->equivalence_p) : NULL);
	json_object_object_add(o, "min_slowdown", v->min_slowdown >= 1 && isfinite(v->min_slowdown) ?
			       json_object_new_double(v->min_slowdown) : NULL);
	json_object_object_add(o, "absence_margin", v->absence_margin >= 1 &&
			       isfinite(v->absence_margin) ?
			       json_object_new_double(v->absence_margin) : NULL);
	json_object_object_add(o, "small_effect", json_object_new_boolean(v->small));
	json_object_object_add(o, "starts_insufficient",
			       json_object_new_boolean(v->starts_insufficient));
	json_object_object_add(o, "ruled_out_up_to", v->resolved && !v->sensitive &&
			       v->ruled_out_up_to ?
			       json_object_new_int64((int64_t)v->ruled_out_up_to) : NULL);
	json_object_object_add(o, "tentative", json_object_new_boolean(v->tentative));
	json_object_object_add(o, "first_writes_unplaced",
			       json_object_new_boolean(v->sensitive && v->first_writes_unplaced));
	ap_verdict_levels(v, &lv);
	json_object_object_add(o, "levels", ap_levels_to_json(&lv));
	ap_verdict_ruled_out(v, &ro);
	json_object_object_add(o, "ruled_out", ap_ruled_out_to_json(&ro));
	if (v->note)
		json_object_object_add(o, "note", json_object_new_string(v->note));
	return o;
}

void ap_verdict_levels(const struct ap_verdict *v, struct ap_levels *out)
{
	struct ap_level sector = { .kind = AP_LEVEL_SECTOR, .paid = AP_PAID_EVERY_WRITE };
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!v->logical_sector)
		return;
	/* a unit found apart from the sector (first writes) stands without it */
	if (!v->resolved || !v->physical_sector)
		goto others;
	sector.unit = v->physical_sector;
	sector.lowest_aligned_lba = v->lowest_aligned_lba;
	sector.ratio = v->sensitive && isfinite(v->slowdown) && v->slowdown > 0 ? v->slowdown : 0;
	for (i = 0; i < v->levels.n; i++)
		if (v->levels.l[i].kind == AP_LEVEL_SECTOR && v->levels.l[i].unit == sector.unit)
			sector.ratio = v->levels.l[i].ratio;
	ap_levels_add(out, v->logical_sector, &sector, true, NULL);
others:
	for (i = 0; i < v->levels.n; i++)
		if (v->levels.l[i].kind != AP_LEVEL_SECTOR)
			ap_levels_add(out, v->logical_sector, &v->levels.l[i], true, NULL);
}

void ap_verdict_ruled_out(const struct ap_verdict *v, struct ap_ruled_out *r)
{
	memset(r, 0, sizeof(*r));
	if (v->sensitive || !v->resolved)
		return;
	if (v->ruled_out.up_to) {
		*r = v->ruled_out;
	} else if (v->ruled_out_up_to) {
		r->up_to = v->ruled_out_up_to;
		r->rewrites = true;
	}
}

/* "levels" and "ruled_out", optional: level 0 must be the physical sector. */
static int levels_from_json(struct json_object *o, struct ap_verdict *v)
{
	struct json_object *x;
	size_t i;

	if (json_object_object_get_ex(o, "levels", &x) && x) {
		if (ap_levels_from_json(x, v->logical_sector, &v->levels, NULL))
			return -EINVAL;
		for (i = 0; i < v->levels.n; i++)
			if (v->levels.l[i].kind == AP_LEVEL_SECTOR &&
			    (!v->resolved || i != 0 || v->levels.l[i].unit != v->physical_sector ||
			     v->levels.l[i].lowest_aligned_lba != v->lowest_aligned_lba))
				return -EINVAL;	/* level 0 mirrors the physical sector */
	}
	if (json_object_object_get_ex(o, "ruled_out", &x) && x) {
		if (ap_ruled_out_from_json(x, &v->ruled_out, NULL))
			return -EINVAL;
	}
	return 0;
}

static int get_field(struct json_object *o, const char *key, enum json_type want,
		     bool nullable, struct json_object **out)
{
	struct json_object *x;

	if (!json_object_object_get_ex(o, key, &x))
		return -EINVAL;
	if (!x) {
		*out = NULL;
		return nullable ? 0 : -EINVAL;
	}
	if (want == json_type_double) {
		if (!json_object_is_type(x, json_type_double) &&
		    !json_object_is_type(x, json_type_int))
			return -EINVAL;
	} else if (!json_object_is_type(x, want)) {
		return -EINVAL;
	}
	*out = x;
	return 0;
}

static int get_uint(struct json_object *o, const char *key, bool nullable, unsigned *val,
		    bool *isnull)
{
	struct json_object *x;
	int64_t i;
	int rc = get_field(o, key, json_type_int, nullable, &x);

	if (rc)
		return rc;
	if (isnull)
		*isnull = !x;
	if (!x) {
		*val = 0;
		return 0;
	}
	i = json_object_get_int64(x);
	if (i < 0 || i > UINT32_MAX)
		return -ERANGE;
	*val = (unsigned)i;
	return 0;
}

/* An optional number in [lo, hi]: absent or null gives @dflt. */
static int get_double_opt(struct json_object *o, const char *key, double lo, double hi,
			  double dflt, double *val)
{
	struct json_object *x;

	*val = dflt;
	if (!json_object_object_get_ex(o, key, &x) || !x)
		return 0;
	if (!json_object_is_type(x, json_type_double) && !json_object_is_type(x, json_type_int))
		return -EINVAL;
	*val = json_object_get_double(x);
	return *val >= lo && *val <= hi ? 0 : -EINVAL;
}

/* An optional boolean: absent or null leaves false. */
static int get_bool_opt(struct json_object *o, const char *key, bool *val)
{
	struct json_object *x;

	*val = false;
	if (!json_object_object_get_ex(o, key, &x) || !x)
		return 0;
	if (!json_object_is_type(x, json_type_boolean))
		return -EINVAL;
	*val = json_object_get_boolean(x);
	return 0;
}

int ap_verdict_from_json(struct json_object *o, struct ap_verdict *v)
{
	struct json_object *x, *a;
	bool isnull;
	size_t i, n;
	int rc;

	if (!v)
		return -EINVAL;
	memset(v, 0, sizeof(*v));
	if (!o || !json_object_is_type(o, json_type_object))
		return -EINVAL;

	if ((rc = get_field(o, "sensitive", json_type_boolean, false, &x)))
		goto fail;
	v->sensitive = json_object_get_boolean(x);
	if ((rc = get_field(o, "resolved", json_type_boolean, false, &x)))
		goto fail;
	v->resolved = json_object_get_boolean(x);
	if ((rc = get_uint(o, "logical_sector", false, &v->logical_sector, NULL)))
		goto fail;
	if ((rc = get_uint(o, "reported_physical_sector", false, &v->reported_physical, NULL)))
		goto fail;
	if ((rc = get_uint(o, "physical_sector", true, &v->physical_sector, &isnull)))
		goto fail;
	if (isnull == v->resolved) {
		rc = -EINVAL;	/* null exactly when unresolved */
		goto fail;
	}
	if ((rc = get_uint(o, "lowest_aligned_lba", true, &v->lowest_aligned_lba, &isnull)))
		goto fail;
	if (!isnull && !v->resolved) {
		rc = -EINVAL;	/* an alignment without a physical sector */
		goto fail;
	}
	if (json_object_object_get_ex(o, "period", &x)) {
		if ((rc = get_uint(o, "period", true, &v->period, &isnull)))
			goto fail;
		if (!isnull && !v->resolved) {
			rc = -EINVAL;
			goto fail;
		}
	}
	if (v->resolved && !v->period && v->logical_sector)
		v->period = v->physical_sector / v->logical_sector;
	if (v->resolved && (!v->logical_sector || !v->physical_sector ||
			    v->physical_sector % v->logical_sector ||
			    !ap_is_power_of_2(v->physical_sector) ||
			    v->period != v->physical_sector / v->logical_sector ||
			    (v->period && v->lowest_aligned_lba >= v->period))) {
		rc = -EINVAL;
		goto fail;
	}
	if ((rc = get_field(o, "fast_starts", json_type_array, false, &a)))
		goto fail;
	n = json_object_array_length(a);
	if (n) {
		v->fast_starts = ap_xmalloc(n * sizeof(*v->fast_starts));
		for (i = 0; i < n; i++) {
			struct json_object *e = json_object_array_get_idx(a, i);

			if (!json_object_is_type(e, json_type_int) ||
			    json_object_get_int64(e) < 0) {
				rc = -EINVAL;
				goto fail;
			}
			v->fast_starts[i] = (uint64_t)json_object_get_int64(e);
		}
		v->nfast = n;
	}
	if ((rc = get_field(o, "slowdown", json_type_double, false, &x)))
		goto fail;
	v->slowdown = json_object_get_double(x);
	if ((rc = get_field(o, "p_value", json_type_double, false, &x)))
		goto fail;
	v->p_value = json_object_get_double(x);
	if ((rc = get_field(o, "confidence", json_type_double, false, &x)))
		goto fail;
	v->confidence = json_object_get_double(x);
	if (!(v->p_value >= 0 && v->p_value <= 1) || !(v->confidence >= 0 && v->confidence <= 1) ||
	    !(v->slowdown >= 0)) {
		rc = -EINVAL;
		goto fail;
	}
	if (json_object_object_get_ex(o, "note", &x) && x) {
		if (!json_object_is_type(x, json_type_string)) {
			rc = -EINVAL;
			goto fail;
		}
		v->note_buf = ap_xstrdup(json_object_get_string(x));
		v->note = v->note_buf;
	}
	/* newer keys, optional */
	if ((rc = get_double_opt(o, "equivalence_p_value", 0, 1, NAN, &v->equivalence_p)) ||
	    (rc = get_double_opt(o, "min_slowdown", 1, AP_SLOWDOWN_MAX, 0, &v->min_slowdown)) ||
	    (rc = get_double_opt(o, "absence_margin", 1, AP_SLOWDOWN_MAX, v->min_slowdown,
				 &v->absence_margin)) ||
	    (rc = get_bool_opt(o, "small_effect", &v->small)) ||
	    (rc = get_bool_opt(o, "starts_insufficient", &v->starts_insufficient)) ||
	    (rc = get_bool_opt(o, "tentative", &v->tentative)) ||
	    (rc = get_bool_opt(o, "first_writes_unplaced", &v->first_writes_unplaced)))
		goto fail;
	if (json_object_object_get_ex(o, "ruled_out_up_to", &x) && x) {
		if (!json_object_is_type(x, json_type_int) || json_object_get_int64(x) <= 0) {
			rc = -EINVAL;
			goto fail;
		}
		v->ruled_out_up_to = (uint64_t)json_object_get_int64(x);
	}
	if ((rc = levels_from_json(o, v)))
		goto fail;
	v->first_writes_unplaced = v->first_writes_unplaced && v->sensitive;
	v->fit = v->sensitive && v->resolved ? 1 : 0;
	v->drift = 1;
	v->p_structure = v->p_value;
	return 0;
fail:
	ap_verdict_free(v);
	return rc;
}
