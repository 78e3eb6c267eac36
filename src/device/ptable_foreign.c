// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A partition table written for another logical sector size (a 512e image
 * read as 4Kn, or the reverse): the evidence ptable.c records as
 * AP_PT_FOREIGN_SECTOR (see ptable.h), split from the libfdisk reading.
 */
#include "device/ptable.h"
#include "device/ptableP.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <blkid.h>

#define FOREIGN_EVIDENCE_MAX	8
#define MIB			(1024ULL * 1024ULL)

/* One sentence of evidence (@s is taken over). */
static void foreign_add(struct ap_ptable *pt, char *s)
{
	if (pt->nforeign_evidence >= FOREIGN_EVIDENCE_MAX) {
		free(s);
		return;
	}
	pt->foreign_evidence = ap_xreallocarray(pt->foreign_evidence, pt->nforeign_evidence + 1,
						sizeof(*pt->foreign_evidence));
	pt->foreign_evidence[pt->nforeign_evidence++] = s;
}

static void foreign_set(struct ap_ptable *pt, unsigned written_for, const char *label)
{
	pt->foreign_sector_size = written_for;
	free(pt->foreign_label);
	pt->foreign_label = ap_xstrdup(label);
	ap_ptable_add_issue(pt, AP_PT_FOREIGN_SECTOR, -1,
			    "the %s partition table was written for %u-byte logical sectors, not "
			    "for the %u-byte sectors it is read with here",
			    strcmp(label, "gpt") == 0 ? "GPT" : "MBR (dos)", written_for,
			    pt->sector_size);
}

/* The sizes a GPT may be written for: LBA 1 is at byte offset = size. */
static const unsigned gpt_sizes[] = { 512, 1024, 2048, 4096 };

/*
 * A GPT header at LBA 1 of another sector size: record it as foreign and
 * return true. A signature with a bad CRC counts too (said so).
 */
bool ap_ptable_foreign_gpt(struct ap_ptable *pt, int fd)
{
	uint8_t buf[512], mbr[512];
	char *s;
	size_t i;
	int k;

	for (i = 0; i < AP_ARRAY_SIZE(gpt_sizes); i++) {
		unsigned ss = gpt_sizes[i];
		uint64_t last = pt->size_bytes / ss - 1;
		struct ap_gpt_header h;
		int rc;

		if (ss == pt->sector_size || (uint64_t)ss + sizeof(buf) > pt->size_bytes ||
		    ap_ptable_read_at(fd, buf, sizeof(buf), ss) != 0)
			continue;
		rc = ap_gpt_header_parse(buf, sizeof(buf), &h);
		if (rc == -ENOENT || (rc == 0 && h.my_lba != 1))
			continue;
		foreign_set(pt, ss, "gpt");
		if (rc)
			ap_xasprintf(&s, "the signature of a GPT header (\"EFI PART\") at byte %u, "
				     "LBA 1 of %u-byte sectors (its header CRC does not match)", ss, ss);
		else if (h.alternate_lba == last)
			ap_xasprintf(&s, "a GPT header at byte %u, LBA 1 of %u-byte sectors, valid, "
				     "with its backup on the last %u-byte sector of this disk",
				     ss, ss, ss);
		else
			ap_xasprintf(&s, "a GPT header at byte %u, LBA 1 of %u-byte sectors, valid, "
				     "describing a disk of %" PRIu64 " %u-byte sectors (this one has "
				     "%" PRIu64 ")", ss, ss, h.alternate_lba + 1, ss, last + 1);
		foreign_add(pt, s);
		if (ap_ptable_read_at(fd, mbr, sizeof(mbr), 0) == 0)
			for (k = 0; k < 4; k++) {
				const uint8_t *e = mbr + 446 + 16 * k;
				uint64_t want = last > UINT32_MAX ? UINT32_MAX : last;

				if (e[4] != 0xee || le32(e + 12) != want || want == pt->nsectors - 1)
					continue;
				ap_xasprintf(&s, "the protective MBR covers the disk in %u-byte "
					     "sectors (%" PRIu64 " of them after the MBR)", ss, want);
				foreign_add(pt, s);
			}
		return true;
	}
	return false;
}

/* The type of what libblkid finds at [off, off + len) (a file system, RAID,
 * swap, LUKS ...), or NULL. Read-only, like every probe here. */
static char *signature_at(int fd, uint64_t off, uint64_t len)
{
	blkid_probe pr = blkid_new_probe();
	const char *type = NULL;
	char *r = NULL;

	if (!pr)
		return NULL;
	if (blkid_probe_set_device(pr, fd, (blkid_loff_t)off, (blkid_loff_t)len) == 0) {
		blkid_probe_enable_partitions(pr, 0);
		blkid_probe_enable_superblocks(pr, 1);
		blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
		if (blkid_do_safeprobe(pr) == 0 &&
		    blkid_probe_lookup_value(pr, "TYPE", &type, NULL) == 0 && type)
			r = ap_xstrdup(type);
	}
	blkid_free_probe(pr);
	return r;
}

/* An EBR (a boot-sector signature) at byte @off. */
static bool ebr_at(int fd, const struct ap_ptable *pt, uint64_t off)
{
	uint8_t b[512];

	if (off > pt->size_bytes || pt->size_bytes - off < sizeof(b) ||
	    ap_ptable_read_at(fd, b, sizeof(b), off) != 0)
		return false;
	return b[510] == 0x55 && b[511] == 0xaa;
}

struct mbr_entry {
	unsigned nr;
	uint64_t start, size;	/* in sectors of whatever size */
	bool container;
};

