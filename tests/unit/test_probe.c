// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The probe's plan, schedule and decision over write sizes, run against a
 * simulated drive (no device, no sleeping): the cost of each write follows
 * the read-modify-write model of a hidden unit, with jitter.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/rng.h"
#include "lib/sig.h"
#include "lib/util.h"
#include "probe/prepare.h"
#include "probe/probe.h"

#include "probe_sim.h"


static void test_plan(void **state)
{
	struct ap_probe_opts o;
	struct ap_probe_plan p;
	struct ap_error e = { 0 };
	unsigned i;

	(void)state;
	ap_probe_opts_init(&o);
	assert_int_equal(ap_probe_plan(&o, 256ULL << 20, 512, &p, &e), 0);
	assert_int_equal(p.nsizes, 5);
	assert_int_equal(p.sizes[0], 4096);
	assert_int_equal(p.sizes[4], 65536);
	assert_int_equal(p.region_start, 1 << 20);
	assert_true(p.region_start + p.region_size <= (256ULL << 20) - 33 * 512);
	assert_int_equal(p.span, 192 * 1024);	/* 255 * 512 + 64 KiB, rounded up */
	assert_int_equal(p.slots, 128);
	assert_int_equal(p.stride % (1 << 20), 0);
	assert_int_equal(p.margin, 65536);
	assert_int_equal(ap_probe_record_len(&p), (192 + 128) * 1024);
	assert_true(p.stride >= ap_probe_record_len(&p));
	assert_int_equal(ap_probe_slot_offset(&p, 0), p.region_start + 65536);
	assert_true(p.region_start + (p.slots - 1) * p.stride + ap_probe_record_len(&p) <=
		    p.region_start + p.region_size);
	assert_int_equal(ap_probe_noffsets(&p, 4096), 16);
	assert_int_equal(ap_probe_noffsets(&p, 65536), 256);

	/* 4Kn: the smallest size must show a period of 2 */
	assert_int_equal(ap_probe_plan(&o, 1ULL << 30, 4096, &p, &e), 0);
	assert_int_equal(p.sizes[0], 8192);
	assert_int_equal(p.nsizes, 4);

	/* the partition table area is protected */
	o.region_start = 0;
	assert_int_equal(ap_probe_plan(&o, 256ULL << 20, 512, &p, &e), -EPERM);
	assert_non_null(strstr(e.msg, "LBA 0..33"));
	o.allow_metadata = true;
	assert_int_equal(ap_probe_plan(&o, 256ULL << 20, 512, &p, &e), 0);
	assert_int_equal(p.region_start, 0);

	/* and the backup GPT */
	ap_probe_opts_init(&o);
	o.region_size = (256ULL << 20) - (1 << 20);
	assert_int_equal(ap_probe_plan(&o, 256ULL << 20, 512, &p, &e), -EPERM);
	assert_non_null(strstr(e.msg, "backup GPT"));
	o.region_size = 300ULL << 20;
	assert_int_equal(ap_probe_plan(&o, 256ULL << 20, 512, &p, &e), -ENOSPC);

	/* a small region: fewer slots on 64 KiB boundaries, records never overlapping */
	o.region_size = 4 << 20;
	assert_int_equal(ap_probe_plan(&o, 256ULL << 20, 512, &p, &e), 0);
	assert_int_equal(p.slots, (4 << 20) / ((192 + 128) * 1024));
	assert_int_equal(p.stride % 65536, 0);
	for (i = 0; i + 1 < p.slots; i++)
		assert_true(p.region_start + i * p.stride + ap_probe_record_len(&p) <=
			    p.region_start + (i + 1) * p.stride);

	/* nonsense */
	ap_probe_opts_init(&o);
	assert_int_equal(ap_probe_plan(&o, 64 << 10, 512, &p, &e), -ENOSPC);
	o.min_size = 3000;
	assert_int_equal(ap_probe_plan(&o, 256ULL << 20, 512, &p, &e), -EINVAL);
	ap_probe_opts_init(&o);
	o.region_start = (1 << 20) + 512;
	assert_int_equal(ap_probe_plan(&o, 256ULL << 20, 512, &p, &e), -EINVAL);
}

/* No untouched range overlaps a byte any slot's span can write. */
static void check_untouched(const struct ap_probe_plan *p, size_t want_n)
{
	struct ap_identity_content r[2];
	size_t n = ap_probe_untouched(p, r, 2), i, k;

	assert_int_equal(n, want_n);
	for (i = 0; i < n; i++) {
		assert_true(r[i].length > 0);
		assert_true(r[i].length <= AP_PROBE_UNTOUCHED_MAX);
		assert_true(r[i].offset + r[i].length <= p->dev_size);
		assert_int_equal(r[i].offset % p->logical_sector, 0);
		assert_int_equal(r[i].length % p->logical_sector, 0);
		for (k = 0; k < p->slots; k++) {
			/* the record, margins included: a torn write reaches them */
			uint64_t a = ap_probe_slot_offset(p, k) - p->margin,
				 b = a + ap_probe_record_len(p);

			assert_true(r[i].offset + r[i].length <= a || r[i].offset >= b);
		}
	}
}

static void test_untouched(void **state)
{
	struct ap_probe_opts o;
	struct ap_probe_plan p;
	struct ap_identity_content r[2];
	struct ap_error e = { 0 };

	(void)state;
	ap_probe_opts_init(&o);
	/* the defaults: the first MiB and the last MiB */
	assert_int_equal(ap_probe_plan(&o, 256ULL << 20, 512, &p, &e), 0);
	check_untouched(&p, 2);
	assert_int_equal(ap_probe_untouched(&p, r, 2), 2);
	assert_int_equal(r[0].offset, 0);
	assert_int_equal(r[0].length, 1 << 20);
	assert_int_equal(r[1].offset + r[1].length, 256ULL << 20);
	assert_int_equal(r[1].length, 1 << 20);
	/* the 128 MiB loop device, and a 4Kn disk */
	assert_int_equal(ap_probe_plan(&o, 128ULL << 20, 512, &p, &e), 0);
	check_untouched(&p, 2);
	assert_int_equal(ap_probe_plan(&o, 8ULL << 30, 4096, &p, &e), 0);
	check_untouched(&p, 2);
	/* a region up to the backup GPT: only its 33 sectors are left at the end */
	o.region_size = (256ULL << 20) - (1 << 20) - 33 * 512;
	assert_int_equal(ap_probe_plan(&o, 256ULL << 20, 512, &p, &e), 0);
	check_untouched(&p, 2);
	/* the whole device: nothing is untouched */
	ap_probe_opts_init(&o);
	o.allow_metadata = true;
	o.region_start = 0;
	o.region_size = 4 << 20;
	o.slots = 12;		/* 12 * 320 KiB = 3840 KiB: 256 KiB left at the end */
	assert_int_equal(ap_probe_plan(&o, 4 << 20, 512, &p, &e), 0);
	assert_int_equal(p.slots, 12);
	check_untouched(&p, p.region_start + (p.slots - 1) * p.stride +
			    ap_probe_record_len(&p) < (4 << 20));
	/* at most @max */
	ap_probe_opts_init(&o);
	assert_int_equal(ap_probe_plan(&o, 256ULL << 20, 512, &p, &e), 0);
	assert_int_equal(ap_probe_untouched(&p, r, 1), 1);
	assert_int_equal(r[0].offset, 0);
}

static void expect_unit(unsigned period, unsigned phase, unsigned size_idx)
{
	struct sim s = { .period = period, .phase = phase, .rmw_ns = 8000000,
			 .base_ns = 100000, .jitter = 0.3, .rng = 7 };
	struct ap_probe_opts o;
	struct ap_probe_result r;
	size_t i;

	ap_probe_opts_init(&o);
	o.seed = period * 100 + phase;
	run_sim(&s, &o, &r);
	assert_true(r.verdict.sensitive);
	assert_true(r.verdict.resolved);
	assert_int_equal(r.verdict.physical_sector, period * 512);
	assert_int_equal(r.verdict.lowest_aligned_lba, phase);
	assert_int_equal(r.decided, size_idx);
	assert_int_equal(r.confirmed, size_idx + 1);
	assert_int_equal(r.nsizes, size_idx + 2);	/* stopped after the confirmation */
	assert_true(r.clear);
	assert_true(r.verdict.slowdown > 10);
	for (i = 0; i < r.verdict.nfast; i++)
		assert_int_equal(r.verdict.fast_starts[i] % period, phase);
	/* interleaved: every offset measured in every round, rounds >= 3 */
	assert_true(r.sizes[size_idx].rounds >= 3);
	assert_int_equal(r.sizes[size_idx].n,
			 r.sizes[size_idx].rounds * r.sizes[size_idx].noffsets);
	assert_int_equal(s.reads, 0);
	ap_probe_result_free(&r);
}

static void test_units(void **state)
{
	(void)state;
	expect_unit(8, 0, 0);	/* 4 KiB, found with 4 KiB writes */
	expect_unit(8, 7, 0);
	expect_unit(16, 0, 1);	/* 8 KiB: 4 KiB writes are all partial */
	expect_unit(16, 5, 1);
	expect_unit(32, 0, 2);
	expect_unit(64, 3, 3);
	expect_unit(2, 1, 0);	/* 1 KiB units show at 4 KiB already */
}

