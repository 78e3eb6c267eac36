// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mount(2) on a private directory. Order matters for `alignprobe cleanup`
 * after a SIGKILL at any instant:
 *   register TMPDIR -> mkdir -> register MOUNT -> mount(2)
 *   umount2 -> release MOUNT -> rmdir -> release TMPDIR
 * so a registered MOUNT entry may name a directory that is not (or no
 * longer) mounted, and a TMPDIR entry a directory that is already gone;
 * cleanup treats both as done.
 */
#include "device/mount.h"

#include "lib/state.h"
#include "lib/sysfs.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <time.h>
#include <unistd.h>

static void mnt_free(struct ap_mount *m)
{
	free(m->dir);
	free(m->dir_id);
	free(m->mnt_id);
	memset(m, 0, sizeof(*m));
}

const char *ap_mount_parent(void)
{
	const char *tmp = getenv("TMPDIR");

	return tmp && *tmp ? tmp : "/tmp";
}

int ap_mount_mount(const char *dev, const char *fstype, const char *opts,
		   const char *disk, struct ap_mount *m, struct ap_error *e)
{
	static unsigned seq;
	const char *tmp = ap_mount_parent();
	int rc = 0, tries;

	memset(m, 0, sizeof(*m));
	/*
	 * Register first, then create: a SIGKILL between the two leaves an
	 * entry for a directory that does not exist (cleanup: nothing to do),
	 * never a directory nobody knows about. mkdir's EEXIST makes the name
	 * ours alone, as mkdtemp would.
	 */
	for (tries = 0; tries < 100; tries++) {
		ap_xasprintf(&m->dir, "%s/alignprobe-mnt.%d.%x%06llx", tmp, (int)getpid(), seq++,
			     (unsigned long long)(ap_now_ns() & 0xffffff));
		rc = ap_state_register(AP_STATE_TMPDIR, m->dir, disk, NULL, &m->dir_id);
		if (rc) {
			rc = ap_error_set(e, -rc, "state directory %s: cannot register %s: %s",
					  ap_state_dir(), m->dir, strerror(-rc));
			mnt_free(m);
			return rc;
		}
		if (mkdir(m->dir, 0700) == 0)
			break;
		rc = -errno;
		ap_state_release(m->dir_id);
		free(m->dir_id);
		m->dir_id = NULL;
		if (rc != -EEXIST) {
			rc = ap_error_set(e, -rc, "%s: cannot create a mount point: %s", m->dir,
					  strerror(-rc));
			mnt_free(m);
			return rc;
		}
		free(m->dir);
		m->dir = NULL;
	}
	if (!m->dir) {
		mnt_free(m);
		return ap_error_set(e, EEXIST, "%s: cannot create a mount point", tmp);
	}
	rc = ap_state_register(AP_STATE_MOUNT, m->dir, dev, fstype, &m->mnt_id);
	if (rc) {
		rc = ap_error_set(e, -rc, "state directory %s: cannot register a mount: %s",
				  ap_state_dir(), strerror(-rc));
		ap_mount_umount(m, NULL);
		return rc;
	}
	if (mount(dev, m->dir, fstype, MS_NOATIME, opts) != 0) {
		rc = ap_error_set(e, errno, "mount %s (%s) on %s: %s", dev, fstype,
				  m->dir, strerror(errno));
		ap_mount_umount(m, NULL);
		return rc;
	}
	m->mounted = true;
	return 0;
}

int ap_mount_remount(const struct ap_mount *m, const char *opts, struct ap_error *e)
{
	if (!m->mounted)
		return ap_error_set(e, EINVAL, "remount: nothing mounted");
	/*
	 * MS_REMOUNT ignores the source and the type; empty strings rather
	 * than NULL, which memcheck reports as an unaddressable argument.
	 */
	if (mount("", m->dir, "", MS_REMOUNT | MS_NOATIME, opts) != 0)
		return ap_error_set(e, errno, "remount %s (%s): %s", m->dir, opts ? opts : "",
				    strerror(errno));
	return 0;
}

/*
 * ext4's EXT4_IOC_SHUTDOWN, XFS's XFS_IOC_GOINGDOWN and f2fs's
 * F2FS_IOC_SHUTDOWN are one ioctl with one flag set (the kernel's f2fs
 * header exports it; Debian 12's headers have none for ext4).
 */
#define AP_FS_IOC_SHUTDOWN	_IOR('X', 125, uint32_t)
#define AP_FS_SHUTDOWN_NOLOGFLUSH	0x2

