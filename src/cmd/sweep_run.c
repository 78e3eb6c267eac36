// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * alignprobe sweep: the run. The parameters and the saved document of each
 * step (--save), the workload, the plan and --dry-run, the safety gate, the
 * emulated drive's hook, and the sweep itself on a device or an emulated
 * drive.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "cmd/commands.h"
#include "cmd/publish.h"
#include "cmd/sweepP.h"
#include "device/identity.h"
#include "device/safety.h"
#include "emu/emu.h"
#include "emu/model.h"
#include "fleet/vstore.h"
#include "lib/exitcodes.h"
#include "lib/outfile.h"
#include "lib/sig.h"
#include "lib/state.h"
#include "lib/util.h"
#include "sweep/mkfs.h"
#include "sweep/mnt.h"
#include "sweep/part.h"
#include "sweep/sweep.h"
#include "ui/confirm.h"
#include "ui/out.h"
#include "ui/progress.h"
#include "workload/pm.h"

static struct json_object *make_params(struct sweep_cmd *c, uint64_t part_sectors)
{
	struct json_object *o = json_object_new_object(), *a;
	size_t i;

	json_object_object_add(o, "preset", c->workload_file ? NULL :
			       json_object_new_string(c->preset->name));
	json_object_object_add(o, "workload_file", c->workload_file ?
			       json_object_new_string(c->workload_file) : NULL);
	a = json_object_new_array();
	for (i = 0; i < c->nstarts; i++)
		json_object_array_add(a, json_object_new_uint64(c->starts[i]));
	json_object_object_add(o, "starts", a);
	json_object_object_add(o, "min_rounds", json_object_new_int64(c->min_rounds));
	json_object_object_add(o, "max_rounds", json_object_new_int64(c->max_rounds));
	json_object_object_add(o, "time_budget_s",
			       json_object_new_double((double)c->budget_ns / 1e9));
	json_object_object_add(o, "partition_sectors", json_object_new_uint64(part_sectors));
	json_object_object_add(o, "partition_bytes",
			       json_object_new_uint64(part_sectors * c->info.logical_sector));
	json_object_object_add(o, "fs", json_object_new_string(c->fs));
	a = json_object_new_array();
	for (i = 0; i < c->nmkfs_opts; i++)
		json_object_array_add(a, json_object_new_string(c->mkfs_opts[i]));
	json_object_object_add(o, "mkfs_opts", a);
	json_object_object_add(o, "mount_opts", c->mount_opts ?
			       json_object_new_string(c->mount_opts) : NULL);
	json_object_object_add(o, "seed", json_object_new_uint64(c->seed));
	json_object_object_add(o, "workload", ap_pm_config_to_json(&c->workload));
	json_object_object_add(o, "emulate", c->emu_text ?
			       json_object_new_string(c->emu_text) : NULL);
	return o;
}

static void doc_of_run(struct sweep_cmd *c, const struct ap_sweep_run *run, struct ap_sweep_doc *d)
{
	memset(d, 0, sizeof(*d));
	d->device = (char *)c->disk;
	d->logical_sector = c->info.logical_sector;
	d->reported_physical = c->info.physical_sector;
	d->starts = c->starts;
	d->nstarts = c->nstarts;
	d->results = run->results;
	d->nresults = run->nresults;
	d->parameters = c->params;
}

static void save_doc(struct sweep_cmd *c, const struct ap_sweep_run *run, const char *stopped)
{
	const struct ap_verdict *v = sweep_shown_verdict(run->verdict_valid ? &run->verdict : NULL,
						   stopped);
	struct ap_sweep_start_stat *st = NULL;
	struct json_object *o;
	struct ap_sweep_doc d;
	struct ap_error e = { 0 };
	struct ap_cols cs;
	size_t n;

	doc_of_run(c, run, &d);
	n = ap_sweep_summarize(d.results, d.nresults, d.starts, d.nstarts, v, &st);
	/* a results file holds every column, whatever -o says */
	ap_cols_init(&cs, NULL, sweep_infos, SWEEP_NCOLS, NULL, 0,
		     sweep_json_cols, sweep_njson_cols);
	o = ap_sweep_doc_to_json(&d, v, sweep_starts_json(&cs, st, n), stopped);
	if (c->id.size)
		json_object_object_add(o, "identity", ap_identity_to_json(&c->id));
	json_object_object_add(o, "next_steps", ap_cmd_verdict_next_steps_json(d.device, v, true));
	if (ap_sweep_json_save(&c->save_out, o, &e) != 0 && c->save_errors++ == 0) {
		ap_progress_clear(&c->pg);
		ap_warnx(CMD, NULL, "--save: %s", e.msg);
	}
	json_object_put(o);
	free(st);
}

