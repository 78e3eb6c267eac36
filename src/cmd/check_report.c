// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * alignprobe check: what is printed of a device. The table of partitions
 * (one row fills a table line and a JSON object), the topology, the JSON
 * document, the advice for a table written for another sector size, and
 * the --prometheus series.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "cmd/check.h"
#include "cmd/commands.h"
#include "cmd/publish.h"
#include "device/geometry.h"
#include "device/identity.h"
#include "device/ptable.h"
#include "device/topology.h"
#include "fleet/vstore.h"
#include "lib/exitcodes.h"
#include "lib/util.h"
#include "ui/out.h"

/* check's columns (declared in cmd/check.h); their names are API. */
const struct ap_colinfo check_infos[CHECK_NCOLS] = {
	[COL_NR]	    = { "NR", 2, SCOLS_FL_RIGHT, AP_COL_NUMBER, "partition number" },
	[COL_START]	    = { "START", 10, SCOLS_FL_RIGHT, AP_COL_NUMBER, "first sector" },
	[COL_END]	    = { "END", 10, SCOLS_FL_RIGHT, AP_COL_NUMBER, "last sector" },
	[COL_SECTORS]	    = { "SECTORS", 10, SCOLS_FL_RIGHT, AP_COL_NUMBER, "size in sectors" },
	[COL_SIZE]	    = { "SIZE", 6, SCOLS_FL_RIGHT, AP_COL_SIZE, "size" },
	[COL_TYPE]	    = { "TYPE", 0.1, SCOLS_FL_TRUNC, AP_COL_STRING, "partition type name" },
	[COL_TYPECODE]	    = { "TYPECODE", 0.1, 0, AP_COL_STRING, "partition type code or GUID" },
	[COL_NAME]	    = { "NAME", 0.1, SCOLS_FL_TRUNC, AP_COL_STRING, "partition name (GPT)" },
	[COL_UUID]	    = { "UUID", 36, 0, AP_COL_STRING, "partition UUID (GPT)" },
	[COL_ALIGN_REPORTED] = { "ALIGN_REPORTED", 3, 0, AP_COL_BOOLEAN,
		"start aligned to the reported physical sector and alignment offset" },
	[COL_ALIGN_DRIVE]   = { "ALIGN_DRIVE", 3, 0, AP_COL_BOOLEAN,
		"start aligned to the drive's claimed physical sector (ATA/SCSI/NVMe)" },
	[COL_ALIGN_PROBED]  = { "ALIGN_PROBED", 3, 0, AP_COL_BOOLEAN,
		"start aligned to the probed (or given, or the model's) physical sector and "
		"lowest aligned LBA" },
	[COL_ALIGN_1M]	    = { "ALIGN_1M", 3, 0, AP_COL_BOOLEAN, "start on a 1 MiB boundary" },
	[COL_ALIGN_OPTIO]   = { "ALIGN_OPTIO", 3, 0, AP_COL_BOOLEAN,
		"start aligned to the reported optimal I/O size (when sane)" },
	[COL_SIZE_ALIGNED]  = { "SIZE_ALIGNED", 3, 0, AP_COL_BOOLEAN,
		"size a whole number of physical sectors (geometry in force)" },
	[COL_ALIGNED]	    = { "ALIGNED", 3, 0, AP_COL_BOOLEAN,
		"aligned under the geometry in force (decides the exit status)", .null = "-" },
	[COL_MISALIGN]	    = { "MISALIGN", 3, SCOLS_FL_RIGHT, AP_COL_NUMBER,
		"sectors past the last physical sector boundary (geometry in force)" },
	[COL_NEXT_ALIGNED]  = { "NEXT_ALIGNED", 10, SCOLS_FL_RIGHT, AP_COL_NUMBER,
		"first aligned sector at or after START (geometry in force)" },
	[COL_DEVICE]	    = { "DEVICE", 0.1, 0, AP_COL_STRING,
		"the device or image (a default with several)" },
};

/* The columns of -o (or the defaults); a JSON row without -o: every column. */
/* The keys of a "partitions" object without -o: DEVICE is the document's. */
static const int json_cols[] = {
	COL_NR, COL_START, COL_END, COL_SECTORS, COL_SIZE, COL_TYPE, COL_TYPECODE, COL_NAME,
	COL_UUID, COL_ALIGN_REPORTED, COL_ALIGN_DRIVE, COL_ALIGN_PROBED, COL_ALIGN_1M,
	COL_ALIGN_OPTIO, COL_SIZE_ALIGNED, COL_ALIGNED, COL_MISALIGN, COL_NEXT_ALIGNED,
};

static void check_cols(const struct check *c, struct ap_cols *cs)
{
	/* --output-all: every column, DEVICE too */
	ap_cols_init(cs, &c->out, check_infos, CHECK_NCOLS, c->cols, c->ncols,
		     c->out.all ? NULL : json_cols, c->out.all ? 0 : AP_ARRAY_SIZE(json_cols));
}

