#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What probe prints without touching a device: the plan of --dry-run on an
# emulated drive (not set up), the refusals of bad options, targets and undo
# journals, with their exit status, byte for byte as in
# tests/expected/probe/output-*. Nothing here is timed, attached or written.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "probe plans and refusals as expected"
mkdir "$TS_TMP/work" && cd "$TS_TMP/work" || exit 99

A=$ALIGNPROBE
truncate -s 16M disk.img
mkdir adir
: > empty.journal
echo "not a journal" > text.journal

# the plan, with the emulator's defaults and with a spec and probe options
ts_expect_run dry-run-emulate "$A" probe --emulate --dry-run
ts_expect_run dry-run-emulate-spec "$A" probe --emulate=phys=4096,lba=7,rmw=300us,size=256M \
	--dry-run --max-size 16K --min-rounds 4 --max-rounds 9 --slots 64 --time-budget 30s
ts_expect_run dry-run-emulate-two "$A" probe --emulate=size=64M --emulate=phys=8192,size=128M \
	--dry-run --min-size 8K --max-size 32K
ts_expect_run dry-run-emulate-region "$A" probe --emulate=size=512M --dry-run \
	--region-start 2M --region-size 64M --no-confirm --all-sizes
# preserving: the journal holds every slot with its margins (journal-margin)
ts_expect_run dry-run-emulate-preserve "$A" probe --emulate=size=256M,phys=4096,lba=7 \
	--dry-run --preserve --journal undo.journal

# targets that are refused
ts_expect_run no-device "$A" probe
ts_expect_run missing-device "$A" probe -y nonexistent
ts_expect_run regular-file "$A" probe -y disk.img
ts_expect_run regular-file-dry-run "$A" probe --dry-run disk.img
ts_expect_run regular-file-read-only "$A" probe --read-only disk.img
ts_expect_run regular-file-preserve "$A" probe --preserve disk.img
ts_expect_run directory "$A" probe -y adir
ts_expect_run char-device "$A" probe -y /dev/null
ts_expect_run listed-twice "$A" probe -y disk.img disk.img

# undo journals that are not
ts_expect_run undo-missing "$A" probe --undo nonexistent.journal
ts_expect_run undo-empty "$A" probe --undo empty.journal
ts_expect_run undo-text "$A" probe --undo text.journal
ts_expect_run undo-directory "$A" probe --undo adir
ts_expect_run undo-no-argument "$A" probe --undo

# bad options
ts_expect_run preserve-and-read-only "$A" probe -P -R disk.img
ts_expect_run bad-alpha "$A" probe --alpha 2 disk.img
ts_expect_run bad-sizes "$A" probe --min-size 64K --max-size 4K disk.img
ts_expect_run bad-max-size "$A" probe --max-size 3K disk.img
ts_expect_run bad-rounds "$A" probe --min-rounds 5 --max-rounds 3 disk.img
ts_expect_run bad-min-slowdown "$A" probe --min-slowdown 0.5 disk.img
ts_expect_run bad-seed "$A" probe --seed abc disk.img
ts_expect_run bad-time-budget "$A" probe --time-budget xyz disk.img
ts_expect_run bad-slots "$A" probe --slots 0 disk.img
ts_expect_run bad-emulate-phys "$A" probe --emulate=phys=1000
ts_expect_run bad-emulate-key "$A" probe --emulate=bogus=1
ts_expect_run emulate-and-device "$A" probe --emulate /dev/null
ts_expect_run json-and-csv "$A" probe -J --csv disk.img
ts_expect_run unknown-column "$A" probe -o NOPE disk.img
ts_expect_run plot-no-argument "$A" probe --plot

ts_expect_done
