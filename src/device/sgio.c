// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Asking the drive itself: SG_IO (ATA PASS-THROUGH(16), READ CAPACITY(16),
 * MODE SENSE(10)) and NVMe admin commands. Every command here only reads
 * the drive's identity or settings; none touches the medium.
 */
#include "device/sgio.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/nvme_ioctl.h>
#include <scsi/sg.h>

#define SG_TIMEOUT_MS		10000
#define NVME_ADMIN_IDENTIFY	0x06
#define NVME_ADMIN_GET_FEATURES	0x0a
#define NVME_FEAT_VWC		0x06

#define SCSI_STATUS_CHECK	0x02
#define SENSE_RECOVERED		0x01
#define SENSE_ILLEGAL_REQUEST	0x05

static inline uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) |
	       ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static inline uint64_t get_le64(const uint8_t *p)
{
	return (uint64_t)get_le32(p) | ((uint64_t)get_le32(p + 4) << 32);
}

static inline uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static inline uint32_t get_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	       ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static inline uint64_t get_be64(const uint8_t *p)
{
	return ((uint64_t)get_be32(p) << 32) | get_be32(p + 4);
}

/* ---- CDBs ---- */

/*
 * IDENTIFY DEVICE through ATA PASS-THROUGH, in a @len-byte CDB (16 or 12):
 * the opcode, and where the form keeps the sector count and the command.
 */
static void cdb_ata_identify(uint8_t *cdb, size_t len, uint8_t opcode, size_t count_at,
			     size_t command_at)
{
	memset(cdb, 0, len);
	cdb[0] = opcode;
	cdb[1] = 4 << 1;		/* PROTOCOL: PIO Data-In */
	cdb[2] = 0x08 | 0x04 | 0x02;	/* T_DIR in, BYT_BLOK, T_LENGTH in SECTOR COUNT */
	cdb[count_at] = 1;		/* one 512-byte block */
	cdb[command_at] = 0xec;		/* IDENTIFY DEVICE */
}

void ap_sgio_cdb_ata_identify(uint8_t cdb[16])
{
	cdb_ata_identify(cdb, 16, 0x85, 6, 14);	/* ATA PASS-THROUGH(16) */
}

void ap_sgio_cdb_ata_identify12(uint8_t cdb[12])
{
	cdb_ata_identify(cdb, 12, 0xa1, 4, 9);	/* ATA PASS-THROUGH(12) */
}

void ap_sgio_cdb_ata_read_log(uint8_t cdb[16], unsigned log, unsigned page)
{
	memset(cdb, 0, 16);
	cdb[0] = 0x85;			/* ATA PASS-THROUGH(16) */
	cdb[1] = (4 << 1) | 1;		/* PROTOCOL: PIO Data-In; EXTEND: a 48-bit command */
	cdb[2] = 0x08 | 0x04 | 0x02;	/* T_DIR in, BYT_BLOK, T_LENGTH in SECTOR COUNT */
	cdb[6] = 1;			/* one 512-byte page */
	cdb[8] = (uint8_t)log;		/* LBA 7:0: the log address */
	cdb[10] = (uint8_t)page;	/* LBA 15:8: the page number */
	cdb[9] = (uint8_t)(page >> 8);	/* LBA 39:32: the page number's high byte */
	cdb[14] = 0x2f;			/* READ LOG EXT */
}

void ap_sgio_cdb_inquiry_vpd(uint8_t cdb[6], unsigned page, unsigned alloc_len)
{
	memset(cdb, 0, 6);
	cdb[0] = 0x12;			/* INQUIRY */
	cdb[1] = 0x01;			/* EVPD */
	cdb[2] = (uint8_t)page;
	cdb[3] = (uint8_t)(alloc_len >> 8);
	cdb[4] = (uint8_t)alloc_len;
}

