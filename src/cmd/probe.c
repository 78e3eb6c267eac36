// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * alignprobe probe DEVICE... | --emulate[=SPEC] | --undo JOURNAL [DEVICE]
 *
 * The options, --undo and the steps of a run (this file); one job per
 * device, the gate, emulated drives, threads and progress (probe_jobs.c);
 * everything printed: the table per write size and offset, the verdict in
 * words, JSON, the plot and --dry-run's plan (probe_report.c); what they
 * share (probe.h). The work is done by src/probe/probe.c (engine),
 * src/probe/journal.c (undo journal) and src/analysis/analysis.c.
 *
 * Modes and what the gate requires:
 *   destructive (default)  every in-use check of the safety gate, the
 *                          device held O_EXCL, and a confirmation (typing
 *                          the device name) or --yes; only the scratch
 *                          region is written.
 *   --preserve             the same in-use checks and O_EXCL hold (nothing
 *                          else may write while the original bytes are
 *                          journalled and written back), no confirmation:
 *                          every byte is written back, verified, and the
 *                          undo journal covers a crash.
 *   --read-only            no gate (nothing is written).
 *   --emulate              drives we create ourselves: no confirmation.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/opts.h"
#include "cmd/publish.h"
#include "cmd/probeP.h"
#include "device/safety.h"
#include "fleet/vstore.h"
#include "lib/exitcodes.h"
#include "lib/outfile.h"
#include "lib/sig.h"
#include "lib/util.h"
#include "probe/prepare.h"
#include "probe/probe.h"
#include "ui/out.h"

#define DEFAULT_BUDGET_NS (120ULL * AP_NSEC_PER_SEC)

enum {
	OPT_EMULATE = AP_OPT_OUT_LAST,
	OPT_PRESERVE,
	OPT_READ_ONLY,
	OPT_JOURNAL,
	OPT_UNDO,
	OPT_MIN_SIZE,
	OPT_MAX_SIZE,
	OPT_REGION_START,
	OPT_REGION_SIZE,
	OPT_SLOTS,
	OPT_MIN_ROUNDS,
	OPT_MAX_ROUNDS,
	OPT_BUDGET,
	OPT_SEED,
	OPT_NO_CONFIRM,
	OPT_STRIPES,
	OPT_WRITE_CACHE,
	OPT_ALPHA,
	OPT_MIN_SLOWDOWN,
	OPT_ALLOW_METADATA,
	OPT_ALLOW_PARTITION,
	OPT_ALL_SIZES,
	OPT_SAMPLES,
	OPT_ALLOW_UNIDENTIFIED,
	OPT_FORCE,
};

/* what --help prints after "Usage:" (the option kit) */
static const char *const synopsis[] = {
	"[options] <device>...",
	"[options] --emulate[=<spec>]",
	"--undo <journal> [<device>]",
	NULL
};

