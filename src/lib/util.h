/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Small helpers shared by every module: allocation that never fails,
 * error records, number/size/duration parsing, the monotonic clock.
 */
#ifndef AP_UTIL_H
#define AP_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AP_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define AP_NSEC_PER_SEC		1000000000ULL

/*
 * Modules return 0 or -errno. Where the errno alone would not tell the user
 * enough (a parse error with file:line, a failing child process) they also
 * fill a struct ap_error that the command prints.
 */
struct ap_error {
	int code;		/* positive errno, 0 when none */
	char msg[512];
};

/* Fill @e (may be NULL) and return -code, for `return ap_error_set(...)`. */
int ap_error_set(struct ap_error *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void ap_error_clear(struct ap_error *e);

/* Allocation: exit(AP_EXIT_FAILURE) with a message on failure. */
/* Out of memory: "PROG: cannot allocate WHAT" and exit 1, as the ap_x* allocators do. */
void ap_oom(const char *what) __attribute__((noreturn));
void *ap_xmalloc(size_t n);
void *ap_xcalloc(size_t nmemb, size_t n);
void *ap_xrealloc(void *p, size_t n);
void *ap_xreallocarray(void *p, size_t nmemb, size_t n);
char *ap_xstrdup(const char *s);
char *ap_xstrndup(const char *s, size_t n);
int ap_xasprintf(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Append the printf-formatted @fmt to the malloc'd string *@s (NULL: none
 * yet, and *@s becomes the piece), with @sep (NULL: nothing) between the
 * two when *@s is not NULL. Exits as ap_xasprintf() does when out of memory.
 */
void ap_strappendf(char **s, const char *sep, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Monotonic clock in nanoseconds. */
uint64_t ap_now_ns(void);
/* The greatest common divisor of @a and @b (@a when @b is 0). */
uint64_t ap_gcd_u64(uint64_t a, uint64_t b);
/*
 * The next distinct prime factor of *@rest above @p (start with 0), every
 * power of it divided out of *@rest; 0 when none is left. The distinct
 * prime factors of n: for (p = 0; (p = ap_prime_next(&rest, p)); ).
 */
uint64_t ap_prime_next(uint64_t *rest, uint64_t p);
/* Sleep @ms milliseconds, the whole time (a signal does not cut it short). */
void ap_sleep_ms(unsigned ms);

/*
 * A seam for the tests (e2fsprogs' MKE2FS_* model): when the environment
 * variable @var names a file F, create "F.reached" and wait until F exists
 * (at most a minute), so that a test acts at this point of a run, and not
 * after a guessed sleep. Nothing when @var is unset. With "@var_AT" set to
 * N, the first N-1 calls pass without pausing: the test acts at the Nth
 * (the second step of a sweep, say).
 */
void ap_test_pause(const char *var);

/*
 * Parsing, all strict: the whole string must be consumed, no sign where
 * none is allowed, range checked. Return 0 or -EINVAL / -ERANGE.
 */
int ap_parse_u64(const char *s, uint64_t *out);
int ap_parse_s64(const char *s, int64_t *out);
int ap_parse_u32(const char *s, uint32_t *out);
int ap_parse_double(const char *s, double *out);
/* "4096", "4K", "4KiB" (1024-based), "4KB" (1000-based); K M G T P E. */
int ap_parse_size(const char *s, uint64_t *bytes);
/* "8ms", "500us", "2s", "100ns", "1.5ms", "2m"; a bare number is rejected
 * so that nobody confuses units. */
int ap_parse_duration_ns(const char *s, uint64_t *ns);
/* "30%" or "0.3" -> 0.30; must lie within [0, @max]. */
int ap_parse_fraction(const char *s, double max, double *out);

/* A duration rounded to the second: "1h02m", "3m05s", "42s". */
void ap_format_duration(uint64_t ns, char *buf, size_t len);

/* Human-readable size, "4 KiB"-style as lsblk prints ("4K", "1.5G"). */
char *ap_size_to_human(uint64_t bytes);
/*
 * An exact size in words, for sentences: "64 KiB", "1 MiB", "520 bytes" (the
 * largest of MiB, KiB and bytes that divides @bytes). Written into @buf,
 * which is returned.
 */
const char *ap_size_exact(uint64_t bytes, char *buf, size_t len);

bool ap_is_power_of_2(uint64_t x);

/* Undo the \ooo escapes of /proc/self/mountinfo and /proc/swaps, in place. */
void ap_unescape_octal(char *s);

/*
 * The first line of a small file (a sysfs attribute), without the newline
 * and trailing blanks (SCSI strings are padded): malloc'd, or NULL when the
 * file is unreadable or the line empty. ap_read_u64() parses it strictly.
 */
char *ap_read_line(const char *path);
int ap_read_u64(const char *path, uint64_t *v);

/* CRC-32 (IEEE 802.3, as zlib's crc32()); chain calls with the last result. */
uint32_t ap_crc32(uint32_t crc, const void *buf, size_t len);

/* Write all of @buf at @off, retrying short writes and EINTR: 0 or -errno. */
int ap_pwrite_all(int fd, const void *buf, size_t len, uint64_t off);
int ap_pread_all(int fd, void *buf, size_t len, uint64_t off);

/* fsync the directory that holds @path (a rename or an unlink in it): 0 or -errno. */
int ap_fsync_dir_of(const char *path);
/* Bytes an unprivileged writer may still use on the file system of @path's directory. */
int ap_free_bytes_of_dir(const char *path, uint64_t *avail);

/*
 * The length of the valid UTF-8 sequence at @s (1..4), or 0 when it is not
 * one (overlong forms, surrogates, U+FFFE/U+FFFF and beyond U+10FFFF are
 * refused: what XML and Prometheus labels may hold).
 */
size_t ap_utf8_len(const unsigned char *s);

#endif
