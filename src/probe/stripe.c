// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The probe's stripe step (issue 33; see struct ap_probe_stripe and
 * design.md 2.2): every-write units above the timed sizes, parity RAID
 * stripes above all, which cost nothing extra only when a write covers
 * whole stripes.
 *
 * Why these writes: a write of W bytes on a stripe of T bytes from phase p
 * costs no read exactly when it starts at p (mod T) and W is a multiple of
 * T; any other write leaves a stripe partly written, whose parity needs a
 * read first (read-modify-write or reconstruct-write). T is k chunks, k =
 * 2..16 data disks, so T = m x 2^j x 4 KiB with m odd and at most 15, not
 * always a power of two (three data disks of 64 KiB: 192 KiB). One width
 * W_m = m x 2^j x 4 KiB, the largest up to the cap, is a multiple of every
 * such T with odd part dividing m, so eight widths (m = 1, 3, ..., 15)
 * cover every stripe up to the cap. Writing W_m at every offset of a grid
 * of G bytes over [0, W_m), only the offsets at p (mod T) are fast: their
 * spacing is T, their position p. The fast offsets found are then
 * confirmed, writes of T bytes at p against writes 64 KiB off,
 * interleaved in a random order and compared with a rank test.
 *
 * Two scales: widths up to AP_ST_SMALL (a request the kernel passes on
 * whole to nearly every device) on a grid of 32 KiB, and when --max-size
 * allows, m = 1, 3, 5, 7 up to it on a grid of 512 KiB: md's default
 * chunk, whose stripes of 1 to 3.5 MiB start at multiples of it. Each
 * family's offsets span two widths, so that a stripe as wide as the width
 * has two offsets in its class. Destructive only: the area is
 * AP_ST_AREA x the largest width, more than the undo journal holds.
 */
#include "probe/probe.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/rng.h"
#include "lib/stats.h"

#define KiB 1024ULL

#define AP_ST_SMALL		(512 * KiB)	/* the first scale's widths, at most */
#define AP_ST_GRID_SMALL	(32 * KiB)
#define AP_ST_GRID_LARGE	(512 * KiB)	/* md's default chunk */
#define AP_ST_AREA		4		/* the area: 4 x the largest width */
#define AP_ST_SPANS		2		/* the offsets span 2 widths: a
						   stripe as wide has two in its class */
/*
 * The first scale's power-of-two width (512 KiB) spans 4 widths where the
 * area holds them: a stripe as wide shows in no other width (the second
 * scale's land on its multiples, whole stripes wherever they start), and
 * its class of two offsets lost the stripe to one slow write. On the unit
 * tests' model, of 2,000 seeds, 512 KiB at a 3 ms cost was missed 78
 * times with two, 36 with four; at 5 ms with 5 % of the writes 4-8 ms
 * late 42 and 4; 32 writes more.
 */
#define AP_ST_SPANS_POW2	4
#define AP_ST_LARGE_ODD		7		/* the second scale: 1, 2, 3, 4, 5, 6, 7, 8,
						   10, 12, 14 or 16 data disks */
/*
 * A candidate from the scan: its class faster at this level (rank test)
 * and by AP_ST_SCREEN_RATIO (medians); the largest ratios first, up to
 * AP_ST_CANDIDATES confirmed. Each offset is written once, and one slow
 * write among a stripe's few offsets kept its class out at 0.05 with four
 * confirmed: on the unit tests' model, of 2,000 seeds, 177 of 512 KiB
 * stripes at a 3 ms cost were missed, 840 of 320 KiB at 2 ms, 78 of 1.5
 * MiB; at 0.2 with eight, 78, 722 and 14, and a volume with no stripe
 * takes 1.3x as long (a second scan of every offset: 33, 427 and 2, but
 * twice as long, 6 s more on an emulated rotating volume).
 */
