/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared between the emulator's files, each using only those before it:
 * counters.c, workdir.c, power.c, locate.c, spec.c, control.c, server.c,
 * loop.c, attach.c. Not an API for others.
 *
 * An emulated drive lives in a work directory $TMPDIR/alignprobe-emu.XXXXXX:
 *	mnt/		the private FUSE mount point; mnt/disk is the served file
 *			that the loop device is attached to
 *	backing		the sparse file that holds the data, or a symbolic link
 *			to it in a memory file system: /dev/shm/alignprobe-emu.XXXXXX/
 *			backing (workdir.c says when and why)
 *	stats		struct ap_emu_shm, mmap'd shared: parameters and counters;
 *			the server holds an exclusive flock() on it while alive
 *	log		the server's stderr
 *	identity	VENDOR:MODEL:REVISION:SERIAL the drive states (device/identity.c reads it)
 *	claims		what the device claims: minimum_io_size=N, optimal_io_size=N lines
 *			(min-io=, opt-io=), which device/topology.c reports as the
 *			kernel's minimum and optimal I/O size
 *	volatile	the volatile write cache's pre-images (power.c)
 * The loop device's sysfs backing_file ("<workdir>/mnt/disk") leads from the
 * device to its work directory.
 */
#ifndef AP_EMU_P_H
#define AP_EMU_P_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "emu/emu.h"

#define AP_EMU_MAGIC		"APEMU01"
#define AP_EMU_FILE		"disk"
#define AP_EMU_MAX_IO		(1U << 20)	/* FUSE max_write and read buffer */

