#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The command frame: --help, --version, usage errors with exit 2.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "help, version and usage errors"
ts_untimed "the command line and its messages"

ts_subtest help
ts_run_rc 0 "$ALIGNPROBE" --help
cmds=$(ts_commands)
[ "$(echo "$cmds" | wc -w)" -ge 8 ] || ts_fail "--help lists no commands"
grep -q "Exit status" "$TS_TMP/out" || ts_fail "--help lacks the exit codes"

ts_subtest version
ts_run_rc 0 "$ALIGNPROBE" --version
grep -qE '^alignprobe [0-9]+\.[0-9]+' "$TS_TMP/out" || ts_fail "bad --version output"

ts_subtest usage-errors
ts_run_rc 2 "$ALIGNPROBE"
grep -q "Try 'alignprobe --help'" "$TS_TMP/err" || ts_fail "no hint after missing command"
ts_run_rc 2 "$ALIGNPROBE" frobnicate
grep -q "unknown command 'frobnicate'" "$TS_TMP/err" || ts_fail "unknown command not named"
ts_run_rc 2 "$ALIGNPROBE" --bogus

# every subcommand answers --help with exit 0 (or says it is not built: 6),
# and rejects an unknown option with exit 2 (or 6)
for c in $cmds; do
	ts_subtest "$c-help-and-usage-error" || continue
	"$ALIGNPROBE" "$c" --help > "$TS_TMP/out" 2> "$TS_TMP/err"
	rc=$?
	case $rc in
	0) grep -qi "usage" "$TS_TMP/out" || ts_fail "$c --help prints no usage" ;;
	6) grep -q "not built" "$TS_TMP/err" || ts_fail "$c exit 6 without saying why" ;;
	*) ts_fail "$c --help exited $rc" ;;
	esac
	"$ALIGNPROBE" "$c" --no-such-option > "$TS_TMP/out" 2> "$TS_TMP/err"
	rc=$?
	case $rc in
	2) grep -q "Try 'alignprobe $c --help'" "$TS_TMP/err" || ts_fail "$c: usage error without hint" ;;
	6) ;;
	*) ts_fail "$c --no-such-option exited $rc, expected 2" ;;
	esac
done
# one layout: the shared output options (-o ... -b) and -h/-V start their
# descriptions in the column of the command's own options
ts_subtest help-layout
for c in $cmds; do
	"$ALIGNPROBE" "$c" --help > "$TS_TMP/out" 2> /dev/null || continue
	cols=$(grep -E '^ (-[a-zA-Z], |    )--[a-z]' "$TS_TMP/out" |
		sed -E 's/^( (-[a-zA-Z], |    )--[a-z-]+(\[?[= ][^ ]+)? +)[^ ].*/\1/' |
		awk '{ print length($0) }' | sort | uniq -c | sort -rn)
	main=$(echo "$cols" | awk 'NR == 1 { print $2 }')
	for o in '-o, --output' '-J, --json' '-h, --help' '-V, --version'; do
		n=$(grep -E "^ $o" "$TS_TMP/out" | sed -E 's/^( [^ ]+ [^ ]+( <list>)? +)[^ ].*/\1/' |
			awk '{ print length($0) }')
		[ -n "$n" ] || continue		# postmark has no -o
		[ "$n" = "$main" ] || ts_fail "$c --help: '$o' describes from column $n, the other options from $main"
	done
done
# every command's help points to the manual where sweep's does
ts_subtest manual-pointer
for c in sweep probe; do
	"$ALIGNPROBE" "$c" --help | tail -n 1 | grep -q "^For more details see alignprobe(8)\.$" ||
		ts_fail "$c --help does not end with the pointer to alignprobe(8)"
done
ts_pass