static void test_honest(void **state)
{
	struct sim s = { .period = 1, .rmw_ns = 8000000, .base_ns = 200000,
			 .jitter = 0.05, .rng = 3 };
	struct ap_probe_opts o;
	struct ap_probe_result r;

	(void)state;
	ap_probe_opts_init(&o);
	run_sim(&s, &o, &r);
	assert_false(r.verdict.sensitive);
	assert_true(r.verdict.resolved);
	assert_int_equal(r.verdict.physical_sector, 512);
	assert_int_equal(r.decided, -1);
	/* the smallest size, then the largest at each of its phases (issue 26) */
	assert_int_equal(r.nsizes, 2);
	assert_false(r.sizes[0].phases);
	assert_true(r.sizes[1].phases);
	assert_int_equal(r.sizes[1].size, 65536);
	assert_int_equal(r.sizes[1].noffsets, 128);
	assert_float_equal(r.verdict.absence_margin, 1.10, 1e-12);
	assert_true(r.sizes[1].margin > 1.09 && r.sizes[1].margin <= 1.10);
	assert_non_null(strstr(r.verdict.note, "honest 512-byte"));
	assert_non_null(strstr(r.verdict.note, "each of its 128 phases"));
	assert_non_null(strstr(r.verdict.note, "of 1.10x or more"));
	assert_float_equal(r.verdict.confidence, 1 - r.verdict.equivalence_p, 1e-12);
	ap_probe_result_free(&r);

	/*
	 * 30 % jitter: 40 rounds rule out 1.5x, 1.10x for every phase of
	 * 64 KiB only with luck; never an effect, and without "honest" the
	 * verdict says what is not ruled out (issue 16)
	 */
	s.jitter = 0.3;
	ap_probe_opts_init(&o);
	run_sim(&s, &o, &r);
	assert_false(r.verdict.sensitive);
	if (r.verdict.resolved) {
		assert_int_equal(r.verdict.physical_sector, 512);
	} else {
		assert_false(r.clear);
		assert_non_null(strstr(r.verdict.note, "but a smaller one"));
		assert_non_null(strstr(r.verdict.note, "not shown to be honest"));
	}
	ap_probe_result_free(&r);
}

/*
 * A rotating disk, as far as the lead-in reads matter (issue 16): 7200 rpm,
 * hdd-7200's track, a 1-3 ms seek to another slot, the platter's angle from a clock that every operation
 * and the host's latency (100-300 us) advance; a synchronous write waits for
 * its first sector to come round, transfers, and pays one more revolution
 * for partial units. A timed write's ns include the host's latency.
 */
struct disk {
	struct sim u;		/* the hidden unit (period, phase) and the rng */
	uint64_t t, rev, track;
	uint64_t writes, lead_ins;
	uint64_t pos;		/* where the head is (bytes), + 1; 0: nowhere yet */
	const struct ap_probe_plan *plan;
	/*
	 * What real drives add (issue 26): a volatile cache that acknowledges
	 * writes and ignores the flushes (a USB bridge); a read-ahead segment
	 * of @ra bytes that the drive fills after a read (a read inside it is
	 * answered from it, 50 us); a buffer of the @rmw_buf physical units
	 * written last, from which a read-modify-write takes its read.
	 */
	bool flush_ignored;
	uint64_t ra, seg, buffered_reads;
	bool seg_valid;
	unsigned rmw_buf, buf_pos;
	uint64_t buf[256];
	bool warms;		/* struct ap_probe_io's warm: a slot's span written once */
	uint64_t warm_ups;
	/*
	 * The emulator's delivery delay (issue 26): a write whose lead-in's
	 * completion reached the host late looks 5-30 % faster, at rate
	 * @early; @small: a partial unit costs that factor of the write
	 * instead of a revolution (a small effect); @per_unit: a revolution
	 * for each partial unit (a write straddling two pays two)
	 */
	double early, small;
	bool per_unit;
	uint64_t dev;		/* bytes; 0: 256 MiB */
	bool led;		/* a lead-in since the last write */
	uint64_t bare;		/* timed writes without a lead-in */
};

/* Is physical unit @u in the RMW buffer? */
static bool disk_buffered(const struct disk *d, uint64_t u)
{
	unsigned i;

	for (i = 0; i < d->rmw_buf && i < 256; i++)
		if (d->buf[i] == u + 1)
			return true;
	return false;
}

/* A write's extra revolution, with the RMW buffer: any partial unit it does not hold. */
static bool disk_rmw(struct disk *d, uint64_t off, uint64_t len)
{
	uint64_t P = d->u.period, a, b, u;
	bool pay = false;

	if (!d->rmw_buf)
		return sim_partial(&d->u, off, len) != 0;
	if (P <= 1)
		return false;
	a = off / 512 + P - d->u.phase;
	b = a + len / 512;
	if (a % P && !disk_buffered(d, a / P))
		pay = true;
	if (b % P && !disk_buffered(d, (b - 1) / P))
		pay = true;
	for (u = a / P; u <= (b - 1) / P; u++) {
		if (disk_buffered(d, u))
			continue;
		d->buf[d->buf_pos] = u + 1;
		d->buf_pos = (d->buf_pos + 1) % d->rmw_buf;
	}
	return pay;
}

static uint64_t disk_latency(struct disk *d)
{
	return 100000 + (uint64_t)(200000 * sim_unit(&d->u));
}

/*
 * To @off: nothing on the head's track, a settle (1 ms) a few tracks away,
 * 1-3 ms further
 */
static uint64_t disk_seek(struct disk *d, uint64_t off)
{
	uint64_t at = d->pos ? d->pos - 1 : UINT64_MAX / 2, dist = off > at ? off - at : at - off;

	d->pos = off + 1;
	if (off / d->track == at / d->track)
		return 0;
	if (dist <= 4 * d->track)
		return 1000000;
	return 1000000 + (uint64_t)(2000000 * sim_unit(&d->u));
}

/* wait for @off to come round, transfer @len bytes: the time taken */
static uint64_t disk_media(struct disk *d, uint64_t off, uint64_t len)
{
	uint64_t at = off % d->track * d->rev / d->track;
	uint64_t wait = (at + d->rev - d->t % d->rev) % d->rev;

	return wait + len * d->rev / d->track;
}

static int disk_op(void *arg, bool write, uint64_t slot, uint64_t off, size_t len, uint64_t *ns)
{
	struct disk *d = arg;
	uint64_t lat = disk_latency(d), c;

	assert_true(write);
	d->bare += !d->led;
	d->led = false;
	d->t += lat;
	if (d->flush_ignored) {	/* acknowledged from the cache */
		*ns = lat + 20000;
		d->t += 20000;
		d->writes++;
		return 0;
	}
	(void)slot;
	c = disk_seek(d, off);
	d->t += c;
	c += disk_media(d, off, len);
	if (d->per_unit)
		c += d->rev * sim_partial(&d->u, off, len);
	else if (disk_rmw(d, off, len))
		c += d->small > 0 ? (uint64_t)((double)c * (d->small - 1)) : d->rev;
	d->t += c;
	d->pos = off + len + 1;
	*ns = lat + c;
	if (d->early > 0 && sim_unit(&d->u) < d->early)
		*ns = (uint64_t)((double)*ns * (0.70 + 0.25 * sim_unit(&d->u)));
	d->writes++;
	return 0;
}

static int disk_lead_in(void *arg, uint64_t off, size_t len, uint64_t *ns)
{
	struct disk *d = arg;
	uint64_t t0 = d->t;

	d->t += disk_latency(d);
	d->lead_ins++;
	d->led = true;
	if (d->ra && d->seg_valid && off >= d->seg && off + len <= d->seg + d->ra) {
		d->t += 50000;
		d->buffered_reads++;
		*ns = d->t - t0;
		return 0;
	}
	d->t += disk_seek(d, off);
	d->t += disk_media(d, off, len);
	d->pos = off + len + 1;
	d->seg = off;
	d->seg_valid = true;
	*ns = d->t - t0;
	return 0;
}

/* the untimed warm-up write of a slot's whole span: a seek, the platter, the transfer */
static int disk_warm(void *arg, uint64_t slot)
{
	struct disk *d = arg;

	d->t += disk_latency(d);
	d->t += disk_seek(d, ap_probe_slot_offset(d->plan, slot));
	d->t += disk_media(d, ap_probe_slot_offset(d->plan, slot), d->plan->span);
	d->pos = ap_probe_slot_offset(d->plan, slot) + d->plan->span + 1;
	d->warm_ups++;
	return 0;
}

static void run_disk(struct disk *d, struct ap_probe_opts *o, bool lead, struct ap_probe_result *r)
{
	struct ap_probe_io io = { .op = disk_op, .lead_in = lead ? disk_lead_in : NULL,
				  .warm = d->warms ? disk_warm : NULL, .arg = d };
	struct ap_probe_plan plan;
	struct ap_error e = { 0 };

	d->rev = 8333333;
	d->track = 1250304;	/* as hdd-7200's */
	d->u.logical = 512;
	assert_int_equal(ap_probe_plan(o, d->dev ? d->dev : 256ULL << 20, 512, &plan, &e), 0);
	d->plan = &plan;
	memset(r, 0, sizeof(*r));
	assert_int_equal(ap_probe_measure(&io, o, &plan, r, &e), 0);
}

/*
 * A rotating disk whose rotation the calibration has no room to measure
 * (--preserve on 128 MiB, as the emulator's honest-512n in fleet/verdicts):
 * the timed sizes' writes get lead-ins, and so do the first-write step's.
 * Before d0ae271 they went without: on that emulated drive first writes in
 * window order cost 7.0 ms each and rewrites after seeks of every length
 * 2.2-11 ms, first writes tested 1.24x rewrites, and check refused the
 * honest drive's verdict.
 */
static void test_lead_in_unknown(void **state)
{
	struct disk d = { .u = { .period = 1, .rng = 5 }, .dev = 128ULL << 20 };
	struct ap_probe_opts o;
	struct ap_probe_result r;

	(void)state;
	ap_probe_opts_init(&o);
	o.mode = AP_PROBE_PRESERVE;
	o.max_size = 32768;
	run_disk(&d, &o, true, &r);
	assert_false(r.rotating);
	assert_int_equal(r.seek_read_ns, 0);	/* not measured */
	assert_true(r.fw.measured);
	assert_true(r.fw.n >= 8 * 4);
	assert_int_equal(d.bare, 0);		/* every timed write had its lead-in */
	assert_true(r.fw.absent);
	ap_probe_result_free(&r);
}

