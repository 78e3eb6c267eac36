#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# alignprobe verdicts: merge, list, show, forget, and the layers of
# check --verdicts A --verdicts B, on the emulated drive, which states a
# model of its own (vendor ALIGNPROBE, EMU-<PROFILE> or --drive-model):
# probe --emulate --record works without the test seam. Two hosts' stores
# and a probe -J result merge into a fleet store; a second merge changes
# nothing ("unchanged", the file not rewritten); another verdict for a model
# is a conflict kept with both sides; a bad source changes nothing; forget
# removes a model and is idempotent. Concurrent writers (two merges and a
# probe --record, released together while the test holds the store's lock)
# lose nothing. --verdicts A --verdicts B: per model the first store decides
# (this test failed on 7debcca: the later option replaced the earlier one).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "verdicts list/show/merge/forget, layered stores, concurrent writers"
ts_need_emulator
ts_need_cmd jq sfdisk flock

A=$ALIGNPROBE
W=$TS_TMP/w
mkdir -p "$W"
probe_opts=(--yes -q --time-budget 120s --max-size 16K)

# ---- the emulated drive's own model: probe --emulate --record ----
ts_subtest probe-emulate-record
ts_run_rc 0 "$A" probe "${probe_opts[@]}" --emulate="simple,phys=4096,lba=7,rmw=1ms,size=64M" \
	--record="$W/host1.json"
jq -e '.models | length == 1 and .[0].vendor == "ALIGNPROBE"
	and .[0].model == "EMU-SIMPLE-4096-L7" and .[0].verdicts[0].physical_sector == 4096
	and .[0].verdicts[0].lowest_aligned_lba == 7' "$W/host1.json" >/dev/null ||
	{ cat "$W/host1.json" >&2; ts_fail "probe --emulate --record: the drive's model"; }
# a profile's drive is EMU-<PROFILE>; --drive-model names it
dev=$(ts_emu_attach --profile simple --phys 4096 --lowest-aligned 7 --rmw-cost 1ms --size 64M \
	--drive-model "ACME Lying 4K")
ts_run_rc 0 "$A" probe "${probe_opts[@]}" -J "$dev"
cp "$TS_TMP/out" "$W/result.json"
jq -e '.identity.vendor == "ALIGNPROBE" and .identity.model == "ACME Lying 4K"' \
	"$W/result.json" >/dev/null || ts_fail "--drive-model: $(jq -c .identity "$W/result.json")"
ts_run_rc 2 "$A" emulate --attach --drive-model "a:b"
grep -qF "drive-model 'a:b'" "$TS_TMP/err" || ts_fail "drive-model with a colon: $(cat "$TS_TMP/err")"

# host 2: the same model with another verdict (a conflict), and a model of its own
printf '{"format": "alignprobe-verdicts", "version": 1, "models": [
 {"vendor": "ALIGNPROBE", "model": "EMU-SIMPLE-4096-L7", "revision": null, "verdicts": [
  {"logical_sector": 512, "physical_sector": 4096, "lowest_aligned_lba": 0, "sensitive": true,
   "examples": [{"serial": "H2A", "wwn": null, "device": "/dev/sdq", "host": "host2",
     "source": "probe", "recorded": "2026-11-30T10:00:00Z", "confidence": 0.99, "runs": 2}]}]},
 {"vendor": "ATA", "model": "WD40EFRX-68N32N0", "revision": "82.00A82", "verdicts": [
  {"logical_sector": 512, "physical_sector": 4096, "lowest_aligned_lba": 0, "sensitive": true,
   "examples": [{"serial": "WD1", "wwn": null, "device": "/dev/sdc", "host": "host2",
     "source": "sweep", "recorded": "2026-11-30T11:00:00Z", "confidence": null, "runs": 1}]}]}]}\n' \
	> "$W/host2.json"

# ---- merge ----
ts_subtest merge
fleet=$W/fleet.json
ts_run_rc 0 "$A" verdicts merge --store "$fleet" --host node3 "$W/host1.json" "$W/result.json"
grep -qxF "$fleet: 2 models added, 0 verdicts added to known models, 2 disks added, 0 updated; 0 new conflicts" \
	"$TS_TMP/out" || ts_fail "merge: $(cat "$TS_TMP/out")"
jq -e '[.models[].model] == ["EMU-SIMPLE-4096-L7", "ACME Lying 4K"]
	and .models[1].verdicts[0].examples[0].host == "node3"
	and .models[1].verdicts[0].examples[0].source == "probe"' "$fleet" >/dev/null ||
	{ cat "$fleet" >&2; ts_fail "merge: the fleet store"; }