#define AP_ST_SCREEN_P		0.2
#define AP_ST_SCREEN_RATIO	1.2
#define AP_ST_CANDIDATES	8
#define AP_ST_ROUNDS		12		/* confirmation writes each way, a batch */
/*
 * Confirmations a run makes at most (each candidate and each unit
 * descend() tries, twice where the first shows: shows()), which caps what
 * the step writes: 19 at most in 2,000 seeds of each of the unit tests'
 * volumes. Past it nothing more shows: descend() keeps the multiple of
 * the stripe it has, still aligned to it.
 */
#define AP_ST_CONFIRMS		24
#define AP_ST_BATCHES		3		/* batches at most */
#define AP_ST_GIVE_UP_P		0.1		/* a batch's test above this: not a stripe */
/*
 * The confirmation's rank test. Up to four candidates (then), up to three
 * looks each, and the units descend() tries: at 0.001 an honest volume on
 * a loaded host showed a stripe in about 1 of 100 (the unit tests' model,
 * 4-8 ms late one request in ten: 6 of 500, 1.2x to 1.4x). Twelve writes
 * each way that a stripe sets apart give 3.7e-7, and below 1e-4 still 11
 * of their 144 pairs may be out of order; a batch more decides the rest.
 * Once at 1e-4 still made 1 stripe in 1,000 of nothing: shows() asks
 * twice.
 */
#define AP_ST_ALPHA		0.0001
#define AP_ST_MIN_RATIO		1.2		/* ... and its median ratio */
/*
 * The confirmation's control: its writes this far off the candidate's
 * phase. Off every stripe width (all above it), so that a multiple of the
 * stripe confirms too and descend() takes it down to the stripe; half of
 * the candidate instead left an even multiple whole at both places (the
 * scan's class of two at 2T, ranked first on nearly every raid5 run, was
 * a candidate that could never show). A multiple of every timed unit: the
 * control pays no sector's or page's read-modify-write that the
 * candidate's writes do not.
 */
#define AP_ST_CONTROL_OFF	AP_PROBE_STEADY_MAX

int ap_probe_plan_stripe(const struct ap_probe_opts *o, struct ap_probe_plan *p,
			 struct ap_error *e)
{
	uint64_t cap = o->max_size, g = p->logical_sector > 4 * KiB ? p->logical_sector : 4 * KiB;
	uint64_t start;

	(void)e;
	if (o->mode != AP_PROBE_DESTRUCTIVE || !o->stripes || cap <= AP_PROBE_STEADY_MAX)
		return 0;
	/*
	 * A margin of the largest timed size on either side: a write torn by
	 * a power cut on a drive hiding a unit that large garbles up to a
	 * unit past its edge, which must stay inside the region.
	 */
	start = (p->region_start + AP_PROBE_STEADY_MAX + AP_ST_SMALL - 1) / AP_ST_SMALL *
		AP_ST_SMALL;
	while (cap > AP_PROBE_STEADY_MAX &&
	       start + AP_ST_AREA * cap + AP_PROBE_STEADY_MAX > p->region_start + p->region_size)
		cap /= 2;
	cap = cap / g * g;
	if (cap <= AP_PROBE_STEADY_MAX)
		return 0;
	p->st_start = start;
	p->st_len = AP_ST_AREA * cap;
	p->st_cap = cap;
	return 0;
}

/* ------------------------------------------------------------------ */
/* measuring */

struct st {
	struct ap_probe_step c;	/* what every step has */
	struct ap_rng rng;
};

/* One width and its grid (a family: every stripe whose odd part divides m). */
struct family {
	uint64_t width, grid;
	unsigned noff;		/* offsets: width / grid x the scale's spans */
};

#define AP_ST_FAMILIES	16

/*
 * The widths of both scales, into @f: for m = 1, 3, ..., 15 the largest
 * m x 2^j x 4 KiB up to the scale's cap, above the timed sizes (and above
 * the first scale's cap for the second). Their count.
 */
