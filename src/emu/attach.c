// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The emulated drive's life cycle: build the work directory (sparse backing
 * file, shared stats page), fork the FUSE server (server.c) and stop it,
 * attach the drive's loop device (loop.c) to the served file, and take
 * everything down again in order -- also after the server was SIGKILLed,
 * one teardown at a time. The layout of a work directory is described in
 * emu/emuP.h; the work directory, the stats page, finding a device's drive
 * (locate.c), the loop device and the server are in their own files.
 */
#include "emu/emu.h"
#include "emu/model.h"
#include "emu/emuP.h"
#include "emu/server.h"
#include "lib/state.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

struct ap_emu {
	char *dev;		/* /dev/loopN */
	char *workdir;
	pid_t pid;		/* the server, our child */
	int ctl;		/* to the server: its EOF means we died */
	int st;			/* the server's replies */
};

/* ---- starting the server (server.c) in a process of its own ---- */

static void close_other_fds(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a, fd;

	for (fd = 3; fd < lo; fd++)
		close(fd);
	for (fd = lo + 1; fd < hi; fd++)
		close(fd);
	if (close_range((unsigned)hi + 1, ~0U, 0) != 0) {
		long max = sysconf(_SC_OPEN_MAX);

		for (fd = hi + 1; fd < max; fd++)
			close(fd);
	}
}

static void child_stdio(const char *workdir)
{
	char *log;
	int fd = open("/dev/null", O_RDWR);

	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		if (fd > 2)
			close(fd);
	}
	ap_xasprintf(&log, "%s/log", workdir);
	fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
	free(log);
	if (fd >= 0) {
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
}

int ap_emu_server_start(const struct ap_emu_server_opts *o, pid_t *pid, int *ctl, int *st,
			struct ap_error *e)
{
	int c[2] = { -1, -1 }, s[2] = { -1, -1 }, rc;

	*pid = -1;
	*ctl = *st = -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, c) != 0 ||
	    pipe2(s, O_CLOEXEC) != 0) {
		rc = ap_error_set(e, errno, "pipe: %s", strerror(errno));
		goto fail;
	}
	fflush(NULL);
	*pid = fork();
	if (*pid < 0) {
		rc = ap_error_set(e, errno, "fork: %s", strerror(errno));
		goto fail;
	}
	if (*pid == 0) {
		/* the server: a daemon that holds nothing of its parent's */
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGCHLD, SIG_DFL);
		close(c[1]);
		close(s[0]);
		close_other_fds(c[0], s[1]);
		child_stdio(o->workdir);
		setsid();
		if (chdir("/") != 0)
			_exit(1);
		_exit(ap_emu_server_run(o, c[0], s[1]));
	}
	close(c[0]);
	close(s[1]);
	c[0] = s[1] = -1;
	rc = ap_emu_server_reply(s[0], "ready", e);
	if (rc)
		goto fail;
	*ctl = c[1];
	*st = s[0];
	return 0;

fail:
	if (c[1] >= 0)
		close(c[1]);	/* EOF before "done": the server exits */
	if (s[0] >= 0)
		close(s[0]);
	if (c[0] >= 0)
		close(c[0]);
	if (s[1] >= 0)
		close(s[1]);
	return rc;
}

/* ---- taking a drive down ---- */