ts_run_rc 0 "$A" verdicts merge --store "$fleet" -J "$W/host2.json"
jq -e '.changed and .models_added == 1 and .verdicts_added == 1 and .conflicts_added == 1
	and .conflicts == ["ALIGNPROBE EMU-SIMPLE-4096-L7"]
	and .sources == [{"path": $p, "kind": "store", "models": 2, "skipped": 0}]' \
	--arg p "$W/host2.json" "$TS_TMP/out" >/dev/null || ts_fail "merge -J: $(cat "$TS_TMP/out")"
grep -qF "the model ALIGNPROBE EMU-SIMPLE-4096-L7 has conflicting verdicts" "$TS_TMP/err" ||
	ts_fail "the conflict is not said: $(cat "$TS_TMP/err")"
# both sides kept
jq -e '.models[0].verdicts | length == 2 and .[0].lowest_aligned_lba == 7
	and .[1].lowest_aligned_lba == 0 and .[1].examples[0].serial == "H2A"' "$fleet" >/dev/null ||
	ts_fail "the conflict's sides"
# idempotent: the same sources again change nothing, the file is not rewritten
sum=$(ts_checksum "$fleet")
ino=$(stat -c %i "$fleet")
ts_run_rc 0 "$A" verdicts merge --store "$fleet" --host node3 "$W/host1.json" "$W/result.json" \
	"$W/host2.json"
grep -qxF "$fleet: unchanged" "$TS_TMP/out" || ts_fail "second merge: $(cat "$TS_TMP/out")"
ts_assert_eq "$sum" "$(ts_checksum "$fleet")" "the store after a second merge"
ts_assert_eq "$ino" "$(stat -c %i "$fleet")" "the store's inode after a second merge"
ts_run_rc 0 "$A" verdicts merge --store "$fleet" -J "$fleet"
jq -e '.changed == false' "$TS_TMP/out" >/dev/null || ts_fail "a store merged into itself"
# bad sources: nothing written
echo '{"device": "/dev/sdx"}' > "$W/bad.json"
ts_run_rc 2 "$A" verdicts merge --store "$fleet" "$W/host2.json" "$W/bad.json"
grep -qF "$W/bad.json: not a verdict store nor a probe or sweep result" "$TS_TMP/err" ||
	ts_fail "a bad source: $(cat "$TS_TMP/err")"
jq 'del(.identity.model)' "$W/result.json" > "$W/nomodel.json"
ts_run_rc 2 "$A" verdicts merge --store "$fleet" "$W/nomodel.json"
grep -qF "the disk states no model" "$TS_TMP/err" || ts_fail "no model: $(cat "$TS_TMP/err")"
ts_run_rc 2 "$A" verdicts merge --store "$fleet" "$W/none.json"
echo '{"format": "alignprobe-verdicts", "version": 1, "models": [' > "$W/corrupt.json"
csum=$(ts_checksum "$W/corrupt.json")
ts_run_rc 2 "$A" verdicts merge --store "$W/corrupt.json" "$W/host2.json"
ts_assert_eq "$csum" "$(ts_checksum "$W/corrupt.json")" "a corrupt store"
ts_assert_eq "$sum" "$(ts_checksum "$fleet")" "the store after bad sources"

# ---- list and show ----
ts_subtest list-and-show
ts_run_rc 0 "$A" verdicts list --verdicts "$fleet" -J
jq -e '.verdicts | length == 4 and .[0].name == "ALIGNPROBE EMU-SIMPLE-4096-L7"
	and .[0].state == "conflict" and .[1].state == "conflict" and .[2].state == "ok"
	and .[0].physical_sector == 4096 and .[0].lowest_aligned_lba == 7
	and .[3].name == "ATA WD40EFRX-68N32N0 82.00A82"' "$TS_TMP/out" >/dev/null ||
	ts_fail "list -J: $(cat "$TS_TMP/out")"
ts_run_rc 0 "$A" verdicts list --verdicts "$fleet" -n -r -o MODEL,ENTRY,RUNS
grep -qxF 'WD40EFRX-68N32N0 models[2].verdicts[0] 1' "$TS_TMP/out" || ts_fail "list -o: $(cat "$TS_TMP/out")"
ts_run_rc 0 "$A" verdicts show --verdicts "$fleet" "ATA:WD40EFRX-68N32N0:82.00A82"
grep -qF "Verdict models[2].verdicts[0]: 4096-byte physical sectors, lowest aligned LBA 0" \
	"$TS_TMP/out" || ts_fail "show: $(cat "$TS_TMP/out")"
