// SPDX-License-Identifier: GPL-2.0-or-later
/* The undo journal of a preserving probe (see journal.h). */
#include "probe/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>

static const char journal_magic[8] = { 'A', 'P', 'U', 'N', 'D', 'O', 0, 1 };
/*
 * 3: the plan and a CRC over every record header; 2: no plan, record
 * headers outside any CRC; 1: no identity, a fixed 4096-byte header.
 */
#define JOURNAL_VERSION	4
#define JOURNAL_OLDEST	3	/* still restored: no margin, no write in flight */
#define FLAG_COMPLETE	1u
#define FLAG_METADATA	2u	/* the plan may touch LBA 0..33 and the last 33 sectors */
#define HDR_MAX		(1024 * 1024)
#define METADATA_LBAS	34	/* protective MBR, GPT header and entries */
#define BACKUP_LBAS	33	/* the backup GPT at the end */

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
#define H_HDRLEN	52
#define H_IDLEN		56
#define H_DEV		64
#define H_REGION_START	320
#define H_REGION_SIZE	328
#define H_STRIDE	336
#define H_NONCE		344
#define H_MARGIN	352	/* version 4 */
#define H_IDENT		384	/* the identity as JSON, H_IDLEN bytes */
#define H_CRC(len)	((len) - 4)

/* record header field offsets */
#define R_OFFSET	0
#define R_LEN		8
#define R_IDX		16
#define R_NONCE		24
#define R_MAGIC		32
#define R_CRC		(AP_JOURNAL_REC_HDR - 4)	/* of the header before it, then the data */

/* the write in flight's block (version 4), after the records */
static const char intent_magic[8] = { 'A', 'P', 'I', 'N', 'F', 'L', 'T', 0 };
#define I_MAGIC		0
#define I_NONCE		8
#define I_OFFSET	16
#define I_LENGTH	24
#define I_DONE		32
#define I_CRC		36

struct ap_journal {
	char *path;
	int fd;
	struct ap_journal_info info;
	char *ident;		/* the identity as JSON */
	uint64_t nonce;		/* ties the records to this header */
	uint32_t hdr_len;
	unsigned char *hdr;
	bool readonly;		/* opened read-only: no write in flight recorded */
};

static uint64_t rec_stride(const struct ap_journal *j)
{
	return AP_JOURNAL_REC_HDR + (uint64_t)j->info.rec_len;
}

static uint64_t rec_pos(const struct ap_journal *j, uint64_t idx)
{
	return j->hdr_len + idx * rec_stride(j);
}

/* The write in flight's block (version 4): after the last record. */
static uint64_t intent_pos(const struct ap_journal *j)
{
	return rec_pos(j, j->info.nrec);
}

static uint64_t file_len(const struct ap_journal *j)
{
	return intent_pos(j) + (j->info.version >= 4 ? AP_JOURNAL_INTENT : 0);
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
	put32(h, H_FLAGS, (j->info.complete ? FLAG_COMPLETE : 0) |
			  (j->info.plan.allow_metadata ? FLAG_METADATA : 0));
	put64(h, H_DEVSIZE, j->info.dev_size);
	put32(h, H_LOGICAL, j->info.logical_sector);
	put32(h, H_RECLEN, j->info.rec_len);
	put64(h, H_NREC, j->info.nrec);
	put64(h, H_CREATED, (uint64_t)j->info.created);
	put32(h, H_PID, (uint32_t)j->info.pid);
	put32(h, H_HDRLEN, j->hdr_len);
	put32(h, H_IDLEN, (uint32_t)idlen);
	memcpy(h + H_DEV, j->info.dev, sizeof(j->info.dev));
	put64(h, H_REGION_START, j->info.plan.region_start);
	put64(h, H_REGION_SIZE, j->info.plan.region_size);
	put64(h, H_STRIDE, j->info.plan.stride);
	put64(h, H_NONCE, j->nonce);
	put32(h, H_MARGIN, j->info.plan.margin);
	memcpy(h + H_IDENT, j->ident, idlen);
	put32(h, H_CRC(j->hdr_len), ap_crc32(0, h, H_CRC(j->hdr_len)));
}

