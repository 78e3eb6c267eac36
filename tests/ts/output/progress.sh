#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The progress line in a real terminal (a private tmux server): one line,
# rewritten in place ("demo task: i of N, item i, ETA ..."), never wrapped
# in a narrow terminal, erased at the end; nothing at all with --quiet or
# when stderr is a pipe or a file.
#
# No capture depends on timing: the program's own progress lines
# (ALIGNPROBE_PROGRESS_FD, written just after the terminal's) say which
# update the terminal has; the program is stopped (SIGSTOP) until the pane
# shows it and is captured, then continued. Where every byte matters
# (--quiet, seq), the terminal is script(1)'s, which records all of them.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "progress line on a terminal"
ts_need_cmd tmux script

DEMO=$top_builddir/tests/helpers/progress_demo
[ -x "$DEMO" ] || { echo "output/progress: $DEMO not built (make check builds it)" >&2; exit 99; }

SOCK=$TS_TMP/tmux.sock
trap 'ts_rc=$?; tmux -S "$SOCK" kill-server >/dev/null 2>&1; (exit $ts_rc); ts_cleanup' EXIT

stopped() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | grep -q '^[tT]'; }
pane() { tmux -S "$SOCK" capture-pane -p -t t; }
# shows LINE: the pane has LINE's progress line: LINE cut to the width, or
# LINE followed by an ETA
shows() {
	local p
	while IFS= read -r p; do
		[ -n "$p" ] || continue
		case $1 in "$p"*) return 0 ;; esac
		case $p in "$1"*) return 0 ;; esac
	done < <(pane)
	return 1
}

# later LINE: the pane shows an update after LINE's ("K of N", K greater)
later() {
	local p i
	[[ $1 =~ ([0-9]+)\ of\  ]] || return 1
	i=${BASH_REMATCH[1]}
	while IFS= read -r p; do
		[[ $p =~ ([0-9]+)\ of\  ]] && [ "${BASH_REMATCH[1]}" -gt "$i" ] && return 0
	done < <(pane)
	return 1
}
# final LINE: LINE is a task's last update ("... N of N, ...")
final() { [[ $1 =~ ([0-9]+)\ of\ ([0-9]+) ]] && [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]; }

# in_tmux COLS CMD: run CMD in a COLS-wide pane. At every update it makes
# (each must reach the terminal: steps of 100 ms or more), stop it, wait
# until the pane shows that update, capture the pane to $TS_TMP/caps/N,
# continue. The pane after CMD finished goes to $TS_TMP/final.
in_tmux() {
	local cols=$1 cmd=$2 n=0 pid last seen=0
	rm -rf "$TS_TMP/caps" "$TS_TMP/finished" "$TS_TMP/pid"
	mkdir -p "$TS_TMP/caps"
	: > "$TS_TMP/prog"
	tmux -S "$SOCK" -f /dev/null new-session -d -s t -x "$cols" -y 12 \
		"env TERM=screen ALIGNPROBE_PROGRESS_FD=3 $cmd 3>$TS_TMP/prog & echo \$! > $TS_TMP/pid; wait \$!; touch $TS_TMP/finished; sleep 600" ||
		ts_fail "tmux new-session failed"
	ts_wait_for "the command in the pane" test -s "$TS_TMP/pid"
	pid=$(cat "$TS_TMP/pid")
	while :; do
		ts_wait_for "an update of $cmd" eval \
			'[ "$(wc -l < "$TS_TMP/prog")" -gt $seen ] || [ -e "$TS_TMP/finished" ]'
		[ "$(wc -l < "$TS_TMP/prog")" -gt $seen ] || break
		# the last update is erased as soon as it is made: a stop may
		# land only after that, so it is not waited for (the final pane
		# is checked below)
		final "$(tail -n 1 "$TS_TMP/prog")" && break
		kill -STOP "$pid" 2>/dev/null || break
		ts_wait_for "$cmd to stop" eval "stopped $pid || [ -e $TS_TMP/finished ]"
		seen=$(wc -l < "$TS_TMP/prog")
		last=$(tail -n 1 "$TS_TMP/prog")
		if ! stopped "$pid" || final "$last"; then
			kill -CONT "$pid" 2>/dev/null
			break
		fi
		# (or a later update: the stop may land between the terminal's
		# line and the descriptor's)
		ts_wait_for "the pane to show '$last'" eval 'shows "$last" || later "$last"'
		pane > "$TS_TMP/cap"
		# the same update twice (caught early, then seen again): once
		if [ "$n" = 0 ] || ! cmp -s "$TS_TMP/cap" "$TS_TMP/caps/$((n - 1))"; then
			mv "$TS_TMP/cap" "$TS_TMP/caps/$n"
			n=$((n + 1))
		fi
		kill -CONT "$pid" 2>/dev/null
	done
	# the pane once the command is gone, and what it printed last
	ts_wait_for "$cmd to end" test -e "$TS_TMP/finished"
	ts_wait_for "the result of $cmd" eval 'pane | grep -q "^done "'
	pane > "$TS_TMP/final"
	tmux -S "$SOCK" kill-server >/dev/null 2>&1
}

