// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Partition table validation: the pure checks over partition lists, the raw
 * GPT header parser and CRC, and the whole read path on images crafted byte
 * by byte (MBR with an EBR chain, GPT with primary and backup).
 */
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
#include <unistd.h>

#include "device/ptable.h"
#include "device/ptableP.h"

/* ---- helpers ---- */

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

static struct ap_ptable *table(const char *label, uint64_t nsectors, uint64_t first,
			       uint64_t last)
{
	struct ap_ptable *pt = calloc(1, sizeof(*pt));

	pt->label = strdup(label);
	pt->nsectors = nsectors;
	pt->first_usable = first;
	pt->last_usable = last;
	pt->sector_size = 512;
	return pt;
}

static void add(struct ap_ptable *pt, size_t partno, uint64_t start, uint64_t size,
		bool container, bool logical)
{
	struct ap_part *p;

	pt->parts = realloc(pt->parts, (pt->nparts + 1) * sizeof(*pt->parts));
	p = &pt->parts[pt->nparts++];
	memset(p, 0, sizeof(*p));
	p->partno = partno;
	p->start = start;
	p->size = size;
	p->container = container;
	p->logical = logical;
}

static size_t count(const struct ap_ptable *pt, enum ap_pt_kind kind)
{
	size_t i, n = 0;

	for (i = 0; i < pt->nissues; i++)
		if (pt->issues[i].kind == kind)
			n++;
	return n;
}

static void done(struct ap_ptable *pt)
{
	ap_ptable_free(pt);
	free(pt);
}

/* ---- pure checks ---- */

static void test_crc32(void **state)
{
	(void)state;
	assert_int_equal(ap_ptable_crc32("123456789", 9), 0xcbf43926u);
	assert_int_equal(ap_ptable_crc32("", 0), 0);
}

static void test_validate_clean(void **state)
{
	struct ap_ptable *pt = table("gpt", 131072, 34, 131038);

	(void)state;
	add(pt, 0, 2048, 2048, false, false);
	add(pt, 1, 4096, 100000, false, false);
	add(pt, 2, 104096, 131038 - 104096 + 1, false, false);
	ap_ptable_validate(pt);
	assert_int_equal(pt->nissues, 0);
	assert_int_equal(ap_ptable_nerrors(pt), 0);
	done(pt);
}

static void test_validate_overlap(void **state)
{
	struct ap_ptable *pt = table("gpt", 131072, 34, 131038);

	(void)state;
	add(pt, 0, 2048, 4096, false, false);	/* 2048-6143 */
	add(pt, 1, 6143, 100, false, false);	/* shares sector 6143 */
	add(pt, 2, 10000, 10, false, false);
	add(pt, 3, 10005, 2, false, false);	/* inside 3 */
	ap_ptable_validate(pt);
	assert_int_equal(count(pt, AP_PT_OVERLAP), 2);
	assert_int_equal(ap_ptable_nerrors(pt), 2);
	assert_non_null(strstr(pt->issues[0].msg, "partitions 1 and 2 overlap (sectors 6143-6143)"));
	assert_non_null(strstr(pt->issues[1].msg, "partitions 3 and 4 overlap (sectors 10005-10006)"));
	assert_true(pt->issues[0].error);
	done(pt);

	/* listed out of order: found all the same */
	pt = table("dos", 100000, 1, 99999);
	add(pt, 0, 50000, 1000, false, false);
	add(pt, 1, 2048, 48000, false, false);	/* ends at 50047 */
	ap_ptable_validate(pt);
	assert_int_equal(count(pt, AP_PT_OVERLAP), 1);
	done(pt);
}

static void test_validate_past_end(void **state)
{
	struct ap_ptable *pt = table("dos", 81920, 1, 81919);

	(void)state;
	add(pt, 0, 2048, 40960, false, false);
	add(pt, 1, 43008, 40960, false, false);	/* ends at 83967 */
	ap_ptable_validate(pt);
	assert_int_equal(count(pt, AP_PT_PAST_END), 1);
	assert_int_equal(pt->issues[0].partno, 1);
	assert_non_null(strstr(pt->issues[0].msg, "partition 2 (sectors 43008-83967) ends past "
			       "the end of the disk (81920 sectors)"));
	done(pt);

	/* the last sector itself is fine */
	pt = table("dos", 81920, 1, 81919);
	add(pt, 0, 2048, 81920 - 2048, false, false);
	ap_ptable_validate(pt);
	assert_int_equal(pt->nissues, 0);
	done(pt);
}

