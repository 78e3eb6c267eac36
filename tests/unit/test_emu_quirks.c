// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What real drives add to the emulated drive (issue 26), as pure model
 * physics: read-ahead answered from the buffer, an RMW buffer that hides
 * the extra revolution, flushes acknowledged without writing, the power
 * cut's lost cache and torn sectors, and their spec keys and profiles.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emu/model.h"
#include "emu/emuP.h"
#include "lib/util.h"
#include "emu_fixture.h"

#define MS	1000000ULL

/* base + bus for @len bytes on the hdd-7200 family: what a buffer hit costs */
static uint64_t hit_ns(uint64_t len)
{
	return 50000 + len * 1000000000ULL / 300000000;
}

static uint64_t req(struct ap_emu_model *m, enum ap_emu_op op, uint64_t off, uint64_t len,
		    uint64_t now, struct ap_emu_cost *c)
{
	ap_emu_model_request(m, op, off, len, 0, now, c);
	return c->cost_ns;
}

/* Read @places places on hdd-7200-ra: is the first one's segment still there? */
static bool first_still_buffered(unsigned places, uint64_t x)
{
	struct ap_emu_model m;
	struct ap_emu_cost c;
	uint64_t t = T0;
	unsigned i;

	model_for(&m, "hdd-7200-ra,cache=off");
	for (i = 0; i < places; i++)
		t += req(&m, AP_EMU_READ, x * (i + 1), 4096, t, &c) + MS;
	req(&m, AP_EMU_READ, x, 4096, t, &c);
	return c.ra_hit;
}

static void test_read_ahead(void **state)
{
	struct ap_emu_model m, n;
	struct ap_emu_cost c;
	uint64_t x = 1000 * 1250304ULL + 4096, t, i;

	(void)state;
	/* the first read goes to the media; read again, it costs nothing mechanical */
	model_for(&m, "hdd-7200-ra,cache=off");
	model_for(&n, "hdd-7200,cache=off");
	t = T0 + req(&m, AP_EMU_READ, x, 65536, T0, &c);
	assert_false(c.ra_hit);
	assert_true(c.cost_ns > REV7200 / 100);
	req(&n, AP_EMU_READ, x, 65536, T0, &c);
	for (i = 0; i < 20; i++) {
		uint64_t at = t + i * 1234567;

		assert_int_equal(req(&m, AP_EMU_READ, x, 65536, at, &c), hit_ns(65536));
		assert_true(c.ra_hit);
		/* without read-ahead: a rotation at least, somewhere in a revolution */
		req(&n, AP_EMU_READ, x, 65536, at, &c);
		assert_false(c.ra_hit);
		assert_true(c.cost_ns > hit_ns(65536));
	}
	/* read-ahead accrues while idle: the next 64 KiB after 5 ms (0.43 ms of media) */
	model_for(&m, "hdd-7200-ra,cache=off");
	t = T0 + req(&m, AP_EMU_READ, x, 65536, T0, &c);
	assert_int_equal(req(&m, AP_EMU_READ, x + 65536, 65536, t + 5 * MS, &c), hit_ns(65536));
	assert_true(c.ra_hit);
	/* ... not yet at once */
	model_for(&m, "hdd-7200-ra,cache=off");
	t = T0 + req(&m, AP_EMU_READ, x, 65536, T0, &c);
	req(&m, AP_EMU_READ, x + 65536, 65536, t, &c);
	assert_false(c.ra_hit);
	/* bounded by the segment: after 10 s, 1 MiB from the read's start and no more */
	model_for(&m, "hdd-7200-ra,cache=off");
	t = T0 + req(&m, AP_EMU_READ, x, 65536, T0, &c);
	req(&m, AP_EMU_READ, x + (1 << 20) - 4096, 4096, t + 10000 * MS, &c);
	assert_true(c.ra_hit);
	req(&m, AP_EMU_READ, x + (1 << 20), 4096, t + 10001 * MS, &c);
	assert_false(c.ra_hit);
	/* the next command stops it (HGST): a write elsewhere at once, then nothing more */
	model_for(&m, "hdd-7200-ra,cache=off");
	t = T0 + req(&m, AP_EMU_READ, x, 65536, T0, &c);
	t += req(&m, AP_EMU_WRITE, 5 * x, 4096, t, &c);
	req(&m, AP_EMU_READ, x + 65536, 65536, t + 100 * MS, &c);
	assert_false(c.ra_hit);
	/* ... except a read the segment answers: it streams on */
	model_for(&m, "hdd-7200-ra,cache=off");
	t = T0 + req(&m, AP_EMU_READ, x, 65536, T0, &c);
	t += req(&m, AP_EMU_READ, x, 4096, t, &c);
	assert_true(c.ra_hit);
	req(&m, AP_EMU_READ, x + 65536, 65536, t + 100 * MS, &c);
	assert_true(c.ra_hit);
	/* a write invalidates the segment it overlaps */
	model_for(&m, "hdd-7200-ra,cache=off");
	t = T0 + req(&m, AP_EMU_READ, x, 65536, T0, &c);
	t += req(&m, AP_EMU_WRITE, x + 8192, 4096, t, &c);
	req(&m, AP_EMU_READ, x, 4096, t + MS, &c);
	assert_false(c.ra_hit);
	/* four segments, LRU: five places evict the first */
	assert_true(first_still_buffered(4, x));
	assert_false(first_still_buffered(5, x));
	/* no read-ahead key: the hdd model as before, never a hit */
	model_for(&n, "hdd-7200");
	t = T0 + req(&n, AP_EMU_READ, x, 65536, T0, &c);
	req(&n, AP_EMU_READ, x, 65536, t + MS, &c);
	assert_false(c.ra_hit);
}

