// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * alignprobe smr: is a rotating disk shingled behind a conventional
 * interface (drive-managed SMR), found by measurement (issue 35; the
 * engine: src/smr/). Per device: the cheap signals (nothing written);
 * unless they settle it, the rotation measured; on a rotating disk the
 * short timing test: synchronous random writes over the whole disk with
 * the write cache as found and, when they are fast, again with it off
 * (switched through device/cachectl.h, on record for `cleanup` after a
 * SIGKILL, restored after). A persistent cache stays fast.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/opts.h"
#include "cmd/publish.h"
#include "device/cachectl.h"
#include "device/rotation.h"
#include "device/safety.h"
#include "emu/emu.h"
#include "fleet/vstore.h"
#include "lib/blkdev.h"
#include "lib/exitcodes.h"
#include "lib/sysfs.h"
#include "lib/util.h"
#include "probe/journal.h"
#include "probe/prepare.h"
#include "smr/smr.h"
#include "ui/confirm.h"

#define CMD "smr"

enum {
	OPT_EMULATE = 0x200,
	OPT_JOURNAL,
	OPT_WRITES,
	OPT_SEED,
	OPT_DEEP,
	OPT_TIME_BUDGET,
	OPT_BYTE_BUDGET,
};

struct ctl {
	bool yes, dry_run, json, quiet, preserve;
	bool deep, budget_set;
	uint64_t time_budget_ns, byte_budget;
	const char *journal;
	unsigned writes;
	uint64_t seed;
	const char *record, *prometheus, *record_path;
	bool record_set;
	char **emu_specs;
	size_t nemu;
	char **names;
	size_t nnamed;
	struct json_object *docs;
	struct ap_prom *metrics;	/* --prometheus */
	struct ap_outfile prom;
};

/* One device's run: what the command holds while it measures. */
struct job {
	const char *dev;
	bool emulated;
	struct ap_disk_identity id;
	bool have_id;
	unsigned logical;
	struct ap_smr_result r;
	struct ap_cachectl wc;
	bool wc_found;
	bool switched;			/* the write cache is off: restore */
	char *journal;
};

static void usage(void)
{
	fputs("Find a drive-managed SMR disk (or a hybrid) by measurement: a persistent\n"
	      "media cache answers synchronous random writes faster than a seek and a\n"
	      "revolution allow, also with the drive's write cache off.\n"
	      "\nOptions:\n"
	      " -P, --preserve             read the original bytes first, keep them in an undo\n"
	      "                            journal, write them back (probe --undo restores\n"
	      "                            a killed run's)\n"
	      "     --journal FILE         the undo journal (default\n"
	      "                            /var/tmp/alignprobe-undo-DEV-PID.journal)\n"
	      "     --writes N             timed writes per phase (default 128)\n"
	      "     --seed N               of the random order (default 1)\n"
	      "     --deep                 after a persistent cache is found: its size (the\n"
	      "                            cliff) and the idle cleaning time (destructive)\n"
	      "     --time-budget DUR      for the deep test (default 10m), e.g. 30m\n"
	      "     --byte-budget SIZE     the deep test writes at most this, e.g. 64G\n"
	      "     --emulate[=SPEC]       test an emulated drive (repeatable), e.g.\n"
	      "                            --emulate=smr-notrim\n"
	      " -y, --yes                  destructive mode without the confirmation\n"
	      "     --dry-run              run the checks and print the plan\n"
	      "     --record[=STORE]       add each verdict to the verdict store\n"
	      "     --prometheus FILE      write the verdicts for node_exporter\n"
	      " -J, --json                 JSON output\n"
	      " -q, --quiet                no progress messages\n"
	      " -h, --help                 display this help\n"
	      " -V, --version              display version\n"
	      "\nExit status: 0 a verdict (see the manual), 2 bad input, 3 refused,\n"
	      "5 cannot tell (the reason is printed), 1 a failure.\n", stdout);
}

