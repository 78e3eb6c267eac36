// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ap_ptable_read() in a child process (see ptable.h): libfdisk and libblkid
 * parse whatever a disk holds, and a library that crashes or loops on one
 * table (libfdisk 2.38.1's SGI verification does) must cost that device an
 * error, not the whole run. The child reads the table into a struct
 * ap_ptable and sends it back over a pipe as a flat byte string; the parent
 * rebuilds it, checking every length against what it received.
 *
 * The test seam: ALIGNPROBE_TEST_PTABLE_CHILD=crash makes the child die of
 * SIGSEGV before it reads, =hang makes it wait for the timeout, which
 * ALIGNPROBE_TEST_PTABLE_TIMEOUT (seconds) shortens; "crash:PATH" and
 * "hang:PATH" only for the device given as PATH. Nothing else changes.
 */
#include "device/ptable.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define PACK_MAGIC	0x31545041u	/* "APT1" */
#define PACK_MAX	(64u << 20)	/* far above any table's list */
#define NO_STRING	0xffffffffu

/* ---- packing ---- */

struct buf {
	char *p;
	size_t len, cap;
};

static void put(struct buf *b, const void *v, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 256;
		b->p = ap_xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, v, n);
	b->len += n;
}

static void put_u64(struct buf *b, uint64_t v)
{
	put(b, &v, sizeof(v));
}

static void put_str(struct buf *b, const char *s)
{
	uint32_t n = s ? (uint32_t)strlen(s) : NO_STRING;

	put(b, &n, sizeof(n));
	if (s)
		put(b, s, n);
}

static void put_strv(struct buf *b, char *const *v, size_t n)
{
	size_t i;

	put_u64(b, n);
	for (i = 0; i < n; i++)
		put_str(b, v[i]);
}

void ap_ptable_pack(const struct ap_ptable *pt, int rc, const struct ap_error *e,
		    char **out, size_t *outlen)
{
	struct buf b = { 0 };
	size_t i;

	put_u64(&b, PACK_MAGIC);
	put_u64(&b, (uint64_t)(int64_t)rc);
	put_u64(&b, (uint64_t)(e ? e->code : 0));
	put_str(&b, e ? e->msg : "");
	put_u64(&b, pt->is_blockdev);
	put_u64(&b, pt->size_bytes);
	put_u64(&b, pt->sector_size);
	put_u64(&b, pt->nsectors);
	put_u64(&b, pt->first_usable);
	put_u64(&b, pt->last_usable);
	put_u64(&b, pt->backup_used);
	put_u64(&b, pt->foreign_sector_size);
	put_str(&b, pt->path);
	put_str(&b, pt->label);
	put_str(&b, pt->reader);
	put_str(&b, pt->whole_disk);
	put_str(&b, pt->whole_disk_usage);
	put_str(&b, pt->id);
	put_str(&b, pt->foreign_label);
	put_u64(&b, pt->nparts);
	for (i = 0; i < pt->nparts; i++) {
		const struct ap_part *p = &pt->parts[i];

		put_u64(&b, p->partno);
		put_u64(&b, p->start);
		put_u64(&b, p->size);
		put_u64(&b, (uint64_t)p->container | (uint64_t)p->logical << 1 |
			    (uint64_t)p->role << 8 | (uint64_t)p->parent << 16);
		put_str(&b, p->type);
		put_str(&b, p->typecode);
		put_str(&b, p->name);
		put_str(&b, p->uuid);
	}
	put_u64(&b, pt->nissues);
	for (i = 0; i < pt->nissues; i++) {
		put_u64(&b, pt->issues[i].kind);
		put_u64(&b, pt->issues[i].error);
		put_u64(&b, (uint64_t)(int64_t)pt->issues[i].partno);
		put_str(&b, pt->issues[i].msg);
	}
	put_strv(&b, pt->fdisk_msgs, pt->nfdisk_msgs);
	put_strv(&b, pt->foreign_evidence, pt->nforeign_evidence);
	*out = b.p;
	*outlen = b.len;
}

/* ---- unpacking: every length checked against what is left ---- */

struct rd {
	const char *p;
	size_t left;
	bool bad;
};

static uint64_t get_u64(struct rd *r)
{
	uint64_t v = 0;

	if (r->bad || r->left < sizeof(v)) {
		r->bad = true;
		return 0;
	}
	memcpy(&v, r->p, sizeof(v));
	r->p += sizeof(v);
	r->left -= sizeof(v);
	return v;
}

