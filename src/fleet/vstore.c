// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The verdict store (see vstore.h): verdicts per drive model, merged by
 * geometry, conflicts kept side by side; one locked read-modify-write per
 * record.
 */
#include "fleet/vstore.h"
#include "fleet/vstoreP.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/types.h>
#include <unistd.h>
#include <json-c/json.h>

#include "device/geometry.h"
#include "device/identity.h"
#include "fleet/load.h"
#include "lib/json.h"
#include "lib/outfile.h"


void ap_vstore_init(struct ap_vstore *s)
{
	memset(s, 0, sizeof(*s));
}

static void example_free(struct ap_vstore_example *x)
{
	free(x->serial);
	free(x->wwn);
	free(x->device);
	free(x->host);
	free(x->source);
	free(x->recorded);
}

static void verdict_free(struct ap_vstore_verdict *v)
{
	size_t i;

	for (i = 0; i < v->nexamples; i++) {
		example_free(&v->examples[i]);
		json_object_put(v->examples[i].extra);
	}
	free(v->examples);
	json_object_put(v->extra);
}

static void model_free(struct ap_vstore_model *m)
{
	size_t i;

	for (i = 0; i < m->nverdicts; i++)
		verdict_free(&m->verdicts[i]);
	free(m->verdicts);
	free(m->vendor);
	free(m->model);
	free(m->revision);
	json_object_put(m->extra);
}

void ap_vstore_free(struct ap_vstore *s)
{
	size_t i;

	for (i = 0; i < s->nmodels; i++)
		model_free(&s->models[i]);
	free(s->models);
	json_object_put(s->extra);
	ap_vstore_smr_free(s);
	ap_vstore_init(s);
}

static char *dup_or_null(const char *s)
{
	return s ? ap_xstrdup(s) : NULL;
}

/* ---- the index of models by key (vstoreP.h) ---- */

/* FNV-1a of one field of a key, a null one told apart from "". */
static uint64_t hash_field(uint64_t h, const char *f)
{
	const unsigned char *p = (const unsigned char *)f;

	if (!f)
		return (h ^ 0x1ff) * 0x100000001b3ULL;
	for (; *p; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	return (h ^ 0x100) * 0x100000001b3ULL;	/* the end of the field */
}

static size_t key_hash(const char *vendor, const char *model, const char *revision)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	h = hash_field(h, vendor);
	h = hash_field(h, model);
	h = hash_field(h, revision);
	return (size_t)(h ^ (h >> 29));
}

static bool same_key(const struct ap_vstore_model *m, const char *vendor, const char *model,
		     const char *revision)
{
	return ap_vstore_same_str(m->model, model) && ap_vstore_same_str(m->vendor, vendor) &&
	       ap_vstore_same_str(m->revision, revision);
}

static void index_put(struct ap_vstore_index *ix, const struct ap_vstore *s, size_t i)
{
	const struct ap_vstore_model *m = &s->models[i];
	size_t h = key_hash(m->vendor, m->model, m->revision) & (ix->cap - 1);

	while (ix->slot[h])
		h = (h + 1) & (ix->cap - 1);
	ix->slot[h] = i + 1;
	ix->n++;
}

static void index_alloc(struct ap_vstore_index *ix, size_t n)
{
	ix->cap = 64;
	while (ix->cap < 2 * n + 2)
		ix->cap *= 2;
	ix->slot = ap_xcalloc(ix->cap, sizeof(*ix->slot));
	ix->n = 0;
}

ssize_t ap_vstore_index_find(const struct ap_vstore_index *ix, const struct ap_vstore *s,
			     const char *vendor, const char *model, const char *revision)
{
	size_t h;

	if (!model)
		return -1;
	for (h = key_hash(vendor, model, revision) & (ix->cap - 1); ix->slot[h];
	     h = (h + 1) & (ix->cap - 1))
		if (same_key(&s->models[ix->slot[h] - 1], vendor, model, revision))
			return (ssize_t)(ix->slot[h] - 1);
	return -1;
}

