/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The check engine: what a partition table is judged against and how.
 *   geom.c   the geometries a partition is checked against (the reported
 *            one, the drive's, --geometry matching, the verdict store's
 *            for the disk's model)
 *   rule.c   the rule that decides among them (rule.h), with the reason
 *            in words
 *   judge.c  the device read once (table, topology, identity), the
 *            verdict on each partition, the counts, what to run next
 * It never prints: the command (src/cmd/check*.c) says what it found.
 */
#ifndef AP_CHECK_CHECK_H
#define AP_CHECK_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check/rule.h"
#include "device/geometry.h"
#include "device/identity.h"
#include "device/nextsteps.h"
#include "device/ptable.h"
#include "device/topology.h"
#include "fleet/load.h"
#include "fleet/vstore.h"
#include "lib/util.h"

#define AP_CHECK_MAX_STORES	16

/* The geometries a partition is checked against; unit 0 = not available. */
struct ap_check_geoms {
	struct ap_geometry reported;
	struct ap_geometry drive;
	struct ap_geometry probed;	/* from --geometry or --physical */
	const struct ap_geometry *basis;	/* probed, else drive, else reported */
	struct ap_geometry decided;	/* what the rule makes of the basis */
	const struct ap_geometry *in_force;	/* = &decided */
	enum ap_check_rule rule;
	char reason[1024];		/* why the rule decided, for people */
	uint64_t reported_offset;	/* the reported alignment offset, bytes */
	uint64_t optio;			/* sane optimal I/O, bytes, or 0 */
	uint64_t optio_lowest;		/* its offset, LBA */
};

/* What the verdict store says of the disk's model (--verdicts). */
enum ap_check_mv_state {
	AP_MV_OFF = 0,		/* no --verdicts */
	AP_MV_NOT_NEEDED,	/* a probe of this disk (--geometry) decided */
	AP_MV_NO_MODEL,		/* the disk states no model (an image file, a loop device) */
	AP_MV_NONE,		/* the store has no verdict for the model */
	AP_MV_OTHER_SECTOR,	/* only verdicts for another logical sector size */
	AP_MV_USED,		/* one verdict: it decides */
	AP_MV_CONFLICT,		/* several: none decides, the disk counts as unproven */
	AP_MV_UNSHOWN,		/* one "no effect" without its margin (or a wider one than
				   AP_ABSENCE_MARGIN): it does not decide, unproven */
};

struct ap_check_model {
	enum ap_check_mv_state state;
	const struct ap_vstore_model *m;
	size_t model_index;
	size_t verdict;		/* AP_MV_USED: the index of the one that decided */
	size_t nmatching;	/* verdicts for the disk's logical sector size */
};

/* How ap_check_geometries() failed, for the command's message (e->msg). */
enum ap_check_fault {
	AP_CHECK_FAULT_NONE = 0,
	AP_CHECK_FAULT_FILE,	/* a bad --geometry file: e->msg names it */
	AP_CHECK_FAULT_DEVICE,	/* the file's verdict does not fit the device */
	AP_CHECK_FAULT_USAGE,	/* --physical / --lowest-aligned out of range */
};

/* One check: what is given (the same for every device), then what is found. */
struct ap_check {
	const char *device;
	const char *geometry_file;	/* --geometry */
	uint64_t physical;		/* --physical, bytes */
	uint64_t lowest;		/* --lowest-aligned */
	uint64_t sector_size;		/* --sector-size */
	/* --chunk, --stripe, --allocation-unit: levels above the physical sector,
	   bytes, 0 when not given (added to the geometry in force, from LBA 0) */
	uint64_t chunk, stripe, alloc_unit;
	bool check_size;		/* --check-size */
	bool trust_reported;		/* --trust-reported */
	bool geometry_any;		/* --geometry-any */
	bool verdicts;			/* --verdicts: a store is loaded */
	const struct ap_vstore *store;	/* its layers, loaded once */
	const char *verdict_files[AP_CHECK_MAX_STORES];	/* every --verdicts[=FILE], in order */
	size_t nverdict_files;

	/* per device */
	const char *verdicts_file;	/* the store of the disk's model (else the first) */
	struct ap_fleet_pick pick;	/* the entry of the --geometry file used */
	struct ap_ptable pt;
	struct ap_topology topo;
	struct ap_disk_identity id;	/* read for --verdicts and --prometheus */
	bool have_id;
	struct ap_check_geoms g;
	struct ap_check_model mv;
	enum ap_check_fault fault;	/* why ap_check_geometries() failed */
	char note[512];		/* --geometry has no entry for it: the verdict store
					   is tried (non-empty: the command may say so) */
	size_t nmisaligned, nchecked;	/* ap_check_count() */
	struct ap_next_steps next;	/* ap_check_next_steps() */
};

/* The verdicts on one partition (ap_check_judge()). */
struct ap_check_verdicts {
	int reported, drive, probed, mib, optio;	/* -1 not applicable, 0/1 */
	bool size_aligned;
	int aligned;					/* -1 for containers */
	int level;		/* the first level of the geometry in force the start misses, -1 none */
	uint64_t misalign;	/* sectors past that level's boundary (else the sector's) */
	uint64_t next;		/* the first start aligned to every level (ap_levels_start()) */
};

struct json_object;

/* geom.c */

/* A geometry in words: "4096-byte physical sectors (probed, lowest aligned LBA 0)" */
void ap_check_describe_geometry(const struct ap_geometry *g, char *buf, size_t sz);
/* "serial S1 (/dev/sdb on node1, probe, 2026-12-01T08:00:00Z)" */
void ap_check_describe_example(const struct ap_vstore_example *x, char *buf, size_t sz);
/*
 * The geometries of the device read into @c (pt, topo, id), the rule's
 * decision and its reason (c->g, c->mv, c->pick, c->verdicts_file,
 * c->note). 0, or -errno with @e and c->fault set.
 */
int ap_check_geometries(struct ap_check *c, struct ap_error *e);

/*
 * --verdicts: the stores c->verdict_files resolved (ap_vstore_path()) and
 * loaded: each one's ap_vstore_load() result into @rcs and the models it
 * holds into @nmodels (for the metrics), then all of them as layers into
 * @store (c->store). One that fails: none is used (c->verdicts cleared)
 * and its -errno returned with @e; *@said when @e is the failing store's
 * own message (the first of them), worth saying. 0 when all are used.
 */
int ap_check_load_stores(struct ap_check *c, struct ap_vstore *store, int *rcs, size_t *nmodels,
			 bool *said, struct ap_error *e);
/*
 * -J's "model_verdict": what the verdict store said of the disk's model
 * (the stores, the state, the model, the entry used, its verdicts for the
 * table's sector size); NULL without --verdicts.
 */
struct json_object *ap_check_model_to_json(const struct ap_check *c);
/*
 * Why the model's "no effect" verdict in force (c->mv.state AP_MV_UNSHOWN)
 * is not used, in words: no size a hidden unit was ruled out up to, or a
 * margin too wide to show honest sectors.
 */
void ap_check_describe_unshown(const struct ap_check *c, char *buf, size_t sz);

/* judge.c */

/*
 * Read the device: its partition table (in a child, see
 * ap_ptable_read_isolated()), its topology and, when @want_id and it is a
 * block device, its identity (c->have_id; a failure to read it is in
 * @id_err, not an error). 0 or -errno with @e set.
 */
int ap_check_read(struct ap_check *c, bool want_id, struct ap_error *e, struct ap_error *id_err);
void ap_check_judge(const struct ap_check *c, const struct ap_part *p, struct ap_check_verdicts *v);
/*
 * What is wrong with partition @p under the geometry in force, in words
 * ("partition 2: start 35 is not aligned to ...; next aligned start 40",
 * or its size): true, or false when it is aligned or not judged.
 */
bool ap_check_describe_fault(const struct ap_check *c, const struct ap_part *p, char *buf,
			     size_t sz);
/* No table, a file system or volume on the whole disk: its byte 0 is not
 * aligned under the geometry in force (a lowest aligned LBA 7, say). */
bool ap_check_whole_disk_misaligned(const struct ap_check *c);
/* c->nchecked and c->nmisaligned: the partitions judged, and the ones that are
 * not aligned; a file system on the whole disk counts as one, at byte 0. */
void ap_check_count(struct ap_check *c);
/* c->next: what to run next for each misaligned partition. */
void ap_check_next_steps(struct ap_check *c);
/* Free what the device's check read and found (not what is given). */
void ap_check_free_device(struct ap_check *c);

/* admit.c */

/*
 * Can c->device be checked? -EBUSY when a live sweep or seq rewrites its
 * table (read from the registry only), -EINVAL for a partition (@e names
 * its disk); 0 otherwise, also for an image.
 */
int ap_check_admit(const struct ap_check *c, struct ap_error *e);
/*
 * A table written for another logical sector size (c->pt.foreign_sector_size):
 * its likely cause and the way to read it as written, in words.
 */
void ap_check_foreign_advice(const struct ap_check *c, char *cause, size_t csz, char *remedy,
			     size_t rsz);

/* metrics.c */

struct ap_prom;
/* --prometheus: the device's series after its check ended with exit @status. */
void ap_check_prom(const struct ap_check *c, struct ap_prom *p, int status);

#endif
