/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SIGINT, SIGTERM and SIGHUP: record the signal, let the long-running loops
 * notice it, clean up, print what they have, and exit 128+signo.
 */
#ifndef AP_SIG_H
#define AP_SIG_H

#include <stdbool.h>

#include "lib/cancel.h"

/* Install the handlers (no SA_RESTART: blocking calls return EINTR). */
void ap_sig_install(void);
/* The first signal received since install, or 0. */
int ap_sig_pending(void);
/* Clear it (tests). */
void ap_sig_reset(void);
/* The struct ap_cancel a command hands to the engines: ap_sig_pending(). */
extern const struct ap_cancel ap_sig_cancel;

#endif
