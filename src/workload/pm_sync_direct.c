// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The direct policy: files opened with O_DIRECT|O_DSYNC. The aligned part
 * of each write (file offset and length multiples of the file system's
 * direct-I/O alignment, buffer page-aligned by the engine) bypasses the
 * page cache; the rest of the operation (the unaligned tail of a create,
 * almost every append, which starts at an unaligned end of file) goes
 * through the page cache on the same descriptor after clearing O_DIRECT
 * with fcntl(F_SETFL). O_DSYNC stays set (F_SETFL cannot clear it), so
 * every write is on stable storage when it returns either way.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "workload/pm_sync.h"

static int direct_off(struct ap_pm_wfile *w)
{
	int fl = fcntl(w->fd, F_GETFL);

	if (fl < 0 || fcntl(w->fd, F_SETFL, fl & ~O_DIRECT) < 0)
		return -errno;
	w->direct_off = true;
	return 0;
}

static int direct_write(struct ap_pm_wfile *w, const char *buf, size_t len)
{
	size_t a = w->align ? w->align : 4096, head;
	int rc;

	if (!w->direct_off && (w->pos & (a - 1)) == 0) {
		head = len & ~(a - 1);
		if (head) {
			rc = ap_pm_write_plain(w, buf, head);
			if (rc)
				return rc;
			buf += head;
			len -= head;
		}
	}
	if (!len)
		return 0;
	if (!w->direct_off) {
		rc = direct_off(w);
		if (rc)
			return rc;
	}
	return ap_pm_write_plain(w, buf, len);
}

const struct ap_pm_sync_ops ap_pm_sync_direct = {
	.id = AP_PM_SYNC_DIRECT,
	.name = "direct",
	.open_flags = O_DIRECT | O_DSYNC,
	.read_flags = O_DIRECT,
	.write = direct_write,
};
