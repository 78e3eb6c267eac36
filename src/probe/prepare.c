// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The probe's checks before anything is written, the order of a device's
 * preparation and the write caches switched around the run, and what a
 * plan costs (see prepare.h).
 */
#include "probe/prepare.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/state.h"
#include "probe/journal.h"
#include "probe/threads.h"

static const char *dev_base(const char *dev)
{
	const char *s = strrchr(dev, '/');

	return s ? s + 1 : dev;
}

int ap_probe_opts_check(const struct ap_probe_opts *o, struct ap_error *e)
{
	if (!ap_is_power_of_2(o->min_size) || o->min_size > o->max_size || o->min_size < 512)
		return ap_error_set(e, EINVAL, "--min-size must be a power of two from 512 bytes, "
				    "at most --max-size");
	if (o->max_size > AP_PROBE_MAX_SIZE_LIMIT)
		return ap_error_set(e, EINVAL, "--max-size %llu: at most 64 MiB",
				    (unsigned long long)o->max_size);
	if (o->max_size % 512)
		return ap_error_set(e, EINVAL, "--max-size %llu: not a multiple of the logical "
				    "sector (512 bytes at least)", (unsigned long long)o->max_size);
	if (o->min_rounds > o->max_rounds)
		return ap_error_set(e, EINVAL, "--min-rounds is larger than --max-rounds");
	return 0;
}

char *ap_probe_journal_path(const char *journal, bool several, const char *dev)
{
	const char *dir = getenv("ALIGNPROBE_JOURNAL_DIR");
	char *p;

	if (journal) {
		if (!several)
			return ap_xstrdup(journal);
		ap_xasprintf(&p, "%s.%s", journal, dev_base(dev));
		return p;
	}
	ap_xasprintf(&p, "%s/alignprobe-undo-%s-%d.journal", dir && *dir ? dir : "/var/tmp",
		     dev_base(dev), (int)getpid());
	return p;
}

char *ap_probe_plot_path(const char *plot, const char *dev, bool several)
{
	const char *dot, *slash;
	char *p;

	if (!several || strcmp(plot, "-") == 0)
		return ap_xstrdup(plot);
	dot = strrchr(plot, '.');
	slash = strrchr(plot, '/');
	if (!dot || (slash && dot < slash))
		ap_xasprintf(&p, "%s-%s", plot, dev_base(dev));
	else
		ap_xasprintf(&p, "%.*s-%s%s", (int)(dot - plot), plot, dev_base(dev), dot);
	return p;
}

/* What stands at @path where a new journal should be created: -errno with @e. */
static int journal_exists(const char *dev, const char *journal, const struct stat *st,
			  struct ap_error *e)
{
	if (S_ISDIR(st->st_mode))
		return ap_error_set(e, EISDIR, "%s: is a directory: --journal names the undo "
				    "journal to create (e.g. %s/undo.journal)", journal, journal);
	if (!S_ISREG(st->st_mode))
		return ap_error_set(e, EEXIST, "%s: exists and is not a regular file (a %s): "
				    "--journal names a new file to create", journal,
				    S_ISBLK(st->st_mode) ? "block device" :
				    S_ISCHR(st->st_mode) ? "character device" :
				    S_ISLNK(st->st_mode) ? "symbolic link" : "special file");
	if (ap_journal_probe(journal) == 0)
		return ap_error_set(e, EEXIST, "%s: the undo journal %s already exists (a killed "
				    "probe's? restore with --undo, or choose another --journal)",
				    dev, journal);
	return ap_error_set(e, EEXIST, "%s: exists and is not an undo journal: --journal "
			    "names a new file to create", journal);
}

int ap_probe_journal_usable(const char *dev, const char *journal, const struct ap_probe_plan *plan,
			    const struct ap_disk_identity *id, struct ap_error *e)
{
	struct ap_journal_plan jp;

	ap_probe_journal_plan(plan, false, &jp);
	return ap_journal_usable(dev, journal, &jp, id, e);
}

int ap_journal_usable(const char *dev, const char *journal, const struct ap_journal_plan *jp,
		      const struct ap_disk_identity *id, struct ap_error *e)
{
	uint64_t need, avail;
	struct stat st;
	char b1[32], b2[32], b3[32];
	int rc;

	need = ap_journal_bytes(jp, id);
	if (lstat(journal, &st) == 0)
		return journal_exists(dev, journal, &st, e);
	rc = ap_free_bytes_of_dir(journal, &avail);
	if (rc)
		return ap_error_set(e, -rc, "%s: cannot examine its file system: %s", journal,
				    strerror(-rc));
	if (avail < need)
		return ap_error_set(e, ENOSPC, "%s: the undo journal needs %s (%u records of %s), "
				    "its file system has %s free; choose another --journal",
				    journal, ap_size_exact(need, b1, sizeof(b1)), (unsigned)jp->slots,
				    ap_size_exact(jp->span, b2, sizeof(b2)),
				    ap_size_exact(avail, b3, sizeof(b3)));
	return 0;
}

