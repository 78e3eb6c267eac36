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

static void sig_ata(struct ap_smr_signals *s, int fd)
{
	struct ap_smr_signal *g = add(s, "ATA IDENTIFY word 69 (zoned)");
	struct ap_ata_identify id;
	struct ap_error e = { 0 };

	memset(&id, 0, sizeof(id));
	if (fd >= 0 && ap_sgio_ata_identify(fd, &id, &e) == 0)
		zoned_field(s, g, id.zoned);
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
