// SPDX-License-Identifier: GPL-2.0-or-later
#include "lib/exitcodes.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

int ap_error_set(struct ap_error *e, int code, const char *fmt, ...)
{
	if (code < 0)
		code = -code;
	if (e) {
		va_list ap;

		e->code = code;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	return -code;
}

void ap_error_clear(struct ap_error *e)
{
	if (e) {
		e->code = 0;
		e->msg[0] = '\0';
	}
}

void ap_oom(const char *what)
{
	fprintf(stderr, "%s: cannot allocate %s\n", program_invocation_short_name, what);
	exit(AP_EXIT_FAILURE);
}

static void __attribute__((noreturn)) oom(size_t n)
{
	char what[48];

	snprintf(what, sizeof(what), "%zu bytes", n);
	ap_oom(what);
}

void *ap_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom(n);
	return p;
}

void *ap_xcalloc(size_t nmemb, size_t n)
{
	void *p = calloc(nmemb ? nmemb : 1, n ? n : 1);

	if (!p)
		oom(nmemb * n);
	return p;
}

void *ap_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *ap_xreallocarray(void *p, size_t nmemb, size_t n)
{
	if (n && nmemb > SIZE_MAX / n)
		oom(SIZE_MAX);
	return ap_xrealloc(p, nmemb * n);
}

char *ap_xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		oom(strlen(s) + 1);
	return p;
}

char *ap_xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (!p)
		oom(n + 1);
	return p;
}

int ap_xasprintf(char **out, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(out, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom(0);
	return n;
}

void ap_strappendf(char **s, const char *sep, const char *fmt, ...)
{
	va_list ap;
	char *t, *u;

	va_start(ap, fmt);
	if (vasprintf(&t, fmt, ap) < 0)
		oom(0);
	va_end(ap);
	if (!*s) {
		*s = t;
		return;
	}
	ap_xasprintf(&u, "%s%s%s", *s, sep ? sep : "", t);
	free(*s);
	free(t);
	*s = u;
}

uint64_t ap_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * AP_NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

uint64_t ap_gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

uint64_t ap_prime_next(uint64_t *rest, uint64_t p)
{
	for (p = p < 2 ? 2 : p + 1; p <= *rest; p++) {
		if (*rest % p)
			continue;
		while (*rest % p == 0)
			*rest /= p;
		return p;
	}
	return 0;
}

void ap_sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

int ap_parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

int ap_parse_s64(const char *s, int64_t *out)
{
	char *end;
	long long v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (end == s || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

int ap_parse_u32(const char *s, uint32_t *out)
{
	uint64_t v;
	int rc = ap_parse_u64(s, &v);

	if (rc)
		return rc;
	if (v > UINT32_MAX)
		return -ERANGE;
	*out = (uint32_t)v;
	return 0;
}

int ap_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno == ERANGE)
		return -ERANGE;
	if (end == s || *end || !isfinite(v))
		return -EINVAL;
	*out = v;
	return 0;
}

int ap_parse_size(const char *s, uint64_t *bytes)
{
	static const char units[] = "KMGTPE";
	const char *p;
	char *end;
	unsigned long long v;
	uint64_t mult = 1, base = 1024;
	int i;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	p = end;
	if (*p) {
		const char *u = strchr(units, toupper((unsigned char)*p));

		if (!u)
			return -EINVAL;
		p++;
		if (*p == 'i' && p[1] == 'B')
			p += 2;			/* KiB */
		else if (*p == 'B') {
			base = 1000;		/* KB */
			p++;
		}
		if (*p)
			return -EINVAL;
		for (i = 0; i <= u - units; i++) {
			if (mult > UINT64_MAX / base)
				return -ERANGE;
			mult *= base;
		}
	}
	if (v && mult > UINT64_MAX / v)
		return -ERANGE;
	*bytes = (uint64_t)v * mult;
	return 0;
}

int ap_parse_duration_ns(const char *s, uint64_t *ns)
{
	static const struct {
		const char *name;
		double mult;
	} units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
		{ "m", 60e9 }, { "min", 60e9 }, { "h", 3600e9 },
	};
	char *end;
	double v;
	size_t i;

	if (!s || !(isdigit((unsigned char)*s) || *s == '.'))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno == ERANGE || end == s || !isfinite(v) || v < 0)
		return -EINVAL;
	for (i = 0; i < AP_ARRAY_SIZE(units); i++) {
		if (strcmp(end, units[i].name) == 0) {
			double r = v * units[i].mult;

			if (r > (double)UINT64_MAX / 2)
				return -ERANGE;
			*ns = (uint64_t)(r + 0.5);
			return 0;
		}
	}
	return -EINVAL;
}