int ap_probe_journal_check(const char *dev, const char *journal, const struct ap_probe_plan *plan,
			   const struct ap_disk_identity *id, struct ap_error *e)
{
	struct ap_journal_plan jp;

	ap_probe_journal_plan(plan, false, &jp);
	return ap_journal_check(dev, journal, &jp, id, e);
}

int ap_journal_check(const char *dev, const char *journal, const struct ap_journal_plan *jp,
		     const struct ap_disk_identity *id, struct ap_error *e)
{
	int rc = ap_journal_usable(dev, journal, jp, id, e), on;

	if (rc)
		return rc;
	/* the run registers its journal there before it writes: a dry run too checks */
	if (access(ap_state_dir(), W_OK | X_OK) != 0) {
		int err = errno;

		return ap_error_set(e, err, "%s: cannot register the undo journal in the run "
				    "registry: %s", ap_state_dir(), strerror(err));
	}
	on = ap_probe_path_on_device(journal, dev);
	if (on < 0)
		return ap_error_set(e, EINVAL, "%s: cannot use the journal %s: %s", dev, journal,
				    strerror(-on));
	if (on)
		return ap_error_set(e, EPERM, "%s: the undo journal %s would live on the device "
				    "itself; choose another --journal", dev, journal);
	return 0;
}

int ap_probe_slots_check(const struct ap_probe_plan *plan, unsigned asked, const char *dev,
			 struct ap_error *e)
{
	char b1[32];

	if (plan->slots >= asked)
		return 0;
	return ap_error_set(e, EINVAL, "%s: --slots %u: the scratch region (%s from byte %llu) "
			    "holds at most %u slots; use 1..%u", dev, asked,
			    ap_size_exact(plan->region_size, b1, sizeof(b1)),
			    (unsigned long long)plan->region_start, plan->slots, plan->slots);
}

int ap_probe_plan_ahead(const struct ap_probe_opts *o, uint64_t capacity, unsigned logical,
			const char *what, const char *journal, struct ap_probe_plan *plan,
			struct ap_error *e)
{
	struct ap_disk_identity id = { .size = capacity, .logical_sector = logical };
	struct ap_error pe = { 0 };
	int rc = ap_probe_plan(o, capacity, logical, plan, &pe);

	if (rc)
		return ap_error_set(e, -rc, "%s: %s", what, pe.msg);
	plan->reported_physical = logical;
	if (o->mode != AP_PROBE_PRESERVE)
		return 0;
	return ap_probe_journal_usable(what, journal, plan, &id, e);
}

void ap_probe_plan_counts(const struct ap_probe_plan *p, const struct ap_probe_opts *o,
			  uint64_t *lo, uint64_t *hi, uint64_t *honest)
{
	unsigned nominal = o->confirm && p->nsizes > 1 ? 2 : 1;
	size_t i;

	*lo = *hi = 0;
	for (i = 0; i < p->nsizes; i++) {
		unsigned n = ap_probe_noffsets(p, p->sizes[i]);

		if (i < nominal)
			*lo += (uint64_t)n * o->min_rounds;
		*hi += (uint64_t)n * o->max_rounds;
	}
	/* an honest drive: the smallest size, then the phase screen (or every size) */
	*honest = (uint64_t)ap_probe_noffsets(p, p->sizes[0]) * o->min_rounds;
	if (p->nsizes >= 3 && o->mode != AP_PROBE_READONLY)
		*honest += p->sizes[p->nsizes - 1] / p->logical_sector * o->min_rounds;
	else
		for (i = 1; i < p->nsizes; i++)
			*honest += (uint64_t)ap_probe_noffsets(p, p->sizes[i]) * o->min_rounds;
}

