/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A single updating progress line on stderr when it is a terminal
 * ("sweep: start 12 of 31, round 2 of 3, ETA 1m40s"); silent on pipes and
 * with --quiet. Never part of the results.
 *
 * For programs that drive alignprobe (and its tests, which wait for a
 * state instead of a time): with ALIGNPROBE_PROGRESS_FD=N, every update is
 * also written to the open descriptor N as one line, "what: done[ of
 * total][, detail]", unthrottled and without an ETA, --quiet or not; after
 * the terminal's line, so that a reader knows the terminal has that one.
 */
#ifndef AP_PROGRESS_H
#define AP_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ap_progress {
	bool enabled;		/* stderr is a TTY and not --quiet */
	const char *what;	/* "sweep /dev/sdb" */
	uint64_t total;		/* steps expected, 0 if unknown */
	uint64_t done;
	uint64_t t0_ns;
	uint64_t last_ns;	/* rate limit: at most 10 updates a second */
	int width;		/* of the last line, to blank it */
	int fd;			/* ALIGNPROBE_PROGRESS_FD, or -1 */
};

void ap_progress_init(struct ap_progress *p, const char *what, uint64_t total, bool quiet);
/* Advance to @done steps; @detail is printed after the counter (may be NULL). */
void ap_progress_update(struct ap_progress *p, uint64_t done, const char *detail);
/* The same at the ap_now_ns() time @now_ns (for tests of the rate limit). */
void ap_progress_update_at(struct ap_progress *p, uint64_t done, const char *detail,
			   uint64_t now_ns);
/* Erase the line (call before printing results or errors). */
void ap_progress_clear(struct ap_progress *p);


/*
 * The line ap_progress_update() prints at time @now_ns (pure, for tests):
 * "what: 3 of 10, detail, ETA 1m05s". The ETA extrapolates the elapsed
 * time linearly and appears once at least one step is done and until the
 * last; it needs at least a second of history. Returns the length.
 */
int ap_progress_format_line(const struct ap_progress *p, uint64_t done, const char *detail,
			    uint64_t now_ns, char *buf, size_t len);

#endif
