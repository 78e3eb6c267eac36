// SPDX-License-Identifier: GPL-2.0-or-later
/* What to run next for the geometry in force (see nextsteps.h). */
#include "device/nextsteps.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "lib/align.h"
#include "lib/json.h"
#include "lib/levels.h"
#include "lib/util.h"

#define MAX_WORDS	16
#define XFS_MAX_SECTOR	32768u
#define XFS_FEW_AGS_BYTES	(1024ULL * 1024 * 1024)

void ap_next_steps_init(struct ap_next_steps *s)
{
	memset(s, 0, sizeof(*s));
}

void ap_next_steps_free(struct ap_next_steps *s)
{
	size_t i, k;

	for (i = 0; i < s->n; i++) {
		for (k = 0; s->v[i].argv && s->v[i].argv[k]; k++)
			free(s->v[i].argv[k]);
		free(s->v[i].argv);
		free(s->v[i].why);
		free(s->v[i].input);
	}
	free(s->v);
	ap_next_steps_init(s);
}

/* Add a step: the words of @argv up to NULL, copied. */
static struct ap_next_step *add(struct ap_next_steps *s, unsigned partno, bool rewrites,
				const char *input, const char *const *argv, const char *why, ...)
	__attribute__((format(printf, 6, 7)));

static struct ap_next_step *add(struct ap_next_steps *s, unsigned partno, bool rewrites,
				const char *input, const char *const *argv, const char *why, ...)
{
	struct ap_next_step *st;
	va_list ap;
	size_t n = 0, i;

	while (argv[n])
		n++;
	s->v = ap_xreallocarray(s->v, s->n + 1, sizeof(*s->v));
	st = &s->v[s->n++];
	memset(st, 0, sizeof(*st));
	st->argv = ap_xcalloc(n + 1, sizeof(*st->argv));
	for (i = 0; i < n; i++)
		st->argv[i] = ap_xstrdup(argv[i]);
	st->input = input ? ap_xstrdup(input) : NULL;
	st->rewrites = rewrites;
	st->partition = partno;
	va_start(ap, why);
	if (vasprintf(&st->why, why, ap) < 0)
		st->why = NULL;
	va_end(ap);
	if (!st->why)
		st->why = ap_xstrdup("");
	return st;
}

char *ap_next_partition_device(const char *disk, unsigned partno)
{
	size_t n = strlen(disk);
	char *s;

	ap_xasprintf(&s, "%s%s%u", disk, n && isdigit((unsigned char)disk[n - 1]) ? "p" : "",
		     partno);
	return s;
}

static unsigned log2u(uint64_t v)
{
	unsigned k = 0;

	while (v > 1) {
		v >>= 1;
		k++;
	}
	return k;
}

/* @g's levels: its own, or the unit alone in @tmp. */
static const struct ap_levels *levels_of(const struct ap_next_geometry *g, struct ap_levels *tmp)
{
	struct ap_level l = { .kind = AP_LEVEL_SECTOR, .unit = g->unit,
			      .lowest_aligned_lba = g->lowest_aligned };

	if (g->levels && g->levels->n)
		return g->levels;
	memset(tmp, 0, sizeof(*tmp));
	ap_levels_add(tmp, g->logical, &l, true, NULL);
	return tmp;
}

/* "64k" for whole KiB, else "N" bytes with @suffix ("b" for LVM, "" for mkfs.xfs). */
static void size_word(char *buf, size_t sz, uint64_t bytes, const char *suffix)
{
	if (bytes % 1024 == 0)
		snprintf(buf, sz, "%" PRIu64 "k", bytes / 1024);
	else
		snprintf(buf, sz, "%" PRIu64 "%s", bytes, suffix);
}

