#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check on loop devices this test attaches: the kernel's topology is read,
# the drive does not answer (not available, no error), the kernel's report of
# 512-byte physical sectors proves nothing (4 KiB decides unless
# --trust-reported), a 4Kn loop device (--sector-size 4096) is checked in
# 4096-byte sectors as reported, and nothing is written.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "loop devices: 512 and 4096-byte sectors"
ts_untimed "partition tables in files and on plain loop devices"
ts_need_loop
ts_need_cmd sfdisk jq

img=$TS_TMP/disk.img
truncate -s 64M "$img"
printf 'label: gpt\nstart=2048,size=20480\nstart=22529,size=20480\n' |
	sfdisk -q --no-reread --no-tell-kernel "$img" >/dev/null || ts_fail "sfdisk"
sum=$(ts_checksum "$img")
dev=$(ts_loop_attach "$img" -r)

ts_run_rc 4 "$ALIGNPROBE" check "$dev"
grep -q "^Disk $dev: 64M, 131072 sectors of 512 bytes, block device$" "$TS_TMP/out" || ts_fail "disk line"
grep -qE "^physical sector +512 +- *$" "$TS_TMP/out" || ts_fail "kernel physical sector"
grep -q "^drive: not available (ATA IDENTIFY: no answer; SCSI READ CAPACITY(16): no answer; NVMe Identify: no answer)$" \
	"$TS_TMP/out" || ts_fail "drive not reported as not available"
grep -q "Geometry in force: 4 KiB (the minimum for an unprobed report, lowest aligned LBA 0)" "$TS_TMP/out" ||
	ts_fail "the 4 KiB minimum not in force"
grep -q "^Rule: minimum_4k: the drive reports 512-byte physical sectors, which 512e drives also report; not probed: requiring 4 KiB$" \
	"$TS_TMP/out" || ts_fail "rule line"
grep -q "partition 2: start 22529 is not aligned to 4 KiB" "$TS_TMP/err" || ts_fail "22529 not flagged"
ts_run_rc 0 "$ALIGNPROBE" check --trust-reported "$dev"
grep -q "Geometry in force: 512-byte physical sectors (reported, lowest aligned LBA 0)" "$TS_TMP/out" ||
	ts_fail "reported geometry not in force with --trust-reported"

ts_run_rc 4 "$ALIGNPROBE" check -J -p 4096 "$dev"
jq -e --arg d "$dev" '.device == $d and .type == "block" and .logical_sector == 512
	and .topology.kernel.available == true and .topology.kernel.logical_sector == 512
	and .topology.kernel.physical_sector == 512 and .topology.kernel.alignment_offset == 0
	and .topology.kernel.minimum_io == 512
	and (.topology.kernel.write_cache == "write back" or .topology.kernel.write_cache == "write through")
	and .topology.drive.available == false and .topology.drive.write_cache == null
	and .geometry.in_force.source == "given"
	and ([.partitions[].aligned] == [true, false])' "$TS_TMP/out" >/dev/null ||
	{ cat "$TS_TMP/out" >&2; ts_fail "JSON of a loop device"; }
ts_run_rc 2 "$ALIGNPROBE" check --sector-size 4096 "$dev"
grep -q "a block device with 512-byte sectors; --sector-size applies to image files" "$TS_TMP/err" ||
	ts_fail "--sector-size on a block device"
ts_assert_eq "$sum" "$(ts_checksum "$img")" "the image behind the loop device changed"

# 4Kn: a loop device with 4096-byte logical sectors, partitioned by this test
img4=$TS_TMP/disk4k.img
truncate -s 64M "$img4"
dev4=$(ts_loop_attach "$img4" -b 4096)
printf 'label: gpt\nstart=256,size=4096\nstart=4353,size=4096\n' |
	sfdisk -q --no-reread --no-tell-kernel "$dev4" >/dev/null || ts_fail "sfdisk on the 4Kn loop device"
sync
sum=$(ts_checksum "$img4")
ts_run_rc 0 "$ALIGNPROBE" check -r -n -o NR,START,ALIGN_REPORTED,ALIGN_1M,ALIGNED "$dev4"
ts_assert_eq "1 256 yes yes yes
2 4353 yes no yes" "$(cat "$TS_TMP/out")" "4Kn loop device"
ts_run_rc 0 "$ALIGNPROBE" check -J "$dev4"
jq -e '.logical_sector == 4096 and .sectors == 16384 and .topology.kernel.logical_sector == 4096
	and .topology.kernel.physical_sector == 4096 and .geometry.in_force.physical_sector == 4096
	and .rule.name == "as_reported" and .foreign_sector_size == null' \
	"$TS_TMP/out" >/dev/null || ts_fail "4Kn topology"
# the backing file read as a 4Kn image gives the same table
ts_run_rc 0 "$ALIGNPROBE" check -r -n -o NR,START --sector-size 4096 "$img4"
ts_assert_eq "1 256
2 4353" "$(cat "$TS_TMP/out")" "the 4Kn image file with --sector-size 4096"
# 8 KiB physical sectors given by hand, in 4096-byte LBAs: 4353 is odd
ts_run_rc 4 "$ALIGNPROBE" check -r -n -o NR,ALIGNED --physical 8K "$dev4"
ts_assert_eq "1 yes
2 no" "$(cat "$TS_TMP/out")" "--physical 8K on 4Kn"
ts_assert_eq "$sum" "$(ts_checksum "$img4")" "check wrote to the 4Kn loop device"
ts_pass
