// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The emulated drive's spec (see model.h): its parameters with their
 * defaults, the named drive profiles, parsing "key=value,..." and profile
 * names, validating, and formatting a spec back. Pure code, always built
 * (the model and the commands use it with or without the FUSE server).
 */
#include "emu/model.h"
#include "emu/emuP.h"
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
	s->ra_segments = 1;
	ap_emu_spec_init_volume(s);
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
	{ "flash-8k", "model=flash,phys=8K,lba=0,base=100us,rmw=30us,bus=400MB,jitter=15%,cache=off" },
	{ "flash-16k", "model=flash,phys=16K,lba=0,base=100us,rmw=30us,bus=400MB,jitter=15%,cache=off" },
	/* a USB bridge presenting a 5400 rpm disk with 4096-byte logical sectors */
	{ "usb-4kn", "model=hdd,logical=4096,phys=4096,lba=0,rpm=5400,track=1228800,settle=1500us,"
		     "seek=20ms,knee=30%,base=100us,bus=300MB,cache=on,cache-size=64M" },
	/* a 512n disk: what it reports is what it has */
	{ "honest-512n", "model=hdd,phys=512,lba=0,rpm=7200,track=1250304,settle=1ms,seek=16ms,"
			 "knee=30%,base=50us,bus=300MB,cache=on,cache-size=64M" },
	/* what real drives add (issue 26): hdd-7200 without its write cache */
	{ "hdd-7200-nocache", "hdd-7200,cache=off" },
	/* and flushes that still arrive and cost a revolution and a seek (issue 34) */
	{ "hdd-7200-nocache-flush", "hdd-7200,cache=off,flush=rev+seek" },
	/* hdd-7200 and honest-512n reading ahead 1 MiB into 4 segments */
	{ "hdd-7200-ra", "hdd-7200,ra=1M,ra-segments=4" },
	{ "honest-512n-ra", "honest-512n,ra=1M,ra-segments=4" },
	/* 4096/LBA 7, cache off, a buffer that serves the RMW of 256 recent sectors */
	{ "hdd-lba7-rmwbuf", "hdd-7200,lba=7,cache=off,rmw-buffer=256" },
	/* a USB bridge whose write cache acknowledges flushes without writing */
	{ "usb-bridge-noflush", "model=hdd,phys=4096,lba=0,rpm=5400,track=1228800,settle=1500us,"
				"seek=20ms,knee=30%,base=100us,bus=300MB,cache=on,cache-size=64M,"
				"ignore-flush=on" },
	/* an honest 512n drive under noise: constant costs, 30 % jitter */
	{ "noisy-512n", "model=simple,phys=512,lba=0,base=200us,rmw=8ms,jitter=30%" },
	/* issue 33: a hardware RAID 5 of four hdd-7200 disks, an unreported 192 KiB stripe */
	{ "raid5-4x64k", "model=hdd,phys=4096,lba=0,rpm=7200,track=1250304,settle=1ms,seek=16ms,"
			 "knee=30%,base=50us,bus=300MB,cache=off,raid=5,members=4,chunk=64K" },
	/* md RAID 6 of six 512n disks, 128 KiB chunks: 512 KiB stripes, reported as md does */
	{ "raid6-6x128k", "model=hdd,phys=512,lba=0,rpm=7200,track=1250304,settle=1ms,seek=16ms,"
			  "knee=30%,base=50us,bus=300MB,cache=off,raid=6,members=6,chunk=128K,"
			  "min-io=128K,opt-io=512K" },
	/* raid5-4x64k behind a controller's 512 MiB battery-backed write-back cache */
	{ "raid5-bbu", "raid5-4x64k,raid-cache=512M" },
	/* a qcow2 overlay (64 KiB clusters) on flash: first writes allocate and copy */
	{ "thin-64k", "model=flash,phys=512,lba=0,base=50us,rmw=0,bus=1GB,jitter=10%,cache=off,"
		      "thin=64K,thin-alloc=100us,thin-copy=100MB" },
	/* a thin volume of 1 MiB units (dm-thin, VDI) on flash */
	{ "thin-1m", "model=flash,phys=512,lba=0,base=80us,rmw=0,bus=500MB,jitter=10%,cache=off,"
		     "thin=1M,thin-alloc=200us,thin-copy=200MB" },
	/* issue 35: CMR without TRIM; DM-SMR (WD40EFAX-like) with and without TRIM; a hybrid
	 * (SSHD). The persistent caches are scaled to the emulated capacity. */
	{ "cmr-7200", "hdd-7200,trim=off" },
	{ "smr-trim", "model=hdd,phys=4096,lba=0,rpm=5400,track=1228800,settle=1500us,seek=20ms,"
		      "knee=30%,base=50us,bus=300MB,cache=on,cache-size=64M,pcache=256M,"
		      "pcache-cost=300us,pcache-rate=150MB,band=32M,clean-idle=1s,trim=on" },
	{ "smr-notrim", "smr-trim,trim=off" },
	{ "sshd", "model=hdd,phys=4096,lba=0,rpm=5400,track=1228800,settle=1500us,seek=20ms,"
		  "knee=30%,base=50us,bus=300MB,cache=on,cache-size=64M,pcache=256M,"
		  "pcache-cost=100us,pcache-rate=200MB,band=0,clean-idle=5s,trim=off" },
};

