// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * alignprobe probe: one job per device, prepared and run in the orders
 * the engine keeps (probe/prepare.c), through the hooks only the command
 * fills: a device's checks (ap_probe_prepare(): the gate's in-use checks,
 * --record's identity check, the emulated drive's cache model), the
 * devices' order (ap_probe_check_named(), ap_probe_confirm_all(): the
 * confirmation, setting up an emulated drive), and the run with its
 * progress line (ap_probe_run_prepared(): the write caches switched
 * around one thread per device behind a start gate); the output files
 * opened before the run.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/publish.h"
#include "cmd/probeP.h"
#include "device/safety.h"
#include "emu/emu.h"
#include "lib/exitcodes.h"
#include "lib/outfile.h"
#include "lib/sig.h"
#include "lib/util.h"
#include "probe/prepare.h"
#include "probe/probe.h"
#include "probe/threads.h"
#include "ui/confirm.h"
#include "ui/progress.h"

char *probe_journal_path(const struct probe_cmd *c, const struct job *j)
{
	return ap_probe_journal_path(c->journal, c->njobs > 1, j->dev);
}

int probe_journal_usable(const char *dev, const char *journal, const struct ap_probe_plan *plan,
			 const struct ap_disk_identity *id)
{
	struct ap_error e = { 0 };

	return ap_probe_journal_usable(dev, journal, plan, id, &e) ? ap_err_error(CMD, NULL, &e) : 0;
}

/* The hooks' context: the command and the job prepared. */
struct prep_ctx {
	struct probe_cmd *c;
	struct job *j;
};

/*
 * Who else uses @dev: for a probe that writes, every in-use check of the
 * gate (any refusal is the gate's: exit 3); for a read-only one, a live
 * run's hold (reads next to its writes measure neither).
 */
static int admit_job(void *arg, const char *dev, bool writes)
{
	struct prep_ctx *x = arg;
	struct ap_safety_opts so = { .yes = true, .dry_run = x->c->dry_run,
				     .allow_partition = x->c->allow_partition };
	int rc;

	if (!writes)
		return ap_cmd_refuse_held(CMD, dev);
	rc = ap_cmd_gate(CMD, dev, &so, &x->j->t);
	if (!rc)
		x->j->have_t = true;
	return rc;
}

/* --record: the disk has a model to keep the verdict under. */
static int identity_job(void *arg, const char *dev, const struct ap_disk_identity *id)
{
	struct prep_ctx *x = arg;

	return x->c->record_set ? ap_publish_record_check_disk(CMD, dev, id) : 0;
}

/*
 * Every check before anything is written, in the engine's order
 * (ap_probe_prepare()): 0, or 2 or 3 after the message.
 */
static int prepare_job(struct probe_cmd *c, struct job *j)
{
	struct prep_ctx x = { .c = c, .j = j };
	const struct ap_probe_prep_opts po = {
		.o = &c->o, .journal = c->journal, .several = c->njobs > 1,
		.slots = c->slots_set ? c->o.slots : 0, .wcache_off = c->wcache_off,
		.hooks = { .admit = admit_job, .identity = identity_job,
			   .cache_model = &ap_cmd_emu_cache, .arg = &x },
	};
	struct ap_error e = { 0 };
	int rc;

	j->fd_hold = -1;
	rc = ap_probe_prepare(&j->p, j->dev, &po, &e);
	return rc < 0 ? ap_err_error(CMD, j->p.about, &e) : rc;
}

/* The confirmation (destructive mode on a drive that is not ours), then hold it. */
static int gate_job(struct probe_cmd *c, struct job *j)
{
	struct ap_safety_opts so = { .yes = c->yes || j->emulated,
				     .allow_partition = c->allow_partition };

	if (!j->have_t)
		return 0;
	so.ask = ap_ui_confirm;
	if (c->o.mode == AP_PROBE_DESTRUCTIVE && !so.yes) {
		char *what = ap_probe_overwrite_words(j->dev, &j->p.plan);
		int rc;

		rc = ap_cmd_confirm(CMD, j->dev, &j->t, &so, what);
		free(what);
		if (rc)
			return rc;
	}
	j->fd_hold = j->t.fd;
	j->t.fd = -1;
	ap_safety_target_free(&j->t);
	j->have_t = false;
	return 0;
}

