// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Self-contained SVG charts. Everything is plain string building into a
 * growing buffer; numbers in coordinates are formatted without the C
 * locale's help (a decimal comma would break the document), and every piece
 * of caller text goes through xml_text() (escaping, control characters,
 * invalid UTF-8).
 */
#include "lib/align.h"
#include "lib/util.h"
#include "ui/plot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* string buffer */

struct sbuf {
	char *s;
	size_t len, cap;
};

static void sb_grow(struct sbuf *b, size_t more)
{
	if (b->len + more + 1 <= b->cap)
		return;
	while (b->len + more + 1 > b->cap)
		b->cap = b->cap ? b->cap * 2 : 4096;
	b->s = ap_xrealloc(b->s, b->cap);
}

static void sb_putn(struct sbuf *b, const char *s, size_t n)
{
	sb_grow(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void sb_puts(struct sbuf *b, const char *s)
{
	sb_putn(b, s, strlen(s));
}

static void sb_printf(struct sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	sb_grow(b, 256);
	va_start(ap, fmt);
	n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->s[b->len] = '\0';
		return;
	}
	if ((size_t)n >= b->cap - b->len) {
		sb_grow(b, (size_t)n);
		va_start(ap, fmt);
		vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

/* A coordinate with one decimal, independent of LC_NUMERIC. */
static void sb_num(struct sbuf *b, double v)
{
	long long t;

	if (!isfinite(v))
		v = 0;
	t = llround(v * 10.0);
	if (t < 0) {
		sb_puts(b, "-");
		t = -t;
	}
	if (t % 10)
		sb_printf(b, "%lld.%lld", t / 10, t % 10);
	else
		sb_printf(b, "%lld", t / 10);
}

/* Caller text as XML character data / attribute value. */
static void sb_xml(struct sbuf *b, const char *text)
{
	const unsigned char *p = (const unsigned char *)(text ? text : "");

	while (*p) {
		size_t n;

		switch (*p) {
		case '<':
			sb_puts(b, "&lt;");
			p++;
			continue;
		case '>':
			sb_puts(b, "&gt;");
			p++;
			continue;
		case '&':
			sb_puts(b, "&amp;");
			p++;
			continue;
		case '"':
			sb_puts(b, "&quot;");
			p++;
			continue;
		case '\'':
			sb_puts(b, "&apos;");
			p++;
			continue;
		}
		if (*p < 0x20 || *p == 0x7f) {	/* not allowed in XML 1.0 */
			sb_puts(b, " ");
			p++;
			continue;
		}
		n = ap_utf8_len(p);
		if (n == 0) {
			sb_puts(b, "\xef\xbf\xbd");	/* U+FFFD */
			p++;
			continue;
		}
		sb_putn(b, (const char *)p, n);
		p += n;
	}
}

/* ------------------------------------------------------------------ */
/* scales and ticks */

/* A "nice" step (1, 2, 5 x 10^k) giving about @n intervals over @range. */
static double nice_step(double range, int n)
{
	double raw = range / n, mag, f;

	if (!(raw > 0) || !isfinite(raw))
		return 1;
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	if (f <= 1)
		f = 1;
	else if (f <= 2)
		f = 2;
	else if (f <= 5)
		f = 5;
	else
		f = 10;
	return f * mag;
}

struct yscale {
	double max, step;	/* axis from 0 to max in steps */
	bool log;		/* or: logarithmic from lo to max (whole decades) */
	double lo;
};

/* Scale for values in [0, @vmax]; @vmax <= 0 or not finite gives 0..1. */
static struct yscale yscale_make(double vmax)
{
	struct yscale y;

	if (!(vmax > 0) || !isfinite(vmax))
		vmax = 1;
	if (vmax > 1e300)
		vmax = 1e300;
	y.step = nice_step(vmax, 5);
	y.max = ceil(vmax / y.step - 1e-9) * y.step;
	if (y.max < vmax)
		y.max += y.step;
	return y;
}

/* A log scale over whole decades holding [@vmin, @vmax] (both > 0). */
static struct yscale yscale_make_log(double vmin, double vmax)
{
	struct yscale y = { .log = true };

	if (!(vmin > 0) || !isfinite(vmin) || !(vmax >= vmin) || !isfinite(vmax)) {
		vmin = 1;
		vmax = 10;
	}
	if (vmin < 1e-300)
		vmin = 1e-300;
	if (vmax > 1e300)
		vmax = 1e300;
	y.lo = pow(10, floor(log10(vmin) + 1e-9));
	y.max = pow(10, ceil(log10(vmax) - 1e-9));
	if (y.max <= y.lo)
		y.max = y.lo * 10;
	y.step = y.lo;
	return y;
}

/* The y coordinate of @v, clamped to the axis. */
static double ypos(const struct yscale *ys, double v, double top, double bottom)
{
	double f;

	if (ys->log)
		f = v > 0 ? (log10(v) - log10(ys->lo)) / (log10(ys->max) - log10(ys->lo)) : 0;
	else
		f = v / ys->max;
	if (!(f > 0))
		f = 0;
	if (f > 1)
		f = 1;
	return bottom - (bottom - top) * f;
}

/* A tick label: short and exact enough ("0", "2.5", "1500", "2e+09"). */
static void sb_tick(struct sbuf *b, double v, double step)
{
	char buf[48];

	if (fabs(v) < step * 1e-6)
		v = 0;
	if (fabs(v) >= 1e7 || (v != 0 && fabs(v) < 1e-3))
		snprintf(buf, sizeof(buf), "%.3g", v);
	else if (step >= 1 || v == 0)
		snprintf(buf, sizeof(buf), "%.0f", v);
	else
		snprintf(buf, sizeof(buf), "%.*f", (int)ceil(-log10(step) - 1e-9), v);
	sb_xml(b, buf);
}

/* ------------------------------------------------------------------ */
/* common pieces */

#define FONT	"font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\""

static void svg_open(struct sbuf *b, int w, int h)
{
	sb_printf(b, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		  "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
		  "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n", w, h, w, h);
	sb_printf(b, "<rect id=\"background\" x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
		  "fill=\"#ffffff\"/>\n", w, h);
}

/* Split @title into lines of at most @width characters at spaces. */
static int svg_title(struct sbuf *b, const char *title, int cx, int y0, int width)
{
	const char *p = title ? title : "";
	int lines = 0;

	while (*p == ' ')
		p++;
	while (*p && lines < 4) {
		size_t len = strlen(p), cut = len;
		char *piece;

		if ((int)len > width) {
			cut = (size_t)width;
			while (cut > 0 && p[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = (size_t)width;
			/* do not split a UTF-8 sequence */
			while (cut < len && ((unsigned char)p[cut] & 0xc0) == 0x80)
				cut++;
		}
		piece = ap_xmalloc(cut + 1);
		memcpy(piece, p, cut);
		piece[cut] = '\0';
		sb_printf(b, "<text class=\"title\" x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
			  "font-size=\"15\" font-weight=\"bold\" " FONT " fill=\"#000000\">",
			  cx, y0 + lines * 19);
		sb_xml(b, piece);
		sb_puts(b, "</text>\n");
		free(piece);
		lines++;
		p += cut;
		while (*p == ' ')
			p++;
	}
	return lines;
}

static void svg_text(struct sbuf *b, double x, double y, const char *anchor, int size,
		     const char *extra, const char *text)
{
	sb_puts(b, "<text x=\"");
	sb_num(b, x);
	sb_puts(b, "\" y=\"");
	sb_num(b, y);
	sb_printf(b, "\" text-anchor=\"%s\" font-size=\"%d\" " FONT " fill=\"#222222\"%s%s>",
		  anchor, size, extra ? " " : "", extra ? extra : "");
	sb_xml(b, text);
	sb_puts(b, "</text>\n");
}

static void svg_line(struct sbuf *b, double x1, double y1, double x2, double y2,
		     const char *style)
{
	sb_puts(b, "<line x1=\"");
	sb_num(b, x1);
	sb_puts(b, "\" y1=\"");
	sb_num(b, y1);
	sb_puts(b, "\" x2=\"");
	sb_num(b, x2);
	sb_puts(b, "\" y2=\"");
	sb_num(b, y2);
	sb_printf(b, "\" %s/>\n", style);
}

static void svg_rect(struct sbuf *b, const char *cls, double x, double y, double w,
		     double h, const char *fill)
{
	sb_printf(b, "<rect class=\"%s\" x=\"", cls);
	sb_num(b, x);
	sb_puts(b, "\" y=\"");
	sb_num(b, y);
	sb_puts(b, "\" width=\"");
	sb_num(b, w);
	sb_puts(b, "\" height=\"");
	sb_num(b, h);
	sb_printf(b, "\" fill=\"%s\"/>\n", fill);
}

/* Horizontal grid, y tick labels, y axis label; the plot area is
 * [@left, @right] x [@top, @bottom]. */
static void svg_yaxis(struct sbuf *b, const struct yscale *ys, double left, double right,
		      double top, double bottom, const char *ylabel)
{
	double ticks[64], v;
	int i, n = 0;

	if (ys->log) {
		/* every decade; with few decades also 2x and 5x */
		int decades = (int)lround(log10(ys->max / ys->lo));
		double d;

		for (d = ys->lo; d <= ys->max * (1 + 1e-9) && n < 60; d *= 10) {
			ticks[n++] = d;
			if (decades <= 2 && d * 2 < ys->max * (1 - 1e-9)) {
				ticks[n++] = d * 2;
				ticks[n++] = d * 5;
			}
		}
	} else {
		for (i = 0, v = 0; v <= ys->max * (1 + 1e-9) && n < 50; i++, v = ys->step * i)
			ticks[n++] = v;
	}
	for (i = 0; i < n; i++) {
		double y = ypos(ys, ticks[i], top, bottom);

		if (i > 0)
			svg_line(b, left, y, right, y, "stroke=\"#dddddd\" stroke-width=\"1\"");
		svg_line(b, left - 5, y, left, y, "stroke=\"#333333\" stroke-width=\"1\"");
		sb_puts(b, "<text x=\"");
		sb_num(b, left - 8);
		sb_puts(b, "\" y=\"");
		sb_num(b, y + 4);
		sb_puts(b, "\" text-anchor=\"end\" font-size=\"11\" " FONT " fill=\"#222222\">");
		sb_tick(b, ticks[i], ys->log ? ticks[i] : ys->step);
		sb_puts(b, "</text>\n");
	}
	if (ylabel && *ylabel) {
		double cy = (top + bottom) / 2;

		sb_puts(b, "<text x=\"0\" y=\"0\" transform=\"translate(16,");
		sb_num(b, cy);
		sb_puts(b, ") rotate(-90)\" text-anchor=\"middle\" font-size=\"12\" " FONT
			" fill=\"#222222\">");
		sb_xml(b, ylabel);
		sb_puts(b, "</text>\n");
	}
}

static void svg_axes(struct sbuf *b, double left, double right, double top, double bottom)
{
	svg_line(b, left, bottom, right, bottom, "stroke=\"#333333\" stroke-width=\"1.5\"");
	svg_line(b, left, top, left, bottom, "stroke=\"#333333\" stroke-width=\"1.5\"");
}

/* ------------------------------------------------------------------ */
/* bars */

static int bar_cmp(const void *a, const void *b)
{
	const struct ap_plot_bar *x = a, *y = b;

	return x->x < y->x ? -1 : x->x > y->x;
}

static bool bar_marked(const struct ap_plot_bars *p, uint64_t x)
{
	return p->period && ap_align_is_aligned(x, 1, p->period, p->phase);
}

/* The legend of a bar chart: aligned, misaligned, and the period if marked. */
static void bars_legend(struct sbuf *b, const struct ap_plot_bars *p, double lx, double ly)
{
	char buf[96];

	svg_rect(b, "legend-aligned", lx, ly - 10, 12, 12, AP_PLOT_COLOR_ALIGNED);
	svg_text(b, lx + 16, ly, "start", 12, NULL, "aligned");
	lx += 90;
	svg_rect(b, "legend-misaligned", lx, ly - 10, 12, 12, AP_PLOT_COLOR_MISALIGNED);
	svg_text(b, lx + 16, ly, "start", 12, NULL, "misaligned");
	lx += 110;
	if (p->period) {
		svg_line(b, lx, ly - 10, lx, ly + 2, "stroke=\"" AP_PLOT_COLOR_PERIOD
			 "\" stroke-width=\"1.5\" stroke-dasharray=\"3,2\"");
		snprintf(buf, sizeof(buf), "x \xe2\x89\xa1 %u (mod %u)",
			 p->phase % p->period, p->period);
		svg_text(b, lx + 6, ly, "start", 12, NULL, buf);
	}
}

/* A period guide at @cx: a dashed line and a marker under the axis. */
static void bar_guide(struct sbuf *b, double cx, double top, double bottom)
{
	svg_line(b, cx, top, cx, bottom, "class=\"period\" stroke=\"" AP_PLOT_COLOR_PERIOD
		 "\" stroke-width=\"1\" stroke-dasharray=\"4,3\"");
	sb_puts(b, "<path class=\"period-marker\" d=\"M");
	sb_num(b, cx);
	sb_puts(b, " ");
	sb_num(b, bottom + 2);
	sb_puts(b, " l-4 7 h8 z\" fill=\"" AP_PLOT_COLOR_PERIOD "\"/>\n");
}

/* One bar at @x, @bw wide; a missing value is a grey cross on the axis. */
static void bar_draw(struct sbuf *b, const struct ap_plot_bar *bar, double x, double bw,
		     const struct yscale *ys, double top, double bottom)
{
	double v = bar->value, bh;

	if (!isfinite(v)) {
		double cx = x + bw / 2;

		sb_puts(b, "<path class=\"missing\" d=\"M");
		sb_num(b, cx - 3);
		sb_puts(b, " ");
		sb_num(b, bottom - 9);
		sb_puts(b, " l6 6 m0 -6 l-6 6\" stroke=\"#888888\" stroke-width=\"1.5\"/>\n");
		return;
	}
	if (v < 0)
		v = 0;
	bh = bottom - ypos(ys, v, top, bottom);
	if (bh > bottom - top)
		bh = bottom - top;
	sb_printf(b, "<rect class=\"%s\" x=\"", bar->aligned ? "bar-aligned" : "bar-misaligned");
	sb_num(b, x);
	sb_puts(b, "\" y=\"");
	sb_num(b, bottom - bh);
	sb_puts(b, "\" width=\"");
	sb_num(b, bw);
	sb_puts(b, "\" height=\"");
	sb_num(b, bh);
	sb_printf(b, "\" fill=\"%s\"><title>%llu: %.6g</title></rect>\n",
		  bar->aligned ? AP_PLOT_COLOR_ALIGNED : AP_PLOT_COLOR_MISALIGNED,
		  (unsigned long long)bar->x, bar->value);
}

char *ap_plot_bars_svg(const struct ap_plot_bars *p)
{
	struct ap_plot_bar *bars = NULL;
	struct sbuf b = { 0 };
	struct yscale ys;
	double vmax = 0, left = 78, right, top, bottom, slot;
	size_t i, n = p->nbars, every;
	int w, h = 460, tl, nal = 0, nmis = 0, nmark = 0;
	char buf[96];

	if (n) {
		bars = ap_xreallocarray(NULL, n, sizeof(*bars));
		memcpy(bars, p->bars, n * sizeof(*bars));
		qsort(bars, n, sizeof(*bars), bar_cmp);
	}
	for (i = 0; i < n; i++) {
		if (isfinite(bars[i].value) && bars[i].value > vmax)
			vmax = bars[i].value;
		if (bars[i].aligned)
			nal++;
		else
			nmis++;
		if (bar_marked(p, bars[i].x))
			nmark++;
	}
	ys = yscale_make(vmax);

	/* wide enough for the x labels, but not absurdly */
	w = 720;
	if (n > 40)
		w = (int)(n * 14 + 120 > 1600 ? 1600 : n * 14 + 120);
	right = w - 24;
	sb_grow(&b, 4096 + n * 400);
	svg_open(&b, w, h);
	sb_puts(&b, "<title>");
	sb_xml(&b, p->title);
	sb_puts(&b, "</title>\n");
	tl = svg_title(&b, p->title, w / 2, 22, (w - 40) / 10);
	top = 22 + tl * 19 + 28;	/* room for the legend */
	bottom = h - 58;

	bars_legend(&b, p, left, top - 22);	/* one row under the title */

	svg_yaxis(&b, &ys, left, right, top, bottom, p->ylabel);
	slot = n ? (right - left) / (double)n : right - left;

	/* period guides behind the bars */
	for (i = 0; i < n; i++)
		if (bar_marked(p, bars[i].x))
			bar_guide(&b, left + slot * ((double)i + 0.5), top, bottom);
	for (i = 0; i < n; i++) {
		double bw = slot * 0.72;

		bar_draw(&b, &bars[i], left + slot * (double)i + (slot - bw) / 2, bw, &ys, top,
			 bottom);
	}
	svg_axes(&b, left, right, top, bottom);

	/* x labels: every one if they fit (about 26 px each), else thinned */
	every = 1;
	while (n && slot * (double)every < 26)
		every++;
	for (i = 0; i < n; i++) {
		double cx = left + slot * ((double)i + 0.5);

		if (i % every && !(every > 1 && bar_marked(p, bars[i].x) && slot >= 10))
			continue;
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)bars[i].x);
		svg_text(&b, cx, bottom + 22, "middle", 11, NULL, buf);
	}
	if (n == 0)
		svg_text(&b, (left + right) / 2, (top + bottom) / 2, "middle", 14, NULL, "no data");
	if (p->xlabel && *p->xlabel)
		svg_text(&b, (left + right) / 2, h - 14, "middle", 12, NULL, p->xlabel);
	sb_printf(&b, "<desc>bars=%zu aligned=%d misaligned=%d marked=%d</desc>\n",
		  n, nal, nmis, nmark);
	sb_puts(&b, "</svg>\n");
	free(bars);
	return b.s;
}

/* ------------------------------------------------------------------ */
/* lines */

static const char *const palette[] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
	"#9467bd", "#8c564b", "#e377c2", "#17becf",
};

const char *ap_plot_series_color(size_t i)
{
	return palette[i % AP_ARRAY_SIZE(palette)];
}

static bool xpos_ok(const struct ap_plot_lines *p, size_t i)
{
	return !p->logx || p->x[i] > 0;
}

static double xval(const struct ap_plot_lines *p, size_t i)
{
	return p->logx ? log2((double)p->x[i]) : (double)p->x[i];
}

/* The x position of @v in [@xmin, @xmax]: a margin of half a slot at both ends. */
static double xpos(double v, double xmin, double xmax, double left, double right)
{
	return xmax > xmin ? left + 20 + (right - left - 40) * (v - xmin) / (xmax - xmin)
			   : (left + right) / 2;
}

/* A value that has a point (else a gap in the line). */
static bool y_shown(const struct ap_plot_lines *p, double v)
{
	return isfinite(v) && (!p->logy || v > 0);
}

static void size_label(char *buf, size_t len, uint64_t v)
{
	static const char letters[] = "KMGTPE";
	int i = -1;

	while (v >= 1024 && v % 1024 == 0 && i < 5) {
		v /= 1024;
		i++;
	}
	if (i < 0)
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)v, letters[i]);
}

