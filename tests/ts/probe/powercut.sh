#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# probe --preserve survives a power cut anywhere, its journal included: the
# journal lives on an ext4 file system on a second emulated drive (write
# cache on, flushes honoured) in the same power domain (cut-peer=), so a
# cut takes both drives at the same moment, losing what either drive's
# volatile cache held and tearing the probed drive's read-modify-write in
# flight (garbage in the second half of that physical sector: bytes the
# probe never wrote). Then, as after a reboot: the file system is unmounted
# and its buffers dropped, both drives powered on, the file system mounted
# again (ext4 replays its journal), the `probe --undo` the probe
# recommended is run, and every byte of the probed drive must equal the
# original (a checksum of the whole drive, read with O_DIRECT). A range
# the cut tore is restored without --force (issue 31, item 4): the journal
# names the write in flight, and the tear lies in the physical sectors at
# its edges; before, undo refused it as changed since the probe (exit 3).
#
# Cut points are write counts, not times: the probed drive after write N of
# a run whose writes were counted first (spread over the run, its last
# writes included), and the journal's drive after write M following the
# mount (while the journal is written and synced, before the first write
# to the probed drive). ALIGNPROBE_POWERCUT_POINTS=K adds K more points of
# each kind (opt-in, for a longer run); ALIGNPROBE_POWERCUT_SPEC names
# another probed drive.
#
# Then the drives whose physical sectors do not start on the slots'
# boundaries (4096 bytes from LBA 7, the wd-ears jumper, and from LBA 1),
# one slot, cut in its warm-up write (the first write: both its ends are
# read-modify-writes) and in the next: the torn sector reaches past what
# the probe writes, up to 3.5 KiB, which only the journal's margins hold.
# Without them undo left 2,043 bytes past the slot damaged and said "every
# byte verified" (LBA 7), or refused the disk as another one (exit 3: the
# tear reached into the first MiB, which identifies the disk; LBA 1).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "probe --preserve: power cuts at many points, journal included, then --undo"
ts_need_emulator
ts_need_cmd mkfs.ext4 blockdev dd sha256sum head

# a 4096/LBA 0 drive without a write cache: misaligned writes are RMWs on
# the media, and a cut tears them
DSPEC=${ALIGNPROBE_POWERCUT_SPEC:-"simple,phys=4096,lba=0,rmw=300us,jitter=30%,cache=off"}
JSPEC="simple,phys=4096,rmw=0,cache=on,size=128M"
PROBE=(--preserve --yes --quiet --max-rounds 3 --seed 3)
EXTRA=()
head -c 16M /dev/urandom > "$TS_TMP/img" || ts_fail "cannot create the random image"
orig=$(ts_checksum "$TS_TMP/img")
jm="$TS_TMP/jm"
mkdir -p "$jm"

counter() {
	"$ALIGNPROBE" emulate --stats "$1" -n -r -o "$2" || ts_fail "emulate --stats $1 failed"
}
detach() {
	"$ALIGNPROBE" emulate --detach "$1" || ts_fail "detach $1 failed"
	sed -i "\|^$1\$|d" "$TS_TMP/.emus"
}
# the drive's whole content, past any cache of the loop device
sum_dev() {
	dd if="$1" iflag=direct bs=1M status=none | sha256sum | cut -d' ' -f1
}
# journal_fs: a fresh ext4 for the journal on drive $J, mounted on $jm
journal_fs() {
	mkfs.ext4 -q -F "$J" || ts_fail "mkfs.ext4 $J failed"
	ts_mount "$J" "$jm"
}

# undo_as_advised WHAT probe --undo J: a range torn by the cut holds
# neither the bytes the probe read nor those it wrote, but only the write
# in flight can be torn, in the physical sectors at its edges: the journal
# names that write, and undo restores the tear without --force (a
# difference anywhere else it still refuses: tests/unit/test_journal.c,
# undo-changed.sh).
undo_as_advised() {
	local what=$1 cmd=$2 rc
	shift 2
	"$ALIGNPROBE" "$cmd" "$@" > "$TS_TMP/out" 2> "$TS_TMP/err"
	rc=$?
	[ "$rc" = 0 ] || ts_fail "$what: $cmd $* exited $rc ($torn torn): $(cat "$TS_TMP/err")"
	if grep -q "held a write the probe had in flight" "$TS_TMP/out"; then
		[ "$torn" -gt 0 ] || ts_fail "$what: a torn write restored, none torn: $(cat "$TS_TMP/out")"
		torn_restored=$((torn_restored + 1))
	fi
}

