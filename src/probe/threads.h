/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Probes of several devices side by side: one thread per device behind a
 * start gate, so that no device's timed writes begin before every device
 * is ready or has failed (the disks of a JBOD are measured together,
 * whatever each one's preparation costs: identity, journal, originals).
 * One set of threads at a time.
 */
#ifndef AP_PROBE_THREADS_H
#define AP_PROBE_THREADS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "probe/probe.h"

struct ap_probe_thread {
	/* given: what ap_probe_device() runs on */
	struct ap_probe_dev *d;
	struct ap_probe_opts *o;	/* its ready hook is the gate's */
	struct ap_probe_result *r;
	struct ap_error *e;
	/* found */
	int rc;			/* ap_probe_device()'s, or -EAGAIN: no thread */
	bool started;		/* a thread ran it (join it) */
	bool passed_gate;
	volatile int done;	/* ap_probe_thread_done() */
	pthread_t th;
};

/* The gate waits for @n threads (before the first ap_probe_thread_start()). */
void ap_probe_threads_expect(size_t n);
/* Start @t's probe on its own thread: a thread that cannot start is done, with t->rc. */
void ap_probe_thread_start(struct ap_probe_thread *t);
/* Whether @t's probe has ended (t->rc, *t->r are then final). */
bool ap_probe_thread_done(const struct ap_probe_thread *t);
void ap_probe_thread_join(struct ap_probe_thread *t);

/* What the probes running side by side have done so far. */
struct ap_probe_threads_live {
	uint64_t ops;		/* timed operations, over every device */
	uint64_t size;		/* a running probe's size (0: still reading) */
	unsigned round;		/* its round, from 0 */
	size_t ndone;		/* probes that have ended */
};

/*
 * Start the @n probes @t (ap_probe_threads_expect() included), call @tick
 * (may be NULL) every 100 ms with what they have done until every one has
 * ended, then join them.
 */
void ap_probe_threads_run(struct ap_probe_thread *const *t, size_t n,
			  void (*tick)(void *arg, const struct ap_probe_threads_live *l),
			  void *arg);

#endif
