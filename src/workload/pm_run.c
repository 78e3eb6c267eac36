// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The workload engine: PostMark 1.5x's sequence of file operations and
 * random draws (shared/postmark-spec.md), with its defects fixed.
 *
 * Memory: PostMark keeps 2N slots of an 81-byte name and an int. A name is
 * only the decimal value of the created-files counter at the time of the
 * create, plus the location and subdirectory chosen then, so a slot here
 * is 16 bytes {number, size, directory index}; a bitmap of free slots makes
 * PostMark's "first free slot from 0" search word-at-a-time.
 *
 * Files are opened relative to a descriptor of their location directory
 * (openat), so a location path can have any length and is resolved once.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cancel.h"
#include "workload/datagen.h"
#include "workload/pm.h"
#include "workload/pm_hist.h"
#include "workload/pm_rng.h"
#include "workload/pm_slots.h"
#include "workload/pm_sync.h"

#define PM_ALIGN	4096	/* buffers: page-aligned for O_DIRECT */

struct pm_loc {
	int fd;			/* the location directory */
	const char *path;	/* for messages; NULL: cwd with bare names */
	uint64_t cumw;		/* cumulative weight up to and including this one */
	size_t align;		/* direct I/O alignment, 0 until known */
};

struct pm_run {
	const struct ap_pm_config *cfg;
	const struct ap_pm_sync_ops *ops;
	struct ap_pm_result *res;
	struct ap_error *e;
	struct ap_pm_rng rng;

	struct ap_pm_slots t;	/* PostMark's 2N file table */
	uint64_t next_id;	/* PostMark's files_created: names 1, 2, 3... */

	struct pm_loc *locs;
	size_t nlocs;
	uint64_t total_weight;
	uint64_t nsub;		/* subdirectories per location (1 when unused) */
	unsigned char *made;	/* nlocs * nsub: subdirectory made by this run */

	char *src;		/* source buffer, size_hi bytes */
	char *rbuf;		/* read buffer */
	size_t rbuf_len;
	struct ap_datagen gen;

	struct ap_pm_hist *hist;	/* AP_PM_OP_COUNT */
	int phase;
	uint64_t phase_t0;
	uint64_t prog_step, prog_next, prog_total;
};

/* ---- names ---- */

/* Decimal digits of @v at @p, two at a time; returns the end. */
static char *put_u64(char *p, uint64_t v)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	char tmp[24], *q = tmp + sizeof(tmp);
	size_t n;

	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;

		v /= 100;
		*--q = pairs[d + 1];
		*--q = pairs[d];
	}
	if (v >= 10) {
		*--q = pairs[v * 2 + 1];
		*--q = pairs[v * 2];
	} else {
		*--q = (char)('0' + v);
	}
	n = (size_t)(tmp + sizeof(tmp) - q);
	memcpy(p, q, n);
	return p + n;
}

/* The file's name relative to its location: "123" or "s4/123". */
static void slot_name(const struct pm_run *r, const struct ap_pm_slot *s, char *buf)
{
	char *p = buf;

	if (r->nsub > 1) {
		*p++ = 's';
		p = put_u64(p, s->dir % r->nsub);
		*p++ = '/';
	}
	p = put_u64(p, s->id);
	*p = '\0';
}

static struct pm_loc *slot_loc(const struct pm_run *r, const struct ap_pm_slot *s)
{
	return &r->locs[s->dir / r->nsub];
}

/* An error about a slot's file: "create '/mnt/s3/17': write: No space...". */
static int file_error(struct pm_run *r, const struct ap_pm_slot *s, const char *op,
		      const char *call, int err)
{
	const struct pm_loc *l = slot_loc(r, s);
	char name[64];

	if (err == EINTR && ap_cancelled(&r->cfg->cancel))
		return -EINTR;
	slot_name(r, s, name);
	if (err == EINVAL && r->cfg->sync == AP_PM_SYNC_DIRECT && !strcmp(call, "open"))
		return ap_error_set(r->e, err, "%s '%s%s%s': %s: %s (does the file system "
				    "support O_DIRECT?)", op, l->path ? l->path : "",
				    l->path ? "/" : "", name, call, strerror(err));
	return ap_error_set(r->e, err, "%s '%s%s%s': %s: %s", op, l->path ? l->path : "",
			    l->path ? "/" : "", name, call, strerror(err));
}

