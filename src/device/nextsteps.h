/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What to run next: the commands that put a disk right for the geometry in
 * force (a unit of @unit bytes from the lowest aligned LBA), as argv
 * vectors a test or a fleet tool can run as they are, each with one
 * sentence saying why and whether it rewrites data.
 *
 *   a misaligned partition: move it with its data to an aligned start
 *     (sfdisk --move-data, start and size on standard input; forward when
 *     the space after it allows, else back when the free space before it
 *     does and is a whole MiB, which libfdisk needs to see it), or,
 *     for a new LVM physical volume on it where it stands, pvcreate
 *     --dataalignment/--dataalignmentoffset;
 *   a disk (after a verdict): a partition at the first aligned start from
 *     1 MiB (parted, in sectors);
 *   both: the file systems and volumes for the unit: zpool create -o
 *     ashift=log2(unit), mkfs.xfs -s size=unit (512 to 32 KiB; never for
 *     less than 300 MiB, which mkfs.xfs refuses), pvcreate
 *     --dataalignment; with a stripe (or chunk) above the sector, mkfs.xfs
 *     -d su=CHUNK,sw=N, mkfs.ext4 -E stride=,stripe_width=, pvcreate
 *     --dataalignment STRIPE, and starts at a common multiple of every
 *     level and 1 MiB;
 *   a disk whose byte 0 is not aligned (a lowest aligned LBA of 7): never
 *     a file system or volume on the whole disk, but on a partition at an
 *     aligned start, or pvcreate --dataalignmentoffset.
 *
 * Pure: nothing here runs anything.
 */
#ifndef AP_NEXTSTEPS_H
#define AP_NEXTSTEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_object;
struct ap_levels;

struct ap_next_step {
	char *why;		/* one sentence */
	char **argv;		/* NULL-terminated */
	char *input;		/* what the command reads on standard input, or NULL */
	bool rewrites;		/* destroys or moves data: back up first */
	unsigned partition;	/* the partition it is for (1-based), 0: the disk */
};

struct ap_next_steps {
	struct ap_next_step *v;
	size_t n;
};

/* The geometry in force, and the disk it is for. */
struct ap_next_geometry {
	const char *disk;	/* the whole disk (a device or an image file) */
	bool is_blockdev;	/* partition devices exist (image files: none) */
	unsigned logical;	/* bytes */
	uint64_t unit;		/* bytes, a power-of-two multiple of @logical */
	uint64_t lowest_aligned;	/* LBA */
	/* every level (lib/levels.h), level 0 the unit above; NULL: the unit alone */
	const struct ap_levels *levels;
	uint64_t nsectors;	/* the disk's size in logical sectors, 0 unknown */
};

/* mkfs.xfs refuses file systems smaller than this (xfsprogs 5.19 and later). */
#define AP_XFS_MIN_BYTES	(300ULL * 1024 * 1024)

void ap_next_steps_init(struct ap_next_steps *s);
void ap_next_steps_free(struct ap_next_steps *s);

/*
 * The partition device of partition @partno of @disk: "/dev/sdb1",
 * "/dev/nvme0n1p1", "/dev/loop0p1" (a "p" after a name that ends in a
 * digit, as the kernel names them); malloc'd.
 */
char *ap_next_partition_device(const char *disk, unsigned partno);

/*
 * Partition @partno (1-based) starts misaligned at @start (@size sectors):
 * the steps that fix it. @lower is the first sector it may start at (after
 * the partition before it, or the table's first usable sector), @upper the
 * first sector it may not reach (the next partition, or the last usable
 * sector + 1). When it cannot move either way, no move is offered.
 */
void ap_next_steps_partition(struct ap_next_steps *s, const struct ap_next_geometry *g,
			     unsigned partno, uint64_t start, uint64_t size, uint64_t lower,
			     uint64_t upper);

/*
 * A disk whose geometry a verdict found: where to start a partition, and
 * the file systems and volumes for its unit. @sensitive false (an honest
 * drive): only the file system steps that match its sectors.
 */
void ap_next_steps_disk(struct ap_next_steps *s, const struct ap_next_geometry *g);

/*
 * JSON: [{"why", "command": [argv...], "stdin" (string or null),
 * "rewrites" (bool), "partition" (number or null)}]. The shell line of
 * one step: its words quoted for a POSIX shell, after "printf 'STDIN' |"
 * where it reads standard input; malloc'd.
 */
struct json_object *ap_next_steps_to_json(const struct ap_next_steps *s);
char *ap_next_step_shell(const struct ap_next_step *st);

#endif