const char *ap_emu_profile_spec(const char *name)
{
	size_t i;

	for (i = 0; i < AP_ARRAY_SIZE(profiles); i++)
		if (strcmp(profiles[i].name, name) == 0)
			return profiles[i].spec;
	return NULL;
}

bool ap_emu_spec_names_profile(const char *spec)
{
	char *copy = ap_xstrdup(spec), *tok, *save = copy;
	bool found = false;

	while (!found && (tok = strsep(&save, ",")))
		found = ap_emu_profile_spec(strncmp(tok, "profile=", 8) ? tok : tok + 8) != NULL;
	free(copy);
	return found;
}

const char *ap_emu_profile_names(void)
{
	static char *names;	/* built once from the table, kept for the process */
	size_t i, len = 0;

	if (names)
		return names;
	for (i = 0; i < AP_ARRAY_SIZE(profiles); i++)
		len += strlen(profiles[i].name) + 2;
	names = ap_xcalloc(len + 1, 1);
	for (i = 0; i < AP_ARRAY_SIZE(profiles); i++) {
		if (i)
			strcat(names, ", ");
		strcat(names, profiles[i].name);
	}
	return names;
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
	s->cut_at = keep.cut_at;
	s->cut_peer = keep.cut_peer;
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
	free(s->cut_peer);
	s->cut_peer = NULL;
}

int ap_emu_parse_bool(const char *v, bool *out)
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
int ap_emu_parse_cost(const char *v, uint64_t *ns)
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

static int bad_size(const char *key, const char *val, struct ap_error *e)
{
	return ap_error_set(e, EINVAL, "%s '%s': not a size (e.g. 4096, 4K, 1G)", key, val);
}

/*
 * The setters of ap_emu_spec_set(): @key is the name given (an alias
 * included), @val never NULL; 0, or a negative errno with @e set.
 */
static int set_capacity(struct ap_emu_spec *s, const char *key, const char *val,
			struct ap_error *e)
{
	uint64_t u;

	if (ap_parse_size(val, &u) != 0)
		return bad_size(key, val, e);
	s->capacity = u;
	s->capacity_set = true;
	return 0;
}

static int set_phys(struct ap_emu_spec *s, const char *key, const char *val, struct ap_error *e)
{
	uint64_t u;

	if (ap_parse_size(val, &u) != 0)
		return bad_size(key, val, e);
	if (u < 512 || u > 65536 || !ap_is_power_of_2(u))
		return ap_error_set(e, EINVAL,
			"%s '%s': the physical sector size must be a power of two from 512 to 65536",
			key, val);
	s->phys_sector = (uint32_t)u;
	return 0;
}

