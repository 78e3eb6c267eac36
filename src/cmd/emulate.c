// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * alignprobe emulate: an emulated Advanced Format drive that lies about its
 * physical sector size (see src/emu/emu.h).
 *
 *	alignprobe emulate --attach [--profile NAME] [--size 1G] [--phys 4096] [--lowest-aligned 0]
 *			   [--rmw-cost 8ms] [--base-cost 0] [--jitter 0] [--seed 1]
 *			   [--write-cache] [--fail-lba LBA --fail-count N]
 *			   [--fail-after N] [--fail-reads|--fail-writes]
 *			   [--image FILE] [--spec SPEC] [--wait]
 *	alignprobe emulate --detach DEV
 *	alignprobe emulate --stats DEV [output options]
 *	alignprobe emulate --reset-stats DEV
 *	alignprobe emulate --power-cut DEV | --power-on DEV
 *	alignprobe emulate --power-cut-after N DEV
 *	alignprobe emulate --host-busy TIME DEV
 */
#include <errno.h>
#include <stddef.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cmd/commands.h"
#include "cmd/opts.h"
#include "emu/emu.h"
#include "emu/model.h"
#include "lib/exitcodes.h"
#include "lib/sig.h"
#include "lib/util.h"
#include "ui/out.h"

#define CMD "emulate"

/*
 * The columns: the drive's counters come from their lists in emu/emu.h
 * (COL_<COLUMN>, one line each there), the others are --stats' own.
 */
#define COUNTER_COL(field, col, type, help) COL_##col,
enum {
	COL_DEVICE,
	AP_EMU_COUNTERS_REQUESTS(COUNTER_COL)
	COL_SIZE,
	COL_PHYS,
	COL_LBA,
	COL_SPEC,
	AP_EMU_COUNTERS_QUIRKS(COUNTER_COL)
	COL_POWER,
	AP_EMU_COUNTERS_POWER(COUNTER_COL)
};
#undef COUNTER_COL

