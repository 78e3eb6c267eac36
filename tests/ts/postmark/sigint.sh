#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SIGINT (and SIGTERM) during a run: alignprobe postmark stops promptly,
# removes every file and subdirectory it created, still prints what it
# measured, and exits 128+N. Also: transactions < 10 (PostMark's SIGFPE)
# and running out of files (PostMark prints no report) both report.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "signals: cleanup, partial report, 128+N; T < 10; out of files"

loc=$TS_TMP/loc
mkdir -p "$loc"
: > "$loc/keep-me"	# not ours: must survive

# the names of the files in the run's directory
files() { find "$loc" -type f | sort; }
# a transaction completed since the snapshot: each creates or deletes a file
changed() { ! files | cmp -s - "$TS_TMP/snap"; }

# interrupt SIGNAL EXPECTED_RC [--json]: a billion transactions, signalled
# once some are done -- a state seen in the progress lines
# (ALIGNPROBE_PROGRESS_FD) and in the directory, never after a fixed time
interrupt() {
	local sig=$1 want=$2 pid rc
	shift 2
	: > "$TS_TMP/progress"
	ALIGNPROBE_PROGRESS_FD=3 "$ALIGNPROBE" postmark -q --location "$loc" --number 300 \
		--transactions 1000000000 --subdirectories 3 "$@" > "$TS_TMP/out" 2> "$TS_TMP/err" \
		3> "$TS_TMP/progress" &
	pid=$!
	ts_bg_pid "$pid"
	ts_wait_for -p "$pid" "the transactions to start" \
		grep -q '^postmark: transactions: ' "$TS_TMP/progress" ||
		ts_fail "$sig: postmark ended before its transactions: $(cat "$TS_TMP/err")"
	# two changes: at least one whole transaction is done
	for _ in 1 2; do
		files > "$TS_TMP/snap"
		ts_wait_for -p "$pid" "a transaction" changed ||
			ts_fail "$sig: postmark ended during its transactions: $(cat "$TS_TMP/err")"
	done
	kill "-$sig" "$pid"
	# a lost signal would run for days: the bounded wait catches it
	ts_wait_for "postmark to exit after SIG$sig" eval "! ts_running $pid"
	wait "$pid"
	rc=$?
	[ "$rc" = "$want" ] || { cat "$TS_TMP/err" >&2; ts_fail "$sig: exit $rc, expected $want"; }
	[ "$(ls -A "$loc")" = keep-me ] || ts_fail "$sig: left $(ls -A "$loc" | head)"
	grep -q "interrupted by signal" "$TS_TMP/err" || ts_fail "$sig: no message on stderr"
}

interrupt INT 130
grep -q "^Interrupted by signal 2 while transactions" "$TS_TMP/out" || ts_fail "INT: no note in the report"
grep -q "Creation alone: 300 files" "$TS_TMP/out" || ts_fail "INT: no partial report"
interrupt TERM 143 --json
python3 - "$TS_TMP/out" <<'PY' || ts_fail "TERM: bad JSON"
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]["result"]
assert r["interrupted"] == 15, r["interrupted"]
assert r["created_alone"] == 300
assert r["transactions_done"] > 0
assert r["cleanup_removed"] > 0
PY

# transactions < 10: PostMark divides by zero here
ts_run_rc 0 "$ALIGNPROBE" postmark -q --location "$loc" --number 10 --transactions 3
grep -q "3 seconds of transactions\|seconds of transactions" "$TS_TMP/out" || ts_fail "T=3: no report"
# out of files: bias create 0 deletes one file per transaction
ts_run_rc 0 "$ALIGNPROBE" postmark -q --location "$loc" --number 40 --transactions 1000 \
	--bias-create 0 --json
python3 - "$TS_TMP/out" <<'PY' || ts_fail "out of files: wrong result"
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]["result"]
assert r["out_of_files"] is True
assert r["transactions_done"] == 40, r["transactions_done"]
assert r["deleted_mixed"] == 40 and r["deleted_alone"] == 0
PY
grep -q "out of files" "$TS_TMP/err" || ts_fail "out of files: no warning"
[ "$(ls -A "$loc")" = keep-me ] || ts_fail "left files"
ts_pass
