// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The emulated drive's FUSE server: one regular file, opened with direct_io
 * so that the kernel hands over every request with its true offset and
 * length, served one request at a time (a single-threaded loop, like a
 * single actuator). Each request is charged the cost ap_emu_model_request()
 * computes, by sleeping to an absolute CLOCK_MONOTONIC deadline before the
 * reply; the counters are updated before the reply, so a writer that sees
 * its write complete also sees it counted.
 *
 * The server is a process of its own (ap_emu_server_start() forks it): it
 * gets everything from its struct ap_emu_server_opts -- the stats page, the
 * owner, and the teardown to run when the owner is gone -- and calls nothing
 * of attach.c. Its state is one struct server on server_run()'s stack that
 * the FUSE handlers reach through the session's userdata; its termination
 * signals are its own (a flag its handler sets).
 */
#define FUSE_USE_VERSION 35
#include <fuse_lowlevel.h>

#include "emu/model.h"
#include "emu/emuP.h"
#include "emu/server.h"
#include "lib/sysfs.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ROOT_INO	FUSE_ROOT_ID
#define DISK_INO	2

struct server {
	struct ap_emu_model model;
	struct ap_emu_shm *shm;
	int fd;				/* backing file */
	uint64_t capacity;
	bool no_trim;			/* trim=off: discards refused */
	char *buf;			/* read buffer, AP_EMU_MAX_IO bytes */
	uint64_t t0;			/* arrival of the request being served */
	/* power (emu.h's ap_emu_power()) */
	struct ap_emu_vlog vlog;	/* the volatile cache's pre-images (power.c) */
	struct ap_emu_shm *peer;	/* cut-peer's stats page, or NULL */
	bool off;			/* the power is off */
};

/*
 * Every function below takes the server as @sv (the FUSE handlers get it
 * from fuse_req_userdata()); no global holds it.
 */

/* The first SIGINT, SIGTERM or SIGHUP since the last look, or 0. */
static volatile sig_atomic_t term_signal;

static void on_term(int signo)
{
	if (!term_signal)
		term_signal = signo;
}

/* SIGUSR1: the power control field changed (ap_emu_shm_power()). */
static volatile sig_atomic_t power_signal;

static void on_power(int signo)
{
	(void)signo;
	power_signal = 1;
}

