# SPDX-License-Identifier: GPL-2.0-or-later
#
# Shared by every integration test (tests/ts/<area>/<test>.sh):
#
#	. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
#	ts_init "what this test proves"
#	ts_need_root; ts_need_loop; ts_need_fuse
#	dev=$(ts_emu_attach --phys 4096 ...)
#	ts_subtest first-case
#	...
#	ts_subtest second-case
#	...
#	ts_pass
#
# A test speaks TAP on its standard output, which the automake harness
# (build-aux/tap-driver.sh) reads: one line per case -- "ok N - NAME",
# "not ok N - NAME: reason", "ok N - NAME # SKIP reason" -- and the plan
# "1..N" at the end. A case is a subtest (ts_subtest NAME, each ts_expect
# and ts_expect_run); a test without subtests is one case named after
# itself. Everything else the test and its commands print goes to stderr,
# into the test's .log. ts_fail reports the open case as failed and ends
# the test; ts_skip reports a skip (the whole test, "1..0 # SKIP reason",
# when no case has been reported yet) and ends it, except under
# ALIGNPROBE_REQUIRE_DEVICES=1 (CI), where it fails; a hard error (exit 99)
# stays an error. Under the harness (TS_HARNESS=tap, set by Makefile.am)
# the verdict is the TAP stream and a test that reported it exits 0; run
# alone it exits 0 pass, 1 fail, 77 skip, 99 hard error.
#
# TS_ONLY='name,glob*' reports only the cases of those names, and skips
# the commands of the ts_expect_run cases it leaves out. Everything a test
# attaches, mounts or creates is recorded and removed on exit, also when
# the test fails or is interrupted. Each test gets a state directory of
# its own, so `alignprobe cleanup` in one test never touches another's
# resources.

set -u

: "${top_srcdir:=$(cd "$(dirname "$0")/../../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
: "${ALIGNPROBE:=$top_builddir/alignprobe}"
export LC_ALL=C TZ=UTC

TS_NAME=$(basename "$(dirname "$0")")/$(basename "$0" .sh)
TS_TMP=
# the system's python3 first (tests/helpers/jsondoc.py)
TS_PY=$(command -v /usr/bin/python3 || command -v python3)

# ---- TAP --------------------------------------------------------------------
#
# The TAP lines go to the standard output the test was started with (fd
# TS_TAP_FD); the test's own standard output is its stderr from here on,
# so that nothing a command prints can pass for a TAP line, and a case
# reported inside $(...) still reaches the harness. The number of cases
# and whether one failed are kept in files under $TS_TMP (once ts_init
# made it), so that a case reported in a subshell counts too.

if [ -z "${TS_TAP_FD:-}" ]; then
	exec {TS_TAP_FD}>&1 >&2
fi
TS_TAP_N=0 TS_TAP_FAILED=0 TS_TAP_PLANNED=0
TS_SUBTEST= TS_SUBTEST_AT=0

ts_log() { printf '%s: %s\n' "$TS_NAME" "$*" >&2; }

# the number of cases reported so far
ts_tap_count() {
	if [ -n "$TS_TMP" ] && [ -f "$TS_TMP/.tap-n" ]; then
		cat "$TS_TMP/.tap-n"
	else
		echo "$TS_TAP_N"
	fi
}

# ts_tap_report ok|not-ok NAME [DIRECTIVE-OR-REASON]: one TAP line
ts_tap_report() {
	local n
	n=$(($(ts_tap_count) + 1))
	TS_TAP_N=$n
	[ -n "$TS_TMP" ] && [ -d "$TS_TMP" ] && echo "$n" > "$TS_TMP/.tap-n"
	if [ "$1" = ok ]; then
		printf 'ok %d - %s%s\n' "$n" "$2" "${3:+ $3}" >&"$TS_TAP_FD"
	else
		TS_TAP_FAILED=1
		[ -n "$TS_TMP" ] && [ -d "$TS_TMP" ] && : > "$TS_TMP/.tap-failed"
		printf 'not ok %d - %s%s\n' "$n" "$2" "${3:+: $3}" | tr '\n' ' ' | sed 's/ $/\n/' >&"$TS_TAP_FD"
	fi
}

