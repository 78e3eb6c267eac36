// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The safety gate. Order matters: the checks that need no open (a block
 * device? a partition? the running system's disk?) come first, so that the
 * system disk is never even opened read-write; then the device is opened
 * O_EXCL, and only then are mounts, swap, holders and loop devices looked
 * at, so that nothing can mount or claim it between the check and the run.
 */
#include "device/safety.h"
#include "lib/blkdev.h"
#include "lib/state.h"
#include "lib/sysfs.h"
#include "lib/util.h"

#include <blkid.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* A device and its partitions: what a destructive run would overwrite. */
struct devset {
	dev_t *devs;
	char **names;		/* kernel names */
	size_t n;
};

static void devset_add(struct devset *s, dev_t d, const char *name)
{
	s->devs = ap_xreallocarray(s->devs, s->n + 1, sizeof(*s->devs));
	s->names = ap_xreallocarray(s->names, s->n + 1, sizeof(*s->names));
	s->devs[s->n] = d;
	s->names[s->n] = ap_xstrdup(name);
	s->n++;
}

static void devset_free(struct devset *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->names[i]);
	free(s->devs);
	free(s->names);
	memset(s, 0, sizeof(*s));
}

/* Index of @d in @s, or -1. */
static ssize_t devset_find(const struct devset *s, dev_t d)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->devs[i] == d)
			return (ssize_t)i;
	return -1;
}

/*
 * What a refusal is about, as "DEV: reason": "/dev/sdb:" for the disk
 * itself, "/dev/sdb: its partition /dev/sdb1" for member @i of @s.
 */
static const char *subject(const struct devset *s, ssize_t i, char *buf, size_t len)
{
	if (i > 0)
		snprintf(buf, len, "/dev/%s: its partition /dev/%s", s->names[0], s->names[i]);
	else
		snprintf(buf, len, "/dev/%s:", s->names[0]);
	return buf;
}

static int devset_add_cb(const char *name, dev_t d, void *arg)
{
	devset_add(arg, d, name);
	return 0;
}

/* @d and every partition of it the kernel knows. */
static void devset_fill(struct devset *s, dev_t d, const char *name)
{
	devset_add(s, d, name);
	ap_sysfs_foreach_partition(name, devset_add_cb, s);
}

/* Does @path name a block device in @s? (stat follows /dev/disk/by-* links) */
static ssize_t devset_find_path(const struct devset *s, const char *path)
{
	struct stat st;

	if (path[0] != '/' || stat(path, &st) != 0 || !S_ISBLK(st.st_mode))
		return -1;
	return devset_find(s, st.st_rdev);
}

struct mounts_arg {
	const struct devset *s;
	struct ap_error *e;
};

/* 1 (with the reason) when mount @m is of a member of the set. */
static int mount_uses(const struct ap_mountinfo *m, void *arg)
{
	const struct mounts_arg *a = arg;
	char subj[160];
	ssize_t i = -1;

	if (m->has_devno)
		i = devset_find(a->s, m->devno);
	if (i < 0 && m->source[0])
		i = devset_find_path(a->s, m->source);
	if (i < 0)
		return 0;
	subject(a->s, i, subj, sizeof(subj));
	ap_error_set(a->e, EBUSY, "%s%s mounted on %s", subj, i ? " is" : "", m->target);
	return 1;
}

static int check_mounts(const struct devset *s, struct ap_error *e)
{
	struct mounts_arg a = { s, e };
	int rc = ap_mountinfo_foreach(mount_uses, &a);

	if (rc < 0)
		return ap_error_set(e, -rc, "cannot read /proc/self/mountinfo: %s", strerror(-rc));
	return rc ? -EBUSY : 0;
}