/* No SA_RESTART: a termination signal interrupts ppoll() and the sleeps. */
static void term_signals_install(void)
{
	struct sigaction sa = { .sa_handler = on_term };

	term_signal = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_power;
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static void fill_attr(const struct server *sv, fuse_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_uid = getuid();
	st->st_gid = getgid();
	st->st_blksize = 512;
	if (ino == ROOT_INO) {
		st->st_mode = S_IFDIR | 0700;
		st->st_nlink = 2;
	} else {
		st->st_mode = S_IFREG | 0600;
		st->st_nlink = 1;
		st->st_size = (off_t)sv->capacity;
		st->st_blocks = (blkcnt_t)(sv->capacity / 512);
	}
}

/* Sleep until t0 + ns on CLOCK_MONOTONIC; a termination signal cuts it short. */
static void charge(const struct server *sv, uint64_t ns)
{
	uint64_t until = sv->t0 + ns;
	struct timespec ts = {
		.tv_sec = (time_t)(until / AP_NSEC_PER_SEC),
		.tv_nsec = (long)(until % AP_NSEC_PER_SEC),
	};

	if (!ns)
		return;
	/* a power cut ends the request in flight where it is */
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		if (term_signal || ap_emu_shm_power_want_off(sv->shm) != sv->off)
			break;
}

static void stats_begin(struct server *sv)
{
	__atomic_fetch_add(&sv->shm->seq, 1, __ATOMIC_ACQ_REL);
}

static void stats_end(struct server *sv)
{
	__atomic_fetch_add(&sv->shm->seq, 1, __ATOMIC_RELEASE);
}

/* Add @v to a counter of the stats page, which only the server writes. */
static void bump(uint64_t *counter, uint64_t v)
{
	__atomic_store_n(counter, *counter + v, __ATOMIC_RELAXED);
}

/* Successful requests of the kinds that the fault model fails, since the reset. */
static uint64_t served(const struct server *sv)
{
	struct ap_emu_counters_raw c;
	uint64_t n = 0;

	ap_emu_shm_read(sv->shm, &c);
	if (sv->model.fail_reads)
		n += c.reads;
	if (sv->model.fail_writes)
		n += c.writes;
	return n;
}

/*
 * The write cache switched through the stats page (seq --write-cache): the
 * model follows before the request; what switching off destages is charged
 * with it. The cost of the switch (its RMW in *rmw).
 */
static uint64_t follow_write_cache(struct server *sv, uint64_t *rmw)
{
	bool on = ap_emu_shm_write_cache(sv->shm);
	struct ap_emu_cost c;

	if (on == sv->model.write_cache)
		return 0;
	ap_emu_model_set_write_cache(&sv->model, on, sv->t0, &c);
	if (c.drained)
		ap_emu_vlog_clear(&sv->vlog);
	*rmw = c.rmw;
	return c.cost_ns;
}

/*
 * The power goes: the volatile cache's writes are undone on the data, a
 * media write in flight (@data, or NULL) is torn, the peer loses power at
 * the same moment, and every request fails until power is restored.
 */
static void power_cut(struct server *sv, enum ap_emu_op op, uint64_t off, uint64_t len,
		      const void *data, const struct ap_emu_cost *c)
{
	uint64_t lost = 0;
	unsigned torn = 0;
	int rc;

	if (sv->off)
		return;
	rc = ap_emu_vlog_undo(&sv->vlog, sv->fd, &lost);
	if (rc)
		fprintf(stderr, "power cut: cannot undo the volatile cache: %s\n", strerror(-rc));
	if (c && c->cached && lost)
		lost--;		/* the write in flight was never acknowledged */
	rc = op == AP_EMU_WRITE && data && c && c->media_write ?
	     ap_emu_tear(&sv->model, sv->fd, sv->capacity, off, len, data, &torn) : 0;
	if (rc)
		fprintf(stderr, "power cut: cannot tear the write in flight: %s\n", strerror(-rc));
	ap_emu_model_power_cut(&sv->model);
	sv->off = true;
	ap_emu_shm_set_power(sv->shm, false);	/* off until someone restores it */
	stats_begin(sv);
	bump(&sv->shm->live.power_cuts, 1);
	bump(&sv->shm->live.lost_writes, lost);
	bump(&sv->shm->live.torn_sectors, torn);
	stats_end(sv);
	ap_emu_shm_set_power_off(sv->shm, true);
	/* the same moment: before the request in flight is answered */
	if (sv->peer && ap_emu_shm_power(sv->peer, false, 10000) != 0)
		fprintf(stderr, "power cut: the peer drive did not follow\n");
}

/* Follow the power control field between requests: true while the power is off. */
static bool follow_power(struct server *sv)
{
	bool want_off = ap_emu_shm_power_want_off(sv->shm);

	power_signal = 0;
	if (want_off && !sv->off) {
		power_cut(sv, AP_EMU_READ, 0, 0, NULL, NULL);
	} else if (!want_off && sv->off) {
		ap_emu_model_power_on(&sv->model);
		sv->off = false;
		ap_emu_shm_set_power_off(sv->shm, false);
	}
	return sv->off;
}

/* A request answered EIO without the model: the power is off. */
static void count_error(struct server *sv)
{
	stats_begin(sv);
	bump(&sv->shm->live.errors, 1);
	stats_end(sv);
}

/*
 * Model one request: 0 when served, EIO when it must fail (already
 * accounted), or -1 when the power went while it was in flight: the
 * caller tears it (power_cut()).
 */
static int account(struct server *sv, enum ap_emu_op op, uint64_t off, uint64_t len,
		   struct ap_emu_cost *c)
{
	uint64_t sw_rmw = 0, sw_ns = follow_write_cache(sv, &sw_rmw);
	bool cut;

	/* cut-after=N: the write after N writes is in flight when the power goes */
	if (op == AP_EMU_WRITE && ap_emu_shm_cut_at(sv->shm)) {
		struct ap_emu_counters_raw n;

		ap_emu_shm_read(sv->shm, &n);
		if (n.writes + 1 >= ap_emu_shm_cut_at(sv->shm)) {
			__atomic_store_n(&sv->shm->cut_at, 0, __ATOMIC_RELEASE);	/* once */
			ap_emu_shm_set_power(sv->shm, false);
		}
	}
	ap_emu_model_request(&sv->model, op, off, len,
			     (sv->model.fail_count || sv->model.fail_after) ? served(sv) : 0,
			     sv->t0 + sw_ns, c);
	c->cost_ns += sw_ns;
	c->rmw += sw_rmw;
	/*
	 * Durability, inside the charged time (the reply stays on time): a
	 * destage makes what the cache held durable; a write the cache holds
	 * has what it overwrites kept for a power cut.
	 */
	if (c->drained)
		ap_emu_vlog_clear(&sv->vlog);
	if (c->cached && ap_emu_vlog_keep(&sv->vlog, sv->fd, off, len) != 0)
		c->fail = true;
	if (!ap_emu_shm_power_want_off(sv->shm))
		charge(sv, c->cost_ns + ap_emu_shm_host_busy(sv->shm));
	cut = ap_emu_shm_power_want_off(sv->shm);
	stats_begin(sv);
	bump(&sv->shm->live.busy_ns, c->cost_ns);
	bump(&sv->shm->live.rmw, c->rmw);	/* when the model performs them (see model.h) */
	bump(&sv->shm->live.rmw_buffer_hits, c->rmw_buffered);
	/* the layered volumes' events (a destage of the controller's cache included) */
	bump(&sv->shm->live.stripe_rmw, c->stripe_rmw);
	bump(&sv->shm->live.full_stripes, c->full_stripes);
	bump(&sv->shm->live.cache_absorbed, c->rc_absorbed ? 1 : 0);
	bump(&sv->shm->live.cache_waits, c->rc_waited ? 1 : 0);
	bump(&sv->shm->live.thin_allocs, c->thin_allocs);
	bump(&sv->shm->live.cow, c->cow);
	bump(&sv->shm->live.nospc, c->nospc ? 1 : 0);
	bump(&sv->shm->live.pcache_writes, c->pcache ? 1 : 0);
	bump(&sv->shm->live.pcache_cleaned, c->cleaned);
	bump(&sv->shm->live.pcache_stall_ns, c->stall_ns);
	if (c->fail || cut) {
		bump(&sv->shm->live.errors, 1);
	} else if (op == AP_EMU_READ) {
		bump(&sv->shm->live.reads, 1);
		bump(&sv->shm->live.read_bytes, len);
		bump(&sv->shm->live.ra_hits, c->ra_hit ? 1 : 0);
	} else if (op == AP_EMU_WRITE) {
		bump(&sv->shm->live.writes, 1);
		bump(&sv->shm->live.write_bytes, len);
		bump(&sv->shm->live.rmw_writes, c->partial ? 1 : 0);
		bump(&sv->shm->live.aligned_writes, c->aligned ? 1 : 0);
	} else {
		bump(&sv->shm->live.flushes, 1);
		bump(&sv->shm->live.flushes_ignored, c->flush_ignored ? 1 : 0);
	}
	stats_end(sv);
	if (cut)
		return -1;
	return c->nospc ? ENOSPC : c->fail ? EIO : 0;
}

static void op_init(void *ud, struct fuse_conn_info *conn)
{
	(void)ud;
	conn->max_write = AP_EMU_MAX_IO;
	conn->max_readahead = 0;
	conn->want &= ~(unsigned)(FUSE_CAP_SPLICE_READ | FUSE_CAP_SPLICE_WRITE |
				  FUSE_CAP_SPLICE_MOVE | FUSE_CAP_ASYNC_READ);
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param ep;

	if (parent != ROOT_INO || strcmp(name, AP_EMU_FILE) != 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	memset(&ep, 0, sizeof(ep));
	ep.ino = DISK_INO;
	ep.generation = 1;
	ep.attr_timeout = 86400;
	ep.entry_timeout = 86400;
	fill_attr(fuse_req_userdata(req), DISK_INO, &ep.attr);
	fuse_reply_entry(req, &ep);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct stat st;

	(void)fi;
	if (ino != ROOT_INO && ino != DISK_INO) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	fill_attr(fuse_req_userdata(req), ino, &st);
	fuse_reply_attr(req, &st, 86400);
}

static void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
		       struct fuse_file_info *fi)
{
	const struct server *sv = fuse_req_userdata(req);
	struct stat st;

	(void)fi;
	if (ino != DISK_INO && ino != ROOT_INO) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	/* a drive has a fixed capacity and no owner or mode to change */
	if ((to_set & FUSE_SET_ATTR_SIZE) && (uint64_t)attr->st_size != sv->capacity) {
		fuse_reply_err(req, EPERM);
		return;
	}
	if (to_set & (FUSE_SET_ATTR_MODE | FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID)) {
		fuse_reply_err(req, EPERM);
		return;
	}
	fill_attr(sv, ino, &st);
	fuse_reply_attr(req, &st, 86400);
}

static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	if (ino != DISK_INO) {
		fuse_reply_err(req, ino == ROOT_INO ? EISDIR : ENOENT);
		return;
	}
	if (fi->flags & O_TRUNC) {
		fuse_reply_err(req, EPERM);
		return;
	}
	fi->direct_io = 1;	/* every request reaches us, with its offset and length */
	fi->keep_cache = 0;
	fuse_reply_open(req, fi);
}

