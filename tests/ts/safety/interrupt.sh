#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A sweep interrupted at random moments: 20 times SIGINT (the sweep cleans
# up itself and exits 130; once SIGTERM and SIGHUP too), 20 times SIGKILL followed by `alignprobe
# cleanup`. After each: nothing of ours mounted, no temporary directory, no
# registry entry, the device not busy (the gate can take it O_EXCL), and the
# next sweep succeeds. ALIGNPROBE_INTERRUPT_RUNS=N changes the 20.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh" || exit 99
ts_init "sweep interrupted by SIGINT and SIGKILL"
ts_need_loop
GATE=${top_builddir}/tests/ts/safety/gate
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

# the run to interrupt, timed once uninterrupted (this machine, this load,
# this build: ASan is slower) so that the moments cover all of it
# (the faster of two runs; the moments fall in its first 80 %)
RUN=("${SWEEP[@]}" --starts 34..45)
T=
for i in 1 2; do
	t=$(date +%s%N)
	"$ALIGNPROBE" "${RUN[@]}" "$D" > "$TS_TMP/run.out" 2> "$TS_TMP/run.err" < /dev/null
	rc=$?
	t=$(( ($(date +%s%N) - t) / 1000000 ))
	[ $rc = 0 ] || [ $rc = 5 ] || { cat "$TS_TMP/run.err" >&2; ts_fail "the uninterrupted sweep failed ($rc)"; }
	assert_clean "uninterrupted sweep"
	[ -z "$T" ] || [ $t -lt $T ] && T=$t
done
ts_log "an uninterrupted run takes $T ms"
T=$((T * 8 / 10))
[ "$T" -gt 0 ] || T=1
# a random moment within the run: 0 .. T ms
moment() { local r=$((RANDOM * 32768 + RANDOM)); r=$((r % T)); printf '%d.%03d' $((r / 1000)) $((r % 1000)); }

t0=$(date +%s)
nint=0 nfinished=0
for i in $(seq "$RUNS"); do
	"$ALIGNPROBE" "${RUN[@]}" "$D" > "$TS_TMP/run.out" 2> "$TS_TMP/run.err" < /dev/null &
	pid=$!
	sleep "$(moment)"
	tk=$(date +%s%N)
	kill -INT $pid 2>/dev/null
	wait $pid
	rc=$?
	late=$(( ($(date +%s%N) - tk) / 1000000 ))
	case $rc in
	130) nint=$((nint + 1)) ;;
	0|5)	# done before the signal, or it came during the last words; but
		# going on for 2 s (several steps) after it means it was lost
		[ $late -lt 2000 ] || { cat "$TS_TMP/run.err" >&2;
			ts_fail "SIGINT run $i: ignored: the sweep went on for $late ms and exited $rc"; }
		nfinished=$((nfinished + 1)) ;;
	*) cat "$TS_TMP/run.err" >&2; ts_fail "SIGINT run $i: exit $rc, expected 130" ;;
	esac
	assert_clean "SIGINT run $i (exit $rc)"
	next_run_succeeds "SIGINT run $i"
done
ts_log "SIGINT: $nint interrupted, $nfinished finished before the signal ($(( $(date +%s) - t0 )) s)"
[ $nint -ge $((RUNS / 2)) ] || ts_fail "only $nint of $RUNS runs were interrupted: the runs are too short"

# SIGTERM and SIGHUP take the same path: 128+15, 128+1
for sig in TERM HUP; do
	"$ALIGNPROBE" "${RUN[@]}" "$D" > "$TS_TMP/run.out" 2> "$TS_TMP/run.err" < /dev/null &
	pid=$!
	sleep "$(printf '%d.%03d' $((T / 3000)) $((T / 3 % 1000)))"
	kill -$sig $pid
	wait $pid
	rc=$?
	want=$((128 + $(kill -l $sig)))
	[ $rc = $want ] || { cat "$TS_TMP/run.err" >&2; ts_fail "SIG$sig: exit $rc, expected $want"; }
	assert_clean "SIG$sig"
done

t0=$(date +%s)
nkill=0
for i in $(seq "$RUNS"); do
	"$ALIGNPROBE" "${RUN[@]}" "$D" > "$TS_TMP/run.out" 2> "$TS_TMP/run.err" < /dev/null &
	pid=$!
	sleep "$(moment)"
	kill -KILL $pid 2>/dev/null
	wait $pid
	rc=$?
	[ $rc = 137 ] && nkill=$((nkill + 1))
	"$ALIGNPROBE" cleanup > "$TS_TMP/cleanup.out" 2> "$TS_TMP/cleanup.err"
	crc=$?
	[ $crc = 0 ] || { cat "$TS_TMP/cleanup.out" "$TS_TMP/cleanup.err" >&2; ts_fail "SIGKILL run $i: cleanup exited $crc"; }
	assert_clean "SIGKILL run $i + cleanup"
	next_run_succeeds "SIGKILL run $i"
done
ts_log "SIGKILL: $nkill killed ($(( $(date +%s) - t0 )) s)"
[ $nkill -ge $((RUNS / 2)) ] || ts_fail "only $nkill of $RUNS runs were killed: the runs are too short"
ts_pass