/* Where a line chart draws: its data, the y scale and the plot area. */
struct lines_frame {
	const struct ap_plot_lines *p;
	struct yscale ys;
	double xmin, xmax, left, right, top, bottom;
};

static double lines_x(const struct lines_frame *f, size_t i)
{
	return xpos(xval(f->p, i), f->xmin, f->xmax, f->left, f->right);
}

/* The x range of @p in *@f, the y range in *@vmin, *@vmax: false without an x. */
static bool lines_range(const struct ap_plot_lines *p, struct lines_frame *f, double *vmin,
			double *vmax)
{
	bool have_x = false;
	size_t i, s;

	for (i = 0; i < p->nx; i++) {
		if (!xpos_ok(p, i))
			continue;
		if (!have_x || xval(p, i) < f->xmin)
			f->xmin = xval(p, i);
		if (!have_x || xval(p, i) > f->xmax)
			f->xmax = xval(p, i);
		have_x = true;
		for (s = 0; s < p->nseries; s++) {
			double v = p->series[s].y[i];

			if (isfinite(v) && v > *vmax)
				*vmax = v;
			if (isfinite(v) && v > 0 && v < *vmin)
				*vmin = v;
		}
	}
	return have_x;
}

/* The x ticks, with a label where it does not touch the previous one. */
static void lines_xticks(struct sbuf *b, const struct lines_frame *f)
{
	double lastlx = -1e9;
	char buf[64];
	size_t i;

	for (i = 0; i < f->p->nx; i++) {
		double cx;

		if (!xpos_ok(f->p, i))
			continue;
		cx = lines_x(f, i);
		svg_line(b, cx, f->bottom, cx, f->bottom + 5, "stroke=\"#333333\" stroke-width=\"1\"");
		if (cx - lastlx < 34)
			continue;
		size_label(buf, sizeof(buf), f->p->x[i]);
		svg_text(b, cx, f->bottom + 20, "middle", 11, NULL, buf);
		lastlx = cx;
	}
}

