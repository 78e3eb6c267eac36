#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What to run next, run: check's next_steps for misaligned partitions and
# probe's for a verdict are executed as they stand (argv and stdin from the
# JSON) on images and loop devices this test made. sfdisk --move-data moves
# a partition with no room after it back and one with room forward, every
# byte of both kept, and check then passes; pvcreate with the data
# alignment offset makes a PV on a misaligned partition whose extents start
# on a 4 KiB boundary; mkfs.xfs -s size=4096 makes 4096-byte XFS sectors;
# the parted step after probe's verdict (4096-byte sectors from LBA 7)
# makes a partition that check with the probe's verdict accepts; probe
# --emulate names no device in its steps (the drive is detached at exit:
# DEVICE, and why). zpool is not in Debian main: its command is checked,
# not run.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "the next steps of check and probe, run on loop devices"
ts_need_emulator
ts_need_cmd jq python3 sfdisk parted mkfs.xfs xfs_db pvcreate pvs partx wipefs

export LVM_SUPPRESS_FD_WARNINGS=1
A=$ALIGNPROBE

# part_sum IMG START SECTORS: the checksum of a partition's bytes
part_sum() {
	dd if="$1" bs=512 skip="$2" count="$3" status=none | sha256sum | cut -d' ' -f1
}

# ---- sfdisk --move-data: back (no room after it, a MiB free before it) and forward ----
ts_subtest sfdisk-move-data
img=$TS_TMP/move.img
truncate -s 64M "$img"
printf 'label: gpt\nstart=4097,size=20480\nstart=24583,size=20480\n' |
	sfdisk -q "$img" >/dev/null || ts_fail "sfdisk"
head -c $((20480 * 512)) /dev/urandom | dd of="$img" bs=512 seek=4097 conv=notrunc status=none
head -c $((20480 * 512)) /dev/urandom | dd of="$img" bs=512 seek=24583 conv=notrunc status=none
s1=$(part_sum "$img" 4097 20480)
s2=$(part_sum "$img" 24583 20480)
ts_run_rc 4 "$A" check -J "$img"
cp "$TS_TMP/out" "$TS_TMP/move.json"
jq -e '[.next_steps[] | select(.command[0] == "sfdisk")] | length == 2
	and .[0].command == ["sfdisk", "--move-data", $img, "-N", "1"] and .[0].stdin == "4096,20480\n"
	and .[0].partition == 1 and .[0].rewrites
	and .[1].stdin == "24584,20480\n"' --arg img "$img" "$TS_TMP/move.json" >/dev/null ||
	ts_fail "the sfdisk steps: $(jq -c .next_steps "$TS_TMP/move.json")"
ts_run_rc 4 "$A" check "$img"
grep -qxF "  printf '4096,20480\\n' | sfdisk --move-data $img -N 1" "$TS_TMP/out" ||
	ts_fail "the text: $(cat "$TS_TMP/out")"
ts_next_steps "$TS_TMP/move.json" sfdisk
ts_run_rc 0 "$A" check -J "$img"
jq -e '[.partitions[].start] == [4096, 24584] and .next_steps == []' "$TS_TMP/out" >/dev/null ||
	ts_fail "after the moves: $(jq -c '[.partitions[].start]' "$TS_TMP/out")"
ts_assert_eq "$s1" "$(part_sum "$img" 4096 20480)" "partition 1's data after the move"
ts_assert_eq "$s2" "$(part_sum "$img" 24584 20480)" "partition 2's data after the move"

# ---- a loop device: pvcreate in place, mkfs.xfs, zpool ----
ts_subtest loop-device-steps
limg=$TS_TMP/lvm.img
truncate -s 400M "$limg"	# XFS wants 300 MB
printf 'label: gpt\nstart=2049,size=700000\n' | sfdisk -q "$limg" >/dev/null || ts_fail "sfdisk"
loop=$(ts_loop_attach "$limg")
ts_part_node "$loop" || ts_fail "no partition node ${loop}p1"
ts_run_rc_ro 4 "$loop" "$A" check -J "$loop"
cp "$TS_TMP/out" "$TS_TMP/lvm.json"
jq -e --arg p "${loop}p1" '[.next_steps[].command]
	| any(.[]; . == ["zpool", "create", "-o", "ashift=12", "POOL", $p])
	and any(.[]; . == ["mkfs.xfs", "-s", "size=4096", $p])
	and any(.[]; . == ["pvcreate", "--dataalignment", "4096b", "--dataalignmentoffset", "3584b", $p])' \
	"$TS_TMP/lvm.json" >/dev/null || ts_fail "the loop device's steps: $(jq -c .next_steps "$TS_TMP/lvm.json")"
ts_log "zpool: not in Debian main, its step is checked, not run"
ts_next_steps "$TS_TMP/lvm.json" mkfs.xfs
ts_assert_eq 4096 "$(xfs_db -r -c 'sb 0' -c 'p sectsize' "${loop}p1" | awk '{ print $3 }')" \
	"the XFS sector size"
