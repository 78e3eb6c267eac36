#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Partition tables written for another logical sector size (a disk
# partitioned behind a USB bridge that presents 4096-byte sectors, read on
# SATA with 512, and the reverse). GPT and MBR written through a loop device
# attached with -b 4096 and checked with 512-byte sectors (as an image file
# and on a 512-byte loop device), and written with 512-byte sectors and
# checked with 4096 (--sector-size 4096 on the image, a loop device attached
# with -b 4096): exit 7, what was found, for which sector size the table was
# written, the likely cause and what to do. Read with the right size, the
# same tables pass. An MBR with a file system where 4096-byte sectors put the
# partition (libblkid), one with logical partitions (an EBR), and a
# 512-byte table whose partition at 256 holds a file system (not foreign).
# Every run leaves the image or device unchanged.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "tables written for another logical sector size"
ts_untimed "partition tables in files and on plain loop devices"
ts_need_loop
ts_need_cmd parted sfdisk jq sha256sum mke2fs blockdev

# written_with SS IMAGE LABEL START END: a table made by parted on a loop
# device of IMAGE with SS-byte logical sectors
written_with() {
	local ss=$1 img=$2 label=$3 dev
	rm -f "$img"
	truncate -s 32M "$img"
	if [ "$ss" = 512 ]; then
		parted -s "$img" mklabel "$label" mkpart primary "$4" "$5" >/dev/null 2>&1 ||
			ts_fail "parted $label on $img"
		return
	fi
	dev=$(ts_loop_attach "$img" -b "$ss")
	parted -s "$dev" mklabel "$label" mkpart primary "$4" "$5" >/dev/null 2>&1 ||
		ts_fail "parted $label on $dev (-b $ss)"
	blockdev --flushbufs "$dev" || ts_fail "flush $dev"
}

# foreign RC TARGET WRITTEN READ LABEL EVIDENCE [check options]: the table on
# TARGET is for WRITTEN-byte sectors and read with READ
foreign() {
	local target=$1 w=$2 r=$3 label=$4 ev=$5 name
	shift 5
	name=GPT
	[ "$label" = dos ] && name="MBR (dos)"
	ts_run_rc_ro 7 "$target" "$ALIGNPROBE" check "$@" "$target"
	grep -qF "alignprobe check: $target: the $name partition table was written for $w-byte logical sectors, not for the $r-byte sectors it is read with here" \
		"$TS_TMP/err" || { cat "$TS_TMP/err" >&2; ts_fail "$target: what was found"; }
	grep -qF "alignprobe check: $target: found: $ev" "$TS_TMP/err" ||
		{ cat "$TS_TMP/err" >&2; ts_fail "$target: evidence '$ev'"; }
	grep -q "alignprobe check: $target: likely cause: .*$w-byte logical sectors" "$TS_TMP/err" ||
		ts_fail "$target: no likely cause"
	if [ -b "$target" ]; then
		grep -qF "alignprobe check: $target: what to do: read it as written with losetup --read-only --sector-size $w --partscan --find --show $target" \
			"$TS_TMP/err" || ts_fail "$target: what to do"
		[ "$w" -gt "$r" ] && { grep -q "likely cause: .*USB bridge" "$TS_TMP/err" ||
			ts_fail "$target: the USB bridge is not named"; }
	else
		grep -qF "alignprobe check: $target: what to do: read it as written with alignprobe check --sector-size $w $target, or losetup --sector-size $w --partscan --find --show $target; or re-create the table for $r-byte sectors" \
			"$TS_TMP/err" || ts_fail "$target: what to do"
	fi
	ts_run_rc_ro 7 "$target" "$ALIGNPROBE" check -J "$@" "$target"
	jq -e --argjson w "$w" --argjson r "$r" --arg l "$label" --arg ev "$ev" '
		.foreign_sector_size.written_for == $w and .foreign_sector_size.read_with == $r
		and .foreign_sector_size.label == $l
		and (.foreign_sector_size.evidence | any(startswith($ev)))
		and (.foreign_sector_size.likely_cause | type == "string")
		and (.foreign_sector_size.remedy | test("re-create the table"))
		and (.issues | map(select(.kind == "foreign_sector_size" and .severity == "error")) | length == 1)
		and .aligned == false and ([.partitions[].aligned] | all(. == null))' \
		"$TS_TMP/out" >/dev/null || { cat "$TS_TMP/out" >&2; ts_fail "$target: JSON"; }
	ts_run_rc_ro 7 "$target" "$ALIGNPROBE" check -q "$@" "$target"
}

