/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The undo journal of a preserving probe: the original bytes of every range
 * the probe will overwrite, written and fsync'd (file and directory) before
 * the first overwrite, so that after a crash, a SIGKILL or a power cut
 * `alignprobe probe --undo JOURNAL` puts every byte back.
 *
 * File layout (host byte order; the magic rejects a foreign one), version 4:
 *   header, a multiple of 4096 bytes: magic "APUNDO\0\1", version (4),
 *     flags (bit 0: complete, bit 1: the plan may touch the metadata
 *     areas), device size, logical sector, record length, number of
 *     records, creation time, creator PID, header length, identity length,
 *     device path (as it was named then: a hint only), the plan (region
 *     start, region size, slot stride), a random nonce, the records'
 *     margin (version 4), the disk's
 *     identity as JSON (src/device/identity.h), and in its last 4 bytes the
 *     CRC-32 of everything before;
 *   records, each AP_JOURNAL_REC_HDR bytes (device offset, length, index,
 *     the header's nonce, magic, and in its last 4 bytes the CRC-32 of the
 *     record header before it and of the data) followed by the data;
 *   (version 4) the write in flight, AP_JOURNAL_INTENT bytes: magic
 *     "APINFLT\0", the nonce, its device offset and length, whether it
 *     is done, and the CRC-32 of what is before (ap_journal_intent()).
 * Version 3 (without margin and write in flight) is still restored, with
 * no torn write explained.
 * Every byte undo acts on is under a CRC, and every record must be the
 * plan's: record i covers exactly [region start + i * stride, + record
 * length), inside the region, inside the device, outside the ranges the
 * identity fingerprints (which the probe never writes) and, without the
 * metadata flag, outside LBA 0..33 and the last 33 sectors. The plan itself
 * is checked for the same when the journal is opened. Anything else is
 * refused (-EBADMSG) before a byte is written.
 *
 * Versions 1 (alignprobe 0.1) and 2 had no CRC over the record headers and
 * no plan: a damaged device offset sent their bytes anywhere. They are
 * refused (-EBADMSG, "written by an older alignprobe"), deliberately: a
 * preserving probe writes back only the bytes it read, so after a SIGKILL
 * the disk already holds them; only a write torn by a power cut differs.
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
#define AP_JOURNAL_INTENT	512

struct ap_journal;

/*
 * What the probe plans to write: one record per slot, each the slot's
 * whole record (what it writes and the margins a torn write may reach,
 * see struct ap_probe_plan).
 */
struct ap_journal_plan {
	uint64_t region_start, region_size;	/* bytes */
	uint64_t stride;			/* between records' device offsets */
	uint64_t slots;				/* records */
	uint32_t span;				/* bytes per record */
	/*
	 * Bytes of each record on either side of what the probe writes (the
	 * largest write size: the largest unit a torn write is explained
	 * by); 0: unknown (a version 3 journal), no torn write explained.
	 */
	uint32_t margin;
	bool allow_metadata;			/* may touch LBA 0..33 / the last 33 sectors */
};

/* A byte range of the device. */
struct ap_journal_range {
	uint64_t offset, length;
};

struct ap_journal_info {
	unsigned version;
	char dev[256];		/* the device's name when the journal was written */
	struct ap_disk_identity id;	/* who it is */
	struct ap_journal_plan plan;
	uint64_t dev_size;	/* its size when the journal was written */
	unsigned logical_sector;
	uint32_t rec_len;	/* bytes per record */
	uint64_t nrec;
	bool complete;
	int64_t created;	/* time(2) */
	int pid;		/* the probe that wrote it */
	/*
	 * The write last announced (ap_journal_intent()) and not confirmed
	 * done: the one in flight when the probe died, if any (version 4).
	 */
	bool inflight;
	struct ap_journal_range inflight_at;
};

#define AP_JOURNAL_CHANGED_MAX	16

struct ap_journal_restore_stats {
	uint64_t records;	/* records checked */
	uint64_t restored;	/* records that differed and were written back */
	uint64_t bytes;		/* bytes written back */
	uint64_t torn;		/* of the restored: a write torn in flight (see below) */
	/*
	 * Records whose range on the device holds neither the original bytes
	 * nor what the probe writes there: the first and last differing
	 * logical sector of each (the first AP_JOURNAL_CHANGED_MAX).
	 */
	uint64_t changed;
	struct ap_journal_range changed_at[AP_JOURNAL_CHANGED_MAX];
};

