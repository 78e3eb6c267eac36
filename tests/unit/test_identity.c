// SPDX-License-Identifier: GPL-2.0-or-later
/* Disk identities: comparing, describing, JSON both ways (pure parts). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "device/identity.h"
#include "device/sgio.h"

/* A SATA disk as sysfs states it. */
static void make_disk(struct ap_disk_identity *id)
{
	memset(id, 0, sizeof(*id));
	id->wwn = strdup("naa.5000c500a1b2c3d4");
	id->serial = strdup("ZA1B2C3D");
	id->model = strdup("ST4000NM0035-1V4");
	id->vendor = strdup("ATA");
	id->revision = strdup("TN03");
	id->size = 4000787030016ULL;
	id->logical_sector = 512;
	id->content[0] = (struct ap_identity_content){ 0, 1048576, 0xdeadbeef, false };
	id->content[1] = (struct ap_identity_content){ 4000785981440ULL, 1048576, 0x0badf00d,
						       false };
	id->ncontent = 2;
}

/* A loop device over an image file. */
static void make_loop(struct ap_disk_identity *id)
{
	memset(id, 0, sizeof(*id));
	id->size = 134217728;
	id->logical_sector = 512;
	id->loop = true;
	id->backing_file = strdup("/tmp/da.img");
	id->backing_major = 0;
	id->backing_minor = 42;
	id->backing_inode = 1234;
	id->content[0] = (struct ap_identity_content){ 0, 1048576, 0x11111111, false };
	id->ncontent = 1;
}

static void replace(char **field, const char *v)
{
	free(*field);
	*field = v ? strdup(v) : NULL;
}

static void test_same(void **state)
{
	struct ap_disk_identity a, b;
	char why[512];

	(void)state;
	make_disk(&a);
	make_disk(&b);
	assert_int_equal(ap_identity_compare(&a, &b, why, sizeof(why)), AP_IDENTITY_SAME);
	assert_string_equal(why, "");
	/* the firmware is recorded, never compared: a drive may be updated */
	replace(&b.revision, "TN04");
	assert_int_equal(ap_identity_compare(&a, &b, why, sizeof(why)), AP_IDENTITY_SAME);
	/* the WWN's notation does not matter: sysfs "naa.", ATA IDENTIFY "0x" */
	replace(&b.wwn, "0x5000C500A1B2C3D4");
	assert_int_equal(ap_identity_compare(&a, &b, why, sizeof(why)), AP_IDENTITY_SAME);
	/* fields the record does not have are not asked for */
	replace(&a.vendor, NULL);
	assert_int_equal(ap_identity_compare(&a, &b, why, sizeof(why)), AP_IDENTITY_SAME);
	ap_identity_free(&a);
	ap_identity_free(&b);
}