/* ---- operations ---- */

static inline void record(struct pm_run *r, enum ap_pm_op op, uint64_t t0)
{
	ap_pm_hist_add(&r->hist[op], ap_now_ns() - t0);
}

static void fill_source(struct pm_run *r, size_t len)
{
	if (r->cfg->data == AP_PM_DATA_RANDOM)
		ap_datagen_fill(&r->gen, r->src, len);
}

static size_t dio_align(struct pm_run *r, struct pm_loc *l, int fd)
{
	if (!l->align) {
#ifdef STATX_DIOALIGN
		struct statx stx;

		if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) == 0 &&
		    (stx.stx_mask & STATX_DIOALIGN) && stx.stx_dio_offset_align &&
		    !(stx.stx_dio_offset_align & (stx.stx_dio_offset_align - 1)))
			l->align = stx.stx_dio_offset_align;
		else
#endif
			l->align = 4096;
		(void)r;
	}
	return l->align;
}

/* Open, write @len bytes from the source buffer, sync, close. */
static int write_file(struct pm_run *r, struct ap_pm_slot *s, const char *op, int flags,
		      mode_t mode, uint64_t len)
{
	const struct ap_pm_config *cfg = r->cfg;
	struct pm_loc *l = slot_loc(r, s);
	struct ap_pm_wfile w = { .fd = -1, .cancel = &cfg->cancel };
	char name[64];
	uint64_t off = 0, chunk, t;
	int rc;

	slot_name(r, s, name);
	fill_source(r, (size_t)len);
	w.fd = openat(l->fd, name, flags | r->ops->open_flags | O_CLOEXEC, mode);
	if (w.fd < 0)
		return file_error(r, s, op, "open", errno);
	if (flags & O_APPEND)
		w.pos = s->size;
	if (cfg->sync == AP_PM_SYNC_DIRECT)
		w.align = dio_align(r, l, w.fd);

	/* stdio mode: one write per operation; raw mode: block by block.
	 * All writes come from the start of the source buffer (PostMark). */
	chunk = cfg->buffering ? len : cfg->write_block;
	while (off < len) {
		uint64_t n = len - off < chunk ? len - off : chunk;

		rc = r->ops->write(&w, r->src + off, (size_t)n);
		if (rc) {
			rc = file_error(r, s, op, "write", -rc);
			goto fail;
		}
		off += n;
	}
	if (r->ops->sync) {
		t = ap_now_ns();
		rc = r->ops->sync(w.fd);
		if (rc) {
			rc = file_error(r, s, op, r->cfg->sync == AP_PM_SYNC_FSYNC ?
					"fsync" : "fdatasync", -rc);
			goto fail;
		}
		record(r, AP_PM_OP_SYNC, t);
	}
	if (close(w.fd) < 0)
		return file_error(r, s, op, "close", errno);
	return 0;
fail:
	close(w.fd);
	return rc;
}

/*
 * PostMark's write_blocks() reads from file_source + offset: the source
 * buffer is contiguous, so block k of a file holds bytes k*B.. of the
 * buffer. The loop above does the same: off advances through r->src.
 */

static void progress(struct pm_run *r, uint64_t done)
{
	if (r->cfg->progress && done >= r->prog_next) {
		r->cfg->progress(r->cfg->progress_ctx, r->phase, done, r->prog_total);
		r->prog_next = done + r->prog_step;
	}
}

