// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The probe's options and plan (see probe.h): the write sizes, the region
 * and its slots, and the ranges the plan never writes.
 */
#include "probe/probe.h"

#include <errno.h>
#include <string.h>

#define KiB 1024ULL
#define MiB (1024ULL * 1024)
#define GiB (1024ULL * 1024 * 1024)

void ap_probe_opts_init(struct ap_probe_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->mode = AP_PROBE_DESTRUCTIVE;
	o->min_size = 4 * KiB;
	o->max_size = AP_PROBE_MAX_SIZE_DEFAULT;
	o->region_start = AP_PROBE_ALIGN;
	o->slots = 128;
	o->min_rounds = 3;
	o->max_rounds = 40;
	o->seed = 1;
	o->confirm = true;
	o->phase_screen = true;
	o->first_writes = true;
	o->stripes = true;
	/*
	 * A misaligned synchronous write on a disk costs at least one extra
	 * media access (a read-modify-write): below 1.5x alignment "matters a
	 * little" (the wording). Flash costs only 1.1-1.5x, so it is not the
	 * margin of "no effect": that is absence_margin.
	 */
	o->min_slowdown = 1.5;
	o->absence_margin = AP_PROBE_ABSENCE_MARGIN;
}

/* ------------------------------------------------------------------ */
/* the plan */

/* @x rounded up to a multiple of @a */
static uint64_t round_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) / a * a;
}

/* The largest power of two at most @x (@x > 0). */
static uint64_t pow2_floor(uint64_t x)
{
	uint64_t p = 1;

	while (p <= x / 2)
		p *= 2;
	return p;
}

/* The sizes of the timed rewrites: powers of two up to AP_PROBE_STEADY_MAX of --max-size. */
static uint64_t steady_max(const struct ap_probe_opts *o)
{
	return pow2_floor(o->max_size < AP_PROBE_STEADY_MAX ? o->max_size : AP_PROBE_STEADY_MAX);
}

/* --min-size and --max-size for @logical-byte sectors: 0 or -EINVAL with @e. */
static int check_sizes(const struct ap_probe_opts *o, unsigned logical, struct ap_error *e)
{
	if (!ap_is_power_of_2(o->min_size) || o->min_size > steady_max(o))
		return ap_error_set(e, EINVAL, "write sizes must be powers of two with "
				    "--min-size <= --max-size");
	if (o->max_size > AP_PROBE_MAX_SIZE_LIMIT)
		return ap_error_set(e, EINVAL, "--max-size %llu: at most 64 MiB",
				    (unsigned long long)o->max_size);
	if (o->max_size % logical)
		return ap_error_set(e, EINVAL, "--max-size %llu: not a multiple of the logical "
				    "sector (%u bytes)", (unsigned long long)o->max_size, logical);
	if (o->max_size < 2ULL * logical)
		return ap_error_set(e, EINVAL, "--max-size must be at least two logical sectors "
				    "(%u bytes)", 2 * logical);
	return 0;
}

int ap_probe_plan(const struct ap_probe_opts *o, uint64_t dev_size, unsigned logical,
		  struct ap_probe_plan *plan, struct ap_error *e)
{
	uint64_t s, kmax, span, slot_min, start, end, size, align, lo, hi, smax;
	unsigned n;
	int rc;

	memset(plan, 0, sizeof(*plan));
	if (!logical || !ap_is_power_of_2(logical) || logical < 512)
		return ap_error_set(e, EINVAL, "unsupported logical sector size %u", logical);
	if ((rc = check_sizes(o, logical, e)))
		return rc;
	if (!o->slots || !o->max_rounds || o->min_rounds > o->max_rounds)
		return ap_error_set(e, EINVAL, "bad slot or round counts");
	smax = steady_max(o);

	plan->logical_sector = logical;
	plan->reported_physical = logical;
	plan->dev_size = dev_size;
	plan->max_unit = o->max_size;
	/* a size must be able to show a period of at least 2 logical sectors */
	for (s = o->min_size < 2ULL * logical ? 2ULL * logical : o->min_size;
	     s <= smax && plan->nsizes < AP_PROBE_MAX_SIZES; s *= 2)
		plan->sizes[plan->nsizes++] = s;

	kmax = 2 * smax / logical;
	span = (kmax - 1) * logical + smax;
	span = round_up(span, 4096);
	plan->span = span;
	/*
	 * Each slot's journal record keeps a margin of the largest size on
	 * both sides of what the probe writes (see struct ap_probe_plan): the
	 * writes start that far into the record, still on a multiple of the
	 * largest size (offset k == LBA mod P).
	 */
	plan->margin = smax;
	slot_min = round_up(span + 2 * plan->margin, smax);

