// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What to run next: the moves (forward, back, none), the PV offset, the
 * file system steps for the unit, partition device names, the shell text
 * and the JSON.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "device/nextsteps.h"
#include "lib/levels.h"

/* The step whose argv[0] is @tool and that has @word, or NULL. */
static const struct ap_next_step *find(const struct ap_next_steps *s, const char *tool,
				       const char *word)
{
	size_t i, k;

	for (i = 0; i < s->n; i++) {
		if (strcmp(s->v[i].argv[0], tool) != 0)
			continue;
		for (k = 0; s->v[i].argv[k]; k++)
			if (!word || strcmp(s->v[i].argv[k], word) == 0)
				return &s->v[i];
	}
	return NULL;
}

static void test_partition_device(void **state)
{
	char *p;

	(void)state;
	p = ap_next_partition_device("/dev/sdb", 1);
	assert_string_equal(p, "/dev/sdb1");
	free(p);
	p = ap_next_partition_device("/dev/nvme0n1", 2);
	assert_string_equal(p, "/dev/nvme0n1p2");
	free(p);
	p = ap_next_partition_device("/dev/loop7", 3);
	assert_string_equal(p, "/dev/loop7p3");
	free(p);
}

static void test_moves(void **state)
{
	struct ap_next_geometry g = { .disk = "/dev/sdb", .is_blockdev = true, .logical = 512,
				      .unit = 4096, .lowest_aligned = 0 };
	struct ap_next_steps s;
	const struct ap_next_step *st;
	char *sh;

	(void)state;
	/* room after it: forward to the next aligned start, the size kept */
	ap_next_steps_init(&s);
	ap_next_steps_partition(&s, &g, 1, 63, 1000, 34, 100000);
	st = find(&s, "sfdisk", NULL);
	assert_non_null(st);
	assert_string_equal(st->input, "64,1000\n");
	assert_string_equal(st->argv[2], "/dev/sdb");
	assert_string_equal(st->argv[4], "1");
	assert_true(st->rewrites);
	assert_int_equal(st->partition, 1);
	sh = ap_next_step_shell(st);
	assert_string_equal(sh, "printf '64,1000\\n' | sfdisk --move-data /dev/sdb -N 1");
	free(sh);
	/* the PV where it stands: offset 1 sector */
	st = find(&s, "pvcreate", "--dataalignmentoffset");
	assert_non_null(st);
	assert_string_equal(st->argv[2], "4096b");
	assert_string_equal(st->argv[4], "512b");
	assert_string_equal(st->argv[5], "/dev/sdb1");
	/* the unit's file systems; no XFS on 1000 sectors, which mkfs.xfs refuses */
	assert_non_null(find(&s, "zpool", "ashift=12"));
	assert_null(find(&s, "mkfs.xfs", NULL));
	assert_non_null(find(&s, "pvcreate", "4k"));
	ap_next_steps_free(&s);
	/* 300 MiB and more: XFS too */
	ap_next_steps_partition(&s, &g, 1, 63, 614400, 34, 1000000);
	assert_non_null(find(&s, "mkfs.xfs", "size=4096"));
	ap_next_steps_free(&s);
	ap_next_steps_partition(&s, &g, 1, 63, 614399, 34, 1000000);
	assert_null(find(&s, "mkfs.xfs", NULL));
	ap_next_steps_free(&s);

	/* no room after it, a MiB free before it: back */
	ap_next_steps_partition(&s, &g, 2, 4097, 1000, 2048, 5000);
	st = find(&s, "sfdisk", NULL);
	assert_non_null(st);
	assert_string_equal(st->input, "4096,1000\n");
	ap_next_steps_free(&s);
	/* no room after it, less than a MiB before it: no move (libfdisk would refuse) */
	ap_next_steps_partition(&s, &g, 2, 2049, 1000, 2048, 3000);
	assert_null(find(&s, "sfdisk", NULL));
	assert_non_null(find(&s, "pvcreate", "--dataalignmentoffset"));
	ap_next_steps_free(&s);
	/* aligned already: nothing */
	ap_next_steps_partition(&s, &g, 1, 2048, 1000, 34, 100000);
	assert_int_equal(s.n, 0);
	/* a lowest aligned LBA of 7 (4096 bytes): 2048 moves to 2055 */
	g.lowest_aligned = 7;
	ap_next_steps_partition(&s, &g, 1, 2048, 1000, 34, 100000);
	assert_string_equal(find(&s, "sfdisk", NULL)->input, "2055,1000\n");
	assert_string_equal(find(&s, "pvcreate", "--dataalignmentoffset")->argv[4], "3584b");
	ap_next_steps_free(&s);
	/* an image: the move, no partition devices */
	g.is_blockdev = false;
	g.disk = "disk image.img";
	ap_next_steps_partition(&s, &g, 1, 2048, 1000, 34, 100000);
	assert_int_equal(s.n, 1);
	sh = ap_next_step_shell(&s.v[0]);
	assert_string_equal(sh, "printf '2055,1000\\n' | sfdisk --move-data 'disk image.img' -N 1");
	free(sh);
	ap_next_steps_free(&s);
}