/*
 * A read of @rlen bytes at LBA 40, then a 4 KiB write there, on
 * hdd-lba7-rmwbuf: the write's cost in *c, and how much more it costs
 * without the RMW buffer.
 */
static uint64_t read_then_write(uint64_t rlen, struct ap_emu_cost *c)
{
	struct ap_emu_model a, b;
	struct ap_emu_cost cb;
	uint64_t t;

	model_for(&a, "hdd-lba7-rmwbuf");
	model_for(&b, "hdd-lba7-rmwbuf,rmw-buffer=0");
	t = T0 + req(&a, AP_EMU_READ, 40 * S, rlen, T0, c);
	req(&b, AP_EMU_READ, 40 * S, rlen, T0, &cb);
	req(&a, AP_EMU_WRITE, 40 * S, 4096, t, c);
	req(&b, AP_EMU_WRITE, 40 * S, 4096, t, &cb);
	return cb.cost_ns - c->cost_ns;
}

static void test_rmw_buffer(void **state)
{
	struct ap_emu_model a, b;
	struct ap_emu_cost ca, cb;
	uint64_t now, t;

	(void)state;
	/* 4096/LBA 7, cache off: a 4 KiB write at LBA 40 straddles two sectors */
	for (now = T0; now < T0 + 2 * REV7200; now += 1777777) {
		model_for(&a, "hdd-lba7-rmwbuf");
		model_for(&b, "hdd-lba7-rmwbuf,rmw-buffer=0");
		/* the first time the buffer is empty: the same revolution */
		assert_int_equal(req(&a, AP_EMU_WRITE, 40 * S, 4096, now, &ca),
				 req(&b, AP_EMU_WRITE, 40 * S, 4096, now, &cb));
		assert_int_equal(ca.rmw, 2);
		assert_int_equal(ca.rmw_buffered, 0);
		/* again: both sectors are in the buffer, no extra revolution */
		t = now + ca.cost_ns + 3 * MS;
		req(&a, AP_EMU_WRITE, 40 * S, 4096, t, &ca);
		req(&b, AP_EMU_WRITE, 40 * S, 4096, t, &cb);
		assert_int_equal(cb.cost_ns - ca.cost_ns, REV7200);
		assert_int_equal(ca.rmw, 2);		/* still a read-modify-write ... */
		assert_int_equal(ca.rmw_buffered, 2);	/* ... from the buffer */
		assert_int_equal(cb.rmw_buffered, 0);
	}
	/* a read brings the sectors at its ends in: the write after it pays nothing extra */
	assert_int_equal(read_then_write(4096, &ca), REV7200);
	assert_int_equal(ca.rmw_buffered, 2);
	/* one of two partial sectors buffered: the other still needs its revolution */
	assert_int_equal(read_then_write(512, &ca), 0);
	assert_int_equal(ca.rmw_buffered, 1);
	/* LRU of 2 entries: a third and fourth sector evict the first two */
	model_for(&a, "hdd-lba7-rmwbuf,rmw-buffer=2");
	t = T0 + req(&a, AP_EMU_WRITE, 40 * S, 4096, T0, &ca);
	t += req(&a, AP_EMU_WRITE, 400 * S, 4096, t, &ca);
	req(&a, AP_EMU_WRITE, 40 * S, 4096, t, &ca);
	assert_int_equal(ca.rmw_buffered, 0);
}