static int op_create(struct pm_run *r, bool mixed)
{
	const struct ap_pm_config *cfg = r->cfg;
	struct ap_pm_slot *s;
	uint64_t loc = 0, sub = 0, t;
	int64_t idx;
	int rc;

	idx = ap_pm_slots_find_free(&r->t);
	if (idx < 0)
		return 0;			/* table full: nothing, no draw */
	s = &r->t.slot[idx];
	if (cfg->nlocations > 1) {
		uint64_t u = ap_pm_rnd(&r->rng, r->total_weight);

		while (r->locs[loc].cumw <= u)
			loc++;
	}
	if (r->nsub > 1)
		sub = ap_pm_rnd(&r->rng, r->nsub);
	s->id = ++r->next_id;
	s->dir = (uint32_t)(loc * r->nsub + sub);
	ap_pm_slots_take(&r->t, (uint64_t)idx,
			 (uint32_t)(cfg->size_lo + ap_pm_rnd(&r->rng, cfg->size_hi - cfg->size_lo)));

	t = ap_now_ns();
	rc = write_file(r, s, "create",
			cfg->buffering ? O_WRONLY | O_CREAT | O_TRUNC : O_RDWR | O_CREAT | O_TRUNC,
			cfg->buffering ? 0666 : 0644, s->size);
	if (rc)
		return rc;
	record(r, AP_PM_OP_CREATE, t);
	r->res->pm_bytes_written += (float)s->size;
	if (mixed) {
		r->res->created_mixed++;
		r->res->bytes_written_mixed += s->size;
	} else {
		r->res->created_alone++;
		r->res->bytes_written_alone += s->size;
	}
	return 0;
}

static int op_append(struct pm_run *r, uint64_t idx)
{
	const struct ap_pm_config *cfg = r->cfg;
	struct ap_pm_slot *s = &r->t.slot[idx];
	uint64_t n, t;
	int rc;

	if (s->size >= cfg->size_hi)
		return 0;			/* full: nothing, no draw */
	n = ap_pm_rnd(&r->rng, cfg->size_hi - s->size) + 1;
	t = ap_now_ns();
	rc = write_file(r, s, "append", cfg->buffering ? O_WRONLY | O_APPEND : O_RDWR | O_APPEND,
			0, n);
	if (rc)
		return rc;
	record(r, AP_PM_OP_APPEND, t);
	s->size += (uint32_t)n;
	r->res->appended++;
	r->res->bytes_written_mixed += n;
	r->res->pm_bytes_written += (float)n;
	return 0;
}

static int read_some(int fd, char *buf, size_t req, size_t want, bool direct,
		     const struct ap_cancel *cancel, size_t *got)
{
	ssize_t n;

	*got = 0;
	while (*got < want) {
		n = read(fd, buf + (direct ? 0 : *got), direct ? req : want - *got);
		if (n < 0) {
			if (errno == EINTR && !ap_cancelled(cancel))
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		*got += (size_t)n;
		if (direct)
			break;
	}
	return 0;
}

static int op_read(struct pm_run *r, uint64_t idx)
{
	const struct ap_pm_config *cfg = r->cfg;
	struct ap_pm_slot *s = &r->t.slot[idx];
	struct pm_loc *l = slot_loc(r, s);
	uint64_t left = s->size, t;
	size_t chunk, a = 0, got;
	bool direct = false;
	char name[64];
	int fd, rc;

	if (r->ops->read_flags & O_DIRECT) {
		a = l->align;
		direct = a && a <= PM_ALIGN && (cfg->buffering || cfg->read_block % a == 0);
	}
	slot_name(r, s, name);
	t = ap_now_ns();
	fd = openat(l->fd, name, O_RDONLY | O_CLOEXEC | (direct ? O_DIRECT : 0));
	if (fd < 0)
		return file_error(r, s, "read", "open", errno);
	chunk = cfg->buffering ? (size_t)s->size : cfg->read_block;
	while (left) {
		size_t want = left < chunk ? (size_t)left : chunk;
		size_t req = direct ? (want + a - 1) & ~(a - 1) : want;

		rc = read_some(fd, r->rbuf, req, want, direct, &cfg->cancel, &got);
		if (rc) {
			close(fd);
			return file_error(r, s, "read", "read", -rc);
		}
		if (got != want) {
			close(fd);
			return ap_error_set(r->e, EIO, "read '%s%s%s': file shorter than the "
					    "%" PRIu32 " bytes written", l->path ? l->path : "",
					    l->path ? "/" : "", name, s->size);
		}
		left -= want;
	}
	close(fd);
	record(r, AP_PM_OP_READ, t);
	r->res->read++;
	r->res->bytes_read += s->size;
	r->res->pm_bytes_read += (float)s->size;
	return 0;
}

static int op_delete(struct pm_run *r, uint64_t idx, bool mixed)
{
	struct ap_pm_slot *s = &r->t.slot[idx];
	char name[64];
	uint64_t t;

	slot_name(r, s, name);
	t = ap_now_ns();
	if (unlinkat(slot_loc(r, s)->fd, name, 0) < 0)
		return file_error(r, s, "delete", "unlink", errno);
	record(r, AP_PM_OP_DELETE, t);
	ap_pm_slots_release(&r->t, idx);
	if (mixed)
		r->res->deleted_mixed++;
	else
		r->res->deleted_alone++;
	return 0;
}

/* ---- phases ---- */

static int drop_caches(struct pm_run *r)
{
	int fd;

	if (!r->cfg->drop_caches)
		return 0;
	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "3", 1) != 1) {
		int err = errno;

		if (fd >= 0)
			close(fd);
		return ap_error_set(r->e, err, "cannot drop caches: %s", strerror(err));
	}
	close(fd);
	return 0;
}

