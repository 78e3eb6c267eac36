// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/util.h"
#include "ui/progress.h"

#define S(x) ((uint64_t)(x) * AP_NSEC_PER_SEC)

static void test_format_eta(void **state)
{
	char buf[32];

	(void)state;
	ap_format_duration(0, buf, sizeof(buf));
	assert_string_equal(buf, "0s");
	ap_format_duration(S(42), buf, sizeof(buf));
	assert_string_equal(buf, "42s");
	ap_format_duration(S(59) + AP_NSEC_PER_SEC / 2 - 1, buf, sizeof(buf));
	assert_string_equal(buf, "59s");
	ap_format_duration(S(59) + AP_NSEC_PER_SEC / 2, buf, sizeof(buf));	/* rounds */
	assert_string_equal(buf, "1m00s");
	ap_format_duration(S(185), buf, sizeof(buf));
	assert_string_equal(buf, "3m05s");
	ap_format_duration(S(3599), buf, sizeof(buf));
	assert_string_equal(buf, "59m59s");
	ap_format_duration(S(3600), buf, sizeof(buf));
	assert_string_equal(buf, "1h00m");
	ap_format_duration(S(3720), buf, sizeof(buf));
	assert_string_equal(buf, "1h02m");
	ap_format_duration(S(100) * 3600, buf, sizeof(buf));
	assert_string_equal(buf, "100h00m");
	ap_format_duration(UINT64_MAX, buf, sizeof(buf));
	assert_string_equal(buf, "5124095h34m");
	ap_format_duration(S(3720), buf, 4);	/* truncated, terminated */
	assert_string_equal(buf, "1h0");
}

static void test_format_line(void **state)
{
	struct ap_progress p = { .what = "sweep /dev/loop3", .total = 10, .t0_ns = S(100) };
	char buf[128];
	int n;

	(void)state;
	/* no ETA before the first step or before a second has passed */
	n = ap_progress_format_line(&p, 0, NULL, S(200), buf, sizeof(buf));
	assert_string_equal(buf, "sweep /dev/loop3: 0 of 10");
	assert_int_equal(n, (int)strlen(buf));
	ap_progress_format_line(&p, 2, "start 35", S(100) + AP_NSEC_PER_SEC / 2, buf, sizeof(buf));
	assert_string_equal(buf, "sweep /dev/loop3: 2 of 10, start 35");
	/* 2 of 10 in 10 s: 40 s to go */
	ap_progress_format_line(&p, 2, "start 35, round 1 of 3", S(110), buf, sizeof(buf));
	assert_string_equal(buf, "sweep /dev/loop3: 2 of 10, start 35, round 1 of 3, ETA 40s");
	ap_progress_format_line(&p, 1, "", S(200), buf, sizeof(buf));
	assert_string_equal(buf, "sweep /dev/loop3: 1 of 10, ETA 15m00s");
	/* done: no ETA */
	ap_progress_format_line(&p, 10, NULL, S(200), buf, sizeof(buf));
	assert_string_equal(buf, "sweep /dev/loop3: 10 of 10");
	/* unknown total */
	p.total = 0;
	ap_progress_format_line(&p, 7, "x", S(200), buf, sizeof(buf));
	assert_string_equal(buf, "sweep /dev/loop3: 7, x");
	/* truncation returns the stored length */
	n = ap_progress_format_line(&p, 7, "x", S(200), buf, 8);
	assert_int_equal(n, 7);
	assert_string_equal(buf, "sweep /");
}

/* Run @fn with stderr redirected to a temporary file; return what it wrote. */
static char *capture_stderr(void (*fn)(void *), void *arg)
{
	FILE *f = tmpfile();
	int saved = dup(STDERR_FILENO);
	char *out = calloc(1, 4096);
	size_t n;

	assert_non_null(f);
	assert_non_null(out);
	fflush(stderr);
	assert_true(dup2(fileno(f), STDERR_FILENO) >= 0);
	fn(arg);
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	rewind(f);
	n = fread(out, 1, 4095, f);
	out[n] = '\0';
	fclose(f);
	return out;
}

