#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# seq --write-cache always puts the cache back: on SIGINT and SIGTERM (the
# runs done are printed, exit 128+N, the drive as found, no record left),
# and after a SIGKILL through `alignprobe cleanup`, which finds the state
# recorded before the switch and restores it (the drive's model and its
# loop device's write_cache); a second cleanup finds nothing. Every signal
# comes once a run with the cache switched off is done (its progress line
# on ALIGNPROBE_PROGRESS_FD), never after a fixed time: 999 runs are left.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/seq/common.sh"
ts_init "seq --write-cache restores the cache on signals and through cleanup"
ts_need_emulator
ts_need_cmd jq

state() { ts_emu_write_cache "$1"; }
seq_gone() { ! ts_running "$spid"; }
entry() { grep -l "^kind=$1\$" "$ALIGNPROBE_STATE_DIR"/* 2>/dev/null | head -n1; }

dev=$(ts_emu_attach --size 64M --write-cache=on)
ts_assert_eq "on write back" "$(state "$dev")" "the drive as attached"

# start DEV: seq switching the cache off, in the background (spid); returns
# once a run with the cache off is done
start() { seq_start "$1" "" --json --write-cache off; }

for sig in INT TERM; do
	start "$dev"
	# switched, and on record while it runs
	ts_assert_eq "off write through" "$(state "$dev")" "SIG$sig: the drive during the off runs"
	e=$(entry wcache)
	[ -n "$e" ] || ts_fail "SIG$sig: the original state is not in the registry"
	ts_assert_eq "model=on;orig=write back;backing=$(cat "/sys/block/${dev#/dev/}/loop/backing_file")" \
		"$(sed -n 's/^aux=//p' "$e")" "SIG$sig: the registry record"
	kill -$sig $spid
	ts_wait_for "seq to exit after SIG$sig" seq_gone
	wait $spid
	rc=$?
	[ $sig = INT ] && want=130 || want=143
	ts_assert_eq $want "$rc" "exit status after SIG$sig"
	jq -e .interrupted "$TS_TMP/out" >/dev/null || ts_fail "SIG$sig: the JSON does not say interrupted"
	ts_assert_eq "true" "$(jq -r .write_cache.restored "$TS_TMP/out")" "SIG$sig: restored"
	ts_assert_eq "on write back" "$(state "$dev")" "SIG$sig: the drive after seq"
	ts_assert_eq "" "$(entry wcache)" "SIG$sig: write cache records left"
done

# SIGKILL: nothing restores it but cleanup, from the record
start "$dev"
kill -KILL $spid
wait $spid 2>/dev/null
ts_assert_eq "off write through" "$(state "$dev")" "the drive after SIGKILL"
ts_run_rc 1 "$ALIGNPROBE" cleanup --dry-run
grep -q "^would-restore *wcache" "$TS_TMP/out" || { cat "$TS_TMP/out" >&2; ts_fail "--dry-run"; }
ts_assert_eq "off write through" "$(state "$dev")" "the drive after cleanup --dry-run"
# the drive itself, attached with emulate --attach, stays: only the cache comes back
ts_run_rc 1 "$ALIGNPROBE" cleanup
grep -q "^restored *wcache .*write back" "$TS_TMP/out" || { cat "$TS_TMP/out" >&2; ts_fail "not restored"; }
ts_assert_eq "on write back" "$(state "$dev")" "the drive after cleanup"
[ -z "$(entry wcache)" ] || ts_fail "the record is still there after the restore"
ts_run_rc 1 "$ALIGNPROBE" cleanup
grep -q "wcache" "$TS_TMP/out" && ts_fail "a second cleanup found the record again"

# a record whose drive is gone: nothing to restore, the record goes
start "$dev"
kill -KILL $spid
wait $spid 2>/dev/null
"$ALIGNPROBE" emulate --detach "$dev" >/dev/null || ts_fail "detach $dev"
sed -i "\\|^$dev\$|d" "$TS_TMP/.emus"
ts_run_rc 0 "$ALIGNPROBE" cleanup
grep -q "^gone *wcache" "$TS_TMP/out" || { cat "$TS_TMP/out" >&2; ts_fail "a gone drive's record"; }
ts_assert_eq "" "$(ls -A "$ALIGNPROBE_STATE_DIR")" "registry entries after cleanup"
ts_pass
