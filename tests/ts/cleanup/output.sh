#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What cleanup prints, from a state directory this test writes itself:
# nothing to do (every output option), then the entries of a run of an
# earlier boot (stale whatever its PID: a mount and a loop device that are
# gone, temporary directories to remove, an undo journal to keep or remove),
# an entry of a running process (PID 1) and an unreadable one; --dry-run,
# -J, the real run and --remove-journals, with their exit status, byte for
# byte as in tests/expected/cleanup/output-*. Nothing outside this test's
# directory is touched: no loop device, no mount.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "cleanup output as expected"
ts_untimed "cleanup's output from recorded state"
mkdir "$TS_TMP/work" && cd "$TS_TMP/work" || exit 99

A=$ALIGNPROBE
S=$ALIGNPROBE_STATE_DIR
W=$TS_TMP/work

# nothing to clean up
ts_expect_run empty "$A" cleanup
ts_expect_run empty-dry-run "$A" cleanup --dry-run
ts_expect_run empty-json "$A" cleanup -J
ts_expect_run empty-raw "$A" cleanup -r
ts_expect_run empty-csv "$A" cleanup --csv
ts_expect_run empty-noheadings "$A" cleanup -n
ts_expect_run empty-quiet "$A" cleanup -q

# entry KIND OWNER START BOOT PATH DEV AUX: a registry file as state.c writes it
entry() {
	printf 'kind=%s\nowner=%s\nowner_start=%s\nboot=%s\npath=%s\ndev=%s\naux=%s\n' "$@"
}
OLD=00000000-0000-4000-8000-000000000000	# no boot's id: an earlier boot
NODEV=/dev/loop-alignprobe-nonexistent		# a loop device name nobody has
mkdir -p "$W/alignprobe-old.1/sub" "$W/plain-dir"
echo data > "$W/alignprobe-old.1/sub/file"
echo journal > "$W/old.journal"
entry mount 4242 123 $OLD "$W/mnt" $NODEV "" > "$S/4242-mount"
entry loop 4242 123 $OLD "$W/disk.img" $NODEV "" > "$S/4242-loop"
entry tmpdir 4242 123 $OLD "$W/alignprobe-old.1" "" "" > "$S/4242-tmpdir-a"
entry tmpdir 4242 123 $OLD "$W/plain-dir" "" "" > "$S/4242-tmpdir-b"
entry tmpdir 4242 123 $OLD "$W/gone-dir" "" "" > "$S/4242-tmpdir-c"
entry journal 4242 123 $OLD "$W/old.journal" $NODEV "" > "$S/4242-journal"
echo garbage > "$S/4242-unreadable"
# PID 1 runs, started when it did, in this boot: in use
entry tmpdir 1 "$(sed 's/.*) //' /proc/1/stat | cut -d' ' -f20)" \
	"$(cat /proc/sys/kernel/random/boot_id)" "$W/in-use" "" "" > "$S/1-tmpdir"
mkdir "$W/in-use"

ts_expect_run stale-dry-run "$A" cleanup --dry-run
ts_expect_run stale-dry-run-json "$A" cleanup --dry-run -J
ts_expect_run stale-dry-run-raw "$A" cleanup --dry-run -r -o ACTION,KIND,OWNER
ts_expect_run stale-dry-run-csv "$A" cleanup --dry-run --csv -o ACTION,KIND,PATH
ts_expect_run stale-dry-run-quiet "$A" cleanup --dry-run -q
ls "$S" > "$TS_TMP/after-dry-run"
ts_expect stale-dry-run-left "$TS_TMP/after-dry-run"
ts_expect_run stale "$A" cleanup
ls "$S" > "$TS_TMP/after-cleanup"
ts_expect stale-left "$TS_TMP/after-cleanup"
ts_expect_run stale-again "$A" cleanup
ts_expect_run remove-journals "$A" cleanup --remove-journals -o ACTION,KIND,PATH,DETAIL
[ -e "$W/old.journal" ] && ts_fail "the journal was not removed"
[ -d "$W/in-use" ] || ts_fail "the directory of a running process was removed"
[ -e "$W/alignprobe-old.1" ] && ts_fail "the stale directory was not removed"

# bad arguments
ts_expect_run device-char "$A" cleanup /dev/null
ts_expect_run device-missing "$A" cleanup /dev/alignprobe-nonexistent
truncate -s 1M plain.img
ts_expect_run device-regular-file "$A" cleanup plain.img
ts_expect_run device-vanished "$A" cleanup vanished.img
ts_expect_run two-devices "$A" cleanup /dev/null /dev/zero
ts_expect_run json-and-csv "$A" cleanup -J --csv
ts_expect_run unknown-column "$A" cleanup -o NOPE

# what is left is this test's: the exit trap must not report on it
rm -f "$S"/*
ts_expect_done
