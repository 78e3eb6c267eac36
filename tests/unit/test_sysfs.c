// SPDX-License-Identifier: GPL-2.0-or-later
/* src/lib/sysfs.c: the pure parts (mountinfo lines, device numbers, " (deleted)") and attribute trimming. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/sysfs.h"
#include "lib/util.h"

static void test_mountinfo_line(void **state)
{
	struct ap_mountinfo m;

	(void)state;
	assert_int_equal(ap_mountinfo_parse_line("36 35 98:0 /mnt1 /mnt/a\\040b rw,noatime "
						 "master:1 - ext3 /dev/root rw,errors=continue\n",
						 &m), 0);
	assert_true(m.has_devno);
	assert_true(m.devno == makedev(98, 0));
	assert_string_equal(m.target, "/mnt/a b");
	assert_string_equal(m.source, "/dev/root");

	/* btrfs shows 0:NN: the source names the device */
	assert_int_equal(ap_mountinfo_parse_line("40 1 0:45 / /home rw - btrfs "
						 "/dev/loop\\0613 rw", &m), 0);
	assert_true(m.devno == makedev(0, 45));
	assert_string_equal(m.source, "/dev/loop13");

	/* no " - " separator: no source */
	assert_int_equal(ap_mountinfo_parse_line("1 2 8:1 / /x rw", &m), 0);
	assert_string_equal(m.source, "");

	/* a garbled device number is no device number */
	assert_int_equal(ap_mountinfo_parse_line("1 2 x:1 / /x rw - ext4 /dev/sda1 rw", &m), 0);
	assert_false(m.has_devno);

	assert_int_equal(ap_mountinfo_parse_line("1 2 8:1 /", &m), -EINVAL);
	assert_int_equal(ap_mountinfo_parse_line("", &m), -EINVAL);
}

/*
 * Every entry of the live table has an absolute target. Which ones a
 * process sees depends on where it runs: in a chroot whose root is no
 * mount point, "/" is not among them, but /proc (read right now) is.
 */
static int count_mounts(const struct ap_mountinfo *m, void *arg)
{
	if (m->target[0] == '/')
		++*(int *)arg;
	return 0;
}

static int stop_at_first(const struct ap_mountinfo *m, void *arg)
{
	(void)m;
	++*(int *)arg;
	return 7;
}

static void test_mountinfo_foreach(void **state)
{
	int n = 0;

	(void)state;
	if (access("/proc/self/mountinfo", R_OK) != 0)
		skip();
	assert_int_equal(ap_mountinfo_foreach(count_mounts, &n), 0);
	assert_true(n >= 1);
	n = 0;
	assert_int_equal(ap_mountinfo_foreach(stop_at_first, &n), 7);
	assert_int_equal(n, 1);
}

static void test_parse_devno(void **state)
{
	dev_t d = 0;

	(void)state;
	assert_int_equal(ap_sysfs_parse_devno("8:17", &d), 0);
	assert_true(d == makedev(8, 17));
	assert_int_equal(ap_sysfs_parse_devno("259:0", &d), 0);
	assert_true(d == makedev(259, 0));
	assert_int_equal(ap_sysfs_parse_devno("8:17x", &d), -EINVAL);
	assert_int_equal(ap_sysfs_parse_devno("8", &d), -EINVAL);
	assert_int_equal(ap_sysfs_parse_devno("", &d), -EINVAL);
}

static void test_strip_deleted(void **state)
{
	char a[] = "/var/tmp/disk.img (deleted)", b[] = "/var/tmp/disk.img", c[] = " (deleted)";

	(void)state;
	ap_sysfs_strip_deleted(a);
	assert_string_equal(a, "/var/tmp/disk.img");
	ap_sysfs_strip_deleted(b);
	assert_string_equal(b, "/var/tmp/disk.img");
	ap_sysfs_strip_deleted(c);	/* nothing before the suffix: kept */
	assert_string_equal(c, " (deleted)");
}

/* ap_read_line(), what every attribute goes through: first line, blanks trimmed. */
static void test_attribute_trim(void **state)
{
	char path[] = "/tmp/test_sysfs.XXXXXX";
	int fd = mkstemp(path);
	FILE *f;
	char *v;
	uint64_t u = 0;

	(void)state;
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs("WDC WD40EFRX-68N  \t\nsecond line\n", f);
	fclose(f);
	v = ap_read_line(path);
	assert_string_equal(v, "WDC WD40EFRX-68N");
	free(v);

	f = fopen(path, "w");
	fputs("4096\n", f);
	fclose(f);
	assert_int_equal(ap_read_u64(path, &u), 0);
	assert_true(u == 4096);

	f = fopen(path, "w");
	fputs("   \n", f);
	fclose(f);
	assert_null(ap_read_line(path));	/* empty after trimming */
	unlink(path);
	assert_null(ap_read_line(path));
	assert_int_equal(ap_read_u64(path, &u), -ENOENT);
}

static int count_dev(const char *name, dev_t d, void *arg)
{
	(void)name;
	(void)d;
	(*(int *)arg)++;
	return 0;
}

/* A disk or a device the kernel does not have: nothing to walk, no error. */
static void test_foreach_missing(void **state)
{
	int n = 0;

	(void)state;
	assert_int_equal(ap_sysfs_foreach_partition("no-such-disk-ap", count_dev, &n), 0);
	assert_int_equal(ap_sysfs_foreach_slave(makedev(0, 0), count_dev, &n), 0);
	assert_int_equal(n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mountinfo_line),
		cmocka_unit_test(test_mountinfo_foreach),
		cmocka_unit_test(test_parse_devno),
		cmocka_unit_test(test_strip_deleted),
		cmocka_unit_test(test_attribute_trim),
		cmocka_unit_test(test_foreach_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
