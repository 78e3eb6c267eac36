// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The GPT as it lies on the disk, read raw next to libfdisk (see ptable.h):
 * both headers and entry arrays, their CRCs and limits, what the copies
 * say against each other, and why an unusable GPT is unusable. Each
 * finding is named by its real cause.
 */
#include "device/ptable.h"
#include "device/ptableP.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GPT_SIGNATURE		"EFI PART"
#define GPT_HEADER_MIN		92
#define GPT_ENTRIES_MAX		(4u << 20)
#define GPT_ENTRY_MIN		128
/* ---- raw GPT (pure parts exported) ---- */

uint32_t ap_ptable_crc32(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint32_t crc = 0xffffffffu;
	size_t i;
	int k;

	for (i = 0; i < len; i++) {
		crc ^= p[i];
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
	}
	return ~crc;
}

static uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | ((uint64_t)le32(p + 4) << 32);
}

int ap_gpt_header_parse(const uint8_t *buf, size_t len, struct ap_gpt_header *h)
{
	uint8_t tmp[512];

	memset(h, 0, sizeof(*h));
	if (!buf || len < GPT_HEADER_MIN || memcmp(buf, GPT_SIGNATURE, 8) != 0)
		return -ENOENT;
	h->revision = le32(buf + 8);
	h->header_size = le32(buf + 12);
	h->header_crc = le32(buf + 16);
	h->my_lba = le64(buf + 24);
	h->alternate_lba = le64(buf + 32);
	h->first_usable = le64(buf + 40);
	h->last_usable = le64(buf + 48);
	memcpy(h->disk_guid, buf + 56, 16);
	h->entries_lba = le64(buf + 72);
	h->nentries = le32(buf + 80);
	h->entry_size = le32(buf + 84);
	h->entries_crc = le32(buf + 88);
	if (h->header_size < GPT_HEADER_MIN || h->header_size > len ||
	    h->header_size > sizeof(tmp))
		return -EBADMSG;
	memcpy(tmp, buf, h->header_size);
	memset(tmp + 16, 0, 4);		/* the CRC field counts as zero */
	if (ap_ptable_crc32(tmp, h->header_size) != h->header_crc)
		return -EBADMSG;
	if (!ap_gpt_entries_size(h))
		return -EBADMSG;
	return 0;
}

size_t ap_gpt_entries_size(const struct ap_gpt_header *h)
{
	uint64_t sz = (uint64_t)h->nentries * h->entry_size;

	if (!h->nentries || h->entry_size < GPT_ENTRY_MIN || h->entry_size % 8 ||
	    sz > GPT_ENTRIES_MAX)
		return 0;
	return (size_t)sz;
}

/*
 * Why ap_gpt_header_parse() rejected a header that has the signature, by
 * its real cause: the header's size, its CRC, or the geometry of the entry
 * array (no entries, entries too small, an array larger than the Linux
 * kernel reads: the same 4 MiB as KMALLOC_MAX_SIZE on x86-64).
 */
static bool header_problem(const uint8_t *buf, const struct ap_gpt_header *h, unsigned ss,
			   char *why, size_t n)
{
	uint64_t sz = (uint64_t)h->nentries * h->entry_size;
	uint8_t tmp[512];

	if (h->header_size < GPT_HEADER_MIN || h->header_size > ss || h->header_size > 512) {
		snprintf(why, n, "header size %" PRIu32 " outside %u..%u bytes", h->header_size,
			 GPT_HEADER_MIN, ss < 512 ? ss : 512);
		return false;
	}
	memcpy(tmp, buf, h->header_size);
	memset(tmp + 16, 0, 4);
	if (ap_ptable_crc32(tmp, h->header_size) != h->header_crc) {
		snprintf(why, n, "bad header CRC");
		return false;
	}
	/* a header intact in itself: its entry array is what is wrong */
	if (!h->nentries)
		snprintf(why, n, "the header lists no partition entries");
	else if (h->entry_size < GPT_ENTRY_MIN || h->entry_size % 8)
		snprintf(why, n, "partition entries of %" PRIu32 " bytes (at least %u, a multiple "
			 "of 8)", h->entry_size, GPT_ENTRY_MIN);
	else
		snprintf(why, n, "a partition entry array of %" PRIu32 " entries of %" PRIu32
			 " bytes (%" PRIu64 " KiB), larger than the %u KiB Linux reads",
			 h->nentries, h->entry_size, sz >> 10, GPT_ENTRIES_MAX >> 10);
	return true;
}

