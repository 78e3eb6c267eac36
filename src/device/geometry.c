// SPDX-License-Identifier: GPL-2.0-or-later
/* Geometries and the alignment predicate; their JSON. */
#include "device/geometry.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <json-c/json.h>

#include "lib/json.h"

bool ap_geometry_optio_is_sane(uint64_t optimal_io, unsigned logical, uint64_t physical)
{
	if (!optimal_io || optimal_io == AP_OPTIO_BOGUS || !logical)
		return false;
	if (optimal_io % logical)
		return false;
	if (physical && (optimal_io < physical || optimal_io % physical))
		return false;
	return optimal_io <= 1024 * AP_MIB;
}

const char *ap_geometry_source_name(enum ap_geom_source src)
{
	switch (src) {
	case AP_GEOM_REPORTED:
		return "reported";
	case AP_GEOM_DRIVE:
		return "drive";
	case AP_GEOM_PROBED:
		return "probed";
	case AP_GEOM_MANUAL:
		return "given";
	case AP_GEOM_MINIMUM:
		return "minimum_4k";
	case AP_GEOM_MODEL:
		return "model";
	case AP_GEOM_NONE:
		break;
	}
	return "none";
}

int ap_geometry_set(struct ap_geometry *g, enum ap_geom_source src, unsigned logical,
		    uint64_t physical, uint64_t lowest_aligned, struct ap_error *e)
{
	memset(g, 0, sizeof(*g));
	g->confidence = NAN;
	if (!logical || !ap_is_power_of_2(logical) || logical < 512)
		return ap_error_set(e, EINVAL, "logical sector size %u is not a power of two >= 512",
				    logical);
	if (physical < logical || physical % logical || !ap_is_power_of_2(physical))
		return ap_error_set(e, EINVAL,
				    "physical sector size %" PRIu64 " is not a power-of-two multiple "
				    "of the %u-byte logical sector", physical, logical);
	if (physical > 64 * AP_MIB)
		return ap_error_set(e, ERANGE, "physical sector size %" PRIu64 " is implausibly large",
				    physical);
	g->source = src;
	g->logical = logical;
	g->physical = physical;
	g->lowest_aligned = lowest_aligned % (physical / logical);
	g->reported_physical = 0;
	g->levels.n = 1;
	g->levels.l[0] = (struct ap_level){ .kind = AP_LEVEL_SECTOR, .unit = physical,
					    .lowest_aligned_lba = g->lowest_aligned,
					    .paid = AP_PAID_EVERY_WRITE };
	return 0;
}

int ap_geometry_add_level(struct ap_geometry *g, const struct ap_level *lv, struct ap_error *e)
{
	if (lv->kind == AP_LEVEL_SECTOR)
		return ap_error_set(e, EINVAL, "the physical sector is not an added level");
	if (!g->physical || lv->unit < g->physical || lv->unit % g->physical)
		return ap_error_set(e, EINVAL, "a %s of %" PRIu64 " bytes is not a multiple of the "
				    "%" PRIu64 "-byte physical sector", ap_level_kind_name(lv->kind),
				    lv->unit, g->physical);
	return ap_levels_add(&g->levels, g->logical, lv, true, e);
}

void ap_geometry_add_levels_above(struct ap_geometry *g, const struct ap_levels *ls)
{
	size_t i;

	for (i = 0; i < ls->n; i++)
		if (ls->l[i].kind != AP_LEVEL_SECTOR)
			ap_geometry_add_level(g, &ls->l[i], NULL);
}

bool ap_geometry_has_levels(const struct ap_geometry *g)
{
	return ap_levels_above_sector(&g->levels);
}

struct json_object *ap_geometry_to_json(const struct ap_geometry *g, const char *file)
{
	struct json_object *o;

	if (!g || !g->physical)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "source", json_object_new_string(ap_geometry_source_name(g->source)));
	if (file)
		json_object_object_add(o, "file", json_object_new_string(file));
	json_object_object_add(o, "logical_sector", json_object_new_int64(g->logical));
	json_object_object_add(o, "physical_sector", ap_json_u64(g->physical));
	json_object_object_add(o, "lowest_aligned_lba", ap_json_u64(g->lowest_aligned));
	if (g->source == AP_GEOM_MODEL)
		json_object_object_add(o, "sensitive", json_object_new_boolean(g->sensitive));
	/* "no effect": up to which unit; physical_sector is then the unit it stands for */
	if ((g->source == AP_GEOM_MODEL || g->source == AP_GEOM_PROBED) && g->ruled_out_up_to)
		json_object_object_add(o, "ruled_out_up_to", ap_json_u64(g->ruled_out_up_to));
	if (g->source == AP_GEOM_PROBED) {
		json_object_object_add(o, "sensitive", json_object_new_boolean(g->sensitive));
		json_object_object_add(o, "confidence", isfinite(g->confidence)
				       ? json_object_new_double(g->confidence) : NULL);
		json_object_object_add(o, "reported_physical_sector",
				       json_object_new_int64(g->reported_physical));
	}
	if (ap_geometry_has_levels(g))
		json_object_object_add(o, "levels", ap_levels_to_json(&g->levels));
	/* newer: only where it says something */
	if (g->first_writes_unplaced)
		json_object_object_add(o, "first_writes_unplaced", json_object_new_boolean(true));
	return o;
}
