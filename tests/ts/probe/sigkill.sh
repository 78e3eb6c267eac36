#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# SIGKILL a preserving probe at random moments (10 runs). Whatever the
# moment, `probe --undo JOURNAL` brings the device back byte-identical. To
# show that the journal really restores (a SIGKILL alone cannot tear a
# write of the original bytes, a power cut can), the range of the first
# slot is overwritten with garbage after each kill that left a complete
# journal, before --undo.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "probe --preserve: SIGKILL at random moments, then --undo"
ts_need_emulator
ts_need_cmd head dd od cmp sha256sum

head -c 16M /dev/urandom > "$TS_TMP/img" || ts_fail "cannot create the random image"
# an honest drive: the probe measures every size, so most kills land in the
# measurement (the verdict does not matter here)
dev=$(ts_emu_attach --image "$TS_TMP/img" --phys 512 --rmw-cost 300us --jitter 30%)
before=$(ts_checksum "$dev")
ts_assert_eq "$(ts_checksum "$TS_TMP/img")" "$before" "the drive starts as the image"
journal="$TS_TMP/undo.journal"
RANDOM=4242
undone=0 incomplete=0 finished=0

# how long one whole run takes on this machine now: the kills are spread
# over 10..90 % of it, so a fast or a loaded machine both get kills that
# land inside the measurement
t0=$(date +%s%N)
"$ALIGNPROBE" probe --preserve --journal "$journal" --time-budget 20s --quiet \
	--min-rounds 5 --seed 0 "$dev" >/dev/null 2>&1
dur_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
ts_log "a whole preserving run takes $dur_ms ms"
[ "$dur_ms" -ge 200 ] || ts_fail "the calibration run took only $dur_ms ms"
cmp "$dev" "$TS_TMP/img" >&2 || ts_fail "the calibration run changed the device"

for run in $(seq 10); do
	"$ALIGNPROBE" probe --preserve --journal "$journal" --time-budget 20s --quiet \
		--min-rounds 5 --seed "$run" "$dev" >/dev/null 2>&1 &
	pid=$!
	ts_bg_pid "$pid"
	ms=$((dur_ms * (10 + RANDOM % 80) / 100))
	sleep "$((ms / 1000)).$(printf %03d $((ms % 1000)))"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	if [ -e "$journal" ]; then
		# header flags at byte 12: bit 0 = complete
		flags=$(od -An -tu4 -j12 -N4 "$journal" | tr -d ' ')
		if [ "$flags" = 1 ]; then
			# what a torn read-modify-write would leave: garbage in a probed range
			dd if=/dev/urandom of="$dev" bs=64K count=1 seek=16 oflag=direct \
				conv=notrunc status=none || ts_fail "run $run: cannot damage the range"
			cmp -s "$dev" "$TS_TMP/img" && ts_fail "run $run: the damage had no effect"
			ts_run_rc 0 "$ALIGNPROBE" probe --undo "$journal"
			grep -q "every byte verified" "$TS_TMP/out" || ts_fail "run $run: $(cat "$TS_TMP/out")"
			undone=$((undone + 1))
		else
			ts_run_rc 0 "$ALIGNPROBE" probe --undo "$journal"
			grep -q "never completed" "$TS_TMP/out" || ts_fail "run $run: $(cat "$TS_TMP/out")"
			incomplete=$((incomplete + 1))
		fi
		[ -e "$journal" ] && ts_fail "run $run: --undo left the journal"
	else
		finished=$((finished + 1))
	fi
	grep -ls "^kind=journal" "$ALIGNPROBE_STATE_DIR"/* && ts_fail "run $run: journal still registered"
	# byte for byte against the image the drive started from
	cmp "$dev" "$TS_TMP/img" >&2 || ts_fail "run $run: the device differs from its original"
done
ts_assert_eq "$before" "$(ts_checksum "$dev")" "device checksum after all runs"
ts_log "10 kills: $undone restored with --undo, $incomplete before the journal was complete, $finished after the probe ended"
[ "$undone" -ge 5 ] || ts_fail "too few kills during the measurement ($undone) to prove anything"

# --undo of something that is not a journal, and of a missing one: exit 2
echo "not a journal" > "$TS_TMP/bogus"
ts_run_rc 2 "$ALIGNPROBE" probe --undo "$TS_TMP/bogus"
grep -q "not an alignprobe undo journal" "$TS_TMP/err" || ts_fail "bogus journal: $(cat "$TS_TMP/err")"
ts_run_rc 2 "$ALIGNPROBE" probe --undo "$TS_TMP/missing"
ts_pass