static void test_each_field(void **state)
{
	struct ap_disk_identity a, b;
	char why[512];

	(void)state;
	make_disk(&a);

	make_disk(&b);
	replace(&b.wwn, "naa.5000c500a1b2c3d5");
	assert_int_equal(ap_identity_compare(&a, &b, why, sizeof(why)), AP_IDENTITY_WWN);
	assert_non_null(strstr(why, "WWN differs"));
	assert_non_null(strstr(why, "naa.5000c500a1b2c3d5"));
	ap_identity_free(&b);

	make_disk(&b);
	replace(&b.serial, "ZA1B2C3E");
	assert_int_equal(ap_identity_compare(&a, &b, why, sizeof(why)), AP_IDENTITY_SERIAL);
	assert_non_null(strstr(why, "serial differs"));
	assert_non_null(strstr(why, "'ZA1B2C3D'"));
	assert_non_null(strstr(why, "'ZA1B2C3E'"));
	ap_identity_free(&b);

	/* known then, unknown now: not the same disk as far as anyone can tell */
	make_disk(&b);
	replace(&b.serial, NULL);
	assert_int_equal(ap_identity_compare(&a, &b, why, sizeof(why)), AP_IDENTITY_SERIAL);
	assert_non_null(strstr(why, "(none)"));
	ap_identity_free(&b);

	make_disk(&b);
	replace(&b.model, "ST4000NM0035-1V5");
	assert_int_equal(ap_identity_compare(&a, &b, why, sizeof(why)), AP_IDENTITY_MODEL);
	ap_identity_free(&b);

	make_disk(&b);
	replace(&b.vendor, "SEAGATE");
	assert_int_equal(ap_identity_compare(&a, &b, why, sizeof(why)), AP_IDENTITY_VENDOR);
	ap_identity_free(&b);

	make_disk(&b);
	b.size -= 512;
	assert_int_equal(ap_identity_compare(&a, &b, why, sizeof(why)), AP_IDENTITY_SIZE);
	ap_identity_free(&b);

	make_disk(&b);
	b.logical_sector = 4096;
	assert_int_equal(ap_identity_compare(&a, &b, why, sizeof(why)), AP_IDENTITY_LOGICAL);
	ap_identity_free(&b);

	make_disk(&b);
	b.partition = 2;
	b.partition_start = 1048576;
	assert_int_equal(ap_identity_compare(&a, &b, why, sizeof(why)), AP_IDENTITY_PARTITION);
	assert_non_null(strstr(why, "partition 2"));
	ap_identity_free(&b);

	make_disk(&b);
	b.content[1].crc32 ^= 1;
	assert_int_equal(ap_identity_compare_meta(&a, &b, why, sizeof(why)), AP_IDENTITY_SAME);
	assert_int_equal(ap_identity_compare(&a, &b, why, sizeof(why)), AP_IDENTITY_CONTENT);
	assert_non_null(strstr(why, "never writes"));
	ap_identity_free(&b);

	/* content read over other ranges (or not at all) is no proof */
	make_disk(&b);
	b.ncontent = 1;
	assert_int_equal(ap_identity_compare(&a, &b, why, sizeof(why)), AP_IDENTITY_CONTENT);
	b.ncontent = 2;
	b.content[0].length = 4096;
	assert_int_equal(ap_identity_compare(&a, &b, why, sizeof(why)), AP_IDENTITY_CONTENT);
	ap_identity_free(&b);

	/* the first difference in the order of the fields is named */
	make_disk(&b);
	replace(&b.serial, "OTHER");
	replace(&b.model, "OTHER");
	assert_int_equal(ap_identity_compare(&a, &b, why, sizeof(why)), AP_IDENTITY_SERIAL);
	b.size = 1;
	assert_int_equal(ap_identity_compare(&a, &b, why, sizeof(why)), AP_IDENTITY_SIZE);
	ap_identity_free(&b);

	/* a NULL or short buffer for the reason is fine */
	make_disk(&b);
	replace(&b.serial, "OTHER");
	assert_int_equal(ap_identity_compare(&a, &b, NULL, 0), AP_IDENTITY_SERIAL);
	assert_int_equal(ap_identity_compare(&a, &b, why, 4), AP_IDENTITY_SERIAL);
	assert_int_equal(strlen(why), 3);
	ap_identity_free(&b);
	ap_identity_free(&a);
}