ts_tap_failed() {
	[ "$TS_TAP_FAILED" = 1 ] || { [ -n "$TS_TMP" ] && [ -f "$TS_TMP/.tap-failed" ]; }
}

# the case a ts_fail or ts_skip now is about: the open subtest, else the test
ts_tap_case() { printf '%s\n' "${TS_SUBTEST:-$TS_NAME}"; }

# the open subtest, if it has not been reported yet (from a subshell), passed
ts_subtest_close() {
	if [ -n "$TS_SUBTEST" ] && [ "$(ts_tap_count)" = "$TS_SUBTEST_AT" ]; then
		ts_tap_report ok "$TS_SUBTEST"
	fi
	TS_SUBTEST=
}

# ts_selected NAME: NAME is one of TS_ONLY's names or patterns (or TS_ONLY
# is empty)
ts_selected() {
	local p IFS=', '
	local -
	[ -z "${TS_ONLY:-}" ] && return 0
	set -f
	for p in $TS_ONLY; do
		# shellcheck disable=SC2254
		case $1 in $p) return 0 ;; esac
	done
	return 1
}

# ts_subtest NAME: the case NAME begins (the open one passed); 1 when
# TS_ONLY leaves it out (`ts_subtest NAME || continue` in a loop)
ts_subtest() {
	ts_subtest_close
	ts_selected "$1" || return 1
	TS_SUBTEST=$1
	TS_SUBTEST_AT=$(ts_tap_count)
}

# ts_subtest_fail REASON: the open subtest failed, the test goes on to the
# next (and fails in the end); ts_fail instead ends the test
ts_subtest_fail() {
	local name
	name=$(ts_tap_case)
	TS_SUBTEST=
	ts_log "FAIL: $name: $*"
	ts_tap_report not-ok "$name" "$*"
}

# ts_subtest_skip REASON: the open subtest is skipped, the test goes on
# (fails under ALIGNPROBE_REQUIRE_DEVICES=1)
ts_subtest_skip() {
	local name
	name=$(ts_tap_case)
	TS_SUBTEST=
	if [ "${ALIGNPROBE_REQUIRE_DEVICES:-0}" = 1 ]; then
		ts_log "FAIL: $name: $* (required: ALIGNPROBE_REQUIRE_DEVICES=1)"
		ts_tap_report not-ok "$name" "$* (required: ALIGNPROBE_REQUIRE_DEVICES=1)"
	else
		ts_log "SKIP: $name: $*"
		ts_tap_report ok "$name" "# SKIP $*"
	fi
}

# ts_tap_end RC: the plan, once, and the exit status for RC (0 pass, 1
# fail, 77 skip, else a hard error): under the harness the TAP lines say
# the verdict, so a failure or skip they report exits 0
ts_tap_end() {
	local rc=$1
	if [ "$TS_TAP_PLANNED" = 0 ]; then
		TS_TAP_PLANNED=1
		printf '1..%d\n' "$(ts_tap_count)" >&"$TS_TAP_FD"
	fi
	case $rc in
	0 | 1 | 77) ts_tap_failed && rc=1 ;;
	esac
	case $rc in
	1 | 77) [ "${TS_HARNESS:-}" = tap ] && rc=0 ;;
	esac
	return "$rc"
}

# in a subshell (a $(...), a pipe) only the subshell ends: the test's own
# shell reports the plan and the verdict
ts_in_subshell() { [ "$BASHPID" != "$$" ]; }

ts_fail() {
	printf '%s: FAIL: %s\n' "$TS_NAME" "$*" >&2
	ts_tap_report not-ok "$(ts_tap_case)" "$*"
	ts_in_subshell && exit 1
	TS_SUBTEST=
	ts_tap_end 1
	exit
}

