#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# docs/alignprobe.8 is valid roff (groff -ww and mandoc -Tlint quiet) and
# complete: a section for every subcommand of `alignprobe --help`, each of
# its options of --help and each of its columns of --list-columns, every
# drive profile of `emulate --help` (emu/params.c's table), every issue
# kind of check (device/ptable.c's table), every exit code
# of src/lib/exitcodes.h and every environment variable the sources read
# with getenv().
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "the man page"
ts_untimed "the man page against the code"
ts_need_cmd groff

MAN=$top_srcdir/docs/alignprobe.8
[ -r "$MAN" ] || ts_fail "$MAN missing"

groff -man -Tutf8 -ww -z "$MAN" 2> "$TS_TMP/groff.err"
[ -s "$TS_TMP/groff.err" ] && ts_fail "groff warnings: $(head -n 5 "$TS_TMP/groff.err")"
if command -v mandoc >/dev/null 2>&1; then
	mandoc -Tlint -Wwarning "$MAN" > "$TS_TMP/mandoc.err" 2>&1
	[ -s "$TS_TMP/mandoc.err" ] && ts_fail "mandoc -Tlint: $(head -n 5 "$TS_TMP/mandoc.err")"
fi
if command -v lexgrog >/dev/null 2>&1; then
	lexgrog "$MAN" > /dev/null 2>&1 || ts_fail "lexgrog cannot parse the NAME section"
fi

# the roff source of a section, without font escapes and with plain hyphens
plain() {
	sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/\\&//g' -e 's/\\(em/-/g'
}
section() {	# section SH|SS TITLE
	awk -v mac=".$1" -v title="$2" '
		index($0, mac " " title) == 1 && length($0) == length(mac " " title) { on = 1; next }
		on && (/^\.SH / || (mac == ".SS" && /^\.SS /)) { exit }
		on { print }' "$MAN" | plain
}

cmds=$(ts_commands)
[ -n "$cmds" ] || ts_fail "alignprobe --help lists no commands"
checked=0
for cmd in $cmds; do
	grep -qx "\.SS alignprobe $cmd" "$MAN" || ts_fail "no section for '$cmd'"
	"$ALIGNPROBE" "$cmd" --help > "$TS_TMP/help" 2>/dev/null
	rc=$?
	# a subcommand not built yet (exit 6) is documented once it is built
	[ $rc = 6 ] && continue
	[ $rc = 0 ] || ts_fail "alignprobe $cmd --help exited $rc"
	section SS "alignprobe $cmd" > "$TS_TMP/sec"
	[ "$(grep -vc '^\.' "$TS_TMP/sec")" -gt 5 ] || ts_fail "section for '$cmd' is empty"
	# every option at the start of a --help line
	for opt in $(sed -n 's/^ \{1,8\}\(-[A-Za-z0-9], \)\{0,1\}\(--[a-z][a-z0-9-]*\).*/\1\2/p' "$TS_TMP/help" |
		     tr ',' ' '); do
		case $opt in
		--help | --version | -h | -V) continue ;;
		# the output options: in OUTPUT, once for all commands
		-o | --output | --output-all | -J | --json | -r | --raw | --csv | \
		-n | --noheadings | -H | --list-columns | -b | --bytes) continue ;;
		esac
		grep -qE -- "(^|[^a-z-])$opt([^a-z-]|\$)" "$TS_TMP/sec" ||
			ts_fail "'$cmd': option $opt of --help is not in the man page"
	done
	# every column
	if "$ALIGNPROBE" "$cmd" --list-columns --raw > "$TS_TMP/cols" 2>/dev/null; then
		for col in $(awk '{ print $1 }' "$TS_TMP/cols"); do
			grep -qxF ".B $col" "$TS_TMP/sec" ||
				ts_fail "'$cmd': column $col is not in the man page"
		done
	fi
	checked=$((checked + 1))
done
[ $checked -gt 0 ] || ts_fail "no subcommand could be checked"

# every drive profile, named in emulate's section (.B NAME or .BR NAME ", " ...)
if "$ALIGNPROBE" emulate --help > "$TS_TMP/help" 2>/dev/null; then
	profiles=$(tr '\n' ' ' < "$TS_TMP/help" | sed -n 's/.*override it: \(.*\) \[simple\].*/\1/p' |
		   tr -d ',' | tr -s ' ' '\n')
	[ "$(echo "$profiles" | wc -w)" -ge 10 ] || ts_fail "emulate --help lists no profiles"
	section SS "alignprobe emulate" > "$TS_TMP/sec"
	for p in $profiles; do
		grep -qE "^\.BR? (.*[ \"])?$p([ \",]|\$)" "$TS_TMP/sec" ||
			ts_fail "emulate: profile $p is not in the man page"
	done
