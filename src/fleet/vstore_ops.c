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
	size_t i, k;

	for (i = 0; i < a->n; i++)
		ap_vstore_merge(s, &a->src[i].s, strcmp(a->src[i].kind, "store") != 0, a->st);
	for (k = 0; k < s->nmodels; k++) {
		const struct ap_vstore_model *m = &s->models[k];
		bool named = false;

		for (i = 0; !named && i < a->n; i++)
			named = ap_vstore_find(&a->src[i].s, m->vendor, m->model, m->revision);
		if (named && ap_vstore_model_in_conflict(m))
			json_object_array_add(a->conflicts, name_json(m));
	}
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
};

static int forget_fn(struct ap_vstore *s, void *arg)
{
	struct forget_arg *a = arg;
	size_t idx[MAX_MATCHES], i, k, n, removed = 0;

	for (i = 0; i < a->n; i++) {
		n = ap_vstore_match(s, a->names[i], idx, MAX_MATCHES);
		if (!n)
			json_object_array_add(a->absent, json_object_new_string(a->names[i]));
		/* from the last, so that the indexes before it stay */
		for (k = n; k-- > 0;) {
			json_object_array_add(a->forgotten, name_json(&s->models[idx[k]]));
			ap_vstore_remove(s, idx[k]);
			removed++;
		}
	}
	return removed ? 1 : 0;
}

int ap_vstore_forget(const char *store, char **names, size_t n, struct json_object *forgotten,
		     struct json_object *absent, bool *changed, struct ap_error *e)
{
	struct forget_arg a = { .names = names, .n = n, .forgotten = forgotten, .absent = absent };

	return ap_vstore_update(store, forget_fn, &a, changed, e);
}
