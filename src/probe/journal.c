// SPDX-License-Identifier: GPL-2.0-or-later
/* The undo journal of a preserving probe (see journal.h). */
#include "probe/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>

static const char journal_magic[8] = { 'A', 'P', 'U', 'N', 'D', 'O', 0, 1 };
#define JOURNAL_VERSION	2	/* 1: no identity, a fixed 4096-byte header */
#define FLAG_COMPLETE	1u
#define HDR_MAX		(1024 * 1024)

/* header field offsets */
#define H_MAGIC		0
#define H_VERSION	8
#define H_FLAGS		12
#define H_DEVSIZE	16
#define H_LOGICAL	24
#define H_RECLEN	28
#define H_NREC		32
#define H_CREATED	40
#define H_PID		48
#define H_HDRLEN	52	/* version 2 */
#define H_IDLEN		56	/* version 2 */
#define H_DEV		64
#define H_IDENT		320	/* version 2: the identity as JSON, H_IDLEN bytes */
#define H_CRC(len)	((len) - 4)

/* record header field offsets */
#define R_OFFSET	0
#define R_LEN		8
#define R_CRC		12
#define R_MAGIC		16

struct ap_journal {
	char *path;
	int fd;
	struct ap_journal_info info;
	char *ident;		/* the identity as JSON (version 2) */
	uint32_t hdr_len;
	unsigned char *hdr;
};

static uint64_t rec_stride(const struct ap_journal *j)
{
	return AP_JOURNAL_REC_HDR + (uint64_t)j->info.rec_len;
}

static uint64_t rec_pos(const struct ap_journal *j, uint64_t idx)
{
	return j->hdr_len + idx * rec_stride(j);
}

static void put32(unsigned char *b, size_t at, uint32_t v)
{
	memcpy(b + at, &v, sizeof(v));
}

static void put64(unsigned char *b, size_t at, uint64_t v)
{
	memcpy(b + at, &v, sizeof(v));
}

static uint32_t get32(const unsigned char *b, size_t at)
{
	uint32_t v;

	memcpy(&v, b + at, sizeof(v));
	return v;
}

static uint64_t get64(const unsigned char *b, size_t at)
{
	uint64_t v;

	memcpy(&v, b + at, sizeof(v));
	return v;
}

static void header_build(struct ap_journal *j)
{
	unsigned char *h = j->hdr;
	size_t idlen = strlen(j->ident);

	memset(h, 0, j->hdr_len);
	memcpy(h + H_MAGIC, journal_magic, sizeof(journal_magic));
	put32(h, H_VERSION, JOURNAL_VERSION);
	put32(h, H_FLAGS, j->info.complete ? FLAG_COMPLETE : 0);
	put64(h, H_DEVSIZE, j->info.dev_size);
	put32(h, H_LOGICAL, j->info.logical_sector);
	put32(h, H_RECLEN, j->info.rec_len);
	put64(h, H_NREC, j->info.nrec);
	put64(h, H_CREATED, (uint64_t)j->info.created);
	put32(h, H_PID, (uint32_t)j->info.pid);
	put32(h, H_HDRLEN, j->hdr_len);
	put32(h, H_IDLEN, (uint32_t)idlen);
	memcpy(h + H_DEV, j->info.dev, sizeof(j->info.dev));
	memcpy(h + H_IDENT, j->ident, idlen);
	put32(h, H_CRC(j->hdr_len), ap_crc32(0, h, H_CRC(j->hdr_len)));
}

static int write_at(int fd, const void *buf, size_t len, uint64_t off)
{
	return ap_pwrite_all(fd, buf, len, off);
}

int ap_journal_create(const char *path, const char *dev, const struct ap_disk_identity *id,
		      uint32_t rec_len, uint64_t nrec, struct ap_journal **out,
		      struct ap_error *e)
{
	struct json_object *o;
	struct ap_journal *j;
	size_t need;
	int rc;

