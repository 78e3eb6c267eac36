#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# alignprobe postmark performs exactly PostMark's operations: run the Debian
# postmark binary and alignprobe on the same configurations (seeds, sizes,
# biases including -1, subdirectories, buffering on and off, weighted
# locations, a full file table) and compare every count and byte figure of
# the reports, parsed the same way from both; the exact float byte totals
# from PostMark's terse line where it shows them (runs under one second).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "same counts and byte figures as /usr/bin/postmark"

PM=${POSTMARK:-/usr/bin/postmark}
[ -x "$PM" ] || ts_skip "needs $PM (Debian package postmark)"

# the workloads run on tmpfs when there is one: seconds instead of minutes
WORK=$TS_TMP
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	WORK=$(mktemp -d /dev/shm/alignprobe-ts.XXXXXX) || exit 99
	trap 'rc=$?; rm -rf "$WORK"; (exit $rc); ts_cleanup' EXIT
fi

# report -> key=value lines (the fields a script reading PostMark's report uses)
parse() {
	awk '
	/^Files:/ { sec = "files" } /^Data:/ { sec = "data" }
	sec == "files" && /^\t[0-9]+ created/ { print "created=" $1 }
	/Creation alone:/ { print "created_alone=" $3 }
	/Mixed with transactions:/ { print (m++ ? "deleted_mixed=" : "created_mixed=") $4 }
	sec == "files" && /^\t[0-9]+ read \(/ { print "read=" $1 }
	sec == "files" && /^\t[0-9]+ appended/ { print "appended=" $1 }
	sec == "files" && /^\t[0-9]+ deleted/ { print "deleted=" $1 }
	/Deletion alone:/ { print "deleted_alone=" $3 }
	sec == "data" && / read \(/ { print "data_read=" $1 " " $2 }
	sec == "data" && / written \(/ { print "data_written=" $1 " " $2; sec = "" }
	' "$1"
}

n=0
check() {	# check NAME "config lines" (LOC1/LOC2 stand for two directories)
	local name=$1 body=$2 d side i
	n=$((n + 1))
	d=$WORK/c$n
	for side in pm ap; do
		mkdir -p "$d/$side/l1" "$d/$side/l2"
		{
			printf '%s\n' "$body" | sed -e "s|LOC1|$d/$side/l1|g" -e "s|LOC2|$d/$side/l2|g"
			echo run
			echo "set report terse"
			echo run
			echo quit
		} > "$d/$side.cfg"
	done
	(cd "$d/pm/l1" && "$PM" "$d/pm.cfg") > "$d/pm.out" 2> "$d/pm.err" ||
		ts_fail "$name: postmark failed"
	(cd "$d/ap/l1" && "$ALIGNPROBE" postmark -q "$d/ap.cfg") > "$d/ap.out" 2> "$d/ap.err" ||
		{ cat "$d/ap.err" >&2; ts_fail "$name: alignprobe postmark failed"; }
	parse "$d/pm.out" > "$d/pm.kv"
	parse "$d/ap.out" > "$d/ap.kv"
	[ "$(wc -l < "$d/pm.kv")" = 10 ] || { cat "$d/pm.out" >&2; ts_fail "$name: cannot parse PostMark's report"; }
	diff -u "$d/pm.kv" "$d/ap.kv" >&2 || ts_fail "$name: reports differ"

	# exact float totals: PostMark's terse bytes/s with a 1-second run
	local pmt apt
	pmt=$(grep -E '^[0-9]+ [0-9]+ ' "$d/pm.out" | tail -1)
	if [ "$(echo "$pmt" | cut -d' ' -f1)" = 1 ]; then
		(cd "$d/ap/l1" && "$ALIGNPROBE" postmark -q --json "$d/ap.cfg") > "$d/ap.json" ||
			ts_fail "$name: alignprobe postmark --json failed"
		apt=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]["result"]
print("%.2f %.2f" % (r["postmark_bytes_read"], r["postmark_bytes_written"]))' "$d/ap.json")
		[ "$apt" = "$(echo "$pmt" | cut -d' ' -f12-13)" ] ||
			ts_fail "$name: float byte totals differ: postmark '$pmt', alignprobe '$apt'"
		exact=$((exact + 1))
	fi
	for side in pm ap; do
		for i in l1 l2; do
			[ -z "$(ls -A "$d/$side/$i")" ] || ts_fail "$name: $side left files in $i"
		done
	done
	ts_log "$name: $(tr '\n' ' ' < "$d/ap.kv")"
}

exact=0
check defaults "set location LOC1"
check "classic small, unbuffered, subdirectories" "set location LOC1
set size 512 2048
set read 1024
set write 1024
set buffering false
set number 2000
set transactions 3000
set seed 12345678
set subdirectories 3"
check "seed 7 buffered" "set location LOC1
set size 512 2048
set number 1500
set transactions 2500
set seed 7"
check "bias read -1" "set location LOC1
set bias read -1
set bias create 8
set number 300
set transactions 2000
set seed 99
set size 100 5000"
check "bias create -1, appends only" "set location LOC1
set bias read 0
set bias create -1
set number 200
set transactions 1500
set size 300 900
set seed 5"
check "weighted locations and subdirectories" "set location LOC1 2
set location +LOC2 1
set subdirectories 2
set size 1000
set number 800
set transactions 1200
set seed 31337
set buffering false
set read 100
set write 300"
check "full file table" "set location LOC1
set number 50
set transactions 600
set bias create 10
set size 10 20
set seed 3"
check "bias 10 read, remove a location" "set location LOC1
set location +LOC2 3
set location -LOC1
set bias read 10
set number 400
set transactions 800
set size 2000 4096
set seed 2024"
# the spec's second reference run, scaled down is above; this one in full is
# still quick: number 20000, transactions 20000 (29953/10008/9972/19906/10047)
check "spec reference 2" "set location LOC1
set read 1024
set write 1024
set buffering false
set transactions 20000
set size 512 2048
set number 20000
set seed 12345678"
grep -q '^created=29953$' "$WORK/c$n/ap.kv" && grep -q '^read=10008$' "$WORK/c$n/ap.kv" &&
	grep -q '^appended=9972$' "$WORK/c$n/ap.kv" && grep -q '^deleted_alone=19906$' "$WORK/c$n/ap.kv" &&
	grep -q '^deleted_mixed=10047$' "$WORK/c$n/ap.kv" ||
	ts_fail "spec reference run 2: counts differ from the spec"
[ "$exact" -gt 0 ] || ts_log "note: no PostMark run was short enough to compare float totals exactly"
ts_log "$exact runs also compared exact float byte totals"
ts_pass
