// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "state.h"
#include "util.h"

static char dir[] = "/tmp/ap-state-test.XXXXXX";

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	setenv("ALIGNPROBE_STATE_DIR", dir, 1);
	return 0;
}

static int teardown(void **state)
{
	char *cmd;

	(void)state;
	ap_xasprintf(&cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	free(cmd);
	return 0;
}

static void test_register_list_release(void **state)
{
	struct ap_state_entry *e;
	char *id1, *id2;
	size_t n, i;
	int seen_mount = 0, seen_emu = 0;

	(void)state;
	assert_int_equal(ap_state_register(AP_STATE_MOUNT, "/tmp/m1", "/dev/loop9p1", NULL, &id1), 0);
	assert_int_equal(ap_state_register(AP_STATE_EMU, "/tmp/f", "/dev/loop9", "1234", &id2), 0);
	assert_int_equal(ap_state_list(&e, &n), 0);
	assert_int_equal(n, 2);
	for (i = 0; i < n; i++) {
		assert_int_equal(e[i].owner, getpid());
		assert_false(ap_state_is_stale(&e[i]));
		if (e[i].kind == AP_STATE_MOUNT) {
			seen_mount++;
			assert_string_equal(e[i].path, "/tmp/m1");
			assert_string_equal(e[i].dev, "/dev/loop9p1");
			assert_null(e[i].aux);
		} else if (e[i].kind == AP_STATE_EMU) {
			seen_emu++;
			assert_string_equal(e[i].aux, "1234");
		}
	}
	assert_int_equal(seen_mount, 1);
	assert_int_equal(seen_emu, 1);
	ap_state_free(e, n);

	assert_int_equal(ap_state_release(id1), 0);
	assert_int_equal(ap_state_release(id1), 0);	/* idempotent */
	assert_int_equal(ap_state_list(&e, &n), 0);
	assert_int_equal(n, 1);
	ap_state_free(e, n);
	assert_int_equal(ap_state_release(id2), 0);
	free(id1);
	free(id2);
}

static void test_stale_owner(void **state)
{
	struct ap_state_entry *e;
	size_t n;
	int status;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(ap_state_register(AP_STATE_TMPDIR, "/tmp/x", NULL, NULL, NULL) ? 1 : 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(ap_state_list(&e, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(e[0].owner, pid);
	assert_true(ap_state_is_stale(&e[0]));
	assert_int_equal(ap_state_release(e[0].file), 0);
	ap_state_free(e, n);
}

static void test_rejects_newline(void **state)
{
	(void)state;
	assert_int_equal(ap_state_register(AP_STATE_TMPDIR, "/tmp/a\nkind=emu", NULL, NULL, NULL),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_register_list_release),
		cmocka_unit_test(test_stale_owner),
		cmocka_unit_test(test_rejects_newline),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
