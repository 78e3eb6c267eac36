/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sweep's setup (setup.c): what a run is asked to do, from the command
 * line to the options of ap_sweep_run(). The preset's workload or a
 * PostMark file, the plan on the disk (its starts checked against the
 * GPT's usable sectors, the partition sized to the workload and capped by
 * the disk, --mkfs-opt tried on a scratch image), the parameters saved
 * with the results, and the document of a run. Nothing here prints: the
 * command says what an error's message and code say.
 */
#ifndef AP_SWEEP_SETUP_H
#define AP_SWEEP_SETUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sweep/part.h"
#include "sweep/sweep.h"
#include "workload/pm.h"

struct json_object;

struct ap_sweep_setup {
	const struct ap_sweep_preset *preset;
	const char *workload_file;	/* a PostMark file instead of the preset's workload */
	uint64_t *starts;		/* owned; NULL: the defaults for the disk's sectors */
	size_t nstarts;
	unsigned min_rounds, max_rounds;
	uint64_t budget_ns;
	uint64_t part_size;		/* bytes; once planned, what the run uses */
	bool size_set;			/* part_size asked for (else sized by the plan) */
	const char *fs;
	char **mkfs_opts;		/* owned */
	size_t nmkfs_opts;
	const char *mount_opts;
	enum ap_pm_sync sync;
	uint64_t seed;
	char *emu_text;			/* the emulated drive's spec, or NULL (owned) */

	/* filled by the setup */
	struct ap_pm_config workload;	/* ap_sweep_setup_workload() */
	bool workload_init;
	const char *disk;		/* the disk planned on (the caller's) */
	struct ap_part_disk info;	/* its geometry */
	struct json_object *params;	/* "parameters" of the results (owned) */
};

/* The defaults: the quick preset, ext4, an fsync after every file write. */
void ap_sweep_setup_init(struct ap_sweep_setup *s);
/* The preset's rounds and budget, where not asked for otherwise. */
void ap_sweep_setup_preset(struct ap_sweep_setup *s, bool rounds_set, bool budget_set);
void ap_sweep_setup_free(struct ap_sweep_setup *s);

/*
 * The workload: the preset's, or s->workload_file read by the workload's
 * loader (its `set location` lines counted in @nloc: the sweep's mount
 * replaces them), with s->sync. 0 or -errno with the message in @e.
 */
int ap_sweep_setup_workload(struct ap_sweep_setup *s, unsigned *nloc, struct ap_error *e);

/*
 * The plan on the disk s->info describes (s->disk names it in messages):
 * the default starts when none were given, one start measured for one
 * round (it never gives a verdict), every start a GPT partition can have,
 * the partition's size (s->part_size: the preset's, or room for the
 * workload file's files, capped by the disk, whole 4 KiB blocks, at least
 * what the file system needs) and --mkfs-opt tried on a scratch image of
 * that size. 0 with *@part_sectors; -EINVAL for what an option asked
 * (the message says which); -ENOSPC when the disk is too small (the
 * message names it); another -errno when --mkfs-opt could not be tried.
 */
int ap_sweep_setup_plan(struct ap_sweep_setup *s, uint64_t *part_sectors, struct ap_error *e);

/* The "parameters" saved with the results (s->params, replaced). */
void ap_sweep_setup_params(struct ap_sweep_setup *s, uint64_t part_sectors);

/*
 * The options of ap_sweep_run() for the plan, the disk held open in
 * @excl_fd (or -1); the caller adds its events, hook and cancellation.
 */
void ap_sweep_setup_opts(const struct ap_sweep_setup *s, int excl_fd, struct ap_sweep_opts *o);

/* The document of @run (pointers into @s and @run: nothing to free). */
void ap_sweep_setup_doc(const struct ap_sweep_setup *s, const struct ap_sweep_run *run,
			struct ap_sweep_doc *d);

/* What a dry run says the sweep of the plan would do (words.c). Caller frees. */
char *ap_sweep_plan_words(const struct ap_sweep_setup *s, uint64_t part_sectors);

#endif
