#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# lsblk's output conventions on every command that prints a table and can
# run here without writing a disk: check IMAGE, sweep --replay, seq FILE,
# cleanup, emulate --stats. For each: -H and -H -r list the columns
# (upper case), the default table shows known columns, --output-all shows
# all of them in -H order, -o picks (case-insensitive) and +LIST appends,
# -n drops the header, -r is one line per row, --csv parses as CSV with
# the same cells, -J is JSON whose row objects carry exactly the selected
# columns, in the order of -o, as lower-case keys and sizes as numbers of
# bytes, -b prints <size> columns in bytes, and the mutually exclusive or
# unknown options fail with exit 2. probe -J -o on an emulated drive too.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "lsblk conventions: -H -o --output-all -J -r -n -b --csv"
ts_need_cmd python3 sfdisk

A=$ALIGNPROBE

# pycheck: the JSON and CSV checks of one command in one python3 run (its
# start-up is the slow part of this test). Reads $TS_TMP/{csv,json,json-sel,
# json-all}; arguments: MINROWS FIRST SECOND ALL-COLUMNS...
pycheck() {
	python3 - "$TS_TMP" "$@" <<'PY'
import csv, json, os, sys
tmp, minrows, first, second, cols = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5:]
def fail(msg):
    sys.exit(msg)
def load(name):
    try:
        return json.load(open(os.path.join(tmp, name)))
    except ValueError as e:
        fail('%s is not JSON: %s' % (name, e))
def rows_of(doc):
    # the first list of objects (depth-first) whose objects have the first column as key
    key = first.lower()
    def find(x):
        if isinstance(x, list) and x and all(isinstance(o, dict) for o in x) and key in x[0]:
            return x
        for v in (x.values() if isinstance(x, dict) else x if isinstance(x, list) else []):
            r = find(v)
            if r is not None:
                return r
    return find(doc) or []
# CSV: all columns, every record the same number of fields, the header = the columns
with open(os.path.join(tmp, 'csv'), newline='') as f:
    recs = list(csv.reader(f))
if minrows:
    if not recs or recs[0] != cols:
        fail('--csv header %r, expected %r' % (recs[:1], cols))
    for i, r in enumerate(recs):
        if len(r) != len(cols):
            fail('--csv record %d has %d fields, expected %d: %r' % (i + 1, len(r), len(cols), r))
        if any('\\x20' in c for c in r):
            fail('--csv escapes blanks as \\x20: %r' % r)
    if len(recs) - 1 < minrows:
        fail('--csv: %d rows, expected at least %d' % (len(recs) - 1, minrows))
doc = load('json')
if minrows:
    if len(rows_of(doc)) < minrows:
        fail('-J: no list of at least %d row objects with the key %s' % (minrows, first.lower()))
    # JSON_O=select: -o picks the keys (lsblk); JSON_O=all: a command's json-c
    # document keeps every column whatever -o says (documented in its --help)
    sel = [first, second] if os.environ.get('JSON_O', 'select') == 'select' else cols
    for name, want in (('json-sel', sel), ('json-all', cols)):
        rows = rows_of(load(name))
        got = sorted(rows[0].keys()) if rows else []
        if got != sorted(c.lower() for c in want):
            fail('-J %s: row keys %s, expected the columns %s' % (
                '-o %s,%s' % (first, second) if name == 'json-sel' else '--output-all',
                ','.join(got), ','.join(sorted(c.lower() for c in want))))
    # -o: every row holds exactly the selected keys, in the order of -o (lsblk)
    if sel != cols:
        for r in rows_of(load('json-sel')):
            if list(r.keys()) != [c.lower() for c in sel]:
                fail('-J -o %s,%s: a row with the keys %s' % (first, second, ','.join(r.keys())))
        rows = rows_of(load('json-rev'))
        for r in rows:
            if list(r.keys()) != [second.lower(), first.lower()]:
                fail('-J -o %s,%s: a row with the keys %s' % (second, first, ','.join(r.keys())))
        if len(rows) != len(rows_of(load('json-sel'))):
            fail('-J -o %s,%s and -o %s,%s: not the same rows' % (first, second, second, first))
    # sizes are numbers of bytes in JSON, also without -b
    for c in os.environ.get('SIZECOLS', '').split():
        for r in rows_of(load('json-all')):
            v = r.get(c.lower())
            if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
                fail('-J: size column %s is %r, expected a number of bytes' % (c, v))
