// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The verdict store (see vstore.h): verdicts per drive model, merged by
 * geometry, conflicts kept side by side; one locked read-modify-write per
 * record.
 */
#include "fleet/vstore.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include <json-c/json.h>

#include "device/geometry.h"
#include "device/identity.h"
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

	for (i = 0; i < v->nexamples; i++)
		example_free(&v->examples[i]);
	free(v->examples);
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
}

void ap_vstore_free(struct ap_vstore *s)
{
	size_t i;

	for (i = 0; i < s->nmodels; i++)
		model_free(&s->models[i]);
	free(s->models);
	ap_vstore_smr_free(s);
	ap_vstore_init(s);
}

static char *dup_or_null(const char *s)
{
	return s ? ap_xstrdup(s) : NULL;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

const struct ap_vstore_model *ap_vstore_find(const struct ap_vstore *s, const char *vendor,
					     const char *model, const char *revision)
{
	size_t i;

	for (i = 0; model && i < s->nmodels; i++) {
		const struct ap_vstore_model *m = &s->models[i];

		if (same_str(m->model, model) && same_str(m->vendor, vendor) &&
		    same_str(m->revision, revision))
			return m;
	}
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

char *ap_vstore_model_name(const struct ap_vstore_model *m)
{
	char *s;

	ap_xasprintf(&s, "%s%s%s%s%s", m->vendor ? m->vendor : "", m->vendor ? " " : "",
		     m->model, m->revision ? " " : "", m->revision ? m->revision : "");
	return s;
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
		return ap_geometry_id_equal(x->wwn, r->wwn);
	if (x->serial && r->serial)
		return ap_geometry_id_equal(x->serial, r->serial);
	if (x->wwn || r->wwn || x->serial || r->serial)
		return false;
	return same_str(x->device, r->device) && same_str(x->host, r->host);
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
		    v->lowest_aligned_lba != r->lowest_aligned_lba)
			continue;
		v->sensitive = v->sensitive || r->sensitive;
		if (r->absence_margin >= 1 && (v->absence_margin < 1 ||
					       r->absence_margin < v->absence_margin))
			v->absence_margin = r->absence_margin;
		if (r->ruled_out_up_to > v->ruled_out_up_to)
			v->ruled_out_up_to = r->ruled_out_up_to;
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
	int rc = ap_vstore_load(path, &s, e);

	ap_vstore_free(&s);
	if (rc && rc != -ENOENT)
		return rc;
	/* the update writes a new file and a lock beside it */
	return ap_outfile_check(path, false, e);
}

/* Hold @path.lock exclusively: the descriptor or -errno with @e. */
static int lock_store(const char *path, struct ap_error *e)
{
	char *lock;
	int fd, rc;

	ap_xasprintf(&lock, "%s.lock", path);
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		rc = ap_error_set(e, errno, "%s: %s", lock, strerror(errno));
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

int ap_vstore_update(const char *path, int (*fn)(struct ap_vstore *s, void *arg), void *arg,
		     bool *changed, struct ap_error *e)
{
	struct ap_vstore s;
	struct ap_outfile of;
	struct json_object *doc;
	char *text;
	int lock, rc;

	*changed = false;
	lock = lock_store(path, e);
	if (lock < 0)
		return lock;
	rc = ap_vstore_load(path, &s, e);
	if (rc == -ENOENT)
		rc = 0;
	if (!rc) {
		rc = fn(&s, arg);
		*changed = rc > 0;
		if (rc > 0)
			rc = 0;
	}
	if (!rc && *changed)
		rc = ap_outfile_open(&of, path, e);
	if (!rc && *changed) {
		doc = ap_vstore_to_json(&s);
		ap_xasprintf(&text, "%s\n",
			     json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
							    JSON_C_TO_STRING_SPACED |
							    JSON_C_TO_STRING_NOSLASHESCAPE));
		rc = ap_outfile_write_commit(&of, path, text, strlen(text), e);
		free(text);
		json_object_put(doc);
		if (rc)
			*changed = false;
	}
	ap_vstore_free(&s);
	close(lock);	/* unlocks */
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

	ap_vstore_init(s);
	for (i = 0; i < n; i++) {
		struct ap_vstore one;

		rc = ap_vstore_load(paths[i], &one, e);
		if (rc) {
			ap_vstore_free(s);
			return rc;
		}
		for (k = 0; k < one.nmodels; k++) {
			struct ap_vstore_model *m = &one.models[k];

			if (ap_vstore_find(s, m->vendor, m->model, m->revision))
				continue;	/* an earlier layer decides for it */
			take_model(s, m)->layer = i;
		}
		ap_vstore_smr_layer(s, &one, i);
		ap_vstore_free(&one);
	}
	return 0;
}

bool ap_vstore_merged_any(const struct ap_vstore_merged *m)
{
	return m->models_added || m->verdicts_added || m->examples_added ||
	       m->examples_updated;
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

		example_free(y);
		example_copy(y, x);
		y->runs = n;
		st->examples_updated++;
	} else if (!runs && x->runs > y->runs &&
		   same_str(x->recorded, y->recorded)) {
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
		    c->lowest_aligned_lba == sv->lowest_aligned_lba)
			v = c;
	}
	if (!v) {
		m->verdicts = ap_xreallocarray(m->verdicts, m->nverdicts + 1,
					       sizeof(*m->verdicts));
		v = &m->verdicts[m->nverdicts++];
		verdict_copy_head(v, sv);
		st->verdicts_added++;
	} else {
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
	}
	for (i = 0; i < sv->nexamples; i++)
		merge_example(v, &sv->examples[i], runs, st);
}

