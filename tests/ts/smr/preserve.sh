#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# smr --preserve (issue 35): every byte the short test writes is put back;
# a run SIGKILLed with the drive's write cache off leaves its undo journal
# (restored by `probe --undo`) and the cache's record (restored by
# `cleanup`), so nothing is lost. --dry-run writes nothing; bad input and
# a partition are refused before anything is written.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "smr --preserve: nothing lost, also after SIGKILL"
ts_need_emulator

dev=$(ts_emu_attach --profile smr-notrim --size 128M)
dd if=/dev/urandom of="$dev" bs=1M count=128 oflag=direct conv=fsync status=none || ts_fail "cannot fill $dev"
sum=$(ts_checksum "$dev")

ts_subtest dry-run
ts_run_rc_ro 0 "$dev" "$ALIGNPROBE" smr --dry-run --preserve --journal "$TS_TMP/dry.journal" "$dev"
grep -q "would time 128 synchronous writes" "$TS_TMP/out" || ts_fail "plan: $(cat "$TS_TMP/out")"
grep -q "undo journal $TS_TMP/dry.journal" "$TS_TMP/out" || ts_fail "journal: $(cat "$TS_TMP/out")"
[ -e "$TS_TMP/dry.journal" ] && ts_fail "a dry run created the journal"

ts_subtest preserved
"$ALIGNPROBE" emulate --reset-stats "$dev" || ts_fail "reset-stats"
ts_run_rc 0 "$ALIGNPROBE" smr --preserve --journal "$TS_TMP/run.journal" "$dev"
grep -q "persistent media cache" "$TS_TMP/out" || ts_fail "verdict: $(cat "$TS_TMP/out")"
grep -q "every byte written was put back" "$TS_TMP/out" || ts_fail "words: $(cat "$TS_TMP/out")"
writes=$("$ALIGNPROBE" emulate --stats "$dev" -n -r -o WRITES)
[ "$writes" -ge 256 ] || ts_fail "the drive saw $writes writes, expected both phases' 256"
ts_assert_eq "$sum" "$(ts_checksum "$dev")" "content after the run"
[ -e "$TS_TMP/run.journal" ] && ts_fail "the journal was left behind"
ts_assert_eq "on write back" "$(ts_emu_write_cache "$dev")" "cache after the run"

ts_subtest sigkill
ALIGNPROBE_TEST_SMR_CACHE_OFF=$TS_TMP/pause "$ALIGNPROBE" smr --preserve \
	--journal "$TS_TMP/kill.journal" "$dev" > /dev/null 2> "$TS_TMP/kill.err" &
pid=$!
ts_bg_pid "$pid"
ts_wait_for -p "$pid" "the cache off" test -e "$TS_TMP/pause.reached" ||
	ts_fail "the run ended before it switched the cache off: $(cat "$TS_TMP/kill.err")"
ts_assert_eq "off write through" "$(ts_emu_write_cache "$dev")" "cache when killed"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
ts_journal_complete "$TS_TMP/kill.journal" || ts_fail "no complete journal after the kill"
"$ALIGNPROBE" cleanup > "$TS_TMP/cleanup" 2>&1
grep -q "restored.*write back" "$TS_TMP/cleanup" || ts_fail "cleanup: $(cat "$TS_TMP/cleanup")"
ts_assert_eq "on write back" "$(ts_emu_write_cache "$dev")" "cache after cleanup"
ts_run_rc 0 "$ALIGNPROBE" probe --undo "$TS_TMP/kill.journal" "$dev"
ts_assert_eq "$sum" "$(ts_checksum "$dev")" "content after the undo"

ts_subtest refusals
ts_run_rc_ro 2 "$dev" "$ALIGNPROBE" smr --journal x "$dev"
ts_run_rc_ro 2 "$dev" "$ALIGNPROBE" smr --writes 3 "$dev"
ts_run_rc_ro 2 "$dev" "$ALIGNPROBE" smr
truncate -s 64M "$TS_TMP/file.img"
ts_run_rc 2 "$ALIGNPROBE" smr --yes "$TS_TMP/file.img"
grep -q "not a block device" "$TS_TMP/err" || ts_fail "file: $(cat "$TS_TMP/err")"
ts_pass
