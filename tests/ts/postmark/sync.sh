#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The extensions never change the sequence of operations: every sync policy
# and data source gives the counts and byte totals of the compatible run.
# Each policy makes the system calls it claims (strace): fsync/fdatasync
# once per create and append, O_DSYNC / O_SYNC / O_DIRECT on the opens that
# write; none of them for the compatible run. The location path is longer
# than PostMark's 80-byte name buffer. Runs on the file system of /tmp
# (ext4 here), small so that the syncs take well under a second; the files
# are opened relative to the location's descriptor (openat(fd, ...)).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "sync policies and data sources: same operations, the claimed syscalls"
ts_need_cmd strace

# a location far longer than PostMark's 80-character path buffer
loc=$TS_TMP/$(printf 'a-rather-long-directory-name-%d/' 1 2 3 4 5 6 7 8)loc
mkdir -p "$loc"
[ ${#loc} -gt 250 ] || ts_fail "location path not long enough"
opts=(-q --json --location "$loc" --number 25 --transactions 40 --size 100:9000
	--buffering no --read-block 4096 --write-block 4096 --seed 77)

counts() {	# the result's counts and exact totals, one line
	sed -n 's/^ *"\(created\|created_alone\|created_mixed\|read\|appended\|deleted\|deleted_alone\|deleted_mixed\|bytes_read\|bytes_written\|postmark_bytes_written\)": \([0-9]*\),*$/\1=\2/p' "$1" | tr '\n' ' '
}

ts_run_rc 0 "$ALIGNPROBE" postmark "${opts[@]}"
ref=$(counts "$TS_TMP/out")
[ -n "$ref" ] || ts_fail "no counts in the JSON"
creates=$(sed -n 's/^ *"created": \([0-9]*\),*$/\1/p' "$TS_TMP/out")
appends=$(sed -n 's/^ *"appended": \([0-9]*\),*$/\1/p' "$TS_TMP/out")
writes=$((creates + appends))
ts_log "reference: $ref"

for data in zeros random printable; do
	ts_run_rc 0 "$ALIGNPROBE" postmark "${opts[@]}" --data "$data"
	ts_assert_eq "$ref" "$(counts "$TS_TMP/out")" "data $data"
done

for pol in none fsync fdatasync dsync sync direct; do
	# LeakSanitizer cannot run under ptrace (ASan builds): off for these runs
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -qq -o "$TS_TMP/trace" -e trace=openat,fsync,fdatasync \
		"$ALIGNPROBE" postmark "${opts[@]}" --sync "$pol" > "$TS_TMP/out" 2> "$TS_TMP/err" ||
		{ cat "$TS_TMP/err" >&2; ts_fail "sync $pol: run failed"; }
	ts_assert_eq "$ref" "$(counts "$TS_TMP/out")" "sync $pol: counts"
	nfsync=$(grep -c '^[0-9]* *fsync(' "$TS_TMP/trace")
	nfdatasync=$(grep -c '^[0-9]* *fdatasync(' "$TS_TMP/trace")
	wopens=$(grep 'openat([0-9][0-9]*, .*O_\(WRONLY\|RDWR\)' "$TS_TMP/trace")
	nwopens=$(echo "$wopens" | grep -c .)
	ndsync=$(echo "$wopens" | grep -c 'O_DSYNC')
	nosync=$(echo "$wopens" | grep -c 'O_SYNC')
	ndirect=$(echo "$wopens" | grep -c 'O_DIRECT')
	synclat=$(awk '/"sync": \{/ { s = 1 } s && /"count"/ { gsub(/[^0-9]/, ""); print; exit }' "$TS_TMP/out")
	[ "$nwopens" = "$writes" ] || ts_fail "sync $pol: $nwopens opens for writing, expected $writes"
	case $pol in
	none) want="0 0 0 0 0 0" ;;
	fsync) want="$writes 0 0 0 0 $writes" ;;
	fdatasync) want="0 $writes 0 0 0 $writes" ;;
	dsync) want="0 0 $writes 0 0 0" ;;
	# strace shows O_SYNC alone (it includes the O_DSYNC bit)
	sync) want="0 0 0 $writes 0 0" ;;
	direct) want="0 0 $writes 0 $writes 0" ;;
	esac
	got="$nfsync $nfdatasync $ndsync $nosync $ndirect $synclat"
	ts_assert_eq "$want" "$got" "sync $pol: fsync fdatasync O_DSYNC O_SYNC O_DIRECT sync-latency-count"
	[ -z "$(ls -A "$loc")" ] || ts_fail "sync $pol: left files"
	ts_log "sync $pol: $got"
done
ts_pass