/* A tristate: unknown (< 0) is null, "-" for ALIGNED (holds no data, or not where meant). */
static void row_tristate(struct ap_row *r, int id, int v)
{
	if (v >= 0)
		ap_row_bool(r, id, v);
}

/* One partition, every column: a table line and an object of "partitions". */
static void fill_row(const struct check *c, struct ap_row *r, const struct ap_part *p,
		     const struct ap_check_verdicts *v)
{
	ap_row_reset(r);
	ap_row_str(r, COL_DEVICE, c->ck.device);
	ap_row_u64(r, COL_NR, p->partno + 1);
	ap_row_u64(r, COL_START, p->start);
	ap_row_u64(r, COL_END, p->size ? p->start + p->size - 1 : p->start);
	ap_row_u64(r, COL_SECTORS, p->size);
	ap_row_u64(r, COL_SIZE, p->size * c->ck.pt.sector_size);
	ap_row_str(r, COL_TYPE, p->type);
	ap_row_str(r, COL_TYPECODE, p->typecode);
	ap_row_str(r, COL_NAME, p->name);
	ap_row_str(r, COL_UUID, p->uuid);
	row_tristate(r, COL_ALIGN_REPORTED, v->reported);
	row_tristate(r, COL_ALIGN_DRIVE, v->drive);
	row_tristate(r, COL_ALIGN_PROBED, v->probed);
	row_tristate(r, COL_ALIGN_1M, v->mib);
	row_tristate(r, COL_ALIGN_OPTIO, v->optio);
	ap_row_bool(r, COL_SIZE_ALIGNED, v->size_aligned);
	row_tristate(r, COL_ALIGNED, v->aligned);
	ap_row_u64(r, COL_MISALIGN, v->misalign);
	if (v->next != UINT64_MAX)
		ap_row_u64(r, COL_NEXT_ALIGNED, v->next);
}

/* ---- topology and geometry as JSON ---- */

static struct json_object *geometry_json(const struct ap_geometry *g, const char *file)
{
	struct json_object *o;

	if (!g || !g->physical)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "source", json_object_new_string(ap_geometry_source_name(g->source)));
	if (file)
		json_object_object_add(o, "file", json_object_new_string(file));
	json_object_object_add(o, "logical_sector", json_object_new_int64(g->logical));
	json_object_object_add(o, "physical_sector", ap_json_u64(g->physical));
	json_object_object_add(o, "lowest_aligned_lba", ap_json_u64(g->lowest_aligned));
	if (g->source == AP_GEOM_MODEL)
		json_object_object_add(o, "sensitive", json_object_new_boolean(g->sensitive));
	/* "no effect": up to which unit; physical_sector is then the unit it stands for */
	if ((g->source == AP_GEOM_MODEL || g->source == AP_GEOM_PROBED) && g->ruled_out_up_to)
		json_object_object_add(o, "ruled_out_up_to", ap_json_u64(g->ruled_out_up_to));
	if (g->source == AP_GEOM_PROBED) {
		json_object_object_add(o, "sensitive", json_object_new_boolean(g->sensitive));
		json_object_object_add(o, "confidence", isfinite(g->confidence)
				       ? json_object_new_double(g->confidence) : NULL);
		json_object_object_add(o, "reported_physical_sector",
				       json_object_new_int64(g->reported_physical));
	}
	return o;
}

static struct json_object *topology_json(const struct ap_topology *t)
{
	const struct ap_kernel_topology *k = &t->kernel;
	const struct ap_drive_topology *d = &t->drive;
	struct json_object *o = json_object_new_object(), *ko, *dobj, *a;
	size_t i;

	ko = json_object_new_object();
	json_object_object_add(ko, "available", json_object_new_boolean(k->available));
	if (k->available) {
		json_object_object_add(ko, "logical_sector", ap_json_u64(k->logical));
		json_object_object_add(ko, "physical_sector", ap_json_u64(k->physical));
		json_object_object_add(ko, "minimum_io", ap_json_u64(k->minimum_io));
		json_object_object_add(ko, "optimal_io", ap_json_u64(k->optimal_io));
		json_object_object_add(ko, "optimal_io_sane", json_object_new_boolean(k->optimal_io_sane));
		json_object_object_add(ko, "alignment_offset", ap_json_u64(k->alignment_offset));
	} else {
		json_object_object_add(ko, "reason", json_object_new_string(k->why));
	}
	json_object_object_add(ko, "write_cache", k->write_cache < 0 ? NULL
			       : json_object_new_string(k->write_cache ? "write back" : "write through"));
	json_object_object_add(o, "kernel", ko);

