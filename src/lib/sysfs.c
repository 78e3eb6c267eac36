// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reading sysfs and procfs (see sysfs.h). The device-number helpers came
 * from the safety gate, which was the first to need them all.
 */
#include "lib/sysfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static bool path_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* "/sys/dev/block/M:m" */
char *ap_sysfs_devno_path(dev_t d)
{
	char *p;

	ap_xasprintf(&p, "/sys/dev/block/%u:%u", major(d), minor(d));
	return p;
}

char *ap_sysfs_devno_attr(dev_t d, const char *attr)
{
	char *s = ap_sysfs_devno_path(d), *p, *v;

	ap_xasprintf(&p, "%s/%s", s, attr);
	v = ap_read_line(p);
	free(p);
	free(s);
	return v;
}

int ap_sysfs_devno_attr_u64(dev_t d, const char *attr, uint64_t *v)
{
	char *s = ap_sysfs_devno_path(d), *p;
	int rc;

	ap_xasprintf(&p, "%s/%s", s, attr);
	rc = ap_read_u64(p, v);
	free(p);
	free(s);
	return rc;
}

char *ap_sysfs_dir_attr(const char *dir, const char *attr)
{
	char *p, *v;

	ap_xasprintf(&p, "%s/%s", dir, attr);
	v = ap_read_line(p);
	free(p);
	return v;
}

char *ap_sysfs_name_attr(const char *name, const char *attr)
{
	char *p, *v;

	ap_xasprintf(&p, "/sys/block/%s", name);
	v = ap_sysfs_dir_attr(p, attr);
	free(p);
	return v;
}

