// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * alignprobe verdicts: the verdict store (src/fleet/vstore.h) for people
 * and fleet tools. Thin: parse, call the store, print.
 *
 *	alignprobe verdicts list   [--verdicts FILE]... [output options]
 *	alignprobe verdicts show   [--verdicts FILE]... [-J] MODEL...
 *	alignprobe verdicts merge  [--store FILE] [--host NAME] [-J] [-q] SOURCE...
 *	alignprobe verdicts forget [--store FILE] [-J] [-q] MODEL...
 *
 * merge and forget take the store's lock for the whole read-modify-write
 * and replace it atomically, as probe --record does; every SOURCE is read
 * and checked before the lock is taken, so a bad one changes nothing.
 * Exit status: the errno table's (src/cmd/common.c) for everything found
 * before the store is written (a corrupt, newer, too large store, a
 * directory: 2; a read-only one: 3), 1 when writing it failed.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "cmd/commands.h"
#include "cmd/opts.h"
#include "fleet/vstore.h"
#include "lib/exitcodes.h"
#include "lib/json.h"
#include "lib/util.h"
#include "ui/out.h"

#define CMD "verdicts"
#define MAX_LAYERS	16
#define MAX_MATCHES	256

enum {
	COL_NAME, COL_VENDOR, COL_MODEL, COL_REVISION, COL_LOGICAL, COL_PHYSICAL, COL_LOWEST,
	COL_SENSITIVE, COL_MARGIN, COL_LEVELS, COL_STATE, COL_SMR, COL_SMR_BAND, COL_SMR_CACHE,
	COL_DISKS, COL_RUNS, COL_RECORDED, COL_ENTRY, COL_STORE,
};

static const struct ap_colinfo infos[] = {
	[COL_NAME]	= { "NAME", 0.3, 0, AP_COL_STRING,
			    "the model as show and forget take it: vendor, model, revision" },
	[COL_VENDOR]	= { "VENDOR", 0.1, 0, AP_COL_STRING, "vendor (null when the disk states none)" },
	[COL_MODEL]	= { "MODEL", 0.2, 0, AP_COL_STRING, "model" },
	[COL_REVISION]	= { "REVISION", 0.05, 0, AP_COL_STRING, "firmware revision" },
	[COL_LOGICAL]	= { "LOGICAL", 6, SCOLS_FL_RIGHT, AP_COL_NUMBER,
			    "logical sector size, bytes", "logical_sector" },
	[COL_PHYSICAL]	= { "PHYSICAL", 6, SCOLS_FL_RIGHT, AP_COL_NUMBER,
			    "physical sector size found, bytes", "physical_sector" },
	[COL_LOWEST]	= { "LOWEST_ALIGNED", 3, SCOLS_FL_RIGHT, AP_COL_NUMBER,
			    "lowest aligned LBA found", "lowest_aligned_lba" },
	[COL_SENSITIVE]	= { "SENSITIVE", 3, 0, AP_COL_BOOLEAN,
			    "misaligned writes were measurably slower" },
	[COL_MARGIN]	= { "MARGIN", 4, SCOLS_FL_RIGHT, AP_COL_NUMBER,
			    "not sensitive: the margin \"no effect\" was shown down to",
			    "absence_margin", "%.2f" },
	[COL_LEVELS]	= { "LEVELS", 0.2, 0, AP_COL_STRING,
			    "units above the physical sector (probe): kind bytes@lowest aligned "
			    "LBA, comma-separated, \"first-write\" where only first writes pay" },
	[COL_STATE]	= { "STATE", 8, 0, AP_COL_STRING,
			    "ok, or conflict: another verdict for the model and logical sector "
			    "size (check --verdicts uses none)" },
	[COL_SMR]	= { "SMR", 8, 0, AP_COL_STRING,
			    "the model's SMR verdict (smr --record): cmr, dm-smr-or-hybrid, ...; "
			    "two, comma-separated: disks of the model disagree; empty: not measured" },
	[COL_SMR_BAND]	= { "SMR_BAND", 8, SCOLS_FL_RIGHT, AP_COL_NUMBER,
			    "smr --deep: the band size measured, bytes (the latest disk of the "
			    "model that measured one)", "smr_band_bytes" },
	[COL_SMR_CACHE]	= { "SMR_CACHE", 8, SCOLS_FL_RIGHT, AP_COL_NUMBER,
			    "smr --deep: the persistent cache's size, bytes (the latest disk of "
			    "the model that measured one)", "smr_cache_bytes" },
	[COL_DISKS]	= { "DISKS", 3, SCOLS_FL_RIGHT, AP_COL_NUMBER,
			    "disks the verdict was measured on" },
	[COL_RUNS]	= { "RUNS", 3, SCOLS_FL_RIGHT, AP_COL_NUMBER, "runs with this verdict" },
	[COL_RECORDED]	= { "RECORDED", 20, 0, AP_COL_STRING, "the latest run (UTC)" },
	[COL_ENTRY]	= { "ENTRY", 0.1, 0, AP_COL_STRING,
			    "where it is in its store: models[M].verdicts[V]" },
	[COL_STORE]	= { "STORE", 0.2, 0, AP_COL_STRING, "the store file that holds it" },
};

