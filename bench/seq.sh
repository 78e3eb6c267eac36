#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/seq.sh: alignprobe seq against fio and dd, side by side in one run,
# on the same file with the same settings. The cells run one after the
# other, each first with one untimed dd run, then REPS repetitions in which
# the three tools run back to back, each repetition in the next of the 6
# orders of the tools (shuffled per cell; with REPS a multiple of 6 every
# tool runs as often in each position and before each other tool), so
# that each repetition gives one PAIRED ratio alignprobe/fio taken under
# the same machine state; the cell reports the median of those ratios with a
# distribution-free 95% interval (order statistics, sign test) and how many
# repetitions alignprobe won. Target: >= 0.98 x fio in every cell. Then the
# data generator against reading /dev/urandom (target >= 20x).
#
# The untimed run puts every tool after a run of the same cell: with the
# cells interleaved per repetition, the buffered large-block cells had a
# slow mode, hitting whichever tool came first (none 1M, 256M: 5 of 30 runs
# in 0.13-0.15 s instead of 0.03 s, 4 of them the first of their cell;
# with the untimed run, 4 of 30, all fio's).
#
#   bench/seq.sh [-b BUILDDIR] [-f FILE] [-r REPS] [-B "4K 64K 1M 16M"]
#                [-s FAST_SIZE] [-S SYNC_SIZE] [-m "none sync-after ..."]
#                [-t "ap fio dd"]
#
# FILE (default /tmp/alignprobe-bench-seq.img) is created and removed.
# Buffered modes (none, sync-after, fdatasync) write FAST_SIZE (256M) per
# run, the per-block sync modes SYNC_SIZE (16M). REPS defaults to 12 (the
# 95% interval of a median needs at least 6; the position of a run in its
# repetition moved buffered runs by up to 6%, hence the balanced orders).
# -t leaves tools out (ap and fio are needed for the ratios). SEQ_BENCH_RUNS=FILE keeps every run
# ("REP MODE BS TOOL MBPS SECONDS POSITION END_TIME"). Needs: dd, fio, jq, gcc.
#
# Equivalences (one cell = one tool run over the same region):
#   mode        dd                                    fio (psync)
#   none        conv=notrunc                          --direct=0
#   sync-after  conv=notrunc; sync -f FILE (timed)    (no equivalent)
#   fdatasync   conv=notrunc,fdatasync                --end_fsync=1 (fsync)
#   dsync       oflag=dsync                           --sync=dsync
#   sync        oflag=sync                            --sync=sync
#   direct      oflag=direct,dsync                    --direct=1 --sync=dsync
#
# What is timed, and where the tools necessarily differ (checked with
# strace -f -tt on one cell of each):
# - alignprobe: from open(2) to the return of close(2), the mode's final
#   fdatasync included; CLOCK_MONOTONIC, nanoseconds.
# - fio: .jobs[0].write.runtime, from just before its open(2) (plus the
#   fadvise(DONTNEED/SEQUENTIAL) it does there) to the return of the
#   end_fsync; its close is after. fio rounds it UP to whole milliseconds,
#   so the elapsed time is runtime - 0.5 ms +- 0.5 ms (used here; the
#   FIO_MS column shows how much that matters). fio has no end-of-job
#   fdatasync (--fdatasync=N syncs only between writes): its fdatasync
#   cell ends with fsync(2), which on an overwrite may also commit the
#   mtime, a journal commit more than alignprobe's and dd's fdatasync.
# - The first copy of a freshly faulted user page by the kernel is slow in
#   a guest on shadow page tables (here a PVM guest: about 1-2 ms per MiB).
#   alignprobe passes its data pool through a pipe once, untimed; fio's
#   first write of its block buffer pays it inside its runtime, which
#   flatters alignprobe in the 1M and 16M cells of the fast modes (none
#   16M: about 30 ms on top of some 27 ms). dd pays it like fio.
# - dd: its own figure (from after its open to after conv=fdatasync);
#   sync-after is timed from outside, the sync included.
# - Data: dd writes /dev/zero (reading /dev/urandom would be the
#   bottleneck), fio its random buffer (lightly scrambled per write),
#   alignprobe its pre-generated random pool.
# - File state: FILE is written once in full (alignprobe, fdatasync) before
#   the first run, so every run of every tool overwrites allocated, written
#   blocks: alignprobe does not lay out an already written region again,
#   fio neither truncates nor lays out an existing file of sufficient size
#   and dd runs with conv=notrunc. Before every run of every tool the file
#   is synced and its page cache dropped, untimed (alignprobe does the same
#   again itself).
set -u
export LC_ALL=C

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILDDIR:-$top}
file=/tmp/alignprobe-bench-seq.img
reps=12
sizes="4K 64K 1M 16M"
fast_size=256M
sync_size=16M
modes="none sync-after fdatasync dsync sync direct"
tools="ap fio dd"
target=0.98