static void test_validate_outside_usable(void **state)
{
	struct ap_ptable *pt = table("gpt", 131072, 2048, 131038);

	(void)state;
	add(pt, 0, 34, 100, false, false);		/* before first usable */
	add(pt, 1, 131000, 60, false, false);		/* into the backup GPT */
	ap_ptable_validate(pt);
	assert_int_equal(count(pt, AP_PT_OUTSIDE_USABLE), 2);
	assert_non_null(strstr(pt->issues[0].msg, "before the first usable LBA 2048"));
	assert_non_null(strstr(pt->issues[1].msg, "past the last usable LBA 131038"));
	done(pt);

	pt = table("dos", 1000, 1, 999);
	add(pt, 0, 0, 100, false, false);
	ap_ptable_validate(pt);
	assert_int_equal(count(pt, AP_PT_OUTSIDE_USABLE), 1);
	assert_non_null(strstr(pt->issues[0].msg, "sector 0"));
	done(pt);
}

static void test_validate_extended(void **state)
{
	struct ap_ptable *pt = table("dos", 131072, 1, 131071);

	(void)state;
	add(pt, 0, 2048, 8192, false, false);
	add(pt, 1, 10240, 40960, true, false);		/* extended 10240-51199 */
	add(pt, 4, 12288, 8192, false, true);		/* logicals inside */
	add(pt, 5, 22528, 8192, false, true);
	ap_ptable_validate(pt);
	assert_int_equal(pt->nissues, 0);
	done(pt);

	/* a logical partition reaching out of the extended one, and one
	 * overlapping its sibling */
	pt = table("dos", 131072, 1, 131071);
	add(pt, 1, 10240, 40960, true, false);
	add(pt, 4, 12288, 8192, false, true);		/* 12288-20479 */
	add(pt, 5, 20000, 8192, false, true);		/* overlaps 5 */
	add(pt, 6, 50000, 8192, false, true);		/* past 51199 */
	add(pt, 2, 51200, 4096, false, false);		/* primary after: overlaps 7 */
	ap_ptable_validate(pt);
	assert_int_equal(count(pt, AP_PT_LOGICAL_OUTSIDE), 1);
	assert_int_equal(count(pt, AP_PT_OVERLAP), 2);
	done(pt);

	/* a primary partition inside the extended one overlaps it */
	pt = table("dos", 131072, 1, 131071);
	add(pt, 0, 10240, 40960, true, false);
	add(pt, 1, 20000, 100, false, false);
	ap_ptable_validate(pt);
	assert_int_equal(count(pt, AP_PT_OVERLAP), 1);
	done(pt);
}

/* a partition of the BSD label nested in DOS partition @parent */
static void add_nested(struct ap_ptable *pt, unsigned parent, size_t partno, uint64_t start,
		       uint64_t size)
{
	add(pt, partno, start, size, false, false);
	pt->parts[pt->nparts - 1].parent = parent;
	if (partno == 2)
		pt->parts[pt->nparts - 1].role = AP_PART_WHOLE_DISK;
}

static bool has_msg(const struct ap_ptable *pt, const char *s)
{
	size_t i;

	for (i = 0; i < pt->nissues; i++)
		if (strstr(pt->issues[i].msg, s))
			return true;
	return false;
}

static void test_part_nr(void **state)
{
	struct ap_part p = { .partno = 4 };
	char buf[AP_PART_NR_MAX];

	(void)state;
	assert_string_equal(ap_part_nr(&p, buf, sizeof(buf)), "5");
	p.parent = 2;
	assert_string_equal(ap_part_nr(&p, buf, sizeof(buf)), "2e");
	p.partno = 0;
	assert_string_equal(ap_part_nr(&p, buf, sizeof(buf)), "2a");
	p.partno = 15;
	assert_string_equal(ap_part_nr(&p, buf, sizeof(buf)), "2p");
	p.partno = 30;		/* past the alphabet: still no DOS number */
	assert_string_equal(ap_part_nr(&p, buf, sizeof(buf)), "2:31");
}

static void test_bsd_slice_type(void **state)
{
	(void)state;
	assert_true(ap_ptable_bsd_slice_type(0xa5));
	assert_true(ap_ptable_bsd_slice_type(0xa6));
	assert_true(ap_ptable_bsd_slice_type(0xa9));
	assert_true(ap_ptable_bsd_slice_type(0xb5));	/* hidden FreeBSD */
	assert_true(ap_ptable_bsd_slice_type(0xb9));
	assert_false(ap_ptable_bsd_slice_type(0x83));
	assert_false(ap_ptable_bsd_slice_type(0xa7));	/* NeXTSTEP */
	assert_false(ap_ptable_bsd_slice_type(0x81));	/* Minix */
	assert_false(ap_ptable_bsd_slice_type(0xa8));	/* Darwin UFS */
}

