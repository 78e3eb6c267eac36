// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Labels nested in the primaries of a DOS table (see ptableP.h). The
 * Linux kernel reads a BSD disklabel in a FreeBSD, NetBSD or OpenBSD
 * primary (and Solaris x86, Minix and UnixWare labels in theirs) and adds
 * its partitions as devices of their own: they are judged like the DOS
 * partitions, never passed unread.
 *
 *   - A BSD disklabel: libfdisk reads it as fdisk's disklabel mode does
 *     (a nested "bsd" context over the DOS one), in the first BSD primary
 *     only. Its entries are numbered after the primary and a letter (2a,
 *     2e); 'c' is the slice's whole-disk entry. A FreeBSD label whose 'c'
 *     starts at 0 has offsets relative to its slice (FreeBSD 10 on), as the
 *     kernel and libblkid read it.
 *   - libblkid's partition list says what is nested where. Its BSD
 *     entries must be libfdisk's (it checks the label's checksum, which
 *     libfdisk and the kernel do not): a label one of them reads and the
 *     other not, or reads otherwise, is damaged.
 *   - A BSD label libfdisk cannot read (in a second BSD primary, or with a
 *     magic number only the kernel accepts) and a nested label of another
 *     type: named, an error.
 */
#include "device/ptable.h"
#include "device/ptableP.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <blkid.h>
#include <libfdisk/libfdisk.h>

#define BSD_DISKMAGIC	0x82564557U
#define BSD_RAW_PART	2		/* 'c' */
#define MAX_NESTED	64		/* libblkid's entries compared, per table */

bool ap_ptable_bsd_slice_type(unsigned code)
{
	code &= ~0x10u;		/* hidden */
	return code == 0xa5 || code == 0xa6 || code == 0xa9;
}

static unsigned dos_code(const struct ap_part *p)
{
	return p->typecode ? (unsigned)strtoul(p->typecode, NULL, 16) : 0;
}

/* The kernel's test for a disklabel: d_magic in sector 1 of the slice. */
static bool bsd_magic_at(const struct ap_ptable *pt, int fd, const struct ap_part *slice)
{
	uint8_t b[4];

	return ap_ptable_read_at(fd, b, sizeof(b), slice->start * pt->sector_size + 512) == 0 &&
	       le32(b) == BSD_DISKMAGIC;
}

/* One entry of the nested label: appended to pt->parts. */
static void add_nested(struct ap_ptable *pt, const struct ap_part *slice, size_t partno,
		       uint64_t start, uint64_t size, struct fdisk_parttype *t)
{
	struct ap_part *p;

	pt->parts = ap_xreallocarray(pt->parts, pt->nparts + 2, sizeof(*pt->parts));
	p = &pt->parts[pt->nparts++];
	memset(p, 0, sizeof(*p) * 2);
	p->partno = partno;
	p->parent = (unsigned)slice->partno + 1;
	p->start = start;
	p->size = size;
	if (partno == BSD_RAW_PART)
		p->role = AP_PART_WHOLE_DISK;
	if (t) {
		const char *name = fdisk_parttype_get_name(t);

		p->type = name && *name ? ap_xstrdup(name) : NULL;
		ap_xasprintf(&p->typecode, "%x", fdisk_parttype_get_code(t));
	}
}

/*
 * The disklabel of @slice through libfdisk's nested context: its entries
 * appended (the unused ones, which the kernel skips, left out but for
 * 'c'). False when libfdisk finds no label there.
 */
