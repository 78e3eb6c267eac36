// SPDX-License-Identifier: GPL-2.0-or-later
/* Helpers shared by the subcommands' front ends. */
#include <stdarg.h>
#include <stdio.h>

#include "commands.h"
#include "exitcodes.h"
#include "outfile.h"

void ap_print_version(void)
{
	printf("%s %s\n", AP_PROG, PACKAGE_VERSION);
}

void ap_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s%s%s: ", AP_PROG, cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s%s%s --help' for more information.\n",
		AP_PROG, cmd ? " " : "", cmd ? cmd : "");
}

void ap_usage_hint(const char *cmd)
{
	fprintf(stderr, "Try '%s %s --help' for more information.\n", AP_PROG, cmd);
}

int ap_cmd_not_built(const char *cmd)
{
	fprintf(stderr, "%s %s: this command is not built yet in version %s\n",
		AP_PROG, cmd, PACKAGE_VERSION);
	return AP_EXIT_NOTBUILT;
}

int ap_cmd_open_output(const char *cmd, struct ap_outfile *of, const char *path)
{
	struct ap_error e = { 0 };

	if (ap_outfile_open(of, path, &e) == 0)
		return 0;
	fprintf(stderr, "%s %s: %s\n", AP_PROG, cmd, e.msg);
	return AP_EXIT_USAGE;
}

int ap_cmd_check_output(const char *cmd, const char *path, bool must_not_exist)
{
	struct ap_error e = { 0 };

	if (ap_outfile_check(path, must_not_exist, &e) == 0)
		return 0;
	fprintf(stderr, "%s %s: %s\n", AP_PROG, cmd, e.msg);
	return AP_EXIT_USAGE;
}

int ap_cmd_check_dir(const char *cmd, const char *dir, const char *what)
{
	struct ap_error e = { 0 };

	if (ap_outfile_check_dir(dir, &e) == 0)
		return 0;
	fprintf(stderr, "%s %s: %s (%s)\n", AP_PROG, cmd, e.msg, what);
	return AP_EXIT_USAGE;
}

void ap_cmd_dry_run_outputs(const struct ap_cmd_output *o, size_t n)
{
	bool any = false;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!o[i].path)
			continue;
		printf("%s %s %s", any ? "," : "Output files (checked now, written after a real run):",
		       o[i].opt, o[i].path);
		any = true;
	}
	if (any)
		printf("\n");
}
