#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The rule that decides: an unproven report of 512-byte physical sectors is
# no proof of alignment. The classic misaligned partition at 63 (GPT and DOS,
# made by parted as in the issue) on image files and on 512-byte loop
# devices: unprobed, a start must lie 4 KiB from the reported alignment
# offset (exit 4, said on stderr and in the rule line); --trust-reported gives
# the report's own rule (exit 0); a probed verdict decides as it is (an
# honest 512-byte drive and a 4096/7 drive accept 63, a 4096/0 one does not);
# a geometry given by hand too. A 4Kn loop device's report (4096) is taken as
# stated. 1 MiB is shown and never decides. The JSON document names the rule
# and the first aligned start of each partition. Nothing is ever written.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "the decision rule: 4 KiB unless probed or trusted"
ts_untimed "partition tables in files and on plain loop devices"
ts_need_loop
ts_need_cmd parted sfdisk jq sha256sum

verdict() {	# verdict DEVICE PHYSICAL LOWEST: a probe result for DEVICE
	printf '{"device": "%s", "verdict": {"sensitive": true, "resolved": true,
 "logical_sector": 512, "reported_physical_sector": 512, "physical_sector": %s,
 "period": %s, "lowest_aligned_lba": %s, "fast_starts": [%s], "slowdown": 9.0,
 "p_value": 0.001, "confidence": 0.999}}\n' "$1" "$2" $(( $2 / 512 )) "$3" "$3"
}

expect_err() {	# expect_err TEXT WHAT
	grep -qF -- "$1" "$TS_TMP/err" || { cat "$TS_TMP/err" >&2; ts_fail "$2: '$1' not on stderr"; }
}

expect_out() {	# expect_out TEXT WHAT
	grep -qF -- "$1" "$TS_TMP/out" || { cat "$TS_TMP/out" >&2; ts_fail "$2: '$1' not on stdout"; }
}

# at63 TARGET WHAT: one partition at 63 on an image or a 512-byte device
at63() {
	local t=$1 what=$2

	ts_run_rc_ro 4 "$t" "$ALIGNPROBE" check "$t"
	expect_out "0 of 1 partition aligned to 4 KiB (the minimum for an unprobed report, lowest aligned LBA 0)." "$what"
	expect_out "which 512e drives also report; not probed: requiring 4 KiB" "$what: rule line"
	grep -q "^Rule: minimum_4k: " "$TS_TMP/out" || ts_fail "$what: no rule line"
	expect_err "alignprobe check: $t: partition 1: start 63 is not aligned to 4 KiB (the minimum for an unprobed report, lowest aligned LBA 0): 7 sectors past a boundary; next aligned start 64" "$what"
	expect_err "alignprobe check: $t: note: " "$what"
	expect_err "which 512e drives also report; not probed: requiring 4 KiB; a probe verdict (--geometry) or --trust-reported decides otherwise" "$what"
	ts_run_rc_ro 4 "$t" "$ALIGNPROBE" check -q "$t"
	[ -s "$TS_TMP/out" ] && ts_fail "$what: --quiet printed on stdout"

	ts_run_rc_ro 4 "$t" "$ALIGNPROBE" check -J "$t"
	jq -e '.rule.name == "minimum_4k" and .rule.basis == "reported" and .rule.unit == 4096
		and .rule.lowest_aligned_lba == 0
		and (.rule.reason | endswith("which 512e drives also report; not probed: requiring 4 KiB"))
		and .geometry.in_force.source == "minimum_4k"
		and .partitions[0].start == 63 and .partitions[0].next_aligned == 64
		and .partitions[0].misalign == 7 and .partitions[0].align_reported == true
		and .partitions[0].align_1m == false and .partitions[0].aligned == false
		and .aligned == false and .misaligned == 1' "$TS_TMP/out" >/dev/null ||
		{ cat "$TS_TMP/out" >&2; ts_fail "$what: JSON under the 4 KiB minimum"; }

	# --trust-reported: today's rule, the report as stated
	ts_run_rc_ro 0 "$t" "$ALIGNPROBE" check --trust-reported "$t"
	expect_out "1 of 1 partition aligned to 512-byte physical sectors (reported, lowest aligned LBA 0)." "$what"
	grep -q "^Rule: trust_reported: --trust-reported: " "$TS_TMP/out" || ts_fail "$what: trust rule line"
	ts_run_rc_ro 0 "$t" "$ALIGNPROBE" check -J --trust-reported "$t"
	jq -e '.rule.name == "trust_reported" and .rule.unit == 512
		and .partitions[0].next_aligned == 63 and .aligned == true' "$TS_TMP/out" >/dev/null ||
		ts_fail "$what: JSON with --trust-reported"

	# a probed verdict decides as it is
	verdict "$t" 512 0 > "$TS_TMP/v.json"
	ts_run_rc_ro 0 "$t" "$ALIGNPROBE" check --geometry "$TS_TMP/v.json" "$t"
	expect_out "Rule: probed: a probe verdict ($TS_TMP/v.json, verdict; its entry is this device by path: $t) found 512-byte physical sectors, lowest aligned LBA 0: an honest drive, every sector boundary is aligned" "$what"
	verdict "$t" 4096 7 > "$TS_TMP/v.json"
	ts_run_rc_ro 0 "$t" "$ALIGNPROBE" check --geometry "$TS_TMP/v.json" "$t"
	verdict "$t" 4096 0 > "$TS_TMP/v.json"
	ts_run_rc_ro 4 "$t" "$ALIGNPROBE" check -J --geometry "$TS_TMP/v.json" "$t"
	jq -e '.rule.name == "probed" and .rule.basis == "probed" and .partitions[0].next_aligned == 64' \
		"$TS_TMP/out" >/dev/null || ts_fail "$what: JSON under a probed verdict"
	# given by hand
	ts_run_rc_ro 0 "$t" "$ALIGNPROBE" check --physical 4096 --lowest-aligned 7 "$t"
	grep -q "^Rule: given: --physical 4096 --lowest-aligned 7 given on the command line$" \
		"$TS_TMP/out" || ts_fail "$what: given rule line"
	ts_run_rc_ro 0 "$t" "$ALIGNPROBE" check --physical 512 "$t"
}

