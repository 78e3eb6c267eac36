// SPDX-License-Identifier: GPL-2.0-or-later
/* Who a disk is (see identity.h). */
#include "device/identity.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <json-c/json.h>

#include "device/sgio.h"
#include "lib/blkdev.h"
#include "lib/json.h"
#include "lib/sysfs.h"

#define CONTENT_CHUNK	(64 * 1024)
#define MAX_REJECTED	4

/* ------------------------------------------------------------------ */
/* reading */

/* The first of @names under @dir that has a value. */
static char *attr_first(const char *dir, const char *const *names, size_t n)
{
	char *v = NULL;
	size_t i;

	for (i = 0; !v && i < n; i++)
		v = ap_sysfs_dir_attr(dir, names[i]);
	return v;
}

/* SCSI VPD page 80h as the kernel caches it (binary). */
static char *vpd_serial(const char *dir)
{
	uint8_t buf[256];
	char out[128], *p;
	size_t len;
	FILE *f;

	ap_xasprintf(&p, "%s/device/vpd_pg80", dir);
	f = fopen(p, "re");
	free(p);
	if (!f)
		return NULL;
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	if (ap_sgio_parse_vpd_serial(buf, len, out, sizeof(out)) != 0)
		return NULL;
	return ap_xstrdup(out);
}

/* The kernel's encoding of a dev_t in struct loop_info64 (huge_encode_dev). */
static void decode_kdev(uint64_t d, unsigned *ma, unsigned *mi)
{
	*ma = (unsigned)((d >> 8) & 0xfff);
	*mi = (unsigned)((d & 0xff) | ((d >> 12) & 0xfff00));
}

static void read_loop(int fd, const char *whole, struct ap_disk_identity *id)
{
	struct loop_info64 li;
	const char *name = strrchr(whole, '/');
	char *bf = ap_sysfs_loop_backing_file(name ? name + 1 : whole, true);

	if (!bf)
		return;
	id->loop = true;
	id->backing_file = bf;
	memset(&li, 0, sizeof(li));
	if (ioctl(fd, LOOP_GET_STATUS64, &li) == 0) {
		decode_kdev(li.lo_device, &id->backing_major, &id->backing_minor);
		id->backing_inode = li.lo_inode;
		id->backing_offset = li.lo_offset;
	} else {
		uint64_t v;
		char *p;

		ap_xasprintf(&p, "%s/loop/offset", whole);
		if (ap_read_u64(p, &v) == 0)
			id->backing_offset = v;
		free(p);
	}
}

/* VENDOR:MODEL:REVISION[:SERIAL] into @id; an empty field states nothing. */
static void apply_stated(const char *v, struct ap_disk_identity *id)
{
	char **fields[] = { &id->vendor, &id->model, &id->revision, &id->serial };
	char *copy, *p;
	size_t i;

	copy = ap_xstrdup(v);
	copy[strcspn(copy, "\n")] = '\0';
	p = copy;
	for (i = 0; p && i < AP_ARRAY_SIZE(fields); i++) {
		char *next = strchr(p, ':');

		if (next)
			*next++ = '\0';
		if (*p) {
			free(*fields[i]);
			*fields[i] = ap_xstrdup(p);
		}
		p = next;
	}
	free(copy);
}

/*
 * The test seam (as e2fsprogs' MKE2FS_DEVICE_SECTSIZE fakes topology): a
 * loop device states no vendor, model or revision, so tests state them in
 * ALIGNPROBE_TEST_IDENTITY_<name>=VENDOR:MODEL:REVISION[:SERIAL], <name>
 * the disk's kernel name ("loop7"; its partitions are the disk's). An
 * empty field states nothing. Only loop devices: a real disk's identity
 * is never taken from the environment.
 */
static void read_test_seam(const char *whole, struct ap_disk_identity *id)
{
	const char *name = strrchr(whole, '/'), *v;
	char *var;

	ap_xasprintf(&var, "ALIGNPROBE_TEST_IDENTITY_%s", name ? name + 1 : whole);
	v = getenv(var);
	free(var);
	if (v && *v)
		apply_stated(v, id);
}

