#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The test framework itself (tests/ts/functions.sh) as the automake TAP
# driver (build-aux/tap-driver.sh, as make check runs it) reads it: tiny
# tests written here, each run through the driver, and the verdicts of
# their .trs files. A failing subtest, a failure inside $(...), an output
# not as expected, a plain `exit 1` make the test FAIL; a skip is a SKIP,
# but a FAIL under ALIGNPROBE_REQUIRE_DEVICES=1; a hard error (exit 99)
# is an ERROR, and so is a non-zero exit after nothing but "ok" lines;
# every case is one result. Run alone, a test exits 1 on a failure, 77 on
# a skip. If subtests stopped being reported, or a failure stopped
# failing the test, this test fails (a failed check exits 99, which the
# driver takes for an error even if the framework's not-ok lines broke).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "the framework's TAP as the harness reads it"
ts_untimed "the command line and its messages"

# fw_fail MESSAGE: a check failed. Reported by the framework under test,
# and then exit 99, a hard error for the driver whatever that framework
# does: if its failure reporting is what broke, this test still fails.
fw_fail() {
	(ts_fail "$@")
	exit 99
}

src=$TS_TMP/src
mkdir -p "$src/tests/ts/demo" "$src/tests/expected/demo" || exit 99
cp "$top_srcdir/tests/ts/functions.sh" "$src/tests/ts/" || exit 99

# fw_child NAME < BODY: a test tests/ts/demo/NAME.sh of the fake tree
fw_child() {
	{
		echo '#!/bin/bash'
		echo '. "$top_srcdir/tests/ts/functions.sh"'
		echo 'ts_init "a test of the framework test"'
		cat
	} > "$src/tests/ts/demo/$1.sh"
}

# fw_exp TEST CASE: the expected file of demo/TEST.sh's CASE
fw_exp() { echo "$src/tests/expected/demo/$1-$2"; }

# fw_run NAME [VAR=VALUE...]: NAME through the TAP driver; its .trs is
# $TS_TMP/NAME.trs, its .log $TS_TMP/NAME.log
fw_run() {
	local name=$1
	shift
	env -u TS_ONLY -u ALIGNPROBE_UPDATE_EXPECTED -u ALIGNPROBE_SKIP_INTEGRATION \
		ALIGNPROBE_REQUIRE_DEVICES=0 TS_HARNESS=tap top_srcdir="$src" "$@" \
		AM_TAP_AWK="${AWK:-awk}" bash "$top_srcdir/build-aux/tap-driver.sh" \
		--test-name "demo/$name.sh" --log-file "$TS_TMP/$name.log" --trs-file "$TS_TMP/$name.trs" \
		--color-tests no --enable-hard-errors yes --expect-failure no -- \
		bash "$src/tests/ts/demo/$name.sh" > "$TS_TMP/$name.driver" 2>&1 ||
		fw_fail "the TAP driver failed on $name: $(cat "$TS_TMP/$name.driver")"
}

# fw_verdict NAME GLOBAL RESULTS: the .trs says GLOBAL (PASS, FAIL, SKIP,
# ERROR) and lists RESULTS, e.g. "PASS PASS FAIL", in that order
fw_verdict() {
	local got
	got=$(sed -n 's/^:global-test-result: //p' "$TS_TMP/$1.trs")
	[ "$got" = "$2" ] || { cat "$TS_TMP/$1.log" >&2; fw_fail "$1: the harness says '$got', expected '$2'"; }
	got=$(sed -n 's/^:test-result: //p' "$TS_TMP/$1.trs" | paste -sd ' ')
	[ "$got" = "$3" ] || { cat "$TS_TMP/$1.log" >&2; fw_fail "$1: the cases are '$got', expected '$3'"; }
}

