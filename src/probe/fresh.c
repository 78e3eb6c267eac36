// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The probe's first-write step (issue 33; see struct ap_probe_first and
 * design.md 2.2): first writes into never-written places against rewrites
 * of the same places, and where they differ, the allocation unit and its
 * phase from sequential first writes through never-written windows.
 *
 * Why sequential: a thin device or an image format allocates a unit (a
 * qcow2 cluster, a thin-pool chunk) on the first write into it, copying or
 * zeroing the rest of it; later writes into the unit are cheap, whether
 * their bytes were written before or not. Writing a window of never-written
 * space from its start in writes of G bytes, only the write that enters a
 * new unit pays: the slow writes recur every U bytes, at the unit's phase.
 * The window's first write (the comparison's first write) allocates the
 * unit it starts in, so that the first slow write of the scan is a
 * boundary. G (4 KiB, or the logical sector when larger) places a boundary
 * within G bytes; logical-sector writes across that G then place it
 * exactly, in windows whose units beyond the scan are still unwritten.
 */
#include "probe/probe.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/rng.h"
#include "lib/stats.h"

#define AP_FW_BATCH		12	/* first writes compared at a time */
#define AP_FW_PHASE_RATIO	1.5	/* a unit's phase against the others */
#define AP_FW_CHECK_EVERY	256	/* scan writes between looks at the data */
#define AP_FW_ABSENT_P		0.05	/* the equivalence test's level */
/*
 * The margin of "first writes: no effect": an allocation unit makes its
 * first write copy or zero the rest of the unit (16 times the write and
 * more: 2x to 10x measured on qcow2 and thin pools), not a few per cent;
 * ruling out 1.10x would take a hundred never-written places of the
 * largest unit each. Between 1.10x and this: neither (exit 5).
 */
#define AP_FW_MARGIN		1.5

/* ---- measuring ---- */

struct fw {
	struct ap_probe_step c;	/* what every step has */
	uint64_t seed;
};

static void fw_add(struct ap_probe_first *f, const struct ap_fw_sample *s)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 256;
		f->s = ap_xreallocarray(f->s, f->cap, sizeof(*f->s));
	}
	f->s[f->n++] = *s;
}

/*
 * One timed write of @len bytes at @off in window @w (on a rotating disk
 * after its lead-in, as the phase screen's: ap_probe_lead_in_before()).
 * 0, 1 when stopped, or -errno with x->c.e (ENOSPC: a thin device full).
 */
static int fw_write(struct fw *x, uint32_t w, uint64_t off, uint64_t len, enum ap_fw_kind kind,
		    bool lead)
{
	struct ap_fw_sample s = { .off = off, .window = w, .kind = kind };
	int rc;

	if (ap_probe_step_stop(x->c.o, x->c.r))
		return 1;
	rc = ap_probe_step_write(x->c.io, x->c.plan, lead && x->c.lead, w, off, len, &s.ns, x->c.e);
	if (rc)
		return rc;
	fw_add(&x->c.r->fw, &s);
	x->c.r->fw.written += len;
	x->c.r->live_ops++;
	return 0;
}

static uint64_t window_start(const struct ap_probe_plan *p, uint32_t w)
{
	return p->fw_start + (uint64_t)w * p->fw_pitch;
}

static size_t kind_ns(const struct ap_probe_first *f, enum ap_fw_kind kind, uint32_t from,
		      double **out);

/*
 * The three medians the scan's stop and its words rest on: the scan's
 * writes (@m), the first writes (@fm) and the rewrites (@rm); false with
 * fewer than 128 scan writes.
 */
static bool scan_medians(const struct ap_probe_first *f, double *m, double *fm, double *rm)
{
	double *v, *a, *b;
	size_t n = kind_ns(f, AP_FW_SCAN, 0, &v), na = kind_ns(f, AP_FW_FIRST, 0, &a),
	       nb = kind_ns(f, AP_FW_REWRITE, 0, &b);
	bool ok = n >= 128 && na && nb;

	if (ok) {
		*m = ap_stats_median(v, n);
		*fm = ap_stats_median(a, na);
		*rm = ap_stats_median(b, nb);
	}
	free(v);
	free(a);
	free(b);
	return ok;
}

/* Has the scan written 3 writes of every phase of the largest unit? */
static bool scan_covered(const struct ap_probe_first *f, const struct ap_probe_plan *p)
{
	return f->scanned >= 3 * p->fw_unit_max;
}

