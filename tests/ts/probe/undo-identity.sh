#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# `probe --undo` restores only the disk the journal was written for (issue
# 14, item 1). A preserving probe of loop device A is killed with SIGKILL;
# then:
#   - --undo onto loop device B of the same size is refused (exit 3), names
#     the identity field that differs, keeps the journal and writes nothing;
#   - A is detached and its image attached again under another /dev/loopN
#     (another image of the same size now sits at the old name): --undo
#     without a device finds the disk by its identity and restores it;
#   - with no device of that identity attached, --undo refuses (exit 3) and
#     says what it looked for; with the right device named it restores,
#     verifies and removes the journal;
#   - a journal of an older format (no CRC over its record headers) is
#     refused (exit 2) and kept;
#   - probe --json reports the identity of each device.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "probe --undo checks the disk's identity"
# journal_complete J: the undo journal's "complete" flag (byte 12) is set
journal_complete() { [ "$(od -An -tu4 -j12 -N4 "$1" 2>/dev/null | tr -d ' ')" = 1 ]; }
ts_need_loop
ts_need_cmd head dd od cmp sha256sum python3

head -c 32M /dev/urandom > "$TS_TMP/da.img" || ts_fail "cannot create da.img"
head -c 32M /dev/urandom > "$TS_TMP/db.img" || ts_fail "cannot create db.img"
head -c 32M /dev/urandom > "$TS_TMP/filler.img" || ts_fail "cannot create filler.img"
da_sum=$(ts_checksum "$TS_TMP/da.img")
db_sum=$(ts_checksum "$TS_TMP/db.img")
filler_sum=$(ts_checksum "$TS_TMP/filler.img")
journal=$TS_TMP/j.journal

# preserve_killed DEV: a preserving probe of DEV, SIGKILLed once its undo
# journal is complete (header flags at byte 12, bit 0), i.e. in the middle
# of the measurement; then the first probed range is damaged as a torn
# write would leave it, so that the restore has something to write (with
# --force: without it, undo refuses a range changed since the probe).
preserve_killed() {
	local dev=$1 pid flags=
	rm -f "$journal"
	# far more rounds than any machine finishes before the kill
	"$ALIGNPROBE" probe --preserve -q --min-rounds 1000 --max-rounds 1000 \
		--time-budget 10m --journal "$journal" "$dev" >/dev/null 2>"$TS_TMP/probe.err" &
	pid=$!
	ts_bg_pid "$pid"
	flags=0
	ts_wait_for -p "$pid" "the journal to be complete" journal_complete "$journal" && flags=1
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	[ "$flags" = 1 ] || { cat "$TS_TMP/probe.err" >&2; ts_fail "the journal never became complete"; }
	[ -f "$journal" ] || ts_fail "the probe ended before the kill (journal removed)"
	dd if=/dev/urandom of="$dev" bs=64K count=1 seek=16 oflag=direct conv=notrunc \
		status=none || ts_fail "cannot damage $dev"
}

LA=$(ts_loop_attach "$TS_TMP/da.img")
LB=$(ts_loop_attach "$TS_TMP/db.img")
ts_log "A = $LA, B = $LB"

# --- the wrong disk of the same size, named: refused, nothing written ---
ts_subtest wrong-disk-same-size
preserve_killed "$LA"
ts_run_rc 3 "$ALIGNPROBE" probe --undo "$journal" "$LB"
grep -q "$LB is not the disk this journal was written for" "$TS_TMP/err" ||
	ts_fail "no clear refusal: $(cat "$TS_TMP/err")"
grep -q "backing file differs" "$TS_TMP/err" || ts_fail "the differing field is not named: $(cat "$TS_TMP/err")"
grep -q "db.img" "$TS_TMP/err" || ts_fail "the device's backing file is not named: $(cat "$TS_TMP/err")"
[ -f "$journal" ] || ts_fail "the journal was removed after a refusal"
ts_assert_eq "$db_sum" "$(ts_checksum "$LB")" "B's bytes after the refused --undo"
# the override for old journals does not override a different identity
ts_run_rc 3 "$ALIGNPROBE" probe --undo "$journal" --allow-unidentified "$LB"
ts_assert_eq "$db_sum" "$(ts_checksum "$LB")" "B's bytes after --allow-unidentified"
[ -f "$journal" ] || ts_fail "the journal was removed after the second refusal"

# --- after "the reboot": the image under another name, another disk at the old one ---
# attach A's image a second time first, so that it surely gets another number
ts_subtest after-the-reboot
LC=$(ts_loop_attach "$TS_TMP/da.img")
losetup -d "$LA" || ts_fail "cannot detach $LA"
filler=
if losetup "$LA" "$TS_TMP/filler.img" 2>/dev/null; then
	echo "$LA $TS_TMP/filler.img" >> "$TS_TMP/.loops"
	filler=$LA
fi
ts_log "A's image is now $LC; ${filler:+$filler holds another image of the same size}"
[ "$LC" != "$LA" ] || ts_fail "the image got its old name back"
ts_run_rc 0 "$ALIGNPROBE" probe --force --undo "$journal"
grep -q "^$LC: restored from $journal: .* every byte verified; journal removed" "$TS_TMP/out" ||
	ts_fail "not restored to $LC: $(cat "$TS_TMP/out")"