static bool server_alive(const char *workdir)
{
	char *path;
	int fd, alive;

	ap_xasprintf(&path, "%s/stats", workdir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return false;
	alive = flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
	close(fd);		/* drops the lock if we got it */
	return alive;
}

/* The server's pid as the registry records it (aux), or 0. */
static pid_t registered_pid(const char *workdir)
{
	struct ap_state_entry *v;
	char *mnt;
	size_t n, i;
	pid_t pid = 0;

	if (ap_state_list(&v, &n) != 0)
		return 0;
	ap_xasprintf(&mnt, "%s/mnt", workdir);
	for (i = 0; i < n; i++)
		if (v[i].kind == AP_STATE_EMU && v[i].path && strcmp(v[i].path, mnt) == 0 &&
		    v[i].aux)
			pid = (pid_t)atoi(v[i].aux);
	free(mnt);
	ap_state_free(v, n);
	return pid;
}

/* Stop the server: SIGTERM, then SIGKILL; true once it is gone. */
static bool server_stop(const char *workdir, pid_t child)
{
	struct ap_emu_shm *shm = ap_emu_shm_map(workdir, false);
	pid_t pid = shm ? shm->server_pid : child;
	unsigned i;

	if (shm)
		munmap(shm, sizeof(*shm));
	if (pid <= 0)
		pid = registered_pid(workdir);
	if (!server_alive(workdir))
		return true;
	if (pid <= 0)
		return false;
	kill(pid, SIGTERM);
	for (i = 0; i < 500 && server_alive(workdir); i++)
		ap_sleep_ms(10);
	if (server_alive(workdir)) {
		kill(pid, SIGKILL);
		for (i = 0; i < 500 && server_alive(workdir); i++)
			ap_sleep_ms(10);
	}
	return !server_alive(workdir);
}

/* Abort the FUSE connection behind @mnt, for a server that hangs. */
static void fuse_abort(const char *mnt)
{
	struct stat st;
	char path[128];
	int fd;

	if (stat(mnt, &st) != 0 || major(st.st_dev) != 0)
		return;
	snprintf(path, sizeof(path), "/sys/fs/fuse/connections/%u/abort", minor(st.st_dev));
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, "1", 1) < 0) {
		/* nothing more to try */
	}
	close(fd);
}

static void state_release_emu(const char *mnt)
{
	struct ap_state_entry *v;
	size_t n, i;

	if (ap_state_list(&v, &n) != 0)
		return;
	for (i = 0; i < n; i++)
		if (v[i].kind == AP_STATE_EMU && v[i].path && strcmp(v[i].path, mnt) == 0)
			ap_state_release(v[i].file);
	ap_state_free(v, n);
}

/*
 * Only one teardown of a drive at a time: the server's own (its owner died,
 * or it was terminated), cleanup's and `emulate --detach` may meet. 0 with
 * the locked work directory's descriptor in @fd (-1 when the directory is
 * gone: another teardown finished), or -errno.
 */
static int teardown_lock(const char *workdir, int *fd, struct ap_error *e)
{
	*fd = open(workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*fd < 0) {
		if (errno == ENOENT)
			return 0;
		return ap_error_set(e, errno, "work directory %s: %s", workdir, strerror(errno));
	}
	while (flock(*fd, LOCK_EX) != 0) {
		if (errno != EINTR) {
			int err = errno;

			close(*fd);
			*fd = -1;
			return ap_error_set(e, err, "cannot lock %s: %s", workdir, strerror(err));
		}
	}
	return 0;
}

/*
 * Take down the drive in @workdir and every loop device still attached to
 * it (checked once we hold the lock: a loop number may have been reused
 * since). @child: the server's pid when it is our child.
 */
static int teardown(const char *workdir, pid_t child, struct ap_error *e)
{
	char *mnt, *stats;
	int rc = 0, lock;

	rc = teardown_lock(workdir, &lock, e);
	if (rc)
		return rc;
	ap_xasprintf(&mnt, "%s/mnt", workdir);
	ap_xasprintf(&stats, "%s/stats", workdir);
	if (lock < 0 || access(stats, F_OK) != 0) {
		/* another teardown took it down while we waited */
		if (child > 0)
			while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
				;
		if (lock < 0 || ap_emu_workdir_remove(workdir) == 0)
			state_release_emu(mnt);
		goto out;
	}
	/* every loop device over the drive, before its mount goes (loop.c) */
	rc = ap_emu_loop_clear_all(workdir, e);
	if (rc)
		goto out;
	if (!server_stop(workdir, child)) {
		fuse_abort(mnt);
		if (!server_stop(workdir, child))
			rc = ap_error_set(e, EBUSY, "the emulator's server (work directory %s) does not stop",
					  workdir);
	}
	/* reap our child; one that would not stop is left (and not waited for) */
	if (child > 0)
		while (waitpid(child, NULL, rc ? WNOHANG : 0) < 0 && errno == EINTR)
			;
	/* a killed server leaves its mount behind ("Transport endpoint is not connected") */
	if (umount2(mnt, MNT_DETACH) != 0 && errno != EINVAL && errno != ENOENT && !rc)
		rc = ap_error_set(e, errno, "cannot unmount %s: %s", mnt, strerror(errno));
	if (!rc) {
		int r = ap_emu_workdir_remove(workdir);

		if (r)
			rc = ap_error_set(e, -r, "cannot remove the work directory %s: %s", workdir,
					  strerror(-r));
		else
			state_release_emu(mnt);
	}
out:
	if (lock >= 0)
		close(lock);
	free(stats);
	free(mnt);
	return rc;
}