	dobj = json_object_new_object();
	json_object_object_add(dobj, "available", json_object_new_boolean(d->available));
	if (d->available) {
		json_object_object_add(dobj, "source", json_object_new_string(d->source));
		json_object_object_add(dobj, "logical_sector", json_object_new_int64(d->logical));
		json_object_object_add(dobj, "physical_sector", d->physical
				       ? ap_json_u64(d->physical) : NULL);
		json_object_object_add(dobj, "lowest_aligned_lba", d->lowest_aligned_known
				       ? json_object_new_int64(d->lowest_aligned) : NULL);
		if (d->ata_ok)
			json_object_object_add(dobj, "model", json_object_new_string(d->ata.model));
		if (d->nvme_ok) {
			json_object_object_add(dobj, "nvme_npwg", d->nvme.optperf_valid
					       ? json_object_new_int64(d->nvme.npwg) : NULL);
			json_object_object_add(dobj, "nvme_nows", d->nvme.optperf_valid
					       ? json_object_new_int64(d->nvme.nows) : NULL);
			json_object_object_add(dobj, "nvme_nawupf", d->nvme.atomics_valid
					       ? json_object_new_int64(d->nvme.nawupf) : NULL);
		}
	} else {
		json_object_object_add(dobj, "reason", json_object_new_string(d->why));
	}
	json_object_object_add(dobj, "write_cache", d->wc_known
			       ? json_object_new_boolean(d->wc.enabled) : NULL);
	json_object_object_add(o, "drive", dobj);

	a = json_object_new_array();
	for (i = 0; i < t->ndisagreements; i++)
		json_object_array_add(a, json_object_new_string(t->disagreements[i]));
	json_object_object_add(o, "disagreements", a);
	return o;
}

static struct json_object *probed_json(const struct check *c)
{
	struct json_object *o = geometry_json(&c->ck.g.probed, c->ck.geometry_file);

	if (o && c->ck.geometry_file) {
		json_object_object_add(o, "entry", json_object_new_string(c->ck.pick.where));
		json_object_object_add(o, "entry_device", c->ck.pick.device[0]
				       ? json_object_new_string(c->ck.pick.device) : NULL);
		json_object_object_add(o, "matched_by", json_object_new_string(
					       ap_geometry_match_name(c->ck.pick.match)));
	}
	return o;
}

static struct json_object *rule_json(const struct check *c)
{
	struct json_object *o = json_object_new_object();
	const struct ap_geometry *f = c->ck.g.in_force;

	json_object_object_add(o, "name", json_object_new_string(ap_geometry_rule_name(c->ck.g.rule)));
	json_object_object_add(o, "reason", json_object_new_string(c->ck.g.reason));
	json_object_object_add(o, "basis", json_object_new_string(
				       ap_geometry_source_name(c->ck.g.basis->source)));
	json_object_object_add(o, "unit", ap_json_u64(f->physical));
	json_object_object_add(o, "lowest_aligned_lba", ap_json_u64(f->lowest_aligned));
	return o;
}

/* What to tell about a table for another sector size: the likely cause and the way out. */
static void foreign_advice(const struct check *c, char *cause, size_t csz, char *remedy,
			   size_t rsz)
{
	unsigned w = c->ck.pt.foreign_sector_size, here = c->ck.pt.sector_size;

	if (!c->ck.pt.is_blockdev && w > here)
		snprintf(cause, csz, "the image was partitioned as a disk with %u-byte logical "
			 "sectors (a disk behind a USB bridge that presents them, or a loop device "
			 "with --sector-size %u) and is read here with %u-byte ones", w, w, here);
	else if (!c->ck.pt.is_blockdev)
		snprintf(cause, csz, "the image was partitioned as a disk with %u-byte logical "
			 "sectors and is read here with %u-byte ones (--sector-size %u)", w, here,
			 here);
	else if (w > here)
		snprintf(cause, csz, "the table was written while a USB bridge (an enclosure or "
			 "dock) presented the disk with %u-byte logical sectors; here the disk "
			 "has %u-byte ones (attached directly?)", w, here);
	else
		snprintf(cause, csz, "the table was written with the disk attached directly "
			 "(%u-byte logical sectors); here a USB bridge (an enclosure or dock) "
			 "presents it with %u-byte ones", w, here);
	if (!c->ck.pt.is_blockdev)
		snprintf(remedy, rsz, "read it as written with alignprobe check --sector-size %u "
			 "%s, or losetup --sector-size %u --partscan --find --show %s; or "
			 "re-create the table for %u-byte sectors", w, c->ck.device, w, c->ck.device,
			 here);
	else
		snprintf(remedy, rsz, "read it as written with losetup --read-only --sector-size "
			 "%u --partscan --find --show %s (then check that loop device), or attach "
			 "the disk the way it was partitioned; or re-create the table for %u-byte "
			 "sectors (back up first: every partition moves)", w, c->ck.device, here);
}

static struct json_object *foreign_json(const struct check *c)
{
	struct json_object *o, *a;
	char cause[400], remedy[600];
	size_t i;

