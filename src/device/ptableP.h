/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Private to ptable*.c: what the readers of a partition table share. */
#ifndef AP_PTABLE_P_H
#define AP_PTABLE_P_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device/ptable.h"

static inline uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}

/* @len bytes at byte @off, retrying EINTR: 0, -ENODATA past the end, or -errno. */
int ap_ptable_read_at(int fd, void *buf, size_t len, uint64_t off);

/* ---- ptable_gpt.c ---- */

/*
 * Compare the raw GPT copies with what libfdisk read: issues for a corrupt
 * copy, copies that disagree, a backup not at the end, a hybrid MBR, a
 * protective MBR of the wrong size. False when neither copy passes the raw
 * checks (nothing may be listed from the table then). @nentries: the size
 * of the entry array in use.
 */
bool ap_ptable_inspect_gpt(struct ap_ptable *pt, int fd, bool hybrid, uint32_t *nentries);
/* libfdisk found a protective MBR but no usable GPT: say why (truncated, corrupt, missing). */
void ap_ptable_diagnose_pmbr(struct ap_ptable *pt, int fd);
/*
 * The primary GPT's header is intact but its entry array is past the
 * limits (no entries, entries under 128 bytes, over 4 MiB), and there is no
 * valid backup: an issue, true. libfdisk is not let near such an array (it
 * lists garbage from 8-byte entries, and takes seconds over 2^19 entries).
 */
bool ap_ptable_gpt_array_bad(struct ap_ptable *pt, int fd);
/* A GPT signature at LBA 1. */
bool ap_ptable_gpt_at_lba1(const struct ap_ptable *pt, int fd);

/* ---- ptable_blkid.c ---- */

/*
 * libfdisk reads no table: libblkid's partition table (recorded with
 * reader "libblkid" and validated), a table type nothing reads (an
 * AP_PT_UNREAD_LABEL issue), or a whole-disk file system (pt->whole_disk).
 * False when there is none of them.
 */
bool ap_ptable_read_other(struct ap_ptable *pt, int fd);
/*
 * libblkid's partition list of @fd (entry details, @pt's sector size), or
 * NULL; *@pr to free with blkid_free_probe() in both cases (NULL too).
 */
struct blkid_struct_probe;
struct blkid_struct_partlist;
struct blkid_struct_partlist *ap_ptable_blkid_partlist(const struct ap_ptable *pt, int fd,
							struct blkid_struct_probe **pr);
/* A file system or volume at byte 0 (pt->whole_disk): true. */
bool ap_ptable_whole_disk(struct ap_ptable *pt, int fd);
/* A table type nothing here reads (Amiga, DASD, PC-98): an issue, true. */
bool ap_ptable_unread_label(struct ap_ptable *pt, int fd);

/* ---- ptable_nested.c ---- */

/*
 * The labels nested in the primaries of the DOS table libfdisk read into
 * @pt (@cxt): a BSD disklabel's partitions appended to pt->parts (parent
 * set), read by libfdisk's nested context and compared with libblkid's
 * list; a nested label that cannot be read or that they read differently,
 * and one of a type libfdisk does not read (Solaris x86, Minix,
 * UnixWare), an issue. Before ap_ptable_validate().
 */
struct fdisk_context;
void ap_ptable_read_nested(struct ap_ptable *pt, int fd, struct fdisk_context *cxt);
/* A DOS type code that holds a BSD disklabel (FreeBSD, NetBSD, OpenBSD, hidden or not). */
bool ap_ptable_bsd_slice_type(unsigned code);

/* ---- ptable_foreign.c ---- */

/*
 * A GPT header at LBA 1 of another sector size: record it as foreign and
 * return true. A signature with a bad CRC counts too (said so).
 */
bool ap_ptable_foreign_gpt(struct ap_ptable *pt, int fd);

/* An MBR whose entries only make sense in the other unit (512 <-> 4096): recorded as foreign. */
void ap_ptable_foreign_dos(struct ap_ptable *pt, int fd);

#endif
