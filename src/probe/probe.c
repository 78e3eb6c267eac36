// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The raw probe engine (see probe.h): the plan, the measurement schedule,
 * the decision over write sizes, and the block-device backend with the
 * preserving mode's undo journal.
 */
#include "probe/probe.h"

#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "device/safety.h"
#include "lib/sig.h"
#include "lib/state.h"
#include "lib/rng.h"
#include "lib/blkdev.h"
#include "lib/sysfs.h"

#define KiB 1024ULL
#define MiB (1024ULL * 1024)
#define GiB (1024ULL * 1024 * 1024)

void ap_probe_opts_init(struct ap_probe_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->mode = AP_PROBE_DESTRUCTIVE;
	o->min_size = 4 * KiB;
	o->max_size = 64 * KiB;
	o->region_start = AP_PROBE_ALIGN;
	o->slots = 128;
	o->min_rounds = 3;
	o->max_rounds = 40;
	o->seed = 1;
	o->confirm = true;
	/*
	 * A misaligned synchronous write costs at least one extra media
	 * access (a read-modify-write): effects below 1.5x are the I/O stack's
	 * noise, not alignment. (The sweep, diluted by a file system, uses the
	 * analysis default of 1.15.)
	 */
	o->min_slowdown = 1.5;
}

/* ------------------------------------------------------------------ */
/* the plan */

int ap_probe_plan(const struct ap_probe_opts *o, uint64_t dev_size, unsigned logical,
		  struct ap_probe_plan *plan, struct ap_error *e)
{
	uint64_t lo, hi, s, kmax, span, slot_min, start, end, size, align;
	unsigned n;

	memset(plan, 0, sizeof(*plan));
	if (!logical || !ap_is_power_of_2(logical) || logical < 512)
		return ap_error_set(e, EINVAL, "unsupported logical sector size %u", logical);
	if (!ap_is_power_of_2(o->min_size) || !ap_is_power_of_2(o->max_size) ||
	    o->min_size > o->max_size)
		return ap_error_set(e, EINVAL, "write sizes must be powers of two with "
				    "--min-size <= --max-size");
	if (o->max_size > 16 * MiB)
		return ap_error_set(e, EINVAL, "--max-size is limited to 16 MiB");
	if (o->max_size < 2ULL * logical)
		return ap_error_set(e, EINVAL, "--max-size must be at least two logical sectors "
				    "(%u bytes)", 2 * logical);
	if (!o->slots || !o->max_rounds || o->min_rounds > o->max_rounds)
		return ap_error_set(e, EINVAL, "bad slot or round counts");

	plan->logical_sector = logical;
	plan->reported_physical = logical;
	plan->dev_size = dev_size;
	/* a size must be able to show a period of at least 2 logical sectors */
	for (s = o->min_size < 2ULL * logical ? 2ULL * logical : o->min_size;
	     s <= o->max_size && plan->nsizes < AP_PROBE_MAX_SIZES; s *= 2)
		plan->sizes[plan->nsizes++] = s;

	kmax = 2 * o->max_size / logical;
	span = (kmax - 1) * logical + o->max_size;
	span = (span + 4095) / 4096 * 4096;
	plan->span = span;
	/* slots start on multiples of the largest size: offset k == LBA mod P */
	slot_min = (span + o->max_size - 1) / o->max_size * o->max_size;

