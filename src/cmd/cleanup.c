// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * alignprobe cleanup [DEVICE]: take down what a killed run left behind, as
 * recorded in the state registry (src/lib/state.h): mounts, temporary
 * directories, loop devices, emulated drives; and put back a write cache
 * that seq --write-cache switched. Undo journals are reported, never
 * deleted unless asked.
 *
 * Safe at any time: an entry whose owner still runs is left alone, and
 * nothing outside the registry is touched; a registered mount point that
 * now carries somebody else's mount is left alone too. An emulated drive
 * belongs to the run that attached it, not to its server: the server of a
 * dead run's drive is stopped like the rest of it.
 *
 * The exit status says whether anything it found remains: 0 only when
 * nothing does (what the run could not remove, what live runs still use,
 * kept journals and drives handed over by `emulate --attach` all count).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/opts.h"
#include "cmd/wcache.h"
#include "device/safety.h"
#include "emu/emu.h"
#include "lib/blkdev.h"
#include "lib/exitcodes.h"
#include "lib/state.h"
#include "lib/sysfs.h"
#include "lib/util.h"
#include "sweep/mnt.h"
#include "ui/out.h"

#define CMD "cleanup"

enum {
	COL_ACTION,
	COL_KIND,
	COL_PATH,
	COL_DEV,
	COL_OWNER,
	COL_DETAIL,
};

static const struct ap_colinfo infos[] = {
	[COL_ACTION] = { "ACTION", 0.1, 0, AP_COL_STRING,
			 "what was done: unmounted, removed, detached, restored, gone; what remains: kept, skipped, deferred, failed (or would-...)" },
	[COL_KIND] = { "KIND", 0.1, 0, AP_COL_STRING, "resource kind: mount, tmpdir, emu, loop, journal, wcache, unknown" },
	[COL_PATH] = { "PATH", 0.3, 0, AP_COL_STRING, "mount point, directory, backing file, journal or write cache attribute" },
	[COL_DEV] = { "DEV", 0.1, 0, AP_COL_STRING, "device the resource belongs to" },
	[COL_OWNER] = { "OWNER", 0.05, SCOLS_FL_RIGHT, AP_COL_NUMBER, "PID of the run it belongs to" },
	[COL_DETAIL] = { "DETAIL", 0.3, SCOLS_FL_WRAP, AP_COL_STRING, "why, or what to do" },
};

enum {
	OPT_REMOVE_JOURNALS = AP_OPT_OUT_LAST,
};

struct cleanup {
	bool dry_run;
	bool remove_journals;
	bool quiet;
	const char *device;	/* as given */
	char *device_canon;	/* realpath, when it exists */
	dev_t device_rdev;	/* 0 when unknown */
	int nremain;		/* found, and still there afterwards */
	int ndone;
	char **unmounted;	/* --dry-run: mount points that would be unmounted */
	size_t nunmounted;
	struct ap_out out;
	struct libscols_table *tb;
	int cols[AP_ARRAY_SIZE(infos) * 2];
	size_t ncols;
	struct ap_cols cs;	/* of cols */
};

static void __attribute__((noreturn)) usage(void)
{
	printf("Usage:\n %s %s [options] [DEVICE]\n\n", AP_PROG, CMD);
	puts("Remove what a killed run (SIGKILL, power cut) left behind: stale mounts,\n"
	     "temporary directories, loop devices and emulated drives recorded in the\n"
	     "state directory. Resources of runs that are still alive are never touched.\n"
	     "An emulated drive belongs to the run that attached it: a dead run's drive\n"
	     "is taken down, its server included; one attached with 'emulate --attach'\n"
	     "stays until 'emulate --detach'. A write cache that 'seq --write-cache'\n"
	     "switched is put back as it was found.\n"
	     "With DEVICE, only the resources of that device (its partitions, its\n"
	     "emulated drive) are considered.\n");
	puts("Options:\n"
	     "     --dry-run          list what would be done, change nothing\n"
	     "     --remove-journals  also delete stale undo journals (default: keep them\n"
	     "                        and tell how to restore with 'probe --undo')\n"
	     " -q, --quiet            print nothing when there is nothing to do");
	ap_out_usage(stdout, 24);
	puts(" -h, --help             display this help\n"
	     " -V, --version          display version\n");
	puts("Available output columns:");
	ap_out_list_columns(NULL, infos, AP_ARRAY_SIZE(infos));
	putchar('\n');
	puts("Environment:\n"
	     " ALIGNPROBE_STATE_DIR   state directory (default /run/alignprobe)\n");
	puts("Exit status:\n"
	     " 0  nothing of what it found remains (or there was nothing to do)\n"
	     " 1  something remains: it could not be removed, a running process\n"
	     "    still uses it, or it is kept (an undo journal, a drive attached with\n"
	     "    'emulate --attach'); the ACTION and DETAIL columns say which\n"
	     " 2  usage error (also a DEVICE that does not exist and that no entry names)");
	exit(AP_EXIT_OK);
}

