// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What `alignprobe verdicts` does to the store, without its printing: a
 * verdict's sums, its conflicts, SOURCE files read and checked, the merge
 * and the forget under the store's lock (ap_vstore_update()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <json-c/json.h>

#include "fleet/vstore.h"
#include "fleet/vstoreP.h"
#include "lib/json.h"
#include "lib/util.h"

#define MAX_MATCHES	256

void ap_vstore_verdict_sums(const struct ap_vstore_verdict *v, uint64_t *runs,
			    const char **latest)
{
	size_t i;

	*runs = 0;
	*latest = NULL;
	for (i = 0; i < v->nexamples; i++) {
		const struct ap_vstore_example *x = &v->examples[i];

		*runs += x->runs;
		if (x->recorded && (!*latest || strcmp(x->recorded, *latest) > 0))
			*latest = x->recorded;
	}
}

bool ap_vstore_verdict_in_conflict(const struct ap_vstore_model *m, size_t k)
{
	size_t i;

	for (i = 0; i < m->nverdicts; i++)
		if (i != k && m->verdicts[i].logical_sector == m->verdicts[k].logical_sector)
			return true;
	return false;
}

static struct json_object *name_json(const struct ap_vstore_model *m)
{
	char *name = ap_vstore_model_name(m);
	struct json_object *o = json_object_new_string(name);

	free(name);
	return o;
}

int ap_vstore_source_read(struct ap_vstore_source *src, const char *path, const char *host,
			  bool *bad_content, struct ap_error *e)
{
	struct json_object *doc = NULL;
	struct stat st;
	int rc;

	*bad_content = false;
	src->path = path;
	rc = ap_json_load(path, AP_VSTORE_MAX_BYTES, &doc, e);
	if (rc)
		return rc;
	if (stat(path, &st) != 0)
		st.st_mtime = time(NULL);
	rc = ap_vstore_from_document(doc, st.st_mtime, host, &src->s, &src->skipped, &src->kind, e);
	json_object_put(doc);
	if (rc)
		*bad_content = true;
	return rc;
}

struct merge_arg {
	struct ap_vstore_source *src;
	size_t n;
	struct ap_vstore_merged *st;
	struct json_object *conflicts;
};

static int merge_fn(struct ap_vstore *s, void *arg)
{
	struct merge_arg *a = arg;
	struct ap_vstore_index ix;
	bool *named;
	size_t i, k;

	for (i = 0; i < a->n; i++) {
		ap_vstore_merge(s, &a->src[i].s, strcmp(a->src[i].kind, "store") != 0, a->st);
		ap_vstore_smr_merge(s, &a->src[i].s, a->st);
	}
	/* the store's models a source names, by key (not a scan per model) */
	named = ap_xcalloc(s->nmodels ? s->nmodels : 1, sizeof(*named));
	ap_vstore_index_init(&ix, s, s->nmodels);
	for (i = 0; i < a->n; i++) {
		for (k = 0; k < a->src[i].s.nmodels; k++) {
			const struct ap_vstore_model *m = &a->src[i].s.models[k];
			ssize_t at = ap_vstore_index_find(&ix, s, m->vendor, m->model, m->revision);

			if (at >= 0)
				named[at] = true;
		}
	}
	ap_vstore_index_free(&ix);
	for (k = 0; k < s->nmodels; k++)
		if (named[k] && ap_vstore_model_in_conflict(&s->models[k]))
			json_object_array_add(a->conflicts, name_json(&s->models[k]));
	free(named);
	return ap_vstore_merged_any(a->st) ? 1 : 0;
}

int ap_vstore_merge_sources(const char *store, struct ap_vstore_source *src, size_t n,
			    struct ap_vstore_merged *st, struct json_object *conflicts,
			    bool *changed, struct ap_error *e)
{
	struct merge_arg a = { .src = src, .n = n, .st = st, .conflicts = conflicts };

	return ap_vstore_update(store, merge_fn, &a, changed, e);
}

struct forget_arg {
	char **names;
	size_t n;
	struct json_object *forgotten, *absent;
	struct ap_error *e;
};

/*
 * @name, as list prints it, names the @n > 1 models at @idx: they print
 * alike ("ATA Foo 0001" is vendor ATA, model "Foo", revision 0001 and
 * model "ATA Foo", revision 0001): -EINVAL naming each as
 * VENDOR:MODEL:REVISION; 0 when @name was not such a name (a model alone
 * names every vendor and revision of it on purpose).
 */
static int refuse_alike(const struct ap_vstore *s, const char *name, const size_t *idx, size_t n,
			struct ap_error *e)
{
	char *first = ap_vstore_model_name(&s->models[idx[0]]), keys[320] = "";
	bool alike = n > 1 && strcmp(first, name) == 0;
	size_t i, o = 0;

	free(first);
	if (!alike)
		return 0;
	for (i = 0; i < n && o < sizeof(keys); i++) {
		const struct ap_vstore_model *m = &s->models[idx[i]];
		int w = snprintf(keys + o, sizeof(keys) - o, "%s'%s:%s:%s'", i ? ", " : "",
				 m->vendor ? m->vendor : "", m->model, m->revision ? m->revision : "");

		o += w > 0 ? (size_t)w : 0;
	}
	return ap_error_set(e, EINVAL, "%s: names %zu models that print alike (%s); name one as "
			    "VENDOR:MODEL:REVISION; nothing was forgotten", name, n, keys);
}

