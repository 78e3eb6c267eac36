// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The verdict of `alignprobe smr` (smr.h): from the cheap signals, the
 * rotation and the timed phases; in words and as JSON.
 */
#include "smr/smr.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/rotation.h"

static const char *const keys[] = {
	[AP_SMR_UNKNOWN] = "unknown",
	[AP_SMR_NOT_ROTATING] = "not-applicable",
	[AP_SMR_HOST_MANAGED] = "host-managed",
	[AP_SMR_HOST_AWARE] = "host-aware",
	[AP_SMR_CONVENTIONAL] = "cmr",
	[AP_SMR_PERSISTENT_CACHE] = "dm-smr-or-hybrid",
};

const char *ap_smr_verdict_key(enum ap_smr_verdict v)
{
	return (size_t)v < AP_ARRAY_SIZE(keys) ? keys[v] : "unknown";
}

bool ap_smr_is_shingled(enum ap_smr_verdict v)
{
	return v == AP_SMR_PERSISTENT_CACHE || v == AP_SMR_HOST_MANAGED || v == AP_SMR_HOST_AWARE;
}

int ap_smr_verdict_from_key(const char *key)
{
	size_t i;

	for (i = 0; key && i < AP_ARRAY_SIZE(keys); i++)
		if (strcmp(key, keys[i]) == 0)
			return (int)i;
	return -1;
}

bool ap_smr_decide_signals(struct ap_smr_result *r)
{
	const struct ap_smr_signals *s = &r->sig;

	switch (s->zone_model) {
	case AP_SMR_ZM_HOST_MANAGED:
	case AP_SMR_ZM_HOST_AWARE:
		r->verdict = s->zone_model == AP_SMR_ZM_HOST_MANAGED ? AP_SMR_HOST_MANAGED :
			     AP_SMR_HOST_AWARE;
		r->source = "zone model";
		snprintf(r->reason, sizeof(r->reason), "%s says %s: a zoned (SMR) disk the host "
			 "writes in zones; nothing was written", s->zone_source,
			 ap_smr_verdict_key(r->verdict));
		return true;
	case AP_SMR_ZM_DEVICE_MANAGED:
		r->verdict = AP_SMR_PERSISTENT_CACHE;
		r->source = "drive";
		snprintf(r->reason, sizeof(r->reason), "%s says device-managed: the drive "
			 "itself says it is drive-managed SMR; nothing was written",
			 s->zone_source);
		return true;
	default:
		break;
	}
	if (s->media_rpm == 1) {
		r->verdict = AP_SMR_NOT_ROTATING;
		r->source = "drive";
		snprintf(r->reason, sizeof(r->reason), "does not rotate (SCSI VPD B1h: "
			 "non-rotating medium): not applicable; nothing was written");
		return true;
	}
	return false;
}

bool ap_smr_phase_fast(const struct ap_smr_phase *ph)
{
	return ph->done && ph->n && (double)ph->faster >= AP_SMR_FAST_SHARE * ph->n;
}

/* "%u of %u writes faster than a read a seek away (median write X us, read Y ms)" */
static void phase_says(char *buf, size_t len, const struct ap_smr_phase *ph)
{
	snprintf(buf, len, "%u of %u synchronous random writes over the whole disk came back "
		 "faster than the read a seek away after each (median write %.0f us, read %.1f "
		 "ms)", ph->faster, ph->n, (double)ph->median_ns / 1e3,
		 (double)ph->read_median_ns / 1e6);
}

