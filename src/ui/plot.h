/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Self-contained SVG charts written by the tool itself (no run-time
 * dependency): bars per start/offset for sweep and probe, lines per mode
 * for seq. Pure string building: the caller writes the document where it
 * wants (the commands: their --plot output file, atomically).
 */
#ifndef AP_PLOT_H
#define AP_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ap_plot_bar {
	uint64_t x;		/* start sector / offset */
	double value;		/* throughput (sweep) or median latency (probe) */
	bool aligned;		/* aligned under the inferred geometry: other colour */
};

struct ap_plot_bars {
	const char *title;	/* the verdict in words */
	const char *xlabel, *ylabel;
	const struct ap_plot_bar *bars;
	size_t nbars;
	unsigned period;	/* mark every period-th x from phase; 0 = none */
	unsigned phase;
};

struct ap_plot_series {
	const char *name;	/* sync mode */
	const double *y;	/* one per x; NAN = missing */
};

struct ap_plot_lines {
	const char *title, *xlabel, *ylabel;
	const uint64_t *x;	/* block sizes */
	size_t nx;
	bool logx;
	bool logy;		/* log10 y axis over whole decades; y <= 0 = missing */
	const struct ap_plot_series *series;
	size_t nseries;
	/*
	 * > 0: series dash_from.. are a second set of the first ones (seq's
	 * write cache off after on): drawn dashed, in the colour of series
	 * i - dash_from. 0: every series solid, in its own colour.
	 */
	size_t dash_from;
};

/* Fill colours of the bars (also used by the tests that look at pixels). */
#define AP_PLOT_COLOR_ALIGNED		"#1f77b4"	/* blue */
#define AP_PLOT_COLOR_MISALIGNED	"#ff7f0e"	/* orange */
#define AP_PLOT_COLOR_PERIOD		"#555555"	/* period guides */

/* Colour of line series @i (a fixed palette, cycled). */
const char *ap_plot_series_color(size_t i);

/*
 * Return a malloc'd SVG document (never NULL; empty input gives a chart
 * saying "no data"). Bars are drawn in the order of x; NAN values are
 * marked as missing; negative values are drawn as 0. Line series break at
 * NAN (and at y <= 0 with logy); with logx, x = 0 is left out.
 */
char *ap_plot_bars_svg(const struct ap_plot_bars *p);
char *ap_plot_lines_svg(const struct ap_plot_lines *p);

#endif
