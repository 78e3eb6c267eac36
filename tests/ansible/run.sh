#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The Ansible role (contrib/ansible) for real: ansible-playbook against
# localhost (connection: local) on loop devices of files made here, detached
# on every exit path. An aligned disk (the play passes), a partition at
# sector 63 (the play fails naming it and the first aligned start, also in
# --check mode), a GPT written for 4096-byte sectors and read with 512
# (fails naming the cause), all of them with a blank disk and a missing one
# (a line each), the disks unchanged afterwards; what the role registers
# (tests/ansible/report.yml); the role's choice of disks on made-up hosts
# (tests/ansible/select.yml: refused where the system disks are not known
# for sure) and on this one (no loop device, not the root disk); a string
# where a list is wanted; alignprobe_refuse_smr on emulated drives (a
# model's smr verdict in the store refuses its disk, a conventional one
# passes); the fleet loop on emulated drives of three
# "hosts", idempotent (tests/ansible/fleet.sh); --syntax-check and
# ansible-lint.
#
#   tests/ansible/run.sh              the build tree's alignprobe (not installed
#                                     by the role), the role in contrib/ansible
#   tests/ansible/run.sh --deb FILE   (CI: scripts/ci-deb.sh, FILE not installed)
#                                     the role installs FILE; then the installed
#                                     alignprobe, role and example playbook
#   --only plays                      the aligned disk, the plays past it
#                                     (tests/ansible/plays.sh) and the lint: no
#                                     timing (.ci/run, beside the ASan pass)
#   --only fleet                      the aligned disk and the fleet loop, which
#                                     times emulated drives (.ci/run: the
#                                     package's stage, after the plays ran)
#
# Needs root, loop devices and ansible-playbook; ansible-lint when installed
# (required, like everything else, under ALIGNPROBE_REQUIRE_DEVICES=1).
set -u
top_srcdir=$(cd "$(dirname "$0")/../.." && pwd)
. "$top_srcdir/tests/ts/functions.sh"

usage() { echo "usage: $0 [--deb FILE] [--only plays|fleet]" >&2; exit 2; }
deb= only=
while [ $# -gt 0 ]; do
	case $1 in
	--deb)	[ $# -ge 2 ] || usage
		deb=$(realpath "$2") || exit 2
		shift 2 ;;
	--only)	[ $# -ge 2 ] && { [ "$2" = plays ] || [ "$2" = fleet ]; } || usage
		only=$2
		shift 2 ;;
	*)	usage ;;
	esac
done

src_playbook=$top_srcdir/contrib/ansible/playbook.yml
src_roles=$top_srcdir/contrib/ansible/roles
playbook=$src_playbook
export ANSIBLE_ROLES_PATH=$src_roles
export ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_DEPRECATION_WARNINGS=0
# the_play ARGS: ansible-playbook on localhost, as root already (no become),
# in the UTF-8 locale Ansible requires
the_play() {
	LC_ALL=C.UTF-8 ansible-playbook -i localhost, -c local \
		-e ansible_python_interpreter=/usr/bin/python3 -e ansible_become=false "$@"
}

# ansible_env: nothing of this run outside its directory ($1)
ansible_env() {
	mkdir -p "$1/ansible/tmp"
	: > "$1/ansible/ansible.cfg"
	export ANSIBLE_CONFIG=$1/ansible/ansible.cfg ANSIBLE_HOME=$1/ansible
	export ANSIBLE_LOCAL_TEMP=$1/ansible/tmp ANSIBLE_REMOTE_TEMP=$1/ansible/tmp
}

