// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * PostMark's configuration language: the settings, their defaults and
 * ranges, the command table (PostMark's order, then alignprobe's
 * extensions) and the parser of one line. Files (nested `load`, scripts)
 * are read in pm_load.c; `show` prints in pm_report.c.
 *
 * Differences from PostMark, all about input PostMark mishandles: lines of
 * any length, "\r\n" and a last line without "\n" are fine; a command must
 * be followed by a blank or the end of the line ("set sizes 5" is not
 * "set size"); numbers are strict (no junk, no silent clamping, min > max is
 * an error); blank lines and '#' comments are ignored instead of "Eh?";
 * everything else PostMark would ignore is an error with file:line; `!cmd`
 * shell escapes are refused (a configuration file must never run
 * programs, and the sweep reads these files as root).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "workload/pm.h"
#include "workload/pmP.h"
#include "workload/pm_sync.h"

/* ---- names ---- */

static const char *const data_names[AP_PM_DATA_COUNT] = {
	[AP_PM_DATA_PRINTABLE] = "printable",
	[AP_PM_DATA_ZEROS] = "zeros",
	[AP_PM_DATA_RANDOM] = "random",
};

static const char *const op_names[AP_PM_OP_COUNT] = {
	[AP_PM_OP_CREATE] = "create",
	[AP_PM_OP_READ] = "read",
	[AP_PM_OP_APPEND] = "append",
	[AP_PM_OP_DELETE] = "delete",
	[AP_PM_OP_SYNC] = "sync",
};

static const char *const phase_names[AP_PM_PHASE_COUNT] = {
	[AP_PM_PHASE_CREATE] = "creation",
	[AP_PM_PHASE_TRANSACTIONS] = "transactions",
	[AP_PM_PHASE_DELETE] = "deletion",
};

/* @names[@i] of a table of @n, or "?" */
static const char *name_of(const char *const *names, unsigned n, unsigned i)
{
	return i < n ? names[i] : "?";
}

/* The index of @s in a table of @n names, or -EINVAL. */
static int index_of(const char *const *names, unsigned n, const char *s)
{
	unsigned i;

	for (i = 0; s && i < n; i++)
		if (!strcmp(s, names[i]))
			return (int)i;
	return -EINVAL;
}

/* a sync policy's name is its ops' (pm_sync.c) */
const char *ap_pm_sync_name(enum ap_pm_sync s)
{
	const struct ap_pm_sync_ops *ops = ap_pm_sync_ops(s);

	return ops ? ops->name : "?";
}

const char *ap_pm_data_name(enum ap_pm_data d)
{
	return name_of(data_names, AP_PM_DATA_COUNT, d);
}

const char *ap_pm_op_name(enum ap_pm_op op)
{
	return name_of(op_names, AP_PM_OP_COUNT, op);
}

const char *ap_pm_phase_name(enum ap_pm_phase ph)
{
	return name_of(phase_names, AP_PM_PHASE_COUNT, ph);
}

char *ap_pm_sync_list(const char *sep)
{
	char *list = ap_xstrdup(""), *next;
	unsigned i;

	for (i = 0; i < AP_PM_SYNC_COUNT; i++) {
		ap_xasprintf(&next, "%s%s%s", list, i ? sep : "", ap_pm_sync_name((enum ap_pm_sync)i));
		free(list);
		list = next;
	}
	return list;
}

int ap_pm_sync_parse(const char *s, enum ap_pm_sync *out)
{
	unsigned i;

	for (i = 0; s && i < AP_PM_SYNC_COUNT; i++)
		if (!strcmp(s, ap_pm_sync_ops((enum ap_pm_sync)i)->name)) {
			*out = (enum ap_pm_sync)i;
			return 0;
		}
	return -EINVAL;
}

int ap_pm_data_parse(const char *s, enum ap_pm_data *out)
{
	int i = index_of(data_names, AP_PM_DATA_COUNT, s);

	if (i >= 0)
		*out = (enum ap_pm_data)i;
	return i < 0 ? i : 0;
}

/* ---- the configuration object ---- */