/*
 * A read or a write: stamp the request's start, check the inode and the
 * capacity (a read is cut to AP_EMU_MAX_IO and to the end of the disk, a
 * write past the end is refused), charge the model for *@len bytes at @o,
 * then move them between the image and sv->buf (a read) or @data (a
 * write). 0 when done, -1 for a read at or past the end (an empty reply),
 * or the errno to reply with.
 */
static int io_do(struct server *sv, fuse_ino_t ino, enum ap_emu_op op, uint64_t o,
		    size_t *len, const void *data)
{
	struct ap_emu_cost c;
	int rc;

	sv->t0 = ap_now_ns();
	if (ino != DISK_INO)
		return EISDIR;
	if (op == AP_EMU_WRITE) {
		if (o > sv->capacity || *len > sv->capacity - o)
			return ENOSPC;
	} else {
		if (o >= sv->capacity)
			return -1;
		if (*len > AP_EMU_MAX_IO)
			*len = AP_EMU_MAX_IO;
		if (*len > sv->capacity - o)
			*len = (size_t)(sv->capacity - o);
	}
	if (follow_power(sv)) {
		count_error(sv);
		return EIO;
	}
	/*
	 * The host's first touch of the image, inside the charged time: at
	 * 500 us a request, under CI's ASan pass, it made an honest drive's
	 * first writes 1.1x their rewrites, a first-write cost of the host's,
	 * not of the drive modelled (probe/wording).
	 */
	if (op == AP_EMU_WRITE && (rc = ap_emu_workdir_pretouch(sv->fd, o, *len, sv->buf,
								 AP_EMU_MAX_IO)))
		return -rc;
	rc = account(sv, op, o, *len, &c);
	if (rc < 0) {
		power_cut(sv, op, o, *len, data, &c);
		return EIO;
	}
	if (rc)
		return rc;
	rc = op == AP_EMU_WRITE ? ap_pwrite_all(sv->fd, data, *len, o) :
	     ap_pread_all(sv->fd, sv->buf, *len, o);
	return rc < 0 ? -rc : 0;
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct server *sv = fuse_req_userdata(req);
	size_t len = size;
	int rc;

	(void)fi;
	rc = io_do(sv, ino, AP_EMU_READ, (uint64_t)off, &len, NULL);
	if (rc < 0)
		fuse_reply_buf(req, NULL, 0);
	else if (rc)
		fuse_reply_err(req, rc);
	else
		fuse_reply_buf(req, sv->buf, len);
}