/* One copy of the GPT as found on disk. */
struct gpt_copy {
	uint64_t lba;
	bool present;		/* "EFI PART" signature found */
	bool header_ok;		/* signature and header CRC */
	bool valid;		/* everything libfdisk checks, entries CRC included */
	bool array_bad;		/* an intact header, an entry array past the limits */
	struct ap_gpt_header h;
	uint8_t *ents;
	size_t entsz;
	char why[128];		/* why not valid */
};

int ap_ptable_read_at(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t r;
	size_t done = 0;

	while (done < len) {
		r = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -ENODATA;	/* short file */
		done += (size_t)r;
	}
	return 0;
}

static void gpt_copy_read(int fd, unsigned ss, uint64_t nsectors, uint64_t lba,
			  struct gpt_copy *c)
{
	uint8_t *buf;
	uint64_t last = nsectors ? nsectors - 1 : 0, ent_sectors;
	int rc;

	memset(c, 0, sizeof(*c));
	c->lba = lba;
	if (lba >= nsectors) {
		snprintf(c->why, sizeof(c->why), "LBA %" PRIu64 " lies past the end of the disk", lba);
		return;
	}
	buf = ap_xmalloc(ss);
	rc = ap_ptable_read_at(fd, buf, ss, lba * ss);
	if (rc) {
		snprintf(c->why, sizeof(c->why), "unreadable: %s", strerror(-rc));
		free(buf);
		return;
	}
	rc = ap_gpt_header_parse(buf, ss, &c->h);
	if (rc == -ENOENT) {
		free(buf);
		snprintf(c->why, sizeof(c->why), "no GPT signature");
		return;
	}
	c->present = true;
	if (rc) {
		c->array_bad = header_problem(buf, &c->h, ss, c->why, sizeof(c->why));
		free(buf);
		return;
	}
	free(buf);
	c->header_ok = true;
	if (c->h.my_lba != lba) {
		snprintf(c->why, sizeof(c->why), "the header says it is at LBA %" PRIu64, c->h.my_lba);
		return;
	}
	if (c->h.last_usable < c->h.first_usable || c->h.first_usable > last ||
	    c->h.last_usable > last) {
		snprintf(c->why, sizeof(c->why), "usable LBAs %" PRIu64 "-%" PRIu64
			 " do not fit the disk's %" PRIu64 " sectors", c->h.first_usable,
			 c->h.last_usable, nsectors);
		return;
	}
	c->entsz = ap_gpt_entries_size(&c->h);
	ent_sectors = (c->entsz + ss - 1) / ss;
	if (c->h.entries_lba >= nsectors || ent_sectors > nsectors - c->h.entries_lba) {
		snprintf(c->why, sizeof(c->why), "the partition entry array at LBA %" PRIu64
			 " lies past the end of the disk", c->h.entries_lba);
		return;
	}
	c->ents = ap_xmalloc(c->entsz);
	rc = ap_ptable_read_at(fd, c->ents, c->entsz, c->h.entries_lba * ss);
	if (rc) {
		snprintf(c->why, sizeof(c->why), "partition entries unreadable: %s", strerror(-rc));
		return;
	}
	if (ap_ptable_crc32(c->ents, c->entsz) != c->h.entries_crc) {
		snprintf(c->why, sizeof(c->why), "bad partition entry array CRC");
		return;
	}
	c->valid = true;
}

static void gpt_copy_free(struct gpt_copy *c)
{
	free(c->ents);
	c->ents = NULL;
}

static void describe_entry(const struct gpt_copy *c, uint32_t i, char *out, size_t outsz)
{
	static const uint8_t zero[16];
	const uint8_t *e = c->ents + (size_t)i * c->h.entry_size;

	if (memcmp(e, zero, 16) == 0)
		snprintf(out, outsz, "unused");
	else
		snprintf(out, outsz, "sectors %" PRIu64 "-%" PRIu64, le64(e + 32), le64(e + 40));
}

