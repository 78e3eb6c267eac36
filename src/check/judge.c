// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The check engine's judgement of one device: it is read once (partition
 * table, topology, identity), each partition is judged against the
 * geometries (geom.c), counted, and what to run next is worked out for
 * each misaligned one.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "device/nextsteps.h"
#include "lib/align.h"

int ap_check_read(struct ap_check *c, bool want_id, struct ap_error *e, struct ap_error *id_err)
{
	struct ap_ptable_opts po = { .sector_size = (unsigned)c->sector_size };
	int rc;

	rc = ap_ptable_read_isolated(c->device, &po, &c->pt, e);
	if (!rc)
		rc = ap_topology_read(c->device, &c->topo, e);
	if (rc)
		return rc;
	if (want_id && c->pt.is_blockdev)
		/* who it is: its model for --verdicts, alignprobe_disk_info */
		c->have_id = ap_identity_read_path(c->device, NULL, &c->id, id_err) == 0;
	return 0;
}

static int tristate(const struct ap_geometry *g, uint64_t lba)
{
	if (!g->physical)
		return -1;
	return ap_align_is_aligned(lba, g->logical, g->physical, g->lowest_aligned);
}

void ap_check_judge(const struct ap_check *c, const struct ap_part *p, struct ap_check_verdicts *v)
{
	const struct ap_geometry *f = c->g.in_force;
	unsigned ls = c->pt.sector_size;

	v->reported = tristate(&c->g.reported, p->start);
	v->drive = tristate(&c->g.drive, p->start);
	v->probed = tristate(&c->g.probed, p->start);
	v->mib = ap_align_is_aligned(p->start, ls, AP_MIB, 0);
	v->optio = c->g.optio ? ap_align_is_aligned(p->start, ls, c->g.optio,
							c->g.optio_lowest) : -1;
	v->size_aligned = ap_align_size_is_aligned(p->size, ls, f->physical);
	v->level = ap_levels_misaligned(&f->levels, ls, p->start);
	if (v->level > 0)	/* the sector is fine; a level above it is not */
		v->misalign = ap_align_misalignment(p->start, ls, f->levels.l[v->level].unit,
						    f->levels.l[v->level].lowest_aligned_lba) / ls;
	else
		v->misalign = ap_align_misalignment(p->start, ls, f->physical,
						    f->lowest_aligned) / ls;
	v->next = ap_levels_start(&f->levels, ls, p->start);
	if (p->container || p->role != AP_PART_DATA || c->pt.foreign_sector_size)
		v->aligned = -1;	/* holds no data itself, a by-design entry, or not where meant */
	else
		v->aligned = v->level < 0 && (!c->check_size || v->size_aligned);
}

bool ap_check_whole_disk_misaligned(const struct ap_check *c)
{
	const struct ap_geometry *f = c->g.in_force;

	return c->pt.whole_disk && !c->pt.foreign_sector_size && f && f->physical &&
	       ap_levels_misaligned(&f->levels, c->pt.sector_size, 0) >= 0;
}

void ap_check_count(struct ap_check *c)
{
	size_t i;

	c->nchecked = c->nmisaligned = 0;
	if (c->pt.foreign_sector_size)
		return;		/* the partitions as read here are not the table's */
	if (c->pt.whole_disk) {
		/* a file system on the whole disk starts at byte 0: LBA 0 must be aligned */
		c->nchecked = 1;
		c->nmisaligned = ap_check_whole_disk_misaligned(c);
	}
	for (i = 0; i < c->pt.nparts; i++) {
		struct ap_check_verdicts v;

		ap_check_judge(c, &c->pt.parts[i], &v);
		if (v.aligned < 0)
			continue;
		c->nchecked++;
		if (!v.aligned)
			c->nmisaligned++;
	}
}