	*out = NULL;
	if (!path || !dev || !id || !rec_len || strlen(dev) >= sizeof(j->info.dev))
		return ap_error_set(e, EINVAL, "%s: invalid journal parameters", path ? path : "?");
	j = ap_xcalloc(1, sizeof(*j));
	o = ap_identity_to_json(id);
	j->ident = ap_xstrdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	need = H_IDENT + strlen(j->ident) + 4;
	if (need > HDR_MAX) {
		free(j->ident);
		free(j);
		return ap_error_set(e, EINVAL, "%s: the disk's identity is too long for the "
				    "journal header", path);
	}
	j->hdr_len = (uint32_t)((need + AP_JOURNAL_HDR - 1) / AP_JOURNAL_HDR * AP_JOURNAL_HDR);
	j->hdr = ap_xcalloc(1, j->hdr_len);
	j->path = ap_xstrdup(path);
	j->fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (j->fd < 0) {
		rc = ap_error_set(e, errno, "cannot create undo journal %s: %s", path,
				  strerror(errno));
		j->fd = -1;
		ap_journal_close(j);
		return rc;
	}
	snprintf(j->info.dev, sizeof(j->info.dev), "%s", dev);
	j->info.version = JOURNAL_VERSION;
	ap_identity_copy(&j->info.id, id);
	j->info.has_identity = true;
	j->info.dev_size = id->size;
	j->info.logical_sector = id->logical_sector;
	j->info.rec_len = rec_len;
	j->info.nrec = nrec;
	j->info.created = (int64_t)time(NULL);
	j->info.pid = (int)getpid();
	header_build(j);
	rc = write_at(j->fd, j->hdr, j->hdr_len, 0);
	if (!rc && ftruncate(j->fd, (off_t)rec_pos(j, nrec)) != 0)
		rc = -errno;
	if (rc) {
		ap_error_set(e, -rc, "cannot write undo journal %s: %s", path, strerror(-rc));
		ap_journal_remove(j);
		return rc;
	}
	*out = j;
	return 0;
}

int ap_journal_put(struct ap_journal *j, uint64_t idx, uint64_t dev_offset, const void *data,
		   struct ap_error *e)
{
	unsigned char rh[AP_JOURNAL_REC_HDR];
	int rc;

	if (idx >= j->info.nrec || j->info.complete)
		return ap_error_set(e, EINVAL, "%s: record %llu out of range", j->path,
				    (unsigned long long)idx);
	memset(rh, 0, sizeof(rh));
	put64(rh, R_OFFSET, dev_offset);
	put32(rh, R_LEN, j->info.rec_len);
	put32(rh, R_CRC, ap_crc32(0, data, j->info.rec_len));
	memcpy(rh + R_MAGIC, journal_magic, sizeof(journal_magic));
	rc = write_at(j->fd, rh, sizeof(rh), rec_pos(j, idx));
	if (!rc)
		rc = write_at(j->fd, data, j->info.rec_len, rec_pos(j, idx) + sizeof(rh));
	if (rc)
		return ap_error_set(e, -rc, "cannot write undo journal %s: %s", j->path,
				    strerror(-rc));
	return 0;
}

int ap_journal_commit(struct ap_journal *j, struct ap_error *e)
{
	int rc = 0;

	if (fsync(j->fd) != 0)
		rc = -errno;
	if (!rc) {
		j->info.complete = true;
		header_build(j);
		rc = write_at(j->fd, j->hdr, j->hdr_len, 0);
	}
	if (!rc && fsync(j->fd) != 0)
		rc = -errno;
	if (!rc)
		rc = ap_fsync_dir_of(j->path);
	if (rc)
		return ap_error_set(e, -rc, "cannot commit undo journal %s: %s", j->path,
				    strerror(-rc));
	return 0;
}

/* The identity of a version 2 header (already CRC-checked). */
static int parse_identity(struct ap_journal *j, struct ap_error *e)
{
	uint32_t idlen = get32(j->hdr, H_IDLEN);
	struct ap_error ie = { 0 };
	struct json_tokener *tok;
	struct json_object *o;
	int rc;

	if (idlen == 0 || (uint64_t)H_IDENT + idlen > H_CRC(j->hdr_len) ||
	    memchr(j->hdr + H_IDENT, '\0', idlen))
		return ap_error_set(e, EINVAL, "%s: undo journal header is inconsistent (identity)",
				    j->path);
	j->ident = ap_xcalloc(1, (size_t)idlen + 1);
	memcpy(j->ident, j->hdr + H_IDENT, idlen);
	tok = json_tokener_new();
	if (!tok)
		return ap_error_set(e, ENOMEM, "out of memory");
	o = json_tokener_parse_ex(tok, j->ident, (int)idlen);
	if (!o || json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) != idlen) {
		json_tokener_free(tok);
		json_object_put(o);
		return ap_error_set(e, EINVAL, "%s: the disk identity in the journal header is "
				    "not valid JSON", j->path);
	}
	json_tokener_free(tok);
	rc = ap_identity_from_json(o, &j->info.id, &ie);
	json_object_put(o);
	if (rc)
		return ap_error_set(e, EINVAL, "%s: %s", j->path, ie.msg);
	if (j->info.id.size != j->info.dev_size ||
	    j->info.id.logical_sector != j->info.logical_sector)
		return ap_error_set(e, EINVAL, "%s: undo journal header is inconsistent (identity "
				    "and size differ)", j->path);
	j->info.has_identity = true;
	return 0;
}