static const int default_cols[] = {
	COL_NAME, COL_LOGICAL, COL_PHYSICAL, COL_LOWEST, COL_SENSITIVE, COL_LEVELS, COL_STATE, COL_SMR,
	COL_DISKS, COL_RECORDED,
};

static const struct ap_opts_cols verdicts_cols = {
	infos, AP_ARRAY_SIZE(infos), default_cols, AP_ARRAY_SIZE(default_cols)
};

enum {
	OPT_VERDICTS = AP_OPT_OUT_LAST,
	OPT_STORE,
	OPT_HOST,
};

struct verdicts_cmd {
	const char *action;
	const char *layers[MAX_LAYERS];
	size_t nlayers;
	const char *store;
	const char *host;
	bool quiet;
	struct ap_out out;
	int cols[AP_ARRAY_SIZE(infos) * 2];
	size_t ncols;
	char **args;
	size_t nargs;
};

/* what --help prints after "Usage:" (the option kit) */
static const char *const synopsis[] = {
	"list [--verdicts <file>]... [output options]",
	"show [--verdicts <file>]... [-J] <model>...",
	"merge [--store <file>] [--host <name>] <source>...",
	"forget [--store <file>] <model>...",
	NULL
};

static void usage(void)
{
	FILE *out = stdout;

	fputs("The verdict store: what probes and sweeps found, per drive model.\n"
	      "\n"
	      "Actions:\n"
	      " list                   one line per verdict of every model (and per model\n"
	      "                        with an SMR verdict only)\n"
	      " show                   a model's verdicts and the disks they were measured on\n"
	      " merge                  add other stores and probe/sweep --json results to the\n"
	      "                        store; a conflict is kept with both sides\n"
	      " forget                 remove models from the store\n"
	      "\n"
	      "Options:\n"
	      "     --verdicts <file>  the store to read (repeatable: per model the first\n"
	      "                        file that holds it decides; default\n"
	      "                        $ALIGNPROBE_VERDICTS or " AP_VSTORE_DEFAULT ")\n"
	      "     --store <file>     the store merge and forget update (created when\n"
	      "                        absent; the same default)\n"
	      "     --host <name>      merge: the host the results were measured on\n"
	      " -q, --quiet            print nothing but errors\n", out);
	ap_out_usage(out, 24);
	fputs(" -h, --help             display this help\n"
	      " -V, --version          display version\n"
	      "\n"
	      "MODEL: the NAME that list prints (\"ATA ST4000DM004-2CV104 0001\"),\n"
	      "VENDOR:MODEL:REVISION, or the model alone (every vendor and revision).\n"
	      "SOURCE: a verdict store, or what probe -J or sweep -J printed (or --save\n"
	      "wrote): each device with a verdict and a model, recorded at the file's time.\n"
	      "Merging the same SOURCE again changes nothing (\"unchanged\").\n"
	      "\n"
	      "Exit status:\n"
	      " 0  done (also when nothing changed)\n"
	      " 1  writing the store failed, or it could not be locked\n"
	      " 2  usage error or bad input: a missing, corrupt or newer store, a directory,\n"
	      "    a store that would grow past 64 MiB, a SOURCE that is neither a store\n"
	      "    nor a result or whose result names no model, a MODEL that show does\n"
	      "    not find or that names several models alike\n"
	      " 3  the store is on a read-only file system\n"
	      "\nAvailable output columns (list):\n", out);
	ap_out_list_columns(NULL, infos, AP_ARRAY_SIZE(infos));
}

