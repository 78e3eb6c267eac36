// SPDX-License-Identifier: GPL-2.0-or-later
/* Does the disk rotate? (see rotation.h) */
#include "device/rotation.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/stats.h"
#include "lib/util.h"

#define ROT_STEP	(2ULL * 1024 * 1024)
#define ROT_TOP_GAP	(1024ULL * 1024)

uint64_t ap_rotation_read_at(unsigned i, uint64_t low, uint64_t top, uint64_t above,
			     uint64_t page)
{
	uint64_t n = AP_ROTATION_READS / 2;

	if (!page || i >= AP_ROTATION_READS)
		return UINT64_MAX;
	low = low / page * page;
	top = top / page * page;
	if (low < n * page || top < ROT_TOP_GAP + n * ROT_STEP ||
	    top - ROT_TOP_GAP - (n - 1) * ROT_STEP < above + ROT_STEP)
		return UINT64_MAX;
	return i % 2 ? top - ROT_TOP_GAP - (i / 2) * ROT_STEP : low - (i / 2) * page;
}

uint64_t ap_rotation_value(uint64_t *ns)
{
	qsort(ns, AP_ROTATION_READS, sizeof(*ns), ap_stats_cmp_u64);
	return ns[1];
}

static int measure(int fd, uint64_t low, uint64_t top, uint64_t above, uint64_t page,
		   uint64_t *value)
{
	uint64_t ns[AP_ROTATION_READS];
	void *buf;
	unsigned i;
	int rc = 0;

	*value = 0;
	if (ap_rotation_read_at(0, low, top, above, page) == UINT64_MAX)
		return -ENOSPC;
	if (posix_memalign(&buf, page < 4096 ? 4096 : page, page) != 0)
		return -ENOMEM;
	for (i = 0; i < AP_ROTATION_READS && !rc; i++) {
		uint64_t t0 = ap_now_ns();

		rc = ap_pread_all(fd, buf, page, ap_rotation_read_at(i, low, top, above, page));
		ns[i] = ap_now_ns() - t0;
	}
	free(buf);
	if (rc)
		return rc;
	*value = ap_rotation_value(ns);
	return 0;
}

int ap_rotation_measure(int fd, uint64_t size, uint64_t page, uint64_t *value)
{
	/* from the middle: what udev and blkid read at attach (the ends) is elsewhere */
	return measure(fd, size / 2, size, size / 2, page, value);
}

int ap_rotation_measure_again(int fd, uint64_t size, uint64_t page, uint64_t *value)
{
	return measure(fd, size / 4, size / 4 * 3, size / 4, page, value);
}

bool ap_rotation_write_unflushed(uint64_t write_ns, uint64_t seek_read_ns)
{
	return write_ns < AP_ROTATION_WRITE_MIN_NS || write_ns < seek_read_ns / 3;
}

void ap_rotation_unflushed_cause(char *buf, size_t len, uint64_t write_ns, size_t n,
				 uint64_t seek_read_ns, const char *remedy)
{
	snprintf(buf, len, "the drive acknowledged synchronous writes in %.0f us (the median of "
		 "%zu), but it is a rotating disk (reads a seek away took %.1f ms and more), "
		 "whose media cannot take a write that fast: its write cache ignores flushes, so "
		 "no timed write reached the disk; %s", (double)write_ns / 1e3, n,
		 (double)seek_read_ns / 1e6, remedy);
}