void ap_smr_decide(struct ap_smr_result *r)
{
	char on[200], off[200];

	r->source = "measured";
	if (r->rotation_measured && r->seek_read_ns < AP_ROTATING_NS) {
		r->verdict = AP_SMR_NOT_ROTATING;
		snprintf(r->reason, sizeof(r->reason), "does not rotate (reads a seek apart took "
			 "%.2f ms): not applicable; nothing was written",
			 (double)r->seek_read_ns / 1e6);
		return;
	}
	if (!r->on.done) {
		r->verdict = AP_SMR_UNKNOWN;
		snprintf(r->reason, sizeof(r->reason), "no timed writes were made");
		return;
	}
	phase_says(on, sizeof(on), &r->on);
	if (r->on.cache_known && !r->on.cache_on)
		r->off = r->on;
	if (!r->off.done) {
		if (!ap_smr_phase_fast(&r->on)) {
			r->verdict = AP_SMR_CONVENTIONAL;
			snprintf(r->reason, sizeof(r->reason), "%s: the writes paid a seek and the "
				 "platter as the reads did; no cache took them", on);
			return;
		}
		r->verdict = AP_SMR_UNKNOWN;
		snprintf(r->reason, sizeof(r->reason), "%s, but the drive's write cache cannot be "
			 "switched off to tell a persistent cache (DM-SMR, hybrid) from a volatile "
			 "one that ignores flushes%s", on, r->cache_switchable ? "" :
			 " (the kernel offers no switch for it)");
		return;
	}
	/* the phase with the cache off decides: only a persistent cache is fast there */
	phase_says(off, sizeof(off), &r->off);
	if (ap_smr_phase_fast(&r->off)) {
		r->verdict = AP_SMR_PERSISTENT_CACHE;
		snprintf(r->reason, sizeof(r->reason), "with the write cache off, %s: a persistent "
			 "media cache took them: drive-managed SMR, or a hybrid disk with a flash "
			 "cache (SSHD)", off);
		return;
	}
	r->verdict = AP_SMR_CONVENTIONAL;
	r->unflushed = r->on.cache_on && ap_smr_phase_fast(&r->on);
	if (r->unflushed)
		snprintf(r->reason, sizeof(r->reason), "with the write cache on, %s; with it off, "
			 "only %u of %u: no persistent cache; the volatile write cache ignores "
			 "flushes (%s)", on, r->off.faster, r->off.n, AP_REMEDY_WCE_OFF);
	else
		snprintf(r->reason, sizeof(r->reason), "with the write cache off, %s: the writes "
			 "paid a seek and the platter as the reads did; no persistent cache took "
			 "them", off);
}

#define say(s, ...) ap_strappendf(s, NULL, __VA_ARGS__)

static const char *const headlines[] = {
	[AP_SMR_UNKNOWN] = "cannot tell",
	[AP_SMR_NOT_ROTATING] = "does not rotate: not applicable",
	[AP_SMR_HOST_MANAGED] = "host-managed zoned disk (SMR)",
	[AP_SMR_HOST_AWARE] = "host-aware zoned disk (SMR)",
	[AP_SMR_CONVENTIONAL] = "conventional (CMR): no persistent media cache",
	[AP_SMR_PERSISTENT_CACHE] = "persistent media cache: drive-managed SMR or hybrid (SSHD)",
};

char *ap_smr_words(const char *dev, const struct ap_smr_result *r)
{
	char *s = NULL;
	size_t i;

	say(&s, "%s: %s\n  %s.\n", dev, headlines[r->verdict], r->reason);
	if (r->on.done)
		say(&s, "  Writes with the write cache %s: median %.3f ms (10%%: %.3f, 90%%: "
			"%.3f); %u of %u faster than their read (median %.3f ms).\n",
			r->on.cache_known ? (r->on.cache_on ? "on" : "off") : "as found",
			(double)r->on.median_ns / 1e6, (double)r->on.p10_ns / 1e6,
			(double)r->on.p90_ns / 1e6, r->on.faster, r->on.n,
			(double)r->on.read_median_ns / 1e6);
	if (r->off.done && r->off.median_ns != r->on.median_ns)
		say(&s, "  Writes with the write cache off: median %.3f ms (10%%: %.3f, 90%%: "
			"%.3f); %u of %u faster than their read (median %.3f ms); the cache "
			"restored after.\n", (double)r->off.median_ns / 1e6,
			(double)r->off.p10_ns / 1e6, (double)r->off.p90_ns / 1e6, r->off.faster,
			r->off.n, (double)r->off.read_median_ns / 1e6);
	if (r->preserved)
		say(&s, "  Data preserved: %s.\n", r->restored ? "every byte written was put "
			"back" : "see the journal");
	if (r->deep.asked) {
		char *d = ap_smr_deep_words(&r->deep);

		say(&s, "%s", d);
		free(d);
	}
	say(&s, "Signals (nothing written):\n");
	for (i = 0; i < r->sig.n; i++) {
		const struct ap_smr_signal *g = &r->sig.sig[i];

		say(&s, "  %-30s %s", g->name, g->value);
		if (g->available)
			say(&s, ": proves %s; not %s", g->proves, g->not_proves);
		say(&s, "\n");
	}
	return s;
}

