// SPDX-License-Identifier: GPL-2.0-or-later
/* The levels of a geometry (see levels.h). */
#include "lib/levels.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "lib/align.h"
#include "lib/json.h"

static const char *const kind_names[] = {
	[AP_LEVEL_SECTOR] = "sector",
	[AP_LEVEL_CHUNK] = "chunk",
	[AP_LEVEL_STRIPE] = "stripe",
	[AP_LEVEL_ALLOCATION] = "allocation",
};

static const char *const paid_names[] = {
	[AP_PAID_EVERY_WRITE] = "every_write",
	[AP_PAID_FIRST_WRITE] = "first_write",
};

/* The index of @s in @names (@n of them), or -EINVAL. */
static int name_index(const char *const *names, size_t n, const char *s)
{
	size_t i;

	for (i = 0; s && i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return (int)i;
	return -EINVAL;
}

const char *ap_level_kind_name(enum ap_level_kind k)
{
	return (size_t)k < AP_ARRAY_SIZE(kind_names) ? kind_names[k] : "unknown";
}

int ap_level_kind_parse(const char *s, enum ap_level_kind *k)
{
	int i = name_index(kind_names, AP_ARRAY_SIZE(kind_names), s);

	if (i < 0)
		return i;
	*k = (enum ap_level_kind)i;
	return 0;
}

const char *ap_level_paid_name(enum ap_level_paid p)
{
	return (size_t)p < AP_ARRAY_SIZE(paid_names) ? paid_names[p] : "unknown";
}

int ap_level_paid_parse(const char *s, enum ap_level_paid *p)
{
	int i = name_index(paid_names, AP_ARRAY_SIZE(paid_names), s);

	if (i < 0)
		return i;
	*p = (enum ap_level_paid)i;
	return 0;
}

int ap_levels_add(struct ap_levels *ls, unsigned logical, const struct ap_level *lv,
		  bool normalise, struct ap_error *e)
{
	struct ap_level x = *lv;
	size_t i, at;

	if (!logical || !x.unit || x.unit % logical || x.unit > AP_LEVEL_UNIT_MAX)
		return ap_error_set(e, EINVAL, "%s unit %" PRIu64 " is not a multiple of the "
				    "%u-byte logical sector up to 1 GiB", ap_level_kind_name(x.kind),
				    x.unit, logical);
	if (normalise)
		x.lowest_aligned_lba %= x.unit / logical;
	if (x.lowest_aligned_lba >= x.unit / logical)
		return ap_error_set(e, EINVAL, "%s lowest aligned LBA %" PRIu64 " is outside its "
				    "%" PRIu64 "-byte unit", ap_level_kind_name(x.kind),
				    x.lowest_aligned_lba, x.unit);
	if (!(x.ratio >= 0) || !isfinite(x.ratio))
		x.ratio = 0;
	for (i = 0; i < ls->n; i++)
		if (ls->l[i].kind == x.kind && ls->l[i].unit == x.unit) {
			ls->l[i] = x;
			return 0;
		}
	if (ls->n >= AP_LEVELS_MAX)
		return ap_error_set(e, ENOSPC, "more than %d levels", AP_LEVELS_MAX);
	for (at = 0; at < ls->n && ls->l[at].unit <= x.unit; at++)
		;
	memmove(&ls->l[at + 1], &ls->l[at], (ls->n - at) * sizeof(ls->l[0]));
	ls->l[at] = x;
	ls->n++;
	return 0;
}

const struct ap_level *ap_levels_find(const struct ap_levels *ls, enum ap_level_kind k)
{
	const struct ap_level *best = NULL;
	size_t i;

	for (i = 0; i < ls->n; i++)
		if (ls->l[i].kind == k && (!best || ls->l[i].unit > best->unit))
			best = &ls->l[i];
	return best;
}

/* The next level of @ls from @i on that is not the sector: its index, or ls->n. */
static size_t next_above(const struct ap_levels *ls, size_t i)
{
	while (i < ls->n && ls->l[i].kind == AP_LEVEL_SECTOR)
		i++;
	return i;
}

bool ap_levels_same_above(const struct ap_levels *a, const struct ap_levels *b)
{
	size_t i = next_above(a, 0), k = next_above(b, 0);

	for (; i < a->n && k < b->n; i = next_above(a, i + 1), k = next_above(b, k + 1)) {
		const struct ap_level *x = &a->l[i], *y = &b->l[k];

		if (x->kind != y->kind || x->unit != y->unit ||
		    x->lowest_aligned_lba != y->lowest_aligned_lba || x->paid != y->paid)
			return false;
	}
	return i == a->n && k == b->n;
}

int ap_levels_misaligned(const struct ap_levels *ls, unsigned logical, uint64_t lba)
{
	size_t i;

	for (i = 0; i < ls->n; i++)
		if (!ap_align_is_aligned(lba, logical, ls->l[i].unit, ls->l[i].lowest_aligned_lba))
			return (int)i;
	return -1;
}

uint64_t ap_levels_lcm(const struct ap_levels *ls, uint64_t grain)
{
	uint64_t l = grain ? grain : 1;
	size_t i;

	for (i = 0; i < ls->n; i++) {
		uint64_t u = ls->l[i].unit, g = ap_gcd_u64(l, u);

		if (!u)
			continue;
		if (l / g > AP_LEVEL_UNIT_MAX * 64 / u)
			return 0;
		l = l / g * u;
	}
	return l;
}

uint64_t ap_levels_next(const struct ap_levels *ls, unsigned logical, uint64_t grain,
			uint64_t lba)
{
	const struct ap_level *big = NULL;
	uint64_t s, lcm = ap_levels_lcm(ls, grain), steps, i;
	size_t k;

	if (!logical || !lcm)
		return UINT64_MAX;
	for (k = 0; k < ls->n; k++)
		if (!big || ls->l[k].unit > big->unit)
			big = &ls->l[k];
	if (grain && (!big || grain >= big->unit)) {
		s = ap_align_next(lba, logical, grain, 0);
		steps = grain / logical;
	} else if (big) {
		s = ap_align_next(lba, logical, big->unit, big->lowest_aligned_lba);
		steps = big->unit / logical;
	} else {
		return lba;
	}
	/* within one common multiple every combination of phases comes round */
	for (i = 0; s != UINT64_MAX && i <= lcm / (steps * logical); i++) {
		if (s >= (1ULL << 40))
			break;
		if (ap_levels_misaligned(ls, logical, s) < 0 &&
		    (!grain || ap_align_is_aligned(s, logical, grain, 0)))
			return s;
		s += steps;
	}
	return UINT64_MAX;
}

bool ap_levels_above_sector(const struct ap_levels *ls)
{
	return next_above(ls, 0) < ls->n;
}

void ap_levels_brief(const struct ap_levels *ls, char *buf, size_t sz)
{
	size_t i, n = 0;

	if (!sz)
		return;
	buf[0] = '\0';
	for (i = next_above(ls, 0); i < ls->n && n < sz; i = next_above(ls, i + 1)) {
		const struct ap_level *l = &ls->l[i];

		snprintf(buf + n, sz - n, "%s%s %" PRIu64 "@%" PRIu64 "%s", n ? ", " : "",
			 ap_level_kind_name(l->kind), l->unit, l->lowest_aligned_lba,
			 l->paid == AP_PAID_FIRST_WRITE ? " first-write" : "");
		n += strlen(buf + n);
	}
}

void ap_levels_words(const struct ap_levels *ls, const char *first, char *buf, size_t sz)
{
	size_t i, n = strlen(buf);
	const char *sep = first;

	for (i = next_above(ls, 0); i < ls->n && n < sz; i = next_above(ls, i + 1), sep = " and ") {
		const struct ap_level *l = &ls->l[i];

		snprintf(buf + n, sz - n, "%sa %" PRIu64 "-byte %s%s (from LBA %" PRIu64 ")",
			 sep, l->unit,
			 l->kind == AP_LEVEL_ALLOCATION ? "allocation unit" :
			 ap_level_kind_name(l->kind), l->paid == AP_PAID_FIRST_WRITE ?
			 ", paid on first writes" : "", l->lowest_aligned_lba);
		n += strlen(buf + n);
	}
}

uint64_t ap_levels_start(const struct ap_levels *ls, unsigned logical, uint64_t lba)
{
	uint64_t s;

	if (!ap_levels_above_sector(ls))
		return ap_levels_next(ls, logical, 0, lba);
	s = ap_levels_next(ls, logical, 1024 * 1024, lba);
	return s != UINT64_MAX ? s : ap_levels_next(ls, logical, 0, lba);
}

struct json_object *ap_levels_to_json(const struct ap_levels *ls)
{
	struct json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; i < ls->n; i++) {
		const struct ap_level *l = &ls->l[i];
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "kind", json_object_new_string(ap_level_kind_name(l->kind)));
		json_object_object_add(o, "unit", ap_json_u64(l->unit));
		json_object_object_add(o, "lowest_aligned_lba", ap_json_u64(l->lowest_aligned_lba));
		json_object_object_add(o, "paid", json_object_new_string(ap_level_paid_name(l->paid)));
		json_object_object_add(o, "ratio", l->ratio > 0 ? json_object_new_double(l->ratio)
							      : NULL);
		json_object_array_add(a, o);
	}
	return a;
}