while getopts "b:f:r:B:s:S:m:t:h" c; do
	case $c in
	b) build=$OPTARG ;;
	f) file=$OPTARG ;;
	r) reps=$OPTARG ;;
	B) sizes=$OPTARG ;;
	s) fast_size=$OPTARG ;;
	S) sync_size=$OPTARG ;;
	m) modes=$OPTARG ;;
	t) tools=$OPTARG ;;
	h) sed -n '3,72p' "$0"; exit 0 ;;
	*) exit 2 ;;
	esac
done
AP=${ALIGNPROBE:-$build/alignprobe}
for t in dd fio jq gcc numfmt shuf; do
	command -v $t >/dev/null || { echo "bench/seq.sh: needs $t" >&2; exit 2; }
done
[ -x "$AP" ] || { echo "bench/seq.sh: $AP not built (-b BUILDDIR)" >&2; exit 2; }
[ -e "$file" ] && { echo "bench/seq.sh: $file exists; not overwriting it" >&2; exit 2; }
case " $tools " in *" ap "*) ;; *) tools= ;; esac
case " $tools " in *" fio "*) ;; *) tools= ;; esac
[ -n "$tools" ] || { echo "bench/seq.sh: -t needs ap and fio" >&2; exit 2; }

tmp=$(mktemp -d /tmp/alignprobe-bench.XXXXXX) || exit 1
trap 'rm -rf "$tmp"; rm -f "$file"' EXIT
trap 'exit 130' INT TERM

bytes() { numfmt --from=iec "$1"; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (!NR) exit; if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
drop() { sync "$file"; dd if="$file" iflag=nocache count=0 status=none; }

# every order of the words given, one per line
perms() {
	local x i rest
	if [ $# -le 1 ]; then
		echo "$*"
		return
	fi
	for x in "$@"; do
		rest=()
		for i in "$@"; do
			[ "$i" = "$x" ] || rest+=("$i")
		done
		perms "${rest[@]}" | sed "s/^/$x /"
	done
}

size_of() {
	case $1 in none|sync-after|fdatasync) bytes "$fast_size" ;; *) bytes "$sync_size" ;; esac
}

# the file, fully written once (every tool then overwrites allocated blocks)
max=$(bytes "$fast_size")
[ "$(bytes "$sync_size")" -gt "$max" ] && max=$(bytes "$sync_size")
"$AP" seq -q --modes fdatasync --block-sizes 1M --size "$max" --keep -n -r "$file" >/dev/null ||
	{ echo "bench/seq.sh: cannot lay out $file" >&2; exit 1; }

# Every run_TOOL prints "MBPS SECONDS" (10^6 bytes/s, the time it counted).
run_ap() {	# mode bs size
	"$AP" seq -q --json --modes "$1" --block-sizes "$2" --size "$3" --cell-time 0 "$file" |
		jq -r '.cells[0] | "\(.mbps) \(.seconds)"'
}

