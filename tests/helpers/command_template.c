// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * docs/command-template.c run as a program of its own, as main.c runs a
 * command (argv[0] "alignprobe template"), for tests/ts/layout/recipes.sh:
 * the template must build and work.
 */
#include <errno.h>
#include <signal.h>

#include "cmd/commands.h"

int ap_cmd_template(int argc, char **argv);	/* docs/command-template.c */

int main(int argc, char **argv)
{
	static char name[] = "alignprobe template";

	signal(SIGPIPE, SIG_IGN);
	program_invocation_short_name = name;
	argv[0] = name;
	return ap_cmd_template(argc, argv);
}