struct json_object *ap_ruled_out_to_json(const struct ap_ruled_out *r)
{
	struct json_object *o;

	if (!r->up_to)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "up_to", ap_json_u64(r->up_to));
	json_object_object_add(o, "first_writes", json_object_new_boolean(r->first_writes));
	json_object_object_add(o, "rewrites", json_object_new_boolean(r->rewrites));
	return o;
}

static int level_from_json(struct json_object *o, unsigned logical, struct ap_level *l,
			   struct ap_error *e)
{
	struct json_object *x;
	char *kind = NULL, *paid = NULL;
	int rc;

	memset(l, 0, sizeof(*l));
	if (!json_object_is_type(o, json_type_object))
		return ap_error_set(e, EINVAL, "not an object");
	rc = ap_json_get_string(o, "kind", true, &kind, e);
	if (!rc && ap_level_kind_parse(kind, &l->kind))
		rc = ap_error_set(e, EINVAL, "\"kind\" '%s' is none of sector, chunk, stripe, "
				  "allocation", kind);
	if (!rc)
		rc = ap_json_get_string(o, "paid", true, &paid, e);
	if (!rc && ap_level_paid_parse(paid, &l->paid))
		rc = ap_error_set(e, EINVAL, "\"paid\" '%s' is neither every_write nor first_write",
				  paid);
	free(kind);
	free(paid);
	if (rc)
		return rc;
	if ((rc = ap_json_get_u64(o, "unit", AP_LEVEL_UNIT_MAX, true, &l->unit, e)) ||
	    (rc = ap_json_get_u64(o, "lowest_aligned_lba", AP_LEVEL_UNIT_MAX, true,
				  &l->lowest_aligned_lba, e)))
		return rc;
	if (logical && (!l->unit || l->unit % logical))
		return ap_error_set(e, EINVAL, "\"unit\" %" PRIu64 " is not a multiple of the "
				    "%u-byte logical sector", l->unit, logical);
	if (logical && l->lowest_aligned_lba >= l->unit / logical)
		return ap_error_set(e, EINVAL, "\"lowest_aligned_lba\" %" PRIu64 " is outside "
				    "the unit", l->lowest_aligned_lba);
	if (json_object_object_get_ex(o, "ratio", &x) && x) {
		if (!json_object_is_type(x, json_type_double) && !json_object_is_type(x, json_type_int))
			return ap_error_set(e, EINVAL, "\"ratio\" is not a number");
		l->ratio = json_object_get_double(x);
		if (!(l->ratio >= 0 && l->ratio <= 1e6))
			return ap_error_set(e, EINVAL, "\"ratio\" is out of range");
	}
	return 0;
}

