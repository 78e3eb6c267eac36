/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * alignprobe check: what its files share (private to src/cmd/check*.c).
 * The engine (the geometries, the rule, the judgement) is src/check/.
 *   check.c         ap_cmd_check(), the options, each device's run, the
 *                   partitions said and the exit status
 *   check_geom.c    what the verdict store holds but the engine does not
 *                   use (a conflict, a "no effect" not shown), said
 *   check_report.c  what is printed: the table, the topology, JSON, the
 *                   advice for a foreign sector size, what to run next
 */
#ifndef AP_CMD_CHECKP_H
#define AP_CMD_CHECKP_H

#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>

#include "check/check.h"
#include "device/geometry.h"
#include "device/identity.h"
#include "device/nextsteps.h"
#include "device/ptable.h"
#include "device/topology.h"
#include "fleet/prom.h"
#include "fleet/vstore.h"
#include "lib/util.h"
#include "ui/out.h"

#define CMD "check"

enum {
	COL_NR, COL_START, COL_END, COL_SECTORS, COL_SIZE, COL_TYPE, COL_TYPECODE,
	COL_NAME, COL_UUID, COL_ALIGN_REPORTED, COL_ALIGN_DRIVE, COL_ALIGN_PROBED,
	COL_ALIGN_1M, COL_ALIGN_OPTIO, COL_SIZE_ALIGNED, COL_ALIGNED, COL_MISALIGN,
	COL_NEXT_ALIGNED, COL_DEVICE,
	CHECK_NCOLS
};

/* The columns: the one table (in check_report.c) drives -o, the table and JSON. */
extern const struct ap_colinfo check_infos[CHECK_NCOLS];

/* The command's state: the engine's check (src/check/check.h) and how it is shown. */
struct check_cmd {
	struct ap_check ck;		/* what is given and found (the engine) */
	bool have_lowest;
	bool quiet, verbose;
	bool refuse_smr;		/* --refuse-smr (check_smr.c) */
	struct ap_out out;
	int cols[CHECK_NCOLS * 2];
	size_t ncols;
	char **devices;			/* every DEVICE|IMAGE given */
	size_t ndevices;
	int store_rcs[AP_CHECK_MAX_STORES];	/* each one's ap_vstore_load(): 0 or -errno */
	size_t store_models[AP_CHECK_MAX_STORES];	/* and the models it holds */
	int store_rc;			/* the first of them that failed, or 0 */
	const char *prometheus;		/* --prometheus FILE */
	bool headings_done;		/* -r/--csv: one heading for every device */
	struct json_object *doc;	/* -J: this device's document */
};

/* "alignprobe check: DEV: message" on stderr */
void check_warn(const struct check_cmd *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* check_geom.c: what the verdict store said that is not used, said */
void check_report_conflict(const struct check_cmd *c);
void check_report_unshown(const struct check_cmd *c);
void check_report_unplaced(const struct check_cmd *c);	/* said only when so */

/*
 * check_smr.c, --refuse-smr: a zoned disk, or its model's smr rows in the
 * store: AP_EXIT_SMR when shingled, AP_EXIT_INCONCLUSIVE when nothing
 * says, 0 when its model was measured conventional (or not rotating);
 * said on stderr, and in c->doc.
 */
int check_refuse_smr(struct check_cmd *c);

/* check_report.c: what to run next, after the table */
void check_print_next_steps(const struct check_cmd *c);

/* check_report.c */
void check_build_json(struct check_cmd *c, bool aligned);
int check_print_topology(const struct check_cmd *c);
int check_print_table(struct check_cmd *c);
void check_report_foreign(const struct check_cmd *c);
/* Notes on stderr: the entries the label type defines to overlap (not
 * judged), a file system on the whole disk instead of a table. */
void check_report_notes(const struct check_cmd *c);

#endif /* AP_CMD_CHECKP_H */
