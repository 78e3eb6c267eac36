#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A SIGKILLed emulator: its mount says "Transport endpoint is not
# connected", I/O fails instead of hanging, and `emulate --detach` (or
# `alignprobe cleanup`, for the stale registry entry) leaves no loop device,
# no FUSE mount and no files (its data in /dev/shm neither). A SIGTERMed one takes its drive down itself. Only this test's own device and mount are
# looked at.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "detach after SIGKILL, self-teardown after SIGTERM of the emulator"
ts_need_emulator
ts_need_cmd timeout dd
# hang detectors only: generous, never a judgement of speed
HANG=600

# attach: sets dev, pid (the server), mnt (its FUSE mount point)
attach() {
	dev=$(ts_emu_attach --size 16M --rmw-cost 100us)
	lookup
}

# lookup [OWNER]: the registry entry names the server (aux) and the owner:
# OWNER, or the server itself for a drive handed over by emulate --attach
lookup() {
	local entry
	entry=$(grep -l "^dev=$dev\$" "$ALIGNPROBE_STATE_DIR"/* 2>/dev/null | head -1)
	[ -n "$entry" ] || ts_fail "no registry entry for $dev"
	pid=$(sed -n 's/^aux=//p' "$entry")
	mnt=$(sed -n 's/^path=//p' "$entry")
	ts_assert_eq "${1:-$pid}" "$(sed -n 's/^owner=//p' "$entry")" "registry: the drive's owner"
	kill -0 "$pid" || ts_fail "server $pid not running"
	grep -q " $mnt fuse" /proc/self/mounts || ts_fail "$mnt is not a FUSE mount"
	# the data in memory where /dev/shm is a tmpfs (with room for 16M): a
	# link to /dev/shm/alignprobe-emu.*/backing, which goes with the drive
	shm=
	if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
		shm=$(readlink "$(dirname "$mnt")/backing") ||
			ts_fail "the backing file of $dev is not in memory: $(ls -l "$(dirname "$mnt")")"
		shm=$(dirname "$shm")
		case $shm in /dev/shm/alignprobe-emu.*) ;; *) ts_fail "backing in $shm" ;; esac
		[ -f "$shm/backing" ] || ts_fail "no $shm/backing"
	fi
	"$ALIGNPROBE" emulate --stats "$dev" >/dev/null || ts_fail "--stats on a live drive failed"
}

gone() {
	# the server's parent (init) reaps it a moment after it exits
	ts_wait_for "the server $pid to exit" eval "! ts_running $pid"
	losetup -a | grep -q "^$dev:.*$mnt" && ts_fail "$dev still attached to $mnt"
	grep -q " $mnt " /proc/self/mounts && ts_fail "$mnt still mounted"
	[ -e "$(dirname "$mnt")" ] && ts_fail "work directory $(dirname "$mnt") left behind"
	[ -n "$shm" ] && [ -e "$shm" ] && ts_fail "the drive's memory $shm left behind"
	ts_running "$pid" && ts_fail "server $pid still running"
	[ -z "$(grep -l "^path=$mnt\$" "$ALIGNPROBE_STATE_DIR"/* 2>/dev/null)" ] ||
		ts_fail "registry entry for $mnt left behind"
	sed -i "\|^$dev\$|d" "$TS_TMP/.emus"
}

# left_attached DEV SEQ WHERE: DEV, still the attachment SEQ of this test,
# is detached and the test fails; a number since reused is somebody else's
left_attached() {
	local left
	ts_loop_same "$1" "$2" || return 0
	left=$(cat "/sys/block/${1#/dev/}/loop/backing_file" 2>/dev/null)
	ts_loop_same "$1" "$2" && losetup -d "$1" 2>/dev/null
	ts_fail "$1 left attached $3 ($left)"
}

attach
kill -9 "$pid"
ts_wait_for "the server $pid to die" eval "! ts_running $pid"
# I/O on the orphaned device fails, it does not hang
timeout $HANG dd if="$dev" of=/dev/null bs=4096 count=1 iflag=direct status=none 2>/dev/null
[ $? = 124 ] && ts_fail "read from $dev hangs after SIGKILL"
timeout $HANG "$ALIGNPROBE" emulate --detach "$dev" || ts_fail "detach after SIGKILL failed"
gone

# a live one: detach stops the server
attach
timeout $HANG "$ALIGNPROBE" emulate --detach "$dev" || ts_fail "detach failed"
gone

# the stale registry entry of a killed server: alignprobe cleanup takes it down
attach
kill -9 "$pid"
ts_wait_for "the server $pid to die" eval "! ts_running $pid"
timeout $HANG "$ALIGNPROBE" cleanup >/dev/null 2>"$TS_TMP/cleanup.err" ||
	ts_fail "cleanup failed: $(cat "$TS_TMP/cleanup.err")"
gone

