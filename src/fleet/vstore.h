/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The verdict store: what probes and sweeps found, per drive model, so that
 * one probe decides for every disk of that model (ZFS keeps a hard-coded
 * list of models that lie about their sectors; this one is measured and
 * grows with the fleet).
 *
 * A JSON file (default /var/lib/alignprobe/verdicts.json):
 *   {"format": "alignprobe-verdicts", "version": 1, "models": [
 *     {"vendor", "model", "revision",          the key (vendor, revision may be null)
 *      "verdicts": [                           one, or several: a conflict
 *        {"logical_sector", "physical_sector", "lowest_aligned_lba",
 *         "sensitive", "absence_margin" (not sensitive: the smallest margin
 *         down to which "no effect" was shown; absent in older stores),
 *         "ruled_out_up_to" (not sensitive: the largest size up to which a
 *         "no effect" ruled out every hidden unit, bytes; absent in older
 *         stores: such a verdict is not used, see ap_no_effect_unit()),
 *         "levels" (levels above the physical sector, when found: the
 *         verdict's "levels" array, level 0 the physical sector; absent in
 *         older stores and for a physical sector alone),
 *         "ruled_out" (not sensitive, when a newer probe stated it:
 *         {"up_to", "first_writes", "rewrites"}),
 *         "examples": [                        the disks it was measured on
 *           {"serial", "wwn", "device", "host", "source" ("probe"|"sweep"),
 *            "recorded" (RFC 3339, UTC), "confidence", "runs"}]}]}]}
 *
 * A model is vendor, model and firmware revision as the identity module
 * reads them (src/device/identity.h); the serial and WWN say which disk an example
 * is. A verdict is its geometry (logical, physical sector, lowest aligned
 * LBA): a second disk (or a second run) with the same geometry adds or
 * updates an example, one with another geometry adds a second verdict to
 * the model, and the model is then in conflict: a lookup reports every
 * verdict and uses none (nothing is averaged or outvoted).
 *
 * A member of the document, a model, a verdict or an example that this
 * alignprobe does not know (a newer one's) is kept as it was read when
 * the store is rewritten ("extra"); a merge keeps the store's own and
 * takes a source's where the store has none.
 *
 * Writers lock FILE.lock (flock, exclusive) for the whole read-modify-write
 * and replace FILE atomically (a temporary file in its directory, fsync,
 * rename, fsync of the directory), so that concurrent --record runs lose
 * nothing and a reader never sees half a file. FILE is the file a symbolic
 * link names (also a dangling one: its target is created), locked and
 * replaced there, so that two names of one store are one lock and the link
 * stays a link. A corrupt store is never overwritten: -EINVAL, and the
 * file stays as it was; nor is one written that would be larger than
 * AP_VSTORE_MAX_BYTES, the size up to which a store is read (-EFBIG).
 *
 * The parts that take a struct ap_vstore are pure; the file functions do
 * I/O. Nothing prints.
 */
#ifndef AP_VSTORE_H
#define AP_VSTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "lib/levels.h"
#include "lib/util.h"

struct json_object;
struct ap_disk_identity;

#define AP_VSTORE_DEFAULT	"/var/lib/alignprobe/verdicts.json"
#define AP_VSTORE_ENV		"ALIGNPROBE_VERDICTS"
#define AP_VSTORE_MAX_BYTES	(64u << 20)

struct ap_vstore_example {
	char *serial, *wwn;	/* NULL when the disk states none */
	char *device;		/* the path it was measured at */
	char *host;		/* the machine, NULL when unknown */
	char *source;		/* "probe" or "sweep" */
	char *recorded;		/* RFC 3339 UTC of the last run */
	double confidence;	/* NAN when unknown */
	uint64_t runs;		/* runs with this result on this disk */
	struct json_object *extra;	/* members this alignprobe does not know, kept */
};

struct ap_vstore_verdict {
	unsigned logical_sector;
	uint64_t physical_sector;	/* bytes */
	uint64_t lowest_aligned_lba;	/* < physical / logical */
	bool sensitive;			/* alignment measurably mattered (any example) */
	/*
	 * Not sensitive: the smallest margin its "no effect" was shown down to
	 * (a probe's 1.10, a sweep's 1.15); 0 when no record said (stores of
	 * older alignprobes, which ruled out only 1.5x).
	 */
	double absence_margin;
	/*
	 * Not sensitive: the largest size up to which an example's "no
	 * effect" ruled out every hidden unit (bytes); 0 when no record said.
	 */
	uint64_t ruled_out_up_to;
	/* the levels (lib/levels.h), level 0 the physical sector; n 0 or 1:
	 * the physical sector alone. A verdict is its geometry and these. */
	struct ap_levels levels;
	struct ap_ruled_out ruled_out;	/* not sensitive: stated, else up_to 0 */
	/* sensitive: an example's first writes cost more with no unit placed
	   (ap_verdict.first_writes_unplaced); check warns */
	bool first_writes_unplaced;
	struct ap_vstore_example *examples;
	size_t nexamples;
	struct json_object *extra;	/* members this alignprobe does not know, kept */
};

struct ap_vstore_model {
	char *vendor, *model, *revision;	/* model never NULL */
	struct ap_vstore_verdict *verdicts;
	size_t nverdicts;			/* > 1: a conflict */
	/* where it was read (not stored): the layer (ap_vstore_load_layers(),
	 * 0 for one store) and its index in that file's "models" */
	size_t layer, index;
	struct json_object *extra;	/* members this alignprobe does not know, kept */
};

/*
 * What `smr --record` found for a model (issue 35): one row per model and
 * verdict key ("dm-smr-or-hybrid", "cmr", ...; src/smr/smr.h), with the
 * disk it was last measured on. Two rows of one model with different
 * verdicts are a conflict (one model number has shipped as both CMR and
 * SMR): a lookup reports both. The store's top-level "smr" array, written
 * only when there is a row (older stores stay as they were). `verdicts
 * merge` adds a store's rows, `forget` removes a model's, `list` and
 * `show` print them.
 */
/*
 * `smr --deep`'s figures, 0 each when it did not measure it. A row holds
 * those of the last deep test recorded for it (its "deep" object, written
 * only when one was measured: rows and stores without it mean what they
 * meant); a later run that measured none leaves them.
 */
struct ap_vstore_smr_deep {
	uint64_t cache_bytes;		/* the persistent cache's size (the cliff) */
	uint64_t band_bytes, band_error_bytes;	/* the band size, +- */
	uint64_t idle_clean_ns;		/* the idle cleaning: writes fast again after */
};

struct ap_vstore_smr {
	char *vendor, *model, *revision;	/* model never NULL */
	char *verdict;
	char *serial, *device, *host, *recorded;	/* NULL when unknown */
	struct ap_vstore_smr_deep deep;
	size_t layer;			/* ap_vstore_load_layers(): its file */
};

struct ap_vstore {
	struct ap_vstore_model *models;
	size_t nmodels;
	struct json_object *extra;	/* members this alignprobe does not know, kept */
	struct ap_vstore_smr *smr;	/* vstore_smr.c */
	size_t nsmr;
};

/* ---- the smr rows (vstore_smr.c) ---- */

struct ap_vstore_record;
struct ap_vstore_merged;

/*
 * Add or update the row of @r's model (vendor, model, revision, serial,
 * device, host, when) for @verdict, with @deep's figures when it holds
 * any (NULL: none): 1 when the store changed, 0 when it held exactly
 * that; -EINVAL with @e without a model.
 */
int ap_vstore_smr_set(struct ap_vstore *s, const struct ap_vstore_record *r,
		      const char *verdict, const struct ap_vstore_smr_deep *deep,
		      struct ap_error *e);
/* Whether @d holds a figure. */
bool ap_vstore_smr_deep_any(const struct ap_vstore_smr_deep *d);
/* The rows of a model (NULLs match NULLs): their indexes in @idx (at most @max); how many. */
size_t ap_vstore_smr_find(const struct ap_vstore *s, const char *vendor, const char *model,
			  const char *revision, size_t *idx, size_t max);
void ap_vstore_smr_free(struct ap_vstore *s);
/* The "smr" array (NULL when there are no rows), and reading it back (absent: none). */
struct json_object *ap_vstore_smr_to_json(const struct ap_vstore *s);
/* One row as the array holds it. */
struct json_object *ap_vstore_smr_row_to_json(const struct ap_vstore_smr *x);
int ap_vstore_smr_from_json(struct json_object *doc, struct ap_vstore *s, struct ap_error *e);
/* Append @src's rows of the models @dst holds none of (a lower layer, @layer). */
void ap_vstore_smr_layer(struct ap_vstore *dst, const struct ap_vstore *src, size_t layer);
/*
 * Merge @src's rows into @dst: a row of a model and verdict @dst lacks is
 * added (@st->smr_added), one it holds takes the disk of a later
 * "recorded" (@st->smr_updated).
 */
void ap_vstore_smr_merge(struct ap_vstore *dst, const struct ap_vstore *src,
			 struct ap_vstore_merged *st);
/* The rows @name names, as ap_vstore_match() names models. */
size_t ap_vstore_smr_match(const struct ap_vstore *s, const char *name, size_t *idx, size_t max);
/* Remove the row at @index (rows after it move down). */
void ap_vstore_smr_remove(struct ap_vstore *s, size_t index);
/* The model's SMR verdicts, "cmr" or "cmr,dm-smr-or-hybrid" (a conflict), or NULL; malloc'd. */
char *ap_vstore_smr_verdicts(const struct ap_vstore *s, const char *vendor, const char *model,
			     const char *revision);

/* One result to add. */
struct ap_vstore_record {
	const char *vendor, *model, *revision;	/* model required */
	/* the disk's key as alignprobe 0.1 read it, NULL when the same (a
	   SATA disk: libata's 16-character model): an entry under it is
	   moved to the key above when this record is added */
	const char *legacy_vendor, *legacy_model, *legacy_revision;
	const char *serial, *wwn, *device, *host;
	const char *source;			/* "probe" or "sweep" */
	unsigned logical_sector;
	uint64_t physical_sector, lowest_aligned_lba;
	bool sensitive;
	double absence_margin;			/* not sensitive: the verdict's; 0 unknown */
	uint64_t ruled_out_up_to;		/* not sensitive: the verdict's; 0 unknown */
	struct ap_levels levels;		/* the verdict's (ap_verdict_levels()) */
	struct ap_ruled_out ruled_out;		/* not sensitive: the verdict's stated one */
	bool first_writes_unplaced;		/* sensitive: the verdict's */
	double confidence;			/* NAN when unknown */
	time_t when;
};

/* What ap_vstore_add() did. */
enum ap_vstore_added {
	AP_VSTORE_NEW_MODEL = 1,	/* the first verdict for the model */
	AP_VSTORE_NEW_EXAMPLE,		/* the model's verdict, on another disk */
	AP_VSTORE_SAME_EXAMPLE,		/* the same disk, the same verdict again */
	AP_VSTORE_CONFLICT,		/* another verdict than the model has */
};

void ap_vstore_init(struct ap_vstore *s);
void ap_vstore_free(struct ap_vstore *s);

/* 0 when a geometry can be a verdict (power-of-two sectors, logical
 * 512..65536, physical at least the logical and at most 1 GiB, the lowest
 * aligned LBA inside one physical sector); else -EINVAL with @e. */
int ap_vstore_check_geometry(unsigned logical, uint64_t physical, uint64_t lowest,
			     struct ap_error *e);

/*
 * Add @r: -EINVAL with the reason in @e when it has no model, a logical
 * sector that is not a power of two from 512, a physical sector that is
 * not a power-of-two multiple of it, or a lowest aligned LBA out of range.
 * Otherwise the ap_vstore_added (positive).
 */
int ap_vstore_add(struct ap_vstore *s, const struct ap_vstore_record *r, struct ap_error *e);

/*
 * The model @vendor/@model/@revision (NULLs match NULLs; strings compare
 * exactly), or NULL.
 */
const struct ap_vstore_model *ap_vstore_find(const struct ap_vstore *s, const char *vendor,
					     const char *model, const char *revision);

/*
 * ... of the disk @id; NULL when it states no model. A store written by
 * alignprobe 0.1 keys a SATA disk by libata's INQUIRY (16 characters of
 * the model, 4 of the firmware): the disk's legacy key is tried after its
 * own, unless it was a bridge's (never the drive's).
 */
const struct ap_vstore_model *ap_vstore_find_disk(const struct ap_vstore *s,
						  const struct ap_disk_identity *id);

/* "ATA ST4000DM004-2CV1 0001" (vendor and revision when known), malloc'd. */
char *ap_vstore_model_name(const struct ap_vstore_model *m);
char *ap_vstore_key_name(const char *vendor, const char *model, const char *revision);

/* JSON both ways; decoding checks every type and value: -EINVAL with @e. */
struct json_object *ap_vstore_to_json(const struct ap_vstore *s);
struct json_object *ap_vstore_example_to_json(const struct ap_vstore_example *x);
/*
 * A verdict as the store writes it, its members added to @o (NULL: a new
 * object); @nulls: absence_margin and ruled_out_up_to present as null
 * where they do not apply, not left out.
 */
struct json_object *ap_vstore_verdict_to_json(const struct ap_vstore_verdict *v,
					      struct json_object *o, bool nulls);
/*
 * What `verdicts show -J` says of a model: as the store writes it, and its
 * name, the store file @store that holds it, its entry, whether it is in
 * conflict.
 */
struct json_object *ap_vstore_model_to_json(const struct ap_vstore_model *m, const char *store);
int ap_vstore_from_json(struct json_object *o, struct ap_vstore *s, struct ap_error *e);

/*
 * Read the store @path: 0, -ENOENT when it does not exist (@s empty), or
 * -errno with "PATH: reason" in @e (-EINVAL for a corrupt store, -EPROTO
 * for one in a newer format than this alignprobe reads).
 */
int ap_vstore_load(const char *path, struct ap_vstore *s, struct ap_error *e);

/*
 * Before a run that will record: the store @path is readable (or absent)
 * and valid, and its directory takes files. 0 or -errno with @e.
 */
int ap_vstore_check(const char *path, struct ap_error *e);

/*
 * The locked update: lock @path.lock, read @path (absent: empty), add @r,
 * write it back atomically, unlock. 0 with what was done in @added, or
 * -errno with @e; the store is unchanged on any error.
 */
int ap_vstore_record(const char *path, const struct ap_vstore_record *r,
		     enum ap_vstore_added *added, struct ap_error *e);

/*
 * Several stores read as one (check --verdicts A --verdicts B, verdicts
 * list): per model, the first of @paths that holds it decides and the
 * later ones are not consulted for it (the host's own store first, a
 * read-only fleet store under it). Each model keeps the index of its file
 * in ->layer. Every file must exist and be valid: the first failure is
 * returned as ap_vstore_load() returns it, @s empty.
 */
int ap_vstore_load_layers(const char *const *paths, size_t n, struct ap_vstore *s,
			  struct ap_error *e);

/* ---- merge and forget (verdicts merge / forget) ---- */

/* What ap_vstore_merge() did to the store it merged into. */
struct ap_vstore_merged {
	size_t models_added;		/* models the store did not hold */
	size_t verdicts_added;		/* another geometry for a model it held */
	size_t examples_added;		/* another disk for a verdict it held */
	size_t examples_updated;	/* a disk it held, with a later run */
	size_t conflicts_added;		/* models that were not in conflict and are now */
	size_t smr_added;		/* smr rows (a model's SMR verdict) it did not hold */
	size_t smr_updated;		/* an smr row it held, measured later */
};

/* Anything changed. */
bool ap_vstore_merged_any(const struct ap_vstore_merged *m);

/*
 * Merge @src into @dst: a model, a verdict (its geometry) or a disk (an
 * example: the same WWN, else serial, else device on the same host) that
 * @dst lacks is added; another geometry for a model is a second verdict,
 * a conflict kept with both sides (nothing is resolved, averaged or
 * dropped). The same disk again: the later run's fields are kept (by
 * "recorded"), runs the larger count, or one more when @runs is set
 * (@src holds single runs: probe or sweep results) and its run is later.
 * "sensitive" is either's, the absence margin the narrower one. Merging
 * the same @src twice changes nothing the second time. Counts in @st
 * (added to).
 */
void ap_vstore_merge(struct ap_vstore *dst, const struct ap_vstore *src, bool runs,
		     struct ap_vstore_merged *st);

/*
 * A model is in conflict: two or more verdicts for one logical sector
 * size (verdicts for different logical sector sizes are not: a disk
 * behind a bridge that presents 4096-byte sectors is another device).
 */
bool ap_vstore_model_in_conflict(const struct ap_vstore_model *m);

/*
 * The models @name names: the name as ap_vstore_model_name() prints it
 * ("ATA ST4000DM004-2CV104 0001"), VENDOR:MODEL:REVISION (an empty field
 * is a null one), or the model string alone (every vendor and revision of
 * it). Their indexes in @idx (at most @max); the number found.
 */
size_t ap_vstore_match(const struct ap_vstore *s, const char *name, size_t *idx, size_t max);

/* Remove the model at @index (models after it move down). */
void ap_vstore_remove(struct ap_vstore *s, size_t index);

/*
 * A probe or sweep --json result (one device or {"devices": [...]}, the
 * document probe -J prints, sweep -J prints or --save writes) as a store
 * of single runs: one model and example per device with a resolved
 * verdict, its key from the result's "identity" (vendor, model,
 * revision, serial, WWN), "recorded" @when (the result file's time),
 * "host" @host (may be NULL). Devices without a resolved verdict are
 * skipped (counted in @skipped); one without a model is bad input
 * (-EINVAL with @e): a verdict that cannot stand for a model. A verdict
 * store document is read as it is (ap_vstore_from_json()), @kind says
 * which: "store", "probe" or "sweep".
 */
int ap_vstore_from_document(struct json_object *doc, time_t when, const char *host,
			    struct ap_vstore *s, size_t *skipped, const char **kind,
			    struct ap_error *e);

/* RFC 3339 UTC of @t ("2026-12-01T08:00:00Z") into @buf. */
void ap_vstore_format_time(time_t t, char *buf, size_t len);

/*
 * The locked update of the store @path (as ap_vstore_record()): lock,
 * read (absent: empty), call @fn on it, and write it back atomically when
 * @fn returns 1 (changed); 0 leaves the file untouched (not even created).
 * Returns @fn's negative errno (with @e) or the I/O error, else 0 with
 * *@changed set. A corrupt store is never replaced.
 */
int ap_vstore_update(const char *path, int (*fn)(struct ap_vstore *s, void *arg), void *arg,
		     bool *changed, struct ap_error *e);

/* The store to use: @opt, else $ALIGNPROBE_VERDICTS, else the default. */
const char *ap_vstore_path(const char *opt);

/*
 * A verdict of the disk @id can stand for its model: the disk states one.
 * 0, or -EINVAL with why not in @e (a bridge that passes no IDENTIFY, a
 * loop device without a stated identity, ...).
 */
int ap_vstore_identity_check(const struct ap_disk_identity *id, struct ap_error *e);
/* A record of @id's model (pointers into @id; no verdict, no run data). */
void ap_vstore_record_of(struct ap_vstore_record *r, const struct ap_disk_identity *id);
struct ap_verdict;
/* A verdict the store takes: resolved and statistically clear (not tentative). (vresult.c) */
bool ap_vstore_recordable(const struct ap_verdict *v);
/* A record of @id's model with @v's geometry and evidence; no run data. (vresult.c) */
void ap_vstore_record_of_verdict(struct ap_vstore_record *r, const struct ap_disk_identity *id,
				 const struct ap_verdict *v);

/* ---- what `alignprobe verdicts` does (vstore_ops.c) ---- */

/* The runs of verdict @v's disks, and the latest one recorded (NULL: none). */
void ap_vstore_verdict_sums(const struct ap_vstore_verdict *v, uint64_t *runs,
			    const char **latest);
/* Another verdict of @m for the same logical sector size as verdict @k. */
bool ap_vstore_verdict_in_conflict(const struct ap_vstore_model *m, size_t k);

/* A SOURCE of a merge: a store or a probe/sweep result, read and checked. */
struct ap_vstore_source {
	const char *path;
	const char *kind;	/* "store", or the result's kind */
	struct ap_vstore s;
	size_t skipped;		/* devices without a verdict */
};

/*
 * Read @path as a merge source (@host: the result's host, for a result).
 * 0, or -errno with @e; *@bad_content when the file was read but is
 * neither a store nor a result.
 */
int ap_vstore_source_read(struct ap_vstore_source *src, const char *path, const char *host,
			  bool *bad_content, struct ap_error *e);
/*
 * Merge @n sources into the store @store under its lock; @st counts what
 * changed, @conflicts (a JSON array) gets the names of the sources' models
 * now in conflict. As ap_vstore_update().
 */
int ap_vstore_merge_sources(const char *store, struct ap_vstore_source *src, size_t n,
			    struct ap_vstore_merged *st, struct json_object *conflicts,
			    bool *changed, struct ap_error *e);
/* A merge of SOURCE files into a store. */
struct ap_vstore_merge {
	struct ap_vstore_source *src;
	size_t n;
	struct ap_vstore_merged st;	/* what changed */
	struct json_object *conflicts;	/* names of the sources' models now in conflict */
	bool changed;
};
/*
 * Read and check every file of @paths (a store or a probe/sweep result;
 * @host: the results' host) before the store @store is locked, then merge
 * them (ap_vstore_merge_sources()). -errno with @e; when a source failed,
 * *@failed is its path and *@bad says it was read but is neither a store
 * nor a result. Free @m with ap_vstore_merge_free() in every case.
 */
int ap_vstore_merge_run(struct ap_vstore_merge *m, const char *store, char *const *paths,
			size_t n, const char *host, const char **failed, bool *bad,
			struct ap_error *e);
/* What the merge did: the store, the counts, the conflicts, each source. */
struct json_object *ap_vstore_merge_to_json(const struct ap_vstore_merge *m, const char *store);
void ap_vstore_merge_free(struct ap_vstore_merge *m);

/*
 * Remove every model @names match (ap_vstore_match()) from the store
 * @store under its lock: their names into @forgotten, the names that match
 * none into @absent (JSON arrays). As ap_vstore_update().
 */
int ap_vstore_forget(const char *store, char **names, size_t n, struct json_object *forgotten,
		     struct json_object *absent, bool *changed, struct ap_error *e);
/* What the forget did: the store, whether it changed, the names forgotten and absent. */
struct json_object *ap_vstore_forgot_to_json(const char *store, struct json_object *forgotten,
					     struct json_object *absent, bool changed);

#endif
