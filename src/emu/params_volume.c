// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The spec's keys of the layered volumes (model.h, volume.c): a parity
 * RAID volume (raid, members, chunk, raid-cache), a thin volume (thin,
 * thin-sub, thin-copy, thin-pool; thin-alloc is a duration, which params.c
 * parses) and what the device claims (min-io, opt-io); their constraints
 * and their part of the formatted spec; and the keys of the persistent media
 * cache (smr.c: pcache, pcache-cost, pcache-rate, band, clean-idle, trim).
 * params.c's key table points here.
 */
#include "emu/model.h"
#include "emu/emuP.h"
#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static int set_raid(struct ap_emu_spec *s, const char *key, const char *val, struct ap_error *e)
{
	if (strcmp(val, "5") == 0 || strcasecmp(val, "raid5") == 0)
		s->raid_level = 5;
	else if (strcmp(val, "6") == 0 || strcasecmp(val, "raid6") == 0)
		s->raid_level = 6;
	else if (strcmp(val, "0") == 0 || strcmp(val, "off") == 0 || strcmp(val, "none") == 0)
		s->raid_level = 0;
	else
		return ap_error_set(e, EINVAL, "%s '%s': expected 5, 6 or off", key, val);
	return 0;
}

static int set_members(struct ap_emu_spec *s, const char *key, const char *val,
		       struct ap_error *e)
{
	uint32_t v;

	if (ap_parse_u32(val, &v) != 0 || v < 3 || v > AP_EMU_RAID_MEMBERS_MAX)
		return ap_error_set(e, EINVAL, "%s '%s': expected 3 to %u", key, val,
				    AP_EMU_RAID_MEMBERS_MAX);
	s->raid_members = v;
	return 0;
}

/* chunk, raid-cache, thin, thin-copy, thin-pool, min-io, opt-io: sizes */
static int set_size(struct ap_emu_spec *s, const char *key, const char *val,
		    struct ap_error *e)
{
	uint64_t u;

	if (ap_parse_size(val, &u) != 0)
		return ap_error_set(e, EINVAL, "%s '%s': not a size (e.g. 4096, 64K, 1M)", key,
				    val);
	if (strcmp(key, "chunk") == 0) {
		if (u < 4096 || u > (16ULL << 20) || !ap_is_power_of_2(u))
			return ap_error_set(e, EINVAL,
				"chunk '%s': a power of two from 4 KiB to 16 MiB", val);
		s->raid_chunk = u;
	} else if (strcmp(key, "raid-cache") == 0) {
		if (u > (16ULL << 30))
			return ap_error_set(e, EINVAL, "raid-cache '%s': more than 16 GiB", val);
		s->raid_cache = u;
	} else if (strcmp(key, "thin") == 0) {
		if (u && (u < 4096 || u > (1ULL << 30) || u % 4096))
			return ap_error_set(e, EINVAL,
				"thin '%s': a multiple of 4 KiB up to 1 GiB (0: not thin)", val);
		s->thin_unit = u;
	} else if (strcmp(key, "thin-copy") == 0) {
		if (u == 0)
			return ap_error_set(e, EINVAL, "thin-copy '%s': a rate above 0 (bytes/s)", val);
		s->thin_copy_rate = u;
	} else if (strcmp(key, "thin-pool") == 0) {
		s->thin_pool = u;
	} else {
		if (u % 512)
			return ap_error_set(e, EINVAL, "%s '%s': not a multiple of 512 bytes", key, val);
		if (strcmp(key, "min-io") == 0)
			s->claim_min_io = u;
		else
			s->claim_opt_io = u;
	}
	return 0;
}

static int set_thin_sub(struct ap_emu_spec *s, const char *key, const char *val,
			struct ap_error *e)
{
	if (ap_emu_parse_bool(*val ? val : "on", &s->thin_sub) != 0)
		return ap_error_set(e, EINVAL, "%s '%s': expected on or off", key, val);
	return 0;
}

static int set_thin_alloc(struct ap_emu_spec *s, const char *key, const char *val,
			  struct ap_error *e)
{
	uint64_t u;