void ap_sgio_cdb_read_capacity16(uint8_t cdb[16], unsigned alloc_len)
{
	memset(cdb, 0, 16);
	cdb[0] = 0x9e;			/* SERVICE ACTION IN(16) */
	cdb[1] = 0x10;			/* READ CAPACITY(16) */
	cdb[10] = (uint8_t)(alloc_len >> 24);
	cdb[11] = (uint8_t)(alloc_len >> 16);
	cdb[12] = (uint8_t)(alloc_len >> 8);
	cdb[13] = (uint8_t)alloc_len;
}

void ap_sgio_cdb_mode_sense10(uint8_t cdb[10], unsigned page, unsigned alloc_len)
{
	memset(cdb, 0, 10);
	cdb[0] = 0x5a;			/* MODE SENSE(10) */
	cdb[1] = 0x08;			/* DBD: no block descriptors */
	cdb[2] = (uint8_t)(page & 0x3f);	/* PC 00b: current values */
	cdb[7] = (uint8_t)(alloc_len >> 8);
	cdb[8] = (uint8_t)alloc_len;
}

/* ---- replies ---- */

/* Strip the blanks around the @n characters of @s (padded drive strings). */
static void trim_blanks(char *s, size_t n)
{
	size_t i;

	while (n > 0 && s[n - 1] == ' ')
		s[--n] = '\0';
	i = strspn(s, " ");
	if (i)
		memmove(s, s + i, n - i + 1);
}

/* The @nwords words from @word as characters, untrimmed; NUL and unprintable made safe. */
static size_t ata_string_raw(const uint8_t *buf, unsigned word, unsigned nwords,
			     char *out, size_t outsz)
{
	size_t n = 0, i;

	for (i = 0; i < nwords && n + 2 < outsz; i++) {
		uint16_t w = get_le16(buf + 2 * (word + i));

		out[n++] = (char)(w >> 8);
		out[n++] = (char)(w & 0xff);
	}
	out[n] = '\0';
	for (i = 0; i < n; i++)
		if (out[i] == '\0')
			out[i] = ' ';	/* a field the drive leaves zero says nothing */
		else if (!isprint((unsigned char)out[i]))
			out[i] = '?';
	return n;
}

static void ata_string(const uint8_t *buf, unsigned word, unsigned nwords,
		       char *out, size_t outsz)
{
	trim_blanks(out, ata_string_raw(buf, word, nwords, out, outsz));
}

/* @n bytes of an ASCII field at @p into @out, unprintable made '?', trimmed. */
static void ascii_field(const uint8_t *p, size_t n, char *out, size_t outsz)
{
	size_t i;

	for (i = 0; i < n && i + 1 < outsz; i++)
		out[i] = p[i] == 0 ? ' ' : isprint(p[i]) ? (char)p[i] : '?';
	out[i] = '\0';
	trim_blanks(out, i);
}

