// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sweep's setup: from what was asked to the options of the run (see
 * setup.h). The plan is checked whole before anything touches the disk.
 */
#include "sweep/setup.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "lib/util.h"
#include "sweep/mkfs.h"
#include "workload/pm.h"

void ap_sweep_setup_init(struct ap_sweep_setup *s)
{
	memset(s, 0, sizeof(*s));
	s->preset = ap_sweep_preset_find("quick");
	s->fs = "ext4";
	s->sync = AP_PM_SYNC_FSYNC;
}

void ap_sweep_setup_preset(struct ap_sweep_setup *s, bool rounds_set, bool budget_set)
{
	if (!rounds_set) {
		s->min_rounds = s->preset->min_rounds;
		s->max_rounds = s->preset->max_rounds;
	}
	if (!budget_set)
		s->budget_ns = s->preset->time_budget_ns;
}

void ap_sweep_setup_free(struct ap_sweep_setup *s)
{
	if (s->params)
		json_object_put(s->params);
	free(s->emu_text);
	if (s->workload_init)
		ap_pm_config_free(&s->workload);
	ap_mkfs_free_opts(s->mkfs_opts, s->nmkfs_opts);
	free(s->starts);
	memset(s, 0, sizeof(*s));
}

int ap_sweep_setup_workload(struct ap_sweep_setup *s, unsigned *nloc, struct ap_error *e)
{
	int rc;

	*nloc = 0;
	ap_pm_config_init(&s->workload);
	s->workload_init = true;
	if (s->workload_file) {
		rc = ap_pm_config_load(&s->workload, s->workload_file, nloc, e);
		if (rc)
			return rc;
	} else {
		s->workload.number = s->preset->number;
		s->workload.transactions = s->preset->transactions;
		s->workload.size_lo = s->preset->size_lo;
		s->workload.size_hi = s->preset->size_hi;
		s->workload.read_block = s->preset->read_block;
		s->workload.write_block = s->preset->write_block;
		s->workload.buffering = false;
	}
	s->workload.sync = s->sync;
	return 0;
}

/* The preset's size, or room for a workload file's files (twice over) and ext4's inodes. */
static uint64_t default_part_size(const struct ap_sweep_setup *s)
{
	uint64_t sz = s->preset->part_size, need;
	uint64_t blk = (s->workload.size_hi + 4095) / 4096 * 4096;

	if (!s->workload_file)
		return sz;
	/* one inode per 16 KiB */
	need = s->workload.number * 2 * (blk ? blk : 4096) + (64ULL << 20);
	if (s->workload.number * 16384 + (64ULL << 20) > need)
		need = s->workload.number * 16384 + (64ULL << 20);
	return need > sz ? need : sz;
}

/*
 * --mkfs-opt: mkfs with the options on a scratch image of the partition's
 * size, before anything is written to the disk: -EINVAL when mkfs refuses them.
 */
static int try_mkfs_opts(const struct ap_sweep_setup *s, uint64_t size, struct ap_error *e)
{
	struct ap_error me = { 0 };
	int rc;

	if (!s->nmkfs_opts)
		return 0;
	rc = ap_mkfs_try(s->fs, size, s->mkfs_opts, s->nmkfs_opts, &me);
	if (!rc)
		return 0;
	if (rc == -EINVAL)
		return ap_error_set(e, EINVAL, "--mkfs-opt: %s refuses the options (tried on a "
				    "scratch image): %s", ap_mkfs_program(s->fs), me.msg);
	return ap_error_set(e, -rc, "--mkfs-opt: %s", me.msg);
}

/* Every start is one a GPT partition can have: 0 or -EINVAL. */
static int check_starts(const struct ap_sweep_setup *s, struct ap_error *e)
{
	uint64_t last = s->starts[s->nstarts - 1];
	size_t i;

	for (i = 0; i < s->nstarts; i++)
		if (s->starts[i] < s->info.first_usable)
			return ap_error_set(e, EINVAL, "start %" PRIu64 " is before the first "
					    "sector a GPT partition can use (%" PRIu64 " with "
					    "%u-byte sectors)", s->starts[i],
					    s->info.first_usable, s->info.logical_sector);
	if (last >= s->info.last_usable)
		return ap_error_set(e, EINVAL, "start %" PRIu64 " is beyond the disk's last "
				    "usable sector %" PRIu64, last, s->info.last_usable);
	return 0;
}