static void run_not_tty(void *arg)
{
	struct ap_progress p;

	(void)arg;
	/* stderr is a file here: disabled without --quiet too */
	ap_progress_init(&p, "seq", 3, false);
	assert_false(p.enabled);
	ap_progress_update(&p, 1, "a");
	ap_progress_update(&p, 3, "b");
	ap_progress_clear(&p);
	assert_int_equal(p.done, 3);
}

static void run_enabled(void *arg)
{
	struct ap_progress p;

	(void)arg;
	ap_progress_init(&p, "probe", 3, true);
	assert_false(p.enabled);	/* --quiet */
	p.enabled = true;		/* as on a terminal */
	ap_progress_update_at(&p, 1, "offset 7", p.t0_ns);
	ap_progress_update_at(&p, 2, NULL, p.t0_ns + S(1) / 10 - 1);	/* within 0.1 s: skipped */
	ap_progress_update_at(&p, 3, NULL, p.t0_ns + S(1) / 10 - 1);	/* the last step: shown */
	ap_progress_clear(&p);
}

static void run_spaced(void *arg)
{
	struct ap_progress p;

	(void)arg;
	ap_progress_init(&p, "seq", 0, false);
	p.enabled = true;
	ap_progress_update_at(&p, 1, NULL, p.t0_ns);
	ap_progress_update_at(&p, 2, NULL, p.t0_ns + S(1) / 10);	/* 0.1 s later: shown */
	p.width = 0;
}

static void test_output(void **state)
{
	char *out;

	(void)state;
	out = capture_stderr(run_not_tty, NULL);
	assert_string_equal(out, "");
	free(out);

	out = capture_stderr(run_enabled, NULL);
	/* one line rewritten in place: no newline at all */
	assert_null(strchr(out, '\n'));
	assert_string_equal(out,
		"\rprobe: 1 of 3, offset 7"
		"\rprobe: 3 of 3          \rprobe: 3 of 3"
		"\r             \r");
	free(out);

	out = capture_stderr(run_spaced, NULL);
	assert_string_equal(out, "\rseq: 1\rseq: 2");
	free(out);
}

/* ALIGNPROBE_PROGRESS_FD: every update, one line each, --quiet or not, no ETA. */
static void test_progress_fd(void **state)
{
	struct ap_progress p;
	char buf[512], env[16];
	ssize_t n;
	int fds[2];

	(void)state;
	assert_int_equal(pipe(fds), 0);
	snprintf(env, sizeof(env), "%d", fds[1]);
	setenv("ALIGNPROBE_PROGRESS_FD", env, 1);
	ap_progress_init(&p, "sweep /dev/loop3", 10, true);
	assert_int_equal(p.fd, fds[1]);
	ap_progress_update_at(&p, 0, "start 40 (1 of 10), round 1", p.t0_ns);
	ap_progress_update_at(&p, 1, NULL, p.t0_ns + 1);		/* not rate-limited */
	ap_progress_update_at(&p, 2, "start 35", p.t0_ns + S(5));	/* no ETA */
	n = read(fds[0], buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf, "sweep /dev/loop3: 0 of 10, start 40 (1 of 10), round 1\n"
				 "sweep /dev/loop3: 1 of 10\n"
				 "sweep /dev/loop3: 2 of 10, start 35\n");
	/* not a usable descriptor: off */
	setenv("ALIGNPROBE_PROGRESS_FD", "2", 1);
	ap_progress_init(&p, "x", 0, true);
	assert_int_equal(p.fd, -1);
	close(fds[1]);
	setenv("ALIGNPROBE_PROGRESS_FD", env, 1);
	ap_progress_init(&p, "x", 0, true);
	assert_int_equal(p.fd, -1);
	setenv("ALIGNPROBE_PROGRESS_FD", "3x", 1);
	ap_progress_init(&p, "x", 0, true);
	assert_int_equal(p.fd, -1);
	unsetenv("ALIGNPROBE_PROGRESS_FD");
	close(fds[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_eta),
		cmocka_unit_test(test_format_line),
		cmocka_unit_test(test_output),
		cmocka_unit_test(test_progress_fd),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