void ap_vstore_index_add(struct ap_vstore_index *ix, const struct ap_vstore *s, size_t i)
{
	if (2 * (ix->n + 1) + 2 > ix->cap) {
		size_t *old = ix->slot, cap = ix->cap, k;

		index_alloc(ix, 2 * (ix->n + 1));
		for (k = 0; k < cap; k++)
			if (old[k])
				index_put(ix, s, old[k] - 1);
		free(old);
	}
	index_put(ix, s, i);
}

void ap_vstore_index_init(struct ap_vstore_index *ix, const struct ap_vstore *s, size_t n)
{
	size_t i;

	index_alloc(ix, n);
	for (i = 0; i < n; i++) {
		const struct ap_vstore_model *m = &s->models[i];

		if (ap_vstore_index_find(ix, s, m->vendor, m->model, m->revision) < 0)
			index_put(ix, s, i);
	}
}

void ap_vstore_index_free(struct ap_vstore_index *ix)
{
	free(ix->slot);
	memset(ix, 0, sizeof(*ix));
}

const struct ap_vstore_model *ap_vstore_find(const struct ap_vstore *s, const char *vendor,
					     const char *model, const char *revision)
{
	size_t i;

	for (i = 0; model && i < s->nmodels; i++)
		if (same_key(&s->models[i], vendor, model, revision))
			return &s->models[i];
	return NULL;
}

/* The disk's legacy key is its drive's (libata's INQUIRY), not a bridge's. */
static bool legacy_usable(const struct ap_disk_identity *id)
{
	return id->legacy_model && !id->bridge;
}

const struct ap_vstore_model *ap_vstore_find_disk(const struct ap_vstore *s,
						  const struct ap_disk_identity *id)
{
	const struct ap_vstore_model *m = ap_vstore_find(s, id->vendor, id->model, id->revision);

	if (!m && id->model && legacy_usable(id))
		m = ap_vstore_find(s, id->legacy_vendor, id->legacy_model, id->legacy_revision);
	return m;
}

int ap_vstore_identity_check(const struct ap_disk_identity *id, struct ap_error *e)
{
	if (id->model && *id->model)
		return 0;
	if (id->bridge)
		return ap_error_set(e, EINVAL, "the disk states no model: it is behind the bridge "
				    "'%s', which passes no ATA IDENTIFY through (or it was not "
				    "asked: that needs CAP_SYS_RAWIO), and the bridge's own model is "
				    "not the drive's; attach the disk directly to record its verdict",
				    id->bridge);
	return ap_error_set(e, EINVAL, "the disk states no model (vendor, model, firmware "
			    "revision), so its verdict cannot stand for a model%s", id->loop ?
			    "; a loop device's is stated with ALIGNPROBE_TEST_IDENTITY_<name> (see "
			    "ENVIRONMENT in alignprobe(8))" : "");
}

void ap_vstore_record_of(struct ap_vstore_record *r, const struct ap_disk_identity *id)
{
	memset(r, 0, sizeof(*r));
	r->vendor = id->vendor;
	r->model = id->model;
	r->revision = id->revision;
	r->serial = id->serial;
	r->wwn = id->wwn;
	if (legacy_usable(id)) {
		r->legacy_vendor = id->legacy_vendor;
		r->legacy_model = id->legacy_model;
		r->legacy_revision = id->legacy_revision;
	}
	r->confidence = NAN;
}

/* The geometry is valid: -EINVAL with the reason. */
int ap_vstore_check_geometry(unsigned logical, uint64_t physical, uint64_t lowest,
			     struct ap_error *e)
{
	if (logical < 512 || logical > 65536 || !ap_is_power_of_2(logical))
		return ap_error_set(e, EINVAL, "logical sector of %u bytes (a power of two, "
				    "512..65536)", logical);
	if (physical < logical || physical > (1u << 30) || !ap_is_power_of_2(physical))
		return ap_error_set(e, EINVAL, "physical sector of %llu bytes (a power of two, "
				    "at least the logical sector of %u)",
				    (unsigned long long)physical, logical);
	if (lowest >= physical / logical)
		return ap_error_set(e, EINVAL, "lowest aligned LBA %llu out of range (0..%llu)",
				    (unsigned long long)lowest,
				    (unsigned long long)(physical / logical - 1));
	return 0;
}

