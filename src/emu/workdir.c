// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An emulated drive's work directory (layout in emu/emuP.h): the state
 * directory that registered it, the sparse backing file (copied from an
 * image, holes kept) -- in memory where there is room --, and its removal
 * once the drive is down.
 */
#include "emu/emu.h"
#include "emu/emuP.h"
#include "lib/state.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC	0x01021994
#endif

/* Where a backing file lives in memory when the work directory is not there. */
#define AP_EMU_SHM_DIR	"/dev/shm"
#define AP_EMU_SHM_NAME	"alignprobe-emu."

/*
 * The directory of @workdir's backing file when it is our link into
 * AP_EMU_SHM_DIR (a directory AP_EMU_SHM_NAME*, nothing else), or NULL.
 */
static char *shm_dir_of(const char *workdir)
{
	char *path, target[PATH_MAX], *slash;
	ssize_t n;

	ap_xasprintf(&path, "%s/backing", workdir);
	n = readlink(path, target, sizeof(target) - 1);
	free(path);
	if (n <= 0)
		return NULL;
	target[n] = '\0';
	slash = strrchr(target, '/');
	if (!slash || strcmp(slash, "/backing") != 0)
		return NULL;
	*slash = '\0';
	if (strncmp(target, AP_EMU_SHM_DIR "/" AP_EMU_SHM_NAME,
		    strlen(AP_EMU_SHM_DIR "/" AP_EMU_SHM_NAME)) != 0 || strchr(target +
		    strlen(AP_EMU_SHM_DIR "/"), '/'))
		return NULL;
	return ap_xstrdup(target);
}

/* Remove the work directory's files and itself: 0, or -errno when it stays. */
int ap_emu_workdir_remove(const char *workdir)
{
	static const char *const files[] = { "backing", "stats", "log", "statedir", "volatile",
					     "identity", "claims" };
	char *path, *shm = shm_dir_of(workdir);
	size_t i;
	int rc = 0;

	if (shm) {
		ap_xasprintf(&path, "%s/backing", shm);
		unlink(path);
		free(path);
		rmdir(shm);
		free(shm);
	}
	for (i = 0; i < AP_ARRAY_SIZE(files); i++) {
		ap_xasprintf(&path, "%s/%s", workdir, files[i]);
		unlink(path);
		free(path);
	}
	ap_xasprintf(&path, "%s/mnt", workdir);
	rmdir(path);
	free(path);
	if (rmdir(workdir) != 0 && errno != ENOENT)
		rc = -errno;
	return rc;
}

/* The state directory as an absolute path, or NULL. */
char *ap_emu_state_dir_real(void)
{
	return realpath(ap_state_dir(), NULL);
}

/* The state directory that registered the drive in @workdir, or NULL. */
char *ap_emu_workdir_state_dir(const char *workdir)
{
	char *path, buf[PATH_MAX];
	ssize_t n;
	int fd;

	ap_xasprintf(&path, "%s/statedir", workdir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return ap_xstrdup(buf);
}

/* A new file @name of the work directory holding @text. */
static int write_new(const char *workdir, const char *name, const char *text, mode_t mode,
		     struct ap_error *e)
{
	char *path;
	int fd, rc = 0;

	ap_xasprintf(&path, "%s/%s", workdir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd < 0 || ap_pwrite_all(fd, text, strlen(text), 0) != 0)
		rc = ap_error_set(e, errno, "cannot write %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	free(path);
	return rc;
}

/* Which state directory registers this drive (see ap_emu_detach_device). */
int ap_emu_workdir_write_state_dir(const char *workdir, struct ap_error *e)
{
	char *dir = ap_emu_state_dir_real();
	int rc;

	if (!dir)
		return ap_error_set(e, errno, "state directory %s: %s", ap_state_dir(),
				    strerror(errno));
	rc = write_new(workdir, "statedir", dir, 0600, e);
	free(dir);
	return rc;
}

/*
 * Who the drive says it is (see ap_emu_drive_model()), for the identity
 * reader, and what it claims (min-io=, opt-io=): "claims", a line
 * "minimum_io_size=N" and one "optimal_io_size=N" for each claim made, for
 * the topology reader (the loop device cannot carry them).
 */
int ap_emu_workdir_write_identity(const char *workdir, const struct ap_emu_spec *s,
				  struct ap_error *e)
{
	char model[64], *line = NULL;
	int rc;

	ap_emu_drive_model(s, model, sizeof(model));
	ap_xasprintf(&line, "%s:%s::\n", AP_EMU_VENDOR, model);
	rc = write_new(workdir, "identity", line, 0644, e);
	free(line);
	if (rc)
		return rc;
	line = NULL;
	if (s->claim_min_io)
		ap_strappendf(&line, NULL, "minimum_io_size=%llu\n",
			      (unsigned long long)s->claim_min_io);
	if (s->claim_opt_io)
		ap_strappendf(&line, NULL, "optimal_io_size=%llu\n",
			      (unsigned long long)s->claim_opt_io);
	rc = write_new(workdir, "claims", line ? line : "", 0644, e);
	free(line);
	return rc;
}

int ap_emu_workdir_pretouch(int fd, uint64_t off, uint64_t len, void *buf, size_t bufsz)
{
	while (len) {
		size_t n = len < bufsz ? (size_t)len : bufsz;
		int rc = ap_pread_all(fd, buf, n, off);

		if (!rc)
			rc = ap_pwrite_all(fd, buf, n, off);
		if (rc)
			return rc;
		off += n;
		len -= n;
	}
	return 0;
}

/* Copy @src into @dst keeping holes; @dst is empty. */
static int copy_sparse(int src, int dst, uint64_t size)
{
	off_t data = 0, hole;

	for (;;) {
		data = lseek(src, data, SEEK_DATA);
		if (data < 0)
			return errno == ENXIO ? 0 : -errno;
		hole = lseek(src, data, SEEK_HOLE);
		if (hole < 0)
			return -errno;
		if ((uint64_t)hole > size)
			hole = (off_t)size;
		while (data < hole) {
			loff_t in = data, out = data;
			ssize_t n = copy_file_range(src, &in, dst, &out, (size_t)(hole - data), 0);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL)) {
				char buf[65536];
				size_t want = (size_t)(hole - data) < sizeof(buf) ?
					      (size_t)(hole - data) : sizeof(buf);
				int rc = ap_pread_all(src, buf, want, (uint64_t)data);

				if (rc)
					return rc;
				rc = ap_pwrite_all(dst, buf, want, (uint64_t)data);
				if (rc)
					return rc;
				n = (ssize_t)want;
			} else if (n <= 0) {
				return n < 0 ? -errno : -EIO;
			}
			data += n;
		}
	}
}

