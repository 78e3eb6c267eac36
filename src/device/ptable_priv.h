/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Private to ptable.c and ptable_foreign.c: the raw reads both need. */
#ifndef AP_PTABLE_PRIV_H
#define AP_PTABLE_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device/ptable.h"

static inline uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}

/* @len bytes at byte @off, retrying EINTR: 0, -ENODATA past the end, or -errno. */
int ap_ptable_read_at(int fd, void *buf, size_t len, uint64_t off);

/*
 * A GPT header at LBA 1 of another sector size: record it as foreign and
 * return true. A signature with a bad CRC counts too (said so).
 */
bool ap_ptable_foreign_gpt(struct ap_ptable *pt, int fd);

/* An MBR whose entries only make sense in the other unit (512 <-> 4096): recorded as foreign. */
void ap_ptable_foreign_dos(struct ap_ptable *pt, int fd);

#endif
