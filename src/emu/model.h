/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The emulated drive's behaviour as pure functions: which writes cover a
 * hidden physical sector only partly, what each request costs (the simple
 * model: base cost, read-modify-write cost, seeded jitter, volatile write
 * cache; the hdd model: seeks, rotation, a merging write cache; the flash
 * model: a hidden page), and which requests the fault model fails. No I/O
 * and no clock of its own (the caller passes the time): unit-tested
 * directly. The spec (struct ap_emu_spec of emu.h), its named profiles
 * included, is parsed and validated here too.
 */
#ifndef AP_EMU_MODEL_H
#define AP_EMU_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "emu/emu.h"

#define AP_EMU_MIN_CAPACITY	(1ULL << 20)	/* 1 MiB */
#define AP_EMU_MAX_CAPACITY	(1ULL << 44)	/* 16 TiB (sparse) */

enum ap_emu_op {
	AP_EMU_READ,
	AP_EMU_WRITE,
	AP_EMU_FLUSH,
};

/* Extents the hdd model's write cache holds at most (else it is full). */
#define AP_EMU_CACHE_EXTENTS	512

struct ap_emu_extent {
	uint64_t start, end;		/* bytes, [start, end) */
};

/* Members of a parity RAID volume at most (16 data disks and two parity). */
#define AP_EMU_RAID_MEMBERS_MAX	18
/* A thin volume's units at most (the map is 4 bytes a unit). */
#define AP_EMU_THIN_UNITS_MAX	(1ULL << 24)

/* The read-ahead segments and the RMW buffer's entries the hdd model holds at most. */
#define AP_EMU_RA_SEGMENTS_MAX	32
#define AP_EMU_RMW_BUFFER_MAX	1024

/*
 * One read-ahead segment: [lo, hi) is in the drive's buffer; while @active
 * (the last media read, no command since) the drive goes on reading from
 * hi_read, which it reached at t_end, up to hi_max.
 */
struct ap_emu_segment {
	uint64_t lo, hi, hi_max;
	uint64_t t_end;			/* when the read's own data was in */
	uint64_t used;			/* LRU stamp, 0 = free */
	bool active;
};

