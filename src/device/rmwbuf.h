/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Does a buffer in the drive answer read-modify-writes? Some rotating disks
 * (the media cache of enterprise drives; the emulator's rmw-buffer=) keep
 * the physical sectors they touched last and merge a partial write into
 * one of them without the read pass, the revolution a read-modify-write
 * costs. A workload that rewrites a few dozen sectors (the sweep's quick
 * preset) then never pays for a misaligned write, and its timings look
 * like an honest disk's.
 *
 * The check, on the raw device, in a fraction of a second: at a few places
 * a seek apart, a one-sector write twice, each right after an untimed read
 * AP_RMWBUF_GAP behind it (the same rotational wait before each write, and
 * any read-ahead goes forward, away from the write; the second read a
 * sector lower, so that no read cache answers it). On an honest disk both
 * writes cost the same; on one with larger physical sectors and no buffer
 * both pay the read pass; on one whose buffer answers read-modify-writes
 * only the first does, the second finds its sector in the buffer and is a
 * revolution faster. It writes zeros: only for a caller that destroys the
 * disk anyway (the sweep).
 *
 * Storage that allocates on the first write looks the same: a thin volume
 * or a virtual disk (qcow2 clusters, dm-thin chunks, VDI blocks) pays its
 * allocation on the first write of each pair, never on the second. So a
 * "buffered" answer is checked once more, at as many fresh places: an
 * untimed write AP_RMWBUF_NEIGHBOUR above each (a different physical
 * sector, in the same 64 KiB) allocates the place without touching its
 * sector, then the place is written as the pairs' first writes were. A
 * buffer does not hold that sector: the write pays the read pass, as slow
 * as a first write. Allocation units of 64 KiB and more were paid by the
 * neighbour: the write is as fast as a rewrite, and the pairs showed
 * first writes, not a buffer. (Units under 64 KiB, or qcow2's 2 KiB
 * subclusters, stay indistinguishable from a buffer.)
 */
#ifndef AP_DEVICE_RMWBUF_H
#define AP_DEVICE_RMWBUF_H

#include <stdbool.h>
#include <stdint.h>

#define AP_RMWBUF_TRIALS	12	/* a batch; another when a quarter to three quarters */
#define AP_RMWBUF_MAX_TRIALS	24	/* ... were served (a busy machine) */
#define AP_RMWBUF_GAP		(64ULL * 1024)	/* past any physical sector the tools detect */
#define AP_RMWBUF_STEP		(2ULL * 1024 * 1024)	/* between the trials' places */
#define AP_RMWBUF_NEIGHBOUR	(32ULL * 1024)	/* the control's allocating write, above it */
#define AP_RMWBUF_UNIT		(64ULL * 1024)	/* ... in the same unit of this size */

struct ap_rmwbuf_check {
	unsigned trials;	/* pairs of writes timed */
	unsigned served;	/* ... whose second write skipped a read pass */
	uint64_t first_ns, second_ns;	/* the medians of the first and second writes */
	bool buffered;		/* most pairs were served: a buffer answers RMWs */
	unsigned controls;	/* control writes timed (only when the pairs said buffered) */
	uint64_t control_ns;	/* their median */
	bool first_writes;	/* the controls were as fast as rewrites: the pairs' first
				   writes paid an allocation, not a read pass */
};

/*
 * Where trial @i (0 .. AP_RMWBUF_MAX_TRIALS - 1) writes on a device of @size
 * bytes (@sector: the write's size): downward in AP_RMWBUF_STEP steps
 * from two of them below the middle, clear of the ends udev reads and of
 * the pages the rotation check reads (device/rotation.h); its reads are
 * AP_RMWBUF_GAP above. UINT64_MAX when the device has no room for it.
 */
uint64_t ap_rmwbuf_write_at(unsigned i, uint64_t size, uint64_t sector);

/*
 * Decide from the latencies of @n pairs: a pair is served when its second
 * write took a rotating disk's seek time (AP_ROTATING_NS) and half its own
 * time less than the first; buffered when half the pairs are. A busy
 * machine's delays only add time: one on a second write unserves its pair,
 * one on a first write serves an honest pair only where it is a read pass
 * long. Half keeps both sides equally far from the machine's load; three
 * quarters, the rule before, missed a buffer wherever a quarter of the
 * second writes were delayed, and a missed buffer is a wrong verdict (CI
 * once swept hdd-lba7-rmwbuf to "no alignment sensitivity").
 * Fills @c (the medians sort copies, @first and @second are not changed).
 */
void ap_rmwbuf_decide(const uint64_t *first, const uint64_t *second, unsigned n,
		      struct ap_rmwbuf_check *c);

/*
 * Where control @i writes (its neighbour AP_RMWBUF_NEIGHBOUR above, its
 * read AP_RMWBUF_GAP above): halfway between trial @i's place and the
 * next, down to a multiple of AP_RMWBUF_UNIT, so that no trial's reads
 * touch it. UINT64_MAX when trial @i has no place or this is below the
 * first MiB.
 */
uint64_t ap_rmwbuf_control_at(unsigned i, uint64_t size, uint64_t sector);

/*
 * Check a "buffered" @c against the latencies of @n control writes: it
 * stays buffered when their median is at least halfway from the pairs'
 * second writes to their first (the read pass paid); otherwise it is not,
 * and first_writes says why. Nothing when @c is not buffered or @n is 0.
 */
void ap_rmwbuf_control(const uint64_t *control, unsigned n, struct ap_rmwbuf_check *c);

/*
 * The check through @fd (O_RDWR | O_DIRECT | O_DSYNC) on a device of @size
 * bytes with @sector-byte logical sectors: AP_RMWBUF_TRIALS pairs, and as
 * many again when their verdict is unclear (a quarter to three quarters
 * served), as far as the device has room for them (58-102 MiB: part of
 * the second batch; the decision then counts the trials done), and when
 * they say buffered, as many controls (ap_rmwbuf_control()). 0, -ENOSPC
 * (no room for the first batch), or -errno of a read or a write.
 */
int ap_rmwbuf_measure(int fd, uint64_t size, unsigned sector, struct ap_rmwbuf_check *c);

#endif
