#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# SIGINT stops seq: the runs done so far are printed, the file it created is
# removed, the exit status is 128+2.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "seq stops on SIGINT with partial results"
ts_need_cmd jq

f=$TS_TMP/t.img
"$ALIGNPROBE" seq -q --json --modes fdatasync --block-sizes 64K --size 1M --rounds 1000 \
	--cell-time 0 "$f" > "$TS_TMP/out" 2> "$TS_TMP/err" &
pid=$!
ts_bg_pid $pid
# wait until it really runs (the file exists), then a little more
for _ in $(seq 100); do [ -e "$f" ] && break; sleep 0.05; done
sleep 1
kill -INT $pid
wait $pid
rc=$?
ts_assert_eq 130 "$rc" "exit status after SIGINT"
jq -e .interrupted "$TS_TMP/out" >/dev/null || ts_fail "the JSON does not say interrupted"
runs=$(jq '.cells[0].runs' "$TS_TMP/out")
[ "$runs" -ge 1 ] && [ "$runs" -lt 1000 ] || ts_fail "runs done: '$runs'"
grep -q 'interrupted after' "$TS_TMP/err" || ts_fail "no message about the interruption"
[ -e "$f" ] && ts_fail "the created file was left behind"
ts_pass
