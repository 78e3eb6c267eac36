#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# First writes are not a buffer. The sweep's check for a drive buffer that
# answers read-modify-writes (a one-sector write, then the same again: the
# second a revolution faster) saw what thin storage does to every first
# write: on thin-1m (1 MiB units copied on the first write) 12 of 12 pairs
# were 5.8 ms, then 0.2 ms, and the sweep stopped before its first step,
# exit 5, "a buffer in the drive answers read-modify-writes". So did QEMU's
# qcow2 driver with 1 MiB clusters. The check now writes fresh places
# whose 64 KiB a neighbour's write allocated: as fast as a rewrite there,
# so the sweep runs. Units too small for that (qcow2's 2 KiB subclusters)
# are on storage that does not rotate, where no revolution is saved: the
# check is made on rotating disks only. (sweep/rmwbuf.sh: a real buffer is
# still named.)
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
. "$top_srcdir/tests/ts/sweep/common.sh"
ts_init "sweep on thin storage: first writes are not a drive buffer"
ts_need_emulator
ts_need_cmd python3
sw_private_tmpdir

# sweep_runs NAME DEV-ARGS...: a short sweep measures every step
sweep_runs() {
	local name=$1 rc
	shift
	"$ALIGNPROBE" sweep --yes --seed 3 --size 32M --starts 34..41 --rounds 1 -q \
		--save "$TS_TMP/$name.json" "$@" > "$TS_TMP/$name.text" 2> "$TS_TMP/$name.err"
	rc=$?
	cat "$TS_TMP/$name.err" >&2
	grep -q "answers read-modify-writes" "$TS_TMP/$name.text" "$TS_TMP/$name.err" &&
		ts_fail "$name: first writes taken for a buffer: $(cat "$TS_TMP/$name.err")"
	# 0, or 5 for a start list too short to tell units apart
	case $rc in 0 | 5) ;; *) ts_fail "$name: sweep exit $rc: $(cat "$TS_TMP/$name.err")" ;; esac
	sw_check "$TS_TMP/$name.json" <<'PY'
check(d["stopped"] != "unmeasurable", "stopped: %s (%s)" % (d["stopped"], d.get("cause")))
eq(len([r for r in d["results"] if r["ok"]]), 8, "steps measured")
PY
}

if ts_subtest thin-1m; then
	sweep_runs thin-1m --emulate=thin-1m,size=256M
	sw_assert_clean
fi

# qemu_sweep NAME QCOW2-OPTIONS: QEMU's qcow2 driver, an overlay over an
# empty raw base served by qemu-storage-daemon's FUSE export on a loop
# device, swept
qemu_sweep() {
	local d=$TS_TMP/$1 dev

	if ! command -v qemu-storage-daemon >/dev/null || ! command -v qemu-img >/dev/null; then
		ts_subtest_skip "qemu-storage-daemon or qemu-img missing"
		return
	fi
	mkdir -p "$d"
	qemu-img create -q -f raw "$d/base.raw" 256M || ts_fail "qemu-img raw"
	qemu-img create -q -f qcow2 -o "$2" -b "$d/base.raw" -F raw "$d/over.qcow2" ||
		ts_fail "qemu-img qcow2 $2"
	ts_qemu_export "$d/over.qcow2" "$d/disk.img" >/dev/null
	dev=$(ts_loop_attach "$d/disk.img")
	sweep_runs "$1" "$dev"
	sw_assert_clean "$dev"
}

# units too small for the controls, paid in milliseconds on the first touch
# (as a cloud volume restored from a snapshot fetches a block): flash, so
# no revolution saved, and the check is not made
if ts_subtest thin-16k-flash; then
	sweep_runs thin-16k-flash --emulate=thin-64k,thin=16K,thin-alloc=3ms,size=256M
	sw_assert_clean
fi

# 1 MiB clusters: the controls' neighbour allocates the control's place
ts_subtest qemu-qcow2-1m && qemu_sweep qemu-qcow2-1m cluster_size=1M
# 64 KiB clusters of 32 subclusters, 2 KiB each, below what the controls
# see (here QEMU's first writes cost too little to count anyway)
ts_subtest qemu-qcow2-sub && qemu_sweep qemu-qcow2-sub cluster_size=64K,extended_l2=on
ts_pass
