// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * alignprobe probe: one job per device. The checks before anything is
 * written (prepare_job), the confirmation (gate_job), the emulated drives,
 * the output files opened before the run, and the run itself: one thread
 * per device behind a start gate (probe/threads.c), with the progress line.
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

/*
 * --write-cache off: how the disk under @j switches its cache (before
 * anything is written): 0, or the message and 2 (no way, not a disk).
 */
static int wcache_find_job(struct job *j)
{
	struct ap_error e = { 0 };

	if (ap_cachectl_find_dev(&j->wc, j->dev, &ap_cmd_emu_cache, &e) < 0)
		return ap_err_error(CMD, j->dev, &e);
	j->wc_found = true;
	return 0;
}

/*
 * The caches off for the measurement: each state found on record first
 * (cleanup's after a SIGKILL), then switched. 0, or 1 after a message
 * (what was switched is restored by probe_wcache_restore()).
 */
static int wcache_off(struct probe_cmd *c)
{
	struct ap_error e = { 0 };
	size_t i;

	for (i = 0; i < c->njobs; i++) {
		struct job *j = &c->jobs[i];

		if (!j->wc_found)
			continue;
		if (ap_cachectl_record(&j->wc, &e) < 0 || ap_cachectl_set(&j->wc, false, &e) < 0) {
			ap_warnx(CMD, j->dev, "cannot switch the write cache off: %s", e.msg);
			return AP_EXIT_FAILURE;
		}
	}
	return 0;
}

/* Put every cache back as found: 0, or 1 after a message (cleanup puts it back). */
static int wcache_restore(struct probe_cmd *c)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < c->njobs; i++) {
		struct job *j = &c->jobs[i];
		struct ap_error e = { 0 };

		if (j->wc_found && ap_cachectl_restore(&j->wc, &e) < 0) {
			ap_warnx(CMD, j->dev, "cannot restore the write cache (\"%s\"): %s; "
				 "'alignprobe cleanup' puts it back", j->wc.w.orig, e.msg);
			ret = AP_EXIT_FAILURE;
		}
	}
	return ret;
}

int probe_journal_usable(const char *dev, const char *journal, const struct ap_probe_plan *plan,
			 const struct ap_disk_identity *id)
{
	struct ap_error e = { 0 };

	return ap_probe_journal_usable(dev, journal, plan, id, &e) ? ap_err_error(CMD, NULL, &e) : 0;
}