static int set_lba(struct ap_emu_spec *s, const char *key, const char *val, struct ap_error *e)
{
	uint32_t v;

	if (ap_parse_u32(val, &v) != 0)
		return ap_error_set(e, EINVAL, "%s '%s': not a sector number", key, val);
	s->lowest_aligned = v;
	return 0;
}

/* rmw, base, flush: the cost of a request */
static int set_request_cost(struct ap_emu_spec *s, const char *key, const char *val,
			    struct ap_error *e)
{
	uint64_t u;

	if (key[0] == 'f' && strcmp(val, "ignore") == 0) {
		s->ignore_flush = true;		/* flush=ignore: ignore-flush=on */
		return 0;
	}
	if (key[0] == 'f' && strcmp(val, "rev+seek") == 0) {
		s->flush_media = true;		/* model.h: a revolution and a seek */
		s->flush_ns = 0;
		return 0;
	}
	if (ap_emu_parse_cost(val, &u) != 0)
		return ap_error_set(e, EINVAL,
			"%s '%s': not a duration (use a unit: 8ms, 300us, 0)", key, val);
	if (u > 10 * AP_NSEC_PER_SEC)
		return ap_error_set(e, EINVAL, "%s '%s': more than 10s per request", key, val);
	if (key[0] == 'r')
		s->rmw_ns = u;
	else if (key[0] == 'f') {
		s->flush_ns = u;
		s->flush_media = false;
	}
	else
		s->base_ns = u;
	return 0;
}

static int set_jitter(struct ap_emu_spec *s, const char *key, const char *val,
		      struct ap_error *e)
{
	(void)key;
	if (ap_parse_fraction(val, 1.0, &s->jitter) != 0)
		return ap_error_set(e, EINVAL,
			"jitter '%s': not a fraction between 0 and 100%%", val);
	return 0;
}

static int set_seed(struct ap_emu_spec *s, const char *key, const char *val, struct ap_error *e)
{
	(void)key;
	if (ap_parse_u64(val, &s->seed) != 0)
		return ap_error_set(e, EINVAL, "seed '%s': not a number", val);
	return 0;
}

static int set_cache(struct ap_emu_spec *s, const char *key, const char *val, struct ap_error *e)
{
	if (ap_emu_parse_bool(*val ? val : "on", &s->write_cache) != 0)
		return ap_error_set(e, EINVAL, "%s '%s': expected on or off", key, val);
	return 0;
}

/* fail=LBA or LBA+COUNT */
static int set_fail(struct ap_emu_spec *s, const char *key, const char *val, struct ap_error *e)
{
	char *tmp = ap_xstrdup(val), *plus = strchr(tmp, '+');
	int rc = 0;

	(void)key;
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
	return 0;
}

static int set_fail_lba(struct ap_emu_spec *s, const char *key, const char *val,
			struct ap_error *e)
{
	(void)key;
	if (ap_parse_u64(val, &s->fail_lba) != 0)
		return ap_error_set(e, EINVAL, "fail-lba '%s': not a sector number", val);
	if (!s->fail_count)
		s->fail_count = 1;
	return 0;
}

static int set_fail_count(struct ap_emu_spec *s, const char *key, const char *val,
			  struct ap_error *e)
{
	(void)key;
	if (ap_parse_u64(val, &s->fail_count) != 0 || s->fail_count == 0)
		return ap_error_set(e, EINVAL, "fail-count '%s': not a positive number", val);
	return 0;
}

static int set_fail_rw(struct ap_emu_spec *s, const char *key, const char *val,
		       struct ap_error *e)
{
	(void)key;
	if (strcmp(val, "r") == 0)
		s->fail_reads = true, s->fail_writes = false;
	else if (strcmp(val, "w") == 0)
		s->fail_reads = false, s->fail_writes = true;
	else if (strcmp(val, "rw") == 0 || strcmp(val, "wr") == 0)
		s->fail_reads = s->fail_writes = true;
	else
		return ap_error_set(e, EINVAL, "fail-rw '%s': expected r, w or rw", val);
	return 0;
}

