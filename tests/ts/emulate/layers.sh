#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The layered volumes of the emulated drive (issue 33), seen in its
# counters after known O_DIRECT writes at aligned and misaligned offsets:
# a parity RAID volume's full-stripe writes and partial stripes (and its
# members' own read-modify-writes), a controller's cache absorbing them, a
# thin volume's first writes (mapped, copied from the backing), its full
# pool answering ENOSPC, and what a volume claims (minimum and optimal
# I/O size) as alignprobe reads the device's topology. Counters, not
# timing.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "layered volumes: RAID stripes, controller cache, thin units"
ts_need_emulator
ts_need_cmd dd

# counters DEV COLUMN...: the counters, space-separated
counters() {
	local dev=$1 cols
	shift
	cols=$(IFS=,; echo "$*")
	"$ALIGNPROBE" emulate --stats "$dev" -n -r -o "$cols" | tr -s ' ' ||
		ts_fail "emulate --stats $dev failed"
}

# wr DEV BYTES OFFSET: one O_DIRECT write of BYTES at byte OFFSET
wr() {
	dd if=/dev/zero of="$1" bs="$2" count=1 seek="$3" oflag=direct,seek_bytes \
		conv=notrunc status=none
}

reset() {
	"$ALIGNPROBE" emulate --reset-stats "$1" || ts_fail "reset-stats $1 failed"
}

detach() {
	"$ALIGNPROBE" emulate --detach "$1" || ts_fail "detach $1 failed"
	sed -i "\|^$1\$|d" "$TS_TMP/.emus"
}

# the kernel topology alignprobe reads: "MINIMUM_IO OPTIMAL_IO"
claims() {
	"$ALIGNPROBE" check -v "$1" 2> /dev/null |
		awk '/^minimum I\/O/ {min = $3} /^optimal I\/O/ {opt = $3} END {print min, opt}'
}

K=1024

