#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# probe --write-cache off (issue 26): the drive's volatile cache is off while
# the probe measures -- the kernel's switch and the emulated drive's model --
# and back as found after; after a SIGKILL the state found is on record and
# `alignprobe cleanup` puts it back. A regular file is refused (exit 2),
# and --read-only takes no --write-cache.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "probe --write-cache off: switched for the measurement, restored, cleanup after SIGKILL"
ts_need_emulator

dev=$(ts_emu_attach --profile hdd-7200 --size 256M)
ts_assert_eq "on write back" "$(ts_emu_write_cache "$dev")" "cache before"

# a measurement: the unit, and the cache back as found
"$ALIGNPROBE" probe -q --yes --write-cache off --max-size 8K --time-budget 10m "$dev" \
	> "$TS_TMP/out" 2>&1 || ts_fail "probe --write-cache off: $(cat "$TS_TMP/out")"
grep -q "4096-byte physical sectors" "$TS_TMP/out" || ts_fail "verdict: $(cat "$TS_TMP/out")"
ts_assert_eq "on write back" "$(ts_emu_write_cache "$dev")" "cache after the probe"
ls "$ALIGNPROBE_STATE_DIR" | grep -q wcache && ts_fail "a write cache record left behind"

# SIGKILL while the cache is off (400 rounds: still measuring when killed)
"$ALIGNPROBE" probe -q --yes --write-cache off --min-rounds 400 --max-rounds 400 \
	--time-budget 30m "$dev" > /dev/null 2>&1 &
pid=$!
ts_wait_for -p "$pid" "the cache off" \
	sh -c "[ \"\$(cat /sys/block/${dev#/dev/}/queue/write_cache)\" = 'write through' ]" ||
	ts_fail "the probe ended before it switched the cache off"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
ts_assert_eq "off write through" "$(ts_emu_write_cache "$dev")" "cache after SIGKILL"
"$ALIGNPROBE" cleanup > "$TS_TMP/cleanup" 2>&1
grep -q "restored.*write back" "$TS_TMP/cleanup" || ts_fail "cleanup: $(cat "$TS_TMP/cleanup")"
ts_assert_eq "on write back" "$(ts_emu_write_cache "$dev")" "cache after cleanup"

# refusals before anything is written
truncate -s 64M "$TS_TMP/file.img"
"$ALIGNPROBE" probe -q --yes --write-cache off "$TS_TMP/file.img" > "$TS_TMP/out" 2>&1
ts_assert_eq 2 "$?" "a regular file"
"$ALIGNPROBE" probe -q --read-only --write-cache off "$dev" > "$TS_TMP/out" 2>&1
ts_assert_eq 2 "$?" "--read-only"
"$ALIGNPROBE" probe -q --write-cache on "$dev" > "$TS_TMP/out" 2>&1
ts_assert_eq 2 "$?" "--write-cache on"
ts_pass