run_dd() {	# mode bs size
	local bs=$(bytes "$2") flags=() t0 t1 out secs
	local n=$(($3 / bs))
	case $1 in
	none|sync-after) flags=(conv=notrunc) ;;
	fdatasync) flags=(conv=notrunc,fdatasync) ;;
	dsync) flags=(conv=notrunc oflag=dsync) ;;
	sync) flags=(conv=notrunc oflag=sync) ;;
	direct) flags=(conv=notrunc oflag=direct,dsync) ;;
	esac
	if [ "$1" = sync-after ]; then
		t0=$(date +%s%N)
		dd if=/dev/zero of="$file" bs="$bs" count="$n" "${flags[@]}" status=none
		sync -f "$file"
		t1=$(date +%s%N)
		awk -v b=$((n * bs)) -v ns=$((t1 - t0)) 'BEGIN { printf "%.1f %.6f\n", b * 1e3 / ns, ns / 1e9 }'
		return
	fi
	out=$(dd if=/dev/zero of="$file" bs="$bs" count="$n" "${flags[@]}" 2>&1 >/dev/null | tail -1)
	secs=$(echo "$out" | sed -n 's/.*copied, \([0-9.e+-]*\) s.*/\1/p')
	awk -v b=$((n * bs)) -v s="$secs" 'BEGIN { printf "%.1f %s\n", b / s / 1e6, s }'
}

run_fio() {	# mode bs size
	local opts=()
	case $1 in
	none) opts=(--direct=0) ;;
	sync-after) echo "nan nan"; return ;;
	fdatasync) opts=(--direct=0 --end_fsync=1) ;;
	dsync) opts=(--direct=0 --sync=dsync) ;;
	sync) opts=(--direct=0 --sync=sync) ;;
	direct) opts=(--direct=1 --sync=dsync) ;;
	esac
	# runtime is rounded up to whole ms: the elapsed time is runtime - 0.5 ms
	fio --name=seq --filename="$file" --rw=write --bs="$2" --size="$3" --ioengine=psync \
		"${opts[@]}" --output-format=json 2>/dev/null |
		jq -r '.jobs[0].write | ((.runtime - 0.5) / 1000) as $s |
			"\(.io_bytes / $s / 1e6) \($s)"'
}

