// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The metric families alignprobe writes (see metrics.h): one table with
 * one help text each, the samples of a disk, a verdict store and a probe.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "analysis/analysis.h"
#include "device/identity.h"
#include "fleet/metrics.h"
#include "fleet/vstore.h"
#include "lib/util.h"

/* Every family alignprobe writes: one help text each, for every file. */
static const struct {
	const char *name;
	enum ap_prom_type type;
	const char *help;
} families[] = {
	/* both commands (with a "command" label) */
	{ "alignprobe_disk_info", AP_PROM_GAUGE,
	  "The disk's vendor, model, firmware revision and serial as the kernel and the drive "
	  "state them (value 1)." },
	{ "alignprobe_logical_sector_bytes", AP_PROM_GAUGE,
	  "Logical sector size of the device in bytes." },
	{ "alignprobe_physical_sector_bytes", AP_PROM_GAUGE,
	  "Physical sector size in bytes by source: reported (kernel), drive (its own claim), "
	  "probed (a probe or sweep of this disk), model (the verdict store's verdict for the "
	  "disk's model), given (--physical)." },
	{ "alignprobe_alignment_offset_bytes", AP_PROM_GAUGE,
	  "Bytes from the start of the disk to its first aligned logical sector (lowest aligned "
	  "LBA times the logical sector size), by source." },
	{ "alignprobe_last_run_timestamp_seconds", AP_PROM_GAUGE,
	  "When alignprobe last examined the device, in seconds since the Unix epoch." },
	/* smr */
	{ "alignprobe_smr", AP_PROM_GAUGE,
	  "1 when smr found a persistent media cache (drive-managed SMR or a hybrid) or a "
	  "zoned disk, 0 when it found none or the disk does not rotate; the verdict label "
	  "names it (no series: it cannot tell)." },
	{ "alignprobe_smr_persistent_cache_bytes", AP_PROM_GAUGE,
	  "smr --deep: the bytes random writes took before they fell off the cliff (the "
	  "persistent media cache full); no series when it found no cliff." },
	{ "alignprobe_smr_band_bytes", AP_PROM_GAUGE,
	  "smr --deep: the shingled band size measured (the distance between two band "
	  "boundaries); no series when it was not measured." },
	{ "alignprobe_smr_band_error_bytes", AP_PROM_GAUGE,
	  "smr --deep: how far the band size measured may be off, in bytes (plus or minus)." },
	{ "alignprobe_smr_idle_clean_seconds", AP_PROM_GAUGE,
	  "smr --deep: seconds after the last write at which writes were fast again (the "
	  "drive cleaned its cache when idle); no series when not measured." },
	/* check */
	{ "alignprobe_check_success", AP_PROM_GAUGE,
	  "1 when check read and judged the partition table (exit status 0, 4 or 7), 0 when "
	  "it could not (1 or 2)." },
	{ "alignprobe_check_exit_status", AP_PROM_GAUGE,
	  "The exit status check gives this device alone: 0 aligned, 4 misaligned, 7 a table "
	  "written for another logical sector size, 2 bad input, 1 failure." },
	{ "alignprobe_disk_aligned", AP_PROM_GAUGE,
	  "1 when every partition starts aligned under the rule that decided, else 0." },
	{ "alignprobe_check_rule_info", AP_PROM_GAUGE,
	  "The rule that decided the alignment required (value 1): probed, model_verdict, "
	  "given, as_reported, minimum_4k, trust_reported; basis: the geometry it started "
	  "from." },
	{ "alignprobe_check_required_alignment_bytes", AP_PROM_GAUGE,
	  "The alignment unit the rule requires of every partition start, in bytes." },
	{ "alignprobe_check_required_offset_bytes", AP_PROM_GAUGE,
	  "Bytes from the start of the disk to the first start the rule accepts." },
	{ "alignprobe_check_partitions", AP_PROM_GAUGE,
	  "Partitions judged (extended partitions, which hold no data, are not)." },
	{ "alignprobe_check_misaligned_partitions", AP_PROM_GAUGE,
	  "Partitions that do not start aligned under the rule." },
	{ "alignprobe_check_foreign_sector_bytes", AP_PROM_GAUGE,
	  "The logical sector size the partition table was written for, when it is not the "
	  "disk's (exit status 7)." },
	{ "alignprobe_check_model_verdicts", AP_PROM_GAUGE,
	  "Verdicts the verdict store (--verdicts) holds for the disk's model and logical "
	  "sector size: 0 none, 1 used, 2 or more a conflict (none used)." },
	{ "alignprobe_check_model_verdict_info", AP_PROM_GAUGE,
	  "The verdict store entry that decided (value 1): the store, the entry, the serial "
	  "of the first disk it was measured on." },
	{ "alignprobe_partition_aligned", AP_PROM_GAUGE,
	  "1 when the partition starts aligned under the rule that decided, else 0." },
	{ "alignprobe_partition_start_bytes", AP_PROM_GAUGE,
	  "Where the partition starts, in bytes from the start of the disk." },
	{ "alignprobe_partition_next_aligned_start_bytes", AP_PROM_GAUGE,
	  "The first aligned start at or after the partition's start, in bytes (its start "
	  "when aligned)." },
	{ "alignprobe_verdict_store_state", AP_PROM_GAUGE,
	  "The verdict store (--verdicts) by state: 1 for the state it is in (ok, missing, "
	  "unreadable, corrupt, newer: written in a format newer than this alignprobe reads), "
	  "0 for the others. When it is not ok, no disk was judged by its model's verdict." },
	{ "alignprobe_verdict_store_mtime_seconds", AP_PROM_GAUGE,
	  "When the verdict store was last changed, in seconds since the Unix epoch." },
	{ "alignprobe_verdict_store_models", AP_PROM_GAUGE,
	  "Drive models the verdict store holds verdicts for." },
	/* probe */
	{ "alignprobe_probe_success", AP_PROM_GAUGE,
	  "1 when probe reached a verdict on the device without error, else 0." },
	{ "alignprobe_probe_alignment_sensitive", AP_PROM_GAUGE,
	  "1 when misaligned writes were measurably slower, 0 when the drive behaved as "
	  "reported." },
	{ "alignprobe_probe_slowdown_ratio", AP_PROM_GAUGE,
	  "Median latency of misaligned writes over aligned ones." },
	{ "alignprobe_probe_confidence_ratio", AP_PROM_GAUGE,
	  "Confidence of the verdict: 1 minus the p-value of the rank test." },
	{ "alignprobe_probe_duration_seconds", AP_PROM_GAUGE,
	  "How long the probe of the device took." },
};