static bool read_bsd(struct ap_ptable *pt, struct fdisk_context *cxt, const struct ap_part *slice)
{
	struct fdisk_context *bsd = fdisk_new_nested_context(cxt, "bsd");
	struct fdisk_table *tb = NULL;
	struct fdisk_iter *itr = NULL;
	struct fdisk_partition *pa;
	uint64_t shift = 0;
	bool relative = true, found = false;

	if (!bsd || !fdisk_has_label(bsd) || fdisk_get_partitions(bsd, &tb) != 0)
		goto out;
	itr = fdisk_new_iter(FDISK_ITER_FORWARD);
	if (!itr)
		goto out;
	found = true;
	/* relative offsets: FreeBSD's convention, 'c' at 0 (or unused) */
	while (fdisk_table_next_partition(tb, itr, &pa) == 0)
		if (fdisk_partition_has_partno(pa) &&
		    fdisk_partition_get_partno(pa) == BSD_RAW_PART &&
		    fdisk_partition_has_start(pa) && fdisk_partition_get_start(pa) != 0)
			relative = false;
	if (relative && (dos_code(slice) & ~0x10u) == 0xa5 &&
	    fdisk_get_npartitions(bsd) > BSD_RAW_PART)
		shift = slice->start;
	fdisk_reset_iter(itr, FDISK_ITER_FORWARD);
	while (fdisk_table_next_partition(tb, itr, &pa) == 0) {
		struct fdisk_parttype *t = fdisk_partition_get_type(pa);
		size_t n;

		if (!fdisk_partition_has_partno(pa) || !fdisk_partition_has_start(pa) ||
		    !fdisk_partition_has_size(pa))
			continue;
		n = fdisk_partition_get_partno(pa);
		if (n != BSD_RAW_PART && (!t || fdisk_parttype_get_code(t) == 0))
			continue;	/* unused */
		add_nested(pt, slice, n, fdisk_partition_get_start(pa) + shift,
			   fdisk_partition_get_size(pa), t);
	}
out:
	fdisk_free_iter(itr);
	fdisk_unref_table(tb);
	fdisk_unref_context(bsd);
	return found;
}

/* What libblkid lists in one nested table. */
struct blkid_nested {
	unsigned parent;	/* 1-based DOS partition */
	char type[16];		/* "freebsd", "solaris", ... */
	size_t n;
	uint64_t start[MAX_NESTED], size[MAX_NESTED];	/* pt's sectors */
};

static bool bsd_name(const char *type)
{
	return !strcmp(type, "bsd") || !strcmp(type, "freebsd") || !strcmp(type, "netbsd") ||
	       !strcmp(type, "openbsd");
}

/* libblkid's nested tables (at most @max): how many were found. */
static size_t blkid_nested_tables(const struct ap_ptable *pt, int fd, struct blkid_nested *v,
				  size_t max)
{
	blkid_probe pr;
	blkid_partlist ls = ap_ptable_blkid_partlist(pt, fd, &pr);
	blkid_parttable root;
	size_t nv = 0, k;
	int i, n;

	root = ls ? blkid_partlist_get_table(ls) : NULL;
	n = root ? blkid_partlist_numof_partitions(ls) : 0;
	for (i = 0; i < n; i++) {
		blkid_partition par = blkid_partlist_get_partition(ls, i), up;
		blkid_parttable tab = par ? blkid_partition_get_table(par) : NULL;
		const char *type = tab ? blkid_parttable_get_type(tab) : NULL;
		struct blkid_nested *t = NULL;

		if (!tab || tab == root || !type || !(up = blkid_parttable_get_parent(tab)))
			continue;
		for (k = 0; k < nv && !t; k++)
			if (v[k].parent == (unsigned)blkid_partition_get_partno(up) &&
			    !strcmp(v[k].type, type))
				t = &v[k];
		if (!t && nv == max)
			continue;
		if (!t) {
			t = &v[nv++];
			memset(t, 0, sizeof(*t));
			t->parent = (unsigned)blkid_partition_get_partno(up);
			snprintf(t->type, sizeof(t->type), "%s", type);
		}
		if (t->n < MAX_NESTED) {
			t->start[t->n] = (uint64_t)blkid_partition_get_start(par) * 512 / pt->sector_size;
			t->size[t->n++] = (uint64_t)blkid_partition_get_size(par) * 512 / pt->sector_size;
		}
	}
	blkid_free_probe(pr);
	return nv;
}

/* libblkid lists the entries inside the slice but 'c' and a copy of the slice. */
static bool blkid_lists(const struct ap_part *p, const struct ap_part *slice)
{
	return p->role == AP_PART_DATA && p->start >= slice->start &&
	       p->start + p->size <= slice->start + slice->size &&
	       !(p->start == slice->start && p->size == slice->size);
}

/* libfdisk's and libblkid's entries of the label in @slice agree. */
static bool same_entries(const struct ap_ptable *pt, size_t first, const struct ap_part *slice,
			 const struct blkid_nested *b)
{
	size_t i, k, n = 0;

	for (i = first; i < pt->nparts; i++) {
		const struct ap_part *p = &pt->parts[i];

		if (!blkid_lists(p, slice))
			continue;
		n++;
		for (k = 0; k < b->n; k++)
			if (b->start[k] == p->start && b->size[k] == p->size)
				break;
		if (k == b->n)
			return false;
	}
	return n == b->n;
}