static void test_validate_nested(void **state)
{
	struct ap_ptable *pt = table("dos", 16384, 1, 16383);

	(void)state;
	/* the slice, its 'c' and two partitions inside: nesting, no overlap */
	add(pt, 0, 32, 7648, false, false);
	add(pt, 1, 7680, 8704, false, false);
	add_nested(pt, 2, 2, 7680, 8704);
	add_nested(pt, 2, 0, 7680, 256);
	add_nested(pt, 2, 4, 7936, 4864);
	ap_ptable_validate(pt);
	assert_int_equal(pt->nissues, 0);
	done(pt);

	/* two nested partitions overlapping, one outside the slice (and so
	 * over partition 1), one past the end: named 2e, 2f, 2g, 2h */
	pt = table("dos", 16384, 1, 16383);
	add(pt, 0, 32, 7648, false, false);
	add(pt, 1, 7680, 8704, false, false);
	add_nested(pt, 2, 4, 7936, 4864);
	add_nested(pt, 2, 5, 12544, 3584);
	add_nested(pt, 2, 6, 4096, 100);
	add_nested(pt, 2, 7, 16200, 1000);
	ap_ptable_validate(pt);
	assert_int_equal(count(pt, AP_PT_OVERLAP), 2);
	assert_true(has_msg(pt, "partitions 2e and 2f overlap (sectors 12544-12799)"));
	assert_true(has_msg(pt, "partitions 1 and 2g overlap"));
	assert_int_equal(count(pt, AP_PT_NESTED_OUTSIDE), 2);
	assert_true(has_msg(pt, "partition 2g (sectors 4096-4195) of the label nested in "
			    "partition 2 lies outside it"));
	assert_int_equal(count(pt, AP_PT_PAST_END), 1);
	assert_true(has_msg(pt, "partition 2h (sectors 16200-17199) ends past the end"));
	assert_int_equal(pt->issues[0].partno, 1);	/* the DOS partition holding it */
	assert_true(ap_pt_kind_is_error(AP_PT_NESTED_OUTSIDE));
	done(pt);

	/* a nested label whose DOS partition is not listed: outside */
	pt = table("dos", 16384, 1, 16383);
	add_nested(pt, 3, 0, 7936, 100);
	ap_ptable_validate(pt);
	assert_int_equal(count(pt, AP_PT_NESTED_OUTSIDE), 1);
	done(pt);
}

static void test_validate_bad_extent(void **state)
{
	struct ap_ptable *pt = table("gpt", 131072, 34, 131038);

	(void)state;
	add(pt, 0, 2048, 0, false, false);
	add(pt, 1, UINT64_MAX - 5, 100, false, false);
	add(pt, 2, 4096, 10, false, false);
	ap_ptable_validate(pt);
	assert_int_equal(count(pt, AP_PT_BAD_EXTENT), 2);
	assert_int_equal(count(pt, AP_PT_OVERLAP), 0);
	done(pt);
}

static void test_issue_cap(void **state)
{
	struct ap_ptable *pt = table("gpt", 1000000, 34, 999966);
	size_t i;

	(void)state;
	for (i = 0; i < 300; i++)
		add(pt, i, 2048, 100, false, false);	/* all on top of each other */
	ap_ptable_validate(pt);
	assert_int_equal(pt->nissues, AP_PT_MAX_ISSUES + 1);
	assert_int_equal(pt->issues[AP_PT_MAX_ISSUES].kind, AP_PT_TOO_MANY);
	assert_false(pt->issues[AP_PT_MAX_ISSUES].error);
	assert_int_equal(ap_ptable_nerrors(pt), AP_PT_MAX_ISSUES);
	done(pt);
	assert_string_equal(ap_pt_kind_name(AP_PT_OVERLAP), "overlap");
	assert_string_equal(ap_pt_kind_name(AP_PT_PMBR_NO_GPT), "pmbr_without_gpt");
	assert_false(ap_pt_kind_is_error(AP_PT_BACKUP_NOT_AT_END));
	assert_true(ap_pt_kind_is_error(AP_PT_GPT_MISMATCH));
}

/* ---- crafted images ---- */

#define SS		512
#define NSECT		2048		/* 1 MiB images */
#define NENT		128
#define ENTSZ		128

static uint8_t img[NSECT * SS];

static void mbr_entry(int i, uint8_t type, uint32_t start, uint32_t size)
{
	uint8_t *e = img + 446 + 16 * i;

	e[4] = type;
	put_le32(e + 8, start);
	put_le32(e + 12, size);
	img[510] = 0x55;
	img[511] = 0xaa;
}

static void gpt_header(uint64_t lba, uint64_t alt, uint64_t entries_lba)
{
	uint8_t *h = img + lba * SS;

	memset(h, 0, SS);
	memcpy(h, "EFI PART", 8);
	put_le32(h + 8, 0x00010000);
	put_le32(h + 12, 92);
	put_le64(h + 24, lba);
	put_le64(h + 32, alt);
	put_le64(h + 40, 34);
	put_le64(h + 48, NSECT - 34);
	memset(h + 56, 0x5a, 16);
	put_le64(h + 72, entries_lba);
	put_le32(h + 80, NENT);
	put_le32(h + 84, ENTSZ);
	put_le32(h + 88, ap_ptable_crc32(img + entries_lba * SS, NENT * ENTSZ));
	put_le32(h + 16, ap_ptable_crc32(h, 92));
}