static int check_swaps(const struct devset *s, struct ap_error *e)
{
	char subj[160];
	char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen("/proc/swaps", "re");
	int rc = 0;

	if (!f)
		return errno == ENOENT ? 0 :
			ap_error_set(e, errno, "cannot read /proc/swaps: %s", strerror(errno));
	while (rc == 0 && getline(&line, &cap, f) > 0) {
		char name[4096];
		struct stat st;
		ssize_t i = -1;

		if (sscanf(line, "%4095s", name) != 1 || name[0] != '/')
			continue;	/* the header line */
		ap_unescape_octal(name);
		if (stat(name, &st) != 0)
			continue;
		if (S_ISBLK(st.st_mode))
			i = devset_find(s, st.st_rdev);
		else
			i = devset_find(s, st.st_dev);	/* a swap file on it */
		if (i >= 0)
			rc = ap_error_set(e, EBUSY, "%s%s in use as swap (%s)",
					  subject(s, i, subj, sizeof(subj)), i ? " is" : "", name);
	}
	free(line);
	fclose(f);
	return rc;
}

static int check_holders(const struct devset *s, struct ap_error *e)
{
	char subj[160];
	size_t i;
	int rc = 0;

	for (i = 0; rc == 0 && i < s->n; i++) {
		char *dir;
		struct dirent *de;
		DIR *D;

		ap_xasprintf(&dir, "/sys/class/block/%s/holders", s->names[i]);
		D = opendir(dir);
		while (D && rc == 0 && (de = readdir(D))) {
			if (de->d_name[0] == '.')
				continue;
			rc = ap_error_set(e, EBUSY, "%s%s held by /dev/%s (device mapper, md, "
					  "LVM or another stacking driver)",
					  subject(s, (ssize_t)i, subj, sizeof(subj)), i ? " is" : "",
					  de->d_name);
		}
		if (D)
			closedir(D);
		free(dir);
	}
	return rc;
}

/*
 * Loop devices backed by the device, by one of its partitions, or by a file
 * on a file system that lives on it.
 */
static int check_loops(const struct devset *s, struct ap_error *e)
{
	char subj[160];
	struct dirent *de;
	DIR *D = opendir("/sys/block");
	int rc = 0;

	if (!D)
		return 0;
	while (rc == 0 && (de = readdir(D))) {
		char *bf;
		struct stat st;
		ssize_t i = -1;

		if (strncmp(de->d_name, "loop", 4) != 0)
			continue;
		bf = ap_sysfs_loop_backing_file(de->d_name, false);
		if (!bf)
			continue;
		/* a deleted backing file shows as "/path (deleted)" */
		if (stat(bf, &st) == 0) {
			if (S_ISBLK(st.st_mode))
				i = devset_find(s, st.st_rdev);
			else
				i = devset_find(s, st.st_dev);
		}
		if (i >= 0) {
			subject(s, i, subj, sizeof(subj));
			if (S_ISBLK(st.st_mode))
				rc = ap_error_set(e, EBUSY, "%s backs loop device /dev/%s",
						  subj, de->d_name);
			else
				rc = ap_error_set(e, EBUSY, "%s holds %s, the backing file of "
						  "loop device /dev/%s", subj, bf, de->d_name);
		}
		free(bf);
	}
	closedir(D);
	return rc;
}

struct slaves_arg {
	struct devset *s;
	int depth;
};

static void add_with_slaves(struct devset *s, dev_t d, int depth);

static int add_slave_cb(const char *name, dev_t d, void *arg)
{
	const struct slaves_arg *a = arg;

	(void)name;
	add_with_slaves(a->s, d, a->depth + 1);
	return 0;
}

/* @d, and recursively the devices it is built from (dm/md "slaves"). */
static void add_with_slaves(struct devset *s, dev_t d, int depth)
{
	struct slaves_arg a = { s, depth };
	char *name;

	if (major(d) == 0 || devset_find(s, d) >= 0 || depth > 16)
		return;
	name = ap_sysfs_devno_to_name(d);
	devset_add(s, d, name ? name : "?");
	free(name);
	ap_sysfs_foreach_slave(d, add_slave_cb, &a);
}

