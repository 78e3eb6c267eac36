// SPDX-License-Identifier: GPL-2.0-or-later
/* SG_IO / NVMe reply parsing on synthetic and recorded buffers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "device/sgio.h"
#include "device/topology.h"

static void put_le16(uint8_t *buf, unsigned word, uint16_t v)
{
	buf[2 * word] = (uint8_t)v;
	buf[2 * word + 1] = (uint8_t)(v >> 8);
}

/* Word 255: signature 0xA5 and the checksum byte that makes the sum 0. */
static void ata_seal(uint8_t *buf)
{
	uint8_t sum = 0;
	int i;

	buf[510] = 0xa5;
	for (i = 0; i < 511; i++)
		sum = (uint8_t)(sum + buf[i]);
	buf[511] = (uint8_t)(0x100 - sum);
}

/* An ATA string of @nwords words from @word, blank padded (right or left). */
static void ata_put_string(uint8_t *buf, unsigned word, unsigned nwords, const char *s,
			   bool right)
{
	char m[64];
	size_t len = strlen(s);
	unsigned i;

	memset(m, ' ', sizeof(m));
	memcpy(m + (right ? 0 : 2 * nwords - len), s, len);
	for (i = 0; i < nwords; i++)	/* ATA strings: first char in the high byte */
		put_le16(buf, word + i, (uint16_t)((m[2 * i] << 8) | m[2 * i + 1]));
}

static void ata_model(uint8_t *buf, const char *model)
{
	ata_put_string(buf, 27, 20, model, true);
}

/* An ATA IDENTIFY like a WD EARS: 512e with a jumper-shifted first sector. */
static void make_identify(uint8_t *buf, uint16_t w106, uint16_t w209)
{
	memset(buf, 0, AP_ATA_IDENTIFY_LEN);
	put_le16(buf, 0, 0x0040);
	ata_model(buf, "WDC WD20EARS-00MVWB0");
	put_le16(buf, 82, 0x746b);	/* write cache supported (bit 5) */
	put_le16(buf, 83, 0x7f61);
	put_le16(buf, 85, 0x7469);	/* write cache enabled (bit 5) */
	put_le16(buf, 87, 0x6163);
	put_le16(buf, 106, w106);
	put_le16(buf, 209, w209);
	ata_seal(buf);
}

static void test_ata_512e(void **state)
{
	uint8_t buf[AP_ATA_IDENTIFY_LEN];
	struct ap_ata_identify id;

	(void)state;
	make_identify(buf, 0x6003, 0x4000);
	assert_int_equal(ap_sgio_parse_ata_identify(buf, sizeof(buf), &id), 0);
	assert_true(id.checksum_valid);
	assert_true(id.sector_info_valid);
	assert_int_equal(id.log2_per_phys, 3);
	assert_int_equal(id.logical_sector, 512);
	assert_int_equal(id.physical_sector, 4096);
	assert_true(id.offset_valid);
	assert_int_equal(id.lowest_aligned, 0);
	assert_string_equal(id.model, "WDC WD20EARS-00MVWB0");
	assert_true(id.wc_supported);
	assert_true(id.wc_valid);
	assert_true(id.wc_enabled);
}

/* Serial (words 10-19, often left-padded), firmware (23-26), WWN (108-111). */
static void test_ata_identity(void **state)
{
	uint8_t buf[AP_ATA_IDENTIFY_LEN];
	struct ap_ata_identify id;

	(void)state;
	make_identify(buf, 0x6003, 0x4000);
	ata_put_string(buf, 10, 10, "WD-WCAZA1234567", false);
	ata_put_string(buf, 23, 4, "51.0AB51", true);
	put_le16(buf, 108, 0x5001);
	put_le16(buf, 109, 0x4ee2);
	put_le16(buf, 110, 0x0a1b);
	put_le16(buf, 111, 0x2c3d);
	ata_seal(buf);
	assert_int_equal(ap_sgio_parse_ata_identify(buf, sizeof(buf), &id), 0);
	assert_string_equal(id.serial, "WD-WCAZA1234567");
	assert_string_equal(id.firmware, "51.0AB51");
	assert_true(id.wwn_valid);
	assert_true(id.wwn == 0x50014ee20a1b2c3dULL);
	/* no WWN words: none */
	make_identify(buf, 0x6003, 0x4000);
	assert_int_equal(ap_sgio_parse_ata_identify(buf, sizeof(buf), &id), 0);
	assert_false(id.wwn_valid);
	assert_string_equal(id.serial, "");
	/* WWN words, but word 87 does not say they are valid */
	put_le16(buf, 108, 0x5001);
	put_le16(buf, 87, 0x6063);
	ata_seal(buf);
	assert_int_equal(ap_sgio_parse_ata_identify(buf, sizeof(buf), &id), 0);
	assert_false(id.wwn_valid);
}

