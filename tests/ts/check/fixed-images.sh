#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# `check` on image files this test makes the same way every time (sfdisk and
# fdisk scripts with fixed disk and partition identifiers): the topology
# block, the table, the summary, the messages, -J, -r, -n, --csv, -o, -b,
# the geometry options and the exit status, byte for byte as in
# tests/expected/check/fixed-images-*. Image files only: no root, no loop
# device. Every image has the same checksum afterwards (check is read-only).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "check output on fixed images as expected"
ts_untimed "partition tables in files and on plain loop devices"
ts_need_cmd sfdisk fdisk sha256sum
mkdir "$TS_TMP/work" && cd "$TS_TMP/work" || exit 99

A=$ALIGNPROBE
LINUX=0FC63DAF-8483-4772-8E79-3D69D8477DE4

# sfdisk_image NAME SIZE < SCRIPT
sfdisk_image() {
	truncate -s "$2" "$1" || ts_fail "cannot create $1"
	sfdisk -q --no-reread --no-tell-kernel "$1" > /dev/null 2> "$TS_TMP/sfdisk.err" ||
		{ cat "$TS_TMP/sfdisk.err" >&2; ts_fail "sfdisk $1"; }
}

# GPT, both partitions on 1 MiB boundaries (every identifier fixed, and the
# usable area, which sfdisk's default changed over versions)
sfdisk_image gpt-aligned.img 16M <<EOT
label: gpt
label-id: 0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D
first-lba: 2048
last-lba: 32734
table-length: 128
start=2048, size=4096, type=$LINUX, uuid=11111111-2222-4333-8444-555555555555, name=boot
start=6144, size=8192, type=$LINUX, uuid=66666666-7777-4888-9999-AAAAAAAAAAAA, name="data disk"
EOT
# GPT the old way: at 34 (2 sectors past 4 KiB), at 2048, and one sector
# past 6144 with an odd size
sfdisk_image gpt-misaligned.img 16M <<EOT
label: gpt
label-id: 1B2C3D4E-5F6A-4B7C-8D9E-0F1A2B3C4D5E
first-lba: 34
last-lba: 32734
table-length: 128
start=34, size=2014, type=$LINUX, uuid=22222222-3333-4444-8555-666666666666, name=old
start=2048, size=4096, type=$LINUX, uuid=33333333-4444-4555-8666-777777777777, name=boot
start=6145, size=4095, type=$LINUX, uuid=44444444-5555-4666-8777-888888888888, name="data disk"
EOT
# DOS: the first partition at 63 (the CHS habit), an extended partition
# with one aligned and one misaligned logical partition
sfdisk_image dos-63.img 16M <<EOT
label: dos
label-id: 0x1234abcd
start=63, size=4033, type=83, bootable
start=8192, size=16384, type=5
start=8200, size=2048, type=83
start=12289, size=2048, type=83
EOT
# DOS, aligned, one partition
sfdisk_image dos-aligned.img 8M <<EOT
label: dos
label-id: 0x5678ef01
start=2048, size=8192, type=83
EOT
# a DOS table for 512-byte sectors whose partition ends past the disk in
# 4096-byte ones
sfdisk_image dos-512.img 32M <<EOT
label: dos
label-id: 0x0badf00d
start=2048, size=38912, type=83
EOT
# GPT written for 4096-byte logical sectors (fdisk -b on the image file)
truncate -s 32M gpt-4k.img
printf '%s\n' g n 1 256 +8M x i 01234567-89AB-CDEF-0123-456789ABCDEF \
	u 11111111-2222-3333-4444-555555555555 r w |
	fdisk -b 4096 gpt-4k.img > "$TS_TMP/fdisk.out" 2>&1 ||
	{ cat "$TS_TMP/fdisk.out" >&2; ts_fail "fdisk -b 4096 gpt-4k.img"; }
# no partition table; an image smaller than a sector; an empty one
truncate -s 8M no-table.img
head -c 100 /dev/zero > tiny.img
: > empty.img
mkdir adir
# the primary GPT header's CRC broken: read from the backup, exit 2
cp gpt-aligned.img gpt-bad-crc.img
printf '\377\377\377\377' | dd of=gpt-bad-crc.img bs=1 seek=$((512 + 16)) conv=notrunc status=none ||
	ts_fail "cannot damage gpt-bad-crc.img"
# a probe result to take the geometry from
cp "$top_srcdir/tests/ts/output/sweep-4096-0.json" sweep-4096-0.json || ts_fail "cannot copy"