/* The spec of the emulated drive @i: 0 or AP_EXIT_USAGE (printed). */
int probe_emu_spec(struct probe_cmd *c, size_t i, struct ap_emu_spec *spec)
{
	ap_emu_spec_init(spec);
	return ap_cmd_emu_spec(CMD, AP_CMD_EMU_DEFAULT_SPEC, c->emu_specs[i], true, spec);
}

static int attach_emulated(struct probe_cmd *c, size_t i, struct job *j)
{
	struct ap_emu_spec spec;
	struct ap_error e = { 0 };
	int rc;

	rc = probe_emu_spec(c, i, &spec);
	if (rc)
		return rc;
	rc = ap_cmd_emu_attach(CMD, &spec, &j->emu);
	ap_emu_spec_free(&spec);
	if (rc)
		return rc;
	j->dev = ap_xstrdup(ap_emu_device(j->emu));
	j->emulated = true;
	if (c->plot && c->njobs > 1) {
		/* the plot's name carries the device, known only now */
		char *p = ap_probe_plot_path(c->plot, j->dev, true);

		rc = ap_outfile_rename(&j->plot, p, &e);
		free(p);
		if (rc) {
			ap_warnx(CMD, NULL, "%s", e.msg);
			return AP_EXIT_USAGE;
		}
	}
	return 0;
}

/* What names an emulated drive's outputs before it exists. */
char *probe_emu_placeholder(size_t i)
{
	char *s;

	ap_xasprintf(&s, "emulated-%zu", i);
	return s;
}

/*
 * Every file the run writes, before anything touches a device and before
 * an emulated drive is attached: the plots (one per device), the samples,
 * and (preserving mode) that the undo journals can be created where they
 * go. 0 or an exit code, with the message printed.
 */
static int open_outputs(struct probe_cmd *c, size_t nnamed)
{
	size_t i;
	int rc;

	if (c->samples && (rc = ap_cmd_open_output(CMD, &c->samples_out, c->samples)))
		return rc;
	if (c->prometheus && (rc = ap_publish_prom_open(CMD, &c->prom, c->prometheus)))
		return rc;
	if (c->samples && c->prometheus && ap_outfile_is(&c->prom, c->samples)) {
		ap_warnx(CMD, c->samples, "given for both --samples and --prometheus");
		return AP_EXIT_USAGE;
	}
	for (i = 0; i < c->njobs; i++) {
		struct job *j = &c->jobs[i];
		char *name = i < nnamed ? ap_xstrdup(j->dev) : probe_emu_placeholder(i - nnamed);
		char *p;

		rc = 0;
		if (c->plot) {
			p = ap_probe_plot_path(c->plot, name, c->njobs > 1);
			rc = ap_cmd_open_output(CMD, &j->plot, p);
			free(p);
		}
		if (!rc && c->o.mode == AP_PROBE_PRESERVE) {
			struct job tmp = { .dev = name };

			/* created by the probe itself; an existing one: prepare_job() */
			p = probe_journal_path(c, &tmp);
			if (access(p, F_OK) != 0)
				rc = ap_cmd_check_output(CMD, p, true);
			free(p);
		}
		free(name);
		if (rc)
			return rc;
		if (c->samples && ap_outfile_is(&j->plot, c->samples)) {
			ap_warnx(CMD, c->samples, "given for both --samples and --plot");
			return AP_EXIT_USAGE;
		}
		if (c->prometheus && ap_outfile_is(&j->plot, c->prometheus)) {
			ap_warnx(CMD, c->prometheus, "given for both --prometheus and --plot");
			return AP_EXIT_USAGE;
		}
	}
	return 0;
}

void probe_detach_emulated(struct job *j)
{
	struct ap_error e = { 0 };

	if (!j->emu)
		return;
	if (ap_emu_detach(j->emu, &e) != 0)
		ap_warnx(CMD, j->dev, "cannot detach the emulated drive: %s", e.msg);
	j->emu = NULL;
}

/* The progress line of the devices running. */
struct progress {
	struct ap_progress pg;
	size_t njobs;
};

static void on_tick(void *arg, const struct ap_probe_threads_live *l)
{
	struct progress *p = arg;
	char detail[96], b[32];

	if (p->njobs == 1)
		snprintf(detail, sizeof(detail), "%s, round %u, %llu operations",
			 l->size ? ap_size_exact(l->size, b, sizeof(b)) : "reading", l->round + 1,
			 (unsigned long long)l->ops);
	else
		snprintf(detail, sizeof(detail), "%zu of %zu done, %llu operations", l->ndone,
			 p->njobs, (unsigned long long)l->ops);
	ap_progress_update(&p->pg, l->ops, detail);
}

