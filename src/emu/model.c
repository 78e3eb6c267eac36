// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The emulated drive's cost and fault model (its spec string and named
 * profiles are in params.c). Pure code: the FUSE server (server.c) calls
 * ap_emu_model_request() for every request with the time it arrived and
 * sleeps for the cost it returns.
 */
#include "emu/model.h"
#include "lib/rng.h"
#include "lib/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

unsigned ap_emu_model_partial(uint64_t off, uint64_t len, uint32_t phys, uint32_t align)
{
	uint64_t p = phys, a = align % phys, end, first, last, head, tail;

	if (len == 0)
		return 0;
	/* shift so that physical sectors start at multiples of p */
	off += p - a;
	end = off + len;
	head = off % p;
	tail = end % p;
	first = off / p;
	last = (end - 1) / p;
	if (first == last)
		return (head || tail) ? 1 : 0;
	return (head ? 1 : 0) + (tail ? 1 : 0);
}

double ap_emu_model_uniform(struct ap_emu_model *m)
{
	/* 53 random bits -> [0, 1], then [-1, 1] */
	double u = (double)(ap_xoshiro_next(m->rng) >> 11) / (double)((1ULL << 53) - 1);

	return 2.0 * u - 1.0;
}

void ap_emu_model_init(struct ap_emu_model *m, const struct ap_emu_spec *s)
{
	memset(m, 0, sizeof(*m));
	m->kind = s->model;
	m->phys = s->phys_sector;
	m->align = (uint32_t)(((uint64_t)s->lowest_aligned * s->logical_sector) % s->phys_sector);
	m->rmw_ns = s->rmw_ns;
	m->base_ns = s->base_ns;
	m->flush_ns = s->flush_ns;
	m->jitter = s->jitter;
	m->write_cache = s->write_cache;
	ap_xoshiro_seed(m->rng, s->seed);
	m->fail_lba = s->fail_lba;
	m->fail_count = s->fail_count;
	m->fail_reads = s->fail_reads;
	m->fail_writes = s->fail_writes;
	m->fail_after = s->fail_after;
	m->rev_ns = (60 * AP_NSEC_PER_SEC + s->rpm / 2) / (s->rpm ? s->rpm : 7200);
	m->track = s->track ? s->track : 1;
	/* the emulated capacity is the first part of the virtual disk */
	m->ntracks = ((s->disk_size > s->capacity ? s->disk_size : s->capacity) + m->track - 1) /
		     m->track;
	m->settle_ns = s->settle_ns;
	m->seek_ns = s->seek_ns;
	m->knee = s->knee;
	m->cache_size = s->cache_size;
	m->bus_rate = s->bus_rate;
	m->ra_size = s->ra_size;
	m->ra_segments = s->ra_segments ? s->ra_segments : 1;
	if (m->ra_segments > AP_EMU_RA_SEGMENTS_MAX)
		m->ra_segments = AP_EMU_RA_SEGMENTS_MAX;
	m->rmw_buffer = s->rmw_buffer > AP_EMU_RMW_BUFFER_MAX ? AP_EMU_RMW_BUFFER_MAX :
			s->rmw_buffer;
	m->ignore_flush = s->ignore_flush;
	m->flush_media = s->flush_media;
	ap_emu_volume_init(m, s);
	ap_emu_pcache_init(&m->pc, s);
}

static bool should_fail(const struct ap_emu_model *m, enum ap_emu_op op,
			uint64_t off, uint64_t len, uint64_t served)
{
	if (op == AP_EMU_FLUSH)
		return false;
	if (!m->fail_count && !m->fail_after)
		return false;
	if ((op == AP_EMU_READ && !m->fail_reads) || (op == AP_EMU_WRITE && !m->fail_writes))
		return false;
	if (m->fail_after && served < m->fail_after)
		return false;
	if (m->fail_count) {
		uint64_t first = off / 512, end = (off + (len ? len : 1) + 511) / 512;

		/* [first, end) overlaps [fail_lba, fail_lba + fail_count)? */
		if (end <= m->fail_lba || first >= m->fail_lba + m->fail_count)
			return false;
	}
	return true;
}

static uint64_t jittered(struct ap_emu_model *m, uint64_t ns)
{
	double f;

	if (m->jitter <= 0 || ns == 0)
		return ns;
	f = 1.0 + m->jitter * ap_emu_model_uniform(m);
	if (f < 0)
		f = 0;
	return (uint64_t)((double)ns * f + 0.5);
}


