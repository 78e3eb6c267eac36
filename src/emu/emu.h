/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The emulated Advanced Format drive: a FUSE file served with direct_io by a
 * single-threaded server (one request at a time, like one actuator), attached
 * to a loop device that reports 512-byte logical and physical sectors while
 * the server charges a read-modify-write for every write that covers a hidden
 * physical sector only partly.
 *
 * The model (src/emu/model.c, unit-tested):
 * - physical sectors start at byte offsets = lowest_aligned * 512 (mod phys);
 *   a write costs base + rmw for each partially covered physical sector
 *   (0, 1 or 2: a 4 KiB write at LBA 34 on a 4096 drive straddles two);
 * - reads and discards cost base only (a drive reads partial sectors free);
 * - write cache on: writes cost base only, their partial sectors are owed;
 *   a flush (fsync of the loop's backing file, which is what the kernel's
 *   REQ_OP_FLUSH becomes) costs base + flush_ns + owed * rmw. With the cache
 *   off the loop device says "write through", so the kernel sends no flushes;
 * - jitter: every cost times (1 + jitter * u), u uniform in [-1, 1] from a
 *   generator seeded with @seed (reproducible);
 * - faults: a read/write (as selected) fails with EIO when it touches
 *   [fail_lba, fail_lba + fail_count), and/or once fail_after successful
 *   requests of the selected kinds were served since the last counter reset;
 *   both set: in the range after N. A failed request costs base and counts
 *   in errors only.
 * That is the simple model (model=simple, the default). The hdd model (a
 * rotating disk: seek curve, the platter's angle from the clock, one extra
 * revolution per read-modify-write, a write cache that merges adjacent
 * writes) and the flash model (a hidden page, a small noisy penalty) are
 * described in emu/model.h, with the named profiles (hdd-7200, flash-8k,
 * usb-4kn, ...) that set them up; logical= makes the loop device report
 * larger logical sectors (usb-4kn: 4096).
 * Costs are charged by sleeping to an absolute CLOCK_MONOTONIC deadline
 * before the reply; counters are updated before the reply too.
 *
 * Kernel facts (6.18): requests arrive with their true offset and length up
 * to 512 KiB (the loop splits larger direct I/O); the device reports 512
 * logical, 512 physical, alignment offset 0. Partition nodes appear when
 * libparted (BLKPG) or partx -a adds them.
 *
 * Lifetime: `emulate --attach` hands the drive over (ap_emu_forget): it runs
 * until `emulate --detach`, or until cleanup finds its server dead. A drive
 * attached in-process belongs to the attaching process (its owner in the
 * state registry): when that dies without ap_emu_detach(), the server takes
 * the drive down itself, or, if something still holds the loop device (a
 * partition the dead run left mounted), `alignprobe cleanup` does.
 */
#ifndef AP_EMU_H
#define AP_EMU_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/util.h"

enum ap_emu_model_kind {
	AP_EMU_MODEL_SIMPLE,		/* constant base cost + fixed RMW penalty */
	AP_EMU_MODEL_HDD,		/* seek curve, rotation, RMW revolution, merging cache */
	AP_EMU_MODEL_FLASH,		/* hidden page, small noisy partial-page penalty */
};

