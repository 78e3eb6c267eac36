// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The emulated drive's cost and fault model, its spec string and its named
 * profiles. Pure code: the FUSE server (emu_server.c) calls
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
	s->model = AP_EMU_MODEL_SIMPLE;
	s->logical_sector = 512;
	s->rpm = 7200;
	s->disk_size = 3907029168ULL * 512;	/* a 2 TB disk (WD20EARS) */
	s->track = 1 << 20;
	s->settle_ns = 1000000;
	s->seek_ns = 16000000;
	s->knee = 0.3;
	s->cache_size = 64ULL << 20;
	s->bus_rate = 300000000;
}

/*
 * The profiles: each is the spec it stands for, applied on top of the
 * defaults of ap_emu_spec_init(). Keep docs/alignprobe.8 and README.md in
 * step.
 */
static const struct {
	const char *name, *spec;
} profiles[] = {
	/* today's constant-cost model, with its defaults */
	{ "simple", "model=simple" },
	/* a 512e desktop disk hiding 4096-byte sectors, write cache on */
	{ "hdd-7200", "model=hdd,phys=4096,lba=0,rpm=7200,track=1250304,settle=1ms,seek=16ms,"
		      "knee=30%,base=50us,bus=300MB,cache=on,cache-size=64M" },
	{ "hdd-5400", "model=hdd,phys=4096,lba=0,rpm=5400,track=1228800,settle=1500us,seek=20ms,"
		      "knee=30%,base=50us,bus=300MB,cache=on,cache-size=64M" },
	/* a WD Green (EARS) with the XP jumper: LBA 63 on a physical boundary */
	{ "wd-ears-jumper", "model=hdd,phys=4096,lba=7,rpm=5400,track=1228800,settle=1500us,seek=20ms,"
			    "knee=30%,base=50us,bus=300MB,cache=on,cache-size=64M" },
	/* flash behind an FTL: a hidden page, a small and noisy penalty */
	{ "flash-8k", "model=flash,phys=8K,lba=0,base=100us,rmw=25us,bus=400MB,jitter=15%,cache=off" },
	{ "flash-16k", "model=flash,phys=16K,lba=0,base=100us,rmw=25us,bus=400MB,jitter=15%,cache=off" },
	/* a USB bridge presenting a 5400 rpm disk with 4096-byte logical sectors */
	{ "usb-4kn", "model=hdd,logical=4096,phys=4096,lba=0,rpm=5400,track=1228800,settle=1500us,"
		     "seek=20ms,knee=30%,base=100us,bus=300MB,cache=on,cache-size=64M" },
	/* a 512n disk: what it reports is what it has */
	{ "honest-512n", "model=hdd,phys=512,lba=0,rpm=7200,track=1250304,settle=1ms,seek=16ms,"
			 "knee=30%,base=50us,bus=300MB,cache=on,cache-size=64M" },
};

const char *ap_emu_profile_spec(const char *name)
{
	size_t i;

	for (i = 0; i < AP_ARRAY_SIZE(profiles); i++)
		if (strcmp(profiles[i].name, name) == 0)
			return profiles[i].spec;
	return NULL;
}

const char *ap_emu_profile_names(void)
{
	return "simple, hdd-7200, hdd-5400, wd-ears-jumper, flash-8k, flash-16k, usb-4kn, honest-512n";
}

static const char *const model_names[] = {
	[AP_EMU_MODEL_SIMPLE] = "simple",
	[AP_EMU_MODEL_HDD] = "hdd",
	[AP_EMU_MODEL_FLASH] = "flash",
};

static int spec_apply(const char *str, struct ap_emu_spec *s, struct ap_error *e);

