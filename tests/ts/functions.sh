# SPDX-License-Identifier: GPL-2.0-or-later
#
# Shared by every integration test (tests/ts/<area>/<test>.sh):
#
#	. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
#	ts_init "what this test proves"
#	ts_need_root; ts_need_loop; ts_need_fuse
#	dev=$(ts_emu_attach --phys 4096 ...)
#	...
#	ts_pass
#
# Exit codes follow automake: 0 pass, 1 fail, 77 skip, 99 hard error.
# A missing prerequisite skips with a reason, except under
# ALIGNPROBE_REQUIRE_DEVICES=1 (CI), where it fails. Everything a test
# attaches, mounts or creates is recorded and removed on exit, also when the
# test fails or is interrupted. Each test gets a state directory of its own,
# so `alignprobe cleanup` in one test never touches another's resources.

set -u

: "${top_srcdir:=$(cd "$(dirname "$0")/../../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
: "${ALIGNPROBE:=$top_builddir/alignprobe}"
export LC_ALL=C TZ=UTC

TS_NAME=$(basename "$(dirname "$0")")/$(basename "$0" .sh)
TS_TMP=

ts_log() { printf '%s: %s\n' "$TS_NAME" "$*" >&2; }

ts_fail() {
	printf '%s: FAIL: %s\n' "$TS_NAME" "$*" >&2
	exit 1
}

ts_pass() {
	printf '%s: PASS\n' "$TS_NAME" >&2
	exit 0
}

ts_skip() {
	if [ "${ALIGNPROBE_SKIP_INTEGRATION:-0}" = 1 ]; then
		printf '%s: SKIP: integration tests disabled (ALIGNPROBE_SKIP_INTEGRATION=1)\n' "$TS_NAME" >&2
		exit 77
	fi
	if [ "${ALIGNPROBE_REQUIRE_DEVICES:-0}" = 1 ]; then
		printf '%s: FAIL: %s (required: ALIGNPROBE_REQUIRE_DEVICES=1)\n' "$TS_NAME" "$*" >&2
		exit 1
	fi
	printf '%s: SKIP: %s\n' "$TS_NAME" "$*" >&2
	exit 77
}

