/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Table output with lsblk's conventions, through libsmartcols:
 * -o/--output (a leading '+' appends to the defaults), --output-all,
 * -J/--json, -r/--raw, -n/--noheadings, -H/--list-columns, -b/--bytes,
 * --csv (RFC 4180). Every command that prints a table describes its columns
 * with an array of struct ap_colinfo and uses these helpers.
 *
 * Conventions (API): column names are upper case with '_' between words
 * (READ_KIBS); JSON keys are the same names in lower case, so they match the
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

struct ap_colinfo {
	const char *name;	/* upper case, e.g. "START" */
	double whint;		/* libsmartcols width hint */
	int flags;		/* SCOLS_FL_* */
	enum ap_coltype type;
	const char *help;	/* one line for -H and the man page */
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

/* The lines every command's --help prints for these options. */
void ap_out_usage(FILE *f);

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

/* A new table with the selected columns; @name names the JSON array. */
struct libscols_table *ap_out_table_new(const struct ap_out *o, const char *name,
					const struct ap_colinfo *infos,
					const int *cols, size_t ncols);

/*
 * Set one cell of @ln for column id @id (index into infos); the table's
 * column number is found from @cols. No-op when @id is not selected.
 */
void ap_out_set_str(struct libscols_line *ln, const int *cols, size_t ncols,
		    int id, const char *s);
void ap_out_set_u64(struct libscols_line *ln, const int *cols, size_t ncols,
		    int id, uint64_t v);
void ap_out_set_double(struct libscols_line *ln, const int *cols, size_t ncols,
		       int id, const char *fmt, double v);
void ap_out_set_bool(struct libscols_line *ln, const int *cols, size_t ncols,
		     int id, bool v);
void ap_out_set_size(const struct ap_out *o, struct libscols_line *ln,
		     const int *cols, size_t ncols, int id, uint64_t bytes);

/* Print (table, raw, JSON or CSV) to stdout; -EIO if stdout failed. */
int ap_out_print(const struct ap_out *o, struct libscols_table *tb);

/*
 * For commands that print a JSON document of their own (json-c), write it
 * to @f followed by a newline; -EIO on write error.
 */
struct json_object;
int ap_out_json_print(FILE *f, struct json_object *doc);

/* Close stdout, turning a late write error into -errno (util-linux closeout). */
int ap_out_close_stdout(void);

#endif