/* A string, or NULL; @into (of @cap bytes) instead of an allocation when given. */
static char *get_str(struct rd *r, char *into, size_t cap)
{
	uint32_t n;
	char *s;

	if (r->bad || r->left < sizeof(n)) {
		r->bad = true;
		return NULL;
	}
	memcpy(&n, r->p, sizeof(n));
	r->p += sizeof(n);
	r->left -= sizeof(n);
	if (n == NO_STRING)
		return NULL;
	if (n > r->left || (into && n >= cap)) {
		r->bad = true;
		return NULL;
	}
	s = into ? into : ap_xmalloc((size_t)n + 1);
	memcpy(s, r->p, n);
	s[n] = '\0';
	r->p += n;
	r->left -= n;
	return s;
}

/* A count of items of at least @min bytes each: no more than the rest can hold. */
static size_t get_count(struct rd *r, size_t min)
{
	uint64_t n = get_u64(r);

	if (n > r->left / min) {
		r->bad = true;
		return 0;
	}
	return (size_t)n;
}

static char **get_strv(struct rd *r, size_t *n)
{
	char **v;
	size_t i;

	*n = get_count(r, 4);
	if (!*n)
		return NULL;
	v = ap_xcalloc(*n, sizeof(*v));
	for (i = 0; i < *n; i++)
		if (!(v[i] = get_str(r, NULL, 0)))
			r->bad = true;
	return v;
}

int ap_ptable_unpack(const char *buf, size_t len, struct ap_ptable *pt, int *rc,
		     struct ap_error *e)
{
	struct rd r = { buf, len, false };
	struct ap_error tmp;
	size_t i;

	memset(pt, 0, sizeof(*pt));
	if (!e)
		e = &tmp;
	ap_error_clear(e);
	if (get_u64(&r) != PACK_MAGIC)
		return -EBADMSG;
	*rc = (int)(int64_t)get_u64(&r);
	e->code = (int)get_u64(&r);
	get_str(&r, e->msg, sizeof(e->msg));
	pt->is_blockdev = get_u64(&r) != 0;
	pt->size_bytes = get_u64(&r);
	pt->sector_size = (unsigned)get_u64(&r);
	pt->nsectors = get_u64(&r);
	pt->first_usable = get_u64(&r);
	pt->last_usable = get_u64(&r);
	pt->backup_used = get_u64(&r) != 0;
	pt->foreign_sector_size = (unsigned)get_u64(&r);
	pt->path = get_str(&r, NULL, 0);
	pt->label = get_str(&r, NULL, 0);
	pt->reader = get_str(&r, NULL, 0);
	pt->whole_disk = get_str(&r, NULL, 0);
	pt->whole_disk_usage = get_str(&r, NULL, 0);
	pt->id = get_str(&r, NULL, 0);
	pt->foreign_label = get_str(&r, NULL, 0);
	pt->nparts = get_count(&r, 4 * 8 + 4 * 4);
	pt->parts = ap_xcalloc(pt->nparts + 1, sizeof(*pt->parts));
	for (i = 0; i < pt->nparts; i++) {
		struct ap_part *p = &pt->parts[i];
		uint64_t flags;

		p->partno = (size_t)get_u64(&r);
		p->start = get_u64(&r);
		p->size = get_u64(&r);
		flags = get_u64(&r);
		p->container = flags & 1;
		p->logical = (flags >> 1) & 1;
		p->role = (enum ap_part_role)((flags >> 8) & 0xff);
		p->parent = (unsigned)((flags >> 16) & 0xff);
		if (p->role > AP_PART_MAP || (flags >> 24) || p->parent > 4)
			r.bad = true;
		p->type = get_str(&r, NULL, 0);
		p->typecode = get_str(&r, NULL, 0);
		p->name = get_str(&r, NULL, 0);
		p->uuid = get_str(&r, NULL, 0);
	}
	pt->nissues = get_count(&r, 3 * 8 + 4);
	if (pt->nissues > AP_PT_MAX_ISSUES + 1)
		r.bad = true;
	pt->issues = r.bad ? NULL : ap_xcalloc(pt->nissues + 1, sizeof(*pt->issues));
	for (i = 0; i < pt->nissues && !r.bad; i++) {
		struct ap_pt_issue *is = &pt->issues[i];

		is->kind = (enum ap_pt_kind)get_u64(&r);
		is->error = get_u64(&r) != 0;
		is->partno = (long)(int64_t)get_u64(&r);
		get_str(&r, is->msg, sizeof(is->msg));
	}
	if (r.bad)
		pt->nissues = 0;
	pt->fdisk_msgs = get_strv(&r, &pt->nfdisk_msgs);
	pt->foreign_evidence = get_strv(&r, &pt->nforeign_evidence);
	if (r.bad || r.left) {
		ap_ptable_free(pt);
		return -EBADMSG;
	}
	return 0;
}

