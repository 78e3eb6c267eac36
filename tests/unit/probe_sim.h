/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The simulated drive the probe's unit tests share (test_probe.c,
 * test_probe_layers.c): a hidden unit of @period logical sectors from
 * @phase whose partly covered writes pay @rmw_ns, with jitter; no device,
 * no sleeping. Include after cmocka.h.
 */
#ifndef AP_PROBE_SIM_H
#define AP_PROBE_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "lib/rng.h"
#include "probe/probe.h"

struct sim {
	unsigned period;	/* hidden unit in logical sectors; 1 = honest */
	unsigned phase;		/* lowest aligned LBA */
	unsigned logical;
	uint64_t rmw_ns, base_ns;
	double jitter;
	uint64_t rng;
	uint64_t ops, writes, reads;
	bool read_cost;		/* reads also pay for partial units */
};

static double sim_unit(struct sim *s)
{
	uint64_t z = (s->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (double)(z >> 11) / 9007199254740992.0;
}

static unsigned sim_partial(const struct sim *s, uint64_t off, size_t len)
{
	uint64_t a, b;
	bool head, tail;

	if (s->period <= 1)
		return 0;
	a = off / s->logical + s->period - s->phase;
	b = a + len / s->logical;
	head = a % s->period != 0;
	tail = b % s->period != 0;
	if (a / s->period == (b - 1) / s->period)
		return head || tail ? 1 : 0;
	return (unsigned)head + (unsigned)tail;
}

static int sim_op(void *arg, bool write, uint64_t slot, uint64_t off, size_t len, uint64_t *ns)
{
	struct sim *s = arg;
	double c = (double)s->base_ns;

	(void)slot;
	s->ops++;
	if (write)
		s->writes++;
	else
		s->reads++;
	if (write || s->read_cost)
		c += (double)(s->rmw_ns * sim_partial(s, off, len));
	c *= 1 + s->jitter * (2 * sim_unit(s) - 1);
	*ns = (uint64_t)c + 1;
	return 0;
}

static void run_sim(struct sim *s, struct ap_probe_opts *o, struct ap_probe_result *r)
{
	struct ap_probe_io io = { .op = sim_op, .arg = s };
	struct ap_probe_plan plan;
	struct ap_error e = { 0 };

	if (!s->logical)
		s->logical = 512;
	assert_int_equal(ap_probe_plan(o, 256ULL << 20, s->logical, &plan, &e), 0);
	memset(r, 0, sizeof(*r));
	assert_int_equal(ap_probe_measure(&io, o, &plan, r, &e), 0);
}

#endif
