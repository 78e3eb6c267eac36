// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The hdd model's persistent media cache (emu/smr.c): drive-managed SMR and
 * hybrid disks, their profiles, the cliff and the idle cleaning, against
 * the conventional profiles that must never look like them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu/model.h"
#include "lib/util.h"
#include "emu_fixture.h"

#define MS	1000000ULL

/* A random 4 KiB-aligned offset over the whole 1 GiB capacity. */
static uint64_t random_off(struct ap_emu_model *m)
{
	double u = (ap_emu_model_uniform(m) + 1) / 2;

	return (uint64_t)(u * (double)((1ULL << 30) / 4096 - 1)) * 4096;
}

/*
 * The median cost of @n synchronous random 4 KiB writes (a write then a
 * flush, as O_DSYNC is with the cache on), @cache on or off.
 */
static uint64_t sync_writes(const char *spec, bool cache, unsigned n, unsigned *in_pcache)
{
	static struct ap_emu_model m;
	struct ap_emu_cost c;
	uint64_t t = T0, ns[64], x;
	unsigned i, j;

	assert_true(n <= 64);
	model_for(&m, spec);
	ap_emu_model_set_write_cache(&m, cache, t, &c);
	*in_pcache = 0;
	for (i = 0; i < n; i++) {
		ap_emu_model_request(&m, AP_EMU_WRITE, random_off(&m), 4096, 0, t, &c);
		x = c.cost_ns;
		*in_pcache += c.pcache;
		t += c.cost_ns;
		if (cache) {
			ap_emu_model_request(&m, AP_EMU_FLUSH, 0, 0, 0, t, &c);
			x += c.cost_ns;
			*in_pcache += c.pcache;
			t += c.cost_ns;
		}
		ns[i] = x;
		t += 100000;	/* the host's own time between writes */
	}
	for (i = 1; i < n; i++)		/* insertion sort: the median */
		for (j = i; j > 0 && ns[j - 1] > ns[j]; j--) {
			x = ns[j];
			ns[j] = ns[j - 1];
			ns[j - 1] = x;
		}
	return ns[n / 2];
}

static void test_profiles(void **state)
{
	static const char *const names[] = { "cmr-7200", "smr-trim", "smr-notrim", "sshd" };
	struct ap_emu_spec s;
	struct ap_error e;
	size_t i;

	(void)state;
	for (i = 0; i < AP_ARRAY_SIZE(names); i++) {
		ap_emu_spec_init(&s);
		assert_int_equal(ap_emu_spec_parse(names[i], &s, &e), 0);
		assert_int_equal(s.model, AP_EMU_MODEL_HDD);
		assert_true(s.write_cache);
		assert_round_trip(ap_emu_spec_format(&s));
		assert_non_null(strstr(ap_emu_profile_names(), names[i]));
	}
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("smr-trim", &s, &e), 0);
	assert_false(s.no_trim);
	assert_true(s.pcache_size == 256ULL << 20);
	assert_true(s.band_size == 32ULL << 20);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("smr-notrim", &s, &e), 0);
	assert_true(s.no_trim);
	assert_true(s.band_size == 32ULL << 20);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("sshd", &s, &e), 0);
	assert_true(s.pcache_size > 0);
	assert_true(s.band_size == 0);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("cmr-7200", &s, &e), 0);
	assert_true(s.pcache_size == 0);
	assert_true(s.no_trim);
	/* the conventional and bridge profiles have none */
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("usb-bridge-noflush", &s, &e), 0);
	assert_true(s.pcache_size == 0);
	/* bad input */
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("model=flash,pcache=1M", &s, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "model=hdd"));
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("hdd-7200,band=big", &s, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "band"));
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("hdd-7200,clean-idle=5", &s, &e), -EINVAL);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("hdd-7200,trim=maybe", &s, &e), -EINVAL);
}

/* Random synchronous writes: the persistent cache answers them below a seek. */
static void test_fast_random_writes(void **state)
{
	static const char *const fast[] = { "smr-trim", "smr-notrim", "sshd" };
	unsigned in_pcache, i;
	uint64_t on, off;

	(void)state;
	for (i = 0; i < AP_ARRAY_SIZE(fast); i++) {
		on = sync_writes(fast[i], true, 41, &in_pcache);
		assert_true(in_pcache >= 41);
		off = sync_writes(fast[i], false, 41, &in_pcache);
		assert_int_equal(in_pcache, 41);
		/* far below a 1.5 ms settle plus any rotation */
		assert_true(on < MS);
		assert_true(off < MS);
	}
	/* conventional: every one pays a seek and the platter, cache on or off */
	assert_true(sync_writes("cmr-7200", true, 41, &in_pcache) > 3 * MS);
	assert_int_equal(in_pcache, 0);
	assert_true(sync_writes("cmr-7200", false, 41, &in_pcache) > 3 * MS);
	assert_int_equal(in_pcache, 0);
	/* the bridge is fast with its cache on only (it drops flushes), never in a pcache */
	assert_true(sync_writes("usb-bridge-noflush", true, 41, &in_pcache) < MS);
	assert_int_equal(in_pcache, 0);
	assert_true(sync_writes("usb-bridge-noflush", false, 41, &in_pcache) > 3 * MS);
	assert_int_equal(in_pcache, 0);
}

