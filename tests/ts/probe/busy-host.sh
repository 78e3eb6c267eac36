#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A host busy while the probe times whether the disk rotates must not make
# a drive that does not rotate look like a rotating one. The probe times
# reads a seek away first (a rotating disk: a millisecond and more); on a
# rotating disk it reads a lead-in before each write and checks that those
# reads, and the synchronous writes, take as long as its media must. Under
# four tests at a time fleet/alerts' drive (300 us a request, no rotation)
# gave reads "2.1 ms and more a seek away", then lead-ins in under 0.4 ms,
# and the probe stopped: "the drive answered 36 of 62 lead-in reads from
# its buffer", exit 5. Now the reads are timed again, elsewhere, before a
# check fails the disk, and the smaller of the two stands (a busy host only
# adds time); a drive found not to rotate loses the checks and lead-ins.
#
# Here a drive of 100 us a request (lead-ins answered as fast as a buffer
# would) with the host busy for the first reads only: `emulate --host-busy 3ms`,
# taken back at the ALIGNPROBE_TEST_PROBE_CALIBRATED seam (the reads done,
# nothing written). The probe must find the drive's 4096-byte sectors.
# Rotating disks whose lead-ins or writes are answered too fast are still
# named (probe/quirks.sh).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "probe: a host busy during the rotation check is not a rotating disk"
ts_alone "times the emulated drive's reads against a millisecond"
ts_need_emulator
ts_need_cmd jq

dev=$(ts_emu_attach --size 256M --phys 4096 --lowest-aligned 0 --base-cost 100us --rmw-cost 1ms)
"$ALIGNPROBE" emulate --host-busy 3ms "$dev" || ts_fail "emulate --host-busy 3ms $dev"
rm -f "$TS_TMP/go" "$TS_TMP/go.reached"
ALIGNPROBE_TEST_PROBE_CALIBRATED=$TS_TMP/go \
	"$ALIGNPROBE" probe --yes -q --json --time-budget 20m "$dev" \
	> "$TS_TMP/probe.json" 2> "$TS_TMP/probe.err" < /dev/null &
pid=$!
ts_bg_pid "$pid"
ts_wait_for -p "$pid" "the probe to time the rotation" test -e "$TS_TMP/go.reached" ||
	ts_fail "the probe ended before its calibration: $(cat "$TS_TMP/probe.err")"
# the host is no longer busy: the writes and lead-ins are the drive's
"$ALIGNPROBE" emulate --host-busy 0 "$dev" || ts_fail "emulate --host-busy 0 $dev"
touch "$TS_TMP/go"
wait "$pid"
rc=$?
[ "$rc" = 0 ] || { cat "$TS_TMP/probe.err" >&2; ts_fail "probe exited $rc"; }
jq -e '.verdict.physical_sector == 4096 and .verdict.lowest_aligned_lba == 0 and
	.checks.rotating == false' "$TS_TMP/probe.json" > /dev/null ||
	{ jq -c '{verdict: .verdict.note, checks}' "$TS_TMP/probe.json" >&2
	  ts_fail "not 4096-byte sectors from LBA 0 on a drive found not to rotate"; }
ts_pass
