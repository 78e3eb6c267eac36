#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A thin volume that runs out of space mid-probe (issue 33): a pool of four
# 64 KiB units, two of them holding data. The probe's first write past the
# pool fails with ENOSPC: it stops, exits 1 and names it; with --preserve
# every byte is the same afterwards and the journal is gone; without it,
# the same stop. Counters and checksums, not timing.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "probe on a thin volume whose pool fills: exit 1, named, --preserve keeps every byte"
ts_need_emulator
ts_need_cmd dd sha256sum

spec=thin-64k,size=64M,thin-pool=256K
dev=$(ts_emu_attach --spec "$spec")
dd if=/dev/urandom of="$dev" bs=64K count=2 oflag=direct status=none ||
	ts_fail "cannot write the data"
before=$(ts_checksum "$dev")

ts_subtest preserve
journal=$TS_TMP/undo.journal
ts_run_rc 1 "$ALIGNPROBE" probe --preserve --yes --journal "$journal" --time-budget 30m "$dev"
grep -q "ran out of space (a thin device or image whose backing store is full)" "$TS_TMP/err" ||
	ts_fail "ENOSPC not named: $(cat "$TS_TMP/err")"
grep -q "data preserved: .* verified identical" "$TS_TMP/out" ||
	ts_fail "no preservation line: $(cat "$TS_TMP/out")"
ts_assert_eq "$before" "$(ts_checksum "$dev")" "device checksum after --preserve"
[ -e "$journal" ] && ts_fail "the undo journal $journal was not removed"
grep -ls "^kind=journal" "$ALIGNPROBE_STATE_DIR"/* && ts_fail "a journal is still registered"
nospc=$("$ALIGNPROBE" emulate --stats "$dev" -n -r -o NOSPC)
[ "$nospc" -ge 1 ] || ts_fail "the pool never filled (NOSPC $nospc): the test proves nothing"

ts_subtest destructive
ts_run_rc 1 "$ALIGNPROBE" probe --yes --json --time-budget 30m "$dev"
grep -q "ran out of space" "$TS_TMP/err" || ts_fail "ENOSPC not named: $(cat "$TS_TMP/err")"
ts_pass
