/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A block device's size and sector sizes from the kernel's ioctls
 * (BLKGETSIZE64, BLKSSZGET, BLKPBSZGET), as util-linux's lib/blkdev.c:
 * one copy for every module that opens a disk.
 */
#ifndef AP_BLKDEV_H
#define AP_BLKDEV_H

#include <stdint.h>

/*
 * The size in bytes, the logical and the physical sector size of the block
 * device open on @fd, each into its pointer; a NULL pointer skips its
 * ioctl (asked in that order: size, logical, physical). 0, or -errno of
 * the first ioctl that failed.
 */
int ap_blkdev_get_sizes(int fd, uint64_t *size, unsigned *logical, unsigned *physical);

#endif