/* One of verdicts' own options: 0, or AP_EXIT_USAGE after the message. */
static int verdicts_opt(void *ctx, int ch, const char *arg)
{
	struct verdicts_cmd *c = ctx;

	if (ch == OPT_VERDICTS) {
		if (!*arg) {
			ap_usage_error(CMD, "--verdicts: empty file name");
			return AP_EXIT_USAGE;
		}
		if (c->nlayers == MAX_LAYERS) {
			ap_usage_error(CMD, "--verdicts: at most %d stores", MAX_LAYERS);
			return AP_EXIT_USAGE;
		}
		c->layers[c->nlayers++] = arg;
		return 0;
	}
	/* --store, --host */
	if (!*arg) {
		ap_usage_error(CMD, "--%s: empty %s", ch == OPT_STORE ? "store" : "host",
			       ch == OPT_STORE ? "file name" : "name");
		return AP_EXIT_USAGE;
	}
	*(ch == OPT_STORE ? &c->store : &c->host) = arg;
	return 0;
}

/* 0 to go on, -1 after --help, --version or -H, AP_EXIT_USAGE after the message. */
static int parse_args(struct verdicts_cmd *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "verdicts", required_argument, NULL, OPT_VERDICTS },
		{ "store",    required_argument, NULL, OPT_STORE },
		{ "host",     required_argument, NULL, OPT_HOST },
		{ NULL, 0, NULL, 0 }
	};
	const struct ap_opt common[] = {
		AP_OPT_QUIET(&c->quiet), AP_OPT_HELP(usage), AP_OPT_VERSION,
		AP_OPT_OUTPUT(&c->out), AP_OPT_END
	};
	const struct ap_opts p = {
		.cmd = CMD, .synopsis = synopsis, .common = common, .longopts = longopts,
		.own = verdicts_opt, .ctx = c,
	};
	int rc = ap_opts_parse(&p, argc, argv);

	if (!rc)
		rc = ap_opts_list_columns(&c->out, &verdicts_cols);
	if (!rc)
		rc = ap_opts_out_check(CMD, &c->out);
	if (rc)
		return rc;
	if (!c->action) {
		ap_usage_error(CMD, "no action given (list, show, merge or forget)");
		return AP_EXIT_USAGE;
	}
	c->args = argv + optind;
	c->nargs = (size_t)(argc - optind);
	return AP_EXIT_OK;
}

/* An option the action does not take, or arguments it needs. */
static int check_action_args(const struct verdicts_cmd *c, bool reads, bool args)
{
	const char *bad = NULL;

	if (reads && c->store)
		bad = "--store";
	else if (reads && c->host)
		bad = "--host";
	else if (!reads && c->nlayers)
		bad = "--verdicts";
	else if (strcmp(c->action, "merge") != 0 && c->host)
		bad = "--host";
	if (bad) {
		ap_usage_error(CMD, "%s: not an option of '%s'", bad, c->action);
		return AP_EXIT_USAGE;
	}
	if (args && !c->nargs) {
		ap_usage_error(CMD, "%s: no %s given", c->action,
			       strcmp(c->action, "merge") == 0 ? "SOURCE" : "MODEL");
		return AP_EXIT_USAGE;
	}
	if (!args && c->nargs) {
		ap_usage_error(CMD, "%s: unexpected argument '%s'", c->action, c->args[0]);
		return AP_EXIT_USAGE;
	}
	return AP_EXIT_OK;
}

/* The stores to read: --verdicts..., else the default one. */
static int load_layers(struct verdicts_cmd *c, struct ap_vstore *s)
{
	struct ap_error e = { 0 };
	int rc;

	if (!c->nlayers)
		c->layers[c->nlayers++] = ap_vstore_path(NULL);
	rc = ap_vstore_load_layers(c->layers, c->nlayers, s, &e);
	if (rc) {
		ap_warnx(CMD, "--verdicts", "%s", e.msg);
		return ap_exit_for_errno(rc);	/* missing, unreadable, corrupt: 2 */
	}
	return AP_EXIT_OK;
}

/* Print the document @o and free it: 0, or AP_EXIT_FAILURE (said) on a write error. */
static int print_json(struct json_object *o)
{
	int rc = 0;

	if (ap_out_json_print(stdout, o) != 0) {
		ap_warnx(CMD, NULL, "write error on standard output");
		rc = AP_EXIT_FAILURE;
	}
	json_object_put(o);
	return rc;
}

/* {"@key": @a}, printed (see print_json()). */
static int print_array(const char *key, struct json_object *a)
{
	struct json_object *doc = json_object_new_object();

	json_object_object_add(doc, key, a);
	return print_json(doc);
}

/* ---- list ---- */