PY
}

# [JSON_O=select|all] conventions LABEL MIN_ROWS CMD ARGS...: all the checks
# on one command
conventions() {
	local label=$1 minrows=$2 out=$TS_TMP/out err=$TS_TMP/err
	local names all n first second last defaults hdr sizecols c rc i
	shift 2

	# -H, -H -r
	"$@" -H > "$out" 2> "$err" || ts_fail "$label -H failed: $(cat "$err")"
	[ -s "$out" ] || ts_fail "$label -H printed nothing"
	"$@" -H -r > "$out" 2> "$err" || ts_fail "$label -H -r failed"
	all=$(awk '{ print $1 }' "$out" | paste -sd ' ')
	for c in $all; do
		# upper case, '_' between words (the lead's decision, 20:20)
		[[ $c =~ ^[A-Z][A-Z0-9_]*$ ]] || ts_fail "$label: column name '$c' is not UPPER_CASE"
	done
	n=$(wc -w <<< "$all")
	[ "$n" -ge 2 ] || ts_fail "$label: fewer than two columns"
	read -r first second _ <<< "$all"
	last=${all##* }
	sizecols=$("$@" -H | awk '$2 == "<size>" { print $1 }' | paste -sd ' ')

	# the default table, raw: the header names known columns. Without rows
	# libsmartcols prints nothing at all, and -r output is for scripts: no
	# sentences either.
	"$@" -r > "$out" 2> "$err" || ts_fail "$label -r failed: $(cat "$err")"
	if [ "$minrows" = 0 ]; then
		[ -s "$out" ] && ts_fail "$label -r without rows printed: $(head -n 3 "$out")"
		"$@" --csv > "$out" 2> "$err" || ts_fail "$label --csv failed"
		[ -s "$out" ] && ts_fail "$label --csv without rows printed: $(head -n 3 "$out")"
		"$@" -J > "$TS_TMP/json" 2> "$err" || ts_fail "$label -J failed: $(cat "$err")"
		: > "$TS_TMP/csv"
		pycheck 0 "$first" "$second" $all || ts_fail "$label: see above"
		usage_errors "$label" "$first" "$second" "$@"
		ts_log "$label: ok without rows ($n columns)"
		return
	fi
	defaults=$(head -n 1 "$out")
	for c in $defaults; do
		case " $all " in *" $c "*) ;; *) ts_fail "$label: default column $c not in -H" ;; esac
	done
	[ "$(($(wc -l < "$out") - 1))" -ge "$minrows" ] ||
		ts_fail "$label -r: fewer than $minrows rows: $(cat "$out")"

	# --output-all: every column in -H order
	"$@" -r --output-all > "$out" 2> "$err" || ts_fail "$label --output-all failed: $(cat "$err")"
	ts_assert_eq "$all" "$(head -n 1 "$out")" "$label --output-all header"

	# -o picks, in the order given, case-insensitive
	"$@" -r -o "$second,${first,,}" > "$out" 2> "$err" || ts_fail "$label -o failed: $(cat "$err")"
	ts_assert_eq "$second $first" "$(head -n 1 "$out")" "$label -o $second,${first,,} header"
	# +LIST appends to the defaults
	"$@" -r -o "+$last" > "$out" 2> "$err" || ts_fail "$label -o +$last failed: $(cat "$err")"
	ts_assert_eq "$defaults $last" "$(head -n 1 "$out")" "$label -o +$last header"

	# -n: no header; -r: raw rows have as many fields as columns
	"$@" -r -n -o "$first,$second" > "$out" 2> "$err" || ts_fail "$label -n failed"
	grep -qx "$first $second" "$out" && ts_fail "$label -n printed the header"
	[ "$(wc -l < "$out")" -ge "$minrows" ] || ts_fail "$label -r -n: too few rows"
	awk 'NF != 2 { exit 1 }' "$out" || ts_fail "$label -r: a row without exactly 2 fields: $(cat "$out")"

	# --csv (all columns) and -J (default, -o, --output-all): checked by pycheck
	"$@" --csv --output-all > "$TS_TMP/csv" 2> "$err" || ts_fail "$label --csv failed: $(cat "$err")"
	"$@" -J > "$TS_TMP/json" 2> "$err" || ts_fail "$label -J failed: $(cat "$err")"
	"$@" -J -o "$first,$second" > "$TS_TMP/json-sel" 2> "$err" || ts_fail "$label -J -o failed"
	"$@" -J -o "$second,$first" > "$TS_TMP/json-rev" 2> "$err" || ts_fail "$label -J -o failed"
	"$@" -J --output-all > "$TS_TMP/json-all" 2> "$err" || ts_fail "$label -J --output-all failed"
	SIZECOLS=$sizecols pycheck "$minrows" "$first" "$second" $all || ts_fail "$label: see above"

	# -b: <size> columns in bytes
	for c in $sizecols; do
		"$@" -r -n -b -o "$c" > "$out" 2> "$err" || ts_fail "$label -b -o $c failed"
		grep -qvE '^[0-9]*$' "$out" && ts_fail "$label -b: column $c not in bytes: $(head -n 3 "$out")"
		"$@" -r -n -o "$c" > "$out" 2> "$err" || ts_fail "$label -o $c failed"
		grep -qE '^[0-9]+$' "$out" && ts_fail "$label: column $c in bytes without -b: $(head -n 3 "$out")"
	done

	usage_errors "$label" "$first" "$second" "$@"
	ts_log "$label: ok ($n columns, ${SECONDS}s)"
}

