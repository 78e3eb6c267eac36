// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The emulated drive's cost and fault model, and its spec string. Pure code:
 * the FUSE server (emu_server.c) calls ap_emu_model_request() for every
 * request and sleeps for the cost it returns.
 */
#include "emu/model.h"
#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void ap_emu_spec_init(struct ap_emu_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->capacity = 1ULL << 30;
	s->phys_sector = 4096;
	s->lowest_aligned = 0;
	s->rmw_ns = 8000000;
	s->base_ns = 0;
	s->jitter = 0;
	s->seed = 1;
	s->write_cache = false;
	s->fail_reads = true;
	s->fail_writes = true;
}

void ap_emu_spec_free(struct ap_emu_spec *s)
{
	if (!s)
		return;
	free(s->image);
	s->image = NULL;
}

static int parse_bool(const char *v, bool *out)
{
	static const char *const yes[] = { "on", "yes", "true", "1" };
	static const char *const no[] = { "off", "no", "false", "0" };
	size_t i;

	for (i = 0; i < AP_ARRAY_SIZE(yes); i++) {
		if (strcasecmp(v, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(v, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

/* A duration, or a plain "0" (no unit needed for nothing). */
static int parse_cost(const char *v, uint64_t *ns)
{
	if (strcmp(v, "0") == 0) {
		*ns = 0;
		return 0;
	}
	return ap_parse_duration_ns(v, ns);
}

static bool key_is(const char *key, const char *a, const char *b)
{
	return strcmp(key, a) == 0 || (b && strcmp(key, b) == 0);
}

int ap_emu_spec_set(struct ap_emu_spec *s, const char *key, const char *val,
		    struct ap_error *e)
{
	uint64_t u;

	if (!val)
		val = "";
	if (key_is(key, "size", "capacity")) {
		if (ap_parse_size(val, &u) != 0)
			goto bad_size;
		s->capacity = u;
		s->capacity_set = true;
	} else if (key_is(key, "phys", "physical")) {
		if (ap_parse_size(val, &u) != 0)
			goto bad_size;
		if (u < 512 || u > 65536 || !ap_is_power_of_2(u))
			return ap_error_set(e, EINVAL,
				"%s '%s': the physical sector size must be a power of two from 512 to 65536",
				key, val);
		s->phys_sector = (uint32_t)u;
	} else if (key_is(key, "lba", "lowest-aligned")) {
		uint32_t v;

		if (ap_parse_u32(val, &v) != 0)
			return ap_error_set(e, EINVAL, "%s '%s': not a sector number", key, val);
		s->lowest_aligned = v;
	} else if (key_is(key, "rmw", "rmw-cost") || key_is(key, "base", "base-cost") ||
		   key_is(key, "flush", "flush-cost")) {
		if (parse_cost(val, &u) != 0)
			return ap_error_set(e, EINVAL,
				"%s '%s': not a duration (use a unit: 8ms, 300us, 0)", key, val);
		if (u > 10 * AP_NSEC_PER_SEC)
			return ap_error_set(e, EINVAL, "%s '%s': more than 10s per request", key, val);
		if (key[0] == 'r')
			s->rmw_ns = u;
		else if (key[0] == 'f')
			s->flush_ns = u;
		else
			s->base_ns = u;
	} else if (key_is(key, "jitter", NULL)) {
		if (ap_parse_fraction(val, 1.0, &s->jitter) != 0)
			return ap_error_set(e, EINVAL,
				"jitter '%s': not a fraction between 0 and 100%%", val);
	} else if (key_is(key, "seed", NULL)) {
		if (ap_parse_u64(val, &s->seed) != 0)
			return ap_error_set(e, EINVAL, "seed '%s': not a number", val);
	} else if (key_is(key, "cache", "write-cache")) {
		if (parse_bool(*val ? val : "on", &s->write_cache) != 0)
			return ap_error_set(e, EINVAL, "%s '%s': expected on or off", key, val);
	} else if (key_is(key, "fail", NULL)) {
		char *tmp = ap_xstrdup(val), *plus = strchr(tmp, '+');
		int rc = 0;

		if (plus)
			*plus++ = '\0';
		if (ap_parse_u64(tmp, &s->fail_lba) != 0)
			rc = -EINVAL;
		if (!plus)
			s->fail_count = 1;
		else if (ap_parse_u64(plus, &s->fail_count) != 0 || s->fail_count == 0)
			rc = -EINVAL;
		free(tmp);
		if (rc)
			return ap_error_set(e, EINVAL,
				"fail '%s': expected LBA or LBA+COUNT (sectors of 512 bytes)", val);
	} else if (key_is(key, "fail-lba", NULL)) {
		if (ap_parse_u64(val, &s->fail_lba) != 0)
			return ap_error_set(e, EINVAL, "fail-lba '%s': not a sector number", val);
		if (!s->fail_count)
			s->fail_count = 1;
	} else if (key_is(key, "fail-count", NULL)) {
		if (ap_parse_u64(val, &s->fail_count) != 0 || s->fail_count == 0)
			return ap_error_set(e, EINVAL, "fail-count '%s': not a positive number", val);
	} else if (key_is(key, "fail-rw", NULL)) {
		if (strcmp(val, "r") == 0)
			s->fail_reads = true, s->fail_writes = false;
		else if (strcmp(val, "w") == 0)
			s->fail_reads = false, s->fail_writes = true;
		else if (strcmp(val, "rw") == 0 || strcmp(val, "wr") == 0)
			s->fail_reads = s->fail_writes = true;
		else
			return ap_error_set(e, EINVAL, "fail-rw '%s': expected r, w or rw", val);
	} else if (key_is(key, "fail-after", NULL)) {
		if (ap_parse_u64(val, &s->fail_after) != 0 || s->fail_after == 0)
			return ap_error_set(e, EINVAL, "fail-after '%s': not a positive number", val);
	} else if (key_is(key, "image", NULL)) {
		if (!*val)
			return ap_error_set(e, EINVAL, "image: empty file name");
		free(s->image);
		s->image = ap_xstrdup(val);
	} else {
		return ap_error_set(e, EINVAL,
			"unknown emulator parameter '%s' (known: size, phys, lba, rmw, base, flush, jitter, seed, cache, fail, fail-lba, fail-count, fail-rw, fail-after, image)",
			key);
	}
	return 0;
bad_size:
	return ap_error_set(e, EINVAL, "%s '%s': not a size (e.g. 4096, 4K, 1G)", key, val);
}

int ap_emu_spec_validate(const struct ap_emu_spec *s, struct ap_error *e)
{
	uint64_t sectors = s->capacity / 512;

	if (s->phys_sector < 512 || s->phys_sector > 65536 || !ap_is_power_of_2(s->phys_sector))
		return ap_error_set(e, EINVAL,
			"physical sector size %u: must be a power of two from 512 to 65536",
			s->phys_sector);
	if (s->lowest_aligned >= s->phys_sector / 512)
		return ap_error_set(e, EINVAL,
			"lowest aligned LBA %u: must be below %u for a %u-byte physical sector",
			s->lowest_aligned, s->phys_sector / 512, s->phys_sector);
	if (s->jitter < 0 || s->jitter > 1)
		return ap_error_set(e, EINVAL, "jitter %g: must lie between 0 and 100%%", s->jitter);
	if (s->image && !s->capacity_set)
		goto capacity_known_at_attach;
	if (s->capacity % 512)
		return ap_error_set(e, EINVAL, "size %llu: not a multiple of 512 bytes",
				    (unsigned long long)s->capacity);
	if (s->capacity < AP_EMU_MIN_CAPACITY || s->capacity > AP_EMU_MAX_CAPACITY)
		return ap_error_set(e, EINVAL, "size %llu: must lie between 1 MiB and 16 TiB",
				    (unsigned long long)s->capacity);
	if (s->fail_count && (s->fail_lba >= sectors || s->fail_count > sectors - s->fail_lba))
		return ap_error_set(e, EINVAL,
			"fault range %llu+%llu: beyond the last sector %llu",
			(unsigned long long)s->fail_lba, (unsigned long long)s->fail_count,
			(unsigned long long)(sectors - 1));
capacity_known_at_attach:
	if (!s->fail_reads && !s->fail_writes)
		return ap_error_set(e, EINVAL, "fault model: neither reads nor writes selected");
	return 0;
}

int ap_emu_spec_parse(const char *str, struct ap_emu_spec *s, struct ap_error *e)
{
	char *copy, *tok, *save = NULL;
	int rc = 0;

	if (!str)
		return ap_emu_spec_validate(s, e);
	copy = ap_xstrdup(str);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq) {
			rc = ap_error_set(e, EINVAL,
				"emulator spec '%s': '%s' is not KEY=VALUE", str, tok);
			break;
		}
		*eq = '\0';
		rc = ap_emu_spec_set(s, tok, eq + 1, e);
		if (rc)
			break;
	}
	free(copy);
	return rc ? rc : ap_emu_spec_validate(s, e);
}

static void fmt_ns(char *buf, size_t sz, uint64_t ns)
{
	if (ns == 0)
		snprintf(buf, sz, "0");
	else if (ns % 1000000 == 0)
		snprintf(buf, sz, "%llums", (unsigned long long)(ns / 1000000));
	else if (ns % 1000 == 0)
		snprintf(buf, sz, "%lluus", (unsigned long long)(ns / 1000));
	else
		snprintf(buf, sz, "%lluns", (unsigned long long)ns);
}

char *ap_emu_spec_format(const struct ap_emu_spec *s)
{
	char rmw[32], base[32], flush[32], fail[96] = "", *out;

	fmt_ns(rmw, sizeof(rmw), s->rmw_ns);
	fmt_ns(flush, sizeof(flush), s->flush_ns);
	fmt_ns(base, sizeof(base), s->base_ns);
	if (s->fail_count || s->fail_after) {
		int n = 0;

		if (s->fail_count)
			n = snprintf(fail, sizeof(fail), ",fail=%llu+%llu",
				     (unsigned long long)s->fail_lba,
				     (unsigned long long)s->fail_count);
		if (s->fail_after)
			n += snprintf(fail + n, sizeof(fail) - n, ",fail-after=%llu",
				      (unsigned long long)s->fail_after);
		snprintf(fail + n, sizeof(fail) - n, ",fail-rw=%s%s",
			 s->fail_reads ? "r" : "", s->fail_writes ? "w" : "");
	}
	ap_xasprintf(&out, "size=%llu,phys=%u,lba=%u,rmw=%s,base=%s,jitter=%g%%,seed=%llu,cache=%s,flush=%s%s",
		     (unsigned long long)s->capacity, s->phys_sector, s->lowest_aligned,
		     rmw, base, s->jitter * 100, (unsigned long long)s->seed,
		     s->write_cache ? "on" : "off", flush, fail);
	return out;
}

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

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t xoshiro(uint64_t *s)
{
	uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return r;
}

double ap_emu_model_uniform(struct ap_emu_model *m)
{
	/* 53 random bits -> [0, 1], then [-1, 1] */
	double u = (double)(xoshiro(m->rng) >> 11) / (double)((1ULL << 53) - 1);

	return 2.0 * u - 1.0;
}

void ap_emu_model_init(struct ap_emu_model *m, const struct ap_emu_spec *s)
{
	uint64_t x = s->seed;
	int i;

	memset(m, 0, sizeof(*m));
	m->phys = s->phys_sector;
	m->align = (uint32_t)(((uint64_t)s->lowest_aligned * 512) % s->phys_sector);
	m->rmw_ns = s->rmw_ns;
	m->base_ns = s->base_ns;
	m->flush_ns = s->flush_ns;
	m->jitter = s->jitter;
	m->write_cache = s->write_cache;
	for (i = 0; i < 4; i++)
		m->rng[i] = splitmix64(&x);
	m->fail_lba = s->fail_lba;
	m->fail_count = s->fail_count;
	m->fail_reads = s->fail_reads;
	m->fail_writes = s->fail_writes;
	m->fail_after = s->fail_after;
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

void ap_emu_model_request(struct ap_emu_model *m, enum ap_emu_op op,
			  uint64_t off, uint64_t len, uint64_t served,
			  struct ap_emu_cost *c)
{
	uint64_t ns = m->base_ns;

	memset(c, 0, sizeof(*c));
	if (should_fail(m, op, off, len, served)) {
		c->fail = true;
		c->cost_ns = jittered(m, ns);
		return;
	}
	switch (op) {
	case AP_EMU_READ:
		break;
	case AP_EMU_WRITE:
		c->partial = ap_emu_model_partial(off, len, m->phys, m->align);
		c->aligned = c->partial == 0 && len > 0;
		if (m->write_cache)
			m->pending_rmw += c->partial;
		else
			ns += c->partial * m->rmw_ns;
		break;
	case AP_EMU_FLUSH:
		if (m->write_cache)
			ns += m->flush_ns;
		ns += m->pending_rmw * m->rmw_ns;
		m->pending_rmw = 0;
		break;
	}
	c->cost_ns = jittered(m, ns);
}
