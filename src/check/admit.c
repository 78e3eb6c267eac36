// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What check says before and beside the judgement: whether the device
 * can be checked at all (a live run rewriting it, a partition instead of
 * the disk), and what a table written for another logical sector size
 * likely means and how to read it as written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check/check.h"
#include "device/safety.h"
#include "lib/state.h"
#include "lib/util.h"

/*
 * A live sweep (or seq) on the disk rewrites its table: what is there now
 * is the run's temporary partition, not the disk's layout. Read from the
 * registry only: nothing is opened next to the live run.
 */
static int refuse_live_run(const struct ap_check *c, struct ap_error *e)
{
	char *cmd = NULL;
	pid_t pid;
	int rc = 0;

	if (!ap_state_live_hold_path(c->device, &pid, &cmd))
		return 0;
	if (strcmp(cmd, "probe") != 0)
		rc = ap_error_set(e, EBUSY, "a live alignprobe %s (PID %d) is rewriting this disk: "
				  "its partition table is the run's temporary one; check again "
				  "when the run has ended", cmd, (int)pid);
	free(cmd);
	return rc;
}

/* A partition has no table of its own to check: name the disk that has it. */
static int refuse_partition(const struct ap_check *c, struct ap_error *e)
{
	struct stat st;
	char *name;
	dev_t whole;
	int rc;

	if (stat(c->device, &st) != 0 || !S_ISBLK(st.st_mode) ||
	    ap_safety_whole_disk(st.st_rdev, &whole, &name) != 1)
		return 0;
	if (name)
		rc = ap_error_set(e, EINVAL, "a partition of /dev/%s, not a whole disk: the "
				  "partition table and its alignment belong to the whole disk; "
				  "check /dev/%s", name, name);
	else
		rc = ap_error_set(e, EINVAL, "a partition, not a whole disk: check the whole disk "
				  "it belongs to");
	free(name);
	return rc;
}

int ap_check_admit(const struct ap_check *c, struct ap_error *e)
{
	int rc = refuse_live_run(c, e);

	return rc ? rc : refuse_partition(c, e);
}

void ap_check_foreign_advice(const struct ap_check *c, char *cause, size_t csz, char *remedy,
			     size_t rsz)
{
	unsigned w = c->pt.foreign_sector_size, here = c->pt.sector_size;

	if (!c->pt.is_blockdev && w > here)
		snprintf(cause, csz, "the image was partitioned as a disk with %u-byte logical "
			 "sectors (a disk behind a USB bridge that presents them, or a loop device "
			 "with --sector-size %u) and is read here with %u-byte ones", w, w, here);
	else if (!c->pt.is_blockdev)
		snprintf(cause, csz, "the image was partitioned as a disk with %u-byte logical "
			 "sectors and is read here with %u-byte ones (--sector-size %u)", w, here,
			 here);
	else if (w > here)
		snprintf(cause, csz, "the table was written while a USB bridge (an enclosure or "
			 "dock) presented the disk with %u-byte logical sectors; here the disk "
			 "has %u-byte ones (attached directly?)", w, here);
	else
		snprintf(cause, csz, "the table was written with the disk attached directly "
			 "(%u-byte logical sectors); here a USB bridge (an enclosure or dock) "
			 "presents it with %u-byte ones", w, here);
	if (!c->pt.is_blockdev)
		snprintf(remedy, rsz, "read it as written with alignprobe check --sector-size %u "
			 "%s, or losetup --sector-size %u --partscan --find --show %s; or "
			 "re-create the table for %u-byte sectors", w, c->device, w, c->device,
			 here);
	else
		snprintf(remedy, rsz, "read it as written with losetup --read-only --sector-size "
			 "%u --partscan --find --show %s (then check that loop device), or attach "
			 "the disk the way it was partitioned; or re-create the table for %u-byte "
			 "sectors (back up first: every partition moves)", w, c->device, here);
}
