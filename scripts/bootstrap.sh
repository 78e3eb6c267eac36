#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Set up a fresh Debian 12 machine (as root) to build, test and run
# alignprobe, then build it in the source tree. Idempotent: run it again at
# any time.
#
#   scripts/bootstrap.sh            install packages, autoreconf, configure, make
#   CONFIGURE_FLAGS=--enable-werror scripts/bootstrap.sh
#   AP_NO_APT=1 scripts/bootstrap.sh  skip the package step
set -eu

cd "$(dirname "$0")/.."

# Build dependencies, then what alignprobe runs or tests against.
PACKAGES="
	build-essential autoconf automake pkgconf
	libparted-dev libfdisk-dev libblkid-dev libsmartcols-dev libjson-c-dev
	libfuse3-dev fuse3 libcmocka-dev
	e2fsprogs xfsprogs parted fdisk util-linux mount kmod
	postmark fio librsvg2-bin python3 tmux bash-completion groff man-db mandoc time jq
	clang llvm libclang-rt-14-dev valgrind strace
	debhelper lintian dpkg-dev systemd
	ansible-core ansible-lint python3-apt
"

if [ "${AP_NO_APT:-0}" != 1 ]; then
	missing=
	for p in $PACKAGES; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing="$missing $p"
	done
	if [ -n "$missing" ]; then
		echo "bootstrap: installing:$missing"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		# shellcheck disable=SC2086
		apt-get install -y -qq --no-install-recommends $missing >/dev/null
	fi
fi

# loop devices and FUSE for the emulated drive and the integration tests
[ -c /dev/loop-control ] || modprobe loop 2>/dev/null || true
[ -c /dev/fuse ] || modprobe fuse 2>/dev/null || true

if [ ! -x configure ] || [ configure.ac -nt configure ] ||
   [ -n "$(find . -name '*.am' -newer configure 2>/dev/null | head -n1)" ]; then
	autoreconf -fi
fi
flags="${CONFIGURE_FLAGS:-}"
if [ ! -f Makefile ] || [ "$(cat .bootstrap-flags 2>/dev/null)" != "$flags" ]; then
	# shellcheck disable=SC2086
	./configure $flags
	printf '%s' "$flags" > .bootstrap-flags
fi
make -j"$(nproc)"
