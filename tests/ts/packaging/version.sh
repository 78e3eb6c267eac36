#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# One version: debian/changelog's newest entry (build-aux/version.sh, read by
# configure.ac's AC_INIT) is what --version prints and what the man page's
# header says. (It printed 0.1.0 while the changelog said 0.1.1.)
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "--version, debian/changelog and alignprobe(8) agree"
ts_untimed "the package's version"

want=$("$top_srcdir/build-aux/version.sh")
[ -n "$want" ] || ts_fail "build-aux/version.sh printed nothing"
if command -v dpkg-parsechangelog >/dev/null; then
	ts_assert_eq "$(dpkg-parsechangelog -l "$top_srcdir/debian/changelog" -S Version)" "$want" \
		"dpkg-parsechangelog vs build-aux/version.sh"
fi
ts_assert_eq "alignprobe $want" "$("$ALIGNPROBE" --version)" "alignprobe --version"
th=$(sed -n 's/^\.TH ALIGNPROBE 8 [^ ]* "alignprobe \([^"]*\)".*/\1/p' "$top_srcdir/docs/alignprobe.8")
ts_assert_eq "$want" "$th" "the version in alignprobe(8)'s .TH line"
ts_pass
