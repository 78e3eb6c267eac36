#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# mkfs.ext4 -b 4096 + mount + fsync'd file writes on a partition of the
# emulated drive: at a start of 34 every block ext4 writes straddles two
# hidden 4096-byte sectors (each write needs a read-modify-write), at 40
# none does -- ext4 writes only whole 4 KiB blocks (data, journal, metadata).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "ext4 on partitions at 34 and 40"
ts_need_emulator
ts_need_cmd parted mkfs.ext4 dd

counter() {	# DEV COLUMNS: the counters, one snapshot
	"$ALIGNPROBE" emulate --stats "$1" -n -r -o "$2" || ts_fail "emulate --stats $1 failed"
}

# run START: prints "WRITES RMW_WRITES ALIGNED" for the writes after mount, unmount included
run() {
	local start=$1 dev mnt=$TS_TMP/mnt$1 i
	dev=$(ts_emu_attach --size 96M --phys 4096 --rmw-cost 100us)
	parted -s "$dev" mklabel gpt mkpart p "${start}s" 80MiB 2>"$TS_TMP/parted.err" ||
		ts_fail "parted $dev failed: $(cat "$TS_TMP/parted.err")"
	ts_part_node "$dev" || ts_fail "${dev}p1 did not appear: $(cat "$TS_TMP/parted.err")"
	mkfs.ext4 -q -F -b 4096 -E nodiscard "${dev}p1" >/dev/null 2>&1 || ts_fail "mkfs.ext4 ${dev}p1 failed"
	ts_mount "${dev}p1" "$mnt"
	"$ALIGNPROBE" emulate --reset-stats "$dev"
	for i in 1 2 3 4 5 6; do
		dd if=/dev/urandom of="$mnt/f$i" bs=4k count=4 conv=fsync status=none ||
			ts_fail "write $mnt/f$i failed"
	done
	# counted once the file system is down: ext4's own threads (lazyinit,
	# the journal's commits) write on their own while it is mounted, and a
	# count read while they write mixes two moments
	umount "$mnt" || ts_fail "umount $mnt failed"
	counter "$dev" WRITES,RMW_WRITES,ALIGNED
}

read -r w34 r34 a34 <<< "$(run 34)"
read -r w40 r40 a40 <<< "$(run 40)"
ts_log "start 34: $w34 writes, $r34 with RMW; start 40: $w40 writes, $r40 with RMW"
[ "$w34" -ge 6 ] && [ "$w40" -ge 6 ] || ts_fail "too few writes reached the drive: $w34 / $w40"
ts_assert_eq "$w34" "$r34" "start 34: every write needs RMW"
ts_assert_eq 0 "$a34" "start 34: aligned writes"
ts_assert_eq 0 "$r40" "start 40: writes needing RMW"
ts_assert_eq "$w40" "$a40" "start 40: every write aligned"
ts_pass
