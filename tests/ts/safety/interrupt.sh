#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A sweep interrupted at random moments: 20 times SIGINT (the sweep cleans
# up itself and exits 130; once SIGTERM and SIGHUP too), 20 times SIGKILL
# followed by `alignprobe cleanup`. After each: nothing of ours mounted, no
# temporary directory, no registry entry, the device not busy (the gate can
# take it O_EXCL), and the next sweep succeeds.
# ALIGNPROBE_INTERRUPT_RUNS=N changes the 20.
#
# A moment is a state, not a time: a random step of the first round (its
# progress line on ALIGNPROBE_PROGRESS_FD), at its start, once its mount is
# registered, or once it is mounted (or, when that passed unseen, the start
# of the next step). The sweep has a thousand rounds, so it is never over
# when the signal comes, however fast or slow the machine: every SIGINT run
# must end with 130, every SIGKILL run with 137.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh" || exit 99
ts_init "sweep interrupted by SIGINT and SIGKILL"
ts_need_loop
GATE=${top_builddir}/tests/helpers/gate
[ -x "$GATE" ] || ts_fail "$GATE not built (make check builds it)"
"$ALIGNPROBE" sweep --help >/dev/null 2>&1 || ts_skip "alignprobe sweep is not built"
RUNS=${ALIGNPROBE_INTERRUPT_RUNS:-20}
export PATH=$PATH:/usr/sbin:/sbin
# a plain loop device by default (fastest); ALIGNPROBE_INTERRUPT_EMU=1: the emulated drive
if [ "${ALIGNPROBE_INTERRUPT_EMU:-0}" = 1 ]; then
	ts_need_emulator
	D=$(ts_emu_attach --size 96M --phys 4096 --rmw-cost 300us)
else
	ts_image "$TS_TMP/disk.img" 96M
	D=$(ts_loop_attach "$TS_TMP/disk.img")
fi
ts_log "device $D"
# the sweep's mount points go here, where we can count them
mkdir -p "$TS_TMP/tmp"
export TMPDIR=$TS_TMP/tmp
printf 'set number 8\nset transactions 16\nset size 512 2048\nrun\n' > "$TS_TMP/tiny.pm"
SWEEP=(sweep --yes --quiet --rounds 1 --size 16M -w "$TS_TMP/tiny.pm")

# nothing of ours left: mounts, directories, registry entries, a busy device
assert_clean() {
	local what=$1 n
	grep -q "^${D}p\?[0-9]* " /proc/self/mounts && ts_fail "$what: $D still mounted: $(grep "^$D" /proc/self/mounts)"
	n=$(ls -A "$TMPDIR" | wc -l)
	[ "$n" = 0 ] && [ -z "$(ls -A "$ALIGNPROBE_STATE_DIR" | grep -v '^[0-9]*-emu-')" ] ||
		ts_fail "$what: left behind: $(ls -A "$TMPDIR") / $(ls -A "$ALIGNPROBE_STATE_DIR")"
	"$GATE" --yes "$D" > /dev/null 2> "$TS_TMP/gate.err" ||
		ts_fail "$what: $D busy afterwards: $(cat "$TS_TMP/gate.err")"
}

next_run_succeeds() {
	local rc
	"$ALIGNPROBE" "${SWEEP[@]}" --starts 40 "$D" > "$TS_TMP/next.out" 2> "$TS_TMP/next.err" < /dev/null
	rc=$?
	# 0 verdict, 5 no verdict (one start, one round): both completed
	[ $rc = 0 ] || [ $rc = 5 ] || { cat "$TS_TMP/next.err" >&2; ts_fail "$1: the next sweep failed ($rc)"; }
	grep -q "^ *40 " "$TS_TMP/next.out" || { cat "$TS_TMP/next.out" >&2; ts_fail "$1: the next sweep printed no results"; }
	assert_clean "$1: after the next sweep"
}

