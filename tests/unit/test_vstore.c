// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The verdict store: adding, merging examples, conflicts, the JSON form,
 * corrupt files (refused, never overwritten) and concurrent records (the
 * lock: nothing lost).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <json-c/json.h>

#include "device/identity.h"
#include "fleet/vstore.h"

static struct ap_vstore_record rec(const char *model, const char *serial, uint64_t phys,
				   uint64_t lowest)
{
	struct ap_vstore_record r = {
		.vendor = "ATA", .model = model, .revision = "0001", .serial = serial,
		.device = "/dev/sdb", .host = "node1", .source = "probe",
		.logical_sector = 512, .physical_sector = phys, .lowest_aligned_lba = lowest,
		.sensitive = phys > 512, .confidence = 0.999, .when = 1764576000,
	};

	return r;
}

static void test_add_and_merge(void **state)
{
	struct ap_vstore s;
	struct ap_vstore_record r;
	const struct ap_vstore_model *m;
	struct ap_error e = { 0 };

	(void)state;
	ap_vstore_init(&s);
	r = rec("ST4000DM004", "ZA1", 4096, 0);
	assert_int_equal(ap_vstore_add(&s, &r, &e), AP_VSTORE_NEW_MODEL);
	/* another disk of the model, the same verdict: one verdict, two examples */
	r = rec("ST4000DM004", "ZA2", 4096, 0);
	r.host = "node2";
	assert_int_equal(ap_vstore_add(&s, &r, &e), AP_VSTORE_NEW_EXAMPLE);
	/* the first disk again: its example is updated, not repeated */
	r = rec("ST4000DM004", "ZA1", 4096, 0);
	r.when = 1764662400;
	r.source = "sweep";
	assert_int_equal(ap_vstore_add(&s, &r, &e), AP_VSTORE_SAME_EXAMPLE);
	/* another model, and the same model with another firmware: separate */
	r = rec("WD40EFRX", "WD1", 4096, 0);
	assert_int_equal(ap_vstore_add(&s, &r, &e), AP_VSTORE_NEW_MODEL);
	r = rec("ST4000DM004", "ZA3", 4096, 0);
	r.revision = "0002";
	assert_int_equal(ap_vstore_add(&s, &r, &e), AP_VSTORE_NEW_MODEL);
	assert_int_equal(s.nmodels, 3);

	m = ap_vstore_find(&s, "ATA", "ST4000DM004", "0001");
	assert_non_null(m);
	assert_int_equal(m->nverdicts, 1);
	assert_int_equal(m->verdicts[0].physical_sector, 4096);
	assert_int_equal(m->verdicts[0].nexamples, 2);
	assert_string_equal(m->verdicts[0].examples[0].serial, "ZA1");
	assert_int_equal(m->verdicts[0].examples[0].runs, 2);
	assert_string_equal(m->verdicts[0].examples[0].source, "sweep");
	assert_string_equal(m->verdicts[0].examples[0].recorded, "2025-12-02T08:00:00Z");
	assert_string_equal(m->verdicts[0].examples[1].serial, "ZA2");
	assert_string_equal(m->verdicts[0].examples[1].host, "node2");
	assert_int_equal(m->verdicts[0].examples[1].runs, 1);
	assert_null(ap_vstore_find(&s, "ATA", "ST4000DM004", NULL));
	assert_null(ap_vstore_find(&s, NULL, "ST4000DM004", "0001"));
	assert_non_null(ap_vstore_find(&s, "ATA", "ST4000DM004", "0002"));
	ap_vstore_free(&s);
}

static void test_same_disk_without_serial(void **state)
{
	struct ap_vstore s;
	struct ap_vstore_record r;
	struct ap_error e = { 0 };

	(void)state;
	ap_vstore_init(&s);
	r = rec("X1", NULL, 4096, 7);
	assert_int_equal(ap_vstore_add(&s, &r, &e), AP_VSTORE_NEW_MODEL);
	/* no serial, no WWN: the same device on the same host is the same disk */
	assert_int_equal(ap_vstore_add(&s, &r, &e), AP_VSTORE_SAME_EXAMPLE);
	r.host = "node2";
	assert_int_equal(ap_vstore_add(&s, &r, &e), AP_VSTORE_NEW_EXAMPLE);
	/* WWNs in two notations are one disk */
	r = rec("X1", NULL, 4096, 7);
	r.wwn = "naa.5000C500A1B2C3D4";
	assert_int_equal(ap_vstore_add(&s, &r, &e), AP_VSTORE_NEW_EXAMPLE);
	r.wwn = "0x5000c500a1b2c3d4";
	r.device = "/dev/sdq";
	assert_int_equal(ap_vstore_add(&s, &r, &e), AP_VSTORE_SAME_EXAMPLE);
	assert_int_equal(s.models[0].verdicts[0].nexamples, 3);
	assert_string_equal(s.models[0].verdicts[0].examples[2].device, "/dev/sdq");
	ap_vstore_free(&s);
}

static void test_conflict(void **state)
{
	struct ap_vstore s;
	struct ap_vstore_record r;
	const struct ap_vstore_model *m;
	struct ap_error e = { 0 };
	char *name;

	(void)state;
	ap_vstore_init(&s);
	r = rec("X1", "A", 4096, 0);
	assert_int_equal(ap_vstore_add(&s, &r, &e), AP_VSTORE_NEW_MODEL);
	r = rec("X1", "B", 512, 0);		/* honest: a conflict */
	assert_int_equal(ap_vstore_add(&s, &r, &e), AP_VSTORE_CONFLICT);
	r = rec("X1", "C", 4096, 7);		/* shifted: another one */
	assert_int_equal(ap_vstore_add(&s, &r, &e), AP_VSTORE_CONFLICT);
	r = rec("X1", "D", 512, 0);		/* agrees with B: merged there */
	assert_int_equal(ap_vstore_add(&s, &r, &e), AP_VSTORE_NEW_EXAMPLE);
	m = ap_vstore_find(&s, "ATA", "X1", "0001");
	assert_non_null(m);
	assert_int_equal(m->nverdicts, 3);
	assert_int_equal(m->verdicts[0].nexamples, 1);
	assert_int_equal(m->verdicts[1].nexamples, 2);
	assert_string_equal(m->verdicts[1].examples[1].serial, "D");
	assert_int_equal(m->verdicts[2].lowest_aligned_lba, 7);
	name = ap_vstore_model_name(m);
	assert_string_equal(name, "ATA X1 0001");
	free(name);
	ap_vstore_free(&s);
}

