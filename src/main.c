// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * alignprobe - find a drive's real physical sector size and alignment.
 *
 * main(): global options, usage, and dispatch to one subcommand.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "lib/exitcodes.h"

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} commands[] = {
#define COMMAND(name, summary) { #name, ap_cmd_##name, summary },
	AP_COMMANDS(COMMAND)	/* cmd/commands.h */
#undef COMMAND
};

static void usage(void)
{
	size_t i;

	printf("Usage:\n %s [--version] [--help] <command> [<args>]\n\n", AP_PROG);
	puts("Find out how big a drive's physical sectors really are and where they start.\n");
	puts("Commands:");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		printf(" %-9s %s\n", commands[i].name, commands[i].summary);
	printf("\nRun '%s <command> --help' for a command's options.\n\n", AP_PROG);
	puts("Exit status:\n"
	     " 0  success (check: every partition aligned)\n"
	     " 1  runtime failure\n"
	     " 2  usage error or bad input file\n"
	     " 3  refused for safety, nothing written\n"
	     " 4  check: misaligned partition found\n"
	     " 5  sweep/probe: no verdict (the budget ran out, or the starts\n"
	     "    cannot resolve a period)\n"
	     " 6  feature not built in\n"
	     " 7  check: the partition table was written for another sector size\n"
	     " 128+N  interrupted by signal N (cleaned up, partial results printed)");
	printf("\nFor more details see alignprobe(8).\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help",    no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	static char name[64];
	size_t i;
	int c;

	/*
	 * Every message starts "alignprobe CMD: " (see ap_warnx()): getopt's
	 * own ones name argv[0], err(3) and the allocation failures
	 * program_invocation_short_name.
	 */
	argv[0] = program_invocation_short_name = (char *)AP_PROG;
	/*
	 * A reader that goes away (| head) is no reason to die half-way (a
	 * run must clean up) nor a failure: every command ignores SIGPIPE
	 * and treats EPIPE on stdout as success (ap_out_flush()).
	 */
	signal(SIGPIPE, SIG_IGN);
	/* stop at the first non-option: the subcommand owns the rest */
	while ((c = getopt_long(argc, argv, "+hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage();
			return AP_EXIT_OK;
		case 'V':
			ap_print_version();
			return AP_EXIT_OK;
		default:
			ap_usage_hint(NULL);
			return AP_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		ap_usage_error(NULL, "no command given");
		return AP_EXIT_USAGE;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[optind], commands[i].name) == 0) {
			argc -= optind;
			argv += optind;
			optind = 0;	/* full getopt re-initialization */
			snprintf(name, sizeof(name), "%s %s", AP_PROG, commands[i].name);
			program_invocation_short_name = name;
			argv[0] = name;	/* getopt: "alignprobe CMD: unrecognized option" */
			return commands[i].run(argc, argv);
		}
	}
	ap_usage_error(NULL, "unknown command '%s'", argv[optind]);
	return AP_EXIT_USAGE;
}
