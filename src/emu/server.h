/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The emulated drive's FUSE server as attach.c starts and talks to it. Not
 * an API for other areas.
 */
#ifndef AP_EMU_SERVER_H
#define AP_EMU_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "emu/emu.h"
#include "emu/emuP.h"
#include "lib/util.h"

/* The server is a process of its own that gets all it needs from here. */
struct ap_emu_server_opts {
	const struct ap_emu_spec *spec;
	const char *workdir;
	struct ap_emu_shm *shm;		/* the stats page, mapped shared */
	pid_t owner;			/* the attaching process */
	/*
	 * Take down the drive in @workdir with every loop device still
	 * attached to it: run by the server's teardown helper when the owner
	 * is gone without detaching, or on a signal.
	 */
	int (*teardown)(const char *workdir, struct ap_error *e);
};

/*
 * Fork the server (a daemon holding nothing of the caller's, its stderr in
 * @workdir/log) and wait until it has mounted @workdir/mnt: 0 with the
 * control socket in @ctl and its replies in @st; or -errno with the reason
 * in @e, the descriptors closed and @pid > 0 when a server was forked (then
 * take the drive down).
 *
 * The protocol: @ctl carries "dev /dev/loopN" lines (the server registers
 * the emulated drive in the state registry, owned by @owner, with its own
 * PID as aux, and answers "ok"), "done", and "persist" (the drive outlives
 * @owner: the server makes itself the owner and answers "ok"); an error is
 * answered "error ERRNO MESSAGE". EOF before "done" means the attaching
 * process died, and the server exits; EOF after "done" without "persist",
 * that it died without detaching, and the server takes the drive down
 * (which fails while something still holds the loop device: then it serves
 * on, and cleanup takes the drive down later). SIGTERM/SIGINT/SIGHUP start
 * the same teardown; a second one ends the server.
 */
int ap_emu_server_start(const struct ap_emu_server_opts *o, pid_t *pid, int *ctl, int *st,
			struct ap_error *e);
/*
 * The server itself, in the forked child: mount @workdir/mnt, tell the
 * parent "ready" (or "error ERRNO MESSAGE") on @status_fd, then serve
 * until SIGTERM/SIGINT/SIGHUP, unmount and return an exit code.
 */
int ap_emu_server_run(const struct ap_emu_server_opts *o, int ctl_fd, int status_fd);
/* Send a control line to the server: 0, or -errno (-EPIPE when it died). */
int ap_emu_server_send(int fd, const char *s);
/* The server's next reply: 0 for @want, else the error it names, in @e. */
int ap_emu_server_reply(int st, const char *want, struct ap_error *e);

/* The server's end: its state of the protocol, an answer line, the lines read. */
struct ap_emu_ctl_state {
	pid_t owner;		/* the attaching process */
	char *state_id;		/* our registry entry */
	char *dev;		/* the loop device, once known */
	bool done;		/* the attach completed */
	bool persist;		/* run on after the attaching process exits */
	char buf[1024];		/* control lines read so far */
	size_t used;
};
void ap_emu_server_status(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Control lines from the attaching process on @ctl, answered on @st; false on EOF. */
bool ap_emu_server_control(int ctl, int st, const char *mnt, struct ap_emu_ctl_state *cs);

#endif
