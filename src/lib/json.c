// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * json-c helpers shared by the documents alignprobe reads and writes
 * (see json.h); moved out of ui/out.c so that device/ and fleet/ read
 * JSON without the table code.
 */
#include "lib/json.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

struct json_object *ap_json_string(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

struct json_object *ap_json_u64(uint64_t v)
{
	return json_object_new_int64(v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

/* Member @key of @o of @type into *@v (NULL when absent or null): 0 or -EINVAL. */
static int member(struct json_object *o, const char *key, bool required, json_type type,
		  const char *tname, struct json_object **v, struct ap_error *e)
{
	*v = NULL;
	if (!json_object_object_get_ex(o, key, v) || !*v) {
		*v = NULL;
		return required ? ap_error_set(e, EINVAL, "\"%s\" is missing", key) : 0;
	}
	if (!json_object_is_type(*v, type))
		return ap_error_set(e, EINVAL, "\"%s\" is not a %s", key, tname);
	return 0;
}

int ap_json_get_string(struct json_object *o, const char *key, bool required, char **out,
		       struct ap_error *e)
{
	struct json_object *v;
	int rc = member(o, key, required, json_type_string, "string", &v, e);

	*out = v && !rc ? ap_xstrdup(json_object_get_string(v)) : NULL;
	return rc;
}

int ap_json_get_bool(struct json_object *o, const char *key, bool required, bool *out,
		     struct ap_error *e)
{
	struct json_object *v;
	int rc = member(o, key, required, json_type_boolean, "boolean", &v, e);

	*out = v && !rc ? json_object_get_boolean(v) : false;
	return rc;
}

/* All of @f, NUL-terminated, at most @max bytes: 0, -EFBIG or -errno. */
static int read_all(FILE *f, size_t max, char **out, size_t *len)
{
	size_t cap = 65536, n = 0, r;
	char *buf = ap_xmalloc(cap + 1);

	errno = 0;
	while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n > max) {
			free(buf);
			return -EFBIG;
		}
		if (n == cap) {
			cap *= 2;
			buf = ap_xrealloc(buf, cap + 1);
		}
	}
	if (ferror(f)) {
		int err = errno ? errno : EIO;

		free(buf);
		return -err;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

int ap_json_load(const char *path, size_t max, struct json_object **doc, struct ap_error *e)
{
	enum json_tokener_error jerr;
	struct json_tokener *tok;
	struct json_object *o;
	const char *rest;
	FILE *f;
	char *buf;
	size_t len;
	int rc;

	*doc = NULL;
	if (strcmp(path, "-") == 0) {
		f = stdin;
	} else {
		f = fopen(path, "re");
		if (!f)
			return ap_error_set(e, errno, "%s: %s", path, strerror(errno));
	}
	rc = read_all(f, max > INT32_MAX ? INT32_MAX : max, &buf, &len);
	if (f != stdin)
		fclose(f);
	if (rc == -EFBIG)
		return ap_error_set(e, EFBIG, "%s: larger than %zu MiB", path, max >> 20);
	if (rc)
		return ap_error_set(e, -rc, "%s: read failed: %s", path, strerror(-rc));
	if (strlen(buf) != len) {
		free(buf);
		return ap_error_set(e, EINVAL, "%s: binary data, not JSON", path);
	}
	tok = json_tokener_new();
	if (!tok) {
		free(buf);
		return ap_error_set(e, ENOMEM, "out of memory");
	}
	o = json_tokener_parse_ex(tok, buf, (int)len);
	jerr = json_tokener_get_error(tok);
	rest = o ? buf + json_tokener_get_parse_end(tok) : "";
	if (!o && jerr == json_tokener_continue && len) {
		/* a literal that ends the file ("null", "12") ends at its NUL */
		o = json_tokener_parse_ex(tok, buf + len, 1);
		jerr = json_tokener_get_error(tok);
		if (!o && jerr != json_tokener_success)
			jerr = json_tokener_continue;	/* it was cut short */
		rest = "";
	}
	if (!o && jerr == json_tokener_success) {
		/* valid JSON, but no document to read: not "end of file" */
		json_tokener_free(tok);
		free(buf);
		return ap_error_set(e, EINVAL, "%s: the document is JSON null", path);
	}
	rest += strspn(rest, " \t\r\n");
	if (!o || jerr != json_tokener_success || *rest) {
		rc = ap_error_set(e, EINVAL, "%s: not valid JSON: %s", path,
				  !o && (jerr == json_tokener_continue || !len)
				  ? "unexpected end of file" : *rest && jerr == json_tokener_success
				  ? "more after the end of the document" : json_tokener_error_desc(jerr));
		json_object_put(o);
		json_tokener_free(tok);
		free(buf);
		return rc;
	}
	json_tokener_free(tok);
	free(buf);
	*doc = o;
	return 0;
}

int ap_json_get_u64(struct json_object *o, const char *key, uint64_t max, bool required,
		    uint64_t *out, struct ap_error *e)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v) {
		if (required)
			return ap_error_set(e, EINVAL, "\"%s\" is missing", key);
		return 0;
	}
	if (!json_object_is_type(v, json_type_int))
		return ap_error_set(e, EINVAL, "\"%s\" is not an integer", key);
	if (json_object_get_int64(v) < 0 || json_object_get_uint64(v) > max)
		return ap_error_set(e, ERANGE, "\"%s\" out of range", key);
	*out = json_object_get_uint64(v);
	return 0;
}

const char *ap_json_peek_string(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}
