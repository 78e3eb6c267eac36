#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The sweep on the emulated drive hiding 4096-byte sectors, lowest aligned
# LBA 0, over the default range 34..64: fast starts 40 48 56 64, physical
# sector 4096, and the emulator's exact counters agree (no read-modify-write
# during the workload at the aligned starts, some at every other start).
# Small costs (rmw=1ms, 1/8 of the default) keep it short.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
. "$top_srcdir/tests/ts/sweep/common.sh"
ts_init "sweep --emulate: 4096 hidden, lowest aligned 0"
ts_need_emulator
ts_need_cmd python3 parted
sw_private_tmpdir

"$ALIGNPROBE" sweep --emulate=simple,rmw=1ms,jitter=30%,size=256M --seed 11 --size 32M -q --json \
	--save "$TS_TMP/saved.json" > "$TS_TMP/out.json" 2> "$TS_TMP/err"
rc=$?
[ $rc = 0 ] || { cat "$TS_TMP/err" >&2; ts_fail "sweep exited $rc"; }
J=$TS_TMP/out.json
sw_check "$J" "$TS_TMP/saved.json" <<'EOF'
v = d["verdict"]
eq(v["sensitive"], True, "sensitive")
eq(v["resolved"], True, "resolved")
eq(v["physical_sector"], 4096, "physical sector")
eq(v["reported_physical_sector"], 512, "reported physical sector")
eq(v["lowest_aligned_lba"], 0, "lowest aligned LBA")
eq(v["fast_starts"], [40, 48, 56, 64], "fast starts")
eq([s["start"] for s in d["starts"]], list(range(34, 65)), "the default range")
eq([s["start"] for s in d["starts"] if s["aligned"]], [40, 48, 56, 64], "ALIGNED")
# counters, not timing: aligned starts never pay a read-modify-write
eq(sum(r["emulator"]["rmw"] for r in d["results"] if r["start"] % 8 == 0), 0, "RMW at aligned starts")
eq([r["start"] for r in d["results"] if r["start"] % 8 and r["emulator"]["rmw"] == 0], [],
   "misaligned runs without RMW")
eq([r for r in d["results"] if not r["ok"]], [], "failed steps")
eq(d["stopped"], "clear", "stopped because the verdict was clear")
# every start as often as the others, several rounds, never twice in a row
eq(len(set(s["runs"] for s in d["starts"])), 1, "rounds per start")
check(d["starts"][0]["runs"] >= 2, "fewer than 2 rounds")
r = sorted(d["results"], key=lambda x: x["seq"])
eq([a["start"] for a, b in zip(r, r[1:]) if a["start"] == b["start"]], [], "back-to-back repeats")
check(v["slowdown"] > 1.5, "slowdown %r" % v["slowdown"])
check(v["p_value"] < 1e-3, "p-value %r" % v["p_value"])
# the saved file holds the same results
eq(json.load(open(args[0]))["results"], d["results"], "--save")
EOF
sw_assert_clean
ts_pass