/*
 * A loop device over alignprobe's emulated drive ("<workdir>/mnt/disk",
 * <workdir> an "alignprobe-emu.*" directory): the identity the emulator
 * wrote beside it, <workdir>/identity (see ap_emu_drive_model()). Nothing
 * for any other backing file.
 */
char *ap_identity_emulated_file(const char *backing_file, const char *name)
{
	const char *suffix = "/mnt/disk", *b = backing_file, *wd;
	size_t n = b ? strlen(b) : 0, k = strlen(suffix);
	char *dir, *path = NULL;

	if (n <= k || strcmp(b + n - k, suffix) != 0)
		return NULL;
	dir = ap_xstrndup(b, n - k);
	wd = strrchr(dir, '/');
	if (wd && strncmp(wd + 1, "alignprobe-emu.", 15) == 0)
		ap_xasprintf(&path, "%s/%s", dir, name);
	free(dir);
	return path;
}

static void read_emulated(struct ap_disk_identity *id)
{
	char *path = ap_identity_emulated_file(id->backing_file, "identity"), *line;

	if (!path)
		return;
	line = ap_read_line(path);
	if (line && *line)
		apply_stated(line, id);
	free(line);
	free(path);
}

int ap_identity_read(int fd, struct ap_disk_identity *id, struct ap_error *e)
{
	static const char *const wwns[] = { "wwid", "device/wwid" };
	static const char *const serials[] = { "device/serial", "serial" };
	static const char *const models[] = { "device/model", "device/name" };
	static const char *const revs[] = { "device/rev", "device/firmware_rev", "device/fwrev" };
	static const char *const uuids[] = { "dm/uuid", "md/uuid" };
	char link[64], *dir, *whole;
	struct stat st;
	uint64_t size = 0, v;
	unsigned lss = 0;
	int rc;

	memset(id, 0, sizeof(*id));
	if (fstat(fd, &st) != 0)
		return ap_error_set(e, errno, "cannot examine the device: %s", strerror(errno));
	if (!S_ISBLK(st.st_mode))
		return ap_error_set(e, ENOTBLK, "not a block device");
	rc = ap_blkdev_get_sizes(fd, &size, &lss, NULL);
	if (rc)
		return ap_error_set(e, -rc, "cannot read the size and sector size: %s",
				    strerror(-rc));
	id->size = size;
	id->logical_sector = lss;

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(st.st_rdev),
		 minor(st.st_rdev));
	dir = realpath(link, NULL);
	if (!dir)
		return 0;	/* no sysfs: size and sector size are all we know */
	whole = ap_xstrdup(dir);
	{
		/* a partition: the disk's attributes are in the parent directory */
		char *p;

		ap_xasprintf(&p, "%s/partition", dir);
		if (ap_read_u64(p, &v) == 0) {
			char *slash = strrchr(whole, '/');

			id->partition = (unsigned)v;
			free(p);
			ap_xasprintf(&p, "%s/start", dir);
			if (ap_read_u64(p, &v) == 0)
				id->partition_start = v * 512;
			if (slash)
				*slash = '\0';
		}
		free(p);
	}
	id->wwn = attr_first(whole, wwns, AP_ARRAY_SIZE(wwns));
	id->serial = attr_first(whole, serials, AP_ARRAY_SIZE(serials));
	if (!id->serial)
		id->serial = vpd_serial(whole);
	id->model = attr_first(whole, models, AP_ARRAY_SIZE(models));
	id->vendor = ap_sysfs_dir_attr(whole, "device/vendor");
	id->revision = attr_first(whole, revs, AP_ARRAY_SIZE(revs));
	id->uuid = attr_first(whole, uuids, AP_ARRAY_SIZE(uuids));
	read_loop(fd, whole, id);
	if (id->loop) {
		read_emulated(id);
		read_test_seam(whole, id);	/* a test's statement wins */
	}
	else
		ap_identity_read_drive(fd, whole, id);
	free(whole);
	free(dir);
	return 0;
}

static void *aligned_alloc_4k(size_t len)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, len) != 0)
		return NULL;
	return p;
}