# a server terminated from outside (SIGTERM, as a service manager or kill(1)
# does) takes its own drive down: no loop device left on a vanished file
attach
kill -TERM "$pid"
ts_wait_for "the work directory to go" eval "[ ! -e $(dirname "$mnt") ]"
gone

# a drive attached in-process (here: emulate --attach --wait) whose owner is
# SIGKILLed without detaching takes itself down
"$ALIGNPROBE" emulate --attach --wait --size 16M --rmw-cost 100us > "$TS_TMP/wait.out" &
owner=$!
ts_bg_pid "$owner"
ts_wait_for -p "$owner" "the device of emulate --attach --wait" test -s "$TS_TMP/wait.out"
dev=$(cat "$TS_TMP/wait.out")
[ -n "$dev" ] || ts_fail "emulate --attach --wait printed no device"
echo "$dev" >> "$TS_TMP/.emus"
lookup "$owner"
{ kill -9 "$owner"; wait "$owner"; } 2>/dev/null
ts_wait_for "the work directory to go" eval "[ ! -e $(dirname "$mnt") ]"
gone

# a second loop device over the drive's file (attached by hand, or by a run
# that died before the server learnt its number): the teardown clears it
# too, instead of leaving it over a lazily detached mount, where it shows
# as "(/disk)" and no test's or user's cleanup recognises it any more
attach
extra=$(losetup -f --show "$mnt/disk") || ts_fail "losetup -f $mnt/disk failed"
echo "$extra $mnt/disk" >> "$TS_TMP/.loops"
# nobody but this test detaches it before the teardown below
extra_seq=$(ts_loop_seq "$extra")
timeout $HANG "$ALIGNPROBE" emulate --detach "$dev" || ts_fail "detach with a second loop device failed"
# once detached, its number is free for anybody (another test's drive,
# whose backing file reads "/disk" too once lazily detached): only the
# same attachment is this test's
left_attached "$extra" "$extra_seq" "over the taken-down drive"
gone

# the attaching process killed with its loop device configured but before
# it told the server "done" (the test seam holds it there): the server
# takes the loop device down with the drive instead of leaving it over a
# lazily detached mount
mkdir "$TS_TMP/hold"
TMPDIR=$TS_TMP/hold ALIGNPROBE_TEST_EMU_ATTACH_HOLD=$TS_TMP/hold.go \
	"$ALIGNPROBE" emulate --attach --size 16M > "$TS_TMP/hold.out" 2>&1 &
holder=$!
ts_bg_pid "$holder"
# held_loop: "NAME SEQ" of the loop device over the held drive; the
# sequence number read on both sides of its backing file's name
held_loop() {
	local x n s
	for x in /sys/block/loop*/loop/backing_file; do
		n=${x#/sys/block/}; n=${n%%/*}
		s=$(cat "/sys/block/$n/diskseq" 2>/dev/null) || continue
		case $(cat "$x" 2>/dev/null) in
		"$TS_TMP"/hold/alignprobe-emu.*/mnt/disk)
			ts_loop_same "$n" "$s" && { echo "$n $s"; return 0; } ;;
		esac
	done
	return 1
}
ts_wait_for -p "$holder" "emulate --attach to hold" test -e "$TS_TMP/hold.go.reached" ||
	ts_fail "emulate --attach exited before holding: $(cat "$TS_TMP/hold.out")"
read -r held held_seq < <(held_loop)
[ -n "$held" ] || ts_fail "no loop device over the held drive"
{ kill -9 "$holder"; wait "$holder"; } 2>/dev/null
hold_unmounted() { ! grep -q " $TS_TMP/hold/" /proc/self/mounts; }
ts_wait_for "the held drive's FUSE mount to go" hold_unmounted
# its number, once released, may already carry another test's drive (CI
# saw /dev/loop2 reused by emulate/profiles, and this test detached it).
# Be that other test: a decoy on the released number, named like a drive,
# which the check below must neither count nor detach
mkdir -p "$TS_TMP/decoy/mnt" && ts_image "$TS_TMP/decoy/mnt/disk" 1M
decoy_seq=
if losetup "/dev/$held" "$TS_TMP/decoy/mnt/disk" 2>/dev/null; then
	echo "/dev/$held $TS_TMP/decoy/mnt/disk" >> "$TS_TMP/.loops"
	decoy_seq=$(ts_loop_seq "$held")
fi
left_attached "/dev/$held" "$held_seq" "after its attaching process died"
if [ -n "$decoy_seq" ]; then
	ts_loop_same "$held" "$decoy_seq" || ts_fail "/dev/$held: the decoy attached there was detached"
	losetup -d "/dev/$held" || ts_fail "cannot detach the decoy on /dev/$held"
fi
hold_gone() { [ -z "$(ls -A "$TS_TMP/hold")" ]; }
ts_wait_for "the held drive's work directory to go" hold_gone
ts_pass
