// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

/* The distinct prime factors, each once, every power divided out. */
static void test_prime_next(void **state)
{
	static const struct { uint64_t n, f[4]; } cases[] = {
		{ 1, { 0 } }, { 2, { 2 } }, { 12, { 2, 3 } }, { 896, { 2, 7 } },
		{ 960, { 2, 3, 5 } }, { 97, { 97 } },
	};
	size_t i, k;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t rest = cases[i].n, p = 0;

		for (k = 0; (p = ap_prime_next(&rest, p)); k++)
			assert_int_equal(p, cases[i].f[k]);
		assert_int_equal(cases[i].f[k], 0);
		assert_int_equal(rest, 1);
	}
}

static void test_parse_size(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(ap_parse_size("4096", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(ap_parse_size("4K", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(ap_parse_size("4KiB", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(ap_parse_size("4KB", &v), 0);
	assert_int_equal(v, 4000);
	assert_int_equal(ap_parse_size("1G", &v), 0);
	assert_int_equal(v, 1073741824ULL);
	assert_int_equal(ap_parse_size("2t", &v), 0);
	assert_int_equal(v, 2ULL << 40);
	assert_int_equal(ap_parse_size("", &v), -EINVAL);
	assert_int_equal(ap_parse_size("-1", &v), -EINVAL);
	assert_int_equal(ap_parse_size("4X", &v), -EINVAL);
	assert_int_equal(ap_parse_size("4Kx", &v), -EINVAL);
	assert_int_equal(ap_parse_size(" 4", &v), -EINVAL);
	assert_int_equal(ap_parse_size("99999999999999999999", &v), -ERANGE);
	assert_int_equal(ap_parse_size("17000000E", &v), -ERANGE);
}

static void test_parse_numbers(void **state)
{
	uint64_t u;
	uint32_t u32;
	int64_t s;
	double d;

	(void)state;
	assert_int_equal(ap_parse_u64("0", &u), 0);
	assert_int_equal(ap_parse_u64("18446744073709551615", &u), 0);
	assert_true(u == UINT64_MAX);
	assert_int_equal(ap_parse_u64("18446744073709551616", &u), -ERANGE);
	assert_int_equal(ap_parse_u64("12a", &u), -EINVAL);
	assert_int_equal(ap_parse_u64("+1", &u), -EINVAL);
	assert_int_equal(ap_parse_u32("4294967296", &u32), -ERANGE);
	assert_int_equal(ap_parse_s64("-5", &s), 0);
	assert_int_equal(s, -5);
	assert_int_equal(ap_parse_s64("5 ", &s), -EINVAL);
	assert_int_equal(ap_parse_double("0.25", &d), 0);
	assert_true(d == 0.25);
	assert_int_equal(ap_parse_double("nan", &d), -EINVAL);
	assert_int_equal(ap_parse_double("", &d), -EINVAL);
}

static void test_parse_duration(void **state)
{
	uint64_t ns;

	(void)state;
	assert_int_equal(ap_parse_duration_ns("8ms", &ns), 0);
	assert_int_equal(ns, 8000000);
	assert_int_equal(ap_parse_duration_ns("500us", &ns), 0);
	assert_int_equal(ns, 500000);
	assert_int_equal(ap_parse_duration_ns("1.5ms", &ns), 0);
	assert_int_equal(ns, 1500000);
	assert_int_equal(ap_parse_duration_ns("2s", &ns), 0);
	assert_int_equal(ns, 2000000000ULL);
	assert_int_equal(ap_parse_duration_ns("3m", &ns), 0);
	assert_int_equal(ns, 180000000000ULL);
	assert_int_equal(ap_parse_duration_ns("0ns", &ns), 0);
	assert_int_equal(ns, 0);
	assert_int_equal(ap_parse_duration_ns("8", &ns), -EINVAL);
	assert_int_equal(ap_parse_duration_ns("8 ms", &ns), -EINVAL);
	assert_int_equal(ap_parse_duration_ns("-8ms", &ns), -EINVAL);
	assert_int_equal(ap_parse_duration_ns("ms", &ns), -EINVAL);
}

static void test_parse_fraction(void **state)
{
	double d;

	(void)state;
	assert_int_equal(ap_parse_fraction("30%", 1.0, &d), 0);
	assert_true(d > 0.2999 && d < 0.3001);
	assert_int_equal(ap_parse_fraction("0.3", 1.0, &d), 0);
	assert_true(d > 0.2999 && d < 0.3001);
	assert_int_equal(ap_parse_fraction("130%", 1.0, &d), -ERANGE);
	assert_int_equal(ap_parse_fraction("30%%", 1.0, &d), -EINVAL);
	assert_int_equal(ap_parse_fraction("x", 1.0, &d), -EINVAL);
}

static void test_human(void **state)
{
	static const struct {
		uint64_t v;
		const char *s;
	} t[] = {
		{ 0, "0B" }, { 512, "512B" }, { 4096, "4K" }, { 1536, "1.5K" },
		{ 1048576, "1M" }, { 300ULL << 20, "300M" }, { 3ULL << 40, "3T" },
		{ 1181116006ULL, "1.1G" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *s = ap_size_to_human(t[i].v);

		assert_string_equal(s, t[i].s);
		free(s);
	}
}

static void test_size_exact(void **state)
{
	static const struct {
		uint64_t v;
		const char *s;
	} t[] = {
		{ 0, "0 bytes" }, { 512, "512 bytes" }, { 1536, "1536 bytes" }, { 4096, "4 KiB" },
		{ 1048576, "1 MiB" }, { 1049600, "1025 KiB" }, { 3ULL << 30, "3072 MiB" },
	};
	char buf[32];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_string_equal(ap_size_exact(t[i].v, buf, sizeof(buf)), t[i].s);
}

static void test_error(void **state)
{
	struct ap_error e;

	(void)state;
	assert_int_equal(ap_error_set(&e, EBUSY, "%s is mounted", "/dev/x"), -EBUSY);
	assert_int_equal(e.code, EBUSY);
	assert_string_equal(e.msg, "/dev/x is mounted");
	assert_int_equal(ap_error_set(NULL, -EIO, "x"), -EIO);
	ap_error_clear(&e);
	assert_int_equal(e.code, 0);
	assert_string_equal(e.msg, "");
	assert_true(ap_is_power_of_2(4096));
	assert_false(ap_is_power_of_2(0));
	assert_false(ap_is_power_of_2(4095));
}

static void test_unescape(void **state)
{
	char a[] = "/mnt/with\\040blank\\011tab", b[] = "\\0", c[] = "\\400x\\12";

	(void)state;
	ap_unescape_octal(a);
	assert_string_equal(a, "/mnt/with blank\ttab");
	ap_unescape_octal(b);
	assert_string_equal(b, "\\0");		/* too short: kept */
	ap_unescape_octal(c);
	assert_string_equal(c, "\\400x\\12");	/* out of range, too short: kept */
}

static void test_clock(void **state)
{
	uint64_t a = ap_now_ns(), b = ap_now_ns();

	(void)state;
	assert_true(a > 0);
	assert_true(b >= a);
}

static void test_strappendf(void **state)
{
	char *s = NULL;

	(void)state;
	ap_strappendf(&s, ", ", "WWN %s", "0x5000");
	assert_string_equal(s, "WWN 0x5000");
	ap_strappendf(&s, ", ", "%d-byte sectors", 512);
	assert_string_equal(s, "WWN 0x5000, 512-byte sectors");
	ap_strappendf(&s, NULL, "%s", " and more");
	assert_string_equal(s, "WWN 0x5000, 512-byte sectors and more");
	free(s);
	s = NULL;
	ap_strappendf(&s, NULL, "%s", "");
	assert_string_equal(s, "");
	ap_strappendf(&s, ", ", "x");
	assert_string_equal(s, ", x");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prime_next),
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_parse_numbers),
		cmocka_unit_test(test_parse_duration),
		cmocka_unit_test(test_parse_fraction),
		cmocka_unit_test(test_human),
		cmocka_unit_test(test_size_exact),
		cmocka_unit_test(test_error),
		cmocka_unit_test(test_unescape),
		cmocka_unit_test(test_clock),
		cmocka_unit_test(test_strappendf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
