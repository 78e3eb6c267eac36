// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Partition tables through libfdisk, read-only, plus the checks libfdisk
 * does not report structurally (see ptable.h).
 */
#include "device/ptable.h"
#include "device/ptable_priv.h"
#include "lib/blkdev.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>
#include <libfdisk/libfdisk.h>

#define GPT_SIGNATURE		"EFI PART"
#define GPT_HEADER_MIN		92
#define GPT_ENTRIES_MAX		(4u << 20)
#define GPT_ENTRY_MIN		128
#define FDISK_MSGS_MAX		64

/* ---- issues ---- */

static const struct {
	const char *name;
	bool error;
} kinds[] = {
	[AP_PT_NO_TABLE]	  = { "no_table", true },
	[AP_PT_TOO_SMALL]	  = { "too_small", true },
	[AP_PT_PRIMARY_CORRUPT]	  = { "primary_gpt_corrupt", true },
	[AP_PT_BACKUP_CORRUPT]	  = { "backup_gpt_corrupt", true },
	[AP_PT_GPT_MISMATCH]	  = { "gpt_mismatch", true },
	[AP_PT_GPT_TRUNCATED]	  = { "gpt_truncated", true },
	[AP_PT_GPT_CORRUPT]	  = { "gpt_corrupt", true },
	[AP_PT_PMBR_NO_GPT]	  = { "pmbr_without_gpt", true },
	[AP_PT_GPT_NO_PMBR]	  = { "gpt_without_pmbr", true },
	[AP_PT_BAD_EXTENT]	  = { "bad_extent", true },
	[AP_PT_OVERLAP]		  = { "overlap", true },
	[AP_PT_PAST_END]	  = { "past_end", true },
	[AP_PT_OUTSIDE_USABLE]	  = { "outside_usable", true },
	[AP_PT_LOGICAL_OUTSIDE]	  = { "logical_outside_extended", true },
	[AP_PT_FOREIGN_SECTOR]	  = { "foreign_sector_size", true },
	[AP_PT_VERIFY]		  = { "verify", false },
	[AP_PT_BACKUP_NOT_AT_END] = { "backup_not_at_end", false },
	[AP_PT_HYBRID_MBR]	  = { "hybrid_mbr", false },
	[AP_PT_PARTIAL_SECTOR]	  = { "partial_sector", false },
	[AP_PT_PMBR_SIZE]	  = { "pmbr_size", false },
	[AP_PT_TOO_MANY]	  = { "too_many_issues", false },
};

bool ap_pt_kind_is_error(enum ap_pt_kind kind)
{
	return (size_t)kind < AP_ARRAY_SIZE(kinds) && kinds[kind].error;
}

const char *ap_pt_kind_name(enum ap_pt_kind kind)
{
	if ((size_t)kind < AP_ARRAY_SIZE(kinds) && kinds[kind].name)
		return kinds[kind].name;
	return "unknown";
}

void ap_ptable_add_issue(struct ap_ptable *pt, enum ap_pt_kind kind, long partno,
			 const char *fmt, ...)
{
	struct ap_pt_issue *is;
	va_list ap;

	if (pt->nissues > AP_PT_MAX_ISSUES)
		return;
	pt->issues = ap_xreallocarray(pt->issues, pt->nissues + 1, sizeof(*pt->issues));
	is = &pt->issues[pt->nissues++];
	memset(is, 0, sizeof(*is));
	if (pt->nissues > AP_PT_MAX_ISSUES) {
		is->kind = AP_PT_TOO_MANY;
		is->error = false;
		is->partno = -1;
		snprintf(is->msg, sizeof(is->msg), "more issues were found; only the first %d are listed",
			 AP_PT_MAX_ISSUES);
		return;
	}
	is->kind = kind;
	is->error = ap_pt_kind_is_error(kind);
	is->partno = partno;
	va_start(ap, fmt);
	vsnprintf(is->msg, sizeof(is->msg), fmt, ap);
	va_end(ap);
}

size_t ap_ptable_nerrors(const struct ap_ptable *pt)
{
	size_t i, n = 0;

	for (i = 0; i < pt->nissues; i++)
		if (pt->issues[i].error)
			n++;
	return n;
}

