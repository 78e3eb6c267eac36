# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Reading metrics files in the fleet tests (sourced after functions.sh).

# promtool's parser and linter; its findings are the test's failure
promcheck() {
	promtool check metrics < "$1" > "$TS_TMP/promtool.out" 2>&1 ||
		{ cat "$TS_TMP/promtool.out" >&2; ts_fail "promtool check metrics $1"; }
	[ -s "$TS_TMP/promtool.out" ] && { cat "$TS_TMP/promtool.out" >&2; ts_fail "promtool lint: $1"; }
	return 0
}

# value FILE 'series{labels}': the sample's value, exactly as written
value() {
	# (through the environment: awk -v would undo the escapes)
	S="$2" awk 'index($0, ENVIRON["S"] " ") == 1 { print substr($0, length(ENVIRON["S"]) + 2) }' "$1"
}

# expect FILE 'series{labels}' VALUE
expect() {
	local got
	got=$(value "$1" "$2")
	[ "$got" = "$3" ] || { cat "$1" >&2; ts_fail "$2: expected $3, got '${got:-nothing}'"; }
}
