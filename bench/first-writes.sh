#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# First-write units on QEMU's own block drivers (issue 33), measured by fio
# and by the probe side by side, so that the ground truth is never our own
# model's: each image served by qemu-storage-daemon's FUSE export and
# attached to a loop device, a fresh one for each measurement (a written
# unit stays allocated). The images (IMAGES, FORMAT:UNIT[:backed] words):
# qcow2 overlays of a raw base with 64 KiB and 2 MiB clusters (the default
# and the largest), VDI (1 MiB blocks), VMDK (64 KiB grains), QED (64 KiB
# clusters, over a raw base), VHD (vpc: a dynamic disk's 2 MiB blocks), VHDX
# with 1 MiB blocks, and VHDX with 8 MiB blocks, above the 4 MiB the probe
# looks for by default (exit 5 there, unresolved, naming --max-size); 1 GiB
# each.
#
# fio: first writes of 64 KiB (one at a time, O_DIRECT|O_DSYNC as the
# probe writes) into never-written space, one every two units: inside one
# unit, from its start, and across a boundary (32 KiB before it, into two
# units); median completion latency of each and their ratio. A unit that
# costs on the first write makes the straddling write dearer: it allocates
# (and on a backed image copies) two units instead of one. The probe: its
# verdict's allocation unit, whether that is the image's, its exit status
# and time; with BENCH_BASE=path/to/an/older/alignprobe that one too, on
# its own fresh image, right after.
#
#	bench/first-writes.sh	(root; ALIGNPROBE=path/to/alignprobe)
#	BENCH_BASE=/work/old/alignprobe IMAGES="qcow2:65536:backed" bench/first-writes.sh
set -u
: "${ALIGNPROBE:=$(dirname "$0")/../alignprobe}"
: "${IMAGES:=qcow2:65536:backed qcow2:2097152:backed vdi:1048576 vmdk:65536 qed:65536:backed vpc:2097152 vhdx:1048576 vhdx:8388608}"
export LC_ALL=C
[ "$(id -u)" = 0 ] || { echo "bench/first-writes.sh: needs root" >&2; exit 77; }
for c in qemu-img qemu-storage-daemon fio python3 losetup; do
	command -v "$c" >/dev/null || { echo "bench/first-writes.sh: needs $c" >&2; exit 77; }
done
tmp=$(mktemp -d /tmp/alignprobe-bench-fw.XXXXXX) || exit 1
export ALIGNPROBE_STATE_DIR=$tmp/state
loops=() pids=() mounts=()
# detach, unmount and stop what this script attached, mounted and started
release() {
	local x
	for x in "${loops[@]}"; do losetup -d "$x" 2>/dev/null; done
	for x in "${mounts[@]}"; do umount "$x" 2>/dev/null; done
	for x in "${pids[@]}"; do kill "$x" 2>/dev/null; done
	wait 2>/dev/null
	loops=() pids=() mounts=()
}
cleanup() {
	release
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# export_image NAME FORMAT UNIT BACKED: a fresh image served as $tmp/NAME.img,
# attached: the loop device in $dev
export_image() {
	local d=$tmp/$1 i opt=
	mkdir -p "$d"
	case $2 in
	qcow2|qed) opt=cluster_size=$3 ;;
	vhdx) opt=block_size=$3 ;;
	esac
	if [ "$4" = backed ]; then
		qemu-img create -q -f raw "$d/base.raw" 1G
		qemu-img create -q -f "$2" ${opt:+-o "$opt"} -b "$d/base.raw" -F raw "$d/img"
	else
		qemu-img create -q -f "$2" ${opt:+-o "$opt"} "$d/img" 1G
	fi || exit 1
	: > "$tmp/$1.img"
	qemu-storage-daemon --blockdev "driver=file,node-name=f,filename=$d/img" \
		--blockdev "driver=$2,node-name=q,file=f" \
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

fio_median() {	# DEV OFFSET UNIT: median clat (us) of 48 first writes of 64 KiB, 2 units apart
	fio --name=fw --filename="$1" --direct=1 --sync=dsync --ioengine=psync --bs=64k \
		--rw=write:$((2 * $3 - 65536)) --offset="$2" --size=$((96 * $3)) \
		--output-format=json 2>/dev/null |
		python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]["write"]
print("%.0f" % (j["clat_ns"]["percentile"]["50.000000"] / 1000))'
}

probe() {	# LABEL BINARY FORMAT UNIT BACKED
	local t0 t1 rc
	local n=$1-$3-$4
	export_image "$n" "$3" "$4" "$5"
	t0=$(date +%s.%N)
	"$2" probe --yes --json --time-budget 10m "$dev" > "$tmp/$n.json" 2> "$tmp/$n.err"
	rc=$?
	t1=$(date +%s.%N)
	python3 - "$tmp/$n.json" "$1" "$rc" "$t0" "$t1" "$4" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except ValueError:
    print("  %-5s exit %s, no JSON" % (sys.argv[2], sys.argv[3])); sys.exit()
v = d["verdict"]; fw = d.get("first_writes") or {}; unit = int(sys.argv[6])
alloc = [l for l in v.get("levels") or [] if l["kind"] == "allocation"]
if alloc:
    a = alloc[0]
    what = "%d from LBA %d (%.1fx)%s" % (a["unit"], a["lowest_aligned_lba"], a["ratio"],
           "" if a["unit"] == unit and a["lowest_aligned_lba"] == 0 else "  ** NOT THE IMAGE'S **")
elif fw.get("unresolved"):
    what = "unresolved: " + fw["unresolved"]
elif (v.get("ruled_out") or {}).get("first_writes"):
    what = "first writes ruled out"
else:
    what = "none"
print("  %-5s exit %s in %5.1f s: allocation unit %s" % (sys.argv[2], sys.argv[3],
      float(sys.argv[5]) - float(sys.argv[4]), what))
PY
}

printf 'first-write units on QEMU %s, 64 KiB first writes (O_DIRECT|O_DSYNC), medians of 48\n' \
	"$(qemu-img --version | sed -n '1s/.*version \([^ ]*\).*/\1/p')"
for img in $IMAGES; do
	IFS=: read -r fmt unit backed <<< "$img"
	name=$fmt-$unit
	export_image "fio-$name" "$fmt" "$unit" "${backed:-}"
	a=$(fio_median "$dev" 0 "$unit")
	m=$(fio_median "$dev" $((512 * 1024 * 1024 + unit - 32768)) "$unit")
	printf '%s, %s-byte units%s: fio inside a unit %s us, across a boundary %s us: %s\n' \
		"$fmt" "$unit" "${backed:+ (over a raw base)}" "$a" "$m" \
		"$(python3 -c "print('%.2fx' % ($m / $a))")"
	probe new "$ALIGNPROBE" "$fmt" "$unit" "${backed:-}"
	[ -n "${BENCH_BASE:-}" ] && probe base "$BENCH_BASE" "$fmt" "$unit" "${backed:-}"
	release
done
exit 0
