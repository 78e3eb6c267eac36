// SPDX-License-Identifier: GPL-2.0-or-later
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
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/state.h"
#include "lib/util.h"

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

/* Rewrite @file with line "KEY=..." replaced by "KEY=@val". */
static void set_field(const char *file, const char *key, const char *val)
{
	char line[4096], *out = NULL;
	size_t len = 0, klen = strlen(key);
	FILE *f = fopen(file, "r"), *m = open_memstream(&out, &len);

	assert_non_null(f);
	assert_non_null(m);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen) == 0 && line[klen] == '=')
			fprintf(m, "%s=%s\n", key, val);
		else
			fputs(line, m);
	}
	fclose(f);
	fclose(m);
	f = fopen(file, "w");
	assert_non_null(f);
	fputs(out, f);
	fclose(f);
	free(out);
}

static struct ap_state_entry *only_entry(struct ap_state_entry **v, size_t *n)
{
	assert_int_equal(ap_state_list(v, n), 0);
	assert_int_equal(*n, 1);
	return *v;
}

/* An owner other than the registering process, then handed over. */
static void test_register_for_set_owner(void **state)
{
	struct ap_state_entry *v, *e;
	char *id;
	size_t n;
	pid_t child;
	int status;

	(void)state;
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		pause();
		_exit(0);
	}
	assert_int_equal(ap_state_register_for(child, AP_STATE_EMU, "/tmp/e/mnt", "/dev/loop9", "77",
					       &id), 0);
	e = only_entry(&v, &n);
	assert_int_equal(e->owner, child);
	assert_true(e->owner_start > 0);
	assert_non_null(e->boot);
	assert_false(ap_state_is_stale(e));
	ap_state_free(v, n);

	/* the owner dies: stale, even while it is an unreaped zombie */
	kill(child, SIGKILL);
	while (ap_state_pid_alive(child))
		usleep(1000);
	e = only_entry(&v, &n);
	assert_true(ap_state_is_stale(e));
	ap_state_free(v, n);
	assert_int_equal(waitpid(child, &status, 0), child);

	/* handed over to this process: live again, the rest unchanged */
	assert_int_equal(ap_state_set_owner(id, getpid()), 0);
	e = only_entry(&v, &n);
	assert_int_equal(e->owner, getpid());
	assert_int_equal(e->kind, AP_STATE_EMU);
	assert_string_equal(e->path, "/tmp/e/mnt");
	assert_string_equal(e->dev, "/dev/loop9");
	assert_string_equal(e->aux, "77");
	assert_false(ap_state_is_stale(e));
	ap_state_free(v, n);
	assert_int_equal(ap_state_release(id), 0);
	free(id);
	assert_int_equal(ap_state_register_for(0, AP_STATE_EMU, "/x", NULL, NULL, NULL), -EINVAL);
	assert_int_equal(ap_state_register_for(getpid(), AP_STATE_UNKNOWN, "/x", NULL, NULL, NULL),
			 -EINVAL);
}

/* A live PID that is not the owner any more, an entry of another boot. */
static void test_reused_pid_and_reboot(void **state)
{
	struct ap_state_entry *v, *e;
	char *id, buf[32];
	size_t n;

	(void)state;
	assert_int_equal(ap_state_register(AP_STATE_TMPDIR, "/tmp/t", NULL, NULL, &id), 0);
	e = only_entry(&v, &n);
	assert_false(ap_state_is_stale(e));
	snprintf(buf, sizeof(buf), "%llu", e->owner_start + 1);
	ap_state_free(v, n);
	set_field(id, "owner_start", buf);
	e = only_entry(&v, &n);
	assert_true(ap_state_is_stale(e));
	ap_state_free(v, n);

	/* an entry of an older version: no start time, no boot: the PID decides */
	set_field(id, "owner_start", "");
	set_field(id, "boot", "");
	e = only_entry(&v, &n);
	assert_int_equal(e->owner_start, 0);
	assert_null(e->boot);
	assert_false(ap_state_is_stale(e));
	ap_state_free(v, n);

	set_field(id, "boot", "00000000-0000-0000-0000-000000000000");
	e = only_entry(&v, &n);
	assert_true(ap_state_is_stale(e));
	ap_state_free(v, n);
	assert_int_equal(ap_state_release(id), 0);
	free(id);
}