#define MAX_PAIRS	12

static void declare(struct ap_prom *p, const char *name)
{
	size_t i;

	for (i = 0; i < AP_ARRAY_SIZE(families); i++) {
		if (strcmp(families[i].name, name) == 0) {
			int rc = ap_prom_family(p, name, families[i].type, families[i].help);

			assert(rc == 0);
			(void)rc;
			return;
		}
	}
	assert(!"a metric family missing from the table");
}

void ap_fleet_prom_add(struct ap_prom *p, const char *name, double value, ...)
{
	const char *labels[MAX_PAIRS * 2];
	size_t n = 0;
	const char *k;
	va_list ap;

	declare(p, name);
	va_start(ap, value);
	while ((k = va_arg(ap, const char *)) != NULL) {
		const char *v = va_arg(ap, const char *);

		assert(n < MAX_PAIRS * 2);
		if (!v)
			continue;
		labels[n++] = k;
		labels[n++] = v;
	}
	va_end(ap);
	/* a duplicate series is a bug; a label value that is not UTF-8 is dropped */
	if (ap_prom_add_labels(p, name, value, labels, n / 2) == -EEXIST)
		assert(!"a duplicate series");
}

void ap_fleet_prom_disk(struct ap_prom *p, const char *cmd, const char *dev,
			const struct ap_disk_identity *id, unsigned logical_sector)
{
	struct timespec ts;

	if (id && (id->vendor || id->model || id->revision || id->serial))
		ap_fleet_prom_add(p, "alignprobe_disk_info", 1, "command", cmd, "device", dev,
				  "vendor", id->vendor, "model", id->model, "revision",
				  id->revision, "serial", id->serial, NULL);
	if (logical_sector)
		ap_fleet_prom_add(p, "alignprobe_logical_sector_bytes", logical_sector,
				  "command", cmd, "device", dev, NULL);
	clock_gettime(CLOCK_REALTIME, &ts);
	ap_fleet_prom_add(p, "alignprobe_last_run_timestamp_seconds",
			  (double)ts.tv_sec + ts.tv_nsec / 1e9, "command", cmd, "device", dev,
			  NULL);
}