/*
 * Does the scan stop with no unit? Where first writes cost less than
 * AP_FW_PHASE_RATIO x the scan's writes, the least a boundary stands out
 * by (fit_unit()), none can: noise would only get more looks (an emulated
 * disk under load once made a 420 KiB unit of nothing). Stopped at half
 * the first writes' cost, it missed QEMU's 128 KiB qcow2 clusters (first
 * writes 2.2x rewrites, the scan's 1.3x). Where every scan write pays
 * (their median nearer the first writes' than the rewrites') and first
 * writes cost more still, the scan goes on until it holds 3 writes of
 * every phase of the largest unit: stopped at 256 writes, it never looked
 * for QEMU's VHDX blocks (8 MiB, 76-221x a rewrite to enter one) on a
 * sparse image under CI's load, whose every 4 KiB in order cost 6.8x.
 * 128 scan writes at least (scan_medians()).
 */
static bool scan_stops(const struct ap_probe_first *f, const struct ap_probe_plan *p)
{
	double m, fm, rm;

	if (!scan_medians(f, &m, &fm, &rm))
		return false;
	return AP_FW_PHASE_RATIO * m >= fm ||
	       (m * m > fm * rm && scan_covered(f, p));
}

/*
 * A batch of first writes at the next windows' starts, then rewrites of
 * them (AP_FW_REWRITES each) in a shuffled order. 0, 1 when stopped, or
 * -errno.
 */
static int compare_batch(struct fw *x)
{
	const struct ap_probe_plan *p = x->c.plan;
	struct ap_probe_first *f = &x->c.r->fw;
	uint32_t order[AP_FW_BATCH * AP_FW_REWRITES], from = f->windows, n, i, t;
	int rc;

	n = p->fw_windows - from < AP_FW_BATCH ? p->fw_windows - from : AP_FW_BATCH;
	for (i = 0; i < n; i++) {
		if ((rc = fw_write(x, from + i, window_start(p, from + i), p->fw_granule,
				   AP_FW_FIRST, true)))
			return rc;
		f->windows++;
	}
	for (i = 0; i < n * AP_FW_REWRITES; i++)
		order[i] = from + i % n;
	for (i = n * AP_FW_REWRITES - 1; i > 0; i--) {
		uint32_t j = (uint32_t)(ap_splitmix64(&x->seed) % (i + 1));

		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < n * AP_FW_REWRITES; i++)
		if ((rc = fw_write(x, order[i], window_start(p, order[i]), p->fw_granule,
				   AP_FW_REWRITE, true)))
			return rc;
	return 0;
}

/* Where window @w's scan has got to (its first write at the start included). */
static uint64_t scan_end(const struct ap_probe_first *f, const struct ap_probe_plan *p, uint32_t w)
{
	uint64_t end = window_start(p, w) + p->fw_granule;
	size_t i;

	for (i = 0; i < f->n; i++)
		if (f->s[i].window == w && f->s[i].kind == AP_FW_SCAN &&
		    f->s[i].off + p->fw_granule > end)
			end = f->s[i].off + p->fw_granule;
	return end;
}

/* Scan the windows in turn until the analysis resolves the unit or they end. */
static int scan(struct fw *x)
{
	const struct ap_probe_plan *p = x->c.plan;
	struct ap_probe_first *f = &x->c.r->fw;
	uint64_t g = p->fw_granule, wn = 2 * p->fw_unit_max + g, off, k = 0;
	uint32_t w;
	int rc;

	for (w = 0; w < f->windows && w < AP_FW_SCANNED; w++) {
		for (off = window_start(p, w) + g; off < window_start(p, w) + wn; off += g) {
			if ((rc = fw_write(x, w, off, g, AP_FW_SCAN, false)))
				return rc;
			f->scanned += g;
			if (++k % AP_FW_CHECK_EVERY == 0 && (k & (k - 1)) == 0) {
				ap_probe_first_analyse(x->c.r, x->c.o);
				if (f->unit)
					return 0;	/* found: refine() places it */
				if (scan_stops(f, p)) {
					f->fine = true;	/* none stands out */
					return 0;
				}
			}
		}
		ap_probe_first_analyse(x->c.r, x->c.o);
		if (f->unit)
			return 0;
	}
	f->scan_done = true;
	return 0;
}

/*
 * Where window @w's next boundary cell (≡ @cell mod @unit, bytes) lies at or
 * after @from: the unit before it is allocated (the window's start or its
 * scan wrote it), the one in it is not.
 */
