// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The raw probe engine (see probe.h) on a block device: its geometry, the
 * backend with the preserving mode's undo journal, and the undo. The plan
 * is in plan.c, the measurement schedule and the decision in measure.c.
 */
#include "probe/probe.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "device/safety.h"
#include "lib/outfile.h"
#include "lib/state.h"
#include "lib/rng.h"
#include "lib/blkdev.h"
#include "lib/sysfs.h"

/* ------------------------------------------------------------------ */
/* block devices */

int ap_probe_device_geometry(const char *dev, struct ap_probe_dev *d, struct ap_error *e)
{
	struct ap_disk_identity id;
	struct ap_error ie = { 0 };
	struct stat st;
	unsigned int pbs = 0;
	int fd, rc;

	fd = open(dev, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ap_error_set(e, errno, "%s: %s", dev, strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISBLK(st.st_mode)) {
		close(fd);
		return ap_error_set(e, ENOTBLK, "%s: not a block device", dev);
	}
	rc = ap_identity_read(fd, &id, &ie);
	if (!rc && (rc = ap_blkdev_get_sizes(fd, NULL, NULL, &pbs)) != 0)
		rc = ap_error_set(&ie, -rc, "%s", strerror(-rc));
	close(fd);
	if (rc) {
		ap_identity_free(&id);
		return ap_error_set(e, -rc, "%s: cannot read the sector sizes: %s", dev, ie.msg);
	}
	d->dev = dev;
	d->logical_sector = id.logical_sector;
	d->reported_physical = pbs ? pbs : id.logical_sector;
	d->size = id.size;
	ap_identity_free(&d->id);
	d->id = id;
	return 0;
}

int ap_probe_path_on_device(const char *path, const char *dev)
{
	char *copy = ap_xstrdup(path), *dir = dirname(copy);
	struct stat sd, sv;
	int rc;

	if (stat(dir, &sd) != 0 || stat(dev, &sv) != 0) {
		rc = -errno;
		free(copy);
		return rc;
	}
	free(copy);
	if (!S_ISBLK(sv.st_mode))
		return 0;
	return ap_sysfs_devno_to_wholedisk(sd.st_dev) == ap_sysfs_devno_to_wholedisk(sv.st_rdev);
}

struct devio {
	int fd;
	enum ap_probe_mode mode;
	const struct ap_probe_plan *plan;
	struct ap_journal *journal;
	unsigned char *buf;	/* a slot's span: the timed writes use its start */
	unsigned char *lead;	/* the lead-in reads' buffer */
	size_t lead_size;
	struct ap_error err;
};

static int dev_op(void *arg, bool write, uint64_t slot, uint64_t off, size_t len, uint64_t *ns)
{
	struct devio *d = arg;
	uint64_t t0, t1;
	ssize_t n;
	int rc;

	if (write && d->mode == AP_PROBE_PRESERVE) {
		uint64_t base = ap_probe_slot_offset(d->plan, slot) - d->plan->margin;

		/* the original bytes of exactly this range, from the slot's record */
		rc = ap_journal_read(d->journal, slot, (uint32_t)(off - base), d->buf, len, &d->err);
		if (rc)
			return rc;
	}
	t0 = ap_now_ns();
	n = write ? pwrite(d->fd, d->buf, len, (off_t)off) : pread(d->fd, d->buf, len, (off_t)off);
	t1 = ap_now_ns();
	if (n < 0)
		return -errno;
	if ((size_t)n != len)
		return -EIO;
	*ns = t1 - t0;
	if (write && d->mode == AP_PROBE_PRESERVE)
		ap_journal_intent_done(d->journal);	/* not synced: see journal.h */
	return 0;
}

/* struct ap_probe_io's announce (preserve): the next write, durably in the journal. */
static int dev_announce(void *arg, uint64_t off, size_t len)
{
	struct devio *d = arg;

	if (d->mode != AP_PROBE_PRESERVE)
		return 0;
	return ap_journal_intent(d->journal, off, len, &d->err);
}

/* @n bytes of the pseudo-random pattern of @seed (whole 8-byte words) */
static void fill_pattern(unsigned char *buf, uint64_t n, uint64_t seed)
{
	uint64_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		uint64_t x = ap_splitmix64(&seed);

		memcpy(buf + i, &x, 8);
	}
}

static int dev_lead_in(void *arg, uint64_t off, size_t len, uint64_t *ns)
{
	struct devio *d = arg;
	uint64_t t0 = ap_now_ns();
	int rc = ap_pread_all(d->fd, d->lead, len, off);

	*ns = ap_now_ns() - t0;
	return rc;
}

static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;