ts_cleanup() {
	local rc=$? x
	trap - EXIT INT TERM HUP
	if [ -n "$TS_TMP" ] && [ -d "$TS_TMP" ]; then
		if [ -f "$TS_TMP/.mounts" ]; then
			tac "$TS_TMP/.mounts" | while read -r x; do
				mountpoint -q "$x" 2>/dev/null && umount "$x" 2>/dev/null
			done
		fi
		if [ -f "$TS_TMP/.pids" ]; then
			# only while it is still this shell's child: an exited one's
			# PID may be somebody else's by now
			while read -r x; do
				[ "$(sed 's/.*) //' "/proc/$x/stat" 2>/dev/null | cut -d' ' -f2)" = "$$" ] &&
					kill -9 "$x" 2>/dev/null
			done < "$TS_TMP/.pids"
		fi
		# what the killed runs left (their mounts may hold emulated drives)
		if [ -d "$TS_TMP/state" ] && [ -n "$(ls -A "$TS_TMP/state" 2>/dev/null)" ]; then
			"$ALIGNPROBE" cleanup >/dev/null 2>&1
		fi
		if [ -f "$TS_TMP/.emus" ]; then
			while read -r x; do
				"$ALIGNPROBE" emulate --detach "$x" >/dev/null 2>&1
			done < "$TS_TMP/.emus"
		fi
		if [ -f "$TS_TMP/.loops" ]; then
			# detach only if the number still carries this test's file:
			# it may have been released and reused by someone else
			local f b
			while read -r x f; do
				b=$(cat "/sys/block/${x#/dev/}/loop/backing_file" 2>/dev/null)
				[ -n "$b" ] && [ "$b" = "$f" ] && losetup -d "$x" 2>/dev/null
			done < "$TS_TMP/.loops"
		fi
		# whatever a killed alignprobe left in this test's state directory
		if [ -d "$TS_TMP/state" ] && [ -n "$(ls -A "$TS_TMP/state" 2>/dev/null)" ]; then
			"$ALIGNPROBE" cleanup >/dev/null 2>&1
		fi
		# emulated drives still registered here (an 'emulate --attach' that
		# a failing test did not expect to succeed): this state directory
		# is the test's, and so is everything it records
		for x in "$TS_TMP"/state/*; do
			[ -f "$x" ] && grep -qx 'kind=emu' "$x" 2>/dev/null || continue
			x=$(sed -n 's/^dev=//p' "$x")
			[ -n "$x" ] && "$ALIGNPROBE" emulate --detach "$x" >/dev/null 2>&1
		done
		# last resort, when the binary under test failed to clean up: loop
		# devices backed by files of this test, mounts below its directory
		# (both this test's by construction)
		for x in /sys/block/loop*/loop/backing_file; do
			[ -r "$x" ] || continue
			case $(cat "$x" 2>/dev/null) in
			"$TS_TMP"/*) x=${x#/sys/block/}; losetup -d "/dev/${x%%/*}" 2>/dev/null ;;
			esac
		done
		awk -v d="$TS_TMP/" 'index($2, d) == 1 { print $2 }' /proc/self/mounts | sort -r |
			while read -r x; do umount -l "$x" 2>/dev/null; done
		rm -rf "$TS_TMP"
	fi
	exit "$rc"
}

# ts_init "description"
ts_init() {
	if [ "${ALIGNPROBE_SKIP_INTEGRATION:-0}" = 1 ]; then
		printf '%s: SKIP: integration tests disabled (ALIGNPROBE_SKIP_INTEGRATION=1)\n' "$TS_NAME" >&2
		exit 77
	fi
	[ -x "$ALIGNPROBE" ] || { echo "$TS_NAME: $ALIGNPROBE not built" >&2; exit 99; }
	TS_TMP=$(mktemp -d /tmp/alignprobe-ts.XXXXXX) || exit 99
	mkdir -p "$TS_TMP/state"
	export ALIGNPROBE_STATE_DIR="$TS_TMP/state"
	trap ts_cleanup EXIT
	trap 'exit 130' INT TERM HUP
	[ $# -gt 0 ] && ts_log "$*"
	return 0
}

ts_need_root() {
	[ "$(id -u)" = 0 ] || ts_skip "needs root"
}

ts_need_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || ts_skip "needs $c in PATH"
	done
}

ts_need_loop() {
	ts_need_root
	ts_need_cmd losetup
	[ -c /dev/loop-control ] || modprobe loop 2>/dev/null
	[ -c /dev/loop-control ] || ts_skip "no loop devices (/dev/loop-control missing)"
}

ts_need_fuse() {
	ts_need_root
	[ -c /dev/fuse ] || modprobe fuse 2>/dev/null
	[ -c /dev/fuse ] || ts_skip "no /dev/fuse"
	grep -qw fuse /proc/filesystems || ts_skip "kernel without FUSE"
}

# ts_need_emulator: alignprobe was built with the emulated drive
ts_need_emulator() {
	ts_need_loop
	ts_need_fuse
	"$ALIGNPROBE" emulate --help >/dev/null 2>&1 ||
		ts_skip "alignprobe built without the emulated drive"
}

# ts_image FILE SIZE: a sparse image file
ts_image() {
	truncate -s "$2" "$1" || ts_fail "cannot create image $1"
}

# ts_loop_attach FILE [losetup options]: prints the loop device
ts_loop_attach() {
	local f dev
	f=$(realpath "$1") || ts_fail "no such file: $1"
	shift
	dev=$(losetup -f --show -P "$@" "$f") || ts_fail "losetup $f failed"
	echo "$dev $f" >> "$TS_TMP/.loops"
	echo "$dev"
}

# ts_partprobe DEV: make the kernel create DEV's partition nodes. Some
# kernels (like these machines') have no partition-table parsers, so
# `losetup -P` and BLKRRPART find nothing; partx/partprobe use BLKPG.
ts_partprobe() {
	if command -v partx >/dev/null 2>&1; then
		partx -d "$1" >/dev/null 2>&1
		partx -a "$1" >/dev/null 2>&1 && return 0
	fi
	partprobe "$1" 2>/dev/null || ts_fail "cannot create partition nodes of $1"
}

# ts_emu_attach [emulate options]: prints the emulated drive's loop device
ts_emu_attach() {
	local dev
	dev=$("$ALIGNPROBE" emulate --attach "$@") || ts_fail "alignprobe emulate --attach $* failed"
	echo "$dev" >> "$TS_TMP/.emus"
	echo "$dev"
}

# ts_emu_write_cache DEV: the emulated drive's write cache, "MODEL KERNEL":
# its cache model (from --stats) and its loop device's queue/write_cache,
# e.g. "on write back"
ts_emu_write_cache() {
	local model
	model=$("$ALIGNPROBE" emulate --stats "$1" -n -r -o SPEC | grep -oE '(^|,)cache=(on|off)')
	echo "${model#*=} $(cat "/sys/block/${1#/dev/}/queue/write_cache")"
}

# ts_mount DEV DIR [mount options]: mount and record for cleanup
ts_mount() {
	local dev=$1 dir=$2
	shift 2
	mkdir -p "$dir"
	echo "$dir" >> "$TS_TMP/.mounts"
	mount "$@" "$dev" "$dir" || ts_fail "mount $dev $dir failed"
}

# ts_journal_complete J: the undo journal J's "complete" flag (byte 12) is set
ts_journal_complete() { [ "$(od -An -tu4 -j12 -N4 "$1" 2>/dev/null | tr -d ' ')" = 1 ]; }

# ts_preserve_killed DEV JOURNAL: a preserving probe of DEV, SIGKILLed (by
# its PID) once its undo journal JOURNAL is complete -- in the middle of
# the measurement, whatever the machine's speed -- leaving the journal
ts_preserve_killed() {
	local pid
	"$ALIGNPROBE" probe --preserve -q --min-rounds 1000 --max-rounds 1000 --time-budget 10m \
		--journal "$2" "$1" > /dev/null 2> "$TS_TMP/probe.err" &
	pid=$!
	ts_bg_pid "$pid"
	ts_wait_for -p "$pid" "the journal to be complete" ts_journal_complete "$2" ||
		ts_fail "the journal never became complete: $(cat "$TS_TMP/probe.err")"
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	[ -f "$2" ] || ts_fail "no journal after the kill"
}

# ts_bg_pid PID: a background process of this test, killed on exit
ts_bg_pid() {
	echo "$1" >> "$TS_TMP/.pids"
}

# ts_wait_for [-p PID] WHAT CMD...: wait until CMD succeeds -- a state the
# test can observe (a file, a line, a device node, a registry entry), never
# a fixed time. With -p, return 1 as soon as PID has exited without the
# state showing. The limit, TS_WAIT_LIMIT seconds (default 600), is there to
# end a hang, not to judge speed: a slow machine never reaches it.
ts_wait_for() {
	local pid= what end
	if [ "$1" = -p ]; then
		pid=$2
		shift 2
	fi
	what=$1
	shift
	end=$((SECONDS + ${TS_WAIT_LIMIT:-600}))
	until "$@"; do
		if [ -n "$pid" ] && ! ts_running "$pid"; then
			"$@" && return 0
			return 1
		fi
		[ $SECONDS -lt $end ] || ts_fail "still waiting for $what after ${TS_WAIT_LIMIT:-600} s"
		sleep 0.05
	done
}

# ts_wait_node DEV: DEV (a partition, say) exists in the kernel -- sysfs
# knows it as soon as the BLKPG that added it returned -- and its device
# node has appeared (devtmpfs creates it a moment later). 1 when the
# kernel does not know DEV.
ts_wait_node() {
	[ -e "/sys/class/block/${1#/dev/}" ] || return 1
	ts_wait_for "the device node $1" test -b "$1"
}

# ts_part_node DEV [N]: partition N (default 1) of DEV, whose table was
# just written: libparted adds it with BLKPG; where the kernel has no such
# partition after all, partx -a; then its node. 1 when it does not appear.
ts_part_node() {
	local p=${1}p${2:-1}
	[ -e "/sys/class/block/${p#/dev/}" ] || partx -a "$1" 2>/dev/null
	ts_wait_node "$p"
}

# ts_running PID: PID exists and is not a zombie (an exited child that is
# not reaped yet, or an orphan where nobody reaps)
ts_running() {
	local st
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 1
	case $st in
	Z* | X* | "") return 1 ;;
	esac
	return 0
}

# ts_assert_eq EXPECTED ACTUAL WHAT
ts_assert_eq() {
	[ "$1" = "$2" ] || ts_fail "$3: expected '$1', got '$2'"
}

# ts_run_rc EXPECTED_RC cmd...: run, assert the exit code, keep output in
# $TS_TMP/out and $TS_TMP/err
ts_run_rc() {
	local want=$1 rc
	shift
	"$@" > "$TS_TMP/out" 2> "$TS_TMP/err"
	rc=$?
	[ "$rc" = "$want" ] || {
		cat "$TS_TMP/err" >&2
		ts_fail "$* exited $rc, expected $want"
	}
}

# ts_checksum DEV|FILE
ts_checksum() {
	sha256sum < "$1" | cut -d' ' -f1
}

# ts_run_rc_ro EXPECTED_RC TARGET cmd...: ts_run_rc, and TARGET (an image
# file or a device) has the same checksum afterwards: the command wrote nothing
ts_run_rc_ro() {
	local want=$1 target=$2 sum
	shift 2
	sum=$(ts_checksum "$target")
	ts_run_rc "$want" "$@"
	[ "$sum" = "$(ts_checksum "$target")" ] || ts_fail "$* changed $target"
}

# ---- expected output ------------------------------------------------------
#
# What users read, diffed against files committed under
# tests/expected/<component>/<name> (util-linux's tests/expected): a change
# of a help text, a table, a JSON document, a message or an exit status
# shows in review as a change of these files.
#
#	ts_expect_run NAME CMD...	run CMD (stdin /dev/null, in the current
#					directory) and compare its command line,
#					stdout, stderr and exit status
#	ts_expect NAME [FILE]		compare FILE, or stdin, as it is (also
#					at the end of a pipe)
#	ts_expect_done			fail if any differed, else pass
#
# <component> is the test's file name without .sh (TS_EXPECT_COMPONENT
# overrides it). Normalised, and only that: this test's temporary
# directory (@TMP@), the source and build trees (@SRCDIR@, @BUILDDIR@) and
# the package version after "alignprobe " or "version " (@VERSION@); the
# rest must match byte for byte (ts_init's directory name has a fixed
# length, so the widths of table columns holding its paths do not vary). A
# test filters anything else volatile (a timestamp) itself, visibly. With
# ALIGNPROBE_UPDATE_EXPECTED=1 the files are (re)written instead, and the
# component's files no subtest wrote any more are removed: review the
# result with git diff.
#
# The outputs and the names of the failed ones are kept in files under
# $TS_TMP/.expect, so that ts_expect works in the subshell of a pipe.

ts_expect_dir() {
	printf '%s/tests/expected/%s\n' "$top_srcdir" "${TS_EXPECT_COMPONENT:-$(basename "$0" .sh)}"
}

# a string as a basic regular expression of sed, '|' the delimiter
ts_expect_re() {
	printf '%s' "$1" | sed -e 's/[]\\|.*^$[]/\\&/g'
}

# ts_expect_normalise < RAW > NORMALISED
ts_expect_normalise() {
	local ver args=() p t pairs
	ver=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$top_builddir/config.h" 2>/dev/null)
	# the longest path first: one may lie inside another
	pairs=$(for p in "TMP $TS_TMP" "SRCDIR $top_srcdir" "BUILDDIR $top_builddir"; do
		t=${p#* }
		[ -n "$t" ] && [ "$t" != / ] && printf '%d %s\n' "${#t}" "$p"
	done | sort -rn)
	while read -r _ t p; do
		[ -n "$p" ] && args+=(-e "s|$(ts_expect_re "$p")|@$t@|g")
	done <<< "$pairs"
	[ -n "$ver" ] &&
		args+=(-e "s/\\(alignprobe\\|version\\) $(ts_expect_re "$ver")\\([^0-9.]\\|\\.\$\\|\$\\)/\\1 @VERSION@\\2/g")
	sed "${args[@]}"
}

# ts_expect_error NAME MESSAGE: a mistake of the test, not of the program;
# recorded for ts_expect_done too, since a pipe's subshell exits alone
ts_expect_error() {
	echo "$1(error)" >> "$TS_TMP/.expect.failed"
	echo "$TS_NAME: ts_expect $1: $2" >&2
	exit 99
}

# ts_expect NAME [FILE]
ts_expect() {
	local name=$1 file=${2:--} dir exp act
	case $name in
	'' | *[!A-Za-z0-9._-]* | .*) ts_expect_error "$name" "bad name" ;;
	esac
	mkdir -p "$TS_TMP/.expect"
	act=$TS_TMP/.expect/$name
	[ -e "$act" ] && ts_expect_error "$name" "the name is used twice"
	if [ "$file" = - ]; then
		ts_expect_normalise > "$act"
	else
		[ -r "$file" ] || ts_expect_error "$name" "cannot read $file"
		ts_expect_normalise < "$file" > "$act"
	fi || ts_expect_error "$name" "normalising failed"
	dir=$(ts_expect_dir)
	exp=$dir/$name
	if [ "${ALIGNPROBE_UPDATE_EXPECTED:-0}" = 1 ]; then
		if ! mkdir -p "$dir" || ! cp "$act" "$exp"; then
			ts_expect_error "$name" "cannot write $exp"
		fi
		[ -s "$act" ] || ts_log "warning: $name is empty"
		return 0
	fi
	if [ ! -f "$exp" ]; then
		ts_log "$name: no $exp (ALIGNPROBE_UPDATE_EXPECTED=1 writes it)"
	elif ! diff -u --label "tests/expected/${dir##*/}/$name" --label "actual output" \
		"$exp" "$act" >&2; then
		ts_log "$name: the output differs from the expected (above)"
	else
		return 0
	fi
	echo "$name" >> "$TS_TMP/.expect.failed"
	return 1
}