/* A write cache not switched off (nothing ran) or not put back (cleanup's). */
static void on_cache_failed(void *arg, const struct ap_probe_prep *pp, bool restoring,
			    const struct ap_error *e)
{
	struct progress *p = arg;

	ap_progress_clear(&p->pg);
	if (restoring)
		ap_warnx(CMD, pp->d.dev, "cannot restore the write cache (\"%s\"): %s; "
			 "'alignprobe cleanup' puts it back", pp->wc.w.orig, e->msg);
	else
		ap_warnx(CMD, pp->d.dev, "cannot switch the write cache off: %s", e->msg);
}

/*
 * Every device at once, within the one time budget of the call; with
 * --write-cache off the caches off for it and back as found after, whatever
 * happened (ap_probe_run_prepared()). 0, or 1 when a cache could not be
 * switched or restored.
 */
int probe_start_jobs(struct probe_cmd *c)
{
	struct ap_probe_thread **t = ap_xcalloc(c->njobs, sizeof(*t));
	struct ap_probe_prep **pp = ap_xcalloc(c->njobs, sizeof(*pp));
	struct progress p = { .njobs = c->njobs };
	const struct ap_probe_run_hooks h = { .tick = on_tick, .cache_failed = on_cache_failed,
					      .arg = &p };
	char what[96];
	size_t i;
	int rc;

	if (c->njobs == 1)
		snprintf(what, sizeof(what), "probe %s", c->jobs[0].dev);
	else
		snprintf(what, sizeof(what), "probe %zu devices", c->njobs);
	ap_progress_init(&p.pg, what, 0, c->quiet || c->out.json);
	for (i = 0; i < c->njobs; i++) {
		struct job *j = &c->jobs[i];

		j->p.d.fd_hold = j->fd_hold;
		j->p.o.seed = c->o.seed + i;
		j->run.r = &j->r;
		j->run.e = &j->e;
		t[i] = &j->run;
		pp[i] = &j->p;
	}
	rc = ap_probe_run_prepared(pp, t, c->njobs, c->budget_ns, &h);
	ap_progress_clear(&p.pg);
	free(pp);
	free(t);
	return rc ? AP_EXIT_FAILURE : 0;
}

/* One job per device named, then one per --emulate (its device comes later). */
void probe_setup_jobs(struct probe_cmd *c)
{
	size_t i;

	c->njobs = c->nnamed + c->nemu;
	c->jobs = ap_xcalloc(c->njobs, sizeof(*c->jobs));
	for (i = 0; i < c->njobs; i++) {
		c->jobs[i].fd_hold = -1;
		if (i < c->nnamed)
			c->jobs[i].dev = ap_xstrdup(c->names[i]);
	}
}

static int signal_status(void)
{
	int sig = ap_sig_pending();

	return sig ? AP_EXIT_SIGNAL_BASE + sig : 0;
}

/* The order's hooks (ap_probe_check_named(), ap_probe_confirm_all()). */
static int order_check(void *arg, size_t i)
{
	struct probe_cmd *c = arg;

	return prepare_job(c, &c->jobs[i]);
}

static int order_confirm(void *arg, size_t i)
{
	struct probe_cmd *c = arg;

	return gate_job(c, &c->jobs[i]);
}

/* An emulated drive set up, unless a signal came: 0 or an exit code. */
static int order_attach(void *arg, size_t i)
{
	struct probe_cmd *c = arg;
	int rc = signal_status();

	return rc ? rc : attach_emulated(c, i - c->nnamed, &c->jobs[i]);
}

static const struct ap_probe_order_hooks order_hooks = {
	.check = order_check, .confirm = order_confirm, .attach = order_attach,
};

/*
 * The output files, then every check on every named device: 0 or an exit
 * code, with nothing written.
 */
int probe_plan_jobs(struct probe_cmd *c)
{
	struct ap_probe_order_hooks h = order_hooks;
	int rc;

	h.arg = c;
	rc = open_outputs(c, c->nnamed);
	return rc ? rc : ap_probe_check_named(c->nnamed, &h);
}

/*
 * The gate of every named device, then the emulated drives (set up,
 * checked, held), in the engine's order: nothing is written before all
 * of them passed.
 */
int probe_gate_jobs(struct probe_cmd *c)
{
	struct ap_probe_order_hooks h = order_hooks;
	int rc;

	h.arg = c;
	rc = ap_probe_confirm_all(c->nnamed, c->nemu, &h);
	return rc ? rc : signal_status();
}
