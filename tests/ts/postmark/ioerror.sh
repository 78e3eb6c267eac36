#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# An I/O error aborts the run (PostMark ignores them and counts the failed
# operation anyway): a message naming the file, the call and the errno,
# exit 1, partial results printed, and every file and subdirectory removed.
# The error is made with RLIMIT_FSIZE: writes past 4 KiB fail with EFBIG
# (SIGXFSZ ignored so that the write returns the error).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "I/O errors: abort with the file and errno, exit 1, cleanup"

loc=$TS_TMP/loc
mkdir -p "$loc"
(
	trap '' XFSZ
	ulimit -f 4
	exec "$ALIGNPROBE" postmark -q --location "$loc" --subdirectories 2 --number 50 \
		--transactions 100 --size 1000:9000 --seed 5
) > "$TS_TMP/out" 2> "$TS_TMP/err"
rc=$?
[ "$rc" = 1 ] || { cat "$TS_TMP/err" >&2; ts_fail "exit $rc, expected 1"; }
grep -qE "create '$loc/s[01]/[0-9]+': write: File too large" "$TS_TMP/err" ||
	{ cat "$TS_TMP/err" >&2; ts_fail "the message does not name the file, call and errno"; }
grep -q "Stopped by an I/O error while creating files" "$TS_TMP/out" || ts_fail "no partial report"
[ -z "$(ls -A "$loc")" ] || ts_fail "left $(ls -A "$loc")"
ts_pass
