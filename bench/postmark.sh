#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/postmark.sh: Debian's postmark and `alignprobe postmark` side by side
# on tmpfs with the classic sweep workload (number 262144, transactions
# 65536, size 512 2048, read/write 1024, buffering false, seed 12345678).
# Runs are interleaved (PM AP AP PM ...) over ROUNDS rounds; prints each run
# and the ratios alignprobe/postmark of the medians of wall time, user CPU,
# system CPU and peak RSS, and whether every count and byte figure of the
# two reports is identical.
#
# Targets: identical counts; user CPU <= 1/3 of PostMark's; wall time no
# worse; peak RSS <= half.
#
# Then what the user CPU is made of: the user instructions each program
# executes (callgrind, smaller workload) and the user time this kernel
# charges to every system call (a calibration loop, and each program's
# system calls counted by perf), which puts a floor under the user CPU of
# any program that makes PostMark's calls (docs/design.md, 2.5).
#
# Usage: bench/postmark.sh [ALIGNPROBE]   (env: ROUNDS=3, POSTMARK=/usr/bin/postmark,
#        NUMBER, TRANSACTIONS to scale the workload, CALLGRIND=0 and PERF=0
#        to skip those parts)
set -u
export LC_ALL=C

here=$(cd "$(dirname "$0")/.." && pwd)
AP=${1:-${ALIGNPROBE:-$here/alignprobe}}
PM=${POSTMARK:-/usr/bin/postmark}
ROUNDS=${ROUNDS:-3}
NUMBER=${NUMBER:-262144}
TRANSACTIONS=${TRANSACTIONS:-65536}
TIME=/usr/bin/time

[ -x "$AP" ] || { echo "bench/postmark.sh: $AP not built" >&2; exit 2; }
[ -x "$PM" ] || { echo "bench/postmark.sh: needs $PM (apt-get install postmark)" >&2; exit 2; }
[ -x "$TIME" ] || { echo "bench/postmark.sh: needs $TIME (apt-get install time)" >&2; exit 2; }