# --- a wide terminal ------------------------------------------------------
# 15 steps of 100 ms: the ETA (which needs a second of history) shows from
# the eleventh on
ts_subtest wide-terminal
in_tmux 100 "$DEMO 15 100"
[ "$(ls "$TS_TMP/caps" | wc -l)" -ge 3 ] || ts_fail "fewer than three updates seen"
grep -h 'demo task' "$TS_TMP"/caps/* > "$TS_TMP/seen" || ts_fail "no progress line seen on the terminal"
grep -qE '^demo task: [0-9]+ of 15, item [0-9]+' "$TS_TMP/seen" ||
	ts_fail "progress line not as expected: $(head -n 3 "$TS_TMP/seen")"
grep -qE '^demo task: 1[1-4] of 15, item 1[1-4], ETA [0-9]+s$' "$TS_TMP/seen" ||
	ts_fail "no ETA in the progress line: $(tail -n 3 "$TS_TMP/seen")"
# it updates: every update seen is a different line
[ "$(sort -u "$TS_TMP/seen" | wc -l)" = "$(wc -l < "$TS_TMP/seen")" ] || ts_fail "the progress line does not update"
# one line at a time: never two progress lines in the pane
for f in "$TS_TMP"/caps/*; do
	[ "$(grep -c 'demo task' "$f")" -le 1 ] || ts_fail "two progress lines at once: $(cat "$f")"
done
# erased at the end, the result printed on a clean line
grep -q 'demo task' "$TS_TMP/final" && ts_fail "progress line left behind: $(cat "$TS_TMP/final")"
grep -qx 'done 15' "$TS_TMP/final" || ts_fail "result missing: $(cat "$TS_TMP/final")"

# --- a narrow terminal: cut, never wrapped ---------------------------------
ts_subtest narrow-terminal
in_tmux 24 "$DEMO 5 100"
grep -h 'demo' "$TS_TMP"/caps/* > "$TS_TMP/seen" || ts_fail "no progress line in a narrow terminal"
for f in "$TS_TMP"/caps/*; do
	lines=$(grep -c . "$f")
	[ "$lines" -le 1 ] || ts_fail "progress line wrapped in 24 columns: $(cat "$f")"
done
awk 'length > 23 { exit 1 }' "$TS_TMP/seen" || ts_fail "progress line longer than the terminal"
grep -qx 'done 5' "$TS_TMP/final" || ts_fail "result missing: $(cat "$TS_TMP/final")"

# --- --quiet on a terminal: nothing (every byte that reached it) -----------
ts_subtest quiet-on-terminal
script -q -e -c "$DEMO -q 10 0" /dev/null < /dev/null > "$TS_TMP/typescript" ||
	ts_fail "script $DEMO -q failed"
ts_assert_eq "done 10" "$(tr -d '\r' < "$TS_TMP/typescript")" "the terminal with --quiet"

# --- pipes and files: nothing -------------------------------------------------
ts_subtest pipes-and-files
"$DEMO" 10 10 2>&1 | cat > "$TS_TMP/pipe"
ts_assert_eq "done 10" "$(cat "$TS_TMP/pipe")" "output on a pipe"
"$DEMO" 10 10 2> "$TS_TMP/err" > /dev/null
[ -s "$TS_TMP/err" ] && ts_fail "progress written to a file: $(od -c "$TS_TMP/err" | head -n 2)"

# --- a real command: seq on a file, three runs ------------------------------
# every byte it sends to the terminal: its first and its last update (never
# rate-limited) as lines rewritten in place, erased before the results
ts_subtest seq-on-a-file
SEQ="$ALIGNPROBE seq -s 4M -B 4K -m dsync --rounds 3 --cell-time 1s -o MODE,BS,RUNS $TS_TMP/seq.dat"
script -q -e -c "stty cols 120; $SEQ" /dev/null < /dev/null > "$TS_TMP/typescript" ||
	ts_fail "seq on a terminal failed: $(cat "$TS_TMP/typescript")"
tr '\r' '\n' < "$TS_TMP/typescript" > "$TS_TMP/seen"
for i in 1 3; do
	grep -qE "^seq [^:]+: $i of 3, dsync 4K: [0-9.]+ MB/s" "$TS_TMP/seen" ||
		ts_fail "no 'seq ...: $i of 3' progress line on the terminal: $(cat "$TS_TMP/seen")"
done
# rewritten in place: no progress line ends a line; erased: blanks, then the table
grep -aqE 'of 3[^\r]*\r?$' "$TS_TMP/typescript" && ts_fail "seq: a progress line ends a line"
erased=$(awk '/ of 3, / { last = NR } { line[NR] = $0 } END { print line[last + 1] }' "$TS_TMP/seen")
[ -n "$erased" ] && [ -z "$(tr -d ' ' <<< "$erased")" ] ||
	ts_fail "seq: the progress line was not erased: '$erased'"
grep -qE '^dsync +4K +3' "$TS_TMP/seen" || ts_fail "seq: no result row in the terminal: $(cat "$TS_TMP/seen")"
# and nothing of it on a pipe
$SEQ 2>&1 | cat > "$TS_TMP/pipe"
grep -q $'\r' "$TS_TMP/pipe" && ts_fail "seq wrote a progress line into a pipe"
grep -qE '^dsync +4K +3' "$TS_TMP/pipe" || ts_fail "seq on a pipe: no result: $(cat "$TS_TMP/pipe")"

ts_pass
