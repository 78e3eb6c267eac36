// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The layered volumes of the emulated drive's cost model (model.h says
 * what they model): a parity RAID volume over rotating members, with an
 * optional battery-backed controller cache, and a thin volume whose units
 * are allocated, and copied from the backing, on the first write. Pure
 * code like model.c, which calls it for every request.
 */
#include "emu/model.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Extents one member reads or writes in one phase of a request, at most. */
#define PHASE_EXTENTS	8

struct phase {
	struct ap_emu_extent ext[AP_EMU_RAID_MEMBERS_MAX][PHASE_EXTENTS];
	unsigned n[AP_EMU_RAID_MEMBERS_MAX];
};

void ap_emu_volume_init(struct ap_emu_model *m, const struct ap_emu_spec *s)
{
	uint32_t i;

	if (s->raid_level) {
		m->raid_level = s->raid_level;
		m->raid_members = s->raid_members;
		m->raid_data = s->raid_members - (s->raid_level == 6 ? 2 : 1);
		m->raid_chunk = s->raid_chunk;
		m->raid_cache = s->raid_cache;
		/* the members' spindles turn unsynchronised: evenly spread phases */
		for (i = 0; i < m->raid_members; i++)
			m->raid_phase[i] = m->rev_ns * i / m->raid_members;
	}
	if (s->thin_unit) {
		m->thin_unit = s->thin_unit;
		m->thin_units = (s->capacity + s->thin_unit - 1) / s->thin_unit;
		m->thin_pool_units = s->thin_pool ? s->thin_pool / s->thin_unit : m->thin_units;
		m->thin_sub = s->thin_sub;
		m->thin_alloc_ns = s->thin_alloc_ns;
		m->thin_copy_rate = s->thin_copy_rate;
		m->thin_map = ap_xcalloc(m->thin_units, sizeof(*m->thin_map));
	}
}

void ap_emu_model_destroy(struct ap_emu_model *m)
{
	free(m->thin_map);
	m->thin_map = NULL;
}

/* ---- thin ---- */

uint64_t ap_emu_thin_write(struct ap_emu_model *m, uint64_t off, uint64_t len,
			   struct ap_emu_cost *c)
{
	uint64_t unit = m->thin_unit, sub = m->thin_sub ? unit / 32 : unit;
	uint64_t u, first, last, fresh = 0, ns = 0, copied = 0;

	if (!unit || !len)
		return 0;
	first = off / unit;
	last = (off + len - 1) / unit;
	if (last >= m->thin_units)
		last = m->thin_units - 1;
	for (u = first; u <= last; u++)
		fresh += m->thin_map[u] == 0;
	if (fresh > m->thin_pool_units - m->thin_allocated) {
		c->nospc = true;	/* nothing changes: the pool is full */
		return 0;
	}
	for (u = first; u <= last; u++) {
		uint64_t base = u * unit, k;

		if (!m->thin_map[u]) {
			ns += m->thin_alloc_ns;
			c->thin_allocs++;
			m->thin_allocated++;
		}
		/* every block (the unit, or a subcluster) the write touches */
		for (k = 0; k < unit / sub; k++) {
			uint64_t a = base + k * sub, b = a + sub, lo, hi;

			if (b <= off || a >= off + len || (m->thin_map[u] & (1U << k)))
				continue;
			lo = a > off ? a : off;
			hi = b < off + len ? b : off + len;
			/* the parts the write leaves out come from the backing */
			if (hi - lo < sub) {
				copied += sub - (hi - lo);
				c->cow++;
			}
			m->thin_map[u] |= 1U << k;
		}
	}
	if (copied && m->thin_copy_rate)
		ns += ap_emu_mul_div(copied, AP_NSEC_PER_SEC, m->thin_copy_rate);
	return ns;
}

/* ---- parity RAID ---- */

/* Add [a, b) to member @d's extents of a phase (merged when adjacent, ascending). */
static void phase_add(struct phase *p, uint32_t d, uint64_t a, uint64_t b)
{
	struct ap_emu_extent *x = p->ext[d];
	unsigned n = p->n[d];

	if (a >= b)
		return;
	if (n && x[n - 1].end >= a) {
		if (b > x[n - 1].end)
			x[n - 1].end = b;
		return;
	}
	if (n == PHASE_EXTENTS) {
		x[n - 1].end = b;	/* bounded: the last extent spans the rest */
		return;
	}
	x[n].start = a;
	x[n].end = b;
	p->n[d] = n + 1;
}