/*
 * Create @path (it must not exist, mode 0600) for the @plan's slots of
 * device @dev, the disk @id (its size and sector size are the journal's).
 * -EINVAL when the plan breaks a rule of the format (see above). The file
 * is incomplete until ap_journal_commit().
 */
int ap_journal_create(const char *path, const char *dev, const struct ap_disk_identity *id,
		      const struct ap_journal_plan *plan, struct ap_journal **out,
		      struct ap_error *e);
/* The size of the journal of @plan's slots for the disk @id, in bytes. */
uint64_t ap_journal_bytes(const struct ap_journal_plan *plan, const struct ap_disk_identity *id);
/* Does @path start like an undo journal (its magic)? 0 yes, -EINVAL no, -errno. */
int ap_journal_probe(const char *path);
/* The device offset of record @idx in the plan. */
uint64_t ap_journal_plan_offset(const struct ap_journal_plan *plan, uint64_t idx);
/* Store record @idx: plan.span bytes @data read at its plan offset. */
int ap_journal_put(struct ap_journal *j, uint64_t idx, const void *data, struct ap_error *e);
/*
 * The write in flight (version 4): before each write to the device the
 * probe (and a restore) records its range here, durably (fdatasync),
 * and marks it done after it completed (not synced: a write that
 * completed left the original bytes, torn or not). After a power cut the
 * journal thus names the one write that may have been torn. 0, or -errno
 * with @e; -EBADF for a journal opened read-only (nothing recorded).
 */
int ap_journal_intent(struct ap_journal *j, uint64_t offset, uint64_t length,
		      struct ap_error *e);
int ap_journal_intent_done(struct ap_journal *j);
/*
 * Can the write @w torn by a power cut explain every difference between
 * @have (the device) and @want (the journal), @len bytes at device offset
 * @off with @lss-byte logical sectors? Only in the physical sectors @w
 * covers partly, for one unit (a power of two from @lss up to @max_unit)
 * at one phase: see torn.c.
 */
bool ap_journal_torn_explains(const unsigned char *have, const unsigned char *want, size_t len,
			      uint64_t off, unsigned lss, const struct ap_journal_range *w,
			      uint64_t max_unit);
/* fsync the records, set the complete flag, fsync the file and its directory. */
int ap_journal_commit(struct ap_journal *j, struct ap_error *e);

/*
 * Open an existing journal and check its header and plan (-EINVAL: not a
 * journal; -EBADMSG: damaged, inconsistent, or an older version).
 */
int ap_journal_open(const char *path, struct ap_journal **out, struct ap_error *e);
const struct ap_journal_info *ap_journal_info(const struct ap_journal *j);

/*
 * Record @idx: its device offset (its header checked against the plan:
 * -EBADMSG), and @len bytes of its data from @at.
 */
int ap_journal_record_offset(struct ap_journal *j, uint64_t idx, uint64_t *dev_offset);
int ap_journal_read(struct ap_journal *j, uint64_t idx, uint32_t at, void *buf, size_t len,
		    struct ap_error *e);
/*
 * Record @idx's whole data (rec_len bytes) into @buf, its header checked
 * against the plan and its CRC over header and data: 0, or -EBADMSG
 * ("damaged ...; nothing was written") / -errno with @e.
 */
int ap_journal_read_record(struct ap_journal *j, uint64_t idx, void *buf, struct ap_error *e);

/*
 * Compare every record with the device @dev (@fd, opened O_DIRECT, O_DSYNC,
 * and already proven to be the journal's disk), then write back what
 * differs and read it again to verify. Two passes: first every record is
 * checked (its CRC, the plan) and compared with the device, and only when
 * all of them pass is anything written. A preserving probe writes back the
 * bytes it read, so a range that differs from them was written by someone
 * else since, or torn by a power cut: a difference that the write in
 * flight (info.inflight) torn explains (ap_journal_torn_explains(), within
 * the journal's margin) is restored (st->torn); others, without @force,
 * are refused (-EPERM, named in @st->changed_at), nothing is written. A
 * damaged or out-of-plan record: -EBADMSG, nothing written. 0 when every
 * byte on the device equals the journal; -EIO etc. with @e otherwise.
 */
int ap_journal_restore(struct ap_journal *j, int fd, const char *dev, bool force,
		       struct ap_journal_restore_stats *st, struct ap_error *e);

/* Close (keeping the file) / close and delete the file. */
void ap_journal_close(struct ap_journal *j);
int ap_journal_remove(struct ap_journal *j);

#endif
