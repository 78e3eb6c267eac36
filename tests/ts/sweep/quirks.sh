#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A write cache that ignores flushes (issue 26: a USB bridge): every fsync
# is answered at once and nothing the workload writes reaches the disk
# while it is timed. Before, the sweep ended in one run "inconclusive", in
# another with a resolved "no alignment effect, physical sector 512" on this
# drive that hides 4096-byte sectors. Now it stops before the first step
# (the check's one-sector writes come back faster than a rotating disk can
# write), or else after a few steps (the fsyncs), exit 5, the cause and the
# remedy named, no verdict (none saved either).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
. "$top_srcdir/tests/ts/sweep/common.sh"
ts_init "sweep --emulate: a cache that ignores flushes is named, no verdict"
ts_need_emulator
ts_need_cmd python3
sw_private_tmpdir

"$ALIGNPROBE" sweep --emulate=usb-bridge-noflush,size=256M --seed 17 --size 32M -q \
	--save "$TS_TMP/saved.json" > "$TS_TMP/text" 2> "$TS_TMP/err"
rc=$?
cat "$TS_TMP/err" >&2
ts_assert_eq 5 "$rc" "sweep exit code"
for w in "ignores flushes" "hdparm -W0" "sdparm --clear WCE" "USB bridge" \
	"workload larger than the cache"; do
	grep -qF "$w" "$TS_TMP/text" || ts_fail "no \"$w\" in: $(cat "$TS_TMP/text")"
done
grep -q "no alignment\|physical sectors" "$TS_TMP/text" &&
	ts_fail "a verdict on a drive whose flushes cost nothing: $(cat "$TS_TMP/text")"
sw_assert_unmeasurable "$TS_TMP/saved.json"
sw_assert_clean
ts_pass