static int phase_begin(struct pm_run *r, int phase, uint64_t total)
{
	int rc = drop_caches(r);

	if (rc)
		return rc;
	r->phase = phase;
	r->prog_total = total;
	r->prog_step = total / 100 ? total / 100 : 1;
	r->prog_next = 0;
	progress(r, 0);
	r->phase_t0 = ap_now_ns();
	return 0;
}

static void phase_end(struct pm_run *r)
{
	if (r->phase >= 0) {
		r->res->phase_ns[r->phase] = ap_now_ns() - r->phase_t0;
		r->phase = -1;
	}
}

static int check_cancel(struct pm_run *r)
{
	return ap_cancelled(&r->cfg->cancel) ? -EINTR : 0;
}

static int run_create(struct pm_run *r)
{
	uint64_t i;
	int rc;

	for (i = 0; i < r->cfg->number; i++) {
		if ((rc = check_cancel(r)) || (rc = op_create(r, false)))
			return rc;
		progress(r, i + 1);
	}
	return 0;
}

static int run_transactions(struct pm_run *r)
{
	const struct ap_pm_config *cfg = r->cfg;
	uint64_t i;
	int rc;

	for (i = 0; i < cfg->transactions; i++) {
		if ((rc = check_cancel(r)))
			return rc;
		if (!r->t.live) {
			r->res->out_of_files = true;
			break;
		}
		if (cfg->bias_read != -1) {
			bool rd = ap_pm_rnd(&r->rng, 10) < (uint64_t)cfg->bias_read;
			uint64_t idx = ap_pm_slots_find_used(&r->t, &r->rng);

			rc = rd ? op_read(r, idx) : op_append(r, idx);
			if (rc)
				return rc;
		}
		if (cfg->bias_create != -1) {
			if (ap_pm_rnd(&r->rng, 10) < (uint64_t)cfg->bias_create)
				rc = op_create(r, true);
			else
				rc = op_delete(r, ap_pm_slots_find_used(&r->t, &r->rng), true);
			if (rc)
				return rc;
		}
		r->res->transactions_done++;
		progress(r, i + 1);
	}
	return 0;
}

static int run_delete(struct pm_run *r)
{
	uint64_t i, done = 0;
	int rc;

	/* deletion alone: every live slot in index order */
	for (i = ap_pm_slots_next_live(&r->t, 0); i < r->t.n;
	     i = ap_pm_slots_next_live(&r->t, i + 1)) {
		if ((rc = check_cancel(r)) || (rc = op_delete(r, i, false)))
			return rc;
		progress(r, ++done);
	}
	return 0;
}

/* ---- setup and cleanup ---- */