	lo = 34ULL * logical;
	hi = dev_size > 33ULL * logical ? dev_size - 33ULL * logical : 0;
	start = o->region_start;
	if (start % o->max_size || start % logical)
		return ap_error_set(e, EINVAL, "the region start (%llu) must be a multiple of "
				    "the largest write size (%llu)", (unsigned long long)start,
				    (unsigned long long)o->max_size);
	if (!o->allow_metadata && start < lo)
		return ap_error_set(e, EPERM, "the region start %llu lies in LBA 0..33 (the "
				    "partition table); use --allow-metadata-area to write there",
				    (unsigned long long)start);
	end = o->allow_metadata ? dev_size : hi;
	if (o->region_size) {
		if (start + o->region_size > dev_size)
			return ap_error_set(e, ENOSPC, "the region (%llu bytes from %llu) runs "
					    "past the end of the device (%llu bytes)",
					    (unsigned long long)o->region_size,
					    (unsigned long long)start,
					    (unsigned long long)dev_size);
		if (start + o->region_size > end)
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
	align = (slot_min + AP_PROBE_ALIGN - 1) / AP_PROBE_ALIGN * AP_PROBE_ALIGN;
	if (size / align < 8)
		align = slot_min;
	n = o->slots;
	if (size / align < n)
		n = (unsigned)(size / align);
	plan->slots = n;
	plan->stride = size / n / align * align;
	plan->region_start = start;
	plan->region_size = size;
	return 0;
}

unsigned ap_probe_noffsets(const struct ap_probe_plan *plan, uint64_t size)
{
	return (unsigned)(2 * size / plan->logical_sector);
}

/* ------------------------------------------------------------------ */
/* measurement and decision */

static void params_for(const struct ap_probe_result *r, const struct ap_probe_opts *o,
		       uint64_t size, struct ap_analysis_params *p)
{
	ap_analysis_params_init(p, r->plan.logical_sector, r->plan.reported_physical);
	p->max_period = (unsigned)(size / r->plan.logical_sector);
	if (o->alpha > 0)
		p->alpha = o->alpha;
	if (o->min_slowdown > 0)
		p->min_slowdown = o->min_slowdown;
}

int ap_probe_analyse_size(struct ap_probe_result *r, size_t idx, const struct ap_probe_opts *o)
{
	struct ap_probe_size *sz = &r->sizes[idx];
	struct ap_analysis_params p;
	struct ap_obs *obs;
	size_t i;
	int rc;

	ap_verdict_free(&sz->verdict);
	sz->analysed = false;
	sz->clear = false;
	if (!sz->n)
		return -EINVAL;
	params_for(r, o, sz->size, &p);
	obs = ap_xmalloc(sz->n * sizeof(*obs));
	for (i = 0; i < sz->n; i++) {
		const struct ap_probe_sample *s = &r->samples[sz->first + i];

		obs[i] = (struct ap_obs){ .offset = s->offset, .round = s->round,
					  .cost = (double)s->ns, .seq = sz->first + i + 1 };
	}
	rc = ap_analysis_run(obs, sz->n, &p, &sz->verdict);
	free(obs);
	if (rc)
		return rc;
	sz->analysed = true;
	sz->clear = ap_analysis_is_clear(&sz->verdict, &p);
	return 0;
}

static const char *human(uint64_t bytes, char *buf, size_t len)
{
	if (bytes >= MiB && bytes % MiB == 0)
		snprintf(buf, len, "%llu MiB", (unsigned long long)(bytes / MiB));
	else if (bytes >= KiB && bytes % KiB == 0)
		snprintf(buf, len, "%llu KiB", (unsigned long long)(bytes / KiB));
	else
		snprintf(buf, len, "%llu bytes", (unsigned long long)bytes);
	return buf;
}

static void unresolve(struct ap_verdict *v)
{
	v->resolved = false;
	v->physical_sector = 0;
	v->period = 0;
	v->lowest_aligned_lba = 0;
	free(v->fast_starts);
	v->fast_starts = NULL;
	v->nfast = 0;
}

/* Why size @idx is not clear, into r->unclear ("" when it is). */
static void size_unclear(struct ap_probe_result *r, int idx, const struct ap_probe_opts *o)
{
	const struct ap_probe_size *sz = &r->sizes[idx];
	struct ap_analysis_params p;
	const char *why;
	char b[32];

	params_for(r, o, sz->size, &p);
	why = sz->clear ? NULL : ap_analysis_unclear_reason(&sz->verdict, &p);
	if (why)
		snprintf(r->unclear, sizeof(r->unclear), "%s writes: %s",
			 human(sz->size, b, sizeof(b)), why);
	else
		r->unclear[0] = '\0';
}

void ap_probe_decide(struct ap_probe_result *r, const struct ap_probe_opts *o)
{
	struct ap_verdict *v = &r->verdict;
	size_t i, last = SIZE_MAX, structured = SIZE_MAX;
	char b1[32], b2[32];

	ap_verdict_free(v);
	r->decided = r->confirmed = -1;
	r->clear = false;
	r->unclear[0] = '\0';

	for (i = 0; i < r->nsizes; i++) {
		const struct ap_probe_size *sz = &r->sizes[i];

		if (!sz->analysed)
			continue;
		last = i;
		if (sz->verdict.sensitive && sz->verdict.resolved && r->decided < 0) {
			r->decided = (int)i;
			continue;
		}
		if (r->decided >= 0 && r->confirmed < 0 && i == (size_t)r->decided + 1)
			r->confirmed = (int)i;	/* the confirmation size, checked below */
		if (sz->verdict.sensitive)
			structured = i;
	}

	if (r->decided >= 0) {
		const struct ap_probe_size *d = &r->sizes[r->decided];

		ap_verdict_copy(v, &d->verdict);
		r->clear = d->clear;
		size_unclear(r, r->decided, o);
		if (r->confirmed >= 0) {
			const struct ap_probe_size *c = &r->sizes[r->confirmed];
			const struct ap_verdict *cv = &c->verdict;

			if (cv->sensitive && cv->resolved && cv->period == v->period &&
			    cv->lowest_aligned_lba == v->lowest_aligned_lba) {
				ap_verdict_set_note(v, "%s writes show %u-byte physical sectors from LBA %u; "
					 "%s writes confirm it", human(d->size, b1, sizeof(b1)),
					 v->physical_sector, v->lowest_aligned_lba,
					 human(c->size, b2, sizeof(b2)));
				r->clear = d->clear && c->clear;
				if (d->clear)
					size_unclear(r, r->confirmed, o);
			} else if (cv->sensitive && cv->resolved) {
				ap_verdict_set_note(v, "inconsistent: %s writes show %u-byte physical sectors "
					 "from LBA %u, %s writes %u-byte ones from LBA %u",
					 human(d->size, b1, sizeof(b1)), v->physical_sector,
					 v->lowest_aligned_lba, human(c->size, b2, sizeof(b2)),
					 cv->physical_sector, cv->lowest_aligned_lba);
				unresolve(v);
				r->clear = false;
				snprintf(r->unclear, sizeof(r->unclear), "the write sizes disagree");
			} else {
				ap_verdict_set_note(v, "%s writes show %u-byte physical sectors from LBA %u; "
					 "%s writes did not confirm it (%s)",
					 human(d->size, b1, sizeof(b1)), v->physical_sector,
					 v->lowest_aligned_lba, human(c->size, b2, sizeof(b2)),
					 cv->note ? cv->note : "inconclusive");
				r->clear = false;
				snprintf(r->unclear, sizeof(r->unclear), "%s writes did not confirm it",
					 human(c->size, b2, sizeof(b2)));
			}
		} else if (o->confirm && (size_t)r->decided + 1 < r->plan.nsizes) {
			ap_verdict_set_note(v, "%s writes show %u-byte physical sectors from LBA %u; not "
				 "confirmed with larger writes (stopped early)",
				 human(d->size, b1, sizeof(b1)), v->physical_sector,
				 v->lowest_aligned_lba);
			r->clear = false;
			snprintf(r->unclear, sizeof(r->unclear), "not confirmed with larger writes");
		}
	} else if (last == SIZE_MAX) {
		v->logical_sector = r->plan.logical_sector;
		v->reported_physical = r->plan.reported_physical;
		v->p_value = 1;
		v->slowdown = 1;
		v->equivalence_p = NAN;
		ap_verdict_set_note(v, "nothing was measured");
		snprintf(r->unclear, sizeof(r->unclear), "nothing was measured");
	} else if (structured != SIZE_MAX && structured == last) {
		/* the largest size measured still shows structure without a clean phase */
		ap_verdict_copy(v, &r->sizes[structured].verdict);
		unresolve(v);
		r->clear = r->sizes[structured].clear && last + 1 == r->plan.nsizes;
		if (last + 1 < r->plan.nsizes)
			snprintf(r->unclear, sizeof(r->unclear), "larger writes were not measured");
		else
			size_unclear(r, structured, o);
		ap_verdict_set_note(v, "every write size up to %s shows an alignment effect without a "
			 "single aligned phase: the hidden unit is probably larger than %s "
			 "(try a larger --max-size)", human(r->sizes[last].size, b1, sizeof(b1)),
			 human(r->sizes[last].size, b2, sizeof(b2)));
	} else if (structured == SIZE_MAX && last + 1 == r->plan.nsizes &&
		   r->sizes[last].verdict.resolved && !r->sizes[last].verdict.sensitive) {
		/*
		 * No size shows an effect, and the largest one, which would show
		 * any unit up to its own size as a clean phase, rules one out
		 * (smaller sizes that stayed inconclusive do not change that).
		 */
		ap_verdict_copy(v, &r->sizes[last].verdict);
		r->clear = r->sizes[last].clear;
		size_unclear(r, last, o);
		if (r->mode == AP_PROBE_READONLY) {
			unresolve(v);
			r->clear = false;
			v->confidence = 0;
			v->equivalence_p = NAN;
			snprintf(r->unclear, sizeof(r->unclear), "read timings only");
			ap_verdict_set_note(v, "read timings show no alignment effect at any size from %s to "
				 "%s; this is weak evidence: most drives read misaligned data at "
				 "almost no extra cost, so it does not show honest sectors. Only "
				 "a writing probe (--preserve keeps the data) can tell",
				 human(r->sizes[0].size, b1, sizeof(b1)),
				 human(r->sizes[last].size, b2, sizeof(b2)));
		} else {
			ap_verdict_set_note(v, "no alignment effect of %.2fx or more for writes from %s "
				 "to %s: the drive behaves like honest %u-byte sectors (or hides "
				 "a unit larger than %s)", v->min_slowdown,
				 human(r->sizes[0].size, b1, sizeof(b1)),
				 human(r->sizes[last].size, b2, sizeof(b2)),
				 r->plan.logical_sector, human(r->sizes[last].size, b2, sizeof(b2)));
		}
	} else {
		ap_verdict_copy(v, &r->sizes[last].verdict);
		unresolve(v);
		v->sensitive = false;
		v->small = false;
		v->confidence = 0;	/* no claim */
		snprintf(r->unclear, sizeof(r->unclear), "no verdict");
		ap_verdict_set_note(v, "no verdict: %s (measured up to %s writes)",
			 r->interrupted ? "interrupted" : r->budget_out ? "the time budget ran out" :
			 "the timings were inconclusive", human(r->sizes[last].size, b1, sizeof(b1)));
	}
	if (r->mode == AP_PROBE_READONLY && v->sensitive && v->resolved && !v->note)
		ap_verdict_set_note(v, "from read timings only");
}

static int add_sample(struct ap_probe_result *r, const struct ap_probe_sample *s)
{
	if (r->nsamples == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 4096;
		r->samples = ap_xreallocarray(r->samples, r->cap, sizeof(*r->samples));
	}
	r->samples[r->nsamples++] = *s;
	return 0;
}

int ap_probe_measure(const struct ap_probe_io *io, const struct ap_probe_opts *o,
		     const struct ap_probe_plan *plan, struct ap_probe_result *r,
		     struct ap_error *e)
{
	struct ap_rng rng = { .s = o->seed * 0x2545F4914F6CDD1DULL + 1 };
	uint64_t cursor = 0;
	uint32_t *slots = ap_xmalloc(plan->slots * sizeof(*slots)), *order = NULL;
	bool write = o->mode != AP_PROBE_READONLY, stop = false;
	size_t si;
	int rc = 0;

