// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The pure parts of seq --write-cache: the sysfs values (device/cache.c),
 * the state registry's record of the state found, and the emulated drive's
 * model switched at run time (destaging what it holds when switched off),
 * and the order of the two switches: never the model's cache on while the
 * kernel sends no flushes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device/cache.h"
#include "device/cachectl.h"
#include "emu/emu.h"
#include "emu/model.h"

static void test_values(void **state)
{
	bool wce, rcd;

	(void)state;
	assert_int_equal(ap_wcache_value_parse("write back", &wce, &rcd), 0);
	assert_true(wce);
	assert_false(rcd);
	assert_int_equal(ap_wcache_value_parse("write through", &wce, &rcd), 0);
	assert_false(wce);
	assert_false(rcd);
	assert_int_equal(ap_wcache_value_parse("none", &wce, &rcd), 0);
	assert_false(wce);
	assert_true(rcd);
	assert_int_equal(ap_wcache_value_parse("write back, no read (daft)", &wce, &rcd), 0);
	assert_true(wce);
	assert_true(rcd);
	assert_int_equal(ap_wcache_value_parse("temporary write through", &wce, &rcd), 0);
	assert_false(wce);
	assert_int_equal(ap_wcache_value_parse("write", &wce, &rcd), -EINVAL);
	assert_int_equal(ap_wcache_value_parse(NULL, &wce, &rcd), -EINVAL);

	/* the RCD bit is kept; never "temporary " (that would not reach the drive) */
	assert_string_equal(ap_wcache_value(AP_WCACHE_SCSI, true, false), "write back");
	assert_string_equal(ap_wcache_value(AP_WCACHE_SCSI, false, false), "write through");
	assert_string_equal(ap_wcache_value(AP_WCACHE_SCSI, false, true), "none");
	assert_string_equal(ap_wcache_value(AP_WCACHE_SCSI, true, true),
			    "write back, no read (daft)");
	assert_string_equal(ap_wcache_value(AP_WCACHE_QUEUE, true, true), "write back");
	assert_string_equal(ap_wcache_value(AP_WCACHE_QUEUE, false, false), "write through");
}

static void test_record(void **state)
{
	char *aux, *backing, *orig;
	int model;

	(void)state;
	aux = ap_wcache_record_aux(1, "/tmp/alignprobe-emu.X/mnt/disk", "write back");
	assert_string_equal(aux, "model=on;orig=write back;backing=/tmp/alignprobe-emu.X/mnt/disk");
	assert_int_equal(ap_wcache_record_parse(aux, &model, &backing, &orig), 0);
	assert_int_equal(model, 1);
	assert_string_equal(backing, "/tmp/alignprobe-emu.X/mnt/disk");
	assert_string_equal(orig, "write back");
	free(aux);
	free(backing);
	free(orig);

	/* a SCSI disk: no model, no backing file; the value keeps its comma */
	aux = ap_wcache_record_aux(-1, NULL, "write back, no read (daft)");
	assert_int_equal(ap_wcache_record_parse(aux, &model, &backing, &orig), 0);
	assert_int_equal(model, -1);
	assert_null(backing);
	assert_string_equal(orig, "write back, no read (daft)");
	free(aux);
	free(orig);

	/* the path comes last: a ';' in it is read back whole */
	aux = ap_wcache_record_aux(0, "/a;b=c", "write through");
	assert_int_equal(ap_wcache_record_parse(aux, &model, &backing, &orig), 0);
	assert_int_equal(model, 0);
	assert_string_equal(backing, "/a;b=c");
	assert_string_equal(orig, "write through");
	free(aux);
	free(backing);
	free(orig);
	assert_int_equal(ap_wcache_record_parse("model=on;orig=write back", &model, &backing, &orig),
			 -EINVAL);
	assert_int_equal(ap_wcache_record_parse("model=maybe;orig=x;backing=", &model, &backing,
						&orig), -EINVAL);
	assert_int_equal(ap_wcache_record_parse("model=on;orig=;backing=", &model, &backing, &orig),
			 -EINVAL);
	assert_int_equal(ap_wcache_record_parse(NULL, &model, &backing, &orig), -EINVAL);
	assert_int_equal(ap_wcache_record_parse("model=off;orig=write through;backing=/x\n", &model,
						&backing, &orig), -EINVAL);
}

