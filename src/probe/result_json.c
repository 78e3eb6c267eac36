// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A probe's result as JSON and its samples as CSV (see prepare.h): what
 * --json and --samples write per device; `verdicts merge` reads the JSON
 * back (fleet/vresult.c).
 */
#include "probe/prepare.h"

#include <inttypes.h>
#include <json-c/json.h>

#include "analysis/verdict_json.h"
#include "device/identity.h"

/* What the measurement's checks of its own assumptions measured, and the one that failed. */
static struct json_object *checks_json(const struct ap_probe_result *r)
{
	static const char *const failed[] = {
		[AP_PROBE_OK] = NULL,
		[AP_PROBE_FLUSH_IGNORED] = "flush_ignored",
		[AP_PROBE_LEAD_IN_BUFFERED] = "lead_in_buffered",
		[AP_PROBE_RMW_BUFFERED] = "rmw_buffered",
	};
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "rotating", json_object_new_boolean(r->rotating));
	json_object_object_add(o, "seek_read_us", r->seek_read_ns ?
			       json_object_new_double((double)r->seek_read_ns / 1e3) : NULL);
	json_object_object_add(o, "write_us", r->write_ns ?
			       json_object_new_double((double)r->write_ns / 1e3) : NULL);
	json_object_object_add(o, "lead_ins", json_object_new_int64((int64_t)r->lead_ins));
	json_object_object_add(o, "lead_ins_buffered",
			       json_object_new_int64((int64_t)r->lead_in_hits));
	json_object_object_add(o, "failed", failed[r->failed] ?
			       json_object_new_string(failed[r->failed]) : NULL);
	json_object_object_add(o, "cause", r->failed ? json_object_new_string(r->cause) : NULL);
	return o;
}

static struct json_object *size_json(const struct ap_probe_size *sz, bool deciding,
				     bool confirming)
{
	struct json_object *so = json_object_new_object();

	json_object_object_add(so, "size", json_object_new_int64((int64_t)sz->size));
	json_object_object_add(so, "offsets", json_object_new_int64(sz->noffsets));
	json_object_object_add(so, "rounds", json_object_new_int64(sz->rounds));
	json_object_object_add(so, "n", json_object_new_int64((int64_t)sz->n));
	json_object_object_add(so, "clear", json_object_new_boolean(sz->clear));
	json_object_object_add(so, "deciding", json_object_new_boolean(deciding));
	json_object_object_add(so, "confirming", json_object_new_boolean(confirming));
	json_object_object_add(so, "screen_unit", json_object_new_boolean(sz->hyp));
	json_object_object_add(so, "seconds", json_object_new_double(
		(double)(sz->t_end_ns - sz->t_start_ns) / 1e9));
	json_object_object_add(so, "verdict", sz->analysed ?
			       ap_verdict_to_json(&sz->verdict) : NULL);
	return so;
}

static struct json_object *sizes_json(const struct ap_probe_result *r)
{
	struct json_object *sizes = json_object_new_array();
	size_t i;

	for (i = 0; i < r->nsizes; i++)
		json_object_array_add(sizes, size_json(&r->sizes[i], (int)i == r->decided,
						       (int)i == r->confirmed));
	return sizes;
}

/* The first-write step (fresh.c): what it measured; null when it did not. */
static struct json_object *first_writes_json(const struct ap_probe_result *r)
{
	const struct ap_probe_first *f = &r->fw;
	struct json_object *o;

	if (!f->measured)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "windows", json_object_new_int64(f->windows));
	json_object_object_add(o, "ratio", json_object_new_double(f->ratio));
	json_object_object_add(o, "p_value", json_object_new_double(f->p_effect));
	json_object_object_add(o, "equivalence_p_value", json_object_new_double(f->p_absent));
	json_object_object_add(o, "absence_margin", json_object_new_double(f->margin));
	json_object_object_add(o, "effect", json_object_new_boolean(f->effect));
	json_object_object_add(o, "ruled_out", json_object_new_boolean(f->absent));
	json_object_object_add(o, "unit", f->resolved ?
			       json_object_new_int64((int64_t)f->unit) : NULL);
	json_object_object_add(o, "lowest_aligned_lba", f->resolved ?
			       json_object_new_int64((int64_t)f->lba) : NULL);
	json_object_object_add(o, "unit_ratio", f->unit ?
			       json_object_new_double(f->unit_ratio) : NULL);
	json_object_object_add(o, "fresh_batch_ratio", f->again > 0 ?
			       json_object_new_double(f->again) : NULL);
	json_object_object_add(o, "unresolved", f->why[0] ? json_object_new_string(f->why) : NULL);
	json_object_object_add(o, "units_up_to", json_object_new_int64(
			       (int64_t)r->plan.fw_claim_max));
	json_object_object_add(o, "resolves_up_to", json_object_new_int64(
			       (int64_t)r->plan.fw_unit_max));
	json_object_object_add(o, "scanned_bytes", json_object_new_int64((int64_t)f->scanned));
	json_object_object_add(o, "written_bytes", json_object_new_int64((int64_t)f->written));
	json_object_object_add(o, "operations", json_object_new_int64((int64_t)f->n));
	json_object_object_add(o, "seconds", json_object_new_double((double)f->ns / 1e9));
	return o;
}

