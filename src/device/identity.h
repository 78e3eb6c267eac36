/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Who a disk is, as the kernel and the drive can say it, so that a record
 * written today (an undo journal, a probe result, a verdict) can be matched
 * to the right device tomorrow, when /dev/sdX names have moved and a JBOD
 * holds many disks of one size.
 *
 *   WWN, serial, model, vendor, firmware revision: sysfs first (wwid,
 *     device/wwid, device/serial, serial, device/vpd_pg80, device/model,
 *     device/vendor, device/rev, device/firmware_rev), the drive's ATA
 *     IDENTIFY through SG_IO for what sysfs lacks. Not the udev database:
 *     it is absent in a rescue system, and a field that is known one day
 *     and unknown the next would make the same disk look like another.
 *   uuid: the device-mapper or md UUID of a stacked device.
 *   size and logical sector size (ioctls), partition number and start.
 *   loop devices, which have none of the above: the backing file (its path
 *     from sysfs, device, inode and offset from LOOP_GET_STATUS64).
 *   content: CRC-32s of byte ranges the caller promises not to write
 *     (for the undo journal: outside the probe's writes, see
 *     ap_probe_untouched()), which also tell apart disks that state no
 *     identity, and reveal a disk that was rewritten since.
 *
 * Reading needs an open descriptor; comparing, describing and the JSON form
 * are pure. Nothing here writes to a device. identity.c gathers an
 * identity (and keeps its JSON form); identity_match.c compares two and
 * finds the disk that has one.
 */
#ifndef AP_IDENTITY_H
#define AP_IDENTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/util.h"

struct json_object;

#define AP_IDENTITY_MAX_CONTENT	4

/* A range of the device and the CRC-32 of its bytes. */
struct ap_identity_content {
	uint64_t offset, length;	/* bytes, multiples of the logical sector */
	uint32_t crc32;
	bool uniform;			/* every byte the same (a blank disk says little) */
};

struct ap_disk_identity {
	/* NULL where the kernel and the drive do not say */
	char *wwn;
	char *serial;
	char *model;			/* the drive's own (see drivekey.c) */
	char *vendor;
	char *revision;			/* firmware; recorded, never compared */
	char *bridge;			/* "VENDOR PRODUCT" of a bridge (USB, SAT) that
					   presents the drive, never taken as the drive */
	/* the key alignprobe 0.1 read for this disk (SCSI INQUIRY: for a SATA
	   disk libata's, 16 and 4 characters) where it differs, to match old
	   records */
	char *legacy_vendor, *legacy_model, *legacy_revision;
	char *uuid;			/* dm or md UUID */
	uint64_t size;			/* bytes */
	unsigned logical_sector;	/* bytes */
	unsigned partition;		/* partition number, 0 for a whole disk */
	uint64_t partition_start;	/* bytes from the start of the disk */
	/* a loop device */
	bool loop;
	char *backing_file;		/* without a " (deleted)" suffix */
	unsigned backing_major, backing_minor;	/* the backing file's st_dev */
	uint64_t backing_inode;
	uint64_t backing_offset;	/* bytes */
	struct ap_identity_content content[AP_IDENTITY_MAX_CONTENT];
	size_t ncontent;
};

/* The fields, in the order ap_identity_compare() checks them. */
enum ap_identity_field {
	AP_IDENTITY_SAME = 0,
	AP_IDENTITY_SIZE,
	AP_IDENTITY_LOGICAL,
	AP_IDENTITY_WWN,
	AP_IDENTITY_SERIAL,
	AP_IDENTITY_UUID,
	AP_IDENTITY_BACKING,	/* loop or not, backing file, offset */
	AP_IDENTITY_MODEL,
	AP_IDENTITY_VENDOR,
	AP_IDENTITY_PARTITION,
	AP_IDENTITY_CONTENT,
};

/*
 * The drive's key (vendor, model, revision) from what its layers say:
 * the drive's own ATA IDENTIFY (through SAT: SG_IO ATA PASS-THROUGH or
 * VPD page 89h) when it answers: vendor "ATA" (as libata states every ATA
 * drive), IDENTIFY's model (40 characters), firmware (8) and serial, and
 * the INQUIRY vendor and product named as ->bridge when they are not
 * libata's own ("ATA"); else the INQUIRY strings, unless the disk is
 * attached through USB, where they describe the bridge: then no model
 * (so nothing is recorded for the wrong drive) and the bridge named.
 * ->legacy_* get the key alignprobe 0.1 used, the INQUIRY strings (for
 * libata's own SAT: "ATA", the model's first 16 characters, 4 of the
 * firmware's), where it differs. Pure.
 */
struct ap_ata_identify;
struct ap_identity_sources {
	const char *inq_vendor, *inq_model, *inq_revision;	/* SCSI INQUIRY, or NULL */
	const struct ap_ata_identify *ata;	/* the drive's IDENTIFY, NULL: none */
	bool usb;				/* attached through a USB bridge */
};
void ap_identity_decide(struct ap_disk_identity *id, const struct ap_identity_sources *src);

/*
 * The vendor/model/revision/serial/bridge of a SCSI disk (sysfs @whole,
 * block device @fd) from INQUIRY and the drive (ap_identity_decide()),
 * reading ATA IDENTIFY from sysfs device/vpd_pg89, else SG_IO VPD 89h,
 * ATA PASS-THROUGH(16) and (12); an NVMe namespace's from Identify
 * Controller where sysfs lacks them. Called by ap_identity_read().
 */
