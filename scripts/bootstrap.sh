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
	e2fsprogs xfsprogs btrfs-progs cryptsetup-bin dosfstools parted fdisk util-linux mount kmod lvm2
	postmark fio librsvg2-bin python3 tmux bash-completion groff man-db mandoc time jq
	clang llvm libclang-rt-14-dev valgrind strace
	debhelper lintian dpkg-dev systemd git
	ansible-core ansible-lint python3-apt
	prometheus
	qemu-utils qemu-system-common
"

# Packages installed for their tools only, whose maintainer scripts would
# start (and enable at boot) a network daemon: prometheus for promtool, the
# parser the tests check --prometheus files with. Nothing here may leave a
# listener behind.
NO_SERVICE="prometheus"

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
		# invoke-rc.d asks policy-rc.d before it starts a service: while
		# installing, deny every start (101), unless the machine has a
		# policy of its own (Docker images deny already)
		policy=
		if [ ! -e /usr/sbin/policy-rc.d ]; then
			policy=/usr/sbin/policy-rc.d
			trap 'rm -f /usr/sbin/policy-rc.d' EXIT
			printf '#!/bin/sh\n# alignprobe bootstrap: no service starts while installing\nexit 101\n' > "$policy"
			chmod 755 "$policy"
		fi
		# shellcheck disable=SC2086
		apt-get install -y -qq --no-install-recommends $missing >/dev/null
		if [ -n "$policy" ]; then
			rm -f "$policy"
			trap - EXIT
		fi
		# the postinst enabled them at boot; what we installed stays off
		for p in $NO_SERVICE; do
			case " $missing " in *" $p "*) ;; *) continue ;; esac
			# systemctl enable/disable also work without systemd running
			if command -v systemctl >/dev/null 2>&1; then
				systemctl disable "$p.service" >/dev/null 2>&1 || true
				if [ -d /run/systemd/system ]; then
					systemctl stop "$p.service" >/dev/null 2>&1 || true
				fi
			fi
			if [ -x "/etc/init.d/$p" ]; then
				if [ ! -d /run/systemd/system ]; then
					"/etc/init.d/$p" stop >/dev/null 2>&1 || true
				fi
				update-rc.d "$p" disable >/dev/null 2>&1 || true
			fi
		done
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
