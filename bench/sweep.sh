#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Time to a correct verdict: `alignprobe sweep --emulate` on the embedded
# default drive (4096-byte sectors hidden behind 512-byte reports, lowest
# aligned LBA 0, 8 ms read-modify-write, 30 % jitter) with the quick preset,
# next to the classic method: 31 starts x (parted, mkfs.ext4, mount, a
# 10-minute PostMark run, by eye) = 5 h 10 min.
#
#   bench/sweep.sh [RUNS]          (default 1; as root; ALIGNPROBE=path)
#
# A run counts only when the verdict is right: physical sector 4096, lowest
# aligned LBA 0, fast starts 40 48 56 64.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
AP=${ALIGNPROBE:-$top/alignprobe}
RUNS=${1:-1}
PY=$(command -v /usr/bin/python3 || command -v python3) || { echo "bench: needs python3" >&2; exit 2; }
[ -x "$AP" ] || { echo "bench: $AP not built" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "bench: needs root (loop devices, FUSE, mount)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/alignprobe-bench.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
export ALIGNPROBE_STATE_DIR=$tmp/state

classic=$((31 * 600))
printf 'sweep benchmark: alignprobe sweep --emulate (phys=4096,lba=0,rmw=8ms,jitter=30%%), quick preset\n'
printf 'load average before: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
ok=0 total=0
for i in $(seq "$RUNS"); do
	t0=$(date +%s.%N)
	"$AP" sweep --emulate --seed "$i" -q --json > "$tmp/out.json" 2> "$tmp/err"
	rc=$?
	t1=$(date +%s.%N)
	secs=$(echo "$t1 - $t0" | bc)
	verdict=$("$PY" -c 'import json, sys
d = json.load(open(sys.argv[1])); v = d["verdict"]
right = v["sensitive"] and v["physical_sector"] == 4096 and v["lowest_aligned_lba"] == 0 and v["fast_starts"] == [40, 48, 56, 64]
print("%s %d %s %.1f %.2g" % ("correct" if right else "WRONG", len(d["results"]), d["stopped"], v["slowdown"], v["p_value"]))' "$tmp/out.json" 2>/dev/null || echo "none 0 - 0 1")
	set -- $verdict
	printf 'run %d: exit %d, %.1f s, verdict %s (%s measurements, stopped: %s, slowdown %sx, p %s)\n' \
		"$i" "$rc" "$secs" "$1" "$2" "$3" "$4" "$5"
	[ "$rc" = 0 ] && [ "$1" = correct ] && { ok=$((ok + 1)); total=$(echo "$total + $secs" | bc); }
	[ "$rc" = 0 ] || cat "$tmp/err" >&2
done
[ $ok -gt 0 ] || { echo "bench: no correct verdict" >&2; exit 1; }
mean=$(echo "scale=1; $total / $ok" | bc)
printf 'time to a correct verdict: %s s (mean of %d correct runs of %d)\n' "$mean" "$ok" "$RUNS"
printf 'classic method: 31 starts x 10 min PostMark = %d s (5 h 10 min), by eye\n' "$classic"
printf 'ratio: %.0fx faster\n' "$(echo "$classic / $mean" | bc -l)"
printf 'load average after: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
