// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sweep's plan, before anything touches a disk: the presets, the list
 * of starts (parsed or the defaults for a sector size) and the order of a
 * round. Pure functions (tests/unit/test_sweep.c).
 */
#include "lib/rng.h"
#include "lib/stats.h"
#include "sweep/sweep.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>


/* ------------------------------------------------------------------ */
/* Presets                                                            */
/* ------------------------------------------------------------------ */

#define MINUTES(n) ((n) * 60ULL * AP_NSEC_PER_SEC)

/*
 * quick is sized to the physics: the analysis uses the transaction phase
 * alone, and on a 7200 rpm disk 4 transactions (about 4 fsyncs) already
 * set a misaligned start 2x apart from an aligned one, far beyond the
 * rotational noise (bench/sweep.sh); more only lengthen every step, which
 * partition, mkfs, mount and umount already fill. Under 128 MiB mkfs.ext4
 * zeroes a 4 MiB journal instead of 16. From 2 rounds on the analysis may
 * stop: where every aligned start's measurements are below every other
 * start's (a complete split, analysis.h's split_min_n), a third round adds
 * nothing to outvote; anything less goes on to 3 as before.
 */
const struct ap_sweep_preset ap_sweep_presets[] = {
	/* name, help;
	 * number, transactions, size_lo, size_hi, read_block, write_block,
	 * part_size, min_rounds, max_rounds, time_budget_ns */
	{ "quick", "a verdict in about half a minute on the emulated drive (the default)",
	  3, 4, 512, 2048, 1024, 1024, 64ULL << 20, 2, 8, MINUTES(15) },
	{ "thorough", "more files, transactions and rounds; a bigger partition",
	  100, 300, 512, 16384, 4096, 4096, 512ULL << 20, 3, 10, MINUTES(120) },
	{ .name = NULL },
};

const struct ap_sweep_preset *ap_sweep_preset_find(const char *name)
{
	const struct ap_sweep_preset *p;

	for (p = ap_sweep_presets; name && p->name; p++)
		if (strcmp(p->name, name) == 0)
			return p;
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Order                                                              */
/* ------------------------------------------------------------------ */

void ap_sweep_order(const uint64_t *starts, size_t n, const uint64_t *prev_last,
		    struct ap_rng *r, uint64_t *out)
{
	if (!n)
		return;
	memcpy(out, starts, n * sizeof(*out));
	ap_rng_shuffle(r, out, n, sizeof(*out));
	if (prev_last && n > 1 && out[0] == *prev_last) {
		/* swap the head with a random other position */
		size_t j = 1 + (size_t)ap_rng_below(r, n - 1);
		uint64_t t = out[0];

		out[0] = out[j];
		out[j] = t;
	}
}

/* ------------------------------------------------------------------ */
/* Starts                                                             */
/* ------------------------------------------------------------------ */

size_t ap_sweep_sort_starts(uint64_t *v, size_t n, bool unique)
{
	size_t i, k;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), ap_stats_cmp_u64);
	if (!unique)
		return n;
	for (i = 1, k = 1; i < n; i++)	/* drop duplicates */
		if (v[i] != v[k - 1])
			v[k++] = v[i];
	return k;
}

int ap_sweep_parse_rounds(const char *s, unsigned *min, unsigned *max)
{
	const char *dots = strstr(s, "..");
	uint32_t a, b;
	char *tmp;
	int rc;

	if (!dots) {
		if (ap_parse_u32(s, &a) != 0 || a == 0 || a > 1000)
			return -EINVAL;
		*min = *max = a;
		return 0;
	}
	tmp = strndup(s, (size_t)(dots - s));
	if (!tmp)
		return -ENOMEM;
	rc = ap_parse_u32(tmp, &a);
	free(tmp);
	if (rc || ap_parse_u32(dots + 2, &b) != 0 || a == 0 || b < a || b > 1000)
		return -EINVAL;
	*min = a;
	*max = b;
	return 0;
}

static int parse_num(const char *s, size_t len, uint64_t *v)
{
	char buf[32];

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return ap_parse_u64(buf, v);
}

int ap_sweep_parse_starts(const char *s, uint64_t **starts, size_t *n, struct ap_error *e)
{
	uint64_t *v = NULL;
	size_t cnt = 0;
	const char *p = s;

	*starts = NULL;
	*n = 0;
	if (!s || !*s)
		return ap_error_set(e, EINVAL, "empty list of starts");
	while (*p) {
		size_t len = strcspn(p, ",");
		const char *dots = memmem(p, len, "..", 2);
		uint64_t a, b, step = 1, x;

		if (!dots) {
			if (parse_num(p, len, &a) != 0)
				goto bad;
			b = a;
		} else {
			const char *q = dots + 2, *colon;
			size_t rest = len - (size_t)(q - p);

			colon = memchr(q, ':', rest);
			if (parse_num(p, (size_t)(dots - p), &a) != 0)
				goto bad;
			if (colon) {
				if (parse_num(q, (size_t)(colon - q), &b) != 0 ||
				    parse_num(colon + 1, rest - (size_t)(colon + 1 - q), &step) != 0)
					goto bad;
				if (step == 0) {
					free(v);
					return ap_error_set(e, EINVAL, "starts '%.*s': step 0",
							    (int)len, p);
				}
			} else if (parse_num(q, rest, &b) != 0) {
				goto bad;
			}
			if (b < a) {
				free(v);
				return ap_error_set(e, EINVAL, "starts '%.*s': end before beginning",
						    (int)len, p);
			}
		}
		for (x = a; ; x += step) {
			if (cnt >= AP_SWEEP_MAX_STARTS) {
				free(v);
				return ap_error_set(e, ERANGE, "more than %d starts", AP_SWEEP_MAX_STARTS);
			}
			v = ap_xreallocarray(v, cnt + 1, sizeof(*v));
			v[cnt++] = x;
			if (b - x < step)
				break;
		}
		p += len;
		if (*p == ',') {
			p++;
			if (!*p)
				goto bad_end;
		}
	}
	*starts = v;
	*n = ap_sweep_sort_starts(v, cnt, true);
	return 0;
bad:
	free(v);
	return ap_error_set(e, EINVAL,
			    "bad list of starts '%s' (e.g. 34..64, 34..64:2 or 35,40,63)", s);
bad_end:
	free(v);
	return ap_error_set(e, EINVAL, "bad list of starts '%s': trailing comma", s);
}

void ap_sweep_default_starts(unsigned logical_sector, uint64_t **starts, size_t *n)
{
	uint64_t first, count, i;

	if (logical_sector == 512) {
		first = 34;
		count = 31;
	} else if (logical_sector == 4096) {
		first = 6;
		count = 32;
	} else {
		first = logical_sector ? 2 + (128 * 128 + logical_sector - 1) / logical_sector : 34;
		count = 32;
	}
	*starts = ap_xcalloc(count, sizeof(**starts));
	for (i = 0; i < count; i++)
		(*starts)[i] = first + i;
	*n = count;
}