void ap_identity_read_drive(int fd, const char *whole, struct ap_disk_identity *id);

/*
 * Everything but the content, from block device @fd (any open mode).
 * -ENOTBLK when it is not a block device, -errno when its size cannot be
 * read; a field the device does not state stays NULL/0. @id is always
 * initialised (free it with ap_identity_free()).
 * Tests: a loop device's vendor, model, revision and serial come from
 * ALIGNPROBE_TEST_IDENTITY_<name>=VENDOR:MODEL:REVISION[:SERIAL] when set
 * (<name> the disk's kernel name, "loop7"; fields hold no colon, an empty
 * one states nothing). Never for other devices.
 */
int ap_identity_read(int fd, struct ap_disk_identity *id, struct ap_error *e);

/*
 * Add the CRC-32 of each of @n ranges of @fd to id->content (replacing what
 * was there). Reads through an aligned buffer, so @fd may be O_DIRECT.
 * -EINVAL for a range beyond id->size, not sector-aligned or too many.
 */
int ap_identity_read_content(int fd, struct ap_disk_identity *id,
			     const struct ap_identity_content *ranges, size_t n,
			     struct ap_error *e);

/*
 * The file @name beside alignprobe's emulated drive whose loop device has
 * @backing_file ("<workdir>/mnt/disk", <workdir> an "alignprobe-emu.*"
 * directory): "<workdir>/@name", malloc'd; NULL for any other backing file.
 */
char *ap_identity_emulated_file(const char *backing_file, const char *name);
void ap_identity_free(struct ap_disk_identity *id);
void ap_identity_copy(struct ap_disk_identity *dst, const struct ap_disk_identity *src);

/*
 * Is @have the disk @want describes? Every field @want records must be
 * recorded by @have and equal (a serial that was known and is now unknown
 * differs; a model or vendor equal to @have's legacy one is the same: a
 * record of alignprobe 0.1); the revision is not compared (firmware updates), nor are
 * fields @want does not record. Content is compared range by range, so
 * @have must have been read over @want's ranges (ap_identity_read_content).
 * ap_identity_compare_meta() skips the content (a cheap first pass).
 * AP_IDENTITY_SAME, or the first field that differs with a description
 * ("serial: the journal's disk has 'X', this device 'Y'") in @why.
 */
enum ap_identity_field ap_identity_compare(const struct ap_disk_identity *want,
					   const struct ap_disk_identity *have,
					   char *why, size_t whylen);
enum ap_identity_field ap_identity_compare_meta(const struct ap_disk_identity *want,
						const struct ap_disk_identity *have,
						char *why, size_t whylen);
const char *ap_identity_field_name(enum ap_identity_field f);

/*
 * Does @id tell one disk from another of the same size: a WWN, a serial, a
 * dm/md UUID, a loop device's backing file, or content that is not uniform?
 */
bool ap_identity_is_distinctive(const struct ap_disk_identity *id);

/*
 * Is @id one ATA disk: a drive that answered ATA IDENTIFY (vendor "ATA",
 * directly or through a bridge), whose model does not name a RAID (the
 * SATA RAID bridges that present a volume as one drive, "JMicron H/W
 * RAID5", answer IDENTIFY too)? One disk has no parity stripe.
 */
bool ap_identity_one_disk(const struct ap_disk_identity *id);

/* "WWN 0x5000c500a1b2c3d4, serial Z1F2, model ST4000, 4.0T, 512-byte sectors" */
char *ap_identity_describe(const struct ap_disk_identity *id);

/*
 * JSON: {"wwn", "serial", "model", "vendor", "revision", "bridge", "uuid"
 * (strings or null; "bridge" may be absent in older records), "size", "logical_sector", "partition" (0: a whole disk),
 * "partition_start", "loop" (boolean), "backing_file", "backing_device"
 * ("major:minor"), "backing_inode", "backing_offset" (null unless a loop
 * device), "content": [{"offset", "length", "crc32", "uniform"}]}.
 * Decoding checks every type: -EINVAL with the reason in @e.
 */
struct json_object *ap_identity_to_json(const struct ap_disk_identity *id);
int ap_identity_from_json(struct json_object *o, struct ap_disk_identity *id,
			  struct ap_error *e);

/* The devices that are the disk @want describes (see ap_identity_find()). */
struct ap_identity_match {
	char **paths;		/* /dev/NAME of each device that matches */
	size_t npaths;
	size_t examined;	/* devices of the right size that were read */
	char *rejected;		/* "/dev/x (serial differs), ..." of those that differ, or NULL */
};

/*
 * Find the disk @want describes among the block devices the kernel lists
 * in /sys/class/block (every disk, partition and loop device, with or
 * without udev and /dev/disk/by-id). When @hint (the path the record
 * named) matches, it is the only answer and nothing else is read.
 * Otherwise devices of the right size are opened read-only and compared
 * (content last). 0 with @m filled (npaths may be 0 or several), -errno
 * when /sys/class/block cannot be read.
 */
int ap_identity_find(const struct ap_disk_identity *want, const char *hint,
		     struct ap_identity_match *m, struct ap_error *e);
void ap_identity_match_free(struct ap_identity_match *m);

/*
 * Open @path read-only (O_DIRECT where the device allows), read its
 * identity and the content over @want's ranges (none when @want is NULL),
 * close it. 0 or -errno with @e. For examining a device before taking it.
 */
int ap_identity_read_path(const char *path, const struct ap_disk_identity *want,
			  struct ap_disk_identity *have, struct ap_error *e);

#endif
