// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The cleanup engine (see cleanup.h): the registry's entries walked in the
 * order they come down, each stale one undone by its owner's undo (a
 * mount by device/mount.c, a loop device by lib/blkdev.c, an emulated drive
 * by emu/attach.c, a write cache by device/cachectl.c), what each came to
 * handed to the command's report hook. It never prints.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup/cleanup.h"
#include "device/cachectl.h"
#include "device/safety.h"
#include "emu/emu.h"
#include "lib/blkdev.h"
#include "lib/state.h"
#include "lib/sysfs.h"
#include "lib/util.h"
#include "device/mount.h"

static void report(struct ap_cleanup *c, const struct ap_state_entry *en, const char *action,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void report(struct ap_cleanup *c, const struct ap_state_entry *en, const char *action,
		   const char *fmt, ...)
{
	char *detail = NULL;
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		if (vasprintf(&detail, fmt, ap) < 0)
			detail = NULL;
		va_end(ap);
	}
	c->report(c, en, action, false, detail);
	free(detail);
}

static void failed(struct ap_cleanup *c, const struct ap_state_entry *en, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void failed(struct ap_cleanup *c, const struct ap_state_entry *en, const char *fmt, ...)
{
	char *detail = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&detail, fmt, ap) < 0)
		detail = NULL;
	va_end(ap);
	c->report(c, en, "failed", true, detail ? detail : "?");
	free(detail);
	c->nremain++;
}

/* "done" or, under --dry-run, "would-done" */
static const char *act(const struct ap_cleanup *c, const char *done, const char *would)
{
	return c->dry_run ? would : done;
}

static void release(struct ap_cleanup *c, const struct ap_state_entry *en)
{
	if (!c->dry_run)
		ap_state_release(en->file);
}

static void do_mount(struct ap_cleanup *c, const struct ap_state_entry *en)
{
	struct ap_error e = { 0 };
	int n;

	if (!en->path || en->path[0] != '/') {
		failed(c, en, "registry entry without an absolute mount point: left alone");
		return;
	}
	n = ap_mount_undo(en->path, en->dev, c->dry_run, &e);
	if (n < 0) {
		failed(c, en, "%s", e.msg);
		return;
	}
	if (n && c->dry_run) {
		c->unmounted = ap_xreallocarray(c->unmounted, c->nunmounted + 1,
						sizeof(*c->unmounted));
		c->unmounted[c->nunmounted++] = ap_xstrdup(en->path);
	}
	if (n) {
		report(c, en, act(c, "unmounted", "would-unmount"), NULL);
		c->ndone++;
	} else {
		report(c, en, act(c, "gone", "gone"), "not mounted");
	}
	release(c, en);
}

static void do_tmpdir(struct ap_cleanup *c, const struct ap_state_entry *en)
{
	struct ap_error e = { 0 };
	struct stat st;
	int rc;

	if (!en->path || en->path[0] != '/' || strcmp(en->path, "/") == 0) {
		failed(c, en, "registry entry without a usable directory: left alone");
		return;
	}
	if (lstat(en->path, &st) != 0) {
		report(c, en, "gone", "already removed");
		release(c, en);
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		failed(c, en, "not a directory any more: left alone");
		return;
	}
	if (ap_mount_find(en->path, true, NULL, NULL)) {
		size_t i;

		for (i = 0; c->dry_run && i < c->nunmounted; i++)
			if (strcmp(c->unmounted[i], en->path) == 0)
				break;
		if (!c->dry_run || i == c->nunmounted) {
			failed(c, en, "something is still mounted on or below it");
			return;
		}
	}
	if (c->dry_run) {
		report(c, en, "would-remove", NULL);
		return;
	}
	rc = ap_mount_remove_dir(en->path, &e);
	if (rc) {
		failed(c, en, "%s", e.msg);
		return;
	}
	report(c, en, "removed", NULL);
	c->ndone++;
	release(c, en);
}

/* The backing file of /dev/loopN from sysfs, without " (deleted)"; NULL when unattached. */
static char *loop_backing(const char *dev)
{
	const char *b = strrchr(dev, '/');

	return ap_sysfs_loop_backing_file(b ? b + 1 : dev, true);
}

