// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/out.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <json-c/json.h>

void ap_out_usage(FILE *f)
{
	fputs(" -o, --output <list>      columns to print (+LIST appends to the defaults)\n"
	      "     --output-all         print all columns\n"
	      " -J, --json               JSON output\n"
	      " -r, --raw                raw output\n"
	      "     --csv                comma-separated values (RFC 4180)\n"
	      " -n, --noheadings         do not print headings\n"
	      " -H, --list-columns       list the available columns\n"
	      " -b, --bytes              print sizes in bytes\n", f);
}

int ap_out_parse_opt(struct ap_out *o, int c, const char *arg)
{
	switch (c) {
	case 'o':
		o->columns = arg;
		return 1;
	case AP_OPT_OUTPUT_ALL:
		o->all = true;
		return 1;
	case 'J':
		o->json = true;
		return 1;
	case 'r':
		o->raw = true;
		return 1;
	case 'n':
		o->noheadings = true;
		return 1;
	case 'H':
		o->list_columns = true;
		return 1;
	case 'b':
		o->bytes = true;
		return 1;
	case AP_OPT_CSV:
		o->csv = true;
		return 1;
	}
	return 0;
}

int ap_out_validate(const struct ap_out *o, struct ap_error *e)
{
	if (o->json + o->raw + o->csv > 1)
		return ap_error_set(e, EINVAL,
				    "--json, --raw and --csv are mutually exclusive");
	if (o->all && o->columns)
		return ap_error_set(e, EINVAL,
				    "--output and --output-all are mutually exclusive");
	return 0;
}

static int column_id(const struct ap_colinfo *infos, size_t ninfos,
		     const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < ninfos; i++)
		if (strlen(infos[i].name) == len &&
		    strncasecmp(infos[i].name, name, len) == 0)
			return (int)i;
	return -1;
}

int ap_out_columns(const struct ap_out *o, const struct ap_colinfo *infos,
		   size_t ninfos, const int *defaults, size_t ndefaults,
		   int *cols, size_t *ncols, struct ap_error *e)
{
	const char *p;
	size_t n = 0, max = ninfos * 2, i;

	if (o->all) {
		for (i = 0; i < ninfos; i++)
			cols[n++] = (int)i;
		*ncols = n;
		return 0;
	}
	p = o->columns;
	if (!p || *p == '+') {
		for (i = 0; i < ndefaults && n < max; i++)
			cols[n++] = defaults[i];
		if (p)
			p++;
	}
	while (p && *p) {
		size_t len = strcspn(p, ",");
		int id;

		if (len == 0)
			return ap_error_set(e, EINVAL, "empty column name in --output list");
		id = column_id(infos, ninfos, p, len);
		if (id < 0)
			return ap_error_set(e, EINVAL, "unknown column: %.*s (see --list-columns)",
					    (int)len, p);
		if (n >= max)
			return ap_error_set(e, EINVAL, "too many columns in --output list");
		cols[n++] = id;
		p += len;
		if (*p == ',')
			p++;
	}
	if (n == 0)
		return ap_error_set(e, EINVAL, "no columns selected");
	*ncols = n;
	return 0;
}

void ap_out_list_columns(const struct ap_out *o, const struct ap_colinfo *infos,
			 size_t ninfos)
{
	static const char *types[] = {
		[AP_COL_STRING] = "string", [AP_COL_NUMBER] = "number",
		[AP_COL_BOOLEAN] = "boolean", [AP_COL_SIZE] = "size",
	};
	size_t i;

	for (i = 0; i < ninfos; i++) {
		if (o && o->raw)
			printf("%s %s\n", infos[i].name, infos[i].help);
		else
			printf("%16s  <%s>  %s\n", infos[i].name,
			       types[infos[i].type], infos[i].help);
	}
}

struct libscols_table *ap_out_table_new(const struct ap_out *o, const char *name,
					const struct ap_colinfo *infos,
					const int *cols, size_t ncols)
{
	struct libscols_table *tb = scols_new_table();
	size_t i;

	if (!tb) {
		fprintf(stderr, "%s: cannot allocate a table\n", program_invocation_short_name);
		exit(1);
	}
	scols_table_set_name(tb, name);
	scols_table_enable_json(tb, o->json);
	scols_table_enable_raw(tb, o->raw);
	scols_table_enable_noheadings(tb, o->noheadings);
	for (i = 0; i < ncols; i++) {
		const struct ap_colinfo *ci = &infos[cols[i]];
		struct libscols_column *cl;

		cl = scols_table_new_column(tb, ci->name, ci->whint, ci->flags);
		if (!cl) {
			fprintf(stderr, "%s: cannot allocate a table column\n", program_invocation_short_name);
			exit(1);
		}
		switch (ci->type) {
		case AP_COL_NUMBER:
			scols_column_set_json_type(cl, SCOLS_JSON_NUMBER);
			break;
		case AP_COL_SIZE:	/* JSON is for machines: always bytes */
			scols_column_set_json_type(cl, SCOLS_JSON_NUMBER);
			break;
		case AP_COL_BOOLEAN:
			scols_column_set_json_type(cl, SCOLS_JSON_BOOLEAN);
			break;
		default:
			scols_column_set_json_type(cl, SCOLS_JSON_STRING);
			break;
		}
	}
	return tb;
}