	r->plan = *plan;
	r->mode = o->mode;
	r->decided = r->confirmed = -1;
	r->start_ns = o->ready ? o->ready(o->ready_arg) : 0;
	if (!r->start_ns)
		r->start_ns = ap_now_ns();
	for (si = 0; si < plan->slots; si++)
		slots[si] = (uint32_t)si;
	ap_rng_shuffle(&rng, slots, plan->slots, sizeof(*slots));

	for (si = 0; si < plan->nsizes && !stop; si++) {
		struct ap_probe_size *sz = &r->sizes[r->nsizes++];
		bool confirming = false;
		unsigned k, round;
		size_t j;

		memset(sz, 0, sizeof(*sz));
		sz->size = plan->sizes[si];
		sz->noffsets = ap_probe_noffsets(plan, sz->size);
		for (j = 0; j + 1 < r->nsizes; j++)
			if (r->sizes[j].analysed && r->sizes[j].verdict.sensitive &&
			    r->sizes[j].verdict.resolved)
				confirming = true;
		sz->first = r->nsamples;
		sz->t_start_ns = ap_now_ns();
		r->live_size = sz->size;
		order = ap_xreallocarray(order, sz->noffsets, sizeof(*order));
		for (k = 0; k < sz->noffsets; k++)
			order[k] = k;

		for (round = 0; round < o->max_rounds && !stop; round++) {
			r->live_round = round;
			ap_rng_shuffle(&rng, order, sz->noffsets, sizeof(*order));
			for (k = 0; k < sz->noffsets; k++) {
				struct ap_probe_sample s = { .size = sz->size, .offset = order[k],
							     .round = round };
				uint64_t off, ns = 0;
				int sig = ap_sig_pending();

				if (sig) {
					r->interrupted = sig;
					stop = true;
					break;
				}
				if (o->deadline_ns && ap_now_ns() >= o->deadline_ns) {
					r->budget_out = true;
					stop = true;
					break;
				}
				s.slot = slots[cursor++ % plan->slots];
				if (cursor % plan->slots == 0)
					ap_rng_shuffle(&rng, slots, plan->slots, sizeof(*slots));
				off = plan->region_start + (uint64_t)s.slot * plan->stride +
				      (uint64_t)s.offset * plan->logical_sector;
				rc = io->op(io->arg, write, s.slot, off, sz->size, &ns);
				if (rc) {
					ap_error_set(e, -rc, "%s of %llu bytes at offset %llu failed: %s",
						     write ? "write" : "read",
						     (unsigned long long)sz->size,
						     (unsigned long long)off, strerror(-rc));
					stop = true;
					break;
				}
				s.ns = ns;
				add_sample(r, &s);
				sz->n++;
				r->live_ops++;
			}
			if (k == sz->noffsets)
				sz->rounds++;
			if (!stop && sz->rounds >= o->min_rounds) {
				ap_probe_analyse_size(r, r->nsizes - 1, o);
				/* a size confirming another stops early only when it
				 * shows the unit too: "no effect of min-slowdown or
				 * more" does not contradict a smaller one */
				if (sz->clear && (!confirming || (sz->verdict.sensitive &&
								  sz->verdict.resolved)))
					break;
			}
		}
		sz->t_end_ns = ap_now_ns();
		if (sz->n)
			ap_probe_analyse_size(r, r->nsizes - 1, o);
		if (!sz->n) {
			r->nsizes--;
			break;
		}
		/* the deciding size, then (optionally) one more to confirm it */
		if (sz->analysed && sz->verdict.sensitive && sz->verdict.resolved) {
			if (confirming || !o->confirm)
				stop = true;
		} else if (r->nsizes >= 2 && r->sizes[r->nsizes - 2].verdict.sensitive &&
			   r->sizes[r->nsizes - 2].verdict.resolved) {
			stop = true;	/* that was the confirmation */
		}
	}
	free(slots);
	free(order);
	r->end_ns = ap_now_ns();
	ap_probe_decide(r, o);
	return rc;
}

void ap_probe_result_free(struct ap_probe_result *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nsizes; i++)
		ap_verdict_free(&r->sizes[i].verdict);
	ap_verdict_free(&r->verdict);
	free(r->samples);
	memset(r, 0, sizeof(*r));
	r->decided = r->confirmed = -1;
}

