#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# An emulated drive belongs to the run that attached it, not to its server.
# A `sweep --emulate` SIGKILLed while a partition is mounted leaves a live
# server whose own teardown cannot detach the loop device; `alignprobe
# cleanup` unmounts the partition, stops the server, detaches the loop
# device, unmounts the FUSE mount and removes the work directory, and a
# second cleanup finds nothing. Whatever remains makes cleanup exit 1: a
# drive whose owner still runs (left alone), a drive handed over by
# `emulate --attach` (kept), a drive held by a mount nobody registered
# (failed, nothing destroyed). A cleanup that meets the server's own
# teardown of the same drive waits for it instead of failing.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh" || exit 99
ts_init "cleanup takes down the emulated drive of a SIGKILLed run"
ts_need_emulator
export PATH=$PATH:/usr/sbin:/sbin
ts_need_cmd findmnt sfdisk mkfs.ext4
export TMPDIR=$TS_TMP/tmp
mkdir -p "$TMPDIR"

# entry KIND: the registry file of the first entry of KIND, or nothing
entry() { grep -l "^kind=$1\$" "$ALIGNPROBE_STATE_DIR"/* 2>/dev/null | head -n1; }
field() { sed -n "s/^$2=//p" "$1"; }
attached() { [ "$(cat "/sys/block/${1#/dev/}/loop/backing_file" 2>/dev/null)" = "$2" ]; }
stopped() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | grep -q '^[tT]'; }
not_running() { ! ts_running "$1"; }
# the sweep's partition is mounted now
sweep_mounted() {
	local m
	m=$(entry mount)
	[ -n "$m" ] && findmnt -rn --mountpoint "$(field "$m" path)" >/dev/null
}

# record_emu: srv (server), owner, dev, mnt (FUSE mount point), wd (work
# directory) of the emulated drive in the registry
record_emu() {
	local e
	e=$(entry emu)
	[ -n "$e" ] || ts_fail "no emulated drive in the registry"
	srv=$(field "$e" aux) owner=$(field "$e" owner) dev=$(field "$e" dev) mnt=$(field "$e" path)
	wd=$(dirname "$mnt")
	attached "$dev" "$mnt/disk" || ts_fail "$dev is not attached to $mnt/disk"
	grep -q " $mnt fuse" /proc/self/mounts || ts_fail "$mnt is not a FUSE mount"
	ts_running "$srv" || ts_fail "the server $srv does not run"
	grep -qx "$dev" "$TS_TMP/.emus" 2>/dev/null || echo "$dev" >> "$TS_TMP/.emus"
}

# assert_emu_gone WHAT: no server, loop device, FUSE mount, work directory,
# registry entry or temporary file left
assert_emu_gone() {
	# the server has closed everything when cleanup returns; its exit follows
	ts_wait_for "the server $srv to exit" not_running "$srv"
	attached "$dev" "$mnt/disk" && ts_fail "$1: $dev is still attached to $mnt/disk"
	grep -q " $mnt " /proc/self/mounts && ts_fail "$1: the FUSE mount $mnt is left"
	[ -e "$wd" ] && ts_fail "$1: the work directory $wd is left: $(ls -A "$wd")"
	[ -z "$(ls -A "$ALIGNPROBE_STATE_DIR")" ] ||
		ts_fail "$1: registry entries left: $(ls -A "$ALIGNPROBE_STATE_DIR")"
	[ -z "$(ls -A "$TMPDIR")" ] || ts_fail "$1: left in TMPDIR: $(ls -A "$TMPDIR")"
	sed -i "\|^$dev\$|d" "$TS_TMP/.emus" 2>/dev/null
	return 0
}

# attach_wait SIZE: a drive owned by a running `emulate --attach --wait`
# (wpid), recorded as by record_emu
attach_wait() {
	local out=$TS_TMP/wait.$((++nwait)).out
	"$ALIGNPROBE" emulate --attach --wait --size "$1" --rmw-cost 100us > "$out" \
		2> "$TS_TMP/wait.err" &
	wpid=$!
	ts_bg_pid "$wpid"
	ts_wait_for -p "$wpid" "the device of emulate --attach --wait" test -s "$out" ||
		ts_fail "emulate --attach --wait failed: $(cat "$TS_TMP/wait.err")"
	record_emu
}
nwait=0

nothing_left() {
	ts_run_rc 0 "$ALIGNPROBE" cleanup
	grep -q "nothing to clean up" "$TS_TMP/out" || { cat "$TS_TMP/out" >&2; ts_fail "$1: entries left"; }
}

# --- 1. sweep --emulate, SIGKILLed while its partition is mounted ----------
ts_subtest sweep-killed-while-mounted
ts_log "sweep --emulate SIGKILLed with a partition mounted"
"$ALIGNPROBE" sweep --emulate=size=256M --yes --quiet > "$TS_TMP/sweep.out" 2> "$TS_TMP/sweep.err" \
	< /dev/null &
spid=$!
ts_bg_pid "$spid"
# stop it where a partition is mounted: wait for the mount, stop the sweep,
# and look again once it is stopped (it may have unmounted in between)
while :; do
	ts_wait_for -p "$spid" "a mounted partition of the sweep" sweep_mounted ||
		ts_fail "the sweep ended before it mounted anything: $(cat "$TS_TMP/sweep.err")"
	kill -STOP "$spid"
	ts_wait_for "the sweep to stop" stopped "$spid"
	sweep_mounted && break
	kill -CONT "$spid"
done
record_emu
kill -KILL "$spid"
wait "$spid" 2>/dev/null
# the server outlives its owner: the mounted partition holds the loop device
ts_running "$srv" || ts_fail "the server exited with the partition still mounted"
ts_run_rc 0 "$ALIGNPROBE" cleanup
grep -q "^unmounted *mount" "$TS_TMP/out" || { cat "$TS_TMP/out" >&2; ts_fail "the partition was not unmounted"; }
grep -q "^detached *emu" "$TS_TMP/out" || { cat "$TS_TMP/out" >&2; ts_fail "the drive was not taken down"; }
assert_emu_gone "after cleanup"
nothing_left "second cleanup"
# the registry named the sweep, not the server, as the drive's owner
ts_assert_eq "$spid" "$owner" "the drive's owner in the registry"

# --- 2. the owner runs: the drive is left alone, exit 1 ------------------------
ts_subtest owner-runs
ts_log "a drive whose owner runs"
attach_wait 32M
ts_assert_eq "$wpid" "$owner" "the drive's owner in the registry"
ts_run_rc 1 "$ALIGNPROBE" cleanup
grep -q "^skipped *emu .*in use by running process $wpid" "$TS_TMP/out" ||
	{ cat "$TS_TMP/out" >&2; ts_fail "the live run's drive was not skipped"; }
grep -q "1 of 1 remain" "$TS_TMP/err" || { cat "$TS_TMP/err" >&2; ts_fail "no word of what remains"; }
attached "$dev" "$mnt/disk" || ts_fail "cleanup detached a live run's drive"
"$ALIGNPROBE" emulate --stats "$dev" > /dev/null || ts_fail "the live run's drive does not answer"

# --- 3. the owner dies while a mount nobody registered holds the drive ------
ts_subtest owner-dies-mount-holds
ts_log "a dead run's drive held by an unregistered mount"
printf 'label: gpt\nstart=2048, size=16M\n' | sfdisk -q "$dev" > /dev/null 2>&1 ||
	ts_fail "sfdisk $dev failed"
ts_partprobe "$dev"
ts_wait_for "${dev}p1" test -b "${dev}p1"
mkfs.ext4 -q -F "${dev}p1" > /dev/null 2>&1 || ts_fail "mkfs.ext4 ${dev}p1 failed"
ts_mount "${dev}p1" "$TS_TMP/held"
kill -KILL "$wpid"
wait "$wpid" 2>/dev/null
ts_run_rc 1 "$ALIGNPROBE" cleanup
grep -q "^failed *emu" "$TS_TMP/out" || { cat "$TS_TMP/out" >&2; ts_fail "no failure reported"; }
grep -q "in use" "$TS_TMP/err" || { cat "$TS_TMP/err" >&2; ts_fail "no reason on stderr"; }
attached "$dev" "$mnt/disk" || ts_fail "the drive was detached under a mount"
findmnt -rn --mountpoint "$TS_TMP/held" > /dev/null || ts_fail "cleanup unmounted a mount it did not register"
[ -e "$wd" ] || ts_fail "the work directory of a drive still in use was removed"
umount "$TS_TMP/held" || ts_fail "umount $TS_TMP/held"
ts_run_rc 0 "$ALIGNPROBE" cleanup
assert_emu_gone "after the mount was gone"
nothing_left "second cleanup"

# --- 4. a drive handed over by emulate --attach: kept, exit 1 -----------------
ts_subtest attached-drive-kept
ts_log "a drive attached with emulate --attach"
dev=$(ts_emu_attach --size 16M --rmw-cost 100us)
record_emu
ts_assert_eq "$srv" "$owner" "owner of a handed-over drive"
ts_run_rc 1 "$ALIGNPROBE" cleanup
grep -q "^kept *emu .*emulate --detach $dev" "$TS_TMP/out" ||
	{ cat "$TS_TMP/out" >&2; ts_fail "the handed-over drive was not kept"; }
attached "$dev" "$mnt/disk" || ts_fail "cleanup detached a handed-over drive"
ts_run_rc 0 "$ALIGNPROBE" emulate --detach "$dev"
assert_emu_gone "after emulate --detach"
nothing_left "cleanup after emulate --detach"

# --- 5. cleanup right after the owner's death meets the server's own teardown -
ts_subtest cleanup-meets-teardown
ts_log "cleanup racing the server's own teardown"
for i in 1 2 3; do
	attach_wait 16M
	kill -KILL "$wpid"
	wait "$wpid" 2>/dev/null
	"$ALIGNPROBE" cleanup > "$TS_TMP/out" 2> "$TS_TMP/err" ||
		{ cat "$TS_TMP/out" "$TS_TMP/err" >&2; ts_fail "race $i: cleanup failed"; }
	assert_emu_gone "race $i"
done
ts_pass
