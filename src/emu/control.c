// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The attaching process's end of the emulator's control protocol (see
 * server.h): a command line sent on the control socket, and the server's
 * one-line answer ("ok", "ready", or "error ERRNO message") read back
 * within a time limit, so that a dead or hung server is an error, never a
 * hang.
 */
#include "emu/server.h"
#include "lib/util.h"

#include <errno.h>
#include <poll.h>
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