int ap_sgio_parse_ata_identify(const uint8_t *buf, size_t len, struct ap_ata_identify *id)
{
	uint16_t w106, w209, w255;
	size_t i;
	bool zero = true, ones = true;

	memset(id, 0, sizeof(*id));
	if (!buf || len < AP_ATA_IDENTIFY_LEN)
		return -EINVAL;
	for (i = 0; i < AP_ATA_IDENTIFY_LEN; i++) {
		if (buf[i] != 0)
			zero = false;
		if (buf[i] != 0xff)
			ones = false;
	}
	if (zero || ones)
		return -ENODATA;

	w255 = get_le16(buf + 2 * 255);
	if ((w255 & 0xff) == 0xa5) {
		uint8_t sum = 0;

		for (i = 0; i < AP_ATA_IDENTIFY_LEN; i++)
			sum = (uint8_t)(sum + buf[i]);
		if (sum != 0)
			return -EINVAL;		/* integrity word present and wrong */
		id->checksum_valid = true;
	}

	ata_string(buf, 27, 20, id->model, sizeof(id->model));
	ata_string(buf, 10, 10, id->serial, sizeof(id->serial));
	ata_string(buf, 23, 4, id->firmware, sizeof(id->firmware));
	if ((get_le16(buf + 2 * 87) & 0xc100) == 0x4100) {
		id->wwn = ((uint64_t)get_le16(buf + 2 * 108) << 48) |
			  ((uint64_t)get_le16(buf + 2 * 109) << 32) |
			  ((uint64_t)get_le16(buf + 2 * 110) << 16) | get_le16(buf + 2 * 111);
		/* the NAA field (top nibble) is 5 for every ATA WWN; 0 means none */
		id->wwn_valid = (id->wwn >> 60) != 0;
	}

	id->logical_sector = 512;
	id->physical_sector = 512;
	w106 = get_le16(buf + 2 * 106);
	if ((w106 & 0xc000) == 0x4000) {
		id->sector_info_valid = true;
		if (w106 & (1 << 12)) {
			uint32_t words = (uint32_t)get_le16(buf + 2 * 117) |
					 ((uint32_t)get_le16(buf + 2 * 118) << 16);

			/* a logical sector is at least 256 words */
			if (words < 256 || words > (1u << 20))
				return -EINVAL;
			id->logical_sector = words * 2;
		}
		if (w106 & (1 << 13))
			id->log2_per_phys = w106 & 0xf;
		id->physical_sector = id->logical_sector << id->log2_per_phys;
	}

	w209 = get_le16(buf + 2 * 209);
	if ((w209 & 0xc000) == 0x4000) {
		unsigned per = 1u << id->log2_per_phys;

		id->sector_offset = w209 & 0x3fff;
		/* an offset beyond one physical sector is not a valid claim */
		if (id->sector_offset < per) {
			id->offset_valid = true;
			id->lowest_aligned = (per - id->sector_offset) % per;
		}
	}

	if ((get_le16(buf + 2 * 83) & 0xc000) == 0x4000)
		id->wc_supported = get_le16(buf + 2 * 82) & (1 << 5);
	if ((get_le16(buf + 2 * 87) & 0xc000) == 0x4000) {
		id->wc_valid = true;
		id->wc_enabled = get_le16(buf + 2 * 85) & (1 << 5);
	}
	/* ZONED CAPABILITIES: 0 not reported, 1 host-aware, 2 device-managed */
	id->zoned = get_le16(buf + 2 * 69) & 3;
	return 0;
}

int ap_sgio_parse_read_capacity16(const uint8_t *buf, size_t len, struct ap_scsi_capacity *c)
{
	uint64_t last;

	memset(c, 0, sizeof(*c));
	if (!buf || len < AP_SCSI_RC16_LEN)
		return -EINVAL;
	last = get_be64(buf);
	c->logical_sector = get_be32(buf + 8);
	if (c->logical_sector < 512 || c->logical_sector > (1u << 20) ||
	    !ap_is_power_of_2(c->logical_sector))
		return -EINVAL;
	if (last == UINT64_MAX)
		return -EINVAL;
	c->nblocks = last + 1;
	c->exponent = buf[13] & 0x0f;
	c->physical_sector = (uint64_t)c->logical_sector << c->exponent;
	c->lbpme = buf[14] & 0x80;
	c->lbprz = buf[14] & 0x40;
	c->lowest_aligned = ((unsigned)(buf[14] & 0x3f) << 8) | buf[15];
	/* the lowest aligned LBA lies inside the first physical block */
	if (c->lowest_aligned >= (1u << c->exponent))
		return -EINVAL;
	return 0;
}

int ap_sgio_parse_caching_page(const uint8_t *buf, size_t len, bool *wce)
{
	size_t total, bdl, p;

	if (!buf || len < 8)
		return -EINVAL;
	total = (size_t)get_be16(buf) + 2;
	bdl = get_be16(buf + 6);
	if (total < len)
		len = total;
	p = 8 + bdl;
	if (p + 3 > len)
		return -EINVAL;
	if ((buf[p] & 0x3f) != 0x08 || (buf[p] & 0x40))
		return -EINVAL;		/* not the caching page (or a subpage) */
	if (buf[p + 1] < 1)
		return -EINVAL;
	*wce = buf[p + 2] & 0x04;
	return 0;
}

