// SPDX-License-Identifier: GPL-2.0-or-later
/* A saved verdict loaded as a geometry, matched to its device (load.h). */
#include "fleet/load.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <json-c/json.h>

#include "analysis/analysis.h"
#include "analysis/verdict_json.h"
#include "device/geometry.h"
#include "lib/json.h"
#include "lib/levels.h"

#define VERDICT_FILE_MAX	(64 * AP_MIB)

const char *ap_fleet_match_name(enum ap_fleet_match m)
{
	switch (m) {
	case AP_MATCH_WWN:
		return "wwn";
	case AP_MATCH_SERIAL:
		return "serial";
	case AP_MATCH_PATH:
		return "path";
	case AP_MATCH_ANY:
		return "any";
	case AP_MATCH_NONE:
		break;
	}
	return "none";
}

/* Past blanks and the prefixes a WWN is written with. */
static const char *id_skip(const char *s)
{
	static const char *const prefixes[] = { "wwn-0x", "0x", "naa.", "eui." };
	size_t i;

	while (isspace((unsigned char)*s))
		s++;
	for (i = 0; i < AP_ARRAY_SIZE(prefixes); i++)
		if (strncasecmp(s, prefixes[i], strlen(prefixes[i])) == 0)
			return s + strlen(prefixes[i]);
	return s;
}

bool ap_fleet_id_equal(const char *a, const char *b)
{
	size_t n = 0;

	if (!a || !b)
		return false;
	a = id_skip(a);
	b = id_skip(b);
	for (;;) {
		while (isspace((unsigned char)*a))
			a++;
		while (isspace((unsigned char)*b))
			b++;
		if (!*a || !*b)
			break;
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return false;
		a++;
		b++;
		n++;
	}
	return !*a && !*b && n > 0;
}

static const char *const verdict_keys[] = {
	"sensitive", "resolved", "logical_sector", "reported_physical_sector",
	"physical_sector", "lowest_aligned_lba", "fast_starts", "slowdown",
	"p_value", "confidence",
};

static int verdict_geometry(struct json_object *vo, const char *where, struct ap_geometry *g,
			    struct ap_error *e)
{
	struct ap_ruled_out ro = { 0 };
	struct ap_verdict v;
	uint64_t unit, up_to = 0;
	size_t i;
	int rc;

	memset(g, 0, sizeof(*g));
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
	if (!v.sensitive && !ap_absence_margin_shown(v.absence_margin)) {
		char m[96];

		if (v.absence_margin >= 1)
			snprintf(m, sizeof(m), "only effects of %.2fx or more", v.absence_margin);
		else
			snprintf(m, sizeof(m), "no margin (an older alignprobe, which ruled out only --min-slowdown)");
		ap_verdict_free(&v);
		return ap_error_set(e, ENODATA, "%s: \"no effect\" with %s does not show "
				    "honest sectors: flash costs 1.1-1.5x, and %.2fx is the widest "
				    "margin accepted; probe again or give --physical instead", where,
				    m, AP_ABSENCE_MARGIN);
	}
	if (v.tentative) {
		ap_verdict_free(&v);
		return ap_error_set(e, ENODATA, "%s: tentative (not statistically clear: too few "
				    "rounds or the budget ran out; the probe exited 5): no verdict to "
				    "judge a table by; probe again or give --physical instead", where);
	}
	if (v.sensitive) {
		rc = ap_geometry_set(g, AP_GEOM_PROBED, v.logical_sector, v.physical_sector,
				     v.lowest_aligned_lba, e);
	} else {
		/* "no effect" rules out units up to a size, no more: the next one may hide */
		ap_verdict_ruled_out(&v, &ro);
		unit = ap_no_effect_scope(v.logical_sector, v.ruled_out_up_to, &ro, &v.levels,
					  &up_to);

		if (!unit && ap_ruled_out_rewrites_only(&v.ruled_out)) {
			ap_verdict_free(&v);
			return ap_error_set(e, ENODATA, "%s: \"no effect\" on rewrites only: first "
					    "writes were not ruled out (storage that allocates on the "
					    "first write, as qcow2 clusters do, can hide there; the "
					    "probe's note says what they showed): probe again or give "
					    "--physical instead", where);
		}
		if (!unit) {
			ap_verdict_free(&v);
			return ap_error_set(e, ENODATA, "%s: \"no effect\" without the size up to "
					    "which it ruled out a hidden unit (\"ruled_out_up_to\", "
					    "an older alignprobe): probe again or give --physical "
					    "instead", where);
		}
		rc = ap_geometry_set(g, AP_GEOM_PROBED, v.logical_sector, unit, 0, e);
	}
	if (rc == 0) {
		g->sensitive = v.sensitive;
		g->confidence = v.confidence;
		g->reported_physical = v.reported_physical;
		g->ruled_out_up_to = up_to;
		g->ruled_out = ro;
		g->first_writes_unplaced = v.first_writes_unplaced;	/* sensitive only, as read */
		for (i = 0; i < v.levels.n && rc == 0; i++)
			if (v.levels.l[i].kind != AP_LEVEL_SECTOR &&
			    ap_geometry_add_level(g, &v.levels.l[i], NULL))
				rc = ap_error_set(e, EINVAL, "%s: levels[%zu]: a %s of %" PRIu64
						  " bytes does not fit %" PRIu64 "-byte physical "
						  "sectors", where, i,
						  ap_level_kind_name(v.levels.l[i].kind),
						  v.levels.l[i].unit, g->physical);
	}
	ap_verdict_free(&v);
	return rc;
}

