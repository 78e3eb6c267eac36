// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdbool.h>

#include "ui/plot.h"

/*
 * A small XML well-formedness checker: balanced and properly nested tags,
 * quoted attributes, no raw '<' or '&' outside markup except entities, a
 * single root element <svg>. Returns NULL or a description of the error.
 */
static const char *xml_check(const char *s)
{
	const char *stack[256];
	size_t depth = 0, nroots = 0;
	const char *p = s;

	while (*p) {
		if (*p == '&') {
			static const char *ents[] = { "&lt;", "&gt;", "&amp;", "&quot;", "&apos;" };
			size_t i;

			for (i = 0; i < 5; i++)
				if (strncmp(p, ents[i], strlen(ents[i])) == 0)
					break;
			if (i == 5)
				return "raw '&'";
			p += strlen(ents[i]);
			continue;
		}
		if (*p == '>')
			return "raw '>' in text";
		if (*p != '<') {
			if ((unsigned char)*p < 0x20 && *p != '\n' && *p != '\t' && *p != '\r')
				return "control character";
			p++;
			continue;
		}
		if (p[1] == '?') {
			p = strstr(p, "?>");
			if (!p)
				return "unterminated <?";
			p += 2;
			continue;
		}
		if (p[1] == '/') {
			const char *name = p + 2;
			size_t len = strcspn(name, ">");

			if (depth == 0)
				return "close without open";
			depth--;
			if (strncmp(stack[depth], name, len) != 0 ||
			    (stack[depth][len] != ' ' && stack[depth][len] != '>' &&
			     stack[depth][len] != '/' && stack[depth][len] != '\n'))
				return "mismatched close tag";
			p = name + len;
			if (*p != '>')
				return "unterminated close tag";
			p++;
			continue;
		}
		{
			const char *name = p + 1, *q;
			size_t nlen = strcspn(name, " />\n");
			bool selfclose = false;

			if (nlen == 0)
				return "empty tag name";
			q = name + nlen;
			for (;;) {	/* attributes */
				while (*q == ' ' || *q == '\n')
					q++;
				if (*q == '/' && q[1] == '>') {
					selfclose = true;
					q += 2;
					break;
				}
				if (*q == '>') {
					q++;
					break;
				}
				if (!*q)
					return "unterminated tag";
				q += strcspn(q, "= />");
				if (*q != '=' || q[1] != '"')
					return "attribute without quoted value";
				q = strchr(q + 2, '"');
				if (!q)
					return "unterminated attribute";
				{	/* the value must not contain '<' */
					const char *v = q - 1;

					while (*v != '"')
						if (*v-- == '<')
							return "'<' in attribute";
				}
				q++;
			}
			if (depth == 0)
				nroots++;
			if (!selfclose) {
				if (depth == sizeof(stack) / sizeof(stack[0]))
					return "too deep";
				stack[depth++] = name;
			}
			if (depth == 1 && !selfclose && strncmp(name, "svg ", 4) != 0)
				return "root is not <svg>";
			p = q;
		}
	}
	if (depth)
		return "unclosed tags";
	if (nroots != 1)
		return "not exactly one root element";
	return NULL;
}

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;

	while ((s = strstr(s, needle))) {
		n++;
		s += strlen(needle);
	}
	return n;
}

/* Every number in x/y/width/height/cx/cy attributes is finite and inside the image. */
static void assert_coords_sane(const char *svg)
{
	static const char *attrs[] = { " x=\"", " y=\"", " width=\"", " height=\"",
				       " cx=\"", " cy=\"", " x1=\"", " y2=\"" };
	size_t i;

	assert_null(strstr(svg, "nan"));
	assert_null(strstr(svg, "inf"));
	for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		const char *p = svg;

		while ((p = strstr(p, attrs[i]))) {
			char *end;
			double v;

			p += strlen(attrs[i]);
			v = strtod(p, &end);
			assert_true(end > p);
			assert_int_equal(*end, '"');
			assert_true(v >= 0 && v <= 2000);
		}
	}
}

#define assert_xml_ok(svg) do { \
	const char *err_ = xml_check(svg); \
	if (err_) \
		fail_msg("bad XML: %s", err_); \
} while (0)