/* Series @s: its line (a gap where a value is not shown), then its points; their number. */
static int lines_series(struct sbuf *b, const struct lines_frame *f, size_t s, const char *col,
			const char *dash)
{
	const struct ap_plot_lines *p = f->p;
	bool pen = false;
	char buf[64];
	int npts = 0;
	size_t i;

	sb_printf(b, "<g class=\"series\" id=\"series-%zu\">\n", s);
	sb_printf(b, "<path class=\"line\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s d=\"",
		  col, dash);
	for (i = 0; i < p->nx; i++) {
		double v = p->series[s].y[i];

		if (!xpos_ok(p, i) || !y_shown(p, v)) {
			pen = false;	/* a gap */
			continue;
		}
		sb_puts(b, pen ? " L" : " M");
		sb_num(b, lines_x(f, i));
		sb_puts(b, " ");
		sb_num(b, ypos(&f->ys, v, f->top, f->bottom));
		pen = true;
	}
	sb_puts(b, "\"/>\n");
	for (i = 0; i < p->nx; i++) {
		double v = p->series[s].y[i];

		if (!xpos_ok(p, i) || !y_shown(p, v))
			continue;
		sb_puts(b, "<circle class=\"point\" cx=\"");
		sb_num(b, lines_x(f, i));
		sb_puts(b, "\" cy=\"");
		sb_num(b, ypos(&f->ys, v, f->top, f->bottom));
		sb_printf(b, "\" r=\"3.5\" fill=\"%s\"><title>", col);
		sb_xml(b, p->series[s].name);
		size_label(buf, sizeof(buf), p->x[i]);
		sb_printf(b, " %s: %.6g</title></circle>\n", buf, v);
		npts++;
	}
	sb_puts(b, "</g>\n");
	return npts;
}

