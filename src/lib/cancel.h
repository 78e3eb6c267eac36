/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Cancellation for library code: an engine (sweep, probe, seq, the
 * workload, mkfs, the emulator) takes a struct ap_cancel in its options and
 * asks ap_cancelled() between steps, instead of reading process-global
 * signal state. The command installs one that asks lib/sig.c
 * (ap_sig_cancel); a test or an embedding program installs its own (a
 * counter, a deadline) and needs no signals. An empty struct never cancels.
 *
 * The callback returns the signal number (or any positive reason) that
 * cancels the work, 0 to go on; engines report it as they reported
 * ap_sig_pending() before (exit 128 + N in the commands).
 */
#ifndef AP_LIB_CANCEL_H
#define AP_LIB_CANCEL_H

#include <stddef.h>

struct ap_cancel {
	int (*fn)(void *arg);
	void *arg;
};

/* 0 to go on, else the reason (a signal number for ap_sig_cancel). */
static inline int ap_cancelled(const struct ap_cancel *c)
{
	return c && c->fn ? c->fn(c->arg) : 0;
}

#endif
