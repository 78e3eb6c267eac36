// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The smr engine's pure parts (src/smr/): the verdict from the signals
 * and the phases, the VPD B1h parser, the plan.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/rng.h"
#include "smr/smr.h"

#define MS	1000000ULL
#define US	1000ULL

/* A phase of 128 writes, @faster of them faster than their read. */
static void phase(struct ap_smr_phase *ph, unsigned faster, bool cache_on)
{
	memset(ph, 0, sizeof(*ph));
	ph->done = true;
	ph->n = 128;
	ph->faster = faster;	/* decides */
	ph->median_ns = 1 * MS;
	ph->read_median_ns = 8 * MS;
	ph->cache_known = true;
	ph->cache_on = cache_on;
}

static void rotating(struct ap_smr_result *r, uint64_t seek)
{
	memset(r, 0, sizeof(*r));
	r->rotation_measured = true;
	r->seek_read_ns = seek;
	r->cache_switchable = true;
}

static void test_decide(void **state)
{
	struct ap_smr_result r;

	(void)state;
	/* DM-SMR: fast on, fast off */
	rotating(&r, 5 * MS);
	phase(&r.on, 127, true);
	phase(&r.off, 128, false);
	ap_smr_decide(&r);
	assert_int_equal(r.verdict, AP_SMR_PERSISTENT_CACHE);
	assert_non_null(strstr(r.reason, "hybrid"));
	assert_false(r.unflushed);
	/* a bridge dropping flushes: fast on, slow off */
	rotating(&r, 5 * MS);
	phase(&r.on, 126, true);
	phase(&r.off, 60, false);
	ap_smr_decide(&r);
	assert_int_equal(r.verdict, AP_SMR_CONVENTIONAL);
	assert_true(r.unflushed);
	/* CMR: slow on and off */
	rotating(&r, 3 * MS);
	phase(&r.on, 66, true);
	phase(&r.off, 61, false);
	ap_smr_decide(&r);
	assert_int_equal(r.verdict, AP_SMR_CONVENTIONAL);
	assert_false(r.unflushed);
	/* a busy machine slowed the phase with the cache on: the phase off decides */
	rotating(&r, 3 * MS);
	phase(&r.on, 80, true);
	phase(&r.off, 125, false);
	ap_smr_decide(&r);
	assert_int_equal(r.verdict, AP_SMR_PERSISTENT_CACHE);
	/* slow with the cache on and no switch: conventional */
	rotating(&r, 3 * MS);
	r.cache_switchable = false;
	phase(&r.on, 64, true);
	r.on.cache_known = false;
	ap_smr_decide(&r);
	assert_int_equal(r.verdict, AP_SMR_CONVENTIONAL);
	/* fast, and the cache cannot be switched: cannot tell */
	rotating(&r, 5 * MS);
	r.cache_switchable = false;
	phase(&r.on, 126, true);
	r.on.cache_known = false;
	ap_smr_decide(&r);
	assert_int_equal(r.verdict, AP_SMR_UNKNOWN);
	assert_non_null(strstr(r.reason, "cannot be switched off"));
	/* fast with the cache found off: that phase decides */
	rotating(&r, 5 * MS);
	phase(&r.on, 120, false);
	ap_smr_decide(&r);
	assert_int_equal(r.verdict, AP_SMR_PERSISTENT_CACHE);
	/* flash: not applicable */
	rotating(&r, 200 * US);
	ap_smr_decide(&r);
	assert_int_equal(r.verdict, AP_SMR_NOT_ROTATING);
	/* the share decides at its limit: 75 % of 128 is 96 */
	rotating(&r, 3 * MS);
	phase(&r.on, 95, false);
	ap_smr_decide(&r);
	assert_int_equal(r.verdict, AP_SMR_CONVENTIONAL);
	rotating(&r, 3 * MS);
	phase(&r.on, 96, false);
	ap_smr_decide(&r);
	assert_int_equal(r.verdict, AP_SMR_PERSISTENT_CACHE);
}

