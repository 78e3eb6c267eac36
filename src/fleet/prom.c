// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Prometheus' text exposition format (see prom.h): a family is a name, a
 * type, a help text and its samples; rendering writes each family's HELP
 * and TYPE lines and then its samples, so a file is valid by construction.
 */
#include "fleet/prom.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

#define MAX_LABELS	16

struct sample {
	char **labels;		/* name, value, name, value... */
	size_t nlabels;		/* pairs */
	double value;
};

struct family {
	char *name, *help;
	enum ap_prom_type type;
	struct sample *samples;
	size_t nsamples;
};

struct ap_prom {
	struct family *fams;
	size_t nfams;
};

/* @s escaped: backslash and newline always, the double quote in label values. */
static void put_escaped(FILE *f, const char *s, bool quote)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else if (*s == '"' && quote)
			fputs("\\\"", f);
		else
			fputc(*s, f);
	}
}

/* The text written to @f by open_memstream(), or NULL (out of memory). */
static char *memstream_close(FILE *f, char **buf)
{
	if (fclose(f) != 0) {
		free(*buf);
		return NULL;
	}
	return *buf;
}

bool ap_prom_is_metric_name(const char *s)
{
	size_t i;

	if (!s || !*s)
		return false;
	for (i = 0; s[i]; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
		      (i > 0 && c >= '0' && c <= '9')))
			return false;
	}
	return true;
}

bool ap_prom_is_label_name(const char *s)
{
	size_t i;

	if (!s || !*s || strncmp(s, "__", 2) == 0)
		return false;
	for (i = 0; s[i]; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
		      (i > 0 && c >= '0' && c <= '9')))
			return false;
	}
	return true;
}

static bool is_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = ap_utf8_len(p);

		if (!n)
			return false;
		p += n;
	}
	return true;
}

char *ap_prom_escape_label_value(const char *s)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	put_escaped(f, s, true);
	return memstream_close(f, &buf);
}

void ap_prom_format_value(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "NaN");
	else if (isinf(v))
		snprintf(buf, len, "%s", v > 0 ? "+Inf" : "-Inf");
	else if (v == floor(v) && fabs(v) <= 9007199254740992.0)
		snprintf(buf, len, "%.0f", v == 0 ? 0.0 : v);	/* no "-0" */
	else
		snprintf(buf, len, "%.17g", v);
}

struct ap_prom *ap_prom_new(void)
{
	return ap_xcalloc(1, sizeof(struct ap_prom));
}

static void free_sample(struct sample *s)
{
	size_t i;

	for (i = 0; i < s->nlabels * 2; i++)
		free(s->labels[i]);
	free(s->labels);
}

void ap_prom_free(struct ap_prom *p)
{
	size_t i, k;

	if (!p)
		return;
	for (i = 0; i < p->nfams; i++) {
		struct family *f = &p->fams[i];

		for (k = 0; k < f->nsamples; k++)
			free_sample(&f->samples[k]);
		free(f->samples);
		free(f->name);
		free(f->help);
	}
	free(p->fams);
	free(p);
}

static struct family *find_family(const struct ap_prom *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nfams; i++)
		if (strcmp(p->fams[i].name, name) == 0)
			return &p->fams[i];
	return NULL;
}

int ap_prom_family(struct ap_prom *p, const char *name, enum ap_prom_type type,
		   const char *help)
{
	struct family *f;

	if (!ap_prom_is_metric_name(name) || !help || !is_utf8(help) ||
	    (type != AP_PROM_GAUGE && type != AP_PROM_COUNTER && type != AP_PROM_UNTYPED))
		return -EINVAL;
	f = find_family(p, name);
	if (f)
		return f->type == type && strcmp(f->help, help) == 0 ? 0 : -EEXIST;
	p->fams = ap_xreallocarray(p->fams, p->nfams + 1, sizeof(*p->fams));
	f = &p->fams[p->nfams++];
	memset(f, 0, sizeof(*f));
	f->name = ap_xstrdup(name);
	f->help = ap_xstrdup(help);
	f->type = type;
	return 0;
}

