#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# No background thread of ext4 may write while the workload is timed
# (issue 34). mkfs.ext4 leaves the inode tables unzeroed (zeroing them was
# most of a step on a disk without a write cache); the kernel's lazyinit
# thread would then zero them during the workload unless the mount says
# noinit_itable. Paused after its mount (the ALIGNPROBE_TEST_SWEEP_MOUNTED
# seam), the sweep's file system must have every group's inode table
# zeroed (dumpe2fs: ITABLE_ZEROED) or be mounted noinit_itable (the mount's
# options in /proc/self/mountinfo): read from the kernel and the disk,
# never timed. The user's --mount-opt comes after the sweep's own.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh" || exit 99
. "$top_srcdir/tests/ts/sweep/common.sh"
ts_init "no lazyinit thread writes during the sweep's workload"
ts_need_emulator
ts_need_cmd mkfs.ext4 dumpe2fs
export TMPDIR=$TS_TMP/tmp
mkdir -p "$TMPDIR"

# paused STEP [SWEEP OPTIONS...]: a sweep paused after the mount of step STEP
paused() {
	local at=$1
	shift
	rm -f "$TS_TMP/go" "$TS_TMP/go.reached"
	ALIGNPROBE_TEST_SWEEP_MOUNTED=$TS_TMP/go ALIGNPROBE_TEST_SWEEP_MOUNTED_AT=$at \
		"$ALIGNPROBE" sweep --emulate=simple,size=256M --starts 2048,2049 --rounds 1 \
		--yes --quiet "$@" > "$TS_TMP/sweep.out" 2> "$TS_TMP/sweep.err" < /dev/null &
	spid=$!
	ts_bg_pid "$spid"
	sw_wait_seam "$spid" "$TS_TMP/go" "mounted"
	line=$(sw_mountline)
	[ -n "$line" ] || ts_fail "no mount of the sweep under $TMPDIR"
	# after " - ": fstype, source, super options
	fstype=$(sed 's/.* - //' <<< "$line" | cut -d' ' -f1)
	src=$(sed 's/.* - //' <<< "$line" | cut -d' ' -f2)
	opts=$(sed 's/.* - //' <<< "$line" | cut -d' ' -f3)
}

# guarded: no group left for the lazyinit thread, or the mount forbids it
guarded() {
	local groups unzeroed
	ts_assert_eq ext4 "$fstype" "the sweep's file system"
	dumpe2fs "$src" > "$TS_TMP/dumpe2fs" 2> /dev/null || ts_fail "dumpe2fs $src"
	groups=$(grep -c '^Group [0-9]*:' "$TS_TMP/dumpe2fs")
	[ "$groups" -gt 0 ] || ts_fail "dumpe2fs $src: no groups"
	unzeroed=$(grep '^Group [0-9]*:' "$TS_TMP/dumpe2fs" | grep -vc ITABLE_ZEROED)
	ts_log "$src: $unzeroed of $groups groups' inode tables unzeroed; mounted $opts"
	if [ "$unzeroed" -gt 0 ] && ! grep -qw noinit_itable <<< "${opts//,/ }"; then
		ts_fail "$unzeroed of $groups inode tables are not zeroed and the mount ($opts)" \
			"lets ext4's lazyinit thread zero them during the workload"
	fi
}

# let it go on: it ends as a sweep does (0, or 5 on this tiny drive)
finish() {
	touch "$TS_TMP/go"
	wait "$spid" && return
	rc=$?
	[ "$rc" = 5 ] || ts_fail "the sweep exited $rc: $(cat "$TS_TMP/sweep.err")"
}

ts_subtest first-step
paused 1
guarded
finish

# a fresh file system at the next step too, and the user's options kept
ts_subtest second-step-user-opts
paused 2 --mount-opt nodelalloc
guarded
grep -qw nodelalloc <<< "${opts//,/ }" || ts_fail "--mount-opt nodelalloc lost: $opts"
finish
ts_pass