wipefs -q -a "${loop}p1" || ts_fail "wipefs"
# LVM reads the label of every block device it may see: other tests'
# drives, counting their reads, and disks nobody here attached. Its own
# configuration lets it see this partition only (a name filter, no I/O).
# Its debug log names every device it opens: the partition, and nothing
# else (a bystander's read counter also counted other tests' blkid scans)
mkdir "$TS_TMP/lvm" || ts_fail "mkdir $TS_TMP/lvm"
cat > "$TS_TMP/lvm/lvm.conf" <<EOF
devices {
	filter = [ "a|^${loop}p1\$|", "r|.*|" ]
	global_filter = [ "a|^${loop}p1\$|", "r|.*|" ]
	use_devicesfile = 0
	obtain_device_list_from_udev = 0
}
log {
	file = "$TS_TMP/lvm/lvm.log"
	level = 7
}
EOF
export LVM_SYSTEM_DIR=$TS_TMP/lvm
jq '.next_steps |= map(select(any(.command[]; . == "--dataalignmentoffset")))' \
	"$TS_TMP/lvm.json" > "$TS_TMP/pv.json"
ts_next_steps "$TS_TMP/pv.json" pvcreate
pe=$(pvs --noheadings -o pe_start --units b --nosuffix "${loop}p1" | tr -d ' ')
[ -n "$pe" ] || ts_fail "pvs: no pe_start"
ts_assert_eq 0 $(((2049 * 512 + pe) % 4096)) "the PV's first extent, from the start of the disk, mod 4096"
pvremove -q -y "${loop}p1" >/dev/null 2>&1 || ts_fail "pvremove"
unset LVM_SYSTEM_DIR
opened=$(sed -nE 's,.* (open|Opened) (/dev/[^ ]*).*,\2,p' "$TS_TMP/lvm/lvm.log" | sort -u)
ts_assert_eq "${loop}p1" "$opened" "the devices LVM opened (its debug log)"

# ---- after probe's verdict: the parted step ----
ts_subtest parted-step-after-probe
dev=$(ts_emu_attach --phys 4096 --lowest-aligned 7 --rmw-cost 1ms --size 64M)
ts_run_rc 0 "$A" probe --yes -q -J --time-budget 120s --max-size 16K "$dev"
cp "$TS_TMP/out" "$TS_TMP/probe.json"
jq -e --arg d "$dev" '.next_steps[0].command == ["parted", "-s", "-a", "none", $d, "unit", "s",
	"mkpart", "primary", "2055s", "100%"]
	and any(.next_steps[]; .command[0] == "zpool")
	and any(.next_steps[].command; . == ["zpool", "create", "-o", "ashift=12", "POOL", ($d + "p1")])
	and all(.next_steps[].command; .[0] != "mkfs.xfs")
	and all(.next_steps[].command; .[0] == "parted" or index("--dataalignmentoffset") != null
		or .[-1] != $d)' "$TS_TMP/probe.json" >/dev/null ||
	ts_fail "probe's steps: $(jq -c .next_steps "$TS_TMP/probe.json")"
parted -s "$dev" mklabel gpt || ts_fail "parted mklabel"
ts_next_steps "$TS_TMP/probe.json" parted
ts_run_rc_ro 0 "$dev" "$A" check -J --geometry "$TS_TMP/probe.json" "$dev"
jq -e '[.partitions[].start] == [2055] and .rule.name == "probed"' "$TS_TMP/out" >/dev/null ||
	ts_fail "the partition parted made: $(jq -c '[.partitions[].start]' "$TS_TMP/out")"

# ---- probe --emulate: the drive is detached at exit, its steps name DEVICE ----
ts_subtest probe-emulate-placeholder
ts_run_rc 0 "$A" probe --yes -J --time-budget 120s --max-size 16K \
	--emulate=phys=4096,lba=7,rmw=1ms,size=64M
cp "$TS_TMP/out" "$TS_TMP/emu.json"
jq -e '.next_steps[0].command == ["parted", "-s", "-a", "none", "DEVICE", "unit", "s",
	"mkpart", "primary", "2055s", "100%"]
	and all(.next_steps[].command[]; test("^/dev/") | not)' "$TS_TMP/emu.json" >/dev/null ||
	ts_fail "probe --emulate's steps: $(jq -c .next_steps "$TS_TMP/emu.json")"
ts_run_rc 0 "$A" probe --yes --time-budget 120s --max-size 16K \
	--emulate=phys=4096,lba=7,rmw=1ms,size=64M
grep -q "DEVICE is the disk to use: the emulated drive this run measured is detached when it ends" \
	"$TS_TMP/out" || ts_fail "the placeholder is not explained: $(cat "$TS_TMP/out")"
grep -qE "^ +(parted|mkfs.xfs|pvcreate|zpool) .*/dev/" "$TS_TMP/out" &&
	ts_fail "a step names the emulated loop device: $(cat "$TS_TMP/out")"

ts_pass
