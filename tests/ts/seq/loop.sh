#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# seq on a loop device: the full matrix with the read cells, the write cache
# state, the safety gate (no confirmation without --yes, a mounted device
# refused with exit 3, --dry-run) and what ends up on the device.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "seq on a loop device"
ts_need_loop
ts_need_cmd jq mkfs.ext4

ts_image "$TS_TMP/a.img" 32M
dev=$(ts_loop_attach "$TS_TMP/a.img")
sum0=$(ts_checksum "$dev")

# no --yes and no terminal: refused, nothing written
ts_run_rc 3 "$ALIGNPROBE" seq -q --size 1M "$dev" < /dev/null
ts_assert_eq "$sum0" "$(ts_checksum "$dev")" "device after a refused run"
# --dry-run: the plan, nothing written
ts_run_rc 0 "$ALIGNPROBE" seq --dry-run --size 1M --block-sizes 4K,1M "$dev"
grep -q 'nothing was written' "$TS_TMP/out" || ts_fail "--dry-run says nothing"
ts_assert_eq "$sum0" "$(ts_checksum "$dev")" "device after --dry-run"
# beyond the end: exit 2 before anything is written
ts_run_rc 2 "$ALIGNPROBE" seq -q --yes --size 64M "$dev"
ts_assert_eq "$sum0" "$(ts_checksum "$dev")" "device after a refused size"

# the matrix, reads included
ts_run_rc 0 "$ALIGNPROBE" seq -q --yes --json --read --verify --size 1M \
	--block-sizes 16K,256K,1M --cell-time 0 "$dev"
out=$TS_TMP/out
ts_assert_eq "$dev" "$(jq -r .target "$out")" "target"
ts_assert_eq device "$(jq -r .type "$out")" "type"
ts_assert_eq 24 "$(jq '.cells | length' "$out")" "8 modes x 3 block sizes"
ts_assert_eq 0 "$(jq '[.cells[] | select(.bytes != 1048576 or .runs != 1)] | length' "$out")" "full cells"
ts_assert_eq 64 "$(jq '[.cells[] | select(.mode == "dsync" and .bs == 16384)][0].ios' "$out")" "ios of dsync 16K"
ts_assert_eq 2 "$(jq '[.cells[] | select(.op == "read" and .bs == 262144)] | length' "$out")" "read cells"
ts_assert_eq "$(cat /sys/block/${dev#/dev/}/queue/write_cache)" "$(jq -r .write_cache.sysfs "$out")" \
	"write cache state from sysfs"
jq -e '.write_cache.drive | startswith("not available")' "$out" >/dev/null ||
	ts_fail "a loop device answers no SG_IO write cache query: $(jq -r .write_cache.drive "$out")"
ts_assert_eq 8 "$(jq '.knees | length' "$out")" "knees"

# what is on the device: zeros over the first 1M (after random data), the rest intact
ts_run_rc 0 "$ALIGNPROBE" seq -q --yes --size 1M --block-sizes 1M --modes direct --data zero "$dev"
ts_assert_eq "$(head -c 1M /dev/zero | sha256sum)" "$(head -c 1M "$dev" | sha256sum)" "first MiB"
ts_assert_eq "$(head -c 31M /dev/zero | sha256sum)" "$(tail -c +1048577 "$dev" | sha256sum)" \
	"after the region (still the sparse image's zeros)"

# a partition: refused without --allow-partition; with it, the writes land inside it
ts_need_cmd parted
head -c 32M /dev/urandom > "$TS_TMP/p.img"
after=$(tail -c +2097153 "$TS_TMP/p.img" | head -c 7M | sha256sum)
pdev=$(ts_loop_attach "$TS_TMP/p.img")
parted -s "$pdev" mklabel gpt mkpart p1 1MiB 9MiB || ts_fail "parted $pdev"
ts_wait_node "${pdev}p1" || ts_fail "no partition ${pdev}p1"
ts_run_rc 3 "$ALIGNPROBE" seq -q --yes --size 1M "${pdev}p1"
ts_run_rc 0 "$ALIGNPROBE" seq -q --yes --allow-partition --size 1M --block-sizes 1M --modes direct \
	--data zero "${pdev}p1"
ts_assert_eq "$(head -c 1M /dev/zero | sha256sum)" "$(tail -c +1048577 "$pdev" | head -c 1M | sha256sum)" \
	"the partition's first MiB (the disk's second, random before)"
ts_assert_eq "$after" "$(tail -c +2097153 "$pdev" | head -c 7M | sha256sum)" "the rest of the partition"

# a mounted device: refused with exit 3, untouched
ts_image "$TS_TMP/b.img" 32M
mdev=$(ts_loop_attach "$TS_TMP/b.img")
mkfs.ext4 -q -F "$mdev" >/dev/null 2>&1 || ts_fail "mkfs.ext4 $mdev"
ts_mount "$mdev" "$TS_TMP/mnt" -o ro,noload	# read-only: its bytes stay put
msum=$(ts_checksum "$mdev")
ts_run_rc 3 "$ALIGNPROBE" seq -q --yes --size 1M "$mdev"
grep -qi 'mount' "$TS_TMP/err" || ts_fail "the refusal does not say mounted: $(cat "$TS_TMP/err")"
ts_assert_eq "$msum" "$(ts_checksum "$mdev")" "mounted device after the refusal"
ts_pass