/* The partition's size in s->part_size: 0, -EINVAL (--size) or -ENOSPC. */
static int size_partition(struct ap_sweep_setup *s, struct ap_error *e)
{
	uint64_t last = s->starts[s->nstarts - 1];
	uint64_t avail = (s->info.last_usable - last + 1) * s->info.logical_sector;
	uint64_t min = ap_mkfs_min_size(s->fs), want;
	char *a, *b;
	int rc;

	if (min < (16ULL << 20))
		min = 16ULL << 20;
	if (!s->size_set) {
		s->part_size = default_part_size(s);
		if (s->part_size < min)
			s->part_size = min;
	}
	if (s->part_size > avail) {
		if (s->size_set) {
			a = ap_size_to_human(avail);
			rc = ap_error_set(e, EINVAL, "--size: a partition at start %" PRIu64
					  " can have at most %s", last, a);
			free(a);
			return rc;
		}
		s->part_size = avail;
	}
	want = s->part_size;
	s->part_size -= s->part_size % 4096;	/* whole 4 KiB file-system blocks */
	if (s->part_size >= min)
		return 0;
	/* the size asked for, not what rounding left of it */
	a = ap_size_to_human(s->size_set ? want : s->part_size);
	b = ap_size_to_human(min);
	if (s->size_set)
		rc = ap_error_set(e, EINVAL, "--size: %s is too small for %s (at least %s)", a,
				  s->fs, b);
	else	/* a device too small is bad input, as in probe */
		rc = ap_error_set(e, ENOSPC, "%s: too small: only %s fit after start %" PRIu64
				  "; %s needs at least %s", s->disk, a, last, s->fs, b);
	free(a);
	free(b);
	return rc;
}

int ap_sweep_setup_plan(struct ap_sweep_setup *s, uint64_t *part_sectors, struct ap_error *e)
{
	int rc;

	if (!s->starts)
		ap_sweep_default_starts(s->info.logical_sector, &s->starts, &s->nstarts);
	/* the verdict compares starts: one alone is a measurement of it, one round */
	if (s->nstarts < 2)
		s->min_rounds = s->max_rounds = 1;
	rc = check_starts(s, e);
	if (!rc)
		rc = size_partition(s, e);
	if (rc)
		return rc;
	*part_sectors = s->part_size / s->info.logical_sector;
	return try_mkfs_opts(s, s->part_size, e);
}

void ap_sweep_setup_params(struct ap_sweep_setup *s, uint64_t part_sectors)
{
	struct json_object *o = json_object_new_object(), *a;
	size_t i;

	json_object_object_add(o, "preset", s->workload_file ? NULL :
			       json_object_new_string(s->preset->name));
	json_object_object_add(o, "workload_file", s->workload_file ?
			       json_object_new_string(s->workload_file) : NULL);
	a = json_object_new_array();
	for (i = 0; i < s->nstarts; i++)
		json_object_array_add(a, json_object_new_uint64(s->starts[i]));
	json_object_object_add(o, "starts", a);
	json_object_object_add(o, "min_rounds", json_object_new_int64(s->min_rounds));
	json_object_object_add(o, "max_rounds", json_object_new_int64(s->max_rounds));
	json_object_object_add(o, "time_budget_s",
			       json_object_new_double((double)s->budget_ns / 1e9));
	json_object_object_add(o, "partition_sectors", json_object_new_uint64(part_sectors));
	json_object_object_add(o, "partition_bytes",
			       json_object_new_uint64(part_sectors * s->info.logical_sector));
	json_object_object_add(o, "fs", json_object_new_string(s->fs));
	a = json_object_new_array();
	for (i = 0; i < s->nmkfs_opts; i++)
		json_object_array_add(a, json_object_new_string(s->mkfs_opts[i]));
	json_object_object_add(o, "mkfs_opts", a);
	json_object_object_add(o, "mount_opts", s->mount_opts ?
			       json_object_new_string(s->mount_opts) : NULL);
	json_object_object_add(o, "seed", json_object_new_uint64(s->seed));
	json_object_object_add(o, "workload", ap_pm_config_to_json(&s->workload));
	json_object_object_add(o, "emulate", s->emu_text ?
			       json_object_new_string(s->emu_text) : NULL);
	if (s->params)
		json_object_put(s->params);
	s->params = o;
}

void ap_sweep_setup_opts(const struct ap_sweep_setup *s, int excl_fd, struct ap_sweep_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->disk = s->disk;
	o->starts = s->starts;
	o->nstarts = s->nstarts;
	o->part_sectors = s->part_size / s->info.logical_sector;
	o->fs = s->fs;
	o->mkfs_opts = s->mkfs_opts;
	o->nmkfs_opts = s->nmkfs_opts;
	o->mount_opts = s->mount_opts;
	o->workload = &s->workload;
	o->min_rounds = s->min_rounds;
	o->max_rounds = s->max_rounds;
	o->time_budget_ns = s->budget_ns;
	o->seed = s->seed;
	ap_sweep_analysis_params(&o->analysis, s->info.logical_sector, s->info.physical_sector);
	o->excl_fd = excl_fd;
}

void ap_sweep_setup_doc(const struct ap_sweep_setup *s, const struct ap_sweep_run *run,
			struct ap_sweep_doc *d)
{
	memset(d, 0, sizeof(*d));
	d->device = (char *)s->disk;
	d->logical_sector = s->info.logical_sector;
	d->reported_physical = s->info.physical_sector;
	d->starts = s->starts;
	d->nstarts = s->nstarts;
	d->results = run->results;
	d->nresults = run->nresults;
	d->parameters = s->params;
	if (run->stop == AP_SWEEP_STOP_UNMEASURABLE && run->cause[0])
		d->cause = (char *)run->cause;
}