/*
 * The hdd model (AP_EMU_MODEL_HDD), all integer nanoseconds from the clock
 * value the caller passes (CLOCK_MONOTONIC in the server):
 * - the emulated capacity is the first part of a virtual disk of disk_size
 *   bytes (at least the capacity), track bytes per track, byte offset o on
 *   track o / track at angle (o % track) / track of a revolution;
 * - seek over d tracks out of N: 0 for d = 0, else, x = d / N,
 *	x <  knee: settle + (t_knee - settle) * sqrt(x / knee)
 *	x >= knee: t_knee + (full - t_knee) * (x - knee) / (1 - knee)
 *   with t_knee = (settle * (1 - knee) + 2 * knee * full) / (1 + knee), where
 *   both pieces have the same slope (ap_emu_model_seek_ns);
 * - the platter's angle at time t is (t % rev) / rev, rev = 60 s / rpm: a
 *   media access waits from the end of its seek until its first byte comes
 *   under the head (ap_emu_model_rotation_ns), then transfers len / track
 *   revolutions (track switches are free);
 * - a media write whose ends cover a physical sector only partly costs one
 *   extra revolution (read the sector, write it on the next pass); two when
 *   both ends are partial and the write is longer than a track;
 * - every request costs base_ns (command overhead) first, plus len / bus_rate
 *   for data that only crosses the interface (cache hits, cached writes);
 * - write cache on: a write is merged into the cache's extents (overlapping
 *   and adjacent writes become one extent) and costs base + bus; a flush costs
 *   base + flush_ns + destaging every extent in ascending order from the
 *   head's position; a write that would overflow the cache (cache_size bytes
 *   or AP_EMU_CACHE_EXTENTS extents) destages everything first. Only the
 *   edges of a destaged extent pay the extra revolution: an extent whose
 *   start and end are physical sector boundaries pays none. A read that lies
 *   inside one cached extent is a cache hit (base + bus); others go to the
 *   media (the cache keeps its data);
 * - write cache off: a write goes to the media at once.
 * jitter, when set, scales each request's whole cost as in the simple model.
 *
 * What real drives add to the hdd model (each off by default):
 * - read-ahead (ra_size bytes per segment, ra_segments segments): a read
 *   that goes to the media fills a segment (the least recently used one)
 *   with its own data, and the drive reads on behind it at the media rate
 *   (track bytes per revolution) while it is idle, up to ra_size bytes from
 *   the read's start (or the read's own length if longer). The next command
 *   stops it (HGST: at once), except a read that the segment answers: the
 *   read-ahead streams on. A read that lies inside a segment's data is a
 *   hit: base + bus, no seek, no rotation, the head stays where the
 *   read-ahead stopped. A write invalidates the segments it overlaps.
 *   Independent of the write cache (Seagate: prefetch even with the cache
 *   disabled).
 * - an RMW buffer (rmw_buffer physical sectors, LRU): every media access
 *   keeps the physical sectors at its two ends in the buffer; a partial
 *   physical sector of a media write found there needs no read pass, so it
 *   costs no extra revolution (counted in c->rmw_buffered; c->rmw still
 *   counts it: the sector is read-modify-written, from the buffer).
 * - flush_media (hdd, flush=rev+seek): every honoured flush, with the cache
 *   on or off, also costs an average seek (a third of the stroke) and one
 *   full revolution, as on a drive that commits each flush to a reserved
 *   area of the platter; the head is back where it was. With the cache off
 *   the loop device then says "write back", so the kernel sends flushes.
 * - ignore_flush (every model): a flush is acknowledged at the base cost;
 *   nothing is destaged, flush_ns is not charged, the simple and flash
 *   models' owed RMWs stay owed (c->flush_ignored).
 * - durability, for the power cut (every model, no cost of its own): a
 *   write with the cache on sits in the volatile cache (c->cached) until a
 *   destage writes the cache out (c->drained: an honoured flush, a full
 *   cache, the cache switched off). The simple and flash models keep at
 *   most cache_size bytes volatile: the write that would exceed it finds
 *   the earlier ones written (c->drained), at no cost. A power cut
 *   (ap_emu_model_power_cut()) loses what is volatile; a media write in
 *   flight is torn (ap_emu_model_torn()).
 *
 * The flash model (AP_EMU_MODEL_FLASH): the hidden unit is a flash page
 * (phys); a request costs base + len / bus_rate, a write rmw_ns more for
 * each page it covers only partly (what the FTL's read-modify-write of a
 * page shows through its cache: small), the total scaled by the jitter
 * (the noise of the FTL); write cache as in the simple model.
 *
 * Layered volumes (volume.c, issue 33; each off unless a key sets it):
 * - a parity RAID volume (raid=5|6, members, chunk) over rotating members
 *   (model=hdd: each member has the hdd model's seek curve, track and
 *   revolution, its own head, and its spindle at phase d/members of a
 *   revolution: they turn unsynchronised; phys/lba are the members' hidden
 *   sectors, at the same offsets in a member as in the volume since a chunk
 *   holds whole ones). Stripe s holds raid_data = members - parity chunks,
 *   left-symmetric as md lays them out: P on member members-1-(s % members),
 *   Q after it, data chunk j after those. A request costs base + bus, then:
 *   a read, every data member reading its part in parallel (seek, rotation,
 *   transfer); a write, per stripe it touches: a whole stripe is written by
 *   every member at once, without reading (c->full_stripes); a partial one
 *   (c->stripe_rmw) first reads what the new parity needs -- the old data
 *   and parity it overwrites (read-modify-write) or the data it leaves
 *   alone (reconstruct-write), whichever reads fewer bytes, reconstruct on
 *   a tie as md does -- every member in parallel, then writes data and
 *   parity, in parallel again: on a rotating member, reading a place and
 *   writing it back costs a revolution. A member write that covers a
 *   physical sector of the member only partly costs the member's own
 *   read-modify-write, one revolution more (two for both ends past a
 *   track), counted in c->rmw (data and parity members each). The volume
 *   passes the host's bytes to the members as they are (a hardware
 *   controller; md's 4 KiB stripe pages would turn a misaligned write into
 *   whole pages); the partial stripes of one request read in one phase and
 *   write in the next. The members' caches are off (cache=off); flushes
 *   cost the base cost.
 * - a controller's battery-backed write-back cache (raid-cache=SIZE): a
 *   write is acknowledged at base + bus while the cache has room for its
 *   bytes that are not dirty already (a rewrite of dirty data is absorbed);
 *   the controller destages in the background, one dirty extent at a time
 *   in ascending order (an elevator), each costing what the same write
 *   costs the volume (so adjacent writes merged in the cache become whole
 *   stripes); a write that finds no room waits until enough was destaged
 *   (c->rc_waited, else c->rc_absorbed). It holds at most
 *   AP_EMU_CACHE_EXTENTS dirty extents (a controller has so many cache
 *   lines): scattered small writes fill it by their number, 512, long
 *   before its bytes. Fast until full, as real
 *   controllers are (LSI MegaRAID, HP Smart Array: write-back with a
 *   charged battery or flash backup): a probe that rewrites a few places
 *   never fills it. The cache survives a power cut; reads go to the
 *   members (ahead of the destage: not delayed by it) unless they lie in
 *   one dirty extent: then the cache answers (base + bus). The destages'
 *   stripe counters count when a destage starts.
 * - a thin volume (thin=SIZE, the allocation unit): the first write into
 *   an unmapped unit maps it (thin_alloc_ns, c->thin_allocs) and copies
 *   from the backing the parts of the unit the write leaves out
 *   (len / thin_copy_rate, c->cow), as qcow2 merges the copy with the
 *   guest's write; a write that covers the whole unit copies nothing.
 *   thin-sub=on: qcow2's extended_l2, 32 subclusters a unit, each copied
 *   on its own first write (the unit is still mapped once). Then the write
 *   costs what the layer below charges (any model, a RAID volume too);
 *   rewrites cost only that. thin-pool=SIZE: the pool holds that many
 *   bytes of units; a write that needs more is refused whole (ENOSPC,
 *   c->nospc), nothing mapped. Discards unmap nothing.
 */
