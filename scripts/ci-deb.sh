#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The Debian package, as a user gets it (README, "Install"): build it with
# `dpkg-buildpackage -us -uc -b` from a clean export of the checkout (the
# tracked files, as .ci/run does for ASan), lintian (fails on errors), install
# it with apt-get, run the installed alignprobe (--version, probe --emulate),
# its man page, bash completion and systemd units, --prometheus, the shipped
# alerting rules, the unit's hardening and the verdict store (tests/ts/fleet),
# then purge it (the store and the metrics gone too); then the
# Ansible role installs it from the .deb and gates loop devices on check
# (tests/ansible/run.sh --deb), and it is purged again -- also when a step
# fails. Run by .ci/run; by hand as root: scripts/ci-deb.sh
#
#   scripts/ci-deb.sh               all of it, in a directory of its own
#   scripts/ci-deb.sh --build DIR   the export, the build and lintian into
#                                   DIR (empty, the caller's): no root needed,
#                                   nothing timed, nothing installed
#   scripts/ci-deb.sh --install DIR the rest, with what --build left in DIR
# .ci/run builds beside the tests that time nothing, and installs after.
#
# Refuses to install when an alignprobe package is installed already: the
# purge at the end would remove it.
set -euo pipefail
die() { echo "ci-deb: $*" >&2; exit 1; }
stage=all work=
case ${1:-} in
--build|--install)
	[ $# = 2 ] && [ -d "$2" ] || die "usage: $0 [--build DIR | --install DIR] (DIR exists)"
	stage=${1#--} work=$(realpath "$2") ;;
"")	;;
*)	die "usage: $0 [--build DIR | --install DIR]" ;;
esac
cd "$(dirname "$0")/.."
start=$(date +%s)
export DEBIAN_FRONTEND=noninteractive LC_ALL=C
# apt-get and the installed program live in sbin; a login shell of a normal
# user may not have it
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

step() { echo "== deb: $* ($(( $(date +%s) - start )) s)"; }

if [ "$stage" = build ]; then
	:	# installs nothing
elif [ "$(id -u)" != 0 ]; then
	die "needs root (apt-get install, and alignprobe probe --emulate)"
elif dpkg-query -W -f='${Status}' alignprobe 2>/dev/null | grep -q 'ok installed'; then
	die "an alignprobe package is installed already; the purge at the end would remove it (apt-get purge alignprobe first)"
fi

# one version: debian/changelog's, which configure.ac reads (build-aux/version.sh)
version=$(build-aux/version.sh)
[ -n "$version" ] || die "build-aux/version.sh: no version in debian/changelog"
debversion=$(dpkg-parsechangelog -S Version)
[ "$debversion" = "$version" ] ||
	die "dpkg-parsechangelog says $debversion, build-aux/version.sh $version"

own_work=0
if [ -z "$work" ]; then
	work=$(mktemp -d /tmp/alignprobe-deb.XXXXXX)
	own_work=1
fi
installed=0
made_dirs=()
# the directories this script made (the textfile directory), newest first
rm_made_dirs() {
	local d
	for d in "${made_dirs[@]}"; do
		rmdir "$d" 2>/dev/null || echo "ci-deb: left $d (not empty)" >&2
	done
	made_dirs=()
}
cleanup() {
	local rc=$?
	trap - EXIT INT TERM HUP
	if [ "$installed" = 1 ]; then
		echo "== deb: apt-get purge -y alignprobe"
		apt-get purge -y -qq alignprobe >/dev/null || { echo "ci-deb: purge failed" >&2; rc=1; }
	fi
	rm_made_dirs
	# never rm through a mount a failed probe may have left
	if [ "$own_work" = 0 ]; then
		:	# the caller's
	elif grep -q " $work/" /proc/self/mounts; then
		echo "ci-deb: left $work (mounts remain)" >&2
	else
		rm -rf "$work"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

deb=$work/alignprobe_${version}_$(dpkg-architecture -qDEB_HOST_ARCH).deb
# build: the clean export, dpkg-buildpackage and lintian, into $work
build() {
	local rc=0

	step "clean export into $work/alignprobe"
	mkdir "$work/alignprobe"
	git ls-files -z | tar --null -T - -cf - | tar -C "$work/alignprobe" -xf -

	step "dpkg-buildpackage -us -uc -b"
	(cd "$work/alignprobe" && dpkg-buildpackage -us -uc -b) > "$work/build.log" 2>&1 ||
		{ tail -100 "$work/build.log"; die "dpkg-buildpackage failed"; }
	grep -E '^# (TOTAL|PASS|SKIP|FAIL|ERROR)' "$work/build.log" || true
	[ -f "$deb" ] || die "no $(basename "$deb") (built: $(cd "$work" && echo *.deb))"

	step "lintian (fails on errors)"
	lintian --allow-root --fail-on error --info --display-info "$work"/alignprobe_*.changes \
		> "$work/lintian.out" 2>&1 || rc=$?
	if [ -s "$work/lintian.out" ]; then cat "$work/lintian.out"; else echo "lintian: no tags"; fi
	[ "$rc" = 0 ] || die "lintian reported errors (exit $rc)"
}

case $stage in
build)	build
	echo "== deb: built in $(( $(date +%s) - start )) s"
	exit 0 ;;
install) [ -f "$deb" ] && [ -d "$work/alignprobe" ] ||
		die "$work: no $(basename "$deb") and alignprobe/ (scripts/ci-deb.sh --build $work first)" ;;
all)	build ;;
esac