int ap_parse_fraction(const char *s, double max, double *out)
{
	char *end;
	double v;

	if (!s || !(isdigit((unsigned char)*s) || *s == '.'))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno == ERANGE || end == s || !isfinite(v))
		return -EINVAL;
	if (*end == '%' && end[1] == '\0')
		v /= 100.0;
	else if (*end)
		return -EINVAL;
	if (v < 0 || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

void ap_format_duration(uint64_t ns, char *buf, size_t len)
{
	/* rounded to the second, without overflowing near UINT64_MAX */
	uint64_t s = ns / AP_NSEC_PER_SEC + (ns % AP_NSEC_PER_SEC >= AP_NSEC_PER_SEC / 2);

	if (s >= 3600)
		snprintf(buf, len, "%lluh%02llum", (unsigned long long)(s / 3600),
			 (unsigned long long)(s % 3600 / 60));
	else if (s >= 60)
		snprintf(buf, len, "%llum%02llus", (unsigned long long)(s / 60),
			 (unsigned long long)(s % 60));
	else
		snprintf(buf, len, "%llus", (unsigned long long)s);
}

char *ap_size_to_human(uint64_t bytes)
{
	static const char letters[] = "BKMGTPE";
	double v = (double)bytes;
	int i = 0;
	char *s;

	while (v >= 1024.0 && i < 6) {
		v /= 1024.0;
		i++;
	}
	if (i == 0)
		ap_xasprintf(&s, "%" PRIu64 "B", bytes);
	else if (v >= 10.0 || v == (double)(uint64_t)v)
		ap_xasprintf(&s, "%.0f%c", v, letters[i]);
	else
		ap_xasprintf(&s, "%.1f%c", v, letters[i]);
	return s;
}

const char *ap_size_exact(uint64_t bytes, char *buf, size_t len)
{
	if (bytes >= 1048576 && bytes % 1048576 == 0)
		snprintf(buf, len, "%llu MiB", (unsigned long long)(bytes / 1048576));
	else if (bytes >= 1024 && bytes % 1024 == 0)
		snprintf(buf, len, "%llu KiB", (unsigned long long)(bytes / 1024));
	else
		snprintf(buf, len, "%llu bytes", (unsigned long long)bytes);
	return buf;
}

bool ap_is_power_of_2(uint64_t x)
{
	return x && !(x & (x - 1));
}

void ap_unescape_octal(char *s)
{
	char *w = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			*w++ = *s++;
		}
	}
	*w = '\0';
}

char *ap_read_line(const char *path)
{
	char buf[PATH_MAX + 64];
	FILE *f = fopen(path, "re");
	char *p = NULL;

	if (!f)
		return NULL;
	if (fgets(buf, sizeof(buf), f)) {
		size_t len = strcspn(buf, "\n");

		while (len > 0 && (buf[len - 1] == ' ' || buf[len - 1] == '\t'))
			len--;
		if (len)
			p = strndup(buf, len);
	}
	fclose(f);
	return p;
}

int ap_read_u64(const char *path, uint64_t *v)
{
	char *s = ap_read_line(path);
	int rc;

	if (!s)
		return -ENOENT;
	rc = ap_parse_u64(s, v);
	free(s);
	return rc;
}

uint32_t ap_crc32(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	size_t i;
	int k;

	crc = ~crc;
	for (i = 0; i < len; i++) {
		crc ^= p[i];
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
	}
	return ~crc;
}

int ap_pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
	const char *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

int ap_pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	char *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;	/* unexpected end of device/file */
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

int ap_fsync_dir_of(const char *path)
{
	char *copy = ap_xstrdup(path), *dir = dirname(copy);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		rc = -errno;
	else if (fsync(fd) != 0)
		rc = -errno;
	if (fd >= 0)
		close(fd);
	free(copy);
	return rc;
}

int ap_free_bytes_of_dir(const char *path, uint64_t *avail)
{
	char *copy = ap_xstrdup(path), *dir = dirname(copy);
	struct statvfs sv;
	int rc = 0;

	if (statvfs(dir, &sv) != 0)
		rc = -errno;
	else
		*avail = (uint64_t)sv.f_bavail * (sv.f_frsize ? sv.f_frsize : sv.f_bsize);
	free(copy);
	return rc;
}

size_t ap_utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	size_t n, i;
	unsigned cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff)
		return 0;
	return n;
}

void ap_test_pause(const char *var)
{
	static uint64_t calls;
	struct timespec ts = { 0, 10 * 1000000L };
	const char *f = getenv(var), *at;
	char *reached, *atvar;
	uint64_t n = 1;
	int fd, i;

	if (!f || !*f)
		return;
	ap_xasprintf(&atvar, "%s_AT", var);
	at = getenv(atvar);
	free(atvar);
	if (at && ap_parse_u64(at, &n) != 0)
		n = 1;
	if (++calls < n)
		return;
	ap_xasprintf(&reached, "%s.reached", f);
	fd = open(reached, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	free(reached);
	for (i = 0; i < 6000 && access(f, F_OK) != 0; i++)
		nanosleep(&ts, NULL);
}
