// SPDX-License-Identifier: GPL-2.0-or-later
/* A seq run on its target (seq/session.c): fitting, the knees, the target's checks. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "seq/seq.h"
#include "seq/session.h"

static void test_fit(void **state)
{
	struct ap_seq_opts o = { 0 };
	struct ap_seq_target t;
	struct ap_error e;
	uint64_t *bs = NULL;
	size_t nbs = 0;

	(void)state;
	/* a 1 GiB disk: the default size, the default block sizes up to it */
	ap_seq_target_planned(&t, "disk", 1ULL << 30, 4096);
	assert_int_equal(t.align, 4096);
	assert_true(t.is_bdev);
	assert_int_equal(ap_seq_fit(&o, &t, false, &bs, &nbs, &e), 0);
	assert_int_equal(o.size, AP_SEQ_DEFAULT_SIZE);
	assert_ptr_equal(o.bs, bs);
	assert_int_equal(o.nbs, nbs);
	assert_int_equal(bs[0], 4096);
	assert_true(bs[nbs - 1] <= o.size);
	free(bs);

	/* a small disk caps the size, rounded down to 4 KiB */
	bs = NULL;
	o.offset = 4096;
	ap_seq_target_planned(&t, "disk", 4096 + 3 * 4096 + 100, 0);
	assert_int_equal(t.align, 512);
	assert_int_equal(ap_seq_fit(&o, &t, false, &bs, &nbs, &e), 0);
	assert_int_equal(o.size, 3 * 4096);
	free(bs);

	/* no room after the offset */
	bs = NULL;
	o.offset = 1ULL << 20;
	ap_seq_target_planned(&t, "disk", 1ULL << 20, 0);
	assert_int_equal(ap_seq_fit(&o, &t, false, &bs, &nbs, &e), -ENOSPC);
	assert_non_null(strstr(e.msg, "no room after offset"));
	free(bs);

	/* a size given below the smallest default block size */
	bs = NULL;
	o.offset = 0;
	o.size = 2048;
	assert_int_equal(ap_seq_fit(&o, &t, true, &bs, &nbs, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "smaller than 4K"));
	free(bs);

	/* an empty regular file grows: the default size */
	bs = NULL;
	memset(&t, 0, sizeof(t));
	assert_int_equal(ap_seq_fit(&o, &t, false, &bs, &nbs, &e), 0);
	assert_int_equal(o.size, AP_SEQ_DEFAULT_SIZE);
	free(bs);
}

static void test_knees(void **state)
{
	static const uint64_t bs[] = { 4096, 65536, 1048576 };
	static const double mbps[2][3] = { { 10, 97, 100 }, { 5, 6, 50 } };
	struct ap_seq_opts o = { 0 };
	struct ap_seq_cell cells[6];
	struct ap_seq_result r = { .cells = cells, .ncells = 6 };
	int knee[AP_SEQ_WC_MAX][AP_SEQ_NMODES];
	size_t k, i;

	(void)state;
	o.nwc = 2;
	o.wc[0] = AP_SEQ_WC_ON;
	o.wc[1] = AP_SEQ_WC_OFF;
	assert_int_equal(ap_seq_nstates(&o), 2);
	assert_int_equal(ap_seq_state(&o, 1), AP_SEQ_WC_OFF);
	memset(cells, 0, sizeof(cells));
	for (k = 0; k < 2; k++)
		for (i = 0; i < 3; i++) {
			struct ap_seq_cell *c = &cells[k * 3 + i];

			c->wc = ap_seq_state(&o, k);
			c->mode = AP_SEQ_DSYNC;
			c->bs = bs[i];
			c->runs = 1;
			c->mbps = mbps[k][i];
		}
	ap_seq_knees(&o, &r, knee);
	assert_int_equal(knee[0][AP_SEQ_DSYNC], 1);	/* 97 is within 5 % of 100 */
	assert_int_equal(knee[1][AP_SEQ_DSYNC], 5);	/* only the largest */
	assert_int_equal(knee[0][AP_SEQ_NONE], -1);	/* a mode that did not run */
	assert_ptr_equal(ap_seq_best(&r, AP_SEQ_WC_OFF, AP_SEQ_DSYNC), &cells[5]);
	assert_null(ap_seq_best(&r, AP_SEQ_WC_ASIS, AP_SEQ_DSYNC));
	assert_true(ap_seq_any(&r, AP_SEQ_DSYNC));
	assert_false(ap_seq_any(&r, AP_SEQ_SYNC));

	/* without states: one pass as found */
	memset(&o, 0, sizeof(o));
	assert_int_equal(ap_seq_nstates(&o), 1);
	assert_int_equal(ap_seq_state(&o, 0), AP_SEQ_WC_ASIS);
}

static void test_plan_bytes(void **state)
{
	struct ap_seq_opts o = { .size = 10000, .rounds = 3 };
	struct ap_seq_cell cells[2] = { { .bs = 4096 }, { .bs = 65536 } };
	struct ap_seq_result r = { .cells = cells, .ncells = 2 };

	(void)state;
	/* whole blocks only: 2 x 4096, none of 64K */
	assert_int_equal(ap_seq_plan_bytes(&o, &r), 3 * 2 * 4096);
}

static void test_classify(void **state)
{
	struct ap_error e;
	bool is_bdev;

	(void)state;
	assert_int_equal(ap_seq_target_classify("/tmp", false, &is_bdev, &e), -EISDIR);
	assert_false(is_bdev);
	assert_int_equal(ap_seq_target_classify("/dev/no-such-disk-here", false, &is_bdev, &e),
			 -ENOENT);
	assert_non_null(strstr(e.msg, "no such device"));
	assert_int_equal(ap_seq_target_classify("/dev/null", false, &is_bdev, &e), -ENOTBLK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fit),
		cmocka_unit_test(test_knees),
		cmocka_unit_test(test_plan_bytes),
		cmocka_unit_test(test_classify),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
