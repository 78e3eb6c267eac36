#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# SIGINT during a preserving probe: it stops, restores and verifies from
# the journal, prints what it measured, exits 130, and leaves the device
# byte-identical with no journal behind.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "probe --preserve: SIGINT restores and exits 130"
ts_need_emulator
ts_need_cmd head cmp timeout

head -c 16M /dev/urandom > "$TS_TMP/img" || ts_fail "cannot create the random image"
dev=$(ts_emu_attach --image "$TS_TMP/img" --phys 512 --rmw-cost 300us)
journal="$TS_TMP/undo.journal"
timeout --preserve-status -s INT 1.5 "$ALIGNPROBE" probe --preserve --journal "$journal" --min-rounds 30 \
	--all-sizes "$dev" > "$TS_TMP/out" 2> "$TS_TMP/err"
rc=$?
ts_assert_eq 130 "$rc" "exit code after SIGINT ($(cat "$TS_TMP/err"))"
grep -q "MEDIAN_US" "$TS_TMP/out" || ts_fail "no partial results: $(cat "$TS_TMP/out")"
grep -q "data preserved" "$TS_TMP/out" || ts_fail "no preservation line: $(cat "$TS_TMP/out")"
[ -e "$journal" ] && ts_fail "the journal was left behind"
grep -ls "^kind=journal" "$ALIGNPROBE_STATE_DIR"/* && ts_fail "journal still registered"
cmp "$dev" "$TS_TMP/img" || ts_fail "the device differs from its original"

# an emulated drive of our own is taken down on SIGINT too
timeout --preserve-status -s INT 1 "$ALIGNPROBE" probe --emulate=phys=512,rmw=300us,size=64M --min-rounds 30 \
	> /dev/null 2>&1
ts_assert_eq 130 "$?" "exit code of --emulate after SIGINT"
grep -ls "^kind=emu" "$ALIGNPROBE_STATE_DIR"/* | while read -r f; do
	grep -q "^dev=$dev\$" "$f" || ts_fail "an emulated drive was left registered: $f"
done
ts_pass
