// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The template of a command (HACKING.md, "A command"), as the kernel's
 * Documentation boilerplate: copy it to src/cmd/<name>.c, replace
 * "template" by the command's name, keep what it needs. `make check`
 * builds it (tests/helpers/command_template) and tests/ts/layout/recipes.sh
 * runs it, so it stays a command that works.
 *
 * alignprobe template [options] <device>...: a line per block device with
 * its size and its logical and physical sector sizes, as the kernel says.
 *
 * What a command does, in this order: its options through the option kit
 * (cmd/opts.h), every operand checked before anything runs, then the
 * engine (here lib/blkdev.h; a real command's engine is a layer of its
 * own below cmd/, which decides and never prints), then what it returned
 * printed through the column table, errors as "alignprobe CMD: THING:
 * reason" with the exit status of src/lib/exitcodes.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/opts.h"
#include "lib/blkdev.h"
#include "lib/exitcodes.h"
#include "lib/util.h"
#include "ui/out.h"

#define CMD "template"

/* The columns: names and JSON keys are API (add, never rename). */
enum {
	COL_DEVICE,
	COL_SIZE,
	COL_LOGICAL,
	COL_PHYSICAL,
};

static const struct ap_colinfo infos[] = {
	[COL_DEVICE] = { "DEVICE", 0.2, 0, AP_COL_STRING, "the device as given" },
	[COL_SIZE] = { "SIZE", 0.1, SCOLS_FL_RIGHT, AP_COL_SIZE, "its size" },
	[COL_LOGICAL] = { "LOGICAL", 0.1, SCOLS_FL_RIGHT, AP_COL_NUMBER,
			  "logical sector size, bytes" },
	[COL_PHYSICAL] = { "PHYSICAL", 0.1, SCOLS_FL_RIGHT, AP_COL_NUMBER,
			   "physical sector size the kernel reports, bytes" },
};

static const int default_cols[] = { COL_DEVICE, COL_SIZE, COL_LOGICAL, COL_PHYSICAL };

static const struct ap_opts_cols template_cols = {
	infos, AP_ARRAY_SIZE(infos), default_cols, AP_ARRAY_SIZE(default_cols)
};

/* The command's own long-only options, numbered after the output options'. */
enum {
	OPT_ALL = AP_OPT_OUT_LAST,
};

/* The command's state: struct <name>_cmd. */
struct template_cmd {
	bool quiet;
	bool all;		/* --all */
	struct ap_out out;
	int cols[AP_ARRAY_SIZE(infos) * 2];
	size_t ncols;
};

/* what --help prints after "Usage:" (the option kit); placeholders <arg> */
static const char *const synopsis[] = {
	"[options] <device>...",
	NULL
};

static void usage(void)
{
	FILE *f = stdout;

	fputs("Print each device's size and its logical and physical sector sizes as the\n"
	      "kernel reports them. Read-only.\n\n", f);
	fputs("Options:\n"
	      "     --all              also the devices that cannot be read (as errors)\n"
	      " -q, --quiet            print nothing but errors\n", f);
	ap_out_usage(f, 24);
	fputs(" -h, --help             display this help\n"
	      " -V, --version          display version\n", f);
	fputs("\nAvailable output columns:\n", f);
	ap_out_list_columns(NULL, infos, AP_ARRAY_SIZE(infos));
	fputs("\nExit status: 0 success, 1 failure, 2 usage.\n", f);
	printf("\nFor more details see alignprobe(8).\n");
}

/* One of the command's own options: 0, or AP_EXIT_USAGE after the message. */
static int template_opt(void *ctx, int ch, const char *arg)
{
	struct template_cmd *c = ctx;

	(void)arg;
	if (ch == OPT_ALL)
		c->all = true;
	return 0;
}

/* Options and operands: 0 to go on, an exit code after the message, -1 when done (-H). */
static int parse_args(struct template_cmd *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, OPT_ALL },
		{ NULL, 0, NULL, 0 }
	};
	const struct ap_opt common[] = {
		AP_OPT_QUIET(&c->quiet), AP_OPT_HELP(usage), AP_OPT_VERSION,
		AP_OPT_OUTPUT(&c->out), AP_OPT_END
	};
	const struct ap_opts p = {
		.cmd = CMD, .synopsis = synopsis, .common = common, .longopts = longopts,
		.own = template_opt, .ctx = c,
	};
	int rc = ap_opts_parse(&p, argc, argv);

	if (!rc)
		rc = ap_opts_out_check(CMD, &c->out);
	if (!rc)
		rc = ap_opts_list_columns(&c->out, &template_cols);
	if (!rc)
		rc = ap_opts_columns(CMD, &c->out, &template_cols, c->cols, &c->ncols);
	if (!rc && optind >= argc) {
		ap_usage_error(CMD, "no <device> given");
		rc = AP_EXIT_USAGE;
	}
	return rc;
}

/* One device's row: 0, or the exit status after its message. */
static int add_device(struct template_cmd *c, const struct ap_cols *cs,
		      struct libscols_table *tb, const char *dev)
{
	uint64_t size = 0;
	unsigned logical = 0, physical = 0;
	struct ap_row r;
	int fd = open(dev, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return ap_errx(CMD, dev, errno, "%s", strerror(errno));
	rc = ap_blkdev_get_sizes(fd, &size, &logical, &physical);
	close(fd);
	if (rc)
		return ap_errx(CMD, dev, -rc, "not a block device: %s", strerror(-rc));
	ap_row_init(&r, cs);
	ap_row_str(&r, COL_DEVICE, dev);
	ap_row_u64(&r, COL_SIZE, size);
	ap_row_u64(&r, COL_LOGICAL, logical);
	ap_row_u64(&r, COL_PHYSICAL, physical);
	rc = ap_row_add_line(&r, tb);
	ap_row_free(&r);
	(void)c;
	return rc ? AP_EXIT_FAILURE : 0;
}

/* As src/cmd/<name>.c, its X(name, summary) line in cmd/commands.h declares this. */
int ap_cmd_template(int argc, char **argv);

int ap_cmd_template(int argc, char **argv)
{
	struct template_cmd c = { 0 };
	struct libscols_table *tb;
	struct ap_cols cs;
	int rc, worst = AP_EXIT_OK;

	rc = parse_args(&c, argc, argv);
	if (rc)
		return rc < 0 ? AP_EXIT_OK : rc;
	ap_cols_init(&cs, &c.out, infos, AP_ARRAY_SIZE(infos), c.cols, c.ncols, NULL, 0);
	tb = ap_cols_table_new(&cs, "devices");
	for (; optind < argc; optind++) {
		rc = add_device(&c, &cs, tb, argv[optind]);
		if (rc && !c.all) {
			scols_unref_table(tb);
			return rc;
		}
		if (rc > worst)
			worst = rc;
	}
	if (!c.quiet && ap_out_print(&c.out, tb) != 0)
		worst = AP_EXIT_FAILURE;
	scols_unref_table(tb);
	return ap_cmd_close_stdout(CMD, worst);
}
