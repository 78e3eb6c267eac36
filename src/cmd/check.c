// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * alignprobe check DEVICE|IMAGE: validate a partition table against the
 * reported, the drive's and the probed physical geometry. Read-only.
 *
 * The rule that decides (ap_geometry_decide): a probed verdict or a
 * geometry given by hand as it is; an unproven report of 4 KiB or more as
 * stated; an unproven report of 512-byte physical sectors (which 512e drives
 * and USB bridges make too) only with --trust-reported, else 4 KiB from the
 * reported alignment offset. 1 MiB is shown, never decides.
 *
 * --verdicts: without a probe of the disk, the verdict store's verdict for
 * the disk's model decides (rule model_verdict); conflicting verdicts for
 * the model decide nothing and the disk counts as unproven (--trust-reported
 * does not apply to it).
 *
 * Exit status: 0 every partition aligned under the rule, 4 at least one
 * misaligned, 7 a table written for another logical sector size, 2 usage
 * errors and bad input (no partition table, a corrupt or inconsistent
 * table, a partition instead of a disk, a bad --geometry file or one for
 * another device, a bad verdict store), 1 runtime failures (I/O errors,
 * output errors). Several devices: each is checked and reported, and the
 * status is the worst of theirs in the order 1, 2, 7, 4, 0.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <json-c/json.h>

#include "cmd/commands.h"
#include "cmd/fleet.h"
#include "device/geometry.h"
#include "device/identity.h"
#include "device/ptable.h"
#include "device/safety.h"
#include "device/topology.h"
#include "fleet/vstore.h"
#include "lib/exitcodes.h"
#include "lib/util.h"
#include "ui/out.h"

#define CMD "check"

enum {
	COL_NR, COL_START, COL_END, COL_SECTORS, COL_SIZE, COL_TYPE, COL_TYPECODE,
	COL_NAME, COL_UUID, COL_ALIGN_REPORTED, COL_ALIGN_DRIVE, COL_ALIGN_PROBED,
	COL_ALIGN_1M, COL_ALIGN_OPTIO, COL_SIZE_ALIGNED, COL_ALIGNED, COL_MISALIGN,
	COL_NEXT_ALIGNED,
};

static const struct ap_colinfo infos[] = {
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
};

enum {
	OPT_SECTOR_SIZE = AP_OPT_OUT_LAST,
	OPT_CHECK_SIZE,
	OPT_TRUST_REPORTED,
	OPT_GEOMETRY_ANY,
	OPT_VERDICTS,
	OPT_PROMETHEUS,
};

/* The geometries a partition is checked against; unit 0 = not available. */
struct geoms {
	struct ap_geometry reported;
	struct ap_geometry drive;
	struct ap_geometry probed;	/* from --geometry or --physical */
	const struct ap_geometry *basis;	/* probed, else drive, else reported */
	struct ap_geometry decided;	/* what the rule makes of the basis */
	const struct ap_geometry *in_force;	/* = &decided */
	enum ap_geom_rule rule;
	char reason[1024];		/* why the rule decided, for people */
	uint64_t reported_offset;	/* the reported alignment offset, bytes */
	uint64_t optio;			/* sane optimal I/O, bytes, or 0 */
	uint64_t optio_lowest;		/* its offset, LBA */
};

/* What the verdict store says of the disk's model (--verdicts). */
enum mv_state {
	MV_OFF = 0,		/* no --verdicts */
	MV_NOT_NEEDED,		/* a probe of this disk (--geometry) decided */
	MV_NO_MODEL,		/* the disk states no model (an image file, a loop device) */
	MV_NONE,		/* the store has no verdict for the model */
	MV_OTHER_SECTOR,	/* only verdicts for another logical sector size */
	MV_USED,		/* one verdict: it decides */
	MV_CONFLICT,		/* several: none decides, the disk counts as unproven */
};

struct model_verdict {
	enum mv_state state;
	const struct ap_vstore_model *m;
	size_t model_index;
	size_t verdict;		/* MV_USED: the index of the one that decided */
	size_t nmatching;	/* verdicts for the disk's logical sector size */
};

struct check {
	const char *device;
	const char *geometry_file;
	uint64_t physical;		/* --physical, bytes */
	uint64_t lowest;		/* --lowest-aligned */
	bool have_lowest;
	uint64_t sector_size;		/* --sector-size */
	bool check_size, quiet, verbose;
	bool trust_reported;		/* --trust-reported */
	bool geometry_any;		/* --geometry-any */
	struct ap_geometry_pick pick;	/* the entry of the --geometry file used */
	struct ap_out out;
	int cols[AP_ARRAY_SIZE(infos) * 2];
	size_t ncols;
	char **devices;			/* every DEVICE|IMAGE given */
	size_t ndevices;
	const char *verdicts_file;	/* --verdicts[=FILE], resolved */
	bool verdicts;
	const struct ap_vstore *store;	/* loaded once, before the first device */
	const char *prometheus;		/* --prometheus FILE */

	/* per device */
	struct ap_ptable pt;
	struct ap_topology topo;
	struct geoms g;
	size_t nmisaligned, nchecked;
	struct ap_disk_identity id;	/* read for --verdicts and --prometheus */
	bool have_id;
	struct model_verdict mv;
	struct json_object *doc;	/* -J: this device's document */
};

