// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Who a disk is (see identity.h): the identity gathered from the device
 * (sysfs, the drive through SG_IO, a loop device's backing file, the
 * CRC-32s of ranges), copied and freed, and its record form (JSON).
 * Comparing two identities and finding the disk that has one:
 * identity_match.c.
 */
#include "device/identity.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
 * The models hypervisors give their emulated ATA disks (QEMU's IDE and
 * AHCI, which Xen's HVM guests get too; VirtualBox; VMware's IDE and SATA;
 * bhyve; Parallels): behind each is an image file or a host volume -- a
 * qcow2 overlay, a host RAID -- whose units the guest cannot know.
 */
static const char *const virtual_models[] = {
	"QEMU", "VBOX", "VMware", "Virtual", "BHYVE", "Parallels",
};

bool ap_identity_one_disk(const struct ap_disk_identity *id)
{
	size_t i;

	if (!id->vendor || strcmp(id->vendor, "ATA") != 0)
		return false;
	if (id->model && strcasestr(id->model, "RAID"))
		return false;
	for (i = 0; id->model && i < AP_ARRAY_SIZE(virtual_models); i++)
		if (strcasestr(id->model, virtual_models[i]))
			return false;
	return true;
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
