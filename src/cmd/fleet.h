/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the commands share to connect alignprobe to a fleet's tools:
 *   --prometheus FILE (check, probe): the metric families with their one
 *     help text each (node_exporter's textfile collector refuses a family
 *     whose HELP or TYPE differs between two files), the labels they carry,
 *     and the file opened before the run and put in place atomically;
 *   --record[=STORE] (probe, sweep): the verdict store checked before the
 *     run, the disk's model required, the verdict added after it.
 * Command-level code: it prints "alignprobe CMD: ..." messages and returns
 * exit codes.
 *
 * Naming (Prometheus' conventions): one "alignprobe_" prefix, base units
 * (_bytes, _seconds), _info for metadata (value 1), labels of bounded
 * cardinality (device, partition, source, command). Families that check
 * and probe both write carry a "command" label, so that their files can
 * sit in one textfile directory without two series colliding.
 */
#ifndef AP_FLEET_H
#define AP_FLEET_H

#include <stdbool.h>

#include "fleet/prom.h"
#include "lib/outfile.h"

struct ap_disk_identity;
struct ap_verdict;

/* ---- --prometheus ---- */

/*
 * Open the --prometheus file @path before the run: readable by everyone
 * (0644 whatever the umask: node_exporter runs as another user). 0 or
 * AP_EXIT_USAGE with the error printed.
 */
int ap_fleet_prom_open(const char *cmd, struct ap_outfile *of, const char *path);

/*
 * Render @p into @of (opened with ap_fleet_prom_open() before the run) and
 * put it in place: 0, or AP_EXIT_FAILURE with the error printed. @of is
 * closed either way.
 */
int ap_fleet_prom_commit(const char *cmd, struct ap_outfile *of, const struct ap_prom *p);

/*
 * A sample of family @name (declared on first use, with its help text and
 * type from the table in fleet.c): label pairs (name, value, ..., NULL);
 * a NULL value drops its label. Samples the format cannot carry (a label
 * value that is not UTF-8) are dropped.
 */
void ap_fleet_prom_add(struct ap_prom *p, const char *name, double value, ...)
	__attribute__((sentinel));

/*
 * alignprobe_disk_info{command,device,vendor,model,revision,serial} 1 when
 * the disk states any of them, alignprobe_logical_sector_bytes and
 * alignprobe_last_run_timestamp_seconds{command,device} (now).
 */
void ap_fleet_prom_disk(struct ap_prom *p, const char *cmd, const char *dev,
			const struct ap_disk_identity *id, unsigned logical_sector);

/*
 * --verdicts: the store's state as check's metrics say it, so that a store
 * that is missing, unreadable, corrupt or written by a newer alignprobe is
 * a series an alert fires on, never a missing file:
 * alignprobe_verdict_store_state{store,state} (1 for the state it is in, 0
 * for the others), alignprobe_verdict_store_mtime_seconds{store} when it
 * exists, alignprobe_verdict_store_models{store} when it was read. @load_rc
 * is ap_vstore_load()'s result, @nmodels the models it read.
 */
const char *ap_fleet_store_state(int load_rc);
void ap_fleet_prom_store(struct ap_prom *p, const char *path, int load_rc, size_t nmodels);

/* What probe knows of one device, for its metrics. */
struct ap_fleet_probe {
	const char *dev;
	const struct ap_disk_identity *id;
	const struct ap_verdict *v;	/* NULL when the probe did not run */
	unsigned logical_sector, reported_physical;
	double seconds;
	bool ok;			/* ran to a verdict without error */
};

void ap_fleet_prom_probe(struct ap_prom *p, const struct ap_fleet_probe *m);

/* ---- --record ---- */

/*
 * Before the run: the store (@opt, else $ALIGNPROBE_VERDICTS, else the
 * default) is valid or absent and its directory takes files. 0 with its
 * path in @path, or AP_EXIT_USAGE (printed).
 */
int ap_fleet_record_prepare(const char *cmd, const char *opt, const char **path);

/* The disk states a model to record the verdict for: 0 or AP_EXIT_USAGE (printed). */
int ap_fleet_record_check_disk(const char *cmd, const char *dev,
			       const struct ap_disk_identity *id);

/*
 * After the run: add @v (measured on @dev, @id) to the store @path; an
 * unresolved verdict is not recorded (said unless @quiet). What was done
 * is said on standard error unless @quiet; a conflict always. 0, or
 * AP_EXIT_FAILURE when the store could not be updated (printed).
 */
int ap_fleet_record(const char *cmd, const char *path, const char *source, const char *dev,
		    const struct ap_disk_identity *id, const struct ap_verdict *v, bool quiet);

#endif
