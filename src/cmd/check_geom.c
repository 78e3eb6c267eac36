// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * alignprobe check: the geometries a partition is checked against. The
 * reported (kernel) one, the drive's claim, the probed one (--geometry,
 * matched to the device; or --physical), the verdict store's for the
 * disk's model (--verdicts), and the rule that makes the geometry in force
 * of them (ap_geometry_decide), with the reason in words.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/analysis.h"
#include "cmd/check.h"
#include "cmd/commands.h"
#include "device/geometry.h"
#include "device/identity.h"
#include "device/topology.h"
#include "fleet/vstore.h"
#include "lib/exitcodes.h"
#include "lib/util.h"

void check_describe_geometry(const struct ap_geometry *g, char *buf, size_t sz)
{
	if (g->source == AP_GEOM_MINIMUM)
		snprintf(buf, sz, "4 KiB (the minimum for an unprobed report, lowest aligned LBA %"
			 PRIu64 ")", g->lowest_aligned);
	else if (g->source == AP_GEOM_MODEL)
		snprintf(buf, sz, "%" PRIu64 "-byte physical sectors (the verdict for its model, "
			 "lowest aligned LBA %" PRIu64 ")", g->physical, g->lowest_aligned);
	else
		snprintf(buf, sz, "%" PRIu64 "-byte physical sectors (%s, lowest aligned LBA %"
			 PRIu64 ")", g->physical, ap_geometry_source_name(g->source),
			 g->lowest_aligned);
}

