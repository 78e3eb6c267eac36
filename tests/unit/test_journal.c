// SPDX-License-Identifier: GPL-2.0-or-later
/* The undo journal on plain files: write, damage, restore, refuse. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "journal.h"
#include "util.h"

#define REC	8192
#define NREC	4

static char dir[] = "/tmp/ap-test-journal-XXXXXX";
static char devpath[256], jpath[256];

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(devpath, sizeof(devpath), "%s/dev", dir);
	snprintf(jpath, sizeof(jpath), "%s/undo.journal", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(devpath);
	unlink(jpath);
	rmdir(dir);
	return 0;
}

/* A "device" of 64 KiB with a known pattern; fd open read-write. */
static int make_dev(unsigned char *orig)
{
	int fd, i;

	for (i = 0; i < 65536; i++)
		orig[i] = (unsigned char)(i * 7 + 3);
	fd = open(devpath, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ap_pwrite_all(fd, orig, 65536, 0), 0);
	return fd;
}

static void write_journal(int fd)
{
	unsigned char buf[REC];
	struct ap_journal *j;
	struct ap_error e = { 0 };
	int i;

	unlink(jpath);
	assert_int_equal(ap_journal_create(jpath, "/dev/test", 65536, 512, REC, NREC, &j, &e), 0);
	for (i = 0; i < NREC; i++) {
		assert_int_equal(ap_pread_all(fd, buf, REC, (uint64_t)i * 16384), 0);
		assert_int_equal(ap_journal_put(j, (uint64_t)i, (uint64_t)i * 16384, buf, &e), 0);
	}
	assert_int_equal(ap_journal_commit(j, &e), 0);
	ap_journal_close(j);
}

static void test_crc(void **state)
{
	(void)state;
	/* the standard check value of CRC-32 */
	assert_int_equal(ap_crc32(0, "123456789", 9), 0xCBF43926u);
	assert_int_equal(ap_crc32(0, "", 0), 0);
}

static void test_roundtrip(void **state)
{
	unsigned char *orig = ap_xmalloc(65536), *now = ap_xmalloc(65536);
	struct ap_journal_restore_stats st;
	struct ap_journal *j;
	struct ap_error e = { 0 };
	const struct ap_journal_info *info;
	uint64_t off;
	int fd;

	(void)state;
	fd = make_dev(orig);
	write_journal(fd);

	assert_int_equal(ap_journal_open(jpath, &j, &e), 0);
	info = ap_journal_info(j);
	assert_true(info->complete);
	assert_string_equal(info->dev, "/dev/test");
	assert_int_equal(info->nrec, NREC);
	assert_int_equal(info->rec_len, REC);
	assert_int_equal(info->dev_size, 65536);
	assert_int_equal(info->pid, (int)getpid());
	assert_int_equal(ap_journal_record_offset(j, 2, &off), 0);
	assert_int_equal(off, 32768);

	/* nothing changed: nothing to write back */
	assert_int_equal(ap_journal_restore(j, fd, &st, &e), 0);
	assert_int_equal(st.records, NREC);
	assert_int_equal(st.restored, 0);

	/* damage two recorded ranges and one outside them */
	memset(now, 0xAA, 100);
	assert_int_equal(ap_pwrite_all(fd, now, 100, 16384 + 50), 0);
	assert_int_equal(ap_pwrite_all(fd, now, 100, 3 * 16384 + REC - 100), 0);
	assert_int_equal(ap_pwrite_all(fd, now, 100, 16384 + REC), 0);	/* not journalled */
	assert_int_equal(ap_journal_restore(j, fd, &st, &e), 0);
	assert_int_equal(st.restored, 2);
	assert_int_equal(st.bytes, 2 * REC);
	assert_int_equal(ap_pread_all(fd, now, 65536, 0), 0);
	assert_memory_equal(now, orig, 16384 + REC);
	assert_memory_equal(now + 2 * 16384, orig + 2 * 16384, 16384 + REC);
	assert_memory_not_equal(now + 16384 + REC, orig + 16384 + REC, 100);

	/* ap_journal_read gives the original bytes of a record */
	assert_int_equal(ap_journal_read(j, 1, 512, now, 1024, &e), 0);
	assert_memory_equal(now, orig + 16384 + 512, 1024);
	assert_int_equal(ap_journal_read(j, 1, REC - 10, now, 100, &e), -EINVAL);

	assert_int_equal(ap_journal_remove(j), 0);
	assert_int_equal(access(jpath, F_OK), -1);
	close(fd);
	free(orig);
	free(now);
}