static void test_signals(void **state)
{
	struct ap_smr_result r;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.sig.zone_model = AP_SMR_ZM_NONE;
	assert_false(ap_smr_decide_signals(&r));
	r.sig.zone_model = AP_SMR_ZM_HOST_MANAGED;
	r.sig.zone_source = "queue/zoned";
	assert_true(ap_smr_decide_signals(&r));
	assert_int_equal(r.verdict, AP_SMR_HOST_MANAGED);
	assert_non_null(strstr(r.reason, "nothing was written"));
	r.sig.zone_model = AP_SMR_ZM_HOST_AWARE;
	assert_true(ap_smr_decide_signals(&r));
	assert_int_equal(r.verdict, AP_SMR_HOST_AWARE);
	r.sig.zone_model = AP_SMR_ZM_DEVICE_MANAGED;
	assert_true(ap_smr_decide_signals(&r));
	assert_int_equal(r.verdict, AP_SMR_PERSISTENT_CACHE);
	memset(&r, 0, sizeof(r));
	r.sig.media_rpm = 1;
	assert_true(ap_smr_decide_signals(&r));
	assert_int_equal(r.verdict, AP_SMR_NOT_ROTATING);
	r.sig.media_rpm = 5400;
	r.verdict = AP_SMR_UNKNOWN;
	assert_false(ap_smr_decide_signals(&r));
}

static void test_vpd_b1(void **state)
{
	uint8_t b[64] = { 0, 0xb1, 0, 0x3c, 0x15, 0x18 };	/* 5400 rpm */
	unsigned rpm, zoned;

	(void)state;
	b[8] = 2 << 4;		/* device-managed */
	assert_int_equal(ap_smr_parse_vpd_b1(b, sizeof(b), &rpm, &zoned), 0);
	assert_int_equal(rpm, 5400);
	assert_int_equal(zoned, 2);
	b[4] = 0;
	b[5] = 1;
	b[8] = 0;
	assert_int_equal(ap_smr_parse_vpd_b1(b, sizeof(b), &rpm, &zoned), 0);
	assert_int_equal(rpm, 1);
	assert_int_equal(zoned, 0);
	b[1] = 0xb0;
	assert_int_equal(ap_smr_parse_vpd_b1(b, sizeof(b), &rpm, &zoned), -EINVAL);
	b[1] = 0xb1;
	assert_int_equal(ap_smr_parse_vpd_b1(b, 8, &rpm, &zoned), -EINVAL);
}

/* the IDENTIFY DEVICE data log's page list and zoned device information page (log 30h) */
static void test_zoned_log(void **state)
{
	uint8_t list[512] = { 0x01, 0x00, 0x00, 0, 0, 0, 0, 0x80, 3, 0x00, 0x01, 0x09 };
	uint8_t zi[512] = { 0x01, 0x00, 0x09, 0, 0, 0, 0, 0x80 };
	struct ap_smr_zoned_info z;

	(void)state;
	assert_true(ap_smr_log_page_listed(list, sizeof(list), 0x09));
	assert_false(ap_smr_log_page_listed(list, sizeof(list), 0x08));
	list[8] = 2;		/* two entries: 09h is past them */
	assert_false(ap_smr_log_page_listed(list, sizeof(list), 0x09));
	list[2] = 0x09;		/* not page 00h */
	list[8] = 3;
	assert_false(ap_smr_log_page_listed(list, sizeof(list), 0x09));

	zi[8] = 1;		/* URSWRZ, valid */
	zi[15] = 0x80;
	zi[24] = 8;		/* optimal open zones 8, valid */
	zi[31] = 0x80;
	zi[32] = 5;		/* optimal non-sequential 5: not valid */
	zi[40] = 0x80;		/* maximum open 128 (0x80), valid */
	zi[47] = 0x80;
	assert_int_equal(ap_smr_parse_zoned_info(zi, sizeof(zi), &z), 0);
	assert_int_equal(z.urswrz, 1);
	assert_int_equal(z.opt_open, 8);
	assert_int_equal(z.opt_nonseq, UINT32_MAX);
	assert_int_equal(z.max_open, 128);
	zi[15] = 0;
	assert_int_equal(ap_smr_parse_zoned_info(zi, sizeof(zi), &z), 0);
	assert_int_equal(z.urswrz, -1);
	assert_int_equal(ap_smr_parse_zoned_info(zi, 40, &z), -EINVAL);
	zi[2] = 0x08;		/* another page */
	assert_int_equal(ap_smr_parse_zoned_info(zi, sizeof(zi), &z), -EINVAL);
	zi[2] = 0x09;
	zi[0] = 0x02;		/* another revision */
	assert_int_equal(ap_smr_parse_zoned_info(zi, sizeof(zi), &z), -EINVAL);
}

