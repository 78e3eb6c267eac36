#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# alignprobe emulate: bad input is refused with exit 2 and a reason, before
# anything is created; --image starts from a sparse copy and never modifies
# the image; the counters are readable as a table and as JSON.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "emulate command line, --image"
"$ALIGNPROBE" emulate --help >/dev/null 2>&1 || ts_skip "alignprobe built without the emulated drive"

ts_run_rc 0 "$ALIGNPROBE" emulate --help
grep -q Usage "$TS_TMP/out" || ts_fail "--help without Usage"

# usage errors: exit 2, the offending thing named, nothing attached
bad() {
	local want=$1
	shift
	ts_run_rc 2 "$ALIGNPROBE" emulate "$@"
	grep -q -- "$want" "$TS_TMP/err" || ts_fail "emulate $*: message lacks '$want': $(cat "$TS_TMP/err")"
}
bad "one of --attach" 
bad "power of two" --attach --phys 3000
bad "power of two" --attach --phys 128K
bad "lowest aligned LBA 8" --attach --lowest-aligned 8
bad "lowest aligned LBA 16" --attach --phys 8192 --lba 16
bad "size" --attach --size 1000
bad "not a multiple of 512" --attach --size 1048577
bad "unit" --attach --rmw-cost 8
bad "jitter" --attach --jitter 2
bad "beyond" --attach --size 1M --fail-lba 4000
bad "unknown emulator parameter 'colour'" --attach --spec colour=red
bad "only accepted with --attach" --detach /dev/null --phys 4096
bad "mutually exclusive" --attach --detach /dev/null
bad "unexpected argument" --attach extra
bad "unrecognized option" --attach --bogus
[ -z "$(ls -A "$ALIGNPROBE_STATE_DIR")" ] || ts_fail "a refused attach left registry entries"

# not an emulated drive: bad input, exit 2
ts_run_rc 2 "$ALIGNPROBE" emulate --stats /dev/null
grep -q "not an emulated drive" "$TS_TMP/err" || ts_fail "--stats /dev/null: $(cat "$TS_TMP/err")"
ts_run_rc 2 "$ALIGNPROBE" emulate --detach /dev/null

ts_need_emulator
ts_need_cmd dd cmp

# an image that does not exist or does not fit: nothing left behind
ts_run_rc 2 "$ALIGNPROBE" emulate --attach --image "$TS_TMP/missing.img"
grep -q "missing.img" "$TS_TMP/err" || ts_fail "missing image not named"
ts_image "$TS_TMP/big.img" 4M
ts_run_rc 2 "$ALIGNPROBE" emulate --attach --image "$TS_TMP/big.img" --size 2M
grep -q "do not fit" "$TS_TMP/err" || ts_fail "oversized image: $(cat "$TS_TMP/err")"
[ -z "$(ls -A "$ALIGNPROBE_STATE_DIR")" ] || ts_fail "a failed attach left registry entries"

# --image: a sparse copy; the drive sees the data, the image never changes
ts_image "$TS_TMP/img" 6M
dd if=/dev/urandom of="$TS_TMP/data" bs=64k count=3 status=none
dd if="$TS_TMP/data" of="$TS_TMP/img" bs=64k seek=40 conv=notrunc status=none
sum=$(ts_checksum "$TS_TMP/img")
dev=$(ts_emu_attach --image "$TS_TMP/img" --rmw-cost 100us)
ts_assert_eq $((6 << 20)) "$(blockdev --getsize64 "$dev")" "capacity from the image"
dd if="$dev" of="$TS_TMP/back" bs=64k skip=40 count=3 iflag=direct status=none
cmp -s "$TS_TMP/data" "$TS_TMP/back" || ts_fail "the drive does not hold the image's data"
dd if=/dev/zero of="$dev" bs=64k count=16 oflag=direct status=none || ts_fail "write failed"
ts_assert_eq "$sum" "$(ts_checksum "$TS_TMP/img")" "the image is unchanged"
entry=$(grep -l "^dev=$dev\$" "$ALIGNPROBE_STATE_DIR"/* | head -1)
wd=$(dirname "$(sed -n 's/^path=//p' "$entry")")
used=$(du -k "$wd/backing" | cut -f1)
[ "$used" -lt 3072 ] || ts_fail "backing file not sparse: ${used}K used of 6M"
# an image with --size larger than itself
dev2=$(ts_emu_attach --image "$TS_TMP/img" --size 16M --rmw-cost 100us)
ts_assert_eq $((16 << 20)) "$(blockdev --getsize64 "$dev2")" "--size with --image"

# a partitioned image: its partitions appear
ts_need_cmd parted
ts_image "$TS_TMP/part.img" 8M
parted -s "$TS_TMP/part.img" mklabel gpt mkpart a 40s 2MiB mkpart b 2MiB 6MiB 2>/dev/null ||
	ts_fail "parted on an image failed"
dev3=$(ts_emu_attach --image "$TS_TMP/part.img" --rmw-cost 100us)
# attach added them (BLKPG) before it printed the device
{ ts_wait_node "${dev3}p1" && ts_wait_node "${dev3}p2"; } ||
	ts_fail "the image's partitions did not appear on $dev3"
ts_assert_eq $((40 * 512)) "$(($(cat /sys/class/block/${dev3#/dev/}p1/start) * 512))" "p1 start"
ts_assert_eq $((4 << 20)) "$(blockdev --getsize64 "${dev3}p2")" "p2 size"

# another state directory's drive is not ours to detach (its loop number
# may be one that a run of ours used before)
mkdir "$TS_TMP/other-state"
ALIGNPROBE_STATE_DIR=$TS_TMP/other-state ts_run_rc 3 "$ALIGNPROBE" emulate --detach "$dev3"
grep -q "state directory" "$TS_TMP/err" || ts_fail "foreign detach: $(cat "$TS_TMP/err")"
"$ALIGNPROBE" emulate --stats "$dev3" >/dev/null || ts_fail "a foreign detach took the drive down"

# counters as JSON, parameters echoed
"$ALIGNPROBE" emulate --reset-stats "$dev"
dd if=/dev/zero of="$dev" bs=4096 count=1 seek=512 oflag=direct,seek_bytes status=none
ts_run_rc 0 "$ALIGNPROBE" emulate --stats "$dev" -J -b --output-all
python3 - "$TS_TMP/out" "$dev" <<'PY' || ts_fail "JSON: $(cat "$TS_TMP/out")"
import json, sys
d = json.load(open(sys.argv[1]))["emulators"][0]
assert d["device"] == sys.argv[2], d
assert d["write_bytes"] == 4096 and d["writes"] == 1 and d["rmw_writes"] == 1 and d["rmw"] == 2 and d["aligned"] == 0, d
assert d["phys"] == 4096 and d["lowest_aligned"] == 0 and d["size"] == 6 << 20, d
assert "rmw=100us" in d["spec"], d
PY
ts_run_rc 0 "$ALIGNPROBE" emulate --stats "$dev" -H
grep -q RMW_WRITES "$TS_TMP/out" || ts_fail "-H lacks RMW_WRITES"
ts_pass
