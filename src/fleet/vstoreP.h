/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the files of the verdict store share (vstore.c, vstore_json.c,
 * vstore_ops.c, vstore_smr.c, vstore_name.c) and its unit tests may reach:
 * a key field's comparison (NULL equals NULL), and an index of a store's
 * models by their key, so that reading, merging and layering n models
 * take O(n) lookups of O(1) each rather than a scan per model (a merge of
 * 60,000 models into 60,000 took 91 s with the scan).
 */
#ifndef AP_VSTOREP_H
#define AP_VSTOREP_H

#include <stdbool.h>
#include <string.h>
#include <sys/types.h>

#include "fleet/vstore.h"

/* Two fields of a key alike: both NULL, or the same string. */
static inline bool ap_vstore_same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Open addressing: slot[h] is a model's index + 1, 0 for an empty slot. */
struct ap_vstore_index {
	size_t *slot;
	size_t cap;	/* a power of two, more than twice the models indexed */
	size_t n;
};

/* An index of the first @n models of @s (later duplicates are not indexed). */
void ap_vstore_index_init(struct ap_vstore_index *ix, const struct ap_vstore *s, size_t n);
void ap_vstore_index_free(struct ap_vstore_index *ix);
/* The index of the model @vendor/@model/@revision in @s (as ap_vstore_find()), or -1. */
ssize_t ap_vstore_index_find(const struct ap_vstore_index *ix, const struct ap_vstore *s,
			     const char *vendor, const char *model, const char *revision);
/* Index the model at @i of @s (not indexed yet). */
void ap_vstore_index_add(struct ap_vstore_index *ix, const struct ap_vstore *s, size_t i);

#endif
