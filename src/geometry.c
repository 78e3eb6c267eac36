// SPDX-License-Identifier: GPL-2.0-or-later
/* Geometries and the alignment predicate. */
#include "geometry.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "analysis.h"

#define GEOMETRY_FILE_MAX	(64 * AP_MIB)

typedef unsigned __int128 u128;

/* (lba * logical - lowest * logical) mod unit, in [0, unit) */
static uint64_t mod_distance(uint64_t lba, unsigned logical, uint64_t unit, uint64_t lowest)
{
	u128 pos = (u128)lba * logical, off = (u128)lowest * logical;
	uint64_t a = (uint64_t)(pos % unit), b = (uint64_t)(off % unit);

	return a >= b ? a - b : unit - (b - a);
}

bool ap_geometry_is_aligned(uint64_t lba, unsigned logical, uint64_t unit,
			    uint64_t lowest_aligned_lba)
{
	if (!unit || !logical)
		return false;
	return mod_distance(lba, logical, unit, lowest_aligned_lba) == 0;
}

uint64_t ap_geometry_misalignment(uint64_t lba, unsigned logical, uint64_t unit,
				  uint64_t lowest_aligned_lba)
{
	if (!unit || !logical)
		return 0;
	return mod_distance(lba, logical, unit, lowest_aligned_lba);
}

uint64_t ap_geometry_next_aligned(uint64_t lba, unsigned logical, uint64_t unit,
				  uint64_t lowest_aligned_lba)
{
	uint64_t d, step;

	if (!unit || !logical || unit % logical)
		return UINT64_MAX;
	d = mod_distance(lba, logical, unit, lowest_aligned_lba);
	if (d == 0)
		return lba;
	step = (unit - d) / logical;	/* d is a multiple of logical here */
	if (lba > UINT64_MAX - step)
		return UINT64_MAX;
	return lba + step;
}

bool ap_geometry_size_is_aligned(uint64_t nsectors, unsigned logical, uint64_t unit)
{
	if (!unit || !logical)
		return false;
	return ((u128)nsectors * logical) % unit == 0;
}

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
	return 0;
}

static const char *const verdict_keys[] = {
	"sensitive", "resolved", "logical_sector", "reported_physical_sector",
	"physical_sector", "lowest_aligned_lba", "fast_starts", "slowdown",
	"p_value", "confidence",
};

static struct json_object *find_verdict(struct json_object *doc, const char **where)
{
	struct json_object *v, *devs, *d0;

	if (!json_object_is_type(doc, json_type_object))
		return NULL;
	if (json_object_object_get_ex(doc, "verdict", &v)) {
		*where = "verdict";
		return v;
	}
	if (json_object_object_get_ex(doc, "devices", &devs) &&
	    json_object_is_type(devs, json_type_array) &&
	    json_object_array_length(devs) > 0 &&
	    (d0 = json_object_array_get_idx(devs, 0)) &&
	    json_object_is_type(d0, json_type_object) &&
	    json_object_object_get_ex(d0, "verdict", &v)) {
		*where = "devices[0].verdict";
		return v;
	}
	return NULL;
}

int ap_geometry_from_json(struct json_object *doc, struct ap_geometry *g, struct ap_error *e)
{
	struct json_object *vo;
	struct ap_verdict v;
	const char *where = "verdict";
	size_t i;
	int rc;

	memset(g, 0, sizeof(*g));
	vo = find_verdict(doc, &where);
	if (!vo)
		return ap_error_set(e, EINVAL, "no \"verdict\" object (nor devices[0].verdict): "
				    "not a probe or sweep result");
	if (!json_object_is_type(vo, json_type_object))
		return ap_error_set(e, EINVAL, "%s is not an object", where);
	for (i = 0; i < AP_ARRAY_SIZE(verdict_keys); i++)
		if (!json_object_object_get_ex(vo, verdict_keys[i], NULL))
			return ap_error_set(e, EINVAL, "%s: missing key \"%s\"", where,
					    verdict_keys[i]);
	rc = ap_verdict_from_json(vo, &v);
	if (rc)
		return ap_error_set(e, EINVAL, "%s: invalid verdict (wrong types, negative "
				    "numbers, or a physical sector that is not a power-of-two "
				    "multiple of the logical sector)", where);
	if (!v.resolved || !v.physical_sector) {
		ap_verdict_free(&v);
		return ap_error_set(e, ENODATA, "%s: unresolved (no physical sector size was "
				    "found); give --physical instead", where);
	}
	rc = ap_geometry_set(g, AP_GEOM_PROBED, v.logical_sector, v.physical_sector,
			     v.lowest_aligned_lba, e);
	if (rc == 0) {
		g->sensitive = v.sensitive;
		g->confidence = v.confidence;
		g->reported_physical = v.reported_physical;
	}
	ap_verdict_free(&v);
	return rc;
}

static int read_all(FILE *f, char **out, size_t *len)
{
	size_t cap = 65536, n = 0, r;
	char *buf = ap_xmalloc(cap + 1);

	errno = 0;

	while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			if (cap >= GEOMETRY_FILE_MAX) {
				free(buf);
				return -EFBIG;
			}
			cap *= 2;
			buf = ap_xrealloc(buf, cap + 1);
		}
	}
	if (ferror(f)) {
		int err = errno ? errno : EIO;

		free(buf);
		return -err;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

int ap_geometry_load(const char *path, struct ap_geometry *g, struct ap_error *e)
{
	struct json_tokener *tok;
	struct json_object *doc;
	enum json_tokener_error jerr;
	FILE *f;
	char *buf;
	size_t len;
	int rc;

	memset(g, 0, sizeof(*g));
	if (strcmp(path, "-") == 0) {
		f = stdin;
	} else {
		f = fopen(path, "re");
		if (!f)
			return ap_error_set(e, errno, "%s: %s", path, strerror(errno));
	}
	rc = read_all(f, &buf, &len);
	if (f != stdin)
		fclose(f);
	if (rc == -EFBIG)
		return ap_error_set(e, EFBIG, "%s: larger than %llu MiB: not a verdict", path,
				    GEOMETRY_FILE_MAX / AP_MIB);
	if (rc)
		return ap_error_set(e, -rc, "%s: read failed: %s", path, strerror(-rc));
	if (strlen(buf) != len) {
		free(buf);
		return ap_error_set(e, EINVAL, "%s: binary data, not JSON", path);
	}

	tok = json_tokener_new();
	if (!tok) {
		free(buf);
		return ap_error_set(e, ENOMEM, "out of memory");
	}
	doc = json_tokener_parse_ex(tok, buf, (int)len);
	jerr = json_tokener_get_error(tok);
	if (!doc || jerr != json_tokener_success) {
		rc = ap_error_set(e, EINVAL, "%s: not valid JSON: %s", path,
				  jerr == json_tokener_continue ? "unexpected end of file"
				  : json_tokener_error_desc(jerr));
		json_object_put(doc);
		json_tokener_free(tok);
		free(buf);
		return rc;
	}
	json_tokener_free(tok);
	free(buf);

	rc = ap_geometry_from_json(doc, g, e);
	json_object_put(doc);
	if (rc && e) {
		char tmp[sizeof(e->msg)];

		memcpy(tmp, e->msg, sizeof(tmp));
		ap_error_set(e, e->code, "%s: %s", path, tmp);
	}
	return rc;
}
