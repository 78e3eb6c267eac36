#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# fuzz/run.sh [options] HARNESS [-- libFuzzer options]
#
# Build the libFuzzer harness fuzz/fuzz_HARNESS.c with clang
# -fsanitize=fuzzer,address,undefined against the project's library and run
# it for a given time, niced (the CPU is shared), on
#   - a persistent working corpus        $FUZZ_WORK/corpus-HARNESS/
#   - the seeds of fuzz/seeds_HARNESS.sh  $FUZZ_WORK/seeds-HARNESS/ (if the script exists)
#   - the kept crashes                   fuzz/regressions/HARNESS/
# Crashing inputs land in $FUZZ_WORK/artifacts-HARNESS/ and are copied into
# fuzz/regressions/HARNESS/ so that `make check` replays them from then on
# (see fuzz/replay.c). Exit status: 0 no crash, 1 crashes found (or the run
# failed), 2 usage, 77 clang/libFuzzer missing.
#
# Options:
#   -t SECONDS   run time (default 600)
#   -j JOBS      parallel fuzzing processes (default 1)
#   -w DIR       working directory (default $FUZZ_WORK or /tmp/alignprobe-fuzz)
#   -b           only build (print the harness path)
#   -l           list the harnesses
#
# Example: fuzz/run.sh -t 600 ptable
#          fuzz/run.sh ptable -- -runs=1000 -seed=1
set -u

srcdir=$(cd "$(dirname "$0")/.." && pwd)
time=600
jobs=1
build_only=0
work=${FUZZ_WORK:-/tmp/alignprobe-fuzz}

usage() {
	sed -n '3,27p' "$0" | sed 's/^# \{0,1\}//'
	exit "${1:-0}"
}

list() {
	local f
	for f in "$srcdir"/fuzz/fuzz_*.c; do
		[ -e "$f" ] || continue
		f=${f##*/fuzz_}
		echo "${f%.c}"
	done
}

while getopts "t:j:w:blh" opt; do
	case $opt in
	t) time=$OPTARG ;;
	j) jobs=$OPTARG ;;
	w) work=$OPTARG ;;
	b) build_only=1 ;;
	l) list; exit 0 ;;
	h) usage 0 ;;
	*) usage 2 >&2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "run.sh: no harness given (one of: $(list | tr '\n' ' '))" >&2; exit 2; }
h=$1
shift
[ "${1:-}" = "--" ] && shift
case $time in ''|*[!0-9]*) echo "run.sh: -t needs seconds" >&2; exit 2 ;; esac
case $jobs in ''|*[!0-9]*|0) echo "run.sh: -j needs a positive number" >&2; exit 2 ;; esac
harness_src=$srcdir/fuzz/fuzz_$h.c
[ -f "$harness_src" ] || { echo "run.sh: no harness $harness_src (one of: $(list | tr '\n' ' '))" >&2; exit 2; }

CC=${CC:-clang}
command -v "$CC" >/dev/null || { echo "run.sh: $CC not found (apt-get install clang)" >&2; exit 77; }
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n){(void)d;(void)n;return 0;}\n' \
	> "${TMPDIR:-/tmp}/ap-fuzz-probe.$$.c"
if ! "$CC" -fsanitize=fuzzer "${TMPDIR:-/tmp}/ap-fuzz-probe.$$.c" -o "${TMPDIR:-/tmp}/ap-fuzz-probe.$$" 2>/dev/null; then
	rm -f "${TMPDIR:-/tmp}/ap-fuzz-probe.$$"*
	echo "run.sh: $CC cannot link libFuzzer (apt-get install clang libclang-rt-14-dev)" >&2
	exit 77
fi
rm -f "${TMPDIR:-/tmp}/ap-fuzz-probe.$$"*

mkdir -p "$work" || exit 1
build=$work/build
# --as-needed below: libparted (unused by the harnesses) is not loaded, so its
# constructor, which trips ASan on Debian 12, never runs.
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"

# 1. the library, built by the project's own build system with clang
exec 9> "$work/configure.lock"
flock 9
if [ ! -f "$build/Makefile" ] || [ "$srcdir/configure" -nt "$build/Makefile" ]; then
	[ -x "$srcdir/configure" ] || (cd "$srcdir" && autoreconf -fi) || exit 1
	mkdir -p "$build"
	(cd "$build" && "$srcdir/configure" -q CC="$CC" \
		CFLAGS="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link $san") || {
		echo "run.sh: configure failed (see $build/config.log)" >&2
		exit 1
	}