static uint64_t next_cell(uint64_t from, uint64_t cell, uint64_t unit)
{
	uint64_t r = from % unit;

	return r <= cell ? from - r + cell : from - r + unit + cell;
}

/*
 * The boundary within its G bytes: logical-sector writes from one sector
 * before the cell to its end, in every window (the scan's windows after
 * where it got to). Only the write that enters the new unit pays.
 */
static int refine(struct fw *x, uint64_t cell)
{
	const struct ap_probe_plan *p = x->c.plan;
	struct ap_probe_first *f = &x->c.r->fw;
	uint64_t l = p->logical_sector, g = p->fw_granule, cs, off;
	uint32_t w;
	int rc;

	for (w = 0; w < f->windows; w++) {
		cs = next_cell(scan_end(f, p, w), cell, f->unit);
		if (cs + g > window_start(p, w) + p->fw_len)
			continue;
		for (off = cs - l; off < cs + g; off += l)
			if ((rc = fw_write(x, w, off, l, AP_FW_REFINE, false)))
				return rc;
	}
	return 0;
}

/*
 * The latencies of one @kind of write (AP_FW_FIRST, AP_FW_REWRITE, ...) in
 * windows @from on: their number. Caller frees.
 */
static size_t kind_ns(const struct ap_probe_first *f, enum ap_fw_kind kind, uint32_t from,
		      double **out)
{
	double *v = ap_xmalloc((f->n + 1) * sizeof(*v));
	size_t i, n = 0;

	for (i = 0; i < f->n; i++)
		if (f->s[i].kind == kind && f->s[i].window >= from)
			v[n++] = (double)f->s[i].ns;
	*out = v;
	return n;
}

/* How often the comparison looks at its data at most: once per batch. */
static unsigned compare_looks(const struct ap_probe_plan *p)
{
	return (p->fw_windows + AP_FW_BATCH - 1) / AP_FW_BATCH;
}

/*
 * The comparison of first writes with rewrites (f->effect, f->absent), each
 * test at its level over the looks (compare_looks()): an effect is a rank
 * test of rewrites faster than first writes, and a ratio of medians of
 * @min_ratio or more; "absent" the equivalence test (first writes / @margin
 * faster than rewrites), where the rank test does not show first writes
 * slower at AP_FW_ABSENT_P: under CI's load QEMU's 64 KiB clusters made
 * first writes 1.29x rewrites (p = 0.0007), below the margin, and "no
 * effect of 1.50x or more" ruled out the clusters that cost it.
 */
static void analyse_compare(struct ap_probe_first *f, const struct ap_probe_plan *p,
			    double alpha, double min_ratio, double margin)
{
	double *a, *b, ma, mb, looks = compare_looks(p);
	size_t i, na = kind_ns(f, AP_FW_FIRST, 0, &a), nb = kind_ns(f, AP_FW_REWRITE, 0, &b);

	f->margin = margin;
	f->effect = f->absent = false;
	f->p_effect = f->p_absent = 1;
	if (na >= AP_FW_MIN_WINDOWS && nb >= AP_FW_MIN_WINDOWS) {
		f->p_effect = ap_stats_mann_whitney_p(b, nb, a, na);	/* rewrites faster */
		for (i = 0; i < na; i++)
			a[i] /= margin;
		f->p_absent = ap_stats_mann_whitney_p(a, na, b, nb);	/* first / margin faster */
		for (i = 0; i < na; i++)
			a[i] *= margin;
		ma = ap_stats_median(a, na);
		mb = ap_stats_median(b, nb);
		f->ratio = mb > 0 ? ma / mb : 1;
		f->effect = f->p_effect * looks <= alpha && f->ratio >= min_ratio;
		f->absent = !f->effect && f->p_absent * looks <= AP_FW_ABSENT_P &&
			    f->p_effect * looks > AP_FW_ABSENT_P;
	}
	free(a);
	free(b);
}

/*
 * Does a set of writes whose median is @sub pay as a unit's boundaries do
 * (median @slow), against the writes at no boundary (@ord)? 1.5x the
 * latter, and nearer the boundaries' cost than theirs on a log scale. A
 * mere 1.5x is what 1 write in 4 reaches under load: on QEMU's 2 MiB
 * clusters, where 1 write in 10 costs 4x the median, the writes at the
 * middle of the clusters once looked like boundaries (multiple_pays()).
 */
static bool pays_like(double sub, double slow, double ord)
{
	return sub >= AP_FW_PHASE_RATIO * ord && sub * sub >= slow * ord;
}

