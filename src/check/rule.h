/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The alignment rule: which geometry decides a check, its name, and why it
 * decided, in words.
 *
 * A probed or given geometry decides as it is; an unproven report of 4 KiB
 * or more as stated; an unproven report below 4 KiB (what 512e drives and
 * USB bridges report) only with trust, else 4 KiB from the reported
 * alignment offset. A verdict for the disk's model (check --verdicts)
 * decides as a probe of it would.
 */
#ifndef AP_CHECK_RULE_H
#define AP_CHECK_RULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device/geometry.h"

/* The unit below which an unproven report does not decide. */
#define AP_RULE_MINIMUM_UNIT	4096u

enum ap_check_rule {
	AP_RULE_NONE = 0,
	AP_RULE_PROBED,		/* a probe/sweep verdict decides */
	AP_RULE_GIVEN,		/* --physical / --lowest-aligned decide */
	AP_RULE_AS_REPORTED,	/* a report of >= 4 KiB physical sectors, as stated */
	AP_RULE_MINIMUM_4K,	/* a report below 4 KiB, not probed: 4 KiB required */
	AP_RULE_TRUST_REPORTED,	/* a report below 4 KiB taken as stated (--trust-reported) */
	AP_RULE_MODEL,		/* a verdict for the disk's model (check --verdicts) decides */
};

/*
 * The geometry that decides, from @basis (the probed one when there is one,
 * else the drive's claim, else the reported one). Probed, model and given
 * bases decide as they are. An unproven basis (reported, drive) of at least
 * AP_RULE_MINIMUM_UNIT decides as stated; a smaller one only with
 * @trust_reported, else @out becomes AP_GEOM_MINIMUM: 4 KiB from the
 * reported alignment offset @offset_bytes. Returns the rule; @out is
 * always filled (a copy of @basis unless the minimum applies).
 */
enum ap_check_rule ap_check_rule_decide(const struct ap_geometry *basis, uint64_t offset_bytes,
					bool trust_reported, struct ap_geometry *out);
/* "probed", "given", "as_reported", "minimum_4k", "trust_reported",
 * "model_verdict" (JSON, docs). */
const char *ap_check_rule_name(enum ap_check_rule rule);

struct ap_check;

/* Why the rule decided as it did, in words, into c->g.reason (c->g, c->pick,
 * c->mv and the device read must be filled). */
void ap_check_rule_explain(struct ap_check *c);
/*
 * What to say when partitions are misaligned under the 4 KiB minimum
 * (AP_RULE_MINIMUM_4K): its reason and what would decide otherwise. True
 * with @buf filled, false under any other rule.
 */
bool ap_check_rule_note(const struct ap_check *c, char *buf, size_t sz);

#endif
