// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The check engine's geometries: the reported (kernel) one, the drive's
 * claim, the probed one (--geometry, matched to the device; or
 * --physical), the verdict store's for the disk's model (--verdicts); the
 * rule that makes the geometry in force of them is rule.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <json-c/json.h>

#include "analysis/analysis.h"
#include "check/check.h"
#include "device/geometry.h"
#include "device/identity.h"
#include "device/topology.h"
#include "fleet/load.h"
#include "fleet/vstore.h"
#include "lib/json.h"
#include "lib/util.h"

void ap_check_describe_geometry(const struct ap_geometry *g, char *buf, size_t sz)
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
	ap_levels_words(&g->levels, " and ", buf, sz);
}

/* "serial S1 (/dev/sdb on node1, probe, 2026-12-01T08:00:00Z)" */
void ap_check_describe_example(const struct ap_vstore_example *x, char *buf, size_t sz)
{
	snprintf(buf, sz, "%s%s (%s%s%s, %s, %s)", x->serial ? "serial " : "",
		 x->serial ? x->serial : x->wwn ? x->wwn : "a disk without serial",
		 x->device ? x->device : "?", x->host ? " on " : "", x->host ? x->host : "",
		 x->source ? x->source : "?", x->recorded ? x->recorded : "?");
}

/*
 * --verdicts: the store's verdict for the disk's model, in c->g.probed when
 * there is exactly one for its logical sector size.
 */
static void model_geometry(struct ap_check *c, unsigned logical)
{
	const struct ap_vstore_model *m;
	size_t i;

	c->mv.state = AP_MV_NO_MODEL;
	if (!c->have_id || !c->id.model)
		return;
	m = ap_vstore_find_disk(c->store, &c->id);
	c->mv.state = AP_MV_NONE;
	if (!m)
		return;
	c->mv.m = m;
	c->mv.model_index = m->index;	/* in its own file */
	c->verdicts_file = c->verdict_files[m->layer];
	for (i = 0; i < m->nverdicts; i++)
		if (m->verdicts[i].logical_sector == logical && c->mv.nmatching++ == 0)
			c->mv.verdict = i;
	if (!c->mv.nmatching) {
		c->mv.state = AP_MV_OTHER_SECTOR;
	} else if (c->mv.nmatching > 1) {
		c->mv.state = AP_MV_CONFLICT;
	} else {
		const struct ap_vstore_verdict *v = &m->verdicts[c->mv.verdict];
		struct ap_geometry *g = &c->g.probed;
		uint64_t up_to = 0;

		/* "no effect": the unit it stands for (see ap_no_effect_scope()) */
		uint64_t unit = v->sensitive ? v->physical_sector :
				ap_no_effect_scope(logical, v->ruled_out_up_to, &v->ruled_out,
						   &v->levels, &up_to);

		if (!v->sensitive && (!ap_absence_margin_shown(v->absence_margin) || !unit)) {
			c->mv.state = AP_MV_UNSHOWN;
			return;
		}
		c->mv.state = AP_MV_USED;
		if (ap_geometry_set(g, AP_GEOM_MODEL, logical, unit,
				    v->sensitive ? v->lowest_aligned_lba : 0, NULL) == 0) {
			g->sensitive = v->sensitive;
			g->ruled_out_up_to = up_to;
			g->ruled_out = v->ruled_out;
			g->first_writes_unplaced = v->first_writes_unplaced;
			/* every level the model's disks showed is a rule, as a probe's */
			ap_geometry_add_levels_above(g, &v->levels);
		} else
			c->mv.state = AP_MV_NONE;	/* the store validates it: cannot happen */
	}
}


