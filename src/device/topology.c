// SPDX-License-Identifier: GPL-2.0-or-later
/* The kernel's and the drive's view of a device's geometry. */
#include "device/topology.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <blkid.h>
#include <json-c/json.h>

#include "device/geometry.h"
#include "device/identity.h"
#include "lib/json.h"
#include "lib/sysfs.h"

#define MAX_DISAGREEMENTS	16

static void disagree(struct ap_topology *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void disagree(struct ap_topology *t, const char *fmt, ...)
{
	va_list ap;
	char buf[256];

	if (t->ndisagreements >= MAX_DISAGREEMENTS)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	t->disagreements = ap_xreallocarray(t->disagreements, t->ndisagreements + 1,
					    sizeof(*t->disagreements));
	t->disagreements[t->ndisagreements++] = ap_xstrdup(buf);
}

static void clear_disagreements(struct ap_topology *t)
{
	size_t i;

	for (i = 0; i < t->ndisagreements; i++)
		free(t->disagreements[i]);
	free(t->disagreements);
	t->disagreements = NULL;
	t->ndisagreements = 0;
}

void ap_topology_free(struct ap_topology *t)
{
	if (!t)
		return;
	clear_disagreements(t);
	memset(t, 0, sizeof(*t));
}

void ap_topology_consolidate(struct ap_drive_topology *d)
{
	d->source = NULL;
	d->logical = 0;
	d->physical = 0;
	d->lowest_aligned_known = false;
	d->lowest_aligned = 0;
	d->available = d->ata_ok || d->scsi_ok || d->nvme_ok;
	if (d->ata_ok) {
		/* the drive's own words, also behind a bridge that translates badly */
		d->source = "ATA IDENTIFY";
		d->logical = d->ata.logical_sector;
		d->physical = d->ata.physical_sector;
		d->lowest_aligned_known = d->ata.offset_valid || d->ata.log2_per_phys == 0;
		d->lowest_aligned = d->ata.lowest_aligned;
	} else if (d->nvme_ok) {
		d->source = "NVMe Identify Namespace";
		d->logical = d->nvme.logical_sector;
		d->physical = d->nvme.physical_sector;	/* 0 when the drive does not say */
		d->lowest_aligned_known = true;		/* NVMe has no offset */
		d->lowest_aligned = 0;
	} else if (d->scsi_ok) {
		d->source = "SCSI READ CAPACITY(16)";
		d->logical = d->scsi.logical_sector;
		d->physical = d->scsi.physical_sector;
		d->lowest_aligned_known = true;
		d->lowest_aligned = d->scsi.lowest_aligned;
	}
}

void ap_topology_compare(struct ap_topology *t)
{
	const struct ap_kernel_topology *k = &t->kernel;
	const struct ap_drive_topology *d = &t->drive;

	clear_disagreements(t);
	if (k->available && d->available && d->source) {
		if (d->logical && k->logical != d->logical)
			disagree(t, "logical sector: the kernel reports %lu bytes, the drive (%s) "
				 "claims %u", k->logical, d->source, d->logical);
		if (d->physical && k->physical != d->physical)
			disagree(t, "physical sector: the kernel reports %lu bytes, the drive (%s) "
				 "claims %" PRIu64, k->physical, d->source, d->physical);
		if (d->lowest_aligned_known && d->logical && d->physical) {
			uint64_t off = ((uint64_t)d->lowest_aligned * d->logical) % d->physical;

			if (off != k->alignment_offset)
				disagree(t, "alignment: the kernel reports an alignment offset of "
					 "%lu bytes, the drive (%s) claims lowest aligned LBA %u "
					 "(%" PRIu64 " bytes)", k->alignment_offset, d->source,
					 d->lowest_aligned, off);
		}
	}
	if (d->ata_ok && d->scsi_ok) {
		if (d->ata.physical_sector != d->scsi.physical_sector)
			disagree(t, "physical sector: ATA IDENTIFY claims %u bytes, SCSI READ "
				 "CAPACITY(16) %" PRIu64 " (a bridge translating?)",
				 d->ata.physical_sector, d->scsi.physical_sector);
		if (d->ata.offset_valid && d->ata.lowest_aligned != d->scsi.lowest_aligned)
			disagree(t, "lowest aligned LBA: ATA IDENTIFY claims %u, SCSI READ "
				 "CAPACITY(16) %u", d->ata.lowest_aligned, d->scsi.lowest_aligned);
	}
	if (d->nvme_ok && d->nvme.atomics_valid && d->nvme.optperf_valid &&
	    (uint64_t)d->nvme.nawupf * d->nvme.logical_sector < d->nvme.physical_sector)
		disagree(t, "NVMe: preferred write granularity %" PRIu64 " bytes, but atomic "
			 "write unit %u bytes (Linux reports the smaller as physical sector)",
			 d->nvme.physical_sector, d->nvme.nawupf * d->nvme.logical_sector);
	if (k->write_cache >= 0 && d->wc_known && (k->write_cache == 1) != d->wc.enabled)
		disagree(t, "write cache: the kernel's queue is in write %s mode, the drive "
			 "(%s) says its cache is %s", k->write_cache ? "back" : "through",
			 ap_sgio_wc_source_name(d->wc.source), d->wc.enabled ? "on" : "off");
}

/* /sys/dev/block/M:m/queue/write_cache: "write back" or "write through" */
static int sysfs_write_cache(dev_t rdev)
{
	char *v = ap_sysfs_devno_attr(rdev, "queue/write_cache");
	int wc = -1;

	if (v && strncmp(v, "write back", 10) == 0)
		wc = 1;
	else if (v && strncmp(v, "write through", 13) == 0)
		wc = 0;
	free(v);
	return wc;
}

/*
 * A loop device over alignprobe's emulated drive: what the drive claims
 * (its min-io=, opt-io=, in <workdir>/claims) is what a layered volume's
 * kernel driver would report (md: the chunk and the stripe), which the
 * loop device cannot carry. Nothing for any other device.
 */
static void emulated_claims(dev_t rdev, struct ap_kernel_topology *k)
{
	char *name = ap_sysfs_wholedisk_name(rdev), *back, *path, *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	back = name && strncmp(name, "loop", 4) == 0 ? ap_sysfs_loop_backing_file(name, true) :
	       NULL;
	path = back ? ap_identity_emulated_file(back, "claims") : NULL;
	f = path ? fopen(path, "re") : NULL;
	while (f && (n = getline(&line, &cap, f)) > 0) {
		uint64_t v;

		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "minimum_io_size=", 16) == 0 && ap_parse_u64(line + 16, &v) == 0)
			k->minimum_io = (unsigned long)v;
		else if (strncmp(line, "optimal_io_size=", 16) == 0 &&
			 ap_parse_u64(line + 16, &v) == 0)
			k->optimal_io = (unsigned long)v;
	}
	if (f)
		fclose(f);
	free(line);
	free(path);
	free(back);
	free(name);
}

