/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * alignprobe sweep: what its files share (private to src/cmd/sweep*.c).
 *   sweep.c         ap_cmd_sweep(), the options, --replay
 *   sweep_target.c  the run on its target, a device or an emulated drive:
 *                   the gate, the plan said, progress, each step saved
 *                   (--save), the exit status
 *   sweep_report.c  what is printed: the table per start, the verdict in
 *                   words, the plot, and the run's one JSON document
 *                   (--json and --save alike)
 */
#ifndef AP_CMD_SWEEPP_H
#define AP_CMD_SWEEPP_H

#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>

#include "analysis/analysis.h"
#include "cmd/opts.h"
#include "device/identity.h"
#include "lib/outfile.h"
#include "sweep/part.h"
#include "sweep/setup.h"
#include "sweep/sweep.h"
#include "ui/out.h"
#include "ui/progress.h"
#include "workload/pm.h"

#define CMD "sweep"

enum {
	COL_START, COL_ALIGNED, COL_FAST, COL_RUNS, COL_FAILED, COL_TPS, COL_COST,
	COL_CREATES, COL_DELETES, COL_READ, COL_WRITE, COL_FSYNC, COL_REL, COL_RMW,
	SWEEP_NCOLS
};

/*
 * The columns (defined in sweep_report.c): the one table drives -o, the table
 * and JSON; the columns shown without -o; the keys of the "starts" objects
 * without -o (and in --save), in their documented order.
 */
extern const struct ap_colinfo sweep_infos[SWEEP_NCOLS];
extern const struct ap_opts_cols sweep_cols;	/* sweep_infos and the defaults */
extern const int sweep_json_cols[];
extern const size_t sweep_njson_cols;

struct sweep_cmd {
	struct ap_out out;
	const char *device;
	struct ap_sweep_setup s;	/* what is measured, the plan, the workload */
	bool rounds_set, budget_set, seed_set;
	bool emulate;
	const char *emu_spec;
	const char *replay, *save, *plot;
	struct ap_outfile save_out, plot_out;	/* opened before anything is written */
	bool yes, dry_run, quiet;
	bool measuring_opts;	/* an option that --replay cannot take */
	const char *record;	/* --record[=STORE]: the store, once checked */
	bool record_set;
	struct ap_disk_identity id;	/* the disk's, for --record */

	/* the run */
	struct ap_progress pg;
	char *what;
	int save_errors;
};

/* sweep.c */
int sweep_verdict_exit(const struct ap_verdict *v);

/* sweep_report.c */
/*
 * The run's one document (--json, --save, --replay --json): the engine's
 * (ap_sweep_doc_to_json()) with what only the command has: the starts
 * @st as rows of the columns @cs (NULL: every column, as a results file
 * holds them whatever -o says), the disk's identity, what to run next.
 */
struct json_object *sweep_doc_json(const struct sweep_cmd *c, const struct ap_cols *cs,
				   const struct ap_sweep_doc *doc, const struct ap_verdict *v,
				   const char *stopped, const struct ap_sweep_start_stat *st, size_t n);
int sweep_report(struct sweep_cmd *c, const struct ap_sweep_doc *doc,
	   const struct ap_verdict *v, const char *stopped);

/* sweep_target.c */
int sweep_prepare_workload(struct sweep_cmd *c);
int sweep_run_device(struct sweep_cmd *c);
int sweep_run_emulated(struct sweep_cmd *c);

#endif /* AP_CMD_SWEEPP_H */
