// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The one libc symbol alignprobe replaces, linked into the alignprobe binary
 * only (never into libalignprobe.a, so no unit test and no embedding program
 * gets it): system(3).
 *
 * libparted runs system("udevadm settle") after it told the kernel about a
 * partition table (and "dmidecode" once). glibc's system() sets SIGINT and
 * SIGQUIT to SIG_IGN in the caller while the child runs, so a Ctrl-C in that
 * moment would be discarded and the sweep would not stop. This definition
 * (the executable's symbol wins over libc's for libparted) runs the command
 * the same way, /bin/sh -c, but leaves the caller's signal handling alone:
 * a signal is recorded by src/lib/sig.c as at any other moment.
 */

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static bool udevadm_in_path(void)
{
	const char *path = getenv("PATH"), *p;
	char f[PATH_MAX];

	for (p = path ? path : "/usr/sbin:/usr/bin:/sbin:/bin"; *p; ) {
		size_t len = strcspn(p, ":");

		if (len && len + sizeof("/udevadm") < sizeof(f)) {
			memcpy(f, p, len);
			strcpy(f + len, "/udevadm");
			if (access(f, X_OK) == 0)
				return true;
		}
		p += len;
		if (*p == ':')
			p++;
	}
	return false;
}

int system(const char *cmd)
{
	posix_spawnattr_t attr;
	sigset_t def, none;
	char *argv[] = { "sh", "-c", (char *)cmd, NULL };
	int status = 0, rc;
	pid_t pid;

	if (!cmd)
		return access("/bin/sh", X_OK) == 0;
	/* without udev (as here) the shell would only say "not found" */
	if (strcmp(cmd, "udevadm settle") == 0 && !udevadm_in_path())
		return 127 << 8;
	posix_spawnattr_init(&attr);
	sigemptyset(&def);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGQUIT);
	sigaddset(&def, SIGTERM);
	sigaddset(&def, SIGHUP);
	sigaddset(&def, SIGPIPE);
	sigemptyset(&none);
	posix_spawnattr_setsigdefault(&attr, &def);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	rc = posix_spawn(&pid, "/bin/sh", NULL, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	if (rc != 0)
		return -1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return status;
}