const struct ap_part *ap_ptable_part(const struct ap_ptable *pt, size_t partno)
{
	size_t i;

	for (i = 0; i < pt->nparts; i++)
		if (pt->parts[i].partno == partno)
			return &pt->parts[i];
	return NULL;
}

static void free_parts(struct ap_ptable *pt)
{
	size_t i;

	for (i = 0; i < pt->nparts; i++) {
		free(pt->parts[i].type);
		free(pt->parts[i].typecode);
		free(pt->parts[i].name);
		free(pt->parts[i].uuid);
	}
	free(pt->parts);
	pt->parts = NULL;
	pt->nparts = 0;
}

void ap_ptable_free(struct ap_ptable *pt)
{
	size_t i;

	if (!pt)
		return;
	free_parts(pt);
	for (i = 0; i < pt->nfdisk_msgs; i++)
		free(pt->fdisk_msgs[i]);
	free(pt->fdisk_msgs);
	for (i = 0; i < pt->nforeign_evidence; i++)
		free(pt->foreign_evidence[i]);
	free(pt->foreign_evidence);
	free(pt->foreign_label);
	free(pt->issues);
	free(pt->path);
	free(pt->label);
	free(pt->id);
	memset(pt, 0, sizeof(*pt));
}

/* ---- validation over the partition list (pure) ---- */

static uint64_t part_end(const struct ap_part *p)
{
	return p->start + p->size - 1;
}

static bool extent_ok(const struct ap_part *p)
{
	return p->size > 0 && p->start <= UINT64_MAX - (p->size - 1);
}

static int cmp_start(const void *a, const void *b)
{
	const struct ap_part *x = *(const struct ap_part *const *)a;
	const struct ap_part *y = *(const struct ap_part *const *)b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->partno < y->partno ? -1 : x->partno > y->partno;
}

/* An extended partition and the logical partitions it holds share sectors by design. */
static bool nesting(const struct ap_part *a, const struct ap_part *b)
{
	return (a->container && b->logical) || (b->container && a->logical);
}

