#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# harness-lock.sh TEST [ARGS]: how `make -jN check` runs every test (the
# LOG_COMPILER). Most tests share the machine: their emulated drives charge
# real time at a high priority (src/emu/server.c), and their verdicts
# tolerate other tests' load (tests/ts/probe/loaded.sh shows what load
# does). A test script that calls ts_alone (tests/ts/functions.sh) has the
# machine to itself: it waits for the running tests to end and holds the
# others off until it ends.
#
# Two locks make a readers-writer lock that prefers the writer: a test takes
# the gate, then the machine (shared, or exclusive when alone), then lets
# the gate go. A test waiting to be alone keeps the gate meanwhile, so no
# test starts beside it and its wait ends when the running ones do. The
# locks are ours alone: the test and whatever it starts never hold them, so
# a process that outlives its test cannot stall the suite. Without
# AP_TEST_LOCK (a test run by hand) the test just runs.
#
# A test that runs alone also holds a third lock, shared, from its start to
# its end: its claim. Every other test waits until no claim is held before
# it takes the gate, so the tests make starts after an alone one never get
# in before it. The gate alone is not enough: flock(2) serves its waiters
# in no order, and a test that got the gate first made the alone one wait
# for it to end with the gate held, the suite's slots idle meanwhile. So
# the alone tests, first in make's order (Makefile.am's LONG_TESTS), run one
# after another at the start, with nothing to wait for.
#
# With AP_TEST_TIMED_ALONE=1 every test script runs alone too, unless it
# calls ts_untimed (it times no drive); the unit tests still share.
test -n "${AP_TEST_LOCK:-}" || exec "$@"
mode=-s
case $1 in
*.sh)
	if grep -q '^ts_alone ' "$1" ||
	   { [ -n "${AP_TEST_TIMED_ALONE:-}" ] && ! grep -q '^ts_untimed ' "$1"; }; then
		mode=-x
	fi ;;
esac
exec 7>> "$AP_TEST_LOCK.alone" 8>> "$AP_TEST_LOCK.gate" 9>> "$AP_TEST_LOCK" || exit 99
if [ "$mode" = -x ]; then
	flock -s 7 || exit 99
else
	flock -x 7 && flock -u 7 || exit 99
fi
flock -x 8 && flock "$mode" 9 && flock -u 8 || exit 99
"$@" 7>&- 8>&- 9>&-
