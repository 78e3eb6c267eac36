// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A seq run on its target (see session.h): the target's checks before the
 * gate, its opening and closing (a file created or a device held, its
 * size, O_DIRECT alignment and the kernel's write cache setting), the
 * matrix (seq.c) fitted to its capacity, the drive's write cache through
 * the run, and the knees of the result per state.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "device/cachectl.h"
#include "device/safety.h"
#include "device/sgio.h"
#include "lib/blkdev.h"
#include "lib/sysfs.h"
#include "lib/util.h"
#include "seq/seq.h"
#include "seq/session.h"

int ap_seq_target_check(const char *path, struct ap_error *e)
{
	struct stat st;
	char *dir, *slash;
	int rc = 0;

	if (stat(path, &st) == 0) {
		if (S_ISREG(st.st_mode) && access(path, R_OK | W_OK) != 0)
			return ap_error_set(e, errno, "%s: cannot open: %s", path, strerror(errno));
		return 0;
	}
	if (errno != ENOENT || !*path)
		return ap_error_set(e, errno ? errno : ENOENT, "%s: %s", path,
				    strerror(errno ? errno : ENOENT));
	dir = ap_xstrdup(path);
	slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir ? 1 : 0] = '\0';
	if (access(slash ? dir : ".", W_OK | X_OK) != 0)
		rc = ap_error_set(e, errno, "%s: cannot create: %s", path, strerror(errno));
	free(dir);
	return rc;
}

int ap_seq_target_open(struct ap_seq_target *t, const char *path, int hold_fd,
		       struct ap_error *e)
{
	struct stat st;
	int fd;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	if (stat(path, &st) < 0) {
		if (errno != ENOENT)
			return ap_error_set(e, errno, "%s: %s", path, strerror(errno));
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0)
			return ap_error_set(e, errno, "%s: cannot create: %s", path,
					    strerror(errno));
		t->created = true;
		if (fstat(fd, &st) < 0) {
			int err = errno;

			close(fd);
			unlink(path);
			return ap_error_set(e, err, "%s: %s", path, strerror(err));
		}
	} else if (S_ISBLK(st.st_mode)) {
		uint64_t sz;
		unsigned lbs;
		int rc;

		fd = hold_fd >= 0 ? hold_fd : open(path, O_RDWR | O_EXCL | O_CLOEXEC);
		if (fd < 0)
			return ap_error_set(e, errno, "%s: cannot open: %s", path,
					    strerror(errno));
		t->is_bdev = true;
		rc = ap_blkdev_get_sizes(fd, &sz, &lbs, NULL);
		if (rc < 0) {
			int err = -rc;

			if (hold_fd < 0)
				close(fd);
			return ap_error_set(e, err, "%s: cannot read the device size: %s",
					    path, strerror(err));
		}
		t->capacity = sz;
		t->align = lbs > 0 ? lbs : 512;
		t->disk = ap_sysfs_wholedisk_name(st.st_rdev);
	} else if (S_ISREG(st.st_mode)) {
		fd = open(path, O_RDWR | O_CLOEXEC);	/* never O_TRUNC */
		if (fd < 0)
			return ap_error_set(e, errno, "%s: cannot open: %s", path,
					    strerror(errno));
	} else {
		return ap_error_set(e, EINVAL, "%s: not a block device or a regular file",
				    path);
	}
	if (!t->is_bdev) {
#ifdef STATX_DIOALIGN
		struct statx sx;

		if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0 &&
		    (sx.stx_mask & STATX_DIOALIGN) && sx.stx_dio_offset_align)
			t->align = sx.stx_dio_offset_align;
#endif
		if (!t->align)
			t->align = 4096;
		t->capacity = (uint64_t)st.st_size;	/* 0: unbounded */
		t->disk = ap_sysfs_wholedisk_name(st.st_dev);
	}
	t->fd = fd;
	t->path = ap_xstrdup(path);
	return 0;
}

int ap_seq_target_close(struct ap_seq_target *t, bool keep)
{
	int rc = 0;

	if (t->fd >= 0 && close(t->fd) < 0)
		rc = -errno;
	t->fd = -1;
	if (t->created && !keep && t->path && unlink(t->path) < 0 && !rc)
		rc = -errno;
	free(t->path);
	free(t->disk);
	t->path = t->disk = NULL;
	return rc;
}

char *ap_seq_sysfs_write_cache(const struct ap_seq_target *t)
{
	if (!t->disk)
		return NULL;
	return ap_sysfs_name_attr(t->disk, "queue/write_cache");
}

