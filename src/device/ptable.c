// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Partition tables through libfdisk, read-only, plus the checks libfdisk
 * does not report structurally (see ptable.h).
 */
#include "device/ptable.h"
#include "device/ptableP.h"
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
	[AP_PT_PARTLY_READ]	  = { "partly_read", true },
	[AP_PT_CRASHED]		  = { "reader_crashed", true },
	[AP_PT_UNREAD_LABEL]	  = { "unread_label", true },
	[AP_PT_HYBRID_MISMATCH]	  = { "hybrid_mbr_mismatch", true },
	[AP_PT_LABEL_CORRUPT]	  = { "label_corrupt", true },
	[AP_PT_NESTED_OUTSIDE]	  = { "nested_outside_parent", true },
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
		if (pt->parts[i].partno == partno && !pt->parts[i].parent)
			return &pt->parts[i];
	return NULL;
}

const char *ap_part_nr(const struct ap_part *p, char *buf, size_t sz)
{
	if (p->parent && p->partno < 26)
		snprintf(buf, sz, "%u%c", p->parent, (char)('a' + p->partno));
	else if (p->parent)
		snprintf(buf, sz, "%u:%zu", p->parent, p->partno + 1);
	else
		snprintf(buf, sz, "%zu", p->partno + 1);
	return buf;
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
	free(pt->reader);
	free(pt->whole_disk);
	free(pt->whole_disk_usage);
	free(pt->id);
	memset(pt, 0, sizeof(*pt));
}

