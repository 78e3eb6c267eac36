/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sequential throughput matrix: block size x synchronization mode, the dd
 * experiments done properly. Every cell writes (or reads) the same region
 * of the target with one block size under one mode; the cells (and their
 * repetitions) run in a seeded random order, and between two cells the
 * previous cell's dirty data is written out and the target's page cache
 * dropped, untimed, so nothing leaks from one cell into the next.
 *
 * The timer of a cell covers everything its mode needs for the data to be
 * on stable storage (the final fdatasync, the sync after dd, O_DSYNC per
 * block); modes whose data is NOT stable when the timer stops say so
 * (struct ap_seq_modeinfo.stable): "none" (page cache only: what plain dd
 * reports) and "direct-nosync" (O_DIRECT alone: the drive's volatile write
 * cache may still hold it).
 */
#ifndef AP_SEQ_H
#define AP_SEQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/cancel.h"
#include "lib/util.h"
#include "workload/datagen.h"

enum ap_seq_mode {
	AP_SEQ_NONE = 0,	/* buffered writes, no sync: dd bs=BS */
	AP_SEQ_SYNC_AFTER,	/* buffered, then close + syncfs/fsync: dd ... && sync */
	AP_SEQ_FDATASYNC,	/* buffered, fdatasync before close: conv=fdatasync */
	AP_SEQ_DSYNC,		/* O_DSYNC: oflag=dsync */
	AP_SEQ_SYNC,		/* O_SYNC: oflag=sync */
	AP_SEQ_DIRECT,		/* O_DIRECT | O_DSYNC: oflag=direct,dsync */
	AP_SEQ_DIRECT_NOSYNC,	/* O_DIRECT alone: oflag=direct (not in the defaults) */
	AP_SEQ_READ_DIRECT,	/* O_DIRECT sequential read: iflag=direct */
	AP_SEQ_READ_CACHED,	/* buffered read, cache dropped first: dd if= */
	AP_SEQ_NMODES
};

enum ap_seq_end {
	AP_SEQ_END_NONE = 0,
	AP_SEQ_END_FDATASYNC,	/* fdatasync(fd) before close, timed */
	AP_SEQ_END_SYNC_AFTER,	/* close, then syncfs (file) / fsync (device), timed */
};

struct ap_seq_modeinfo {
	const char *name;	/* "dsync": the MODE column and --modes */
	bool read;		/* a read cell */
	int oflags;		/* open(2) flags besides O_RDONLY/O_WRONLY */
	enum ap_seq_end end;
	bool stable;		/* data on stable storage when the timer stops */
	bool deflt;		/* in the default --modes (writes) / --read set */
	const char *dd;		/* the dd equivalent */
	const char *help;
};

/* Every mode; index = enum ap_seq_mode. */
extern const struct ap_seq_modeinfo ap_seq_modes[AP_SEQ_NMODES];

/*
 * The dd command line of mode @m at block size @bs: modeinfo.dd with "BS"
 * filled in as dd reads it ("bs=4K", "bs=1M", "bs=1536"). Caller frees.
 */
char *ap_seq_dd_line(enum ap_seq_mode m, uint64_t bs);

/* Mode by name: 0 or -EINVAL. */
int ap_seq_mode_parse(const char *name, enum ap_seq_mode *out);
/*
 * A comma list of mode names, or "all" (every write mode), "default":
 * a bitmask (1u << mode). Empty lists, unknown or repeated names: -EINVAL
 * with the name in @e.
 */
int ap_seq_modes_parse(const char *list, unsigned *mask, struct ap_error *e);

/*
 * A comma list of block sizes ("4K,64K,1M"): sorted ascending, each a
 * multiple of 512 between 512 and 1 GiB, no duplicates. *out is malloc'd.
 */
int ap_seq_bs_parse(const char *list, uint64_t **out, size_t *n, struct ap_error *e);
/* The default list, powers of 4 from 4 KiB to 1 GiB, those <= @amount. */
size_t ap_seq_bs_default(uint64_t amount, uint64_t *out, size_t max);

#define AP_SEQ_BS_MIN		512ULL
#define AP_SEQ_BS_MAX		(1ULL << 30)
#define AP_SEQ_KNEE_TOLERANCE	0.05
#define AP_SEQ_POOL_DEFAULT	(4ULL << 20)

/*
 * The knee: index of the smallest block size whose throughput is within
 * @tol (0.05) of the best; @bs ascending, @mbps NAN where missing.
 * -1 when no value is present.
 */
int ap_seq_knee(const uint64_t *bs, const double *mbps, size_t n, double tol);

/* --- the write cache ------------------------------------------------- */

/*
 * The drive's volatile write cache during a cell: as found (no
 * --write-cache), or switched on or off for the cell's block of runs.
 */
enum ap_seq_wc {
	AP_SEQ_WC_ASIS = 0,
	AP_SEQ_WC_ON,
	AP_SEQ_WC_OFF,
};
#define AP_SEQ_WC_MAX	2	/* states per run: on and off */

/* "on", "off", or "as-is". */
const char *ap_seq_wc_name(enum ap_seq_wc wc);
/*
 * --write-cache: "on", "off", "on,off" or "off,on", the order the matrix
 * runs in. Unknown or repeated states, an empty list: -EINVAL with the
 * reason in @e.
 */
int ap_seq_wc_parse(const char *list, enum ap_seq_wc out[AP_SEQ_WC_MAX], size_t *n,
		    struct ap_error *e);