/* Refuse the disk under / or /boot (directly, or as a dm/md component). */
static int check_system(const struct devset *s, struct ap_error *e)
{
	char subj[160];
	static const char *const paths[] = { "/", "/boot", "/boot/efi", "/usr" };
	size_t k, i;
	int rc = 0;

	for (k = 0; rc == 0 && k < AP_ARRAY_SIZE(paths); k++) {
		struct devset sys = { 0 };
		struct stat st;

		if (stat(paths[k], &st) != 0)
			continue;
		add_with_slaves(&sys, st.st_dev, 0);
		for (i = 0; rc == 0 && i < sys.n; i++) {
			ssize_t j = devset_find(s, sys.devs[i]);

			if (j >= 0)
				rc = ap_error_set(e, EBUSY, "%s backs the running system's %s",
						  subject(s, j, subj, sizeof(subj)), paths[k]);
		}
		devset_free(&sys);
	}
	return rc;
}

/* Who else uses a member of the set: a mount, swap, a holder (dm/md), a loop device. */
static int check_users(const struct devset *s, struct ap_error *e)
{
	int rc = check_mounts(s, e);

	if (!rc)
		rc = check_swaps(s, e);
	if (!rc)
		rc = check_holders(s, e);
	if (!rc)
		rc = check_loops(s, e);
	return rc;
}

/* ---- the registry's holds: which disk a live run works on ---- */

/* A live run's hold on the device, a partition of it or its whole disk. */
static int check_holders_registry(const struct devset *s, struct ap_error *e)
{
	char *cmd = NULL;
	pid_t pid = 0;
	int rc = 0;

	if (ap_state_live_hold(s->devs[0], &pid, &cmd))
		rc = ap_error_set(e, EBUSY, "/dev/%s: in use by a running alignprobe %s (PID %d); "
				  "wait until it ends", s->names[0], cmd, (int)pid);
	free(cmd);
	return rc;
}

/* This process's holds, released when it exits (a SIGKILL leaves them stale). */
static struct {
	pthread_mutex_t lock;
	char **ids;
	size_t n;
	pid_t pid;
} holds = { PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0 };

static void release_holds(void)
{
	size_t i;

	pthread_mutex_lock(&holds.lock);
	/* a forked child that exits is not the holder */
	for (i = 0; i < holds.n; i++) {
		if (holds.pid == getpid())
			ap_state_release(holds.ids[i]);
		free(holds.ids[i]);
	}
	free(holds.ids);
	holds.ids = NULL;
	holds.n = 0;
	pthread_mutex_unlock(&holds.lock);
}

int ap_safety_hold(const char *dev, const char *cmd, struct ap_error *e)
{
	struct stat st;
	char *aux, *id = NULL;
	int rc;

	if (stat(dev, &st) != 0)
		return ap_error_set(e, errno, "%s: %s", dev, strerror(errno));
	ap_xasprintf(&aux, "%u:%u %s", major(st.st_rdev), minor(st.st_rdev), cmd ? cmd : "run");
	rc = ap_state_register(AP_STATE_HOLD, NULL, dev, aux, &id);
	free(aux);
	if (rc)
		return ap_error_set(e, -rc, "state directory %s: cannot record that this run "
				    "holds %s: %s", ap_state_dir(), dev, strerror(-rc));
	pthread_mutex_lock(&holds.lock);
	if (!holds.pid) {
		holds.pid = getpid();
		atexit(release_holds);
	}
	holds.ids = ap_xreallocarray(holds.ids, holds.n + 1, sizeof(*holds.ids));
	holds.ids[holds.n++] = id;
	pthread_mutex_unlock(&holds.lock);
	return 0;
}

/* ---- regular files: the loop devices and swap areas they back ---- */

static int swap_file_uses(const struct stat *f)
{
	char *line = NULL;
	size_t cap = 0;
	FILE *sw = fopen("/proc/swaps", "re");
	int found = 0;

	while (sw && !found && getline(&line, &cap, sw) > 0) {
		char p[4096];
		struct stat st;

		if (sscanf(line, "%4095s", p) != 1 || p[0] != '/')
			continue;
		ap_unescape_octal(p);
		if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == f->st_dev &&
		    st.st_ino == f->st_ino)
			found = 1;
	}
	free(line);
	if (sw)
		fclose(sw);
	return found;
}