static void kernel_topology(int fd, dev_t rdev, struct ap_kernel_topology *k)
{
	blkid_probe pr = blkid_new_probe();
	blkid_topology tp;

	k->write_cache = sysfs_write_cache(rdev);
	if (!pr || blkid_probe_set_device(pr, fd, 0, 0) != 0) {
		snprintf(k->why, sizeof(k->why), "libblkid cannot probe the device");
		goto out;
	}
	tp = blkid_probe_get_topology(pr);
	if (!tp) {
		snprintf(k->why, sizeof(k->why), "libblkid reports no topology");
		goto out;
	}
	k->available = true;
	k->logical = blkid_topology_get_logical_sector_size(tp);
	k->physical = blkid_topology_get_physical_sector_size(tp);
	k->minimum_io = blkid_topology_get_minimum_io_size(tp);
	k->optimal_io = blkid_topology_get_optimal_io_size(tp);
	k->alignment_offset = blkid_topology_get_alignment_offset(tp);
	emulated_claims(rdev, k);
	if (!k->logical)
		k->logical = 512;
	if (k->physical < k->logical)
		k->physical = k->logical;
	k->optimal_io_sane = ap_geometry_optio_is_sane(k->optimal_io, (unsigned)k->logical,
						       k->physical);
out:
	if (pr)
		blkid_free_probe(pr);
}

/* A short reason for "not available", truncated to fit. */
static void reason(char *buf, size_t size, int rc, const struct ap_error *e)
{
	const char *s = rc == -EOPNOTSUPP ? "no answer" : e->msg[0] ? e->msg : strerror(-rc);
	size_t n = strlen(s);

	if (n >= size)
		n = size - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
}

static void drive_topology(int fd, struct ap_drive_topology *d)
{
	struct ap_error e;
	char ata[48], scsi[48], nvme[48];
	int rc;

	ap_error_clear(&e);
	rc = ap_sgio_nvme_id_ns(fd, &d->nvme, &e);
	d->nvme_ok = rc == 0;
	reason(nvme, sizeof(nvme), rc, &e);
	ap_error_clear(&e);
	rc = d->nvme_ok ? -EOPNOTSUPP : ap_sgio_ata_identify(fd, &d->ata, &e);
	d->ata_ok = rc == 0;
	reason(ata, sizeof(ata), rc, &e);
	ap_error_clear(&e);
	rc = d->nvme_ok ? -EOPNOTSUPP : ap_sgio_read_capacity16(fd, &d->scsi, &e);
	d->scsi_ok = rc == 0;
	reason(scsi, sizeof(scsi), rc, &e);
	ap_error_clear(&e);
	/* what it claims of transfers (the optimal granularity: a RAID chunk) */
	d->limits_ok = d->scsi_ok && ap_sgio_vpd_block_limits(fd, &d->limits, &e) == 0;
	ap_error_clear(&e);
	if (d->ata_ok && d->ata.wc_valid) {
		/* already in hand: no second IDENTIFY */
		d->wc_known = true;
		d->wc.enabled = d->ata.wc_supported && d->ata.wc_enabled;
		d->wc.source = AP_WC_SRC_ATA;
	} else if ((d->nvme_ok || d->ata_ok || d->scsi_ok)) {
		d->wc_known = ap_sgio_write_cache(fd, &d->wc, &e) == 0;
	}
	ap_topology_consolidate(d);
	if (!d->available)
		snprintf(d->why, sizeof(d->why), "ATA IDENTIFY: %s; SCSI READ CAPACITY(16): "
			 "%s; NVMe Identify: %s", ata, scsi, nvme);
}