void ap_pm_config_init(struct ap_pm_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->size_lo = AP_PM_DEFAULT_SIZE_LO;
	cfg->size_hi = AP_PM_DEFAULT_SIZE_HI;
	cfg->number = AP_PM_DEFAULT_NUMBER;
	cfg->seed = AP_PM_DEFAULT_SEED;
	cfg->transactions = AP_PM_DEFAULT_TRANSACTIONS;
	cfg->read_block = AP_PM_DEFAULT_BLOCK;
	cfg->write_block = AP_PM_DEFAULT_BLOCK;
	cfg->buffering = true;
	cfg->bias_read = AP_PM_DEFAULT_BIAS;
	cfg->bias_create = AP_PM_DEFAULT_BIAS;
	cfg->report = AP_PM_REPORT_VERBOSE;
	cfg->sync = AP_PM_SYNC_NONE;
	cfg->data = AP_PM_DATA_PRINTABLE;
}

static void locations_clear(struct ap_pm_config *cfg)
{
	size_t i;

	for (i = 0; i < cfg->nlocations; i++)
		free(cfg->locations[i].path);
	free(cfg->locations);
	cfg->locations = NULL;
	cfg->nlocations = 0;
}

void ap_pm_config_free(struct ap_pm_config *cfg)
{
	if (cfg)
		locations_clear(cfg);
}

void ap_pm_config_copy(struct ap_pm_config *dst, const struct ap_pm_config *src)
{
	size_t i;

	*dst = *src;
	dst->locations = NULL;
	if (src->nlocations) {
		dst->locations = ap_xcalloc(src->nlocations, sizeof(*dst->locations));
		for (i = 0; i < src->nlocations; i++) {
			dst->locations[i].path = ap_xstrdup(src->locations[i].path);
			dst->locations[i].weight = src->locations[i].weight;
		}
	}
}