static int set_fail_after(struct ap_emu_spec *s, const char *key, const char *val,
			  struct ap_error *e)
{
	(void)key;
	if (ap_parse_u64(val, &s->fail_after) != 0 || s->fail_after == 0)
		return ap_error_set(e, EINVAL, "fail-after '%s': not a positive number", val);
	return 0;
}

static int set_profile(struct ap_emu_spec *s, const char *key, const char *val,
		       struct ap_error *e)
{
	(void)key;
	return ap_emu_spec_profile(s, val, e);
}

static int set_model(struct ap_emu_spec *s, const char *key, const char *val, struct ap_error *e)
{
	size_t i;

	(void)key;
	for (i = 0; i < AP_ARRAY_SIZE(model_names); i++)
		if (strcmp(val, model_names[i]) == 0)
			break;
	if (i == AP_ARRAY_SIZE(model_names))
		return ap_error_set(e, EINVAL, "model '%s': expected simple, hdd or flash", val);
	s->model = (enum ap_emu_model_kind)i;
	return 0;
}

static int set_logical(struct ap_emu_spec *s, const char *key, const char *val,
		       struct ap_error *e)
{
	uint64_t u;

	if (ap_parse_size(val, &u) != 0 || u < 512 || u > 4096 || !ap_is_power_of_2(u))
		return ap_error_set(e, EINVAL,
			"%s '%s': the logical sector size must be 512, 1024, 2048 or 4096",
			key, val);
	s->logical_sector = (uint32_t)u;
	return 0;
}

static int set_rpm(struct ap_emu_spec *s, const char *key, const char *val, struct ap_error *e)
{
	uint32_t v;

	(void)key;
	if (ap_parse_u32(val, &v) != 0 || v < 60 || v > 100000)
		return ap_error_set(e, EINVAL, "rpm '%s': expected 60 to 100000", val);
	s->rpm = v;
	return 0;
}

/* disk, track, cache-size, bus: the sizes of the hdd and flash models */
static int set_model_size(struct ap_emu_spec *s, const char *key, const char *val,
			  struct ap_error *e)
{
	uint64_t u;

	if (ap_parse_size(val, &u) != 0)
		return bad_size(key, val, e);
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
	return 0;
}

/* settle, seek: the head's times */
static int set_head_time(struct ap_emu_spec *s, const char *key, const char *val,
			 struct ap_error *e)
{
	uint64_t u;

	if (ap_emu_parse_cost(val, &u) != 0)
		return ap_error_set(e, EINVAL,
			"%s '%s': not a duration (use a unit: 1ms, 300us, 0)", key, val);
	if (u > AP_NSEC_PER_SEC)
		return ap_error_set(e, EINVAL, "%s '%s': more than 1s", key, val);
	if (key[1] == 'e' && key[2] == 't')
		s->settle_ns = u;
	else
		s->seek_ns = u;
	return 0;
}

static int set_knee(struct ap_emu_spec *s, const char *key, const char *val, struct ap_error *e)
{
	(void)key;
	if (ap_parse_fraction(val, 1.0, &s->knee) != 0 || s->knee <= 0 || s->knee >= 1)
		return ap_error_set(e, EINVAL,
			"knee '%s': a fraction of the full stroke, above 0 and below 100%%", val);
	return 0;
}

static int set_ra(struct ap_emu_spec *s, const char *key, const char *val, struct ap_error *e)
{
	uint64_t u;

	if (ap_parse_size(val, &u) != 0)
		return bad_size(key, val, e);
	if (u > (1ULL << 30))
		return ap_error_set(e, EINVAL, "%s '%s': more than 1 GiB", key, val);
	s->ra_size = u;
	return 0;
}

/* ra-segments, rmw-buffer: counts */
static int set_count(struct ap_emu_spec *s, const char *key, const char *val, struct ap_error *e)
{
	uint32_t v, lo = key[1] == 'a' ? 1 : 0;
	uint32_t hi = key[1] == 'a' ? AP_EMU_RA_SEGMENTS_MAX : AP_EMU_RMW_BUFFER_MAX;

	if (ap_parse_u32(val, &v) != 0 || v < lo || v > hi)
		return ap_error_set(e, EINVAL, "%s '%s': expected %u to %u", key, val, lo, hi);
	if (key[1] == 'a')
		s->ra_segments = v;
	else
		s->rmw_buffer = v;
	return 0;
}