static size_t families(const struct ap_probe_plan *p, struct family *f)
{
	uint64_t caps[2] = { p->st_cap < AP_ST_SMALL ? p->st_cap : AP_ST_SMALL, p->st_cap };
	uint64_t grids[2] = { AP_ST_GRID_SMALL, AP_ST_GRID_LARGE };
	unsigned mmax[2] = { 15, AP_ST_LARGE_ODD }, spans[2] = { AP_ST_SPANS, AP_ST_SPANS };
	size_t n = 0, s;
	unsigned m, sp;

	for (s = 0; s < 2; s++) {
		uint64_t floor = s ? AP_ST_SMALL : AP_PROBE_STEADY_MAX;

		if (caps[s] <= floor)
			continue;
		for (m = 1; m <= mmax[s]; m += 2) {
			uint64_t w = m * 4 * KiB, grid;

			if (w > caps[s])
				continue;
			while (2 * w <= caps[s])
				w *= 2;
			grid = ap_gcd_u64(w, grids[s]);
			if (w <= floor || w / grid < 2)
				continue;
			f[n].width = w;
			f[n].grid = grid;
			sp = !s && m == 1 && (AP_ST_SPANS_POW2 + 1) * w <= p->st_len ?
			     AP_ST_SPANS_POW2 : spans[s];
			f[n].noff = (unsigned)(sp * w / grid);
			n++;
		}
	}
	return n;
}

void ap_probe_stripe_plan_counts(const struct ap_probe_plan *p, uint64_t *writes, uint64_t *bytes,
				 uint64_t *confirm_max)
{
	struct family f[AP_ST_FAMILIES];
	size_t n = p->st_cap ? families(p, f) : 0, i;

	*writes = *bytes = 0;
	for (i = 0; i < n; i++) {
		*writes += f[i].noff;
		*bytes += f[i].noff * f[i].width;
	}
	if (n)
		*bytes += p->st_len;	/* the warm-up */
	*confirm_max = n ? (uint64_t)AP_ST_CONFIRMS * AP_ST_BATCHES * 2 * AP_ST_ROUNDS : 0;
}

static void st_add(struct ap_probe_stripe *t, const struct ap_st_sample *s)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->s = ap_xreallocarray(t->s, t->cap, sizeof(*t->s));
	}
	t->s[t->n++] = *s;
}

/*
 * One write of @len bytes at @off (timed: on a rotating disk after its
 * lead-in, as the first writes'), its sample kept unless @kind is
 * AP_ST_WARM. 0, 1 when stopped, or -errno with x->c.e.
 */
static int st_write(struct st *x, uint64_t off, uint64_t len, enum ap_st_kind kind,
		    uint32_t family)
{
	struct ap_st_sample s = { .off = off, .len = len, .kind = kind, .family = family };
	int rc;

	if (ap_probe_step_stop(x->c.o, x->c.r))
		return 1;
	rc = ap_probe_step_write(x->c.io, x->c.plan, kind != AP_ST_WARM && x->c.lead, 0, off, len,
				 &s.ns, x->c.e);
	if (rc)
		return rc;
	x->c.r->st.written += len;
	x->c.r->live_ops++;
	if (kind != AP_ST_WARM)
		st_add(&x->c.r->st, &s);
	return 0;
}

/* Write the whole area once, untimed: a thin device allocates it now, not in the scan. */
static int warm(struct st *x)
{
	const struct ap_probe_plan *p = x->c.plan;
	uint64_t off;
	int rc;

	for (off = p->st_start; off < p->st_start + p->st_len; off += p->st_cap)
		if ((rc = st_write(x, off, p->st_cap, AP_ST_WARM, 0)))
			return rc;
	return 0;
}

/* Where the scan writes family @f's offset @i: a whole number of widths in. */
static uint64_t scan_off(const struct ap_probe_plan *p, const struct family *f, unsigned i)
{
	return p->st_start + f->width + (uint64_t)i * f->grid;
}

