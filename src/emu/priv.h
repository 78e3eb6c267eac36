/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared between the emulator's files (not an API for other areas), lowest
 * first: counters.c (the shared stats page), workdir.c (the work directory),
 * spec.c (the spec and image checks), server.c (the FUSE server), attach.c
 * (attach, detach, the public entry points). Each uses only those before it.
 *
 * An emulated drive lives in a work directory $TMPDIR/alignprobe-emu.XXXXXX:
 *	mnt/		the private FUSE mount point; mnt/disk is the served file
 *			that the loop device is attached to
 *	backing		the sparse file that holds the data
 *	stats		struct ap_emu_shm, mmap'd shared: parameters and counters;
 *			the server holds an exclusive flock() on it while alive
 *	log		the server's stderr
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
};

/* counters.c: consistent snapshot of live - base. */
void ap_emu_shm_read(const struct ap_emu_shm *shm, struct ap_emu_counters_raw *out);
/* Make the counters (and fail-after) count from zero again. */
void ap_emu_shm_reset(struct ap_emu_shm *shm);
/* @workdir's stats page, mapped shared (writable if @rw), checked; or NULL. */
struct ap_emu_shm *ap_emu_shm_map(const char *workdir, bool rw);
/* Create @workdir's stats page with the parameters of @s; NULL with a message. */
struct ap_emu_shm *ap_emu_shm_create(const char *workdir, const struct ap_emu_spec *s,
				     struct ap_error *e);

/* workdir.c: remove the files and the directory; 0, or -errno when it stays. */
int ap_emu_workdir_remove(const char *workdir);
/* The state directory as an absolute path, or NULL. */
char *ap_emu_state_dir_real(void);
/* The state directory that registered the drive in @workdir, or NULL. */
char *ap_emu_workdir_state_dir(const char *workdir);
/* Record which state directory registers the drive in @workdir. */
int ap_emu_workdir_write_state_dir(const char *workdir, struct ap_error *e);
/* The sparse backing file of @s->capacity bytes, filled from @s->image. */
int ap_emu_workdir_make_backing(const char *workdir, struct ap_emu_spec *s, struct ap_error *e);

/*
 * spec.c: @s->image opened (setting @s->capacity when none was given), the
 * spec validated: the fd, or -errno with the reason in @e.
 */
int ap_emu_image_open(struct ap_emu_spec *s, struct ap_error *e);

/*
 * server.c: the FUSE server, a process of its own that gets all it needs
 * from here and calls nothing of attach.c.
 */
struct ap_emu_server_opts {
	const struct ap_emu_spec *spec;
	const char *workdir;
	struct ap_emu_shm *shm;		/* the stats page, mapped shared */
	pid_t owner;			/* the attaching process */
	/*
	 * Take down the drive in @workdir, clearing @dev only if it is still
	 * attached to this very drive: run by the server's teardown helper
	 * when the owner is gone without detaching, or on a signal.
	 */
	int (*teardown)(const char *workdir, const char *dev, struct ap_error *e);
};

/*
 * Fork the server (a daemon holding nothing of the caller's, its stderr in
 * @workdir/log) and wait until it has mounted @workdir/mnt: 0 with the
 * control socket in @ctl and its replies in @st; or -errno with the reason
 * in @e, the descriptors closed and @pid > 0 when a server was forked (then
 * take the drive down).
 *
 * The protocol: @ctl carries "dev /dev/loopN" lines (the server registers
 * the emulated drive in the state registry, owned by @owner, with its own
 * PID as aux, and answers "ok"), "done", and "persist" (the drive outlives
 * @owner: the server makes itself the owner and answers "ok"); an error is
 * answered "error ERRNO MESSAGE". EOF before "done" means the attaching
 * process died, and the server exits; EOF after "done" without "persist",
 * that it died without detaching, and the server takes the drive down
 * (which fails while something still holds the loop device: then it serves
 * on, and cleanup takes the drive down later). SIGTERM/SIGINT/SIGHUP start
 * the same teardown; a second one ends the server.
 */
int ap_emu_server_start(const struct ap_emu_server_opts *o, pid_t *pid, int *ctl, int *st,
			struct ap_error *e);
/* Send a control line to the server: 0, or -errno (-EPIPE when it died). */
int ap_emu_server_send(int fd, const char *s);
/* The server's next reply: 0 for @want, else the error it names, in @e. */
int ap_emu_server_reply(int st, const char *want, struct ap_error *e);

#endif
