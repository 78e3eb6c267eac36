// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sequential throughput matrix (see seq.h): its modes and the lists
 * that name them, the block sizes and the knee; plan the cells, lay the
 * region out once, then run every (mode, block size, round) in a seeded
 * random order with the page cache emptied between runs. The target the
 * matrix runs on (opened, closed, its cache): session.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cancel.h"
#include "lib/util.h"
#include "seq/seq.h"
#include "workload/datagen.h"
#include "lib/rng.h"
#include "lib/stats.h"

const struct ap_seq_modeinfo ap_seq_modes[AP_SEQ_NMODES] = {
	[AP_SEQ_NONE] = {
		"none", false, 0, AP_SEQ_END_NONE, false, true,
		"dd bs=BS conv=notrunc",
		"buffered writes, no sync: page cache only, NOT on stable storage"
	},
	[AP_SEQ_SYNC_AFTER] = {
		"sync-after", false, 0, AP_SEQ_END_SYNC_AFTER, true, true,
		"dd bs=BS conv=notrunc && sync",
		"buffered writes, close, then syncfs (file) or fsync (device), timed"
	},
	[AP_SEQ_FDATASYNC] = {
		"fdatasync", false, 0, AP_SEQ_END_FDATASYNC, true, true,
		"dd bs=BS conv=notrunc,fdatasync",
		"buffered writes, fdatasync before close, timed"
	},
	[AP_SEQ_DSYNC] = {
		"dsync", false, O_DSYNC, AP_SEQ_END_NONE, true, true,
		"dd bs=BS conv=notrunc oflag=dsync",
		"O_DSYNC: every block on stable storage before the next"
	},
	[AP_SEQ_SYNC] = {
		"sync", false, O_SYNC, AP_SEQ_END_NONE, true, true,
		"dd bs=BS conv=notrunc oflag=sync",
		"O_SYNC: every block and its metadata on stable storage before the next"
	},
	[AP_SEQ_DIRECT] = {
		"direct", false, O_DIRECT | O_DSYNC, AP_SEQ_END_NONE, true, true,
		"dd bs=BS conv=notrunc oflag=direct,dsync",
		"O_DIRECT | O_DSYNC: no page cache, every block on stable storage"
	},
	[AP_SEQ_DIRECT_NOSYNC] = {
		"direct-nosync", false, O_DIRECT, AP_SEQ_END_NONE, false, false,
		"dd bs=BS conv=notrunc oflag=direct",
		"O_DIRECT alone: may sit in the drive's volatile write cache, NOT stable"
	},
	[AP_SEQ_READ_DIRECT] = {
		"read-direct", true, O_DIRECT, AP_SEQ_END_NONE, true, true,
		"dd of=/dev/null bs=BS iflag=direct",
		"O_DIRECT sequential read of what the write cells wrote"
	},
	[AP_SEQ_READ_CACHED] = {
		"read-cached", true, 0, AP_SEQ_END_NONE, true, true,
		"dd of=/dev/null bs=BS (cache dropped first)",
		"buffered sequential read (readahead), page cache dropped first"
	},
};

