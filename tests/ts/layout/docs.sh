#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Docs that check themselves: every file name cited in a comment of src/,
# in HACKING.md or in docs/design.md names a file of the repository. A
# name with a folder (emu/locate.c, tests/ts/cli/help.sh) must exist as
# such, from the root or from src/; a bare .c cited in a source file is a
# file of its own folder (the module's); other bare names exist somewhere.
# And design.md's rules a grep can hold: no engine reads the process's
# signal state (ap_sig_pending(): commands only, through ap_sig_cancel).
# What the man page must document (commands, options, columns, profiles)
# is tests/ts/output/manpage.sh's.
. "$top_srcdir/tests/ts/functions.sh"
ts_init "layout: the docs cite files that exist"
ts_untimed "the source tree and its documents"

cd "$top_srcdir" || ts_fail "cd $top_srcdir"

# Other projects' files, cited as models, and names that are patterns.
elsewhere="ask.c dos.c sun.c sgi.c parse-options.h xoshiro256plus.c postmark-spec.md
	P.h fooP.h _priv.h internal.h _int.h"

files=$TS_TMP/files
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
	{ git ls-files; git ls-files --others --exclude-standard; } | sort -u > "$files"
else
	find . -type f ! -path './.git/*' | sed 's|^\./||' | sort > "$files"	# a release tarball
fi

# "where: name" for each file name in a comment (a /* */ block or a //
# line) of the sources, and anywhere in HACKING.md and design.md
{
	awk '
		/\/\*/ { c = 1 }
		c || /\/\// { print FILENAME ":" FNR ": " $0 }
		/\*\// { c = 0 }' src/*.[ch] src/*/*.[ch]
	awk '{ print FILENAME ":" FNR ": " $0 }' HACKING.md docs/design.md docs/measurements.md
} | grep -oE '^[^:]+:[0-9]+: |[A-Za-z0-9_./-]*[A-Za-z0-9_]\.(c|h|sh|am|md|py|8)\b' |
	awk '/: $/ { where = $0; next } { print where $0 }' > "$TS_TMP/cited"
[ "$(wc -l < "$TS_TMP/cited")" -gt 100 ] || ts_fail "found too few cited names: $(wc -l < "$TS_TMP/cited")"

awk -v elsewhere="$elsewhere" '
	BEGIN { n = split(elsewhere, e, /[ \t\n]+/); for (i = 1; i <= n; i++) skip[e[i]] = 1 }
	FNR == NR {
		files[$0] = 1
		n = split($0, p, "/")
		base[p[n]] = 1
		for (i = 2; i <= n; i++) {
			s = p[i]
			for (j = i + 1; j <= n; j++)
				s = s "/" p[j]
			tail[s] = 1
		}
		next
	}
	{
		where = $1
		sub(/:[0-9]+:$/, "", where)
		dir = where
		sub(/\/[^\/]*$/, "", dir)
		name = $NF
		sub(/^\.\//, "", name)
		b = name
		sub(/.*\//, "", b)
		if ((b in skip) || name ~ /^\// || name !~ /[a-z]/)
			next		# a model, a pattern (<cmd>/output.sh), a version
		if (name ~ /\//)
			ok = (name in files) || (("src/" name) in files) || (name in tail)
		else if (where ~ /^src\// && name ~ /\.c$/)
			ok = (dir "/" name) in files
		else
			ok = name in base
		if (!ok)
			print $0
	}' "$files" "$TS_TMP/cited" > "$TS_TMP/missing"
[ -s "$TS_TMP/missing" ] &&
	ts_fail "names of files that do not exist (file:line: name): $(cat "$TS_TMP/missing")"

engines=$(grep -l 'ap_sig_pending *(' src/*/*.c | grep -v '^src/cmd/\|^src/lib/sig\.c$')
[ -z "$engines" ] ||
	ts_fail "engines reading the signal state (design.md: through their struct ap_cancel): $engines"
ts_pass
