#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The probed geometry: from a saved verdict written by hand (sweep shape
# {"device","verdict"} and probe shape {"devices":[...]}, the entry of this
# image used, not the first) and given on the command line (--physical 4096
# --lowest-aligned 7, the LBA within 0..7). A DOS-era table at 63 is aligned
# on a shifted drive and misaligned on an unshifted one; the JSON document
# says which geometry was in force and which rule decided.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "probed geometry from a verdict file and by hand"
ts_untimed "partition tables in files and on plain loop devices"
ts_need_cmd sfdisk jq

img=$TS_TMP/disk.img
truncate -s 32M "$img"
printf 'label: dos\nstart=63,size=20417\nstart=20480,size=20480\n' |
	sfdisk -q --no-reread --no-tell-kernel "$img" >/dev/null || ts_fail "sfdisk"

verdict() {	# verdict PHYS LOWEST
	cat <<JSON
{"sensitive": true, "resolved": true, "logical_sector": 512,
 "reported_physical_sector": 512, "physical_sector": $1, "period": $(( $1 / 512 )),
 "lowest_aligned_lba": $2, "fast_starts": [$2], "slowdown": 12.5,
 "p_value": 0.0001, "confidence": 0.9999}
JSON
}
printf '{"device": "%s", "verdict": %s, "results": []}\n' "$img" "$(verdict 4096 7)" > "$TS_TMP/sweep.json"
printf '{"devices": [{"device": "/dev/sdz", "verdict": %s}, {"device": "%s", "verdict": %s}]}\n' \
	"$(verdict 4096 0)" "$img" "$(verdict 4096 7)" > "$TS_TMP/probe.json"

# shifted drive (lowest aligned 7): 63 aligned, 20480 not
ts_run_rc 4 "$ALIGNPROBE" check --geometry "$TS_TMP/sweep.json" "$img"
grep -q "partition 2: start 20480 is not aligned to 4096-byte physical sectors (probed, lowest aligned LBA 7): 1 sector past a boundary; next aligned start 20487" \
	"$TS_TMP/err" || ts_fail "partition 2 under the shifted verdict"
grep -q "partition 1:" "$TS_TMP/err" && ts_fail "partition 1 (63) flagged on a shifted drive"
grep -q "Geometry in force: 4096-byte physical sectors (probed, lowest aligned LBA 7), from $TS_TMP/sweep.json" \
	"$TS_TMP/out" || ts_fail "geometry in force not shown"
grep -q "disagreement: physical sector: reported 512 bytes, probed 4096" "$TS_TMP/out" ||
	ts_fail "reported/probed disagreement not shown"

# the same from stdin, as JSON
ts_run_rc 4 "$ALIGNPROBE" check -J --geometry - "$img" < "$TS_TMP/sweep.json"
jq -e '.geometry.in_force.source == "probed" and .geometry.in_force.physical_sector == 4096
	and .geometry.in_force.lowest_aligned_lba == 7 and .geometry.probed.confidence > 0.99
	and .aligned == false and .misaligned == 1
	and ([.partitions[].align_probed] == [true, false])
	and ([.partitions[].align_reported] == [true, true])
	and ([.partitions[].align_1m] == [false, true])
	and (.partitions[1].next_aligned == 20487)' "$TS_TMP/out" >/dev/null ||
	{ cat "$TS_TMP/out" >&2; ts_fail "JSON document under the probed geometry"; }

# probe with several devices: the entry of this image (shifted), not the
# first (unshifted, where 63 would be misaligned and 20480 aligned)
ts_run_rc 4 "$ALIGNPROBE" check -r -n -o NR,ALIGN_PROBED,MISALIGN --geometry "$TS_TMP/probe.json" "$img"
ts_assert_eq "1 yes 0
2 no 1" "$(cat "$TS_TMP/out")" "devices[1].verdict"
ts_run_rc 4 "$ALIGNPROBE" check -J --geometry "$TS_TMP/probe.json" "$img"
jq -e '.rule.name == "probed" and .geometry.probed.entry == "devices[1].verdict"
	and .geometry.probed.matched_by == "path"' "$TS_TMP/out" >/dev/null ||
	ts_fail "JSON: the entry used"

# by hand: the same answers
ts_run_rc 4 "$ALIGNPROBE" check -r -n -o NR,ALIGNED --physical 4096 --lowest-aligned 7 "$img"
ts_assert_eq "1 yes
2 no" "$(cat "$TS_TMP/out")" "--physical 4096 --lowest-aligned 7"
ts_run_rc 4 "$ALIGNPROBE" check -r -n -o NR,ALIGNED --physical 4K "$img"
ts_assert_eq "1 no
2 yes" "$(cat "$TS_TMP/out")" "--physical 4K"
# the lowest aligned LBA lies within the physical sector: 63 is refused
ts_run_rc 4 "$ALIGNPROBE" check -J --physical 4096 --lowest-aligned 7 "$img"
jq -e '.geometry.in_force.source == "given" and .geometry.in_force.lowest_aligned_lba == 7
	and .rule.name == "given"' "$TS_TMP/out" >/dev/null || ts_fail "--lowest-aligned 7"
ts_run_rc 2 "$ALIGNPROBE" check --physical 4096 --lowest-aligned 63 "$img"
grep -q "alignprobe check: --lowest-aligned 63: out of range: 0..7 for 4096-byte physical sectors of 512-byte logical sectors" \
	"$TS_TMP/err" || ts_fail "--lowest-aligned 63 not refused"
# 8 KiB physical sectors: 20480 is a multiple of 16
ts_run_rc 4 "$ALIGNPROBE" check -r -n -o NR,ALIGNED --physical 8K "$img"
ts_assert_eq "1 no
2 yes" "$(cat "$TS_TMP/out")" "--physical 8K"

# a verdict for 4Kn disks does not apply to a 512-byte-sector image
sed 's/"logical_sector": 512/"logical_sector": 4096/; s/"period": 8/"period": 1/; s/"lowest_aligned_lba": 7/"lowest_aligned_lba": 0/' \
	"$TS_TMP/sweep.json" > "$TS_TMP/4kn.json"
ts_run_rc 2 "$ALIGNPROBE" check --geometry "$TS_TMP/4kn.json" "$img"
grep -q "the verdict is for 4096-byte logical sectors, the disk has 512" "$TS_TMP/err" ||
	ts_fail "logical sector mismatch not reported"
ts_pass
