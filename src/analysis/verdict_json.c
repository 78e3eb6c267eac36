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

static const char *const level_kinds[] = {
	[AP_LEVEL_SECTOR] = "sector",
	[AP_LEVEL_CHUNK] = "chunk",
	[AP_LEVEL_STRIPE] = "stripe",
	[AP_LEVEL_ALLOCATION] = "allocation",
};

/* "levels" and "ruled_out" (issue 33): added to the verdict when stated. */
static void levels_to_json(struct json_object *o, const struct ap_verdict *v)
{
	struct json_object *a, *r;
	size_t i;

	if (v->nlevels) {
		a = json_object_new_array();
		for (i = 0; i < v->nlevels; i++) {
			const struct ap_level *l = &v->levels[i];
			struct json_object *lo = json_object_new_object();

			json_object_object_add(lo, "kind", json_object_new_string(
					       level_kinds[l->kind]));
			json_object_object_add(lo, "unit", json_object_new_int64((int64_t)l->unit));
			json_object_object_add(lo, "lowest_aligned_lba",
					       json_object_new_int64((int64_t)l->lowest_aligned_lba));
			json_object_object_add(lo, "paid", json_object_new_string(
					       l->first_write ? "first_write" : "every_write"));
			json_object_object_add(lo, "ratio", json_object_new_double(
					       isfinite(l->ratio) ? l->ratio : 0));
			json_object_array_add(a, lo);
		}
		json_object_object_add(o, "levels", a);
	}
	if (v->ruled_up_to) {
		r = json_object_new_object();
		json_object_object_add(r, "up_to", json_object_new_int64((int64_t)v->ruled_up_to));
		json_object_object_add(r, "first_writes",
				       json_object_new_boolean(v->ruled_first_writes));
		json_object_object_add(r, "rewrites", json_object_new_boolean(v->ruled_rewrites));
		json_object_object_add(o, "ruled_out", r);
	}
}

static int get_double_opt(struct json_object *o, const char *key, double lo, double hi,
			  double dflt, double *val);
static int get_bool_opt(struct json_object *o, const char *key, bool *val);

/* The optional "levels" and "ruled_out" back: absent leaves none. */
static int levels_from_json(struct json_object *o, struct ap_verdict *v)
{
	struct json_object *a, *x, *y;
	size_t i, k, n;

	if (json_object_object_get_ex(o, "levels", &a) && a) {
		if (!json_object_is_type(a, json_type_array))
			return -EINVAL;
		n = json_object_array_length(a);
		if (n > AP_VERDICT_MAX_LEVELS)
			return -EINVAL;
		for (i = 0; i < n; i++) {
			struct json_object *e = json_object_array_get_idx(a, i);
			struct ap_level *l = &v->levels[i];
			const char *s;

			if (!json_object_is_type(e, json_type_object) ||
			    !json_object_object_get_ex(e, "kind", &x) ||
			    !json_object_is_type(x, json_type_string) ||
			    !json_object_object_get_ex(e, "unit", &y) ||
			    !json_object_is_type(y, json_type_int) || json_object_get_int64(y) <= 0)
				return -EINVAL;
			s = json_object_get_string(x);
			for (k = 0; k < sizeof(level_kinds) / sizeof(*level_kinds); k++)
				if (!strcmp(s, level_kinds[k]))
					break;
			if (k == sizeof(level_kinds) / sizeof(*level_kinds))
				return -EINVAL;
			l->kind = (enum ap_level_kind)k;
			l->unit = (uint64_t)json_object_get_int64(y);
			if (json_object_object_get_ex(e, "lowest_aligned_lba", &x) && x) {
				if (!json_object_is_type(x, json_type_int) ||
				    json_object_get_int64(x) < 0)
					return -EINVAL;
				l->lowest_aligned_lba = (uint64_t)json_object_get_int64(x);
			}
			if (json_object_object_get_ex(e, "paid", &x) && x) {
				if (!json_object_is_type(x, json_type_string))
					return -EINVAL;
				l->first_write = !strcmp(json_object_get_string(x), "first_write");
			}
			if (get_double_opt(e, "ratio", 0, AP_SLOWDOWN_MAX, 0, &l->ratio))
				return -EINVAL;
		}
		v->nlevels = n;
	}
	if (json_object_object_get_ex(o, "ruled_out", &x) && x) {
		if (!json_object_is_type(x, json_type_object) ||
		    !json_object_object_get_ex(x, "up_to", &y) ||
		    !json_object_is_type(y, json_type_int) || json_object_get_int64(y) <= 0 ||
		    get_bool_opt(x, "first_writes", &v->ruled_first_writes) ||
		    get_bool_opt(x, "rewrites", &v->ruled_rewrites))
			return -EINVAL;
		v->ruled_up_to = (uint64_t)json_object_get_int64(y);
	}
	return 0;
}

struct json_object *ap_verdict_to_json(const struct ap_verdict *v)
{
	struct json_object *o = json_object_new_object(), *a;
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
	levels_to_json(o, v);
	if (v->note)
		json_object_object_add(o, "note", json_object_new_string(v->note));
	return o;
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
	    (rc = get_bool_opt(o, "tentative", &v->tentative)))
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
	v->fit = v->sensitive && v->resolved ? 1 : 0;
	v->drift = 1;
	v->p_structure = v->p_value;
	return 0;
fail:
	ap_verdict_free(v);
	return rc;
}
