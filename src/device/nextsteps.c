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
#include "lib/util.h"

#define MAX_WORDS	16
#define XFS_MAX_SECTOR	32768u

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

/* zpool, mkfs.xfs and pvcreate for the unit, on @target. */
static void fs_steps(struct ap_next_steps *s, const struct ap_next_geometry *g, unsigned partno,
		     const char *target, const char *where)
{
	char ashift[32], xfs[32], align[32];

	if (g->unit <= g->logical)
		return;		/* the logical sector is the unit: every tool's default fits */
	snprintf(ashift, sizeof(ashift), "ashift=%u", log2u(g->unit));
	snprintf(xfs, sizeof(xfs), "size=%" PRIu64, g->unit);
	snprintf(align, sizeof(align), "%" PRIu64 "k", g->unit / 1024);
	add(s, partno, true, NULL, (const char *const[]){ "zpool", "create", "-o", ashift, "POOL",
		target, NULL }, "a ZFS pool %s: ashift %u writes whole %" PRIu64 "-byte physical "
		"sectors (ZFS takes the reported %u bytes otherwise)", where, log2u(g->unit),
		g->unit, g->logical);
	if (g->unit <= XFS_MAX_SECTOR)
		add(s, partno, true, NULL, (const char *const[]){ "mkfs.xfs", "-s", xfs, target,
			NULL }, "an XFS file system %s: %" PRIu64 "-byte sectors, so that its log "
			"and metadata writes never cover part of a physical sector", where, g->unit);
	add(s, partno, true, NULL, (const char *const[]){ "pvcreate", "--dataalignment", align,
		target, NULL }, "an LVM physical volume %s: its extents start on a %" PRIu64
		"-byte boundary", where, g->unit);
}

void ap_next_steps_partition(struct ap_next_steps *s, const struct ap_next_geometry *g,
			     unsigned partno, uint64_t start, uint64_t size, uint64_t lower,
			     uint64_t upper)
{
	uint64_t period = g->logical ? g->unit / g->logical : 0;
	uint64_t next = ap_align_next(start, g->logical, g->unit, g->lowest_aligned), to = 0;
	char nr[16], input[48], offset[32], align[32], *part;

	if (!period || next == UINT64_MAX || next == start)
		return;
	snprintf(nr, sizeof(nr), "%u", partno);
	/*
	 * Forward where the space after it allows; else back, where the free
	 * space before it is a whole MiB (libfdisk, which sfdisk moves with,
	 * does not see free areas smaller than its 1 MiB grain).
	 */
	if (next <= upper && size <= upper - next)
		to = next;
	else if (next >= period && next - period >= lower &&
		 start - lower >= (1024 * 1024) / g->logical)
		to = next - period;
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
	snprintf(offset, sizeof(offset), "%" PRIu64 "b", (next - start) * g->logical);
	snprintf(align, sizeof(align), "%" PRIu64 "b", g->unit);
	add(s, partno, true, NULL, (const char *const[]){ "pvcreate", "--dataalignment", align,
		"--dataalignmentoffset", offset, part, NULL }, "or, for a new LVM physical volume "
		"on partition %u where it stands: its extents start on physical sector "
		"boundaries although the partition does not (offset %" PRIu64 " sectors)", partno,
		next - start);
	fs_steps(s, g, partno, part, "on it instead, once it starts aligned (a new one: its data is lost)");
	free(part);
}

void ap_next_steps_disk(struct ap_next_steps *s, const struct ap_next_geometry *g)
{
	uint64_t mib, first;
	char start[32];

	if (!g->logical || g->unit < g->logical)
		return;
	mib = (1024 * 1024) / g->logical;
	first = ap_align_next(mib, g->logical, g->unit, g->lowest_aligned);
	if (first == UINT64_MAX)
		return;
	snprintf(start, sizeof(start), "%" PRIu64 "s", first);
	add(s, 0, true, NULL, (const char *const[]){ "parted", "-s", "-a", "none", g->disk, "unit",
		"s", "mkpart", "primary", start, "100%", NULL }, "a new partition at sector %"
		PRIu64 ", the first aligned start from 1 MiB%s (on a labelled disk with free "
		"space there)", first, first == mib ? "" : " (1 MiB is not aligned on this drive)");
	fs_steps(s, g, 0, g->disk, "on the whole disk (or on a partition that starts aligned)");
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
