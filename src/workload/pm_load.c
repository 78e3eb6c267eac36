// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * PostMark configuration files, read line by line through
 * ap_pm_config_line() (pm_config.c): nested `load`, the script of a
 * `postmark FILE` run (every `run`/`show` with its settings, checked before
 * anything runs) and the settings the sweep's --workload FILE gives.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/outfile.h"
#include "workload/pm.h"
#include "workload/pmP.h"

/*
 * How a file is read: as a script (`postmark FILE`: every run, show and
 * help becomes a step), or for its settings (ap_pm_config_load(), the
 * sweep's --workload: reading stops at the first run, `set location`
 * lines are counted and skipped, run/show/help are otherwise ignored).
 */
struct load {
	struct ap_pm_script *s;
	bool settings;
	unsigned nlocations;	/* settings: `set location` lines skipped */
	struct ap_error *e;
};

#define LOAD_QUIT	1	/* a quit ended the file */
#define LOAD_RUN	2	/* settings: the first run, stop reading everything */

/*
 * `run F`/`show F`: F must be appendable (checked before anything runs, by
 * really opening it, or creating a file next to it).
 */
static int check_output(struct ap_error *e, const char *file, unsigned lineno,
			const char *path)
{
	int rc = ap_outfile_check(path, false, NULL);
	struct stat st;

	if (rc && stat(path, &st) == 0 && S_ISBLK(st.st_mode))
		return ap_pm_error_at(e, file, lineno, -rc, "cannot write to '%s': a block device",
				      path);
	if (rc)
		return ap_pm_error_at(e, file, lineno, -rc, "cannot %s '%s': %s",
				      access(path, F_OK) == 0 ? "write to" : "create", path,
				      strerror(-rc));
	return 0;
}

static void step_push(struct ap_pm_script *s, enum ap_pm_cmd cmd, char *output,
		      const char *file, unsigned lineno)
{
	struct ap_pm_step *st;

	s->steps = ap_xreallocarray(s->steps, s->nsteps + 1, sizeof(*s->steps));
	st = &s->steps[s->nsteps++];
	memset(st, 0, sizeof(*st));
	st->cmd = cmd;
	st->output = output;
	ap_pm_config_copy(&st->cfg, &s->final);
	ap_xasprintf(&st->where, "%s:%u", file, lineno);
}

static int load_file(struct load *ld, const char *path, unsigned depth,
		     const char *from, unsigned from_line);

/* A command of @path:@lineno besides `set`: 0, LOAD_QUIT, LOAD_RUN or -errno. */
static int load_command(struct load *ld, struct ap_pm_line *pl, const char *path,
			unsigned lineno, unsigned depth)
{
	int rc;

	switch (pl->cmd) {
	case AP_PM_CMD_RUN:
	case AP_PM_CMD_SHOW:
		if (ld->settings)
			return pl->cmd == AP_PM_CMD_RUN ? LOAD_RUN : 0;
		if (pl->arg && (rc = check_output(ld->e, path, lineno, pl->arg)))
			return rc;
		step_push(ld->s, pl->cmd, pl->arg, path, lineno);
		pl->arg = NULL;
		return 0;
	case AP_PM_CMD_HELP:
		if (!ld->settings) {
			step_push(ld->s, pl->cmd, pl->arg, path, lineno);
			pl->arg = NULL;
		}
		return 0;
	case AP_PM_CMD_LOAD:
		rc = load_file(ld, pl->arg, depth + 1, path, lineno);
		return rc == LOAD_QUIT ? 0 : rc;	/* its quit ends only that file */
	case AP_PM_CMD_QUIT:
		return LOAD_QUIT;
	default:
		return 0;
	}
}

/* Returns LOAD_QUIT when a quit ended the file, LOAD_RUN (settings) at the
 * first run, 0 at its end, or -errno. */
static int load_file(struct load *ld, const char *path, unsigned depth,
		     const char *from, unsigned from_line)
{
	struct ap_error *e = ld->e;
	struct ap_pm_line pl;
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	ssize_t n;
	FILE *f;
	int rc = 0;

	if (depth > AP_PM_MAX_LOAD_DEPTH)
		return ap_pm_error_at(e, from, from_line, ELOOP,
				      "'load %s': files nested more than %d deep",
				      path, AP_PM_MAX_LOAD_DEPTH);
	if (!strcmp(path, "-"))
		f = stdin;
	else
		f = fopen(path, "re");
	if (!f) {
		if (from)
			return ap_pm_error_at(e, from, from_line, errno,
					      "cannot read configuration file '%s': %s",
					      path, strerror(errno));
		return ap_error_set(e, errno, "%s: %s", path, strerror(errno));
	}
	/* the sweep names it as given: its messages start with the name */
	if (!strcmp(path, "-") && !ld->settings)
		path = "<stdin>";

	while ((n = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (memchr(line, '\0', (size_t)n)) {
			rc = ap_pm_error_at(e, path, lineno, EINVAL,
					    "NUL byte in line (not a text file?)");
			break;
		}
		/* PostMark matches commands by prefix: this is `set location` */
		if (ld->settings && strncmp(line, "set location", 12) == 0) {
			ld->nlocations++;
			continue;
		}
		rc = ap_pm_config_line(&ld->s->final, line, path, lineno, &pl, e);
		if (rc)
			break;
		rc = load_command(ld, &pl, path, lineno, depth);
		free(pl.arg);
		if (rc)
			break;
	}
	if (rc == 0 && ferror(f)) {
		/* errno is getline's: EISDIR for a directory */
		rc = ap_error_set(e, errno ? errno : EIO, "%s: %s", path,
				  strerror(errno ? errno : EIO));
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return rc;
}

int ap_pm_script_load(struct ap_pm_script *s, const struct ap_pm_config *base,
		      const char *path, struct ap_error *e)
{
	struct load ld = { .s = s, .e = e };
	int rc;

	memset(s, 0, sizeof(*s));
	ap_pm_config_copy(&s->final, base);
	rc = load_file(&ld, path, 0, NULL, 0);
	if (rc > 0) {
		s->quit = true;
		rc = 0;
	}
	if (rc)
		ap_pm_script_free(s);
	return rc;
}

void ap_pm_script_free(struct ap_pm_script *s)
{
	size_t i;

	for (i = 0; i < s->nsteps; i++) {
		free(s->steps[i].output);
		free(s->steps[i].where);
		ap_pm_config_free(&s->steps[i].cfg);
	}
	free(s->steps);
	ap_pm_config_free(&s->final);
	memset(s, 0, sizeof(*s));
}

int ap_pm_config_load(struct ap_pm_config *cfg, const char *path, unsigned *nlocations,
		      struct ap_error *e)
{
	struct ap_pm_script s;
	struct load ld = { .s = &s, .settings = true, .e = e };
	int rc;

	memset(&s, 0, sizeof(s));
	ap_pm_config_copy(&s.final, cfg);
	rc = load_file(&ld, path, 0, NULL, 0);
	if (rc < 0) {
		ap_pm_script_free(&s);
		return rc;
	}
	ap_pm_config_free(cfg);
	ap_pm_config_copy(cfg, &s.final);
	ap_pm_script_free(&s);
	if (nlocations)
		*nlocations = ld.nlocations;
	return 0;
}