/* The simple model: switched off, the partial sectors it owes are paid at once. */
static void test_model_simple(void **state)
{
	struct ap_emu_spec s;
	struct ap_emu_model m;
	struct ap_emu_cost c;

	(void)state;
	ap_emu_spec_init(&s);
	s.write_cache = true;
	s.rmw_ns = 1000;
	ap_emu_model_init(&m, &s);
	ap_emu_model_request(&m, AP_EMU_WRITE, 512, 4096, 0, 0, &c);	/* 2 partial */
	assert_int_equal(c.cost_ns, 0);
	assert_int_equal(c.rmw, 2);
	ap_emu_model_set_write_cache(&m, false, 0, &c);
	assert_int_equal(c.cost_ns, 2000);
	assert_int_equal(c.rmw, 0);	/* counted when written */
	assert_false(m.write_cache);
	/* off: a partial write pays at once, a flush nothing more */
	ap_emu_model_request(&m, AP_EMU_WRITE, 512, 4096, 0, 0, &c);
	assert_int_equal(c.cost_ns, 2000);
	ap_emu_model_request(&m, AP_EMU_FLUSH, 0, 0, 0, 0, &c);
	assert_int_equal(c.cost_ns, 0);
	/* on again: nothing to do; the writes are cached again */
	ap_emu_model_set_write_cache(&m, true, 0, &c);
	assert_int_equal(c.cost_ns, 0);
	assert_true(m.write_cache);
	ap_emu_model_request(&m, AP_EMU_WRITE, 512, 4096, 0, 0, &c);
	assert_int_equal(c.cost_ns, 0);
	/* the same state again: nothing */
	ap_emu_model_set_write_cache(&m, true, 0, &c);
	assert_int_equal(c.cost_ns, 0);
	ap_emu_spec_free(&s);
}

/* The hdd model: switched off, the cache is destaged (RMW at the merged edges only). */
static void test_model_hdd(void **state)
{
	struct ap_emu_spec s;
	struct ap_emu_model m;
	struct ap_emu_cost c;
	struct ap_error e;
	unsigned i;

	(void)state;
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_profile(&s, "hdd-7200", &e), 0);
	s.write_cache = true;
	s.jitter = 0;
	ap_emu_model_init(&m, &s);
	/* 8 adjacent 4 KiB writes from 512: one extent, partial at both edges */
	for (i = 0; i < 8; i++) {
		ap_emu_model_request(&m, AP_EMU_WRITE, 512 + i * 4096ULL, 4096, 0, 0, &c);
		assert_int_equal(c.rmw, 0);
	}
	assert_int_equal(m.nextents, 1);
	ap_emu_model_set_write_cache(&m, false, 0, &c);
	assert_int_equal(c.destaged, 1);
	assert_int_equal(c.rmw, 2);
	assert_true(c.cost_ns >= m.rev_ns);	/* at least the RMW's revolution */
	assert_int_equal(m.nextents, 0);
	assert_int_equal(m.cached, 0);
	/* off: the next write goes to the media, with its own RMW */
	ap_emu_model_request(&m, AP_EMU_WRITE, 512, 4096, 0, 0, &c);
	assert_int_equal(c.rmw, 2);
	assert_int_equal(m.nextents, 0);
	/* switched off again: nothing to destage */
	ap_emu_model_set_write_cache(&m, false, 0, &c);
	assert_int_equal(c.destaged, 0);
	assert_int_equal(c.cost_ns, 0);
	ap_emu_spec_free(&s);
}

/* the loop device's queue/write_cache, a file here, when the model is switched */
static char order_attr[64];
static int order_calls, order_bad;

static int order_set(const char *dev, bool on)
{
	char buf[32] = "";
	FILE *f = fopen(order_attr, "r");

	(void)dev;
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	order_calls++;
	/* on or off, the kernel must be sending flushes at this moment */
	if (strncmp(buf, "write back", 10) != 0)
		order_bad++;
	return 0;
}

static void test_switch_order(void **state)
{
	static const struct ap_cache_model mops = { .set = order_set };
	struct ap_cachectl c;
	struct ap_error e = { 0 };
	int fd;

	(void)state;
	strcpy(order_attr, "/tmp/alignprobe-wcache-order.XXXXXX");
	fd = mkstemp(order_attr);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "write back", 10), 10);
	close(fd);

	memset(&c, 0, sizeof(c));
	c.mops = &mops;
	c.model = 1;
	c.w.how = AP_WCACHE_QUEUE;
	c.w.attr = strdup(order_attr);
	c.w.orig = strdup("write back");
	c.w.orig_on = true;
	c.dev = strdup("/dev/loop99");

	order_calls = order_bad = 0;
	assert_int_equal(ap_cachectl_set(&c, false, &e), 0);	/* model off, then the kernel */
	assert_int_equal(ap_cachectl_set(&c, true, &e), 0);	/* the kernel on, then the model */
	assert_int_equal(ap_cachectl_set(&c, false, &e), 0);
	assert_int_equal(ap_cachectl_restore(&c, &e), 0);	/* back on: the kernel first */
	assert_int_equal(order_calls, 4);
	assert_int_equal(order_bad, 0);

	/* a model found off, a kernel found writing through: restored, off first */
	c.model = 0;
	free(c.w.orig);
	c.w.orig = strdup("write through");
	order_calls = order_bad = 0;
	assert_int_equal(ap_cachectl_set(&c, true, &e), 0);
	assert_int_equal(ap_cachectl_restore(&c, &e), 0);
	assert_int_equal(order_calls, 2);
	assert_int_equal(order_bad, 0);

	unlink(order_attr);
	ap_cachectl_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_record),
		cmocka_unit_test(test_model_simple),
		cmocka_unit_test(test_model_hdd),
		cmocka_unit_test(test_switch_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