	if (ap_emu_parse_cost(val, &u) != 0 || u > AP_NSEC_PER_SEC)
		return ap_error_set(e, EINVAL, "%s '%s': a duration up to 1s (100us, 1ms, 0)", key,
				    val);
	s->thin_alloc_ns = u;
	return 0;
}

/* pcache, band (sizes), pcache-rate (bytes/s), pcache-cost, clean-idle (times), trim */
static int set_pcache(struct ap_emu_spec *s, const char *key, const char *val,
		      struct ap_error *e)
{
	bool trim;
	uint64_t u;

	if (strcmp(key, "trim") == 0) {
		if (ap_emu_parse_bool(*val ? val : "on", &trim) != 0)
			return ap_error_set(e, EINVAL, "%s '%s': expected on or off", key, val);
		s->no_trim = !trim;
	} else if (strcmp(key, "pcache-cost") == 0 || strcmp(key, "clean-idle") == 0) {
		if (ap_emu_parse_cost(val, &u) != 0 || u > 60 * AP_NSEC_PER_SEC)
			return ap_error_set(e, EINVAL,
				"%s '%s': not a duration up to 60s (use a unit: 300us, 2s, 0)",
				key, val);
		*(key[0] == 'p' ? &s->pcache_ns : &s->clean_idle_ns) = u;
	} else {
		if (ap_parse_size(val, &u) != 0)
			return ap_error_set(e, EINVAL, "%s '%s': not a size (e.g. 4096, 4K, 1G)", key,
					    val);
		if (u > (1ULL << 40))
			return ap_error_set(e, EINVAL, "%s '%s': more than 1 TiB", key, val);
		if (key[0] == 'b')
			s->band_size = u;
		else if (strcmp(key, "pcache") == 0)
			s->pcache_size = u;
		else
			s->pcache_rate = u;
	}
	return 0;
}

static const struct {
	const char *name, *alias;
	int (*set)(struct ap_emu_spec *s, const char *key, const char *val, struct ap_error *e);
} keys[] = {
	{ "raid", NULL, set_raid },
	{ "members", NULL, set_members },
	{ "chunk", NULL, set_size },
	{ "raid-cache", NULL, set_size },
	{ "thin", NULL, set_size },
	{ "thin-sub", "subclusters", set_thin_sub },
	{ "thin-alloc", NULL, set_thin_alloc },
	{ "thin-copy", NULL, set_size },
	{ "thin-pool", NULL, set_size },
	{ "min-io", NULL, set_size },
	{ "opt-io", NULL, set_size },
	{ "pcache", "media-cache", set_pcache },
	{ "pcache-cost", NULL, set_pcache },
	{ "pcache-rate", NULL, set_pcache },
	{ "band", "band-size", set_pcache },
	{ "clean-idle", NULL, set_pcache },
	{ "trim", NULL, set_pcache },
};

int ap_emu_spec_set_volume(struct ap_emu_spec *s, const char *key, const char *val,
			   struct ap_error *e)
{
	size_t i;

	for (i = 0; i < AP_ARRAY_SIZE(keys); i++)
		if (strcmp(key, keys[i].name) == 0 ||
		    (keys[i].alias && strcmp(key, keys[i].alias) == 0))
			return keys[i].set(s, keys[i].name, val, e);
	return -ENOENT;
}

void ap_emu_volume_keys(char *buf, size_t sz)
{
	size_t i, n = 0;

	for (i = 0; i < AP_ARRAY_SIZE(keys) && n < sz; i++)
		n += (size_t)snprintf(buf + n, sz - n, ", %s", keys[i].name);
}

void ap_emu_spec_init_volume(struct ap_emu_spec *s)
{
	s->raid_members = 4;
	s->raid_chunk = 64 << 10;
	s->thin_alloc_ns = 100000;
	s->thin_copy_rate = 100000000;
}