static void test_bars_basic(void **state)
{
	struct ap_plot_bar bars[31];
	struct ap_plot_bars p = {
		.title = "physical sector 4096", .xlabel = "start", .ylabel = "tps",
		.bars = bars, .nbars = 31, .period = 8, .phase = 0,
	};
	char *svg;
	int i;

	(void)state;
	for (i = 0; i < 31; i++) {
		bars[i].x = 34 + (uint64_t)i;
		bars[i].aligned = (34 + i) % 8 == 0;
		bars[i].value = bars[i].aligned ? 900 : 300;
	}
	svg = ap_plot_bars_svg(&p);
	assert_non_null(svg);
	assert_xml_ok(svg);
	assert_coords_sane(svg);
	assert_int_equal(count(svg, "class=\"bar-aligned\""), 4);
	assert_int_equal(count(svg, "class=\"bar-misaligned\""), 27);
	/* bars plus the legend swatch */
	assert_int_equal(count(svg, "fill=\"" AP_PLOT_COLOR_ALIGNED "\""), 5);
	assert_int_equal(count(svg, "fill=\"" AP_PLOT_COLOR_MISALIGNED "\""), 28);
	/* period guides at 40, 48, 56, 64 */
	assert_int_equal(count(svg, "class=\"period\""), 4);
	assert_int_equal(count(svg, "class=\"period-marker\""), 4);
	assert_non_null(strstr(svg, "(mod 8)"));
	assert_non_null(strstr(svg, ">40: 900</title>"));
	assert_non_null(strstr(svg, "<desc>bars=31 aligned=4 misaligned=27 marked=4</desc>"));
	assert_non_null(strstr(svg, ">physical sector 4096</text>"));
	assert_non_null(strstr(svg, ">misaligned</text>"));
	free(svg);
}

static void test_bars_phase_and_order(void **state)
{
	/* lowest aligned LBA 7: fast at 39, 47, 55, 63; given out of order */
	struct ap_plot_bar bars[] = {
		{ 63, 10, true }, { 34, 3, false }, { 47, 10, true }, { 39, 10, true },
		{ 40, 3, false }, { 55, 10, true },
	};
	struct ap_plot_bars p = { .title = "t", .bars = bars, .nbars = 6, .period = 8, .phase = 7 };
	char *svg = ap_plot_bars_svg(&p);
	const char *a, *b;

	(void)state;
	assert_xml_ok(svg);
	assert_int_equal(count(svg, "class=\"period\""), 4);
	assert_non_null(strstr(svg, "\xe2\x89\xa1 7 (mod 8)"));
	/* drawn sorted by x: 34 before 39 before 63 */
	a = strstr(svg, ">34: ");
	b = strstr(svg, ">39: ");
	assert_non_null(a);
	assert_non_null(b);
	assert_true(a < b);
	assert_true(b < strstr(svg, ">63: "));
	/* input not modified */
	assert_int_equal(bars[0].x, 63);
	free(svg);
}

static void test_bars_escaping(void **state)
{
	struct ap_plot_bar bars[] = { { 0, 1, true } };
	struct ap_plot_bars p = {
		.title = "a<b & c\"d\" 'e' >", .xlabel = "x<", .ylabel = "y&",
		.bars = bars, .nbars = 1,
	};
	char *svg = ap_plot_bars_svg(&p);

	(void)state;
	assert_xml_ok(svg);
	assert_non_null(strstr(svg, "a&lt;b &amp; c&quot;d&quot; &apos;e&apos; &gt;"));
	assert_null(strstr(svg, "a<b"));
	assert_non_null(strstr(svg, ">x&lt;</text>"));
	assert_non_null(strstr(svg, ">y&amp;</text>"));
	free(svg);

	/* control characters and invalid UTF-8 are replaced; valid UTF-8 kept */
	p.title = "tab\there\x01 bad\xff\xc3 ok \xc3\xa9 \xe2\x89\xa1";
	svg = ap_plot_bars_svg(&p);
	assert_xml_ok(svg);
	assert_null(strchr(svg, '\x01'));
	assert_null(strchr(svg, '\xff'));
	assert_non_null(strstr(svg, "tab here  bad\xef\xbf\xbd\xef\xbf\xbd ok \xc3\xa9 \xe2\x89\xa1"));
	free(svg);

	/* NULL texts */
	p.title = NULL;
	p.xlabel = NULL;
	p.ylabel = NULL;
	svg = ap_plot_bars_svg(&p);
	assert_xml_ok(svg);
	free(svg);
}

