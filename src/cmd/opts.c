// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The option kit (opts.h): one getopt_long loop for every command, the
 * shared options handled from each command's table, its own handed back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/opts.h"
#include "lib/exitcodes.h"
#include "lib/util.h"
#include "ui/out.h"

static const struct option out_longopts[] = { AP_OUT_LONGOPTS };

/* The command's own long options, then the shared ones, in table order. */
static struct option *merge_longopts(const struct ap_opts *p)
{
	const struct ap_opt *o;
	struct option *all;
	size_t n = 0, i = 0;

	while (p->longopts && p->longopts[n].name)
		n++;
	for (o = p->common; o->kind != AP_OPTK_END; o++)
		n += o->kind == AP_OPTK_OUTPUT ? AP_ARRAY_SIZE(out_longopts) : 1;
	all = ap_xcalloc(n + 1, sizeof(*all));
	while (p->longopts && p->longopts[i].name) {
		all[i] = p->longopts[i];
		i++;
	}
	for (o = p->common; o->kind != AP_OPTK_END; o++) {
		if (o->kind == AP_OPTK_OUTPUT) {
			memcpy(&all[i], out_longopts, sizeof(out_longopts));
			i += AP_ARRAY_SIZE(out_longopts);
			continue;
		}
		all[i].name = o->name;
		all[i].has_arg = o->kind == AP_OPTK_STR ? required_argument :
				 o->kind == AP_OPTK_STR_OPT ? optional_argument : no_argument;
		all[i++].val = o->val;
	}
	return all;
}

/* The command's own letters, then those of the shared options. */
static char *merge_shortopts(const struct ap_opts *p)
{
	const struct ap_opt *o;
	size_t len = p->shortopts ? strlen(p->shortopts) : 0;
	char *s = ap_xcalloc(len + 3 * 16 + sizeof(AP_OUT_OPTSTRING), 1), *e;

	if (len)
		memcpy(s, p->shortopts, len);
	e = s + len;
	for (o = p->common; o->kind != AP_OPTK_END; o++) {
		if (o->kind == AP_OPTK_OUTPUT) {
			memcpy(e, AP_OUT_OPTSTRING, strlen(AP_OUT_OPTSTRING));
			e += strlen(AP_OUT_OPTSTRING);
			continue;
		}
		if (o->val <= 0 || o->val > 0x7f)
			continue;
		*e++ = (char)o->val;
		if (o->kind == AP_OPTK_STR || o->kind == AP_OPTK_STR_OPT)
			*e++ = ':';
		if (o->kind == AP_OPTK_STR_OPT)
			*e++ = ':';
	}
	return s;
}

/* --help: "Usage:" and the synopsis, then the command's own text. */
static void help(const struct ap_opts *p, const struct ap_opt *o)
{
	const char *const *f;

	if (p->synopsis) {
		fputs("Usage:\n", stdout);
		for (f = p->synopsis; *f; f++)
			printf(" %s %s %s\n", AP_PROG, p->cmd, *f);
		putchar('\n');
	}
	o->usage();
}

/* A shared option: 0 done, -1 the command ends (help, version), 1 not shared. */
static int common_opt(const struct ap_opts *p, int ch, const char *arg)
{
	const struct ap_opt *o;

	for (o = p->common; o->kind != AP_OPTK_END; o++) {
		if (o->kind == AP_OPTK_OUTPUT) {
			if (ap_out_parse_opt(o->value, ch, arg))
				return 0;
			continue;
		}
		if (o->val != ch)
			continue;
		switch (o->kind) {
		case AP_OPTK_FLAG:
			*(bool *)o->value = true;
			return 0;
		case AP_OPTK_STR_OPT:
			*o->set = true;
			/* fall through */
		case AP_OPTK_STR:
			*(const char **)o->value = arg;
			return 0;
		case AP_OPTK_HELP:
			help(p, o);
			return -1;
		case AP_OPTK_VERSION:
			ap_print_version();
			return -1;
		default:
			break;
		}
	}
	return 1;
}

int ap_opts_parse(const struct ap_opts *p, int argc, char **argv)
{
	struct option *longopts = merge_longopts(p);
	char *shortopts = merge_shortopts(p);
	int ch, rc = 0;

	optind = 0;	/* full getopt re-initialization */
	while (!rc && (ch = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (ch == '?') {
			ap_usage_hint(p->cmd);
			rc = AP_EXIT_USAGE;
			break;
		}
		rc = common_opt(p, ch, optarg);
		if (rc == 1)
			rc = p->own ? p->own(p->ctx, ch, optarg) : AP_EXIT_USAGE;
	}
	free(shortopts);
	free(longopts);
	return rc;
}

int ap_opts_out_check(const char *cmd, const struct ap_out *o)
{
	struct ap_error e = { 0 };

	if (ap_out_validate(o, &e) != 0) {
		ap_usage_error(cmd, "%s", e.msg);
		return AP_EXIT_USAGE;
	}
	return 0;
}

int ap_opts_list_columns(const struct ap_out *o, const struct ap_opts_cols *t)
{
	if (!o->list_columns)
		return 0;
	ap_out_list_columns(o, t->infos, t->ninfos);
	return -1;
}

int ap_opts_columns(const char *cmd, const struct ap_out *o, const struct ap_opts_cols *t,
		    int *cols, size_t *ncols)
{
	int *tmp = cols ? NULL : ap_xcalloc(t->ninfos * 2, sizeof(*tmp));
	struct ap_error e = { 0 };
	size_t n;
	int rc = ap_out_columns(o, t->infos, t->ninfos, t->defaults, t->ndefaults,
				cols ? cols : tmp, ncols ? ncols : &n, &e);

	free(tmp);
	if (rc != 0) {
		ap_usage_error(cmd, "%s", e.msg);
		return AP_EXIT_USAGE;
	}
	return 0;
}
