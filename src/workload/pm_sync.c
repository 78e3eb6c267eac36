// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The plain sync policies: none (PostMark: the page cache only), fsync and
 * fdatasync after each operation's writes, O_DSYNC and O_SYNC on open.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "workload/pm_sync.h"

int ap_pm_write_plain(struct ap_pm_wfile *w, const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(w->fd, buf, len);
		if (n < 0) {
			if (errno == EINTR && !ap_cancelled(w->cancel))
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		buf += n;
		len -= (size_t)n;
		w->pos += (uint64_t)n;
	}
	return 0;
}

static int do_fsync(int fd)
{
	return fsync(fd) < 0 ? -errno : 0;
}

static int do_fdatasync(int fd)
{
	return fdatasync(fd) < 0 ? -errno : 0;
}

static const struct ap_pm_sync_ops sync_none = {
	.id = AP_PM_SYNC_NONE,
	.name = "none",
	.write = ap_pm_write_plain,
};

static const struct ap_pm_sync_ops sync_fsync = {
	.id = AP_PM_SYNC_FSYNC,
	.name = "fsync",
	.write = ap_pm_write_plain,
	.sync = do_fsync,
};

static const struct ap_pm_sync_ops sync_fdatasync = {
	.id = AP_PM_SYNC_FDATASYNC,
	.name = "fdatasync",
	.write = ap_pm_write_plain,
	.sync = do_fdatasync,
};

static const struct ap_pm_sync_ops sync_dsync = {
	.id = AP_PM_SYNC_DSYNC,
	.name = "dsync",
	.open_flags = O_DSYNC,
	.write = ap_pm_write_plain,
};

static const struct ap_pm_sync_ops sync_sync = {
	.id = AP_PM_SYNC_SYNC,
	.name = "sync",
	.open_flags = O_SYNC,
	.write = ap_pm_write_plain,
};

static const struct ap_pm_sync_ops *const policies[AP_PM_SYNC_COUNT] = {
	[AP_PM_SYNC_NONE] = &sync_none,
	[AP_PM_SYNC_FSYNC] = &sync_fsync,
	[AP_PM_SYNC_FDATASYNC] = &sync_fdatasync,
	[AP_PM_SYNC_DSYNC] = &sync_dsync,
	[AP_PM_SYNC_SYNC] = &sync_sync,
	[AP_PM_SYNC_DIRECT] = &ap_pm_sync_direct,
};

const struct ap_pm_sync_ops *ap_pm_sync_ops(enum ap_pm_sync s)
{
	return (unsigned)s < AP_PM_SYNC_COUNT ? policies[s] : NULL;
}
