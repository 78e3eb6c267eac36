// SPDX-License-Identifier: GPL-2.0-or-later
#include "ui/out.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <json-c/json.h>

void ap_out_usage(FILE *f, int width)
{
	static const char *const opts[][2] = {
		{ " -o, --output <list>", "columns to print (+<list> appends to the defaults)" },
		{ "     --output-all", "print all columns" },
		{ " -J, --json", "JSON output" },
		{ " -r, --raw", "raw output" },
		{ "     --csv", "comma-separated values (RFC 4180)" },
		{ " -n, --noheadings", "do not print headings" },
		{ " -H, --list-columns", "list the available columns" },
		{ " -b, --bytes", "print sizes in bytes" },
	};
	size_t i;

	for (i = 0; i < AP_ARRAY_SIZE(opts); i++)
		fprintf(f, "%-*s%s\n", width, opts[i][0], opts[i][1]);
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

static struct libscols_table *table_new(const struct ap_out *o, const char *name,
				       const struct ap_colinfo *infos,
				       const int *cols, size_t ncols)
{
	struct libscols_table *tb = scols_new_table();
	size_t i;

	if (!tb)
		ap_oom("a table");
	scols_table_set_name(tb, name);
	scols_table_enable_json(tb, o->json);
	scols_table_enable_raw(tb, o->raw);
	scols_table_enable_noheadings(tb, o->noheadings);
	for (i = 0; i < ncols; i++) {
		const struct ap_colinfo *ci = &infos[cols[i]];
		struct libscols_column *cl;

		cl = scols_table_new_column(tb, ci->name, ci->whint, ci->flags);
		if (!cl)
			ap_oom("a table column");
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

void ap_cols_init(struct ap_cols *cs, const struct ap_out *o,
		  const struct ap_colinfo *infos, size_t ninfos,
		  const int *cols, size_t ncols, const int *json_all, size_t njson_all)
{
	cs->out = o;
	cs->infos = infos;
	cs->ninfos = ninfos;
	cs->cols = cols;
	cs->ncols = ncols;
	if (o && o->columns) {
		cs->json = cols;
		cs->njson = ncols;
	} else {
		cs->json = json_all;
		cs->njson = json_all ? njson_all : ninfos;
	}
}

struct libscols_table *ap_cols_table_new(const struct ap_cols *cs, const char *name)
{
	static const struct ap_out defaults;

	return table_new(cs->out ? cs->out : &defaults, name, cs->infos, cs->cols, cs->ncols);
}

struct libscols_table *ap_cols_table_rows(const struct ap_cols *cs, const char *name, size_t n,
					  ap_row_fill_fn fill, void *ctx)
{
	struct libscols_table *tb = ap_cols_table_new(cs, name);
	struct ap_row r;
	size_t i;

	if (!tb)
		return NULL;
	ap_row_init(&r, cs);
	for (i = 0; i < n; i++) {
		if (!fill(ctx, &r, i))
			continue;
		if (ap_row_add_line(&r, tb) != 0) {
			ap_row_free(&r);
			scols_unref_table(tb);
			return NULL;
		}
	}
	ap_row_free(&r);
	return tb;
}

const char *ap_col_json_key(const struct ap_colinfo *ci, char *buf, size_t len)
{
	size_t k;

	if (ci->json)
		return ci->json;
	for (k = 0; ci->name[k] && k + 1 < len; k++)
		buf[k] = (char)tolower((unsigned char)ci->name[k]);
	buf[k] = '\0';
	return buf;
}

void ap_row_init(struct ap_row *r, const struct ap_cols *cs)
{
	r->cs = cs;
	r->cells = ap_xcalloc(cs->ninfos ? cs->ninfos : 1, sizeof(*r->cells));
}

void ap_row_null(struct ap_row *r, int id)
{
	struct ap_cell *c = &r->cells[id];

	assert(id >= 0 && (size_t)id < r->cs->ninfos);
	if (c->kind == AP_CELL_STR)
		free(c->v.s);
	c->kind = AP_CELL_NULL;
}

void ap_row_reset(struct ap_row *r)
{
	size_t i;

	for (i = 0; i < r->cs->ninfos; i++)
		ap_row_null(r, (int)i);
}

void ap_row_free(struct ap_row *r)
{
	if (!r->cells)
		return;
	ap_row_reset(r);
	free(r->cells);
	r->cells = NULL;
}

void ap_row_str(struct ap_row *r, int id, const char *s)
{
	ap_row_null(r, id);
	if (!s)
		return;
	r->cells[id].kind = AP_CELL_STR;
	r->cells[id].v.s = ap_xstrdup(s);
}

void ap_row_u64(struct ap_row *r, int id, uint64_t v)
{
	ap_row_null(r, id);
	r->cells[id].kind = AP_CELL_U64;
	r->cells[id].v.u = v;
}

void ap_row_double(struct ap_row *r, int id, double v)
{
	ap_row_null(r, id);
	if (!isfinite(v))
		return;
	r->cells[id].kind = AP_CELL_DOUBLE;
	r->cells[id].v.d = v;
}

void ap_row_bool(struct ap_row *r, int id, bool v)
{
	ap_row_null(r, id);
	r->cells[id].kind = AP_CELL_BOOL;
	r->cells[id].v.b = v;
}

/*
 * The table text of column @id, in @buf or a constant; NULL leaves the
 * cell unset (a null number or boolean without a null text).
 */
static const char *cell_text(const struct ap_row *r, int id, char *buf, size_t len,
			     char **human)
{
	const struct ap_colinfo *ci = &r->cs->infos[id];
	const struct ap_cell *c = &r->cells[id];
	const struct ap_out *o = r->cs->out;

	switch (c->kind) {
	case AP_CELL_STR:
		return c->v.s;
	case AP_CELL_U64:
		if (ci->type == AP_COL_SIZE && o && !o->bytes && !o->json) {
			*human = ap_size_to_human(c->v.u);
			return *human;
		}
		snprintf(buf, len, "%" PRIu64, c->v.u);
		return buf;
	case AP_CELL_DOUBLE:
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		snprintf(buf, len, ci->fmt ? ci->fmt : "%g", c->v.d);
#pragma GCC diagnostic pop
		return buf;
	case AP_CELL_BOOL:
		/* libsmartcols prints boolean JSON columns as true/false when
		 * the cell starts with neither "0" nor "n"; tables show the word. */
		return c->v.b ? "yes" : "no";
	case AP_CELL_NULL:
		break;
	}
	if (ci->null)
		return ci->null;
	return ci->type == AP_COL_STRING ? "" : NULL;
}

int ap_row_add_line(const struct ap_row *r, struct libscols_table *tb)
{
	struct libscols_line *ln = scols_table_new_line(tb, NULL);
	size_t i;

	if (!ln)
		return -ENOMEM;
	for (i = 0; i < r->cs->ncols; i++) {	/* -o A,A shows a column twice */
		char buf[64], *human = NULL;
		const char *s = cell_text(r, r->cs->cols[i], buf, sizeof(buf), &human);
		int rc = s ? scols_line_set_data(ln, i, s) : 0;

		free(human);
		if (rc)
			return -ENOMEM;
	}
	return 0;
}

static struct json_object *cell_json(const struct ap_cell *c)
{
	switch (c->kind) {
	case AP_CELL_STR:
		return json_object_new_string(c->v.s);
	case AP_CELL_U64:
		return ap_json_u64(c->v.u);
	case AP_CELL_DOUBLE:
		return json_object_new_double(c->v.d);
	case AP_CELL_BOOL:
		return json_object_new_boolean(c->v.b);
	case AP_CELL_NULL:
		break;
	}
	return NULL;
}

struct json_object *ap_row_json(const struct ap_row *r)
{
	const struct ap_cols *cs = r->cs;
	struct json_object *o = json_object_new_object();
	size_t i;

	if (!o)
		return NULL;
	for (i = 0; i < cs->njson; i++) {
		int id = cs->json ? cs->json[i] : (int)i;
		char buf[64];
		const char *key = ap_col_json_key(&cs->infos[id], buf, sizeof(buf));

		if (json_object_object_get_ex(o, key, NULL))
			continue;	/* -o A,A: one key */
		json_object_object_add(o, key, cell_json(&r->cells[id]));
	}
	return o;
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

	if (!it)
		ap_oom("a table iterator");
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
