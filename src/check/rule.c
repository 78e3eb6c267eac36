// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The alignment rule (rule.h): the geometry that decides a check, the
 * rule's name, and why it decided, in words.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "check/check.h"
#include "check/rule.h"
#include "device/geometry.h"
#include "device/topology.h"
#include "fleet/load.h"
#include "fleet/vstore.h"
#include "lib/levels.h"

enum ap_check_rule ap_check_rule_decide(const struct ap_geometry *basis, uint64_t offset_bytes,
					bool trust_reported, struct ap_geometry *out)
{
	*out = *basis;
	switch (basis->source) {
	case AP_GEOM_PROBED:
		return AP_RULE_PROBED;
	case AP_GEOM_MODEL:
		return AP_RULE_MODEL;
	case AP_GEOM_MANUAL:
		return AP_RULE_GIVEN;
	case AP_GEOM_REPORTED:
	case AP_GEOM_DRIVE:
		break;
	case AP_GEOM_NONE:
	case AP_GEOM_MINIMUM:
		return AP_RULE_NONE;
	}
	if (!basis->physical || !basis->logical)
		return AP_RULE_NONE;
	if (basis->physical >= AP_RULE_MINIMUM_UNIT)
		return AP_RULE_AS_REPORTED;
	if (trust_reported)
		return AP_RULE_TRUST_REPORTED;
	/* logical < physical < 4096, both powers of two: this cannot fail */
	if (ap_geometry_set(out, AP_GEOM_MINIMUM, basis->logical, AP_RULE_MINIMUM_UNIT,
			    (offset_bytes % AP_RULE_MINIMUM_UNIT) / basis->logical, NULL)) {
		*out = *basis;
		return AP_RULE_AS_REPORTED;
	}
	ap_geometry_add_levels_above(out, &basis->levels);
	return AP_RULE_MINIMUM_4K;
}

const char *ap_check_rule_name(enum ap_check_rule rule)
{
	switch (rule) {
	case AP_RULE_PROBED:
		return "probed";
	case AP_RULE_GIVEN:
		return "given";
	case AP_RULE_AS_REPORTED:
		return "as_reported";
	case AP_RULE_MINIMUM_4K:
		return "minimum_4k";
	case AP_RULE_TRUST_REPORTED:
		return "trust_reported";
	case AP_RULE_MODEL:
		return "model_verdict";
	case AP_RULE_NONE:
		break;
	}
	return "none";
}

/*
 * What a probed or model geometry @g says beyond its unit: ": an honest
 * drive ..." or, for a "no effect" that ruled out only smaller units, the
 * unit it stands for (@what: "drive", "model").
 */
static void verdict_scope(const struct ap_geometry *g, const char *what, char *buf, size_t sz)
{
	if (g->ruled_out_up_to && g->physical != g->logical)
		snprintf(buf, sz, ": no alignment effect, but only units up to %" PRIu64 " bytes "
			 "were ruled out, so a %" PRIu64 "-byte one may hide; starts are judged "
			 "against it (from LBA 0)", g->ruled_out_up_to, g->physical);
	else if (g->physical == g->logical)
		snprintf(buf, sz, ": an honest %s, every sector boundary is aligned", what);
	else
		buf[0] = '\0';
}

/* The verdict store's entry that decided, in words. */
static void explain_model(const struct ap_check *c, char *r, size_t sz)
{
	const struct ap_vstore_verdict *v = &c->mv.m->verdicts[c->mv.verdict];
	char *name = ap_vstore_model_name(c->mv.m), ex[400] = "", scope[200];

	if (v->nexamples)
		ap_check_describe_example(&v->examples[0], ex, sizeof(ex));
	verdict_scope(c->g.basis, "model", scope, sizeof(scope));
	snprintf(r, sz, "the verdict store %s holds one verdict for the model %s "
		 "(models[%zu].verdicts[%zu]): %" PRIu64 "-byte physical sectors, lowest "
		 "aligned LBA %" PRIu64 ", measured on %s%s%s%s", c->verdicts_file, name,
		 c->mv.model_index, c->mv.verdict, v->physical_sector, v->lowest_aligned_lba,
		 ex[0] ? ex : "no disk named", v->nexamples > 1 ? " and " : "",
		 v->nexamples > 1 ? "more disks" : "", scope);
	free(name);
}