# fw_alone NAME RC [VAR=VALUE...]: NAME run alone (no harness) exits RC
fw_alone() {
	local name=$1 want=$2 rc
	shift 2
	env -u TS_ONLY -u ALIGNPROBE_UPDATE_EXPECTED -u ALIGNPROBE_SKIP_INTEGRATION -u TS_HARNESS \
		ALIGNPROBE_REQUIRE_DEVICES=0 top_srcdir="$src" "$@" \
		bash "$src/tests/ts/demo/$name.sh" > "$TS_TMP/$name.alone" 2>&1
	rc=$?
	[ "$rc" = "$want" ] || { cat "$TS_TMP/$name.alone" >&2; fw_fail "$name alone exited $rc, expected $want"; }
}

ts_subtest passing-subtests
fw_child pass3 <<'EOF'
ts_subtest a
ts_subtest b
echo "ok 99 - a line a command prints is no case"
ts_subtest c
ts_pass
EOF
fw_run pass3
fw_verdict pass3 PASS "PASS PASS PASS"
grep -qx 'ok 2 - b' "$TS_TMP/pass3.log" || fw_fail "pass3: no 'ok 2 - b' in its log"
fw_alone pass3 0

ts_subtest no-subtests
fw_child plain <<'EOF'
ts_pass
EOF
fw_run plain
fw_verdict plain PASS "PASS"
grep -qx 'ok 1 - demo/plain' "$TS_TMP/plain.log" || fw_fail "plain: not named after itself"

ts_subtest failing-subtest
fw_child failsub <<'EOF'
ts_subtest a
ts_subtest b
ts_fail "boom"
ts_subtest c
ts_pass
EOF
fw_run failsub
fw_verdict failsub FAIL "PASS FAIL"
grep -qx 'not ok 2 - b: boom' "$TS_TMP/failsub.log" || fw_fail "failsub: no 'not ok 2 - b: boom'"
fw_alone failsub 1

ts_subtest failing-subtest-goes-on
fw_child softfail <<'EOF'
ts_subtest a
ts_subtest_fail "soft"
ts_subtest b
ts_pass
EOF
fw_run softfail
fw_verdict softfail FAIL "FAIL PASS"
fw_alone softfail 1

ts_subtest fail-in-subshell
fw_child subshell <<'EOF'
ts_subtest a
x=$(ts_fail "inside \$(...)"; echo never)
[ -z "$x" ] || echo "$x"
ts_subtest b
ts_pass
EOF
fw_run subshell
fw_verdict subshell FAIL "FAIL PASS"
fw_alone subshell 1

ts_subtest plain-exit
fw_child exit1 <<'EOF'
ts_subtest a
ts_subtest b
exit 1
EOF
fw_run exit1
fw_verdict exit1 FAIL "PASS FAIL"

ts_subtest expected-output
fw_child expect <<'EOF'
ts_expect_run good echo hi
ts_expect_run bad echo hi
echo hi | ts_expect piped
ts_expect_done
EOF
printf '$ echo hi\nhi\nexit: 0\n' > "$(fw_exp expect good)"
printf '$ echo hi\nho\nexit: 0\n' > "$(fw_exp expect bad)"
printf 'hi\n' > "$(fw_exp expect piped)"
fw_run expect
fw_verdict expect FAIL "PASS FAIL PASS"
fw_alone expect 1
fw_run expect TS_ONLY=good,pip*
fw_verdict expect PASS "PASS PASS"

ts_subtest only-selected-loop-cases
fw_child loop <<'EOF'
for c in one two three; do
	ts_subtest "$c" || continue
	echo "ran $c" >&2
done
ts_pass
EOF
fw_run loop TS_ONLY=t*
fw_verdict loop PASS "PASS PASS"
grep -q '^ran one$' "$TS_TMP/loop.log" && fw_fail "loop: TS_ONLY=t* ran case one"

