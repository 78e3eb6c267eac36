// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A disk's volatile write cache, switched through sysfs (see cache.h): the
 * SCSI disk's cache_type, which the sd driver turns into a MODE SELECT, or
 * the emulated drive's loop device queue/write_cache. Finding the way and
 * the state found is one call, so that a command can refuse a disk that
 * offers none before anything runs.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/cache.h"
#include "lib/sysfs.h"
#include "lib/util.h"

#define TEMPORARY	"temporary "

/* index = 2 * WCE + RCD, as the sd driver's sd_cache_types[] */
static const char *const scsi_values[] = {
	"write through", "none", "write back", "write back, no read (daft)",
};

int ap_wcache_value_parse(const char *v, bool *wce, bool *rcd)
{
	size_t i;

	if (!v)
		return -EINVAL;
	if (strncmp(v, TEMPORARY, strlen(TEMPORARY)) == 0)
		v += strlen(TEMPORARY);
	for (i = 0; i < AP_ARRAY_SIZE(scsi_values); i++) {
		if (strcmp(v, scsi_values[i]) == 0) {
			*wce = i >= 2;
			*rcd = i & 1;
			return 0;
		}
	}
	/* older kernels say "write back, no read (daft)" as "... (daft)" too */
	if (strncmp(v, "write back, no read", 19) == 0) {
		*wce = *rcd = true;
		return 0;
	}
	return -EINVAL;
}

const char *ap_wcache_value(enum ap_wcache_how how, bool on, bool rcd)
{
	if (how == AP_WCACHE_QUEUE)
		return on ? "write back" : "write through";
	return scsi_values[(on ? 2 : 0) + (rcd ? 1 : 0)];
}

const char *ap_wcache_how_name(enum ap_wcache_how how)
{
	return how == AP_WCACHE_SCSI ? "SCSI cache_type, a MODE SELECT"
				     : "emulated drive: its model and the loop device's write_cache";
}

/* /sys/block/@disk/device/scsi_disk/H:C:T:L/cache_type, or NULL. */
static char *scsi_cache_type(const char *disk)
{
	char *dir, *attr = NULL;
	struct dirent *de;
	DIR *d;

	ap_xasprintf(&dir, "/sys/block/%s/device/scsi_disk", disk);
	d = opendir(dir);
	while (d && !attr && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		ap_xasprintf(&attr, "%s/%s/cache_type", dir, de->d_name);
	}
	if (d)
		closedir(d);
	free(dir);
	return attr;
}

int ap_wcache_find(const char *disk, bool queue, struct ap_wcache *w, struct ap_error *e)
{
	char *v;
	int rc;

	memset(w, 0, sizeof(*w));
	if (!disk)
		return ap_error_set(e, ENODEV, "no disk under it whose write cache could be switched");
	if (queue) {
		w->how = AP_WCACHE_QUEUE;
		ap_xasprintf(&w->attr, "/sys/block/%s/queue/write_cache", disk);
	} else {
		w->how = AP_WCACHE_SCSI;
		w->attr = scsi_cache_type(disk);
		if (!w->attr)
			return ap_error_set(e, ENODEV,
					    "%s: the kernel offers no way to switch its write cache "
					    "(only SCSI disks' cache_type and the emulated drive can be switched)",
					    disk);
	}
	v = ap_read_line(w->attr);
	if (!v) {
		rc = ap_error_set(e, errno ? errno : ENODEV, "%s: cannot read: %s", w->attr,
				  strerror(errno ? errno : ENODEV));
		ap_wcache_free(w);
		return rc;
	}
	if (ap_wcache_value_parse(v, &w->orig_on, &w->rcd) < 0) {
		rc = ap_error_set(e, ENODEV, "%s: unknown write cache state '%s'", w->attr, v);
		free(v);
		ap_wcache_free(w);
		return rc;
	}
	w->orig = v;
	w->disk = ap_xstrdup(disk);
	return 0;
}

int ap_wcache_write(const char *attr, const char *value, struct ap_error *e)
{
	int rc = ap_sysfs_write(attr, value);

	if (rc < 0)
		return ap_error_set(e, -rc, "%s: cannot write \"%s\": %s", attr, value,
				    strerror(-rc));
	return 0;
}

int ap_wcache_set(const struct ap_wcache *w, bool on, struct ap_error *e)
{
	const char *val = ap_wcache_value(w->how, on, w->rcd);
	bool wce, rcd;
	char *now;
	int rc;

	rc = ap_wcache_write(w->attr, val, e);
	if (rc < 0 || w->how != AP_WCACHE_SCSI)
		return rc;
	/* the sd driver revalidated the disk: what the drive says now */
	now = ap_read_line(w->attr);
	if (!now || ap_wcache_value_parse(now, &wce, &rcd) < 0 || wce != on)
		rc = ap_error_set(e, EIO, "%s: the drive did not switch its write cache %s (it says \"%s\")",
				  w->disk, on ? "on" : "off", now ? now : "?");
	free(now);
	return rc;
}

void ap_wcache_free(struct ap_wcache *w)
{
	free(w->disk);
	free(w->attr);
	free(w->orig);
	memset(w, 0, sizeof(*w));
}

char *ap_wcache_record_aux(int model, const char *backing, const char *orig)
{
	char *s;

	ap_xasprintf(&s, "model=%s;orig=%s;backing=%s",
		     model < 0 ? "-" : model ? "on" : "off", orig, backing ? backing : "");
	return s;
}

/* "key=" at @p: the value up to ';' (or the end with @last), *next after it. */
static char *record_field(const char *p, const char *key, bool last, const char **next)
{
	size_t n = strlen(key), len;

	if (strncmp(p, key, n) != 0 || p[n] != '=')
		return NULL;
	p += n + 1;
	len = last ? strlen(p) : strcspn(p, ";");
	if (!last && p[len] != ';')
		return NULL;
	*next = p + len + (last ? 0 : 1);
	return strndup(p, len);
}

int ap_wcache_record_parse(const char *aux, int *model, char **backing, char **orig)
{
	char *m = NULL, *b = NULL, *o = NULL;
	const char *p = aux;

	if (!aux || strchr(aux, '\n'))
		return -EINVAL;
	if (!(m = record_field(p, "model", false, &p)) || !(o = record_field(p, "orig", false, &p)) ||
	    !(b = record_field(p, "backing", true, &p)) || !*o ||
	    (strcmp(m, "on") && strcmp(m, "off") && strcmp(m, "-"))) {
		free(m);
		free(b);
		free(o);
		return -EINVAL;
	}
	*model = !strcmp(m, "-") ? -1 : !strcmp(m, "on");
	free(m);
	if (!*b) {
		free(b);
		b = NULL;
	}
	*backing = b;
	*orig = o;
	return 0;
}
