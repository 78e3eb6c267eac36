/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A block device's size and sector sizes from the kernel's ioctls
 * (BLKGETSIZE64, BLKSSZGET, BLKPBSZGET), as util-linux's lib/blkdev.c:
 * one copy for every module that opens a disk.
 */
#ifndef AP_BLKDEV_H
#define AP_BLKDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The size in bytes, the logical and the physical sector size of the block
 * device open on @fd, each into its pointer; a NULL pointer skips its
 * ioctl (asked in that order: size, logical, physical). 0, or -errno of
 * the first ioctl that failed.
 */
int ap_blkdev_get_sizes(int fd, uint64_t *size, unsigned *logical, unsigned *physical);

/*
 * Is the file (@dev, @ino: st_dev and st_ino of a stat()) the backing file
 * of a loop device? Compared by device and inode, not by path (a symbolic
 * link, a bind mount or another mount namespace shows another path): the
 * loop device's LOOP_GET_STATUS64 (lo_device, lo_inode), else a stat() of
 * the path sysfs shows. Any offset or size limit counts: a loop device
 * over part of the file is a user of the file too. 1 with the first such
 * loop device's kernel name ("loop3") in @name, 0 when none, -errno when
 * /sys/block cannot be read.
 */
int ap_blkdev_loop_backed_by(dev_t dev, ino_t ino, char *name, size_t len);

/*
 * Detach the loop device @dev (LOOP_CLR_FD), opened O_EXCL when @excl (so
 * that a mounted or claimed device is refused: -EBUSY), and wait up to
 * @wait_ms for the kernel to let go of the backing file (a device still
 * open elsewhere is only marked autoclear). 0 detached, -ETIMEDOUT still
 * attached after the wait, -errno of the open or the ioctl. ENXIO (not
 * attached) counts as detached. The one copy of the loop detach, for the
 * emulator and for cleanup.
 */
int ap_blkdev_loop_detach(const char *dev, bool excl, unsigned wait_ms);

/*
 * Paths naming one node: twin[i] is the first earlier entry of @devs
 * naming the same device (or, for what is none, the same file), or i;
 * a path that does not exist is nobody's twin (said by its command later).
 */
void ap_blkdev_twins(char *const *devs, size_t n, size_t *twin);

#endif