/* A band-long write goes to its place; a write within a band joins its unit. */
static void test_units(void **state)
{
	static struct ap_emu_model m;
	struct ap_emu_cost c;

	(void)state;
	model_for(&m, "smr-notrim,cache=off");
	ap_emu_model_request(&m, AP_EMU_WRITE, 0, 32ULL << 20, 0, T0, &c);
	assert_false(c.pcache);
	assert_int_equal(m.pc.n, 0);
	ap_emu_model_request(&m, AP_EMU_WRITE, 4096, 4096, 0, T0 + MS, &c);
	ap_emu_model_request(&m, AP_EMU_WRITE, 65536, 4096, 0, T0 + 2 * MS, &c);
	assert_true(c.pcache);
	assert_int_equal(m.pc.n, 1);		/* one band */
	assert_true(m.pc.used == 8192);
	ap_emu_model_request(&m, AP_EMU_WRITE, 32ULL << 20, 4096, 0, T0 + 3 * MS, &c);
	assert_int_equal(m.pc.n, 2);
	/* the hybrid keeps each write */
	model_for(&m, "sshd,cache=off");
	ap_emu_model_request(&m, AP_EMU_WRITE, 4096, 4096, 0, T0, &c);
	ap_emu_model_request(&m, AP_EMU_WRITE, 65536, 4096, 0, T0 + MS, &c);
	assert_int_equal(m.pc.n, 2);
	/* a power cut keeps the persistent cache */
	ap_emu_model_power_cut(&m);
	ap_emu_model_power_on(&m);
	assert_int_equal(m.pc.n, 2);
}

/* Full: the write that finds no room waits for a batch of bands (the cliff). */
static void test_cliff(void **state)
{
	static struct ap_emu_model m;
	struct ap_emu_cost c;
	uint64_t t = T0, off;
	unsigned i, stalls = 0;

	(void)state;
	/* 64 KiB of cache: 16 writes of 4 KiB, no idle cleaning within the run */
	model_for(&m, "smr-notrim,cache=off,pcache=64K,clean-idle=60s");
	for (i = 0; i < 16; i++) {
		off = (uint64_t)i * (32ULL << 20) + 4096;
		ap_emu_model_request(&m, AP_EMU_WRITE, off, 4096, 0, t, &c);
		assert_true(c.pcache);
		assert_true(c.stall_ns == 0);
		assert_true(c.cost_ns < MS);
		t += c.cost_ns + 100000;
	}
	assert_true(m.pc.used == 65536);
	ap_emu_model_request(&m, AP_EMU_WRITE, 20ULL << 20, 4096, 0, t, &c);
	assert_true(c.pcache);
	assert_int_equal(c.cleaned, AP_EMU_PCACHE_BATCH);
	/* each band: read and rewrite 32 MiB at 5400 rpm (27 tracks each way) */
	assert_true(c.stall_ns > AP_EMU_PCACHE_BATCH * 2 * 26 * 11 * MS);
	assert_true(c.cost_ns > 2000 * MS);	/* a multi-second stall */
	assert_int_equal(m.pc.n, 16 + 1 - AP_EMU_PCACHE_BATCH);
	/* sustained: stalls keep coming, one every batch of writes */
	t += c.cost_ns;
	for (i = 0; i < 3 * AP_EMU_PCACHE_BATCH; i++) {
		ap_emu_model_request(&m, AP_EMU_WRITE, (uint64_t)(18 + i) * (32ULL << 20), 4096,
				     0, t, &c);
		stalls += c.stall_ns > 0;
		t += c.cost_ns;
	}
	assert_int_equal(stalls, 3);
	/* the hybrid's cleaning puts each write in its place: a seek each, no band */
	model_for(&m, "sshd,cache=off,pcache=8K,clean-idle=60s");
	ap_emu_model_request(&m, AP_EMU_WRITE, 4096, 4096, 0, T0, &c);
	ap_emu_model_request(&m, AP_EMU_WRITE, 1ULL << 29, 4096, 0, T0 + MS, &c);
	ap_emu_model_request(&m, AP_EMU_WRITE, 1ULL << 28, 4096, 0, T0 + 2 * MS, &c);
	assert_int_equal(c.cleaned, 2);
	assert_true(c.stall_ns > 2 * MS && c.stall_ns < 100 * MS);
}

/* Idle: the drive cleans after clean-idle; a request in the middle waits. */
static void test_idle_cleaning(void **state)
{
	static struct ap_emu_model m;
	struct ap_emu_cost c;
	uint64_t t = T0;
	unsigned i;

	(void)state;
	model_for(&m, "smr-notrim,cache=off,clean-idle=1s");
	for (i = 0; i < 8; i++) {
		ap_emu_model_request(&m, AP_EMU_WRITE, (uint64_t)i * (64ULL << 20), 4096, 0, t, &c);
		t += c.cost_ns + 100000;
	}
	assert_int_equal(m.pc.n, 8);
	/* not idle long enough: nothing cleaned */
	ap_emu_model_request(&m, AP_EMU_READ, 0, 4096, 0, t + 900 * MS, &c);
	assert_int_equal(c.cleaned, 0);
	assert_int_equal(m.pc.n, 8);
	t += 900 * MS + c.cost_ns;
	/* 1 s idle and a little: the first band is being cleaned, the read waits */
	ap_emu_model_request(&m, AP_EMU_READ, 0, 4096, 0, t + 1000 * MS + MS, &c);
	assert_int_equal(c.cleaned, 1);
	assert_true(c.cost_ns > 100 * MS);
	assert_int_equal(m.pc.n, 7);
	t += 1001 * MS + c.cost_ns;
	/* a minute idle: everything is clean, the next request does not wait */
	ap_emu_model_request(&m, AP_EMU_READ, 0, 4096, 0, t + 60000 * MS, &c);
	assert_int_equal(c.cleaned, 7);
	assert_int_equal(m.pc.n, 0);
	assert_true(m.pc.used == 0);
	assert_true(c.cost_ns < 40 * MS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profiles),
		cmocka_unit_test(test_fast_random_writes),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_cliff),
		cmocka_unit_test(test_idle_cleaning),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
