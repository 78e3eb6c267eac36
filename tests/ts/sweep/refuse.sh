#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Before anything is written: a mounted device is refused (exit 3), so is a
# device without --yes when nobody can type its name (exit 3); bad options
# and starts a GPT cannot hold are usage errors (exit 2); a missing mkfs is
# named (exit 1). Each time, a checksum proves nothing was written.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
. "$top_srcdir/tests/ts/sweep/common.sh"
ts_init "sweep refusals"
ts_need_loop
ts_need_cmd mkfs.ext4 sha256sum
sw_private_tmpdir
SW_KEEP_TMP='^\(disk.img\|mnt\)$'

ts_image "$TMPDIR/disk.img" 24M
D=$(ts_loop_attach "$TMPDIR/disk.img")
mkfs.ext4 -q -F "$D" || ts_fail "mkfs.ext4 $D"
sum0=$(ts_checksum "$D")
# read-only: a mounted ext4 writes by itself; and while mounted the device
# reads back the superblock as the mount changed it in memory
ts_mount "$D" "$TMPDIR/mnt" -o ro
sum=$(ts_checksum "$D")

check() {
	local want=$1 msg=$2
	shift 2
	ts_run_rc "$want" "$ALIGNPROBE" sweep "$@"
	[ -z "$msg" ] || grep -q -- "$msg" "$TS_TMP/err" || ts_fail "sweep $*: message lacks '$msg': $(cat "$TS_TMP/err")"
	ts_assert_eq "$sum" "$(ts_checksum "$D")" "sweep $*: the device changed"
}
check 3 "mounted" --yes "$D" < /dev/null
check 3 "mounted" --yes --dry-run "$D" < /dev/null
umount "$TMPDIR/mnt" || ts_fail "umount"
rmdir "$TMPDIR/mnt"
sum=$(ts_checksum "$D")
ts_assert_eq "$sum0" "$sum" "written while mounted"
check 3 "yes" "$D" < /dev/null
check 2 "first sector a GPT" --yes --starts 30..40 "$D" < /dev/null
check 2 "end before" --yes --starts 40..30 "$D"
check 2 "unknown preset" --preset fastest "$D"
check 2 "file system" --fs btrfs "$D"
check 2 "not both" --emulate "$D"
check 2 "no device" --yes
check 2 "rounds" --rounds 3..1 "$D"
check 2 "duration" --time-budget 10 "$D"
check 2 "can have at most" --yes --size 1G "$D" < /dev/null
printf 'set number 5\nbogus line\n' > "$TS_TMP/bad.pm"
check 2 "bad.pm:2" --yes -w "$TS_TMP/bad.pm" "$D"
PATH=/nonexistent "$ALIGNPROBE" sweep --yes "$D" > "$TS_TMP/out" 2> "$TS_TMP/err" < /dev/null
ts_assert_eq 1 $? "exit code without mkfs in PATH"
grep -q "mkfs.ext4 not found in PATH" "$TS_TMP/err" || ts_fail "missing mkfs: $(cat "$TS_TMP/err")"
ts_assert_eq "$sum" "$(ts_checksum "$D")" "missing mkfs: the device changed"
# a dry run describes and writes nothing
check 0 "" --dry-run --starts 40..48 "$D"
grep -q "dry run" "$TS_TMP/out" || ts_fail "dry run printed no plan: $(cat "$TS_TMP/out")"
sw_assert_clean "$D"
ts_pass
