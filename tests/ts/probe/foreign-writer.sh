#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A preserving probe never writes its saved bytes over another writer's
# (issue 31, item 3). O_EXCL keeps out mounts and exclusive openers, not a
# plain writer: a `dd oflag=direct` into a probed slot during the probe
# succeeded, and the probe put its saved bytes over it and said "verified
# identical (1 rewritten)". The probe is paused after its measurement,
# before it checks the slots (the ALIGNPROBE_TEST_PROBE_MEASURED seam); dd
# writes 4 KiB into slot 2; then the probe must leave that range alone:
# exit 3, the range named, the journal kept, dd's bytes on the drive and
# every other byte the original. `probe --force --undo` then puts the
# original back (the user's choice).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "probe --preserve leaves another writer's bytes alone"
ts_need_emulator
ts_need_cmd head dd cmp sha256sum

head -c 16M /dev/urandom > "$TS_TMP/img" || ts_fail "cannot create the random image"
head -c 4096 /dev/urandom > "$TS_TMP/theirs" || ts_fail "cannot create the writer's data"
orig=$(ts_checksum "$TS_TMP/img")
journal=$TS_TMP/undo.journal
go=$TS_TMP/go
D=$(ts_emu_attach --image "$TS_TMP/img" --spec "simple,phys=4096,lba=0,rmw=300us")
# slot 2's record starts at 3 MiB (1 MiB stride), its span 8 KiB (the
# largest size: the margin) later; the writer's 4 KiB lie 4 KiB into it
at=$((3 * 1048576 + 8192 + 4096))

ALIGNPROBE_TEST_PROBE_MEASURED=$go "$ALIGNPROBE" probe --preserve --quiet --max-size 8K \
	--max-rounds 3 --seed 9 --journal "$journal" "$D" > "$TS_TMP/pout" 2> "$TS_TMP/perr" &
pid=$!
ts_bg_pid "$pid"
ts_wait_for -p "$pid" "the probe to finish measuring" test -e "$go.reached" ||
	ts_fail "the probe ended first: $(cat "$TS_TMP/perr")"
dd if="$TS_TMP/theirs" of="$D" bs=4096 seek=$((at / 4096)) oflag=direct conv=notrunc \
	status=none || ts_fail "the other writer's dd failed"
touch "$go"
wait "$pid"
rc=$?
[ "$rc" = 3 ] || ts_fail "the probe exited $rc: $(cat "$TS_TMP/perr")"
grep -q "changed since the probe.*bytes $at+4096;" "$TS_TMP/perr" ||
	ts_fail "the range is not named: $(cat "$TS_TMP/perr")"
grep -q "written by someone else during the probe and are left as they are; the undo journal $journal is kept" \
	"$TS_TMP/perr" || ts_fail "no word of what was done: $(cat "$TS_TMP/perr")"
grep -q "verified identical" "$TS_TMP/pout" && ts_fail "the probe claims the data verified"
[ -e "$journal" ] || ts_fail "the journal was not kept"
# the writer's bytes are still there, every other byte is the original
dd if="$D" iflag=direct,skip_bytes,count_bytes skip="$at" count=4096 status=none |
	cmp -s - "$TS_TMP/theirs" || ts_fail "the probe wrote over the other writer's bytes"
cp "$TS_TMP/img" "$TS_TMP/want"
dd if="$TS_TMP/theirs" of="$TS_TMP/want" bs=4096 seek=$((at / 4096)) conv=notrunc status=none
ts_assert_eq "$(ts_checksum "$TS_TMP/want")" \
	"$(dd if="$D" iflag=direct bs=1M status=none | sha256sum | cut -d' ' -f1)" \
	"the drive: the original, the other writer's 4 KiB"
# the user decides: --force --undo puts the original back
ts_run_rc 0 "$ALIGNPROBE" probe --force --undo "$journal"
[ -e "$journal" ] && ts_fail "--undo left the journal"
ts_assert_eq "$orig" "$(dd if="$D" iflag=direct bs=1M status=none | sha256sum | cut -d' ' -f1)" \
	"the drive after --force --undo"
ts_pass
