// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The layered volumes of the emulated drive (issue 33), as pure model
 * physics: a parity RAID volume's stripes (full-stripe writes, partial
 * stripes read-modify-written, the members' own hidden sectors), a
 * controller's battery-backed cache, a thin volume's first writes
 * (allocation, copy-on-write, subclusters, a full pool), their spec keys,
 * claims and profiles.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/model.h"
#include "lib/util.h"
#include "emu_fixture.h"

#define K	1024ULL
#define US	1000ULL
#define MS	1000000ULL
#define TRACK	1250304ULL		/* the raid profiles' members: hdd-7200's track */
#define BASE	50000ULL		/* and their base cost */

static uint64_t req(struct ap_emu_model *m, enum ap_emu_op op, uint64_t off, uint64_t len,
		    uint64_t now, struct ap_emu_cost *c)
{
	ap_emu_model_request(m, op, off, len, 0, now, c);
	return c->cost_ns;
}

/* base + the bus (300 MB/s) for @len bytes: what the controller charges first */
static uint64_t front_ns(uint64_t len)
{
	return BASE + len * 1000000000ULL / 300000000;
}

/* The transfer of @len bytes of one member's media (a track a revolution). */
static uint64_t xfer_ns(uint64_t len)
{
	return ap_emu_mul_div(len, REV7200, TRACK);
}

/* Member @d's wait at @t for member offset @off: its spindle turns at phase d/members. */
static uint64_t rot_ns(const struct ap_emu_model *m, uint32_t d, uint64_t off, uint64_t t)
{
	return ap_emu_model_rotation_ns(m, off, t + REV7200 * d / m->raid_members);
}

static void test_raid_stripes(void **state)
{
	struct ap_emu_model m;
	struct ap_emu_cost c;
	uint64_t t = T0;

	(void)state;
	model_for(&m, "raid5-4x64k,size=256M");
	assert_int_equal(m.raid_data, 3);
	assert_int_equal(m.raid_chunk, 64 * K);
	/* a whole 192 KiB stripe: no reads, one full-stripe write */
	t += req(&m, AP_EMU_WRITE, 0, 192 * K, t, &c) + MS;
	assert_int_equal(c.full_stripes, 1);
	assert_int_equal(c.stripe_rmw, 0);
	assert_int_equal(c.rmw, 0);
	assert_true(c.aligned);
	/* the same size a chunk off: the ends of two stripes, each read-modify-written */
	t += req(&m, AP_EMU_WRITE, 64 * K, 192 * K, t, &c) + MS;
	assert_int_equal(c.full_stripes, 0);
	assert_int_equal(c.stripe_rmw, 2);
	assert_int_equal(c.rmw, 0);		/* the members' sectors: whole */
	/* two stripes at a stripe boundary that is not a power of two */
	t += req(&m, AP_EMU_WRITE, 192 * K, 384 * K, t, &c) + MS;
	assert_int_equal(c.full_stripes, 2);
	assert_int_equal(c.stripe_rmw, 0);
	/* a 4 KiB write 512 bytes off: a partial stripe, and on the data member
	 * and the parity member a partial 4096-byte sector at each end */
	t += req(&m, AP_EMU_WRITE, 1024 * K + 512, 4 * K, t, &c) + MS;
	assert_int_equal(c.stripe_rmw, 1);
	assert_int_equal(c.partial, 2);
	assert_int_equal(c.rmw, 4);
	req(&m, AP_EMU_WRITE, 1024 * K, 4 * K, t, &c);
	assert_int_equal(c.stripe_rmw, 1);
	assert_int_equal(c.rmw, 0);
	ap_emu_model_destroy(&m);

	/* RAID 6 of six: four data chunks of 128 KiB, P and Q */
	model_for(&m, "raid6-6x128k,size=256M");
	assert_int_equal(m.raid_data, 4);
	t += req(&m, AP_EMU_WRITE, 512 * K, 512 * K, t, &c) + MS;
	assert_int_equal(c.full_stripes, 1);
	assert_int_equal(c.stripe_rmw, 0);
	t += req(&m, AP_EMU_WRITE, 640 * K, 512 * K, t, &c) + MS;
	assert_int_equal(c.full_stripes, 0);
	assert_int_equal(c.stripe_rmw, 2);
	/* honest 512n members: no member RMW, however misaligned */
	req(&m, AP_EMU_WRITE, 512, 4 * K, t, &c);
	assert_int_equal(c.rmw, 0);
	ap_emu_model_destroy(&m);
}

