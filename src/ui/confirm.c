// SPDX-License-Identifier: GPL-2.0-or-later
/* The destructive run's confirmation prompt (see confirm.h). */
#include "ui/confirm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ap_ui_confirm(const char *dev, void *data, struct ap_error *e)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int rc;

	(void)data;
	if (!isatty(STDIN_FILENO))
		return ap_error_set(e, ECANCELED, "%s: standard input is not a terminal, nobody "
				    "can confirm; use --yes to destroy its contents", dev);
	fprintf(stderr, "ALL DATA ON %s WILL BE DESTROYED.\n"
		"Type the device name (%s) to continue: ", dev, dev);
	fflush(stderr);
	len = getline(&line, &cap, stdin);
	if (len < 0) {
		rc = ap_error_set(e, ECANCELED, "%s: not confirmed (%s)", dev,
				  ferror(stdin) ? strerror(errno) : "end of input");
		clearerr(stdin);
	} else {
		line[strcspn(line, "\n")] = '\0';
		if (strcmp(line, dev) == 0)
			rc = 0;
		else
			rc = ap_error_set(e, ECANCELED, "%s: not confirmed (typed '%s', "
					  "not the device name)", dev, line);
	}
	free(line);
	return rc;
}