int ap_mount_shutdown(const struct ap_mount *m, struct ap_error *e)
{
	uint32_t flags = AP_FS_SHUTDOWN_NOLOGFLUSH;
	int fd, rc = 0;

	if (!m->mounted)
		return ap_error_set(e, EINVAL, "shutdown: nothing mounted");
	fd = open(m->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return ap_error_set(e, errno, "%s: %s", m->dir, strerror(errno));
	if (ioctl(fd, AP_FS_IOC_SHUTDOWN, &flags) != 0)
		rc = ap_error_set(e, errno, "shut down the file system on %s: %s", m->dir,
				  strerror(errno));
	close(fd);
	return rc;
}

int ap_mount_umount_dir(const char *dir, int flags)
{
	struct timespec ts = { 0, 20 * 1000000L };
	int i;

	for (i = 0; umount2(dir, flags) != 0; i++) {
		int err = errno;

		if (err == EINVAL || err == ENOENT)	/* not mounted */
			return 0;
		if ((err != EBUSY && err != EINTR) || i >= 100)
			return -err;
		nanosleep(&ts, NULL);
	}
	return 0;
}

int ap_mount_umount(struct ap_mount *m, struct ap_error *e)
{
	int rc = 0;

	if (!m->dir) {
		mnt_free(m);
		return 0;
	}
	if (m->mounted) {
		int err = -ap_mount_umount_dir(m->dir, 0);

		if (err) {
			/* never leave it reachable: detach lazily */
			if (umount2(m->dir, MNT_DETACH) != 0) {
				/* still mounted: keep the registry entries for cleanup */
				rc = ap_error_set(e, err, "umount %s: %s", m->dir, strerror(err));
				mnt_free(m);
				return rc;
			}
			rc = ap_error_set(e, err, "umount %s: %s (detached lazily)", m->dir,
					  strerror(err));
		}
		m->mounted = false;
	}
	if (m->mnt_id)
		ap_state_release(m->mnt_id);
	if (rmdir(m->dir) != 0 && errno != ENOENT && !rc)
		rc = ap_error_set(e, errno, "rmdir %s: %s", m->dir, strerror(errno));
	else if (m->dir_id)
		ap_state_release(m->dir_id);
	mnt_free(m);
	return rc;
}

struct find_mount_arg {
	const char *path;
	size_t plen;
	bool under;
	char **source;
	dev_t *devno;
	int found;
};

static int find_mount_line(const struct ap_mountinfo *m, void *arg)
{
	struct find_mount_arg *a = arg;
	bool match;

	if (a->under)
		match = strncmp(m->target, a->path, a->plen) == 0 &&
			(m->target[a->plen] == '\0' || m->target[a->plen] == '/');
	else
		match = strcmp(m->target, a->path) == 0;
	if (!match)
		return 0;
	a->found = 1;	/* later lines are mounted on top: keep the last */
	if (a->devno && m->has_devno)
		*a->devno = m->devno;
	if (a->source && m->source[0]) {
		free(*a->source);
		*a->source = ap_xstrdup(m->source);
	}
	return 0;
}

int ap_mount_find(const char *path, bool under, char **source, dev_t *devno)
{
	struct find_mount_arg a = { path, strlen(path), under, source, devno, 0 };

	ap_mountinfo_foreach(find_mount_line, &a);
	return a.found;
}

/* Is the mount (source, devno) the registered @dev? */
static bool mount_is(const char *dev, const char *source, dev_t devno)
{
	struct stat st;

	if (!dev)
		return false;	/* we cannot tell: do not touch it */
	if (source && strcmp(source, dev) == 0)
		return true;
	return stat(dev, &st) == 0 && S_ISBLK(st.st_mode) && st.st_rdev == devno;
}

int ap_mount_undo(const char *dir, const char *dev, bool dry_run, struct ap_error *e)
{
	int rc, n = 0;

	for (;;) {
		char *source = NULL;
		dev_t devno = 0;

		if (!ap_mount_find(dir, false, &source, &devno))
			return n;
		if (!mount_is(dev, source, devno)) {
			rc = ap_error_set(e, EBUSY, "%s is mounted there, not the registered %s: "
					  "left alone", source ? source : "something",
					  dev ? dev : "device");
			free(source);
			return rc;
		}
		free(source);
		if (dry_run)
			return 1;
		/* a dying child may still hold it for a moment */
		rc = ap_mount_umount_dir(dir, UMOUNT_NOFOLLOW);
		if (rc)
			return ap_error_set(e, -rc, "umount: %s", strerror(-rc));
		if (++n > 16)
			return ap_error_set(e, EBUSY, "still mounted after %d unmounts", n - 1);
	}
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP || flag == FTW_D)
		return rmdir(path) != 0 ? -1 : 0;
	return unlink(path) != 0 ? -1 : 0;
}

static bool safe_tmp_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return path[0] == '/' && !strstr(path, "/..") && b && strncmp(b + 1, "alignprobe", 10) == 0;
}

int ap_mount_remove_dir(const char *dir, struct ap_error *e)
{
	int err;

	if (rmdir(dir) == 0)
		return 0;
	err = errno;
	if ((err != ENOTEMPTY && err != EEXIST) || !safe_tmp_name(dir))
		return ap_error_set(e, err, "rmdir: %s", strerror(err));
	/* our own scratch directory: its contents are ours; stay on this fs */
	if (nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) != 0)
		return ap_error_set(e, errno, "cannot remove its contents: %s", strerror(errno));
	return 0;
}