/* The stripe's chunk and its data disks: su, sw (sw 1, su the stripe, without a chunk). */
static bool stripe_of(const struct ap_levels *ls, uint64_t *su, uint64_t *sw)
{
	const struct ap_level *st = ap_levels_find(ls, AP_LEVEL_STRIPE);
	const struct ap_level *ch = ap_levels_find(ls, AP_LEVEL_CHUNK);

	if (!st && !ch)
		return false;
	if (st && ch && st->unit % ch->unit == 0) {
		*su = ch->unit;
		*sw = st->unit / ch->unit;
	} else {
		*su = st ? st->unit : ch->unit;
		*sw = 1;
	}
	return *su % 4096 == 0;		/* whole 4 KiB blocks, as both mkfs need */
}

/* mkfs.xfs (sectors, stripe) and mkfs.ext4 (stripe) for @target of @bytes (0 unknown). */
static void mkfs_steps(struct ap_next_steps *s, const struct ap_next_geometry *g,
		       const struct ap_levels *ls, unsigned partno, const char *target,
		       uint64_t bytes, const char *where)
{
	const char *argv[MAX_WORDS];
	char xfs[32], su[96], ext[80], chunk[32];
	uint64_t u, w;
	bool stripe = stripe_of(ls, &u, &w), sect = g->unit > g->logical && g->unit <= XFS_MAX_SECTOR;
	size_t n = 0;

	if ((sect || stripe) && (!bytes || bytes >= AP_XFS_MIN_BYTES)) {
		argv[n++] = "mkfs.xfs";
		if (sect) {
			snprintf(xfs, sizeof(xfs), "size=%" PRIu64, g->unit);
			argv[n++] = "-s";
			argv[n++] = xfs;
		}
		if (stripe) {
			/*
			 * Under 1 GiB mkfs.xfs makes more, smaller allocation
			 * groups for a stripe, too small for the 64 MiB log it
			 * requires ("Log size must be at least 64MB" on 512 MiB):
			 * four, as without a stripe.
			 */
			size_word(chunk, sizeof(chunk), u, "");
			snprintf(su, sizeof(su), "su=%s,sw=%" PRIu64 "%s", chunk, w,
				 bytes && bytes < XFS_FEW_AGS_BYTES ? ",agcount=4" : "");
			argv[n++] = "-d";
			argv[n++] = su;
		}
		argv[n++] = target;
		argv[n] = NULL;
		add(s, partno, true, NULL, argv, "an XFS file system %s:%s%s%s", where,
		    sect ? " sectors of the physical sector's size, so that its log and metadata "
			   "writes never cover part of one" : "", sect && stripe ? ";" : "",
		    stripe ? " its stripe unit and width the RAID's, so that it writes whole "
			     "stripes" : "");
	}
	if (stripe) {
		snprintf(ext, sizeof(ext), "stride=%" PRIu64 ",stripe_width=%" PRIu64, u / 4096,
			 u * w / 4096);
		add(s, partno, true, NULL, (const char *const[]){ "mkfs.ext4", "-b", "4096", "-E",
			ext, target, NULL }, "an ext4 file system %s: 4 KiB blocks, a stride of "
		    "the chunk and a stripe width of the stripe, so that it writes whole "
		    "stripes", where);
	}
}

/* zpool, mkfs.xfs, mkfs.ext4 and pvcreate for the levels, on @target of @bytes (0 unknown). */
static void fs_steps(struct ap_next_steps *s, const struct ap_next_geometry *g, unsigned partno,
		     const char *target, uint64_t bytes, const char *where)
{
	struct ap_levels tmp;
	const struct ap_levels *ls = levels_of(g, &tmp);
	uint64_t lcm = ap_levels_lcm(ls, 0);
	char ashift[32], align[32];

	if (g->unit <= g->logical && !ap_levels_above_sector(ls))
		return;		/* the logical sector is the unit: every tool's default fits */
	if (g->unit > g->logical) {
		snprintf(ashift, sizeof(ashift), "ashift=%u", log2u(g->unit));
		add(s, partno, true, NULL, (const char *const[]){ "zpool", "create", "-o", ashift,
			"POOL", target, NULL }, "a ZFS pool %s: ashift %u writes whole %" PRIu64
		    "-byte physical sectors (ZFS takes the reported %u bytes otherwise)", where,
		    log2u(g->unit), g->unit, g->logical);
	}
	mkfs_steps(s, g, ls, partno, target, bytes, where);
	if (!lcm)
		return;
	size_word(align, sizeof(align), lcm, "b");
	add(s, partno, true, NULL, (const char *const[]){ "pvcreate", "--dataalignment", align,
		target, NULL }, "an LVM physical volume %s: its extents start on a %" PRIu64
	    "-byte boundary%s", where, lcm, ap_levels_above_sector(ls) ?
	    ", a multiple of every level" : "");
}

