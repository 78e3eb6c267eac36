#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# seq on the emulated drive: every mode sends the flushes it claims (the
# drive's exact flush counter), and the drive's write cache (off: "write
# through", no flushes; on: a flush after every O_DSYNC block, each costing
# --flush-cost) shows in the O_DSYNC cells.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "seq on the emulated drive: flushes per mode, write cache on vs off"
ts_need_emulator
ts_need_cmd jq

counters() {	# DEV MODE -> "WRITES FLUSHES" of one 16 x 64K run
	"$ALIGNPROBE" emulate --reset-stats "$1" >/dev/null || ts_fail "reset-stats $1"
	ts_run_rc 0 "$ALIGNPROBE" seq -q --yes --modes "$2" --block-sizes 64K --size 1M \
		--cell-time 0 "$1"
	"$ALIGNPROBE" emulate --stats "$1" -n -r -o WRITES,FLUSHES
}

# cache on: the kernel sees "write back" and sends flushes
dev=$(ts_emu_attach --size 64M --write-cache=on)
read -r w0 f0 <<< "$(counters "$dev" none)"	# the untimed layout and cache drops
ts_log "cache=on none: writes $w0 flushes $f0"
[ "$f0" -ge 1 ] || ts_fail "no flush at all with the cache on (layout fdatasync)"
check() {	# MODE OP N: flushes of MODE compared with none's
	local w f
	read -r w f <<< "$(counters "$dev" "$1")"
	ts_log "cache=on $1: writes $w flushes $f (none: $f0)"
	case $2 in
	eq) [ "$f" -eq $((f0 + $3)) ] || ts_fail "$1: $f flushes, expected none's $f0 + $3" ;;
	ge) [ "$f" -ge $((f0 + $3)) ] || ts_fail "$1: $f flushes, expected at least $f0 + $3" ;;
	esac
	[ "$w" -ge "$4" ] || ts_fail "$1: $w writes reached the drive, expected at least $4"
}
check none          eq 0  1
check direct-nosync eq 0  16	# O_DIRECT alone: 16 writes, no flush
check fdatasync     eq 1  1	# one fdatasync at the end
check sync-after    eq 1  1	# one fsync of the device after close
check dsync         ge 16 16	# a flush per block
check sync          ge 16 16
check direct        ge 16 16
"$ALIGNPROBE" emulate --detach "$dev" >/dev/null || ts_fail "detach $dev"
sed -i "\\|^$dev\$|d" "$TS_TMP/.emus"	# detached: not again at cleanup

# cache off: "write through", and not a single flush whatever the mode
dev=$(ts_emu_attach --size 64M --write-cache=off)
for m in fdatasync dsync sync direct; do
	read -r w f <<< "$(counters "$dev" "$m")"
	ts_assert_eq 0 "$f" "flushes of $m with the cache off"
done
"$ALIGNPROBE" emulate --detach "$dev" >/dev/null || ts_fail "detach $dev"
sed -i "\\|^$dev\$|d" "$TS_TMP/.emus"	# detached: not again at cleanup

# the cache in the O_DSYNC cells: 16 blocks x >= 1 flush x 25ms with it on,
# a floor the drive's charge guarantees; cache=off's cell is not timed
# against it (a loaded host can make 16 plain writes take as long), its
# zero flushes are the counters' above
run() {
	ts_run_rc 0 "$ALIGNPROBE" seq -q --json --emulate="size=64M,cache=$1,flush=25ms" \
		--modes none,dsync --block-sizes 64K --size 1M --cell-time 0
	cp "$TS_TMP/out" "$TS_TMP/$1.json"
}
run on
run off
ts_assert_eq "write back" "$(jq -r .write_cache.sysfs "$TS_TMP/on.json")" "kernel write cache, cache=on"
ts_assert_eq "write through" "$(jq -r .write_cache.sysfs "$TS_TMP/off.json")" "kernel write cache, cache=off"
on=$(jq '.cells[] | select(.mode == "dsync") | .seconds' "$TS_TMP/on.json")
off=$(jq '.cells[] | select(.mode == "dsync") | .seconds' "$TS_TMP/off.json")
ts_log "dsync 64K x 16: cache=on ${on}s, cache=off ${off}s"
awk -v on="$on" 'BEGIN { exit !(on >= 0.4) }' ||
	ts_fail "dsync with the cache on took ${on}s, less than the 16 x 25ms the drive charges"
# an I/O error: exit 1 with the reason, the drive still torn down
ts_run_rc 1 "$ALIGNPROBE" seq -q --emulate="size=64M,fail=1024+8,fail-rw=w" --modes direct \
	--block-sizes 64K --size 1M --cell-time 0
grep -q 'Input/output error' "$TS_TMP/err" || ts_fail "no I/O error reported: $(cat "$TS_TMP/err")"
# --emulate tore its drives down: nothing left registered in the state directory
ts_assert_eq "" "$(ls -A "$ALIGNPROBE_STATE_DIR")" "resources left by seq --emulate"
ts_pass