const char *ap_part_role_name(enum ap_part_role role)
{
	switch (role) {
	case AP_PART_WHOLE_DISK:
		return "the whole-disk entry";
	case AP_PART_VOLUME_HEADER:
		return "the volume header";
	case AP_PART_MAP:
		return "the partition map's own entry";
	default:
		return NULL;
	}
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

/*
 * An extended partition and the logical partitions it holds share sectors
 * by design, and so do a DOS partition and the partitions of the label
 * nested in it.
 */
static bool nesting(const struct ap_part *a, const struct ap_part *b)
{
	return (a->container && b->logical) || (b->container && a->logical) ||
	       (b->parent && !a->parent && a->partno + 1 == b->parent) ||
	       (a->parent && !b->parent && b->partno + 1 == a->parent);
}

/* The issues' partition of a nested partition: the DOS partition holding its label. */
static long issue_partno(const struct ap_part *p)
{
	return p->parent ? (long)p->parent - 1 : (long)p->partno;
}

/* The partitions of a nested label lie inside the DOS partition holding it. */
static void validate_nested(struct ap_ptable *pt)
{
	size_t i;

	for (i = 0; i < pt->nparts; i++) {
		const struct ap_part *p = &pt->parts[i], *dos;
		char nr[AP_PART_NR_MAX];

		if (!p->parent || !extent_ok(p))
			continue;
		dos = ap_ptable_part(pt, p->parent - 1);
		if (dos && extent_ok(dos) && p->start >= dos->start && part_end(p) <= part_end(dos))
			continue;
		ap_ptable_add_issue(pt, AP_PT_NESTED_OUTSIDE, issue_partno(p),
				    "partition %s (sectors %" PRIu64 "-%" PRIu64 ") of the label "
				    "nested in partition %u lies outside it", ap_part_nr(p, nr, sizeof(nr)),
				    p->start, part_end(p), p->parent);
	}
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
		char nr[AP_PART_NR_MAX];

		ap_part_nr(p, nr, sizeof(nr));
		if (!extent_ok(p)) {
			ap_ptable_add_issue(pt, AP_PT_BAD_EXTENT, issue_partno(p),
					    "partition %s has an invalid extent (start %" PRIu64
					    ", %" PRIu64 " sectors)", nr, p->start, p->size);
			continue;
		}
		if (part_end(p) >= pt->nsectors) {
			/* a table for another sector size: its evidence says why,
			 * and nothing was truncated */
			if (!pt->foreign_sector_size)
				ap_ptable_add_issue(pt, AP_PT_PAST_END, issue_partno(p),
						    "partition %s (sectors %" PRIu64 "-%" PRIu64 ") ends "
						    "past the end of the disk (%" PRIu64 " sectors): the image "
						    "is truncated or the disk shrank", nr, p->start,
						    part_end(p), pt->nsectors);
		} else if (gpt && p->start < pt->first_usable)
			ap_ptable_add_issue(pt, AP_PT_OUTSIDE_USABLE, (long)p->partno,
					    "partition %s starts at %" PRIu64 ", before the first usable "
					    "LBA %" PRIu64 " (inside the GPT)", nr, p->start,
					    pt->first_usable);
		else if (gpt && part_end(p) > pt->last_usable)
			ap_ptable_add_issue(pt, AP_PT_OUTSIDE_USABLE, (long)p->partno,
					    "partition %s ends at %" PRIu64 ", past the last usable LBA %"
					    PRIu64 " (inside the backup GPT)", nr, part_end(p),
					    pt->last_usable);
		if (dos && p->start == 0)
			ap_ptable_add_issue(pt, AP_PT_OUTSIDE_USABLE, (long)p->partno,
					    "partition %s starts at sector 0, on the MBR itself", nr);
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

	validate_nested(pt);

	/* overlaps: sort by start, compare each with the ones starting inside it */
	if (n < 2)
		return;
	v = ap_xcalloc(n, sizeof(*v));
	for (i = 0, j = 0; i < pt->nparts; i++)
		if (extent_ok(&pt->parts[i]) && pt->parts[i].role == AP_PART_DATA)
			v[j++] = &pt->parts[i];
	n = j;
	qsort(v, n, sizeof(*v), cmp_start);
	for (i = 0; i < n && pt->nissues <= AP_PT_MAX_ISSUES; i++) {
		uint64_t end = part_end(v[i]);

		for (j = i + 1; j < n && v[j]->start <= end; j++) {
			char a[AP_PART_NR_MAX], b[AP_PART_NR_MAX];
			uint64_t oe;

			if (nesting(v[i], v[j]))
				continue;
			oe = end < part_end(v[j]) ? end : part_end(v[j]);
			ap_ptable_add_issue(pt, AP_PT_OVERLAP, issue_partno(v[j]),
					    "partitions %s and %s overlap (sectors %" PRIu64 "-%"
					    PRIu64 ")", ap_part_nr(v[i], a, sizeof(a)),
					    ap_part_nr(v[j], b, sizeof(b)), v[j]->start, oe);
			if (pt->nissues > AP_PT_MAX_ISSUES)
				break;
		}
	}
	free(v);
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
						" will be corrected by write.",
						" They will be deleted if you save this partition table." };
	size_t n = strlen(msg), i, k;

	for (i = 0; i < AP_ARRAY_SIZE(promises); i++) {
		k = strlen(promises[i]);
		if (n > k && !strcmp(msg + n - k, promises[i]))
			return ap_xstrndup(msg, n - k);
	}
	return ap_xstrdup(msg);
}

/*
 * What libfdisk says when it stopped reading part of a table, or skipped
 * part of it (libfdisk/src/dos.c: read_extended() and read_pte(), in the C
 * locale the child reads in): the partitions listed are not all there are.
 */
static const char *const partly_read[] = {
	"Omitting partitions after #",		/* more than 60 partitions */
	"Failed to read extended partition table",	/* an EBR link off the disk */
	"Bad offset in primary extended partition",
	"Ignoring extra extended partition",	/* a second extended partition */
	"Extra link pointer in partition table",	/* a second EBR link */
	"Ignoring extra data in partition table",	/* a second EBR data entry */
};

/*
 * What libfdisk says of a label it reads anyway although it is corrupt
 * (sun.c, sgi.c: the kernel refuses such a label, so Linux sees none of
 * its partitions, and what libfdisk lists is what the damage left).
 */