static void test_plan(void **state)
{
	struct ap_smr_plan p;
	struct ap_error e = { 0 };
	uint64_t last;

	(void)state;
	assert_int_equal(ap_smr_plan(4ULL << 40, 512, 128, 1, &p, &e), 0);
	assert_int_equal(p.span, 4096);
	assert_true(p.region_start == AP_SMR_MARGIN);
	assert_int_equal(p.stride % 4096, 0);
	last = p.region_start + (uint64_t)(p.slots - 1) * p.stride + p.span;
	assert_true(last <= p.region_start + p.region_size);
	assert_true(last > (4ULL << 40) - (64ULL << 30));	/* the whole range */
	assert_int_equal(ap_smr_plan(4ULL << 40, 4096, 128, 1, &p, &e), 0);
	assert_int_equal(p.span, 4096);
	assert_int_equal(ap_smr_plan(32ULL << 20, 512, 128, 1, &p, &e), -ENOSPC);
	assert_non_null(strstr(e.msg, "too small"));
	assert_int_equal(ap_smr_plan(1ULL << 30, 512, 1, 1, &p, &e), -EINVAL);
}

/* Every read a seek away stays inside the region, on every size (it read past the end). */
static void test_read_offsets(void **state)
{
	static const uint64_t sizes[] = { 64ULL << 20, 256ULL << 20, 1ULL << 30, 4ULL << 40 };
	static const unsigned writes[] = { 8, 32, 128, 4096 };
	struct ap_smr_plan p;
	struct ap_error e = { 0 };
	uint64_t off;
	size_t i, k;
	unsigned o;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (k = 0; k < sizeof(writes) / sizeof(writes[0]); k++) {
			if (ap_smr_plan(sizes[i], 512, writes[k], 1, &p, &e) != 0)
				continue;
			for (o = 0; o < p.slots; o++) {
				off = ap_smr_read_offset(&p, o);
				assert_true(off >= p.region_start);
				assert_true(off + p.span <= p.region_start + p.region_size);
				assert_int_equal(off % p.span, 0);
			}
		}
}

/*
 * Synthetic write latencies: @n writes of @base_ns +-30 % with 1 % spikes
 * of 5 to 30 times (the machine busy, a retry); from @cliff on (n: none)
 * a full cache: one write in @every stalls for 2 to 4 s.
 */
static uint64_t *latencies(size_t n, uint64_t base_ns, size_t cliff, unsigned every,
			   uint64_t seed)
{
	uint64_t *lat = test_malloc(n * sizeof(*lat));
	struct ap_rng rng;
	size_t i;

	ap_rng_seed(&rng, seed);
	for (i = 0; i < n; i++) {
		lat[i] = base_ns * 7 / 10 + ap_rng_below(&rng, base_ns * 6 / 10);
		if (ap_rng_below(&rng, 100) == 0)
			lat[i] *= 5 + ap_rng_below(&rng, 26);
		if (i >= cliff && ap_rng_below(&rng, every) == 0)
			lat[i] = 2000 * MS + ap_rng_below(&rng, 2000 * MS);
	}
	return lat;
}

/* The first stall at or after @cliff. */
static size_t first_stall(const uint64_t *lat, size_t n, size_t cliff)
{
	while (cliff < n && lat[cliff] < 1000 * MS)
		cliff++;
	return cliff;
}

