/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A seq run on its target, around the matrix (seq.h): what a TARGET may
 * be before the safety gate, the target opened (or, for a dry run on a
 * file, only measured), the size and block sizes fitted to its capacity,
 * and the drive's write cache found, switched for the run and put back.
 * Every function returns 0 or -errno with the reason in @e; none prints.
 */
#ifndef AP_SEQ_SESSION_H
#define AP_SEQ_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device/cachectl.h"
#include "lib/util.h"
#include "seq/seq.h"

#define AP_SEQ_DEFAULT_SIZE	(256ULL << 20)

/*
 * TARGET before the gate: *@is_bdev for a block device (the gate's to
 * check); a file is checked here: a regular file or a new one outside
 * /dev, not behind a loop device or swap, and (@dry_run) what opening
 * it would check.
 */
int ap_seq_target_classify(const char *path, bool dry_run, bool *is_bdev, struct ap_error *e);

/*
 * Open the target for the run (seq.h's ap_seq_target_open(), @hold_fd the
 * gate's descriptor of a device or -1); a dry run on a file only reads its
 * size, creating nothing.
 */
int ap_seq_target_prepare(struct ap_seq_target *t, const char *path, int hold_fd, bool is_bdev,
			  bool dry_run, struct ap_error *e);

/*
 * A device not set up yet (--emulate --dry-run: the spec's drive), for the
 * fitting and the plan only: @name (not copied, not freed), @capacity bytes,
 * @logical-byte sectors (0: 512).
 */
void ap_seq_target_planned(struct ap_seq_target *t, const char *name, uint64_t capacity,
			   unsigned logical);
/* The bytes the planned cells move in all, at most (every round of every cell). */
uint64_t ap_seq_plan_bytes(const struct ap_seq_opts *o, const struct ap_seq_result *r);

/*
 * The size (unless @size_set: AP_SEQ_DEFAULT_SIZE, capped by the room
 * after the offset) and the block sizes (unless given in *@bs: the
 * defaults up to the size, malloc'd into *@bs) fitted to @t, set in @o.
 * -ENOSPC: no room after the offset; -EINVAL: a size below the smallest
 * default block size.
 */
int ap_seq_fit(struct ap_seq_opts *o, const struct ap_seq_target *t, bool size_set,
	       uint64_t **bs, size_t *nbs, struct ap_error *e);

/* The drive's write cache through a run. */
struct ap_seq_wcache {
	struct ap_cachectl ctl;	/* --write-cache: the switch */
	char *sysfs;		/* the kernel's queue/write_cache, or NULL */
	char *drive;		/* the drive's answer, or why there is none */
	const char *found;	/* "on", "off" or NULL: the cache before the run */
	bool restored;		/* --write-cache: put back as found */
};

/* Empty, and @o's switch (used with states) set to it. */
void ap_seq_wcache_init(struct ap_seq_wcache *w, struct ap_seq_opts *o);
/*
 * --write-cache: how the disk under @t switches (@mops: the emulated
 * drive's cache model, may be NULL), before anything is written.
 * -ENOTBLK for a regular file.
 */
int ap_seq_wcache_find(struct ap_seq_wcache *w, const struct ap_seq_target *t, bool is_bdev,
		       const struct ap_cache_model *mops, struct ap_error *e);
/*
 * Before the first run: a killed run's switch put back and adopted, the
 * states read, and (with @o's states) the state found recorded for cleanup.
 */
int ap_seq_wcache_before(struct ap_seq_wcache *w, const struct ap_seq_opts *o,
			 const struct ap_seq_target *t, struct ap_error *e);
/* Put the cache back as found and drop the record. */
int ap_seq_wcache_restore(struct ap_seq_wcache *w, struct ap_error *e);
void ap_seq_wcache_free(struct ap_seq_wcache *w);

/* The write cache state of the run's @k-th block of runs (as found without states). */
enum ap_seq_wc ap_seq_state(const struct ap_seq_opts *o, size_t k);
/* How many blocks of runs: one per state, or one as found. */
size_t ap_seq_nstates(const struct ap_seq_opts *o);

/*
 * The knee of every state and mode: @knee[k][mode] is the index of the
 * cell of the smallest block size within AP_SEQ_KNEE_TOLERANCE of the
 * best (ap_seq_knee()), -1 where there is none.
 */
void ap_seq_knees(const struct ap_seq_opts *o, struct ap_seq_result *r,
		  int knee[AP_SEQ_WC_MAX][AP_SEQ_NMODES]);
/* The fastest cell of mode @m in state @wc that ran, or NULL. */
const struct ap_seq_cell *ap_seq_best(const struct ap_seq_result *r, enum ap_seq_wc wc,
				      unsigned m);
/* Did any state run mode @m? */
bool ap_seq_any(const struct ap_seq_result *r, unsigned m);

#endif
