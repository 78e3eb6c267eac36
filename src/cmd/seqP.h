/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * alignprobe seq's two files: seq.c (options, the run, the write cache
 * switched and restored) and seq_report.c (the column table, the table and
 * JSON, the human head and tail, the plot). Not an API for others.
 */
#ifndef AP_CMD_SEQP_H
#define AP_CMD_SEQP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/opts.h"
#include "device/safety.h"
#include "lib/outfile.h"
#include "seq/seq.h"
#include "seq/session.h"
#include "ui/out.h"
#include "ui/progress.h"

#define SEQ_CMD "seq"
/* seq's columns (their ids and table are seq_report.c's) */
#define SEQ_NCOLS 14

/* The columns (seq_report.c), shown without -o: [0] as found, [1] with --write-cache. */
extern const struct ap_opts_cols ap_seq_cols[2];

struct seq_cmd {
	struct ap_out out;
	int cols[SEQ_NCOLS * 2];
	size_t ncols;
	struct ap_seq_opts o;
	uint64_t *bs;
	size_t nbs;
	bool size_set, read, quiet, keep, dry_run, emulate;
	struct ap_safety_opts so;
	const char *plot, *modes_arg, *bs_arg, *emu_spec, *wc_arg;
	struct ap_outfile plot_out;	/* opened before anything is written */
	const char *target;
	struct ap_seq_wcache wc;	/* found, switched (--write-cache), put back */
	int knee[AP_SEQ_WC_MAX][AP_SEQ_NMODES];	/* by state index, mode: cell index */
	struct ap_progress prog;
};

/* "on"/"off" of a cell: its switched state, or the state found. */
const char *ap_seq_out_wc_name(const struct seq_cmd *c, enum ap_seq_wc wc);

int ap_seq_out_table(struct seq_cmd *c, struct ap_seq_result *r);
void ap_seq_out_head(struct seq_cmd *c, const struct ap_seq_target *t);
void ap_seq_out_tail(struct seq_cmd *c, struct ap_seq_result *r);
int ap_seq_out_json(struct seq_cmd *c, const struct ap_seq_target *t, struct ap_seq_result *r,
		    bool interrupted);
int ap_seq_out_plot(struct seq_cmd *c, struct ap_seq_result *r);

#endif