/*
 * The model's deep SMR figures into @d: the band and the cache each from
 * the latest of its rows that measured it (0 when none did).
 */
static void smr_deep_latest(const struct ap_vstore *s, const char *vendor, const char *model,
			    const char *revision, struct ap_vstore_smr_deep *d)
{
	size_t idx[MAX_MATCHES], n = ap_vstore_smr_find(s, vendor, model, revision, idx,
							MAX_MATCHES), i;
	const char *band_at = NULL, *cache_at = NULL;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < n; i++) {
		const struct ap_vstore_smr *x = &s->smr[idx[i]];
		const char *at = x->recorded ? x->recorded : "";

		if (x->deep.band_bytes && (!band_at || strcmp(at, band_at) > 0)) {
			d->band_bytes = x->deep.band_bytes;
			band_at = at;
		}
		if (x->deep.cache_bytes && (!cache_at || strcmp(at, cache_at) > 0)) {
			d->cache_bytes = x->deep.cache_bytes;
			cache_at = at;
		}
	}
}

/* The columns of a model's key and its SMR verdicts, the same on every row of it. */
static void fill_key(struct ap_row *r, const struct ap_vstore *s, const char *vendor,
		     const char *model, const char *revision)
{
	char *name = ap_vstore_key_name(vendor, model, revision);
	char *smr = ap_vstore_smr_verdicts(s, vendor, model, revision);
	struct ap_vstore_smr_deep deep;

	smr_deep_latest(s, vendor, model, revision, &deep);
	ap_row_reset(r);
	ap_row_str(r, COL_NAME, name);
	ap_row_str(r, COL_VENDOR, vendor);
	ap_row_str(r, COL_MODEL, model);
	ap_row_str(r, COL_REVISION, revision);
	ap_row_str(r, COL_SMR, smr);
	if (deep.band_bytes)
		ap_row_u64(r, COL_SMR_BAND, deep.band_bytes);
	if (deep.cache_bytes)
		ap_row_u64(r, COL_SMR_CACHE, deep.cache_bytes);
	free(name);
	free(smr);
}

static void fill_row(const struct verdicts_cmd *c, struct ap_row *r, const struct ap_vstore *s,
		     const struct ap_vstore_model *m, size_t k, bool conflict)
{
	const struct ap_vstore_verdict *v = &m->verdicts[k];
	char entry[64], levels[256];
	const char *latest;
	uint64_t runs;

	ap_vstore_verdict_sums(v, &runs, &latest);
	snprintf(entry, sizeof(entry), "models[%zu].verdicts[%zu]", m->index, k);
	fill_key(r, s, m->vendor, m->model, m->revision);
	ap_row_u64(r, COL_LOGICAL, v->logical_sector);
	ap_row_u64(r, COL_PHYSICAL, v->physical_sector);
	ap_row_u64(r, COL_LOWEST, v->lowest_aligned_lba);
	ap_row_bool(r, COL_SENSITIVE, v->sensitive);
	if (!v->sensitive && v->absence_margin >= 1)
		ap_row_double(r, COL_MARGIN, v->absence_margin);
	ap_levels_brief(&v->levels, levels, sizeof(levels));
	ap_row_str(r, COL_LEVELS, levels[0] ? levels : NULL);
	ap_row_str(r, COL_STATE, conflict ? "conflict" : "ok");
	ap_row_u64(r, COL_DISKS, v->nexamples);
	ap_row_u64(r, COL_RUNS, runs);
	ap_row_str(r, COL_RECORDED, latest);
	ap_row_str(r, COL_ENTRY, entry);
	ap_row_str(r, COL_STORE, c->layers[m->layer]);
}

/* smr[@i] is the first row of a model the store holds no sector verdict for. */
static bool smr_only_first(const struct ap_vstore *s, size_t i)
{
	const struct ap_vstore_smr *x = &s->smr[i];
	size_t first;

	return !ap_vstore_find(s, x->vendor, x->model, x->revision) &&
	       ap_vstore_smr_find(s, x->vendor, x->model, x->revision, &first, 1) && first == i;
}

/*
 * The row of the model of smr[@i] when the store holds an SMR verdict and no
 * sector verdict for it (once per model: its first row): true, else false.
 */
