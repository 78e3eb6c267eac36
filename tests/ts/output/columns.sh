#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# lsblk's output conventions on every command that prints a table and can
# run here without writing a disk: check IMAGE, sweep --replay, seq FILE,
# cleanup, emulate --stats. For each: -H and -H -r list the columns
# (upper case), the default table shows known columns, --output-all shows
# all of them in -H order, -o picks (case-insensitive) and +LIST appends,
# -n drops the header, -r is one line per row, --csv parses as CSV with
# the same cells, -J is JSON whose row objects carry the selected columns as
# lower-case keys, -b prints <size> columns in bytes, and the mutually
# exclusive or unknown options fail with exit 2.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "lsblk conventions: -H -o --output-all -J -r -n -b --csv"
ts_need_cmd python3 sfdisk

A=$ALIGNPROBE

# jrows JSON COLS...: the row objects of a JSON document: the first list of
# objects (depth-first) whose objects have the key of the first column
# (lower case); prints "nrows keys-of-first-row" (keys sorted, comma-joined)
jrows() {
	python3 - "$@" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
first = sys.argv[2].lower()
def find(x):
    if isinstance(x, list) and x and all(isinstance(o, dict) for o in x) and first in x[0]:
        return x
    items = x.values() if isinstance(x, dict) else x if isinstance(x, list) else []
    for v in items:
        r = find(v)
        if r is not None:
            return r
    return None
rows = find(doc)
if rows is None:
    print("0 -")
else:
    print(len(rows), ",".join(sorted(rows[0].keys())))
PY
}

# csvcheck FILE NCOLS: every record has NCOLS fields; prints the records
csvcheck() {
	python3 - "$@" <<'PY'
import csv, sys
n = int(sys.argv[2])
with open(sys.argv[1], newline='') as f:
    for i, rec in enumerate(csv.reader(f)):
        if len(rec) != n:
            sys.exit('record %d has %d fields, expected %d: %r' % (i + 1, len(rec), n, rec))
        print('\x1f'.join(rec))
PY
}

# conventions LABEL MIN_ROWS CMD ARGS...: all the checks on one command
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
		[[ $c =~ ^[A-Z][A-Z0-9_:%-]*$ ]] || ts_fail "$label: column name '$c' is not upper case"
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
		"$@" -J > "$out" 2> "$err" || ts_fail "$label -J failed: $(cat "$err")"
		python3 -m json.tool "$out" > /dev/null || ts_fail "$label -J is not JSON"
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

	# --csv: real CSV with the raw table's cells (all columns)
	"$@" --csv --output-all > "$out" 2> "$err" || ts_fail "$label --csv failed: $(cat "$err")"
	csvcheck "$out" "$n" > "$TS_TMP/csv" || ts_fail "$label --csv is not CSV with $n fields per record"
	ts_assert_eq "$(tr ' ' '\037' <<< "$all")" "$(head -n 1 "$TS_TMP/csv")" "$label --csv header"
	grep -q '\\x20' "$out" && ts_fail "$label --csv escapes blanks as \\x20: $(head -n 3 "$out")"
	[ "$(($(wc -l < "$TS_TMP/csv") - 1))" -ge "$minrows" ] || ts_fail "$label --csv: too few rows"

	# -J: valid JSON; the row objects have the selected columns as keys
	"$@" -J > "$out" 2> "$err" || ts_fail "$label -J failed: $(cat "$err")"
	python3 -m json.tool "$out" > /dev/null || ts_fail "$label -J is not JSON"
	if [ "$minrows" -gt 0 ]; then
		read -r rows keys <<< "$(jrows "$out" "$first")"
		[ "$rows" -ge "$minrows" ] || ts_fail "$label -J: no row objects with key ${first,,}"
		"$@" -J -o "$first,$second" > "$out" 2> "$err" || ts_fail "$label -J -o failed"
		read -r rows keys <<< "$(jrows "$out" "$first")"
		want=$(printf '%s\n' "${first,,}" "${second,,}" | sort | paste -sd ,)
		ts_assert_eq "$want" "$keys" "$label -J -o $first,$second: keys of a row"
		"$@" -J --output-all > "$out" 2> "$err" || ts_fail "$label -J --output-all failed"
		read -r rows keys <<< "$(jrows "$out" "$first")"
		want=$(tr ' ' '\n' <<< "${all,,}" | sort | paste -sd ,)
		ts_assert_eq "$want" "$keys" "$label -J --output-all: keys of a row"
	fi

	# -b: <size> columns in bytes
	for c in $sizecols; do
		"$@" -r -n -b -o "$c" > "$out" 2> "$err" || ts_fail "$label -b -o $c failed"
		grep -qvE '^[0-9]*$' "$out" && ts_fail "$label -b: column $c not in bytes: $(head -n 3 "$out")"
		"$@" -r -n -o "$c" > "$out" 2> "$err" || ts_fail "$label -o $c failed"
		grep -qE '^[0-9]+$' "$out" && ts_fail "$label: column $c in bytes without -b: $(head -n 3 "$out")"
	done

	usage_errors "$label" "$first" "$second" "$@"
	ts_log "$label: ok ($n columns)"
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
conventions "check IMAGE" 2 "$A" check "$img"
# the exit status still follows the table with any output option
"$A" check "$img" -p 4096 -J > /dev/null 2>&1
ts_assert_eq 4 $? "check -p 4096 -J on a misaligned image: exit status"

# sweep --replay of saved results
conventions "sweep --replay" 17 "$A" sweep --replay "$top_srcdir/tests/ts/output/sweep-4096-0.json"

# seq on a small file
conventions "seq FILE" 2 "$A" seq -q -s 128K -B 64K -m none,fdatasync "$TS_TMP/seq.dat"

# cleanup with nothing to do: the options work, the JSON list is empty
conventions "cleanup" 0 "$A" cleanup

# emulate --stats, where an emulated drive can be attached
if [ "$(id -u)" = 0 ] && [ -c /dev/fuse ] && [ -c /dev/loop-control ]; then
	dev=$(ts_emu_attach --size 16M --rmw-cost 0)
	conventions "emulate --stats" 1 "$A" emulate --stats "$dev"
elif [ "${ALIGNPROBE_REQUIRE_DEVICES:-0}" = 1 ]; then
	ts_fail "emulate --stats needs root, /dev/fuse and loop devices (ALIGNPROBE_REQUIRE_DEVICES=1)"
else
	ts_log "emulate --stats not checked: needs root, /dev/fuse and loop devices"
fi

ts_pass
