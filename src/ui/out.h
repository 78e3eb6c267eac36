/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Table output with lsblk's conventions, through libsmartcols:
 * -o/--output (a leading '+' appends to the defaults), --output-all,
 * -J/--json, -r/--raw, -n/--noheadings, -H/--list-columns, -b/--bytes,
 * --csv (RFC 4180). Every command that prints a table describes its columns
 * with one array of struct ap_colinfo per kind of result, fills one
 * struct ap_row per result and renders it as a table line and/or as a JSON
 * object of its document: one definition of each field, and -o selects
 * the JSON keys as it selects the table's columns.
 *
 * Conventions (API): column names are upper case with '_' between words
 * (READ_KIBS); JSON keys are the same names in lower case unless a
 * column names its key (a documented key that differs), so they match the
 * verdict object's keys (p_value) and need no quoting in jq. Sizes are human
 * in tables unless -b, and always numbers of bytes in JSON. The --help text
 * lists them under "Available output columns:" as lsblk does.
 */
#ifndef AP_OUT_H
#define AP_OUT_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <libsmartcols.h>

#include "lib/json.h"
#include "lib/outfile.h"
#include "lib/util.h"

/* Column JSON types, mapped to SCOLS_JSON_*. */
enum ap_coltype {
	AP_COL_STRING = 0,
	AP_COL_NUMBER,		/* integer or float, printed as is */
	AP_COL_BOOLEAN,		/* true/false in JSON, "yes"/"no" in tables */
	AP_COL_SIZE,		/* bytes: human in tables unless -b; always a number in JSON */
};

/*
 * One column: the one definition of a field, for the table (-o NAME, -H)
 * and for the JSON row alike. A command keeps one array of these per kind
 * of result, indexed by its COL_* enum, and fills one struct ap_row per
 * result (below).
 */
struct ap_colinfo {
	const char *name;	/* upper case, e.g. "START" */
	double whint;		/* libsmartcols width hint */
	int flags;		/* SCOLS_FL_* */
	enum ap_coltype type;
	const char *help;	/* one line for -H and the man page */
	const char *json;	/* JSON key of ap_row_json(); NULL: @name in lower case
				 * (libsmartcols' own -J always uses the latter) */
	const char *fmt;	/* printf format of a double in tables ("%.1f"); NULL: "%g" */
	const char *null;	/* table text of a null value (JSON null); NULL: empty */
};

/* Output options, filled by ap_out_parse_opt() from getopt. */
struct ap_out {
	bool json, raw, noheadings, bytes, csv, all, list_columns;
	const char *columns;	/* -o argument, or NULL */
};

/* getopt_long values for the long-only options. */
enum {
	AP_OPT_OUTPUT_ALL = 0x200,
	AP_OPT_CSV,
	AP_OPT_OUT_LAST		/* commands number their own long-only options from here */
};

/* Splice into a command's longopts[] and optstring. */
#define AP_OUT_LONGOPTS \
	{ "output",       required_argument, NULL, 'o' }, \
	{ "output-all",   no_argument,       NULL, AP_OPT_OUTPUT_ALL }, \
	{ "json",         no_argument,       NULL, 'J' }, \
	{ "raw",          no_argument,       NULL, 'r' }, \
	{ "noheadings",   no_argument,       NULL, 'n' }, \
	{ "list-columns", no_argument,       NULL, 'H' }, \
	{ "bytes",        no_argument,       NULL, 'b' }, \
	{ "csv",          no_argument,       NULL, AP_OPT_CSV }
#define AP_OUT_OPTSTRING "o:JrnHb"

/*
 * The lines every command's --help prints for these options, their
 * descriptions from column @width, as the command's own options.
 */
void ap_out_usage(FILE *f, int width);

/* Handle one getopt result: 1 if it was an output option, else 0. */
int ap_out_parse_opt(struct ap_out *o, int c, const char *arg);

/* Mutually exclusive formats: returns -EINVAL and fills @e if several. */
int ap_out_validate(const struct ap_out *o, struct ap_error *e);

/*
 * Resolve the column list: --output-all, or -o (with '+' appending to
 * @defaults), or @defaults. @cols receives indexes into @infos; its size
 * must be at least @ninfos * 2. Unknown names: -EINVAL with a message.
 */
int ap_out_columns(const struct ap_out *o, const struct ap_colinfo *infos,
		   size_t ninfos, const int *defaults, size_t ndefaults,
		   int *cols, size_t *ncols, struct ap_error *e);