/* What the checked device is known by, to find its entry in a --geometry file. */
static void geometry_target(const struct ap_check *c, struct ap_fleet_target *t,
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

/* A fault of kind @kind with @e's message: -@e->code (EINVAL when none). */
static int fault(struct ap_check *c, enum ap_check_fault kind, const struct ap_error *e,
		 struct ap_error *err)
{
	c->fault = kind;
	return ap_error_set(err, e->code ? e->code : EINVAL, "%s", e->msg);
}

/* --chunk, --stripe, --allocation-unit: levels of @g, from LBA 0. */
static int hand_levels(const struct ap_check *c, struct ap_geometry *g, struct ap_error *e)
{
	const struct { const char *opt; enum ap_level_kind kind; uint64_t unit; } hand[] = {
		{ "--chunk", AP_LEVEL_CHUNK, c->chunk },
		{ "--stripe", AP_LEVEL_STRIPE, c->stripe },
		{ "--allocation-unit", AP_LEVEL_ALLOCATION, c->alloc_unit },
	};
	size_t i;

	for (i = 0; i < AP_ARRAY_SIZE(hand); i++) {
		struct ap_level l = { .kind = hand[i].kind, .unit = hand[i].unit,
				      .paid = hand[i].kind == AP_LEVEL_ALLOCATION ?
					      AP_PAID_FIRST_WRITE : AP_PAID_EVERY_WRITE };
		struct ap_error le;

		if (!l.unit)
			continue;
		if (ap_geometry_add_level(g, &l, &le))
			return ap_error_set(e, EINVAL, "%s %" PRIu64 ": %s", hand[i].opt, l.unit,
					    le.msg);
	}
	if (c->chunk && c->stripe && (c->stripe < c->chunk || c->stripe % c->chunk))
		return ap_error_set(e, EINVAL, "--stripe %" PRIu64 " is not a whole number of "
				    "--chunk %" PRIu64 " (chunk x data disks)", c->stripe, c->chunk);
	return 0;
}

int ap_check_geometries(struct ap_check *c, struct ap_error *err)
{
	const struct ap_kernel_topology *k = &c->topo.kernel;
	const struct ap_drive_topology *d = &c->topo.drive;
	unsigned logical = c->pt.sector_size;
	struct ap_geometry *g;
	struct ap_error e;
	uint64_t offset;

	ap_error_clear(&e);
	memset(&c->g, 0, sizeof(c->g));
	c->fault = AP_CHECK_FAULT_NONE;
	c->note[0] = '\0';

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
		struct ap_fleet_target t;
		char *wwn, *serial;
		int rc;

		geometry_target(c, &t, &wwn, &serial);
		rc = ap_fleet_geometry_load(c->geometry_file, &t, g, &c->pick, &e);
		free(wwn);
		free(serial);
		if (rc == -ENODEV && c->verdicts) {
			/* no probe of this disk: its model's verdict may decide */
			memset(g, 0, sizeof(*g));
			memset(&c->pick, 0, sizeof(c->pick));
			snprintf(c->note, sizeof(c->note), "%s", e.msg);
		} else if (rc) {
			return fault(c, AP_CHECK_FAULT_FILE, &e, err);	/* it names the file */
		}
		if (g->physical && g->logical != logical) {
			c->fault = AP_CHECK_FAULT_DEVICE;
			return ap_error_set(err, EINVAL, "%s: the verdict is for %u-byte logical "
					    "sectors, the disk has %u", c->geometry_file, g->logical,
					    logical);
		}
	} else if (c->physical) {
		if (ap_geometry_set(g, AP_GEOM_MANUAL, logical, c->physical, c->lowest, &e)) {
			c->fault = AP_CHECK_FAULT_USAGE;
			return ap_error_set(err, EINVAL, "--physical: %s", e.msg);
		}
		if (c->lowest >= c->physical / logical) {
			c->fault = AP_CHECK_FAULT_USAGE;
			return ap_error_set(err, EINVAL, "--lowest-aligned %" PRIu64 ": out of range: "
					    "0..%" PRIu64 " for %" PRIu64 "-byte physical sectors of "
					    "%u-byte logical sectors", c->lowest,
					    c->physical / logical - 1, c->physical, logical);
		}
	}

	if (c->verdicts && c->g.probed.physical)
		c->mv.state = AP_MV_NOT_NEEDED;
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
	c->g.rule = ap_check_rule_decide(c->g.basis, offset,
					 c->trust_reported && c->mv.state != AP_MV_CONFLICT,
					 &c->g.decided);
	c->g.in_force = &c->g.decided;
	if (hand_levels(c, &c->g.decided, &e)) {
		c->fault = AP_CHECK_FAULT_USAGE;
		return ap_error_set(err, EINVAL, "%s", e.msg);
	}
	ap_check_rule_explain(c);
	return 0;
}