ts_run_rc 0 "$A" verdicts show --verdicts "$fleet" -J "ALIGNPROBE EMU-SIMPLE-4096-L7"
jq -e '.models[0].conflict and (.models[0].verdicts | length) == 2
	and .models[0].entry == "models[0]"' "$TS_TMP/out" >/dev/null || ts_fail "show -J"
ts_run_rc 2 "$A" verdicts show --verdicts "$fleet" "No Such Model"
ts_run_rc 2 "$A" verdicts list --verdicts "$W/none.json"

# ---- the levels a probe found above the sector (issue 33): listed and shown ----
# (main listed and showed the physical sector alone: a RAID volume's stripe,
# which the store carries, was nowhere in list or show)
ts_subtest list-and-show-levels
printf '{"format": "alignprobe-verdicts", "version": 1, "models": [
 {"vendor": "LSI", "model": "MR9361-RAID5", "revision": null, "verdicts": [
  {"logical_sector": 512, "physical_sector": 4096, "lowest_aligned_lba": 0, "sensitive": true,
   "levels": [
    {"kind": "sector", "unit": 4096, "lowest_aligned_lba": 0, "paid": "every_write", "ratio": 5.0},
    {"kind": "allocation", "unit": 65536, "lowest_aligned_lba": 8, "paid": "first_write",
     "ratio": 4.1},
    {"kind": "stripe", "unit": 196608, "lowest_aligned_lba": 0, "paid": "every_write",
     "ratio": 1.9}],
   "examples": [{"serial": "R1", "wwn": null, "device": "/dev/sdr", "host": "h1",
     "source": "probe", "recorded": "2026-11-30T10:00:00Z", "confidence": 0.99, "runs": 1}]}]}]}\n' \
	> "$W/levels.json"
ts_run_rc 0 "$A" verdicts list --verdicts "$W/levels.json" -J -o MODEL,LEVELS
jq -e '.verdicts == [{"model": "MR9361-RAID5",
	"levels": "allocation 65536@8 first-write, stripe 196608@0"}]' "$TS_TMP/out" >/dev/null ||
	ts_fail "list -o LEVELS: $(cat "$TS_TMP/out")"
ts_run_rc 0 "$A" verdicts list --verdicts "$W/levels.json"
head -1 "$TS_TMP/out" | grep -qw LEVELS || ts_fail "no LEVELS by default: $(cat "$TS_TMP/out")"
ts_run_rc 0 "$A" verdicts list --verdicts "$fleet" -J
jq -e '[.verdicts[].levels] | all(. == null)' "$TS_TMP/out" >/dev/null ||
	ts_fail "levels where none were found: $(cat "$TS_TMP/out")"
ts_run_rc 0 "$A" verdicts show --verdicts "$W/levels.json" "LSI MR9361-RAID5"
grep -qxF '  levels above the physical sector: a 65536-byte allocation unit, paid on first writes (from LBA 8) and a 196608-byte stripe (from LBA 0)' \
	"$TS_TMP/out" || ts_fail "show: $(cat "$TS_TMP/out")"

# ---- layers: --verdicts A --verdicts B, per model the first ----
# a disk of the conflicting model: in the fleet store a conflict, in the
# host's own store one verdict (LBA 7), which decides when it comes first
ts_subtest layers
truncate -s 64M "$TS_TMP/disk.img"
printf 'label: gpt\nstart=2048,size=20480\nstart=22535,size=20480\n' |
	sfdisk -q --no-reread --no-tell-kernel "$TS_TMP/disk.img" >/dev/null || ts_fail "sfdisk"
disk=$(ts_loop_attach "$TS_TMP/disk.img")
export "ALIGNPROBE_TEST_IDENTITY_${disk#/dev/}=ALIGNPROBE:EMU-SIMPLE-4096-L7::D2"
ts_run_rc_ro 4 "$disk" "$A" check -J --verdicts="$W/host1.json" --verdicts="$fleet" "$disk"
jq -e --arg own "$W/host1.json" --arg fleet "$fleet" '.model_verdict.state == "used"
	and .model_verdict.store == $own and .model_verdict.stores == [$own, $fleet]
	and .rule.name == "model_verdict" and .geometry.in_force.lowest_aligned_lba == 7
	and [.partitions[].aligned] == [false, true]' "$TS_TMP/out" >/dev/null ||
	{ jq .model_verdict "$TS_TMP/out" >&2; ts_fail "the host's own store first"; }
ts_run_rc_ro 4 "$disk" "$A" check -J --verdicts="$fleet" --verdicts="$W/host1.json" "$disk"
jq -e '.model_verdict.state == "conflict" and .rule.name == "minimum_4k"' "$TS_TMP/out" \
	>/dev/null || ts_fail "the fleet store first: its conflict"