/* The member holding parity @q (0: P, 1: Q) and data chunk @j of stripe @s (left-symmetric). */
static uint32_t parity_member(const struct ap_emu_model *m, uint64_t s, unsigned q)
{
	uint32_t pd = m->raid_members - 1 - (uint32_t)(s % m->raid_members);

	return (pd + q) % m->raid_members;
}

static uint32_t data_member(const struct ap_emu_model *m, uint64_t s, uint32_t j)
{
	uint32_t np = m->raid_members - m->raid_data;

	return (parity_member(m, s, 0) + np + j) % m->raid_members;
}

/*
 * One member's accesses of a phase from @t, ascending: seek, wait for the
 * platter (the member's own phase), transfer; a write that covers a
 * physical sector of the member only partly costs the member's own
 * read-modify-write (one revolution, two for both ends past a track).
 * When it ends.
 */
static uint64_t member_run(struct ap_emu_model *m, uint32_t d, const struct phase *p, bool write,
			   uint64_t t, struct ap_emu_cost *c)
{
	unsigned i;

	for (i = 0; i < p->n[d]; i++) {
		uint64_t a = p->ext[d][i].start, len = p->ext[d][i].end - a, trk = a / m->track;
		uint64_t h = m->raid_head[d];

		t += ap_emu_model_seek_ns(m, trk > h ? trk - h : h - trk);
		t += ap_emu_model_rotation_ns(m, a, t + m->raid_phase[d]);
		t += ap_emu_mul_div(len, m->rev_ns, m->track);
		if (write) {
			unsigned partial = ap_emu_model_partial(a, len, m->phys, m->align);

			if (partial)
				t += (partial == 2 && len > m->track ? 2 : 1) * m->rev_ns;
			c->rmw += partial;
		}
		m->raid_head[d] = (a + len - 1) / m->track;
	}
	return t;
}

/* Every member's accesses of a phase in parallel from @t: when the last ends. */
static uint64_t phase_run(struct ap_emu_model *m, const struct phase *p, bool write, uint64_t t,
			  struct ap_emu_cost *c)
{
	uint64_t end = t;
	uint32_t d;

	for (d = 0; d < m->raid_members; d++)
		if (p->n[d]) {
			uint64_t e = member_run(m, d, p, write, t, c);

			if (e > end)
				end = e;
		}
	return end;
}

/*
 * The in-chunk ranges whose parity a partial write [a, b) of stripe @s
 * changes (at most two: the end of one chunk and the start of the next),
 * into @r; their count.
 */
static unsigned parity_ranges(const struct ap_emu_model *m, uint64_t sbase, uint64_t a, uint64_t b,
			      struct ap_emu_extent r[2])
{
	uint64_t ch = m->raid_chunk, ja = (a - sbase) / ch, jb = (b - 1 - sbase) / ch;
	uint64_t x = (a - sbase) % ch, y = (b - 1 - sbase) % ch + 1;

	if (ja == jb) {
		r[0].start = x, r[0].end = y;
		return 1;
	}
	if (jb - ja >= 2 || y >= x) {
		r[0].start = 0, r[0].end = ch;
		return 1;
	}
	r[0].start = 0, r[0].end = y;
	r[1].start = x, r[1].end = ch;
	return 2;
}

/*
 * The part [a, b) of stripe @s that a write covers, into the phases: a
 * whole stripe is written (data and parity) without reading; a partial one
 * reads what the new parity needs first, by read-modify-write (the old
 * data it overwrites and the old parity) or by reconstruct-write (the
 * data it leaves alone), whichever reads fewer bytes (reconstruct on a
 * tie, as md does), then writes the new data and parity.
 */
static void stripe_write(struct ap_emu_model *m, uint64_t s, uint64_t a, uint64_t b,
			 struct phase *rd, struct phase *wr, struct ap_emu_cost *c)
{
	uint64_t ch = m->raid_chunk, sbase = s * ch * m->raid_data, mbase = s * ch;
	uint64_t rmw_bytes = 0, rcw_bytes = 0, pbytes = 0;
	struct ap_emu_extent r[2];
	unsigned nr, i, q, np = m->raid_members - m->raid_data;
	bool full = a == sbase && b == sbase + ch * m->raid_data, rmw;
	uint32_t j;