static void test_bars_long_title(void **state)
{
	struct ap_plot_bar bars[] = { { 0, 1, true } };
	char title[400];
	struct ap_plot_bars p = { .title = title, .bars = bars, .nbars = 1 };
	char *svg;

	(void)state;
	memset(title, 'w', sizeof(title) - 1);
	title[sizeof(title) - 1] = '\0';
	title[50] = ' ';
	svg = ap_plot_bars_svg(&p);
	assert_xml_ok(svg);
	assert_true(count(svg, "class=\"title\"") >= 2);
	assert_true(count(svg, "class=\"title\"") <= 4);
	free(svg);
}

static double bar_height(const char *svg, const char *cls)
{
	const char *p = strstr(svg, cls);

	assert_non_null(p);
	p = strstr(p, "height=\"");
	assert_non_null(p);
	return strtod(p + 8, NULL);
}

static void test_bars_scaling(void **state)
{
	struct ap_plot_bar bars[2] = { { 1, 0, true }, { 2, 0, false } };
	struct ap_plot_bars p = { .title = "t", .bars = bars, .nbars = 2 };
	char *svg;

	(void)state;
	/* all zero: valid, zero-height bars, an axis 0..1 */
	svg = ap_plot_bars_svg(&p);
	assert_xml_ok(svg);
	assert_coords_sane(svg);
	assert_true(bar_height(svg, "bar-aligned") == 0);
	assert_non_null(strstr(svg, ">1.0</text>"));
	free(svg);

	/* one bar */
	p.nbars = 1;
	bars[0].value = 1;
	svg = ap_plot_bars_svg(&p);
	assert_xml_ok(svg);
	assert_coords_sane(svg);
	assert_true(bar_height(svg, "bar-aligned") > 100);
	free(svg);

	/* huge values and huge x; half as high for half the value */
	p.nbars = 2;
	bars[0].value = 4e15;
	bars[1].value = 2e15;
	bars[1].x = UINT64_MAX;
	svg = ap_plot_bars_svg(&p);
	assert_xml_ok(svg);
	assert_coords_sane(svg);
	assert_non_null(strstr(svg, "18446744073709551615"));
	assert_true(fabs(bar_height(svg, "bar-aligned") - 2 * bar_height(svg, "bar-misaligned")) < 0.5);
	free(svg);

	/* DBL_MAX, negative and tiny values */
	bars[0].value = DBL_MAX;
	bars[1].value = -5;
	svg = ap_plot_bars_svg(&p);
	assert_xml_ok(svg);
	assert_coords_sane(svg);
	assert_true(bar_height(svg, "bar-misaligned") == 0);
	free(svg);

	bars[0].value = 3e-6;
	bars[1].value = 1e-6;
	svg = ap_plot_bars_svg(&p);
	assert_xml_ok(svg);
	assert_coords_sane(svg);
	assert_true(bar_height(svg, "bar-misaligned") > 1);
	free(svg);
}

static void test_bars_nan_and_empty(void **state)
{
	struct ap_plot_bar bars[3] = { { 1, NAN, true }, { 2, 5, false }, { 3, INFINITY, false } };
	struct ap_plot_bars p = { .title = "t", .bars = bars, .nbars = 3, .period = 2 };
	char *svg;

	(void)state;
	svg = ap_plot_bars_svg(&p);
	assert_xml_ok(svg);
	assert_coords_sane(svg);
	assert_int_equal(count(svg, "class=\"missing\""), 2);
	assert_int_equal(count(svg, "class=\"bar-misaligned\""), 1);
	assert_int_equal(count(svg, "class=\"bar-aligned\""), 0);
	free(svg);

	bars[1].value = NAN;
	svg = ap_plot_bars_svg(&p);
	assert_xml_ok(svg);
	assert_coords_sane(svg);
	free(svg);

	p.nbars = 0;
	p.bars = NULL;
	svg = ap_plot_bars_svg(&p);
	assert_xml_ok(svg);
	assert_coords_sane(svg);
	assert_non_null(strstr(svg, ">no data</text>"));
	assert_int_equal(count(svg, "class=\"bar-"), 0);
	free(svg);
}

