#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# `sweep --replay` of the committed results (tests/ts/sweep/data/*.json,
# tests/ts/output/sweep-4096-0.json) prints the table, the verdict, the JSON
# document, the chart and the exit status byte for byte as in
# tests/expected/sweep/output-*; bad files and bad option combinations are
# refused with the same words. No device is touched.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "sweep --replay output as expected"
mkdir "$TS_TMP/work" && cd "$TS_TMP/work" || exit 99

A=$ALIGNPROBE
# copies, so that the outputs name them the same from any tree
cp "$top_srcdir"/tests/ts/sweep/data/starts-35-40-63.json \
	"$top_srcdir"/tests/ts/sweep/data/starts-38-42.json \
	"$top_srcdir"/tests/ts/sweep/data/interrupted-56.json \
	"$top_srcdir"/tests/ts/output/sweep-4096-0.json . || ts_fail "cannot copy the replay inputs"

# every input: the human output, JSON, raw, without headings, CSV
for f in sweep-4096-0 starts-35-40-63 starts-38-42 interrupted-56; do
	ts_expect_run "$f" "$A" sweep --replay "$f.json"
	ts_expect_run "$f-json" "$A" sweep --replay "$f.json" -J
	ts_expect_run "$f-raw" "$A" sweep --replay "$f.json" -r
	ts_expect_run "$f-noheadings" "$A" sweep --replay "$f.json" -n -o START,ALIGNED,FAST,COST,RMW
	ts_expect_run "$f-csv" "$A" sweep --replay "$f.json" --csv --output-all
done

# the output options on the one with a verdict
J=sweep-4096-0.json
ts_expect_run output-subset "$A" sweep --replay "$J" -o START,TPS,REL
ts_expect_run output-subset-lower "$A" sweep --replay "$J" -o rel,start
ts_expect_run output-append "$A" sweep --replay "$J" -o +RMW,COST
ts_expect_run output-all "$A" sweep --replay "$J" --output-all
ts_expect_run output-raw-long "$A" sweep --replay "$J" --raw --noheadings -o START,ALIGNED,FAST
ts_expect_run output-json-subset "$A" sweep --replay starts-35-40-63.json -J -o START,FAST,TPS
ts_expect_run output-bytes "$A" sweep --replay "$J" -b -r -o START,WRITE_KIBS
ts_expect_run output-quiet "$A" sweep --replay "$J" -q
ts_expect_run replay-equals "$A" sweep --replay="$J" -rn -o START,REL

# the chart: the same SVG every time
ts_expect_run plot "$A" sweep --replay "$J" --plot chart.svg -r -o START,FAST
ts_expect plot.svg chart.svg

# a run that was stopped by a signal: its results, no verdict (exit 5)
sed 's/"stopped":"clear"/"stopped":"signal"/' "$J" > stopped.json
grep -q '"stopped":"signal"' stopped.json || ts_fail "cannot make stopped.json from $J"
ts_expect_run stopped-by-signal "$A" sweep --replay stopped.json
ts_expect_run stopped-by-signal-json "$A" sweep --replay stopped.json -J -o START

# the JSON output read back: the same as the saved file's
"$A" sweep --replay "$J" -J > replayed.json 2> /dev/null
ts_expect_run replay-of-json "$A" sweep --replay replayed.json

# bad input files: exit 2 and the reason
mkdir adir
: > empty.json
echo '{"logical_sector": 512, "results": [' > cut.json
echo '{"logical_sector": 512, "results": [{"start": 40}]}' > bad-result.json
echo '[1, 2, 3]' > array.json
echo '{"logical_sector": 500, "results": []}' > bad-sector.json
ts_expect_run missing-file "$A" sweep --replay nonexistent.json
ts_expect_run directory "$A" sweep --replay adir
ts_expect_run empty-file "$A" sweep --replay empty.json
ts_expect_run truncated "$A" sweep --replay cut.json
ts_expect_run bad-result "$A" sweep --replay bad-result.json
ts_expect_run not-an-object "$A" sweep --replay array.json
ts_expect_run bad-logical-sector "$A" sweep --replay bad-sector.json

# bad combinations: exit 2 before anything is read
ts_expect_run replay-no-argument "$A" sweep --replay
ts_expect_run replay-and-device "$A" sweep --replay "$J" /dev/null
ts_expect_run replay-and-starts "$A" sweep --replay "$J" --starts 40
ts_expect_run json-and-raw "$A" sweep --replay "$J" -J -r
ts_expect_run json-and-csv "$A" sweep --replay "$J" -J --csv
ts_expect_run raw-and-csv "$A" sweep --replay "$J" -r --csv
ts_expect_run output-all-and-output "$A" sweep --replay "$J" --output-all -o START
ts_expect_run unknown-column "$A" sweep --replay "$J" -o START,NO_SUCH_COLUMN
ts_expect_run empty-column "$A" sweep --replay "$J" -o START,,TPS
ts_expect_run no-device "$A" sweep
ts_expect_run two-devices "$A" sweep /dev/null /dev/zero
ts_expect_run bad-preset "$A" sweep --preset bogus --replay "$J"
ts_expect_run bad-starts "$A" sweep --starts 64..34 /dev/null
ts_expect_run bad-rounds "$A" sweep --rounds 0 /dev/null
ts_expect_run bad-time-budget "$A" sweep --time-budget soon /dev/null
ts_expect_run bad-fs "$A" sweep --fs ntfs /dev/null
ts_expect_run bad-sync "$A" sweep --sync sometimes /dev/null
ts_expect_run bad-emulate-spec "$A" sweep --emulate=phys=1000
ts_expect_run missing-workload "$A" sweep --workload nonexistent.pmrc /dev/null

ts_expect_done