static void gpt_entry(uint64_t entries_lba, int i, uint64_t first, uint64_t last)
{
	uint8_t *e = img + entries_lba * SS + i * ENTSZ;
	static const uint8_t linux_fs[16] = {	/* 0FC63DAF-8483-4772-8E79-3D69D8477DE4 */
		0xaf, 0x3d, 0xc6, 0x0f, 0x83, 0x84, 0x72, 0x47,
		0x8e, 0x79, 0x3d, 0x69, 0xd8, 0x47, 0x7d, 0xe4 };

	memcpy(e, linux_fs, 16);
	memset(e + 16, i + 1, 16);
	put_le64(e + 32, first);
	put_le64(e + 40, last);
	e[56] = 'p';
	e[58] = (uint8_t)('1' + i);
}

/* A valid GPT: PMBR, primary at 1 (entries 2..33), backup at the end. */
static void make_gpt(void)
{
	memset(img, 0, sizeof(img));
	mbr_entry(0, 0xee, 1, NSECT - 1);
	gpt_entry(2, 0, 64, 511);
	gpt_entry(2, 1, 519, 1023);	/* misaligned by 7 for 4K sectors */
	memcpy(img + (NSECT - 33) * SS, img + 2 * SS, 32 * SS);
	gpt_header(1, NSECT - 1, 2);
	gpt_header(NSECT - 1, 1, NSECT - 33);
}

