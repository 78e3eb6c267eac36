// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The file table's selection rules against a literal transcription of
 * PostMark's find_free_file() / find_used_file() over an int array: same
 * slot chosen at every step of long random take/release sequences.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "workload/pm_slots.h"

struct naive {
	int *size;
	int n;		/* 2N */
	int allocated;
};

static int naive_find_free(struct naive *t)
{
	int i;

	if (t->allocated < t->n && t->size[t->allocated] == 0)
		return t->allocated++;
	for (i = 0; i < t->n; i++) {
		if (t->size[i] == 0) {
			t->allocated = i;
			return t->allocated++;
		}
	}
	return -1;
}

static int naive_find_used(struct naive *t, struct ap_pm_rng *r)
{
	int i;

	while (t->size[i = (int)ap_pm_rnd(r, (uint64_t)t->n)] == 0)
		;
	return i;
}

static void run_sequence(uint64_t n, unsigned steps, unsigned create_bias, uint32_t seed)
{
	struct ap_pm_rng ra, rb, ctl;
	struct ap_pm_slots t;
	struct naive nv;
	unsigned s;
	int live = 0;

	ap_pm_slots_init(&t, n);
	nv.n = (int)n;
	nv.allocated = 0;
	nv.size = calloc(n, sizeof(int));
	ap_pm_rng_seed(&ra, seed);
	ap_pm_rng_seed(&rb, seed);
	ap_pm_rng_seed(&ctl, seed + 1);

	for (s = 0; s < steps; s++) {
		if (live == 0 || ap_pm_rnd(&ctl, 10) < create_bias) {
			int64_t a = ap_pm_slots_find_free(&t);
			int b = naive_find_free(&nv);

			assert_int_equal(a, b);
			assert_int_equal(t.cursor, (uint64_t)nv.allocated);
			if (b >= 0) {
				ap_pm_slots_take(&t, (uint64_t)a, 1 + s);
				nv.size[b] = 1 + (int)s;
				live++;
			}
		} else {
			uint64_t a = ap_pm_slots_find_used(&t, &ra);
			int b = naive_find_used(&nv, &rb);

			assert_int_equal(a, (uint64_t)b);
			ap_pm_slots_release(&t, a);
			nv.size[b] = 0;
			live--;
		}
		assert_int_equal(t.live, (uint64_t)live);
	}
	/* deletion alone visits the live slots in index order */
	{
		uint64_t i = ap_pm_slots_next_live(&t, 0);
		int j, seen = 0;

		for (j = 0; j < nv.n; j++) {
			if (!nv.size[j])
				continue;
			assert_int_equal(i, (uint64_t)j);
			assert_int_equal(t.slot[i].size, (uint32_t)nv.size[j]);
			i = ap_pm_slots_next_live(&t, i + 1);
			seen++;
		}
		assert_int_equal(i, n);
		assert_int_equal(seen, live);
	}
	free(nv.size);
	ap_pm_slots_free(&t);
}

static void test_against_postmark(void **state)
{
	(void)state;
	run_sequence(2 * 500, 20000, 5, 42);	/* balanced */
	run_sequence(2 * 37, 5000, 7, 7);	/* fills up: table-full path */
	run_sequence(2 * 100, 5000, 3, 9);	/* drains */
	run_sequence(2 * 1, 200, 5, 1);		/* tiny */
	run_sequence(2 * 4096, 60000, 6, 12345678);
}

static void test_cursor_rules(void **state)
{
	struct ap_pm_slots t;
	int64_t i;

	(void)state;
	ap_pm_slots_init(&t, 6);
	for (i = 0; i < 6; i++) {
		assert_int_equal(ap_pm_slots_find_free(&t), i);
		ap_pm_slots_take(&t, (uint64_t)i, 10);
	}
	assert_int_equal(ap_pm_slots_find_free(&t), -1);	/* full */
	ap_pm_slots_release(&t, 4);
	ap_pm_slots_release(&t, 1);
	/* cursor at the end: first free from 0, cursor just past it */
	assert_int_equal(ap_pm_slots_find_free(&t), 1);
	ap_pm_slots_take(&t, 1, 3);
	assert_int_equal(t.cursor, 2);
	/* slot 2 is used: scan again from 0 */
	assert_int_equal(ap_pm_slots_find_free(&t), 4);
	ap_pm_slots_take(&t, 4, 3);
	assert_int_equal(t.cursor, 5);
	ap_pm_slots_release(&t, 5);
	/* the cursor's own slot is free: taken without a scan */
	ap_pm_slots_release(&t, 0);
	assert_int_equal(ap_pm_slots_find_free(&t), 5);
	assert_int_equal(ap_pm_slots_next_live(&t, 0), 1);
	assert_int_equal(ap_pm_slots_next_live(&t, 5), 6);
	ap_pm_slots_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cursor_rules),
		cmocka_unit_test(test_against_postmark),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
