#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Undo never reverts what others wrote after the crash (issue 23, item 2).
# A loop device with a GPT and an ext4 partition; a preserving probe of the
# disk is SIGKILLed once its journal is complete; the partition is mounted,
# 40 files are written, it is unmounted and e2fsck finds it clean. A
# preserving probe writes back the bytes it read, so every journalled range
# that now differs was written by the file system: `probe --undo` refuses
# with exit 3, names the ranges (device byte offsets and lengths, inside the
# probe's region), keeps the journal and writes nothing -- the file system
# is still clean. `--undo --force` then restores the journal's bytes.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "probe --undo refuses ranges changed since the probe; --force restores them"
ts_need_loop
ts_need_cmd head dd od sha256sum parted mkfs.ext4 e2fsck partx

ts_image "$TS_TMP/disk.img" 64M
parted -s "$TS_TMP/disk.img" mklabel gpt mkpart data ext4 1MiB 63MiB || ts_fail "parted failed"
dev=$(ts_loop_attach "$TS_TMP/disk.img")
ts_part_node "$dev" || ts_fail "no partition node for $dev"
part=${dev}p1
mkfs.ext4 -q -F "$part" || ts_fail "mkfs.ext4 failed"
journal=$TS_TMP/undo.journal

ts_preserve_killed "$dev" "$journal"

# someone else uses the disk after the crash
ts_mount "$part" "$TS_TMP/mnt"
for i in $(seq 40); do
	head -c 256K /dev/urandom > "$TS_TMP/mnt/file$i" || ts_fail "cannot write file$i"
done
umount "$TS_TMP/mnt" || ts_fail "cannot unmount"
e2fsck -fn "$part" > "$TS_TMP/fsck" 2>&1 || { cat "$TS_TMP/fsck" >&2; ts_fail "e2fsck before --undo"; }
before=$(ts_checksum "$dev")

ts_run_rc 3 "$ALIGNPROBE" probe --undo "$journal"
grep -q "of the journal's ranges were changed since the probe" "$TS_TMP/err" ||
	ts_fail "no refusal naming the changed ranges: $(cat "$TS_TMP/err")"
grep -q "nothing was written, the journal is kept (--force" "$TS_TMP/err" ||
	ts_fail "the refusal does not say what was done: $(cat "$TS_TMP/err")"
# the ranges: OFFSET+LENGTH, sector-aligned, inside the region from 1 MiB
ranges=$(grep -o 'bytes [0-9][0-9+, ]*' "$TS_TMP/err" | sed 's/^bytes //; s/,/ /g')
[ -n "$ranges" ] || ts_fail "no range named: $(cat "$TS_TMP/err")"
for r in $ranges; do
	off=${r%+*} len=${r#*+}
	[ $((off % 512)) = 0 ] && [ $((len % 512)) = 0 ] && [ "$len" -gt 0 ] ||
		ts_fail "range $r is not whole sectors"
	[ "$off" -ge $((1 << 20)) ] && [ $((off + len)) -le $((64 << 20)) ] ||
		ts_fail "range $r is outside the probe's region"
done
ts_log "refused; named:" $ranges
[ -f "$journal" ] || ts_fail "the journal was removed after the refusal"
ts_assert_eq "$before" "$(ts_checksum "$dev")" "the disk after the refused --undo"
e2fsck -fn "$part" > "$TS_TMP/fsck" 2>&1 || { cat "$TS_TMP/fsck" >&2; ts_fail "e2fsck after the refusal"; }

# --force: the journal's bytes put back, verified, journal removed
ts_run_rc 0 "$ALIGNPROBE" probe --undo "$journal" --force
grep -q " [1-9][0-9]* rewritten, every byte verified; journal removed" "$TS_TMP/out" ||
	ts_fail "--force did not restore: $(cat "$TS_TMP/out")"
[ -e "$journal" ] && ts_fail "the journal was not removed after --force"
[ "$before" != "$(ts_checksum "$dev")" ] || ts_fail "--force wrote nothing"
# --force outside --undo is a usage error
ts_run_rc 2 "$ALIGNPROBE" probe --force --preserve "$dev"
ts_pass