static void test_refused(void **state)
{
	struct ap_vstore s;
	struct ap_vstore_record r;
	struct ap_error e = { 0 };

	(void)state;
	ap_vstore_init(&s);
	r = rec(NULL, "A", 4096, 0);
	assert_int_equal(ap_vstore_add(&s, &r, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "no model"));
	r = rec("", "A", 4096, 0);
	assert_int_equal(ap_vstore_add(&s, &r, &e), -EINVAL);
	r = rec("X", "A", 3000, 0);
	assert_int_equal(ap_vstore_add(&s, &r, &e), -EINVAL);
	r = rec("X", "A", 256, 0);
	assert_int_equal(ap_vstore_add(&s, &r, &e), -EINVAL);
	r = rec("X", "A", 4096, 8);
	assert_int_equal(ap_vstore_add(&s, &r, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "lowest aligned LBA 8"));
	assert_int_equal(s.nmodels, 0);
	ap_vstore_free(&s);
}

static void test_json_roundtrip(void **state)
{
	struct ap_vstore s, t;
	struct ap_vstore_record r;
	struct json_object *o, *o2;
	struct ap_error e = { 0 };

	(void)state;
	ap_vstore_init(&s);
	r = rec("X1", "A", 4096, 0);
	ap_vstore_add(&s, &r, &e);
	r = rec("X1", "B", 512, 0);
	r.confidence = NAN;
	r.vendor = NULL;
	ap_vstore_add(&s, &r, &e);
	o = ap_vstore_to_json(&s);
	assert_int_equal(ap_vstore_from_json(o, &t, &e), 0);
	o2 = ap_vstore_to_json(&t);
	assert_string_equal(json_object_to_json_string(o), json_object_to_json_string(o2));
	assert_int_equal(t.nmodels, 2);
	assert_null(t.models[1].vendor);
	assert_true(isnan(t.models[1].verdicts[0].examples[0].confidence));
	assert_true(t.models[0].verdicts[0].sensitive);
	json_object_put(o);
	json_object_put(o2);
	ap_vstore_free(&s);
	ap_vstore_free(&t);
}

/*
 * "No effect" keeps the smallest margin it was shown down to (a probe's
 * 1.10, a sweep's 1.15); a record without one (0) changes nothing; JSON
 * carries it, and an older store without it reads as 0 (unknown).
 */
static void test_absence_margin(void **state)
{
	struct ap_vstore s, t;
	struct ap_vstore_record r;
	struct json_object *o;
	struct ap_error e = { 0 };

	(void)state;
	ap_vstore_init(&s);
	r = rec("H1", "A", 512, 0);
	assert_false(r.sensitive);
	r.absence_margin = 1.15;
	assert_int_equal(ap_vstore_add(&s, &r, &e), AP_VSTORE_NEW_MODEL);
	assert_float_equal(s.models[0].verdicts[0].absence_margin, 1.15, 1e-12);
	r = rec("H1", "B", 512, 0);
	r.absence_margin = 1.1;
	assert_int_equal(ap_vstore_add(&s, &r, &e), AP_VSTORE_NEW_EXAMPLE);
	assert_float_equal(s.models[0].verdicts[0].absence_margin, 1.1, 1e-12);
	r = rec("H1", "C", 512, 0);	/* unknown: keeps 1.10 */
	assert_int_equal(ap_vstore_add(&s, &r, &e), AP_VSTORE_NEW_EXAMPLE);
	assert_float_equal(s.models[0].verdicts[0].absence_margin, 1.1, 1e-12);
	r = rec("H2", "D", 512, 0);	/* none known */
	assert_int_equal(ap_vstore_add(&s, &r, &e), AP_VSTORE_NEW_MODEL);
	assert_float_equal(s.models[1].verdicts[0].absence_margin, 0, 0);

	o = ap_vstore_to_json(&s);
	assert_non_null(strstr(json_object_to_json_string(o), "\"absence_margin\": 1.1"));
	assert_int_equal(ap_vstore_from_json(o, &t, &e), 0);
	assert_float_equal(t.models[0].verdicts[0].absence_margin, 1.1, 1e-12);
	assert_float_equal(t.models[1].verdicts[0].absence_margin, 0, 0);
	json_object_put(o);
	ap_vstore_free(&s);
	ap_vstore_free(&t);
}

static void bad_json(const char *text, const char *why)
{
	struct json_object *o = json_tokener_parse(text);
	struct ap_vstore s;
	struct ap_error e = { 0 };

	assert_non_null(o);
	assert_int_equal(ap_vstore_from_json(o, &s, &e), -EINVAL);
	if (!strstr(e.msg, why))
		fail_msg("'%s' does not say '%s'", e.msg, why);
	assert_int_equal(s.nmodels, 0);
	json_object_put(o);
}

#define HEAD "{\"format\": \"alignprobe-verdicts\", \"version\": 1, "
#define VERDICT "{\"logical_sector\": 512, \"physical_sector\": 4096, " \
		"\"lowest_aligned_lba\": 0, \"examples\": []}"

/* A store a newer alignprobe wrote is not corrupt: -EPROTO, named so. */
static void test_json_newer(void **state)
{
	struct json_object *o = json_tokener_parse(
		"{\"format\": \"alignprobe-verdicts\", \"version\": 2, \"models\": []}");
	struct ap_vstore s;
	struct ap_error e = { 0 };

	(void)state;
	assert_non_null(o);
	assert_int_equal(ap_vstore_from_json(o, &s, &e), -EPROTO);
	assert_non_null(strstr(e.msg, "version 2, written by a newer alignprobe"));
	assert_int_equal(s.nmodels, 0);
	json_object_put(o);
}