int ap_identity_read_content(int fd, struct ap_disk_identity *id,
			     const struct ap_identity_content *ranges, size_t n,
			     struct ap_error *e)
{
	struct ap_identity_content c[AP_IDENTITY_MAX_CONTENT];
	unsigned char *buf;
	size_t i;
	int rc = 0;

	if (n > AP_IDENTITY_MAX_CONTENT)
		return ap_error_set(e, EINVAL, "too many content ranges (%zu)", n);
	for (i = 0; i < n; i++) {
		const struct ap_identity_content *r = &ranges[i];

		if (!r->length || !id->logical_sector || r->offset % id->logical_sector ||
		    r->length % id->logical_sector || r->offset > id->size ||
		    r->length > id->size - r->offset)
			return ap_error_set(e, EINVAL, "content range %" PRIu64 "+%" PRIu64
					    " does not fit the device (%" PRIu64 " bytes)",
					    r->offset, r->length, id->size);
	}
	buf = aligned_alloc_4k(CONTENT_CHUNK);
	if (!buf)
		return ap_error_set(e, ENOMEM, "out of memory");
	for (i = 0; !rc && i < n; i++) {
		uint64_t done = 0;
		int first = -1;

		c[i] = ranges[i];
		c[i].crc32 = 0;
		c[i].uniform = true;
		while (done < c[i].length) {
			size_t len = c[i].length - done > CONTENT_CHUNK ? CONTENT_CHUNK :
				     (size_t)(c[i].length - done);
			size_t k;

			rc = ap_pread_all(fd, buf, len, c[i].offset + done);
			if (rc) {
				ap_error_set(e, -rc, "cannot read %zu bytes at offset %" PRIu64
					     ": %s", len, c[i].offset + done, strerror(-rc));
				break;
			}
			if (first < 0)
				first = buf[0];
			for (k = 0; c[i].uniform && k < len; k++)
				if (buf[k] != first)
					c[i].uniform = false;
			c[i].crc32 = ap_crc32(c[i].crc32, buf, len);
			done += len;
		}
	}
	free(buf);
	if (rc)
		return rc;
	memcpy(id->content, c, n * sizeof(*c));
	id->ncontent = n;
	return 0;
}

int ap_identity_read_path(const char *path, const struct ap_disk_identity *want,
			  struct ap_disk_identity *have, struct ap_error *e)
{
	int fd, rc;

	memset(have, 0, sizeof(*have));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_DIRECT);
	if (fd < 0 && errno == EINVAL)
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ap_error_set(e, errno, "%s: %s", path, strerror(errno));
	rc = ap_identity_read(fd, have, e);
	if (!rc && want && want->ncontent)
		rc = ap_identity_read_content(fd, have, want->content, want->ncontent, e);
	close(fd);
	return rc;
}

void ap_identity_free(struct ap_disk_identity *id)
{
	if (!id)
		return;
	free(id->wwn);
	free(id->serial);
	free(id->model);
	free(id->vendor);
	free(id->revision);
	free(id->bridge);
	free(id->legacy_vendor);
	free(id->legacy_model);
	free(id->legacy_revision);
	free(id->uuid);
	free(id->backing_file);
	memset(id, 0, sizeof(*id));
}

static char *dup_or_null(const char *s)
{
	return s ? ap_xstrdup(s) : NULL;
}

void ap_identity_copy(struct ap_disk_identity *dst, const struct ap_disk_identity *src)
{
	*dst = *src;
	dst->wwn = dup_or_null(src->wwn);
	dst->serial = dup_or_null(src->serial);
	dst->model = dup_or_null(src->model);
	dst->vendor = dup_or_null(src->vendor);
	dst->revision = dup_or_null(src->revision);
	dst->bridge = dup_or_null(src->bridge);
	dst->legacy_vendor = dup_or_null(src->legacy_vendor);
	dst->legacy_model = dup_or_null(src->legacy_model);
	dst->legacy_revision = dup_or_null(src->legacy_revision);
	dst->uuid = dup_or_null(src->uuid);
	dst->backing_file = dup_or_null(src->backing_file);
}

