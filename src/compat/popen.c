// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * popen(3) for the one command libparted runs through it: when libparted is
 * loaded, its GPT code's constructor (ped_disk_gpt_init) runs
 * popen("dmidecode -s system-manufacturer 2>/dev/null", "r") to learn
 * whether the machine is a Mac. That spawned /bin/sh and dmidecode at every
 * start of every command, check included: a shell under a hardened service,
 * a process that reads /dev/mem (or the SMBIOS tables) as root, for a
 * string the kernel exports already.
 *
 * This definition (the executable's symbol wins over libc's for libparted,
 * as src/compat/system.c does for system()) answers that command with
 * /sys/class/dmi/id/sys_vendor, the same SMBIOS "System Manufacturer"
 * field dmidecode prints, read from that file: nothing is executed.
 * Without the file (no DMI, a container) the stream is /dev/null's, empty
 * as dmidecode's output is when it fails. Any other command goes to libc's
 * popen. glibc's pclose() is fclose() for every stream, so the file is
 * closed the same way.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#define DMI_CMD		"dmidecode -s system-manufacturer"
#define DMI_FILE	"/sys/class/dmi/id/sys_vendor"

static FILE *dmi_vendor(void)
{
	FILE *f = fopen(DMI_FILE, "re");

	return f ? f : fopen("/dev/null", "re");
}

FILE *popen(const char *cmd, const char *mode)
{
	FILE *(*libc_popen)(const char *, const char *);

	if (cmd && mode && mode[0] == 'r' && strncmp(cmd, DMI_CMD, strlen(DMI_CMD)) == 0 &&
	    (cmd[strlen(DMI_CMD)] == '\0' || cmd[strlen(DMI_CMD)] == ' '))
		return dmi_vendor();
	libc_popen = (FILE *(*)(const char *, const char *))dlsym(RTLD_NEXT, "popen");
	return libc_popen ? libc_popen(cmd, mode) : NULL;
}
