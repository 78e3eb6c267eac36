#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# `alignprobe cleanup [DEVICE]` after SIGKILLed runs: removes their stale
# mounts, temporary directories, loop devices and emulated drives, keeps
# undo journals (unless --remove-journals), never touches a live run's
# resources or a mount it did not register, lists only with --dry-run,
# selects by DEVICE, and exits 1 whenever something it found remains: what
# it could not remove, what a live run uses, a kept journal, a loop device
# the kernel detaches only later, a registry file it cannot read. A dead
# run's PID taken by another process, or an entry of an earlier boot, does
# not keep its resources "in use".
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh" || exit 99
ts_init "cleanup after SIGKILL"
ts_need_loop
SBIN=/usr/sbin:/sbin
for c in sfdisk partprobe mkfs.ext4; do
	PATH=$PATH:$SBIN command -v $c >/dev/null || ts_skip "needs $c"
done
export PATH=$PATH:$SBIN
LEAK=${top_builddir}/tests/helpers/leak
[ -x "$LEAK" ] || ts_fail "$LEAK not built (make check builds it)"
export TMPDIR=$TS_TMP

ts_image "$TS_TMP/a.img" 64M
ts_image "$TS_TMP/b.img" 32M
ts_image "$TS_TMP/c.img" 8M
printf 'label: dos\n,16M\n,16M\n' | sfdisk -q "$TS_TMP/a.img" || ts_fail "sfdisk"
A=$(ts_loop_attach "$TS_TMP/a.img")
B=$(ts_loop_attach "$TS_TMP/b.img")
partprobe "$A" 2>/dev/null
for i in 1 2; do
	ts_wait_node "${A}p$i" || ts_fail "no partition ${A}p$i"
	mkfs.ext4 -q -F "${A}p$i" || ts_fail "mkfs.ext4 ${A}p$i"
done
mkfs.ext4 -q -F "$B" || ts_fail "mkfs.ext4 $B"

