// SPDX-License-Identifier: GPL-2.0-or-later
/* The analysis on synthetic timings, and its statistical primitives. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "analysis.h"
#include "util.h"

/* ------------------------------------------------------------------ */
/* a deterministic generator of synthetic timings */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double rng_unit(void)	/* [0, 1) */
{
	return (double)(rng_next() >> 11) / 9007199254740992.0;
}

struct gen {
	uint64_t lo, hi;	/* offsets */
	unsigned rounds;
	unsigned period;	/* 0 or 1: honest */
	unsigned phase;
	unsigned write_sectors;	/* 0: writes cover whole units (clean phase) */
	double fast, slow;	/* costs */
	double jitter;		/* +- fraction, uniform */
	double drift;		/* cost *= 1 + drift * round */
	unsigned outliers;	/* this many 100x values, on fast offsets first */
	bool quantize;		/* round costs to integers: many ties */
	uint64_t seed;
};

static double cost_of(const struct gen *g, uint64_t off)
{
	uint64_t a, b, first, last;
	unsigned rmw;

	if (g->period <= 1)
		return g->fast;
	if (!g->write_sectors)
		return off % g->period == g->phase % g->period ? g->fast : g->slow;
	/* partial writes: one or two read-modify-writes, costs fast and slow */
	a = off + g->period - g->phase % g->period;
	b = a + g->write_sectors;
	first = a / g->period;
	last = (b - 1) / g->period;
	rmw = (unsigned)(last - first + 1);
	return rmw == 1 ? g->fast : g->slow;
}

static struct ap_obs *generate(const struct gen *g, size_t *n)
{
	size_t cap = (size_t)(g->hi - g->lo + 1) * g->rounds, i = 0;
	struct ap_obs *o = ap_xmalloc(cap * sizeof(*o));
	unsigned r, out = 0;
	uint64_t off;

	rng_state = g->seed ? g->seed : 1;
	for (r = 0; r < g->rounds; r++) {
		for (off = g->lo; off <= g->hi; off++) {
			double c = cost_of(g, off);

			c *= 1 + g->jitter * (2 * rng_unit() - 1);
			c *= 1 + g->drift * r;
			if (g->quantize)
				c = round(c);
			o[i++] = (struct ap_obs){ .offset = off, .round = r, .cost = c };
		}
	}
	/* outliers: on the fast offsets of the first rounds */
	for (i = 0; i < cap && out < g->outliers; i++) {
		if (g->period > 1 && o[i].offset % g->period != g->phase % g->period)
			continue;
		o[i].cost *= 100;
		out++;
	}
	*n = cap;
	return o;
}

static void run(const struct gen *g, unsigned max_period, struct ap_verdict *v)
{
	struct ap_analysis_params p;
	struct ap_obs *o;
	size_t n;

	ap_analysis_params_init(&p, 512, 512);
	if (max_period)
		p.max_period = max_period;
	o = generate(g, &n);
	assert_int_equal(ap_analysis_run(o, n, &p, v), 0);
	free(o);
}

static bool is_clear(const struct ap_verdict *v)
{
	struct ap_analysis_params p;

	ap_analysis_params_init(&p, 512, 512);
	return ap_analysis_is_clear(v, &p);
}

static void assert_fast(const struct ap_verdict *v, const uint64_t *want, size_t n)
{
	size_t i;

	assert_int_equal(v->nfast, n);
	for (i = 0; i < n; i++)
		assert_int_equal(v->fast_starts[i], want[i]);
}

static void assert_unit(const struct ap_verdict *v, unsigned phys, unsigned lba)
{
	assert_true(v->sensitive);
	assert_true(v->resolved);
	assert_int_equal(v->physical_sector, phys);
	assert_int_equal(v->period, phys / 512);
	assert_int_equal(v->lowest_aligned_lba, lba);
	assert_true(v->p_value <= 0.001);
	assert_true(v->confidence >= 0.999);
}

/* ------------------------------------------------------------------ */
/* primitives */

