// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkfs for one sweep step, spawned with posix_spawnp and an argv built
 * here (never a shell). stdout goes to /dev/null (the runs are quiet
 * anyway), stderr into a pipe whose last lines become the error message.
 */
#include "sweep/mkfs.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/*
 * ext4: the inode tables and the journal are left unzeroed (on a disk
 * without a write cache, zeroing them was 8 MiB of synchronous writes at
 * every step, most of its cost), and the mount that follows says
 * noinit_itable, so that the kernel's lazyinit thread never zeroes them in
 * the background while the workload is timed: the two go together
 * (mount_data). The layout the workload sees is the same either way.
 * ext2 has no group checksums, so its tables are always zeroed by mkfs.
 *
 * umount_data: what the file system is remounted with after the workload,
 * before its umount. ext4's umount commits its journal and checkpoints it
 * with a flush before and after each of its synchronous writes (a loop
 * device has no FUA): 11-12 flushes, more than half of a step's set-up on a
 * disk whose every flush costs a seek and a revolution. The file system is
 * made anew at the next step and the disk wiped at the end, so its last
 * writes need no flush; the kernel still waits for each of them, and the
 * next step's partition table flushes whatever a write cache still holds
 * before its file system is made. The workload's fsyncs keep theirs.
 *
 * shutdown: and then shut down (ap_mount_shutdown()), so that its umount
 * writes nothing at all. Even unflushed, ext4's umount commits the
 * workload's last operations (the deletions) and checkpoints every
 * metadata block the workload changed to its home: 8-10 synchronous
 * writes a seek apart, 146 ms of a step on a 7200 rpm disk without a
 * write cache. Shut down, it writes the journal's superblock (its error
 * number; nobarrier: no flush) and nothing else. Remounted first, since
 * the shutdown's one write flushes otherwise.
 */
static const struct fsinfo {
	const char *fs, *prog, *package;
	unsigned long long min_size;
	const char *const args[8];	/* before the extra options */
	const char *mount_data;		/* what the mount must say, or NULL */
	const char *umount_data;	/* remounted with before the umount, or NULL */
	bool shutdown;			/* then shut down (ap_mount_shutdown()) */
} fstab[] = {
	{ "ext4", "mkfs.ext4", "e2fsprogs", 0,
	  { "-q", "-F", "-b", "4096", "-E", "lazy_itable_init=1,lazy_journal_init=1,nodiscard" },
	  "noinit_itable", "nobarrier", true },
	{ "ext2", "mkfs.ext2", "e2fsprogs", 0,
	  { "-q", "-F", "-b", "4096", "-E", "lazy_itable_init=0,nodiscard" }, NULL, NULL, false },
	/* -K: no discard; xfsprogs >= 5.19 refuses file systems under 300 MiB */
	{ "xfs", "mkfs.xfs", "xfsprogs", 300ULL << 20,
	  { "-q", "-f", "-K", "-b", "size=4096" }, NULL, NULL, false },
};

static const struct fsinfo *find_fs(const char *fs)
{
	size_t i;

	for (i = 0; fs && i < AP_ARRAY_SIZE(fstab); i++)
		if (strcmp(fstab[i].fs, fs) == 0)
			return &fstab[i];
	return NULL;
}

bool ap_mkfs_is_known(const char *fs)
{
	return find_fs(fs) != NULL;
}

const char *ap_mkfs_program(const char *fs)
{
	const struct fsinfo *f = find_fs(fs);

	return f ? f->prog : NULL;
}

unsigned long long ap_mkfs_min_size(const char *fs)
{
	const struct fsinfo *f = find_fs(fs);

	return f ? f->min_size : 0;
}

char *ap_mkfs_mount_data(const char *fs, const char *extra)
{
	const struct fsinfo *f = find_fs(fs);
	const char *own = f ? f->mount_data : NULL;
	char *s;

	if (own && extra && *extra)
		ap_xasprintf(&s, "%s,%s", own, extra);	/* the user's come last: they win */
	else if (own || (extra && *extra))
		s = ap_xstrdup(own ? own : extra);
	else
		s = NULL;
	return s;
}