static int set_ignore_flush(struct ap_emu_spec *s, const char *key, const char *val,
			    struct ap_error *e)
{
	if (ap_emu_parse_bool(*val ? val : "on", &s->ignore_flush) != 0)
		return ap_error_set(e, EINVAL, "%s '%s': expected on or off", key, val);
	return 0;
}

static int set_cut_after(struct ap_emu_spec *s, const char *key, const char *val,
			 struct ap_error *e)
{
	uint64_t n;

	if (ap_parse_u64(val, &n) != 0 || n == UINT64_MAX)
		return ap_error_set(e, EINVAL, "%s '%s': not a number of writes", key, val);
	s->cut_at = n + 1;	/* 0: the first write is in flight */
	return 0;
}

static int set_cut_peer(struct ap_emu_spec *s, const char *key, const char *val,
			struct ap_error *e)
{
	if (strncmp(val, "/dev/", 5) != 0)
		return ap_error_set(e, EINVAL, "%s '%s': not a device (/dev/loopN)", key, val);
	free(s->cut_peer);
	s->cut_peer = ap_xstrdup(val);
	return 0;
}

static int set_image(struct ap_emu_spec *s, const char *key, const char *val, struct ap_error *e)
{
	(void)key;
	if (!*val)
		return ap_error_set(e, EINVAL, "image: empty file name");
	free(s->image);
	s->image = ap_xstrdup(val);
	return 0;
}

/* The model the drive states: what a drive's IDENTIFY holds (40 printable characters). */
static int set_drive_model(struct ap_emu_spec *s, const char *key, const char *val,
			   struct ap_error *e)
{
	size_t i, n = strlen(val);

	for (i = 0; i < n; i++)
		if (val[i] < 0x20 || val[i] > 0x7e || val[i] == ':')
			break;
	if (!n || n >= sizeof(s->drive_model) || i < n || val[0] == ' ' || val[n - 1] == ' ')
		return ap_error_set(e, EINVAL, "%s '%s': 1 to %zu printable ASCII characters, "
				    "no colon, no leading or trailing blank", key, val,
				    sizeof(s->drive_model) - 1);
	snprintf(s->drive_model, sizeof(s->drive_model), "%s", val);
	return 0;
}

void ap_emu_drive_model(const struct ap_emu_spec *s, char *buf, size_t len)
{
	struct ap_emu_spec own;
	struct ap_error e = { 0 };
	bool geometry = true;
	int n;
	char *p;

	if (s->drive_model[0]) {
		snprintf(buf, len, "%s", s->drive_model);
		return;
	}
	if (s->profile[0]) {
		ap_emu_spec_init(&own);
		if (ap_emu_spec_profile(&own, s->profile, &e) == 0)
			geometry = own.phys_sector != s->phys_sector ||
				   own.lowest_aligned != s->lowest_aligned ||
				   own.logical_sector != s->logical_sector;
	}
	n = snprintf(buf, len, "EMU-%s", s->profile[0] ? s->profile : model_names[s->model]);
	if (geometry && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "-%u-L%u", s->phys_sector,
			      s->lowest_aligned);
	if (geometry && s->logical_sector != 512 && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "-LS%u", s->logical_sector);
	for (p = buf; *p; p++)
		if (*p >= 'a' && *p <= 'z')
			*p = (char)(*p - 'a' + 'A');
}

/*
 * The keys of a spec, in the order the error for an unknown one lists them;
 * @opt: the name (OPT_NAME) and/or the alias (OPT_ALIAS) is also a long
 * option of `emulate --attach` (ap_emu_spec_option()).
 */
