// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Is this the disk a record was written for (see identity.h): two
 * identities compared field by field, with why they differ; whether an
 * identity says enough to tell disks apart, in words for messages; and
 * the disk that has an identity found among the block devices.
 * Gathering an identity: identity.c.
 */
#include "device/identity.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "lib/sysfs.h"

#define MAX_REJECTED	4

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
