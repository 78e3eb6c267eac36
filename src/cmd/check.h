/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * alignprobe check: what its files share (private to src/cmd/check*.c).
 *   check.c         ap_cmd_check(), the options, each device's run, the
 *                   verdict per partition and the exit status
 *   check_geom.c    the geometries a partition is checked against: the
 *                   reported one, the drive's, --geometry matching, the
 *                   verdict store's (--verdicts), and the rule that decides
 *   check_report.c  what is printed: the table, the topology, JSON, the
 *                   advice for a foreign sector size, --prometheus
 *   check_next.c    what to run next for each misaligned partition
 */
#ifndef AP_CMD_CHECK_H
#define AP_CMD_CHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>

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

/* The geometries a partition is checked against; unit 0 = not available. */
struct geoms {
	struct ap_geometry reported;
	struct ap_geometry drive;
	struct ap_geometry probed;	/* from --geometry or --physical */
	const struct ap_geometry *basis;	/* probed, else drive, else reported */
	struct ap_geometry decided;	/* what the rule makes of the basis */
	const struct ap_geometry *in_force;	/* = &decided */
	enum ap_geom_rule rule;
	char reason[1024];		/* why the rule decided, for people */
	uint64_t reported_offset;	/* the reported alignment offset, bytes */
	uint64_t optio;			/* sane optimal I/O, bytes, or 0 */
	uint64_t optio_lowest;		/* its offset, LBA */
};

/* What the verdict store says of the disk's model (--verdicts). */
enum mv_state {
	MV_OFF = 0,		/* no --verdicts */
	MV_NOT_NEEDED,		/* a probe of this disk (--geometry) decided */
	MV_NO_MODEL,		/* the disk states no model (an image file, a loop device) */
	MV_NONE,		/* the store has no verdict for the model */
	MV_OTHER_SECTOR,	/* only verdicts for another logical sector size */
	MV_USED,		/* one verdict: it decides */
	MV_CONFLICT,		/* several: none decides, the disk counts as unproven */
	MV_UNSHOWN,		/* one "no effect" without its margin (or a wider one than
				   AP_ABSENCE_MARGIN): it does not decide, unproven */
};

struct model_verdict {
	enum mv_state state;
	const struct ap_vstore_model *m;
	size_t model_index;
	size_t verdict;		/* MV_USED: the index of the one that decided */
	size_t nmatching;	/* verdicts for the disk's logical sector size */
};

struct check {
	const char *device;
	const char *geometry_file;
	uint64_t physical;		/* --physical, bytes */
	uint64_t lowest;		/* --lowest-aligned */
	bool have_lowest;
	uint64_t sector_size;		/* --sector-size */
	bool check_size, quiet, verbose;
	bool trust_reported;		/* --trust-reported */
	bool geometry_any;		/* --geometry-any */
	struct ap_geometry_pick pick;	/* the entry of the --geometry file used */
	struct ap_out out;
	int cols[CHECK_NCOLS * 2];
	size_t ncols;
	char **devices;			/* every DEVICE|IMAGE given */
	size_t ndevices;
	const char *verdicts_file;	/* the store of the disk's model (else the first) */
	const char *verdict_files[16];	/* every --verdicts[=FILE], resolved, in order */
	size_t nverdict_files;
	bool verdicts;
	const struct ap_vstore *store;	/* loaded once, before the first device */
	int store_rcs[16];		/* each one's ap_vstore_load(): 0 or -errno */
	size_t store_models[16];	/* and the models it holds */
	int store_rc;			/* the first of them that failed, or 0 */
	const char *prometheus;		/* --prometheus FILE */
	bool headings_done;		/* -r/--csv: one heading for every device */

	/* per device */
	struct ap_ptable pt;
	struct ap_topology topo;
	struct geoms g;
	size_t nmisaligned, nchecked;
	struct ap_disk_identity id;	/* read for --verdicts and --prometheus */
	bool have_id;
	struct model_verdict mv;
	struct json_object *doc;	/* -J: this device's document */
	struct ap_next_steps next;	/* what to run next (check_next.c) */
};

/* The verdicts on one partition (check_judge()). */
struct verdicts {
	int reported, drive, probed, mib, optio;	/* -1 not applicable, 0/1 */
	bool size_aligned;
	int aligned;					/* -1 for containers */
	uint64_t misalign;				/* sectors */
	uint64_t next;
};

/* "alignprobe check: DEV: message" on stderr */
void check_warn(const struct check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* check.c */
void check_judge(const struct check *c, const struct ap_part *p, struct verdicts *v);

/* check_geom.c */
void check_describe_geometry(const struct ap_geometry *g, char *buf, size_t sz);
void check_report_conflict(const struct check *c);
void check_report_unshown(const struct check *c);
int check_build_geometries(struct check *c);

/* check_next.c */
void check_next_steps(struct check *c);
void check_print_next_steps(const struct check *c);

/* check_report.c */
void check_build_json(struct check *c, bool aligned);
int check_print_topology(const struct check *c);
int check_print_table(struct check *c);
void check_report_foreign(const struct check *c);
/* Notes on stderr: the entries the label type defines to overlap (not
 * judged), a file system on the whole disk instead of a table. */
void check_report_notes(const struct check *c);
void check_add_metrics(const struct check *c, struct ap_prom *p, int status);

#endif /* AP_CMD_CHECK_H */
