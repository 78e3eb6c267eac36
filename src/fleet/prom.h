/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Metrics for Prometheus, in the text exposition format (0.0.4) that
 * node_exporter's textfile collector reads from *.prom files: metric
 * families (a name, a type, a help text) and their samples, built in
 * memory and rendered in one piece, so that a family's samples are never
 * split and a half-built file never exists. The command puts the text in
 * place atomically (src/lib/outfile.h).
 *
 * What the builder enforces, so that node_exporter and promtool accept
 * every file alignprobe writes:
 *   metric names [a-zA-Z_:][a-zA-Z0-9_:]*, label names [a-zA-Z_][a-zA-Z0-9_]*
 *     and not starting with "__" (reserved), no label named twice;
 *   label values valid UTF-8 (escaped on output: \\ \" \n);
 *   one sample per label set and family (-EEXIST for a duplicate series);
 *   no timestamps (the textfile collector refuses them).
 * Help texts are escaped (\\ \n). Values are printed exactly for integers
 * (up to 2^53), else with 17 significant digits; NaN, +Inf, -Inf.
 *
 * Pure: nothing here prints, reads or writes a file.
 */
#ifndef AP_PROM_H
#define AP_PROM_H

#include <stdbool.h>
#include <stddef.h>

enum ap_prom_type {
	AP_PROM_GAUGE = 0,
	AP_PROM_COUNTER,
	AP_PROM_UNTYPED,
};

struct ap_prom;

struct ap_prom *ap_prom_new(void);
void ap_prom_free(struct ap_prom *p);

/*
 * Declare family @name. Declaring it again with the same type and help is
 * a no-op; with another type or help -EEXIST; a bad name -EINVAL.
 */
int ap_prom_family(struct ap_prom *p, const char *name, enum ap_prom_type type,
		   const char *help);

/*
 * Add a sample to the declared family @name: @value and label pairs
 * (name, value, ..., NULL). -ENOENT for an undeclared family, -EINVAL for
 * a bad or repeated label name, -EILSEQ for a value that is not UTF-8,
 * -EEXIST when the family has a sample with these labels already.
 */
int ap_prom_add(struct ap_prom *p, const char *name, double value, ...)
	__attribute__((sentinel));

/* The same with @nlabels pairs in @labels ({name, value, name, value...}). */
int ap_prom_add_labels(struct ap_prom *p, const char *name, double value,
		       const char *const *labels, size_t nlabels);

/* The exposition text (malloc'd; NULL when out of memory): families in
 * the order declared. */
char *ap_prom_render(const struct ap_prom *p);

/* Pieces of the format, exported for the tests. */
bool ap_prom_is_metric_name(const char *s);
bool ap_prom_is_label_name(const char *s);
/* @s with \ " and newline escaped as in a label value (malloc'd). */
char *ap_prom_escape_label_value(const char *s);
/* "4096", "0.5", "NaN", "+Inf": at most 32 bytes with the NUL. */
void ap_prom_format_value(double v, char *buf, size_t len);

#endif