uint64_t ap_emu_model_seek_ns(const struct ap_emu_model *m, uint64_t dtracks)
{
	double x, k = m->knee, settle = (double)m->settle_ns, full = (double)m->seek_ns, tk, t;

	if (dtracks == 0)
		return 0;
	x = m->ntracks > 1 ? (double)dtracks / (double)(m->ntracks - 1) : 1.0;
	if (x > 1)
		x = 1;
	/* the knee where sqrt(x) and the straight line have the same slope */
	tk = (settle * (1 - k) + 2 * k * full) / (1 + k);
	if (x < k)
		t = settle + (tk - settle) * sqrt(x / k);
	else
		t = tk + (full - tk) * (x - k) / (1 - k);
	return (uint64_t)(t + 0.5);
}

uint64_t ap_emu_model_rotation_ns(const struct ap_emu_model *m, uint64_t off, uint64_t t_ns)
{
	uint64_t at = ap_emu_mul_div(off % m->track, m->rev_ns, m->track), now = t_ns % m->rev_ns;

	return (at + m->rev_ns - now) % m->rev_ns;
}

static uint64_t bus_ns(const struct ap_emu_model *m, uint64_t len)
{
	return m->bus_rate ? ap_emu_mul_div(len, AP_NSEC_PER_SEC, m->bus_rate) : 0;
}

/* The index of the physical sector that holds byte @b (sectors shifted to multiples). */
static uint64_t phys_index(const struct ap_emu_model *m, uint64_t b)
{
	return (b + m->phys - m->align % m->phys) / m->phys;
}

/* Whether physical sector @idx is in the RMW buffer (and now its most recent). */
static bool rmwbuf_has(struct ap_emu_model *m, uint64_t idx)
{
	uint32_t i;

	for (i = 0; i < m->nrmwbuf; i++)
		if (m->rmwbuf[i] == idx) {
			m->rmwbuf_used[i] = ++m->stamp;
			return true;
		}
	return false;
}

/* Keep physical sector @idx in the RMW buffer, evicting the least recent. */
static void rmwbuf_keep(struct ap_emu_model *m, uint64_t idx)
{
	uint32_t i, lru = 0;

	if (!m->rmw_buffer || rmwbuf_has(m, idx))
		return;
	if (m->nrmwbuf < m->rmw_buffer) {
		lru = m->nrmwbuf++;
	} else {
		for (i = 1; i < m->nrmwbuf; i++)
			if (m->rmwbuf_used[i] < m->rmwbuf_used[lru])
				lru = i;
	}
	m->rmwbuf[lru] = idx;
	m->rmwbuf_used[lru] = ++m->stamp;
}

/*
 * The extra revolutions of a media write's read-modify-writes: partial
 * sectors found in the RMW buffer need no read pass.
 */
uint64_t ap_emu_model_rmw_revs(struct ap_emu_model *m, uint64_t off, uint64_t len,
			       unsigned partial, struct ap_emu_cost *c)
{
	uint64_t p = m->phys, sh = p - m->align % p;
	unsigned unbuffered = partial;

	if (partial && m->rmw_buffer) {
		uint64_t first = phys_index(m, off), last = phys_index(m, off + len - 1);

		unbuffered = 0;
		if ((off + sh) % p && !rmwbuf_has(m, first))
			unbuffered++;
		if ((off + len + sh) % p && (last != first || !((off + sh) % p)) &&
		    !rmwbuf_has(m, last))
			unbuffered++;
		c->rmw_buffered += partial - unbuffered;
	}
	if (!unbuffered)
		return 0;
	return unbuffered == 2 && len > m->track ? 2 : 1;
}

/*
 * One access of the media, [off, off + len), starting at @t: seek, wait for
 * the platter, transfer, and for a write the read-modify-write revolutions.
 * Its duration; the head stays on the last track; partial sectors in c->rmw.
 * A write the persistent media cache takes goes there instead (smr.c).
 */