/* The counters in the shared page: uint64_t only (counters.c reads them as an array). */
struct ap_emu_counters_raw {
	AP_EMU_COUNTERS(AP_EMU_COUNTER_FIELD)
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
	uint32_t write_cache, fail_reads, fail_writes;
	/*
	 * Power: power_want_off is the control field (ap_emu_shm_set_power(),
	 * then SIGUSR1 to the server), power_off the server's state once it
	 * followed (a power cut applied, or power restored).
	 */
	uint32_t power_want_off, power_off, pad;
	/*
	 * Control field too: the power goes when write number cut_at (1-based,
	 * as WRITES, live - base, counts them) arrives, that write in flight;
	 * 0 = never. From the spec's cut-after=, or ap_emu_shm_arm_cut(); the
	 * server clears it when it fires.
	 */
	uint64_t cut_at;
	/*
	 * Control field too: every request waits this much more, the host's
	 * time, not the drive's (not in busy_ns): a host busy with other work,
	 * set at run time by ap_emu_shm_set_host_busy() (emulate --host-busy).
	 */
	uint64_t host_busy_ns;
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

/*
 * params.c and params_volume.c: the spec's value parsers and formatter
 * they share, and the layered volumes' keys, defaults, constraints and
 * formatted part (",raid=5,...").
 */
int ap_emu_parse_bool(const char *v, bool *out);
int ap_emu_parse_cost(const char *v, uint64_t *ns);	/* a duration, or "0" */
void ap_emu_fmt_ns(char *buf, size_t sz, uint64_t ns);
/* 0 or -EINVAL as ap_emu_spec_set() for a volume's key, -ENOENT for another key */
int ap_emu_spec_set_volume(struct ap_emu_spec *s, const char *key, const char *val,
			   struct ap_error *e);
void ap_emu_volume_keys(char *buf, size_t sz);		/* ", raid, members, ..." */
void ap_emu_spec_init_volume(struct ap_emu_spec *s);	/* their defaults */
int ap_emu_spec_validate_volume(const struct ap_emu_spec *s, struct ap_error *e);
void ap_emu_spec_format_volume(const struct ap_emu_spec *s, char *buf, size_t sz);

/* counters.c: consistent snapshot of live - base. */
void ap_emu_shm_read(const struct ap_emu_shm *shm, struct ap_emu_counters_raw *out);
void ap_emu_shm_reset(struct ap_emu_shm *shm);		/* count from zero again */
struct ap_emu_shm *ap_emu_shm_map(const char *workdir, bool rw);	/* or NULL */
/* counters.c: the write cache control field (see struct ap_emu_shm). */
bool ap_emu_shm_write_cache(const struct ap_emu_shm *shm);
void ap_emu_shm_set_write_cache(struct ap_emu_shm *shm, bool on);
/* counters.c: the power control field and the server's power state. */
bool ap_emu_shm_power_want_off(const struct ap_emu_shm *shm);
void ap_emu_shm_set_power(struct ap_emu_shm *shm, bool on);
bool ap_emu_shm_power_off(const struct ap_emu_shm *shm);
void ap_emu_shm_set_power_off(struct ap_emu_shm *shm, bool off);
/* counters.c: the host's time added to every request (see struct ap_emu_shm). */
uint64_t ap_emu_shm_host_busy(const struct ap_emu_shm *shm);
void ap_emu_shm_set_host_busy(struct ap_emu_shm *shm, uint64_t ns);
/*
 * Cut (@on false) or restore the power of the drive behind @shm and wait
 * until its server followed (it is woken with SIGUSR1): 0, -ETIMEDOUT
 * after @ms milliseconds, -ESRCH when the server is gone.
 */
int ap_emu_shm_power(struct ap_emu_shm *shm, bool on, int ms);
/* Cut the power when the write after @n more writes arrives (0: the next one). */
void ap_emu_shm_arm_cut(struct ap_emu_shm *shm, uint64_t n);
uint64_t ap_emu_shm_cut_at(const struct ap_emu_shm *shm);
struct ap_emu_shm *ap_emu_shm_create(const char *workdir, const struct ap_emu_spec *s,
				     struct ap_error *e);

/* workdir.c */
int ap_emu_workdir_remove(const char *workdir);	/* 0, or -errno when it stays */
char *ap_emu_state_dir_real(void);
char *ap_emu_workdir_state_dir(const char *workdir);	/* which one registered it */
int ap_emu_workdir_write_state_dir(const char *workdir, struct ap_error *e);
int ap_emu_workdir_make_backing(const char *workdir, struct ap_emu_spec *s, struct ap_error *e);
/*
 * Make [@off, @off + @len) of the backing file @fd what the host has
 * touched before, its contents unchanged: read it into @buf (@bufsz
 * bytes, any number of rounds) and write it back. The host's own first
 * touch (a block reserved, a page allocated: 3-5 us a page on ext4) then
 * falls here, inside the time the model charges, not on the request's
 * data. 0 or -errno.
 */
int ap_emu_workdir_pretouch(int fd, uint64_t off, uint64_t len, void *buf, size_t bufsz);
int ap_emu_workdir_write_identity(const char *workdir, const struct ap_emu_spec *s,
				  struct ap_error *e);

/* power.c: the volatile cache's pre-images, the torn write, the peer drive */
struct ap_emu_vlog {
	int fd;				/* @workdir/volatile: the pre-images */
	uint64_t end;			/* bytes in it */
	struct ap_emu_vrec {
		uint64_t off, len, pos;	/* device range, its place in the file */
	} *rec;				/* disjoint, sorted by off */
	size_t nrec, cap;
	uint64_t writes;		/* cached writes since the last destage */
};
struct ap_emu_model;
int ap_emu_vlog_open(struct ap_emu_vlog *v, const char *workdir);	/* 0 or -errno */
void ap_emu_vlog_close(struct ap_emu_vlog *v);
/* Before a cached write of [off, off + len) to backing @fd: keep what it overwrites. */
int ap_emu_vlog_keep(struct ap_emu_vlog *v, int fd, uint64_t off, uint64_t len);
void ap_emu_vlog_clear(struct ap_emu_vlog *v);		/* destaged: durable now */
/* The power cut: the pre-images back into @fd; *lost the writes undone. */
int ap_emu_vlog_undo(struct ap_emu_vlog *v, int fd, uint64_t *lost);
/* A media write in flight torn on backing @fd (ap_emu_model_torn()). */
int ap_emu_tear(const struct ap_emu_model *m, int fd, uint64_t capacity, uint64_t off,
		uint64_t len, const void *data, unsigned *torn);

/* locate.c (emulator builds only): "loopN" of a loop device or one of its partitions. */
int ap_emu_disk_name(const char *dev, char *name, size_t sz);
/* The work directory of the emulated drive behind loop device @name, or NULL. */
char *ap_emu_workdir_of_loop(const char *name);
/*
 * Whether loop device @name ("loopN" or "/dev/loopN") is attached to the
 * file served by the drive in @workdir: the one test of whose a loop is.
 */
bool ap_emu_loop_serves(const char *name, const char *workdir);
/* The stats page of the emulated drive behind @dev (a cut-peer, ...), or NULL. */
struct ap_emu_shm *ap_emu_shm_of_dev(const char *dev, bool rw);

/* spec.c: s->image opened, the spec validated: fd or -errno. */
int ap_emu_image_open(struct ap_emu_spec *s, struct ap_error *e);

/*
 * loop.c (emulator builds only): a free loop device picked, registered
 * with the server (its control socket @ctl, replies @st) and attached to
 * the served file of @workdir with @lbs-byte sectors; its name in *@dev.
 */
int ap_emu_loop_attach(const char *workdir, int ctl, int st, unsigned lbs, char **dev,
		       struct ap_error *e);
/*
 * What the kernel is told of the drive @s on @dev: its write cache
 * ("write back" makes it send flushes) and whether it rotates.
 */
int ap_emu_loop_set_queue(const char *dev, const struct ap_emu_spec *s, struct ap_error *e);
/* An image's partitions added with BLKPG where the kernel lacks the parser (best effort). */
void ap_emu_loop_add_partitions(const char *dev);
/*
 * Clear the loop device @name (ours) and wait for it to let go: -EBUSY
 * when mounted, held by dm/md or by a live run; held open by somebody
 * else: cleared all the same (autoclear). 0 or -errno with @e.
 */
int ap_emu_loop_clear(const char *name, struct ap_error *e);
/* Every loop device over @workdir's served file cleared (see loop.c): 0 or -errno. */
int ap_emu_loop_clear_all(const char *workdir, struct ap_error *e);

#endif