/* Fed window by window as the deep test does: the cliff found once, where it is. */
static void test_cliff(void **state)
{
	static const struct { uint64_t base; size_t cliff; unsigned every; } cases[] = {
		{ 8 * MS, 5000, 20 },		/* a real disk: 120 IOPS, then stalls */
		{ 500 * US, 192, 5 },		/* the emulated drive, a small cache */
		{ 8 * MS, 20000, 25 },		/* rarer stalls: still 13 times slower */
	};
	size_t k, n, i;
	uint64_t seed;

	(void)state;
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
		for (seed = 1; seed <= 20; seed++) {
			struct ap_smr_cliff c = { 0 };
			uint64_t *lat;
			size_t stall;

			n = cases[k].cliff + 4000;
			lat = latencies(n, cases[k].base, cases[k].cliff, cases[k].every, seed);
			stall = first_stall(lat, n, cases[k].cliff);
			for (i = AP_SMR_CLIFF_WINDOW; i <= n; i += AP_SMR_CLIFF_WINDOW)
				if (ap_smr_cliff_find(lat, i, &c))
					break;
			assert_true(c.found);
			/*
			 * within a few windows: a spike in the cliff's window may come
			 * before the stall, lone first stalls may not slow their windows
			 * enough (sparse stalls: up to 5 windows late here)
			 */
			assert_true(c.at + AP_SMR_CLIFF_WINDOW > stall);
			assert_true(c.at < stall + 8 * AP_SMR_CLIFF_WINDOW);
			assert_true(c.base_ns > cases[k].base * 8 / 10);
			assert_true(c.base_ns < cases[k].base * 2);	/* means: the spikes count */
			assert_true(c.after_ns > c.base_ns * AP_SMR_CLIFF_FACTOR);
			test_free(lat);
		}
}

/* Noise, spikes and a burst of slow writes are no cliff; too few writes say nothing. */
static void test_no_cliff(void **state)
{
	struct ap_smr_cliff c = { 0 };
	uint64_t *lat;
	size_t n = 20000, i, seed;

	(void)state;
	for (seed = 1; seed <= 20; seed++) {
		memset(&c, 0, sizeof(c));
		lat = latencies(n, 8 * MS, n, 1, seed);
		/* the machine busy for 40 writes: one window 10 times slower */
		for (i = 3000; i < 3040; i++)
			lat[i] *= 10;
		for (i = AP_SMR_CLIFF_WINDOW; i <= n; i += AP_SMR_CLIFF_WINDOW)
			assert_false(ap_smr_cliff_find(lat, i, &c));
		assert_false(c.found);
		assert_true(c.base_ns > 0);
		test_free(lat);
	}
	/* fewer writes than the first windows: no base yet */
	memset(&c, 0, sizeof(c));
	lat = latencies(100, 8 * MS, 50, 1, 1);
	assert_false(ap_smr_cliff_find(lat, 100, &c));
	assert_int_equal(c.base_ns, 0);
	test_free(lat);
}

/* The idle probes: growing intervals, two fast in a row, the first of them reported. */
static void test_idle(void **state)
{
	struct ap_smr_idle s;
	uint64_t t = 0;
	unsigned i;

	(void)state;
	ap_smr_idle_init(&s, 1 * MS);
	assert_int_equal(s.interval_ns, AP_SMR_IDLE_FIRST);
	t += s.interval_ns;
	assert_false(ap_smr_idle_step(&s, t, 400 * MS));	/* waits for a band */
	assert_int_equal(s.interval_ns, AP_SMR_IDLE_FIRST * 3 / 2);
	t += s.interval_ns;
	assert_false(ap_smr_idle_step(&s, t, 2 * MS));		/* at a band's end: fast */
	assert_true(s.pending);
	t += s.interval_ns;
	assert_false(ap_smr_idle_step(&s, t, 300 * MS));	/* still cleaning */
	assert_false(s.pending);
	assert_int_equal(s.last_slow_ns, t);
	t += s.interval_ns;
	assert_false(ap_smr_idle_step(&s, t, 1 * MS));
	assert_true(ap_smr_idle_step(&s, t + s.interval_ns, 1 * MS));
	assert_true(s.clean);
	assert_int_equal(s.clean_ns, t);
	assert_int_equal(s.probes, 5);
	assert_int_equal(s.slow, 2);
	assert_int_equal(s.longest_ns, 400 * MS);
	/* a drive that never gets clean: the interval stops growing at the cap */
	ap_smr_idle_init(&s, 1 * MS);
	for (i = 0; i < 30; i++)
		assert_false(ap_smr_idle_step(&s, i, 1000 * MS));
	assert_int_equal(s.interval_ns, AP_SMR_IDLE_MAX);
}

