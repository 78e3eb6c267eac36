#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# `check` on the partition tables other tools write and on broken ones:
#   parted-*   every label type GNU parted writes, aligned and misaligned,
#              and layouts of parted's own tests (written here with parted)
#   fdisk-*, sfdisk-*   fdisk's default Sun and SGI labels, and layouts of
#              util-linux's fdisk/sfdisk tests (written here with the tools)
#   the layouts of util-linux's tests/ts/blkid/images-pt, written here (no
#   image is shipped): with the tools where they write them (parted-atari-
#   primary, parted-atari-xgm, parted-gpt-start-34, fdisk-sun-truncated),
#   else with mkbroken.py (gen-*: a BSD disklabel with absolute offsets,
#   alone and copied into a DOS partition sfdisk writes; an SGI label with
#   a partition inside its volume header; IBM DASD CDL and LDL volume
#   labels)
#   broken-*   tables no tool writes (tests/ts/check/mkbroken.py)
#   whole-*    file systems and volumes on a whole disk, no table
#   crash-*, hang-*   the read of one table dying or hanging (the test seam
#              ALIGNPROBE_TEST_PTABLE_CHILD) costs that device only
# Each scenario's partition list, messages and exit status are compared
# with tests/expected/check/corpus-<scenario>; no image may take more than
# a few seconds (the reads are linear); every image has the same checksum
# afterwards (check is read-only: mkbroken.py -s, which skips holes).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "check on a corpus of partition tables"
ts_untimed "partition tables in files and on plain loop devices"
ts_need_cmd sfdisk fdisk parted python3 mkfs.ext4 mkfs.xfs mkfs.btrfs \
	mkfs.vfat mkswap cryptsetup
mkdir "$TS_TMP/work" && cd "$TS_TMP/work" || exit 99

A=$ALIGNPROBE
COLS=NR,START,END,SECTORS,TYPE,ALIGNED

# ---- the images ----

# parted_image NAME SIZE LABEL [COMMAND...]: one parted run (-s, -a none)
parted_image() {
	local name=$1 size=$2 label=$3
	shift 3
	truncate -s "$size" "$name.img" || ts_fail "cannot create $name.img"
	parted -s -a none "$name.img" mklabel "$label" "$@" > "$TS_TMP/parted.out" 2>&1 ||
		{ cat "$TS_TMP/parted.out" >&2; ts_fail "parted $name"; }
}
# every label type parted writes: one partition aligned (4096s, 2 MiB), and
# one more at 12289s, a sector past 4 KiB
for l in msdos gpt dvh sun mac atari bsd amiga pc98; do
	# a type (msdos, dvh, atari, pc98) or a name (gpt, mac) first where the
	# label has one, else the file system type (amiga takes it as a name)
	case $l in
	sun | bsd | amiga) p=ext2 ;;
	*) p=primary ;;
	esac
	parted_image "parted-$l" 16M "$l" mkpart "$p" 4096s 9983s
	# Sun, Amiga and PC-98 partitions start on cylinders, which parted
	# keeps (fdisk's default Sun label below is misaligned)
	case $l in sun | amiga | pc98) continue ;; esac
	parted_image "parted-$l-misaligned" 16M "$l" mkpart "$p" 4096s 9983s \
		mkpart "$p" 12289s 20479s
done
parted_image parted-loop 16M loop
# a Sun and an SGI label with a wrong checksum (a byte of the label changed)
for l in sun dvh; do
	cp "parted-$l.img" "parted-$l-bad-checksum.img" &&
		printf '\022' | dd of="parted-$l-bad-checksum.img" bs=1 seek=100 conv=notrunc status=none ||
		ts_fail "cannot damage parted-$l.img"
done
# parted's tests: an extended partition at 64s with a logical at 66s
# (t2310), a start at 2048 on a 4096-sector disk (t4100-msdos-starting-
# sector), a Sun label alone (t4001), a DVH partition near its limits
# (t4100-dvh), 128 GPT partitions (t0212), the most logical partitions
parted_image parted-dos-ext-min-offset 1M msdos mkpart extended 64s 128s \
	mkpart logical 66s 128s
parted_image parted-dos-start-2048 2M msdos mkpart primary 2048s 4095s
parted_image parted-sun-vtoc 2M sun
parted_image parted-dvh-limits 64M dvh mkpart primary xfs 4096s 131071s
args=()
for i in $(seq 0 127); do args+=(mkpart "p$i" "$((2048 + i * 64))s" "$((2048 + i * 64 + 63))s"); done
parted_image parted-gpt-128 16M gpt "${args[@]}"
args=(mkpart extended 2046s 100%)
for i in $(seq 0 55); do args+=(mkpart logical "$((2048 + i * 64))s" "$((2048 + i * 64 + 61))s"); done
parted_image parted-dos-56-logicals 8M msdos "${args[@]}"