	if (full) {
		c->full_stripes++;
		for (j = 0; j < m->raid_members; j++)
			phase_add(wr, j, mbase, mbase + ch);
		return;
	}
	c->stripe_rmw++;
	nr = parity_ranges(m, sbase, a, b, r);
	for (i = 0; i < nr; i++)
		pbytes += r[i].end - r[i].start;
	/* the bytes each way reads: old data + old parity, or the data left alone */
	for (j = 0; j < m->raid_data; j++) {
		uint64_t ca = sbase + j * ch, lo = a > ca ? a : ca, hi = b < ca + ch ? b : ca + ch;
		uint64_t w = hi > lo ? hi - lo : 0, in = 0;

		for (i = 0; i < nr; i++) {
			uint64_t x = lo - ca, y = hi - ca;

			/* the written part of this chunk inside parity range i */
			if (w && x < r[i].end && y > r[i].start)
				in += (y < r[i].end ? y : r[i].end) -
				      (x > r[i].start ? x : r[i].start);
		}
		rmw_bytes += w;
		rcw_bytes += pbytes - in;
	}
	rmw_bytes += np * pbytes;
	rmw = rmw_bytes < rcw_bytes;
	for (j = 0; j < m->raid_data; j++) {
		uint64_t ca = sbase + j * ch, lo = a > ca ? a : ca, hi = b < ca + ch ? b : ca + ch;
		uint32_t d = data_member(m, s, j);

		if (hi > lo)
			phase_add(wr, d, mbase + (lo - ca), mbase + (hi - ca));
		for (i = 0; i < nr; i++) {
			uint64_t x = mbase + r[i].start, y = mbase + r[i].end;

			if (rmw && hi > lo) {
				phase_add(rd, d, mbase + (lo - ca), mbase + (hi - ca));
			} else if (!rmw) {
				/* the parity range's data this write leaves alone */
				uint64_t wl = hi > lo ? mbase + (lo - ca) : y;
				uint64_t wh = hi > lo ? mbase + (hi - ca) : y;

				phase_add(rd, d, x, wl > x ? (wl < y ? wl : y) : x);
				phase_add(rd, d, wh > x ? (wh < y ? wh : y) : x, y);
			}
		}
	}
	for (q = 0; q < np; q++)
		for (i = 0; i < nr; i++) {
			uint32_t d = parity_member(m, s, q);

			if (rmw)
				phase_add(rd, d, mbase + r[i].start, mbase + r[i].end);
			phase_add(wr, d, mbase + r[i].start, mbase + r[i].end);
		}
}

/* A write [off, off + len) from @t on the members: when it is on their media. */
static uint64_t raid_write(struct ap_emu_model *m, uint64_t off, uint64_t len, uint64_t t,
			   struct ap_emu_cost *c)
{
	uint64_t stripe = m->raid_chunk * m->raid_data, s, end = off + len;
	struct phase rd, wr;

	memset(&rd, 0, sizeof(rd));
	memset(&wr, 0, sizeof(wr));
	for (s = off / stripe; s * stripe < end; s++) {
		uint64_t a = s * stripe > off ? s * stripe : off;
		uint64_t b = (s + 1) * stripe < end ? (s + 1) * stripe : end;

		stripe_write(m, s, a, b, &rd, &wr, c);
	}
	t = phase_run(m, &rd, false, t, c);
	return phase_run(m, &wr, true, t, c);
}

/* A read [off, off + len) from @t: each data member reads its part, in parallel. */
static uint64_t raid_read(struct ap_emu_model *m, uint64_t off, uint64_t len, uint64_t t,
			  struct ap_emu_cost *c)
{
	uint64_t ch = m->raid_chunk, x, end = off + len;
	struct phase rd;

	memset(&rd, 0, sizeof(rd));
	for (x = off; x < end;) {
		uint64_t cn = x / ch, s = cn / m->raid_data, next = (cn + 1) * ch;
		uint64_t hi = next < end ? next : end;

		phase_add(&rd, data_member(m, s, (uint32_t)(cn % m->raid_data)),
			  s * ch + x % ch, s * ch + x % ch + (hi - x));
		x = hi;
	}
	return phase_run(m, &rd, false, t, c);
}

