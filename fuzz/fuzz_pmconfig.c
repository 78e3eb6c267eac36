// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness: PostMark configuration files (sweep/postmark
 * --workload FILE), through the same entry points the commands use:
 * ap_pm_config_load() and ap_pm_script_load() on a file holding the input,
 * then what the commands do with a loaded configuration (validate, show,
 * JSON). Run with fuzz/run.sh pmconfig; `make check` replays the seeds and
 * fuzz/regressions/pmconfig/ through fuzz/replay.c.
 *
 * `load FILE` inside an input names other files: the harness works in an
 * empty directory with stdin on /dev/null, so relative names fail and
 * `load -` reads nothing.
 */
#include <fcntl.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/util.h"
#include "workload/pm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fd = -1;
static char path[64];
static FILE *devnull;

static void init(void)
{
	char dir[] = "/tmp/ap-fuzz-pm.XXXXXX";
	int nul;

	fd = memfd_create("pmconfig", MFD_CLOEXEC);
	if (fd < 0) {
		perror("memfd_create");
		abort();
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	devnull = fopen("/dev/null", "w");
	nul = open("/dev/null", O_RDONLY);
	if (!devnull || nul < 0 || dup2(nul, STDIN_FILENO) < 0)
		abort();
	close(nul);
	if (mkdtemp(dir) && chdir(dir) == 0)
		rmdir(dir);	/* an empty, deleted working directory */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ap_pm_config cfg;
	struct ap_pm_script s;
	struct ap_error e = { 0 };

	if (fd < 0)
		init();
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();

	ap_pm_config_init(&cfg);
	if (ap_pm_config_load(&cfg, path, NULL, &e) == 0) {
		struct json_object *j;

		if (ap_pm_config_validate(&cfg, &e) == 0) {
			ap_pm_config_show(devnull, &cfg);
			j = ap_pm_config_to_json(&cfg);
			json_object_to_json_string(j);
			json_object_put(j);
		}
	} else if (!e.msg[0]) {
		abort();	/* every refusal must say why */
	}
	ap_pm_config_free(&cfg);

	ap_pm_config_init(&cfg);
	if (ap_pm_script_load(&s, &cfg, path, &e) == 0)
		ap_pm_script_free(&s);
	ap_pm_config_free(&cfg);
	return 0;
}