int ap_sgio_parse_nvme_id_ns(const uint8_t *buf, size_t len, struct ap_nvme_ns *ns)
{
	unsigned nsfeat, flbas, lbads;
	uint32_t lbaf;
	uint64_t bs;

	memset(ns, 0, sizeof(*ns));
	if (!buf || len < 384)		/* through LBA format 63 */
		return -EINVAL;
	ns->nsze = get_le64(buf);
	nsfeat = buf[24];
	ns->nlbaf = (unsigned)buf[25] + 1;
	flbas = buf[26];
	ns->flbas_index = (flbas & 0x0f) | (ns->nlbaf > 16 ? ((flbas >> 5) & 0x3) << 4 : 0);
	if (ns->nlbaf > 64 || ns->flbas_index >= ns->nlbaf)
		return -EINVAL;
	lbaf = get_le32(buf + 128 + 4 * ns->flbas_index);
	ns->metadata = lbaf & 0xffff;
	lbads = (lbaf >> 16) & 0xff;
	if (lbads < 9 || lbads > 20)
		return -EINVAL;		/* 0: format not supported; < 9 invalid */
	ns->logical_sector = 1u << lbads;
	bs = ns->logical_sector;

	if (nsfeat & (1 << 1)) {
		ns->atomics_valid = true;
		ns->nawupf = (unsigned)get_le16(buf + 36) + 1;
	}
	if (nsfeat & (1 << 4)) {
		ns->optperf_valid = true;
		ns->npwg = (unsigned)get_le16(buf + 64) + 1;
		ns->npwa = (unsigned)get_le16(buf + 66) + 1;
		ns->npdg = (unsigned)get_le16(buf + 68) + 1;
		ns->npda = (unsigned)get_le16(buf + 70) + 1;
		ns->nows = (unsigned)get_le16(buf + 72) + 1;
		ns->physical_sector = bs * ns->npwg;
		ns->optimal_io = bs * ns->nows;
	} else if (ns->atomics_valid && ns->nawupf > 1) {
		ns->physical_sector = bs * ns->nawupf;
	}
	return 0;
}

int ap_sgio_parse_vpd_block_limits(const uint8_t *buf, size_t len, struct ap_scsi_block_limits *b)
{
	memset(b, 0, sizeof(*b));
	if (!buf || len < 16 || buf[1] != 0xb0 || get_be16(buf + 2) < 12)
		return -EINVAL;
	b->otlg = get_be16(buf + 6);
	b->max_transfer = get_be32(buf + 8);
	b->optimal_transfer = get_be32(buf + 12);
	return 0;
}

int ap_sgio_parse_vpd_serial(const uint8_t *buf, size_t len, char *out, size_t outsz)
{
	size_t n, i, o = 0;

	if (!outsz)
		return -EINVAL;
	out[0] = '\0';
	if (!buf || len < 4 || buf[1] != 0x80)
		return -EINVAL;
	n = get_be16(buf + 2);
	if (n > len - 4)
		return -EINVAL;
	for (i = 0; i < n && o + 1 < outsz; i++)
		out[o++] = isprint(buf[4 + i]) ? (char)buf[4 + i] : '?';
	out[o] = '\0';
	trim_blanks(out, o);
	return out[0] ? 0 : -ENODATA;
}

#define VPD_ATA_LEN	572	/* 4 + page length 0238h */

int ap_sgio_parse_vpd_ata(const uint8_t *buf, size_t len, struct ap_vpd_ata *v)
{
	memset(v, 0, sizeof(*v));
	if (!buf || len < VPD_ATA_LEN || buf[1] != 0x89 || get_be16(buf + 2) < VPD_ATA_LEN - 4)
		return -EINVAL;
	ascii_field(buf + 8, 8, v->sat_vendor, sizeof(v->sat_vendor));
	ascii_field(buf + 16, 16, v->sat_product, sizeof(v->sat_product));
	ascii_field(buf + 32, 4, v->sat_revision, sizeof(v->sat_revision));
	v->command = buf[56];
	if (v->command != 0xec)
		return -ENODATA;	/* ATAPI (A1h) or nothing: no drive identity */
	return ap_sgio_parse_ata_identify(buf + 60, AP_ATA_IDENTIFY_LEN, &v->ata);
}

