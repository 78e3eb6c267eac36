// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Who the drive is, in its own words (see ap_identity_decide() in
 * identity.h): a verdict is shared by every disk of a model, so the model
 * must be the drive's, never the USB bridge's in front of it. The SCSI
 * INQUIRY that sysfs shows (device/vendor, model, rev) is the SAT layer's
 * answer: libata's ("ATA", 16 characters of the model, 4 of the firmware)
 * or a bridge's ("JMicron Generic"), which many different drives share.
 * ATA IDENTIFY DEVICE is the drive's: read from the kernel's copy of VPD
 * page 89h (sysfs device/vpd_pg89), else asked through SG_IO (INQUIRY VPD
 * 89h, ATA PASS-THROUGH(16), then (12), as smartmontools' SAT layer tries
 * them). NVMe: Identify Controller where sysfs has no model.
 */
#include "device/identity.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device/sgio.h"
#include "lib/sysfs.h"
#include "lib/util.h"

static void set(char **field, const char *v)
{
	free(*field);
	*field = v && *v ? ap_xstrdup(v) : NULL;
}

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

void ap_identity_decide(struct ap_disk_identity *id, const struct ap_identity_sources *src)
{
	const char *iv = src->inq_vendor, *im = src->inq_model, *ir = src->inq_revision;
	const struct ap_ata_identify *ata = src->ata;
	bool libata = iv && strcmp(iv, "ATA") == 0;

	if (ata && ata->model[0]) {
		set(&id->vendor, "ATA");
		set(&id->model, ata->model);
		set(&id->revision, ata->firmware[0] ? ata->firmware : NULL);
		if (ata->serial[0])
			set(&id->serial, ata->serial);
		free(id->bridge);
		id->bridge = NULL;
		if (!libata && (iv || im))
			ap_xasprintf(&id->bridge, "%s%s%s", iv ? iv : "", iv && im ? " " : "",
				     im ? im : "");
	} else if (src->usb && (iv || im)) {
		/* the INQUIRY of a USB bridge that passes no IDENTIFY through */
		set(&id->vendor, NULL);
		set(&id->model, NULL);
		set(&id->revision, NULL);
		free(id->bridge);
		ap_xasprintf(&id->bridge, "%s%s%s", iv ? iv : "", iv && im ? " " : "", im ? im : "");
	} else {
		set(&id->vendor, iv);
		set(&id->model, im);
		set(&id->revision, ir);
	}
	if (im && (!same(iv, id->vendor) || !same(im, id->model) || !same(ir, id->revision))) {
		set(&id->legacy_vendor, iv);
		set(&id->legacy_model, im);
		set(&id->legacy_revision, ir);
	}
}

/* Up to @len bytes of the binary sysfs attribute @name under @dir: the length or -1. */
static ssize_t read_bin(const char *dir, const char *name, uint8_t *buf, size_t len)
{
	char *p;
	ssize_t n;
	FILE *f;

	ap_xasprintf(&p, "%s/%s", dir, name);
	f = fopen(p, "re");
	free(p);
	if (!f)
		return -1;
	n = (ssize_t)fread(buf, 1, len, f);
	fclose(f);
	return n;
}

/* The drive's IDENTIFY through the SAT layer of SCSI disk @fd: 0 or -errno. */
static int read_ata(int fd, const char *whole, struct ap_ata_identify *ata)
{
	struct ap_vpd_ata v;
	struct ap_error e = { 0 };
	uint8_t buf[1024];
	ssize_t n = read_bin(whole, "device/vpd_pg89", buf, sizeof(buf));

	if (n > 0 && ap_sgio_parse_vpd_ata(buf, (size_t)n, &v) == 0) {
		*ata = v.ata;
		return 0;
	}
	if (ap_sgio_vpd_ata(fd, &v, &e) == 0) {
		*ata = v.ata;
		return 0;
	}
	if (ap_sgio_ata_identify(fd, ata, &e) == 0)
		return 0;
	/* only a disk (peripheral type 0): A1h is BLANK to an optical drive */
	return ap_sgio_ata_identify12(fd, ata, &e);
}

/* Attached through USB: the device's sysfs path runs through a USB device. */
static bool through_usb(const char *whole)
{
	char *p, *real;
	bool usb;

	ap_xasprintf(&p, "%s/device", whole);
	real = realpath(p, NULL);
	free(p);
	usb = real && strstr(real, "/usb") != NULL;
	free(real);
	return usb;
}

void ap_identity_read_drive(int fd, const char *whole, struct ap_disk_identity *id)
{
	struct ap_identity_sources src = { 0 };
	struct ap_ata_identify ata;
	char *type = ap_sysfs_dir_attr(whole, "device/type");

	if (type && strcmp(type, "0") == 0) {
		/* a SCSI disk: INQUIRY in sysfs, the drive behind its SAT layer */
		src.inq_vendor = id->vendor;
		src.inq_model = id->model;
		src.inq_revision = id->revision;
		src.usb = through_usb(whole);
		if (read_ata(fd, whole, &ata) == 0)
			src.ata = &ata;
		id->vendor = id->model = id->revision = NULL;
		ap_identity_decide(id, &src);
		if (src.ata && !id->wwn && ata.wwn_valid)
			ap_xasprintf(&id->wwn, "0x%016" PRIx64, ata.wwn);
		free((char *)src.inq_vendor);
		free((char *)src.inq_model);
		free((char *)src.inq_revision);
	} else if (!id->model) {
		struct ap_nvme_ctrl c;
		struct ap_error e = { 0 };

		if (ap_sgio_nvme_id_ctrl(fd, &c, &e) == 0) {
			set(&id->model, c.model);
			if (!id->revision)
				set(&id->revision, c.firmware);
			if (!id->serial)
				set(&id->serial, c.serial);
		} else if (ap_sgio_ata_identify(fd, &ata, &e) == 0) {
			set(&id->model, ata.model);
			if (!id->revision)
				set(&id->revision, ata.firmware);
			if (!id->serial)
				set(&id->serial, ata.serial);
		}
	}
	free(type);
}
