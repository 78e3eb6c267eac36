/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the commands share to connect alignprobe to a fleet's tools:
 *   --prometheus FILE (check, probe): the file opened before the run and
 *     put in place atomically (the metric families: fleet/metrics.h);
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
#ifndef AP_CMD_PUBLISH_H
#define AP_CMD_PUBLISH_H

#include <stdbool.h>

#include "fleet/metrics.h"
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
int ap_publish_prom_open(const char *cmd, struct ap_outfile *of, const char *path);

/*
 * Render @p into @of (opened with ap_publish_prom_open() before the run) and
 * put it in place: 0, or AP_EXIT_FAILURE with the error printed. @of is
 * closed either way.
 */
int ap_publish_prom_commit(const char *cmd, struct ap_outfile *of, const struct ap_prom *p);

/* ---- --record ---- */

/*
 * Before the run: the store (@opt, else $ALIGNPROBE_VERDICTS, else the
 * default) is valid or absent and its directory takes files. 0 with its
 * path in @path, or AP_EXIT_USAGE (printed).
 */
int ap_publish_record_prepare(const char *cmd, const char *opt, const char **path);

/* The disk states a model to record the verdict for: 0 or AP_EXIT_USAGE (printed). */
int ap_publish_record_check_disk(const char *cmd, const char *dev,
			       const struct ap_disk_identity *id);

/*
 * After the run: add @v (measured on @dev, @id) to the store @path; an
 * unresolved verdict is not recorded (said unless @quiet). What was done
 * is said on standard error unless @quiet; a conflict always. 0, or
 * AP_EXIT_FAILURE when the store could not be updated (printed).
 */
int ap_publish_record(const char *cmd, const char *path, const char *source, const char *dev,
		    const struct ap_disk_identity *id, const struct ap_verdict *v, bool quiet);

/*
 * After `smr`: the verdict key @verdict (src/smr/smr.h) of the disk @id,
 * measured on @dev, as the store's smr row of its model, with the deep
 * test's figures @deep (NULL or none measured: the row keeps its own).
 * Said on standard error unless @quiet; a conflict always. 0 or
 * AP_EXIT_FAILURE (printed).
 */
struct ap_vstore_smr_deep;
int ap_publish_record_smr(const char *cmd, const char *path, const char *dev,
			  const struct ap_disk_identity *id, const char *verdict,
			  const struct ap_vstore_smr_deep *deep, bool quiet);

#endif