int ap_sgio_parse_vpd_devid(const uint8_t *buf, size_t len, struct ap_vpd_devid *d)
{
	size_t end, p;
	bool any = false;

	memset(d, 0, sizeof(*d));
	if (!buf || len < 4 || buf[1] != 0x83)
		return -EINVAL;
	end = 4 + (size_t)get_be16(buf + 2);
	if (end > len)
		return -EINVAL;
	for (p = 4; p + 4 <= end; p += 4 + (size_t)buf[p + 3]) {
		unsigned codeset = buf[p] & 0x0f, assoc = (buf[p + 1] >> 4) & 0x3;
		unsigned type = buf[p + 1] & 0x0f, n = buf[p + 3];
		const uint8_t *id = buf + p + 4;

		if (p + 4 + n > end)
			return -EINVAL;
		if (assoc != 0)
			continue;	/* a port's or a target's, not the logical unit's */
		if (type == 3 && codeset == 1 && n >= 8 && !d->naa_valid &&
		    (id[0] >> 4) >= 2) {	/* NAA, binary */
			d->naa = get_be64(id);
			d->naa_valid = true;
			any = true;
		} else if (type == 1 && codeset == 2 && !d->t10[0]) {	/* T10 vendor ID, ASCII */
			ascii_field(id, n, d->t10, sizeof(d->t10));
			any = any || d->t10[0];
		}
	}
	return any ? 0 : -ENODATA;
}

int ap_sgio_parse_nvme_id_ctrl(const uint8_t *buf, size_t len, struct ap_nvme_ctrl *c)
{
	memset(c, 0, sizeof(*c));
	if (!buf || len < 72)
		return -EINVAL;
	c->vid = get_le16(buf);
	ascii_field(buf + 4, 20, c->serial, sizeof(c->serial));
	ascii_field(buf + 24, 40, c->model, sizeof(c->model));
	ascii_field(buf + 64, 8, c->firmware, sizeof(c->firmware));
	return c->model[0] ? 0 : -ENODATA;
}

int ap_sgio_parse_sense(const uint8_t *buf, size_t len, struct ap_sense *s)
{
	unsigned rc;

	memset(s, 0, sizeof(*s));
	if (!buf || len < 2)
		return -EINVAL;
	rc = buf[0] & 0x7f;
	if (rc == 0x70 || rc == 0x71) {
		if (len < 3)
			return -EINVAL;
		s->key = buf[2] & 0x0f;
		if (len >= 14) {
			s->asc = buf[12];
			s->ascq = buf[13];
		}
	} else if (rc == 0x72 || rc == 0x73) {
		if (len < 4)
			return -EINVAL;
		s->key = buf[1] & 0x0f;
		s->asc = buf[2];
		s->ascq = buf[3];
	} else {
		return -EINVAL;
	}
	s->valid = true;
	return 0;
}

const char *ap_sgio_wc_source_name(enum ap_wc_source src)
{
	switch (src) {
	case AP_WC_SRC_ATA:
		return "ATA IDENTIFY word 85";
	case AP_WC_SRC_SCSI:
		return "SCSI caching mode page WCE";
	case AP_WC_SRC_NVME:
		return "NVMe volatile write cache feature";
	case AP_WC_SRC_NONE:
		break;
	}
	return "none";
}

/* ---- device queries ---- */

static bool errno_unsupported(int err)
{
	return err == ENOTTY || err == EINVAL || err == EOPNOTSUPP ||
	       err == ENOSYS || err == ENXIO || err == ENODEV;
}

