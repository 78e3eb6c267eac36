#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The probe shows what the device claims of its I/O units beside what it
# measured (issue 33): a drive hiding 4096-byte sectors that reports a
# minimum I/O of 512 bytes is contradicted, in JSON and in the text; one
# that reports 4096 is not; an honest drive contradicts nothing.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "probe: the device's claims against the verdict"
ts_need_emulator
ts_need_cmd jq

common="base=300us,rmw=1ms,size=64M"
opts=(--yes --max-size 8K --time-budget 30m --max-rounds 400)

ts_subtest contradicted
ts_run_rc 0 "$ALIGNPROBE" probe -J "${opts[@]}" \
	--emulate="simple,phys=4096,lba=0,$common" \
	--emulate="simple,phys=4096,lba=0,min-io=4096,opt-io=65536,$common,seed=2"
jq -e '.devices[0].verdict.physical_sector == 4096
	and .devices[0].claims.minimum_io == 512 and .devices[0].claims.optimal_io == 0
	and .devices[0].claims.contradicted == ["reports minimum_io 512; the physical sector is 4096 bytes"]
	and .devices[1].claims.minimum_io == 4096 and .devices[1].claims.optimal_io == 65536
	and .devices[1].claims.contradicted == []' "$TS_TMP/out" > /dev/null ||
	ts_fail "claims: $(jq -c '[.devices[] | {claims, p: .verdict.physical_sector}]' "$TS_TMP/out")"

ts_subtest text
ts_run_rc 0 "$ALIGNPROBE" probe "${opts[@]}" --emulate="simple,phys=4096,lba=0,$common"
grep -qxF "  Claims: minimum_io 512 (kernel), optimal_io 0 (kernel)" "$TS_TMP/out" ||
	ts_fail "no claims line: $(cat "$TS_TMP/out")"
grep -qxF "  Contradicted: reports minimum_io 512; the physical sector is 4096 bytes (what the device claims, against the verdict)" \
	"$TS_TMP/out" || ts_fail "no contradiction: $(cat "$TS_TMP/out")"

ts_subtest honest
ts_run_rc 0 "$ALIGNPROBE" probe -J "${opts[@]}" --emulate="simple,phys=512,$common,jitter=10%"
jq -e '.verdict.sensitive == false and .claims.minimum_io == 512 and .claims.contradicted == []' \
	"$TS_TMP/out" > /dev/null || ts_fail "honest: $(jq -c '{claims, v: .verdict.sensitive}' "$TS_TMP/out")"
ts_pass
