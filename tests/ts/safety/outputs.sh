#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Every output file (probe --plot/--samples/--journal, sweep --save/--plot,
# seq --plot, postmark's `run FILE`; the directories sweep creates its mount
# points and registry entries in) is opened before the first write to a
# device and before an emulated drive is attached: a path that cannot be
# written is exit 2, "alignprobe CMD: PATH: reason", and nothing is written
# (the loop device's checksum), no emulated drive is set up (no loop or FUSE
# call in strace), an existing output file keeps its content, and no
# temporary file is left. An output that is a block device (the target
# itself) is refused; a FIFO is written, never replaced; a run that works
# puts its files in place.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "output files are checked before anything is written"
ts_need_loop
ts_need_cmd strace head

ts_image "$TS_TMP/disk.img" 64M
head -c 8M /dev/urandom | dd of="$TS_TMP/disk.img" conv=notrunc status=none
dev=$(ts_loop_attach "$TS_TMP/disk.img")
sum=$(ts_checksum "$dev")
out=$TS_TMP/out.d
mkdir -p "$out"
echo "old plot" > "$out/keep.svg"
bad=/nonexistent/dir/x

# expect_refused "what" PATH-IN-MESSAGE cmd...: exit 2, the message, nothing
# written to the device, the existing output untouched, no temporary file
expect_refused() {
	local what=$1 path=$2
	shift 2
	"$@" > "$TS_TMP/stdout" 2> "$TS_TMP/err" < /dev/null
	rc=$?
	# 2 bad input; 3 (EXPECT_RC) a refusal: a block device is a disk (EPERM)
	[ "$rc" = "${EXPECT_RC:-2}" ] ||
		{ cat "$TS_TMP/err" >&2; ts_fail "$what: exit $rc, expected ${EXPECT_RC:-2}"; }
	grep -q "^alignprobe [a-z]*: $path: " "$TS_TMP/err" ||
		ts_fail "$what: no 'alignprobe CMD: $path: reason' in: $(cat "$TS_TMP/err")"
	ts_assert_eq "$sum" "$(ts_checksum "$dev")" "$what: device checksum"
	ts_assert_eq "old plot" "$(cat "$out/keep.svg")" "$what: the existing output"
	ts_assert_eq "keep.svg" "$(ls -A "$out" | tr '\n' ' ' | sed 's/ $//')" "$what: files in $out"
}

# probe, destructive and preserving: a missing directory, a directory, the device itself
expect_refused "probe --plot" "$bad.svg" \
	"$ALIGNPROBE" probe --yes --max-rounds 3 --plot "$bad.svg" "$dev"
expect_refused "probe --samples" "$bad.csv" \
	"$ALIGNPROBE" probe --yes --max-rounds 3 --plot "$out/keep.svg" --samples "$bad.csv" "$dev"
expect_refused "probe --samples DIR" "$out" \
	"$ALIGNPROBE" probe --yes --max-rounds 3 --samples "$out" "$dev"
# the device as an output, through a node of our own: a binary that renames
# over its output must not replace the /dev entry (today's main did)
mknod "$TS_TMP/dev-alias" b "$(stat -c '0x%t' "$dev")" "$(stat -c '0x%T' "$dev")" ||
	ts_fail "cannot make a second node of $dev"
expect_refused "probe --plot X --samples X" "$out/keep.svg" \
	"$ALIGNPROBE" probe --yes --max-rounds 3 --plot "$out/keep.svg" --samples "$out/keep.svg" "$dev"
EXPECT_RC=3 expect_refused "probe --plot DEVICE" "$TS_TMP/dev-alias" \
	"$ALIGNPROBE" probe --yes --max-rounds 3 --plot "$TS_TMP/dev-alias" "$dev"
grep -q "block device" "$TS_TMP/err" || ts_fail "probe --plot DEVICE: $(cat "$TS_TMP/err")"
[ -b "$TS_TMP/dev-alias" ] || ts_fail "probe --plot DEVICE: the device node was replaced"
expect_refused "probe --preserve --journal" "$bad.journal" \
	"$ALIGNPROBE" probe --preserve --max-rounds 3 --journal "$bad.journal" "$dev"
expect_refused "probe --read-only --plot" "$bad.svg" \
	"$ALIGNPROBE" probe --read-only --max-rounds 3 --plot "$bad.svg" "$dev"

# sweep: --save and --plot (a run that goes ahead writes a GPT at once)
ts_need_cmd parted mkfs.ext4
expect_refused "sweep --save" "$bad.json" \
	"$ALIGNPROBE" sweep --yes -q --starts 40 --rounds 1 --size 16M --save "$bad.json" "$dev"
expect_refused "sweep --plot" "$bad.svg" \
	"$ALIGNPROBE" sweep --yes -q --starts 40 --rounds 1 --size 16M --save "$out/keep.svg" \
	--plot "$bad.svg" "$dev"
expect_refused "sweep --save X --plot X" "$out/keep.svg" \
	"$ALIGNPROBE" sweep --yes -q --starts 40 --rounds 1 --size 16M --save "$out/keep.svg" \
	--plot "$out/keep.svg" "$dev"
EXPECT_RC=3 expect_refused "sweep --save DEVICE" "$TS_TMP/dev-alias" \
	"$ALIGNPROBE" sweep --yes -q --starts 40 --rounds 1 --size 16M --save "$TS_TMP/dev-alias" "$dev"