static void op_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size,
		     off_t off, struct fuse_file_info *fi)
{
	struct server *sv = fuse_req_userdata(req);
	size_t len = size;
	int rc;

	(void)fi;
	rc = io_do(sv, ino, AP_EMU_WRITE, (uint64_t)off, &len, buf);
	if (rc)
		fuse_reply_err(req, rc);
	else
		fuse_reply_write(req, size);
}

static void op_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
	struct server *sv = fuse_req_userdata(req);
	struct ap_emu_cost c;

	(void)ino;
	(void)datasync;
	(void)fi;
	sv->t0 = ap_now_ns();
	if (follow_power(sv)) {
		count_error(sv);
		fuse_reply_err(req, EIO);
		return;
	}
	/* the data is in the backing file already: the flush is a cost (and durability) */
	if (account(sv, AP_EMU_FLUSH, 0, 0, &c) < 0) {
		power_cut(sv, AP_EMU_FLUSH, 0, 0, NULL, &c);
		fuse_reply_err(req, EIO);
		return;
	}
	fuse_reply_err(req, 0);
}

static void op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t off,
			 off_t len, struct fuse_file_info *fi)
{
	struct server *sv = fuse_req_userdata(req);

	(void)fi;
	sv->t0 = ap_now_ns();
	if (ino != DISK_INO) {
		fuse_reply_err(req, EISDIR);
		return;
	}
	if (off < 0 || len <= 0 || (uint64_t)off > sv->capacity ||
	    (uint64_t)len > sv->capacity - (uint64_t)off) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	if ((!(mode & FALLOC_FL_KEEP_SIZE) && mode != 0) ||
	    (sv->no_trim && (mode & FALLOC_FL_PUNCH_HOLE))) {
		fuse_reply_err(req, EOPNOTSUPP);	/* trim=off: a disk without TRIM */
		return;
	}
	if (follow_power(sv)) {
		count_error(sv);
		fuse_reply_err(req, EIO);
		return;
	}
	/* discard (punch hole) and zero-range keep the backing file sparse */
	charge(sv, sv->model.base_ns);
	if (mode != 0 && fallocate(sv->fd, mode, off, len) != 0) {
		fuse_reply_err(req, errno);
		return;
	}
	fuse_reply_err(req, 0);
}

