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
#include "lib/exitcodes.h"
#include "lib/sig.h"
#include "lib/state.h"
#include "lib/util.h"
#include "sweep/part.h"
#include "sweep/sweep.h"
#include "ui/confirm.h"
#include "ui/out.h"
#include "ui/progress.h"

/* --save: the run so far, as --json would print it with every column */
static void save_doc(struct sweep_cmd *c, const struct ap_sweep_run *run, const char *stopped)
{
	const struct ap_verdict *v = ap_sweep_shown_verdict(run->verdict_valid ? &run->verdict : NULL,
							    run->stop);
	struct ap_sweep_start_stat *st = NULL;
	struct json_object *o;
	struct ap_sweep_doc d;
	struct ap_error e = { 0 };
	size_t n;

	ap_sweep_setup_doc(&c->s, run, &d);
	n = ap_sweep_summarize(d.results, d.nresults, d.starts, d.nstarts, v, &st);
	o = sweep_doc_json(c, NULL, &d, v, stopped, st, n);
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
	uint64_t total = (uint64_t)c->s.nstarts * c->s.min_rounds;

	if (run->cur_round > c->s.min_rounds)
		total = (uint64_t)c->s.nstarts * run->cur_round;
	if (done) {
		if (c->save)
			save_doc(c, run, NULL);
		if (run->nresults && !run->results[run->nresults - 1].ok) {
			const struct ap_sweep_result *r = &run->results[run->nresults - 1];

			ap_progress_clear(&c->pg);
			ap_warnx(CMD, c->s.disk, "start %" PRIu64 ": %s failed: %s", r->start,
				 ap_sweep_stage_name(r->failed_stage), r->message ? r->message : "");
		}
		return;
	}
	snprintf(detail, sizeof(detail), "start %" PRIu64 " (%zu of %zu), round %u", run->cur_start,
		 run->cur_index, c->s.nstarts, run->cur_round);
	ap_progress_update(&c->pg, run->nresults, detail);
	c->pg.total = total;
}

int sweep_prepare_workload(struct sweep_cmd *c)
{
	struct ap_error e = { 0 };
	unsigned nloc;

	/* a bad input file: 2 (the message names it) */
	if (ap_sweep_setup_workload(&c->s, &nloc, &e) != 0)
		return ap_err_error(CMD, c->s.workload_file, &e);
	if (nloc && !c->quiet)
		ap_warnx(CMD, c->s.workload_file, "'set location' ignored: the workload runs "
			 "on the sweep's file system");
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
	char *s = ap_sweep_plan_words(&c->s, part_sectors);

	fputs(s, stdout);
	free(s);
	dry_run_outputs(c);
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
	struct emu_hook eh = { .disk = c->s.disk };
	struct ap_sweep_opts o;
	struct ap_sweep_run run;
	struct ap_sweep_doc d;
	struct ap_error e = { 0 };
	const struct ap_verdict *v;
	char stopbuf[768];
	bool say_stop = false;
	int rc, rc2, sig;

	ap_sweep_setup_opts(&c->s, excl_fd, &o);
	if (c->emulate) {
		o.hook.before = emu_before;
		o.hook.after = emu_after;
		o.hook.arg = &eh;
	}
	o.cancel = ap_sig_cancel;
	o.on_step = on_step;
	o.ctx = c;

	ap_xasprintf(&c->what, "sweep %s", c->s.disk);
	ap_progress_init(&c->pg, c->what, (uint64_t)c->s.nstarts * c->s.min_rounds, c->quiet);
	rc = ap_sweep_run(&o, &run, &e);
	ap_progress_clear(&c->pg);
	if (rc) {
		ap_warnx(CMD, c->s.disk, "%s", e.msg);
		if (excl_fd >= 0)
			close(excl_fd);
		return AP_EXIT_FAILURE;
	}
	ap_sweep_stop_words(&run, stopbuf, sizeof(stopbuf));
	if (c->save)
		save_doc(c, &run, ap_sweep_stop_name(run.stop));
	if (run.stop == AP_SWEEP_STOP_FATAL)
		ap_warnx(CMD, c->s.disk, "%s", run.fatal.msg);
	if (run.wipe_error.code)
		ap_warnx(CMD, c->s.disk, "could not leave an empty GPT: %s", run.wipe_error.msg);
	if (run.nfailed)
		ap_warnx(CMD, c->s.disk, "%zu of %zu measurements failed (see FAILED; not counted as slow)",
			 run.nfailed, run.nresults);
	if (!c->out.json && !c->out.raw && !c->out.csv)
		printf("Sweep of %s: %s.\n", c->s.disk, stopbuf);
	else
		say_stop = !c->quiet && run.stop != AP_SWEEP_STOP_CLEAR;

	/* a failed assumption makes the timings' verdict wrong: none */
	v = run.verdict_valid && run.stop != AP_SWEEP_STOP_UNMEASURABLE ? &run.verdict : NULL;
	ap_sweep_setup_doc(&c->s, &run, &d);
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
	    ap_publish_record(CMD, c->record, "sweep", c->s.disk, &c->id, v, c->quiet) != 0)
		rc2 = AP_EXIT_FAILURE;
	if (rc2 == AP_EXIT_INCONCLUSIVE) {
		/* on stderr, -q or not: the one line a script's log shows */
		char *why = ap_sweep_no_verdict_reason(v, stopbuf);

		ap_warnx(CMD, c->s.disk, "%s", why);
		free(why);
	} else if (say_stop) {
		ap_warnx(CMD, c->s.disk, "%s", stopbuf);
	}
	if (rc2 != AP_EXIT_OK)
		rc = rc2;
	ap_sweep_run_free(&run);	/* closes the held descriptor */
	return rc;
}