/* Both copies valid: do they say the same? */
static void gpt_compare(struct ap_ptable *pt, const struct gpt_copy *p, const struct gpt_copy *b)
{
	const char *what = NULL;
	uint32_t i;

	if (memcmp(p->h.disk_guid, b->h.disk_guid, 16) != 0)
		what = "disk GUID";
	else if (p->h.first_usable != b->h.first_usable)
		what = "first usable LBA";
	else if (p->h.last_usable != b->h.last_usable)
		what = "last usable LBA";
	else if (p->h.nentries != b->h.nentries || p->h.entry_size != b->h.entry_size)
		what = "size of the partition entry array";
	else if (b->h.alternate_lba != p->lba)
		what = "position of the other header";
	if (what) {
		ap_ptable_add_issue(pt, AP_PT_GPT_MISMATCH, -1,
				    "the primary GPT (LBA %" PRIu64 ") and the backup GPT (LBA %"
				    PRIu64 ") disagree: %s differs", p->lba, b->lba, what);
		return;
	}
	if (p->entsz == b->entsz && memcmp(p->ents, b->ents, p->entsz) == 0)
		return;
	for (i = 0; i < p->h.nentries; i++) {
		size_t off = (size_t)i * p->h.entry_size;

		if (memcmp(p->ents + off, b->ents + off, p->h.entry_size) != 0) {
			char a[64], z[64];

			describe_entry(p, i, a, sizeof(a));
			describe_entry(b, i, z, sizeof(z));
			ap_ptable_add_issue(pt, AP_PT_GPT_MISMATCH, (long)i,
					    "the primary GPT (LBA %" PRIu64 ") and the backup GPT (LBA %"
					    PRIu64 ") disagree: partition entry %u is %s in the primary, "
					    "%s in the backup", p->lba, b->lba, i + 1, a, z);
			return;
		}
	}
}

/* The protective MBR's 0xee entry: warn when it does not cover the disk. */
static void check_pmbr_size(struct ap_ptable *pt, int fd)
{
	uint8_t mbr[512];
	uint64_t want = pt->nsectors - 1;
	int i;

	if (ap_ptable_read_at(fd, mbr, sizeof(mbr), 0))
		return;
	if (want > UINT32_MAX)
		want = UINT32_MAX;
	for (i = 0; i < 4; i++) {
		const uint8_t *e = mbr + 446 + 16 * i;

		if (e[4] == 0xee && le32(e + 12) != want) {
			ap_ptable_add_issue(pt, AP_PT_PMBR_SIZE, -1,
					    "the protective MBR covers %" PRIu32 " sectors, the disk "
					    "has %" PRIu64 " after the MBR", le32(e + 12), want);
			return;
		}
	}
}

/*
 * A hybrid MBR's entries (other than 0xee) are what a tool reading the MBR
 * sees: each must be a partition of the GPT, start and size, or the two
 * tables describe different disks (and the MBR's start is judged nowhere).
 */
static void hybrid_check(struct ap_ptable *pt, int fd)
{
	uint8_t mbr[512];
	size_t j;
	int i;

	if (ap_ptable_read_at(fd, mbr, sizeof(mbr), 0))
		return;
	for (i = 0; i < 4; i++) {
		const uint8_t *e = mbr + 446 + 16 * i;
		uint64_t start = le32(e + 8), size = le32(e + 12);
		bool found = false;

		if (!e[4] || e[4] == 0xee || !size)
			continue;
		for (j = 0; j < pt->nparts && !found; j++)
			found = pt->parts[j].start == start && pt->parts[j].size == size;
		if (!found)
			ap_ptable_add_issue(pt, AP_PT_HYBRID_MISMATCH, -1,
					    "the hybrid MBR's partition %d (sectors %" PRIu64 "-%" PRIu64
					    ", type 0x%02x) is no partition of the GPT: tools that read "
					    "the MBR see a partition the GPT does not have", i + 1, start,
					    start + size - 1, e[4]);
	}
}