# the layouts of util-linux's images-pt that the tools write: an Atari
# root sector with one primary partition at 2 and one with an XGM chain
# (a primary at 2, an XGM at 13 whose logical starts at 14), a GPT from
# sector 34 on, and a Sun label for a bigger disk, truncated to 10 MiB
# (its partitions end past the end); mkbroken.py writes the SGI one
# (gen-sgi: fdisk, sfdisk and parted keep partitions out of the volume
# header)
parted_image parted-atari-primary 5M atari mkpart primary 2s 100%
parted_image parted-atari-xgm 5M atari mkpart primary 2s 10s \
	mkpart extended 13s 100% mkpart logical 14s 100%
parted_image parted-gpt-start-34 10M gpt mkpart ThisIsName fat32 34s 2047s \
	mkpart ThisIsOtherName fat32 2048s 4095s mkpart primary fat32 4096s 6143s \
	mkpart primary fat32 6144s 8191s mkpart primary fat32 8192s 10239s
# fdisk's default Sun label (Linux, swap, whole disk) on 65535 cylinders
# of 2 sectors
truncate -s $((131070 * 512)) fdisk-sun-truncated.img &&
	printf '%s\n' s w | fdisk -H 1 -S 2 fdisk-sun-truncated.img > "$TS_TMP/fdisk.out" 2>&1 &&
	truncate -s 10M fdisk-sun-truncated.img ||
	{ cat "$TS_TMP/fdisk.out" >&2; ts_fail "fdisk sun"; }

# fdisk's default Sun and SGI labels (fdisk's sunlabel tests start there)
for l in sun:s sgi:G; do
	truncate -s 1G "fdisk-default-${l%:*}.img"
	printf '%s\nw\n' "${l#*:}" | fdisk "fdisk-default-${l%:*}.img" > "$TS_TMP/fdisk.out" 2>&1 ||
		{ cat "$TS_TMP/fdisk.out" >&2; ts_fail "fdisk default ${l%:*} label"; }
done
# sfdisk_image NAME SIZE < SCRIPT
sfdisk_image() {
	truncate -s "$2" "$1.img" || ts_fail "cannot create $1.img"
	sfdisk -q --no-reread --no-tell-kernel "$1.img" > /dev/null 2> "$TS_TMP/sfdisk.err" ||
		{ cat "$TS_TMP/sfdisk.err" >&2; ts_fail "sfdisk $1"; }
}
# util-linux's fdisk/mbr-logical-ebr-gap layout: a logical partition one
# sector past the gap its EBR needs
sfdisk_image sfdisk-ebr-gap 1G <<EOT
label: dos
label-id: 0x11223344
start=2048, size=2095104, type=5
start=6145, size=782335, type=83
start=788480, size=1308672, type=83
EOT
# sfdisk/gpt's table-length tests: a short and a long entry array
for len in 4 1024; do
	printf '%s\n' "label: gpt" "label-id: 0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D" \
		"table-length: $len" "start=2048, size=4096, uuid=11111111-2222-4333-8444-555555555555" |
		sfdisk_image "sfdisk-gpt-table-length-$len" 16M
done
# a GPT for 4096-byte sectors (fdisk -b 4096), read as written and as 512
truncate -s 32M fdisk-gpt-4k.img
printf '%s\n' g n 1 256 +8M n 2 2305 +4M x i 01234567-89AB-CDEF-0123-456789ABCDEF r w |
	fdisk -b 4096 fdisk-gpt-4k.img > "$TS_TMP/fdisk.out" 2>&1 ||
	{ cat "$TS_TMP/fdisk.out" >&2; ts_fail "fdisk -b 4096"; }

# tables no tool writes
python3 "$top_srcdir/tests/ts/check/mkbroken.py" . || ts_fail "mkbroken.py"
for f in $(python3 "$top_srcdir/tests/ts/check/mkbroken.py" -l); do
	case $f in
	whole-* | gen-*) ;;
	*) mv "$f.img" "broken-$f.img" ;;
	esac
done
# a DOS table (Linux at 32, FreeBSD at 7680) with gen-bsd's label (its
# offsets absolute, as in util-linux's dos+bsd) in the FreeBSD partition,
# and the same with gen-bsd-misaligned's and gen-bsd-relative's (offsets
# relative to the slice, as FreeBSD 10 on writes them)
for b in bsd bsd-misaligned bsd-relative; do
	sfdisk_image "gen-dos-$b" 8M <<EOT
label: dos
label-id: 0x8f8378c0
start=32, size=7648, type=83
start=7680, size=8704, type=a5
EOT
	dd if="gen-$b.img" of="gen-dos-$b.img" bs=512 seek=7680 conv=notrunc,sparse status=none ||
		ts_fail "cannot copy the BSD label into gen-dos-$b.img"
done
# two FreeBSD slices, a label in each: libfdisk reads the first one's only
sfdisk_image gen-dos-bsd-two 8M <<EOT
label: dos
label-id: 0x8f8378c3
start=32, size=7648, type=83
start=7680, size=4096, type=a5
start=11776, size=4608, type=a5
EOT
dd if=gen-bsd-first.img of=gen-dos-bsd-two.img bs=512 seek=7680 conv=notrunc,sparse status=none &&
	dd if=gen-bsd-second.img of=gen-dos-bsd-two.img bs=512 seek=11776 conv=notrunc,sparse \
		status=none || ts_fail "cannot copy the BSD labels into gen-dos-bsd-two.img"