	if (!c->ck.pt.foreign_sector_size)
		return NULL;
	foreign_advice(c, cause, sizeof(cause), remedy, sizeof(remedy));
	o = json_object_new_object();
	json_object_object_add(o, "written_for", json_object_new_int64(c->ck.pt.foreign_sector_size));
	json_object_object_add(o, "read_with", json_object_new_int64(c->ck.pt.sector_size));
	json_object_object_add(o, "label", ap_json_string(c->ck.pt.foreign_label));
	a = json_object_new_array();
	for (i = 0; i < c->ck.pt.nforeign_evidence; i++)
		json_object_array_add(a, json_object_new_string(c->ck.pt.foreign_evidence[i]));
	json_object_object_add(o, "evidence", a);
	json_object_object_add(o, "likely_cause", json_object_new_string(cause));
	json_object_object_add(o, "remedy", json_object_new_string(remedy));
	return o;
}
static const char *const mv_names[] = {
	[AP_MV_OFF] = "off", [AP_MV_NOT_NEEDED] = "not_needed", [AP_MV_NO_MODEL] = "no_model",
	[AP_MV_NONE] = "none", [AP_MV_OTHER_SECTOR] = "other_sector_size", [AP_MV_USED] = "used",
	[AP_MV_CONFLICT] = "conflict", [AP_MV_UNSHOWN] = "no_effect_not_shown",
};

/* "model_verdict": what the verdict store said of the disk's model, null without --verdicts. */
static struct json_object *model_verdict_json(const struct check *c)
{
	const struct ap_vstore_model *m = c->ck.mv.m;
	struct json_object *o, *mo, *a;
	size_t i, k;

	if (c->ck.mv.state == AP_MV_OFF)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "store", json_object_new_string(c->ck.verdicts_file));
	a = json_object_new_array();
	for (i = 0; i < c->ck.nverdict_files; i++)
		json_object_array_add(a, json_object_new_string(c->ck.verdict_files[i]));
	json_object_object_add(o, "stores", a);
	json_object_object_add(o, "state", json_object_new_string(mv_names[c->ck.mv.state]));
	mo = NULL;
	if (c->ck.have_id && c->ck.id.model) {
		mo = json_object_new_object();
		json_object_object_add(mo, "vendor", ap_json_string(c->ck.id.vendor));
		json_object_object_add(mo, "model", ap_json_string(c->ck.id.model));
		json_object_object_add(mo, "revision", ap_json_string(c->ck.id.revision));
	}
	json_object_object_add(o, "model", mo);
	if (c->ck.mv.state == AP_MV_USED) {
		char where[64];

		snprintf(where, sizeof(where), "models[%zu].verdicts[%zu]", c->ck.mv.model_index,
			 c->ck.mv.verdict);
		json_object_object_add(o, "entry", json_object_new_string(where));
	} else {
		json_object_object_add(o, "entry", NULL);
	}
	a = json_object_new_array();
	for (i = 0; m && i < m->nverdicts; i++) {
		const struct ap_vstore_verdict *v = &m->verdicts[i];
		struct json_object *vo, *xa;
		char where[64];

		if (v->logical_sector != c->ck.pt.sector_size)
			continue;
		vo = json_object_new_object();
		snprintf(where, sizeof(where), "models[%zu].verdicts[%zu]", c->ck.mv.model_index, i);
		json_object_object_add(vo, "entry", json_object_new_string(where));
		json_object_object_add(vo, "logical_sector", ap_json_u64(v->logical_sector));
		json_object_object_add(vo, "physical_sector", ap_json_u64(v->physical_sector));
		json_object_object_add(vo, "lowest_aligned_lba", ap_json_u64(v->lowest_aligned_lba));
		json_object_object_add(vo, "sensitive", json_object_new_boolean(v->sensitive));
		json_object_object_add(vo, "absence_margin", !v->sensitive && v->absence_margin >= 1 ?
				       json_object_new_double(v->absence_margin) : NULL);
		json_object_object_add(vo, "ruled_out_up_to", !v->sensitive && v->ruled_out_up_to ?
				       ap_json_u64(v->ruled_out_up_to) : NULL);
		xa = json_object_new_array();
		for (k = 0; k < v->nexamples; k++)
			json_object_array_add(xa, ap_vstore_example_to_json(&v->examples[k]));
		json_object_object_add(vo, "examples", xa);
		json_object_array_add(a, vo);
	}
	json_object_object_add(o, "verdicts", a);
	return o;
}

