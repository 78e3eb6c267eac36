#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# sweep --record: the sweep of an emulated drive hiding 4096-byte sectors
# from LBA 7, its model stated through ALIGNPROBE_TEST_IDENTITY_<loopN>,
# adds its verdict to the store (source "sweep"); check --verdicts on a loop
# device of the same model then passes the start at 39 and flags 48. A disk
# without a model is refused before the first write, and --replay cannot
# record (it has no disk).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
. "$top_srcdir/tests/ts/sweep/common.sh"
ts_init "sweep --record, then check --verdicts"
ts_need_emulator
ts_need_cmd sfdisk jq parted
sw_private_tmpdir

store=$TS_TMP/verdicts.json
dev=$(ts_emu_attach --phys 4096 --lowest-aligned 7 --rmw-cost 1ms --jitter 30% --size 256M)
sweep=(sweep --yes -q --size 32M --seed 11 --starts 34..49)

# a plain loop device states no model (the emulated drive states its own)
truncate -s 256M "$TS_TMP/nomodel.img"
nomodel=$(ts_loop_attach "$TS_TMP/nomodel.img")
sum0=$(ts_checksum "$nomodel")
ts_run_rc 2 "$ALIGNPROBE" "${sweep[@]}" --record="$store" "$nomodel"
grep -qF "alignprobe sweep: $nomodel: --record: the disk states no model" "$TS_TMP/err" ||
	ts_fail "no model: $(cat "$TS_TMP/err")"
ts_assert_eq "$sum0" "$(ts_checksum "$nomodel")" "a disk without a model"
[ -e "$store" ] && ts_fail "a store was created"
ts_run_rc 2 "$ALIGNPROBE" sweep --replay "$TS_TMP/none.json" --record="$store"
grep -q "replay" "$TS_TMP/err" || ts_fail "--replay --record: $(cat "$TS_TMP/err")"

export "ALIGNPROBE_TEST_IDENTITY_${dev#/dev/}=ACME:Sweep Drive:2.0:SW0001"
"$ALIGNPROBE" "${sweep[@]}" --record="$store" "$dev" > "$TS_TMP/out" 2> "$TS_TMP/err"
rc=$?
[ $rc = 0 ] || { cat "$TS_TMP/err" >&2; ts_fail "sweep exited $rc"; }
jq -e --arg dev "$dev" '.models[0].model == "Sweep Drive" and .models[0].revision == "2.0"
	and .models[0].verdicts[0].physical_sector == 4096
	and .models[0].verdicts[0].lowest_aligned_lba == 7
	and .models[0].verdicts[0].examples[0].source == "sweep"
	and .models[0].verdicts[0].examples[0].serial == "SW0001"
	and .models[0].verdicts[0].examples[0].device == $dev' "$store" >/dev/null ||
	{ cat "$store" >&2; ts_fail "the sweep's verdict in the store"; }

truncate -s 64M "$TS_TMP/disk.img"
printf 'label: gpt\nfirst-lba: 34\nstart=39,size=8192\nstart=8240,size=8192\n' |
	sfdisk -q --no-reread --no-tell-kernel "$TS_TMP/disk.img" >/dev/null || ts_fail "sfdisk"
disk=$(ts_loop_attach "$TS_TMP/disk.img")
export "ALIGNPROBE_TEST_IDENTITY_${disk#/dev/}=ACME:Sweep Drive:2.0:OTHER"
ts_run_rc_ro 4 "$disk" "$ALIGNPROBE" check -J --verdicts="$store" "$disk"
jq -e '.rule.name == "model_verdict" and .model_verdict.entry == "models[0].verdicts[0]"
	and [.partitions[].start] == [39, 8240] and [.partitions[].aligned] == [true, false]
	and .partitions[1].next_aligned == 8247' "$TS_TMP/out" >/dev/null ||
	{ cat "$TS_TMP/out" >&2; ts_fail "check with the sweep's verdict"; }
ts_pass
