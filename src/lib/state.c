// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/state.h"
#include "lib/sysfs.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static const char *const kind_names[] = {
	[AP_STATE_MOUNT] = "mount",
	[AP_STATE_TMPDIR] = "tmpdir",
	[AP_STATE_EMU] = "emu",
	[AP_STATE_LOOP] = "loop",
	[AP_STATE_JOURNAL] = "journal",
	[AP_STATE_WCACHE] = "wcache",
	[AP_STATE_HOLD] = "hold",
};

const char *ap_state_kind_name(enum ap_state_kind kind)
{
	if ((size_t)kind < AP_ARRAY_SIZE(kind_names))
		return kind_names[kind];
	return "unknown";
}

const char *ap_state_dir(void)
{
	const char *d = getenv("ALIGNPROBE_STATE_DIR");

	if (!d || !*d)
		d = "/run/alignprobe";
	if (mkdir(d, 0700) != 0 && errno != EEXIST)
		return d;	/* the register call reports the error */
	return d;
}

/* Values are single lines; a newline inside one would corrupt the file. */
static int check_value(const char *s)
{
	return s && strchr(s, '\n') ? -EINVAL : 0;
}

/*
 * Field @n (1-based, as in proc(5)) of /proc/PID/stat into @buf: the
 * fields after the command name, which may contain spaces and ')'.
 */
static bool proc_stat_field(pid_t pid, int n, char *buf, size_t sz)
{
	char path[64], line[1024], *p;
	bool ok = false;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (fgets(line, sizeof(line), f) && (p = strrchr(line, ')')) && p[1] == ' ') {
		p += 2;			/* field 3, the state */
		for (i = 3; i < n && p; i++) {
			p = strchr(p, ' ');
			if (p)
				p++;
		}
		if (p && *p) {
			size_t len = strcspn(p, " \n");

			if (len < sz) {
				memcpy(buf, p, len);
				buf[len] = '\0';
				ok = true;
			}
		}
	}
	fclose(f);
	return ok;
}

/* When @pid started, in clock ticks after boot; 0 when it cannot be read. */
static unsigned long long proc_start(pid_t pid)
{
	char buf[32];

	if (pid <= 0 || !proc_stat_field(pid, 22, buf, sizeof(buf)))
		return 0;
	return strtoull(buf, NULL, 10);
}

/* This boot's random id, or NULL. */
static const char *boot_id(void)
{
	static char id[64];
	static bool done;

	if (!done) {
		FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");

		done = true;
		if (f) {
			if (!fgets(id, sizeof(id), f))
				id[0] = '\0';
			id[strcspn(id, "\n")] = '\0';
			fclose(f);
		}
	}
	return id[0] ? id : NULL;
}

/*
 * Write an entry to @file through @file.tmp and rename(2): readers see the
 * old file or the new one, complete. @excl: the temporary file must be new.
 */
static int write_entry(const char *file, bool excl, enum ap_state_kind kind, pid_t owner,
		       const char *path, const char *dev, const char *aux)
{
	const char *boot = boot_id();
	char *tmp;
	FILE *f;
	int fd, rc = 0;

	ap_xasprintf(&tmp, "%s.tmp", file);
	fd = open(tmp, O_WRONLY | O_CREAT | O_CLOEXEC | (excl ? O_EXCL : O_TRUNC), 0600);
	if (fd < 0) {
		rc = -errno;
		free(tmp);
		return rc;
	}
	f = fdopen(fd, "w");
	if (!f) {
		rc = -errno;
		close(fd);
		unlink(tmp);
		free(tmp);
		return rc;
	}
	/* aux= stays the last line: cleanup takes a .tmp with it as complete */
	fprintf(f, "kind=%s\nowner=%d\nowner_start=%llu\nboot=%s\npath=%s\ndev=%s\naux=%s\n",
		ap_state_kind_name(kind), (int)owner, proc_start(owner), boot ? boot : "",
		path ? path : "", dev ? dev : "", aux ? aux : "");
	if (fflush(f) != 0 || fsync(fileno(f)) != 0)
		rc = -errno;
	if (fclose(f) != 0 && !rc)
		rc = -errno;
	if (!rc && rename(tmp, file) != 0)
		rc = -errno;
	if (rc)
		unlink(tmp);
	free(tmp);
	return rc;
}