static void usage(void)
{
	FILE *f = stdout;
	size_t i;

	fputs("Time single synchronous direct writes of 4 KiB .. 64 KiB at every logical-sector\n"
	      "offset, randomized and interleaved over a region larger than any drive cache,\n"
	      "and infer the hidden physical sector size and the lowest aligned LBA. Several\n"
	      "devices are probed in parallel, one thread each.\n\n", f);
	fputs("Modes:\n"
	      "     (default)              destructive: writes a pattern into the scratch region\n"
	      "                            (asks for the device name unless --yes)\n"
	      " -P, --preserve             read the original bytes first, keep them in an undo\n"
	      "                            journal, write them back, verify; nothing is lost\n"
	      " -R, --read-only            timing reads only (much weaker evidence)\n"
	      "     --undo <journal> [<device>]\n"
	      "                            restore a device from the journal of a killed\n"
	      "                            preserving probe, verify, delete the journal; the\n"
	      "                            disk is found by its identity (WWN, serial, model,\n"
	      "                            backing file, content) and must be DEV if given;\n"
	      "                            ranges changed since the probe (neither the\n"
	      "                            bytes it read nor what it wrote) are refused\n"
	      "                            (exit 3) and named\n\n", f);
	fputs("Options:\n"
	      "     --emulate[=<spec>]     probe an emulated drive (repeatable), e.g.\n"
	      "                            wd-ears-jumper,size=256M; default\n"
	      "                            " AP_CMD_EMU_DEFAULT_SPEC "\n"
	      "     --journal <file>       the undo journal (default\n"
	      "                            /var/tmp/alignprobe-undo-DEV-PID.journal, or in\n"
	      "                            $ALIGNPROBE_JOURNAL_DIR); several devices: FILE.DEV\n"
	      "     --min-size <size>      smallest write size (default 4K)\n"
	      "     --max-size <size>      largest unit looked for (default 4M, at most 64M,\n"
	      "                            a multiple of the logical sector); timed rewrites\n"
	      "                            up to 64K of it, first writes up to all of it\n"
	      "     --region-start <size>  where the scratch region starts (default 1M)\n"
	      "     --region-size <size>   its size (default 1G or what the device has)\n"
	      "     --slots <n>            places the writes are spread over (default 128)\n"
	      "     --min-rounds <n>       rounds per size before an early stop (default 3)\n"
	      "     --max-rounds <n>       rounds per size at most (default 40)\n"
	      "     --time-budget <dur>    for the whole call (default 2m), e.g. 30s\n"
	      "     --seed <n>             of the randomized order (default 1)\n"
	      "     --no-confirm           stop at the first size that shows the unit\n"
	      "     --stripes              look for RAID stripes on one rotating ATA disk too\n"
	      "                            (which has none; skipped there by default)\n"
	      "     --write-cache off      the drive's volatile write cache off while it is\n"
	      "                            probed (a cache that ignores flushes), restored\n"
	      "                            after; 'alignprobe cleanup' after a SIGKILL\n"
	      "     --alpha <p>            significance level (default 0.001)\n"
	      "     --min-slowdown <x>     margin of \"no effect\": none of X or more; an\n"
	      "                            effect below it is reported as small (default 1.5)\n"
	      "     --allow-metadata-area  allow a region over LBA 0..33 or the last 33 sectors\n"
	      "     --allow-partition      probe a partition instead of a whole disk\n"
	      "     --allow-unidentified   --undo JOURNAL DEV: restore although the journal\n"
	      "                            cannot tell its disk from another\n"
	      "     --force                --undo: restore the ranges changed since the\n"
	      "                            probe too (only when nothing else wrote there;\n"
	      "                            a write torn by a power cut needs no --force)\n"
	      " -y, --yes                  destructive mode without the confirmation\n"
	      "     --dry-run              run the safety checks and print the plan (device,\n"
	      "                            region, sizes, number of writes, duration);\n"
	      "                            write nothing\n"
	      "     --plot <file.svg>      median latency per offset (several devices:\n"
	      "                            FILE-DEV.svg)\n"
	      "     --all-sizes            table rows for every size (default: the deciding one)\n"
	      "     --samples <file>       save every timed operation as CSV (device, size,\n"
	      "                            offset, round, slot, ns)\n"
	      "     --record[=<store>]     add each verdict to the verdict store for the\n"
	      "                            disk's model (default $ALIGNPROBE_VERDICTS or\n"
	      "                            " AP_VSTORE_DEFAULT ")\n"
	      "     --prometheus <file>    write the results for node_exporter's textfile\n"
	      "                            collector (atomically)\n"
	      " -q, --quiet                no progress line\n", f);
	ap_out_usage(f, 28);
	fputs(" -h, --help                 display this help\n"
	      " -V, --version              display version\n", f);
	fputs("\nAvailable output columns:\n", f);
	for (i = 0; i < PROBE_NCOLS; i++)
		fprintf(f, " %-10s %s\n", probe_infos[i].name, probe_infos[i].help);
	fputs("\n--json prints {\"device\", \"verdict\", \"results\": [per size and offset],\n"
	      "\"sizes\": [per size, with its own verdict], ...}; several devices print\n"
	      "{\"devices\": [ that, ... ]}. The table shows the size that decided\n"
	      "(--all-sizes: every size).\n\n", f);
	fputs("Exit status: 0 verdict, 1 failure, 2 usage, 3 refused for safety, 5 no verdict\n"
	      "within the budget (or a tentative one), 128+N interrupted by signal N (preserving\n"
	      "mode restored first). --undo: 2 a damaged or older journal, 3 the wrong disk or\n"
	      "ranges changed since the probe.\n", f);
	fputs("\nFor more details see alignprobe(8).\n", f);
}