/*
 * The persistent media cache (src/emu/smr.c), off unless pcache= is set
 * (hdd model only). A drive-managed SMR disk (band > 0) or a hybrid disk
 * (band = 0: a flash cache in front of a conventional disk) takes every
 * media write shorter than a band (the hybrid: than AP_EMU_PCACHE_DIRECT)
 * into a persistent cache instead of its place: base + pcache_ns + len /
 * pcache_rate (+ the RMW revolutions of its partial sectors), no seek, no
 * rotation; it survives power cuts and ignores the write cache's switch.
 * The cache holds pcache_size bytes in at most AP_EMU_PCACHE_UNITS units:
 * the shingled bands it holds data of (SMR), or the writes (hybrid). A
 * unit is cleaned (SMR: its band read and rewritten whole, two media
 * accesses of band bytes; hybrid: the write put in its place) oldest
 * first:
 * - when idle: clean_idle_ns after the last request ends, one unit after
 *   another; a request arriving in the middle of a unit waits for it;
 * - when full: the write that finds no room waits while AP_EMU_PCACHE_BATCH
 *   units are cleaned (the cliff: seconds per stall on SMR).
 * Reads are not modelled differently (they go to the data's place).
 */
#define AP_EMU_PCACHE_UNITS	4096
#define AP_EMU_PCACHE_BATCH	4
#define AP_EMU_PCACHE_DIRECT	(1ULL << 20)

struct ap_emu_pcache_unit {
	uint64_t start, len;		/* the band, or the write (hybrid) */
	uint64_t bytes;			/* bytes cached for it */
};

struct ap_emu_pcache {
	uint64_t size, ns, rate, band, idle_ns;
	uint64_t used;			/* bytes cached */
	uint64_t idle_since;		/* when the last request ended */
	size_t head, n;			/* a ring of units, oldest first */
	bool cleaning;			/* media writes of the cleaning go to their place */
	struct ap_emu_pcache_unit unit[AP_EMU_PCACHE_UNITS];
};