char *ap_smr_plan_words(const char *dev, const struct ap_smr_plan *p, const char *journal,
			const char *cache)
{
	char *s = NULL;

	say(&s, "%s: would time %u synchronous writes of %u bytes, one every %llu MiB from "
		"byte %llu, in a random order, with the write cache as found", dev, p->slots,
		p->span, (unsigned long long)(p->stride >> 20),
		(unsigned long long)p->region_start);
	say(&s, "; if they are faster than a seek, %u more with the write cache off (%s), "
		"restored after.\n", p->slots, cache ? cache : "if it can be switched");
	if (journal)
		say(&s, "  Preserving: the original bytes go into the undo journal %s first "
			"(%u records), and every write writes them back.\n", journal, p->slots);
	else
		say(&s, "  Destructive: %u places of %u bytes are overwritten with a pattern.\n",
			p->slots, p->span);
	return s;
}

static struct json_object *phase_json(const struct ap_smr_phase *ph)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "writes", json_object_new_int64(ph->n));
	json_object_object_add(o, "write_cache", ph->cache_known ?
			       json_object_new_string(ph->cache_on ? "on" : "off") : NULL);
	json_object_object_add(o, "median_ns", json_object_new_int64((int64_t)ph->median_ns));
	json_object_object_add(o, "p10_ns", json_object_new_int64((int64_t)ph->p10_ns));
	json_object_object_add(o, "p90_ns", json_object_new_int64((int64_t)ph->p90_ns));
	json_object_object_add(o, "read_median_ns",
			       json_object_new_int64((int64_t)ph->read_median_ns));
	json_object_object_add(o, "faster_than_read", json_object_new_int64(ph->faster));
	return o;
}
/* A cheap signal as JSON: its name, what it said, and what that proves and does not. */
static struct json_object *signal_json(const struct ap_smr_signal *g)
{
	struct json_object *x = json_object_new_object();

	json_object_object_add(x, "name", json_object_new_string(g->name));
	json_object_object_add(x, "value", json_object_new_string(g->value));
	json_object_object_add(x, "available", json_object_new_boolean(g->available));
	json_object_object_add(x, "proves", json_object_new_string(g->proves));
	json_object_object_add(x, "does_not_prove", json_object_new_string(g->not_proves));
	return x;
}


struct json_object *ap_smr_to_json(const char *dev, const struct ap_smr_result *r)
{
	struct json_object *o = json_object_new_object(), *sigs = json_object_new_array();
	size_t i;

	json_object_object_add(o, "device", json_object_new_string(dev));
	json_object_object_add(o, "verdict", json_object_new_string(ap_smr_verdict_key(r->verdict)));
	json_object_object_add(o, "smr", json_object_new_boolean(ap_smr_is_shingled(r->verdict)));
	json_object_object_add(o, "source", r->source ? json_object_new_string(r->source) : NULL);
	json_object_object_add(o, "reason", json_object_new_string(r->reason));
	json_object_object_add(o, "seek_read_ns", r->rotation_measured ?
			       json_object_new_int64((int64_t)r->seek_read_ns) : NULL);
	json_object_object_add(o, "cache_on", r->on.done ? phase_json(&r->on) : NULL);
	json_object_object_add(o, "cache_off", r->off.done ? phase_json(&r->off) : NULL);
	json_object_object_add(o, "flushes_ignored", json_object_new_boolean(r->unflushed));
	json_object_object_add(o, "wrote", json_object_new_boolean(r->wrote));
	json_object_object_add(o, "preserved", json_object_new_boolean(r->preserved));
	json_object_object_add(o, "deep", r->deep.asked ? ap_smr_deep_to_json(&r->deep) : NULL);
	for (i = 0; i < r->sig.n; i++)
		json_object_array_add(sigs, signal_json(&r->sig.sig[i]));
	json_object_object_add(o, "signals", sigs);
	return o;
}