static void do_loop(struct ap_cleanup *c, const struct ap_state_entry *en)
{
	struct ap_error e = { 0 };
	char *bf;
	int rc;

	if (!en->dev || strncmp(en->dev, "/dev/loop", 9) != 0) {
		failed(c, en, "registry entry without a loop device: left alone");
		return;
	}
	bf = loop_backing(en->dev);
	if (!bf) {
		report(c, en, "gone", "not attached any more");
		release(c, en);
		return;
	}
	if (en->path && strcmp(bf, en->path) != 0) {
		report(c, en, "gone", "now backed by %s, somebody else's: left alone", bf);
		release(c, en);
		free(bf);
		return;
	}
	free(bf);
	if (ap_safety_in_use(en->dev, &e) != 0) {
		failed(c, en, "still in use: %s", e.msg);
		return;
	}
	if (c->dry_run) {
		report(c, en, "would-detach", NULL);
		return;
	}
	/* not exclusive: on a device still open somewhere LOOP_CLR_FD only sets autoclear */
	rc = ap_blkdev_loop_detach(en->dev, false, 1000);
	if (rc == -ETIMEDOUT) {
		/* still attached: the entry stays until the kernel has let go */
		report(c, en, "deferred", "still attached: the kernel detaches it when its last "
		       "user closes it");
		c->nremain++;
		return;
	}
	if (rc) {
		failed(c, en, "detach: %s", strerror(-rc));
		return;
	}
	report(c, en, "detached", NULL);
	c->ndone++;
	release(c, en);
}

static void do_emu(struct ap_cleanup *c, const struct ap_state_entry *en)
{
	struct ap_error e = { 0 };
	int rc;

	if (!en->dev || !*en->dev) {
		failed(c, en, "registry entry without a device: left alone");
		return;
	}
	if (c->dry_run) {
		report(c, en, "would-detach", NULL);
		return;
	}
	/* this entry's drive only: the number may carry another drive now */
	rc = ap_emu_detach_entry(en->path, &e);
	if (rc) {
		failed(c, en, "%s", e.msg[0] ? e.msg : strerror(-rc));
		return;
	}
	report(c, en, "detached", NULL);
	c->ndone++;
	release(c, en);
}

static void do_journal(struct ap_cleanup *c, const struct ap_state_entry *en)
{
	if (!en->path || access(en->path, F_OK) != 0) {
		report(c, en, "gone", "the journal file no longer exists");
		release(c, en);
		return;
	}
	if (!c->remove_journals) {
		report(c, en, "kept", "run 'alignprobe probe --undo %s' to restore %s",
		       en->path, en->dev ? en->dev : "the device");
		c->nremain++;
		return;
	}
	if (c->dry_run) {
		report(c, en, "would-remove", NULL);
		return;
	}
	if (unlink(en->path) != 0) {
		failed(c, en, "unlink: %s", strerror(errno));
		return;
	}
	report(c, en, "removed", NULL);
	c->ndone++;
	release(c, en);
}

/* A write cache that seq --write-cache switched: put back as it was found. */
static void do_wcache(struct ap_cleanup *c, const struct ap_state_entry *en)
{
	struct ap_error e = { 0 };
	char *orig = NULL, *backing = NULL;
	int model = -1, rc;

	if (c->dry_run) {
		report(c, en, "would-restore", NULL);
		return;
	}
	rc = ap_cachectl_restore_record(en->path, en->dev, en->aux, c->cache_model, &e);
	if (rc < 0) {
		failed(c, en, "%s", e.msg[0] ? e.msg : strerror(-rc));
		return;
	}
	if (rc == 1) {
		report(c, en, "gone", "the drive is not there any more: nothing to restore");
	} else {
		ap_wcache_record_parse(en->aux, &model, &backing, &orig);
		report(c, en, "restored", "write cache back to \"%s\"%s", orig ? orig : "?",
		       model >= 0 ? (model ? " (and the emulated drive's on)" : " (and the emulated drive's off)") : "");
		c->ndone++;
	}
	free(orig);
	free(backing);
	release(c, en);
}

/* Is @dev (from an entry) DEVICE or one of its partitions? */
bool ap_cleanup_about_device(const struct ap_cleanup *c, const char *dev)
{
	size_t n;
	struct stat st;

	if (!dev || !*dev)
		return false;
	if (strcmp(dev, c->device) == 0 || (c->device_canon && strcmp(dev, c->device_canon) == 0))
		return true;
	if (c->device_rdev && stat(dev, &st) == 0 && S_ISBLK(st.st_mode)) {
		if (st.st_rdev == c->device_rdev)
			return true;
		/* a partition: its whole disk */
		if (ap_sysfs_devno_to_wholedisk(st.st_rdev) == c->device_rdev)
			return true;
	}
	/* a partition that no longer exists: /dev/loop3 -> /dev/loop3p1, /dev/sdb -> /dev/sdb1 */
	n = strlen(c->device_canon ? c->device_canon : c->device);
	if (strncmp(dev, c->device_canon ? c->device_canon : c->device, n) == 0) {
		const char *r = dev + n;

		if (*r == 'p')
			r++;
		return *r && strspn(r, "0123456789") == strlen(r);
	}
	return false;
}