static void test_bars_many(void **state)
{
	struct ap_plot_bar *bars = calloc(1000, sizeof(*bars));
	struct ap_plot_bars p = { .title = "t", .bars = bars, .nbars = 1000, .period = 64 };
	char *svg;
	size_t i;

	(void)state;
	assert_non_null(bars);
	for (i = 0; i < 1000; i++) {
		bars[i].x = i;
		bars[i].value = (double)i;
		bars[i].aligned = i % 64 == 0;
	}
	svg = ap_plot_bars_svg(&p);
	assert_xml_ok(svg);
	assert_coords_sane(svg);
	assert_int_equal(count(svg, "class=\"bar-aligned\""), 16);
	assert_int_equal(count(svg, "class=\"bar-"), 1000);
	free(svg);
	free(bars);
}

static void test_lines(void **state)
{
	uint64_t x[] = { 4096, 16384, 65536, 262144, 1048576 };
	double none[] = { 100, 200, 300, 400, 500 };
	double dsync[] = { 10, NAN, 30, 40, NAN };
	double empty[] = { NAN, NAN, NAN, NAN, NAN };
	struct ap_plot_series s[] = { { "none", none }, { "dsync<&>", dsync }, { "x", empty } };
	struct ap_plot_lines l = {
		.title = "MB/s", .xlabel = "block size", .ylabel = "MB/s",
		.x = x, .nx = 5, .logx = true, .series = s, .nseries = 3,
	};
	char *svg = ap_plot_lines_svg(&l);
	const char *p;

	(void)state;
	assert_xml_ok(svg);
	assert_coords_sane(svg);
	assert_int_equal(count(svg, "class=\"series\""), 3);
	assert_int_equal(count(svg, "class=\"point\""), 8);
	assert_non_null(strstr(svg, "<desc>series=3 points=8</desc>"));
	assert_non_null(strstr(svg, "dsync&lt;&amp;&gt;"));
	assert_non_null(strstr(svg, ">4K</text>"));
	assert_non_null(strstr(svg, ">1M</text>"));
	assert_non_null(strstr(svg, "(log scale)"));
	/* series 0 one unbroken path (1 M), series 1 broken by NAN (2 M) */
	p = strstr(svg, "id=\"series-1\"");
	assert_non_null(p);
	p = strstr(p, " d=\"");
	assert_non_null(p);
	{
		const char *e = strchr(p + 4, '"');
		size_t ms = 0;

		for (; p < e; p++)
			ms += *p == 'M';
		assert_int_equal(ms, 2);
	}
	assert_non_null(strstr(svg, "stroke=\"" AP_PLOT_COLOR_ALIGNED "\""));
	assert_string_equal(ap_plot_series_color(1), "#ff7f0e");
	assert_string_equal(ap_plot_series_color(9), ap_plot_series_color(1));
	free(svg);

	/* log scale: equal ratios give equal distances */
	svg = ap_plot_lines_svg(&l);
	{
		double cx[5];
		int i;

		p = strstr(svg, "id=\"series-0\"");
		for (i = 0; i < 5; i++) {
			p = strstr(p, "cx=\"");
			cx[i] = strtod(p + 4, NULL);
			p += 4;
		}
		for (i = 2; i < 5; i++)
			assert_true(fabs((cx[i] - cx[i - 1]) - (cx[1] - cx[0])) < 0.3);
	}
	free(svg);

	/* x = 0 on a log scale is left out; one x value; no series */
	x[0] = 0;
	l.nx = 1;
	svg = ap_plot_lines_svg(&l);
	assert_xml_ok(svg);
	assert_coords_sane(svg);
	assert_int_equal(count(svg, "class=\"point\""), 0);
	free(svg);
	l.nx = 2;
	svg = ap_plot_lines_svg(&l);
	assert_xml_ok(svg);
	assert_coords_sane(svg);
	assert_int_equal(count(svg, "class=\"point\""), 1);
	free(svg);
	l.nseries = 0;
	l.nx = 0;
	svg = ap_plot_lines_svg(&l);
	assert_xml_ok(svg);
	assert_coords_sane(svg);
	assert_non_null(strstr(svg, ">no data</text>"));
	free(svg);

	/* linear x, huge values */
	x[0] = 1;
	none[0] = 1e18;
	l.logx = false;
	l.nx = 5;
	l.nseries = 1;
	svg = ap_plot_lines_svg(&l);
	assert_xml_ok(svg);
	assert_coords_sane(svg);
	free(svg);
}

