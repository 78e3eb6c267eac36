#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Each step reads the partition table back from the disk after libparted
# wrote it (src/sweep/part.c, with libfdisk) and refuses a partition that is
# not where it was asked for. The kernel learns of the partition from
# libparted's own in-memory table, so nothing else in the step would notice a
# table on the disk that says otherwise. Here, in the window between the
# write and the read-back (the ALIGNPROBE_TEST_PART_WRITTEN seam), the test
# moves partition 1 by 8 sectors in both GPT copies, CRCs mended, so that the
# table is valid and only its place is wrong; then it corrupts the backup
# header's CRC. Each time the step must fail at its partition stage, naming
# what it read back, and no file system may be made.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
. "$top_srcdir/tests/ts/sweep/common.sh"
ts_init "sweep: the partition table read back from the disk is checked"
ts_need_emulator
ts_need_cmd python3 mkfs.ext4
sw_private_tmpdir

# tamper DEV HOW: move partition 1 in both copies ("move") or break the backup header ("crc")
tamper() {
	python3 - "$1" "$2" <<'PY'
import os, struct, sys, zlib
dev, how = sys.argv[1], sys.argv[2]
fd = os.open(dev, os.O_RDWR)
ss = 512
size = os.lseek(fd, 0, os.SEEK_END)
def rd(off, n):
    return bytearray(os.pread(fd, n, off))
def fix(lba):
    h = rd(lba * ss, ss)
    hsize, = struct.unpack_from("<I", h, 12)
    elba, = struct.unpack_from("<Q", h, 72)
    n, esz = struct.unpack_from("<II", h, 80)
    ents = rd(elba * ss, n * esz)
    if how == "move":
        first, last = struct.unpack_from("<QQ", ents, 32)
        struct.pack_into("<QQ", ents, 32, first + 8, last + 8)
        struct.pack_into("<I", h, 88, zlib.crc32(bytes(ents)) & 0xffffffff)
        os.pwrite(fd, bytes(ents), elba * ss)
    struct.pack_into("<I", h, 16, 0)
    crc = zlib.crc32(bytes(h[:hsize])) & 0xffffffff
    struct.pack_into("<I", h, 16, crc ^ (0xffffffff if how == "crc" else 0))
    os.pwrite(fd, bytes(h), lba * ss)
if how == "move":
    fix(1)
fix(size // ss - 1)
os.fsync(fd)
os.close(fd)
PY
}

# run_tampered HOW WANT: a one-step sweep whose table is tampered with HOW;
# the step must fail at "partition" with WANT in its message
run_tampered() {
	local how=$1 want=$2 go=$TS_TMP/go-$1 dev
	rm -f "$go" "$go.reached"
	ALIGNPROBE_TEST_PART_WRITTEN=$go "$ALIGNPROBE" sweep --emulate=simple,size=128M --seed 16 \
		--size 32M -q --starts 2048 --rounds 1 --time-budget 1h --json \
		> "$TS_TMP/$how.json" 2> "$TS_TMP/$how.err" < /dev/null &
	local spid=$!
	ts_bg_pid "$spid"
	ts_wait_for -p "$spid" "the sweep between its write and its read-back" \
		test -e "$go.reached" || ts_fail "$how: the sweep never reached the seam: $(cat "$TS_TMP/$how.err")"
	dev=$(sed -n 's/^dev=//p' "$(grep -l '^kind=emu$' "$ALIGNPROBE_STATE_DIR"/* | head -n1)")
	[ -b "$dev" ] || ts_fail "$how: no emulated drive in the registry"
	tamper "$dev" "$how" || ts_fail "$how: cannot change the table on $dev"
	touch "$go"
	wait "$spid"
	sw_check "$TS_TMP/$how.json" "$want" <<'PY'
want = args[0]
r = d["results"]
eq(len(r), 1, "steps")
check(not r[0]["ok"], "the step with a tampered table succeeded")
eq(r[0].get("stage"), "partition", "the stage that failed")
check(want in r[0].get("error", ""), "no %r in %r" % (want, r[0].get("error")))
check(not r[0].get("mkfs_s"), "mkfs ran on a partition the disk does not have")
PY
	sw_assert_clean
}

ts_subtest moved
run_tampered move "the partition read back is at 2056-67591, not 2048-67583"
ts_subtest backup-crc
run_tampered crc "the partition table read back is not valid"
ts_pass
