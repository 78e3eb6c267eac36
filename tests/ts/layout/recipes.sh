#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# HACKING.md's recipes ("A quirk with its counter", "A new subcommand")
# name the places a change touches; what the code derives from one table
# needs nothing else, and what it cannot derive is checked here, so that
# following the recipe alone gives a complete change:
#   - counters: every counter of emu/emu.h's AP_EMU_COUNTERS lists is
#     counted by the server (a bump() of its field in src/emu/server.c).
. "$top_srcdir/tests/ts/functions.sh"
ts_init "layout: HACKING.md's recipes hold"

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

ts_pass