/* Every family's offsets once, in a random order. */
static int scan(struct st *x, const struct family *f, size_t nf)
{
	size_t total = 0, i, k = 0;
	uint32_t *order;
	unsigned j;
	int rc = 0;

	for (i = 0; i < nf; i++)
		total += f[i].noff;
	order = ap_xmalloc(total * 2 * sizeof(*order));
	for (i = 0; i < nf; i++)
		for (j = 0; j < f[i].noff; j++) {
			order[2 * k] = (uint32_t)i;
			order[2 * k + 1] = j;
			k++;
		}
	ap_rng_shuffle(&x->rng, order, total, 2 * sizeof(*order));
	for (k = 0; k < total && !rc; k++) {
		const struct family *fa = &f[order[2 * k]];

		rc = st_write(x, scan_off(x->c.plan, fa, order[2 * k + 1]), fa->width, AP_ST_SCAN,
			      order[2 * k]);
	}
	free(order);
	return rc;
}

/*
 * Family @fi's time at each offset (the fastest, if written again),
 * divided by the family's median, into @v (0: none measured). The number
 * measured.
 */
static unsigned offset_times(const struct ap_probe_stripe *t, const struct family *f, uint32_t fi,
			     const struct ap_probe_plan *p, double *v)
{
	unsigned i, n = 0;
	double *c, m;
	size_t k;

	for (i = 0; i < f->noff; i++)
		v[i] = 0;
	for (k = 0; k < t->n; k++) {
		const struct ap_st_sample *s = &t->s[k];

		if (s->kind != AP_ST_SCAN || s->family != fi)
			continue;
		i = (unsigned)((s->off - scan_off(p, f, 0)) / f->grid);
		if (i >= f->noff)
			continue;
		if (!v[i])
			n++;
		if (!v[i] || (double)s->ns < v[i])
			v[i] = (double)s->ns;
	}
	if (n < f->noff)
		return n;
	c = ap_xmalloc(f->noff * sizeof(*c));
	memcpy(c, v, f->noff * sizeof(*c));
	m = ap_stats_median(c, f->noff);
	free(c);
	for (i = 0; i < f->noff; i++)
		v[i] /= m;
	return n;
}

/* A stripe width: m x 2^j x 4 KiB with m odd and at most 15, above the timed sizes. */
static bool stripe_width(uint64_t u)
{
	if (u <= AP_PROBE_STEADY_MAX || u % (4 * KiB))
		return false;
	u /= 4 * KiB;
	while (!(u % 2))
		u /= 2;
	return u <= 15;
}

size_t ap_probe_stripe_widths(const struct ap_probe_plan *p, uint64_t *width, uint64_t *grid,
			      size_t max)
{
	struct family f[AP_ST_FAMILIES];
	size_t n = families(p, f), i;

	for (i = 0; i < n && i < max; i++) {
		width[i] = f[i].width;
		grid[i] = f[i].grid;
	}
	return n;
}

/*
 * The largest effect first, then the smallest unit: every family has a
 * class of two offsets that is fastest by chance (p 0.002-0.005 among
 * the dozens of classes of its 20-32 offsets), a few per cent to 1.3x
 * faster; a stripe's class is a read-modify-write faster (1.4x to 3x).
 */
static int cand_cmp(const void *a, const void *b)
{
	const struct ap_st_candidate *x = a, *y = b;

	if (x->ratio != y->ratio)
		return x->ratio > y->ratio ? -1 : 1;
	return x->unit < y->unit ? -1 : x->unit > y->unit;
}

/*
 * One candidate (@u, @ph) in family @fi's scan: its offsets at @ph mod @u
 * against the others, each offset's time relative to the family's median.
 * 0 when the family has no offset of the class or none outside it.
 */
