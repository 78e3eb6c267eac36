#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Every level of a geometry is a rule (issue 33, item 5), and what check
# says to run next does what it says, run on loop devices this test made:
#   - a verdict with a 192 KiB stripe (a probe result's "levels") refuses a
#     partition at 2048 (1 MiB) and proposes 6144 (3 MiB, the first whole MiB
#     that is a whole stripe); --stripe 192K --chunk 64K by hand the same;
#     pvcreate --dataalignmentoffset puts the PV's extents on stripes where
#     the partition stands; sfdisk --move-data moves it to 6144, and check
#     then passes; mkfs.xfs -d su=64k,sw=3 and mkfs.ext4 -E
#     stride=16,stripe_width=48 make file systems with that geometry, and
#     pvcreate --dataalignment 192k puts the extents on stripes;
#   - an empty GPT label under a stripe: parted makes the partition at the
#     common multiple (6144), which check accepts;
#   - issue 31 item 5: a file system on the whole disk of a drive whose
#     lowest aligned LBA is 7 is misaligned (exit 4), and the steps are a
#     partition at 2055 and XFS on it, and pvcreate --dataalignmentoffset
#     3584b on the whole disk; none is a file system on the whole disk;
#   - issue 31 item 7: no mkfs.xfs for a partition under 300 MiB;
#   - issue 33 item 6: the loop device's claims (minimum_io 512, optimal_io
#     0) are contradicted by the verdict's chunk and stripe, and said so
#     (not for levels given by hand: no measurement).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "check: levels as rules, and their next steps run"
ts_untimed "partition tables in files and on plain loop devices"
ts_need_loop
ts_need_cmd jq python3 sfdisk parted mkfs.xfs xfs_info mkfs.ext4 dumpe2fs pvcreate pvs pvremove \
	partx wipefs

export LVM_SUPPRESS_FD_WARNINGS=1
A=$ALIGNPROBE


# verdict DEV FILE: a probe result for DEV: 4096-byte sectors, a 64 KiB
# chunk and a 192 KiB stripe (three data disks), all from LBA 0
verdict() {
	cat > "$2" <<EOF
{"device": "$1", "verdict": {"sensitive": true, "resolved": true, "logical_sector": 512,
 "reported_physical_sector": 512, "physical_sector": 4096, "period": 8,
 "lowest_aligned_lba": 0, "fast_starts": [0, 8], "slowdown": 5.0, "p_value": 0.0001,
 "confidence": 0.9999, "tentative": false,
 "levels": [
  {"kind": "sector", "unit": 4096, "lowest_aligned_lba": 0, "paid": "every_write", "ratio": 5.0},
  {"kind": "chunk", "unit": 65536, "lowest_aligned_lba": 0, "paid": "every_write", "ratio": null},
  {"kind": "stripe", "unit": 196608, "lowest_aligned_lba": 0, "paid": "every_write", "ratio": 2.6}],
 "ruled_out": null}}
EOF
}

# ---- a partition at 1 MiB under a 192 KiB stripe ----
ts_subtest stripe-refuses-2048
img=$TS_TMP/stripe.img
truncate -s 1G "$img"	# XFS wants 300 MB; room after the partition to move it
printf 'label: gpt\nstart=2048,size=700000\n' | sfdisk -q "$img" >/dev/null || ts_fail "sfdisk"
loop=$(ts_loop_attach "$img")
ts_part_node "$loop" || ts_fail "no partition node ${loop}p1"
verdict "$loop" "$TS_TMP/verdict.json"
ts_run_rc_ro 4 "$loop" "$A" check --geometry "$TS_TMP/verdict.json" "$loop"
grep -q "partition 1: start 2048 is aligned to the physical sector but not to the 196608-byte stripe (from LBA 0): 128 sectors past a boundary; first start aligned to every level 6144" \
	"$TS_TMP/err" || ts_fail "the refusal: $(cat "$TS_TMP/err")"
grep -q "Geometry in force: 4096-byte physical sectors (probed, lowest aligned LBA 0) and a 65536-byte chunk (from LBA 0) and a 196608-byte stripe (from LBA 0)" \
	"$TS_TMP/out" || ts_fail "the geometry in force: $(cat "$TS_TMP/out")"
