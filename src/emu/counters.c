// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The emulated drive's shared stats page (struct ap_emu_shm, emu/emuP.h):
 * created in the work directory before the server starts, mapped by the
 * server (which writes the counters), by ap_emu_counters_read/reset and by
 * teardown (which reads the server's pid). Readers and resetters take
 * consistent snapshots under the server's sequence lock and never send a
 * request to the drive. Built with and without the emulator (the unit tests
 * read a page of their own).
 */
#include "emu/emu.h"
#include "emu/model.h"
#include "emu/emuP.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void ap_emu_shm_read(const struct ap_emu_shm *shm, struct ap_emu_counters_raw *out)
{
	struct ap_emu_counters_raw live, base;
	const uint64_t *lp = (const uint64_t *)&shm->live, *bp = (const uint64_t *)&shm->base;
	uint64_t *l = (uint64_t *)&live, *b = (uint64_t *)&base, *o = (uint64_t *)out;
	uint64_t s1, s2;
	size_t i, n = sizeof(live) / sizeof(uint64_t);

	for (;;) {
		s1 = __atomic_load_n(&shm->seq, __ATOMIC_ACQUIRE);
		if (s1 & 1)
			continue;
		for (i = 0; i < n; i++)
			l[i] = __atomic_load_n(&lp[i], __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&shm->seq, __ATOMIC_RELAXED);
		if (s1 == s2)
			break;
	}
	for (i = 0; i < n; i++) {
		b[i] = __atomic_load_n(&bp[i], __ATOMIC_RELAXED);
		o[i] = l[i] >= b[i] ? l[i] - b[i] : 0;
	}
}

/* Count from zero again: store the live counters as the base. */
void ap_emu_shm_reset(struct ap_emu_shm *shm)
{
	struct ap_emu_counters_raw live;
	const uint64_t *lp;
	uint64_t *bp, *l = (uint64_t *)&live;
	uint64_t s1;
	size_t i, n = sizeof(live) / sizeof(uint64_t);

	lp = (const uint64_t *)&shm->live;
	bp = (uint64_t *)&shm->base;
	do {
		s1 = __atomic_load_n(&shm->seq, __ATOMIC_ACQUIRE);
		for (i = 0; i < n; i++)
			l[i] = __atomic_load_n(&lp[i], __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while ((s1 & 1) || s1 != __atomic_load_n(&shm->seq, __ATOMIC_RELAXED));
	for (i = 0; i < n; i++)
		__atomic_store_n(&bp[i], l[i], __ATOMIC_RELEASE);
}

bool ap_emu_shm_write_cache(const struct ap_emu_shm *shm)
{
	return __atomic_load_n(&shm->write_cache, __ATOMIC_ACQUIRE) != 0;
}

/* Switch the drive's write cache: the server follows at its next request. */
void ap_emu_shm_set_write_cache(struct ap_emu_shm *shm, bool on)
{
	__atomic_store_n(&shm->write_cache, on ? 1U : 0U, __ATOMIC_RELEASE);
}

bool ap_emu_shm_power_want_off(const struct ap_emu_shm *shm)
{
	return __atomic_load_n(&shm->power_want_off, __ATOMIC_ACQUIRE) != 0;
}

void ap_emu_shm_set_power(struct ap_emu_shm *shm, bool on)
{
	__atomic_store_n(&shm->power_want_off, on ? 0U : 1U, __ATOMIC_RELEASE);
}

bool ap_emu_shm_power_off(const struct ap_emu_shm *shm)
{
	return __atomic_load_n(&shm->power_off, __ATOMIC_ACQUIRE) != 0;
}

void ap_emu_shm_set_power_off(struct ap_emu_shm *shm, bool off)
{
	__atomic_store_n(&shm->power_off, off ? 1U : 0U, __ATOMIC_RELEASE);
}

uint64_t ap_emu_shm_host_busy(const struct ap_emu_shm *shm)
{
	return __atomic_load_n(&shm->host_busy_ns, __ATOMIC_ACQUIRE);
}

void ap_emu_shm_set_host_busy(struct ap_emu_shm *shm, uint64_t ns)
{
	__atomic_store_n(&shm->host_busy_ns, ns, __ATOMIC_RELEASE);
}

int ap_emu_shm_power(struct ap_emu_shm *shm, bool on, int ms)
{
	pid_t pid = (pid_t)__atomic_load_n(&shm->server_pid, __ATOMIC_ACQUIRE);
	uint64_t until = ap_now_ns() + (uint64_t)ms * 1000000;

	ap_emu_shm_set_power(shm, on);
	if (pid <= 0 || kill(pid, SIGUSR1) != 0)
		return -ESRCH;
	/* the server follows at once, or when the request it serves ends (also
	 * when it is off already: a peer that cuts us back finds us so) */
	while (ap_emu_shm_power_off(shm) == on) {
		struct timespec ts = { 0, 200000 };

		if (ap_now_ns() > until)
			return -ETIMEDOUT;
		if (kill(pid, 0) != 0 && errno == ESRCH)
			return -ESRCH;
		nanosleep(&ts, NULL);
	}
	return 0;
}

void ap_emu_shm_arm_cut(struct ap_emu_shm *shm, uint64_t n)
{
	struct ap_emu_counters_raw c;

	ap_emu_shm_read(shm, &c);
	__atomic_store_n(&shm->cut_at, c.writes + n + 1, __ATOMIC_RELEASE);
}

uint64_t ap_emu_shm_cut_at(const struct ap_emu_shm *shm)
{
	return __atomic_load_n(&shm->cut_at, __ATOMIC_ACQUIRE);
}

/* The stats page of the drive in @workdir, checked, or NULL. */
struct ap_emu_shm *ap_emu_shm_map(const char *workdir, bool rw)
{
	struct ap_emu_shm *shm;
	struct stat st;
	char *path;
	int fd;

	ap_xasprintf(&path, "%s/stats", workdir);
	fd = open(path, (rw ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(*shm)) {
		close(fd);
		return NULL;
	}
	shm = mmap(NULL, sizeof(*shm), PROT_READ | (rw ? PROT_WRITE : 0), MAP_SHARED, fd, 0);
	close(fd);
	if (shm == MAP_FAILED)
		return NULL;
	if (memcmp(shm->magic, AP_EMU_MAGIC, sizeof(AP_EMU_MAGIC)) != 0 ||
	    shm->size != sizeof(*shm)) {
		munmap(shm, sizeof(*shm));
		return NULL;
	}
	return shm;
}

struct ap_emu_shm *ap_emu_shm_create(const char *workdir, const struct ap_emu_spec *s,
				     struct ap_error *e)
{
	struct ap_emu_shm *shm;
	char *path;
	int fd;

	ap_xasprintf(&path, "%s/stats", workdir);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	free(path);
	if (fd < 0 || ftruncate(fd, sizeof(*shm)) != 0) {
		ap_error_set(e, errno, "cannot create the stats file in %s: %s", workdir,
			     strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (shm == MAP_FAILED) {
		ap_error_set(e, errno, "cannot map the stats file: %s", strerror(errno));
		return NULL;
	}
	shm->size = sizeof(*shm);
	shm->capacity = s->capacity;
	shm->rmw_ns = s->rmw_ns;
	shm->base_ns = s->base_ns;
	shm->flush_ns = s->flush_ns;
	shm->seed = s->seed;
	shm->fail_lba = s->fail_lba;
	shm->fail_count = s->fail_count;
	shm->fail_after = s->fail_after;
	shm->jitter = s->jitter;
	shm->phys_sector = s->phys_sector;
	shm->lowest_aligned = s->lowest_aligned;
	shm->write_cache = s->write_cache;
	shm->fail_reads = s->fail_reads;
	shm->fail_writes = s->fail_writes;
	shm->cut_at = s->cut_at;
	{
		char *spec = ap_emu_spec_format(s);

		snprintf(shm->spec, sizeof(shm->spec), "%s", spec);
		free(spec);
	}
	memcpy(shm->magic, AP_EMU_MAGIC, sizeof(AP_EMU_MAGIC));
	return shm;
}
