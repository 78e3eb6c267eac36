#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What `--help`, `--version`, `-H` and a mistyped command line print, for
# alignprobe and each of its commands, byte for byte as in
# tests/expected/cli/help-* (ALIGNPROBE_UPDATE_EXPECTED=1 rewrites them).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "help, version, column lists and usage errors as expected"
ts_untimed "the command line and its messages"
mkdir "$TS_TMP/work" && cd "$TS_TMP/work" || exit 99

A=$ALIGNPROBE
ts_expect_run help "$A" --help
ts_expect_run help-short "$A" -h
ts_expect_run version "$A" --version
ts_expect_run version-short "$A" -V
ts_expect_run no-command "$A"
ts_expect_run unknown-command "$A" frobnicate
ts_expect_run bad-option "$A" --bogus
ts_expect_run option-after-command-name "$A" --help sweep

cmds=$(ts_commands)
[ "$(echo "$cmds" | wc -w)" -ge 8 ] || ts_fail "alignprobe --help lists no commands"
# every command of main.c's table
for c in $cmds; do
	ts_expect_run "$c-help" "$A" "$c" --help
	ts_expect_run "$c-version" "$A" "$c" --version
	ts_expect_run "$c-bad-option" "$A" "$c" --bogus
	ts_expect_run "$c-bad-short-option" "$A" "$c" -Z
done

# the column lists of the commands that print tables (-H succeeds)
for c in $cmds; do
	"$A" "$c" -H > /dev/null 2>&1 || continue
	ts_expect_run "$c-columns" "$A" "$c" -H
done
ts_expect_run check-columns-raw "$A" check -H -r
ts_expect_run verdicts-no-action "$A" verdicts
ts_expect_run verdicts-bad-action "$A" verdicts frobnicate
ts_expect_run verdicts-no-model "$A" verdicts show

ts_expect_done