/* The -J document of the device (c->doc). */
void check_build_json(struct check *c, bool aligned)
{
	struct json_object *doc = json_object_new_object(), *geo, *a;
	const struct ap_ptable *pt = &c->ck.pt;
	struct ap_cols cs;
	struct ap_row r;
	size_t i;

	json_object_object_add(doc, "device", json_object_new_string(c->ck.device));
	json_object_object_add(doc, "type", json_object_new_string(pt->is_blockdev ? "block" : "image"));
	json_object_object_add(doc, "size", ap_json_u64(pt->size_bytes));
	json_object_object_add(doc, "logical_sector", json_object_new_int64(pt->sector_size));
	json_object_object_add(doc, "sectors", ap_json_u64(pt->nsectors));
	json_object_object_add(doc, "label", ap_json_string(pt->label));
	json_object_object_add(doc, "id", ap_json_string(pt->id));
	if (pt->reader && strcmp(pt->reader, "libfdisk") != 0)
		json_object_object_add(doc, "read_by", json_object_new_string(pt->reader));
	if (pt->whole_disk) {
		struct json_object *wo = json_object_new_object();

		json_object_object_add(wo, "type", json_object_new_string(pt->whole_disk));
		json_object_object_add(wo, "usage", ap_json_string(pt->whole_disk_usage));
		json_object_object_add(doc, "whole_disk", wo);
	}
	json_object_object_add(doc, "first_usable", pt->label ? ap_json_u64(pt->first_usable) : NULL);
	json_object_object_add(doc, "last_usable", pt->label ? ap_json_u64(pt->last_usable) : NULL);
	json_object_object_add(doc, "topology", topology_json(&c->ck.topo));

	geo = json_object_new_object();
	json_object_object_add(geo, "in_force", geometry_json(c->ck.g.in_force,
			       c->ck.g.rule == AP_RULE_PROBED ? c->ck.geometry_file : NULL));
	json_object_object_add(geo, "reported", geometry_json(&c->ck.g.reported, NULL));
	json_object_object_add(geo, "drive", geometry_json(&c->ck.g.drive, NULL));
	json_object_object_add(geo, "probed", probed_json(c));
	json_object_object_add(geo, "optimal_io", c->ck.g.optio ? ap_json_u64(c->ck.g.optio) : NULL);
	json_object_object_add(doc, "geometry", geo);
	json_object_object_add(doc, "rule", rule_json(c));
	json_object_object_add(doc, "model_verdict", model_verdict_json(c));
	json_object_object_add(doc, "foreign_sector_size", foreign_json(c));

	a = json_object_new_array();
	for (i = 0; i < pt->nissues; i++) {
		const struct ap_pt_issue *is = &pt->issues[i];
		struct json_object *io = json_object_new_object();

		json_object_object_add(io, "kind", json_object_new_string(ap_pt_kind_name(is->kind)));
		json_object_object_add(io, "severity", json_object_new_string(is->error ? "error" : "warning"));
		json_object_object_add(io, "partition", is->partno >= 0
				       ? json_object_new_int64(is->partno + 1) : NULL);
		json_object_object_add(io, "message", json_object_new_string(is->msg));
		json_object_array_add(a, io);
	}
	json_object_object_add(doc, "issues", a);
	a = json_object_new_array();
	for (i = 0; i < pt->nfdisk_msgs; i++)
		json_object_array_add(a, json_object_new_string(pt->fdisk_msgs[i]));
	json_object_object_add(doc, "libfdisk_messages", a);

	a = json_object_new_array();
	check_cols(c, &cs);
	ap_row_init(&r, &cs);
	for (i = 0; i < pt->nparts; i++) {
		struct ap_check_verdicts v;

		struct json_object *po;

		ap_check_judge(&c->ck, &pt->parts[i], &v);
		fill_row(c, &r, &pt->parts[i], &v);
		po = ap_row_json(&r);
		if (pt->parts[i].role != AP_PART_DATA)	/* named, not judged */
			json_object_object_add(po, "by_design", json_object_new_string(
					       ap_part_role_name(pt->parts[i].role)));
		json_object_array_add(a, po);
	}
	ap_row_free(&r);
	json_object_object_add(doc, "partitions", a);
	json_object_object_add(doc, "misaligned", ap_json_u64(c->ck.nmisaligned));
	json_object_object_add(doc, "next_steps", ap_next_steps_to_json(&c->ck.next));
	json_object_object_add(doc, "aligned", json_object_new_boolean(aligned));
	c->doc = doc;
}

/* ---- human output ---- */

static void cell_ul(struct libscols_line *ln, size_t col, bool have, uint64_t v)
{
	char buf[32];

	if (!have) {
		scols_line_set_data(ln, col, "-");
		return;
	}
	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	scols_line_set_data(ln, col, buf);
}

/* The disk and its partition table, one line each. */
static void topology_head(const struct check *c)
{
	char *human = ap_size_to_human(c->ck.pt.size_bytes);

	printf("Disk %s: %s, %" PRIu64 " sectors of %u bytes, %s%s\n", c->ck.device, human,
	       c->ck.pt.nsectors, c->ck.pt.sector_size, c->ck.pt.is_blockdev ? "block device" : "image file",
	       c->ck.pt.label || c->ck.pt.whole_disk ? "" : ", no usable partition table");
	free(human);
	if (c->ck.pt.whole_disk)
		printf("No partition table: %s on the whole disk, from byte 0\n", c->ck.pt.whole_disk);
	if (c->ck.pt.label)
		printf("Partition table: %s, %zu partition%s, usable sectors %" PRIu64 "-%" PRIu64 "%s%s\n",
		       c->ck.pt.label, c->ck.pt.nparts, c->ck.pt.nparts == 1 ? "" : "s", c->ck.pt.first_usable,
		       c->ck.pt.last_usable, c->ck.pt.id ? ", id " : "", c->ck.pt.id ? c->ck.pt.id : "");
}

