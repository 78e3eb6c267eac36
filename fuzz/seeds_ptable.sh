#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# fuzz/seeds_ptable.sh OUTDIR: write the seed corpus of the ptable harness,
# small disk images made with sfdisk (GPT and MBR with extended and logical
# partitions, aligned and misaligned starts) and
# damaged copies of them (bad CRC, primary/backup disagreeing, truncated,
# protective MBR without GPT, overlapping partitions, too small, empty,
# EBR loops and far links), and the labels of every other type parted and
# fdisk write (SGI, Sun, BSD, Mac, Atari; Amiga and PC-98, which are only
# named). Small images keep the fuzzer fast: 128 KiB (256 sectors of 512
# bytes); the harness also reads each as the start of a 16 MiB disk.
set -eu
out=${1:?usage: seeds_ptable.sh OUTDIR}
command -v sfdisk >/dev/null || { echo "seeds_ptable.sh: needs sfdisk (util-linux)" >&2; exit 77; }
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mk() {	# mk NAME SIZE [sfdisk options] < script
	local name=$1 size=$2
	shift 2
	rm -f "$tmp/$name"
	truncate -s "$size" "$tmp/$name"
	sfdisk -q --no-reread --no-tell-kernel "$@" "$tmp/$name" >/dev/null
	cp "$tmp/$name" "$out/$name"
}
flip() {	# flip FILE OFFSET: invert one byte
	local b
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	printf "$(printf '\\%03o' $(( 255 - b )))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

printf 'label: gpt\nfirst-lba: 34\nlast-lba: 222\nstart=40,size=64,name=root\nstart=104,size=64\n' |
	mk gpt-aligned.img 128K
printf 'label: gpt\nfirst-lba: 34\nlast-lba: 222\nstart=35,size=60\nstart=99,size=7\nstart=113,size=50\n' |
	mk gpt-misaligned.img 128K
printf 'label: dos\nstart=63,size=40\ntype=5,start=110,size=140\nstart=117,size=40\nstart=170,size=60\n' |
	mk dos-logical.img 128K
printf 'label: dos\nstart=8,size=100,type=83\nstart=120,size=100,type=7,bootable\n' |
	mk dos-primary.img 128K
printf 'label: gpt\nfirst-lba: 34\nlast-lba: 478\nstart=48,size=128\nstart=176,size=256\n' |
	mk gpt-odd.img 256K
printf 'x' >> "$out/gpt-odd.img"	# odd size: the harness also reads it with 4096-byte sectors

# damaged copies
cp "$out/gpt-aligned.img" "$out/gpt-bad-primary-crc.img"
flip "$out/gpt-bad-primary-crc.img" $((512 + 60))
cp "$out/gpt-aligned.img" "$out/gpt-bad-entries.img"
flip "$out/gpt-bad-entries.img" $((1024 + 32))
cp "$out/gpt-aligned.img" "$out/gpt-bad-backup.img"
flip "$out/gpt-bad-backup.img" $((255 * 512 + 60))
# primary and backup disagreeing: old backup kept after deleting partition 2
cp "$out/gpt-aligned.img" "$tmp/m.img"
dd if="$tmp/m.img" of="$tmp/backup" bs=512 skip=223 status=none
sfdisk -q --no-reread --no-tell-kernel --delete "$tmp/m.img" 2 >/dev/null
dd if="$tmp/backup" of="$tmp/m.img" bs=512 seek=223 conv=notrunc status=none
cp "$tmp/m.img" "$out/gpt-mismatch.img"
head -c 65536 "$out/gpt-aligned.img" > "$out/gpt-truncated.img"
cp "$out/gpt-aligned.img" "$out/pmbr-no-gpt.img"
dd if=/dev/zero of="$out/pmbr-no-gpt.img" bs=512 seek=1 count=1 conv=notrunc status=none
dd if=/dev/zero of="$out/pmbr-no-gpt.img" bs=512 seek=255 count=1 conv=notrunc status=none
cp "$out/gpt-aligned.img" "$out/gpt-no-pmbr.img"
dd if=/dev/zero of="$out/gpt-no-pmbr.img" bs=512 count=1 conv=notrunc status=none
# overlapping MBR partitions, crafted: entry 2 starts inside entry 1
cp "$out/dos-primary.img" "$out/dos-overlap.img"
printf '\x32\x00\x00\x00' | dd of="$out/dos-overlap.img" bs=1 seek=$((446 + 16 + 8)) conv=notrunc status=none
head -c 32768 "$out/dos-primary.img" > "$out/dos-past-end.img"
: > "$out/empty.img"
head -c 100 /dev/zero > "$out/tiny.img"
head -c 8192 /dev/zero > "$out/no-table.img"

# every other label type libfdisk or libblkid reads, and those it names
# only (parted writes them on 8 MiB, the first 128 KiB kept: their tables
# lie there); the entries they define to overlap (Sun's whole disk, SGI's
# volume header) and libfdisk's verification of each are on this path
if command -v parted >/dev/null; then
	for l in dvh sun mac atari bsd amiga pc98; do
		case $l in sun | bsd | amiga) p=ext2 ;; *) p=primary ;; esac
		rm -f "$tmp/$l.img"
		truncate -s 8M "$tmp/$l.img"
		parted -s "$tmp/$l.img" mklabel "$l" mkpart "$p" 4096s 6143s >/dev/null 2>&1 ||
			continue
		head -c 131072 "$tmp/$l.img" > "$out/label-$l.img"
	done
fi
for l in s G; do	# fdisk's default Sun and SGI labels
	rm -f "$tmp/fd.img"
	truncate -s 128K "$tmp/fd.img"
	printf '%s\nw\n' "$l" | fdisk "$tmp/fd.img" >/dev/null 2>&1 && cp "$tmp/fd.img" "$out/fdisk-$l.img"
done
# an EBR whose link points to itself, and one whose link lies 10^9 sectors away
printf 'label: dos\nstart=8,size=40\ntype=5,start=64,size=160\nstart=72,size=16\n' |
	mk dos-ebr-loop.img 128K
printf '\x00\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00\x10\x00\x00\x00' |
	dd of="$out/dos-ebr-loop.img" bs=1 seek=$((64 * 512 + 446 + 16)) conv=notrunc status=none
cp "$out/dos-ebr-loop.img" "$out/dos-ebr-far.img"
printf '\x00\xca\x9a\x3b' | dd of="$out/dos-ebr-far.img" bs=1 seek=$((64 * 512 + 446 + 16 + 8)) conv=notrunc status=none
