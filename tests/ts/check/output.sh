#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Output like lsblk's: -o (with +), --output-all, -J, -r, -n, -H, -b, --csv;
# GPT names and UUIDs, DOS extended and logical partitions; the JSON
# document {"device","topology","geometry","partitions","aligned"}.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "table and JSON output"
ts_untimed "partition tables in files and on plain loop devices"
ts_need_cmd sfdisk jq

gpt=$TS_TMP/gpt.img
dos=$TS_TMP/dos.img
truncate -s 16M "$gpt" "$dos"
printf 'label: gpt\nstart=2048,size=4096,name=boot,uuid=11111111-2222-3333-4444-555555555555\nstart=6145,size=4095,name="data disk"\n' |
	sfdisk -q --no-reread --no-tell-kernel "$gpt" >/dev/null || ts_fail "sfdisk gpt"
printf 'label: dos\nstart=2048,size=4096\ntype=5,start=8192,size=16384\nstart=8200,size=2048\nstart=12289,size=2048\n' |
	sfdisk -q --no-reread --no-tell-kernel "$dos" >/dev/null || ts_fail "sfdisk dos"

# default table: topology block, then the partitions with the default columns;
# unprobed, the image's 512-byte sectors prove nothing and 4 KiB decides
ts_run_rc 4 "$ALIGNPROBE" check "$gpt"
grep -q "^Disk $gpt: 16M, 32768 sectors of 512 bytes, image file$" "$TS_TMP/out" || ts_fail "disk line"
grep -q "^Partition table: gpt, 2 partitions, usable sectors 2048-32734" "$TS_TMP/out" || ts_fail "table line"
grep -qE "^NR +START +END +SIZE +TYPE +ALIGN_REPORTED +ALIGN_1M +ALIGNED$" "$TS_TMP/out" ||
	ts_fail "default columns"
grep -qE "^ 2 +6145 +10239 +2\.0M +Linux filesystem +yes +no +no$" "$TS_TMP/out" || ts_fail "row 2"
grep -q "^Rule: minimum_4k: the image file has 512-byte sectors" "$TS_TMP/out" || ts_fail "rule line"
ts_run_rc 0 "$ALIGNPROBE" check --trust-reported "$gpt"
grep -qE "^ 2 +6145 +10239 +2\.0M +Linux filesystem +yes +no +yes$" "$TS_TMP/out" ||
	ts_fail "row 2 with --trust-reported"
grep -q "^Rule: trust_reported: --trust-reported: " "$TS_TMP/out" || ts_fail "trust_reported rule line"
# with a probed geometry, ALIGN_PROBED joins the defaults
ts_run_rc 4 "$ALIGNPROBE" check -p 4096 "$gpt"
grep -qE "^NR +START +END +SIZE +TYPE +ALIGN_REPORTED +ALIGN_PROBED +ALIGN_1M +ALIGNED$" "$TS_TMP/out" ||
	ts_fail "default columns with a probed geometry"

# raw, no headings, selected columns; '+' appends to the defaults
ts_run_rc 4 "$ALIGNPROBE" check -r -n -p 4096 -o NR,NAME,UUID,TYPECODE,SIZE_ALIGNED,MISALIGN "$gpt"
ts_assert_eq '1 boot 11111111-2222-3333-4444-555555555555 0FC63DAF-8483-4772-8E79-3D69D8477DE4 yes 0' \
	"$(sed -n 1p "$TS_TMP/out")" "raw row 1"
sed -n 2p "$TS_TMP/out" | grep -qE '^2 data\\x20disk [0-9A-F-]{36} 0FC63DAF-8483-4772-8E79-3D69D8477DE4 no 1$' ||
	ts_fail "raw row 2: $(sed -n 2p "$TS_TMP/out")"
ts_run_rc 4 "$ALIGNPROBE" check -r -o +SECTORS "$gpt"
ts_assert_eq "NR START END SIZE TYPE ALIGN_REPORTED ALIGN_1M ALIGNED SECTORS" \
	"$(sed -n 1p "$TS_TMP/out")" "-o +SECTORS"
grep -q "^Disk" "$TS_TMP/out" && ts_fail "raw output has the topology block"
# sizes: human unless -b
ts_run_rc 4 "$ALIGNPROBE" check -r -n -o SIZE "$gpt"
ts_assert_eq "2M" "$(sed -n 1p "$TS_TMP/out")" "human size"
ts_run_rc 4 "$ALIGNPROBE" check -r -n -b -o SIZE "$gpt"
ts_assert_eq "2097152" "$(sed -n 1p "$TS_TMP/out")" "-b size"
# CSV
ts_run_rc 4 "$ALIGNPROBE" check --csv -o NR,NAME,START "$gpt"
ts_assert_eq 'NR,NAME,START
1,boot,2048
2,data disk,6145' "$(cat "$TS_TMP/out")" "--csv"
# every column
ts_run_rc 4 "$ALIGNPROBE" check -r --output-all "$dos"
ts_assert_eq "NR START END SECTORS SIZE TYPE TYPECODE NAME UUID ALIGN_REPORTED ALIGN_DRIVE ALIGN_PROBED ALIGN_1M ALIGN_OPTIO SIZE_ALIGNED ALIGNED MISALIGN NEXT_ALIGNED DEVICE" \
	"$(sed -n 1p "$TS_TMP/out")" "--output-all"