static void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	static const struct {
		const char *name;
		fuse_ino_t ino;
		mode_t mode;
	} ents[] = {
		{ ".", ROOT_INO, S_IFDIR },
		{ "..", ROOT_INO, S_IFDIR },
		{ AP_EMU_FILE, DISK_INO, S_IFREG },
	};
	char buf[512];
	size_t used = 0, i;

	(void)fi;
	if (ino != ROOT_INO) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	if (size > sizeof(buf))
		size = sizeof(buf);
	for (i = (size_t)off; i < AP_ARRAY_SIZE(ents); i++) {
		struct stat st = { .st_ino = ents[i].ino, .st_mode = ents[i].mode };
		size_t n = fuse_add_direntry(req, buf + used, size - used, ents[i].name,
					     &st, (off_t)(i + 1));

		if (n > size - used)
			break;
		used += n;
	}
	fuse_reply_buf(req, buf, used);
}

static const struct fuse_lowlevel_ops ops = {
	.init = op_init,
	.lookup = op_lookup,
	.getattr = op_getattr,
	.setattr = op_setattr,
	.open = op_open,
	.read = op_read,
	.write = op_write,
	.fsync = op_fsync,
	.fallocate = op_fallocate,
	.readdir = op_readdir,
};

/*
 * The process that attached us in-process (sweep --emulate, ...) is gone
 * without detaching: a helper takes the drive down while we go on serving
 * the requests that the teardown itself causes (we cannot detach our own
 * loop device: its release may wait for requests only we can answer). The
 * helper holds none of our descriptors -- neither the lock that says we
 * are alive nor /dev/fuse.
 */
static void spawn_teardown(const struct ap_emu_server_opts *o)
{
	pid_t pid = fork();

	if (pid != 0)
		return;
	if (close_range(3, ~0U, 0) != 0) {
		long fd, max = sysconf(_SC_OPEN_MAX);

		for (fd = 3; fd < max; fd++)
			close((int)fd);
	}
	/* a second fork: init reaps the helper, not us */
	if (fork() != 0)
		_exit(0);
	_exit(o->teardown(o->workdir, NULL) == 0 ? 0 : 1);
}