bool ap_ptable_inspect_gpt(struct ap_ptable *pt, int fd, bool hybrid, uint32_t *nentries)
{
	struct gpt_copy p, b;
	uint64_t blba;
	bool usable = true;

	gpt_copy_read(fd, pt->sector_size, pt->nsectors, 1, &p);
	blba = p.header_ok ? p.h.alternate_lba : pt->nsectors - 1;
	gpt_copy_read(fd, pt->sector_size, pt->nsectors, blba, &b);
	if (!p.valid && b.valid) {
		pt->backup_used = true;
		ap_ptable_add_issue(pt, AP_PT_PRIMARY_CORRUPT, -1,
				    "the primary GPT at LBA 1 is corrupt (%s); the table was read "
				    "from the backup GPT at LBA %" PRIu64, p.why, b.lba);
	} else if (p.valid && !b.valid) {
		ap_ptable_add_issue(pt, AP_PT_BACKUP_CORRUPT, -1,
				    "the backup GPT at LBA %" PRIu64 " is corrupt or missing (%s); "
				    "the primary GPT was used", b.lba, b.why);
	} else if (p.valid && b.valid) {
		gpt_compare(pt, &p, &b);
		if (p.h.alternate_lba != pt->nsectors - 1)
			ap_ptable_add_issue(pt, AP_PT_BACKUP_NOT_AT_END, -1,
					    "the backup GPT is at LBA %" PRIu64 ", not on the last LBA %"
					    PRIu64 " (the disk grew since the table was written?)",
					    p.h.alternate_lba, pt->nsectors - 1);
	} else {
		/* libfdisk accepted what the raw checks reject: say both, and
		 * list nothing read through a rejected header */
		ap_ptable_add_issue(pt, AP_PT_GPT_CORRUPT, -1,
				    "the GPT fails the consistency checks, no partition is listed "
				    "from it: primary at LBA 1: %s; backup at LBA %" PRIu64 ": %s",
				    p.why, b.lba, b.why);
		usable = false;
	}
	*nentries = p.valid ? p.h.nentries : b.h.nentries;
	if (usable && (p.valid ? p.h.entry_size : b.h.entry_size) != GPT_ENTRY_MIN)
		ap_ptable_add_issue(pt, AP_PT_GPT_CORRUPT, -1,
				    "partition entries of %" PRIu32 " bytes: UEFI allows them, but the "
				    "Linux kernel reads only entries of %u bytes and sees no partition "
				    "of this GPT", p.valid ? p.h.entry_size : b.h.entry_size,
				    GPT_ENTRY_MIN);
	gpt_copy_free(&p);
	gpt_copy_free(&b);
	if (hybrid) {
		ap_ptable_add_issue(pt, AP_PT_HYBRID_MBR, -1,
				    "the MBR is a hybrid MBR: other tools may see other partitions");
		hybrid_check(pt, fd);
	}
	check_pmbr_size(pt, fd);
	return usable;
}

bool ap_ptable_gpt_array_bad(struct ap_ptable *pt, int fd)
{
	struct gpt_copy p, b;
	bool bad;

	gpt_copy_read(fd, pt->sector_size, pt->nsectors, 1, &p);
	bad = p.array_bad;
	if (bad) {
		gpt_copy_read(fd, pt->sector_size, pt->nsectors, pt->nsectors - 1, &b);
		bad = !b.valid;
		if (bad)
			ap_ptable_add_issue(pt, AP_PT_GPT_CORRUPT, -1,
					    "the GPT is unusable, no partition is listed from it: "
					    "primary at LBA 1: %s; backup at the last LBA %" PRIu64
					    ": %s", p.why, b.lba, b.why);
		gpt_copy_free(&b);
	}
	gpt_copy_free(&p);
	return bad;
}

bool ap_ptable_gpt_at_lba1(const struct ap_ptable *pt, int fd)
{
	struct gpt_copy p;
	bool present;

	gpt_copy_read(fd, pt->sector_size, pt->nsectors, 1, &p);
	present = p.present;
	gpt_copy_free(&p);
	return present;
}

/*
 * libfdisk found an MBR holding a GPT-type (0xee) partition but no usable
 * GPT: tell a truncated disk, a corrupt GPT and a missing one apart.
 */
void ap_ptable_diagnose_pmbr(struct ap_ptable *pt, int fd)
{
	struct gpt_copy p, b;

	gpt_copy_read(fd, pt->sector_size, pt->nsectors, 1, &p);
	gpt_copy_read(fd, pt->sector_size, pt->nsectors, pt->nsectors - 1, &b);
	if (p.header_ok && (p.h.alternate_lba >= pt->nsectors ||
			    p.h.last_usable >= pt->nsectors)) {
		uint64_t need = (p.h.alternate_lba > p.h.last_usable ? p.h.alternate_lba
				 : p.h.last_usable) + 1;

		ap_ptable_add_issue(pt, AP_PT_GPT_TRUNCATED, -1,
				    "the GPT at LBA 1 describes a disk of %" PRIu64 " sectors "
				    "(backup GPT at LBA %" PRIu64 ", last usable LBA %" PRIu64 "), "
				    "but this one has only %" PRIu64 ": the image is truncated or "
				    "the disk shrank, and partitions may lie past its end",
				    need, p.h.alternate_lba, p.h.last_usable, pt->nsectors);
	} else if (p.present || b.present) {
		ap_ptable_add_issue(pt, AP_PT_GPT_CORRUPT, -1,
				    "the GPT is corrupt: primary at LBA 1: %s; backup at the last "
				    "LBA %" PRIu64 ": %s", p.why, b.lba, b.why);
	} else if (!ap_ptable_foreign_gpt(pt, fd)) {
		ap_ptable_add_issue(pt, AP_PT_PMBR_NO_GPT, -1,
				    "a protective MBR (partition type 0xee) but no GPT header, "
				    "neither at LBA 1 nor at the last LBA %" PRIu64, b.lba);
	}
	gpt_copy_free(&p);
	gpt_copy_free(&b);
}