/*
 * The exact costs of a fresh volume (every head on track 0): a full
 * stripe is every member writing its chunk at once; a partial stripe is a
 * read phase on the members whose data the parity needs, then a write
 * phase that waits for the platter to come round again.
 */
static void test_raid_exact_costs(void **state)
{
	struct ap_emu_model m;
	struct ap_emu_cost c;
	uint64_t t0, want, end, e, rd;
	uint32_t d;

	(void)state;
	model_for(&m, "raid5-4x64k,size=256M");
	t0 = T0 + front_ns(192 * K);
	want = 0;
	for (d = 0; d < 4; d++) {
		e = rot_ns(&m, d, 0, t0) + xfer_ns(64 * K);
		want = e > want ? e : want;
	}
	assert_int_equal(req(&m, AP_EMU_WRITE, 0, 192 * K, T0, &c), front_ns(192 * K) + want);
	ap_emu_model_destroy(&m);

	/*
	 * 4 KiB at 0 (stripe 0: parity on member 3, data chunk 0 on member 0):
	 * read-modify-write reads 4 KiB of old data and 4 KiB of old parity,
	 * reconstruct-write the 4 KiB of chunks 1 and 2: a tie, so members 1
	 * and 2 read; then members 0 (data) and 3 (parity) write
	 */
	model_for(&m, "raid5-4x64k,size=256M");
	t0 = T0 + front_ns(4 * K);
	end = t0;
	for (d = 1; d <= 2; d++) {
		e = t0 + rot_ns(&m, d, 0, t0) + xfer_ns(4 * K);
		end = e > end ? e : end;
	}
	rd = end;
	for (d = 0; d <= 3; d += 3) {
		e = rd + rot_ns(&m, d, 0, rd) + xfer_ns(4 * K);
		end = e > end ? e : end;
	}
	assert_int_equal(req(&m, AP_EMU_WRITE, 0, 4 * K, T0, &c), end - T0);
	assert_int_equal(c.stripe_rmw, 1);
	/* a read: the data member alone */
	t0 = end + MS;
	e = req(&m, AP_EMU_READ, 64 * K, 4 * K, t0, &c);
	assert_int_equal(e, front_ns(4 * K) + rot_ns(&m, 1, 0, t0 + front_ns(4 * K)) + xfer_ns(4 * K));
	ap_emu_model_destroy(&m);
}

/* The mean cost of @n writes of @len at stripe-spaced places + @shift. */
static uint64_t mean_write(const char *spec, uint64_t len, uint64_t shift, unsigned n)
{
	struct ap_emu_model m;
	struct ap_emu_cost c;
	uint64_t t = T0, sum = 0, stripe;
	unsigned i;

	model_for(&m, spec);
	stripe = m.raid_chunk * m.raid_data;
	for (i = 0; i < n; i++) {
		/* scattered over the first 64 MiB, arriving at unrelated moments */
		uint64_t off = (i * 7919ULL % (64 * 1024 * K / stripe - 2)) * stripe + shift;
		uint64_t ns = req(&m, AP_EMU_WRITE, off, len, t, &c);

		sum += ns;
		t += ns + 1234567ULL * (i % 5 + 1);
	}
	ap_emu_model_destroy(&m);
	return sum / n;
}

/*
 * What the probe will measure: each level's penalty, on average over the
 * platters' angles. A whole stripe waits for the slowest of the members'
 * platters; a partial one for the slowest reader's, then a revolution
 * more: with unsynchronised spindles about 1.5x.
 */
