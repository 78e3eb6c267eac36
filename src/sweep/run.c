// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sweep's orchestration, one stage per module:
 *
 *   part (libparted) -> mkfs (spawned) -> mnt (mount(2)) -> pm (workload)
 *   -> umount -> next start
 *
 * in a randomized, interleaved order (every round a fresh permutation of the
 * starts, seeded), with the analysis run after every step once the minimum
 * number of rounds is done, so the sweep stops as soon as the verdict is
 * clear. A failed step is recorded as failed (with its stage and message)
 * and never enters the analysis; an interrupted step is not recorded.
 *
 * Cancellation comes from o->cancel (lib/cancel.h), asked between the
 * stages, passed on to mkfs and the workload; anything to measure around
 * the workload (the emulated drive's counters) from o->hook.
 */
#include "device/rmwbuf.h"
#include "device/rotation.h"
#include "device/safety.h"
#include "lib/blkdev.h"
#include "lib/cancel.h"
#include "lib/stats.h"
#include "sweep/mkfs.h"
#include "device/mount.h"
#include "sweep/part.h"
#include "sweep/sweep.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_CONSECUTIVE_FAILURES 3

/* ------------------------------------------------------------------ */
/* The run                                                            */
/* ------------------------------------------------------------------ */

static double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

static void set_failed(struct ap_sweep_result *r, enum ap_sweep_stage stage, int rc,
		       const struct ap_error *e)
{
	r->ok = false;
	r->failed_stage = stage;
	r->error = rc < 0 ? -rc : rc;
	free(r->message);
	if (e && e->msg[0])
		r->message = ap_xstrdup(e->msg);
	else
		r->message = ap_xstrdup(strerror(r->error));
}

static void fill_workload(struct ap_sweep_result *r, const struct ap_pm_result *pm)
{
	double create_s = secs(pm->phase_ns[AP_PM_PHASE_CREATE]);
	double trans_s = secs(pm->phase_ns[AP_PM_PHASE_TRANSACTIONS]);
	double del_s = secs(pm->phase_ns[AP_PM_PHASE_DELETE]);

	r->transactions = pm->transactions_done;
	r->created = pm->created_alone + pm->created_mixed;
	r->deleted = pm->deleted_alone + pm->deleted_mixed;
	r->bytes_read = pm->bytes_read;
	r->bytes_written = pm->bytes_written;
	r->workload_s = secs(pm->total_ns);
	r->tps = pm->tps;
	r->cost = pm->tps > 0 ? 1.0 / pm->tps : NAN;
	r->creates_per_s = create_s + trans_s > 0 ? (double)r->created / (create_s + trans_s) : 0;
	r->deletes_per_s = trans_s + del_s > 0 ? (double)r->deleted / (trans_s + del_s) : 0;
	r->read_kibs = pm->read_bytes_per_s / 1024.0;
	r->write_kibs = pm->write_bytes_per_s / 1024.0;
	r->fsync_med_ms = (double)pm->lat[AP_PM_OP_SYNC].p50_ns / 1e6;
}

static bool is_device_gone(int rc)
{
	return rc == -ENODEV || rc == -ENXIO || rc == -ENOENT || rc == -ENOMEDIUM ||
	       rc == -ENOTBLK;
}

struct step_ctx {
	const struct ap_sweep_opts *o;
	struct ap_sweep_run *run;
	bool hold;		/* keep the disk O_EXCL between steps */
	bool interrupted;
	bool fatal;
};

/* Take the disk again after a step (see src/device/safety.h). */
static int retake(struct step_ctx *c)
{
	int fd;

	if (!c->hold || c->run->excl_fd >= 0)
		return 0;
	fd = ap_safety_open_excl(c->o->disk, O_RDWR);
	if (fd < 0) {
		c->fatal = true;
		return ap_error_set(&c->run->fatal, -fd,
				    "%s: cannot hold the disk exclusively again: %s%s",
				    c->o->disk, strerror(-fd),
				    fd == -EBUSY ? " (someone else opened or mounted it)" : "");
	}
	c->run->excl_fd = fd;
	return 0;
}

static void release_excl(struct step_ctx *c)
{
	if (c->run->excl_fd >= 0) {
		close(c->run->excl_fd);
		c->run->excl_fd = -1;
	}
}

/*
 * The end of a step, whatever happened: unmount (ext4 remounted first so
 * that its umount sends no flush, and shut down so that it writes nothing:
 * mkfs.c), drop the partition from the
 * kernel's view, take the disk again. Fatal when something stays mounted.
 */
static void teardown(struct step_ctx *c, struct ap_sweep_result *r, struct ap_mount *m,
		     struct ap_sweep_part *part)
{
	const struct ap_sweep_opts *o = c->o;
	uint64_t t;
	int rc;

	if (m->dir) {
		struct ap_error e2 = { 0 }, e3 = { 0 };
		const char *quiet = ap_mkfs_umount_data(o->fs);

		t = ap_now_ns();
		/* only the umount's flushes at stake: it goes on without them */
		if (m->mounted && quiet)
			(void)ap_mount_remount(m, quiet, &e3);
		/* tests: look at the file system as its umount finds it */
		ap_test_pause("ALIGNPROBE_TEST_SWEEP_UMOUNT");
		/* nor its writes: refused, the umount writes them */
		if (m->mounted && ap_mkfs_shut_down(o->fs))
			(void)ap_mount_shutdown(m, &e3);
		rc = ap_mount_umount(m, &e2);
		r->umount_s = secs(ap_now_ns() - t);
		if (rc) {
			/* something stays mounted: never go on */
			if (r->ok || !r->message)
				set_failed(r, AP_SWEEP_STAGE_UMOUNT, rc, &e2);
			c->fatal = true;
			if (!c->run->fatal.code)
				ap_error_set(&c->run->fatal, -rc, "%s", e2.msg);
		}
	}
	/* nothing open on it: libparted need not flush it (part.h) */
	if (part->node && !c->fatal)
		(void)ap_part_forget(o->disk);
	/* tests: look at the disk between two steps */
	ap_test_pause("ALIGNPROBE_TEST_SWEEP_STEPPED");
	ap_part_release(part);
	retake(c);
	if (c->fatal && !c->run->fatal.code)
		ap_error_set(&c->run->fatal, r->error ? r->error : EIO, "start %llu: %s: %s",
			     (unsigned long long)r->start, ap_sweep_stage_name(r->failed_stage),
			     r->message ? r->message : "failed");
}

static void step(struct step_ctx *c, struct ap_sweep_result *r)
{
	const struct ap_sweep_opts *o = c->o;
	struct ap_sweep_part part = { 0 };
	struct ap_mount m = { 0 };
	struct ap_pm_config cfg;
	struct ap_pm_result pm;
	struct ap_error e = { 0 };
	char *data;
	uint64_t t;
	int rc;
	bool hooked = false;

	r->ok = false;
	t = ap_now_ns();
	rc = ap_part_create(o->disk, r->start, o->part_sectors, 5000, &part, &e);
	r->partition_s = secs(ap_now_ns() - t);
	if (rc) {
		set_failed(r, AP_SWEEP_STAGE_PARTITION, rc, &e);
		if (is_device_gone(rc) || rc == -EBUSY || rc == -ERANGE)
			c->fatal = true;
		goto out;
	}
	if (ap_cancelled(&o->cancel)) {
		c->interrupted = true;
		goto out;
	}

	release_excl(c);
	/* tests: act in the window where the disk is not held O_EXCL */
	ap_test_pause("ALIGNPROBE_TEST_SWEEP_WINDOW");
	t = ap_now_ns();
	rc = ap_mkfs_run(o->fs, part.node, o->mkfs_opts, o->nmkfs_opts, &o->cancel, &e);
	r->mkfs_s = secs(ap_now_ns() - t);
	if (rc == -EINTR || ap_cancelled(&o->cancel)) {
		c->interrupted = true;
		goto out;
	}
	if (rc) {
		set_failed(r, AP_SWEEP_STAGE_MKFS, rc, &e);
		if (rc == -ENOENT || rc == -EINVAL)
			c->fatal = true;	/* mkfs missing, unknown fs */
		goto out;
	}

	data = ap_mkfs_mount_data(o->fs, o->mount_opts);
	t = ap_now_ns();
	rc = ap_mount_mount(part.node, o->fs, data, o->disk, &m, &e);
	r->mount_s = secs(ap_now_ns() - t);
	free(data);
	if (rc) {
		set_failed(r, AP_SWEEP_STAGE_MOUNT, rc, &e);
		goto out;
	}
	/* tests: look at the mounted file system before the workload */
	ap_test_pause("ALIGNPROBE_TEST_SWEEP_MOUNTED");
	if (ap_cancelled(&o->cancel)) {
		c->interrupted = true;
		goto out;
	}

	ap_pm_config_copy(&cfg, o->workload);
	cfg.cancel = o->cancel;
	rc = ap_pm_config_set_location(&cfg, m.dir, &e);
	if (rc) {
		ap_pm_config_free(&cfg);
		set_failed(r, AP_SWEEP_STAGE_WORKLOAD, rc, &e);
		goto out;
	}
	if (o->hook.before && o->hook.after)
		hooked = o->hook.before(o->hook.arg) == 0;
	memset(&pm, 0, sizeof(pm));
	rc = ap_pm_run(&cfg, &pm, &e);
	ap_pm_config_free(&cfg);
	if (hooked)
		o->hook.after(o->hook.arg, r);
	if (rc == -EINTR || pm.interrupted) {
		c->interrupted = true;
		goto out;
	}
	if (rc) {
		set_failed(r, AP_SWEEP_STAGE_WORKLOAD, rc, &e);
		goto out;
	}
	fill_workload(r, &pm);
	if (!(r->tps > 0) || !r->transactions) {
		ap_error_set(&e, EIO, "the workload completed no transaction%s",
			     pm.out_of_files ? " (out of files)" : "");
		set_failed(r, AP_SWEEP_STAGE_WORKLOAD, -EIO, &e);
		goto out;
	}
	r->ok = true;

out:
	teardown(c, r, &m, &part);
}

static void analyse(const struct ap_sweep_opts *o, struct ap_sweep_run *run)
{
	if (run->verdict_valid) {
		ap_verdict_free(&run->verdict);
		run->verdict_valid = false;
	}
	memset(&run->verdict, 0, sizeof(run->verdict));
	if (ap_sweep_analyse(run->results, run->nresults, &o->analysis, &run->verdict) == 0)
		run->verdict_valid = true;
}

/*
 * On a rotating disk (as the reads say so far): does a buffer answer its
 * read-modify-writes? (run->rmw, device/rmwbuf.h; not measured: all 0.)
 */
static void rmw_check(const struct ap_sweep_opts *o, struct ap_sweep_run *run, uint64_t size,
		      unsigned lss)
{
	int fd;

	/*
	 * On a rotating disk only: the read pass a buffer saves is a
	 * revolution. Where reads a seek away are fast, a second write faster
	 * than the first is storage that allocates on the first write (a
	 * sparse file under a loop device, a thin volume, qcow2's subclusters),
	 * which the pairs would take for a buffer. The sweep destroys the
	 * disk: the check's writes are no loss.
	 */
	if (!lss || !run->rotating)
		return;
	fd = open(o->disk, O_RDWR | O_DIRECT | O_DSYNC | O_CLOEXEC);
	if (fd < 0)
		return;
	if (ap_rmwbuf_measure(fd, size, lss, &run->rmw) != 0)
		memset(&run->rmw, 0, sizeof(run->rmw));
	close(fd);
}

/*
 * Before the first step: does the disk rotate? (struct ap_sweep_run's
 * rotating; unknown: no.) If it does, does a buffer answer its
 * read-modify-writes (rmw_check())?
 */
static void calibrate(const struct ap_sweep_opts *o, struct ap_sweep_run *run)
{
	int fd = open(o->disk, O_RDONLY | O_DIRECT | O_CLOEXEC);
	uint64_t size = 0, again = 0;
	unsigned lss = 0;

	if (fd < 0)
		return;
	if (ap_blkdev_get_sizes(fd, &size, &lss, NULL) == 0 &&
	    ap_rotation_measure(fd, size, lss > 4096 ? lss : 4096, &run->seek_read_ns) == 0)
		run->rotating = run->seek_read_ns >= AP_ROTATING_NS;
	/* tests: the reads done, the writes below not yet */
	ap_test_pause("ALIGNPROBE_TEST_SWEEP_CALIBRATED");
	rmw_check(o, run, size, lss);
	/*
	 * Writes faster than a rotating disk's media take them: its write
	 * cache ignores flushes -- or the reads were slow because the host
	 * was busy, and the disk does not rotate (a loop device over a file
	 * under CI's load: reads a seek away 1 ms and more, then synchronous
	 * writes in 422 us, and the sweep stopped). A busy host only adds
	 * time: the reads again, elsewhere, and the smaller of the two.
	 */
	if (run->rotating && run->rmw.trials &&
	    ap_rotation_write_unflushed(run->rmw.first_ns, run->seek_read_ns) &&
	    ap_rotation_measure_again(fd, size, lss > 4096 ? lss : 4096, &again) == 0 &&
	    again < run->seek_read_ns) {
		run->seek_read_ns = again;
		run->rotating = again >= AP_ROTATING_NS;
		if (!run->rotating)	/* a rotating disk's check only */
			memset(&run->rmw, 0, sizeof(run->rmw));
	}
	close(fd);
}


bool ap_sweep_rmw_hides(const struct ap_rmwbuf_check *k, const struct ap_pm_config *w,
			const struct ap_verdict *v, char *cause, size_t len)
{
	if (!k->buffered)
		return false;
	if (v ? !v->resolved || v->sensitive : w->number + w->transactions >= AP_SWEEP_RMWBUF_FILES)
		return false;
	snprintf(cause, len, "%s%u of %u one-sector writes were a revolution faster the second "
		 "time at the same place (%.1f ms, then %.1f ms): a buffer in the drive answers "
		 "read-modify-writes from the sectors it touched last, so %s misaligned writes "
		 "cost nothing and the timings cannot show the physical sector; sweep with a "
		 "workload larger than the buffer (--preset thorough, or --workload FILE with "
		 "more files), or run alignprobe probe, whose writes go to a new place each time",
		 v ? "no effect seen, but " : "", k->served, k->trials, (double)k->first_ns / 1e6,
		 (double)k->second_ns / 1e6, v ? "its" : "this small workload's");
	return true;
}

static bool rmw_buffered(const struct ap_sweep_opts *o, struct ap_sweep_run *run, bool verdict)
{
	if (verdict && !run->verdict_valid)
		return false;
	return ap_sweep_rmw_hides(&run->rmw, o->workload, verdict ? &run->verdict : NULL,
				  run->cause, sizeof(run->cause));
}

/*
 * After a step, from AP_SWEEP_FLUSH_STEPS good ones on: do the flushes cost
 * anything? (struct ap_sweep_run's rotating) True, with run->cause, when
 * they cost nothing on a rotating disk: the run stops there, early.
 */
#define AP_SWEEP_FLUSH_STEPS	4
#define FLUSH_REMEDY	"turn the cache off (" AP_REMEDY_WCE_OFF "), " AP_REMEDY_NO_BRIDGE \
			", or sweep with a workload larger than the cache (--workload)"
static bool flushes_free(struct ap_sweep_run *run)
{
	double *v, med;
	size_t i, n = 0;

	if (!run->rotating || !run->nresults)
		return false;
	v = ap_xmalloc(run->nresults * sizeof(*v));
	for (i = 0; i < run->nresults; i++)
		if (run->results[i].ok && run->results[i].fsync_med_ms > 0)
			v[n++] = run->results[i].fsync_med_ms;
	med = n ? ap_stats_median(v, n) : NAN;
	free(v);
	/* a flush a rotating disk honours waits for the platter, as a read a seek away does */
	if (n < AP_SWEEP_FLUSH_STEPS ||
	    !(med < AP_SWEEP_FLUSH_MIN_MS || med < (double)run->seek_read_ns / 1e6))
		return false;
	snprintf(run->cause, sizeof(run->cause), "an fsync took %.2f ms (the median over %zu "
		 "steps) on a rotating disk (reads a seek away took %.1f ms and more), which cannot "
		 "write a file and commit its journal faster than it reads: the drive's write cache "
		 "ignores flushes, so the timings show that cache, not the disk; " FLUSH_REMEDY,
		 med, n, (double)run->seek_read_ns / 1e6);
	return true;
}

/*
 * Before the first step: were the check's one-sector writes (run->rmw)
 * faster than a rotating disk's media can take them? Then its write cache
 * ignores flushes, as the probe's check says (device/rotation.h), with
 * run->cause: the run stops there.
 */
static bool writes_unflushed(struct ap_sweep_run *run)
{
	if (!run->rotating || !run->rmw.trials ||
	    !ap_rotation_write_unflushed(run->rmw.first_ns, run->seek_read_ns))
		return false;
	ap_rotation_unflushed_cause(run->cause, sizeof(run->cause), run->rmw.first_ns,
				    run->rmw.trials, run->seek_read_ns, FLUSH_REMEDY);
	return true;
}

int ap_sweep_run(const struct ap_sweep_opts *o, struct ap_sweep_run *run, struct ap_error *e)
{
	struct step_ctx c = { .o = o, .run = run };
	struct ap_rng rng;
	uint64_t *order, prev = 0;
	bool have_prev = false;
	unsigned round, consecutive = 0;
	size_t i;

	memset(run, 0, sizeof(*run));
	run->excl_fd = o->excl_fd;
	c.hold = o->excl_fd >= 0;
	if (!o->disk || !o->nstarts || !o->workload || !o->fs || !o->part_sectors)
		return ap_error_set(e, EINVAL, "nothing to sweep");
	if (!o->max_rounds || o->min_rounds > o->max_rounds)
		return ap_error_set(e, EINVAL, "bad number of rounds (%u..%u)",
				    o->min_rounds, o->max_rounds);
	run->nstarts = o->nstarts;
	run->max_rounds = o->max_rounds;
	run->t0_ns = ap_now_ns();
	ap_rng_seed(&rng, o->seed);
	order = ap_xcalloc(o->nstarts, sizeof(*order));
	calibrate(o, run);
	if (writes_unflushed(run) || rmw_buffered(o, run, false))
		run->stop = AP_SWEEP_STOP_UNMEASURABLE;
	else	/* refused: every step has libparted probe the disk anew */
		(void)ap_part_hold(o->disk, NULL);

	for (round = 1; round <= o->max_rounds && !run->stop; round++) {
		ap_sweep_order(o->starts, o->nstarts, have_prev ? &prev : NULL, &rng, order);
		for (i = 0; i < o->nstarts; i++) {
			struct ap_sweep_result r;
			uint64_t now = ap_now_ns(), el = now - run->t0_ns;

			if (ap_cancelled(&o->cancel)) {
				run->stop = AP_SWEEP_STOP_SIGNAL;
				break;
			}
			/* would the next step end past the budget? */
			if (o->time_budget_ns && run->nresults &&
			    el + el / run->nresults > o->time_budget_ns) {
				run->stop = AP_SWEEP_STOP_BUDGET;
				break;
			}
			run->cur_start = order[i];
			run->cur_round = round;
			run->cur_index = i + 1;
			run->elapsed_ns = el;
			if (o->on_step)
				o->on_step(o->ctx, run, false);

			memset(&r, 0, sizeof(r));
			r.start = order[i];
			r.round = round;
			r.seq = (unsigned)run->nresults + 1;
			c.interrupted = false;
			step(&c, &r);
			if (c.interrupted && r.ok == false && !r.message) {
				run->stop = AP_SWEEP_STOP_SIGNAL;
				ap_sweep_result_free(&r);
				break;
			}
			run->results = ap_xreallocarray(run->results, run->nresults + 1,
							sizeof(*run->results));
			run->results[run->nresults++] = r;
			prev = order[i];
			have_prev = true;
			if (!r.ok) {
				run->nfailed++;
				consecutive++;
			} else {
				consecutive = 0;
			}
			if (c.fatal) {
				run->stop = AP_SWEEP_STOP_FATAL;
			} else if (consecutive >= MAX_CONSECUTIVE_FAILURES) {
				ap_error_set(&run->fatal, r.error ? r.error : EIO,
					     "%u steps in a row failed; the last: start %llu: %s: %s",
					     consecutive, (unsigned long long)r.start,
					     ap_sweep_stage_name(r.failed_stage),
					     r.message ? r.message : "failed");
				run->stop = AP_SWEEP_STOP_FATAL;
			}
			if (i + 1 == o->nstarts)
				run->rounds_done = round;
			if (!run->stop && r.ok && flushes_free(run))
				run->stop = AP_SWEEP_STOP_UNMEASURABLE;
			if (!run->stop && (round > o->min_rounds ||
					   (round == o->min_rounds && i + 1 == o->nstarts))) {
				analyse(o, run);
				if (!run->stop && run->verdict_valid &&
				    ap_analysis_is_clear(&run->verdict, &o->analysis))
					run->stop = AP_SWEEP_STOP_CLEAR;
			}
			if (c.interrupted || ap_cancelled(&o->cancel))
				if (!run->stop)
					run->stop = AP_SWEEP_STOP_SIGNAL;
			run->elapsed_ns = ap_now_ns() - run->t0_ns;
			if (o->on_step)
				o->on_step(o->ctx, run, true);
			if (run->stop)
				break;
		}
	}
	if (!run->stop)
		run->stop = AP_SWEEP_STOP_ROUNDS;
	if (run->stop == AP_SWEEP_STOP_SIGNAL)
		run->signo = ap_cancelled(&o->cancel);
	free(order);

	analyse(o, run);
	if ((run->stop == AP_SWEEP_STOP_CLEAR || run->stop == AP_SWEEP_STOP_ROUNDS ||
	     run->stop == AP_SWEEP_STOP_BUDGET) && rmw_buffered(o, run, true))
		run->stop = AP_SWEEP_STOP_UNMEASURABLE;
	/* leave an empty GPT: also after a signal or an error */
	ap_part_wipe(o->disk, &run->wipe_error);
	ap_part_let_go();
	run->elapsed_ns = ap_now_ns() - run->t0_ns;
	return 0;
}

void ap_sweep_run_free(struct ap_sweep_run *run)
{
	size_t i;

	for (i = 0; i < run->nresults; i++)
		ap_sweep_result_free(&run->results[i]);
	free(run->results);
	if (run->verdict_valid)
		ap_verdict_free(&run->verdict);
	if (run->excl_fd >= 0)
		close(run->excl_fd);
	memset(run, 0, sizeof(*run));
	run->excl_fd = -1;
}
