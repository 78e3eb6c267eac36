// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A probe or sweep result as verdict-store entries (see vstore.h,
 * ap_vstore_from_document()): what `verdicts merge` collects from the hosts
 * that ran the probes, read with the same verdict and identity readers
 * that wrote them.
 */
#include "fleet/vstore.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

#include "analysis/analysis.h"
#include "analysis/verdict_json.h"
#include "device/identity.h"

bool ap_vstore_recordable(const struct ap_verdict *v)
{
	return v && v->resolved && !v->tentative;
}

void ap_vstore_record_of_verdict(struct ap_vstore_record *r, const struct ap_disk_identity *id,
				 const struct ap_verdict *v)
{
	ap_vstore_record_of(r, id);
	r->logical_sector = v->logical_sector;
	r->physical_sector = v->physical_sector;
	r->lowest_aligned_lba = v->lowest_aligned_lba;
	r->sensitive = v->sensitive;
	r->absence_margin = v->sensitive ? 0 : v->absence_margin;
	r->ruled_out_up_to = v->sensitive ? 0 : v->ruled_out_up_to;
	ap_verdict_levels(v, &r->levels);
	if (!v->sensitive)
		r->ruled_out = v->ruled_out;
	r->first_writes_unplaced = v->sensitive && v->first_writes_unplaced;
	r->confidence = v->confidence;
}

/* One device's entry: added to @s, skipped, or -EINVAL with @e. */
static int entry_add(struct json_object *o, const char *where, time_t when, const char *host,
		     const char *source, struct ap_vstore *s, size_t *skipped,
		     struct ap_error *e)
{
	struct json_object *vo = NULL, *io = NULL, *dv = NULL;
	struct ap_disk_identity id;
	struct ap_vstore_record r;
	struct ap_verdict v;
	struct ap_error le = { 0 };
	int rc;

	if (!json_object_is_type(o, json_type_object))
		return ap_error_set(e, EINVAL, "%s: not an object", where);
	if (!json_object_object_get_ex(o, "verdict", &vo) || !vo) {
		(*skipped)++;	/* a device that failed before its verdict */
		return 0;
	}
	memset(&v, 0, sizeof(v));
	if (ap_verdict_from_json(vo, &v) != 0)
		return ap_error_set(e, EINVAL, "%s: \"verdict\" is not a verdict", where);
	if (!ap_vstore_recordable(&v)) {
		/* no verdict, or only a tentative one (the run exited 5): nothing to record */
		ap_verdict_free(&v);
		(*skipped)++;
		return 0;
	}
	if (!json_object_object_get_ex(o, "identity", &io) || !io) {
		ap_verdict_free(&v);
		return ap_error_set(e, EINVAL, "%s: no \"identity\": the result does not say "
				    "which drive model it measured", where);
	}
	if (ap_identity_from_json(io, &id, &le) != 0) {
		ap_verdict_free(&v);
		return ap_error_set(e, EINVAL, "%s: %s", where, le.msg);
	}
	ap_vstore_record_of_verdict(&r, &id, &v);
	if (json_object_object_get_ex(o, "device", &dv) && json_object_is_type(dv, json_type_string))
		r.device = json_object_get_string(dv);
	r.host = host;
	r.source = source;
	r.when = when;
	rc = ap_vstore_add(s, &r, &le);
	ap_identity_free(&id);
	ap_verdict_free(&v);
	if (rc < 0)
		return ap_error_set(e, EINVAL, "%s: %s", where, le.msg);
	return 0;
}

int ap_vstore_from_document(struct json_object *doc, time_t when, const char *host,
			    struct ap_vstore *s, size_t *skipped, const char **kind,
			    struct ap_error *e)
{
	struct json_object *a = NULL, *x = NULL;
	size_t i, n;
	int rc = 0;

	ap_vstore_init(s);
	*skipped = 0;
	*kind = "probe";
	if (!doc || !json_object_is_type(doc, json_type_object))
		return ap_error_set(e, EINVAL, "not a verdict store nor a probe or sweep result "
				    "(not a JSON object)");
	if (json_object_object_get_ex(doc, "format", &x)) {
		*kind = "store";
		return ap_vstore_from_json(doc, s, e);
	}
	if (json_object_object_get_ex(doc, "results", &x) &&
	    json_object_object_get_ex(doc, "starts", &x))
		*kind = "sweep";
	if (json_object_object_get_ex(doc, "devices", &a) &&
	    json_object_is_type(a, json_type_array)) {
		n = json_object_array_length(a);
		for (i = 0; !rc && i < n; i++) {
			char where[32];

			snprintf(where, sizeof(where), "devices[%zu]", i);
			rc = entry_add(json_object_array_get_idx(a, i), where, when, host, *kind, s,
				       skipped, e);
		}
	} else if (json_object_object_get_ex(doc, "verdict", &x)) {
		rc = entry_add(doc, "the result", when, host, *kind, s, skipped, e);
	} else {
		rc = ap_error_set(e, EINVAL, "not a verdict store nor a probe or sweep result "
				  "(no \"format\", \"verdict\" or \"devices\")");
	}
	if (rc)
		ap_vstore_free(s);
	return rc;
}
