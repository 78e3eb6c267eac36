// SPDX-License-Identifier: GPL-2.0-or-later
/* alignprobe cleanup: placeholder until its issue lands; it says so and exits 6. */
#include "commands.h"

int ap_cmd_cleanup(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return ap_cmd_not_built("cleanup");
}