# run WHAT: the probe on $D, journal on $jm; then the "reboot" and the undo
run() {
	local what=$1 undo advice silent_now= journal="$jm/undo.journal"
	"$ALIGNPROBE" probe "${PROBE[@]}" "${EXTRA[@]}" --journal "$journal" "$D" > /dev/null \
		2> "$TS_TMP/perr"
	# one power domain: both drives went, or neither
	ts_assert_eq "$(counter "$D" POWER)" "$(counter "$J" POWER)" "$what: the two drives' power"
	cut=$(counter "$D" POWER)
	umount "$jm" || ts_fail "$what: umount after the cut failed"
	blockdev --flushbufs "$J" "$D" 2>/dev/null
	ts_run_rc 0 "$ALIGNPROBE" emulate --power-on "$J"
	ts_run_rc 0 "$ALIGNPROBE" emulate --power-on "$D"
	blockdev --flushbufs "$J" "$D" || ts_fail "$what: flushbufs failed"
	mount "$J" "$jm" || ts_fail "$what: the journal's file system does not mount again"
	torn=$(counter "$D" TORN)
	# what a real cut leaves to go by: no word of the probe, but cleanup's
	# advice from the state registry (the probe's own advice, as a check)
	"$ALIGNPROBE" cleanup > /dev/null 2> "$TS_TMP/cerr"
	undo=$(sed -n "s/.*run '\(alignprobe probe --undo [^']*\)'.*/\1/p" "$TS_TMP/cerr" | tail -n 1)
	advice=$(sed -n "s/.*run '\(alignprobe probe --undo [^']*\)'.*/\1/p" "$TS_TMP/perr" | tail -n 1)
	[ -z "$advice" ] || [ "$advice" = "$undo" ] ||
		ts_fail "$what: the probe advised '$advice', cleanup '$undo'"
	if [ -n "$undo" ]; then
		undo_as_advised "$what" ${undo#alignprobe }
		[ -e "$journal" ] && ts_fail "$what: --undo left the journal"
		undone=$((undone + 1))
	elif [ -e "$journal" ]; then
		# no advice, but a journal the cut left
		undo_as_advised "$what" probe --undo "$journal"
		silent_now="a journal without advice: $(head -n 1 "$TS_TMP/out")"
		[ -e "$journal" ] && ts_fail "$what: --undo left the journal"
		silent=$((silent + 1))
	fi
	grep -ls "^kind=journal" "$ALIGNPROBE_STATE_DIR"/* && ts_fail "$what: journal still registered"
	got=$(sum_dev "$D")
	[ "$got" = "$orig" ] || ts_fail "$what (power $cut, $torn torn): the drive differs from its original; $(cat "$TS_TMP/perr" "$TS_TMP/cerr" "$TS_TMP/out" 2>/dev/null | tail -n 4)"
	ts_log "$what: power $cut, $torn torn sectors, ${undo:-no undo advised}${silent_now:+ ($silent_now)}: every byte restored"
	umount "$jm" || ts_fail "$what: umount failed"
	sed -i "\|^$jm\$|d" "$TS_TMP/.mounts"
	detach "$D"
	detach "$J"
}

# the writes of a whole run, counted on the same drive without a cut
J=$(ts_emu_attach --spec "$JSPEC")
D=$(ts_emu_attach --image "$TS_TMP/img" --spec "$DSPEC")
journal_fs
# (exit 5, no verdict in 3 rounds on a loaded machine, is a whole run too:
# the verdict is not under test here, the data is)
"$ALIGNPROBE" probe "${PROBE[@]}" --journal "$jm/undo.journal" "$D" > /dev/null 2> "$TS_TMP/perr"
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 5 ] || ts_fail "the uncut run failed (exit $rc): $(cat "$TS_TMP/perr")"
W=$(counter "$D" WRITES)
[ "$W" -ge 20 ] || ts_fail "the uncut run wrote only $W times"
ts_assert_eq "$orig" "$(sum_dev "$D")" "the uncut run"
umount "$jm" && sed -i "\|^$jm\$|d" "$TS_TMP/.mounts"
detach "$D"
detach "$J"
ts_log "a whole run writes $W times to the probed drive"

undone=0 silent=0 torn_restored=0
points="0 1 $((W / 8)) $((W / 4)) $((W / 2)) $((3 * W / 4)) $((W - 2)) $((W - 1)) $W"
jpoints="1 2 4 8 16"
RANDOM=26
for k in $(seq "${ALIGNPROBE_POWERCUT_POINTS:-0}"); do
	points="$points $((RANDOM % W))"
	jpoints="$jpoints $((1 + RANDOM % 40))"
done

# the probed drive's write N is in flight when the power goes
for n in $points; do
	J=$(ts_emu_attach --spec "$JSPEC")
	D=$(ts_emu_attach --image "$TS_TMP/img" --spec "$DSPEC,cut-after=$n,cut-peer=$J")
	journal_fs
	run "cut after write $n of $W"
done

# the journal drive's write M after the mount is in flight (the journal
# being written): the probed drive goes with it
for m in $jpoints; do
	D=$(ts_emu_attach --image "$TS_TMP/img" --spec "$DSPEC")
	J=$(ts_emu_attach --spec "$JSPEC,cut-peer=$D")
	journal_fs
	ts_run_rc 0 "$ALIGNPROBE" emulate --power-cut-after "$m" "$J"
	run "cut after journal write $m"
done

# physical sectors off the slots' boundaries: slot 0's warm-up (write 0)
# and its first timed write (write 1) torn
EXTRA=(--slots 1)
for g in "phys=4096,lba=7" "phys=4096,lba=1"; do
	for n in 0 1; do
		J=$(ts_emu_attach --spec "$JSPEC")
		D=$(ts_emu_attach --image "$TS_TMP/img" \
			--spec "simple,$g,rmw=300us,cache=off,cut-after=$n,cut-peer=$J")
		journal_fs
		run "$g: cut after write $n"
		[ "$n" -gt 0 ] || [ "$torn" -gt 0 ] || ts_fail "$g: the warm-up write tore nothing"
	done
done
# a rotating disk without a write cache whose physical sectors start at
# LBA 7 (the issue's drive): most writes are read-modify-writes on the
# media, and a cut in one tears it
EXTRA=(--slots 4)
for n in 3 7 12 20; do
	J=$(ts_emu_attach --spec "$JSPEC")
	D=$(ts_emu_attach --image "$TS_TMP/img" \
		--spec "hdd-7200,lba=7,cache=off,cut-after=$n,cut-peer=$J")
	journal_fs
	run "hdd lba=7: cut after write $n"
done
ts_log "$undone undone as advised, $silent journals left without advice, $torn_restored torn writes restored"
[ "$torn_restored" -gt 0 ] || ts_fail "no cut tore a write: the test shows nothing"

# destructive: the region is the probe's to destroy, nothing outside it is:
# slot 0's warm-up torn on a 4096/LBA 1 drive once garbled 1.5 KiB before
# the region (the first MiB); the bytes before and after the region must
# still be the image's
D=$(ts_emu_attach --image "$TS_TMP/img" --spec "simple,phys=4096,lba=1,rmw=300us,cache=off,cut-after=0")
"$ALIGNPROBE" probe --yes --quiet --slots 1 --max-rounds 3 "$D" > /dev/null 2> "$TS_TMP/perr" &&
	ts_fail "destructive: the probe did not notice the power cut"
ts_assert_eq off "$(counter "$D" POWER)" "destructive: the power"
torn=$(counter "$D" TORN)
[ "$torn" -gt 0 ] || ts_fail "destructive: the warm-up write tore nothing"
ts_run_rc 0 "$ALIGNPROBE" emulate --power-on "$D"
blockdev --flushbufs "$D" || ts_fail "destructive: flushbufs failed"
outside() {	# the first MiB and the last 33 sectors of $1, read with O_DIRECT
	{ dd if="$1" iflag=direct bs=1M count=1 status=none
	  dd if="$1" iflag=direct,skip_bytes bs=16896 skip=$((16 * 1048576 - 16896)) count=1 status=none
	} | sha256sum | cut -d' ' -f1
}
ts_assert_eq "$(outside "$TS_TMP/img")" "$(outside "$D")" \
	"destructive ($torn torn): the bytes outside the region"
ts_log "destructive: $torn torn sectors, every byte outside the region kept"
detach "$D"
ts_pass
