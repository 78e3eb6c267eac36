// SPDX-License-Identifier: GPL-2.0-or-later
/* alignprobe emulate: placeholder until its issue lands; it says so and exits 6. */
#include "commands.h"

int ap_cmd_emulate(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return ap_cmd_not_built("emulate");
}