static void test_json_refused(void **state)
{
	(void)state;
	bad_json("[]", "not a JSON object");
	bad_json("{\"models\": []}", "\"format\" is missing");
	bad_json("{\"format\": \"x\", \"version\": 1, \"models\": []}", "\"format\" is 'x'");
	bad_json("{\"format\": \"alignprobe-verdicts\", \"version\": 0, \"models\": []}",
		 "version 0");
	bad_json(HEAD "\"models\": {}}", "\"models\" is not an array");
	bad_json(HEAD "\"models\": [1]}", "models[0]: not an object");
	bad_json(HEAD "\"models\": [{\"verdicts\": [" VERDICT "]}]}", "\"model\" is missing");
	bad_json(HEAD "\"models\": [{\"model\": 7, \"verdicts\": [" VERDICT "]}]}",
		 "\"model\" is not a string");
	bad_json(HEAD "\"models\": [{\"model\": \"m\", \"verdicts\": []}]}",
		 "\"verdicts\" is empty");
	bad_json(HEAD "\"models\": [{\"model\": \"m\", \"verdicts\": [{\"logical_sector\": 512, "
		 "\"physical_sector\": 4000, \"lowest_aligned_lba\": 0, \"examples\": []}]}]}",
		 "models[0]: verdicts[0]: physical sector of 4000 bytes");
	bad_json(HEAD "\"models\": [{\"model\": \"m\", \"verdicts\": [{\"logical_sector\": 512, "
		 "\"physical_sector\": -1, \"lowest_aligned_lba\": 0, \"examples\": []}]}]}",
		 "\"physical_sector\" out of range");
	bad_json(HEAD "\"models\": [{\"model\": \"m\", \"verdicts\": [" VERDICT ", " VERDICT
		 "]}]}", "verdicts[1] repeats verdicts[0]");
	bad_json(HEAD "\"models\": [{\"model\": \"m\", \"verdicts\": [{\"logical_sector\": 512, "
		 "\"physical_sector\": 512, \"lowest_aligned_lba\": 0, \"absence_margin\": \"1.1\", "
		 "\"examples\": []}]}]}", "\"absence_margin\" is not a number");
	bad_json(HEAD "\"models\": [{\"model\": \"m\", \"verdicts\": [{\"logical_sector\": 512, "
		 "\"physical_sector\": 512, \"lowest_aligned_lba\": 0, \"absence_margin\": 0.5, "
		 "\"examples\": []}]}]}", "\"absence_margin\" is out of range");
	bad_json(HEAD "\"models\": [{\"model\": \"m\", \"verdicts\": [" VERDICT "]}, "
		 "{\"model\": \"m\", \"verdicts\": [" VERDICT "]}]}", "models[1]: the model is listed twice");
	bad_json(HEAD "\"models\": [{\"model\": \"m\", \"verdicts\": [{\"logical_sector\": 512, "
		 "\"physical_sector\": 4096, \"lowest_aligned_lba\": 0, \"examples\": "
		 "[{\"serial\": 5}]}]}]}", "examples[0]: \"serial\" is not a string");
	bad_json(HEAD "\"models\": [{\"model\": \"m\", \"verdicts\": [{\"logical_sector\": 512, "
		 "\"physical_sector\": 4096, \"lowest_aligned_lba\": 0, \"examples\": "
		 "[{\"confidence\": \"high\"}]}]}]}", "\"confidence\" is not a number");
}

/* A fresh directory for store files. */
static char *tmpdir(void)
{
	char *d = strdup("/tmp/test_vstore.XXXXXX");

	assert_non_null(mkdtemp(d));
	return d;
}

static void rmtree(const char *dir)
{
	char *cmd;

	assert_true(asprintf(&cmd, "rm -rf '%s'", dir) > 0);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 20);
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_file(void **state)
{
	struct ap_vstore s;
	struct ap_vstore_record r;
	enum ap_vstore_added how = 0;
	struct ap_error e = { 0 };
	char *dir = tmpdir(), *path, *before, *after;
	FILE *f;

	(void)state;
	assert_true(asprintf(&path, "%s/verdicts.json", dir) > 0);
	assert_int_equal(ap_vstore_load(path, &s, &e), -ENOENT);
	assert_int_equal(ap_vstore_check(path, &e), 0);	/* absent: will be created */

	r = rec("X1", "A", 4096, 0);
	assert_int_equal(ap_vstore_record(path, &r, &how, &e), 0);
	assert_int_equal(how, AP_VSTORE_NEW_MODEL);
	r = rec("X1", "B", 4096, 0);
	assert_int_equal(ap_vstore_record(path, &r, &how, &e), 0);
	assert_int_equal(how, AP_VSTORE_NEW_EXAMPLE);
	r = rec("X1", "C", 512, 0);
	assert_int_equal(ap_vstore_record(path, &r, &how, &e), 0);
	assert_int_equal(how, AP_VSTORE_CONFLICT);
	assert_int_equal(ap_vstore_load(path, &s, &e), 0);
	assert_int_equal(s.nmodels, 1);
	assert_int_equal(s.models[0].nverdicts, 2);
	assert_int_equal(s.models[0].verdicts[0].nexamples, 2);
	ap_vstore_free(&s);
	assert_int_equal(ap_vstore_check(path, &e), 0);

	/* a bad record changes nothing */
	before = slurp(path);
	r = rec(NULL, "D", 4096, 0);
	assert_int_equal(ap_vstore_record(path, &r, &how, &e), -EINVAL);
	after = slurp(path);
	assert_string_equal(before, after);
	free(before);
	free(after);

	/* a corrupt store: a clear error, and it is never overwritten */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"format\": \"alignprobe-verdicts\", \"version\": 1, \"models\": [", f);
	fclose(f);
	before = slurp(path);
	assert_int_equal(ap_vstore_check(path, &e), -EINVAL);
	assert_non_null(strstr(e.msg, path));
	assert_non_null(strstr(e.msg, "not valid JSON"));
	r = rec("X1", "E", 4096, 0);
	assert_int_equal(ap_vstore_record(path, &r, &how, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "not valid JSON"));
	after = slurp(path);
	assert_string_equal(before, after);
	free(before);
	free(after);

	/* valid JSON, not a store */
	f = fopen(path, "w");
	fputs("{\"device\": \"/dev/sda\", \"verdict\": {}}\n", f);
	fclose(f);
	assert_int_equal(ap_vstore_check(path, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "not a verdict store"));

	/* a directory that does not exist */
	free(path);
	assert_true(asprintf(&path, "%s/none/verdicts.json", dir) > 0);
	assert_int_equal(ap_vstore_check(path, &e), -ENOENT);
	r = rec("X1", "A", 4096, 0);
	assert_int_equal(ap_vstore_record(path, &r, &how, &e), -ENOENT);
	free(path);
	rmtree(dir);
	free(dir);
}

/* Many processes record at once: every example arrives (the lock). */
static void test_concurrent(void **state)
{
	enum { N = 12 };
	struct ap_vstore s;
	char *dir = tmpdir(), *path, serial[16];
	pid_t pids[N];
	struct ap_error e = { 0 };
	int i, status, fds[2];

	(void)state;
	assert_true(asprintf(&path, "%s/verdicts.json", dir) > 0);
	assert_int_equal(pipe(fds), 0);
	for (i = 0; i < N; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			struct ap_vstore_record r;
			enum ap_vstore_added how;
			char c;

			close(fds[1]);
			/* start together: when the parent closes the pipe */
			if (read(fds[0], &c, 1) < 0)
				_exit(3);
			snprintf(serial, sizeof(serial), "S%02d", i);
			r = rec(i % 3 ? "X1" : "X2", serial, 4096, 0);
			_exit(ap_vstore_record(path, &r, &how, &e) == 0 ? 0 : 1);
		}
	}
	close(fds[0]);
	close(fds[1]);
	for (i = 0; i < N; i++) {
		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	assert_int_equal(ap_vstore_load(path, &s, &e), 0);
	assert_int_equal(s.nmodels, 2);
	assert_int_equal(s.models[0].verdicts[0].nexamples + s.models[1].verdicts[0].nexamples, N);
	assert_non_null(ap_vstore_find(&s, "ATA", "X2", "0001"));
	assert_int_equal(ap_vstore_find(&s, "ATA", "X2", "0001")->verdicts[0].nexamples, N / 3);
	ap_vstore_free(&s);
	free(path);
	rmtree(dir);
	free(dir);
}


