// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the probe's steps outside the timed sizes share (fresh.c's first
 * writes, stripe.c's stripes): when to stop, and one timed write with its
 * lead-in and its errors in words.
 */
#include "probe/probe.h"

#include <errno.h>
#include <string.h>

int ap_probe_step_stop(const struct ap_probe_opts *o, struct ap_probe_result *r)
{
	int sig = ap_cancelled(&o->cancel);

	if (sig) {
		r->interrupted = sig;
		return 1;
	}
	if (o->deadline_ns && ap_now_ns() >= o->deadline_ns) {
		r->budget_out = true;
		return 1;
	}
	return 0;
}

int ap_probe_step_write(const struct ap_probe_io *io, const struct ap_probe_plan *plan, bool lead,
			uint64_t slot, uint64_t off, uint64_t len, uint64_t *ns, struct ap_error *e)
{
	uint64_t at, lns;
	size_t n;
	int rc;

	if (lead && io->lead_in) {
		ap_probe_lead_in_before(plan, off, len, &at, &n);
		if (n && (rc = io->lead_in(io->arg, at, n, &lns)))
			return ap_error_set(e, -rc, "read of %zu bytes at offset %llu failed: %s",
					    n, (unsigned long long)at, strerror(-rc));
	}
	rc = io->op(io->arg, true, slot, off, (size_t)len, ns);
	if (rc == -ENOSPC)
		return ap_error_set(e, ENOSPC, "write of %llu bytes at offset %llu failed: the "
				    "device ran out of space (a thin device or image whose "
				    "backing store is full): %s", (unsigned long long)len,
				    (unsigned long long)off, strerror(-rc));
	if (rc)
		return ap_error_set(e, -rc, "write of %llu bytes at offset %llu failed: %s",
				    (unsigned long long)len, (unsigned long long)off,
				    strerror(-rc));
	if (!*ns)
		*ns = 1;
	return 0;
}