/* The stripe step (stripe.c): what it measured; null when it did not run. */
static struct json_object *stripes_json(const struct ap_probe_result *r)
{
	const struct ap_probe_stripe *t = &r->st;
	struct json_object *o;

	if (!t->measured)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "found", json_object_new_boolean(t->found));
	json_object_object_add(o, "unit", t->found ? json_object_new_int64((int64_t)t->unit) : NULL);
	json_object_object_add(o, "lowest_aligned_lba", t->found ?
			       json_object_new_int64((int64_t)t->lba) : NULL);
	json_object_object_add(o, "ratio", t->found ? json_object_new_double(t->ratio) : NULL);
	json_object_object_add(o, "p_value", t->found ? json_object_new_double(t->p) : NULL);
	json_object_object_add(o, "candidates", json_object_new_int64(t->candidates));
	json_object_object_add(o, "not_confirmed", t->why[0] ? json_object_new_string(t->why) : NULL);
	json_object_object_add(o, "widths_up_to", json_object_new_int64((int64_t)t->covered));
	json_object_object_add(o, "written_bytes", json_object_new_int64((int64_t)t->written));
	json_object_object_add(o, "operations", json_object_new_int64((int64_t)t->n));
	json_object_object_add(o, "seconds", json_object_new_double((double)t->ns / 1e9));
	return o;
}

static struct json_object *preserve_json(const struct ap_probe_dev *d)
{
	struct json_object *p = json_object_new_object();

	json_object_object_add(p, "journal", d->journal ? json_object_new_string(d->journal) : NULL);
	json_object_object_add(p, "records", json_object_new_int64((int64_t)d->restore.records));
	json_object_object_add(p, "rewritten", json_object_new_int64((int64_t)d->restore.restored));
	json_object_object_add(p, "verified", json_object_new_boolean(d->restored));
	json_object_object_add(p, "journal_kept", json_object_new_boolean(d->journal_kept));
	return p;
}

double ap_probe_result_seconds(const struct ap_probe_result *r)
{
	return r->end_ns > r->start_ns ? (double)(r->end_ns - r->start_ns) / 1e9 : 0;
}

struct json_object *ap_probe_result_to_json(const char *dev, bool emulated,
					    const struct ap_probe_dev *d,
					    const struct ap_probe_result *r,
					    struct json_object *next_steps,
					    struct json_object *results, const char *error)
{
	struct json_object *o = json_object_new_object();
	const char *mode = r->mode == AP_PROBE_PRESERVE ? "preserve" :
			   r->mode == AP_PROBE_READONLY ? "read-only" : "destructive";

	json_object_object_add(o, "device", json_object_new_string(dev));
	json_object_object_add(o, "verdict", ap_verdict_to_json(&r->verdict));
	json_object_object_add(o, "clear", json_object_new_boolean(r->clear));
	json_object_object_add(o, "unclear_reason", r->clear || !r->unclear[0] ? NULL :
			       json_object_new_string(r->unclear));
	json_object_object_add(o, "mode", json_object_new_string(mode));
	json_object_object_add(o, "emulated", json_object_new_boolean(emulated));
	json_object_object_add(o, "identity", ap_identity_to_json(&d->id));
	json_object_object_add(o, "next_steps", next_steps);
	json_object_object_add(o, "results", results);
	json_object_object_add(o, "sizes", sizes_json(r));
	/* the phase screen that handed its unit over to the sizes (in sizes when it decided) */
	json_object_object_add(o, "phase_screen", r->screen.size ?
			       size_json(&r->screen, false, r->screen_confirms) : NULL);
	json_object_object_add(o, "first_writes", first_writes_json(r));
	json_object_object_add(o, "stripes", stripes_json(r));
	json_object_object_add(o, "operations", json_object_new_int64((int64_t)r->nsamples));
	/* monotonic clock: comparable between the devices of one call */
	json_object_object_add(o, "start_ns", json_object_new_int64((int64_t)r->start_ns));
	json_object_object_add(o, "end_ns", json_object_new_int64((int64_t)r->end_ns));
	json_object_object_add(o, "seconds", json_object_new_double(ap_probe_result_seconds(r)));
	json_object_object_add(o, "interrupted", json_object_new_boolean(r->interrupted != 0));
	json_object_object_add(o, "budget_exhausted", json_object_new_boolean(r->budget_out));
	json_object_object_add(o, "region_start", json_object_new_int64((int64_t)r->plan.region_start));
	json_object_object_add(o, "region_size", json_object_new_int64((int64_t)r->plan.region_size));
	json_object_object_add(o, "slots", json_object_new_int64(r->plan.slots));
	json_object_object_add(o, "checks", checks_json(r));
	if (r->mode == AP_PROBE_PRESERVE)
		json_object_object_add(o, "preserve", preserve_json(d));
	if (error)
		json_object_object_add(o, "error", json_object_new_string(error));
	return o;
}

void ap_probe_samples_csv(FILE *f, const char *dev, const struct ap_probe_result *r)
{
	size_t k;

	for (k = 0; k < r->nsamples; k++) {
		const struct ap_probe_sample *s = &r->samples[k];

		fprintf(f, "%s,%" PRIu64 ",%u,%u,%u,%" PRIu64 "\n", dev, s->size, s->offset,
			s->round, s->slot, s->ns);
	}
}