# ts_expect_run NAME CMD...: "$ CMD" (alignprobe for $ALIGNPROBE), stdout,
# "--- stderr" and stderr when there is any, "exit: N". A stream without a
# final newline gets one and the line "--- no newline at the end".
ts_expect_run() {
	local name=$1 out=$TS_TMP/.expect-out err=$TS_TMP/.expect-err rc a line='' to=''
	shift
	for a in "$@"; do
		[ "$a" = "$ALIGNPROBE" ] && a=alignprobe
		[ -n "$line" ] && line="$line "
		case $a in
		'' | *[!A-Za-z0-9_./:=,+@%-]*) line="$line$(printf '%q' "$a")" ;;
		*) line="$line$a" ;;
		esac
	done
	# a hang fails this test rather than stopping the whole run
	command -v timeout >/dev/null 2>&1 && to="timeout -k 10 ${TS_WAIT_LIMIT:-600}"
	$to env -u COLUMNS -u LINES -u ALIGNPROBE_VERDICTS -u ALIGNPROBE_JOURNAL_DIR \
		-u ALIGNPROBE_PROGRESS_FD -u LIBFDISK_DEBUG -u LIBBLKID_DEBUG -u LIBSMARTCOLS_DEBUG \
		"$@" > "$out" 2> "$err" < /dev/null
	rc=$?
	{
		printf '$ %s\n' "$line"
		cat "$out"
		[ -s "$out" ] && [ -n "$(tail -c 1 "$out")" ] && printf '\n--- no newline at the end\n'
		if [ -s "$err" ]; then
			echo "--- stderr"
			cat "$err"
			[ -n "$(tail -c 1 "$err")" ] && printf '\n--- no newline at the end\n'
		fi
		echo "exit: $rc"
	} > "$TS_TMP/.expect-all"
	ts_expect "$name" "$TS_TMP/.expect-all"
}