/* Do two samples have the same label set (in any order)? */
static bool same_labels(const struct sample *s, const char *const *labels, size_t n)
{
	size_t i, k;

	if (s->nlabels != n)
		return false;
	for (i = 0; i < n; i++) {
		for (k = 0; k < n; k++)
			if (strcmp(s->labels[2 * k], labels[2 * i]) == 0)
				break;
		if (k == n || strcmp(s->labels[2 * k + 1], labels[2 * i + 1]) != 0)
			return false;
	}
	return true;
}

int ap_prom_add_labels(struct ap_prom *p, const char *name, double value,
		       const char *const *labels, size_t nlabels)
{
	struct family *f = find_family(p, name);
	struct sample *s;
	size_t i, k;

	if (!f)
		return -ENOENT;
	if (nlabels > MAX_LABELS)
		return -EINVAL;
	for (i = 0; i < nlabels; i++) {
		if (!ap_prom_is_label_name(labels[2 * i]) || !labels[2 * i + 1])
			return -EINVAL;
		for (k = 0; k < i; k++)
			if (strcmp(labels[2 * k], labels[2 * i]) == 0)
				return -EINVAL;
		if (!is_utf8(labels[2 * i + 1]))
			return -EILSEQ;
	}
	for (i = 0; i < f->nsamples; i++)
		if (same_labels(&f->samples[i], labels, nlabels))
			return -EEXIST;
	f->samples = ap_xreallocarray(f->samples, f->nsamples + 1, sizeof(*f->samples));
	s = &f->samples[f->nsamples++];
	s->value = value;
	s->nlabels = nlabels;
	s->labels = ap_xcalloc(nlabels ? nlabels * 2 : 1, sizeof(char *));
	for (i = 0; i < nlabels * 2; i++)
		s->labels[i] = ap_xstrdup(labels[i]);
	return 0;
}

int ap_prom_add(struct ap_prom *p, const char *name, double value, ...)
{
	const char *labels[MAX_LABELS * 2 + 2];
	size_t n = 0;
	const char *k;
	va_list ap;

	va_start(ap, value);
	while ((k = va_arg(ap, const char *)) != NULL) {
		if (n >= MAX_LABELS * 2) {
			va_end(ap);
			return -EINVAL;
		}
		labels[n++] = k;
		labels[n++] = va_arg(ap, const char *);
	}
	va_end(ap);
	return ap_prom_add_labels(p, name, value, labels, n / 2);
}

static const char *type_name(enum ap_prom_type t)
{
	switch (t) {
	case AP_PROM_COUNTER:
		return "counter";
	case AP_PROM_UNTYPED:
		return "untyped";
	default:
		return "gauge";
	}
}

char *ap_prom_render(const struct ap_prom *p)
{
	char num[32], *buf = NULL;
	size_t i, k, l, len;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (i = 0; i < p->nfams; i++) {
		const struct family *fam = &p->fams[i];

		fprintf(f, "# HELP %s ", fam->name);
		put_escaped(f, fam->help, false);
		fprintf(f, "\n# TYPE %s %s\n", fam->name, type_name(fam->type));
		for (k = 0; k < fam->nsamples; k++) {
			const struct sample *s = &fam->samples[k];

			fputs(fam->name, f);
			for (l = 0; l < s->nlabels; l++) {
				fprintf(f, "%s%s=\"", l ? "," : "{", s->labels[2 * l]);
				put_escaped(f, s->labels[2 * l + 1], true);
				fputc('"', f);
			}
			if (s->nlabels)
				fputc('}', f);
			ap_prom_format_value(s->value, num, sizeof(num));
			fprintf(f, " %s\n", num);
		}
	}
	return memstream_close(f, &buf);
}