static void test_ignore_flush(void **state)
{
	struct ap_emu_model m;
	struct ap_emu_cost w, f;
	uint64_t t;

	(void)state;
	/* the bridge: the write and the flush in microseconds, nothing written */
	model_for(&m, "usb-bridge-noflush");
	assert_true(m.ignore_flush);
	t = T0 + req(&m, AP_EMU_WRITE, 34 * S, 4096, T0, &w);
	assert_true(w.cached);
	assert_int_equal(w.cost_ns, 100000 + 4096ULL * 1000000000 / 300000000);
	req(&m, AP_EMU_FLUSH, 0, 0, t, &f);
	assert_int_equal(f.cost_ns, 100000);
	assert_true(f.flush_ignored);
	assert_false(f.drained);
	assert_int_equal(f.destaged, 0);
	assert_int_equal(f.rmw, 0);
	assert_int_equal(m.nextents, 1);	/* still only in the cache */
	/* the power goes: the cache is empty after, nothing was destaged */
	ap_emu_model_power_cut(&m);
	assert_int_equal(m.nextents, 0);
	req(&m, AP_EMU_FLUSH, 0, 0, t + MS, &f);
	assert_int_equal(f.destaged, 0);
	/* honoured (the same drive otherwise): the flush destages and pays a revolution */
	model_for(&m, "usb-bridge-noflush,ignore-flush=off");
	t = T0 + req(&m, AP_EMU_WRITE, 34 * S, 4096, T0, &w);
	req(&m, AP_EMU_FLUSH, 0, 0, t, &f);
	assert_false(f.flush_ignored);
	assert_true(f.drained);
	assert_int_equal(f.rmw, 2);
	assert_true(f.cost_ns > 11111111);
	/* the simple model: the owed RMWs stay owed */
	model_for(&m, "phys=4096,rmw=1ms,base=10us,cache=on,flush=2ms,flush=ignore");
	req(&m, AP_EMU_WRITE, 34 * S, 4096, 0, &w);
	assert_int_equal(req(&m, AP_EMU_FLUSH, 0, 0, 0, &f), 10000);
	assert_true(f.flush_ignored);
	assert_int_equal(m.pending_rmw, 2);
	/* cache off: there is nothing to ignore */
	model_for(&m, "usb-bridge-noflush,cache=off");
	req(&m, AP_EMU_FLUSH, 0, 0, 0, &f);
	assert_false(f.flush_ignored);
}

/*
 * Flushes that cost media time (flush=rev+seek, hdd-7200-nocache-flush):
 * every honoured flush costs an average seek (a third of the stroke) and a
 * full revolution more, with the cache off or on; the head stays put.
 */