# ts_expect_done: pass when every output was as expected; fail naming the
# ones that were not, and the expected files no subtest compared
ts_expect_done() {
	local dir f n total unused='' failed=''
	dir=$(ts_expect_dir)
	total=$(find "$TS_TMP/.expect" -maxdepth 1 -type f 2>/dev/null | wc -l)
	for f in "$dir"/*; do
		[ -f "$f" ] || continue
		n=${f##*/}
		[ -e "$TS_TMP/.expect/$n" ] && continue
		if [ "${ALIGNPROBE_UPDATE_EXPECTED:-0}" = 1 ]; then
			rm -f "$f" && ts_log "removed $f: no subtest writes it any more"
		else
			unused="$unused $n"
		fi
	done
	[ -f "$TS_TMP/.expect.failed" ] && failed=$(paste -sd ' ' "$TS_TMP/.expect.failed")
	if [ "${ALIGNPROBE_UPDATE_EXPECTED:-0}" = 1 ]; then
		[ -z "$failed" ] || ts_fail "not written: $failed"
		ts_log "$total expected outputs written to $dir (review them with git diff)"
		ts_pass
	fi
	[ "$total" -gt 0 ] || ts_fail "no output compared"
	[ -z "$unused" ] ||
		ts_log "expected outputs that no subtest compared:$unused (ALIGNPROBE_UPDATE_EXPECTED=1 removes them)"
	[ -z "$failed" ] ||
		ts_log "not as expected ($total compared with $dir): $failed (if intended: ALIGNPROBE_UPDATE_EXPECTED=1, then review git diff)"
	[ -z "$unused$failed" ] || ts_fail "output not as expected (see above)"
	ts_log "$total outputs as expected"
	ts_pass
}
