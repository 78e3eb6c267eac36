#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Inputs check must refuse instead of guessing: a lowest aligned LBA outside
# the physical sector (-p 4096 -l 8 used to mean 0, -l 15 7, -l 100 4) on
# images and on 512-byte and 4Kn loop devices (exit 2 with the allowed
# range); a partition named instead of its disk (exit 2, the partition and
# the whole disk named; -J: one document). Nothing is written.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "refused arguments: --lowest-aligned out of range, a partition instead of a disk"
ts_untimed "partition tables in files and on plain loop devices"
ts_need_loop
ts_need_cmd sfdisk sha256sum jq

img=$TS_TMP/disk.img
truncate -s 32M "$img"
printf 'label: gpt\nstart=2048,size=20480\n' |
	sfdisk -q --no-reread --no-tell-kernel "$img" >/dev/null || ts_fail "sfdisk"
dev=$(ts_loop_attach "$img")

# range RC PHYS LBA LOGICAL TARGET: -p PHYS -l LBA on TARGET
range() {
	local rc=$1 p=$2 l=$3 ls=$4 t=$5 max=$(( $2 / $4 - 1 ))
	ts_run_rc_ro "$rc" "$t" "$ALIGNPROBE" check -q -p "$p" -l "$l" "$t"
	[ "$rc" = 2 ] || return 0
	grep -qx "alignprobe check: --lowest-aligned $l: out of range: 0..$max for $p-byte physical sectors of $ls-byte logical sectors" \
		"$TS_TMP/err" || { cat "$TS_TMP/err" >&2; ts_fail "-p $p -l $l on $t: message"; }
	grep -q "^Try 'alignprobe check --help' for more information.$" "$TS_TMP/err" ||
		ts_fail "-p $p -l $l on $t: no usage hint"
}
for t in "$img" "$dev"; do
	range 2 4096 8 512 "$t"
	range 2 4096 15 512 "$t"
	range 2 4096 100 512 "$t"
	range 2 8192 16 512 "$t"
	range 4 4096 7 512 "$t"		# 2048 is not aligned when LBA 7 is
	range 0 4096 0 512 "$t"
	range 0 8192 0 512 "$t"
done
# 4Kn: one logical sector per 4 KiB, LBA 0 only; two per 8 KiB
img4=$TS_TMP/4kn.img
truncate -s 32M "$img4"
dev4=$(ts_loop_attach "$img4" -b 4096)
printf 'label: gpt\nstart=256,size=2048\n' |
	sfdisk -q --no-reread --no-tell-kernel "$dev4" >/dev/null || ts_fail "sfdisk on the 4Kn loop device"
range 2 4096 1 4096 "$dev4"
range 0 4096 0 4096 "$dev4"
range 2 8192 2 4096 "$dev4"
range 4 8192 1 4096 "$dev4"
ts_run_rc_ro 2 "$img4" "$ALIGNPROBE" check --sector-size 4096 -p 4096 -l 1 "$img4"
grep -q "out of range: 0..0 for 4096-byte physical sectors of 4096-byte logical sectors" "$TS_TMP/err" ||
	ts_fail "--sector-size 4096 -l 1"

# a partition of a loop device: named, with its disk
pdev=$(ts_loop_attach "$img")
ts_partprobe "$pdev"
part=${pdev}p1
ts_wait_node "$part" || ts_fail "no partition $part"
ts_run_rc_ro 2 "$part" "$ALIGNPROBE" check "$part"
grep -qx "alignprobe check: $part: a partition of $pdev, not a whole disk: the partition table and its alignment belong to the whole disk; check $pdev" \
	"$TS_TMP/err" || { cat "$TS_TMP/err" >&2; ts_fail "partition message"; }
[ -s "$TS_TMP/out" ] && ts_fail "a refused partition printed a table"
# -J: one document all the same, the device and its status (nothing on
# stdout on d7e4e2c)
ts_run_rc_ro 2 "$part" "$ALIGNPROBE" check -J "$part"
jq -e --arg p "$part" '. == {"device": $p, "exit_status": 2}' "$TS_TMP/out" >/dev/null ||
	ts_fail "a refused partition, -J: '$(cat "$TS_TMP/out")'"
ts_run_rc_ro 0 "$pdev" "$ALIGNPROBE" check -q "$pdev"
partx -d "$pdev" >/dev/null 2>&1
ts_pass
