// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A partition table as read (ptable.h) in JSON, as check -J shows it: what
 * the table and the device are, and what the reading found wrong with it.
 */
#include <string.h>
#include <json-c/json.h>

#include "device/ptable.h"
#include "lib/json.h"

void ap_ptable_to_json(const struct ap_ptable *pt, struct json_object *doc)
{
	json_object_object_add(doc, "type", json_object_new_string(pt->is_blockdev ? "block" : "image"));
	json_object_object_add(doc, "size", ap_json_u64(pt->size_bytes));
	json_object_object_add(doc, "logical_sector", json_object_new_int64(pt->sector_size));
	json_object_object_add(doc, "sectors", ap_json_u64(pt->nsectors));
	json_object_object_add(doc, "label", ap_json_string(pt->label));
	json_object_object_add(doc, "id", ap_json_string(pt->id));
	if (pt->reader && strcmp(pt->reader, "libfdisk") != 0)
		json_object_object_add(doc, "read_by", json_object_new_string(pt->reader));
	if (pt->whole_disk) {
		struct json_object *wo = json_object_new_object();

		json_object_object_add(wo, "type", json_object_new_string(pt->whole_disk));
		json_object_object_add(wo, "usage", ap_json_string(pt->whole_disk_usage));
		json_object_object_add(doc, "whole_disk", wo);
	}
	json_object_object_add(doc, "first_usable", pt->label ? ap_json_u64(pt->first_usable) : NULL);
	json_object_object_add(doc, "last_usable", pt->label ? ap_json_u64(pt->last_usable) : NULL);
}

void ap_ptable_issues_to_json(const struct ap_ptable *pt, struct json_object *doc)
{
	struct json_object *a;
	size_t i;

	a = json_object_new_array();
	for (i = 0; i < pt->nissues; i++) {
		const struct ap_pt_issue *is = &pt->issues[i];
		struct json_object *io = json_object_new_object();

		json_object_object_add(io, "kind", json_object_new_string(ap_pt_kind_name(is->kind)));
		json_object_object_add(io, "severity", json_object_new_string(is->error ? "error" : "warning"));
		json_object_object_add(io, "partition", is->partno >= 0
				       ? json_object_new_int64(is->partno + 1) : NULL);
		json_object_object_add(io, "message", json_object_new_string(is->msg));
		json_object_array_add(a, io);
	}
	json_object_object_add(doc, "issues", a);
	a = json_object_new_array();
	for (i = 0; i < pt->nfdisk_msgs; i++)
		json_object_array_add(a, json_object_new_string(pt->fdisk_msgs[i]));
	json_object_object_add(doc, "libfdisk_messages", a);
}