void ap_ptable_validate(struct ap_ptable *pt)
{
	bool dos = pt->label && strcmp(pt->label, "dos") == 0;
	bool gpt = pt->label && strcmp(pt->label, "gpt") == 0;
	const struct ap_part *ext = NULL;
	struct ap_part **v;
	size_t i, j, n = 0;

	for (i = 0; i < pt->nparts; i++) {
		const struct ap_part *p = &pt->parts[i];
		size_t nr = p->partno + 1;

		if (!extent_ok(p)) {
			ap_ptable_add_issue(pt, AP_PT_BAD_EXTENT, (long)p->partno,
					    "partition %zu has an invalid extent (start %" PRIu64
					    ", %" PRIu64 " sectors)", nr, p->start, p->size);
			continue;
		}
		if (part_end(p) >= pt->nsectors) {
			/* a table for another sector size: its evidence says why,
			 * and nothing was truncated */
			if (!pt->foreign_sector_size)
				ap_ptable_add_issue(pt, AP_PT_PAST_END, (long)p->partno,
						    "partition %zu (sectors %" PRIu64 "-%" PRIu64 ") ends "
						    "past the end of the disk (%" PRIu64 " sectors): the image "
						    "is truncated or the disk shrank", nr, p->start,
						    part_end(p), pt->nsectors);
		} else if (gpt && p->start < pt->first_usable)
			ap_ptable_add_issue(pt, AP_PT_OUTSIDE_USABLE, (long)p->partno,
					    "partition %zu starts at %" PRIu64 ", before the first usable "
					    "LBA %" PRIu64 " (inside the GPT)", nr, p->start,
					    pt->first_usable);
		else if (gpt && part_end(p) > pt->last_usable)
			ap_ptable_add_issue(pt, AP_PT_OUTSIDE_USABLE, (long)p->partno,
					    "partition %zu ends at %" PRIu64 ", past the last usable LBA %"
					    PRIu64 " (inside the backup GPT)", nr, part_end(p),
					    pt->last_usable);
		if (dos && p->start == 0)
			ap_ptable_add_issue(pt, AP_PT_OUTSIDE_USABLE, (long)p->partno,
					    "partition %zu starts at sector 0, on the MBR itself", nr);
		if (p->container && !ext)
			ext = p;
		n++;
	}

	if (dos && ext && extent_ok(ext)) {
		for (i = 0; i < pt->nparts; i++) {
			const struct ap_part *p = &pt->parts[i];

			if (!p->logical || !extent_ok(p))
				continue;
			if (p->start <= ext->start || part_end(p) > part_end(ext))
				ap_ptable_add_issue(pt, AP_PT_LOGICAL_OUTSIDE, (long)p->partno,
						    "logical partition %zu (sectors %" PRIu64 "-%" PRIu64
						    ") lies outside its extended partition %zu (sectors %"
						    PRIu64 "-%" PRIu64 ")", p->partno + 1, p->start,
						    part_end(p), ext->partno + 1, ext->start, part_end(ext));
		}
	}

	/* overlaps: sort by start, compare each with the ones starting inside it */
	if (n < 2)
		return;
	v = ap_xcalloc(n, sizeof(*v));
	for (i = 0, j = 0; i < pt->nparts; i++)
		if (extent_ok(&pt->parts[i]))
			v[j++] = &pt->parts[i];
	n = j;
	qsort(v, n, sizeof(*v), cmp_start);
	for (i = 0; i < n && pt->nissues <= AP_PT_MAX_ISSUES; i++) {
		uint64_t end = part_end(v[i]);

		for (j = i + 1; j < n && v[j]->start <= end; j++) {
			uint64_t oe;

			if (nesting(v[i], v[j]))
				continue;
			oe = end < part_end(v[j]) ? end : part_end(v[j]);
			ap_ptable_add_issue(pt, AP_PT_OVERLAP, (long)v[j]->partno,
					    "partitions %zu and %zu overlap (sectors %" PRIu64 "-%"
					    PRIu64 ")", v[i]->partno + 1, v[j]->partno + 1,
					    v[j]->start, oe);
			if (pt->nissues > AP_PT_MAX_ISSUES)
				break;
		}
	}
	free(v);
}

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

/* One copy of the GPT as found on disk. */
struct gpt_copy {
	uint64_t lba;
	bool present;		/* "EFI PART" signature found */
	bool header_ok;		/* signature and header CRC */
	bool valid;		/* everything libfdisk checks, entries CRC included */
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
	free(buf);
	if (rc == -ENOENT) {
		snprintf(c->why, sizeof(c->why), "no GPT signature");
		return;
	}
	c->present = true;
	if (rc) {
		snprintf(c->why, sizeof(c->why), "bad header CRC or header size");
		return;
	}
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

static void inspect_gpt(struct ap_ptable *pt, int fd, struct fdisk_context *cxt)
{
	struct gpt_copy p, b;
	uint64_t blba;

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
		/* libfdisk accepted what the raw checks reject: say both */
		ap_ptable_add_issue(pt, AP_PT_GPT_CORRUPT, -1,
				    "the GPT fails the consistency checks: primary at LBA 1: %s; "
				    "backup at LBA %" PRIu64 ": %s", p.why, b.lba, b.why);
	}
	gpt_copy_free(&p);
	gpt_copy_free(&b);
	if (fdisk_gpt_is_hybrid(cxt))
		ap_ptable_add_issue(pt, AP_PT_HYBRID_MBR, -1,
				    "the MBR is a hybrid MBR: other tools may see other partitions");
	check_pmbr_size(pt, fd);
}

/*
 * libfdisk found an MBR holding a GPT-type (0xee) partition but no usable
 * GPT: tell a truncated disk, a corrupt GPT and a missing one apart.
 */
static void diagnose_pmbr(struct ap_ptable *pt, int fd)
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

/* ---- libfdisk ---- */

/*
 * libfdisk words some findings for fdisk, which writes: "GPT PMBR size
 * mismatch (8191 != 65535) will be corrected by write." Nothing here
 * writes, so that promise is dropped; the finding stays.
 */
