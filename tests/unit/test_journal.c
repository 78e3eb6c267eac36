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
#define DEVSZ	262144
#define START	32768
#define STRIDE	16384

static char dir[] = "/tmp/ap-test-journal-XXXXXX";
static char devpath[256], jpath[256];
static char test_serial[] = "TEST-SERIAL";
static struct ap_disk_identity test_id = {
	.serial = test_serial, .size = DEVSZ, .logical_sector = 512,
	.content = { { .offset = 0, .length = 4096, .crc32 = 0x12345678 } }, .ncontent = 1,
};
static const struct ap_journal_plan test_plan = {
	.region_start = START, .region_size = NREC * STRIDE, .stride = STRIDE, .slots = NREC,
	.span = REC,
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

/* A "device" of DEVSZ bytes with a known pattern; fd open read-write. */
static int make_dev(unsigned char *orig)
{
	int fd, i;

	for (i = 0; i < DEVSZ; i++)
		orig[i] = (unsigned char)(i * 7 + 3);
	fd = open(devpath, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ap_pwrite_all(fd, orig, DEVSZ, 0), 0);
	return fd;
}

/* A complete journal of @plan over the device @fd, still open. */
static struct ap_journal *make_journal(int fd, const struct ap_journal_plan *plan)
{
	unsigned char buf[REC];
	struct ap_journal *j;
	struct ap_error e = { 0 };
	int i;

	unlink(jpath);
	assert_int_equal(ap_journal_create(jpath, "/dev/test", &test_id, plan, &j, &e), 0);
	for (i = 0; i < NREC; i++) {
		assert_int_equal(ap_pread_all(fd, buf, REC, START + (uint64_t)i * STRIDE), 0);
		assert_int_equal(ap_journal_put(j, (uint64_t)i, buf, &e), 0);
	}
	assert_int_equal(ap_journal_commit(j, &e), 0);
	return j;
}

static void write_journal(int fd)
{
	ap_journal_close(make_journal(fd, &test_plan));
}

/* Overwrite @len bytes at @off of the journal. */
static void poke(uint64_t off, const void *b, size_t len)
{
	int jfd = open(jpath, O_RDWR);

	assert_true(jfd >= 0);
	assert_int_equal(ap_pwrite_all(jfd, b, len, off), 0);
	close(jfd);
}

/*
 * Damage the byte at @off of the journal: invert it. Setting it to a fixed
 * value would leave it unchanged where the journal's random nonce, PID or
 * time already holds that value (1 in 256 for each such byte).
 */
static void flip(uint64_t off)
{
	unsigned char b;
	int jfd = open(jpath, O_RDWR);

	assert_true(jfd >= 0);
	assert_int_equal(ap_pread_all(jfd, &b, 1, off), 0);
	b ^= 0xff;
	assert_int_equal(ap_pwrite_all(jfd, &b, 1, off), 0);
	close(jfd);
}

/* Overwrite a header field and make the header's CRC right again: a lie, not damage. */
static void poke_header_fixed(uint64_t off, const void *b, size_t len)
{
	unsigned char *h;
	uint32_t hl, crc;
	int jfd = open(jpath, O_RDWR);

	assert_true(jfd >= 0);
	assert_int_equal(ap_pread_all(jfd, &hl, 4, 52), 0);
	h = ap_xmalloc(hl);
	assert_int_equal(ap_pread_all(jfd, h, hl, 0), 0);
	memcpy(h + off, b, len);
	crc = ap_crc32(0, h, hl - 4);
	memcpy(h + hl - 4, &crc, 4);
	assert_int_equal(ap_pwrite_all(jfd, h, hl, 0), 0);
	free(h);
	close(jfd);
}

/* The journal's first record's position (the header is 4096 bytes here). */
static uint64_t rec_at(uint64_t idx)
{
	return AP_JOURNAL_HDR + idx * (AP_JOURNAL_REC_HDR + REC);
}

/* The device still holds @want everywhere. */
static void assert_dev(int fd, const unsigned char *want)
{
	unsigned char *now = ap_xmalloc(DEVSZ);

	assert_int_equal(ap_pread_all(fd, now, DEVSZ, 0), 0);
	assert_memory_equal(now, want, DEVSZ);
	free(now);
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
	unsigned char *orig = ap_xmalloc(DEVSZ), *now = ap_xmalloc(DEVSZ);
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
	assert_int_equal(info->dev_size, DEVSZ);
	assert_int_equal(info->pid, (int)getpid());
	assert_int_equal(info->version, 4);
	assert_false(info->inflight);	/* none announced */
	/* the plan and the identity come back as they were written */
	assert_int_equal(info->plan.region_start, START);
	assert_int_equal(info->plan.region_size, NREC * STRIDE);
	assert_int_equal(info->plan.stride, STRIDE);
	assert_false(info->plan.allow_metadata);
	assert_string_equal(info->id.serial, "TEST-SERIAL");
	assert_null(info->id.wwn);
	assert_int_equal(info->id.size, DEVSZ);
	assert_int_equal(info->id.ncontent, 1);
	assert_int_equal(info->id.content[0].crc32, 0x12345678);
	assert_int_equal(ap_identity_compare(&test_id, &info->id, NULL, 0), AP_IDENTITY_SAME);
	assert_int_equal(ap_journal_record_offset(j, 2, &off), 0);
	assert_int_equal(off, START + 2 * STRIDE);

	/* nothing changed: nothing to write back */
	assert_int_equal(ap_journal_restore(j, fd, devpath, false, &st, &e), 0);
	assert_int_equal(st.records, NREC);
	assert_int_equal(st.restored, 0);

	/* change two recorded ranges and one outside them */
	memset(now, 0xAA, 100);
	assert_int_equal(ap_pwrite_all(fd, now, 100, START + STRIDE + 50), 0);
	assert_int_equal(ap_pwrite_all(fd, now, 100, START + 3 * STRIDE + REC - 100), 0);
	assert_int_equal(ap_pwrite_all(fd, now, 100, START + STRIDE + REC), 0);	/* not journalled */
	memcpy(orig + START + STRIDE + 50, now, 100);
	memcpy(orig + START + 3 * STRIDE + REC - 100, now, 100);
	memcpy(orig + START + STRIDE + REC, now, 100);

	/* someone else wrote there: refused, named to the sector, nothing written */
	assert_int_equal(ap_journal_restore(j, fd, devpath, false, &st, &e), -EPERM);
	assert_int_equal(st.changed, 2);
	assert_int_equal(st.changed_at[0].offset, START + STRIDE);
	assert_int_equal(st.changed_at[0].length, 512);
	assert_int_equal(st.changed_at[1].offset, START + 3 * STRIDE + REC - 512);
	assert_int_equal(st.changed_at[1].length, 512);
	assert_int_equal(st.restored, 0);
	assert_non_null(strstr(e.msg, "bytes 49152+512, 89600+512"));
	assert_non_null(strstr(e.msg, "--force"));
	assert_dev(fd, orig);

	/* --force: put back */
	assert_int_equal(ap_journal_restore(j, fd, devpath, true, &st, &e), 0);
	assert_int_equal(st.restored, 2);
	assert_int_equal(st.bytes, 2 * REC);
	assert_int_equal(ap_pread_all(fd, now, DEVSZ, 0), 0);
	assert_memory_equal(now, orig, START + STRIDE + 50);
	assert_memory_not_equal(now + START + STRIDE + 50, orig + START + STRIDE + 50, 100);
	assert_memory_equal(now + START + STRIDE + REC, orig + START + STRIDE + REC, 100);

	/* ap_journal_read gives the original bytes of a record */
	assert_int_equal(ap_journal_read(j, 1, 512, now, 1024, &e), 0);
	assert_int_equal(ap_pread_all(fd, orig, 1024, START + STRIDE + 512), 0);
	assert_memory_equal(now, orig, 1024);
	assert_int_equal(ap_journal_read(j, 1, REC - 10, now, 100, &e), -EINVAL);

	assert_int_equal(ap_journal_remove(j), 0);
	assert_int_equal(access(jpath, F_OK), -1);
	close(fd);
	free(orig);
	free(now);
}

/*
 * Restore @jpath onto fd with --force: refused with -EBADMSG and @what in
 * the message, and the device (with a difference in record 0 that a
 * restore would put back) unchanged.
 */
static void assert_refused(int fd, unsigned char *orig, int open_rc, const char *what)
{
	struct ap_journal_restore_stats st;
	struct ap_journal *j = NULL;
	struct ap_error e = { 0 };

	assert_int_equal(ap_pwrite_all(fd, "zz", 2, START + 10), 0);
	memcpy(orig + START + 10, "zz", 2);
	assert_int_equal(ap_journal_open(jpath, &j, &e), open_rc);
	if (!open_rc) {
		assert_int_equal(ap_journal_restore(j, fd, devpath, true, &st, &e), -EBADMSG);
		assert_int_equal(st.restored, 0);
		ap_journal_close(j);
	}
	if (!strstr(e.msg, what))
		fail_msg("'%s' not in '%s'", what, e.msg);
	assert_dev(fd, orig);
}

static void test_damaged_record(void **state)
{
	unsigned char *orig = ap_xmalloc(DEVSZ), x = 0x55;
	int fd;

	(void)state;
	fd = make_dev(orig);
	write_journal(fd);
	/* a byte of record 1's data: no record is written, not even record 0 */
	poke(rec_at(1) + AP_JOURNAL_REC_HDR + 10, &x, 1);
	assert_refused(fd, orig, 0, "record 1 is damaged (CRC mismatch); nothing was written");
	/* what the probe writes back during its run is checked the same way */
	{
		unsigned char *buf = ap_xmalloc(REC);
		struct ap_journal *j;
		struct ap_error e = { 0 };

		assert_int_equal(ap_journal_open(jpath, &j, &e), 0);
		assert_int_equal(ap_journal_read_record(j, 0, buf, &e), 0);
		assert_memory_equal(buf, orig + START, 10);
		assert_int_equal(ap_journal_read_record(j, 1, buf, &e), -EBADMSG);
		assert_non_null(strstr(e.msg, "record 1 is damaged (CRC mismatch)"));
		assert_int_equal(ap_journal_read_record(j, NREC, buf, &e), -EINVAL);
		ap_journal_close(j);
		free(buf);
	}
	close(fd);
	free(orig);
}

/* Every field of a record header is under the record's CRC or checked against the plan. */
static void test_record_headers(void **state)
{
	static const struct { unsigned at; const char *what; } f[] = {
		{ 0, "device offset 0 is not the plan's 49152" },	/* offset */
		{ 8, "not this journal's record 1" },			/* length */
		{ 12, "CRC mismatch" },					/* reserved */
		{ 16, "not this journal's record 1" },			/* index */
		{ 24, "not this journal's record 1" },			/* nonce */
		{ 32, "not this journal's record 1" },			/* magic */
		{ 48, "CRC mismatch" },					/* reserved */
		{ AP_JOURNAL_REC_HDR - 4, "CRC mismatch" },		/* the CRC */
	};
	unsigned char *orig = ap_xmalloc(DEVSZ), zero[8] = { 0 };
	size_t i;
	int fd;

	(void)state;
	fd = make_dev(orig);
	for (i = 0; i < AP_ARRAY_SIZE(f); i++) {
		write_journal(fd);
		if (f[i].at == 0)
			poke(rec_at(1), zero, 8);	/* the example: offset 0 */
		else
			flip(rec_at(1) + f[i].at);
		assert_refused(fd, orig, 0, f[i].what);
	}
	/* a record copied from another place of the same journal */
	write_journal(fd);
	{
		unsigned char *r = ap_xmalloc(AP_JOURNAL_REC_HDR + REC);
		int jfd = open(jpath, O_RDWR);

		assert_int_equal(ap_pread_all(jfd, r, AP_JOURNAL_REC_HDR + REC, rec_at(2)), 0);
		assert_int_equal(ap_pwrite_all(jfd, r, AP_JOURNAL_REC_HDR + REC, rec_at(1)), 0);
		close(jfd);
		free(r);
	}
	assert_refused(fd, orig, 0, "not this journal's record 1");
	close(fd);
	free(orig);
}

/* Every header field is under the header's CRC. */
static void test_header_fields(void **state)
{
	unsigned char *orig = ap_xmalloc(DEVSZ);
	unsigned at;
	int fd;

	(void)state;
	fd = make_dev(orig);
	for (at = 8; at < 400; at += 4) {
		write_journal(fd);
		flip(at);
		assert_refused(fd, orig, -EBADMSG, at == 8 ? "of version 251" : "damaged");
	}
	write_journal(fd);
	flip(AP_JOURNAL_HDR - 1);	/* the CRC itself */
	assert_refused(fd, orig, -EBADMSG, "damaged (CRC mismatch)");
	close(fd);
	free(orig);
}

/* A header that lies consistently (its CRC made right): the plan and the records disagree. */
static void test_header_lies(void **state)
{
	unsigned char *orig = ap_xmalloc(DEVSZ);
	uint64_t v;
	uint32_t f;
	int fd;

	(void)state;
	fd = make_dev(orig);
	/* the region moved to byte 0: the partition table */
	write_journal(fd);
	v = 0;
	poke_header_fixed(320, &v, 8);
	assert_refused(fd, orig, -EBADMSG, "reaches into LBA 0..33");
	/* ... and the metadata flag set: it overlaps the fingerprinted range */
	write_journal(fd);
	poke_header_fixed(320, &v, 8);
	f = 3;
	poke_header_fixed(12, &f, 4);
	assert_refused(fd, orig, -EBADMSG, "overlap the range the probe never writes");
	/* moved elsewhere inside the device: the records are not the plan's */
	write_journal(fd);
	v = START + 512;
	poke_header_fixed(320, &v, 8);
	assert_refused(fd, orig, 0, "device offset 32768 is not the plan's 33280");
	/* overlapping records */
	write_journal(fd);
	v = REC / 2;
	poke_header_fixed(336, &v, 8);
	assert_refused(fd, orig, -EBADMSG, "overlapping");
	/* a region past the end of the device, and one that wraps around 2^64 */
	write_journal(fd);
	v = DEVSZ;
	poke_header_fixed(328, &v, 8);
	assert_refused(fd, orig, -EBADMSG, "device 262144 bytes");
	write_journal(fd);
	v = UINT64_MAX - 4095;
	poke_header_fixed(336, &v, 8);
	assert_refused(fd, orig, -EBADMSG, "2^64");
	/* more records than the region holds */
	write_journal(fd);
	v = NREC + 1;
	poke_header_fixed(32, &v, 8);
	assert_refused(fd, orig, -EBADMSG, "region");
	close(fd);
	free(orig);
}

/* A plan that breaks the rules is never journalled. */
static void test_create_refuses_plans(void **state)
{
	struct ap_journal_plan p;
	struct ap_journal *j;
	struct ap_error e = { 0 };

	(void)state;
	unlink(jpath);
	p = test_plan;
	p.stride = REC - 512;		/* overlapping */
	assert_int_equal(ap_journal_create(jpath, "/dev/test", &test_id, &p, &j, &e), -EINVAL);
	p = test_plan;
	p.region_start = 0;		/* the partition table */
	assert_int_equal(ap_journal_create(jpath, "/dev/test", &test_id, &p, &j, &e), -EINVAL);
	p.allow_metadata = true;	/* allowed, but the fingerprint is at 0..4095 */
	assert_int_equal(ap_journal_create(jpath, "/dev/test", &test_id, &p, &j, &e), -EINVAL);
	p = test_plan;
	p.region_size = DEVSZ;		/* past the end */
	assert_int_equal(ap_journal_create(jpath, "/dev/test", &test_id, &p, &j, &e), -EINVAL);
	p = test_plan;
	p.region_start = DEVSZ - 33 * 512 - NREC * STRIDE + 512;	/* the backup GPT */
	assert_int_equal(ap_journal_create(jpath, "/dev/test", &test_id, &p, &j, &e), -EINVAL);
	p.allow_metadata = true;
	assert_int_equal(ap_journal_create(jpath, "/dev/test", &test_id, &p, &j, &e), 0);
	ap_journal_remove(j);
	assert_int_equal(access(jpath, F_OK), -1);
}

static void test_refusals(void **state)
{
	unsigned char *orig = ap_xmalloc(DEVSZ), *buf = ap_xcalloc(1, REC);
	struct ap_journal_restore_stats st;
	struct ap_journal *j;
	struct ap_error e = { 0 };
	FILE *f;
	int fd;

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
	assert_int_equal(ap_journal_create(jpath, "/dev/test", &test_id, &test_plan, &j, &e),
			 -EEXIST);

	/* incomplete (never committed): opens, but restore refuses */
	unlink(jpath);
	assert_int_equal(ap_journal_create(jpath, "/dev/test", &test_id, &test_plan, &j, &e), 0);
	assert_int_equal(ap_journal_put(j, 0, buf, &e), 0);
	ap_journal_close(j);
	assert_int_equal(ap_journal_open(jpath, &j, &e), 0);
	assert_false(ap_journal_info(j)->complete);
	assert_int_equal(ap_journal_restore(j, fd, devpath, true, &st, &e), -EINVAL);
	ap_journal_close(j);

	/* truncated */
	assert_int_equal(truncate(jpath, AP_JOURNAL_HDR + 10), 0);
	assert_int_equal(ap_journal_open(jpath, &j, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "truncated"));
	unlink(jpath);
	close(fd);
	free(orig);
	free(buf);
}

/* An identity too long for 4096 bytes: the header grows, the records follow it. */
static void test_long_identity(void **state)
{
	unsigned char *orig = ap_xmalloc(DEVSZ), buf[REC];
	struct ap_disk_identity id = test_id;
	struct ap_journal_plan p = test_plan;
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
	p.slots = 1;
	fd = make_dev(orig);
	unlink(jpath);
	assert_int_equal(ap_journal_create(jpath, "/dev/test", &id, &p, &j, &e), 0);
	assert_int_equal(ap_pread_all(fd, buf, REC, START), 0);
	assert_int_equal(ap_journal_put(j, 0, buf, &e), 0);
	assert_int_equal(ap_journal_commit(j, &e), 0);
	ap_journal_close(j);
	assert_int_equal(ap_journal_open(jpath, &j, &e), 0);
	info = ap_journal_info(j);
	assert_string_equal(info->id.backing_file, path);
	assert_int_equal(ap_identity_compare(&id, &info->id, NULL, 0), AP_IDENTITY_SAME);
	assert_int_equal(ap_journal_record_offset(j, 0, &off), 0);
	assert_int_equal(off, START);
	assert_int_equal(ap_pwrite_all(fd, "zz", 2, START + 10), 0);
	assert_int_equal(ap_journal_restore(j, fd, devpath, false, &st, &e), -EPERM);
	assert_int_equal(ap_journal_restore(j, fd, devpath, true, &st, &e), 0);
	assert_int_equal(st.restored, 1);
	ap_journal_close(j);
	close(fd);
	free(path);
	free(orig);
}

/* Journals of versions 1 and 2 (no CRC over record headers, no plan): refused. */
static void test_old_versions(void **state)
{
	unsigned char *orig = ap_xmalloc(DEVSZ), hdr[AP_JOURNAL_HDR];
	static const char magic[8] = { 'A', 'P', 'U', 'N', 'D', 'O', 0, 1 };
	struct ap_journal *j;
	struct ap_error e = { 0 };
	uint32_t v32, version;
	uint64_t v64;
	int fd, jfd;

	(void)state;
	fd = make_dev(orig);
	for (version = 1; version <= 2; version++) {
		memset(hdr, 0, sizeof(hdr));
		memcpy(hdr, magic, 8);
		memcpy(hdr + 8, &version, 4);
		v32 = 1;
		memcpy(hdr + 12, &v32, 4);	/* complete */
		v64 = DEVSZ;
		memcpy(hdr + 16, &v64, 8);
		v32 = 512;
		memcpy(hdr + 24, &v32, 4);
		v32 = REC;
		memcpy(hdr + 28, &v32, 4);
		v64 = 1;
		memcpy(hdr + 32, &v64, 8);
		v32 = AP_JOURNAL_HDR;
		memcpy(hdr + 52, &v32, 4);
		strcpy((char *)hdr + 64, "/dev/old");
		v32 = ap_crc32(0, hdr, AP_JOURNAL_HDR - 4);
		memcpy(hdr + AP_JOURNAL_HDR - 4, &v32, 4);
		unlink(jpath);
		jfd = open(jpath, O_RDWR | O_CREAT | O_TRUNC, 0600);
		assert_true(jfd >= 0);
		assert_int_equal(ap_pwrite_all(jfd, hdr, sizeof(hdr), 0), 0);
		assert_int_equal(ftruncate(jfd, AP_JOURNAL_HDR + AP_JOURNAL_REC_HDR + REC), 0);
		close(jfd);
		assert_int_equal(ap_journal_open(jpath, &j, &e), -EBADMSG);
		assert_non_null(strstr(e.msg, "written by an older alignprobe"));
	}
	unlink(jpath);
	close(fd);
	free(orig);
}

/*
 * A power cut tears the write in flight in the physical sectors at its
 * edges (issue 31, item 4): restored without force when the journal names
 * that write and one unit up to its margin explains every difference;
 * refused when anything differs elsewhere, or when the write was done.
 */
static void torn_case(int fd, const unsigned char *orig, bool done, bool extra, int want)
{
	static const struct ap_journal_plan plan = {
		.region_start = START, .region_size = NREC * STRIDE, .stride = STRIDE,
		.slots = NREC, .span = REC, .margin = 2048,
	};
	struct ap_journal_restore_stats st;
	struct ap_error e = { 0 };
	struct ap_journal *j;
	unsigned char junk[1024];

	assert_int_equal(ap_pwrite_all(fd, orig, DEVSZ, 0), 0);
	j = make_journal(fd, &plan);
	/* 4 KiB at 51712 (record 1) in flight: 2 KiB units from 1024 tear 51200.. and 55296.. */
	assert_int_equal(ap_journal_intent(j, 51712, 4096, &e), 0);
	if (done)
		assert_int_equal(ap_journal_intent_done(j), 0);
	ap_journal_close(j);
	memset(junk, 0xdb, sizeof(junk));
	assert_int_equal(ap_pwrite_all(fd, junk, 1024, 51200), 0);
	assert_int_equal(ap_pwrite_all(fd, junk, 1024, 55296), 0);
	if (extra)	/* a sector the write covers wholly: not the tear's */
		assert_int_equal(ap_pwrite_all(fd, junk, 512, 53248), 0);

	assert_int_equal(ap_journal_open(jpath, &j, &e), 0);
	assert_int_equal(ap_journal_info(j)->inflight, !done);
	assert_int_equal(ap_journal_restore(j, fd, devpath, false, &st, &e), want);
	if (!want) {
		assert_int_equal(st.restored, 1);
		assert_int_equal(st.torn, 1);
		assert_dev(fd, orig);
	} else {
		assert_int_equal(st.changed, 1);
		assert_int_equal(st.restored, 0);
	}
	ap_journal_close(j);
}

static void test_torn_write(void **state)
{
	unsigned char *orig = ap_xmalloc(DEVSZ);
	struct ap_journal_range w = { 51712, 4096 };
	unsigned char a[REC], b[REC];
	int fd;

	(void)state;
	fd = make_dev(orig);
	torn_case(fd, orig, false, false, 0);
	torn_case(fd, orig, false, true, -EPERM);
	torn_case(fd, orig, true, false, -EPERM);
	/* the unit must stay within the margin: 4 KiB sectors are not allowed by 2 KiB */
	memset(a, 1, sizeof(a));
	memcpy(b, a, sizeof(b));
	memset(b + (51712 - 49152) - 2048, 2, 4096);	/* a 4 KiB sector from 49664 */
	assert_false(ap_journal_torn_explains(b, a, REC, 49152, 512, &w, 2048));
	assert_true(ap_journal_torn_explains(b, a, REC, 49152, 512, &w, 8192));
	close(fd);
	free(orig);
}

/* A version 3 journal (no margin, no write in flight) is still restored. */
static void test_version3(void **state)
{
	unsigned char *orig = ap_xmalloc(DEVSZ), hdr[AP_JOURNAL_HDR];
	struct ap_journal_restore_stats st;
	struct ap_error e = { 0 };
	struct ap_journal *j;
	uint32_t v32 = 3;
	int fd;

	(void)state;
	fd = make_dev(orig);
	write_journal(fd);
	poke(8, &v32, 4);
	{
		int jfd = open(jpath, O_RDWR);

		assert_true(jfd >= 0);
		assert_int_equal(ap_pread_all(jfd, hdr, sizeof(hdr), 0), 0);
		v32 = ap_crc32(0, hdr, AP_JOURNAL_HDR - 4);
		assert_int_equal(ap_pwrite_all(jfd, &v32, 4, AP_JOURNAL_HDR - 4), 0);
		close(jfd);
	}
	assert_int_equal(ap_journal_open(jpath, &j, &e), 0);
	assert_int_equal(ap_journal_info(j)->version, 3);
	assert_false(ap_journal_info(j)->inflight);
	assert_int_equal(ap_journal_info(j)->plan.margin, 0);
	assert_int_equal(ap_journal_intent(j, START, 512, &e), -EBADF);
	assert_int_equal(ap_journal_restore(j, fd, devpath, false, &st, &e), 0);
	assert_int_equal(st.records, NREC);
	ap_journal_close(j);
	close(fd);
	free(orig);
}

/* Damage in the identity is damage in the header: refused. */
static void test_damaged_identity(void **state)
{
	unsigned char *orig = ap_xmalloc(DEVSZ);
	struct ap_journal *j;
	struct ap_error e = { 0 };
	int fd;

	(void)state;
	fd = make_dev(orig);
	write_journal(fd);
	poke(390, "X", 1);
	assert_int_equal(ap_journal_open(jpath, &j, &e), -EBADMSG);
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
		cmocka_unit_test(test_record_headers),
		cmocka_unit_test(test_header_fields),
		cmocka_unit_test(test_header_lies),
		cmocka_unit_test(test_create_refuses_plans),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_long_identity),
		cmocka_unit_test(test_old_versions),
		cmocka_unit_test(test_damaged_identity),
		cmocka_unit_test(test_torn_write),
		cmocka_unit_test(test_version3),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