static int read_originals(struct devio *io, const struct ap_probe_plan *plan,
			  const struct ap_cancel *cancel, struct ap_probe_result *r,
			  struct ap_error *e)
{
	uint64_t len = ap_probe_record_len(plan), i;
	unsigned char *buf;
	int rc = 0;

	if (posix_memalign((void **)&buf, 4096, len) != 0)
		return ap_error_set(e, ENOMEM, "out of memory");
	/* one ascending pass over the whole region, before any write */
	for (i = 0; i < plan->slots; i++) {
		/* the slot's record: its span and the margins around it */
		uint64_t off = ap_probe_slot_offset(plan, i) - plan->margin;
		int sig = ap_cancelled(cancel);

		if (sig) {
			r->interrupted = sig;
			rc = -EINTR;
			break;
		}
		rc = ap_pread_all(io->fd, buf, len, off);
		if (rc) {
			ap_error_set(e, -rc, "cannot read the original data at offset %llu: %s",
				     (unsigned long long)off, strerror(-rc));
			break;
		}
		rc = ap_journal_put(io->journal, i, buf, e);
		if (rc)
			break;
	}
	free(buf);
	return rc;
}

/*
 * struct ap_probe_io's warm: write slot @slot's span once (destructive: the
 * pattern, preserve: the original bytes), aligned, before its first timed
 * write. Only the slots the rounds use are written; never the margins.
 */
static int dev_warm(void *arg, uint64_t slot)
{
	struct devio *d = arg;
	uint64_t off = ap_probe_slot_offset(d->plan, slot);
	int rc;

	if (d->mode == AP_PROBE_PRESERVE) {
		/* the whole record, its CRC checked: never write back damaged bytes */
		rc = ap_journal_read_record(d->journal, slot, d->buf, &d->err);
		if (!rc)
			rc = ap_journal_intent(d->journal, off, d->plan->span, &d->err);
		if (rc)
			return rc;
		/* the span only: the margins are journalled, not written */
		rc = ap_pwrite_all(d->fd, d->buf + d->plan->margin, d->plan->span, off);
		if (!rc)
			ap_journal_intent_done(d->journal);
		return rc;
	}
	return ap_pwrite_all(d->fd, d->buf, d->plan->span, off);
}

/*
 * Preserve: the identity the journal records, read from the descriptor the
 * probe writes through, with the content of ranges it never writes.
 */
static int read_identity(struct devio *io, const struct ap_probe_plan *plan,
			 struct ap_probe_dev *d, struct ap_error *e)
{
	struct ap_identity_content ranges[2];
	struct ap_disk_identity id;
	struct ap_error ie = { 0 };
	size_t n = ap_probe_untouched(plan, ranges, AP_ARRAY_SIZE(ranges));
	int rc;

	rc = ap_identity_read(io->fd, &id, &ie);
	if (!rc)
		rc = ap_identity_read_content(io->fd, &id, ranges, n, &ie);
	if (rc) {
		ap_identity_free(&id);
		return ap_error_set(e, -rc, "cannot read the identity of %s for the undo "
				    "journal: %s", d->dev, ie.msg);
	}
	if (id.size != d->size || id.logical_sector != d->logical_sector) {
		ap_identity_free(&id);
		return ap_error_set(e, EIO, "%s changed its size or sector size since it was "
				    "examined", d->dev);
	}
	ap_identity_free(&d->id);
	d->id = id;
	return 0;
}

/*
 * ap_probe_measure() with this thread ahead of the machine's other work
 * (nice -20 and 1 ns timer slack, root only, as the emulated drive's
 * server): a timed write's latency includes the time the thread takes to
 * notice that its lead-in completed, and on a busy machine that delay
 * shortens the write's rotational wait by as much (a write faster than its
 * aligned peers, which the claim of "no effect" cannot tell from noise).
 * Restored after.
 */
static int measure_ahead(const struct ap_probe_io *io, const struct ap_probe_opts *o,
			 const struct ap_probe_plan *plan, struct ap_probe_result *r,
			 struct ap_error *e)
{
	int nice_was, slack_was = prctl(PR_GET_TIMERSLACK, 0UL, 0UL, 0UL, 0UL), rc;
	bool raised;

	errno = 0;
	nice_was = getpriority(PRIO_PROCESS, 0);
	raised = errno == 0 && nice_was > -20 && setpriority(PRIO_PROCESS, 0, -20) == 0;
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	rc = ap_probe_measure(io, o, plan, r, e);
	if (slack_was > 0)
		prctl(PR_SET_TIMERSLACK, (unsigned long)slack_was, 0UL, 0UL, 0UL);
	if (raised && setpriority(PRIO_PROCESS, 0, nice_was) != 0) {
		/* a lower priority cannot be refused to root */
	}
	return rc;
}

