// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check --prometheus: a device's series from what its check found (the
 * families are documented in alignprobe(8), MONITORING; the text is
 * fleet/prom.c's).
 */
#include <stdio.h>

#include "check/check.h"
#include "check/rule.h"
#include "device/geometry.h"
#include "fleet/metrics.h"
#include "fleet/prom.h"
#include "lib/exitcodes.h"
#include "lib/util.h"

/* --prometheus: this device's series (see docs/alignprobe.8, MONITORING). */
void ap_check_prom(const struct ap_check *ck, struct ap_prom *p, int status)
{
	const char *dev = ck->device;
	const struct ap_geometry *geo[] = { &ck->g.reported, &ck->g.drive, &ck->g.probed };
	bool judged = status == AP_EXIT_OK || status == AP_EXIT_MISALIGNED ||
		      status == AP_EXIT_SECTOR_SIZE;
	char num[24];
	size_t i;

	ap_fleet_prom_add(p, "alignprobe_check_success", judged, "device", dev, NULL);
	ap_fleet_prom_add(p, "alignprobe_check_exit_status", status, "device", dev, NULL);
	ap_fleet_prom_disk(p, "check", dev, ck->have_id ? &ck->id : NULL, ck->pt.sector_size);
	if (!judged)
		return;
	ap_fleet_prom_add(p, "alignprobe_disk_aligned", status == AP_EXIT_OK, "device", dev, NULL);
	for (i = 0; i < AP_ARRAY_SIZE(geo); i++) {
		const char *src = ap_geometry_source_name(geo[i]->source);

		if (!geo[i]->physical)
			continue;
		ap_fleet_prom_add(p, "alignprobe_physical_sector_bytes", (double)geo[i]->physical,
				  "command", "check", "device", dev, "source", src, NULL);
		ap_fleet_prom_add(p, "alignprobe_alignment_offset_bytes",
				  (double)geo[i]->lowest_aligned * geo[i]->logical, "command", "check",
				  "device", dev, "source", src, NULL);
	}
	if (ck->g.in_force) {
		ap_fleet_prom_add(p, "alignprobe_check_rule_info", 1, "device", dev, "rule",
				  ap_check_rule_name(ck->g.rule), "basis",
				  ap_geometry_source_name(ck->g.basis->source), NULL);
		ap_fleet_prom_add(p, "alignprobe_check_required_alignment_bytes",
				  (double)ck->g.in_force->physical, "device", dev, NULL);
		ap_fleet_prom_add(p, "alignprobe_check_required_offset_bytes",
				  (double)ck->g.in_force->lowest_aligned * ck->g.in_force->logical,
				  "device", dev, NULL);
	}
	if (ck->pt.foreign_sector_size)
		ap_fleet_prom_add(p, "alignprobe_check_foreign_sector_bytes",
				  ck->pt.foreign_sector_size, "device", dev, NULL);
	if (ck->mv.state != AP_MV_OFF && ck->mv.state != AP_MV_NOT_NEEDED) {
		ap_fleet_prom_add(p, "alignprobe_check_model_verdicts", (double)ck->mv.nmatching,
				  "device", dev, NULL);
		if (ck->mv.state == AP_MV_USED) {
			const struct ap_vstore_verdict *v = &ck->mv.m->verdicts[ck->mv.verdict];
			char where[64];

			snprintf(where, sizeof(where), "models[%zu].verdicts[%zu]",
				 ck->mv.model_index, ck->mv.verdict);
			ap_fleet_prom_add(p, "alignprobe_check_model_verdict_info", 1, "device", dev,
					  "store", ck->verdicts_file, "entry", where, "example",
					  v->nexamples ? v->examples[0].serial : NULL, NULL);
		}
	}
	ap_fleet_prom_add(p, "alignprobe_check_partitions", (double)ck->nchecked, "device", dev,
			  NULL);
	ap_fleet_prom_add(p, "alignprobe_check_misaligned_partitions", (double)ck->nmisaligned,
			  "device", dev, NULL);
	for (i = 0; i < ck->pt.nparts; i++) {
		const struct ap_part *part = &ck->pt.parts[i];
		unsigned ls = ck->pt.sector_size;
		struct ap_check_verdicts v;

		ap_check_judge(ck, part, &v);
		if (v.aligned < 0)
			continue;	/* an extended partition, or a table for another size */
		ap_part_nr(part, num, sizeof(num));
		ap_fleet_prom_add(p, "alignprobe_partition_aligned", v.aligned, "device", dev,
				  "partition", num, NULL);
		ap_fleet_prom_add(p, "alignprobe_partition_start_bytes", (double)part->start * ls,
				  "device", dev, "partition", num, NULL);
		if (v.next != UINT64_MAX)
			ap_fleet_prom_add(p, "alignprobe_partition_next_aligned_start_bytes",
					  (double)v.next * ls, "device", dev, "partition", num, NULL);
	}
}