void ap_out_set_str(struct libscols_line *ln, const int *cols, size_t ncols,
		    int id, const char *s)
{
	size_t i;

	for (i = 0; i < ncols; i++)	/* -o A,A shows a column twice */
		if (cols[i] == id)
			scols_line_set_data(ln, i, s ? s : "");
}

void ap_out_set_u64(struct libscols_line *ln, const int *cols, size_t ncols,
		    int id, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	ap_out_set_str(ln, cols, ncols, id, buf);
}

void ap_out_set_double(struct libscols_line *ln, const int *cols, size_t ncols,
		       int id, const char *fmt, double v)
{
	char buf[64];

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(buf, sizeof(buf), fmt, v);
#pragma GCC diagnostic pop
	ap_out_set_str(ln, cols, ncols, id, buf);
}

void ap_out_set_bool(struct libscols_line *ln, const int *cols, size_t ncols,
		     int id, bool v)
{
	/* libsmartcols prints boolean JSON columns as true/false when the
	 * cell starts with neither "0" nor "n"; tables show the word. */
	ap_out_set_str(ln, cols, ncols, id, v ? "yes" : "no");
}

void ap_out_set_size(const struct ap_out *o, struct libscols_line *ln,
		     const int *cols, size_t ncols, int id, uint64_t bytes)
{
	if (o->bytes || o->json) {
		ap_out_set_u64(ln, cols, ncols, id, bytes);
	} else {
		char *h = ap_size_to_human(bytes);

		ap_out_set_str(ln, cols, ncols, id, h);
		free(h);
	}
}

/* RFC 4180: quote a field holding , " CR LF or edge blanks; double quotes. */
static void csv_field(const char *s)
{
	size_t len;

	if (!s)
		s = "";
	len = strlen(s);
	if (!s[strcspn(s, ",\"\r\n")] && (!len || (s[0] != ' ' && s[len - 1] != ' '))) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

/* libsmartcols has no CSV mode: walk the filled table ourselves. */
static void print_csv(const struct ap_out *o, struct libscols_table *tb)
{
	struct libscols_iter *it = scols_new_iter(SCOLS_ITER_FORWARD);
	struct libscols_line *ln;
	size_t i, n = scols_table_get_ncols(tb);

	if (!it) {
		fprintf(stderr, "%s: cannot allocate a table iterator\n", program_invocation_short_name);
		exit(1);
	}
	if (!o->noheadings) {
		for (i = 0; i < n; i++) {
			struct libscols_column *cl = scols_table_get_column(tb, i);

			if (i)
				putchar(',');
			csv_field(scols_cell_get_data(scols_column_get_header(cl)));
		}
		putchar('\n');
	}
	while (scols_table_next_line(tb, it, &ln) == 0) {
		for (i = 0; i < n; i++) {
			if (i)
				putchar(',');
			csv_field(scols_cell_get_data(scols_line_get_cell(ln, i)));
		}
		putchar('\n');
	}
	scols_free_iter(it);
}

int ap_out_print(const struct ap_out *o, struct libscols_table *tb)
{
	if (o->csv)
		print_csv(o, tb);
	else if (scols_print_table(tb) != 0 && !ap_out_reader_gone(stdout))
		return -EIO;
	return ap_out_flush(stdout);
}

int ap_out_json_print(FILE *f, struct json_object *doc)
{
	const char *s = json_object_to_json_string_ext(doc,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
			JSON_C_TO_STRING_NOSLASHESCAPE);

	if ((fputs(s, f) == EOF || fputc('\n', f) == EOF) && !ap_out_reader_gone(f))
		return -EIO;
	return ap_out_flush(f);
}

int ap_out_close_stdout(void)
{
	int rc = ap_out_flush(stdout);

	if (fclose(stdout) != 0 && errno != EBADF && errno != EPIPE && !rc)
		rc = -errno;
	return rc;
}
