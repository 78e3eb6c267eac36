/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Self-contained SVG charts written by the tool itself (no run-time
 * dependency): bars per start/offset for sweep and probe, lines per mode
 * for seq. Pure string building plus one file write.
 */
#ifndef AP_PLOT_H
#define AP_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
	const struct ap_plot_series *series;
	size_t nseries;
};

/* Return a malloc'd SVG document. */
char *ap_plot_bars_svg(const struct ap_plot_bars *p);
char *ap_plot_lines_svg(const struct ap_plot_lines *p);
/* Write @svg to @path atomically (tmp + rename): 0 or -errno. */
int ap_plot_write(const char *path, const char *svg);

#endif
