/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Private to the postmark modules (pm_*.c): helpers shared between the
 * parser, the engine and the report, exposed for the unit tests.
 */
#ifndef AP_PM_INT_H
#define AP_PM_INT_H

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

#endif