static void report(struct cleanup *c, const struct ap_state_entry *en, const char *action,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void report(struct cleanup *c, const struct ap_state_entry *en, const char *action,
		   const char *fmt, ...)
{
	char *detail = NULL;
	struct ap_row r;
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		if (vasprintf(&detail, fmt, ap) < 0)
			detail = NULL;
		va_end(ap);
	}
	ap_row_init(&r, &c->cs);
	ap_row_str(&r, COL_ACTION, action);
	ap_row_str(&r, COL_KIND, ap_state_kind_name(en->kind));
	ap_row_str(&r, COL_PATH, en->path);
	ap_row_str(&r, COL_DEV, en->dev);
	ap_row_u64(&r, COL_OWNER, (uint64_t)en->owner);
	ap_row_str(&r, COL_DETAIL, detail);
	free(detail);
	if (ap_row_add_line(&r, c->tb) != 0) {
		ap_warnx(CMD, NULL, "cannot allocate a table line");
		exit(AP_EXIT_FAILURE);
	}
	ap_row_free(&r);
}

static void failed(struct cleanup *c, const struct ap_state_entry *en, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void failed(struct cleanup *c, const struct ap_state_entry *en, const char *fmt, ...)
{
	char *detail = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&detail, fmt, ap) < 0)
		detail = NULL;
	va_end(ap);
	report(c, en, "failed", "%s", detail ? detail : "?");
	ap_warnx(CMD, NULL, "%s %s: %s", ap_state_kind_name(en->kind),
		 en->path ? en->path : en->dev ? en->dev : en->file, detail ? detail : "?");
	free(detail);
	c->nremain++;
}

/* "done" or, under --dry-run, "would-done" */
static const char *act(const struct cleanup *c, const char *done, const char *would)
{
	return c->dry_run ? would : done;
}

static void release(struct cleanup *c, const struct ap_state_entry *en)
{
	if (!c->dry_run)
		ap_state_release(en->file);
}