static void test_backing(void **state)
{
	struct ap_disk_identity a, b;
	char why[512];

	(void)state;
	make_loop(&a);

	/* re-attached under another /dev/loopN: the same file */
	make_loop(&b);
	assert_int_equal(ap_identity_compare(&a, &b, why, sizeof(why)), AP_IDENTITY_SAME);
	/* after a reboot the file system may have another device number */
	b.backing_minor = 43;
	assert_int_equal(ap_identity_compare(&a, &b, why, sizeof(why)), AP_IDENTITY_SAME);
	/* or the file was renamed on the same file system */
	b.backing_minor = 42;
	replace(&b.backing_file, "/tmp/renamed.img");
	assert_int_equal(ap_identity_compare(&a, &b, why, sizeof(why)), AP_IDENTITY_SAME);
	/* but not both */
	b.backing_minor = 43;
	assert_int_equal(ap_identity_compare(&a, &b, why, sizeof(why)), AP_IDENTITY_BACKING);
	ap_identity_free(&b);

	/* another file of the same size: the db.img */
	make_loop(&b);
	replace(&b.backing_file, "/tmp/db.img");
	b.backing_inode = 1235;
	assert_int_equal(ap_identity_compare(&a, &b, why, sizeof(why)), AP_IDENTITY_BACKING);
	assert_non_null(strstr(why, "/tmp/da.img"));
	assert_non_null(strstr(why, "/tmp/db.img"));
	ap_identity_free(&b);

	/* the same path, but a new file there (inode) */
	make_loop(&b);
	b.backing_inode = 999;
	assert_int_equal(ap_identity_compare(&a, &b, why, sizeof(why)), AP_IDENTITY_BACKING);
	ap_identity_free(&b);

	/* the same file at another offset */
	make_loop(&b);
	b.backing_offset = 512;
	assert_int_equal(ap_identity_compare(&a, &b, why, sizeof(why)), AP_IDENTITY_BACKING);
	ap_identity_free(&b);

	/* a record without the inode: the path decides; without either, nothing */
	make_loop(&b);
	a.backing_inode = 0;
	b.backing_inode = 77;
	assert_int_equal(ap_identity_compare(&a, &b, why, sizeof(why)), AP_IDENTITY_SAME);
	replace(&b.backing_file, "/tmp/db.img");
	assert_int_equal(ap_identity_compare(&a, &b, why, sizeof(why)), AP_IDENTITY_BACKING);
	replace(&a.backing_file, NULL);
	assert_int_equal(ap_identity_compare(&a, &b, why, sizeof(why)), AP_IDENTITY_SAME);
	assert_int_equal(ap_identity_compare(&a, &a, why, sizeof(why)), AP_IDENTITY_SAME);
	a.ncontent = 0;
	assert_false(ap_identity_is_distinctive(&a));
	ap_identity_free(&b);
	ap_identity_free(&a);
	make_loop(&a);

	/* not a loop device at all */
	make_loop(&b);
	b.loop = false;
	assert_int_equal(ap_identity_compare(&a, &b, why, sizeof(why)), AP_IDENTITY_BACKING);
	assert_non_null(strstr(why, "not a loop device"));
	ap_identity_free(&b);
	ap_identity_free(&a);
}

static void test_distinctive(void **state)
{
	struct ap_disk_identity a;

	(void)state;
	make_disk(&a);
	assert_true(ap_identity_is_distinctive(&a));
	replace(&a.wwn, NULL);
	assert_true(ap_identity_is_distinctive(&a));
	replace(&a.serial, NULL);
	/* model and size are shared by every disk of a JBOD; content is not */
	assert_true(ap_identity_is_distinctive(&a));
	a.content[0].uniform = a.content[1].uniform = true;
	assert_false(ap_identity_is_distinctive(&a));
	a.ncontent = 0;
	assert_false(ap_identity_is_distinctive(&a));
	replace(&a.uuid, "LVM-abc");
	assert_true(ap_identity_is_distinctive(&a));
	ap_identity_free(&a);
	make_loop(&a);
	a.content[0].uniform = true;
	assert_true(ap_identity_is_distinctive(&a));
	ap_identity_free(&a);
}

static void test_describe(void **state)
{
	struct ap_disk_identity a;
	char *s;

	(void)state;
	make_disk(&a);
	s = ap_identity_describe(&a);
	assert_non_null(strstr(s, "WWN naa.5000c500a1b2c3d4"));
	assert_non_null(strstr(s, "serial 'ZA1B2C3D'"));
	assert_non_null(strstr(s, "4000787030016 bytes"));
	assert_non_null(strstr(s, "2 ranges"));
	free(s);
	ap_identity_free(&a);
	make_loop(&a);
	s = ap_identity_describe(&a);
	assert_non_null(strstr(s, "loop device backed by /tmp/da.img (inode 1234 on 0:42"));
	free(s);
	ap_identity_free(&a);
}

