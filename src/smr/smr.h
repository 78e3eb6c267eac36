/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Is this rotating disk shingled behind a conventional interface? (issue
 * 35, `alignprobe smr`). A drive-managed SMR disk (DM-SMR) says it is not:
 * the kernel's queue/zoned is "none" for it by design, the ATA and SCSI
 * zoned fields are optional and mostly left empty. What gives it away is
 * its persistent media cache (Skylight, FAST '15): synchronous random
 * writes spread over the whole LBA range come back faster than a seek and
 * a revolution allow, also with the drive's volatile write cache off. A
 * hybrid disk (SSHD) does the same with its flash cache; the test cannot
 * tell the two apart and names both.
 *
 * - signals.c: the cheap signals (nothing written): the zone model from
 *   sysfs, ATA IDENTIFY word 69 and SCSI VPD B1h, the medium rotation rate
 *   of VPD B1h, queue/rotational, discard (TRIM) advertised; each with what
 *   it proves and what it does not.
 * - run.c: the short timing test's plan (writes slots spread over the
 *   whole device, visited in a seeded random order), its undo journal
 *   (probe/journal.h: `probe --undo` restores a killed run's) and its timed
 *   phases.
 * - verdict.c: the verdict from the signals and the phases, in words and
 *   JSON.
 * The command switches the write cache between the phases (device/
 * cachectl.h) and measures the rotation (device/rotation.h). Modules
 * return 0 or -errno and never print.
 */
#ifndef AP_SMR_H
#define AP_SMR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device/identity.h"
#include "lib/util.h"

struct json_object;

#define AP_SMR_WRITES_DEFAULT	128	/* timed writes per phase */
#define AP_SMR_WRITES_MAX	4096
#define AP_SMR_MARGIN		(1ULL << 20)	/* never written: the first and last MiB */

/* ---- signals.c ---- */

enum ap_smr_zone_model {
	AP_SMR_ZM_UNKNOWN = 0,		/* nobody said */
	AP_SMR_ZM_NONE,			/* said: not zoned (or not reported) */
	AP_SMR_ZM_HOST_AWARE,
	AP_SMR_ZM_HOST_MANAGED,
	AP_SMR_ZM_DEVICE_MANAGED,	/* the drive says it is DM-SMR (ATA word 69, VPD B1h) */
};

#define AP_SMR_SIGNALS_MAX	8

/* One cheap signal: what was read, and its strength in words. */
struct ap_smr_signal {
	const char *name;		/* "queue/zoned", "ATA IDENTIFY word 69", ... */
	char value[80];			/* what it said, or "not available" */
	bool available;
	const char *proves;		/* what this value proves */
	const char *not_proves;		/* what it does not */
};

struct ap_smr_signals {
	struct ap_smr_signal sig[AP_SMR_SIGNALS_MAX];
	size_t n;
	enum ap_smr_zone_model zone_model;	/* the strongest claim of all */
	const char *zone_source;		/* the signal that made it */
	unsigned media_rpm;		/* VPD B1h: 0 unknown, 1 non-rotating, else rpm */
	bool trim;			/* discard advertised */
	int rotational;			/* queue/rotational: 1, 0, -1 unknown */
};

/*
 * Pure: VPD page B1h @buf (Block Device Characteristics): MEDIUM ROTATION
 * RATE (0 not reported, 1 non-rotating, else rpm) and ZONED (byte 8 bits
 * 5:4: 0 not reported, 1 host-aware, 2 device-managed). 0, or -EINVAL
 * when it is not that page or too short.
 */
int ap_smr_parse_vpd_b1(const uint8_t *buf, size_t len, unsigned *rpm, unsigned *zoned);

/*
 * Pure: the ATA IDENTIFY DEVICE data log (30h). Page 00h @buf lists the
 * pages the drive has (byte 8 their number, from byte 9 each): whether
 * @page is one. Page 09h, zoned device information, which a drive of the
 * zoned ATA command set (host-aware, host-managed) has: each field a
 * little-endian qword whose bit 63 says it is valid; UINT32_MAX where it
 * is not. 0, or -EINVAL when @buf is not that page (its header: revision
 * 0001h, page 09h) or too short.
 */
struct ap_smr_zoned_info {
	int urswrz;		/* unrestricted read in sequential write required zones: 1, 0; -1 */
	uint32_t opt_open;	/* optimal number of open sequential write preferred zones */
	uint32_t opt_nonseq;	/* ... of non-sequentially written ones */
	uint32_t max_open;	/* maximum number of open sequential write required zones */
};
bool ap_smr_log_page_listed(const uint8_t *buf, size_t len, unsigned page);
int ap_smr_parse_zoned_info(const uint8_t *buf, size_t len, struct ap_smr_zoned_info *zi);

/*
 * A drive with a model of its own (the emulated drive, whose loop device
 * cannot say it has no TRIM): whether @dev takes TRIM, 1 or 0, or -1 to
 * ask the kernel. Filled by the command (the smr layer may not use the
 * emulator); NULL: always the kernel.
 */
struct ap_smr_hooks {
	int (*trim)(const char *dev);
};

/*
 * Read every cheap signal of the whole disk @dev of kernel name @name
 * ("sdb"), open read-only as @fd. Never fails: what cannot be read is
 * "not available".
 */
void ap_smr_signals_read(const char *dev, const char *name, int fd,
			 const struct ap_smr_hooks *h, struct ap_smr_signals *s);

/* ---- run.c ---- */

/* Where the timed writes go: @slots records of @span bytes, @stride apart. */
struct ap_smr_plan {
	uint64_t dev_size;
	unsigned logical_sector;
	uint64_t region_start, region_size, stride;
	unsigned slots;
	uint32_t span;
	uint64_t seed;
};

/*
 * The plan for a device of @size bytes: @writes slots over everything but
 * the first and last AP_SMR_MARGIN. -ENOSPC with @e when the device is too
 * small for them to be a seek apart (64 MiB at least).
 */
int ap_smr_plan(uint64_t size, unsigned logical, unsigned writes, uint64_t seed,
		struct ap_smr_plan *p, struct ap_error *e);
/*
 * Where the timed read after a write goes, near slot @o: half-way to the
 * next slot (the last slot: to the one before), inside the region.
 */
uint64_t ap_smr_read_offset(const struct ap_smr_plan *p, unsigned o);
/* The undo journal's plan of @p (probe/journal.h: one record a slot). */
struct ap_journal_plan;
void ap_smr_journal_plan(const struct ap_smr_plan *p, struct ap_journal_plan *jp);

/*
 * One timed phase: every slot written once, in a random order, each write
 * followed by a timed read of another slot (a seek away): a pair that a
 * busy machine slows alike, so the share of writes faster than their read
 * does not depend on the machine's load. A disk that writes in place pays
 * a seek and the platter for both (about half the writes are faster); a
 * cache answers nearly every write faster than any read a seek away.
 */
#define AP_SMR_FAST_SHARE	0.75	/* writes faster than their read: a cache */
struct ap_smr_phase {
	bool done;
	bool cache_on;			/* the drive's write cache during it (as known) */
	bool cache_known;
	unsigned n;
	uint64_t median_ns, p10_ns, p90_ns;	/* the writes */
	uint64_t read_median_ns;	/* the reads */
	unsigned faster;		/* writes faster than the read after them */
};

struct ap_smr_run;

/*
 * Open @dev for the timed writes (O_DIRECT | O_DSYNC) under plan @p; with
 * @journal (preserving): the identity read, the journal created, every
 * slot's original bytes in it, committed and registered in the run
 * registry before anything is written, and the writes write those bytes
 * back. -errno with @e.
 */
int ap_smr_run_open(const char *dev, const struct ap_smr_plan *p, const char *journal,
		    struct ap_smr_run **out, struct ap_error *e);
/* One phase (see struct ap_smr_phase). -errno with @e (a failed write). */
int ap_smr_run_phase(struct ap_smr_run *r, struct ap_smr_phase *ph, struct ap_error *e);
/*
 * Preserving: compare and put back what differs, then remove the journal
 * (*@restored); a restore that fails keeps the journal for `probe --undo`
 * (-errno with @e). Frees @r.
 */
int ap_smr_run_close(struct ap_smr_run *r, bool *restored, struct ap_error *e);

/* ---- cliff.c: the deep test's pure parts ---- */

/*
 * The cliff in a sequence of write latencies (the persistent cache full):
 * the writes are cut into windows of AP_SMR_CLIFF_WINDOW; the base is the
 * median of the first AP_SMR_CLIFF_BASE windows' means. The cliff is the
 * first window whose mean exceeds AP_SMR_CLIFF_FACTOR times the base and
 * whose next AP_SMR_CLIFF_CONFIRM windows together (itself included) do
 * too: one slow window (the machine busy, a retry) is noise; a full cache
 * stalls again and again. Means, not medians: a full SMR cache stalls
 * one write in several for seconds, the rest stay fast, so the throughput
 * falls (120 to 1.5 IOPS) while a window's median may not move.
 */
#define AP_SMR_CLIFF_WINDOW	32
#define AP_SMR_CLIFF_BASE	4
#define AP_SMR_CLIFF_CONFIRM	4
#define AP_SMR_CLIFF_FACTOR	8

struct ap_smr_cliff {
	bool found;
	size_t at;			/* found: the writes before the first slow one */
	size_t next;			/* the first window not examined yet */
	uint64_t base_ns;		/* the first windows' median mean (0: not yet) */
	uint64_t after_ns;		/* found: the mean of the confirming windows */
};

/*
 * Examine the latencies @lat[0..@n) (ns; @n only grows between calls on
 * one @c, zeroed first): true when the cliff is found (c->at, c->after_ns).
 * Cheap to call after every window: it resumes at c->next.
 */
bool ap_smr_cliff_find(const uint64_t *lat, size_t n, struct ap_smr_cliff *c);

/*
 * The idle cleaning: after the cliff, single writes at growing intervals
 * (AP_SMR_IDLE_FIRST, times 3/2, at most AP_SMR_IDLE_MAX: a drive that
 * waits longer than an interval before it cleans still gets to clean)
 * until two in a row are fast again (one alone may have come at the end
 * of a band's cleaning). A probe is fast under AP_SMR_CLIFF_FACTOR times
 * the base.
 */
#define AP_SMR_IDLE_FIRST	(1ULL * AP_NSEC_PER_SEC)
#define AP_SMR_IDLE_MAX		(60ULL * AP_NSEC_PER_SEC)

struct ap_smr_idle {
	uint64_t fast_ns;		/* the threshold */
	uint64_t interval_ns;		/* to the next probe */
	unsigned probes, slow;
	bool pending;			/* the last probe was fast: confirm */
	uint64_t pending_at;
	bool clean;			/* two fast in a row */
	uint64_t clean_ns;		/* clean: the first of them, since the last fill write */
	uint64_t last_slow_ns;		/* the last slow probe's time (a lower bound) */
	uint64_t longest_ns;		/* the longest a probe waited */
	uint64_t first_slow_wait_ns;	/* the idle before the first slow probe (0: none) */
};

void ap_smr_idle_init(struct ap_smr_idle *s, uint64_t base_ns);
/* A probe at @t_ns after the last fill write took @lat_ns: whether it is clean now. */
bool ap_smr_idle_step(struct ap_smr_idle *s, uint64_t t_ns, uint64_t lat_ns);

/* ---- band.c: the band size's pure parts ---- */

/*
 * The idle delay: the shortest idle after which a probe (a read) finds
 * the drive cleaning, with bands left to clean (the probe waits for the
 * band in hand: slower than fast_ns). Tries AP_SMR_DELAY_FIRST, then each
 * time a quarter longer until a probe is slow (failed past twice
 * @max_ns, AP_SMR_DELAY_MAX when 0), then bisects to AP_SMR_DELAY_RES:
 * try_ns the idle to wait next; done: hi_ns, an idle after which the
 * drive is cleaning. @max_ns: the idle after which the drive was seen
 * cleaning before (the deep test's first slow idle probe), twice. A fast
 * probe counts when AP_SMR_DELAY_CONFIRM more, each fast_ns +
 * AP_SMR_DELAY_RES earlier, are fast too: one may come at the very end of
 * a band's cleaning and wait only a little, one earlier would wait long.
 */
#define AP_SMR_DELAY_FIRST	(50ULL * 1000 * 1000)
#define AP_SMR_DELAY_RES	(10ULL * 1000 * 1000)
#define AP_SMR_DELAY_MAX	(60ULL * AP_NSEC_PER_SEC)
#define AP_SMR_DELAY_CONFIRM	2

struct ap_smr_delay {
	uint64_t fast_ns;
	uint64_t try_ns;
	uint64_t lo_ns, hi_ns;		/* a fast probe's idle, a slow one's (0: none yet) */
	uint64_t max_ns;
	unsigned fast_n;		/* probes fast from fast_at on, each tried earlier */
	uint64_t fast_at;
	bool done, failed;
};

void ap_smr_delay_init(struct ap_smr_delay *s, uint64_t fast_ns, uint64_t max_ns);
/* A probe after @idle_ns took @lat_ns. */
void ap_smr_delay_step(struct ap_smr_delay *s, uint64_t idle_ns, uint64_t lat_ns);

/*
 * One pair: two writes, then probes an idle delay apart. The first probe
 * fast: it came before the cleaning (MISSED, try again); waiting less than
 * AP_SMR_PAIR_SHORT_FACTOR times fast_ns: a cleaning too short to tell a
 * second from the threshold (SHORT: a hybrid's flash cache cleaning write
 * by write; a 15 MiB band takes 150 ms and more); the second slower than a
 * quarter of the first's wait (and than fast_ns): a second band was
 * cleaned (TWO), else ONE.
 */
enum { AP_SMR_PAIR_MISSED = 0, AP_SMR_PAIR_ONE = 1, AP_SMR_PAIR_TWO = 2, AP_SMR_PAIR_SHORT = 3 };
#define AP_SMR_PAIR_SHORT_FACTOR	3
int ap_smr_pair_classify(uint64_t fast_ns, uint64_t first_ns, uint64_t second_ns);

/*
 * A band boundary after @from: distances doubled from AP_SMR_BAND_STEP
 * until a pair falls in two bands (failed past @max), then bisected to
 * AP_SMR_BAND_STEP: the boundary is in (from + lo, from + hi]. next: the
 * distance to try.
 */
#define AP_SMR_BAND_STEP	(1ULL << 20)
#define AP_SMR_BAND_MAX		(1ULL << 30)
#define AP_SMR_BAND_FAST_MIN	(20ULL * 1000 * 1000)	/* a probe slower waited for a cleaning */

struct ap_smr_boundary {
	uint64_t from, max;
	uint64_t lo, hi;		/* one band at lo; two at hi (0: not yet) */
	uint64_t next;
	bool done, failed;
};

void ap_smr_boundary_init(struct ap_smr_boundary *b, uint64_t from, uint64_t max);
void ap_smr_boundary_step(struct ap_smr_boundary *b, uint64_t d, bool same);
/*
 * The band from boundary @a and boundary @b searched from a's hi: its
 * middle estimate and the half-width of what the two intervals allow.
 * False when no pair from b's start fell in one band (writes
 * AP_SMR_BAND_STEP apart cleaned apart: units smaller than that, not
 * bands).
 */
bool ap_smr_band_estimate(const struct ap_smr_boundary *a, const struct ap_smr_boundary *b,
			  uint64_t *bytes, uint64_t *error);

/* The band measurement's result (deep.c). */
struct ap_smr_band {
	bool ran, found;
	char reason[200];		/* !found: why not */
	uint64_t bytes, error;		/* found: the band, +- error */
	uint64_t at;			/* the first boundary (bytes), found */
	uint64_t delay_ns;		/* the idle delay before cleaning */
	uint64_t clean_ns;		/* the median wait of a first probe: one band's cleaning */
	unsigned pairs;			/* pairs written */
};

/* The deep test's result (deep.c fills it, the command asks for it). */
struct ap_smr_deep {
	bool asked;			/* --deep */
	bool ran;			/* else reason says why not */
	char reason[200];
	uint64_t time_budget_ns, byte_budget;	/* byte_budget 0: none */
	uint32_t span;			/* bytes a write */
	uint64_t writes;		/* the fill's */
	const char *stop;		/* "cliff", "time budget", "byte budget", "write limit" */
	struct ap_smr_cliff cliff;
	struct ap_smr_idle idle;
	bool idle_ran;
	struct ap_smr_band band;
	uint64_t elapsed_ns;
};

/* ---- deep.c ---- */

#define AP_SMR_DEEP_TIME_DEFAULT	(10ULL * 60 * AP_NSEC_PER_SEC)
#define AP_SMR_DEEP_MAX_WRITES		(1ULL << 24)	/* the latencies' memory: 128 MiB */

/*
 * The deep test on @dev (destructive; the write cache already off):
 * synchronous random writes of p->span over p's region until the cliff
 * or the budgets (d->time_budget_ns for the whole test, d->byte_budget for
 * the fill), then, after a cliff, the idle probes within the time left.
 * d->ran set; -errno with @e (a failed write).
 */
int ap_smr_deep_run(const char *dev, const struct ap_smr_plan *p, struct ap_smr_deep *d,
		    struct ap_error *e);
/* The deep test's plan (--dry-run) and its result, in words; caller frees. */
char *ap_smr_deep_plan_words(const struct ap_smr_deep *d, uint32_t span);
char *ap_smr_deep_words(const struct ap_smr_deep *d);
/* {"ran", "reason", "cache_bytes", ..., "band_bytes": null, ...}. */
struct json_object *ap_smr_deep_to_json(const struct ap_smr_deep *d);

/* ---- verdict.c ---- */

enum ap_smr_verdict {
	AP_SMR_UNKNOWN = 0,		/* cannot tell: exit 5 with the reason */
	AP_SMR_NOT_ROTATING,		/* SSD, NVMe, RAM disk: not applicable */
	AP_SMR_HOST_MANAGED,
	AP_SMR_HOST_AWARE,
	AP_SMR_CONVENTIONAL,		/* no persistent cache: CMR */
	AP_SMR_PERSISTENT_CACHE,	/* DM-SMR or a hybrid (SSHD) */
};

struct ap_smr_result {
	enum ap_smr_verdict verdict;
	const char *source;		/* "measured", "zone model", "drive", "rotation" */
	char reason[640];		/* why; for UNKNOWN, what is missing */
	struct ap_smr_signals sig;
	bool rotation_measured;
	uint64_t seek_read_ns;		/* device/rotation.h's value */
	struct ap_smr_phase on, off;	/* the phase with the cache as found, and off */
	bool unflushed;			/* fast with the cache on, slow off: flushes ignored */
	bool cache_switchable;
	bool wrote;			/* anything was written */
	bool preserved, restored;
	struct ap_smr_deep deep;	/* --deep: the deeper test (deep.asked) */
};

/* The verdict's key in JSON, the store and metrics: "dm-smr-or-hybrid", "cmr", ... */
const char *ap_smr_verdict_key(enum ap_smr_verdict v);
/* -1 for an unknown key. */
int ap_smr_verdict_from_key(const char *key);
/* A persistent media cache or zones: what a pool of shingle-averse disks refuses. */
bool ap_smr_is_shingled(enum ap_smr_verdict v);

/*
 * Decide from the signals alone, before anything is written: true when
 * they settle it (a zone model, a drive that says DM-SMR, a medium that
 * does not rotate), with r->verdict and r->reason set.
 */
bool ap_smr_decide_signals(struct ap_smr_result *r);
/* Whether a phase's writes were fast: AP_SMR_FAST_SHARE of them faster than their read. */
bool ap_smr_phase_fast(const struct ap_smr_phase *ph);
/*
 * Decide from the rotation and the phases: r->off (the write cache off:
 * switched, or found so) decides; r->on alone only says "conventional"
 * when slow, and "cannot tell" when fast.
 */
void ap_smr_decide(struct ap_smr_result *r);

/* The verdict in words, then each signal with its strength. Caller frees. */
char *ap_smr_words(const char *dev, const struct ap_smr_result *r);
/* The plan (--dry-run) in words. Caller frees. */
char *ap_smr_plan_words(const char *dev, const struct ap_smr_plan *p, const char *journal,
			const char *cache);
/* One device's document: {"device", "verdict", "smr", "source", "reason", ...}. */
struct json_object *ap_smr_to_json(const char *dev, const struct ap_smr_result *r);

#endif