# a model only the lower layer holds
export "ALIGNPROBE_TEST_IDENTITY_${disk#/dev/}=ATA:WD40EFRX-68N32N0:82.00A82:D3"
ts_run_rc_ro 4 "$disk" "$A" check -J --verdicts="$W/host1.json" --verdicts="$fleet" "$disk"
jq -e --arg fleet "$fleet" '.model_verdict.state == "used" and .model_verdict.store == $fleet
	and .model_verdict.entry == "models[2].verdicts[0]"
	and [.partitions[].aligned] == [true, false]' "$TS_TMP/out" >/dev/null ||
	{ jq .model_verdict "$TS_TMP/out" >&2; ts_fail "the lower layer's model"; }
ts_run_rc 2 "$A" check --verdicts="$W/host1.json" --verdicts="$W/none.json" "$disk"
unset "ALIGNPROBE_TEST_IDENTITY_${disk#/dev/}"

# ---- forget ----
ts_subtest forget
ts_run_rc 0 "$A" verdicts forget --store "$fleet" "ALIGNPROBE:EMU-SIMPLE-4096-L7:"
grep -qxF "$fleet: forgot ALIGNPROBE EMU-SIMPLE-4096-L7" "$TS_TMP/out" || ts_fail "forget: $(cat "$TS_TMP/out")"
jq -e '[.models[].model] == ["ACME Lying 4K", "WD40EFRX-68N32N0"]' "$fleet" >/dev/null ||
	ts_fail "forget: the store"
sum=$(ts_checksum "$fleet")
ts_run_rc 0 "$A" verdicts forget --store "$fleet" -J "ALIGNPROBE:EMU-SIMPLE-4096-L7:"
jq -e '.changed == false and .forgotten == [] and .absent == ["ALIGNPROBE:EMU-SIMPLE-4096-L7:"]' \
	"$TS_TMP/out" >/dev/null || ts_fail "forget twice: $(cat "$TS_TMP/out")"
ts_assert_eq "$sum" "$(ts_checksum "$fleet")" "the store after forgetting an absent model"

# ---- concurrent writers: two merges and a probe --record at once ----
# The test holds the store's lock; each writer blocks on it (a waiter in
# /proc/locks) and all go on when it is released: nothing may be lost.
ts_subtest concurrent-writers
conc=$W/conc.json
for i in 1 2; do
	jq --arg s "C$i" '.models[1].verdicts[0].examples[0].serial = $s
		| .models[1].model = "MERGE-\($s)"' "$W/host2.json" > "$W/m$i.json"
done
pdev=$(ts_emu_attach --phys 4096 --lowest-aligned 0 --rmw-cost 1ms --size 64M)
exec {lockfd}> "$conc.lock"
flock -x "$lockfd" || ts_fail "cannot take the store's lock"
lock_ino=$(stat -c %i "$conc.lock")
blocked() {	# blocked N: N writers wait for the store's lock (/proc/locks "->" lines)
	[ "$(grep -c -- "-> FLOCK .*:$lock_ino " /proc/locks)" -ge "$1" ]
}
# (the writers must not inherit the test's locked descriptor: {lockfd}>&-)
"$A" verdicts merge -q --store "$conc" "$W/m1.json" > "$TS_TMP/m1.out" 2>&1 {lockfd}>&- &
p1=$!
"$A" verdicts merge -q --store "$conc" "$W/m2.json" > "$TS_TMP/m2.out" 2>&1 {lockfd}>&- &
p2=$!
"$A" probe "${probe_opts[@]}" --record="$conc" "$pdev" > "$TS_TMP/p.out" 2>&1 {lockfd}>&- &
p3=$!
ts_wait_for "three writers blocked on $conc.lock" blocked 3
exec {lockfd}>&-
for p in $p1 $p2 $p3; do
	wait "$p" || { cat "$TS_TMP/m1.out" "$TS_TMP/m2.out" "$TS_TMP/p.out" >&2; ts_fail "a writer failed"; }
done
jq -e '[.models[].model] | sort == ["EMU-SIMPLE-4096-L0", "EMU-SIMPLE-4096-L7", "MERGE-C1",
	"MERGE-C2"]' "$conc" >/dev/null || { cat "$conc" >&2; ts_fail "a concurrent writer was lost"; }
jq -e '.models[] | select(.model == "EMU-SIMPLE-4096-L7") | .verdicts[0].examples
	| length == 1' "$conc" >/dev/null || ts_fail "the merges' common model"

ts_pass