int ap_emu_spec_validate_volume(const struct ap_emu_spec *s, struct ap_error *e)
{
	if (s->raid_level) {
		uint32_t np = s->raid_level == 6 ? 2 : 1;

		if (s->raid_members < np + 2)
			return ap_error_set(e, EINVAL, "raid=%u: needs at least %u members, not %u",
					    s->raid_level, np + 2, s->raid_members);
		if (s->model != AP_EMU_MODEL_HDD)
			return ap_error_set(e, EINVAL,
				"raid=%u: the members are rotating disks (model=hdd)", s->raid_level);
		if (s->write_cache)
			return ap_error_set(e, EINVAL,
				"raid=%u: the members' caches are off (cache=off); a controller's "
				"cache is raid-cache=", s->raid_level);
		if (s->raid_chunk < s->phys_sector)
			return ap_error_set(e, EINVAL, "chunk %llu: smaller than the members' "
					    "physical sector %u", (unsigned long long)s->raid_chunk,
					    s->phys_sector);
	} else if (s->raid_cache) {
		return ap_error_set(e, EINVAL,
				    "raid-cache: only a parity RAID volume (raid=5 or 6) has one");
	}
	if (s->thin_unit) {
		if (s->thin_sub && s->thin_unit % (32 * 512))
			return ap_error_set(e, EINVAL, "thin-sub: the unit (%llu) must be a "
					    "multiple of 16 KiB (32 subclusters of 512 bytes or more)",
					    (unsigned long long)s->thin_unit);
		if (s->capacity / s->thin_unit >= AP_EMU_THIN_UNITS_MAX)
			return ap_error_set(e, EINVAL, "thin=%llu: more than %llu units in %llu bytes "
					    "(a larger unit or a smaller size)",
					    (unsigned long long)s->thin_unit,
					    (unsigned long long)AP_EMU_THIN_UNITS_MAX,
					    (unsigned long long)s->capacity);
		if (s->thin_pool && s->thin_pool < s->thin_unit)
			return ap_error_set(e, EINVAL, "thin-pool %llu: smaller than one unit (%llu)",
					    (unsigned long long)s->thin_pool,
					    (unsigned long long)s->thin_unit);
	} else if (s->thin_sub || s->thin_pool) {
		return ap_error_set(e, EINVAL,
				    "thin-sub, thin-pool: only a thin volume (thin=SIZE) has them");
	}
	if (s->claim_opt_io && s->claim_min_io && s->claim_opt_io % s->claim_min_io)
		return ap_error_set(e, EINVAL, "opt-io %llu: not a multiple of min-io %llu",
				    (unsigned long long)s->claim_opt_io,
				    (unsigned long long)s->claim_min_io);
	return 0;
}

void ap_emu_spec_format_volume(const struct ap_emu_spec *s, char *buf, size_t sz)
{
	int n = 0;

	buf[0] = '\0';
	if (s->raid_level)
		n += snprintf(buf + n, sz - (size_t)n, ",raid=%u,members=%u,chunk=%llu",
			      s->raid_level, s->raid_members, (unsigned long long)s->raid_chunk);
	if (s->raid_cache && (size_t)n < sz)
		n += snprintf(buf + n, sz - (size_t)n, ",raid-cache=%llu",
			      (unsigned long long)s->raid_cache);
	if (s->thin_unit && (size_t)n < sz) {
		char alloc[32];

		ap_emu_fmt_ns(alloc, sizeof(alloc), s->thin_alloc_ns);
		n += snprintf(buf + n, sz - (size_t)n, ",thin=%llu,thin-sub=%s,thin-alloc=%s,"
			      "thin-copy=%llu", (unsigned long long)s->thin_unit,
			      s->thin_sub ? "on" : "off", alloc,
			      (unsigned long long)s->thin_copy_rate);
		if (s->thin_pool && (size_t)n < sz)
			n += snprintf(buf + n, sz - (size_t)n, ",thin-pool=%llu",
				      (unsigned long long)s->thin_pool);
	}
	if (s->claim_min_io && (size_t)n < sz)
		n += snprintf(buf + n, sz - (size_t)n, ",min-io=%llu",
			      (unsigned long long)s->claim_min_io);
	if (s->claim_opt_io && (size_t)n < sz)
		snprintf(buf + n, sz - (size_t)n, ",opt-io=%llu", (unsigned long long)s->claim_opt_io);
}