static char *fdisk_msg_text(const char *msg)
{
	static const char *const promises[] = { " This problem will be corrected by write.",
						" will be corrected by write." };
	size_t n = strlen(msg), i, k;

	for (i = 0; i < AP_ARRAY_SIZE(promises); i++) {
		k = strlen(promises[i]);
		if (n > k && !strcmp(msg + n - k, promises[i]))
			return ap_xstrndup(msg, n - k);
	}
	return ap_xstrdup(msg);
}

static void add_fdisk_msg(struct ap_ptable *pt, const char *msg, int err)
{
	char *s;

	if (!msg || pt->nfdisk_msgs >= FDISK_MSGS_MAX)
		return;
	s = fdisk_msg_text(msg);
	if (err) {
		char *t = s;

		ap_xasprintf(&s, "%s: %s", t, strerror(err));
		free(t);
	}
	pt->fdisk_msgs = ap_xreallocarray(pt->fdisk_msgs, pt->nfdisk_msgs + 1,
					  sizeof(*pt->fdisk_msgs));
	pt->fdisk_msgs[pt->nfdisk_msgs++] = s;
}

/* libfdisk's dialogs: keep warnings, answer "no", never prompt. */
static int ask_cb(struct fdisk_context *cxt, struct fdisk_ask *ask, void *data)
{
	struct ap_ptable *pt = data;

	(void)cxt;
	switch (fdisk_ask_get_type(ask)) {
	case FDISK_ASKTYPE_WARN:
		add_fdisk_msg(pt, fdisk_ask_print_get_mesg(ask), fdisk_ask_print_get_errno(ask));
		return 0;
	case FDISK_ASKTYPE_WARNX:
		add_fdisk_msg(pt, fdisk_ask_print_get_mesg(ask), 0);
		return 0;
	case FDISK_ASKTYPE_INFO:
		return 0;	/* verification summaries, free space */
	case FDISK_ASKTYPE_YESNO:
		fdisk_ask_yesno_set_result(ask, 0);
		return 0;
	default:
		return -EINVAL;	/* a question: we never ask anybody */
	}
}

static char *xstrdup_or_null(const char *s)
{
	return s && *s ? ap_xstrdup(s) : NULL;
}

static int collect_partitions(struct ap_ptable *pt, struct fdisk_context *cxt,
			      struct ap_error *e)
{
	struct fdisk_table *tb = NULL;
	struct fdisk_iter *itr;
	struct fdisk_partition *pa;
	bool dos = strcmp(pt->label, "dos") == 0;
	int rc;

	rc = fdisk_get_partitions(cxt, &tb);
	if (rc)
		return ap_error_set(e, -rc, "%s: cannot list the partitions: %s", pt->path,
				    strerror(-rc));
	itr = fdisk_new_iter(FDISK_ITER_FORWARD);
	if (!itr) {
		fdisk_unref_table(tb);
		return ap_error_set(e, ENOMEM, "out of memory");
	}
	pt->parts = ap_xcalloc(fdisk_table_get_nents(tb) + 1, sizeof(*pt->parts));
	while (fdisk_table_next_partition(tb, itr, &pa) == 0) {
		struct ap_part *p = &pt->parts[pt->nparts];
		struct fdisk_parttype *t = fdisk_partition_get_type(pa);

		if (!fdisk_partition_has_partno(pa))
			continue;
		p->partno = fdisk_partition_get_partno(pa);
		p->start = fdisk_partition_has_start(pa) ? fdisk_partition_get_start(pa) : 0;
		p->size = fdisk_partition_has_size(pa) ? fdisk_partition_get_size(pa) : 0;
		p->container = fdisk_partition_is_container(pa);
		p->logical = dos && p->partno >= 4;
		if (t) {
			const char *code = fdisk_parttype_get_string(t);

			p->type = xstrdup_or_null(fdisk_parttype_get_name(t));
			if (code)
				p->typecode = ap_xstrdup(code);
			else
				ap_xasprintf(&p->typecode, "%x", fdisk_parttype_get_code(t));
		}
		p->name = xstrdup_or_null(fdisk_partition_get_name(pa));
		p->uuid = xstrdup_or_null(fdisk_partition_get_uuid(pa));
		pt->nparts++;
	}
	fdisk_free_iter(itr);
	fdisk_unref_table(tb);
	return 0;
}