echo "bench/seq.sh: $(date -u +%FT%TZ) file $file ($(df -T "$(dirname "$file")" | awk 'NR == 2 { print $1, $2 }')), reps $reps"
echo "  $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); fio $(fio --version), $(dd --version | head -1)"
t_start=$(date +%s)
for m in $modes; do
	size=$(size_of "$m")
	for bs in $sizes; do
		[ "$(bytes "$bs")" -le "$size" ] || continue
		# one untimed run first: the page allocator then holds what this
		# cell's writes free and reuse, whichever tool comes first
		drop
		run_dd "$m" "$bs" "$size" > /dev/null
		mapfile -t order < <(perms $tools | shuf)
		for r in $(seq "$reps"); do
			pos=0
			for tool in ${order[(r - 1) % ${#order[@]}]}; do
				drop
				pos=$((pos + 1))
				v=$(run_$tool "$m" "$bs" "$size")
				echo "$r $m $bs $tool ${v:-nan nan} $pos $(date +%s.%N)" >> "$tmp/runs"
			done
		done
		echo "  $m $bs done ($(($(date +%s) - t_start)) s, load $(cut -d' ' -f1 /proc/loadavg))" >&2
	done
done
echo "  $(($(date +%s) - t_start)) s of runs, load $(cut -d' ' -f1-3 /proc/loadavg)"

# One row per cell: medians per tool, the median of the paired ratios
# ap/fio with its 95% interval [x(a), x(n+1-a)] (a: the largest with
# 2 P(Bin(n, 1/2) < a) <= 0.05; with n < 6 no such a exists and the whole
# range is shown, marked ~), the repetitions alignprobe won, a verdict.
awk -v modes="$modes" -v sizes="$sizes" -v fast="$(bytes "$fast_size")" \
    -v syncsz="$(bytes "$sync_size")" -v target="$target" '
function isort(a, n,   i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
}
function med(a, n) { return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
# largest a with 2 P(B <= a - 1) <= 0.05, B ~ Bin(n, 1/2); 0 when none
function ci_a(n,   j, p, cum) {
	p = 0.5 ^ n; cum = 0
	for (j = 0; j <= n; j++) {
		cum += p
		if (2 * cum > 0.05)
			return j
		p = p * (n - j) / (j + 1)
	}
	return 0
}
function hsize(b) {
	if (b >= 1073741824 && b % 1073741824 == 0) return b / 1073741824 "G"
	if (b >= 1048576 && b % 1048576 == 0) return b / 1048576 "M"
	if (b >= 1024 && b % 1024 == 0) return b / 1024 "K"
	return b
}
$5 != "nan" { v[$2, $3, $4, $1] = $5; s[$2, $3, $4, $1] = $6; rep[$1] = 1; seen[$2, $3] = 1 }
END {
	nrep = 0
	for (r in rep) if (r + 0 > nrep) nrep = r + 0
	printf "\n%-10s %4s %5s %9s %9s %9s %7s %6s %-13s %5s %-7s %6s\n", "MODE", "BS", "SIZE",
		"AP_MBPS", "FIO_MBPS", "DD_MBPS", "FIO_MS", "AP/FIO", "CI95", "WON", "VERDICT", "AP/DD"
	nm = split(modes, M, " "); nb = split(sizes, B, " ")
	for (i = 1; i <= nm; i++) for (j = 1; j <= nb; j++) {
		m = M[i]; b = B[j]
		if (!((m, b) in seen)) continue
		na = nf = nd = nr = nrd = won = 0
		delete A; delete F; delete D; delete R; delete RD; delete FT
		for (r = 1; r <= nrep; r++) {
			if ((m, b, "ap", r) in v) A[++na] = v[m, b, "ap", r]
			if ((m, b, "fio", r) in v) { F[++nf] = v[m, b, "fio", r]; FT[nf] = s[m, b, "fio", r] * 1000 }
			if ((m, b, "dd", r) in v) D[++nd] = v[m, b, "dd", r]
			if (((m, b, "ap", r) in v) && ((m, b, "fio", r) in v) && v[m, b, "fio", r] > 0) {
				R[++nr] = v[m, b, "ap", r] / v[m, b, "fio", r]
				if (R[nr] >= 1) won++
			}
			if (((m, b, "ap", r) in v) && ((m, b, "dd", r) in v) && v[m, b, "dd", r] > 0)
				RD[++nrd] = v[m, b, "ap", r] / v[m, b, "dd", r]
		}
		isort(A, na); isort(F, nf); isort(D, nd); isort(R, nr); isort(RD, nrd); isort(FT, nf)
		size = (m == "none" || m == "sync-after" || m == "fdatasync") ? fast : syncsz
		ratio = ci = wins = verdict = "n/a"
		if (nr) {
			ratio = sprintf("%.3f", med(R, nr))
			a = ci_a(nr)
			if (a) ci = sprintf("%.3f-%.3f", R[a], R[nr + 1 - a])
			else ci = sprintf("~%.3f-%.3f", R[1], R[nr])
			lo = a ? R[a] : R[1]; hi = a ? R[nr + 1 - a] : R[nr]
			wins = won "/" nr
			if (med(R, nr) >= target) { verdict = "ok"; ok++ }
			else if (a && hi < target) { verdict = "BELOW"; below++ }
			else { verdict = "noise"; noise++ }
		}
		printf "%-10s %4s %5s %9s %9s %9s %7s %6s %-13s %5s %-7s %6s\n", m, b, hsize(size),
			na ? sprintf("%.1f", med(A, na)) : "n/a", nf ? sprintf("%.1f", med(F, nf)) : "n/a",
			nd ? sprintf("%.1f", med(D, nd)) : "n/a", nf ? sprintf("%.1f", med(FT, nf)) : "n/a",
			ratio, ci, wins, verdict, nrd ? sprintf("%.3f", med(RD, nrd)) : "n/a"
	}
	printf "\nAP/FIO, AP/DD: medians of the per-repetition ratios; CI95: distribution-free 95%% interval\n"
	printf "of the AP/FIO median (~: fewer than 6 repetitions, the whole range); WON: repetitions with\n"
	printf "alignprobe >= fio; FIO_MS: median fio runtime (+-0.5 ms resolution). Verdict: ok = median\n"
	printf ">= %s; BELOW = the whole interval below %s (a real deficit); noise = median below %s\n", target, target, target
	printf "but the interval reaches it (not distinguishable from %s with these repetitions).\n", target
	printf "cells: %d ok, %d noise, %d BELOW (target %s x fio)\n", ok, noise, below, target
}' "$tmp/runs"
[ -n "${SEQ_BENCH_RUNS:-}" ] && cp "$tmp/runs" "$SEQ_BENCH_RUNS"

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