static void test_lead_in_honest(void **state)
{
	struct disk d = { .u = { .period = 1, .rng = 5 } }, d0 = d;
	struct ap_probe_opts o;
	struct ap_probe_result r, r0;
	size_t i;

	(void)state;
	ap_probe_opts_init(&o);
	o.stripes = false;	/* the timed sizes' lead-ins alone */
	run_disk(&d, &o, true, &r);
	/*
	 * every timed write had its lead-in, after the calibration's reads
	 * (a rotating disk); the verdict: honest, from 4 KiB writes and 64 KiB
	 * ones at each phase, in three rounds each: 48 + 384 writes
	 */
	assert_int_equal(d.lead_ins, d.writes + 8);
	assert_true(r.rotating);
	assert_int_equal(r.lead_in_hits, 0);
	assert_false(r.verdict.sensitive);
	assert_true(r.verdict.resolved);
	assert_true(r.clear);
	assert_int_equal(r.verdict.physical_sector, 512);
	assert_int_equal(r.nsizes, 2);
	assert_true(r.sizes[1].phases);
	assert_true(d.writes <= 6 * (16 + 128));
	for (i = 0; i < r.nsizes; i++)
		assert_true(r.sizes[i].rounds <= 6);

	/*
	 * the same disk without them: the random rotational wait hides a
	 * 1.10x effect for many rounds (sizes up to 16 KiB, 20 rounds: the CPU
	 * time of the analysis)
	 */
	ap_probe_opts_init(&o);
	o.max_size = 16384;
	o.max_rounds = 20;
	run_disk(&d0, &o, false, &r0);
	assert_int_equal(d0.lead_ins, 0);
	assert_false(r0.verdict.sensitive);
	assert_false(r0.verdict.resolved);
	/* the phase screen may take the writes of the sizes it stands for */
	assert_true(r0.sizes[r0.nsizes - 1].phases);
	assert_int_equal(r0.sizes[r0.nsizes - 1].rounds, (32 + 64) * 20 / 32);
	ap_probe_result_free(&r);
	ap_probe_result_free(&r0);
}

/*
 * An honest 7200 rpm disk (@early: its rate of early completions, below)
 * with seed @seed must give "no effect" (clear, margin 1.10, from the
 * screen) within @writes writes and @ns virtual ns.
 */
static void honest_within(uint64_t seed, double early, uint64_t writes, uint64_t ns)
{
	struct disk d = { .u = { .period = 1, .rng = seed }, .warms = true, .early = early };
	struct ap_probe_opts o;
	struct ap_probe_result r;

	ap_probe_opts_init(&o);
	o.stripes = false;	/* the timed sizes' floor (test_stripe_floor: the stripes') */
	o.seed = seed;
	run_disk(&d, &o, true, &r);
	print_message("honest, %.0f %% early, seed %llu: %llu writes, %llu warm-ups, "
		      "%.3f s virtual\n", early * 100, (unsigned long long)seed,
		      (unsigned long long)d.writes, (unsigned long long)d.warm_ups,
		      (double)d.t / 1e9);
	assert_false(r.verdict.sensitive);
	assert_true(r.verdict.resolved);
	assert_true(r.clear);
	assert_int_equal(r.verdict.physical_sector, 512);
	assert_float_equal(r.verdict.absence_margin, 1.10, 1e-12);
	assert_true(r.sizes[r.nsizes - 1].phases);
	assert_true(d.writes <= writes);
	assert_true(d.t <= ns);
	ap_probe_result_free(&r);
}

/*
 * The floor of an honest rotating disk's verdict (issue 26: 5 s or less at
 * 7200 rpm), on the virtual clock of the disk above with its warm-ups: the
 * calibration, the smallest size in its slots, the first writes (which rule
 * out the slots' warm-ups, test_warm_ups_ruled_out) and the phase screen,
 * each write with its lead-in. Deterministic: the
 * clock is the model's, not the machine's.
 */
static void test_honest_floor(void **state)
{
	uint64_t seed;

	(void)state;
	for (seed = 40; seed < 43; seed++)
		honest_within(seed, 0, 432 + 48, 5000000000ULL);	/* + 12 first writes, 36 rewrites */
}

/*
 * The slots' warm-up keeps a first write's extra cost out of the timed
 * writes: on a rotating disk whose first writes the first-write step ruled
 * out there is none, and the probe writes no warm-up (128 writes of the span,
 * 0.9 s on a 7200 rpm disk); without that step every slot is warmed up.
 */
static void test_warm_ups_ruled_out(void **state)
{
	struct disk d = { .u = { .period = 1, .rng = 40 }, .warms = true };
	struct disk dw = d;
	struct ap_probe_opts o;
	struct ap_probe_result r, rw;

	(void)state;
	ap_probe_opts_init(&o);
	o.stripes = false;
	o.seed = 40;
	run_disk(&d, &o, true, &r);
	o.first_writes = false;
	run_disk(&dw, &o, true, &rw);
	print_message("honest 7200 rpm: %llu warm-ups, %.3f s virtual; without the first-write "
		      "step %llu warm-ups, %.3f s\n", (unsigned long long)d.warm_ups,
		      (double)d.t / 1e9, (unsigned long long)dw.warm_ups, (double)dw.t / 1e9);
	assert_true(r.fw.measured && r.fw.absent);
	assert_int_equal(d.warm_ups, 0);
	assert_true(r.verdict.resolved && !r.verdict.sensitive && r.clear);
	assert_false(rw.fw.measured);
	assert_int_equal(dw.warm_ups, rw.plan.slots);
	assert_true(rw.verdict.resolved && !rw.verdict.sensitive && rw.clear);
	ap_probe_result_free(&r);
	ap_probe_result_free(&rw);
}

/*
 * The stripe step's cost on the honest 7200 rpm disk's virtual clock
 * (issue 33: "no stripe" up to 4 MiB is not free): what it adds to the
 * timed sizes' floor, its writes and bytes, within the region. A rotating
 * disk writes a 4 MiB width in about 30 ms: the step stays under 6 s.
 */
static void test_stripe_floor(void **state)
{
	struct disk d = { .u = { .period = 1, .rng = 40 }, .warms = true };
	struct disk d0 = d;
	struct ap_probe_opts o;
	struct ap_probe_result r, r0;

	(void)state;
	ap_probe_opts_init(&o);
	o.seed = 40;
	run_disk(&d, &o, true, &r);
	o.stripes = false;
	run_disk(&d0, &o, true, &r0);
	print_message("honest 7200 rpm: %.3f s virtual with the stripe step (%zu writes, %llu "
		      "MiB), %.3f s without\n", (double)d.t / 1e9, r.st.n,
		      (unsigned long long)(r.st.written >> 20), (double)d0.t / 1e9);
	assert_true(r.st.measured);
	assert_false(r.st.found);
	assert_true(r.verdict.resolved && !r.verdict.sensitive);
	assert_true(d.t - d0.t <= 6000000000ULL);
	assert_true(r.st.written <= r.plan.st_len + r.st.n * r.plan.st_cap);
	ap_probe_result_free(&r);
	ap_probe_result_free(&r0);
}

/*
 * The floor with the emulator's early completions (issue 26): 2 % of the
 * writes 5-30 % faster. Each blocks its phase's "no effect" test at 3
 * writes; the targeted rounds measure just those phases again (design.md
 * 3.5), where ab4db90 needed 1 to 4 more full rounds of 128 writes (560
 * to 944 writes, 4.9 to 7.6 s).
 */
static void test_honest_early(void **state)
{
	uint64_t seed;

	(void)state;
	for (seed = 40; seed < 45; seed++)
		honest_within(seed, 0.02, 432 + 64 + 48, 4900000000ULL);
}

/*
 * The same noise never hides an effect: a 4096-byte unit, a 128 KiB one
 * whose writes straddling two units pay for both (larger than the sizes:
 * never "honest"), and a small one (1.15x) whose
 * aligned phase the screen alone sees (a 64 KiB unit).
 */
static void test_effect_early(void **state)
{
	uint64_t seed;

	(void)state;
	for (seed = 50; seed < 53; seed++) {
		struct disk d4 = { .u = { .period = 8, .phase = 0, .rng = seed }, .warms = true,
				   .early = 0.02 };
		struct disk dl = { .u = { .period = 256, .phase = 0, .rng = seed }, .warms = true,
				   .early = 0.02, .per_unit = true };
		struct disk ds = { .u = { .period = 128, .phase = 37, .rng = seed }, .warms = true,
				   .early = 0.02, .small = 1.15 };
		struct ap_probe_opts o;
		struct ap_probe_result r;

		ap_probe_opts_init(&o);
		o.seed = seed;
		run_disk(&d4, &o, true, &r);
		assert_true(r.verdict.sensitive && r.verdict.resolved);
		assert_int_equal(r.verdict.physical_sector, 4096);
		assert_int_equal(r.verdict.lowest_aligned_lba, 0);
		ap_probe_result_free(&r);

		run_disk(&dl, &o, true, &r);
		assert_false(r.verdict.resolved && !r.verdict.sensitive);
		assert_false(r.verdict.resolved);
		assert_non_null(strstr(r.verdict.note, "larger than 64 KiB"));
		ap_probe_result_free(&r);

		run_disk(&ds, &o, true, &r);
		print_message("small effect, seed %llu: %s, %llu writes, %.3f s virtual\n",
			      (unsigned long long)seed, r.verdict.note,
			      (unsigned long long)ds.writes, (double)ds.t / 1e9);
		assert_false(r.verdict.resolved && !r.verdict.sensitive);
		ap_probe_result_free(&r);
	}
}

/*
 * A disk that hides 8 KiB (issue 33: 12.8 s at 7200 rpm against a goal of
 * 5 s): the 4 KiB writes show no unit, and the phase screen hands 8 KiB
 * over after one round, clear but for its rounds, to the sizes that
 * measure it again from scratch (before, 3 rounds: 384 writes of 64 KiB),
 * testing the one unit the screen named: 2 rounds of 8 KiB writes instead
 * of 3 (4.5 s virtual instead of 5.0). With a shifted phase and with the
 * emulator's early completions.
 */