# ---- written with 4096-byte sectors, read with 512 ----
ts_subtest written-4096-read-512

# the issue's MBR: 1 MiB..20 MiB through a 4Kn device, read as 128 KiB..2.5 MiB
m4k=$TS_TMP/m4k.img
written_with 4096 "$m4k" msdos 1MiB 20MiB
foreign "$m4k" 4096 512 dos "partition 1 starts at sector 256: at 1 MiB in 4096-byte sectors, where partitioning tools put the first partition (at 128K in 512-byte ones)"
dev=$(ts_loop_attach "$m4k")
foreign "$dev" 4096 512 dos "partition 1 starts at sector 256: at 1 MiB in 4096-byte sectors"
# read as written: a good table at 1 MiB
ts_run_rc_ro 0 "$m4k" "$ALIGNPROBE" check -r -n -o NR,START,SECTORS --sector-size 4096 "$m4k"
ts_assert_eq "1 256 4864" "$(cat "$TS_TMP/out")" "the MBR read with 4096-byte sectors"
dev4=$(ts_loop_attach "$m4k" -b 4096)
ts_run_rc_ro 0 "$dev4" "$ALIGNPROBE" check -q "$dev4"

g4k=$TS_TMP/g4k.img
written_with 4096 "$g4k" gpt 1MiB 20MiB
foreign "$g4k" 4096 512 gpt "a GPT header at byte 4096, LBA 1 of 4096-byte sectors, valid, with its backup on the last 4096-byte sector of this disk"
dev=$(ts_loop_attach "$g4k")
foreign "$dev" 4096 512 gpt "the protective MBR covers the disk in 4096-byte sectors (8191 of them after the MBR)"
ts_run_rc_ro 0 "$g4k" "$ALIGNPROBE" check -q --sector-size 4096 "$g4k"
# libfdisk says "... will be corrected by write": not for a read-only check
ts_run_rc_ro 7 "$g4k" "$ALIGNPROBE" check -J "$g4k"
jq -e '(.libfdisk_messages | length > 0) and
	(.libfdisk_messages | all(test("corrected by write") | not))' "$TS_TMP/out" >/dev/null ||
	ts_fail "libfdisk's write-oriented wording passed on: $(jq -c .libfdisk_messages "$TS_TMP/out")"
ts_run_rc_ro 7 "$g4k" "$ALIGNPROBE" check -v "$g4k"
grep -q "corrected by write" "$TS_TMP/err" && ts_fail "check -v: $(grep 'corrected by write' "$TS_TMP/err")"

# a file system where 4096-byte sectors put the partition (at 2 MiB), none
# where 512-byte ones do (at 256 KiB)
fs4k=$TS_TMP/fs4k.img
written_with 4096 "$fs4k" msdos 2MiB 20MiB
mke2fs -q -t ext4 -F -E offset=$(( 2 * 1024 * 1024 )) "$fs4k" 18M || ts_fail "mke2fs at 2 MiB"
foreign "$fs4k" 4096 512 dos "libblkid finds ext4 at byte 2097152, where partition 1 starts in 4096-byte sectors (nothing at byte 262144, where it starts in 512-byte ones)"

# logical partitions: the EBR lies where 4096-byte sectors put the extended partition
ebr=$TS_TMP/ebr4k.img
rm -f "$ebr"
truncate -s 32M "$ebr"
dev=$(ts_loop_attach "$ebr" -b 4096)
printf 'label: dos\nstart=512,size=1024\ntype=5,start=2048,size=4096\nstart=2304,size=1024\n' |
	sfdisk -q --no-reread --no-tell-kernel "$dev" >/dev/null || ts_fail "sfdisk with logicals (-b 4096)"
