// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * alignprobe check: what to run next for each misaligned partition, for
 * the geometry in force (src/device/nextsteps.h): printed after the table
 * and in the JSON's "next_steps".
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/check.h"
#include "cmd/commands.h"
#include "device/nextsteps.h"
#include "lib/align.h"

/* Where partition @p may move: after its neighbour before it, before the one after it. */
static void room(const struct check *c, const struct ap_part *p, uint64_t *lower,
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

void check_next_steps(struct check *c)
{
	const struct ap_geometry *f = c->g.in_force;
	struct ap_next_geometry g = {
		.disk = c->device, .is_blockdev = c->pt.is_blockdev, .logical = f->logical,
		.unit = f->physical, .lowest_aligned = f->lowest_aligned,
	};
	size_t i;

	ap_next_steps_init(&c->next);
	if (c->pt.foreign_sector_size || ap_ptable_nerrors(&c->pt) || !f->physical)
		return;
	for (i = 0; i < c->pt.nparts; i++) {
		const struct ap_part *p = &c->pt.parts[i];
		uint64_t lower, upper;

		if (p->container || ap_align_is_aligned(p->start, f->logical, f->physical,
							f->lowest_aligned))
			continue;
		room(c, p, &lower, &upper);
		ap_next_steps_partition(&c->next, &g, (unsigned)p->partno + 1, p->start, p->size,
					lower, upper);
	}
}

void check_print_next_steps(const struct check *c)
{
	ap_cmd_print_next_steps(&c->next, "\nWhat to run next (each rewrites data: back up first):",
				"  ");
}