/* A file that is no entry is listed (cleanup reports it), never stale. */
static void test_unknown_entry(void **state)
{
	struct ap_state_entry *v, *e;
	char *file;
	size_t n;
	FILE *f;

	(void)state;
	ap_xasprintf(&file, "%s/1-garbage", dir);
	f = fopen(file, "w");
	assert_non_null(f);
	fputs("kind=emu\nowner=x\n", f);
	fclose(f);
	e = only_entry(&v, &n);
	assert_int_equal(e->kind, AP_STATE_UNKNOWN);
	assert_string_equal(e->file, file);
	assert_false(ap_state_is_stale(e));
	assert_string_equal(ap_state_kind_name(e->kind), "unknown");
	ap_state_free(v, n);
	assert_int_equal(unlink(file), 0);
	free(file);
}

static void test_rejects_newline(void **state)
{
	(void)state;
	assert_int_equal(ap_state_register(AP_STATE_TMPDIR, "/tmp/a\nkind=emu", NULL, NULL, NULL),
			 -EINVAL);
}

/* A live run's hold: found for another process, never for the holder itself. */
static void test_live_hold(void **state)
{
	struct ap_state_entry e = { .kind = AP_STATE_HOLD, .aux = (char *)"7:3 sweep" };
	const char *cmd = NULL;
	char *c = NULL, *id = NULL;
	pid_t pid = 0, child;
	int p[2], st;
	dev_t d;
	char b;

	(void)state;
	assert_int_equal(ap_state_hold_parse(&e, &d, &cmd), 0);
	assert_int_equal(major(d), 7);
	assert_int_equal(minor(d), 3);
	assert_string_equal(cmd, "sweep");
	e.aux = (char *)"nonsense";
	assert_int_equal(ap_state_hold_parse(&e, &d, &cmd), -EINVAL);
	e.kind = AP_STATE_MOUNT;
	e.aux = (char *)"7:3 sweep";
	assert_int_equal(ap_state_hold_parse(&e, &d, &cmd), -EINVAL);

	/* our own hold is not somebody else's */
	assert_int_equal(ap_state_register(AP_STATE_HOLD, NULL, "/dev/loop3", "7:3 seq", &id), 0);
	assert_int_equal(ap_state_live_hold(makedev(7, 3), &pid, &c), 0);
	ap_state_release(id);
	free(id);

	/* another live process's is, until it exits */
	assert_int_equal(pipe(p), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		close(p[0]);
		if (ap_state_register(AP_STATE_HOLD, NULL, "/dev/loop3", "7:3 sweep", NULL) != 0)
			_exit(1);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &b, 1), 1);
	close(p[0]);
	assert_int_equal(ap_state_live_hold(makedev(7, 3), &pid, &c), 1);
	assert_int_equal(pid, child);
	assert_string_equal(c, "sweep");
	free(c);
	assert_int_equal(ap_state_live_hold(makedev(7, 4), &pid, &c), 0);
	kill(child, SIGKILL);
	assert_int_equal(waitpid(child, &st, 0), child);
	assert_int_equal(ap_state_live_hold(makedev(7, 3), &pid, &c), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_register_list_release),
		cmocka_unit_test(test_stale_owner),
		cmocka_unit_test(test_register_for_set_owner),
		cmocka_unit_test(test_reused_pid_and_reboot),
		cmocka_unit_test(test_unknown_entry),
		cmocka_unit_test(test_rejects_newline),
		cmocka_unit_test(test_live_hold),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