blockdev --flushbufs "$dev" || ts_fail "flush $dev"
foreign "$ebr" 4096 512 dos "an EBR (the table of the logical partitions) at byte 8388608, where extended partition 2 starts in 4096-byte sectors (none at byte 1048576, where it starts in 512-byte ones)"
ts_run_rc_ro 0 "$ebr" "$ALIGNPROBE" check -r -n -o NR,START --sector-size 4096 "$ebr"
ts_assert_eq "1 512
2 2048
5 2304" "$(cat "$TS_TMP/out")" "the logical partition read with 4096-byte sectors"

# ---- written with 512-byte sectors, read with 4096 ----
ts_subtest written-512-read-4096

m512=$TS_TMP/m512.img
written_with 512 "$m512" msdos 1MiB 20MiB
foreign "$m512" 512 4096 dos "partition 1 (sectors 2048-40959) ends past the end of the disk in 4096-byte sectors, but every partition lies inside it in 512-byte ones" --sector-size 4096
# the foreign sector size explains the partition past the end: no truncation claimed
ts_run_rc_ro 7 "$m512" "$ALIGNPROBE" check --sector-size 4096 "$m512"
grep -q "truncated\|shrank" "$TS_TMP/err" && ts_fail "a truncation claimed besides the foreign sector size: $(grep 'truncated\|shrank' "$TS_TMP/err")"
ts_run_rc_ro 7 "$m512" "$ALIGNPROBE" check -J --sector-size 4096 "$m512"
jq -e '[.issues[] | select(.kind == "past_end")] | length == 0' "$TS_TMP/out" >/dev/null ||
	ts_fail "-J: a past_end issue besides the foreign sector size"
dev4=$(ts_loop_attach "$m512" -b 4096)
foreign "$dev4" 512 4096 dos "partition 1 starts at sector 2048: at 1 MiB in 512-byte sectors, where partitioning tools put the first partition (at 8M in 4096-byte ones)"
grep -q "likely cause: the table was written with the disk attached directly (512-byte logical sectors); here a USB bridge" \
	"$TS_TMP/err" || ts_fail "the reverse cause"
ts_run_rc_ro 0 "$m512" "$ALIGNPROBE" check -q "$m512"

g512=$TS_TMP/g512.img
written_with 512 "$g512" gpt 1MiB 20MiB
foreign "$g512" 512 4096 gpt "a GPT header at byte 512, LBA 1 of 512-byte sectors, valid, with its backup on the last 512-byte sector of this disk" --sector-size 4096
dev4=$(ts_loop_attach "$g512" -b 4096)
foreign "$dev4" 512 4096 gpt "a GPT header at byte 512, LBA 1 of 512-byte sectors"
ts_run_rc_ro 0 "$g512" "$ALIGNPROBE" check -q "$g512"

# ---- not foreign: a 512-byte table whose partition at 256 holds a file system ----
ts_subtest not-foreign-fs-at-256
fs512=$TS_TMP/fs512.img
rm -f "$fs512"
truncate -s 32M "$fs512"
printf 'label: dos\nstart=256,size=40704\n' |
	sfdisk -q --no-reread --no-tell-kernel "$fs512" >/dev/null || ts_fail "sfdisk at 256"
ts_run_rc_ro 7 "$fs512" "$ALIGNPROBE" check -q "$fs512"	# nothing in it: looks like 1 MiB in 4096
mke2fs -q -t ext4 -F -E offset=$(( 256 * 512 )) "$fs512" 16M || ts_fail "mke2fs at 128 KiB"
ts_run_rc_ro 0 "$fs512" "$ALIGNPROBE" check "$fs512"
[ -s "$TS_TMP/err" ] && ts_fail "a table read right drew a message: $(cat "$TS_TMP/err")"
ts_pass
