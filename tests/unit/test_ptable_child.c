// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The isolated table read: what the child sends comes back field for
 * field, a damaged or truncated message is refused (never read past its
 * end), and a child that dies or hangs costs one AP_PT_CRASHED issue.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device/ptable.h"

static void fill(struct ap_ptable *pt)
{
	memset(pt, 0, sizeof(*pt));
	pt->path = strdup("disk.img");
	pt->label = strdup("sun");
	pt->reader = strdup("libfdisk");
	pt->sector_size = 4096;
	pt->size_bytes = 1ULL << 40;
	pt->nsectors = pt->size_bytes / 4096;
	pt->first_usable = 1;
	pt->last_usable = pt->nsectors - 1;
	pt->backup_used = true;
	pt->parts = calloc(2, sizeof(*pt->parts));
	pt->nparts = 2;
	pt->parts[0].partno = 0;
	pt->parts[0].start = 256;
	pt->parts[0].size = 1000;
	pt->parts[0].type = strdup("Linux native");
	pt->parts[0].typecode = strdup("83");
	pt->parts[1].partno = 2;
	pt->parts[1].start = 0;
	pt->parts[1].size = pt->nsectors;
	pt->parts[1].role = AP_PART_WHOLE_DISK;
	pt->parts[1].logical = true;
	pt->parts[1].parent = 3;
	pt->parts[1].uuid = strdup("");
	ap_ptable_add_issue(pt, AP_PT_PARTLY_READ, -1, "only part of it");
	ap_ptable_add_issue(pt, AP_PT_OVERLAP, 1, "partitions %d and %d", 1, 3);
	pt->fdisk_msgs = calloc(1, sizeof(char *));
	pt->fdisk_msgs[0] = strdup("Omitting partitions after #60.");
	pt->nfdisk_msgs = 1;
}

static void test_roundtrip(void **state)
{
	struct ap_ptable pt, back;
	struct ap_error e = { .code = 5 }, eb;
	char *buf;
	size_t len;
	int rc = -1;

	(void)state;
	fill(&pt);
	snprintf(e.msg, sizeof(e.msg), "an error");
	ap_ptable_pack(&pt, -5, &e, &buf, &len);
	assert_int_equal(ap_ptable_unpack(buf, len, &back, &rc, &eb), 0);
	assert_int_equal(rc, -5);
	assert_int_equal(eb.code, 5);
	assert_string_equal(eb.msg, "an error");
	assert_string_equal(back.path, "disk.img");
	assert_string_equal(back.label, "sun");
	assert_string_equal(back.reader, "libfdisk");
	assert_null(back.id);
	assert_null(back.whole_disk);
	assert_int_equal(back.sector_size, 4096);
	assert_true(back.size_bytes == pt.size_bytes && back.nsectors == pt.nsectors);
	assert_true(back.backup_used);
	assert_int_equal(back.nparts, 2);
	assert_int_equal(back.parts[0].start, 256);
	assert_string_equal(back.parts[0].type, "Linux native");
	assert_null(back.parts[0].name);
	assert_int_equal(back.parts[1].role, AP_PART_WHOLE_DISK);
	assert_int_equal(back.parts[0].parent, 0);
	assert_int_equal(back.parts[1].parent, 3);
	assert_true(back.parts[1].logical && !back.parts[1].container);
	assert_string_equal(back.parts[1].uuid, "");
	assert_int_equal(back.nissues, 2);
	assert_int_equal(back.issues[0].kind, AP_PT_PARTLY_READ);
	assert_true(back.issues[0].error);
	assert_int_equal(back.issues[1].partno, 1);
	assert_string_equal(back.issues[1].msg, "partitions 1 and 3");
	assert_int_equal(back.nfdisk_msgs, 1);
	assert_string_equal(back.fdisk_msgs[0], "Omitting partitions after #60.");
	ap_ptable_free(&back);
	ap_ptable_free(&pt);
	free(buf);
}