static void test_vpd_serial(void **state)
{
	static const uint8_t pg80[] = { 0x00, 0x80, 0x00, 0x0c, ' ', ' ', 'Z', 'A', '1', 'B',
					'2', 'C', '3', 'D', ' ', ' ' };
	static const uint8_t blank[] = { 0x00, 0x80, 0x00, 0x04, ' ', ' ', ' ', ' ' };
	static const uint8_t other[] = { 0x00, 0x83, 0x00, 0x02, 'x', 'y' };
	static const uint8_t longer[] = { 0x00, 0x80, 0x00, 0x10, 'x', 'y' };
	char out[32];

	(void)state;
	assert_int_equal(ap_sgio_parse_vpd_serial(pg80, sizeof(pg80), out, sizeof(out)), 0);
	assert_string_equal(out, "ZA1B2C3D");
	/* truncated to the buffer */
	assert_int_equal(ap_sgio_parse_vpd_serial(pg80, sizeof(pg80), out, 6), 0);
	assert_string_equal(out, "ZA1");
	assert_int_equal(ap_sgio_parse_vpd_serial(blank, sizeof(blank), out, sizeof(out)),
			 -ENODATA);
	assert_int_equal(ap_sgio_parse_vpd_serial(other, sizeof(other), out, sizeof(out)),
			 -EINVAL);
	assert_int_equal(ap_sgio_parse_vpd_serial(longer, sizeof(longer), out, sizeof(out)),
			 -EINVAL);
	assert_int_equal(ap_sgio_parse_vpd_serial(pg80, 3, out, sizeof(out)), -EINVAL);
}

static void test_ata_shifted(void **state)
{
	uint8_t buf[AP_ATA_IDENTIFY_LEN];
	struct ap_ata_identify id;
	unsigned off;

	(void)state;
	/* "jumper 7-8": LBA 63 aligned, i.e. the offset of LBA 0 is 1 */
	for (off = 0; off < 8; off++) {
		make_identify(buf, 0x6003, (uint16_t)(0x4000 | off));
		assert_int_equal(ap_sgio_parse_ata_identify(buf, sizeof(buf), &id), 0);
		assert_true(id.offset_valid);
		assert_int_equal(id.sector_offset, off);
		assert_int_equal(id.lowest_aligned, (8 - off) % 8);
	}
	make_identify(buf, 0x6003, 0x4001);
	assert_int_equal(ap_sgio_parse_ata_identify(buf, sizeof(buf), &id), 0);
	assert_int_equal(id.lowest_aligned, 7);
	assert_int_equal((63 - id.lowest_aligned) % 8, 0);

	/* an offset past the physical sector is not a claim */
	make_identify(buf, 0x6003, 0x4009);
	assert_int_equal(ap_sgio_parse_ata_identify(buf, sizeof(buf), &id), 0);
	assert_false(id.offset_valid);
	assert_int_equal(id.lowest_aligned, 0);
	/* word 209 not valid (bit 15 set) */
	make_identify(buf, 0x6003, 0x8001);
	assert_int_equal(ap_sgio_parse_ata_identify(buf, sizeof(buf), &id), 0);
	assert_false(id.offset_valid);
}

