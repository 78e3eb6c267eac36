// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * postmark's pinned settings and its CONFIG files (see pm_pins.h): the
 * options as PostMark `set` lines on top of every configuration, and the
 * files read and checked before anything runs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/util.h"
#include "workload/pm.h"
#include "workload/pm_pins.h"

void ap_pm_pin(struct ap_pm_pins *p, const char *cmd, const char *arg)
{
	p->lines = ap_xreallocarray(p->lines, p->nlines + 1, sizeof(*p->lines));
	ap_xasprintf(&p->lines[p->nlines++], "%s %s", cmd, arg);
}

void ap_pm_pin_size(struct ap_pm_pins *p, const char *arg)
{
	char *v = ap_xstrdup(arg);

	if (strchr(v, ':'))
		*strchr(v, ':') = ' ';
	ap_pm_pin(p, "set size", v);
	free(v);
}

int ap_pm_pin_buffering(struct ap_pm_pins *p, const char *arg, struct ap_error *e)
{
	if (!strcmp(arg, "yes") || !strcmp(arg, "true"))
		ap_pm_pin(p, "set buffering", "true");
	else if (!strcmp(arg, "no") || !strcmp(arg, "false"))
		ap_pm_pin(p, "set buffering", "false");
	else
		return ap_error_set(e, EINVAL, "--buffering: 'yes' or 'no', not '%s'", arg);
	return 0;
}

void ap_pm_pins_free(struct ap_pm_pins *p)
{
	size_t i;

	for (i = 0; i < p->nlines; i++)
		free(p->lines[i]);
	free(p->lines);
	for (i = 0; i < p->nlocs; i++)
		free(p->locs[i].path);
	free(p->locs);
}

int ap_pm_pin_location(struct ap_pm_pins *p, const char *arg, struct ap_error *e)
{
	char *dir = ap_xstrdup(arg), *eq = strrchr(dir, '=');
	struct stat st;
	uint32_t w = 1;

	if (eq && ap_parse_u32(eq + 1, &w) == 0) {
		*eq = '\0';
		if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
			*eq = '=';
			w = 1;
		}
	}
	if (w < 1 || w > AP_PM_MAX_WEIGHT) {
		free(dir);
		return ap_error_set(e, EINVAL, "--location %s: weight out of range 1..%u", arg,
				    AP_PM_MAX_WEIGHT);
	}
	p->locs = ap_xreallocarray(p->locs, p->nlocs + 1, sizeof(*p->locs));
	p->locs[p->nlocs].path = dir;
	p->locs[p->nlocs].weight = w;
	p->nlocs++;
	return 0;
}

/* --location: the pinned directories replace @cfg's. */
static int pins_locations(const struct ap_pm_pins *p, struct ap_pm_config *cfg,
			  struct ap_error *e)
{
	struct ap_pm_config tmp;
	size_t i;
	int rc;

	ap_pm_config_copy(&tmp, cfg);
	ap_pm_config_free(&tmp);	/* drops the locations only */
	tmp.locations = NULL;
	tmp.nlocations = 0;
	for (i = 0; i < p->nlocs; i++) {
		rc = ap_pm_config_add_location(&tmp, p->locs[i].path, p->locs[i].weight, e);
		if (rc) {
			ap_pm_config_free(&tmp);
			return rc;
		}
	}
	ap_pm_config_free(cfg);
	*cfg = tmp;
	return 0;
}

int ap_pm_pins_apply(const struct ap_pm_pins *p, struct ap_pm_config *cfg, struct ap_error *e)
{
	struct ap_pm_line pl;
	size_t i;
	int rc;

	for (i = 0; i < p->nlines; i++) {
		rc = ap_pm_config_line(cfg, p->lines[i], NULL, 0, &pl, e);
		free(pl.arg);
		if (rc)
			return rc;
	}
	return p->nlocs ? pins_locations(p, cfg, e) : 0;
}

bool ap_pm_script_has_run(const struct ap_pm_script *s)
{
	size_t i;

	for (i = 0; i < s->nsteps; i++) {
		if (s->steps[i].cmd == AP_PM_CMD_RUN)
			return true;
	}
	return false;
}

int ap_pm_script_check(struct ap_pm_script *s, const struct ap_pm_pins *pins, bool implicit_run,
		       const char **where, struct ap_error *e)
{
	size_t i;
	int rc;

	for (i = 0; i < s->nsteps; i++) {
		struct ap_pm_step *st = &s->steps[i];

		*where = st->where;
		rc = ap_pm_pins_apply(pins, &st->cfg, e);
		if (!rc && st->cmd == AP_PM_CMD_RUN)
			rc = ap_pm_config_validate(&st->cfg, e);
		if (rc)
			return rc;
	}
	*where = NULL;
	rc = ap_pm_pins_apply(pins, &s->final, e);
	if (!rc && implicit_run)
		rc = ap_pm_config_validate(&s->final, e);
	return rc;
}

int ap_pm_scripts_load(struct ap_pm_scripts *ss, struct ap_pm_config *base, char *const *paths,
		       size_t n, bool interactive, const char **failed, struct ap_error *e)
{
	bool has_run = false;
	size_t i;
	int rc;

	memset(ss, 0, sizeof(*ss));
	ss->s = ap_xcalloc(n + 1, sizeof(*ss->s));
	for (i = 0; i < n; i++) {
		rc = ap_pm_script_load(&ss->s[ss->n], base, paths[i], e);
		if (rc) {
			*failed = paths[i];
			return rc;
		}
		/* the next file starts from this one's settings, as `load` */
		ap_pm_config_free(base);
		ap_pm_config_copy(base, &ss->s[ss->n].final);
		if (!ss->quit) {
			has_run |= ap_pm_script_has_run(&ss->s[ss->n]);
			ss->nrun = ss->n + 1;
		}
		ss->quit |= ss->s[ss->n].quit;
		ss->n++;
	}
	ss->implicit = ss->nrun && !has_run && !ss->quit && !interactive;
	return 0;
}

bool ap_pm_scripts_implicit(const struct ap_pm_scripts *ss, size_t k)
{
	return ss->implicit && k == ss->nrun - 1;
}

void ap_pm_scripts_free(struct ap_pm_scripts *ss)
{
	size_t k;

	for (k = 0; k < ss->n; k++)
		ap_pm_script_free(&ss->s[k]);
	free(ss->s);
	memset(ss, 0, sizeof(*ss));
}