# leak NAME ARGS...: start a run (a child of this shell) that sets up one
# resource; R receives the resource, $TS_TMP/NAME.pid the PID
leak() {
	local name=$1 t
	shift
	"$LEAK" "$@" > "$TS_TMP/$name" 2> "$TS_TMP/$name.err" &
	echo $! > "$TS_TMP/$name.pid"
	ts_bg_pid $!
	ts_wait_for -p $! "leak $*" grep -qs ready "$TS_TMP/$name" ||
		{ cat "$TS_TMP/$name.err" >&2; ts_fail "leak $*: not ready"; }
	R=$(head -n1 "$TS_TMP/$name")
}
sigkill() {
	local pid
	pid=$(cat "$TS_TMP/$1.pid")
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
}
is_mounted() { findmnt -rn --mountpoint "$1" >/dev/null; }
# our loop device still attached to our file (its number may be reused by
# another run once it is free)
loop_attached() { [ "$(cat "/sys/block/${loopdev#/dev/}/loop/backing_file" 2>/dev/null)" = "$cimg" ]; }

# everything is also recorded for the trap, in case cleanup fails
leak m1 mount "${A}p1" ext4 "$A"; dead_mnt=$R
echo "$dead_mnt" >> "$TS_TMP/.mounts"
leak m2 mount "${A}p2" ext4 "$A"; live_mnt=$R
echo "$live_mnt" >> "$TS_TMP/.mounts"
cimg=$(realpath "$TS_TMP/c.img")
leak l1 loop "$cimg"; loopdev=$R
echo "$loopdev $cimg" >> "$TS_TMP/.loops"
leak t1 tmpdir; tmpd=$R
journal=$TS_TMP/undo.journal
echo "journal" > "$journal"
leak j1 journal "$journal" "$A"
for x in m1 l1 t1 j1; do sigkill $x; done
is_mounted "$dead_mnt" || ts_fail "the leaked mount is not there"

# --dry-run changes nothing; the live mount and the journal would remain
ts_run_rc 1 "$ALIGNPROBE" cleanup --dry-run
grep -q "3 of 7 would remain" "$TS_TMP/err" || { cat "$TS_TMP/err" >&2; ts_fail "--dry-run: no summary"; }
grep -q "would-unmount.*$dead_mnt" "$TS_TMP/out" || { cat "$TS_TMP/out" >&2; ts_fail "--dry-run: no would-unmount"; }
grep -q "would-detach.*$loopdev" "$TS_TMP/out" || ts_fail "--dry-run: no would-detach"
grep -q "skipped.*$live_mnt" "$TS_TMP/out" || ts_fail "--dry-run: live mount not skipped"
is_mounted "$dead_mnt" || ts_fail "--dry-run unmounted"
[ -d "$tmpd" ] || ts_fail "--dry-run removed a directory"
loop_attached || ts_fail "--dry-run detached"

# DEVICE selects: another device's cleanup leaves A's and the loop alone
ts_run_rc 0 "$ALIGNPROBE" cleanup "$B"
grep -q "nothing to clean up" "$TS_TMP/out" || { cat "$TS_TMP/out" >&2; ts_fail "cleanup $B did something"; }
is_mounted "$dead_mnt" || ts_fail "cleanup $B unmounted A's partition"

# cleanup A: its stale mount and directory go, the live run's stay, the loop
# stays; the live mount and the journal remain: exit 1
ts_run_rc 1 "$ALIGNPROBE" cleanup "$A"
is_mounted "$dead_mnt" && ts_fail "cleanup $A left the stale mount"
[ -e "$dead_mnt" ] && ts_fail "cleanup $A left the mount point"
is_mounted "$live_mnt" || ts_fail "cleanup $A unmounted a live run's mount"
loop_attached || ts_fail "cleanup $A detached an unrelated loop device"
[ -d "$tmpd" ] || ts_fail "cleanup $A removed an unrelated directory"
grep -q "kept.*$journal.*probe --undo $journal" "$TS_TMP/out" || { cat "$TS_TMP/out" >&2; ts_fail "journal not reported"; }
grep -q "probe --undo" "$TS_TMP/err" || ts_fail "journal: no advice on stderr"

# cleanup: everything stale, JSON; the live mount and the journal remain
ts_run_rc 1 "$ALIGNPROBE" cleanup --json
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
acts = {(r["kind"], r["action"]) for r in d["cleanup"]}
want = {("loop", "detached"), ("tmpdir", "removed"), ("journal", "kept"), ("mount", "skipped")}
assert want <= acts, acts
' "$TS_TMP/out" || { cat "$TS_TMP/out" >&2; ts_fail "cleanup --json"; }
loop_attached && ts_fail "stale loop device still attached"
[ -e "$tmpd" ] && ts_fail "stale non-empty alignprobe directory still there"
[ -f "$journal" ] || ts_fail "the undo journal was deleted"
is_mounted "$live_mnt" || ts_fail "the live mount was removed"

# the live run dies too: now it goes; the journal only on request (until
# then it remains: exit 1)
sigkill m2
ts_run_rc 1 "$ALIGNPROBE" cleanup
grep -q "1 of 3 remain" "$TS_TMP/err" || { cat "$TS_TMP/err" >&2; ts_fail "no summary of what remains"; }
is_mounted "$live_mnt" && ts_fail "second run's mount left"
[ -e "$live_mnt" ] && ts_fail "second run's mount point left"
ts_run_rc 0 "$ALIGNPROBE" cleanup --remove-journals
[ -f "$journal" ] && ts_fail "--remove-journals kept the journal"
ts_run_rc 0 "$ALIGNPROBE" cleanup
grep -q "nothing to clean up" "$TS_TMP/out" || { cat "$TS_TMP/out" >&2; ts_fail "entries left"; }

# a registered mount point that now carries somebody else's mount: left
# alone, exit 1, the reason printed
mkdir "$TS_TMP/other"
leak s1 stale mount "$TS_TMP/other" "${A}p1"
sigkill s1
ts_mount "$B" "$TS_TMP/other"
ts_run_rc 1 "$ALIGNPROBE" cleanup
grep -q "not the registered" "$TS_TMP/err" || { cat "$TS_TMP/err" >&2; ts_fail "no reason for the refusal"; }
is_mounted "$TS_TMP/other" || ts_fail "cleanup unmounted a mount it did not register"
umount "$TS_TMP/other"
ts_run_rc 0 "$ALIGNPROBE" cleanup	# not mounted any more: the entry goes

# a dead run's loop device that somebody still holds open: the kernel only
# marks it for detaching; it remains (exit 1, entry kept) until the holder
# lets go, then the next cleanup finds it gone
leak l2 loop "$cimg"; loopdev=$R
echo "$loopdev $cimg" >> "$TS_TMP/.loops"
sigkill l2
exec 7< "$loopdev"
ts_run_rc 1 "$ALIGNPROBE" cleanup
grep -q "^deferred *loop" "$TS_TMP/out" || { cat "$TS_TMP/out" >&2; ts_fail "held loop device: not deferred"; }
grep -qs "^kind=loop" "$ALIGNPROBE_STATE_DIR"/* || ts_fail "held loop device: entry released"
exec 7<&-
ts_wait_for "the kernel to detach $loopdev" eval '! loop_attached'
ts_run_rc 0 "$ALIGNPROBE" cleanup
grep -q "^gone *loop" "$TS_TMP/out" || { cat "$TS_TMP/out" >&2; ts_fail "detached loop device: not gone"; }

# a registry file cleanup cannot read: reported, it remains (exit 1)
echo "not an entry" > "$ALIGNPROBE_STATE_DIR/1-bogus"
ts_run_rc 1 "$ALIGNPROBE" cleanup
grep -q "^kept *unknown.*cannot read the registry entry $ALIGNPROBE_STATE_DIR/1-bogus" "$TS_TMP/out" ||
	{ cat "$TS_TMP/out" >&2; ts_fail "unreadable entry not reported"; }
rm "$ALIGNPROBE_STATE_DIR/1-bogus"

# the PID of a dead run now belongs to a live process (this shell): its
# start time, or the boot, tells them apart; a live owner is still left alone
start=$(sed 's/.*) //' /proc/$$/stat | cut -d' ' -f20)
boot=$(cat /proc/sys/kernel/random/boot_id)
# owned OWNER_START BOOT: a dead run's scratch directory, registered as this shell's
owned() {
	leak t2 tmpdir; tmpd=$R
	sigkill t2
	f=$(grep -l "^path=$tmpd\$" "$ALIGNPROBE_STATE_DIR"/*)
	sed -i -e "s/^owner=.*/owner=$$/" -e "s/^owner_start=.*/owner_start=$1/" -e "s/^boot=.*/boot=$2/" "$f"
}
owned "$start" "$boot"
ts_run_rc 1 "$ALIGNPROBE" cleanup
grep -q "^skipped *tmpdir.*in use by running process $$" "$TS_TMP/out" ||
	{ cat "$TS_TMP/out" >&2; ts_fail "a live owner's directory was not skipped"; }
[ -d "$tmpd" ] || ts_fail "a live owner's directory was removed"
sed -i "s/^owner_start=.*/owner_start=$((start + 1))/" "$f"
ts_run_rc 0 "$ALIGNPROBE" cleanup
grep -q "^removed *tmpdir" "$TS_TMP/out" || { cat "$TS_TMP/out" >&2; ts_fail "reused PID: kept"; }
[ -e "$tmpd" ] && ts_fail "reused PID: the directory is still there"
owned "$start" "00000000-0000-0000-0000-000000000000"
ts_run_rc 0 "$ALIGNPROBE" cleanup
grep -q "^removed *tmpdir" "$TS_TMP/out" || { cat "$TS_TMP/out" >&2; ts_fail "earlier boot: kept"; }
[ -e "$tmpd" ] && ts_fail "earlier boot: the directory is still there"

# an emulated drive whose server was SIGKILLed
ts_log "emulated drive: server SIGKILLed, then cleanup"
if "$ALIGNPROBE" emulate --help >/dev/null 2>&1 && [ -c /dev/fuse ]; then
	E=$(ts_emu_attach --size 16M --rmw-cost 300us)
	spid=$(grep -l "dev=$E\$" "$ALIGNPROBE_STATE_DIR"/* 2>/dev/null | xargs grep -h '^aux=' | cut -d= -f2)
	[ -n "$spid" ] || ts_fail "no registry entry for $E"
	ebf=$(cat "/sys/block/${E##*/}/loop/backing_file")
	kill -9 "$spid"
	ts_wait_for "the server $spid to die" eval "! ts_running $spid"
	ts_run_rc 0 "$ALIGNPROBE" cleanup "$E"
	grep -q "detached" "$TS_TMP/out" || { cat "$TS_TMP/out" "$TS_TMP/err" >&2; ts_fail "emulated drive not detached"; }
	sed -i "\|^$E\$|d" "$TS_TMP/.emus"	# gone: its number may be someone else's now
	[ "$(cat "/sys/block/${E##*/}/loop/backing_file" 2>/dev/null)" = "$ebf" ] && ts_fail "$E still attached"
	ts_run_rc 0 "$ALIGNPROBE" cleanup
	grep -q "nothing to clean up" "$TS_TMP/out" || { cat "$TS_TMP/out" >&2; ts_fail "emu entries left"; }
fi
ts_pass
