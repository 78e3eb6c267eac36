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
#
# Needs root, loop devices and ansible-playbook; ansible-lint when installed
# (required, like everything else, under ALIGNPROBE_REQUIRE_DEVICES=1).
set -u
top_srcdir=$(cd "$(dirname "$0")/../.." && pwd)
. "$top_srcdir/tests/ts/functions.sh"

deb=
case "${1:-}" in
--deb)	[ $# = 2 ] || { echo "usage: $0 [--deb FILE]" >&2; exit 2; }
	deb=$(realpath "$2") || exit 2 ;;
"")	;;
*)	echo "usage: $0 [--deb FILE]" >&2; exit 2 ;;
esac

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

# ---- the playbooks parse, and lint ----
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

# the first aligned start of at63's partition 1 as check itself computes it
# (64 under the 4 KiB rule)
next63=$("$ALIGNPROBE" check -J "$at63" 2>/dev/null | jq -r '.partitions[0].next_aligned')

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

# ---- a partition at 63: the play fails, naming it and the start to use ----
play at63 2 -e "$(disks "$at63")" "$playbook"
failed_with at63 "${at63}p1 (partition 1 of $at63): starts at sector 63, not on a 4096-byte boundary"
failed_with at63 "first aligned start: sector $next63 (byte $(( next63 * 512 )))"
[ "$next63" = 64 ] || ts_fail "at63: check's first aligned start is $next63, not 64"
# the same in --check mode: check only reads, so it runs there too
play at63-check 2 --check -e "$(disks "$at63")" "$playbook"
failed_with at63-check "${at63}p1 (partition 1 of $at63): starts at sector 63, not on a 4096-byte boundary"

# ---- written for 4096-byte sectors: fails, naming the cause ----
play foreign 2 -e "$(disks "$foreign")" "$playbook"
failed_with foreign "$foreign: the partition table was written for 4096-byte logical sectors, not for the 512-byte sectors it is read with here; likely cause: "
failed_with foreign "USB bridge"
failed_with foreign "what to do: read it as written with losetup --read-only --sector-size 4096"

# ---- all at once, a blank disk and one that is not there: a line each ----
missing=/dev/alignprobe-ansible-test-missing
play all 2 -e "$(disks "$aligned" "$at63" "$foreign" "$blank" "$missing")" "$playbook"
failed_with all "${at63}p1 (partition 1 of $at63): starts at sector 63"
failed_with all "$foreign: the partition table was written for 4096-byte"
failed_with all "$blank: no partition table (neither MBR nor GPT"
failed_with all "$missing: alignprobe check exited with 2: alignprobe check: $missing: No such file or directory"
# (not as a prefix: /dev/loop1 of /dev/loop10)
grep '^fatal:' "$TS_TMP/all.out" | grep -qE -- "${aligned}([^0-9]|$)" && ts_fail "all: the aligned disk is named"

# ---- what the role registers ----
play report 0 -e "$(disks "$aligned" "$at63" "$foreign" "$blank" "$missing")" \
	-e report_file="$TS_TMP/report.json" "$top_srcdir/tests/ansible/report.yml"
jq -e --arg a "$aligned" --arg m "$at63" --arg f "$foreign" --arg b "$blank" --arg x "$missing" \
	--argjson n "$next63" '
	[.report[].disk] == [$a, $m, $f, $b, $x]
	and [.report[].rc] == [0, 4, 7, 2, 2]
	and [.report[].passed] == [true, false, false, false, false]
	and (.report[0].problems == []) and .report[0].check.aligned == true
	and (.report[1].problems | length == 1)
	and .report[1].check.rule.name == "minimum_4k"
	and .report[1].check.partitions[0].next_aligned == $n
	and (.report[2].problems | length == 1)
	and .report[2].check.foreign_sector_size.written_for == 4096
	and (.report[3].problems | length == 1)
	and (.report[3].problems[0] | startswith($b + ": no partition table (neither MBR nor GPT"))
	and .report[4].check == {device: $x, exit_status: 2}
	and (.problems | length == 4)
	and .problems == [.report[].problems[]]' "$TS_TMP/report.json" >/dev/null ||
	{ cat "$TS_TMP/report.json" >&2; ts_fail "report: not what check said"; }

ts_assert_eq "$before" "$(sums)" "the disks' contents after the plays"