/* ------------------------------------------------------------------ */

/* ------------------------------------------------------------------ */

static int do_undo(struct probe_cmd *c, int argc, char **argv)
{
	struct ap_probe_undo u;
	struct ap_error e = { 0 };
	const char *dev = NULL;
	char *words;

	if (argc - optind > 1) {
		ap_usage_error(CMD, "--undo takes one journal and at most one device");
		return AP_EXIT_USAGE;
	}
	if (argc - optind == 1)
		dev = argv[optind];
	if (c->allow_unidentified && !dev) {
		ap_usage_error(CMD, "--allow-unidentified needs the device: --undo JOURNAL DEVICE");
		return AP_EXIT_USAGE;
	}
	/*
	 * not the journal's disk, or ranges changed since: EPERM, refused (3);
	 * a bad journal: 2
	 */
	if (ap_probe_undo(c->undo, dev, c->allow_unidentified, c->force, &u, &e) != 0) {
		/* "--undo --force J" took --force for the journal: say how it is meant */
		if (e.code == ENOENT && c->undo[0] == '-')
			return ap_errx(CMD, c->undo, ENOENT, "no such journal (--undo takes the "
				       "journal as its argument: options go before it, e.g. "
				       "--force --undo JOURNAL)");
		return ap_err_error(CMD, c->undo, &e);
	}
	words = ap_probe_undo_words(&u, c->undo);
	fputs(words, stdout);
	free(words);
	if (!u.removed) {
		/* the disk is as the journal says; the journal stays: not done */
		ap_warnx(CMD, c->undo, "cannot remove the journal: %s; it is kept (the disk "
			 "needs nothing more: remove it by hand)", strerror(u.remove_err));
		return AP_EXIT_FAILURE;
	}
	return AP_EXIT_OK;
}

