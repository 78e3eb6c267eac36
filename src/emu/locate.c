// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Finding the emulated drive behind a device (a loop device or one of its
 * partitions: its backing file "<workdir>/mnt/disk" leads to the work
 * directory and its stats page) and the public entry points that act on a
 * running drive through that page alone: counters, the write cache, the
 * power, the spec. None of them sends a request to the drive.
 */
#include "emu/emu.h"
#include "emu/model.h"
#include "emu/emuP.h"
#include "lib/sysfs.h"
#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

int ap_emu_disk_name(const char *dev, char *name, size_t sz)
{
	struct stat st;
	char *whole;

	if (stat(dev, &st) != 0)
		return -errno;
	if (!S_ISBLK(st.st_mode))
		return -ENOTBLK;
	whole = ap_sysfs_wholedisk_name(st.st_rdev);
	if (!whole)
		return -ENOENT;
	snprintf(name, sz, "%s", whole);
	free(whole);
	return strncmp(name, "loop", 4) == 0 ? 0 : -ENOENT;
}

char *ap_emu_workdir_of_loop(const char *name)
{
	char *back = ap_sysfs_loop_backing_file(name, false), *slash;
	struct ap_emu_shm *shm;
	size_t n, suffix = strlen("/mnt/" AP_EMU_FILE);

	if (!back)
		return NULL;
	n = strlen(back);
	if (n <= suffix || strcmp(back + n - suffix, "/mnt/" AP_EMU_FILE) != 0) {
		free(back);
		return NULL;
	}
	back[n - suffix] = '\0';
	slash = strrchr(back, '/');
	if (!slash || strncmp(slash + 1, "alignprobe-emu.", 15) != 0) {
		free(back);
		return NULL;
	}
	shm = ap_emu_shm_map(back, false);
	if (!shm) {
		free(back);
		return NULL;
	}
	munmap(shm, sizeof(*shm));
	return back;
}

bool ap_emu_loop_serves(const char *name, const char *workdir)
{
	const char *slash = strrchr(name, '/');
	char *wd = ap_emu_workdir_of_loop(slash ? slash + 1 : name);
	bool ours = wd && strcmp(wd, workdir) == 0;

	free(wd);
	return ours;
}

bool ap_emu_is_emulated(const char *dev)
{
	char name[64], *wd;

	if (!dev || ap_emu_disk_name(dev, name, sizeof(name)) != 0)
		return false;
	wd = ap_emu_workdir_of_loop(name);
	free(wd);
	return wd != NULL;
}

struct ap_emu_shm *ap_emu_shm_of_dev(const char *dev, bool rw)
{
	char name[64], *wd;
	struct ap_emu_shm *shm;

	if (!dev || ap_emu_disk_name(dev, name, sizeof(name)) != 0)
		return NULL;
	wd = ap_emu_workdir_of_loop(name);
	if (!wd)
		return NULL;
	shm = ap_emu_shm_map(wd, rw);
	free(wd);
	return shm;
}

int ap_emu_counters_read(const char *dev, struct ap_emu_counters *c)
{
	struct ap_emu_shm *shm = ap_emu_shm_of_dev(dev, false);
	struct ap_emu_counters_raw r;

	if (!shm)
		return -ENODEV;
	ap_emu_shm_read(shm, &r);
#define COPY(field, col, type, help) c->field = r.field;
	AP_EMU_COUNTERS(COPY)
#undef COPY
	c->powered = !ap_emu_shm_power_off(shm);
	munmap(shm, sizeof(*shm));
	return 0;
}

int ap_emu_counters_reset(const char *dev)
{
	struct ap_emu_shm *shm = ap_emu_shm_of_dev(dev, true);

	if (!shm)
		return -ENODEV;
	ap_emu_shm_reset(shm);
	munmap(shm, sizeof(*shm));
	return 0;
}

int ap_emu_write_cache(const char *dev, bool *on)
{
	struct ap_emu_shm *shm = ap_emu_shm_of_dev(dev, false);

	if (!shm)
		return -ENODEV;
	*on = ap_emu_shm_write_cache(shm);
	munmap(shm, sizeof(*shm));
	return 0;
}

int ap_emu_set_write_cache(const char *dev, bool on)
{
	struct ap_emu_shm *shm = ap_emu_shm_of_dev(dev, true);

	if (!shm)
		return -ENODEV;
	ap_emu_shm_set_write_cache(shm, on);
	munmap(shm, sizeof(*shm));
	return 0;
}

/* Extra information for `emulate --stats`: the parameters in force. */
int ap_emu_power(const char *dev, bool on, struct ap_error *e)
{
	struct ap_emu_shm *shm = ap_emu_shm_of_dev(dev, true);
	int rc;

	if (!shm)
		return ap_error_set(e, ENODEV, "not an emulated drive");
	rc = ap_emu_shm_power(shm, on, 10000);
	munmap(shm, sizeof(*shm));
	if (rc == -ESRCH)
		return ap_error_set(e, ESRCH, "the emulated drive's server is gone");
	if (rc)
		return ap_error_set(e, -rc, "the emulated drive's server does not follow: %s",
				    strerror(-rc));
	return 0;
}

int ap_emu_arm_power_cut(const char *dev, uint64_t n)
{
	struct ap_emu_shm *shm = ap_emu_shm_of_dev(dev, true);

	if (!shm)
		return -ENODEV;
	ap_emu_shm_arm_cut(shm, n);
	munmap(shm, sizeof(*shm));
	return 0;
}

int ap_emu_set_host_busy(const char *dev, uint64_t ns)
{
	struct ap_emu_shm *shm = ap_emu_shm_of_dev(dev, true);

	if (!shm)
		return -ENODEV;
	ap_emu_shm_set_host_busy(shm, ns);
	munmap(shm, sizeof(*shm));
	return 0;
}

int ap_emu_spec_of(const char *dev, struct ap_emu_spec *s)
{
	struct ap_emu_shm *shm = ap_emu_shm_of_dev(dev, false);

	if (!shm)
		return -ENODEV;
	ap_emu_spec_init(s);
	s->capacity = shm->capacity;
	s->capacity_set = true;
	s->rmw_ns = shm->rmw_ns;
	s->base_ns = shm->base_ns;
	s->flush_ns = shm->flush_ns;
	s->seed = shm->seed;
	s->jitter = shm->jitter;
	s->phys_sector = shm->phys_sector;
	s->lowest_aligned = shm->lowest_aligned;
	s->write_cache = shm->write_cache;
	s->fail_lba = shm->fail_lba;
	s->fail_count = shm->fail_count;
	s->fail_after = shm->fail_after;
	s->fail_reads = shm->fail_reads;
	s->fail_writes = shm->fail_writes;
	/* the rest (profile, model, logical sector) from the full spec string */
	if (shm->spec[0] && memchr(shm->spec, '\0', sizeof(shm->spec)))
		ap_emu_spec_parse(shm->spec, s, NULL);
	s->write_cache = ap_emu_shm_write_cache(shm);	/* switched since (seq --write-cache) */
	munmap(shm, sizeof(*shm));
	return 0;
}