/* ---- the child ---- */

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The seam says @what ("crash"), for every device or for @path ("crash:PATH"). */
static bool seam_is(const char *seam, const char *what, const char *path)
{
	size_t n = strlen(what);

	if (!seam || strncmp(seam, what, n) != 0)
		return false;
	return seam[n] == '\0' || (seam[n] == ':' && !strcmp(seam + n + 1, path));
}

static void __attribute__((noreturn)) child(int wfd, const char *path,
					     const struct ap_ptable_opts *o)
{
	const char *seam = getenv("ALIGNPROBE_TEST_PTABLE_CHILD");
	struct ap_ptable pt;
	struct ap_error e;
	char *buf;
	size_t len;
	int rc;

	if (seam_is(seam, "crash", path)) {
		/* a crash no handler catches (ASan's, a test framework's) */
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
	}
	if (seam_is(seam, "hang", path))
		for (;;)
			pause();
	ap_error_clear(&e);
	rc = ap_ptable_read(path, o, &pt, &e);
	ap_ptable_pack(&pt, rc, &e, &buf, &len);
	/* _exit: no atexit handlers, no stdio buffers of the parent flushed twice */
	_exit(write_all(wfd, buf, len) < 0 ? 1 : 0);
}

static unsigned timeout_s(void)
{
	const char *v = getenv("ALIGNPROBE_TEST_PTABLE_TIMEOUT");
	uint64_t n;

	if (v && ap_parse_u64(v, &n) == 0 && n > 0 && n < AP_PTABLE_CHILD_TIMEOUT)
		return (unsigned)n;
	return AP_PTABLE_CHILD_TIMEOUT;
}

/* Everything the child writes, until EOF or the deadline: 0, -ETIMEDOUT, -errno. */
static int collect(int rfd, struct buf *b)
{
	uint64_t deadline = ap_now_ns() + (uint64_t)timeout_s() * 1000000000ull;
	char chunk[65536];

	for (;;) {
		struct pollfd pfd = { .fd = rfd, .events = POLLIN };
		uint64_t now = ap_now_ns();
		ssize_t n;
		int r;

		if (now >= deadline)
			return -ETIMEDOUT;
		r = poll(&pfd, 1, (int)((deadline - now) / 1000000 + 1));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			continue;
		n = read(rfd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		if (b->len + (size_t)n > PACK_MAX)
			return -EMSGSIZE;
		put(b, chunk, (size_t)n);
	}
}

/* The child died or hung: the device gets one error saying so. */
static void reader_failed(struct ap_ptable *pt, const char *path, const char *why)
{
	memset(pt, 0, sizeof(*pt));
	pt->path = ap_xstrdup(path);
	ap_ptable_add_issue(pt, AP_PT_CRASHED, -1, "%s", why);
}

int ap_ptable_read_isolated(const char *path, const struct ap_ptable_opts *o,
			    struct ap_ptable *pt, struct ap_error *e)
{
	struct buf b = { 0 };
	char why[200];
	int fds[2], status = 0, rc, crc = 0;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return ap_error_set(e, errno, "%s: cannot create a pipe: %s", path, strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		rc = errno;
		close(fds[0]);
		close(fds[1]);
		return ap_error_set(e, rc, "%s: cannot fork: %s", path, strerror(rc));
	}
	if (pid == 0) {
		close(fds[0]);
		child(fds[1], path, o);
	}
	close(fds[1]);
	rc = collect(fds[0], &b);
	close(fds[0]);
	if (rc == -ETIMEDOUT)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (rc == -ETIMEDOUT) {
		snprintf(why, sizeof(why), "libfdisk or libblkid did not finish reading this "
			 "table in %u s (killed)", timeout_s());
		reader_failed(pt, path, why);
		rc = 0;
	} else if (WIFSIGNALED(status)) {
		snprintf(why, sizeof(why), "libfdisk crashed reading this table: signal %d (%s)",
			 WTERMSIG(status), strsignal(WTERMSIG(status)));
		reader_failed(pt, path, why);
		rc = 0;
	} else if (!rc && WIFEXITED(status) && WEXITSTATUS(status) && !b.len) {
		/* ended before it sent anything: a sanitizer's report, an exit() in a library */
		snprintf(why, sizeof(why), "the process reading this table ended with exit "
			 "status %d before it sent the table", WEXITSTATUS(status));
		reader_failed(pt, path, why);
	} else if (rc || !WIFEXITED(status) || WEXITSTATUS(status) ||
		   ap_ptable_unpack(b.p, b.len, pt, &crc, e) != 0) {
		memset(pt, 0, sizeof(*pt));
		rc = ap_error_set(e, EIO, "%s: the process reading the table failed%s%s", path,
				  rc ? ": " : "", rc ? strerror(-rc) : "");
	} else {
		rc = crc;
	}
	free(b.p);
	return rc;
}
