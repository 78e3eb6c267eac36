// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Helpers shared by the subcommands' front ends: the one form of a message
 * ("alignprobe CMD: THING: reason"), the one mapping of an error to an exit
 * status, usage hints, the safety gate's steps (check, describe, confirm)
 * and the emulated drive of --emulate.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "device/cachectl.h"
#include "device/claims.h"
#include "device/safety.h"
#include "emu/emu.h"
#include "emu/model.h"
#include "lib/blkdev.h"
#include "lib/exitcodes.h"
#include "lib/outfile.h"
#include "lib/state.h"
#include "lib/util.h"
#include "ui/out.h"

void ap_print_version(void)
{
	printf("%s %s\n", AP_PROG, PACKAGE_VERSION);
}

/*
 * The one mapping. docs/alignprobe.8 (EXIT STATUS) and README.md list the
 * same table; tests/ts/output/manpage.sh compares the man page with the
 * lines below, so keep one { errno, status } per line.
 */
static const struct {
	int err;
	int status;
} exit_classes[] = {
	/* bad input: what was named cannot be used as given */
	{ ENOENT,	AP_EXIT_USAGE },	/* does not exist */
	{ ENOTDIR,	AP_EXIT_USAGE },	/* a path through a non-directory */
	{ ENAMETOOLONG,	AP_EXIT_USAGE },
	{ ELOOP,	AP_EXIT_USAGE },	/* symbolic links or 'load' nested too deep */
	{ EISDIR,	AP_EXIT_USAGE },	/* a directory where a file or device is needed */
	{ ENOTBLK,	AP_EXIT_USAGE },	/* not a block device (a file, a character device) */
	{ ENODEV,	AP_EXIT_USAGE },	/* no such device, or not an emulated drive */
	{ ENXIO,	AP_EXIT_USAGE },	/* a device node without a device */
	{ EACCES,	AP_EXIT_USAGE },	/* unreadable, or not writable */
	{ EEXIST,	AP_EXIT_USAGE },	/* an output that must not exist yet */
	{ ENOSPC,	AP_EXIT_USAGE },	/* too small */
	{ EFBIG,	AP_EXIT_USAGE },	/* too large */
	{ ENODATA,	AP_EXIT_USAGE },	/* empty, or without what is needed */
	{ EINVAL,	AP_EXIT_USAGE },	/* malformed */
	{ ERANGE,	AP_EXIT_USAGE },	/* a value out of range */
	{ EBADMSG,	AP_EXIT_USAGE },	/* corrupt */
	{ EPROTO,	AP_EXIT_USAGE },	/* a format newer than this program reads */
	/* refused for safety: nothing was written */
	{ EBUSY,	AP_EXIT_REFUSED },	/* in use: mounted, swap, held, opened exclusively */
	{ EPERM,	AP_EXIT_REFUSED },	/* not allowed without an option (--allow-...) */
	{ EROFS,	AP_EXIT_REFUSED },	/* read-only */
	{ ECANCELED,	AP_EXIT_REFUSED },	/* not confirmed */
	/* not built in */
	{ ENOTSUP,	AP_EXIT_NOTBUILT },
};

int ap_exit_for_errno(int err)
{
	size_t i;

	if (err < 0)
		err = -err;
	for (i = 0; i < AP_ARRAY_SIZE(exit_classes); i++)
		if (exit_classes[i].err == err)
			return exit_classes[i].status;
	return AP_EXIT_FAILURE;
}

int ap_exit_for_failure(int err)
{
	return err == ENOTSUP || err == -ENOTSUP ? AP_EXIT_NOTBUILT : AP_EXIT_FAILURE;
}

void ap_vwarnx(const char *cmd, const char *thing, const char *fmt, va_list ap)
{
	char reason[1024];
	size_t n = thing ? strlen(thing) : 0;

	vsnprintf(reason, sizeof(reason), fmt, ap);
	/* a module's message often names the thing already ("T: ...", "T:6: ..."): not twice */
	if (thing && strncmp(reason, thing, n) == 0 && reason[n] == ':')
		thing = NULL;
	/* stdout first, so that what was printed and the message stay in order */
	fflush(stdout);
	fprintf(stderr, "%s%s%s: %s%s%s\n", AP_PROG, cmd ? " " : "", cmd ? cmd : "",
		thing ? thing : "", thing ? ": " : "", reason);
}