struct ap_emu_model {
	enum ap_emu_model_kind kind;
	uint32_t phys;			/* hidden physical sector, bytes */
	uint32_t align;			/* byte offset of the first physical boundary */
	uint64_t rmw_ns, base_ns, flush_ns;
	double jitter;
	bool write_cache;
	uint64_t rng[4];		/* xoshiro256** state */
	uint64_t pending_rmw;		/* partial sectors the cache still owes (simple, flash) */
	uint64_t fail_lba, fail_count;
	bool fail_reads, fail_writes;
	uint64_t fail_after;
	/* hdd */
	uint64_t rev_ns;		/* one revolution */
	uint64_t track, ntracks;	/* bytes per track, tracks of the virtual disk */
	uint64_t settle_ns, seek_ns;
	double knee;
	uint64_t cache_size, bus_rate;
	uint64_t head;			/* the track the head is on */
	uint64_t cached;		/* bytes in the cache */
	size_t nextents;
	struct ap_emu_extent ext[AP_EMU_CACHE_EXTENTS];	/* sorted, disjoint, not adjacent */
	/* read-ahead, the RMW buffer, flushes */
	uint64_t ra_size;
	uint32_t ra_segments;
	uint64_t stamp;			/* LRU clock of the segments and the RMW buffer */
	struct ap_emu_segment seg[AP_EMU_RA_SEGMENTS_MAX];
	uint32_t rmw_buffer, nrmwbuf;
	uint64_t rmwbuf[AP_EMU_RMW_BUFFER_MAX];		/* physical sector numbers */
	uint64_t rmwbuf_used[AP_EMU_RMW_BUFFER_MAX];	/* their LRU stamps */
	bool ignore_flush;
	bool flush_media;		/* a flush: + one revolution + a seek of a third */
	uint64_t volatile_bytes;	/* simple, flash: written since the cache was last drained */
	/* parity RAID (volume.c): the members' heads, their spindles' phases */
	uint32_t raid_level, raid_members, raid_data;
	uint64_t raid_chunk;
	uint64_t raid_head[AP_EMU_RAID_MEMBERS_MAX];
	uint64_t raid_phase[AP_EMU_RAID_MEMBERS_MAX];
	/* the controller's cache: ext[] holds its dirty extents, cached their bytes */
	uint64_t raid_cache;
	uint64_t rc_done;		/* when the destage in flight ends (or ended) */
	uint64_t rc_inflight;		/* its bytes, still counted in cached */
	uint64_t rc_cursor;		/* the elevator: the next destage starts here */
	/* thin (volume.c): per unit, a bit per subcluster written (bit 0: the unit) */
	uint64_t thin_unit, thin_units, thin_pool_units, thin_allocated;
	uint64_t thin_alloc_ns, thin_copy_rate;
	bool thin_sub;
	uint32_t *thin_map;		/* thin_units entries; ap_emu_model_destroy() frees */
	struct ap_emu_pcache pc;	/* hdd: the persistent media cache (pc.size 0: none) */
};

struct ap_emu_cost {
	bool fail;			/* answer EIO */
	unsigned partial;		/* partial physical sectors this write covers */
	bool aligned;			/* a write covering whole physical sectors only */
	uint64_t rmw;			/* partial physical sectors read-modify-written now */
	uint64_t destaged;		/* cache extents written to the media now (hdd) */
	uint64_t cost_ns;		/* time to charge */
	bool ra_hit;			/* a read answered from a read-ahead segment */
	uint64_t rmw_buffered;		/* partial sectors the RMW buffer served */
	bool flush_ignored;		/* a flush acknowledged without writing */
	bool cached;			/* this write's data is in the volatile cache only */
	bool drained;			/* what the cache held before is on the media now */
	bool media_write;		/* this write went to the media now (tearable) */
	bool nospc;			/* a thin pool without room for this write: ENOSPC */
	uint64_t stripe_rmw;		/* stripes read-modify-written now (RAID) */
	uint64_t full_stripes;		/* stripes written whole now (RAID) */
	bool rc_absorbed;		/* acknowledged from the controller's cache at once */
	bool rc_waited;			/* waited for the controller's cache to make room */
	uint64_t thin_allocs;		/* units this write allocated (thin) */
	uint64_t cow;			/* units (subclusters) it copied from the backing */
	bool pcache;			/* this write landed in the persistent media cache */
	uint64_t cleaned;		/* persistent cache units cleaned before this request */
	uint64_t stall_ns;		/* of its cost: waiting for a full cache's cleaning */
};

/*
 * Partial physical sectors of the write [off, off + len): 0, 1 or 2. The
 * physical sectors start at byte offsets congruent to @align modulo @phys.
 */