static void test_raid_levels(void **state)
{
	uint64_t full, part, a4, m4;

	(void)state;
	/* the stripe: a whole stripe against the same size a chunk off */
	full = mean_write("raid5-4x64k,size=256M", 192 * K, 0, 200);
	part = mean_write("raid5-4x64k,size=256M", 192 * K, 64 * K, 200);
	print_message("raid5-4x64k, 192 KiB: %llu ns whole, %llu ns a chunk off\n",
		      (unsigned long long)full, (unsigned long long)part);
	assert_true(part > full + REV7200 / 2);
	/* every partial stripe pays at least one revolution between reading and writing */
	assert_true(part > REV7200);
	assert_true(full < REV7200 + front_ns(192 * K) + 2 * MS);
	/* the members' 4096-byte sectors: one more revolution, in the same stripe */
	a4 = mean_write("raid5-4x64k,size=256M", 4 * K, 8 * K, 200);
	m4 = mean_write("raid5-4x64k,size=256M", 4 * K, 8 * K + 512, 200);
	assert_true(m4 > a4 + REV7200 * 8 / 10);
	assert_true(m4 < a4 + REV7200 * 12 / 10);
	/* RAID 6: the 512 KiB stripe; honest members, so 4 KiB misaligned costs nothing more */
	full = mean_write("raid6-6x128k,size=256M", 512 * K, 0, 200);
	part = mean_write("raid6-6x128k,size=256M", 512 * K, 128 * K, 200);
	print_message("raid6-6x128k, 512 KiB: %llu ns whole, %llu ns a chunk off\n",
		      (unsigned long long)full, (unsigned long long)part);
	assert_true(part > full + REV7200 / 2);
	a4 = mean_write("raid6-6x128k,size=256M", 4 * K, 8 * K, 200);
	m4 = mean_write("raid6-6x128k,size=256M", 4 * K, 8 * K + 512, 200);
	assert_true(m4 < a4 + 200 * US && a4 < m4 + 200 * US);
}

/*
 * The controller's battery-backed cache: writes are acknowledged at the
 * interface's speed while it has room; the destage runs behind, one dirty
 * extent at a time, and once the host writes faster than the members take
 * it the writes wait for room. Rewrites of dirty data are absorbed, a
 * flush costs nothing, a power cut keeps the cache.
 */
static void test_raid_cache(void **state)
{
	struct ap_emu_model m;
	struct ap_emu_cost c;
	uint64_t t = T0, ns;
	unsigned i, waited = 0, rmw = 0;

	(void)state;
	model_for(&m, "raid5-bbu,size=256M,raid-cache=64K");
	/* a partial stripe, acknowledged at once; its destage starts at once */
	ns = req(&m, AP_EMU_WRITE, 4 * K, 4 * K, t, &c);
	assert_int_equal(ns, front_ns(4 * K));
	assert_true(c.rc_absorbed);
	assert_false(c.rc_waited);
	assert_false(c.cached);			/* battery-backed: not volatile */
	assert_int_equal(c.stripe_rmw, 1);
	t += ns;
	/* 4 KiB writes to fresh stripes, back to back: 16 fill 64 KiB, then they wait */
	for (i = 1; i <= 40; i++) {
		ns = req(&m, AP_EMU_WRITE, i * 192 * K + 4 * K, 4 * K, t, &c);
		t += ns;
		waited += c.rc_waited;
		rmw += (unsigned)c.stripe_rmw;
		if (i < 15)
			assert_true(c.rc_absorbed);
	}
	assert_true(waited >= 20);
	/* a waiting write costs a destage: at least a revolution */
	assert_true(ns > REV7200);
	/* every write read-modify-writes its stripe, in the background */
	assert_true(rmw >= 20);
	/* a flush: nothing to do (the cache survives a power loss) */
	assert_int_equal(req(&m, AP_EMU_FLUSH, 0, 0, t, &c), BASE);
	/* seq --write-cache switching the (members') cache: the controller's stays */
	ap_emu_model_set_write_cache(&m, true, t, &c);
	ap_emu_model_set_write_cache(&m, false, t, &c);
	assert_int_equal(c.cost_ns, 0);
	assert_true(m.nextents > 0);
	ap_emu_model_power_cut(&m);
	assert_true(m.cached > 0);

	/* a read of dirty data: the cache answers; of clean data: the members */
	assert_int_equal(req(&m, AP_EMU_READ, 40 * 192 * K + 4 * K, 4 * K, t, &c), front_ns(4 * K));
	assert_true(req(&m, AP_EMU_READ, 100 * 192 * K, 4 * K, t, &c) > front_ns(4 * K) + MS);
	ap_emu_model_destroy(&m);

	/* rewriting the same dirty 4 KiB: absorbed every time, never waits */
	model_for(&m, "raid5-bbu,size=256M,raid-cache=64K");
	t = T0;
	for (i = 0; i < 200; i++) {
		t += req(&m, AP_EMU_WRITE, (i % 8) * 8 * K + 4 * K * 20, 4 * K, t, &c);
		assert_false(c.rc_waited);
	}
	ap_emu_model_destroy(&m);

	/* the profile's 512 MiB: the probe's writes never fill it */
	model_for(&m, "raid5-bbu,size=256M");
	assert_int_equal(m.raid_cache, 512 * K * K);
	t = T0;
	for (i = 0; i < 500; i++) {
		ns = req(&m, AP_EMU_WRITE, (i * 7919ULL % 1000) * 192 * K + 512, 4 * K, t, &c);
		assert_int_equal(ns, front_ns(4 * K));
		t += ns;
	}
	ap_emu_model_destroy(&m);

	/* ... but 600 scattered places back to back: 512 dirty extents fill it by number */
	model_for(&m, "raid5-bbu,size=256M");
	t = T0;
	waited = 0;
	for (i = 0; i < 600; i++) {
		ns = req(&m, AP_EMU_WRITE, i * 192 * K + 512, 4 * K, t, &c);
		if (i < 500)
			assert_true(c.rc_absorbed);
		waited += c.rc_waited;
		t += ns;
	}
	print_message("raid5-bbu, 600 scattered 4 KiB writes: %u waited\n", waited);
	assert_true(waited > 50);
	assert_true(m.nextents <= AP_EMU_CACHE_EXTENTS);
	ap_emu_model_destroy(&m);
}