/* The legend entry of series @s, right of the plot area. */
static void lines_legend(struct sbuf *b, const struct lines_frame *f, size_t s, const char *col,
			 const char *dash)
{
	double ly = f->top + 14 + 20 * (double)s, right = f->right;
	char style[96];

	snprintf(style, sizeof(style), "stroke=\"%s\" stroke-width=\"2\"%s", col, dash);
	svg_line(b, right + 16, ly - 4, right + 40, ly - 4, style);
	sb_puts(b, "<circle cx=\"");
	sb_num(b, right + 28);
	sb_puts(b, "\" cy=\"");
	sb_num(b, ly - 4);
	sb_printf(b, "\" r=\"3.5\" fill=\"%s\"/>\n", col);
	svg_text(b, right + 46, ly, "start", 12, NULL, f->p->series[s].name);
}

char *ap_plot_lines_svg(const struct ap_plot_lines *p)
{
	struct lines_frame f = { .p = p, .left = 78 };
	struct sbuf b = { 0 };
	double vmax = 0, vmin = INFINITY;
	size_t s;
	int w = 760, h = 460, tl, npts = 0;
	bool have_x = lines_range(p, &f, &vmin, &vmax);

	f.ys = p->logy ? yscale_make_log(vmin, vmax) : yscale_make(vmax);
	f.right = w - 170;	/* legend on the right */

	sb_grow(&b, 4096 + p->nx * p->nseries * 120);
	svg_open(&b, w, h);
	sb_puts(&b, "<title>");
	sb_xml(&b, p->title);
	sb_puts(&b, "</title>\n");
	tl = svg_title(&b, p->title, w / 2, 22, (w - 40) / 10);
	f.top = 22 + tl * 19 + 10;
	f.bottom = h - 58;
	if (p->logy && p->ylabel && *p->ylabel) {
		char *yl = NULL;

		ap_xasprintf(&yl, "%s (log scale)", p->ylabel);
		svg_yaxis(&b, &f.ys, f.left, f.right, f.top, f.bottom, yl);
		free(yl);
	} else {
		svg_yaxis(&b, &f.ys, f.left, f.right, f.top, f.bottom, p->ylabel);
	}
	lines_xticks(&b, &f);
	for (s = 0; s < p->nseries; s++) {
		bool dashed = p->dash_from && s >= p->dash_from;
		const char *col = ap_plot_series_color(dashed ? s - p->dash_from : s);
		const char *dash = dashed ? " stroke-dasharray=\"6 4\"" : "";

		npts += lines_series(&b, &f, s, col, dash);
		lines_legend(&b, &f, s, col, dash);
	}
	svg_axes(&b, f.left, f.right, f.top, f.bottom);
	if (!have_x || p->nseries == 0)
		svg_text(&b, (f.left + f.right) / 2, (f.top + f.bottom) / 2, "middle", 14, NULL,
			 "no data");
	if (p->xlabel && *p->xlabel) {
		char *xl = NULL;

		ap_xasprintf(&xl, "%s%s", p->xlabel, p->logx ? " (log scale)" : "");
		svg_text(&b, (f.left + f.right) / 2, h - 14, "middle", 12, NULL, xl);
		free(xl);
	}
	sb_printf(&b, "<desc>series=%zu points=%d</desc>\n", p->nseries, npts);
	sb_puts(&b, "</svg>\n");
	return b.s;
}
