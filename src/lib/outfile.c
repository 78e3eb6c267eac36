// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Output files opened before the work and put in place atomically after it
 * (see outfile.h): one copy of "temporary file next to the target, fsync,
 * rename" for every file alignprobe writes on the user's behalf.
 */
#include "lib/outfile.h"
#include "lib/blkdev.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool ap_out_reader_gone(FILE *f)
{
	struct pollfd p = { .fd = fileno(f), .events = POLLOUT };

	/* a pipe without readers polls POLLERR, a shut-down socket POLLHUP */
	return p.fd >= 0 && poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP));
}

int ap_out_flush(FILE *f)
{
	int err = EIO;	/* the error flag alone does not keep the reason */

	if (fflush(f) != 0)
		err = errno;
	else if (!ferror(f))
		return 0;
	if (err == EPIPE || ap_out_reader_gone(f))
		return 0;
	return -err;
}

static char *dir_of(const char *path)
{
	char *copy = ap_xstrdup(path), *d = ap_xstrdup(dirname(copy));

	free(copy);
	return d;
}

static char *base_of(const char *path)
{
	char *copy = ap_xstrdup(path), *b = ap_xstrdup(basename(copy));

	free(copy);
	return b;
}

/*
 * Temporary files that exist now, removed when a signal ends the process: a
 * command that handles SIGINT, SIGTERM and SIGHUP itself (src/lib/sig.c)
 * discards its outputs on the way out; one that does not (check) would be
 * ended by the signal with ".NAME.XXXXXX" left beside the target, and
 * node_exporter's textfile directory is read by a collector. So while a
 * temporary file exists, a signal whose action is still the default removes
 * every one of them (unlink is async-signal-safe) and then ends the
 * process as the default action would.
 */
#define MAX_LIVE	32

static char *volatile live[MAX_LIVE];
static const int fatal_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static void remove_live(int signo)
{
	size_t i;

	for (i = 0; i < MAX_LIVE; i++)
		if (live[i])
			unlink(live[i]);
	/* SA_RESETHAND made the action the default: it ends us on return */
	raise(signo);
}

