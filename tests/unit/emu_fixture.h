/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the emulated drive's unit tests share (test_emu_model.c,
 * test_emu_quirks.c): a model from a spec string, and the hdd model's
 * figures. Include after cmocka.h.
 */
#ifndef AP_EMU_FIXTURE_H
#define AP_EMU_FIXTURE_H

#include "emu/model.h"
#include "lib/util.h"

#include <stdlib.h>

#define S	512ULL
#define T0	1000000000000ULL	/* an arbitrary clock value */
#define REV7200	8333333ULL		/* 60 s / 7200, rounded */

/* @m as the (valid) spec @spec says. */
static inline void model_for(struct ap_emu_model *m, const char *spec)
{
	struct ap_emu_spec s;
	struct ap_error e;

	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse(spec, &s, &e), 0);
	ap_emu_model_init(m, &s);
	ap_emu_spec_free(&s);
}

/* ap_emu_spec_format() of the spec that @str parses to is @str again; frees @str. */
static inline void assert_round_trip(char *str)
{
	struct ap_emu_spec t;
	struct ap_error e;
	char *again;

	ap_emu_spec_init(&t);
	assert_int_equal(ap_emu_spec_parse(str, &t, &e), 0);
	again = ap_emu_spec_format(&t);
	assert_string_equal(str, again);
	free(str);
	free(again);
	ap_emu_spec_free(&t);
}

#endif
