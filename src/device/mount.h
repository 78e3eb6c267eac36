/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Mounting a file system (a sweep step's) on a private temporary
 * directory with mount(2), and taking it down again; cleanup's undo of a
 * mount and a directory left behind. Both the directory and
 * the mount are in the state registry (src/lib/state.h) from the moment they
 * exist until they are gone, so `alignprobe cleanup` can remove them after
 * a SIGKILL.
 */
#ifndef AP_MOUNT_H
#define AP_MOUNT_H

#include <stdbool.h>
#include <sys/types.h>

#include "lib/util.h"

struct ap_mount {
	char *dir;		/* the mount point, a directory we created */
	char *dir_id;		/* registry entry of the directory (AP_STATE_TMPDIR) */
	char *mnt_id;		/* registry entry of the mount (AP_STATE_MOUNT) */
	bool mounted;
};

/* Where the mount points go: $TMPDIR, or /tmp. */
const char *ap_mount_parent(void);

/*
 * Make a directory "alignprobe-mnt.<pid>.<unique>" (0700) in $TMPDIR (or /tmp), then
 * mount @dev (file system type @fstype, mount(2) data @opts or NULL) on it.
 * The registry entries name @disk (the directory) and @dev (the mount), so
 * `alignprobe cleanup DISK` finds them. On any error nothing
 * stays mounted or created. 0 or -errno with @e filled.
 */
int ap_mount_mount(const char *dev, const char *fstype, const char *opts,
		   const char *disk, struct ap_mount *m, struct ap_error *e);

/*
 * Remount @m's file system with mount(2) data @opts (MS_REMOUNT: the options
 * it names change, the others stay). 0 or -errno with @e filled.
 */
int ap_mount_remount(const struct ap_mount *m, const char *opts, struct ap_error *e);

/*
 * Shut @m's file system down so that nothing more of it is written: its
 * journal aborted, no checkpoint, no superblock at the umount (the
 * FS_IOC_SHUTDOWN of ext4, XFS and f2fs with their NOLOGFLUSH flag, as
 * xfstests' godown). For a file system made to be thrown away (a sweep
 * step's). The kernel logs it ("shut down requested", "Aborting journal").
 * 0, or -errno (-ENOTTY, -EOPNOTSUPP: the file system has no such ioctl)
 * with @e filled; the file system is then as it was.
 */
int ap_mount_shutdown(const struct ap_mount *m, struct ap_error *e);

/*
 * Unmount (retrying while busy for up to two seconds, then detaching
 * lazily), remove the directory, release the registry entries. Safe on a
 * zeroed or half-set-up @m; frees it. 0 or the first -errno.
 */
int ap_mount_umount(struct ap_mount *m, struct ap_error *e);

/*
 * umount2(@dir, @flags), retried while something lets go of it (EBUSY,
 * EINTR: a dying child, a late fput) for about two seconds. 0 when
 * unmounted or not mounted (EINVAL, ENOENT), else -errno. The one
 * umount-with-retry: the sweep's own teardown and cleanup's.
 */
int ap_mount_umount_dir(const char *dir, int flags);

/*
 * The topmost mount on @path (exact), or with @under any mount at or below
 * it: 1 found (its source and device number into @source, caller frees,
 * and @devno, when not NULL), 0 none.
 */
int ap_mount_find(const char *path, bool under, char **source, dev_t *devno);

/*
 * cleanup's undo of a registered mount (AP_STATE_MOUNT: @dir, @dev): unmount
 * @dir while what is mounted there is @dev (by name or device number),
 * also mounts stacked on it. The number of unmounts done (with @dry_run:
 * 1 when it would unmount, nothing done), 0 when nothing is mounted there,
 * or -errno with the reason in @e: -EBUSY when something else is mounted
 * there (left alone), the umount's error.
 */
int ap_mount_undo(const char *dir, const char *dev, bool dry_run, struct ap_error *e);

/*
 * cleanup's undo of a registered directory (AP_STATE_TMPDIR): rmdir, and
 * where it is not empty and is one of ours by name ("alignprobe*"), its
 * contents, without leaving the file system. 0 or -errno with @e.
 */
int ap_mount_remove_dir(const char *dir, struct ap_error *e);

#endif