static void test_ata_4kn_and_legacy(void **state)
{
	uint8_t buf[AP_ATA_IDENTIFY_LEN];
	struct ap_ata_identify id;

	(void)state;
	/* 4Kn: long logical sectors of 2048 words */
	make_identify(buf, 0x5000, 0);
	put_le16(buf, 117, 2048);
	put_le16(buf, 118, 0);
	ata_seal(buf);
	assert_int_equal(ap_sgio_parse_ata_identify(buf, sizeof(buf), &id), 0);
	assert_int_equal(id.logical_sector, 4096);
	assert_int_equal(id.physical_sector, 4096);
	assert_false(id.offset_valid);

	/* long logical sector smaller than 256 words: implausible */
	put_le16(buf, 117, 100);
	ata_seal(buf);
	assert_int_equal(ap_sgio_parse_ata_identify(buf, sizeof(buf), &id), -EINVAL);

	/* an old drive: word 106 not valid -> 512/512 */
	make_identify(buf, 0x0000, 0);
	assert_int_equal(ap_sgio_parse_ata_identify(buf, sizeof(buf), &id), 0);
	assert_false(id.sector_info_valid);
	assert_int_equal(id.logical_sector, 512);
	assert_int_equal(id.physical_sector, 512);
	/* bit 15 set: word 106 invalid as well */
	make_identify(buf, 0xc003, 0);
	assert_int_equal(ap_sgio_parse_ata_identify(buf, sizeof(buf), &id), 0);
	assert_false(id.sector_info_valid);
	assert_int_equal(id.physical_sector, 512);
	/* valid word 106 without bit 13: one logical per physical */
	make_identify(buf, 0x4003, 0);
	assert_int_equal(ap_sgio_parse_ata_identify(buf, sizeof(buf), &id), 0);
	assert_true(id.sector_info_valid);
	assert_int_equal(id.physical_sector, 512);
}

static void test_ata_bad(void **state)
{
	uint8_t buf[AP_ATA_IDENTIFY_LEN];
	struct ap_ata_identify id;

	(void)state;
	memset(buf, 0, sizeof(buf));
	assert_int_equal(ap_sgio_parse_ata_identify(buf, sizeof(buf), &id), -ENODATA);
	memset(buf, 0xff, sizeof(buf));
	assert_int_equal(ap_sgio_parse_ata_identify(buf, sizeof(buf), &id), -ENODATA);
	make_identify(buf, 0x6003, 0x4000);
	assert_int_equal(ap_sgio_parse_ata_identify(buf, 511, &id), -EINVAL);
	assert_int_equal(ap_sgio_parse_ata_identify(NULL, 512, &id), -EINVAL);
	buf[100] ^= 0x01;		/* checksum no longer matches */
	assert_int_equal(ap_sgio_parse_ata_identify(buf, sizeof(buf), &id), -EINVAL);
	/* without the 0xA5 signature the checksum is not checked */
	buf[510] = 0;
	assert_int_equal(ap_sgio_parse_ata_identify(buf, sizeof(buf), &id), 0);
	assert_false(id.checksum_valid);
	/* write cache words not valid */
	make_identify(buf, 0x6003, 0x4000);
	put_le16(buf, 87, 0x0000);
	put_le16(buf, 83, 0xffff);
	ata_seal(buf);
	assert_int_equal(ap_sgio_parse_ata_identify(buf, sizeof(buf), &id), 0);
	assert_false(id.wc_valid);
	assert_false(id.wc_supported);
	/* cache present but disabled */
	make_identify(buf, 0x6003, 0x4000);
	put_le16(buf, 85, 0x7449);
	ata_seal(buf);
	assert_int_equal(ap_sgio_parse_ata_identify(buf, sizeof(buf), &id), 0);
	assert_true(id.wc_valid);
	assert_false(id.wc_enabled);
}

static void make_rc16(uint8_t *b, uint64_t last, uint32_t bl, unsigned exp, unsigned lal, uint8_t tp)
{
	int i;

	memset(b, 0, AP_SCSI_RC16_LEN);
	for (i = 0; i < 8; i++)
		b[i] = (uint8_t)(last >> (56 - 8 * i));
	b[8] = (uint8_t)(bl >> 24);
	b[9] = (uint8_t)(bl >> 16);
	b[10] = (uint8_t)(bl >> 8);
	b[11] = (uint8_t)bl;
	b[13] = (uint8_t)exp;
	b[14] = (uint8_t)(tp | ((lal >> 8) & 0x3f));
	b[15] = (uint8_t)lal;
}

