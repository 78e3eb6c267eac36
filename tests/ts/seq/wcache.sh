#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# seq --write-cache on an emulated drive: the drive's own counters prove
# the cache was off during the off runs (not one flush reaches a drive
# whose loop device says "write through") and on during the on runs (a
# flush per O_DSYNC block); the drive's model follows too (a partial-sector
# write pays its read-modify-write at once with the cache off: a lower
# bound on the time, whatever the machine). After every run -- done, an
# I/O error, a disk that cannot switch -- the drive is as it was found:
# its model, its loop device's write_cache, and no record left in the
# state registry.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "seq --write-cache switches the drive's cache, proves it, restores it"
ts_need_emulator
ts_need_cmd jq

state() { ts_emu_write_cache "$1"; }
# assert_restored DEV "MODEL KERNEL" WHAT
assert_restored() {
	ts_assert_eq "$2" "$(state "$1")" "$3: the drive's write cache (model, kernel)"
	ts_assert_eq "" "$(grep -l '^kind=wcache$' "$ALIGNPROBE_STATE_DIR"/* 2>/dev/null)" \
		"$3: write cache records left"
}
# flushes DEV WC MODE: the drive's flushes during one seq run (run in $(...):
# callers add || ts_fail, since a ts_fail in there ends only the subshell)
flushes() {
	"$ALIGNPROBE" emulate --reset-stats "$1" >/dev/null || ts_fail "reset-stats $1"
	ts_run_rc 0 "$ALIGNPROBE" seq -q --yes --write-cache "$2" --modes "$3" --block-sizes 64K \
		--size 1M --cell-time 0 "$1"
	"$ALIGNPROBE" emulate --stats "$1" -n -r -o FLUSHES
}

# --- a drive with its cache on, switched off: no flush in the off runs -------
ts_subtest cache-on-switched-off
dev=$(ts_emu_attach --size 64M --write-cache=on)
ts_assert_eq "on write back" "$(state "$dev")" "the drive as attached"
# the layout and the settle before the switch
base=$(flushes "$dev" off none) || ts_fail "seq --write-cache (see above)"
assert_restored "$dev" "on write back" "off, none"
for m in dsync direct fdatasync; do
	f=$(flushes "$dev" off "$m") || ts_fail "seq --write-cache (see above)"
	ts_log "cache off, $m: $f flushes (none: $base)"
	ts_assert_eq "$base" "$f" "flushes of $m with the cache switched off"
	assert_restored "$dev" "on write back" "off, $m"
done
f=$(flushes "$dev" on dsync) || ts_fail "seq --write-cache (see above)"
ts_log "cache on, dsync: $f flushes (none: $base)"
[ "$f" -ge $((base + 16)) ] || ts_fail "cache on, dsync: $f flushes, expected at least $base + 16"
assert_restored "$dev" "on write back" "on, dsync"
"$ALIGNPROBE" emulate --detach "$dev" >/dev/null || ts_fail "detach $dev"
sed -i "\\|^$dev\$|d" "$TS_TMP/.emus"

# --- a drive with its cache off, switched on: a flush per O_DSYNC block -------
ts_subtest cache-off-switched-on
dev=$(ts_emu_attach --size 64M --write-cache=off --rmw-cost 20ms)
ts_assert_eq "off write through" "$(state "$dev")" "the drive as attached"
base=$(flushes "$dev" on none) || ts_fail "seq --write-cache (see above)"
f=$(flushes "$dev" on dsync) || ts_fail "seq --write-cache (see above)"
ts_log "cache on, dsync: $f flushes (none: $base)"
[ "$f" -ge $((base + 16)) ] || ts_fail "cache switched on, dsync: $f flushes, expected at least $base + 16"
assert_restored "$dev" "off write through" "on, dsync"

# --- on,off in one run: the model follows, the JSON says which cell ran how ---
# 4K blocks at offset 512 straddle two hidden sectors: with the cache off
# each of the 16 writes pays 2 x 20ms at once; with it on, O_DIRECT alone
# sends no flush, so the writes cost nothing while timed
ts_subtest on-off-one-run
ts_run_rc 0 "$ALIGNPROBE" seq -q --yes --json --write-cache on,off --modes direct-nosync \
	--block-sizes 4K --size 64K --offset 512 --cell-time 0 "$dev"
cp "$TS_TMP/out" "$TS_TMP/onoff.json"
assert_restored "$dev" "off write through" "on,off"
j() { jq -r "$1" "$TS_TMP/onoff.json"; }
ts_assert_eq '["on","off"]' "$(jq -c .write_cache.states "$TS_TMP/onoff.json")" "write_cache.states"
ts_assert_eq "off" "$(j .write_cache.found)" "write_cache.found"
ts_assert_eq "true" "$(j .write_cache.restored)" "write_cache.restored"
ts_assert_eq "on off" "$(j '[.cells[].wcache] | join(" ")')" "the cells' write cache"
on=$(j '.cells[] | select(.wcache == "on") | .seconds')
off=$(j '.cells[] | select(.wcache == "off") | .seconds')
ts_log "direct-nosync 4K x 16 misaligned: cache on ${on}s, off ${off}s"
awk -v off="$off" 'BEGIN { exit !(off >= 0.64) }' ||
	ts_fail "cache off took ${off}s, less than the 16 x 2 x 20ms the drive charges"