static void test_json_roundtrip(void **state)
{
	struct ap_disk_identity a, b;
	struct ap_error e = { 0 };
	struct json_object *o, *p;
	const char *text;

	(void)state;
	make_disk(&a);
	a.partition = 3;
	a.partition_start = 2097152;
	o = ap_identity_to_json(&a);
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	assert_non_null(strstr(text, "\"serial\":\"ZA1B2C3D\""));
	assert_non_null(strstr(text, "\"revision\":\"TN03\""));
	assert_non_null(strstr(text, "\"backing_file\":null"));
	p = json_tokener_parse(text);
	assert_int_equal(ap_identity_from_json(p, &b, &e), 0);
	assert_int_equal(ap_identity_compare(&a, &b, NULL, 0), AP_IDENTITY_SAME);
	assert_int_equal(ap_identity_compare(&b, &a, NULL, 0), AP_IDENTITY_SAME);
	assert_string_equal(b.revision, "TN03");
	assert_null(b.uuid);
	assert_int_equal(b.partition, 3);
	assert_int_equal(b.content[1].crc32, 0x0badf00d);
	json_object_put(o);
	json_object_put(p);
	ap_identity_free(&a);
	ap_identity_free(&b);

	make_loop(&a);
	a.backing_major = 259;
	a.backing_minor = 1048575;
	a.backing_inode = UINT64_MAX / 2;
	o = ap_identity_to_json(&a);
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	assert_non_null(strstr(text, "\"backing_device\":\"259:1048575\""));
	p = json_tokener_parse(text);
	assert_int_equal(ap_identity_from_json(p, &b, &e), 0);
	assert_true(b.loop);
	assert_string_equal(b.backing_file, "/tmp/da.img");
	assert_int_equal(b.backing_major, 259);
	assert_int_equal(b.backing_minor, 1048575);
	assert_int_equal(ap_identity_compare(&a, &b, NULL, 0), AP_IDENTITY_SAME);
	json_object_put(o);
	json_object_put(p);
	ap_identity_free(&a);
	ap_identity_free(&b);
}

/* The smallest identity: absent members are unknown (or 0). */
static void test_json_minimal(void **state)
{
	struct ap_disk_identity b;
	struct ap_error e = { 0 };
	struct json_object *p = json_tokener_parse("{\"size\":1048576,\"logical_sector\":4096}");

	(void)state;
	assert_int_equal(ap_identity_from_json(p, &b, &e), 0);
	assert_int_equal(b.size, 1048576);
	assert_int_equal(b.logical_sector, 4096);
	assert_int_equal(b.partition, 0);
	assert_int_equal(b.partition_start, 0);
	assert_false(b.loop);
	assert_null(b.serial);
	assert_int_equal(b.ncontent, 0);
	assert_false(ap_identity_is_distinctive(&b));
	json_object_put(p);
	ap_identity_free(&b);
}

static void expect_bad(const char *text, const char *msg)
{
	struct ap_disk_identity b;
	struct ap_error e = { 0 };
	struct json_object *p = json_tokener_parse(text);

	assert_int_equal(ap_identity_from_json(p, &b, &e), -EINVAL);
	if (!strstr(e.msg, msg) || strncmp(e.msg, "identity: ", 10) != 0)
		fail_msg("'%s': expected 'identity: ...%s' in '%s'", text, msg, e.msg);
	assert_null(b.serial);
	json_object_put(p);
}

static void test_json_bad(void **state)
{
	(void)state;
	expect_bad("[]", "not a JSON object");
	expect_bad("{\"logical_sector\":512}", "\"size\" is missing");
	expect_bad("{\"size\":1048576}", "\"logical_sector\" is missing");
	expect_bad("{\"size\":-1,\"logical_sector\":512}", "out of range");
	expect_bad("{\"size\":\"1M\",\"logical_sector\":512}", "not an integer");
	expect_bad("{\"size\":1048576,\"logical_sector\":500}", "bad logical sector");
	expect_bad("{\"size\":1048576,\"logical_sector\":512,\"serial\":7}", "not a string");
	expect_bad("{\"serial\":\"x\",\"size\":1048576,\"logical_sector\":512,\"loop\":1}",
		   "not a boolean");
	expect_bad("{\"size\":1048576,\"logical_sector\":512,\"loop\":true,"
		   "\"backing_device\":\"8-1\"}", "bad backing_device");
	expect_bad("{\"size\":1048576,\"logical_sector\":512,\"content\":{}}", "not an array");
	expect_bad("{\"size\":1048576,\"logical_sector\":512,\"content\":[1]}",
		   "not an object");
	expect_bad("{\"size\":1048576,\"logical_sector\":512,\"content\":"
		   "[{\"offset\":0,\"length\":2097152,\"crc32\":1}]}", "does not fit");
	expect_bad("{\"size\":1048576,\"logical_sector\":512,\"content\":"
		   "[{\"offset\":100,\"length\":512,\"crc32\":1}]}", "does not fit");
	expect_bad("{\"size\":1048576,\"logical_sector\":512,\"content\":"
		   "[{\"offset\":0,\"length\":512,\"crc32\":4294967296}]}", "out of range");
	expect_bad("{\"size\":1048576,\"logical_sector\":512,\"content\":[{},{},{},{},{}]}",
		   "at most");
}

