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

#include "check/rule.h"
#include "cmd/checkP.h"
#include "cmd/commands.h"
#include "device/claims.h"
#include "device/geometry.h"
#include "device/identity.h"
#include "device/ptable.h"
#include "device/topology.h"
#include "fleet/load.h"
#include "fleet/vstore.h"
#include "lib/exitcodes.h"
#include "lib/util.h"
#include "ui/out.h"

/* check's columns (declared in cmd/checkP.h); their names are API. */
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

static void check_cols(const struct check_cmd *c, struct ap_cols *cs)
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
static void fill_row(const struct check_cmd *c, struct ap_row *r, const struct ap_part *p,
		     const struct ap_check_verdicts *v)
{
	ap_row_reset(r);
	ap_row_str(r, COL_DEVICE, c->ck.device);
	if (p->parent) {	/* "2e": a string, in the table and the JSON */
		char nr[AP_PART_NR_MAX];

		ap_row_str(r, COL_NR, ap_part_nr(p, nr, sizeof(nr)));
	} else {
		ap_row_u64(r, COL_NR, p->partno + 1);
	}
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

static struct json_object *probed_json(const struct check_cmd *c)
{
	struct json_object *o = ap_geometry_to_json(&c->ck.g.probed, c->ck.geometry_file);

	if (o && c->ck.geometry_file) {
		json_object_object_add(o, "entry", json_object_new_string(c->ck.pick.where));
		json_object_object_add(o, "entry_device", c->ck.pick.device[0]
				       ? json_object_new_string(c->ck.pick.device) : NULL);
		json_object_object_add(o, "matched_by", json_object_new_string(
					       ap_fleet_match_name(c->ck.pick.match)));
	}
	return o;
}

static struct json_object *rule_json(const struct check_cmd *c)
{
	struct json_object *o = json_object_new_object();
	const struct ap_geometry *f = c->ck.g.in_force;

	json_object_object_add(o, "name", json_object_new_string(ap_check_rule_name(c->ck.g.rule)));
	json_object_object_add(o, "reason", json_object_new_string(c->ck.g.reason));
	json_object_object_add(o, "basis", json_object_new_string(
				       ap_geometry_source_name(c->ck.g.basis->source)));
	json_object_object_add(o, "unit", ap_json_u64(f->physical));
	json_object_object_add(o, "lowest_aligned_lba", ap_json_u64(f->lowest_aligned));
	return o;
}

static struct json_object *foreign_json(const struct check_cmd *c)
{
	struct json_object *o, *a;
	char cause[400], remedy[600];
	size_t i;

	if (!c->ck.pt.foreign_sector_size)
		return NULL;
	ap_check_foreign_advice(&c->ck, cause, sizeof(cause), remedy, sizeof(remedy));
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

/* The levels a measurement found (a probed or model verdict in force), else NULL. */
static const struct ap_levels *measured_levels(const struct check_cmd *c)
{
	return c->ck.g.rule == AP_RULE_PROBED || c->ck.g.rule == AP_RULE_MODEL ?
	       &c->ck.g.in_force->levels : NULL;
}

/* "Contradicted: reports optimal_io 0; the stripe is 196608 bytes", each claim the
 * measurement contradicts (claims.h). */
static void print_contradicted(const struct check_cmd *c)
{
	struct ap_claims cl;

	ap_claims_read(&c->ck.topo, &cl);
	ap_cmd_print_claims(&cl, measured_levels(c), false, "");
}

/* The -J document of the device (c->doc). */
void check_build_json(struct check_cmd *c, bool aligned)
{
	struct json_object *doc = json_object_new_object(), *geo, *a;
	const struct ap_ptable *pt = &c->ck.pt;
	struct ap_cols cs;
	struct ap_row r;
	size_t i;

	json_object_object_add(doc, "device", json_object_new_string(c->ck.device));
	ap_ptable_to_json(pt, doc);
	json_object_object_add(doc, "topology", ap_topology_to_json(&c->ck.topo));

	geo = json_object_new_object();
	json_object_object_add(geo, "in_force", ap_geometry_to_json(c->ck.g.in_force,
			       c->ck.g.rule == AP_RULE_PROBED ? c->ck.geometry_file : NULL));
	json_object_object_add(geo, "reported", ap_geometry_to_json(&c->ck.g.reported, NULL));
	json_object_object_add(geo, "drive", ap_geometry_to_json(&c->ck.g.drive, NULL));
	json_object_object_add(geo, "probed", probed_json(c));
	json_object_object_add(geo, "optimal_io", c->ck.g.optio ? ap_json_u64(c->ck.g.optio) : NULL);
	json_object_object_add(doc, "geometry", geo);
	{
		struct ap_claims cl;

		ap_claims_read(&c->ck.topo, &cl);
		json_object_object_add(doc, "claims", ap_claims_to_json(&cl, measured_levels(c)));
	}
	json_object_object_add(doc, "rule", rule_json(c));
	json_object_object_add(doc, "model_verdict", ap_check_model_to_json(&c->ck));
	json_object_object_add(doc, "foreign_sector_size", foreign_json(c));

	ap_ptable_issues_to_json(pt, doc);

	a = json_object_new_array();
	check_cols(c, &cs);
	ap_row_init(&r, &cs);
	for (i = 0; i < pt->nparts; i++) {
		struct ap_check_verdicts v;

		struct json_object *po;

		ap_check_judge(&c->ck, &pt->parts[i], &v);
		fill_row(c, &r, &pt->parts[i], &v);
		po = ap_row_json(&r);
		if (pt->parts[i].parent)	/* "nr" is "2e" then */
			json_object_object_add(po, "nested_in", json_object_new_int64(
					       pt->parts[i].parent));
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
static void topology_head(const struct check_cmd *c)
{
	char *human = ap_size_to_human(c->ck.pt.size_bytes);

	printf("Disk %s: %s, %" PRIu64 " sectors of %u bytes, %s%s\n", c->ck.device, human,
	       c->ck.pt.nsectors, c->ck.pt.sector_size, c->ck.pt.is_blockdev ? "block device" : "image file",
	       c->ck.pt.label || c->ck.pt.whole_disk ? "" : ", no usable partition table");
	free(human);
	if (c->ck.pt.whole_disk)
		printf("No partition table: %s on the whole disk, from byte 0\n", c->ck.pt.whole_disk);
	if (c->ck.pt.label) {
		size_t i, nested = 0, top;
		char more[64] = "";

		for (i = 0; i < c->ck.pt.nparts; i++)
			nested += c->ck.pt.parts[i].parent != 0;
		top = c->ck.pt.nparts - nested;
		if (nested)
			snprintf(more, sizeof(more), " and %zu in nested BSD labels", nested);
		printf("Partition table: %s, %zu partition%s%s, usable sectors %" PRIu64 "-%" PRIu64
		       "%s%s\n", c->ck.pt.label, top, top == 1 ? "" : "s", more, c->ck.pt.first_usable,
		       c->ck.pt.last_usable, c->ck.pt.id ? ", id " : "", c->ck.pt.id ? c->ck.pt.id : "");
	}
}

/* The rows a block device has and an image has not: I/O sizes and the write cache. */
static void topology_device_rows(struct libscols_table *tb, const struct check_cmd *c, bool probed,
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
static int topology_table(struct libscols_table *tb, const struct check_cmd *c,
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
static void topology_sources(const struct check_cmd *c, const struct ap_geometry *p)
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

int check_print_topology(const struct check_cmd *c)
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
	printf("Rule: %s: %s\n", ap_check_rule_name(c->ck.g.rule), c->ck.g.reason);
	print_contradicted(c);
	putchar('\n');
	return 0;
}

/* The table's row of partition @i (ap_cols_table_rows()). */
static bool part_row(void *ctx, struct ap_row *r, size_t i)
{
	const struct check_cmd *c = ctx;
	struct ap_check_verdicts v;

	ap_check_judge(&c->ck, &c->ck.pt.parts[i], &v);
	fill_row(c, r, &c->ck.pt.parts[i], &v);
	return true;
}

int check_print_table(struct check_cmd *c)
{
	struct libscols_table *tb;
	struct ap_out out;
	struct ap_cols cs;
	int rc;

	check_cols(c, &cs);
	tb = ap_cols_table_rows(&cs, "partitions", c->ck.pt.nparts, part_row, c);
	if (!tb)
		return -ENOMEM;
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
void check_report_notes(const struct check_cmd *c)
{
	size_t i;

	if (c->quiet)
		return;
	for (i = 0; i < c->ck.pt.nparts; i++) {
		const struct ap_part *p = &c->ck.pt.parts[i];
		char nr[AP_PART_NR_MAX], in[40] = "";

		if (p->parent)
			snprintf(in, sizeof(in), " nested in partition %u", p->parent);
		if (p->role != AP_PART_DATA)
			check_warn(c, "note: partition %s (sectors %" PRIu64 "-%" PRIu64 ") is %s of "
				   "the %s label%s: it overlaps the others by design and is not "
				   "judged", ap_part_nr(p, nr, sizeof(nr)), p->start,
				   p->size ? p->start + p->size - 1 : p->start,
				   ap_part_role_name(p->role), p->parent ? "bsd" : c->ck.pt.label, in);
	}
	if (c->ck.pt.label && c->ck.pt.reader && strcmp(c->ck.pt.reader, "libblkid") == 0)
		check_warn(c, "note: the partition table (%s) was read by libblkid: libfdisk "
			   "does not read this type", c->ck.pt.label);
	if (ap_check_whole_disk_misaligned(&c->ck)) {
		char desc[400], at[64] = "";
		uint64_t first = ap_levels_next(&c->ck.g.in_force->levels, c->ck.pt.sector_size, 0, 0);

		ap_check_describe_geometry(c->ck.g.in_force, desc, sizeof(desc));
		if (first != UINT64_MAX)
			snprintf(at, sizeof(at), "; the first aligned LBA is %" PRIu64, first);
		check_warn(c, "no partition table: %s%s%s%s on the whole disk starts at byte 0, "
			   "which is not aligned to %s%s: every write the file system aligns "
			   "to its blocks is misaligned on the drive; put it on a partition at an "
			   "aligned start", c->ck.pt.whole_disk,
			   c->ck.pt.whole_disk_usage ? " (" : "",
			   c->ck.pt.whole_disk_usage ? c->ck.pt.whole_disk_usage : "",
			   c->ck.pt.whole_disk_usage ? ")" : "", desc, at);
	} else if (c->ck.pt.whole_disk) {
		check_warn(c, "note: no partition table: %s%s%s%s on the whole disk, which starts at "
			   "byte 0 and is aligned under every geometry", c->ck.pt.whole_disk,
			   c->ck.pt.whole_disk_usage ? " (" : "",
			   c->ck.pt.whole_disk_usage ? c->ck.pt.whole_disk_usage : "",
			   c->ck.pt.whole_disk_usage ? ")" : "");
	}
}

void check_report_foreign(const struct check_cmd *c)
{
	char cause[400], remedy[600];
	size_t i;

	for (i = 0; i < c->ck.pt.nforeign_evidence; i++)
		check_warn(c, "found: %s", c->ck.pt.foreign_evidence[i]);
	ap_check_foreign_advice(&c->ck, cause, sizeof(cause), remedy, sizeof(remedy));
	check_warn(c, "likely cause: %s", cause);
	check_warn(c, "what to do: %s", remedy);
}

/* What to run next for each misaligned partition (ap_check_next_steps()), after the table. */
void check_print_next_steps(const struct check_cmd *c)
{
	ap_cmd_print_next_steps(&c->ck.next, "\nWhat to run next (each rewrites data: back up first):",
				"  ");
}