int ap_topology_read(const char *path, struct ap_topology *t, struct ap_error *e)
{
	struct stat st;
	int fd;

	memset(t, 0, sizeof(*t));
	t->kernel.write_cache = -1;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return ap_error_set(e, errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0) {
		int err = errno;

		close(fd);
		return ap_error_set(e, err, "%s: %s", path, strerror(err));
	}
	if (!S_ISBLK(st.st_mode)) {
		snprintf(t->kernel.why, sizeof(t->kernel.why), "an image file has no topology");
		snprintf(t->drive.why, sizeof(t->drive.why), "an image file has no drive");
		close(fd);
		return 0;
	}
	t->is_blockdev = true;
	kernel_topology(fd, st.st_rdev, &t->kernel);
	drive_topology(fd, &t->drive);
	close(fd);
	ap_topology_compare(t);
	return 0;
}

struct json_object *ap_topology_to_json(const struct ap_topology *t)
{
	const struct ap_kernel_topology *k = &t->kernel;
	const struct ap_drive_topology *d = &t->drive;
	struct json_object *o = json_object_new_object(), *ko, *dobj, *a;
	size_t i;

	ko = json_object_new_object();
	json_object_object_add(ko, "available", json_object_new_boolean(k->available));
	if (k->available) {
		json_object_object_add(ko, "logical_sector", ap_json_u64(k->logical));
		json_object_object_add(ko, "physical_sector", ap_json_u64(k->physical));
		json_object_object_add(ko, "minimum_io", ap_json_u64(k->minimum_io));
		json_object_object_add(ko, "optimal_io", ap_json_u64(k->optimal_io));
		json_object_object_add(ko, "optimal_io_sane", json_object_new_boolean(k->optimal_io_sane));
		json_object_object_add(ko, "alignment_offset", ap_json_u64(k->alignment_offset));
	} else {
		json_object_object_add(ko, "reason", json_object_new_string(k->why));
	}
	json_object_object_add(ko, "write_cache", k->write_cache < 0 ? NULL
			       : json_object_new_string(k->write_cache ? "write back" : "write through"));
	json_object_object_add(o, "kernel", ko);

	dobj = json_object_new_object();
	json_object_object_add(dobj, "available", json_object_new_boolean(d->available));
	if (d->available) {
		json_object_object_add(dobj, "source", json_object_new_string(d->source));
		json_object_object_add(dobj, "logical_sector", json_object_new_int64(d->logical));
		json_object_object_add(dobj, "physical_sector", d->physical
				       ? ap_json_u64(d->physical) : NULL);
		json_object_object_add(dobj, "lowest_aligned_lba", d->lowest_aligned_known
				       ? json_object_new_int64(d->lowest_aligned) : NULL);
		if (d->ata_ok)
			json_object_object_add(dobj, "model", json_object_new_string(d->ata.model));
		if (d->nvme_ok) {
			json_object_object_add(dobj, "nvme_npwg", d->nvme.optperf_valid
					       ? json_object_new_int64(d->nvme.npwg) : NULL);
			json_object_object_add(dobj, "nvme_nows", d->nvme.optperf_valid
					       ? json_object_new_int64(d->nvme.nows) : NULL);
			json_object_object_add(dobj, "nvme_nawupf", d->nvme.atomics_valid
					       ? json_object_new_int64(d->nvme.nawupf) : NULL);
		}
	} else {
		json_object_object_add(dobj, "reason", json_object_new_string(d->why));
	}
	json_object_object_add(dobj, "write_cache", d->wc_known
			       ? json_object_new_boolean(d->wc.enabled) : NULL);
	json_object_object_add(o, "drive", dobj);

	a = json_object_new_array();
	for (i = 0; i < t->ndisagreements; i++)
		json_object_array_add(a, json_object_new_string(t->disagreements[i]));
	json_object_object_add(o, "disagreements", a);
	return o;
}