/*
 * Preserve: register and create the undo journal, read every slot's
 * original bytes into it and commit it, all before the first write. 0 to
 * measure; 1 when interrupted first (r decided, nothing written, no
 * journal); -errno with @e (no journal).
 */
static int journal_begin(struct devio *io, const struct ap_probe_opts *o, struct ap_probe_dev *d,
			 struct ap_probe_result *r, char **state_id, struct ap_error *e)
{
	struct ap_journal_plan jp;
	int rc;

	if (!o->journal)
		return ap_error_set(e, EINVAL, "preserving mode needs an undo journal path");
	rc = read_identity(io, io->plan, d, e);
	if (rc)
		return rc;
	ap_probe_journal_plan(io->plan, o->allow_metadata, &jp);
	/*
	 * Registered before the file exists: from its first byte on, `probe
	 * --undo` and `cleanup` see that a live probe owns it
	 * (journal_owner_alive()); an entry whose file never came is "gone"
	 * to cleanup.
	 */
	d->journal = ap_path_canonical(o->journal);
	pthread_mutex_lock(&state_lock);
	rc = ap_state_register(AP_STATE_JOURNAL, d->journal, d->dev, NULL, state_id);
	pthread_mutex_unlock(&state_lock);
	if (rc == 0)
		rc = ap_journal_create(o->journal, d->dev, &d->id, &jp, &io->journal, e);
	else
		ap_error_set(e, -rc, "cannot register the undo journal in %s: %s",
			     ap_state_dir(), strerror(-rc));
	if (rc) {
		if (*state_id)
			ap_state_release(*state_id);
		free(d->journal);
		d->journal = NULL;	/* none was made */
		return rc;
	}
	ap_test_pause("ALIGNPROBE_TEST_JOURNAL_CREATED");
	rc = read_originals(io, io->plan, &o->cancel, r, e);
	if (!rc)
		rc = ap_journal_commit(io->journal, e);
	if (rc) {
		/* nothing was written yet: the journal is not needed */
		ap_journal_remove(io->journal);
		io->journal = NULL;
		ap_state_release(*state_id);
		if (rc == -EINTR) {
			ap_probe_decide(r, o);
			return 1;
		}
	}
	return rc;
}

int ap_probe_device(struct ap_probe_dev *d, const struct ap_probe_opts *o,
		    struct ap_probe_result *r, struct ap_error *e)
{
	struct ap_probe_plan plan;
	struct devio io = { .fd = -1, .mode = o->mode };
	struct ap_probe_io vt = { .op = dev_op, .lead_in = dev_lead_in, .warm = dev_warm,
				  .announce = dev_announce, .arg = &io };
	char *state_id = NULL;
	uint64_t bufsz;
	int rc, flags;

	memset(r, 0, sizeof(*r));
	r->decided = r->confirmed = -1;
	rc = ap_probe_plan(o, d->size, d->logical_sector, &plan, e);
	if (rc)
		return rc;
	plan.reported_physical = d->reported_physical;
	r->plan = plan;
	r->mode = o->mode;

	flags = O_DIRECT | O_CLOEXEC | (o->mode == AP_PROBE_READONLY ? O_RDONLY : O_RDWR | O_DSYNC);
	io.fd = open(d->dev, flags);
	if (io.fd < 0)
		return ap_error_set(e, errno, "cannot open %s with O_DIRECT%s: %s", d->dev,
				    o->mode == AP_PROBE_READONLY ? "" : " | O_DSYNC",
				    strerror(errno));
	io.plan = &plan;
	io.lead_size = ap_probe_lead_in_len(&plan);
	/*
	 * span >= the largest write: one buffer for the warm-up and the timed
	 * writes (preserve: a whole record, the margins too)
	 */
	bufsz = ap_probe_record_len(&plan) > plan.st_cap ? ap_probe_record_len(&plan) : plan.st_cap;
	if (posix_memalign((void **)&io.buf, 4096, bufsz) != 0 ||
	    posix_memalign((void **)&io.lead, 4096, io.lead_size) != 0) {
		free(io.buf);
		close(io.fd);
		return ap_error_set(e, ENOMEM, "out of memory");
	}
	/* destructive: a fixed pseudo-random pattern (no zeros a drive could elide) */
	fill_pattern(io.buf, plan.span > plan.st_cap ? plan.span : plan.st_cap, o->seed);