/* An entry's "device" is @t: the same path, block device or file. */
static bool same_device(const char *dev, const struct ap_fleet_target *t)
{
	struct stat st;

	if (t->path && strcmp(dev, t->path) == 0)
		return true;
	if (stat(dev, &st) != 0)
		return false;
	if (t->is_blockdev)
		return S_ISBLK(st.st_mode) && st.st_rdev == t->rdev;
	return S_ISREG(st.st_mode) && st.st_dev == t->dev && st.st_ino == t->ino;
}

static enum ap_fleet_match match_entry(struct json_object *ent, const struct ap_fleet_target *t)
{
	const char *wwn = ap_json_peek_string(ent, "wwn"), *serial = ap_json_peek_string(ent, "serial");
	const char *dev = ap_json_peek_string(ent, "device");
	struct json_object *idn;

	/* a probe result carries them in its "identity" (see device/identity.h) */
	if (json_object_object_get_ex(ent, "identity", &idn) &&
	    json_object_is_type(idn, json_type_object)) {
		if (!wwn)
			wwn = ap_json_peek_string(idn, "wwn");
		if (!serial)
			serial = ap_json_peek_string(idn, "serial");
	}

	/* an identity both sides know decides, either way */
	if (wwn && *wwn && t->wwn && *t->wwn)
		return ap_fleet_id_equal(wwn, t->wwn) ? AP_MATCH_WWN : AP_MATCH_NONE;
	if (serial && *serial && t->serial && *t->serial)
		return ap_fleet_id_equal(serial, t->serial) ? AP_MATCH_SERIAL : AP_MATCH_NONE;
	if (dev && same_device(dev, t))
		return AP_MATCH_PATH;
	return AP_MATCH_NONE;
}

/* The entries: the document itself, or the elements of "devices". */
static struct json_object *entry_at(struct json_object *doc, struct json_object *devs, size_t i,
				    char *where, size_t wsz)
{
	if (!devs) {
		snprintf(where, wsz, "verdict");
		return i == 0 ? doc : NULL;
	}
	snprintf(where, wsz, "devices[%zu].verdict", i);
	return json_object_array_get_idx(devs, i);
}

static void pick_fill(struct ap_fleet_pick *pick, struct json_object *ent, const char *where,
		      enum ap_fleet_match m)
{
	const char *dev = json_object_is_type(ent, json_type_object) ? ap_json_peek_string(ent, "device") : NULL;

	pick->match = m;
	snprintf(pick->where, sizeof(pick->where), "%s", where);
	snprintf(pick->device, sizeof(pick->device), "%s", dev ? dev : "");
}

/* "/dev/sdz, /dev/sdy" (the entries' devices) for messages */
static void list_devices(struct json_object *doc, struct json_object *devs, size_t n, char *buf,
			 size_t sz)
{
	char where[48];
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < n && len + 1 < sz; i++) {
		struct json_object *ent = entry_at(doc, devs, i, where, sizeof(where));
		const char *dev = json_object_is_type(ent, json_type_object) ? ap_json_peek_string(ent, "device")
									     : NULL;
		int w = snprintf(buf + len, sz - len, "%s%s", i ? ", " : "",
				 dev ? dev : "(no device named)");

		if (w < 0 || (size_t)w >= sz - len) {
			snprintf(buf + (sz > 4 ? sz - 4 : 0), sz > 4 ? 4 : sz, "...");
			return;
		}
		len += (size_t)w;
	}
}

/* --geometry-any: the first resolved entry, when every resolved one agrees. */
static int pick_any(struct json_object *doc, struct json_object *devs, size_t n,
		    struct ap_geometry *g, struct ap_fleet_pick *pick, struct ap_error *e)
{
	struct ap_geometry first, other;
	char where[48], fwhere[48];
	ssize_t chosen = -1;
	size_t i;