static void test_median_quantile(void **state)
{
	double a[] = { 3, 1, 2 };
	double b[] = { 4, 1, 3, 2 };
	double c[] = { 4, 1, 3, 2 };
	double d[] = { 7 };
	double e[] = { 10, 20, 30, 40, 50 };

	(void)state;
	assert_float_equal(ap_stats_median(a, 3), 2, 1e-12);
	assert_float_equal(ap_stats_median(b, 4), 2.5, 1e-12);
	assert_float_equal(b[0], 1, 0);	/* sorted in place */
	assert_float_equal(ap_stats_quantile(c, 4, 0.25), 1.75, 1e-12);
	assert_float_equal(ap_stats_quantile(c, 4, 0.75), 3.25, 1e-12);
	assert_float_equal(ap_stats_quantile(c, 4, 0), 1, 0);
	assert_float_equal(ap_stats_quantile(c, 4, 1), 4, 0);
	assert_float_equal(ap_stats_median(d, 1), 7, 0);
	assert_float_equal(ap_stats_quantile(e, 5, 0.1), 14, 1e-12);
	assert_true(isnan(ap_stats_median(NULL, 0)));
}

/* Exact tail by brute force: every choice of which ranks are "fast". */
static double brute_upper(unsigned m, unsigned n, double u_obs)
{
	unsigned total = m + n, mask, hits = 0, all = 0;

	for (mask = 0; mask < (1u << total); mask++) {
		unsigned bits = (unsigned)__builtin_popcount(mask), i, j;
		double u = 0;

		if (bits != m)
			continue;
		all++;
		/* fast = set bits (values = index); U counts fast < slow */
		for (i = 0; i < total; i++)
			for (j = 0; j < total; j++)
				if ((mask >> i & 1) && !(mask >> j & 1) && i < j)
					u++;
		if (u >= u_obs - 1e-9)
			hits++;
	}
	return (double)hits / all;
}

static void test_mann_whitney(void **state)
{
	double f1[] = { 1, 2, 3 }, s1[] = { 4, 5, 6 };
	double f2[] = { 1, 2, 3, 4 }, s2[] = { 5, 6, 7, 8 };
	double f3[] = { 1, 2, 5, 7, 9 }, s3[] = { 3, 4, 6, 8, 10, 11 };
	double same[] = { 2, 2, 2, 2 };
	double tf[80], ts[90], u = 0, mean, var, z, want;
	unsigned i, j;

	(void)state;
	/* exact: complete separation = 1 / C(m + n, m) */
	assert_float_equal(ap_stats_mann_whitney_p(f1, 3, s1, 3), 1.0 / 20, 1e-12);
	assert_float_equal(ap_stats_mann_whitney_p(f2, 4, s2, 4), 1.0 / 70, 1e-12);
	assert_float_equal(ap_stats_mann_whitney_p(s1, 3, f1, 3), 1.0, 1e-12);
	/* exact against brute force on interleaved data: U = 6 + 6 + 4 + 3 + 2 = 21 of 30 */
	assert_float_equal(ap_stats_mann_whitney_p(f3, 5, s3, 6), brute_upper(5, 6, 21), 1e-12);
	assert_true(brute_upper(5, 6, 21) > 0.1 && brute_upper(5, 6, 21) < 0.3);
	/* all tied: no evidence */
	assert_float_equal(ap_stats_mann_whitney_p(same, 2, same + 2, 2), 1.0, 1e-12);
	assert_float_equal(ap_stats_mann_whitney_p(f1, 0, s1, 3), 1.0, 0);

	/* normal approximation with ties: values 0..9 repeated, fast shifted down */
	for (i = 0; i < 80; i++)
		tf[i] = (double)(i % 10);
	for (i = 0; i < 90; i++)
		ts[i] = (double)(i % 10 + 1);
	for (i = 0; i < 80; i++)
		for (j = 0; j < 90; j++)
			u += tf[i] < ts[j] ? 1 : tf[i] == ts[j] ? 0.5 : 0;
	{
		/* tie groups: value 0: 8; values 1..9: 8 + 9 = 17; value 10: 9 */
		double t = (8.0 * 8 * 8 - 8) + 9 * (17.0 * 17 * 17 - 17) + (9.0 * 9 * 9 - 9);
		double N = 170;

		mean = 80.0 * 90 / 2;
		var = 80.0 * 90 / 12 * ((N + 1) - t / (N * (N - 1)));
		z = (u - mean - 0.5) / sqrt(var);
		want = 0.5 * erfc(z / sqrt(2));
	}
	assert_float_equal(ap_stats_mann_whitney_p(tf, 80, ts, 90), want, 1e-12);
	assert_true(want < 0.5 && want > 1e-6);
}

