/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The stable JSON "verdict" object (see README and alignprobe(8)) of a
 * struct ap_verdict, and back (sweep --replay, check --geometry, the
 * verdict store).
 */
#ifndef AP_ANALYSIS_VERDICT_JSON_H
#define AP_ANALYSIS_VERDICT_JSON_H

#include "analysis/analysis.h"

struct json_object;

struct json_object *ap_verdict_to_json(const struct ap_verdict *v);
/* 0, or -EINVAL when @o is not a valid verdict object (@v then freed). */
int ap_verdict_from_json(struct json_object *o, struct ap_verdict *v);

#endif