ts_pass() {
	ts_in_subshell && exit 0
	ts_subtest_close
	[ "$(ts_tap_count)" = 0 ] && ts_tap_report ok "$TS_NAME"
	if ts_tap_failed; then
		printf '%s: FAIL (see the cases above)\n' "$TS_NAME" >&2
	else
		printf '%s: PASS\n' "$TS_NAME" >&2
	fi
	ts_tap_end 0
	exit
}

# ts_skip REASON: skip the rest of the test
ts_skip() {
	local why="$*" n
	[ "${ALIGNPROBE_SKIP_INTEGRATION:-0}" = 1 ] &&
		why="integration tests disabled (ALIGNPROBE_SKIP_INTEGRATION=1)"
	if [ "${ALIGNPROBE_REQUIRE_DEVICES:-0}" = 1 ] && [ "${ALIGNPROBE_SKIP_INTEGRATION:-0}" != 1 ]; then
		ts_fail "$why (required: ALIGNPROBE_REQUIRE_DEVICES=1)"
	fi
	printf '%s: SKIP: %s\n' "$TS_NAME" "$why" >&2
	n=$(ts_tap_count)
	if [ -z "$TS_SUBTEST" ] && [ "$n" = 0 ]; then
		ts_in_subshell && exit 77
		TS_TAP_PLANNED=1
		printf '1..0 # SKIP %s\n' "$why" >&"$TS_TAP_FD"
	else
		ts_tap_report ok "$(ts_tap_case)" "# SKIP $why"
		ts_in_subshell && exit 77
		TS_SUBTEST=
	fi
	ts_tap_end 77
	exit
}

# ts_tap_exit RC: on an exit without ts_pass, ts_fail or ts_skip (a plain
# `exit N`, the end of the script, a signal), the cases and the plan that
# RC means; returns the exit status
ts_tap_exit() {
	local rc=$1
	[ "$TS_TAP_PLANNED" = 1 ] && return "$rc"
	case $rc in
	0)
		ts_subtest_close
		[ "$(ts_tap_count)" = 0 ] && ts_tap_report ok "$TS_NAME"
		;;
	1) ts_tap_failed || ts_tap_report not-ok "$(ts_tap_case)" "exited with status 1" ;;
	77)
		if [ -z "$TS_SUBTEST" ] && [ "$(ts_tap_count)" = 0 ]; then
			TS_TAP_PLANNED=1
			echo '1..0 # SKIP exited with status 77' >&"$TS_TAP_FD"
		else
			ts_tap_report ok "$(ts_tap_case)" "# SKIP exited with status 77"
		fi
		;;
	esac
	ts_tap_end "$rc"
}

