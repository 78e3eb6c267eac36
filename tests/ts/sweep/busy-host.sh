#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A host busy while the sweep measures whether the disk rotates must not
# make a disk that does not rotate look like a rotating one whose write
# cache ignores flushes. Before the first step the sweep times reads a seek
# away (a rotating disk: a millisecond and more) and then one-sector
# synchronous writes; a rotating disk cannot take those in less than a
# millisecond. Under CI's load (safety/interrupt, a loop device over a
# file) the reads took a millisecond and more, the writes 422 us, and the
# sweep stopped: "the drive acknowledged synchronous writes in 422 us ...
# its write cache ignores flushes", no step run. Now the reads are timed
# again, elsewhere, when the writes disagree, and the smaller of the two
# stands (a busy host only adds time).
#
# Here the host is busy for the first reads only: an emulated drive that
# does not rotate (no request cost) with `emulate --host-busy 3ms`, taken
# back at the ALIGNPROBE_TEST_SWEEP_CALIBRATED seam (the reads done, the
# writes not yet). The sweep must run its step. A rotating disk whose cache
# ignores flushes is still named (sweep/quirks.sh).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh" || exit 99
. "$top_srcdir/tests/ts/sweep/common.sh"
ts_init "sweep: a host busy during the rotation check is not a rotating disk"
ts_alone "times the emulated drive's reads against a millisecond"
ts_need_emulator
ts_need_cmd mkfs.ext4
sw_private_tmpdir

D=$(ts_emu_attach --size 256M --phys 4096 --rmw-cost 300us)
printf 'set number 8\nset transactions 16\nset size 512 2048\nrun\n' > "$TS_TMP/tiny.pm"
"$ALIGNPROBE" emulate --host-busy 3ms "$D" || ts_fail "emulate --host-busy 3ms $D"

rm -f "$TS_TMP/go" "$TS_TMP/go.reached"
ALIGNPROBE_TEST_SWEEP_CALIBRATED=$TS_TMP/go \
	"$ALIGNPROBE" sweep --yes --quiet --rounds 1 --starts 40 --size 16M -w "$TS_TMP/tiny.pm" \
	"$D" > "$TS_TMP/sweep.out" 2> "$TS_TMP/sweep.err" < /dev/null &
spid=$!
ts_bg_pid "$spid"
sw_wait_seam "$spid" "$TS_TMP/go" "calibrated"
# the host is no longer busy: the writes and whatever comes after are the drive's
"$ALIGNPROBE" emulate --host-busy 0 "$D" || ts_fail "emulate --host-busy 0 $D"
touch "$TS_TMP/go"
wait "$spid"
rc=$?
if grep -q "ignores flushes" "$TS_TMP/sweep.err"; then
	cat "$TS_TMP/sweep.err" >&2
	ts_fail "a busy host's slow reads made the drive a rotating disk whose cache ignores flushes"
fi
# 0 verdict, 5 no verdict (one start, one round): the step ran either way
[ $rc = 0 ] || [ $rc = 5 ] || { cat "$TS_TMP/sweep.err" >&2; ts_fail "the sweep failed ($rc)"; }
grep -q "^ *40 " "$TS_TMP/sweep.out" ||
	{ cat "$TS_TMP/sweep.out" "$TS_TMP/sweep.err" >&2; ts_fail "the sweep ran no step"; }

# --host-busy's bad input
ts_run_rc 2 "$ALIGNPROBE" emulate --host-busy 5 "$D"
grep -q "host-busy '5': not a time" "$TS_TMP/err" || ts_fail "--host-busy 5: $(cat "$TS_TMP/err")"
ts_run_rc 2 "$ALIGNPROBE" emulate --host-busy 2s "$D"
ts_run_rc 2 "$ALIGNPROBE" emulate --host-busy 1ms --stats "$D"
ts_pass
