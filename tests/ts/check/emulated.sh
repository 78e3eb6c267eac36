#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The emulated drive with a probed geometry: a 512e drive hiding 4096-byte
# sectors with lowest aligned LBA 7 ("jumper 7-8"), started from an image
# partitioned with sfdisk. The kernel reports 512/512: taken as stated
# (--trust-reported) it calls every partition aligned; unprobed, check
# requires 4 KiB and flags 22535 (but not the shift of 2048);
# `probe --preserve --json` finds the truth, and `check --geometry` with that
# verdict flags the partition at 2048 and passes the one at 22535. A second
# drive, honest 4096/0 behind the same 512 report, holds a DOS-era partition
# at 63: flagged unprobed, accepted by a verdict of 4096/7 only. The
# emulator's counters prove that check never writes.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "check against the verdict of a probe of an emulated drive"
ts_need_emulator
ts_need_cmd sfdisk jq

img=$TS_TMP/disk.img
truncate -s 64M "$img"
printf 'label: gpt\nstart=2048,size=20480\nstart=22535,size=20480\n' |
	sfdisk -q --no-reread --no-tell-kernel "$img" >/dev/null || ts_fail "sfdisk"
dev=$(ts_emu_attach --image "$img" --phys 4096 --lowest-aligned 7 --rmw-cost 300us)

writes() {
	"$ALIGNPROBE" emulate --stats "$dev" -n -r -o WRITES || ts_fail "emulate --stats $dev"
}

# the reported geometry is fooled, when trusted
w0=$(writes)
ts_run_rc 0 "$ALIGNPROBE" check --trust-reported -r -n -o NR,START,ALIGN_REPORTED,ALIGNED "$dev"
ts_assert_eq "1 2048 yes yes
2 22535 yes yes" "$(cat "$TS_TMP/out")" "reported geometry"
# unprobed, 4 KiB from the reported offset (0) decides
ts_run_rc 4 "$ALIGNPROBE" check -r -n -o NR,START,ALIGN_REPORTED,ALIGNED "$dev"
ts_assert_eq "1 2048 yes yes
2 22535 yes no" "$(cat "$TS_TMP/out")" "the 4 KiB minimum"
ts_assert_eq "$w0" "$(writes)" "check wrote to the emulated drive"

# probe it (preserving its contents) and keep the verdict
"$ALIGNPROBE" probe --preserve --yes --time-budget 1h --json "$dev" > "$TS_TMP/verdict.json" \
	2> "$TS_TMP/probe.err" || { cat "$TS_TMP/probe.err" >&2; ts_fail "probe $dev failed"; }
jq -e '.verdict.resolved == true and .verdict.physical_sector == 4096
	and .verdict.lowest_aligned_lba == 7' "$TS_TMP/verdict.json" >/dev/null ||
	{ jq .verdict "$TS_TMP/verdict.json" >&2; ts_fail "probe did not find 4096/7"; }

w0=$(writes)
ts_run_rc 4 "$ALIGNPROBE" check --geometry "$TS_TMP/verdict.json" "$dev"
grep -q "partition 1: start 2048 is not aligned to 4096-byte physical sectors (probed, lowest aligned LBA 7): 1 sector past a boundary; next aligned start 2055" \
	"$TS_TMP/err" || { cat "$TS_TMP/err" >&2; ts_fail "partition 1 not flagged"; }
grep -q "partition 2:" "$TS_TMP/err" && ts_fail "partition 2 (2055) flagged"
grep -qE "^physical sector +512 +- +4096$" "$TS_TMP/out" || ts_fail "topology: kernel vs probed"
grep -q "disagreement: physical sector: reported 512 bytes, probed 4096" "$TS_TMP/out" ||
	ts_fail "disagreement not flagged"
ts_run_rc 4 "$ALIGNPROBE" check -J --geometry "$TS_TMP/verdict.json" "$dev"
jq -e '.type == "block" and .geometry.in_force.source == "probed"
	and .geometry.in_force.lowest_aligned_lba == 7
	and ([.partitions[].align_reported] == [true, true])
	and ([.partitions[].align_probed] == [false, true]) and .aligned == false
	and .rule.name == "probed" and .geometry.probed.matched_by == "path"
	and .geometry.probed.entry == "verdict"' \
	"$TS_TMP/out" >/dev/null || ts_fail "JSON with the probed geometry"
ts_assert_eq "$w0" "$(writes)" "check wrote to the emulated drive"

# the lying drive with the classic misaligned partition at 63 (GPT and DOS)
for label in gpt dos; do
	img63=$TS_TMP/disk63-$label.img
	truncate -s 64M "$img63"
	first=
	[ "$label" = gpt ] && first='first-lba: 34\n'
	printf "label: %s\\n$first"'start=63,size=20417\n' "$label" |
		sfdisk -q --no-reread --no-tell-kernel "$img63" >/dev/null 2>&1 ||
		ts_fail "sfdisk $label at 63"
	dev63=$(ts_emu_attach --image "$img63" --phys 4096 --lowest-aligned 0 --rmw-cost 300us)
	w0=$("$ALIGNPROBE" emulate --stats "$dev63" -n -r -o WRITES) || ts_fail "emulate --stats"
	ts_run_rc 4 "$ALIGNPROBE" check "$dev63"
	grep -q "partition 1: start 63 is not aligned to 4 KiB (the minimum for an unprobed report, lowest aligned LBA 0): 7 sectors past a boundary; next aligned start 64" \
		"$TS_TMP/err" || { cat "$TS_TMP/err" >&2; ts_fail "$label: 63 not flagged"; }
	grep -q "note: the drive reports 512-byte physical sectors, which 512e drives also report; not probed: requiring 4 KiB" \
		"$TS_TMP/err" || ts_fail "$label: the rule is not said on stderr"
	ts_run_rc 0 "$ALIGNPROBE" check --trust-reported "$dev63"
	# a verdict of an honest 512-byte drive accepts 63; a verdict of 4096/7 too
	for v in "512 0 0" "4096 7 0" "4096 0 4"; do
		set -- $v
		printf '{"device": "%s", "verdict": {"sensitive": true, "resolved": true,
 "logical_sector": 512, "reported_physical_sector": 512, "physical_sector": %s,
 "period": %s, "lowest_aligned_lba": %s, "fast_starts": [%s], "slowdown": 9.0,
 "p_value": 0.001, "confidence": 0.999}}\n' "$dev63" "$1" $(( $1 / 512 )) "$2" "$2" \
			> "$TS_TMP/v.json"
		ts_run_rc "$3" "$ALIGNPROBE" check -r -n -o NR,ALIGNED --geometry "$TS_TMP/v.json" "$dev63"
	done
	ts_assert_eq "$w0" "$("$ALIGNPROBE" emulate --stats "$dev63" -n -r -o WRITES)" \
		"check wrote to the emulated drive ($label)"
done
ts_pass
