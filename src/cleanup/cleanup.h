/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The cleanup engine: take down what a killed run left behind, as
 * recorded in the state registry (lib/state.h). One table holds each
 * registry kind and its owner's undo, in the order they come down: a
 * mount before its directory, the write cache while the emulated drive is
 * still there, loop devices before the drives under them. An entry whose
 * owner still runs, or on a disk a live run works on now, is left alone.
 * What each entry came to goes to the caller's report hook; nothing is
 * printed here.
 */
#ifndef AP_CLEANUP_CLEANUP_H
#define AP_CLEANUP_CLEANUP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "lib/state.h"
#include "lib/util.h"

struct ap_cache_model;

struct ap_cleanup {
	/* given */
	bool dry_run;
	bool remove_journals;	/* else a journal is kept (its report: "kept") */
	const char *device;	/* only what belongs to it (NULL: everything) */
	const char *device_canon;	/* its realpath, when it exists */
	dev_t device_rdev;	/* 0 when unknown */
	const struct ap_cache_model *cache_model;	/* the emulated drive's (device/cachectl.h) */
	/*
	 * What entry @en came to: @action ("unmounted", "gone", "kept",
	 * "skipped", "failed", "would-...") and why (@detail, may be NULL);
	 * @failed: it could not be undone and remains.
	 */
	void (*report)(struct ap_cleanup *c, const struct ap_state_entry *en, const char *action,
		       bool failed, const char *detail);
	void *arg;		/* the caller's */

	/* found */
	size_t nsel;		/* entries listed (holds are not) */
	int nremain;		/* found, and still there afterwards */
	int ndone;
	char **unmounted;	/* dry run: mount points that would be unmounted */
	size_t nunmounted;
};

/* Walk the registry and undo what is stale: 0, or -errno with @e (the registry unreadable). */
int ap_cleanup_run(struct ap_cleanup *c, struct ap_error *e);
/* Is @dev (from an entry) c->device or one of its partitions? */
bool ap_cleanup_about_device(const struct ap_cleanup *c, const char *dev);
/* Does an entry name c->device (a device that is gone since)? */
bool ap_cleanup_registry_names(const struct ap_cleanup *c);
/*
 * Only what belongs to DEVICE @dev: c->device, its realpath (into *@canon
 * too, malloc'd, the caller's to free; NULL when it is gone) and its
 * device number. -ENOTBLK when it is no block device; one that does not
 * exist is accepted when an entry names it, else its -errno.
 */
int ap_cleanup_set_device(struct ap_cleanup *c, const char *dev, char **canon,
			  struct ap_error *e);
void ap_cleanup_free(struct ap_cleanup *c);

#endif
