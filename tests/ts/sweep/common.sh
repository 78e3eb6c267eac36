# SPDX-License-Identifier: GPL-2.0-or-later
#
# Helpers for the sweep's integration tests (sourced after functions.sh).

# sw_json FILE PYTHON-EXPRESSION: print its value, d = the JSON document
sw_json() { ts_json "$@"; }

# sw_check FILE [ARGS] <<'EOF' ... EOF: Python statements about d (the JSON
# document), args (the rest of the arguments), with eq(got, want, what) and
# check(cond, what); every failure is listed, then the test fails.
sw_check() {
	ts_json_check "$@" 2> "$TS_TMP/check.out" || ts_fail "$1: $(cat "$TS_TMP/check.out")"
}

# sw_assert_unmeasurable SAVED: the run saved in SAVED stopped early because
# the drive broke an assumption of the measurement: no resolved verdict kept
sw_assert_unmeasurable() {
	sw_check "$1" <<'PY'
eq(d["stopped"], "unmeasurable", "stopped")
check(d.get("verdict") is None or not d["verdict"]["resolved"], "a saved verdict")
check(len([r for r in d["results"] if r["ok"]]) < 31, "stopped early")
PY
}

# sw_assert_clean [DEV]: nothing of the sweep left: no registry entry (an
# emulated drive attached by the test aside), nothing in the private TMPDIR
# but what the test put there; with DEV: no mount of it, no partition
sw_assert_clean() {
	local dev=${1:-} base left
	if [ -n "$dev" ]; then
		base=$(basename "$dev")
		grep -q "^${dev}p\?[0-9]* " /proc/self/mounts &&
			ts_fail "$dev: still mounted: $(grep "^$dev" /proc/self/mounts)"
		ls -d /sys/class/block/"$base"/"$base"* >/dev/null 2>&1 &&
			ts_fail "$dev: the kernel still has a partition: $(ls -d /sys/class/block/"$base"/"$base"*)"
	fi
	left=$(ls -A "$ALIGNPROBE_STATE_DIR" | grep -v -- "${SW_KEEP_STATE:-^$}")
	[ -z "$left" ] || ts_fail "registry entries left: $left"
	if [ -n "${TMPDIR:-}" ] && [ -d "$TMPDIR" ]; then
		left=$(ls -A "$TMPDIR" | grep -v -- "${SW_KEEP_TMP:-^$}")
		[ -z "$left" ] || ts_fail "left in $TMPDIR: $left"
	fi
}

# sw_assert_empty_gpt DEV: a GPT label without partitions
sw_assert_empty_gpt() {
	local out
	out=$(LC_ALL=C parted -s -m "$1" unit s print 2>&1) || ts_fail "parted $1: $out"
	echo "$out" | grep -q ":gpt:" || ts_fail "$1: no GPT label after the sweep: $out"
	[ "$(echo "$out" | grep -c '^[0-9]*:')" = 0 ] ||
		ts_fail "$1: partitions left after the sweep: $out"
}

# a private TMPDIR for the mount points, to count them
sw_private_tmpdir() {
	mkdir -p "$TS_TMP/tmp"
	export TMPDIR=$TS_TMP/tmp
}

# sw_sweep_bg NAME SPEC STARTS ROUNDS: sweep an emulated drive (SPEC on a
# 128M disk, a 32M partition, seed 16) in the background, JSON in
# $TS_TMP/NAME.json; sw_sweep_wait NAME...: wait for them, each must exit 0.
# A time budget ends a hang; it must never end a run a slow machine finishes.
sw_sweep_bg() {
	"$ALIGNPROBE" sweep --emulate="$2,size=128M" --seed 16 --size 32M -q --starts "$3" \
		--rounds "$4" --time-budget 1h --json > "$TS_TMP/$1.json" 2> "$TS_TMP/$1.err" &
	eval "sw_pid_$1=\$!"
	ts_bg_pid $!
}
sw_sweep_wait() {
	local t rc
	for t in "$@"; do
		eval "wait \$sw_pid_$t"
		rc=$?
		[ "$rc" = 0 ] || { cat "$TS_TMP/$t.err" >&2; ts_fail "$t: sweep exited $rc"; }
	done
}

# sw_mountline: the /proc/self/mountinfo line of the sweep's mount point
# (under $TMPDIR)
sw_mountline() { awk -v t="$TMPDIR/alignprobe-mnt." 'index($5, t) == 1' /proc/self/mountinfo; }

# sw_wait_seam PID SEAM WHAT: wait until the sweep PID (started in the
# background with its stderr in $TS_TMP/sweep.err) is paused at the test
# seam whose file is SEAM (SEAM.reached exists), or fail
sw_wait_seam() {
	ts_wait_for -p "$1" "the sweep $3" test -e "$2.reached" ||
		ts_fail "the sweep ended before it was $3: $(cat "$TS_TMP/sweep.err")"
}