/* The rows a block device has and an image has not: I/O sizes and the write cache. */
static void topology_device_rows(struct libscols_table *tb, const struct check *c, bool probed,
				 size_t pc)
{
	const struct ap_kernel_topology *k = &c->ck.topo.kernel;
	const struct ap_drive_topology *d = &c->ck.topo.drive;
	struct libscols_line *ln;
	char buf[64];
	size_t i;

	ln = scols_table_new_line(tb, NULL);
	scols_line_set_data(ln, 0, "minimum I/O");
	cell_ul(ln, 1, k->available, k->minimum_io);
	cell_ul(ln, 2, false, 0);

	ln = scols_table_new_line(tb, NULL);
	scols_line_set_data(ln, 0, "optimal I/O");
	if (k->available && k->optimal_io && !k->optimal_io_sane) {
		snprintf(buf, sizeof(buf), "%lu (ignored)", k->optimal_io);
		scols_line_set_data(ln, 1, buf);
	} else {
		cell_ul(ln, 1, k->available, k->optimal_io);
	}
	cell_ul(ln, 2, d->nvme_ok && d->nvme.optimal_io, d->nvme.optimal_io);

	ln = scols_table_new_line(tb, NULL);
	scols_line_set_data(ln, 0, "write cache");
	scols_line_set_data(ln, 1, k->write_cache < 0 ? "-" : k->write_cache
			    ? "write back" : "write through");
	scols_line_set_data(ln, 2, !d->wc_known ? "-" : d->wc.enabled ? "on" : "off");
	if (probed)
		for (i = 3; i < 6; i++) {
			struct libscols_line *l = scols_table_get_line(tb, i);

			if (l)
				scols_line_set_data(l, pc, "-");
		}
}

/* The table of sizes in @tb: the kernel's (or the image's), the drive's, the probed: 0 or -EIO. */
static int topology_table(struct libscols_table *tb, const struct check *c,
			  const struct ap_geometry *p)
{
	const struct ap_kernel_topology *k = &c->ck.topo.kernel;
	const struct ap_drive_topology *d = &c->ck.topo.drive;
	const struct ap_geometry *r = &c->ck.g.reported;
	bool blk = c->ck.pt.is_blockdev;
	struct libscols_line *ln;
	size_t pc = blk ? 3 : 2;
	int rc;

	scols_table_new_column(tb, "", 0, 0);
	scols_table_new_column(tb, blk ? "KERNEL" : "IMAGE", 0, SCOLS_FL_RIGHT);
	if (blk)
		scols_table_new_column(tb, "DRIVE", 0, SCOLS_FL_RIGHT);
	if (p)
		scols_table_new_column(tb, p->source == AP_GEOM_PROBED ? "PROBED" :
				       p->source == AP_GEOM_MODEL ? "MODEL" : "GIVEN", 0,
				       SCOLS_FL_RIGHT);

	ln = scols_table_new_line(tb, NULL);
	scols_line_set_data(ln, 0, "logical sector");
	cell_ul(ln, 1, true, blk && k->available ? k->logical : r->logical);
	if (blk)
		cell_ul(ln, 2, d->available && d->logical, d->logical);
	if (p)
		cell_ul(ln, pc, true, p->logical);

	ln = scols_table_new_line(tb, NULL);
	scols_line_set_data(ln, 0, "physical sector");
	cell_ul(ln, 1, true, blk && k->available ? k->physical : r->physical);
	if (blk)
		cell_ul(ln, 2, d->available && d->physical, d->physical);
	if (p)
		cell_ul(ln, pc, true, p->physical);

	ln = scols_table_new_line(tb, NULL);
	scols_line_set_data(ln, 0, "lowest aligned LBA");
	cell_ul(ln, 1, true, r->lowest_aligned);
	if (blk)
		cell_ul(ln, 2, d->available && d->lowest_aligned_known, d->lowest_aligned);
	if (p)
		cell_ul(ln, pc, true, p->lowest_aligned);

	if (blk)
		topology_device_rows(tb, c, p != NULL, pc);
	rc = scols_print_table(tb);
	scols_unref_table(tb);
	return rc ? -EIO : 0;
}

/* Who answered (the kernel, the drive) and where they disagree. */
static void topology_sources(const struct check *c, const struct ap_geometry *p)
{
	const struct ap_kernel_topology *k = &c->ck.topo.kernel;
	const struct ap_drive_topology *d = &c->ck.topo.drive;
	const struct ap_geometry *r = &c->ck.g.reported;
	bool blk = c->ck.pt.is_blockdev;
	size_t i;

	if (!blk)
		printf("image: %u-byte sectors, no kernel topology and no drive to ask\n",
		       c->ck.pt.sector_size);
	else if (!k->available)
		printf("kernel: not available (%s)\n", k->why);
	if (blk && !d->available)
		printf("drive: not available (%s)\n", d->why);
	else if (blk && d->ata_ok && d->ata.model[0])
		printf("drive: %s, answered %s%s\n", d->ata.model, d->source,
		       d->scsi_ok ? " and SCSI READ CAPACITY(16)" : "");
	else if (blk)
		printf("drive: answered %s\n", d->source);
	for (i = 0; i < c->ck.topo.ndisagreements; i++)
		printf("disagreement: %s\n", c->ck.topo.disagreements[i]);
	/* a "no effect" that stands for a larger unit does not disagree: it did not see one */
	if (p && p->ruled_out_up_to && p->physical != p->logical)
		p = NULL;
	if (p && p->physical != r->physical)
		printf("disagreement: physical sector: reported %" PRIu64 " bytes, %s %" PRIu64 "\n",
		       r->physical, p->source == AP_GEOM_PROBED ? "probed" :
		       p->source == AP_GEOM_MODEL ? "its model's verdict" : "given", p->physical);
	if (p && p->lowest_aligned != r->lowest_aligned)
		printf("disagreement: lowest aligned LBA: reported %" PRIu64 ", %s %" PRIu64 "\n",
		       r->lowest_aligned, p->source == AP_GEOM_PROBED ? "probed" :
		       p->source == AP_GEOM_MODEL ? "its model's verdict" : "given",
		       p->lowest_aligned);
}

