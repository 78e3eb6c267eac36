// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What lies on a disk that libfdisk reads no table from (see ptable.h):
 *   - a table libblkid's partition probing reads (mac, atari, bsd, sun,
 *     sgi, solaris, unixware, minix, ultrix, ...): its starts are judged
 *     like libfdisk's, the entries its type defines to overlap named;
 *   - a table of a type nothing here reads (Amiga RDB, IBM DASD, NEC
 *     PC-98, AIX): named, an error, never a pass;
 *   - a file system or volume written on the whole disk without a table
 *     (ext4, LVM PV, btrfs, LUKS, ZFS member, ...): it starts at byte 0,
 *     which every geometry aligns.
 * Read-only, like every probe here.
 */
#include "device/ptable.h"
#include "device/ptableP.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <blkid.h>

static char *dup_or_null(const char *s)
{
	return s && *s ? ap_xstrdup(s) : NULL;
}

/* One entry of libblkid's list: false when it is none (free space). */
static bool blkid_entry(struct ap_ptable *pt, blkid_partition par, const char *ptype,
			struct ap_part *p)
{
	uint64_t start = (uint64_t)blkid_partition_get_start(par);	/* 512-byte units */
	uint64_t size = (uint64_t)blkid_partition_get_size(par);
	const char *ts = blkid_partition_get_type_string(par);

	if (!strcmp(ptype, "mac") && ts && !strcmp(ts, "Apple_Free"))
		return false;
	memset(p, 0, sizeof(*p));
	p->partno = (size_t)(blkid_partition_get_partno(par) - 1);
	p->start = start * 512 / pt->sector_size;
	p->size = size * 512 / pt->sector_size;
	if ((start * 512) % pt->sector_size || (size * 512) % pt->sector_size)
		ap_ptable_add_issue(pt, AP_PT_BAD_EXTENT, (long)p->partno,
				    "partition %zu (byte %" PRIu64 ", %" PRIu64 " bytes) is no whole "
				    "number of %u-byte sectors", p->partno + 1, start * 512,
				    size * 512, pt->sector_size);
	if (ts)
		p->type = ap_xstrdup(ts);
	ap_xasprintf(&p->typecode, "%x", (unsigned)blkid_partition_get_type(par));
	p->name = dup_or_null(blkid_partition_get_name(par));
	p->uuid = dup_or_null(blkid_partition_get_uuid(par));
	p->container = blkid_partition_is_extended(par);
	p->logical = blkid_partition_is_logical(par);
	if (!strcmp(ptype, "mac") && ts && !strcmp(ts, "Apple_partition_map"))
		p->role = AP_PART_MAP;
	else if (!strcmp(ptype, "bsd") && p->partno == 2)
		p->role = AP_PART_WHOLE_DISK;
	return true;
}

blkid_partlist ap_ptable_blkid_partlist(const struct ap_ptable *pt, int fd, blkid_probe *prp)
{
	blkid_probe pr = blkid_new_probe();

	*prp = pr;
	if (!pr || blkid_probe_set_device(pr, fd, 0, 0) != 0)
		return NULL;
	blkid_probe_set_sectorsize(pr, pt->sector_size);
	blkid_probe_enable_superblocks(pr, 0);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_ENTRY_DETAILS);
	return blkid_probe_get_partitions(pr);
}

