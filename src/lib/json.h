/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * json-c helpers for the documents alignprobe reads and writes (verdicts,
 * identities, the verdict store, saved sweeps): values that map NULL to
 * null, typed member readers that name the member in their error, and a
 * bounded, strict document loader.
 */
#ifndef AP_JSON_H
#define AP_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/util.h"

struct json_object;

/* JSON values for documents: a string, or null for NULL; an unsigned number. */
struct json_object *ap_json_string(const char *s);
struct json_object *ap_json_u64(uint64_t v);

/*
 * Member @key of object @o, a string (malloc'd into @out) or a boolean: 0
 * (absent or null give NULL/false unless @required), -EINVAL (missing, of
 * another type) with the member named in @e.
 */
int ap_json_get_string(struct json_object *o, const char *key, bool required, char **out,
		       struct ap_error *e);
int ap_json_get_bool(struct json_object *o, const char *key, bool required, bool *out,
		     struct ap_error *e);

/*
 * A JSON document from file @path ("-": standard input), at most @max
 * bytes: 0 with *@doc, or -errno with "PATH: reason" in @e: the open's or
 * read's errno, -EFBIG, -EINVAL for binary data, invalid JSON, a truncated
 * document or anything but white space after it.
 */
int ap_json_load(const char *path, size_t max, struct json_object **doc, struct ap_error *e);

/*
 * Member @key of object @o, an integer 0..@max, into @out: 0 (absent or
 * null leave @out as it is unless @required), -EINVAL (missing, not an
 * integer) or -ERANGE with the member named in @e.
 */
int ap_json_get_u64(struct json_object *o, const char *key, uint64_t max, bool required,
		    uint64_t *out, struct ap_error *e);

/* Member @key of @o when it is a string (owned by @o), else NULL. */
const char *ap_json_peek_string(struct json_object *o, const char *key);

#endif
