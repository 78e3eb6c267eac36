/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the drive itself claims, asked in its own command set:
 *
 *   ATA   IDENTIFY DEVICE through SG_IO ATA PASS-THROUGH(16): words 106
 *         (logical sectors per physical sector), 209 (logical sector offset),
 *         117-118 (long logical sectors), 82/85/87 (write cache).
 *   SCSI  READ CAPACITY(16): LOGICAL BLOCKS PER PHYSICAL BLOCK EXPONENT and
 *         LOWEST ALIGNED LOGICAL BLOCK ADDRESS; MODE SENSE(10) caching mode
 *         page 08h: WCE.
 *   NVMe  Identify Namespace through NVME_IOCTL_ADMIN_CMD: LBA format, NPWG,
 *         NOWS, NAWUPF; Get Features Volatile Write Cache.
 *
 * The reply parsers and CDB builders are pure functions over buffers (unit
 * tested on recorded and synthetic replies). The device queries return
 * -EOPNOTSUPP when the device does not speak the command set at all (loop,
 * virtio, a regular file, ILLEGAL REQUEST): callers show "not available",
 * never an error. Nothing here writes to the medium.
 */
#ifndef AP_SGIO_H
#define AP_SGIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/util.h"

#define AP_ATA_IDENTIFY_LEN	512
#define AP_SCSI_RC16_LEN	32
#define AP_NVME_ID_LEN		4096

/* ATA IDENTIFY DEVICE, decoded. */
struct ap_ata_identify {
	char model[41];			/* words 27-46, trimmed */
	char serial[21];		/* words 10-19, trimmed */
	char firmware[9];		/* words 23-26, trimmed */
	bool wwn_valid;			/* word 87 bit 8 and a non-zero NAA */
	uint64_t wwn;			/* words 108-111 */
	bool checksum_valid;		/* word 255 signature 0xA5 present and sum ok */
	bool sector_info_valid;		/* word 106 bit 14 set, bit 15 clear */
	unsigned log2_per_phys;		/* word 106 bits 3:0 (only with bit 13) */
	unsigned logical_sector;	/* bytes: 512, or words 117-118 * 2 */
	unsigned physical_sector;	/* bytes: logical << log2_per_phys */
	bool offset_valid;		/* word 209 bit 14 set, bit 15 clear */
	unsigned sector_offset;		/* word 209 bits 13:0 */
	unsigned lowest_aligned;	/* LBA of the first aligned logical sector */
	bool wc_supported;		/* word 82 bit 5 */
	bool wc_valid;			/* word 87 bits 15:14 == 01 */
	bool wc_enabled;		/* word 85 bit 5 */
	unsigned zoned;			/* word 69 bits 1:0: 1 host-aware, 2 device-managed SMR */
};

/* SCSI READ CAPACITY(16) parameter data, decoded. */
struct ap_scsi_capacity {
	uint64_t nblocks;		/* RETURNED LOGICAL BLOCK ADDRESS + 1 */
	unsigned logical_sector;	/* LOGICAL BLOCK LENGTH IN BYTES */
	unsigned exponent;		/* LOGICAL BLOCKS PER PHYSICAL BLOCK EXPONENT */
	uint64_t physical_sector;	/* logical << exponent */
	unsigned lowest_aligned;	/* LOWEST ALIGNED LOGICAL BLOCK ADDRESS */
	bool lbpme, lbprz;		/* thin provisioning bits */
};

/* SCSI VPD page B0h, Block Limits (SBC-3), the transfer lengths it states. */
struct ap_scsi_block_limits {
	unsigned otlg;			/* OPTIMAL TRANSFER LENGTH GRANULARITY, blocks, 0 unstated */
	unsigned max_transfer;		/* MAXIMUM TRANSFER LENGTH, blocks, 0 unstated */
	unsigned optimal_transfer;	/* OPTIMAL TRANSFER LENGTH, blocks, 0 unstated */
};