/* The same disk: its WWN, else its serial, else its device on the same host. */
static bool same_disk(const struct ap_vstore_example *x, const struct ap_vstore_record *r)
{
	if (x->wwn && r->wwn)
		return ap_fleet_id_equal(x->wwn, r->wwn);
	if (x->serial && r->serial)
		return ap_fleet_id_equal(x->serial, r->serial);
	if (x->wwn || r->wwn || x->serial || r->serial)
		return false;
	return ap_vstore_same_str(x->device, r->device) && ap_vstore_same_str(x->host, r->host);
}

void ap_vstore_format_time(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "1970-01-01T00:00:00Z");
}

static void example_set(struct ap_vstore_example *x, const struct ap_vstore_record *r)
{
	char when[32];

	example_free(x);
	ap_vstore_format_time(r->when, when, sizeof(when));
	x->serial = dup_or_null(r->serial);
	x->wwn = dup_or_null(r->wwn);
	x->device = dup_or_null(r->device);
	x->host = dup_or_null(r->host);
	x->source = dup_or_null(r->source);
	x->recorded = ap_xstrdup(when);
	x->confidence = r->confidence;
}

static void add_example(struct ap_vstore_verdict *v, const struct ap_vstore_record *r)
{
	struct ap_vstore_example *x;

	v->examples = ap_xreallocarray(v->examples, v->nexamples + 1, sizeof(*v->examples));
	x = &v->examples[v->nexamples++];
	memset(x, 0, sizeof(*x));
	example_set(x, r);
	x->runs = 1;
}

int ap_vstore_add(struct ap_vstore *s, const struct ap_vstore_record *r, struct ap_error *e)
{
	struct ap_vstore_model *m;
	struct ap_vstore_verdict *v;
	size_t i, k;
	int rc;

	if (!r->model || !*r->model)
		return ap_error_set(e, EINVAL, "the disk states no model");
	rc = ap_vstore_check_geometry(r->logical_sector, r->physical_sector,
				      r->lowest_aligned_lba, e);
	if (rc)
		return rc;
	m = (struct ap_vstore_model *)ap_vstore_find(s, r->vendor, r->model, r->revision);
	if (!m && r->legacy_model) {
		/* an entry under the disk's 0.1 key moves to its own key */
		m = (struct ap_vstore_model *)ap_vstore_find(s, r->legacy_vendor, r->legacy_model,
							     r->legacy_revision);
		if (m) {
			free(m->vendor);
			free(m->model);
			free(m->revision);
			m->vendor = dup_or_null(r->vendor);
			m->model = ap_xstrdup(r->model);
			m->revision = dup_or_null(r->revision);
		}
	}
	if (!m) {
		s->models = ap_xreallocarray(s->models, s->nmodels + 1, sizeof(*s->models));
		m = &s->models[s->nmodels++];
		memset(m, 0, sizeof(*m));
		m->vendor = dup_or_null(r->vendor);
		m->model = ap_xstrdup(r->model);
		m->revision = dup_or_null(r->revision);
	}
	for (i = 0; i < m->nverdicts; i++) {
		v = &m->verdicts[i];
		if (v->logical_sector != r->logical_sector ||
		    v->physical_sector != r->physical_sector ||
		    v->lowest_aligned_lba != r->lowest_aligned_lba ||
		    !ap_levels_same_above(&v->levels, &r->levels))
			continue;
		v->sensitive = v->sensitive || r->sensitive;
		if (r->absence_margin >= 1 && (v->absence_margin < 1 ||
					       r->absence_margin < v->absence_margin))
			v->absence_margin = r->absence_margin;
		if (r->ruled_out_up_to > v->ruled_out_up_to)
			v->ruled_out_up_to = r->ruled_out_up_to;
		if (!r->sensitive && r->ruled_out.up_to > v->ruled_out.up_to)
			v->ruled_out = r->ruled_out;
		/* one disk's unplaced first writes stand for the model's */
		v->first_writes_unplaced = v->sensitive &&
					   (v->first_writes_unplaced || r->first_writes_unplaced);
		for (k = 0; k < v->nexamples; k++) {
			if (same_disk(&v->examples[k], r)) {
				uint64_t runs = v->examples[k].runs;

				example_set(&v->examples[k], r);
				v->examples[k].runs = runs + 1;
				return AP_VSTORE_SAME_EXAMPLE;
			}
		}
		add_example(v, r);
		return AP_VSTORE_NEW_EXAMPLE;
	}
	m->verdicts = ap_xreallocarray(m->verdicts, m->nverdicts + 1, sizeof(*m->verdicts));
	v = &m->verdicts[m->nverdicts++];
	memset(v, 0, sizeof(*v));
	v->logical_sector = r->logical_sector;
	v->physical_sector = r->physical_sector;
	v->lowest_aligned_lba = r->lowest_aligned_lba;
	v->sensitive = r->sensitive;
	v->absence_margin = r->absence_margin >= 1 ? r->absence_margin : 0;
	v->ruled_out_up_to = r->sensitive ? 0 : r->ruled_out_up_to;
	v->levels = r->levels;
	if (!r->sensitive)
		v->ruled_out = r->ruled_out;
	v->first_writes_unplaced = r->sensitive && r->first_writes_unplaced;
	add_example(v, r);
	return m->nverdicts == 1 ? AP_VSTORE_NEW_MODEL : AP_VSTORE_CONFLICT;
}

