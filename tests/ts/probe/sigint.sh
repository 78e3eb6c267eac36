#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# SIGINT during a preserving probe: it stops, restores and verifies from
# the journal, prints what it measured, exits 130, and leaves the device
# byte-identical with no journal behind. The signal comes once a round is
# done (the progress lines on ALIGNPROBE_PROGRESS_FD), never after a fixed
# time, into a run that would go on for a million rounds.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "probe --preserve: SIGINT restores and exits 130"
ts_need_emulator
ts_need_cmd head cmp

UNBOUNDED=(--min-rounds 1000000 --max-rounds 1000000 --time-budget 24h)
# interrupt ARGS...: start probe ARGS, SIGINT it once its first round is
# done; rc is its exit status
interrupt() {
	local pid
	: > "$TS_TMP/progress"
	ALIGNPROBE_PROGRESS_FD=3 "$ALIGNPROBE" probe "${UNBOUNDED[@]}" "$@" > "$TS_TMP/out" \
		2> "$TS_TMP/err" 3> "$TS_TMP/progress" &
	pid=$!
	ts_bg_pid "$pid"
	ts_wait_for -p "$pid" "the first round of probe $*" \
		grep -qE ', round ([2-9]|[1-9][0-9]+),' "$TS_TMP/progress" ||
		ts_fail "probe $* ended before its first round: $(cat "$TS_TMP/err")"
	kill -INT "$pid"
	ts_wait_for "probe $* to exit after SIGINT" eval "! ts_running $pid"
	wait "$pid"
	rc=$?
}

head -c 16M /dev/urandom > "$TS_TMP/img" || ts_fail "cannot create the random image"
dev=$(ts_emu_attach --image "$TS_TMP/img" --phys 512 --rmw-cost 300us)
journal="$TS_TMP/undo.journal"
interrupt --preserve --journal "$journal" --all-sizes "$dev"
ts_assert_eq 130 "$rc" "exit code after SIGINT ($(cat "$TS_TMP/err"))"
grep -q "MEDIAN_US" "$TS_TMP/out" || ts_fail "no partial results: $(cat "$TS_TMP/out")"
grep -q "data preserved" "$TS_TMP/out" || ts_fail "no preservation line: $(cat "$TS_TMP/out")"
[ -e "$journal" ] && ts_fail "the journal was left behind"
grep -ls "^kind=journal" "$ALIGNPROBE_STATE_DIR"/* && ts_fail "journal still registered"
cmp "$dev" "$TS_TMP/img" || ts_fail "the device differs from its original"

# an emulated drive of our own is taken down on SIGINT too
interrupt --emulate=simple,phys=512,rmw=300us,size=64M
ts_assert_eq 130 "$rc" "exit code of --emulate after SIGINT ($(cat "$TS_TMP/err"))"
left=$(grep -ls "^kind=emu" "$ALIGNPROBE_STATE_DIR"/* | xargs -r grep -L "^dev=$dev\$")
[ -z "$left" ] || ts_fail "an emulated drive was left registered: $left"
ts_pass