/* ------------------------------------------------------------------ */
/* block devices */

int ap_probe_device_geometry(const char *dev, struct ap_probe_dev *d, struct ap_error *e)
{
	struct ap_disk_identity id;
	struct ap_error ie = { 0 };
	struct stat st;
	unsigned int pbs = 0;
	int fd, rc;

	fd = open(dev, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ap_error_set(e, errno, "%s: %s", dev, strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISBLK(st.st_mode)) {
		close(fd);
		return ap_error_set(e, ENOTBLK, "%s: not a block device", dev);
	}
	rc = ap_identity_read(fd, &id, &ie);
	if (!rc && (rc = ap_blkdev_get_sizes(fd, NULL, NULL, &pbs)) != 0)
		rc = ap_error_set(&ie, -rc, "%s", strerror(-rc));
	close(fd);
	if (rc) {
		ap_identity_free(&id);
		return ap_error_set(e, -rc, "%s: cannot read the sector sizes: %s", dev, ie.msg);
	}
	d->dev = dev;
	d->logical_sector = id.logical_sector;
	d->reported_physical = pbs ? pbs : id.logical_sector;
	d->size = id.size;
	ap_identity_free(&d->id);
	d->id = id;
	return 0;
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
	/* after the last byte the last slot touches */
	from = plan->region_start + (uint64_t)(plan->slots - 1) * plan->stride + plan->span;
	from = (from + lss - 1) / lss * lss;
	if (plan->dev_size > AP_PROBE_UNTOUCHED_MAX &&
	    from < plan->dev_size - AP_PROBE_UNTOUCHED_MAX)
		from = plan->dev_size - AP_PROBE_UNTOUCHED_MAX;
	from = (from + lss - 1) / lss * lss;
	if (from < plan->dev_size && n < max) {
		r[n].offset = from;
		r[n].length = (plan->dev_size - from) / lss * lss;
		if (r[n].length)
			n++;
	}
	return n;
}

/* The whole disk a block device number belongs to. */
static dev_t whole_disk(dev_t devno)
{
	return ap_sysfs_devno_to_wholedisk(devno);
}

int ap_probe_path_on_device(const char *path, const char *dev)
{
	char *copy = ap_xstrdup(path), *dir = dirname(copy);
	struct stat sd, sv;
	int rc;

	if (stat(dir, &sd) != 0 || stat(dev, &sv) != 0) {
		rc = -errno;
		free(copy);
		return rc;
	}
	free(copy);
	if (!S_ISBLK(sv.st_mode))
		return 0;
	return whole_disk(sd.st_dev) == whole_disk(sv.st_rdev);
}

struct devio {
	int fd;
	enum ap_probe_mode mode;
	const struct ap_probe_plan *plan;
	struct ap_journal *journal;
	unsigned char *buf;
	struct ap_error err;
};

static int dev_op(void *arg, bool write, uint64_t slot, uint64_t off, size_t len, uint64_t *ns)
{
	struct devio *d = arg;
	uint64_t t0, t1;
	ssize_t n;
	int rc;

	if (write && d->mode == AP_PROBE_PRESERVE) {
		uint64_t base = d->plan->region_start + slot * d->plan->stride;

		/* the original bytes of exactly this range, from the journal */
		rc = ap_journal_read(d->journal, slot, (uint32_t)(off - base), d->buf, len, &d->err);
		if (rc)
			return rc;
	}
	t0 = ap_now_ns();
	n = write ? pwrite(d->fd, d->buf, len, (off_t)off) : pread(d->fd, d->buf, len, (off_t)off);
	t1 = ap_now_ns();
	if (n < 0)
		return -errno;
	if ((size_t)n != len)
		return -EIO;
	*ns = t1 - t0;
	return 0;
}

static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;

static int read_originals(struct devio *io, const struct ap_probe_plan *plan,
			  struct ap_probe_result *r, struct ap_error *e)
{
	unsigned char *buf;
	uint64_t i;
	int rc = 0;

	if (posix_memalign((void **)&buf, 4096, plan->span) != 0)
		return ap_error_set(e, ENOMEM, "out of memory");
	/* one ascending pass over the whole region, before any write */
	for (i = 0; i < plan->slots; i++) {
		uint64_t off = plan->region_start + i * plan->stride;
		int sig = ap_sig_pending();

		if (sig) {
			r->interrupted = sig;
			rc = -EINTR;
			break;
		}
		rc = ap_pread_all(io->fd, buf, plan->span, off);
		if (rc) {
			ap_error_set(e, -rc, "cannot read the original data at offset %llu: %s",
				     (unsigned long long)off, strerror(-rc));
			break;
		}
		rc = ap_journal_put(io->journal, i, off, buf, e);
		if (rc)
			break;
	}
	free(buf);
	return rc;
}

/*
 * Write every slot's span once before measuring (destructive: the pattern,
 * preserve: the original bytes), aligned and in one pass: storage that
 * allocates on first write (thin provisioning, sparse images, the emulated
 * drive) then shows its steady-state cost from the first round on.
 */
static int warm_up(struct devio *io, const struct ap_probe_plan *plan, uint64_t seed,
		   struct ap_probe_result *r, struct ap_error *e)
{
	unsigned char *buf;
	uint64_t i, s = seed;
	int rc = 0;

	if (posix_memalign((void **)&buf, 4096, plan->span) != 0)
		return ap_error_set(e, ENOMEM, "out of memory");
	for (i = 0; i + 8 <= plan->span; i += 8) {
		uint64_t x = ap_splitmix64(&s);

		memcpy(buf + i, &x, 8);
	}
	for (i = 0; i < plan->slots; i++) {
		uint64_t off = plan->region_start + i * plan->stride;
		int sig = ap_sig_pending();

		if (sig) {
			r->interrupted = sig;
			break;
		}
		if (io->mode == AP_PROBE_PRESERVE) {
			rc = ap_journal_read(io->journal, i, 0, buf, plan->span, e);
			if (rc)
				break;
		}
		rc = ap_pwrite_all(io->fd, buf, plan->span, off);
		if (rc) {
			ap_error_set(e, -rc, "write of %llu bytes at offset %llu failed: %s",
				     (unsigned long long)plan->span, (unsigned long long)off,
				     strerror(-rc));
			break;
		}
	}
	free(buf);
	return rc;
}

/*
 * Preserve: the identity the journal records, read from the descriptor the
 * probe writes through, with the content of ranges it never writes.
 */
static int read_identity(struct devio *io, const struct ap_probe_plan *plan,
			 struct ap_probe_dev *d, struct ap_error *e)
{
	struct ap_identity_content ranges[2];
	struct ap_disk_identity id;
	struct ap_error ie = { 0 };
	size_t n = ap_probe_untouched(plan, ranges, AP_ARRAY_SIZE(ranges));
	int rc;

	rc = ap_identity_read(io->fd, &id, &ie);
	if (!rc)
		rc = ap_identity_read_content(io->fd, &id, ranges, n, &ie);
	if (rc) {
		ap_identity_free(&id);
		return ap_error_set(e, -rc, "cannot read the identity of %s for the undo "
				    "journal: %s", d->dev, ie.msg);
	}
	if (id.size != d->size || id.logical_sector != d->logical_sector) {
		ap_identity_free(&id);
		return ap_error_set(e, EIO, "%s changed its size or sector size since it was "
				    "examined", d->dev);
	}
	ap_identity_free(&d->id);
	d->id = id;
	return 0;
}

int ap_probe_device(struct ap_probe_dev *d, const struct ap_probe_opts *o,
		    struct ap_probe_result *r, struct ap_error *e)
{
	struct ap_probe_plan plan;
	struct devio io = { .fd = -1, .mode = o->mode };
	struct ap_probe_io vt = { .op = dev_op, .arg = &io };
	char *state_id = NULL;
	int rc, flags;

	memset(r, 0, sizeof(*r));
	r->decided = r->confirmed = -1;
	rc = ap_probe_plan(o, d->size, d->logical_sector, &plan, e);
	if (rc)
		return rc;
	plan.reported_physical = d->reported_physical;
	r->plan = plan;
	r->mode = o->mode;

	flags = O_DIRECT | O_CLOEXEC | (o->mode == AP_PROBE_READONLY ? O_RDONLY : O_RDWR | O_DSYNC);
	io.fd = open(d->dev, flags);
	if (io.fd < 0)
		return ap_error_set(e, errno, "cannot open %s with O_DIRECT%s: %s", d->dev,
				    o->mode == AP_PROBE_READONLY ? "" : " | O_DSYNC",
				    strerror(errno));
	io.plan = &plan;
	if (posix_memalign((void **)&io.buf, 4096, o->max_size) != 0) {
		close(io.fd);
		return ap_error_set(e, ENOMEM, "out of memory");
	}
	/* destructive: a fixed pseudo-random pattern (no zeros a drive could elide) */
	{
		uint64_t s = o->seed, i;

		for (i = 0; i + 8 <= o->max_size; i += 8) {
			uint64_t x = ap_splitmix64(&s);

			memcpy(io.buf + i, &x, 8);
		}
	}

	if (o->mode == AP_PROBE_PRESERVE) {
		char *real = NULL;

		if (!o->journal) {
			rc = ap_error_set(e, EINVAL, "preserving mode needs an undo journal path");
			goto out;
		}
		rc = read_identity(&io, &plan, d, e);
		if (rc)
			goto out;
		rc = ap_journal_create(o->journal, d->dev, &d->id, (uint32_t)plan.span, plan.slots,
				       &io.journal, e);
		if (rc)
			goto out;
		real = realpath(o->journal, NULL);
		d->journal = real ? real : ap_xstrdup(o->journal);
		pthread_mutex_lock(&state_lock);
		rc = ap_state_register(AP_STATE_JOURNAL, d->journal, d->dev, NULL, &state_id);
		pthread_mutex_unlock(&state_lock);
		if (rc) {
			ap_error_set(e, -rc, "cannot register the undo journal in %s: %s",
				     ap_state_dir(), strerror(-rc));
			ap_journal_remove(io.journal);
			io.journal = NULL;
			goto out;
		}
		rc = read_originals(&io, &plan, r, e);
		if (!rc)
			rc = ap_journal_commit(io.journal, e);
		if (rc) {
			/* nothing was written yet: the journal is not needed */
			ap_journal_remove(io.journal);
			io.journal = NULL;
			ap_state_release(state_id);
			if (rc == -EINTR) {
				rc = 0;
				ap_probe_decide(r, o);
			}
			goto out;
		}
	}

	if (o->mode != AP_PROBE_READONLY)
		rc = warm_up(&io, &plan, o->seed, r, e);
	if (!rc && !r->interrupted) {
		rc = ap_probe_measure(&vt, o, &plan, r, e);
		if (rc && io.err.code)
			*e = io.err;
	} else {
		r->start_ns = r->end_ns = ap_now_ns();
		ap_probe_decide(r, o);
	}

	if (o->mode == AP_PROBE_PRESERVE) {
		struct ap_error re = { 0 };
		int rrc = ap_journal_restore(io.journal, io.fd, d->dev, &d->restore, &re);

		if (rrc) {
			d->journal_kept = true;
			ap_journal_close(io.journal);
			if (!rc) {
				*e = re;
				rc = rrc;
			}
		} else {
			d->restored = true;
			ap_journal_remove(io.journal);
			ap_state_release(state_id);
		}
		io.journal = NULL;
	}
out:
	free(state_id);
	free(io.buf);
	if (io.journal)
		ap_journal_close(io.journal);
	close(io.fd);
	return rc;
}

void ap_probe_dev_free(struct ap_probe_dev *d)
{
	if (!d)
		return;
	free(d->journal);
	d->journal = NULL;
	ap_identity_free(&d->id);
}

static void release_journal_entries(const char *path)
{
	struct ap_state_entry *v = NULL;
	char *real = realpath(path, NULL);
	size_t n = 0, i;

	if (ap_state_list(&v, &n) != 0)
		goto out;
	for (i = 0; i < n; i++) {
		if (v[i].kind != AP_STATE_JOURNAL || !v[i].path)
			continue;
		if (strcmp(v[i].path, path) == 0 || (real && strcmp(v[i].path, real) == 0))
			ap_state_release(v[i].file);
	}
	ap_state_free(v, n);
out:
	free(real);
}

/*
 * The device the journal restores: @dev as named, or the one whose identity
 * is the journal's. Refusals are -EPERM.
 */
static int undo_target(const struct ap_journal_info *info, const char *dev,
		       bool allow_unidentified, struct ap_probe_undo *u, struct ap_error *e)
{
	struct ap_identity_match m;
	char *want;
	int rc;

	if (!ap_identity_is_distinctive(&info->id)) {
		const char *what = info->has_identity ?
			"records no identity that tells its disk from another of the same size "
			"(no WWN, serial or backing file, and blank content)" :
			"was written by an older alignprobe and records no identity of its disk, "
			"only its size";

		if (!dev || !allow_unidentified)
			return ap_error_set(e, EPERM, "the journal %s; name the disk (the journal "
					    "says %s) and add --allow-unidentified to restore it "
					    "anyway", what, info->dev);
		snprintf(u->dev, sizeof(u->dev), "%s", dev);
		return 0;
	}
	if (dev) {
		snprintf(u->dev, sizeof(u->dev), "%s", dev);
		return 0;
	}
	rc = ap_identity_find(&info->id, info->dev, &m, e);
	if (rc)
		return rc;
	want = ap_identity_describe(&info->id);
	if (m.npaths == 1) {
		snprintf(u->dev, sizeof(u->dev), "%s", m.paths[0]);
		u->found = strcmp(m.paths[0], info->dev) != 0;
	} else if (m.npaths == 0) {
		rc = ap_error_set(e, EPERM, "no device is the journal's disk (%s, named %s "
				  "then)%s%s; nothing was written", want, info->dev,
				  m.rejected ? "; examined " : "",
				  m.rejected ? m.rejected : "");
	} else {
		size_t i, len = 0;
		char list[256] = "";

		for (i = 0; i < m.npaths; i++)
			len += (size_t)snprintf(list + len, len < sizeof(list) ? sizeof(list) - len
						: 0, "%s%s", i ? ", " : "", m.paths[i]);
		rc = ap_error_set(e, EPERM, "%zu devices are the journal's disk (%s): %s; name "
				  "the one to restore", m.npaths, want, list);
	}
	free(want);
	ap_identity_match_free(&m);
	return rc;
}

int ap_probe_undo(const char *journal, const char *dev, bool allow_unidentified,
		  struct ap_probe_undo *u, struct ap_error *e)
{
	struct ap_journal *j = NULL;
	const struct ap_journal_info *info;
	struct ap_disk_identity have = { 0 };
	struct ap_error ie = { 0 };
	char *real, why[768];
	int rc, fd = -1;

	memset(u, 0, sizeof(*u));
	rc = ap_journal_open(journal, &j, e);
	if (rc)
		return rc;
	info = ap_journal_info(j);
	snprintf(u->named, sizeof(u->named), "%s", info->dev);
	snprintf(u->dev, sizeof(u->dev), "%s", dev ? dev : info->dev);
	real = realpath(journal, NULL);
	if (!info->complete) {
		/* interrupted while it was being written: the probe had not written yet */
		u->incomplete = true;
		ap_journal_remove(j);
		release_journal_entries(real ? real : journal);
		free(real);
		return 0;
	}
	rc = undo_target(info, dev, allow_unidentified, u, e);
	if (rc)
		goto out;
	rc = ap_safety_in_use(u->dev, e);
	if (rc)
		goto out;
	fd = ap_safety_open_excl(u->dev, O_RDWR | O_DIRECT | O_DSYNC);
	if (fd < 0) {
		rc = ap_error_set(e, -fd, "cannot open %s exclusively: %s", u->dev,
				  fd == -EBUSY ? "it is in use" : strerror(-fd));
		fd = -1;
		goto out;
	}
	/* held now: the device under this descriptor is the one that is checked */
	rc = ap_identity_read(fd, &have, &ie);
	if (!rc && info->id.ncontent)
		rc = ap_identity_read_content(fd, &have, info->id.content, info->id.ncontent, &ie);
	if (rc) {
		if (rc == -ENOTBLK)
			rc = ap_error_set(e, EINVAL, "%s is not a block device", u->dev);
		else
			rc = ap_error_set(e, -rc, "%s: cannot read its identity: %s", u->dev,
					  ie.msg);
		goto out;
	}
	if (!info->has_identity) {
		/* an older journal, the disk named and --allow-unidentified: its size */
		if (have.size != info->dev_size || have.logical_sector != info->logical_sector) {
			rc = ap_error_set(e, EPERM, "%s does not match the journal: %llu bytes "
					  "with %u-byte sectors, the journal was written for %llu "
					  "bytes with %u-byte sectors; nothing was written", u->dev,
					  (unsigned long long)have.size, have.logical_sector,
					  (unsigned long long)info->dev_size, info->logical_sector);
			goto out;
		}
	} else if (ap_identity_compare(&info->id, &have, why, sizeof(why)) != AP_IDENTITY_SAME) {
		rc = ap_error_set(e, EPERM, "%s is not the disk this journal was written for "
				  "(%s): %s; nothing was written", u->dev, info->dev, why);
		goto out;
	}
	rc = ap_journal_restore(j, fd, u->dev, &u->st, e);
	if (!rc) {
		ap_journal_remove(j);
		j = NULL;
		release_journal_entries(real ? real : journal);
	}
out:
	if (fd >= 0)
		close(fd);
	ap_identity_free(&have);
	free(real);
	ap_journal_close(j);
	return rc;
}
