// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check --refuse-smr (issue 35): a deployment's gate against shingled
 * disks. A zoned disk says so itself (queue/zoned); a drive-managed one
 * does not, so its model's verdict from `smr --record` decides. A model
 * nobody measured is not passed: exit 5, what to run said.
 */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/checkP.h"
#include "lib/exitcodes.h"
#include "lib/sysfs.h"
#include "smr/smr.h"

/* The zone model the kernel states for @dev's whole disk, or NULL. Caller frees. */
static char *zoned_of(const char *dev)
{
	struct stat st;
	char *name, *v = NULL;

	if (stat(dev, &st) != 0 || !S_ISBLK(st.st_mode))
		return NULL;
	name = ap_sysfs_wholedisk_name(st.st_rdev);
	if (name)
		v = ap_sysfs_name_attr(name, "queue/zoned");
	free(name);
	return v;
}

static void doc_add(struct check_cmd *c, const char *verdict, const char *source, int status)
{
	struct json_object *o;

	if (!c->doc)
		return;
	o = json_object_new_object();
	json_object_object_add(o, "verdict", verdict ? json_object_new_string(verdict) : NULL);
	json_object_object_add(o, "source", json_object_new_string(source));
	json_object_object_add(o, "refused", json_object_new_boolean(status == AP_EXIT_SMR));
	json_object_object_add(c->doc, "smr", o);
}

static bool shingled(const char *key)
{
	int v = ap_smr_verdict_from_key(key);

	return v >= 0 && ap_smr_is_shingled((enum ap_smr_verdict)v);
}

int check_refuse_smr(struct check_cmd *c)
{
	const struct ap_disk_identity *id = &c->ck.id;
	struct ap_vstore_model m = { 0 };
	char *zoned = zoned_of(c->ck.device), *name;
	size_t idx[8], n, i, bad = AP_ARRAY_SIZE(idx);

	if (zoned && (!strcmp(zoned, "host-managed") || !strcmp(zoned, "host-aware"))) {
		check_warn(c, "--refuse-smr: a zoned (SMR) disk (queue/zoned: %s): refused", zoned);
		doc_add(c, zoned, "queue/zoned", AP_EXIT_SMR);
		free(zoned);
		return AP_EXIT_SMR;
	}
	free(zoned);
	if (!c->ck.store || !c->ck.have_id || !id->model) {
		check_warn(c, "--refuse-smr: %s: run alignprobe smr on it", !c->ck.store ?
			   "no verdict store to answer for it" : "the disk states no model, so no "
			   "smr verdict can answer for it");
		doc_add(c, NULL, "none", AP_EXIT_INCONCLUSIVE);
		return AP_EXIT_INCONCLUSIVE;
	}
	m.vendor = id->vendor;
	m.model = id->model;
	m.revision = id->revision;
	name = ap_vstore_model_name(&m);
	n = ap_vstore_smr_find(c->ck.store, id->vendor, id->model, id->revision, idx,
			       AP_ARRAY_SIZE(idx));
	for (i = 0; i < n && bad == AP_ARRAY_SIZE(idx); i++)
		if (shingled(c->ck.store->smr[idx[i]].verdict))
			bad = idx[i];
	if (!n) {
		check_warn(c, "--refuse-smr: no smr verdict for the model %s in the verdict store: "
			   "run alignprobe smr --record on one of its disks", name);
		doc_add(c, NULL, "none", AP_EXIT_INCONCLUSIVE);
		free(name);
		return AP_EXIT_INCONCLUSIVE;
	}
	if (bad != AP_ARRAY_SIZE(idx)) {
		const struct ap_vstore_smr *x = &c->ck.store->smr[bad];

		check_warn(c, "--refuse-smr: the model %s has a persistent media cache: "
			   "drive-managed SMR or a hybrid (smr verdict %s, measured on %s%s%s%s): "
			   "refused", name, x->verdict, x->device ? x->device : "a disk",
			   x->host ? " of " : "", x->host ? x->host : "",
			   n > 1 ? "; the store also holds another verdict for it" : "");
		doc_add(c, x->verdict, "verdict store", AP_EXIT_SMR);
		free(name);
		return AP_EXIT_SMR;
	}
	if (c->verbose)
		check_warn(c, "--refuse-smr: the model %s: smr verdict %s", name,
			   c->ck.store->smr[idx[0]].verdict);
	doc_add(c, c->ck.store->smr[idx[0]].verdict, "verdict store", AP_EXIT_OK);
	free(name);
	return AP_EXIT_OK;
}