static void test_thin(void **state)
{
	struct ap_emu_model m;
	struct ap_emu_cost c;
	uint64_t fast;

	(void)state;
	model_for(&m, "thin-64k,size=64M,jitter=0");
	fast = 50 * US + 4 * K * 1000000000ULL / 1000000000ULL;	/* base + 1 GB/s */
	/* a whole unit: allocated, nothing copied */
	assert_int_equal(req(&m, AP_EMU_WRITE, 0, 64 * K, T0, &c),
			 50 * US + 64 * K + 100 * US);
	assert_int_equal(c.thin_allocs, 1);
	assert_int_equal(c.cow, 0);
	/* 4 KiB into a fresh unit, 4 KiB in: allocated, and the other 60 KiB copied */
	assert_int_equal(req(&m, AP_EMU_WRITE, 68 * K, 4 * K, T0, &c),
			 fast + 100 * US + 60 * K * 1000000000ULL / 100000000);
	assert_int_equal(c.thin_allocs, 1);
	assert_int_equal(c.cow, 1);
	/* the rewrite: flash only */
	assert_int_equal(req(&m, AP_EMU_WRITE, 68 * K, 4 * K, T0, &c), fast);
	assert_int_equal(c.thin_allocs + c.cow, 0);
	/* a write across into unit 2: unit 1 is mapped, unit 2 is copied from 32 KiB on */
	req(&m, AP_EMU_WRITE, 96 * K, 64 * K, T0, &c);
	assert_int_equal(c.thin_allocs, 1);
	assert_int_equal(c.cow, 1);
	assert_int_equal(c.cost_ns, 50 * US + 64 * K + 100 * US + 32 * K * 10);
	/* what issue 33 measured: a first 64 KiB write 4 KiB off two fresh clusters maps both
	 * and copies 4 + 60 KiB: 970 us, 4.5x the aligned first write's 216 us */
	assert_int_equal(req(&m, AP_EMU_WRITE, 4096 * K + 4 * K, 64 * K, T0, &c),
			 50 * US + 64 * K + 200 * US + 64 * K * 10);
	assert_int_equal(c.thin_allocs, 2);
	assert_int_equal(c.cow, 2);
	/* reads cost what they cost, mapped or not */
	assert_int_equal(req(&m, AP_EMU_READ, 10 * 1024 * K, 4 * K, T0, &c), fast);
	ap_emu_model_destroy(&m);

	/* thin-1m: a 1 MiB unit, copied at 200 MB/s */
	model_for(&m, "thin-1m,size=64M,jitter=0");
	req(&m, AP_EMU_WRITE, 4 * K, 4 * K, T0, &c);
	assert_int_equal(c.cow, 1);
	assert_int_equal(c.cost_ns, 80 * US + 4 * K * 2 + 200 * US + (1024 - 4) * K * 5);
	ap_emu_model_destroy(&m);
}