static const char *nested_name(const char *type)
{
	if (!strcmp(type, "solaris"))
		return "a Solaris x86 label";
	if (!strcmp(type, "minix"))
		return "a Minix subpartition table";
	if (!strcmp(type, "unixware"))
		return "a UnixWare label";
	return NULL;
}

/* libfdisk read the label of @slice (its entries from @first): libblkid's must agree. */
static void compare_bsd(struct ap_ptable *pt, size_t first, const struct ap_part *slice,
			const struct blkid_nested *v, size_t nv)
{
	const struct blkid_nested *b = NULL;
	size_t k;

	for (k = 0; k < nv && !b; k++)
		if (v[k].parent == slice->partno + 1 && bsd_name(v[k].type))
			b = &v[k];
	if (b && same_entries(pt, first, slice, b))
		return;
	if (!b && pt->nparts == first)
		return;		/* nothing listed by either */
	ap_ptable_add_issue(pt, AP_PT_LABEL_CORRUPT, (long)slice->partno,
			    "the BSD disklabel in partition %zu is damaged: libfdisk reads it, "
			    "libblkid %s (its checksum or its entries are wrong), so the "
			    "partitions the kernel makes of it are not known", slice->partno + 1,
			    b ? "lists other partitions in it" : "does not accept it");
}

static bool has_issue(const struct ap_ptable *pt, enum ap_pt_kind kind, long partno)
{
	size_t i;

	for (i = 0; i < pt->nissues; i++)
		if (pt->issues[i].kind == kind && pt->issues[i].partno == partno)
			return true;
	return false;
}

void ap_ptable_read_nested(struct ap_ptable *pt, int fd, struct fdisk_context *cxt)
{
	struct blkid_nested v[8];
	size_t nv = blkid_nested_tables(pt, fd, v, AP_ARRAY_SIZE(v));
	size_t i, k, ndos = pt->nparts, first = 0;
	long bsd = -1;		/* the slice libfdisk reads */

	for (i = 0; i < ndos; i++) {
		struct ap_part slice = pt->parts[i];	/* pt->parts moves */

		if (slice.partno >= 4 || !ap_ptable_bsd_slice_type(dos_code(&slice)))
			continue;
		if (bsd >= 0) {
			if (bsd_magic_at(pt, fd, &slice))
				ap_ptable_add_issue(pt, AP_PT_UNREAD_LABEL, (long)slice.partno,
						    "a BSD disklabel in partition %zu: libfdisk reads "
						    "the label of the first BSD partition only (%ld), "
						    "this one's partitions cannot be judged",
						    slice.partno + 1, bsd + 1);
			continue;
		}
		bsd = (long)slice.partno;
		first = pt->nparts;
		if (read_bsd(pt, cxt, &slice))
			compare_bsd(pt, first, &slice, v, nv);
		else if (bsd_magic_at(pt, fd, &slice))
			ap_ptable_add_issue(pt, AP_PT_UNREAD_LABEL, (long)slice.partno,
					    "a BSD disklabel in partition %zu that libfdisk does not "
					    "read (its second magic number is wrong): its partitions "
					    "cannot be judged", slice.partno + 1);
	}
	for (k = 0; k < nv; k++) {
		const char *what = nested_name(v[k].type);

		if (bsd_name(v[k].type)) {
			if ((bsd < 0 || v[k].parent != (unsigned)bsd + 1) &&
			    !has_issue(pt, AP_PT_UNREAD_LABEL, (long)v[k].parent - 1))
				ap_ptable_add_issue(pt, AP_PT_UNREAD_LABEL, (long)v[k].parent - 1,
						    "a BSD disklabel in partition %u (libblkid) that "
						    "libfdisk does not read: its partitions cannot be "
						    "judged", v[k].parent);
			continue;
		}
		ap_ptable_add_issue(pt, AP_PT_UNREAD_LABEL, (long)v[k].parent - 1,
				    "%s%s%s nested in partition %u (libblkid): libfdisk does not "
				    "read this type, its partitions cannot be judged",
				    what ? what : "a '", what ? "" : v[k].type, what ? "" : "' label",
				    v[k].parent);
	}
}