if [ -n "$deb" ]; then
	# before ts_init: the alignprobe it needs is the one the role installs
	[ "$(id -u)" = 0 ] || { echo "ansible/run: --deb needs root" >&2; exit 1; }
	! dpkg-query -W -f='${Status}' alignprobe 2>/dev/null | grep -q 'ok installed' ||
		{ echo "ansible/run: --deb: alignprobe is installed already" >&2; exit 1; }
	command -v ansible-playbook >/dev/null || { echo "ansible/run: no ansible-playbook" >&2; exit 1; }
	pre=$(mktemp -d /tmp/alignprobe-ansible.XXXXXX) || exit 99
	ansible_env "$pre"
	echo "ansible/run: the role installs $(basename "$deb")" >&2
	# only the installation (its tag): no disk is checked yet
	ok=0
	the_play --tags alignprobe_install -e alignprobe_deb="$deb" \
		"$playbook" > "$pre/install.out" 2>&1 &&
		grep -q '^changed: \[localhost\]' <(sed -n '/^TASK \[alignprobe : Install the .deb\]/,/^$/p' "$pre/install.out") &&
		grep -Eq 'localhost +: ok=[0-9]+ +changed=1 +unreachable=0 +failed=0' "$pre/install.out" &&
		dpkg-query -W -f='${Status}' alignprobe 2>/dev/null | grep -q 'ok installed' && ok=1
	[ "$ok" = 1 ] || cat "$pre/install.out" >&2
	rm -rf "$pre"
	[ "$ok" = 1 ] || { echo "ansible/run: FAIL: the role did not install $deb" >&2; exit 1; }
	hash -r
	ALIGNPROBE=/usr/sbin/alignprobe
	# the installed role and example playbook from here on
	playbook=/usr/share/doc/alignprobe/examples/ansible/playbook.yml
	# found where Ansible looks by default (/usr/share/ansible/roles)
	unset ANSIBLE_ROLES_PATH
	inst=(-e alignprobe_deb="$deb")
else
	# the build tree's binary; the role does not install anything
	inst=(-e alignprobe_install=false -e alignprobe_command="$ALIGNPROBE")
fi

ts_init "the Ansible role on loop devices: aligned, at 63, written for 4096-byte sectors"
ts_need_loop
ts_need_cmd ansible-playbook parted blockdev jq lsblk findmnt
ansible_env "$TS_TMP"

if [ -n "$deb" ]; then
	for f in "$ALIGNPROBE" "$playbook"; do [ -f "$f" ] || ts_fail "the package has no $f"; done
	diff -r "$src_roles/alignprobe" /usr/share/ansible/roles/alignprobe ||
		ts_fail "the installed role differs from contrib/ansible/roles/alignprobe"
	diff "$src_playbook" "$playbook" || ts_fail "the installed example playbook differs"
fi

# play NAME RC [ansible-playbook arguments]: the playbook's output in
# $TS_TMP/NAME.out, its exit status RC (0 passed, 2 a host failed)
play() {
	local name=$1 want=$2 rc=0
	shift 2
	the_play "${inst[@]}" "$@" > "$TS_TMP/$name.out" 2>&1 || rc=$?
	[ "$rc" = "$want" ] || { cat "$TS_TMP/$name.out" >&2; ts_fail "$name: ansible-playbook exited $rc, expected $want"; }
}
# failed_with NAME TEXT: the host failed with a message holding TEXT
failed_with() {
	grep '^fatal: \[localhost\]: FAILED!' "$TS_TMP/$1.out" | grep -qF -- "$2" ||
		{ cat "$TS_TMP/$1.out" >&2; ts_fail "$1: the failure does not say: $2"; }
}
disks() { jq -cn '{alignprobe_disks: $ARGS.positional}' --args "$@"; }