void ap_warnx(const char *cmd, const char *thing, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ap_vwarnx(cmd, thing, fmt, ap);
	va_end(ap);
}

int ap_errx(const char *cmd, const char *thing, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ap_vwarnx(cmd, thing, fmt, ap);
	va_end(ap);
	return ap_exit_for_errno(err);
}

int ap_err_error(const char *cmd, const char *thing, const struct ap_error *e)
{
	ap_warnx(cmd, thing, "%s", e->msg[0] ? e->msg : strerror(e->code ? e->code : EIO));
	return ap_exit_for_errno(e->code);
}

int ap_cmd_close_stdout(const char *cmd, int status)
{
	int rc = ap_out_close_stdout();

	if (rc == 0)
		return status;
	ap_warnx(cmd, NULL, "write error on standard output: %s", strerror(-rc));
	return status == AP_EXIT_OK ? AP_EXIT_FAILURE : status;
}

static void say_twice(const char *cmd, const char *dev, const char *first, const char *what)
{
	if (strcmp(dev, first) == 0)
		ap_warnx(cmd, dev, "listed twice%s", what);
	else
		ap_warnx(cmd, dev, "listed twice (also as %s)%s", first, what);
}

int ap_check_listed_twice(const char *cmd, char *const *devs, size_t n)
{
	size_t *twin = ap_xcalloc(n ? n : 1, sizeof(*twin));
	size_t i;
	int rc = 0;

	ap_blkdev_twins(devs, n, twin);
	for (i = 0; i < n && !rc; i++) {
		if (twin[i] == i)
			continue;
		say_twice(cmd, devs[i], devs[twin[i]], "");
		rc = AP_EXIT_USAGE;
	}
	free(twin);
	return rc;
}

size_t ap_dedupe_devices(const char *cmd, char **devs, size_t n, bool quiet)
{
	size_t *twin = ap_xcalloc(n ? n : 1, sizeof(*twin));
	size_t i, k = 0;

	ap_blkdev_twins(devs, n, twin);
	for (i = 0; i < n; i++) {
		if (twin[i] == i)
			devs[k++] = devs[i];
		else if (!quiet)
			say_twice(cmd, devs[i], devs[twin[i]], ": checked once");
	}
	free(twin);
	return k;
}

void ap_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ap_vwarnx(cmd, NULL, fmt, ap);
	va_end(ap);
	ap_usage_hint(cmd);
}

void ap_usage_hint(const char *cmd)
{
	fprintf(stderr, "Try '%s%s%s --help' for more information.\n",
		AP_PROG, cmd ? " " : "", cmd ? cmd : "");
}

void ap_cmd_usage_wrap(FILE *f, size_t col, const char *text)
{
	size_t at = col, len;

	while (*text) {
		len = strcspn(text, " ");
		if (at > col && at + 1 + len > 79) {
			fprintf(f, "\n%*s", (int)col, "");
			at = col;
		} else if (at > col) {
			fputc(' ', f);
			at++;
		}
		fwrite(text, 1, len, f);
		at += len;
		text += len;
		text += strspn(text, " ");
	}
	fputc('\n', f);
}

int ap_cmd_open_output(const char *cmd, struct ap_outfile *of, const char *path)
{
	struct ap_error e = { 0 };

	if (ap_outfile_open(of, path, &e) == 0)
		return 0;
	ap_warnx(cmd, NULL, "%s", e.msg);
	return ap_exit_for_errno(e.code);	/* the table's: EROFS, EPERM, EBUSY are 3 */
}

int ap_cmd_check_output(const char *cmd, const char *path, bool must_not_exist)
{
	struct ap_error e = { 0 };

	if (ap_outfile_check(path, must_not_exist, &e) == 0)
		return 0;
	ap_warnx(cmd, NULL, "%s", e.msg);
	return ap_exit_for_errno(e.code);
}

int ap_cmd_check_dir(const char *cmd, const char *dir, const char *what)
{
	struct ap_error e = { 0 };

	if (ap_outfile_check_dir(dir, &e) == 0)
		return 0;
	ap_warnx(cmd, NULL, "%s (%s)", e.msg, what);
	return ap_exit_for_errno(e.code);
}

void ap_cmd_dry_run_outputs(const struct ap_cmd_output *o, size_t n)
{
	bool any = false;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!o[i].path)
			continue;
		printf("%s %s %s", any ? "," : "Output files (checked now, written after a real run):",
		       o[i].opt, o[i].path);
		any = true;
	}
	if (any)
		printf("\n");
}

