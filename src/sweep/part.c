// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libparted, used for exactly one thing: a fresh GPT label with one
 * partition at an exact start sector. libparted would snap a partition to
 * its alignment grid if asked with a loose constraint; an exact constraint
 * on the exact geometry makes it take the sector it is given or fail, and
 * the result is verified three times: on the in-memory label, on the label
 * read back from the device (by libfdisk, as the project reads tables), and
 * in the kernel's view (sysfs).
 */
#include "sweep/part.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/blkpg.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <libfdisk.h>
#include <parted/parted.h>

/*
 * libparted reports through a global exception handler (no user pointer):
 * keep the last messages here while one of our calls runs, and answer
 * every question with "cancel" (errors) or "ignore" (warnings) so that
 * nothing is printed and nobody is asked.
 */
static char ped_msg[sizeof(((struct ap_error *)0)->msg)];

static PedExceptionOption ped_handler(PedException *ex)
{
	size_t len = strlen(ped_msg);

	if (len && len + 3 < sizeof(ped_msg))
		snprintf(ped_msg + len, sizeof(ped_msg) - len, "; ");
	len = strlen(ped_msg);
	snprintf(ped_msg + len, sizeof(ped_msg) - len, "%s", ex->message ? ex->message : "?");
	/* one line: libparted messages may hold newlines */
	for (char *s = ped_msg; *s; s++)
		if (*s == '\n')
			*s = ' ';

	if (ex->type >= PED_EXCEPTION_ERROR) {
		if (ex->options & PED_EXCEPTION_CANCEL)
			return PED_EXCEPTION_CANCEL;
		return PED_EXCEPTION_UNHANDLED;
	}
	if (ex->options & PED_EXCEPTION_IGNORE)
		return PED_EXCEPTION_IGNORE;
	if (ex->options & PED_EXCEPTION_OK)
		return PED_EXCEPTION_OK;
	if (ex->options & PED_EXCEPTION_NO)
		return PED_EXCEPTION_NO;
	return PED_EXCEPTION_UNHANDLED;
}

/*
 * libparted leaks its descriptor when fsync() fails on close (it writes
 * "if (fsync(fd) < 0 || close(fd) < 0)", so an I/O error skips the close):
 * the disk would stay open until we exit, and an emulated drive could not
 * be detached. So: note the block devices open before a libparted call and
 * close the ones it left open after it.
 */
#define MAX_BLK_FDS	64

static size_t blk_fds(int *fds, size_t max)
{
	struct dirent *de;
	size_t n = 0;
	DIR *d = opendir("/proc/self/fd");

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		struct stat st;
		int fd;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		fd = atoi(de->d_name);
		if (fd == dirfd(d))
			continue;
		if (fstat(fd, &st) == 0 && S_ISBLK(st.st_mode))
			fds[n++] = fd;
	}
	closedir(d);
	return n;
}

/* Is @fd among the @n of @fds? */
static bool fd_in(const int *fds, size_t n, int fd)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (fds[i] == fd)
			return true;
	return false;
}

struct ped_ctx {
	PedExceptionHandler *old;
	int saved_stderr;
	int fds[MAX_BLK_FDS];
	size_t nfds;
	PedDevice *dev;
	PedDisk *disk;
};

/*
 * libparted runs system("udevadm settle") after telling the kernel about
 * partitions; where udevadm is missing (no udev, as on minimal systems) the
 * shell complains on stderr. A module must not print: while libparted runs,
 * fd 2 points to /dev/null (its own messages come through ped_handler).
 */
static void ped_begin(struct ped_ctx *c)
{
	int null;

	memset(c, 0, sizeof(*c));
	c->nfds = blk_fds(c->fds, MAX_BLK_FDS);
	ped_msg[0] = '\0';
	c->old = ped_exception_get_handler();
	ped_exception_set_handler(ped_handler);
	fflush(stderr);
	c->saved_stderr = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (c->saved_stderr >= 0 && null >= 0)
		dup2(null, STDERR_FILENO);
	if (null >= 0)
		close(null);
}

/* ap_part_hold()'s device and the descriptors it opened */
static struct {
	PedDevice *dev;
	int fds[MAX_BLK_FDS];
	size_t nfds;
} held;

