#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# --preserve on an emulated drive full of random data: the verdict is still
# right, every byte of the device is the same afterwards (checksum of the
# whole device), the undo journal is gone and nothing stays registered.
# Also --read-only: no write reaches the drive, and no verdict is claimed.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "probe --preserve leaves the device byte-identical"
ts_need_emulator
ts_need_cmd python3 head sha256sum

head -c 32M /dev/urandom > "$TS_TMP/img" || ts_fail "cannot create the random image"
dev=$(ts_emu_attach --image "$TS_TMP/img" --phys 4096 --lowest-aligned 3 --rmw-cost 300us \
	--jitter 30%)
before=$(ts_checksum "$dev")
ts_assert_eq "$(ts_checksum "$TS_TMP/img")" "$before" "the drive starts as the image"

journal="$TS_TMP/undo.journal"
ts_run_rc 0 "$ALIGNPROBE" probe --preserve --journal "$journal" --json --time-budget 1h "$dev"
after=$(ts_checksum "$dev")
ts_assert_eq "$before" "$after" "device checksum after --preserve"
[ -e "$journal" ] && ts_fail "the undo journal $journal was not removed"
grep -ls "^kind=journal" "$ALIGNPROBE_STATE_DIR"/* && ts_fail "a journal is still registered"

python3 - "$TS_TMP/out" <<'PY' || ts_fail "bad JSON of the preserving probe"
import json, sys
d = json.load(open(sys.argv[1]))
v = d["verdict"]
assert d["mode"] == "preserve", d["mode"]
assert v["resolved"] and v["sensitive"], v
assert v["physical_sector"] == 4096 and v["lowest_aligned_lba"] == 3, v
p = d["preserve"]
assert p["verified"] and not p["journal_kept"], p
assert p["records"] == d["slots"] and p["records"] > 0, p
# the probe wrote the original bytes back, so nothing needed rewriting
assert p["rewritten"] == 0, p
print("preserve: %d ranges verified, verdict %d/%d in %.1fs" % (p["records"],
      v["physical_sector"], v["lowest_aligned_lba"], d["seconds"]), file=sys.stderr)
PY

# the plain-text report says so too
ts_run_rc 0 "$ALIGNPROBE" probe --preserve --journal "$journal" --max-size 8K --time-budget 1h "$dev"
grep -q "data preserved: .* verified identical" "$TS_TMP/out" || ts_fail "no preservation line"
ts_assert_eq "$before" "$(ts_checksum "$dev")" "device checksum after the second run"

# read-only: not one write, and no claim of a verdict (exit 5)
"$ALIGNPROBE" emulate --reset-stats "$dev" || ts_fail "reset-stats failed"
ts_run_rc 5 "$ALIGNPROBE" probe --read-only --max-size 8K --max-rounds 4 --time-budget 1h "$dev"
grep -q "weak evidence" "$TS_TMP/out" || ts_fail "read-only mode without its caveat"
writes=$("$ALIGNPROBE" emulate --stats "$dev" -n -r -o WRITES)
ts_assert_eq 0 "$writes" "writes during --read-only"
ts_assert_eq "$before" "$(ts_checksum "$dev")" "device checksum after --read-only"
ts_pass