struct ap_emu_spec {
	uint64_t capacity;		/* bytes (default 1 GiB) */
	uint32_t phys_sector;		/* hidden physical sector, bytes (default 4096) */
	uint32_t lowest_aligned;	/* LBA of the first aligned logical sector (default 0) */
	uint64_t rmw_ns;		/* cost of a partial-sector write (default 8 ms) */
	uint64_t base_ns;		/* cost of every request (default 0) */
	double jitter;			/* +- fraction applied to costs (default 0) */
	uint64_t seed;			/* jitter generator seed */
	bool write_cache;		/* volatile write cache model (default off) */
	uint64_t flush_ns;		/* cost of draining the cache per flush (default 0) */
	/* fault model: EIO for requests touching [fail_lba, fail_lba + fail_count) */
	uint64_t fail_lba, fail_count;
	bool fail_reads, fail_writes;
	uint64_t fail_after;		/* EIO once this many were served since the reset (0 = off) */
	char *image;			/* start from this image (copied sparse), or NULL */
	bool capacity_set;		/* size given: else an image's size is the capacity */
	/* drive profiles and the physical models (see emu/model.h) */
	char profile[24];		/* the last profile applied, "" = none */
	enum ap_emu_model_kind model;	/* cost model (default AP_EMU_MODEL_SIMPLE) */
	uint32_t logical_sector;	/* logical sector the loop device reports (512) */
	uint32_t rpm;			/* hdd: spindle speed (7200) */
	uint64_t disk_size;		/* hdd: the full virtual disk the seeks cross (2 TB) */
	uint64_t track;			/* hdd: bytes under the head per revolution (1 MiB) */
	uint64_t settle_ns;		/* hdd: track-to-track seek (1 ms) */
	uint64_t seek_ns;		/* hdd: full-stroke seek (16 ms) */
	double knee;			/* hdd: stroke fraction where sqrt turns linear (30%) */
	uint64_t cache_size;		/* hdd: write cache capacity, bytes (64 MiB) */
	uint64_t bus_rate;		/* hdd, flash: interface bytes/s, 0 = free (300 MB) */
	/* what real drives add (model.h): all off by default */
	uint64_t ra_size;		/* hdd: read-ahead segment size, bytes (0 = none) */
	uint32_t ra_segments;		/* hdd: read-ahead segments (1) */
	uint32_t rmw_buffer;		/* hdd: physical sectors the RMW buffer keeps (0) */
	bool ignore_flush;		/* flushes acknowledged, nothing written (off) */
	bool flush_media;		/* hdd: a flush costs a revolution and a seek (off) */
	uint64_t cut_at;		/* cut-after=N: write N+1 in flight at the cut (0 = never) */
	char *cut_peer;			/* an emulated drive losing power with this one */
	/* a persistent media cache (DM-SMR, a hybrid's flash; model.h, smr.c): 0 = none */
	uint64_t pcache_size;		/* hdd: its capacity, bytes (pcache=) */
	uint64_t pcache_ns;		/* hdd: each write appended to it (pcache-cost=) */
	uint64_t pcache_rate;		/* hdd: its append rate, bytes/s (pcache-rate=) */
	uint64_t band_size;		/* hdd: shingled band, bytes (band=); 0: a flash cache */
	uint64_t clean_idle_ns;		/* hdd: idle time before cleaning starts (clean-idle=) */
	bool no_trim;			/* trim=off: the loop device advertises no discard */
	/* the model the drive states (drive-model=), "": EMU-<PROFILE> (ap_emu_drive_model()) */
	char drive_model[41];
	/* layered volumes (model.h, volume.c): all off by default */
	uint32_t raid_level;		/* parity RAID: 5 or 6, 0 = none */
	uint32_t raid_members;		/* members, parity included (4) */
	uint64_t raid_chunk;		/* bytes per member per stripe (64 KiB) */
	uint64_t raid_cache;		/* controller's battery-backed write-back cache, bytes (0) */
	uint64_t thin_unit;		/* thin volume: allocation unit, bytes (0 = not thin) */
	bool thin_sub;			/* 32 subclusters per unit (qcow2 extended_l2) */
	uint64_t thin_alloc_ns;		/* mapping a new unit (100 us) */
	uint64_t thin_copy_rate;	/* copy-on-write from the backing, bytes/s (100 MB) */
	uint64_t thin_pool;		/* the pool's data space, bytes (0 = never full) */
	/* what the device claims (the kernel's minimum_io_size/optimal_io_size), 0 = nothing */
	uint64_t claim_min_io, claim_opt_io;
};