static int write_at(int fd, const void *buf, size_t len, uint64_t off)
{
	return ap_pwrite_all(fd, buf, len, off);
}

/* The identity as the header stores it (JSON, to be freed). */
static char *identity_text(const struct ap_disk_identity *id)
{
	struct json_object *o = ap_identity_to_json(id);
	char *s = ap_xstrdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));

	json_object_put(o);
	return s;
}

static uint32_t header_len(size_t idlen)
{
	size_t need = H_IDENT + idlen + 4;

	return (uint32_t)((need + AP_JOURNAL_HDR - 1) / AP_JOURNAL_HDR * AP_JOURNAL_HDR);
}

uint64_t ap_journal_bytes(const struct ap_journal_plan *plan, const struct ap_disk_identity *id)
{
	char *ident = identity_text(id);
	uint64_t n = header_len(strlen(ident)) +
		     plan->slots * (AP_JOURNAL_REC_HDR + (uint64_t)plan->span) + AP_JOURNAL_INTENT;

	free(ident);
	return n;
}

int ap_journal_probe(const char *path)
{
	unsigned char m[sizeof(journal_magic)];
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return -errno;
	rc = ap_pread_all(fd, m, sizeof(m), 0);
	close(fd);
	if (rc)
		return rc == -EIO ? -EINVAL : rc;
	return memcmp(m, journal_magic, sizeof(m)) == 0 ? 0 : -EINVAL;
}

uint64_t ap_journal_plan_offset(const struct ap_journal_plan *plan, uint64_t idx)
{
	return plan->region_start + idx * plan->stride;
}

/* Do [a, a + alen) and [b, b + blen) share a byte? */
static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return alen && blen && a < b + blen && b < a + alen;
}

/*
 * The rules every plan keeps (journal.h): 0, or -EINVAL with the broken
 * rule in @why. The records' ranges are the plan's, so a plan that keeps
 * them keeps every record inside the device, the region and off the
 * fingerprinted and metadata ranges.
 */
static int plan_check(const struct ap_journal_plan *p, uint64_t dev_size, unsigned lss,
		      const struct ap_disk_identity *id, char *why, size_t n)
{
	uint64_t used, end;
	size_t i;

	if (!lss || !p->span || p->span % lss || !p->slots) {
		snprintf(why, n, "record length %u, %llu records", p->span,
			 (unsigned long long)p->slots);
		return -EINVAL;
	}
	if (p->margin && (p->margin % lss || 2 * (uint64_t)p->margin >= p->span)) {
		snprintf(why, n, "margin %u of records of %u bytes", p->margin, p->span);
		return -EINVAL;
	}
	if (p->region_start % lss || p->stride % lss || (p->slots > 1 && p->stride < p->span)) {
		snprintf(why, n, "region start %llu, stride %llu: records not on sector "
			 "boundaries or overlapping (%u bytes each)",
			 (unsigned long long)p->region_start, (unsigned long long)p->stride, p->span);
		return -EINVAL;
	}
	/* the last record's end, without overflow */
	if (p->slots - 1 > (UINT64_MAX - p->span) / (p->stride ? p->stride : 1) ||
	    (p->slots - 1) * p->stride + p->span > UINT64_MAX - p->region_start) {
		snprintf(why, n, "the records run past 2^64 bytes");
		return -EINVAL;
	}
	used = p->region_start + (p->slots - 1) * p->stride + p->span;
	if (p->region_size > UINT64_MAX - p->region_start ||
	    used > p->region_start + p->region_size ||
	    p->region_start + p->region_size > dev_size) {
		snprintf(why, n, "records up to byte %llu, region %llu bytes from %llu, device "
			 "%llu bytes", (unsigned long long)used, (unsigned long long)p->region_size,
			 (unsigned long long)p->region_start, (unsigned long long)dev_size);
		return -EINVAL;
	}
	end = p->region_start + p->region_size;
	if (!p->allow_metadata && (p->region_start < (uint64_t)METADATA_LBAS * lss ||
				   end > dev_size - (dev_size < (uint64_t)BACKUP_LBAS * lss ? dev_size :
						     (uint64_t)BACKUP_LBAS * lss))) {
		snprintf(why, n, "the region (%llu bytes from %llu) reaches into LBA 0..33 or the "
			 "last 33 sectors", (unsigned long long)p->region_size,
			 (unsigned long long)p->region_start);
		return -EINVAL;
	}
	for (i = 0; id && i < id->ncontent; i++) {
		if (overlaps(p->region_start, used - p->region_start, id->content[i].offset,
			     id->content[i].length)) {
			snprintf(why, n, "the records (bytes %llu..%llu) overlap the range the probe "
				 "never writes at %llu (%llu bytes)",
				 (unsigned long long)p->region_start, (unsigned long long)used - 1,
				 (unsigned long long)id->content[i].offset,
				 (unsigned long long)id->content[i].length);
			return -EINVAL;
		}
	}
	return 0;
}