static void test_read_capacity16(void **state)
{
	uint8_t b[AP_SCSI_RC16_LEN];
	struct ap_scsi_capacity c;

	(void)state;
	/* shaped like a 2 TB 512e SATA disk (3907029168 sectors) behind libata's SAT */
	static const uint8_t recorded[32] = {
		0x00, 0x00, 0x00, 0x00, 0xe8, 0xe0, 0x88, 0xaf,
		0x00, 0x00, 0x02, 0x00, 0x00, 0x03, 0x00, 0x00,
	};
	assert_int_equal(ap_sgio_parse_read_capacity16(recorded, sizeof(recorded), &c), 0);
	assert_int_equal(c.nblocks, 3907029168ULL);
	assert_int_equal(c.logical_sector, 512);
	assert_int_equal(c.exponent, 3);
	assert_int_equal(c.physical_sector, 4096);
	assert_int_equal(c.lowest_aligned, 0);

	make_rc16(b, 1000, 512, 3, 7, 0xc0);
	assert_int_equal(ap_sgio_parse_read_capacity16(b, sizeof(b), &c), 0);
	assert_int_equal(c.nblocks, 1001);
	assert_int_equal(c.lowest_aligned, 7);
	assert_true(c.lbpme);
	assert_true(c.lbprz);

	make_rc16(b, 1000, 4096, 0, 0, 0);
	assert_int_equal(ap_sgio_parse_read_capacity16(b, sizeof(b), &c), 0);
	assert_int_equal(c.physical_sector, 4096);

	make_rc16(b, 1000, 520, 0, 0, 0);	/* not a power of two */
	assert_int_equal(ap_sgio_parse_read_capacity16(b, sizeof(b), &c), -EINVAL);
	make_rc16(b, 1000, 0, 0, 0, 0);
	assert_int_equal(ap_sgio_parse_read_capacity16(b, sizeof(b), &c), -EINVAL);
	make_rc16(b, 1000, 512, 3, 8, 0);	/* lowest aligned outside the block */
	assert_int_equal(ap_sgio_parse_read_capacity16(b, sizeof(b), &c), -EINVAL);
	make_rc16(b, UINT64_MAX, 512, 0, 0, 0);
	assert_int_equal(ap_sgio_parse_read_capacity16(b, sizeof(b), &c), -EINVAL);
	make_rc16(b, 1000, 512, 3, 0, 0);
	assert_int_equal(ap_sgio_parse_read_capacity16(b, 16, &c), -EINVAL);
}

static void test_caching_page(void **state)
{
	uint8_t b[64];
	bool wce = false;

	(void)state;
	/* MODE SENSE(10) with DBD: header of 8, then page 08h of 0x12 bytes */
	memset(b, 0, sizeof(b));
	b[1] = 6 + 20;
	b[8] = 0x08;
	b[9] = 0x12;
	b[10] = 0x04;		/* WCE */
	assert_int_equal(ap_sgio_parse_caching_page(b, sizeof(b), &wce), 0);
	assert_true(wce);
	b[10] = 0x01;		/* RCD only */
	assert_int_equal(ap_sgio_parse_caching_page(b, sizeof(b), &wce), 0);
	assert_false(wce);

	/* a device that ignores DBD and returns an 8-byte block descriptor */
	memset(b, 0, sizeof(b));
	b[1] = 6 + 8 + 20;
	b[7] = 8;
	b[16] = 0x88;		/* PS bit set, page 08h */
	b[17] = 0x12;
	b[18] = 0x04;
	assert_int_equal(ap_sgio_parse_caching_page(b, sizeof(b), &wce), 0);
	assert_true(wce);

	/* wrong page, subpage format, truncated data */
	b[16] = 0x0a;
	assert_int_equal(ap_sgio_parse_caching_page(b, sizeof(b), &wce), -EINVAL);
	b[16] = 0x48;
	assert_int_equal(ap_sgio_parse_caching_page(b, sizeof(b), &wce), -EINVAL);
	b[16] = 0x08;
	b[1] = 6 + 8;		/* mode data ends before the page */
	assert_int_equal(ap_sgio_parse_caching_page(b, sizeof(b), &wce), -EINVAL);
	b[7] = 200;		/* block descriptors beyond the buffer */
	b[1] = 250;
	assert_int_equal(ap_sgio_parse_caching_page(b, sizeof(b), &wce), -EINVAL);
	assert_int_equal(ap_sgio_parse_caching_page(b, 4, &wce), -EINVAL);
}

static void put_lbaf(uint8_t *b, unsigned idx, unsigned ms, unsigned lbads)
{
	uint32_t v = ms | (lbads << 16);

	b[128 + 4 * idx] = (uint8_t)v;
	b[129 + 4 * idx] = (uint8_t)(v >> 8);
	b[130 + 4 * idx] = (uint8_t)(v >> 16);
	b[131 + 4 * idx] = (uint8_t)(v >> 24);
}

