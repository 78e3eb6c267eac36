/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Asking the user before a destructive run, as libfdisk's ask.c: the
 * safety gate never reads the terminal itself; the command installs
 * ap_ui_confirm() in struct ap_safety_opts (.ask) and the gate calls it.
 */
#ifndef AP_CONFIRM_H
#define AP_CONFIRM_H

#include "lib/util.h"

/*
 * The user must type @dev exactly at the prompt (on stderr) for 0; no
 * terminal on stdin, end of input or another answer give -ECANCELED with
 * the reason in @e ("DEV: ..."). @data is unused.
 */
int ap_ui_confirm(const char *dev, void *data, struct ap_error *e);

#endif