static uint64_t new_nonce(void)
{
	uint64_t v = 0;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != (ssize_t)sizeof(v))
		v = ap_now_ns() ^ ((uint64_t)getpid() << 32);
	return v;
}

/* Write the write in flight's block (version 4): @len bytes at @off, done or not. */
static int intent_write(struct ap_journal *j, uint64_t off, uint64_t len, bool done)
{
	unsigned char b[AP_JOURNAL_INTENT];

	memset(b, 0, sizeof(b));
	memcpy(b + I_MAGIC, intent_magic, sizeof(intent_magic));
	put64(b, I_NONCE, j->nonce);
	put64(b, I_OFFSET, off);
	put64(b, I_LENGTH, len);
	put32(b, I_DONE, done);
	put32(b, I_CRC, ap_crc32(0, b, I_CRC));
	return write_at(j->fd, b, sizeof(b), intent_pos(j));
}

/* Read it into info.inflight: a block that is not this journal's (torn, say) names none. */
static void intent_read(struct ap_journal *j)
{
	unsigned char b[AP_JOURNAL_INTENT];

	j->info.inflight = false;
	if (ap_pread_all(j->fd, b, sizeof(b), intent_pos(j)) != 0 ||
	    memcmp(b + I_MAGIC, intent_magic, sizeof(intent_magic)) != 0 ||
	    get64(b, I_NONCE) != j->nonce || get32(b, I_CRC) != ap_crc32(0, b, I_CRC) ||
	    get32(b, I_DONE) || !get64(b, I_LENGTH))
		return;
	j->info.inflight = true;
	j->info.inflight_at.offset = get64(b, I_OFFSET);
	j->info.inflight_at.length = get64(b, I_LENGTH);
}

int ap_journal_intent(struct ap_journal *j, uint64_t offset, uint64_t length,
		      struct ap_error *e)
{
	int rc;

	if (j->readonly || j->info.version < 4)
		return -EBADF;
	rc = intent_write(j, offset, length, false);
	if (!rc && fdatasync(j->fd) != 0)
		rc = -errno;
	if (rc)
		return ap_error_set(e, -rc, "cannot record the write in flight in the undo journal "
				    "%s: %s", j->path, strerror(-rc));
	return 0;
}

int ap_journal_intent_done(struct ap_journal *j)
{
	if (j->readonly || j->info.version < 4)
		return -EBADF;
	return intent_write(j, 0, 0, true);
}

int ap_journal_create(const char *path, const char *dev, const struct ap_disk_identity *id,
		      const struct ap_journal_plan *plan, struct ap_journal **out,
		      struct ap_error *e)
{
	struct ap_journal *j;
	char why[256];
	size_t need;
	int rc;