# ---- the role's choice of disks ----
play select 0 "$top_srcdir/tests/ansible/select.yml"
play discovered 0 -e report_file="$TS_TMP/discovered.json" "$top_srcdir/tests/ansible/discovered.yml"
jq -e '.discovered | all(test("^/dev/(loop|ram|zram|sr|fd)[0-9]") | not)' "$TS_TMP/discovered.json" >/dev/null ||
	{ cat "$TS_TMP/discovered.json" >&2; ts_fail "discovered: a loop, ram, zram, sr or fd device"; }
for d in "$aligned" "$at63" "$foreign"; do
	jq -e --arg d "$d" '.discovered | index($d) == null' "$TS_TMP/discovered.json" >/dev/null ||
		ts_fail "discovered: this test's $d"
done
# the disk(s) below /, found here with lsblk --inverse
root=$(findmnt -n -o SOURCE --nofsroot /)
if [ -b "$root" ]; then
	rootdisks=$(lsblk -n -l -s -o PATH,TYPE "$root" | awk '$2 == "disk" { print $1 }' | sort -u)
	[ -n "$rootdisks" ] || ts_fail "no disk below / ($root)"
	for d in $rootdisks; do
		jq -e --arg d "$d" '(.discovered | index($d) == null) and (.system | index($d) != null)' \
			"$TS_TMP/discovered.json" >/dev/null ||
			{ cat "$TS_TMP/discovered.json" >&2; ts_fail "discovered: the root disk $d"; }
	done
else
	ts_log "/ is on $root, no block device: no root disk to leave out"
fi
# nothing found here (a virtual machine's disks are its system disks): then
# the whole role, alignprobe_disks empty, checks nothing and passes
if jq -e '.discovered == []' "$TS_TMP/discovered.json" >/dev/null; then
	play none 0 "$playbook"
	grep -qF 'alignprobe: no disk to check (system disks: ' "$TS_TMP/none.out" ||
		{ cat "$TS_TMP/none.out" >&2; ts_fail "none: no message"; }
fi

# ---- a string where a list is wanted: one disk (argument_specs converts) ----
play string 0 -e alignprobe_disks="$aligned" "$playbook"

# ---- alignprobe_refuse_smr: a model's smr verdict in the store refuses its disks ----
# two emulated drives (their models stated), partitions at 1 MiB; the store's
# smr rows as `smr --record` writes them: EMU-SMR-NOTRIM shingled, EMU-CMR-7200 not
smrdisk() {
	local dev
	dev=$(ts_emu_attach --profile "$1" --size 256M)
	printf 'label: gpt\nstart=2048,size=65536\n' | sfdisk -q --no-reread --no-tell-kernel "$dev" \
		>/dev/null || ts_fail "sfdisk $dev"
	echo "$dev"
}
smr=$(smrdisk smr-notrim)
cmr=$(smrdisk cmr-7200)
cat > "$TS_TMP/smr-store.json" <<'JSON'
{"format": "alignprobe-verdicts", "version": 1, "models": [], "smr": [
 {"vendor": "ALIGNPROBE", "model": "EMU-SMR-NOTRIM", "revision": null, "verdict": "dm-smr-or-hybrid",
  "serial": null, "device": "/dev/sdx", "host": "h1", "recorded": "2026-12-01T10:00:00Z"},
 {"vendor": "ALIGNPROBE", "model": "EMU-CMR-7200", "revision": null, "verdict": "cmr",
  "serial": null, "device": "/dev/sdy", "host": "h1", "recorded": "2026-12-01T10:00:00Z"}]}
JSON
smr_store=$(jq -cn --arg s "--verdicts=$TS_TMP/smr-store.json" '{alignprobe_check_args: [$s]}')
play smr-off 0 -e "$(disks "$smr" "$cmr")" -e "$smr_store" "$playbook"
play smr-refused 2 -e "$(disks "$smr" "$cmr")" -e "$smr_store" -e alignprobe_refuse_smr=true "$playbook"
failed_with smr-refused "$smr: refused (alignprobe_refuse_smr): its model has a persistent media cache (dm-smr-or-hybrid)"
grep '^fatal:' "$TS_TMP/smr-refused.out" | grep -qE -- "${cmr}([^0-9]|$)" &&
	ts_fail "smr-refused: the conventional disk is named"
play smr-cmr 0 -e "$(disks "$cmr")" -e "$smr_store" -e alignprobe_refuse_smr=true "$playbook"

# ---- the fleet loop ----
. "$top_srcdir/tests/ansible/fleet.sh"
ts_pass