static void test_field_names(void **state)
{
	(void)state;
	assert_string_equal(ap_identity_field_name(AP_IDENTITY_SERIAL), "serial");
	assert_string_equal(ap_identity_field_name(AP_IDENTITY_BACKING), "backing file");
	assert_string_equal(ap_identity_field_name((enum ap_identity_field)99), "?");
}


/* An ATA IDENTIFY, decoded, with the drive's own strings. */
static struct ap_ata_identify ata_of(const char *model, const char *serial, const char *fw)
{
	struct ap_ata_identify a;

	memset(&a, 0, sizeof(a));
	snprintf(a.model, sizeof(a.model), "%s", model);
	snprintf(a.serial, sizeof(a.serial), "%s", serial);
	snprintf(a.firmware, sizeof(a.firmware), "%s", fw);
	return a;
}

static void assert_str_or_null(const char *got, const char *want)
{
	if (!want)
		assert_null(got);
	else
		assert_string_equal(got, want);
}

static void assert_key(const struct ap_disk_identity *id, const char *v, const char *m,
		       const char *r)
{
	assert_str_or_null(id->vendor, v);
	assert_str_or_null(id->model, m);
	assert_str_or_null(id->revision, r);
}

/* The key from the drive itself, the bridge named, the 0.1 key kept. */
static void test_decide(void **state)
{
	struct ap_disk_identity id, id2;
	struct ap_ata_identify a = ata_of("ST4000DM004-2CV104", "ZFN1A2B3", "0001");
	struct ap_ata_identify b = ata_of("WDC WD40EFRX-68N32N0", "WD-WCC7K1", "82.00A82");
	struct ap_identity_sources src;

	(void)state;
	/* a SATA disk on libata: IDENTIFY's 40 and 8 characters; 0.1's key as legacy */
	memset(&id, 0, sizeof(id));
	src = (struct ap_identity_sources){ "ATA", "ST4000DM004-2CV1", "0001", &a, false };
	ap_identity_decide(&id, &src);
	assert_key(&id, "ATA", "ST4000DM004-2CV104", "0001");
	assert_string_equal(id.serial, "ZFN1A2B3");
	assert_null(id.bridge);
	assert_key(&(struct ap_disk_identity){ .vendor = id.legacy_vendor,
		   .model = id.legacy_model, .revision = id.legacy_revision },
		   "ATA", "ST4000DM004-2CV1", "0001");
	ap_identity_free(&id);
	/* a model of 16 characters or less and 4 of firmware: the key does not change */
	{
		struct ap_ata_identify c = ata_of("ST2000DM008", "S1", "0001");

		src = (struct ap_identity_sources){ "ATA", "ST2000DM008", "0001", &c, false };
		ap_identity_decide(&id, &src);
		assert_key(&id, "ATA", "ST2000DM008", "0001");
		assert_null(id.legacy_model);
		ap_identity_free(&id);
	}
	/* two drives behind one USB bridge: two keys, the bridge named, not taken */
	src = (struct ap_identity_sources){ "JMicron", "Generic", "0508", &a, true };
	ap_identity_decide(&id, &src);
	src.ata = &b;
	memset(&id2, 0, sizeof(id2));
	ap_identity_decide(&id2, &src);
	assert_key(&id, "ATA", "ST4000DM004-2CV104", "0001");
	assert_key(&id2, "ATA", "WDC WD40EFRX-68N32N0", "82.00A82");
	assert_string_equal(id.bridge, "JMicron Generic");
	assert_string_equal(id2.bridge, "JMicron Generic");
	assert_string_equal(id.legacy_model, "Generic");	/* what 0.1 took: the bridge */
	ap_identity_free(&id);
	ap_identity_free(&id2);
	/* a USB bridge that passes no IDENTIFY: no model, only the bridge */
	src = (struct ap_identity_sources){ "JMicron", "Generic", "0508", NULL, true };
	ap_identity_decide(&id, &src);
	assert_key(&id, NULL, NULL, NULL);
	assert_string_equal(id.bridge, "JMicron Generic");
	ap_identity_free(&id);
	/* a SAS disk: no ATA behind it, its INQUIRY is its own; nothing changes */
	src = (struct ap_identity_sources){ "SEAGATE", "ST4000NM0025", "E003", NULL, false };
	ap_identity_decide(&id, &src);
	assert_key(&id, "SEAGATE", "ST4000NM0025", "E003");
	assert_null(id.bridge);
	assert_null(id.legacy_model);
	ap_identity_free(&id);
}

