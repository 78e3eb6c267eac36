#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# SIGINT stops seq: the runs done so far are printed, the file it created is
# removed, the exit status is 128+2. The signal comes once the first run is
# done (its progress line on ALIGNPROBE_PROGRESS_FD), never after a fixed
# time: the run has 999 more of 64 MiB to go then, so it cannot be over
# before the signal, however fast the disk.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "seq stops on SIGINT with partial results"
ts_need_cmd jq

f=$TS_TMP/t.img
ALIGNPROBE_PROGRESS_FD=3 "$ALIGNPROBE" seq -q --json --modes fdatasync --block-sizes 64K \
	--size 64M --rounds 1000 --cell-time 0 "$f" > "$TS_TMP/out" 2> "$TS_TMP/err" \
	3> "$TS_TMP/progress" &
pid=$!
ts_bg_pid $pid
first_run() { grep -qE ': [1-9][0-9]* of 1000' "$TS_TMP/progress"; }
ts_wait_for -p $pid "the first completed run" first_run ||
	ts_fail "seq ended before its first run was reported: $(cat "$TS_TMP/err")"
kill -INT $pid
# (double quotes: ts_wait_for has a local "pid" of its own)
ts_wait_for "seq to exit after SIGINT" eval "! ts_running $pid"
wait $pid
rc=$?
ts_assert_eq 130 "$rc" "exit status after SIGINT"
jq -e .interrupted "$TS_TMP/out" >/dev/null || ts_fail "the JSON does not say interrupted"
runs=$(jq '.cells[0].runs' "$TS_TMP/out")
[ "$runs" -ge 1 ] && [ "$runs" -lt 1000 ] || ts_fail "runs done: '$runs'"
grep -q 'interrupted after' "$TS_TMP/err" || ts_fail "no message about the interruption"
[ -e "$f" ] && ts_fail "the created file was left behind"
ts_pass
