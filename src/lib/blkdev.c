// SPDX-License-Identifier: GPL-2.0-or-later
/* A block device's size and sector sizes (see blkdev.h). */
#include "lib/blkdev.h"

#include <errno.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <linux/fs.h>

int ap_blkdev_get_sizes(int fd, uint64_t *size, unsigned *logical, unsigned *physical)
{
	uint64_t sz;
	unsigned int pbs;
	int lbs;

	if (size) {
		if (ioctl(fd, BLKGETSIZE64, &sz) != 0)
			return -errno;
		*size = sz;
	}
	if (logical) {
		if (ioctl(fd, BLKSSZGET, &lbs) != 0)
			return -errno;
		*logical = (unsigned)lbs;
	}
	if (physical) {
		if (ioctl(fd, BLKPBSZGET, &pbs) != 0)
			return -errno;
		*physical = pbs;
	}
	return 0;
}
