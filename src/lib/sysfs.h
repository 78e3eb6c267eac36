/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading sysfs and procfs, as util-linux's lib/sysfs.c: one-line
 * attributes of a block device, device number <-> kernel name, the whole
 * disk of a partition, a loop device's backing file, and the lines of
 * /proc/self/mountinfo. Every module that asks the kernel about a disk
 * goes through here.
 */
#ifndef AP_SYSFS_H
#define AP_SYSFS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/util.h"

/* "/sys/dev/block/M:m" (caller frees). */
char *ap_sysfs_devno_path(dev_t d);

/*
 * Attribute @attr ("size", "queue/write_cache") of the block device @d,
 * read with ap_read_line(): malloc'd, or NULL when unreadable or empty.
 * ap_sysfs_devno_attr_u64() parses it strictly: 0 or -errno.
 */
char *ap_sysfs_devno_attr(dev_t d, const char *attr);
int ap_sysfs_devno_attr_u64(dev_t d, const char *attr, uint64_t *v);

/* The same for "/sys/block/NAME/ATTR", by kernel name ("loop3"). */
char *ap_sysfs_name_attr(const char *name, const char *attr);
/* The same for "DIR/ATTR", a device's sysfs directory. */
char *ap_sysfs_dir_attr(const char *dir, const char *attr);

/*
 * Write @val to the attribute file @path in one write(2), as echo does
 * (without the newline): 0 or -errno (what the kernel's store function
 * returned: -EINVAL for a value it does not take).
 */
int ap_sysfs_write(const char *path, const char *val);

/* "M:m" (the whole string) into @d: 0 or -EINVAL. */
int ap_sysfs_parse_devno(const char *s, dev_t *d);

/*
 * Walk the partitions of the disk with kernel name @name ("sda": the
 * entries of /sys/class/block/sda that start with the name and hold a
 * "partition" file), or the devices a dm/md device @d is built from (its
 * "slaves" folder), calling @fn with each one's kernel name and device
 * number (entries whose "dev" is unreadable are skipped) until it returns
 * non-zero: that value, or 0 (also when the folder does not exist).
 */
int ap_sysfs_foreach_partition(const char *name,
			       int (*fn)(const char *name, dev_t d, void *arg), void *arg);
int ap_sysfs_foreach_slave(dev_t d, int (*fn)(const char *name, dev_t d, void *arg), void *arg);

/* Kernel name of a block device number ("loop3p1"), or NULL. */
char *ap_sysfs_devno_to_name(dev_t d);

bool ap_sysfs_devno_is_partition(dev_t d);

/* Its "ro" attribute: a read-only device opens O_RDWR fine; only the writes would fail. */
bool ap_sysfs_devno_is_readonly(dev_t d);

/* The whole disk a partition belongs to (itself for a whole disk, or when unknown). */
dev_t ap_sysfs_devno_to_wholedisk(dev_t d);

/* Kernel name of the whole disk of @d ("loop7" for loop7p1), or NULL. */
char *ap_sysfs_wholedisk_name(dev_t d);

/*
 * The backing file of loop device @name ("loop3") from sysfs, NULL when it
 * has none. A deleted file shows as "/path (deleted)": @strip_deleted cuts
 * that suffix off.
 */
char *ap_sysfs_loop_backing_file(const char *name, bool strip_deleted);

/* Cut a trailing " (deleted)" (a loop device's vanished backing file) off @s, in place. */
void ap_sysfs_strip_deleted(char *s);

/* One line of /proc/self/mountinfo. */
struct ap_mountinfo {
	dev_t devno;		/* field 3 ("M:m"); 0:NN for btrfs and others */
	bool has_devno;		/* field 3 parsed */
	char target[4096];	/* mount point, \ooo escapes undone */
	char source[4096];	/* after " - fstype ", unescaped; "" when absent */
};

/* Parse one line (with or without its newline): 0, or -EINVAL when it has no mount point. */
int ap_mountinfo_parse_line(const char *line, struct ap_mountinfo *m);

/*
 * Call @fn on every line of /proc/self/mountinfo, in order, until it
 * returns non-zero: that value, 0 at the end, or -errno when the file
 * cannot be opened (errno is kept for the caller's message). Lines that
 * do not parse are skipped.
 */
int ap_mountinfo_foreach(int (*fn)(const struct ap_mountinfo *m, void *arg), void *arg);
/* Is the block device @d, or a partition of it, mounted (by device number)? */
bool ap_mountinfo_has_disk(dev_t d);
/*
 * Does a stacking driver (device mapper, md, LVM) hold the block device
 * @name ("loop3") or one of its partitions (sysfs holders/)?
 */
bool ap_sysfs_has_holders(const char *name);

#endif
