/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading and validating a partition table, read-only, through libfdisk
 * (GPT and MBR/DOS with extended and logical partitions, Sun, SGI, BSD) and,
 * where libfdisk reads none, libblkid's partition probing (Mac, Atari, ...),
 * on a whole-disk device or an image file; or what else lies there (a table
 * type nothing reads, a file system on the whole disk). ap_ptable_read_
 * isolated() does it in a child process, which a library crash cannot end.
 *
 * libfdisk reads what it can and repairs in memory (it falls back to the
 * backup GPT, moves a misplaced backup, and does not compare the backup's
 * entries at all); it reports through its dialog callback, which we capture
 * so that it never prompts or prints. What it does not say structurally is
 * found here from the raw GPT headers (CRC-32, positions, primary vs backup
 * contents) and from the partition list (overlaps, partitions past the end,
 * outside the usable area, logical partitions outside their extended one).
 *
 * A table written for another logical sector size (a disk partitioned behind
 * a USB bridge that presents 4096-byte sectors, read on SATA with 512, or
 * the reverse) is recognised, never repaired: a GPT header at LBA 1 of
 * another sector size (byte 512, 1024, 2048 or 4096), or MBR entries that
 * only make sense in the other unit (512 <-> 4096): the first partition at
 * 1 MiB, the table fitting or filling the disk, a file system or an EBR
 * found where the other unit puts a partition (libblkid at that offset),
 * and none where this one does.
 */
#ifndef AP_PTABLE_H
#define AP_PTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/util.h"

enum ap_pt_kind {
	/* errors: the table cannot be trusted (exit 2 in check) */
	AP_PT_NO_TABLE = 1,	/* no partition table at all */
	AP_PT_TOO_SMALL,	/* image/device smaller than one sector */
	AP_PT_PRIMARY_CORRUPT,	/* primary GPT bad: libfdisk used the backup */
	AP_PT_BACKUP_CORRUPT,	/* backup GPT bad or missing: primary used */
	AP_PT_GPT_MISMATCH,	/* both GPT copies valid but they disagree */
	AP_PT_GPT_TRUNCATED,	/* GPT describes a larger disk than this one */
	AP_PT_GPT_CORRUPT,	/* GPT header present, neither copy valid */
	AP_PT_PMBR_NO_GPT,	/* protective MBR (0xee) without a GPT */
	AP_PT_GPT_NO_PMBR,	/* GPT header without a protective MBR */
	AP_PT_BAD_EXTENT,	/* zero or overflowing size, end before start */
	AP_PT_OVERLAP,		/* two partitions share sectors */
	AP_PT_PAST_END,		/* partition ends past the end of the disk */
	AP_PT_OUTSIDE_USABLE,	/* GPT: outside first..last usable LBA; DOS: sector 0 */
	AP_PT_LOGICAL_OUTSIDE,	/* DOS logical partition outside its extended one */
	AP_PT_FOREIGN_SECTOR,	/* written for another logical sector size (exit 7 in check) */
	AP_PT_PARTLY_READ,	/* libfdisk read only part of the table (it said so) */
	AP_PT_CRASHED,		/* the library crashed or hung reading the table */
	AP_PT_UNREAD_LABEL,	/* a table of a type nothing here reads */
	AP_PT_HYBRID_MISMATCH,	/* a hybrid MBR entry that is no GPT partition */
	AP_PT_LABEL_CORRUPT,	/* libfdisk read a label it says is corrupt (Sun, SGI checksum) */
	AP_PT_NESTED_OUTSIDE,	/* a nested label's partition outside the DOS partition holding it */
	/* warnings: reported, the check goes on */
	AP_PT_VERIFY,		/* libfdisk's verification complains of something else */
	AP_PT_BACKUP_NOT_AT_END,	/* backup GPT not on the last LBA (disk grew) */
	AP_PT_HYBRID_MBR,	/* GPT with a hybrid MBR */
	AP_PT_PARTIAL_SECTOR,	/* size not a multiple of the sector size */
	AP_PT_PMBR_SIZE,	/* protective MBR does not cover the disk */
	AP_PT_TOO_MANY,		/* further issues were not recorded */
};

struct ap_pt_issue {
	enum ap_pt_kind kind;
	bool error;
	long partno;		/* 0-based partition number, -1 when none */
	char msg[320];
};

/* Entries a label type defines to overlap the others: named, never judged. */
enum ap_part_role {
	AP_PART_DATA = 0,	/* an ordinary partition */
	AP_PART_WHOLE_DISK,	/* Sun partition 3, SGI volume (11), BSD 'c' */
	AP_PART_VOLUME_HEADER,	/* SGI volume header (9) */
	AP_PART_MAP,		/* the Apple partition map's own entry */
};

struct ap_part {
	size_t partno;		/* 0-based, as libfdisk numbers them (DOS logicals from 4;
				   in a nested BSD label: a = 0, b = 1, ...) */
	unsigned parent;	/* in a label nested in a DOS primary: that partition's
				   number (1-4), 0 at the top level */
	uint64_t start;		/* logical sectors */
	uint64_t size;		/* logical sectors */
	char *type;		/* "Linux filesystem", "Extended", ... or NULL */
	char *typecode;		/* "83" or the GPT type GUID, or NULL */
	char *name;		/* GPT partition name, or NULL */
	char *uuid;		/* GPT partition GUID, or NULL */
	bool container;		/* DOS extended partition */
	bool logical;		/* DOS logical partition */
	enum ap_part_role role;	/* by-design entries: not checked for overlap or alignment */
};