int ap_safety_check_file(const char *path, struct ap_error *e)
{
	char loop[64];
	struct stat st;
	int rc;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;	/* nothing there yet, or not a file: the caller's case */
	rc = ap_blkdev_loop_backed_by(st.st_dev, st.st_ino, loop, sizeof(loop));
	if (rc < 0)
		return ap_error_set(e, -rc, "%s: cannot tell whether a loop device uses it "
				    "(/sys/block: %s)", path, strerror(-rc));
	if (rc > 0)
		return ap_error_set(e, EBUSY, "%s: the backing file of loop device /dev/%s; "
				    "writing it would overwrite what /dev/%s holds (detach it "
				    "first: losetup -d /dev/%s)", path, loop, loop, loop);
	if (swap_file_uses(&st))
		return ap_error_set(e, EBUSY, "%s: in use as swap (swapoff it first)", path);
	return 0;
}

int ap_safety_in_use(const char *dev, struct ap_error *e)
{
	struct devset s = { 0 };
	struct stat st;
	char *name;
	int rc;

	if (stat(dev, &st) != 0)
		return ap_error_set(e, errno, "%s: %s", dev, strerror(errno));
	if (!S_ISBLK(st.st_mode))
		return ap_error_set(e, ENOTBLK, "%s: not a block device", dev);
	name = ap_sysfs_devno_to_name(st.st_rdev);
	if (!name)
		return ap_error_set(e, ENODEV, "%s: no such device in /sys/dev/block", dev);
	devset_fill(&s, st.st_rdev, name);
	free(name);
	rc = check_holders_registry(&s, e);
	if (!rc)
		rc = check_system(&s, e);
	if (!rc)
		rc = check_users(&s, e);
	devset_free(&s);
	return rc;
}

int ap_safety_open_excl(const char *dev, int flags)
{
	int fd = open(dev, flags | O_EXCL | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static void strv_add(char ***v, size_t *n, char *s)
{
	*v = ap_xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[(*n)++] = s;
}

/* "ext4 UUID=... LABEL=..." from a probe that found a superblock. */
static char *describe_fs(blkid_probe pr)
{
	const char *type = NULL, *uuid = NULL, *label = NULL, *ver = NULL;
	char *s;

	blkid_probe_lookup_value(pr, "TYPE", &type, NULL);
	blkid_probe_lookup_value(pr, "UUID", &uuid, NULL);
	blkid_probe_lookup_value(pr, "LABEL", &label, NULL);
	blkid_probe_lookup_value(pr, "VERSION", &ver, NULL);
	ap_xasprintf(&s, "%s%s%s%s%s%s%s", type ? type : "?",
		     ver ? " " : "", ver ? ver : "",
		     uuid ? " UUID=" : "", uuid ? uuid : "",
		     label ? " LABEL=" : "", label ? label : "");
	return s;
}

/*
 * libblkid's superblock and partition probes read a hundred small pieces
 * near both ends of the device (file systems in the first 1 MiB, RAID
 * metadata in the last 512 KiB; Debian 12's libblkid reads 3 pieces
 * beyond them), each a seek and a rotational wait on a disk: 0.4 s of an
 * emulated 7200 rpm disk, where its probe takes 5 s. Two reads of the
 * ends first put nearly all of them in the page cache. Best effort: an
 * error here is libblkid's to meet and report.
 */
#define AP_SAFETY_HEAD	(1024 * 1024 + 4096)
#define AP_SAFETY_TAIL	(512 * 1024)

static void prefetch_ends(int fd)
{
	uint64_t size = 0;
	size_t len;
	char *buf;

	if (ap_blkdev_get_sizes(fd, &size, NULL, NULL) != 0 || !size)
		return;
	buf = ap_xmalloc(AP_SAFETY_HEAD);
	len = size < AP_SAFETY_HEAD ? (size_t)size : AP_SAFETY_HEAD;
	if (pread(fd, buf, len, 0) < 0)
		goto out;
	if (size > AP_SAFETY_HEAD) {
		len = size - AP_SAFETY_HEAD < AP_SAFETY_TAIL ? (size_t)(size - AP_SAFETY_HEAD) :
							       AP_SAFETY_TAIL;
		(void)!pread(fd, buf, len, (off_t)(size - len));
	}
out:
	free(buf);
}

/* Every signature on the device, like wipefs lists them. */
static void probe_signatures(struct ap_safety_target *t, int fd)
{
	blkid_probe pr = blkid_new_probe();

	if (!pr)
		return;
	if (blkid_probe_set_device(pr, fd, 0, 0) != 0)
		goto out;
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_UUID |
					  BLKID_SUBLKS_LABEL | BLKID_SUBLKS_VERSION |
					  BLKID_SUBLKS_MAGIC | BLKID_SUBLKS_BADCSUM);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);
	while (blkid_do_probe(pr) == 0) {
		const char *v = NULL, *off = NULL;
		char *s;

		if (blkid_probe_lookup_value(pr, "PTTYPE", &v, NULL) == 0) {
			blkid_probe_lookup_value(pr, "PTMAGIC_OFFSET", &off, NULL);
			ap_xasprintf(&s, "%s partition table%s%s", v, off ? " at offset " : "",
				     off ? off : "");
		} else if (blkid_probe_lookup_value(pr, "TYPE", &v, NULL) == 0) {
			char *d = describe_fs(pr);

			blkid_probe_lookup_value(pr, "SBMAGIC_OFFSET", &off, NULL);
			ap_xasprintf(&s, "%s%s%s", d, off ? " at offset " : "", off ? off : "");
			free(d);
		} else {
			continue;
		}
		strv_add(&t->signatures, &t->nsignatures, s);
		if (t->nsignatures > 64)
			break;
	}
out:
	blkid_free_probe(pr);
}