step "apt-get install -y ./$(basename "$deb")"
installed=1
(cd "$work" && apt-get install -y -qq "./$(basename "$deb")") > "$work/install.log" 2>&1 ||
	{ cat "$work/install.log"; die "apt-get install failed"; }

# from here on only the installed files: no build tree in reach
cd /
hash -r
[ "$(command -v alignprobe)" = /usr/sbin/alignprobe ] ||
	die "alignprobe in PATH is '$(command -v alignprobe)', not /usr/sbin/alignprobe"

step "alignprobe --version"
out=$(alignprobe --version)
echo "$out"
[ "$out" = "alignprobe $version" ] || die "--version printed '$out', want 'alignprobe $version'"

step "alignprobe probe --emulate"
# its own state directory: other alignprobe runs on this machine keep theirs
mkdir "$work/state"
rc=0
ALIGNPROBE_STATE_DIR=$work/state alignprobe probe --emulate > "$work/probe.out" 2>&1 || rc=$?
cat "$work/probe.out"
[ "$rc" = 0 ] || die "probe --emulate exited with $rc"
grep -Eq '^/dev/loop[0-9]+: 4096-byte physical sectors \(reported 512\)' "$work/probe.out" ||
	die "probe --emulate printed no verdict of 4096-byte physical sectors"
[ -z "$(ls -A "$work/state")" ] || die "probe --emulate left state behind: $(ls -A "$work/state")"

step "man -w alignprobe"
out=$(man -w alignprobe)
echo "$out"
[ "$out" = /usr/share/man/man8/alignprobe.8.gz ] || die "man -w alignprobe: '$out'"

step "bash completion"
bash -c 'source /usr/share/bash-completion/completions/alignprobe && complete -p alignprobe' ||
	die "the installed bash completion does not register"

step "systemd units (installed, not enabled)"
systemd-analyze verify /lib/systemd/system/alignprobe-check.service \
	/lib/systemd/system/alignprobe-check.timer || die "systemd-analyze verify failed"
[ ! -e /etc/systemd/system/timers.target.wants/alignprobe-check.timer ] ||
	die "the package enabled alignprobe-check.timer"
[ -f /etc/default/alignprobe ] || die "no /etc/default/alignprobe"

step "the verdict store's directory and the alerting rules"
[ -d /var/lib/alignprobe ] || die "no /var/lib/alignprobe"
store=/var/lib/alignprobe/verdicts.json
[ -f "$store" ] || die "no empty verdict store $store"
rules=/usr/share/alignprobe/prometheus/alignprobe.rules.yml
promtool check rules "$rules" || die "promtool check rules $rules"
# a fresh install records: the directory is there, the store valid
rc=0
ALIGNPROBE_STATE_DIR=$work/state alignprobe check --verdicts -q "$work/nodisk" > /dev/null 2> "$work/store.err" || rc=$?
if grep -q -- "--verdicts" "$work/store.err"; then
	cat "$work/store.err"
	die "check --verdicts found fault with the installed store"
fi

# the fleet features with the installed program: node_exporter's textfile
# format checked by promtool, store faults and signals, the shipped rules fed
# with real output, the installed unit's hardening, the verdict store per
# model (the tests of the source tree, pointed at /usr/sbin/alignprobe)
for t in prometheus textfile alerts service verdicts; do
	step "installed: tests/ts/fleet/$t.sh"
	ALIGNPROBE=/usr/sbin/alignprobe top_srcdir="$work/alignprobe" ALIGNPROBE_REQUIRE_DEVICES=1 \
		ALIGNPROBE_UNIT=/lib/systemd/system/alignprobe-check.service \
		bash "$work/alignprobe/tests/ts/fleet/$t.sh" > "$work/$t.log" 2>&1 ||
		{ cat "$work/$t.log"; die "tests/ts/fleet/$t.sh failed with the installed alignprobe"; }
done

# what purge must remove besides the package's files: the store (with what
# a run recorded) and the metrics the service leaves for node_exporter
step "metrics in the textfile directory, for the purge"
textdir=/var/lib/prometheus/node-exporter
for d in /var/lib/prometheus "$textdir"; do
	[ -d "$d" ] && continue
	mkdir "$d"
	made_dirs=("$d" "${made_dirs[@]}")	# removed in reverse, also on failure
done
alignprobe check -q --prometheus "$textdir/alignprobe.prom" "$work/nodisk" > /dev/null 2>&1 || true
[ -f "$textdir/alignprobe.prom" ] || die "check --prometheus wrote no $textdir/alignprobe.prom"
touch /var/lib/alignprobe/verdicts.json.lock

# purge: remove the package and everything it installed
purge() {
	step "apt-get purge -y alignprobe"
	installed=0
	apt-get purge -y -qq alignprobe >/dev/null
	hash -r
	for f in /usr/sbin/alignprobe /usr/share/man/man8/alignprobe.8.gz /etc/default/alignprobe \
		 /lib/systemd/system/alignprobe-check.timer /usr/share/ansible/roles/alignprobe \
		 /usr/share/alignprobe /var/lib/alignprobe \
		 /var/lib/prometheus/node-exporter/alignprobe.prom; do
		[ ! -e "$f" ] || die "$f still there after the purge"
	done
}
purge
rm_made_dirs

# the Ansible role installs the package again, from the .deb, then gates
# loop devices of its own on check with the installed role and playbook
step "Ansible: the role installs $(basename "$deb") and checks (tests/ansible/run.sh)"
installed=1
"$work/alignprobe/tests/ansible/run.sh" --deb "$deb" || die "the Ansible role's test failed"
purge

echo "== deb: passed in $(( $(date +%s) - start )) s"