/* Refusals and errors before anything is written: 2 or 3. */
static int prepare_job(struct probe_cmd *c, struct job *j)
{
	struct ap_error e = { 0 };
	int rc;

	j->fd_hold = -1;
	j->o = c->o;
	if (!*j->dev)
		return ap_errx(CMD, NULL, ENOENT, "empty device name");
	if (access(j->dev, F_OK) != 0)
		return ap_errx(CMD, j->dev, errno, "%s", strerror(errno));
	if (c->o.mode != AP_PROBE_READONLY) {
		/* every in-use check first: any refusal is the gate's (exit 3) */
		struct ap_safety_opts so = { .yes = true, .dry_run = c->dry_run,
					     .allow_partition = c->allow_partition };

		rc = ap_cmd_gate(CMD, j->dev, &so, &j->t);
		if (rc)
			return rc;
		j->have_t = true;
	} else if ((rc = ap_cmd_refuse_held(CMD, j->dev)) != 0) {
		return rc;	/* reads next to a live run's writes measure neither */
	}
	rc = ap_probe_device_geometry(j->dev, &j->d, &e);
	if (rc)
		return ap_err_error(CMD, j->dev, &e);
	j->d.dev = j->dev;
	j->d.fd_hold = -1;
	if (c->record_set && (rc = ap_publish_record_check_disk(CMD, j->dev, &j->d.id)) != 0)
		return rc;
	rc = ap_probe_plan(&j->o, j->d.size, j->d.logical_sector, &j->plan, &e);
	if (rc)
		return ap_err_error(CMD, j->dev, &e);	/* too small 2, metadata area 3 */
	if (c->wcache_off && (rc = wcache_find_job(j)) != 0)
		return rc;
	/* the plan fits what the region holds: never fewer slots than asked, silently */
	if (c->slots_set && ap_probe_slots_check(&j->plan, c->o.slots, j->dev, &e) != 0)
		return ap_err_error(CMD, NULL, &e);
	if (c->o.mode == AP_PROBE_PRESERVE) {
		j->journal = probe_journal_path(c, j);
		j->o.journal = j->journal;
		if (ap_probe_journal_check(j->dev, j->journal, &j->plan, &j->d.id, &e) != 0)
			return ap_err_error(CMD, NULL, &e);	/* on the device itself: 3 */
	}
	return 0;
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
		char *what = ap_probe_overwrite_words(j->dev, &j->plan);
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

static void run_jobs(struct probe_cmd *c)
{
	struct ap_probe_thread **t = ap_xcalloc(c->njobs, sizeof(*t));
	struct progress p = { .njobs = c->njobs };
	char what[96];
	size_t i;

	if (c->njobs == 1)
		snprintf(what, sizeof(what), "probe %s", c->jobs[0].dev);
	else
		snprintf(what, sizeof(what), "probe %zu devices", c->njobs);
	ap_progress_init(&p.pg, what, 0, c->quiet || c->out.json);
	for (i = 0; i < c->njobs; i++) {
		struct job *j = &c->jobs[i];

		j->d.fd_hold = j->fd_hold;
		j->o.seed = c->o.seed + i;
		j->run.d = &j->d;
		j->run.o = &j->o;
		j->run.r = &j->r;
		j->run.e = &j->e;
		t[i] = &j->run;
	}
	ap_probe_threads_run(t, c->njobs, on_tick, &p);
	ap_progress_clear(&p.pg);
	free(t);
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

/*
 * The output files, then every check on every named device: 0 or an exit
 * code, with nothing written.
 */
int probe_plan_jobs(struct probe_cmd *c)
{
	size_t i;
	int rc;

	rc = open_outputs(c, c->nnamed);
	for (i = 0; !rc && i < c->nnamed; i++)
		rc = prepare_job(c, &c->jobs[i]);
	return rc;
}

static int signal_status(void)
{
	int sig = ap_sig_pending();

	return sig ? AP_EXIT_SIGNAL_BASE + sig : 0;
}

/*
 * The gate of every named device, then the emulated drives (set up,
 * checked, held): nothing is written before all of them passed.
 */
int probe_gate_jobs(struct probe_cmd *c)
{
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < c->nnamed; i++)
		rc = gate_job(c, &c->jobs[i]);
	for (i = 0; !rc && i < c->nemu; i++) {
		struct job *j = &c->jobs[c->nnamed + i];

		rc = signal_status();
		if (!rc)
			rc = attach_emulated(c, i, j);
		if (!rc)
			rc = prepare_job(c, j);
		if (!rc)
			rc = gate_job(c, j);
	}
	return rc ? rc : signal_status();
}

/*
 * Every device at once, within the one time budget of the call; with
 * --write-cache off the caches off for it and back as found after, whatever
 * happened. 0, or 1 when a cache could not be switched or restored.
 */
int probe_start_jobs(struct probe_cmd *c)
{
	size_t i;
	int rc = c->wcache_off ? wcache_off(c) : 0;

	c->o.deadline_ns = ap_now_ns() + c->budget_ns;
	for (i = 0; i < c->njobs; i++)
		c->jobs[i].o.deadline_ns = c->o.deadline_ns;
	if (!rc)
		run_jobs(c);
	if (c->wcache_off && wcache_restore(c) && !rc)
		rc = AP_EXIT_FAILURE;
	return rc;
}