static int judge(const struct family *f, const double *v, const struct ap_probe_plan *p,
		 uint64_t u, uint64_t ph, struct ap_st_candidate *c, double *in, double *out)
{
	size_t ni = 0, no = 0;
	unsigned j;

	for (j = 0; j < f->noff; j++) {
		if (scan_off(p, f, j) % u == ph)
			in[ni++] = v[j];
		else
			out[no++] = v[j];
	}
	if (!ni || !no)
		return 0;
	c->unit = u;
	c->phase = ph;
	c->members = (unsigned)ni;
	c->p = ap_stats_mann_whitney_p(in, ni, out, no);
	c->ratio = ap_stats_median(out, no) / ap_stats_median(in, ni);
	return 1;
}

size_t ap_probe_stripe_candidates(const struct ap_probe_stripe *t, const struct ap_probe_plan *p,
				  struct ap_st_candidate *best, size_t max)
{
	struct family f[AP_ST_FAMILIES];
	size_t nf = families(p, f), i, k, n = 0, nb = 0, cap = 64;
	struct ap_st_candidate *all = ap_xmalloc(cap * sizeof(*all)), c;
	double *v, *in, *out;
	uint64_t u, ph, d;

	/*
	 * Each family on its own: a wide write split into requests by the
	 * kernel (or a FUSE server) shows a stripe weaker than a narrow one,
	 * and pooling them would dilute it. Every stripe width dividing the
	 * family's width, at every phase of its grid; the candidates of all
	 * families in one list, each (unit, phase) at its best.
	 */
	for (i = 0; i < nf; i++) {
		v = ap_xmalloc(f[i].noff * sizeof(*v));
		in = ap_xmalloc(f[i].noff * sizeof(*in));
		out = ap_xmalloc(f[i].noff * sizeof(*out));
		if (offset_times(t, &f[i], (uint32_t)i, p, v) < f[i].noff)
			goto next;
		for (d = 1; d <= f[i].width / f[i].grid; d++) {
			if (f[i].width % d || !stripe_width(u = f[i].width / d) || u % f[i].grid)
				continue;
			for (ph = 0; ph < u; ph += f[i].grid) {
				if (!judge(&f[i], v, p, u, ph, &c, in, out) ||
				    c.p > AP_ST_SCREEN_P || c.ratio < AP_ST_SCREEN_RATIO)
					continue;
				if (n == cap)
					all = ap_xreallocarray(all, cap *= 2, sizeof(*all));
				all[n++] = c;
			}
		}
next:
		free(v);
		free(in);
		free(out);
	}
	qsort(all, n, sizeof(*all), cand_cmp);
	for (i = 0; i < n && nb < max; i++) {
		bool seen = false;

		for (k = 0; k < nb; k++)
			seen = seen || (best[k].unit == all[i].unit && best[k].phase == all[i].phase);
		if (!seen)
			best[nb++] = all[i];
	}
	free(all);
	return nb;
}

/*
 * Writes of @unit bytes at @phase against writes AP_ST_CONTROL_OFF off
 * at random stripes of the area, interleaved in a random order, in
 * batches of AP_ST_ROUNDS each way: after each batch the rank test
 * decides (p < AP_ST_ALPHA), or rules the candidate out (p over
 * AP_ST_GIVE_UP_P), or, up to AP_ST_BATCHES, one more batch. The test of
 * the last batch's data in *@pv, the medians' ratio in *@ratio. 0, 1 when
 * stopped, or -errno.
 */
