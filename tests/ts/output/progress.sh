#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The progress line in a real terminal (a private tmux server): one line,
# rewritten in place ("demo task: i of N, item i, ETA ..."), never wrapped
# in a narrow terminal, erased at the end; nothing at all with --quiet or
# when stderr is a pipe or a file.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "progress line on a terminal"
ts_need_cmd tmux

DEMO=$top_builddir/tests/unit/progress_demo
[ -x "$DEMO" ] || { echo "output/progress: $DEMO not built (make check builds it)" >&2; exit 99; }

SOCK=$TS_TMP/tmux.sock
trap 'ts_rc=$?; tmux -S "$SOCK" kill-server >/dev/null 2>&1; (exit $ts_rc); ts_cleanup' EXIT

# in_tmux COLS CMD: run CMD in a COLS-wide pane; capture the pane every
# 50 ms until CMD has finished; the captures go to $TS_TMP/caps/N
in_tmux() {
	local cols=$1 cmd=$2 n=0 end
	rm -rf "$TS_TMP/caps"
	mkdir -p "$TS_TMP/caps"
	tmux -S "$SOCK" -f /dev/null new-session -d -s t -x "$cols" -y 12 \
		"env TERM=screen $cmd; touch $TS_TMP/finished; sleep 60" ||
		ts_fail "tmux new-session failed"
	end=$((SECONDS + 30))
	while [ ! -e "$TS_TMP/finished" ] && [ $SECONDS -lt $end ]; do
		tmux -S "$SOCK" capture-pane -p -t t > "$TS_TMP/caps/$n" 2>/dev/null
		n=$((n + 1))
		sleep 0.05
	done
	[ -e "$TS_TMP/finished" ] || ts_fail "$cmd did not finish in the terminal"
	sleep 0.1
	tmux -S "$SOCK" capture-pane -p -t t > "$TS_TMP/final"
	tmux -S "$SOCK" kill-server >/dev/null 2>&1
	rm -f "$TS_TMP/finished"
}

# --- a wide terminal ------------------------------------------------------
in_tmux 100 "$DEMO 40 50"
grep -h 'demo task' "$TS_TMP"/caps/* > "$TS_TMP/seen" || ts_fail "no progress line seen on the terminal"
grep -qE '^demo task: [0-9]+ of 40, item [0-9]+' "$TS_TMP/seen" ||
	ts_fail "progress line not as expected: $(head -n 3 "$TS_TMP/seen")"
grep -qE ', ETA [0-9]+s$' "$TS_TMP/seen" || ts_fail "no ETA in the progress line: $(tail -n 3 "$TS_TMP/seen")"
# at least three different states seen: it updates
[ "$(sort -u "$TS_TMP/seen" | wc -l)" -ge 3 ] || ts_fail "the progress line does not update"
# one line at a time: never two progress lines in the pane
for f in "$TS_TMP"/caps/*; do
	[ "$(grep -c 'demo task' "$f")" -le 1 ] || ts_fail "two progress lines at once: $(cat "$f")"
done
# erased at the end, the result printed on a clean line
grep -q 'demo task' "$TS_TMP/final" && ts_fail "progress line left behind: $(cat "$TS_TMP/final")"
grep -qx 'done 40' "$TS_TMP/final" || ts_fail "result missing: $(cat "$TS_TMP/final")"

# --- a narrow terminal: cut, never wrapped ---------------------------------
in_tmux 24 "$DEMO 20 30"
grep -h 'demo' "$TS_TMP"/caps/* > "$TS_TMP/seen" || ts_fail "no progress line in a narrow terminal"
for f in "$TS_TMP"/caps/*; do
	lines=$(grep -c . "$f")
	[ "$lines" -le 1 ] || ts_fail "progress line wrapped in 24 columns: $(cat "$f")"
done
awk 'length > 23 { exit 1 }' "$TS_TMP/seen" || ts_fail "progress line longer than the terminal"
grep -qx 'done 20' "$TS_TMP/final" || ts_fail "result missing: $(cat "$TS_TMP/final")"

# --- --quiet on a terminal: nothing -----------------------------------------
in_tmux 100 "$DEMO -q 10 30"
grep -h 'demo task' "$TS_TMP"/caps/* "$TS_TMP/final" && ts_fail "progress shown with --quiet"
grep -qx 'done 10' "$TS_TMP/final" || ts_fail "result missing with --quiet"

# --- pipes and files: nothing -------------------------------------------------
"$DEMO" 10 10 2>&1 | cat > "$TS_TMP/pipe"
ts_assert_eq "done 10" "$(cat "$TS_TMP/pipe")" "output on a pipe"
"$DEMO" 10 10 2> "$TS_TMP/err" > /dev/null
[ -s "$TS_TMP/err" ] && ts_fail "progress written to a file: $(od -c "$TS_TMP/err" | head -n 2)"

# --- a real command: seq on a file, three runs of up to a second ----------
SEQ="$ALIGNPROBE seq -s 4M -B 4K -m dsync --rounds 3 --cell-time 1s -o MODE,BS,RUNS $TS_TMP/seq.dat"
in_tmux 120 "$SEQ"
grep -h 'seq ' "$TS_TMP"/caps/* | grep -E ': [0-9] of 3' > "$TS_TMP/seen" ||
	ts_fail "no 'seq ...: i of 3' progress line on the terminal: $(cat "$TS_TMP/final")"
for f in "$TS_TMP"/caps/*; do
	[ "$(grep -cE ': [0-9] of 3' "$f")" -le 1 ] || ts_fail "seq: two progress lines at once: $(cat "$f")"
done
grep -qE ': [0-9] of 3' "$TS_TMP/final" && ts_fail "seq: progress line left behind: $(cat "$TS_TMP/final")"
grep -qE '^dsync +4K +3' "$TS_TMP/final" || ts_fail "seq: no result row in the terminal: $(cat "$TS_TMP/final")"
# and nothing of it on a pipe
$SEQ 2>&1 | cat > "$TS_TMP/pipe"
grep -q $'\r' "$TS_TMP/pipe" && ts_fail "seq wrote a progress line into a pipe"
grep -qE '^dsync +4K +3' "$TS_TMP/pipe" || ts_fail "seq on a pipe: no result: $(cat "$TS_TMP/pipe")"

ts_pass