# (how fast the cache-on cell was is the machine's overhead, not the drive's:
# not asserted)
[ "$(j '.knees.on["direct-nosync"].bs')" = 4096 ] || ts_fail "no knee for the cache on"
[ "$(j '.knees.off["direct-nosync"].bs')" = 4096 ] || ts_fail "no knee for the cache off"
# the table: WCACHE among the default columns
ts_run_rc 0 "$ALIGNPROBE" seq -q --yes --write-cache off --modes none --block-sizes 4K \
	--size 16K --cell-time 0 "$dev"
grep -q '^WCACHE *MODE' "$TS_TMP/out" || ts_fail "no WCACHE column: $(cat "$TS_TMP/out")"
grep -q '^off *none' "$TS_TMP/out" || ts_fail "the cell is not marked off: $(cat "$TS_TMP/out")"
grep -q 'found off ("write through"), restored' "$TS_TMP/out" || ts_fail "no word of the restore"

# --- an I/O error in the middle of the off runs: restored, exit 1 --------------
# the layout writes 1M in at most 256 requests, then 30 rounds x 16 direct
# writes follow: the 300th write fails, always after the switch
ts_subtest io-error-restored
"$ALIGNPROBE" emulate --detach "$dev" >/dev/null || ts_fail "detach $dev"
sed -i "\\|^$dev\$|d" "$TS_TMP/.emus"
dev=$(ts_emu_attach --size 64M --write-cache=on --fail-after 300 --fail-writes)
"$ALIGNPROBE" emulate --reset-stats "$dev" >/dev/null
ts_run_rc 1 "$ALIGNPROBE" seq -q --yes --write-cache off --modes direct --block-sizes 64K \
	--size 1M --rounds 30 --cell-time 0 "$dev"
grep -q 'Input/output error' "$TS_TMP/err" || ts_fail "no I/O error reported: $(cat "$TS_TMP/err")"
grep -q '^off *direct' "$TS_TMP/out" || ts_fail "no off run before the error: $(cat "$TS_TMP/out")"
assert_restored "$dev" "on write back" "after an I/O error"

# --- no way to switch: refused before anything is written (exit 2) -----------
ts_subtest no-way-to-switch
ts_image "$TS_TMP/plain.img" 16M
loop=$(ts_loop_attach "$TS_TMP/plain.img")
wc=$(cat "/sys/block/${loop#/dev/}/queue/write_cache")
ts_run_rc_ro 2 "$loop" "$ALIGNPROBE" seq -q --yes --write-cache off --modes none \
	--block-sizes 4K --size 16K "$loop"
grep -q 'offers no way to switch its write cache' "$TS_TMP/err" ||
	ts_fail "no reason given: $(cat "$TS_TMP/err")"
ts_assert_eq "$wc" "$(cat "/sys/block/${loop#/dev/}/queue/write_cache")" \
	"the plain loop device's write_cache"
ts_run_rc 2 "$ALIGNPROBE" seq -q --write-cache on --modes none --block-sizes 4K --size 16K \
	"$TS_TMP/file.img"
grep -q "not a regular file" "$TS_TMP/err" || ts_fail "a file: $(cat "$TS_TMP/err")"
[ -e "$TS_TMP/file.img" ] && ts_fail "a file was created"
ts_run_rc 2 "$ALIGNPROBE" seq --write-cache on,maybe "$dev"
ts_run_rc 2 "$ALIGNPROBE" seq --write-cache off,off "$dev"
ts_assert_eq "" "$(grep -l '^kind=wcache$' "$ALIGNPROBE_STATE_DIR"/* 2>/dev/null)" \
	"write cache records after the refusals"

# --- seq --emulate: the drive set up for the run is switched too -------------
ts_subtest seq-emulate-switched
ts_run_rc 0 "$ALIGNPROBE" seq -q --json --emulate="size=64M,cache=on" --write-cache off,on \
	--modes none --block-sizes 64K --size 256K --cell-time 0
ts_assert_eq "off on" "$(jq -r '[.cells[].wcache] | join(" ")' "$TS_TMP/out")" "--emulate: the cells"
ts_assert_eq "true" "$(jq -r .write_cache.restored "$TS_TMP/out")" "--emulate: restored"
ts_assert_eq "" "$(grep -l '^kind=wcache$' "$ALIGNPROBE_STATE_DIR"/* 2>/dev/null)" \
	"write cache records after seq --emulate"
ts_pass