static void do_mount(struct cleanup *c, const struct ap_state_entry *en)
{
	struct ap_error e = { 0 };
	int n;

	if (!en->path || en->path[0] != '/') {
		failed(c, en, "registry entry without an absolute mount point: left alone");
		return;
	}
	n = ap_mnt_undo(en->path, en->dev, c->dry_run, &e);
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

static void do_tmpdir(struct cleanup *c, const struct ap_state_entry *en)
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
	if (ap_mnt_find(en->path, true, NULL, NULL)) {
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
	rc = ap_mnt_remove_dir(en->path, &e);
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

static void do_loop(struct cleanup *c, const struct ap_state_entry *en)
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

static void do_emu(struct cleanup *c, const struct ap_state_entry *en)
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
	rc = ap_emu_detach_entry(en->path, en->dev, &e);
	if (rc) {
		failed(c, en, "%s", e.msg[0] ? e.msg : strerror(-rc));
		return;
	}
	report(c, en, "detached", NULL);
	c->ndone++;
	release(c, en);
}

static void do_journal(struct cleanup *c, const struct ap_state_entry *en)
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
		ap_warnx(CMD, en->path, "undo journal of %s kept: run 'alignprobe probe --undo %s' "
			 "to restore the data (or cleanup --remove-journals to delete it)",
			 en->dev ? en->dev : "?", en->path);
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
static void do_wcache(struct cleanup *c, const struct ap_state_entry *en)
{
	struct ap_error e = { 0 };
	char *orig = NULL, *backing = NULL;
	int model = -1, rc;

	if (c->dry_run) {
		report(c, en, "would-restore", NULL);
		return;
	}
	rc = ap_cmd_wcache_restore_record(en->path, en->dev, en->aux, &e);
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
static bool about_device(const struct cleanup *c, const char *dev)
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
static void do_hold(struct cleanup *c, const struct ap_state_entry *en)
{
	release(c, en);
}

/*
 * Each kind of the registry and its undo, in the order they come down: a
 * mount before its directory, the write cache while the emulated drive is
 * still there, loop devices before the drives under them. Holds are not
 * listed: they name a disk, no resource.
 */
static const struct cleanup_kind {
	enum ap_state_kind kind;
	void (*undo)(struct cleanup *c, const struct ap_state_entry *en);
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

static const struct cleanup_kind *kind_of(enum ap_state_kind k)
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
static void finish_stale_tmp_entries(const struct cleanup *c)
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

static bool about_device(const struct cleanup *c, const char *dev);

/* Does an entry name c->device (a device that is gone since)? */
static bool registry_names(const struct cleanup *c)
{
	struct ap_state_entry *v = NULL;
	size_t n = 0, i;
	bool found = false;
	int err = errno;

	if (ap_state_list(&v, &n) == 0)
		for (i = 0; !found && i < n; i++)
			found = about_device(c, v[i].dev);
	ap_state_free(v, n);
	errno = err;
	return found;
}

/* cleanup's one option of its own */
static int cleanup_opt(void *ctx, int ch, const char *arg)
{
	struct cleanup *c = ctx;

	(void)arg;
	if (ch == OPT_REMOVE_JOURNALS)
		c->remove_journals = true;
	return 0;
}

/*
 * Options and the DEVICE: 0 to go on; an exit code after the message; -1
 * when the version or the columns were printed.
 */
static int parse_args(struct cleanup *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "remove-journals", no_argument, NULL, OPT_REMOVE_JOURNALS },
		{ NULL, 0, NULL, 0 }
	};
	static const int defaults[] = { COL_ACTION, COL_KIND, COL_PATH, COL_DEV, COL_OWNER, COL_DETAIL };
	const struct ap_opt common[] = {
		AP_OPT_DRY_RUN(&c->dry_run), AP_OPT_QUIET(&c->quiet), AP_OPT_HELP(usage),
		AP_OPT_VERSION, AP_OPT_OUTPUT(&c->out), AP_OPT_END
	};
	const struct ap_opts p = {
		.cmd = CMD, .common = common, .longopts = longopts, .own = cleanup_opt, .ctx = c,
	};
	int rc = ap_opts_parse(&p, argc, argv);

	if (!rc)
		rc = ap_opts_out_check(CMD, &c->out);
	if (!rc)
		rc = ap_opts_list_columns(&c->out, infos, AP_ARRAY_SIZE(infos));
	if (rc)
		return rc;
	if (optind + 1 < argc) {
		ap_usage_error(CMD, "too many arguments (one DEVICE at most)");
		return AP_EXIT_USAGE;
	}
	if (ap_opts_columns(CMD, &c->out, infos, AP_ARRAY_SIZE(infos), defaults,
			    AP_ARRAY_SIZE(defaults), c->cols, &c->ncols))
		return AP_EXIT_USAGE;
	if (optind < argc) {
		struct stat st;

		c->device = argv[optind];
		if (!*c->device) {
			ap_usage_error(CMD, "an empty DEVICE name");
			return AP_EXIT_USAGE;
		}
		/* a vanished device is fine when the registry names it */
		c->device_canon = realpath(c->device, NULL);
		if (stat(c->device, &st) == 0) {
			if (!S_ISBLK(st.st_mode)) {
				free(c->device_canon);
				return ap_errx(CMD, c->device, ENOTBLK, "not a block device");
			}
			c->device_rdev = st.st_rdev;
		} else if (!registry_names(c)) {
			int err = errno;

			free(c->device_canon);
			return ap_errx(CMD, c->device, err, "%s (and no entry in %s names it)",
				       strerror(err), ap_state_dir());
		}
	}
	return 0;
}

int ap_cmd_cleanup(int argc, char **argv)
{
	struct cleanup c = { 0 };
	struct ap_state_entry *v = NULL;
	size_t n = 0, i, nsel = 0;
	bool *sel = NULL, write_error = false;
	char *livecmd = NULL;
	pid_t live = 0;
	int rc;

	rc = parse_args(&c, argc, argv);
	if (rc)
		return rc < 0 ? AP_EXIT_OK : rc;
	finish_stale_tmp_entries(&c);
	rc = ap_state_list(&v, &n);
	if (rc) {
		ap_warnx(CMD, ap_state_dir(), "cannot read the state directory: %s", strerror(-rc));
		free(c.device_canon);
		return AP_EXIT_FAILURE;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_entries);
	sel = ap_xcalloc(n ? n : 1, sizeof(*sel));
	for (i = 0; i < n; i++)
		sel[i] = !c.device || about_device(&c, v[i].dev);
	/* a directory belongs to the device when a mount of it on that device does,
	 * or when the dead run that made it worked on the device */
	if (c.device) {
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

	ap_cols_init(&c.cs, &c.out, infos, AP_ARRAY_SIZE(infos), c.cols, c.ncols, NULL, 0);
	c.tb = ap_cols_table_new(&c.cs, "cleanup");
	for (i = 0; i < n; i++) {
		struct ap_state_entry *en = &v[i];

		if (!sel[i])
			continue;
		if (!kind_of(en->kind)->listed) {
			/* a hold: a dead run's is dropped, a live run's is no resource */
			if (ap_state_is_stale(en))
				kind_of(en->kind)->undo(&c, en);
			continue;
		}
		nsel++;
		if (en->kind == AP_STATE_UNKNOWN) {
			report(&c, en, "kept", "cannot read the registry entry %s: remove it once "
			       "nothing of its run is left", en->file);
			c.nremain++;
			continue;
		}
		if (!ap_state_is_stale(en)) {
			if (en->kind == AP_STATE_EMU && en->aux && atoi(en->aux) == en->owner)
				report(&c, en, "kept", "attached with 'emulate --attach' (server %d): "
				       "'alignprobe emulate --detach %s' takes it down", (int)en->owner,
				       en->dev ? en->dev : "DEVICE");
			else
				report(&c, en, "skipped", "in use by running process %d", (int)en->owner);
			c.nremain++;
			continue;
		}
		if (live_run_on(en, &live, &livecmd)) {
			report(&c, en, "skipped", "a running alignprobe %s (PID %d) works on %s now",
			       livecmd, (int)live, en->dev);
			free(livecmd);
			c.nremain++;
			continue;
		}
		kind_of(en->kind)->undo(&c, en);
	}
	if (nsel || c.out.json) {
		if (ap_out_print(&c.out, c.tb) != 0) {
			ap_warnx(CMD, NULL, "write error on standard output");
			write_error = true;
		}
	} else if (!c.quiet && !c.out.raw && !c.out.csv && !c.out.noheadings) {
		/* the sentence only for humans: -r/--csv/-n print an empty table */
		printf("nothing to clean up in %s%s%s\n", ap_state_dir(),
		       c.device ? " for " : "", c.device ? c.device : "");
	}
	scols_unref_table(c.tb);
	ap_state_free(v, n);
	free(sel);
	for (i = 0; i < c.nunmounted; i++)
		free(c.unmounted[i]);
	free(c.unmounted);
	free(c.device_canon);
	if (c.nremain)
		ap_warnx(CMD, NULL, "%d of %zu %s: see the ACTION and DETAIL columns", c.nremain,
			 nsel, c.dry_run ? "would remain" : "remain");
	return c.nremain || write_error ? AP_EXIT_FAILURE : AP_EXIT_OK;
}
