/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The registry of what a run has set up and must take down: temporary mount
 * points, mounts, emulated drives. One small file per resource in the state
 * directory (/run/alignprobe, or $ALIGNPROBE_STATE_DIR), naming its owner:
 * the process whose death leaves the resource to `alignprobe cleanup`. So
 * cleanup removes what a SIGKILL or a power cut left behind without touching
 * what a live run still uses.
 *
 * The owner is recorded with its start time and the boot it ran in, so that
 * a PID reused by an unrelated process (or after a reboot) does not keep a
 * dead run's resources "in use" forever.
 */
#ifndef AP_STATE_H
#define AP_STATE_H

#include <stdbool.h>
#include <sys/types.h>

enum ap_state_kind {
	AP_STATE_MOUNT,		/* path = mount point (a directory we created) */
	AP_STATE_TMPDIR,	/* path = directory we created */
	/*
	 * path = FUSE mount point, dev = loop device, aux = server pid. The
	 * owner is the process that attached the drive (sweep --emulate,
	 * emulate --attach --wait, ...); once `emulate --attach` handed it
	 * over, the server itself (owner == aux): a drive nobody runs with.
	 */
	AP_STATE_EMU,
	AP_STATE_LOOP,		/* dev = loop device we attached, path = backing file */
	AP_STATE_JOURNAL,	/* path = probe undo journal, dev = device it restores */
	/*
	 * A write cache switched for a run (seq --write-cache): path = the
	 * sysfs attribute written, dev = the device, aux = the original state
	 * (device/cache.h: ap_wcache_record_aux()). Registered before the
	 * switch, released after the restore; cleanup restores it.
	 */
	AP_STATE_WCACHE,
	/*
	 * A disk a live run works on (device/safety.h: ap_safety_hold()):
	 * dev = the device, aux = "MAJ:MIN COMMAND". The gate refuses the disk
	 * while the owner runs; it holds no resource, so cleanup only removes
	 * a dead run's entry.
	 */
	AP_STATE_HOLD,
	AP_STATE_UNKNOWN,	/* a registry file that cannot be read: file only */
};

struct ap_state_entry {
	char *file;		/* the registry file itself */
	enum ap_state_kind kind;
	pid_t owner;		/* the process whose resource it is (0: unknown) */
	unsigned long long owner_start;	/* its start time, clock ticks after boot (0: unknown) */
	char *boot;		/* the boot it was registered in, or NULL */
	char *path;
	char *dev;
	char *aux;
};

/* The state directory, created 0700 on first use. */
const char *ap_state_dir(void);

/*
 * Register a resource owned by this process. @id receives the registry file
 * name to pass to ap_state_release(). 0 or -errno.
 */
int ap_state_register(enum ap_state_kind kind, const char *path,
		      const char *dev, const char *aux, char **id);
/* The same for a resource that another running process @owner owns. */
int ap_state_register_for(pid_t owner, enum ap_state_kind kind, const char *path,
			  const char *dev, const char *aux, char **id);
/*
 * Make @owner the owner of entry @id, replacing the file atomically (never
 * a moment with none or two). 0 or -errno.
 */
int ap_state_set_owner(const char *id, pid_t owner);
int ap_state_release(const char *id);

/*
 * All entries (any owner); files that cannot be read come as
 * AP_STATE_UNKNOWN. The caller frees with ap_state_free().
 */
int ap_state_list(struct ap_state_entry **out, size_t *n);
void ap_state_free(struct ap_state_entry *e, size_t n);
/*
 * True when the owner no longer runs: no such process, a zombie, a process
 * that started at another time than the owner did (its PID was reused), or
 * an entry of an earlier boot. False for AP_STATE_UNKNOWN.
 */
bool ap_state_is_stale(const struct ap_state_entry *e);
/* True while process @pid runs (exists and is not a zombie). */
bool ap_state_pid_alive(pid_t pid);
const char *ap_state_kind_name(enum ap_state_kind kind);

/*
 * An AP_STATE_HOLD entry's device number and command (a pointer into
 * e->aux, "sweep"): 0, or -EINVAL for another kind or a malformed aux.
 */
int ap_state_hold_parse(const struct ap_state_entry *e, dev_t *d, const char **cmd);
/*
 * Is the block device @d held by a live run other than this process: a
 * hold on @d itself, on its whole disk, or on one of its partitions? 1 with
 * the owner in @pid and its command in @cmd (caller frees), else 0.
 */
int ap_state_live_hold(dev_t d, pid_t *pid, char **cmd);
/* The same for the block device at @path; 0 for anything else (a file, nothing). */
int ap_state_live_hold_path(const char *path, pid_t *pid, char **cmd);

#endif
