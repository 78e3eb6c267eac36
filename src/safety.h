/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one safety gate in front of every destructive step (sweep, destructive
 * probe, seq on a device). It runs before anything is written and refuses a
 * device that is in use in any way; the command then exits 3.
 */
#ifndef AP_SAFETY_H
#define AP_SAFETY_H

#include <stdbool.h>
#include <stdint.h>

#include "util.h"

struct ap_safety_opts {
	bool allow_partition;	/* --allow-partition: a partition instead of a whole disk */
	bool yes;		/* --yes: no interactive confirmation */
	bool dry_run;		/* plan only */
};

/* What would be destroyed, for the confirmation and --dry-run. */
struct ap_safety_target {
	char *dev;		/* canonical path */
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
 * Every check: mounted (the device or a partition of it), active swap,
 * holders (dm, md, LVM, loop devices backed by it), opened exclusively by
 * someone else, backs / or /boot, a partition without allow_partition.
 * 0 when safe; -EBUSY / -EPERM / -EINVAL etc with the reason in @e.
 */
int ap_safety_check(const char *dev, const struct ap_safety_opts *o,
		    struct ap_safety_target *t, struct ap_error *e);
void ap_safety_target_free(struct ap_safety_target *t);

/* A multi-line description of @t (caller frees). */
char *ap_safety_describe(const struct ap_safety_target *t);

/*
 * Confirmation: 0 when o->yes, or when stdin is a terminal and the user
 * typed the device name; -ECANCELED otherwise (with the reason in @e).
 */
int ap_safety_confirm(const struct ap_safety_target *t, const struct ap_safety_opts *o,
		      struct ap_error *e);

/* Open @dev with O_EXCL | @flags and hold it for the run: fd or -errno. */
int ap_safety_open_excl(const char *dev, int flags);

#endif
