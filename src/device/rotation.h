/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Does the disk rotate? Measured, since queue/rotational cannot be trusted
 * (USB bridges say "rotational" for SSDs, loop devices say what their
 * backing says): a few pages read alternately in the middle of the device
 * (or another low point) and near its end, each a seek from the one before
 * and below the last read on its side (read-ahead goes forward, so none is in the drive's buffer).
 * A rotating disk waits for each (a seek, half a revolution on average: 3
 * ms and more); flash answers in well under one. The probe and the sweep
 * check their assumptions with it (a write or a flush a rotating disk
 * cannot do that fast never reached the media).
 */
#ifndef AP_DEVICE_ROTATION_H
#define AP_DEVICE_ROTATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AP_ROTATION_READS	8
/*
 * The second fastest of the reads slower than this: a rotating disk (a seek
 * and, over 8 reads, 2/9 of a revolution: about 3 ms at 7200 rpm, 2 ms at
 * 15,000). A busy machine only adds time, so a low order statistic keeps
 * flash (0.1-0.3 ms) from looking like a disk when a few reads were slowed.
 */
#define AP_ROTATING_NS		1000000ULL

/*
 * What to do about a write cache that ignores flushes on a rotating disk,
 * the remedy the probe and the sweep name when their writes or fsyncs come
 * back faster than the media can take them (string literals, to be joined
 * into their sentences).
 */
#define AP_REMEDY_WCE_OFF	"hdparm -W0 or sdparm --clear WCE"
#define AP_REMEDY_NO_BRIDGE	"attach the disk directly instead of through a USB bridge"
/*
 * A hardware RAID controller's battery-backed write-back cache answers
 * synchronous writes the same way, safely (raid5-bbu): named so that a
 * volume behind one is not taken for a USB bridge's disk.
 */
#define AP_REMEDY_RAID_CACHE	"behind a hardware RAID controller, its battery-backed " \
				"write-back cache answers the writes this way (safely) and " \
				"hides the sectors and the stripe from timing: set the " \
				"volume write-through while it is probed"

/*
 * A synchronous write that a rotating disk acknowledged in @write_ns (a
 * median) never reached its media: under AP_ROTATION_WRITE_MIN_NS (a quarter
 * of a 15,000 rpm revolution) or a third of @seek_read_ns (ap_rotation_value():
 * a seek and the platter; a write behind an untimed read waits most of a
 * revolution, and a busy machine slows cached writes to a millisecond). Its
 * write cache ignores flushes. The probe's writes and the sweep's check
 * before its first step (device/rmwbuf.h) ask it.
 */
#define AP_ROTATION_WRITE_MIN_NS	1000000ULL
bool ap_rotation_write_unflushed(uint64_t write_ns, uint64_t seek_read_ns);

/*
 * The sentence that says so, about the median @write_ns of @n writes, then
 * "; " and @remedy (what to do: the caller's options first).
 */
void ap_rotation_unflushed_cause(char *buf, size_t len, uint64_t write_ns, size_t n,
				 uint64_t seek_read_ns, const char *remedy);

/* The value to compare: the second smallest of the AP_ROTATION_READS latencies (sorts @ns). */
uint64_t ap_rotation_value(uint64_t *ns);

/*
 * Where read @i (0 .. AP_ROTATION_READS - 1) goes: even ones downward from
 * @low (page-aligned, at least AP_ROTATION_READS / 2 pages), odd ones
 * downward from 1 MiB before @top in 2 MiB steps. UINT64_MAX when the
 * device has no room for them above @above (a region the reads must stay
 * clear of, 0: none).
 */
uint64_t ap_rotation_read_at(unsigned i, uint64_t low, uint64_t top, uint64_t above,
			     uint64_t page);

/*
 * The reads through @fd (O_DIRECT) on a device of @size bytes:
 * ap_rotation_value() of their latencies in *@ns. 0, -ENOSPC (too small),
 * or -errno.
 */
int ap_rotation_measure(int fd, uint64_t size, uint64_t page, uint64_t *ns);
/*
 * The same at other places (from a quarter of the device, and downward
 * from three quarters): a second look after the first said "rotating" and
 * something else disagreed. A busy host only adds time, so the smaller of
 * the two is the disk's; the first pass's places may sit in the drive's
 * buffer now, these do not.
 */
int ap_rotation_measure_again(int fd, uint64_t size, uint64_t page, uint64_t *ns);

#endif