static void test_damaged_record(void **state)
{
	unsigned char *orig = ap_xmalloc(65536), x = 0x55;
	struct ap_journal_restore_stats st;
	struct ap_journal *j;
	struct ap_error e = { 0 };
	int fd, jfd;

	(void)state;
	fd = make_dev(orig);
	write_journal(fd);
	/* flip a byte in record 1's data: that record must never be written */
	jfd = open(jpath, O_RDWR);
	assert_true(jfd >= 0);
	assert_int_equal(ap_pwrite_all(jfd, &x, 1, AP_JOURNAL_HDR + (AP_JOURNAL_REC_HDR + REC) +
				       AP_JOURNAL_REC_HDR + 10), 0);
	close(jfd);
	assert_int_equal(ap_pwrite_all(fd, "zz", 2, 16384 + 10), 0);
	assert_int_equal(ap_journal_open(jpath, &j, &e), 0);
	assert_int_equal(ap_journal_restore(j, fd, &st, &e), -EIO);
	assert_non_null(strstr(e.msg, "damaged"));
	assert_int_equal(st.records, NREC - 1);
	ap_journal_close(j);
	close(fd);
	free(orig);
}

static void test_refusals(void **state)
{
	unsigned char *orig = ap_xmalloc(65536), *buf = ap_xcalloc(1, REC);
	struct ap_journal_restore_stats st;
	struct ap_journal *j;
	struct ap_error e = { 0 };
	FILE *f;
	int fd, jfd;

	(void)state;
	/* not a journal */
	f = fopen(jpath, "w");
	assert_non_null(f);
	fputs("hello\n", f);
	fclose(f);
	assert_int_equal(ap_journal_open(jpath, &j, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "not an alignprobe undo journal"));
	/* missing */
	unlink(jpath);
	assert_int_equal(ap_journal_open(jpath, &j, &e), -ENOENT);

	/* exists already: create refuses */
	fd = make_dev(orig);
	write_journal(fd);
	assert_int_equal(ap_journal_create(jpath, "/dev/test", 65536, 512, REC, 1, &j, &e),
			 -EEXIST);

	/* a damaged header */
	jfd = open(jpath, O_RDWR);
	assert_int_equal(ap_pwrite_all(jfd, "X", 1, 100), 0);
	close(jfd);
	assert_int_equal(ap_journal_open(jpath, &j, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "damaged"));

	/* incomplete (never committed): opens, but restore refuses */
	unlink(jpath);
	assert_int_equal(ap_journal_create(jpath, "/dev/test", 65536, 512, REC, 1, &j, &e), 0);
	assert_int_equal(ap_journal_put(j, 0, 0, buf, &e), 0);
	ap_journal_close(j);
	assert_int_equal(ap_journal_open(jpath, &j, &e), 0);
	assert_false(ap_journal_info(j)->complete);
	assert_int_equal(ap_journal_restore(j, fd, &st, &e), -EINVAL);
	ap_journal_close(j);

	/* truncated */
	assert_int_equal(truncate(jpath, AP_JOURNAL_HDR + 10), 0);
	assert_int_equal(ap_journal_open(jpath, &j, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "truncated"));
	unlink(jpath);
	close(fd);
	free(orig);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_damaged_record),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
