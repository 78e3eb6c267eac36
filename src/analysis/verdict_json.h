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

/*
 * Every level of a resolved @v, ordered by unit: level 0 the physical
 * sector (physical_sector, lowest_aligned_lba, paid on every write, the
 * slowdown when sensitive), then the levels above it (v->levels). Empty
 * when @v is unresolved.
 */
void ap_verdict_levels(const struct ap_verdict *v, struct ap_levels *out);
/*
 * What @v's "no effect" covers: v->ruled_out when stated, else what an
 * older alignprobe's ruled_out_up_to meant (units up to it, timed on
 * rewrites: it wrote every slot many times). up_to 0 when sensitive or
 * nothing was ruled out.
 */
void ap_verdict_ruled_out(const struct ap_verdict *v, struct ap_ruled_out *r);

#endif