int ap_check_load_stores(struct ap_check *c, struct ap_vstore *store, int *rcs, size_t *nmodels,
			 bool *said, struct ap_error *e)
{
	struct ap_error le;
	int rc = 0;
	size_t i;

	*said = false;
	for (i = 0; i < c->nverdict_files; i++)
		c->verdict_files[i] = ap_vstore_path(c->verdict_files[i]);
	c->verdicts_file = c->verdict_files[0];
	/* each layer's state for the metrics; one bad layer: none is used */
	for (i = 0; i < c->nverdict_files; i++) {
		struct ap_vstore one;

		ap_error_clear(&le);
		rcs[i] = ap_vstore_load(c->verdict_files[i], &one, &le);
		if (rcs[i] == 0)
			nmodels[i] = one.nmodels;
		ap_vstore_free(&one);
		if (rcs[i] && !rc) {
			rc = rcs[i];
			*e = le;
			*said = true;
		}
	}
	if (!rc)
		rc = ap_vstore_load_layers(c->verdict_files, c->nverdict_files, store, e);
	if (rc)
		c->verdicts = false;
	else
		c->store = store;
	return rc;
}

static const char *const mv_names[] = {
	[AP_MV_OFF] = "off", [AP_MV_NOT_NEEDED] = "not_needed", [AP_MV_NO_MODEL] = "no_model",
	[AP_MV_NONE] = "none", [AP_MV_OTHER_SECTOR] = "other_sector_size", [AP_MV_USED] = "used",
	[AP_MV_CONFLICT] = "conflict", [AP_MV_UNSHOWN] = "no_effect_not_shown",
};

struct json_object *ap_check_model_to_json(const struct ap_check *ck)
{
	const struct ap_vstore_model *m = ck->mv.m;
	struct json_object *o, *mo, *a;
	size_t i;

	if (ck->mv.state == AP_MV_OFF)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "store", json_object_new_string(ck->verdicts_file));
	a = json_object_new_array();
	for (i = 0; i < ck->nverdict_files; i++)
		json_object_array_add(a, json_object_new_string(ck->verdict_files[i]));
	json_object_object_add(o, "stores", a);
	json_object_object_add(o, "state", json_object_new_string(mv_names[ck->mv.state]));
	mo = NULL;
	if (ck->have_id && ck->id.model) {
		mo = json_object_new_object();
		json_object_object_add(mo, "vendor", ap_json_string(ck->id.vendor));
		json_object_object_add(mo, "model", ap_json_string(ck->id.model));
		json_object_object_add(mo, "revision", ap_json_string(ck->id.revision));
	}
	json_object_object_add(o, "model", mo);
	if (ck->mv.state == AP_MV_USED) {
		char where[64];

		snprintf(where, sizeof(where), "models[%zu].verdicts[%zu]", ck->mv.model_index,
			 ck->mv.verdict);
		json_object_object_add(o, "entry", json_object_new_string(where));
	} else {
		json_object_object_add(o, "entry", NULL);
	}
	a = json_object_new_array();
	for (i = 0; m && i < m->nverdicts; i++) {
		const struct ap_vstore_verdict *v = &m->verdicts[i];
		struct json_object *vo;
		char where[64];

		if (v->logical_sector != ck->pt.sector_size)
			continue;
		vo = json_object_new_object();
		snprintf(where, sizeof(where), "models[%zu].verdicts[%zu]", ck->mv.model_index, i);
		json_object_object_add(vo, "entry", json_object_new_string(where));
		json_object_array_add(a, ap_vstore_verdict_to_json(v, vo, true));
	}
	json_object_object_add(o, "verdicts", a);
	return o;
}

void ap_check_describe_unshown(const struct ap_check *c, char *buf, size_t sz)
{
	const struct ap_vstore_verdict *v = &c->mv.m->verdicts[c->mv.verdict];
	char m[64];

	if (ap_absence_margin_shown(v->absence_margin) && !v->ruled_out_up_to) {
		if (ap_ruled_out_rewrites_only(&v->ruled_out))
			snprintf(buf, sz, "on rewrites only: first writes were not ruled out "
				 "(storage that allocates on the first write can hide there)");
		else
			snprintf(buf, sz, "but not up to which size a hidden unit was ruled out "
				 "(an older alignprobe)");
		return;
	}
	if (v->absence_margin >= 1)
		snprintf(m, sizeof(m), "only effects of %.2fx or more", v->absence_margin);
	else
		snprintf(m, sizeof(m), "no margin (an older alignprobe)");
	snprintf(buf, sz, "with %s: that does not show honest sectors (flash costs 1.1-1.5x; "
		 "%.2fx is the widest margin accepted)", m, AP_ABSENCE_MARGIN);
}