/*
 * A drive's time is its own: a busy machine must not stretch what the
 * server charges. Deadlines to the microsecond (the default timer slack of
 * 50 us is twice a flash page's read-modify-write), and ahead of the
 * machine's other work (nice -20: best effort, root only), so that the
 * scheduler wakes us at the deadline instead of a time slice later.
 * Busy-waiting instead would take a CPU from the writer on a small
 * machine and make the delays worse.
 */
static void hardware_clock(void)
{
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	if (setpriority(PRIO_PROCESS, 0, -20) != 0) {
		/* not root: the costs are still right on an idle machine */
	}
}

static struct fuse_session *mount_session(struct server *sv, const char *mnt, int st)
{
	char *argv[] = { "alignprobe-emu", "-o",
			 "fsname=alignprobe-emu,subtype=alignprobe", NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, argv);
	struct fuse_session *se;

	se = fuse_session_new(&args, &ops, sizeof(ops), sv);
	fuse_opt_free_args(&args);
	if (!se) {
		ap_emu_server_status(st, "error %d cannot start a FUSE session (see the log)", EIO);
		return NULL;
	}
	if (fuse_session_mount(se, mnt) != 0) {
		ap_emu_server_status(st, "error %d cannot mount FUSE on %s (is /dev/fuse usable?)", EIO, mnt);
		fuse_session_destroy(se);
		return NULL;
	}
	return se;
}

/* Serve requests and control lines until unmounted or terminated: 0 or 1. */
static int serve(struct server *sv, struct fuse_session *se, const struct ap_emu_server_opts *o,
		 int *ctl, int status_fd, const char *mnt, struct ap_emu_ctl_state *cs)
{
	struct fuse_buf fbuf;
	bool teardown_started = false;
	sigset_t term, orig;
	int ctl_fd = *ctl, rc = 0;

	memset(&fbuf, 0, sizeof(fbuf));
	sigemptyset(&term);
	sigaddset(&term, SIGINT);
	sigaddset(&term, SIGTERM);
	sigaddset(&term, SIGHUP);
	sigaddset(&term, SIGUSR1);
	sigprocmask(SIG_SETMASK, NULL, &orig);

	for (;;) {
		struct pollfd p[2] = {
			{ .fd = fuse_session_fd(se), .events = POLLIN },
			{ .fd = ctl_fd, .events = POLLIN },
		};
		int n;

		/* signals stay blocked from the check to ppoll(): one that
		 * comes in between interrupts the wait instead of being lost */
		sigprocmask(SIG_BLOCK, &term, NULL);
		if (fuse_session_exited(se))
			break;
		if (power_signal)
			follow_power(sv);
		if (term_signal) {
			/*
			 * Terminated from outside (kill, a service manager):
			 * never leave the loop device attached to a file that
			 * is about to vanish. The first signal starts the same
			 * teardown as a vanished owner, and we serve on until
			 * it is done (it stops us when the loop device has let
			 * go); a second signal ends us regardless. With the
			 * loop device already let go of (the detaching process
			 * cleared it and waits for us), we just go.
			 */
			if (!cs->dev || teardown_started || !ap_emu_loop_serves(cs->dev, o->workdir))
				break;
			teardown_started = true;
			term_signal = 0;
			spawn_teardown(o);
			while (waitpid(-1, NULL, WNOHANG) > 0)
				;
		}
		n = ppoll(p, ctl_fd >= 0 ? 2 : 1, NULL, &orig);
		sigprocmask(SIG_SETMASK, &orig, NULL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = 1;
			break;
		}
		if (ctl_fd >= 0 && p[1].revents) {
			if (!ap_emu_server_control(ctl_fd, status_fd, mnt, cs)) {
				close(ctl_fd);
				ctl_fd = -1;
				/*
				 * The attaching process died: before its loop
				 * device was configured nothing is left to
				 * detach; after, the teardown clears it (else
				 * it would stay over a lazily detached mount).
				 */
				if (!cs->done && !(cs->dev && ap_emu_loop_serves(cs->dev, o->workdir)))
					break;
				if ((!cs->done || !cs->persist) && cs->dev && !teardown_started) {
					/* its owner exited without detaching */
					teardown_started = true;
					spawn_teardown(o);
					while (waitpid(-1, NULL, WNOHANG) > 0)
						;
				}
			}
		}
		if (p[0].revents & POLLIN) {
			int r = fuse_session_receive_buf(se, &fbuf);

			if (r == -EINTR || r == -EAGAIN)
				continue;
			if (r <= 0)
				break;	/* unmounted */
			fuse_session_process_buf(se, &fbuf);
		} else if (p[0].revents & (POLLERR | POLLHUP | POLLNVAL)) {
			break;
		}
	}
	sigprocmask(SIG_SETMASK, &orig, NULL);
	free(fbuf.mem);
	*ctl = ctl_fd;
	return rc;
}

