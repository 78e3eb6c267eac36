/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * alignprobe's exit codes: the one place they are defined. They are an
 * interface (scripts and deployment pipelines gate on them); README.md and
 * docs/alignprobe.8 list the same table.
 */
#ifndef AP_EXITCODES_H
#define AP_EXITCODES_H

#define AP_EXIT_OK		0	/* success; check: every partition aligned */
#define AP_EXIT_FAILURE		1	/* runtime failure (I/O error, mkfs failed, ...) */
#define AP_EXIT_USAGE		2	/* bad command line or bad input file */
#define AP_EXIT_REFUSED		3	/* refused for safety; nothing was written */
#define AP_EXIT_MISALIGNED	4	/* check: at least one partition misaligned */
#define AP_EXIT_INCONCLUSIVE	5	/* sweep/probe/smr: no verdict (budget, or starts
					   that cannot resolve a period; smr: cannot
					   tell; check --refuse-smr: no smr verdict) */
#define AP_EXIT_NOTBUILT	6	/* subcommand or feature not built in */
#define AP_EXIT_SECTOR_SIZE	7	/* check: the partition table was written for
					   another logical sector size */
#define AP_EXIT_SMR		8	/* check --refuse-smr: a shingled (SMR) disk */
#define AP_EXIT_SIGNAL_BASE	128	/* 128 + signal number: interrupted, partial
					   results printed, everything cleaned up */

#endif
