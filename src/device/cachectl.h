/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A disk's volatile write cache, switched for an experiment and always
 * restored (seq --write-cache; cleanup after a SIGKILL): the sysfs switch of
 * device/cache.h, plus the emulated drive's own cache model (emu.h), plus
 * the record in the state registry (lib/state.h, AP_STATE_WCACHE) written
 * before the first switch and removed after the restore. The emulated
 * drive's cache model is reached through a hook the command fills
 * (struct ap_cache_model: the device layer may not use the emulator). No
 * printing, the reasons go into struct ap_error.
 */
#ifndef AP_DEVICE_CACHECTL_H
#define AP_DEVICE_CACHECTL_H

#include <stdbool.h>

#include "device/cache.h"
#include "lib/util.h"

/*
 * A drive with a cache model of its own (the emulated drive): whether
 * @dev is one, its cache's state, its switch (0 or -errno each). Filled
 * by the command (src/cmd/common.c: ap_cmd_emu_cache).
 */
struct ap_cache_model {
	bool (*is_model)(const char *dev);
	int (*get)(const char *dev, bool *on);
	int (*set)(const char *dev, bool on);
};

struct ap_cachectl {
	const struct ap_cache_model *mops;	/* the hook, or NULL: no drive has a model */
	char *dev;		/* "/dev/sdb", "/dev/loop3": the whole disk */
	struct ap_wcache w;	/* the sysfs switch and the value found */
	int model;		/* the emulated drive's model when found: 1, 0; -1 none */
	char *backing;		/* the emulated drive's loop backing file */
	char *state_id;		/* the registry record, from before the first switch */
	bool touched;		/* something was written: restore */
};

/*
 * How the whole disk @disk (sysfs name) switches its write cache, and what
 * it is now. 0, or -ENODEV with the reason in @e: the disk offers no way.
 */
int ap_cachectl_find(struct ap_cachectl *c, const char *disk, const struct ap_cache_model *mops,
		     struct ap_error *e);
/*
 * The same for the whole disk under the block device @dev (a partition's
 * disk): -ENOTBLK with the reason in @e when @dev is no block device.
 */
int ap_cachectl_find_dev(struct ap_cachectl *c, const char *dev,
			 const struct ap_cache_model *mops, struct ap_error *e);
/* Whether the cache was on when found. */
bool ap_cachectl_orig_on(const struct ap_cachectl *c);
/*
 * A killed run's record for this drive (stale AP_STATE_WCACHE entries of
 * c->dev): put back the state it recorded, drop the record, and find the
 * state again, so that this run records the drive's original state and
 * the drive ends as it was before the first run. Before
 * ap_cachectl_record(). The number of records adopted, or -errno with the
 * reason in @e (a record that cannot be restored: the run must not start).
 */
int ap_cachectl_adopt(struct ap_cachectl *c, struct ap_error *e);
/* The registry record of the state found: before the first switch. 0 or -errno. */
int ap_cachectl_record(struct ap_cachectl *c, struct ap_error *e);
/* Switch (seq's ap_seq_wc_fn, @arg the struct ap_cachectl): 0 or -errno. */
int ap_cachectl_set(void *arg, bool on, struct ap_error *e);
/*
 * Put back what was found (when anything was written) and remove the
 * record; a restore that fails keeps the record for `alignprobe cleanup`.
 * 0 or -errno.
 */
int ap_cachectl_restore(struct ap_cachectl *c, struct ap_error *e);
void ap_cachectl_free(struct ap_cachectl *c);

/*
 * cleanup: restore the state of a registry record (path = @attr, dev =
 * @dev, aux = @aux). 0 restored, 1 nothing to restore (the disk, or the
 * emulated drive the record names, is gone), -errno with the reason in @e.
 */
int ap_cachectl_restore_record(const char *attr, const char *dev, const char *aux,
			       const struct ap_cache_model *mops, struct ap_error *e);

#endif