/* The deep test's outcomes in words and JSON: each says what it found or why not. */
static void test_deep_words(void **state)
{
	struct ap_smr_deep d;
	struct json_object *o, *v;
	char *w;

	(void)state;
	memset(&d, 0, sizeof(d));
	d.asked = true;
	snprintf(d.reason, sizeof(d.reason), "nothing to measure");
	w = ap_smr_deep_words(&d);
	assert_string_equal(w, "deep test: not run: nothing to measure\n");
	free(w);
	o = ap_smr_deep_to_json(&d);
	assert_false(json_object_get_boolean(json_object_object_get(o, "ran")));
	assert_false(json_object_object_get_ex(o, "cache_bytes", &v));
	json_object_put(o);

	/* the cliff after 1000 writes, then still cleaning at the end */
	d.ran = true;
	d.time_budget_ns = 600 * AP_NSEC_PER_SEC;
	d.span = 4096;
	d.writes = 1128;
	d.stop = "cliff";
	d.cliff.found = true;
	d.cliff.at = 1024;
	d.cliff.base_ns = 8 * MS;
	d.cliff.after_ns = 600 * MS;
	d.idle_ran = true;
	d.idle.probes = 3;
	d.idle.slow = 3;
	d.idle.last_slow_ns = 4 * AP_NSEC_PER_SEC;
	w = ap_smr_deep_words(&d);
	assert_non_null(strstr(w, "persistent cache: 4.0 MiB (1024 writes of 4096 bytes before "
			       "the cliff; 8.00 ms a write before, 600.0 ms after"));
	assert_non_null(strstr(w, "band size: not measured: "));
	assert_non_null(strstr(w, "idle cleaning: still cleaning when the budget ran out "
			       "(3 probes, the last slow 4.0 s after the last write)"));
	free(w);
	o = ap_smr_deep_to_json(&d);
	assert_int_equal(json_object_get_int64(json_object_object_get(o, "cache_bytes")),
			 4 << 20);
	assert_true(json_object_object_get_ex(o, "band_bytes", &v) && v == NULL);
	assert_false(json_object_get_boolean(json_object_object_get(o, "idle_clean")));
	assert_true(json_object_object_get_ex(o, "idle_clean_ns", &v) && v == NULL);
	d.idle.longest_ns = 700 * MS;
	json_object_put(o);
	o = ap_smr_deep_to_json(&d);
	assert_int_equal(json_object_get_int64(json_object_object_get(o, "idle_longest_wait_ns")),
			 700 * MS);
	json_object_put(o);

	/* no time left for a probe */
	d.idle.probes = 0;
	w = ap_smr_deep_words(&d);
	assert_non_null(strstr(w, "idle cleaning: not measured: the budget ran out at the cliff"));
	free(w);
	d.idle.probes = 3;

	/* clean again */
	d.idle.clean = true;
	d.idle.clean_ns = 9 * AP_NSEC_PER_SEC;
	d.idle.probes = 5;
	w = ap_smr_deep_words(&d);
	assert_non_null(strstr(w, "idle cleaning: writes fast again 9.0 s after the last "
			       "(4.0 s the last slow probe; 5 probes"));
	free(w);

	/* a band found: in words, and in the JSON (smr/band.sh measures one) */
	d.band.ran = d.band.found = true;
	d.band.bytes = 12 << 20;
	d.band.error = 1 << 20;
	d.band.at = 101400576;
	d.band.clean_ns = 240 * MS;
	d.band.delay_ns = 310 * MS;
	d.band.pairs = 16;
	w = ap_smr_deep_words(&d);
	assert_non_null(strstr(w, "  band size: 12.0 MiB +- 1.0 MiB (the band from 96.7 MiB: two "
			       "writes into it cost one band's cleaning, 0.24 s, a write past it "
			       "two; cleaning starts 0.31 s after the last request; 16 pairs)\n"));
	free(w);
	o = ap_smr_deep_to_json(&d);
	assert_int_equal(json_object_get_int64(json_object_object_get(o, "band_bytes")), 12 << 20);
	assert_int_equal(json_object_get_int64(json_object_object_get(o, "band_error_bytes")),
			 1 << 20);
	json_object_put(o);
	memset(&d.band, 0, sizeof(d.band));

	/* no cliff: the budget */
	memset(&d.cliff, 0, sizeof(d.cliff));
	d.idle_ran = false;
	d.stop = "time budget";
	d.writes = 256;
	w = ap_smr_deep_words(&d);
	assert_non_null(strstr(w, "persistent cache: no cliff within the budget (time budget: "
			       "256 writes, 1.0 MiB): the cache holds more"));
	assert_non_null(strstr(w, "idle cleaning: not measured: no cliff"));
	free(w);
}

