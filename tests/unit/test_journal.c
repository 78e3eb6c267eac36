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

#include "lib/util.h"
#include "probe/journal.h"

#define REC	8192
#define NREC	4

static char dir[] = "/tmp/ap-test-journal-XXXXXX";
static char devpath[256], jpath[256];
static char test_serial[] = "TEST-SERIAL";
static struct ap_disk_identity test_id = {
	.serial = test_serial, .size = 65536, .logical_sector = 512,
	.content = { { .offset = 0, .length = 4096, .crc32 = 0x12345678 } }, .ncontent = 1,
};

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
	assert_int_equal(ap_journal_create(jpath, "/dev/test", &test_id, REC, NREC, &j, &e), 0);
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
	/* the identity comes back as it was written */
	assert_int_equal(info->version, 2);
	assert_true(info->has_identity);
	assert_string_equal(info->id.serial, "TEST-SERIAL");
	assert_null(info->id.wwn);
	assert_int_equal(info->id.size, 65536);
	assert_int_equal(info->id.ncontent, 1);
	assert_int_equal(info->id.content[0].crc32, 0x12345678);
	assert_int_equal(ap_identity_compare(&test_id, &info->id, NULL, 0), AP_IDENTITY_SAME);
	assert_int_equal(ap_journal_record_offset(j, 2, &off), 0);
	assert_int_equal(off, 32768);

	/* nothing changed: nothing to write back */
	assert_int_equal(ap_journal_restore(j, fd, devpath, &st, &e), 0);
	assert_int_equal(st.records, NREC);
	assert_int_equal(st.restored, 0);

	/* damage two recorded ranges and one outside them */
	memset(now, 0xAA, 100);
	assert_int_equal(ap_pwrite_all(fd, now, 100, 16384 + 50), 0);
	assert_int_equal(ap_pwrite_all(fd, now, 100, 3 * 16384 + REC - 100), 0);
	assert_int_equal(ap_pwrite_all(fd, now, 100, 16384 + REC), 0);	/* not journalled */
	assert_int_equal(ap_journal_restore(j, fd, devpath, &st, &e), 0);
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
	assert_int_equal(ap_journal_restore(j, fd, devpath, &st, &e), -EIO);
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
	assert_int_equal(ap_journal_create(jpath, "/dev/test", &test_id, REC, 1, &j, &e),
			 -EEXIST);

	/* a damaged header */
	jfd = open(jpath, O_RDWR);
	assert_int_equal(ap_pwrite_all(jfd, "X", 1, 100), 0);
	close(jfd);
	assert_int_equal(ap_journal_open(jpath, &j, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "damaged"));

	/* incomplete (never committed): opens, but restore refuses */
	unlink(jpath);
	assert_int_equal(ap_journal_create(jpath, "/dev/test", &test_id, REC, 1, &j, &e), 0);
	assert_int_equal(ap_journal_put(j, 0, 0, buf, &e), 0);
	ap_journal_close(j);
	assert_int_equal(ap_journal_open(jpath, &j, &e), 0);
	assert_false(ap_journal_info(j)->complete);
	assert_int_equal(ap_journal_restore(j, fd, devpath, &st, &e), -EINVAL);
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

/* An identity too long for 4096 bytes: the header grows, the records follow it. */
static void test_long_identity(void **state)
{
	unsigned char *orig = ap_xmalloc(65536), buf[REC];
	struct ap_disk_identity id = test_id;
	struct ap_journal_restore_stats st;
	const struct ap_journal_info *info;
	struct ap_journal *j;
	struct ap_error e = { 0 };
	char *path = ap_xmalloc(5000);
	uint64_t off;
	int fd;

	(void)state;
	memset(path, 'p', 4999);
	path[0] = '/';
	path[4999] = '\0';
	id.loop = true;
	id.backing_file = path;
	id.backing_inode = 42;
	fd = make_dev(orig);
	unlink(jpath);
	assert_int_equal(ap_journal_create(jpath, "/dev/test", &id, REC, 1, &j, &e), 0);
	assert_int_equal(ap_pread_all(fd, buf, REC, 16384), 0);
	assert_int_equal(ap_journal_put(j, 0, 16384, buf, &e), 0);
	assert_int_equal(ap_journal_commit(j, &e), 0);
	ap_journal_close(j);
	assert_int_equal(ap_journal_open(jpath, &j, &e), 0);
	info = ap_journal_info(j);
	assert_string_equal(info->id.backing_file, path);
	assert_int_equal(ap_identity_compare(&id, &info->id, NULL, 0), AP_IDENTITY_SAME);
	assert_int_equal(ap_journal_record_offset(j, 0, &off), 0);
	assert_int_equal(off, 16384);
	assert_int_equal(ap_pwrite_all(fd, "zz", 2, 16384 + 10), 0);
	assert_int_equal(ap_journal_restore(j, fd, devpath, &st, &e), 0);
	assert_int_equal(st.restored, 1);
	ap_journal_close(j);
	close(fd);
	free(path);
	free(orig);
}

