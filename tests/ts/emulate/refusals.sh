#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What emulate prints when it refuses: bad attach options and specs, a
# device that is no emulated drive, conflicting actions, with their exit
# status, byte for byte as in tests/expected/emulate/refusals-*. Every
# command line here is refused before anything is attached.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "emulate refusals as expected"
mkdir "$TS_TMP/work" && cd "$TS_TMP/work" || exit 99

A=$ALIGNPROBE
mkdir adir
: > empty.img
truncate -s 16M disk.img

ts_expect_run no-action "$A" emulate
ts_expect_run two-actions "$A" emulate --attach --detach /dev/null
ts_expect_run bad-phys "$A" emulate --attach --phys 1000
ts_expect_run bad-phys-large "$A" emulate --attach --phys 128K
ts_expect_run bad-lowest-aligned "$A" emulate --attach --lowest-aligned 8
ts_expect_run bad-lba-alias "$A" emulate --attach --phys 8192 --lba 16
ts_expect_run bad-size "$A" emulate --attach --size 1K
ts_expect_run bad-size-unit "$A" emulate --attach --size lots
ts_expect_run bad-jitter "$A" emulate --attach --jitter 200%
ts_expect_run bad-rmw-cost "$A" emulate --attach --rmw-cost xyz
ts_expect_run bad-rmw-cost-unit "$A" emulate --attach --rmw-cost 5
ts_expect_run bad-write-cache "$A" emulate --attach --write-cache=maybe
ts_expect_run bad-fail-count "$A" emulate --attach --fail-lba 100 --fail-count 0
ts_expect_run bad-spec-key "$A" emulate --attach --spec bogus=1
ts_expect_run bad-spec-value "$A" emulate --attach --spec phys=4096,lba=x
ts_expect_run bad-spec-fail-rw "$A" emulate --attach --spec fail=10+2,fail-rw=x
ts_expect_run image-missing "$A" emulate --attach --image nonexistent.img
ts_expect_run image-directory "$A" emulate --attach --image adir
ts_expect_run image-empty "$A" emulate --attach --image empty.img
ts_expect_run attach-with-device "$A" emulate --attach /dev/null
ts_expect_run stats-no-device "$A" emulate --stats
ts_expect_run stats-missing "$A" emulate --stats /dev/alignprobe-nonexistent
ts_expect_run stats-directory "$A" emulate --stats adir
ts_expect_run stats-char-device "$A" emulate --stats /dev/null
ts_expect_run stats-regular-file "$A" emulate --stats disk.img
ts_expect_run stats-json-and-raw "$A" emulate --stats -J -r /dev/null
ts_expect_run stats-unknown-column "$A" emulate --stats -o NOPE /dev/null
ts_expect_run detach-char-device "$A" emulate --detach /dev/null
ts_expect_run detach-no-device "$A" emulate --detach
ts_expect_run reset-stats-missing "$A" emulate --reset-stats /dev/alignprobe-nonexistent

ts_expect_done
