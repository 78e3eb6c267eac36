/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Data for write workloads: zeros, or a fast seeded pseudo-random stream
 * (eight interleaved xoshiro256+ generators, vectorised), so the data
 * source is never the bottleneck (/dev/urandom runs at a few hundred MB/s).
 * Not for cryptography: the point is incompressible, non-repeating bytes.
 *
 * The stream is a pure function of the seed: filling 10 + 4096 + 7 bytes
 * gives the same bytes as filling 4113 at once, and no buffer repeats an
 * earlier one (period 2^256 - 1 per lane).
 */
#ifndef AP_DATAGEN_H
#define AP_DATAGEN_H

#include <stddef.h>
#include <stdint.h>

enum ap_datagen_kind {
	AP_DATAGEN_RANDOM = 0,	/* xoshiro256+ x 8 lanes */
	AP_DATAGEN_ZERO,	/* all zero bytes */
};

#define AP_DATAGEN_LANES	8
#define AP_DATAGEN_BLOCK	(AP_DATAGEN_LANES * 8)	/* bytes per generator step */

struct ap_datagen {
	enum ap_datagen_kind kind;
	/* s[i][lane]: state word i of each lane, structure of arrays */
	uint64_t s[4][AP_DATAGEN_LANES] __attribute__((aligned(64)));
	unsigned char left[AP_DATAGEN_BLOCK] __attribute__((aligned(64)));
	size_t nleft;		/* unread bytes at the end of left[] */
	uint64_t produced;	/* bytes handed out so far */
};

/*
 * Seed: lane k's four state words are SplitMix64 outputs 4k..4k+3 from
 * @seed, the seeding recommended by the xoshiro authors.
 */
void ap_datagen_init(struct ap_datagen *g, enum ap_datagen_kind kind, uint64_t seed);

/*
 * Fill @len bytes of @buf with the next bytes of the stream (any length,
 * any alignment). The random stream is little-endian 64-bit words, lane 0
 * first: bytes 0..7 are lane 0's first output, 8..15 lane 1's, ...
 */
void ap_datagen_fill(struct ap_datagen *g, void *buf, size_t len);

/* "random", "zero" (or "zeros"): 0 or -EINVAL. */
int ap_datagen_kind_parse(const char *s, enum ap_datagen_kind *out);
const char *ap_datagen_kind_name(enum ap_datagen_kind kind);

#endif