static bool has_pmbr_entry(const struct ap_ptable *pt)
{
	size_t i;

	for (i = 0; i < pt->nparts; i++)
		if (pt->parts[i].typecode && strcmp(pt->parts[i].typecode, "ee") == 0)
			return true;
	return false;
}

static uint64_t label_item(struct fdisk_context *cxt, int id, uint64_t dflt)
{
	struct fdisk_labelitem *li = fdisk_new_labelitem();
	uint64_t v = dflt;

	if (!li)
		return dflt;
	if (fdisk_get_disklabel_item(cxt, id, li) == 0 &&
	    fdisk_labelitem_get_data_u64(li, &v) != 0)
		v = dflt;
	fdisk_unref_labelitem(li);
	return v;
}

static int examine_file(struct ap_ptable *pt, int fd, const struct ap_ptable_opts *o,
			struct ap_error *e)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return ap_error_set(e, errno, "%s: %s", pt->path, strerror(errno));
	if (S_ISBLK(st.st_mode)) {
		uint64_t sz;
		unsigned ss;
		int rc;

		pt->is_blockdev = true;
		rc = ap_blkdev_get_sizes(fd, &sz, NULL, NULL);
		if (rc)
			return ap_error_set(e, -rc, "%s: cannot get the size: %s", pt->path,
					    strerror(-rc));
		rc = ap_blkdev_get_sizes(fd, NULL, &ss, NULL);
		if (rc || ss < 512)
			return ap_error_set(e, rc ? -rc : EINVAL,
					    "%s: cannot get the sector size", pt->path);
		if (o && o->sector_size && ss != o->sector_size)
			return ap_error_set(e, EINVAL, "%s: a block device with %u-byte "
					    "sectors; --sector-size applies to image files", pt->path, ss);
		pt->size_bytes = sz;
		pt->sector_size = ss;
	} else if (S_ISREG(st.st_mode)) {
		pt->size_bytes = (uint64_t)st.st_size;
		pt->sector_size = o && o->sector_size ? o->sector_size : 512;
	} else if (S_ISDIR(st.st_mode)) {
		return ap_error_set(e, EISDIR, "%s: is a directory, not a disk or an image file",
				    pt->path);
	} else {
		return ap_error_set(e, ENODEV, "%s: neither a block device nor an image file",
				    pt->path);
	}
	pt->nsectors = pt->size_bytes / pt->sector_size;
	return 0;
}

int ap_ptable_read(const char *path, const struct ap_ptable_opts *o,
		   struct ap_ptable *pt, struct ap_error *e)
{
	struct fdisk_context *cxt = NULL;
	struct fdisk_label *lb;
	char *id = NULL;
	size_t nmsgs;
	int fd, rc, nverify;

	memset(pt, 0, sizeof(*pt));
	pt->path = ap_xstrdup(path);
	if (o && o->sector_size && (o->sector_size < 512 || o->sector_size > 65536 ||
				    !ap_is_power_of_2(o->sector_size)))
		return ap_error_set(e, EINVAL, "sector size %u is not a power of two in 512..65536",
				    o->sector_size);

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return ap_error_set(e, errno, "%s: %s", path, strerror(errno));
	rc = examine_file(pt, fd, o, e);
	if (rc)
		goto out;

	if (pt->size_bytes < pt->sector_size) {
		ap_ptable_add_issue(pt, AP_PT_TOO_SMALL, -1,
				    "%" PRIu64 " bytes, smaller than one %u-byte sector: too small "
				    "to hold a partition table", pt->size_bytes, pt->sector_size);
		goto out;
	}
	if (pt->size_bytes % pt->sector_size)
		ap_ptable_add_issue(pt, AP_PT_PARTIAL_SECTOR, -1,
				    "the size, %" PRIu64 " bytes, is not a multiple of the %u-byte "
				    "sector; the last %" PRIu64 " bytes are ignored", pt->size_bytes,
				    pt->sector_size, pt->size_bytes % pt->sector_size);