/* One SG_IO data-in command: 0, -EOPNOTSUPP, or -EIO/-errno with @e. */
static int sg_run(int fd, const uint8_t *cdb, unsigned char cdblen,
		  void *buf, unsigned len, const char *what, struct ap_error *e)
{
	struct sg_io_hdr io;
	uint8_t sense[64];
	struct ap_sense s;

	memset(&io, 0, sizeof(io));
	memset(sense, 0, sizeof(sense));
	memset(buf, 0, len);
	io.interface_id = 'S';
	io.dxfer_direction = SG_DXFER_FROM_DEV;
	io.cmd_len = cdblen;
	io.cmdp = (unsigned char *)cdb;
	io.mx_sb_len = sizeof(sense);
	io.sbp = sense;
	io.dxferp = buf;
	io.dxfer_len = len;
	io.timeout = SG_TIMEOUT_MS;

	if (ioctl(fd, SG_IO, &io) < 0) {
		int err = errno;

		if (errno_unsupported(err))
			return -EOPNOTSUPP;
		return ap_error_set(e, err, "%s: SG_IO: %s", what, strerror(err));
	}
	if ((io.info & SG_INFO_OK_MASK) == SG_INFO_OK)
		return 0;

	ap_sgio_parse_sense(sense, io.sb_len_wr, &s);
	if (io.host_status != 0)
		return ap_error_set(e, EIO, "%s: host status 0x%x", what, io.host_status);
	if (s.valid && s.key == SENSE_ILLEGAL_REQUEST)
		return -EOPNOTSUPP;	/* the device does not know the command */
	/* ATA PASS-THROUGH INFORMATION AVAILABLE: success with registers */
	if (s.valid && s.key == SENSE_RECOVERED && s.asc == 0x00 && s.ascq == 0x1d)
		return 0;
	if (s.valid)
		return ap_error_set(e, EIO, "%s: sense key 0x%x, asc/ascq 0x%02x/0x%02x",
				    what, s.key, s.asc, s.ascq);
	if (io.status == SCSI_STATUS_CHECK)
		return ap_error_set(e, EIO, "%s: check condition without sense data", what);
	return ap_error_set(e, EIO, "%s: status 0x%x, driver status 0x%x", what,
			    io.status, io.driver_status);
}

/* IDENTIFY DEVICE through ATA PASS-THROUGH of @cdblen bytes (16 or 12). */
static int ata_identify(int fd, unsigned cdblen, struct ap_ata_identify *id, struct ap_error *e)
{
	uint8_t cdb[16], buf[AP_ATA_IDENTIFY_LEN];
	int rc;

	if (cdblen == 12)
		ap_sgio_cdb_ata_identify12(cdb);
	else
		ap_sgio_cdb_ata_identify(cdb);
	rc = sg_run(fd, cdb, (unsigned char)cdblen, buf, sizeof(buf), cdblen == 12 ?
		    "ATA IDENTIFY DEVICE (12)" : "ATA IDENTIFY DEVICE", e);
	if (rc)
		return rc;
	rc = ap_sgio_parse_ata_identify(buf, sizeof(buf), id);
	if (rc == -ENODATA)
		return -EOPNOTSUPP;	/* a bridge that answered with nothing */
	if (rc)
		return ap_error_set(e, EINVAL, "ATA IDENTIFY DEVICE: implausible reply (bad checksum or sector size)");
	return 0;
}

int ap_sgio_ata_identify(int fd, struct ap_ata_identify *id, struct ap_error *e)
{
	return ata_identify(fd, 16, id, e);
}

int ap_sgio_ata_identify12(int fd, struct ap_ata_identify *id, struct ap_error *e)
{
	return ata_identify(fd, 12, id, e);
}

int ap_sgio_ata_read_log(int fd, unsigned log, unsigned page, uint8_t buf[512],
			 struct ap_error *e)
{
	uint8_t cdb[16];

	ap_sgio_cdb_ata_read_log(cdb, log, page);
	return sg_run(fd, cdb, 16, buf, 512, "ATA READ LOG EXT", e);
}