static void test_lines_logy(void **state)
{
	uint64_t x[] = { 4096, 65536, 1048576 };
	double a[] = { 10, 100, 1000 };		/* equal ratios */
	double b[] = { 5, 0, -1 };		/* 0 and below: gaps on a log axis */
	struct ap_plot_series s[] = { { "a", a }, { "b", b } };
	struct ap_plot_lines l = {
		.title = "log", .x = x, .nx = 3, .logx = true, .logy = true,
		.series = s, .nseries = 2,
	};
	char *svg = ap_plot_lines_svg(&l);
	const char *p;
	double cy[3];
	int i;

	(void)state;
	assert_xml_ok(svg);
	assert_coords_sane(svg);
	assert_int_equal(count(svg, "class=\"point\""), 4);
	/* decade ticks 1 .. 1000 (5 is the smallest value) */
	assert_non_null(strstr(svg, ">1</text>"));
	assert_non_null(strstr(svg, ">10</text>"));
	assert_non_null(strstr(svg, ">1000</text>"));
	assert_null(strstr(svg, ">10000</text>"));
	/* 10, 100, 1000 equally spaced; 1000 at the top, 1 at the bottom */
	p = strstr(svg, "id=\"series-0\"");
	for (i = 0; i < 3; i++) {
		p = strstr(p, "cy=\"");
		cy[i] = strtod(p + 4, NULL);
		p += 4;
	}
	assert_true(fabs((cy[0] - cy[1]) - (cy[1] - cy[2])) < 0.3);
	assert_true(cy[2] < cy[1] && cy[1] < cy[0]);
	free(svg);

	/* nothing positive: a valid empty chart */
	l.series = &s[1];
	l.nseries = 1;
	b[0] = 0;
	svg = ap_plot_lines_svg(&l);
	assert_xml_ok(svg);
	assert_coords_sane(svg);
	assert_int_equal(count(svg, "class=\"point\""), 0);
	free(svg);

	/* one value, tiny and huge */
	b[0] = 3e-7;
	svg = ap_plot_lines_svg(&l);
	assert_xml_ok(svg);
	assert_coords_sane(svg);
	assert_int_equal(count(svg, "class=\"point\""), 1);
	free(svg);
	b[0] = 1e250;
	svg = ap_plot_lines_svg(&l);
	assert_xml_ok(svg);
	assert_coords_sane(svg);
	free(svg);
}

static void test_checker(void **state)
{
	/* the checker itself must reject broken documents */
	(void)state;
	assert_null(xml_check("<svg a=\"1\"><g/><text>a &amp; b</text></svg>"));
	assert_non_null(xml_check("<svg><g></svg>"));
	assert_non_null(xml_check("<svg><text>a & b</text></svg>"));
	assert_non_null(xml_check("<svg><text>a < b</text></svg>"));
	assert_non_null(xml_check("<svg a=1></svg>"));
	assert_non_null(xml_check("<svg a=\"<\"></svg>"));
	assert_non_null(xml_check("<svg></svg><svg></svg>"));
	assert_non_null(xml_check("<svg>"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checker),
		cmocka_unit_test(test_bars_basic),
		cmocka_unit_test(test_bars_phase_and_order),
		cmocka_unit_test(test_bars_escaping),
		cmocka_unit_test(test_bars_long_title),
		cmocka_unit_test(test_bars_scaling),
		cmocka_unit_test(test_bars_nan_and_empty),
		cmocka_unit_test(test_bars_many),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_lines_logy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
