#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/seq.sh: alignprobe seq against dd and fio, side by side in one run,
# on the same file with the same settings, the three tools interleaved in a
# shuffled order per cell and repetition (the machine may be noisy: the
# median of the repetitions is compared). Prints MB/s per tool and cell and
# the ratios alignprobe/fio and alignprobe/dd; target: >= 0.98 x fio in every
# cell. Then the data generator against reading /dev/urandom (target >= 20x).
#
#   bench/seq.sh [-b BUILDDIR] [-f FILE] [-r REPS] [-B "4K 64K 1M 16M"]
#                [-s FAST_SIZE] [-S SYNC_SIZE] [-m "none sync-after ..."]
#
# FILE (default /tmp/alignprobe-bench-seq.img) is created and removed.
# Buffered modes (none, sync-after, fdatasync) write FAST_SIZE (256M) per
# run, the per-block sync modes SYNC_SIZE (32M). Needs: dd, fio, jq, gcc.
#
# Equivalences (one cell = one tool run over the same region):
#   mode        dd                                    fio (psync)
#   none        conv=notrunc                          --direct=0
#   sync-after  conv=notrunc; sync -f FILE (timed)    (no equivalent)
#   fdatasync   conv=notrunc,fdatasync                --end_fsync=1
#   dsync       oflag=dsync                           --sync=dsync
#   sync        oflag=sync                            --sync=sync
#   direct      oflag=direct,dsync                    --direct=1 --sync=dsync
# dd writes /dev/zero (reading /dev/urandom would be the bottleneck), fio its
# random buffers, alignprobe its pre-generated random data. Before every dd
# and fio run the file is synced and its page cache dropped (alignprobe does
# that itself, untimed).
set -u
export LC_ALL=C

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILDDIR:-$top}
file=/tmp/alignprobe-bench-seq.img
reps=3
sizes="4K 64K 1M 16M"
fast_size=256M
sync_size=32M
modes="none sync-after fdatasync dsync sync direct"

while getopts "b:f:r:B:s:S:m:h" c; do
	case $c in
	b) build=$OPTARG ;;
	f) file=$OPTARG ;;
	r) reps=$OPTARG ;;
	B) sizes=$OPTARG ;;
	s) fast_size=$OPTARG ;;
	S) sync_size=$OPTARG ;;
	m) modes=$OPTARG ;;
	h) sed -n '3,30p' "$0"; exit 0 ;;
	*) exit 2 ;;
	esac
done
AP=${ALIGNPROBE:-$build/alignprobe}
for t in dd fio jq gcc numfmt shuf; do
	command -v $t >/dev/null || { echo "bench/seq.sh: needs $t" >&2; exit 2; }
done
[ -x "$AP" ] || { echo "bench/seq.sh: $AP not built (-b BUILDDIR)" >&2; exit 2; }
[ -e "$file" ] && { echo "bench/seq.sh: $file exists; not overwriting it" >&2; exit 2; }

tmp=$(mktemp -d /tmp/alignprobe-bench.XXXXXX) || exit 1
trap 'rm -rf "$tmp"; rm -f "$file"' EXIT
trap 'exit 130' INT TERM

bytes() { numfmt --from=iec "$1"; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (!NR) exit; if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
drop() { sync "$file"; dd if="$file" iflag=nocache count=0 status=none; }

size_of() {
	case $1 in none|sync-after|fdatasync) bytes "$fast_size" ;; *) bytes "$sync_size" ;; esac
}

# the file, fully written once (every tool then overwrites allocated blocks)
max=$(bytes "$fast_size")
[ "$(bytes "$sync_size")" -gt "$max" ] && max=$(bytes "$sync_size")
"$AP" seq -q --modes fdatasync --block-sizes 1M --size "$max" --keep -n -r "$file" >/dev/null ||
	{ echo "bench/seq.sh: cannot lay out $file" >&2; exit 1; }

run_ap() {	# mode bs size -> MB/s
	"$AP" seq -q --json --modes "$1" --block-sizes "$2" --size "$3" --cell-time 0 "$file" |
		jq '.cells[0].mbps'
}

run_dd() {	# mode bs size -> MB/s
	local bs=$(bytes "$2") flags=() t0 t1 out secs
	local n=$(($3 / bs))
	case $1 in
	none|sync-after) flags=(conv=notrunc) ;;
	fdatasync) flags=(conv=notrunc,fdatasync) ;;
	dsync) flags=(conv=notrunc oflag=dsync) ;;
	sync) flags=(conv=notrunc oflag=sync) ;;
	direct) flags=(conv=notrunc oflag=direct,dsync) ;;
	esac
	drop
	if [ "$1" = sync-after ]; then
		t0=$(date +%s%N)
		dd if=/dev/zero of="$file" bs="$bs" count="$n" "${flags[@]}" status=none
		sync -f "$file"
		t1=$(date +%s%N)
		awk -v b=$((n * bs)) -v ns=$((t1 - t0)) 'BEGIN { printf "%.1f\n", b * 1e3 / ns }'
		return
	fi
	out=$(dd if=/dev/zero of="$file" bs="$bs" count="$n" "${flags[@]}" 2>&1 >/dev/null | tail -1)
	secs=$(echo "$out" | sed -n 's/.*copied, \([0-9.e+-]*\) s.*/\1/p')
	awk -v b=$((n * bs)) -v s="$secs" 'BEGIN { printf "%.1f\n", b / s / 1e6 }'
}