uint64_t ap_emu_model_media(struct ap_emu_model *m, bool write, uint64_t off, uint64_t len,
			    uint64_t t, struct ap_emu_cost *c)
{
	uint64_t trk = off / m->track, ns;
	unsigned partial;

	if (write && ap_emu_pcache_takes(m, len))
		return ap_emu_pcache_write(m, off, len, t, c);
	ns = ap_emu_model_seek_ns(m, trk > m->head ? trk - m->head : m->head - trk);
	ns += ap_emu_model_rotation_ns(m, off, t + ns);
	ns += ap_emu_mul_div(len, m->rev_ns, m->track);
	if (write) {
		partial = ap_emu_model_partial(off, len, m->phys, m->align);
		ns += ap_emu_model_rmw_revs(m, off, len, partial, c) * m->rev_ns;
		c->rmw += partial;
	}
	if (m->rmw_buffer && len) {
		rmwbuf_keep(m, phys_index(m, off));
		rmwbuf_keep(m, phys_index(m, off + len - 1));
	}
	m->head = (off + (len ? len - 1 : 0)) / m->track;
	return ns;
}

/* The end of segment @g's data at @now: the read-ahead streams on while active. */
static uint64_t ra_hi(const struct ap_emu_model *m, const struct ap_emu_segment *g,
		      uint64_t now)
{
	uint64_t more;

	if (!g->active || now <= g->t_end || g->hi >= g->hi_max)
		return g->hi;
	more = ap_emu_mul_div(now - g->t_end, m->track, m->rev_ns);
	return more >= g->hi_max - g->hi ? g->hi_max : g->hi + more;
}

/*
 * A command arrives at @now: the read-ahead stops (the head stays where it
 * got to), unless the command is a read the active segment answers; a
 * write invalidates the segments it overlaps. True for a read that a
 * segment answers.
 */
static bool ra_arrive(struct ap_emu_model *m, enum ap_emu_op op, uint64_t off, uint64_t len,
		      uint64_t now)
{
	struct ap_emu_segment *hit = NULL;
	uint32_t i;

	if (!m->ra_size)
		return false;
	for (i = 0; i < m->ra_segments; i++) {
		struct ap_emu_segment *g = &m->seg[i];

		if (g->used && op == AP_EMU_READ && len && g->lo <= off &&
		    off + len <= ra_hi(m, g, now))
			hit = g;
	}
	for (i = 0; i < m->ra_segments; i++) {
		struct ap_emu_segment *g = &m->seg[i];

		if (g->used && g->active && g != hit) {
			uint64_t hi = ra_hi(m, g, now);

			if (hi > g->hi)
				m->head = (hi - 1) / m->track;
			g->hi = hi;
			g->active = false;
		}
		if (g->used && op == AP_EMU_WRITE && off < g->hi && g->lo < off + len)
			g->used = 0;
	}
	if (hit)
		hit->used = ++m->stamp;
	return hit != NULL;
}

/* A media read [off, off + len) done at @t_end fills a segment and reads on. */
static void ra_fill(struct ap_emu_model *m, uint64_t off, uint64_t len, uint64_t t_end)
{
	struct ap_emu_segment *g = &m->seg[0];
	uint32_t i;

	if (!m->ra_size)
		return;
	for (i = 1; i < m->ra_segments; i++)
		if (m->seg[i].used < g->used)
			g = &m->seg[i];
	g->lo = off;
	g->hi = off + len;
	g->hi_max = off + (len > m->ra_size ? len : m->ra_size);
	g->t_end = t_end;
	g->used = ++m->stamp;
	g->active = true;
}

/* Write every cached extent to the media, ascending, from @t: the duration. */
/* A flush the drive acknowledges without writing its cache (a lying drive). */
static bool flush_ignored(const struct ap_emu_model *m, struct ap_emu_cost *c)
{
	if (!m->write_cache || !m->ignore_flush)
		return false;
	c->flush_ignored = true;
	return true;
}

static uint64_t destage(struct ap_emu_model *m, uint64_t t, struct ap_emu_cost *c)
{
	uint64_t ns = 0;
	size_t i;

	for (i = 0; i < m->nextents; i++) {
		const struct ap_emu_extent *x = &m->ext[i];

		ns += ap_emu_model_media(m, true, x->start, x->end - x->start, t + ns, c);
	}
	c->drained = true;
	c->destaged += m->nextents;
	m->nextents = 0;
	m->cached = 0;
	return ns;
}