/* A journal of 0.1 (libata's 16-character model) still matches the disk. */
static void test_legacy_compare(void **state)
{
	struct ap_disk_identity want, have;

	(void)state;
	make_disk(&want);		/* model "ST4000NM0035-1V4", as sysfs says */
	make_disk(&have);
	free(have.model);
	have.model = strdup("ST4000NM0035-1V4168");
	assert_int_equal(ap_identity_compare_meta(&want, &have, NULL, 0), AP_IDENTITY_MODEL);
	have.legacy_model = strdup("ST4000NM0035-1V4");
	assert_int_equal(ap_identity_compare_meta(&want, &have, NULL, 0), AP_IDENTITY_SAME);
	ap_identity_free(&want);
	ap_identity_free(&have);
}

/* The files beside an emulated drive: only for its loop device's backing file */
/* One ATA disk: IDENTIFY answered (vendor "ATA"), no RAID named in its model. */
static void test_one_disk(void **state)
{
	struct ap_disk_identity id = { 0 };

	(void)state;
	assert_false(ap_identity_one_disk(&id));
	id.vendor = "ATA";
	assert_true(ap_identity_one_disk(&id));
	id.model = "WDC WD40EZRX-00SPEB0";
	assert_true(ap_identity_one_disk(&id));
	id.model = "JMicron H/W RAID5";
	assert_false(ap_identity_one_disk(&id));
	id.model = "SiI 5744 raid";
	assert_false(ap_identity_one_disk(&id));
	/* a hypervisor's disk: an image or a host volume behind it */
	id.model = "QEMU HARDDISK";
	assert_false(ap_identity_one_disk(&id));
	id.model = "VBOX HARDDISK";
	assert_false(ap_identity_one_disk(&id));
	id.model = "VMware Virtual SATA Hard Drive";
	assert_false(ap_identity_one_disk(&id));
	id.model = "BHYVE SATA DISK";
	assert_false(ap_identity_one_disk(&id));
	id.model = "ST4000DM004-2CV104";
	assert_true(ap_identity_one_disk(&id));
	id.vendor = "DELL";
	id.model = "PERC H730P Mini";
	assert_false(ap_identity_one_disk(&id));
	id.vendor = "ALIGNPROBE";
	id.model = "EMU-HDD-7200";
	assert_false(ap_identity_one_disk(&id));
}

static void test_emulated_file(void **state)
{
	char *p;

	(void)state;
	p = ap_identity_emulated_file("/tmp/alignprobe-emu.Ab12/mnt/disk", "claims");
	assert_non_null(p);
	assert_string_equal(p, "/tmp/alignprobe-emu.Ab12/claims");
	free(p);
	assert_null(ap_identity_emulated_file("/tmp/other.Ab12/mnt/disk", "claims"));
	assert_null(ap_identity_emulated_file("/tmp/alignprobe-emu.Ab12/backing", "claims"));
	assert_null(ap_identity_emulated_file("/mnt/disk", "claims"));
	assert_null(ap_identity_emulated_file(NULL, "claims"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same),
		cmocka_unit_test(test_each_field),
		cmocka_unit_test(test_backing),
		cmocka_unit_test(test_distinctive),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_json_roundtrip),
		cmocka_unit_test(test_json_minimal),
		cmocka_unit_test(test_json_bad),
		cmocka_unit_test(test_field_names),
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_legacy_compare),
		cmocka_unit_test(test_emulated_file),
		cmocka_unit_test(test_one_disk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