	for (i = 0; i < n; i++) {
		struct json_object *ent = entry_at(doc, devs, i, where, sizeof(where));
		struct json_object *vo;

		if (!json_object_is_type(ent, json_type_object) ||
		    !json_object_object_get_ex(ent, "verdict", &vo) ||
		    verdict_geometry(vo, where, chosen < 0 ? &first : &other, NULL))
			continue;
		if (chosen < 0) {
			chosen = (ssize_t)i;
			snprintf(fwhere, sizeof(fwhere), "%s", where);
			continue;
		}
		if (other.logical != first.logical || other.physical != first.physical ||
		    other.lowest_aligned != first.lowest_aligned ||
		    !ap_levels_same_above(&other.levels, &first.levels))
			return ap_error_set(e, ENODEV, "the entries disagree (%s: %" PRIu64
					    "-byte physical sectors, lowest aligned LBA %" PRIu64
					    "; %s: %" PRIu64 ", %" PRIu64 "): it describes no one "
					    "model of drive", fwhere, first.physical,
					    first.lowest_aligned, where, other.physical,
					    other.lowest_aligned);
	}
	if (chosen < 0)
		return -ENOENT;		/* the caller reports the first entry's own error */
	*g = first;
	pick_fill(pick, entry_at(doc, devs, (size_t)chosen, where, sizeof(where)), fwhere,
		  AP_MATCH_ANY);
	return 0;
}

int ap_fleet_geometry_from_json(struct json_object *doc, const struct ap_fleet_target *t,
				struct ap_geometry *g, struct ap_fleet_pick *pick,
				struct ap_error *e)
{
	struct json_object *devs = NULL, *ent, *vo;
	struct ap_fleet_pick dummy;
	enum ap_fleet_match best_m = AP_MATCH_NONE;
	char where[48];
	ssize_t best = -1;
	size_t i, n;
	int rc;

	memset(g, 0, sizeof(*g));
	if (!pick)
		pick = &dummy;
	memset(pick, 0, sizeof(*pick));
	if (!json_object_is_type(doc, json_type_object) ||
	    (!json_object_object_get_ex(doc, "verdict", NULL) &&
	     (!json_object_object_get_ex(doc, "devices", &devs) ||
	      !json_object_is_type(devs, json_type_array) || json_object_array_length(devs) == 0)))
		return ap_error_set(e, EINVAL, "no \"verdict\" object (nor devices[].verdict): "
				    "not a probe or sweep result");
	if (json_object_object_get_ex(doc, "verdict", NULL))
		devs = NULL;
	n = devs ? json_object_array_length(devs) : 1;

	for (i = 0; t && i < n; i++) {
		enum ap_fleet_match m;

		ent = entry_at(doc, devs, i, where, sizeof(where));
		if (!json_object_is_type(ent, json_type_object))
			continue;
		m = match_entry(ent, t);
		if (m != AP_MATCH_NONE && (best < 0 || m < best_m)) {
			best = (ssize_t)i;
			best_m = m;
		}
	}
	if (!t) {
		best = 0;
		best_m = AP_MATCH_ANY;
	}
	if (best < 0 && t->any) {
		rc = pick_any(doc, devs, n, g, pick, e);
		if (rc != -ENOENT)
			return rc;
		best = 0;	/* no entry is usable: say what is wrong with the first */
		best_m = AP_MATCH_ANY;
	}
	if (best < 0) {
		char list[200];

		list_devices(doc, devs, n, list, sizeof(list));
		return ap_error_set(e, ENODEV, "no entry is for %s (by WWN, serial number or "
				    "path; the file is for %s): use a probe result of this "
				    "device, or --geometry-any if the file describes this model "
				    "of drive", t->path ? t->path : "this device", list);
	}

	ent = entry_at(doc, devs, (size_t)best, where, sizeof(where));
	if (devs && !json_object_is_type(ent, json_type_object))
		return ap_error_set(e, EINVAL, "devices[%zd] is not an object", best);
	if (!json_object_object_get_ex(ent, "verdict", &vo))
		return ap_error_set(e, EINVAL, "%s: missing", where);
	rc = verdict_geometry(vo, where, g, e);
	if (rc == 0)
		pick_fill(pick, ent, where, best_m);
	return rc;
}

int ap_fleet_geometry_load(const char *path, const struct ap_fleet_target *t,
			   struct ap_geometry *g, struct ap_fleet_pick *pick, struct ap_error *e)
{
	struct json_object *doc;
	int rc;

	memset(g, 0, sizeof(*g));
	rc = ap_json_load(path, VERDICT_FILE_MAX, &doc, e);
	if (rc == -EFBIG)
		return ap_error_set(e, EFBIG, "%s: larger than %llu MiB: not a verdict", path,
				    VERDICT_FILE_MAX / AP_MIB);
	if (rc)
		return rc;

	rc = ap_fleet_geometry_from_json(doc, t, g, pick, e);
	json_object_put(doc);
	if (rc && e) {
		char tmp[sizeof(e->msg)];

		memcpy(tmp, e->msg, sizeof(tmp));
		ap_error_set(e, e->code, "%s: %s", path, tmp);
	}
	return rc;
}