int ap_journal_open(const char *path, struct ap_journal **out, struct ap_error *e)
{
	struct ap_journal *j;
	struct stat st;
	unsigned char *h;
	uint32_t version;
	int rc;

	*out = NULL;
	j = ap_xcalloc(1, sizeof(*j));
	j->path = ap_xstrdup(path);
	j->hdr_len = AP_JOURNAL_HDR;
	j->hdr = ap_xcalloc(1, AP_JOURNAL_HDR);
	j->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (j->fd < 0) {
		rc = ap_error_set(e, errno, "%s: %s", path, strerror(errno));
		goto fail;
	}
	h = j->hdr;
	rc = ap_pread_all(j->fd, h, AP_JOURNAL_HDR, 0);
	if (rc) {
		rc = ap_error_set(e, rc == -EIO ? EINVAL : -rc, "%s: not an alignprobe undo journal "
				  "(cannot read its header: %s)", path,
				  rc == -EIO ? "file too short" : strerror(-rc));
		goto fail;
	}
	version = get32(h, H_VERSION);
	if (memcmp(h + H_MAGIC, journal_magic, sizeof(journal_magic)) != 0 ||
	    version < 1 || version > JOURNAL_VERSION) {
		rc = ap_error_set(e, EINVAL, "%s: not an alignprobe undo journal (bad magic)", path);
		goto fail;
	}
	if (version >= 2) {
		uint32_t len = get32(h, H_HDRLEN);

		if (len < AP_JOURNAL_HDR || len > HDR_MAX || len % AP_JOURNAL_HDR) {
			rc = ap_error_set(e, EINVAL, "%s: undo journal header is damaged (length "
					  "%u)", path, len);
			goto fail;
		}
		if (len > AP_JOURNAL_HDR) {
			j->hdr = h = ap_xrealloc(j->hdr, len);
			j->hdr_len = len;
			rc = ap_pread_all(j->fd, h + AP_JOURNAL_HDR, len - AP_JOURNAL_HDR,
					  AP_JOURNAL_HDR);
			if (rc) {
				rc = ap_error_set(e, EINVAL, "%s: undo journal is truncated (in its "
						  "header)", path);
				goto fail;
			}
		}
	}
	if (get32(h, H_CRC(j->hdr_len)) != ap_crc32(0, h, H_CRC(j->hdr_len))) {
		rc = ap_error_set(e, EINVAL, "%s: undo journal header is damaged (CRC mismatch)",
				  path);
		goto fail;
	}
	j->info.version = version;
	j->info.complete = get32(h, H_FLAGS) & FLAG_COMPLETE;
	j->info.dev_size = get64(h, H_DEVSIZE);
	j->info.logical_sector = get32(h, H_LOGICAL);
	j->info.rec_len = get32(h, H_RECLEN);
	j->info.nrec = get64(h, H_NREC);
	j->info.created = (int64_t)get64(h, H_CREATED);
	j->info.pid = (int)get32(h, H_PID);
	memcpy(j->info.dev, h + H_DEV, sizeof(j->info.dev));
	j->info.dev[sizeof(j->info.dev) - 1] = '\0';
	if (!j->info.rec_len || !j->info.logical_sector ||
	    j->info.nrec > (UINT64_MAX - j->hdr_len) / rec_stride(j)) {
		rc = ap_error_set(e, EINVAL, "%s: undo journal header is inconsistent", path);
		goto fail;
	}
	if (version >= 2) {
		rc = parse_identity(j, e);
		if (rc)
			goto fail;
	} else {
		/* an older alignprobe's journal: the size is all it knows */
		j->info.id.size = j->info.dev_size;
		j->info.id.logical_sector = j->info.logical_sector;
	}
	if (fstat(j->fd, &st) != 0 || (uint64_t)st.st_size < rec_pos(j, j->info.nrec)) {
		rc = ap_error_set(e, EINVAL, "%s: undo journal is truncated (%llu records "
				  "expected)", path, (unsigned long long)j->info.nrec);
		goto fail;
	}
	*out = j;
	return 0;
fail:
	ap_journal_close(j);
	return rc;
}

const struct ap_journal_info *ap_journal_info(const struct ap_journal *j)
{
	return &j->info;
}

const char *ap_journal_path(const struct ap_journal *j)
{
	return j->path;
}