/* "serial S1 (/dev/sdb on node1, probe, 2026-12-01T08:00:00Z)" */
static void describe_example(const struct ap_vstore_example *x, char *buf, size_t sz)
{
	snprintf(buf, sz, "%s%s (%s%s%s, %s, %s)", x->serial ? "serial " : "",
		 x->serial ? x->serial : x->wwn ? x->wwn : "a disk without serial",
		 x->device ? x->device : "?", x->host ? " on " : "", x->host ? x->host : "",
		 x->source ? x->source : "?", x->recorded ? x->recorded : "?");
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
static void explain_model(const struct check *c, char *r, size_t sz)
{
	const struct ap_vstore_verdict *v = &c->mv.m->verdicts[c->mv.verdict];
	char *name = ap_vstore_model_name(c->mv.m), ex[400] = "", scope[200];

	if (v->nexamples)
		describe_example(&v->examples[0], ex, sizeof(ex));
	verdict_scope(c->g.basis, "model", scope, sizeof(scope));
	snprintf(r, sz, "the verdict store %s holds one verdict for the model %s "
		 "(models[%zu].verdicts[%zu]): %" PRIu64 "-byte physical sectors, lowest "
		 "aligned LBA %" PRIu64 ", measured on %s%s%s%s", c->verdicts_file, name,
		 c->mv.model_index, c->mv.verdict, v->physical_sector, v->lowest_aligned_lba,
		 ex[0] ? ex : "no disk named", v->nexamples > 1 ? " and " : "",
		 v->nexamples > 1 ? "more disks" : "", scope);
	free(name);
}

/* Why the rule decided as it did, in words (c->g.reason). */
static void explain_rule(struct check *c)
{
	const struct ap_geometry *b = c->g.basis;
	const struct ap_drive_topology *d = &c->topo.drive;
	const char *m = ap_geometry_match_name(c->pick.match);
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
	if (c->mv.state == MV_CONFLICT) {
		size_t n = strlen(r);

		snprintf(r + n, sz - n, "; the verdict store %s holds %zu conflicting verdicts "
			 "for its model, so none decides and --trust-reported does not apply",
			 c->verdicts_file, c->mv.nmatching);
	} else if (c->mv.state == MV_UNSHOWN) {
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

/*
 * --verdicts: the store's verdict for the disk's model, in c->g.probed when
 * there is exactly one for its logical sector size.
 */
static void model_geometry(struct check *c, unsigned logical)
{
	const struct ap_vstore_model *m;
	size_t i;

	c->mv.state = MV_NO_MODEL;
	if (!c->have_id || !c->id.model)
		return;
	m = ap_vstore_find_disk(c->store, &c->id);
	c->mv.state = MV_NONE;
	if (!m)
		return;
	c->mv.m = m;
	c->mv.model_index = m->index;	/* in its own file */
	c->verdicts_file = c->verdict_files[m->layer];
	for (i = 0; i < m->nverdicts; i++)
		if (m->verdicts[i].logical_sector == logical && c->mv.nmatching++ == 0)
			c->mv.verdict = i;
	if (!c->mv.nmatching) {
		c->mv.state = MV_OTHER_SECTOR;
	} else if (c->mv.nmatching > 1) {
		c->mv.state = MV_CONFLICT;
	} else {
		const struct ap_vstore_verdict *v = &m->verdicts[c->mv.verdict];

		/* "no effect": the unit it stands for (see ap_no_effect_unit()) */
		uint64_t unit = v->sensitive ? v->physical_sector :
				ap_no_effect_unit(logical, v->ruled_out_up_to);

		if (!v->sensitive && (!ap_absence_margin_shown(v->absence_margin) || !unit)) {
			c->mv.state = MV_UNSHOWN;
			return;
		}
		c->mv.state = MV_USED;
		if (ap_geometry_set(&c->g.probed, AP_GEOM_MODEL, logical, unit,
				    v->sensitive ? v->lowest_aligned_lba : 0, NULL) == 0) {
			c->g.probed.sensitive = v->sensitive;
			c->g.probed.ruled_out_up_to = v->sensitive ? 0 : v->ruled_out_up_to;
		} else
			c->mv.state = MV_NONE;	/* the store validates it: cannot happen */
	}
}

/* The conflicting verdicts, said (check fails safe: none of them is used). */
void check_report_conflict(const struct check *c)
{
	const struct ap_vstore_model *m = c->mv.m;
	char *name = ap_vstore_model_name(m), ex[400];
	size_t i;

	check_warn(c, "the verdict store %s holds %zu conflicting verdicts for the model %s; none "
	      "is used, the disk counts as unproven:", c->verdicts_file, c->mv.nmatching, name);
	for (i = 0; i < m->nverdicts; i++) {
		const struct ap_vstore_verdict *v = &m->verdicts[i];

		if (v->logical_sector != c->pt.sector_size)
			continue;
		ex[0] = '\0';
		if (v->nexamples)
			describe_example(&v->examples[0], ex, sizeof(ex));
		check_warn(c, "  models[%zu].verdicts[%zu]: %" PRIu64 "-byte physical sectors, lowest "
		      "aligned LBA %" PRIu64 ", on %s%s", c->mv.model_index, i, v->physical_sector,
		      v->lowest_aligned_lba, ex[0] ? ex : "no disk named",
		      v->nexamples > 1 ? " and more" : "");
	}
	free(name);
}

/* A "no effect" for the model not shown down to the margin, said (it is not used). */
void check_report_unshown(const struct check *c)
{
	const struct ap_vstore_verdict *v = &c->mv.m->verdicts[c->mv.verdict];
	char *name = ap_vstore_model_name(c->mv.m), m[64];

	if (ap_absence_margin_shown(v->absence_margin) && !v->ruled_out_up_to) {
		check_warn(c, "the verdict store %s says the model %s shows no alignment effect "
			   "(models[%zu].verdicts[%zu]), but not up to which size a hidden unit was "
			   "ruled out (an older alignprobe); it is not used, the disk counts as "
			   "unproven", c->verdicts_file, name, c->mv.model_index, c->mv.verdict);
		free(name);
		return;
	}
	if (v->absence_margin >= 1)
		snprintf(m, sizeof(m), "only effects of %.2fx or more", v->absence_margin);
	else
		snprintf(m, sizeof(m), "no margin (an older alignprobe)");
	check_warn(c, "the verdict store %s says the model %s shows no alignment effect "
	      "(models[%zu].verdicts[%zu]), with %s: that does not show honest sectors (flash "
	      "costs 1.1-1.5x; %.2fx is the widest margin accepted); it is not used, the disk "
	      "counts as unproven", c->verdicts_file, name, c->mv.model_index, c->mv.verdict, m,
	      AP_ABSENCE_MARGIN);
	free(name);
}

/* What the checked device is known by, to find its entry in a --geometry file. */
static void geometry_target(const struct check *c, struct ap_geometry_target *t,
			    char **wwn, char **serial)
{
	struct stat st;

	memset(t, 0, sizeof(*t));
	*wwn = *serial = NULL;
	t->path = c->device;
	t->any = c->geometry_any;
	if (stat(c->device, &st) != 0)
		return;
	if (S_ISBLK(st.st_mode)) {
		t->is_blockdev = true;
		t->rdev = st.st_rdev;
		struct ap_disk_identity id;
		struct ap_error e;

		/* the same reader that wrote the probe result's identity */
		if (ap_identity_read_path(c->device, NULL, &id, &e) == 0) {
			*wwn = id.wwn;
			*serial = id.serial;
			id.wwn = id.serial = NULL;
		}
		ap_identity_free(&id);
		t->wwn = *wwn;
		t->serial = *serial;
	} else {
		t->dev = st.st_dev;
		t->ino = st.st_ino;
	}
}

int check_build_geometries(struct check *c)
{
	const struct ap_kernel_topology *k = &c->topo.kernel;
	const struct ap_drive_topology *d = &c->topo.drive;
	unsigned logical = c->pt.sector_size;
	struct ap_geometry *g;
	struct ap_error e;
	uint64_t offset;

	ap_error_clear(&e);
	memset(&c->g, 0, sizeof(c->g));

	/* reported: the kernel's topology; image files are logical/logical */
	if (k->available && k->logical == logical) {
		uint64_t phys = k->physical;

		if (ap_geometry_set(&c->g.reported, AP_GEOM_REPORTED, logical, phys,
				    k->alignment_offset / logical, &e))
			ap_geometry_set(&c->g.reported, AP_GEOM_REPORTED, logical, logical, 0, NULL);
		else
			c->g.reported_offset = k->alignment_offset;
		if (k->optimal_io_sane) {
			c->g.optio = k->optimal_io;
			c->g.optio_lowest = k->alignment_offset / logical;
		}
	} else {
		ap_geometry_set(&c->g.reported, AP_GEOM_REPORTED, logical, logical, 0, NULL);
	}

	/* the drive's claim, when in the same logical sectors as the table */
	if (d->available && d->physical && d->logical == logical)
		ap_geometry_set(&c->g.drive, AP_GEOM_DRIVE, logical, d->physical,
				d->lowest_aligned, NULL);

	g = &c->g.probed;
	if (c->geometry_file) {
		struct ap_geometry_target t;
		char *wwn, *serial;
		int rc;

		geometry_target(c, &t, &wwn, &serial);
		rc = ap_geometry_load(c->geometry_file, &t, g, &c->pick, &e);
		free(wwn);
		free(serial);
		if (rc == -ENODEV && c->verdicts) {
			/* no probe of this disk: its model's verdict may decide */
			memset(g, 0, sizeof(*g));
			memset(&c->pick, 0, sizeof(c->pick));
			if (!c->quiet)
				check_warn(NULL, "%s; trying the verdict store", e.msg);
		} else if (rc) {
			check_warn(NULL, "%s", e.msg);	/* it names the file */
			return ap_exit_for_errno(e.code);	/* a bad --geometry file: 2 */
		}
		if (g->physical && g->logical != logical) {
			check_warn(c, "%s: the verdict is for %u-byte logical sectors, the disk has %u",
			      c->geometry_file, g->logical, logical);
			return AP_EXIT_USAGE;
		}
	} else if (c->physical) {
		if (ap_geometry_set(g, AP_GEOM_MANUAL, logical, c->physical, c->lowest, &e)) {
			ap_usage_error(CMD, "--physical: %s", e.msg);
			return AP_EXIT_USAGE;
		}
		if (c->lowest >= c->physical / logical) {
			ap_usage_error(CMD, "--lowest-aligned %" PRIu64 ": out of range: 0..%" PRIu64
				       " for %" PRIu64 "-byte physical sectors of %u-byte logical "
				       "sectors", c->lowest, c->physical / logical - 1,
				       c->physical, logical);
			return AP_EXIT_USAGE;
		}
	}

	if (c->verdicts && c->g.probed.physical)
		c->mv.state = MV_NOT_NEEDED;
	else if (c->verdicts)
		model_geometry(c, logical);

	if (c->g.probed.physical) {
		c->g.basis = &c->g.probed;
		offset = 0;
	} else if (c->g.drive.physical) {
		c->g.basis = &c->g.drive;
		offset = (uint64_t)d->lowest_aligned * logical;
	} else {
		c->g.basis = &c->g.reported;
		offset = c->g.reported_offset;
	}
	c->g.rule = ap_geometry_decide(c->g.basis, offset,
				       c->trust_reported && c->mv.state != MV_CONFLICT, &c->g.decided);
	c->g.in_force = &c->g.decided;
	explain_rule(c);
	return AP_EXIT_OK;
}