static const char *const corrupt_label[] = {
	"Detected sun disklabel with wrong",	/* checksum, version, sanity, nparts */
	"Detected an SGI disklabel with wrong checksum",
};

static bool starts_with_any(const char *msg, const char *const *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strncmp(msg, v[i], strlen(v[i])) == 0)
			return true;
	return false;
}

static void add_fdisk_msg(struct ap_ptable *pt, const char *msg, int err)
{
	char *s;

	if (msg && starts_with_any(msg, partly_read, AP_ARRAY_SIZE(partly_read))) {
		char *t = fdisk_msg_text(msg);

		ap_ptable_add_issue(pt, AP_PT_PARTLY_READ, -1, "libfdisk read only part of the "
				    "table, the partitions listed are not all it holds: %s", t);
		free(t);
	} else if (msg && starts_with_any(msg, corrupt_label, AP_ARRAY_SIZE(corrupt_label))) {
		char *t = fdisk_msg_text(msg), *dot = strstr(t, ". ");

		if (dot)
			dot[1] = '\0';		/* the finding, not fdisk's advice */
		ap_ptable_add_issue(pt, AP_PT_LABEL_CORRUPT, -1, "the label is corrupt, the Linux "
				    "kernel reads none of its partitions: libfdisk: %s", t);
		free(t);
	}
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

/*
 * Entries that overlap the others by the label type's design: Sun's
 * whole-disk entry (tag 5, partition 3 by convention), SGI's volume header
 * (type 0) and volume (type 6, the entire disk), BSD's raw partition 'c'.
 */
static enum ap_part_role fdisk_role(const char *label, size_t partno, unsigned code)
{
	if (!strcmp(label, "sun") && code == 0x05)
		return AP_PART_WHOLE_DISK;
	if (!strcmp(label, "sgi") && code == 0x06)
		return AP_PART_WHOLE_DISK;
	if (!strcmp(label, "sgi") && code == 0x00)
		return AP_PART_VOLUME_HEADER;
	if (!strcmp(label, "bsd") && partno == 2)
		return AP_PART_WHOLE_DISK;
	return AP_PART_DATA;
}

/* DOS extended partition types (0x05 CHS, 0x0f LBA, 0x85 Linux). */
static bool dos_extended_type(unsigned code)
{
	return code == 0x05 || code == 0x0f || code == 0x85;
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
		/* a second extended partition (libfdisk ignores it, says so, and does
		 * not mark it): it holds no data itself either */
		if (dos && t && p->partno < 4 && dos_extended_type(fdisk_parttype_get_code(t)))
			p->container = true;
		p->logical = dos && p->partno >= 4;
		p->role = fdisk_role(pt->label, p->partno, t ? fdisk_parttype_get_code(t) : ~0u);
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

/*
 * Label types whose libfdisk verification is not run: SGI's crashes in
 * util-linux 2.38.1 (sfdisk --verify too) and says nothing ptable_validate
 * does not; a GPT's compares every pair of entries, quadratic in an entry
 * array that may hold 2^32 of them (the raw checks cover what it says).
 */
#define VERIFY_GPT_MAX_ENTRIES	1024

static bool verify_wanted(struct fdisk_context *cxt, uint32_t gpt_entries)
{
	if (fdisk_is_labeltype(cxt, FDISK_DISKLABEL_SGI))
		return false;
	if (fdisk_is_labeltype(cxt, FDISK_DISKLABEL_GPT))
		return gpt_entries <= VERIFY_GPT_MAX_ENTRIES;
	return true;
}

static void verify(struct ap_ptable *pt, struct fdisk_context *cxt)
{
	size_t nmsgs = pt->nfdisk_msgs;
	int nverify = fdisk_verify_disklabel(cxt);

	/* what libfdisk finds beyond our checks (CHS consistency in DOS
	 * compatibility mode, ...) is worth a warning, not a verdict */
	if (nverify > 0 && pt->nissues == 0) {
		const char *first = pt->nfdisk_msgs > nmsgs ? pt->fdisk_msgs[nmsgs] : NULL;

		ap_ptable_add_issue(pt, AP_PT_VERIFY, -1, "libfdisk's verification found %d "
				    "problem%s%s%s", nverify, nverify > 1 ? "s" : "",
				    first ? ": " : "", first ? first : "");
	}
}

static void drop_label(struct ap_ptable *pt)
{
	free_parts(pt);
	free(pt->label);
	free(pt->id);
	free(pt->reader);
	pt->label = pt->id = pt->reader = NULL;
}

/* The table libfdisk found: its partitions, the raw checks, validation. */
static int read_label(struct ap_ptable *pt, int fd, struct fdisk_context *cxt,
		      struct ap_error *e)
{
	uint32_t gpt_entries = 0;
	char *id = NULL;
	int rc;

	pt->label = ap_xstrdup(fdisk_label_get_name(fdisk_get_label(cxt, NULL)));
	pt->reader = ap_xstrdup("libfdisk");
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
		return rc;

	if (fdisk_is_labeltype(cxt, FDISK_DISKLABEL_GPT)) {
		if (!ap_ptable_inspect_gpt(pt, fd, fdisk_gpt_is_hybrid(cxt), &gpt_entries)) {
			free_parts(pt);
			return 0;
		}
	} else if (fdisk_is_labeltype(cxt, FDISK_DISKLABEL_DOS) && has_pmbr_entry(pt)) {
		/* the GPT is unusable: its 0xee placeholder is no partition, and
		 * the MBR holding it is no partition table of its own */
		ap_ptable_diagnose_pmbr(pt, fd);
		drop_label(pt);
		return 0;
	} else if (fdisk_is_labeltype(cxt, FDISK_DISKLABEL_DOS) && pt->nparts == 0 &&
		   (ap_ptable_unread_label(pt, fd) || ap_ptable_whole_disk(pt, fd))) {
		/* a boot signature, and another table's layout or a FAT file
		 * system's boot sector: no empty DOS table */
		drop_label(pt);
		return 0;
	}

	if (fdisk_is_labeltype(cxt, FDISK_DISKLABEL_DOS))
		ap_ptable_foreign_dos(pt, fd);
	if (fdisk_is_labeltype(cxt, FDISK_DISKLABEL_DOS) && !pt->foreign_sector_size)
		ap_ptable_read_nested(pt, fd, cxt);
	ap_ptable_validate(pt);
	if (verify_wanted(cxt, gpt_entries))
		verify(pt, cxt);
	return 0;
}

int ap_ptable_read(const char *path, const struct ap_ptable_opts *o,
		   struct ap_ptable *pt, struct ap_error *e)
{
	struct fdisk_context *cxt = NULL;
	int fd, rc;

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

	pt->nsectors = pt->size_bytes / pt->sector_size;
	if (ap_ptable_gpt_array_bad(pt, fd))
		goto out;

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

	if (fdisk_has_label(cxt)) {
		rc = read_label(pt, fd, cxt, e);
	} else if (ap_ptable_gpt_at_lba1(pt, fd)) {
		ap_ptable_add_issue(pt, AP_PT_GPT_NO_PMBR, -1,
				    "a GPT header at LBA 1, but no protective MBR in sector 0: "
				    "the MBR was overwritten or never written");
	} else if (!ap_ptable_foreign_gpt(pt, fd) && !ap_ptable_read_other(pt, fd)) {
		ap_ptable_add_issue(pt, AP_PT_NO_TABLE, -1,
				    "no partition table (neither MBR nor GPT, nor any type "
				    "libblkid reads) and no file system on the whole disk");
	}
out:
	if (cxt)
		fdisk_unref_context(cxt);
	close(fd);
	return rc;
}