char *ap_seq_dd_line(enum ap_seq_mode m, uint64_t bs)
{
	static const char units[] = "KMGTPE";	/* dd's: powers of 1024 */
	const char *tmpl = ap_seq_modes[m].dd, *at = strstr(tmpl, "BS");
	char num[32], *out;
	int u = -1;

	while (bs && bs % 1024 == 0 && u < 5) {
		bs /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(num, sizeof(num), "%llu", (unsigned long long)bs);
	else
		snprintf(num, sizeof(num), "%llu%c", (unsigned long long)bs, units[u]);
	if (!at)
		return ap_xstrdup(tmpl);
	ap_xasprintf(&out, "%.*s%s%s", (int)(at - tmpl), tmpl, num, at + 2);
	return out;
}

int ap_seq_mode_parse(const char *name, enum ap_seq_mode *out)
{
	unsigned i;

	for (i = 0; i < AP_SEQ_NMODES; i++) {
		if (!strcmp(name, ap_seq_modes[i].name)) {
			*out = (enum ap_seq_mode)i;
			return 0;
		}
	}
	return -EINVAL;
}

int ap_seq_modes_parse(const char *list, unsigned *mask, struct ap_error *e)
{
	char *dup, *tok, *save = NULL;
	unsigned m = 0, i;
	int rc = 0;

	if (!list || !*list)
		return ap_error_set(e, EINVAL, "empty mode list");
	dup = save = ap_xstrdup(list);
	while ((tok = strsep(&save, ","))) {
		enum ap_seq_mode md;
		unsigned add = 0;

		if (!*tok) {
			rc = ap_error_set(e, EINVAL, "empty mode name in list '%s'", list);
			break;
		}
		if (!strcmp(tok, "all")) {
			for (i = 0; i < AP_SEQ_NMODES; i++)
				if (!ap_seq_modes[i].read)
					add |= 1u << i;
		} else if (!strcmp(tok, "default")) {
			for (i = 0; i < AP_SEQ_NMODES; i++)
				if (!ap_seq_modes[i].read && ap_seq_modes[i].deflt)
					add |= 1u << i;
		} else if (ap_seq_mode_parse(tok, &md) == 0) {
			add = 1u << md;
		} else {
			rc = ap_error_set(e, EINVAL, "unknown mode '%s'", tok);
			break;
		}
		if (m & add) {
			rc = ap_error_set(e, EINVAL, "mode '%s' given twice", tok);
			break;
		}
		m |= add;
	}
	if (!rc && !m)
		rc = ap_error_set(e, EINVAL, "empty mode list '%s'", list);
	free(dup);
	if (!rc)
		*mask = m;
	return rc;
}

const char *ap_seq_wc_name(enum ap_seq_wc wc)
{
	return wc == AP_SEQ_WC_ON ? "on" : wc == AP_SEQ_WC_OFF ? "off" : "as-is";
}

int ap_seq_wc_parse(const char *list, enum ap_seq_wc out[AP_SEQ_WC_MAX], size_t *n,
		    struct ap_error *e)
{
	enum ap_seq_wc v[AP_SEQ_WC_MAX];
	char *dup, *tok, *save = NULL;
	size_t nv = 0, i;
	int rc = 0;

	if (!list || !*list)
		return ap_error_set(e, EINVAL, "empty write cache list (on, off or on,off)");
	dup = ap_xstrdup(list);
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		enum ap_seq_wc wc;

		if (!strcmp(tok, "on"))
			wc = AP_SEQ_WC_ON;
		else if (!strcmp(tok, "off"))
			wc = AP_SEQ_WC_OFF;
		else {
			rc = ap_error_set(e, EINVAL, "unknown write cache state '%s' (on or off)", tok);
			break;
		}
		for (i = 0; i < nv; i++)
			if (v[i] == wc)
				break;
		if (i < nv) {
			rc = ap_error_set(e, EINVAL, "write cache state '%s' given twice", tok);
			break;
		}
		v[nv++] = wc;	/* at most two distinct: on, off */
	}
	if (!rc && !nv)
		rc = ap_error_set(e, EINVAL, "empty write cache list '%s'", list);
	free(dup);
	if (rc)
		return rc;
	memcpy(out, v, nv * sizeof(*v));
	*n = nv;
	return 0;
}

int ap_seq_bs_parse(const char *list, uint64_t **out, size_t *n, struct ap_error *e)
{
	char *dup, *tok, *save = NULL;
	uint64_t *v = NULL;
	size_t nv = 0, i;
	int rc = 0;

	if (!list || !*list)
		return ap_error_set(e, EINVAL, "empty block size list");
	dup = save = ap_xstrdup(list);
	while ((tok = strsep(&save, ","))) {
		uint64_t bs;

		if (!*tok) {
			rc = ap_error_set(e, EINVAL, "empty block size in list '%s'", list);
			break;
		}
		if (ap_parse_size(tok, &bs) < 0) {
			rc = ap_error_set(e, EINVAL, "block size '%s': not a size", tok);
			break;
		}
		if (bs < AP_SEQ_BS_MIN || bs > AP_SEQ_BS_MAX || bs % 512) {
			rc = ap_error_set(e, EINVAL,
					  "block size '%s': must be a multiple of 512 from 512 to 1G",
					  tok);
			break;
		}
		v = ap_xreallocarray(v, nv + 1, sizeof(*v));
		v[nv++] = bs;
	}
	free(dup);
	if (!rc && !nv)
		rc = ap_error_set(e, EINVAL, "empty block size list '%s'", list);
	if (!rc) {
		qsort(v, nv, sizeof(*v), ap_stats_cmp_u64);
		for (i = 1; i < nv; i++) {
			if (v[i] == v[i - 1]) {
				rc = ap_error_set(e, EINVAL, "block size %llu given twice",
						  (unsigned long long)v[i]);
				break;
			}
		}
	}
	if (rc) {
		free(v);
		return rc;
	}
	*out = v;
	*n = nv;
	return 0;
}