int ap_seq_target_classify(const char *path, bool dry_run, bool *is_bdev, struct ap_error *e)
{
	struct stat sb;
	bool exists = stat(path, &sb) == 0;
	int serr = exists ? 0 : errno, rc;

	*is_bdev = exists && S_ISBLK(sb.st_mode);
	if (*is_bdev)
		return 0;	/* the gate's to check: it takes the device O_EXCL first */
	if (exists && !S_ISREG(sb.st_mode))
		return ap_error_set(e, S_ISDIR(sb.st_mode) ? EISDIR : ENOTBLK,
				    "not a block device or a regular file");
	if (serr == ENOENT && strncmp(path, "/dev/", 5) == 0)
		/* a mistyped device name: never a file in /dev */
		return ap_error_set(e, ENOENT, "no such device (a new regular file "
				    "is created only outside /dev)");
	/* a file behind a loop device or swap is a disk in use: the gate's refusal */
	rc = ap_safety_check_file(path, e);
	if (rc)
		return rc;
	/* what opening it will check, without creating it */
	return dry_run ? ap_seq_target_check(path, e) : 0;
}

int ap_seq_target_prepare(struct ap_seq_target *t, const char *path, int hold_fd, bool is_bdev,
			  bool dry_run, struct ap_error *e)
{
	struct stat sb;

	if (dry_run && !is_bdev) {
		/* plan without creating anything */
		t->path = ap_xstrdup(path);
		t->align = 4096;
		if (stat(path, &sb) == 0)
			t->capacity = (uint64_t)sb.st_size;
		return 0;
	}
	return ap_seq_target_open(t, path, hold_fd, e);
}

void ap_seq_target_planned(struct ap_seq_target *t, const char *name, uint64_t capacity,
			   unsigned logical)
{
	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->is_bdev = true;
	t->capacity = capacity;
	t->align = logical ? logical : 512;
	t->path = (char *)name;
}

uint64_t ap_seq_plan_bytes(const struct ap_seq_opts *o, const struct ap_seq_result *r)
{
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < r->ncells; i++)
		total += (o->size / r->cells[i].bs) * r->cells[i].bs * o->rounds;
	return total;
}

int ap_seq_fit(struct ap_seq_opts *o, const struct ap_seq_target *t, bool size_set,
	       uint64_t **bs, size_t *nbs, struct ap_error *e)
{
	uint64_t room = UINT64_MAX;

	if (t->is_bdev || t->capacity)	/* an empty or new file grows */
		room = t->capacity > o->offset ? t->capacity - o->offset : 0;

	if (!size_set) {
		o->size = AP_SEQ_DEFAULT_SIZE < room ? AP_SEQ_DEFAULT_SIZE : room;
		o->size -= o->size % 4096;
		if (!o->size)
			return ap_error_set(e, ENOSPC, "no room after offset %llu (%llu bytes)",
					    (unsigned long long)o->offset,
					    (unsigned long long)t->capacity);
	}
	if (!*bs) {
		*bs = ap_xcalloc(16, sizeof(**bs));
		*nbs = ap_seq_bs_default(o->size, *bs, 16);
		if (!*nbs)
			return ap_error_set(e, EINVAL, "--size %llu is smaller than 4K, the smallest "
					    "default block size", (unsigned long long)o->size);
	}
	o->bs = *bs;
	o->nbs = *nbs;
	return 0;
}

/* --- the write cache ------------------------------------------------- */

void ap_seq_wcache_init(struct ap_seq_wcache *w, struct ap_seq_opts *o)
{
	memset(w, 0, sizeof(*w));
	o->wc_set = ap_cachectl_set;	/* used with --write-cache's states */
	o->wc_arg = &w->ctl;
}

int ap_seq_wcache_find(struct ap_seq_wcache *w, const struct ap_seq_target *t, bool is_bdev,
		       const struct ap_cache_model *mops, struct ap_error *e)
{
	if (!is_bdev)
		return ap_error_set(e, ENOTBLK, "--write-cache switches a disk's write cache: give "
				    "a disk (or a partition with --allow-partition), not a regular "
				    "file");
	return ap_cachectl_find(&w->ctl, t->disk, mops, e);
}

/* The drive's own write cache state, through SG_IO. */
static char *seq_drive_write_cache(const struct ap_seq_target *t)
{
	struct ap_write_cache wc;
	struct ap_error e = { 0 };
	char *s;
	int rc;

	if (!t->is_bdev)
		return ap_xstrdup("not available (a regular file)");
	rc = ap_sgio_write_cache(t->fd, &wc, &e);
	if (rc == -EOPNOTSUPP)
		return ap_xstrdup("not available (the device does not answer ATA, SCSI or NVMe queries)");
	if (rc < 0) {
		ap_xasprintf(&s, "not available (%s)", e.msg[0] ? e.msg : strerror(-rc));
		return s;
	}
	ap_xasprintf(&s, "%s (%s)", wc.enabled ? "enabled" : "disabled",
		     ap_sgio_wc_source_name(wc.source));
	return s;
}

