/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What `alignprobe postmark` runs besides one configuration: settings
 * pinned by options (re-applied on top of every configuration, over what
 * the files `set`), and the CONFIG files given, read and checked
 * completely before any of them runs. Returns 0 or -errno with @e.
 */
#ifndef AP_PM_PINS_H
#define AP_PM_PINS_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/util.h"
#include "workload/pm.h"

struct ap_pm_pins {
	char **lines;			/* PostMark "set ..." lines */
	size_t nlines;
	struct ap_pm_location *locs;	/* --location, replacing the files' */
	size_t nlocs;
};

/* Pin "@cmd @arg": @cmd a PostMark command ("set seed"), @arg its value. */
void ap_pm_pin(struct ap_pm_pins *p, const char *cmd, const char *arg);
/* --size LO[:HI]: "set size LO HI". */
void ap_pm_pin_size(struct ap_pm_pins *p, const char *arg);
/* --buffering yes|no (true|false): -EINVAL for anything else. */
int ap_pm_pin_buffering(struct ap_pm_pins *p, const char *arg, struct ap_error *e);
/* --location DIR[=W]: W when the part before the last '=' is a directory. */
int ap_pm_pin_location(struct ap_pm_pins *p, const char *arg, struct ap_error *e);
/* The pins on top of @cfg; @cfg may be changed in part on error. */
int ap_pm_pins_apply(const struct ap_pm_pins *p, struct ap_pm_config *cfg, struct ap_error *e);
void ap_pm_pins_free(struct ap_pm_pins *p);

/* Does @s hold a `run`? */
bool ap_pm_script_has_run(const struct ap_pm_script *s);
/*
 * The pins applied to every step of @s and its final settings, every run
 * (and, @implicit_run, the final settings) validated. On error *@where is
 * the step's "file:line", or NULL for the final settings.
 */
int ap_pm_script_check(struct ap_pm_script *s, const struct ap_pm_pins *pins, bool implicit_run,
		       const char **where, struct ap_error *e);

/* The CONFIG files of one command line. */
struct ap_pm_scripts {
	struct ap_pm_script *s;
	size_t n;		/* read */
	size_t nrun;		/* executed: up to the first file's top-level quit */
	bool quit;		/* a file said quit */
	bool implicit;		/* no run, no quit, no -i: one run at the end of the last */
};

/*
 * Read every file of @paths, those after a `quit` too (the quit ends the
 * execution, not the checking), each starting from the previous one's
 * settings (@base: the first's, left at the last's). On error *@failed
 * is the file. @interactive: commands follow on stdin (no implicit run).
 */
int ap_pm_scripts_load(struct ap_pm_scripts *ss, struct ap_pm_config *base, char *const *paths,
		       size_t n, bool interactive, const char **failed, struct ap_error *e);
/* Does the @k-th file get the implicit run at its end? */
bool ap_pm_scripts_implicit(const struct ap_pm_scripts *ss, size_t k);
void ap_pm_scripts_free(struct ap_pm_scripts *ss);

#endif
