// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The cheap signals of a shingled disk (smr.h): read, never written, each
 * with what it proves and what it does not.
 */
#include "smr/smr.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device/sgio.h"
#include "lib/sysfs.h"

int ap_smr_parse_vpd_b1(const uint8_t *buf, size_t len, unsigned *rpm, unsigned *zoned)
{
	if (len < 9 || buf[1] != 0xb1)
		return -EINVAL;
	*rpm = (unsigned)buf[4] << 8 | buf[5];
	*zoned = (buf[8] >> 4) & 3;
	return 0;
}

static struct ap_smr_signal *add(struct ap_smr_signals *s, const char *name)
{
	struct ap_smr_signal *g = &s->sig[s->n++];

	g->name = name;
	snprintf(g->value, sizeof(g->value), "not available");
	g->proves = "nothing";
	g->not_proves = "anything: the kernel or the drive does not say";
	return g;
}

static void claim(struct ap_smr_signals *s, enum ap_smr_zone_model zm, const char *source)
{
	if (zm > s->zone_model) {
		s->zone_model = zm;
		s->zone_source = source;
	}
}

static void sig_zoned(struct ap_smr_signals *s, const char *name)
{
	struct ap_smr_signal *g = add(s, "queue/zoned");
	char *v = ap_sysfs_name_attr(name, "queue/zoned");

	if (!v)
		return;
	g->available = true;
	snprintf(g->value, sizeof(g->value), "%s", v);
	if (strcmp(v, "host-managed") == 0 || strcmp(v, "host-aware") == 0) {
		claim(s, strcmp(v, "host-managed") == 0 ? AP_SMR_ZM_HOST_MANAGED :
		      AP_SMR_ZM_HOST_AWARE, g->name);
		g->proves = "a zoned (SMR) disk the host writes in zones: no test needed";
		g->not_proves = "nothing left open";
	} else {
		claim(s, AP_SMR_ZM_NONE, g->name);
		g->proves = "the host need not write in zones";
		g->not_proves = "that the disk is not shingled: a drive-managed SMR disk says "
				"\"none\" by design";
	}
	free(v);
}

/* What a drive's own ZONED field (ATA word 69, VPD B1h) says, into @g. */
static void zoned_field(struct ap_smr_signals *s, struct ap_smr_signal *g, unsigned z)
{
	static const char *const names[] = { "not reported", "host-aware", "device-managed",
					     "reserved" };

	g->available = true;
	snprintf(g->value, sizeof(g->value), "%s", names[z & 3]);
	if (z == 2) {
		claim(s, AP_SMR_ZM_DEVICE_MANAGED, g->name);
		g->proves = "the drive itself says it is drive-managed SMR";
		g->not_proves = "nothing left open";
	} else if (z == 1) {
		claim(s, AP_SMR_ZM_HOST_AWARE, g->name);
		g->proves = "a host-aware zoned (SMR) disk";
		g->not_proves = "nothing left open";
	} else {
		g->proves = "nothing";
		g->not_proves = "that the disk is conventional: the field is optional and most "
				"DM-SMR drives leave it empty";
	}
}

#define LOG_IDENTIFY	0x30	/* IDENTIFY DEVICE data */
#define PAGE_ZONED	0x09	/* zoned device information */

bool ap_smr_log_page_listed(const uint8_t *buf, size_t len, unsigned page)
{
	size_t i, n;

	if (len < 9 || buf[2] != 0x00)
		return false;
	n = buf[8];
	for (i = 0; i < n && 9 + i < len; i++)
		if (buf[9 + i] == page)
			return true;
	return false;
}

/* Bits 31:0 of the qword at @buf + @at when its bit 63 says it is valid, else UINT32_MAX. */
static uint32_t qword_u32(const uint8_t *buf, size_t at)
{
	if (!(buf[at + 7] & 0x80))
		return UINT32_MAX;
	return (uint32_t)buf[at] | (uint32_t)buf[at + 1] << 8 | (uint32_t)buf[at + 2] << 16 |
	       (uint32_t)buf[at + 3] << 24;
}

int ap_smr_parse_zoned_info(const uint8_t *buf, size_t len, struct ap_smr_zoned_info *zi)
{
	if (len < 48 || buf[0] != 0x01 || buf[1] != 0x00 || buf[2] != PAGE_ZONED)
		return -EINVAL;
	zi->urswrz = buf[15] & 0x80 ? buf[8] & 1 : -1;
	zi->opt_open = qword_u32(buf, 24);
	zi->opt_nonseq = qword_u32(buf, 32);
	zi->max_open = qword_u32(buf, 40);
	return 0;
}

/* "12" or "not reported" */
static const char *zones(uint32_t v, char *buf, size_t len)
{
	if (v == UINT32_MAX)
		return "not reported";
	snprintf(buf, len, "%u", v);
	return buf;
}