fi
exec 9>&-
# (several harnesses may be built at once: one make at a time in $build)
flock "$work/build.lock" nice make -s -C "$build" -j"$jobs" libalignprobe.a >/dev/null || {
	echo "run.sh: building the library with $CC failed" >&2
	exit 1
}

# 2. the harness
libs=$(pkg-config --libs libparted fdisk blkid smartcols json-c 2>/dev/null) || {
	echo "run.sh: pkg-config cannot find the libraries" >&2
	exit 1
}
if grep -q '^#define HAVE_EMULATOR 1' "$build/config.h"; then
	libs="$libs $(pkg-config --libs fuse3)"
fi
bin=$work/fuzz_$h
nice "$CC" -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer $san \
	-include "$build/config.h" -I"$srcdir/src" "$harness_src" \
	"$build/libalignprobe.a" -Wl,--as-needed $libs -lm -pthread -o "$bin" || {
	echo "run.sh: linking $bin failed" >&2
	exit 1
}
# a harness that needs libparted loads its constructor, which trips ASan's
# strchr check on Debian 12 (a libparted bug, not ours): skip that check only
if ldd "$bin" 2>/dev/null | grep -q libparted; then
	export ASAN_OPTIONS="intercept_strchr=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
	echo "run.sh: $h links libparted: ASAN_OPTIONS=$ASAN_OPTIONS" >&2
fi
if [ "$build_only" = 1 ]; then
	echo "$bin"
	exit 0
fi

# 3. corpora
corpus=$work/corpus-$h
seeds=$work/seeds-$h
regress=$srcdir/fuzz/regressions/$h
artifacts=$work/artifacts-$h
mkdir -p "$corpus" "$artifacts" "$regress"
if [ -x "$srcdir/fuzz/seeds_$h.sh" ]; then
	rm -rf "$seeds"
	"$srcdir/fuzz/seeds_$h.sh" "$seeds" || { echo "run.sh: seeds_$h.sh failed" >&2; exit 1; }
fi

# 4. fuzz
echo "run.sh: fuzzing $h for $time s with $jobs job(s); corpus $corpus" >&2
dirs=("$corpus")
[ -d "$seeds" ] && dirs+=("$seeds")
dirs+=("$regress")
if [ "$jobs" -gt 1 ]; then
	par=(-jobs="$jobs" -workers="$jobs")
else
	par=()
fi
log=$work/fuzz-$h.log
stamp=$work/started-$h
: > "$stamp"
(cd "$work" && nice -n 19 "$bin" -max_total_time="$time" -timeout=20 -rss_limit_mb=2048 \
	-print_final_stats=1 -artifact_prefix="$artifacts/" "${par[@]}" "$@" "${dirs[@]}") \
	> "$log" 2>&1
rc=$?
grep -E '^(stat::|Done|#[0-9]+ +DONE)' "$log" | tail -n 12 >&2
[ "$jobs" -gt 1 ] && cat "$work"/fuzz-*.log 2>/dev/null | grep -E '^stat::number_of_executed_units' >&2

# 5. keep this run's crashes as regression inputs (crash-, leak-, timeout-,
#    oom-; earlier runs' artifacts stay where they are, they may have been
#    kept under another name); slow units are only reported: on a shared
#    machine they are mostly noise
n=0
for f in "$artifacts"/crash-* "$artifacts"/leak-* "$artifacts"/timeout-* "$artifacts"/oom-*; do
	[ -f "$f" ] && [ "$f" -nt "$stamp" ] || continue
	b=$(basename "$f")
	[ -e "$regress/$b" ] && continue
	cp "$f" "$regress/$b" && n=$((n + 1))
done
for f in "$artifacts"/slow-unit-*; do
	[ -f "$f" ] && [ "$f" -nt "$stamp" ] && echo "run.sh: $h: slow input (not a crash): $f" >&2
done
if [ "$n" -gt 0 ] || [ "$rc" -ne 0 ]; then
	echo "run.sh: $h: libFuzzer exited $rc; $n new crashing input(s) copied to $regress (log: $log)" >&2
	exit 1
fi
echo "run.sh: $h: no crash in $time s (log: $log)" >&2
exit 0