	*out = NULL;
	if (!path || !dev || !id || !plan || strlen(dev) >= sizeof(j->info.dev))
		return ap_error_set(e, EINVAL, "%s: invalid journal parameters", path ? path : "?");
	if (plan_check(plan, id->size, id->logical_sector, id, why, sizeof(why)) != 0)
		return ap_error_set(e, EINVAL, "%s: the plan cannot be journalled: %s", path, why);
	j = ap_xcalloc(1, sizeof(*j));
	j->ident = identity_text(id);
	need = H_IDENT + strlen(j->ident) + 4;
	if (need > HDR_MAX) {
		free(j->ident);
		free(j);
		return ap_error_set(e, EINVAL, "%s: the disk's identity is too long for the "
				    "journal header", path);
	}
	j->hdr_len = header_len(strlen(j->ident));
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
	j->info.plan = *plan;
	j->info.dev_size = id->size;
	j->info.logical_sector = id->logical_sector;
	j->info.rec_len = plan->span;
	j->info.nrec = plan->slots;
	j->info.created = (int64_t)time(NULL);
	j->info.pid = (int)getpid();
	j->nonce = new_nonce();
	header_build(j);
	rc = write_at(j->fd, j->hdr, j->hdr_len, 0);
	if (!rc && ftruncate(j->fd, (off_t)file_len(j)) != 0)
		rc = -errno;
	/* the write in flight's block, allocated now: none in flight yet */
	if (!rc)
		rc = intent_write(j, 0, 0, true);
	if (rc) {
		ap_error_set(e, -rc, "cannot write undo journal %s: %s", path, strerror(-rc));
		ap_journal_remove(j);
		return rc;
	}
	*out = j;
	return 0;
}

/* Record @idx's header for @data (rec_len bytes). */
static void rec_header_build(const struct ap_journal *j, uint64_t idx, const void *data,
			     unsigned char *rh)
{
	memset(rh, 0, AP_JOURNAL_REC_HDR);
	put64(rh, R_OFFSET, ap_journal_plan_offset(&j->info.plan, idx));
	put32(rh, R_LEN, j->info.rec_len);
	put64(rh, R_IDX, idx);
	put64(rh, R_NONCE, j->nonce);
	memcpy(rh + R_MAGIC, journal_magic, sizeof(journal_magic));
	put32(rh, R_CRC, ap_crc32(ap_crc32(0, rh, R_CRC), data, j->info.rec_len));
}

int ap_journal_put(struct ap_journal *j, uint64_t idx, const void *data, struct ap_error *e)
{
	unsigned char rh[AP_JOURNAL_REC_HDR];
	int rc;

	if (idx >= j->info.nrec || j->info.complete)
		return ap_error_set(e, EINVAL, "%s: record %llu out of range", j->path,
				    (unsigned long long)idx);
	rec_header_build(j, idx, data, rh);
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

/* The identity of the header (already CRC-checked). */
static int parse_identity(struct ap_journal *j, struct ap_error *e)
{
	uint32_t idlen = get32(j->hdr, H_IDLEN);
	struct ap_error ie = { 0 };
	struct json_tokener *tok;
	struct json_object *o;
	int rc;

	if (idlen == 0 || (uint64_t)H_IDENT + idlen > H_CRC(j->hdr_len) ||
	    memchr(j->hdr + H_IDENT, '\0', idlen))
		return ap_error_set(e, EBADMSG, "%s: undo journal header is inconsistent "
				    "(identity)", j->path);
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
		return ap_error_set(e, EBADMSG, "%s: the disk identity in the journal header is "
				    "not valid JSON", j->path);
	}
	json_tokener_free(tok);
	rc = ap_identity_from_json(o, &j->info.id, &ie);
	json_object_put(o);
	if (rc)
		return ap_error_set(e, EBADMSG, "%s: %s", j->path, ie.msg);
	if (j->info.id.size != j->info.dev_size ||
	    j->info.id.logical_sector != j->info.logical_sector)
		return ap_error_set(e, EBADMSG, "%s: undo journal header is inconsistent (identity "
				    "and size differ)", j->path);
	return 0;
}

