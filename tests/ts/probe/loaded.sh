#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Under load a verdict stays right or becomes honestly inconclusive (issue
# 16): the probe on flash-8k and flash-16k (small, noisy 1.2-1.4x effects),
# hdd-7200 and honest-512n (whose lead-in reads rely on steady latencies)
# while two busy loops of ours compete for the CPUs. A resolved verdict must
# be the drive's unit (honest-512n: no effect); "no effect" on flash-8k (once seen: 1.03x, p = 1,
# "behaves like honest 512-byte sectors") or any other unit fails; exit 5
# (no verdict) passes when its reason is given. Nothing here depends on how
# fast the machine is: the budget only ends a hang.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "probe: under load the verdict is right or inconclusive, never wrong"
ts_alone "its two busy loops are the load it measures under, and would load the other tests"
ts_need_emulator
ts_need_cmd python3

busy=()
stop_busy() {
	local p
	for p in "${busy[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	busy=()
}
trap 'rc=$?; stop_busy; (exit $rc); ts_cleanup' EXIT
trap 'exit 130' INT TERM HUP
for i in 1 2; do
	( while :; do :; done ) &
	busy+=($!)
done

"$ALIGNPROBE" probe --json --yes --time-budget 10m \
	--emulate=flash-8k,size=256M,seed=11 --emulate=hdd-7200,size=256M,seed=12 \
	--emulate=flash-16k,size=256M,seed=13 --emulate=honest-512n,size=256M,seed=14 \
	> "$TS_TMP/out" 2> "$TS_TMP/err"
rc=$?
stop_busy
cat "$TS_TMP/err" >&2
case $rc in 0|5) ;; *) ts_fail "probe exited $rc" ;; esac

python3 - "$TS_TMP/out" "$rc" <<'PY' || ts_fail "a wrong verdict under load (see above)"
import json, sys
doc = json.load(open(sys.argv[1]))
want = [("flash-8k", 8192), ("hdd-7200", 4096), ("flash-16k", 16384), ("honest-512n", 512)]
bad = 0
assert len(doc["devices"]) == len(want), "expected %d devices, got %d" % (len(want), len(doc["devices"]))
for d, (name, phys) in zip(doc["devices"], want):
    v = d["verdict"]
    if v["resolved"]:
        ok = v["sensitive"] == (phys != 512) and v["physical_sector"] == phys and \
            v["lowest_aligned_lba"] == 0
        what = "resolved"
    else:
        # inconclusive is honest, with its reason
        ok = bool(d.get("unclear_reason")) and int(sys.argv[2]) == 5
        what = "inconclusive: %s" % d.get("unclear_reason")
    print("%s %s (%s): %s, %s, %.2fx, p=%g, %.1fs" % ("ok  " if ok else "FAIL", d["device"],
          name, what, v["note"], v.get("slowdown") or 0, v["p_value"], d["seconds"]),
          file=sys.stderr)
    bad += not ok
sys.exit(1 if bad else 0)
PY
ts_pass
