/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * alignprobe probe: what its files share (private to src/cmd/probe*.c).
 *   probe.c         ap_cmd_probe(), the options, --undo
 *   probe_jobs.c    one job per device: the hooks of its preparation
 *                   (probe/prepare.c keeps the order), the gate, emulated
 *                   drives, the output files, the run and the progress
 *   probe_report.c  everything printed after the run (table, words, JSON,
 *                   plot, samples, --record/--prometheus) and --dry-run
 */
#ifndef AP_CMD_PROBEP_H
#define AP_CMD_PROBEP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "cmd/opts.h"
#include "device/safety.h"
#include "emu/emu.h"
#include "lib/outfile.h"
#include "probe/prepare.h"
#include "probe/probe.h"
#include "probe/threads.h"
#include "ui/out.h"

#define CMD "probe"

enum {
	COL_DEVICE, COL_SIZE, COL_OFFSET, COL_N, COL_MEDIAN, COL_Q1, COL_Q3, COL_FAST,
	COL_ALIGNED, COL_REL,
	PROBE_NCOLS
};

/*
 * The columns (defined in probe_report.c): the one table drives -o, the table
 * and JSON; the columns shown without -o.
 */
extern const struct ap_colinfo probe_infos[PROBE_NCOLS];
extern const struct ap_opts_cols probe_cols;	/* probe_infos and the defaults */

struct job {
	char *dev;			/* what the user named, or the emulated loop device */
	bool emulated;
	struct ap_emu *emu;
	struct ap_probe_prep p;		/* its preparation (probe/prepare.h): its options,
					   geometry and identity, plan, journal, cache switch */
	struct ap_probe_result r;
	struct ap_error e;
	struct ap_probe_thread run;	/* the probe on its thread: run.rc, run.started */
	int fd_hold;
	struct ap_safety_target t;	/* from the gate's checks until confirmed */
	bool have_t;
	struct ap_outfile plot;		/* --plot, opened before anything is written */
};

struct probe_cmd {
	struct ap_out out;
	struct ap_probe_opts o;
	bool yes, quiet, all_sizes, allow_partition, budget_set, slots_set, allow_unidentified;
	bool dry_run;
	bool wcache_off;		/* --write-cache off */
	bool force;		/* --undo: restore ranges others changed too */
	uint64_t budget_ns;
	const char *journal;
	const char *undo;
	const char *plot;
	const char *samples;
	struct ap_outfile samples_out;	/* opened before anything is written */
	const char *record;		/* --record[=STORE]: the store, once checked */
	bool record_set;
	const char *prometheus;		/* --prometheus FILE */
	struct ap_outfile prom;		/* opened before anything is written */
	char **emu_specs;
	size_t nemu;
	char **names;			/* the devices named */
	size_t nnamed;
	struct job *jobs;		/* the named ones first, then the emulated ones */
	size_t njobs;
};

/* probe_jobs.c */
/*
 * The undo journal @journal of @dev can be created and hold @plan's slots
 * for the disk @id: it does not exist yet (what is there, said), and its
 * file system has room for every record (a dry run checks what the run
 * will). 0 or the exit code, with the message printed.
 */
int probe_journal_usable(const char *dev, const char *journal, const struct ap_probe_plan *plan,
			 const struct ap_disk_identity *id);
char *probe_journal_path(const struct probe_cmd *c, const struct job *j);
int probe_emu_spec(struct probe_cmd *c, size_t i, struct ap_emu_spec *spec);
char *probe_emu_placeholder(size_t i);
void probe_detach_emulated(struct job *j);
void probe_setup_jobs(struct probe_cmd *c);
int probe_plan_jobs(struct probe_cmd *c);
int probe_gate_jobs(struct probe_cmd *c);
int probe_start_jobs(struct probe_cmd *c);

/* probe_report.c */
int probe_dry_run(struct probe_cmd *c, size_t nnamed);
int probe_report_jobs(struct probe_cmd *c);

#endif /* AP_CMD_PROBEP_H */
