// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The loop device an emulated drive is served through (see emuP.h): a free
 * one picked, registered with the server and configured on the served
 * file with the drive's logical sectors; what the kernel is told of the
 * drive through its queue (write cache, rotation); an image's partitions
 * added; and the device cleared again, with who keeps it when it cannot
 * be. The drive's life cycle around it: attach.c.
 */
#include "emu/emuP.h"
#include "emu/server.h"
#include "lib/blkdev.h"
#include "lib/state.h"
#include "lib/sysfs.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <blkid.h>
#include <linux/blkpg.h>
#include <linux/loop.h>

/*
 * Who keeps /dev/@name from being detached exclusively: 1 a live alignprobe
 * run's hold (the reason in @e), 2 a mount or a stacking driver (dm, md) on
 * it or a partition, 0 another opener (a program that opened it O_EXCL, a
 * run that died holding it).
 */
static int loop_user(const char *name, struct ap_error *e)
{
	char *v = ap_sysfs_name_attr(name, "dev"), *cmd = NULL;
	int rc = 0;
	pid_t pid;
	dev_t d;

	if (v && ap_sysfs_parse_devno(v, &d) == 0) {
		if (ap_state_live_hold(d, &pid, &cmd)) {
			ap_error_set(e, EBUSY, "/dev/%s: in use by a running alignprobe %s (PID %d)",
				     name, cmd, (int)pid);
			rc = 1;
		} else if (ap_mountinfo_has_disk(d) || ap_sysfs_has_holders(name)) {
			rc = 2;
		}
	}
	free(cmd);
	free(v);
	return rc;
}

/*
 * Clear the loop device @name (which must be ours) and wait for it to let
 * go. Mounted, held by dm/md (it or a partition) or by a live run:
 * refused, -EBUSY. Held open exclusively by somebody else (a program that
 * opened it O_EXCL, a run that died holding it): cleared all the same,
 * which the kernel completes (autoclear) when the last opener closes, so
 * that a run that fails never leaves its drive behind; the opener's
 * requests fail from now on.
 */
int ap_emu_loop_clear(const char *name, struct ap_error *e)
{
	char dev[80];
	int rc, user;

	snprintf(dev, sizeof(dev), "/dev/%s", name);
	/* exclusive: fails while mounted or otherwise claimed */
	rc = ap_blkdev_loop_detach(dev, true, 10000);
	user = rc == -EBUSY ? loop_user(name, e) : 0;
	if (user == 1)
		return -EBUSY;
	if (rc == -EBUSY && !user) {
		rc = ap_blkdev_loop_detach(dev, false, 0);
		if (rc == -ETIMEDOUT)
			rc = 0;		/* detached when its last opener closes */
	}
	if (rc == -EBUSY)
		return ap_error_set(e, EBUSY, "%s: in use (mounted?): unmount it first", dev);
	if (rc == -ETIMEDOUT)
		/* the loop device was let go of: a failure half-way, not a refusal */
		return ap_error_set(e, ETIMEDOUT, "%s: still attached after detaching (held open?)",
				    dev);
	if (rc)
		return ap_error_set(e, -rc, "%s: cannot detach the loop device: %s", dev,
				    strerror(-rc));
	return 0;
}

/*
 * Clear every loop device still over the served file of @workdir, whatever
 * attached it (by hand, or a run that died before the server learnt its
 * number), while the FUSE mount is still there to name the file: once it is
 * lazily detached, such a device shows "/disk" and nobody can tell whose it
 * was. The first error (a device mounted or held by a live run), or 0.
 */
int ap_emu_loop_clear_all(const char *workdir, struct ap_error *e)
{
	struct dirent *de;
	DIR *D = opendir("/sys/block");
	int rc = 0;

	while (rc == 0 && D && (de = readdir(D)))
		if (strncmp(de->d_name, "loop", 4) == 0 && ap_emu_loop_serves(de->d_name, workdir))
			rc = ap_emu_loop_clear(de->d_name, e);
	if (D)
		closedir(D);
	return rc;
}

static int loop_configure(int lfd, int ffd, const char *file, unsigned lbs)
{
	struct loop_config cfg;
	struct loop_info64 info;

	memset(&cfg, 0, sizeof(cfg));
	cfg.fd = (uint32_t)ffd;
	cfg.block_size = lbs;
	cfg.info.lo_flags = LO_FLAGS_PARTSCAN;
	snprintf((char *)cfg.info.lo_file_name, LO_NAME_SIZE, "%s", file);
	if (ioctl(lfd, LOOP_CONFIGURE, &cfg) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOTTY)
		return -errno;
	/* kernels before 5.8 */
	if (ioctl(lfd, LOOP_SET_FD, ffd) != 0)
		return -errno;
	memset(&info, 0, sizeof(info));
	info.lo_flags = LO_FLAGS_PARTSCAN;
	snprintf((char *)info.lo_file_name, LO_NAME_SIZE, "%s", file);
	if (ioctl(lfd, LOOP_SET_STATUS64, &info) != 0) {
		int err = errno;

		ioctl(lfd, LOOP_CLR_FD, 0);
		return -err;
	}
	if (lbs != 512 && ioctl(lfd, LOOP_SET_BLOCK_SIZE, (unsigned long)lbs) != 0) {
		int err = errno;

		ioctl(lfd, LOOP_CLR_FD, 0);
		return -err;
	}
	return 0;
}

/* Pick a free loop device, have the server register it, attach. */
int ap_emu_loop_attach(const char *workdir, int ctl, int st, unsigned lbs, char **dev,
		       struct ap_error *e)
{
	char *file, line[96];
	int cfd, ffd, rc = -EBUSY;
	unsigned tries;