/*
 * Do the boundaries of a unit m / p G (p a prime factor of @m) pay too,
 * besides those of m G at phase @rho (@ord: the median of the writes at no
 * phase of it): are the writes at the phases @rho + j m / p (j = 1 .. p -
 * 1) slow, their median AP_FW_PHASE_RATIO x @ord? Then m G is a multiple
 * of the unit, its phase picked by chance: under load QEMU's 2 MiB
 * clusters cost 8 to 500 ms each, and once the 4 that happened to be the
 * slowest were every other one, a "4 MiB unit". Not pays_like(): idle,
 * every other cluster boundary cost far more than the rest, and the rest,
 * 1.5x and more, were nearer the ordinary writes on a log scale: a 4 MiB
 * unit from LBA 4096 again. @bv: scratch for @n values.
 */
static bool submultiple_pays(const uint64_t *ks, const double *lg, size_t n, uint64_t m,
			     uint64_t rho, double ord, double *bv)
{
	uint64_t p, rest = m, d;
	size_t i, bn;

	for (p = 0; (p = ap_prime_next(&rest, p)); ) {
		d = m / p;	/* the smaller unit, in granules */
		for (bn = 0, i = 0; i < n; i++) {
			uint64_t k = ks[i] % m;

			if (k != rho && (k + m - rho) % d == 0)
				bv[bn++] = exp(lg[i]);
		}
		if (bn && ap_stats_median(bv, bn) >= AP_FW_PHASE_RATIO * ord)
			return true;
	}
	return false;
}

/*
 * Is m G (phase @rho) a divisor of the unit rather than the unit: for
 * some j = 2 .. @mmax / m, do the writes of @rho's phase split by phase
 * mod j m into one slow sub-phase (by mean log, 3 writes at least) and a
 * rest that does not pay (pays_like(), against @ord), the sub-phase's
 * median 1.5x the rest's, and a rank test of the two at @alpha over every
 * j? (Without the test, a true 64 KiB unit whose boundaries cost 3x, split
 * into many sub-phases of a few writes, can show one whose hiccups look
 * like a larger unit's.) Under CI's load on QEMU's 2 MiB clusters, the
 * writes at the clusters' middles reached 1.5x the median often enough
 * that the 1 MiB phase (boundaries and middles) passed the lower-quartile
 * test, before the 2 MiB one passed its rank test: a "1 MiB unit". The
 * middles, there 1.5-3x, are nearer the ordinary writes than the 2 MiB
 * boundaries' 12x and more. @sum, @cnt: scratch for @mmax / m + 1 each.
 */
static bool multiple_pays(const uint64_t *ks, const double *lg, size_t n, uint64_t m,
			  uint64_t rho, uint64_t mmax, double ord, double alpha, double *sum,
			  size_t *cnt, double *bv, double *nv)
{
	uint64_t j, s, top;
	size_t i, bn, nn;

	for (j = 2; j * m <= mmax; j++) {
		double best = -INFINITY;

		memset(sum, 0, j * sizeof(*sum));
		memset(cnt, 0, j * sizeof(*cnt));
		for (i = 0; i < n; i++)
			if (ks[i] % m == rho) {
				sum[ks[i] / m % j] += lg[i];
				cnt[ks[i] / m % j]++;
			}
		for (top = j, s = 0; s < j; s++)
			if (cnt[s] >= 3 && sum[s] / (double)cnt[s] > best) {
				best = sum[s] / (double)cnt[s];
				top = s;
			}
		if (top == j)
			break;	/* larger j: fewer writes still */
		for (bn = nn = 0, i = 0; i < n; i++) {
			if (ks[i] % m != rho)
				continue;
			if (ks[i] / m % j == top)
				bv[bn++] = exp(lg[i]);
			else
				nv[nn++] = exp(lg[i]);
		}
		if (nn >= 3) {
			double ms = ap_stats_median(bv, bn), mr = ap_stats_median(nv, nn);

			/* and by a rank test over every j: not the chance slowest of many */
			if (ms >= AP_FW_PHASE_RATIO * mr && !pays_like(mr, ms, ord) &&
			    ap_stats_mann_whitney_p(nv, nn, bv, bn) * (double)(mmax / m - 1) <= alpha)
				return true;
		}
	}
	return false;
}