static void test_chi2_kruskal(void **state)
{
	double v[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	size_t g[] = { 0, 0, 0, 1, 1, 1, 2, 2, 2 };
	double eq[] = { 5, 5, 5, 5 };
	size_t ge[] = { 0, 0, 1, 1 };

	(void)state;
	assert_float_equal(ap_stats_chi2_sf(3.841458820694124, 1), 0.05, 1e-9);
	assert_float_equal(ap_stats_chi2_sf(18.307038053275146, 10), 0.05, 1e-9);
	assert_float_equal(ap_stats_chi2_sf(2, 2), exp(-1), 1e-12);
	assert_float_equal(ap_stats_chi2_sf(0, 3), 1, 0);
	assert_float_equal(ap_stats_chi2_sf(400, 3), 0, 1e-80);
	/* H = 7.2 with 2 degrees of freedom: p = exp(-3.6) */
	assert_float_equal(ap_stats_kruskal_wallis_p(v, g, 9, 3), exp(-3.6), 1e-12);
	assert_float_equal(ap_stats_kruskal_wallis_p(eq, ge, 4, 2), 1, 0);
}

/* ------------------------------------------------------------------ */
/* verdicts */

static void test_p8_phase0(void **state)
{
	struct gen g = { .lo = 34, .hi = 64, .rounds = 5, .period = 8, .phase = 0,
			 .fast = 1, .slow = 2, .jitter = 0.1, .seed = 1 };
	static const uint64_t want[] = { 40, 48, 56, 64 };
	struct ap_verdict v;

	(void)state;
	run(&g, 0, &v);
	assert_unit(&v, 4096, 0);
	assert_fast(&v, want, 4);
	assert_float_equal(v.slowdown, 2, 0.2);
	assert_int_equal(v.nstats, 31);
	assert_int_equal(v.stats[0].offset, 34);
	assert_int_equal(v.stats[0].n, 5);
	assert_true(v.stats[6].fast && !v.stats[5].fast);	/* 40 and 39 */
	assert_true(is_clear(&v));
	ap_verdict_free(&v);
}

static void test_p8_phase7(void **state)
{
	struct gen g = { .lo = 34, .hi = 64, .rounds = 5, .period = 8, .phase = 7,
			 .fast = 1, .slow = 2, .jitter = 0.1, .seed = 2 };
	static const uint64_t want[] = { 39, 47, 55, 63 };
	struct ap_verdict v;

	(void)state;
	run(&g, 0, &v);
	assert_unit(&v, 4096, 7);
	assert_fast(&v, want, 4);
	ap_verdict_free(&v);
}

static void test_p16_p32(void **state)
{
	struct gen g = { .lo = 0, .hi = 127, .rounds = 4, .period = 16, .phase = 3,
			 .fast = 1, .slow = 3, .jitter = 0.2, .seed = 3 };
	struct ap_verdict v;
	size_t i;

	(void)state;
	run(&g, 128, &v);
	assert_unit(&v, 8192, 3);
	assert_int_equal(v.nfast, 8);
	for (i = 0; i < v.nfast; i++)
		assert_int_equal(v.fast_starts[i] % 16, 3);
	assert_true(is_clear(&v));
	ap_verdict_free(&v);

	g.period = 32;
	g.phase = 0;
	g.seed = 4;
	run(&g, 128, &v);
	assert_unit(&v, 16384, 0);
	assert_int_equal(v.nfast, 4);
	ap_verdict_free(&v);

	/* 64 KiB in 0..255, at the default max_period (128 for 512-byte sectors) */
	g.hi = 255;
	g.period = 128;
	g.phase = 5;
	run(&g, 0, &v);
	assert_unit(&v, 65536, 5);
	ap_verdict_free(&v);
}

static void test_range_limits_period(void **state)
{
	/* 34..64 holds only one member of a 32-sector phase: P = 32 is not supported */
	struct gen g = { .lo = 34, .hi = 64, .rounds = 5, .period = 32, .phase = 0,
			 .fast = 1, .slow = 2, .jitter = 0.05, .seed = 5 };
	struct ap_verdict v;

	(void)state;
	run(&g, 128, &v);
	assert_false(v.resolved && v.sensitive && v.period >= 32);
	assert_false(v.resolved && v.sensitive && v.period < 32);	/* no wrong unit */
	ap_verdict_free(&v);
}

static void test_honest(void **state)
{
	struct gen g = { .lo = 34, .hi = 64, .rounds = 20, .period = 1,
			 .fast = 1, .slow = 1, .jitter = 0.1, .seed = 6 };
	struct ap_verdict v;

	(void)state;
	run(&g, 0, &v);
	assert_false(v.sensitive);
	assert_true(v.resolved);
	assert_int_equal(v.physical_sector, 512);
	assert_int_equal(v.period, 1);
	assert_int_equal(v.lowest_aligned_lba, 0);
	assert_int_equal(v.nfast, 31);
	assert_non_null(v.note);
	assert_non_null(strstr(v.note, "honest 512-byte"));
	assert_non_null(strstr(v.note, "alignprobe probe"));
	assert_true(v.confidence >= 0.99);
	assert_true(is_clear(&v));
	ap_verdict_free(&v);

	/* a probe-like range at max_period 128, everything equally slow */
	g.lo = 0;
	g.hi = 127;
	g.fast = g.slow = 16;
	g.rounds = 20;
	g.jitter = 0.3;
	run(&g, 128, &v);
	assert_false(v.sensitive);
	assert_int_equal(v.physical_sector, 512);
	ap_verdict_free(&v);

	/* few samples: never a unit, and not clear yet */
	g.rounds = 2;
	g.seed = 7;
	run(&g, 128, &v);
	assert_false(v.sensitive);
	assert_false(is_clear(&v));
	ap_verdict_free(&v);
}

static void test_outliers(void **state)
{
	struct gen g = { .lo = 34, .hi = 64, .rounds = 7, .period = 8, .phase = 0,
			 .fast = 1, .slow = 1.5, .jitter = 0.1, .outliers = 6, .seed = 8 };
	static const uint64_t want[] = { 40, 48, 56, 64 };
	struct ap_verdict v;

	(void)state;
	run(&g, 0, &v);
	assert_unit(&v, 4096, 0);
	assert_fast(&v, want, 4);
	ap_verdict_free(&v);

	/* outliers on an honest drive do not make it sensitive */
	g.period = 1;
	g.rounds = 20;
	g.outliers = 10;
	run(&g, 0, &v);
	assert_false(v.sensitive);
	ap_verdict_free(&v);
}

static void test_drift(void **state)
{
	/* the drive gets 4x slower over the run: bigger than the effect */
	struct gen g = { .lo = 34, .hi = 64, .rounds = 8, .period = 8, .phase = 7,
			 .fast = 1, .slow = 1.6, .jitter = 0.1, .drift = 0.5, .seed = 9 };
	static const uint64_t want[] = { 39, 47, 55, 63 };
	struct ap_verdict v;

	(void)state;
	run(&g, 0, &v);
	assert_unit(&v, 4096, 7);
	assert_fast(&v, want, 4);
	assert_true(v.drift > 3);
	assert_float_equal(v.slowdown, 1.6, 0.2);
	ap_verdict_free(&v);

	/* drift alone is no effect */
	g.period = 1;
	g.rounds = 20;
	g.drift = 0.2;
	run(&g, 0, &v);
	assert_false(v.sensitive);
	ap_verdict_free(&v);
}

static void test_jitter(void **state)
{
	struct gen g = { .lo = 34, .hi = 64, .rounds = 9, .period = 8, .phase = 3,
			 .fast = 1, .slow = 2, .jitter = 0.3, .seed = 10 };
	static const uint64_t want[] = { 35, 43, 51, 59 };
	struct ap_verdict v;
	unsigned s, ok = 0;

	(void)state;
	for (s = 0; s < 20; s++) {
		g.seed = 100 + s;
		run(&g, 0, &v);
		if (v.resolved && v.sensitive && v.period == 8 && v.lowest_aligned_lba == 3)
			ok++;
		ap_verdict_free(&v);
	}
	assert_int_equal(ok, 20);

	g.seed = 10;
	run(&g, 0, &v);
	assert_fast(&v, want, 4);
	ap_verdict_free(&v);
}

static void test_small_samples(void **state)
{
	struct gen g = { .lo = 34, .hi = 64, .rounds = 1, .period = 8, .phase = 0,
			 .fast = 1, .slow = 2, .jitter = 0.1, .seed = 11 };
	struct ap_verdict v;

	(void)state;
	/* one round: either the right unit or undecided, never wrong, not clear */
	run(&g, 0, &v);
	if (v.sensitive && v.resolved) {
		assert_int_equal(v.physical_sector, 4096);
		assert_int_equal(v.lowest_aligned_lba, 0);
	}
	assert_false(is_clear(&v));
	ap_verdict_free(&v);

	/* a handful of offsets: too few to find a period */
	g.lo = 40;
	g.hi = 43;
	g.rounds = 3;
	run(&g, 8, &v);
	assert_false(v.resolved && v.sensitive);
	assert_false(is_clear(&v));
	ap_verdict_free(&v);

	/* a single observation */
	{
		struct ap_obs o = { .offset = 40, .round = 0, .cost = 1 };
		struct ap_analysis_params p;

		ap_analysis_params_init(&p, 512, 512);
		assert_int_equal(ap_analysis_run(&o, 1, &p, &v), 0);
		assert_false(v.sensitive);
		assert_false(v.resolved);
		assert_int_equal(v.nstats, 1);
		ap_verdict_free(&v);
	}
}

static void test_ties(void **state)
{
	/* integer costs without jitter: everything tied within its class */
	struct gen g = { .lo = 34, .hi = 64, .rounds = 4, .period = 8, .phase = 2,
			 .fast = 10, .slow = 20, .quantize = true, .seed = 12 };
	struct ap_verdict v;

	(void)state;
	run(&g, 0, &v);
	assert_unit(&v, 4096, 2);
	assert_float_equal(v.slowdown, 2, 1e-12);
	ap_verdict_free(&v);

	/* all identical */
	g.period = 1;
	g.rounds = 10;
	run(&g, 0, &v);
	assert_false(v.sensitive);
	assert_float_equal(v.slowdown, 1, 1e-12);
	ap_verdict_free(&v);
}

static void test_partial_writes(void **state)
{
	/* 4 KiB writes on a drive with 8 KiB units: 1 or 2 RMW, no single phase */
	struct gen g = { .lo = 0, .hi = 127, .rounds = 5, .period = 16, .phase = 0,
			 .write_sectors = 8, .fast = 1, .slow = 2, .jitter = 0.1, .seed = 13 };
	struct ap_verdict v;

	(void)state;
	run(&g, 8, &v);
	assert_true(v.sensitive);
	assert_false(v.resolved);
	assert_int_equal(v.physical_sector, 0);
	assert_true(v.fit < 0.9);
	assert_non_null(strstr(v.note, "larger"));
	assert_true(is_clear(&v));
	ap_verdict_free(&v);
}

static void test_min_slowdown(void **state)
{
	/* a real but tiny effect is not "sensitive" */
	struct gen g = { .lo = 34, .hi = 64, .rounds = 30, .period = 8, .phase = 0,
			 .fast = 1, .slow = 1.05, .jitter = 0.02, .seed = 14 };
	struct ap_verdict v;

	(void)state;
	run(&g, 0, &v);
	assert_false(v.sensitive);
	assert_int_equal(v.physical_sector, 512);
	ap_verdict_free(&v);
}

static void test_bad_input(void **state)
{
	struct ap_obs o[2] = { { 1, 0, 1 }, { 2, 0, NAN } };
	struct ap_analysis_params p;
	struct ap_verdict v;

	(void)state;
	ap_analysis_params_init(&p, 512, 512);
	assert_int_equal(p.max_period, 128);
	assert_int_equal(ap_analysis_run(o, 0, &p, &v), -EINVAL);
	assert_int_equal(ap_analysis_run(o, 2, &p, &v), -EINVAL);
	p.alpha = 0;
	assert_int_equal(ap_analysis_run(o, 1, &p, &v), -EINVAL);
	ap_analysis_params_init(&p, 4096, 4096);
	assert_int_equal(p.max_period, 16);
}

static void test_json(void **state)
{
	struct gen g = { .lo = 34, .hi = 64, .rounds = 5, .period = 8, .phase = 7,
			 .fast = 1, .slow = 2, .jitter = 0.1, .seed = 15 };
	struct json_object *o, *x;
	struct ap_verdict v, w;
	const char *s;

	(void)state;
	run(&g, 0, &v);
	o = ap_verdict_to_json(&v);
	assert_true(json_object_object_get_ex(o, "physical_sector", &x));
	assert_int_equal(json_object_get_int(x), 4096);
	assert_true(json_object_object_get_ex(o, "lowest_aligned_lba", &x));
	assert_int_equal(json_object_get_int(x), 7);
	assert_true(json_object_object_get_ex(o, "reported_physical_sector", &x));
	assert_int_equal(json_object_get_int(x), 512);
	assert_true(json_object_object_get_ex(o, "fast_starts", &x));
	assert_int_equal(json_object_array_length(x), 4);
	assert_int_equal(json_object_get_int(json_object_array_get_idx(x, 0)), 39);
	assert_int_equal(json_object_get_int(json_object_array_get_idx(x, 3)), 63);
	s = json_object_to_json_string(o);
	assert_non_null(strstr(s, "\"p_value\""));
	assert_non_null(strstr(s, "\"confidence\""));
	assert_int_equal(ap_verdict_from_json(o, &w), 0);
	assert_true(w.sensitive && w.resolved);
	assert_int_equal(w.physical_sector, 4096);
	assert_int_equal(w.period, 8);
	assert_int_equal(w.lowest_aligned_lba, 7);
	assert_int_equal(w.nfast, 4);
	assert_int_equal(w.fast_starts[3], 63);
	assert_float_equal(w.slowdown, v.slowdown, 1e-9);
	assert_float_equal(w.p_value, v.p_value, 1e-300);
	ap_verdict_free(&w);

	/* bad documents */
	json_object_object_add(o, "physical_sector", NULL);	/* null but resolved */
	assert_int_equal(ap_verdict_from_json(o, &w), -EINVAL);
	json_object_object_add(o, "physical_sector", json_object_new_int(3000));
	assert_int_equal(ap_verdict_from_json(o, &w), -EINVAL);
	json_object_object_add(o, "physical_sector", json_object_new_int(4096));
	json_object_object_add(o, "fast_starts", json_object_new_string("39"));
	assert_int_equal(ap_verdict_from_json(o, &w), -EINVAL);
	json_object_object_del(o, "fast_starts");
	assert_int_equal(ap_verdict_from_json(o, &w), -EINVAL);
	assert_int_equal(ap_verdict_from_json(NULL, &w), -EINVAL);
	json_object_put(o);
	ap_verdict_free(&v);

	/* unresolved: null physical sector, and it reads back */
	g.lo = 0;
	g.hi = 127;
	g.period = 16;
	g.phase = 0;
	g.write_sectors = 8;
	run(&g, 8, &v);
	assert_false(v.resolved);
	o = ap_verdict_to_json(&v);
	assert_true(json_object_object_get_ex(o, "physical_sector", &x));
	assert_null(x);
	assert_int_equal(ap_verdict_from_json(o, &w), 0);
	assert_false(w.resolved);
	assert_true(w.sensitive);
	assert_non_null(w.note);
	ap_verdict_free(&w);
	/* an alignment or period without a physical sector: refused, as it
	 * could not be written back (found by fuzz/fuzz_json.c) */
	json_object_object_add(o, "lowest_aligned_lba", json_object_new_int(32768));
	assert_int_equal(ap_verdict_from_json(o, &w), -EINVAL);
	json_object_object_add(o, "lowest_aligned_lba", NULL);
	json_object_object_add(o, "period", json_object_new_int(8));
	assert_int_equal(ap_verdict_from_json(o, &w), -EINVAL);
	json_object_object_add(o, "period", NULL);
	assert_int_equal(ap_verdict_from_json(o, &w), 0);
	ap_verdict_free(&w);
	json_object_put(o);
	ap_verdict_free(&v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median_quantile),
		cmocka_unit_test(test_mann_whitney),
		cmocka_unit_test(test_chi2_kruskal),
		cmocka_unit_test(test_p8_phase0),
		cmocka_unit_test(test_p8_phase7),
		cmocka_unit_test(test_p16_p32),
		cmocka_unit_test(test_range_limits_period),
		cmocka_unit_test(test_honest),
		cmocka_unit_test(test_outliers),
		cmocka_unit_test(test_drift),
		cmocka_unit_test(test_jitter),
		cmocka_unit_test(test_small_samples),
		cmocka_unit_test(test_ties),
		cmocka_unit_test(test_partial_writes),
		cmocka_unit_test(test_min_slowdown),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
