// SPDX-License-Identifier: GPL-2.0-or-later
#include "progress.h"
#include "util.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

void ap_progress_init(struct ap_progress *p, const char *what, uint64_t total, bool quiet)
{
	memset(p, 0, sizeof(*p));
	p->enabled = !quiet && isatty(STDERR_FILENO);
	p->what = what;
	p->total = total;
	p->t0_ns = ap_now_ns();
}

void ap_progress_format_eta(uint64_t ns, char *buf, size_t len)
{
	uint64_t s = (ns + AP_NSEC_PER_SEC / 2) / AP_NSEC_PER_SEC;

	if (s >= 3600)
		snprintf(buf, len, "%lluh%02llum", (unsigned long long)(s / 3600),
			 (unsigned long long)(s % 3600 / 60));
	else if (s >= 60)
		snprintf(buf, len, "%llum%02llus", (unsigned long long)(s / 60),
			 (unsigned long long)(s % 60));
	else
		snprintf(buf, len, "%llus", (unsigned long long)s);
}

void ap_progress_update(struct ap_progress *p, uint64_t done, const char *detail)
{
	uint64_t now = ap_now_ns();
	char line[256], eta[32] = "";
	int n;

	p->done = done;
	if (!p->enabled || (now - p->last_ns < AP_NSEC_PER_SEC / 10 && done < p->total))
		return;
	p->last_ns = now;
	if (p->total && done && done < p->total) {
		uint64_t el = now - p->t0_ns;
		char t[24];

		ap_progress_format_eta((uint64_t)((double)el * (double)(p->total - done) / (double)done),
				       t, sizeof(t));
		snprintf(eta, sizeof(eta), ", ETA %s", t);
	}
	if (p->total)
		n = snprintf(line, sizeof(line), "%s: %llu of %llu%s%s%s", p->what,
			     (unsigned long long)done, (unsigned long long)p->total,
			     detail ? ", " : "", detail ? detail : "", eta);
	else
		n = snprintf(line, sizeof(line), "%s: %llu%s%s", p->what,
			     (unsigned long long)done, detail ? ", " : "", detail ? detail : "");
	if (n < 0)
		return;
	if (n >= (int)sizeof(line))
		n = (int)sizeof(line) - 1;
	fprintf(stderr, "\r%s%*s", line, p->width > n ? p->width - n : 0, "");
	fflush(stderr);
	p->width = n;
}

void ap_progress_clear(struct ap_progress *p)
{
	if (p->enabled && p->width) {
		fprintf(stderr, "\r%*s\r", p->width, "");
		fflush(stderr);
		p->width = 0;
	}
}
