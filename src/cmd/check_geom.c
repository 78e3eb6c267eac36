// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * alignprobe check: what the verdict store holds for the disk's model but
 * the check engine (src/check/geom.c) does not use, said on stderr.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "check/check.h"
#include "cmd/checkP.h"
#include "fleet/vstore.h"

void check_report_conflict(const struct check_cmd *c)
{
	const struct ap_vstore_model *m = c->ck.mv.m;
	char *name = ap_vstore_model_name(m), ex[400];
	size_t i;

	check_warn(c, "the verdict store %s holds %zu conflicting verdicts for the model %s; none "
	      "is used, the disk counts as unproven:", c->ck.verdicts_file, c->ck.mv.nmatching, name);
	for (i = 0; i < m->nverdicts; i++) {
		const struct ap_vstore_verdict *v = &m->verdicts[i];

		if (v->logical_sector != c->ck.pt.sector_size)
			continue;
		ex[0] = '\0';
		if (v->nexamples)
			ap_check_describe_example(&v->examples[0], ex, sizeof(ex));
		check_warn(c, "  models[%zu].verdicts[%zu]: %" PRIu64 "-byte physical sectors, lowest "
		      "aligned LBA %" PRIu64 ", on %s%s", c->ck.mv.model_index, i, v->physical_sector,
		      v->lowest_aligned_lba, ex[0] ? ex : "no disk named",
		      v->nexamples > 1 ? " and more" : "");
	}
	free(name);
}

/*
 * A verdict in force (a probe's, the model's) whose first writes cost more
 * than rewrites with no unit of theirs placed, said: it is used, but a
 * start aligned to it may still pay such a unit. Not refused: the first
 * writes into an emulated drive's sparse image pay the host's block
 * allocation under load, and the README's own check would fail with them.
 */
void check_report_unplaced(const struct check_cmd *c)
{
	const struct ap_geometry *g = c->ck.g.basis;

	if (c->quiet || !g || g != &c->ck.g.probed || !g->first_writes_unplaced)
		return;
	check_warn(c, "warning: the verdict in force (%s) says first writes cost more than "
		   "rewrites there with no unit of theirs placed: a start aligned to it may still "
		   "pay one (qcow2 clusters, thin-pool chunks); probe again, or add the unit by "
		   "hand (--allocation-unit)", g->source == AP_GEOM_MODEL ?
		   c->ck.verdicts_file : c->ck.geometry_file);
}

/* A "no effect" for the model not shown down to the margin, said (it is not used). */
void check_report_unshown(const struct check_cmd *c)
{
	char *name = ap_vstore_model_name(c->ck.mv.m), why[400];

	ap_check_describe_unshown(&c->ck, why, sizeof(why));
	check_warn(c, "the verdict store %s says the model %s shows no alignment effect "
		   "(models[%zu].verdicts[%zu]), %s; it is not used, the disk counts as unproven",
		   c->ck.verdicts_file, name, c->ck.mv.model_index, c->ck.mv.verdict, why);
	free(name);
}