struct ap_ptable {
	char *path;
	bool is_blockdev;
	uint64_t size_bytes;
	unsigned sector_size;		/* logical, bytes */
	uint64_t nsectors;		/* whole logical sectors */
	char *label;			/* "gpt", "dos", ... NULL when there is no table */
	char *reader;			/* "libfdisk" or "libblkid": who read the table */
	char *whole_disk;		/* no table: what libblkid finds at byte 0 ("ext4"), or NULL */
	char *whole_disk_usage;		/* its usage: "filesystem", "raid", "crypto", ... */
	char *id;			/* disk identifier, or NULL */
	uint64_t first_usable;		/* first sector a partition may use */
	uint64_t last_usable;		/* last sector a partition may use */
	bool backup_used;		/* the table was read from the backup GPT */
	struct ap_part *parts;
	size_t nparts;
	struct ap_pt_issue *issues;
	size_t nissues;
	char **fdisk_msgs;		/* what libfdisk said while reading and verifying */
	size_t nfdisk_msgs;
	/* a table written for another logical sector size (AP_PT_FOREIGN_SECTOR) */
	unsigned foreign_sector_size;	/* the size it was written for, 0 when none */
	char *foreign_label;		/* "gpt" or "dos" */
	char **foreign_evidence;	/* what shows it, one sentence each */
	size_t nforeign_evidence;
};

struct ap_ptable_opts {
	unsigned sector_size;		/* image files: logical sector size (0: 512) */
};

/*
 * The partition's number as shown: "5" at the top level, "2e" for the
 * BSD partition e in DOS partition 2 (a digit and a letter: no DOS
 * number, logicals included, looks like it). Returns @buf.
 */
#define AP_PART_NR_MAX	24
const char *ap_part_nr(const struct ap_part *p, char *buf, size_t sz);

/* A name for a by-design entry ("the whole-disk entry"), NULL for a data partition. */
const char *ap_part_role_name(enum ap_part_role role);

/*
 * Read and validate the table of @path. Returns 0 when the device could be
 * examined, whatever its table looks like: @pt->label is NULL when there is
 * no table, and @pt->issues lists everything wrong. -errno with @e when the
 * path cannot be examined (missing, not a block device or regular file,
 * unreadable). Free @pt with ap_ptable_free() in both cases.
 */
int ap_ptable_read(const char *path, const struct ap_ptable_opts *o,
		   struct ap_ptable *pt, struct ap_error *e);
void ap_ptable_free(struct ap_ptable *pt);

/*
 * ap_ptable_read() in a child process: a crash or a hang of libfdisk or
 * libblkid on this table costs this device an AP_PT_CRASHED issue (an
 * error), never the caller. Same contract as ap_ptable_read(). A hang is a
 * child still running after AP_PTABLE_CHILD_TIMEOUT seconds (killed).
 */
#define AP_PTABLE_CHILD_TIMEOUT	60
int ap_ptable_read_isolated(const char *path, const struct ap_ptable_opts *o,
			    struct ap_ptable *pt, struct ap_error *e);
/* The serialisation between child and parent, exported for the tests. */
void ap_ptable_pack(const struct ap_ptable *pt, int rc, const struct ap_error *e,
		    char **buf, size_t *len);
int ap_ptable_unpack(const char *buf, size_t len, struct ap_ptable *pt, int *rc,
		     struct ap_error *e);
size_t ap_ptable_nerrors(const struct ap_ptable *pt);
/* A partition by its 0-based number, or NULL. */
const struct ap_part *ap_ptable_part(const struct ap_ptable *pt, size_t partno);

/* ---- pure, exported for the tests ---- */

/* Record an issue (at most AP_PT_MAX_ISSUES, then one AP_PT_TOO_MANY). */
#define AP_PT_MAX_ISSUES	64
void ap_ptable_add_issue(struct ap_ptable *pt, enum ap_pt_kind kind, long partno,
			 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
bool ap_pt_kind_is_error(enum ap_pt_kind kind);
/* A stable lower-case name for JSON: "overlap", "past_end", ... */
const char *ap_pt_kind_name(enum ap_pt_kind kind);

struct json_object;
/*
 * ptable_json.c: @pt's members added to the JSON object @doc: the device
 * and its table (type, size, logical_sector, sectors, label, id, read_by,
 * whole_disk, first_usable, last_usable); its "issues" and
 * "libfdisk_messages".
 */
void ap_ptable_to_json(const struct ap_ptable *pt, struct json_object *doc);
void ap_ptable_issues_to_json(const struct ap_ptable *pt, struct json_object *doc);

/* Checks over pt->parts against nsectors, first/last usable and label:
 * bad extents, past the end, outside the usable area, overlaps (a DOS
 * extended partition and its logical partitions excepted). */
void ap_ptable_validate(struct ap_ptable *pt);

/* CRC-32 as GPT uses it (IEEE 802.3, reflected, init and final xor ~0). */
uint32_t ap_ptable_crc32(const void *buf, size_t len);

struct ap_gpt_header {
	uint32_t revision;
	uint32_t header_size;
	uint32_t header_crc;
	uint64_t my_lba, alternate_lba;
	uint64_t first_usable, last_usable;
	uint8_t disk_guid[16];
	uint64_t entries_lba;
	uint32_t nentries, entry_size;
	uint32_t entries_crc;
};

/*
 * Parse one sector holding a GPT header. 0 when the signature is there and
 * the header CRC matches; -ENOENT when there is no "EFI PART" signature;
 * -EBADMSG for a bad CRC, header size or entry geometry (@h is filled as far
 * as it could be read).
 */
int ap_gpt_header_parse(const uint8_t *buf, size_t len, struct ap_gpt_header *h);
/* Size in bytes of the entry array, or 0 when implausible (> 4 MiB). */
size_t ap_gpt_entries_size(const struct ap_gpt_header *h);

#endif