	lo = 34ULL * logical;
	hi = dev_size > 33ULL * logical ? dev_size - 33ULL * logical : 0;
	start = o->region_start;
	if (start % smax || start % logical)
		return ap_error_set(e, EINVAL, "the region start (%llu) must be a multiple of "
				    "the largest write size (%llu)", (unsigned long long)start,
				    (unsigned long long)smax);
	if (!o->allow_metadata && start < lo)
		return ap_error_set(e, EPERM, "the region start %llu lies in LBA 0..33 (the "
				    "partition table); use --allow-metadata-area to write there",
				    (unsigned long long)start);
	end = o->allow_metadata ? dev_size : hi;
	if (o->region_size) {
		/* without overflow: a size near 2^64 must not wrap past the check */
		if (o->region_size > dev_size || start > dev_size - o->region_size)
			return ap_error_set(e, ENOSPC, "the region (%llu bytes from %llu) runs "
					    "past the end of the device (%llu bytes)",
					    (unsigned long long)o->region_size,
					    (unsigned long long)start,
					    (unsigned long long)dev_size);
		if (o->region_size > end || start > end - o->region_size)
			return ap_error_set(e, EPERM, "the region reaches into the last 33 sectors "
					    "(the backup GPT); use --allow-metadata-area to write "
					    "there");
		size = o->region_size;
	} else {
		size = end > start ? end - start : 0;
		if (size > GiB)
			size = GiB;
	}
	if (size < slot_min)
		return ap_error_set(e, ENOSPC, "the device is too small for the probe: %llu "
				    "bytes needed from offset %llu, %llu available",
				    (unsigned long long)slot_min, (unsigned long long)start,
				    (unsigned long long)size);
	/*
	 * Slots on 1 MiB boundaries when the region allows a few of them, so
	 * that even units larger than the largest size keep one phase in
	 * every slot (they then show as "larger than"), else on multiples of
	 * the largest size.
	 */
	align = round_up(slot_min, AP_PROBE_ALIGN);
	if (size / align < 8)
		align = slot_min;
	n = o->slots;
	if (size / align < n)
		n = (unsigned)(size / align);
	plan->slots = n;
	plan->stride = size / n / align * align;
	plan->region_start = start;
	plan->region_size = size;
	rc = ap_probe_plan_fresh(o, plan, e);
	return rc ? rc : ap_probe_plan_stripe(o, plan, e);
}

uint64_t ap_probe_slot_offset(const struct ap_probe_plan *plan, uint64_t slot)
{
	return plan->region_start + slot * plan->stride + plan->margin;
}

uint64_t ap_probe_record_len(const struct ap_probe_plan *plan)
{
	return plan->span + 2 * plan->margin;
}

void ap_probe_journal_plan(const struct ap_probe_plan *plan, bool allow_metadata,
			   struct ap_journal_plan *jp)
{
	memset(jp, 0, sizeof(*jp));
	jp->region_start = plan->region_start;
	jp->region_size = plan->region_size;
	jp->stride = plan->stride;
	jp->slots = plan->slots;
	jp->span = (uint32_t)ap_probe_record_len(plan);
	jp->margin = (uint32_t)plan->margin;
	jp->allow_metadata = allow_metadata;
}

size_t ap_probe_lead_in_len(const struct ap_probe_plan *plan)
{
	return plan->logical_sector < 4096 ? 4096 : plan->logical_sector;
}

void ap_probe_lead_in(const struct ap_probe_plan *plan, uint64_t off, uint64_t len,
		      uint64_t *at, size_t *n)
{
	uint64_t lss = plan->logical_sector, maxs = plan->nsizes ? plan->sizes[plan->nsizes - 1] : 0;

	*n = ap_probe_lead_in_len(plan);
	*at = off + len + 2 * maxs + AP_PROBE_LEAD_IN_AHEAD;
	if (!lss || *at + *n > plan->dev_size) {
		*at = 0;
		*n = 0;
	}
}

void ap_probe_lead_in_before(const struct ap_probe_plan *plan, uint64_t off, uint64_t len,
			     uint64_t *at, size_t *n)
{
	uint64_t maxs = plan->nsizes ? plan->sizes[plan->nsizes - 1] : 0;
	uint64_t gap = maxs + AP_PROBE_LEAD_IN_AHEAD + ap_probe_lead_in_len(plan);

	if (!plan->logical_sector || off < gap) {
		ap_probe_lead_in(plan, off, len, at, n);	/* no room before it */
		return;
	}
	*n = ap_probe_lead_in_len(plan);
	*at = off - gap;
}

unsigned ap_probe_noffsets(const struct ap_probe_plan *plan, uint64_t size)
{
	return (unsigned)(2 * size / plan->logical_sector);
}