/* The steps of ap_probe_prepare() after the identity: the plan and what it needs. */
static int prepare_plan(struct ap_probe_prep *p, const char *dev,
			const struct ap_probe_prep_opts *po, struct ap_error *e)
{
	int rc;

	p->about = dev;
	p->o.one_disk = ap_identity_one_disk(&p->d.id);
	rc = ap_probe_plan(&p->o, p->d.size, p->d.logical_sector, &p->plan, e);
	if (rc)
		return rc;
	if (po->wcache_off) {
		rc = ap_cachectl_find_dev(&p->wc, dev, po->hooks.cache_model, e);
		if (rc < 0)
			return rc;
		p->wc_found = true;
	}
	/* the plan fits what the region holds: never fewer slots than asked, silently */
	p->about = NULL;	/* the messages name the device, or the journal */
	if (po->slots && (rc = ap_probe_slots_check(&p->plan, po->slots, dev, e)) != 0)
		return rc;
	if (p->o.mode == AP_PROBE_PRESERVE) {
		p->journal = ap_probe_journal_path(po->journal, po->several, dev);
		p->o.journal = p->journal;
		return ap_probe_journal_check(dev, p->journal, &p->plan, &p->d.id, e);
	}
	return 0;
}

int ap_probe_prepare(struct ap_probe_prep *p, const char *dev, const struct ap_probe_prep_opts *po,
		     struct ap_error *e)
{
	const struct ap_probe_prep_hooks *h = &po->hooks;
	int rc;

	memset(p, 0, sizeof(*p));
	p->o = *po->o;
	p->d.fd_hold = -1;
	if (!*dev)
		return ap_error_set(e, ENOENT, "empty device name");
	p->about = dev;
	if (access(dev, F_OK) != 0)
		return ap_error_set(e, errno, "%s", strerror(errno));
	/* who else uses it first: any refusal is the gate's */
	if (h->admit && (rc = h->admit(h->arg, dev, p->o.mode != AP_PROBE_READONLY)) != 0)
		return rc;
	rc = ap_probe_device_geometry(dev, &p->d, e);
	if (rc)
		return rc;
	p->d.dev = dev;
	p->d.fd_hold = -1;
	if (h->identity && (rc = h->identity(h->arg, dev, &p->d.id)) != 0)
		return rc;
	return prepare_plan(p, dev, po, e);
}

void ap_probe_prep_free(struct ap_probe_prep *p)
{
	if (p->wc_found)
		ap_cachectl_free(&p->wc);
	p->wc_found = false;
	ap_probe_dev_free(&p->d);
	free(p->journal);
	p->journal = NULL;
}

int ap_probe_check_named(size_t nnamed, const struct ap_probe_order_hooks *h)
{
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < nnamed; i++)
		rc = h->check(h->arg, i);
	return rc;
}

int ap_probe_confirm_all(size_t nnamed, size_t nemu, const struct ap_probe_order_hooks *h)
{
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < nnamed; i++)
		rc = h->confirm(h->arg, i);
	for (i = nnamed; !rc && i < nnamed + nemu; i++) {
		rc = h->attach(h->arg, i);
		if (!rc)
			rc = h->check(h->arg, i);
		if (!rc)
			rc = h->confirm(h->arg, i);
	}
	return rc;
}

/* The caches off, each state recorded first: 0, or -EIO after the hook. */
static int caches_off(struct ap_probe_prep *const *p, size_t n, const struct ap_probe_run_hooks *h)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct ap_error e = { 0 };

		if (!p[i]->wc_found)
			continue;
		if (ap_cachectl_record(&p[i]->wc, &e) < 0 || ap_cachectl_set(&p[i]->wc, false, &e) < 0) {
			if (h->cache_failed)
				h->cache_failed(h->arg, p[i], false, &e);
			return -EIO;
		}
	}
	return 0;
}

/* Every cache back as found: 0, or -EIO after the hook for each that is not. */
static int caches_restore(struct ap_probe_prep *const *p, size_t n,
			  const struct ap_probe_run_hooks *h)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < n; i++) {
		struct ap_error e = { 0 };

		if (p[i]->wc_found && ap_cachectl_restore(&p[i]->wc, &e) < 0) {
			if (h->cache_failed)
				h->cache_failed(h->arg, p[i], true, &e);
			ret = -EIO;
		}
	}
	return ret;
}

int ap_probe_run_prepared(struct ap_probe_prep *const *p, struct ap_probe_thread *const *t,
			  size_t n, uint64_t budget_ns, const struct ap_probe_run_hooks *h)
{
	uint64_t deadline;
	size_t i;
	int rc = caches_off(p, n, h), rc2;

	deadline = ap_now_ns() + budget_ns;
	for (i = 0; i < n; i++) {
		p[i]->o.deadline_ns = deadline;
		t[i]->d = &p[i]->d;
		t[i]->o = &p[i]->o;
	}
	if (!rc)
		ap_probe_threads_run(t, n, h->tick, h->arg);
	rc2 = caches_restore(p, n, h);
	return rc ? rc : rc2;
}
