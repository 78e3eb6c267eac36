// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a power cut does to the emulated drive's data (the server calls it;
 * the cost model's part is model.c's). The server writes every write to
 * the backing file at once, so the volatile write cache is a log of
 * pre-images: before a write that the model keeps in the cache only
 * (c->cached) lands in the backing file, the bytes it overwrites that the
 * log does not hold yet are appended to @workdir/volatile; a destage
 * (c->drained) empties the log, and a power cut writes it back, which
 * leaves the backing file as the media held it at the last destage. A
 * media write in flight is torn as ap_emu_model_torn() says. Plain file
 * I/O: always built (the unit tests use it).
 */
#include "emu/model.h"
#include "emu/emuP.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ap_emu_vlog_open(struct ap_emu_vlog *v, const char *workdir)
{
	char *path;

	memset(v, 0, sizeof(*v));
	ap_xasprintf(&path, "%s/volatile", workdir);
	v->fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	free(path);
	return v->fd < 0 ? -errno : 0;
}

void ap_emu_vlog_close(struct ap_emu_vlog *v)
{
	if (v->fd >= 0)
		close(v->fd);
	free(v->rec);
	memset(v, 0, sizeof(*v));
	v->fd = -1;
}

void ap_emu_vlog_clear(struct ap_emu_vlog *v)
{
	v->nrec = 0;
	v->end = 0;
	v->writes = 0;
	if (v->fd >= 0 && ftruncate(v->fd, 0) != 0) {
		/* the next records overwrite the old ones: only space is lost */
	}
}

/* Log the pre-image of [off, off + len) at record index @at (sorted). */
static int vlog_put(struct ap_emu_vlog *v, int fd, uint64_t off, uint64_t len, size_t at)
{
	char buf[65536];
	uint64_t done;
	int rc;

	for (done = 0; done < len; done += sizeof(buf) < len - done ? sizeof(buf) : len - done) {
		size_t n = sizeof(buf) < len - done ? sizeof(buf) : (size_t)(len - done);

		rc = ap_pread_all(fd, buf, n, off + done);
		if (rc == 0)
			rc = ap_pwrite_all(v->fd, buf, n, v->end + done);
		if (rc)
			return rc;
	}
	if (v->nrec == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 64;
		v->rec = ap_xreallocarray(v->rec, v->cap, sizeof(*v->rec));
	}
	memmove(&v->rec[at + 1], &v->rec[at], (v->nrec - at) * sizeof(*v->rec));
	v->rec[at].off = off;
	v->rec[at].len = len;
	v->rec[at].pos = v->end;
	v->nrec++;
	v->end += len;
	return 0;
}

int ap_emu_vlog_keep(struct ap_emu_vlog *v, int fd, uint64_t off, uint64_t len)
{
	uint64_t cur = off, end = off + len;
	size_t i = 0;
	int rc;

	if (v->fd < 0 || !len)
		return v->fd < 0 ? -EBADF : 0;
	v->writes++;
	/* the records are disjoint and sorted: log the gaps of [off, end) */
	while (i < v->nrec && v->rec[i].off + v->rec[i].len <= cur)
		i++;
	while (cur < end) {
		uint64_t gap_end = i < v->nrec && v->rec[i].off < end ? v->rec[i].off : end;

		if (gap_end > cur) {
			rc = vlog_put(v, fd, cur, gap_end - cur, i);
			if (rc)
				return rc;
			i++;
		}
		if (i >= v->nrec || v->rec[i].off >= end)
			break;
		cur = v->rec[i].off + v->rec[i].len;
		i++;
	}
	return 0;
}

int ap_emu_vlog_undo(struct ap_emu_vlog *v, int fd, uint64_t *lost)
{
	char buf[65536];
	size_t i;
	int rc = 0;

	*lost = v->writes;
	for (i = 0; i < v->nrec && !rc; i++) {
		uint64_t done;

		for (done = 0; done < v->rec[i].len && !rc; done += sizeof(buf)) {
			size_t n = sizeof(buf) < v->rec[i].len - done ? sizeof(buf) :
				   (size_t)(v->rec[i].len - done);

			rc = ap_pread_all(v->fd, buf, n, v->rec[i].pos + done);
			if (rc == 0)
				rc = ap_pwrite_all(fd, buf, n, v->rec[i].off + done);
		}
	}
	ap_emu_vlog_clear(v);
	return rc;
}

int ap_emu_tear(const struct ap_emu_model *m, int fd, uint64_t capacity, uint64_t off,
		uint64_t len, const void *data, unsigned *torn)
{
	uint64_t so, sl;
	char *span;
	int rc;

	*torn = 0;
	ap_emu_model_torn_span(m, off, len, &so, &sl);
	if (so + sl > capacity)
		sl = capacity - so;
	span = ap_xmalloc(sl);
	rc = ap_pread_all(fd, span, sl, so);
	if (rc == 0) {
		*torn = ap_emu_model_torn(m, off, len, data, so, sl, span);
		rc = ap_pwrite_all(fd, span, sl, so);
	}
	free(span);
	return rc;
}