static bool fill_smr_row(const struct verdicts_cmd *c, struct ap_row *r, const struct ap_vstore *s,
			 size_t i)
{
	const struct ap_vstore_smr *x = &s->smr[i];
	char entry[32];

	if (!smr_only_first(s, i))
		return false;
	snprintf(entry, sizeof(entry), "smr[%zu]", i);
	fill_key(r, s, x->vendor, x->model, x->revision);
	ap_row_str(r, COL_RECORDED, x->recorded);
	ap_row_str(r, COL_ENTRY, entry);
	ap_row_str(r, COL_STORE, c->layers[x->layer]);
	return true;
}

/* Add the row @r filled: to @rows (-J) or @tb; 0 or AP_EXIT_FAILURE. */
static int add_row(struct ap_row *r, struct json_object *rows, struct libscols_table *tb)
{
	if (rows) {
		json_object_array_add(rows, ap_row_json(r));
		return 0;
	}
	return ap_row_add_line(r, tb) != 0 ? AP_EXIT_FAILURE : 0;
}

static int do_list(struct verdicts_cmd *c)
{
	struct ap_vstore s;
	struct libscols_table *tb;
	struct json_object *rows;
	struct ap_cols cs;
	struct ap_row r;
	size_t i, k;
	int rc;

	rc = check_action_args(c, true, false);
	if (rc)
		return rc;
	if (ap_opts_columns(CMD, &c->out, &verdicts_cols, c->cols, &c->ncols))
		return AP_EXIT_USAGE;
	rc = load_layers(c, &s);
	if (rc)
		return rc;
	/* -J: every column's documented key (-o: the columns selected) */
	ap_cols_init(&cs, &c->out, infos, AP_ARRAY_SIZE(infos), c->cols, c->ncols, NULL, 0);
	tb = c->out.json ? NULL : ap_cols_table_new(&cs, "verdicts");
	rows = c->out.json ? json_object_new_array() : NULL;
	ap_row_init(&r, &cs);
	for (i = 0; (tb || rows) && i < s.nmodels; i++) {
		for (k = 0; k < s.models[i].nverdicts; k++) {
			fill_row(c, &r, &s, &s.models[i], k,
				 ap_vstore_verdict_in_conflict(&s.models[i], k));
			rc |= add_row(&r, rows, tb);
		}
	}
	for (i = 0; (tb || rows) && i < s.nsmr; i++)
		if (fill_smr_row(c, &r, &s, i))
			rc |= add_row(&r, rows, tb);
	ap_row_free(&r);
	if ((!tb && !rows) || rc) {
		ap_warnx(CMD, NULL, "out of memory");
		rc = AP_EXIT_FAILURE;
	} else if (rows) {
		rc = print_array("verdicts", rows);
		rows = NULL;
	} else if (ap_out_print(&c->out, tb) != 0) {
		ap_warnx(CMD, NULL, "write error on standard output");
		rc = AP_EXIT_FAILURE;
	}
	json_object_put(rows);
	scols_unref_table(tb);
	ap_vstore_free(&s);
	return rc;
}

/* ---- show ---- */

/* The strings of @x that show prints, for the terminal (ap_out_printable()). */
enum { X_SERIAL, X_WWN, X_DEVICE, X_HOST, X_SOURCE, X_RECORDED, X_N };

static void show_example(const struct ap_vstore_example *x)
{
	/* a store is a file others wrote: no control character reaches the terminal raw */
	const char *raw[X_N] = { x->serial, x->wwn, x->device, x->host, x->source, x->recorded };
	char *p[X_N];
	size_t i;

	for (i = 0; i < X_N; i++)
		p[i] = ap_out_printable(raw[i]);
	printf("  %s%s%s%s (%s%s%s), %s, %s", p[X_SERIAL] ? "serial " : "",
	       p[X_SERIAL] ? p[X_SERIAL] : "",
	       p[X_WWN] ? (p[X_SERIAL] ? ", WWN " : "WWN ") : "",
	       p[X_WWN] ? p[X_WWN] : (p[X_SERIAL] ? "" : "a disk without serial"),
	       p[X_DEVICE] ? p[X_DEVICE] : "?", p[X_HOST] ? " on " : "",
	       p[X_HOST] ? p[X_HOST] : "", p[X_SOURCE] ? p[X_SOURCE] : "?",
	       p[X_RECORDED] ? p[X_RECORDED] : "?");
	if (isfinite(x->confidence))
		printf(", confidence %.2f%%", x->confidence * 100);
	printf(", %" PRIu64 " run%s\n", x->runs, x->runs == 1 ? "" : "s");
	for (i = 0; i < X_N; i++)
		free(p[i]);
}