work=$(mktemp -d /tmp/ap-bench-pm.XXXXXX) || exit 1
mnt=$work/mnt
mkdir -p "$mnt"
mounted=0
cleanup() {
	[ "$mounted" = 1 ] && umount "$mnt"
	[ -n "${shm:-}" ] && rm -rf "$shm"
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=4g,mode=0700 alignprobe-bench "$mnt" 2>/dev/null; then
	mounted=1
	fs="tmpfs mounted on $mnt"
else
	shm=$(mktemp -d /dev/shm/ap-bench-pm.XXXXXX) || exit 1
	mnt=$shm
	fs="/dev/shm ($shm)"
fi

cfg=$work/classic.pm
cat > "$cfg" <<CFG
set location $mnt
set number $NUMBER
set transactions $TRANSACTIONS
set size 512 2048
set read 1024
set write 1024
set buffering false
set seed 12345678
run
quit
CFG

parse() {
	awk '
	/^Files:/ { sec = "files" } /^Data:/ { sec = "data" }
	sec == "files" && /^\t[0-9]+ created/ { print "created=" $1 }
	/Creation alone:/ { print "created_alone=" $3 }
	/Mixed with transactions:/ { print (m++ ? "deleted_mixed=" : "created_mixed=") $4 }
	sec == "files" && /^\t[0-9]+ read \(/ { print "read=" $1 }
	sec == "files" && /^\t[0-9]+ appended/ { print "appended=" $1 }
	sec == "files" && /^\t[0-9]+ deleted/ { print "deleted=" $1 }
	/Deletion alone:/ { print "deleted_alone=" $3 }
	sec == "data" && / read \(/ { print "data_read=" $1 " " $2 }
	sec == "data" && / written \(/ { print "data_written=" $1 " " $2; sec = "" }
	' "$1"
}

run() {	# run pm|ap ROUND: appends "wall user sys rssKB" to $work/<side>.times
	local side=$1 r=$2 out=$work/$1.$2.out
	if [ "$side" = pm ]; then
		(cd "$mnt" && "$TIME" -f '%e %U %S %M' -o "$work/t" "$PM" "$cfg") > "$out" 2>&1
	else
		(cd "$mnt" && "$TIME" -f '%e %U %S %M' -o "$work/t" "$AP" postmark -q "$cfg") > "$out" 2>&1
	fi || { echo "bench/postmark.sh: $side run $r failed:" >&2; tail "$out" >&2; exit 1; }
	[ -z "$(ls -A "$mnt")" ] || { echo "bench/postmark.sh: $side left files" >&2; exit 1; }
	# wall user sys rss, then user+sys
	tail -1 "$work/t" | awk '{ print $0, $2 + $3 }' >> "$work/$side.times"
	printf '  %-10s round %d: wall %6.2f s  user %5.2f s  sys %5.2f s  peak RSS %6d KB\n' \
		"$([ "$side" = pm ] && echo postmark || echo alignprobe)" "$r" $(tail -1 "$work/t")
	parse "$out" > "$work/$side.$r.kv"
}

echo "PostMark vs alignprobe postmark on $fs"
echo "workload: number $NUMBER, transactions $TRANSACTIONS, size 512 2048, read/write 1024, buffering false, seed 12345678"
echo "$("$PM" /dev/null < /dev/null | head -1) ($PM); $("$AP" --version)"
for r in $(seq 1 "$ROUNDS"); do
	if [ $((r % 2)) = 1 ]; then run pm "$r"; run ap "$r"; else run ap "$r"; run pm "$r"; fi
done

same=yes
for r in $(seq 1 "$ROUNDS"); do
	cmp -s "$work/pm.1.kv" "$work/pm.$r.kv" || same=no
	cmp -s "$work/pm.1.kv" "$work/ap.$r.kv" || same=no
done
echo
echo "report figures (postmark | alignprobe):"
paste -d'|' "$work/pm.1.kv" "$work/ap.1.kv" | sed 's/^/  /; s/|/  |  /'

median() {	# median COLUMN FILE
	cut -d' ' -f"$1" "$2" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
echo
printf '%-12s %12s %12s %8s  %s\n' "" postmark alignprobe ratio target
line() {	# line NAME COLUMN TARGET_RATIO
	local p a
	p=$(median "$2" "$work/pm.times")
	a=$(median "$2" "$work/ap.times")
	awk -v n="$1" -v p="$p" -v a="$a" -v t="$3" 'BEGIN {
		r = (p > 0) ? a / p : 0
		if (t == "-") { printf "%-12s %12s %12s %8.3f\n", n, p, a, r; exit }
		printf "%-12s %12s %12s %8.3f  <= %s %s\n", n, p, a, r, t, (r <= t ? "met" : "NOT met") }'
}
line "wall s" 1 1.0
line "user s" 2 0.334
line "sys s" 3 -
line "user+sys s" 5 -
line "peak RSS KB" 4 0.5

# User CPU on a kernel with page-table isolation (PTI) is mostly the cost of
# crossing into the kernel and back (TLB refills billed to user mode), the
# same for both programs since they make the same system calls. The user
# instructions each program executes show the part that is its own code:
# counted by callgrind on a smaller workload (CALLGRIND=0 skips this).
if [ "${CALLGRIND:-1}" = 1 ] && command -v valgrind > /dev/null; then
	sed -e "s/^set number .*/set number 20000/" -e "s/^set transactions .*/set transactions 20000/" \
		"$cfg" > "$work/small.pm"
	ir() {
		(cd "$mnt" && valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null) |
			sed -n 's/.*Collected : *//p'
	}
	pir=$(ir "$PM" "$work/small.pm")
	air=$(ir "$AP" postmark -q "$work/small.pm")
	echo
	echo "user-mode instructions (callgrind, number 20000, transactions 20000, same syscalls):"
	awk -v p="$pir" -v a="$air" 'BEGIN { printf "  postmark %d, alignprobe %d, ratio %.3f\n", p, a, (p > 0 ? a / p : 0) }'
fi

# The floor under user CPU: this kernel charges user time to every system
# call (tick-based accounting: a tick that lands on the way into or out of
# the kernel, or on the TLB refills after it, counts as user). Measured with
# a loop of the workload's kinds of calls and nothing else, then multiplied
# by the system calls each program makes (perf counting the
# raw_syscalls:sys_enter tracepoint). PERF=0 skips.
if [ "${PERF:-1}" = 1 ] && command -v perf > /dev/null && command -v gcc > /dev/null; then
	# the workload's kinds of calls (openat write close openat read close
	# unlinkat) on one name, with next to no user code between them
	cat > "$work/sc.c" <<'EOF_C'
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
static char buf[1024];
int main(int argc, char **argv)
{
	long i, n = atol(argv[2]);
	int d = open(argv[1], O_RDONLY | O_DIRECTORY), fd;

	for (i = 0; d >= 0 && i < n; i++) {
		fd = openat(d, "calibrate", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf) || close(fd))
			return 1;
		fd = openat(d, "calibrate", O_RDONLY);
		if (fd < 0 || read(fd, buf, sizeof(buf)) != sizeof(buf) || close(fd) ||
		    unlinkat(d, "calibrate", 0))
			return 1;
	}
	return d < 0;
}
EOF_C
	if gcc -O2 -o "$work/sc" "$work/sc.c" &&
	   perf stat -x, -e raw_syscalls:sys_enter -o "$work/perf.t" true 2> /dev/null; then
		ncal=300000
		for r in 1 2 3; do
			"$TIME" -f '%U' -o "$work/t" "$work/sc" "$mnt" "$ncal" ||
				{ echo "bench/postmark.sh: calibration loop failed" >&2; exit 1; }
			awk -v n="$ncal" '{ printf "%.4f\n", $1 * 1e6 / (7 * n) }' "$work/t" >> "$work/charge"
		done
		charge=$(sort -g "$work/charge" | sed -n 2p)
		nsys() {
			(cd "$mnt" && perf stat -x, -e raw_syscalls:sys_enter -o "$work/perf.out" "$@") \
				> /dev/null 2>&1
			awk -F, '/raw_syscalls:sys_enter/ { print $1 }' "$work/perf.out"
		}
		psys=$(nsys "$PM" "$cfg")
		asys=$(nsys "$AP" postmark -q "$cfg")
		pu=$(median 2 "$work/pm.times")
		au=$(median 2 "$work/ap.times")
		echo
		echo "user CPU charged to system calls ($charge us of user time per call, median of 3 loops of"
		echo "openat write close openat read close unlinkat with no other work):"
		awk -v c="$charge" -v ps="$psys" -v as="$asys" -v pu="$pu" -v au="$au" 'BEGIN {
			printf "  system calls: postmark %d, alignprobe %d, ratio %.3f\n", ps, as, as / ps
			printf "  postmark:   %.2f s of its %.2f s user CPU (%.0f %%)\n", ps * c / 1e6, pu, 100 * ps * c / 1e6 / pu
			printf "  alignprobe: %.2f s of its %.2f s user CPU (%.0f %%)\n", as * c / 1e6, au, 100 * as * c / 1e6 / au
			f = as * c / 1e6 / pu
			printf "  floor of the user CPU ratio for alignprobe'"'"'s system calls: %.3f%s\n", f,
				(f > 0.334 ? " (above the 1/3 target: unreachable while every operation is a system call)" : "") }'
	else
		echo
		echo "(perf cannot count raw_syscalls:sys_enter here: user CPU floor not measured)"
	fi
fi

echo
echo "counts and byte figures identical in every run: $same"
[ "$same" = yes ]