static void test_flush_media(void **state)
{
	struct ap_emu_model m, p;
	struct ap_emu_cost w, f, g;
	struct ap_emu_spec s;
	struct ap_error e;
	uint64_t t, extra, head;
	char *str;

	(void)state;
	model_for(&m, "hdd-7200-nocache-flush");
	assert_true(m.flush_media);
	assert_false(m.write_cache);
	extra = ap_emu_model_seek_ns(&m, m.ntracks / 3) + REV7200;
	/* an average seek lies between the settle time and the full stroke */
	assert_true(extra > REV7200 + 1 * MS && extra < REV7200 + 16 * MS);
	t = T0 + req(&m, AP_EMU_WRITE, 40 * S, 4096, T0, &w);
	assert_true(w.media_write);
	head = m.head;
	assert_int_equal(req(&m, AP_EMU_FLUSH, 0, 0, t, &f), 50000 + extra);
	assert_int_equal(m.head, head);
	assert_false(f.flush_ignored);
	assert_int_equal(f.rmw, 0);
	/* at any time: no angle, no position enters it */
	assert_int_equal(req(&m, AP_EMU_FLUSH, 0, 0, t + 1234567, &f), 50000 + extra);
	/* hdd-7200-nocache: a flush costs the command alone */
	model_for(&m, "hdd-7200-nocache");
	assert_false(m.flush_media);
	assert_int_equal(req(&m, AP_EMU_FLUSH, 0, 0, T0, &f), 50000);
	/* cache on: the destage, then the same extra */
	model_for(&m, "hdd-7200,flush=rev+seek");
	model_for(&p, "hdd-7200");
	t = T0 + req(&m, AP_EMU_WRITE, 34 * S, 4096, T0, &w);
	req(&p, AP_EMU_WRITE, 34 * S, 4096, T0, &w);
	req(&m, AP_EMU_FLUSH, 0, 0, t, &f);
	req(&p, AP_EMU_FLUSH, 0, 0, t, &g);
	assert_int_equal(f.rmw, 2);
	assert_true(f.drained);
	assert_int_equal(f.cost_ns - g.cost_ns, extra);
	/* an ignored flush costs nothing more */
	model_for(&m, "hdd-7200,flush=rev+seek,ignore-flush=on");
	assert_int_equal(req(&m, AP_EMU_FLUSH, 0, 0, T0, &f), 50000);
	assert_true(f.flush_ignored);

	/* the spec: named in the format, round-trips, a duration turns it off */
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("hdd-7200-nocache-flush", &s, &e), 0);
	assert_true(s.flush_media);
	str = ap_emu_spec_format(&s);
	assert_non_null(strstr(str, ",flush=rev+seek"));
	ap_emu_spec_free(&s);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse(str, &s, &e), 0);
	assert_true(s.flush_media);
	free(str);
	ap_emu_spec_free(&s);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("hdd-7200-nocache-flush,flush=2ms", &s, &e), 0);
	assert_false(s.flush_media);
	assert_int_equal(s.flush_ns, 2 * MS);
	ap_emu_spec_free(&s);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("flush=rev+seek,model=hdd", &s, &e), 0);
	ap_emu_spec_free(&s);
	/* a platter is needed */
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("simple,flush=rev+seek", &s, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "model=hdd"));
	ap_emu_spec_free(&s);
}

/* What is volatile: cached writes until a destage drains them. */
static void test_durability(void **state)
{
	struct ap_emu_model m;
	struct ap_emu_cost c;

	(void)state;
	model_for(&m, "hdd-7200,cache-size=64K");
	req(&m, AP_EMU_WRITE, 0, 32768, T0, &c);
	assert_true(c.cached);
	assert_false(c.drained);
	req(&m, AP_EMU_WRITE, 65536, 32768, T0, &c);
	assert_true(c.cached);
	req(&m, AP_EMU_WRITE, 1 << 20, 4096, T0, &c);	/* full: the two before are destaged */
	assert_true(c.drained);
	assert_true(c.cached);
	req(&m, AP_EMU_WRITE, 1 << 21, 1 << 17, T0, &c);	/* larger than the cache */
	assert_false(c.cached);
	assert_true(c.media_write);
	model_for(&m, "hdd-7200,cache=off");
	req(&m, AP_EMU_WRITE, 0, 4096, T0, &c);
	assert_false(c.cached);
	assert_true(c.media_write);
	/* simple: cache-size bytes volatile at most, the flush drains */
	model_for(&m, "simple,cache=on,cache-size=8K");
	req(&m, AP_EMU_WRITE, 0, 4096, 0, &c);
	assert_true(c.cached);
	assert_false(c.drained);
	req(&m, AP_EMU_WRITE, 4096, 4096, 0, &c);
	assert_false(c.drained);
	req(&m, AP_EMU_WRITE, 8192, 4096, 0, &c);
	assert_true(c.drained);
	req(&m, AP_EMU_FLUSH, 0, 0, 0, &c);
	assert_true(c.drained);
	/* the cache switched off drains it */
	model_for(&m, "simple,cache=on");
	req(&m, AP_EMU_WRITE, 0, 4096, 0, &c);
	ap_emu_model_set_write_cache(&m, false, 0, &c);
	assert_true(c.drained);
}