unsigned ap_emu_model_partial(uint64_t off, uint64_t len, uint32_t phys, uint32_t align);

void ap_emu_model_init(struct ap_emu_model *m, const struct ap_emu_spec *s);
/* What ap_emu_model_init() allocated (a thin volume's map). */
void ap_emu_model_destroy(struct ap_emu_model *m);

/* A uniform double in [-1, 1] from the seeded generator. */
double ap_emu_model_uniform(struct ap_emu_model *m);

/*
 * Account one request arriving at @now_ns (any monotonic clock: the hdd
 * model's platter angle is derived from it; the other models ignore it).
 * @served is the number of successful requests of the kinds the fault model
 * fails (reads and/or writes) since the counters were last reset:
 * fail-after=N fails every such request once N were served. A failed
 * request costs the base cost and changes no state.
 *
 * When the read-modify-writes are counted (c->rmw): the simple and flash
 * models count a write's partial sectors when the write arrives, also with
 * the write cache on (the flush pays for them later). The hdd model counts
 * them when they happen on the media: at the write with the cache off, at
 * the destage (a flush, or a write that finds the cache full) with it on,
 * and then only the partial sectors at the edges of the merged extents. So
 * on a cached hdd RMW may be smaller than the partial sectors written, while
 * c->partial and c->aligned (the RMW_WRITES and ALIGNED counters) always
 * classify each write request as it arrives, in every model.
 */
void ap_emu_model_request(struct ap_emu_model *m, enum ap_emu_op op,
			  uint64_t off, uint64_t len, uint64_t served,
			  uint64_t now_ns, struct ap_emu_cost *c);

/*
 * Switch the write cache at run time (a MODE SELECT of the caching page on
 * a real drive), at @now_ns. Switched off, the drive first writes what its
 * cache holds: the hdd model destages every extent (RMW counted in c->rmw
 * at the edges, c->destaged), the simple and flash models pay the partial
 * sectors they still owe; c->cost_ns is that time. Switched on, or to the
 * state it is in: nothing (cost 0).
 */
void ap_emu_model_set_write_cache(struct ap_emu_model *m, bool on, uint64_t now_ns,
				  struct ap_emu_cost *c);

/*
 * Power: a cut drops everything volatile (the cache's extents, owed RMWs,
 * read-ahead segments, the RMW buffer); power on puts the head on track 0.
 * The data the cache held is the caller's to undo (c->cached, c->drained).
 */
void ap_emu_model_power_cut(struct ap_emu_model *m);
void ap_emu_model_power_on(struct ap_emu_model *m);

/*
 * A media write of @len bytes @data at @off torn by a power cut, applied
 * to @span: the physical sectors the write touches, [*span_off, +*span_len),
 * which the caller fills with the media's content before (span_len at most
 * @len + 2 * phys; ap_emu_model_torn_span() gives them). The torn result:
 * - a physical sector the write covers wholly keeps its old content (the
 *   write had not reached it);
 * - a physical sector the write covers partly (its read-modify-write was
 *   in flight) holds, in its first half, what the RMW writes there (the old
 *   bytes with the write's bytes laid over them), and in its second half
 *   garbage: the bytes 0xdb (not the old ones, not the new ones; a real
 *   drive might report a medium error there instead);
 * so bytes the host never wrote (the rest of the physical sector) are lost
 * too. A write that covers whole physical sectors only is lost whole.
 * Returns the number of torn physical sectors (0, 1 or 2).
 */
void ap_emu_model_torn_span(const struct ap_emu_model *m, uint64_t off, uint64_t len,
			    uint64_t *span_off, uint64_t *span_len);
unsigned ap_emu_model_torn(const struct ap_emu_model *m, uint64_t off, uint64_t len,
			   const void *data, uint64_t span_off, uint64_t span_len, void *span);
#define AP_EMU_TORN_BYTE	0xdb

/* a * b / c without overflow (c > 0) */
static inline uint64_t ap_emu_mul_div(uint64_t a, uint64_t b, uint64_t c)
{
	return (uint64_t)((unsigned __int128)a * b / c);
}

/*
 * Shared by model.c and volume.c (the layered volumes): merge [a, b) into
 * the sorted extents of the write cache (room for one more is there), and
 * whether a read lies entirely inside one of them; the
 * volumes' state from the spec; a thin volume's cost of a write before the
 * layer below (c->nospc: the pool is full, nothing changed); a parity RAID
 * volume's cost of a request arriving at @now.
 */