/*
 * The drive's counters, each declared once, in `emulate --stats`'s column
 * order: X(field, COLUMN, TYPE, "help"). The lists generate struct
 * ap_emu_counters below, the shared page's struct (emu/emuP.h), its copy
 * (emu/locate.c) and emulate's columns (cmd/emulate.c: COL_<COLUMN>, TYPE
 * is NUMBER or SIZE as in AP_COL_<TYPE>, the help is -H's and the man
 * page's line). The server counts each where its event happens (account()
 * and power_cut() in emu/server.c: one bump() line). A new quirk's counter
 * is one line at the end of the quirk list of the layer that adds it
 * (AP_EMU_COUNTERS_DRIVE, _VOLUME or _SMR, which AP_EMU_COUNTERS_QUIRKS
 * joins): HACKING.md, "A quirk with its counter".
 *
 * RMW counts the partial physical sectors written (0, 1 or 2 per write),
 * counted with the write; the hdd model with its cache on counts them when
 * they reach the media instead (a flush, a full cache), at the edges of
 * the merged extents only (see ap_emu_model_request()).
 */
#define AP_EMU_COUNTERS_REQUESTS(X) \
	X(reads, READS, NUMBER, "read requests served") \
	X(writes, WRITES, NUMBER, "write requests served") \
	X(aligned_writes, ALIGNED, NUMBER, "writes covering whole physical sectors only") \
	X(rmw, RMW, NUMBER, "read-modify-writes: partial physical sectors written (0-2 per write)") \
	X(rmw_writes, RMW_WRITES, NUMBER, "writes that needed a read-modify-write") \
	X(flushes, FLUSHES, NUMBER, "cache flushes (fsync)") \
	X(read_bytes, READ_BYTES, SIZE, "bytes read") \
	X(write_bytes, WRITE_BYTES, SIZE, "bytes written") \
	X(errors, ERRORS, NUMBER, \
	  "requests failed by fault injection, a full thin pool or while the power is off") \
	X(busy_ns, BUSY_NS, NUMBER, "time charged, nanoseconds")
/* what real drives add (model.h), by the layer that adds it: the drive itself */
#define AP_EMU_COUNTERS_DRIVE(X) \
	X(ra_hits, RA_HITS, NUMBER, "reads answered from a read-ahead segment") \
	X(rmw_buffer_hits, RMW_BUFFERED, NUMBER, \
	  "partial sectors whose RMW the buffer served (no extra revolution)") \
	X(flushes_ignored, FLUSHES_IGNORED, NUMBER, "flushes acknowledged without writing the cache")
/* a volume under the file system: parity RAID and its controller, thin provisioning */
#define AP_EMU_COUNTERS_VOLUME(X) \
	X(stripe_rmw, STRIPE_RMW, NUMBER, "partial stripes read-modify-written (parity RAID)") \
	X(full_stripes, FULL_STRIPES, NUMBER, "stripes written whole, without reading (parity RAID)") \
	X(cache_absorbed, CACHE_ABSORBED, NUMBER, \
	  "writes the controller's cache acknowledged at once (parity RAID)") \
	X(cache_waits, CACHE_WAITS, NUMBER, \
	  "writes that waited for the controller's cache to make room (parity RAID)") \
	X(thin_allocs, THIN_ALLOCS, NUMBER, "thin units mapped by a first write") \
	X(cow, COW, NUMBER, "copy-on-writes from the backing (thin units or subclusters)") \
	X(nospc, NOSPC, NUMBER, "writes refused with ENOSPC: the thin pool is full")
/* a drive-managed SMR disk's persistent media cache (emu/smr.c) */
#define AP_EMU_COUNTERS_SMR(X) \
	X(pcache_writes, PCACHE_WRITES, NUMBER, \
	  "requests whose data went into the persistent media cache (a write, a flush)") \
	X(pcache_cleaned, CLEANED, NUMBER, "persistent cache units cleaned (bands, or a hybrid's writes)") \
	X(pcache_stall_ns, STALL_NS, NUMBER, "time requests waited for a full persistent cache's cleaning")
