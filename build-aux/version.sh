#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The one source of alignprobe's version: the newest entry of
# debian/changelog (a native package: its version is the program's). Read
# by configure.ac's AC_INIT through m4_esyscmd_s, so --version, the tarball's
# name and the package agree; tests/ts/output/version.sh checks them and the
# man page's header. Prints the version, nothing else.
cd "$(dirname "$0")/.." || exit 1
sed -n '1s/^alignprobe (\([^)]*\)).*/\1/p' debian/changelog | tr -d '\n'
