#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A sweep lets go of its O_EXCL hold of the disk while mkfs and mount run
# (the kernel refuses to claim a partition of a disk held exclusively).
# The state registry says which disk a live run works on, and every gate
# refuses that disk, dry runs included, without opening it: in that window
# probe, probe --dry-run, probe --read-only, seq, sweep --dry-run are
# refused (exit 3, naming the sweep's PID), check says a live sweep
# rewrites the table (exit 3), and the sweep goes on undisturbed. A sweep that fails (here: another
# program takes the disk in the window) takes its emulated drive down.
# The window is reached through the ALIGNPROBE_TEST_SWEEP_WINDOW seam: the
# sweep waits there until the test lets it go, never a guessed sleep.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh" || exit 99
ts_init "nothing gets at the disk of a live sweep while it lets go of it"
ts_need_emulator
ts_need_cmd mkfs.ext4 python3
export TMPDIR=$TS_TMP/tmp
mkdir -p "$TMPDIR"

entry() { grep -l "^kind=$1\$" "$ALIGNPROBE_STATE_DIR"/* 2>/dev/null | head -n1; }
field() { sed -n "s/^$2=//p" "$1"; }

# start_sweep: a sweep --emulate paused in its first window (spid, dev)
start_sweep() {
	rm -f "$TS_TMP/go" "$TS_TMP/go.reached"
	ALIGNPROBE_TEST_SWEEP_WINDOW=$TS_TMP/go "$ALIGNPROBE" sweep --emulate=simple,size=256M \
		--starts 2048,2049 --rounds 1..2 --yes --quiet > "$TS_TMP/sweep.out" \
		2> "$TS_TMP/sweep.err" < /dev/null &
	spid=$!
	ts_bg_pid "$spid"
	ts_wait_for -p "$spid" "the sweep in its mkfs window" test -e "$TS_TMP/go.reached" ||
		ts_fail "the sweep ended before its window: $(cat "$TS_TMP/sweep.err")"
	dev=$(field "$(entry emu)" dev)
	[ -b "$dev" ] || ts_fail "no emulated drive in the registry"
	echo "$dev" >> "$TS_TMP/.emus"
}

# refused WHAT CMD...: exit 3 and a message naming the live sweep
refused() {
	local what=$1
	shift
	ts_run_rc 3 "$@"
	grep -q "running alignprobe sweep (PID $spid)" "$TS_TMP/err" ||
		{ cat "$TS_TMP/err" >&2; ts_fail "$what: the refusal does not name the sweep"; }
}

# --- 1. in the window, every gate refuses the disk ----------------------
ts_subtest gates-refuse-in-window
start_sweep
before=$("$ALIGNPROBE" emulate --stats "$dev" -n -r -o WRITES)
refused "probe --dry-run" "$ALIGNPROBE" probe --dry-run --yes "$dev"
refused "probe" "$ALIGNPROBE" probe --yes --quiet "$dev"
refused "probe --read-only" "$ALIGNPROBE" probe --read-only --quiet "$dev"
refused "probe of its partition" "$ALIGNPROBE" probe --yes --quiet --allow-partition "${dev}p1"
refused "seq --dry-run" "$ALIGNPROBE" seq --dry-run --yes "$dev"
refused "seq" "$ALIGNPROBE" seq --yes --quiet -s 1M "$dev"
refused "sweep --dry-run" "$ALIGNPROBE" sweep --dry-run --yes "$dev"
ts_run_rc 3 "$ALIGNPROBE" check "$dev"
grep -q "live alignprobe sweep (PID $spid) is rewriting" "$TS_TMP/err" ||
	{ cat "$TS_TMP/out" "$TS_TMP/err" >&2; ts_fail "check: no word of the live sweep"; }
ts_assert_eq "$before" "$("$ALIGNPROBE" emulate --stats "$dev" -n -r -o WRITES)" \
	"writes to the drive while the sweep was paused"
touch "$TS_TMP/go"
wait "$spid"
rc=$?
case $rc in
0 | 5) ;;
*) cat "$TS_TMP/sweep.err" >&2; ts_fail "the sweep exited $rc after the refusals" ;;
esac
grep -q "cannot hold\|mount" "$TS_TMP/sweep.err" && ts_fail "the sweep was disturbed: $(cat "$TS_TMP/sweep.err")"
[ -z "$(ls -A "$ALIGNPROBE_STATE_DIR")" ] || ts_fail "registry entries left: $(ls -A "$ALIGNPROBE_STATE_DIR")"

# --- 2. a sweep that fails takes its emulated drive down ----------------
ts_subtest failed-sweep-takes-drive-down
start_sweep
back=$(cat "/sys/block/${dev#/dev/}/loop/backing_file")
srv=$(field "$(entry emu)" aux)
# another program takes the whole disk exclusively in the window
python3 -c 'import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL)
open(sys.argv[2], "w").close()
while not os.path.exists(sys.argv[3]):
    time.sleep(0.02)' "$dev" "$TS_TMP/held" "$TS_TMP/release" &
hpid=$!
ts_bg_pid "$hpid"
ts_wait_for -p "$hpid" "the other program to hold $dev" test -e "$TS_TMP/held" ||
	ts_fail "cannot hold $dev exclusively"
touch "$TS_TMP/go"
ts_wait_for -p "$spid" "the sweep to fail" grep -q "cannot hold the disk exclusively again" \
	"$TS_TMP/sweep.err" || ts_fail "the sweep did not fail as expected: $(cat "$TS_TMP/sweep.err")"
touch "$TS_TMP/release"
wait "$hpid"
wait "$spid"
rc=$?
ts_assert_eq 1 "$rc" "the sweep's exit status when it cannot take the disk again"
gone() { [ "$(cat "/sys/block/${dev#/dev/}/loop/backing_file" 2>/dev/null)" != "$back" ] &&
	! ts_running "$srv"; }
ts_wait_for "the failed sweep's drive to go" gone
[ -e "$(dirname "$back")" ] && ts_fail "the drive's work directory is left: $(dirname "$back")"
[ -z "$(ls -A "$ALIGNPROBE_STATE_DIR")" ] || ts_fail "registry entries left: $(ls -A "$ALIGNPROBE_STATE_DIR")"
ts_pass