# the loop device's claims against the verdict (issue 33, item 6)
grep -qxF "Contradicted: reports optimal_io 0; the stripe is 196608 bytes (what the device claims, against the verdict)" \
	"$TS_TMP/out" || ts_fail "optimal_io 0 not contradicted: $(cat "$TS_TMP/out")"
grep -qxF "Contradicted: reports minimum_io 512; the chunk is 65536 bytes (what the device claims, against the verdict)" \
	"$TS_TMP/out" || ts_fail "minimum_io 512 not contradicted"
# by hand: the same
ts_run_rc_ro 4 "$loop" "$A" check --physical 4096 --stripe 192K --chunk 64K -J "$loop"
cp "$TS_TMP/out" "$TS_TMP/hand.json"
ts_run_rc_ro 4 "$loop" "$A" check --geometry "$TS_TMP/verdict.json" -J "$loop"
cp "$TS_TMP/out" "$TS_TMP/stripe.json"
jq -e '.geometry.in_force.levels | map(.unit) == [4096, 65536, 196608]' "$TS_TMP/stripe.json" >/dev/null ||
	ts_fail "the levels in force: $(jq -c .geometry.in_force "$TS_TMP/stripe.json")"
jq -e '.claims.optimal_io == 0 and .claims.minimum_io == 512
	and (.claims.contradicted | index("reports optimal_io 0; the stripe is 196608 bytes") != null)' \
	"$TS_TMP/stripe.json" >/dev/null || ts_fail "the claims: $(jq -c .claims "$TS_TMP/stripe.json")"
jq -e '.claims.contradicted == []' "$TS_TMP/hand.json" >/dev/null ||
	ts_fail "claims contradicted by levels given by hand: $(jq -c .claims "$TS_TMP/hand.json")"
jq -e --arg p "${loop}p1" --arg d "$loop" '[.next_steps[].command] as $c
	| any($c[]; . == ["sfdisk", "--move-data", $d, "-N", "1"])
	and any($c[]; . == ["mkfs.xfs", "-s", "size=4096", "-d", "su=64k,sw=3,agcount=4", $p])
	and any($c[]; . == ["mkfs.ext4", "-b", "4096", "-E", "stride=16,stripe_width=48", $p])
	and any($c[]; . == ["pvcreate", "--dataalignment", "192k", $p])
	and any($c[]; . == ["pvcreate", "--dataalignment", "196608b", "--dataalignmentoffset", "131072b", $p])
	and ([.next_steps[] | select(.command[0] == "sfdisk") | .stdin] == ["6144,700000\n"])' \
	"$TS_TMP/stripe.json" >/dev/null || ts_fail "the steps: $(jq -c .next_steps "$TS_TMP/stripe.json")"
ts_assert_eq "$(jq -c .next_steps "$TS_TMP/stripe.json")" "$(jq -c .next_steps "$TS_TMP/hand.json")" \
	"the steps of --stripe 192K --chunk 64K and of the verdict"
ts_run_rc 2 "$A" check --physical 4096 --stripe 100K --chunk 64K "$loop"
grep -q "stripe 102400 is not a whole number of --chunk 65536" "$TS_TMP/err" ||
	ts_fail "a stripe that is no multiple of the chunk: $(cat "$TS_TMP/err")"
ts_run_rc 2 "$A" check --physical 4096 --stripe 1000 "$loop"
grep -q "invalid --stripe size: '1000'" "$TS_TMP/err" || ts_fail "--stripe 1000: $(cat "$TS_TMP/err")"

# where it stands: a PV whose extents start on stripes
ts_next_steps "$TS_TMP/stripe.json" pvcreate --dataalignmentoffset
pe=$(pvs --noheadings -o pe_start --units b --nosuffix "${loop}p1" | tr -d ' ')
[ -n "$pe" ] || ts_fail "pvs: no pe_start"
ts_assert_eq 0 $(((2048 * 512 + pe) % 196608)) "the PV's first extent from the disk's start, mod the stripe"
pvremove -q -y "${loop}p1" >/dev/null 2>&1 || ts_fail "pvremove"
wipefs -q -a "${loop}p1" || ts_fail "wipefs"

