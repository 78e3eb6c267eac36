/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Switching a disk's volatile write cache the way the kernel offers it, for
 * an experiment that must leave the disk as it found it (seq --write-cache).
 *
 * - A SCSI disk (sd: SATA behind libata, SAS, USB bridges speaking SCSI):
 *   /sys/block/sdX/device/scsi_disk/H:C:T:L/cache_type. Writing "write back"
 *   or "write through" makes the sd driver read the caching mode page,
 *   change its WCE bit, send it back with MODE SELECT and revalidate the
 *   disk, so the drive itself switches (and keeps the setting over a power
 *   cycle when the page is saveable: hence the registry record and the
 *   restore). The RCD bit (read cache disabled) is kept as found: "none"
 *   and "write back, no read (daft)" are its other two states. The
 *   "temporary " prefix would only change what the kernel believes and
 *   sends, not the drive: it is never written.
 * - The emulated drive's loop device: queue/write_cache, which decides
 *   whether the kernel sends flushes; the emulated drive's own cache model
 *   is switched by the command next to it (emu.h: ap_emu_set_write_cache).
 * Anything else (NVMe, virtio, a plain loop device, a file) offers no way:
 * its queue/write_cache would only change what the kernel sends, not the
 * drive, and is never written here.
 */
#ifndef AP_DEVICE_CACHE_H
#define AP_DEVICE_CACHE_H

#include <stdbool.h>

#include "lib/util.h"

enum ap_wcache_how {
	AP_WCACHE_SCSI,		/* device/scsi_disk/H:C:T:L/cache_type: MODE SELECT */
	AP_WCACHE_QUEUE,	/* queue/write_cache only: the emulated drive's loop device */
};

struct ap_wcache {
	enum ap_wcache_how how;
	char *disk;		/* sysfs name of the whole disk: "sdb", "loop3" */
	char *attr;		/* the sysfs file written */
	char *orig;		/* its value when found */
	bool orig_on;		/* the write cache was on then (WCE) */
	bool rcd;		/* SCSI: the read cache was off (RCD), kept */
};

/*
 * A cache_type or queue/write_cache value: "write back" (WCE), "write
 * through", "none" (RCD), "write back, no read (daft)" (WCE, RCD); a
 * "temporary " prefix is skipped. 0, or -EINVAL for anything else.
 */
int ap_wcache_value_parse(const char *v, bool *wce, bool *rcd);
/* The value that sets WCE to @on and keeps @rcd (SCSI) for @how. */
const char *ap_wcache_value(enum ap_wcache_how how, bool on, bool rcd);
const char *ap_wcache_how_name(enum ap_wcache_how how);

/*
 * How whole disk @disk switches its write cache, and its state now. @queue:
 * the emulated drive's loop device (queue/write_cache). 0, or -ENODEV with
 * the reason in @e when the kernel offers no way (or -errno when the
 * attribute cannot be read).
 */
int ap_wcache_find(const char *disk, bool queue, struct ap_wcache *w, struct ap_error *e);
/* Switch: 0, or -errno. SCSI: read back, -EIO when the drive did not take it. */
int ap_wcache_set(const struct ap_wcache *w, bool on, struct ap_error *e);
/* Write @value to @attr (cleanup restoring a record): 0 or -errno. */
int ap_wcache_write(const char *attr, const char *value, struct ap_error *e);
void ap_wcache_free(struct ap_wcache *w);

/*
 * The registry record's aux (lib/state.h, AP_STATE_WCACHE): one line,
 * "model=on|off|-;orig=VALUE;backing=PATH". @model: the emulated drive's
 * cache model when found (1 on, 0 off, -1 not an emulated drive); @orig:
 * the attribute's value (one of the kernel's, never a ';'); @backing: the
 * loop device's backing file then (NULL: none), so that a restore never
 * touches the drive that took the number afterwards -- last, as it may
 * hold anything but a newline. Parsing gives malloc'd strings: 0, or
 * -EINVAL.
 */
char *ap_wcache_record_aux(int model, const char *backing, const char *orig);
int ap_wcache_record_parse(const char *aux, int *model, char **backing, char **orig);

#endif