static int smr_opt(void *ctx, int ch, const char *arg)
{
	struct ctl *c = ctx;
	uint64_t v;

	switch (ch) {
	case 'P':
		c->preserve = true;
		return 0;
	case OPT_EMULATE:
		c->emu_specs = ap_xreallocarray(c->emu_specs, c->nemu + 1, sizeof(char *));
		c->emu_specs[c->nemu++] = (char *)arg;
		return 0;
	case OPT_JOURNAL:
		if (!*arg) {
			ap_usage_error(CMD, "--journal: empty file name");
			return AP_EXIT_USAGE;
		}
		c->journal = arg;
		return 0;
	case OPT_WRITES:
		if (ap_parse_u64(arg, &v) != 0 || v < 8 || v > AP_SMR_WRITES_MAX) {
			ap_usage_error(CMD, "invalid --writes: '%s' (8..%u)", arg,
				       AP_SMR_WRITES_MAX);
			return AP_EXIT_USAGE;
		}
		c->writes = (unsigned)v;
		return 0;
	case OPT_DEEP:
		c->deep = true;
		return 0;
	case OPT_TIME_BUDGET:
		if (ap_parse_duration_ns(arg, &c->time_budget_ns) != 0 || !c->time_budget_ns) {
			ap_usage_error(CMD, "invalid --time-budget: '%s' (e.g. 30s, 2m)", arg);
			return AP_EXIT_USAGE;
		}
		c->budget_set = true;
		return 0;
	case OPT_BYTE_BUDGET:
		if (ap_parse_size(arg, &c->byte_budget) != 0 || !c->byte_budget) {
			ap_usage_error(CMD, "invalid --byte-budget: '%s' (e.g. 4G)", arg);
			return AP_EXIT_USAGE;
		}
		c->budget_set = true;
		return 0;
	case OPT_SEED:
		if (ap_parse_u64(arg, &c->seed) != 0) {
			ap_usage_error(CMD, "invalid --seed: '%s' (0..%" PRIu64 ")", arg, UINT64_MAX);
			return AP_EXIT_USAGE;
		}
		return 0;
	}
	return AP_EXIT_USAGE;
}

static int parse(struct ctl *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "preserve", no_argument,       NULL, 'P' },
		{ "emulate",  optional_argument, NULL, OPT_EMULATE },
		{ "journal",  required_argument, NULL, OPT_JOURNAL },
		{ "writes",   required_argument, NULL, OPT_WRITES },
		{ "seed",     required_argument, NULL, OPT_SEED },
		{ "deep",     no_argument,       NULL, OPT_DEEP },
		{ "time-budget", required_argument, NULL, OPT_TIME_BUDGET },
		{ "byte-budget", required_argument, NULL, OPT_BYTE_BUDGET },
		{ NULL, 0, NULL, 0 }
	};
	static const char *const synopsis[] = {
		"[options] <device>...", "[options] --emulate[=SPEC]...", NULL
	};
	const struct ap_opt common[] = {
		AP_OPT_YES(&c->yes), AP_OPT_DRY_RUN(&c->dry_run), AP_OPT_JSON(&c->json),
		AP_OPT_QUIET(&c->quiet), AP_OPT_RECORD(&c->record, &c->record_set),
		AP_OPT_PROMETHEUS(&c->prometheus), AP_OPT_HELP(usage), AP_OPT_VERSION, AP_OPT_END
	};
	const struct ap_opts p = { CMD, synopsis, common, longopts, "P", smr_opt, c };
	int rc = ap_opts_parse(&p, argc, argv);

	if (rc)
		return rc;
	if (c->budget_set && !c->deep) {
		ap_usage_error(CMD, "--time-budget and --byte-budget are only used with --deep");
		return AP_EXIT_USAGE;
	}
	if (c->deep && c->preserve) {
		ap_usage_error(CMD, "--deep cannot preserve: it writes as much as the persistent "
			       "cache holds, anywhere on the disk (drop --preserve)");
		return AP_EXIT_USAGE;
	}
	if (c->journal && !c->preserve) {
		ap_usage_error(CMD, "--journal is only used with --preserve");
		return AP_EXIT_USAGE;
	}
	if (optind >= argc && !c->nemu) {
		ap_usage_error(CMD, "no device given (or --emulate)");
		return AP_EXIT_USAGE;
	}
	if (ap_check_listed_twice(CMD, argv + optind, (size_t)(argc - optind)))
		return AP_EXIT_USAGE;
	c->names = argv + optind;
	c->nnamed = (size_t)(argc - optind);
	if (c->record_set && (rc = ap_publish_record_prepare(CMD, c->record, &c->record_path)))
		return rc;
	if (c->prometheus && (rc = ap_publish_prom_open(CMD, &c->prom, c->prometheus)))
		return rc;
	return 0;
}