run_fio() {	# mode bs size -> MB/s
	local opts=()
	case $1 in
	none) opts=(--direct=0) ;;
	sync-after) echo nan; return ;;
	fdatasync) opts=(--direct=0 --end_fsync=1) ;;
	dsync) opts=(--direct=0 --sync=dsync) ;;
	sync) opts=(--direct=0 --sync=sync) ;;
	direct) opts=(--direct=1 --sync=dsync) ;;
	esac
	drop
	fio --name=seq --filename="$file" --rw=write --bs="$2" --size="$3" --ioengine=psync \
		"${opts[@]}" --output-format=json 2>/dev/null |
		jq '.jobs[0].write | .io_bytes / .runtime / 1000 | . * 10 | round / 10'
}

echo "bench/seq.sh: $(date -u +%FT%TZ) file $file ($(df -T "$(dirname "$file")" | awk 'NR == 2 { print $1, $2 }')), reps $reps"
echo "  $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); fio $(fio --version), $(dd --version | head -1)"
for r in $(seq "$reps"); do
	for m in $modes; do
		size=$(size_of "$m")
		for bs in $sizes; do
			[ "$(bytes "$bs")" -le "$size" ] || continue
			for tool in $(printf '%s\n' ap dd fio | shuf); do
				v=$(run_$tool "$m" "$bs" "$size")
				echo "$v" >> "$tmp/$m.$bs.$tool"
			done
		done
	done
	echo "  round $r of $reps done" >&2
done

printf '\n%-11s %5s %6s %10s %10s %10s %8s %8s\n' MODE BS SIZE AP_MBPS FIO_MBPS DD_MBPS AP/FIO AP/DD
below=0
for m in $modes; do
	size=$(size_of "$m")
	for bs in $sizes; do
		[ -f "$tmp/$m.$bs.ap" ] || continue
		a=$(median < "$tmp/$m.$bs.ap")
		f=$(grep -v nan "$tmp/$m.$bs.fio" | median)
		d=$(median < "$tmp/$m.$bs.dd")
		rf=$(awk -v a="$a" -v f="$f" 'BEGIN { if (f == "" || f + 0 == 0) print "n/a"; else printf "%.3f", a / f }')
		rd=$(awk -v a="$a" -v d="$d" 'BEGIN { printf "%.3f", a / d }')
		mark=
		if [ "$rf" != n/a ] && awk -v r="$rf" 'BEGIN { exit !(r < 0.98) }'; then
			mark=" <0.98"
			below=$((below + 1))
		fi
		printf '%-11s %5s %6s %10.1f %10s %10.1f %8s %8s%s\n' "$m" "$bs" \
			"$(numfmt --to=iec "$size")" "$a" "${f:-n/a}" "$d" "$rf" "$rd" "$mark"
	done
done
echo "cells below 0.98 x fio: $below"

# the generator against /dev/urandom, interleaved
cat > "$tmp/gen.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "datagen.h"
int main(void)
{
	size_t n = 64 << 20, done = 0;
	unsigned char *b = aligned_alloc(4096, n);
	struct ap_datagen g;
	struct timespec a, c;
	double s;

	if (!b)
		return 1;
	ap_datagen_init(&g, AP_DATAGEN_RANDOM, 1);
	ap_datagen_fill(&g, b, n);	/* fault the buffer in */
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		ap_datagen_fill(&g, b, n);
		done += n;
		clock_gettime(CLOCK_MONOTONIC, &c);
		s = (double)(c.tv_sec - a.tv_sec) + (double)(c.tv_nsec - a.tv_nsec) / 1e9;
	} while (s < 1.0);
	printf("%.1f\n", (double)done / s / 1e6);
	free(b);
	return 0;
}
EOF
gcc -O2 -I"$top/src" "$tmp/gen.c" "$build/libalignprobe.a" -o "$tmp/gen" ||
	{ echo "bench/seq.sh: cannot build the generator probe against $build/libalignprobe.a" >&2; exit 1; }
for r in 1 2 3; do
	"$tmp/gen" >> "$tmp/gen.rate"
	dd if=/dev/urandom of=/dev/null bs=1M count=256 2>&1 | tail -1 |
		sed -n 's/.*copied, \([0-9.e+-]*\) s.*/\1/p' |
		awk '{ printf "%.1f\n", 256 * 1048576 / $1 / 1e6 }' >> "$tmp/urandom.rate"
done
g=$(median < "$tmp/gen.rate")
u=$(median < "$tmp/urandom.rate")
printf '\ngenerator (ap_datagen_fill, 64 MiB buffer): %.1f MB/s; /dev/urandom (dd bs=1M): %.1f MB/s; ratio %.1fx (target >= 20x)\n' \
	"$g" "$u" "$(awk -v g="$g" -v u="$u" 'BEGIN { print g / u }')"