/*
 * Can @u bytes be an allocation unit: a power of two (qcow2's clusters,
 * 512 bytes to 2 MiB; VHDX's blocks, 1 to 256 MiB; VDI's, VMDK's grains)
 * or a multiple of 64 KiB (dm-thin's data_block_size, LVM thin chunks)?
 * Other sizes were hiccups that fell in one phase: a 2300 KiB unit in a
 * model of every write paying under load (1 run in 150).
 */
static bool unit_size(uint64_t u)
{
	return (u & (u - 1)) == 0 || u % (64 * 1024) == 0;
}

/*
 * The unit from the scan: the smallest U = m G (m = 2 .. unit max / G; a
 * size unit_size() allows)
 * whose one phase is slow and every other fast, by per-phase levels that
 * one write's hiccup cannot move: the mean log latency of each phase (3
 * writes of each at least). The slowest phase must be 1.5x (in those
 * means) above the next slowest, its writes' lower quartile 1.5x the
 * others' median and above their upper quartile, and a rank test of its
 * writes against the others reach @alpha over every phase of every size
 * tested (see below). A
 * smaller candidate mixes fast writes into its slow phase (the whole
 * unit's other boundaries); a larger one is tried only after, and only
 * where the boundaries of the units it is a multiple of are fast
 * (submultiple_pays()). Nor is a size taken whose slow phase splits into
 * boundaries and writes that do not pay (multiple_pays()). On QEMU's
 * qcow2 (64 KiB clusters, over FUSE and a loop device) a write entering a
 * cluster is 3x the median and 1 in 10 of the others is as slow:
 * per-write thresholds saw no unit there.
 */
static bool fit_unit(struct ap_probe_first *f, enum ap_fw_kind kind, uint64_t g, uint64_t umax,
		     double alpha)
{
	uint64_t mmax = umax / g, m, k, *ks = ap_xmalloc((f->n + 1) * sizeof(*ks));
	double *lg = ap_xmalloc((f->n + 1) * sizeof(*lg)), *sum = ap_xcalloc(mmax + 1, sizeof(*sum));
	double *bv = ap_xmalloc((f->n + 1) * sizeof(*bv)), *nv = ap_xmalloc((f->n + 1) * sizeof(*nv));
	size_t i, n = 0, *cnt = ap_xcalloc(mmax + 1, sizeof(*cnt));
	bool found = false;
	uint64_t top;
	double tests, slow, ord, q1;

	for (i = 0; i < f->n; i++)
		if (f->s[i].kind == kind) {
			ks[n] = f->s[i].off / g;
			lg[n++] = log((double)f->s[i].ns);
		}
	/*
	 * The hypotheses: every phase of every size these writes can test (3
	 * of each phase), for the slowest phase of each size is the one
	 * tested. Counting the sizes alone, two hiccups that fell in one
	 * phase of 257 granules beside a 2 MiB cluster's boundary made a
	 * 1028 KiB unit on QEMU's qcow2 (p = 1.3e-7, 58,000 hypotheses).
	 */
	top = n / 3 < mmax ? n / 3 : mmax;
	tests = top >= 2 ? (double)top * (double)(top + 1) / 2 - 1 : 1;
	for (m = 2; m <= mmax && 3 * m <= n && !found; m++) {
		size_t bn = 0, nn = 0, rho = 0, least = SIZE_MAX;
		double best = -INFINITY, second = -INFINITY;

		if (!unit_size(m * g))
			continue;
		memset(sum, 0, m * sizeof(*sum));
		memset(cnt, 0, m * sizeof(*cnt));
		for (i = 0; i < n; i++) {
			sum[ks[i] % m] += lg[i];
			cnt[ks[i] % m]++;
		}
		for (k = 0; k < m; k++) {
			double mean = cnt[k] ? sum[k] / (double)cnt[k] : -INFINITY;

			if (cnt[k] < least)
				least = cnt[k];
			if (mean > best) {
				second = best;
				best = mean;
				rho = (size_t)k;
			} else if (mean > second) {
				second = mean;
			}
		}
		if (least < 3 || best - second < log(AP_FW_PHASE_RATIO))
			continue;
		for (i = 0; i < n; i++) {
			if (ks[i] % m == rho)
				bv[bn++] = exp(lg[i]);
			else
				nv[nn++] = exp(lg[i]);
		}
		/*
		 * Its lower quartile 1.5x the others' median (a smaller unit's
		 * phase mixes fast writes in) and above their upper quartile:
		 * a cost the host pays at regular times (written in order,
		 * time is offset) puts slow writes in every phase.
		 */
		q1 = ap_stats_quantile(bv, bn, 0.25);
		ord = ap_stats_median(nv, nn);	/* sorts nv */
		if (q1 < AP_FW_PHASE_RATIO * ord || q1 < ap_stats_quantile_sorted(nv, nn, 0.75) ||
		    ap_stats_mann_whitney_p(nv, nn, bv, bn) * tests > alpha)
			continue;
		slow = ap_stats_median(bv, bn);
		if (submultiple_pays(ks, lg, n, m, rho, ord, bv) ||
		    multiple_pays(ks, lg, n, m, rho, mmax, ord, alpha, sum, cnt, bv, nv))
			continue;
		f->unit = m * g;
		f->cell = rho * g % f->unit;
		f->unit_ratio = slow / ord;
		found = true;
	}
	free(ks);
	free(lg);
	free(sum);
	free(cnt);
	free(bv);
	free(nv);
	return found;
}

