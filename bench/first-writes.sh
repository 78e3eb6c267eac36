#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# First-write units on QEMU's own qcow2 driver (issue 33), measured by fio
# and by the probe side by side, so that the ground truth is never our own
# model's: an overlay of a raw base image with 64 KiB clusters, served by
# qemu-storage-daemon's FUSE export and attached to a loop device, a fresh
# one for each measurement (a written cluster stays allocated).
#
# fio: first writes of 64 KiB (one at a time) into never-written space,
# each 128 KiB past the last one's end, aligned to the clusters and 4 KiB
# off them: median completion latency of each and their ratio, on the loop
# device the probe measures. Twice: O_DIRECT alone (the cost of allocating
# one cluster against two, measured at 1.6-2.3x on a loaded 2-core machine)
# and O_DIRECT|O_DSYNC as the probe writes (each write then waits for the
# image's flush to the host's disk, milliseconds that vary with the host's
# other I/O and can hide the allocation: 0.9x was seen). The probe: its verdict, its first-write figures and its time; with
# BENCH_BASE=path/to/an/older/alignprobe (d7e4e2c) that one too, on its own
# fresh image, right after.
#
#	bench/first-writes.sh	(root; ALIGNPROBE=path/to/alignprobe)
#	BENCH_BASE=/work/old/alignprobe bench/first-writes.sh
set -u
: "${ALIGNPROBE:=$(dirname "$0")/../alignprobe}"
export LC_ALL=C
[ "$(id -u)" = 0 ] || { echo "bench/first-writes.sh: needs root" >&2; exit 77; }
for c in qemu-img qemu-storage-daemon fio python3 losetup; do
	command -v "$c" >/dev/null || { echo "bench/first-writes.sh: needs $c" >&2; exit 77; }
done
tmp=$(mktemp -d /tmp/alignprobe-bench-fw.XXXXXX) || exit 1
export ALIGNPROBE_STATE_DIR=$tmp/state
loops=() pids=() mounts=()
cleanup() {
	local x
	for x in "${loops[@]}"; do losetup -d "$x" 2>/dev/null; done
	for x in "${mounts[@]}"; do umount "$x" 2>/dev/null; done
	for x in "${pids[@]}"; do kill "$x" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# export NAME: a fresh overlay served as $tmp/NAME.img, attached: prints the loop device
export_image() {
	local d=$tmp/$1 i
	mkdir -p "$d"
	qemu-img create -q -f raw "$d/base.raw" 512M
	qemu-img create -q -f qcow2 -o cluster_size=65536 -b "$d/base.raw" -F raw "$d/over.qcow2"
	: > "$tmp/$1.img"
	qemu-storage-daemon --blockdev "driver=file,node-name=f,filename=$d/over.qcow2" \
		--blockdev driver=qcow2,node-name=q,file=f \
		--export "type=fuse,id=e,node-name=q,mountpoint=$tmp/$1.img,writable=on" \
		> "$d/qsd.log" 2>&1 &
	pids+=($!)
	mounts+=("$tmp/$1.img")
	for i in $(seq 1 600); do
		grep -q " $tmp/$1.img fuse" /proc/self/mounts && break
		sleep 0.05
	done
	dev=$(losetup -f --show "$tmp/$1.img") || exit 1
	loops+=("$dev")
}

fio_median() {	# DEV OFFSET SYNC: median clat (us) of first writes of 64 KiB from OFFSET
	fio --name=fw --filename="$1" --direct=1 --sync="$3" --ioengine=psync --bs=64k \
		--rw=write:128k --offset="$2" --size=96M --output-format=json 2>/dev/null |
		python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]["write"]
print("%.0f" % (j["clat_ns"]["percentile"]["50.000000"] / 1000))'
}

for sync in none dsync; do
	export_image "fio-$sync"
	a=$(fio_median "$dev" 0 "$sync")
	m=$(fio_median "$dev" $((256 * 1024 * 1024 + 4096)) "$sync")
	printf 'fio, first writes of 64 KiB into fresh space, O_DIRECT%s: aligned %s us, 4 KiB off a cluster %s us: %s\n' \
		"$([ "$sync" = dsync ] && echo '|O_DSYNC')" "$a" "$m" \
		"$(python3 -c "print('%.2fx' % ($m / $a))")"
done

probe() {	# LABEL BINARY
	local t0 t1 rc
	export_image "$1"
	t0=$(date +%s.%N)
	"$2" probe --yes --json --time-budget 10m "$dev" > "$tmp/$1.json" 2> "$tmp/$1.err"
	rc=$?
	t1=$(date +%s.%N)
	python3 - "$tmp/$1.json" "$1" "$rc" "$t0" "$t1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); v = d["verdict"]; fw = d.get("first_writes") or {}
lv = ", ".join("%s %d from LBA %d (%s, %.1fx)" % (l["kind"], l["unit"], l["lowest_aligned_lba"],
               l["paid"], l["ratio"]) for l in v.get("levels") or [])
print("%-9s exit %s in %5.1f s: %s" % (sys.argv[2], sys.argv[3],
      float(sys.argv[5]) - float(sys.argv[4]), v.get("note")))
print("          levels: %s; first writes %s" % (lv or "none", json.dumps(
      {k: fw.get(k) for k in ("ratio", "unit", "lowest_aligned_lba", "unit_ratio", "seconds")})
      if fw else "not measured"))
PY
}
probe new "$ALIGNPROBE"
[ -n "${BENCH_BASE:-}" ] && probe base "$BENCH_BASE"
exit 0