int ap_emu_spec_profile(struct ap_emu_spec *s, const char *name, struct ap_error *e)
{
	const char *spec = ap_emu_profile_spec(name);
	struct ap_emu_spec keep = *s;
	int rc;

	if (!spec)
		return ap_error_set(e, EINVAL, "unknown drive profile '%s' (known: %s)", name,
				    ap_emu_profile_names());
	/* size, seed, image and the fault model are not the profile's */
	ap_emu_spec_init(s);
	s->capacity = keep.capacity;
	s->capacity_set = keep.capacity_set;
	s->seed = keep.seed;
	s->image = keep.image;
	s->fail_lba = keep.fail_lba;
	s->fail_count = keep.fail_count;
	s->fail_reads = keep.fail_reads;
	s->fail_writes = keep.fail_writes;
	s->fail_after = keep.fail_after;
	rc = spec_apply(spec, s, e);
	snprintf(s->profile, sizeof(s->profile), "%s", name);
	return rc;
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
	} else if (key_is(key, "profile", NULL)) {
		return ap_emu_spec_profile(s, val, e);
	} else if (key_is(key, "model", NULL)) {
		size_t i;

		for (i = 0; i < AP_ARRAY_SIZE(model_names); i++)
			if (strcmp(val, model_names[i]) == 0)
				break;
		if (i == AP_ARRAY_SIZE(model_names))
			return ap_error_set(e, EINVAL, "model '%s': expected simple, hdd or flash", val);
		s->model = (enum ap_emu_model_kind)i;
	} else if (key_is(key, "logical", "logical-sector")) {
		if (ap_parse_size(val, &u) != 0 || u < 512 || u > 4096 || !ap_is_power_of_2(u))
			return ap_error_set(e, EINVAL,
				"%s '%s': the logical sector size must be 512, 1024, 2048 or 4096",
				key, val);
		s->logical_sector = (uint32_t)u;
	} else if (key_is(key, "rpm", NULL)) {
		uint32_t v;

		if (ap_parse_u32(val, &v) != 0 || v < 60 || v > 100000)
			return ap_error_set(e, EINVAL, "rpm '%s': expected 60 to 100000", val);
		s->rpm = v;
	} else if (key_is(key, "disk", "disk-size") || key_is(key, "track", NULL) ||
		   key_is(key, "cache-size", NULL) || key_is(key, "bus", NULL)) {
		if (ap_parse_size(val, &u) != 0)
			goto bad_size;
		if (key[0] == 'd') {
			if (u < AP_EMU_MIN_CAPACITY || u > AP_EMU_MAX_CAPACITY)
				return ap_error_set(e, EINVAL,
					"%s '%s': must lie between 1 MiB and 16 TiB", key, val);
			s->disk_size = u;
		} else if (key[0] == 't') {
			if (u < 512 || u > (1ULL << 30))
				return ap_error_set(e, EINVAL,
					"track '%s': must lie between 512 bytes and 1 GiB", val);
			s->track = u;
		} else if (key[0] == 'c') {
			if (u > (16ULL << 30))
				return ap_error_set(e, EINVAL, "cache-size '%s': more than 16 GiB", val);
			s->cache_size = u;
		} else {
			s->bus_rate = u;
		}
	} else if (key_is(key, "settle", NULL) || key_is(key, "seek", NULL)) {
		if (parse_cost(val, &u) != 0)
			return ap_error_set(e, EINVAL,
				"%s '%s': not a duration (use a unit: 1ms, 300us, 0)", key, val);
		if (u > AP_NSEC_PER_SEC)
			return ap_error_set(e, EINVAL, "%s '%s': more than 1s", key, val);
		if (key[1] == 'e' && key[2] == 't')
			s->settle_ns = u;
		else
			s->seek_ns = u;
	} else if (key_is(key, "knee", NULL)) {
		if (ap_parse_fraction(val, 1.0, &s->knee) != 0 || s->knee <= 0 || s->knee >= 1)
			return ap_error_set(e, EINVAL,
				"knee '%s': a fraction of the full stroke, above 0 and below 100%%", val);
	} else if (key_is(key, "image", NULL)) {
		if (!*val)
			return ap_error_set(e, EINVAL, "image: empty file name");
		free(s->image);
		s->image = ap_xstrdup(val);
	} else {
		return ap_error_set(e, EINVAL,
			"unknown emulator parameter '%s' (known: profile, model, size, logical, phys, lba, rmw, base, flush, jitter, seed, cache, rpm, disk, track, settle, seek, knee, cache-size, bus, fail, fail-lba, fail-count, fail-rw, fail-after, image)",
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
	if (s->logical_sector < 512 || s->logical_sector > 4096 ||
	    !ap_is_power_of_2(s->logical_sector))
		return ap_error_set(e, EINVAL, "logical sector size %u: must be 512 to 4096",
				    s->logical_sector);
	if (s->phys_sector < s->logical_sector)
		return ap_error_set(e, EINVAL,
			"physical sector size %u: smaller than the logical sector size %u",
			s->phys_sector, s->logical_sector);
	if (s->lowest_aligned >= s->phys_sector / s->logical_sector)
		return ap_error_set(e, EINVAL,
			"lowest aligned LBA %u: must be below %u for a %u-byte physical sector",
			s->lowest_aligned, s->phys_sector / s->logical_sector, s->phys_sector);
	if (s->settle_ns > s->seek_ns)
		return ap_error_set(e, EINVAL, "settle time above the full-stroke seek time");
	if (s->knee <= 0 || s->knee >= 1)
		return ap_error_set(e, EINVAL, "knee %g: must lie above 0 and below 1", s->knee);
	if (s->jitter < 0 || s->jitter > 1)
		return ap_error_set(e, EINVAL, "jitter %g: must lie between 0 and 100%%", s->jitter);
	if (s->image && !s->capacity_set)
		goto capacity_known_at_attach;
	if (s->capacity % s->logical_sector)
		return ap_error_set(e, EINVAL, "size %llu: not a multiple of %u bytes",
				    (unsigned long long)s->capacity, s->logical_sector);
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

/* Apply KEY=VALUE and profile names, in order, without validating. */
static int spec_apply(const char *str, struct ap_emu_spec *s, struct ap_error *e)
{
	char *copy, *tok, *save = NULL;
	int rc = 0;

	copy = ap_xstrdup(str);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq) {
			if (ap_emu_profile_spec(tok)) {
				rc = ap_emu_spec_profile(s, tok, e);
				if (rc)
					break;
				continue;
			}
			rc = ap_error_set(e, EINVAL,
				"emulator spec '%s': '%s' is neither KEY=VALUE nor a drive profile (%s)",
				str, tok, ap_emu_profile_names());
			break;
		}
		*eq = '\0';
		rc = ap_emu_spec_set(s, tok, eq + 1, e);
		if (rc)
			break;
	}
	free(copy);
	return rc;
}