static void test_screen_hands_over(void **state)
{
	uint64_t seed;

	(void)state;
	for (seed = 60; seed < 64; seed++) {
		struct disk d = { .u = { .period = 16, .phase = seed % 2 ? 0 : 5, .rng = seed },
				  .warms = true, .early = 0.02 };
		struct ap_probe_opts o;
		struct ap_probe_result r;
		size_t i, screen = 0, larger = 0;

		ap_probe_opts_init(&o);
		o.stripes = false;	/* the timed sizes alone */
		o.seed = seed;
		run_disk(&d, &o, true, &r);
		for (i = 0; i < r.nsamples; i++) {
			screen += r.samples[i].size == 65536;
			larger += r.samples[i].size > 8192 && r.samples[i].size < 65536;
		}
		print_message("8 KiB unit, seed %llu: %zu screen writes, %zu of 16-32 KiB, "
			      "%llu writes, %.3f s virtual\n", (unsigned long long)seed, screen,
			      larger, (unsigned long long)d.writes, (double)d.t / 1e9);
		assert_true(r.verdict.sensitive && r.verdict.resolved);
		assert_int_equal(r.verdict.physical_sector, 8192);
		assert_int_equal(r.verdict.lowest_aligned_lba, seed % 2 ? 0 : 5);
		assert_int_equal(screen, 128);
		/* the screen confirms the 8 KiB writes: no 16 KiB size after them */
		assert_true(r.screen_confirms);
		assert_true(r.clear);
		assert_int_equal(r.confirmed, -1);
		assert_int_equal(r.sizes[r.decided].size, 8192);
		/* which tests the screen's one unit: clear after 2 rounds, not 3 */
		assert_true(r.sizes[r.decided].hyp);
		assert_int_equal(r.sizes[r.decided].rounds, AP_PROBE_HYP_ROUNDS);
		assert_int_equal(larger, 0);
		assert_int_equal(r.screen.size, 65536);
		ap_probe_result_free(&r);
	}
}

static void test_lead_in_unit(void **state)
{
	struct disk d = { .u = { .period = 8, .phase = 7, .rng = 6 } };
	struct ap_probe_opts o;
	struct ap_probe_result r;

	(void)state;
	ap_probe_opts_init(&o);
	run_disk(&d, &o, true, &r);
	assert_true(r.verdict.sensitive);
	assert_true(r.verdict.resolved);
	assert_int_equal(r.verdict.physical_sector, 4096);
	assert_int_equal(r.verdict.lowest_aligned_lba, 7);
	assert_true(r.verdict.slowdown > 1.8 && r.verdict.slowdown < 2.5);
	assert_true(r.sizes[0].rounds <= 4);
	ap_probe_result_free(&r);
}

/*
 * Every byte a torn write can damage is in its slot's record: for each
 * physical sector size P up to the largest write and each alignment
 * offset, the physical sectors a write at any planned offset covers partly
 * (rewritten by a read-modify-write) lie inside [record, record + len),
 * and the writes themselves inside the span. The records stay inside the
 * region, apart, and clear of the identity's untouched ranges.
 */
static void check_margins(const struct ap_probe_plan *p)
{
	uint64_t len = ap_probe_record_len(p), lss = p->logical_sector, phys, k, slot;
	size_t si;

	assert_true(p->margin >= p->sizes[p->nsizes - 1]);
	for (slot = 0; slot < p->slots; slot += p->slots - 1 ? p->slots - 1 : 1) {
		uint64_t rec = p->region_start + slot * p->stride, w = ap_probe_slot_offset(p, slot);

		assert_int_equal(w - p->margin, rec);
		assert_true(rec >= p->region_start);
		assert_true(rec + len <= p->region_start + p->region_size);
		for (si = 0; si < p->nsizes; si++)
			for (k = 0; k < ap_probe_noffsets(p, p->sizes[si]); k++) {
				uint64_t a = w + k * lss, b = a + p->sizes[si];

				assert_true(b <= w + p->span);
				for (phys = lss; phys <= p->sizes[p->nsizes - 1]; phys *= 2) {
					uint64_t lba, al;

					for (lba = 0; lba < phys / lss; lba++) {
						al = lba * lss;	/* physical sectors start at al mod phys */
						/* the sector holding a's first byte, b's last */
						uint64_t s0 = a - (a + phys - al % phys) % phys;
						uint64_t s1 = (b - 1) - (b - 1 + phys - al % phys) % phys + phys;

						assert_true(s0 >= rec);
						assert_true(s1 <= rec + len);
					}
				}
			}
		if (p->slots == 1)
			break;
	}
	if (p->slots > 1)
		assert_true(p->stride >= len);
	check_untouched(p, ap_probe_untouched(p, (struct ap_identity_content[2]){ 0 }, 2));
}

static void test_margins(void **state)
{
	struct ap_probe_opts o;
	struct ap_probe_plan p;
	struct ap_error e = { 0 };

	(void)state;
	ap_probe_opts_init(&o);
	assert_int_equal(ap_probe_plan(&o, 256ULL << 20, 512, &p, &e), 0);
	check_margins(&p);
	/* a small region, a 4Kn disk, a larger and a smaller largest size */
	o.region_size = 4 << 20;
	assert_int_equal(ap_probe_plan(&o, 256ULL << 20, 512, &p, &e), 0);
	check_margins(&p);
	ap_probe_opts_init(&o);
	assert_int_equal(ap_probe_plan(&o, 1ULL << 30, 4096, &p, &e), 0);
	check_margins(&p);
	o.max_size = 8192;
	assert_int_equal(ap_probe_plan(&o, 1ULL << 30, 4096, &p, &e), 0);
	check_margins(&p);
	ap_probe_opts_init(&o);
	o.max_size = 256 << 10;
	o.region_start = 1 << 20;
	assert_int_equal(ap_probe_plan(&o, 256ULL << 20, 512, &p, &e), 0);
	/* the timed rewrites up to 64 KiB; first writes up to all of it */
	assert_int_equal(p.margin, 64 << 10);
	assert_int_equal(p.fw_unit_max, 256 << 10);
	check_margins(&p);
	/* a region at the device's very start and up to its end: margins inside it */
	ap_probe_opts_init(&o);
	o.allow_metadata = true;
	o.region_start = 0;
	o.region_size = 4 << 20;
	assert_int_equal(ap_probe_plan(&o, 4 << 20, 512, &p, &e), 0);
	assert_int_equal(ap_probe_slot_offset(&p, 0), 65536);
	check_margins(&p);
}

/*
 * A write cache that ignores flushes (issue 26): every write acknowledged
 * in microseconds on a disk whose reads a seek away take milliseconds. The
 * probe stops after the first round with the cause and the remedy, never a
 * verdict: no write it timed reached the media.
 */
static void test_flush_ignored(void **state)
{
	struct disk d = { .u = { .period = 8, .phase = 0, .rng = 8 }, .flush_ignored = true };
	struct ap_probe_opts o;
	struct ap_probe_result r;

	(void)state;
	ap_probe_opts_init(&o);
	o.first_writes = false;	/* the timed rewrites' schedule alone */
	run_disk(&d, &o, true, &r);
	assert_true(r.rotating);
	assert_int_equal(r.failed, AP_PROBE_FLUSH_IGNORED);
	assert_int_equal(d.writes, 16);		/* one round of 4 KiB writes */
	assert_false(r.verdict.resolved);
	assert_false(r.verdict.sensitive);
	assert_float_equal(r.verdict.confidence, 0, 0);
	assert_false(r.clear);
	assert_non_null(strstr(r.verdict.note, "ignores flushes"));
	assert_non_null(strstr(r.verdict.note, "hdparm -W0"));
	assert_non_null(strstr(r.verdict.note, "sdparm --clear WCE"));
	assert_non_null(strstr(r.verdict.note, "USB bridge"));
	ap_probe_result_free(&r);

	/* flash (reads a seek away as fast as the writes) is no such drive */
	{
		struct sim s = { .period = 1, .base_ns = 30000, .jitter = 0.05, .rng = 3 };

		ap_probe_opts_init(&o);
		run_sim(&s, &o, &r);
		assert_int_equal(r.failed, AP_PROBE_OK);
		assert_true(r.verdict.resolved);
		ap_probe_result_free(&r);
	}
}

/*
 * Read-ahead (issue 26): the drive fills a 1 MiB segment after every read,
 * so a lead-in just ahead of the last one comes from it and places
 * nothing. The probe sees it in the lead-in's latency and reads a lead-in
 * in another slot, out of the segment's reach: the verdict stays right.
 */
static void test_lead_in_read_ahead(void **state)
{
	struct disk d = { .u = { .period = 1, .rng = 12 }, .ra = 1 << 20 };
	struct disk d4 = { .u = { .period = 8, .phase = 7, .rng = 13 }, .ra = 1 << 20 };
	struct ap_probe_opts o;
	struct ap_probe_result r;

	(void)state;
	ap_probe_opts_init(&o);
	o.stripes = false;	/* the timed sizes' lead-ins alone */
	o.first_writes = false;	/* the timed rewrites' schedule alone */
	run_disk(&d, &o, true, &r);
	assert_true(d.buffered_reads > 0);
	assert_int_equal(r.lead_in_hits, d.buffered_reads);
	assert_int_equal(r.failed, AP_PROBE_OK);
	assert_true(r.verdict.resolved);
	assert_false(r.verdict.sensitive);
	assert_int_equal(r.verdict.physical_sector, 512);
	ap_probe_result_free(&r);

	ap_probe_opts_init(&o);
	o.stripes = false;
	run_disk(&d4, &o, true, &r);
	assert_true(d4.buffered_reads > 0);
	assert_true(r.verdict.resolved && r.verdict.sensitive);
	assert_int_equal(r.verdict.physical_sector, 4096);
	assert_int_equal(r.verdict.lowest_aligned_lba, 7);
	ap_probe_result_free(&r);
}

/*
 * A buffer that serves read-modify-writes (issue 26): the physical units
 * written last are still in the drive, and a write whose partial units it
 * holds costs no extra revolution. The verdict is the unit, or no verdict
 * with that cause named; never "a unit larger than 64 KiB".
 */
static void test_rmw_buffer(void **state)
{
	struct ap_probe_opts o;
	struct ap_probe_result r;
	unsigned n;

	(void)state;
	for (n = 16; n <= 256; n *= 4) {
		struct disk d = { .u = { .period = 8, .phase = 7, .rng = 14 + n }, .rmw_buf = n };

		ap_probe_opts_init(&o);
		run_disk(&d, &o, true, &r);
		assert_null(strstr(r.verdict.note, "larger than 64 KiB"));
		if (r.failed) {
			assert_int_equal(r.failed, AP_PROBE_RMW_BUFFERED);
			assert_false(r.verdict.resolved);
			assert_non_null(strstr(r.verdict.note, "read-modify-writes"));
		} else {
			assert_true(r.verdict.resolved && r.verdict.sensitive);
			assert_int_equal(r.verdict.physical_sector, 4096);
			assert_int_equal(r.verdict.lowest_aligned_lba, 7);
		}
		ap_probe_result_free(&r);
	}
}

