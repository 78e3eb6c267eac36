#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A step's teardown sends the disk no flush (issue 34): on a disk whose
# every flush costs a seek and a revolution (hdd-7200-nocache-flush),
# ext4's umount flushed around each of its journal's synchronous writes,
# 11-12 times, and libparted flushed the kernel's partition 1 left from the
# step before at every open, sync and close (3 flushes). The sweep remounts
# the file system nobarrier after the workload (the file system is made
# anew at the next step; the workload's fsyncs keep their flushes) and
# drops partition 1 from the kernel's view once it is unmounted. ext4 is
# then shut down (EXT4_IOC_SHUTDOWN, no log flush), so that its umount
# neither commits nor checkpoints its journal: 8-10 synchronous writes a
# step on a disk without a write cache, the one left the journal's
# superblock. Paused
# before the first step's umount (ALIGNPROBE_TEST_SWEEP_UMOUNT) and after
# its teardown (ALIGNPROBE_TEST_SWEEP_STEPPED): the mount's options, the
# emulated drive's flush and write counters, the kernel's partitions.
# Counted, never timed.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh" || exit 99
. "$top_srcdir/tests/ts/sweep/common.sh"
ts_init "a sweep step's umount and teardown send no flush, its umount one write"
ts_need_emulator
ts_need_cmd mkfs.ext4
export TMPDIR=$TS_TMP/tmp
mkdir -p "$TMPDIR"

# counter COLUMN: the emulated drive's counter
counter() { "$ALIGNPROBE" emulate --stats "$disk" -o "$1" -n -r; }

ts_subtest umount-unflushed
rm -f "$TS_TMP/u" "$TS_TMP/u.reached" "$TS_TMP/s" "$TS_TMP/s.reached" "$TS_TMP/w" \
	"$TS_TMP/w.reached"
ALIGNPROBE_TEST_SWEEP_UMOUNT=$TS_TMP/u ALIGNPROBE_TEST_SWEEP_STEPPED=$TS_TMP/s \
	ALIGNPROBE_TEST_SWEEP_WINDOW=$TS_TMP/w ALIGNPROBE_TEST_SWEEP_WINDOW_AT=2 \
	"$ALIGNPROBE" sweep --emulate=hdd-7200-nocache-flush,size=256M --size 32M \
	--starts 2048,2049 --rounds 1 --yes --quiet > "$TS_TMP/sweep.out" 2> "$TS_TMP/sweep.err" \
	< /dev/null &
spid=$!
ts_bg_pid "$spid"
sw_wait_seam "$spid" "$TS_TMP/u" "about to unmount"
line=$(sw_mountline)
[ -n "$line" ] || ts_fail "no mount of the sweep under $TMPDIR"
read -r _ src opts _ <<< "$(sed 's/.* - //' <<< "$line")"
disk=${src%p1}
[ "$disk" != "$src" ] && [ -b "$disk" ] || ts_fail "the sweep's partition $src: no disk"
ts_log "$src before its umount: $opts"
grep -qw nobarrier <<< "${opts//,/ }" || ts_fail "the umount would flush: mounted $opts"
grep -qw noinit_itable <<< "${opts//,/ }" || ts_fail "noinit_itable lost by the remount: $opts"
flushes=$(counter FLUSHES)
writes=$(counter WRITES)
touch "$TS_TMP/u"
sw_wait_seam "$spid" "$TS_TMP/s" "done with its first step"
ts_log "umount: $writes -> $(counter WRITES) writes, $flushes -> $(counter FLUSHES) flushes"
after=$(counter WRITES)
[ "$after" -gt "$writes" ] || ts_fail "the umount wrote nothing: nothing was checked"
# shut down, it writes the journal's superblock and nothing else (not its
# commit and checkpoint: 8-10 writes)
[ "$((after - writes))" -le 2 ] ||
	ts_fail "the umount wrote $((after - writes)) times: the file system was not shut down"
ts_assert_eq "$flushes" "$(counter FLUSHES)" "the drive's flushes after the umount"

ts_subtest partition-forgotten
grep -q "^$src " /proc/self/mounts && ts_fail "$src still mounted"
base=$(basename "$disk")
[ -e "/sys/class/block/$base/${base}p1" ] &&
	ts_fail "the kernel still shows ${base}p1 after the step: libparted would flush it"
ts_assert_eq "$flushes" "$(counter FLUSHES)" "the drive's flushes after the teardown"

# the second step's partition: libparted's device held from the first step
# on (ap_part_hold()), so no probe of the disk and no open or close of its
# own, each a flush; its table's sync is the one left
ts_subtest partition-held
touch "$TS_TMP/s"
sw_wait_seam "$spid" "$TS_TMP/w" "done with its second partition"
ts_log "partition: $flushes -> $(counter FLUSHES) flushes"
[ "$(($(counter FLUSHES) - flushes))" -le 1 ] ||
	ts_fail "the partition flushed $(($(counter FLUSHES) - flushes)) times: libparted's device not held"
touch "$TS_TMP/w"
wait "$spid"
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 5 ] || ts_fail "the sweep exited $rc: $(cat "$TS_TMP/sweep.err")"
ts_pass