static void cwarn(const struct check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "alignprobe check: DEV: message" on stderr */
static void cwarn(const struct check *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ap_vwarnx(CMD, c ? c->device : NULL, fmt, ap);
	va_end(ap);
}

static void __attribute__((noreturn)) usage(void)
{
	FILE *out = stdout;

	fputs("Usage:\n"
	      " alignprobe check [options] DEVICE|IMAGE...\n"
	      "\n"
	      "Check that every partition of a disk or disk image starts on a physical\n"
	      "sector boundary: the reported one, the drive's own claim and the probed one.\n"
	      "Read-only.\n"
	      "\n"
	      "Options:\n"
	      " -g, --geometry <file>  probed geometry from a saved probe/sweep --json\n"
	      "                        result (\"-\" for stdin): the entry of this device\n"
	      "     --geometry-any     the file describes this model of drive: use it even\n"
	      "                        when no entry is this device\n"
	      " -p, --physical <size>  probed physical sector size given by hand (4096, 4K)\n"
	      " -l, --lowest-aligned <lba>\n"
	      "                        with --physical: the lowest aligned LBA, 0 to\n"
	      "                        physical/logical - 1 (default 0)\n"
	      "     --trust-reported   take a reported 512-byte physical sector as proof\n"
	      "                        (default: not probed, require 4 KiB)\n"
	      "     --verdicts[=FILE]  without a probe of the disk, the verdict store's\n"
	      "                        verdict for its model decides (default\n"
	      "                        $ALIGNPROBE_VERDICTS or " AP_VSTORE_DEFAULT ");\n"
	      "                        conflicting verdicts: none, the disk is unproven\n"
	      "     --prometheus FILE  also write the results for node_exporter's textfile\n"
	      "                        collector (atomically), every device in one file\n"
	      "     --sector-size <size>\n"
	      "                        logical sector size of an image file (default 512)\n"
	      "     --check-size       also require sizes to be whole physical sectors\n"
	      " -q, --quiet            print nothing but errors; the exit status tells\n"
	      " -v, --verbose          also print what libfdisk said\n", out);
	ap_out_usage(out);
	fputs(" -h, --help             display this help\n"
	      " -V, --version          display version\n"
	      "\n"
	      "The rule: a probed verdict (--geometry) or --physical decides as it is.\n"
	      "Otherwise the drive's own claim, else the reported (kernel) topology (an\n"
	      "image file reports its logical sector) decides when it is 4 KiB or more;\n"
	      "a report of 512-byte physical sectors, which 512e drives also make, is no\n"
	      "proof: starts must be 4 KiB from the reported alignment offset, unless\n"
	      "--trust-reported. 1 MiB (ALIGN_1M) is advice and never decides.\n"
	      "\n"
	      "Exit status:\n"
	      " 0  every partition aligned under the rule\n"
	      " 1  runtime failure (I/O error, output error)\n"
	      " 2  usage error or bad input: no partition table, a corrupt, truncated or\n"
	      "    inconsistent table (bad GPT CRC, primary and backup GPT disagreeing,\n"
	      "    protective MBR without GPT, overlapping partitions, partitions past\n"
	      "    the end), an image smaller than a sector, a partition instead of a\n"
	      "    whole disk, a bad --geometry file or one with no entry for the device,\n"
	      "    a missing or corrupt verdict store\n"
	      " 4  at least one partition misaligned\n"
	      " 7  the partition table was written for another logical sector size\n"
	      "    (a USB bridge presenting 4096-byte sectors, or the reverse)\n"
	      "Several devices: each is checked and reported; the status is the worst\n"
	      "of theirs, in the order 1, 2, 7, 4, 0.\n"
	      "\nAvailable output columns:\n", out);
	ap_out_list_columns(NULL, infos, AP_ARRAY_SIZE(infos));
	exit(AP_EXIT_OK);
}

/* ---- geometries ---- */

static void describe_geometry(const struct ap_geometry *g, char *buf, size_t sz)
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

/* The verdict store's entry that decided, in words. */
static void explain_model(const struct check *c, char *r, size_t sz)
{
	const struct ap_vstore_verdict *v = &c->mv.m->verdicts[c->mv.verdict];
	char *name = ap_vstore_model_name(c->mv.m), ex[400] = "";

	if (v->nexamples)
		describe_example(&v->examples[0], ex, sizeof(ex));
	snprintf(r, sz, "the verdict store %s holds one verdict for the model %s "
		 "(models[%zu].verdicts[%zu]): %" PRIu64 "-byte physical sectors, lowest "
		 "aligned LBA %" PRIu64 ", measured on %s%s%s%s", c->verdicts_file, name,
		 c->mv.model_index, c->mv.verdict, v->physical_sector, v->lowest_aligned_lba,
		 ex[0] ? ex : "no disk named", v->nexamples > 1 ? " and " : "",
		 v->nexamples > 1 ? "more disks" : "",
		 v->physical_sector == v->logical_sector
		 ? ": an honest model, every sector boundary is aligned" : "");
	free(name);
}

/* Why the rule decided as it did, in words (c->g.reason). */
static void explain_rule(struct check *c)
{
	const struct ap_geometry *b = c->g.basis;
	const struct ap_drive_topology *d = &c->topo.drive;
	const char *m = ap_geometry_match_name(c->pick.match);
	bool image = !c->pt.is_blockdev, drive = b->source == AP_GEOM_DRIVE;
	char off[64] = "", how[320], *r = c->g.reason;
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
		snprintf(r, sz, "a probe verdict (%s, %s; %s) found %" PRIu64 "-byte physical "
			 "sectors, lowest aligned LBA %" PRIu64 "%s", c->geometry_file, c->pick.where,
			 how, b->physical, b->lowest_aligned, b->physical == b->logical
			 ? ": an honest drive, every sector boundary is aligned" : "");
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
	c->mv.model_index = (size_t)(m - c->store->models);
	for (i = 0; i < m->nverdicts; i++)
		if (m->verdicts[i].logical_sector == logical && c->mv.nmatching++ == 0)
			c->mv.verdict = i;
	if (!c->mv.nmatching) {
		c->mv.state = MV_OTHER_SECTOR;
	} else if (c->mv.nmatching > 1) {
		c->mv.state = MV_CONFLICT;
	} else {
		const struct ap_vstore_verdict *v = &m->verdicts[c->mv.verdict];

		c->mv.state = MV_USED;
		if (ap_geometry_set(&c->g.probed, AP_GEOM_MODEL, logical, v->physical_sector,
				    v->lowest_aligned_lba, NULL) == 0)
			c->g.probed.sensitive = v->sensitive;
		else
			c->mv.state = MV_NONE;	/* the store validates it: cannot happen */
	}
}

/* The conflicting verdicts, said (check fails safe: none of them is used). */
static void report_conflict(const struct check *c)
{
	const struct ap_vstore_model *m = c->mv.m;
	char *name = ap_vstore_model_name(m), ex[400];
	size_t i;

	cwarn(c, "the verdict store %s holds %zu conflicting verdicts for the model %s; none "
	      "is used, the disk counts as unproven:", c->verdicts_file, c->mv.nmatching, name);
	for (i = 0; i < m->nverdicts; i++) {
		const struct ap_vstore_verdict *v = &m->verdicts[i];

		if (v->logical_sector != c->pt.sector_size)
			continue;
		ex[0] = '\0';
		if (v->nexamples)
			describe_example(&v->examples[0], ex, sizeof(ex));
		cwarn(c, "  models[%zu].verdicts[%zu]: %" PRIu64 "-byte physical sectors, lowest "
		      "aligned LBA %" PRIu64 ", on %s%s", c->mv.model_index, i, v->physical_sector,
		      v->lowest_aligned_lba, ex[0] ? ex : "no disk named",
		      v->nexamples > 1 ? " and more" : "");
	}
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

static int build_geometries(struct check *c)
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
				cwarn(NULL, "%s; trying the verdict store", e.msg);
		} else if (rc) {
			cwarn(NULL, "%s", e.msg);	/* it names the file */
			return ap_exit_for_errno(e.code);	/* a bad --geometry file: 2 */
		}
		if (g->physical && g->logical != logical) {
			cwarn(c, "%s: the verdict is for %u-byte logical sectors, the disk has %u",
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

/* ---- per partition ---- */

struct verdicts {
	int reported, drive, probed, mib, optio;	/* -1 not applicable, 0/1 */
	bool size_aligned;
	int aligned;					/* -1 for containers */
	uint64_t misalign;				/* sectors */
	uint64_t next;
};

static int tristate(const struct ap_geometry *g, uint64_t lba)
{
	if (!g->physical)
		return -1;
	return ap_geometry_is_aligned(lba, g->logical, g->physical, g->lowest_aligned);
}

static void judge(const struct check *c, const struct ap_part *p, struct verdicts *v)
{
	const struct ap_geometry *f = c->g.in_force;
	unsigned ls = c->pt.sector_size;

	v->reported = tristate(&c->g.reported, p->start);
	v->drive = tristate(&c->g.drive, p->start);
	v->probed = tristate(&c->g.probed, p->start);
	v->mib = ap_geometry_is_aligned(p->start, ls, AP_MIB, 0);
	v->optio = c->g.optio ? ap_geometry_is_aligned(p->start, ls, c->g.optio,
							c->g.optio_lowest) : -1;
	v->size_aligned = ap_geometry_size_is_aligned(p->size, ls, f->physical);
	v->misalign = ap_geometry_misalignment(p->start, ls, f->physical, f->lowest_aligned) / ls;
	v->next = ap_geometry_next_aligned(p->start, ls, f->physical, f->lowest_aligned);
	if (p->container || c->pt.foreign_sector_size)
		v->aligned = -1;	/* holds no data itself, or is not where it was meant */
	else
		v->aligned = ap_geometry_is_aligned(p->start, ls, f->physical, f->lowest_aligned) &&
			     (!c->check_size || v->size_aligned);
}

/* The columns of -o (or the defaults); a JSON row without -o: every column. */
static void check_cols(const struct check *c, struct ap_cols *cs)
{
	ap_cols_init(cs, &c->out, infos, AP_ARRAY_SIZE(infos), c->cols, c->ncols, NULL, 0);
}

/* A tristate: unknown (< 0) is null, "-" for ALIGNED (holds no data, or not where meant). */
static void row_tristate(struct ap_row *r, int id, int v)
{
	if (v >= 0)
		ap_row_bool(r, id, v);
}

/* One partition, every column: a table line and an object of "partitions". */
static void fill_row(const struct check *c, struct ap_row *r, const struct ap_part *p,
		     const struct verdicts *v)
{
	ap_row_reset(r);
	ap_row_u64(r, COL_NR, p->partno + 1);
	ap_row_u64(r, COL_START, p->start);
	ap_row_u64(r, COL_END, p->size ? p->start + p->size - 1 : p->start);
	ap_row_u64(r, COL_SECTORS, p->size);
	ap_row_u64(r, COL_SIZE, p->size * c->pt.sector_size);
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

static struct json_object *ju(uint64_t v)
{
	return json_object_new_int64(v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

static struct json_object *jstr(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
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
	json_object_object_add(o, "physical_sector", ju(g->physical));
	json_object_object_add(o, "lowest_aligned_lba", ju(g->lowest_aligned));
	if (g->source == AP_GEOM_MODEL)
		json_object_object_add(o, "sensitive", json_object_new_boolean(g->sensitive));
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
		json_object_object_add(ko, "logical_sector", ju(k->logical));
		json_object_object_add(ko, "physical_sector", ju(k->physical));
		json_object_object_add(ko, "minimum_io", ju(k->minimum_io));
		json_object_object_add(ko, "optimal_io", ju(k->optimal_io));
		json_object_object_add(ko, "optimal_io_sane", json_object_new_boolean(k->optimal_io_sane));
		json_object_object_add(ko, "alignment_offset", ju(k->alignment_offset));
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
				       ? ju(d->physical) : NULL);
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
	struct json_object *o = geometry_json(&c->g.probed, c->geometry_file);

	if (o && c->geometry_file) {
		json_object_object_add(o, "entry", json_object_new_string(c->pick.where));
		json_object_object_add(o, "entry_device", c->pick.device[0]
				       ? json_object_new_string(c->pick.device) : NULL);
		json_object_object_add(o, "matched_by", json_object_new_string(
					       ap_geometry_match_name(c->pick.match)));
	}
	return o;
}

static struct json_object *rule_json(const struct check *c)
{
	struct json_object *o = json_object_new_object();
	const struct ap_geometry *f = c->g.in_force;

	json_object_object_add(o, "name", json_object_new_string(ap_geometry_rule_name(c->g.rule)));
	json_object_object_add(o, "reason", json_object_new_string(c->g.reason));
	json_object_object_add(o, "basis", json_object_new_string(
				       ap_geometry_source_name(c->g.basis->source)));
	json_object_object_add(o, "unit", ju(f->physical));
	json_object_object_add(o, "lowest_aligned_lba", ju(f->lowest_aligned));
	return o;
}

/* What to tell about a table for another sector size: the likely cause and the way out. */
static void foreign_advice(const struct check *c, char *cause, size_t csz, char *remedy,
			   size_t rsz)
{
	unsigned w = c->pt.foreign_sector_size, here = c->pt.sector_size;

	if (!c->pt.is_blockdev && w > here)
		snprintf(cause, csz, "the image was partitioned as a disk with %u-byte logical "
			 "sectors (a disk behind a USB bridge that presents them, or a loop device "
			 "with --sector-size %u) and is read here with %u-byte ones", w, w, here);
	else if (!c->pt.is_blockdev)
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
	if (!c->pt.is_blockdev)
		snprintf(remedy, rsz, "read it as written with alignprobe check --sector-size %u "
			 "%s, or losetup --sector-size %u --partscan --find --show %s; or "
			 "re-create the table for %u-byte sectors", w, c->device, w, c->device,
			 here);
	else
		snprintf(remedy, rsz, "read it as written with losetup --read-only --sector-size "
			 "%u --partscan --find --show %s (then check that loop device), or attach "
			 "the disk the way it was partitioned; or re-create the table for %u-byte "
			 "sectors (back up first: every partition moves)", w, c->device, here);
}

static struct json_object *foreign_json(const struct check *c)
{
	struct json_object *o, *a;
	char cause[400], remedy[600];
	size_t i;

	if (!c->pt.foreign_sector_size)
		return NULL;
	foreign_advice(c, cause, sizeof(cause), remedy, sizeof(remedy));
	o = json_object_new_object();
	json_object_object_add(o, "written_for", json_object_new_int64(c->pt.foreign_sector_size));
	json_object_object_add(o, "read_with", json_object_new_int64(c->pt.sector_size));
	json_object_object_add(o, "label", jstr(c->pt.foreign_label));
	a = json_object_new_array();
	for (i = 0; i < c->pt.nforeign_evidence; i++)
		json_object_array_add(a, json_object_new_string(c->pt.foreign_evidence[i]));
	json_object_object_add(o, "evidence", a);
	json_object_object_add(o, "likely_cause", json_object_new_string(cause));
	json_object_object_add(o, "remedy", json_object_new_string(remedy));
	return o;
}

static const char *const mv_names[] = {
	[MV_OFF] = "off", [MV_NOT_NEEDED] = "not_needed", [MV_NO_MODEL] = "no_model",
	[MV_NONE] = "none", [MV_OTHER_SECTOR] = "other_sector_size", [MV_USED] = "used",
	[MV_CONFLICT] = "conflict",
};

/* "model_verdict": what the verdict store said of the disk's model, null without --verdicts. */
static struct json_object *model_verdict_json(const struct check *c)
{
	const struct ap_vstore_model *m = c->mv.m;
	struct json_object *o, *mo, *a;
	size_t i, k;

	if (c->mv.state == MV_OFF)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "store", json_object_new_string(c->verdicts_file));
	json_object_object_add(o, "state", json_object_new_string(mv_names[c->mv.state]));
	mo = NULL;
	if (c->have_id && c->id.model) {
		mo = json_object_new_object();
		json_object_object_add(mo, "vendor", jstr(c->id.vendor));
		json_object_object_add(mo, "model", jstr(c->id.model));
		json_object_object_add(mo, "revision", jstr(c->id.revision));
	}
	json_object_object_add(o, "model", mo);
	if (c->mv.state == MV_USED) {
		char where[64];

		snprintf(where, sizeof(where), "models[%zu].verdicts[%zu]", c->mv.model_index,
			 c->mv.verdict);
		json_object_object_add(o, "entry", json_object_new_string(where));
	} else {
		json_object_object_add(o, "entry", NULL);
	}
	a = json_object_new_array();
	for (i = 0; m && i < m->nverdicts; i++) {
		const struct ap_vstore_verdict *v = &m->verdicts[i];
		struct json_object *vo, *xa;
		char where[64];

		if (v->logical_sector != c->pt.sector_size)
			continue;
		vo = json_object_new_object();
		snprintf(where, sizeof(where), "models[%zu].verdicts[%zu]", c->mv.model_index, i);
		json_object_object_add(vo, "entry", json_object_new_string(where));
		json_object_object_add(vo, "logical_sector", ju(v->logical_sector));
		json_object_object_add(vo, "physical_sector", ju(v->physical_sector));
		json_object_object_add(vo, "lowest_aligned_lba", ju(v->lowest_aligned_lba));
		json_object_object_add(vo, "sensitive", json_object_new_boolean(v->sensitive));
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
static void build_json(struct check *c, bool aligned)
{
	struct json_object *doc = json_object_new_object(), *geo, *a;
	const struct ap_ptable *pt = &c->pt;
	struct ap_cols cs;
	struct ap_row r;
	size_t i;

	json_object_object_add(doc, "device", json_object_new_string(c->device));
	json_object_object_add(doc, "type", json_object_new_string(pt->is_blockdev ? "block" : "image"));
	json_object_object_add(doc, "size", ju(pt->size_bytes));
	json_object_object_add(doc, "logical_sector", json_object_new_int64(pt->sector_size));
	json_object_object_add(doc, "sectors", ju(pt->nsectors));
	json_object_object_add(doc, "label", jstr(pt->label));
	json_object_object_add(doc, "id", jstr(pt->id));
	json_object_object_add(doc, "first_usable", pt->label ? ju(pt->first_usable) : NULL);
	json_object_object_add(doc, "last_usable", pt->label ? ju(pt->last_usable) : NULL);
	json_object_object_add(doc, "topology", topology_json(&c->topo));

	geo = json_object_new_object();
	json_object_object_add(geo, "in_force", geometry_json(c->g.in_force,
			       c->g.rule == AP_RULE_PROBED ? c->geometry_file : NULL));
	json_object_object_add(geo, "reported", geometry_json(&c->g.reported, NULL));
	json_object_object_add(geo, "drive", geometry_json(&c->g.drive, NULL));
	json_object_object_add(geo, "probed", probed_json(c));
	json_object_object_add(geo, "optimal_io", c->g.optio ? ju(c->g.optio) : NULL);
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
		struct verdicts v;

		judge(c, &pt->parts[i], &v);
		fill_row(c, &r, &pt->parts[i], &v);
		json_object_array_add(a, ap_row_json(&r));
	}
	ap_row_free(&r);
	json_object_object_add(doc, "partitions", a);
	json_object_object_add(doc, "misaligned", ju(c->nmisaligned));
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

static int print_topology(const struct check *c)
{
	const struct ap_kernel_topology *k = &c->topo.kernel;
	const struct ap_drive_topology *d = &c->topo.drive;
	const struct ap_geometry *r = &c->g.reported;
	const struct ap_geometry *p = c->g.probed.physical ? &c->g.probed : NULL;
	bool blk = c->pt.is_blockdev;
	struct libscols_table *tb = scols_new_table();
	struct libscols_line *ln;
	char *human = ap_size_to_human(c->pt.size_bytes), buf[200];
	size_t i, pc = 3;
	int rc;

	if (!tb) {
		free(human);
		return -ENOMEM;
	}
	printf("Disk %s: %s, %" PRIu64 " sectors of %u bytes, %s%s\n", c->device, human,
	       c->pt.nsectors, c->pt.sector_size, blk ? "block device" : "image file",
	       c->pt.label ? "" : ", no usable partition table");
	free(human);
	if (c->pt.label)
		printf("Partition table: %s, %zu partition%s, usable sectors %" PRIu64 "-%" PRIu64 "%s%s\n",
		       c->pt.label, c->pt.nparts, c->pt.nparts == 1 ? "" : "s", c->pt.first_usable,
		       c->pt.last_usable, c->pt.id ? ", id " : "", c->pt.id ? c->pt.id : "");

	scols_table_new_column(tb, "", 0, 0);
	scols_table_new_column(tb, blk ? "KERNEL" : "IMAGE", 0, SCOLS_FL_RIGHT);
	if (blk)
		scols_table_new_column(tb, "DRIVE", 0, SCOLS_FL_RIGHT);
	else
		pc = 2;
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

	if (blk) {
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
		if (p)
			for (i = 3; i < 6; i++) {
				struct libscols_line *l = scols_table_get_line(tb, i);

				if (l)
					scols_line_set_data(l, pc, "-");
			}
	}
	rc = scols_print_table(tb);
	scols_unref_table(tb);
	if (rc)
		return -EIO;

	if (!blk)
		printf("image: %u-byte sectors, no kernel topology and no drive to ask\n",
		       c->pt.sector_size);
	else if (!k->available)
		printf("kernel: not available (%s)\n", k->why);
	if (blk && !d->available)
		printf("drive: not available (%s)\n", d->why);
	else if (blk && d->ata_ok && d->ata.model[0])
		printf("drive: %s, answered %s%s\n", d->ata.model, d->source,
		       d->scsi_ok ? " and SCSI READ CAPACITY(16)" : "");
	else if (blk)
		printf("drive: answered %s\n", d->source);
	for (i = 0; i < c->topo.ndisagreements; i++)
		printf("disagreement: %s\n", c->topo.disagreements[i]);
	if (p && p->physical != r->physical)
		printf("disagreement: physical sector: reported %" PRIu64 " bytes, %s %" PRIu64 "\n",
		       r->physical, p->source == AP_GEOM_PROBED ? "probed" :
		       p->source == AP_GEOM_MODEL ? "its model's verdict" : "given", p->physical);
	if (p && p->lowest_aligned != r->lowest_aligned)
		printf("disagreement: lowest aligned LBA: reported %" PRIu64 ", %s %" PRIu64 "\n",
		       r->lowest_aligned, p->source == AP_GEOM_PROBED ? "probed" :
		       p->source == AP_GEOM_MODEL ? "its model's verdict" : "given",
		       p->lowest_aligned);
	describe_geometry(c->g.in_force, buf, sizeof(buf));
	printf("Geometry in force: %s%s%s\n", buf,
	       c->g.rule == AP_RULE_PROBED || c->g.rule == AP_RULE_MODEL ? ", from " : "",
	       c->g.rule == AP_RULE_PROBED ? c->geometry_file :
	       c->g.rule == AP_RULE_MODEL ? c->verdicts_file : "");
	printf("Rule: %s: %s\n", ap_geometry_rule_name(c->g.rule), c->g.reason);
	putchar('\n');
	return 0;
}

static int print_table(struct check *c)
{
	struct libscols_table *tb;
	struct ap_cols cs;
	struct ap_row r;
	size_t i;
	int rc;

	check_cols(c, &cs);
	tb = ap_cols_table_new(&cs, "partitions");
	ap_row_init(&r, &cs);
	for (i = 0; i < c->pt.nparts; i++) {
		struct verdicts v;

		judge(c, &c->pt.parts[i], &v);
		fill_row(c, &r, &c->pt.parts[i], &v);
		if (ap_row_add_line(&r, tb) != 0) {
			ap_row_free(&r);
			scols_unref_table(tb);
			return -ENOMEM;
		}
	}
	ap_row_free(&r);
	rc = ap_out_print(&c->out, tb);
	scols_unref_table(tb);
	return rc;
}

/* ---- the command ---- */

static void default_columns(const struct check *c, int *def, size_t *n)
{
	size_t k = 0;

	def[k++] = COL_NR;
	def[k++] = COL_START;
	def[k++] = COL_END;
	def[k++] = COL_SIZE;
	def[k++] = COL_TYPE;
	def[k++] = COL_ALIGN_REPORTED;
	if (c->g.drive.physical)
		def[k++] = COL_ALIGN_DRIVE;
	if (c->g.probed.physical)
		def[k++] = COL_ALIGN_PROBED;
	def[k++] = COL_ALIGN_1M;
	if (c->g.optio)
		def[k++] = COL_ALIGN_OPTIO;
	def[k++] = COL_ALIGNED;
	*n = k;
}

static void report_partitions(struct check *c)
{
	const struct ap_geometry *f = c->g.in_force;
	char desc[200];
	size_t i;

	if (c->pt.foreign_sector_size)
		return;		/* the partitions as read here are not the table's */
	describe_geometry(f, desc, sizeof(desc));
	for (i = 0; i < c->pt.nparts; i++) {
		const struct ap_part *p = &c->pt.parts[i];
		struct verdicts v;

		judge(c, p, &v);
		if (v.aligned < 0)
			continue;
		c->nchecked++;
		if (v.aligned)
			continue;
		c->nmisaligned++;
		if (c->quiet)
			continue;
		if (!ap_geometry_is_aligned(p->start, f->logical, f->physical, f->lowest_aligned)) {
			if (v.next != UINT64_MAX)
				cwarn(c, "partition %zu: start %" PRIu64 " is not aligned to %s: %"
				      PRIu64 " sector%s past a boundary; next aligned start %" PRIu64,
				      p->partno + 1, p->start, desc, v.misalign,
				      v.misalign == 1 ? "" : "s", v.next);
			else
				cwarn(c, "partition %zu: start %" PRIu64 " is not aligned to %s",
				      p->partno + 1, p->start, desc);
		} else {
			cwarn(c, "partition %zu: size %" PRIu64 " sectors is not a whole number of "
			      "%" PRIu64 "-byte physical sectors", p->partno + 1, p->size, f->physical);
		}
	}
}

static int parse_args(struct check *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "geometry",	    required_argument, NULL, 'g' },
		{ "physical",	    required_argument, NULL, 'p' },
		{ "lowest-aligned", required_argument, NULL, 'l' },
		{ "sector-size",    required_argument, NULL, OPT_SECTOR_SIZE },
		{ "check-size",	    no_argument,       NULL, OPT_CHECK_SIZE },
		{ "trust-reported", no_argument,       NULL, OPT_TRUST_REPORTED },
		{ "geometry-any",   no_argument,       NULL, OPT_GEOMETRY_ANY },
		{ "verdicts",	    optional_argument, NULL, OPT_VERDICTS },
		{ "prometheus",	    required_argument, NULL, OPT_PROMETHEUS },
		{ "quiet",	    no_argument,       NULL, 'q' },
		{ "verbose",	    no_argument,       NULL, 'v' },
		{ "help",	    no_argument,       NULL, 'h' },
		{ "version",	    no_argument,       NULL, 'V' },
		AP_OUT_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	struct ap_error e;
	int ch;

	while ((ch = getopt_long(argc, argv, "g:p:l:qvhV" AP_OUT_OPTSTRING, longopts, NULL)) != -1) {
		if (ap_out_parse_opt(&c->out, ch, optarg))
			continue;
		switch (ch) {
		case 'g':
			c->geometry_file = optarg;
			break;
		case 'p':
			if (ap_parse_size(optarg, &c->physical) || !c->physical) {
				ap_usage_error(CMD, "invalid --physical size: '%s'", optarg);
				return AP_EXIT_USAGE;
			}
			break;
		case 'l':
			if (ap_parse_u64(optarg, &c->lowest)) {
				ap_usage_error(CMD, "invalid --lowest-aligned LBA: '%s'", optarg);
				return AP_EXIT_USAGE;
			}
			c->have_lowest = true;
			break;
		case OPT_SECTOR_SIZE:
			if (ap_parse_size(optarg, &c->sector_size) || c->sector_size < 512 ||
			    c->sector_size > 65536 || !ap_is_power_of_2(c->sector_size)) {
				ap_usage_error(CMD, "invalid --sector-size: '%s' (a power of two, "
					       "512..65536)", optarg);
				return AP_EXIT_USAGE;
			}
			break;
		case OPT_CHECK_SIZE:
			c->check_size = true;
			break;
		case OPT_TRUST_REPORTED:
			c->trust_reported = true;
			break;
		case OPT_GEOMETRY_ANY:
			c->geometry_any = true;
			break;
		case OPT_VERDICTS:
			c->verdicts = true;
			c->verdicts_file = optarg;
			break;
		case OPT_PROMETHEUS:
			c->prometheus = optarg;
			break;
		case 'q':
			c->quiet = true;
			break;
		case 'v':
			c->verbose = true;
			break;
		case 'h':
			usage();
		case 'V':
			ap_print_version();
			exit(AP_EXIT_OK);
		default:
			ap_usage_hint(CMD);
			return AP_EXIT_USAGE;
		}
	}
	if (c->out.list_columns) {
		ap_out_list_columns(&c->out, infos, AP_ARRAY_SIZE(infos));
		exit(AP_EXIT_OK);
	}
	if (ap_out_validate(&c->out, &e)) {
		ap_usage_error(CMD, "%s", e.msg);
		return AP_EXIT_USAGE;
	}
	if (c->geometry_file && c->physical) {
		ap_usage_error(CMD, "--geometry and --physical are mutually exclusive");
		return AP_EXIT_USAGE;
	}
	if (c->have_lowest && !c->physical) {
		ap_usage_error(CMD, "--lowest-aligned needs --physical");
		return AP_EXIT_USAGE;
	}
	if (c->trust_reported && (c->geometry_file || c->physical)) {
		ap_usage_error(CMD, "--trust-reported and --%s are mutually exclusive (a probed "
			       "or given geometry decides as it is)",
			       c->geometry_file ? "geometry" : "physical");
		return AP_EXIT_USAGE;
	}
	if (c->geometry_any && !c->geometry_file) {
		ap_usage_error(CMD, "--geometry-any needs --geometry");
		return AP_EXIT_USAGE;
	}
	if (c->verdicts && c->physical) {
		ap_usage_error(CMD, "--verdicts and --physical are mutually exclusive (a given "
			       "geometry decides for every device)");
		return AP_EXIT_USAGE;
	}
	if (optind >= argc) {
		ap_usage_error(CMD, "no device or image given");
		return AP_EXIT_USAGE;
	}
	c->devices = argv + optind;
	c->ndevices = (size_t)(argc - optind);
	if (c->ndevices > 1 && c->geometry_file && strcmp(c->geometry_file, "-") == 0) {
		ap_usage_error(CMD, "--geometry -: standard input is read once; give a file "
			       "for several devices");
		return AP_EXIT_USAGE;
	}
	return AP_EXIT_OK;
}

/* A partition has no table of its own to check: name the disk that has it. */
static int refuse_partition(const struct check *c)
{
	struct stat st;
	char *name;
	dev_t whole;

	if (stat(c->device, &st) != 0 || !S_ISBLK(st.st_mode) ||
	    ap_safety_whole_disk(st.st_rdev, &whole, &name) != 1)
		return AP_EXIT_OK;
	if (name)
		cwarn(c, "a partition of /dev/%s, not a whole disk: the partition table and its "
		      "alignment belong to the whole disk; check /dev/%s", name, name);
	else
		cwarn(c, "a partition, not a whole disk: check the whole disk it belongs to");
	free(name);
	return AP_EXIT_USAGE;
}

/* The table was written for another sector size: what shows it, why, and what to do. */
static void report_foreign(const struct check *c)
{
	char cause[400], remedy[600];
	size_t i;

	for (i = 0; i < c->pt.nforeign_evidence; i++)
		cwarn(c, "found: %s", c->pt.foreign_evidence[i]);
	foreign_advice(c, cause, sizeof(cause), remedy, sizeof(remedy));
	cwarn(c, "likely cause: %s", cause);
	cwarn(c, "what to do: %s", remedy);
}

static int run(struct check *c)
{
	struct ap_ptable_opts po = { .sector_size = (unsigned)c->sector_size };
	struct ap_error e;
	int def[AP_ARRAY_SIZE(infos)];
	size_t ndef, i, nerr;
	bool aligned;
	int rc;

	ap_error_clear(&e);
	rc = refuse_partition(c);
	if (rc)
		return rc;
	rc = ap_ptable_read(c->device, &po, &c->pt, &e);
	if (rc) {
		cwarn(c, "%s", e.msg);
		return ap_exit_for_errno(rc);	/* bad input (2) or runtime failure (1) */
	}
	rc = ap_topology_read(c->device, &c->topo, &e);
	if (rc) {
		cwarn(c, "%s", e.msg);
		return ap_exit_for_errno(rc);
	}
	if ((c->verdicts || c->prometheus) && c->pt.is_blockdev) {
		/* who it is: its model for --verdicts, alignprobe_disk_info */
		c->have_id = ap_identity_read_path(c->device, NULL, &c->id, &e) == 0;
		if (!c->have_id && c->verbose)
			cwarn(c, "cannot read its identity: %s", e.msg);
	}
	rc = build_geometries(c);
	if (rc)
		return rc;

	default_columns(c, def, &ndef);
	if (ap_out_columns(&c->out, infos, AP_ARRAY_SIZE(infos), def, ndef, c->cols,
			   &c->ncols, &e)) {
		ap_usage_error(CMD, "%s", e.msg);
		return AP_EXIT_USAGE;
	}

	for (i = 0; i < c->pt.nissues; i++)
		if (c->pt.issues[i].error || !c->quiet)
			cwarn(c, "%s%s", c->pt.issues[i].error ? "" : "warning: ",
			      c->pt.issues[i].msg);
	if (c->verbose)
		for (i = 0; i < c->pt.nfdisk_msgs; i++)
			cwarn(c, "libfdisk: %s", c->pt.fdisk_msgs[i]);
	if (c->pt.foreign_sector_size)
		report_foreign(c);
	if (c->mv.state == MV_CONFLICT)
		report_conflict(c);
	nerr = ap_ptable_nerrors(&c->pt);
	report_partitions(c);
	if (c->nmisaligned && !c->quiet && c->g.rule == AP_RULE_MINIMUM_4K)
		cwarn(c, "note: %s; a probe verdict (--geometry)%s decides otherwise", c->g.reason,
		      c->mv.state == MV_CONFLICT ? " of this disk" : " or --trust-reported");
	aligned = nerr == 0 && c->nmisaligned == 0;

	if (c->out.json) {
		build_json(c, aligned);	/* printed by the caller, with the exit status */
	} else if (!c->quiet) {
		bool human = !c->out.raw && !c->out.csv && !c->out.noheadings;

		if (human && print_topology(c))
			goto out_err;
		if (c->pt.label && print_table(c))
			goto out_err;
		if (human && c->pt.label && nerr == 0) {
			char desc[200];

			describe_geometry(c->g.in_force, desc, sizeof(desc));
			if (c->nchecked == 0)
				printf("\nNo partitions to check.\n");
			else
				printf("\n%zu of %zu partition%s aligned to %s.\n",
				       c->nchecked - c->nmisaligned, c->nchecked,
				       c->nchecked == 1 ? "" : "s", desc);
		}
	}
	if (ap_out_flush(stdout) != 0)	/* a reader gone (| head) is no error */
		goto out_err;

	if (c->pt.foreign_sector_size)
		return AP_EXIT_SECTOR_SIZE;
	if (nerr)
		return AP_EXIT_USAGE;
	if (c->pt.nparts == 0 && !c->quiet)
		cwarn(c, "warning: the partition table holds no partitions");
	return c->nmisaligned ? AP_EXIT_MISALIGNED : AP_EXIT_OK;
out_err:
	cwarn(NULL, "write error on standard output");
	return AP_EXIT_FAILURE;
}

/* The worse of two exit statuses: 1, 2, 7, 4, 0 (see the top of the file). */
static int worse(int a, int b)
{
	static const int order[] = { AP_EXIT_FAILURE, AP_EXIT_USAGE, AP_EXIT_SECTOR_SIZE,
				     AP_EXIT_MISALIGNED, AP_EXIT_OK };
	size_t i;

	for (i = 0; i < AP_ARRAY_SIZE(order); i++)
		if (a == order[i] || b == order[i])
			return order[i];
	return a > b ? a : b;
}

/* --prometheus: this device's series (see docs/alignprobe.8, MONITORING). */
static void add_metrics(const struct check *c, struct ap_prom *p, int status)
{
	const char *dev = c->device;
	const struct ap_geometry *geo[] = { &c->g.reported, &c->g.drive, &c->g.probed };
	bool judged = status == AP_EXIT_OK || status == AP_EXIT_MISALIGNED ||
		      status == AP_EXIT_SECTOR_SIZE;
	char num[24];
	size_t i;

	ap_fleet_prom_add(p, "alignprobe_check_success", judged, "device", dev, NULL);
	ap_fleet_prom_add(p, "alignprobe_check_exit_status", status, "device", dev, NULL);
	ap_fleet_prom_disk(p, "check", dev, c->have_id ? &c->id : NULL, c->pt.sector_size);
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
	if (c->g.in_force) {
		ap_fleet_prom_add(p, "alignprobe_check_rule_info", 1, "device", dev, "rule",
				  ap_geometry_rule_name(c->g.rule), "basis",
				  ap_geometry_source_name(c->g.basis->source), NULL);
		ap_fleet_prom_add(p, "alignprobe_check_required_alignment_bytes",
				  (double)c->g.in_force->physical, "device", dev, NULL);
		ap_fleet_prom_add(p, "alignprobe_check_required_offset_bytes",
				  (double)c->g.in_force->lowest_aligned * c->g.in_force->logical,
				  "device", dev, NULL);
	}
	if (c->pt.foreign_sector_size)
		ap_fleet_prom_add(p, "alignprobe_check_foreign_sector_bytes",
				  c->pt.foreign_sector_size, "device", dev, NULL);
	if (c->mv.state != MV_OFF && c->mv.state != MV_NOT_NEEDED) {
		ap_fleet_prom_add(p, "alignprobe_check_model_verdicts", (double)c->mv.nmatching,
				  "device", dev, NULL);
		if (c->mv.state == MV_USED) {
			const struct ap_vstore_verdict *v = &c->mv.m->verdicts[c->mv.verdict];
			char where[64];

			snprintf(where, sizeof(where), "models[%zu].verdicts[%zu]",
				 c->mv.model_index, c->mv.verdict);
			ap_fleet_prom_add(p, "alignprobe_check_model_verdict_info", 1, "device", dev,
					  "store", c->verdicts_file, "entry", where, "example",
					  v->nexamples ? v->examples[0].serial : NULL, NULL);
		}
	}
	ap_fleet_prom_add(p, "alignprobe_check_partitions", (double)c->nchecked, "device", dev,
			  NULL);
	ap_fleet_prom_add(p, "alignprobe_check_misaligned_partitions", (double)c->nmisaligned,
			  "device", dev, NULL);
	for (i = 0; i < c->pt.nparts; i++) {
		const struct ap_part *part = &c->pt.parts[i];
		unsigned ls = c->pt.sector_size;
		struct verdicts v;

		judge(c, part, &v);
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

/* Everything given once, before the first device: the store, the metrics file, -o. */
static int prepare(struct check *c, struct ap_vstore *store, struct ap_outfile *prom)
{
	struct ap_error e = { 0 };
	int cols[AP_ARRAY_SIZE(infos) * 2], all[AP_ARRAY_SIZE(infos)];
	size_t i, ncols;
	int rc;

	for (i = 0; i < AP_ARRAY_SIZE(infos); i++)
		all[i] = (int)i;
	if (ap_out_columns(&c->out, infos, AP_ARRAY_SIZE(infos), all, AP_ARRAY_SIZE(all), cols,
			   &ncols, &e)) {
		ap_usage_error(CMD, "%s", e.msg);
		return AP_EXIT_USAGE;
	}
	rc = ap_check_listed_twice(CMD, c->devices, c->ndevices);
	if (rc)
		return rc;
	if (c->verdicts) {
		c->verdicts_file = ap_vstore_path(c->verdicts_file);
		rc = ap_vstore_load(c->verdicts_file, store, &e);
		if (rc) {
			ap_warnx(CMD, "--verdicts", "%s", e.msg);
			return ap_exit_for_errno(rc);	/* missing, unreadable, corrupt: 2 */
		}
		c->store = store;
	}
	if (c->prometheus)
		return ap_cmd_open_output(CMD, prom, c->prometheus);
	return AP_EXIT_OK;
}

/* One device: checked, reported; its exit status. */
static int check_one(const struct check *base, const char *dev, struct ap_prom *metrics,
		     struct json_object *docs)
{
	struct check c = *base;
	int rc;

	c.device = dev;
	rc = run(&c);
	if (metrics)
		add_metrics(&c, metrics, rc);
	if (c.out.json && (c.doc || docs)) {
		/* one device that could not be checked: nothing on stdout, as before */
		struct json_object *doc = c.doc ? c.doc : json_object_new_object();

		if (!c.doc)
			json_object_object_add(doc, "device", json_object_new_string(dev));
		json_object_object_add(doc, "exit_status", json_object_new_int(rc));
		if (docs) {
			json_object_array_add(docs, doc);
		} else {
			if (ap_out_json_print(stdout, doc) != 0) {
				cwarn(NULL, "write error on standard output");
				rc = AP_EXIT_FAILURE;
			}
			json_object_put(doc);
		}
	}
	ap_ptable_free(&c.pt);
	ap_topology_free(&c.topo);
	ap_identity_free(&c.id);
	return rc;
}

int ap_cmd_check(int argc, char **argv)
{
	struct check c;
	struct ap_vstore store;
	struct ap_outfile prom = { .fd = -1 };
	struct ap_prom *metrics = NULL;
	struct json_object *docs = NULL;
	size_t i;
	int rc, worst = AP_EXIT_OK;

	memset(&c, 0, sizeof(c));
	ap_vstore_init(&store);
	rc = parse_args(&c, argc, argv);
	if (rc == AP_EXIT_OK)
		rc = prepare(&c, &store, &prom);
	if (rc != AP_EXIT_OK)
		goto out;
	if (c.prometheus)
		metrics = ap_prom_new();
	if (c.out.json && c.ndevices > 1)
		docs = json_object_new_array();
	for (i = 0; i < c.ndevices; i++) {
		if (i && !c.quiet && !c.out.json)
			putchar('\n');
		worst = worse(worst, check_one(&c, c.devices[i], metrics, docs));
	}
	if (docs) {
		struct json_object *doc = json_object_new_object();

		json_object_object_add(doc, "devices", docs);
		json_object_object_add(doc, "exit_status", json_object_new_int(worst));
		if (ap_out_json_print(stdout, doc) != 0) {
			cwarn(NULL, "write error on standard output");
			worst = AP_EXIT_FAILURE;
		}
		json_object_put(doc);
	}
	if (metrics && ap_fleet_prom_commit(CMD, &prom, metrics) != 0)
		worst = AP_EXIT_FAILURE;
	rc = worst;
out:
	ap_outfile_discard(&prom);
	ap_prom_free(metrics);
	ap_vstore_free(&store);
	return rc;
}
