#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The JSON document's shape (the stable interface), and --replay: the saved
# results (--save, and the --json output itself) re-analysed and re-printed
# without any device give the same verdict; bad files are refused with
# exit 2 and a reason.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
. "$top_srcdir/tests/ts/sweep/common.sh"
ts_init "sweep --json shape and --replay"
ts_need_emulator
ts_need_cmd python3
sw_private_tmpdir

"$ALIGNPROBE" sweep --emulate=simple,rmw=300us,size=128M --seed 5 --size 24M -q --starts 38..42 \
	--rounds 2 --json --save "$TS_TMP/saved.json" > "$TS_TMP/out.json" 2> "$TS_TMP/err"
rc=$?
[ $rc = 0 ] || [ $rc = 5 ] || { cat "$TS_TMP/err" >&2; ts_fail "sweep exited $rc"; }
J=$TS_TMP/out.json

# shape: {"device", "verdict": {...}, "results": [per start and round], ...}
sw_check "$J" <<'EOF'
eq(sorted(k for k in d if k != "next_steps_device"),
   ["device", "identity", "logical_sector", "next_steps", "parameters",
    "reported_physical_sector", "results", "starts", "stopped", "verdict"],
   "top-level keys")
# the emulated drive is detached at exit: no step names it (issue 31, item 6)
for s in d["next_steps"]:
    check(d["device"] not in s["command"], "a step names the detached drive: %s" % s["command"])
if d["next_steps"]:
    eq(d["next_steps_device"]["placeholder"], "DEVICE", "the placeholder")
    check("detached" in d["next_steps_device"]["why"], "why the placeholder")
eq(d["identity"]["vendor"], "ALIGNPROBE", "the emulated drive's identity")
eq(type(d["next_steps"]), list, "next_steps is a list")
for k in ("sensitive", "resolved", "logical_sector", "reported_physical_sector", "physical_sector",
          "lowest_aligned_lba", "fast_starts", "slowdown", "p_value", "confidence"):
    check(k in d["verdict"], "verdict." + k)
eq(type(d["verdict"]["sensitive"]), bool, "sensitive is a boolean")
eq(type(d["verdict"]["fast_starts"]), list, "fast_starts is a list")
eq(d["verdict"]["logical_sector"], 512, "logical sector")
eq(len(d["results"]), 10, "one result per start and round")
eq(sorted(set(r["round"] for r in d["results"])), [1, 2], "rounds")
for k in ("start", "round", "seq", "ok", "cost", "tps", "creates_per_s", "deletes_per_s",
          "read_kibs", "write_kibs", "fsync_med_ms", "transactions", "mkfs_s", "emulator"):
    check(all(k in r for r in d["results"]), "results[]." + k)
for k in ("start", "aligned", "runs", "failed", "tps", "creates", "deletes", "read_kibs",
          "write_kibs", "fsync_med", "rel"):
    check(all(k in s for s in d["starts"]), "starts[]." + k)
eq(max(s["rel"] for s in d["starts"]), 1.0, "REL of the best")
eq(d["parameters"]["seed"], 5, "the seed is recorded")
eq(d["parameters"]["workload"]["sync"], "fsync", "the sync policy is recorded")
eq(d["parameters"]["starts"], [38, 39, 40, 41, 42], "the starts are recorded")
EOF

# replay: the same verdict from the saved file and from the --json output
for f in "$TS_TMP/saved.json" "$J"; do
	"$ALIGNPROBE" sweep --replay "$f" --json > "$TS_TMP/replay.json" 2> "$TS_TMP/err"
	ts_assert_eq $rc $? "replay exit code"
	sw_check "$J" "$TS_TMP/replay.json" <<'EOF'
r = json.load(open(args[0]))
eq(r["verdict"], d["verdict"], "replayed verdict")
eq(r["starts"], d["starts"], "replayed table")
eq(r["results"], d["results"], "replayed results")
eq(r["stopped"], d["stopped"], "replayed stop reason")
eq(r["parameters"], d["parameters"], "replayed parameters")
# a replay holds no device: its steps name none (issue 31, item 6)
for s in r["next_steps"]:
    check(r["device"] not in s["command"], "a replayed step names %s: %s" % (r["device"], s["command"]))
if r["next_steps"]:
    check("replayed" in r["next_steps_device"]["why"], "why the placeholder (replay)")
EOF
done
# and as a table, raw, and a plot
ts_run_rc $rc "$ALIGNPROBE" sweep --replay "$J" -rn -o START,TPS,REL
ts_assert_eq 5 "$(wc -l < "$TS_TMP/out")" "raw lines"
ts_assert_eq "38 39 40 41 42" "$(awk '{print $1}' "$TS_TMP/out" | tr '\n' ' ' | sed 's/ $//')" "raw starts"
ts_run_rc $rc "$ALIGNPROBE" sweep --replay "$J" --plot "$TS_TMP/p.svg"
grep -q "<svg" "$TS_TMP/p.svg" || ts_fail "no SVG written"
grep -q "^ *START" "$TS_TMP/out" || ts_fail "no table: $(cat "$TS_TMP/out")"

# bad files: exit 2 naming the file; bad combinations: exit 2
echo '{"logical_sector": 512, "results": [{"start": 40}]}' > "$TS_TMP/bad.json"
ts_run_rc 2 "$ALIGNPROBE" sweep --replay "$TS_TMP/bad.json"
grep -q "bad.json.*results\[0\]" "$TS_TMP/err" || ts_fail "bad file: $(cat "$TS_TMP/err")"
echo '{"logical_sector": 512, "results": [' > "$TS_TMP/cut.json"
ts_run_rc 2 "$ALIGNPROBE" sweep --replay "$TS_TMP/cut.json"
grep -q "not valid JSON" "$TS_TMP/err" || ts_fail "truncated file: $(cat "$TS_TMP/err")"
ts_run_rc 2 "$ALIGNPROBE" sweep --replay "$TS_TMP/missing.json"
ts_run_rc 2 "$ALIGNPROBE" sweep --replay "$J" /dev/null
ts_run_rc 2 "$ALIGNPROBE" sweep --replay "$J" --starts 40
# a run stopped by a signal or an error has no verdict, whatever its partial
# results show: not in the text, not in -J, not in the chart; exit 5
for how in signal error; do
	python3 - "$top_srcdir/tests/ts/output/sweep-4096-0.json" "$TS_TMP/$how.json" "$how" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["stopped"] = sys.argv[3]
json.dump(d, open(sys.argv[2], "w"))
EOF
	ts_run_rc 5 "$ALIGNPROBE" sweep --replay "$TS_TMP/$how.json" --plot "$TS_TMP/$how.svg"
	grep -q "^Verdict" "$TS_TMP/out" && ts_fail "stopped by $how: a verdict on stdout: $(grep -A1 '^Verdict' "$TS_TMP/out")"
	grep -q "^No verdict for .*: the run was " "$TS_TMP/out" || ts_fail "stopped by $how: $(tail -3 "$TS_TMP/out")"
	grep -q "physical sector 4096" "$TS_TMP/$how.svg" && ts_fail "stopped by $how: a verdict in the chart"
	ts_run_rc 5 "$ALIGNPROBE" sweep --replay "$TS_TMP/$how.json" -J
	ts_json_check "$TS_TMP/out" <<< 'eq(d["verdict"], None, "verdict")' || ts_fail "stopped by $how: -J has a verdict: $(grep -A3 '"verdict"' "$TS_TMP/out")"
done
sw_assert_clean
ts_pass