/* NVMe Identify Namespace (CNS 00h), decoded. */
struct ap_nvme_ns {
	uint64_t nsze;			/* namespace size in logical blocks */
	unsigned nlbaf;			/* number of LBA formats (1-based) */
	unsigned flbas_index;		/* LBA format in use */
	unsigned logical_sector;	/* 2^LBADS bytes */
	unsigned metadata;		/* MS bytes per block */
	bool atomics_valid;		/* NSFEAT bit 1: NAWUN/NAWUPF/NACWU valid */
	unsigned nawupf;		/* atomic write unit power fail, blocks (1-based) */
	bool optperf_valid;		/* NSFEAT bit 4: NPWG/NPWA/NPDG/NPDA/NOWS valid */
	unsigned npwg, npwa, npdg, npda, nows;	/* blocks, 1-based */
	uint64_t physical_sector;	/* bytes, as Linux derives it; 0 when not stated */
	uint64_t optimal_io;		/* bytes, NOWS; 0 when not stated */
};

/*
 * SCSI VPD page 89h, ATA Information (SAT): who translates (the SAT layer:
 * "linux   libata" for the kernel's own, a USB or SAS bridge's otherwise)
 * and the drive's own IDENTIFY DEVICE data behind it.
 */
struct ap_vpd_ata {
	char sat_vendor[9], sat_product[17], sat_revision[5];	/* trimmed */
	unsigned command;		/* the IDENTIFY command code: ECh (ATA), A1h (ATAPI) */
	struct ap_ata_identify ata;	/* decoded from bytes 60-571 */
};

/* SCSI VPD page 83h, Device Identification: the logical unit's designators. */
struct ap_vpd_devid {
	bool naa_valid;
	uint64_t naa;			/* an 8-byte NAA designator (NAA 5, 6: the first 8 bytes) */
	char t10[97];			/* a T10 vendor ID designator ("ATA     MODEL SERIAL"), trimmed */
};

/* NVMe Identify Controller (CNS 01h): the drive's own strings. */
struct ap_nvme_ctrl {
	unsigned vid;			/* PCI vendor ID */
	char serial[21];		/* SN, bytes 4-23, trimmed */
	char model[41];			/* MN, bytes 24-63, trimmed */
	char firmware[9];		/* FR, bytes 64-71, trimmed */
};

/* Sense data (fixed or descriptor format). */
struct ap_sense {
	bool valid;
	unsigned key, asc, ascq;
};

/* Where a write-cache state came from, for messages. */
enum ap_wc_source {
	AP_WC_SRC_NONE = 0,
	AP_WC_SRC_ATA,		/* ATA IDENTIFY word 85 bit 5 */
	AP_WC_SRC_SCSI,		/* caching mode page 08h, WCE */
	AP_WC_SRC_NVME,		/* Get Features 06h, WCE */
};

struct ap_write_cache {
	bool enabled;
	enum ap_wc_source source;
};

/* ---- pure: CDBs ---- */
void ap_sgio_cdb_ata_identify(uint8_t cdb[16]);
/* ATA PASS-THROUGH(12): the bridges that know only the 12-byte form */
void ap_sgio_cdb_ata_identify12(uint8_t cdb[12]);
/*
 * READ LOG EXT (2Fh) of one 512-byte page @page of log @log through ATA
 * PASS-THROUGH(16): e.g. log 30h (IDENTIFY DEVICE data), page 09h (zoned
 * device information).
 */
void ap_sgio_cdb_ata_read_log(uint8_t cdb[16], unsigned log, unsigned page);
/* INQUIRY with EVPD for VPD page @page */
void ap_sgio_cdb_inquiry_vpd(uint8_t cdb[6], unsigned page, unsigned alloc_len);
void ap_sgio_cdb_read_capacity16(uint8_t cdb[16], unsigned alloc_len);
/* MODE SENSE(10), current values, block descriptors disabled */
void ap_sgio_cdb_mode_sense10(uint8_t cdb[10], unsigned page, unsigned alloc_len);

/* ---- pure: replies. 0, or -EINVAL (too short / not plausible), -ENODATA
 * (well formed but says nothing, e.g. an all-zero IDENTIFY). ---- */
