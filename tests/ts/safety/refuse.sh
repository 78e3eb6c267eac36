#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The safety gate refuses every in-use device with exit 3 and a reason, and
# nothing is written: the backing files' checksums are the same before and
# after. Each case runs the gate alone (tests/helpers/gate) and every
# destructive command that is built (sweep; probe --destructive; seq on a
# device) with --yes.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh" || exit 99
ts_init "safety gate refusals"
ts_need_loop
ts_need_cmd python3
SBIN=/usr/sbin:/sbin
for c in sfdisk partprobe mkfs.ext4 mkswap swapon swapoff; do
	PATH=$PATH:$SBIN command -v $c >/dev/null || ts_skip "needs $c"
done
export PATH=$PATH:$SBIN
GATE=${top_builddir}/tests/helpers/gate
[ -x "$GATE" ] || ts_fail "$GATE not built (make check builds it)"

SWAP=
# swap is not in functions.sh's cleanup: turn it off first, then the rest
trap 'rc=$?; [ -n "$SWAP" ] && swapoff "$SWAP" 2>/dev/null; (exit $rc); ts_cleanup' EXIT

# the destructive commands that exist in this build, as "argv prefix"
cmds=()
cmd_built() { "$ALIGNPROBE" "$1" --help >/dev/null 2>&1; }
cmd_built sweep && cmds+=("sweep --yes")
if cmd_built probe; then
	# destructive by default; --preserve writes too (and restores)
	cmds+=("probe --yes" "probe --preserve --yes")
fi
if cmd_built seq && "$ALIGNPROBE" seq --help | grep -q -- '--yes'; then
	cmds+=("seq --yes")
fi
ts_log "destructive commands checked: ${cmds[*]:-none built yet (gate only)}"

imgA=$TS_TMP/a.img
imgB=$TS_TMP/b.img
ts_image "$imgA" 20M
ts_image "$imgB" 8M
printf 'label: dos\n,8M\n,8M\n' | sfdisk -q "$imgA" || ts_fail "sfdisk"
A=$(ts_loop_attach "$imgA")
B=$(ts_loop_attach "$imgB")
# this kernel may lack partition table parsers: BLKPG through partprobe
partprobe "$A" 2>/dev/null
for i in 1 2; do
	ts_wait_node "${A}p$i" || ts_fail "no partition ${A}p$i"
done
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "${A}p1" || ts_fail "mkfs.ext4 ${A}p1"
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$B" || ts_fail "mkfs.ext4 $B"
sync

sumA=$(ts_checksum "$imgA")
sumB=$(ts_checksum "$imgB")

# while p2 is active swap, the kernel may page out to it: then only the
# first 9 MiB (partition table and p1) are compared
sum_a() {
	if [ -n "$SWAP" ]; then
		head -c 9M "$imgA" | sha256sum | cut -d' ' -f1
	else
		ts_checksum "$imgA"
	fi
}

unchanged() {
	sync
	ts_assert_eq "$sumA" "$(sum_a)" "$1: $imgA checksum"
	ts_assert_eq "$sumB" "$(ts_checksum "$imgB")" "$1: $imgB checksum"
}

has_opts() {
	local cmd=$1 o
	shift
	for o in "$@"; do
		"$ALIGNPROBE" "$cmd" --help | grep -q -- "$o" || return 1
	done
}