int ap_sgio_vpd_ata(int fd, struct ap_vpd_ata *v, struct ap_error *e)
{
	uint8_t cdb[6], buf[VPD_ATA_LEN];
	int rc;

	ap_sgio_cdb_inquiry_vpd(cdb, 0x89, sizeof(buf));
	rc = sg_run(fd, cdb, sizeof(cdb), buf, sizeof(buf), "INQUIRY VPD 89h", e);
	if (rc)
		return rc;
	rc = ap_sgio_parse_vpd_ata(buf, sizeof(buf), v);
	if (rc == -ENODATA || rc == -EINVAL)
		return -EOPNOTSUPP;	/* no ATA drive behind it */
	if (rc)
		return ap_error_set(e, EINVAL, "INQUIRY VPD 89h: implausible IDENTIFY data");
	return 0;
}

#define VPD_BLOCK_LIMITS_LEN	64	/* 4 + page length 003Ch */

int ap_sgio_vpd_block_limits(int fd, struct ap_scsi_block_limits *b, struct ap_error *e)
{
	uint8_t cdb[6], buf[VPD_BLOCK_LIMITS_LEN];
	int rc;

	memset(buf, 0, sizeof(buf));
	ap_sgio_cdb_inquiry_vpd(cdb, 0xb0, sizeof(buf));
	rc = sg_run(fd, cdb, sizeof(cdb), buf, sizeof(buf), "INQUIRY VPD B0h", e);
	if (rc)
		return rc;
	if (ap_sgio_parse_vpd_block_limits(buf, sizeof(buf), b))
		return -EOPNOTSUPP;	/* no Block Limits page */
	return 0;
}

int ap_sgio_read_capacity16(int fd, struct ap_scsi_capacity *c, struct ap_error *e)
{
	uint8_t cdb[16], buf[AP_SCSI_RC16_LEN];
	int rc;

	ap_sgio_cdb_read_capacity16(cdb, sizeof(buf));
	rc = sg_run(fd, cdb, sizeof(cdb), buf, sizeof(buf), "READ CAPACITY(16)", e);
	if (rc)
		return rc;
	rc = ap_sgio_parse_read_capacity16(buf, sizeof(buf), c);
	if (rc)
		return ap_error_set(e, EINVAL, "READ CAPACITY(16): implausible reply");
	return 0;
}

int ap_sgio_scsi_write_cache(int fd, bool *wce, struct ap_error *e)
{
	uint8_t cdb[10], buf[64];
	int rc;

	ap_sgio_cdb_mode_sense10(cdb, 0x08, sizeof(buf));
	rc = sg_run(fd, cdb, sizeof(cdb), buf, sizeof(buf), "MODE SENSE(10) caching page", e);
	if (rc)
		return rc;
	if (ap_sgio_parse_caching_page(buf, sizeof(buf), wce))
		return ap_error_set(e, EINVAL, "MODE SENSE(10): no caching mode page in the reply");
	return 0;
}

static int nvme_admin(int fd, struct nvme_admin_cmd *cmd, const char *what,
		      struct ap_error *e)
{
	int rc = ioctl(fd, NVME_IOCTL_ADMIN_CMD, cmd);

	if (rc < 0) {
		int err = errno;

		if (errno_unsupported(err))
			return -EOPNOTSUPP;
		return ap_error_set(e, err, "%s: %s", what, strerror(err));
	}
	if (rc > 0) {
		/* NVMe status: Invalid Field / Invalid Opcode mean "not supported" */
		if ((rc & 0x7ff) == 0x01 || (rc & 0x7ff) == 0x02)
			return -EOPNOTSUPP;
		return ap_error_set(e, EIO, "%s: NVMe status 0x%x", what, (unsigned)rc);
	}
	return 0;
}

/*
 * NVMe Identify with CNS @cns (00h: the namespace @fd opens, 01h: its
 * controller) into a zeroed, page-aligned buffer of AP_NVME_ID_LEN bytes,
 * *@bufp on success (caller frees). -EOPNOTSUPP where @fd is no NVMe device.
 */
static int nvme_identify(int fd, uint32_t cns, const char *what, uint8_t **bufp,
			 struct ap_error *e)
{
	struct nvme_admin_cmd cmd;
	uint8_t *buf;
	int nsid, rc;