/* Where partition @p may move: after its neighbour before it, before the one after it. */
static void room(const struct ap_check *c, const struct ap_part *p, uint64_t *lower,
		 uint64_t *upper)
{
	size_t i;

	*lower = c->pt.first_usable;
	*upper = c->pt.last_usable + 1;
	if (p->logical) {
		/* an extended boot record precedes it: no move is offered */
		*lower = p->start;
		*upper = p->start + p->size;
		return;
	}
	for (i = 0; i < c->pt.nparts; i++) {
		const struct ap_part *q = &c->pt.parts[i];

		if (q == p || q->container)
			continue;
		if (q->start + q->size <= p->start && q->start + q->size > *lower)
			*lower = q->start + q->size;
		if (q->start > p->start && q->start < *upper)
			*upper = q->start;
	}
}

void ap_check_next_steps(struct ap_check *c)
{
	const struct ap_geometry *f = c->g.in_force;
	struct ap_next_geometry g = {
		.disk = c->device, .is_blockdev = c->pt.is_blockdev, .logical = f->logical,
		.unit = f->physical, .lowest_aligned = f->lowest_aligned, .levels = &f->levels,
		.nsectors = c->pt.nsectors,
	};
	size_t i;

	ap_next_steps_init(&c->next);
	if (c->pt.foreign_sector_size || ap_ptable_nerrors(&c->pt) || !f->physical)
		return;
	if (ap_check_whole_disk_misaligned(c) ||
	    (c->pt.label && !c->pt.nparts &&
	     ap_levels_start(&f->levels, f->logical, AP_MIB / f->logical) != AP_MIB / f->logical)) {
		/*
		 * Nothing to move: a new partition at an aligned start (where
		 * the usual 1 MiB is not one), or an offset.
		 */
		ap_next_steps_disk(&c->next, &g);
		return;
	}
	for (i = 0; i < c->pt.nparts; i++) {
		const struct ap_part *p = &c->pt.parts[i];
		uint64_t lower, upper;

		/* a nested label's partition moves with its own label's tools */
		if (p->container || p->parent ||
		    ap_levels_misaligned(&f->levels, f->logical, p->start) < 0)
			continue;
		room(c, p, &lower, &upper);
		ap_next_steps_partition(&c->next, &g, (unsigned)p->partno + 1, p->start, p->size,
					lower, upper);
	}
}

void ap_check_free_device(struct ap_check *c)
{
	ap_ptable_free(&c->pt);
	ap_topology_free(&c->topo);
	ap_identity_free(&c->id);
	ap_next_steps_free(&c->next);
}

bool ap_check_describe_fault(const struct ap_check *c, const struct ap_part *p, char *buf,
			     size_t sz)
{
	const struct ap_geometry *f = c->g.in_force;
	struct ap_check_verdicts v;
	char desc[200], nr[AP_PART_NR_MAX];

	ap_check_judge(c, p, &v);
	if (v.aligned != 0)
		return false;
	ap_check_describe_geometry(f, desc, sizeof(desc));
	ap_part_nr(p, nr, sizeof(nr));
	if (v.level < 0)
		snprintf(buf, sz, "partition %s: size %" PRIu64 " sectors is not a whole number of "
			 "%" PRIu64 "-byte physical sectors", nr, p->size, f->physical);
	else if (v.level > 0)
		snprintf(buf, sz, "partition %s: start %" PRIu64 " is aligned to the physical "
			 "sector but not to the %" PRIu64 "-byte %s (from LBA %" PRIu64 "): %"
			 PRIu64 " sector%s past a boundary; %s %" PRIu64, nr, p->start,
			 f->levels.l[v.level].unit, ap_level_kind_name(f->levels.l[v.level].kind),
			 f->levels.l[v.level].lowest_aligned_lba, v.misalign,
			 v.misalign == 1 ? "" : "s", v.next == UINT64_MAX ? "no start satisfies "
			 "every level; first" : "first start aligned to every level",
			 v.next == UINT64_MAX ? p->start : v.next);
	else if (v.next != UINT64_MAX)
		snprintf(buf, sz, "partition %s: start %" PRIu64 " is not aligned to %s: %" PRIu64
			 " sector%s past a boundary; next aligned start %" PRIu64, nr,
			 p->start, desc, v.misalign, v.misalign == 1 ? "" : "s", v.next);
	else
		snprintf(buf, sz, "partition %s: start %" PRIu64 " is not aligned to %s",
			 nr, p->start, desc);
	return true;
}
