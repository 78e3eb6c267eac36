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
 * The band size is not measured: a stall lasts as long as the bands
 * cleaned in it take to be read and rewritten, but how many bands one
 * stall cleans and at which rate the drive rewrites are its secret; a
 * stall gives a time, not bytes. (A targeted measurement could get
 * closer: one dirty band, probes timed into its idle cleaning, the
 * sequential rate read; not built.)
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

#define BAND_REASON "a stall, or a probe's wait, is the time bands take to be read and " \
	"rewritten; bytes from it need how many bands one stall cleans and the drive's " \
	"rewrite rate, which this test does not know"

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

char *ap_smr_deep_words(const struct ap_smr_deep *d)
{
	char cache[320], idle_w[200], budget[96], *s = NULL;

	if (!d->ran) {
		ap_xasprintf(&s, "deep test: not run: %s\n", d->reason);
		return s;
	}
	budget_words(budget, sizeof(budget), d);
	cache_words(cache, sizeof(cache), d);
	idle_words(idle_w, sizeof(idle_w), d);
	ap_xasprintf(&s, "deep test (write cache off, budget %s, took %.1f s):\n"
		     "  persistent cache: %s\n  band size: not measured: %s\n"
		     "  idle cleaning: %s\n", budget, (double)d->elapsed_ns / 1e9, cache,
		     BAND_REASON, idle_w);
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
	json_object_object_add(o, "band_bytes", NULL);
	json_object_object_add(o, "band_reason", json_object_new_string(BAND_REASON));
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