static int confirm(struct st *x, uint64_t unit, uint64_t phase, double *pv, double *ratio)
{
	const struct ap_probe_plan *p = x->c.plan;
	struct ap_probe_stripe *t = &x->c.r->st;
	/* stripes s from @first whose control write, the further, ends inside the area */
	uint64_t first = p->st_start / unit + 1, lim = p->st_start + p->st_len;
	uint64_t need = phase + AP_ST_CONTROL_OFF + unit, last = lim > need ? (lim - need) / unit : 0;
	uint64_t nstripes = last >= first ? last - first + 1 : 0;
	unsigned kinds[2 * AP_ST_ROUNDS], i, batch, na = 0, nb = 0;
	double a[AP_ST_ROUNDS * AP_ST_BATCHES], b[AP_ST_ROUNDS * AP_ST_BATCHES];
	size_t from = t->n, k;
	int rc;

	*pv = 1;
	*ratio = 0;
	if (!nstripes)
		return 0;
	for (batch = 0; batch < AP_ST_BATCHES; batch++) {
		double *ca, *cb;

		for (i = 0; i < 2 * AP_ST_ROUNDS; i++)
			kinds[i] = i % 2 ? AP_ST_MISALIGNED : AP_ST_ALIGNED;
		ap_rng_shuffle(&x->rng, kinds, 2 * AP_ST_ROUNDS, sizeof(*kinds));
		for (i = 0; i < 2 * AP_ST_ROUNDS; i++) {
			uint64_t s = first + ap_rng_below(&x->rng, nstripes);
			uint64_t off = s * unit + phase + (kinds[i] == AP_ST_MISALIGNED ?
								 AP_ST_CONTROL_OFF : 0);

			if ((rc = st_write(x, off, unit, kinds[i], 0)))
				return rc;
		}
		for (k = from; k < t->n; k++) {
			if (t->s[k].kind == AP_ST_ALIGNED)
				a[na++] = (double)t->s[k].ns;
			else if (t->s[k].kind == AP_ST_MISALIGNED)
				b[nb++] = (double)t->s[k].ns;
		}
		from = t->n;
		*pv = ap_stats_mann_whitney_p(a, na, b, nb);
		ca = ap_xmalloc(na * sizeof(*ca));
		cb = ap_xmalloc(nb * sizeof(*cb));
		memcpy(ca, a, na * sizeof(*ca));
		memcpy(cb, b, nb * sizeof(*cb));
		*ratio = ap_stats_median(cb, nb) / ap_stats_median(ca, na);
		free(ca);
		free(cb);
		if (*pv < AP_ST_ALPHA || *pv > AP_ST_GIVE_UP_P || *ratio < AP_ST_MIN_RATIO)
			break;
	}
	return 0;
}

static bool confirmed(double pv, double ratio)
{
	return pv < AP_ST_ALPHA && ratio >= AP_ST_MIN_RATIO;
}

/*
 * Does @unit at @phase show: confirmed, its ratio's excess (ratio - 1) at
 * least @excess, and again in a confirmation of fresh writes (*@yes)?
 * Once was 1 in 1,000 on the unit tests' honest volume (a 480 KiB stripe
 * at 1.27x, p below 1e-4 by chance among the candidates' looks) and 1 in
 * 4,000 a wrong unit on its raid6 (256 KiB of a 512 KiB stripe, taken by
 * descend()); a stripe shows twice at p 1e-7. No more than
 * AP_ST_CONFIRMS in all. The last confirmation's test and ratio in *@pv
 * and *@ratio. 0, 1 when stopped, or -errno.
 */
static int shows(struct st *x, uint64_t unit, uint64_t phase, double excess, bool *yes,
		 double *pv, double *ratio)
{
	int rc, k;

	*yes = false;
	*pv = 1;
	*ratio = 0;
	for (k = 0; k < 2; k++) {
		if (x->c.r->st.candidates == AP_ST_CONFIRMS)
			return 0;
		x->c.r->st.candidates++;
		if ((rc = confirm(x, unit, phase, pv, ratio)))
			return rc;
		if (!confirmed(*pv, *ratio) || *ratio - 1 < excess)
			return 0;
	}
	*yes = true;
	return 0;
}