int ap_sysfs_write(const char *path, const char *val)
{
	size_t len = strlen(val);
	ssize_t n;
	int fd = open(path, O_WRONLY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return -errno;
	do
		n = write(fd, val, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		rc = -errno;
	else if ((size_t)n != len)
		rc = -EIO;
	if (close(fd) != 0 && !rc)
		rc = -errno;
	return rc;
}

/* Kernel name of a block device number ("loop3p1"), or NULL. */
char *ap_sysfs_devno_to_name(dev_t d)
{
	char *link = ap_sysfs_devno_path(d), *name = NULL;
	char buf[PATH_MAX];
	ssize_t len = readlink(link, buf, sizeof(buf) - 1);

	if (len > 0) {
		char *b;

		buf[len] = '\0';
		b = strrchr(buf, '/');
		name = ap_xstrdup(b ? b + 1 : buf);
	}
	free(link);
	return name;
}

bool ap_sysfs_devno_is_partition(dev_t d)
{
	char *p, *s = ap_sysfs_devno_path(d);
	bool r;

	ap_xasprintf(&p, "%s/partition", s);
	r = path_exists(p);
	free(p);
	free(s);
	return r;
}

/* A read-only device opens O_RDWR fine; only the writes would fail. */
bool ap_sysfs_devno_is_readonly(dev_t d)
{
	uint64_t v = 0;

	if (ap_sysfs_devno_attr_u64(d, "ro", &v) != 0)
		v = 0;
	return v != 0;
}

/* The whole disk a partition belongs to (itself for a whole disk). */
dev_t ap_sysfs_devno_to_wholedisk(dev_t d)
{
	char *v;
	dev_t w = d;

	if (!ap_sysfs_devno_is_partition(d))
		return d;
	v = ap_sysfs_devno_attr(d, "../dev");
	if (!v || ap_sysfs_parse_devno(v, &w) != 0)
		w = d;
	free(v);
	return w;
}

char *ap_sysfs_wholedisk_name(dev_t d)
{
	return ap_sysfs_devno_to_name(ap_sysfs_devno_to_wholedisk(d));
}

int ap_sysfs_parse_devno(const char *s, dev_t *d)
{
	unsigned ma, mi;
	char c;

	if (sscanf(s, "%u:%u%c", &ma, &mi, &c) != 2)
		return -EINVAL;
	*d = makedev(ma, mi);
	return 0;
}

/*
 * The entries of @dir that start with @prefix (and not with '.') and hold
 * the file @need (when not NULL): @fn on each whose "dev" parses.
 */
static int foreach_devno(const char *dir, const char *prefix, const char *need,
			 int (*fn)(const char *name, dev_t d, void *arg), void *arg)
{
	struct dirent *de;
	DIR *D = opendir(dir);
	int rc = 0;

	while (rc == 0 && D && (de = readdir(D))) {
		char *p, *v;
		dev_t d;

		if (de->d_name[0] == '.' || strncmp(de->d_name, prefix, strlen(prefix)) != 0)
			continue;
		if (need) {
			ap_xasprintf(&p, "%s/%s/%s", dir, de->d_name, need);
			if (!path_exists(p)) {
				free(p);
				continue;
			}
			free(p);
		}
		ap_xasprintf(&p, "%s/%s/dev", dir, de->d_name);
		v = ap_read_line(p);
		if (v && ap_sysfs_parse_devno(v, &d) == 0)
			rc = fn(de->d_name, d, arg);
		free(v);
		free(p);
	}
	if (D)
		closedir(D);
	return rc;
}

int ap_sysfs_foreach_partition(const char *name,
			       int (*fn)(const char *name, dev_t d, void *arg), void *arg)
{
	char *dir;
	int rc;

	ap_xasprintf(&dir, "/sys/class/block/%s", name);
	rc = foreach_devno(dir, name, "partition", fn, arg);
	free(dir);
	return rc;
}

int ap_sysfs_foreach_slave(dev_t d, int (*fn)(const char *name, dev_t d, void *arg), void *arg)
{
	char *s = ap_sysfs_devno_path(d), *dir;
	int rc;

	ap_xasprintf(&dir, "%s/slaves", s);
	rc = foreach_devno(dir, "", NULL, fn, arg);
	free(dir);
	free(s);
	return rc;
}

void ap_sysfs_strip_deleted(char *s)
{
	size_t n = strlen(s);

	if (n > 10 && strcmp(s + n - 10, " (deleted)") == 0)
		s[n - 10] = '\0';
}

char *ap_sysfs_loop_backing_file(const char *name, bool strip_deleted)
{
	char *bf = ap_sysfs_name_attr(name, "loop/backing_file");

	if (bf && strip_deleted)
		ap_sysfs_strip_deleted(bf);
	return bf;
}

int ap_mountinfo_parse_line(const char *line, struct ap_mountinfo *m)
{
	char mm[32];
	const char *sep;

	memset(m, 0, sizeof(*m));
	if (sscanf(line, "%*s %*s %31s %*s %4095s", mm, m->target) != 2)
		return -EINVAL;
	ap_unescape_octal(m->target);
	m->has_devno = ap_sysfs_parse_devno(mm, &m->devno) == 0;
	/* the source after " - fstype ": catches sources that show 0:NN (btrfs) */
	sep = strstr(line, " - ");
	if (sep && sscanf(sep, " - %*s %4095s", m->source) == 1)
		ap_unescape_octal(m->source);
	else
		m->source[0] = '\0';
	return 0;
}

int ap_mountinfo_foreach(int (*fn)(const struct ap_mountinfo *m, void *arg), void *arg)
{
	struct ap_mountinfo *m;
	char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int rc = 0;

	if (!f)
		return -errno;
	m = ap_xmalloc(sizeof(*m));
	while (rc == 0 && getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (ap_mountinfo_parse_line(line, m) == 0)
			rc = fn(m, arg);
	}
	free(m);
	free(line);
	fclose(f);
	return rc;
}

static int mount_of_disk(const struct ap_mountinfo *m, void *arg)
{
	dev_t d = *(const dev_t *)arg;

	return m->has_devno && major(m->devno) &&
	       (m->devno == d || ap_sysfs_devno_to_wholedisk(m->devno) == d);
}

bool ap_mountinfo_has_disk(dev_t d)
{
	return ap_mountinfo_foreach(mount_of_disk, &d) > 0;
}

static int holders_of(const char *name, dev_t d, void *arg)
{
	char *dir;
	struct dirent *de;
	DIR *D;
	int found = 0;

	(void)d;
	(void)arg;
	ap_xasprintf(&dir, "/sys/class/block/%s/holders", name);
	D = opendir(dir);
	free(dir);
	while (D && !found && (de = readdir(D)))
		found = de->d_name[0] != '.';
	if (D)
		closedir(D);
	return found;
}

bool ap_sysfs_has_holders(const char *name)
{
	return holders_of(name, 0, NULL) || ap_sysfs_foreach_partition(name, holders_of, NULL) > 0;
}