/* A store of the given records. */
static void store_of(struct ap_vstore *s, const struct ap_vstore_record *r, size_t n)
{
	struct ap_error e = { 0 };
	size_t i;

	ap_vstore_init(s);
	for (i = 0; i < n; i++)
		assert_true(ap_vstore_add(s, &r[i], &e) > 0);
}

static char *to_text(const struct ap_vstore *s)
{
	struct json_object *o = ap_vstore_to_json(s);
	char *t = strdup(json_object_to_json_string(o));

	json_object_put(o);
	return t;
}

/* Two hosts' stores merged: union, a conflict kept with both sides, idempotent. */
static void test_merge_stores(void **state)
{
	struct ap_vstore_record a[3], b[3];
	struct ap_vstore sa, sb;
	struct ap_vstore_merged st = { 0 };
	const struct ap_vstore_model *m;
	char *t1, *t2;

	(void)state;
	a[0] = rec("X1", "A1", 4096, 0);
	a[1] = rec("X2", "A2", 4096, 7);
	a[2] = rec("X3", "A3", 512, 0);
	a[2].absence_margin = 1.15;
	b[0] = rec("X1", "B1", 4096, 0);	/* agrees: another disk */
	b[0].host = "node2";
	b[1] = rec("X2", "B2", 4096, 0);	/* disagrees: a conflict */
	b[1].host = "node2";
	b[2] = rec("X4", "B4", 8192, 0);	/* a model A lacks */
	store_of(&sa, a, 3);
	store_of(&sb, b, 3);
	ap_vstore_merge(&sa, &sb, false, &st);
	assert_int_equal(st.models_added, 1);
	assert_int_equal(st.verdicts_added, 1);
	assert_int_equal(st.examples_added, 3);	/* B1 to X1, B2 under its new verdict, B4 */
	assert_int_equal(st.examples_updated, 0);
	assert_int_equal(st.conflicts_added, 1);
	assert_true(ap_vstore_merged_any(&st));
	assert_int_equal(sa.nmodels, 4);
	m = ap_vstore_find(&sa, "ATA", "X1", "0001");
	assert_int_equal(m->nverdicts, 1);
	assert_int_equal(m->verdicts[0].nexamples, 2);
	assert_false(ap_vstore_model_in_conflict(m));
	m = ap_vstore_find(&sa, "ATA", "X2", "0001");
	assert_int_equal(m->nverdicts, 2);	/* both sides, nothing resolved */
	assert_int_equal(m->verdicts[0].lowest_aligned_lba, 7);
	assert_string_equal(m->verdicts[0].examples[0].serial, "A2");
	assert_int_equal(m->verdicts[1].lowest_aligned_lba, 0);
	assert_string_equal(m->verdicts[1].examples[0].serial, "B2");
	assert_true(ap_vstore_model_in_conflict(m));
	assert_int_equal(ap_vstore_find(&sa, "ATA", "X4", "0001")->index, 3);

	/* again: nothing changes */
	t1 = to_text(&sa);
	memset(&st, 0, sizeof(st));
	ap_vstore_merge(&sa, &sb, false, &st);
	assert_false(ap_vstore_merged_any(&st));
	assert_int_equal(st.conflicts_added, 0);
	t2 = to_text(&sa);
	assert_string_equal(t1, t2);
	free(t2);
	/* the other way round: the same models, verdicts and disks */
	memset(&st, 0, sizeof(st));
	ap_vstore_merge(&sb, &sa, false, &st);
	assert_int_equal(sb.nmodels, 4);
	assert_int_equal(ap_vstore_find(&sb, "ATA", "X2", "0001")->nverdicts, 2);
	/* into itself */
	memset(&st, 0, sizeof(st));
	ap_vstore_merge(&sa, &sa, false, &st);
	assert_false(ap_vstore_merged_any(&st));
	free(t1);
	ap_vstore_free(&sa);
	ap_vstore_free(&sb);
}

/*
 * A unit found whose first writes cost more with no unit of theirs placed
 * (issue 33): the store keeps the sign (check --verdicts warns of it),
 * one disk's stands for the model, a merge carries it, an
 * older store without it reads as none, and a "no effect" has none.
 */
static struct json_object *verdict_json(struct json_object *store, size_t model)
{
	struct json_object *m = json_object_array_get_idx(json_object_object_get(store, "models"),
							  model);

	assert_non_null(m);
	return json_object_array_get_idx(json_object_object_get(m, "verdicts"), 0);
}

static void test_first_writes_unplaced(void **state)
{
	struct ap_vstore s, t, u, w;
	struct ap_vstore_merged st = { 0 };
	struct ap_vstore_record r;
	struct json_object *o, *x;
	struct ap_error e = { 0 };

	(void)state;
	ap_vstore_init(&s);
	r = rec("X1", "A", 4096, 7);
	assert_int_equal(ap_vstore_add(&s, &r, &e), AP_VSTORE_NEW_MODEL);
	assert_false(s.models[0].verdicts[0].first_writes_unplaced);
	o = ap_vstore_to_json(&s);	/* not written where it says nothing */
	assert_false(json_object_object_get_ex(verdict_json(o, 0), "first_writes_unplaced", NULL));
	json_object_put(o);
	/* a second disk of the model shows it: the model's verdict carries it */
	r = rec("X1", "B", 4096, 7);
	r.first_writes_unplaced = true;
	assert_int_equal(ap_vstore_add(&s, &r, &e), AP_VSTORE_NEW_EXAMPLE);
	assert_true(s.models[0].verdicts[0].first_writes_unplaced);
	/* the first disk again, without it: kept */
	r = rec("X1", "A", 4096, 7);
	assert_int_equal(ap_vstore_add(&s, &r, &e), AP_VSTORE_SAME_EXAMPLE);
	assert_true(s.models[0].verdicts[0].first_writes_unplaced);
	/* a "no effect" has none */
	r = rec("X2", "C", 512, 0);
	r.first_writes_unplaced = true;
	assert_int_equal(ap_vstore_add(&s, &r, &e), AP_VSTORE_NEW_MODEL);
	assert_false(s.models[1].verdicts[0].first_writes_unplaced);
	/* JSON: written, read back; an older store without it reads as none */
	o = ap_vstore_to_json(&s);
	x = verdict_json(o, 0);
	assert_true(json_object_get_boolean(json_object_object_get(x, "first_writes_unplaced")));
	assert_int_equal(ap_vstore_from_json(o, &t, &e), 0);
	assert_true(t.models[0].verdicts[0].first_writes_unplaced);
	json_object_object_del(x, "first_writes_unplaced");
	assert_int_equal(ap_vstore_from_json(o, &u, &e), 0);
	assert_false(u.models[0].verdicts[0].first_writes_unplaced);
	json_object_object_add(x, "first_writes_unplaced", json_object_new_string("yes"));
	assert_int_equal(ap_vstore_from_json(o, &w, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "first_writes_unplaced"));
	json_object_put(o);
	/* a merge carries it into a store whose verdict lacks it */
	ap_vstore_merge(&u, &t, false, &st);
	assert_true(u.models[0].verdicts[0].first_writes_unplaced);
	assert_true(st.examples_updated > 0);
	ap_vstore_free(&s);
	ap_vstore_free(&t);
	ap_vstore_free(&u);
}