static void on_step(void *ctx, const struct ap_sweep_run *run, bool done)
{
	struct sweep_cmd *c = ctx;
	char detail[128];
	uint64_t total = (uint64_t)c->nstarts * c->min_rounds;

	if (run->cur_round > c->min_rounds)
		total = (uint64_t)c->nstarts * run->cur_round;
	if (done) {
		if (c->save)
			save_doc(c, run, NULL);
		if (run->nresults && !run->results[run->nresults - 1].ok) {
			const struct ap_sweep_result *r = &run->results[run->nresults - 1];

			ap_progress_clear(&c->pg);
			ap_warnx(CMD, c->disk, "start %" PRIu64 ": %s failed: %s", r->start,
				 ap_sweep_stage_name(r->failed_stage), r->message ? r->message : "");
		}
		return;
	}
	snprintf(detail, sizeof(detail), "start %" PRIu64 " (%zu of %zu), round %u", run->cur_start,
		 run->cur_index, c->nstarts, run->cur_round);
	ap_progress_update(&c->pg, run->nresults, detail);
	c->pg.total = total;
}

static uint64_t default_part_size(const struct sweep_cmd *c)
{
	uint64_t sz = c->preset->part_size, need;
	uint64_t blk = (c->workload.size_hi + 4095) / 4096 * 4096;

	if (!c->workload_file)
		return sz;
	/* room for the files (twice over) and ext4's inodes (one per 16 KiB) */
	need = c->workload.number * 2 * (blk ? blk : 4096) + (64ULL << 20);
	if (c->workload.number * 16384 + (64ULL << 20) > need)
		need = c->workload.number * 16384 + (64ULL << 20);
	return need > sz ? need : sz;
}

int sweep_prepare_workload(struct sweep_cmd *c)
{
	struct ap_error e = { 0 };

	ap_pm_config_init(&c->workload);
	c->workload_init = true;
	if (c->workload_file) {
		unsigned nloc = 0;

		/* a bad input file: 2 (the message names it) */
		if (ap_pm_config_load(&c->workload, c->workload_file, &nloc, &e) != 0)
			return ap_err_error(CMD, c->workload_file, &e);
		if (nloc && !c->quiet)
			ap_warnx(CMD, c->workload_file, "'set location' ignored: the workload runs "
				 "on the sweep's file system");
	} else {
		c->workload.number = c->preset->number;
		c->workload.transactions = c->preset->transactions;
		c->workload.size_lo = c->preset->size_lo;
		c->workload.size_hi = c->preset->size_hi;
		c->workload.read_block = c->preset->read_block;
		c->workload.write_block = c->preset->write_block;
		c->workload.buffering = false;
	}
	c->workload.sync = c->sync;
	return 0;
}

static void dry_run_outputs(const struct sweep_cmd *c)
{
	const struct ap_cmd_output outs[] = { { "--save", c->save }, { "--plot", c->plot },
					      { "--record", c->record_set ? c->record : NULL } };

	ap_cmd_dry_run_outputs(outs, AP_ARRAY_SIZE(outs));
}

static void print_plan(struct sweep_cmd *c, uint64_t part_sectors)
{
	char buf[256], *sz = ap_size_to_human(part_sectors * c->info.logical_sector);

	sweep_fmt_starts(buf, sizeof(buf), c->starts, c->nstarts, 40);
	printf("dry run: nothing written. The sweep would:\n"
	       "  on %s (%u-byte logical, %u-byte reported physical sectors),\n"
	       "  for each of %zu starts (%s), %u to %u rounds in a random order\n"
	       "  (seed %" PRIu64 "), budget %" PRIu64 "s:\n"
	       "    write a GPT with one partition of %s at exactly that start,\n"
	       "    %s it, mount it, run %s (number %" PRIu64 ", transactions %" PRIu64
	       ", sync %s), unmount;\n"
	       "  and leave an empty GPT.\n",
	       c->disk, c->info.logical_sector, c->info.physical_sector, c->nstarts, buf,
	       c->min_rounds, c->max_rounds, c->seed, (uint64_t)(c->budget_ns / AP_NSEC_PER_SEC), sz,
	       ap_mkfs_program(c->fs), c->workload_file ? c->workload_file : "the preset's workload",
	       c->workload.number, c->workload.transactions, ap_pm_sync_name(c->workload.sync));
	free(sz);
	dry_run_outputs(c);
}

