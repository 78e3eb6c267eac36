#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A journal record cannot lie (issue 23, item 1). A preserving probe of a
# loop device with a GPT is SIGKILLed once its journal is complete; then one
# field of the journal is corrupted at a time -- record 0's device offset set
# to 0 (it once sent 195,860 bytes over the partition table), a record's
# data byte, the plan in the header with its CRC made right again -- and
# `probe --undo` must refuse every one with exit 2, keep the journal and
# write nothing: the first MiB (the partition table) and the whole device
# keep their checksums. The intact journal then restores as before; on a
# read-only file system it restores but says that the journal stays (exit 1).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "probe --undo refuses a corrupted journal and writes nothing"
ts_need_loop
ts_need_cmd head dd od cmp sha256sum python3 parted

head -c 32M /dev/urandom > "$TS_TMP/disk.img" || ts_fail "cannot create the image"
parted -s "$TS_TMP/disk.img" mklabel gpt mkpart data 1MiB 31MiB || ts_fail "parted failed"
dev=$(ts_loop_attach "$TS_TMP/disk.img")
journal=$TS_TMP/undo.journal
first_mib() { head -c 1M "$dev" | sha256sum | cut -d' ' -f1; }
mib0=$(first_mib)
whole=$(ts_checksum "$dev")

ts_preserve_killed "$dev" "$journal"
cp "$journal" "$TS_TMP/intact.journal" || ts_fail "cannot keep a copy of the journal"

# corrupt WHAT: python statements on h (the header), r0/r1 (record positions)
corrupt() {
	cp "$TS_TMP/intact.journal" "$journal"
	python3 - "$journal" "$2" <<'PY' || ts_fail "cannot corrupt the journal ($1)"
import struct, sys, zlib
p, code = sys.argv[1], sys.argv[2]
with open(p, "r+b") as f:
    data = bytearray(f.read())
hl = struct.unpack_from("<I", data, 52)[0]
rl = struct.unpack_from("<I", data, 28)[0]
r0, r1 = hl, hl + 64 + rl
def fix_header():
    struct.pack_into("<I", data, hl - 4, zlib.crc32(bytes(data[:hl - 4])))
exec(code)
with open(p, "r+b") as f:
    f.write(data)
PY
	ts_run_rc 2 "$ALIGNPROBE" probe --undo "$journal" --force
	grep -q "$3" "$TS_TMP/err" || ts_fail "$1: not refused as expected: $(cat "$TS_TMP/err")"
	[ -f "$journal" ] || ts_fail "$1: the journal was removed"
	ts_assert_eq "$mib0" "$(first_mib)" "$1: the first MiB"
	ts_assert_eq "$whole" "$(ts_checksum "$dev")" "$1: the whole device"
}

# the issue's example: record 0's device offset set to 0
corrupt "offset 0" 'struct.pack_into("<Q", data, r0, 0)' \
	"record 0 is damaged (its device offset 0 is not the plan's 1048576)"
# a later record pointing at the partition table, the others intact
corrupt "offset of record 1" 'struct.pack_into("<Q", data, r1, 512)' \
	"record 1 is damaged (its device offset 512 is not the plan's"
corrupt "record data" 'data[r1 + 64 + 100] ^= 0xff' "record 1 is damaged (CRC mismatch)"
corrupt "record length" 'data[r0 + 8] ^= 1' "record 0 is damaged"
corrupt "header byte" 'data[100] ^= 1' "header is damaged (CRC mismatch)"
# the plan moved to byte 0, the header's CRC made right: refused by the plan's rules
corrupt "plan at 0" 'struct.pack_into("<Q", data, 320, 0); fix_header()' \
	"plan is impossible.*LBA 0..33"
corrupt "plan elsewhere" 'struct.pack_into("<QQ", data, 320, (1 << 20) + 4096,
    struct.unpack_from("<Q", data, 328)[0] - 4096); fix_header()' \
	"record 0 is damaged (its device offset 1048576 is not the plan's 1052672)"
# an older version: refused, named
corrupt "version 2" 'struct.pack_into("<I", data, 8, 2); fix_header()' \
	"version 2, written by an older alignprobe"

# the intact journal on a read-only file system: restored, but the journal
# cannot be removed, and undo says so (it once said "journal removed")
mkdir -p "$TS_TMP/jdir" "$TS_TMP/ro"
cp "$TS_TMP/intact.journal" "$TS_TMP/jdir/undo.journal"
ts_mount "$TS_TMP/jdir" "$TS_TMP/ro" --bind
mount -o remount,ro,bind "$TS_TMP/ro" || ts_fail "cannot make the bind mount read-only"
ts_run_rc 1 "$ALIGNPROBE" probe --undo "$TS_TMP/ro/undo.journal"
grep -q "every byte verified$" "$TS_TMP/out" || ts_fail "read-only: $(cat "$TS_TMP/out")"
grep -q "journal removed" "$TS_TMP/out" && ts_fail "read-only: said the journal was removed"
grep -q "undo.journal: cannot remove the journal: Read-only file system; it is kept" \
	"$TS_TMP/err" || ts_fail "read-only: $(cat "$TS_TMP/err")"
[ -f "$TS_TMP/ro/undo.journal" ] || ts_fail "read-only: the journal is gone"
umount "$TS_TMP/ro" || ts_fail "cannot unmount the bind mount"

# the intact journal: nothing to put back, journal removed
cp "$TS_TMP/intact.journal" "$journal"
ts_run_rc 0 "$ALIGNPROBE" probe --undo "$journal"
grep -q "0 rewritten, every byte verified; journal removed" "$TS_TMP/out" ||
	ts_fail "the intact journal: $(cat "$TS_TMP/out")"
[ -e "$journal" ] && ts_fail "the journal was not removed"
ts_assert_eq "$whole" "$(ts_checksum "$dev")" "the device after the intact journal's undo"
ts_pass