/* A journal of alignprobe 0.1 (version 1, no identity) is still read. */
static void test_version1(void **state)
{
	unsigned char *orig = ap_xmalloc(65536), hdr[AP_JOURNAL_HDR], rh[AP_JOURNAL_REC_HDR];
	static const char magic[8] = { 'A', 'P', 'U', 'N', 'D', 'O', 0, 1 };
	unsigned char data[REC];
	struct ap_journal_restore_stats st;
	const struct ap_journal_info *info;
	struct ap_journal *j;
	struct ap_error e = { 0 };
	uint32_t v32;
	uint64_t v64;
	int fd, jfd;

	(void)state;
	fd = make_dev(orig);
	memset(hdr, 0, sizeof(hdr));
	memcpy(hdr, magic, 8);
	v32 = 1;			/* version */
	memcpy(hdr + 8, &v32, 4);
	memcpy(hdr + 12, &v32, 4);	/* complete */
	v64 = 65536;
	memcpy(hdr + 16, &v64, 8);
	v32 = 512;
	memcpy(hdr + 24, &v32, 4);
	v32 = REC;
	memcpy(hdr + 28, &v32, 4);
	v64 = 1;
	memcpy(hdr + 32, &v64, 8);
	strcpy((char *)hdr + 64, "/dev/old");
	v32 = ap_crc32(0, hdr, AP_JOURNAL_HDR - 4);
	memcpy(hdr + AP_JOURNAL_HDR - 4, &v32, 4);
	memset(rh, 0, sizeof(rh));
	v64 = 8192;
	memcpy(rh, &v64, 8);
	v32 = REC;
	memcpy(rh + 8, &v32, 4);
	memcpy(data, orig + 8192, REC);
	v32 = ap_crc32(0, data, REC);
	memcpy(rh + 12, &v32, 4);
	memcpy(rh + 16, magic, 8);
	unlink(jpath);
	jfd = open(jpath, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(jfd >= 0);
	assert_int_equal(ap_pwrite_all(jfd, hdr, sizeof(hdr), 0), 0);
	assert_int_equal(ap_pwrite_all(jfd, rh, sizeof(rh), sizeof(hdr)), 0);
	assert_int_equal(ap_pwrite_all(jfd, data, REC, sizeof(hdr) + sizeof(rh)), 0);
	close(jfd);

	assert_int_equal(ap_journal_open(jpath, &j, &e), 0);
	info = ap_journal_info(j);
	assert_int_equal(info->version, 1);
	assert_false(info->has_identity);
	assert_string_equal(info->dev, "/dev/old");
	assert_int_equal(info->id.size, 65536);
	assert_int_equal(info->id.logical_sector, 512);
	assert_false(ap_identity_is_distinctive(&info->id));
	assert_int_equal(ap_pwrite_all(fd, "zz", 2, 8192 + 10), 0);
	assert_int_equal(ap_journal_restore(j, fd, devpath, &st, &e), 0);
	assert_int_equal(st.restored, 1);
	ap_journal_close(j);
	close(fd);
	free(orig);
}

/* Damage in the identity is damage in the header: refused. */
static void test_damaged_identity(void **state)
{
	unsigned char *orig = ap_xmalloc(65536);
	struct ap_journal *j;
	struct ap_error e = { 0 };
	int fd, jfd;

	(void)state;
	fd = make_dev(orig);
	write_journal(fd);
	jfd = open(jpath, O_RDWR);
	assert_int_equal(ap_pwrite_all(jfd, "X", 1, 330), 0);
	close(jfd);
	assert_int_equal(ap_journal_open(jpath, &j, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "damaged"));
	close(fd);
	free(orig);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_damaged_record),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_long_identity),
		cmocka_unit_test(test_version1),
		cmocka_unit_test(test_damaged_identity),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