	nsid = ioctl(fd, NVME_IOCTL_ID);
	if (nsid < 0)
		return errno_unsupported(errno) ? -EOPNOTSUPP
			: ap_error_set(e, errno, "NVME_IOCTL_ID: %s", strerror(errno));
	if (posix_memalign((void **)&buf, 4096, AP_NVME_ID_LEN))
		return ap_error_set(e, ENOMEM, "out of memory");
	memset(buf, 0, AP_NVME_ID_LEN);
	memset(&cmd, 0, sizeof(cmd));
	cmd.opcode = NVME_ADMIN_IDENTIFY;
	if (cns == 0)
		cmd.nsid = (uint32_t)nsid;
	cmd.addr = (uint64_t)(uintptr_t)buf;
	cmd.data_len = AP_NVME_ID_LEN;
	cmd.cdw10 = cns;
	rc = nvme_admin(fd, &cmd, what, e);
	if (rc) {
		free(buf);
		return rc;
	}
	*bufp = buf;
	return 0;
}

int ap_sgio_nvme_id_ns(int fd, struct ap_nvme_ns *ns, struct ap_error *e)
{
	uint8_t *buf;
	int rc;

	rc = nvme_identify(fd, 0x00, "NVMe Identify Namespace", &buf, e);
	if (rc)
		return rc;
	if (ap_sgio_parse_nvme_id_ns(buf, AP_NVME_ID_LEN, ns))
		rc = ap_error_set(e, EINVAL, "NVMe Identify Namespace: implausible reply");
	free(buf);
	return rc;
}

int ap_sgio_nvme_id_ctrl(int fd, struct ap_nvme_ctrl *c, struct ap_error *e)
{
	uint8_t *buf;
	int rc;

	rc = nvme_identify(fd, 0x01, "NVMe Identify Controller", &buf, e);
	if (rc)
		return rc;
	rc = ap_sgio_parse_nvme_id_ctrl(buf, AP_NVME_ID_LEN, c);
	free(buf);
	return rc ? -EOPNOTSUPP : 0;
}

int ap_sgio_nvme_write_cache(int fd, bool *wce, struct ap_error *e)
{
	struct nvme_admin_cmd cmd;
	uint8_t *buf;
	bool vwc;
	int rc;

	rc = nvme_identify(fd, 0x01, "NVMe Identify Controller", &buf, e);
	if (rc)
		return rc;
	/* Identify Controller, VWC (byte 525) bit 0: a volatile cache exists */
	vwc = buf[525] & 0x01;
	free(buf);
	if (!vwc) {
		*wce = false;		/* no volatile write cache at all */
		return 0;
	}
	memset(&cmd, 0, sizeof(cmd));
	cmd.opcode = NVME_ADMIN_GET_FEATURES;
	cmd.cdw10 = NVME_FEAT_VWC;	/* SEL 000b: current */
	rc = nvme_admin(fd, &cmd, "NVMe Get Features (volatile write cache)", e);
	if (rc)
		return rc;
	*wce = cmd.result & 0x01;
	return 0;
}

int ap_sgio_write_cache(int fd, struct ap_write_cache *wc, struct ap_error *e)
{
	struct ap_ata_identify id;
	bool wce;
	int rc;

	memset(wc, 0, sizeof(*wc));
	rc = ap_sgio_nvme_write_cache(fd, &wce, e);
	if (rc == 0) {
		wc->enabled = wce;
		wc->source = AP_WC_SRC_NVME;
		return 0;
	}
	if (rc != -EOPNOTSUPP)
		return rc;
	rc = ap_sgio_ata_identify(fd, &id, e);
	if (rc == 0 && id.wc_valid) {
		wc->enabled = id.wc_supported && id.wc_enabled;
		wc->source = AP_WC_SRC_ATA;
		return 0;
	}
	ap_error_clear(e);
	rc = ap_sgio_scsi_write_cache(fd, &wce, e);
	if (rc == 0) {
		wc->enabled = wce;
		wc->source = AP_WC_SRC_SCSI;
		return 0;
	}
	return rc;
}
