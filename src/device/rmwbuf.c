// SPDX-License-Identifier: GPL-2.0-or-later
/* Does a buffer in the drive answer read-modify-writes? (see rmwbuf.h) */
#include "device/rmwbuf.h"
#include "device/rotation.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stats.h"
#include "lib/util.h"

#define RMWBUF_LOW	(1024ULL * 1024)	/* udev and blkid read the first MiB */
_Static_assert(RMWBUF_LOW >= AP_RMWBUF_STEP / 2, "a trial's place, half a step down, wraps");

uint64_t ap_rmwbuf_write_at(unsigned i, uint64_t size, uint64_t sector)
{
	uint64_t top = size / 2, need = (uint64_t)(i + 2) * AP_RMWBUF_STEP;

	if (!sector || i >= AP_RMWBUF_MAX_TRIALS || top < RMWBUF_LOW + need)
		return UINT64_MAX;
	return (top - (uint64_t)(i + 2) * AP_RMWBUF_STEP) / sector * sector;
}

uint64_t ap_rmwbuf_control_at(unsigned i, uint64_t size, uint64_t sector)
{
	uint64_t at = ap_rmwbuf_write_at(i, size, sector), q;

	/* never below RMWBUF_LOW: half a step down does not wrap (asserted above) */
	if (at == UINT64_MAX)
		return UINT64_MAX;
	q = (at - AP_RMWBUF_STEP / 2) / AP_RMWBUF_UNIT * AP_RMWBUF_UNIT;
	return q < RMWBUF_LOW ? UINT64_MAX : q;
}

/* The median of @v, which stays as it is (the pairs are in step). */
static uint64_t median(const uint64_t *v, unsigned n)
{
	uint64_t *w = ap_xmalloc((n ? n : 1) * sizeof(*w)), m;

	memcpy(w, v, n * sizeof(*w));
	m = ap_stats_median_u64(w, n);
	free(w);
	return m;
}

void ap_rmwbuf_decide(const uint64_t *first, const uint64_t *second, unsigned n,
		      struct ap_rmwbuf_check *c)
{
	unsigned i;

	memset(c, 0, sizeof(*c));
	c->trials = n;
	for (i = 0; i < n; i++) {
		uint64_t d = first[i] > second[i] ? first[i] - second[i] : 0;

		/* a read pass is a revolution: more than a seek, and than half the write */
		if (d >= AP_ROTATING_NS && d >= second[i] / 2)
			c->served++;
	}
	c->first_ns = median(first, n);
	c->second_ns = median(second, n);
	c->buffered = n && 2 * c->served >= n;
}

void ap_rmwbuf_control(const uint64_t *control, unsigned n, struct ap_rmwbuf_check *c)
{
	if (!c->buffered || !n)
		return;
	c->controls = n;
	c->control_ns = median(control, n);
	/* first_ns > second_ns: most pairs were served */
	if (c->control_ns < c->second_ns ||
	    c->control_ns - c->second_ns < (c->first_ns - c->second_ns) / 2) {
		c->buffered = false;
		c->first_writes = true;
	}
}

/* A timed write of @len bytes at @off, after an untimed read of as many at @lead. */
static int pair_half(int fd, void *buf, size_t len, uint64_t lead, uint64_t off, uint64_t *ns)
{
	uint64_t t0;
	int rc;

	rc = ap_pread_all(fd, buf, len, lead);
	if (rc)
		return rc;
	memset(buf, 0, len);
	t0 = ap_now_ns();
	rc = ap_pwrite_all(fd, buf, len, off);
	*ns = ap_now_ns() - t0;
	return rc;
}

/* As many controls as @c has trials, where the device has room: ap_rmwbuf_control(). */
static int controls(int fd, void *buf, uint64_t size, unsigned sector, struct ap_rmwbuf_check *c)
{
	uint64_t control[AP_RMWBUF_MAX_TRIALS];
	unsigned i;
	int rc = 0;

	for (i = 0; i < c->trials && !rc; i++) {
		uint64_t q = ap_rmwbuf_control_at(i, size, sector);

		if (q == UINT64_MAX)
			break;
		memset(buf, 0, sector);
		rc = ap_pwrite_all(fd, buf, sector, q + AP_RMWBUF_NEIGHBOUR);
		if (!rc)
			rc = pair_half(fd, buf, sector, q + AP_RMWBUF_GAP, q, &control[i]);
	}
	if (rc)
		return rc;
	ap_rmwbuf_control(control, i, c);
	return 0;
}

int ap_rmwbuf_measure(int fd, uint64_t size, unsigned sector, struct ap_rmwbuf_check *c)
{
	uint64_t first[AP_RMWBUF_MAX_TRIALS], second[AP_RMWBUF_MAX_TRIALS];
	void *buf;
	unsigned i;
	int rc = 0;

	memset(c, 0, sizeof(*c));
	if (ap_rmwbuf_write_at(AP_RMWBUF_TRIALS - 1, size, sector) == UINT64_MAX)
		return -ENOSPC;
	if (posix_memalign(&buf, sector < 4096 ? 4096 : sector, sector) != 0)
		return -ENOMEM;
	for (i = 0; i < AP_RMWBUF_MAX_TRIALS && !rc; i++) {
		uint64_t off = ap_rmwbuf_write_at(i, size, sector), lead = off + AP_RMWBUF_GAP;

		if (i == AP_RMWBUF_TRIALS) {
			ap_rmwbuf_decide(first, second, i, c);
			/* clear either way: three quarters served, or fewer than a quarter */
			if (4 * c->served >= 3 * i || 4 * c->served < i)
				break;
		}
		/*
		 * no room for this trial (a small device holds only part of the
		 * second batch; never the first's, checked above): decide on
		 * the trials done
		 */
		if (off == UINT64_MAX)
			break;
		rc = pair_half(fd, buf, sector, lead, off, &first[i]);
		if (!rc)	/* a sector lower: no read cache holds it */
			rc = pair_half(fd, buf, sector, lead - sector, off, &second[i]);
	}
	if (!rc)
		ap_rmwbuf_decide(first, second, i, c);
	if (!rc && c->buffered)
		rc = controls(fd, buf, size, sector, c);
	free(buf);
	return rc;
}
