// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A main() for libFuzzer harnesses without libFuzzer: feed every file named
 * on the command line (directories: every regular file inside, sorted) to
 * LLVMFuzzerTestOneInput() once. `make check` uses it to replay the seed
 * corpus and fuzz/regressions/<harness>/ so that fixed crashes stay fixed.
 * Exit status 0, or 1 when a file cannot be read; a crash is a crash.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, r;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return 1;
	}
	do {
		if (len == cap) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
			if (!buf) {
				fprintf(stderr, "replay: out of memory\n");
				exit(1);
			}
		}
		r = fread(buf + len, 1, cap - len, f);
		len += r;
	} while (r > 0);
	if (ferror(f)) {
		fprintf(stderr, "replay: %s: read error\n", path);
		fclose(f);
		free(buf);
		return 1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *dir, size_t *n)
{
	struct dirent *d;
	char **names = NULL;
	size_t cnt = 0, i;
	int rc = 0;
	DIR *dp = opendir(dir);

	if (!dp) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	while ((d = readdir(dp))) {
		if (d->d_name[0] == '.')
			continue;
		names = realloc(names, (cnt + 1) * sizeof(*names));
		if (!names || asprintf(&names[cnt], "%s/%s", dir, d->d_name) < 0) {
			fprintf(stderr, "replay: out of memory\n");
			exit(1);
		}
		cnt++;
	}
	closedir(dp);
	if (cnt > 1)
		qsort(names, cnt, sizeof(*names), cmp);
	for (i = 0; i < cnt; i++) {
		struct stat st;

		if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
			rc |= replay_file(names[i]);
			(*n)++;
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	size_t n = 0;
	int i, rc = 0;

	for (i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			rc = 1;
		} else if (S_ISDIR(st.st_mode)) {
			rc |= replay_dir(argv[i], &n);
		} else {
			rc |= replay_file(argv[i]);
			n++;
		}
	}
	printf("replayed %zu input%s\n", n, n == 1 ? "" : "s");
	return rc;
}
