/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The geometry a partition table is checked against, and the alignment
 * predicate. A geometry is a unit U (bytes) and the lowest aligned LBA L:
 * logical sector s is aligned when (s * logical - L * logical) mod U == 0.
 * Geometries come from the kernel (reported), the drive (SG_IO claims), a
 * saved probe/sweep verdict (--geometry FILE) or the command line.
 *
 * Which one decides is check's rule (src/check/rule.h).
 */
#ifndef AP_GEOMETRY_H
#define AP_GEOMETRY_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/align.h"
#include "lib/levels.h"
#include "lib/util.h"

struct json_object;

#define AP_MIB			(1024ULL * 1024ULL)
/* The optimal I/O size some USB bridges report: 65535 * 512, never real. */
#define AP_OPTIO_BOGUS		33553920ULL

enum ap_geom_source {
	AP_GEOM_NONE = 0,
	AP_GEOM_REPORTED,	/* kernel topology (what the device reports) */
	AP_GEOM_DRIVE,		/* the drive's own claim (ATA/SCSI/NVMe) */
	AP_GEOM_PROBED,		/* a probe/sweep verdict from a JSON file */
	AP_GEOM_MANUAL,		/* --physical / --lowest-aligned */
	AP_GEOM_MINIMUM,	/* 4 KiB in place of an unproven smaller report */
	AP_GEOM_MODEL,		/* the verdict store's verdict for the disk's model */
};

struct ap_geometry {
	enum ap_geom_source source;
	unsigned logical;		/* bytes per logical sector */
	uint64_t physical;		/* bytes, the alignment unit */
	uint64_t lowest_aligned;	/* LBA of the first aligned logical sector, < physical/logical */
	/* for probed geometries, from the verdict */
	bool sensitive;			/* alignment measurably matters on the drive */
	double confidence;
	unsigned reported_physical;	/* what the drive reported when it was probed */
	/*
	 * "no effect": units up to this many bytes ruled out, 0 otherwise;
	 * physical is then the unit that verdict stands for
	 * (ap_no_effect_unit(): the logical sector from 64 KiB on, else the
	 * next power of two, at least 4 KiB, from LBA 0).
	 */
	uint64_t ruled_out_up_to;
	/*
	 * Every level a start must be aligned to, ordered by unit: levels.l[0]
	 * is the physical sector (physical, lowest_aligned; ap_geometry_set()
	 * makes it), then a chunk, a stripe, an allocation unit (from a
	 * verdict's "levels", the verdict store, or check --stripe etc.).
	 */
	struct ap_levels levels;
	/* a probed "no effect": what it covers (ap_verdict_ruled_out()) */
	struct ap_ruled_out ruled_out;
	/* a probed or model verdict whose first writes cost more than rewrites
	   with no unit of theirs placed (ap_verdict.first_writes_unplaced) */
	bool first_writes_unplaced;
};

/* Optimal I/O worth checking against: non-zero, not the bridges' bogus
 * value, a multiple of the physical sector, at most 1 GiB (as
 * fdisk_discover_topology() and lsblk treat it). */
bool ap_geometry_optio_is_sane(uint64_t optimal_io, unsigned logical, uint64_t physical);

/* ---- building geometries ---- */

/* Validate and normalise (lowest aligned taken mod the period): -EINVAL
 * with a message when physical is not a power-of-two multiple of logical. */
int ap_geometry_set(struct ap_geometry *g, enum ap_geom_source src, unsigned logical,
		    uint64_t physical, uint64_t lowest_aligned, struct ap_error *e);

/*
 * Add a level above the physical sector to @g (ap_levels_add(): ordered
 * by unit, its lowest aligned LBA taken mod its unit): 0, or -EINVAL with
 * a message (a unit that is not a multiple of the physical sector, or
 * smaller than it; no room).
 */
int ap_geometry_add_level(struct ap_geometry *g, const struct ap_level *lv, struct ap_error *e);
/* Every level of @ls above the physical sector that fits @g, added to it. */
void ap_geometry_add_levels_above(struct ap_geometry *g, const struct ap_levels *ls);
/* @g has levels above its physical sector. */
bool ap_geometry_has_levels(const struct ap_geometry *g);

const char *ap_geometry_source_name(enum ap_geom_source src);
/*
 * @g as JSON (source, file when given, the sizes; what the source adds:
 * sensitive, ruled_out_up_to, a probe's confidence; "levels" when it has
 * levels above the physical sector), or NULL when @g has no physical
 * sector size.
 */
struct json_object *ap_geometry_to_json(const struct ap_geometry *g, const char *file);

#endif
