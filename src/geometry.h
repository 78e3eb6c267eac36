/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The geometry a partition table is checked against, and the alignment
 * predicate. A geometry is a unit U (bytes) and the lowest aligned LBA L:
 * logical sector s is aligned when (s * logical - L * logical) mod U == 0.
 * Geometries come from the kernel (reported), the drive (SG_IO claims), a
 * saved probe/sweep verdict (--geometry FILE) or the command line.
 */
#ifndef AP_GEOMETRY_H
#define AP_GEOMETRY_H

#include <stdbool.h>
#include <stdint.h>

#include "util.h"

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
};

/* ---- the predicate (pure) ---- */

/* (lba * logical - lowest * logical) mod unit == 0; false when unit or logical is 0. */
bool ap_geometry_is_aligned(uint64_t lba, unsigned logical, uint64_t unit,
			    uint64_t lowest_aligned_lba);
/* Bytes past the last aligned boundary at or before @lba (0 when aligned). */
uint64_t ap_geometry_misalignment(uint64_t lba, unsigned logical, uint64_t unit,
				  uint64_t lowest_aligned_lba);
/* The first aligned LBA >= @lba; UINT64_MAX when @unit is not a multiple of
 * @logical (no sector boundary is ever aligned) or on overflow. */
uint64_t ap_geometry_next_aligned(uint64_t lba, unsigned logical, uint64_t unit,
				  uint64_t lowest_aligned_lba);
/* A size of @nsectors logical sectors is a whole number of units. */
bool ap_geometry_size_is_aligned(uint64_t nsectors, unsigned logical, uint64_t unit);

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
 * From a probe/sweep JSON document: top-level "verdict", or
 * devices[0].verdict (probe of several devices: the first). -EINVAL with a
 * message for anything else, -ENODATA when the verdict is unresolved.
 */
int ap_geometry_from_json(struct json_object *doc, struct ap_geometry *g, struct ap_error *e);
/* The same from a file ("-" for stdin). -ENOENT etc. when unreadable. */
int ap_geometry_load(const char *path, struct ap_geometry *g, struct ap_error *e);

const char *ap_geometry_source_name(enum ap_geom_source src);

#endif