/* The partition table's entries and the file system found in each. */
static void probe_partitions(struct ap_safety_target *t, int fd)
{
	blkid_probe pr = blkid_new_probe();
	blkid_partlist ls;
	int i, n;

	if (!pr)
		return;
	if (blkid_probe_set_device(pr, fd, 0, 0) != 0)
		goto out;
	blkid_probe_enable_superblocks(pr, 0);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_ENTRY_DETAILS);
	if (blkid_do_safeprobe(pr) != 0)
		goto out;
	ls = blkid_probe_get_partitions(pr);
	n = ls ? blkid_partlist_numof_partitions(ls) : 0;
	for (i = 0; i < n && i < 256; i++) {
		blkid_partition par = blkid_partlist_get_partition(ls, i);
		blkid_loff_t start = blkid_partition_get_start(par);
		blkid_loff_t size = blkid_partition_get_size(par);
		int no = blkid_partition_get_partno(par);
		size_t len = strlen(t->name);
		bool digit = len && t->name[len - 1] >= '0' && t->name[len - 1] <= '9';
		blkid_probe fp = blkid_new_probe();
		char *fs = NULL, *hs = ap_size_to_human((uint64_t)size * 512), *s;

		if (fp && blkid_probe_set_device(fp, fd, start * 512, size * 512) == 0) {
			blkid_probe_enable_superblocks(fp, 1);
			blkid_probe_set_superblocks_flags(fp, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_UUID |
							  BLKID_SUBLKS_LABEL);
			if (blkid_do_safeprobe(fp) == 0)
				fs = describe_fs(fp);
		}
		if (fp)
			blkid_free_probe(fp);
		ap_xasprintf(&s, "%s%s%d start=%lld size=%s %s", t->name, digit ? "p" : "", no,
			     (long long)start, hs, fs ? fs : "(no file system found)");
		strv_add(&t->partitions, &t->npartitions, s);
		free(hs);
		free(fs);
	}
out:
	blkid_free_probe(pr);
}