void ap_emu_model_cache_insert(struct ap_emu_model *m, uint64_t a, uint64_t b);
bool ap_emu_model_cache_hit(const struct ap_emu_model *m, uint64_t off, uint64_t len);
void ap_emu_volume_init(struct ap_emu_model *m, const struct ap_emu_spec *s);
uint64_t ap_emu_thin_write(struct ap_emu_model *m, uint64_t off, uint64_t len,
			   struct ap_emu_cost *c);
uint64_t ap_emu_raid_request(struct ap_emu_model *m, enum ap_emu_op op, uint64_t off,
			     uint64_t len, uint64_t now, struct ap_emu_cost *c);
/*
 * hdd: one access of the media at @t (seek, rotation, transfer, a write's
 * RMW revolutions): its duration; a write the persistent cache takes goes
 * there instead (smr.c).
 */
uint64_t ap_emu_model_media(struct ap_emu_model *m, bool write, uint64_t off, uint64_t len,
			    uint64_t t, struct ap_emu_cost *c);
/* hdd: the extra revolutions of a media write's @partial sectors (the RMW buffer's first). */
uint64_t ap_emu_model_rmw_revs(struct ap_emu_model *m, uint64_t off, uint64_t len,
			       unsigned partial, struct ap_emu_cost *c);

/* The persistent media cache (smr.c). */
void ap_emu_pcache_init(struct ap_emu_pcache *p, const struct ap_emu_spec *s);
/* Whether a media write of @len bytes goes to the cache. */
bool ap_emu_pcache_takes(const struct ap_emu_model *m, uint64_t len);
/* Append [off, off + len) at @t: the duration (a full cache's stall included). */
uint64_t ap_emu_pcache_write(struct ap_emu_model *m, uint64_t off, uint64_t len, uint64_t t,
			     struct ap_emu_cost *c);
/* A request arrives at @now: the idle cleaning since; the wait it adds. */
uint64_t ap_emu_pcache_arrive(struct ap_emu_model *m, uint64_t now, struct ap_emu_cost *c);

/* hdd: the seek time over @dtracks tracks (see above). */
uint64_t ap_emu_model_seek_ns(const struct ap_emu_model *m, uint64_t dtracks);
/* hdd: the wait at time @t_ns until byte @off comes under the head. */
uint64_t ap_emu_model_rotation_ns(const struct ap_emu_model *m, uint64_t off, uint64_t t_ns);

/*
 * Named profiles: shortcuts for a spec. ap_emu_spec_profile() resets the
 * drive's model parameters (everything but size, seed, image and the fault
 * model) to their defaults, then applies the profile's spec and records its
 * name; parameters given after it override it. -EINVAL for an unknown name,
 * with the known ones in the message. ap_emu_profile_spec() is the spec a
 * profile stands for, NULL for an unknown name; ap_emu_profile_names() the
 * names of the table, comma-separated (emulate's --help and errors list
 * them so).
 */
int ap_emu_spec_profile(struct ap_emu_spec *s, const char *name, struct ap_error *e);
const char *ap_emu_profile_spec(const char *name);
const char *ap_emu_profile_names(void);
/* Does @spec name a drive profile, as NAME or profile=NAME? */
bool ap_emu_spec_names_profile(const char *spec);

/*
 * Set one spec parameter by name, as in a spec string or as the long option
 * of `emulate --attach` without its dashes. 0, or -EINVAL with a message.
 */
int ap_emu_spec_set(struct ap_emu_spec *s, const char *key, const char *val,
		    struct ap_error *e);
/* The constraints between parameters. 0, or -EINVAL with a message. */
int ap_emu_spec_validate(const struct ap_emu_spec *s, struct ap_error *e);
/*
 * "phys=4096,lba=0,size=1G,..." for logs and --stats; caller frees. Starts
 * with "profile=NAME," when a profile was applied; the hdd and flash models'
 * parameters follow "model=..." only for those models, logical= only when
 * not 512. ap_emu_spec_parse() of the result gives the same drive.
 */
char *ap_emu_spec_format(const struct ap_emu_spec *s);

#endif