	cxt = fdisk_new_context();
	if (!cxt) {
		rc = ap_error_set(e, ENOMEM, "out of memory");
		goto out;
	}
	fdisk_set_ask(cxt, ask_cb, pt);
	if (!pt->is_blockdev && pt->sector_size != 512)
		fdisk_save_user_sector_size(cxt, pt->sector_size, pt->sector_size);
	rc = fdisk_assign_device_by_fd(cxt, fd, path, 1);
	if (rc) {
		rc = ap_error_set(e, -rc, "%s: libfdisk cannot read it: %s", path, strerror(-rc));
		goto out;
	}
	pt->nsectors = fdisk_get_nsectors(cxt);
	if (pt->nsectors == 0) {
		ap_ptable_add_issue(pt, AP_PT_TOO_SMALL, -1, "no whole sector: too small to hold "
				    "a partition table");
		goto out;
	}

	if (!fdisk_has_label(cxt)) {
		struct gpt_copy p;

		gpt_copy_read(fd, pt->sector_size, pt->nsectors, 1, &p);
		if (p.present)
			ap_ptable_add_issue(pt, AP_PT_GPT_NO_PMBR, -1,
					    "a GPT header at LBA 1, but no protective MBR in sector 0: "
					    "the MBR was overwritten or never written");
		else if (!ap_ptable_foreign_gpt(pt, fd))
			ap_ptable_add_issue(pt, AP_PT_NO_TABLE, -1,
					    "no partition table (neither MBR nor GPT)");
		gpt_copy_free(&p);
		goto out;
	}

	lb = fdisk_get_label(cxt, NULL);
	pt->label = ap_xstrdup(fdisk_label_get_name(lb));
	if (fdisk_get_disklabel_id(cxt, &id) == 0 && id) {
		pt->id = ap_xstrdup(id);
		free(id);
	}
	if (fdisk_is_labeltype(cxt, FDISK_DISKLABEL_GPT)) {
		pt->first_usable = label_item(cxt, GPT_LABELITEM_FIRSTLBA, 34);
		pt->last_usable = label_item(cxt, GPT_LABELITEM_LASTLBA, pt->nsectors - 1);
	} else {
		pt->first_usable = 1;
		pt->last_usable = pt->nsectors - 1;
	}

	rc = collect_partitions(pt, cxt, e);
	if (rc)
		goto out;

	if (fdisk_is_labeltype(cxt, FDISK_DISKLABEL_GPT)) {
		inspect_gpt(pt, fd, cxt);
	} else if (fdisk_is_labeltype(cxt, FDISK_DISKLABEL_DOS) && has_pmbr_entry(pt)) {
		/* the GPT is unusable: its 0xee placeholder is no partition, and
		 * the MBR holding it is no partition table of its own */
		diagnose_pmbr(pt, fd);
		free_parts(pt);
		free(pt->label);
		free(pt->id);
		pt->label = pt->id = NULL;
		goto out;
	}

	if (fdisk_is_labeltype(cxt, FDISK_DISKLABEL_DOS))
		ap_ptable_foreign_dos(pt, fd);
	ap_ptable_validate(pt);

	nmsgs = pt->nfdisk_msgs;
	nverify = fdisk_verify_disklabel(cxt);
	/* what libfdisk finds beyond our checks (CHS consistency in DOS
	 * compatibility mode, ...) is worth a warning, not a verdict */
	if (nverify > 0 && pt->nissues == 0) {
		const char *first = pt->nfdisk_msgs > nmsgs ? pt->fdisk_msgs[nmsgs] : NULL;

		ap_ptable_add_issue(pt, AP_PT_VERIFY, -1, "libfdisk's verification found %d "
				    "problem%s%s%s", nverify, nverify > 1 ? "s" : "",
				    first ? ": " : "", first ? first : "");
	}
	rc = 0;
out:
	if (cxt)
		fdisk_unref_context(cxt);
	close(fd);
	return rc;
}