int ap_cmd_refuse_held(const char *cmd, const char *dev)
{
	char *what = NULL;
	pid_t pid;

	if (!ap_state_live_hold_path(dev, &pid, &what))
		return 0;
	ap_warnx(cmd, dev, "in use by a running alignprobe %s (PID %d); wait until it ends",
		 what, (int)pid);
	free(what);
	return AP_EXIT_REFUSED;
}

int ap_cmd_gate(const char *cmd, const char *dev, const struct ap_safety_opts *so,
		struct ap_safety_target *t)
{
	struct ap_error e = { 0 };

	if (ap_safety_check(dev, so, t, &e) == 0) {
		/* a live run's disk from now until it exits: others' gates refuse it */
		if (so->dry_run || ap_safety_hold(t->dev, cmd, &e) == 0)
			return 0;
	}
	ap_safety_target_free(t);
	return ap_err_error(cmd, dev, &e);	/* no such device 2, in use 3 */
}

int ap_cmd_confirm(const char *cmd, const char *thing, const struct ap_safety_target *t,
		   const struct ap_safety_opts *so, const char *extra)
{
	FILE *f = so->dry_run ? stdout : stderr;
	struct ap_error e = { 0 };
	char *desc = ap_safety_describe(t);

	fputs(desc, f);
	free(desc);
	if (extra)
		fputs(extra, f);
	if (ap_safety_confirm(t, so, &e) != 0) {
		ap_warnx(cmd, thing, "%s", e.msg);
		return AP_EXIT_REFUSED;
	}
	return 0;
}

int ap_cmd_emu_spec(const char *cmd, const char *base, const char *spec, bool hint,
		    struct ap_emu_spec *s)
{
	struct ap_error e = { 0 };

	/* a drive profile of the user's replaces the default entirely */
	if (spec && ap_emu_spec_names_profile(spec))
		base = NULL;
	if (base && ap_emu_spec_parse(base, s, &e) != 0) {
		/* a default of our own that does not parse */
		ap_warnx(cmd, NULL, "--emulate: %s", e.msg);
		ap_emu_spec_free(s);
		return AP_EXIT_FAILURE;
	}
	if (spec && ap_emu_spec_parse(spec, s, &e) != 0) {
		ap_emu_spec_free(s);
		if (hint)
			ap_usage_error(cmd, "--emulate: %s", e.msg);
		else
			ap_warnx(cmd, NULL, "--emulate: %s", e.msg);
		return AP_EXIT_USAGE;
	}
	if (ap_emu_spec_check(s, &e) != 0) {
		ap_emu_spec_free(s);
		return ap_err_error(cmd, "--emulate", &e);	/* image=FILE missing: 2 */
	}
	return 0;
}

int ap_cmd_emu_attach(const char *cmd, const struct ap_emu_spec *s, struct ap_emu **emu)
{
	struct ap_error e = { 0 };
	int rc = ap_emu_attach(s, emu, &e);

	if (rc == 0)
		return 0;
	ap_warnx(cmd, NULL, "cannot set up the emulated drive: %s", e.msg);
	return ap_exit_for_failure(rc);
}

/* The emulated drive's write cache model, for device/cachectl.c. */
const struct ap_cache_model ap_cmd_emu_cache = {
	.is_model = ap_emu_is_emulated,
	.get = ap_emu_write_cache,
	.set = ap_emu_set_write_cache,
};

void ap_cmd_print_claims(const struct ap_claims *cl, const struct ap_levels *ls, bool all,
			 const char *indent)
{
	char *msgs[AP_CLAIMS_MAX];
	size_t i, n;

	for (i = 0; all && i < cl->n; i++)
		printf("%s%s%s %llu (%s)%s", i ? "" : indent, i ? ", " : "Claims: ", cl->c[i].name,
		       (unsigned long long)cl->c[i].bytes, cl->c[i].source, i + 1 == cl->n ? "\n" : "");
	n = ap_claims_contradicted(cl, ls, msgs, AP_CLAIMS_MAX);
	for (i = 0; i < n; i++) {
		printf("%sContradicted: %s (what the device claims, against the verdict)\n", indent,
		       msgs[i]);
		free(msgs[i]);
	}
}
