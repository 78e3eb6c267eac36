// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The deep test of a disk the short test found a persistent media cache
 * on (smr.h, "deep.c"; issue 35 item 3): synchronous random writes of one
 * span each over the whole disk, the write cache off, until their latency
 * falls off the cliff (cliff.c): the bytes written before it are what the
 * cache took. Then nothing is written but single probes at growing
 * intervals until writes are fast again: the time the drive cleaned when
 * idle. Bounded by a time budget (the whole test) and a byte budget (the
 * fill). Destructive: a fixed pseudo-random pattern, no undo journal (the
 * cache's size of data, anywhere on the disk).
 *
 * Then, the cache clean again, the band size (band.c): pairs of writes
 * at growing distances, each followed by read probes an idle delay apart
 * (the drive cleans one band per probe): where a pair starts to cost two
 * bands' cleaning is a band boundary; the band is the distance between two
 * boundaries, within AP_SMR_BAND_STEP each. The reads land at one place
 * outside every band the test writes.
 */
#include "smr/smr.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/rng.h"
#include "lib/stats.h"

#define BAND_DIRTY	12	/* bands dirtied to find the idle delay */
#define BAND_TRIES	4	/* a pair's first probe may come early this often */

struct deep_io {
	int fd;
	const char *dev;
	const struct ap_smr_plan *p;
	uint8_t *buf;
	struct ap_rng rng;
	uint64_t units;			/* spans in the region */
};

/* One timed write of a span at a random place: 0 or -errno with @e. */
static int timed_write(struct deep_io *io, uint64_t *ns, struct ap_error *e)
{
	uint64_t off = io->p->region_start + ap_rng_below(&io->rng, io->units) * io->p->span;
	uint64_t t0 = ap_now_ns();
	int rc = ap_pwrite_all(io->fd, io->buf, io->p->span, off);

	*ns = ap_now_ns() - t0;
	if (rc)
		return ap_error_set(e, -rc, "%s: write at byte %llu failed: %s", io->dev,
				    (unsigned long long)off, strerror(-rc));
	return 0;
}

/* The fill: writes until the cliff or a budget. 0 or -errno with @e. */
static int fill(struct deep_io *io, struct ap_smr_deep *d, uint64_t deadline, struct ap_error *e)
{
	uint64_t *lat = NULL, cap = 0;
	int rc = 0;

	d->stop = NULL;
	while (!d->stop) {
		if (d->writes == cap) {
			uint64_t *nl;

			cap = cap ? cap * 2 : 4096;
			nl = realloc(lat, cap * sizeof(*lat));
			if (!nl) {
				rc = ap_error_set(e, ENOMEM, "out of memory");
				break;
			}
			lat = nl;
		}
		rc = timed_write(io, &lat[d->writes], e);
		if (rc)
			break;
		d->writes++;
		if (d->writes % AP_SMR_CLIFF_WINDOW == 0 &&
		    ap_smr_cliff_find(lat, d->writes, &d->cliff))
			d->stop = "cliff";
		else if (d->byte_budget && d->writes * io->p->span >= d->byte_budget)
			d->stop = "byte budget";
		else if (ap_now_ns() >= deadline)
			d->stop = "time budget";
		else if (d->writes >= AP_SMR_DEEP_MAX_WRITES)
			d->stop = "write limit";
	}
	free(lat);
	return rc;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = (time_t)(t / AP_NSEC_PER_SEC),
			       .tv_nsec = (long)(t % AP_NSEC_PER_SEC) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* After the cliff: probes until writes are fast again or the deadline. */
static int idle(struct deep_io *io, struct ap_smr_deep *d, uint64_t deadline, struct ap_error *e)
{
	uint64_t stopped = ap_now_ns(), at = stopped, ns;
	int rc;

	ap_smr_idle_init(&d->idle, d->cliff.base_ns);
	d->idle_ran = true;
	for (;;) {
		at += d->idle.interval_ns;
		if (at > deadline)
			return 0;
		sleep_until(at);
		rc = timed_write(io, &ns, e);
		if (rc)
			return rc;
		if (ap_smr_idle_step(&d->idle, at - stopped, ns))
			return 0;
		at += ns;
	}
}


/* ---- the band size: band.c's searches on the drive ---- */

struct band_io {
	struct deep_io *io;
	struct ap_smr_band *b;
	uint64_t deadline;
	uint8_t *rbuf;
	uint64_t probe_off, fast_ns, gap_ns;
	uint64_t last_end;		/* when the last request ended */
	uint64_t waits[64];		/* the first probes' waits */
	unsigned nwaits;
};

static int band_write(struct band_io *b, uint64_t off, struct ap_error *e)
{
	int rc = ap_pwrite_all(b->io->fd, b->io->buf, b->io->p->span, off);

	b->last_end = ap_now_ns();
	if (rc)
		return ap_error_set(e, -rc, "%s: write at byte %llu failed: %s", b->io->dev,
				    (unsigned long long)off, strerror(-rc));
	return 0;
}

/* A read probe @idle_ns after the last request ended: its latency. */
static int band_probe(struct band_io *b, uint64_t idle_ns, uint64_t *lat, struct ap_error *e)
{
	uint64_t t0;
	int rc;

	sleep_until(b->last_end + idle_ns);
	t0 = ap_now_ns();
	rc = ap_pread_all(b->io->fd, b->rbuf, b->io->p->span, b->probe_off);
	b->last_end = ap_now_ns();
	*lat = b->last_end - t0;
	if (rc)
		return ap_error_set(e, -rc, "%s: read at byte %llu failed: %s", b->io->dev,
				    (unsigned long long)b->probe_off, strerror(-rc));
	return 0;
}

/* Whether a pair (about four idle delays and two cleanings) still fits the budget. */
static bool band_time_left(const struct band_io *b)
{
	uint64_t clean = b->nwaits ? b->waits[b->nwaits - 1] : 0;

	return ap_now_ns() + 4 * (b->gap_ns + clean) < b->deadline;
}

static void band_fail(struct band_io *b, const char *why)
{
	snprintf(b->b->reason, sizeof(b->b->reason), "%s", why);
}

/*
 * Probes an idle delay apart until two in a row are fast: nothing left
 * to clean (one may come at the very end of a band's cleaning).
 */
static int band_drain(struct band_io *b, struct ap_error *e)
{
	uint64_t lat;
	unsigned i, fast = 0;
	int rc;

	for (i = 0; i < 8 * BAND_DIRTY; i++) {
		if ((rc = band_probe(b, b->gap_ns, &lat, e)))
			return rc;
		fast = lat <= b->fast_ns ? fast + 1 : 0;
		if (fast == 2)
			return 0;
		if (ap_now_ns() >= b->deadline)
			break;
	}
	return -ETIME;
}

/* The fast threshold, then the idle delay with BAND_DIRTY bands to clean. */
static int band_delay(struct band_io *b, uint64_t base_ns, uint64_t max_ns,
		      struct ap_error *e)
{
	const struct ap_smr_plan *p = b->io->p;
	struct ap_smr_delay s;
	uint64_t lat[5], step = p->region_size / (BAND_DIRTY + 1) / p->span * p->span;
	unsigned i;
	int rc;

	for (i = 0; i < 5; i++)
		if ((rc = band_probe(b, 0, &lat[i], e)))
			return rc;
	qsort(lat, 5, sizeof(*lat), ap_stats_cmp_u64);
	/* a read a seek away varies within twice its median; a cleaning waits far longer */
	b->fast_ns = lat[2] * 2;
	if (b->fast_ns < base_ns * AP_SMR_CLIFF_FACTOR)
		b->fast_ns = base_ns * AP_SMR_CLIFF_FACTOR;
	if (b->fast_ns < AP_SMR_BAND_FAST_MIN)
		b->fast_ns = AP_SMR_BAND_FAST_MIN;
	ap_smr_delay_init(&s, b->fast_ns, max_ns);
	while (!s.done && !s.failed) {
		for (i = 1; i <= BAND_DIRTY; i++)
			if ((rc = band_write(b, p->region_start + i * step, e)))
				return rc;
		if ((rc = band_probe(b, s.try_ns, &lat[0], e)))
			return rc;
		ap_smr_delay_step(&s, s.try_ns, lat[0]);
		if (ap_now_ns() + s.try_ns >= b->deadline)
			break;
	}
	b->b->delay_ns = s.hi_ns;
	b->gap_ns = s.hi_ns + AP_SMR_DELAY_RES;
	if (s.done)
		return band_drain(b, e);
	band_fail(b, s.failed ? "no read an idle delay after writes waited for their cleaning: "
		  "the drive cleans what they left quicker than a read can catch (a hybrid's "
		  "flash cache, write by write), not bands" :
		  "the time budget ran out finding when the drive starts cleaning");
	return 1;
}

/* One try of a pair: writes @dist apart from @x, the reads after them: *@kind. */
static int pair_try(struct band_io *b, uint64_t x, uint64_t dist, int *kind, uint64_t *l1,
		    struct ap_error *e)
{
	uint64_t l2;
	unsigned tries;
	int rc;

	if ((rc = band_drain(b, e)) || (rc = band_write(b, x, e)) ||
	    (rc = band_write(b, x + dist, e)))
		return rc;
	b->b->pairs++;
	for (tries = 0; tries < BAND_TRIES; tries++) {
		if ((rc = band_probe(b, b->gap_ns, l1, e)))
			return rc;
		if (*l1 > b->fast_ns)
			break;
		b->gap_ns += AP_SMR_DELAY_RES;	/* came before the cleaning: later */
	}
	if ((rc = band_probe(b, b->gap_ns, &l2, e)))
		return rc;
	*kind = ap_smr_pair_classify(b->fast_ns, *l1, l2);
	return 0;
}

/*
 * A pair, tried again when its first read waited only a little (it may
 * have come at the end of a band a drain's read left): *@kind.
 */
static int band_pair(struct band_io *b, uint64_t x, uint64_t dist, int *kind,
		     struct ap_error *e)
{
	uint64_t l1 = 0;
	unsigned tries;
	int rc;

	for (tries = 0; tries < BAND_TRIES; tries++) {
		if ((rc = pair_try(b, x, dist, kind, &l1, e)))
			return rc;
		if (*kind != AP_SMR_PAIR_SHORT && *kind != AP_SMR_PAIR_MISSED)
			break;
	}
	if ((*kind == AP_SMR_PAIR_ONE || *kind == AP_SMR_PAIR_TWO) &&
	    b->nwaits < sizeof(b->waits) / sizeof(b->waits[0]))
		b->waits[b->nwaits++] = l1;
	return 0;
}

/* One boundary after @from. 0 (bd->done or the reason set), or -errno with @e. */
static int band_boundary(struct band_io *b, struct ap_smr_boundary *bd, uint64_t from,
			 struct ap_error *e)
{
	const struct ap_smr_plan *p = b->io->p;
	uint64_t end = p->region_start + p->region_size - p->span;
	int kind, rc;

	ap_smr_boundary_init(bd, from, end - from < AP_SMR_BAND_MAX ? end - from :
			     AP_SMR_BAND_MAX);
	while (!bd->done && !bd->failed) {
		if (!band_time_left(b)) {
			band_fail(b, "the time budget ran out in the search for a band boundary");
			return 0;
		}
		rc = band_pair(b, from, bd->next, &kind, e);
		if (rc == -ETIME) {
			band_fail(b, "the drive was still cleaning when the time budget ran out");
			return 0;
		}
		if (rc)
			return rc;
		if (kind == AP_SMR_PAIR_MISSED) {
			band_fail(b, "reads an idle delay after two writes did not wait for a "
				  "cleaning: the drive's idle delay is not steady");
			return 0;
		}
		if (kind == AP_SMR_PAIR_SHORT) {
			band_fail(b, "a read waited less than 60 ms for what two writes left to "
				  "clean: too short to tell one band from two (a hybrid's flash "
				  "cache cleans write by write; bands take longer)");
			return 0;
		}
		ap_smr_boundary_step(bd, bd->next, kind == AP_SMR_PAIR_ONE);
	}
	if (bd->failed)
		band_fail(b, "writes up to 1 GiB apart were cleaned as one unit: no band boundary");
	return 0;
}

/* The band size, the cache clean: b->b filled. 0 or -errno with @e (a failed write). */
static int band(struct band_io *b, const struct ap_smr_deep *d, struct ap_error *e)
{
	const struct ap_smr_plan *p = b->io->p;
	struct ap_smr_boundary one, two;
	uint64_t x = (p->region_start + p->region_size / 3) / p->span * p->span;
	int rc;

	b->b->ran = true;
	rc = band_delay(b, d->cliff.base_ns, d->idle.first_slow_wait_ns, e);
	if (rc == -ETIME)
		band_fail(b, "the drive was still cleaning when the time budget ran out");
	if (rc)
		return rc < 0 && rc != -ETIME ? rc : 0;
	if ((rc = band_boundary(b, &one, x, e)) || !one.done)
		return rc;
	if ((rc = band_boundary(b, &two, x + one.hi, e)) || !two.done)
		return rc;
	if (!ap_smr_band_estimate(&one, &two, &b->b->bytes, &b->b->error)) {
		band_fail(b, "writes 1 MiB apart past a boundary were cleaned apart: the cache "
			  "cleans units smaller than that (a hybrid's flash cache, write by "
			  "write), not bands");
		return 0;
	}
	qsort(b->waits, b->nwaits, sizeof(*b->waits), ap_stats_cmp_u64);
	b->b->clean_ns = b->nwaits ? b->waits[b->nwaits / 2] : 0;
	b->b->at = x + one.hi;
	b->b->found = true;
	return 0;
}

static int band_run(struct deep_io *io, struct ap_smr_deep *d, uint64_t deadline,
		    struct ap_error *e)
{
	struct band_io b = { .io = io, .b = &d->band, .deadline = deadline,
			     .probe_off = io->p->region_start };
	int rc;

	if (posix_memalign((void **)&b.rbuf, 4096, io->p->span) != 0)
		return ap_error_set(e, ENOMEM, "out of memory");
	rc = band(&b, d, e);
	free(b.rbuf);
	return rc;
}

int ap_smr_deep_run(const char *dev, const struct ap_smr_plan *p, struct ap_smr_deep *d,
		    struct ap_error *e)
{
	struct deep_io io = { .dev = dev, .p = p };
	uint64_t t0 = ap_now_ns(), deadline = t0 + d->time_budget_ns;
	uint32_t i;
	int rc;

	d->span = p->span;
	io.units = (p->region_size - p->span) / p->span + 1;
	ap_rng_seed(&io.rng, p->seed ^ 0xdeedULL);
	io.fd = open(dev, O_RDWR | O_DIRECT | O_DSYNC | O_CLOEXEC);
	if (io.fd < 0)
		return ap_error_set(e, errno, "%s: cannot open with O_DIRECT | O_DSYNC: %s", dev,
				    strerror(errno));
	if (posix_memalign((void **)&io.buf, 4096, p->span) != 0) {
		close(io.fd);
		return ap_error_set(e, ENOMEM, "out of memory");
	}
	for (i = 0; i + 8 <= p->span; i += 8) {
		uint64_t x = ap_rng_next(&io.rng);

		memcpy(io.buf + i, &x, 8);
	}
	d->ran = true;
	rc = fill(&io, d, deadline, e);
	if (!rc && d->cliff.found)
		rc = idle(&io, d, deadline, e);
	if (!rc && d->idle_ran && d->idle.clean)
		rc = band_run(&io, d, deadline, e);
	else if (!d->cliff.found)
		snprintf(d->band.reason, sizeof(d->band.reason), "no cliff: the bands are found "
			 "once the cache was full and is clean again");
	else if (!rc)
		snprintf(d->band.reason, sizeof(d->band.reason), "the drive was still cleaning "
			 "when the time budget ran out");
	if (rc && !d->band.found && !d->band.reason[0])
		snprintf(d->band.reason, sizeof(d->band.reason), "the test stopped on an error");
	d->elapsed_ns = ap_now_ns() - t0;
	free(io.buf);
	close(io.fd);
	return rc;
}

static void fmt_bytes(char *b, size_t n, uint64_t v)
{
	if (v >= (1ULL << 30))
		snprintf(b, n, "%.1f GiB", (double)v / (1ULL << 30));
	else if (v >= (1ULL << 20))
		snprintf(b, n, "%.1f MiB", (double)v / (1ULL << 20));
	else
		snprintf(b, n, "%llu KiB", (unsigned long long)(v >> 10));
}

static void budget_words(char *b, size_t n, const struct ap_smr_deep *d)
{
	char bytes[32] = "";

	if (d->byte_budget)
		fmt_bytes(bytes, sizeof(bytes), d->byte_budget);
	snprintf(b, n, "%.0f s%s%s", (double)d->time_budget_ns / 1e9,
		 d->byte_budget ? ", writes of at most " : "", bytes);
}

char *ap_smr_deep_plan_words(const struct ap_smr_deep *d, uint32_t span)
{
	char budget[96], *s = NULL;

	budget_words(budget, sizeof(budget), d);
	ap_xasprintf(&s, "  then, if it finds a persistent cache, the deep test (budget %s): "
		     "synchronous random writes of %u bytes over the whole disk with the write "
		     "cache off until they fall off the cliff (the cache full), then single "
		     "writes at growing intervals until they are fast again (the idle "
		     "cleaning); nothing of what it overwrites can be kept\n",
		     budget, span);
	return s;
}

/* The cache's size line. */
static void cache_words(char *b, size_t n, const struct ap_smr_deep *d)
{
	char sz[32];

	if (!d->cliff.found) {
		fmt_bytes(sz, sizeof(sz), d->writes * d->span);
		snprintf(b, n, "no cliff within the budget (%s: %llu writes, %s): the cache "
			 "holds more", d->stop ? d->stop : "stopped",
			 (unsigned long long)d->writes, sz);
		return;
	}
	fmt_bytes(sz, sizeof(sz), (uint64_t)d->cliff.at * d->span);
	snprintf(b, n, "%s (%zu writes of %u bytes before the cliff; %.2f ms a write before, "
		 "%.1f ms after; what it held before the test is not counted)", sz, d->cliff.at,
		 d->span, (double)d->cliff.base_ns / 1e6, (double)d->cliff.after_ns / 1e6);
}

static void idle_words(char *b, size_t n, const struct ap_smr_deep *d)
{
	const struct ap_smr_idle *s = &d->idle;

	if (!d->idle_ran)
		snprintf(b, n, "not measured: no cliff");
	else if (!s->probes)
		snprintf(b, n, "not measured: the budget ran out at the cliff");
	else if (s->clean)
		snprintf(b, n, "writes fast again %.1f s after the last (%.1f s the last slow "
			 "probe; %u probes, the longest waited %.0f ms)", (double)s->clean_ns / 1e9,
			 (double)s->last_slow_ns / 1e9, s->probes, (double)s->longest_ns / 1e6);
	else
		snprintf(b, n, "still cleaning when the budget ran out (%u probes, the last slow "
			 "%.1f s after the last write)", s->probes, (double)s->last_slow_ns / 1e9);
}

static void band_words(char *b, size_t n, const struct ap_smr_deep *d)
{
	const struct ap_smr_band *x = &d->band;
	char sz[32], err[32], at[32];

	if (!x->found) {
		snprintf(b, n, "not measured: %s", x->reason);
		return;
	}
	fmt_bytes(sz, sizeof(sz), x->bytes);
	fmt_bytes(err, sizeof(err), x->error);
	fmt_bytes(at, sizeof(at), x->at);
	snprintf(b, n, "%s +- %s (the band from %s: two writes into it cost one band's "
		 "cleaning, %.2f s, a write past it two; cleaning starts %.2f s after the last "
		 "request; %u pairs)", sz, err, at, (double)x->clean_ns / 1e9,
		 (double)x->delay_ns / 1e9, x->pairs);
}

char *ap_smr_deep_words(const struct ap_smr_deep *d)
{
	char cache[320], idle_w[200], band_w[320], budget[96], *s = NULL;

	if (!d->ran) {
		ap_xasprintf(&s, "deep test: not run: %s\n", d->reason);
		return s;
	}
	budget_words(budget, sizeof(budget), d);
	cache_words(cache, sizeof(cache), d);
	idle_words(idle_w, sizeof(idle_w), d);
	band_words(band_w, sizeof(band_w), d);
	ap_xasprintf(&s, "deep test (write cache off, budget %s, took %.1f s):\n"
		     "  persistent cache: %s\n  band size: %s\n"
		     "  idle cleaning: %s\n", budget, (double)d->elapsed_ns / 1e9, cache,
		     band_w, idle_w);
	return s;
}

static struct json_object *u64(uint64_t v)
{
	return json_object_new_int64((int64_t)v);
}

struct json_object *ap_smr_deep_to_json(const struct ap_smr_deep *d)
{
	struct json_object *o = json_object_new_object();
	const struct ap_smr_idle *s = &d->idle;

	json_object_object_add(o, "ran", json_object_new_boolean(d->ran));
	json_object_object_add(o, "reason", d->ran ? NULL : json_object_new_string(d->reason));
	json_object_object_add(o, "time_budget_ns", u64(d->time_budget_ns));
	json_object_object_add(o, "byte_budget", d->byte_budget ? u64(d->byte_budget) : NULL);
	if (!d->ran)
		return o;
	json_object_object_add(o, "write_bytes", u64(d->span));
	json_object_object_add(o, "writes", u64(d->writes));
	json_object_object_add(o, "stop", json_object_new_string(d->stop ? d->stop : "error"));
	json_object_object_add(o, "cliff", json_object_new_boolean(d->cliff.found));
	json_object_object_add(o, "cache_bytes", d->cliff.found ?
			       u64((uint64_t)d->cliff.at * d->span) : NULL);
	json_object_object_add(o, "before_ns", d->cliff.base_ns ? u64(d->cliff.base_ns) : NULL);
	json_object_object_add(o, "after_ns", d->cliff.found ? u64(d->cliff.after_ns) : NULL);
	json_object_object_add(o, "band_bytes", d->band.found ? u64(d->band.bytes) : NULL);
	json_object_object_add(o, "band_error_bytes", d->band.found ? u64(d->band.error) : NULL);
	json_object_object_add(o, "band_at", d->band.found ? u64(d->band.at) : NULL);
	json_object_object_add(o, "band_reason", d->band.found ? NULL :
			       json_object_new_string(d->band.reason));
	json_object_object_add(o, "band_pairs", u64(d->band.pairs));
	json_object_object_add(o, "band_clean_ns", d->band.found ? u64(d->band.clean_ns) : NULL);
	json_object_object_add(o, "clean_delay_ns", d->band.delay_ns ? u64(d->band.delay_ns) :
			       NULL);
	json_object_object_add(o, "idle_clean", json_object_new_boolean(d->idle_ran && s->clean));
	json_object_object_add(o, "idle_clean_ns", d->idle_ran && s->clean ?
			       u64(s->clean_ns) : NULL);
	json_object_object_add(o, "idle_last_slow_ns", d->idle_ran && s->slow ?
			       u64(s->last_slow_ns) : NULL);
	json_object_object_add(o, "idle_probes", u64(s->probes));
	json_object_object_add(o, "idle_longest_wait_ns", s->probes ? u64(s->longest_ns) : NULL);
	json_object_object_add(o, "elapsed_ns", u64(d->elapsed_ns));
	return o;
}