/* ------------------------------------------------------------------ */
/* comparing */

static const char *const field_names[] = {
	[AP_IDENTITY_SAME] = "same",
	[AP_IDENTITY_WWN] = "WWN",
	[AP_IDENTITY_SERIAL] = "serial",
	[AP_IDENTITY_UUID] = "UUID",
	[AP_IDENTITY_BACKING] = "backing file",
	[AP_IDENTITY_MODEL] = "model",
	[AP_IDENTITY_VENDOR] = "vendor",
	[AP_IDENTITY_SIZE] = "size",
	[AP_IDENTITY_LOGICAL] = "logical sector size",
	[AP_IDENTITY_PARTITION] = "partition",
	[AP_IDENTITY_CONTENT] = "content",
};

const char *ap_identity_field_name(enum ap_identity_field f)
{
	return (size_t)f < AP_ARRAY_SIZE(field_names) && field_names[f] ? field_names[f] : "?";
}

/* A WWN without its notation: "naa.5000C500..." == "0x5000c500...". */
static const char *wwn_body(const char *s)
{
	static const char *const prefixes[] = { "naa.", "eui.", "0x" };
	size_t i;

	for (i = 0; i < AP_ARRAY_SIZE(prefixes); i++)
		if (strncasecmp(s, prefixes[i], strlen(prefixes[i])) == 0)
			return s + strlen(prefixes[i]);
	return s;
}

static bool str_differs(const char *want, const char *have, bool wwn)
{
	if (!want)
		return false;
	if (!have)
		return true;
	return wwn ? strcasecmp(wwn_body(want), wwn_body(have)) != 0 : strcmp(want, have) != 0;
}