/* "10 measurements (3 rounds and 1 of 3 starts of round 4)" */
static const char *fmt_count(const struct ap_sweep_run *run, char *buf, size_t len)
{
	size_t full = (size_t)run->rounds_done * run->nstarts;
	size_t extra = run->nresults > full ? run->nresults - full : 0;

	if (!extra)
		snprintf(buf, len, "%zu measurement%s (%u round%s)", run->nresults,
			 run->nresults == 1 ? "" : "s", run->rounds_done,
			 run->rounds_done == 1 ? "" : "s");
	else if (!run->rounds_done)
		snprintf(buf, len, "%zu measurement%s (%zu of %zu starts of round 1)", run->nresults,
			 run->nresults == 1 ? "" : "s", extra, run->nstarts);
	else
		snprintf(buf, len, "%zu measurements (%u round%s and %zu of %zu starts of round %u)",
			 run->nresults, run->rounds_done, run->rounds_done == 1 ? "" : "s", extra,
			 run->nstarts, run->rounds_done + 1);
	return buf;
}

static const char *stop_text(const struct ap_sweep_run *run, char *buf, size_t len)
{
	char t[32], cnt[128];

	ap_progress_format_eta(run->elapsed_ns, t, sizeof(t));
	fmt_count(run, cnt, sizeof(cnt));
	switch (run->stop) {
	case AP_SWEEP_STOP_CLEAR:
		if (run->verdict_valid && !run->verdict.resolved)
			snprintf(buf, len, "stopped after %s in %s: more rounds cannot change "
				 "the verdict", cnt, t);
		else
			snprintf(buf, len, "the verdict was clear after %s in %s", cnt, t);
		break;
	case AP_SWEEP_STOP_ROUNDS:
		snprintf(buf, len, "%u round%s done (%zu measurements) in %s, verdict not clear",
			 run->max_rounds, run->max_rounds == 1 ? "" : "s", run->nresults, t);
		break;
	case AP_SWEEP_STOP_BUDGET:
		snprintf(buf, len, "time budget spent after %s in %s, verdict not clear", cnt, t);
		break;
	case AP_SWEEP_STOP_SIGNAL:
		snprintf(buf, len, "interrupted by signal %d after %s in %s", run->signo, cnt, t);
		break;
	case AP_SWEEP_STOP_UNMEASURABLE:
		snprintf(buf, len, "stopped after %s in %s: no verdict: %s", cnt, t, run->cause);
		break;
	default:
		snprintf(buf, len, "stopped by an error after %s in %s", cnt, t);
		break;
	}
	return buf;
}
/* The sweep's hook on an emulated drive: its counters over each workload. */
struct emu_hook {
	const char *disk;
	struct ap_emu_counters c0;
};

static int emu_before(void *arg)
{
	struct emu_hook *h = arg;

	return ap_emu_counters_read(h->disk, &h->c0);
}

static void emu_after(void *arg, struct ap_sweep_result *r)
{
	struct emu_hook *h = arg;
	struct ap_emu_counters c1;

	if (ap_emu_counters_read(h->disk, &c1) != 0)
		return;
	r->has_emu = true;
	r->emu_writes = c1.writes - h->c0.writes;
	r->emu_rmw = c1.rmw - h->c0.rmw;
	r->emu_flushes = c1.flushes - h->c0.flushes;
}

