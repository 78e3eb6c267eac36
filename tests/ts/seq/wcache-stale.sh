#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A live run is never torn down, and a killed run's record is never lost:
# seq --write-cache off, SIGKILLed, leaves a record of the cache it found
# (on). A second seq --write-cache off on the drive finds that record:
# it restores the recorded state first and records it as its own
# original. cleanup while the second run lives touches nothing of the
# drive (exit 1, "skipped"); after the second run the drive is as it was
# before the first (on), and no record is left.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/seq/common.sh"
ts_init "a second seq --write-cache adopts a killed run's record; cleanup leaves it alone"
ts_need_emulator

state() { ts_emu_write_cache "$1"; }
entries() { grep -l "^kind=$1\$" "$ALIGNPROBE_STATE_DIR"/* 2>/dev/null; }
owners() { local f; for f in $(entries wcache); do sed -n 's/^owner=//p' "$f"; done | sort | tr '\n' ' '; }

dev=$(ts_emu_attach --size 64M --write-cache=on)
ts_assert_eq "on write back" "$(state "$dev")" "the drive as attached"

# start N: seq switching the cache off in the background (pid, output in
# out$N), once its first run with the cache off is done
start() { seq_start "$dev" "$1" --json --write-cache off; pid=$spid; }

start 1
kill -KILL $pid
wait $pid 2>/dev/null
ts_assert_eq "off write through" "$(state "$dev")" "the drive after the SIGKILL"
[ -n "$(entries wcache)" ] || ts_fail "the killed run left no record"

start 2
pid2=$pid
# the killed run's record was adopted: one record, the live run's
ts_assert_eq "$pid2 " "$(owners)" "write cache records while the second run lives"
ts_assert_eq "on" "$(sed -n 's/^aux=model=\([a-z]*\);.*/\1/p' $(entries wcache))" \
	"the original the second run recorded"
ts_run_rc 1 "$ALIGNPROBE" cleanup
grep -q "^restored" "$TS_TMP/out" && ts_fail "cleanup restored under the live run: $(cat "$TS_TMP/out")"
ts_assert_eq "off write through" "$(state "$dev")" "the drive after cleanup, under the live run"
kill -INT $pid2
wait $pid2
ts_assert_eq 130 "$?" "the second run's exit status after SIGINT"
ts_assert_eq "on write back" "$(state "$dev")" "the drive after the second run"
ts_assert_eq "" "$(entries wcache)" "write cache records left"

# a killed run's record on a drive another live run works on (a seq
# that does not switch the cache, so it adopts nothing) is not cleanup's
# to act on either
start 3
kill -KILL $pid
wait $pid 2>/dev/null
seq_start "$dev" 4
pid4=$spid
ts_run_rc 1 "$ALIGNPROBE" cleanup
grep -q "^skipped *wcache.*running alignprobe seq (PID $pid4)" "$TS_TMP/out" ||
	ts_fail "cleanup under a live seq: $(cat "$TS_TMP/out")"
ts_assert_eq "off write through" "$(state "$dev")" "the drive under the live seq"
kill -INT $pid4
wait $pid4
# 1: the drive attached with emulate --attach is kept
ts_run_rc 1 "$ALIGNPROBE" cleanup
grep -q "^restored *wcache" "$TS_TMP/out" || ts_fail "cleanup of the dead run's record: $(cat "$TS_TMP/out")"
ts_assert_eq "on write back" "$(state "$dev")" "the drive after cleanup"
ts_pass