static void test_nvme_id_ns(void **state)
{
	uint8_t *b = calloc(1, AP_NVME_ID_LEN);
	struct ap_nvme_ns ns;

	(void)state;
	assert_non_null(b);
	b[0] = 0x00;
	b[1] = 0x10;			/* NSZE 4096 blocks */
	b[25] = 1;			/* two formats */
	b[26] = 0;			/* format 0 in use */
	put_lbaf(b, 0, 0, 9);
	put_lbaf(b, 1, 0, 12);
	assert_int_equal(ap_sgio_parse_nvme_id_ns(b, AP_NVME_ID_LEN, &ns), 0);
	assert_int_equal(ns.nsze, 4096);
	assert_int_equal(ns.nlbaf, 2);
	assert_int_equal(ns.logical_sector, 512);
	assert_false(ns.optperf_valid);
	assert_int_equal(ns.physical_sector, 0);	/* not stated */

	/* NPWG 8 blocks (0-based 7), NOWS 64 blocks, format 1 */
	b[24] = 0x10 | 0x02;
	b[36] = 7;			/* NAWUPF */
	b[64] = 7;
	b[72] = 63;
	b[26] = 0;
	assert_int_equal(ap_sgio_parse_nvme_id_ns(b, AP_NVME_ID_LEN, &ns), 0);
	assert_true(ns.optperf_valid);
	assert_true(ns.atomics_valid);
	assert_int_equal(ns.npwg, 8);
	assert_int_equal(ns.nows, 64);
	assert_int_equal(ns.nawupf, 8);
	assert_int_equal(ns.physical_sector, 4096);
	assert_int_equal(ns.optimal_io, 32768);

	b[26] = 1;			/* 4K format */
	assert_int_equal(ap_sgio_parse_nvme_id_ns(b, AP_NVME_ID_LEN, &ns), 0);
	assert_int_equal(ns.logical_sector, 4096);
	assert_int_equal(ns.physical_sector, 32768);

	/* atomics only */
	b[24] = 0x02;
	b[26] = 0;
	assert_int_equal(ap_sgio_parse_nvme_id_ns(b, AP_NVME_ID_LEN, &ns), 0);
	assert_int_equal(ns.physical_sector, 4096);

	/* format index beyond NLBAF, unsupported format, short buffer */
	b[26] = 2;
	assert_int_equal(ap_sgio_parse_nvme_id_ns(b, AP_NVME_ID_LEN, &ns), -EINVAL);
	b[26] = 0;
	put_lbaf(b, 0, 0, 0);
	assert_int_equal(ap_sgio_parse_nvme_id_ns(b, AP_NVME_ID_LEN, &ns), -EINVAL);
	put_lbaf(b, 0, 8, 9);
	assert_int_equal(ap_sgio_parse_nvme_id_ns(b, AP_NVME_ID_LEN, &ns), 0);
	assert_int_equal(ns.metadata, 8);
	assert_int_equal(ap_sgio_parse_nvme_id_ns(b, 200, &ns), -EINVAL);

	/* more than 16 formats: FLBAS bits 6:5 extend the index */
	b[25] = 19;			/* 20 formats */
	put_lbaf(b, 17, 0, 12);
	b[26] = 0x20 | 0x01;		/* index 17 */
	assert_int_equal(ap_sgio_parse_nvme_id_ns(b, AP_NVME_ID_LEN, &ns), 0);
	assert_int_equal(ns.flbas_index, 17);
	assert_int_equal(ns.logical_sector, 4096);
	free(b);
}

static void test_sense(void **state)
{
	struct ap_sense s;
	uint8_t fixed[18] = { 0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x20, 0x00 };
	uint8_t desc[8] = { 0x72, 0x01, 0x00, 0x1d, 0, 0, 0, 0 };
	uint8_t junk[4] = { 0x12, 0, 0, 0 };

	(void)state;
	assert_int_equal(ap_sgio_parse_sense(fixed, sizeof(fixed), &s), 0);
	assert_true(s.valid);
	assert_int_equal(s.key, 5);
	assert_int_equal(s.asc, 0x20);
	assert_int_equal(ap_sgio_parse_sense(desc, sizeof(desc), &s), 0);
	assert_int_equal(s.key, 1);
	assert_int_equal(s.ascq, 0x1d);
	assert_int_equal(ap_sgio_parse_sense(junk, sizeof(junk), &s), -EINVAL);
	assert_false(s.valid);
	assert_int_equal(ap_sgio_parse_sense(fixed, 1, &s), -EINVAL);
	assert_int_equal(ap_sgio_parse_sense(desc, 3, &s), -EINVAL);
}


