// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The hdd model's persistent media cache (model.h, "The persistent media
 * cache"): what a drive-managed SMR disk hides behind a conventional
 * interface (Skylight, FAST '15: random writes appended to a cache region,
 * bands cleaned when idle and when the cache is full), and what a hybrid
 * disk puts in front of its platters (a flash cache). Pure code, like
 * model.c, which calls it from its media access.
 */
#include "emu/model.h"
#include "lib/util.h"

#include <string.h>

void ap_emu_pcache_init(struct ap_emu_pcache *p, const struct ap_emu_spec *s)
{
	memset(p, 0, sizeof(*p));
	if (s->model != AP_EMU_MODEL_HDD)
		return;
	p->size = s->pcache_size;
	p->ns = s->pcache_ns;
	p->rate = s->pcache_rate;
	p->band = s->band_size;
	p->idle_ns = s->clean_idle_ns;
}

bool ap_emu_pcache_takes(const struct ap_emu_model *m, uint64_t len)
{
	const struct ap_emu_pcache *p = &m->pc;

	if (!p->size || p->cleaning || !len || len > p->size)
		return false;
	return len < (p->band ? p->band : AP_EMU_PCACHE_DIRECT);
}

static struct ap_emu_pcache_unit *unit_at(struct ap_emu_pcache *p, size_t i)
{
	return &p->unit[(p->head + i) % AP_EMU_PCACHE_UNITS];
}

/* Clean the oldest unit at @t: its duration (the head moves). */
static uint64_t clean_one(struct ap_emu_model *m, uint64_t t)
{
	struct ap_emu_pcache *p = &m->pc;
	struct ap_emu_pcache_unit *u = unit_at(p, 0);
	struct ap_emu_cost scratch = { 0 };
	uint64_t ns;

	p->cleaning = true;
	if (p->band)	/* read the band and its cached data, rewrite it whole */
		ns = ap_emu_model_media(m, false, u->start, u->len, t, &scratch);
	else
		ns = 0;
	ns += ap_emu_model_media(m, true, u->start, u->len, t + ns, &scratch);
	p->cleaning = false;
	p->used -= u->bytes;
	p->head = (p->head + 1) % AP_EMU_PCACHE_UNITS;
	p->n--;
	return ns;
}

/* The cost of cleaning the oldest unit, without cleaning it. */
static uint64_t clean_cost(struct ap_emu_model *m, uint64_t t)
{
	struct ap_emu_model save;
	uint64_t ns;

	memcpy(&save, m, sizeof(save));
	ns = clean_one(m, t);
	memcpy(m, &save, sizeof(save));
	return ns;
}

uint64_t ap_emu_pcache_arrive(struct ap_emu_model *m, uint64_t now, struct ap_emu_cost *c)
{
	struct ap_emu_pcache *p = &m->pc;
	uint64_t t, ns;

	if (!p->size || !p->n || now < p->idle_since + p->idle_ns)
		return 0;
	/* the drive cleans unit after unit from idle_since + idle_ns on */
	t = p->idle_since + p->idle_ns;
	while (p->n) {
		ns = clean_cost(m, t);
		if (t + ns > now) {
			/* in the middle of this one: the request waits for it */
			clean_one(m, t);
			c->cleaned++;
			return t + ns - now;
		}
		t += clean_one(m, t);
		c->cleaned++;
	}
	return 0;
}

/* The unit that holds data of [off, off + len): an existing band, or a new one. */
static struct ap_emu_pcache_unit *unit_for(struct ap_emu_pcache *p, uint64_t off, uint64_t len)
{
	struct ap_emu_pcache_unit *u;
	size_t i;

	if (p->band && off / p->band == (off + len - 1) / p->band)
		for (i = 0; i < p->n; i++) {
			u = unit_at(p, i);
			if (u->start == off / p->band * p->band)
				return u;
		}
	u = unit_at(p, p->n++);
	if (p->band) {
		u->start = off / p->band * p->band;
		u->len = (off + len - u->start + p->band - 1) / p->band * p->band;
	} else {
		u->start = off;
		u->len = len;
	}
	u->bytes = 0;
	return u;
}

uint64_t ap_emu_pcache_write(struct ap_emu_model *m, uint64_t off, uint64_t len, uint64_t t,
			     struct ap_emu_cost *c)
{
	struct ap_emu_pcache *p = &m->pc;
	struct ap_emu_pcache_unit *u;
	uint64_t ns = 0, k;
	unsigned partial = ap_emu_model_partial(off, len, m->phys, m->align);

	/* full: clean a batch of the oldest units first (the cliff) */
	if (p->used + len > p->size || p->n >= AP_EMU_PCACHE_UNITS) {
		for (k = 0; k < AP_EMU_PCACHE_BATCH && p->n; k++) {
			ns += clean_one(m, t + ns);
			c->cleaned++;
		}
		while (p->n && (p->used + len > p->size || p->n >= AP_EMU_PCACHE_UNITS)) {
			ns += clean_one(m, t + ns);
			c->cleaned++;
		}
		c->stall_ns += ns;
	}
	ns += p->ns;
	if (p->rate)
		ns += (uint64_t)((unsigned __int128)len * AP_NSEC_PER_SEC / p->rate);
	ns += ap_emu_model_rmw_revs(m, off, len, partial, c) * m->rev_ns;
	c->rmw += partial;
	u = unit_for(p, off, len);
	u->bytes += len;
	p->used += len;
	c->pcache = true;
	if (p->band)
		m->head = 0;	/* the cache region: the outer tracks */
	return ns;
}
