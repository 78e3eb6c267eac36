// SPDX-License-Identifier: GPL-2.0-or-later
#include "state.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const kind_names[] = {
	[AP_STATE_MOUNT] = "mount",
	[AP_STATE_TMPDIR] = "tmpdir",
	[AP_STATE_EMU] = "emu",
	[AP_STATE_LOOP] = "loop",
	[AP_STATE_JOURNAL] = "journal",
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

int ap_state_register(enum ap_state_kind kind, const char *path,
		      const char *dev, const char *aux, char **id)
{
	static unsigned seq;
	const char *dir = ap_state_dir();
	char *file, *tmp;
	FILE *f;
	int fd, rc = 0;

	if (check_value(path) || check_value(dev) || check_value(aux))
		return -EINVAL;
	ap_xasprintf(&file, "%s/%d-%s-%u-%llu", dir, (int)getpid(),
		     ap_state_kind_name(kind), seq++,
		     (unsigned long long)(ap_now_ns() % 1000000000ULL));
	ap_xasprintf(&tmp, "%s.tmp", file);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	f = fdopen(fd, "w");
	if (!f) {
		rc = -errno;
		close(fd);
		unlink(tmp);
		goto out;
	}
	fprintf(f, "kind=%s\nowner=%d\npath=%s\ndev=%s\naux=%s\n",
		ap_state_kind_name(kind), (int)getpid(), path ? path : "",
		dev ? dev : "", aux ? aux : "");
	if (fflush(f) != 0 || fsync(fileno(f)) != 0)
		rc = -errno;
	if (fclose(f) != 0 && !rc)
		rc = -errno;
	if (!rc && rename(tmp, file) != 0)
		rc = -errno;
	if (rc)
		unlink(tmp);
out:
	free(tmp);
	if (rc == 0 && id)
		*id = file;
	else
		free(file);
	return rc;
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

static int read_entry(const char *file, struct ap_state_entry *e)
{
	char line[4096];
	FILE *f = fopen(file, "re");
	char *kind = NULL, *owner = NULL;
	size_t i;

	if (!f)
		return -errno;
	memset(e, 0, sizeof(*e));
	while (fgets(line, sizeof(line), f)) {
		char *v;

		if ((v = field(line, "kind")))
			free(kind), kind = v;
		else if ((v = field(line, "owner")))
			free(owner), owner = v;
		else if ((v = field(line, "path")))
			free(e->path), e->path = v;
		else if ((v = field(line, "dev")))
			free(e->dev), e->dev = v;
		else if ((v = field(line, "aux")))
			free(e->aux), e->aux = v;
	}
	fclose(f);
	e->kind = (enum ap_state_kind)-1;
	for (i = 0; kind && i < AP_ARRAY_SIZE(kind_names); i++)
		if (strcmp(kind, kind_names[i]) == 0)
			e->kind = (enum ap_state_kind)i;
	e->owner = owner ? (pid_t)atoi(owner) : 0;
	free(kind);
	free(owner);
	if ((int)e->kind < 0 || e->owner <= 0) {
		free(e->path);
		free(e->dev);
		free(e->aux);
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

		if (de->d_name[0] == '.' || (len > 4 && strcmp(de->d_name + len - 4, ".tmp") == 0))
			continue;
		ap_xasprintf(&file, "%s/%s", dir, de->d_name);
		v = ap_xreallocarray(v, cnt + 1, sizeof(*v));
		if (read_entry(file, &v[cnt]) == 0)
			cnt++;
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

	for (i = 0; i < n; i++) {
		free(e[i].file);
		free(e[i].path);
		free(e[i].dev);
		free(e[i].aux);
	}
	free(e);
}

/* A zombie owner is dead too: where nobody reaps (PID 1 of a container
 * that does not wait), a SIGKILLed run stays a zombie and kill(pid, 0) works. */
static bool is_zombie(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	bool z = false;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (fgets(buf, sizeof(buf), f)) {
		p = strrchr(buf, ')');	/* comm may contain spaces and ')' */
		if (p && p[1] == ' ')
			z = p[2] == 'Z' || p[2] == 'X';
	}
	fclose(f);
	return z;
}

bool ap_state_is_stale(const struct ap_state_entry *e)
{
	if (kill(e->owner, 0) != 0)
		return errno == ESRCH;
	return is_zombie(e->owner);
}
