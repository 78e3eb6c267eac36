// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The short timing test of a shingled disk (smr.h): synchronous writes of
 * one span each at slots spread over the whole device, visited in a seeded
 * random order so that each is a seek from the one before. Preserving, the
 * slots' original bytes go into the probe's undo journal first (the same
 * file format: `alignprobe probe --undo` restores a killed run's) and the
 * writes write them back; destructive, a fixed pseudo-random pattern.
 */
#include "smr/smr.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/rng.h"
#include "lib/state.h"
#include "lib/stats.h"
#include "probe/journal.h"

/* A device smaller than this has no room for writes a seek apart. */
#define SMR_MIN_SIZE	(64ULL << 20)

struct ap_smr_run {
	struct ap_smr_plan p;
	char *dev;
	int fd;
	uint8_t *orig;			/* preserving: every slot's bytes; else NULL */
	uint8_t *pattern;		/* destructive: one span */
	uint8_t *readbuf;		/* the timed reads' */
	unsigned *order;
	struct ap_rng rng;
	struct ap_journal *journal;
	char *state_id;
};

int ap_smr_plan(uint64_t size, unsigned logical, unsigned writes, uint64_t seed,
		struct ap_smr_plan *p, struct ap_error *e)
{
	memset(p, 0, sizeof(*p));
	if (!logical || writes < 2 || writes > AP_SMR_WRITES_MAX)
		return ap_error_set(e, EINVAL, "%u writes: 2 to %u", writes, AP_SMR_WRITES_MAX);
	if (size < SMR_MIN_SIZE)
		return ap_error_set(e, ENOSPC, "too small for the test (%llu bytes; writes a "
				    "seek apart need 64 MiB at least)", (unsigned long long)size);
	p->dev_size = size;
	p->logical_sector = logical;
	p->span = logical < 4096 ? 4096 : logical;
	p->region_start = AP_SMR_MARGIN;
	p->region_size = (size - 2 * AP_SMR_MARGIN) / logical * logical;
	p->slots = writes;
	p->stride = (p->region_size - p->span) / (writes - 1) / p->span * p->span;
	p->seed = seed;
	return 0;
}

void ap_smr_journal_plan(const struct ap_smr_plan *p, struct ap_journal_plan *jp)
{
	memset(jp, 0, sizeof(*jp));
	jp->region_start = p->region_start;
	jp->region_size = p->region_size;
	jp->stride = p->stride;
	jp->slots = p->slots;
	jp->span = p->span;
}

static uint64_t slot_offset(const struct ap_smr_plan *p, unsigned i)
{
	return p->region_start + (uint64_t)i * p->stride;
}

/* The identity the journal records, with the never-written first and last 64 KiB. */
static int read_identity(struct ap_smr_run *r, struct ap_disk_identity *id, struct ap_error *e)
{
	struct ap_identity_content ranges[2] = {
		{ .offset = 0, .length = 65536 },
		{ .offset = (r->p.dev_size - 65536) / r->p.logical_sector * r->p.logical_sector,
		  .length = 65536 },
	};
	struct ap_error ie = { 0 };
	int rc = ap_identity_read(r->fd, id, &ie);

	if (!rc)
		rc = ap_identity_read_content(r->fd, id, ranges, 2, &ie);
	if (rc)
		return ap_error_set(e, -rc, "cannot read the identity of %s for the undo "
				    "journal: %s", r->dev, ie.msg);
	if (id->size != r->p.dev_size)
		return ap_error_set(e, EIO, "%s changed its size since it was examined", r->dev);
	return 0;
}

/* Preserving: the journal of every slot's bytes, committed and registered. */
static int journal_originals(struct ap_smr_run *r, const char *journal, struct ap_error *e)
{
	struct ap_journal_plan jp;
	struct ap_disk_identity id;
	char *real;
	unsigned i;
	int rc;

	memset(&id, 0, sizeof(id));
	rc = read_identity(r, &id, e);
	ap_smr_journal_plan(&r->p, &jp);
	if (!rc)
		rc = ap_journal_create(journal, r->dev, &id, &jp, &r->journal, e);
	ap_identity_free(&id);
	if (rc)
		return rc;
	real = realpath(journal, NULL);
	rc = ap_state_register(AP_STATE_JOURNAL, real ? real : journal, r->dev, NULL,
			       &r->state_id);
	free(real);
	if (rc) {
		ap_journal_remove(r->journal);
		r->journal = NULL;
		return ap_error_set(e, -rc, "cannot register the undo journal in %s: %s",
				    ap_state_dir(), strerror(-rc));
	}
	for (i = 0; i < r->p.slots && !rc; i++) {
		uint8_t *b = r->orig + (size_t)i * r->p.span;

		rc = ap_pread_all(r->fd, b, r->p.span, slot_offset(&r->p, i));
		if (rc)
			ap_error_set(e, -rc, "%s: cannot read byte %llu: %s", r->dev,
				     (unsigned long long)slot_offset(&r->p, i), strerror(-rc));
		else
			rc = ap_journal_put(r->journal, i, b, e);
	}
	if (!rc)
		rc = ap_journal_commit(r->journal, e);
	if (rc) {
		/* nothing was written yet: the journal is not needed */
		ap_journal_remove(r->journal);
		r->journal = NULL;
		ap_state_release(r->state_id);
	}
	return rc;
}

static void run_free(struct ap_smr_run *r)
{
	if (r->journal)
		ap_journal_close(r->journal);
	if (r->fd >= 0)
		close(r->fd);
	free(r->dev);
	free(r->orig);
	free(r->pattern);
	free(r->readbuf);
	free(r->order);
	free(r->state_id);
	free(r);
}

int ap_smr_run_open(const char *dev, const struct ap_smr_plan *p, const char *journal,
		    struct ap_smr_run **out, struct ap_error *e)
{
	struct ap_smr_run *r = calloc(1, sizeof(*r));
	unsigned i;
	int rc = 0;

	*out = NULL;
	if (!r)
		return ap_error_set(e, ENOMEM, "out of memory");
	r->p = *p;
	r->dev = ap_xstrdup(dev);
	r->order = calloc(p->slots, sizeof(*r->order));
	ap_rng_seed(&r->rng, p->seed);
	r->fd = open(dev, O_RDWR | O_DIRECT | O_DSYNC | O_CLOEXEC);
	if (r->fd < 0) {
		rc = ap_error_set(e, errno, "%s: cannot open with O_DIRECT | O_DSYNC: %s", dev,
				  strerror(errno));
		goto fail;
	}
	if (!r->order ||
	    posix_memalign((void **)&r->pattern, 4096, p->span) != 0 ||
	    posix_memalign((void **)&r->readbuf, 4096, p->span) != 0 ||
	    (journal && posix_memalign((void **)&r->orig, 4096, (size_t)p->slots * p->span))) {
		rc = ap_error_set(e, ENOMEM, "out of memory");
		goto fail;
	}
	for (i = 0; i < p->span; i += 8) {
		uint64_t x = ap_rng_next(&r->rng);

		memcpy(r->pattern + i, &x, 8);
	}
	if (journal && (rc = journal_originals(r, journal, e)) != 0)
		goto fail;
	*out = r;
	return 0;
fail:
	run_free(r);
	return rc;
}

/*
 * Where the read after a write goes: between slot @o and the next (the
 * last slot: and the one before), a place never written (a cache may hold
 * what was written), a seek from the write.
 */
uint64_t ap_smr_read_offset(const struct ap_smr_plan *p, unsigned o)
{
	uint64_t half = p->stride / 2 / p->span * p->span;

	return o + 1 < p->slots ? slot_offset(p, o) + half : slot_offset(p, o) - half;
}

/* Write slot @s (its original bytes, or the pattern), then read near slot @o: both timed. */
static int pair(struct ap_smr_run *r, unsigned s, unsigned o, uint64_t *w, uint64_t *rd,
		struct ap_error *e)
{
	const uint8_t *b = r->orig ? r->orig + (size_t)s * r->p.span : r->pattern;
	uint64_t t0;
	int rc;

	/* preserving: the write in flight on record first (a power cut names it) */
	if (r->journal && (rc = ap_journal_intent(r->journal, slot_offset(&r->p, s), r->p.span,
						   e)) != 0)
		return rc;
	t0 = ap_now_ns();
	rc = ap_pwrite_all(r->fd, b, r->p.span, slot_offset(&r->p, s));
	*w = ap_now_ns() - t0;
	if (r->journal)
		ap_journal_intent_done(r->journal);
	if (rc)
		return ap_error_set(e, -rc, "%s: write at byte %llu failed: %s", r->dev,
				    (unsigned long long)slot_offset(&r->p, s), strerror(-rc));
	t0 = ap_now_ns();
	rc = ap_pread_all(r->fd, r->readbuf, r->p.span, ap_smr_read_offset(&r->p, o));
	*rd = ap_now_ns() - t0;
	if (rc)
		return ap_error_set(e, -rc, "%s: read at byte %llu failed: %s", r->dev,
				    (unsigned long long)ap_smr_read_offset(&r->p, o), strerror(-rc));
	return 0;
}

int ap_smr_run_phase(struct ap_smr_run *r, struct ap_smr_phase *ph, struct ap_error *e)
{
	unsigned i, n = r->p.slots;
	uint64_t *w = calloc(n, sizeof(*w)), *rd = calloc(n, sizeof(*rd));
	int rc = 0;

	if (!w || !rd) {
		free(w);
		free(rd);
		return ap_error_set(e, ENOMEM, "out of memory");
	}
	for (i = 0; i < n; i++)
		r->order[i] = i;
	ap_rng_shuffle(&r->rng, r->order, n, sizeof(*r->order));
	ph->faster = 0;
	/* each read goes half the order away: another slot, a seek from the write */
	for (i = 0; i < n && !rc; i++) {
		rc = pair(r, r->order[i], r->order[(i + n / 2) % n], &w[i], &rd[i], e);
		ph->faster += !rc && w[i] < rd[i];
	}
	if (!rc) {
		qsort(w, n, sizeof(*w), ap_stats_cmp_u64);
		qsort(rd, n, sizeof(*rd), ap_stats_cmp_u64);
		ph->n = n;
		ph->median_ns = w[n / 2];
		ph->p10_ns = w[n / 10];
		ph->p90_ns = w[n * 9 / 10];
		ph->read_median_ns = rd[n / 2];
		ph->done = true;
	}
	free(w);
	free(rd);
	return rc;
}

int ap_smr_run_close(struct ap_smr_run *r, bool *restored, struct ap_error *e)
{
	struct ap_journal_restore_stats st;
	int rc = 0;

	*restored = false;
	if (r->journal) {
		memset(&st, 0, sizeof(st));
		/* held throughout: what differs is our own writes gone wrong, put back */
		rc = ap_journal_restore(r->journal, r->fd, r->dev, true, &st, e);
		if (!rc) {
			*restored = true;
			ap_journal_remove(r->journal);
			ap_state_release(r->state_id);
		} else {
			ap_journal_close(r->journal);
		}
		r->journal = NULL;
	}
	run_free(r);
	return rc;
}