static int do_sweep(struct sweep_cmd *c, int excl_fd)
{
	struct emu_hook eh = { .disk = c->disk };
	struct ap_sweep_opts o = { 0 };
	struct ap_sweep_run run;
	struct ap_sweep_doc d;
	struct ap_error e = { 0 };
	const struct ap_verdict *v;
	uint64_t part_sectors = c->part_size / c->info.logical_sector;
	char stopbuf[768];
	int rc, rc2, sig;

	o.disk = c->disk;
	o.starts = c->starts;
	o.nstarts = c->nstarts;
	o.part_sectors = part_sectors;
	o.fs = c->fs;
	o.mkfs_opts = c->mkfs_opts;
	o.nmkfs_opts = c->nmkfs_opts;
	o.mount_opts = c->mount_opts;
	o.workload = &c->workload;
	o.min_rounds = c->min_rounds;
	o.max_rounds = c->max_rounds;
	o.time_budget_ns = c->budget_ns;
	o.seed = c->seed;
	if (c->emulate) {
		o.hook.before = emu_before;
		o.hook.after = emu_after;
		o.hook.arg = &eh;
	}
	o.cancel = ap_sig_cancel;
	sweep_params(&o.analysis, c->info.logical_sector, c->info.physical_sector);
	o.excl_fd = excl_fd;
	o.on_step = on_step;
	o.ctx = c;

	ap_xasprintf(&c->what, "sweep %s", c->disk);
	ap_progress_init(&c->pg, c->what, (uint64_t)c->nstarts * c->min_rounds, c->quiet);
	rc = ap_sweep_run(&o, &run, &e);
	ap_progress_clear(&c->pg);
	if (rc) {
		ap_warnx(CMD, c->disk, "%s", e.msg);
		if (excl_fd >= 0)
			close(excl_fd);
		return AP_EXIT_FAILURE;
	}
	stop_text(&run, stopbuf, sizeof(stopbuf));
	if (c->save)
		save_doc(c, &run, ap_sweep_stop_name(run.stop));
	if (run.stop == AP_SWEEP_STOP_FATAL)
		ap_warnx(CMD, c->disk, "%s", run.fatal.msg);
	if (run.wipe_error.code)
		ap_warnx(CMD, c->disk, "could not leave an empty GPT: %s", run.wipe_error.msg);
	if (run.nfailed)
		ap_warnx(CMD, c->disk, "%zu of %zu measurements failed (see FAILED; not counted as slow)",
			 run.nfailed, run.nresults);
	if (!c->out.json && !c->out.raw && !c->out.csv)
		printf("Sweep of %s: %s.\n", c->disk, stopbuf);
	else if (!c->quiet && run.stop != AP_SWEEP_STOP_CLEAR)
		ap_warnx(CMD, c->disk, "%s", stopbuf);

	/* a failed assumption makes the timings' verdict wrong: none */
	v = run.verdict_valid && run.stop != AP_SWEEP_STOP_UNMEASURABLE ? &run.verdict : NULL;
	doc_of_run(c, &run, &d);
	rc = sweep_report(c, &d, v, ap_sweep_stop_name(run.stop));

	/* a signal after the last step (analysis, wipe, report) still
	 * ends the run as interrupted: its report is complete, though */
	sig = run.stop == AP_SWEEP_STOP_SIGNAL ? run.signo : ap_sig_pending();
	if (sig)
		rc2 = AP_EXIT_SIGNAL_BASE + sig;
	else if (run.stop == AP_SWEEP_STOP_FATAL || run.nfailed || run.wipe_error.code)
		rc2 = AP_EXIT_FAILURE;
	else
		rc2 = sweep_verdict_exit(v);
	/* --record: a clean run's verdict (an unresolved one is said, not kept) */
	if (c->record_set && run.stop != AP_SWEEP_STOP_UNMEASURABLE &&
	    (rc2 == AP_EXIT_OK || rc2 == AP_EXIT_INCONCLUSIVE) &&
	    ap_publish_record(CMD, c->record, "sweep", c->disk, &c->id, v, c->quiet) != 0)
		rc2 = AP_EXIT_FAILURE;
	if (rc2 != AP_EXIT_OK)
		rc = rc2;
	ap_sweep_run_free(&run);	/* closes the held descriptor */
	return rc;
}

/* Checks and plans shared by a device and the emulated drive. */
/*
 * --mkfs-opt: mkfs with the options on a scratch image of the partition's
 * size, before anything is written to the disk. 0 or 2 (printed).
 */