int ap_journal_open(const char *path, struct ap_journal **out, struct ap_error *e)
{
	struct ap_journal *j;
	struct stat st;
	unsigned char *h;
	uint32_t version;
	char why[256];
	int rc;

	*out = NULL;
	j = ap_xcalloc(1, sizeof(*j));
	j->path = ap_xstrdup(path);
	j->hdr_len = AP_JOURNAL_HDR;
	j->hdr = ap_xcalloc(1, AP_JOURNAL_HDR);
	/* read-write for the restore's own writes in flight (ap_journal_intent()) */
	j->fd = open(path, O_RDWR | O_CLOEXEC);
	j->readonly = j->fd < 0;
	if (j->fd < 0)
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
	if (memcmp(h + H_MAGIC, journal_magic, sizeof(journal_magic)) != 0 || version < 1) {
		rc = ap_error_set(e, EINVAL, "%s: not an alignprobe undo journal (bad magic)", path);
		goto fail;
	}
	if (version < JOURNAL_OLDEST || version > JOURNAL_VERSION) {
		rc = ap_error_set(e, EBADMSG, "%s: an undo journal of version %u, %s; this "
				  "alignprobe restores only versions %u and %u, whose every byte is "
				  "under a CRC and checked against the probe's plan (a preserving "
				  "probe writes back the bytes it read: after a SIGKILL the disk "
				  "holds them already)", path, version,
				  version < JOURNAL_VERSION ? "written by an older alignprobe" :
				  "written by a newer alignprobe", JOURNAL_OLDEST, JOURNAL_VERSION);
		goto fail;
	}
	{
		uint32_t len = get32(h, H_HDRLEN);

		if (len < AP_JOURNAL_HDR || len > HDR_MAX || len % AP_JOURNAL_HDR) {
			rc = ap_error_set(e, EBADMSG, "%s: undo journal header is damaged (length "
					  "%u)", path, len);
			goto fail;
		}
		if (len > AP_JOURNAL_HDR) {
			j->hdr = h = ap_xrealloc(j->hdr, len);
			j->hdr_len = len;
			rc = ap_pread_all(j->fd, h + AP_JOURNAL_HDR, len - AP_JOURNAL_HDR,
					  AP_JOURNAL_HDR);
			if (rc) {
				rc = ap_error_set(e, EBADMSG, "%s: undo journal is truncated (in "
						  "its header)", path);
				goto fail;
			}
		}
	}
	if (get32(h, H_CRC(j->hdr_len)) != ap_crc32(0, h, H_CRC(j->hdr_len))) {
		rc = ap_error_set(e, EBADMSG, "%s: undo journal header is damaged (CRC mismatch)",
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
	j->info.plan.region_start = get64(h, H_REGION_START);
	j->info.plan.region_size = get64(h, H_REGION_SIZE);
	j->info.plan.stride = get64(h, H_STRIDE);
	j->info.plan.slots = j->info.nrec;
	j->info.plan.span = j->info.rec_len;
	j->info.plan.allow_metadata = get32(h, H_FLAGS) & FLAG_METADATA;
	j->info.plan.margin = version >= 4 ? get32(h, H_MARGIN) : 0;
	j->nonce = get64(h, H_NONCE);
	if (!j->info.rec_len || !j->info.logical_sector ||
	    j->info.nrec > (UINT64_MAX - j->hdr_len) / rec_stride(j)) {
		rc = ap_error_set(e, EBADMSG, "%s: undo journal header is inconsistent", path);
		goto fail;
	}
	rc = parse_identity(j, e);
	if (rc)
		goto fail;
	if (plan_check(&j->info.plan, j->info.dev_size, j->info.logical_sector, &j->info.id,
		       why, sizeof(why)) != 0) {
		rc = ap_error_set(e, EBADMSG, "%s: the undo journal's plan is impossible: %s; "
				  "nothing was written", path, why);
		goto fail;
	}
	if (fstat(j->fd, &st) != 0 || (uint64_t)st.st_size < file_len(j)) {
		rc = ap_error_set(e, EBADMSG, "%s: undo journal is truncated (%llu records "
				  "expected)", path, (unsigned long long)j->info.nrec);
		goto fail;
	}
	if (version >= 4)
		intent_read(j);
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

/*
 * Record @idx's header @rh against the plan and this header's nonce, and
 * (@data not NULL) its CRC over header and data: 0 or -EBADMSG with @why.
 */
static int rec_check(const struct ap_journal *j, uint64_t idx, const unsigned char *rh,
		     const void *data, char *why, size_t n)
{
	uint64_t want = ap_journal_plan_offset(&j->info.plan, idx);

	if (memcmp(rh + R_MAGIC, journal_magic, sizeof(journal_magic)) != 0 ||
	    get64(rh, R_NONCE) != j->nonce || get64(rh, R_IDX) != idx ||
	    get32(rh, R_LEN) != j->info.rec_len) {
		snprintf(why, n, "its header is not this journal's record %llu",
			 (unsigned long long)idx);
		return -EBADMSG;
	}
	if (get64(rh, R_OFFSET) != want) {
		snprintf(why, n, "its device offset %llu is not the plan's %llu",
			 (unsigned long long)get64(rh, R_OFFSET), (unsigned long long)want);
		return -EBADMSG;
	}
	if (data && get32(rh, R_CRC) != ap_crc32(ap_crc32(0, rh, R_CRC), data,
						 j->info.rec_len)) {
		snprintf(why, n, "CRC mismatch");
		return -EBADMSG;
	}
	return 0;
}

int ap_journal_record_offset(struct ap_journal *j, uint64_t idx, uint64_t *dev_offset)
{
	unsigned char rh[AP_JOURNAL_REC_HDR];
	char why[160];
	int rc;

	if (idx >= j->info.nrec)
		return -EINVAL;
	rc = ap_pread_all(j->fd, rh, sizeof(rh), rec_pos(j, idx));
	if (!rc)
		rc = rec_check(j, idx, rh, NULL, why, sizeof(why));
	if (rc)
		return rc;
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

int ap_journal_read_record(struct ap_journal *j, uint64_t idx, void *want, struct ap_error *e)
{
	unsigned char rh[AP_JOURNAL_REC_HDR];
	char why[160];
	int r;

	r = idx < j->info.nrec ? ap_pread_all(j->fd, rh, sizeof(rh), rec_pos(j, idx)) : -EINVAL;
	if (!r)
		r = ap_pread_all(j->fd, want, j->info.rec_len, rec_pos(j, idx) + sizeof(rh));
	if (r)
		return ap_error_set(e, -r, "%s: cannot read record %llu: %s", j->path,
				    (unsigned long long)idx, strerror(-r));
	if (rec_check(j, idx, rh, want, why, sizeof(why)) != 0)
		return ap_error_set(e, EBADMSG, "%s: record %llu is damaged (%s)", j->path,
				    (unsigned long long)idx, why);
	return 0;
}

/* The first and last differing logical sector of @a and @b, as a device range at @off. */
static struct ap_journal_range diff_range(const unsigned char *a, const unsigned char *b,
					  size_t len, unsigned lss, uint64_t off)
{
	struct ap_journal_range r = { 0, 0 };
	size_t lo = 0, hi = len;

	while (lo < len && memcmp(a + lo, b + lo, lss) == 0)
		lo += lss;
	while (hi > lo && memcmp(a + hi - lss, b + hi - lss, lss) == 0)
		hi -= lss;
	r.offset = off + lo;
	r.length = hi - lo;
	return r;
}

/* The "N ranges changed" refusal: the ranges named in @e. */
static int refuse_changed(const struct ap_journal_restore_stats *st, const char *dev,
			  struct ap_error *e)
{
	char list[320] = "";
	size_t len = 0, i, shown = st->changed < AP_JOURNAL_CHANGED_MAX ? st->changed :
				  AP_JOURNAL_CHANGED_MAX;

	for (i = 0; i < shown && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%llu+%llu", i ? ", " : "",
					(unsigned long long)st->changed_at[i].offset,
					(unsigned long long)st->changed_at[i].length);
	return ap_error_set(e, EPERM, "%s: %llu of the journal's ranges were changed since the "
			    "probe (they hold neither the bytes it read nor what it wrote): "
			    "bytes %s%s; someone else wrote there (or a power cut tore a write); "
			    "nothing was written, the journal is kept (--force restores them "
			    "anyway)", dev, (unsigned long long)st->changed, list,
			    st->changed > shown ? ", ..." : "");
}

int ap_journal_restore(struct ap_journal *j, int fd, const char *dev, bool force,
		       struct ap_journal_restore_stats *st, struct ap_error *e)
{
	size_t len = j->info.rec_len;
	unsigned char *want = aligned_buf(len), *have = aligned_buf(len);
	unsigned char *differs = NULL;
	uint64_t i, bad = 0, ndiff = 0;
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
	differs = ap_xcalloc(j->info.nrec, 1);
	/*
	 * Pass 1, nothing written: every record checked, every range compared.
	 * A preserving probe writes back the bytes it read: a range that is
	 * not those bytes is not what the probe left there.
	 */
	for (i = 0; i < j->info.nrec; i++) {
		uint64_t off = ap_journal_plan_offset(&j->info.plan, i);
		int r;

		rc = ap_journal_read_record(j, i, want, e);
		if (rc) {
			char tmp[sizeof(e->msg)];

			memcpy(tmp, e->msg, sizeof(tmp));
			ap_error_set(e, e->code, "%.480s; nothing was written", tmp);
			goto out;
		}
		r = ap_pread_all(fd, have, len, off);
		if (r) {
			rc = ap_error_set(e, -r, "%s: cannot read %zu bytes at offset %llu: %s; "
					  "nothing was written", dev, len, (unsigned long long)off,
					  strerror(-r));
			goto out;
		}
		st->records++;
		if (memcmp(have, want, len) == 0)
			continue;
		/* the write in flight at a power cut, torn: the probe's own */
		if (j->info.inflight && j->info.plan.margin &&
		    ap_journal_torn_explains(have, want, len, off, j->info.logical_sector,
					     &j->info.inflight_at, j->info.plan.margin)) {
			differs[i] = 2;
			continue;
		}
		differs[i] = 1;
		ndiff++;
		if (st->changed < AP_JOURNAL_CHANGED_MAX)
			st->changed_at[st->changed] = diff_range(have, want, len,
								 j->info.logical_sector, off);
		st->changed++;
	}
	if (ndiff && !force) {
		rc = refuse_changed(st, dev, e);
		goto out;
	}
	/* pass 2: write back what differs, each record checked again as it is read */
	for (i = 0; i < j->info.nrec; i++) {
		uint64_t off = ap_journal_plan_offset(&j->info.plan, i);
		int r;

		if (!differs[i])
			continue;
		r = ap_journal_read_record(j, i, want, e);
		if (r) {
			rc = r;
			bad++;
			break;
		}
		/* a power cut during this write leaves a journal that explains it */
		ap_journal_intent(j, off, len, &(struct ap_error){ 0 });
		r = ap_pwrite_all(fd, want, len, off);
		if (!r)
			ap_journal_intent_done(j);
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
		st->torn += differs[i] == 2;
		st->bytes += len;
	}
	if (!bad && fdatasync(fd) != 0 && errno != EINVAL)
		rc = ap_error_set(e, errno, "%s: flush failed: %s", dev, strerror(errno));
out:
	free(differs);
	free(want);
	free(have);
	return bad && !rc ? -EIO : rc;
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