int ap_emu_spec_parse(const char *str, struct ap_emu_spec *s, struct ap_error *e)
{
	int rc = str ? spec_apply(str, s, e) : 0;

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
	char rmw[32], base[32], flush[32], fail[96] = "", model[320] = "", prof[40] = "";
	char *out;
	int n = 0;

	if (s->profile[0])
		snprintf(prof, sizeof(prof), "profile=%s,", s->profile);
	if (s->logical_sector != 512)
		n = snprintf(model, sizeof(model), ",logical=%u", s->logical_sector);
	if (s->model == AP_EMU_MODEL_HDD) {
		char settle[32], seek[32];

		fmt_ns(settle, sizeof(settle), s->settle_ns);
		fmt_ns(seek, sizeof(seek), s->seek_ns);
		snprintf(model + n, sizeof(model) - n,
			 ",model=hdd,rpm=%u,disk=%llu,track=%llu,settle=%s,seek=%s,knee=%g%%,"
			 "cache-size=%llu,bus=%llu", s->rpm, (unsigned long long)s->disk_size,
			 (unsigned long long)s->track, settle, seek, s->knee * 100,
			 (unsigned long long)s->cache_size, (unsigned long long)s->bus_rate);
	} else if (s->model == AP_EMU_MODEL_FLASH) {
		snprintf(model + n, sizeof(model) - n, ",model=flash,bus=%llu",
			 (unsigned long long)s->bus_rate);
	} else if (s->profile[0]) {
		snprintf(model + n, sizeof(model) - n, ",model=simple");
	}

	fmt_ns(rmw, sizeof(rmw), s->rmw_ns);
	fmt_ns(flush, sizeof(flush), s->flush_ns);
	fmt_ns(base, sizeof(base), s->base_ns);
	if (s->fail_count || s->fail_after) {
		n = 0;
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
	ap_xasprintf(&out, "%ssize=%llu,phys=%u,lba=%u,rmw=%s,base=%s,jitter=%g%%,seed=%llu,cache=%s,flush=%s%s%s",
		     prof, (unsigned long long)s->capacity, s->phys_sector, s->lowest_aligned,
		     rmw, base, s->jitter * 100, (unsigned long long)s->seed,
		     s->write_cache ? "on" : "off", flush, model, fail);
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

/* a * b / c without overflow (c > 0) */
static uint64_t mul_div(uint64_t a, uint64_t b, uint64_t c)
{
	return (uint64_t)((unsigned __int128)a * b / c);
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
	uint64_t at = mul_div(off % m->track, m->rev_ns, m->track), now = t_ns % m->rev_ns;

	return (at + m->rev_ns - now) % m->rev_ns;
}

static uint64_t bus_ns(const struct ap_emu_model *m, uint64_t len)
{
	return m->bus_rate ? mul_div(len, AP_NSEC_PER_SEC, m->bus_rate) : 0;
}

/*
 * One access of the media, [off, off + len), starting at @t: seek, wait for
 * the platter, transfer, and for a write the read-modify-write revolutions.
 * Its duration; the head stays on the last track; partial sectors in *rmw.
 */
static uint64_t media(struct ap_emu_model *m, bool write, uint64_t off, uint64_t len,
		      uint64_t t, uint64_t *rmw)
{
	uint64_t trk = off / m->track, ns;
	unsigned partial;

	ns = ap_emu_model_seek_ns(m, trk > m->head ? trk - m->head : m->head - trk);
	ns += ap_emu_model_rotation_ns(m, off, t + ns);
	ns += mul_div(len, m->rev_ns, m->track);
	if (write) {
		partial = ap_emu_model_partial(off, len, m->phys, m->align);
		if (partial)
			ns += (partial == 2 && len > m->track ? 2 : 1) * m->rev_ns;
		*rmw += partial;
	}
	m->head = (off + (len ? len - 1 : 0)) / m->track;
	return ns;
}

/* Write every cached extent to the media, ascending, from @t: the duration. */
static uint64_t destage(struct ap_emu_model *m, uint64_t t, struct ap_emu_cost *c)
{
	uint64_t ns = 0;
	size_t i;

	for (i = 0; i < m->nextents; i++) {
		const struct ap_emu_extent *x = &m->ext[i];

		ns += media(m, true, x->start, x->end - x->start, t + ns, &c->rmw);
	}
	c->destaged += m->nextents;
	m->nextents = 0;
	m->cached = 0;
	return ns;
}

/* Merge [a, b) into the sorted extents (room for one more is there). */
static void cache_insert(struct ap_emu_model *m, uint64_t a, uint64_t b)
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

/* A read entirely inside one cached extent. */
static bool cache_hit(const struct ap_emu_model *m, uint64_t off, uint64_t len)
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
	uint64_t ns = m->base_ns;

	switch (op) {
	case AP_EMU_READ:
		if (m->write_cache && cache_hit(m, off, len))
			ns += bus_ns(m, len);
		else if (len)
			ns += media(m, false, off, len, now + ns, &c->rmw);
		break;
	case AP_EMU_WRITE:
		if (!m->write_cache) {
			ns += media(m, true, off, len, now + ns, &c->rmw);
			break;
		}
		ns += bus_ns(m, len);
		/* full: destage everything first; a write larger than the cache goes by */
		if (m->cached + len > m->cache_size || m->nextents == AP_EMU_CACHE_EXTENTS)
			ns += destage(m, now + ns, c);
		if (len > m->cache_size)
			ns += media(m, true, off, len, now + ns, &c->rmw);
		else if (len)
			cache_insert(m, off, off + len);
		break;
	case AP_EMU_FLUSH:
		if (m->write_cache)
			ns += destage(m, now + ns, c) + m->flush_ns;
		break;
	}
	return ns;
}

void ap_emu_model_request(struct ap_emu_model *m, enum ap_emu_op op,
			  uint64_t off, uint64_t len, uint64_t served,
			  uint64_t now_ns, struct ap_emu_cost *c)
{
	uint64_t ns = m->base_ns;

	memset(c, 0, sizeof(*c));
	if (should_fail(m, op, off, len, served)) {
		c->fail = true;
		c->cost_ns = jittered(m, ns);
		return;
	}
	if (op == AP_EMU_WRITE) {
		c->partial = ap_emu_model_partial(off, len, m->phys, m->align);
		c->aligned = c->partial == 0 && len > 0;
	}
	if (m->kind == AP_EMU_MODEL_HDD) {
		c->cost_ns = jittered(m, hdd_request(m, op, off, len, now_ns, c));
		return;
	}
	/* simple and flash: the flash model adds the interface's transfer time */
	if (m->kind == AP_EMU_MODEL_FLASH && op != AP_EMU_FLUSH)
		ns += bus_ns(m, len);
	switch (op) {
	case AP_EMU_READ:
		break;
	case AP_EMU_WRITE:
		c->rmw = c->partial;
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