# the move, then the file systems and the volume on the moved partition
head -c $((4096 * 512)) /dev/urandom | dd of="$loop" bs=512 seek=2048 conv=notrunc,fsync status=none
sum=$(dd if="$loop" bs=512 skip=2048 count=4096 status=none | sha256sum)
ts_next_steps "$TS_TMP/stripe.json" sfdisk
ts_partprobe "$loop"
ts_part_node "$loop" || ts_fail "no partition node after the move"
ts_assert_eq "$sum" "$(dd if="$loop" bs=512 skip=6144 count=4096 status=none | sha256sum)" \
	"the data moved with the partition"
ts_run_rc_ro 0 "$loop" "$A" check --geometry "$TS_TMP/verdict.json" -J "$loop"
jq -e '[.partitions[].start] == [6144] and .next_steps == []' "$TS_TMP/out" >/dev/null ||
	ts_fail "after the move: $(jq -c '[.partitions[].start]' "$TS_TMP/out")"
ts_next_steps "$TS_TMP/stripe.json" mkfs.xfs
xfs_info "${loop}p1" > "$TS_TMP/xfs" || ts_fail "xfs_info"
grep -q "sectsz=4096" "$TS_TMP/xfs" || ts_fail "XFS sector size: $(cat "$TS_TMP/xfs")"
grep -qE "sunit=16 +swidth=48 blks" "$TS_TMP/xfs" || ts_fail "XFS stripe: $(cat "$TS_TMP/xfs")"
wipefs -q -a "${loop}p1" || ts_fail "wipefs"
ts_next_steps "$TS_TMP/stripe.json" mkfs.ext4
dumpe2fs -h "${loop}p1" 2>/dev/null > "$TS_TMP/ext4"
grep -qE "^RAID stride: +16$" "$TS_TMP/ext4" || ts_fail "ext4 stride: $(grep RAID "$TS_TMP/ext4")"
grep -qE "^RAID stripe width: +48$" "$TS_TMP/ext4" || ts_fail "ext4 stripe width"
wipefs -q -a "${loop}p1" || ts_fail "wipefs"
jq '.next_steps |= map(select(all(.command[]; . != "--dataalignmentoffset")))' \
	"$TS_TMP/stripe.json" > "$TS_TMP/pv.json"
ts_next_steps "$TS_TMP/pv.json" pvcreate
pe=$(pvs --noheadings -o pe_start --units b --nosuffix "${loop}p1" | tr -d ' ')
ts_assert_eq 0 $(((6144 * 512 + pe) % 196608)) "the moved PV's first extent, mod the stripe"
pvremove -q -y "${loop}p1" >/dev/null 2>&1 || ts_fail "pvremove"

# ---- an empty label under a stripe: parted at the common multiple ----
ts_subtest stripe-parted-start
pimg=$TS_TMP/parted.img
truncate -s 64M "$pimg"
ploop=$(ts_loop_attach "$pimg")
parted -s "$ploop" mklabel gpt || ts_fail "parted mklabel"
verdict "$ploop" "$TS_TMP/pverdict.json"
ts_run_rc_ro 0 "$ploop" "$A" check --geometry "$TS_TMP/pverdict.json" -J "$ploop"
cp "$TS_TMP/out" "$TS_TMP/parted.json"
jq -e --arg d "$ploop" '.next_steps[0].command == ["parted", "-s", "-a", "none", $d, "unit", "s",
	"mkpart", "primary", "6144s", "100%"]' "$TS_TMP/parted.json" >/dev/null ||
	ts_fail "the parted step: $(jq -c .next_steps "$TS_TMP/parted.json")"
# 64 MiB: too small for XFS, which mkfs.xfs refuses (issue 31, item 7)
jq -e 'all(.next_steps[]; .command[0] != "mkfs.xfs")' "$TS_TMP/parted.json" >/dev/null ||
	ts_fail "mkfs.xfs for a partition under 300 MiB"