/* Is @dir on a memory file system? */
static bool on_tmpfs(const char *dir)
{
	struct statfs st;

	return statfs(dir, &st) == 0 && (unsigned long)st.f_type == TMPFS_MAGIC;
}

/*
 * The backing file's path: in the work directory when that is in memory
 * already; else in a directory of its own under AP_EMU_SHM_DIR, linked
 * from the work directory, when that memory file system has room for the
 * whole drive (the drive may fill it; tmpfs caps itself at half the RAM
 * by default); else in the work directory. On a disk's file system the
 * host's own first touch of a place (ext4 reserving blocks and dirtying
 * pages, which its writeback cleans again) cost a probe's first writes
 * into never-written places 1.2x to 4.3x its rewrites under load, no
 * cost of the drive modelled: a first-write unit of the host's. In
 * memory a page is allocated on its first write, 1.5 us, the same for
 * every write.
 */
static char *backing_path(const char *workdir, uint64_t capacity)
{
	struct statvfs vs;
	char *dir, *path, *link;

	ap_xasprintf(&path, "%s/backing", workdir);
	if (on_tmpfs(workdir) || !on_tmpfs(AP_EMU_SHM_DIR) || statvfs(AP_EMU_SHM_DIR, &vs) != 0 ||
	    (uint64_t)vs.f_bavail * vs.f_frsize < capacity)
		return path;
	ap_xasprintf(&dir, "%s/%sXXXXXX", AP_EMU_SHM_DIR, AP_EMU_SHM_NAME);
	if (!mkdtemp(dir)) {
		free(dir);
		return path;
	}
	ap_xasprintf(&link, "%s/backing", dir);
	if (symlink(link, path) != 0) {
		rmdir(dir);
		free(link);
		free(dir);
		return path;
	}
	free(path);
	free(dir);
	return link;
}

int ap_emu_workdir_make_backing(const char *workdir, struct ap_emu_spec *s, struct ap_error *e)
{
	char *path;
	int fd, img = -1, rc = 0;

	if (s->image) {
		img = ap_emu_image_open(s, e);
		if (img < 0)
			return img;
	}
	path = backing_path(workdir, s->capacity);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	free(path);
	if (fd < 0) {
		rc = ap_error_set(e, errno, "cannot create the backing file in %s: %s", workdir,
				  strerror(errno));
		goto out;
	}
	if (img >= 0) {
		rc = copy_sparse(img, fd, s->capacity);
		if (rc) {
			rc = ap_error_set(e, -rc, "cannot copy image %s: %s", s->image, strerror(-rc));
			goto out;
		}
	}
	if (ftruncate(fd, (off_t)s->capacity) != 0)
		rc = ap_error_set(e, errno, "cannot size the backing file: %s", strerror(errno));
out:
	if (fd >= 0)
		close(fd);
	if (img >= 0)
		close(img);
	return rc;
}