/* @name into the JSON array of names @a, unless it is there */
static void add_name(struct json_object *a, char *name)
{
	size_t i, n = json_object_array_length(a);

	for (i = 0; i < n; i++)
		if (strcmp(json_object_get_string(json_object_array_get_idx(a, i)), name) == 0)
			break;
	if (i == n)
		json_object_array_add(a, json_object_new_string(name));
	free(name);
}

static int forget_fn(struct ap_vstore *s, void *arg)
{
	struct forget_arg *a = arg;
	size_t idx[MAX_MATCHES], sidx[MAX_MATCHES], i, k, n, ns, removed = 0;
	int rc;

	for (i = 0; i < a->n; i++) {
		n = ap_vstore_match(s, a->names[i], idx, MAX_MATCHES);
		if (n && (rc = refuse_alike(s, a->names[i], idx, n, a->e)) != 0)
			return rc;
		/* the model's SMR verdicts go with it (a model may have only those) */
		ns = ap_vstore_smr_match(s, a->names[i], sidx, MAX_MATCHES);
		if (!n && !ns)
			json_object_array_add(a->absent, json_object_new_string(a->names[i]));
		/* from the last, so that the indexes before it stay */
		for (k = n; k-- > 0;) {
			add_name(a->forgotten, ap_vstore_model_name(&s->models[idx[k]]));
			ap_vstore_remove(s, idx[k]);
			removed++;
		}
		for (k = ns; k-- > 0;) {
			const struct ap_vstore_smr *x = &s->smr[sidx[k]];

			add_name(a->forgotten, ap_vstore_key_name(x->vendor, x->model, x->revision));
			ap_vstore_smr_remove(s, sidx[k]);
			removed++;
		}
	}
	return removed ? 1 : 0;
}

int ap_vstore_forget(const char *store, char **names, size_t n, struct json_object *forgotten,
		     struct json_object *absent, bool *changed, struct ap_error *e)
{
	struct forget_arg a = { .names = names, .n = n, .forgotten = forgotten, .absent = absent,
				.e = e };

	return ap_vstore_update(store, forget_fn, &a, changed, e);
}

int ap_vstore_merge_run(struct ap_vstore_merge *m, const char *store, char *const *paths,
			size_t n, const char *host, const char **failed, bool *bad,
			struct ap_error *e)
{
	size_t i;
	int rc;

	memset(m, 0, sizeof(*m));
	m->src = ap_xcalloc(n ? n : 1, sizeof(*m->src));
	m->n = n;
	m->conflicts = json_object_new_array();
	*failed = NULL;
	*bad = false;
	/* every SOURCE read and checked before the store is locked */
	for (i = 0; i < n; i++) {
		rc = ap_vstore_source_read(&m->src[i], paths[i], host, bad, e);
		if (rc) {
			*failed = paths[i];
			return rc;
		}
	}
	return ap_vstore_merge_sources(store, m->src, m->n, &m->st, m->conflicts, &m->changed, e);
}

struct json_object *ap_vstore_merge_to_json(const struct ap_vstore_merge *m, const char *store)
{
	const struct ap_vstore_merged *st = &m->st;
	struct json_object *o = json_object_new_object(), *sa = json_object_new_array();
	size_t i;

	json_object_object_add(o, "store", json_object_new_string(store));
	json_object_object_add(o, "changed", json_object_new_boolean(m->changed));
	json_object_object_add(o, "models_added", ap_json_u64(st->models_added));
	json_object_object_add(o, "verdicts_added", ap_json_u64(st->verdicts_added));
	json_object_object_add(o, "examples_added", ap_json_u64(st->examples_added));
	json_object_object_add(o, "examples_updated", ap_json_u64(st->examples_updated));
	json_object_object_add(o, "conflicts_added", ap_json_u64(st->conflicts_added));
	json_object_object_add(o, "smr_added", ap_json_u64(st->smr_added));
	json_object_object_add(o, "smr_updated", ap_json_u64(st->smr_updated));
	json_object_object_add(o, "conflicts", json_object_get(m->conflicts));
	for (i = 0; i < m->n; i++) {
		struct json_object *so = json_object_new_object();

		json_object_object_add(so, "path", json_object_new_string(m->src[i].path));
		json_object_object_add(so, "kind", json_object_new_string(m->src[i].kind));
		json_object_object_add(so, "models", ap_json_u64(m->src[i].s.nmodels));
		json_object_object_add(so, "skipped", ap_json_u64(m->src[i].skipped));
		json_object_array_add(sa, so);
	}
	json_object_object_add(o, "sources", sa);
	return o;
}

void ap_vstore_merge_free(struct ap_vstore_merge *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		ap_vstore_free(&m->src[i].s);
	free(m->src);
	json_object_put(m->conflicts);
	memset(m, 0, sizeof(*m));
}

struct json_object *ap_vstore_forgot_to_json(const char *store, struct json_object *forgotten,
					     struct json_object *absent, bool changed)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "store", json_object_new_string(store));
	json_object_object_add(o, "changed", json_object_new_boolean(changed));
	json_object_object_add(o, "forgotten", json_object_get(forgotten));
	json_object_object_add(o, "absent", json_object_get(absent));
	return o;
}