	cfd = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (cfd < 0)
		return ap_error_set(e, errno, "/dev/loop-control: %s", strerror(errno));
	ap_xasprintf(&file, "%s/mnt/%s", workdir, AP_EMU_FILE);
	ffd = open(file, O_RDWR | O_CLOEXEC);
	if (ffd < 0) {
		rc = ap_error_set(e, errno, "cannot open the served file %s: %s", file, strerror(errno));
		goto out;
	}
	for (tries = 0; tries < 50; tries++) {
		int n = ioctl(cfd, LOOP_CTL_GET_FREE), lfd = -1, i;

		if (n < 0) {
			rc = ap_error_set(e, errno, "no free loop device: %s", strerror(errno));
			break;
		}
		snprintf(line, sizeof(line), "dev /dev/loop%d\n", n);
		rc = ap_emu_server_send(ctl, line);
		if (rc == 0)
			rc = ap_emu_server_reply(st, "ok", e);
		else
			ap_error_set(e, -rc, "the emulator's server died (see its log)");
		if (rc)
			break;
		line[strlen(line) - 1] = '\0';
		for (i = 0; i < 100 && lfd < 0; i++) {
			lfd = open(line + 4, O_RDWR | O_CLOEXEC);
			if (lfd < 0 && errno == ENOENT)
				ap_sleep_ms(10);
			else
				break;
		}
		if (lfd < 0) {
			rc = ap_error_set(e, errno, "%s: %s", line + 4, strerror(errno));
			break;
		}
		rc = loop_configure(lfd, ffd, file, lbs);
		close(lfd);
		if (rc == 0) {
			*dev = ap_xstrdup(line + 4);
			break;
		}
		if (rc != -EBUSY) {
			ap_error_set(e, -rc, "%s: cannot attach: %s", line + 4, strerror(-rc));
			break;
		}
		/* another process took it between GET_FREE and CONFIGURE */
		ap_sleep_ms(tries);
	}
	if (rc == -EBUSY)
		ap_error_set(e, EBUSY, "no loop device could be attached (all busy)");
out:
	if (ffd >= 0)
		close(ffd);
	close(cfd);
	free(file);
	return rc;
}

/*
 * A drive with its write cache off says "write through", so the kernel sends
 * it no flushes (a real disk with WCE=0); with the cache on, "write back".
 */
/* The loop device's queue attribute @attr (write_cache, rotational) set to @val. */
static int set_queue_attr(const char *dev, const char *attr, const char *val,
			  struct ap_error *e)
{
	const char *name = strrchr(dev, '/');
	char path[128];
	int rc;

	snprintf(path, sizeof(path), "/sys/block/%s/queue/%s", name ? name + 1 : dev, attr);
	rc = ap_sysfs_write(path, val);
	if (rc < 0)
		return ap_error_set(e, -rc, "%s: cannot set \"%s\": %s", path, val,
				    strerror(-rc));
	return 0;
}

/*
 * What the kernel is told of the drive: its write cache ("write back"
 * makes it send flushes) and, for the hdd model, a rotating disk
 * (queue/rotational 1, as a real disk says; a loop device on FUSE says 0).
 * Not its discards: the kernel keeps a loop device's discard_max_bytes 0
 * over detaches for good (its granularity drops to 0 and no other value is
 * taken back), so trim=off is the server's (server.c) and the drive's
 * spec's (ap_emu_spec_of()), never the loop device's.
 */
int ap_emu_loop_set_queue(const char *dev, const struct ap_emu_spec *s, struct ap_error *e)
{
	/* flushes that cost media time must arrive: "write back" (model.h) */
	int rc = set_queue_attr(dev, "write_cache", s->write_cache || s->flush_media ?
				"write back" : "write through", e);

	if (rc == 0)
		rc = set_queue_attr(dev, "rotational", s->model == AP_EMU_MODEL_HDD ? "1" : "0", e);
	return rc;
}

/*
 * An image's partitions: the kernel may lack the parsers for its table (this
 * one does), so add what libblkid finds with BLKPG, as partx -a does. Best
 * effort: the drive is usable without them (partx -a or partprobe later).
 */
void ap_emu_loop_add_partitions(const char *dev)
{
	blkid_probe pr = blkid_new_probe_from_filename(dev);
	blkid_partlist ls;
	int fd, i, n;

	if (!pr)
		return;
	blkid_probe_enable_superblocks(pr, 0);
	blkid_probe_enable_partitions(pr, 1);
	ls = blkid_probe_get_partitions(pr);
	n = ls ? blkid_partlist_numof_partitions(ls) : 0;
	fd = n > 0 ? open(dev, O_RDONLY | O_CLOEXEC) : -1;
	for (i = 0; fd >= 0 && i < n; i++) {
		blkid_partition par = blkid_partlist_get_partition(ls, i);
		struct blkpg_partition part = { 0 };
		struct blkpg_ioctl_arg arg = {
			.op = BLKPG_ADD_PARTITION,
			.datalen = sizeof(part),
			.data = &part,
		};

		if (!par || blkid_partition_is_extended(par))
			continue;
		part.pno = blkid_partition_get_partno(par);
		part.start = (long long)blkid_partition_get_start(par) * 512;
		part.length = (long long)blkid_partition_get_size(par) * 512;
		/* EBUSY: the kernel has it already */
		if (ioctl(fd, BLKPG, &arg) != 0 && errno != EBUSY)
			continue;
	}
	if (fd >= 0)
		close(fd);
	blkid_free_probe(pr);
}
