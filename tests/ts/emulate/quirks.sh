#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What real drives add (issue 26), seen in the emulated drive's counters
# and data: reads answered from the read-ahead buffer, RMWs served from the
# RMW buffer, flushes acknowledged and ignored, and a power cut: the
# volatile cache's writes undone, a write in flight torn, EIO until power
# on, and after it the data as the media held it. Counters and bytes, not
# timing.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "read-ahead, RMW buffer, ignored flushes, power cut"
ts_alone "it counts every request its drives get (see emulate/rmw-counters.sh)"
ts_need_emulator
ts_need_cmd dd cmp od

# counter DEV COLUMN: one counter of the emulated drive
counter() {
	"$ALIGNPROBE" emulate --stats "$1" -n -r -o "$2" || ts_fail "emulate --stats $1 failed"
}

# rd DEV BS SKIP [COUNT]: O_DIRECT read to stdout
rd() {
	dd if="$1" bs="$2" skip="$3" count="${4:-1}" iflag=direct status=none
}

# wr DEV FILE BS SEEK [FLAGS]: O_DIRECT write of FILE
wr() {
	dd if="$2" of="$1" bs="$3" seek="$4" oflag=direct${5:+,$5} conv=notrunc status=none
}

detach() {
	"$ALIGNPROBE" emulate --detach "$1" || ts_fail "detach $1 failed"
	sed -i "\|^$1\$|d" "$TS_TMP/.emus"
}

head -c 65536 /dev/urandom > "$TS_TMP/r64k"
head -c 4096 /dev/zero | tr '\0' o > "$TS_TMP/o4k"
head -c 512 /dev/zero | tr '\0' n > "$TS_TMP/n512"