/* ------------------------------------------------------------------ */
/* the file */

const char *ap_vstore_path(const char *opt)
{
	const char *env = getenv(AP_VSTORE_ENV);

	if (opt && *opt)
		return opt;
	return env && *env ? env : AP_VSTORE_DEFAULT;
}

int ap_vstore_load(const char *path, struct ap_vstore *s, struct ap_error *e)
{
	struct json_object *doc;
	struct ap_error le = { 0 };
	int rc;

	ap_vstore_init(s);
	rc = ap_json_load(path, AP_VSTORE_MAX_BYTES, &doc, e);
	if (rc)
		return rc;
	rc = ap_vstore_from_json(doc, s, &le);
	json_object_put(doc);
	if (rc)
		return ap_error_set(e, -rc, "%s: %s", path, le.msg);
	return 0;
}

int ap_vstore_check(const char *path, struct ap_error *e)
{
	struct ap_vstore s;
	char *real;
	int rc = ap_outfile_resolve(path, &real, e);

	if (rc)
		return rc;
	rc = ap_vstore_load(real, &s, e);
	ap_vstore_free(&s);
	/* the update writes a new file and a lock beside it */
	if (!rc || rc == -ENOENT)
		rc = ap_outfile_check(real, false, e);
	free(real);
	return rc;
}

/* Hold @real.lock exclusively (@path: the store as named): the descriptor or -errno with @e. */
static int lock_store(const char *path, const char *real, struct ap_error *e)
{
	char *lock;
	int fd, rc;

	ap_xasprintf(&lock, "%s.lock", real);
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		rc = ap_error_set(e, errno, "%s: cannot create the lock %s: %s", path, lock,
				  strerror(errno));
		free(lock);
		return rc;
	}
	while (flock(fd, LOCK_EX) != 0) {
		if (errno == EINTR)
			continue;
		rc = ap_error_set(e, errno, "%s: cannot lock: %s", lock, strerror(errno));
		close(fd);
		free(lock);
		return rc;
	}
	free(lock);
	return fd;
}

/*
 * The text of @s as the store is written: 0, or -EFBIG when it is larger
 * than a store alignprobe reads back (one limit both ways).
 */
static int store_text(const struct ap_vstore *s, const char *path, char **text, size_t *len,
		      struct ap_error *e)
{
	struct json_object *doc = ap_vstore_to_json(s);

