#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Every mode issues the system calls it claims, seen with strace: the open
# flags of the timed run, its writes, its sync call, and nothing else
# between the open and the end of the timed part.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "seq modes issue the syscalls they claim (strace)"
ts_need_cmd strace

f=$TS_TMP/t.img

# signature MODE: run one cell (4 x 64K) under strace and describe the run:
# "open FLAGS | CALLS ON THE RUN'S FD... | close | the next call"
signature() {
	local log=$TS_TMP/strace.$1
	# LeakSanitizer cannot run under ptrace (ASan builds): leaks are checked elsewhere
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -e signal=none \
		-e trace=openat,close,fdatasync,fsync,syncfs,pwrite64,pread64,write,read \
		-o "$log" "$ALIGNPROBE" seq -q --modes "$1" --block-sizes 64K --size 256K \
		--cell-time 0 "$f" > /dev/null 2> "$TS_TMP/err" ||
		{ cat "$TS_TMP/err" >&2; ts_fail "seq --modes $1 failed under strace"; }
	awk -v path="\"$f\"" '
		{ sub(/^[0-9]+ +/, "") }
		# the run opens the target without O_RDWR (the held descriptor has it)
		state == 0 && index($0, "openat(AT_FDCWD, " path ", ") == 1 && $0 !~ /O_RDWR/ {
			fl = $0; sub(/^[^,]*, [^,]*, /, "", fl); sub(/\).*/, "", fl)
			fd = $0; sub(/.*= /, "", fd)
			sig = "open " fl " |"; state = 1; n = 0; last = ""; next
		}
		state == 1 {
			call = $0; sub(/\(.*/, "", call)
			arg = $0; sub(/^[^(]*\(/, "", arg); sub(/[,)].*/, "", arg)
			if (call == "close" && arg == fd) {
				if (n) sig = sig " " last "*" n
				sig = sig " | close |"; state = 2; next
			}
			if (arg != fd) { sig = sig " OTHER:" call; next }
			if (call == last) { n++; next }
			if (n) sig = sig " " last "*" n
			last = call; n = 1; next
		}
		state == 2 { call = $0; sub(/\(.*/, "", call); sig = sig " " call; state = 3 }
		END { print sig }' "$log"
}

expect() {
	local got
	got=$(signature "$1")
	[ "$got" = "$2" ] || ts_fail "mode $1: expected '$2', got '$got'"
	ts_log "$1: $got"
}

# the call after the run's close: syncfs is sync-after's timed sync;
# fsync of the held descriptor is the untimed flush + cache drop at the end
expect none          "open O_WRONLY|O_CLOEXEC | pwrite64*4 | close | fsync"
expect sync-after    "open O_WRONLY|O_CLOEXEC | pwrite64*4 | close | syncfs"
expect fdatasync     "open O_WRONLY|O_CLOEXEC | pwrite64*4 fdatasync*1 | close | fsync"
expect dsync         "open O_WRONLY|O_DSYNC|O_CLOEXEC | pwrite64*4 | close | fsync"
expect sync          "open O_WRONLY|O_SYNC|O_CLOEXEC | pwrite64*4 | close | fsync"
expect direct        "open O_WRONLY|O_DSYNC|O_DIRECT|O_CLOEXEC | pwrite64*4 | close | fsync"
expect direct-nosync "open O_WRONLY|O_DIRECT|O_CLOEXEC | pwrite64*4 | close | fsync"
expect read-direct   "open O_RDONLY|O_DIRECT|O_CLOEXEC | pread64*4 | close | fsync"
expect read-cached   "open O_RDONLY|O_CLOEXEC | pread64*4 | close | fsync"

# layout_writes FILE: bytes written before the first timed open (the layout)
layout_writes() {
	local log=$TS_TMP/strace.layout
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -e signal=none \
		-e trace=openat,pwrite64 -o "$log" "$ALIGNPROBE" seq -q --modes none \
		--block-sizes 64K --size 256K --cell-time 0 "$1" > /dev/null 2> "$TS_TMP/err" ||
		{ cat "$TS_TMP/err" >&2; ts_fail "seq on $1 failed under strace"; }
	awk -v path="\"$1\"" '
		index($0, "openat(AT_FDCWD, " path ", O_WRONLY") { exit }
		/pwrite64\(/ { n += $NF }
		END { print n + 0 }' "$log"
}

# a region already written is not laid out again; holes and unwritten
# (fallocated) extents are
g=$TS_TMP/written.img
head -c 256K /dev/urandom > "$g"
ts_assert_eq 0 "$(layout_writes "$g")" "layout of a written file"
rm -f "$g"
truncate -s 256K "$g"
ts_assert_eq 262144 "$(layout_writes "$g")" "layout of a sparse file"
rm -f "$g"
if fallocate -l 256K "$g" 2>/dev/null; then
	ts_assert_eq 262144 "$(layout_writes "$g")" "layout of a fallocated file"
fi
ts_pass