static void ped_end(struct ped_ctx *c)
{
	if (c->disk)
		ped_disk_destroy(c->disk);
	if (c->dev) {
		int keep = c->dev == held.dev;	/* its own open stays */

		/* libparted's failure paths may leave its own opens behind */
		while (c->dev->open_count > keep)
			if (!ped_device_close(c->dev))
				break;
		if (!keep)
			ped_device_destroy(c->dev);
	}
	{
		int now[MAX_BLK_FDS];
		size_t n = blk_fds(now, MAX_BLK_FDS), i;

		for (i = 0; i < n; i++)
			if (!fd_in(c->fds, c->nfds, now[i]))
				close(now[i]);	/* left open by libparted */
	}
	ped_exception_set_handler(c->old);
	if (c->saved_stderr >= 0) {
		dup2(c->saved_stderr, STDERR_FILENO);
		close(c->saved_stderr);
	}
	c->saved_stderr = -1;
	c->disk = NULL;
	c->dev = NULL;
}

/* Fill @e from libparted's last message, or from @what and @code. */
static int ped_fail(struct ap_error *e, int code, const char *disk, const char *what)
{
	if (ped_msg[0])
		return ap_error_set(e, code, "%s: %s: %s", disk, what, ped_msg);
	return ap_error_set(e, code, "%s: %s", disk, what);
}

uint64_t ap_part_gpt_first_usable(unsigned logical_sector)
{
	/* protective MBR, header, then 128 entries of 128 bytes */
	if (!logical_sector)
		return 0;
	return 2 + (128 * 128 + logical_sector - 1) / logical_sector;
}

static void sleep_ms(unsigned ms);

static int get_device(struct ped_ctx *c, const char *disk, struct ap_error *e)
{
	struct stat st;
	int i;

	if (stat(disk, &st) != 0)
		return ap_error_set(e, errno, "%s: %s", disk, strerror(errno));
	if (!S_ISBLK(st.st_mode))
		return ap_error_set(e, ENOTBLK, "%s: not a block device", disk);
	/*
	 * A device attached a moment ago (a loop device, the emulated drive)
	 * can make libparted's probe fail without a word: try a few times.
	 */
	for (i = 0; i < 5; i++) {
		c->dev = ped_device_get(disk);
		if (c->dev || ped_msg[0])
			break;
		sleep_ms(100);
	}
	if (!c->dev)
		return ped_fail(e, ENODEV, disk, "libparted cannot open the device");
	return 0;
}

void ap_part_disk_geometry(unsigned logical, unsigned physical, uint64_t nsectors,
			   struct ap_part_disk *d)
{
	uint64_t entries = ap_part_gpt_first_usable(logical) - 2;

	memset(d, 0, sizeof(*d));
	d->logical_sector = logical;
	d->physical_sector = physical;
	d->nsectors = nsectors;
	d->first_usable = ap_part_gpt_first_usable(d->logical_sector);
	/* backup entries and backup header at the end */
	d->last_usable = d->nsectors > entries + 1 + d->first_usable ?
			 d->nsectors - entries - 2 : 0;
}

static void fill_info(const PedDevice *dev, struct ap_part_disk *d)
{
	ap_part_disk_geometry((unsigned)dev->sector_size, (unsigned)dev->phys_sector_size,
			      (uint64_t)dev->length, d);
}

int ap_part_disk_info(const char *disk, struct ap_part_disk *d, struct ap_error *e)
{
	struct ped_ctx c;
	int rc;

	ped_begin(&c);
	rc = get_device(&c, disk, e);
	if (!rc)
		fill_info(c.dev, d);
	ped_end(&c);
	return rc;
}

static int read_sysfs_u64(const char *path, uint64_t *v)
{
	char buf[64];
	FILE *f = fopen(path, "re");
	int rc = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f))
		rc = -EIO;
	fclose(f);
	if (rc)
		return rc;
	buf[strcspn(buf, "\n")] = '\0';
	return ap_parse_u64(buf, v);
}

static int kernel_name(const char *disk, char *out, size_t len)
{
	char real[PATH_MAX];
	const char *b;

	if (!realpath(disk, real))
		return -errno;
	b = strrchr(real, '/');
	b = b ? b + 1 : real;
	if (strlen(b) >= len)
		return -ENAMETOOLONG;
	strcpy(out, b);
	return 0;
}

