#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The emulated drive counts a read-modify-write for a 4 KiB O_DIRECT|O_DSYNC
# write at a partition start of 34 and none at 40 (4096 hidden); with the
# lowest aligned LBA 7 the aligned starts move to 39 and 47; with 512 no
# write ever costs extra. Counters, not timing.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "read-modify-write counters at partition starts"
ts_alone "it counts every request its drives get: beside other tests (ASan, make -j4) one saw 2 reads that none of its commands made"
ts_need_emulator
ts_need_cmd parted dd

# stat DEV COLUMN: one counter of the emulated drive
counter() {
	"$ALIGNPROBE" emulate --stats "$1" -n -r -o "$2" || ts_fail "emulate --stats $1 failed"
}

# write4k DEV: one 4 KiB O_DIRECT|O_DSYNC write at the start of DEV
write4k() {
	dd if=/dev/urandom of="$1" bs=4096 count=1 oflag=direct,dsync status=none ||
		ts_fail "4 KiB write to $1 failed"
}

# part_node DEV: DEVp1, which parted has just written
part_node() {
	ts_part_node "$1" || ts_fail "${1}p1 did not appear: $(cat "$TS_TMP/parted.err")"
}

# check PHYS LBA START RMW_WRITES RMW: partition at START, one write
check() {
	local phys=$1 lba=$2 start=$3 want_writes=$4 want_rmw=$5 dev
	dev=$(ts_emu_attach --size 64M --phys "$phys" --lowest-aligned "$lba" --rmw-cost 200us)
	parted -s "$dev" mklabel gpt mkpart p "${start}s" 32MiB 2>"$TS_TMP/parted.err" ||
		ts_fail "parted $dev at ${start}s failed: $(cat "$TS_TMP/parted.err")"
	part_node "$dev"
	"$ALIGNPROBE" emulate --reset-stats "$dev" || ts_fail "reset-stats failed"
	write4k "${dev}p1"
	ts_assert_eq 1 "$(counter "$dev" WRITES)" "phys $phys lba $lba start $start: writes"
	ts_assert_eq "$want_writes" "$(counter "$dev" RMW_WRITES)" "phys $phys lba $lba start $start: rmw-writes"
	ts_assert_eq "$want_rmw" "$(counter "$dev" RMW)" "phys $phys lba $lba start $start: partial sectors"
	ts_assert_eq $((1 - want_writes)) "$(counter "$dev" ALIGNED)" "phys $phys lba $lba start $start: aligned"
	ts_assert_eq 0 "$(counter "$dev" READS)" "phys $phys lba $lba start $start: reads"
	"$ALIGNPROBE" emulate --detach "$dev" || ts_fail "detach $dev failed"
	sed -i "\|^$dev\$|d" "$TS_TMP/.emus"
}

check 4096 0 34 1 2
check 4096 0 40 0 0
check 4096 7 34 1 2
check 4096 7 40 1 2
check 4096 7 39 0 0
check 4096 7 47 0 0
check 512 0 34 0 0
check 512 0 35 0 0

# on the whole device: the loop reports 512/512 (the lie), every LBA costs
# what the hidden geometry says; one drive, several writes
dev=$(ts_emu_attach --size 16M --phys 8192 --rmw-cost 200us)
name=${dev#/dev/}
ts_assert_eq 512 "$(cat /sys/block/$name/queue/logical_block_size)" "logical sector"
ts_assert_eq 512 "$(cat /sys/block/$name/queue/physical_block_size)" "reported physical sector"
ts_assert_eq "write through" "$(cat /sys/block/$name/queue/write_cache)" "cache off: write through"
# the attach's own requests (partition scan) are not counted
for c in READS WRITES FLUSHES ERRORS BUSY_NS; do
	ts_assert_eq 0 "$(counter "$dev" $c)" "$c right after attach"
done
"$ALIGNPROBE" emulate --reset-stats "$dev"
for off in 0 4096 8192 12288 16384 20480; do
	dd if=/dev/zero of="$dev" bs=4096 count=1 seek=$off oflag=direct,dsync,seek_bytes status=none ||
		ts_fail "write at $off failed"
done
dd if=/dev/zero of="$dev" bs=8192 count=1 seek=24576 oflag=direct,seek_bytes status=none
dd if=/dev/zero of="$dev" bs=8192 count=1 seek=36864 oflag=direct,seek_bytes status=none
dd if="$dev" of=/dev/null bs=4096 count=2 iflag=direct status=none
ts_assert_eq 8 "$(counter "$dev" WRITES)" "8192: writes"
ts_assert_eq 7 "$(counter "$dev" RMW_WRITES)" "8192: rmw writes"
ts_assert_eq 8 "$(counter "$dev" RMW)" "8192: partial sectors"
ts_assert_eq 1 "$(counter "$dev" ALIGNED)" "8192: aligned writes"
ts_assert_eq 2 "$(counter "$dev" READS)" "8192: reads"
ts_assert_eq 0 "$(counter "$dev" FLUSHES)" "write cache off: no flushes"
# JSON keys are the lower-case column names
"$ALIGNPROBE" emulate --stats "$dev" -J -o RMW_WRITES,RMW > "$TS_TMP/stats.json"
grep -q '"rmw_writes": 7' "$TS_TMP/stats.json" || ts_fail "JSON: $(cat "$TS_TMP/stats.json")"

# write cache on: the device says "write back", O_DSYNC brings flushes, and
# the flushes pay the deferred read-modify-writes (time charged, exactly)
dev=$(ts_emu_attach --size 16M --rmw-cost 200us --flush-cost 100us --write-cache)
ts_assert_eq "write back" "$(cat /sys/block/${dev#/dev/}/queue/write_cache)" "cache on: write back"
dd if=/dev/zero of="$dev" bs=4096 count=1 seek=$((34 * 512)) oflag=direct,dsync,seek_bytes status=none ||
	ts_fail "write with cache failed"
flushes=$(counter "$dev" FLUSHES)
[ "$flushes" -ge 1 ] || ts_fail "cache on: an O_DSYNC write brought no flush"
ts_assert_eq 2 "$(counter "$dev" RMW)" "cache on: partial sectors"
ts_assert_eq $((400000 + flushes * 100000)) "$(counter "$dev" BUSY_NS)" "cache on: time charged"
ts_pass