/* A dead run's hold names a disk it no longer works on: nothing to undo. */
static void do_hold(struct ap_cleanup *c, const struct ap_state_entry *en)
{
	release(c, en);
}

/*
 * Each kind of the registry and its undo, in the order they come down: a
 * mount before its directory, the write cache while the emulated drive is
 * still there, loop devices before the drives under them. Holds are not
 * listed: they name a disk, no resource.
 */
static const struct ap_cleanup_kind {
	enum ap_state_kind kind;
	void (*undo)(struct ap_cleanup *c, const struct ap_state_entry *en);
	bool listed;
} kinds[] = {
	{ AP_STATE_MOUNT,   do_mount,   true },
	{ AP_STATE_WCACHE,  do_wcache,  true },
	{ AP_STATE_LOOP,    do_loop,    true },
	{ AP_STATE_EMU,     do_emu,     true },
	{ AP_STATE_TMPDIR,  do_tmpdir,  true },
	{ AP_STATE_JOURNAL, do_journal, true },
	{ AP_STATE_HOLD,    do_hold,    false },
	{ AP_STATE_UNKNOWN, NULL,       true },
};

static const struct ap_cleanup_kind *kind_of(enum ap_state_kind k)
{
	size_t i;

	for (i = 0; i < AP_ARRAY_SIZE(kinds) - 1; i++)
		if (kinds[i].kind == k)
			return &kinds[i];
	return &kinds[AP_ARRAY_SIZE(kinds) - 1];
}

static int kind_order(enum ap_state_kind k)
{
	return (int)(kind_of(k) - kinds);
}

/*
 * A dead run's entry on a disk a live run works on now (its hold): a second
 * seq --write-cache on the drive, a probe on a dead sweep's emulated drive.
 * Undoing it would pull the resource from under the live run: 1 with the
 * live run's PID and command.
 */
static int live_run_on(const struct ap_state_entry *en, pid_t *pid, char **cmd)
{
	struct stat st;

	if (en->kind == AP_STATE_HOLD || !en->dev || stat(en->dev, &st) != 0 ||
	    !S_ISBLK(st.st_mode))
		return 0;
	return ap_state_live_hold(st.st_rdev, pid, cmd);
}

static int cmp_entries(const void *a, const void *b)
{
	const struct ap_state_entry *x = a, *y = b;
	int d = kind_order(x->kind) - kind_order(y->kind);

	if (d)
		return d;
	/* deeper paths first: nested mounts come down from the top */
	d = (int)strlen(y->path ? y->path : "") - (int)strlen(x->path ? x->path : "");
	if (d)
		return d;
	return strcmp(x->file, y->file);
}

/*
 * A run killed inside ap_state_register() leaves "<pid>-...tmp": written in
 * one go by fflush(), so it is either complete (ends with the aux= line; the
 * resource exists: finish the registration, so that it is cleaned up like
 * the others) or empty/partial (nothing to go by: remove it).
 */
static void finish_stale_tmp_entries(const struct ap_cleanup *c)
{
	const char *dir = ap_state_dir();
	struct dirent *de;
	DIR *d;

	if (c->dry_run)
		return;
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char *end, *p, *final, buf[8192];
		ssize_t n = 0;
		long pid;
		int fd;

		if (len < 5 || strcmp(de->d_name + len - 4, ".tmp") != 0)
			continue;
		pid = strtol(de->d_name, &end, 10);
		if (pid <= 0 || *end != '-' || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		ap_xasprintf(&p, "%s/%s", dir, de->d_name);
		fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd >= 0) {
			n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
		}
		buf[n > 0 ? n : 0] = '\0';
		final = strndup(p, strlen(p) - 4);
		if (n > 0 && strncmp(buf, "kind=", 5) == 0 && strstr(buf, "\naux=") &&
		    buf[n - 1] == '\n' && final && access(final, F_OK) != 0)
			rename(p, final);
		else
			unlink(p);
		free(final);
		free(p);
	}
	if (d)
		closedir(d);
}

