/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A saved probe/sweep verdict loaded as a geometry (check --geometry
 * FILE), matched to the device it is applied to: the entry of a
 * multi-device result whose WWN, serial or path is the device's, or with
 * --geometry-any one that describes its model. A verdict is never taken
 * for more than its evidence: tentative, unresolved or a "no effect"
 * that does not show honest sectors is no geometry.
 */
#ifndef AP_FLEET_LOAD_H
#define AP_FLEET_LOAD_H

#include <stdbool.h>
#include <sys/types.h>

#include "device/geometry.h"
#include "lib/util.h"

struct json_object;

/* What the checked device is known by. */
struct ap_fleet_target {
	const char *path;	/* as named on the command line */
	bool is_blockdev;
	dev_t rdev;		/* block device: st_rdev */
	dev_t dev;		/* image file: st_dev and st_ino */
	ino_t ino;
	const char *wwn;	/* the disk's WWN, NULL when unknown */
	const char *serial;	/* the disk's serial number, NULL when unknown */
	bool any;		/* --geometry-any: the file describes this model of drive */
};

enum ap_fleet_match {
	AP_MATCH_NONE = 0,
	AP_MATCH_WWN,		/* the entry's "wwn" is the device's */
	AP_MATCH_SERIAL,	/* the entry's "serial" is the device's */
	AP_MATCH_PATH,		/* the entry's "device" is this device (same st_rdev or file, or path) */
	AP_MATCH_ANY,		/* no entry is this device; taken because of ->any */
};

/* Which entry of the document was used, and why. */
struct ap_fleet_pick {
	enum ap_fleet_match match;
	char where[48];		/* "verdict", "devices[2].verdict" */
	char device[256];	/* the entry's "device", "" when it has none */
};

/*
 * From a probe/sweep JSON document: {"device", "verdict", ...} (one device)
 * or {"devices": [{"device", "verdict", ...}, ...]} (several). The entry
 * used is the one that is @t: by "wwn", else "serial" (where both the entry
 * and @t have one; a different one rules the entry out), else by "device"
 * (the same block device or file as t->path, or the same path string).
 * None is @t: -ENODEV with the entries named, unless t->any, which takes
 * the first entry when the entries' verdicts agree. @t NULL: the first
 * entry. -EINVAL with a message for anything that is no verdict, -ENODATA
 * when the entry's verdict is unresolved. @pick may be NULL.
 */
int ap_fleet_geometry_from_json(struct json_object *doc, const struct ap_fleet_target *t,
				struct ap_geometry *g, struct ap_fleet_pick *pick,
				struct ap_error *e);
/* The same from a file ("-" for stdin). -ENOENT etc. when unreadable. */
int ap_fleet_geometry_load(const char *path, const struct ap_fleet_target *t,
			   struct ap_geometry *g, struct ap_fleet_pick *pick, struct ap_error *e);
/* "wwn", "serial", "path", "any" (JSON, messages). */
const char *ap_fleet_match_name(enum ap_fleet_match m);
/* Two identifiers name the same disk: case and blanks aside, and the
 * "0x", "naa.", "eui.", "wwn-0x" prefixes of WWNs ignored. */
bool ap_fleet_id_equal(const char *a, const char *b);

#endif