/* The torn write, against a byte-by-byte statement of the rule. */
static void check_torn(const char *spec, uint64_t off, uint64_t len, unsigned want_torn)
{
	struct ap_emu_model m;
	uint64_t so, sl, x;
	unsigned char *span, *data;
	unsigned torn;

	model_for(&m, spec);
	ap_emu_model_torn_span(&m, off, len, &so, &sl);
	assert_true(so <= off && off + len <= so + sl);
	span = malloc(sl);
	data = malloc(len);
	memset(span, 'o', sl);
	memset(data, 'n', len);
	torn = ap_emu_model_torn(&m, off, len, data, so, sl, span);
	assert_int_equal(torn, want_torn);
	for (x = so; x < so + sl; x++) {
		/* the physical sector of byte x and where x lies in it */
		uint64_t sh = m.phys - m.align % m.phys, in = (x + sh) % m.phys;
		int64_t start = (int64_t)x - (int64_t)in;
		bool whole = (int64_t)off <= (start > 0 ? start : 0) &&
			     (uint64_t)(start + m.phys) <= off + len;
		unsigned char want = 'o';

		if (!whole && in >= m.phys / 2)
			want = AP_EMU_TORN_BYTE;
		else if (!whole && x >= off && x < off + len)
			want = 'n';
		assert_int_equal(span[x - so], want);
	}
	free(span);
	free(data);
}

static void test_torn(void **state)
{
	struct ap_emu_model m;
	uint64_t so, sl;

	(void)state;
	model_for(&m, "phys=4096");
	ap_emu_model_torn_span(&m, 4608, 512, &so, &sl);
	assert_int_equal(so, 4096);
	assert_int_equal(sl, 4096);
	ap_emu_model_torn_span(&m, 2048, 8192, &so, &sl);
	assert_int_equal(so, 0);
	assert_int_equal(sl, 12288);
	model_for(&m, "phys=4096,lba=7");
	ap_emu_model_torn_span(&m, 0, 512, &so, &sl);
	assert_int_equal(so, 0);
	assert_int_equal(sl, 3584);
	check_torn("phys=4096", 4608, 512, 1);		/* inside one sector */
	check_torn("phys=4096", 2048, 8192, 2);		/* two partial ends, one whole sector */
	check_torn("phys=4096", 4096, 4096, 0);		/* aligned: lost whole, old content */
	check_torn("phys=4096", 4096, 12288, 0);
	check_torn("phys=4096,lba=7", 0, 512, 1);	/* the short first sector */
	check_torn("phys=4096,lba=7", 40 * S, 4096, 2);
	check_torn("phys=4096,lba=7", 39 * S, 4096, 0);
	check_torn("phys=8K", 3 * S, 20480, 2);
	check_torn("phys=512", 3 * S, 4096, 0);		/* an honest drive tears nothing */
}

/* The volatile cache's pre-images on a file: a power cut puts the media back. */
static void test_vlog(void **state)
{
	char dir[] = "/tmp/test_emu_quirks.XXXXXX", path[64], buf[8192];
	struct ap_emu_vlog v;
	uint64_t lost;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/backing", dir);
	fd = open(path, O_RDWR | O_CREAT, 0600);
	assert_true(fd >= 0);
	memset(buf, 'o', sizeof(buf));
	assert_int_equal(ap_pwrite_all(fd, buf, sizeof(buf), 0), 0);
	assert_int_equal(ap_emu_vlog_open(&v, dir), 0);
	/* two overlapping cached writes, each after its pre-image was kept */
	assert_int_equal(ap_emu_vlog_keep(&v, fd, 1024, 2048), 0);
	memset(buf, 'a', 2048);
	assert_int_equal(ap_pwrite_all(fd, buf, 2048, 1024), 0);
	assert_int_equal(ap_emu_vlog_keep(&v, fd, 0, 4096), 0);
	memset(buf, 'b', 4096);
	assert_int_equal(ap_pwrite_all(fd, buf, 4096, 0), 0);
	assert_int_equal(v.nrec, 3);			/* [0,1024) [1024,3072) [3072,4096) */
	assert_true(v.end == 4096);			/* each byte kept once */
	assert_int_equal(ap_emu_vlog_undo(&v, fd, &lost), 0);
	assert_int_equal(lost, 2);
	assert_int_equal(ap_pread_all(fd, buf, sizeof(buf), 0), 0);
	for (size_t i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 'o');
	/* a destage makes them durable: nothing to undo */
	assert_int_equal(ap_emu_vlog_keep(&v, fd, 0, 512), 0);
	memset(buf, 'c', 512);
	assert_int_equal(ap_pwrite_all(fd, buf, 512, 0), 0);
	ap_emu_vlog_clear(&v);
	assert_int_equal(ap_emu_vlog_undo(&v, fd, &lost), 0);
	assert_int_equal(lost, 0);
	assert_int_equal(ap_pread_all(fd, buf, 1, 0), 0);
	assert_int_equal(buf[0], 'c');
	ap_emu_vlog_close(&v);
	close(fd);
	unlink(path);
	snprintf(path, sizeof(path), "%s/volatile", dir);
	unlink(path);
	rmdir(dir);
}

