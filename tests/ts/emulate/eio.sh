#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Fault injection: EIO for requests touching an LBA range (reads and/or
# writes), or once N requests were served, surfaces as EIO to the writer.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "fault injection surfaces as EIO"
ts_need_emulator
ts_need_cmd dd

counter() {
	"$ALIGNPROBE" emulate --stats "$1" -n -r -o "$2" || ts_fail "emulate --stats $1 failed"
}

# dd_at DEV LBA r|w: one 4 KiB direct request, output in $TS_TMP/dd.err
dd_at() {
	if [ "$3" = w ]; then
		dd if=/dev/zero of="$1" bs=4096 count=1 seek=$(($2 * 512)) \
			oflag=direct,seek_bytes status=none 2> "$TS_TMP/dd.err"
	else
		dd if="$1" of=/dev/null bs=4096 count=1 skip=$(($2 * 512)) \
			iflag=direct,skip_bytes status=none 2> "$TS_TMP/dd.err"
	fi
}

dev=$(ts_emu_attach --size 8M --rmw-cost 100us --fail-lba 1000 --fail-count 16)
"$ALIGNPROBE" emulate --reset-stats "$dev"
dd_at "$dev" 1000 w && ts_fail "write into the fault range succeeded"
grep -q "Input/output error" "$TS_TMP/dd.err" || ts_fail "write: not EIO: $(cat "$TS_TMP/dd.err")"
dd_at "$dev" 1008 r && ts_fail "read in the fault range succeeded"
grep -q "Input/output error" "$TS_TMP/dd.err" || ts_fail "read: not EIO: $(cat "$TS_TMP/dd.err")"
dd_at "$dev" 1016 w || ts_fail "write after the range failed: $(cat "$TS_TMP/dd.err")"
dd_at "$dev" 992 r || ts_fail "read before the range failed: $(cat "$TS_TMP/dd.err")"
dd_at "$dev" 993 w && ts_fail "write overlapping the range's first sector succeeded"
ts_assert_eq 3 "$(counter "$dev" ERRORS)" "errors"
ts_assert_eq 1 "$(counter "$dev" WRITES)" "successful writes"

# writes only: reads of the range still work
dev=$(ts_emu_attach --size 8M --rmw-cost 100us --fail-lba 64 --fail-count 8 --fail-writes)
dd_at "$dev" 64 r || ts_fail "--fail-writes: read failed: $(cat "$TS_TMP/dd.err")"
dd_at "$dev" 64 w && ts_fail "--fail-writes: write succeeded"
grep -q "Input/output error" "$TS_TMP/dd.err" || ts_fail "not EIO: $(cat "$TS_TMP/dd.err")"

# after N requests (counted from the last reset): the third write fails
dev=$(ts_emu_attach --spec size=8M,rmw=100us,fail-after=2,fail-rw=w)
"$ALIGNPROBE" emulate --reset-stats "$dev"
dd_at "$dev" 0 w || ts_fail "fail-after: write 1 failed"
dd_at "$dev" 8 r || ts_fail "fail-after: a read failed (writes only)"
dd_at "$dev" 8 w || ts_fail "fail-after: write 2 failed"
dd_at "$dev" 16 w && ts_fail "fail-after: write 3 succeeded"
grep -q "Input/output error" "$TS_TMP/dd.err" || ts_fail "not EIO: $(cat "$TS_TMP/dd.err")"
"$ALIGNPROBE" emulate --reset-stats "$dev"
dd_at "$dev" 16 w || ts_fail "fail-after: a write after the reset failed"
ts_pass