ts_subtest unused-expected
fw_child unused <<'EOF'
ts_expect_run good echo hi
ts_expect_done
EOF
cp "$(fw_exp expect good)" "$(fw_exp unused good)"
cp "$(fw_exp expect good)" "$(fw_exp unused gone)"
# another test's file, although its name begins with unused-
fw_child unused-x <<'EOF'
ts_pass
EOF
cp "$(fw_exp expect good)" "$(fw_exp unused-x other)"
fw_run unused
fw_verdict unused FAIL "PASS FAIL"
grep -q '^not ok 2 - unused-expected-files: .* gone$' "$TS_TMP/unused.log" ||
	fw_fail "unused: the unused file not named (or another test's file named)"
fw_run unused ALIGNPROBE_UPDATE_EXPECTED=1
fw_verdict unused PASS "PASS"
[ ! -e "$(fw_exp unused gone)" ] && [ -e "$(fw_exp unused-x other)" ] ||
	fw_fail "unused: ALIGNPROBE_UPDATE_EXPECTED=1 removed the wrong files"

ts_subtest skip
fw_child skip <<'EOF'
ts_skip "no such thing here"
ts_subtest never
ts_pass
EOF
fw_run skip
fw_verdict skip SKIP "SKIP"
grep -qx '1..0 # SKIP no such thing here' "$TS_TMP/skip.log" || fw_fail "skip: no plan 1..0 with the reason"
fw_alone skip 77

ts_subtest skip-required-devices
fw_run skip ALIGNPROBE_REQUIRE_DEVICES=1
fw_verdict skip FAIL "FAIL"
fw_alone skip 1 ALIGNPROBE_REQUIRE_DEVICES=1

ts_subtest skip-one-subtest
fw_child skipsub <<'EOF'
ts_subtest a
ts_subtest b
ts_subtest_skip "not on this kernel"
ts_subtest c
ts_skip "none of the rest either"
EOF
fw_run skipsub
fw_verdict skipsub PASS "PASS SKIP SKIP"
fw_alone skipsub 77
fw_run skipsub ALIGNPROBE_REQUIRE_DEVICES=1
fw_verdict skipsub FAIL "PASS FAIL FAIL"

ts_subtest hard-error
fw_child hard <<'EOF'
ts_subtest a
ts_subtest b
exit 99
EOF
fw_run hard
fw_verdict hard ERROR "PASS ERROR"

ts_subtest nonzero-exit-all-ok
# no framework: only "ok" lines and a plan, but exit 1 (the driver runs
# without --ignore-exit)
printf '#!/bin/bash\necho "ok 1 - x"\necho "1..1"\nexit 1\n' > "$src/tests/ts/demo/raw.sh"
fw_run raw
fw_verdict raw ERROR "PASS ERROR"

ts_subtest harness-lock
# tests/harness-lock.sh's modes: the script under it sees whether it holds
# the machine alone (a shared lock of its own cannot be had beside an
# exclusive one). ts_alone: always alone; AP_TEST_TIMED_ALONE=1 (CI's ASan
# pass): every script alone but those that call ts_untimed.
hl=$TS_TMP/hl
mkdir -p "$hl" || exit 99
for kind in timed untimed alone; do
	{
		echo '#!/bin/sh'
		echo 'ts_untimed() { :; }; ts_alone() { :; }'
		case $kind in
		untimed) echo 'ts_untimed "times no drive"' ;;
		alone) echo 'ts_alone "has the machine"' ;;
		esac
		echo 'if flock -n -s "$AP_TEST_LOCK" true; then echo shared; else echo alone; fi'
	} > "$hl/$kind.sh" && chmod +x "$hl/$kind.sh" || exit 99
done
# hl_expect KIND MODE [VAR=VALUE...]: harness-lock.sh runs KIND.sh in MODE
hl_expect() {
	local kind=$1 want=$2 got
	shift 2
	got=$(env -u AP_TEST_TIMED_ALONE "$@" AP_TEST_LOCK="$hl/lock" \
		sh "$top_srcdir/tests/harness-lock.sh" "$hl/$kind.sh")
	[ "$got" = "$want" ] || ts_subtest_fail "$* $kind.sh ran $got, expected $want"
}
hl_expect timed shared
hl_expect untimed shared
hl_expect alone alone
hl_expect timed alone AP_TEST_TIMED_ALONE=1
hl_expect untimed shared AP_TEST_TIMED_ALONE=1
hl_expect alone alone AP_TEST_TIMED_ALONE=1