size_t ap_seq_bs_default(uint64_t amount, uint64_t *out, size_t max)
{
	uint64_t bs;
	size_t n = 0;

	for (bs = 4096; bs <= AP_SEQ_BS_MAX && bs <= amount && n < max; bs *= 4)
		out[n++] = bs;
	return n;
}

int ap_seq_knee(const uint64_t *bs, const double *mbps, size_t n, double tol)
{
	double best = -1;
	size_t i;

	(void)bs;
	for (i = 0; i < n; i++)
		if (!isnan(mbps[i]) && mbps[i] > best)
			best = mbps[i];
	if (best < 0)
		return -1;
	for (i = 0; i < n; i++)
		if (!isnan(mbps[i]) && mbps[i] >= best * (1.0 - tol))
			return (int)i;
	return -1;
}

/* ------------------------------------------------------------------ */

struct ap_seq_cell *ap_seq_cell_find(struct ap_seq_result *r, enum ap_seq_mode mode,
				     uint64_t bs)
{
	size_t i;

	for (i = 0; i < r->ncells; i++)
		if (r->cells[i].mode == mode && r->cells[i].bs == bs)
			return &r->cells[i];
	return NULL;
}

struct ap_seq_cell *ap_seq_cell_find_wc(struct ap_seq_result *r, enum ap_seq_wc wc,
					enum ap_seq_mode mode, uint64_t bs)
{
	size_t i;

	for (i = 0; i < r->ncells; i++)
		if (r->cells[i].wc == wc && r->cells[i].mode == mode && r->cells[i].bs == bs)
			return &r->cells[i];
	return NULL;
}

void ap_seq_result_free(struct ap_seq_result *r)
{
	size_t i;

	for (i = 0; i < r->ncells; i++) {
		free(r->cells[i].samples);
		free(r->cells[i].sample_bytes);
		free(r->cells[i].sample_ns);
		free(r->cells[i].sample_ios);
		free(r->cells[i].sample_partial);
	}
	free(r->cells);
	memset(r, 0, sizeof(*r));
}

static bool seq_mask_has_direct(unsigned modes)
{
	unsigned i;

	for (i = 0; i < AP_SEQ_NMODES; i++)
		if ((modes & (1u << i)) && (ap_seq_modes[i].oflags & O_DIRECT))
			return true;
	return false;
}

static void seq_plan_cell(struct ap_seq_result *r, enum ap_seq_wc wc, enum ap_seq_mode mode,
			  uint64_t bs, unsigned rounds)
{
	struct ap_seq_cell *c;

	r->cells = ap_xreallocarray(r->cells, r->ncells + 1, sizeof(*r->cells));
	c = &r->cells[r->ncells++];
	memset(c, 0, sizeof(*c));
	c->wc = wc;
	c->mode = mode;
	c->bs = bs;
	c->mbps = c->iops = NAN;
	c->samples = ap_xcalloc(rounds, sizeof(*c->samples));
	c->sample_bytes = ap_xcalloc(rounds, sizeof(*c->sample_bytes));
	c->sample_ns = ap_xcalloc(rounds, sizeof(*c->sample_ns));
	c->sample_ios = ap_xcalloc(rounds, sizeof(*c->sample_ios));
	c->sample_partial = ap_xcalloc(rounds, sizeof(*c->sample_partial));
}