/*
 * The server's first touch of the image, before the charged sleep: a hole
 * read and written back is allocated and still zeros, data stays as it was,
 * in rounds of the buffer's size. On ext4, tmpfs and the like the hole then
 * has blocks; where a file system keeps zeros sparse, its contents alone
 * are checked.
 */
static void test_pretouch(void **state)
{
	char path[] = "/tmp/test_emu_pretouch.XXXXXX", buf[4096], small[1536];
	const uint64_t hole = 64 * 1024, data = 256 * 1024, len = 12 * 1024;
	struct stat st0, st1;
	off_t at;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 1 << 20), 0);
	memset(buf, 'd', sizeof(buf));
	for (uint64_t o = data; o < data + len; o += sizeof(buf))
		assert_int_equal(ap_pwrite_all(fd, buf, sizeof(buf), o), 0);
	assert_int_equal(fsync(fd), 0);
	assert_int_equal(fstat(fd, &st0), 0);
	at = lseek(fd, (off_t)hole, SEEK_DATA);
	assert_true(at < 0 || (uint64_t)at >= hole + len);	/* a hole to begin with */
	/* a buffer smaller than the range: rounds of 1536 bytes */
	assert_int_equal(ap_emu_workdir_pretouch(fd, hole, len, small, sizeof(small)), 0);
	assert_int_equal(ap_emu_workdir_pretouch(fd, data, len, small, sizeof(small)), 0);
	assert_int_equal(fsync(fd), 0);
	assert_int_equal(fstat(fd, &st1), 0);
	assert_int_equal(st1.st_size, 1 << 20);
	if (st0.st_blocks)	/* a file system that counts blocks */
		assert_true(st1.st_blocks >= st0.st_blocks + (blkcnt_t)(len / 512));
	assert_int_equal(lseek(fd, (off_t)hole, SEEK_DATA), (off_t)hole);
	for (uint64_t o = 0; o < len; o += sizeof(buf)) {
		assert_int_equal(ap_pread_all(fd, buf, sizeof(buf), hole + o), 0);
		for (size_t i = 0; i < sizeof(buf); i++)
			assert_int_equal(buf[i], 0);
		assert_int_equal(ap_pread_all(fd, buf, sizeof(buf), data + o), 0);
		for (size_t i = 0; i < sizeof(buf); i++)
			assert_int_equal(buf[i], 'd');
	}
	/* past the end of the image: the read's end of file, as an error */
	assert_int_equal(ap_emu_workdir_pretouch(fd, (1 << 20) - 512, 1024, small, sizeof(small)),
			 -EIO);
	close(fd);
	unlink(path);
}

