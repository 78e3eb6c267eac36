#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Small effects are effects (issue 16): an emulated drive whose misaligned
# writes are about 1.3x slower (base cost 4 ms per request, 600 us per
# read-modify-write, 20 % jitter), probed with --min-slowdown 2: the
# verdict is the hidden unit, with its size and "alignment matters a
# little" (on main: "no alignment effect ... honest 512-byte sectors"). The
# same costs on an honest drive stay "no effect" (no false positive).
# Costs of milliseconds and at least 6 rounds keep a loaded machine's
# scheduling delays small against the effect; under CI's load it once
# measured 1.506x, hence a threshold of 2 rather than 1.5.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "probe: a small alignment effect is reported"
ts_need_emulator
ts_need_cmd python3

common="base=4ms,rmw=600us,jitter=20%,size=128M"
# rounds and budget only end a hang (load can make either verdict need more)
opts="--min-slowdown 2 --min-rounds 6 --max-rounds 400 --max-size 8K --time-budget 30m"
"$ALIGNPROBE" probe --json $opts \
	--emulate="simple,phys=4096,lba=0,$common" --emulate="simple,phys=512,$common,seed=2" \
	> "$TS_TMP/out.json" 2> "$TS_TMP/err"
rc=$?
[ $rc = 0 ] || { cat "$TS_TMP/err" >&2; python3 -c 'import json, sys
for d in json.load(open(sys.argv[1]))["devices"]:
    print(d["device"], json.dumps(d["verdict"]["note"]), d.get("unclear_reason"),
          [(s["size"], s["rounds"], s["verdict"] and s["verdict"]["note"]) for s in d["sizes"]])
' "$TS_TMP/out.json" >&2; ts_fail "probe exited $rc"; }
ts_json_check "$TS_TMP/out.json" <<'PY' || ts_fail "wrong verdicts (see above)"
devs = d["devices"]
v = devs[0]["verdict"]
check(v["sensitive"] and v["resolved"] and v["physical_sector"] == 4096 and
      v["lowest_aligned_lba"] == 0, "4096/0: %s" % json.dumps(v))
check(1.05 < v["slowdown"] < 2, "4096/0: slowdown %r, expected about 1.3" % v["slowdown"])
check(v.get("small_effect") is True and v.get("min_slowdown") == 2,
      "4096/0: small_effect %r, min_slowdown %r" % (v.get("small_effect"), v.get("min_slowdown")))
check(v.get("confidence_of") == "effect" and abs(v["confidence"] - (1 - v["p_value"])) <= 1e-12,
      "4096/0: confidence %r of %r, p %r" % (v["confidence"], v.get("confidence_of"), v["p_value"]))
h = devs[1]["verdict"]
check(not h["sensitive"] and h["resolved"] and h["physical_sector"] == 512, "512: %s" % json.dumps(h))
PY

# in words
ts_run_rc 0 "$ALIGNPROBE" probe -q $opts -o OFFSET --emulate="simple,phys=4096,lba=0,$common"
grep -q "4096-byte physical sectors (reported 512), lowest aligned LBA 0; alignment matters a little" \
	"$TS_TMP/out" || ts_fail "headline: $(cat "$TS_TMP/out")"
grep -q "alignment matters a little: 1\.[0-9][0-9]x, less than --min-slowdown 2.00x" "$TS_TMP/out" ||
	ts_fail "size of the effect: $(cat "$TS_TMP/out")"
grep -q "^/dev/.*no alignment effect" "$TS_TMP/out" && ts_fail "$(cat "$TS_TMP/out")"
[ -z "$(ls -A "$ALIGNPROBE_STATE_DIR")" ] || ts_fail "state left behind: $(ls "$ALIGNPROBE_STATE_DIR")"
ts_pass