static void guard_signals(void)
{
	static bool done;
	struct sigaction sa, old;
	size_t i;

	if (done)
		return;
	done = true;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = remove_live;
	sigfillset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND;
	for (i = 0; i < AP_ARRAY_SIZE(fatal_sigs); i++)
		if (sigaction(fatal_sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
			sigaction(fatal_sigs[i], &sa, NULL);
}

/* Add @tmp to the list (or, with @add false, take it off), signals held. */
static void track(char *tmp, bool add)
{
	sigset_t all, old;
	size_t i;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	for (i = 0; i < MAX_LIVE; i++) {
		if (add ? live[i] == NULL : live[i] == tmp) {
			live[i] = add ? tmp : NULL;
			break;
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* The temporary file's name freed, after it is off the list. */
static void free_tmp(char **tmp)
{
	if (*tmp)
		track(*tmp, false);
	free(*tmp);
	*tmp = NULL;
}

/*
 * Tests: ALIGNPROBE_TEST_OUTFILE_HOLD set makes the process wait for a
 * signal once a temporary file exists, so that a test can signal a run at
 * that moment without a race (tests/ts/fleet/textfile.sh).
 */
static void test_hold(void)
{
	const char *v = getenv("ALIGNPROBE_TEST_OUTFILE_HOLD");

	if (v && *v)
		pause();
}

/*
 * A new empty file in @target's directory, hidden, named after it: the fd,
 * its name in *@tmp (on the list of files a signal removes), or -errno.
 */
static int make_tmp(const char *target, char **tmp)
{
	char *dir = dir_of(target), *base = base_of(target);
	int fd, err;

	if (strlen(base) + 8 > NAME_MAX)
		ap_xasprintf(tmp, "%s/.alignprobe.XXXXXX", dir);
	else
		ap_xasprintf(tmp, "%s/.%s.XXXXXX", dir, base);
	free(dir);
	free(base);
	guard_signals();
	track(*tmp, true);
	fd = mkostemp(*tmp, O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		free_tmp(tmp);
		return -err;
	}
	return fd;
}

static mode_t default_mode(void)
{
	mode_t m = umask(0);

	umask(m);
	return 0666 & ~m;
}

/* The stat checks every output gets: 0 (*exists says whether it does) or -errno. */
static int check_target(const char *path, struct stat *st, bool *exists, struct ap_error *e)
{
	*exists = false;
	if (!path || !*path)
		return ap_error_set(e, EINVAL, "empty file name");
	if (stat(path, st) != 0) {
		if (errno == ENOENT)
			return 0;
		return ap_error_set(e, errno, "%s: %s", path, strerror(errno));
	}
	*exists = true;
	if (S_ISDIR(st->st_mode))
		return ap_error_set(e, EISDIR, "%s: %s", path, strerror(EISDIR));
	if (S_ISBLK(st->st_mode))
		return ap_error_set(e, EPERM, "%s: is a block device; output goes to files, "
				    "never onto a disk", path);
	return 0;
}

/* Is @st what descriptor @fd is open on? (/dev/stdout, /proc/self/fd/1) */
static bool same_file(const struct stat *st, int fd)
{
	struct stat f;

	return fstat(fd, &f) == 0 && f.st_dev == st->st_dev && f.st_ino == st->st_ino;
}

/* Open an existing file for writing without changing it: fd or -errno. */
static int open_existing(const char *path, int extra)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY | extra);

	return fd < 0 ? -errno : fd;
}

/* A disk image a loop device uses: replacing it would take the disk away (-EBUSY). */
static int refuse_loop_image(const char *path, const struct stat *st, struct ap_error *e)
{
	char loop[64];

	if (!S_ISREG(st->st_mode) ||
	    ap_blkdev_loop_backed_by(st->st_dev, st->st_ino, loop, sizeof(loop)) <= 0)
		return 0;
	return ap_error_set(e, EBUSY, "%s: the backing file of loop device /dev/%s: an output "
			    "never replaces a disk image in use", path, loop);
}

int ap_outfile_open(struct ap_outfile *of, const char *path, struct ap_error *e)
{
	struct stat st;
	bool exists;
	char *target;
	int fd, rc;

	memset(of, 0, sizeof(*of));
	of->fd = -1;
	if (path && strcmp(path, "-") == 0) {
		of->path = ap_xstrdup(path);
		of->is_stdout = true;
		of->stream = stdout;
		return 0;
	}
	rc = check_target(path, &st, &exists, e);
	if (rc)
		return rc;
	if (exists && same_file(&st, STDOUT_FILENO)) {
		/* /dev/stdout on a file: through the stream, after what it holds */
		of->path = ap_xstrdup(path);
		of->is_stdout = true;
		of->stream = stdout;
		return 0;
	}
	if (exists && (same_file(&st, STDERR_FILENO) || !S_ISREG(st.st_mode))) {
		/*
		 * Standard error's file (through its descriptor, after what it
		 * holds), a FIFO, a terminal, /dev/null: written directly,
		 * never replaced.
		 */
		fd = same_file(&st, STDERR_FILENO) ? fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3) :
		     open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
		if (fd < 0 || !(of->stream = fdopen(fd, "w"))) {
			rc = errno;
			if (fd >= 0)
				close(fd);
			return ap_error_set(e, rc, "%s: %s", path, strerror(rc));
		}
		of->path = ap_xstrdup(path);
		return 0;
	}
	if (exists) {
		rc = refuse_loop_image(path, &st, e);
		if (rc)
			return rc;
		/* may we write it? (opening does not change it) */
		fd = open_existing(path, O_NONBLOCK);
		if (fd < 0)
			return ap_error_set(e, -fd, "%s: %s", path, strerror(-fd));
		close(fd);
		target = realpath(path, NULL);
		if (!target)
			target = ap_xstrdup(path);
		of->mode = st.st_mode & 07777;
	} else {
		target = ap_xstrdup(path);
		of->mode = default_mode();
	}
	fd = make_tmp(target, &of->tmp);
	if (fd < 0) {
		free(target);
		return ap_error_set(e, -fd, "%s: cannot create: %s", path, strerror(-fd));
	}
	if (fchmod(fd, of->mode) != 0) {
		rc = -errno;
		close(fd);
		unlink(of->tmp);
		free_tmp(&of->tmp);
		free(target);
		return ap_error_set(e, -rc, "%s: cannot create: %s", path, strerror(-rc));
	}
	if (exists && fchown(fd, st.st_uid, st.st_gid) != 0) {
		/* not ours to give away: the new file is the writer's, as with cp */
	}
	of->path = target;
	of->fd = fd;
	test_hold();
	return 0;
}

int ap_outfile_set_mode(struct ap_outfile *of, mode_t mode)
{
	of->mode = mode & 07777;
	if (of->fd >= 0 && of->tmp && fchmod(of->fd, of->mode) != 0)
		return -errno;
	return 0;
}

int ap_outfile_rename(struct ap_outfile *of, const char *path, struct ap_error *e)
{
	char *d1, *d2;
	struct stat st;
	bool exists, same;
	int rc;

	if (!of->path || !of->tmp)
		return ap_error_set(e, EINVAL, "%s: cannot be renamed", path);
	d1 = dir_of(of->path);
	d2 = dir_of(path);
	same = strcmp(d1, d2) == 0;
	free(d1);
	free(d2);
	if (!same)
		return ap_error_set(e, EXDEV, "%s: not in the directory of %s", path, of->path);
	rc = check_target(path, &st, &exists, e);
	if (rc)
		return rc;
	if (exists && !S_ISREG(st.st_mode))
		return ap_error_set(e, EEXIST, "%s: exists and is not a regular file", path);
	free(of->path);
	of->path = ap_xstrdup(path);
	return 0;
}

int ap_outfile_write(struct ap_outfile *of, const void *buf, size_t len)
{
	int rc;

	of->dirty = true;
	if (of->stream)	/* a reader that went away (| head) is no error */
		return fwrite(buf, 1, len, of->stream) == len || ap_out_reader_gone(of->stream) ?
		       0 : -EIO;
	if (of->fd < 0)
		return -EBADF;
	rc = ap_pwrite_all(of->fd, buf, len, of->off);
	of->off += len;
	return rc;
}

static void free_names(struct ap_outfile *of)
{
	free(of->path);
	of->path = NULL;
	free(of->pending);
	of->pending = NULL;
	of->npending = 0;
}

static void close_tmp(struct ap_outfile *of, bool remove)
{
	if (of->fd >= 0)
		close(of->fd);
	of->fd = -1;
	if (of->tmp && remove)
		unlink(of->tmp);
	free_tmp(&of->tmp);
}

/* fsync, close and rename the temporary file over the target: 0 or -errno. */
static int publish(struct ap_outfile *of)
{
	int rc = 0;

	/* some file systems cannot sync (EINVAL); the rename is still atomic */
	if (fsync(of->fd) != 0 && errno != EINVAL && errno != EROFS)
		rc = -errno;
	if (close(of->fd) != 0 && !rc)
		rc = -errno;
	of->fd = -1;
	if (!rc && rename(of->tmp, of->path) != 0)
		rc = -errno;
	/* the rename itself on disk too; the file is in place either way */
	if (!rc)
		ap_fsync_dir_of(of->path);
	return rc;
}

int ap_outfile_commit(struct ap_outfile *of, struct ap_error *e)
{
	int rc = 0;

	if (!of->path)
		return 0;
	if (!of->dirty && !of->replaced && !of->pending) {
		/* nothing was written: nothing is created or replaced */
		ap_outfile_discard(of);
		return 0;
	}
	if (of->pending)
		rc = ap_outfile_write(of, of->pending, of->npending);
	if (of->stream) {
		int frc = ap_out_flush(of->stream);

		if (!rc)
			rc = frc;
		if (!of->is_stdout)
			fclose(of->stream);
		of->stream = NULL;
	} else if (of->replaced && !of->dirty) {
		/* everything is in place: the spare temporary file goes */
		close_tmp(of, true);
	} else {
		rc = publish(of);
		close_tmp(of, rc != 0);
	}
	if (rc)
		ap_error_set(e, -rc, "%s: %s", of->path, strerror(-rc));
	free_names(of);
	return rc;
}

int ap_outfile_replace(struct ap_outfile *of, const void *buf, size_t len, struct ap_error *e)
{
	char *tmp = NULL;
	int fd, rc;

	if (!of->path)
		return ap_error_set(e, EBADF, "output not open");
	if (!of->tmp) {
		/* standard output or a FIFO: the content once, at the end */
		free(of->pending);
		of->pending = ap_xmalloc(len ? len : 1);
		memcpy(of->pending, buf, len);
		of->npending = len;
		return 0;
	}
	of->replaced = true;
	rc = ap_pwrite_all(of->fd, buf, len, 0);
	if (!rc)
		rc = publish(of);
	if (rc) {
		close_tmp(of, true);
		ap_error_set(e, -rc, "%s: %s", of->path, strerror(-rc));
	} else {
		free_tmp(&of->tmp);
	}
	/* a fresh temporary file for the next update */
	fd = make_tmp(of->path, &tmp);
	if (fd < 0) {
		if (!rc)
			ap_error_set(e, -fd, "%s: cannot create: %s", of->path, strerror(-fd));
		return rc ? rc : fd;
	}
	if (fchmod(fd, of->mode) != 0) {
		/* keep the umask's permissions */
	}
	of->fd = fd;
	of->tmp = tmp;
	of->off = 0;
	of->dirty = false;
	return rc;
}

int ap_outfile_write_commit(struct ap_outfile *of, const char *name, const void *buf,
			    size_t len, struct ap_error *e)
{
	int rc = ap_outfile_write(of, buf, len);

	if (rc) {
		ap_error_set(e, -rc, "%s: %s", name, strerror(-rc));
		ap_outfile_discard(of);
		return rc;
	}
	return ap_outfile_commit(of, e);
}

void ap_outfile_discard(struct ap_outfile *of)
{
	if (!of->path)
		return;
	if (of->tmp)
		close_tmp(of, true);
	else if (of->stream && !of->is_stdout)
		fclose(of->stream);
	of->stream = NULL;
	free_names(of);
}

char *ap_path_canonical(const char *path)
{
	char *r = realpath(path, NULL), *d, *b, *rd;

	if (r)
		return r;
	d = dir_of(path);
	b = base_of(path);
	rd = realpath(d, NULL);
	if (rd)
		ap_xasprintf(&r, "%s/%s", rd, b);
	else
		r = ap_xstrdup(path);
	free(rd);
	free(d);
	free(b);
	return r;
}

bool ap_outfile_is(const struct ap_outfile *of, const char *path)
{
	struct stat a, b;
	char *ca, *cb;
	bool same;

	if (!of->path || of->is_stdout || !path)
		return false;
	if (stat(of->path, &a) == 0 && stat(path, &b) == 0)
		return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	ca = ap_path_canonical(of->path);
	cb = ap_path_canonical(path);
	same = strcmp(ca, cb) == 0;
	free(ca);
	free(cb);
	return same;
}

/* Create (and remove) a file next to @path: 0 or -errno. */
static int try_create(const char *path)
{
	char *tmp = NULL;
	int fd = make_tmp(path, &tmp);

	if (fd < 0)
		return fd;
	close(fd);
	unlink(tmp);
	free(tmp);
	return 0;
}

int ap_outfile_check(const char *path, bool must_not_exist, struct ap_error *e)
{
	struct stat st;
	bool exists;
	int fd, rc;

	rc = check_target(path, &st, &exists, e);
	if (rc)
		return rc;
	if (exists) {
		if (must_not_exist)
			return ap_error_set(e, EEXIST, "%s: %s", path, strerror(EEXIST));
		rc = refuse_loop_image(path, &st, e);
		if (rc)
			return rc;
		fd = open_existing(path, O_NONBLOCK);
		if (fd < 0 && fd != -ENXIO)	/* ENXIO: a FIFO nobody reads yet */
			return ap_error_set(e, -fd, "%s: %s", path, strerror(-fd));
		if (fd >= 0)
			close(fd);
		return 0;
	}
	rc = try_create(path);
	if (rc)
		return ap_error_set(e, -rc, "%s: cannot create: %s", path, strerror(-rc));
	return 0;
}

int ap_outfile_check_dir(const char *dir, struct ap_error *e)
{
	char *probe;
	int rc;

	ap_xasprintf(&probe, "%s/x", dir);
	rc = try_create(probe);
	free(probe);
	if (rc)
		return ap_error_set(e, -rc, "%s: cannot create files there: %s", dir, strerror(-rc));
	return 0;
}