/*
 * A synthetic drive-managed SMR disk for the band size's searches: bands
 * of @band bytes, cleaned oldest first @delay after the last request, each
 * taking @clean (+-10 %: where the head is); a request arriving in the
 * middle of a band's cleaning waits for it. Requests cost 0.2 to 1 ms, one
 * in 30 up to 15 ms more (the machine busy), and the host's sleep
 * oversleeps up to 2 ms. @hybrid: every write a unit of its own.
 */
struct sim {
	struct ap_rng rng;
	uint64_t band, delay, clean, now, idle_since;
	uint64_t unit[1024];
	size_t n;
	bool hybrid;
	unsigned requests;
};

static uint64_t sim_cost(struct sim *s)
{
	uint64_t ns = 200 * US + ap_rng_below(&s->rng, 800 * US);

	if (ap_rng_below(&s->rng, 30) == 0)
		ns += ap_rng_below(&s->rng, 15 * MS);
	return ns;
}

/* A request at s->now: the wait for the cleaning, then its cost. */
static uint64_t sim_request(struct sim *s)
{
	uint64_t t = s->idle_since + s->delay, wait = 0, ns;

	s->requests++;
	while (s->n && s->now >= t) {
		ns = s->clean * 9 / 10 + ap_rng_below(&s->rng, s->clean / 5);
		memmove(s->unit, s->unit + 1, --s->n * sizeof(*s->unit));
		if (t + ns > s->now) {
			wait = t + ns - s->now;
			break;
		}
		t += ns;
	}
	ns = wait + sim_cost(s);
	s->now += ns;
	s->idle_since = s->now;
	return ns;
}

static void sim_write(struct sim *s, uint64_t off)
{
	uint64_t u = s->hybrid ? off : off / s->band;
	size_t i;

	sim_request(s);
	for (i = 0; i < s->n && !s->hybrid; i++)
		if (s->unit[i] == u)
			return;
	assert_true(s->n < 1024);
	s->unit[s->n++] = u;
}

/* A read probe @idle after the last request: its latency. */
static uint64_t sim_probe(struct sim *s, uint64_t idle)
{
	s->now = s->idle_since + idle + ap_rng_below(&s->rng, 2 * MS);
	return sim_request(s);
}