/* Take down the drive in @workdir (also the server's own teardown helper's). */
static int detach_workdir(const char *workdir, struct ap_error *e)
{
	return teardown(workdir, 0, e);
}

/* The work directory of a registry entry's FUSE mount point "<workdir>/mnt", or NULL. */
static char *entry_workdir(const char *mnt)
{
	char *wd, *slash;

	if (!mnt || mnt[0] != '/')
		return NULL;
	wd = ap_xstrdup(mnt);
	slash = strrchr(wd, '/');
	if (!slash || strcmp(slash, "/mnt") != 0 || slash == wd ||
	    !strstr(wd, "/alignprobe-emu.")) {
		free(wd);
		return NULL;
	}
	*slash = '\0';
	return wd;
}

int ap_emu_detach_entry(const char *mnt, struct ap_error *e)
{
	char *wd = entry_workdir(mnt);
	int rc;

	if (!wd)
		return ap_error_set(e, EINVAL, "%s is not an emulated drive's mount point",
				    mnt ? mnt : "(none)");
	if (access(wd, F_OK) != 0) {
		/* nothing left but the entry */
		state_release_emu(mnt);
		free(wd);
		return 0;
	}
	rc = detach_workdir(wd, e);
	free(wd);
	return rc;
}

/*
 * The drive on @dev as this state directory registered it; only when the
 * registry here knows nothing of @dev, the drive the loop device is attached
 * to now. So a stale entry whose loop number was reused since never takes
 * down somebody else's live drive.
 */
int ap_emu_detach_device(const char *dev, struct ap_error *e)
{
	struct ap_state_entry *v = NULL;
	char name[64], *wd, *theirs, *ours;
	size_t n = 0, i;
	int rc = 0, found = 0;

	if (!dev || !*dev)
		return ap_error_set(e, EINVAL, "no device given");
	if (ap_state_list(&v, &n) != 0)
		n = 0;
	for (i = 0; i < n; i++) {
		int r;

		if (v[i].kind != AP_STATE_EMU || !v[i].dev || strcmp(v[i].dev, dev) != 0 ||
		    !v[i].path)
			continue;
		found++;
		r = ap_emu_detach_entry(v[i].path, e);
		if (r && !rc)
			rc = r;
	}
	ap_state_free(v, n);
	if (found)
		return rc;
	if (ap_emu_disk_name(dev, name, sizeof(name)) != 0 || !(wd = ap_emu_workdir_of_loop(name)))
		return ap_error_set(e, ENODEV, "%s: not an emulated drive", dev);
	/*
	 * Not registered here: a drive of another state directory (another
	 * run, or another test) is not ours to take down -- the loop number
	 * may have been reused since the caller attached "its" @dev.
	 */
	theirs = ap_emu_workdir_state_dir(wd);
	ours = ap_emu_state_dir_real();
	if (theirs && (!ours || strcmp(theirs, ours) != 0))
		rc = ap_error_set(e, EPERM,
			"%s: belongs to the runs of state directory %s (not %s): use ALIGNPROBE_STATE_DIR=%s",
			dev, theirs, ours ? ours : ap_state_dir(), theirs);
	else
		rc = teardown(wd, 0, e);
	free(theirs);
	free(ours);
	free(wd);
	return rc;
}

int ap_emu_detach(struct ap_emu *emu, struct ap_error *e)
{
	int rc;

	if (!emu)
		return 0;
	rc = teardown(emu->workdir, emu->pid, e);
	if (rc)
		return rc;
	close(emu->ctl);
	close(emu->st);
	free(emu->dev);
	free(emu->workdir);
	free(emu);
	return 0;
}

const char *ap_emu_device(const struct ap_emu *emu)
{
	return emu->dev;
}

int ap_emu_forget(struct ap_emu *emu, struct ap_error *e)
{
	int rc;

	if (!emu)
		return 0;
	/* the server owns the drive once it says so, not before */
	rc = ap_emu_server_send(emu->ctl, "persist\n");
	if (rc == 0)
		rc = ap_emu_server_reply(emu->st, "ok", e);
	else
		ap_error_set(e, -rc, "the emulator's server died (see its log)");
	close(emu->ctl);	/* without "persist", the server takes the drive down */
	close(emu->st);
	free(emu->dev);
	free(emu->workdir);
	free(emu);
	return rc;
}

