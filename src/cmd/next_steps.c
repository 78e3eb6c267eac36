// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What to run next, as the commands print it (src/device/nextsteps.h):
 * the steps after a verdict (probe, sweep) and the one way of printing
 * steps (check too).
 */
#include <stdio.h>
#include <stdlib.h>

#include "analysis/analysis.h"
#include "cmd/commands.h"
#include "device/nextsteps.h"

void ap_cmd_verdict_next_steps(const char *dev, const struct ap_verdict *v, bool clear,
			       struct ap_next_steps *s)
{
	struct ap_next_geometry g = {
		.disk = dev, .is_blockdev = true, .logical = v ? v->logical_sector : 0,
		.unit = v ? v->physical_sector : 0, .lowest_aligned = v ? v->lowest_aligned_lba : 0,
	};

	ap_next_steps_init(s);
	if (dev && *dev && v && clear && v->resolved && v->sensitive &&
	    v->physical_sector > v->logical_sector)
		ap_next_steps_disk(s, &g);
}

struct json_object *ap_cmd_verdict_next_steps_json(const char *dev, const struct ap_verdict *v,
						   bool clear)
{
	struct ap_next_steps s;
	struct json_object *a;

	ap_cmd_verdict_next_steps(dev, v, clear, &s);
	a = ap_next_steps_to_json(&s);
	ap_next_steps_free(&s);
	return a;
}

void ap_cmd_print_verdict_next_steps(const char *dev, const struct ap_verdict *v, bool clear)
{
	struct ap_next_steps s;

	ap_cmd_verdict_next_steps(dev, v, clear, &s);
	ap_cmd_print_next_steps(&s, "  What to run next (each writes the disk):", "    ");
	ap_next_steps_free(&s);
}

void ap_cmd_print_next_steps(const struct ap_next_steps *s, const char *heading,
			     const char *indent)
{
	size_t i;

	if (!s->n)
		return;
	printf("%s\n", heading);
	for (i = 0; i < s->n; i++) {
		char *line = ap_next_step_shell(&s->v[i]);

		printf("%s# %s\n%s%s\n", indent, s->v[i].why, indent, line);
		free(line);
	}
}