# usage_errors LABEL FIRST SECOND CMD...: exit 2 and a message naming the problem
usage_errors() {
	local label=$1 first=$2 second=$3 out=$TS_TMP/out err=$TS_TMP/err bad rc
	shift 3
	for bad in "-J -r" "-J --csv" "-r --csv" "--output-all -o $first" "-o NO_SUCH_COLUMN" "-o $first,,$second"; do
		# shellcheck disable=SC2086
		"$@" $bad > "$out" 2> "$err"
		rc=$?
		[ $rc = 2 ] || ts_fail "$label $bad: exit $rc, expected 2"
		[ -s "$err" ] || ts_fail "$label $bad: no message"
	done
	grep -q 'NO_SUCH_COLUMN' < <("$@" -o NO_SUCH_COLUMN 2>&1) ||
		ts_fail "$label -o NO_SUCH_COLUMN: the message does not name the column"
}

# check on a GPT image
img=$TS_TMP/disk.img
ts_image "$img" 64M
printf 'label: gpt\nstart=2048,size=20000,name="a b"\nstart=40001,size=10000\n' |
	sfdisk -q "$img" > /dev/null 2>&1 || ts_fail "sfdisk failed"
# (--trust-reported: 40001 passes the image's 512-byte report, and every
# convention runs with exit status 0)
ts_subtest check-image
conventions "check IMAGE" 2 "$A" check --trust-reported "$img"
# the exit status still follows the table with any output option
"$A" check "$img" -p 4096 -J > /dev/null 2>&1
ts_assert_eq 4 $? "check -p 4096 -J on a misaligned image: exit status"
"$A" check "$img" -r > /dev/null 2>&1
ts_assert_eq 4 $? "check -r on an image misaligned under the 4 KiB minimum: exit status"

# sweep --replay of saved results
ts_subtest sweep-replay
conventions "sweep --replay" 17 "$A" sweep --replay "$top_srcdir/tests/ts/output/sweep-4096-0.json"

# seq on a small file; -o selects the keys of its cells in -J too
ts_subtest seq-file
conventions "seq FILE" 2 "$A" seq -q -s 128K -B 64K -m none,fdatasync "$TS_TMP/seq.dat"

# cleanup with nothing to do: the options work, the JSON list is empty
ts_subtest cleanup
conventions "cleanup" 0 "$A" cleanup

# postmark prints no table, but -J is a JSON document too (and nothing is
# left in the directory)
ts_subtest postmark-json
mkdir -p "$TS_TMP/pm"
"$A" postmark -q -J -N 5 -t 5 -l "$TS_TMP/pm" > "$TS_TMP/json" 2> "$TS_TMP/err" ||
	ts_fail "postmark -J failed: $(cat "$TS_TMP/err")"
