#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Four emulated drives in one call are probed at the same time: the
# per-device intervals (monotonic clock, from the JSON) all overlap, which
# one after the other they could not. (How much faster that is depends on
# the machine, so it is printed, not asserted.) Also --plot with several
# devices: one SVG each. The time budget is there only to end a hang.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "probe: four drives in parallel"
ts_need_emulator
ts_need_cmd python3 date

devs=()
for i in 1 2 3 4; do
	devs+=("$(ts_emu_attach --size 64M --phys 4096 --lowest-aligned $((i * 2 - 2)) \
		--rmw-cost 2ms --jitter 30% --seed "$i")")
done

t0=$(date +%s%N)
ts_run_rc 0 "$ALIGNPROBE" probe --yes --json --time-budget 1h "${devs[0]}"
t1=$(date +%s%N)
cp "$TS_TMP/out" "$TS_TMP/one.json"
ts_run_rc 0 "$ALIGNPROBE" probe --yes --json --time-budget 1h --plot "$TS_TMP/p.svg" "${devs[@]}"
t2=$(date +%s%N)
# one plot per device: FILE-<dev>.svg
for d in "${devs[@]}"; do
	f="$TS_TMP/p-$(basename "$d").svg"
	grep -q "<svg" "$f" 2>/dev/null || ts_fail "no plot $f"
	grep -q "4096-byte physical sectors" "$f" || ts_fail "plot $f without the verdict"
done

python3 - "$TS_TMP/one.json" "$TS_TMP/out" "$((t1 - t0))" "$((t2 - t1))" <<'PY' || ts_fail "not parallel"
import json, sys
one = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
wall1, wall4 = int(sys.argv[3]) / 1e9, int(sys.argv[4]) / 1e9
devs = doc["devices"]
assert len(devs) == 4
for i, d in enumerate(devs):
    v = d["verdict"]
    assert v["resolved"] and v["physical_sector"] == 4096 and v["lowest_aligned_lba"] == 2 * i, \
        (d["device"], v)
own = [(d["end_ns"] - d["start_ns"]) / 1e9 for d in devs]
latest_start = max(d["start_ns"] for d in devs)
earliest_end = min(d["end_ns"] for d in devs)
span = (max(d["end_ns"] for d in devs) - min(d["start_ns"] for d in devs)) / 1e9
print("one drive: %.2fs wall; four drives: %.2fs wall, measuring %.2fs, own times %s (sum %.2fs)"
      % (wall1, wall4, span, " ".join("%.2f" % t for t in own), sum(own)), file=sys.stderr)
assert latest_start < earliest_end, "the four measurements did not overlap"
# the start gate: every device began its timed writes when the last one was
# ready, whatever its preparation cost (so the overlap above is no race)
assert len(set(d["start_ns"] for d in devs)) == 1, \
    "the devices did not start together: %s" % [d["start_ns"] for d in devs]
PY
ts_pass