	if (o->mode == AP_PROBE_PRESERVE) {
		rc = journal_begin(&io, o, d, r, &state_id, e);
		if (rc) {
			if (rc > 0)
				rc = 0;	/* interrupted before the first write */
			goto out;
		}
	}

	rc = measure_ahead(&vt, o, &plan, r, e);
	if (rc && io.err.code)
		*e = io.err;

	if (o->mode == AP_PROBE_PRESERVE) {
		struct ap_error re = { 0 };
		int rrc;

		ap_test_pause("ALIGNPROBE_TEST_PROBE_MEASURED");
		/*
		 * O_EXCL keeps out mounts and exclusive openers, not a plain
		 * writer (dd, a VM): a range that holds neither the bytes the
		 * probe read (and wrote) nor what the write torn last may
		 * leave is someone else's now. It is left alone, with the
		 * journal (-EPERM: exit 3, the ranges named).
		 */
		rrc = ap_journal_restore(io.journal, io.fd, d->dev, false, &d->restore, &re);
		if (rrc) {
			d->journal_kept = true;
			d->changed = rrc == -EPERM;
			ap_journal_close(io.journal);
			if (!rc) {
				*e = re;
				rc = rrc;
			}
		} else {
			d->restored = true;
			ap_journal_remove(io.journal);
			ap_state_release(state_id);
		}
		io.journal = NULL;
	}
out:
	free(state_id);
	free(io.buf);
	free(io.lead);
	if (io.journal)
		ap_journal_close(io.journal);
	close(io.fd);
	return rc;
}

void ap_probe_dev_free(struct ap_probe_dev *d)
{
	if (!d)
		return;
	free(d->journal);
	d->journal = NULL;
	ap_identity_free(&d->id);
}

/* Is registry entry @en the journal at @path (@real: its real path, or NULL)? */
static bool is_journal_entry(const struct ap_state_entry *en, const char *path, const char *real)
{
	return en->kind == AP_STATE_JOURNAL && en->path &&
	       (strcmp(en->path, path) == 0 || (real && strcmp(en->path, real) == 0));
}

static void release_journal_entries(const char *path)
{
	struct ap_state_entry *v = NULL;
	char *real = realpath(path, NULL);
	size_t n = 0, i;

	if (ap_state_list(&v, &n) != 0)
		goto out;
	for (i = 0; i < n; i++)
		if (is_journal_entry(&v[i], path, real))
			ap_state_release(v[i].file);
	ap_state_free(v, n);
out:
	free(real);
}

/*
 * Does a live process own the journal at @path (@real)? Its registry
 * entry, judged as cleanup judges it (ap_state_is_stale(): the owner runs,
 * started when it registered, in this boot): 1 with its PID and device
 * (the caller frees), else 0.
 */
static int journal_owner_alive(const char *path, const char *real, pid_t *pid, char **dev)
{
	struct ap_state_entry *v = NULL;
	size_t n = 0, i;
	int live = 0;

	if (ap_state_list(&v, &n) != 0)
		return 0;
	for (i = 0; i < n && !live; i++) {
		if (!is_journal_entry(&v[i], path, real) || v[i].owner <= 0 ||
		    ap_state_is_stale(&v[i]) ||
		    v[i].owner == getpid())
			continue;
		live = 1;
		*pid = v[i].owner;
		*dev = ap_xstrdup(v[i].dev ? v[i].dev : "its disk");
	}
	ap_state_free(v, n);
	return live;
}

/*
 * The device the journal restores: @dev as named, or the one whose identity
 * is the journal's. Refusals are -EPERM.
 */
static int undo_target(const struct ap_journal_info *info, const char *dev,
		       bool allow_unidentified, struct ap_probe_undo *u, struct ap_error *e)
{
	struct ap_identity_match m;
	char *want;
	int rc;

	if (!ap_identity_is_distinctive(&info->id)) {
		const char *what = "records no identity that tells its disk from another of the "
				   "same size (no WWN, serial or backing file, and blank content)";

		if (!dev || !allow_unidentified)
			return ap_error_set(e, EPERM, "the journal %s; name the disk (the journal "
					    "says %s) and add --allow-unidentified to restore it "
					    "anyway", what, info->dev);
		snprintf(u->dev, sizeof(u->dev), "%s", dev);
		return 0;
	}
	if (dev) {
		snprintf(u->dev, sizeof(u->dev), "%s", dev);
		return 0;
	}
	rc = ap_identity_find(&info->id, info->dev, &m, e);
	if (rc)
		return rc;
	want = ap_identity_describe(&info->id);
	if (m.npaths == 1) {
		snprintf(u->dev, sizeof(u->dev), "%s", m.paths[0]);
		u->found = strcmp(m.paths[0], info->dev) != 0;
	} else if (m.npaths == 0) {
		rc = ap_error_set(e, EPERM, "no device is the journal's disk (%s, named %s "
				  "then)%s%s; nothing was written", want, info->dev,
				  m.rejected ? "; examined " : "",
				  m.rejected ? m.rejected : "");
	} else {
		size_t i, len = 0;
		char list[256] = "";

		for (i = 0; i < m.npaths; i++)
			len += (size_t)snprintf(list + len, len < sizeof(list) ? sizeof(list) - len
						: 0, "%s%s", i ? ", " : "", m.paths[i]);
		rc = ap_error_set(e, EPERM, "%zu devices are the journal's disk (%s): %s; name "
				  "the one to restore", m.npaths, want, list);
	}
	free(want);
	ap_identity_match_free(&m);
	return rc;
}