/* Model and serial from sysfs, else from the udev database. */
static void read_identity(struct ap_safety_target *t, dev_t whole)
{
	static const char *const models[] = { "device/model", "device/name" };
	static const char *const serials[] = { "device/serial", "serial", "device/wwid" };
	char *p;
	size_t i;

	for (i = 0; !t->model && i < AP_ARRAY_SIZE(models); i++)
		t->model = ap_sysfs_devno_attr(whole, models[i]);
	for (i = 0; !t->serial && i < AP_ARRAY_SIZE(serials); i++)
		t->serial = ap_sysfs_devno_attr(whole, serials[i]);
	if (!t->model || !t->serial) {
		char *line = NULL;
		size_t cap = 0;
		FILE *f;

		ap_xasprintf(&p, "/run/udev/data/b%u:%u", major(whole), minor(whole));
		f = fopen(p, "re");
		free(p);
		while (f && getline(&line, &cap, f) > 0) {
			line[strcspn(line, "\n")] = '\0';
			if (!t->model && strncmp(line, "E:ID_MODEL=", 11) == 0 && line[11])
				t->model = ap_xstrdup(line + 11);
			else if (!t->serial && strncmp(line, "E:ID_SERIAL_SHORT=", 18) == 0 && line[18])
				t->serial = ap_xstrdup(line + 18);
		}
		free(line);
		if (f)
			fclose(f);
	}
	t->backing = ap_sysfs_loop_backing_file(t->name, false);
}

static void read_geometry(struct ap_safety_target *t, dev_t whole)
{
	uint64_t v;

	if (ap_sysfs_devno_attr_u64(t->devno, "size", &v) == 0)
		t->size = v * 512;
	if (ap_sysfs_devno_attr_u64(whole, "queue/logical_block_size", &v) == 0)
		t->logical_sector = (unsigned)v;
	if (ap_sysfs_devno_attr_u64(whole, "queue/physical_block_size", &v) == 0)
		t->physical_sector = (unsigned)v;
}

int ap_safety_whole_disk(dev_t d, dev_t *whole, char **name)
{
	*whole = d;
	*name = NULL;
	if (!ap_sysfs_devno_is_partition(d))
		return 0;
	*whole = ap_sysfs_devno_to_wholedisk(d);
	*name = ap_sysfs_devno_to_name(*whole);
	return 1;
}

int ap_safety_check(const char *dev, const struct ap_safety_opts *o,
		    struct ap_safety_target *t, struct ap_error *e)
{
	struct ap_safety_target tmp;
	struct devset s = { 0 };
	struct stat st;
	char *canon;
	dev_t whole;
	int rc = 0, fd;

	if (!t)
		t = &tmp;
	memset(t, 0, sizeof(*t));
	t->fd = -1;
	if (stat(dev, &st) != 0)
		return ap_error_set(e, errno, "%s: %s", dev, strerror(errno));
	if (!S_ISBLK(st.st_mode))
		rc = ap_error_set(e, ENOTBLK, "%s: not a block device (%s)", dev,
				  S_ISREG(st.st_mode) ? "a regular file; attach it with losetup "
				  "or use the emulated drive" : S_ISDIR(st.st_mode) ? "a directory" :
				  "not a disk");
	canon = realpath(dev, NULL);
	t->dev = canon ? canon : ap_xstrdup(dev);
	t->devno = st.st_rdev;
	if (!S_ISBLK(st.st_mode))
		goto out;
	t->name = ap_sysfs_devno_to_name(st.st_rdev);
	if (!t->name) {
		rc = ap_error_set(e, ENODEV, "%s: device %u:%u is not in /sys/dev/block", dev,
				  major(st.st_rdev), minor(st.st_rdev));
		goto out;
	}
	t->is_partition = ap_sysfs_devno_is_partition(st.st_rdev);
	whole = ap_sysfs_devno_to_wholedisk(st.st_rdev);
	read_identity(t, whole);
	read_geometry(t, whole);
	if (t->is_partition && !(o && o->allow_partition)) {
		char *wn = ap_sysfs_devno_to_name(whole);

		rc = ap_error_set(e, EPERM, "%s: a partition of /dev/%s; alignprobe works on "
				  "whole disks (use --allow-partition to test inside a partition)",
				  t->dev, wn ? wn : "?");
		free(wn);
		goto out;
	}
	devset_fill(&s, st.st_rdev, t->name);