/*
 * Where the lead-in goes: past the write by 2 * the largest size + 256 KiB,
 * a round in one slot; the phase screen's writes each in the next slot,
 * their lead-ins the largest size + 256 KiB before the write.
 */
struct where {
	uint64_t writes, lead_ins, calibration, next_at, last_slot, round_writes, noffsets;
	uint64_t last_len, screen_writes, screen_same;
	size_t next_n;
	bool pending;
	const struct ap_probe_plan *plan;
};

static int where_op(void *arg, bool write, uint64_t slot, uint64_t off, size_t len, uint64_t *ns)
{
	struct where *w = arg;
	uint64_t base = ap_probe_slot_offset(w->plan, slot);

	assert_true(write);
	assert_true(w->pending);	/* its lead-in came first */
	if (len == 65536)	/* the phase screen's, in a slot of its own: just before */
		assert_int_equal(w->next_at, off - 65536 - AP_PROBE_LEAD_IN_AHEAD - 4096);
	else
		assert_int_equal(w->next_at, off + len + 2 * 65536 + AP_PROBE_LEAD_IN_AHEAD);
	assert_int_equal(w->next_n, 4096);
	/* outside what is written, past any unit of up to 64 KiB the write touches */
	assert_true(w->next_at >= base + w->plan->span || w->next_at + 4096 + 65536 <= off);
	w->pending = false;
	if (w->last_len != len) {	/* the next size; 64 KiB: the phase screen */
		w->last_len = len;
		w->noffsets = len == 65536 ? 128 : 2 * len / 512;
		w->round_writes = 0;
	}
	if (len == 65536) {		/* the phase screen: each write in the next slot */
		if (w->screen_writes++)
			assert_int_equal(slot, (w->last_slot + 1) % w->plan->slots);
		if (slot == w->last_slot)
			w->screen_same++;
	} else if (w->round_writes % w->noffsets) {
		assert_int_equal(slot, w->last_slot);	/* a round stays in its slot */
	}
	w->round_writes++;
	w->last_slot = slot;
	w->writes++;
	*ns = 5000000;
	return 0;
}

static int where_lead_in(void *arg, uint64_t off, size_t len, uint64_t *ns)
{
	struct where *w = arg;

	*ns = 3000000;
	if (off >= w->plan->region_start + (uint64_t)w->plan->slots * w->plan->stride) {
		assert_int_equal(w->writes, 0);	/* the calibration, first */
		w->calibration++;
		return 0;
	}
	assert_false(w->pending);
	w->pending = true;
	w->next_at = off;
	w->next_n = len;
	w->lead_ins++;
	return 0;
}

static void test_lead_in_where(void **state)
{
	struct where w = { .noffsets = 16, .last_len = 4096 };
	struct ap_probe_io io = { .op = where_op, .lead_in = where_lead_in, .arg = &w };
	struct ap_probe_opts o;
	struct ap_probe_plan plan;
	struct ap_probe_result r;
	struct ap_error e = { 0 };
	uint64_t at;
	size_t n;

	(void)state;
	ap_probe_opts_init(&o);
	o.stripes = false;	/* the timed sizes' lead-ins alone */
	o.first_writes = false;	/* the timed rewrites' schedule alone */
	o.max_rounds = 3;
	assert_int_equal(ap_probe_plan(&o, 256ULL << 20, 512, &plan, &e), 0);
	w.plan = &plan;
	memset(&r, 0, sizeof(r));
	assert_int_equal(ap_probe_measure(&io, &o, &plan, &r, &e), 0);
	assert_true(w.writes > 0);
	assert_int_equal(w.lead_ins, w.writes);
	assert_int_equal(w.calibration, 8);
	assert_true(w.screen_writes >= 3 * 128);
	assert_int_equal(w.screen_same, 0);
	ap_probe_result_free(&r);

	/* none where it would run past the end of the device; 4Kn: a sector */
	ap_probe_lead_in(&plan, plan.dev_size - 4096 - 2 * 65536 - AP_PROBE_LEAD_IN_AHEAD - 4096, 4096, &at, &n);
	assert_int_equal(n, 4096);
	ap_probe_lead_in(&plan, plan.dev_size - 4096 - 2 * 65536 - AP_PROBE_LEAD_IN_AHEAD - 512, 4096, &at, &n);
	assert_int_equal(n, 0);
	plan.logical_sector = 8192;
	ap_probe_lead_in(&plan, 0, 16384, &at, &n);
	assert_int_equal(n, 8192);
	assert_int_equal(at, 16384 + 2 * 65536 + AP_PROBE_LEAD_IN_AHEAD);
	/* just before the write, where there is room; else past it */
	plan.logical_sector = 512;
	ap_probe_lead_in_before(&plan, 1 << 20, 65536, &at, &n);
	assert_int_equal(n, 4096);
	assert_int_equal(at, (1 << 20) - 65536 - AP_PROBE_LEAD_IN_AHEAD - 4096);
	ap_probe_lead_in_before(&plan, 65536, 65536, &at, &n);
	assert_int_equal(n, 4096);
	assert_int_equal(at, 65536 + 65536 + 2 * 65536 + AP_PROBE_LEAD_IN_AHEAD);
}

/*
 * Small effects are effects (issue 16): a drive whose misaligned writes pay
 * about 1.3x, probed at --min-slowdown 1.5, gives its unit, confirmed by
 * the next size, marked small; one round is right but tentative, and says
 * why (issue 14: no "not yet statistically clear" next to 100 %).
 */
static void test_small_effect(void **state)
{
	struct sim s = { .period = 8, .phase = 0, .rmw_ns = 150000, .base_ns = 1000000,
			 .jitter = 0.2, .rng = 21 };
	struct ap_probe_opts o;
	struct ap_probe_result r;
	unsigned seed;

	(void)state;
	for (seed = 21; seed < 29; seed++) {
		s.rng = seed;
		ap_probe_opts_init(&o);
		o.first_writes = false;	/* the seeds' rounds as they were */
		o.min_slowdown = 1.5;
		run_sim(&s, &o, &r);
		assert_true(r.verdict.sensitive);
		assert_true(r.verdict.resolved);
		assert_int_equal(r.verdict.physical_sector, 4096);
		assert_int_equal(r.verdict.lowest_aligned_lba, 0);
		assert_true(r.verdict.small);
		assert_true(r.verdict.slowdown > 1.1 && r.verdict.slowdown < 1.5);
		assert_true(r.confirmed >= 0);
		assert_non_null(strstr(r.verdict.note, "confirm it"));
		assert_true(r.clear == !r.unclear[0]);
		ap_probe_result_free(&r);
	}

	/* one round: the unit, tentative, and the reason */
	s.rmw_ns = 8000000;
	ap_probe_opts_init(&o);
	o.min_rounds = o.max_rounds = 1;
	run_sim(&s, &o, &r);
	assert_true(r.verdict.sensitive && r.verdict.resolved);
	assert_false(r.clear);
	assert_non_null(strstr(r.unclear, "fewer than 3 measurements"));
	ap_probe_result_free(&r);
}

static void test_too_large(void **state)
{
	/* a 128 KiB unit: structure at every size, never a clean phase */
	struct sim s = { .period = 256, .phase = 0, .rmw_ns = 8000000, .base_ns = 100000,
			 .jitter = 0.1, .rng = 5 };
	struct ap_probe_opts o;
	struct ap_probe_result r;

	(void)state;
	ap_probe_opts_init(&o);
	run_sim(&s, &o, &r);
	assert_false(r.verdict.resolved);
	assert_int_equal(r.decided, -1);
	assert_non_null(strstr(r.verdict.note, "larger than 64 KiB"));
	ap_probe_result_free(&r);
}

static void test_readonly(void **state)
{
	/* reads of a drive that only charges writes: no effect, and no claim */
	struct sim s = { .period = 8, .phase = 0, .rmw_ns = 8000000, .base_ns = 100000,
			 .jitter = 0.2, .rng = 9 };
	struct ap_probe_opts o;
	struct ap_probe_result r;

	(void)state;
	ap_probe_opts_init(&o);
	o.mode = AP_PROBE_READONLY;
	run_sim(&s, &o, &r);
	assert_int_equal(s.writes, 0);
	assert_false(r.verdict.resolved);
	assert_non_null(strstr(r.verdict.note, "weak evidence"));
	ap_probe_result_free(&r);

	/* a drive whose misaligned reads cost more does show it */
	memset(&s, 0, sizeof(s));
	s = (struct sim){ .period = 8, .phase = 3, .rmw_ns = 2000000, .base_ns = 100000,
			  .jitter = 0.2, .rng = 9, .read_cost = true };
	run_sim(&s, &o, &r);
	assert_true(r.verdict.resolved && r.verdict.sensitive);
	assert_int_equal(r.verdict.lowest_aligned_lba, 3);
	ap_probe_result_free(&r);
}

static void test_no_confirm_and_budget(void **state)
{
	struct sim s = { .period = 8, .phase = 0, .rmw_ns = 8000000, .base_ns = 100000,
			 .jitter = 0.3, .rng = 11 };
	struct ap_probe_opts o;
	struct ap_probe_result r;

	(void)state;
	ap_probe_opts_init(&o);
	o.confirm = false;
	run_sim(&s, &o, &r);
	assert_int_equal(r.nsizes, 1);
	assert_true(r.verdict.resolved);
	assert_int_equal(r.confirmed, -1);
	ap_probe_result_free(&r);

	/* a deadline in the past: nothing measured, no verdict */
	o.deadline_ns = 1;
	run_sim(&s, &o, &r);
	assert_true(r.budget_out);
	assert_int_equal(r.nsamples, 0);
	assert_false(r.verdict.resolved);
	ap_probe_result_free(&r);
}

static void test_interrupt(void **state)
{
	struct sim s = { .period = 8, .phase = 0, .rmw_ns = 8000000, .rng = 13 };
	struct ap_probe_opts o;
	struct ap_probe_result r;

	(void)state;
	ap_sig_install();
	raise(SIGINT);
	ap_probe_opts_init(&o);
	o.cancel = ap_sig_cancel;
	run_sim(&s, &o, &r);
	assert_int_equal(r.interrupted, SIGINT);
	assert_int_equal(s.ops, 0);
	assert_false(r.verdict.resolved);
	ap_probe_result_free(&r);
	ap_sig_reset();
}