/* The zoned device information page of an ATA drive (it answered IDENTIFY on @fd). */
static void sig_zoned_log(struct ap_smr_signals *s, struct ap_smr_signal *g, int fd)
{
	uint8_t buf[512];
	struct ap_smr_zoned_info zi;
	struct ap_error e = { 0 };
	char a[16], b[16];

	if (ap_sgio_ata_read_log(fd, LOG_IDENTIFY, 0x00, buf, &e) != 0)
		return;
	g->available = true;
	if (!ap_smr_log_page_listed(buf, sizeof(buf), PAGE_ZONED)) {
		snprintf(g->value, sizeof(g->value), "not in the drive's log");
		g->proves = "nothing";
		g->not_proves = "that the disk is conventional: drive-managed SMR disks do not "
				"implement the zoned ATA command set, whose page this is";
		return;
	}
	if (ap_sgio_ata_read_log(fd, LOG_IDENTIFY, PAGE_ZONED, buf, &e) != 0 ||
	    ap_smr_parse_zoned_info(buf, sizeof(buf), &zi) != 0) {
		snprintf(g->value, sizeof(g->value), "listed, but not readable");
		return;
	}
	snprintf(g->value, sizeof(g->value), "optimal open zones %s, maximum open zones %s",
		 zones(zi.opt_open, a, sizeof(a)), zones(zi.max_open, b, sizeof(b)));
	claim(s, AP_SMR_ZM_HOST_AWARE, g->name);
	g->proves = "the drive implements the zoned ATA command set: a zoned (SMR) disk, "
		    "host-aware or host-managed";
	g->not_proves = "nothing left open";
}

static void sig_ata(struct ap_smr_signals *s, int fd)
{
	struct ap_smr_signal *g = add(s, "ATA IDENTIFY word 69 (zoned)");
	struct ap_smr_signal *z = add(s, "ATA zoned device information (log 30h, page 09h)");
	struct ap_ata_identify id;
	struct ap_error e = { 0 };

	memset(&id, 0, sizeof(id));
	if (fd < 0 || ap_sgio_ata_identify(fd, &id, &e) != 0)
		return;
	zoned_field(s, g, id.zoned);
	sig_zoned_log(s, z, fd);
}

static void sig_vpd_b1(struct ap_smr_signals *s, const char *name)
{
	struct ap_smr_signal *z = add(s, "SCSI VPD B1h (zoned)");
	struct ap_smr_signal *r = add(s, "SCSI VPD B1h (rotation rate)");
	char path[256];
	uint8_t buf[64];
	unsigned rpm, zoned;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/block/%s/device/vpd_pgb1", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n <= 0 || ap_smr_parse_vpd_b1(buf, (size_t)n, &rpm, &zoned) != 0)
		return;
	zoned_field(s, z, zoned);
	s->media_rpm = rpm;
	if (!rpm)
		return;
	r->available = true;
	if (rpm == 1) {
		snprintf(r->value, sizeof(r->value), "non-rotating");
		r->proves = "the drive says its medium does not rotate (not applicable)";
		r->not_proves = "nothing left open";
	} else {
		snprintf(r->value, sizeof(r->value), "%u rpm", rpm);
		r->proves = "the drive says it rotates";
		r->not_proves = "how it records: CMR and SMR disks spin alike";
	}
}

static void sig_queue(struct ap_smr_signals *s, const char *dev, const char *name,
		      const struct ap_smr_hooks *h)
{
	struct ap_smr_signal *r = add(s, "queue/rotational");
	struct ap_smr_signal *t = add(s, "discard (TRIM)");
	char *v = ap_sysfs_name_attr(name, "queue/rotational");
	uint64_t max = 0;
	int trim;

	s->rotational = -1;
	if (v) {
		r->available = true;
		s->rotational = strcmp(v, "1") == 0;
		snprintf(r->value, sizeof(r->value), "%s", v);
		r->proves = "nothing: measured instead";
		r->not_proves = "rotation: USB bridges say 1 for SSDs, loop devices what their "
				"backing says";
		free(v);
	}
	trim = h && h->trim ? h->trim(dev) : -1;
	v = trim < 0 ? ap_sysfs_name_attr(name, "queue/discard_max_bytes") : NULL;
	if (trim < 0 && !v)
		return;
	t->available = true;
	if (trim > 0 || (v && sscanf(v, "%llu", (unsigned long long *)&max) == 1 && max > 0)) {
		s->trim = true;
		snprintf(t->value, sizeof(t->value), "advertised");
		t->proves = "a hint only, on a disk that rotates: some DM-SMR drives take TRIM "
			    "to free their cache (loop devices and thin layers take it too)";
		t->not_proves = "SMR: it is no proof either way";
	} else {
		snprintf(t->value, sizeof(t->value), "not advertised");
		t->proves = "nothing";
		t->not_proves = "that the disk is conventional: many DM-SMR drives have no TRIM";
	}
	free(v);
}

void ap_smr_signals_read(const char *dev, const char *name, int fd,
			 const struct ap_smr_hooks *h, struct ap_smr_signals *s)
{
	memset(s, 0, sizeof(*s));
	sig_zoned(s, name);
	sig_ata(s, fd);
	sig_vpd_b1(s, name);
	sig_queue(s, dev, name, h);
}