/* A writable, searchable directory: 0 or -errno with a message. */
static int check_dir(const char *dir, struct ap_error *e)
{
	struct stat st;

	if (!*dir)
		return ap_error_set(e, EINVAL, "empty location");
	if (stat(dir, &st) < 0)
		return ap_error_set(e, errno, "location '%s': %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return ap_error_set(e, ENOTDIR, "location '%s': %s", dir, strerror(ENOTDIR));
	if (access(dir, W_OK | X_OK) < 0)
		return ap_error_set(e, errno, "location '%s' is not writable: %s",
				    dir, strerror(errno));
	return 0;
}

static void location_push(struct ap_pm_config *cfg, const char *dir, unsigned weight)
{
	cfg->locations = ap_xreallocarray(cfg->locations, cfg->nlocations + 1,
					  sizeof(*cfg->locations));
	cfg->locations[cfg->nlocations].path = ap_xstrdup(dir);
	cfg->locations[cfg->nlocations].weight = weight;
	cfg->nlocations++;
}

int ap_pm_config_add_location(struct ap_pm_config *cfg, const char *dir,
			      unsigned weight, struct ap_error *e)
{
	int rc;

	if (weight < 1 || weight > AP_PM_MAX_WEIGHT)
		return ap_error_set(e, ERANGE, "location '%s': weight %u out of range 1..%u",
				    dir, weight, AP_PM_MAX_WEIGHT);
	rc = check_dir(dir, e);
	if (rc)
		return rc;
	location_push(cfg, dir, weight);
	return 0;
}

int ap_pm_config_set_location(struct ap_pm_config *cfg, const char *dir,
			      struct ap_error *e)
{
	int rc = check_dir(dir, e);

	if (rc)
		return rc;
	locations_clear(cfg);
	location_push(cfg, dir, 1);
	return 0;
}

int ap_pm_config_validate(const struct ap_pm_config *cfg, struct ap_error *e)
{
	uint64_t weight = 0, dirs;
	size_t i;
	int rc;

	if (cfg->size_lo < 1 || cfg->size_hi > AP_PM_MAX_SIZE)
		return ap_error_set(e, ERANGE, "file sizes must lie within 1..%llu",
				    (unsigned long long)AP_PM_MAX_SIZE);
	if (cfg->size_lo > cfg->size_hi)
		return ap_error_set(e, EINVAL, "minimum file size %" PRIu64
				    " is larger than the maximum %" PRIu64,
				    cfg->size_lo, cfg->size_hi);
	if (cfg->number < 1 || cfg->number > AP_PM_MAX_NUMBER)
		return ap_error_set(e, ERANGE, "number of files %" PRIu64
				    " out of range 1..%llu", cfg->number,
				    (unsigned long long)AP_PM_MAX_NUMBER);
	if (cfg->seed < 1 || cfg->seed > UINT32_MAX)
		return ap_error_set(e, ERANGE, "seed %" PRIu64 " out of range 1..%u",
				    cfg->seed, UINT32_MAX);
	if (cfg->transactions < 1)
		return ap_error_set(e, ERANGE, "number of transactions must be at least 1");
	if (cfg->subdirectories > AP_PM_MAX_SUBDIRS)
		return ap_error_set(e, ERANGE, "subdirectories %" PRIu64 " out of range 0..%llu",
				    cfg->subdirectories,
				    (unsigned long long)AP_PM_MAX_SUBDIRS);
	if (cfg->read_block < 1 || cfg->read_block > AP_PM_MAX_SIZE ||
	    cfg->write_block < 1 || cfg->write_block > AP_PM_MAX_SIZE)
		return ap_error_set(e, ERANGE, "block sizes must lie within 1..%llu",
				    (unsigned long long)AP_PM_MAX_SIZE);
	if (cfg->bias_read < -1 || cfg->bias_read > 10 ||
	    cfg->bias_create < -1 || cfg->bias_create > 10)
		return ap_error_set(e, ERANGE, "biases must lie within -1..10");
	if ((unsigned)cfg->sync >= AP_PM_SYNC_COUNT || (unsigned)cfg->data >= AP_PM_DATA_COUNT)
		return ap_error_set(e, EINVAL, "invalid sync policy or data source");
	for (i = 0; i < cfg->nlocations; i++) {
		if (cfg->locations[i].weight < 1 ||
		    cfg->locations[i].weight > AP_PM_MAX_WEIGHT)
			return ap_error_set(e, ERANGE, "location '%s': weight %u out of range 1..%u",
					    cfg->locations[i].path, cfg->locations[i].weight,
					    AP_PM_MAX_WEIGHT);
		weight += cfg->locations[i].weight;
		rc = check_dir(cfg->locations[i].path, e);
		if (rc)
			return rc;
	}
	if (!cfg->nlocations) {
		rc = check_dir(".", e);
		if (rc)
			return rc;
	}
	if (weight > UINT32_MAX)
		return ap_error_set(e, ERANGE, "total location weight too large");
	dirs = (cfg->nlocations ? cfg->nlocations : 1) *
	       (cfg->subdirectories > 1 ? cfg->subdirectories : 1);
	if (dirs > UINT32_MAX)
		return ap_error_set(e, ERANGE, "too many locations times subdirectories");
	if (cfg->drop_caches && access("/proc/sys/vm/drop_caches", W_OK) < 0)
		return ap_error_set(e, errno, "dropping caches needs write access to "
				    "/proc/sys/vm/drop_caches (root): %s", strerror(errno));
	return 0;
}

/* ---- parsing ---- */

struct perr {
	struct ap_error *e;
	const char *file;
	unsigned lineno;
};

static int __attribute__((format(printf, 5, 0)))
verror_at(struct ap_error *e, const char *file, unsigned lineno, int code,
	  const char *fmt, va_list ap)
{
	char msg[400];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (file)
		return ap_error_set(e, code, "%s:%u: %s", file, lineno, msg);
	if (lineno)
		return ap_error_set(e, code, "line %u: %s", lineno, msg);
	return ap_error_set(e, code, "%s", msg);
}

int ap_pm_error_at(struct ap_error *e, const char *file, unsigned lineno, int code,
		   const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = verror_at(e, file, lineno, code, fmt, ap);
	va_end(ap);
	return rc;
}

static int __attribute__((format(printf, 3, 4)))
perr(const struct perr *p, int code, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = verror_at(p->e, p->file, p->lineno, code, fmt, ap);
	va_end(ap);
	return rc;
}

/* Wrap an ap_error produced by a helper into "file:line: msg". */
static int perr_wrap(const struct perr *p, int rc)
{
	char msg[sizeof(p->e->msg)];

	if (!p->e)
		return rc;
	memcpy(msg, p->e->msg, sizeof(msg));
	return perr(p, -rc, "%s", msg);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Split @s (modified) into at most @max blank-separated tokens. */
static size_t split(char *s, char **tok, size_t max)
{
	size_t n = 0;

	while (*s) {
		while (is_blank(*s))
			*s++ = '\0';
		if (!*s)
			break;
		if (n == max)
			return max + 1;
		tok[n++] = s;
		while (*s && !is_blank(*s))
			s++;
	}
	return n;
}

static int num_u64(const struct perr *p, const char *what, const char *s,
		   uint64_t lo, uint64_t hi, bool sizes, uint64_t *out)
{
	uint64_t v;
	int rc;

	rc = sizes ? ap_parse_size(s, &v) : ap_parse_u64(s, &v);
	if (rc == -ERANGE || (!rc && (v < lo || v > hi)))
		return perr(p, ERANGE, "%s '%s' out of range %" PRIu64 "..%" PRIu64,
			    what, s, lo, hi);
	if (rc)
		return perr(p, EINVAL, "invalid %s '%s'", what, s);
	*out = v;
	return 0;
}

static int one_arg(const struct perr *p, const char *cmd, char *arg, char **out)
{
	char *tok[2];
	size_t n;

	if (!arg)
		return perr(p, EINVAL, "'%s' needs a value", cmd);
	n = split(arg, tok, 1);
	if (n != 1)
		return perr(p, EINVAL, "'%s' takes one value", cmd);
	*out = tok[0];
	return 0;
}

static int set_u64(struct ap_pm_config *cfg, const struct perr *p, const char *cmd,
		   char *arg, const char *what, uint64_t lo, uint64_t hi, bool sizes,
		   uint64_t *field)
{
	char *v;
	int rc = one_arg(p, cmd, arg, &v);

	(void)cfg;
	if (rc)
		return rc;
	return num_u64(p, what, v, lo, hi, sizes, field);
}

static int set_size(struct ap_pm_config *cfg, const struct perr *p, char *arg)
{
	char *tok[2];
	uint64_t lo, hi;
	size_t n;
	int rc;

	n = arg ? split(arg, tok, 2) : 0;
	if (n < 1 || n > 2)
		return perr(p, EINVAL, "'set size' needs LOW [HIGH]");
	rc = num_u64(p, "file size", tok[0], 1, AP_PM_MAX_SIZE, true, &lo);
	if (rc)
		return rc;
	hi = lo;
	if (n == 2) {
		rc = num_u64(p, "file size", tok[1], 1, AP_PM_MAX_SIZE, true, &hi);
		if (rc)
			return rc;
		if (hi < lo)
			return perr(p, EINVAL, "minimum file size %" PRIu64
				    " is larger than the maximum %" PRIu64, lo, hi);
	}
	cfg->size_lo = lo;
	cfg->size_hi = hi;
	return 0;
}

static int set_number(struct ap_pm_config *cfg, const struct perr *p, char *arg)
{
	return set_u64(cfg, p, "set number", arg, "number of files", 1,
		       AP_PM_MAX_NUMBER, false, &cfg->number);
}

static int set_seed(struct ap_pm_config *cfg, const struct perr *p, char *arg)
{
	return set_u64(cfg, p, "set seed", arg, "seed", 1, UINT32_MAX, false, &cfg->seed);
}

static int set_transactions(struct ap_pm_config *cfg, const struct perr *p, char *arg)
{
	return set_u64(cfg, p, "set transactions", arg, "number of transactions", 1,
		       UINT64_MAX / 2, false, &cfg->transactions);
}

static int set_subdirs(struct ap_pm_config *cfg, const struct perr *p, char *arg)
{
	return set_u64(cfg, p, "set subdirectories", arg, "number of subdirectories", 0,
		       AP_PM_MAX_SUBDIRS, false, &cfg->subdirectories);
}

static int set_block(const struct perr *p, const char *cmd, char *arg, size_t *field)
{
	uint64_t v;
	char *s;
	int rc = one_arg(p, cmd, arg, &s);

	if (rc)
		return rc;
	rc = num_u64(p, "block size", s, 1, AP_PM_MAX_SIZE, true, &v);
	if (rc)
		return rc;
	*field = (size_t)v;
	return 0;
}

static int set_read(struct ap_pm_config *cfg, const struct perr *p, char *arg)
{
	return set_block(p, "set read", arg, &cfg->read_block);
}

static int set_write(struct ap_pm_config *cfg, const struct perr *p, char *arg)
{
	return set_block(p, "set write", arg, &cfg->write_block);
}

static int set_bool(const struct perr *p, const char *cmd, char *arg, bool *field)
{
	char *s;
	int rc = one_arg(p, cmd, arg, &s);

	if (rc)
		return rc;
	if (!strcmp(s, "true"))
		*field = true;
	else if (!strcmp(s, "false"))
		*field = false;
	else
		return perr(p, EINVAL, "'%s' needs 'true' or 'false', not '%s'", cmd, s);
	return 0;
}

static int set_buffering(struct ap_pm_config *cfg, const struct perr *p, char *arg)
{
	return set_bool(p, "set buffering", arg, &cfg->buffering);
}

static int set_bias(const struct perr *p, const char *cmd, char *arg, int *field)
{
	int64_t v;
	char *s;
	int rc = one_arg(p, cmd, arg, &s);

	if (rc)
		return rc;
	rc = ap_parse_s64(s, &v);
	if (rc == -EINVAL)
		return perr(p, EINVAL, "invalid bias '%s' (0..10, or -1 to disable)", s);
	if (rc || v < -1 || v > 10)
		return perr(p, ERANGE, "bias '%s' out of range -1..10", s);
	*field = (int)v;
	return 0;
}

static int set_bias_read(struct ap_pm_config *cfg, const struct perr *p, char *arg)
{
	return set_bias(p, "set bias read", arg, &cfg->bias_read);
}

static int set_bias_create(struct ap_pm_config *cfg, const struct perr *p, char *arg)
{
	return set_bias(p, "set bias create", arg, &cfg->bias_create);
}

static int set_report(struct ap_pm_config *cfg, const struct perr *p, char *arg)
{
	char *s;
	int rc = one_arg(p, "set report", arg, &s);

	if (rc)
		return rc;
	if (!strcmp(s, "verbose"))
		cfg->report = AP_PM_REPORT_VERBOSE;
	else if (!strcmp(s, "terse"))
		cfg->report = AP_PM_REPORT_TERSE;
	else
		return perr(p, EINVAL, "'set report' needs 'verbose' or 'terse', not '%s'", s);
	return 0;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * PostMark: `set location DIR [WEIGHT]` replaces the list, `+DIR [WEIGHT]`
 * adds, `-DIR` removes; the weight is the token after the last blank. Here
 * a directory name may contain blanks: "a b 2" is "a b" with weight 2 when
 * "a b" is a directory, else "a b 2" with weight 1 when that one is.
 */
static int set_location(struct ap_pm_config *cfg, const struct perr *p, char *arg)
{
	char *dir, *last = NULL, *q;
	uint64_t w = 1;
	char mode;
	size_t i;
	int rc;

	if (!arg)
		return perr(p, EINVAL, "'set location' needs a directory");
	mode = *arg;
	dir = (mode == '+' || mode == '-') ? arg + 1 : arg;
	while (is_blank(*dir))
		dir++;
	if (!*dir)
		return perr(p, EINVAL, "'set location' needs a directory");

	if (mode == '-') {
		for (i = 0; i < cfg->nlocations; i++) {
			if (!strcmp(cfg->locations[i].path, dir))
				break;
		}
		if (i == cfg->nlocations)
			return perr(p, ENOENT, "location '%s' is not in the list", dir);
		free(cfg->locations[i].path);
		memmove(&cfg->locations[i], &cfg->locations[i + 1],
			(cfg->nlocations - i - 1) * sizeof(*cfg->locations));
		cfg->nlocations--;
		if (!cfg->nlocations) {
			free(cfg->locations);
			cfg->locations = NULL;
		}
		return 0;
	}

	for (q = dir; *q; q++) {
		if (is_blank(*q))
			last = q;
	}
	if (last) {
		const char *wtok = last + 1;
		bool numeric = ap_parse_u64(wtok, &w) == 0;
		bool whole_dir = is_dir(dir);
		char *end = last, save;

		while (end > dir && is_blank(end[-1]))
			end--;
		save = *end;
		*end = '\0';			/* dir is now the part before the weight */
		if (numeric && (is_dir(dir) || !whole_dir)) {
			/* "DIR WEIGHT"; a missing DIR is reported below */
			if (w < 1 || w > AP_PM_MAX_WEIGHT)
				return perr(p, ERANGE, "location '%s': weight %s out of range 1..%u",
					    dir, wtok, AP_PM_MAX_WEIGHT);
		} else {
			*end = save;		/* the whole argument is the name */
			w = 1;
			if (!whole_dir)
				return perr(p, ENOENT, "location '%s' is not a directory "
					    "(and '%s' is not a weight)", dir, wtok);
		}
	}
	rc = check_dir(dir, p->e);
	if (rc)
		return perr_wrap(p, rc);
	if (mode != '+')
		locations_clear(cfg);
	location_push(cfg, dir, (unsigned)w);
	return 0;
}

static int set_sync(struct ap_pm_config *cfg, const struct perr *p, char *arg)
{
	char *s;
	int rc = one_arg(p, "set sync", arg, &s);

	if (rc)
		return rc;
	if (ap_pm_sync_parse(s, &cfg->sync)) {
		char *names = ap_pm_sync_list(", ");

		rc = perr(p, EINVAL, "unknown sync policy '%s' (%s)", s, names);
		free(names);
	}
	return rc;
}

static int set_data(struct ap_pm_config *cfg, const struct perr *p, char *arg)
{
	char *s;
	int rc = one_arg(p, "set data", arg, &s);

	if (rc)
		return rc;
	if (ap_pm_data_parse(s, &cfg->data))
		return perr(p, EINVAL, "unknown data source '%s' (printable, zeros, random)", s);
	return 0;
}

static int set_dropcaches(struct ap_pm_config *cfg, const struct perr *p, char *arg)
{
	return set_bool(p, "set dropcaches", arg, &cfg->drop_caches);
}

struct pm_command {
	const char *name;
	enum ap_pm_cmd cmd;
	int (*set)(struct ap_pm_config *cfg, const struct perr *p, char *arg);
	const char *help;
};

/* PostMark's table, in its order, then the extensions. */
static const struct pm_command commands[] = {
	{ "set size", AP_PM_CMD_SET, set_size, "Sets low and high bounds of files" },
	{ "set number", AP_PM_CMD_SET, set_number, "Sets number of simultaneous files" },
	{ "set seed", AP_PM_CMD_SET, set_seed, "Sets seed for random number generator" },
	{ "set transactions", AP_PM_CMD_SET, set_transactions, "Sets number of transactions" },
	{ "set location", AP_PM_CMD_SET, set_location, "Sets location of working files" },
	{ "set subdirectories", AP_PM_CMD_SET, set_subdirs, "Sets number of subdirectories" },
	{ "set read", AP_PM_CMD_SET, set_read, "Sets read block size" },
	{ "set write", AP_PM_CMD_SET, set_write, "Sets write block size" },
	{ "set buffering", AP_PM_CMD_SET, set_buffering, "Sets usage of buffered I/O" },
	{ "set bias read", AP_PM_CMD_SET, set_bias_read,
	  "Sets the chance of choosing read over append" },
	{ "set bias create", AP_PM_CMD_SET, set_bias_create,
	  "Sets the chance of choosing create over delete" },
	{ "set report", AP_PM_CMD_SET, set_report, "Choose verbose or terse report format" },
	{ "run", AP_PM_CMD_RUN, NULL, "Runs one iteration of benchmark" },
	{ "load", AP_PM_CMD_LOAD, NULL, "Read configuration file" },
	{ "show", AP_PM_CMD_SHOW, NULL, "Displays current configuration" },
	{ "help", AP_PM_CMD_HELP, NULL, "Prints out available commands" },
	{ "quit", AP_PM_CMD_QUIT, NULL, "Exit program" },
	/* alignprobe's extensions */
	{ "set sync", AP_PM_CMD_SET, set_sync,
	  "Sync policy for file writes:" },	/* the policies follow (ap_pm_help()) */
	{ "set data", AP_PM_CMD_SET, set_data, "File contents: printable zeros random" },
	{ "set dropcaches", AP_PM_CMD_SET, set_dropcaches,
	  "Drop the page cache before each phase (true/false, root)" },
};

/* Trim blanks at both ends in place; NULL when nothing is left. */
static char *trim(char *s)
{
	char *end;

	while (is_blank(*s))
		s++;
	end = s + strlen(s);
	while (end > s && is_blank(end[-1]))
		end--;
	*end = '\0';
	return *s ? s : NULL;
}

int ap_pm_config_line(struct ap_pm_config *cfg, const char *line,
		      const char *file, unsigned lineno,
		      struct ap_pm_line *out, struct ap_error *e)
{
	struct perr p = { .e = e, .file = file, .lineno = lineno };
	const struct pm_command *c = NULL;
	struct ap_pm_config tmp;
	size_t len, i;
	char *buf, *arg, *s;
	int rc = 0;

	out->cmd = AP_PM_CMD_NONE;
	out->arg = NULL;

	buf = ap_xstrdup(line);
	len = strlen(buf);
	if (len && buf[len - 1] == '\n')
		buf[--len] = '\0';
	if (len && buf[len - 1] == '\r')
		buf[--len] = '\0';
	if (strchr(buf, '\r') || strchr(buf, '\n')) {
		rc = perr(&p, EINVAL, "stray carriage return or newline in the line");
		goto out;
	}

	for (s = buf; is_blank(*s); s++)
		;
	if (!*s || *s == '#')
		goto out;			/* blank or comment */
	if (s != buf) {
		rc = perr(&p, EINVAL, "unknown command '%s' (leading blanks: PostMark "
			  "would ignore this line)", buf);
		goto out;
	}
	if (*buf == '!') {
		rc = perr(&p, EINVAL, "shell escapes ('%s') are not supported: a "
			  "configuration must not run programs", buf);
		goto out;
	}

	for (i = 0; i < AP_ARRAY_SIZE(commands); i++) {
		len = strlen(commands[i].name);
		if (!strncmp(buf, commands[i].name, len) &&
		    (buf[len] == '\0' || is_blank(buf[len]))) {
			c = &commands[i];
			break;
		}
	}
	if (!c) {
		rc = perr(&p, EINVAL, "unknown command '%s'", buf);
		goto out;
	}
	arg = trim(buf + len);

	if (c->set) {
		/* apply to a copy so that @cfg is unchanged on error */
		ap_pm_config_copy(&tmp, cfg);
		rc = c->set(&tmp, &p, arg);
		if (rc) {
			ap_pm_config_free(&tmp);
			goto out;
		}
		ap_pm_config_free(cfg);
		*cfg = tmp;
		out->cmd = AP_PM_CMD_SET;
		goto out;
	}

	switch (c->cmd) {
	case AP_PM_CMD_LOAD:
		if (!arg) {
			rc = perr(&p, EINVAL, "'load' needs a file name");
			goto out;
		}
		break;
	case AP_PM_CMD_QUIT:
		if (arg) {
			rc = perr(&p, EINVAL, "'quit' takes no argument");
			goto out;
		}
		break;
	default:
		break;
	}
	out->cmd = c->cmd;
	out->arg = arg ? ap_xstrdup(arg) : NULL;
out:
	free(buf);
	return rc;
}

/* One command's help line; set sync's lists the policies of their table. */
static void help_line(FILE *f, size_t i)
{
	char *syncs = commands[i].set == set_sync ? ap_pm_sync_list(" ") : NULL;

	fprintf(f, "%s - %s%s%s\n", commands[i].name, commands[i].help, syncs ? " " : "",
		syncs ? syncs : "");
	free(syncs);
}

int ap_pm_help(FILE *f, const char *topic)
{
	size_t i, n = 0, len = topic ? strlen(topic) : 0;

	for (i = 0; len && i < AP_ARRAY_SIZE(commands); i++) {
		if (!strncmp(commands[i].name, topic, len)) {
			help_line(f, i);
			n++;
		}
	}
	for (i = 0; !n && i < AP_ARRAY_SIZE(commands); i++)
		help_line(f, i);
	return ferror(f) ? -EIO : 0;
}
