// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Output files: nothing at the target before the commit, an existing file
 * untouched until then (and after a discard), atomic replacement, special
 * files written directly, block devices refused, no temporary file left.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/outfile.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_outfile.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static char *in_dir(const char *name)
{
	static char p[2][128];
	static int k;

	k ^= 1;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

/* Entries of the directory, hidden ones (temporary files) included. */
static int entries(void)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
	closedir(d);
	return n;
}

static const char *content(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void put(const char *path, const char *s, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(s, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

static void test_new_file(void **state)
{
	struct ap_outfile of;
	struct ap_error e = { 0 };
	const char *p = in_dir("new.svg");
	mode_t m = umask(022);
	struct stat st;

	(void)state;
	assert_int_equal(ap_outfile_open(&of, p, &e), 0);
	assert_int_equal(access(p, F_OK), -1);		/* nothing at the target yet */
	assert_int_equal(entries(), 1);			/* the temporary file */
	assert_int_equal(ap_outfile_write(&of, "<svg/>", 6), 0);
	assert_int_equal(ap_outfile_write(&of, "\n", 1), 0);
	assert_int_equal(access(p, F_OK), -1);
	assert_int_equal(ap_outfile_commit(&of, &e), 0);
	assert_string_equal(content(p), "<svg/>\n");
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);	/* 0666 and the umask */
	assert_int_equal(entries(), 1);			/* no temporary file left */
	assert_null(of.path);
	unlink(p);
	umask(m);
}

static void test_existing_file(void **state)
{
	struct ap_outfile of;
	struct ap_error e = { 0 };
	const char *p = in_dir("old.csv");
	struct stat st;

	(void)state;
	put(p, "old\n", 0640);
	/* opened, written, discarded: the old file as it was */
	assert_int_equal(ap_outfile_open(&of, p, &e), 0);
	assert_int_equal(ap_outfile_write(&of, "new\n", 4), 0);
	assert_string_equal(content(p), "old\n");
	ap_outfile_discard(&of);
	assert_string_equal(content(p), "old\n");
	assert_int_equal(entries(), 1);
	/* committed: replaced, with the old file's permissions */
	assert_int_equal(ap_outfile_open(&of, p, &e), 0);
	assert_int_equal(ap_outfile_write(&of, "new\n", 4), 0);
	assert_int_equal(ap_outfile_commit(&of, &e), 0);
	assert_string_equal(content(p), "new\n");
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	/* nothing written: the commit creates or replaces nothing */
	assert_int_equal(ap_outfile_open(&of, p, &e), 0);
	assert_int_equal(ap_outfile_commit(&of, &e), 0);
	assert_string_equal(content(p), "new\n");
	assert_int_equal(entries(), 1);
	unlink(p);
}

static void test_refused(void **state)
{
	struct ap_outfile of;
	struct ap_error e = { 0 };
	struct stat st;
	char blk[300] = "";
	DIR *d;
	struct dirent *de;

	(void)state;
	assert_int_equal(ap_outfile_open(&of, in_dir("missing/x.svg"), &e), -ENOENT);
	assert_non_null(strstr(e.msg, "missing/x.svg: cannot create"));
	assert_int_equal(ap_outfile_open(&of, dir, &e), -EISDIR);
	assert_int_equal(ap_outfile_open(&of, "", &e), -EINVAL);
	assert_int_equal(entries(), 0);
	/* a block device: any will do, it is never opened */
	d = opendir("/dev");
	assert_non_null(d);
	while (!blk[0] && (de = readdir(d))) {
		snprintf(blk, sizeof(blk), "/dev/%s", de->d_name);
		if (stat(blk, &st) != 0 || !S_ISBLK(st.st_mode))
			blk[0] = '\0';
	}
	closedir(d);
	if (blk[0]) {
		assert_int_equal(ap_outfile_open(&of, blk, &e), -EPERM);
		assert_non_null(strstr(e.msg, "is a block device"));
		assert_int_equal(ap_outfile_check(blk, false, &e), -EPERM);
	}
}

static void test_special_files(void **state)
{
	struct ap_outfile of;
	struct ap_error e = { 0 };
	const char *fifo = in_dir("fifo");
	char buf[16] = "";
	struct stat st;
	int rfd;

	(void)state;
	/* a character device: written directly, never replaced */
	assert_int_equal(ap_outfile_open(&of, "/dev/null", &e), 0);
	assert_null(of.tmp);
	assert_int_equal(ap_outfile_write(&of, "x", 1), 0);
	assert_int_equal(ap_outfile_commit(&of, &e), 0);
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	/* a FIFO: what is written arrives there */
	assert_int_equal(mkfifo(fifo, 0600), 0);
	rfd = open(fifo, O_RDONLY | O_NONBLOCK);
	assert_true(rfd >= 0);
	assert_int_equal(ap_outfile_open(&of, fifo, &e), 0);
	assert_int_equal(ap_outfile_replace(&of, "1\n", 2, &e), 0);	/* only the last */
	assert_int_equal(ap_outfile_replace(&of, "22\n", 3, &e), 0);
	assert_int_equal(read(rfd, buf, sizeof(buf)), -1);		/* nothing yet */
	assert_int_equal(ap_outfile_commit(&of, &e), 0);
	assert_int_equal(read(rfd, buf, sizeof(buf)), 3);
	assert_memory_equal(buf, "22\n", 3);
	close(rfd);
	assert_int_equal(stat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	unlink(fifo);
	/* standard output */
	assert_int_equal(ap_outfile_open(&of, "-", &e), 0);
	assert_true(of.is_stdout);
	ap_outfile_discard(&of);
}

static void test_symlink(void **state)
{
	struct ap_outfile of;
	struct ap_error e = { 0 };
	const char *target = in_dir("target.json"), *link = in_dir("link.json");
	struct stat st;

	(void)state;
	put(target, "old\n", 0644);
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(ap_outfile_open(&of, link, &e), 0);
	assert_int_equal(ap_outfile_write(&of, "new\n", 4), 0);
	assert_int_equal(ap_outfile_commit(&of, &e), 0);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));		/* the link stays */
	assert_string_equal(content(target), "new\n");	/* its file is replaced */
	unlink(link);
	unlink(target);
}

static void test_replace(void **state)
{
	struct ap_outfile of;
	struct ap_error e = { 0 };
	const char *p = in_dir("save.json");

	(void)state;
	put(p, "old\n", 0644);
	assert_int_equal(ap_outfile_open(&of, p, &e), 0);
	assert_string_equal(content(p), "old\n");
	assert_int_equal(ap_outfile_replace(&of, "1\n", 2, &e), 0);
	assert_string_equal(content(p), "1\n");
	assert_int_equal(ap_outfile_replace(&of, "22\n", 3, &e), 0);
	assert_string_equal(content(p), "22\n");
	assert_int_equal(entries(), 2);			/* the next temporary file */
	assert_int_equal(ap_outfile_commit(&of, &e), 0);
	assert_string_equal(content(p), "22\n");
	assert_int_equal(entries(), 1);
	unlink(p);
}

static void test_rename(void **state)
{
	struct ap_outfile of;
	struct ap_error e = { 0 };

	(void)state;
	assert_int_equal(ap_outfile_open(&of, in_dir("plot-emulated-0.svg"), &e), 0);
	assert_int_equal(ap_outfile_rename(&of, "/elsewhere/plot-loop7.svg", &e), -EXDEV);
	assert_int_equal(ap_outfile_rename(&of, in_dir("plot-loop7.svg"), &e), 0);
	assert_int_equal(ap_outfile_write(&of, "x", 1), 0);
	assert_int_equal(ap_outfile_commit(&of, &e), 0);
	assert_string_equal(content(in_dir("plot-loop7.svg")), "x");
	assert_int_equal(access(in_dir("plot-emulated-0.svg"), F_OK), -1);
	unlink(in_dir("plot-loop7.svg"));
}

static void test_is(void **state)
{
	struct ap_outfile of;
	struct ap_error e = { 0 };
	const char *p = in_dir("t.img");
	char rel[160];

	(void)state;
	assert_int_equal(ap_outfile_open(&of, p, &e), 0);
	snprintf(rel, sizeof(rel), "%s/../%s/t.img", dir, strrchr(dir, '/') + 1);
	assert_true(ap_outfile_is(&of, rel));		/* neither exists: by name */
	assert_false(ap_outfile_is(&of, in_dir("u.img")));
	ap_outfile_discard(&of);
	put(p, "x", 0644);
	assert_int_equal(ap_outfile_open(&of, p, &e), 0);
	assert_true(ap_outfile_is(&of, rel));		/* the same inode */
	ap_outfile_discard(&of);
	unlink(p);
}

static void test_check(void **state)
{
	struct ap_error e = { 0 };
	const char *p = in_dir("undo.journal");

	(void)state;
	assert_int_equal(ap_outfile_check(p, true, &e), 0);
	assert_int_equal(entries(), 0);			/* proven, nothing left */
	assert_int_equal(ap_outfile_check(in_dir("no/undo.journal"), true, &e), -ENOENT);
	put(p, "x", 0644);
	assert_int_equal(ap_outfile_check(p, false, &e), 0);
	assert_string_equal(content(p), "x");		/* opened, not truncated */
	assert_int_equal(ap_outfile_check(p, true, &e), -EEXIST);
	assert_int_equal(ap_outfile_check(dir, false, &e), -EISDIR);
	unlink(p);
	/* a directory to create files in */
	assert_int_equal(ap_outfile_check_dir(dir, &e), 0);
	assert_int_equal(entries(), 0);
	assert_int_equal(ap_outfile_check_dir(in_dir("no"), &e), -ENOENT);
	assert_non_null(strstr(e.msg, "cannot create files there"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_file),
		cmocka_unit_test(test_existing_file),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_special_files),
		cmocka_unit_test(test_symlink),
		cmocka_unit_test(test_replace),
		cmocka_unit_test(test_rename),
		cmocka_unit_test(test_is),
		cmocka_unit_test(test_check),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