sha256sum ./*.img > "$TS_TMP/sums"

# every image, as it comes
for img in gpt-aligned gpt-misaligned dos-63 dos-aligned dos-512 gpt-4k no-table tiny empty gpt-bad-crc; do
	ts_expect_run "$img" "$A" check "$img.img"
done
ts_expect_run directory "$A" check adir
ts_expect_run missing "$A" check nonexistent.img
ts_expect_run no-argument "$A" check
# -J with one argument refused: still one document (nothing on d7e4e2c)
mkfifo a.fifo
ts_expect_run json-directory "$A" check -J adir
ts_expect_run json-missing "$A" check -J nonexistent.img
ts_expect_run json-dev-null "$A" check -J /dev/null
ts_expect_run json-fifo "$A" check -J a.fifo
ts_expect_run json-bad-metrics-file "$A" check -J --prometheus nodir/x.prom gpt-aligned.img

# -J on each kind
for img in gpt-aligned gpt-misaligned dos-63 gpt-4k no-table gpt-bad-crc; do
	ts_expect_run "$img-json" "$A" check -J "$img.img"
done

# the output options
G=gpt-misaligned.img
ts_expect_run raw "$A" check -r "$G"
ts_expect_run noheadings "$A" check -n "$G"
ts_expect_run output-subset "$A" check -o NR,START,MISALIGN,NEXT_ALIGNED,ALIGNED "$G"
ts_expect_run output-subset-raw "$A" check -r -n -o nr,name,uuid,typecode "$G"
ts_expect_run output-append "$A" check -o +SECTORS,NAME "$G"
ts_expect_run output-all "$A" check --output-all dos-63.img
ts_expect_run output-all-raw "$A" check -r --output-all "$G"
ts_expect_run csv "$A" check --csv -o NR,NAME,START,SIZE "$G"
ts_expect_run bytes "$A" check -b -o NR,SIZE "$G"
ts_expect_run json-subset "$A" check -J -o NR,START,ALIGNED "$G"
ts_expect_run quiet "$A" check -q "$G"
ts_expect_run quiet-aligned "$A" check -q gpt-aligned.img

# the geometry options
ts_expect_run physical-4096 "$A" check -p 4096 "$G"
ts_expect_run physical-4k-lba-7 "$A" check -p 4K -l 7 dos-63.img
ts_expect_run physical-8k "$A" check -p 8K -r -o NR,START,ALIGN_PROBED,MISALIGN,NEXT_ALIGNED,ALIGNED "$G"
ts_expect_run physical-512 "$A" check -p 512 "$G"
ts_expect_run trust-reported "$A" check --trust-reported "$G"
ts_expect_run check-size "$A" check --check-size -p 4096 "$G"
ts_expect_run check-size-aligned "$A" check --check-size gpt-aligned.img
ts_expect_run geometry-any "$A" check --geometry-any --geometry sweep-4096-0.json dos-63.img
ts_expect_run geometry-any-json "$A" check -J --geometry-any --geometry sweep-4096-0.json "$G"
ts_expect_run geometry-other-device "$A" check --geometry sweep-4096-0.json "$G"
ts_expect_run sector-size-4096 "$A" check --sector-size 4096 gpt-4k.img
ts_expect_run sector-size-4096-json "$A" check -J --sector-size 4096 gpt-4k.img
ts_expect_run sector-size-4096-of-512 "$A" check --sector-size 4096 dos-512.img
ts_expect_run verbose "$A" check -v gpt-bad-crc.img

# several images: each reported, the worst status
ts_expect_run several "$A" check gpt-aligned.img dos-63.img
ts_expect_run several-with-bad "$A" check -r -o NR,START,ALIGNED gpt-aligned.img no-table.img "$G"
ts_expect_run several-json "$A" check -J -o NR,ALIGNED gpt-aligned.img dos-aligned.img

# metrics for node_exporter (their timestamp is the one volatile line)
ts_expect_run prometheus "$A" check --prometheus metrics.prom "$G" dos-aligned.img
sed 's/^\(alignprobe_last_run_timestamp_seconds{[^}]*}\) [0-9.e+]*$/\1 @TIMESTAMP@/' metrics.prom |
	ts_expect prometheus.prom

# usage errors
ts_expect_run lowest-aligned-without-physical "$A" check -l 7 "$G"
ts_expect_run bad-physical "$A" check -p 1000 "$G"
ts_expect_run bad-lowest-aligned "$A" check -p 4096 -l 8 "$G"
ts_expect_run bad-sector-size "$A" check --sector-size 1000 "$G"
ts_expect_run json-and-raw "$A" check -J -r "$G"
ts_expect_run unknown-column "$A" check -o NR,NO_SUCH_COLUMN "$G"
ts_expect_run geometry-missing "$A" check --geometry nonexistent.json "$G"
ts_expect_run geometry-not-json "$A" check --geometry "$G" "$G"

sha256sum -c --quiet "$TS_TMP/sums" || ts_fail "check changed an image"
ts_expect_done