/* The same disk in both: the later run is kept; runs the larger, or one more for a result. */
static void test_merge_same_disk(void **state)
{
	struct ap_vstore_record r;
	struct ap_vstore sa, sb;
	struct ap_vstore_merged st = { 0 };
	struct ap_error e = { 0 };
	const struct ap_vstore_example *x;

	(void)state;
	r = rec("X1", "A1", 4096, 0);
	store_of(&sa, &r, 1);
	assert_int_equal(ap_vstore_add(&sa, &r, &e), AP_VSTORE_SAME_EXAMPLE);	/* runs 2 */
	r.when += 3600;
	r.source = "sweep";
	store_of(&sb, &r, 1);					/* a later run, runs 1 */
	ap_vstore_merge(&sa, &sb, false, &st);
	x = &sa.models[0].verdicts[0].examples[0];
	assert_int_equal(st.examples_updated, 1);
	assert_int_equal(sa.models[0].verdicts[0].nexamples, 1);
	assert_string_equal(x->source, "sweep");
	assert_string_equal(x->recorded, "2025-12-01T09:00:00Z");
	assert_int_equal(x->runs, 2);			/* a store: the larger count */
	/* a result (single runs), later still: one more run, once */
	r.when += 3600;
	ap_vstore_free(&sb);
	store_of(&sb, &r, 1);
	memset(&st, 0, sizeof(st));
	ap_vstore_merge(&sa, &sb, true, &st);
	x = &sa.models[0].verdicts[0].examples[0];
	assert_int_equal(x->runs, 3);
	memset(&st, 0, sizeof(st));
	ap_vstore_merge(&sa, &sb, true, &st);
	assert_false(ap_vstore_merged_any(&st));
	assert_int_equal(sa.models[0].verdicts[0].examples[0].runs, 3);
	/* an older run changes nothing */
	r.when -= 7200 * 2;
	ap_vstore_free(&sb);
	store_of(&sb, &r, 1);
	memset(&st, 0, sizeof(st));
	ap_vstore_merge(&sa, &sb, true, &st);
	assert_false(ap_vstore_merged_any(&st));
	/* "sensitive" and the margin: either's, the narrower */
	ap_vstore_free(&sa);
	ap_vstore_free(&sb);
	r = rec("X9", "A", 512, 0);
	r.absence_margin = 1.5;
	store_of(&sa, &r, 1);
	r.absence_margin = 1.1;
	store_of(&sb, &r, 1);
	memset(&st, 0, sizeof(st));
	ap_vstore_merge(&sa, &sb, false, &st);
	assert_true(ap_vstore_merged_any(&st));
	assert_true(fabs(sa.models[0].verdicts[0].absence_margin - 1.1) < 1e-9);
	ap_vstore_free(&sa);
	ap_vstore_free(&sb);
}