/* A row's deep test figures, when it holds any: "  deep test: ..." */
static void show_smr_deep(const struct ap_vstore_smr_deep *d)
{
	char *cache = d->cache_bytes ? ap_size_to_human(d->cache_bytes) : NULL;
	char *band = d->band_bytes ? ap_size_to_human(d->band_bytes) : NULL;
	char *err = d->band_bytes ? ap_size_to_human(d->band_error_bytes) : NULL;
	char idle[48] = "not measured";

	if (!ap_vstore_smr_deep_any(d))
		return;
	if (d->idle_clean_ns)
		snprintf(idle, sizeof(idle), "%.1f s", (double)d->idle_clean_ns / 1e9);
	printf("  deep test: persistent cache %s, band %s%s%s, idle cleaning %s\n",
	       cache ? cache : "not measured", band ? band : "not measured", band ? " +- " : "",
	       band ? err : "", idle);
	free(cache);
	free(band);
	free(err);
}

/* The SMR verdicts of the model's key: one line each, and their JSON rows into @a (or NULL). */
static void show_smr(const struct ap_vstore *s, const char *vendor, const char *model,
		     const char *revision, struct json_object *a)
{
	size_t idx[8], i, n = ap_vstore_smr_find(s, vendor, model, revision, idx, 8);

	for (i = 0; i < n; i++) {
		const struct ap_vstore_smr *x = &s->smr[idx[i]];
		char *p[4] = { ap_out_printable(x->verdict), ap_out_printable(x->serial),
			       ap_out_printable(x->device), ap_out_printable(x->host) };
		char entry[32];
		size_t k;

		snprintf(entry, sizeof(entry), "smr[%zu]", idx[i]);
		if (a) {
			struct json_object *o = ap_vstore_smr_row_to_json(x);

			json_object_object_add(o, "entry", json_object_new_string(entry));
			json_object_array_add(a, o);
		} else {
			printf("SMR %s: %s%s, measured on %s%s (%s%s%s), %s\n", entry, p[0],
			       n > 1 ? " (disks of the model disagree)" : "",
			       p[1] ? "serial " : "a disk without serial", p[1] ? p[1] : "",
			       p[2] ? p[2] : "?", p[3] ? " on " : "", p[3] ? p[3] : "",
			       x->recorded ? x->recorded : "?");
			show_smr_deep(&x->deep);
		}
		for (k = 0; k < 4; k++)
			free(p[k]);
	}
}

/* A model the store holds an SMR verdict and no sector verdict for (smr[@i], its first row). */
static void show_smr_only(const struct verdicts_cmd *c, const struct ap_vstore *s, size_t i,
			  struct json_object *arr)
{
	const struct ap_vstore_smr *x = &s->smr[i];
	char *raw = ap_vstore_key_name(x->vendor, x->model, x->revision);

	if (arr) {
		struct json_object *o = json_object_new_object(), *a = json_object_new_array();

		json_object_object_add(o, "vendor", ap_json_string(x->vendor));
		json_object_object_add(o, "model", ap_json_string(x->model));
		json_object_object_add(o, "revision", ap_json_string(x->revision));
		json_object_object_add(o, "verdicts", json_object_new_array());
		json_object_object_add(o, "name", json_object_new_string(raw));
		json_object_object_add(o, "store", json_object_new_string(c->layers[x->layer]));
		json_object_object_add(o, "entry", NULL);
		json_object_object_add(o, "conflict", json_object_new_boolean(false));
		show_smr(s, x->vendor, x->model, x->revision, a);
		json_object_object_add(o, "smr", a);
		json_object_array_add(arr, o);
	} else {
		char *name = ap_out_printable(raw), *store = ap_out_printable(c->layers[x->layer]);

		printf("Model: %s (an SMR verdict only)\n", name);
		printf("Store: %s\n", store);
		show_smr(s, x->vendor, x->model, x->revision, NULL);
		free(name);
		free(store);
	}
	free(raw);
}

