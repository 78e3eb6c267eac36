#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Honest rotating disks get their verdict (issue 16): with the default write
# sizes (4 KiB .. 64 KiB), honest-512n and usb-4kn (4096-byte logical
# sectors) are "no alignment effect of 1.10x or more", resolved, exit 0.
# Before the probe's lead-in reads a disk's rotational wait (up to a
# revolution, random) hid a 1.10x effect for hundreds of rounds and both ended
# without a verdict (exit 5) after minutes. The budget only ends a hang.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "probe: honest disks are resolved as honest"
ts_need_emulator
ts_need_cmd python3

# rounds and budget only end a hang: next to other tests' load the honest
# verdict can need more than the default 40 rounds
"$ALIGNPROBE" probe --json --yes --time-budget 30m --max-rounds 400 \
	--emulate=honest-512n,size=256M,seed=21 --emulate=usb-4kn,size=256M,seed=22 \
	> "$TS_TMP/out" 2> "$TS_TMP/err"
rc=$?
cat "$TS_TMP/err" >&2
ts_assert_eq 0 "$rc" "probe exit code"

python3 - "$TS_TMP/out" <<'PY' || ts_fail "an honest disk without its verdict (see above)"
import json, sys
doc = json.load(open(sys.argv[1]))
want = [("honest-512n", 512), ("usb-4kn", 4096)]
bad = 0
assert len(doc["devices"]) == len(want)
for d, (name, logical) in zip(doc["devices"], want):
    v = d["verdict"]
    sizes = [s["size"] for s in d["sizes"]]
    ok = (v["resolved"] and not v["sensitive"] and v["period"] == 1 and
          v["physical_sector"] == logical and v["logical_sector"] == logical and
          v["absence_margin"] == 1.1 and v["confidence_of"] == "no_effect" and
          v["confidence"] >= 0.95 and sizes[-1] == 65536 and d["clear"] and
          "behaves like honest" in v["note"])
    print("%s %s (%s): %s, %.1fs, sizes %s" % ("ok  " if ok else "FAIL", d["device"], name,
          v["note"], d["seconds"], sizes), file=sys.stderr)
    if not ok:
        print(json.dumps(v), file=sys.stderr)
    bad += not ok
sys.exit(1 if bad else 0)
PY
ts_pass