/*
 * Would a boundary hide among the refining writes: does one of them cost
 * more than the scan's boundaries do over its other writes (f->unit_ratio
 * x their median, about the scan's)?
 */
static bool buried(const struct ap_probe_first *f)
{
	double *a, *b;
	size_t na = kind_ns(f, AP_FW_SCAN, 0, &a), nb = kind_ns(f, AP_FW_REFINE, 0, &b);
	bool r = !na || !nb ||
		 ap_stats_median(b, nb) > (f->unit_ratio - 1) * ap_stats_median(a, na);

	free(a);
	free(b);
	return r;
}

/*
 * The boundary's logical sector from the refining writes: each write's
 * cost over its window's median, and for each place (the windows' cells
 * agree modulo the unit) the median of those over the windows (3 at
 * least). The boundary is the place whose median is highest, at least
 * AP_FW_PHASE_RATIO and AP_FW_PHASE_RATIO x every other place's, and in
 * the cell's G bytes (the write before them is the unit before: never
 * the boundary). Under load the slowest write of many windows is a
 * hiccup: on QEMU's 2 MiB clusters with six CPU burners beside, the
 * boundary's write was the slowest in 6 of 12 windows (the rule was 3 of
 * 4: not placed), and its median was 11x its window's against 1.24x at
 * the next place; in 18 such runs 9-168x, and 7.7x the next place's at
 * least. Where the scan's unit was a cost of the host's (16 KiB on the
 * same load), no place was above 1.08x. None reaching AP_FW_PHASE_RATIO
 * where a boundary would (the scan's boundaries cost more over its other
 * writes than a refining write costs: not where each of them pays a
 * read-modify-write of 4096-byte sectors) leaves the unit not confirmed.
 * 1 then, 0 and *@lba, or -1 (not placed, or no refining writes yet).
 */
static int place_boundary(struct ap_probe_first *f, const struct ap_probe_plan *p, uint64_t *lba)
{
	uint64_t l = p->logical_sector, u = f->unit, places = p->fw_granule / l + 1, at;
	double *v = ap_xmalloc((f->n + 1) * sizeof(*v)), *rat, med, best = 0, second = 0;
	size_t *cnt = ap_xcalloc(places, sizeof(*cnt)), k, nv, idx, top = 0;
	bool measured = false;
	uint32_t i;

	rat = ap_xmalloc(places * (f->windows + 1) * sizeof(*rat));
	for (i = 0; i < f->windows; i++) {
		for (nv = 0, k = 0; k < f->n; k++)
			if (f->s[k].kind == AP_FW_REFINE && f->s[k].window == i)
				v[nv++] = (double)f->s[k].ns;
		if (!nv)
			continue;
		med = ap_stats_median(v, nv);
		for (k = 0; k < f->n; k++) {
			if (f->s[k].kind != AP_FW_REFINE || f->s[k].window != i)
				continue;
			/* place 0: the sector before the cell */
			idx = (size_t)((f->s[k].off % u + u + l - f->cell) % u / l);
			if (idx < places && cnt[idx] < f->windows + 1)
				rat[idx * (f->windows + 1) + cnt[idx]++] = (double)f->s[k].ns / med;
		}
	}
	for (idx = 0; idx < places; idx++) {
		double m;

		if (cnt[idx] < 3)
			continue;
		measured = true;
		m = ap_stats_median(rat + idx * (f->windows + 1), cnt[idx]);
		if (m > best) {
			second = best;
			best = m;
			top = idx;
		} else if (m > second) {
			second = m;
		}
	}
	free(v);
	free(rat);
	free(cnt);
	if (measured && best < AP_FW_PHASE_RATIO && !buried(f))
		return 1;
	if (top == 0 || best < AP_FW_PHASE_RATIO * second)
		return -1;
	at = (f->cell + (top - 1) * l) % u;
	*lba = at / l;
	return 0;
}