ts_json_check "$TS_TMP/json" <<< 'check(isinstance(d.get("runs"), list) and d["runs"], d)' ||
	ts_fail "postmark -J: not a JSON document with runs"
[ -z "$(ls -A "$TS_TMP/pm")" ] || ts_fail "postmark left files behind: $(ls "$TS_TMP/pm")"

# emulate --stats, where an emulated drive can be attached
if [ "$(id -u)" = 0 ] && [ -c /dev/fuse ] && [ -c /dev/loop-control ]; then
	ts_subtest emulate-stats
	dev=$(ts_emu_attach --size 16M --rmw-cost 0)
	conventions "emulate --stats" 1 "$A" emulate --stats "$dev"
	# probe: conflicting output options and bad column lists are refused
	# before anything is written.
	ts_subtest probe-output-options
	"$A" emulate --reset-stats "$dev" || ts_fail "emulate --reset-stats failed"
	for bad in "-J -r" "-J --csv" "-r --csv" "--output-all -o OFFSET" \
		   "-o NO_SUCH_COLUMN" "-o OFFSET,,SIZE"; do
		# shellcheck disable=SC2086
		"$A" probe --yes --region-size 8M --max-size 4K "$dev" $bad > "$TS_TMP/out" 2> "$TS_TMP/err"
		rc=$?
		[ $rc = 2 ] || ts_fail "probe $bad: exit $rc, expected 2"
		[ -s "$TS_TMP/err" ] || ts_fail "probe $bad: no message"
	done
	w=$("$A" emulate --stats "$dev" -r -n -o WRITES)
	ts_assert_eq 0 "$w" "writes to the device by probe runs with bad output options"
	# probe -J: its results rows keep their keys without -o (no device: the
	# document's), and hold exactly the -o columns with -o (two rounds may
	# decide nothing: exit 5)
	"$A" probe -q --yes --region-size 8M --max-size 4K --min-rounds 2 --max-rounds 2 -J "$dev" \
		> "$TS_TMP/json" 2> "$TS_TMP/err"
	rc=$?
	[ $rc = 0 ] || [ $rc = 5 ] || ts_fail "probe -J: exit $rc: $(cat "$TS_TMP/err")"
	"$A" probe -q --yes --region-size 8M --max-size 4K --min-rounds 2 --max-rounds 2 -J \
		-o MEDIAN_US,DEVICE,OFFSET "$dev" > "$TS_TMP/json-sel" 2> "$TS_TMP/err"
	rc=$?
	[ $rc = 0 ] || [ $rc = 5 ] || ts_fail "probe -J -o: exit $rc: $(cat "$TS_TMP/err")"
	python3 - "$TS_TMP" "$dev" <<'PY' || ts_fail "probe -J: see above"
import json, os, sys
tmp, dev = sys.argv[1:]
full = json.load(open(os.path.join(tmp, 'json')))
sel = json.load(open(os.path.join(tmp, 'json-sel')))
want = ['size', 'offset', 'n', 'median_us', 'q1_us', 'q3_us', 'fast', 'aligned', 'rel']
if not full['results'] or not sel['results']:
    sys.exit('probe -J: no results rows')
for r in full['results']:
    if list(r) != want:
        sys.exit('probe -J: a results row with the keys %s' % list(r))
for r in sel['results']:
    if list(r) != ['median_us', 'device', 'offset'] or r['device'] != dev:
        sys.exit('probe -J -o MEDIAN_US,DEVICE,OFFSET: a results row %r' % r)
if set(sel) != set(full):
    sys.exit('probe -J -o changed the document: %s' % sorted(set(sel) ^ set(full)))
PY
elif [ "${ALIGNPROBE_REQUIRE_DEVICES:-0}" = 1 ]; then
	ts_fail "emulate --stats needs root, /dev/fuse and loop devices (ALIGNPROBE_REQUIRE_DEVICES=1)"
else
	ts_log "emulate --stats not checked: needs root, /dev/fuse and loop devices"
fi

ts_pass