int ap_state_register_for(pid_t owner, enum ap_state_kind kind, const char *path,
			  const char *dev, const char *aux, char **id)
{
	static unsigned seq;
	const char *dir = ap_state_dir();
	char *file;
	int rc;

	if (owner <= 0 || (size_t)kind >= AP_ARRAY_SIZE(kind_names) || !kind_names[kind] ||
	    check_value(path) || check_value(dev) || check_value(aux))
		return -EINVAL;
	/* named after the writer: cleanup finishes a .tmp whose writer died */
	ap_xasprintf(&file, "%s/%d-%s-%u-%llu", dir, (int)getpid(),
		     ap_state_kind_name(kind), seq++,
		     (unsigned long long)(ap_now_ns() % 1000000000ULL));
	rc = write_entry(file, true, kind, owner, path, dev, aux);
	if (rc == 0 && id)
		*id = file;
	else
		free(file);
	return rc;
}

int ap_state_register(enum ap_state_kind kind, const char *path,
		      const char *dev, const char *aux, char **id)
{
	return ap_state_register_for(getpid(), kind, path, dev, aux, id);
}

int ap_state_release(const char *id)
{
	if (!id)
		return 0;
	if (unlink(id) != 0 && errno != ENOENT)
		return -errno;
	return 0;
}

static char *field(const char *line, const char *key)
{
	size_t n = strlen(key);

	if (strncmp(line, key, n) == 0 && line[n] == '=') {
		const char *v = line + n + 1;
		size_t len = strcspn(v, "\n");

		return len ? strndup(v, len) : NULL;
	}
	return NULL;
}

static void free_entry(struct ap_state_entry *e)
{
	free(e->file);
	free(e->boot);
	free(e->path);
	free(e->dev);
	free(e->aux);
	memset(e, 0, sizeof(*e));
}

static int read_entry(const char *file, struct ap_state_entry *e)
{
	char line[4096];
	FILE *f = fopen(file, "re");
	char *kind = NULL, *owner = NULL, *start = NULL;
	size_t i;

	memset(e, 0, sizeof(*e));
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *v;

		if ((v = field(line, "kind")))
			free(kind), kind = v;
		else if ((v = field(line, "owner")))
			free(owner), owner = v;
		else if ((v = field(line, "owner_start")))
			free(start), start = v;
		else if ((v = field(line, "boot")))
			free(e->boot), e->boot = v;
		else if ((v = field(line, "path")))
			free(e->path), e->path = v;
		else if ((v = field(line, "dev")))
			free(e->dev), e->dev = v;
		else if ((v = field(line, "aux")))
			free(e->aux), e->aux = v;
	}
	fclose(f);
	e->kind = AP_STATE_UNKNOWN;
	for (i = 0; kind && i < AP_ARRAY_SIZE(kind_names); i++)
		if (strcmp(kind, kind_names[i]) == 0)
			e->kind = (enum ap_state_kind)i;
	e->owner = owner ? (pid_t)atoi(owner) : 0;
	e->owner_start = start ? strtoull(start, NULL, 10) : 0;
	free(kind);
	free(owner);
	free(start);
	if (e->kind == AP_STATE_UNKNOWN || e->owner <= 0) {
		free_entry(e);
		return -EINVAL;
	}
	e->file = ap_xstrdup(file);
	return 0;
}