#define COUNTER_INFO(field, col, type, help) \
	[COL_##col] = { #col, 0.05, SCOLS_FL_RIGHT, AP_COL_##type, help },
static const struct ap_colinfo infos[] = {
	[COL_DEVICE] = { "DEVICE", 0.1, 0, AP_COL_STRING, "the emulated drive's loop device" },
	[COL_SIZE] = { "SIZE", 0.05, SCOLS_FL_RIGHT, AP_COL_SIZE, "capacity" },
	[COL_PHYS] = { "PHYS", 0.05, SCOLS_FL_RIGHT, AP_COL_NUMBER, "hidden physical sector size" },
	[COL_LBA] = { "LOWEST_ALIGNED", 0.05, SCOLS_FL_RIGHT, AP_COL_NUMBER, "lowest aligned LBA" },
	[COL_SPEC] = { "SPEC", 0.3, 0, AP_COL_STRING, "all parameters, as a --emulate spec" },
	[COL_POWER] = { "POWER", 0.05, 0, AP_COL_STRING, "on, or off after a power cut" },
	AP_EMU_COUNTERS(COUNTER_INFO)
};
#undef COUNTER_INFO

static const int default_cols[] = {
	COL_DEVICE, COL_READS, COL_WRITES, COL_ALIGNED, COL_RMW_WRITES, COL_RMW, COL_FLUSHES,
	COL_ERRORS, COL_BUSY_NS,
};

static const struct ap_opts_cols emulate_cols = {
	infos, AP_ARRAY_SIZE(infos), default_cols, AP_ARRAY_SIZE(default_cols)
};

enum {
	OPT_ATTACH = AP_OPT_OUT_LAST,
	OPT_DETACH,
	OPT_STATS,
	OPT_RESET_STATS,
	OPT_POWER_CUT,
	OPT_POWER_ON,
	OPT_POWER_CUT_AFTER,
	OPT_HOST_BUSY,
	OPT_SPEC,
	OPT_FAIL_READS,
	OPT_FAIL_WRITES,
	OPT_WAIT,
	OPT_SPECKEY,		/* spec parameters: OPT_SPECKEY + i, ap_emu_spec_option(i) */
};


/* what --help prints after "Usage:" (the option kit) */
static const char *const synopsis[] = {
	"--attach [options]",
	"--detach <device>",
	"--stats <device> [output options]",
	"--reset-stats <device>",
	"--power-cut <device> | --power-on <device>",
	"--power-cut-after <n> <device>",
	"--host-busy <time> <device>",
	NULL
};

/* --profile: the names of the profile table (emu/params.c). */
static void usage_profiles(void)
{
	char *text;

	ap_xasprintf(&text, "a drive profile, given first: the options after it override it: %s "
		     "[simple]", ap_emu_profile_names());
	fputs("     --profile <name>         ", stdout);
	ap_cmd_usage_wrap(stdout, 30, text);
	free(text);
}

static void usage(void)
{
	printf("An emulated Advanced Format drive: a loop device that reports 512-byte\n"
	       "logical and physical sectors, served through FUSE by a process that charges\n"
	       "a read-modify-write for every write covering a hidden physical sector only\n"
	       "partly. --attach prints the loop device once it is usable.\n"
	       "\nAttach options (defaults in brackets):\n");
	usage_profiles();
	printf("     --size <size>            capacity [1G]\n"
	       "     --logical <bytes>        logical sector the device reports, 512..4096 [512]\n"
	       "     --drive-model <name>     the model the drive states, for the verdict store\n"
	       "                              [EMU-<PROFILE>, vendor ALIGNPROBE]\n"
	       "     --phys <bytes>           hidden physical sector, 512..64K [4096]\n"
	       "     --lowest-aligned <lba>   first aligned LBA, 0..phys/512-1 [0] (alias --lba)\n"
	       "     --rmw-cost <time>        cost of a partial-sector write [8ms]\n"
	       "     --base-cost <time>       cost of every request [0]\n"
	       "     --jitter <fraction>      costs vary by +-fraction, e.g. 30%% [0]\n"
	       "     --seed <n>               jitter generator seed [1]\n"
	       "     --write-cache[=on|off]   volatile write cache [off]: writes cost the base\n"
	       "                              cost, the next flush pays their RMWs; off, the\n"
	       "                              device says \"write through\" and gets no flushes\n"
	       "     --flush-cost <time>      cost of draining the cache, per flush [0];\n"
	       "                              rev+seek: a revolution and a seek, cache\n"
	       "                              or not (the kernel then sends flushes)\n"
	       "     --fail-lba <lba>         fail requests touching this LBA with EIO\n"
	       "     --fail-count <n>         ... and the n-1 sectors after it [1]\n"
	       "     --fail-after <n>         fail once n requests were served since the\n"
	       "                              last reset (with --fail-lba: in that range only)\n"
	       "     --fail-reads, --fail-writes  fail only these [both]\n"
	       "     --image <file>           start from a copy of this image (sparse; the file\n"
	       "                              is never modified); its size unless --size\n"
	       "     --wait                   stay in the foreground; detach on SIGINT/SIGTERM\n"
	       "                              (the drive also goes when this process is killed)\n"
	       "     --spec <spec>            the same as a string: size=1G,phys=4096,lba=0,\n"
	       "                              rmw=8ms,base=0,jitter=0,seed=1,cache=off,flush=0,\n"
	       "                              fail=LBA+COUNT,fail-rw=r|w|rw,fail-after=N,image=FILE;\n"
	       "                              a profile name (hdd-7200,size=2G) or profile=NAME,\n"
	       "                              and the hdd model's model=hdd,rpm=,disk=,track=,\n"
	       "                              settle=,seek=,knee=,cache-size=,bus=; what real\n"
	       "                              drives add: ra=,ra-segments=,rmw-buffer=,\n"
	       "                              ignore-flush=on (flush=ignore), cut-after=N,\n"
	       "                              cut-peer=DEV; layered volumes: raid=5|6,\n"
	       "                              members=,chunk=,raid-cache=, thin=,thin-sub=on,\n"
	       "                              thin-alloc=,thin-copy=,thin-pool=; what the\n"
	       "                              device claims: min-io=,opt-io=; a persistent\n"
	       "                              media cache (SMR, hybrid): pcache=,pcache-cost=,\n"
	       "                              pcache-rate=,band=,clean-idle=; trim=off (see\n"
	       "                              the manual)\n"
	       "\nOther actions:\n"
	       " -d, --detach <device>        stop the drive, remove everything it used\n"
	       "     --stats <device>         print the drive's counters\n"
	       "     --reset-stats <device>   count from zero again\n"
	       "     --power-cut <device>     cut the drive's power: the volatile cache's\n"
	       "                              writes are lost, a write in flight is torn, and\n"
	       "                              every request fails with EIO until --power-on\n"
	       "     --power-on <device>      restore the power\n"
	       "     --power-cut-after <n> <device>\n"
	       "                              cut the power when the write after n more\n"
	       "                              writes arrives (that write in flight)\n"
	       "     --host-busy <time> <device>\n"
	       "                              make every request wait <time> more from now on\n"
	       "                              (0: no more), as a host busy with other work\n"
	       "                              does (the drive's counters do not count it)\n"
	       "\nOutput options (--stats):\n");
	ap_out_usage(stdout, 30);
	printf(" -h, --help                   display this help\n"
	       " -V, --version                display version\n"
	       "\nAvailable output columns:\n");
	for (size_t i = 0; i < AP_ARRAY_SIZE(infos); i++)
		printf(" %15s  %s\n", infos[i].name, infos[i].help);
}

/*
 * @dev is no emulated drive: bad input (2), as a device that does not
 * exist, which is said as such.
 */
static int not_emulated(const char *dev)
{
	struct stat st;

	if (stat(dev, &st) != 0)
		return ap_errx(CMD, dev, errno, "%s", strerror(errno));
	return ap_errx(CMD, dev, ENODEV, "not an emulated drive");
}

static int print_stats(const struct ap_out *o, const char *dev)
{
	int cols[AP_ARRAY_SIZE(infos) * 2];
	size_t ncols;
	struct ap_emu_counters c;
	struct ap_emu_spec s;
	struct libscols_table *tb;
	struct ap_cols cs;
	struct ap_row r;
	char *spec;
	int rc;

	if (ap_opts_columns(CMD, o, &emulate_cols, cols, &ncols) != 0)
		return AP_EXIT_USAGE;
	rc = ap_emu_counters_read(dev, &c);
	if (rc == 0)
		rc = ap_emu_spec_of(dev, &s);
	if (rc)
		return rc == -ENODEV ? not_emulated(dev) : ap_errx(CMD, dev, rc, "%s", strerror(-rc));
	ap_cols_init(&cs, o, infos, AP_ARRAY_SIZE(infos), cols, ncols, NULL, 0);
	tb = ap_cols_table_new(&cs, "emulators");
	spec = ap_emu_spec_format(&s);
	ap_row_init(&r, &cs);
	ap_row_str(&r, COL_DEVICE, dev);
#define COUNTER_ROW(field, col, type, help) ap_row_u64(&r, COL_##col, c.field);
	AP_EMU_COUNTERS(COUNTER_ROW)
#undef COUNTER_ROW
	ap_row_u64(&r, COL_SIZE, s.capacity);
	ap_row_u64(&r, COL_PHYS, s.phys_sector);
	ap_row_u64(&r, COL_LBA, s.lowest_aligned);
	ap_row_str(&r, COL_SPEC, spec);
	ap_row_str(&r, COL_POWER, c.powered ? "on" : "off");
	rc = ap_row_add_line(&r, tb);
	ap_row_free(&r);
	if (rc) {
		scols_unref_table(tb);
		free(spec);
		ap_emu_spec_free(&s);
		return AP_EXIT_FAILURE;
	}
	rc = ap_out_print(o, tb);
	scols_unref_table(tb);
	free(spec);
	ap_emu_spec_free(&s);
	return rc ? AP_EXIT_FAILURE : AP_EXIT_OK;
}

struct emulate_cmd {
	int action;			/* OPT_ATTACH, 'd', OPT_STATS, OPT_RESET_STATS, OPT_POWER_* */
	const char *dev;
	struct ap_emu_spec spec;	/* --attach: the drive */
	int nspec;			/* drive parameters given */
	int fail_rw;			/* --fail-reads 1, --fail-writes 2 */
	bool wait;
	uint64_t cut_n;			/* --power-cut-after */
	uint64_t busy_ns;		/* --host-busy */
	struct ap_out out;
};

/*
 * The actions and their switches. An action's DEVICE is an argument of its
 * own, found wherever it stands (getopt permutes): "--stats -J DEV" must
 * not take -J for it. --stats=DEV still works.
 */
static const struct option action_longopts[] = {
	{ "attach",       no_argument,       NULL, OPT_ATTACH },
	{ "detach",       optional_argument, NULL, 'd' },
	{ "stats",        optional_argument, NULL, OPT_STATS },
	{ "reset-stats",  optional_argument, NULL, OPT_RESET_STATS },
	{ "power-cut",    optional_argument, NULL, OPT_POWER_CUT },
	{ "power-on",     optional_argument, NULL, OPT_POWER_ON },
	{ "power-cut-after", required_argument, NULL, OPT_POWER_CUT_AFTER },
	{ "host-busy",    required_argument, NULL, OPT_HOST_BUSY },
	{ "spec",         required_argument, NULL, OPT_SPEC },
	{ "fail-reads",   no_argument,       NULL, OPT_FAIL_READS },
	{ "fail-writes",  no_argument,       NULL, OPT_FAIL_WRITES },
	{ "wait",         no_argument,       NULL, OPT_WAIT },
	{ NULL, 0, NULL, 0 }
};

/*
 * The actions' options, then one per drive parameter: the spec keys the
 * key table marks as options (ap_emu_spec_option()). Free it.
 */
static struct option *make_longopts(void)
{
	size_t n = AP_ARRAY_SIZE(action_longopts) - 1, k = 0, i;
	struct option *all;
	const char *key;

	while (ap_emu_spec_option(k))
		k++;
	all = ap_xcalloc(n + k + 1, sizeof(*all));
	memcpy(all, action_longopts, n * sizeof(*all));
	for (i = 0; (key = ap_emu_spec_option(i)); i++)
		all[n + i] = (struct option){
			key, strcmp(key, "write-cache") ? required_argument : optional_argument, NULL,
			OPT_SPECKEY + (int)i };
	return all;
}

/* A drive parameter (--size, --phys, ...): a key of the spec. */
static int spec_key_opt(struct emulate_cmd *c, int ch, const char *arg)
{
	const char *key = ap_emu_spec_option((size_t)(ch - OPT_SPECKEY));
	struct ap_error e = { 0 };
	size_t klen = strlen(key);

	c->nspec++;
	if (ap_emu_spec_set(&c->spec, key, arg, &e) == 0)
		return 0;
	/* "KEY 'VALUE': reason" from most keys; name the option for the rest */
	if (strncmp(e.msg, key, klen) == 0 && e.msg[klen] == ' ')
		ap_usage_error(CMD, "--%s", e.msg);
	else
		ap_usage_error(CMD, "--%s: %s", key, e.msg);
	return AP_EXIT_USAGE;
}

/* An action with a value, --power-cut-after N or --host-busy TIME: alone. */
static int value_action(struct emulate_cmd *c, int ch, const char *arg)
{
	bool busy = ch == OPT_HOST_BUSY;
	const char *name = busy ? "--host-busy" : "--power-cut-after";
	bool bad;

	if (c->action && c->action != ch) {
		ap_usage_error(CMD, "%s goes with no other action", name);
		return AP_EXIT_USAGE;
	}
	if (busy) {
		c->busy_ns = 0;
		bad = (strcmp(arg, "0") != 0 && ap_parse_duration_ns(arg, &c->busy_ns) != 0) ||
		      c->busy_ns > AP_NSEC_PER_SEC;
	} else {
		bad = ap_parse_u64(arg, &c->cut_n) != 0;
	}
	if (bad) {
		ap_usage_error(CMD, "%s '%s': %s", name, arg, busy ?
			       "not a time from 0 to 1s (a number with ns, us, ms or s)" :
			       "not a number of writes");
		return AP_EXIT_USAGE;
	}
	c->action = ch;
	return 0;
}

/* The action (--attach, --detach, ...): one, with its device if given. */
static int action_opt(struct emulate_cmd *c, int ch, const char *arg)
{
	if (ch == OPT_POWER_CUT_AFTER || ch == OPT_HOST_BUSY)
		return value_action(c, ch, arg);
	if (c->action && c->action != ch) {
		ap_usage_error(CMD, "--attach, --detach, --stats, --reset-stats, --power-cut and --power-on are mutually exclusive");
		return AP_EXIT_USAGE;
	}
	c->action = ch;
	c->dev = arg;
	return 0;
}

/* One of emulate's own options: 0, or AP_EXIT_USAGE after the message. */
static int emulate_opt(void *ctx, int ch, const char *arg)
{
	struct emulate_cmd *c = ctx;
	struct ap_error e = { 0 };

	if (ch >= OPT_SPECKEY && ap_emu_spec_option((size_t)(ch - OPT_SPECKEY)))
		return spec_key_opt(c, ch, arg);
	switch (ch) {
	case OPT_SPEC:
		c->nspec++;
		if (ap_emu_spec_parse(arg, &c->spec, &e) != 0) {
			ap_usage_error(CMD, "--spec: %s", e.msg);
			return AP_EXIT_USAGE;
		}
		break;
	case OPT_WAIT:
		c->nspec++;
		c->wait = true;
		break;
	case OPT_FAIL_READS:
		c->nspec++;
		c->fail_rw |= 1;
		break;
	case OPT_FAIL_WRITES:
		c->nspec++;
		c->fail_rw |= 2;
		break;
	default:
		return action_opt(c, ch, arg);
	}
	return 0;
}

/* The device operand and what the action needs: 0, -1 (-H) or AP_EXIT_USAGE. */
static int check_action(struct emulate_cmd *c, int argc, char **argv)
{
	if (c->action && c->action != OPT_ATTACH && !c->dev && optind < argc)
		c->dev = argv[optind++];
	if (c->dev && !*c->dev) {
		ap_usage_error(CMD, "an empty device name");
		return AP_EXIT_USAGE;
	}
	if (optind < argc) {
		ap_usage_error(CMD, "unexpected argument '%s'", argv[optind]);
		return AP_EXIT_USAGE;
	}
	if (ap_opts_list_columns(&c->out, &emulate_cols))
		return -1;
	if (!c->action) {
		ap_usage_error(CMD, "one of --attach, --detach, --stats, --reset-stats, --power-cut or --power-on is needed");
		return AP_EXIT_USAGE;
	}
	if (c->action != OPT_ATTACH && c->nspec) {
		ap_usage_error(CMD, "drive parameters are only accepted with --attach");
		return AP_EXIT_USAGE;
	}
	if (c->action != OPT_ATTACH && !c->dev) {
		ap_usage_error(CMD, "no device given");
		return AP_EXIT_USAGE;
	}
	return 0;
}

/*
 * 0 to go on; AP_EXIT_USAGE after the message; -1 when the help, the
 * version or the columns were printed.
 */
static int parse_args(struct emulate_cmd *c, int argc, char **argv)
{
	const struct ap_opt common[] = {
		AP_OPT_OUTPUT(&c->out), AP_OPT_HELP(usage), AP_OPT_VERSION, AP_OPT_END
	};
	struct option *longopts = make_longopts();
	const struct ap_opts p = {
		.cmd = CMD, .synopsis = synopsis, .common = common, .longopts = longopts,
		.shortopts = "d::",
		.own = emulate_opt, .ctx = c,
	};
	int rc;

	rc = ap_opts_parse(&p, argc, argv);
	free(longopts);
	if (!rc)
		rc = check_action(c, argc, argv);
	if (!rc)
		rc = ap_opts_out_check(CMD, &c->out);
	return rc;
}

/* --attach: print the loop device once the drive is usable. An exit code. */
static int do_attach(struct emulate_cmd *c)
{
	struct ap_error e = { 0 };
	struct ap_emu *emu;
	char devname[64];

	if (c->fail_rw)
		c->spec.fail_reads = c->fail_rw & 1, c->spec.fail_writes = (c->fail_rw & 2) != 0;
	if (ap_emu_spec_validate(&c->spec, &e) != 0) {
		ap_usage_error(CMD, "%s", e.msg);
		return AP_EXIT_USAGE;
	}
	if (ap_emu_spec_check(&c->spec, &e) != 0)
		return ap_err_error(CMD, NULL, &e);	/* --image missing: 2 */
	if (ap_emu_attach(&c->spec, &emu, &e) != 0) {
		ap_warnx(CMD, NULL, "cannot attach the emulated drive: %s", e.msg);
		return ap_exit_for_failure(e.code);
	}
	if (c->wait) {
		/* a session: the drive lives as long as this process */
		printf("%s\n", ap_emu_device(emu));
		if (ap_out_flush(stdout) != 0)
			ap_warnx(CMD, NULL, "write error on standard output");
		ap_sig_install();
		while (!ap_sig_pending())
			pause();
		if (ap_emu_detach(emu, &e) != 0) {
			ap_warnx(CMD, ap_emu_device(emu), "%s", e.msg);
			ap_emu_forget(emu, &e);
			return AP_EXIT_FAILURE;
		}
		return AP_EXIT_OK;
	}
	/*
	 * The server runs on: this process lets go of the drive
	 * without detaching it (the server owns its registry entry).
	 */
	snprintf(devname, sizeof(devname), "%s", ap_emu_device(emu));
	if (ap_emu_forget(emu, &e) != 0) {
		ap_warnx(CMD, NULL, "cannot hand the emulated drive over: %s", e.msg);
		return AP_EXIT_FAILURE;
	}
	printf("%s\n", devname);
	return ap_cmd_close_stdout(CMD, AP_EXIT_OK);
}

/* --detach DEV: an exit code. */
static int do_detach(const char *dev)
{
	struct ap_error e = { 0 };

	if (ap_emu_detach_device(dev, &e) == 0)
		return AP_EXIT_OK;
	/* not ours (2), in use or another state directory's (3), or failed (1) */
	if (e.code == ENODEV)
		return not_emulated(dev);
	if (e.code == EBUSY || e.code == EPERM)
		return ap_err_error(CMD, dev, &e);
	ap_warnx(CMD, dev, "%s", e.msg);
	return AP_EXIT_FAILURE;
}

/* --power-cut DEV, --power-on DEV: an exit code. */
static int do_power(const char *dev, bool on)
{
	struct ap_error e = { 0 };

	if (ap_emu_power(dev, on, &e) == 0)
		return AP_EXIT_OK;
	if (e.code == ENODEV)
		return not_emulated(dev);
	ap_warnx(CMD, dev, "%s", e.msg);
	return AP_EXIT_FAILURE;
}

int ap_cmd_emulate(int argc, char **argv)
{
	struct emulate_cmd c = { 0 };
	int rc;

#ifndef HAVE_EMULATOR
	/* even --help: scripts probe `emulate --help` to learn whether it is built */
	(void)argc;
	(void)argv;
	ap_warnx(CMD, NULL, "the emulated drive is not built in this version "
		 "(configured with --disable-emulator)");
	return AP_EXIT_NOTBUILT;
#endif
	ap_emu_spec_init(&c.spec);
	rc = parse_args(&c, argc, argv);
	if (rc == 0) {
		switch (c.action) {
		case OPT_ATTACH:
			rc = do_attach(&c);
			break;
		case 'd':
			rc = do_detach(c.dev);
			break;
		case OPT_STATS:
			rc = print_stats(&c.out, c.dev);
			break;
		case OPT_POWER_CUT:
		case OPT_POWER_ON:
			rc = do_power(c.dev, c.action == OPT_POWER_ON);
			break;
		case OPT_POWER_CUT_AFTER:
			rc = ap_emu_arm_power_cut(c.dev, c.cut_n);
			if (rc)
				rc = rc == -ENODEV ? not_emulated(c.dev) :
				     ap_errx(CMD, c.dev, rc, "%s", strerror(-rc));
			break;
		case OPT_HOST_BUSY:
			rc = ap_emu_set_host_busy(c.dev, c.busy_ns);
			if (rc)
				rc = rc == -ENODEV ? not_emulated(c.dev) :
				     ap_errx(CMD, c.dev, rc, "%s", strerror(-rc));
			break;
		case OPT_RESET_STATS:
			rc = ap_emu_counters_reset(c.dev);
			if (rc)
				rc = rc == -ENODEV ? not_emulated(c.dev) :
				     ap_errx(CMD, c.dev, rc, "%s", strerror(-rc));
			break;
		}
	}
	ap_emu_spec_free(&c.spec);
	return rc < 0 ? AP_EXIT_OK : rc;
}
