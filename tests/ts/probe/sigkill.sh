#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# SIGKILL a preserving probe at random moments (10 runs), and twice right
# after a SIGINT (while it restores, or just after). Whatever the moment,
# `probe --undo JOURNAL` brings the device back byte-identical. To show that
# the journal really restores (a SIGKILL alone cannot tear a write of the
# original bytes, a power cut can), the range of the first slot is
# overwritten with garbage after each kill that left a complete journal,
# before --undo: the range then holds neither the bytes the probe read nor
# what it wrote, so --undo refuses it (exit 3, naming it) and --force puts it
# back (issue 23: a power cut's torn write and another writer's data look
# the same to undo; only the user knows which). The moments are states, not times: the kill comes once the
# progress lines (ALIGNPROBE_PROGRESS_FD) have counted a random number of
# measured writes, in a run that would go on for a million rounds -- so
# every kill lands in the measurement, on a fast machine as on a slow one,
# and the journal, complete before the first write, restores every time.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "probe --preserve: SIGKILL at random moments, then --undo"
ts_need_emulator
ts_need_cmd head dd od cmp sha256sum

head -c 16M /dev/urandom > "$TS_TMP/img" || ts_fail "cannot create the random image"
# an honest drive: the probe measures every size
dev=$(ts_emu_attach --image "$TS_TMP/img" --phys 512 --rmw-cost 300us --jitter 30%)
before=$(ts_checksum "$dev")
ts_assert_eq "$(ts_checksum "$TS_TMP/img")" "$before" "the drive starts as the image"
journal="$TS_TMP/undo.journal"
RANDOM=4242
undone=0 incomplete=0 gone=0

# the measured writes of the last progress line
ops() { sed -n 's/^probe [^:]*: \([0-9]*\).*/\1/p' "$TS_TMP/progress" | tail -n 1; }
ops_reached() { [ "$(ops)" -ge "$1" ] 2>/dev/null; }

# start RUN: an unbounded preserving probe in the background (pid)
start() {
	: > "$TS_TMP/progress"
	ALIGNPROBE_PROGRESS_FD=3 "$ALIGNPROBE" probe --preserve --journal "$journal" --quiet \
		--min-rounds 1000000 --max-rounds 1000000 --time-budget 24h --seed "$1" "$dev" \
		> /dev/null 2> "$TS_TMP/err" 3> "$TS_TMP/progress" &
	pid=$!
	ts_bg_pid "$pid"
}

# undo RUN: what the kill left, restored
undo() {
	local flags
	if [ -e "$journal" ]; then
		# header flags at byte 12: bit 0 = complete
		flags=$(od -An -tu4 -j12 -N4 "$journal" | tr -d ' ')
		if [ "$flags" = 1 ]; then
			# what a torn read-modify-write would leave: garbage in a probed range
			dd if=/dev/urandom of="$dev" bs=64K count=1 seek=16 oflag=direct \
				conv=notrunc status=none || ts_fail "run $1: cannot damage the range"
			cmp -s "$dev" "$TS_TMP/img" && ts_fail "run $1: the damage had no effect"
			ts_run_rc 3 "$ALIGNPROBE" probe --undo "$journal"
			grep -q "changed since the probe.*bytes 1048576+65536;" "$TS_TMP/err" ||
				ts_fail "run $1: the changed range is not named: $(cat "$TS_TMP/err")"
			[ -e "$journal" ] || ts_fail "run $1: the refusal removed the journal"
			ts_run_rc 0 "$ALIGNPROBE" probe --force --undo "$journal"
			grep -q "every byte verified" "$TS_TMP/out" || ts_fail "run $1: $(cat "$TS_TMP/out")"
			undone=$((undone + 1))
		else
			ts_run_rc 0 "$ALIGNPROBE" probe --undo "$journal"
			grep -q "never completed" "$TS_TMP/out" || ts_fail "run $1: $(cat "$TS_TMP/out")"
			incomplete=$((incomplete + 1))
		fi
		[ -e "$journal" ] && ts_fail "run $1: --undo left the journal"
	else
		gone=$((gone + 1))
	fi
	grep -ls "^kind=journal" "$ALIGNPROBE_STATE_DIR"/* && ts_fail "run $1: journal still registered"
	# byte for byte against the image the drive started from
	cmp "$dev" "$TS_TMP/img" >&2 || ts_fail "run $1: the device differs from its original"
}

for run in $(seq 10); do
	start "$run"
	n=$((1 + RANDOM % 3000))
	ts_wait_for -p "$pid" "run $run to measure $n writes" ops_reached "$n" ||
		ts_fail "run $run: the probe ended: $(cat "$TS_TMP/err")"
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	[ -e "$journal" ] || ts_fail "run $run: killed after $n writes, but no journal"
	undo "$run"
done
ts_assert_eq 10 "$undone" "kills during the measurement restored with --undo"

# SIGKILL right after SIGINT: during the restore or after it, nothing is lost
for run in 11 12; do
	start "$run"
	ts_wait_for -p "$pid" "run $run to measure" ops_reached 1 ||
		ts_fail "run $run: the probe ended: $(cat "$TS_TMP/err")"
	kill -INT "$pid"
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	undo "$run"
done
ts_assert_eq "$before" "$(ts_checksum "$dev")" "device checksum after all runs"
ts_log "12 kills: $undone restored with --undo, $incomplete before the journal was complete, $gone after the restore"

# --undo of something that is not a journal, and of a missing one: exit 2
echo "not a journal" > "$TS_TMP/bogus"
ts_run_rc 2 "$ALIGNPROBE" probe --undo "$TS_TMP/bogus"
grep -q "not an alignprobe undo journal" "$TS_TMP/err" || ts_fail "bogus journal: $(cat "$TS_TMP/err")"
ts_run_rc 2 "$ALIGNPROBE" probe --undo "$TS_TMP/missing"
ts_pass