const char *ap_mkfs_umount_data(const char *fs)
{
	const struct fsinfo *f = find_fs(fs);

	return f ? f->umount_data : NULL;
}

bool ap_mkfs_shut_down(const char *fs)
{
	const struct fsinfo *f = find_fs(fs);

	return f && f->shutdown;
}

int ap_mkfs_split_opts(const char *s, char ***v, size_t *n)
{
	const char *p = s;
	size_t added = 0;

	while (p && *p) {
		size_t len;

		p += strspn(p, " \t\n");
		len = strcspn(p, " \t\n");
		if (!len)
			break;
		*v = ap_xreallocarray(*v, *n + 1, sizeof(**v));
		(*v)[(*n)++] = ap_xstrndup(p, len);
		added++;
		p += len;
	}
	return added ? 0 : -EINVAL;
}

void ap_mkfs_free_opts(char **v, size_t n)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < n && v[i]; i++)
		free(v[i]);
	free(v);
}

char **ap_mkfs_argv(const char *fs, const char *dev, char *const *extra, size_t nextra)
{
	const struct fsinfo *f = find_fs(fs);
	size_t nargs = 0, i, k = 0;
	char **argv;

	if (!f || !dev)
		return NULL;
	while (nargs < AP_ARRAY_SIZE(f->args) && f->args[nargs])
		nargs++;
	argv = ap_xcalloc(1 + nargs + nextra + 2, sizeof(*argv));
	argv[k++] = ap_xstrdup(f->prog);
	for (i = 0; i < nargs; i++)
		argv[k++] = ap_xstrdup(f->args[i]);
	for (i = 0; i < nextra; i++)
		argv[k++] = ap_xstrdup(extra[i]);
	argv[k++] = ap_xstrdup(dev);
	argv[k] = NULL;
	return argv;
}

static bool in_path(const char *prog)
{
	const char *path = getenv("PATH"), *p;

	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0;
	if (!path)
		path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
	for (p = path; ; ) {
		size_t len = strcspn(p, ":");
		struct stat st;
		char *f;
		bool ok;

		ap_xasprintf(&f, "%.*s/%s", (int)len, len ? p : ".", prog);
		ok = stat(f, &st) == 0 && S_ISREG(st.st_mode) && access(f, X_OK) == 0;
		free(f);
		if (ok)
			return true;
		if (!p[len])
			break;
		p += len + 1;
	}
	return false;
}

int ap_mkfs_check(const char *fs, struct ap_error *e)
{
	const struct fsinfo *f = find_fs(fs);

	if (!f)
		return ap_error_set(e, EINVAL, "unknown file system '%s' (ext4, ext2 or xfs)",
				    fs ? fs : "");
	if (!in_path(f->prog))
		return ap_error_set(e, ENOENT, "%s not found in PATH (install %s)",
				    f->prog, f->package);
	return 0;
}

/* Keep the tail of what the child writes to stderr. */
struct tail {
	char buf[4096];
	size_t len;
};

static void tail_add(struct tail *t, const char *s, size_t n)
{
	if (n >= sizeof(t->buf)) {
		s += n - (sizeof(t->buf) - 1);
		n = sizeof(t->buf) - 1;
	}
	if (t->len + n >= sizeof(t->buf)) {
		size_t drop = t->len + n - (sizeof(t->buf) - 1);

		memmove(t->buf, t->buf + drop, t->len - drop);
		t->len -= drop;
	}
	memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->buf[t->len] = '\0';
}

/*
 * The first line that names the cause ("mkfs.ext4: invalid option -- 'Z'",
 * "mke2fs: ...": the program's name and a colon), so that a usage text or a
 * banner after or before it does not bury it; else the last non-empty
 * lines on one line. For a message.
 */
