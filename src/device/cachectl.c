// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The write cache of a disk under an experiment (see cachectl.h): found,
 * recorded, switched, restored. On the emulated drive both halves switch
 * together: the drive's cache model (through its stats page) and the loop
 * device's queue/write_cache (whether the kernel sends flushes), in the
 * order that never leaves a cache on without flushes reaching it: on, the
 * loop device first (the kernel sends flushes before the model keeps
 * anything); off, the model first (nothing is kept when the flushes stop).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "device/cachectl.h"
#include "device/cache.h"
#include "lib/state.h"
#include "lib/sysfs.h"
#include "lib/util.h"

int ap_cachectl_find(struct ap_cachectl *c, const char *disk, const struct ap_cache_model *mops,
		     struct ap_error *e)
{
	bool on;
	int rc;

	memset(c, 0, sizeof(*c));
	c->model = -1;
	c->mops = mops;
	if (!disk)
		return ap_error_set(e, ENODEV, "no disk whose write cache could be switched");
	ap_xasprintf(&c->dev, "/dev/%s", disk);
	if (mops && mops->is_model(c->dev) && mops->get(c->dev, &on) == 0) {
		c->model = on;
		c->backing = ap_sysfs_loop_backing_file(disk, true);
	}
	rc = ap_wcache_find(disk, c->model >= 0, &c->w, e);
	if (rc < 0) {
		ap_cachectl_free(c);
		return rc;
	}
	return 0;
}

bool ap_cachectl_orig_on(const struct ap_cachectl *c)
{
	return c->model >= 0 ? c->model == 1 : c->w.orig_on;
}

int ap_cachectl_adopt(struct ap_cachectl *c, struct ap_error *e)
{
	struct ap_state_entry *v = NULL;
	size_t n = 0, i;
	const struct ap_cache_model *mops;
	int rc = 0, adopted = 0;
	char *disk;

	if (ap_state_list(&v, &n) != 0)
		return 0;
	for (i = 0; !rc && i < n; i++) {
		if (v[i].kind != AP_STATE_WCACHE || !v[i].dev || strcmp(v[i].dev, c->dev) != 0 ||
		    !ap_state_is_stale(&v[i]))
			continue;
		/* restored before it is dropped: a SIGKILL in between loses nothing */
		rc = ap_cachectl_restore_record(v[i].path, v[i].dev, v[i].aux, c->mops, e);
		if (rc >= 0) {
			ap_state_release(v[i].file);
			adopted++;
			rc = 0;
		}
	}
	ap_state_free(v, n);
	if (rc < 0)
		return rc;
	if (!adopted)
		return 0;
	/* what the drive says now is its original state */
	disk = ap_xstrdup(c->w.disk);
	mops = c->mops;
	ap_cachectl_free(c);
	rc = ap_cachectl_find(c, disk, mops, e);
	free(disk);
	return rc < 0 ? rc : adopted;
}

int ap_cachectl_find_dev(struct ap_cachectl *c, const char *dev,
			 const struct ap_cache_model *mops, struct ap_error *e)
{
	struct stat st;
	char *disk;
	int rc;

	if (stat(dev, &st) != 0 || !S_ISBLK(st.st_mode))
		return ap_error_set(e, ENOTBLK, "%s: --write-cache switches a disk's write cache: "
				    "give a disk, not a regular file", dev);
	disk = ap_sysfs_wholedisk_name(st.st_rdev);
	rc = ap_cachectl_find(c, disk, mops, e);
	free(disk);
	return rc;
}

int ap_cachectl_record(struct ap_cachectl *c, struct ap_error *e)
{
	char *aux = ap_wcache_record_aux(c->model, c->backing, c->w.orig);
	int rc = ap_state_register(AP_STATE_WCACHE, c->w.attr, c->dev, aux, &c->state_id);

	free(aux);
	if (rc < 0)
		return ap_error_set(e, -rc, "cannot record the write cache state in %s: %s",
				    ap_state_dir(), strerror(-rc));
	return 0;
}

static int set_model(const struct ap_cache_model *mops, const char *dev, bool on,
		     struct ap_error *e)
{
	int rc = mops ? mops->set(dev, on) : -ENOTSUP;

	if (rc < 0)
		return ap_error_set(e, -rc, "%s: cannot switch the emulated drive's write cache: %s",
				    dev, strerror(-rc));
	return 0;
}

int ap_cachectl_set(void *arg, bool on, struct ap_error *e)
{
	struct ap_cachectl *c = arg;
	int rc = 0;

	c->touched = true;
	if (c->model >= 0 && !on)
		rc = set_model(c->mops, c->dev, false, e);
	if (!rc)
		rc = ap_wcache_set(&c->w, on, e);
	if (!rc && c->model >= 0 && on)
		rc = set_model(c->mops, c->dev, true, e);
	return rc;
}

/*
 * Write @orig back to @attr; an emulated drive's model (@model 1: was on, 0:
 * was off, -1: none) is switched off before the loop device and on after.
 */
static int restore_value(const struct ap_cache_model *mops, const char *dev, int model,
			 const char *attr, const char *orig, struct ap_error *e)
{
	int rc = 0;

	if (model == 0)
		rc = set_model(mops, dev, false, e);
	if (!rc)
		rc = ap_wcache_write(attr, orig, e);
	if (!rc && model == 1)
		rc = set_model(mops, dev, true, e);
	return rc;
}

int ap_cachectl_restore(struct ap_cachectl *c, struct ap_error *e)
{
	if (c->touched) {
		int rc = restore_value(c->mops, c->dev, c->model, c->w.attr, c->w.orig, e);

		if (rc)
			return rc;	/* the record stays: cleanup tries again */
	}
	c->touched = false;
	if (c->state_id) {
		ap_state_release(c->state_id);
		free(c->state_id);
		c->state_id = NULL;
	}
	return 0;
}

void ap_cachectl_free(struct ap_cachectl *c)
{
	ap_wcache_free(&c->w);
	free(c->dev);
	free(c->backing);
	free(c->state_id);
	memset(c, 0, sizeof(*c));
	c->model = -1;
}

/* The emulated drive of the record still on @dev? */
static bool same_drive(const struct ap_cache_model *mops, const char *dev, const char *backing)
{
	const char *name = strrchr(dev, '/');
	char *now;
	bool same;

	if (!backing || !mops)
		return false;
	now = ap_sysfs_loop_backing_file(name ? name + 1 : dev, true);
	same = now && strcmp(now, backing) == 0 && mops->is_model(dev);
	free(now);
	return same;
}

int ap_cachectl_restore_record(const char *attr, const char *dev, const char *aux,
			       const struct ap_cache_model *mops, struct ap_error *e)
{
	char *backing = NULL, *orig = NULL;
	int model, rc;

	if (!attr || !*attr || !dev || ap_wcache_record_parse(aux, &model, &backing, &orig) < 0)
		return ap_error_set(e, EINVAL, "registry entry without a usable write cache record");
	if ((model >= 0 && !same_drive(mops, dev, backing)) || access(attr, F_OK) != 0)
		rc = 1;		/* the drive (or the disk) is gone: nothing to restore */
	else
		rc = restore_value(mops, dev, model, attr, orig, e);
	free(backing);
	free(orig);
	return rc;
}