/*
 * The controller's destager at @now: the destage in flight ends at
 * rc_done; when it has ended the next dirty extent (the elevator's order,
 * from rc_cursor) starts, at once if the cache was idle. Up to @now; with
 * @wait on past it, until the cache has room for @need more bytes and one
 * more extent. When that is (@now, or later: the caller's wait).
 */
static uint64_t rc_advance(struct ap_emu_model *m, uint64_t now, uint64_t need, bool wait,
			   struct ap_emu_cost *c)
{
	uint64_t t = now;

	for (;;) {
		bool room = m->cached + need <= m->raid_cache &&
			    m->nextents < AP_EMU_CACHE_EXTENTS;
		uint64_t start = t;	/* idle: the next destage starts now */
		size_t i;

		if (m->rc_inflight && m->rc_done <= t) {
			m->cached -= m->rc_inflight;
			m->rc_inflight = 0;
			start = m->rc_done;	/* busy: the next one follows at once */
		}
		if (!m->rc_inflight && m->nextents) {
			struct ap_emu_extent x;

			for (i = 0; i < m->nextents && m->ext[i].end <= m->rc_cursor; i++)
				;
			if (i == m->nextents)
				i = 0;
			x = m->ext[i];
			memmove(&m->ext[i], &m->ext[i + 1], (m->nextents - i - 1) * sizeof(x));
			m->nextents--;
			m->rc_inflight = x.end - x.start;
			m->rc_cursor = x.end;
			m->rc_done = raid_write(m, x.start, x.end - x.start, start, c);
			continue;
		}
		if (room || !m->rc_inflight || !wait)
			return t;
		t = m->rc_done;		/* wait for the destage in flight */
	}
}

/* The bytes of [a, b) the cache holds dirty (not the destage in flight). */
static uint64_t dirty_overlap(const struct ap_emu_model *m, uint64_t a, uint64_t b)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < m->nextents; i++) {
		uint64_t lo = m->ext[i].start > a ? m->ext[i].start : a;
		uint64_t hi = m->ext[i].end < b ? m->ext[i].end : b;

		if (hi > lo)
			n += hi - lo;
	}
	return n;
}

/*
 * A write into the controller's cache: acknowledged at once while it has
 * room; else when the destages made it. A rewrite of dirty data adds no
 * bytes. The data is battery-backed: never volatile (c->cached stays false).
 */
static uint64_t rc_write(struct ap_emu_model *m, uint64_t off, uint64_t len, uint64_t now,
			 struct ap_emu_cost *c)
{
	uint64_t t;

	if (len > m->raid_cache) {
		t = rc_advance(m, now, m->raid_cache, true, c);	/* write through, drained */
		while (m->nextents || m->rc_inflight)
			t = rc_advance(m, m->rc_done, m->raid_cache, true, c);
		c->rc_waited = true;
		return raid_write(m, off, len, t, c) - now;
	}
	/* room for the bytes not dirty yet (a rewrite of dirty data is absorbed) */
	t = rc_advance(m, now, len - dirty_overlap(m, off, off + len), true, c);
	ap_emu_model_cache_insert(m, off, off + len);
	c->rc_waited = t > now;
	c->rc_absorbed = !c->rc_waited;
	/* the destager starts on it at once if idle */
	rc_advance(m, t, 0, false, c);
	return t - now;
}

uint64_t ap_emu_raid_request(struct ap_emu_model *m, enum ap_emu_op op, uint64_t off,
			     uint64_t len, uint64_t now, struct ap_emu_cost *c)
{
	if (m->raid_cache)
		rc_advance(m, now, 0, false, c);
	switch (op) {
	case AP_EMU_READ:
		if (!len || (m->raid_cache && ap_emu_model_cache_hit(m, off, len)))
			return 0;	/* dirty data: the controller's cache answers */
		return raid_read(m, off, len, now, c) - now;
	case AP_EMU_WRITE:
		if (!len)
			return 0;
		if (m->raid_cache)
			return rc_write(m, off, len, now, c);
		c->media_write = true;
		return raid_write(m, off, len, now, c) - now;
	case AP_EMU_FLUSH:
		break;		/* the members' caches are off; the controller's survives */
	}
	return 0;
}
