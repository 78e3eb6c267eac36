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

interrupt() {	# interrupt SIGNAL EXPECTED_RC [--json]
	local sig=$1 want=$2 pid rc i
	shift 2
	"$ALIGNPROBE" postmark -q --location "$loc" --number 300 --transactions 1000000000 \
		--subdirectories 3 "$@" > "$TS_TMP/out" 2> "$TS_TMP/err" &
	pid=$!
	ts_bg_pid "$pid"
	# wait until the transactions are running (files in the subdirectories)
	for i in $(seq 1 600); do	# up to 30 s on a busy machine
		[ "$(find "$loc" -type f | wc -l)" -gt 250 ] && break
		sleep 0.05
	done
	sleep 0.3
	kill "-$sig" "$pid"
	for i in $(seq 1 400); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	kill -0 "$pid" 2>/dev/null && ts_fail "$sig: still running 20 s after the signal"
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
