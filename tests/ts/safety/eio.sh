#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Device errors and failing tools during a sweep: EIO (injected by the
# emulated drive) while partitioning, during mkfs and during the workload,
# EIO in the middle of a run (the results gathered so far are kept), a
# mkfs options mkfs refuses (exit 2 before the first write), a failing
# mount, and mkfs missing from PATH. Each: a message
# naming the step, the start sector and the cause; a non-zero exit; nothing
# left mounted, no temporary directory, no registry entry.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh" || exit 99
ts_init "sweep: EIO and failing tools"
ts_need_emulator
"$ALIGNPROBE" sweep --help >/dev/null 2>&1 || ts_skip "alignprobe sweep is not built"
SBIN=/usr/sbin:/sbin
PATH=$PATH:$SBIN command -v mkfs.ext4 >/dev/null || ts_skip "needs mkfs.ext4"
export PATH=$PATH:$SBIN
GATE=${top_builddir}/tests/helpers/gate

printf 'set number 8\nset transactions 16\nset size 512 2048\nrun\n' > "$TS_TMP/tiny.pm"
SWEEP=(sweep --yes --quiet --rounds 1 --size 16M -w "$TS_TMP/tiny.pm")

assert_clean() {
	grep -q "^${D}p\?[0-9]* " /proc/self/mounts && ts_fail "$1: $D still mounted"
	[ -z "$(ls -A "$TMPDIR")" ] || ts_fail "$1: left in TMPDIR: $(ls -A "$TMPDIR")"
	[ -z "$(ls -A "$ALIGNPROBE_STATE_DIR" | grep -v -- '-emu-')" ] ||
		ts_fail "$1: registry entries left: $(ls -A "$ALIGNPROBE_STATE_DIR")"
	"$GATE" --yes "$D" > /dev/null 2> "$TS_TMP/gate.err" ||
		ts_fail "$1: $D busy afterwards: $(cat "$TS_TMP/gate.err")"
}

# eio WHAT STAGE EMULATE-FAULT-OPTIONS...: one start, the fault hits STAGE
eio() {
	local what=$1 stage=$2 errors
	shift 2
	D=$(ts_emu_attach --size 96M --rmw-cost 300us "$@")
	mkdir -p "$TS_TMP/tmp"
	TMPDIR=$TS_TMP/tmp ts_run_rc 1 "$ALIGNPROBE" "${SWEEP[@]}" --starts 40 -J "$D"
	grep -q "$D: start 40: $stage failed: .*Input/output error" "$TS_TMP/err" ||
		{ cat "$TS_TMP/err" >&2; ts_fail "$what: no 'start 40: $stage failed: ... Input/output error'"; }
	python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"]
assert len(r) == 1 and r[0]["ok"] is False and r[0]["stage"] == sys.argv[2] and r[0]["errno"] == 5, r
' "$TS_TMP/out" "$stage" || ts_fail "$what: JSON result is not a failed $stage"
	errors=$("$ALIGNPROBE" emulate --stats "$D" -n -r -o ERRORS)
	[ "$errors" -gt 0 ] || ts_fail "$what: the emulator injected no error"
	TMPDIR=$TS_TMP/tmp assert_clean "$what"
	"$ALIGNPROBE" emulate --detach "$D" > /dev/null || ts_fail "detach $D"
	sed -i "\|^$D\$|d" "$TS_TMP/.emus"
	ts_log "$what: $(grep -o "start 40: $stage failed: .*" "$TS_TMP/err" | head -n1)"
}

# the GPT (LBA 1..33) cannot be written
eio "EIO while partitioning" partition --fail-lba 1 --fail-count 33 --fail-writes
# mkfs writes the superblock at partition start + 2 sectors
eio "EIO during mkfs" mkfs --fail-lba 42 --fail-count 9000 --fail-writes
# the free blocks of a 16 MiB ext4 (4 KiB blocks 1291..4063: mkfs never
# writes there, the workload's files do)
eio "EIO during the workload" workload --fail-lba 10400 --fail-count 22100 --fail-writes