void ap_vstore_merge(struct ap_vstore *dst, const struct ap_vstore *src, bool runs,
		     struct ap_vstore_merged *st)
{
	size_t i, k;

	for (i = 0; i < src->nmodels; i++) {
		const struct ap_vstore_model *sm = &src->models[i];
		struct ap_vstore_model *m;
		size_t nv = st->verdicts_added;
		bool before, added = false;

		m = (struct ap_vstore_model *)ap_vstore_find(dst, sm->vendor, sm->model,
							     sm->revision);
		if (!m) {
			dst->models = ap_xreallocarray(dst->models, dst->nmodels + 1,
						       sizeof(*dst->models));
			m = &dst->models[dst->nmodels];
			memset(m, 0, sizeof(*m));
			m->vendor = dup_or_null(sm->vendor);
			m->model = ap_xstrdup(sm->model);
			m->revision = dup_or_null(sm->revision);
			m->index = dst->nmodels++;
			st->models_added++;
			added = true;
		}
		before = ap_vstore_model_in_conflict(m);
		for (k = 0; k < sm->nverdicts; k++)
			merge_verdict(m, &sm->verdicts[k], runs, st);
		if (added)
			st->verdicts_added = nv;	/* the model's own, not added ones */
		if (!before && ap_vstore_model_in_conflict(m))
			st->conflicts_added++;
	}
}

size_t ap_vstore_match(const struct ap_vstore *s, const char *name, size_t *idx, size_t max)
{
	char *f[3] = { NULL, NULL, NULL }, *copy = NULL;
	size_t i, n = 0;
	int how;

	if (strchr(name, ':')) {
		char *p;

		copy = ap_xstrdup(name);
		p = copy;
		for (i = 0; i < 3 && p; i++) {
			char *next = strchr(p, ':');

			if (next)
				*next++ = '\0';
			f[i] = *p ? p : NULL;
			p = next;
		}
		if (p || !f[1]) {	/* more than three fields, or no model */
			free(copy);
			copy = NULL;
		}
	}
	for (how = 0; how < 3 && !n; how++) {
		for (i = 0; i < s->nmodels; i++) {
			const struct ap_vstore_model *m = &s->models[i];
			bool hit = false;

			if (how == 0) {
				char *full = ap_vstore_model_name(m);

				hit = strcmp(full, name) == 0;
				free(full);
			} else if (how == 1) {
				hit = copy && same_str(m->vendor, f[0]) &&
				      same_str(m->model, f[1]) && same_str(m->revision, f[2]);
			} else {
				hit = strcmp(m->model, name) == 0;
			}
			if (hit && n < max)
				idx[n++] = i;
		}
	}
	free(copy);
	return n;
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
