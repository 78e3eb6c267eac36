/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A device's geometry as each layer states it: the kernel (libblkid
 * topology, plus the queue's write cache mode from sysfs) and the drive
 * itself (ATA IDENTIFY, SCSI READ CAPACITY(16), NVMe Identify Namespace via
 * src/device/sgio.h). A layer that does not answer is "not available" (image
 * files, loop and virtio devices), never an error. Disagreements between
 * the layers are listed as text.
 */
#ifndef AP_TOPOLOGY_H
#define AP_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device/sgio.h"
#include "lib/util.h"

struct ap_kernel_topology {
	bool available;			/* libblkid topology answered */
	char why[128];			/* when not available */
	unsigned long logical;		/* bytes */
	unsigned long physical;
	unsigned long minimum_io;
	unsigned long optimal_io;	/* as reported, 0 when none */
	bool optimal_io_sane;		/* worth aligning to (see ap_geometry_optio_is_sane) */
	unsigned long alignment_offset;	/* bytes */
	int write_cache;		/* -1 unknown, 0 write through, 1 write back (sysfs) */
};

struct ap_drive_topology {
	bool available;			/* some command set answered */
	char why[224];			/* when not available: what was tried */
	bool ata_ok, scsi_ok, nvme_ok;
	struct ap_ata_identify ata;
	struct ap_scsi_capacity scsi;
	struct ap_nvme_ns nvme;
	bool limits_ok;			/* SCSI VPD B0h (Block Limits) answered */
	struct ap_scsi_block_limits limits;
	bool wc_known;
	struct ap_write_cache wc;
	/* the drive's claim, consolidated (ATA, else NVMe, else SCSI) */
	const char *source;		/* "ATA IDENTIFY", "NVMe Identify Namespace", "SCSI READ CAPACITY(16)" */
	unsigned logical;		/* bytes, 0 unknown */
	uint64_t physical;		/* bytes, 0 unknown */
	bool lowest_aligned_known;
	unsigned lowest_aligned;	/* LBA */
};

struct ap_topology {
	bool is_blockdev;
	struct ap_kernel_topology kernel;
	struct ap_drive_topology drive;
	char **disagreements;
	size_t ndisagreements;
};

/* Read every layer of @path (opened read-only). -errno with @e only when the
 * path cannot be opened or examined at all. */
int ap_topology_read(const char *path, struct ap_topology *t, struct ap_error *e);
void ap_topology_free(struct ap_topology *t);

/* Pure: fill drive.source/logical/physical/lowest_aligned from the answers. */
void ap_topology_consolidate(struct ap_drive_topology *d);
/* Pure: (re)compute t->disagreements from the layers. */
void ap_topology_compare(struct ap_topology *t);

struct json_object;
/* {"kernel": {...}, "drive": {...}, "disagreements": [...]}: each layer's answers, or its reason. */
struct json_object *ap_topology_to_json(const struct ap_topology *t);

#endif
