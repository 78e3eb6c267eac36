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
# Usage: bench/postmark.sh [ALIGNPROBE]   (env: ROUNDS=3, POSTMARK=/usr/bin/postmark,
#        NUMBER, TRANSACTIONS to scale the workload)
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

echo
echo "counts and byte figures identical in every run: $same"
[ "$same" = yes ]