static int check_mkfs_opts(struct sweep_cmd *c, uint64_t size)
{
	struct ap_error e = { 0 };
	int rc;

	if (!c->nmkfs_opts)
		return 0;
	rc = ap_mkfs_try(c->fs, size, c->mkfs_opts, c->nmkfs_opts, &e);
	if (!rc)
		return 0;
	if (rc == -EINVAL) {
		ap_usage_error(CMD, "--mkfs-opt: %s refuses the options (tried on a scratch "
			       "image): %s", ap_mkfs_program(c->fs), e.msg);
		return AP_EXIT_USAGE;
	}
	ap_warnx(CMD, NULL, "--mkfs-opt: %s", e.msg);
	return ap_exit_for_errno(rc);
}

/*
 * The verdict compares starts with each other: one start alone never gives
 * one, so more rounds than one only cost time. One start is a measurement
 * of that start (exit 5, no verdict): said, and one round. Always 0.
 */
static int check_starts(struct sweep_cmd *c)
{
	if (!c->starts || c->nstarts >= 2)
		return 0;
	ap_warnx(CMD, NULL, "--starts: one start (%" PRIu64 ") can never give a verdict, which "
		 "compares the starts with each other: measuring it for one round", c->starts[0]);
	c->min_rounds = c->max_rounds = 1;
	return 0;
}

/* The plan on the disk c->info describes: 0, or 2 after the message. */
static int plan_on(struct sweep_cmd *c, uint64_t *part_sectors)
{
	uint64_t last, avail, min, want;
	size_t i;

	if (!c->starts)
		ap_sweep_default_starts(c->info.logical_sector, &c->starts, &c->nstarts);
	check_starts(c);
	for (i = 0; i < c->nstarts; i++) {
		if (c->starts[i] < c->info.first_usable) {
			ap_usage_error(CMD, "start %" PRIu64 " is before the first sector a GPT "
				       "partition can use (%" PRIu64 " with %u-byte sectors)",
				       c->starts[i], c->info.first_usable, c->info.logical_sector);
			return AP_EXIT_USAGE;
		}
	}
	last = c->starts[c->nstarts - 1];
	if (last >= c->info.last_usable) {
		ap_usage_error(CMD, "start %" PRIu64 " is beyond the disk's last usable sector %" PRIu64,
			       last, c->info.last_usable);
		return AP_EXIT_USAGE;
	}
	avail = (c->info.last_usable - last + 1) * c->info.logical_sector;
	min = ap_mkfs_min_size(c->fs);
	if (min < (16ULL << 20))
		min = 16ULL << 20;
	if (!c->size_set) {
		c->part_size = default_part_size(c);
		if (c->part_size < min)
			c->part_size = min;
	}
	if (c->part_size > avail) {
		if (c->size_set) {
			char *a = ap_size_to_human(avail);

			ap_usage_error(CMD, "--size: a partition at start %" PRIu64 " can have at most %s",
				       last, a);
			free(a);
			return AP_EXIT_USAGE;
		}
		c->part_size = avail;
	}
	want = c->part_size;
	c->part_size -= c->part_size % 4096;	/* whole 4 KiB file-system blocks */
	if (c->part_size < min) {
		/* the size asked for, not what rounding left of it */
		char *a = ap_size_to_human(c->size_set ? want : c->part_size);
		char *b = ap_size_to_human(min);

		if (c->size_set)
			ap_usage_error(CMD, "--size: %s is too small for %s (at least %s)", a, c->fs, b);
		else
			ap_warnx(CMD, c->disk, "too small: only %s fit after start %" PRIu64
				 "; %s needs at least %s", a, last, c->fs, b);
		free(a);
		free(b);
		return AP_EXIT_USAGE;	/* a device too small is bad input, as in probe */
	}
	*part_sectors = c->part_size / c->info.logical_sector;
	return check_mkfs_opts(c, c->part_size);
}

static int plan(struct sweep_cmd *c, uint64_t *part_sectors)
{
	struct ap_error e = { 0 };

	if (ap_part_disk_info(c->disk, &c->info, &e) != 0) {
		ap_warnx(CMD, c->disk, "%s", e.msg);
		return AP_EXIT_FAILURE;
	}
	return plan_on(c, part_sectors);
}