/*
 * A confirmed @unit U at @phase is a whole number of stripes T from a
 * stripe's start, but it may be a multiple of the stripe: writes of 7 T
 * or 2 T at a stripe's start cover whole stripes, and 64 KiB off they do
 * not, so confirm() shows 3.5 MiB for a 512 KiB stripe (the unit tests'
 * raid6 volume, 1 seed in 20: the larger write had the larger effect in
 * the scan) and 384 KiB for a 192 KiB one. Each U / q (q a prime factor,
 * a stripe width above the timed sizes) is confirmed at the same phase,
 * and the one that shows the largest ratio replaces U, if its excess
 * (ratio - 1) is at least half of U's; until none does. The stripe is the
 * smallest that shows: U / q is a multiple of T exactly when q divides
 * U / T, and then saves the same two read-modify-writes as U, a larger
 * share of its smaller cost. A U / q that is not a multiple can still
 * show, as a difference between partial writes (3.5 T at a stripe's
 * start leaves one stripe partly written, 64 KiB off two: less than
 * U's excess), and less than the multiple beside it (U / 7 there): hence
 * the largest. Within one stripe (U = T) a smaller write is partial at
 * both places. The first U / q that showed as much as U, two estimates
 * from 12 writes each way, kept 384 KiB for 192 KiB in 99 seeds of 400 of
 * the unit tests' raid5. 0, 1 when stopped, or -errno.
 */
static int descend(struct st *x, uint64_t *unit, uint64_t *phase, double *pv, double *ratio)
{
	uint64_t q, rest, v, best;
	double p2, r2, bp = 1, br;
	bool yes;
	int rc;

	do {
		best = 0;
		br = 0;
		rest = *unit / (4 * KiB);
		for (q = 0; (q = ap_prime_next(&rest, q)); ) {
			v = *unit / q;
			if (!stripe_width(v))
				continue;
			if ((rc = shows(x, v, *phase % v, (*ratio - 1) / 2, &yes, &p2, &r2)))
				return rc;
			if (yes && r2 > br) {
				best = v;
				bp = p2;
				br = r2;
			}
		}
		if (best) {
			*unit = best;
			*phase %= best;
			*pv = bp;
			*ratio = br;
		}
	} while (best);
	return 0;
}

/*
 * The scan's candidates (ap_probe_stripe_candidates()), each confirmed in
 * turn: the first that shows, taken down to the stripe (descend()), is
 * the stripe; the first that does not is said in t->why. 0, 1 when
 * stopped, or -errno.
 */
static int find(struct st *x)
{
	const struct ap_probe_plan *plan = x->c.plan;
	struct ap_probe_stripe *t = &x->c.r->st;
	struct ap_st_candidate cand[AP_ST_CANDIDATES];
	size_t nc = ap_probe_stripe_candidates(t, plan, cand, AP_ST_CANDIDATES), i;
	double pv, ratio;
	char b1[32];
	bool yes;
	int rc;

	for (i = 0; i < nc; i++) {
		uint64_t unit = cand[i].unit, phase = cand[i].phase;

		if ((rc = shows(x, unit, phase, AP_ST_MIN_RATIO - 1, &yes, &pv, &ratio)))
			return rc;
		if (yes) {
			if ((rc = descend(x, &unit, &phase, &pv, &ratio)))
				return rc;
			t->found = true;
			t->unit = unit;
			t->lba = phase / plan->logical_sector;
			t->p = pv;
			t->ratio = ratio;
			return 0;
		}
		if (!t->why[0])
			snprintf(t->why, sizeof(t->why), "the scan suggested a %s stripe from LBA "
				 "%llu (p = %.2g), which its confirmation did not show (%.2fx, rank "
				 "test p = %.2g)", ap_size_exact(unit, b1, sizeof(b1)),
				 (unsigned long long)(phase / plan->logical_sector), cand[i].p,
				 ratio, pv);
	}
	return 0;
}

