/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Partitioning for the sweep, through libparted: a fresh GPT label with ONE
 * partition starting exactly at a given sector (no alignment snapping),
 * committed to the device and to the kernel, and the partition node waited
 * for (created with mknod from the sysfs device numbers when nothing else
 * creates it). Also the final state: an empty GPT.
 *
 * libparted's exceptions are recorded into the struct ap_error instead of
 * being printed or asked about.
 */
#ifndef AP_SWEEP_PART_H
#define AP_SWEEP_PART_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/util.h"

/* What libparted says about a disk. */
struct ap_part_disk {
	unsigned logical_sector;	/* bytes */
	unsigned physical_sector;	/* bytes, as reported */
	uint64_t nsectors;		/* logical sectors */
	uint64_t first_usable;		/* first LBA a GPT partition can use */
	uint64_t last_usable;		/* last LBA a GPT partition can use */
};

/* The partition that ap_part_create() made. */
struct ap_sweep_part {
	char *node;		/* "/dev/loop3p1" */
	uint64_t start;		/* logical sectors, as verified in sysfs */
	uint64_t nsectors;
	bool node_created;	/* we made the node with mknod: remove it */
};

int ap_part_disk_info(const char *disk, struct ap_part_disk *d, struct ap_error *e);
/*
 * The same for a disk of @nsectors logical sectors of @logical bytes (and
 * @physical reported) that is not there yet (the emulated drive of a dry
 * run): what ap_part_disk_info() would find on it.
 */
void ap_part_disk_geometry(unsigned logical, unsigned physical, uint64_t nsectors,
			   struct ap_part_disk *d);

/* GPT's first usable LBA for a logical sector size (34 for 512, 6 for 4096). */
uint64_t ap_part_gpt_first_usable(unsigned logical_sector);

/*
 * Write a fresh GPT on @disk with one partition of @nsectors logical sectors
 * starting exactly at @start, commit it to the device and the kernel, and
 * wait (up to @timeout_ms) for the partition node with the right start.
 * Fills @p (free with ap_part_release()). 0 or -errno with @e filled.
 */
int ap_part_create(const char *disk, uint64_t start, uint64_t nsectors,
		   unsigned timeout_ms, struct ap_sweep_part *p, struct ap_error *e);

/* Remove a node we created and free @p. Safe on a zeroed @p. */
void ap_part_release(struct ap_sweep_part *p);

/*
 * After a step, with nothing open on it: drop @disk's partition 1 from the
 * kernel's view (BLKPG), the table on the disk left as it is. libparted
 * opens and fsyncs every partition of a disk it opens, syncs or closes, a
 * flush each (3 of a step's 7 on a disk whose flushes are a seek and a
 * revolution away); the next ap_part_create() adds it again. 0, or -errno
 * (-EBUSY: still open; the next ap_part_create() replaces it then).
 */
int ap_part_forget(const char *disk);

/*
 * Keep libparted's device for @disk open from now until ap_part_let_go():
 * the ap_part_*() calls on @disk in between reuse it. Each of them would
 * otherwise have libparted probe the disk anew and open and close it, each
 * a flush (a step's partition on hdd-7200-nocache-flush took 133 ms, held
 * 88 ms, one flush left). One disk at a time; the descriptor is not
 * exclusive. 0 or -errno with @e filled; nothing held then.
 */
int ap_part_hold(const char *disk, struct ap_error *e);

/* Close what ap_part_hold() kept (a descriptor libparted leaks too). Safe without a hold. */
void ap_part_let_go(void);

/* Leave @disk with an empty GPT, committed to the device and the kernel. */
int ap_part_wipe(const char *disk, struct ap_error *e);

/*
 * The partition node of @disk's partition number @partno from sysfs:
 * the kernel name ("loop3p1") and device numbers. 0, -ENOENT when the
 * kernel has no such partition, or -errno.
 */
int ap_part_sysfs_find(const char *disk, unsigned partno, char **name,
		       unsigned *major, unsigned *minor, uint64_t *start, uint64_t *size);

#endif
