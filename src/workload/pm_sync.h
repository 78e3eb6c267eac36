/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sync policies of the workload (enum ap_pm_sync): how a file operation's
 * writes reach stable storage. One small ops table per policy; the plain
 * ones are in pm_sync.c, O_DIRECT in pm_sync_direct.c.
 */
#ifndef AP_PM_SYNC_H
#define AP_PM_SYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/cancel.h"
#include "workload/pm.h"

/* A file opened for writing by one create or append operation. */
struct ap_pm_wfile {
	int fd;
	uint64_t pos;		/* file offset of the next write */
	size_t align;		/* direct: offset/length alignment (power of 2) */
	bool direct_off;	/* direct: O_DIRECT was cleared on fd */
	const struct ap_cancel *cancel;	/* the run's: an EINTR is retried unless it cancels */
};

struct ap_pm_sync_ops {
	enum ap_pm_sync id;
	const char *name;	/* --sync, "set sync", the reports (ap_pm_sync_name()) */
	int open_flags;		/* added to open(2) of files that are written */
	int read_flags;		/* added to open(2) of files that are read */
	/* Write all @len bytes at w->pos (the descriptor's offset) and
	 * advance it: 0, -EINTR when w->cancel cancels, or -errno. */
	int (*write)(struct ap_pm_wfile *w, const char *buf, size_t len);
	/* After the operation's writes, before close (timed on its own as
	 * AP_PM_OP_SYNC); NULL when the policy needs none. */
	int (*sync)(int fd);
};

const struct ap_pm_sync_ops *ap_pm_sync_ops(enum ap_pm_sync s);

/* write(2) until done, retrying short writes and EINTR unless w->cancel
 * cancels (the plain policies' write). */
int ap_pm_write_plain(struct ap_pm_wfile *w, const char *buf, size_t len);

extern const struct ap_pm_sync_ops ap_pm_sync_direct;

#endif
