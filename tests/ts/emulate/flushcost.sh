#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Flushes that cost media time (issue 34): hdd-7200-nocache-flush has no
# write cache but says "write back", so the kernel sends it a flush with
# every O_DSYNC write, and the drive counts it; hdd-7200-nocache says
# "write through" and gets none. The cost itself is the model's, unit-tested
# in tests/unit/test_emu_quirks.c (test_flush_media): asserted here on
# counters and sysfs only, never on time.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh" || exit 99
ts_init "flushes reach the drive whose flushes cost a revolution and a seek"
ts_need_emulator
ts_need_cmd dd

counter() { "$ALIGNPROBE" emulate --stats "$1" -n -r -o "$2"; }
dsync4k() { dd if=/dev/zero of="$1" bs=4096 count=1 seek="$2" oflag=direct,dsync conv=notrunc \
	status=none; }

# flushes PROFILE WANT_CACHE WANT_FLUSHES_AFTER_TWO_DSYNC_WRITES
flushes() {
	local dev n
	dev=$(ts_emu_attach --profile "$1" --size 16M)
	ts_assert_eq "$2" "$(ts_emu_write_cache "$dev")" "$1: cache model and kernel view"
	"$ALIGNPROBE" emulate --reset-stats "$dev" || ts_fail "$1: reset-stats"
	dsync4k "$dev" 5 && dsync4k "$dev" 9 || ts_fail "$1: O_DSYNC write failed"
	n=$(counter "$dev" FLUSHES)
	ts_assert_eq 2 "$(counter "$dev" WRITES)" "$1: writes"
	case $3 in
	0) ts_assert_eq 0 "$n" "$1: flushes" ;;
	*) [ "$n" -ge "$3" ] || ts_fail "$1: $n flushes after 2 O_DSYNC writes (want >= $3)" ;;
	esac
	grep -q "flush=rev+seek" <<< "$(counter "$dev" SPEC)" ||
		[ "$3" = 0 ] || ts_fail "$1: the spec does not say flush=rev+seek"
	"$ALIGNPROBE" emulate --detach "$dev" || ts_fail "$1: detach"
}

ts_subtest nocache-gets-no-flushes
flushes hdd-7200-nocache "off write through" 0

ts_subtest nocache-flush-gets-them
flushes hdd-7200-nocache-flush "off write back" 2
ts_pass