ts_cleanup() {
	local rc=$? x
	trap - EXIT INT TERM HUP
	# the TAP reader may be gone (make check interrupted): a write to it
	# then fails instead of ending the cleanup before it detached anything
	trap '' PIPE
	ts_in_subshell || { ts_tap_exit "$rc"; rc=$?; }
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
	[ "${ALIGNPROBE_SKIP_INTEGRATION:-0}" = 1 ] && ts_skip
	[ -x "$ALIGNPROBE" ] || { echo "$TS_NAME: $ALIGNPROBE not built" >&2; exit 99; }
	TS_TMP=$(mktemp -d /tmp/alignprobe-ts.XXXXXX) || exit 99
	mkdir -p "$TS_TMP/state"
	export ALIGNPROBE_STATE_DIR="$TS_TMP/state"
	trap ts_cleanup EXIT
	trap 'exit 130' INT TERM HUP
	trap 'exit 141' PIPE	# its reader gone: exit through the cleanup
	[ $# -gt 0 ] && ts_log "$*"
	return 0
}

# ts_alone WHY: under `make -jN check` this test must have the machine to
# itself (its timing or its own load would not share it). The harness's
# wrapper, tests/harness-lock.sh, finds the call in the script before the
# test starts, so it stands at the start of a line of its own; here it
# only says why.
ts_alone() { ts_log "runs alone: $*"; }

# ts_untimed WHY: nothing this test asserts depends on how fast a drive
# (emulated or not) answers: it times no drive. Where every timed test must
# have the machine to itself (AP_TEST_TIMED_ALONE=1: CI's ASan pass, whose
# load moved three timed tests' figures), such a test still runs beside
# other untimed ones and the unit tests. A marker for tests/harness-lock.sh,
# like ts_alone.
ts_untimed() { ts_log "times no drive: $*"; }

ts_need_root() {
	[ "$(id -u)" = 0 ] || ts_skip "needs root"
}

# The subcommands, one a line, as `alignprobe --help` lists them under
# "Commands:" (src/main.c's command table): every test that goes over the
# commands takes them from here, so a new command is checked without a list
# to edit.
ts_commands() {
	"$ALIGNPROBE" --help | awk '/^Commands:/ { on = 1; next } on && /^[^ ]/ { on = 0 } on && /^ +[a-z]/ { print $1 }'
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

# ts_loop_seq NAME: the disk sequence number of loop device NAME (loop3):
# the kernel raises it at every attach and detach, so an unchanged number
# means the same attachment, where a backing file's name can be anybody's
# (a number released and reused by another test, or "/disk" over a lazily
# detached mount)
ts_loop_seq() {
	cat "/sys/block/${1#/dev/}/diskseq" 2>/dev/null || ts_fail "no disk sequence number for $1"
}

# ts_loop_same NAME SEQ: NAME is still the attachment numbered SEQ
ts_loop_same() {
	[ "$(cat "/sys/block/${1#/dev/}/diskseq" 2>/dev/null)" = "$2" ]
}

# ts_qemu_export IMAGE FILE [FORMAT]: QEMU's own driver of FORMAT (qcow2)
# serving IMAGE as FILE (created; qemu-storage-daemon's FUSE export,
# writable), which a loop device can attach; the daemon's log in IMAGE.log.
# Prints its PID. The export is unmounted and the daemon killed when the
# test ends.
ts_qemu_export() {
	local pid
	: > "$2" || ts_fail "cannot create $2"
	echo "$2" >> "$TS_TMP/.mounts"
	qemu-storage-daemon \
		--blockdev "driver=file,node-name=f,filename=$1" \
		--blockdev "driver=${3:-qcow2},node-name=q,file=f" \
		--export "type=fuse,id=e,node-name=q,mountpoint=$2,writable=on" \
		> "$1.log" 2>&1 &
	pid=$!
	ts_bg_pid "$pid"
	ts_wait_for -p "$pid" "the FUSE export of $1" grep -q " $2 fuse" /proc/self/mounts ||
		{ cat "$1.log" >&2; ts_fail "qemu-storage-daemon did not export $1"; }
	echo "$pid"
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

# ts_next_steps JSON TOOL [WORD]: run every step of the document's
# next_steps whose command[0] is TOOL (and that has the word WORD), argv as
# given, its stdin fed; the first failure fails the test
ts_next_steps() {
	python3 - "$1" "$2" "${3:-}" <<'PY' || ts_fail "a next step failed ($2 ${3:-})"
import json, subprocess, sys
doc, tool, word = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3] or None
steps = [s for s in doc["next_steps"] if s["command"][0] == tool
         and (word is None or word in s["command"])]
assert steps, "no %s step" % tool
for s in steps:
    r = subprocess.run(s["command"], input=(s["stdin"] or "").encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    sys.stderr.write("ran %s: exit %d\n" % (s["command"], r.returncode))
    if r.returncode:
        sys.stderr.write(r.stdout.decode())
        sys.exit(1)
PY
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

# ts_json FILE EXPR: print EXPR, a Python expression of d, FILE's JSON
# document (tests/helpers/jsondoc.py get); fails the test when FILE is no
# JSON or EXPR cannot be evaluated
ts_json() {
	"$TS_PY" "$top_srcdir/tests/helpers/jsondoc.py" get "$1" "$2" ||
		ts_fail "cannot evaluate $2 on $1"
}

# ts_json_check FILE [ARGS] <<'EOF' ... EOF: Python statements about d
# (FILE's JSON document) and args, with eq(got, want, what) and
# check(cond, what) (tests/helpers/jsondoc.py check); 1, every failure
# printed on stderr, when one failed
ts_json_check() {
	"$TS_PY" "$top_srcdir/tests/helpers/jsondoc.py" check "$@" >&2
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
# tests/expected/<area>/<test>-<case> (util-linux's layout: the expected
# outputs of tests/ts/<area>/<test>.sh, one file per case): a change of a
# help text, a table, a JSON document, a message or an exit status shows
# in review as a change of these files.
#
#	ts_expect_run CASE CMD...	run CMD (stdin /dev/null, in the current
#					directory) and compare its command line,
#					stdout, stderr and exit status
#	ts_expect CASE [FILE]		compare FILE, or stdin, as it is (also
#					at the end of a pipe)
#	ts_expect_done			fail if any differed, else pass
#
# Each CASE is a subtest of its own: reported ok or not ok at once, and
# the test goes on to the next. Normalised, and only that: this test's
# temporary directory (@TMP@), the source and build trees (@SRCDIR@,
# @BUILDDIR@) and the package version after "alignprobe " or "version "
# (@VERSION@); the rest must match byte for byte (ts_init's directory
# name has a fixed length, so the widths of table columns holding its
# paths do not vary). A test filters anything else volatile (a timestamp)
# itself, visibly. With ALIGNPROBE_UPDATE_EXPECTED=1 the files are
# (re)written instead, and the test's files no case wrote any more are
# removed: review the result with git diff. TS_ONLY compares (or writes)
# only the cases it names, and removes nothing.
#
# The outputs and the names of the failed ones are kept in files under
# $TS_TMP/.expect, so that ts_expect works in the subshell of a pipe.

# the directory of this test's expected files, tests/expected/<area>
ts_expect_dir() {
	printf '%s/tests/expected/%s\n' "$top_srcdir" "${TS_NAME%/*}"
}

# the expected file of CASE: tests/expected/<area>/<test>-<case>
ts_expect_file() {
	printf '%s/%s-%s\n' "$(ts_expect_dir)" "${TS_NAME#*/}" "$1"
}

# ts_expect_owned FILE: FILE (a name in ts_expect_dir) is one of this
# test's, not one of a test whose name begins with this one's and a "-"
# (probe/output-x.sh's output-x-* are not probe/output.sh's)
ts_expect_owned() {
	local t=${TS_NAME#*/} s o
	case $1 in "$t"-*) ;; *) return 1 ;; esac
	for s in "$(dirname "$0")/$t"-*.sh; do
		[ -f "$s" ] || continue
		o=$(basename "$s" .sh)
		case $1 in "$o"-*) return 1 ;; esac
	done
	return 0
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

# ts_expect_error CASE MESSAGE: a mistake of the test, not of the program:
# a hard error (exit 99); recorded for ts_expect_done too, since a pipe's
# subshell exits alone
ts_expect_error() {
	echo "$1(error)" >> "$TS_TMP/.expect.failed"
	echo "$TS_NAME: ts_expect $1: $2" >&2
	ts_tap_report not-ok "$1" "error: $2"
	exit 99
}

# ts_expect CASE [FILE]
ts_expect() {
	local name=$1 file=${2:--} exp act
	ts_subtest_close
	case $name in
	'' | *[!A-Za-z0-9._-]* | .*) ts_expect_error "$name" "bad name" ;;
	esac
	if ! ts_selected "$name"; then
		[ "$file" = - ] && cat > /dev/null
		return 0
	fi
	mkdir -p "$TS_TMP/.expect"
	act=$TS_TMP/.expect/$name
	[ -e "$act" ] && ts_expect_error "$name" "the name is used twice"
	if [ "$file" = - ]; then
		ts_expect_normalise > "$act"
	else
		[ -r "$file" ] || ts_expect_error "$name" "cannot read $file"
		ts_expect_normalise < "$file" > "$act"
	fi || ts_expect_error "$name" "normalising failed"
	exp=$(ts_expect_file "$name")
	if [ "${ALIGNPROBE_UPDATE_EXPECTED:-0}" = 1 ]; then
		if ! mkdir -p "${exp%/*}" || ! cp "$act" "$exp"; then
			ts_expect_error "$name" "cannot write $exp"
		fi
		[ -s "$act" ] || ts_log "warning: $name is empty"
		ts_tap_report ok "$name" "# written"
		return 0
	fi
	if [ ! -f "$exp" ]; then
		ts_log "$name: no ${exp#"$top_srcdir"/} (ALIGNPROBE_UPDATE_EXPECTED=1 writes it)"
		ts_tap_report not-ok "$name" "no ${exp#"$top_srcdir"/}"
	elif ! diff -u --label "${exp#"$top_srcdir"/}" --label "actual output" \
		"$exp" "$act" >&2; then
		ts_log "$name: the output differs from the expected (above)"
		ts_tap_report not-ok "$name" "the output differs from ${exp#"$top_srcdir"/}"
	else
		ts_tap_report ok "$name"
		return 0
	fi
	echo "$name" >> "$TS_TMP/.expect.failed"
	return 1
}

# ts_expect_run CASE CMD...: "$ CMD" (alignprobe for $ALIGNPROBE), stdout,
# "--- stderr" and stderr when there is any, "exit: N". A stream without a
# final newline gets one and the line "--- no newline at the end".
ts_expect_run() {
	local name=$1 out=$TS_TMP/.expect-out err=$TS_TMP/.expect-err rc a line='' to=''
	shift
	ts_selected "$name" || { ts_subtest_close; return 0; }
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
# ones that were not, and the expected files no case compared
ts_expect_done() {
	local dir f n total unused='' failed='' t=${TS_NAME#*/}-
	dir=$(ts_expect_dir)
	total=$(find "$TS_TMP/.expect" -maxdepth 1 -type f 2>/dev/null | wc -l)
	for f in "$dir/$t"*; do
		[ -f "$f" ] || continue
		n=${f##*/}
		ts_expect_owned "$n" || continue
		[ -e "$TS_TMP/.expect/${n#"$t"}" ] && continue
		[ -n "${TS_ONLY:-}" ] && continue
		if [ "${ALIGNPROBE_UPDATE_EXPECTED:-0}" = 1 ]; then
			rm -f "$f" && ts_log "removed $f: no case writes it any more"
		else
			unused="$unused ${n#"$t"}"
		fi
	done
	[ -f "$TS_TMP/.expect.failed" ] && failed=$(paste -sd ' ' "$TS_TMP/.expect.failed")
	if [ "${ALIGNPROBE_UPDATE_EXPECTED:-0}" = 1 ]; then
		[ -z "$failed" ] || ts_fail "not written: $failed"
		ts_log "$total expected outputs written to $dir (review them with git diff)"
		ts_pass
	fi
	[ "$total" -gt 0 ] || ts_fail "no output compared"
	if [ -n "$unused" ]; then
		ts_log "expected outputs that no case compared:$unused (ALIGNPROBE_UPDATE_EXPECTED=1 removes them)"
		ts_subtest unused-expected-files
		ts_fail "expected outputs of $dir that no case compared:$unused"
	fi
	if [ -n "$failed" ]; then
		ts_log "not as expected ($total compared with $dir): $failed (if intended: ALIGNPROBE_UPDATE_EXPECTED=1, then review git diff)"
		case $failed in *'(error)'*) exit 99 ;; esac
	else
		ts_log "$total outputs as expected"
	fi
	ts_pass
}
