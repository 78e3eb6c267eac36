#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Verdicts on recorded sweeps of the emulated drive (4096 hidden from LBA
# 0), replayed (no device): the start lists of issue 14 and an interrupted
# sweep. data/starts-35-40-63.json: 35,40,63, stopped after 10
# measurements (main said "no alignment sensitivity, confidence 99.5 %",
# exit 0); data/starts-38-42.json: 38..42, 3 rounds (main: "slowdown 1.02x,
# no clear alignment effect"); data/interrupted-56.json: the first 11
# starts of a 34..64 sweep, 56 fast and 58 slow (main: "the timings hint at
# 1024-byte physical sectors").
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
. "$top_srcdir/tests/ts/sweep/common.sh"
ts_init "sweep verdicts on short start lists, replayed"
ts_need_cmd python3
D=$top_srcdir/tests/ts/sweep/data

for f in starts-35-40-63 starts-38-42 interrupted-56; do
	ts_run_rc 5 "$ALIGNPROBE" sweep --replay "$D/$f.json"
	cp "$TS_TMP/out" "$TS_TMP/$f.txt"
	ts_run_rc 5 "$ALIGNPROBE" sweep --replay "$D/$f.json" --json
	cp "$TS_TMP/out" "$TS_TMP/$f.out.json"
	grep -qi "no alignment sensitivity\|no alignment effect\|no clear alignment effect" \
		"$TS_TMP/$f.txt" && ts_fail "$f: $(cat "$TS_TMP/$f.txt")"
	grep -q "hint at" "$TS_TMP/$f.txt" && ts_fail "$f: a hint: $(cat "$TS_TMP/$f.txt")"
	grep -q "Note: .*measure at least two starts of each class, e.g. every start from" \
		"$TS_TMP/$f.txt" || ts_fail "$f: what is missing is not named: $(cat "$TS_TMP/$f.txt")"
	sw_check "$TS_TMP/$f.out.json" "$f" <<'EOF'
v = d["verdict"]
eq(v["resolved"], False, "%s: resolved" % args[0])
eq(v["physical_sector"], None, "%s: physical sector" % args[0])
eq(v["starts_insufficient"], True, "%s: starts_insufficient" % args[0])
eq(v["confidence_of"], "effect" if v["sensitive"] else None, "%s: confidence_of" % args[0])
eq(v["confidence"], 1 - v["p_value"] if v["sensitive"] else 0, "%s: confidence" % args[0])
check(v["slowdown"] > 100, "%s: slowdown %r (one start is 100x faster)" % (args[0], v["slowdown"]))
EOF
done
grep -q "start 40 is [0-9.]*x faster than the others" "$TS_TMP/starts-35-40-63.txt" ||
	ts_fail "35,40,63: $(cat "$TS_TMP/starts-35-40-63.txt")"
grep -q "These starts$" "$TS_TMP/starts-38-42.txt" ||
	ts_fail "38..42: $(cat "$TS_TMP/starts-38-42.txt")"
# interrupted: what the rest of the planned starts may still resolve
grep -q "The starts$" "$TS_TMP/interrupted-56.txt" &&
	grep -q "measured so far cannot resolve" "$TS_TMP/interrupted-56.txt" ||
	ts_fail "interrupted: $(cat "$TS_TMP/interrupted-56.txt")"
grep -q "1024-byte" "$TS_TMP/interrupted-56.txt" &&
	ts_fail "interrupted: a 1024-byte claim where 58 was slow: $(cat "$TS_TMP/interrupted-56.txt")"
ts_pass