void ap_next_steps_partition(struct ap_next_steps *s, const struct ap_next_geometry *g,
			     unsigned partno, uint64_t start, uint64_t size, uint64_t lower,
			     uint64_t upper)
{
	struct ap_levels tmp;
	const struct ap_levels *ls = levels_of(g, &tmp);
	uint64_t period = g->logical ? ap_levels_lcm(ls, 0) / g->logical : 0;
	uint64_t next = ap_levels_start(ls, g->logical, start), to = 0;
	uint64_t near = ap_levels_next(ls, g->logical, 0, start);
	char nr[16], input[48], offset[32], align[32], *part;

	if (!period || next == UINT64_MAX || next == start || near == UINT64_MAX)
		return;
	snprintf(nr, sizeof(nr), "%u", partno);
	/*
	 * Forward where the space after it allows; else back, where the free
	 * space before it is a whole MiB (libfdisk, which sfdisk moves with,
	 * does not see free areas smaller than its 1 MiB grain).
	 */
	if (next <= upper && size <= upper - next)
		to = next;
	else if (near >= period && near - period >= lower &&
		 start - lower >= (1024 * 1024) / g->logical)
		to = near - period;
	if (to) {
		/* the size too: sfdisk -N would otherwise take all the room there is */
		snprintf(input, sizeof(input), "%" PRIu64 ",%" PRIu64 "\n", to, size);
		add(s, partno, true, input, (const char *const[]){ "sfdisk", "--move-data", g->disk,
			"-N", nr, NULL }, "move partition %u with its data from sector %" PRIu64 " to "
			"%" PRIu64 ", %s: sfdisk copies the data (back up first; not while it is "
			"mounted)", partno, start, to, to > start ? "the next aligned start" :
			"the aligned start before it (no room after it)");
	}
	if (!g->is_blockdev)
		return;		/* an image's partitions have no device to make a volume on */
	part = ap_next_partition_device(g->disk, partno);
	/* in bytes ("b"): the offset is rarely a whole KiB */
	snprintf(offset, sizeof(offset), "%" PRIu64 "b", (near - start) * g->logical);
	snprintf(align, sizeof(align), "%" PRIu64 "b", period * g->logical);
	add(s, partno, true, NULL, (const char *const[]){ "pvcreate", "--dataalignment", align,
		"--dataalignmentoffset", offset, part, NULL }, "or, for a new LVM physical volume "
		"on partition %u where it stands: its extents start on %s boundaries although "
		"the partition does not (offset %" PRIu64 " sectors)", partno,
		ap_levels_above_sector(ls) ? "every level's" : "physical sector", near - start);
	fs_steps(s, g, partno, part, size * g->logical,
		 "on it instead, once it starts aligned (a new one: its data is lost)");
	free(part);
}