# refuse WHAT PATTERN DEV [gate/command options]: every path refuses with 3
# (with $REFUSE_RC: what is no block device at all is bad input, 2)
refuse() {
	local what=$1 pat=$2 dev=$3 c want=${REFUSE_RC:-3}
	shift 3
	ts_run_rc "$want" "$GATE" "$@" "$dev"
	grep -q -- "$pat" "$TS_TMP/err" || { cat "$TS_TMP/err" >&2; ts_fail "$what: gate: no '$pat' in the message"; }
	for c in "${cmds[@]}"; do
		# seq also accepts a regular file (it writes into the file)
		[ "${SKIP_SEQ:-0}" = 1 ] && [ "${c%% *}" = seq ] && continue
		# an option the command does not have (sweep: --allow-partition)
		has_opts "${c%% *}" "$@" || continue
		# shellcheck disable=SC2086
		ts_run_rc "$want" "$ALIGNPROBE" $c "$@" "$dev" < /dev/null
		grep -q -- "$pat" "$TS_TMP/err" || { cat "$TS_TMP/err" >&2; ts_fail "$what: $c: no '$pat' in the message"; }
	done
	unchanged "$what"
	ts_log "refused: $what"
}

# a free whole disk passes the gate (and shows what it would destroy)
ts_run_rc 0 "$GATE" --yes "$A"
grep -q "${A##*/}p1 start=2048 size=8M ext4" "$TS_TMP/out" ||
	{ cat "$TS_TMP/out" >&2; ts_fail "describe: partition 1 with its ext4 not listed"; }
grep -q "dos partition table" "$TS_TMP/out" || ts_fail "describe: no dos signature"
grep -q "backed by: $imgA" "$TS_TMP/out" || ts_fail "describe: no backing file"

REFUSE_RC=2 SKIP_SEQ=1 refuse "not a block device" "$imgA: not a block device" "$imgA"
refuse "partition without --allow-partition" "${A}p1: a partition of $A" "${A}p1"

# read-only mounts (noload: not even the journal is touched), so that the
# checksums can prove the refusals wrote nothing
ts_mount "$B" "$TS_TMP/mb" -o ro,noload
refuse "mounted device" "$B: mounted on $TS_TMP/mb" "$B"
umount "$TS_TMP/mb" || ts_fail "umount $B"

ts_mount "${A}p1" "$TS_TMP/ma" -o ro,noload
refuse "mounted partition" "$A: its partition ${A}p1 is mounted on $TS_TMP/ma" "$A"
refuse "mounted partition with --allow-partition" "${A}p1: mounted" "${A}p1" --allow-partition
umount "$TS_TMP/ma" || ts_fail "umount ${A}p1"
# a loop device backed by a file on a file system of the disk that is no
# longer in the mount table (lazily unmounted)
ts_mount "${A}p1" "$TS_TMP/ma"
truncate -s 4M "$TS_TMP/ma/inner.img"
inner=$(ts_loop_attach "$TS_TMP/ma/inner.img")
sync
umount -l "$TS_TMP/ma" || ts_fail "umount -l"
sync
sumA=$(ts_checksum "$imgA")
refuse "lazily unmounted, a loop device still uses a file on it" "exclusively" "$A"
losetup -d "$inner"
# the kernel lets go of the lazily unmounted file system once the loop device is gone
free_now() { "$GATE" --in-use "$A" 2>/dev/null; }
ts_wait_for "$A to be free after losetup -d" free_now
sumA=$(ts_checksum "$imgA")	# the inner image was written through p1's fs: new reference

mkswap -q "${A}p2" >/dev/null || ts_fail "mkswap"
sumA=$(ts_checksum "$imgA")
SWAP=${A}p2
sumA=$(sum_a)
swapon "$SWAP" || ts_fail "swapon $SWAP"
refuse "active swap" "partition ${A}p2 is in use as swap" "$A"
swapoff "$SWAP" || ts_fail "swapoff"
SWAP=
sumA=$(sum_a)

L2=$(ts_loop_attach "${A}p1")
refuse "holder: loop device on a partition" "partition ${A}p1 backs loop device $L2" "$A"
losetup -d "$L2" || ts_fail "losetup -d $L2"
L3=$(ts_loop_attach "$A")
refuse "holder: loop device on the disk" "$A: backs loop device $L3" "$A"
losetup -d "$L3" || ts_fail "losetup -d $L3"

