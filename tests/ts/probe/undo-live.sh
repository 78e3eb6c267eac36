#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# `probe --undo J` never touches the journal of a probe that still runs
# (issue 31, item 1). It deleted a live probe's incomplete journal ("never
# completed ... journal removed", exit 0); a power cut next left the disk
# with torn bytes and no journal to restore them from. Now it refuses (exit
# 3, naming the probe's PID) whatever state the journal is in:
#  - incomplete: the probe is paused right after creating it (the
#    ALIGNPROBE_TEST_JOURNAL_CREATED seam); the undo is refused, then the
#    drive's power is cut 100 writes on and the probe let go: it stops
#    with the journal kept, and after power-on the undo restores every
#    byte (a checksum of the whole drive);
#  - complete: the probe measures (its progress lines counted); the undo is
#    refused; once the probe is killed, the same undo restores.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "probe --undo refuses the journal of a live probe"
ts_need_emulator
ts_need_cmd head sha256sum blockdev

head -c 16M /dev/urandom > "$TS_TMP/img" || ts_fail "cannot create the random image"
orig=$(ts_checksum "$TS_TMP/img")
journal=$TS_TMP/undo.journal
go=$TS_TMP/go
sum_dev() {	# the drive's whole content, past any cache of the loop device
	dd if="$1" iflag=direct bs=1M status=none | sha256sum | cut -d' ' -f1
}

# --- the journal being written ---------------------------------------------
ts_subtest incomplete
D=$(ts_emu_attach --image "$TS_TMP/img" --spec "simple,phys=4096,lba=0,rmw=300us,cache=off")
ALIGNPROBE_TEST_JOURNAL_CREATED=$go "$ALIGNPROBE" probe --preserve --yes --quiet \
	--max-rounds 3 --seed 7 --journal "$journal" "$D" > /dev/null 2> "$TS_TMP/perr" &
pid=$!
ts_bg_pid "$pid"
ts_wait_for -p "$pid" "the probe to create its journal" test -e "$go.reached" ||
	ts_fail "the probe ended first: $(cat "$TS_TMP/perr")"
[ -e "$journal" ] || ts_fail "no journal at the seam"
ts_run_rc 3 "$ALIGNPROBE" probe --undo "$journal"
grep -q "^alignprobe probe: $journal: the undo journal of a running probe (PID $pid, on $D)" \
	"$TS_TMP/err" || ts_fail "the refusal does not name the probe: $(cat "$TS_TMP/err")"
[ -e "$journal" ] || ts_fail "the refused --undo removed the live probe's journal"
# the power goes while the probe writes; the journal must still be there
ts_run_rc 0 "$ALIGNPROBE" emulate --power-cut-after 100 "$D"
touch "$go"
wait "$pid"
rc=$?
[ "$rc" = 1 ] || ts_fail "the probe exited $rc after the power cut: $(cat "$TS_TMP/perr")"
grep -q "run 'alignprobe probe --undo $journal'" "$TS_TMP/perr" ||
	ts_fail "no advice to undo: $(cat "$TS_TMP/perr")"
[ -e "$journal" ] || ts_fail "the journal is gone after the power cut"
ts_run_rc 0 "$ALIGNPROBE" emulate --power-on "$D"
blockdev --flushbufs "$D" || ts_fail "flushbufs failed"
"$ALIGNPROBE" probe --undo "$journal" > "$TS_TMP/out" 2> "$TS_TMP/err"
rc=$?
if [ "$rc" = 3 ]; then
	# a torn write (issue 31, item 4) is restored with --force here
	ts_run_rc 0 "$ALIGNPROBE" probe --force --undo "$journal"
elif [ "$rc" != 0 ]; then
	ts_fail "--undo after the power cut exited $rc: $(cat "$TS_TMP/err")"
fi
[ -e "$journal" ] && ts_fail "--undo left the journal"
ts_assert_eq "$orig" "$(sum_dev "$D")" "the drive after the power cut and --undo"
"$ALIGNPROBE" emulate --detach "$D" || ts_fail "detach failed"
sed -i "\|^$D\$|d" "$TS_TMP/.emus"

# --- the journal complete, the probe measuring -----------------------------
ts_subtest complete
D=$(ts_emu_attach --image "$TS_TMP/img" --spec "simple,phys=4096,lba=0,rmw=300us")
ops() { sed -n 's/^probe [^:]*: \([0-9]*\).*/\1/p' "$TS_TMP/progress" | tail -n 1; }
ops_reached() { [ "$(ops)" -ge "$1" ] 2>/dev/null; }
: > "$TS_TMP/progress"
ALIGNPROBE_PROGRESS_FD=3 "$ALIGNPROBE" probe --preserve --journal "$journal" --quiet \
	--min-rounds 1000000 --max-rounds 1000000 --time-budget 24h --seed 8 "$D" \
	> /dev/null 2> "$TS_TMP/perr" 3> "$TS_TMP/progress" &
pid=$!
ts_bg_pid "$pid"
ts_wait_for -p "$pid" "the probe to measure" ops_reached 5 ||
	ts_fail "the probe ended: $(cat "$TS_TMP/perr")"
ts_run_rc 3 "$ALIGNPROBE" probe --undo "$journal"
grep -q "the undo journal of a running probe (PID $pid, on $D)" "$TS_TMP/err" ||
	ts_fail "the refusal does not name the probe: $(cat "$TS_TMP/err")"
[ -e "$journal" ] || ts_fail "the refused --undo removed the journal"
kill -9 "$pid"
wait "$pid" 2>/dev/null
ts_run_rc 0 "$ALIGNPROBE" probe --undo "$journal"
grep -q "every byte verified" "$TS_TMP/out" || ts_fail "not restored: $(cat "$TS_TMP/out")"
[ -e "$journal" ] && ts_fail "--undo left the journal"
ts_assert_eq "$orig" "$(sum_dev "$D")" "the drive after the kill and --undo"
ts_pass
