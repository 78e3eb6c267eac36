/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The levels of a storage stack's geometry: the physical sector, a RAID
 * chunk, a RAID stripe, a thin or virtual disk's allocation unit. Each is a
 * unit (bytes, not necessarily a power of two: three data disks of 64 KiB
 * make a 192 KiB stripe), the lowest LBA aligned to it, whether its cost is
 * paid on every write that covers it partly or on the first write only,
 * and the measured ratio (misaligned / aligned; 0 when not measured).
 *
 * A start is aligned when it is aligned to every level; ap_levels_next()
 * is the first such start. The JSON form is the verdict's "levels" array
 * and "ruled_out" object (README, alignprobe(8)):
 *   "levels": [{"kind": "sector"|"chunk"|"stripe"|"allocation",
 *               "unit": BYTES, "lowest_aligned_lba": N,
 *               "paid": "every_write"|"first_write", "ratio": X}, ...]
 *   "ruled_out": {"up_to": BYTES, "first_writes": BOOL, "rewrites": BOOL}
 * ordered by unit; level 0 is the physical sector. Pure; nothing prints.
 */
#ifndef AP_LIB_LEVELS_H
#define AP_LIB_LEVELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/util.h"

struct json_object;

enum ap_level_kind {
	AP_LEVEL_SECTOR = 0,	/* the physical sector */
	AP_LEVEL_CHUNK,		/* a RAID chunk (one member's share of a stripe) */
	AP_LEVEL_STRIPE,	/* a RAID stripe (chunk x data disks) */
	AP_LEVEL_ALLOCATION,	/* a thin/qcow2/VMDK allocation unit */
};

enum ap_level_paid {
	AP_PAID_EVERY_WRITE = 0,	/* a partial write costs every time */
	AP_PAID_FIRST_WRITE,		/* only the first write into the unit costs */
};

struct ap_level {
	enum ap_level_kind kind;
	uint64_t unit;			/* bytes, a multiple of the logical sector */
	uint64_t lowest_aligned_lba;	/* < unit / logical */
	enum ap_level_paid paid;
	double ratio;			/* misaligned / aligned; 0 when not measured */
};

/* Sector, chunk, stripe, allocation unit, and room for a layered stack. */
#define AP_LEVELS_MAX	8
/* The largest unit a level may have (bytes). */
#define AP_LEVEL_UNIT_MAX	(1ULL << 30)

struct ap_levels {
	struct ap_level l[AP_LEVELS_MAX];
	size_t n;
};

/* What a "no effect" covers: units up to @up_to bytes, on first writes,
 * on rewrites. @up_to 0: nothing stated. */
struct ap_ruled_out {
	uint64_t up_to;
	bool first_writes;
	bool rewrites;
};

/*
 * A "no effect" on rewrites alone: first writes measured and not ruled
 * out, where a unit paid on the first write can hide (the probe then
 * leaves out the old key, ruled_out_up_to).
 */
static inline bool ap_ruled_out_rewrites_only(const struct ap_ruled_out *r)
{
	return r->rewrites && !r->first_writes;
}

/* "sector", "chunk", "stripe", "allocation"; and back (-EINVAL). */
const char *ap_level_kind_name(enum ap_level_kind k);
int ap_level_kind_parse(const char *s, enum ap_level_kind *k);
/* "every_write", "first_write"; and back (-EINVAL). */
const char *ap_level_paid_name(enum ap_level_paid p);
int ap_level_paid_parse(const char *s, enum ap_level_paid *p);

/*
 * Add @lv to @ls in the order of units (a level of the same kind and
 * unit replaces the one there). 0; -EINVAL with @e when the unit is 0, not
 * a multiple of @logical, over AP_LEVEL_UNIT_MAX, or its lowest aligned
 * LBA is outside the unit (it is taken mod unit/logical first when
 * @normalise); -ENOSPC when @ls is full.
 */
int ap_levels_add(struct ap_levels *ls, unsigned logical, const struct ap_level *lv,
		  bool normalise, struct ap_error *e);

/* The level of kind @k with the largest unit, or NULL. */
const struct ap_level *ap_levels_find(const struct ap_levels *ls, enum ap_level_kind k);

/* The levels above the physical sector are the same in @a and @b (kind,
 * unit, phase, paid; ratios aside). */
bool ap_levels_same_above(const struct ap_levels *a, const struct ap_levels *b);

/* Index of the first level @lba is not aligned to, or -1 when aligned to all. */
int ap_levels_misaligned(const struct ap_levels *ls, unsigned logical, uint64_t lba);

/*
 * The first LBA >= @lba aligned to every level and to @grain bytes from
 * LBA 0 (a convention such as 1 MiB; 0 for none); UINT64_MAX when no LBA
 * below 2^40 sectors is (levels whose phases exclude each other).
 */
uint64_t ap_levels_next(const struct ap_levels *ls, unsigned logical, uint64_t grain,
			uint64_t lba);

/*
 * The start to propose from @lba: with levels above the physical sector,
 * the first aligned to every level and a whole MiB (the convention
 * partitioning tools keep; 3 MiB for a 192 KiB stripe), else, when the
 * levels' phases exclude whole MiBs, the first aligned to every level;
 * with the physical sector alone, its next boundary. UINT64_MAX: none.
 */
uint64_t ap_levels_start(const struct ap_levels *ls, unsigned logical, uint64_t lba);
/* @ls has levels above the physical sector. */
bool ap_levels_above_sector(const struct ap_levels *ls);
/*
 * The levels above the physical sector in brief, into @buf: "chunk
 * 65536@0, stripe 196608@0", a first-write one marked "allocation
 * 65536@0 first-write"; "" when there are none.
 */
void ap_levels_brief(const struct ap_levels *ls, char *buf, size_t sz);
/*
 * The levels above the physical sector in words, appended to @buf: "a
 * 65536-byte chunk (from LBA 0) and a 196608-byte stripe (from LBA 0)",
 * @first before the first of them ("" or " and ").
 */
void ap_levels_words(const struct ap_levels *ls, const char *first, char *buf, size_t sz);

/* The least common multiple of every level's unit and @grain (bytes);
 * 0 on overflow past AP_LEVEL_UNIT_MAX * 64. */
uint64_t ap_levels_lcm(const struct ap_levels *ls, uint64_t grain);

/* JSON: the "levels" array, the "ruled_out" object (NULL when @r->up_to is 0). */
struct json_object *ap_levels_to_json(const struct ap_levels *ls);
struct json_object *ap_ruled_out_to_json(const struct ap_ruled_out *r);
/*
 * From JSON (as ap_levels_to_json() writes it): every member checked,
 * ordered by unit, at most AP_LEVELS_MAX. 0 or -EINVAL with @e.
 */
int ap_levels_from_json(struct json_object *a, unsigned logical, struct ap_levels *ls,
			struct ap_error *e);
int ap_ruled_out_from_json(struct json_object *o, struct ap_ruled_out *r, struct ap_error *e);

#endif