size_t ap_probe_untouched(const struct ap_probe_plan *plan, struct ap_identity_content *r,
			  size_t max)
{
	uint64_t lss = plan->logical_sector ? plan->logical_sector : 512, end, from;
	size_t n = 0;

	memset(r, 0, max * sizeof(*r));
	if (!plan->slots)
		return 0;
	/* before the region */
	end = plan->region_start < AP_PROBE_UNTOUCHED_MAX ? plan->region_start :
	      AP_PROBE_UNTOUCHED_MAX;
	end -= end % lss;
	if (end && n < max) {
		r[n].offset = 0;
		r[n].length = end;
		n++;
	}
	/* after the last slot's record (its margin: a torn write may reach it) */
	from = plan->region_start + (uint64_t)(plan->slots - 1) * plan->stride +
	       ap_probe_record_len(plan);
	from = round_up(from, lss);
	if (plan->dev_size > AP_PROBE_UNTOUCHED_MAX &&
	    from < plan->dev_size - AP_PROBE_UNTOUCHED_MAX)
		from = plan->dev_size - AP_PROBE_UNTOUCHED_MAX;
	from = round_up(from, lss);
	if (from < plan->dev_size && n < max) {
		r[n].offset = from;
		r[n].length = (plan->dev_size - from) / lss * lss;
		if (r[n].length)
			n++;
	}
	return n;
}

/* ---- the first-write step's layout (fresh.c measures it) ---- */

static uint64_t round_down(uint64_t x, uint64_t a)
{
	return x / a * a;
}

/* The largest unit a destructive layout of @avail bytes resolves with @g-byte writes. */
static uint64_t destructive_unit_max(uint64_t avail, uint64_t g)
{
	uint64_t per = avail / AP_FW_MIN_WINDOWS;	/* a window's pitch: 8 U + 5 G */

	return per > 5 * g ? round_down((per - 5 * g) / 8, g) : 0;
}

int ap_probe_plan_fresh(const struct ap_probe_opts *o, struct ap_probe_plan *p,
			struct ap_error *e)
{
	uint64_t g = p->logical_sector > 4 * KiB ? p->logical_sector : 4 * KiB;
	uint64_t rec = ap_probe_record_len(p), avail, umax, wn;
	char b1[32], b2[32];

	if (o->mode == AP_PROBE_READONLY || !p->slots)
		return 0;
	p->fw_granule = g;
	avail = (uint64_t)(p->slots - 1) * p->stride + rec;
	umax = round_down(o->max_size, g);
	if (o->mode == AP_PROBE_PRESERVE) {
		/*
		 * The slots' records, which the journal holds: the scan takes
		 * 2 U + G of a record, the boundary after it U + G more.
		 */
		uint64_t fits = rec > 2 * g ? round_down((rec - 2 * g) / 3, g) : 0;

		if (p->slots < AP_FW_MIN_WINDOWS)
			return 0;
		p->fw_windows = p->slots < AP_FW_WINDOWS ? p->slots : AP_FW_WINDOWS;
		if (p->region_start % g || p->stride % g)
			return 0;
		p->fw_start = p->region_start;
		p->fw_pitch = p->stride;
		p->fw_len = rec;
		p->fw_unit_max = umax < fits ? umax : fits;
		/* each first write in a unit of its own: units up to stride - G */
		p->fw_claim_max = o->max_size < p->stride - g ? o->max_size : p->stride - g;
	} else {
		uint64_t fits = destructive_unit_max(avail, g);

		if (umax > fits) {
			if (o->max_size != AP_PROBE_MAX_SIZE_DEFAULT)
				return ap_error_set(e, ENOSPC, "--max-size %s: the region is too "
						    "small for the first writes' %u never-written "
						    "windows of 4 x --max-size each; the largest size "
						    "that fits is %s",
						    ap_size_exact(o->max_size, b1, sizeof(b1)),
						    AP_FW_MIN_WINDOWS, ap_size_exact(fits ? fits :
						    p->logical_sector, b2, sizeof(b2)));
			umax = fits;
		}
		if (umax < g)
			return 0;
		wn = 2 * umax + g;
		p->fw_len = 2 * wn;
		p->fw_pitch = p->fw_len + g;
		p->fw_windows = (unsigned)(avail / p->fw_pitch < AP_FW_WINDOWS ?
					   avail / p->fw_pitch : AP_FW_WINDOWS);
		if (p->fw_windows < AP_FW_MIN_WINDOWS) {
			p->fw_windows = 0;
			return 0;
		}
		p->fw_start = (p->region_start + g - 1) / g * g;
		if (p->fw_start + (uint64_t)(p->fw_windows - 1) * p->fw_pitch + p->fw_len >
		    p->region_start + avail) {
			p->fw_windows = 0;
			return 0;
		}
		p->fw_unit_max = umax;
		p->fw_claim_max = umax;
	}
	if (p->fw_unit_max < 2 * g)
		p->fw_unit_max = 0;	/* the scan cannot show a period */
	wn = 2 * p->fw_unit_max + g;
	p->fw_write_max = (uint64_t)p->fw_windows * (1 + AP_FW_REWRITES) * g +
			  (uint64_t)(p->fw_windows < AP_FW_SCANNED ? p->fw_windows : AP_FW_SCANNED) *
			  (p->fw_unit_max ? wn + 2 * g + 5 * g : 0);
	return 0;
}