int ap_seq_plan(const struct ap_seq_target *t, const struct ap_seq_opts *o,
		struct ap_seq_result *r, struct ap_error *e)
{
	unsigned rounds = o->rounds ? o->rounds : 1;
	size_t i, m, w, nwc = o->nwc ? o->nwc : 1;

	memset(r, 0, sizeof(*r));
	if (o->nwc > AP_SEQ_WC_MAX || (o->nwc && !o->wc_set))
		return ap_error_set(e, EINVAL, "write cache states without a way to switch");
	if (!o->size)
		return ap_error_set(e, EINVAL, "size is zero");
	if (!o->nbs)
		return ap_error_set(e, EINVAL, "no block sizes");
	if (!o->modes || o->modes >= (1u << AP_SEQ_NMODES))
		return ap_error_set(e, EINVAL, "no modes");
	if (o->bs[0] > o->size)
		return ap_error_set(e, EINVAL,
				    "size %llu is smaller than the smallest block size %llu",
				    (unsigned long long)o->size, (unsigned long long)o->bs[0]);
	if ((t->is_bdev || t->capacity) &&
	    (o->offset >= t->capacity || o->size > t->capacity - o->offset))
		return ap_error_set(e, ENOSPC,
				    "%s: offset %llu + size %llu is beyond its end (%llu bytes)",
				    t->path, (unsigned long long)o->offset,
				    (unsigned long long)o->size, (unsigned long long)t->capacity);
	if (t->is_bdev && (o->offset % t->align))
		return ap_error_set(e, EINVAL,
				    "offset %llu is not a multiple of the logical sector size %u",
				    (unsigned long long)o->offset, t->align);
	/* a device's own reason first: its O_DIRECT alignment is the same */
	for (i = 0; i < o->nbs; i++)
		if (t->is_bdev && o->bs[i] % t->align)
			return ap_error_set(e, EINVAL,
					    "block size %llu is not a multiple of the logical sector size %u",
					    (unsigned long long)o->bs[i], t->align);
	if (seq_mask_has_direct(o->modes)) {
		if (o->offset % t->align)
			return ap_error_set(e, EINVAL,
					    "offset %llu is not a multiple of %u, its O_DIRECT alignment",
					    (unsigned long long)o->offset, t->align);
		for (i = 0; i < o->nbs; i++)
			if (o->bs[i] <= o->size && o->bs[i] % t->align)
				return ap_error_set(e, EINVAL,
						    "block size %llu is not a multiple of %u, its O_DIRECT alignment",
						    (unsigned long long)o->bs[i], t->align);
	}
	for (w = 0; w < nwc; w++)
		for (m = 0; m < AP_SEQ_NMODES; m++)
			for (i = 0; (o->modes & (1u << m)) && i < o->nbs && o->bs[i] <= o->size; i++)
				seq_plan_cell(r, o->nwc ? o->wc[w] : AP_SEQ_WC_ASIS,
					      (enum ap_seq_mode)m, o->bs[i], rounds);
	r->nwc = nwc;
	r->runs_total = r->ncells * rounds;
	return 0;
}

/* ------------------------------------------------------------------ */

#define SEQ_WARM_CHUNK	(32U << 10)	/* below the default pipe capacity */

struct seq_ctx {
	struct ap_seq_target *t;
	const struct ap_seq_opts *o;
	unsigned char *pool;
	size_t pool_len;
	unsigned char *rbuf;
	size_t rbuf_len;
	struct ap_error *e;
};

/*
 * Pass @len bytes at @buf through the kernel once, both ways, untimed; the
 * bytes are unchanged. The kernel's first copy from or to a page that the
 * process has just faulted in can be expensive: measured at 1-2 ms per MiB
 * on a PVM guest (shadow page tables, pti=on), against 0.1 ms for the next
 * copies. Without this the first pass over the data pool pays that inside
 * the first timed run (some 7 ms for the 4 MiB default, on a none run of
 * 256M that takes 30 ms), where fio pays it for its one block buffer only.
 */