static enum ap_identity_field differs(char *why, size_t len, enum ap_identity_field f,
				      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static enum ap_identity_field differs(char *why, size_t len, enum ap_identity_field f,
				      const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!why || !len)
		return f;
	n = snprintf(why, len, "%s differs: ", ap_identity_field_name(f));
	if (n >= 0 && (size_t)n < len) {
		va_start(ap, fmt);
		vsnprintf(why + n, len - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return f;
}

static const char *q(const char *s)
{
	return s ? s : "(none)";
}

static char *describe_backing(const struct ap_disk_identity *id)
{
	char *s;

	if (!id->loop)
		ap_xasprintf(&s, "not a loop device");
	else
		ap_xasprintf(&s, "%s (inode %" PRIu64 " on %u:%u, offset %" PRIu64 ")",
			     q(id->backing_file), id->backing_inode, id->backing_major,
			     id->backing_minor, id->backing_offset);
	return s;
}

/*
 * The same backing file: the same inode on the same file system, or the
 * same inode at the same path (a file system's device number can change
 * across a reboot), and the same offset into it.
 */
static bool backing_same(const struct ap_disk_identity *w, const struct ap_disk_identity *h)
{
	bool same_fs = w->backing_major == h->backing_major &&
		       w->backing_minor == h->backing_minor;
	bool same_path = w->backing_file && h->backing_file &&
			 strcmp(w->backing_file, h->backing_file) == 0;

	if (w->loop != h->loop)
		return false;
	if (!w->loop)
		return true;
	if (w->backing_offset != h->backing_offset)
		return false;
	if (!w->backing_inode)	/* the inode could not be read: the path must do */
		return !w->backing_file || same_path;
	return w->backing_inode == h->backing_inode && (same_fs || same_path);
}

enum ap_identity_field ap_identity_compare_meta(const struct ap_disk_identity *want,
						const struct ap_disk_identity *have,
						char *why, size_t whylen)
{
	if (why && whylen)
		why[0] = '\0';
	if (want->size != have->size)
		return differs(why, whylen, AP_IDENTITY_SIZE, "the journal's disk has %" PRIu64
			       " bytes, this device %" PRIu64, want->size, have->size);
	if (want->logical_sector != have->logical_sector)
		return differs(why, whylen, AP_IDENTITY_LOGICAL, "the journal's disk has "
			       "%u-byte sectors, this device %u-byte sectors",
			       want->logical_sector, have->logical_sector);
	if (str_differs(want->wwn, have->wwn, true))
		return differs(why, whylen, AP_IDENTITY_WWN, "the journal's disk has %s, this "
			       "device %s", want->wwn, q(have->wwn));
	if (str_differs(want->serial, have->serial, false))
		return differs(why, whylen, AP_IDENTITY_SERIAL, "the journal's disk has '%s', "
			       "this device '%s'", want->serial, q(have->serial));
	if (str_differs(want->uuid, have->uuid, false))
		return differs(why, whylen, AP_IDENTITY_UUID, "the journal's disk has %s, this "
			       "device %s", want->uuid, q(have->uuid));
	if (!backing_same(want, have)) {
		char *a = describe_backing(want), *b = describe_backing(have);

		differs(why, whylen, AP_IDENTITY_BACKING, "the journal's disk: %s; this device: "
			"%s", a, b);
		free(a);
		free(b);
		return AP_IDENTITY_BACKING;
	}
	if (str_differs(want->model, have->model, false) &&
	    (!have->legacy_model || str_differs(want->model, have->legacy_model, false)))
		return differs(why, whylen, AP_IDENTITY_MODEL, "the journal's disk is a '%s', "
			       "this device a '%s'", want->model, q(have->model));
	if (str_differs(want->vendor, have->vendor, false) &&
	    (!have->legacy_vendor || str_differs(want->vendor, have->legacy_vendor, false)))
		return differs(why, whylen, AP_IDENTITY_VENDOR, "the journal's disk is from '%s', "
			       "this device from '%s'", want->vendor, q(have->vendor));
	if (want->partition != have->partition || want->partition_start != have->partition_start)
		return differs(why, whylen, AP_IDENTITY_PARTITION, "the journal's device is %s "
			       "%u at byte %" PRIu64 ", this one %s %u at byte %" PRIu64,
			       want->partition ? "partition" : "whole disk", want->partition,
			       want->partition_start, have->partition ? "partition" : "whole disk",
			       have->partition, have->partition_start);
	return AP_IDENTITY_SAME;
}

enum ap_identity_field ap_identity_compare(const struct ap_disk_identity *want,
					   const struct ap_disk_identity *have,
					   char *why, size_t whylen)
{
	enum ap_identity_field f = ap_identity_compare_meta(want, have, why, whylen);
	size_t i;

	if (f != AP_IDENTITY_SAME)
		return f;
	if (want->ncontent != have->ncontent)
		return differs(why, whylen, AP_IDENTITY_CONTENT, "%zu ranges recorded, %zu read",
			       want->ncontent, have->ncontent);
	for (i = 0; i < want->ncontent; i++) {
		const struct ap_identity_content *w = &want->content[i], *h = &have->content[i];

		if (w->offset != h->offset || w->length != h->length)
			return differs(why, whylen, AP_IDENTITY_CONTENT, "range %zu was read at "
				       "%" PRIu64 "+%" PRIu64 ", recorded at %" PRIu64 "+%" PRIu64,
				       i, h->offset, h->length, w->offset, w->length);
		if (w->crc32 != h->crc32)
			return differs(why, whylen, AP_IDENTITY_CONTENT, "the %" PRIu64 " bytes at "
				       "offset %" PRIu64 ", which the probe never writes, have "
				       "CRC-32 %08x on the journal's disk and %08x here (another "
				       "disk, or it was written to since)", w->length, w->offset,
				       w->crc32, h->crc32);
	}
	return AP_IDENTITY_SAME;
}

bool ap_identity_is_distinctive(const struct ap_disk_identity *id)
{
	size_t i;

	if (id->wwn || id->serial || id->uuid || (id->loop && (id->backing_inode ||
							       id->backing_file)))
		return true;
	for (i = 0; i < id->ncontent; i++)
		if (!id->content[i].uniform)
			return true;
	return false;
}

char *ap_identity_describe(const struct ap_disk_identity *id)
{
	char *s = NULL, *hs = ap_size_to_human(id->size);

	if (id->wwn)
		ap_strappendf(&s, ", ", "WWN %s", id->wwn);
	if (id->serial)
		ap_strappendf(&s, ", ", "serial '%s'", id->serial);
	if (id->model)
		ap_strappendf(&s, ", ", "model '%s'", id->model);
	if (id->vendor)
		ap_strappendf(&s, ", ", "vendor '%s'", id->vendor);
	if (id->bridge)
		ap_strappendf(&s, ", ", "behind the bridge '%s'", id->bridge);
	if (id->uuid)
		ap_strappendf(&s, ", ", "UUID %s", id->uuid);
	if (id->loop) {
		char *b = describe_backing(id);

		ap_strappendf(&s, ", ", "a loop device backed by %s", b);
		free(b);
	}
	if (id->partition)
		ap_strappendf(&s, ", ", "partition %u at byte %" PRIu64, id->partition,
			      id->partition_start);
	ap_strappendf(&s, ", ", "%s (%" PRIu64 " bytes) with %u-byte sectors", hs, id->size,
		      id->logical_sector);
	if (id->ncontent)
		ap_strappendf(&s, ", ", "the CRC-32 of %zu range%s the probe never writes",
			      id->ncontent, id->ncontent == 1 ? "" : "s");
	free(hs);
	return s;
}

/* ------------------------------------------------------------------ */
/* JSON */

struct json_object *ap_identity_to_json(const struct ap_disk_identity *id)
{
	struct json_object *o = json_object_new_object(), *c = json_object_new_array();
	size_t i;

	json_object_object_add(o, "wwn", ap_json_string(id->wwn));
	json_object_object_add(o, "serial", ap_json_string(id->serial));
	json_object_object_add(o, "model", ap_json_string(id->model));
	json_object_object_add(o, "vendor", ap_json_string(id->vendor));
	json_object_object_add(o, "revision", ap_json_string(id->revision));
	json_object_object_add(o, "bridge", ap_json_string(id->bridge));
	json_object_object_add(o, "uuid", ap_json_string(id->uuid));
	json_object_object_add(o, "size", ap_json_u64(id->size));
	json_object_object_add(o, "logical_sector", ap_json_u64(id->logical_sector));
	json_object_object_add(o, "partition", ap_json_u64(id->partition));
	json_object_object_add(o, "partition_start", ap_json_u64(id->partition_start));
	json_object_object_add(o, "loop", json_object_new_boolean(id->loop));
	json_object_object_add(o, "backing_file",
			       id->loop ? ap_json_string(id->backing_file) : NULL);
	if (id->loop) {
		char dev[32];

		snprintf(dev, sizeof(dev), "%u:%u", id->backing_major, id->backing_minor);
		json_object_object_add(o, "backing_device", json_object_new_string(dev));
		json_object_object_add(o, "backing_inode", ap_json_u64(id->backing_inode));
		json_object_object_add(o, "backing_offset", ap_json_u64(id->backing_offset));
	} else {
		json_object_object_add(o, "backing_device", NULL);
		json_object_object_add(o, "backing_inode", NULL);
		json_object_object_add(o, "backing_offset", NULL);
	}
	for (i = 0; i < id->ncontent; i++) {
		const struct ap_identity_content *r = &id->content[i];
		struct json_object *x = json_object_new_object();

		json_object_object_add(x, "offset", ap_json_u64(r->offset));
		json_object_object_add(x, "length", ap_json_u64(r->length));
		json_object_object_add(x, "crc32", ap_json_u64(r->crc32));
		json_object_object_add(x, "uniform", json_object_new_boolean(r->uniform));
		json_object_array_add(c, x);
	}
	json_object_object_add(o, "content", c);
	return o;
}

/* A string or null/absent (NULL). */
static int get_content(struct json_object *o, struct ap_disk_identity *id, struct ap_error *e)
{
	struct json_object *a = NULL;
	size_t i, n;

	if (!json_object_object_get_ex(o, "content", &a) || !a)
		return 0;
	if (!json_object_is_type(a, json_type_array))
		return ap_error_set(e, EINVAL, "\"content\" is not an array");
	n = json_object_array_length(a);
	if (n > AP_IDENTITY_MAX_CONTENT)
		return ap_error_set(e, EINVAL, "%zu content ranges (at most %d)", n,
				    AP_IDENTITY_MAX_CONTENT);
	for (i = 0; i < n; i++) {
		struct json_object *x = json_object_array_get_idx(a, i);
		struct ap_identity_content *r = &id->content[i];
		uint64_t crc;
		int rc;

		if (!x || !json_object_is_type(x, json_type_object))
			return ap_error_set(e, EINVAL, "content range %zu is not an object", i);
		rc = ap_json_get_u64(x, "offset", INT64_MAX, true, &r->offset, e);
		if (!rc)
			rc = ap_json_get_u64(x, "length", INT64_MAX, true, &r->length, e);
		if (!rc)
			rc = ap_json_get_u64(x, "crc32", UINT32_MAX, true, &crc, e);
		if (!rc)
			rc = ap_json_get_bool(x, "uniform", false, &r->uniform, e);
		if (rc)
			return rc;
		r->crc32 = (uint32_t)crc;
		if (!r->length || r->offset % id->logical_sector ||
		    r->length % id->logical_sector || r->offset > id->size ||
		    r->length > id->size - r->offset)
			return ap_error_set(e, EINVAL, "content range %zu does not fit the "
					    "device", i);
	}
	id->ncontent = n;
	return 0;
}

int ap_identity_from_json(struct json_object *o, struct ap_disk_identity *id,
			  struct ap_error *e)
{
	struct ap_error le = { 0 };
	uint64_t v = 0;
	char *dev = NULL;
	int rc;

	memset(id, 0, sizeof(*id));
	if (!o || !json_object_is_type(o, json_type_object))
		return ap_error_set(e, EINVAL, "identity: not a JSON object");
	rc = ap_json_get_string(o, "wwn", false, &id->wwn, &le);
	if (!rc)
		rc = ap_json_get_string(o, "serial", false, &id->serial, &le);
	if (!rc)
		rc = ap_json_get_string(o, "model", false, &id->model, &le);
	if (!rc)
		rc = ap_json_get_string(o, "vendor", false, &id->vendor, &le);
	if (!rc)
		rc = ap_json_get_string(o, "revision", false, &id->revision, &le);
	if (!rc)
		rc = ap_json_get_string(o, "bridge", false, &id->bridge, &le);
	if (!rc)
		rc = ap_json_get_string(o, "uuid", false, &id->uuid, &le);
	if (!rc)
		rc = ap_json_get_u64(o, "size", INT64_MAX, true, &id->size, &le);
	if (!rc && !(rc = ap_json_get_u64(o, "logical_sector", 1u << 20, true, &v, &le)))
		id->logical_sector = (unsigned)v;
	if (!rc && (id->logical_sector < 512 || !ap_is_power_of_2(id->logical_sector)))
		rc = ap_error_set(&le, EINVAL, "bad logical sector size %u", id->logical_sector);
	v = 0;
	if (!rc && !(rc = ap_json_get_u64(o, "partition", UINT32_MAX, false, &v, &le)))
		id->partition = (unsigned)v;
	if (!rc)
		rc = ap_json_get_u64(o, "partition_start", INT64_MAX, false, &id->partition_start,
				     &le);
	if (!rc)
		rc = ap_json_get_bool(o, "loop", false, &id->loop, &le);
	if (!rc && id->loop) {
		rc = ap_json_get_string(o, "backing_file", false, &id->backing_file, &le);
		if (!rc)
			rc = ap_json_get_string(o, "backing_device", false, &dev, &le);
		if (!rc && dev) {
			char c;

			if (sscanf(dev, "%u:%u%c", &id->backing_major, &id->backing_minor, &c) != 2)
				rc = ap_error_set(&le, EINVAL, "bad backing_device '%s'", dev);
		}
		if (!rc)
			rc = ap_json_get_u64(o, "backing_inode", UINT64_MAX, false,
					     &id->backing_inode, &le);
		if (!rc)
			rc = ap_json_get_u64(o, "backing_offset", INT64_MAX, false,
					     &id->backing_offset, &le);
	}
	if (!rc)
		rc = get_content(o, id, &le);
	free(dev);
	if (rc) {
		ap_identity_free(id);
		return ap_error_set(e, EINVAL, "identity: %s", le.msg);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* finding */

static void match_add(char ***v, size_t *n, const char *s)
{
	*v = ap_xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[(*n)++] = ap_xstrdup(s);
}

static void reject(struct ap_identity_match *m, size_t *nrej, const char *path, const char *why)
{
	(*nrej)++;
	if (*nrej > MAX_REJECTED)
		return;
	ap_strappendf(&m->rejected, ", ", "%s (%s)", path, why);
}

/* Read @path and compare: 1 the same, 0 not (with a note in @m). */
static int examine(const struct ap_disk_identity *want, const char *path,
		   struct ap_identity_match *m, size_t *nrej)
{
	struct ap_disk_identity have;
	struct ap_error e = { 0 };
	enum ap_identity_field f;
	char why[64];

	m->examined++;
	if (ap_identity_read_path(path, NULL, &have, &e) != 0) {
		reject(m, nrej, path, strerror(e.code));
		return 0;
	}
	/* the cheap fields first: only a device that passes them is read */
	f = ap_identity_compare_meta(want, &have, NULL, 0);
	if (f == AP_IDENTITY_SAME) {
		ap_identity_free(&have);
		if (ap_identity_read_path(path, want, &have, &e) != 0) {
			reject(m, nrej, path, strerror(e.code));
			return 0;
		}
		f = ap_identity_compare(want, &have, NULL, 0);
	}
	if (f != AP_IDENTITY_SAME) {
		snprintf(why, sizeof(why), "%s differs", ap_identity_field_name(f));
		reject(m, nrej, path, why);
	}
	ap_identity_free(&have);
	return f == AP_IDENTITY_SAME;
}

int ap_identity_find(const struct ap_disk_identity *want, const char *hint,
		     struct ap_identity_match *m, struct ap_error *e)
{
	struct stat st;
	struct dirent *de;
	dev_t hint_rdev = 0;
	size_t nrej = 0;
	DIR *D;

	memset(m, 0, sizeof(*m));
	if (hint && stat(hint, &st) == 0 && S_ISBLK(st.st_mode)) {
		hint_rdev = st.st_rdev;
		if (examine(want, hint, m, &nrej)) {
			match_add(&m->paths, &m->npaths, hint);
			return 0;
		}
	}
	D = opendir("/sys/class/block");
	if (!D)
		return ap_error_set(e, errno, "cannot list /sys/class/block: %s", strerror(errno));
	while ((de = readdir(D))) {
		char *p, *v, *dev;
		uint64_t sectors;
		dev_t d;

		if (de->d_name[0] == '.')
			continue;
		ap_xasprintf(&p, "/sys/class/block/%s/size", de->d_name);
		if (ap_read_u64(p, &sectors) != 0 || sectors * 512 != want->size) {
			free(p);
			continue;
		}
		free(p);
		ap_xasprintf(&p, "/sys/class/block/%s/dev", de->d_name);
		v = ap_read_line(p);
		free(p);
		if (!v || ap_sysfs_parse_devno(v, &d) != 0) {
			free(v);
			continue;
		}
		free(v);
		if (hint_rdev && d == hint_rdev)
			continue;	/* examined above */
		ap_xasprintf(&dev, "/dev/%s", de->d_name);
		if (stat(dev, &st) != 0 || !S_ISBLK(st.st_mode) || st.st_rdev != d)
			reject(m, &nrej, dev, "no device node");
		else if (examine(want, dev, m, &nrej))
			match_add(&m->paths, &m->npaths, dev);
		free(dev);
	}
	closedir(D);
	if (nrej > MAX_REJECTED) {
		char *s;

		ap_xasprintf(&s, "%s and %zu more", m->rejected, nrej - MAX_REJECTED);
		free(m->rejected);
		m->rejected = s;
	}
	return 0;
}

void ap_identity_match_free(struct ap_identity_match *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->npaths; i++)
		free(m->paths[i]);
	free(m->paths);
	free(m->rejected);
	memset(m, 0, sizeof(*m));
}