int check_print_topology(const struct check *c)
{
	const struct ap_geometry *p = c->ck.g.probed.physical ? &c->ck.g.probed : NULL;
	struct libscols_table *tb = scols_new_table();
	char buf[200];
	int rc;

	if (!tb)
		return -ENOMEM;
	topology_head(c);
	rc = topology_table(tb, c, p);
	if (rc)
		return rc;
	topology_sources(c, p);
	ap_check_describe_geometry(c->ck.g.in_force, buf, sizeof(buf));
	printf("Geometry in force: %s%s%s\n", buf,
	       c->ck.g.rule == AP_RULE_PROBED || c->ck.g.rule == AP_RULE_MODEL ? ", from " : "",
	       c->ck.g.rule == AP_RULE_PROBED ? c->ck.geometry_file :
	       c->ck.g.rule == AP_RULE_MODEL ? c->ck.verdicts_file : "");
	printf("Rule: %s: %s\n", ap_geometry_rule_name(c->ck.g.rule), c->ck.g.reason);
	putchar('\n');
	return 0;
}

int check_print_table(struct check *c)
{
	struct libscols_table *tb;
	struct ap_out out;
	struct ap_cols cs;
	struct ap_row r;
	size_t i;
	int rc;

	check_cols(c, &cs);
	tb = ap_cols_table_new(&cs, "partitions");
	ap_row_init(&r, &cs);
	for (i = 0; i < c->ck.pt.nparts; i++) {
		struct ap_check_verdicts v;

		ap_check_judge(&c->ck, &c->ck.pt.parts[i], &v);
		fill_row(c, &r, &c->ck.pt.parts[i], &v);
		if (ap_row_add_line(&r, tb) != 0) {
			ap_row_free(&r);
			scols_unref_table(tb);
			return -ENOMEM;
		}
	}
	ap_row_free(&r);
	/* raw and CSV: the rows of every device under one heading */
	out = c->out;
	if ((out.raw || out.csv) && c->headings_done) {
		out.noheadings = true;
		scols_table_enable_noheadings(tb, 1);
	}
	rc = ap_out_print(&out, tb);
	scols_unref_table(tb);
	if (rc == 0 && (c->out.raw || c->out.csv))
		c->headings_done = true;
	return rc;
}

/* The table was written for another sector size: what shows it, why, and what to do. */
void check_report_notes(const struct check *c)
{
	size_t i;

	if (c->quiet)
		return;
	for (i = 0; i < c->ck.pt.nparts; i++) {
		const struct ap_part *p = &c->ck.pt.parts[i];

		if (p->role != AP_PART_DATA)
			check_warn(c, "note: partition %zu (sectors %" PRIu64 "-%" PRIu64 ") is %s of "
				   "the %s label: it overlaps the others by design and is not "
				   "judged", p->partno + 1, p->start,
				   p->size ? p->start + p->size - 1 : p->start,
				   ap_part_role_name(p->role), c->ck.pt.label);
	}
	if (c->ck.pt.label && c->ck.pt.reader && strcmp(c->ck.pt.reader, "libblkid") == 0)
		check_warn(c, "note: the partition table (%s) was read by libblkid: libfdisk "
			   "does not read this type", c->ck.pt.label);
	if (c->ck.pt.whole_disk)
		check_warn(c, "note: no partition table: %s%s%s%s on the whole disk, which starts at "
			   "byte 0 and is aligned under every geometry", c->ck.pt.whole_disk,
			   c->ck.pt.whole_disk_usage ? " (" : "",
			   c->ck.pt.whole_disk_usage ? c->ck.pt.whole_disk_usage : "",
			   c->ck.pt.whole_disk_usage ? ")" : "");
}

void check_report_foreign(const struct check *c)
{
	char cause[400], remedy[600];
	size_t i;

	for (i = 0; i < c->ck.pt.nforeign_evidence; i++)
		check_warn(c, "found: %s", c->ck.pt.foreign_evidence[i]);
	foreign_advice(c, cause, sizeof(cause), remedy, sizeof(remedy));
	check_warn(c, "likely cause: %s", cause);
	check_warn(c, "what to do: %s", remedy);
}