static void seq_warm(void *buf, size_t len)
{
	unsigned char *p = buf;
	int pfd[2];

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return;
	while (len) {
		size_t n = len < SEQ_WARM_CHUNK ? len : SEQ_WARM_CHUNK;
		ssize_t w = write(pfd[1], p, n), got = 0;

		if (w <= 0)
			break;
		while (got < w) {
			ssize_t r = read(pfd[0], p + got, (size_t)(w - got));

			if (r <= 0)
				break;
			got += r;
		}
		if (got < w)
			break;
		p += w;
		len -= (size_t)w;
	}
	close(pfd[0]);
	close(pfd[1]);
}

/* Push the previous run's dirty data out and drop the target's pages: untimed. */
static int seq_settle(struct seq_ctx *x)
{
	struct ap_seq_target *t = x->t;

	if (fsync(t->fd) < 0)
		return ap_error_set(x->e, errno, "%s: fsync: %s", t->path, strerror(errno));
	if (t->is_bdev && ioctl(t->fd, BLKFLSBUF, 0) < 0 && errno != EPERM && errno != EACCES)
		return ap_error_set(x->e, errno, "%s: BLKFLSBUF: %s", t->path, strerror(errno));
	/* for a device without CAP_SYS_ADMIN, and for files: clean pages go */
	(void)posix_fadvise(t->fd, 0, 0, POSIX_FADV_DONTNEED);
	return 0;
}

static const unsigned char *seq_pool_at(const struct seq_ctx *x, uint64_t bs, uint64_t i)
{
	size_t usable = x->pool_len - x->pool_len % bs;

	return x->pool + (i * bs) % usable;
}

/*
 * An existing regular file whose region is already written: no hole in it
 * (SEEK_HOLE reports unwritten, fallocated extents as holes) and at least
 * as many blocks allocated as the region needs. Laying it out again would
 * only cost time, and leave the disk busy writing it back when the first
 * run starts.
 */
static bool seq_region_is_written(const struct seq_ctx *x)
{
	const struct ap_seq_target *t = x->t;
	const struct ap_seq_opts *o = x->o;
	struct stat st;
	off_t hole;

	if (t->is_bdev || t->created)
		return false;
	if (fstat(t->fd, &st) < 0 || (uint64_t)st.st_blocks * 512 < o->size)
		return false;
	hole = lseek(t->fd, (off_t)o->offset, SEEK_HOLE);
	return hole >= 0 && (uint64_t)hole >= o->offset + o->size;
}

/*
 * The region once, so that every cell overwrites allocated blocks; not
 * for a file whose region is already written.
 */
static int seq_layout(struct seq_ctx *x)
{
	const struct ap_seq_opts *o = x->o;
	uint64_t done = 0;

	if (seq_region_is_written(x))
		return 0;
	while (done < o->size) {
		size_t n = x->pool_len;
		int rc;

		if (ap_cancelled(&o->cancel))
			return -EINTR;
		if (n > o->size - done)
			n = (size_t)(o->size - done);
		rc = ap_pwrite_all(x->t->fd, x->pool, n, o->offset + done);
		if (rc < 0)
			return ap_error_set(x->e, -rc, "%s: laying out the region: %s",
					    x->t->path, strerror(-rc));
		done += n;
	}
	if (fdatasync(x->t->fd) < 0)
		return ap_error_set(x->e, errno, "%s: fdatasync: %s", x->t->path,
				    strerror(errno));
	return 0;
}

/* Compare what is now in the region with what the run wrote. */
static int seq_verify(struct seq_ctx *x, uint64_t bs, uint64_t nblocks)
{
	uint64_t i;

	for (i = 0; i < nblocks; i++) {
		uint64_t off = x->o->offset + i * bs;
		int rc = ap_pread_all(x->t->fd, x->rbuf, bs, off);

		if (rc < 0)
			return ap_error_set(x->e, -rc, "%s: verify: read at %llu: %s",
					    x->t->path, (unsigned long long)off, strerror(-rc));
		if (memcmp(x->rbuf, seq_pool_at(x, bs, i), bs))
			return ap_error_set(x->e, EIO,
					    "%s: verify: the %llu bytes at offset %llu differ from what was written",
					    x->t->path, (unsigned long long)bs,
					    (unsigned long long)off);
	}
	return 0;
}