static const char *tail_text(struct tail *t, const char *prog)
{
	char *s = t->buf, *p, *line;
	size_t plen = strlen(prog);

	for (line = s; *line; line = p + (*p == '\n')) {
		p = line + strcspn(line, "\n");
		if ((strncmp(line, prog, plen) == 0 && line[plen] == ':') ||
		    (strncmp(line, "mke2fs: ", 8) == 0)) {
			*p = '\0';
			return line;
		}
	}
	while (t->len && (s[t->len - 1] == '\n' || s[t->len - 1] == ' '))
		s[--t->len] = '\0';
	for (p = s; *p; p++)
		if (*p == '\n' || *p == '\t')
			*p = ' ';
	p = s;
	if (t->len > 300)
		p = s + t->len - 300;
	return p;
}

int ap_mkfs_run(const char *fs, const char *dev, char *const *extra, size_t nextra,
		const struct ap_cancel *cancel, struct ap_error *e)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	struct tail tail = { .len = 0 };
	sigset_t def, none;
	int pfd[2], rc, status = 0;
	bool killed = false;
	char **argv;
	pid_t pid;

	rc = ap_mkfs_check(fs, e);
	if (rc)
		return rc;
	argv = ap_mkfs_argv(fs, dev, extra, nextra);
	if (pipe2(pfd, O_CLOEXEC) != 0) {
		rc = ap_error_set(e, errno, "pipe: %s", strerror(errno));
		ap_mkfs_free_opts(argv, SIZE_MAX);
		return rc;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], STDERR_FILENO);
	posix_spawnattr_init(&attr);
	/* the child gets default dispositions (SIGPIPE is ignored here) */
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGTERM);
	sigaddset(&def, SIGHUP);
	sigemptyset(&none);
	posix_spawnattr_setsigdefault(&attr, &def);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	rc = posix_spawnp(&pid, argv[0], &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	close(pfd[1]);
	if (rc != 0) {
		close(pfd[0]);
		rc = ap_error_set(e, rc, "%s: %s", argv[0], strerror(rc));
		ap_mkfs_free_opts(argv, SIZE_MAX);
		return rc;
	}

	for (;;) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		char buf[1024];
		ssize_t n;

		if (!killed && ap_cancelled(cancel)) {
			kill(pid, SIGTERM);
			killed = true;
		}
		if (poll(&p, 1, 200) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (!p.revents)
			continue;
		n = read(pfd[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		tail_add(&tail, buf, (size_t)n);
	}
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			rc = ap_error_set(e, errno, "%s: waitpid: %s", argv[0], strerror(errno));
			goto out;
		}
		if (!killed && ap_cancelled(cancel)) {
			kill(pid, SIGTERM);
			killed = true;
		}
	}
	if (killed)
		rc = ap_error_set(e, EINTR, "%s interrupted", argv[0]);
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		rc = 0;
	else if (WIFEXITED(status))
		rc = ap_error_set(e, EIO, "%s failed (exit status %d)%s%s", argv[0],
				  WEXITSTATUS(status), tail.len ? ": " : "", tail_text(&tail, argv[0]));
	else
		rc = ap_error_set(e, EIO, "%s killed by signal %d%s%s", argv[0],
				  WTERMSIG(status), tail.len ? ": " : "", tail_text(&tail, argv[0]));
out:
	ap_mkfs_free_opts(argv, SIZE_MAX);
	return rc;
}

int ap_mkfs_try(const char *fs, unsigned long long size, char *const *extra, size_t nextra,
		struct ap_error *e)
{
	const char *tmp = getenv("TMPDIR");
	char *path;
	int fd, rc;

	ap_xasprintf(&path, "%s/alignprobe-mkfs.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(path);
	if (fd < 0) {
		rc = ap_error_set(e, errno, "%s: cannot create a scratch image: %s", path,
				  strerror(errno));
		free(path);
		return rc;
	}
	/* sparse: only what mkfs writes takes room */
	if (ftruncate(fd, (off_t)size) != 0) {
		rc = ap_error_set(e, errno, "%s: cannot size a scratch image: %s", path,
				  strerror(errno));
	} else {
		rc = ap_mkfs_run(fs, path, extra, nextra, NULL, e);
		if (rc == -EIO)
			rc = -EINVAL;	/* mkfs refused them: bad input */
	}
	close(fd);
	unlink(path);
	free(path);
	return rc;
}