int ap_part_sysfs_find(const char *disk, unsigned partno, char **name,
		       unsigned *major, unsigned *minor, uint64_t *start, uint64_t *size)
{
	char kname[NAME_MAX + 1], dir[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int rc = -ENOENT;

	if ((rc = kernel_name(disk, kname, sizeof(kname))) != 0)
		return rc;
	rc = -ENOENT;
	snprintf(dir, sizeof(dir), "/sys/class/block/%s", kname);
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char path[PATH_MAX + 300], buf[64];
		uint64_t num, st, sz;
		unsigned ma, mi;
		FILE *f;

		if (strncmp(de->d_name, kname, strlen(kname)) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s/partition", dir, de->d_name);
		if (read_sysfs_u64(path, &num) != 0 || num != partno)
			continue;
		snprintf(path, sizeof(path), "%s/%s/start", dir, de->d_name);
		if (read_sysfs_u64(path, &st) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s/size", dir, de->d_name);
		if (read_sysfs_u64(path, &sz) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s/dev", dir, de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "%u:%u", &ma, &mi) != 2) {
			fclose(f);
			continue;
		}
		fclose(f);
		if (name)
			*name = ap_xstrdup(de->d_name);
		if (major)
			*major = ma;
		if (minor)
			*minor = mi;
		if (start)
			*start = st;	/* 512-byte units, always */
		if (size)
			*size = sz;
		rc = 0;
		break;
	}
	closedir(d);
	return rc;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * Wait until the kernel shows partition 1 of @disk at @start with @nsectors
 * (in @lss-byte sectors), then make sure its node exists.
 */
static int wait_node(const char *disk, unsigned lss, uint64_t start, uint64_t nsectors,
		     unsigned timeout_ms, struct ap_sweep_part *p, struct ap_error *e)
{
	uint64_t deadline = ap_now_ns() + (uint64_t)timeout_ms * 1000000ULL;
	uint64_t st = 0, sz = 0, want_st = start * (lss / 512), want_sz = nsectors * (lss / 512);
	unsigned ma = 0, mi = 0;
	char *name = NULL, *node;
	struct stat sb;
	int rc;

	for (;;) {
		free(name);
		name = NULL;
		rc = ap_part_sysfs_find(disk, 1, &name, &ma, &mi, &st, &sz);
		if (rc == 0 && st == want_st && sz == want_sz)
			break;
		if (ap_now_ns() >= deadline) {
			free(name);
			if (rc == -ENOENT)
				return ap_error_set(e, ETIMEDOUT,
						    "%s: the kernel shows no partition 1 after %u ms "
						    "(a loop device needs partition scanning: losetup -P)",
						    disk, timeout_ms);
			if (rc)
				return ap_error_set(e, -rc, "%s: sysfs: %s", disk, strerror(-rc));
			return ap_error_set(e, EIO,
					    "%s: the kernel shows partition 1 at sector %llu "
					    "(%llu sectors), not at %llu as written",
					    disk, (unsigned long long)(st / (lss / 512)),
					    (unsigned long long)(sz / (lss / 512)),
					    (unsigned long long)start);
		}
		sleep_ms(10);
	}

	ap_xasprintf(&node, "/dev/%s", name);
	free(name);
	/*
	 * devtmpfs creates nodes synchronously; udev, when it runs, soon
	 * after. Without either, give up waiting after half a second and make
	 * the node ourselves.
	 */
	deadline = ap_now_ns() + 500 * 1000000ULL;
	for (;;) {
		if (stat(node, &sb) == 0)
			break;
		if (errno != ENOENT || ap_now_ns() >= deadline)
			break;
		sleep_ms(10);
	}
	if (stat(node, &sb) == 0) {
		if (!S_ISBLK(sb.st_mode) || major(sb.st_rdev) != ma || minor(sb.st_rdev) != mi) {
			rc = ap_error_set(e, EEXIST, "%s exists but is not block device %u:%u",
					  node, ma, mi);
			free(node);
			return rc;
		}
		p->node_created = false;
	} else {
		if (mknod(node, S_IFBLK | 0600, makedev(ma, mi)) != 0) {
			rc = ap_error_set(e, errno, "%s: mknod: %s", node, strerror(errno));
			free(node);
			return rc;
		}
		p->node_created = true;
	}
	p->node = node;
	p->start = start;
	p->nsectors = nsectors;
	return 0;
}

/*
 * Ask for both GPT copies (the MBR, a header and its 128 entries each) in
 * one request each, before libfdisk reads them a header and an entry array
 * at a time: on a rotating disk without a read-ahead of its own, the entries
 * right after their header cost a revolution as a request of their own.
 * What the page cache does not hold still comes from the disk; nothing is
 * read from anywhere else.
 */
static void prefetch_gpt(const char *disk, unsigned lss, uint64_t disk_sectors)
{
	uint64_t span, end, first;
	int fd;

	if (!lss || disk_sectors < 2 * ap_part_gpt_first_usable(lss))
		return;
	span = ap_part_gpt_first_usable(lss) * lss;	/* MBR, header, entries */
	end = disk_sectors * lss;
	first = (end - (span - lss)) & ~(uint64_t)4095;	/* entries and header, page-aligned */
	fd = open(disk, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	(void)readahead(fd, 0, span);
	(void)readahead(fd, (off_t)first, end - first);
	close(fd);
}

/* libfdisk's warnings while it reads and verifies: the first one kept. */
static int fdisk_ask(struct fdisk_context *cxt, struct fdisk_ask *ask, void *data)
{
	char *first = data;

	(void)cxt;
	switch (fdisk_ask_get_type(ask)) {
	case FDISK_ASKTYPE_WARN:
	case FDISK_ASKTYPE_WARNX:
		if (!first[0])
			snprintf(first, 200, "%s", fdisk_ask_print_get_mesg(ask));
		return 0;
	case FDISK_ASKTYPE_INFO:
		return 0;
	default:
		return -EINVAL;	/* a question: nobody is asked */
	}
}

/*
 * Read the table back from the device, with libfdisk as the project reads
 * tables: both GPT copies (headers and entry arrays, CRCs, positions, the
 * two headers pointing at each other, as fdisk_verify_disklabel() checks
 * them), with exactly one partition, at @start with @nsectors. In list-only
 * mode, which skips libfdisk's probe for other signatures (libblkid's reads
 * all over the disk): the sweep wrote the whole label a moment ago.
 * libparted's own ped_disk_new() probed every label type to find it.
 */
static int read_back(const char *disk, unsigned lss, uint64_t disk_sectors, uint64_t start,
		     uint64_t nsectors, struct ap_error *e)
{
	struct fdisk_context *cxt = fdisk_new_context();
	struct fdisk_table *tb = NULL;
	struct fdisk_partition *pa;
	char warn[200] = "";
	size_t n;
	int rc;

	if (!cxt)
		return ap_error_set(e, ENOMEM, "out of memory");
	prefetch_gpt(disk, lss, disk_sectors);
	fdisk_set_ask(cxt, fdisk_ask, warn);
	fdisk_enable_listonly(cxt, 1);
	rc = fdisk_assign_device(cxt, disk, 1);
	if (rc) {
		rc = ap_error_set(e, -rc, "%s: cannot read the partition table back: %s", disk,
				  strerror(-rc));
		goto out;
	}
	if (!fdisk_is_labeltype(cxt, FDISK_DISKLABEL_GPT)) {
		rc = ap_error_set(e, EIO, "%s: cannot read the partition table back: %s%s", disk,
				  fdisk_has_label(cxt) ? "libfdisk reads no GPT but " : "no GPT",
				  fdisk_has_label(cxt) ?
				  fdisk_label_get_name(fdisk_get_label(cxt, NULL)) : "");
		goto out;
	}
	if (fdisk_verify_disklabel(cxt) != 0 || warn[0]) {
		rc = ap_error_set(e, EIO, "%s: the partition table read back is not valid: %s",
				  disk, warn[0] ? warn : "libfdisk's verification fails");
		goto out;
	}
	rc = fdisk_get_partitions(cxt, &tb);
	n = rc ? 0 : fdisk_table_get_nents(tb);
	pa = n ? fdisk_table_get_partition(tb, 0) : NULL;
	if (!pa || !fdisk_partition_has_start(pa) || !fdisk_partition_has_size(pa)) {
		rc = ap_error_set(e, EIO, "%s: the partition table read back holds no partition",
				  disk);
	} else if (n != 1 || fdisk_partition_get_partno(pa) != 0 ||
		   fdisk_partition_get_start(pa) != start ||
		   fdisk_partition_get_size(pa) != nsectors) {
		uint64_t s = fdisk_partition_get_start(pa), z = fdisk_partition_get_size(pa);

		rc = ap_error_set(e, EIO,
				  "%s: the partition read back is at %llu-%llu, not %llu-%llu%s",
				  disk, (unsigned long long)s, (unsigned long long)(s + z - 1),
				  (unsigned long long)start,
				  (unsigned long long)(start + nsectors - 1),
				  n != 1 ? " (and it is not the only one)" :
				  fdisk_partition_get_partno(pa) ? " (and not partition 1)" : "");
	} else {
		rc = 0;
	}
out:
	fdisk_unref_table(tb);
	fdisk_unref_context(cxt);
	return rc;
}

int ap_part_create(const char *disk, uint64_t start, uint64_t nsectors,
		   unsigned timeout_ms, struct ap_sweep_part *p, struct ap_error *e)
{
	struct ap_part_disk info;
	PedGeometry *geom = NULL;
	PedConstraint *cons = NULL;
	PedPartition *part;
	const PedDiskType *gpt;
	struct ped_ctx c;
	uint64_t end;
	int rc;

	memset(p, 0, sizeof(*p));
	if (nsectors == 0)
		return ap_error_set(e, EINVAL, "%s: empty partition", disk);
	end = start + nsectors - 1;

	ped_begin(&c);
	if ((rc = get_device(&c, disk, e)) != 0)
		goto out;
	fill_info(c.dev, &info);
	if (start < info.first_usable || end > info.last_usable || end < start) {
		rc = ap_error_set(e, ERANGE,
				  "%s: a partition at sectors %llu-%llu does not fit "
				  "(GPT usable sectors: %llu-%llu)", disk,
				  (unsigned long long)start, (unsigned long long)end,
				  (unsigned long long)info.first_usable,
				  (unsigned long long)info.last_usable);
		goto out;
	}
	if (!ped_device_open(c.dev)) {
		rc = ped_fail(e, EIO, disk, "cannot open the device");
		goto out;
	}
	gpt = ped_disk_type_get("gpt");
	if (!gpt) {
		rc = ap_error_set(e, ENOTSUP, "libparted has no GPT support");
		goto out;
	}
	c.disk = ped_disk_new_fresh(c.dev, gpt);
	if (!c.disk) {
		rc = ped_fail(e, EIO, disk, "cannot create a GPT label");
		goto out;
	}
	/* no snapping to any grid (GPT has no such flag; msdos would) */
	if (ped_disk_is_flag_available(c.disk, PED_DISK_CYLINDER_ALIGNMENT))
		ped_disk_set_flag(c.disk, PED_DISK_CYLINDER_ALIGNMENT, 0);

	part = ped_partition_new(c.disk, PED_PARTITION_NORMAL, NULL,
				 (PedSector)start, (PedSector)end);
	if (!part) {
		rc = ped_fail(e, EINVAL, disk, "cannot create a partition");
		goto out;
	}
	geom = ped_geometry_new(c.dev, (PedSector)start, (PedSector)nsectors);
	cons = geom ? ped_constraint_exact(geom) : NULL;
	if (!cons || !ped_disk_add_partition(c.disk, part, cons)) {
		ped_partition_destroy(part);
		rc = ped_fail(e, EINVAL, disk, "cannot place the partition exactly");
		goto out;
	}
	if ((uint64_t)part->geom.start != start || (uint64_t)part->geom.end != end) {
		rc = ap_error_set(e, EINVAL,
				  "%s: libparted placed the partition at %lld-%lld instead of %llu-%llu",
				  disk, (long long)part->geom.start, (long long)part->geom.end,
				  (unsigned long long)start, (unsigned long long)end);
		goto out;
	}
	if (!ped_disk_commit_to_dev(c.disk)) {
		rc = ped_fail(e, EIO, disk, "cannot write the partition table");
		goto out;
	}
	/* libparted reads the primary header back to tell the kernel: one request */
	prefetch_gpt(disk, info.logical_sector, info.nsectors);
	if (!ped_disk_commit_to_os(c.disk)) {
		rc = ped_fail(e, EIO, disk, "cannot tell the kernel about the partition table");
		goto out;
	}
	rc = 0;
out:
	if (cons)
		ped_constraint_destroy(cons);
	if (geom)
		ped_geometry_destroy(geom);
	ped_end(&c);
	if (rc == 0) {
		/* tests: change the table between the write and the read-back */
		ap_test_pause("ALIGNPROBE_TEST_PART_WRITTEN");
		rc = read_back(disk, info.logical_sector, info.nsectors, start, nsectors, e);
	}
	if (rc == 0)
		rc = wait_node(disk, info.logical_sector, start, nsectors,
			       timeout_ms, p, e);
	return rc;
}

void ap_part_release(struct ap_sweep_part *p)
{
	if (!p)
		return;
	if (p->node && p->node_created)
		unlink(p->node);
	free(p->node);
	memset(p, 0, sizeof(*p));
}

int ap_part_forget(const char *disk)
{
	struct blkpg_partition bp = { .pno = 1 };
	struct blkpg_ioctl_arg arg = {
		.op = BLKPG_DEL_PARTITION, .datalen = sizeof(bp), .data = &bp,
	};
	int fd = open(disk, O_RDONLY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, BLKPG, &arg) != 0)
		rc = errno == ENXIO ? 0 : -errno;	/* ENXIO: none there */
	close(fd);
	return rc;
}

int ap_part_hold(const char *disk, struct ap_error *e)
{
	struct ped_ctx c;
	int now[MAX_BLK_FDS];
	size_t n, i;
	int rc;

	ap_part_let_go();
	ped_begin(&c);
	rc = get_device(&c, disk, e);
	if (!rc && !ped_device_open(c.dev))
		rc = ped_fail(e, EIO, disk, "cannot open the device");
	if (!rc) {
		held.dev = c.dev;
		/* what it opened is ours until ap_part_let_go(), not a leak */
		n = blk_fds(now, MAX_BLK_FDS);
		for (i = 0; i < n; i++)
			if (!fd_in(c.fds, c.nfds, now[i]))
				held.fds[held.nfds++] = now[i];
		memcpy(c.fds, now, n * sizeof(*now));
		c.nfds = n;
	}
	ped_end(&c);
	return rc;
}

void ap_part_let_go(void)
{
	PedExceptionHandler *old;
	int now[MAX_BLK_FDS];
	size_t n, i;

	if (!held.dev)
		return;
	old = ped_exception_get_handler();
	ped_exception_set_handler(ped_handler);
	while (held.dev->open_count > 0)
		if (!ped_device_close(held.dev))
			break;
	ped_device_destroy(held.dev);
	ped_exception_set_handler(old);
	/* a failed fsync on close leaves libparted's descriptor open */
	n = blk_fds(now, MAX_BLK_FDS);
	for (i = 0; i < n; i++)
		if (fd_in(held.fds, held.nfds, now[i]))
			close(now[i]);
	memset(&held, 0, sizeof(held));
}

int ap_part_wipe(const char *disk, struct ap_error *e)
{
	const PedDiskType *gpt;
	struct ped_ctx c;
	int rc;

	ped_begin(&c);
	if ((rc = get_device(&c, disk, e)) != 0)
		goto out;
	if (!ped_device_open(c.dev)) {
		rc = ped_fail(e, EIO, disk, "cannot open the device");
		goto out;
	}
	gpt = ped_disk_type_get("gpt");
	c.disk = gpt ? ped_disk_new_fresh(c.dev, gpt) : NULL;
	if (!c.disk) {
		rc = ped_fail(e, EIO, disk, "cannot create a GPT label");
		goto out;
	}
	if (!ped_disk_commit_to_dev(c.disk)) {
		rc = ped_fail(e, EIO, disk, "cannot write the empty partition table");
		goto out;
	}
	if (!ped_disk_commit_to_os(c.disk)) {
		rc = ped_fail(e, EIO, disk, "cannot tell the kernel about the empty partition table");
		goto out;
	}
	rc = 0;
out:
	ped_end(&c);
	return rc;
}
