// SPDX-License-Identifier: GPL-2.0-or-later
/* The message form and the errno -> exit status mapping of src/cmd/common.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "lib/exitcodes.h"
#include "lib/util.h"
#include "ui/out.h"

static void test_exit_for_errno(void **state)
{
	(void)state;
	/* bad input, both signs */
	assert_int_equal(ap_exit_for_errno(ENOENT), AP_EXIT_USAGE);
	assert_int_equal(ap_exit_for_errno(-ENOENT), AP_EXIT_USAGE);
	assert_int_equal(ap_exit_for_errno(-ENOTBLK), AP_EXIT_USAGE);
	assert_int_equal(ap_exit_for_errno(-EISDIR), AP_EXIT_USAGE);
	assert_int_equal(ap_exit_for_errno(-ENOSPC), AP_EXIT_USAGE);
	assert_int_equal(ap_exit_for_errno(-EINVAL), AP_EXIT_USAGE);
	assert_int_equal(ap_exit_for_errno(-ENODEV), AP_EXIT_USAGE);
	/* refused for safety */
	assert_int_equal(ap_exit_for_errno(-EBUSY), AP_EXIT_REFUSED);
	assert_int_equal(ap_exit_for_errno(-EPERM), AP_EXIT_REFUSED);
	assert_int_equal(ap_exit_for_errno(-EROFS), AP_EXIT_REFUSED);
	assert_int_equal(ap_exit_for_errno(-ECANCELED), AP_EXIT_REFUSED);
	/* not built */
	assert_int_equal(ap_exit_for_errno(-ENOTSUP), AP_EXIT_NOTBUILT);
	assert_int_equal(ap_exit_for_errno(-EOPNOTSUPP), AP_EXIT_NOTBUILT);
	/* the rest: runtime failures */
	assert_int_equal(ap_exit_for_errno(-EIO), AP_EXIT_FAILURE);
	assert_int_equal(ap_exit_for_errno(-ENOMEM), AP_EXIT_FAILURE);
	assert_int_equal(ap_exit_for_errno(0), AP_EXIT_FAILURE);
}

/* what ap_warnx() & co. print, captured from stderr */
static char *capture(void (*fn)(void))
{
	static char buf[4096];
	char path[] = "/tmp/test_cmdutil.XXXXXX";
	int fd = mkstemp(path), saved = dup(STDERR_FILENO);
	ssize_t n;

	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	dup2(fd, STDERR_FILENO);
	fn();
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(path);
	return buf;
}

static void say_thing(void) { ap_warnx("probe", "/dev/x", "busy"); }
static void say_doubled(void) { ap_warnx("probe", "/dev/x", "%s: busy", "/dev/x"); }
static void say_prefix_only(void) { ap_warnx("probe", "/dev/x", "/dev/xy: busy"); }
static void say_file_line(void) { ap_warnx("postmark", "c.pm", "c.pm:6: unknown command"); }
static void say_nothing(void) { ap_warnx("seq", NULL, "no TARGET given"); }
static void say_top(void) { ap_warnx(NULL, NULL, "unknown command"); }
static void say_usage(void) { ap_usage_error("sweep", "bad --size"); }

static void test_form(void **state)
{
	(void)state;
	assert_string_equal(capture(say_thing), "alignprobe probe: /dev/x: busy\n");
	assert_string_equal(capture(say_doubled), "alignprobe probe: /dev/x: busy\n");
	assert_string_equal(capture(say_prefix_only), "alignprobe probe: /dev/x: /dev/xy: busy\n");
	assert_string_equal(capture(say_file_line), "alignprobe postmark: c.pm:6: unknown command\n");
	assert_string_equal(capture(say_nothing), "alignprobe seq: no TARGET given\n");
	assert_string_equal(capture(say_top), "alignprobe: unknown command\n");
	assert_string_equal(capture(say_usage), "alignprobe sweep: bad --size\n"
			    "Try 'alignprobe sweep --help' for more information.\n");
}

static int status;
static void say_errx(void) { status = ap_errx("check", "/x", -ENOENT, "%s", strerror(ENOENT)); }
static void say_error(void)
{
	struct ap_error e;

	ap_error_set(&e, EBUSY, "/dev/x: mounted on /mnt");
	status = ap_err_error("sweep", "/dev/x", &e);
}

static void test_errx(void **state)
{
	(void)state;
	assert_string_equal(capture(say_errx), "alignprobe check: /x: No such file or directory\n");
	assert_int_equal(status, AP_EXIT_USAGE);
	assert_string_equal(capture(say_error), "alignprobe sweep: /dev/x: mounted on /mnt\n");
	assert_int_equal(status, AP_EXIT_REFUSED);
}

/* a pipe whose reader went away: not an error, and said so by nobody */
static void test_reader_gone(void **state)
{
	int p[2];
	FILE *f;

	(void)state;
	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(pipe(p), 0);
	f = fdopen(p[1], "w");
	assert_non_null(f);
	assert_false(ap_out_reader_gone(f));
	fputs("line\n", f);
	assert_int_equal(ap_out_flush(f), 0);
	close(p[0]);
	assert_true(ap_out_reader_gone(f));
	fputs("more\n", f);
	assert_int_equal(ap_out_flush(f), 0);
	assert_true(ferror(f));
	fclose(f);

	/* a real write error is one */
	f = fopen("/dev/full", "w");
	if (f) {
		fputs("x\n", f);
		assert_int_equal(ap_out_flush(f), -ENOSPC);
		fclose(f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_for_errno),
		cmocka_unit_test(test_form),
		cmocka_unit_test(test_errx),
		cmocka_unit_test(test_reader_gone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
