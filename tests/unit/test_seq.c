// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "seq/seq.h"

static void test_knee(void **state)
{
	const uint64_t bs[] = { 4096, 16384, 65536, 262144, 1048576 };
	double a[] = { 10, 50, 96, 100, 99 };
	double b[] = { 10, 50, 94.9, 100, 99 };
	double c[] = { NAN, NAN, NAN, NAN, NAN };
	double d[] = { NAN, 80, NAN, 82, 70 };
	double f[] = { 100, 20, 30, 40, 50 };	/* best at the smallest */
	double g[] = { 95, 100, 100, 100, 100 };	/* exactly 5 % below: in */

	(void)state;
	assert_int_equal(ap_seq_knee(bs, a, 5, AP_SEQ_KNEE_TOLERANCE), 2);
	assert_int_equal(ap_seq_knee(bs, b, 5, AP_SEQ_KNEE_TOLERANCE), 3);
	assert_int_equal(ap_seq_knee(bs, c, 5, AP_SEQ_KNEE_TOLERANCE), -1);
	assert_int_equal(ap_seq_knee(bs, d, 5, AP_SEQ_KNEE_TOLERANCE), 1);
	assert_int_equal(ap_seq_knee(bs, f, 5, AP_SEQ_KNEE_TOLERANCE), 0);
	assert_int_equal(ap_seq_knee(bs, g, 5, AP_SEQ_KNEE_TOLERANCE), 0);
	assert_int_equal(ap_seq_knee(bs, a, 0, AP_SEQ_KNEE_TOLERANCE), -1);
	/* a tighter tolerance moves the knee right */
	assert_int_equal(ap_seq_knee(bs, a, 5, 0.0), 3);
}