/*
 * VPD page 89h as a USB-SATA bridge answers it (SAT-2 10.3.4, constructed
 * per the spec): the SAT vendor and product, the ATA signature, IDENTIFY
 * DEVICE (ECh) and the drive's 512 bytes of IDENTIFY data from byte 60.
 */
static void make_vpd89(uint8_t *b, const char *vendor, const char *product, const char *model,
		       const char *serial, const char *fw)
{
	memset(b, 0, 572);
	b[1] = 0x89;
	b[2] = 0x02;
	b[3] = 0x38;				/* page length 0238h */
	memset(b + 8, ' ', 28);
	memcpy(b + 8, vendor, strlen(vendor));
	memcpy(b + 16, product, strlen(product));
	memcpy(b + 32, "0100", 4);
	b[36] = 0x34;				/* the signature: a D2H register FIS */
	b[56] = 0xec;				/* IDENTIFY DEVICE */
	make_identify(b + 60, 0x6003, 0x4000);
	ata_model(b + 60, model);
	ata_put_string(b + 60, 10, 10, serial, false);
	ata_put_string(b + 60, 23, 4, fw, true);
	ata_seal(b + 60);
}

static void test_vpd_ata(void **state)
{
	uint8_t b[600];
	struct ap_vpd_ata v;

	(void)state;
	make_vpd89(b, "JMicron", "Generic", "ST4000DM004-2CV104", "ZFN1A2B3", "0001");
	assert_int_equal(ap_sgio_parse_vpd_ata(b, 572, &v), 0);
	assert_string_equal(v.sat_vendor, "JMicron");
	assert_string_equal(v.sat_product, "Generic");
	assert_string_equal(v.sat_revision, "0100");
	assert_int_equal(v.command, 0xec);
	assert_string_equal(v.ata.model, "ST4000DM004-2CV104");
	assert_string_equal(v.ata.serial, "ZFN1A2B3");
	assert_string_equal(v.ata.firmware, "0001");
	assert_int_equal(v.ata.physical_sector, 4096);
	/* libata's own page: SAT vendor "linux", product "libata" */
	make_vpd89(b, "linux", "libata", "WDC WD40EFRX-68N32N0", "WD-WCC7K1", "82.00A82");
	assert_int_equal(ap_sgio_parse_vpd_ata(b, 572, &v), 0);
	assert_string_equal(v.sat_vendor, "linux");
	assert_string_equal(v.ata.model, "WDC WD40EFRX-68N32N0");
	assert_string_equal(v.ata.firmware, "82.00A82");
	/* short, another page, an ATAPI device, a bad IDENTIFY checksum */
	assert_int_equal(ap_sgio_parse_vpd_ata(b, 571, &v), -EINVAL);
	b[1] = 0x80;
	assert_int_equal(ap_sgio_parse_vpd_ata(b, 572, &v), -EINVAL);
	b[1] = 0x89;
	b[56] = 0xa1;
	assert_int_equal(ap_sgio_parse_vpd_ata(b, 572, &v), -ENODATA);
	b[56] = 0xec;
	b[60 + 100] ^= 0xff;
	assert_int_equal(ap_sgio_parse_vpd_ata(b, 572, &v), -EINVAL);
}