int ap_probe_stripes(const struct ap_probe_io *io, const struct ap_probe_opts *o,
		     const struct ap_probe_plan *plan, bool rotating, struct ap_probe_result *r,
		     struct ap_error *e)
{
	struct st x = { .c = { .io = io, .o = o, .plan = plan, .r = r, .e = e,
			       .lead = rotating },
			.rng = { .s = o->seed ^ 0xbb67ae8584caa73bULL } };
	struct ap_probe_stripe *t = &r->st;
	struct family f[AP_ST_FAMILIES];
	uint64_t t0 = ap_now_ns();
	size_t nf, i;
	int rc;

	if (o->mode != AP_PROBE_DESTRUCTIVE || !o->stripes || !plan->st_cap)
		return 0;
	/*
	 * One disk that rotates has neither a parity stripe nor a flash page:
	 * the step's 300 MB would only double the probe (--stripes asks).
	 */
	if (o->one_disk && rotating && !o->stripes_always) {
		t->skipped = true;
		return 0;
	}
	nf = families(plan, f);
	if (!nf)
		return 0;
	rc = warm(&x);
	if (!rc)
		rc = scan(&x, f, nf);
	if (rc)
		goto out;
	t->measured = true;
	for (i = 0; i < nf; i++)
		if (f[i].width > t->covered)
			t->covered = f[i].width;
	rc = find(&x);
out:
	t->ns = ap_now_ns() - t0;
	return rc > 0 ? 0 : rc;
}

/* ------------------------------------------------------------------ */
/* the verdict */

void ap_probe_stripe_decide(struct ap_probe_result *r, const struct ap_probe_opts *o)
{
	struct ap_verdict *v = &r->verdict;
	const struct ap_probe_stripe *t = &r->st;
	const struct ap_probe_plan *p = &r->plan;
	char b1[32], b2[32], b3[32];
	bool claim = !r->failed && !r->interrupted;

	if (!claim || r->mode == AP_PROBE_READONLY || !o->stripes)
		return;
	if (t->found) {
		struct ap_error e = { 0 };

		(void)ap_levels_add(&v->levels, p->logical_sector,
				    &(struct ap_level){ .kind = AP_LEVEL_STRIPE, .unit = t->unit,
				    .lowest_aligned_lba = t->lba, .ratio = t->ratio }, true, &e);
		ap_verdict_append_note(v, "rewrites: a %s stripe from LBA %llu (a stripe-sized "
				       "write 64 KiB off costs %.1fx, rank test p = %.2g): "
				       "align to it as well", ap_size_exact(t->unit, b1, sizeof(b1)),
				       (unsigned long long)t->lba, t->ratio, t->p);
	} else if (t->measured) {
		bool large = t->covered > AP_ST_SMALL;	/* the second scale ran (families()) */

		ap_verdict_append_note(v, "rewrites: no stripe above %s up to %s (whole stripes "
				       "of 2..16 chunks from every 32 KiB)%s%s",
				       ap_size_exact(AP_PROBE_STEADY_MAX, b1, sizeof(b1)),
				       ap_size_exact(large ? AP_ST_SMALL : t->covered, b2, sizeof(b2)),
				       large ? ", nor of a multiple of 512 KiB up to " : "",
				       large ? ap_size_exact(t->covered, b3, sizeof(b3)) : "");
	} else if (t->skipped) {
		ap_verdict_append_note(v, "rewrites: units above %s not measured: the device "
				       "is one ATA disk and rotates, so it has no RAID stripe "
				       "(--stripes measures them anyway)",
				       ap_size_exact(AP_PROBE_STEADY_MAX, b1, sizeof(b1)));
	} else if (p->max_unit > AP_PROBE_STEADY_MAX && r->mode == AP_PROBE_PRESERVE) {
		ap_verdict_append_note(v, "units above %s paid on every write (RAID stripes) are "
				       "measured only by a destructive probe: its whole-stripe "
				       "writes take more than the undo journal holds",
				       ap_size_exact(AP_PROBE_STEADY_MAX, b1, sizeof(b1)));
	}
}