/* The table libblkid finds: true when it found one (recorded in @pt). */
static bool blkid_table(struct ap_ptable *pt, int fd)
{
	blkid_probe pr;
	blkid_partlist ls = ap_ptable_blkid_partlist(pt, fd, &pr);
	blkid_parttable root;
	const char *type;
	int i, n;
	bool found = false;

	root = ls ? blkid_partlist_get_table(ls) : NULL;
	type = root ? blkid_parttable_get_type(root) : NULL;
	if (!type)
		goto out;
	found = true;
	pt->label = ap_xstrdup(type);
	pt->reader = ap_xstrdup("libblkid");
	pt->id = dup_or_null(blkid_parttable_get_id(root));
	pt->first_usable = 1;
	pt->last_usable = pt->nsectors - 1;
	n = blkid_partlist_numof_partitions(ls);
	if (!strcmp(type, "aix")) {
		/* the label of AIX's volume manager: no partitions in it */
		ap_ptable_add_issue(pt, AP_PT_UNREAD_LABEL, -1, "an AIX label (libblkid): its "
				    "logical volumes are not listed in it, nothing to judge");
		goto out;
	}
	pt->parts = ap_xcalloc((size_t)(n > 0 ? n : 0) + 1, sizeof(*pt->parts));
	for (i = 0; i < n; i++) {
		blkid_partition par = blkid_partlist_get_partition(ls, i);

		/* a table nested in a partition (BSD in DOS) belongs to that partition */
		if (!par || blkid_partition_get_table(par) != root)
			continue;
		if (blkid_entry(pt, par, type, &pt->parts[pt->nparts]))
			pt->nparts++;
	}
out:
	blkid_free_probe(pr);
	return found;
}

/* EBCDIC "VOL1", "LNX1", "CMS1": the volume labels of IBM DASDs. */
static bool dasd_at(int fd, uint64_t off)
{
	static const uint8_t sigs[3][4] = { { 0xe5, 0xd6, 0xd3, 0xf1 },
					    { 0xd3, 0xd5, 0xe7, 0xf1 },
					    { 0xc3, 0xd4, 0xe2, 0xf1 } };
	uint8_t b[4];
	size_t i;

	if (ap_ptable_read_at(fd, b, sizeof(b), off) != 0)
		return false;
	for (i = 0; i < 3; i++)
		if (!memcmp(b, sigs[i], 4))
			return true;
	return false;
}

bool ap_ptable_unread_label(struct ap_ptable *pt, int fd)
{
	uint8_t b[512];
	const char *what = NULL;
	unsigned bs, i;

	for (i = 0; i < 16 && !what; i++)
		if (ap_ptable_read_at(fd, b, 4, (uint64_t)i * 512) == 0 && !memcmp(b, "RDSK", 4))
			what = "an Amiga Rigid Disk Block (RDSK)";
	for (bs = 512; bs <= 4096 && !what; bs *= 2)
		if (dasd_at(fd, 2ULL * bs))
			what = "an IBM DASD volume label";
	if (!what && ap_ptable_read_at(fd, b, sizeof(b), 0) == 0 && b[510] == 0x55 &&
	    b[511] == 0xaa && (!memcmp(b + 4, "IPL1", 4) || !memcmp(b + 4, "Linux 98", 8) ||
			       !memcmp(b + 4, "GRUB/98 ", 8)))
		what = "a NEC PC-98 partition table";
	if (!what)
		return false;
	ap_ptable_add_issue(pt, AP_PT_UNREAD_LABEL, -1, "%s: a partition table neither libfdisk "
			    "nor libblkid reads, its partitions cannot be judged", what);
	return true;
}

/* A file system or volume on the whole disk: what libblkid names at byte 0. */
bool ap_ptable_whole_disk(struct ap_ptable *pt, int fd)
{
	blkid_probe pr = blkid_new_probe();
	const char *type = NULL, *usage = NULL;

	if (!pr)
		return false;
	if (blkid_probe_set_device(pr, fd, 0, 0) == 0) {
		blkid_probe_set_sectorsize(pr, pt->sector_size);
		blkid_probe_enable_partitions(pr, 0);
		blkid_probe_enable_superblocks(pr, 1);
		blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE);
		if (blkid_do_safeprobe(pr) == 0 &&
		    blkid_probe_lookup_value(pr, "TYPE", &type, NULL) == 0 && type) {
			pt->whole_disk = ap_xstrdup(type);
			if (blkid_probe_lookup_value(pr, "USAGE", &usage, NULL) == 0 && usage)
				pt->whole_disk_usage = ap_xstrdup(usage);
		}
	}
	blkid_free_probe(pr);
	return pt->whole_disk != NULL;
}

bool ap_ptable_read_other(struct ap_ptable *pt, int fd)
{
	if (ap_ptable_unread_label(pt, fd))
		return true;
	if (blkid_table(pt, fd)) {
		ap_ptable_validate(pt);
		return true;
	}
	return ap_ptable_whole_disk(pt, fd);
}
