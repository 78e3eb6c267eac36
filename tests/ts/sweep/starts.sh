#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Short and irregular start lists on the emulated drive (4096 hidden from
# LBA 0; only start 40 of these is aligned): never "no sensitivity", never a
# unit these starts cannot resolve, exit 5 with a note that names what is
# missing; the header counts the measurements as they were made (a stop in
# the middle of a round says so). Small costs (rmw=1ms) and few rounds keep
# it short; nothing here depends on timings beyond "40 is faster".
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
. "$top_srcdir/tests/ts/sweep/common.sh"
ts_init "sweep --emulate: short and irregular start lists"
ts_need_emulator
ts_need_cmd python3
sw_private_tmpdir

# the issue's list: 35,40,63 (on main: "no alignment sensitivity", exit 0)
"$ALIGNPROBE" sweep --emulate=simple,rmw=1ms,size=128M --seed 1 --size 24M -q --starts 35,40,63 \
	--rounds 3 --save "$TS_TMP/a.json" > "$TS_TMP/a.txt" 2> "$TS_TMP/err"
rc=$?
[ $rc = 5 ] || { cat "$TS_TMP/a.txt" "$TS_TMP/err" >&2; ts_fail "35,40,63: exit $rc, expected 5"; }
grep -qi "no alignment sensitivity\|no alignment effect" "$TS_TMP/a.txt" &&
	ts_fail "35,40,63: claims no effect: $(cat "$TS_TMP/a.txt")"
grep -q "cannot resolve the physical sector size" "$TS_TMP/a.txt" ||
	ts_fail "35,40,63: does not say the starts cannot resolve it: $(cat "$TS_TMP/a.txt")"
grep -q "Note: .*every start from 35 to 50" "$TS_TMP/a.txt" ||
	ts_fail "35,40,63: the note does not say what to measure: $(cat "$TS_TMP/a.txt")"
grep -q "^Sweep of .*: 3 rounds done (9 measurements)" "$TS_TMP/a.txt" ||
	ts_fail "35,40,63: header: $(head -1 "$TS_TMP/a.txt")"
sw_check "$TS_TMP/a.json" <<'EOF'
v = d["verdict"]
eq(v["resolved"], False, "resolved")
eq(v["physical_sector"], None, "physical sector")
eq(v["starts_insufficient"], True, "starts_insufficient")
eq(v["confidence"], 1 - v["p_value"] if v["sensitive"] else 0, "confidence")
eq(len(d["results"]), 9, "measurements")
EOF

# 38..42 (on main: "slowdown 1.02x, no clear alignment effect"): 40 alone
# is fast; once that is established, more rounds cannot tell 2048 from
# 4096, so the sweep stops, possibly in the middle of a round
"$ALIGNPROBE" sweep --emulate=simple,rmw=1ms,size=128M --seed 1 --size 24M -q --starts 38..42 \
	--rounds 3..8 --save "$TS_TMP/b.json" > "$TS_TMP/b.txt" 2> "$TS_TMP/err"
rc=$?
[ $rc = 5 ] || { cat "$TS_TMP/b.txt" "$TS_TMP/err" >&2; ts_fail "38..42: exit $rc, expected 5"; }
grep -q "no clear alignment effect\|no alignment sensitivity" "$TS_TMP/b.txt" &&
	ts_fail "38..42: $(cat "$TS_TMP/b.txt")"
head -1 "$TS_TMP/b.txt" > "$TS_TMP/header"
sw_check "$TS_TMP/b.json" "$(cat "$TS_TMP/header")" <<'EOF'
import re
v = d["verdict"]
eq(v["resolved"], False, "resolved")
eq(v["starts_insufficient"], True, "starts_insufficient")
check(v["slowdown"] > 3, "slowdown %r: start 40 is much faster" % v["slowdown"])
if v["sensitive"]:
    eq(v["fast_starts"], [40], "fast starts")
    check("2048- or 4096-byte" in v["note"], "note: %r" % v["note"])
# the header counts what was measured: N measurements, and a round in
# progress as "R rounds and E of 5 starts of round R+1"
n = len(d["results"])
m = re.search(r"(\d+) measurements", args[0])
check(m and int(m.group(1)) == n, "header %r: %d measurements" % (args[0], n))
m = re.search(r"\((\d+) rounds? and (\d+) of 5 starts of round (\d+)\)", args[0])
if m:
    full, extra = int(m.group(1)), int(m.group(2))
    eq(full * 5 + extra, n, "rounds and steps in the header")
    eq(len([r for r in d["results"] if r["round"] <= full]), full * 5, "full rounds")
    eq(int(m.group(3)), full + 1, "the round in progress")
else:
    eq(n % 5, 0, "whole rounds (header %r)" % args[0])
EOF
sw_assert_clean
ts_pass