/* -H: print names and help of the columns, then the caller exits 0. */
void ap_out_list_columns(const struct ap_out *o, const struct ap_colinfo *infos,
			 size_t ninfos);

/*
 * The columns of one kind of result as selected by the output options:
 * the table's columns (from ap_out_columns()) and the keys of a JSON row.
 * Without -o a JSON row holds @json_all (a document's own order; NULL:
 * every column in @infos order), with -o exactly the columns of the table,
 * in their order, each once (lsblk -J -o). @o NULL: every column of
 * @json_all, sizes in bytes (documents saved for machines).
 */
struct ap_cols {
	const struct ap_out *out;
	const struct ap_colinfo *infos;
	size_t ninfos;
	const int *cols;	/* table columns: indexes into @infos */
	size_t ncols;
	const int *json;	/* JSON keys: indexes into @infos; NULL: all */
	size_t njson;
};

void ap_cols_init(struct ap_cols *cs, const struct ap_out *o,
		  const struct ap_colinfo *infos, size_t ninfos,
		  const int *cols, size_t ncols, const int *json_all, size_t njson_all);

/* A table of the selected columns; @name names libsmartcols' JSON array. */
struct libscols_table *ap_cols_table_new(const struct ap_cols *cs, const char *name);

/* The JSON key of column @ci: its own, or its name in lower case in @buf. */
const char *ap_col_json_key(const struct ap_colinfo *ci, char *buf, size_t len);

/*
 * One result: a typed value per column, set whether the column is
 * selected or not, then rendered as a table line and/or a JSON object.
 * Cells not set are null: JSON null, and in tables the column's @null
 * text (or empty). Strings are copied.
 */
enum ap_cell_kind { AP_CELL_NULL = 0, AP_CELL_STR, AP_CELL_U64, AP_CELL_DOUBLE, AP_CELL_BOOL };

struct ap_cell {
	enum ap_cell_kind kind;
	union {
		char *s;
		uint64_t u;
		double d;
		bool b;
	} v;
};

struct ap_row {
	const struct ap_cols *cs;
	struct ap_cell *cells;	/* one per column of cs->infos */
};

void ap_row_init(struct ap_row *r, const struct ap_cols *cs);
/* Every cell back to null, for the next result. */
void ap_row_reset(struct ap_row *r);
void ap_row_free(struct ap_row *r);

void ap_row_str(struct ap_row *r, int id, const char *s);	/* NULL: null */
void ap_row_u64(struct ap_row *r, int id, uint64_t v);		/* numbers and sizes */
void ap_row_double(struct ap_row *r, int id, double v);		/* not finite: null */
void ap_row_bool(struct ap_row *r, int id, bool v);		/* yes/no, true/false */
void ap_row_null(struct ap_row *r, int id);

/* Add the row to @tb (made by ap_cols_table_new()): 0 or -ENOMEM. */
int ap_row_add_line(const struct ap_row *r, struct libscols_table *tb);
/* Fill @r (reset by the caller's fill) with item @i: false leaves the item out. */
typedef bool (*ap_row_fill_fn)(void *ctx, struct ap_row *r, size_t i);
/* A table named @name of the rows @fill gives for items 0..@n-1; NULL: out of memory. */
struct libscols_table *ap_cols_table_rows(const struct ap_cols *cs, const char *name, size_t n,
					  ap_row_fill_fn fill, void *ctx);
/* The row as a JSON object of the selected keys (NULL: out of memory). */
struct json_object;
struct json_object *ap_row_json(const struct ap_row *r);

/* Print (table, raw, JSON or CSV) to stdout; -EIO if stdout failed. */
int ap_out_print(const struct ap_out *o, struct libscols_table *tb);

/*
 * For commands that print a JSON document of their own (json-c), write it
 * to @f followed by a newline; -EIO on write error.
 */
int ap_out_json_print(FILE *f, struct json_object *doc);

/*
 * @s as plain text may show it (malloc'd): what the locale's character set
 * prints kept (UTF-8 under C.UTF-8), control characters, invalid
 * sequences and backslashes as \xHH, as libsmartcols escapes table
 * cells. For strings read from files (a merged verdict store) printed
 * outside a table. NULL gives NULL.
 */
char *ap_out_printable(const char *s);

/* Close stdout, turning a late write error into -errno (util-linux closeout). */
int ap_out_close_stdout(void);

#endif