/*
 * The plan on the disk c->s.info describes: 0, or 2 after the message
 * (with the --help hint for what an option asked); 1 or 2 when
 * --mkfs-opt could not be tried.
 */
static int plan_on(struct sweep_cmd *c, uint64_t *part_sectors)
{
	struct ap_error e = { 0 };
	int rc;

	if (c->s.starts && c->s.nstarts == 1)
		ap_warnx(CMD, NULL, "--starts: one start (%" PRIu64 ") can never give a verdict, "
			 "which compares the starts with each other: measuring it for one round",
			 c->s.starts[0]);
	rc = ap_sweep_setup_plan(&c->s, part_sectors, &e);
	if (rc == -EINVAL) {
		ap_usage_error(CMD, "%s", e.msg);
		return AP_EXIT_USAGE;
	}
	return rc ? ap_err_error(CMD, NULL, &e) : 0;
}

static int plan(struct sweep_cmd *c, uint64_t *part_sectors)
{
	struct ap_error e = { 0 };

	if (ap_part_disk_info(c->s.disk, &c->s.info, &e) != 0) {
		ap_warnx(CMD, c->s.disk, "%s", e.msg);
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

	if (ap_identity_read_path(c->s.disk, NULL, &c->id, &e) != 0)
		return c->record_set ? ap_err_error(CMD, c->s.disk, &e) : 0;
	return c->record_set ? ap_publish_record_check_disk(CMD, c->s.disk, &c->id) : 0;
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
	c->s.disk = t.dev ? t.dev : c->device;
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
	ap_sweep_setup_params(&c->s, part_sectors);
	fd = t.fd;
	t.fd = -1;
	c->s.disk = ap_xstrdup(c->s.disk);
	ap_safety_target_free(&t);
	rc = do_sweep(c, fd);
	free((char *)c->s.disk);
	c->s.disk = NULL;
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
	spec.seed = c->s.seed;	/* SPEC's seed= before it */
	rc = ap_cmd_emu_spec(CMD, AP_CMD_EMU_DEFAULT_SPEC, c->emu_spec, true, &spec);
	if (rc)
		return rc;
	/* the drive as set up, each key once: what the dry run and --save say */
	c->s.emu_text = ap_emu_spec_format(&spec);
	if (c->dry_run) {
		unsigned lbs = spec.logical_sector ? spec.logical_sector : 512;

		/* every check of the run, on the drive the spec describes */
		ap_part_disk_geometry(lbs, lbs, spec.capacity / lbs, &c->s.info);
		ap_emu_spec_free(&spec);
		c->s.disk = "the emulated drive";
		rc = plan_on(c, &part_sectors);
		c->s.disk = NULL;
		if (rc)
			return rc;
		printf("dry run: would set up an emulated drive (%s) and sweep it;\n"
		       "nothing is written.\n", c->s.emu_text);
		dry_run_outputs(c);
		return AP_EXIT_OK;
	}
	rc = ap_cmd_emu_attach(CMD, &spec, &emu);
	ap_emu_spec_free(&spec);
	if (rc)
		return rc;
	c->s.disk = ap_emu_device(emu);
	rc = ap_sig_pending() ? AP_EXIT_SIGNAL_BASE + ap_sig_pending() : plan(c, &part_sectors);
	if (!rc)
		rc = record_identity(c);
	if (!rc) {
		ap_sweep_setup_params(&c->s, part_sectors);
		/* the drive is ours: no confirmation, but held like any disk */
		fd = ap_safety_open_excl(c->s.disk, O_RDWR);
		if (fd < 0) {
			ap_warnx(CMD, c->s.disk, "cannot open exclusively: %s", strerror(-fd));
			rc = AP_EXIT_FAILURE;
		} else if (ap_safety_hold(c->s.disk, CMD, &e) != 0) {
			ap_warnx(CMD, c->s.disk, "%s", e.msg);
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
	c->s.disk = NULL;
	return rc;
}
