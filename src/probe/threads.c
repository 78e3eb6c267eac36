// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One probe thread per device behind a start gate (see threads.h).
 */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "lib/cancel.h"
#include "lib/util.h"
#include "probe/threads.h"

/* The start gate: open once every started device is ready or has failed. */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_cond_t finished;	/* a thread has finished: the watcher looks */
	size_t waiting;		/* started devices neither ready nor finished */
	uint64_t opened_ns;
} gate = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER,
	   0, 0 };

/* CLOCK_REALTIME 100 ms from now: the longest a waiter sleeps before it looks again. */
static struct timespec tenth_from_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 100 * 1000 * 1000;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

/* One device no longer holds the gate closed (locked by the caller). */
static void gate_leave_locked(void)
{
	if (gate.waiting && --gate.waiting == 0) {
		gate.opened_ns = ap_now_ns();
		pthread_cond_broadcast(&gate.cond);
	}
}

static uint64_t gate_pass(void *arg)
{
	struct ap_probe_thread *j = arg;
	uint64_t t;

	pthread_mutex_lock(&gate.lock);
	j->passed_gate = true;
	gate_leave_locked();
	while (gate.waiting && !ap_cancelled(&j->o->cancel)) {
		/* wake up now and then: a cancellation (a signal, for the
		 * commands) ends the wait, and the probe */
		struct timespec ts = tenth_from_now();

		pthread_cond_timedwait(&gate.cond, &gate.lock, &ts);
	}
	t = gate.waiting ? 0 : gate.opened_ns;
	pthread_mutex_unlock(&gate.lock);
	return t;
}

static void *job_thread(void *arg)
{
	struct ap_probe_thread *j = arg;

	j->o->ready = gate_pass;
	j->o->ready_arg = j;
	j->rc = ap_probe_device(j->d, j->o, j->r, j->e);
	pthread_mutex_lock(&gate.lock);
	if (!j->passed_gate)
		gate_leave_locked();	/* failed before measuring */
	__atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&gate.finished);
	pthread_mutex_unlock(&gate.lock);
	return NULL;
}

void ap_probe_threads_expect(size_t n)
{
	gate.waiting = n;
}

void ap_probe_thread_start(struct ap_probe_thread *t)
{
	if (pthread_create(&t->th, NULL, job_thread, t) != 0) {
		t->rc = ap_error_set(t->e, EAGAIN, "cannot start a thread");
		pthread_mutex_lock(&gate.lock);
		gate_leave_locked();
		pthread_mutex_unlock(&gate.lock);
		t->done = 1;
		return;
	}
	t->started = true;
}

bool ap_probe_thread_done(const struct ap_probe_thread *t)
{
	return __atomic_load_n(&t->done, __ATOMIC_ACQUIRE);
}

void ap_probe_thread_join(struct ap_probe_thread *t)
{
	if (t->started)
		pthread_join(t->th, NULL);
}

void ap_probe_threads_run(struct ap_probe_thread *const *t, size_t n,
			  void (*tick)(void *arg, const struct ap_probe_threads_live *l),
			  void *arg)
{
	size_t i;

	ap_probe_threads_expect(n);
	for (i = 0; i < n; i++)
		ap_probe_thread_start(t[i]);
	for (;;) {
		struct ap_probe_threads_live l = { 0 };
		struct timespec ts;
		size_t ndone;

		for (i = 0; i < n; i++) {
			l.ops += t[i]->r->live_ops;
			if (ap_probe_thread_done(t[i])) {
				l.ndone++;
			} else {
				l.size = t[i]->r->live_size;
				l.round = t[i]->r->live_round;
			}
		}
		if (l.ndone == n)
			break;
		if (tick)
			tick(arg, &l);
		/*
		 * Ten looks a second for the progress line, and one as soon as a
		 * thread finishes: a probe's result is not kept waiting for the
		 * next tick (50 ms a run on average).
		 */
		ts = tenth_from_now();
		pthread_mutex_lock(&gate.lock);
		for (ndone = 0, i = 0; i < n; i++)
			ndone += ap_probe_thread_done(t[i]);
		if (ndone == l.ndone)
			pthread_cond_timedwait(&gate.finished, &gate.lock, &ts);
		pthread_mutex_unlock(&gate.lock);
	}
	for (i = 0; i < n; i++)
		ap_probe_thread_join(t[i]);
}