/* Delete the journal @j (@real: its real path) and its entries; u->removed or u->remove_err. */
static void undo_remove(struct ap_journal *j, const char *journal, const char *real,
			struct ap_probe_undo *u)
{
	int rc = ap_journal_remove(j);

	if (rc) {
		u->remove_err = -rc;
		return;
	}
	u->removed = true;
	release_journal_entries(real ? real : journal);
}

int ap_probe_undo(const char *journal, const char *dev, bool allow_unidentified, bool force,
		  struct ap_probe_undo *u, struct ap_error *e)
{
	struct ap_journal *j = NULL;
	const struct ap_journal_info *info;
	struct ap_disk_identity have = { 0 };
	struct ap_error ie = { 0 };
	char *real, why[768];
	int rc, fd = -1;

	memset(u, 0, sizeof(*u));
	rc = ap_journal_open(journal, &j, e);
	if (rc)
		return rc;
	info = ap_journal_info(j);
	snprintf(u->named, sizeof(u->named), "%s", info->dev);
	snprintf(u->dev, sizeof(u->dev), "%s", dev ? dev : info->dev);
	real = realpath(journal, NULL);
	{
		char *owner_dev = NULL;
		pid_t owner = 0;

		/*
		 * A live probe's journal (incomplete while it reads the originals,
		 * complete while it measures): it is the probe's only way back
		 * after a power cut, and the probe writes the bytes back itself.
		 */
		if (journal_owner_alive(journal, real, &owner, &owner_dev)) {
			rc = ap_error_set(e, EBUSY, "the undo journal of a running probe (PID %d, "
					  "on %s): it writes the original bytes back itself when "
					  "it ends; --undo is for a probe that is gone (killed, or "
					  "a power cut); nothing was done", (int)owner, owner_dev);
			free(owner_dev);
			free(real);
			ap_journal_close(j);
			return rc;
		}
	}
	if (!info->complete) {
		/* interrupted while it was being written: the probe had not written yet */
		u->incomplete = true;
		undo_remove(j, journal, real, u);
		free(real);
		return 0;
	}
	rc = undo_target(info, dev, allow_unidentified, u, e);
	if (rc)
		goto out;
	rc = ap_safety_in_use(u->dev, e);
	if (rc)
		goto out;
	fd = ap_safety_open_excl(u->dev, O_RDWR | O_DIRECT | O_DSYNC);
	if (fd < 0) {
		rc = ap_error_set(e, -fd, "cannot open %s exclusively: %s", u->dev,
				  fd == -EBUSY ? "it is in use" : strerror(-fd));
		fd = -1;
		goto out;
	}
	/* held now: the device under this descriptor is the one that is checked */
	rc = ap_identity_read(fd, &have, &ie);
	if (!rc && info->id.ncontent)
		rc = ap_identity_read_content(fd, &have, info->id.content, info->id.ncontent, &ie);
	if (rc) {
		if (rc == -ENOTBLK)
			rc = ap_error_set(e, EINVAL, "%s is not a block device", u->dev);
		else
			rc = ap_error_set(e, -rc, "%s: cannot read its identity: %s", u->dev,
					  ie.msg);
		goto out;
	}
	if (ap_identity_compare(&info->id, &have, why, sizeof(why)) != AP_IDENTITY_SAME) {
		rc = ap_error_set(e, EPERM, "%s is not the disk this journal was written for "
				  "(%s): %s; nothing was written", u->dev, info->dev, why);
		goto out;
	}
	rc = ap_journal_restore(j, fd, u->dev, force, &u->st, e);
	if (!rc) {
		undo_remove(j, journal, real, u);
		j = NULL;
	}
out:
	if (fd >= 0)
		close(fd);
	ap_identity_free(&have);
	free(real);
	ap_journal_close(j);
	return rc;
}