fi

# every issue kind of check's JSON (device/ptable.c's table, { "name", error })
# in check's section, under "The kinds that are errors:" or "... warnings:"
# as the table says, and no other
section SS "alignprobe check" > "$TS_TMP/sec"
for sev in errors:true warnings:false; do
	sed -n "/^The kinds that are ${sev%:*}:/,/^\.PP/p" "$TS_TMP/sec" |
		sed -n 's/^\.B \([a-z_]*\)$/\1/p' | sort > "$TS_TMP/kinds.man"
	sed -n "s/^[ \t]*\[AP_PT_[A-Z_]*\][ \t]*= { \"\([a-z_]*\)\", ${sev#*:} },\$/\1/p" \
		"$top_srcdir/src/device/ptable.c" | sort > "$TS_TMP/kinds.code"
	[ "$(wc -l < "$TS_TMP/kinds.code")" -ge 5 ] || ts_fail "no issue kinds found in src/device/ptable.c"
	diff "$TS_TMP/kinds.code" "$TS_TMP/kinds.man" > "$TS_TMP/kinds.diff" ||
		ts_fail "check: the man page's issue kinds that are ${sev%:*} differ from src/device/ptable.c (< code, > man): $(tr '\n' ' ' < "$TS_TMP/kinds.diff")"
done

# the global and the output options
section SH OUTPUT > "$TS_TMP/sec"
for opt in --output --output-all --json --raw --csv --noheadings --list-columns --bytes; do
	grep -qE -- "(^|[^a-z-])$opt([^a-z-]|\$)" "$TS_TMP/sec" || ts_fail "output option $opt missing"
done

# every exit code
section SH "EXIT STATUS" > "$TS_TMP/sec"
for code in $(sed -n 's/^#define AP_EXIT_[A-Z_]*[ \t]*\([0-9]*\).*/\1/p' "$top_srcdir/src/lib/exitcodes.h"); do
	case $code in
	128) grep -qx '\.BI 128+ n' "$TS_TMP/sec" || ts_fail "exit status 128+n missing" ;;
	*) grep -qx "\.B $code" "$TS_TMP/sec" || ts_fail "exit status $code missing" ;;
	esac
done

# the mapping of an error to an exit status: the table in src/cmd/common.c
# ({ ENOENT, AP_EXIT_USAGE }, one per line), the man page's list under
# EXIT STATUS (.BR ENOENT " (2)") and the README's table (| `ENOENT` | 2 |)
# hold the same pairs
exitnum() {	# AP_EXIT_USAGE -> 2
	sed -n "s/^#define $1[ \t]*\([0-9]*\).*/\1/p" "$top_srcdir/src/lib/exitcodes.h"
}
sed -n 's/^[ \t]*{ \(E[A-Z0-9]*\),[ \t]*\(AP_EXIT_[A-Z_]*\) },.*/\1 \2/p' "$top_srcdir/src/cmd/common.c" |
	while read -r err name; do echo "$err $(exitnum "$name")"; done | sort > "$TS_TMP/map.code"
[ "$(wc -l < "$TS_TMP/map.code")" -gt 10 ] || ts_fail "no errno table found in src/cmd/common.c"
grep -q ' $' "$TS_TMP/map.code" && ts_fail "src/cmd/common.c maps to an unknown AP_EXIT_ name"
sed -n 's/^\.BR \(E[A-Z0-9]*\) " (\([0-9]*\))"$/\1 \2/p' "$TS_TMP/sec" | sort > "$TS_TMP/map.man"
diff "$TS_TMP/map.code" "$TS_TMP/map.man" > "$TS_TMP/map.diff" ||
	ts_fail "the man page's errors and their status differ from src/cmd/common.c (< code, > man): $(cat "$TS_TMP/map.diff")"
sed -n 's/^| `\(E[A-Z0-9]*\)` | \([0-9]*\) |.*/\1 \2/p' "$top_srcdir/README.md" | sort > "$TS_TMP/map.readme"
diff "$TS_TMP/map.code" "$TS_TMP/map.readme" > "$TS_TMP/map.diff" ||
	ts_fail "README.md's errors and their status differ from src/cmd/common.c (< code, > README): $(cat "$TS_TMP/map.diff")"

# every environment variable the program reads
section SH ENVIRONMENT > "$TS_TMP/sec"
for var in $(grep -ho 'getenv("[A-Z_]*")' "$top_srcdir"/src/*.c "$top_srcdir"/src/*/*.c | sed 's/getenv("\(.*\)")/\1/' | sort -u); do
	grep -q "$var" "$TS_TMP/sec" || ts_fail "environment variable $var is not in the man page"
done

ts_pass