# read-ahead: the same 64 KiB read again is answered from the segment;
# without read-ahead it is not
dev=$(ts_emu_attach --profile hdd-7200-ra --size 64M)
rd "$dev" 64K 10 > /dev/null || ts_fail "read failed"
rd "$dev" 64K 10 > /dev/null || ts_fail "read failed"
rd "$dev" 4K 160 > /dev/null || ts_fail "read failed"
ts_assert_eq 3 "$(counter "$dev" READS)" "read-ahead: reads"
ts_assert_eq 2 "$(counter "$dev" RA_HITS)" "read-ahead: hits"
detach "$dev"
dev=$(ts_emu_attach --profile hdd-7200 --size 64M)
rd "$dev" 64K 10 > /dev/null && rd "$dev" 64K 10 > /dev/null || ts_fail "read failed"
ts_assert_eq 0 "$(counter "$dev" RA_HITS)" "no read-ahead: hits"
# a rotating disk says so (the measurement's checks of a revolution need it)
ts_assert_eq 1 "$(cat "/sys/block/${dev#/dev/}/queue/rotational")" "hdd model: rotational"
detach "$dev"

# the RMW buffer: a misaligned 4 KiB write on 4096/LBA 7 (cache off) a
# second time finds both partial sectors in the buffer
dev=$(ts_emu_attach --profile hdd-lba7-rmwbuf --size 64M)
wr "$dev" "$TS_TMP/o4k" 4096 10 || ts_fail "write failed"
ts_assert_eq 2 "$(counter "$dev" RMW)" "rmw buffer: first write's partial sectors"
ts_assert_eq 0 "$(counter "$dev" RMW_BUFFERED)" "rmw buffer: empty at first"
wr "$dev" "$TS_TMP/o4k" 4096 10 || ts_fail "write failed"
ts_assert_eq 4 "$(counter "$dev" RMW)" "rmw buffer: both writes' partial sectors"
ts_assert_eq 2 "$(counter "$dev" RMW_BUFFERED)" "rmw buffer: served from the buffer"
detach "$dev"

# ignored flushes: every O_DSYNC write's flush is acknowledged and ignored
dev=$(ts_emu_attach --profile usb-bridge-noflush --size 64M)
ts_assert_eq "on write back" "$(ts_emu_write_cache "$dev")" "the bridge's cache"
for i in 1 2 3; do
	wr "$dev" "$TS_TMP/r64k" 64K "$i" dsync || ts_fail "dsync write failed"
done
flushes=$(counter "$dev" FLUSHES)
[ "$flushes" -ge 3 ] || ts_fail "dsync writes: $flushes flushes, expected 3 or more"
ts_assert_eq "$flushes" "$(counter "$dev" FLUSHES_IGNORED)" "every flush ignored"
rd "$dev" 64K 2 | cmp -s - "$TS_TMP/r64k" || ts_fail "the written data does not read back"
ts_assert_eq on "$(counter "$dev" POWER)" "power before the cut"

# ... and the power cut loses them: EIO until power on, then the old data
ts_run_rc 0 "$ALIGNPROBE" emulate --power-cut "$dev"
ts_assert_eq off "$(counter "$dev" POWER)" "power after the cut"
ts_assert_eq 1 "$(counter "$dev" POWER_CUTS)" "power cuts"
ts_assert_eq 3 "$(counter "$dev" LOST_WRITES)" "writes the cut undid"
errors=$(counter "$dev" ERRORS)
rd "$dev" 64K 2 > /dev/null 2>&1 && ts_fail "a read without power succeeded"
[ "$(counter "$dev" ERRORS)" -gt "$errors" ] || ts_fail "the read without power was not counted"
wr "$dev" "$TS_TMP/r64k" 64K 5 2>/dev/null && ts_fail "a write without power succeeded"
ts_run_rc 0 "$ALIGNPROBE" emulate --power-on "$dev"
ts_assert_eq on "$(counter "$dev" POWER)" "power restored"
rd "$dev" 64K 1 3 | cmp -s - <(head -c $((3 * 65536)) /dev/zero) ||
	ts_fail "after the power cut the unflushed writes are still there"
detach "$dev"

# a write in flight into the cache is lost too, and not counted as acknowledged
dev=$(ts_emu_attach --spec usb-bridge-noflush,size=64M,cut-after=2)
wr "$dev" "$TS_TMP/r64k" 64K 1 dsync && wr "$dev" "$TS_TMP/r64k" 64K 2 dsync ||
	ts_fail "dsync write failed"
wr "$dev" "$TS_TMP/r64k" 64K 3 dsync 2>/dev/null && ts_fail "the write in flight succeeded"
ts_assert_eq 2 "$(counter "$dev" LOST_WRITES)" "cached writes lost with one in flight"
ts_assert_eq 0 "$(counter "$dev" TORN)" "a cached write is not torn"
ts_run_rc 0 "$ALIGNPROBE" emulate --power-on "$dev"
rd "$dev" 64K 1 3 | cmp -s - <(head -c $((3 * 65536)) /dev/zero) ||
	ts_fail "writes survived the cut of a cache that ignores flushes"
detach "$dev"

# honoured flushes make writes durable: nothing is lost
dev=$(ts_emu_attach --profile hdd-7200 --size 64M)
wr "$dev" "$TS_TMP/r64k" 64K 2 dsync || ts_fail "dsync write failed"
ts_run_rc 0 "$ALIGNPROBE" emulate --power-cut "$dev"
ts_assert_eq 0 "$(counter "$dev" LOST_WRITES)" "flushed writes lost"
ts_run_rc 0 "$ALIGNPROBE" emulate --power-on "$dev"
rd "$dev" 64K 2 | cmp -s - "$TS_TMP/r64k" || ts_fail "a flushed write was lost"
detach "$dev"

# cut-after=1: the second write is in flight when the power goes; a 512-byte
# write at LBA 9 on a 4096 drive (cache off) tears the sector 8..15
dev=$(ts_emu_attach --spec hdd-7200-nocache,size=64M,cut-after=1)
wr "$dev" "$TS_TMP/o4k" 4096 1 || ts_fail "the first write failed"
wr "$dev" "$TS_TMP/n512" 512 9 2>/dev/null && ts_fail "the write in flight succeeded"
ts_assert_eq off "$(counter "$dev" POWER)" "cut-after: power"
ts_assert_eq 1 "$(counter "$dev" TORN)" "cut-after: torn sectors"
ts_assert_eq 1 "$(counter "$dev" WRITES)" "cut-after: writes served"
ts_run_rc 0 "$ALIGNPROBE" emulate --power-on "$dev"
# o x512, n x512, o x1024, 0xdb x2048
{
	head -c 512 "$TS_TMP/o4k"
	cat "$TS_TMP/n512"
	head -c 1024 "$TS_TMP/o4k"
	head -c 2048 /dev/zero | tr '\0' '\333'
} > "$TS_TMP/torn"
rd "$dev" 4K 1 | cmp - "$TS_TMP/torn" >&2 || ts_fail "the torn sector is not as the model says"
wr "$dev" "$TS_TMP/n512" 512 9 || ts_fail "a write after power on failed (cut-after fires once)"
detach "$dev"

# armed at run time: after one more write, the next one is in flight
dev=$(ts_emu_attach --profile hdd-7200-nocache --size 16M)
wr "$dev" "$TS_TMP/o4k" 4096 1 && wr "$dev" "$TS_TMP/o4k" 4096 2 || ts_fail "write failed"
ts_run_rc 0 "$ALIGNPROBE" emulate --power-cut-after 1 "$dev"
wr "$dev" "$TS_TMP/o4k" 4096 3 || ts_fail "the write before the armed cut failed"
ts_assert_eq on "$(counter "$dev" POWER)" "armed: power before the cut"
wr "$dev" "$TS_TMP/o4k" 4096 4 2>/dev/null && ts_fail "the armed cut's write succeeded"
ts_assert_eq off "$(counter "$dev" POWER)" "armed: power after the cut"
ts_assert_eq 3 "$(counter "$dev" WRITES)" "armed: writes served"
ts_run_rc 0 "$ALIGNPROBE" emulate --power-on "$dev"
rd "$dev" 4K 4 | cmp -s - <(head -c 4096 /dev/zero) || ts_fail "the aligned write in flight was written"
detach "$dev"

# the peer loses power at the same moment
peer=$(ts_emu_attach --profile flash-8k --size 16M)
ts_assert_eq 0 "$(cat "/sys/block/${peer#/dev/}/queue/rotational")" "flash model: rotational"
dev=$(ts_emu_attach --spec "hdd-7200,size=16M,cut-peer=$peer")
ts_run_rc 0 "$ALIGNPROBE" emulate --power-cut "$dev"
ts_assert_eq off "$(counter "$peer" POWER)" "the peer's power"
ts_run_rc 0 "$ALIGNPROBE" emulate --power-on "$peer"
ts_run_rc 0 "$ALIGNPROBE" emulate --power-on "$dev"
detach "$dev"
detach "$peer"

# not an emulated drive: bad input
ts_run_rc 2 "$ALIGNPROBE" emulate --power-cut /dev/null
ts_run_rc 2 "$ALIGNPROBE" emulate --power-on /nonexistent
ts_run_rc 2 "$ALIGNPROBE" emulate --power-cut-after 1 /dev/null
ts_run_rc 2 "$ALIGNPROBE" emulate --power-cut-after x /dev/null
grep -q "^alignprobe emulate: --power-cut-after 'x': not a number of writes" "$TS_TMP/err" ||
	ts_fail "--power-cut-after x: $(cat "$TS_TMP/err")"
ts_run_rc 2 "$ALIGNPROBE" emulate --host-busy 2s /dev/null
grep -q "^alignprobe emulate: --host-busy '2s': not a time from 0 to 1s" "$TS_TMP/err" ||
	ts_fail "--host-busy 2s: $(cat "$TS_TMP/err")"
ts_run_rc 2 "$ALIGNPROBE" emulate --host-busy 1ms --power-cut-after 1 /dev/null
grep -q "^alignprobe emulate: --power-cut-after goes with no other action" "$TS_TMP/err" ||
	ts_fail "two actions: $(cat "$TS_TMP/err")"
ts_run_rc 2 "$ALIGNPROBE" emulate --attach --spec hdd-7200,cut-peer=/dev/null
ts_pass