/* The emulated drive's TRIM, from its spec (its loop device cannot say). */
static int emu_trim(const char *dev)
{
	struct ap_emu_spec s;
	int rc;

	if (!ap_emu_is_emulated(dev))
		return -1;
	ap_emu_spec_init(&s);
	rc = ap_emu_spec_of(dev, &s);
	rc = rc ? -1 : !s.no_trim;
	ap_emu_spec_free(&s);
	return rc;
}

static const struct ap_smr_hooks hooks = { .trim = emu_trim };

/*
 * The cheap signals and the rotation, read-only: 0 with j->r filled (and
 * a verdict when they settle it), or an exit code after the message.
 */
static int look(struct ctl *c, struct job *j, uint64_t *size, unsigned *logical)
{
	struct ap_error ie = { 0 };
	struct stat st;
	char *name;
	unsigned phys;
	int fd, rc;

	if (stat(j->dev, &st) != 0)
		return ap_errx(CMD, j->dev, errno, "%s", strerror(errno));
	if (!S_ISBLK(st.st_mode))
		return ap_errx(CMD, j->dev, ENOTBLK, "not a block device");
	if (ap_sysfs_devno_is_partition(st.st_rdev))
		return ap_errx(CMD, j->dev, EINVAL, "a partition: smr tests whole disks");
	fd = open(j->dev, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		return ap_errx(CMD, j->dev, errno, "cannot open: %s", strerror(errno));
	rc = ap_blkdev_get_sizes(fd, size, logical, &phys);
	if (rc) {
		close(fd);
		return ap_errx(CMD, j->dev, -rc, "cannot read its size: %s", strerror(-rc));
	}
	j->have_id = ap_identity_read(fd, &j->id, &ie) == 0;
	if (c->record_set && (rc = j->have_id ? ap_publish_record_check_disk(CMD, j->dev, &j->id) :
			      ap_errx(CMD, j->dev, EINVAL, "--record: %s", ie.msg)) != 0) {
		close(fd);
		return rc;
	}
	name = ap_sysfs_wholedisk_name(st.st_rdev);
	ap_smr_signals_read(j->dev, name ? name : "", fd, &hooks, &j->r.sig);
	free(name);
	if (!ap_smr_decide_signals(&j->r)) {
		rc = ap_rotation_measure(fd, *size, *logical < 4096 ? 4096 : *logical,
					 &j->r.seek_read_ns);
		if (rc == 0) {
			j->r.rotation_measured = true;
			if (j->r.seek_read_ns < AP_ROTATING_NS)
				ap_smr_decide(&j->r);
		} else if (rc != -ENOSPC) {
			close(fd);
			return ap_errx(CMD, j->dev, -rc, "cannot read: %s", strerror(-rc));
		}
	}
	close(fd);
	return 0;
}

/* Everything checked before the gate: the plan, the journal, the cache switch. */
static int prepare(struct ctl *c, struct job *j, uint64_t size, unsigned logical,
		   struct ap_smr_plan *p)
{
	struct ap_disk_identity id = { .size = size, .logical_sector = logical };
	struct ap_journal_plan jp;
	struct ap_error e = { 0 };

	if (ap_smr_plan(size, logical, c->writes, c->seed, p, &e) != 0)
		return ap_err_error(CMD, j->dev, &e);
	if (c->preserve) {
		j->journal = ap_probe_journal_path(c->journal, c->nnamed + c->nemu > 1, j->dev);
		ap_smr_journal_plan(p, &jp);
		if (ap_journal_check(j->dev, j->journal, &jp, &id, &e) != 0)
			return ap_err_error(CMD, NULL, &e);
	}
	if (ap_cachectl_find_dev(&j->wc, j->dev, &ap_cmd_emu_cache, &e) == 0) {
		j->wc_found = true;
		j->r.cache_switchable = true;
	}
	return 0;
}

/* The write cache off, on record first (switched back by restore()). 0 or 1. */
static int cache_off(struct job *j)
{
	struct ap_error e = { 0 }, re = { 0 };

	if (ap_cachectl_adopt(&j->wc, &e) < 0 || ap_cachectl_record(&j->wc, &e) < 0 ||
	    ap_cachectl_set(&j->wc, false, &e) < 0) {
		ap_warnx(CMD, j->dev, "cannot switch the write cache off: %s", e.msg);
		ap_cachectl_restore(&j->wc, &re);
		return AP_EXIT_FAILURE;
	}
	j->switched = true;
	return 0;
}

/* The write cache as found again. 0 or 1. */
static int cache_restore(struct job *j)
{
	struct ap_error re = { 0 };

	j->switched = false;
	if (ap_cachectl_restore(&j->wc, &re) < 0) {
		ap_warnx(CMD, j->dev, "cannot restore the write cache (\"%s\"): %s; "
			 "'alignprobe cleanup' puts it back", j->wc.w.orig, re.msg);
		return AP_EXIT_FAILURE;
	}
	return 0;
}

/* The phase with the cache off (left off for --deep). 0 or 1. */
static int phase_off(struct job *j, struct ap_smr_run *run)
{
	struct ap_error e = { 0 };
	int rc = cache_off(j);

	if (rc)
		return rc;
	j->r.off.cache_known = true;
	ap_test_pause("ALIGNPROBE_TEST_SMR_CACHE_OFF");	/* a test's SIGKILL goes here */
	rc = ap_smr_run_phase(run, &j->r.off, &e);
	if (rc) {
		ap_warnx(CMD, NULL, "%s", e.msg);
		return AP_EXIT_FAILURE;
	}
	return 0;
}

/* --deep, the write cache still off: only after a persistent cache was found. 0 or 1. */
static int deep(struct ctl *c, struct job *j, const struct ap_smr_plan *p)
{
	struct ap_error e = { 0 };

	ap_smr_decide(&j->r);
	if (j->r.verdict != AP_SMR_PERSISTENT_CACHE) {
		snprintf(j->r.deep.reason, sizeof(j->r.deep.reason), "the short test found no "
			 "persistent cache (%s): nothing to measure", ap_smr_verdict_key(j->r.verdict));
		return 0;
	}
	if (!c->quiet)
		ap_warnx(CMD, j->dev, "the deep test: writing until the cache is full, %.0f s at "
			 "most", (double)j->r.deep.time_budget_ns / 1e9);
	if (ap_smr_deep_run(j->dev, p, &j->r.deep, &e) != 0) {
		ap_warnx(CMD, NULL, "%s", e.msg);
		return AP_EXIT_FAILURE;
	}
	return 0;
}

/* The timed writes on the held device: 0 or an exit code after the message. */
static int measure(struct ctl *c, struct job *j, const struct ap_smr_plan *p)
{
	struct ap_smr_run *run;
	struct ap_error e = { 0 }, ce = { 0 };
	int rc, ret = 0;

	rc = ap_smr_run_open(j->dev, p, c->preserve ? j->journal : NULL, &run, &e);
	if (rc)
		return ap_err_error(CMD, NULL, &e);
	j->r.wrote = true;
	j->r.preserved = c->preserve;
	j->r.on.cache_known = j->wc_found;
	j->r.on.cache_on = j->wc_found && ap_cachectl_orig_on(&j->wc);
	rc = ap_smr_run_phase(run, &j->r.on, &e);
	if (rc) {
		ap_warnx(CMD, NULL, "%s", e.msg);
		ret = AP_EXIT_FAILURE;
	} else if (j->r.on.cache_on && j->wc_found) {
		ret = phase_off(j, run);
	}
	if (ap_smr_run_close(run, &j->r.restored, &ce) != 0) {
		ap_warnx(CMD, NULL, "%s; the journal %s is kept: alignprobe probe --undo %s",
			 ce.msg, j->journal, j->journal);
		ret = AP_EXIT_FAILURE;
	}
	if (!ret && c->deep)
		ret = deep(c, j, p);
	if (j->switched && cache_restore(j) && !ret)
		ret = AP_EXIT_FAILURE;
	return ret;
}

/* The gate, the plan printed or confirmed, the measurement: 0 or an exit code. */
static int gated(struct ctl *c, struct job *j, const struct ap_smr_plan *p)
{
	struct ap_safety_opts so = { .yes = c->yes || j->emulated, .dry_run = c->dry_run };
	struct ap_safety_target t;
	char cache[256] = "", *words;
	int rc;

	rc = ap_cmd_gate(CMD, j->dev, &so, &t);
	if (rc)
		return rc;
	if (j->wc_found)
		snprintf(cache, sizeof(cache), "%s, now \"%s\"", ap_wcache_how_name(j->wc.w.how),
			 j->wc.w.orig);
	words = ap_smr_plan_words(j->dev, p, c->preserve ? j->journal : NULL,
				  j->wc_found ? cache : NULL);
	if (c->deep) {
		char *d = ap_smr_deep_plan_words(&j->r.deep, p->span);

		ap_strappendf(&words, NULL, "%s", d);
		free(d);
	}
	so.ask = ap_ui_confirm;
	if (c->dry_run || (!c->preserve && !so.yes))
		rc = ap_cmd_confirm(CMD, j->dev, &t, &so, words);
	free(words);
	if (!rc && !c->dry_run)
		rc = measure(c, j, p);
	ap_safety_target_free(&t);
	return rc;
}

static int run_job(struct ctl *c, struct job *j)
{
	struct ap_smr_plan p;
	uint64_t size = 0;
	unsigned logical = 512;
	int rc = look(c, j, &size, &logical);

	j->logical = logical;
	j->r.deep.asked = c->deep;
	j->r.deep.time_budget_ns = c->time_budget_ns;
	j->r.deep.byte_budget = c->byte_budget;
	snprintf(j->r.deep.reason, sizeof(j->r.deep.reason), "the verdict was settled without "
		 "the short test's writes: the deep test follows only a short test that found a "
		 "persistent cache");
	if (rc)
		return rc;
	if (j->r.verdict != AP_SMR_UNKNOWN || j->r.source)
		return 0;	/* settled without writing */
	if (!j->r.rotation_measured)
		return ap_errx(CMD, j->dev, ENOSPC, "too small to measure its rotation");
	rc = prepare(c, j, size, logical, &p);
	if (!rc)
		rc = gated(c, j, &p);
	if (!rc && !c->dry_run)
		ap_smr_decide(&j->r);
	return rc;
}

/* The deep test's figures for the store and the metrics (zeros: not measured). */
static void deep_figures(const struct ap_smr_deep *d, struct ap_vstore_smr_deep *f)
{
	memset(f, 0, sizeof(*f));
	if (!d->ran)
		return;
	if (d->cliff.found)
		f->cache_bytes = (uint64_t)d->cliff.at * d->span;
	if (d->band.found) {
		f->band_bytes = d->band.bytes;
		f->band_error_bytes = d->band.error;
	}
	if (d->idle_ran && d->idle.clean)
		f->idle_clean_ns = d->idle.clean_ns;
}

static int report(struct ctl *c, struct job *j)
{
	struct ap_vstore_smr_deep deep;
	char *words;

	if (c->dry_run)
		return AP_EXIT_OK;
	if (c->json) {
		json_object_array_add(c->docs, ap_smr_to_json(j->dev, &j->r));
	} else {
		words = ap_smr_words(j->dev, &j->r);
		fputs(words, stdout);
		free(words);
	}
	if (j->r.verdict == AP_SMR_UNKNOWN) {
		ap_warnx(CMD, j->dev, "cannot tell: %s", j->r.reason);
		return AP_EXIT_INCONCLUSIVE;
	}
	deep_figures(&j->r.deep, &deep);
	if (c->metrics)
		ap_fleet_prom_smr(c->metrics, j->dev, j->have_id ? &j->id : NULL, j->logical,
				  ap_smr_verdict_key(j->r.verdict), ap_smr_is_shingled(j->r.verdict),
				  j->r.deep.ran ? &deep : NULL);
	if (c->record_set)
		return ap_publish_record_smr(CMD, c->record_path, j->dev, &j->id,
					     ap_smr_verdict_key(j->r.verdict), &deep, c->quiet);
	return AP_EXIT_OK;
}

/* One device, named or emulated: its exit status. */
static int one(struct ctl *c, const char *name, const char *spec)
{
	struct ap_emu_spec s;
	struct ap_emu *emu = NULL;
	struct ap_error e = { 0 };
	struct job j;
	int rc;

	memset(&j, 0, sizeof(j));
	j.dev = name;
	if (!name) {
		ap_emu_spec_init(&s);
		rc = ap_cmd_emu_spec(CMD, "smr-notrim", spec, true, &s);
		if (!rc)
			rc = ap_cmd_emu_attach(CMD, &s, &emu);
		ap_emu_spec_free(&s);
		if (rc)
			return rc;
		j.dev = ap_emu_device(emu);
		j.emulated = true;
	}
	rc = run_job(c, &j);
	if (!rc)
		rc = report(c, &j);
	if (emu && ap_emu_detach(emu, &e) != 0)
		ap_warnx(CMD, NULL, "cannot take the emulated drive down: %s", e.msg);
	if (j.wc_found)
		ap_cachectl_free(&j.wc);
	if (j.have_id)
		ap_identity_free(&j.id);
	free(j.journal);
	return rc;
}

int ap_cmd_smr(int argc, char **argv)
{
	struct ctl c = { .writes = AP_SMR_WRITES_DEFAULT, .seed = 1,
			 .time_budget_ns = AP_SMR_DEEP_TIME_DEFAULT };
	int rc, worst = AP_EXIT_OK;
	size_t i;

	rc = parse(&c, argc, argv);
	if (rc) {
		free(c.emu_specs);	/* --emulate before a refused option */
		return rc < 0 ? ap_cmd_close_stdout(CMD, AP_EXIT_OK) : rc;
	}
	c.docs = json_object_new_array();
	if (c.prometheus)
		c.metrics = ap_prom_new();
	for (i = 0; i < c.nnamed + c.nemu; i++) {
		rc = i < c.nnamed ? one(&c, c.names[i], NULL) :
		     one(&c, NULL, c.emu_specs[i - c.nnamed]);
		if (rc > worst)
			worst = rc;
	}
	if (c.json && !c.dry_run) {
		struct json_object *doc = json_object_new_object();

		json_object_object_add(doc, "smr", json_object_get(c.docs));
		puts(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
						    JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(doc);
	}
	json_object_put(c.docs);
	if (c.metrics && ap_publish_prom_commit(CMD, &c.prom, c.metrics) != 0)
		worst = AP_EXIT_FAILURE;
	ap_prom_free(c.metrics);
	free(c.emu_specs);
	return ap_cmd_close_stdout(CMD, worst);
}
