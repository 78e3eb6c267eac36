#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Stripes (issue 33, items 2, 3 and 5): the probe finds every-write units
# above its timed sizes. Before the stripe step it called raid6-6x128k
# honest (exit 0) and found only the 4096-byte sectors of raid5-4x64k:
#   - raid5-4x64k (3 data disks of 64 KiB over 512e members): the members'
#     4096-byte sectors and the 192 KiB stripe, both from LBA 0, exit 0;
#     check --geometry with that verdict refuses a partition at 2048 and
#     proposes 6144 (3 MiB), and sfdisk moving it there makes check pass;
#   - raid6-6x128k (4 data disks of 128 KiB): the 512 KiB stripe (the
#     timed sizes may stay unsettled on its noisy members: exit 0 or 5,
#     never "honest" without the stripe: exit 5 may lack it, exit 0 not);
#   - raid5-bbu: the controller's cache answers every write: no verdict,
#     exit 5, the battery-backed cache named; never a stripe made up;
#   - an honest drive: no stripe, and the verdict says what was covered;
#   - --preserve: says that stripes are measured only by a destructive probe.
#   - one ATA disk that rotates (hdd-7200 stating an ATA identity through
#     the test seam) has no stripe: the step is skipped and the note says
#     so, --stripes runs it; a SATA RAID bridge's volume ("H/W RAID5" in its
#     model) is no such disk (main ran the step everywhere: 5-6 s more on
#     every single disk, issue 33's "no regression below 64 KiB").
# Levels and counters, not timing: --time-budget 30m keeps the budget out.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "probe: RAID stripes above 64 KiB, and check with them"
ts_need_emulator
ts_need_cmd jq sfdisk

A=$ALIGNPROBE

ts_subtest raid5-4x64k
dev=$(ts_emu_attach --spec raid5-4x64k,size=256M)
ts_run_rc 0 "$A" probe --yes --quiet --json --time-budget 30m "$dev"
cp "$TS_TMP/out" "$TS_TMP/raid5.json"
jq -e '.verdict.levels | map([.kind, .unit, .lowest_aligned_lba, .paid]) ==
	[["sector", 4096, 0, "every_write"], ["stripe", 196608, 0, "every_write"]]' \
	"$TS_TMP/raid5.json" >/dev/null || ts_fail "the levels: $(jq -c .verdict.levels "$TS_TMP/raid5.json")"
jq -e '.stripes.found and .stripes.unit == 196608 and .stripes.ratio > 1.2 and
	.stripes.p_value < 0.001' "$TS_TMP/raid5.json" >/dev/null ||
	ts_fail "the stripe step: $(jq -c .stripes "$TS_TMP/raid5.json")"
jq -e '.verdict.note | test("rewrites: a 192 KiB stripe from LBA 0")' "$TS_TMP/raid5.json" \
	>/dev/null || ts_fail "the note: $(jq -r .verdict.note "$TS_TMP/raid5.json")"
# the stripe's next steps: a partition at the common multiple, mkfs with it
jq -e '.next_steps | any(.command[-2:] == ["6144s", "100%"])' "$TS_TMP/raid5.json" >/dev/null ||
	ts_fail "no partition at 6144: $(jq -c '[.next_steps[].command]' "$TS_TMP/raid5.json")"
jq -e '.next_steps | any(.command[0] == "mkfs.ext4" and any(.command[]; . == "stride=48,stripe_width=48"))' \
	"$TS_TMP/raid5.json" >/dev/null || ts_fail "no mkfs.ext4 with the stripe"

ts_subtest check-with-the-probed-stripe
img=$TS_TMP/disk.img
truncate -s 64M "$img"
printf 'label: gpt\nstart=2048,size=65536\n' | sfdisk -q "$img" >/dev/null || ts_fail "sfdisk"
loop=$(ts_loop_attach "$img")
ts_run_rc_ro 4 "$loop" "$A" check --geometry "$TS_TMP/raid5.json" --geometry-any "$loop"
grep -q "partition 1: start 2048 is aligned to the physical sector but not to the 196608-byte stripe (from LBA 0).*first start aligned to every level 6144" \
	"$TS_TMP/err" || ts_fail "the refusal: $(cat "$TS_TMP/err")"
printf '6144,65536\n' | sfdisk -q --no-reread --move-data -N 1 "$loop" >/dev/null 2>&1 ||
	ts_fail "sfdisk --move-data"
ts_run_rc_ro 0 "$loop" "$A" check --geometry "$TS_TMP/raid5.json" --geometry-any "$loop"

