#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# HACKING.md's recipes ("A quirk with its counter", "A new subcommand")
# name the places a change touches; what the code derives from one table
# needs nothing else, and what it cannot derive is checked here, so that
# following the recipe alone gives a complete change:
#   - counters: every counter of emu/emu.h's AP_EMU_COUNTERS lists is
#     counted by the server (a bump() of its field in src/emu/server.c);
#   - template: docs/command-template.c, the command a new one starts from,
#     builds (tests/helpers/command_template) and works: its usage, its
#     columns, an error, a loop device's sizes (with root and loop devices);
#   - commands: every command of cmd/commands.h's table has its file
#     src/cmd/<name>.c in src/cmd/Makemodule.am and a README.md row;
#   - alone-first: the tests that call ts_alone are exactly the first
#     assignment of Makefile.am's LONG_TESTS, which make starts first
#     (tests/harness-lock.sh: an alone test started later idles the others'
#     slots until the running tests end).
. "$top_srcdir/tests/ts/functions.sh"
ts_init "layout: HACKING.md's recipes hold"
ts_untimed "the source tree and its documents"

src="$top_srcdir/src"

ts_subtest counters && {
	fields=$(sed -n 's/^[ \t]*X(\([a-z_0-9]*\), [A-Z_0-9]*, [A-Z]*,.*/\1/p' "$src/emu/emu.h")
	[ "$(echo "$fields" | wc -w)" -ge 10 ] || ts_subtest_fail "no counters found in src/emu/emu.h"
	missing=
	for f in $fields; do
		grep -q "bump(&sv->shm->live\.$f," "$src/emu/server.c" || missing="$missing $f"
	done
	[ -z "$missing" ] ||
		ts_subtest_fail "src/emu/server.c never counts (bump(&sv->shm->live.FIELD, ...)):$missing"
}

ts_subtest template && {
	T=$top_builddir/tests/helpers/command_template
	[ -x "$T" ] || ts_fail "$T not built"
	ts_run_rc 0 "$T" --help
	head -n 2 "$TS_TMP/out" | tail -n 1 | grep -qx ' alignprobe template \[options\] <device>\.\.\.' ||
		ts_subtest_fail "--help does not start with the synopsis: $(head -n 2 "$TS_TMP/out")"
	ts_run_rc 0 "$T" -H -r
	[ "$(awk '{ print $1 }' "$TS_TMP/out" | paste -sd ' ')" = "DEVICE SIZE LOGICAL PHYSICAL" ] ||
		ts_subtest_fail "-H: $(cat "$TS_TMP/out")"
	ts_run_rc 2 "$T"
	ts_run_rc 1 "$T" /dev/null
	grep -q '^alignprobe template: /dev/null: not a block device' "$TS_TMP/err" ||
		ts_subtest_fail "error: $(cat "$TS_TMP/err")"
	if [ "$(id -u)" = 0 ] && [ -c /dev/loop-control ] && command -v losetup > /dev/null; then
		ts_image "$TS_TMP/img" 8M
		dev=$(ts_loop_attach "$TS_TMP/img")
		ts_run_rc 0 "$T" -n -r -o DEVICE,LOGICAL,SIZE -b "$dev"
		[ "$(cat "$TS_TMP/out")" = "$dev 512 8388608" ] || ts_subtest_fail "$dev: $(cat "$TS_TMP/out")"
	fi
}

ts_subtest commands && {
	# the names of the command table: the X(name, ...) lines of cmd/commands.h
	names=$(sed -n 's/^[ \t]*X(\([a-z]*\), ".*/\1/p' "$src/cmd/commands.h")
	[ "$(echo "$names" | wc -w)" -ge 8 ] || ts_subtest_fail "no commands in src/cmd/commands.h"
	for n in $names; do
		grep -q "src/cmd/$n\.c" "$src/cmd/Makemodule.am" ||
			ts_subtest_fail "command $n: src/cmd/$n.c is not in src/cmd/Makemodule.am"
		grep -q "^| \`alignprobe $n[ \`]" "$top_srcdir/README.md" ||
			ts_subtest_fail "command $n: no row in README.md's table of commands"
	done
}

ts_subtest alone-first && {
	first=$(sed -n '/^LONG_TESTS = /,/[^\\]$/p' "$top_srcdir/Makefile.am" |
		tr -s ' \t\\' '\n\n\n' | grep '\.sh$' | sort)
	alone=$(cd "$top_srcdir" && grep -l '^ts_alone ' tests/ts/*/*.sh | sort)
	[ -n "$alone" ] || ts_subtest_fail "no test calls ts_alone"
	[ "$first" = "$alone" ] || ts_subtest_fail "Makefile.am's first LONG_TESTS line(s) are not the ts_alone tests: $(
		diff <(echo "$first") <(echo "$alone") | grep '^[<>]' | tr '\n' ' ')(< LONG_TESTS, > ts_alone)"
}

ts_pass