static char *write_img(size_t len)
{
	char *path = strdup("/tmp/test_ptable.XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	/* longer than img: zeros after it */
	assert_int_equal(write(fd, img, len < sizeof(img) ? len : sizeof(img)),
			 (ssize_t)(len < sizeof(img) ? len : sizeof(img)));
	assert_int_equal(ftruncate(fd, (off_t)len), 0);
	close(fd);
	return path;
}

static void read_img(size_t len, struct ap_ptable *pt)
{
	struct ap_error e;
	char *path = write_img(len);

	assert_int_equal(ap_ptable_read(path, NULL, pt, &e), 0);
	unlink(path);
	free(path);
}

static void test_read_gpt(void **state)
{
	struct ap_ptable pt;

	(void)state;
	make_gpt();
	read_img(sizeof(img), &pt);
	assert_string_equal(pt.label, "gpt");
	assert_int_equal(pt.nsectors, NSECT);
	assert_int_equal(pt.first_usable, 34);
	assert_int_equal(pt.last_usable, NSECT - 34);
	assert_int_equal(pt.nparts, 2);
	assert_int_equal(pt.parts[0].start, 64);
	assert_int_equal(pt.parts[0].size, 448);
	assert_int_equal(pt.parts[1].start, 519);
	assert_string_equal(pt.parts[1].name, "p2");
	assert_string_equal(pt.parts[0].type, "Linux filesystem");
	assert_int_equal(pt.nissues, 0);
	assert_false(pt.backup_used);
	ap_ptable_free(&pt);
}

static void test_read_gpt_corrupt_primary(void **state)
{
	struct ap_ptable pt;

	(void)state;
	make_gpt();
	img[SS + 60] ^= 0xff;		/* disk GUID byte: header CRC breaks */
	read_img(sizeof(img), &pt);
	assert_string_equal(pt.label, "gpt");
	assert_true(pt.backup_used);
	assert_int_equal(count(&pt, AP_PT_PRIMARY_CORRUPT), 1);
	assert_non_null(strstr(pt.issues[0].msg, "bad header CRC"));
	assert_int_equal(pt.nparts, 2);	/* read from the backup */
	ap_ptable_free(&pt);

	/* the entry array instead of the header */
	make_gpt();
	img[2 * SS + 40] ^= 0x01;
	read_img(sizeof(img), &pt);
	assert_int_equal(count(&pt, AP_PT_PRIMARY_CORRUPT), 1);
	assert_non_null(strstr(pt.issues[0].msg, "entry array CRC"));
	ap_ptable_free(&pt);
}

static void test_read_gpt_corrupt_backup(void **state)
{
	struct ap_ptable pt;

	(void)state;
	make_gpt();
	img[(NSECT - 1) * SS + 60] ^= 0xff;
	read_img(sizeof(img), &pt);
	assert_int_equal(count(&pt, AP_PT_BACKUP_CORRUPT), 1);
	assert_false(pt.backup_used);
	ap_ptable_free(&pt);
}

static void test_read_gpt_mismatch(void **state)
{
	struct ap_ptable pt;

	(void)state;
	/* both copies valid, but the backup has a third partition */
	make_gpt();
	gpt_entry(NSECT - 33, 2, 1024, 1535);
	gpt_header(NSECT - 1, 1, NSECT - 33);
	read_img(sizeof(img), &pt);
	assert_int_equal(count(&pt, AP_PT_GPT_MISMATCH), 1);
	assert_non_null(strstr(pt.issues[0].msg, "partition entry 3 is unused in the primary, "
			       "sectors 1024-1535 in the backup"));
	assert_int_equal(pt.nparts, 2);
	ap_ptable_free(&pt);

	/* header fields differ */
	make_gpt();
	memset(img + (NSECT - 1) * SS + 56, 0x11, 16);	/* backup disk GUID, CRC fixed */
	put_le32(img + (NSECT - 1) * SS + 16, 0);
	put_le32(img + (NSECT - 1) * SS + 16, ap_ptable_crc32(img + (NSECT - 1) * SS, 92));
	read_img(sizeof(img), &pt);
	assert_int_equal(count(&pt, AP_PT_GPT_MISMATCH), 1);
	assert_non_null(strstr(pt.issues[0].msg, "disk GUID differs"));
	ap_ptable_free(&pt);
}

static void test_read_gpt_truncated(void **state)
{
	struct ap_ptable pt;

	(void)state;
	make_gpt();
	read_img(NSECT * SS / 2, &pt);
	assert_null(pt.label);
	assert_int_equal(count(&pt, AP_PT_GPT_TRUNCATED), 1);
	assert_non_null(strstr(pt.issues[0].msg, "describes a disk of 2048 sectors"));
	assert_non_null(strstr(pt.issues[0].msg, "only 1024"));
	assert_int_equal(pt.nparts, 0);
	ap_ptable_free(&pt);
}

static void test_read_pmbr_without_gpt(void **state)
{
	struct ap_ptable pt;

	(void)state;
	memset(img, 0, sizeof(img));
	mbr_entry(0, 0xee, 1, NSECT - 1);
	read_img(sizeof(img), &pt);
	assert_null(pt.label);
	assert_int_equal(count(&pt, AP_PT_PMBR_NO_GPT), 1);
	assert_int_equal(pt.nparts, 0);
	ap_ptable_free(&pt);

	/* both headers there, both broken */
	make_gpt();
	img[SS + 60] ^= 0xff;
	img[(NSECT - 1) * SS + 60] ^= 0xff;
	read_img(sizeof(img), &pt);
	assert_null(pt.label);
	assert_int_equal(count(&pt, AP_PT_GPT_CORRUPT), 1);
	ap_ptable_free(&pt);

	/* a GPT whose MBR was wiped */
	make_gpt();
	memset(img, 0, SS);
	read_img(sizeof(img), &pt);
	assert_null(pt.label);
	assert_int_equal(count(&pt, AP_PT_GPT_NO_PMBR), 1);
	ap_ptable_free(&pt);
}

static void test_read_mbr(void **state)
{
	struct ap_ptable pt;
	uint8_t *ebr;

	(void)state;
	/* primary 63+1000, extended 1100+800 with two logicals (EBR chain) */
	memset(img, 0, sizeof(img));
	mbr_entry(0, 0x83, 63, 1000);
	mbr_entry(1, 0x05, 1100, 800);
	ebr = img + 1100 * SS;				/* first EBR */
	ebr[446 + 4] = 0x83;
	put_le32(ebr + 446 + 8, 7);			/* logical 5 at 1107 */
	put_le32(ebr + 446 + 12, 300);
	ebr[462 + 4] = 0x05;
	put_le32(ebr + 462 + 8, 400);			/* next EBR at 1500 */
	put_le32(ebr + 462 + 12, 400);
	ebr[510] = 0x55;
	ebr[511] = 0xaa;
	ebr = img + 1500 * SS;
	ebr[446 + 4] = 0x83;
	put_le32(ebr + 446 + 8, 8);			/* logical 6 at 1508 */
	put_le32(ebr + 446 + 12, 392);
	ebr[510] = 0x55;
	ebr[511] = 0xaa;
	read_img(sizeof(img), &pt);
	assert_string_equal(pt.label, "dos");
	assert_int_equal(pt.nparts, 4);
	assert_non_null(ap_ptable_part(&pt, 4));
	assert_int_equal(ap_ptable_part(&pt, 4)->start, 1107);
	assert_true(ap_ptable_part(&pt, 4)->logical);
	assert_int_equal(ap_ptable_part(&pt, 5)->start, 1508);
	assert_true(ap_ptable_part(&pt, 1)->container);
	assert_string_equal(ap_ptable_part(&pt, 0)->typecode, "83");
	assert_int_equal(pt.nissues, 0);
	ap_ptable_free(&pt);

	/* overlapping primaries and one past the end */
	memset(img, 0, sizeof(img));
	mbr_entry(0, 0x83, 2048 - 1000, 500);
	mbr_entry(1, 0x83, 2048 - 600, 300);
	mbr_entry(2, 0x83, 2000, 100);
	read_img(sizeof(img), &pt);
	assert_int_equal(count(&pt, AP_PT_OVERLAP), 1);
	assert_int_equal(count(&pt, AP_PT_PAST_END), 1);
	ap_ptable_free(&pt);
}

static void test_read_small_and_empty(void **state)
{
	struct ap_ptable pt;
	struct ap_error e;

	(void)state;
	memset(img, 0, sizeof(img));
	read_img(0, &pt);
	assert_int_equal(count(&pt, AP_PT_TOO_SMALL), 1);
	ap_ptable_free(&pt);
	read_img(100, &pt);
	assert_int_equal(count(&pt, AP_PT_TOO_SMALL), 1);
	ap_ptable_free(&pt);
	read_img(sizeof(img), &pt);
	assert_null(pt.label);
	assert_int_equal(count(&pt, AP_PT_NO_TABLE), 1);
	ap_ptable_free(&pt);
	/* a partial last sector is a warning */
	mbr_entry(0, 0x83, 64, 512);
	read_img(SS * 1000 + 17, &pt);
	assert_int_equal(count(&pt, AP_PT_PARTIAL_SECTOR), 1);
	assert_int_equal(ap_ptable_nerrors(&pt), 0);
	assert_int_equal(pt.nsectors, 1000);
	ap_ptable_free(&pt);

	assert_int_equal(ap_ptable_read("/nonexistent/x.img", NULL, &pt, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "/nonexistent/x.img"));
	ap_ptable_free(&pt);
	assert_int_equal(ap_ptable_read("/tmp", NULL, &pt, &e), -EISDIR);
	ap_ptable_free(&pt);
	assert_int_equal(ap_ptable_read("/dev/null", NULL, &pt, &e), -ENODEV);
	ap_ptable_free(&pt);
}

static void test_read_4k_image(void **state)
{
	struct ap_ptable_opts o = { .sector_size = 4096 };
	struct ap_ptable pt;
	struct ap_error e;
	char *path;

	(void)state;
	memset(img, 0, sizeof(img));
	mbr_entry(0, 0x83, 1, 100);
	path = write_img(sizeof(img));
	assert_int_equal(ap_ptable_read(path, &o, &pt, &e), 0);
	assert_int_equal(pt.sector_size, 4096);
	assert_int_equal(pt.nsectors, NSECT * SS / 4096);
	assert_int_equal(pt.nparts, 1);
	ap_ptable_free(&pt);
	o.sector_size = 1000;
	assert_int_equal(ap_ptable_read(path, &o, &pt, &e), -EINVAL);
	ap_ptable_free(&pt);
	unlink(path);
	free(path);
}

/* ---- tables written for another logical sector size ---- */

static bool has_evidence(const struct ap_ptable *pt, const char *what)
{
	size_t i;

	for (i = 0; i < pt->nforeign_evidence; i++)
		if (strstr(pt->foreign_evidence[i], what))
			return true;
	return false;
}

static void read_img_as(size_t len, unsigned ss, struct ap_ptable *pt)
{
	struct ap_ptable_opts o = { .sector_size = ss };
	struct ap_error e;
	char *path = write_img(len);

	assert_int_equal(ap_ptable_read(path, &o, pt, &e), 0);
	unlink(path);
	free(path);
}

/* A GPT for 4096-byte sectors: header at byte 4096, entries at byte 8192. */
static void make_gpt4k(void)
{
	uint64_t n4k = sizeof(img) / 4096;
	uint8_t *h = img + 4096, *ents = img + 2 * 4096;

	memset(img, 0, sizeof(img));
	mbr_entry(0, 0xee, 1, (uint32_t)n4k - 1);
	memcpy(ents, "\xaf\x3d\xc6\x0f\x83\x84\x72\x47\x8e\x79\x3d\x69\xd8\x47\x7d\xe4", 16);
	put_le64(ents + 32, 16);
	put_le64(ents + 40, 127);
	memcpy(h, "EFI PART", 8);
	put_le32(h + 8, 0x00010000);
	put_le32(h + 12, 92);
	put_le64(h + 24, 1);
	put_le64(h + 32, n4k - 1);
	put_le64(h + 40, 6);
	put_le64(h + 48, n4k - 6);
	put_le64(h + 72, 2);
	put_le32(h + 80, NENT);
	put_le32(h + 84, ENTSZ);
	put_le32(h + 88, ap_ptable_crc32(ents, NENT * ENTSZ));
	put_le32(h + 16, ap_ptable_crc32(h, 92));
}

static void swap_signature(uint64_t off)
{
	put_le32(img + off + 1024, 1);		/* version */
	put_le32(img + off + 1028, 100);	/* last page */
	memcpy(img + off + 4086, "SWAPSPACE2", 10);
}

static void test_foreign_gpt(void **state)
{
	struct ap_ptable pt;

	(void)state;
	/* a GPT for 4096-byte sectors read with 512 */
	make_gpt4k();
	read_img(sizeof(img), &pt);
	assert_null(pt.label);
	assert_int_equal(count(&pt, AP_PT_FOREIGN_SECTOR), 1);
	assert_int_equal(count(&pt, AP_PT_PMBR_NO_GPT), 0);
	assert_true(ap_pt_kind_is_error(AP_PT_FOREIGN_SECTOR));
	assert_string_equal(ap_pt_kind_name(AP_PT_FOREIGN_SECTOR), "foreign_sector_size");
	assert_int_equal(pt.foreign_sector_size, 4096);
	assert_string_equal(pt.foreign_label, "gpt");
	assert_non_null(strstr(pt.issues[0].msg, "written for 4096-byte logical sectors"));
	assert_true(has_evidence(&pt, "a GPT header at byte 4096, LBA 1 of 4096-byte sectors, "
				 "valid, with its backup on the last 4096-byte sector"));
	assert_true(has_evidence(&pt, "the protective MBR covers the disk in 4096-byte sectors"));
	ap_ptable_free(&pt);

	/* the same read with 4096: a good table, nothing foreign */
	read_img_as(sizeof(img), 4096, &pt);
	assert_string_equal(pt.label, "gpt");
	assert_int_equal(pt.foreign_sector_size, 0);
	assert_int_equal(pt.nparts, 1);
	assert_int_equal(pt.parts[0].start, 16);
	ap_ptable_free(&pt);

	/* its header CRC broken: still a GPT for 4096, said so */
	make_gpt4k();
	img[4096 + 60] ^= 0xff;
	read_img(sizeof(img), &pt);
	assert_int_equal(pt.foreign_sector_size, 4096);
	assert_true(has_evidence(&pt, "its header CRC does not match"));
	ap_ptable_free(&pt);

	/* without the protective MBR */
	make_gpt4k();
	memset(img, 0, 512);
	read_img(sizeof(img), &pt);
	assert_int_equal(count(&pt, AP_PT_FOREIGN_SECTOR), 1);
	assert_int_equal(count(&pt, AP_PT_NO_TABLE), 0);
	ap_ptable_free(&pt);

	/* a GPT for 512-byte sectors read with 4096 */
	make_gpt();
	read_img_as(sizeof(img), 4096, &pt);
	assert_int_equal(pt.foreign_sector_size, 512);
	assert_true(has_evidence(&pt, "a GPT header at byte 512, LBA 1 of 512-byte sectors"));
	ap_ptable_free(&pt);

	/* a GPT for 1024-byte sectors (header at byte 1024), read with 512 */
	memset(img, 0, sizeof(img));
	mbr_entry(0, 0xee, 1, 1023);
	memcpy(img + 1024, "EFI PART", 8);
	read_img(sizeof(img), &pt);
	assert_int_equal(pt.foreign_sector_size, 1024);
	ap_ptable_free(&pt);
}

static void test_foreign_mbr(void **state)
{
	struct ap_ptable pt;

	(void)state;
	/* written with 4096-byte sectors: partition 1 at 1 MiB (LBA 256), read with 512 */
	memset(img, 0, sizeof(img));
	mbr_entry(0, 0x83, 256, 100);
	read_img(sizeof(img) * 4, &pt);
	assert_string_equal(pt.label, "dos");
	assert_int_equal(pt.foreign_sector_size, 4096);
	assert_string_equal(pt.foreign_label, "dos");
	assert_int_equal(count(&pt, AP_PT_FOREIGN_SECTOR), 1);
	assert_true(has_evidence(&pt, "partition 1 starts at sector 256: at 1 MiB in 4096-byte "
				 "sectors"));
	ap_ptable_free(&pt);
	/* read with 4096 it is right */
	read_img_as(sizeof(img) * 4, 4096, &pt);
	assert_int_equal(pt.foreign_sector_size, 0);
	assert_int_equal(pt.nissues, 0);
	ap_ptable_free(&pt);

	/* ... unless a file system (swap here) sits where 512-byte sectors put it */
	swap_signature(256 * 512);
	read_img(sizeof(img) * 4, &pt);
	assert_int_equal(pt.foreign_sector_size, 0);
	assert_int_equal(pt.nissues, 0);
	ap_ptable_free(&pt);

	/* a signature where 4096-byte sectors put partition 1 (at 64 KiB) */
	memset(img, 0, sizeof(img));
	mbr_entry(0, 0x82, 16, 32);
	swap_signature(16 * 4096);
	read_img(sizeof(img), &pt);
	assert_int_equal(pt.foreign_sector_size, 4096);
	assert_true(has_evidence(&pt, "libblkid finds swap at byte 65536, where partition 1 "
				 "starts in 4096-byte sectors (nothing at byte 8192"));
	ap_ptable_free(&pt);

	/* the entries fill the disk in 4096-byte sectors */
	memset(img, 0, sizeof(img));
	mbr_entry(0, 0x83, 512, 1024 - 512);	/* 2 MiB to the end of 4 MiB */
	read_img(sizeof(img) * 4, &pt);
	assert_int_equal(pt.foreign_sector_size, 4096);
	assert_true(has_evidence(&pt, "within 1 MiB of the end of the disk"));
	ap_ptable_free(&pt);

	/* an EBR where 4096-byte sectors put the extended partition */
	memset(img, 0, sizeof(img));
	mbr_entry(0, 0x83, 8, 8);
	mbr_entry(1, 0x05, 64, 64);
	img[64 * 4096 + 446 + 4] = 0x83;
	put_le32(img + 64 * 4096 + 446 + 8, 1);
	put_le32(img + 64 * 4096 + 446 + 12, 16);
	img[64 * 4096 + 510] = 0x55;
	img[64 * 4096 + 511] = 0xaa;
	read_img(sizeof(img), &pt);
	assert_int_equal(pt.foreign_sector_size, 4096);
	assert_true(has_evidence(&pt, "an EBR (the table of the logical partitions) at byte "
				 "262144, where extended partition 2 starts in 4096-byte sectors"));
	ap_ptable_free(&pt);
	/* read with 4096, the logical partition is found and nothing is foreign */
	read_img_as(sizeof(img), 4096, &pt);
	assert_int_equal(pt.foreign_sector_size, 0);
	assert_non_null(ap_ptable_part(&pt, 4));
	ap_ptable_free(&pt);

	/* written with 512-byte sectors, read with 4096: past the end there only */
	memset(img, 0, sizeof(img));
	mbr_entry(0, 0x83, 1024, 1000);
	read_img_as(sizeof(img), 4096, &pt);
	assert_int_equal(pt.foreign_sector_size, 512);
	assert_true(has_evidence(&pt, "ends past the end of the disk in 4096-byte sectors, but "
				 "every partition lies inside it in 512-byte ones"));
	/* the foreign sector size explains it: no truncation is claimed */
	assert_int_equal(count(&pt, AP_PT_PAST_END), 0);
	ap_ptable_free(&pt);

	/* a 4Kn table from a script's start=2048 (8 MiB): 1 MiB in 512-byte
	 * sectors, but nothing else says it was written for them */
	memset(img, 0, sizeof(img));
	mbr_entry(0, 0x83, 2048, 100);
	read_img_as(sizeof(img) * 16, 4096, &pt);
	assert_int_equal(pt.foreign_sector_size, 0);
	assert_int_equal(pt.nissues, 0);
	ap_ptable_free(&pt);

	/* ordinary tables are not foreign: DOS-era 63, 1 MiB in 512-byte sectors */
	memset(img, 0, sizeof(img));
	mbr_entry(0, 0x83, 63, 1000);
	read_img(sizeof(img), &pt);
	assert_int_equal(pt.foreign_sector_size, 0);
	ap_ptable_free(&pt);
	memset(img, 0, sizeof(img));
	mbr_entry(0, 0x83, 2047, 1);
	read_img(sizeof(img), &pt);
	assert_int_equal(pt.foreign_sector_size, 0);
	ap_ptable_free(&pt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32),
		cmocka_unit_test(test_validate_clean),
		cmocka_unit_test(test_validate_overlap),
		cmocka_unit_test(test_validate_past_end),
		cmocka_unit_test(test_validate_outside_usable),
		cmocka_unit_test(test_validate_extended),
		cmocka_unit_test(test_part_nr),
		cmocka_unit_test(test_bsd_slice_type),
		cmocka_unit_test(test_validate_nested),
		cmocka_unit_test(test_validate_bad_extent),
		cmocka_unit_test(test_issue_cap),
		cmocka_unit_test(test_read_gpt),
		cmocka_unit_test(test_read_gpt_corrupt_primary),
		cmocka_unit_test(test_read_gpt_corrupt_backup),
		cmocka_unit_test(test_read_gpt_mismatch),
		cmocka_unit_test(test_read_gpt_truncated),
		cmocka_unit_test(test_read_pmbr_without_gpt),
		cmocka_unit_test(test_read_mbr),
		cmocka_unit_test(test_read_small_and_empty),
		cmocka_unit_test(test_read_4k_image),
		cmocka_unit_test(test_foreign_gpt),
		cmocka_unit_test(test_foreign_mbr),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