/* The cache before the run: the switch's reading, else the drive's, else the kernel's. */
static const char *seq_wc_found(const struct ap_seq_wcache *w, bool switched)
{
	bool wce, rcd;

	if (switched)
		return ap_cachectl_orig_on(&w->ctl) ? "on" : "off";
	if (w->drive && !strncmp(w->drive, "enabled", 7))
		return "on";
	if (w->drive && !strncmp(w->drive, "disabled", 8))
		return "off";
	if (ap_wcache_value_parse(w->sysfs, &wce, &rcd) == 0)
		return wce ? "on" : "off";
	return NULL;
}

int ap_seq_wcache_before(struct ap_seq_wcache *w, const struct ap_seq_opts *o,
			 const struct ap_seq_target *t, struct ap_error *e)
{
	struct ap_error ae = { 0 };

	/* a killed run's switch first: put back what it found, and keep that as found */
	if (o->nwc && ap_cachectl_adopt(&w->ctl, &ae) < 0)
		return ap_error_set(e, ae.code ? ae.code : EIO,
				    "a killed run's write cache record: %s", ae.msg);
	w->sysfs = ap_seq_sysfs_write_cache(t);
	w->drive = seq_drive_write_cache(t);
	w->found = seq_wc_found(w, o->nwc != 0);
	/* the state found on record before the first switch: cleanup's after a SIGKILL */
	if (o->nwc && ap_cachectl_record(&w->ctl, e) < 0)
		return -(e->code ? e->code : EIO);
	return 0;
}

int ap_seq_wcache_restore(struct ap_seq_wcache *w, struct ap_error *e)
{
	int rc = ap_cachectl_restore(&w->ctl, e);

	w->restored = rc == 0;
	return rc;
}

void ap_seq_wcache_free(struct ap_seq_wcache *w)
{
	free(w->sysfs);
	free(w->drive);
	ap_cachectl_free(&w->ctl);
}

/* --- the knees of the result ----------------------------------------- */

enum ap_seq_wc ap_seq_state(const struct ap_seq_opts *o, size_t k)
{
	return o->nwc && k < o->nwc ? o->wc[k] : AP_SEQ_WC_ASIS;
}

size_t ap_seq_nstates(const struct ap_seq_opts *o)
{
	return o->nwc ? o->nwc : 1;
}

/* The knee cell of mode @m in state @wc, or -1. */
static int seq_knee_of(struct ap_seq_result *r, enum ap_seq_wc wc, unsigned m)
{
	uint64_t bs[64];
	double v[64];
	size_t n = 0, i;
	int kn;

	for (i = 0; i < r->ncells && n < 64; i++) {
		if (r->cells[i].mode != m || r->cells[i].wc != wc)
			continue;
		bs[n] = r->cells[i].bs;
		v[n++] = r->cells[i].runs ? r->cells[i].mbps : NAN;
	}
	kn = ap_seq_knee(bs, v, n, AP_SEQ_KNEE_TOLERANCE);
	if (kn < 0)
		return -1;
	return (int)(ap_seq_cell_find_wc(r, wc, (enum ap_seq_mode)m, bs[kn]) - r->cells);
}

void ap_seq_knees(const struct ap_seq_opts *o, struct ap_seq_result *r,
		  int knee[AP_SEQ_WC_MAX][AP_SEQ_NMODES])
{
	size_t k;
	unsigned m;

	for (k = 0; k < AP_SEQ_WC_MAX; k++)
		for (m = 0; m < AP_SEQ_NMODES; m++)
			knee[k][m] = k < ap_seq_nstates(o) ? seq_knee_of(r, ap_seq_state(o, k), m) : -1;
}

const struct ap_seq_cell *ap_seq_best(const struct ap_seq_result *r, enum ap_seq_wc wc,
				      unsigned m)
{
	const struct ap_seq_cell *best = NULL;
	size_t i;

	for (i = 0; i < r->ncells; i++)
		if (r->cells[i].mode == m && r->cells[i].wc == wc && r->cells[i].runs &&
		    (!best || r->cells[i].mbps > best->mbps))
			best = &r->cells[i];
	return best;
}

bool ap_seq_any(const struct ap_seq_result *r, unsigned m)
{
	size_t i;

	for (i = 0; i < r->ncells; i++)
		if (r->cells[i].mode == m && r->cells[i].runs)
			return true;
	return false;
}