int ap_journal_record_offset(struct ap_journal *j, uint64_t idx, uint64_t *dev_offset)
{
	unsigned char rh[AP_JOURNAL_REC_HDR];
	int rc;

	if (idx >= j->info.nrec)
		return -EINVAL;
	rc = ap_pread_all(j->fd, rh, sizeof(rh), rec_pos(j, idx));
	if (rc)
		return rc;
	if (memcmp(rh + R_MAGIC, journal_magic, sizeof(journal_magic)) != 0 ||
	    get32(rh, R_LEN) != j->info.rec_len)
		return -EINVAL;
	*dev_offset = get64(rh, R_OFFSET);
	return 0;
}

int ap_journal_read(struct ap_journal *j, uint64_t idx, uint32_t at, void *buf, size_t len,
		    struct ap_error *e)
{
	int rc;

	if (idx >= j->info.nrec || (uint64_t)at + len > j->info.rec_len)
		return ap_error_set(e, EINVAL, "%s: read outside record %llu", j->path,
				    (unsigned long long)idx);
	rc = ap_pread_all(j->fd, buf, len, rec_pos(j, idx) + AP_JOURNAL_REC_HDR + at);
	if (rc)
		return ap_error_set(e, -rc, "cannot read undo journal %s: %s", j->path,
				    strerror(-rc));
	return 0;
}

static void *aligned_buf(size_t len)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, len ? len : 4096) != 0)
		return NULL;
	return p;
}

int ap_journal_restore(struct ap_journal *j, int fd, const char *dev,
		       struct ap_journal_restore_stats *st, struct ap_error *e)
{
	size_t len = j->info.rec_len;
	unsigned char rh[AP_JOURNAL_REC_HDR];
	unsigned char *want = aligned_buf(len), *have = aligned_buf(len);
	uint64_t i, bad = 0;
	int rc = 0;

	memset(st, 0, sizeof(*st));
	if (!want || !have) {
		free(want);
		free(have);
		return ap_error_set(e, ENOMEM, "out of memory");
	}
	if (!j->info.complete) {
		rc = ap_error_set(e, EINVAL, "%s: the journal is incomplete", j->path);
		goto out;
	}
	for (i = 0; i < j->info.nrec; i++) {
		uint64_t off;
		int r;

		r = ap_pread_all(j->fd, rh, sizeof(rh), rec_pos(j, i));
		if (!r)
			r = ap_pread_all(j->fd, want, len, rec_pos(j, i) + sizeof(rh));
		if (r) {
			rc = ap_error_set(e, -r, "%s: cannot read record %llu: %s", j->path,
					  (unsigned long long)i, strerror(-r));
			bad++;
			continue;
		}
		if (memcmp(rh + R_MAGIC, journal_magic, sizeof(journal_magic)) != 0 ||
		    get32(rh, R_LEN) != len || get32(rh, R_CRC) != ap_crc32(0, want, len)) {
			rc = ap_error_set(e, EIO, "%s: record %llu is damaged (CRC mismatch); "
					  "its range was not written", j->path,
					  (unsigned long long)i);
			bad++;
			continue;
		}
		off = get64(rh, R_OFFSET);
		st->records++;
		r = ap_pread_all(fd, have, len, off);
		if (!r && memcmp(have, want, len) == 0)
			continue;
		r = ap_pwrite_all(fd, want, len, off);
		if (!r)
			r = ap_pread_all(fd, have, len, off);
		if (!r && memcmp(have, want, len) != 0)
			r = -EIO;
		if (r) {
			rc = ap_error_set(e, -r, "%s: cannot restore %zu bytes at offset %llu: %s",
					  dev, len, (unsigned long long)off,
					  r == -EIO ? "read-back differs or I/O error" :
					  strerror(-r));
			bad++;
			continue;
		}
		st->restored++;
		st->bytes += len;
	}
	if (!bad && fdatasync(fd) != 0 && errno != EINVAL)
		rc = ap_error_set(e, errno, "%s: flush failed: %s", dev, strerror(errno));
out:
	free(want);
	free(have);
	return bad ? (rc ? rc : -EIO) : rc;
}

void ap_journal_close(struct ap_journal *j)
{
	if (!j)
		return;
	if (j->fd >= 0)
		close(j->fd);
	ap_identity_free(&j->info.id);
	free(j->ident);
	free(j->hdr);
	free(j->path);
	free(j);
}

int ap_journal_remove(struct ap_journal *j)
{
	int rc = 0;

	if (!j)
		return 0;
	if (unlink(j->path) != 0 && errno != ENOENT)
		rc = -errno;
	else
		ap_fsync_dir_of(j->path);
	ap_journal_close(j);
	return rc;
}
