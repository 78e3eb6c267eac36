/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Private to the postmark modules (pm_*.c): helpers shared between the
 * parser, the engine and the report, exposed for the unit tests.
 */
#ifndef AP_PM_P_H
#define AP_PM_P_H

#include <stddef.h>
#include <stdint.h>

#include "workload/pm.h"

/* PostMark's scale(): an integer size as "N bytes" / "%.2f kilobytes" /
 * "%.2f megabytes" (show). */
void ap_pm_scale(char *buf, size_t len, uint64_t v);
/* PostMark's scalef(): a float byte total, exactly as PostMark prints it. */
void ap_pm_scalef(char *buf, size_t len, float v);
/* The same rule for an exact value (rates). */
void ap_pm_scaled(char *buf, size_t len, double v);

/*
 * A configuration error at @file:@lineno into @e: "file:line: msg", or
 * "line N: msg" without a file, or "msg" without either (the parser's
 * messages, also for the file loader in pm_load.c). Returns -@code.
 */
int ap_pm_error_at(struct ap_error *e, const char *file, unsigned lineno, int code,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