	ap_xasprintf(text, "%s\n",
		     json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
						    JSON_C_TO_STRING_SPACED |
						    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(doc);
	*len = strlen(*text);
	if (*len <= AP_VSTORE_MAX_BYTES)
		return 0;
	free(*text);
	*text = NULL;
	return ap_error_set(e, EFBIG, "%s: the store would be %zu MiB, more than the %u MiB "
			    "a store may have to be read back; nothing was written (forget "
			    "models, or keep the fleet's verdicts in several stores read with "
			    "--verdicts)", path, (*len + (1u << 20) - 1) >> 20, AP_VSTORE_MAX_BYTES >> 20);
}

int ap_vstore_update(const char *path, int (*fn)(struct ap_vstore *s, void *arg), void *arg,
		     bool *changed, struct ap_error *e)
{
	struct ap_vstore s;
	struct ap_outfile of;
	char *real, *text = NULL;
	size_t len = 0;
	int lock, rc;

	*changed = false;
	/*
	 * One file under every name: the lock is taken, the store read and
	 * replaced where a symbolic link points (a dangling one: its target is
	 * created), so that merges through a link and through the file's own
	 * name exclude each other, and the link stays a link.
	 */
	rc = ap_outfile_resolve(path, &real, e);
	if (rc)
		return rc;
	lock = lock_store(path, real, e);
	if (lock < 0) {
		free(real);
		return lock;
	}
	rc = ap_vstore_load(real, &s, e);
	if (rc == -ENOENT)
		rc = 0;
	if (!rc) {
		rc = fn(&s, arg);
		*changed = rc > 0;
		if (rc > 0)
			rc = 0;
	}
	/* refused before anything is written: a store too large to read back */
	if (!rc && *changed)
		rc = store_text(&s, path, &text, &len, e);
	if (!rc && *changed)
		rc = ap_outfile_open(&of, real, e);
	if (!rc && *changed) {
		rc = ap_outfile_write_commit(&of, path, text, len, e);
		if (rc) {
			/* the write itself failed: a runtime failure, whatever errno */
			e->code = EIO;
			rc = -EIO;
		}
	}
	if (rc)
		*changed = false;
	free(text);
	ap_vstore_free(&s);
	close(lock);	/* unlocks */
	free(real);
	return rc;
}

struct record_arg {
	const struct ap_vstore_record *r;
	enum ap_vstore_added added;
	struct ap_error *e;
};

static int record_fn(struct ap_vstore *s, void *arg)
{
	struct record_arg *a = arg;
	int rc = ap_vstore_add(s, a->r, a->e);

	if (rc < 0)
		return rc;
	a->added = (enum ap_vstore_added)rc;
	return 1;
}

int ap_vstore_record(const char *path, const struct ap_vstore_record *r,
		     enum ap_vstore_added *added, struct ap_error *e)
{
	struct record_arg a = { .r = r, .e = e };
	bool changed;
	int rc = ap_vstore_update(path, record_fn, &a, &changed, e);

	if (!rc)
		*added = a.added;
	return rc;
}

/* ------------------------------------------------------------------ */
/* layers, merge, forget */

/* Move model @m into @s (taking what it owns). */
static struct ap_vstore_model *take_model(struct ap_vstore *s, struct ap_vstore_model *m)
{
	s->models = ap_xreallocarray(s->models, s->nmodels + 1, sizeof(*s->models));
	s->models[s->nmodels] = *m;
	memset(m, 0, sizeof(*m));
	return &s->models[s->nmodels++];
}

int ap_vstore_load_layers(const char *const *paths, size_t n, struct ap_vstore *s,
			  struct ap_error *e)
{
	size_t i, k;
	int rc;

	struct ap_vstore_index ix;