ts_next_steps "$TS_TMP/parted.json" parted
ts_assert_eq 6144 "$(parted -s "$ploop" unit s print | awk '$1 == 1 { sub(/s$/, "", $2); print $2 }')" \
	"the start parted made"
ts_run_rc_ro 0 "$ploop" "$A" check --geometry "$TS_TMP/pverdict.json" -J "$ploop"
jq -e '[.partitions[].start] == [6144] and [.partitions[].aligned] == [true]' "$TS_TMP/out" >/dev/null ||
	ts_fail "check after parted: $(jq -c .partitions "$TS_TMP/out")"

# ---- issue 31, item 5: a whole-disk file system on a drive aligned at LBA 7 ----
ts_subtest lba7-whole-disk
wimg=$TS_TMP/whole.img
truncate -s 700M "$wimg"
wloop=$(ts_loop_attach "$wimg")
mkfs.xfs -q "$wloop" || ts_fail "mkfs.xfs on the whole disk"
ts_run_rc_ro 4 "$wloop" "$A" check --physical 4096 --lowest-aligned 7 "$wloop"
grep -q "no partition table: xfs (filesystem) on the whole disk starts at byte 0, which is not aligned to 4096-byte physical sectors (given, lowest aligned LBA 7); the first aligned LBA is 7" \
	"$TS_TMP/err" || ts_fail "the whole disk passed: $(cat "$TS_TMP/err")"
grep -q "aligned under every geometry" "$TS_TMP/err" && ts_fail "still 'aligned under every geometry'"
ts_run_rc_ro 4 "$wloop" "$A" check --physical 4096 --lowest-aligned 7 -J "$wloop"
cp "$TS_TMP/out" "$TS_TMP/whole.json"
jq -e --arg d "$wloop" --arg p "${wloop}p1" '[.next_steps[].command] as $c
	| $c[0] == ["parted", "-s", "-a", "none", $d, "unit", "s", "mkpart", "primary", "2055s", "100%"]
	and any($c[]; . == ["pvcreate", "--dataalignment", "4k", "--dataalignmentoffset", "3584b", $d])
	and any($c[]; . == ["mkfs.xfs", "-s", "size=4096", $p])
	and all($c[]; (.[0] == "parted" or .[0] == "pvcreate" and any(.[]; . == "--dataalignmentoffset"))
		or .[-1] != $d)' "$TS_TMP/whole.json" >/dev/null ||
	ts_fail "the whole disk's steps: $(jq -c .next_steps "$TS_TMP/whole.json")"
# the offset PV on the whole disk: extents on the drive's 4096-byte sectors from LBA 7
wipefs -q -a "$wloop" || ts_fail "wipefs"
ts_next_steps "$TS_TMP/whole.json" pvcreate --dataalignmentoffset
pe=$(pvs --noheadings -o pe_start --units b --nosuffix "$wloop" | tr -d ' ')
[ -n "$pe" ] || ts_fail "pvs: no pe_start"
ts_assert_eq 0 $(((pe - 7 * 512) % 4096)) "the whole disk's PV extents, from LBA 7, mod 4096"
pvremove -q -y "$wloop" >/dev/null 2>&1 || ts_fail "pvremove"
wipefs -q -a "$wloop" || ts_fail "wipefs"
# a partition at 2055 and XFS on it
parted -s "$wloop" mklabel gpt || ts_fail "parted mklabel"
ts_next_steps "$TS_TMP/whole.json" parted
ts_part_node "$wloop" || ts_fail "no partition node ${wloop}p1"
ts_next_steps "$TS_TMP/whole.json" mkfs.xfs
grep -q "sectsz=4096" <(xfs_info "${wloop}p1") || ts_fail "XFS on the partition"
ts_run_rc_ro 0 "$wloop" "$A" check --physical 4096 --lowest-aligned 7 -J "$wloop"
jq -e '[.partitions[].start] == [2055]' "$TS_TMP/out" >/dev/null ||
	ts_fail "the partition parted made: $(jq -c .partitions "$TS_TMP/out")"

ts_pass