[ "$(wc -l < "$TS_TMP/out")" = 5 ] || ts_fail "--output-all: 4 partitions expected"
# -H lists the columns and exits 0
ts_run_rc 0 "$ALIGNPROBE" check -H
for c in NR START ALIGN_REPORTED ALIGN_DRIVE ALIGN_PROBED ALIGN_1M ALIGN_OPTIO SIZE_ALIGNED ALIGNED; do
	grep -qE "^ *$c " "$TS_TMP/out" || ts_fail "-H lacks $c"
done
ts_run_rc 0 "$ALIGNPROBE" check --help
grep -q "Available output columns:" "$TS_TMP/out" || ts_fail "--help lacks the columns"
grep -q "Exit status:" "$TS_TMP/out" || ts_fail "--help lacks the exit codes"

# the JSON document
ts_run_rc 4 "$ALIGNPROBE" check -J -p 4096 "$dos"
jq -e --arg d "$dos" '
	.device == $d and .type == "image" and .label == "dos" and .sectors == 32768
	and .logical_sector == 512 and .size == 16777216
	and .topology.kernel.available == false and .topology.drive.available == false
	and (.topology.disagreements | type == "array")
	and .geometry.in_force.physical_sector == 4096 and .geometry.reported.physical_sector == 512
	and .geometry.drive == null and .geometry.optimal_io == null
	and (.partitions | length == 4)
	and ([.partitions[].nr] == [1, 2, 5, 6])
	and .partitions[1].type == "Extended" and .partitions[1].aligned == null
	and .partitions[0].size == 2097152 and .partitions[0].start == 2048
	and .partitions[0].align_drive == null and .partitions[0].align_optio == null
	and .partitions[3].aligned == false and .partitions[3].misalign == 1
	and .partitions[3].next_aligned == 12296
	and .issues == [] and .misaligned == 1 and .aligned == false' "$TS_TMP/out" >/dev/null ||
	{ cat "$TS_TMP/out" >&2; ts_fail "JSON document"; }
# -o selects the partition keys in JSON too
ts_run_rc 0 "$ALIGNPROBE" check -J --trust-reported -o NR,ALIGNED "$gpt"
jq -e '.partitions == [{"nr": 1, "aligned": true}, {"nr": 2, "aligned": true}] and .aligned == true' \
	"$TS_TMP/out" >/dev/null || ts_fail "JSON with -o"
# the rule that decided, and per partition the first aligned start under it
ts_run_rc 4 "$ALIGNPROBE" check -J "$gpt"
jq -e '.rule.name == "minimum_4k" and .rule.basis == "reported" and .rule.unit == 4096
	and .rule.lowest_aligned_lba == 0 and (.rule.reason | test("not probed: requiring 4 KiB"))
	and .geometry.in_force.source == "minimum_4k" and .geometry.in_force.physical_sector == 4096
	and .geometry.reported.physical_sector == 512
	and ([.partitions[].next_aligned] == [2048, 6152]) and ([.partitions[].aligned] == [true, false])
	and .foreign_sector_size == null' "$TS_TMP/out" >/dev/null ||
	{ cat "$TS_TMP/out" >&2; ts_fail "JSON rule and next_aligned"; }
ts_run_rc 0 "$ALIGNPROBE" check -J --trust-reported "$gpt"
jq -e '.rule.name == "trust_reported" and .rule.unit == 512
	and ([.partitions[].next_aligned] == [2048, 6145])' "$TS_TMP/out" >/dev/null ||
	ts_fail "JSON rule with --trust-reported"
# several devices: DEVICE leads the default columns; raw and CSV are one
# table (one heading, no blank line), a disk without a table adds no line
: > "$TS_TMP/none.img"; truncate -s 16M "$TS_TMP/none.img"
ts_run_rc 2 "$ALIGNPROBE" check -r --trust-reported "$gpt" "$TS_TMP/none.img" "$dos"
ts_assert_eq "DEVICE NR START END SIZE TYPE ALIGN_REPORTED ALIGN_1M ALIGNED" \
	"$(sed -n 1p "$TS_TMP/out")" "raw heading with several devices"
ts_assert_eq 0 "$(grep -c '^$' "$TS_TMP/out")" "blank lines in raw output"
ts_assert_eq 1 "$(grep -c '^DEVICE ' "$TS_TMP/out")" "raw headings"
awk -v g="$gpt" -v d="$dos" 'NR > 1 && $1 != g && $1 != d { bad = 1 } END { exit bad }' "$TS_TMP/out" ||
	ts_fail "raw rows without their device: $(cat "$TS_TMP/out")"
ts_run_rc 2 "$ALIGNPROBE" check --csv --trust-reported "$TS_TMP/none.img" "$gpt" "$dos"
ts_assert_eq 1 "$(grep -c '^DEVICE,' "$TS_TMP/out")" "CSV headings"
ts_assert_eq 0 "$(grep -c '^$' "$TS_TMP/out")" "blank lines in CSV output"
grep -q "^$gpt,1,2048," "$TS_TMP/out" || ts_fail "CSV row of $gpt: $(cat "$TS_TMP/out")"
# one device: no DEVICE column; JSON partitions keep their keys
ts_run_rc 0 "$ALIGNPROBE" check -r --trust-reported "$gpt"
grep -q "^DEVICE" "$TS_TMP/out" && ts_fail "DEVICE with one device"
ts_run_rc 0 "$ALIGNPROBE" check -J --trust-reported "$gpt"
jq -e '[.partitions[] | has("device")] | any | not' "$TS_TMP/out" >/dev/null ||
	ts_fail "-J: device in the partition objects"
ts_pass
