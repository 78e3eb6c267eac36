/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a device claims of its I/O units, held against what was measured.
 * The claims: the kernel's minimum_io_size and optimal_io_size (libblkid
 * topology, from sysfs), NVMe NPWG and NOWS (Identify Namespace: preferred
 * write granularity, optimal write size) and SCSI Block Limits (VPD B0h)
 * OPTIMAL TRANSFER LENGTH GRANULARITY, each in bytes, 0 when the device
 * states 0 or nothing. The measurement: the levels of a geometry (a
 * probed verdict's, lib/levels.h).
 *
 * A claim is contradicted when it says less than a level measured at its
 * place: minimum_io, NPWG and the granularity stand for the smallest unit
 * a write should cover (the physical sector, a RAID chunk), optimal_io and
 * NOWS for the largest (the stripe): "reports optimal_io 0; the stripe is
 * 196608 bytes". Pure; nothing prints.
 */
#ifndef AP_DEVICE_CLAIMS_H
#define AP_DEVICE_CLAIMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/levels.h"

struct ap_topology;
struct json_object;

enum ap_claim_role {
	AP_CLAIM_MINIMUM,	/* the smallest unit a write should cover */
	AP_CLAIM_OPTIMAL,	/* the unit a write should be a multiple of (a stripe) */
};

struct ap_claim {
	const char *name;	/* "minimum_io", "optimal_io", "nvme_npwg", "nvme_nows", "scsi_otlg" */
	const char *source;	/* "kernel", "NVMe Identify Namespace", "SCSI VPD B0h" */
	enum ap_claim_role role;
	uint64_t bytes;		/* 0: claims none */
};

#define AP_CLAIMS_MAX	5

struct ap_claims {
	struct ap_claim c[AP_CLAIMS_MAX];
	size_t n;
};

/* The claims @t holds (the layers that answered), in the order above. */
void ap_claims_read(const struct ap_topology *t, struct ap_claims *c);

/*
 * Which claims the measured @ls contradict, as sentences ("reports
 * optimal_io 0; the stripe is 196608 bytes"), at most @max into @msgs
 * (malloc'd each): the number written. Only levels paid on every write
 * count (a first-write allocation unit is nobody's I/O size).
 */
size_t ap_claims_contradicted(const struct ap_claims *c, const struct ap_levels *ls,
			      char **msgs, size_t max);

/* {"minimum_io": N, ..., "contradicted": ["..."]} for @c against @ls (NULL: none measured). */
struct json_object *ap_claims_to_json(const struct ap_claims *c, const struct ap_levels *ls);

#endif