# the slices alone: gen-bsd's case again
rm gen-bsd-misaligned.img gen-bsd-relative.img gen-bsd-first.img gen-bsd-second.img
# the label damaged: its second magic number (d_magic2) changed; the kernel
# and libblkid, which test the first only, read it, libfdisk does not
cp gen-dos-bsd-misaligned.img gen-dos-bsd-damaged.img &&
	printf '\001' | dd of=gen-dos-bsd-damaged.img bs=1 seek=$((7680 * 512 + 512 + 132)) \
		conv=notrunc status=none || ts_fail "cannot damage gen-dos-bsd-damaged.img"
# a Minix subpartition table (an MBR sfdisk writes, its entries absolute)
# in a DOS partition of type 81: libblkid and the kernel read it, libfdisk
# does not
sfdisk_image gen-dos-minix 8M <<EOT
label: dos
label-id: 0x8f8378c1
start=32, size=7648, type=83
start=7680, size=8704, type=81
EOT
sfdisk_image minix-sub 8M <<EOT
label: dos
label-id: 0x8f8378c2
start=7936, size=4096, type=81
start=12032, size=4352, type=81
EOT
dd if=minix-sub.img of=gen-dos-minix.img bs=512 seek=7680 count=1 conv=notrunc status=none &&
	rm minix-sub.img || ts_fail "cannot copy the Minix table into gen-dos-minix.img"

# file systems and volumes on the whole disk
mkimg() { truncate -s "$2" "$1.img" || ts_fail "cannot create $1.img"; }
mkimg whole-ext4 32M && mkfs.ext4 -q -F -U 11111111-2222-4333-8444-555555555555 whole-ext4.img ||
	ts_fail "mkfs.ext4"
mkimg whole-xfs 320M && mkfs.xfs -q whole-xfs.img || ts_fail "mkfs.xfs"
mkimg whole-btrfs 128M && mkfs.btrfs -q whole-btrfs.img > /dev/null || ts_fail "mkfs.btrfs"
mkimg whole-vfat 40M && mkfs.vfat whole-vfat.img > /dev/null || ts_fail "mkfs.vfat"
mkimg whole-swap 16M && mkswap -q whole-swap.img || ts_fail "mkswap"
mkimg whole-luks2 32M && printf x | cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 \
	--pbkdf-force-iterations 1000 --key-file=- whole-luks2.img || ts_fail "cryptsetup luksFormat"

# checksums of the data, not of the holes (the images are sparse, 4 GiB in all)
sums() { python3 "$top_srcdir/tests/ts/check/mkbroken.py" -s ./*.img; }
sums > "$TS_TMP/sums" || ts_fail "checksums"
n=$(ls ./*.img | wc -l)

# ---- every image, as it comes ----

for f in ./*.img; do
	name=${f#./}
	ts_expect_run "${name%.img}" "$A" check -r -o "$COLS" "$name"
done
# a table for 4096-byte sectors read as written
ts_expect_run sector-size-4096-fdisk-gpt-4k "$A" check -r -o "$COLS" --sector-size 4096 fdisk-gpt-4k.img
ts_expect_run sector-size-4096-broken-gpt-4k-read-512 "$A" check -r -o "$COLS" --sector-size 4096 \
	broken-gpt-4k-read-512.img
ts_expect_run sector-size-4096-broken-dos-4k-read-512 "$A" check -r -o "$COLS" --sector-size 4096 \
	broken-dos-4k-read-512.img
# the names and notes in the JSON
ts_expect_run json-parted-sun "$A" check -J -o NR,START,ALIGNED parted-sun.img
ts_expect_run json-whole-ext4 "$A" check -J -o NR,START,ALIGNED whole-ext4.img
ts_expect_run json-gen-dos-bsd-misaligned "$A" check -J -o NR,START,ALIGNED gen-dos-bsd-misaligned.img

# ---- a reader that crashes or hangs costs its device only ----

ts_expect_run crash-dvh env ALIGNPROBE_TEST_PTABLE_CHILD=crash \
	"$A" check -r -o NR,START,ALIGNED parted-dvh.img
ts_expect_run crash-several env ALIGNPROBE_TEST_PTABLE_CHILD=crash:parted-dvh.img \
	"$A" check -J -o NR,START,ALIGNED sfdisk-gpt-table-length-4.img parted-dvh.img
ts_expect_run hang-one env ALIGNPROBE_TEST_PTABLE_CHILD=hang ALIGNPROBE_TEST_PTABLE_TIMEOUT=1 \
	"$A" check -r -o NR,START,ALIGNED parted-gpt.img
# the real SGI label whose libfdisk verification crashes, next to a good one
ts_expect_run several-dvh "$A" check -q parted-gpt.img parted-dvh.img parted-dvh-misaligned.img

sums | diff "$TS_TMP/sums" - || ts_fail "check changed an image"
ts_log "$n images"
ts_expect_done