int ap_levels_from_json(struct json_object *a, unsigned logical, struct ap_levels *ls,
			struct ap_error *e)
{
	size_t i, n;

	memset(ls, 0, sizeof(*ls));
	if (!json_object_is_type(a, json_type_array))
		return ap_error_set(e, EINVAL, "\"levels\" is not an array");
	n = json_object_array_length(a);
	if (n > AP_LEVELS_MAX)
		return ap_error_set(e, EINVAL, "\"levels\" has %zu levels (at most %d)", n,
				    AP_LEVELS_MAX);
	for (i = 0; i < n; i++) {
		struct ap_error le = { 0 };

		if (level_from_json(json_object_array_get_idx(a, i), logical, &ls->l[i], &le))
			return ap_error_set(e, EINVAL, "levels[%zu]: %s", i, le.msg);
		if (i && ls->l[i].unit < ls->l[i - 1].unit)
			return ap_error_set(e, EINVAL, "levels[%zu]: not ordered by unit", i);
		ls->n = i + 1;
	}
	return 0;
}

int ap_ruled_out_from_json(struct json_object *o, struct ap_ruled_out *r, struct ap_error *e)
{
	int rc;

	memset(r, 0, sizeof(*r));
	if (!o)
		return 0;
	if (!json_object_is_type(o, json_type_object))
		return ap_error_set(e, EINVAL, "\"ruled_out\" is not an object");
	if ((rc = ap_json_get_u64(o, "up_to", UINT64_MAX, true, &r->up_to, e)) ||
	    (rc = ap_json_get_bool(o, "first_writes", true, &r->first_writes, e)) ||
	    (rc = ap_json_get_bool(o, "rewrites", true, &r->rewrites, e)))
		return rc;
	if (!r->up_to)
		return ap_error_set(e, EINVAL, "\"ruled_out\": \"up_to\" is 0");
	return 0;
}
