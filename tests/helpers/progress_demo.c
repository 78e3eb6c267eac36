// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Drives the progress line for tests/ts/output/progress.sh, which runs it
 * in a terminal (tmux) and on pipes:
 *
 *	progress_demo [-q] STEPS STEP_MS
 *
 * prints "demo task: i of STEPS, item i, ETA ..." on stderr while it works
 * and "done STEPS" on stdout at the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ui/progress.h"

int main(int argc, char **argv)
{
	struct ap_progress p;
	struct timespec ts;
	unsigned long steps, ms, i;
	bool quiet = false;
	char detail[32];

	if (argc > 1 && strcmp(argv[1], "-q") == 0) {
		quiet = true;
		argc--;
		argv++;
	}
	if (argc != 3) {
		fputs("usage: progress_demo [-q] STEPS STEP_MS\n", stderr);
		return 2;
	}
	steps = strtoul(argv[1], NULL, 10);
	ms = strtoul(argv[2], NULL, 10);
	ts.tv_sec = (time_t)(ms / 1000);
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	ap_progress_init(&p, "demo task", steps, quiet);
	for (i = 0; i <= steps; i++) {
		snprintf(detail, sizeof(detail), "item %lu", i);
		ap_progress_update(&p, i, detail);
		if (i < steps)
			nanosleep(&ts, NULL);
	}
	ap_progress_clear(&p);
	printf("done %lu\n", steps);
	return 0;
}