static void test_bs_parse(void **state)
{
	struct ap_error e;
	uint64_t *v = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(ap_seq_bs_parse("1M,4K,64KiB", &v, &n, &e), 0);
	assert_int_equal(n, 3);
	assert_int_equal(v[0], 4096);
	assert_int_equal(v[1], 65536);
	assert_int_equal(v[2], 1048576);
	free(v);
	assert_int_equal(ap_seq_bs_parse("512", &v, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_int_equal(v[0], 512);
	free(v);
	assert_int_equal(ap_seq_bs_parse("1G", &v, &n, &e), 0);
	free(v);
	assert_int_equal(ap_seq_bs_parse("", &v, &n, &e), -EINVAL);
	assert_int_equal(ap_seq_bs_parse(",", &v, &n, &e), -EINVAL);
	/* an empty item is a mistake, as in -o A,,B; not skipped */
	assert_int_equal(ap_seq_bs_parse("4K,,1M", &v, &n, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "empty block size"));
	assert_int_equal(ap_seq_bs_parse("4K,", &v, &n, &e), -EINVAL);
	/* not a power of two, but a multiple of 512: accepted */
	assert_int_equal(ap_seq_bs_parse("3K", &v, &n, &e), 0);
	assert_int_equal(v[0], 3072);
	free(v);
	assert_int_equal(ap_seq_bs_parse("4K,x", &v, &n, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "'x'"));
	assert_int_equal(ap_seq_bs_parse("4K,1000", &v, &n, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "multiple of 512"));
	assert_int_equal(ap_seq_bs_parse("256", &v, &n, &e), -EINVAL);
	assert_int_equal(ap_seq_bs_parse("2G", &v, &n, &e), -EINVAL);
	assert_int_equal(ap_seq_bs_parse("0", &v, &n, &e), -EINVAL);
	assert_int_equal(ap_seq_bs_parse("4K,4096", &v, &n, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "twice"));
	assert_int_equal(ap_seq_bs_parse("-4K", &v, &n, &e), -EINVAL);
}

static void test_bs_default(void **state)
{
	uint64_t v[16];

	(void)state;
	assert_int_equal(ap_seq_bs_default(1ULL << 40, v, 16), 10);
	assert_int_equal(v[0], 4096);
	assert_int_equal(v[1], 16384);
	assert_int_equal(v[9], 1ULL << 30);
	assert_int_equal(ap_seq_bs_default(256ULL << 20, v, 16), 9);
	assert_int_equal(v[8], 256ULL << 20);
	assert_int_equal(ap_seq_bs_default((256ULL << 20) - 1, v, 16), 8);
	assert_int_equal(ap_seq_bs_default(4096, v, 16), 1);
	assert_int_equal(ap_seq_bs_default(4095, v, 16), 0);
	assert_int_equal(ap_seq_bs_default(1ULL << 40, v, 3), 3);
}

static void test_mode_table(void **state)
{
	enum ap_seq_mode m;
	unsigned i;

	(void)state;
	/* what each mode promises */
	assert_false(ap_seq_modes[AP_SEQ_NONE].stable);
	assert_false(ap_seq_modes[AP_SEQ_DIRECT_NOSYNC].stable);
	assert_true(ap_seq_modes[AP_SEQ_SYNC_AFTER].stable);
	assert_true(ap_seq_modes[AP_SEQ_FDATASYNC].stable);
	assert_true(ap_seq_modes[AP_SEQ_DSYNC].stable);
	assert_true(ap_seq_modes[AP_SEQ_SYNC].stable);
	assert_true(ap_seq_modes[AP_SEQ_DIRECT].stable);
	assert_int_equal(ap_seq_modes[AP_SEQ_DSYNC].oflags, O_DSYNC);
	assert_int_equal(ap_seq_modes[AP_SEQ_SYNC].oflags, O_SYNC);
	assert_int_equal(ap_seq_modes[AP_SEQ_DIRECT].oflags, O_DIRECT | O_DSYNC);
	assert_int_equal(ap_seq_modes[AP_SEQ_DIRECT_NOSYNC].oflags, O_DIRECT);
	assert_int_equal(ap_seq_modes[AP_SEQ_NONE].oflags, 0);
	assert_int_equal(ap_seq_modes[AP_SEQ_FDATASYNC].end, AP_SEQ_END_FDATASYNC);
	assert_int_equal(ap_seq_modes[AP_SEQ_SYNC_AFTER].end, AP_SEQ_END_SYNC_AFTER);
	assert_int_equal(ap_seq_modes[AP_SEQ_DSYNC].end, AP_SEQ_END_NONE);
	assert_true(ap_seq_modes[AP_SEQ_READ_DIRECT].read);
	assert_int_equal(ap_seq_modes[AP_SEQ_READ_DIRECT].oflags, O_DIRECT);
	assert_true(ap_seq_modes[AP_SEQ_READ_CACHED].read);
	assert_non_null(strstr(ap_seq_modes[AP_SEQ_FDATASYNC].dd, "conv=notrunc,fdatasync"));
	assert_non_null(strstr(ap_seq_modes[AP_SEQ_DIRECT].dd, "oflag=direct,dsync"));
	for (i = 0; i < AP_SEQ_NMODES; i++) {
		assert_non_null(ap_seq_modes[i].name);
		assert_non_null(ap_seq_modes[i].help);
		assert_int_equal(ap_seq_mode_parse(ap_seq_modes[i].name, &m), 0);
		assert_int_equal(m, i);
	}
	assert_int_equal(ap_seq_mode_parse("odirect", &m), -EINVAL);
}

/* the DD column: "bs=BS" filled in the way dd reads sizes */
static void test_dd_line(void **state)
{
	static const struct {
		enum ap_seq_mode m;
		uint64_t bs;
		const char *want;
	} cases[] = {
		{ AP_SEQ_NONE, 4096, "dd bs=4K conv=notrunc" },
		{ AP_SEQ_FDATASYNC, 1 << 20, "dd bs=1M conv=notrunc,fdatasync" },
		{ AP_SEQ_DIRECT, 1ULL << 30, "dd bs=1G conv=notrunc oflag=direct,dsync" },
		{ AP_SEQ_SYNC_AFTER, 1536, "dd bs=1536 conv=notrunc && sync" },
		{ AP_SEQ_DSYNC, 512, "dd bs=512 conv=notrunc oflag=dsync" },
		{ AP_SEQ_READ_DIRECT, 3 << 20, "dd of=/dev/null bs=3M iflag=direct" },
	};
	unsigned i;

	(void)state;
	for (i = 0; i < AP_ARRAY_SIZE(cases); i++) {
		char *s = ap_seq_dd_line(cases[i].m, cases[i].bs);

		assert_string_equal(s, cases[i].want);
		free(s);
	}
	for (i = 0; i < AP_SEQ_NMODES; i++) {
		char *s = ap_seq_dd_line((enum ap_seq_mode)i, 65536);

		assert_null(strstr(s, "BS"));
		assert_non_null(strstr(s, "bs=64K"));
		free(s);
	}
}

static void test_modes_parse(void **state)
{
	struct ap_error e;
	unsigned mask;

	(void)state;
	assert_int_equal(ap_seq_modes_parse("dsync,none", &mask, &e), 0);
	assert_int_equal(mask, (1u << AP_SEQ_DSYNC) | (1u << AP_SEQ_NONE));
	assert_int_equal(ap_seq_modes_parse("default", &mask, &e), 0);
	assert_int_equal(mask, (1u << AP_SEQ_NONE) | (1u << AP_SEQ_SYNC_AFTER) |
			 (1u << AP_SEQ_FDATASYNC) | (1u << AP_SEQ_DSYNC) |
			 (1u << AP_SEQ_SYNC) | (1u << AP_SEQ_DIRECT));
	assert_int_equal(ap_seq_modes_parse("all", &mask, &e), 0);
	assert_true(mask & (1u << AP_SEQ_DIRECT_NOSYNC));
	assert_false(mask & (1u << AP_SEQ_READ_DIRECT));
	assert_int_equal(ap_seq_modes_parse("default,direct-nosync", &mask, &e), 0);
	assert_int_equal(ap_seq_modes_parse("read-direct", &mask, &e), 0);
	assert_int_equal(mask, 1u << AP_SEQ_READ_DIRECT);
	assert_int_equal(ap_seq_modes_parse("dsync,bogus", &mask, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "'bogus'"));
	assert_int_equal(ap_seq_modes_parse("dsync,dsync", &mask, &e), -EINVAL);
	assert_int_equal(ap_seq_modes_parse("default,dsync", &mask, &e), -EINVAL);
	assert_int_equal(ap_seq_modes_parse("", &mask, &e), -EINVAL);
	assert_int_equal(ap_seq_modes_parse(",", &mask, &e), -EINVAL);
	assert_int_equal(ap_seq_modes_parse("none,,direct", &mask, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "empty mode name"));
}

static void test_plan(void **state)
{
	const uint64_t bs[] = { 4096, 65536, 1048576 };
	struct ap_seq_target t = { .path = (char *)"/x", .fd = -1, .align = 4096 };
	struct ap_seq_opts o = {
		.size = 1048576, .bs = bs, .nbs = 3, .rounds = 2,
		.modes = (1u << AP_SEQ_DSYNC) | (1u << AP_SEQ_NONE),
	};
	struct ap_seq_result r;
	struct ap_error e;

	(void)state;
	assert_int_equal(ap_seq_plan(&t, &o, &r, &e), 0);
	assert_int_equal(r.ncells, 6);
	assert_int_equal(r.runs_total, 12);
	assert_int_equal(r.cells[0].mode, AP_SEQ_NONE);
	assert_int_equal(r.cells[0].bs, 4096);
	assert_int_equal(r.cells[5].mode, AP_SEQ_DSYNC);
	assert_int_equal(r.cells[5].bs, 1048576);
	assert_true(isnan(r.cells[0].mbps));
	assert_ptr_equal(ap_seq_cell_find(&r, AP_SEQ_DSYNC, 65536), &r.cells[4]);
	assert_null(ap_seq_cell_find(&r, AP_SEQ_SYNC, 65536));
	ap_seq_result_free(&r);

	/* clipped to the amount */
	o.size = 100000;
	assert_int_equal(ap_seq_plan(&t, &o, &r, &e), 0);
	assert_int_equal(r.ncells, 4);
	ap_seq_result_free(&r);

	/* smaller than every block size */
	o.size = 1024;
	assert_int_equal(ap_seq_plan(&t, &o, &r, &e), -EINVAL);

	/* beyond the end of a device */
	o.size = 1048576;
	t.is_bdev = true;
	t.capacity = 1048576;
	o.offset = 4096;
	assert_int_equal(ap_seq_plan(&t, &o, &r, &e), -ENOSPC);
	assert_non_null(strstr(e.msg, "beyond its end"));
	o.offset = 0;
	assert_int_equal(ap_seq_plan(&t, &o, &r, &e), 0);
	ap_seq_result_free(&r);

	/* O_DIRECT needs aligned block sizes and offset */
	t.is_bdev = false;
	t.capacity = 0;
	t.align = 4096;
	o.modes = 1u << AP_SEQ_DIRECT;
	o.offset = 512;
	assert_int_equal(ap_seq_plan(&t, &o, &r, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "O_DIRECT"));
	o.offset = 0;
	{
		const uint64_t odd[] = { 512, 4096 };

		o.bs = odd;
		o.nbs = 2;
		assert_int_equal(ap_seq_plan(&t, &o, &r, &e), -EINVAL);
		/* buffered modes take any multiple of 512 on a file */
		o.modes = 1u << AP_SEQ_DSYNC;
		assert_int_equal(ap_seq_plan(&t, &o, &r, &e), 0);
		assert_int_equal(r.ncells, 2);
		ap_seq_result_free(&r);
	}
}

/* The cancel callback says what the progress callback decided: stop after run 1. */
struct stopper {
	unsigned asked;
	int reason;
};

static int stopper_asked(void *arg)
{
	struct stopper *st = arg;

	st->asked++;
	return st->reason;
}

static void stop_after_first_run(void *arg, const struct ap_seq_result *r,
				 const struct ap_seq_cell *cell)
{
	struct stopper *st = arg;

	(void)cell;
	if (r->runs_done == 1)
		st->reason = 99;
}

/* The run asks o->cancel before every block and run, and keeps the runs done. */
static void test_cancel(void **state)
{
	const uint64_t bs[] = { 65536 };
	struct stopper st = { 0 };
	struct ap_seq_opts o = {
		.size = 1 << 20, .bs = bs, .nbs = 1, .rounds = 3,
		.modes = 1u << AP_SEQ_NONE, .seed = 1, .data = AP_DATAGEN_RANDOM,
		.cancel = { .fn = stopper_asked, .arg = &st },
	};
	char path[] = "/tmp/test_seq_cancel.XXXXXX";
	struct ap_seq_target t;
	struct ap_seq_result r;
	struct ap_error e = { 0 };
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);		/* the target creates it, and removes it */
	assert_int_equal(ap_seq_target_open(&t, path, -1, &e), 0);
	assert_int_equal(ap_seq_plan(&t, &o, &r, &e), 0);
	assert_int_equal(ap_seq_run(&t, &o, &r, stop_after_first_run, &st, &e), -EINTR);
	assert_int_equal(r.runs_done, 1);
	assert_int_equal(r.cells[0].runs, 1);
	/* the layout (1), run 1 (1 + 16 blocks), the question before run 2 */
	assert_int_equal(st.asked, 1 + 17 + 1);
	ap_seq_result_free(&r);

	/* an empty one never cancels */
	memset(&o.cancel, 0, sizeof(o.cancel));
	assert_int_equal(ap_seq_plan(&t, &o, &r, &e), 0);
	assert_int_equal(ap_seq_run(&t, &o, &r, NULL, NULL, &e), 0);
	assert_int_equal(r.runs_done, 3);
	ap_seq_result_free(&r);
	assert_int_equal(ap_seq_target_close(&t, false), 0);
	assert_int_equal(access(path, F_OK), -1);
}


static void test_wc_parse(void **state)
{
	enum ap_seq_wc wc[AP_SEQ_WC_MAX];
	struct ap_error e;
	size_t n;

	(void)state;
	assert_int_equal(ap_seq_wc_parse("on,off", wc, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_int_equal(wc[0], AP_SEQ_WC_ON);
	assert_int_equal(wc[1], AP_SEQ_WC_OFF);
	assert_int_equal(ap_seq_wc_parse("off,on", wc, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_int_equal(wc[0], AP_SEQ_WC_OFF);
	assert_int_equal(ap_seq_wc_parse("off", wc, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_int_equal(wc[0], AP_SEQ_WC_OFF);
	assert_int_equal(ap_seq_wc_parse("on", wc, &n, &e), 0);
	assert_int_equal(wc[0], AP_SEQ_WC_ON);
	assert_int_equal(ap_seq_wc_parse("on,on", wc, &n, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "twice"));
	assert_int_equal(ap_seq_wc_parse("on,off,on", wc, &n, &e), -EINVAL);
	assert_int_equal(ap_seq_wc_parse("maybe", wc, &n, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "maybe"));
	assert_int_equal(ap_seq_wc_parse("", wc, &n, &e), -EINVAL);
	assert_int_equal(ap_seq_wc_parse(",", wc, &n, &e), -EINVAL);
	assert_string_equal(ap_seq_wc_name(AP_SEQ_WC_ON), "on");
	assert_string_equal(ap_seq_wc_name(AP_SEQ_WC_OFF), "off");
	assert_string_equal(ap_seq_wc_name(AP_SEQ_WC_ASIS), "as-is");
}

/* The switch the command installs, recorded: which state, before which run. */
struct wc_log {
	bool on[8];
	size_t n;
	size_t runs_at[8];	/* runs done when switched */
	size_t runs_done;
	int fail;
};

static int wc_record(void *arg, bool on, struct ap_error *e)
{
	struct wc_log *l = arg;

	if (l->fail)
		return ap_error_set(e, l->fail, "cannot switch");
	l->runs_at[l->n] = l->runs_done;
	l->on[l->n++] = on;
	return 0;
}

static void wc_progress(void *arg, const struct ap_seq_result *r, const struct ap_seq_cell *cell)
{
	struct wc_log *l = arg;

	(void)cell;
	l->runs_done = r->runs_done;
}

/* The plan: the matrix once per state, state-major; a state without a switch is refused. */
static void test_wc_plan(void **state)
{
	const uint64_t bs[] = { 4096, 65536 };
	struct ap_seq_target t = { .path = (char *)"/x", .fd = -1, .align = 4096 };
	struct wc_log l = { 0 };
	struct ap_seq_opts o = {
		.size = 1048576, .bs = bs, .nbs = 2, .rounds = 3,
		.modes = (1u << AP_SEQ_DSYNC) | (1u << AP_SEQ_NONE),
		.wc = { AP_SEQ_WC_OFF, AP_SEQ_WC_ON }, .nwc = 2,
	};
	struct ap_seq_result r;
	struct ap_error e;
	size_t i;

	(void)state;
	assert_int_equal(ap_seq_plan(&t, &o, &r, &e), -EINVAL);	/* no wc_set */
	o.wc_set = wc_record;
	o.wc_arg = &l;
	assert_int_equal(ap_seq_plan(&t, &o, &r, &e), 0);
	assert_int_equal(r.ncells, 8);
	assert_int_equal(r.nwc, 2);
	assert_int_equal(r.runs_total, 24);
	for (i = 0; i < 4; i++)
		assert_int_equal(r.cells[i].wc, AP_SEQ_WC_OFF);
	for (i = 4; i < 8; i++)
		assert_int_equal(r.cells[i].wc, AP_SEQ_WC_ON);
	assert_ptr_equal(ap_seq_cell_find_wc(&r, AP_SEQ_WC_ON, AP_SEQ_DSYNC, 65536), &r.cells[7]);
	assert_ptr_equal(ap_seq_cell_find_wc(&r, AP_SEQ_WC_OFF, AP_SEQ_DSYNC, 65536), &r.cells[3]);
	assert_null(ap_seq_cell_find_wc(&r, AP_SEQ_WC_ASIS, AP_SEQ_DSYNC, 65536));
	ap_seq_result_free(&r);
	/* without states: one pass, as found */
	o.nwc = 0;
	assert_int_equal(ap_seq_plan(&t, &o, &r, &e), 0);
	assert_int_equal(r.ncells, 4);
	assert_int_equal(r.nwc, 1);
	assert_int_equal(r.cells[3].wc, AP_SEQ_WC_ASIS);
	ap_seq_result_free(&r);
}

/* The run switches once per state, before the state's first run, and stops when it cannot. */
static void test_wc_run(void **state)
{
	const uint64_t bs[] = { 65536, 262144 };
	struct wc_log l = { 0 };
	struct ap_seq_opts o = {
		.size = 1 << 20, .bs = bs, .nbs = 2, .rounds = 2,
		.modes = 1u << AP_SEQ_NONE, .seed = 1, .data = AP_DATAGEN_RANDOM,
		.wc = { AP_SEQ_WC_ON, AP_SEQ_WC_OFF }, .nwc = 2,
		.wc_set = wc_record, .wc_arg = &l,
	};
	char path[] = "/tmp/test_seq_wc.XXXXXX";
	struct ap_seq_target t;
	struct ap_seq_result r;
	struct ap_error e = { 0 };
	size_t i;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	assert_int_equal(ap_seq_target_open(&t, path, -1, &e), 0);
	assert_int_equal(ap_seq_plan(&t, &o, &r, &e), 0);
	assert_int_equal(ap_seq_run(&t, &o, &r, wc_progress, &l, &e), 0);
	assert_int_equal(l.n, 2);
	assert_true(l.on[0]);
	assert_int_equal(l.runs_at[0], 0);
	assert_false(l.on[1]);
	assert_int_equal(l.runs_at[1], 4);	/* every run of the on cells first */
	for (i = 0; i < r.ncells; i++)
		assert_int_equal(r.cells[i].runs, 2);
	ap_seq_result_free(&r);

	/* a switch that fails stops the run before any of its runs */
	memset(&l, 0, sizeof(l));
	l.fail = EIO;
	assert_int_equal(ap_seq_plan(&t, &o, &r, &e), 0);
	assert_int_equal(ap_seq_run(&t, &o, &r, wc_progress, &l, &e), -EIO);
	assert_int_equal(r.runs_done, 0);
	assert_non_null(strstr(e.msg, "cannot switch"));
	ap_seq_result_free(&r);
	assert_int_equal(ap_seq_target_close(&t, false), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_knee),
		cmocka_unit_test(test_bs_parse),
		cmocka_unit_test(test_bs_default),
		cmocka_unit_test(test_mode_table),
		cmocka_unit_test(test_dd_line),
		cmocka_unit_test(test_modes_parse),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_wc_parse),
		cmocka_unit_test(test_wc_plan),
		cmocka_unit_test(test_wc_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
