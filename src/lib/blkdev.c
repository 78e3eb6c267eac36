// SPDX-License-Identifier: GPL-2.0-or-later
/* A block device's size and sector sizes (see blkdev.h). */
#include "lib/blkdev.h"
#include "lib/sysfs.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>
#include <linux/loop.h>

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

/* The backing file of /sys/block/@loop (lo_device, lo_inode): 0 or -errno. */
static int loop_backing_id(const char *loop, dev_t *dev, ino_t *ino)
{
	struct loop_info64 li;
	char path[300];
	struct stat st;
	char *bf;
	int fd, rc = -ENOENT;

	snprintf(path, sizeof(path), "/dev/%s", loop);
	/* read-only, not exclusive: asking the status claims nothing */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0) {
		/* set: valgrind does not know that the ioctl fills it */
		memset(&li, 0, sizeof(li));
		if (ioctl(fd, LOOP_GET_STATUS64, &li) == 0) {
			*dev = (dev_t)li.lo_device;
			*ino = (ino_t)li.lo_inode;
			rc = 0;
		} else {
			rc = -errno;
		}
		close(fd);
		if (rc == 0 || rc == -ENXIO)
			return rc;	/* ENXIO: not attached */
	}
	/* no access to the device node: the path the kernel shows */
	bf = ap_sysfs_loop_backing_file(loop, true);
	if (!bf)
		return -ENXIO;
	if (stat(bf, &st) == 0) {
		*dev = st.st_dev;
		*ino = st.st_ino;
		rc = 0;
	} else {
		rc = -errno;
	}
	free(bf);
	return rc;
}

int ap_blkdev_loop_backed_by(dev_t dev, ino_t ino, char *name, size_t len)
{
	struct dirent *de;
	DIR *D = opendir("/sys/block");
	int found = 0;

	if (!D)
		return errno == ENOENT ? 0 : -errno;
	while (!found && (de = readdir(D))) {
		char *bf;
		dev_t d;
		ino_t i;

		if (strncmp(de->d_name, "loop", 4) != 0)
			continue;
		bf = ap_sysfs_loop_backing_file(de->d_name, false);
		if (!bf)
			continue;	/* not attached */
		free(bf);
		if (loop_backing_id(de->d_name, &d, &i) == 0 && d == dev && i == ino) {
			snprintf(name, len, "%s", de->d_name);
			found = 1;
		}
	}
	closedir(D);
	return found;
}

int ap_blkdev_loop_detach(const char *dev, bool excl, unsigned wait_ms)
{
	const char *name = strrchr(dev, '/');
	struct timespec ts = { 0, 10 * 1000000L };
	unsigned waited;
	char *bf;
	int fd;

	name = name ? name + 1 : dev;
	fd = open(dev, O_RDONLY | O_CLOEXEC | (excl ? O_EXCL : 0));
	if (fd < 0)
		return -errno;
	if (ioctl(fd, LOOP_CLR_FD, 0) != 0 && errno != ENXIO) {
		int err = errno;

		close(fd);
		return -err;
	}
	close(fd);
	/* the kernel lets go of the backing file when the last opener closes */
	for (waited = 0; (bf = ap_sysfs_loop_backing_file(name, false)); waited += 10) {
		free(bf);
		if (waited >= wait_ms)
			return -ETIMEDOUT;
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* the same device (or, for what is none, the same file) */
static bool same_node(const struct stat *a, const struct stat *b)
{
	if (S_ISBLK(a->st_mode) || S_ISBLK(b->st_mode))
		return S_ISBLK(a->st_mode) && S_ISBLK(b->st_mode) && a->st_rdev == b->st_rdev;
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

void ap_blkdev_twins(char *const *devs, size_t n, size_t *twin)
{
	struct stat *st = ap_xcalloc(n ? n : 1, sizeof(*st));
	bool *ok = ap_xcalloc(n ? n : 1, sizeof(*ok));
	size_t i, j;

	for (i = 0; i < n; i++) {
		ok[i] = stat(devs[i], &st[i]) == 0;
		twin[i] = i;
		for (j = 0; ok[i] && j < i; j++)
			if (ok[j] && same_node(&st[i], &st[j])) {
				twin[i] = j;
				break;
			}
	}
	free(st);
	free(ok);
}
