// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness over check's table-reading path: the input is a disk
 * image; it is written to a memfd and read back by ap_ptable_read() (libfdisk
 * + the raw GPT checks + validation), and every partition found goes through
 * the alignment predicates as `alignprobe check` would use them.
 *
 * Built by fuzz/run.sh with clang -fsanitize=fuzzer,address,undefined; built
 * without libFuzzer against fuzz/replay.c by `make check`, which replays the
 * seed corpus and fuzz/regressions/ptable/ through the same function.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "device/geometry.h"
#include "device/ptable.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int image_fd = -1;
static char image_path[64];

static int image_write(const uint8_t *data, size_t size)
{
	if (image_fd < 0) {
		image_fd = memfd_create("fuzz_ptable", MFD_CLOEXEC);
		if (image_fd < 0) {
			perror("memfd_create");
			abort();
		}
		snprintf(image_path, sizeof(image_path), "/proc/self/fd/%d", image_fd);
	}
	if (ftruncate(image_fd, 0) < 0)
		abort();
	if (size && ap_pwrite_all(image_fd, data, size, 0) < 0)
		abort();
	return 0;
}

static void check_one(unsigned sector_size)
{
	struct ap_ptable_opts o = { .sector_size = sector_size };
	struct ap_ptable pt;
	struct ap_error e;
	size_t i;

	if (ap_ptable_read(image_path, &o, &pt, &e) == 0) {
		for (i = 0; i < pt.nparts; i++) {
			const struct ap_part *p = &pt.parts[i];
			uint64_t next;

			/* what check computes for every row */
			(void)ap_align_is_aligned(p->start, pt.sector_size, 4096, 7);
			(void)ap_align_is_aligned(p->start, pt.sector_size, AP_MIB, 0);
			(void)ap_align_size_is_aligned(p->size, pt.sector_size, 4096);
			(void)ap_align_misalignment(p->start, pt.sector_size, 4096, 7);
			next = ap_align_next(p->start, pt.sector_size, 8192, 3);
			if (next != UINT64_MAX && next < p->start)
				abort();
		}
		for (i = 0; i < pt.nissues; i++)
			if (!memchr(pt.issues[i].msg, '\0', sizeof(pt.issues[i].msg)))
				abort();
	}
	ap_ptable_free(&pt);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	image_write(data, size);
	check_one(0);
	/* odd-sized inputs are also read as 4Kn images */
	if (size & 1)
		check_one(4096);
	return 0;
}