/* A cancellation that answers SIGTERM once it has been asked @after times. */
struct countdown {
	unsigned asked, after;
};

static int countdown_fn(void *arg)
{
	struct countdown *c = arg;

	return ++c->asked > c->after ? SIGTERM : 0;
}

/*
 * Cancelled through the options, without any signal: the probe stops at
 * once with what it measured, the way an interrupted one does.
 */
static void test_cancel(void **state)
{
	struct sim s = { .period = 8, .phase = 0, .rmw_ns = 8000000, .rng = 17 };
	struct countdown cd = { .after = 40 };
	struct ap_probe_opts o;
	struct ap_probe_result r;

	(void)state;
	ap_probe_opts_init(&o);
	o.first_writes = false;	/* the timed rewrites' schedule alone */
	o.cancel = (struct ap_cancel){ .fn = countdown_fn, .arg = &cd };
	run_sim(&s, &o, &r);
	assert_int_equal(r.interrupted, SIGTERM);
	assert_int_equal(cd.asked, 41);		/* not asked again once it said stop */
	assert_int_equal(s.ops, 40);
	assert_int_equal(r.nsamples, 40);
	assert_int_equal(r.nsizes, 1);
	assert_int_equal(r.sizes[0].n, 40);
	assert_int_equal(r.sizes[0].rounds, 2);	/* 16 offsets per round at 4 KiB */
	assert_false(r.verdict.resolved);
	assert_true(r.sizes[0].analysed);	/* the partial report: what was measured */
	ap_probe_result_free(&r);

	/* asked before the first write: nothing measured */
	cd = (struct countdown){ .after = 0 };
	s.ops = 0;
	run_sim(&s, &o, &r);
	assert_int_equal(r.interrupted, SIGTERM);
	assert_int_equal(s.ops, 0);
	assert_int_equal(r.nsamples, 0);
	ap_probe_result_free(&r);

	/* an empty one never cancels */
	ap_probe_opts_init(&o);
	s.ops = 0;
	run_sim(&s, &o, &r);
	assert_int_equal(r.interrupted, 0);
	assert_true(s.ops > 40);
	ap_probe_result_free(&r);
}

/*
 * A result of two analysed, clear sizes (4 and 8 KiB) of a five-size plan
 * on 512-byte sectors, for ap_probe_decide() alone; their verdicts are the
 * caller's.
 */
static void two_sizes(struct ap_probe_result *r, struct ap_probe_opts *o)
{
	ap_probe_opts_init(o);
	o->first_writes = false;	/* the sizes' decision alone */
	memset(r, 0, sizeof(*r));
	r->plan.logical_sector = 512;
	r->plan.reported_physical = 512;
	r->plan.nsizes = 5;
	r->nsizes = 2;
	r->sizes[0].size = 4096;
	r->sizes[1].size = 8192;
	r->sizes[0].analysed = r->sizes[0].clear = true;
	r->sizes[1].analysed = r->sizes[1].clear = true;
}

static void test_inconsistent(void **state)
{
	/* the confirming size disagrees: no verdict */
	struct ap_probe_result r;
	struct ap_probe_opts o;

	(void)state;
	two_sizes(&r, &o);
	r.sizes[0].verdict = (struct ap_verdict){ .sensitive = true, .resolved = true,
		.logical_sector = 512, .physical_sector = 4096, .period = 8,
		.lowest_aligned_lba = 0, .slowdown = 3, .p_value = 1e-9 };
	r.sizes[1].verdict = r.sizes[0].verdict;
	r.sizes[1].verdict.lowest_aligned_lba = 4;
	ap_probe_decide(&r, &o);
	assert_false(r.verdict.resolved);
	assert_non_null(strstr(r.verdict.note, "inconsistent"));
	assert_int_equal(r.decided, 0);
	assert_int_equal(r.confirmed, 1);

	r.sizes[1].verdict.lowest_aligned_lba = 0;
	ap_probe_decide(&r, &o);
	assert_true(r.verdict.resolved);
	assert_non_null(strstr(r.verdict.note, "confirm it"));
	assert_true(r.clear);
	ap_verdict_free(&r.verdict);
}

/*
 * A phase screen that handed its unit over confirms the deciding size when
 * it shows the same unit at the same phase, and only then: at another phase,
 * or not clear but for its rounds, it confirms nothing ("stopped early").
 */
static void test_screen_confirms(void **state)
{
	struct ap_probe_result r;
	struct ap_probe_opts o;

	(void)state;
	two_sizes(&r, &o);
	r.sizes[0].verdict = (struct ap_verdict){ .logical_sector = 512, .slowdown = 1.0,
		.p_value = 0.9, .resolved = true };
	r.sizes[1].verdict = (struct ap_verdict){ .sensitive = true, .resolved = true,
		.logical_sector = 512, .physical_sector = 8192, .period = 16,
		.lowest_aligned_lba = 5, .slowdown = 4, .p_value = 1e-7 };
	r.screen.size = 65536;
	r.screen.noffsets = 128;
	r.screen.phases = r.screen.analysed = r.screen.nominates = true;
	r.screen.verdict = r.sizes[1].verdict;

	ap_probe_decide(&r, &o);
	assert_true(r.verdict.resolved);
	assert_int_equal(r.decided, 1);
	assert_int_equal(r.confirmed, -1);
	assert_true(r.screen_confirms);
	assert_true(r.clear);
	assert_non_null(strstr(r.verdict.note, "8 KiB writes show 8192-byte physical sectors "
				"from LBA 5; 64 KiB writes at each of their 128 phases confirm it"));

	r.screen.verdict.lowest_aligned_lba = 0;	/* another phase */
	ap_probe_decide(&r, &o);
	assert_false(r.screen_confirms);
	assert_false(r.clear);
	assert_non_null(strstr(r.verdict.note, "not confirmed with larger writes"));

	r.screen.verdict.lowest_aligned_lba = 5;
	r.screen.nominates = false;			/* not clear but for its rounds */
	ap_probe_decide(&r, &o);
	assert_false(r.screen_confirms);
	assert_false(r.clear);

	r.screen.nominates = true;
	o.confirm = false;				/* --no-confirm: nothing confirms */
	ap_probe_decide(&r, &o);
	assert_false(r.screen_confirms);
	assert_true(!r.verdict.note || !strstr(r.verdict.note, "confirm it"));
	ap_verdict_free(&r.verdict);
}

/*
 * What an analysis derives from its verdict goes with it: a size analysed
 * again without a verdict (no samples, or the analysis failed) no longer
 * hands a unit over, nor has halves that differ. Before, both stayed from
 * the last analysis, beside a verdict that was gone.
 */
static void test_reanalysis_resets(void **state)
{
	struct ap_probe_result r;
	struct ap_probe_opts o;

	(void)state;
	two_sizes(&r, &o);
	r.sizes[1].phases = r.sizes[1].nominates = r.sizes[1].halves_differ = true;
	r.sizes[1].n = 0;
	assert_int_equal(ap_probe_analyse_size(&r, 1, &o), -EINVAL);
	assert_false(r.sizes[1].analysed);
	assert_false(r.sizes[1].clear);
	assert_false(r.sizes[1].nominates);
	assert_false(r.sizes[1].halves_differ);
}

/*
 * A unit the next size does not confirm is no verdict. An honest disk under
 * load once gave "1024-byte physical sectors, 1.55x, p = 1.65e-06" from
 * 4 KiB writes alone: a pattern one size shows and the next one does not is
 * no property of the drive (a unit of P sectors shows the same phase at
 * every size of P sectors or more), so it must not come out resolved.
 */
static void test_unconfirmed(void **state)
{
	struct ap_probe_result r;
	struct ap_probe_opts o;

	(void)state;
	ap_probe_opts_init(&o);
	memset(&r, 0, sizeof(r));
	r.plan.logical_sector = 512;
	r.plan.reported_physical = 512;
	r.plan.nsizes = 3;
	r.nsizes = 2;
	r.sizes[0].size = 4096;
	r.sizes[0].analysed = r.sizes[0].clear = true;
	r.sizes[0].verdict = (struct ap_verdict){ .sensitive = true, .resolved = true,
		.logical_sector = 512, .physical_sector = 1024, .period = 2,
		.lowest_aligned_lba = 0, .slowdown = 1.55, .p_value = 1.65e-6,
		.confidence = 1 - 1.65e-6 };
	r.sizes[1].size = 8192;
	r.sizes[1].analysed = true;
	r.sizes[1].verdict = (struct ap_verdict){ .logical_sector = 512, .slowdown = 1.05,
		.p_value = 0.4, .absence_partial = true };
	ap_probe_decide(&r, &o);
	assert_int_equal(r.decided, 0);
	assert_int_equal(r.confirmed, 1);
	assert_false(r.verdict.resolved);
	assert_false(r.verdict.sensitive);
	assert_int_equal(r.verdict.physical_sector, 0);
	assert_float_equal(r.verdict.confidence, 0, 0);
	assert_false(r.clear);
	assert_non_null(strstr(r.verdict.note, "no verdict"));
	assert_non_null(strstr(r.verdict.note, "8 KiB writes did not confirm it"));
	ap_verdict_free(&r.verdict);
}

/*
 * A parity RAID volume for the stripe step (issue 33): a write covering
 * only part of a stripe of @stripe bytes from byte @phase pays @rmw_ns (its
 * parity read first); every write costs @base_ns and its transfer, with
 * +-30% jitter and one write in 50 three times slower (a busy host). With
 * @absorb, a controller cache answers every write at once: no stripe
 * shows. Members that hide 4096-byte sectors (@sector4k) pay once more
 * for a write off that grid.
 */
struct raid {
	uint64_t stripe, phase, rmw_ns, base_ns, rng;
	double ns_per_byte;
	double hiccup;		/* a loaded host: this share of requests 4-8 ms later */
	bool absorb, sector4k;
	uint64_t writes;
};

