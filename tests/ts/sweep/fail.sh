#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Device errors: the emulated drive answers EIO to everything after a few
# hundred requests. The failing steps are reported as failed, with the stage
# and the cause, per start ("start N: workload failed: ..."), kept in the
# results and the FAILED column, never counted as slow; after three failures
# in a row the sweep stops with exit 1 — and nothing is left mounted,
# registered, or held (the emulated drive can be detached).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
. "$top_srcdir/tests/ts/sweep/common.sh"
ts_init "sweep: failing steps"
ts_need_emulator
ts_need_cmd python3
sw_private_tmpdir

"$ALIGNPROBE" sweep --emulate=simple,rmw=300us,size=128M,fail-after=400 --seed 2 --size 24M -q \
	--starts 38..42 --rounds 2 --json > "$TS_TMP/out.json" 2> "$TS_TMP/err"
rc=$?
[ $rc = 1 ] || { cat "$TS_TMP/err" >&2; ts_fail "sweep exited $rc, expected 1"; }
grep -q "start [0-9]*: [a-z]* failed: .*Input/output error" "$TS_TMP/err" ||
	ts_fail "no per-start failure message: $(cat "$TS_TMP/err")"
grep -q "steps in a row failed" "$TS_TMP/err" || ts_fail "no reason to stop: $(cat "$TS_TMP/err")"
grep -q "cannot tear down" "$TS_TMP/err" && ts_fail "the emulated drive stayed busy: $(cat "$TS_TMP/err")"
sw_check "$TS_TMP/out.json" <<'EOF'
failed = [r for r in d["results"] if not r["ok"]]
check(len(failed) >= 3, "fewer than 3 failed results: %r" % failed)
for r in failed:
    check(r["stage"] in ("partition", "mkfs", "mount", "workload", "umount"), "stage %r" % r["stage"])
    check(r["errno"] == 5, "errno %r" % r["errno"])
    check("Input/output error" in r["error"], "error %r" % r["error"])
    check("cost" not in r and "tps" not in r, "a failed result has timings")
eq(d["stopped"], "error", "stopped")
eq(sum(s["failed"] for s in d["starts"]), len(failed), "FAILED column")
eq(sum(s["runs"] for s in d["starts"]), len(d["results"]), "RUNS column")
EOF
sw_assert_clean
ts_pass