static int parse_count(const char *arg, const char *what, unsigned *out)
{
	uint64_t v;

	if (ap_parse_u64(arg, &v) != 0 || v == 0 || v > 1000000) {
		ap_usage_error(CMD, "invalid %s: '%s' (1..1000000)", what, arg);
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}

static const struct option longopts[] = {
	{ "emulate",             optional_argument, NULL, OPT_EMULATE },
	{ "preserve",            no_argument,       NULL, 'P' },
	{ "read-only",           no_argument,       NULL, 'R' },
	{ "journal",             required_argument, NULL, OPT_JOURNAL },
	{ "undo",                required_argument, NULL, OPT_UNDO },
	{ "min-size",            required_argument, NULL, OPT_MIN_SIZE },
	{ "max-size",            required_argument, NULL, OPT_MAX_SIZE },
	{ "region-start",        required_argument, NULL, OPT_REGION_START },
	{ "region-size",         required_argument, NULL, OPT_REGION_SIZE },
	{ "slots",               required_argument, NULL, OPT_SLOTS },
	{ "min-rounds",          required_argument, NULL, OPT_MIN_ROUNDS },
	{ "max-rounds",          required_argument, NULL, OPT_MAX_ROUNDS },
	{ "time-budget",         required_argument, NULL, OPT_BUDGET },
	{ "seed",                required_argument, NULL, OPT_SEED },
	{ "no-confirm",          no_argument,       NULL, OPT_NO_CONFIRM },
	{ "stripes",             no_argument,       NULL, OPT_STRIPES },
	{ "write-cache",         required_argument, NULL, OPT_WRITE_CACHE },
	{ "alpha",               required_argument, NULL, OPT_ALPHA },
	{ "min-slowdown",        required_argument, NULL, OPT_MIN_SLOWDOWN },
	{ "allow-metadata-area", no_argument,       NULL, OPT_ALLOW_METADATA },
	{ "allow-partition",     no_argument,       NULL, OPT_ALLOW_PARTITION },
	{ "allow-unidentified",  no_argument,       NULL, OPT_ALLOW_UNIDENTIFIED },
	{ "all-sizes",           no_argument,       NULL, OPT_ALL_SIZES },
	{ "samples",             required_argument, NULL, OPT_SAMPLES },
	{ "force",               no_argument,       NULL, OPT_FORCE },
	{ NULL, 0, NULL, 0 }
};

/* The size options: a field of struct ap_probe_opts each. */
static const struct size_opt {
	int val;
	const char *name;
	size_t off;
} size_opts[] = {
	{ OPT_MIN_SIZE, "min-size", offsetof(struct ap_probe_opts, min_size) },
	{ OPT_MAX_SIZE, "max-size", offsetof(struct ap_probe_opts, max_size) },
	{ OPT_REGION_START, "region-start", offsetof(struct ap_probe_opts, region_start) },
	{ OPT_REGION_SIZE, "region-size", offsetof(struct ap_probe_opts, region_size) },
};

/* What parsing keeps besides struct probe_cmd: the mode asked for. */
struct probe_parse {
	struct probe_cmd *c;
	bool preserve, readonly;
};

/* A size, a count of slots or rounds: 0, 1 when @ch is none of them, or AP_EXIT_USAGE. */
static int amount_opt(struct probe_cmd *c, int ch, const char *arg)
{
	size_t i;

	for (i = 0; i < AP_ARRAY_SIZE(size_opts); i++) {
		if (size_opts[i].val != ch)
			continue;
		if (ap_parse_size(arg, (uint64_t *)((char *)&c->o + size_opts[i].off)) != 0) {
			ap_usage_error(CMD, "invalid --%s: '%s' (a size, e.g. 64K)",
				       size_opts[i].name, arg);
			return AP_EXIT_USAGE;
		}
		return 0;
	}
	switch (ch) {
	case OPT_SLOTS:
		if (parse_count(arg, "--slots", &c->o.slots))
			return AP_EXIT_USAGE;
		c->slots_set = true;
		return 0;
	case OPT_MIN_ROUNDS:
		return parse_count(arg, "--min-rounds", &c->o.min_rounds) ? AP_EXIT_USAGE : 0;
	case OPT_MAX_ROUNDS:
		return parse_count(arg, "--max-rounds", &c->o.max_rounds) ? AP_EXIT_USAGE : 0;
	}
	return 1;
}

/* When the measuring stops and what it calls an effect: 0, 1 (not one), or AP_EXIT_USAGE. */
static int decision_opt(struct probe_cmd *c, int ch, const char *arg)
{
	uint64_t v;
	double d;

	switch (ch) {
	case OPT_BUDGET:
		if (ap_parse_duration_ns(arg, &v) != 0 || v == 0) {
			ap_usage_error(CMD, "invalid --time-budget: '%s' (e.g. 30s, 2m)", arg);
			return AP_EXIT_USAGE;
		}
		c->budget_ns = v;
		c->budget_set = true;
		return 0;
	case OPT_SEED:
		if (ap_parse_u64(arg, &c->o.seed) != 0) {
			ap_usage_error(CMD, "invalid --seed: '%s' (0..%" PRIu64 ")", arg, UINT64_MAX);
			return AP_EXIT_USAGE;
		}
		return 0;
	case OPT_NO_CONFIRM:
		c->o.confirm = false;
		return 0;
	case OPT_STRIPES:
		c->o.stripes_always = true;
		return 0;
	case OPT_WRITE_CACHE:
		if (strcmp(arg, "off") != 0) {
			ap_usage_error(CMD, "--write-cache: '%s': only 'off' (the drive's "
				       "volatile cache off while it is probed)", arg);
			return AP_EXIT_USAGE;
		}
		c->wcache_off = true;
		return 0;
	case OPT_ALPHA:
		if (ap_parse_double(arg, &d) != 0 || !(d > 0 && d < 0.5)) {
			ap_usage_error(CMD, "invalid --alpha: '%s' (0 < P < 0.5)", arg);
			return AP_EXIT_USAGE;
		}
		c->o.alpha = d;
		return 0;
	case OPT_MIN_SLOWDOWN:
		if (ap_parse_double(arg, &d) != 0 || !(d >= 1 && d < 1000)) {
			ap_usage_error(CMD, "invalid --min-slowdown: '%s' (1 <= X < 1000)", arg);
			return AP_EXIT_USAGE;
		}
		c->o.min_slowdown = d;
		return 0;
	}
	return 1;
}

/* The mode, the journal, --undo and what the region may cover: 0 or AP_EXIT_USAGE. */
static int mode_opt(struct probe_parse *pp, int ch, const char *arg)
{
	struct probe_cmd *c = pp->c;

	switch (ch) {
	case OPT_EMULATE:
		c->emu_specs = ap_xreallocarray(c->emu_specs, c->nemu + 1, sizeof(char *));
		c->emu_specs[c->nemu++] = (char *)arg;	/* argv's own */
		break;
	case 'P':
		pp->preserve = true;
		break;
	case 'R':
		pp->readonly = true;
		break;
	case OPT_JOURNAL:
	case OPT_UNDO:
		if (!*arg) {
			ap_usage_error(CMD, "--%s: empty file name",
				       ch == OPT_JOURNAL ? "journal" : "undo");
			return AP_EXIT_USAGE;
		}
		*(ch == OPT_JOURNAL ? &c->journal : &c->undo) = arg;
		break;
	case OPT_ALLOW_METADATA:
		c->o.allow_metadata = true;
		break;
	case OPT_ALLOW_PARTITION:
		c->allow_partition = true;
		break;
	case OPT_ALLOW_UNIDENTIFIED:
		c->allow_unidentified = true;
		break;
	case OPT_FORCE:
		c->force = true;
		break;
	case OPT_ALL_SIZES:
		c->all_sizes = true;
		break;
	case OPT_SAMPLES:
		c->samples = arg;
		break;
	}
	return 0;
}

/* One of probe's own options: 0, or AP_EXIT_USAGE after the message. */
static int probe_opt(void *ctx, int ch, const char *arg)
{
	struct probe_parse *pp = ctx;
	int rc = amount_opt(pp->c, ch, arg);

	if (rc == 1)
		rc = decision_opt(pp->c, ch, arg);
	if (rc == 1)
		rc = mode_opt(pp, ch, arg);
	return rc;
}

/* --undo goes with nothing of a probe; its own options with nothing else. */
static int check_undo_args(const struct probe_parse *pp)
{
	const struct probe_cmd *c = pp->c;

	if (c->undo) {
		if (c->nemu || pp->preserve || pp->readonly || c->dry_run || c->record_set ||
		    c->prometheus) {
			ap_usage_error(CMD, "--undo cannot be combined with a probe%s",
				       c->dry_run ? " (or --dry-run)" : "");
			return AP_EXIT_USAGE;
		}
		return 0;
	}
	if (c->allow_unidentified || c->force) {
		ap_usage_error(CMD, "--%s is only used with --undo",
			       c->force ? "force" : "allow-unidentified");
		return AP_EXIT_USAGE;
	}
	return 0;
}

/* The mode, the devices and the sizes of a probe: 0 or AP_EXIT_USAGE after the message. */
static int check_probe_args(const struct probe_parse *pp, int argc, char **argv)
{
	struct probe_cmd *c = pp->c;
	struct ap_error e = { 0 };

	if (pp->preserve && pp->readonly) {
		ap_usage_error(CMD, "--preserve and --read-only are mutually exclusive");
		return AP_EXIT_USAGE;
	}
	if (c->journal && !pp->preserve) {
		ap_usage_error(CMD, "--journal is only used with --preserve");
		return AP_EXIT_USAGE;
	}
	if (c->wcache_off && pp->readonly) {
		ap_usage_error(CMD, "--write-cache is for writing probes: --read-only writes "
			       "nothing");
		return AP_EXIT_USAGE;
	}
	c->o.mode = pp->preserve ? AP_PROBE_PRESERVE : pp->readonly ? AP_PROBE_READONLY :
		    AP_PROBE_DESTRUCTIVE;
	if (optind >= argc && !c->nemu) {
		ap_usage_error(CMD, "no device given (or --emulate)");
		return AP_EXIT_USAGE;
	}
	if (ap_probe_opts_check(&c->o, &e) != 0) {
		ap_usage_error(CMD, "%s", e.msg);
		return AP_EXIT_USAGE;
	}
	if (ap_check_listed_twice(CMD, argv + optind, (size_t)(argc - optind)))
		return AP_EXIT_USAGE;
	c->names = argv + optind;
	c->nnamed = (size_t)(argc - optind);
	return 0;
}

/*
 * The options and their combinations, nothing opened yet: 0 to go on (to
 * do_undo() when c->undo is set), AP_EXIT_USAGE after the message, -1 when
 * the help, the version or the columns were printed.
 */
static int parse_args(struct probe_cmd *c, int argc, char **argv)
{
	const struct ap_opt common[] = {
		AP_OPT_YES(&c->yes), AP_OPT_PLOT(&c->plot),
		AP_OPT_RECORD(&c->record, &c->record_set), AP_OPT_PROMETHEUS(&c->prometheus),
		AP_OPT_DRY_RUN(&c->dry_run), AP_OPT_QUIET(&c->quiet), AP_OPT_OUTPUT(&c->out),
		AP_OPT_HELP(usage), AP_OPT_VERSION, AP_OPT_END
	};
	struct probe_parse pp = { .c = c };
	const struct ap_opts p = {
		.cmd = CMD, .synopsis = synopsis, .common = common, .longopts = longopts,
		.shortopts = "PR",
		.own = probe_opt, .ctx = &pp,
	};
	int rc;

	ap_probe_opts_init(&c->o);
	c->o.cancel = ap_sig_cancel;
	c->budget_ns = DEFAULT_BUDGET_NS;
	rc = ap_opts_parse(&p, argc, argv);
	if (!rc)
		rc = ap_opts_list_columns(&c->out, &probe_cols);
	if (!rc)
		rc = ap_opts_out_check(CMD, &c->out);
	/* a bad -o list is a usage error before anything is written */
	if (!rc)
		rc = ap_opts_columns(CMD, &c->out, &probe_cols, NULL, NULL);
	if (!rc)
		rc = check_undo_args(&pp);
	if (rc || c->undo)
		return rc;	/* do_undo() when 0 */
	return check_probe_args(&pp, argc, argv);
}

static void free_ctl(struct probe_cmd *c)
{
	size_t i;

	for (i = 0; i < c->njobs; i++) {
		struct job *j = &c->jobs[i];

		if (j->fd_hold >= 0)
			close(j->fd_hold);
		if (j->have_t)
			ap_safety_target_free(&j->t);
		probe_detach_emulated(j);
		ap_outfile_discard(&j->plot);	/* not written: the target is untouched */
		ap_probe_result_free(&j->r);
		ap_probe_prep_free(&j->p);
		free(j->dev);
	}
	ap_outfile_discard(&c->samples_out);
	free(c->jobs);
	free(c->emu_specs);
	ap_outfile_discard(&c->prom);	/* not committed: the old file stays */
}

int ap_cmd_probe(int argc, char **argv)
{
	struct probe_cmd c = { 0 };
	int rc;

	rc = parse_args(&c, argc, argv);
	if (!rc && c.undo) {
		free(c.emu_specs);
		ap_sig_install();
		return do_undo(&c, argc, argv);
	}
	if (!rc && c.record_set)
		rc = ap_publish_record_prepare(CMD, c.record, &c.record);	/* 2, or 3 (EROFS) */
	if (rc) {
		free(c.emu_specs);
		ap_outfile_discard(&c.prom);
		return rc < 0 ? AP_EXIT_OK : rc;
	}

	ap_sig_install();
	probe_setup_jobs(&c);
	rc = probe_plan_jobs(&c);
	if (!rc && c.dry_run) {
		rc = probe_dry_run(&c, c.nnamed);
	} else if (!rc) {
		rc = probe_gate_jobs(&c);
		if (!rc) {
			int wrc = probe_start_jobs(&c);

			rc = probe_report_jobs(&c);
			if (wrc && (!rc || rc == AP_EXIT_INCONCLUSIVE))
				rc = wrc;
		}
	}
	free_ctl(&c);
	return ap_cmd_close_stdout(CMD, rc);
}
