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
 */
#ifndef AP_DEVICE_RMWBUF_H
#define AP_DEVICE_RMWBUF_H

#include <stdbool.h>
#include <stdint.h>

#define AP_RMWBUF_TRIALS	12	/* a batch; another when a quarter to three quarters */
#define AP_RMWBUF_MAX_TRIALS	24	/* ... were served (a busy machine) */
#define AP_RMWBUF_GAP		(64ULL * 1024)	/* past any physical sector the tools detect */
#define AP_RMWBUF_STEP		(2ULL * 1024 * 1024)	/* between the trials' places */

struct ap_rmwbuf_check {
	unsigned trials;	/* pairs of writes timed */
	unsigned served;	/* ... whose second write skipped a read pass */
	uint64_t first_ns, second_ns;	/* the medians of the first and second writes */
	bool buffered;		/* most pairs were served: a buffer answers RMWs */
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
 * time less than the first; buffered when three quarters of the pairs are.
 * Fills @c (the medians sort copies, @first and @second are not changed).
 */
void ap_rmwbuf_decide(const uint64_t *first, const uint64_t *second, unsigned n,
		      struct ap_rmwbuf_check *c);

/*
 * The check through @fd (O_RDWR | O_DIRECT | O_DSYNC) on a device of @size
 * bytes with @sector-byte logical sectors: AP_RMWBUF_TRIALS pairs, and as
 * many again when their verdict is unclear (a quarter to three quarters
 * served), as far as the device has room for them (58-102 MiB: part of
 * the second batch; the decision then counts the trials done). 0, -ENOSPC
 * (no room for the first batch), or -errno of a read or a write.
 */
int ap_rmwbuf_measure(int fd, uint64_t size, unsigned sector, struct ap_rmwbuf_check *c);

#endif
