// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --prometheus and --record for the commands (see publish.h): one table of
 * metric families, the textfile written atomically, verdicts recorded per
 * drive model.
 */
#include "cmd/publish.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "cmd/commands.h"
#include "device/identity.h"
#include "fleet/vstore.h"
#include "lib/exitcodes.h"

int ap_publish_prom_open(const char *cmd, struct ap_outfile *of, const char *path)
{
	int rc = ap_cmd_open_output(cmd, of, path);

	if (rc)
		return rc;
	rc = ap_outfile_set_mode(of, 0644);
	if (rc) {
		ap_warnx(cmd, "--prometheus", "%s: %s", path, strerror(-rc));
		ap_outfile_discard(of);
		return ap_exit_for_errno(rc);
	}
	return 0;
}

int ap_publish_prom_commit(const char *cmd, struct ap_outfile *of, const struct ap_prom *p)
{
	struct ap_error e = { 0 };
	char *text = ap_prom_render(p);
	int rc;

	if (!text) {
		ap_outfile_discard(of);
		ap_warnx(cmd, "--prometheus", "out of memory");
		return AP_EXIT_FAILURE;
	}
	rc = ap_outfile_write_commit(of, of->path, text, strlen(text), &e);
	free(text);
	if (rc) {
		ap_warnx(cmd, "--prometheus", "%s", e.msg);
		return AP_EXIT_FAILURE;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* --record */

int ap_publish_record_prepare(const char *cmd, const char *opt, const char **path)
{
	struct ap_error e = { 0 };

	*path = ap_vstore_path(opt);
	if (ap_vstore_check(*path, &e) == 0)
		return 0;
	ap_warnx(cmd, "--record", "%s", e.msg);
	/* the errno table's: a store on a read-only file system is 3 */
	return ap_exit_for_errno(e.code) == AP_EXIT_REFUSED ? AP_EXIT_REFUSED : AP_EXIT_USAGE;
}

int ap_publish_record_check_disk(const char *cmd, const char *dev,
				 const struct ap_disk_identity *id)
{
	struct ap_error e = { 0 };

	if (ap_vstore_identity_check(id, &e) == 0)
		return 0;
	ap_warnx(cmd, dev, "--record: %s", e.msg);
	return AP_EXIT_USAGE;
}

/* The record's run data: this host, @dev, @source, now. @host holds the name. */
static void record_run(struct ap_vstore_record *r, char *host, size_t len, const char *dev,
		       const char *source)
{
	if (gethostname(host, len - 1) == 0 && host[0])
		r->host = host;
	r->device = dev;
	r->source = source;
	r->when = time(NULL);
}

/* The model of @id as the store names it. Caller frees. */
static char *model_name(const struct ap_disk_identity *id)
{
	struct ap_vstore_model m = { 0 };

	m.vendor = (char *)id->vendor;
	m.model = (char *)id->model;
	m.revision = (char *)id->revision;
	return ap_vstore_model_name(&m);
}

int ap_publish_record(const char *cmd, const char *path, const char *source, const char *dev,
		    const struct ap_disk_identity *id, const struct ap_verdict *v, bool quiet)
{
	struct ap_vstore_record r;
	enum ap_vstore_added how = 0;
	struct ap_error e = { 0 };
	char host[256] = "", *name;

	if (!ap_vstore_recordable(v)) {
		if (!quiet)
			ap_warnx(cmd, dev, "no verdict%s: nothing recorded in %s",
				 v && v->resolved ? " (only a tentative one)" : "", path);
		return 0;
	}
	ap_vstore_record_of_verdict(&r, id, v);
	record_run(&r, host, sizeof(host), dev, source);
	if (ap_vstore_record(path, &r, &how, &e) != 0) {
		ap_warnx(cmd, dev, "--record: %s", e.msg);
		return AP_EXIT_FAILURE;
	}
	name = model_name(id);
	if (how == AP_VSTORE_CONFLICT)
		ap_warnx(cmd, dev, "--record: %s: the model %s now has conflicting verdicts (this "
			 "one: %u-byte physical sectors, lowest aligned LBA %u); check --verdicts "
			 "uses none of them", path, name, v->physical_sector, v->lowest_aligned_lba);
	else if (!quiet)
		ap_warnx(cmd, dev, "verdict recorded in %s for the model %s: %s", path, name,
			 how == AP_VSTORE_NEW_MODEL ? "its first" :
			 how == AP_VSTORE_NEW_EXAMPLE ? "another disk agrees" :
			 "the same disk again");
	free(name);
	return 0;
}

/* ap_vstore_update()'s step for smr: the row of the record. */
struct smr_rec {
	const struct ap_vstore_record *r;
	const char *verdict;
	const struct ap_vstore_smr_deep *deep;
	size_t conflicts;
};

static int smr_set(struct ap_vstore *s, void *arg)
{
	struct smr_rec *x = arg;
	struct ap_error e = { 0 };
	size_t idx[8];
	int rc = ap_vstore_smr_set(s, x->r, x->verdict, x->deep, &e);

	x->conflicts = ap_vstore_smr_find(s, x->r->vendor, x->r->model, x->r->revision, idx,
					  AP_ARRAY_SIZE(idx));
	return rc;
}

int ap_publish_record_smr(const char *cmd, const char *path, const char *dev,
			  const struct ap_disk_identity *id, const char *verdict,
			  const struct ap_vstore_smr_deep *deep, bool quiet)
{
	struct ap_vstore_record r;
	struct smr_rec x = { &r, verdict, deep, 0 };
	struct ap_error e = { 0 };
	char host[256] = "", *name;
	bool changed = false;

	ap_vstore_record_of(&r, id);
	record_run(&r, host, sizeof(host), dev, cmd);
	if (ap_vstore_update(path, smr_set, &x, &changed, &e) != 0) {
		ap_warnx(cmd, dev, "--record: %s", e.msg);
		return AP_EXIT_FAILURE;
	}
	name = model_name(id);
	if (x.conflicts > 1)
		ap_warnx(cmd, dev, "--record: %s: the model %s now has conflicting smr verdicts "
			 "(this one: %s); check --refuse-smr refuses it", path, name, verdict);
	else if (!quiet)
		ap_warnx(cmd, dev, "smr verdict %s recorded in %s for the model %s", verdict, path,
			 name);
	free(name);
	return 0;
}