/* deep.c's loops on the synthetic disk: the idle delay, then two boundaries. */
static bool sim_band(struct sim *s, uint64_t fast, uint64_t *bytes, uint64_t *err)
{
	struct ap_smr_delay dl;
	struct ap_smr_boundary b[2];
	uint64_t x = 333 * (1ULL << 20) + 4096 * ap_rng_below(&s->rng, 10000), gap, l1, l2;
	unsigned i, k, tries, again;
	int kind;

	ap_smr_delay_init(&dl, fast, 0);
	while (!dl.done && !dl.failed) {
		for (i = 1; i <= 12; i++)
			sim_write(s, i * 80 * (1ULL << 20));
		ap_smr_delay_step(&dl, dl.try_ns, sim_probe(s, dl.try_ns));
	}
	if (!dl.done)
		return false;	/* no cleaning caught: no band either */
	if (!s->hybrid) {	/* a band's cleaning: long enough to be caught each time */
		assert_true(dl.hi_ns + 2 * MS >= s->delay);	/* the oversleep */
		assert_true(dl.hi_ns <= s->delay + AP_SMR_DELAY_RES + 2 * MS);
	}
	gap = dl.hi_ns + AP_SMR_DELAY_RES;
	for (k = 0; k < 2; k++) {
		ap_smr_boundary_init(&b[k], k ? x + b[0].hi : x, AP_SMR_BAND_MAX);
		while (!b[k].done && !b[k].failed) {
			for (again = 0; again < 4; again++) {
				for (i = 0; i < 2;)	/* drain: two fast in a row */
					i = sim_probe(s, gap) > fast ? 0 : i + 1;
				sim_write(s, b[k].from);
				sim_write(s, b[k].from + b[k].next);
				for (tries = 0; tries < 4 && (l1 = sim_probe(s, gap)) <= fast;
				     tries++)
					gap += AP_SMR_DELAY_RES;
				l2 = sim_probe(s, gap);
				kind = ap_smr_pair_classify(fast, l1, l2);
				if (kind == AP_SMR_PAIR_ONE || kind == AP_SMR_PAIR_TWO)
					break;
			}
			if (kind == AP_SMR_PAIR_MISSED || kind == AP_SMR_PAIR_SHORT)
				return false;	/* deep.c: not measured */
			ap_smr_boundary_step(&b[k], b[k].next, kind == AP_SMR_PAIR_ONE);
		}
		if (!b[k].done)
			return false;	/* deep.c: not measured */
	}
	return ap_smr_band_estimate(&b[0], &b[1], bytes, err);
}

/*
 * Bands of 15 to 40 MiB (Skylight's Seagate disks), cleaning 0.2 to 0.8 s,
 * delays to 3 s; then small bands of 5 to 8 MiB, cleaned in 90 to 150 ms:
 * a read often comes in the last 20 ms of one.
 */
static void test_band(void **state)
{
	uint64_t seed, bytes, err;

	(void)state;
	for (seed = 1; seed <= 80; seed++) {
		struct sim s = { 0 };
		bool small = seed > 40;

		ap_rng_seed(&s.rng, seed);
		s.band = (small ? 5 + ap_rng_below(&s.rng, 4) : 15 + ap_rng_below(&s.rng, 26)) *
			 (1ULL << 20) + 4096 * ap_rng_below(&s.rng, 256);
		s.clean = small ? 90 * MS + ap_rng_below(&s.rng, 60 * MS) :
			  200 * MS + ap_rng_below(&s.rng, 600 * MS);
		s.delay = 100 * MS + ap_rng_below(&s.rng, 2900 * MS);
		if (!sim_band(&s, AP_SMR_BAND_FAST_MIN, &bytes, &err))
			fail_msg("seed %llu: band %llu cleaned in %llu ms after %llu ms: not measured",
				 (unsigned long long)seed, (unsigned long long)s.band,
				 (unsigned long long)(s.clean / MS), (unsigned long long)(s.delay / MS));
		assert_true(err <= 2 * AP_SMR_BAND_STEP);
		assert_true(bytes + err + 1 >= s.band);
		assert_true(bytes <= s.band + err + 1);
		assert_true(s.requests < 2000);
	}
}

/*
 * A hybrid's flash cache cleans write by write (30 to 90 ms each): no band
 * (its cleaning caught or not).
 */
static void test_band_hybrid(void **state)
{
	uint64_t seed, bytes, err;

	(void)state;
	for (seed = 1; seed <= 100; seed++) {
		struct sim s = { .hybrid = true, .band = 1 };

		ap_rng_seed(&s.rng, seed);
		s.clean = 30 * MS + ap_rng_below(&s.rng, 60 * MS);
		s.delay = 200 * MS + ap_rng_below(&s.rng, 2000 * MS);
		assert_false(sim_band(&s, AP_SMR_BAND_FAST_MIN, &bytes, &err));
	}
}