static void show_text(const struct verdicts_cmd *c, const struct ap_vstore_model *m)
{
	char *raw = ap_vstore_model_name(m), *name = ap_out_printable(raw);
	char *vendor = ap_out_printable(m->vendor), *model = ap_out_printable(m->model);
	char *rev = ap_out_printable(m->revision), *store = ap_out_printable(c->layers[m->layer]);
	size_t k, i;

	printf("Model: %s (vendor %s, model %s, revision %s)\n", name, vendor ? vendor : "none",
	       model, rev ? rev : "none");
	printf("Store: %s, models[%zu]\n", store, m->index);
	free(raw);
	free(name);
	free(vendor);
	free(model);
	free(rev);
	free(store);
	if (ap_vstore_model_in_conflict(m))
		printf("State: conflict: check --verdicts uses none of the verdicts for one "
		       "logical sector size\n");
	for (k = 0; k < m->nverdicts; k++) {
		const struct ap_vstore_verdict *v = &m->verdicts[k];

		printf("Verdict models[%zu].verdicts[%zu]: %" PRIu64 "-byte physical sectors, "
		       "lowest aligned LBA %" PRIu64 ", %u-byte logical sectors, ", m->index, k,
		       v->physical_sector, v->lowest_aligned_lba, v->logical_sector);
		if (v->sensitive)
			printf("alignment matters\n");
		else if (v->absence_margin >= 1)
			printf("no effect of %.2fx or more\n", v->absence_margin);
		else
			printf("no effect (no margin recorded)\n");
		if (ap_levels_above_sector(&v->levels)) {
			char words[512] = "";

			ap_levels_words(&v->levels, "", words, sizeof(words));
			printf("  levels above the physical sector: %s\n", words);
		}
		for (i = 0; i < v->nexamples; i++)
			show_example(&v->examples[i]);
	}
}

static int do_show(struct verdicts_cmd *c)
{
	struct json_object *arr = json_object_new_array();
	struct ap_vstore s;
	size_t idx[MAX_MATCHES], sidx[MAX_MATCHES], i, k, n, ns, shown = 0;
	int rc;

	rc = check_action_args(c, true, true);
	if (!rc)
		rc = load_layers(c, &s);
	if (rc) {
		json_object_put(arr);
		return rc;
	}
	for (i = 0; i < c->nargs; i++) {
		n = ap_vstore_match(&s, c->args[i], idx, MAX_MATCHES);
		ns = ap_vstore_smr_match(&s, c->args[i], sidx, MAX_MATCHES);
		if (!n && !ns) {
			ap_warnx(CMD, c->args[i], "no such model in %s%s", c->layers[0],
				 c->nlayers > 1 ? " and the stores under it" : "");
			rc = AP_EXIT_USAGE;
		}
		for (k = 0; k < n; k++) {
			const struct ap_vstore_model *m = &s.models[idx[k]];

			if (c->out.json) {
				struct json_object *o = ap_vstore_model_to_json(m, c->layers[m->layer]);
				struct json_object *a = json_object_new_array();

				show_smr(&s, m->vendor, m->model, m->revision, a);
				json_object_object_add(o, "smr", a);
				json_object_array_add(arr, o);
			} else {
				if (shown++)
					putchar('\n');
				show_text(c, m);
				show_smr(&s, m->vendor, m->model, m->revision, NULL);
			}
		}
		for (k = 0; k < ns; k++) {
			if (!smr_only_first(&s, sidx[k]))
				continue;	/* shown with its model, or with its first row */
			if (!c->out.json && shown++)
				putchar('\n');
			show_smr_only(c, &s, sidx[k], c->out.json ? arr : NULL);
		}
	}
	if (c->out.json) {
		int prc = print_array("models", arr);

		arr = NULL;
		if (prc)
			rc = prc;
	}
	json_object_put(arr);
	ap_vstore_free(&s);
	return rc;
}

/* ---- merge ---- */

/* What the merge did: 0, or AP_EXIT_FAILURE when standard output failed. */
static int merge_report(const struct verdicts_cmd *c, const char *store,
			const struct ap_vstore_merge *m)
{
	const struct ap_vstore_merged *st = &m->st;
	size_t i, n = json_object_array_length(m->conflicts);

	for (i = 0; i < n; i++) {
		char *name = ap_out_printable(json_object_get_string(json_object_array_get_idx(m->conflicts, i)));

		ap_warnx(CMD, store, "the model %s has conflicting verdicts; check --verdicts uses "
			 "none of them (alignprobe verdicts show to see both sides)", name);
		free(name);
	}
	for (i = 0; !c->quiet && i < m->n; i++)
		if (m->src[i].skipped)
			ap_warnx(CMD, m->src[i].path, "%zu device%s without a verdict: skipped",
				 m->src[i].skipped, m->src[i].skipped == 1 ? "" : "s");
	if (c->out.json)
		return print_json(ap_vstore_merge_to_json(m, store));
	if (!c->quiet && !m->changed)
		printf("%s: unchanged\n", store);
	else if (!c->quiet)
		printf("%s: %zu model%s added, %zu verdict%s added to known models, %zu disk%s "
		       "added, %zu updated; %zu new conflict%s\n", store,
		       st->models_added, st->models_added == 1 ? "" : "s",
		       st->verdicts_added, st->verdicts_added == 1 ? "" : "s",
		       st->examples_added, st->examples_added == 1 ? "" : "s",
		       st->examples_updated, st->conflicts_added,
		       st->conflicts_added == 1 ? "" : "s");
	if (!c->quiet && (st->smr_added || st->smr_updated))
		printf("%s: %zu SMR verdict%s added, %zu updated\n", store, st->smr_added,
		       st->smr_added == 1 ? "" : "s", st->smr_updated);
	return 0;
}