	/*
	 * A live run's disk (the registry's holds) is refused before anything
	 * is opened: a sweep lets go of its O_EXCL while mkfs and mount run,
	 * and even a dry run's exclusive open would make its mount fail.
	 */
	rc = check_holders_registry(&s, e);
	if (rc)
		goto out;
	/* never open the running system's disk at all */
	rc = check_system(&s, e);
	if (rc)
		goto out;

	/*
	 * Take the device first, then look at who uses it: from now on nothing
	 * can mount it or claim it. A failure to take it is explained by the
	 * checks below when they find the user; otherwise it is reported as is.
	 */
	fd = open(t->dev, O_RDWR | O_EXCL | O_CLOEXEC);
	if (fd < 0)
		fd = -errno;
	rc = check_users(&s, e);
	if (!rc && fd >= 0 && ap_sysfs_devno_is_readonly(t->devno)) {
		close(fd);
		fd = -EROFS;
	}
	if (!rc && fd < 0) {
		if (fd == -EBUSY)
			rc = ap_error_set(e, EBUSY, "%s: opened exclusively by another process "
					  "(O_EXCL open failed: device busy)", t->dev);
		else if (fd == -EROFS)
			rc = ap_error_set(e, EROFS, "%s: read-only; nothing can be written to it",
					  t->dev);
		else
			rc = ap_error_set(e, -fd, "%s: cannot open for writing: %s", t->dev,
					  strerror(-fd));
	}
	if (rc) {
		if (fd >= 0)
			close(fd);
		goto out;
	}
	t->fd = fd;
	prefetch_ends(fd);
	probe_signatures(t, fd);
	probe_partitions(t, fd);
out:
	devset_free(&s);
	if (t == &tmp)
		ap_safety_target_free(t);
	return rc;
}

void ap_safety_target_free(struct ap_safety_target *t)
{
	size_t i;

	if (!t)
		return;
	if (t->fd >= 0)
		close(t->fd);
	free(t->dev);
	free(t->name);
	free(t->backing);
	free(t->model);
	free(t->serial);
	for (i = 0; i < t->npartitions; i++)
		free(t->partitions[i]);
	free(t->partitions);
	for (i = 0; i < t->nsignatures; i++)
		free(t->signatures[i]);
	free(t->signatures);
	memset(t, 0, sizeof(*t));
	t->fd = -1;
}

char *ap_safety_describe(const struct ap_safety_target *t)
{
	char *hs = ap_size_to_human(t->size), *out;
	size_t i;

	ap_xasprintf(&out, "%s%s: %s (%llu bytes), logical sector %u, physical sector %u\n"
		     "  model: %s\n  serial: %s\n",
		     t->dev, t->is_partition ? " (partition)" : "", hs,
		     (unsigned long long)t->size, t->logical_sector, t->physical_sector,
		     t->model ? t->model : "unknown", t->serial ? t->serial : "unknown");
	free(hs);
	if (t->backing)
		ap_strappendf(&out, NULL, "  loop device backed by: %s\n", t->backing);
	ap_strappendf(&out, NULL, "  partitions: %s\n", t->npartitions ? "" : "none");
	for (i = 0; i < t->npartitions; i++)
		ap_strappendf(&out, NULL, "    %s\n", t->partitions[i]);
	ap_strappendf(&out, NULL, "  signatures: %s\n", t->nsignatures ? "" : "none found");
	for (i = 0; i < t->nsignatures; i++)
		ap_strappendf(&out, NULL, "    %s\n", t->signatures[i]);
	return out;
}

int ap_safety_confirm(const struct ap_safety_target *t, const struct ap_safety_opts *o,
		      struct ap_error *e)
{
	if (o && (o->yes || o->dry_run))
		return 0;
	if (!o || !o->ask)
		return ap_error_set(e, ECANCELED, "%s: nobody can confirm; use --yes to "
				    "destroy its contents", t->dev);
	return o->ask(t->dev, o->ask_data, e);
}
