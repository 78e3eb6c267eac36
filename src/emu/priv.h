/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared between the emulator's files, each using only those before it:
 * counters.c, workdir.c, spec.c, server.c, attach.c. Not an API for others.
 *
 * An emulated drive lives in a work directory $TMPDIR/alignprobe-emu.XXXXXX:
 *	mnt/		the private FUSE mount point; mnt/disk is the served file
 *			that the loop device is attached to
 *	backing		the sparse file that holds the data
 *	stats		struct ap_emu_shm, mmap'd shared: parameters and counters;
 *			the server holds an exclusive flock() on it while alive
 *	log		the server's stderr
 *	identity	VENDOR:MODEL:REVISION:SERIAL the drive states (identity.c reads it)
 * The loop device's sysfs backing_file ("<workdir>/mnt/disk") leads from the
 * device to its work directory.
 */
#ifndef AP_EMU_PRIV_H
#define AP_EMU_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "emu/emu.h"

#define AP_EMU_MAGIC		"APEMU01"
#define AP_EMU_FILE		"disk"
#define AP_EMU_MAX_IO		(1U << 20)	/* FUSE max_write and read buffer */

struct ap_emu_counters_raw {
	uint64_t reads, writes, aligned_writes, rmw, flushes;
	uint64_t read_bytes, write_bytes, errors, busy_ns;
	uint64_t rmw_writes;
};

struct ap_emu_shm {
	char magic[8];
	uint32_t size;			/* sizeof(struct ap_emu_shm) */
	int32_t server_pid;
	/* the parameters, for --stats */
	uint64_t capacity, rmw_ns, base_ns, flush_ns, seed;
	uint64_t fail_lba, fail_count, fail_after;
	double jitter;
	uint32_t phys_sector, lowest_aligned;
	/*
	 * write_cache is also the control field of the drive's volatile write
	 * cache: ap_emu_shm_set_write_cache() switches it at run time (seq
	 * --write-cache), and the server compares it with its model before
	 * every request, switching the model when they differ.
	 */
	uint32_t write_cache, fail_reads, fail_writes, pad;
	/*
	 * Counters: written by the server only, inside a sequence lock (odd
	 * while updating); readers retry until they see an even, unchanged
	 * sequence. A reset stores the current values in @base (written by
	 * resetters only); readers and the fault model see live - base.
	 */
	uint64_t seq;
	struct ap_emu_counters_raw live;
	struct ap_emu_counters_raw base;
	/* every parameter, as ap_emu_spec_format() gives it (profiles, hdd, ...) */
	char spec[1024];
};

/* counters.c: consistent snapshot of live - base. */
void ap_emu_shm_read(const struct ap_emu_shm *shm, struct ap_emu_counters_raw *out);
void ap_emu_shm_reset(struct ap_emu_shm *shm);		/* count from zero again */
struct ap_emu_shm *ap_emu_shm_map(const char *workdir, bool rw);	/* or NULL */
/* counters.c: the write cache control field (see struct ap_emu_shm). */
bool ap_emu_shm_write_cache(const struct ap_emu_shm *shm);
void ap_emu_shm_set_write_cache(struct ap_emu_shm *shm, bool on);
struct ap_emu_shm *ap_emu_shm_create(const char *workdir, const struct ap_emu_spec *s,
				     struct ap_error *e);

/* workdir.c */
int ap_emu_workdir_remove(const char *workdir);	/* 0, or -errno when it stays */
char *ap_emu_state_dir_real(void);
char *ap_emu_workdir_state_dir(const char *workdir);	/* which one registered it */
int ap_emu_workdir_write_state_dir(const char *workdir, struct ap_error *e);
int ap_emu_workdir_make_backing(const char *workdir, struct ap_emu_spec *s, struct ap_error *e);
int ap_emu_workdir_write_identity(const char *workdir, const struct ap_emu_spec *s,
				  struct ap_error *e);

/* spec.c: s->image opened, the spec validated: fd or -errno. */
int ap_emu_image_open(struct ap_emu_spec *s, struct ap_error *e);

#endif