static int do_merge(struct verdicts_cmd *c)
{
	const char *store = ap_vstore_path(c->store), *failed;
	struct ap_vstore_merge m;
	struct ap_error e = { 0 };
	bool bad;
	int rc;

	rc = check_action_args(c, false, true);
	if (rc)
		return rc;
	rc = ap_vstore_merge_run(&m, store, c->args, c->nargs, c->host, &failed, &bad, &e);
	if (rc && failed) {
		ap_warnx(CMD, failed, "%s", e.msg);
		rc = bad ? AP_EXIT_USAGE : ap_exit_for_errno(rc);
	} else if (rc) {
		ap_warnx(CMD, NULL, "%s", e.msg);
		rc = ap_exit_for_errno(rc);	/* the errno table's; a failed write is EIO: 1 */
	} else {
		rc = merge_report(c, store, &m);
	}
	ap_vstore_merge_free(&m);
	return rc;
}

/* ---- forget ---- */

static int do_forget(struct verdicts_cmd *c)
{
	const char *store = ap_vstore_path(c->store);
	struct {
		struct json_object *forgotten, *absent;
	} a;
	struct ap_error e = { 0 };
	bool changed = false;
	size_t i, n;
	int rc;

	rc = check_action_args(c, false, true);
	if (rc)
		return rc;
	a.forgotten = json_object_new_array();
	a.absent = json_object_new_array();
	if (ap_vstore_forget(store, c->args, c->nargs, a.forgotten, a.absent, &changed, &e) != 0) {
		ap_warnx(CMD, NULL, "%s", e.msg);
		rc = ap_exit_for_errno(e.code);	/* as merge's */
	}
	n = json_object_array_length(a.absent);
	for (i = 0; !rc && !c->quiet && i < n; i++)
		ap_warnx(CMD, json_object_get_string(json_object_array_get_idx(a.absent, i)),
			 "no such model in %s", store);
	if (!rc && c->out.json) {
		rc = print_json(ap_vstore_forgot_to_json(store, a.forgotten, a.absent, changed));
	} else if (!rc && !c->quiet) {
		n = json_object_array_length(a.forgotten);
		if (!changed)
			printf("%s: unchanged\n", store);
		for (i = 0; i < n; i++) {
			char *name = ap_out_printable(json_object_get_string(
						json_object_array_get_idx(a.forgotten, i)));

			printf("%s: forgot %s\n", store, name);
			free(name);
		}
	}
	json_object_put(a.forgotten);
	json_object_put(a.absent);
	return rc;
}

int ap_cmd_verdicts(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*run)(struct verdicts_cmd *c);
	} actions[] = {
		{ "list", do_list }, { "show", do_show }, { "merge", do_merge },
		{ "forget", do_forget },
	};
	struct verdicts_cmd c;
	size_t i;
	int rc;

	memset(&c, 0, sizeof(c));
	/* the action first, unless it is an option (--help, -H, ...) */
	if (argc > 1 && argv[1][0] != '-') {
		for (i = 0; i < AP_ARRAY_SIZE(actions); i++)
			if (strcmp(argv[1], actions[i].name) == 0)
				c.action = actions[i].name;
		if (!c.action) {
			ap_usage_error(CMD, "unknown action '%s' (list, show, merge or forget)",
				       argv[1]);
			return AP_EXIT_USAGE;
		}
		argv[1] = argv[0];
		argv++;
		argc--;
	}
	rc = parse_args(&c, argc, argv);
	if (rc)
		return rc < 0 ? AP_EXIT_OK : rc;	/* -1: --help, --version, -H */
	for (i = 0; i < AP_ARRAY_SIZE(actions); i++)
		if (strcmp(c.action, actions[i].name) == 0)
			rc = actions[i].run(&c);
	return ap_cmd_close_stdout(CMD, rc);
}