int ap_sgio_parse_ata_identify(const uint8_t *buf, size_t len, struct ap_ata_identify *id);
int ap_sgio_parse_read_capacity16(const uint8_t *buf, size_t len, struct ap_scsi_capacity *c);
int ap_sgio_parse_caching_page(const uint8_t *buf, size_t len, bool *wce);
int ap_sgio_parse_nvme_id_ns(const uint8_t *buf, size_t len, struct ap_nvme_ns *ns);
int ap_sgio_parse_sense(const uint8_t *buf, size_t len, struct ap_sense *s);
/* SCSI VPD page 80h (Unit Serial Number, e.g. sysfs device/vpd_pg80): the
 * serial, trimmed, into @out (NUL-terminated); -ENODATA when blank. */
/* VPD page B0h: 0, or -EINVAL for another page or one too short for its lengths. */
int ap_sgio_parse_vpd_block_limits(const uint8_t *buf, size_t len, struct ap_scsi_block_limits *b);
int ap_sgio_parse_vpd_serial(const uint8_t *buf, size_t len, char *out, size_t outsz);
/* VPD page 89h (sysfs device/vpd_pg89): -EINVAL when it is not one or too
 * short, else as ap_sgio_parse_ata_identify() for its IDENTIFY data. */
int ap_sgio_parse_vpd_ata(const uint8_t *buf, size_t len, struct ap_vpd_ata *v);
/* VPD page 83h (sysfs device/vpd_pg83): 0, -EINVAL, -ENODATA (no designator used). */
int ap_sgio_parse_vpd_devid(const uint8_t *buf, size_t len, struct ap_vpd_devid *d);
/* NVMe Identify Controller: 0, -EINVAL (short), -ENODATA (no model). */
int ap_sgio_parse_nvme_id_ctrl(const uint8_t *buf, size_t len, struct ap_nvme_ctrl *c);
/* Names for messages: "ATA IDENTIFY word 85", ... */
const char *ap_sgio_wc_source_name(enum ap_wc_source src);

/* ---- device queries on an open fd (O_RDONLY is enough). 0 on success,
 * -EOPNOTSUPP when the device does not answer this command set, other
 * -errno with @e filled on a real failure. ---- */
int ap_sgio_ata_identify(int fd, struct ap_ata_identify *id, struct ap_error *e);
/* Page @page of the ATA log @log, 512 bytes, into @buf (ap_sgio_cdb_ata_read_log()). */
int ap_sgio_ata_read_log(int fd, unsigned log, unsigned page, uint8_t buf[512],
			 struct ap_error *e);
/*
 * The same through ATA PASS-THROUGH(12), which some USB bridges know
 * instead. Only for a disk (SCSI peripheral type 0): A1h is BLANK to an
 * optical drive.
 */
int ap_sgio_ata_identify12(int fd, struct ap_ata_identify *id, struct ap_error *e);
/* INQUIRY VPD page 89h through SG_IO (where sysfs has no vpd_pg89) */
int ap_sgio_vpd_ata(int fd, struct ap_vpd_ata *v, struct ap_error *e);
/* INQUIRY VPD B0h (Block Limits): 0, -EOPNOTSUPP when the device has none, or -errno with @e. */
int ap_sgio_vpd_block_limits(int fd, struct ap_scsi_block_limits *b, struct ap_error *e);
int ap_sgio_nvme_id_ctrl(int fd, struct ap_nvme_ctrl *c, struct ap_error *e);
int ap_sgio_read_capacity16(int fd, struct ap_scsi_capacity *c, struct ap_error *e);
int ap_sgio_scsi_write_cache(int fd, bool *wce, struct ap_error *e);
int ap_sgio_nvme_id_ns(int fd, struct ap_nvme_ns *ns, struct ap_error *e);
int ap_sgio_nvme_write_cache(int fd, bool *wce, struct ap_error *e);

/*
 * The drive's volatile write cache state, from whatever the device answers:
 * NVMe Get Features, else ATA IDENTIFY word 85 (when word 82 says the
 * drive has one), else the SCSI caching mode page. -EOPNOTSUPP when none
 * answers (loop, virtio, regular files): the state is unknown.
 */
int ap_sgio_write_cache(int fd, struct ap_write_cache *wc, struct ap_error *e);

#endif