void ap_next_steps_disk(struct ap_next_steps *s, const struct ap_next_geometry *g)
{
	struct ap_levels tmp;
	const struct ap_levels *ls;
	uint64_t mib, first, zero;
	char start[32], *part;

	if (!g->logical || g->unit < g->logical)
		return;
	ls = levels_of(g, &tmp);
	mib = (1024 * 1024) / g->logical;
	first = ap_levels_start(ls, g->logical, mib);
	if (first == UINT64_MAX)
		return;
	snprintf(start, sizeof(start), "%" PRIu64 "s", first);
	add(s, 0, true, NULL, (const char *const[]){ "parted", "-s", "-a", "none", g->disk, "unit",
		"s", "mkpart", "primary", start, "100%", NULL }, "a new partition at sector %"
		PRIu64 ", the first %s start from 1 MiB%s (on a labelled disk with free "
		"space there)", first, ap_levels_above_sector(ls) ? "whole-MiB start aligned to "
		"every level" : "aligned", first == mib ? "" : " (1 MiB is not aligned on this drive)");
	zero = ap_levels_next(ls, g->logical, 0, 0);
	if (zero == 0) {
		fs_steps(s, g, 0, g->disk, g->nsectors * g->logical,
			 "on the whole disk (or on a partition that starts aligned)");
		return;
	}
	/* byte 0 is not aligned: nothing on the whole disk but an offset volume */
	if (zero != UINT64_MAX && g->is_blockdev) {
		char align[32], offset[32];

		size_word(align, sizeof(align), ap_levels_lcm(ls, 0), "b");
		snprintf(offset, sizeof(offset), "%" PRIu64 "b", zero * g->logical);
		add(s, 0, true, NULL, (const char *const[]){ "pvcreate", "--dataalignment", align,
			"--dataalignmentoffset", offset, g->disk, NULL }, "or an LVM physical "
		    "volume on the whole disk: byte 0 is not aligned (the first aligned LBA is %"
		    PRIu64 "), so its extents start %" PRIu64 " bytes past each boundary", zero,
		    zero * g->logical);
	}
	if (!g->is_blockdev)
		return;
	part = ap_next_partition_device(g->disk, 1);
	fs_steps(s, g, 1, part, g->nsectors > first ? (g->nsectors - first) * g->logical : 0,
		 "on that partition (if it is the first), never on the whole disk: its byte 0 "
		 "is not aligned");
	free(part);
}

struct json_object *ap_next_steps_to_json(const struct ap_next_steps *s)
{
	struct json_object *a = json_object_new_array();
	size_t i, k;

	for (i = 0; i < s->n; i++) {
		const struct ap_next_step *st = &s->v[i];
		struct json_object *o = json_object_new_object(), *argv = json_object_new_array();

		for (k = 0; st->argv[k]; k++)
			json_object_array_add(argv, json_object_new_string(st->argv[k]));
		json_object_object_add(o, "why", json_object_new_string(st->why));
		json_object_object_add(o, "command", argv);
		json_object_object_add(o, "stdin", ap_json_string(st->input));
		json_object_object_add(o, "rewrites", json_object_new_boolean(st->rewrites));
		json_object_object_add(o, "partition", st->partition ? ap_json_u64(st->partition)
				       : NULL);
		json_object_array_add(a, o);
	}
	return a;
}

/* @w quoted for a POSIX shell where it needs it, appended to *@s. */
static void append_word(char **s, const char *w)
{
	bool plain = *w != '\0';
	const char *p;

	for (p = w; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("-_./=:,%+@", *p))
			plain = false;
	if (plain) {
		ap_strappendf(s, " ", "%s", w);
		return;
	}
	ap_strappendf(s, " ", "'");
	for (p = w; *p; p++) {
		if (*p == '\'')
			ap_strappendf(s, NULL, "'\\''");
		else
			ap_strappendf(s, NULL, "%c", *p);
	}
	ap_strappendf(s, NULL, "'");
}

char *ap_next_step_shell(const struct ap_next_step *st)
{
	char *s = NULL;
	size_t k;

	if (st->input) {
		char *in = ap_xstrdup(st->input);
		size_t n = strlen(in);

		if (n && in[n - 1] == '\n')
			in[n - 1] = '\0';
		ap_strappendf(&s, NULL, "printf '%s\\n' |", in);
		free(in);
	}
	for (k = 0; st->argv[k]; k++)
		append_word(&s, st->argv[k]);
	return s;
}
