/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The metric families of --prometheus (check, probe): each with its one
 * help text (node_exporter's textfile collector refuses a family whose
 * HELP or TYPE differs between two files) and the labels it carries. The
 * commands open and commit the file (src/cmd/publish.h).
 */
#ifndef AP_FLEET_METRICS_H
#define AP_FLEET_METRICS_H

#include <stdbool.h>
#include <stddef.h>

#include "fleet/prom.h"

struct ap_disk_identity;
struct ap_verdict;

/*
 * A sample of family @name (declared on first use, with its help text and
 * type from the table in metrics.c): label pairs (name, value, ..., NULL);
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

/*
 * smr's verdict on @dev (@verdict its key, @shingled whether it found a
 * persistent cache or zones): alignprobe_smr{command,device,verdict} and
 * the disk's series (@id may be NULL); with the deep test's figures
 * @deep (NULL: not run) a series for each one it measured:
 * alignprobe_smr_persistent_cache_bytes, alignprobe_smr_band_bytes and
 * alignprobe_smr_band_error_bytes, alignprobe_smr_idle_clean_seconds.
 */
struct ap_vstore_smr_deep;
void ap_fleet_prom_smr(struct ap_prom *p, const char *dev, const struct ap_disk_identity *id,
		       unsigned logical_sector, const char *verdict, bool shingled,
		       const struct ap_vstore_smr_deep *deep);

#endif
