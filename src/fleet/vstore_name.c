// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A model's name in the verdict store (vstore.h): the one list prints and
 * show and forget take ("ATA ST4000DM004-2CV104 0001"), and finding the
 * models and the smr rows a name given on the command line names.
 */
#include "fleet/vstore.h"
#include "fleet/vstoreP.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

char *ap_vstore_key_name(const char *vendor, const char *model, const char *revision)
{
	char *s;

	ap_xasprintf(&s, "%s%s%s%s%s", vendor ? vendor : "", vendor ? " " : "", model,
		     revision ? " " : "", revision ? revision : "");
	return s;
}

char *ap_vstore_model_name(const struct ap_vstore_model *m)
{
	return ap_vstore_key_name(m->vendor, m->model, m->revision);
}

/* The key of row @i: a model (models[]) or an smr row (smr[]). */
struct match_key {
	const char *vendor, *model, *revision;
};
typedef void (*match_key_fn)(const struct ap_vstore *s, size_t i, struct match_key *k);

static void model_key(const struct ap_vstore *s, size_t i, struct match_key *k)
{
	k->vendor = s->models[i].vendor;
	k->model = s->models[i].model;
	k->revision = s->models[i].revision;
}

static void smr_key(const struct ap_vstore *s, size_t i, struct match_key *k)
{
	k->vendor = s->smr[i].vendor;
	k->model = s->smr[i].model;
	k->revision = s->smr[i].revision;
}

/* ap_vstore_match() over the @count rows whose keys @key_at gives */
static size_t match_keys(const struct ap_vstore *s, size_t count, match_key_fn key_at,
			 const char *name, size_t *idx, size_t max)
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
		for (i = 0; i < count; i++) {
			struct match_key k;
			bool hit = false;

			key_at(s, i, &k);
			if (how == 0) {
				char *full = ap_vstore_key_name(k.vendor, k.model, k.revision);

				hit = strcmp(full, name) == 0;
				free(full);
			} else if (how == 1) {
				hit = copy && ap_vstore_same_str(k.vendor, f[0]) &&
				      ap_vstore_same_str(k.model, f[1]) &&
				      ap_vstore_same_str(k.revision, f[2]);
			} else {
				hit = strcmp(k.model, name) == 0;
			}
			if (hit && n < max)
				idx[n++] = i;
		}
	}
	free(copy);
	return n;
}

size_t ap_vstore_match(const struct ap_vstore *s, const char *name, size_t *idx, size_t max)
{
	return match_keys(s, s->nmodels, model_key, name, idx, max);
}

size_t ap_vstore_smr_match(const struct ap_vstore *s, const char *name, size_t *idx, size_t max)
{
	return match_keys(s, s->nsmr, smr_key, name, idx, max);
}
