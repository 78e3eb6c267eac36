/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one safety gate in front of every destructive step (sweep, destructive
 * probe, seq on a device). It runs before anything is written and refuses a
 * device that is in use in any way; the command then exits 3 (2 when what
 * was named is no block device at all).
 */
#ifndef AP_SAFETY_H
#define AP_SAFETY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/util.h"

/*
 * How the command asks the user to confirm destroying @dev (libfdisk's
 * ask.c model: the gate never prompts itself; commands install
 * ap_ui_confirm() from ui/confirm.h): 0 when confirmed, else -ECANCELED
 * with "DEV: reason" in @e.
 */
typedef int (*ap_safety_ask_fn)(const char *dev, void *data, struct ap_error *e);

struct ap_safety_opts {
	bool allow_partition;	/* --allow-partition: a partition instead of a whole disk */
	bool yes;		/* --yes: no interactive confirmation */
	bool dry_run;		/* plan only */
	ap_safety_ask_fn ask;	/* asks the user; NULL: nobody can confirm */
	void *ask_data;		/* passed to ask */
};

/* What would be destroyed, for the confirmation and --dry-run. */
struct ap_safety_target {
	char *dev;		/* canonical path */
	char *name;		/* kernel name ("loop3", "sdb") */
	dev_t devno;
	/*
	 * The device opened O_RDWR | O_EXCL | O_CLOEXEC by ap_safety_check()
	 * BEFORE the in-use checks ran, so nothing could mount or claim it in
	 * between; -1 when the check refused. Keep it for the run (take it:
	 * fd = t->fd; t->fd = -1), or ap_safety_target_free() closes it.
	 * O_DIRECT can be switched on with fcntl(F_SETFL). While it is held,
	 * the kernel refuses to claim a partition of the disk (mkfs and mount
	 * fail with EBUSY): close it before mkfs, and take the device again
	 * with ap_safety_open_excl() after umount — an EBUSY there means
	 * someone else grabbed it meanwhile.
	 */
	int fd;
	char *backing;		/* a loop device's backing file, else NULL */
	char *model, *serial;	/* NULL where unknown */
	uint64_t size;		/* bytes */
	unsigned logical_sector, physical_sector;
	bool is_partition;
	char **partitions;	/* "sdb1 ext4 UUID=..." lines */
	size_t npartitions;
	char **signatures;	/* signatures libblkid finds on the whole device */
	size_t nsignatures;
};

/*
 * Every check: not a block device, mounted (the device or a partition of it),
 * active swap, holders (dm, md, LVM, loop devices backed by it or by a file
 * on it), opened exclusively by someone else, backs / or /boot (also through
 * dm/md slaves), a partition without allow_partition, read-only.
 * 0 when safe, with @t filled and t->fd held; otherwise -errno with the
 * reason in @e, "DEV: reason": -ENOENT / -ENOTBLK / -ENODEV when @dev is
 * no usable block device (bad input), -EBUSY / -EPERM / -EROFS when it is
 * refused for safety. The command prints e->msg and exits
 * ap_exit_for_errno(): 2 or 3.
 * @t is always initialised (free it with ap_safety_target_free() in both
 * cases); it may be NULL.
 */
int ap_safety_check(const char *dev, const struct ap_safety_opts *o,
		    struct ap_safety_target *t, struct ap_error *e);
void ap_safety_target_free(struct ap_safety_target *t);

/* A multi-line description of @t (caller frees). */
char *ap_safety_describe(const struct ap_safety_target *t);

/*
 * Confirmation: 0 when o->yes or o->dry_run, or when o->ask confirmed
 * t->dev (ap_ui_confirm(): stdin is a terminal and the user typed the
 * device name exactly at the prompt); -ECANCELED otherwise (with the
 * reason in @e: no terminal or no o->ask → "use --yes"). The command exits
 * AP_EXIT_REFUSED.
 */
int ap_safety_confirm(const struct ap_safety_target *t, const struct ap_safety_opts *o,
		      struct ap_error *e);

/* Open @dev with O_EXCL | O_CLOEXEC | @flags and hold it for the run: fd or -errno. */
int ap_safety_open_excl(const char *dev, int flags);

/*
 * Is @dev (or a partition of it) mounted, active swap, or held? The in-use
 * part of ap_safety_check() without opening anything: 0 when free, -EBUSY
 * with the reason in @e. For a run that re-checks between steps.
 */
int ap_safety_in_use(const char *dev, struct ap_error *e);

/*
 * Record in the state registry (AP_STATE_HOLD) that this process works on
 * the block device @dev for the command @cmd ("sweep"), until it exits;
 * ap_safety_check() of any other process refuses @dev, its partitions and
 * its disk while the hold's owner runs (also in the moments a sweep lets go
 * of its O_EXCL for mkfs and mount; lib/state.h: ap_state_live_hold()
 * asks without opening anything). 0 or -errno with the reason in @e.
 */
int ap_safety_hold(const char *dev, const char *cmd, struct ap_error *e);

/*
 * The gate for a regular file a command is about to write (seq FILE): -EBUSY
 * with the reason in @e when a loop device is backed by it (compared by
 * device and inode, any offset or size limit: the file systems mounted from
 * images all go through one) or it is an active swap file; 0 otherwise (also
 * when @path does not exist or is no regular file).
 */
int ap_safety_check_file(const char *path, struct ap_error *e);

/*
 * For commands that only read. Is the block device @d a partition? 1 with
 * the whole disk in @whole and its kernel name ("loop7", caller frees, NULL
 * when unknown) in @name; 0 for a whole disk (@whole = @d, @name NULL).
 */
int ap_safety_whole_disk(dev_t d, dev_t *whole, char **name);

#endif
