// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness over check's table-reading path: the input is a disk
 * image; it is written to a memfd and read back by ap_ptable_read() (libfdisk
 * and libblkid, the raw GPT checks, validation, libfdisk's verification),
 * and every partition found goes through the alignment predicates as
 * `alignprobe check` would use them. Each table also goes through the
 * child's message to the parent and back (ap_ptable_pack/unpack). An input
 * is read at its own size, and again as the start of a 16 MiB disk (a
 * sparse memfd): label code such as SGI's depends on the disk's size (the
 * crash in libfdisk 2.38.1's SGI verification needs 8 MiB or more).
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

#define DISK_SIZE	(16 << 20)

/* The table through the child's message and back: the same table. */
static void roundtrip(const struct ap_ptable *pt, int rc, const struct ap_error *e)
{
	struct ap_ptable back;
	struct ap_error eb;
	char *buf;
	size_t len, i;
	int brc;

	ap_ptable_pack(pt, rc, e, &buf, &len);
	if (ap_ptable_unpack(buf, len, &back, &brc, &eb) != 0 || brc != rc ||
	    back.nparts != pt->nparts || back.nissues != pt->nissues)
		abort();
	for (i = 0; i < pt->nparts; i++)
		if (back.parts[i].start != pt->parts[i].start ||
		    back.parts[i].role != pt->parts[i].role)
			abort();
	ap_ptable_free(&back);
	free(buf);
}

static void check_one(unsigned sector_size)
{
	struct ap_ptable_opts o = { .sector_size = sector_size };
	struct ap_ptable pt;
	struct ap_error e;
	size_t i;

	int rc;

	ap_error_clear(&e);
	rc = ap_ptable_read(image_path, &o, &pt, &e);
	roundtrip(&pt, rc, &e);
	if (rc == 0) {
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
	if (size < DISK_SIZE) {
		if (ftruncate(image_fd, DISK_SIZE) < 0)
			abort();
		check_one(0);
	}
	return 0;
}