static const char *const store_states[] = { "ok", "missing", "unreadable", "corrupt", "newer" };

const char *ap_fleet_store_state(int load_rc)
{
	switch (load_rc) {
	case 0:
		return "ok";
	case -ENOENT:
	case -ENOTDIR:
		return "missing";
	case -EACCES:
	case -EPERM:
	case -EISDIR:
	case -EIO:
		return "unreadable";
	case -EPROTO:
		return "newer";
	default:
		return "corrupt";	/* not JSON, not a store, too large */
	}
}

void ap_fleet_prom_store(struct ap_prom *p, const char *path, int load_rc, size_t nmodels)
{
	const char *state = ap_fleet_store_state(load_rc);
	struct stat st;
	size_t i;

	for (i = 0; i < AP_ARRAY_SIZE(store_states); i++)
		ap_fleet_prom_add(p, "alignprobe_verdict_store_state",
				  strcmp(store_states[i], state) == 0, "store", path, "state",
				  store_states[i], NULL);
	if (stat(path, &st) == 0)
		ap_fleet_prom_add(p, "alignprobe_verdict_store_mtime_seconds",
				  (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9, "store", path,
				  NULL);
	if (load_rc == 0)
		ap_fleet_prom_add(p, "alignprobe_verdict_store_models", (double)nmodels, "store",
				  path, NULL);
}

void ap_fleet_prom_probe(struct ap_prom *p, const struct ap_fleet_probe *m)
{
	const struct ap_verdict *v = m->v;
	const char *dev = m->dev;

	ap_fleet_prom_add(p, "alignprobe_probe_success", m->ok && v && v->resolved, "device",
			  dev, NULL);
	ap_fleet_prom_disk(p, "probe", dev, m->id, m->logical_sector);
	if (m->reported_physical)
		ap_fleet_prom_add(p, "alignprobe_physical_sector_bytes", m->reported_physical,
				  "command", "probe", "device", dev, "source", "reported", NULL);
	if (v && v->resolved) {
		ap_fleet_prom_add(p, "alignprobe_physical_sector_bytes", v->physical_sector,
				  "command", "probe", "device", dev, "source", "probed", NULL);
		ap_fleet_prom_add(p, "alignprobe_alignment_offset_bytes",
				  (double)v->lowest_aligned_lba * v->logical_sector, "command",
				  "probe", "device", dev, "source", "probed", NULL);
		ap_fleet_prom_add(p, "alignprobe_probe_alignment_sensitive", v->sensitive,
				  "device", dev, NULL);
		if (isfinite(v->confidence))
			ap_fleet_prom_add(p, "alignprobe_probe_confidence_ratio", v->confidence,
					  "device", dev, NULL);
		if (v->sensitive && isfinite(v->slowdown))
			ap_fleet_prom_add(p, "alignprobe_probe_slowdown_ratio", v->slowdown,
					  "device", dev, NULL);
	}
	if (v)
		ap_fleet_prom_add(p, "alignprobe_probe_duration_seconds", m->seconds, "device",
				  dev, NULL);
}

void ap_fleet_prom_smr(struct ap_prom *p, const char *dev, const struct ap_disk_identity *id,
		       unsigned logical_sector, const char *verdict, bool shingled,
		       const struct ap_vstore_smr_deep *deep)
{
	ap_fleet_prom_disk(p, "smr", dev, id, logical_sector);
	ap_fleet_prom_add(p, "alignprobe_smr", shingled, "command", "smr", "device", dev,
			  "verdict", verdict, NULL);
	if (!deep)
		return;
	if (deep->cache_bytes)
		ap_fleet_prom_add(p, "alignprobe_smr_persistent_cache_bytes",
				  (double)deep->cache_bytes, "device", dev, NULL);
	if (deep->band_bytes) {
		ap_fleet_prom_add(p, "alignprobe_smr_band_bytes", (double)deep->band_bytes,
				  "device", dev, NULL);
		ap_fleet_prom_add(p, "alignprobe_smr_band_error_bytes",
				  (double)deep->band_error_bytes, "device", dev, NULL);
	}
	if (deep->idle_clean_ns)
		ap_fleet_prom_add(p, "alignprobe_smr_idle_clean_seconds",
				  (double)deep->idle_clean_ns / 1e9, "device", dev, NULL);
}