/*
 * The server, run in the forked child: mount @workdir/mnt, tell the parent
 * "ready" (or "error ERRNO MESSAGE") on @status_fd, then serve until
 * SIGTERM/SIGINT/SIGHUP, unmount and return an exit code. The control
 * protocol on @ctl_fd is described in emu/emuP.h.
 */
int ap_emu_server_run(const struct ap_emu_server_opts *o, int ctl_fd, int status_fd)
{
	const struct ap_emu_spec *s = o->spec;
	const char *workdir = o->workdir;
	struct server server, *sv = &server;
	struct fuse_session *se;
	struct ap_emu_ctl_state cs = { .owner = o->owner };
	char *mnt, *path;
	int lock_fd, rc = 0;

	memset(sv, 0, sizeof(*sv));
	sv->vlog.fd = -1;
	hardware_clock();
	term_signals_install();
	ap_emu_model_init(&sv->model, s);
	sv->shm = o->shm;
	sv->capacity = s->capacity;
	sv->no_trim = s->no_trim;
	sv->buf = ap_xmalloc(AP_EMU_MAX_IO);
	ap_xasprintf(&mnt, "%s/mnt", workdir);

	/* our own open file description: the lock lives as long as we do */
	ap_xasprintf(&path, "%s/stats", workdir);
	lock_fd = open(path, O_RDWR | O_CLOEXEC);
	free(path);
	if (lock_fd < 0 || flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
		ap_emu_server_status(status_fd, "error %d cannot lock the stats file", errno);
		rc = 1;
		goto out;
	}
	ap_xasprintf(&path, "%s/backing", workdir);
	sv->fd = open(path, O_RDWR | O_CLOEXEC);
	free(path);
	if (sv->fd < 0) {
		ap_emu_server_status(status_fd, "error %d cannot open the backing file", errno);
		rc = 1;
		goto out;
	}
	if (ap_emu_vlog_open(&sv->vlog, workdir) != 0) {
		ap_emu_server_status(status_fd, "error %d cannot create the volatile cache's log",
				     errno);
		rc = 1;
		goto out;
	}
	if (s->cut_peer) {
		sv->peer = ap_emu_shm_of_dev(s->cut_peer, true);
		if (!sv->peer) {
			ap_emu_server_status(status_fd, "error %d cut-peer %s: not an emulated drive",
					     ENODEV, s->cut_peer);
			rc = 1;
			goto out;
		}
	}
	__atomic_store_n(&sv->shm->server_pid, (int32_t)getpid(), __ATOMIC_RELEASE);

	se = mount_session(sv, mnt, status_fd);
	if (!se) {
		rc = 1;
		goto out;
	}
	ap_emu_server_status(status_fd, "ready");
	rc = serve(sv, se, o, &ctl_fd, status_fd, mnt, &cs);
	fuse_session_unmount(se);
	fuse_session_destroy(se);
	/*
	 * A drive that never got its loop device leaves nothing to detach:
	 * take the work directory down ourselves. Otherwise the registry entry
	 * stays until `emulate --detach` (or cleanup) removes the rest.
	 */
	if (!cs.done && !cs.state_id)
		ap_emu_workdir_remove(workdir);
out:
	if (ctl_fd >= 0)
		close(ctl_fd);
	ap_emu_vlog_close(&sv->vlog);
	ap_emu_model_destroy(&sv->model);
	if (sv->peer)
		munmap(sv->peer, sizeof(*sv->peer));
	free(sv->buf);
	free(mnt);
	free(cs.state_id);
	free(cs.dev);
	return rc;
}