static void test_match_and_remove(void **state)
{
	struct ap_vstore_record r[4];
	struct ap_vstore s;
	size_t idx[8];

	(void)state;
	r[0] = rec("ST4000 DM", "A", 4096, 0);
	r[1] = rec("ST4000 DM", "B", 4096, 0);
	r[1].revision = "0002";
	r[2] = rec("X2", "C", 4096, 0);
	r[2].vendor = NULL;
	r[2].revision = NULL;
	r[3] = rec("ATA", "D", 4096, 0);	/* a model named like a vendor */
	store_of(&s, r, 4);
	assert_int_equal(ap_vstore_match(&s, "ATA ST4000 DM 0001", idx, 8), 1);
	assert_int_equal(idx[0], 0);
	assert_int_equal(ap_vstore_match(&s, "ATA:ST4000 DM:0002", idx, 8), 1);
	assert_int_equal(idx[0], 1);
	assert_int_equal(ap_vstore_match(&s, "ST4000 DM", idx, 8), 2);	/* every revision */
	assert_int_equal(ap_vstore_match(&s, "X2", idx, 8), 1);
	assert_int_equal(ap_vstore_match(&s, ":X2:", idx, 8), 1);
	assert_int_equal(ap_vstore_match(&s, "ATA:X2:", idx, 8), 0);
	assert_int_equal(ap_vstore_match(&s, "ATA", idx, 8), 1);
	assert_int_equal(idx[0], 3);
	assert_int_equal(ap_vstore_match(&s, "nothing", idx, 8), 0);
	assert_int_equal(ap_vstore_match(&s, "a:b:c:d", idx, 8), 0);
	ap_vstore_remove(&s, 1);
	assert_int_equal(s.nmodels, 3);
	assert_string_equal(s.models[1].model, "X2");
	ap_vstore_remove(&s, 7);	/* out of range: nothing */
	assert_int_equal(s.nmodels, 3);
	ap_vstore_free(&s);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* --verdicts A --verdicts B: per model the first file that holds it. */
static void test_layers(void **state)
{
	struct ap_vstore s;
	struct ap_vstore_record r;
	enum ap_vstore_added how;
	struct ap_error e = { 0 };
	char *dir = tmpdir(), *own, *fleet, *bad;
	const char *paths[3];
	const struct ap_vstore_model *m;

	(void)state;
	assert_true(asprintf(&own, "%s/own.json", dir) > 0);
	assert_true(asprintf(&fleet, "%s/fleet.json", dir) > 0);
	assert_true(asprintf(&bad, "%s/bad.json", dir) > 0);
	r = rec("X1", "OWN", 4096, 7);
	assert_int_equal(ap_vstore_record(own, &r, &how, &e), 0);
	r = rec("X1", "FLEET", 4096, 0);
	assert_int_equal(ap_vstore_record(fleet, &r, &how, &e), 0);
	r = rec("X2", "FLEET2", 8192, 0);
	assert_int_equal(ap_vstore_record(fleet, &r, &how, &e), 0);
	paths[0] = own;
	paths[1] = fleet;
	assert_int_equal(ap_vstore_load_layers(paths, 2, &s, &e), 0);
	assert_int_equal(s.nmodels, 2);
	m = ap_vstore_find(&s, "ATA", "X1", "0001");
	assert_int_equal(m->layer, 0);		/* the host's own decides */
	assert_int_equal(m->nverdicts, 1);
	assert_int_equal(m->verdicts[0].lowest_aligned_lba, 7);
	m = ap_vstore_find(&s, "ATA", "X2", "0001");
	assert_int_equal(m->layer, 1);
	assert_int_equal(m->index, 1);		/* its index in its own file */
	ap_vstore_free(&s);
	/* the other order: the fleet's */
	paths[0] = fleet;
	paths[1] = own;
	assert_int_equal(ap_vstore_load_layers(paths, 2, &s, &e), 0);
	assert_int_equal(ap_vstore_find(&s, "ATA", "X1", "0001")->verdicts[0].lowest_aligned_lba, 0);
	ap_vstore_free(&s);
	/* a missing or corrupt layer: an error naming it, nothing loaded */
	paths[2] = bad;
	assert_int_equal(ap_vstore_load_layers(paths, 3, &s, &e), -ENOENT);
	assert_int_equal(s.nmodels, 0);
	write_file(bad, "{}");
	assert_int_equal(ap_vstore_load_layers(paths, 3, &s, &e), -EINVAL);
	assert_non_null(strstr(e.msg, bad));
	free(own);
	free(fleet);
	free(bad);
	rmtree(dir);
	free(dir);
}

#define RESULT_VERDICT \
	"\"verdict\": {\"sensitive\": true, \"resolved\": true, \"logical_sector\": 512, " \
	"\"reported_physical_sector\": 512, \"physical_sector\": 4096, \"period\": 8, " \
	"\"lowest_aligned_lba\": 7, \"slowdown\": 2.1, \"p_value\": 0.001, \"confidence\": 0.999, " \
	"\"fast_starts\": [], \"min_slowdown\": 1.5, \"absence_margin\": 1.1}"
#define RESULT_IDENTITY(serial) \
	"\"identity\": {\"wwn\": null, \"serial\": " serial ", \"model\": \"Lying 4K\", " \
	"\"vendor\": \"ACME\", \"revision\": \"1.0\", \"size\": 134217728, \"logical_sector\": 512}"

/* probe/sweep results as single-run stores. */
static void test_results(void **state)
{
	struct ap_vstore s;
	struct ap_error e = { 0 };
	struct json_object *doc;
	const char *kind;
	size_t skipped;

	(void)state;
	doc = json_tokener_parse("{\"device\": \"/dev/sdb\", \"mode\": \"preserve\", "
				 RESULT_VERDICT ", " RESULT_IDENTITY("\"S1\"") "}");
	assert_int_equal(ap_vstore_from_document(doc, 1764576000, "node7", &s, &skipped, &kind,
						 &e), 0);
	json_object_put(doc);
	assert_string_equal(kind, "probe");
	assert_int_equal(skipped, 0);
	assert_int_equal(s.nmodels, 1);
	assert_string_equal(s.models[0].model, "Lying 4K");
	assert_string_equal(s.models[0].vendor, "ACME");
	assert_int_equal(s.models[0].verdicts[0].lowest_aligned_lba, 7);
	assert_true(s.models[0].verdicts[0].sensitive);
	assert_string_equal(s.models[0].verdicts[0].examples[0].serial, "S1");
	assert_string_equal(s.models[0].verdicts[0].examples[0].host, "node7");
	assert_string_equal(s.models[0].verdicts[0].examples[0].device, "/dev/sdb");
	assert_string_equal(s.models[0].verdicts[0].examples[0].recorded, "2025-12-01T08:00:00Z");
	ap_vstore_free(&s);

	/* several devices; one without a verdict is skipped; a sweep document */
	doc = json_tokener_parse("{\"devices\": [{\"device\": \"/dev/sdb\", \"results\": [], "
				 "\"starts\": [], " RESULT_VERDICT ", " RESULT_IDENTITY("\"S1\"")
				 "}, {\"device\": \"/dev/sdc\", \"verdict\": null}]}");
	assert_int_equal(ap_vstore_from_document(doc, 0, NULL, &s, &skipped, &kind, &e), 0);
	json_object_put(doc);
	assert_int_equal(skipped, 1);
	assert_int_equal(s.nmodels, 1);
	ap_vstore_free(&s);
	doc = json_tokener_parse("{\"device\": \"/dev/sdb\", \"results\": [], \"starts\": [], "
				 RESULT_VERDICT ", " RESULT_IDENTITY("\"S1\"") "}");
	assert_int_equal(ap_vstore_from_document(doc, 0, NULL, &s, &skipped, &kind, &e), 0);
	json_object_put(doc);
	assert_string_equal(kind, "sweep");
	assert_string_equal(s.models[0].verdicts[0].examples[0].source, "sweep");
	ap_vstore_free(&s);

	/* no identity, no model, not a verdict, not a result: bad input */
	doc = json_tokener_parse("{\"device\": \"/dev/sdb\", " RESULT_VERDICT "}");
	assert_int_equal(ap_vstore_from_document(doc, 0, NULL, &s, &skipped, &kind, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "identity"));
	json_object_put(doc);
	doc = json_tokener_parse("{\"device\": \"/dev/sdb\", " RESULT_VERDICT ", \"identity\": "
				 "{\"size\": 4096, \"logical_sector\": 512}}");
	assert_int_equal(ap_vstore_from_document(doc, 0, NULL, &s, &skipped, &kind, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "no model"));
	json_object_put(doc);
	doc = json_tokener_parse("{\"device\": \"/dev/sdb\", \"verdict\": {\"resolved\": 1}}");
	assert_int_equal(ap_vstore_from_document(doc, 0, NULL, &s, &skipped, &kind, &e), -EINVAL);
	json_object_put(doc);
	doc = json_tokener_parse("{\"something\": 1}");
	assert_int_equal(ap_vstore_from_document(doc, 0, NULL, &s, &skipped, &kind, &e), -EINVAL);
	json_object_put(doc);
	/* a store is a store */
	doc = json_tokener_parse("{\"format\": \"alignprobe-verdicts\", \"version\": 1, "
				 "\"models\": []}");
	assert_int_equal(ap_vstore_from_document(doc, 0, NULL, &s, &skipped, &kind, &e), 0);
	assert_string_equal(kind, "store");
	json_object_put(doc);
	ap_vstore_free(&s);
}

#define NO_EFFECT_VERDICT(extra) \
	"\"verdict\": {\"sensitive\": false, \"resolved\": true, \"logical_sector\": 512, " \
	"\"reported_physical_sector\": 512, \"physical_sector\": 512, \"period\": 1, " \
	"\"lowest_aligned_lba\": 0, \"slowdown\": 1.0, \"p_value\": 0.5, \"confidence\": 0.99, " \
	"\"fast_starts\": [], \"absence_margin\": 1.1" extra "}"

/* @json, a probe or sweep result, as a store in @s: its skipped entries. */
static size_t doc_store(const char *json, struct ap_vstore *s)
{
	struct json_object *doc = json_tokener_parse(json);
	struct ap_error e = { 0 };
	const char *kind;
	size_t skipped;

	assert_non_null(doc);
	assert_int_equal(ap_vstore_from_document(doc, 0, NULL, s, &skipped, &kind, &e), 0);
	json_object_put(doc);
	return skipped;
}

/*
 * What a "no effect" ruled out travels with it: from a result into a
 * store, and through a merge (the largest of the examples); a tentative
 * verdict is no verdict (issue 23).
 */
static void test_results_scope(void **state)
{
	struct ap_vstore s, t;
	struct ap_vstore_merged st = { 0 };

	(void)state;
	doc_store("{\"device\": \"/dev/sdb\", " NO_EFFECT_VERDICT(", \"ruled_out_up_to\": 8192")
		  ", " RESULT_IDENTITY("\"S1\"") "}", &s);
	assert_int_equal(s.nmodels, 1);
	assert_int_equal(s.models[0].verdicts[0].ruled_out_up_to, 8192);
	doc_store("{\"device\": \"/dev/sdc\", " NO_EFFECT_VERDICT(", \"ruled_out_up_to\": 65536")
		  ", " RESULT_IDENTITY("\"S2\"") "}", &t);
	ap_vstore_merge(&s, &t, false, &st);
	assert_int_equal(s.models[0].nverdicts, 1);
	assert_int_equal(s.models[0].verdicts[0].ruled_out_up_to, 65536);
	assert_int_equal(s.models[0].verdicts[0].nexamples, 2);
	ap_vstore_free(&t);
	/* into an empty store: the verdict is copied with it */
	memset(&t, 0, sizeof(t));
	ap_vstore_merge(&t, &s, false, &st);
	assert_int_equal(t.models[0].verdicts[0].ruled_out_up_to, 65536);
	ap_vstore_free(&t);
	ap_vstore_free(&s);
	/* tentative: skipped like an unresolved one */
	assert_int_equal(doc_store("{\"device\": \"/dev/sdb\", " RESULT_IDENTITY("\"S1\"") ", "
				   NO_EFFECT_VERDICT(", \"ruled_out_up_to\": 65536, "
						     "\"tentative\": true") "}", &s), 1);
	assert_int_equal(s.nmodels, 0);
	ap_vstore_free(&s);
}

static int add_one(struct ap_vstore *s, void *arg)
{
	struct ap_error e = { 0 };

	if (!arg)
		return 0;
	return ap_vstore_add(s, arg, &e) > 0 ? 1 : -EINVAL;
}

/* The locked update: nothing written when nothing changed. */
static void test_update(void **state)
{
	struct ap_vstore_record r = rec("X1", "A", 4096, 0);
	struct ap_error e = { 0 };
	struct stat st;
	char *dir = tmpdir(), *path;
	bool changed = true;

	(void)state;
	assert_true(asprintf(&path, "%s/verdicts.json", dir) > 0);
	assert_int_equal(ap_vstore_update(path, add_one, NULL, &changed, &e), 0);
	assert_false(changed);
	assert_int_equal(stat(path, &st), -1);	/* not even created */
	assert_int_equal(ap_vstore_update(path, add_one, &r, &changed, &e), 0);
	assert_true(changed);
	assert_int_equal(stat(path, &st), 0);
	free(path);
	rmtree(dir);
	free(dir);
}


/* A 0.1 store keyed a SATA disk by libata's INQUIRY: found, then moved to the drive's key. */
static void test_legacy_key(void **state)
{
	struct ap_vstore s;
	struct ap_vstore_record r;
	struct ap_disk_identity id = { .vendor = "ATA", .model = "ST4000DM004-2CV104",
				       .revision = "0001", .serial = "Z2",
				       .legacy_vendor = "ATA", .legacy_model = "ST4000DM004-2CV1",
				       .legacy_revision = "0001" };
	struct ap_error e = { 0 };
	const struct ap_vstore_model *m;

	(void)state;
	r = rec("ST4000DM004-2CV1", "Z1", 4096, 0);	/* recorded by 0.1 */
	store_of(&s, &r, 1);
	m = ap_vstore_find_disk(&s, &id);
	assert_non_null(m);
	assert_string_equal(m->model, "ST4000DM004-2CV1");
	/* behind a bridge the legacy key was the bridge's: never used */
	id.bridge = "JMicron Generic";
	assert_null(ap_vstore_find_disk(&s, &id));
	id.bridge = NULL;
	/* a record of the disk moves the entry to its own key */
	ap_vstore_record_of(&r, &id);
	r.logical_sector = 512;
	r.physical_sector = 4096;
	r.sensitive = true;
	r.source = "probe";
	assert_int_equal(ap_vstore_add(&s, &r, &e), AP_VSTORE_NEW_EXAMPLE);
	assert_int_equal(s.nmodels, 1);
	assert_string_equal(s.models[0].model, "ST4000DM004-2CV104");
	assert_int_equal(s.models[0].verdicts[0].nexamples, 2);
	assert_null(ap_vstore_find(&s, "ATA", "ST4000DM004-2CV1", "0001"));
	ap_vstore_free(&s);
}

static void test_path_and_identity(void **state)
{
	struct ap_disk_identity id = { 0 };
	struct ap_vstore_record r;
	struct ap_vstore s;
	struct ap_error e = { 0 };

	(void)state;
	unsetenv(AP_VSTORE_ENV);
	assert_string_equal(ap_vstore_path(NULL), AP_VSTORE_DEFAULT);
	assert_string_equal(ap_vstore_path("/x.json"), "/x.json");
	setenv(AP_VSTORE_ENV, "/env.json", 1);
	assert_string_equal(ap_vstore_path(NULL), "/env.json");
	assert_string_equal(ap_vstore_path(""), "/env.json");
	assert_string_equal(ap_vstore_path("/x.json"), "/x.json");
	unsetenv(AP_VSTORE_ENV);

	id.vendor = "ACME";
	id.model = "Lying Drive";
	id.revision = "1.0";
	id.serial = "EMU1";
	ap_vstore_record_of(&r, &id);
	assert_string_equal(r.model, "Lying Drive");
	assert_string_equal(r.serial, "EMU1");
	assert_true(isnan(r.confidence));
	r.logical_sector = 512;
	r.physical_sector = 4096;
	ap_vstore_init(&s);
	assert_int_equal(ap_vstore_add(&s, &r, &e), AP_VSTORE_NEW_MODEL);
	assert_non_null(ap_vstore_find_disk(&s, &id));
	id.revision = NULL;
	assert_null(ap_vstore_find_disk(&s, &id));
	id.model = NULL;
	assert_null(ap_vstore_find_disk(&s, &id));
	ap_vstore_free(&s);
}

/* Models @from..@to-1 ("M%06d"), one verdict, one example with serial @tag%d. */
static void fill(struct ap_vstore *s, size_t from, size_t to, const char *tag)
{
	size_t i, n = to - from;
	char buf[32];

	ap_vstore_init(s);
	s->models = ap_xcalloc(n, sizeof(*s->models));
	for (i = 0; i < n; i++) {
		struct ap_vstore_model *m = &s->models[i];
		struct ap_vstore_verdict *v;

		snprintf(buf, sizeof(buf), "M%06zu", from + i);
		m->vendor = strdup("ATA");
		m->model = strdup(buf);
		m->revision = (from + i) % 7 ? strdup("1") : NULL;
		m->index = i;
		m->verdicts = v = ap_xcalloc(1, sizeof(*v));
		m->nverdicts = 1;
		v->logical_sector = 512;
		v->physical_sector = 4096;
		v->examples = ap_xcalloc(1, sizeof(*v->examples));
		v->nexamples = 1;
		snprintf(buf, sizeof(buf), "%s%zu", tag, from + i);
		v->examples[0].serial = strdup(buf);
		v->examples[0].recorded = strdup("2026-12-01T08:00:00Z");
		v->examples[0].runs = 1;
		v->examples[0].confidence = NAN;
	}
	s->nmodels = n;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * A merge of 60,000 models into 60,000, 30,000 of them the same: every
 * model once, the common ones with both disks, the counts right, and the
 * result read back (the index's duplicate check) as it was written. The
 * merge looks models up by key (n log n at worst); this is correctness,
 * bench/vstore-merge.sh measures the time.
 */
static void test_merge_large(void **state)
{
	struct ap_vstore dst, src, back;
	struct ap_vstore_merged st = { 0 };
	struct json_object *doc;
	struct ap_error e = { 0 };
	char **names;
	size_t i, two = 0;

	(void)state;
	fill(&dst, 0, 60000, "D");
	fill(&src, 30000, 90000, "S");
	ap_vstore_merge(&dst, &src, false, &st);
	assert_int_equal(st.models_added, 30000);
	assert_int_equal(st.examples_added, 60000);	/* the new models' and the common ones' */
	assert_int_equal(st.verdicts_added, 0);
	assert_int_equal(st.conflicts_added, 0);
	assert_int_equal(dst.nmodels, 90000);
	names = ap_xcalloc(dst.nmodels, sizeof(*names));
	for (i = 0; i < dst.nmodels; i++) {
		char want[32];

		/* the store's order: its own, then the new ones in the source's order */
		snprintf(want, sizeof(want), "M%06zu", i);
		assert_string_equal(dst.models[i].model, want);
		assert_int_equal(dst.models[i].index, i);
		assert_true((i % 7 != 0) == (dst.models[i].revision != NULL));
		names[i] = dst.models[i].model;
		two += dst.models[i].verdicts[0].nexamples == 2;
	}
	assert_int_equal(two, 30000);
	qsort(names, dst.nmodels, sizeof(*names), name_cmp);
	for (i = 1; i < dst.nmodels; i++)
		assert_true(strcmp(names[i - 1], names[i]) < 0);
	free(names);
	/* again: nothing changes */
	memset(&st, 0, sizeof(st));
	ap_vstore_merge(&dst, &src, false, &st);
	assert_false(ap_vstore_merged_any(&st));
	/* through JSON and back */
	doc = ap_vstore_to_json(&dst);
	assert_int_equal(ap_vstore_from_json(doc, &back, &e), 0);
	assert_int_equal(back.nmodels, 90000);
	assert_string_equal(back.models[89999].model, "M089999");
	/* the same model twice, far apart: still refused */
	json_object_array_add(json_object_object_get(doc, "models"),
			      json_object_get(json_object_array_get_idx(
				      json_object_object_get(doc, "models"), 12345)));
	ap_vstore_free(&back);
	assert_int_equal(ap_vstore_from_json(doc, &back, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "models[90000]: the model is listed twice"));
	json_object_put(doc);
	ap_vstore_free(&dst);
	ap_vstore_free(&src);
}

/* A null vendor and an empty one are two keys, also for the index. */
static void test_merge_null_keys(void **state)
{
	struct ap_vstore dst, src;
	struct ap_vstore_merged st = { 0 };

	(void)state;
	fill(&dst, 0, 1, "D");
	fill(&src, 0, 1, "S");
	free(src.models[0].vendor);
	src.models[0].vendor = strdup("");
	ap_vstore_merge(&dst, &src, false, &st);
	assert_int_equal(st.models_added, 1);
	free(src.models[0].vendor);
	src.models[0].vendor = NULL;
	ap_vstore_merge(&dst, &src, false, &st);
	assert_int_equal(st.models_added, 2);
	assert_int_equal(dst.nmodels, 3);
	ap_vstore_free(&dst);
	ap_vstore_free(&src);
}

/*
 * --record through a symbolic link, also a dangling one: the file it points
 * to is locked and written, the link stays a link (d7e4e2c locked LINK.lock
 * and replaced a dangling link by a plain file).
 */
static void test_record_through_link(void **state)
{
	struct ap_vstore_record r = rec("ST4000DM004", "Z1", 4096, 0);
	enum ap_vstore_added how = 0;
	struct ap_error e = { 0 };
	struct ap_vstore s;
	struct stat st;
	char *dir = tmpdir(), *link, *real, *lock;

	(void)state;
	assert_true(asprintf(&link, "%s/link.json", dir) > 0);
	assert_true(asprintf(&real, "%s/real.json", dir) > 0);
	assert_true(asprintf(&lock, "%s/link.json.lock", dir) > 0);
	assert_int_equal(symlink("real.json", link), 0);
	assert_int_equal(ap_vstore_check(link, &e), 0);
	assert_int_equal(ap_vstore_record(link, &r, &how, &e), 0);
	assert_int_equal(how, AP_VSTORE_NEW_MODEL);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(lstat(lock, &st), -1);
	assert_int_equal(ap_vstore_load(real, &s, &e), 0);
	assert_int_equal(s.nmodels, 1);
	ap_vstore_free(&s);
	r.serial = "Z2";
	assert_int_equal(ap_vstore_record(link, &r, &how, &e), 0);
	assert_int_equal(how, AP_VSTORE_NEW_EXAMPLE);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	free(link);
	free(real);
	free(lock);
	rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_and_merge),
		cmocka_unit_test(test_same_disk_without_serial),
		cmocka_unit_test(test_conflict),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_json_roundtrip),
		cmocka_unit_test(test_first_writes_unplaced),
		cmocka_unit_test(test_json_refused),
		cmocka_unit_test(test_json_newer),
		cmocka_unit_test(test_absence_margin),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_concurrent),
		cmocka_unit_test(test_path_and_identity),
		cmocka_unit_test(test_merge_stores),
		cmocka_unit_test(test_merge_same_disk),
		cmocka_unit_test(test_match_and_remove),
		cmocka_unit_test(test_layers),
		cmocka_unit_test(test_results),
		cmocka_unit_test(test_results_scope),
		cmocka_unit_test(test_update),
		cmocka_unit_test(test_legacy_key),
		cmocka_unit_test(test_merge_large),
		cmocka_unit_test(test_merge_null_keys),
		cmocka_unit_test(test_record_through_link),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
