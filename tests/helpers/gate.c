// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The safety gate on its own, for the integration tests: runs
 * ap_safety_check() (and ap_safety_confirm() with --confirm) on DEVICE like a
 * destructive command would, prints the description or the refusal, and
 * exits 0, or the command's status for the refusal (ap_exit_for_errno(): 3,
 * or 2 for what is no block device). Never writes anything. --hold N keeps the O_EXCL descriptor
 * for N seconds after printing "held" (to show what holding does).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "device/safety.h"
#include "lib/exitcodes.h"
#include "ui/confirm.h"

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "allow-partition", no_argument,       NULL, 'p' },
		{ "yes",             no_argument,       NULL, 'y' },
		{ "dry-run",         no_argument,       NULL, 'd' },
		{ "confirm",         no_argument,       NULL, 'c' },
		{ "hold",            required_argument, NULL, 'H' },
		{ "in-use",          no_argument,       NULL, 'u' },
		{ NULL, 0, NULL, 0 }
	};
	struct ap_safety_opts o = { .ask = ap_ui_confirm };
	struct ap_safety_target t;
	struct ap_error e = { 0 };
	bool confirm = false, in_use = false;
	unsigned hold = 0;
	char *d;
	int c, rc;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': o.allow_partition = true; break;
		case 'y': o.yes = true; break;
		case 'd': o.dry_run = true; break;
		case 'c': confirm = true; break;
		case 'H': hold = (unsigned)atoi(optarg); break;
		case 'u': in_use = true; break;
		default: return AP_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "usage: gate [--allow-partition] [--yes] [--dry-run] [--confirm] "
			"[--hold SECONDS] [--in-use] DEVICE\n");
		return AP_EXIT_USAGE;
	}
	if (in_use) {
		rc = ap_safety_in_use(argv[optind], &e);
		if (rc) {
			fprintf(stderr, "gate: %s\n", e.msg);
			return AP_EXIT_REFUSED;
		}
		return AP_EXIT_OK;
	}
	rc = ap_safety_check(argv[optind], &o, &t, &e);
	if (rc) {
		fprintf(stderr, "gate: %s\n", e.msg);
		ap_safety_target_free(&t);
		return ap_exit_for_errno(rc);
	}
	d = ap_safety_describe(&t);
	fputs(d, stdout);
	free(d);
	fflush(stdout);
	if (confirm && ap_safety_confirm(&t, &o, &e) != 0) {
		fprintf(stderr, "gate: %s\n", e.msg);
		ap_safety_target_free(&t);
		return AP_EXIT_REFUSED;
	}
	if (confirm)
		printf("confirmed\n");
	if (hold) {
		printf("held\n");
		fflush(stdout);
		sleep(hold);
	}
	ap_safety_target_free(&t);
	return AP_EXIT_OK;
}