/* Merge [a, b) into the sorted extents (room for one more is there). */
void ap_emu_model_cache_insert(struct ap_emu_model *m, uint64_t a, uint64_t b)
{
	size_t i = 0, j, n = m->nextents;

	while (i < n && m->ext[i].end < a)
		i++;
	/* every extent that overlaps [a, b) or touches it joins it */
	for (j = i; j < n && m->ext[j].start <= b; j++) {
		if (m->ext[j].start < a)
			a = m->ext[j].start;
		if (m->ext[j].end > b)
			b = m->ext[j].end;
		m->cached -= m->ext[j].end - m->ext[j].start;
	}
	if (j == i)
		memmove(&m->ext[i + 1], &m->ext[i], (n - i) * sizeof(m->ext[0]));
	else
		memmove(&m->ext[i + 1], &m->ext[j], (n - j) * sizeof(m->ext[0]));
	m->nextents = n + 1 - (j - i);
	m->ext[i].start = a;
	m->ext[i].end = b;
	m->cached += b - a;
}

bool ap_emu_model_cache_hit(const struct ap_emu_model *m, uint64_t off, uint64_t len)
{
	size_t i;

	for (i = 0; i < m->nextents; i++)
		if (m->ext[i].start <= off && off + len <= m->ext[i].end)
			return true;
	return false;
}

static uint64_t hdd_request(struct ap_emu_model *m, enum ap_emu_op op, uint64_t off,
			    uint64_t len, uint64_t now, struct ap_emu_cost *c)
{
	uint64_t ns = m->base_ns + ap_emu_pcache_arrive(m, now, c);
	bool ra = ra_arrive(m, op, off, len, now);

	switch (op) {
	case AP_EMU_READ:
		if (m->write_cache && ap_emu_model_cache_hit(m, off, len)) {
			ns += bus_ns(m, len);
		} else if (ra) {
			c->ra_hit = true;
			ns += bus_ns(m, len);
		} else if (len) {
			ns += ap_emu_model_media(m, false, off, len, now + ns, c);
			ra_fill(m, off, len, now + ns);
		}
		break;
	case AP_EMU_WRITE:
		if (!m->write_cache) {
			c->media_write = len > 0;
			ns += ap_emu_model_media(m, true, off, len, now + ns, c);
			break;
		}
		ns += bus_ns(m, len);
		/* full: destage everything first; a write larger than the cache goes by */
		if (m->cached + len > m->cache_size || m->nextents == AP_EMU_CACHE_EXTENTS)
			ns += destage(m, now + ns, c);
		if (len > m->cache_size) {
			c->media_write = true;
			ns += ap_emu_model_media(m, true, off, len, now + ns, c);
		} else if (len) {
			c->cached = true;
			ap_emu_model_cache_insert(m, off, off + len);
		}
		break;
	case AP_EMU_FLUSH:
		if (flush_ignored(m, c))
			break;
		if (m->write_cache)
			ns += destage(m, now + ns, c) + m->flush_ns;
		if (m->flush_media)	/* to the reserved area and a revolution there */
			ns += ap_emu_model_seek_ns(m, m->ntracks / 3) + m->rev_ns;
		break;
	}
	return ns;
}

void ap_emu_model_set_write_cache(struct ap_emu_model *m, bool on, uint64_t now_ns,
				  struct ap_emu_cost *c)
{
	memset(c, 0, sizeof(*c));
	if (m->write_cache && !on && !m->raid_level) {	/* a RAID's members have none */
		if (m->kind == AP_EMU_MODEL_HDD)
			c->cost_ns = destage(m, now_ns, c);
		else
			c->cost_ns = m->pending_rmw * m->rmw_ns;	/* counted when written */
		m->pending_rmw = 0;
		m->volatile_bytes = 0;
		c->drained = true;
	}
	m->write_cache = on;
}

void ap_emu_model_power_cut(struct ap_emu_model *m)
{
	m->pending_rmw = 0;
	if (!m->raid_cache) {		/* a controller's cache is battery-backed */
		m->nextents = 0;
		m->cached = 0;
	}
	m->volatile_bytes = 0;
	memset(m->seg, 0, sizeof(m->seg));
	m->nrmwbuf = 0;
}

void ap_emu_model_power_on(struct ap_emu_model *m)
{
	ap_emu_model_power_cut(m);
	m->head = 0;
}

