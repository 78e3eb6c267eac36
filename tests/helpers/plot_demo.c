// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Writes a chart from numbers on stdin, for tests/ts/output/plot.sh (which
 * renders it and looks at the pixels) and for trying the charts by hand:
 *
 *	plot_demo bars OUT.svg PERIOD PHASE TITLE < "x value aligned" lines
 *	plot_demo lines OUT.svg TITLE [logy] < "x1 x2 ..." then "name y1 y2 ..." lines
 *
 * Values may be "nan".
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "ui/plot.h"

/* @svg to the file @path ("-": standard output): 0 or -errno. */
static int write_svg(const char *path, const char *svg)
{
	FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "we");
	int rc;

	if (!f)
		return -errno;
	rc = fputs(svg, f) != EOF && fflush(f) == 0 ? 0 : -EIO;
	if (f != stdout && fclose(f) != 0 && !rc)
		rc = -errno;
	return rc;
}

static int bars(const char *out, const char *period, const char *phase, const char *title)
{
	struct ap_plot_bars p = {
		.title = title, .xlabel = "partition start (512-byte sectors)",
		.ylabel = "transactions/s",
	};
	struct ap_plot_bar *b = NULL;
	unsigned long long x;
	double v;
	int al, rc;
	size_t n = 0;
	char *svg;

	p.period = (unsigned)strtoul(period, NULL, 10);
	p.phase = (unsigned)strtoul(phase, NULL, 10);
	while (scanf("%llu %lf %d", &x, &v, &al) == 3) {
		b = ap_xreallocarray(b, n + 1, sizeof(*b));
		b[n].x = x;
		b[n].value = v;
		b[n].aligned = al != 0;
		n++;
	}
	p.bars = b;
	p.nbars = n;
	svg = ap_plot_bars_svg(&p);
	rc = write_svg(out, svg);
	free(svg);
	free(b);
	return rc;
}

static int lines(const char *out, const char *title, bool logy)
{
	struct ap_plot_lines l = {
		.title = title, .xlabel = "block size", .ylabel = "MB/s", .logx = true,
		.logy = logy,
	};
	struct ap_plot_series *s = NULL;
	uint64_t *x = NULL;
	char line[4096], *tok, *save;
	size_t ns = 0, i;
	int rc;
	char *svg;

	if (!fgets(line, sizeof(line), stdin))
		return -EINVAL;
	for (tok = strtok_r(line, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		x = ap_xreallocarray(x, l.nx + 1, sizeof(*x));
		x[l.nx++] = strtoull(tok, NULL, 10);
	}
	while (fgets(line, sizeof(line), stdin)) {
		double *y = ap_xcalloc(l.nx ? l.nx : 1, sizeof(*y));

		tok = strtok_r(line, " \t\n", &save);
		if (!tok) {
			free(y);
			continue;
		}
		s = ap_xreallocarray(s, ns + 1, sizeof(*s));
		s[ns].name = ap_xstrdup(tok);
		for (i = 0; i < l.nx; i++) {
			tok = strtok_r(NULL, " \t\n", &save);
			y[i] = tok ? strtod(tok, NULL) : NAN;
		}
		s[ns++].y = y;
	}
	l.x = x;
	l.series = s;
	l.nseries = ns;
	svg = ap_plot_lines_svg(&l);
	rc = write_svg(out, svg);
	free(svg);
	for (i = 0; i < ns; i++) {
		free((void *)s[i].name);
		free((void *)s[i].y);
	}
	free(s);
	free(x);
	return rc;
}

int main(int argc, char **argv)
{
	int rc = -EINVAL;

	if (argc == 6 && strcmp(argv[1], "bars") == 0)
		rc = bars(argv[2], argv[3], argv[4], argv[5]);
	else if ((argc == 4 || argc == 5) && strcmp(argv[1], "lines") == 0)
		rc = lines(argv[2], argv[3], argc == 5 && strcmp(argv[4], "logy") == 0);
	else
		fputs("usage: plot_demo bars OUT PERIOD PHASE TITLE | lines OUT TITLE [logy] (data on stdin)\n",
		      stderr);
	if (rc < 0 && argc >= 3)
		fprintf(stderr, "plot_demo: %s: %s\n", argv[2], strerror(-rc));
	return rc < 0;
}