ts_subtest harness-lock-claim
# A test make starts after an alone one waits for the alone one's claim to
# end before it takes the gate: both could wait at the gate, and the one
# flock(2) let through first decided which waited for the other to end.
# Here the claim is held by hand until the test waits on it; the test
# sees whether it is still held when it runs (it ran at once, before).
printf '%s\n' '#!/bin/sh' \
	'if flock -n -x "$AP_TEST_LOCK.alone" true; then echo free; else echo claimed; fi' \
	> "$hl/claim.sh" && chmod +x "$hl/claim.sh" && mkfifo "$hl/release" || exit 99
flock -s "$hl/lock.alone" sh -c 'read -r x < "$1"' sh "$hl/release" &
holder=$!
ts_wait_for -p "$holder" "the claim" sh -c '! flock -n -x "$1" true' sh "$hl/lock.alone" ||
	ts_subtest_fail "the claim was not taken"
env -u AP_TEST_TIMED_ALONE AP_TEST_LOCK="$hl/lock" \
	sh "$top_srcdir/tests/harness-lock.sh" "$hl/claim.sh" > "$hl/claim.out" &
waiter=$!
ts_wait_for -p "$waiter" "the test to wait for the claim" pgrep -P "$waiter" -x flock ||
	:	# it ended: ran beside the claim (the output says)
echo > "$hl/release"
wait "$waiter"
wait "$holder"
[ "$(cat "$hl/claim.out")" = free ] ||
	ts_subtest_fail "a test ran while an alone test's claim was held: $(cat "$hl/claim.out")"

ts_subtest cleanup-without-reader
# A test whose TAP reader is gone (make check interrupted: ^C reaches the
# driver's awk too) still cleans up, killed or writing: its cleanup's TAP
# lines met the closed pipe, SIGPIPE ended it before its emulated drives
# were detached, and a killed `make check` left loop devices and FUSE
# mounts. Its temporary directory, removed last, shows the cleanup ran out.
fw_child orphan <<'EOF'
echo "$TS_TMP" > "$FW_MARK.new" && mv "$FW_MARK.new" "$FW_MARK"
read -r x < "$FW_MARK.fifo"
echo "a line for the reader that is gone"
ts_pass
EOF
# orphan_run HOW: demo/orphan.sh with a standard output whose reader is
# closed before it starts, until its mark; then HOW: kill (SIGTERM) or
# write (it reads the fifo and writes a line); its directory must be gone
orphan_run() {
	local mark=$TS_TMP/orphan-$1 pid
	mkfifo "$mark.fifo" || exit 99
	env -u TS_ONLY -u TS_HARNESS FW_MARK="$mark" top_srcdir="$src" python3 -c '
import os, signal, sys
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
r, w = os.pipe()
os.close(r)
os.dup2(w, 1)
os.execvp(sys.argv[1], sys.argv[1:])' bash "$src/tests/ts/demo/orphan.sh" 2> "$mark.err" &
	pid=$!
	ts_wait_for -p "$pid" "the orphaned test's mark" test -s "$mark" ||
		fw_fail "orphan: never started: $(cat "$mark.err")"
	case $1 in
	kill) kill -TERM "$pid" ;;
	write) echo go > "$mark.fifo" ;;
	esac
	wait "$pid"
	[ -d "$(cat "$mark")" ] &&
		ts_subtest_fail "orphan ($1): its cleanup did not finish: $(cat "$mark") is left"
	rm -rf "$(cat "$mark")"
}
if command -v python3 > /dev/null; then
	orphan_run kill
	orphan_run write
else
	ts_subtest_skip "needs python3"
fi
ts_pass
