// SPDX-License-Identifier: GPL-2.0-or-later
/* A device's claims of its I/O units against the measured levels (see claims.h). */
#include "device/claims.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "device/topology.h"
#include "lib/json.h"
#include "lib/util.h"

static void add(struct ap_claims *c, const char *name, const char *source,
		enum ap_claim_role role, uint64_t bytes)
{
	if (c->n < AP_CLAIMS_MAX)
		c->c[c->n++] = (struct ap_claim){ .name = name, .source = source, .role = role,
						  .bytes = bytes };
}

void ap_claims_read(const struct ap_topology *t, struct ap_claims *c)
{
	const struct ap_kernel_topology *k = &t->kernel;
	const struct ap_drive_topology *d = &t->drive;
	uint64_t bs = d->nvme.logical_sector;

	memset(c, 0, sizeof(*c));
	if (k->available) {
		add(c, "minimum_io", "kernel", AP_CLAIM_MINIMUM, k->minimum_io);
		add(c, "optimal_io", "kernel", AP_CLAIM_OPTIMAL, k->optimal_io);
	}
	if (d->nvme_ok && d->nvme.optperf_valid) {
		add(c, "nvme_npwg", "NVMe Identify Namespace", AP_CLAIM_MINIMUM, bs * d->nvme.npwg);
		add(c, "nvme_nows", "NVMe Identify Namespace", AP_CLAIM_OPTIMAL, bs * d->nvme.nows);
	}
	if (d->limits_ok && d->limits.otlg && d->scsi_ok)
		add(c, "scsi_otlg", "SCSI VPD B0h", AP_CLAIM_MINIMUM,
		    (uint64_t)d->limits.otlg * d->scsi.logical_sector);
}

/* The unit a claim of @role stands for among @ls, and its name; 0 when none was measured. */
static uint64_t measured(const struct ap_levels *ls, enum ap_claim_role role, const char **what)
{
	const struct ap_level *sector = ap_levels_find(ls, AP_LEVEL_SECTOR);
	const struct ap_level *chunk = ap_levels_find(ls, AP_LEVEL_CHUNK);
	const struct ap_level *stripe = ap_levels_find(ls, AP_LEVEL_STRIPE);

	if (role == AP_CLAIM_OPTIMAL) {
		*what = "the stripe";
		return stripe && stripe->paid == AP_PAID_EVERY_WRITE ? stripe->unit : 0;
	}
	if (chunk && chunk->paid == AP_PAID_EVERY_WRITE) {
		*what = "the chunk";
		return chunk->unit;
	}
	*what = "the physical sector";
	return sector ? sector->unit : 0;
}

/* @claim (bytes) does not fit the measured @unit: less than it, or neither divides the other. */
static bool contradicts(enum ap_claim_role role, uint64_t claim, uint64_t unit)
{
	if (!unit)
		return false;
	if (role == AP_CLAIM_OPTIMAL)
		return !claim || claim % unit;		/* whole stripes, or none claimed */
	return claim && (claim < unit || claim % unit);	/* at least the unit, in whole ones */
}

size_t ap_claims_contradicted(const struct ap_claims *c, const struct ap_levels *ls,
			      char **msgs, size_t max)
{
	size_t i, n = 0;

	for (i = 0; ls && i < c->n && n < max; i++) {
		const char *what;
		uint64_t unit = measured(ls, c->c[i].role, &what);

		if (contradicts(c->c[i].role, c->c[i].bytes, unit))
			ap_xasprintf(&msgs[n++], "reports %s %" PRIu64 "; %s is %" PRIu64 " bytes",
				     c->c[i].name, c->c[i].bytes, what, unit);
	}
	return n;
}

struct json_object *ap_claims_to_json(const struct ap_claims *c, const struct ap_levels *ls)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();
	char *msgs[AP_CLAIMS_MAX];
	size_t i, n;

	for (i = 0; i < c->n; i++)
		json_object_object_add(o, c->c[i].name, ap_json_u64(c->c[i].bytes));
	n = ap_claims_contradicted(c, ls, msgs, AP_CLAIMS_MAX);
	for (i = 0; i < n; i++) {
		json_object_array_add(a, json_object_new_string(msgs[i]));
		free(msgs[i]);
	}
	json_object_object_add(o, "contradicted", a);
	return o;
}
