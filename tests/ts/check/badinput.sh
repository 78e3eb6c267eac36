#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every bad input: a clear message naming the device and the problem, the
# documented exit code (2: bad input; 1: runtime), no crash, nothing written.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "bad partition tables and bad arguments"
ts_untimed "partition tables in files and on plain loop devices"
ts_need_cmd sfdisk dd od sha256sum jq

good=$TS_TMP/good.img
img=$TS_TMP/bad.img
truncate -s 8M "$good"
printf 'label: gpt\nstart=2048,size=4096,name=one\nstart=6144,size=4096,name=two\n' |
	sfdisk -q --no-reread --no-tell-kernel "$good" >/dev/null || ts_fail "sfdisk"
last=$(( 8 * 2048 - 1 ))

flip() {	# flip FILE OFFSET: invert one byte
	local b
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	printf "$(printf '\\%03o' $(( 255 - b )))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# expect RC KIND "message" [check options]: exit code, the message on stderr,
# the issue kind in the JSON document, and the image unchanged
expect() {
	local rc=$1 kind=$2 msg=$3 sum
	shift 3
	sum=$(ts_checksum "$img")
	ts_run_rc "$rc" "$ALIGNPROBE" check "$@" "$img"
	grep -qF "alignprobe check: $img: $msg" "$TS_TMP/err" ||
		{ cat "$TS_TMP/err" >&2; ts_fail "$kind: expected message '$msg'"; }
	ts_run_rc "$rc" "$ALIGNPROBE" check -J "$@" "$img"
	jq -e --arg k "$kind" '.issues | map(select(.kind == $k and .severity == "error")) | length == 1' \
		"$TS_TMP/out" >/dev/null || { cat "$TS_TMP/out" >&2; ts_fail "$kind: not in the JSON issues"; }
	jq -e '.aligned == false' "$TS_TMP/out" >/dev/null || ts_fail "$kind: aligned is not false"
	ts_assert_eq "$sum" "$(ts_checksum "$img")" "$kind: the image was modified"
}

# the intact image passes
cp "$good" "$img"
ts_run_rc 0 "$ALIGNPROBE" check "$img"

# corrupt CRC: one byte of the primary header (disk GUID)
cp "$good" "$img"
flip "$img" $(( 512 + 60 ))
expect 2 primary_gpt_corrupt "the primary GPT at LBA 1 is corrupt (bad header CRC); the table was read from the backup GPT at LBA $last"
jq -e '.partitions | length == 2' "$TS_TMP/out" >/dev/null || ts_fail "partitions of the backup not listed"

# corrupt entry array of the primary
cp "$good" "$img"
flip "$img" $(( 1024 + 40 ))
expect 2 primary_gpt_corrupt "the primary GPT at LBA 1 is corrupt (bad partition entry array CRC)"

# corrupt backup header
cp "$good" "$img"
flip "$img" $(( last * 512 + 60 ))
expect 2 backup_gpt_corrupt "the backup GPT at LBA $last is corrupt or missing (bad header CRC); the primary GPT was used"

# primary and backup disagreeing: both valid, the backup still lists partition 2
cp "$good" "$img"
dd if="$img" of="$TS_TMP/backup" bs=512 skip=$(( last - 32 )) status=none
sfdisk -q --no-reread --no-tell-kernel --delete "$img" 2 >/dev/null || ts_fail "sfdisk --delete"
dd if="$TS_TMP/backup" of="$img" bs=512 seek=$(( last - 32 )) conv=notrunc status=none
expect 2 gpt_mismatch "the primary GPT (LBA 1) and the backup GPT (LBA $last) disagree: partition entry 2 is unused in the primary, sectors 6144-10239 in the backup"

# protective MBR without a GPT
cp "$good" "$img"
dd if=/dev/zero of="$img" bs=512 seek=1 count=1 conv=notrunc status=none
dd if=/dev/zero of="$img" bs=512 seek="$last" count=1 conv=notrunc status=none
expect 2 pmbr_without_gpt "a protective MBR (partition type 0xee) but no GPT header, neither at LBA 1 nor at the last LBA $last"

# a GPT whose protective MBR was wiped
cp "$good" "$img"
dd if=/dev/zero of="$img" bs=512 count=1 conv=notrunc status=none
expect 2 gpt_without_pmbr "a GPT header at LBA 1, but no protective MBR in sector 0"

# GPT image truncated after partitioning
cp "$good" "$img"
truncate -s 5M "$img"
expect 2 gpt_truncated "the GPT at LBA 1 describes a disk of 16384 sectors (backup GPT at LBA $last, last usable LBA $(( last - 33 ))), but this one has only 10240"

# overlapping partitions (DOS), crafted: partition 2's start moved into partition 1
rm -f "$img"
truncate -s 16M "$img"
printf 'label: dos\nstart=2048,size=8192\nstart=10240,size=8192\n' |
	sfdisk -q --no-reread --no-tell-kernel "$img" >/dev/null || ts_fail "sfdisk dos"
printf '\x00\x20\x00\x00' | dd of="$img" bs=1 seek=$(( 446 + 16 + 8 )) conv=notrunc status=none
expect 2 overlap "partitions 1 and 2 overlap (sectors 8192-10239)"

# DOS partition past the end: the image truncated after partitioning
rm -f "$img"
truncate -s 16M "$img"
printf 'label: dos\nstart=2048,size=8192\nstart=10240,size=20480\n' |
	sfdisk -q --no-reread --no-tell-kernel "$img" >/dev/null || ts_fail "sfdisk dos"
truncate -s 12M "$img"
expect 2 past_end "partition 2 (sectors 10240-30719) ends past the end of the disk (24576 sectors): the image is truncated or the disk shrank"

# an image too small to hold a table, an empty one, one without a table
head -c 300 /dev/zero > "$img"
expect 2 too_small "300 bytes, smaller than one 512-byte sector: too small to hold a partition table"
: > "$img"
expect 2 too_small "0 bytes, smaller than one 512-byte sector"
rm -f "$img"
truncate -s 1M "$img"
expect 2 no_table "no partition table (neither MBR nor GPT, nor any type libblkid reads) and no file system on the whole disk"

# a 512-byte-sector GPT read as 4Kn: a table for another sector size (exit 7)
cp "$good" "$img"
expect 7 foreign_sector_size "the GPT partition table was written for 512-byte logical sectors, not for the 4096-byte sectors it is read with here" --sector-size 4096

# warnings do not fail the check: an image grown after partitioning
cp "$good" "$img"
truncate -s 10M "$img"
ts_run_rc 0 "$ALIGNPROBE" check "$img"
grep -q "warning: the backup GPT is at LBA $last, not on the last LBA $(( 10 * 2048 - 1 ))" "$TS_TMP/err" ||
	ts_fail "no warning for a misplaced backup GPT"
ts_run_rc 0 "$ALIGNPROBE" check -q "$img"
[ -s "$TS_TMP/err" ] && ts_fail "--quiet printed a warning"

# things that are not disks
ts_run_rc 2 "$ALIGNPROBE" check "$TS_TMP/nonexistent.img"
grep -q "alignprobe check: $TS_TMP/nonexistent.img: No such file or directory" "$TS_TMP/err" ||
	ts_fail "nonexistent file message"
ts_run_rc 2 "$ALIGNPROBE" check "$TS_TMP"
grep -q "is a directory" "$TS_TMP/err" || ts_fail "directory message"
ts_run_rc 2 "$ALIGNPROBE" check /dev/null
grep -q "neither a block device nor an image file" "$TS_TMP/err" || ts_fail "/dev/null message"

# bad --geometry files
cp "$good" "$img"
ts_run_rc 2 "$ALIGNPROBE" check --geometry "$TS_TMP/none.json" "$img"
grep -q "$TS_TMP/none.json: No such file or directory" "$TS_TMP/err" || ts_fail "missing geometry file"
echo '{"verdict": {' > "$TS_TMP/bad.json"
ts_run_rc 2 "$ALIGNPROBE" check --geometry "$TS_TMP/bad.json" "$img"
grep -q "$TS_TMP/bad.json: not valid JSON" "$TS_TMP/err" || ts_fail "invalid JSON"
echo '{"device": "x", "results": []}' > "$TS_TMP/bad.json"
ts_run_rc 2 "$ALIGNPROBE" check --geometry "$TS_TMP/bad.json" "$img"
grep -q "not a probe or sweep result" "$TS_TMP/err" || ts_fail "JSON without a verdict"
cat > "$TS_TMP/bad.json" <<JSON
{"device": "$img", "verdict": {"sensitive": false, "resolved": false, "logical_sector": 512,
 "reported_physical_sector": 512, "physical_sector": null, "lowest_aligned_lba": null,
 "fast_starts": [], "slowdown": 1.0, "p_value": 1.0, "confidence": 0.0}}
JSON
ts_run_rc 2 "$ALIGNPROBE" check --geometry "$TS_TMP/bad.json" "$img"
grep -q "unresolved" "$TS_TMP/err" || ts_fail "unresolved verdict"
# "no effect" from an older alignprobe (no margin: it ruled out only 1.5x)
# or with a margin wider than 1.15x does not show honest sectors (flash
# costs 1.1-1.5x): check fails safe, it does not accept every start
honest() {	# honest [EXTRA_KEYS]
	cat > "$TS_TMP/honest.json" <<JSON
{"device": "$img", "verdict": {"sensitive": false, "resolved": true, "logical_sector": 512,
 "reported_physical_sector": 512, "physical_sector": 512, "period": 1, "lowest_aligned_lba": 0,
 "fast_starts": [], "slowdown": 1.0, "p_value": 1.0, "confidence": 0.99$1}}
JSON
}
honest ""
ts_run_rc 2 "$ALIGNPROBE" check --geometry "$TS_TMP/honest.json" "$img"
grep -q "honest.json: verdict: \"no effect\" with no margin (an older alignprobe, which ruled out only --min-slowdown) does not show honest sectors" \
	"$TS_TMP/err" || ts_fail "no effect without a margin accepted"
honest ', "min_slowdown": 1.5'
ts_run_rc 2 "$ALIGNPROBE" check --geometry "$TS_TMP/honest.json" "$img"
grep -q "with only effects of 1.50x or more does not show honest sectors" "$TS_TMP/err" ||
	ts_fail "no effect of 1.5x accepted"
honest ', "min_slowdown": 1.5, "absence_margin": 1.2'
ts_run_rc 2 "$ALIGNPROBE" check --geometry "$TS_TMP/honest.json" "$img"
grep -q "only effects of 1.20x or more" "$TS_TMP/err" || ts_fail "no effect of 1.2x accepted"
# the probe's margin (1.10) and the sweep's (1.15) are honest sectors, when
# units up to 64 KiB were ruled out
for m in 1.1 1.15; do
	honest ", \"min_slowdown\": 1.5, \"absence_margin\": $m, \"ruled_out_up_to\": 65536"
	ts_run_rc 0 "$ALIGNPROBE" check --geometry "$TS_TMP/honest.json" "$img"
done
# not said up to which size (an older alignprobe): not used
honest ', "absence_margin": 1.1'
ts_run_rc 2 "$ALIGNPROBE" check --geometry "$TS_TMP/honest.json" "$img"
grep -q "without the size up to which it ruled out a hidden unit" "$TS_TMP/err" ||
	ts_fail "no effect without ruled_out_up_to: $(cat "$TS_TMP/err")"
# rewrites ruled out, first writes not (they cost more, with no unit found
# to explain it: QEMU's 64 KiB clusters under load): not honest sectors
honest ', "absence_margin": 1.1, "ruled_out": {"up_to": 65536, "first_writes": false, "rewrites": true}'
ts_run_rc 2 "$ALIGNPROBE" check --geometry "$TS_TMP/honest.json" "$img"
grep -q "honest.json: verdict: \"no effect\" on rewrites only: first writes were not ruled out" \
	"$TS_TMP/err" || ts_fail "no effect on rewrites only: $(cat "$TS_TMP/err")"
# tentative: never a geometry
honest ', "absence_margin": 1.1, "ruled_out_up_to": 65536, "tentative": true'
ts_run_rc 2 "$ALIGNPROBE" check --geometry "$TS_TMP/honest.json" "$img"
grep -q "honest.json: verdict: tentative" "$TS_TMP/err" ||
	ts_fail "a tentative verdict: $(cat "$TS_TMP/err")"

# usage errors
ts_run_rc 2 "$ALIGNPROBE" check
grep -q "no device or image given" "$TS_TMP/err" || ts_fail "no device"
# a device named twice is checked once, with a note (not a usage error)
ts_run_rc 0 "$ALIGNPROBE" check "$img" "$img"
grep -qxF "alignprobe check: $img: listed twice: checked once" "$TS_TMP/err" || ts_fail "listed twice"
ts_run_rc 2 "$ALIGNPROBE" check --lowest-aligned 7 "$img"
grep -q "needs --physical" "$TS_TMP/err" || ts_fail "--lowest-aligned alone"
ts_run_rc 2 "$ALIGNPROBE" check --physical 4096 --geometry "$TS_TMP/bad.json" "$img"
ts_run_rc 2 "$ALIGNPROBE" check --physical 3000 "$img"
grep -q "not a power-of-two multiple" "$TS_TMP/err" || ts_fail "--physical 3000"
ts_run_rc 2 "$ALIGNPROBE" check --physical 4X "$img"
ts_run_rc 2 "$ALIGNPROBE" check --sector-size 1000 "$img"
ts_run_rc 2 "$ALIGNPROBE" check -o NR,BOGUS "$img"
grep -q "unknown column: BOGUS" "$TS_TMP/err" || ts_fail "unknown column"
ts_run_rc 2 "$ALIGNPROBE" check -J -r "$img"
ts_pass