# the run to interrupt: 12 starts a round, a thousand rounds
RUN=("${SWEEP[@]}" --rounds 1000 --starts 34..45)
PHASES=(start registered mounted)
PROG=$TS_TMP/progress
# the steps begun: one progress line each
steps() { wc -l < "$PROG"; }
# reached K PHASE: step K has begun and got to PHASE, or step K+1 has begun
reached() {
	local n
	n=$(steps)
	[ "$n" -gt "$1" ] && return 0
	[ "$n" -eq "$1" ] || return 1
	case $2 in
	start) return 0 ;;
	registered) grep -qs '^kind=mount' "$ALIGNPROBE_STATE_DIR"/* ;;
	mounted) grep -q "^${D}p\?[0-9]* " /proc/self/mounts ;;
	esac
}
# interrupt SIG WHAT: start the run, send SIG at a random moment; rc is the
# exit status, moment what it was
interrupt() {
	local sig=$1 k phase pid
	k=$((1 + RANDOM % 12)) phase=${PHASES[RANDOM % 3]}
	moment="step $k, $phase"
	: > "$PROG"
	ALIGNPROBE_PROGRESS_FD=3 "$ALIGNPROBE" "${RUN[@]}" "$D" > "$TS_TMP/run.out" \
		2> "$TS_TMP/run.err" 3> "$PROG" < /dev/null &
	pid=$!
	ts_bg_pid "$pid"
	ts_wait_for -p "$pid" "$2: $moment" reached "$k" "$phase" ||
		{ cat "$TS_TMP/run.err" >&2; ts_fail "$2: the sweep ended before $moment"; }
	kill "-$sig" "$pid"
	ts_wait_for "$2: the sweep to exit after SIG$sig" eval "! ts_running $pid"
	wait "$pid"
	rc=$?
}

t0=$(date +%s)
for i in $(seq "$RUNS"); do
	interrupt INT "SIGINT run $i"
	[ $rc = 130 ] || { cat "$TS_TMP/run.err" >&2; ts_fail "SIGINT run $i ($moment): exit $rc, expected 130"; }
	assert_clean "SIGINT run $i ($moment)"
	next_run_succeeds "SIGINT run $i ($moment)"
done
ts_log "SIGINT: $RUNS interrupted ($(( $(date +%s) - t0 )) s)"

# SIGTERM and SIGHUP take the same path: 128+15, 128+1
for sig in TERM HUP; do
	interrupt "$sig" "SIG$sig"
	want=$((128 + $(kill -l $sig)))
	[ $rc = $want ] || { cat "$TS_TMP/run.err" >&2; ts_fail "SIG$sig ($moment): exit $rc, expected $want"; }
	assert_clean "SIG$sig ($moment)"
done

# cleanup after a SIGKILL: exit 0, but with the emulated drive of this test
# (emulate --attach) kept: exit 1, and nothing else remains
want_crc=0
[ "${ALIGNPROBE_INTERRUPT_EMU:-0}" = 1 ] && want_crc=1
t0=$(date +%s)
for i in $(seq "$RUNS"); do
	interrupt KILL "SIGKILL run $i"
	[ $rc = 137 ] || { cat "$TS_TMP/run.err" >&2; ts_fail "SIGKILL run $i ($moment): exit $rc, expected 137"; }
	"$ALIGNPROBE" cleanup > "$TS_TMP/cleanup.out" 2> "$TS_TMP/cleanup.err"
	crc=$?
	{ [ $crc = $want_crc ] && ! grep -qE '^(failed|skipped|deferred) ' "$TS_TMP/cleanup.out"; } ||
		{ cat "$TS_TMP/cleanup.out" "$TS_TMP/cleanup.err" >&2;
		  ts_fail "SIGKILL run $i ($moment): cleanup exited $crc, expected $want_crc"; }
	assert_clean "SIGKILL run $i ($moment) + cleanup"
	next_run_succeeds "SIGKILL run $i ($moment)"
done
ts_log "SIGKILL: $RUNS killed ($(( $(date +%s) - t0 )) s)"
ts_pass