/* A partition of @e fits a disk of @bytes in @ss-byte sectors. */
static bool mbr_fits(const struct mbr_entry *e, unsigned ss, uint64_t bytes)
{
	return (e->start + e->size) * ss <= bytes;
}

/*
 * An MBR whose entries only make sense in the other unit (512 <-> 4096).
 * Evidence for it: the entries fit the disk only in the other unit; the
 * first partition starts at 1 MiB in the other unit; the entries fill the
 * disk in the other unit; a signature (file system, ...) or an EBR where the
 * other unit puts a partition. Evidence against it, which wins: a signature
 * or an EBR where this unit puts one. The 1 MiB start alone suffices only
 * for a table read with the smaller unit: 128 KiB is no start a 512-byte
 * tool makes, while `start=2048` in a script makes 8 MiB on a 4Kn disk.
 */
void ap_ptable_foreign_dos(struct ap_ptable *pt, int fd)
{
	unsigned ss = pt->sector_size, os;
	uint64_t bytes = pt->size_bytes, end_here = 0, end_other = 0;
	struct mbr_entry ents[4];
	const struct mbr_entry *first = NULL, *past = NULL;
	bool fits_here = true, fits_other = true, against = false, weak = false;
	char ev[6][320], *sig;
	size_t n = 0, nev = 0, i;
	uint8_t mbr[512];

	if (ss == 512)
		os = 4096;
	else if (ss == 4096)
		os = 512;
	else
		return;
	if (ap_ptable_read_at(fd, mbr, sizeof(mbr), 0) != 0)
		return;
	for (i = 0; i < 4; i++) {
		const uint8_t *e = mbr + 446 + 16 * i;

		if (!e[4] || !le32(e + 12))
			continue;
		ents[n].nr = (unsigned)i + 1;
		ents[n].start = le32(e + 8);
		ents[n].size = le32(e + 12);
		ents[n].container = e[4] == 0x05 || e[4] == 0x0f || e[4] == 0x85;
		n++;
	}
	for (i = 0; i < n; i++) {
		const struct mbr_entry *e = &ents[i];

		if (!mbr_fits(e, ss, bytes) && fits_here) {
			fits_here = false;
			past = e;
		}
		fits_other = fits_other && mbr_fits(e, os, bytes);
		if ((e->start + e->size) * ss > end_here)
			end_here = (e->start + e->size) * ss;
		if ((e->start + e->size) * os > end_other)
			end_other = (e->start + e->size) * os;
		if (!e->container && (!first || e->start < first->start))
			first = e;
	}
	if (!n)
		return;

	if (past && fits_other)
		snprintf(ev[nev++], sizeof(ev[0]), "partition %u (sectors %" PRIu64 "-%" PRIu64
			 ") ends past the end of the disk in %u-byte sectors, but every partition "
			 "lies inside it in %u-byte ones", past->nr, past->start,
			 past->start + past->size - 1, ss, os);
	if (first && first->start * os == MIB && first->start * ss != MIB) {
		char *h = ap_size_to_human(first->start * ss);

		snprintf(ev[nev++], sizeof(ev[0]), "partition %u starts at sector %" PRIu64 ": "
			 "at 1 MiB in %u-byte sectors, where partitioning tools put the first "
			 "partition (at %s in %u-byte ones)", first->nr, first->start, os, h, ss);
		free(h);
		weak = ss > os;
	}
	if (fits_here && fits_other && end_other >= bytes / 2 && end_other + MIB >= bytes &&
	    first && first->start * os % MIB == 0)
		snprintf(ev[nev++], sizeof(ev[0]), "in %u-byte sectors the partitions end at byte "
			 "%" PRIu64 ", within 1 MiB of the end of the disk (at byte %" PRIu64
			 " in %u-byte ones)", os, end_other, end_here, ss);
	for (i = 0; i < n && !against; i++) {
		const struct mbr_entry *e = &ents[i];

		if (e->container) {
			if (mbr_fits(e, ss, bytes) && ebr_at(fd, pt, e->start * ss))
				against = true;
			else if (mbr_fits(e, os, bytes) && ebr_at(fd, pt, e->start * os) &&
				 nev < AP_ARRAY_SIZE(ev))
				snprintf(ev[nev++], sizeof(ev[0]), "an EBR (the table of the "
					 "logical partitions) at byte %" PRIu64 ", where extended "
					 "partition %u starts in %u-byte sectors (none at byte %"
					 PRIu64 ", where it starts in %u-byte ones)", e->start * os,
					 e->nr, os, e->start * ss, ss);
			continue;
		}
		if (mbr_fits(e, ss, bytes) && (sig = signature_at(fd, e->start * ss, e->size * ss))) {
			free(sig);
			against = true;	/* this unit puts the partition on its contents */
		} else if (mbr_fits(e, os, bytes) &&
			   (sig = signature_at(fd, e->start * os, e->size * os))) {
			if (nev < AP_ARRAY_SIZE(ev))
				snprintf(ev[nev++], sizeof(ev[0]), "libblkid finds %s at byte %" PRIu64
					 ", where partition %u starts in %u-byte sectors (nothing at "
					 "byte %" PRIu64 ", where it starts in %u-byte ones)", sig,
					 e->start * os, e->nr, os, e->start * ss, ss);
			free(sig);
		}
	}
	if (against || !nev || (weak && nev == 1))
		return;
	foreign_set(pt, os, "dos");
	for (i = 0; i < nev; i++)
		foreign_add(pt, ap_xstrdup(ev[i]));
}