grep -q "found by its identity; the journal named it $LA" "$TS_TMP/out" ||
	ts_fail "the new name is not explained: $(cat "$TS_TMP/out")"
[ -e "$journal" ] && ts_fail "the journal was not removed"
ts_assert_eq "$da_sum" "$(ts_checksum "$LC")" "A's bytes after --undo without a device"
[ -n "$filler" ] && ts_assert_eq "$filler_sum" "$(ts_checksum "$filler")" \
	"the other image at A's old name"
grep -ls "^kind=journal" "$ALIGNPROBE_STATE_DIR"/* && ts_fail "the journal is still registered"

# --- no device has the journal's identity: refused, naming what it looked for ---
ts_subtest no-device-with-identity
preserve_killed "$LC"
damaged=$(ts_checksum "$LC")
losetup -d "$LC" || ts_fail "cannot detach $LC"
ts_run_rc 3 "$ALIGNPROBE" probe --undo "$journal"
grep -q "no device is the journal's disk" "$TS_TMP/err" || ts_fail "no refusal: $(cat "$TS_TMP/err")"
grep -q "da.img" "$TS_TMP/err" || ts_fail "what was looked for is not said: $(cat "$TS_TMP/err")"
[ -f "$journal" ] || ts_fail "the journal was removed although no disk matched"
[ -n "$filler" ] && ts_assert_eq "$filler_sum" "$(ts_checksum "$filler")" "the other image"
ts_assert_eq "$db_sum" "$(ts_checksum "$LB")" "B's bytes"
ts_assert_eq "$damaged" "$(ts_checksum "$TS_TMP/da.img")" "A's image while it was detached"

# --- the right disk, named: restored, verified, journal removed ---
ts_subtest right-disk-restored
LD=$(ts_loop_attach "$TS_TMP/da.img")
ts_run_rc 3 "$ALIGNPROBE" probe --undo "$journal" "$LD"
grep -q "changed since the probe" "$TS_TMP/err" || ts_fail "no refusal: $(cat "$TS_TMP/err")"
ts_run_rc 0 "$ALIGNPROBE" probe --force --undo "$journal" "$LD"
grep -q "^$LD: restored from $journal: .* [1-9][0-9]* rewritten, every byte verified; journal removed" \
	"$TS_TMP/out" || ts_fail "not restored: $(cat "$TS_TMP/out")"
[ -e "$journal" ] && ts_fail "the journal was not removed"
ts_assert_eq "$da_sum" "$(ts_checksum "$LD")" "A's bytes after --undo to the named device"

# --- a journal of an older format: refused, kept, nothing written ---
ts_subtest older-journal-format
preserve_killed "$LD"
damaged=$(ts_checksum "$LD")
python3 - "$journal" <<'PY' || ts_fail "cannot make a version 2 journal"
import struct, sys, zlib
p = sys.argv[1]
with open(p, "r+b") as f:
    h = bytearray(f.read(4096))
    assert struct.unpack_from("<I", h, 8)[0] == 4
    assert struct.unpack_from("<I", h, 52)[0] == 4096, "header longer than 4096 bytes"
    struct.pack_into("<I", h, 8, 2)
    struct.pack_into("<I", h, 4092, zlib.crc32(bytes(h[:4092])))
    f.seek(0)
    f.write(h)
PY
ts_run_rc 2 "$ALIGNPROBE" probe --undo "$journal" --force
grep -q "written by an older alignprobe" "$TS_TMP/err" || ts_fail "old journal: $(cat "$TS_TMP/err")"
[ -f "$journal" ] || ts_fail "the old journal was removed after a refusal"
ts_assert_eq "$damaged" "$(ts_checksum "$LD")" "A's bytes after the refused old journal"
rm -f "$journal"
ts_run_rc 2 "$ALIGNPROBE" probe --allow-unidentified "$LD"

# --- the identity in probe's JSON ---
# (a loop device may or may not show a clear verdict: 0 or 5)
ts_subtest identity-in-json
"$ALIGNPROBE" probe --preserve --json --max-size 8K --max-rounds 3 --time-budget 1m \
	--journal "$journal" "$LB" > "$TS_TMP/out" 2> "$TS_TMP/err"
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 5 ] || { cat "$TS_TMP/err" >&2; ts_fail "probe --json exited $rc"; }
python3 - "$TS_TMP/out" "$TS_TMP/db.img" <<'PY' || ts_fail "no identity in the JSON"
import json, os, sys
d = json.load(open(sys.argv[1]))
i = d["identity"]
for k in ("wwn", "serial", "model", "vendor", "revision", "size", "logical_sector"):
    assert k in i, k
assert i["loop"] is True and i["backing_file"] == os.path.realpath(sys.argv[2]), i
assert i["backing_inode"] == os.stat(sys.argv[2]).st_ino, i
assert i["size"] == 32 << 20 and i["logical_sector"] == 512, i
# preserve: the content the journal recorded, outside the probe's writes
assert len(i["content"]) == 2 and i["content"][0]["offset"] == 0, i["content"]
assert not i["content"][0]["uniform"], i["content"]
PY
ts_assert_eq "$db_sum" "$(ts_checksum "$LB")" "B's bytes after a preserving probe"
ts_pass