# ---- the playbooks parse, and lint (with the plays: the same files) ----
if [ "$only" != fleet ]; then
	for p in "$playbook" "$top_srcdir"/tests/ansible/*.yml; do
		the_play --syntax-check "$p" > "$TS_TMP/syntax.out" 2>&1 ||
			{ cat "$TS_TMP/syntax.out" >&2; ts_fail "--syntax-check $p"; }
	done
	if command -v ansible-lint >/dev/null; then
		# the role, the example playbook and these tests' playbooks; its cache
		# in this run's directory
		(cd "$top_srcdir" && LC_ALL=C.UTF-8 XDG_CACHE_HOME=$TS_TMP/cache ANSIBLE_ROLES_PATH=$src_roles \
			ansible-lint --offline --nocolor contrib/ansible/playbook.yml \
			contrib/ansible/roles/alignprobe tests/ansible/*.yml) > "$TS_TMP/lint.out" 2>&1 ||
			{ cat "$TS_TMP/lint.out" >&2; ts_fail "ansible-lint"; }
		grep -q '^Passed' "$TS_TMP/lint.out" || { cat "$TS_TMP/lint.out" >&2; ts_fail "ansible-lint did not pass"; }
	elif [ "${ALIGNPROBE_REQUIRE_DEVICES:-0}" = 1 ]; then
		ts_fail "no ansible-lint (required: ALIGNPROBE_REQUIRE_DEVICES=1)"
	else
		ts_log "no ansible-lint: not linted"
	fi
fi

# ---- the disks ----
# aligned: GPT, a partition at 1 MiB
ts_image "$TS_TMP/aligned.img" 64M
parted -s "$TS_TMP/aligned.img" mklabel gpt mkpart data 1MiB 60MiB >/dev/null 2>&1 ||
	ts_fail "parted aligned.img"
aligned=$(ts_loop_attach "$TS_TMP/aligned.img")
# at 63: MBR, the partition where DOS put it; aligned to 512 bytes only
ts_image "$TS_TMP/at63.img" 64M
parted -s "$TS_TMP/at63.img" mklabel msdos mkpart primary 63s 60MiB >/dev/null 2>&1 ||
	ts_fail "parted at63.img"
at63=$(ts_loop_attach "$TS_TMP/at63.img")
# written for 4096-byte sectors (through a loop device with -b 4096, as a
# USB bridge presents them), read with 512
ts_image "$TS_TMP/4kn.img" 64M
dev4k=$(ts_loop_attach "$TS_TMP/4kn.img" -b 4096)
parted -s "$dev4k" mklabel gpt mkpart data 1MiB 60MiB >/dev/null 2>&1 || ts_fail "parted $dev4k (-b 4096)"
blockdev --flushbufs "$dev4k" || ts_fail "flush $dev4k"
foreign=$(ts_loop_attach "$TS_TMP/4kn.img")
# no partition table at all
ts_image "$TS_TMP/blank.img" 8M
blank=$(ts_loop_attach "$TS_TMP/blank.img")
ts_log "aligned $aligned, at 63 $at63, written for 4096-byte sectors $foreign, blank $blank"
# the role only reads them: their contents afterwards are the same
sums() { sha256sum "$TS_TMP"/*.img | sed "s|$TS_TMP/||"; }
before=$(sums) && [ "$(echo "$before" | wc -l)" = 4 ] || ts_fail "no checksums of the images"

# ---- aligned: the play passes ----
play aligned 0 -e "$(disks "$aligned")" "$playbook"
grep -Eq 'localhost +: ok=[0-9]+ +changed=0 +unreachable=0 +failed=0' "$TS_TMP/aligned.out" ||
	{ cat "$TS_TMP/aligned.out" >&2; ts_fail "aligned: the recap is not ok, unchanged"; }
if [ -n "$deb" ]; then
	# installed already: the .deb is not even copied again (its version is
	# the installed one), and the apt package name leaves it too
	grep -q '^skipping: \[localhost\]' <(sed -n '/^TASK \[alignprobe : Copy the .deb to the host\]/,/^$/p' "$TS_TMP/aligned.out") ||
		{ cat "$TS_TMP/aligned.out" >&2; ts_fail "aligned: the .deb was copied again"; }
	the_play -e "$(disks "$aligned")" "$playbook" > "$TS_TMP/byname.out" 2>&1 ||
		{ cat "$TS_TMP/byname.out" >&2; ts_fail "by name: the play failed"; }
	grep -q '^ok: \[localhost\]' <(sed -n '/^TASK \[alignprobe : Install the alignprobe package from the apt repositories\]/,/^$/p' "$TS_TMP/byname.out") ||
		{ cat "$TS_TMP/byname.out" >&2; ts_fail "by name: the installed package was not ok"; }
fi

# ---- the plays past it, and the fleet loop ----
[ "$only" = fleet ] || . "$top_srcdir/tests/ansible/plays.sh"
[ "$only" = plays ] || . "$top_srcdir/tests/ansible/fleet.sh"
ts_pass