	ap_vstore_init(s);
	ap_vstore_index_init(&ix, s, 0);
	for (i = 0; i < n; i++) {
		struct ap_vstore one;

		rc = ap_vstore_load(paths[i], &one, e);
		if (rc) {
			ap_vstore_index_free(&ix);
			ap_vstore_free(s);
			return rc;
		}
		for (k = 0; k < one.nmodels; k++) {
			struct ap_vstore_model *m = &one.models[k];

			if (ap_vstore_index_find(&ix, s, m->vendor, m->model, m->revision) >= 0)
				continue;	/* an earlier layer decides for it */
			take_model(s, m)->layer = i;
			ap_vstore_index_add(&ix, s, s->nmodels - 1);
		}
		ap_vstore_smr_layer(s, &one, i);
		ap_vstore_free(&one);
	}
	ap_vstore_index_free(&ix);
	return 0;
}

bool ap_vstore_merged_any(const struct ap_vstore_merged *m)
{
	return m->models_added || m->verdicts_added || m->examples_added ||
	       m->examples_updated || m->smr_added || m->smr_updated;
}

bool ap_vstore_model_in_conflict(const struct ap_vstore_model *m)
{
	size_t i, k;

	for (i = 0; i < m->nverdicts; i++)
		for (k = i + 1; k < m->nverdicts; k++)
			if (m->verdicts[i].logical_sector == m->verdicts[k].logical_sector)
				return true;
	return false;
}

static void example_copy(struct ap_vstore_example *d, const struct ap_vstore_example *x)
{
	d->serial = dup_or_null(x->serial);
	d->wwn = dup_or_null(x->wwn);
	d->device = dup_or_null(x->device);
	d->host = dup_or_null(x->host);
	d->source = dup_or_null(x->source);
	d->recorded = dup_or_null(x->recorded);
	d->confidence = x->confidence;
	d->runs = x->runs;
	d->extra = json_object_get(x->extra);
}

/* @have's unknown members, else a reference to @other's (merged: the store's own first). */
static void extra_keep(struct json_object **have, struct json_object *other)
{
	if (!*have)
		*have = json_object_get(other);
}

static void verdict_copy_head(struct ap_vstore_verdict *d, const struct ap_vstore_verdict *v)
{
	memset(d, 0, sizeof(*d));
	d->logical_sector = v->logical_sector;
	d->physical_sector = v->physical_sector;
	d->lowest_aligned_lba = v->lowest_aligned_lba;
	d->sensitive = v->sensitive;
	d->absence_margin = v->absence_margin;
	d->ruled_out_up_to = v->ruled_out_up_to;
	d->extra = json_object_get(v->extra);
	d->levels = v->levels;
	d->ruled_out = v->ruled_out;
	d->first_writes_unplaced = v->first_writes_unplaced;
}

/* The same disk, between two examples (as same_disk() between an example and a record). */
static bool same_example(const struct ap_vstore_example *a, const struct ap_vstore_example *b)
{
	struct ap_vstore_record r = { .serial = b->serial, .wwn = b->wwn, .device = b->device,
				      .host = b->host };

	return same_disk(a, &r);
}

/* @x into @v: a new disk, a later run of one it has, or nothing. */
static void merge_example(struct ap_vstore_verdict *v, const struct ap_vstore_example *x,
			  bool runs, struct ap_vstore_merged *st)
{
	struct ap_vstore_example *y;
	size_t k;
	int later;

	for (k = 0; k < v->nexamples; k++)
		if (same_example(&v->examples[k], x))
			break;
	if (k == v->nexamples) {
		v->examples = ap_xreallocarray(v->examples, v->nexamples + 1,
					       sizeof(*v->examples));
		y = &v->examples[v->nexamples++];
		memset(y, 0, sizeof(*y));
		example_copy(y, x);
		if (!y->runs)
			y->runs = 1;
		st->examples_added++;
		return;
	}
	y = &v->examples[k];
	later = x->recorded && (!y->recorded || strcmp(x->recorded, y->recorded) > 0);
	if (later) {
		uint64_t n = runs ? y->runs + 1 : (x->runs > y->runs ? x->runs : y->runs);
		struct json_object *extra = y->extra;

		example_free(y);
		example_copy(y, x);
		y->runs = n;
		if (y->extra)
			json_object_put(extra);
		else
			y->extra = extra;
		st->examples_updated++;
	} else if (!runs && x->runs > y->runs &&
		   ap_vstore_same_str(x->recorded, y->recorded)) {
		y->runs = x->runs;
		st->examples_updated++;
	}
}

static void merge_verdict(struct ap_vstore_model *m, const struct ap_vstore_verdict *sv,
			  bool runs, struct ap_vstore_merged *st)
{
	struct ap_vstore_verdict *v = NULL;
	size_t i;

	for (i = 0; i < m->nverdicts; i++) {
		struct ap_vstore_verdict *c = &m->verdicts[i];

		if (c->logical_sector == sv->logical_sector &&
		    c->physical_sector == sv->physical_sector &&
		    c->lowest_aligned_lba == sv->lowest_aligned_lba &&
		    ap_levels_same_above(&c->levels, &sv->levels))
			v = c;
	}
	if (!v) {
		m->verdicts = ap_xreallocarray(m->verdicts, m->nverdicts + 1,
					       sizeof(*m->verdicts));
		v = &m->verdicts[m->nverdicts++];
		verdict_copy_head(v, sv);
		st->verdicts_added++;
	} else {
		extra_keep(&v->extra, sv->extra);
		if (sv->sensitive && !v->sensitive) {
			v->sensitive = true;
			st->examples_updated++;
		}
		if (sv->absence_margin >= 1 && (v->absence_margin < 1 ||
						sv->absence_margin < v->absence_margin)) {
			v->absence_margin = sv->absence_margin;
			st->examples_updated++;
		}
		/* "no effect": what any example ruled out, the largest */
		if (sv->ruled_out_up_to > v->ruled_out_up_to) {
			v->ruled_out_up_to = sv->ruled_out_up_to;
			st->examples_updated++;
		}
		if (sv->ruled_out.up_to > v->ruled_out.up_to) {
			v->ruled_out = sv->ruled_out;
			st->examples_updated++;
		}
		if (sv->first_writes_unplaced && !v->first_writes_unplaced) {
			v->first_writes_unplaced = true;
			st->examples_updated++;
		}
	}
	for (i = 0; i < sv->nexamples; i++)
		merge_example(v, &sv->examples[i], runs, st);
}

void ap_vstore_merge(struct ap_vstore *dst, const struct ap_vstore *src, bool runs,
		     struct ap_vstore_merged *st)
{
	struct ap_vstore_index ix;
	size_t i, k, cap = dst->nmodels;