/*
 * What a scan that stopped with no unit shows (scan_stops()). Its writes
 * nearer the first writes' cost than the rewrites' (above the geometric
 * mean of the two medians): every G pays, a unit of at most G unresolved
 * (f->per_write), and none larger up to the largest looked for where the
 * scan held 3 writes of each of its phases. Nearer the rewrites': first
 * writes cost little more than writes in order do, no unit stands out,
 * said in f->why -- not "at most 4 KiB": on QEMU's 64 KiB clusters with
 * --preserve under load first writes cost 1.3x rewrites and the scan's
 * writes (but those entering a cluster) what rewrites cost, and 5dc50f1
 * called that a unit of at most 4 KiB.
 */
static void scan_words(struct ap_probe_first *f, const struct ap_probe_plan *p)
{
	double m = 0, fm = 0, rm = 0;
	char b1[32], b2[32], b3[32], larger[160];

	(void)scan_medians(f, &m, &fm, &rm);
	if (m * m > fm * rm) {
		/* the note's sentence too (first_words()) */
		f->per_write = true;
		ap_size_exact(p->fw_granule, b1, sizeof(b1));
		ap_size_exact(f->scanned, b2, sizeof(b2));
		if (scan_covered(f, p))
			snprintf(larger, sizeof(larger), "no larger one up to %s stands out in "
				 "%s written in order", ap_size_exact(p->fw_unit_max, b3,
				 sizeof(b3)), b2);
		else
			snprintf(larger, sizeof(larger), "none larger looked for after %s (the "
				 "scan stopped)", b2);
		snprintf(f->why, sizeof(f->why), "first writes: every %s written for the first "
			 "time, in order too, costs about what one into a never-written place "
			 "does (%.1fx a rewrite): a unit of at most %s (a sparse file's blocks) "
			 "or a cost per write, not resolved, and %s; first writes are not ruled "
			 "out", b1, f->ratio, b1, larger);
		return;
	}
	snprintf(f->why, sizeof(f->why), "first writes cost %.1fx rewrites, but %s written in "
		 "order through never-written space cost what rewrites do (a median of %.0f us "
		 "against the rewrites' %.0f and the first writes' %.0f): no allocation unit "
		 "stands out, and the scan stopped", f->ratio,
		 ap_size_exact(f->scanned, b1, sizeof(b1)), m / 1e3, rm / 1e3, fm / 1e3);
}

