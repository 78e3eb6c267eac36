// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * alignprobe check DEVICE|IMAGE: validate a partition table against the
 * reported, the drive's and the probed physical geometry. Read-only.
 *
 * The rule that decides (src/check/rule.c): a probed verdict or a
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
 * status is the worst of theirs in the order 1, 3, 2, 8, 5, 7, 4, 0. 3: a live
 * sweep or seq (the registry's hold) rewrites the disk, so the table read
 * now is its temporary one: no judgement.
 *
 * This file: the options, each device's run, the verdict per partition and
 * the exit status; check_geom.c what the verdict store holds but the
 * engine does not use; check_report.c what is printed; checkP.h what they
 * share. The engine, with the geometries and the rule, is src/check/.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "check/rule.h"
#include "cmd/checkP.h"
#include "cmd/commands.h"
#include "cmd/opts.h"
#include "cmd/publish.h"
#include "device/geometry.h"
#include "device/identity.h"
#include "device/ptable.h"
#include "device/topology.h"
#include "fleet/vstore.h"
#include "lib/exitcodes.h"
#include "lib/util.h"
#include "ui/out.h"

enum {
	OPT_SECTOR_SIZE = AP_OPT_OUT_LAST,
	OPT_CHECK_SIZE,
	OPT_TRUST_REPORTED,
	OPT_GEOMETRY_ANY,
	OPT_VERDICTS,
	OPT_CHUNK,
	OPT_STRIPE,
	OPT_ALLOCATION_UNIT,
	OPT_REFUSE_SMR,
};

/* "alignprobe check: DEV: message" on stderr */
void check_warn(const struct check_cmd *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ap_vwarnx(CMD, c ? c->ck.device : NULL, fmt, ap);
	va_end(ap);
}

/* what --help prints after "Usage:" (the option kit) */
static const char *const synopsis[] = {
	"[options] <device>|<image>...",
	NULL
};

static void usage(void)
{
	FILE *out = stdout;

	fputs("Check that every partition of a disk or disk image starts on a physical\n"
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
	      "     --stripe <size>    a RAID stripe (chunk x data disks, 192K) every start\n"
	      "                        must also be aligned to, from LBA 0\n"
	      "     --chunk <size>     a RAID chunk (one disk's share of a stripe, 64K)\n"
	      "     --allocation-unit <size>\n"
	      "                        a thin volume's or virtual disk's allocation unit\n"
	      "                        (paid on first writes: 64K, 1M)\n"
	      "     --trust-reported   take a reported 512-byte physical sector as proof\n"
	      "                        (default: not probed, require 4 KiB)\n"
	      "     --verdicts[=<file>]\n"
	      "                        without a probe of the disk, the verdict store's\n"
	      "                        verdict for its model decides (default\n"
	      "                        $ALIGNPROBE_VERDICTS or " AP_VSTORE_DEFAULT ");\n"
	      "                        conflicting verdicts: none, the disk is unproven;\n"
	      "                        repeatable: per model the first store that holds\n"
	      "                        it decides (the host's own first, a fleet's after)\n"
	      "     --refuse-smr       with --verdicts: refuse a shingled disk (exit 8):\n"
	      "                        zoned (queue/zoned), or its model's smr verdict\n"
	      "                        (smr --record) is dm-smr-or-hybrid; no smr\n"
	      "                        verdict for the model: exit 5\n"
	      "     --prometheus <file>\n"
	      "                        also write the results for node_exporter's textfile\n"
	      "                        collector (atomically), every device in one file\n"
	      "     --sector-size <size>\n"
	      "                        logical sector size of an image file (default 512)\n"
	      "     --check-size       also require sizes to be whole physical sectors\n"
	      " -q, --quiet            print nothing but errors; the exit status tells\n"
	      " -v, --verbose          also print what libfdisk said\n", out);
	ap_out_usage(out, 24);
	fputs(" -h, --help             display this help\n"
	      " -V, --version          display version\n"
	      "\n"
	      "The rule: a probed verdict (--geometry) or --physical decides as it is.\n"
	      "Otherwise the drive's own claim, else the reported (kernel) topology (an\n"
	      "image file reports its logical sector) decides when it is 4 KiB or more;\n"
	      "a report of 512-byte physical sectors, which 512e drives also make, is no\n"
	      "proof: starts must be 4 KiB from the reported alignment offset, unless\n"
	      "--trust-reported. 1 MiB (ALIGN_1M) is advice and never decides.\n"
	      "Each level (a stripe, a chunk, an allocation unit: from the verdict or\n"
	      "given by hand) is a rule too; the start proposed is the first one aligned\n"
	      "to every level and to 1 MiB (3 MiB for a 192 KiB stripe).\n"
	      "\n"
	      "Exit status:\n"
	      " 0  every partition aligned under the rule\n"
	      " 1  runtime failure (I/O error, output error)\n"
	      " 2  usage error or bad input: no partition table (and no file system on\n"
	      "    the whole disk), a corrupt, truncated, partly read or inconsistent\n"
	      "    table (bad GPT CRC, primary and backup GPT disagreeing, protective\n"
	      "    MBR without GPT, overlapping partitions, partitions past the end),\n"
	      "    a table type nothing reads, a crash of the library reading it,\n"
	      "    an image smaller than a sector, a partition instead of a\n"
	      "    whole disk, a bad --geometry file or one with no entry for the device,\n"
	      "    a missing or corrupt verdict store\n"
	      " 3  a running alignprobe sweep or seq rewrites the disk now: its table is\n"
	      "    the run's temporary one (check again when the run has ended)\n"
	      " 4  at least one partition misaligned\n"
	      " 5  --refuse-smr: no smr verdict for the disk's model\n"
	      " 7  the partition table was written for another logical sector size\n"
	      "    (a USB bridge presenting 4096-byte sectors, or the reverse)\n"
	      " 8  --refuse-smr: a shingled (SMR) disk\n"
	      "Several devices: each is checked and reported; the status is the worst\n"
	      "of theirs, in the order 1, 3, 2, 8, 5, 7, 4, 0.\n"
	      "\nAvailable output columns:\n", out);
	ap_out_list_columns(NULL, check_infos, CHECK_NCOLS);
}

/* ---- per partition ---- */

/* ---- the command ---- */

/* The columns (-H); the defaults depend on the devices and the geometry (default_columns()). */
static const struct ap_opts_cols check_cols = { check_infos, CHECK_NCOLS, NULL, 0 };

static void default_columns(const struct check_cmd *c, int *def, size_t *n)
{
	size_t k = 0;

	if (c->ndevices > 1)
		def[k++] = COL_DEVICE;	/* whose rows: a raw or CSV table mixes them */
	def[k++] = COL_NR;
	def[k++] = COL_START;
	def[k++] = COL_END;
	def[k++] = COL_SIZE;
	def[k++] = COL_TYPE;
	def[k++] = COL_ALIGN_REPORTED;
	if (c->ck.g.drive.physical)
		def[k++] = COL_ALIGN_DRIVE;
	if (c->ck.g.probed.physical)
		def[k++] = COL_ALIGN_PROBED;
	def[k++] = COL_ALIGN_1M;
	if (c->ck.g.optio)
		def[k++] = COL_ALIGN_OPTIO;
	def[k++] = COL_ALIGNED;
	*n = k;
}

static void report_partitions(struct check_cmd *c)
{
	char msg[400];
	size_t i;

	if (c->ck.pt.foreign_sector_size)
		return;		/* the partitions as read here are not the table's */
	ap_check_count(&c->ck);
	for (i = 0; !c->quiet && i < c->ck.pt.nparts; i++)
		if (ap_check_describe_fault(&c->ck, &c->ck.pt.parts[i], msg, sizeof(msg)))
			check_warn(c, "%s", msg);
}

static const struct option longopts[] = {
	{ "geometry",	    required_argument, NULL, 'g' },
	{ "physical",	    required_argument, NULL, 'p' },
	{ "lowest-aligned", required_argument, NULL, 'l' },
	{ "sector-size",    required_argument, NULL, OPT_SECTOR_SIZE },
	{ "check-size",	    no_argument,       NULL, OPT_CHECK_SIZE },
	{ "trust-reported", no_argument,       NULL, OPT_TRUST_REPORTED },
	{ "geometry-any",   no_argument,       NULL, OPT_GEOMETRY_ANY },
	{ "verdicts",	    optional_argument, NULL, OPT_VERDICTS },
	{ "chunk",	    required_argument, NULL, OPT_CHUNK },
	{ "stripe",	    required_argument, NULL, OPT_STRIPE },
	{ "allocation-unit", required_argument, NULL, OPT_ALLOCATION_UNIT },
	{ "refuse-smr",	    no_argument,       NULL, OPT_REFUSE_SMR },
	{ "verbose",	    no_argument,       NULL, 'v' },
	{ NULL, 0, NULL, 0 }
};

/* The geometry given on the command line: 0, or AP_EXIT_USAGE after the message. */
static int geometry_opt(struct check_cmd *c, int ch, const char *arg)
{
	switch (ch) {
	case 'p':
		if (ap_parse_size(arg, &c->ck.physical) || !c->ck.physical) {
			ap_usage_error(CMD, "invalid --physical size: '%s'", arg);
			return AP_EXIT_USAGE;
		}
		break;
	case 'l':
		if (ap_parse_u64(arg, &c->ck.lowest)) {
			ap_usage_error(CMD, "invalid --lowest-aligned LBA: '%s'", arg);
			return AP_EXIT_USAGE;
		}
		c->have_lowest = true;
		break;
	case OPT_CHUNK:
	case OPT_STRIPE:
	case OPT_ALLOCATION_UNIT: {
		uint64_t *to = ch == OPT_CHUNK ? &c->ck.chunk : ch == OPT_STRIPE ? &c->ck.stripe
									 : &c->ck.alloc_unit;

		if (ap_parse_size(arg, to) || *to < 512 || *to % 512 || *to > AP_LEVEL_UNIT_MAX) {
			ap_usage_error(CMD, "invalid --%s size: '%s' (whole 512-byte sectors, up to "
				       "1 GiB: 65536, 64K, 192K)", ch == OPT_CHUNK ? "chunk" :
				       ch == OPT_STRIPE ? "stripe" : "allocation-unit", arg);
			return AP_EXIT_USAGE;
		}
		break;
	}
	case OPT_SECTOR_SIZE:
		if (ap_parse_size(arg, &c->ck.sector_size) || c->ck.sector_size < 512 ||
		    c->ck.sector_size > 65536 || !ap_is_power_of_2(c->ck.sector_size)) {
			ap_usage_error(CMD, "invalid --sector-size: '%s' (a power of two, "
				       "512..65536)", arg);
			return AP_EXIT_USAGE;
		}
		break;
	}
	return 0;
}

/* One of check's own options: 0, or AP_EXIT_USAGE after the message. */
static int check_opt(void *ctx, int ch, const char *arg)
{
	struct check_cmd *c = ctx;

	switch (ch) {
	case 'g':
		c->ck.geometry_file = arg;
		break;
	case OPT_CHECK_SIZE:
		c->ck.check_size = true;
		break;
	case OPT_TRUST_REPORTED:
		c->ck.trust_reported = true;
		break;
	case OPT_GEOMETRY_ANY:
		c->ck.geometry_any = true;
		break;
	case OPT_VERDICTS:
		if (c->ck.nverdict_files == AP_ARRAY_SIZE(c->ck.verdict_files)) {
			ap_usage_error(CMD, "--verdicts: at most %zu stores",
				       AP_ARRAY_SIZE(c->ck.verdict_files));
			return AP_EXIT_USAGE;
		}
		c->ck.verdicts = true;
		/* resolved in prepare(): no FILE is the default store */
		c->ck.verdict_files[c->ck.nverdict_files++] = arg;
		break;
	case OPT_REFUSE_SMR:
		c->refuse_smr = true;
		break;
	case 'v':
		c->verbose = true;
		break;
	default:
		return geometry_opt(c, ch, arg);
	}
	return 0;
}

/* The sources of the geometry, one at a time: 0, or AP_EXIT_USAGE after the message. */
static int check_geometry_args(const struct check_cmd *c)
{
	if (c->ck.geometry_file && c->ck.physical) {
		ap_usage_error(CMD, "--geometry and --physical are mutually exclusive");
		return AP_EXIT_USAGE;
	}
	if (c->have_lowest && !c->ck.physical) {
		ap_usage_error(CMD, "--lowest-aligned needs --physical");
		return AP_EXIT_USAGE;
	}
	if (c->ck.trust_reported && (c->ck.geometry_file || c->ck.physical)) {
		ap_usage_error(CMD, "--trust-reported and --%s are mutually exclusive (a probed "
			       "or given geometry decides as it is)",
			       c->ck.geometry_file ? "geometry" : "physical");
		return AP_EXIT_USAGE;
	}
	if (c->ck.geometry_any && !c->ck.geometry_file) {
		ap_usage_error(CMD, "--geometry-any needs --geometry");
		return AP_EXIT_USAGE;
	}
	if (c->refuse_smr && !c->ck.verdicts) {
		ap_usage_error(CMD, "--refuse-smr needs --verdicts (the store holds the smr "
			       "verdicts of the models)");
		return AP_EXIT_USAGE;
	}
	if (c->ck.verdicts && c->ck.physical) {
		ap_usage_error(CMD, "--verdicts and --physical are mutually exclusive (a given "
			       "geometry decides for every device)");
		return AP_EXIT_USAGE;
	}
	return 0;
}

/* 0 to go on, -1 after --help, --version or -H, AP_EXIT_USAGE after the message. */
static int parse_args(struct check_cmd *c, int argc, char **argv)
{
	const struct ap_opt common[] = {
		AP_OPT_PROMETHEUS(&c->prometheus), AP_OPT_QUIET(&c->quiet), AP_OPT_HELP(usage),
		AP_OPT_VERSION, AP_OPT_OUTPUT(&c->out), AP_OPT_END
	};
	const struct ap_opts p = {
		.cmd = CMD, .synopsis = synopsis, .common = common, .longopts = longopts, .shortopts = "g:p:l:v",
		.own = check_opt, .ctx = c,
	};
	int rc = ap_opts_parse(&p, argc, argv);

	if (!rc)
		rc = ap_opts_list_columns(&c->out, &check_cols);
	if (!rc)
		rc = ap_opts_out_check(CMD, &c->out);
	if (!rc)
		rc = check_geometry_args(c);
	if (rc)
		return rc;
	if (optind >= argc) {
		ap_usage_error(CMD, "no device or image given");
		return AP_EXIT_USAGE;
	}
	c->devices = argv + optind;
	c->ndevices = (size_t)(argc - optind);
	if (c->ndevices > 1 && c->ck.geometry_file && strcmp(c->ck.geometry_file, "-") == 0) {
		ap_usage_error(CMD, "--geometry -: standard input is read once; give a file "
			       "for several devices");
		return AP_EXIT_USAGE;
	}
	return AP_EXIT_OK;
}

static int run(struct check_cmd *c)
{
	struct ap_error e, id_err;
	int def[CHECK_NCOLS];
	struct ap_opts_cols t;
	size_t ndef, i, nerr;
	char note[1100];
	bool aligned;
	int rc;

	ap_error_clear(&e);
	rc = ap_check_admit(&c->ck, &e);
	if (rc) {
		check_warn(c, "%s", e.msg);
		return ap_exit_for_errno(rc);	/* a live run: 3; a partition: 2 */
	}
	ap_error_clear(&id_err);
	rc = ap_check_read(&c->ck, c->ck.verdicts || c->prometheus, &e, &id_err);
	if (rc) {
		check_warn(c, "%s", e.msg);
		return ap_exit_for_errno(rc);	/* bad input (2) or runtime failure (1) */
	}
	if (c->ck.pt.is_blockdev && (c->ck.verdicts || c->prometheus) && !c->ck.have_id &&
	    c->verbose)
		check_warn(c, "cannot read its identity: %s", id_err.msg);
	rc = ap_check_geometries(&c->ck, &e);
	if (c->ck.note[0] && !c->quiet)
		check_warn(NULL, "%s; trying the verdict store", c->ck.note);
	if (rc && c->ck.fault == AP_CHECK_FAULT_FILE) {
		check_warn(NULL, "%s", e.msg);	/* it names the file */
		return ap_exit_for_errno(e.code);	/* a bad --geometry file: 2 */
	} else if (rc && c->ck.fault == AP_CHECK_FAULT_DEVICE) {
		check_warn(c, "%s", e.msg);
		return AP_EXIT_USAGE;
	} else if (rc) {
		ap_usage_error(CMD, "%s", e.msg);
		return AP_EXIT_USAGE;
	}

	default_columns(c, def, &ndef);
	t = (struct ap_opts_cols){ check_infos, CHECK_NCOLS, def, ndef };
	if (ap_opts_columns(CMD, &c->out, &t, c->cols, &c->ncols))
		return AP_EXIT_USAGE;

	for (i = 0; i < c->ck.pt.nissues; i++)
		if (c->ck.pt.issues[i].error || !c->quiet)
			check_warn(c, "%s%s", c->ck.pt.issues[i].error ? "" : "warning: ",
			      c->ck.pt.issues[i].msg);
	if (c->verbose)
		for (i = 0; i < c->ck.pt.nfdisk_msgs; i++)
			check_warn(c, "libfdisk: %s", c->ck.pt.fdisk_msgs[i]);
	check_report_notes(c);
	if (c->ck.pt.foreign_sector_size)
		check_report_foreign(c);
	if (c->ck.mv.state == AP_MV_CONFLICT)
		check_report_conflict(c);
	else if (c->ck.mv.state == AP_MV_UNSHOWN)
		check_report_unshown(c);
	check_report_unplaced(c);
	nerr = ap_ptable_nerrors(&c->ck.pt);
	report_partitions(c);
	ap_check_next_steps(&c->ck);
	if (c->ck.nmisaligned && !c->quiet && ap_check_rule_note(&c->ck, note, sizeof(note)))
		check_warn(c, "note: %s", note);
	aligned = nerr == 0 && c->ck.nmisaligned == 0;

	if (c->out.json) {
		check_build_json(c, aligned);	/* printed by the caller, with the exit status */
	} else if (!c->quiet) {
		bool human = !c->out.raw && !c->out.csv && !c->out.noheadings;

		if (human && check_print_topology(c))
			goto out_err;
		if (c->ck.pt.label && check_print_table(c))
			goto out_err;
		if (human && c->ck.pt.label && nerr == 0) {
			char desc[200];

			ap_check_describe_geometry(c->ck.g.in_force, desc, sizeof(desc));
			if (c->ck.nchecked == 0)
				printf("\nNo partitions to check.\n");
			else
				printf("\n%zu of %zu partition%s aligned to %s.\n",
				       c->ck.nchecked - c->ck.nmisaligned, c->ck.nchecked,
				       c->ck.nchecked == 1 ? "" : "s", desc);
			check_print_next_steps(c);
		} else if (human && c->ck.pt.whole_disk) {
			check_print_next_steps(c);
		}
	}
	if (ap_out_flush(stdout) != 0)	/* a reader gone (| head) is no error */
		goto out_err;

	if (c->ck.pt.foreign_sector_size)
		return AP_EXIT_SECTOR_SIZE;
	if (nerr)
		return AP_EXIT_USAGE;
	if (c->ck.pt.nparts == 0 && !c->ck.pt.whole_disk && !c->quiet)
		check_warn(c, "warning: the partition table holds no partitions");
	return c->ck.nmisaligned ? AP_EXIT_MISALIGNED : AP_EXIT_OK;
out_err:
	check_warn(NULL, "write error on standard output");
	return AP_EXIT_FAILURE;
}

/* The worse of two exit statuses: 1, 3, 2, 8, 5, 7, 4, 0 (see the top of the file). */
static int worse(int a, int b)
{
	static const int order[] = { AP_EXIT_FAILURE, AP_EXIT_REFUSED, AP_EXIT_USAGE, AP_EXIT_SMR,
				     AP_EXIT_INCONCLUSIVE, AP_EXIT_SECTOR_SIZE, AP_EXIT_MISALIGNED,
				     AP_EXIT_OK };
	size_t i;

	for (i = 0; i < AP_ARRAY_SIZE(order); i++)
		if (a == order[i] || b == order[i])
			return order[i];
	return a > b ? a : b;
}

/* Everything given once, before the first device: the store, the metrics file, -o. */
static int prepare(struct check_cmd *c, struct ap_vstore *store, struct ap_outfile *prom)
{
	struct ap_error e = { 0 };
	int all[CHECK_NCOLS];
	struct ap_opts_cols t = { check_infos, CHECK_NCOLS, all, CHECK_NCOLS };
	size_t i;

	for (i = 0; i < CHECK_NCOLS; i++)
		all[i] = (int)i;
	if (ap_opts_columns(CMD, &c->out, &t, NULL, NULL))
		return AP_EXIT_USAGE;
	/* a disk named twice (a link to it, say) is checked once: one series each */
	c->ndevices = ap_dedupe_devices(CMD, c->devices, c->ndevices, c->quiet);
	if (c->ck.verdicts) {
		bool said;

		c->store_rc = ap_check_load_stores(&c->ck, store, c->store_rcs, c->store_models,
						   &said, &e);
		/*
		 * Missing, unreadable, corrupt, newer: an error (2), but the
		 * disks are still checked, as without --verdicts, and the
		 * metrics say what is wrong with the store.
		 */
		if (c->store_rc && said)
			ap_warnx(CMD, "--verdicts", "%s; the disks are checked without it", e.msg);
	}
	if (c->prometheus)
		return ap_publish_prom_open(CMD, prom, c->prometheus);
	return AP_EXIT_OK;
}

/*
 * -J, refused before any device was looked at (the metrics file, the
 * columns): still one document, with the status and the device when one.
 * (A command line that does not parse prints none: -J may be what is
 * wrong with it.)
 */
static void print_refused(const struct check_cmd *c, int rc)
{
	struct json_object *doc;

	if (!c->out.json)
		return;
	doc = json_object_new_object();
	if (c->ndevices == 1)
		json_object_object_add(doc, "device", json_object_new_string(c->devices[0]));
	json_object_object_add(doc, "exit_status", json_object_new_int(rc));
	if (ap_out_json_print(stdout, doc) != 0)
		check_warn(NULL, "write error on standard output");
	json_object_put(doc);
}

/* One device: checked, reported; its exit status. */
static int check_one(struct check_cmd *base, const char *dev, struct ap_prom *metrics,
		     struct json_object *docs)
{
	struct check_cmd c = *base;
	int rc;

	c.ck.device = dev;
	rc = run(&c);
	if (c.refuse_smr && rc != AP_EXIT_FAILURE && rc != AP_EXIT_REFUSED)
		rc = worse(rc, check_refuse_smr(&c));
	if (metrics)
		ap_check_prom(&c.ck, metrics, rc);
	if (c.out.json) {
		/* one document always: a device not checked is its name and status */
		struct json_object *doc = c.doc ? c.doc : json_object_new_object();

		if (!c.doc)
			json_object_object_add(doc, "device", json_object_new_string(dev));
		json_object_object_add(doc, "exit_status", json_object_new_int(rc));
		if (docs) {
			json_object_array_add(docs, doc);
		} else {
			if (ap_out_json_print(stdout, doc) != 0) {
				check_warn(NULL, "write error on standard output");
				rc = AP_EXIT_FAILURE;
			}
			json_object_put(doc);
		}
	}
	base->headings_done = c.headings_done;
	ap_check_free_device(&c.ck);
	return rc;
}

int ap_cmd_check(int argc, char **argv)
{
	struct check_cmd c;
	struct ap_vstore store;
	struct ap_outfile prom = { .fd = -1 };
	struct ap_prom *metrics = NULL;
	struct json_object *docs = NULL;
	size_t i;
	int rc, worst = AP_EXIT_OK;

	memset(&c, 0, sizeof(c));
	ap_vstore_init(&store);
	rc = parse_args(&c, argc, argv);
	if (rc < 0)
		return AP_EXIT_OK;	/* --help, --version, -H */
	if (rc == AP_EXIT_OK) {
		rc = prepare(&c, &store, &prom);
		if (rc != AP_EXIT_OK)
			print_refused(&c, rc);
	}
	if (rc != AP_EXIT_OK)
		goto out;
	if (c.prometheus) {
		metrics = ap_prom_new();
		for (i = 0; i < c.ck.nverdict_files; i++) {
			size_t j;

			for (j = 0; j < i && strcmp(c.ck.verdict_files[j], c.ck.verdict_files[i]); j++)
				;
			if (j == i)	/* a store given twice has its series once */
				ap_fleet_prom_store(metrics, c.ck.verdict_files[i], c.store_rcs[i],
						    c.store_models[i]);
		}
	}
	if (c.store_rc)
		worst = ap_exit_for_errno(c.store_rc);	/* missing, unreadable, corrupt: 2 */
	if (c.out.json && c.ndevices > 1)
		docs = json_object_new_array();
	for (i = 0; i < c.ndevices; i++) {
		/* raw and CSV are one table: no line between devices */
		if (i && !c.quiet && !c.out.json && !c.out.raw && !c.out.csv)
			putchar('\n');
		worst = worse(worst, check_one(&c, c.devices[i], metrics, docs));
	}
	if (docs) {
		struct json_object *doc = json_object_new_object();

		json_object_object_add(doc, "devices", docs);
		json_object_object_add(doc, "exit_status", json_object_new_int(worst));
		if (ap_out_json_print(stdout, doc) != 0) {
			check_warn(NULL, "write error on standard output");
			worst = AP_EXIT_FAILURE;
		}
		json_object_put(doc);
	}
	if (metrics && ap_publish_prom_commit(CMD, &prom, metrics) != 0)
		worst = AP_EXIT_FAILURE;
	rc = worst;
out:
	ap_outfile_discard(&prom);
	ap_prom_free(metrics);
	ap_vstore_free(&store);
	return rc;
}