ts_subtest raid5-stripes
dev=$(ts_emu_attach --profile raid5-4x64k --size 64M)
reset "$dev"
# a whole 192 KiB stripe (the second one: 192 KiB is no power of two)
wr "$dev" $((192 * K)) $((192 * K)) || ts_fail "stripe write failed"
ts_assert_eq "1 0 0" "$(counters "$dev" FULL_STRIPES STRIPE_RMW RMW)" "a whole stripe"
# the same size a chunk off: the ends of two stripes, read-modify-written
wr "$dev" $((192 * K)) $((256 * K)) || ts_fail "misaligned stripe write failed"
ts_assert_eq "1 2 0" "$(counters "$dev" FULL_STRIPES STRIPE_RMW RMW)" "a stripe a chunk off"
# 4 KiB, aligned: a partial stripe; 512 bytes off: the members' 4096-byte
# sectors too, two on the data member and two on the parity member
wr "$dev" 4096 $((1024 * K)) || ts_fail "4 KiB write failed"
ts_assert_eq "1 3 0" "$(counters "$dev" FULL_STRIPES STRIPE_RMW RMW)" "4 KiB aligned"
wr "$dev" 4096 $((1024 * K + 512)) || ts_fail "misaligned 4 KiB write failed"
ts_assert_eq "1 4 4 4" "$(counters "$dev" FULL_STRIPES STRIPE_RMW RMW WRITES)" "4 KiB misaligned"
# a hardware controller claims nothing; the loop device reports write through
ts_assert_eq "512 0" "$(claims "$dev")" "raid5-4x64k: claims"
ts_assert_eq "write through" "$(cat "/sys/block/${dev#/dev/}/queue/write_cache")" "cache mode"
detach "$dev"

ts_subtest raid6-stripes
dev=$(ts_emu_attach --profile raid6-6x128k --size 64M)
reset "$dev"
wr "$dev" $((512 * K)) $((512 * K)) || ts_fail "stripe write failed"
ts_assert_eq "1 0" "$(counters "$dev" FULL_STRIPES STRIPE_RMW)" "a whole 512 KiB stripe"
wr "$dev" $((512 * K)) $((1024 * K + 128 * K)) || ts_fail "misaligned stripe write failed"
ts_assert_eq "1 2" "$(counters "$dev" FULL_STRIPES STRIPE_RMW)" "a stripe a chunk off"
# honest 512n members: no member read-modify-write however misaligned
wr "$dev" 4096 $((2048 * K + 512)) || ts_fail "misaligned 4 KiB write failed"
ts_assert_eq "3 0" "$(counters "$dev" STRIPE_RMW RMW)" "4 KiB misaligned"
# md's claims: the chunk and the stripe
ts_assert_eq "131072 524288" "$(claims "$dev")" "raid6-6x128k: claims"
detach "$dev"

ts_subtest raid5-bbu-cache
dev=$(ts_emu_attach --profile raid5-bbu --size 64M)
reset "$dev"
# acknowledged from the controller's cache; its destage (a partial
# stripe) starts at once; rewrites of what is still dirty are absorbed
wr "$dev" 4096 $((4 * K)) || ts_fail "write failed"
ts_assert_eq "1 0 1" "$(counters "$dev" CACHE_ABSORBED CACHE_WAITS STRIPE_RMW)" "one write"
for i in 1 2 3 4 5; do
	wr "$dev" 4096 $((i * 192 * K + 512)) || ts_fail "write $i failed"
done
ts_assert_eq "6 0" "$(counters "$dev" CACHE_ABSORBED CACHE_WAITS)" "512 MiB never fill"
detach "$dev"

ts_subtest thin-64k-first-writes
dev=$(ts_emu_attach --profile thin-64k --size 64M)
reset "$dev"
# a whole unit: mapped, nothing copied
wr "$dev" $((64 * K)) 0 || ts_fail "unit write failed"
ts_assert_eq "1 0" "$(counters "$dev" THIN_ALLOCS COW)" "a whole unit"
# 4 KiB, 4 KiB into a fresh unit: mapped, the rest copied from the backing
wr "$dev" 4096 $((68 * K)) || ts_fail "4 KiB write failed"
ts_assert_eq "2 1" "$(counters "$dev" THIN_ALLOCS COW)" "4 KiB into a fresh unit"
# the rewrite: neither
wr "$dev" 4096 $((68 * K)) || ts_fail "rewrite failed"
ts_assert_eq "2 1 3" "$(counters "$dev" THIN_ALLOCS COW WRITES)" "a rewrite"
# 64 KiB a unit's half off: unit 1 is mapped, unit 2 copies its other half
wr "$dev" $((64 * K)) $((96 * K)) || ts_fail "straddling write failed"
ts_assert_eq "3 2" "$(counters "$dev" THIN_ALLOCS COW)" "64 KiB across two units"
detach "$dev"

ts_subtest thin-1m-first-writes
dev=$(ts_emu_attach --profile thin-1m --size 64M)
reset "$dev"
# 512 KiB (the loop device's largest request) never covers a 1 MiB unit
wr "$dev" $((512 * K)) $((1024 * K)) || ts_fail "write failed"
wr "$dev" $((512 * K)) $((1536 * K)) || ts_fail "write failed"
ts_assert_eq "1 1" "$(counters "$dev" THIN_ALLOCS COW)" "1 MiB unit in two writes"
wr "$dev" 4096 $((4096 * K + 4096)) || ts_fail "write failed"
ts_assert_eq "2 2" "$(counters "$dev" THIN_ALLOCS COW)" "4 KiB into a fresh unit"
detach "$dev"

# a pool of two 64 KiB units: the third unit's first write fails with
# ENOSPC (dd says so), mapped units stay writable
ts_subtest thin-pool-full
dev=$(ts_emu_attach --spec thin-64k,size=64M,thin-pool=128K)
reset "$dev"
wr "$dev" 4096 0 && wr "$dev" 4096 $((1024 * K)) || ts_fail "writes into the pool failed"
dd if=/dev/zero of="$dev" bs=4096 count=1 seek=$((2048 * K)) oflag=direct,seek_bytes \
	conv=notrunc status=none 2> "$TS_TMP/dd.err" && ts_fail "a write past the pool succeeded"
grep -q "No space left on device" "$TS_TMP/dd.err" ||
	ts_fail "a full pool: not ENOSPC: $(cat "$TS_TMP/dd.err")"
wr "$dev" 4096 $((8 * K)) || ts_fail "a mapped unit: write failed"
ts_assert_eq "2 1 1 3" "$(counters "$dev" THIN_ALLOCS NOSPC ERRORS WRITES)" "a full pool"
detach "$dev"

ts_pass