static double raid_unit(uint64_t *rng)
{
	uint64_t z = (*rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (double)(z >> 11) / 9007199254740992.0;
}

static int raid_op(void *arg, bool write, uint64_t slot, uint64_t off, size_t len, uint64_t *ns)
{
	struct raid *d = arg;
	double c = (double)d->base_ns + d->ns_per_byte * (double)len;
	/* the offset from the stripes' start (0: no stripe) */
	uint64_t a = d->stripe ? off + d->stripe - d->phase % d->stripe : 0;

	(void)slot;
	if (write) {
		d->writes++;
		if (d->absorb) {
			*ns = 200000 + d->writes % 7 * 1000;
			return 0;
		}
		if (d->stripe && (a % d->stripe || (a + len) % d->stripe))
			c += (double)d->rmw_ns;
		if (d->sector4k && (off % 4096 || len % 4096))
			c += (double)d->rmw_ns;
	}
	c *= 1 + 0.3 * (2 * raid_unit(&d->rng) - 1);
	if (raid_unit(&d->rng) < 0.02)
		c *= 3;
	if (d->hiccup && raid_unit(&d->rng) < d->hiccup)
		c += 4e6 * (1 + raid_unit(&d->rng));
	*ns = (uint64_t)c + 1;
	return 0;
}

/* The volume @d (its defaults filled in) on a 1 GiB device, probed with @seed. */
static void raid_setup(struct raid *d, uint64_t seed, struct ap_probe_opts *o,
		       struct ap_probe_plan *plan, struct ap_probe_result *r)
{
	struct ap_error e = { 0 };

	ap_probe_opts_init(o);
	o->seed = seed;
	d->rng = seed * 7919;
	if (!d->base_ns)
		d->base_ns = 4000000;
	if (!d->ns_per_byte)
		d->ns_per_byte = 1e9 / 150e6 / 3;	/* three members at 150 MB/s */
	assert_int_equal(ap_probe_plan(o, 1ULL << 30, 512, plan, &e), 0);
	memset(r, 0, sizeof(*r));
}

/*
 * The volume @d probed with @seed into @r, the whole probe or (@step) the
 * stripe step alone: the stripe found, or 0.
 */
static uint64_t run_raid(struct raid *d, uint64_t seed, bool step, struct ap_probe_result *r)
{
	struct ap_probe_io io = { .op = raid_op, .arg = d };
	struct ap_probe_opts o;
	struct ap_probe_plan plan;
	struct ap_error e = { 0 };

	raid_setup(d, seed, &o, &plan, r);
	if (step)
		assert_int_equal(ap_probe_stripes(&io, &o, &plan, false, r, &e), 0);
	else
		assert_int_equal(ap_probe_measure(&io, &o, &plan, r, &e), 0);
	assert_true(r->st.measured);
	return r->st.found ? r->st.unit : 0;
}

static void expect_stripe(uint64_t stripe, uint64_t lba, uint64_t rmw_ns, uint64_t seed)
{
	struct raid d = { .stripe = stripe, .phase = lba * 512, .rmw_ns = rmw_ns };
	struct ap_probe_result r;
	const struct ap_verdict *v = &r.verdict;
	size_t i, found = 0;

	run_raid(&d, seed, false, &r);
	print_message("stripe %llu from LBA %llu, RMW %llu us (seed %llu): %s (%u candidates, "
		      "%llu MiB written)\n", (unsigned long long)stripe, (unsigned long long)lba,
		      (unsigned long long)rmw_ns / 1000, (unsigned long long)seed,
		      r.st.found ? "found" : r.st.why, r.st.candidates,
		      (unsigned long long)(r.st.written >> 20));
	assert_true(r.st.measured);
	assert_true(r.st.found);
	assert_int_equal(r.st.unit, stripe);
	assert_int_equal(r.st.lba, lba % (stripe / 512));
	for (i = 0; i < v->levels.n; i++)
		if (v->levels.l[i].kind == AP_LEVEL_STRIPE) {
			found++;
			assert_int_equal(v->levels.l[i].unit, stripe);
			assert_int_equal(v->levels.l[i].lowest_aligned_lba, lba % (stripe / 512));
			assert_int_equal(v->levels.l[i].paid, AP_PAID_EVERY_WRITE);
		}
	assert_int_equal(found, 1);
	assert_non_null(strstr(v->note, "stripe from LBA"));
	ap_probe_result_free(&r);
}

/*
 * Stripes (issue 33): before the stripe step the probe called every one of
 * these volumes honest (its largest timed write is 64 KiB, and every 4 KiB
 * to 64 KiB write pays the same parity read wherever it lands). Powers of
 * two and not (three data disks of 64 KiB: 192 KiB), a partition's phase
 * (1 MiB into a 192 KiB stripe: LBA 128 of 384), a rotating member's
 * revolution (8.3 ms) and a quarter of it, md's 4-disk RAID 5 at its
 * default chunk (1.5 MiB).
 */
static void test_stripes(void **state)
{
	(void)state;
	expect_stripe(192 << 10, 0, 8300000, 71);	/* raid5, 3 x 64 KiB */
	expect_stripe(192 << 10, 128, 8300000, 72);	/* ... its partition at 1 MiB */
	expect_stripe(512 << 10, 0, 8300000, 73);	/* raid6, 4 x 128 KiB */
	expect_stripe(320 << 10, 0, 2000000, 74);	/* 5 x 64 KiB, a small cost */
	expect_stripe(448 << 10, 64, 8300000, 75);	/* 7 x 64 KiB */
	expect_stripe(1536 << 10, 0, 8300000, 76);	/* md: 3 x 512 KiB */
	/*
	 * raid6 at a 3 ms cost (1.6x, as the emulated raid6-6x128k): the scan
	 * ranked 3.5 MiB from LBA 4096 first, 7 stripes from a stripe's start,
	 * and its confirmation showed it (3.5 stripes off is not whole): a
	 * wrong unit until the units it divides into were confirmed too, each
	 * by a ratio at least the larger one's.
	 */
	expect_stripe(512 << 10, 0, 3000000, 1);
	/*
	 * raid5 at a 4 ms cost (1.9x, as the emulated raid5-4x64k): one slow
	 * write of the four at 192 KiB kept that class out of the candidates
	 * (p 0.056), and the scan ranked 384 KiB from LBA 0 first, whose
	 * confirmation against writes half a stripe off (192 KiB: whole
	 * stripes too) could never show: no stripe, in 30 seeds of 500. The
	 * control 64 KiB off confirms 384 KiB, and descend() takes it down.
	 */
	expect_stripe(192 << 10, 0, 4000000, 6);
	expect_stripe(192 << 10, 0, 4000000, 12);
}

/*
 * The stripe step alone on a @stripe from LBA 0 at a @rmw_ns cost, a
 * @hiccup share of the requests 4-8 ms late, seed @seed: the stripe and
 * its phase.
 */
static void expect_stripe_step(uint64_t stripe, uint64_t rmw_ns, double hiccup, uint64_t seed)
{
	struct raid d = { .stripe = stripe, .rmw_ns = rmw_ns, .hiccup = hiccup };
	struct ap_probe_result r;

	assert_int_equal(run_raid(&d, seed, true, &r), stripe);
	assert_int_equal(r.st.lba, 0);
	ap_probe_result_free(&r);
}

/*
 * A stripe's class kept out of the candidates: each offset is written
 * once, and one slow write among its few offsets put its class at p 0.05
 * or more, or below four others by ratio; none confirmed (raid6 at 3 ms,
 * seeds 23 and 50; md's 1.5 MiB, seeds 11 and 49). Screened at 0.2, eight
 * confirmed, they are found. And a confirmation that showed once by
 * chance, on the same raid6 (seed 35): descend() took 256 KiB, half the
 * stripe, where every write is partial (1.27x, p 7.8e-5); shown twice, it
 * stays at 512 KiB.
 */
static void test_stripes_screen(void **state)
{
	(void)state;
	expect_stripe_step(512 << 10, 3000000, 0, 23);
	expect_stripe_step(512 << 10, 3000000, 0, 50);
	expect_stripe_step(1536 << 10, 8300000, 0, 11);
	expect_stripe_step(1536 << 10, 8300000, 0, 49);
	expect_stripe_step(512 << 10, 3000000, 0, 35);
}

/*
 * A 512 KiB stripe shows in one width only (every width of the second
 * scale lands on its multiples): its class of two offsets there lost it
 * to one slow write, at a 5 ms cost with 5 % of the requests 4-8 ms late
 * (seeds 70 and 145: no stripe). Four widths of offsets give it four.
 */
static void test_stripes_512k(void **state)
{
	(void)state;
	expect_stripe_step(512 << 10, 5000000, 0.05, 70);
	expect_stripe_step(512 << 10, 5000000, 0.05, 145);
}

/*
 * No stripe where there is none: an honest volume, members hiding
 * 4096-byte sectors (the timed sizes' unit, not a stripe), a controller
 * cache that answers every write (nothing to see: never a stripe made up).
 */
static void test_stripes_none(void **state)
{
	struct ap_probe_result r;
	uint64_t seed;

	(void)state;
	for (seed = 81; seed < 87; seed++) {
		struct raid d = { .stripe = 0, .rmw_ns = 8300000, .sector4k = seed % 2 };

		run_raid(&d, seed, false, &r);
		assert_true(r.st.measured);
		assert_false(r.st.found);
		assert_non_null(strstr(r.verdict.note, "no stripe above 64 KiB up to 512 KiB"));
		assert_non_null(strstr(r.verdict.note, "512 KiB up to 4 MiB"));
		ap_probe_result_free(&r);
	}
	{
		struct raid d = { .stripe = 192 << 10, .rmw_ns = 8300000, .absorb = true };

		run_raid(&d, 90, false, &r);
		assert_false(r.st.found);
		ap_probe_result_free(&r);
	}
	{
		/* a 480 KiB stripe at 1.27x, confirmed once by chance */
		struct raid d = { .rmw_ns = 8300000 };

		assert_int_equal(run_raid(&d, 35, true, &r), 0);
		ap_probe_result_free(&r);
	}
}

/*
 * No stripe made up on a loaded host: an honest volume whose requests are
 * 4-8 ms late one time in ten, the stripe step alone, 300 seeds. With
 * each confirmation's rank test at 0.001 (up to four candidates, up to
 * three looks each) seed 119 named a 416 KiB stripe (1.21x, p 7.2e-4).
 */
static void test_stripes_none_loaded(void **state)
{
	unsigned found = 0;
	uint64_t seed;

	(void)state;
	for (seed = 1; seed <= 300; seed++) {
		struct raid d = { .rmw_ns = 8300000, .hiccup = 0.1 };
		struct ap_probe_result r;

		if (run_raid(&d, seed, true, &r)) {
			print_message("seed %llu: a %llu-byte stripe at %.2fx, p %.2g\n",
				      (unsigned long long)seed, (unsigned long long)r.st.unit,
				      r.st.ratio, r.st.p);
			found++;
		}
		ap_probe_result_free(&r);
	}
	assert_int_equal(found, 0);
}

/* The stripe step's plan: destructive only, inside the region, its widths. */
static void test_stripe_plan(void **state)
{
	struct ap_probe_opts o;
	struct ap_probe_plan p;
	struct ap_error e = { 0 };
	uint64_t w[32], g[32];
	size_t n, i;

	(void)state;
	ap_probe_opts_init(&o);
	assert_int_equal(ap_probe_plan(&o, 1ULL << 30, 512, &p, &e), 0);
	assert_int_equal(p.st_cap, 4 << 20);
	assert_true(p.st_start >= p.region_start);
	assert_true(p.st_start + p.st_len <= p.region_start + p.region_size);
	n = ap_probe_stripe_widths(&p, w, g, 32);
	assert_int_equal(n, 12);	/* m = 1..15 up to 512 KiB; 1..7 above */
	assert_int_equal(w[0], 512 << 10);
	assert_int_equal(w[1], 384 << 10);
	assert_int_equal(w[4], 288 << 10);
	for (i = 0; i < n; i++) {
		assert_true(w[i] > 65536);
		assert_int_equal(w[i] % g[i], 0);
		assert_true(g[i] == (i < 8 ? 32768 : 524288) || w[i] % 32768);
	}
	assert_int_equal(w[8], 4 << 20);
	assert_int_equal(w[9], 3 << 20);
	/* a small region: smaller widths */
	o.region_size = 8 << 20;
	assert_int_equal(ap_probe_plan(&o, 1ULL << 30, 512, &p, &e), 0);
	assert_true(p.st_cap <= 2 << 20 && p.st_cap > 65536);
	assert_true(p.st_start + p.st_len <= p.region_start + p.region_size);
	/* --max-size 64K: none; preserve and read-only: none */
	ap_probe_opts_init(&o);
	o.max_size = 65536;
	assert_int_equal(ap_probe_plan(&o, 1ULL << 30, 512, &p, &e), 0);
	assert_int_equal(p.st_cap, 0);
	ap_probe_opts_init(&o);
	o.mode = AP_PROBE_PRESERVE;
	assert_int_equal(ap_probe_plan(&o, 1ULL << 30, 512, &p, &e), 0);
	assert_int_equal(p.st_cap, 0);
}

/* --samples: one CSV line per timed operation; the journal and plot names per device. */
static void test_samples_and_paths(void **state)
{
	struct ap_probe_sample smp[2] = {
		{ .size = 4096, .offset = 1, .round = 0, .slot = 3, .ns = 8000000 },
		{ .size = 65536, .offset = 127, .round = 2, .slot = 0, .ns = 7 },
	};
	struct ap_probe_result r = { .samples = smp, .nsamples = 2 };
	char *buf = NULL, *p;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	ap_probe_samples_csv(f, "/dev/sdb", &r);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf, "/dev/sdb,4096,1,0,3,8000000\n/dev/sdb,65536,127,2,0,7\n");
	free(buf);
	p = ap_probe_plot_path("out/p.svg", "/dev/sdb", true);
	assert_string_equal(p, "out/p-sdb.svg");
	free(p);
	p = ap_probe_plot_path("out.d/p", "/dev/sdb", true);
	assert_string_equal(p, "out.d/p-sdb");
	free(p);
	p = ap_probe_plot_path("p.svg", "/dev/sdb", false);
	assert_string_equal(p, "p.svg");
	free(p);
	p = ap_probe_journal_path("/tmp/j", true, "/dev/loop3");
	assert_string_equal(p, "/tmp/j.loop3");
	free(p);
}

