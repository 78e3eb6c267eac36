/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The undo journal of a preserving probe: the original bytes of every range
 * the probe will overwrite, written and fsync'd (file and directory) before
 * the first overwrite, so that after a crash, a SIGKILL or a power cut
 * `alignprobe probe --undo JOURNAL` puts every byte back.
 *
 * File layout (host byte order; the magic rejects a foreign one):
 *   header, a multiple of 4096 bytes: magic "APUNDO\0\1", version (2),
 *     flags (bit 0: complete), device size, logical sector, record length,
 *     number of records, creation time, creator PID, header length,
 *     identity length, device path (as it was named then: a hint only),
 *     the disk's identity as JSON (src/device/identity.h), and in its last 4
 *     bytes the CRC-32 of everything before;
 *   records, each AP_JOURNAL_REC_HDR bytes (device offset, length, CRC-32
 *     of the data) followed by the data.
 * Version 1 (alignprobe 0.1) had a fixed 4096-byte header and no identity;
 * it is still read, with an identity that holds only size and sector size.
 * A journal without the complete flag was interrupted while it was being
 * written, before the probe wrote anything to the device.
 */
#ifndef AP_JOURNAL_H
#define AP_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device/identity.h"
#include "lib/util.h"

#define AP_JOURNAL_HDR		4096
#define AP_JOURNAL_REC_HDR	64

struct ap_journal;

struct ap_journal_info {
	unsigned version;
	char dev[256];		/* the device's name when the journal was written */
	struct ap_disk_identity id;	/* who it is (version 1: size and sector only) */
	bool has_identity;	/* version 2 */
	uint64_t dev_size;	/* its size when the journal was written */
	unsigned logical_sector;
	uint32_t rec_len;	/* bytes per record */
	uint64_t nrec;
	bool complete;
	int64_t created;	/* time(2) */
	int pid;		/* the probe that wrote it */
};

struct ap_journal_restore_stats {
	uint64_t records;	/* records checked */
	uint64_t restored;	/* records that differed and were written back */
	uint64_t bytes;		/* bytes written back */
};

/*
 * Create @path (it must not exist, mode 0600) for @nrec records of
 * @rec_len bytes each of device @dev, the disk @id (its size and sector
 * size are the journal's). The file is incomplete until ap_journal_commit().
 */
int ap_journal_create(const char *path, const char *dev, const struct ap_disk_identity *id,
		      uint32_t rec_len, uint64_t nrec, struct ap_journal **out,
		      struct ap_error *e);
/* Store record @idx: @rec_len bytes @data that were read at @dev_offset. */
int ap_journal_put(struct ap_journal *j, uint64_t idx, uint64_t dev_offset, const void *data,
		   struct ap_error *e);
/* fsync the records, set the complete flag, fsync the file and its directory. */
int ap_journal_commit(struct ap_journal *j, struct ap_error *e);

/* Open an existing journal and check its header (-EINVAL: not a journal). */
int ap_journal_open(const char *path, struct ap_journal **out, struct ap_error *e);
const struct ap_journal_info *ap_journal_info(const struct ap_journal *j);
const char *ap_journal_path(const struct ap_journal *j);

/* Record @idx: its device offset, and @len bytes of its data from @at. */
int ap_journal_record_offset(struct ap_journal *j, uint64_t idx, uint64_t *dev_offset);
int ap_journal_read(struct ap_journal *j, uint64_t idx, uint32_t at, void *buf, size_t len,
		    struct ap_error *e);

/*
 * Compare every record with the device @dev (@fd, opened O_DIRECT, O_DSYNC,
 * and already proven to be the journal's disk): write back what differs
 * and read it again to verify. Every record's CRC is checked first; a
 * damaged record is never written. 0 when every byte on the device equals
 * the journal; -EIO etc. with @e otherwise.
 */
int ap_journal_restore(struct ap_journal *j, int fd, const char *dev,
		       struct ap_journal_restore_stats *st, struct ap_error *e);

/* Close (keeping the file) / close and delete the file. */
void ap_journal_close(struct ap_journal *j);
int ap_journal_remove(struct ap_journal *j);

#endif
