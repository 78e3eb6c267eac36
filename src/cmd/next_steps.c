// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What to run next, as the commands print it (src/device/nextsteps.h):
 * the steps after a verdict (probe, sweep) and the one way of printing
 * steps (check too).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "analysis/verdict_json.h"
#include "cmd/commands.h"
#include "device/nextsteps.h"
#include "lib/blkdev.h"
#include "lib/levels.h"

/* The size of the block device @dev in @logical sectors, 0 when unknown. */
static uint64_t device_sectors(const char *dev, unsigned logical)
{
	uint64_t size = 0;
	unsigned l, p;
	int fd;

	if (!logical)
		return 0;
	fd = open(dev, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	if (ap_blkdev_get_sizes(fd, &size, &l, &p) != 0)
		size = 0;
	close(fd);
	return size / logical;
}

void ap_cmd_verdict_next_steps(const char *dev, const struct ap_verdict *v, bool clear,
			       struct ap_next_steps *s)
{
	struct ap_levels lv;
	struct ap_next_geometry g = {
		.disk = dev ? dev : AP_CMD_NEXT_PLACEHOLDER, .is_blockdev = true,
		.logical = v ? v->logical_sector : 0, .unit = v ? v->physical_sector : 0,
		.lowest_aligned = v ? v->lowest_aligned_lba : 0, .levels = &lv,
	};

	ap_next_steps_init(s);
	if (!v || !clear || !v->resolved || (dev && !*dev))
		return;
	ap_verdict_levels(v, &lv);
	if ((v->sensitive && v->physical_sector > v->logical_sector) ||
	    ap_levels_above_sector(&lv)) {
		if (dev)
			g.nsectors = device_sectors(dev, v->logical_sector);
		ap_next_steps_disk(s, &g);
	}
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

void ap_cmd_print_verdict_next_steps(const char *dev, const char *why,
				     const struct ap_verdict *v, bool clear)
{
	struct ap_next_steps s;

	ap_cmd_verdict_next_steps(why ? NULL : dev, v, clear, &s);
	ap_cmd_print_next_steps(&s, "  What to run next (each writes the disk):", "    ");
	if (s.n && why)
		printf("    (" AP_CMD_NEXT_PLACEHOLDER " is the disk to use: %s)\n", why);
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