static void test_quirk_spec(void **state)
{
	static const char *const names[] = {
		"hdd-7200-nocache", "hdd-7200-ra", "honest-512n-ra", "hdd-lba7-rmwbuf",
		"usb-bridge-noflush", "noisy-512n",
	};
	struct ap_emu_spec s;
	struct ap_error e;
	char *str;
	size_t i;

	(void)state;
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("hdd-7200,ra=512K,ra_segments=8,rmw-buffer=64,"
					   "flush=ignore,cut-after=7,cut-peer=/dev/loop9", &s, &e), 0);
	assert_true(s.ra_size == 512 * 1024);
	assert_int_equal(s.ra_segments, 8);
	assert_int_equal(s.rmw_buffer, 64);
	assert_true(s.ignore_flush);
	assert_int_equal(s.cut_at, 8);
	assert_string_equal(s.cut_peer, "/dev/loop9");
	str = ap_emu_spec_format(&s);
	assert_non_null(strstr(str, ",ra=524288,ra-segments=8,rmw-buffer=64,ignore-flush=on,"
				    "cut-after=7,cut-peer=/dev/loop9"));
	assert_round_trip(str);
	/* a profile keeps the power cut, as it keeps the fault model */
	assert_int_equal(ap_emu_spec_parse("hdd-7200-ra", &s, &e), 0);
	assert_int_equal(s.cut_at, 8);
	assert_string_equal(s.cut_peer, "/dev/loop9");
	ap_emu_spec_free(&s);
	/* cut-after=0: the first write is in flight */
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("cut-after=0", &s, &e), 0);
	assert_int_equal(s.cut_at, 1);
	str = ap_emu_spec_format(&s);
	assert_non_null(strstr(str, ",cut-after=0"));
	free(str);
	/* none of it in the specs of before */
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("hdd-7200", &s, &e), 0);
	str = ap_emu_spec_format(&s);
	assert_null(strstr(str, "ra="));
	assert_null(strstr(str, "ignore"));
	free(str);
	/* bad values */
	assert_int_equal(ap_emu_spec_parse("ra-segments=0", &s, &e), -EINVAL);
	assert_int_equal(ap_emu_spec_parse("ra-segments=33", &s, &e), -EINVAL);
	assert_int_equal(ap_emu_spec_parse("rmw-buffer=1025", &s, &e), -EINVAL);
	assert_int_equal(ap_emu_spec_parse("ra=2G", &s, &e), -EINVAL);
	assert_int_equal(ap_emu_spec_parse("ignore-flush=maybe", &s, &e), -EINVAL);
	assert_int_equal(ap_emu_spec_parse("cut-peer=loop0", &s, &e), -EINVAL);
	assert_int_equal(ap_emu_spec_parse("cut-after=x", &s, &e), -EINVAL);
	assert_int_equal(ap_emu_spec_parse("flush=sometimes", &s, &e), -EINVAL);
	/* the profiles */
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("hdd-7200-ra", &s, &e), 0);
	assert_int_equal(s.phys_sector, 4096);
	assert_true(s.ra_size == 1 << 20);
	assert_true(s.write_cache);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("honest-512n-ra", &s, &e), 0);
	assert_int_equal(s.phys_sector, 512);
	assert_true(s.ra_size == 1 << 20);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("hdd-lba7-rmwbuf", &s, &e), 0);
	assert_int_equal(s.lowest_aligned, 7);
	assert_false(s.write_cache);
	assert_int_equal(s.rmw_buffer, 256);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("usb-bridge-noflush", &s, &e), 0);
	assert_true(s.ignore_flush);
	assert_true(s.write_cache);
	assert_int_equal(s.phys_sector, 4096);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("hdd-7200-nocache", &s, &e), 0);
	assert_false(s.write_cache);
	assert_int_equal(s.rpm, 7200);
	ap_emu_spec_init(&s);
	assert_int_equal(ap_emu_spec_parse("noisy-512n", &s, &e), 0);
	assert_int_equal(s.model, AP_EMU_MODEL_SIMPLE);
	assert_int_equal(s.phys_sector, 512);
	assert_int_equal(s.base_ns, 200000);
	assert_int_equal(s.rmw_ns, 8000000);
	assert_true(s.jitter > 0.299 && s.jitter < 0.301);
	for (i = 0; i < AP_ARRAY_SIZE(names); i++)	/* round trips: test_emu_model's test_profiles */
		assert_non_null(strstr(ap_emu_profile_names(), names[i]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_ahead),
		cmocka_unit_test(test_rmw_buffer),
		cmocka_unit_test(test_ignore_flush),
		cmocka_unit_test(test_flush_media),
		cmocka_unit_test(test_durability),
		cmocka_unit_test(test_torn),
		cmocka_unit_test(test_vlog),
		cmocka_unit_test(test_pretouch),
		cmocka_unit_test(test_quirk_spec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