/*
 * Switch the drive's write cache @on before a block of runs: 0 or -errno
 * with the reason in @e (the run stops). The command installs it; the
 * engine neither knows how nor restores.
 */
typedef int (*ap_seq_wc_fn)(void *arg, bool on, struct ap_error *e);

/* --- the target (session.c) ------------------------------------------- */

struct ap_seq_target {
	char *path;
	bool is_bdev;
	bool created;		/* a regular file this run created (removed unless keep) */
	int fd;			/* held for the run: O_EXCL on a device */
	uint64_t capacity;	/* device size, existing file size, 0 = unbounded */
	unsigned align;		/* O_DIRECT alignment: logical sector / dio alignment */
	char *disk;		/* sysfs name of the whole disk ("sdb", "loop3"), or NULL */
};

/*
 * Open a regular file (created with O_EXCL when missing; an existing file is
 * never truncated) or take @hold_fd for a block device (already opened with
 * O_EXCL by the caller through the safety gate; -1 for a file).
 */
/*
 * What ap_seq_target_open() checks, for a dry run, without creating or
 * opening anything: an existing regular file readable and writable, or a
 * new one's directory writable (not on a read-only file system). 0 or
 * -errno with the reason in @e, worded as the open's.
 */
int ap_seq_target_check(const char *path, struct ap_error *e);
int ap_seq_target_open(struct ap_seq_target *t, const char *path, int hold_fd,
		       struct ap_error *e);
/* Close; remove a file this run created unless @keep. */
int ap_seq_target_close(struct ap_seq_target *t, bool keep);

/*
 * Write cache state of the disk under the target (the file's filesystem
 * device for a file): sysfs queue/write_cache, "write back" or
 * "write through", or NULL when there is none (malloc'd).
 */
char *ap_seq_sysfs_write_cache(const struct ap_seq_target *t);

/* --- the run ---------------------------------------------------------- */

struct ap_seq_opts {
	uint64_t size;		/* bytes per cell */
	uint64_t offset;	/* where the region starts */
	const uint64_t *bs;	/* ascending */
	size_t nbs;
	unsigned modes;		/* bitmask of enum ap_seq_mode */
	unsigned rounds;	/* runs per cell; the cell reports the median */
	uint64_t seed;		/* order and data */
	enum ap_datagen_kind data;
	uint64_t max_cell_ns;	/* stop a run after this long (0: never) */
	/*
	 * Pre-generated data, bytes (0: AP_SEQ_POOL_DEFAULT); at least the
	 * largest block size, at most the size. The written data repeats with
	 * this period: a small pool stays in the CPU caches like fio's buffer
	 * (whose data repeats every block), a pool of the whole size makes
	 * every block unique at the price of copying from DRAM.
	 */
	uint64_t pool_max;
	bool verify;		/* read back and compare after every write run */
	/*
	 * The write cache states, in order (nwc 0: one pass as found): the
	 * whole matrix runs once per state, its runs in a seeded random order
	 * within the state, after wc_set(wc_arg, on) switched the cache.
	 */
	enum ap_seq_wc wc[AP_SEQ_WC_MAX];
	size_t nwc;
	ap_seq_wc_fn wc_set;
	void *wc_arg;
	/* asked before every block: a reason stops the run (-EINTR); empty: never */
	struct ap_cancel cancel;
};

struct ap_seq_cell {
	enum ap_seq_wc wc;	/* the write cache during its runs */
	enum ap_seq_mode mode;
	uint64_t bs;
	unsigned runs;		/* completed runs */
	/* the median run (by throughput) */
	uint64_t bytes, ns, ios;
	bool partial;		/* stopped by max_cell_ns */
	double mbps;		/* 10^6 bytes per second; NAN before any run */
	double iops;
	double *samples;	/* MB/s of each run, rounds entries */
	uint64_t *sample_bytes, *sample_ns, *sample_ios;
	bool *sample_partial;
};

struct ap_seq_result {
	struct ap_seq_cell *cells;	/* write cache state, mode, block size ascending */
	size_t ncells;
	size_t nwc;			/* write cache states (1: as found) */
	size_t runs_total, runs_done;
};

/* Called after every run (progress); @cell is the one that just ran. */
typedef void (*ap_seq_progress_fn)(void *arg, const struct ap_seq_result *r,
				   const struct ap_seq_cell *cell);

/*
 * Plan: fill @r with the cells (no I/O). Checks the options against the
 * target (size, alignment): -EINVAL with a message.
 */
int ap_seq_plan(const struct ap_seq_target *t, const struct ap_seq_opts *o,
		struct ap_seq_result *r, struct ap_error *e);

/*
 * Run the planned cells. Returns 0, -EINTR when o->cancel cancelled (the runs
 * done so far are in @r, the interrupted one is discarded), or -errno with
 * the failing cell (or o->wc_set's reason) in @e.
 */
int ap_seq_run(struct ap_seq_target *t, const struct ap_seq_opts *o,
	       struct ap_seq_result *r, ap_seq_progress_fn fn, void *arg,
	       struct ap_error *e);

/* The (first) cell for (mode, bs), or NULL. */
struct ap_seq_cell *ap_seq_cell_find(struct ap_seq_result *r, enum ap_seq_mode mode,
				     uint64_t bs);
/* The cell for (write cache state, mode, bs), or NULL. */
struct ap_seq_cell *ap_seq_cell_find_wc(struct ap_seq_result *r, enum ap_seq_wc wc,
					enum ap_seq_mode mode, uint64_t bs);

void ap_seq_result_free(struct ap_seq_result *r);

#endif