# the issue's own example, and the same with an msdos table
gpt=$TS_TMP/gpt63.img
dos=$TS_TMP/dos63.img
truncate -s 64M "$gpt" "$dos"
parted -s -a none "$gpt" mklabel gpt unit s mkpart p 63 100000 >/dev/null 2>&1 || ts_fail "parted gpt"
parted -s -a none "$dos" mklabel msdos unit s mkpart primary 63 100000 >/dev/null 2>&1 ||
	ts_fail "parted msdos"
at63 "$gpt" "GPT image at 63"
at63 "$dos" "DOS image at 63"

# the same tables on 512-byte loop devices: the kernel's report is no proof either
for img in "$gpt" "$dos"; do
	dev=$(ts_loop_attach "$img")
	at63 "$dev" "loop device of $(basename "$img")"
	ts_run_rc_ro 4 "$dev" "$ALIGNPROBE" check "$dev"
	grep -q "^Rule: minimum_4k: the drive reports 512-byte physical sectors, which 512e drives also report; not probed: requiring 4 KiB$" \
		"$TS_TMP/out" || ts_fail "the rule line of a 512-byte loop device"
done

# 4 KiB-aligned but not on 1 MiB: aligned; ALIGN_1M says no and decides nothing
img=$TS_TMP/at64.img
truncate -s 64M "$img"
printf 'label: gpt\nfirst-lba: 34\nstart=64,size=20416\nstart=20480,size=20480\n' |
	sfdisk -q --no-reread --no-tell-kernel "$img" >/dev/null || ts_fail "sfdisk at 64"
ts_run_rc_ro 0 "$img" "$ALIGNPROBE" check -r -n -o NR,START,ALIGN_1M,ALIGNED "$img"
ts_assert_eq "1 64 no yes
2 20480 yes yes" "$(cat "$TS_TMP/out")" "1 MiB is advice"
[ -s "$TS_TMP/err" ] && ts_fail "a 4 KiB-aligned start drew a message: $(cat "$TS_TMP/err")"

# a 4Kn loop device reports 4096: taken as stated, every start aligned
img4=$TS_TMP/4kn.img
truncate -s 64M "$img4"
dev4=$(ts_loop_attach "$img4" -b 4096)
printf 'label: gpt\nstart=257,size=4096\n' |
	sfdisk -q --no-reread --no-tell-kernel "$dev4" >/dev/null || ts_fail "sfdisk on the 4Kn loop device"
ts_run_rc_ro 0 "$dev4" "$ALIGNPROBE" check "$dev4"
grep -q "^Rule: as_reported: the drive reports 4096-byte physical sectors (kernel topology), taken as stated" \
	"$TS_TMP/out" || { cat "$TS_TMP/out" >&2; ts_fail "4Kn rule line"; }
ts_run_rc_ro 0 "$dev4" "$ALIGNPROBE" check -J "$dev4"
jq -e '.rule.name == "as_reported" and .rule.unit == 4096 and .partitions[0].next_aligned == 257' \
	"$TS_TMP/out" >/dev/null || ts_fail "4Kn JSON rule"

# --trust-reported with a probed or given geometry says it has no effect
ts_run_rc_ro 2 "$gpt" "$ALIGNPROBE" check --trust-reported --physical 4096 "$gpt"
expect_err "alignprobe check: --trust-reported and --physical are mutually exclusive" "--trust-reported --physical"
ts_pass