/* VPD page 83h: a T10 vendor ID designator and an NAA one, the logical unit's. */
static void test_vpd_devid(void **state)
{
	static const uint8_t page[] = {
		0x00, 0x83, 0x00, 0x40,
		/* T10 vendor ID, ASCII, logical unit: libata's "ATA     MODEL SERIAL" */
		0x02, 0x01, 0x00, 0x24,
		'A', 'T', 'A', ' ', ' ', ' ', ' ', ' ', 'S', 'T', '4', '0', '0', '0', 'D', 'M',
		'0', '0', '4', '-', '2', 'C', 'V', '1', '0', '4', ' ', ' ', 'Z', 'F', 'N', '1',
		'A', '2', 'B', '3',
		/* NAA 5, binary, of a target port (skipped) */
		0x01, 0x93, 0x00, 0x08, 0x51, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
		/* NAA 5, binary, logical unit */
		0x01, 0x03, 0x00, 0x08, 0x50, 0x00, 0xc5, 0x00, 0xa1, 0xb2, 0xc3, 0xd4,
	};
	struct ap_vpd_devid d;
	uint8_t bad[sizeof(page)];

	(void)state;
	assert_int_equal(ap_sgio_parse_vpd_devid(page, sizeof(page), &d), 0);
	assert_true(d.naa_valid);
	assert_true(d.naa == 0x5000c500a1b2c3d4ULL);
	assert_string_equal(d.t10, "ATA     ST4000DM004-2CV104  ZFN1A2B3");
	memcpy(bad, page, sizeof(page));
	bad[3] = 0x7f;			/* longer than the buffer */
	assert_int_equal(ap_sgio_parse_vpd_devid(bad, sizeof(bad), &d), -EINVAL);
	memcpy(bad, page, sizeof(page));
	bad[3] = 0;			/* no designator */
	assert_int_equal(ap_sgio_parse_vpd_devid(bad, sizeof(bad), &d), -ENODATA);
}

/* NVMe Identify Controller: SN, MN, FR (NVMe 1.4 figure 251), blank padded. */
static void test_nvme_id_ctrl(void **state)
{
	uint8_t b[4096];
	struct ap_nvme_ctrl c;

	(void)state;
	memset(b, 0, sizeof(b));
	b[0] = 0x4d;
	b[1] = 0x14;			/* VID 144Dh */
	memset(b + 4, ' ', 68);
	memcpy(b + 4, "S4EWNX0N123456", 14);
	memcpy(b + 24, "Samsung SSD 970 EVO Plus 1TB", 28);
	memcpy(b + 64, "2B2QEXM7", 8);
	assert_int_equal(ap_sgio_parse_nvme_id_ctrl(b, sizeof(b), &c), 0);
	assert_int_equal(c.vid, 0x144d);
	assert_string_equal(c.serial, "S4EWNX0N123456");
	assert_string_equal(c.model, "Samsung SSD 970 EVO Plus 1TB");
	assert_string_equal(c.firmware, "2B2QEXM7");
	memset(b + 24, ' ', 40);
	assert_int_equal(ap_sgio_parse_nvme_id_ctrl(b, sizeof(b), &c), -ENODATA);
	assert_int_equal(ap_sgio_parse_nvme_id_ctrl(b, 71, &c), -EINVAL);
}

static void test_cdbs(void **state)
{
	uint8_t c16[16], c10[10];
	static const uint8_t identify[16] = {
		0x85, 0x08, 0x0e, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0xec, 0 };
	static const uint8_t rc16[16] = {
		0x9e, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32, 0, 0 };
	static const uint8_t ms10[10] = { 0x5a, 0x08, 0x08, 0, 0, 0, 0, 0, 64, 0 };
	static const uint8_t identify12[12] = { 0xa1, 0x08, 0x0e, 0, 1, 0, 0, 0, 0, 0xec, 0, 0 };
	static const uint8_t vpd89[6] = { 0x12, 0x01, 0x89, 0x02, 0x3c, 0 };
	uint8_t c12[12], c6[6];

	(void)state;
	ap_sgio_cdb_ata_identify(c16);
	assert_memory_equal(c16, identify, 16);
	ap_sgio_cdb_read_capacity16(c16, 32);
	assert_memory_equal(c16, rc16, 16);
	ap_sgio_cdb_mode_sense10(c10, 0x08, 64);
	assert_memory_equal(c10, ms10, 10);
	ap_sgio_cdb_ata_identify12(c12);
	assert_memory_equal(c12, identify12, 12);
	ap_sgio_cdb_inquiry_vpd(c6, 0x89, 572);
	assert_memory_equal(c6, vpd89, 6);
	/* READ LOG EXT, log 30h page 09h: 48-bit PIO in, LBA 7:0 the log, 15:8 the page */
	{
		static const uint8_t readlog[16] = { 0x85, 0x09, 0x0e, 0, 0, 0, 1, 0, 0x30, 0,
						     0x09, 0, 0, 0, 0x2f, 0 };

		ap_sgio_cdb_ata_read_log(c16, 0x30, 0x09);
		assert_memory_equal(c16, readlog, 16);
	}
	assert_string_equal(ap_sgio_wc_source_name(AP_WC_SRC_ATA), "ATA IDENTIFY word 85");
}