# EIO from the middle of the run on: the sweep pauses in its second step's
# window (after that step's partition, before its mkfs:
# ALIGNPROBE_TEST_SWEEP_WINDOW_AT=2), the drive's power is cut there, so
# every request from then on fails with EIO. The first start's results are
# kept, the second fails. (A count of requests, --fail-after, would depend
# on how much the checks before the first step measure.)
D=$(ts_emu_attach --size 96M --rmw-cost 300us)
mkdir -p "$TS_TMP/tmp"
rm -f "$TS_TMP/go" "$TS_TMP/go.reached"
TMPDIR=$TS_TMP/tmp ALIGNPROBE_TEST_SWEEP_WINDOW=$TS_TMP/go ALIGNPROBE_TEST_SWEEP_WINDOW_AT=2 \
	"$ALIGNPROBE" "${SWEEP[@]}" --starts 34,40 -J --save "$TS_TMP/saved.json" "$D" \
	> "$TS_TMP/out" 2> "$TS_TMP/err" < /dev/null &
spid=$!
ts_bg_pid "$spid"
ts_wait_for -p "$spid" "the sweep in its second window" test -e "$TS_TMP/go.reached" ||
	{ cat "$TS_TMP/err" >&2; ts_fail "partial: the sweep ended before its second step"; }
"$ALIGNPROBE" emulate --power-cut "$D" > /dev/null || ts_fail "partial: cannot cut the power"
touch "$TS_TMP/go"
wait "$spid"
rc=$?
[ "$rc" = 1 ] || { cat "$TS_TMP/err" >&2; ts_fail "partial: exit $rc, not 1"; }
"$ALIGNPROBE" emulate --power-on "$D" > /dev/null || ts_fail "partial: cannot restore the power"
grep -q "$D: start \(34\|40\): [a-z]* failed: .*Input/output error" "$TS_TMP/err" ||
	{ cat "$TS_TMP/err" >&2; ts_fail "partial: no failed step message"; }
for f in "$TS_TMP/out" "$TS_TMP/saved.json"; do
	python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"]
ok = [x for x in r if x["ok"]]
bad = [x for x in r if not x["ok"]]
assert len(ok) == 1 and ok[0]["tps"] > 0 and ok[0]["seq"] == 1, r
assert len(bad) == 1 and bad[0]["errno"] == 5 and bad[0]["seq"] == 2, r
assert bad[0]["start"] != ok[0]["start"], r
' "$f" || { cat "$f" >&2; ts_fail "partial results not kept in $f"; }
done
TMPDIR=$TS_TMP/tmp assert_clean "EIO in the middle"
"$ALIGNPROBE" emulate --detach "$D" > /dev/null || ts_fail "detach $D"
sed -i "\|^$D\$|d" "$TS_TMP/.emus"
ts_log "EIO in the middle: partial results kept"

D=$(ts_emu_attach --size 96M --rmw-cost 300us)
export TMPDIR=$TS_TMP/tmp
# mkfs options it refuses: found on a scratch image before anything is written
sum=$(ts_checksum "$D")
ts_run_rc 2 "$ALIGNPROBE" "${SWEEP[@]}" --starts 40 --mkfs-opt "-O no_such_feature" "$D"
grep -q "mkfs.ext4 refuses the options (tried on a scratch image): .*no_such_feature" "$TS_TMP/err" ||
	{ cat "$TS_TMP/err" >&2; ts_fail "failing mkfs: no message"; }
ts_assert_eq "$sum" "$(ts_checksum "$D")" "failing mkfs options: the device's checksum"
assert_clean "failing mkfs"
# a failing mount
ts_run_rc 1 "$ALIGNPROBE" "${SWEEP[@]}" --starts 40 --mount-opt "no_such_option" "$D"
grep -q "$D: start 40: mount failed: .*Invalid argument" "$TS_TMP/err" ||
	{ cat "$TS_TMP/err" >&2; ts_fail "failing mount: no message"; }
assert_clean "failing mount"

# mkfs missing from PATH (only alignprobe's PATH): refused before anything is written
backing=$(cat "/sys/block/${D##*/}/loop/backing_file")
sum=$(ts_checksum "$D")
PATH=/usr/bin:/bin ts_run_rc 1 "$ALIGNPROBE" "${SWEEP[@]}" --starts 40 "$D"
grep -q "mkfs.ext4 not found" "$TS_TMP/err" || { cat "$TS_TMP/err" >&2; ts_fail "mkfs missing: no message"; }
ts_assert_eq "$sum" "$(ts_checksum "$D")" "mkfs missing: $D (backed by $backing) was written"
assert_clean "mkfs missing"
ts_pass