/* every prefix, and every single damaged byte: refused or read, never past the end */
static void test_damaged(void **state)
{
	struct ap_ptable pt, back;
	char *buf, *copy;
	size_t len, i;
	int rc;

	(void)state;
	fill(&pt);
	ap_ptable_pack(&pt, 0, NULL, &buf, &len);
	for (i = 0; i < len; i++) {
		copy = malloc(i ? i : 1);
		memcpy(copy, buf, i);
		assert_int_equal(ap_ptable_unpack(copy, i, &back, &rc, NULL), -EBADMSG);
		free(copy);
	}
	copy = malloc(len);
	for (i = 0; i < len; i++) {
		memcpy(copy, buf, len);
		copy[i] ^= (char)0xa5;
		if (ap_ptable_unpack(copy, len, &back, &rc, NULL) == 0)
			ap_ptable_free(&back);
	}
	/* a count far beyond what the message holds */
	memcpy(copy, buf, len);
	memset(copy + len - 8, 0xff, 8);
	assert_int_equal(ap_ptable_unpack(copy, len, &back, &rc, NULL), -EBADMSG);
	free(copy);
	free(buf);
	ap_ptable_free(&pt);
}

static char img[] = "/tmp/test_ptable_child.XXXXXX";

static void read_with_seam(const char *seam, const char *timeout, struct ap_ptable *pt)
{
	struct ap_error e;

	setenv("ALIGNPROBE_TEST_PTABLE_CHILD", seam, 1);
	if (timeout)
		setenv("ALIGNPROBE_TEST_PTABLE_TIMEOUT", timeout, 1);
	assert_int_equal(ap_ptable_read_isolated(img, NULL, pt, &e), 0);
	unsetenv("ALIGNPROBE_TEST_PTABLE_CHILD");
	unsetenv("ALIGNPROBE_TEST_PTABLE_TIMEOUT");
}

static void test_isolated(void **state)
{
	struct ap_ptable pt;
	struct ap_error e;
	char *seam;
	int fd;

	(void)state;
	fd = mkstemp(img);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 1 << 20), 0);
	close(fd);

	/* an empty image, read in the child like in-process */
	assert_int_equal(ap_ptable_read_isolated(img, NULL, &pt, &e), 0);
	assert_int_equal(pt.nissues, 1);
	assert_int_equal(pt.issues[0].kind, AP_PT_NO_TABLE);
	assert_int_equal(pt.nsectors, 2048);
	ap_ptable_free(&pt);

	/* the child dies: one error naming the signal */
	read_with_seam("crash", NULL, &pt);
	assert_int_equal(pt.nissues, 1);
	assert_int_equal(pt.issues[0].kind, AP_PT_CRASHED);
	assert_true(pt.issues[0].error);
	assert_non_null(strstr(pt.issues[0].msg, "libfdisk crashed reading this table: signal 11"));
	assert_null(pt.label);
	ap_ptable_free(&pt);

	/* only the device named */
	assert_true(asprintf(&seam, "crash:%s.other", img) > 0);
	read_with_seam(seam, NULL, &pt);
	free(seam);
	assert_int_equal(pt.issues[0].kind, AP_PT_NO_TABLE);
	ap_ptable_free(&pt);

	/* the child hangs: killed at the deadline */
	read_with_seam("hang", "1", &pt);
	assert_int_equal(pt.nissues, 1);
	assert_int_equal(pt.issues[0].kind, AP_PT_CRASHED);
	assert_non_null(strstr(pt.issues[0].msg, "did not finish"));
	ap_ptable_free(&pt);

	/* a path that cannot be read: the child's error comes back */
	assert_int_equal(ap_ptable_read_isolated("/nonexistent/x.img", NULL, &pt, &e), -ENOENT);
	assert_int_equal(e.code, ENOENT);
	assert_non_null(strstr(e.msg, "/nonexistent/x.img"));
	ap_ptable_free(&pt);
	unlink(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_isolated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