/* qcow2's extended_l2: 32 subclusters a cluster, each copied on its first write */
static void test_thin_subclusters(void **state)
{
	struct ap_emu_model m;
	struct ap_emu_cost c;

	(void)state;
	model_for(&m, "thin-64k,size=64M,jitter=0,thin-sub=on");
	/* 4 KiB at 0: two whole 2 KiB subclusters, nothing to copy */
	req(&m, AP_EMU_WRITE, 0, 4 * K, T0, &c);
	assert_int_equal(c.thin_allocs, 1);
	assert_int_equal(c.cow, 0);
	/* 1 KiB at 8.5 KiB: the cluster is mapped, its fifth subcluster is copied (1 KiB) */
	req(&m, AP_EMU_WRITE, 8 * K + 512, 1 * K, T0, &c);
	assert_int_equal(c.thin_allocs, 0);
	assert_int_equal(c.cow, 1);
	assert_int_equal(c.cost_ns, 50 * US + 1 * K + 1 * K * 10);
	/* again: written now */
	req(&m, AP_EMU_WRITE, 8 * K + 512, 1 * K, T0, &c);
	assert_int_equal(c.cow, 0);
	/* 4 KiB at 1 KiB in a fresh cluster: the first and third subclusters copied in part */
	req(&m, AP_EMU_WRITE, 64 * K + 1 * K, 4 * K, T0, &c);
	assert_int_equal(c.thin_allocs, 1);
	assert_int_equal(c.cow, 2);
	ap_emu_model_destroy(&m);
}

/* A pool of two units: the third unit's first write is refused, nothing changes */
static void test_thin_pool_full(void **state)
{
	struct ap_emu_model m;
	struct ap_emu_cost c;

	(void)state;
	model_for(&m, "thin-64k,size=64M,jitter=0,thin-pool=128K");
	req(&m, AP_EMU_WRITE, 0, 4 * K, T0, &c);
	assert_false(c.fail);
	req(&m, AP_EMU_WRITE, 1024 * K, 4 * K, T0, &c);
	assert_false(c.fail);
	req(&m, AP_EMU_WRITE, 2048 * K, 4 * K, T0, &c);
	assert_true(c.fail);
	assert_true(c.nospc);
	assert_int_equal(c.thin_allocs, 0);
	/* a write across a mapped unit into a fresh one: refused whole */
	req(&m, AP_EMU_WRITE, 60 * K, 8 * K, T0, &c);
	assert_true(c.nospc);
	/* the mapped units stay writable */
	req(&m, AP_EMU_WRITE, 8 * K, 4 * K, T0, &c);
	assert_false(c.fail);
	assert_int_equal(m.thin_allocated, 2);
	ap_emu_model_destroy(&m);
}

/* Thin over RAID: the mapping's cost first, then the stripe's */
static void test_thin_over_raid(void **state)
{
	struct ap_emu_model m;
	struct ap_emu_cost c;

	(void)state;
	model_for(&m, "raid5-4x64k,size=256M,thin=192K");
	req(&m, AP_EMU_WRITE, 0, 192 * K, T0, &c);
	assert_int_equal(c.thin_allocs, 1);
	assert_int_equal(c.cow, 0);
	assert_int_equal(c.full_stripes, 1);
	ap_emu_model_destroy(&m);
}