static int seq_run_one(struct seq_ctx *x, struct ap_seq_cell *c, unsigned k)
{
	const struct ap_seq_modeinfo *mi = &ap_seq_modes[c->mode];
	const struct ap_seq_opts *o = x->o;
	struct ap_seq_target *t = x->t;
	uint64_t n = o->size / c->bs, i, t0, t1, ios = 0;
	bool partial = false;
	int fd, rc = 0;

	fd = open(t->path, (mi->read ? O_RDONLY : O_WRONLY) | mi->oflags | O_CLOEXEC);
	if (fd < 0 && errno == EINVAL && (mi->oflags & O_DIRECT))
		return ap_error_set(x->e, EINVAL,
				    "%s: mode %s: O_DIRECT is not supported here (leave the direct modes out with --modes)",
				    t->path, mi->name);
	if (fd < 0)
		return ap_error_set(x->e, errno, "%s: mode %s: open: %s", t->path, mi->name,
				    strerror(errno));
	t0 = ap_now_ns();
	for (i = 0; i < n; i++) {
		uint64_t off = o->offset + i * c->bs;

		if (ap_cancelled(&o->cancel)) {
			rc = -EINTR;
			break;
		}
		if (mi->read)
			rc = ap_pread_all(fd, x->rbuf, c->bs, off);
		else
			rc = ap_pwrite_all(fd, seq_pool_at(x, c->bs, i), c->bs, off);
		if (rc < 0) {
			ap_error_set(x->e, -rc, "%s: mode %s, bs %llu: %s at offset %llu: %s",
				     t->path, mi->name, (unsigned long long)c->bs,
				     mi->read ? "read" : "write", (unsigned long long)off,
				     strerror(-rc));
			break;
		}
		ios++;
		if (o->max_cell_ns && i + 1 < n && ap_now_ns() - t0 >= o->max_cell_ns) {
			partial = true;
			break;
		}
	}
	if (!rc && mi->end == AP_SEQ_END_FDATASYNC && fdatasync(fd) < 0)
		rc = ap_error_set(x->e, errno, "%s: mode %s: fdatasync: %s", t->path, mi->name,
				  strerror(errno));
	if (!rc && mi->end == AP_SEQ_END_SYNC_AFTER) {
		close(fd);
		fd = -1;
		if ((t->is_bdev ? fsync(t->fd) : syncfs(t->fd)) < 0)
			rc = ap_error_set(x->e, errno, "%s: mode %s: %s: %s", t->path,
					  mi->name, t->is_bdev ? "fsync" : "syncfs",
					  strerror(errno));
	}
	/* like dd, the close is part of the run */
	if (fd >= 0 && close(fd) < 0 && !rc)
		rc = ap_error_set(x->e, errno, "%s: mode %s: close: %s", t->path, mi->name,
				  strerror(errno));
	t1 = ap_now_ns();
	if (rc < 0)
		return rc;
	if (o->verify && !mi->read) {
		rc = seq_verify(x, c->bs, ios);
		if (rc < 0)
			return rc;
	}
	c->sample_bytes[k] = ios * c->bs;
	c->sample_ios[k] = ios;
	c->sample_ns[k] = t1 > t0 ? t1 - t0 : 1;
	c->sample_partial[k] = partial;
	c->samples[k] = (double)c->sample_bytes[k] * 1e3 / (double)c->sample_ns[k];
	c->runs = k + 1;
	return 0;
}

/* The cell's figures are those of its median run (lower middle when even). */
static void seq_cell_summarize(struct ap_seq_cell *c)
{
	unsigned i, j, best = 0, below, above;

	if (!c->runs)
		return;
	for (i = 0; i < c->runs; i++) {
		below = above = 0;
		for (j = 0; j < c->runs; j++) {
			if (c->samples[j] < c->samples[i] || (c->samples[j] == c->samples[i] && j < i))
				below++;
			else if (j != i)
				above++;
		}
		if (below == (c->runs - 1) / 2) {
			best = i;
			break;
		}
	}
	c->bytes = c->sample_bytes[best];
	c->ns = c->sample_ns[best];
	c->ios = c->sample_ios[best];
	c->partial = c->sample_partial[best];
	c->mbps = c->samples[best];
	c->iops = (double)c->ios * 1e9 / (double)c->ns;
}

