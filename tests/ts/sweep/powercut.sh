#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A power cut during a sweep (issue 26): the emulated drive's power goes at
# its 300th write (a few steps in; the volatile cache lost, the write in
# flight torn) and every request fails with EIO from then on. The sweep
# fails, exit 1, naming the I/O error per start and why it stopped; it
# shows, saves and records no verdict; nothing is left mounted, registered
# or attached (its own emulated drive detached).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
. "$top_srcdir/tests/ts/sweep/common.sh"
ts_init "sweep --emulate: a power cut during the sweep fails it cleanly"
ts_need_emulator
ts_need_cmd python3
sw_private_tmpdir

"$ALIGNPROBE" sweep --emulate=hdd-7200,size=256M,cut-after=300 --seed 5 --size 32M -q \
	--save "$TS_TMP/saved.json" > "$TS_TMP/text" 2> "$TS_TMP/err"
rc=$?
cat "$TS_TMP/err" >&2
ts_assert_eq 1 "$rc" "sweep exit code"
grep -q "start [0-9]*: [a-z]* failed: .*Input/output error" "$TS_TMP/err" ||
	ts_fail "no per-start failure naming the I/O error: $(cat "$TS_TMP/err")"
grep -q "steps in a row failed" "$TS_TMP/err" || ts_fail "no reason to stop: $(cat "$TS_TMP/err")"
grep -q "^No verdict" "$TS_TMP/text" || ts_fail "no \"No verdict\": $(cat "$TS_TMP/text")"
grep -q "^Verdict\|no alignment sensitivity\|Physical sector:" "$TS_TMP/text" &&
	ts_fail "a verdict after a power cut: $(cat "$TS_TMP/text")"
grep -q "cannot tear down\|still mounted" "$TS_TMP/err" &&
	ts_fail "the sweep could not clean up: $(cat "$TS_TMP/err")"
sw_check "$TS_TMP/saved.json" <<'PY'
eq(d["stopped"], "error", "stopped")
check(d.get("verdict") is None or not d["verdict"]["resolved"], "a saved verdict")
ok = [r for r in d["results"] if r["ok"]]
failed = [r for r in d["results"] if not r["ok"]]
check(len(ok) >= 1, "the power went before the first step: no cut *during* the sweep")
check(len(failed) >= 3, "fewer than 3 failed results: %r" % failed)
for r in failed:
    eq(r["errno"], 5, "errno of start %r" % r["start"])
PY
grep -qF "$TMPDIR" /proc/self/mounts && ts_fail "still mounted: $(grep -F "$TMPDIR" /proc/self/mounts)"
sw_assert_clean
ts_pass