static void test_volume_spec(void **state)
{
	static const struct {
		const char *spec, *msg;
	} bad[] = {
		{ "raid5-4x64k,raid=7", "raid '7': expected 5, 6 or off" },
		{ "hdd-7200,raidd=5", "unknown emulator parameter 'raidd' (known: profile, model," },
		{ "raid5-4x64k,members=2", "members '2': expected 3 to 18" },
		{ "raid6-6x128k,members=3", "raid=6: needs at least 4 members, not 3" },
		{ "raid5-4x64k,chunk=3000", "chunk '3000': a power of two" },
		{ "raid5-4x64k,chunk=4K,phys=8K", "chunk 4096: smaller than the members' physical" },
		{ "raid5-4x64k,model=flash", "raid=5: the members are rotating disks" },
		{ "raid5-4x64k,cache=on", "raid=5: the members' caches are off" },
		{ "hdd-7200,raid-cache=1M", "raid-cache: only a parity RAID volume" },
		{ "thin-64k,thin=6K", "thin '6K': a multiple of 4 KiB" },
		{ "thin-64k,thin=8K,thin-sub=on", "thin-sub: the unit (8192) must be a multiple of 16 KiB" },
		{ "thin-64k,thin-pool=4K", "thin-pool 4096: smaller than one unit" },
		{ "hdd-7200,thin-pool=1M", "thin-sub, thin-pool: only a thin volume" },
		{ "thin-64k,size=2T,thin=64K", "more than 16777216 units" },
		{ "thin-64k,thin-copy=0", "thin-copy '0': a rate above 0" },
		{ "thin-64k,thin-alloc=5", "thin-alloc '5': a duration up to 1s" },
		{ "thin-64k,thin-alloc=2s", "thin-alloc '2s': a duration up to 1s" },
		{ "thin-64k,subclusters=maybe", "thin-sub 'maybe': expected on or off" },
		{ "hdd-7200,min-io=1000", "min-io '1000': not a multiple of 512" },
		{ "hdd-7200,min-io=128K,opt-io=320K", "opt-io 327680: not a multiple of min-io" },
	};
	struct ap_emu_spec s;
	struct ap_error e;
	size_t i;
	char *str;

	(void)state;
	for (i = 0; i < AP_ARRAY_SIZE(bad); i++) {
		ap_emu_spec_init(&s);
		memset(&e, 0, sizeof(e));
		assert_int_equal(ap_emu_spec_parse(bad[i].spec, &s, &e), -EINVAL);
		if (!strstr(e.msg, bad[i].msg))
			fail_msg("%s: '%s' lacks '%s'", bad[i].spec, e.msg, bad[i].msg);
		ap_emu_spec_free(&s);
	}
	/* the profiles' volumes, and what they claim */
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("raid6-6x128k", &s, &e), 0);
	assert_int_equal(s.raid_level, 6);
	assert_int_equal(s.raid_members, 6);
	assert_int_equal(s.raid_chunk, 128 * K);
	assert_int_equal(s.claim_min_io, 128 * K);
	assert_int_equal(s.claim_opt_io, 512 * K);
	str = ap_emu_spec_format(&s);
	assert_non_null(strstr(str, ",raid=6,members=6,chunk=131072,min-io=131072,opt-io=524288"));
	assert_round_trip(str);
	ap_emu_spec_free(&s);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("raid5-4x64k", &s, &e), 0);
	assert_int_equal(s.claim_min_io + s.claim_opt_io, 0);	/* a controller that says nothing */
	ap_emu_spec_free(&s);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("thin-64k,thin-sub=on,thin-pool=1M,thin-alloc=150us", &s,
					   &e), 0);
	str = ap_emu_spec_format(&s);
	assert_non_null(strstr(str, ",thin=65536,thin-sub=on,thin-alloc=150us,thin-copy=100000000,"
				    "thin-pool=1048576"));
	assert_round_trip(str);
	ap_emu_spec_free(&s);
	/* raid=off takes a profile's volume away */
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("raid5-bbu,raid=off,raid-cache=0", &s, &e), 0);
	assert_int_equal(s.raid_level, 0);
	ap_emu_spec_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_raid_stripes),
		cmocka_unit_test(test_raid_exact_costs),
		cmocka_unit_test(test_raid_levels),
		cmocka_unit_test(test_raid_cache),
		cmocka_unit_test(test_thin),
		cmocka_unit_test(test_thin_subclusters),
		cmocka_unit_test(test_thin_pool_full),
		cmocka_unit_test(test_thin_over_raid),
		cmocka_unit_test(test_volume_spec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