/* Does an entry name c->device (a device that is gone since)? */
bool ap_cleanup_registry_names(const struct ap_cleanup *c)
{
	struct ap_state_entry *v = NULL;
	size_t n = 0, i;
	bool found = false;
	int err = errno;

	if (ap_state_list(&v, &n) == 0)
		for (i = 0; !found && i < n; i++)
			found = ap_cleanup_about_device(c, v[i].dev);
	ap_state_free(v, n);
	errno = err;
	return found;
}

int ap_cleanup_set_device(struct ap_cleanup *c, const char *dev, char **canon,
			  struct ap_error *e)
{
	struct stat st;
	int err;

	c->device = dev;
	/* a vanished device is fine when the registry names it */
	*canon = realpath(dev, NULL);
	c->device_canon = *canon;
	if (stat(dev, &st) == 0) {
		if (!S_ISBLK(st.st_mode))
			return ap_error_set(e, ENOTBLK, "not a block device");
		c->device_rdev = st.st_rdev;
		return 0;
	}
	err = errno;
	if (ap_cleanup_registry_names(c))
		return 0;
	return ap_error_set(e, err, "%s (and no entry in %s names it)", strerror(err),
			    ap_state_dir());
}

int ap_cleanup_run(struct ap_cleanup *c, struct ap_error *e)
{
	struct ap_state_entry *v = NULL;
	size_t n = 0, i;
	bool *sel = NULL;
	char *livecmd = NULL;
	pid_t live = 0;
	int rc;

	finish_stale_tmp_entries(c);
	rc = ap_state_list(&v, &n);
	if (rc)
		return ap_error_set(e, -rc, "cannot read the state directory: %s", strerror(-rc));
	if (n)
		qsort(v, n, sizeof(*v), cmp_entries);
	sel = ap_xcalloc(n ? n : 1, sizeof(*sel));
	for (i = 0; i < n; i++)
		sel[i] = !c->device || ap_cleanup_about_device(c, v[i].dev);
	/* a directory belongs to the device when a mount of it on that device does,
	 * or when the dead run that made it worked on the device */
	if (c->device) {
		size_t j;

		for (i = 0; i < n; i++) {
			if (sel[i] || v[i].kind != AP_STATE_TMPDIR || (v[i].dev && *v[i].dev))
				continue;
			for (j = 0; j < n && !sel[i]; j++)
				if (j != i && sel[j] && v[j].kind != AP_STATE_TMPDIR &&
				    ((v[j].path && v[i].path && strcmp(v[j].path, v[i].path) == 0) ||
				     v[j].owner == v[i].owner))
					sel[i] = true;
		}
	}

	for (i = 0; i < n; i++) {
		struct ap_state_entry *en = &v[i];

		if (!sel[i])
			continue;
		if (!kind_of(en->kind)->listed) {
			/* a hold: a dead run's is dropped, a live run's is no resource */
			if (ap_state_is_stale(en))
				kind_of(en->kind)->undo(c, en);
			continue;
		}
		c->nsel++;
		if (en->kind == AP_STATE_UNKNOWN) {
			report(c, en, "kept", "cannot read the registry entry %s: remove it once "
			       "nothing of its run is left", en->file);
			c->nremain++;
			continue;
		}
		if (!ap_state_is_stale(en)) {
			if (en->kind == AP_STATE_EMU && en->aux && atoi(en->aux) == en->owner)
				report(c, en, "kept", "attached with 'emulate --attach' (server %d): "
				       "'alignprobe emulate --detach %s' takes it down", (int)en->owner,
				       en->dev ? en->dev : "DEVICE");
			else
				report(c, en, "skipped", "in use by running process %d", (int)en->owner);
			c->nremain++;
			continue;
		}
		if (live_run_on(en, &live, &livecmd)) {
			report(c, en, "skipped", "a running alignprobe %s (PID %d) works on %s now",
			       livecmd, (int)live, en->dev);
			free(livecmd);
			c->nremain++;
			continue;
		}
		kind_of(en->kind)->undo(c, en);
	}
	ap_state_free(v, n);
	free(sel);
	return 0;
}

void ap_cleanup_free(struct ap_cleanup *c)
{
	size_t i;

	for (i = 0; i < c->nunmounted; i++)
		free(c->unmounted[i]);
	free(c->unmounted);
	c->unmounted = NULL;
	c->nunmounted = 0;
}
