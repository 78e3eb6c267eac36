/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The emulated drive's behaviour as pure functions: which writes cover a
 * hidden physical sector only partly, what each request costs (base cost,
 * read-modify-write cost, seeded jitter, volatile write cache), and which
 * requests the fault model fails. No I/O, no clock: unit-tested directly.
 * The spec (struct ap_emu_spec of emu.h) is parsed and validated here too.
 */
#ifndef AP_EMU_MODEL_H
#define AP_EMU_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "emu/emu.h"

#define AP_EMU_MIN_CAPACITY	(1ULL << 20)	/* 1 MiB */
#define AP_EMU_MAX_CAPACITY	(1ULL << 44)	/* 16 TiB (sparse) */

enum ap_emu_op {
	AP_EMU_READ,
	AP_EMU_WRITE,
	AP_EMU_FLUSH,
};

struct ap_emu_model {
	uint32_t phys;			/* hidden physical sector, bytes */
	uint32_t align;			/* byte offset of the first physical boundary */
	uint64_t rmw_ns, base_ns, flush_ns;
	double jitter;
	bool write_cache;
	uint64_t rng[4];		/* xoshiro256** state */
	uint64_t pending_rmw;		/* partial sectors the cache still owes */
	uint64_t fail_lba, fail_count;
	bool fail_reads, fail_writes;
	uint64_t fail_after;
};

struct ap_emu_cost {
	bool fail;			/* answer EIO */
	unsigned partial;		/* partial physical sectors written (writes) */
	bool aligned;			/* a write covering whole physical sectors only */
	uint64_t cost_ns;		/* time to charge */
};

/*
 * Partial physical sectors of the write [off, off + len): 0, 1 or 2. The
 * physical sectors start at byte offsets congruent to @align modulo @phys.
 */
unsigned ap_emu_model_partial(uint64_t off, uint64_t len, uint32_t phys, uint32_t align);

void ap_emu_model_init(struct ap_emu_model *m, const struct ap_emu_spec *s);

/* A uniform double in [-1, 1] from the seeded generator. */
double ap_emu_model_uniform(struct ap_emu_model *m);

/*
 * Account one request. @served is the number of successful requests of the
 * kinds the fault model fails (reads and/or writes) since the counters were
 * last reset: fail-after=N fails every such request once N were served.
 * A failed request costs the base cost and changes no state.
 */
void ap_emu_model_request(struct ap_emu_model *m, enum ap_emu_op op,
			  uint64_t off, uint64_t len, uint64_t served,
			  struct ap_emu_cost *c);

/*
 * Set one spec parameter by name, as in a spec string or as the long option
 * of `emulate --attach` without its dashes. 0, or -EINVAL with a message.
 */
int ap_emu_spec_set(struct ap_emu_spec *s, const char *key, const char *val,
		    struct ap_error *e);
/* The constraints between parameters. 0, or -EINVAL with a message. */
int ap_emu_spec_validate(const struct ap_emu_spec *s, struct ap_error *e);
/* "phys=4096,lba=0,size=1G,..." for logs and --stats; caller frees. */
char *ap_emu_spec_format(const struct ap_emu_spec *s);

#endif