/* The layers side by side: consolidation and disagreements (pure). */
static void test_topology_compare(void **state)
{
	struct ap_topology t;
	uint8_t buf[AP_ATA_IDENTIFY_LEN], rc16[AP_SCSI_RC16_LEN];

	(void)state;
	memset(&t, 0, sizeof(t));
	t.kernel.available = true;
	t.kernel.logical = 512;
	t.kernel.physical = 512;
	t.kernel.write_cache = 1;
	/* a USB bridge: the kernel says 512, the drive's IDENTIFY says 4096 with offset 1 */
	make_identify(buf, 0x6003, 0x4001);
	assert_int_equal(ap_sgio_parse_ata_identify(buf, sizeof(buf), &t.drive.ata), 0);
	t.drive.ata_ok = true;
	t.drive.wc_known = true;
	t.drive.wc.enabled = true;
	t.drive.wc.source = AP_WC_SRC_ATA;
	ap_topology_consolidate(&t.drive);
	assert_true(t.drive.available);
	assert_string_equal(t.drive.source, "ATA IDENTIFY");
	assert_int_equal(t.drive.physical, 4096);
	assert_true(t.drive.lowest_aligned_known);
	assert_int_equal(t.drive.lowest_aligned, 7);
	ap_topology_compare(&t);
	assert_int_equal(t.ndisagreements, 2);
	assert_string_equal(t.disagreements[0], "physical sector: the kernel reports 512 bytes, "
			    "the drive (ATA IDENTIFY) claims 4096");
	assert_string_equal(t.disagreements[1], "alignment: the kernel reports an alignment "
			    "offset of 0 bytes, the drive (ATA IDENTIFY) claims lowest aligned LBA 7 "
			    "(3584 bytes)");

	/* the bridge's SCSI translation disagrees with the drive too */
	make_rc16(rc16, 1000, 512, 0, 0, 0);
	assert_int_equal(ap_sgio_parse_read_capacity16(rc16, sizeof(rc16), &t.drive.scsi), 0);
	t.drive.scsi_ok = true;
	ap_topology_consolidate(&t.drive);
	assert_string_equal(t.drive.source, "ATA IDENTIFY");
	t.kernel.physical = 4096;
	t.kernel.alignment_offset = 3584;
	t.kernel.write_cache = 0;
	ap_topology_compare(&t);
	assert_int_equal(t.ndisagreements, 3);
	assert_non_null(strstr(t.disagreements[0], "ATA IDENTIFY claims 4096 bytes, SCSI READ CAPACITY(16) 512"));
	assert_non_null(strstr(t.disagreements[1], "lowest aligned LBA: ATA IDENTIFY claims 7, SCSI"));
	assert_non_null(strstr(t.disagreements[2], "write cache: the kernel's queue is in write through mode"));

	/* everyone agrees: nothing to say; a drive that does not answer: nothing either */
	make_identify(buf, 0x6003, 0x4000);
	assert_int_equal(ap_sgio_parse_ata_identify(buf, sizeof(buf), &t.drive.ata), 0);
	t.drive.scsi_ok = false;
	t.drive.wc_known = false;
	t.kernel.alignment_offset = 0;
	ap_topology_consolidate(&t.drive);
	ap_topology_compare(&t);
	assert_int_equal(t.ndisagreements, 0);
	t.drive.ata_ok = false;
	ap_topology_consolidate(&t.drive);
	assert_false(t.drive.available);
	assert_null(t.drive.source);
	t.kernel.physical = 512;
	ap_topology_compare(&t);
	assert_int_equal(t.ndisagreements, 0);
	ap_topology_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ata_512e),
		cmocka_unit_test(test_ata_identity),
		cmocka_unit_test(test_vpd_serial),
		cmocka_unit_test(test_ata_shifted),
		cmocka_unit_test(test_ata_4kn_and_legacy),
		cmocka_unit_test(test_ata_bad),
		cmocka_unit_test(test_read_capacity16),
		cmocka_unit_test(test_caching_page),
		cmocka_unit_test(test_nvme_id_ns),
		cmocka_unit_test(test_sense),
		cmocka_unit_test(test_vpd_ata),
		cmocka_unit_test(test_vpd_devid),
		cmocka_unit_test(test_nvme_id_ctrl),
		cmocka_unit_test(test_cdbs),
		cmocka_unit_test(test_topology_compare),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
