/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The registry of what a run has set up and must take down: temporary mount
 * points, mounts, emulated drives. One small file per resource in the state
 * directory (/run/alignprobe, or $ALIGNPROBE_STATE_DIR), naming the owner's
 * PID, so that `alignprobe cleanup` can remove what a SIGKILL or a power cut
 * left behind without touching what a live run still uses.
 */
#ifndef AP_STATE_H
#define AP_STATE_H

#include <stdbool.h>
#include <sys/types.h>

enum ap_state_kind {
	AP_STATE_MOUNT,		/* path = mount point (a directory we created) */
	AP_STATE_TMPDIR,	/* path = directory we created */
	AP_STATE_EMU,		/* path = FUSE mount point, dev = loop device, aux = server pid */
	AP_STATE_LOOP,		/* dev = loop device we attached, path = backing file */
	AP_STATE_JOURNAL,	/* path = probe undo journal, dev = device it restores */
};

struct ap_state_entry {
	char *file;		/* the registry file itself */
	enum ap_state_kind kind;
	pid_t owner;		/* process that registered it */
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
int ap_state_release(const char *id);

/* All entries (any owner). The caller frees with ap_state_free(). */
int ap_state_list(struct ap_state_entry **out, size_t *n);
void ap_state_free(struct ap_state_entry *e, size_t n);
/* True when the owner process no longer runs. */
bool ap_state_is_stale(const struct ap_state_entry *e);
const char *ap_state_kind_name(enum ap_state_kind kind);

#endif