# opened O_EXCL by another process
# (held until killed: however slow the machine, not for a fixed time)
python3 -c 'import os, signal, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL)
print("held", flush=True)
while True:
    signal.pause()' "$A" > "$TS_TMP/held" &
holder=$!
ts_bg_pid $holder
ts_wait_for -p $holder "the O_EXCL holder" grep -q held "$TS_TMP/held" ||
	ts_fail "the O_EXCL holder did not start"
refuse "opened O_EXCL by another process" "opened exclusively by another process" "$A"
kill $holder; wait $holder 2>/dev/null

# while the gate holds the disk, nobody can mount or mkfs a partition of it
"$GATE" --yes --hold 86400 "$A" > "$TS_TMP/gheld" 2>&1 &
gpid=$!
ts_bg_pid $gpid
ts_wait_for -p $gpid "the gate to take the device" grep -q held "$TS_TMP/gheld" ||
	ts_fail "the gate did not take the device: $(cat "$TS_TMP/gheld")"
mkdir -p "$TS_TMP/mx"
mount "${A}p1" "$TS_TMP/mx" 2>/dev/null && { umount "$TS_TMP/mx"; ts_fail "mounted a partition of a held disk"; }
refuse "held by another alignprobe" "exclusively" "$A"
kill $gpid; wait $gpid 2>/dev/null

# read-only
R=$(ts_loop_attach "$imgB" -r)
refuse "read-only device" "read-only" "$R"
losetup -d "$R"

# confirmation: no terminal and no --yes
ts_run_rc 3 "$GATE" --confirm "$A" < /dev/null
grep -q "use --yes" "$TS_TMP/err" || ts_fail "no-tty refusal does not say 'use --yes'"
for c in "${cmds[@]}"; do
	c=${c% --yes}
	[ "$c" = "probe --preserve" ] && continue	# needs no confirmation: nothing is lost
	# shellcheck disable=SC2086
	ts_run_rc 3 "$ALIGNPROBE" $c "$A" < /dev/null
	grep -q "use --yes" "$TS_TMP/err" || ts_fail "$c without --yes: no 'use --yes'"
done
unchanged "no --yes without a terminal"

# on a terminal: the device name typed exactly, nothing else
tty_confirm() {
	python3 - "$GATE" "$A" "$1" <<'PY'
import os, pty, sys, time
gate, dev, answer = sys.argv[1:]
pid, fd = pty.fork()
if pid == 0:
    os.execv(gate, [gate, "--confirm", dev])
out = b""
deadline = time.time() + 20
while b"to continue:" not in out and time.time() < deadline:
    try:
        out += os.read(fd, 4096)
    except OSError:
        break
os.write(fd, answer.encode() + b"\n")
while True:
    try:
        b = os.read(fd, 4096)
    except OSError:
        break
    if not b:
        break
    out += b
_, st = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace"))
sys.exit(os.waitstatus_to_exitcode(st))
PY
}
out=$(tty_confirm "$A") || ts_fail "terminal confirmation with the right name refused: $out"
echo "$out" | grep -q confirmed || ts_fail "terminal confirmation: $out"
out=$(tty_confirm "yes"); rc=$?
ts_assert_eq 3 $rc "terminal confirmation with 'yes' instead of the name"
echo "$out" | grep -q "not confirmed" || ts_fail "wrong answer message: $out"
out=$(tty_confirm "${A##*/}"); rc=$?
ts_assert_eq 3 $rc "terminal confirmation with the short name"
unchanged "terminal confirmation"

# --dry-run writes nothing, even with everything free and --yes
for c in "${cmds[@]}"; do
	has_opts "${c%% *}" --dry-run || continue
	# shellcheck disable=SC2086
	"$ALIGNPROBE" $c --dry-run "$A" > "$TS_TMP/out" 2> "$TS_TMP/err" < /dev/null ||
		{ cat "$TS_TMP/err" >&2; ts_fail "$c --dry-run failed"; }
	unchanged "$c --dry-run"
done
ts_pass