int ap_state_list(struct ap_state_entry **out, size_t *n)
{
	const char *dir = ap_state_dir();
	struct ap_state_entry *v = NULL;
	struct dirent *de;
	size_t cnt = 0;
	DIR *d = opendir(dir);

	*out = NULL;
	*n = 0;
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		char *file;
		size_t len = strlen(de->d_name);
		int rc;

		if (de->d_name[0] == '.' || (len > 4 && strcmp(de->d_name + len - 4, ".tmp") == 0))
			continue;
		ap_xasprintf(&file, "%s/%s", dir, de->d_name);
		v = ap_xreallocarray(v, cnt + 1, sizeof(*v));
		rc = read_entry(file, &v[cnt]);
		if (rc == 0) {
			cnt++;
		} else if (rc != -ENOENT) {
			/* released meanwhile (ENOENT) is no entry; anything else is */
			v[cnt].kind = AP_STATE_UNKNOWN;
			v[cnt].file = file;
			file = NULL;
			cnt++;
		}
		free(file);
	}
	closedir(d);
	*out = v;
	*n = cnt;
	return 0;
}

void ap_state_free(struct ap_state_entry *e, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free_entry(&e[i]);
	free(e);
}

bool ap_state_pid_alive(pid_t pid)
{
	char st[8];

	if (pid <= 0)
		return false;
	if (kill(pid, 0) != 0 && errno == ESRCH)
		return false;
	/*
	 * A zombie is dead too: where nobody reaps (PID 1 of a container
	 * that does not wait), a SIGKILLed run stays a zombie and kill(pid, 0)
	 * works.
	 */
	if (proc_stat_field(pid, 3, st, sizeof(st)) && (st[0] == 'Z' || st[0] == 'X'))
		return false;
	return true;
}

bool ap_state_is_stale(const struct ap_state_entry *e)
{
	const char *boot = boot_id();
	unsigned long long start;

	if (e->kind == AP_STATE_UNKNOWN || e->owner <= 0)
		return false;
	/* registered before a reboot: that process is gone, whatever runs now */
	if (e->boot && *e->boot && boot && strcmp(e->boot, boot) != 0)
		return true;
	if (!ap_state_pid_alive(e->owner))
		return true;
	/* the PID is somebody else's now */
	start = e->owner_start ? proc_start(e->owner) : 0;
	return start && start != e->owner_start;
}

int ap_state_set_owner(const char *id, pid_t owner)
{
	struct ap_state_entry e;
	int rc;

	if (!id || owner <= 0)
		return -EINVAL;
	rc = read_entry(id, &e);
	if (rc)
		return rc;
	rc = write_entry(id, false, e.kind, owner, e.path, e.dev, e.aux);
	free_entry(&e);
	return rc;
}

int ap_state_hold_parse(const struct ap_state_entry *e, dev_t *d, const char **cmd)
{
	unsigned ma, mi;
	int n = 0;

	if (e->kind != AP_STATE_HOLD || !e->aux ||
	    sscanf(e->aux, "%u:%u %n", &ma, &mi, &n) != 2 || !n)
		return -EINVAL;
	*d = makedev(ma, mi);
	*cmd = e->aux + n;
	return 0;
}

int ap_state_live_hold(dev_t d, pid_t *pid, char **cmd)
{
	struct ap_state_entry *v = NULL;
	size_t n = 0, i;
	int found = 0;

	*pid = 0;
	*cmd = NULL;
	if (ap_state_list(&v, &n) != 0)
		return 0;
	for (i = 0; !found && i < n; i++) {
		const char *c;
		dev_t h;

		if (v[i].owner == getpid() || ap_state_hold_parse(&v[i], &h, &c) != 0)
			continue;
		if (h != d && ap_sysfs_devno_to_wholedisk(h) != d &&
		    ap_sysfs_devno_to_wholedisk(d) != h)
			continue;
		if (ap_state_is_stale(&v[i]))
			continue;
		*pid = v[i].owner;
		*cmd = ap_xstrdup(*c ? c : "run");
		found = 1;
	}
	ap_state_free(v, n);
	return found;
}

int ap_state_live_hold_path(const char *path, pid_t *pid, char **cmd)
{
	struct stat st;

	*pid = 0;
	*cmd = NULL;
	if (stat(path, &st) != 0 || !S_ISBLK(st.st_mode))
		return 0;
	return ap_state_live_hold(st.st_rdev, pid, cmd);
}
