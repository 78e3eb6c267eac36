// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The emulator's control protocol (see server.h), both ends. The attaching
 * process's: a command line sent on the control socket, and the server's
 * one-line answer ("ok", "ready", or "error ERRNO message") read back
 * within a time limit, so that a dead or hung server is an error, never a
 * hang. The server's: the lines it reads and the answers it writes.
 * (attach.c forks the server; server.c runs it.)
 */
#include "emu/server.h"
#include "lib/state.h"
#include "lib/util.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int ap_emu_server_send(int fd, const char *s)
{
	size_t len = strlen(s);

	/* a socket, so that a dead server means EPIPE, not SIGPIPE */
	while (send(fd, s, len, MSG_NOSIGNAL) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	return 0;
}

/* One line from the server, within @ms milliseconds. */
static int read_line(int fd, char *buf, size_t sz, int ms)
{
	size_t n = 0;

	while (n + 1 < sz) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r;
		int pr = poll(&p, 1, ms);

		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			return pr == 0 ? -ETIMEDOUT : -errno;
		r = read(fd, buf + n, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r == 0 ? -EPIPE : -errno;
		if (buf[n] == '\n')
			break;
		n++;
	}
	buf[n] = '\0';
	return 0;
}

int ap_emu_server_reply(int st, const char *want, struct ap_error *e)
{
	char line[600];
	int rc = read_line(st, line, sizeof(line), 10000), err;
	char *msg;

	if (rc == -ETIMEDOUT)
		return ap_error_set(e, ETIMEDOUT, "the emulator's server does not answer");
	if (rc)
		return ap_error_set(e, EIO, "the emulator's server died (see its log)");
	if (strcmp(line, want) == 0)
		return 0;
	err = (int)strtol(line + (strncmp(line, "error ", 6) == 0 ? 6 : 0), &msg, 10);
	if (err <= 0)
		err = EIO;
	return ap_error_set(e, err, "%s: %s", *msg ? msg + 1 : line, strerror(err));
}

/* ---- the server's end ---- */

void ap_emu_server_status(int fd, const char *fmt, ...)
{
	char line[600];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	while (write(fd, line, (size_t)n) < 0 && errno == EINTR)
		;
}


static void control_line(const char *line, int st, const char *mnt, struct ap_emu_ctl_state *cs)
{
	if (strncmp(line, "dev ", 4) == 0) {
		char pid[32];
		int rc;

		if (cs->state_id) {
			ap_state_release(cs->state_id);
			free(cs->state_id);
			cs->state_id = NULL;
		}
		free(cs->dev);
		cs->dev = ap_xstrdup(line + 4);
		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		/* the drive is the attaching process's: cleanup's once it is gone */
		rc = ap_state_register_for(cs->owner, AP_STATE_EMU, mnt, line + 4, pid,
					   &cs->state_id);
		if (rc)
			ap_emu_server_status(st, "error %d cannot register in %s", -rc, ap_state_dir());
		else
			ap_emu_server_status(st, "ok");
	} else if (strcmp(line, "done") == 0) {
		cs->done = true;
	} else if (strcmp(line, "persist") == 0) {
		/* handed over (emulate --attach): nobody's but ours now */
		int rc = cs->state_id ? ap_state_set_owner(cs->state_id, getpid()) : -ENOENT;

		if (rc) {
			ap_emu_server_status(st, "error %d cannot hand the drive over in %s", -rc, ap_state_dir());
		} else {
			cs->persist = true;
			ap_emu_server_status(st, "ok");
		}
	}
}

/* Control messages (lines) from the attaching process; false on EOF. */
bool ap_emu_server_control(int ctl, int st, const char *mnt, struct ap_emu_ctl_state *cs)
{
	char *nl, *p;
	ssize_t n;

	do
		n = read(ctl, cs->buf + cs->used, sizeof(cs->buf) - 1 - cs->used);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return false;
	cs->used += (size_t)n;
	cs->buf[cs->used] = '\0';
	p = cs->buf;
	while ((nl = strchr(p, '\n'))) {
		*nl = '\0';
		control_line(p, st, mnt, cs);
		p = nl + 1;
	}
	cs->used = strlen(p);
	memmove(cs->buf, p, cs->used + 1);
	if (cs->used == sizeof(cs->buf) - 1)
		cs->used = 0;	/* no line is this long: drop it */
	return true;
}