/* What ap_probe_prepare()'s hooks saw. */
struct prep_seen {
	int admit_status;
	unsigned admitted, identified;
	bool writes;
};

static int seen_admit(void *arg, const char *dev, bool writes)
{
	struct prep_seen *x = arg;

	(void)dev;
	x->admitted++;
	x->writes = writes;
	return x->admit_status;
}

static int seen_identity(void *arg, const char *dev, const struct ap_disk_identity *id)
{
	struct prep_seen *x = arg;

	(void)dev;
	(void)id;
	x->identified++;
	return 0;
}

/*
 * The preparation's order: the name, then who else uses it (the
 * command's gate, whose status ends it there), then the geometry; each
 * error says what it is about.
 */
static void test_prepare_order(void **state)
{
	struct ap_probe_opts o;
	struct prep_seen x = { 0 };
	struct ap_probe_prep_opts po = {
		.o = &o, .hooks = { .admit = seen_admit, .identity = seen_identity, .arg = &x },
	};
	struct ap_probe_prep p;
	struct ap_error e = { 0 };
	char path[] = "/tmp/test_probe_prep.XXXXXX";
	int fd;

	(void)state;
	ap_probe_opts_init(&o);
	o.mode = AP_PROBE_DESTRUCTIVE;
	assert_int_equal(ap_probe_prepare(&p, "", &po, &e), -ENOENT);
	assert_null(p.about);
	assert_string_equal(e.msg, "empty device name");
	ap_probe_prep_free(&p);
	assert_int_equal(ap_probe_prepare(&p, "/nonexistent/disk", &po, &e), -ENOENT);
	assert_string_equal(p.about, "/nonexistent/disk");
	ap_probe_prep_free(&p);
	assert_int_equal(x.admitted, 0);

	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	/* the gate refuses (exit 3): nothing after it runs */
	x.admit_status = 3;
	assert_int_equal(ap_probe_prepare(&p, path, &po, &e), 3);
	assert_int_equal(x.admitted, 1);
	assert_true(x.writes);
	assert_int_equal(x.identified, 0);
	ap_probe_prep_free(&p);
	/* admitted: the geometry of a file that is no block device */
	x.admit_status = 0;
	o.mode = AP_PROBE_READONLY;
	assert_int_equal(ap_probe_prepare(&p, path, &po, &e), -ENOTBLK);
	assert_int_equal(x.admitted, 2);
	assert_false(x.writes);
	assert_int_equal(x.identified, 0);
	assert_string_equal(p.about, path);
	assert_non_null(strstr(e.msg, "not a block device"));
	ap_probe_prep_free(&p);
	unlink(path);
}

/* The order across devices: a log of the hooks' calls, a status at one. */
struct order_log {
	char calls[128];
	size_t n;
	char stop_kind;
	size_t stop_at;
};

static int order_note(struct order_log *l, char kind, size_t i)
{
	l->calls[l->n++] = kind;
	l->calls[l->n++] = (char)('0' + i);
	l->calls[l->n] = '\0';
	return kind == l->stop_kind && i == l->stop_at ? 3 : 0;
}

static int log_check(void *arg, size_t i)
{
	return order_note(arg, 'k', i);
}

static int log_confirm(void *arg, size_t i)
{
	return order_note(arg, 'c', i);
}

static int log_attach(void *arg, size_t i)
{
	return order_note(arg, 'a', i);
}

/*
 * Every named device checked before any is confirmed; the emulated drives
 * set up only after every named one is held, each checked and confirmed
 * before the next is set up; the first status ends the order.
 */
static void test_probe_order(void **state)
{
	struct order_log l = { .stop_kind = 0 };
	struct ap_probe_order_hooks h = {
		.check = log_check, .confirm = log_confirm, .attach = log_attach, .arg = &l,
	};

	(void)state;
	assert_int_equal(ap_probe_check_named(2, &h), 0);
	assert_int_equal(ap_probe_confirm_all(2, 2, &h), 0);
	assert_string_equal(l.calls, "k0k1c0c1a2k2c2a3k3c3");
	l.n = 0;
	l.stop_kind = 'c';
	l.stop_at = 1;	/* a named device refused: no drive is set up */
	assert_int_equal(ap_probe_confirm_all(2, 2, &h), 3);
	assert_string_equal(l.calls, "c0c1");
	l.n = 0;
	l.stop_kind = 'k';
	l.stop_at = 2;	/* the first drive fails its checks: the second is never set up */
	assert_int_equal(ap_probe_confirm_all(2, 2, &h), 3);
	assert_string_equal(l.calls, "c0c1a2k2");
	l.n = 0;
	l.stop_at = 0;
	assert_int_equal(ap_probe_check_named(2, &h), 3);
	assert_string_equal(l.calls, "k0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_samples_and_paths),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_prepare_order),
		cmocka_unit_test(test_probe_order),
		cmocka_unit_test(test_untouched),
		cmocka_unit_test(test_margins),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_honest),
		cmocka_unit_test(test_small_effect),
		cmocka_unit_test(test_too_large),
		cmocka_unit_test(test_readonly),
		cmocka_unit_test(test_no_confirm_and_budget),
		cmocka_unit_test(test_interrupt),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_inconsistent),
		cmocka_unit_test(test_unconfirmed),
		cmocka_unit_test(test_lead_in_unknown),
		cmocka_unit_test(test_lead_in_honest),
		cmocka_unit_test(test_lead_in_unit),
		cmocka_unit_test(test_honest_floor),
		cmocka_unit_test(test_honest_early),
		cmocka_unit_test(test_effect_early),
		cmocka_unit_test(test_screen_hands_over),
		cmocka_unit_test(test_screen_confirms),
		cmocka_unit_test(test_reanalysis_resets),
		cmocka_unit_test(test_warm_ups_ruled_out),
		cmocka_unit_test(test_lead_in_where),
		cmocka_unit_test(test_flush_ignored),
		cmocka_unit_test(test_lead_in_read_ahead),
		cmocka_unit_test(test_rmw_buffer),
		cmocka_unit_test(test_stripe_plan),
		cmocka_unit_test(test_stripe_floor),
		cmocka_unit_test(test_stripes),
		cmocka_unit_test(test_stripes_screen),
		cmocka_unit_test(test_stripes_512k),
		cmocka_unit_test(test_stripes_none),
		cmocka_unit_test(test_stripes_none_loaded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
