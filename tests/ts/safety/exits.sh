#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Small refusals that must come before anything is written, with the exit
# status of the errno table and a message that names the cause:
# a dry run checks what the run checks (seq --dry-run ""; the emulated
# drive's sweep and seq --dry-run plan on the spec's drive;
# --mkfs-opt); a single --starts is measured for one round, not eight;
# sweep --mkfs-opt is tried on a scratch image
# before the first write (exit 2, mkfs's own line, once); outputs on a
# read-only file system are refused (EROFS: 3, not 2: --plot, --save,
# --prometheus, --journal, --record, a postmark location); empty and missing
# device names are usage errors (emulate --detach "", cleanup "",
# cleanup /dev/nonexist); option messages name the option.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh" || exit 99
ts_init "refusals before the first write, with the table's exit status"

# --- no devices needed -------------------------------------------------
ts_subtest no-devices
ts_run_rc 2 "$ALIGNPROBE" seq --dry-run ""
ts_run_rc 2 "$ALIGNPROBE" seq ""
ts_run_rc 2 "$ALIGNPROBE" seq --dry-run "$TS_TMP/no/such/dir/file"
ts_run_rc 2 "$ALIGNPROBE" emulate --detach ""
grep -q "empty device name" "$TS_TMP/err" || ts_fail "emulate --detach '': $(cat "$TS_TMP/err")"
ts_run_rc 2 "$ALIGNPROBE" cleanup ""
ts_run_rc 2 "$ALIGNPROBE" cleanup /dev/nonexist
grep -q "^alignprobe cleanup: /dev/nonexist: No such file" "$TS_TMP/err" ||
	ts_fail "cleanup /dev/nonexist: $(cat "$TS_TMP/err")"
ts_run_rc 2 "$ALIGNPROBE" emulate --attach --profile nope
grep -q "^alignprobe emulate: --profile: unknown drive profile 'nope'" "$TS_TMP/err" ||
	ts_fail "--profile nope: $(cat "$TS_TMP/err")"
# the emulated drive's dry run plans on the drive the spec describes
ts_run_rc 2 "$ALIGNPROBE" sweep --emulate=size=256M --dry-run --size 1T
grep -q -- "--size: a partition at start 64 can have at most 256M" "$TS_TMP/err" ||
	ts_fail "sweep --emulate --dry-run --size 1T: $(cat "$TS_TMP/err")"
ts_run_rc 2 "$ALIGNPROBE" sweep --emulate=size=256M --dry-run --starts 10..20
ts_run_rc 2 "$ALIGNPROBE" seq --emulate=size=64M --dry-run -s 100G
grep -q "beyond its end" "$TS_TMP/err" || ts_fail "seq --emulate --dry-run -s 100G: $(cat "$TS_TMP/err")"
ts_run_rc 0 "$ALIGNPROBE" sweep --emulate --dry-run --starts 40
grep -q -- "--starts: one start (40) can never give a verdict.*for one round" "$TS_TMP/err" ||
	ts_fail "--starts 40: $(cat "$TS_TMP/err")"

# --- the emulated drive: the run's own checks --------------------------
ts_subtest emulated-drive
if [ "$(id -u)" = 0 ] && [ -c /dev/fuse ] && "$ALIGNPROBE" emulate --help >/dev/null 2>&1 &&
	command -v mkfs.ext4 >/dev/null; then
	export TMPDIR=$TS_TMP/tmp
	mkdir -p "$TMPDIR"
	for dry in --dry-run ""; do
		ts_run_rc 2 "$ALIGNPROBE" sweep --emulate=simple,size=256M --yes -q $dry \
			--mkfs-opt=-Zbogus
		ts_assert_eq 1 "$(grep -c "invalid option -- 'Z'" "$TS_TMP/err")" \
			"sweep $dry --mkfs-opt=-Zbogus: mkfs's line, once"
		grep -q "Usage:" "$TS_TMP/err" && ts_fail "mkfs's usage text in the message: $(cat "$TS_TMP/err")"
	done
	ts_run_rc 2 "$ALIGNPROBE" sweep --emulate=simple,size=256M --yes -q --size=1K
	grep -q -- "--size: 1K is too small" "$TS_TMP/err" || ts_fail "--size=1K: $(cat "$TS_TMP/err")"
	# one start: one round, no verdict (5), said once
	ts_run_rc 5 "$ALIGNPROBE" sweep --emulate=simple,size=256M --yes -q --starts 40 -J
	ts_assert_eq 1 "$(grep -c "one start (40) can never give a verdict" "$TS_TMP/err")" \
		"--starts 40: the note"
	ts_assert_eq 1 "$(grep -o '"max_rounds": *[0-9]*' "$TS_TMP/out" | grep -o '[0-9]*$')" \
		"--starts 40: rounds"
	[ -z "$(ls -A "$ALIGNPROBE_STATE_DIR")" ] || ts_fail "registry entries left: $(ls -A "$ALIGNPROBE_STATE_DIR")"
	[ -z "$(ls -A "$TMPDIR")" ] || ts_fail "left in TMPDIR: $(ls -A "$TMPDIR")"
	# outputs on a read-only file system: EROFS is 3 in the table
	mkdir -p "$TS_TMP/ro"
	echo "$TS_TMP/ro" >> "$TS_TMP/.mounts"
	mount -t tmpfs -o ro,size=1M tmpfs "$TS_TMP/ro" || ts_fail "mount a read-only tmpfs"
	ts_image "$TS_TMP/t.img" 16M
	ts_run_rc 3 "$ALIGNPROBE" sweep --emulate --dry-run --plot "$TS_TMP/ro/x.svg"
	ts_run_rc 3 "$ALIGNPROBE" sweep --emulate --dry-run --save "$TS_TMP/ro/x.json"
	ts_run_rc 3 "$ALIGNPROBE" check --prometheus "$TS_TMP/ro/x.prom" "$TS_TMP/t.img"
	ts_run_rc 3 "$ALIGNPROBE" probe --dry-run --emulate -P --journal "$TS_TMP/ro/j"
	ts_run_rc 3 "$ALIGNPROBE" seq --dry-run --plot "$TS_TMP/ro/p.svg" "$TS_TMP/s.img"
	ts_run_rc 3 "$ALIGNPROBE" seq -s 1M "$TS_TMP/ro/s.img"
	ts_run_rc 3 "$ALIGNPROBE" probe --dry-run --emulate --record="$TS_TMP/ro/v.json"
	ts_run_rc 3 "$ALIGNPROBE" sweep --dry-run --emulate --record="$TS_TMP/ro/v.json"
	ts_run_rc 3 "$ALIGNPROBE" postmark -q -l "$TS_TMP/ro"
	umount "$TS_TMP/ro"
else
	ts_log "no emulated drive or root here: the mkfs, size and read-only cases skipped"
fi
ts_pass
