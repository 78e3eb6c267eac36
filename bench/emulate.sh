#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The test rig's own overhead: aligned 4 KiB O_DIRECT writes per second
# through the emulated drive with every cost set to zero, side by side with
# the same writes to a plain loop device on a regular file. Rounds alternate
# (emulated, plain, emulated, ...) so drift hits both; medians are printed
# with their ratio.
#
#	bench/emulate.sh [ROUNDS [SECONDS]]	(root; ALIGNPROBE=path/to/alignprobe)
set -u
rounds=${1:-5}
secs=${2:-3}
: "${ALIGNPROBE:=$(dirname "$0")/../alignprobe}"
export LC_ALL=C

[ "$(id -u)" = 0 ] || { echo "bench/emulate.sh: needs root" >&2; exit 77; }
command -v fio >/dev/null || { echo "bench/emulate.sh: needs fio" >&2; exit 77; }
[ -x "$ALIGNPROBE" ] || { echo "bench/emulate.sh: $ALIGNPROBE not built" >&2; exit 99; }

tmp=$(mktemp -d /tmp/alignprobe-bench-emu.XXXXXX) || exit 1
export ALIGNPROBE_STATE_DIR=$tmp/state
emu= loop=
cleanup() {
	[ -n "$emu" ] && "$ALIGNPROBE" emulate --detach "$emu"
	[ -n "$loop" ] && losetup -d "$loop"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

emu=$("$ALIGNPROBE" emulate --attach --size 256M --phys 4096 --rmw-cost 0 --base-cost 0) ||
	{ echo "bench/emulate.sh: emulate --attach failed" >&2; exit 1; }
truncate -s 256M "$tmp/plain.img"
loop=$(losetup -f --show "$tmp/plain.img") || { echo "bench/emulate.sh: losetup failed" >&2; exit 1; }

# iops DEV: aligned 4 KiB O_DIRECT random writes for $secs seconds, one at a time
iops() {
	fio --name=rig --filename="$1" --rw=randwrite --bs=4k --direct=1 --ioengine=psync \
		--iodepth=1 --size=64M --time_based --runtime="$secs" --output-format=json 2>/dev/null |
		python3 -c 'import json,sys; print(int(json.load(sys.stdin)["jobs"][0]["write"]["iops"]))'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

: > "$tmp/emu"; : > "$tmp/plain"
for r in $(seq "$rounds"); do
	iops "$emu" >> "$tmp/emu"
	iops "$loop" >> "$tmp/plain"
done
e=$(median < "$tmp/emu")
p=$(median < "$tmp/plain")
"$ALIGNPROBE" emulate --stats "$emu" -o DEVICE,WRITES,RMW,BUSY_NS
printf 'aligned 4K O_DIRECT writes/s (median of %d x %ss): emulated %d, plain loop %d\n' \
	"$rounds" "$secs" "$e" "$p"
awk -v e="$e" -v p="$p" 'BEGIN { printf "rig overhead: plain/emulated = %.2fx, %.1f us per request through FUSE vs %.1f us\n", p / e, 1e6 / e, 1e6 / p }'