[ -b "$TS_TMP/dev-alias" ] || ts_fail "sweep --save DEVICE: the device node was replaced"
# the directories each step creates its mount point in and registers it in
expect_refused "sweep, TMPDIR" "/nonexistent/dir" env TMPDIR=/nonexistent/dir \
	"$ALIGNPROBE" sweep --yes -q --starts 40 --rounds 1 --size 16M "$dev"
expect_refused "sweep, state directory" "/nonexistent/dir" env ALIGNPROBE_STATE_DIR=/nonexistent/dir \
	"$ALIGNPROBE" sweep --yes -q --starts 40 --rounds 1 --size 16M "$dev"
expect_refused "sweep --replay --plot" "$bad.svg" \
	"$ALIGNPROBE" sweep --replay "$top_srcdir/tests/ts/output/sweep-4096-0.json" --plot "$bad.svg"

# seq on the device and on a file: the plot first, never the target itself
expect_refused "seq --plot" "$bad.svg" \
	"$ALIGNPROBE" seq --yes -q -s 1M -B 64K -m none --plot "$bad.svg" "$dev"
head -c 1M /dev/urandom > "$TS_TMP/target"
tsum=$(ts_checksum "$TS_TMP/target")
expect_refused "seq --plot TARGET" "$TS_TMP/target" \
	"$ALIGNPROBE" seq -q -s 1M -B 64K -m none --plot "$TS_TMP/target" "$TS_TMP/target"
ts_assert_eq "$tsum" "$(ts_checksum "$TS_TMP/target")" "seq's file target"

# postmark -i: `run FILE` with a FILE that cannot be written runs nothing
mkdir -p "$TS_TMP/loc"
printf 'set number 20\nset transactions 20\nrun %s\n' "$bad.txt" |
	"$ALIGNPROBE" postmark -q -l "$TS_TMP/loc" -i > "$TS_TMP/stdout" 2> "$TS_TMP/err"
rc=$?
[ "$rc" = 2 ] || { cat "$TS_TMP/err" >&2; ts_fail "postmark -i 'run FILE': exit $rc, expected 2"; }
grep -q "^alignprobe postmark: $bad.txt: " "$TS_TMP/err" || ts_fail "postmark -i: $(cat "$TS_TMP/err")"
grep -q "Time:" "$TS_TMP/stdout" && ts_fail "postmark -i ran the workload: $(cat "$TS_TMP/stdout")"

# the emulated drive is not even set up: no loop device, no FUSE mount
if "$ALIGNPROBE" emulate --help >/dev/null 2>&1 && [ -c /dev/fuse ]; then
	for cmd in "probe --emulate=simple,rmw=100us,size=64M --max-rounds 3 -q --plot $bad.svg" \
		   "probe --emulate=simple,rmw=100us,size=64M --emulate=size=64M --max-rounds 3 -q --samples $bad.csv" \
		   "sweep --emulate=simple,rmw=100us,size=256M -q --starts 40 --rounds 1 --save $bad.json" \
		   "seq --emulate=size=64M -q -s 1M -B 64K -m none --plot $bad.svg"; do
		# LeakSanitizer cannot run under ptrace (CI's ASan build)
		# shellcheck disable=SC2086
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
			strace -f -qq -o "$TS_TMP/trace" -e trace=ioctl,mount \
			"$ALIGNPROBE" $cmd > "$TS_TMP/stdout" 2> "$TS_TMP/err"
		rc=$?
		[ "$rc" = 2 ] || { cat "$TS_TMP/err" >&2; ts_fail "$cmd: exit $rc, expected 2"; }
		grep -q "^alignprobe [a-z]*: $bad\.[a-z]*: " "$TS_TMP/err" || ts_fail "$cmd: $(cat "$TS_TMP/err")"
		grep -E "LOOP_|fuse" "$TS_TMP/trace" >&2 && ts_fail "$cmd: set up an emulated drive first"
	done
	[ -z "$(ls -A "$ALIGNPROBE_STATE_DIR")" ] ||
		ts_fail "registry entries left: $(ls -A "$ALIGNPROBE_STATE_DIR")"

	# a run that works puts its files in place, replacing the old one, and
	# writes into a FIFO without replacing it (today's main renamed over it)
	mkfifo "$out/fifo"
	cat "$out/fifo" > "$TS_TMP/from-fifo" &
	reader=$!
	ts_bg_pid $reader
	# (a request cost: see fleet/alerts.sh)
	ts_run_rc 0 "$ALIGNPROBE" probe --emulate=simple,base=300us,rmw=300us,size=64M \
		--time-budget 1h -q \
		--samples "$out/keep.svg" --plot "$out/fifo"
	head -n 1 "$out/keep.svg" | grep -q "^device,size,offset,round,slot,ns$" ||
		ts_fail "the old file was not replaced: $(head -c 100 "$out/keep.svg")"
	[ -p "$out/fifo" ] || ts_fail "the FIFO was replaced by a file"
	wait $reader		# ended: the writer closed the FIFO
	grep -q "</svg>" "$TS_TMP/from-fifo" ||
		ts_fail "no plot came through the FIFO: $(head -c 100 "$TS_TMP/from-fifo")"
	ts_assert_eq "fifo keep.svg" "$(ls -A "$out" | tr '\n' ' ' | sed 's/ $//')" "files in $out after the run"
else
	ts_log "no emulated drive in this build or no /dev/fuse: the emulated cases were not run"
	[ "${ALIGNPROBE_REQUIRE_DEVICES:-0}" = 1 ] && ts_fail "the emulated drive is required"
fi
ts_pass