static int setup_dirs(struct pm_run *r)
{
	const struct ap_pm_config *cfg = r->cfg;
	uint64_t cum = 0, j;
	char name[32];
	size_t i;

	r->nlocs = cfg->nlocations ? cfg->nlocations : 1;
	r->locs = ap_xcalloc(r->nlocs, sizeof(*r->locs));
	for (i = 0; i < r->nlocs; i++)
		r->locs[i].fd = -1;
	for (i = 0; i < r->nlocs; i++) {
		const char *path = cfg->nlocations ? cfg->locations[i].path : ".";

		r->locs[i].path = cfg->nlocations ? path : NULL;
		r->locs[i].fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (r->locs[i].fd < 0)
			return ap_error_set(r->e, errno, "location '%s': %s", path,
					    strerror(errno));
		cum += cfg->nlocations ? cfg->locations[i].weight : 1;
		r->locs[i].cumw = cum;
	}
	r->total_weight = cum;

	/* PostMark: s0..s(K-1) in each location, mode 0700, only for K > 1 */
	r->nsub = cfg->subdirectories > 1 ? cfg->subdirectories : 1;
	if (r->nsub > 1) {
		r->made = ap_xcalloc(r->nlocs * r->nsub, 1);
		for (i = 0; i < r->nlocs; i++) {
			for (j = 0; j < r->nsub; j++) {
				snprintf(name, sizeof(name), "s%" PRIu64, j);
				if (mkdirat(r->locs[i].fd, name, 0700) == 0) {
					r->made[i * r->nsub + j] = 1;
					continue;
				}
				if (errno == EEXIST) {
					struct stat st;

					if (fstatat(r->locs[i].fd, name, &st, 0) == 0 &&
					    S_ISDIR(st.st_mode))
						continue;
					errno = EEXIST;
				}
				return ap_error_set(r->e, errno, "subdirectory '%s%s%s': %s",
						    r->locs[i].path ? r->locs[i].path : "",
						    r->locs[i].path ? "/" : "", name,
						    strerror(errno));
			}
		}
	}
	return 0;
}

/* Remove every live file and every subdirectory this run made. */
static void cleanup(struct pm_run *r)
{
	uint64_t k, j;
	char name[64];
	size_t i;

	for (k = ap_pm_slots_next_live(&r->t, 0); r->t.slot && k < r->t.n;
	     k = ap_pm_slots_next_live(&r->t, k + 1)) {
		slot_name(r, &r->t.slot[k], name);
		if (unlinkat(slot_loc(r, &r->t.slot[k])->fd, name, 0) == 0)
			r->res->cleanup_removed++;
		ap_pm_slots_release(&r->t, k);
	}
	for (i = 0; r->made && i < r->nlocs; i++) {
		for (j = 0; j < r->nsub; j++) {
			if (!r->made[i * r->nsub + j])
				continue;
			snprintf(name, sizeof(name), "s%" PRIu64, j);
			unlinkat(r->locs[i].fd, name, AT_REMOVEDIR);
		}
	}
	for (i = 0; r->locs && i < r->nlocs; i++) {
		if (r->locs[i].fd >= 0)
			close(r->locs[i].fd);
	}
}

static double per_s(uint64_t n, uint64_t ns)
{
	return ns ? (double)n * 1e9 / (double)ns : 0.0;
}

static void finish_result(struct pm_run *r)
{
	struct ap_pm_result *res = r->res;
	const uint64_t *ph = res->phase_ns;
	unsigned int i;

	res->bytes_written = res->bytes_written_alone + res->bytes_written_mixed;
	res->total_ns = ph[0] + ph[1] + ph[2];
	res->tps = per_s(res->transactions_done, ph[AP_PM_PHASE_TRANSACTIONS]);
	res->created_alone_per_s = per_s(res->created_alone, ph[AP_PM_PHASE_CREATE]);
	res->created_mixed_per_s = per_s(res->created_mixed, ph[AP_PM_PHASE_TRANSACTIONS]);
	res->read_per_s = per_s(res->read, ph[AP_PM_PHASE_TRANSACTIONS]);
	res->appended_per_s = per_s(res->appended, ph[AP_PM_PHASE_TRANSACTIONS]);
	res->deleted_alone_per_s = per_s(res->deleted_alone, ph[AP_PM_PHASE_DELETE]);
	res->deleted_mixed_per_s = per_s(res->deleted_mixed, ph[AP_PM_PHASE_TRANSACTIONS]);
	res->read_bytes_per_s = per_s(res->bytes_read, ph[AP_PM_PHASE_TRANSACTIONS]);
	res->write_bytes_per_s = per_s(res->bytes_written,
				       ph[AP_PM_PHASE_CREATE] + ph[AP_PM_PHASE_TRANSACTIONS]);
	for (i = 0; i < AP_PM_OP_COUNT; i++)
		ap_pm_hist_summary(&r->hist[i], &res->lat[i]);
}

