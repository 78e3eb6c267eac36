// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A run that dies: sets up one resource the way alignprobe does (through
 * the same modules, registered in the state directory), prints it and
 * "ready", then waits to be SIGKILLed, so that tests/ts/safety/cleanup.sh can
 * check what `alignprobe cleanup` does with what a killed run leaves.
 *
 *   leak mount PARTITION FSTYPE DISK   ap_mount_mount() (tmpdir + mount)
 *   leak loop FILE                     a loop device (LOOP_CTL_GET_FREE + LOOP_SET_FD)
 *   leak tmpdir                        a non-empty alignprobe-XXXXXX directory
 *   leak journal FILE DEV              an undo journal entry
 *   leak stale KIND PATH DEV           only a registry entry (owner: this process)
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "lib/state.h"
#include "lib/util.h"
#include "device/mount.h"

static int die(const char *what, int err)
{
	fprintf(stderr, "leak: %s: %s\n", what, strerror(err < 0 ? -err : err));
	return 1;
}

static int loop_attach(const char *file)
{
	char dev[64], *id;
	int ctl, n, fd, lfd, rc;

	fd = open(file, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return die(file, errno);
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return die("/dev/loop-control", errno);
	for (;;) {
		n = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (n < 0)
			return die("LOOP_CTL_GET_FREE", errno);
		snprintf(dev, sizeof(dev), "/dev/loop%d", n);
		lfd = open(dev, O_RDWR | O_CLOEXEC);
		if (lfd < 0)
			return die(dev, errno);
		if (ioctl(lfd, LOOP_SET_FD, fd) == 0)
			break;
		if (errno != EBUSY)
			return die("LOOP_SET_FD", errno);
		close(lfd);	/* somebody else took it meanwhile */
	}
	rc = ap_state_register(AP_STATE_LOOP, file, dev, NULL, &id);
	if (rc)
		return die("register", rc);
	printf("%s\n", dev);
	close(lfd);
	close(fd);
	close(ctl);
	free(id);
	return 0;
}

int main(int argc, char **argv)
{
	struct ap_error e = { 0 };
	char *id = NULL;
	int rc;

	if (argc >= 5 && strcmp(argv[1], "mount") == 0) {
		struct ap_mount m;

		rc = ap_mount_mount(argv[2], argv[3], NULL, argv[4], &m, &e);
		if (rc) {
			fprintf(stderr, "leak: %s\n", e.msg);
			return 1;
		}
		printf("%s\n", m.dir);
	} else if (argc >= 3 && strcmp(argv[1], "loop") == 0) {
		if (loop_attach(argv[2]))
			return 1;
	} else if (argc >= 2 && strcmp(argv[1], "tmpdir") == 0) {
		const char *tmp = getenv("TMPDIR");
		char *dir, *f;
		FILE *fp;

		ap_xasprintf(&dir, "%s/alignprobe-leak.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(dir))
			return die("mkdtemp", errno);
		rc = ap_state_register(AP_STATE_TMPDIR, dir, NULL, NULL, &id);
		if (rc)
			return die("register", rc);
		ap_xasprintf(&f, "%s/scratch", dir);
		fp = fopen(f, "w");
		if (!fp || fputs("scratch\n", fp) < 0 || fclose(fp) != 0)
			return die(f, errno);
		printf("%s\n", dir);
		free(f);
		free(dir);
	} else if (argc >= 4 && strcmp(argv[1], "journal") == 0) {
		rc = ap_state_register(AP_STATE_JOURNAL, argv[2], argv[3], NULL, &id);
		if (rc)
			return die("register", rc);
		printf("%s\n", argv[2]);
	} else if (argc >= 5 && strcmp(argv[1], "stale") == 0) {
		enum ap_state_kind k = strcmp(argv[2], "mount") == 0 ? AP_STATE_MOUNT :
				       strcmp(argv[2], "tmpdir") == 0 ? AP_STATE_TMPDIR :
				       strcmp(argv[2], "loop") == 0 ? AP_STATE_LOOP :
				       strcmp(argv[2], "emu") == 0 ? AP_STATE_EMU : AP_STATE_JOURNAL;

		rc = ap_state_register(k, argv[3], argv[4], NULL, &id);
		if (rc)
			return die("register", rc);
		printf("%s\n", argv[3]);
	} else {
		fprintf(stderr, "usage: leak mount|loop|tmpdir|journal|stale ...\n");
		return 2;
	}
	free(id);
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
