// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness: saved JSON results read back, through the entry points
 * the commands use: ap_sweep_doc_load() (sweep --replay FILE),
 * ap_fleet_geometry_load() (check --geometry FILE) on a file holding the input,
 * and on whatever json-c parses from it ap_verdict_from_json() (the
 * document, its "verdict", devices[0].verdict) and
 * ap_sweep_result_from_json() (each of "results"), ap_identity_from_json()
 * (the document, its "identity", devices[0].identity). A verdict that
 * parses must survive ap_verdict_to_json() -> ap_verdict_from_json()
 * unchanged in its key fields, an identity unchanged in every field. Run with fuzz/run.sh json; `make check` replays the seeds
 * and fuzz/regressions/json/ through fuzz/replay.c.
 */
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "analysis/verdict_json.h"
#include "device/geometry.h"
#include "device/identity.h"
#include "fleet/load.h"
#include "lib/util.h"
#include "sweep/sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fd = -1;
static char path[64];

static void verdict(struct json_object *o)
{
	struct ap_verdict v, w;
	struct json_object *j;

	memset(&v, 0, sizeof(v));
	if (!o || ap_verdict_from_json(o, &v) != 0) {
		ap_verdict_free(&v);
		return;
	}
	j = ap_verdict_to_json(&v);
	memset(&w, 0, sizeof(w));
	if (ap_verdict_from_json(j, &w) != 0)
		abort();	/* what we write, we must read */
	if (w.sensitive != v.sensitive || w.resolved != v.resolved ||
	    w.logical_sector != v.logical_sector || w.physical_sector != v.physical_sector ||
	    w.lowest_aligned_lba != v.lowest_aligned_lba || w.nfast != v.nfast)
		abort();
	json_object_put(j);
	ap_verdict_free(&w);
	ap_verdict_free(&v);
}

static void identity(struct json_object *o)
{
	struct ap_disk_identity a, b;
	struct ap_error e = { 0 };
	struct json_object *j;

	if (!o)
		return;
	if (ap_identity_from_json(o, &a, &e) != 0) {
		if (!e.msg[0])
			abort();	/* every refusal must say why */
		return;
	}
	j = ap_identity_to_json(&a);
	if (ap_identity_from_json(j, &b, &e) != 0)
		abort();	/* what we write, we must read */
	if (ap_identity_compare(&a, &b, NULL, 0) != AP_IDENTITY_SAME ||
	    ap_identity_compare(&b, &a, NULL, 0) != AP_IDENTITY_SAME ||
	    (!a.revision) != (!b.revision) || (a.revision && strcmp(a.revision, b.revision)))
		abort();
	free(ap_identity_describe(&a));
	json_object_put(j);
	ap_identity_free(&a);
	ap_identity_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ap_sweep_doc d;
	struct ap_geometry g;
	struct ap_error e = { 0 };
	struct json_tokener *tok;
	struct json_object *o, *x, *a;
	size_t i;

	if (fd < 0) {
		fd = memfd_create("json", MFD_CLOEXEC);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();

	memset(&d, 0, sizeof(d));
	if (ap_sweep_doc_load(path, &d, &e) == 0)
		ap_sweep_doc_free(&d);
	else if (!e.msg[0])
		abort();	/* every refusal must say why */
	memset(&g, 0, sizeof(g));
	e.msg[0] = '\0';
	if (ap_fleet_geometry_load(path, NULL, &g, NULL, &e) != 0 && !e.msg[0])
		abort();
	/* matching an entry to a device: by identity, by path, or --geometry-any */
	for (i = 0; i < 2; i++) {
		struct ap_fleet_target t = {
			.path = "/dev/loop0", .is_blockdev = true, .wwn = "0x5000c500a1b2c3d4",
			.serial = "ZFN0ABCD", .any = i == 1,
		};
		struct ap_fleet_pick pick;

		e.msg[0] = '\0';
		if (ap_fleet_geometry_load(path, &t, &g, &pick, &e) != 0 && !e.msg[0])
			abort();
	}

	if (size > 1 << 20)
		return 0;
	tok = json_tokener_new();
	o = json_tokener_parse_ex(tok, (const char *)data, (int)size);
	json_tokener_free(tok);
	if (!o)
		return 0;
	verdict(o);
	identity(o);
	if (json_object_object_get_ex(o, "verdict", &x))
		verdict(x);
	if (json_object_object_get_ex(o, "identity", &x))
		identity(x);
	if (json_object_object_get_ex(o, "devices", &a) && json_object_is_type(a, json_type_array) &&
	    json_object_array_length(a) > 0) {
		if (json_object_object_get_ex(json_object_array_get_idx(a, 0), "verdict", &x))
			verdict(x);
		if (json_object_object_get_ex(json_object_array_get_idx(a, 0), "identity", &x))
			identity(x);
	}
	if (json_object_object_get_ex(o, "results", &a) && json_object_is_type(a, json_type_array)) {
		for (i = 0; i < json_object_array_length(a) && i < 64; i++) {
			struct ap_sweep_result r;

			memset(&r, 0, sizeof(r));
			if (ap_sweep_result_from_json(json_object_array_get_idx(a, i), &r, &e) == 0)
				ap_sweep_result_free(&r);
		}
	}
	json_object_put(o);
	return 0;
}