#define AP_EMU_COUNTERS_QUIRKS(X) \
	AP_EMU_COUNTERS_DRIVE(X) AP_EMU_COUNTERS_VOLUME(X) AP_EMU_COUNTERS_SMR(X)
#define AP_EMU_COUNTERS_POWER(X) \
	X(power_cuts, POWER_CUTS, NUMBER, "power cuts") \
	X(lost_writes, LOST_WRITES, NUMBER, "acknowledged writes a power cut undid (volatile cache)") \
	X(torn_sectors, TORN, NUMBER, "physical sectors a power cut tore (an RMW in flight)")
#define AP_EMU_COUNTERS(X) \
	AP_EMU_COUNTERS_REQUESTS(X) AP_EMU_COUNTERS_QUIRKS(X) AP_EMU_COUNTERS_POWER(X)

/* A struct member per counter: struct { AP_EMU_COUNTERS(AP_EMU_COUNTER_FIELD) }. */
#define AP_EMU_COUNTER_FIELD(field, col, type, help) uint64_t field;

/* Since the attach or the last reset (ap_emu_counters_reset()). */
struct ap_emu_counters {
	AP_EMU_COUNTERS(AP_EMU_COUNTER_FIELD)
	bool powered;			/* false between a power cut and power on */
};

void ap_emu_spec_init(struct ap_emu_spec *s);
void ap_emu_spec_free(struct ap_emu_spec *s);
/*
 * "phys=4096,lba=7,size=1G,rmw=8ms,base=100us,jitter=30%,seed=1,cache=on,
 * flush=1ms,fail=LBA+COUNT,fail-rw=r|w|rw,fail-after=N,image=FILE", a
 * profile's name (a bare word or profile=NAME: "hdd-7200,size=2G") and the
 * models' keys (emu/model.h: model, logical, rpm, disk, ...). Applied on
 * top of @s, then validated: -EINVAL with the reason in @e.
 */
int ap_emu_spec_parse(const char *str, struct ap_emu_spec *s, struct ap_error *e);
/*
 * The keys (or their aliases) that are also long options of `emulate
 * --attach` (--size, --lowest-aligned, --rmw-cost, ...), marked in the key
 * table of emu/params.c: the @i-th, NULL past the last.
 */
const char *ap_emu_spec_option(size_t i);

/*
 * What ap_emu_attach() checks before it sets anything up, for a command
 * that validates everything first: the spec, and its image (readable,
 * a regular file, within the size). 0, or -errno with the reason in @e:
 * -ENOENT / -EACCES / -EISDIR / -EINVAL / -EFBIG, all bad input; and its
 * cut-peer, an emulated drive (-ENODEV).
 */
int ap_emu_spec_check(const struct ap_emu_spec *s, struct ap_error *e);

struct ap_emu;

/* Start a server, attach a loop device; registered in the state directory. */
int ap_emu_attach(const struct ap_emu_spec *s, struct ap_emu **out, struct ap_error *e);
const char *ap_emu_device(const struct ap_emu *emu);	/* "/dev/loopN" */
/* Detach, stop the server, remove the backing file and the mount point. */
int ap_emu_detach(struct ap_emu *emu, struct ap_error *e);
/*
 * The same for a device attached by another (possibly dead) process: the
 * drive(s) registered for @dev in this state directory, else the drive @dev
 * is attached to now. -EBUSY while a partition is mounted or held open.
 */
int ap_emu_detach_device(const char *dev, struct ap_error *e);
/*
 * The drive of one registry entry (its FUSE mount point @mnt), with every
 * loop device still attached to that drive. Concurrent teardowns
 * of one drive (cleanup, the server's own) take turns; 0 also when the
 * other one took it down.
 */