#define OPT_NAME	1
#define OPT_ALIAS	2
static const struct spec_key {
	const char *name, *alias;
	int (*set)(struct ap_emu_spec *s, const char *key, const char *val, struct ap_error *e);
	unsigned opt;
} spec_keys[] = {
	{ "profile", NULL, set_profile, OPT_NAME },
	{ "model", NULL, set_model },
	{ "size", "capacity", set_capacity, OPT_NAME },
	{ "logical", "logical-sector", set_logical, OPT_NAME },
	{ "phys", "physical", set_phys, OPT_NAME },
	{ "lba", "lowest-aligned", set_lba, OPT_NAME | OPT_ALIAS },
	{ "rmw", "rmw-cost", set_request_cost, OPT_ALIAS },
	{ "base", "base-cost", set_request_cost, OPT_ALIAS },
	{ "flush", "flush-cost", set_request_cost, OPT_ALIAS },
	{ "jitter", NULL, set_jitter, OPT_NAME },
	{ "seed", NULL, set_seed, OPT_NAME },
	{ "cache", "write-cache", set_cache, OPT_ALIAS },
	{ "rpm", NULL, set_rpm },
	{ "disk", "disk-size", set_model_size },
	{ "track", NULL, set_model_size },
	{ "settle", NULL, set_head_time },
	{ "seek", NULL, set_head_time },
	{ "knee", NULL, set_knee },
	{ "cache-size", NULL, set_model_size },
	{ "bus", NULL, set_model_size },
	{ "ra", "read-ahead", set_ra },
	{ "ra-segments", "ra_segments", set_count },
	{ "rmw-buffer", "rmw_buffer", set_count },
	{ "ignore-flush", NULL, set_ignore_flush },
	{ "cut-after", "power-cut-after", set_cut_after },
	{ "cut-peer", NULL, set_cut_peer },
	{ "fail", NULL, set_fail },
	{ "fail-lba", NULL, set_fail_lba, OPT_NAME },
	{ "fail-count", NULL, set_fail_count, OPT_NAME },
	{ "fail-rw", NULL, set_fail_rw },
	{ "fail-after", NULL, set_fail_after, OPT_NAME },
	{ "image", NULL, set_image, OPT_NAME },
	{ "drive-model", NULL, set_drive_model, OPT_NAME },
};

const char *ap_emu_spec_option(size_t i)
{
	size_t k;

	for (k = 0; k < AP_ARRAY_SIZE(spec_keys); k++) {
		if ((spec_keys[k].opt & OPT_NAME) && i-- == 0)
			return spec_keys[k].name;
		if ((spec_keys[k].opt & OPT_ALIAS) && i-- == 0)
			return spec_keys[k].alias;
	}
	return NULL;
}

int ap_emu_spec_set(struct ap_emu_spec *s, const char *key, const char *val,
		    struct ap_error *e)
{
	char known[1024];
	size_t i, n = 0;
	int rc;