	/* by key, not by scanning: n log n at worst (a hash), not n * m */
	ap_vstore_index_init(&ix, dst, dst->nmodels);
	for (i = 0; i < src->nmodels; i++) {
		const struct ap_vstore_model *sm = &src->models[i];
		struct ap_vstore_model *m;
		size_t nv = st->verdicts_added;
		ssize_t at = ap_vstore_index_find(&ix, dst, sm->vendor, sm->model, sm->revision);
		bool before, added = false;

		if (at >= 0) {
			m = &dst->models[at];
		} else {
			if (dst->nmodels == cap) {
				cap = cap < 16 ? 16 : cap * 2;
				dst->models = ap_xreallocarray(dst->models, cap, sizeof(*dst->models));
			}
			m = &dst->models[dst->nmodels];
			memset(m, 0, sizeof(*m));
			m->vendor = dup_or_null(sm->vendor);
			m->model = ap_xstrdup(sm->model);
			m->revision = dup_or_null(sm->revision);
			m->index = dst->nmodels++;
			ap_vstore_index_add(&ix, dst, m->index);
			st->models_added++;
			added = true;
		}
		extra_keep(&m->extra, sm->extra);
		before = ap_vstore_model_in_conflict(m);
		for (k = 0; k < sm->nverdicts; k++)
			merge_verdict(m, &sm->verdicts[k], runs, st);
		if (added)
			st->verdicts_added = nv;	/* the model's own, not added ones */
		if (!before && ap_vstore_model_in_conflict(m))
			st->conflicts_added++;
	}
	ap_vstore_index_free(&ix);
}

void ap_vstore_remove(struct ap_vstore *s, size_t index)
{
	if (index >= s->nmodels)
		return;
	model_free(&s->models[index]);
	memmove(&s->models[index], &s->models[index + 1],
		(s->nmodels - index - 1) * sizeof(*s->models));
	s->nmodels--;
}