/*
 * The order of the runs: the write cache states one after the other, the
 * runs of each in a seeded random order (one state: as before the states).
 */
static size_t *seq_order(const struct ap_seq_result *r, uint64_t seed)
{
	size_t *order = ap_xcalloc(r->runs_total ? r->runs_total : 1, sizeof(*order));
	size_t nwc = r->nwc ? r->nwc : 1, per = r->runs_total / nwc, i;
	struct ap_rng rng;

	for (i = 0; i < r->runs_total; i++)
		order[i] = i;
	ap_rng_seed(&rng, seed ^ 0x5e9a11ce0fULL);
	for (i = 0; i < nwc; i++)
		ap_rng_shuffle(&rng, order + i * per, per, sizeof(*order));
	return order;
}

int ap_seq_run(struct ap_seq_target *t, const struct ap_seq_opts *o,
	       struct ap_seq_result *r, ap_seq_progress_fn fn, void *arg,
	       struct ap_error *e)
{
	unsigned rounds = o->rounds ? o->rounds : 1;
	uint64_t pool_max = o->pool_max ? o->pool_max : AP_SEQ_POOL_DEFAULT;
	uint64_t maxbs = 0, maxrbs = 0;
	struct seq_ctx x = { .t = t, .o = o, .e = e };
	struct ap_datagen g;
	size_t *order, i, per;
	void *p;
	int rc = 0;

	for (i = 0; i < r->ncells; i++) {
		if (r->cells[i].bs > maxbs)
			maxbs = r->cells[i].bs;
		if (ap_seq_modes[r->cells[i].mode].read && r->cells[i].bs > maxrbs)
			maxrbs = r->cells[i].bs;
	}
	if (o->verify)
		maxrbs = maxbs;
	x.pool_len = (size_t)(o->size < pool_max ? o->size : pool_max);
	if (x.pool_len < maxbs)
		x.pool_len = (size_t)maxbs;
	rc = posix_memalign(&p, 1 << 20, x.pool_len);
	if (rc)
		return ap_error_set(e, rc, "cannot allocate %zu bytes of data: %s", x.pool_len,
				    strerror(rc));
	x.pool = p;
	ap_datagen_init(&g, o->data, o->seed);
	ap_datagen_fill(&g, x.pool, x.pool_len);
	seq_warm(x.pool, x.pool_len);
	if (maxrbs) {
		rc = posix_memalign(&p, 1 << 20, (size_t)maxrbs);
		if (rc) {
			free(x.pool);
			return ap_error_set(e, rc, "cannot allocate %llu bytes: %s",
					    (unsigned long long)maxrbs, strerror(rc));
		}
		x.rbuf = p;
		x.rbuf_len = (size_t)maxrbs;
		memset(x.rbuf, 0, x.rbuf_len);
		seq_warm(x.rbuf, x.rbuf_len);
	}

	order = seq_order(r, o->seed);
	per = r->runs_total / (r->nwc ? r->nwc : 1);

	rc = seq_layout(&x);
	for (i = 0; !rc && i < r->runs_total; i++) {
		struct ap_seq_cell *c = &r->cells[order[i] / rounds];

		if (ap_cancelled(&o->cancel)) {
			rc = -EINTR;
			break;
		}
		/* a state's first run: switch the cache (its dirty data settled first) */
		if (i % per == 0 && c->wc != AP_SEQ_WC_ASIS) {
			rc = seq_settle(&x);
			if (!rc)
				rc = o->wc_set(o->wc_arg, c->wc == AP_SEQ_WC_ON, e);
			if (rc)
				break;
		}
		rc = seq_settle(&x);
		if (rc)
			break;
		rc = seq_run_one(&x, c, c->runs);
		if (rc)
			break;
		seq_cell_summarize(c);
		r->runs_done++;
		if (fn)
			fn(arg, r, c);
	}
	if (!rc)
		rc = seq_settle(&x);
	else
		(void)posix_fadvise(t->fd, 0, 0, POSIX_FADV_DONTNEED);
	free(order);
	free(x.pool);
	free(x.rbuf);
	return rc;
}