/* The pure steps alone: contradicting answers, the limit, the estimate's arithmetic. */
static void test_band_steps(void **state)
{
	struct ap_smr_boundary a, b;
	struct ap_smr_delay dl;
	uint64_t bytes, err;

	(void)state;
	assert_int_equal(ap_smr_pair_classify(20 * MS, 10 * MS, 0), AP_SMR_PAIR_MISSED);
	assert_int_equal(ap_smr_pair_classify(20 * MS, 500 * MS, 25 * MS), AP_SMR_PAIR_ONE);
	assert_int_equal(ap_smr_pair_classify(20 * MS, 500 * MS, 300 * MS), AP_SMR_PAIR_TWO);
	assert_int_equal(ap_smr_pair_classify(20 * MS, 60 * MS, 21 * MS), AP_SMR_PAIR_TWO);
	assert_int_equal(ap_smr_pair_classify(20 * MS, 35 * MS, 21 * MS), AP_SMR_PAIR_SHORT);

	ap_smr_boundary_init(&a, 0, 8 * AP_SMR_BAND_STEP);
	assert_int_equal(a.next, AP_SMR_BAND_STEP);
	ap_smr_boundary_step(&a, a.next, true);
	ap_smr_boundary_step(&a, a.next, true);
	ap_smr_boundary_step(&a, a.next, true);
	assert_int_equal(a.next, 8 * AP_SMR_BAND_STEP);
	ap_smr_boundary_step(&a, a.next, true);
	assert_true(a.failed);

	ap_smr_boundary_init(&a, 0, AP_SMR_BAND_MAX);
	ap_smr_boundary_step(&a, AP_SMR_BAND_STEP, false);
	assert_true(a.done);
	assert_int_equal(a.hi, AP_SMR_BAND_STEP);
	ap_smr_boundary_init(&b, a.hi, AP_SMR_BAND_MAX);
	b.lo = 20 * AP_SMR_BAND_STEP;
	b.hi = 21 * AP_SMR_BAND_STEP;
	assert_true(ap_smr_band_estimate(&a, &b, &bytes, &err));
	assert_int_equal(bytes, 21 * AP_SMR_BAND_STEP);
	assert_int_equal(err, AP_SMR_BAND_STEP);
	b.lo = 0;	/* two writes 1 MiB past the boundary cleaned apart: no band */
	b.hi = AP_SMR_BAND_STEP;
	assert_false(ap_smr_band_estimate(&a, &b, &bytes, &err));

	ap_smr_delay_init(&dl, 20 * MS, 0);
	while (!dl.failed)
		ap_smr_delay_step(&dl, dl.try_ns, MS);	/* never cleaning */
	assert_false(dl.done);
	assert_true(dl.try_ns > AP_SMR_DELAY_MAX);
	ap_smr_delay_init(&dl, 20 * MS, AP_NSEC_PER_SEC);	/* seen cleaning after 1 s */
	while (!dl.failed)
		ap_smr_delay_step(&dl, dl.try_ns, MS);
	assert_true(dl.try_ns > 2 * AP_NSEC_PER_SEC);
	assert_true(dl.try_ns <= 3 * AP_NSEC_PER_SEC);
}

static void test_keys(void **state)
{
	int v;

	(void)state;
	for (v = AP_SMR_UNKNOWN; v <= AP_SMR_PERSISTENT_CACHE; v++)
		assert_int_equal(ap_smr_verdict_from_key(ap_smr_verdict_key(v)), v);
	assert_string_equal(ap_smr_verdict_key(AP_SMR_PERSISTENT_CACHE), "dm-smr-or-hybrid");
	assert_string_equal(ap_smr_verdict_key(AP_SMR_CONVENTIONAL), "cmr");
	assert_int_equal(ap_smr_verdict_from_key("smr"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_signals),
		cmocka_unit_test(test_vpd_b1),
		cmocka_unit_test(test_zoned_log),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_read_offsets),
		cmocka_unit_test(test_cliff),
		cmocka_unit_test(test_no_cliff),
		cmocka_unit_test(test_idle),
		cmocka_unit_test(test_deep_words),
		cmocka_unit_test(test_band),
		cmocka_unit_test(test_band_hybrid),
		cmocka_unit_test(test_band_steps),
		cmocka_unit_test(test_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
