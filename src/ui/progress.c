// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One progress line on stderr, rewritten in place with '\r' and padded
 * with blanks over the previous one; cut to the terminal's width so that
 * it never wraps (a wrapped line cannot be rewritten). Disabled when
 * stderr is not a terminal or with --quiet, so pipes and logs never see it.
 */
#include "lib/util.h"
#include "ui/progress.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* ALIGNPROBE_PROGRESS_FD: an open descriptor above stderr, or -1. */
static int progress_fd(void)
{
	const char *v = getenv("ALIGNPROBE_PROGRESS_FD");
	char *end;
	long fd;

	if (!v || !*v)
		return -1;
	errno = 0;
	fd = strtol(v, &end, 10);
	if (errno || *end || fd <= STDERR_FILENO || fd > 1024 * 1024 || fcntl((int)fd, F_GETFD) < 0)
		return -1;
	return (int)fd;
}

void ap_progress_init(struct ap_progress *p, const char *what, uint64_t total, bool quiet)
{
	memset(p, 0, sizeof(*p));
	p->enabled = !quiet && isatty(STDERR_FILENO);
	p->what = what;
	p->total = total;
	p->t0_ns = ap_now_ns();
	p->fd = progress_fd();
}

/* One line on ALIGNPROBE_PROGRESS_FD: no ETA, nothing left out. */
static void progress_fd_line(const struct ap_progress *p, uint64_t done, const char *detail)
{
	char line[320];
	int n;

	n = ap_progress_format_line(p, done, detail, p->t0_ns, line, sizeof(line) - 1);
	line[n++] = '\n';
	/* one write(2): the reader never sees half a line */
	while (write(p->fd, line, (size_t)n) < 0 && errno == EINTR)
		;
}

int ap_progress_format_line(const struct ap_progress *p, uint64_t done, const char *detail,
			    uint64_t now_ns, char *buf, size_t len)
{
	const char *what = p->what ? p->what : "";
	const char *sep = detail && *detail ? ", " : "";
	char eta[40] = "";
	int n;

	if (!detail)
		detail = "";
	if (p->total && done && done < p->total && now_ns > p->t0_ns &&
	    now_ns - p->t0_ns >= AP_NSEC_PER_SEC) {
		double el = (double)(now_ns - p->t0_ns);
		double left = el * (double)(p->total - done) / (double)done;
		char t[24];

		ap_format_duration(left >= 1.8e19 ? UINT64_MAX : (uint64_t)left, t, sizeof(t));
		snprintf(eta, sizeof(eta), ", ETA %s", t);
	}
	if (p->total)
		n = snprintf(buf, len, "%s: %llu of %llu%s%s%s", what, (unsigned long long)done,
			     (unsigned long long)p->total, sep, detail, eta);
	else
		n = snprintf(buf, len, "%s: %llu%s%s%s", what, (unsigned long long)done, sep, detail,
			     eta);
	if (n < 0) {
		if (len)
			buf[0] = '\0';
		return 0;
	}
	return n >= (int)len ? (int)len - 1 : n;
}

/* Columns of the terminal on stderr; 80 when it does not say. */
static int term_width(void)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 80;
}

void ap_progress_update(struct ap_progress *p, uint64_t done, const char *detail)
{
	ap_progress_update_at(p, done, detail, ap_now_ns());
}

/* The line on the terminal, at most ten times a second but always the last step. */
static void progress_tty_line(struct ap_progress *p, uint64_t done, const char *detail,
			      uint64_t now)
{
	char line[256];
	int n, cols;

	if (p->last_ns && now - p->last_ns < AP_NSEC_PER_SEC / 10 &&
	    !(p->total && done >= p->total))
		return;
	p->last_ns = now;
	n = ap_progress_format_line(p, done, detail, now, line, sizeof(line));
	cols = term_width() - 1;	/* the last column would wrap on some terminals */
	if (n > cols) {
		n = cols > 0 ? cols : 0;
		/* do not cut a UTF-8 sequence in half */
		while (n > 0 && ((unsigned char)line[n] & 0xc0) == 0x80)
			n--;
	}
	fprintf(stderr, "\r%.*s%*s", n, line, p->width > n ? p->width - n : 0, "");
	if (p->width > n)	/* back over the blanks, the cursor stays at the text */
		fprintf(stderr, "\r%.*s", n, line);
	fflush(stderr);
	p->width = n;
}

void ap_progress_update_at(struct ap_progress *p, uint64_t done, const char *detail,
			   uint64_t now)
{
	p->done = done;
	if (p->enabled)
		progress_tty_line(p, done, detail, now);
	/* after the terminal: a reader of the line knows the terminal has it */
	if (p->fd >= 0)
		progress_fd_line(p, done, detail);
}

void ap_progress_clear(struct ap_progress *p)
{
	if (p->enabled && p->width) {
		fprintf(stderr, "\r%*s\r", p->width, "");
		fflush(stderr);
	}
	p->width = 0;
	p->last_ns = 0;
}