/* ---- bringing a drive up ---- */

int ap_emu_attach(const struct ap_emu_spec *spec, struct ap_emu **out, struct ap_error *e)
{
	struct ap_emu_spec s = *spec;
	struct ap_emu_shm *shm = NULL;
	char *tmpl, *workdir, *mnt, *dev = NULL;
	const char *tmp = getenv("TMPDIR");
	struct ap_emu_server_opts so = { .spec = &s, .teardown = detach_workdir };
	int ctl[2] = { -1, -1 }, st[2] = { -1, -1 }, rc;
	pid_t pid = -1, owner = getpid();

	*out = NULL;
	s.image = spec->image ? ap_xstrdup(spec->image) : NULL;
	s.cut_peer = spec->cut_peer ? ap_xstrdup(spec->cut_peer) : NULL;
	rc = ap_emu_spec_validate(&s, e);
	if (rc)
		goto out_spec;
	if (access("/dev/fuse", R_OK | W_OK) != 0) {
		rc = ap_error_set(e, errno, "/dev/fuse: %s (FUSE is needed for the emulated drive)",
				  strerror(errno));
		goto out_spec;
	}
	ap_xasprintf(&tmpl, "%s/alignprobe-emu.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	workdir = mkdtemp(tmpl);
	if (!workdir) {
		rc = ap_error_set(e, errno, "cannot create a work directory %s: %s", tmpl,
				  strerror(errno));
		free(tmpl);
		goto out_spec;
	}
	ap_xasprintf(&mnt, "%s/mnt", workdir);
	if (mkdir(mnt, 0700) != 0) {
		rc = ap_error_set(e, errno, "cannot create %s: %s", mnt, strerror(errno));
		goto fail;
	}
	rc = ap_emu_workdir_write_state_dir(workdir, e);
	if (rc)
		goto fail;
	rc = ap_emu_workdir_make_backing(workdir, &s, e);
	if (!rc)
		rc = ap_emu_workdir_write_identity(workdir, &s, e);
	if (rc)
		goto fail;
	shm = ap_emu_shm_create(workdir, &s, e);
	if (!shm) {
		rc = -e->code;
		goto fail;
	}
	so.workdir = workdir;
	so.shm = shm;
	so.owner = owner;
	/* [0] of each pair was the server's end */
	rc = ap_emu_server_start(&so, &pid, &ctl[1], &st[0], e);
	if (rc)
		goto fail;
	rc = ap_emu_loop_attach(workdir, ctl[1], st[0], s.logical_sector, &dev, e);
	if (rc)
		goto fail;
	rc = ap_emu_loop_set_queue(dev, &s, e);
	if (rc) {
		char name[64];

		snprintf(name, sizeof(name), "%s", dev + strlen("/dev/"));
		free(dev);
		dev = NULL;
		ap_emu_loop_clear(name, NULL);
		goto fail;
	}
	if (s.image)
		ap_emu_loop_add_partitions(dev);
	/* what the attach itself caused (partition scan, ...) does not count */
	ap_emu_counters_reset(dev);
	/* tests: its loop device configured, the server not yet told "done" */
	ap_test_pause("ALIGNPROBE_TEST_EMU_ATTACH_HOLD");
	ap_emu_server_send(ctl[1], "done\n");
	munmap(shm, sizeof(*shm));
	free(mnt);
	ap_emu_spec_free(&s);
	*out = ap_xcalloc(1, sizeof(**out));
	(*out)->dev = dev;
	(*out)->workdir = workdir;
	(*out)->pid = pid;
	(*out)->ctl = ctl[1];
	(*out)->st = st[0];
	return 0;

fail:
	if (ctl[1] >= 0)
		close(ctl[1]);	/* EOF before "done": the server exits */
	if (st[0] >= 0)
		close(st[0]);
	if (pid > 0) {
		struct ap_error ignore;

		if (teardown(workdir, pid, &ignore) != 0)
			ap_emu_workdir_remove(workdir);
	} else {
		ap_emu_workdir_remove(workdir);
	}
	if (shm)
		munmap(shm, sizeof(*shm));
	free(mnt);
	free(workdir);
out_spec:
	ap_emu_spec_free(&s);
	return rc;
}
