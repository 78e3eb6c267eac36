#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What seq prints without timing anything: the plans of --dry-run on regular
# files (nothing is created or written) and on an emulated drive (not set
# up), and the refusals of bad options and targets, with their exit status,
# byte for byte as in tests/expected/seq/output-*.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "seq plans and refusals as expected"
ts_need_cmd sha256sum
mkdir "$TS_TMP/work" && cd "$TS_TMP/work" || exit 99

A=$ALIGNPROBE
truncate -s 2M exist.dat
: > empty.dat
mkdir adir
sum=$(ts_checksum exist.dat)

# plans
ts_expect_run dry-run-new-file "$A" seq --dry-run -s 1M -B 4K,1M new.dat
ts_expect_run dry-run-all-modes "$A" seq --dry-run -s 4M -B 4K,64K,1M -m all -R new.dat
ts_expect_run dry-run-default-modes "$A" seq --dry-run -s 1M -B 4K -m default new.dat
ts_expect_run dry-run-existing-file "$A" seq --dry-run -B 4K exist.dat
ts_expect_run dry-run-offset "$A" seq --dry-run -s 1M --offset 1M -B 64K -m none,direct exist.dat
ts_expect_run dry-run-rounds "$A" seq --dry-run -s 1M -B 512K,1M -m fdatasync,dsync --rounds 3 new.dat
ts_expect_run dry-run-empty-file "$A" seq --dry-run -s 1M -B 1M -m none empty.dat
ts_expect_run dry-run-json "$A" seq --dry-run -s 1M -B 1M -m none -J new.dat
# an empty element of the list is skipped
ts_expect_run dry-run-empty-block-size "$A" seq --dry-run -s 1M -B 4K,,1M -m none new.dat
ts_expect_run dry-run-emulate "$A" seq --emulate --dry-run -s 1M -B 4K
ts_expect_run dry-run-emulate-spec "$A" seq --emulate=cache=on,base=100us --dry-run -s 1M -B 4K
[ -e new.dat ] && ts_fail "seq --dry-run created new.dat"
[ -s empty.dat ] && ts_fail "seq --dry-run wrote empty.dat"
ts_assert_eq "$sum" "$(ts_checksum exist.dat)" "exist.dat after the dry runs"

# refusals
ts_expect_run no-target "$A" seq
ts_expect_run two-targets "$A" seq a.dat b.dat
ts_expect_run beyond-the-end "$A" seq --dry-run -s 4M -B 4K exist.dat
ts_expect_run offset-beyond-the-end "$A" seq --dry-run --offset 2M -B 4K exist.dat
ts_expect_run block-larger-than-size "$A" seq --dry-run -s 1M -B 2M new.dat
ts_expect_run directory "$A" seq -y adir
ts_expect_run char-device "$A" seq -y /dev/null
ts_expect_run bad-rounds "$A" seq --rounds 0 new.dat
ts_expect_run bad-mode "$A" seq -m bogus new.dat
ts_expect_run bad-data "$A" seq --data foo new.dat
ts_expect_run bad-size "$A" seq -s lots new.dat
ts_expect_run bad-cell-time "$A" seq --cell-time forever new.dat
ts_expect_run bad-emulate-spec "$A" seq --emulate=cache=maybe
ts_expect_run json-and-raw "$A" seq -J -r new.dat
ts_expect_run unknown-column "$A" seq -o MODE,NOPE new.dat
[ -e new.dat ] && ts_fail "a refused seq created new.dat"
[ -e a.dat ] && ts_fail "a refused seq created a.dat"

ts_expect_done