/* --prometheus: this device's series (see docs/alignprobe.8, MONITORING). */
void check_add_metrics(const struct check *c, struct ap_prom *p, int status)
{
	const char *dev = c->ck.device;
	const struct ap_geometry *geo[] = { &c->ck.g.reported, &c->ck.g.drive, &c->ck.g.probed };
	bool judged = status == AP_EXIT_OK || status == AP_EXIT_MISALIGNED ||
		      status == AP_EXIT_SECTOR_SIZE;
	char num[24];
	size_t i;

	ap_fleet_prom_add(p, "alignprobe_check_success", judged, "device", dev, NULL);
	ap_fleet_prom_add(p, "alignprobe_check_exit_status", status, "device", dev, NULL);
	ap_fleet_prom_disk(p, "check", dev, c->ck.have_id ? &c->ck.id : NULL, c->ck.pt.sector_size);
	if (!judged)
		return;
	ap_fleet_prom_add(p, "alignprobe_disk_aligned", status == AP_EXIT_OK, "device", dev, NULL);
	for (i = 0; i < AP_ARRAY_SIZE(geo); i++) {
		const char *src = ap_geometry_source_name(geo[i]->source);

		if (!geo[i]->physical)
			continue;
		ap_fleet_prom_add(p, "alignprobe_physical_sector_bytes", (double)geo[i]->physical,
				  "command", "check", "device", dev, "source", src, NULL);
		ap_fleet_prom_add(p, "alignprobe_alignment_offset_bytes",
				  (double)geo[i]->lowest_aligned * geo[i]->logical, "command", "check",
				  "device", dev, "source", src, NULL);
	}
	if (c->ck.g.in_force) {
		ap_fleet_prom_add(p, "alignprobe_check_rule_info", 1, "device", dev, "rule",
				  ap_geometry_rule_name(c->ck.g.rule), "basis",
				  ap_geometry_source_name(c->ck.g.basis->source), NULL);
		ap_fleet_prom_add(p, "alignprobe_check_required_alignment_bytes",
				  (double)c->ck.g.in_force->physical, "device", dev, NULL);
		ap_fleet_prom_add(p, "alignprobe_check_required_offset_bytes",
				  (double)c->ck.g.in_force->lowest_aligned * c->ck.g.in_force->logical,
				  "device", dev, NULL);
	}
	if (c->ck.pt.foreign_sector_size)
		ap_fleet_prom_add(p, "alignprobe_check_foreign_sector_bytes",
				  c->ck.pt.foreign_sector_size, "device", dev, NULL);
	if (c->ck.mv.state != AP_MV_OFF && c->ck.mv.state != AP_MV_NOT_NEEDED) {
		ap_fleet_prom_add(p, "alignprobe_check_model_verdicts", (double)c->ck.mv.nmatching,
				  "device", dev, NULL);
		if (c->ck.mv.state == AP_MV_USED) {
			const struct ap_vstore_verdict *v = &c->ck.mv.m->verdicts[c->ck.mv.verdict];
			char where[64];

			snprintf(where, sizeof(where), "models[%zu].verdicts[%zu]",
				 c->ck.mv.model_index, c->ck.mv.verdict);
			ap_fleet_prom_add(p, "alignprobe_check_model_verdict_info", 1, "device", dev,
					  "store", c->ck.verdicts_file, "entry", where, "example",
					  v->nexamples ? v->examples[0].serial : NULL, NULL);
		}
	}
	ap_fleet_prom_add(p, "alignprobe_check_partitions", (double)c->ck.nchecked, "device", dev,
			  NULL);
	ap_fleet_prom_add(p, "alignprobe_check_misaligned_partitions", (double)c->ck.nmisaligned,
			  "device", dev, NULL);
	for (i = 0; i < c->ck.pt.nparts; i++) {
		const struct ap_part *part = &c->ck.pt.parts[i];
		unsigned ls = c->ck.pt.sector_size;
		struct ap_check_verdicts v;

		ap_check_judge(&c->ck, part, &v);
		if (v.aligned < 0)
			continue;	/* an extended partition, or a table for another size */
		snprintf(num, sizeof(num), "%zu", part->partno + 1);
		ap_fleet_prom_add(p, "alignprobe_partition_aligned", v.aligned, "device", dev,
				  "partition", num, NULL);
		ap_fleet_prom_add(p, "alignprobe_partition_start_bytes", (double)part->start * ls,
				  "device", dev, "partition", num, NULL);
		if (v.next != UINT64_MAX)
			ap_fleet_prom_add(p, "alignprobe_partition_next_aligned_start_bytes",
					  (double)v.next * ls, "device", dev, "partition", num, NULL);
	}
}

/* What to run next for each misaligned partition (ap_check_next_steps()), after the table. */
void check_print_next_steps(const struct check *c)
{
	ap_cmd_print_next_steps(&c->ck.next, "\nWhat to run next (each rewrites data: back up first):",
				"  ");
}