ts_subtest raid6-6x128k
dev=$(ts_emu_attach --spec raid6-6x128k,size=256M)
"$A" probe --yes --quiet --json --time-budget 30m --max-rounds 3 "$dev" > "$TS_TMP/raid6.json" \
	2> "$TS_TMP/err"
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 5 ] || ts_fail "raid6: exit $rc: $(cat "$TS_TMP/err")"
# exit 0 only with the stripe; exit 5 (no verdict: the timed sizes unsettled
# on its noisy members, or a check of the measurement's own failed, named)
# with the stripe or without one, but never a wrong one. Without one is the
# stripe step's known miss (issue 33: its scan has two offsets per class at
# the widest stripes), which CI hit under ASan; its note then says "no
# stripe", inside no verdict.
jq -e --argjson rc "$rc" '(.verdict.levels | map(select(.kind == "stripe")) |
	map([.unit, .lowest_aligned_lba])) as $st |
	$st == [[524288, 0]] or ($rc == 5 and $st == [] and
	((.stripes.found | not) or ([.stripes.unit, .stripes.lowest_aligned_lba] == [524288, 0])))' \
	"$TS_TMP/raid6.json" >/dev/null ||
	ts_fail "raid6: the stripe: $(jq -c '[.verdict.levels, .stripes, .checks, .verdict.note]' \
		"$TS_TMP/raid6.json")"

ts_subtest raid5-bbu
dev=$(ts_emu_attach --spec raid5-bbu,size=256M)
ts_run_rc 5 "$A" probe --yes --quiet --json --time-budget 30m "$dev"
jq -e '.verdict.levels == [] and (.stripes == null or .stripes.found == false)' "$TS_TMP/out" \
	>/dev/null || ts_fail "raid5-bbu: a unit made up: $(jq -c '[.verdict.levels, .stripes]' "$TS_TMP/out")"
grep -q "battery-backed write-back cache answers the writes" "$TS_TMP/err" ||
	ts_fail "raid5-bbu: the controller's cache not named: $(cat "$TS_TMP/err")"

ts_subtest honest
dev=$(ts_emu_attach --spec honest-512n,size=256M)
ts_run_rc 0 "$A" probe --yes --quiet --json --time-budget 30m "$dev"
jq -e '.stripes.found == false and .stripes.widths_up_to == 4194304 and
	(.verdict.levels | all(.kind != "stripe")) and
	(.verdict.note | test("no stripe above 64 KiB up to 512 KiB .*up to 4 MiB"))' "$TS_TMP/out" \
	>/dev/null || ts_fail "honest: $(jq -c '[.stripes, .verdict.note]' "$TS_TMP/out")"

ts_subtest preserve-says-destructive-only
dev=$(ts_emu_attach --spec raid5-4x64k,size=256M)
ts_run_rc 0 "$A" probe --preserve --yes --quiet --json --journal "$TS_TMP/j" --time-budget 30m "$dev"
jq -e '.stripes == null and (.verdict.note | test("measured only by a destructive probe"))' \
	"$TS_TMP/out" >/dev/null || ts_fail "preserve: $(jq -c '[.stripes, .verdict.note]' "$TS_TMP/out")"
ts_subtest one-ata-disk
dev=$(ts_emu_attach --spec hdd-7200,size=256M)
export "ALIGNPROBE_TEST_IDENTITY_${dev#/dev/}=ATA:WDC WD40EZRX-00SPEB0:80.00A80:WD-ONE"
ts_run_rc 0 "$A" probe --dry-run "$dev"
grep -qxF "  (not if the disk is found rotating: one ATA disk has no RAID" "$TS_TMP/out" ||
	ts_fail "dry run: $(cat "$TS_TMP/out")"
ts_run_rc 0 "$A" probe --yes --quiet --json --time-budget 30m "$dev"
jq -e '.stripes == null and .checks.rotating and .verdict.physical_sector == 4096 and
	(.verdict.note | test("rewrites: units above 64 KiB not measured: the device is one ATA disk and rotates"))' \
	"$TS_TMP/out" >/dev/null || ts_fail "one ATA disk: $(jq -c '[.stripes, .verdict.note]' "$TS_TMP/out")"
ts_run_rc 0 "$A" probe --yes --quiet --json --time-budget 30m --stripes "$dev"
jq -e '.stripes.found == false and .stripes.widths_up_to == 4194304' "$TS_TMP/out" >/dev/null ||
	ts_fail "--stripes: $(jq -c '[.stripes, .verdict.note]' "$TS_TMP/out")"
export "ALIGNPROBE_TEST_IDENTITY_${dev#/dev/}=ATA:JMicron H/W RAID5:0958:JM-ONE"
ts_run_rc 0 "$A" probe --dry-run "$dev"
grep -q "found rotating" "$TS_TMP/out" && ts_fail "a RAID bridge's volume taken for one disk"
unset "ALIGNPROBE_TEST_IDENTITY_${dev#/dev/}"
ts_pass