void ap_emu_model_torn_span(const struct ap_emu_model *m, uint64_t off, uint64_t len,
			    uint64_t *span_off, uint64_t *span_len)
{
	uint64_t p = m->phys, sh = p - m->align % p, lo, hi;

	lo = (off + sh) / p * p;
	hi = (off + (len ? len : 1) + sh + p - 1) / p * p;
	lo = lo >= sh ? lo - sh : 0;
	*span_off = lo;
	*span_len = hi - sh - lo;
}

unsigned ap_emu_model_torn(const struct ap_emu_model *m, uint64_t off, uint64_t len,
			   const void *data, uint64_t span_off, uint64_t span_len, void *span)
{
	uint64_t p = m->phys, sh = p - m->align % p, end = off + len;
	int64_t ss;
	unsigned char *out = span;
	const unsigned char *in = data;
	unsigned torn = 0;

	/* every physical sector [ss, ss + p) that meets the span (the first may start before 0) */
	for (ss = (int64_t)((span_off + sh) / p * p) - (int64_t)sh;
	     ss < (int64_t)(span_off + span_len); ss += (int64_t)p) {
		uint64_t a = ss > 0 ? (uint64_t)ss : 0, b = (uint64_t)(ss + (int64_t)p), x;
		int64_t half = ss + (int64_t)p / 2;

		if (b > span_off + span_len)
			b = span_off + span_len;
		if (a < span_off)
			a = span_off;
		if (off <= a && b <= end)
			continue;	/* covered wholly: not reached, old content */
		if (end <= a || b <= off)
			continue;	/* not touched */
		for (x = a; x < b; x++) {
			if ((int64_t)x >= half)
				out[x - span_off] = AP_EMU_TORN_BYTE;
			else if (x >= off && x < end)
				out[x - span_off] = in[x - off];
		}
		torn++;
	}
	return torn;
}

void ap_emu_model_request(struct ap_emu_model *m, enum ap_emu_op op,
			  uint64_t off, uint64_t len, uint64_t served,
			  uint64_t now_ns, struct ap_emu_cost *c)
{
	uint64_t ns = m->base_ns, thin = 0;

	memset(c, 0, sizeof(*c));
	if (should_fail(m, op, off, len, served)) {
		c->fail = true;
		c->cost_ns = jittered(m, ns);
		return;
	}
	if (op == AP_EMU_WRITE) {
		c->partial = ap_emu_model_partial(off, len, m->phys, m->align);
		c->aligned = c->partial == 0 && len > 0;
		/* a thin volume maps (and copies) first, then writes to what is below */
		thin = ap_emu_thin_write(m, off, len, c);
		if (c->nospc) {
			c->fail = true;
			c->cost_ns = jittered(m, ns);
			return;
		}
	}
	if (m->raid_level) {
		ns += thin + bus_ns(m, op == AP_EMU_FLUSH ? 0 : len);
		c->cost_ns = jittered(m, ns + ap_emu_raid_request(m, op, off, len, now_ns + ns, c));
		return;
	}
	if (m->kind == AP_EMU_MODEL_HDD) {
		c->cost_ns = jittered(m, thin + hdd_request(m, op, off, len, now_ns + thin, c));
		m->pc.idle_since = now_ns + c->cost_ns;
		return;
	}
	ns += thin;
	/* simple and flash: the flash model adds the interface's transfer time */
	if (m->kind == AP_EMU_MODEL_FLASH && op != AP_EMU_FLUSH)
		ns += bus_ns(m, len);
	switch (op) {
	case AP_EMU_READ:
		break;
	case AP_EMU_WRITE:
		c->rmw = c->partial;
		if (m->write_cache) {
			m->pending_rmw += c->partial;
			/* what the drive writes back on its own (durability only) */
			if (m->volatile_bytes + len > m->cache_size) {
				c->drained = true;
				m->volatile_bytes = 0;
			}
			m->volatile_bytes += len;
			c->cached = len > 0;
		} else {
			ns += c->partial * m->rmw_ns;
			c->media_write = len > 0;
		}
		break;
	case AP_EMU_FLUSH:
		if (flush_ignored(m, c))
			break;
		if (m->write_cache)
			ns += m->flush_ns;
		ns += m->pending_rmw * m->rmw_ns;
		m->pending_rmw = 0;
		m->volatile_bytes = 0;
		c->drained = m->write_cache;
		break;
	}
	c->cost_ns = jittered(m, ns);
}