static void *aligned_alloc_or_die(size_t len)
{
	void *p = NULL;

	len = (len + PM_ALIGN - 1) & ~(size_t)(PM_ALIGN - 1);
	if (posix_memalign(&p, PM_ALIGN, len ? len : PM_ALIGN))
		p = ap_xmalloc(SIZE_MAX);	/* reports the failure and exits */
	memset(p, 0, len);
	return p;
}

int ap_pm_run(const struct ap_pm_config *cfg, struct ap_pm_result *res,
	      struct ap_error *e)
{
	struct pm_run r;
	uint64_t i, draws;
	int rc;

	memset(res, 0, sizeof(*res));
	ap_error_clear(e);
	rc = ap_pm_config_validate(cfg, e);
	if (rc)
		return rc;

	memset(&r, 0, sizeof(r));
	r.cfg = cfg;
	r.ops = ap_pm_sync_ops(cfg->sync);
	r.res = res;
	r.e = e;
	r.phase = -1;

	/* PostMark's order: seed, fill the 2*HI source (only HI bytes are
	 * ever written), the table, the locations, the subdirectories. */
	ap_pm_rng_seed(&r.rng, cfg->seed);
	r.src = aligned_alloc_or_die((size_t)cfg->size_hi);
	draws = 2 * cfg->size_hi;
	for (i = 0; i < draws; i++) {
		char c = (char)(32 + ap_pm_rnd(&r.rng, 95));

		if (i < cfg->size_hi && cfg->data == AP_PM_DATA_PRINTABLE)
			r.src[i] = c;
	}
	if (cfg->data == AP_PM_DATA_RANDOM)
		ap_datagen_init(&r.gen, AP_DATAGEN_RANDOM, cfg->seed);
	r.rbuf_len = (size_t)(cfg->size_hi > cfg->read_block ? cfg->size_hi : cfg->read_block)
		     + PM_ALIGN;
	r.rbuf = aligned_alloc_or_die(r.rbuf_len);

	ap_pm_slots_init(&r.t, 2 * cfg->number);
	r.hist = ap_xmalloc(AP_PM_OP_COUNT * sizeof(*r.hist));
	for (i = 0; i < AP_PM_OP_COUNT; i++)
		ap_pm_hist_init(&r.hist[i]);

	rc = setup_dirs(&r);
	if (rc)
		goto out;

	rc = phase_begin(&r, AP_PM_PHASE_CREATE, cfg->number);
	if (!rc)
		rc = run_create(&r);
	phase_end(&r);
	if (rc)
		goto out;

	rc = phase_begin(&r, AP_PM_PHASE_TRANSACTIONS, cfg->transactions);
	if (!rc)
		rc = run_transactions(&r);
	phase_end(&r);
	if (rc)
		goto out;

	rc = phase_begin(&r, AP_PM_PHASE_DELETE, r.t.live);
	if (!rc)
		rc = run_delete(&r);
	phase_end(&r);
out:
	phase_end(&r);
	cleanup(&r);
	finish_result(&r);
	if (rc == -EINTR) {
		res->interrupted = ap_cancelled(&cfg->cancel);
		ap_error_set(e, EINTR, "interrupted by signal %d", res->interrupted);
	} else if (rc) {
		res->error = rc;
	}
	free(r.src);
	free(r.rbuf);
	ap_pm_slots_free(&r.t);
	free(r.hist);
	free(r.locs);
	free(r.made);
	return rc;
}