static void test_disk(void **state)
{
	struct ap_next_geometry g = { .disk = "/dev/sdc", .is_blockdev = true, .logical = 512,
				      .unit = 8192, .lowest_aligned = 0 };
	struct ap_next_steps s;
	struct json_object *a, *o, *x;
	const struct ap_next_step *st;

	(void)state;
	ap_next_steps_init(&s);
	ap_next_steps_disk(&s, &g);
	st = find(&s, "parted", NULL);
	assert_non_null(st);
	assert_string_equal(st->argv[9], "2048s");
	assert_int_equal(st->partition, 0);
	assert_non_null(find(&s, "zpool", "ashift=13"));
	assert_non_null(find(&s, "mkfs.xfs", "size=8192"));
	assert_non_null(find(&s, "pvcreate", "8k"));
	a = ap_next_steps_to_json(&s);
	assert_int_equal(json_object_array_length(a), s.n);
	o = json_object_array_get_idx(a, 0);
	assert_true(json_object_object_get_ex(o, "command", &x));
	assert_string_equal(json_object_get_string(json_object_array_get_idx(x, 0)), "parted");
	assert_true(json_object_object_get_ex(o, "partition", &x));
	assert_null(x);
	assert_true(json_object_object_get_ex(o, "stdin", &x));
	assert_null(x);
	json_object_put(a);
	ap_next_steps_free(&s);
	/* 64 KiB: no XFS step (its sectors stop at 32 KiB); LBA 7 of 4 KiB: 2055 */
	g.unit = 65536;
	ap_next_steps_disk(&s, &g);
	assert_null(find(&s, "mkfs.xfs", NULL));
	ap_next_steps_free(&s);
	g.unit = 4096;
	g.lowest_aligned = 7;
	ap_next_steps_disk(&s, &g);
	assert_string_equal(find(&s, "parted", NULL)->argv[9], "2055s");
	/* byte 0 is not aligned: nothing on the whole disk but an offset PV */
	for (size_t i = 0; i < s.n; i++) {
		size_t k = 0;

		while (s.v[i].argv[k + 1])
			k++;
		if (strcmp(s.v[i].argv[k], "/dev/sdc") == 0 && strcmp(s.v[i].argv[0], "parted") &&
		    strcmp(s.v[i].argv[k - 1], "3584b") != 0)
			fail_msg("a whole-disk step on a disk whose byte 0 is misaligned: %s",
				 s.v[i].argv[0]);
	}
	st = find(&s, "pvcreate", "--dataalignmentoffset");
	assert_non_null(st);
	assert_string_equal(st->argv[4], "3584b");
	assert_string_equal(st->argv[5], "/dev/sdc");
	assert_string_equal(find(&s, "mkfs.xfs", NULL)->argv[3], "/dev/sdc1");
	assert_string_equal(find(&s, "zpool", NULL)->argv[5], "/dev/sdc1");
	ap_next_steps_free(&s);
	/* an honest drive: nothing but the partition */
	g.unit = 512;
	g.lowest_aligned = 0;
	ap_next_steps_disk(&s, &g);
	assert_int_equal(s.n, 1);
	ap_next_steps_free(&s);
}

/* A 192 KiB stripe of three 64 KiB chunks over 4096-byte sectors. */
static void test_stripe(void **state)
{
	struct ap_levels ls = { .n = 0 };
	struct ap_level l[] = {
		{ .kind = AP_LEVEL_SECTOR, .unit = 4096 },
		{ .kind = AP_LEVEL_CHUNK, .unit = 65536 },
		{ .kind = AP_LEVEL_STRIPE, .unit = 196608 },
	};
	struct ap_next_geometry g = { .disk = "/dev/md0", .is_blockdev = true, .logical = 512,
				      .unit = 4096, .levels = &ls, .nsectors = 8 << 20 };
	struct ap_next_steps s;
	const struct ap_next_step *st;
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++)
		assert_int_equal(ap_levels_add(&ls, 512, &l[i], false, NULL), 0);
	ap_next_steps_init(&s);
	ap_next_steps_disk(&s, &g);
	assert_string_equal(find(&s, "parted", NULL)->argv[9], "6144s");
	st = find(&s, "mkfs.xfs", NULL);
	assert_non_null(st);
	assert_string_equal(st->argv[4], "su=64k,sw=3");	/* 4 GiB: no agcount */
	assert_non_null(find(&s, "mkfs.ext4", "stride=16,stripe_width=48"));
	assert_non_null(find(&s, "pvcreate", "192k"));
	ap_next_steps_free(&s);
	/* a partition at 1 MiB: forward to 3 MiB; the PV where it stands */
	ap_next_steps_partition(&s, &g, 1, 2048, 700000, 34, 2000000);
	assert_string_equal(find(&s, "sfdisk", NULL)->input, "6144,700000\n");
	st = find(&s, "pvcreate", "--dataalignmentoffset");
	assert_string_equal(st->argv[2], "196608b");
	assert_string_equal(st->argv[4], "131072b");
	assert_string_equal(find(&s, "mkfs.xfs", NULL)->argv[4], "su=64k,sw=3,agcount=4");
	ap_next_steps_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_partition_device),
		cmocka_unit_test(test_stripe),
		cmocka_unit_test(test_moves),
		cmocka_unit_test(test_disk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