/*
 * The disk's identity, for the results ("identity", which verdicts merge
 * reads) and --record, which needs a model. 0 or an exit code.
 */
static int record_identity(struct sweep_cmd *c)
{
	struct ap_error e = { 0 };

	if (ap_identity_read_path(c->disk, NULL, &c->id, &e) != 0)
		return c->record_set ? ap_err_error(CMD, c->disk, &e) : 0;
	return c->record_set ? ap_publish_record_check_disk(CMD, c->disk, &c->id) : 0;
}

int sweep_run_device(struct sweep_cmd *c)
{
	struct ap_safety_opts so = { .yes = c->yes, .dry_run = c->dry_run,
				     .ask = ap_ui_confirm };
	struct ap_safety_target t;
	uint64_t part_sectors;
	int rc, fd;

	rc = ap_cmd_gate(CMD, c->device, &so, &t);
	if (rc)
		return rc;
	c->disk = t.dev ? t.dev : c->device;
	rc = plan(c, &part_sectors);
	if (!rc)
		rc = record_identity(c);
	if (!rc)
		rc = ap_cmd_confirm(CMD, c->device, &t, &so, NULL);
	if (rc || c->dry_run) {
		if (!rc)
			print_plan(c, part_sectors);
		ap_safety_target_free(&t);
		return rc;
	}
	c->params = make_params(c, part_sectors);
	fd = t.fd;
	t.fd = -1;
	c->disk = ap_xstrdup(c->disk);
	ap_safety_target_free(&t);
	rc = do_sweep(c, fd);
	free((char *)c->disk);
	c->disk = NULL;
	return rc;
}

int sweep_run_emulated(struct sweep_cmd *c)
{
	struct ap_emu_spec spec;
	struct ap_emu *emu = NULL;
	struct ap_error e = { 0 };
	uint64_t part_sectors;
	int rc, fd;

	ap_emu_spec_init(&spec);
	spec.seed = c->seed;	/* SPEC's seed= before it */
	rc = ap_cmd_emu_spec(CMD, AP_CMD_EMU_DEFAULT_SPEC, c->emu_spec, true, &spec);
	if (rc)
		return rc;
	/* the drive as set up, each key once: what the dry run and --save say */
	c->emu_text = ap_emu_spec_format(&spec);
	if (c->dry_run) {
		unsigned lbs = spec.logical_sector ? spec.logical_sector : 512;

		/* every check of the run, on the drive the spec describes */
		ap_part_disk_geometry(lbs, lbs, spec.capacity / lbs, &c->info);
		ap_emu_spec_free(&spec);
		c->disk = "the emulated drive";
		rc = plan_on(c, &part_sectors);
		c->disk = NULL;
		if (rc)
			return rc;
		printf("dry run: would set up an emulated drive (%s) and sweep it;\n"
		       "nothing is written.\n", c->emu_text);
		dry_run_outputs(c);
		return AP_EXIT_OK;
	}
	rc = ap_cmd_emu_attach(CMD, &spec, &emu);
	ap_emu_spec_free(&spec);
	if (rc)
		return rc;
	c->disk = ap_emu_device(emu);
	rc = ap_sig_pending() ? AP_EXIT_SIGNAL_BASE + ap_sig_pending() : plan(c, &part_sectors);
	if (!rc)
		rc = record_identity(c);
	if (!rc) {
		c->params = make_params(c, part_sectors);
		/* the drive is ours: no confirmation, but held like any disk */
		fd = ap_safety_open_excl(c->disk, O_RDWR);
		if (fd < 0) {
			ap_warnx(CMD, c->disk, "cannot open exclusively: %s", strerror(-fd));
			rc = AP_EXIT_FAILURE;
		} else if (ap_safety_hold(c->disk, CMD, &e) != 0) {
			ap_warnx(CMD, c->disk, "%s", e.msg);
			close(fd);
			rc = AP_EXIT_FAILURE;
		} else {
			rc = do_sweep(c, fd);
		}
	}
	if (ap_emu_detach(emu, &e) != 0) {
		ap_warnx(CMD, NULL, "cannot tear down the emulated drive: %s", e.msg);
		if (rc == AP_EXIT_OK)
			rc = AP_EXIT_FAILURE;
	}
	c->disk = NULL;
	return rc;
}