	if (!val)
		val = "";
	for (i = 0; i < AP_ARRAY_SIZE(spec_keys); i++)
		if (key_is(key, spec_keys[i].name, spec_keys[i].alias))
			return spec_keys[i].set(s, key, val, e);
	rc = ap_emu_spec_set_volume(s, key, val, e);	/* the layered volumes' keys */
	if (rc != -ENOENT)
		return rc;
	known[0] = '\0';
	for (i = 0; i < AP_ARRAY_SIZE(spec_keys) && n < sizeof(known); i++)
		n += (size_t)snprintf(known + n, sizeof(known) - n, "%s%s", i ? ", " : "",
				      spec_keys[i].name);
	ap_emu_volume_keys(known + n, sizeof(known) - n);
	return ap_error_set(e, EINVAL, "unknown emulator parameter '%s' (known: %s)", key, known);
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
	if (s->flush_media && s->model != AP_EMU_MODEL_HDD)
		return ap_error_set(e, EINVAL, "flush=rev+seek: only the hdd model has a platter "
				    "(model=hdd)");
	if (s->settle_ns > s->seek_ns)
		return ap_error_set(e, EINVAL, "settle time above the full-stroke seek time");
	if (s->knee <= 0 || s->knee >= 1)
		return ap_error_set(e, EINVAL, "knee %g: must lie above 0 and below 1", s->knee);
	if (s->pcache_size && s->model != AP_EMU_MODEL_HDD)
		return ap_error_set(e, EINVAL, "pcache: a persistent media cache needs model=hdd");
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
	return ap_emu_spec_validate_volume(s, e);
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

void ap_emu_fmt_ns(char *buf, size_t sz, uint64_t ns)
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

/* What real drives add, only where set: the specs of before stay as they were. */
static void format_quirks(const struct ap_emu_spec *s, char *buf, size_t sz)
{
	int n = 0;

	buf[0] = '\0';
	if (s->ra_size)
		n += snprintf(buf + n, sz - (size_t)n, ",ra=%llu,ra-segments=%u",
			      (unsigned long long)s->ra_size, s->ra_segments);
	if (s->rmw_buffer)
		n += snprintf(buf + n, sz - (size_t)n, ",rmw-buffer=%u", s->rmw_buffer);
	if (s->ignore_flush)
		n += snprintf(buf + n, sz - (size_t)n, ",ignore-flush=on");
	if (s->flush_media)
		n += snprintf(buf + n, sz - (size_t)n, ",flush=rev+seek");
	if (s->pcache_size) {
		char cost[32], idle[32];

		ap_emu_fmt_ns(cost, sizeof(cost), s->pcache_ns);
		ap_emu_fmt_ns(idle, sizeof(idle), s->clean_idle_ns);
		n += snprintf(buf + n, sz - (size_t)n,
			      ",pcache=%llu,pcache-cost=%s,pcache-rate=%llu,band=%llu,clean-idle=%s",
			      (unsigned long long)s->pcache_size, cost,
			      (unsigned long long)s->pcache_rate, (unsigned long long)s->band_size,
			      idle);
	}
	if (s->no_trim)
		n += snprintf(buf + n, sz - (size_t)n, ",trim=off");
	if (s->cut_at)
		n += snprintf(buf + n, sz - (size_t)n, ",cut-after=%llu",
			      (unsigned long long)(s->cut_at - 1));
	if (s->cut_peer && (size_t)n < sz)
		snprintf(buf + n, sz - (size_t)n, ",cut-peer=%s", s->cut_peer);
}

char *ap_emu_spec_format(const struct ap_emu_spec *s)
{
	char rmw[32], base[32], flush[32], fail[96] = "", model[320] = "", prof[40] = "";
	char quirks[400] = "", volume[256];
	char *out;
	int n = 0;

	if (s->profile[0])
		snprintf(prof, sizeof(prof), "profile=%s,", s->profile);
	if (s->logical_sector != 512)
		n = snprintf(model, sizeof(model), ",logical=%u", s->logical_sector);
	if (s->model == AP_EMU_MODEL_HDD) {
		char settle[32], seek[32];

		ap_emu_fmt_ns(settle, sizeof(settle), s->settle_ns);
		ap_emu_fmt_ns(seek, sizeof(seek), s->seek_ns);
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

	ap_emu_fmt_ns(rmw, sizeof(rmw), s->rmw_ns);
	ap_emu_fmt_ns(flush, sizeof(flush), s->flush_ns);
	ap_emu_fmt_ns(base, sizeof(base), s->base_ns);
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
	format_quirks(s, quirks, sizeof(quirks));
	ap_emu_spec_format_volume(s, volume, sizeof(volume));
	ap_xasprintf(&out, "%ssize=%llu,phys=%u,lba=%u,rmw=%s,base=%s,jitter=%g%%,seed=%llu,cache=%s,flush=%s%s%s%s%s%s%s",
		     prof, (unsigned long long)s->capacity, s->phys_sector, s->lowest_aligned,
		     rmw, base, s->jitter * 100, (unsigned long long)s->seed,
		     s->write_cache ? "on" : "off", flush, model, quirks, volume, fail,
		     s->drive_model[0] ? ",drive-model=" : "", s->drive_model);
	return out;
}
