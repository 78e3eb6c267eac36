#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What real drives do (issue 26), on the emulated drive's profiles for it:
# the probe gives the right verdict, or stops with exit 5 and names the
# assumption that failed -- never a verdict that the failure makes wrong.
#   hdd-7200-ra         512e/4096 with a 1 MiB read-ahead (4 segments)
#   honest-512n-ra      honest 512n with the same read-ahead
#   hdd-lba7-rmwbuf     4096/LBA 7, write cache off, a buffer of 256
#                       physical sectors that serves read-modify-writes
#   usb-bridge-noflush  5400 rpm 512e/4096 behind a bridge that ignores
#                       flushes: always the named exit 5, and with
#                       --write-cache off its verdict
# Rounds and budget only end a hang; the assertions are on the verdicts.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "probe: real drives' read-ahead, RMW buffers, ignored flushes"
ts_need_emulator
ts_need_cmd python3

"$ALIGNPROBE" probe --json --yes --time-budget 30m --max-rounds 400 \
	--emulate=hdd-7200-ra,size=256M,seed=31 --emulate=honest-512n-ra,size=256M,seed=32 \
	--emulate=hdd-lba7-rmwbuf,size=256M,seed=33 --emulate=usb-bridge-noflush,size=256M,seed=34 \
	> "$TS_TMP/out" 2> "$TS_TMP/err"
rc=$?
cat "$TS_TMP/err" >&2
# the bridge has no verdict: 5
ts_assert_eq 5 "$rc" "probe exit code"

python3 - "$TS_TMP/out" <<'PY' || ts_fail "a wrong verdict or an unnamed cause (see above)"
import json, sys
doc = json.load(open(sys.argv[1]))
devs = doc["devices"]
assert len(devs) == 4, len(devs)
bad = 0
def unit(v, phys, lba):
    return v["resolved"] and v["sensitive"] and v["physical_sector"] == phys and \
        v["lowest_aligned_lba"] == lba
def honest(v):
    return v["resolved"] and not v["sensitive"] and v["physical_sector"] == 512
def named(d, failed, words):
    v = d["verdict"]
    return d["checks"]["failed"] == failed and not v["resolved"] and \
        not v["sensitive"] and all(w in v["note"] for w in words)
checks = [
    ("hdd-7200-ra", lambda d: unit(d["verdict"], 4096, 0) or
        named(d, "lead_in_buffered", ["read-ahead", "hdparm -A0"])),
    ("honest-512n-ra", lambda d: honest(d["verdict"]) or
        named(d, "lead_in_buffered", ["read-ahead", "hdparm -A0"])),
    ("hdd-lba7-rmwbuf", lambda d: unit(d["verdict"], 4096, 7) or
        named(d, "rmw_buffered", ["read-modify-writes"])),
    ("usb-bridge-noflush", lambda d: named(d, "flush_ignored",
        ["ignores flushes", "--write-cache off", "hdparm -W0", "sdparm --clear WCE",
         "USB bridge"])),
]
for d, (name, ok) in zip(devs, checks):
    v = d["verdict"]
    good = ok(d) and "probably larger than" not in (v["note"] or "")
    print("%s %s: %s (%.1fs; checks %s)" % ("ok  " if good else "FAIL", name, v["note"],
          d["seconds"], json.dumps(d["checks"])), file=sys.stderr)
    bad += not good
sys.exit(1 if bad else 0)
PY

# the bridge's cache off: the writes reach the disk, and its unit shows
"$ALIGNPROBE" probe --json --yes --time-budget 30m --max-rounds 400 --write-cache off \
	--emulate=usb-bridge-noflush,size=256M,seed=35 > "$TS_TMP/off" 2> "$TS_TMP/err"
rc=$?
cat "$TS_TMP/err" >&2
ts_assert_eq 0 "$rc" "probe --write-cache off exit code"
python3 - "$TS_TMP/off" <<'PY' || ts_fail "--write-cache off: not the bridge's unit (see above)"
import json, sys
d = json.load(open(sys.argv[1]))
v = d["verdict"]
print(v["note"], json.dumps(d["checks"]), file=sys.stderr)
sys.exit(0 if v["resolved"] and v["sensitive"] and v["physical_sector"] == 4096 and
         v["lowest_aligned_lba"] == 0 and d["checks"]["failed"] is None else 1)
PY
ts_pass