int ap_emu_detach_entry(const char *mnt, struct ap_error *e);
bool ap_emu_is_emulated(const char *dev);
/*
 * Hand the drive over and free the handle (`emulate --attach`): the server
 * becomes the drive's owner and runs on. On failure (-errno, reason in @e)
 * the server takes the drive down, as when the owner exits.
 */
int ap_emu_forget(struct ap_emu *emu, struct ap_error *e);

/*
 * Who the drive says it is, so that the verdict store works on it: vendor
 * "ALIGNPROBE", model drive-model= or, by default, "EMU-<PROFILE>"
 * ("EMU-HDD-7200"), with "-<phys>-L<lba>" (and "-LS<logical>") added when
 * the hidden geometry is not the profile's own or no profile was applied
 * ("EMU-SIMPLE-4096-L7"): drives that differ are different models. The
 * emulator writes it to <workdir>/identity as VENDOR:MODEL:REVISION:SERIAL
 * (revision and serial empty), which the identity reader of a loop device
 * over an emulated drive takes (src/device/identity.c).
 */
void ap_emu_drive_model(const struct ap_emu_spec *s, char *buf, size_t len);
#define AP_EMU_VENDOR	"ALIGNPROBE"

int ap_emu_counters_read(const char *dev, struct ap_emu_counters *c);
int ap_emu_counters_reset(const char *dev);

/*
 * The counters live in a shared page next to the server (see emu/emuP.h),
 * read without disturbing it: ap_emu_counters_read() never sends a request
 * to the drive. They start at zero when ap_emu_attach() returns (the attach's
 * own partition scan is not counted); a reset makes the counters (and
 * fail-after) count from zero again.
 * Any process may read them; `alignprobe emulate --stats DEV` prints them.
 * ap_emu_counters_read/reset and ap_emu_spec_of return -ENODEV for a device
 * that is not an emulated drive (a partition of one counts as the drive).
 */
/* The parameters an emulated drive runs with. */
int ap_emu_spec_of(const char *dev, struct ap_emu_spec *s);

/*
 * The drive's volatile write cache model, read and switched at run time
 * (seq --write-cache) through the stats page: the server follows at its
 * next request, destaging what the cache holds when switched off (see
 * ap_emu_model_set_write_cache()). Only the model: the loop device's
 * queue/write_cache, which decides whether the kernel sends flushes, is
 * the caller's to switch with it. -ENODEV for a device that is not an
 * emulated drive.
 */
int ap_emu_write_cache(const char *dev, bool *on);
int ap_emu_set_write_cache(const char *dev, bool on);

/*
 * Cut the drive's power (@on false) or restore it, and wait until its
 * server followed. A cut loses what the volatile write cache held (the
 * writes acknowledged since the last destage are undone on the data) and
 * tears a media write in flight (see ap_emu_model_torn()); until power is
 * restored every request fails with EIO (counted in errors). Power on
 * starts with an empty cache and buffers. The spec's cut-after=N cuts the
 * power when the write after N writes (since the counters' reset) arrives,
 * that write in flight; cut-peer=DEV cuts another emulated drive's power
 * at the same moment (before this drive answers the request in flight).
 * 0, or -errno with the reason in @e (-ENODEV: not an emulated drive).
 */
int ap_emu_power(const char *dev, bool on, struct ap_error *e);
/*
 * Arm a power cut at run time: the power goes when the write after @n
 * more writes arrives (as cut-after= from now on; 0: the next write).
 * 0 or -ENODEV.
 */
int ap_emu_arm_power_cut(const char *dev, uint64_t n);
/*
 * Make every request to the drive on @dev wait @ns more from now on (0:
 * no more), as a host busy with other work does: the host's time, which
 * the drive's counters do not count (emulate --host-busy). 0 or -ENODEV.
 */
int ap_emu_set_host_busy(const char *dev, uint64_t ns);

#endif