void ap_probe_first_analyse(struct ap_probe_result *r, const struct ap_probe_opts *o)
{
	struct ap_probe_first *f = &r->fw;
	const struct ap_probe_plan *p = &r->plan;
	double alpha = o->alpha > 0 ? o->alpha : 0.001;
	double margin = o->absence_margin > 0 ? o->absence_margin : AP_PROBE_ABSENCE_MARGIN;
	uint64_t lba = 0;
	char b1[32], b2[32];
	int rc;

	f->resolved = false;
	f->why[0] = '\0';
	f->unit = f->unconfirmed = 0;
	analyse_compare(f, p, alpha, margin, AP_FW_MARGIN > margin ? AP_FW_MARGIN : margin);
	/*
	 * Not ruled out: the scan, whose own test (fit_unit()) decides a unit;
	 * the comparison only screens (its test has few writes).
	 */
	if (f->absent || (!f->effect && !f->scanned && !f->fine))
		return;
	f->per_write = false;
	if (f->fine) {
		scan_words(f, p);
		return;
	}
	if (!p->fw_unit_max) {
		snprintf(f->why, sizeof(f->why), "first writes cost %.1fx rewrites, and --max-size "
			 "%s leaves no allocation unit to look for", f->ratio,
			 ap_size_exact(p->max_unit, b1, sizeof(b1)));
		return;
	}
	if (!fit_unit(f, AP_FW_SCAN, p->fw_granule, p->fw_unit_max, alpha)) {
		f->unit = 0;
		snprintf(f->why, sizeof(f->why), "first writes cost %.1fx rewrites, but %s written "
			 "in order through never-written space show no allocation unit up to %s%s",
			 f->ratio, ap_size_exact(f->scanned, b1, sizeof(b1)),
			 ap_size_exact(p->fw_unit_max, b2, sizeof(b2)),
			 r->mode == AP_PROBE_DESTRUCTIVE && p->fw_unit_max < AP_PROBE_MAX_SIZE_LIMIT ?
			 " (a larger one: --max-size up to 64M looks further, on a region 64 times "
			 "as large)" : "");
		return;
	}
	if (p->fw_granule == p->logical_sector) {
		f->lba = f->cell / p->logical_sector;
		f->resolved = true;
		return;
	}
	rc = place_boundary(f, p, &lba);
	if (rc > 0) {
		/*
		 * A unit the scan showed, but no write at its boundary in the
		 * windows after: a cost of the host's that fell in one phase
		 * (with six CPU burners beside QEMU's 2 MiB clusters the scan
		 * once took a 16 KiB unit, every place of which cost within
		 * 1.08x; named, exit 5). Not a unit, and not ruled out (exit 5).
		 */
		f->unconfirmed = f->unit;
		f->unit = 0;
		snprintf(f->why, sizeof(f->why), "first writes cost %.1fx rewrites; %s written in "
			 "order through never-written space suggested a %s allocation unit, but "
			 "logical-sector writes at its boundary cost what the others did: no unit "
			 "is confirmed, and first writes are not ruled out", f->ratio,
			 ap_size_exact(f->scanned, b1, sizeof(b1)),
			 ap_size_exact(f->unconfirmed, b2, sizeof(b2)));
		return;
	}
	if (rc) {
		snprintf(f->why, sizeof(f->why), "first writes: a %s allocation unit, its boundary "
			 "within LBA %llu..%llu (mod %llu) not placed exactly",
			 ap_size_exact(f->unit, b1, sizeof(b1)),
			 (unsigned long long)(f->cell / p->logical_sector),
			 (unsigned long long)((f->cell + p->fw_granule) / p->logical_sector - 1),
			 (unsigned long long)(f->unit / p->logical_sector));
		return;
	}
	f->lba = lba;
	f->resolved = true;
}

/* The median first write over the median rewrite of windows @from on (0: none). */
static double batch_ratio(const struct ap_probe_first *f, uint32_t from)
{
	double *a, *b, q = 0;
	size_t na = kind_ns(f, AP_FW_FIRST, from, &a), nb = kind_ns(f, AP_FW_REWRITE, from, &b);

	if (na && nb)
		q = ap_stats_median(a, na) / ap_stats_median(b, nb);
	free(a);
	free(b);
	return q;
}

int ap_probe_first_writes(const struct ap_probe_io *io, const struct ap_probe_opts *o,
			  const struct ap_probe_plan *plan, bool lead,
			  struct ap_probe_result *r, struct ap_error *e)
{
	struct fw x = { .c = { .io = io, .o = o, .plan = plan, .r = r, .e = e, .lead = lead },
			.seed = o->seed ^ 0x6a09e667f3bcc908ULL };
	struct ap_probe_first *f = &r->fw;
	uint64_t t0 = ap_now_ns();
	int rc;

	if (o->mode == AP_PROBE_READONLY || !plan->fw_windows || !o->first_writes)
		return 0;
	do {
		rc = compare_batch(&x);
		if (rc)
			goto out;
		f->measured = true;
		ap_probe_first_analyse(r, o);
	} while (!f->effect && !f->absent && f->windows < plan->fw_windows);
	if (!f->absent && plan->fw_unit_max)
		rc = scan(&x);
	/*
	 * No unit up to the largest looked for, first writes dear: a unit
	 * above it, or a passing cost of the host's? A fresh batch must cost
	 * as much (ap_probe_first_decide()).
	 */
	if (!rc && f->scan_done && !f->unit && !f->fine && f->effect &&
	    f->ratio >= AP_FW_BEYOND_RATIO && f->windows < plan->fw_windows) {
		uint32_t from = f->windows;

		rc = compare_batch(&x);
		if (!rc) {
			f->again = batch_ratio(f, from);
			ap_probe_first_analyse(r, o);
		}
	}
	if (!rc && f->fine)
		ap_probe_first_analyse(r, o);	/* every write paid: said, unresolved */
	else if (!rc && f->unit && plan->fw_granule > plan->logical_sector) {
		rc = refine(&x, f->cell);
		if (!rc)
			ap_probe_first_analyse(r, o);
	}
out:
	f->ns = ap_now_ns() - t0;
	return rc > 0 ? 0 : rc;
}