void ap_check_rule_explain(struct ap_check *c)
{
	const struct ap_geometry *b = c->g.basis;
	const struct ap_drive_topology *d = &c->topo.drive;
	const char *m = ap_fleet_match_name(c->pick.match);
	bool image = !c->pt.is_blockdev, drive = b->source == AP_GEOM_DRIVE;
	char off[64] = "", how[320], scope[200], *r = c->g.reason;
	size_t sz = sizeof(c->g.reason);

	if (c->g.in_force->lowest_aligned)
		snprintf(off, sizeof(off), " from the alignment offset (LBA %" PRIu64 ")",
			 c->g.in_force->lowest_aligned);
	switch (c->g.rule) {
	case AP_RULE_PROBED:
		if (c->pick.match == AP_MATCH_ANY)
			snprintf(how, sizeof(how), "no entry is this device; --geometry-any took "
				 "the one of %s", c->pick.device[0] ? c->pick.device : "no device named");
		else
			snprintf(how, sizeof(how), "its entry is this device by %s%s%s", m,
				 c->pick.device[0] ? ": " : "", c->pick.device);
		verdict_scope(b, "drive", scope, sizeof(scope));
		if (b->ruled_out_up_to && b->physical != b->logical)
			snprintf(r, sz, "a probe verdict (%s, %s; %s) found no alignment effect%s",
				 c->geometry_file, c->pick.where, how, scope);
		else
			snprintf(r, sz, "a probe verdict (%s, %s; %s) found %" PRIu64 "-byte "
				 "physical sectors, lowest aligned LBA %" PRIu64 "%s",
				 c->geometry_file, c->pick.where, how, b->physical,
				 b->lowest_aligned, scope);
		break;
	case AP_RULE_GIVEN:
		snprintf(r, sz, "--physical %" PRIu64 " --lowest-aligned %" PRIu64 " given on the "
			 "command line", b->physical, b->lowest_aligned);
		break;
	case AP_RULE_MODEL:
		explain_model(c, r, sz);
		break;
	case AP_RULE_AS_REPORTED:
		if (image)
			snprintf(r, sz, "the image file's %u-byte sectors are taken as its physical "
				 "sectors: 4 KiB or more is not the report 512e drives make",
				 b->logical);
		else
			snprintf(r, sz, "the drive %s %" PRIu64 "-byte physical sectors (%s), taken "
				 "as stated: a report of 4 KiB or more is not the one 512e drives "
				 "make", drive ? "claims" : "reports", b->physical,
				 drive ? d->source : "kernel topology");
		break;
	case AP_RULE_MINIMUM_4K:
		if (image)
			snprintf(r, sz, "the image file has %u-byte sectors and says nothing of "
				 "the drive it is for, like a drive reporting %" PRIu64 "-byte "
				 "physical sectors, which 512e drives also report; not probed: "
				 "requiring 4 KiB%s", b->logical, b->physical, off);
		else
			snprintf(r, sz, "the drive %s %" PRIu64 "-byte physical sectors%s%s%s, "
				 "which 512e drives also %s; not probed: requiring 4 KiB%s",
				 drive ? "claims" : "reports", b->physical, drive ? " (" : "",
				 drive ? d->source : "", drive ? ")" : "", drive ? "claim" : "report",
				 off);
		break;
	case AP_RULE_TRUST_REPORTED:
		if (image)
			snprintf(r, sz, "--trust-reported: the image file's %u-byte sectors are "
				 "taken as its physical sectors", b->logical);
		else
			snprintf(r, sz, "--trust-reported: the drive's %s of %" PRIu64 "-byte "
				 "physical sectors (%s) is taken as stated", drive ? "claim" : "report",
				 b->physical, drive ? d->source : "kernel topology");
		break;
	case AP_RULE_NONE:
		snprintf(r, sz, "no geometry");
		break;
	}
	if (c->mv.state == AP_MV_CONFLICT) {
		size_t n = strlen(r);

		snprintf(r + n, sz - n, "; the verdict store %s holds %zu conflicting verdicts "
			 "for its model, so none decides and --trust-reported does not apply",
			 c->verdicts_file, c->mv.nmatching);
	} else if (c->mv.state == AP_MV_UNSHOWN) {
		size_t n = strlen(r);

		const struct ap_vstore_verdict *v = &c->mv.m->verdicts[c->mv.verdict];

		if (ap_absence_margin_shown(v->absence_margin))
			snprintf(r + n, sz - n, "; the verdict store %s says \"no effect\" for its "
				 "model without saying up to which size a hidden unit was ruled "
				 "out, so it does not decide", c->verdicts_file);
		else
			snprintf(r + n, sz - n, "; the verdict store %s says \"no effect\" for its "
				 "model without showing it down to %.2fx, so it does not decide",
				 c->verdicts_file, AP_ABSENCE_MARGIN);
	}
}

bool ap_check_rule_note(const struct ap_check *c, char *buf, size_t sz)
{
	if (c->g.rule != AP_RULE_MINIMUM_4K)
		return false;
	snprintf(buf, sz, "%s; a probe verdict (--geometry)%s decides otherwise", c->g.reason,
		 c->mv.state == AP_MV_CONFLICT ? " of this disk" : " or --trust-reported");
	return true;
}
