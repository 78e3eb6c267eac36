#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The drive profiles of the emulated drive: the physical hdd model (seeks,
# rotation from the clock, one revolution per read-modify-write, a merging
# write cache), flash, a 4096-byte-logical USB bridge. The probe's verdict
# (physical sector and lowest aligned LBA) on each, in one call (one thread
# per drive), from timings alone; then what `emulate --attach --profile`
# sets up: the loop device's cache mode and logical sector, the spec.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "drive profiles: probe verdicts on every profile"
ts_need_emulator
ts_need_cmd python3

# sizes up to 16K: 4096 found at 4K and confirmed at 8K, 8192 at 8K and 16K,
# 16384 at 16K (the largest size: unconfirmed), the honest drives ruled out up
# to 16 KiB; the budget only ends a hang. Issue 16: flash (1.1-1.5x) is never
# "honest", and the honest disks are: effects down to 1.10x ruled out, which
# the lead-in reads make possible against a disk's rotational noise (before
# them honest-512n and usb-4kn ended without a verdict). flash-16k's 1.2x at
# 16 KiB, next to other tests' load, can take more than the default 40
# rounds: the rounds are not what is tested. Flash's penalty (30 us) is a
# tenth of the emulator's own cost per request (FUSE, 170-325 us), so under
# load (CI's ASan stage saw it) 8 KiB writes on flash-16k can show a phase
# that 16 KiB writes then contradict: "inconsistent", no verdict, exit 5.
# That is the probe's guarantee (a right unit or none, never "honest"), so
# a flash drive may end there; every other profile must be right. Its
# slowdown's upper bound is loose (2.5x): the penalty is one more sleep of
# the emulator's, whose wake-up overshoots under load, and with other probes
# running beside the suite flash-8k's was 1.66x, its unit and phase right.
"$ALIGNPROBE" probe --json --yes --time-budget 1h --max-size 16K --max-rounds 200 \
	--emulate=hdd-7200,size=256M --emulate=wd-ears-jumper,size=256M,seed=2 \
	--emulate=honest-512n,size=256M,seed=3 --emulate=flash-8k,size=256M,seed=4 \
	--emulate=usb-4kn,size=256M,seed=5 --emulate=hdd-5400,size=256M,seed=6 \
	--emulate=flash-16k,size=256M,seed=7 --emulate=simple,size=256M,seed=8 \
	--emulate=hdd-7200-nocache,size=256M,seed=9 --emulate=hdd-7200-ra,size=256M,seed=10 \
	> "$TS_TMP/out" 2> "$TS_TMP/err"
rc=$?
cat "$TS_TMP/err" >&2

# one case per profile: "PROFILE ok|FAIL WHAT" lines
python3 - "$TS_TMP/out" "$TS_TMP/flash-none" > "$TS_TMP/verdicts" <<'PY' || ts_fail "cannot read the verdicts"
import json, sys
doc = json.load(open(sys.argv[1]))
want = [  # profile, logical, sensitive, physical, lowest aligned, slowdown range
    ("hdd-7200", 512, True, 4096, 0, (1.2, 4.0)),
    ("wd-ears-jumper", 512, True, 4096, 7, (1.2, 4.0)),
    ("honest-512n", 512, False, 512, 0, None),
    ("flash-8k", 512, True, 8192, 0, (1.05, 2.5)),
    ("usb-4kn", 4096, False, 4096, 0, None),
    ("hdd-5400", 512, True, 4096, 0, (1.2, 4.0)),
    ("flash-16k", 512, True, 16384, 0, (1.05, 2.5)),
    ("simple", 512, True, 4096, 0, (1.5, 1e6)),
    # issue 26: what today's probe already gets right (the other new
    # profiles are the measurement's to handle: probe-quirks)
    ("hdd-7200-nocache", 512, True, 4096, 0, (1.2, 4.0)),
    ("hdd-7200-ra", 512, True, 4096, 0, (1.2, 4.0)),
    # issue 33: the layered volumes (raid5-4x64k, raid6-6x128k, raid5-bbu,
    # thin-64k, thin-1m) are not here yet: today's probe does not find
    # their stripes and first-write units (probe-layers adds them)
]
devs = doc["devices"]
assert len(devs) == len(want), "expected %d devices, got %d" % (len(want), len(devs))
for d, (name, logical, sens, phys, lba, slow) in zip(devs, want):
    v = d["verdict"]
    got = (v["sensitive"], v["physical_sector"], v["lowest_aligned_lba"])
    ok = v["resolved"] and got == (sens, phys, lba) and v["logical_sector"] == logical
    if ok and sens:
        p = phys // logical
        ok = all(s % p == lba for s in v["fast_starts"]) and len(v["fast_starts"]) > 0 \
            and slow[0] < v["slowdown"] < slow[1] and v["p_value"] < 0.001
    if ok and not sens and v["resolved"]:
        ok = v["period"] == 1
    if not ok and name.startswith("flash-") and not v["resolved"] and v["sensitive"] \
            and v["physical_sector"] is None and "inconsistent" in (v.get("note") or ""):
        ok = True  # no verdict, and not "honest": allowed for flash (see above)
        open(sys.argv[2], "a").write(name + "\n")
    what = "%s: want %s, got %s, %.2fx, p=%g, %.1fs" % (
        d["device"], (sens, phys, lba), got, v.get("slowdown") or 0, v["p_value"], d["seconds"])
    print(name, "ok" if ok else "FAIL", what + ("" if ok else " " + json.dumps(v)))
PY
[ "$(wc -l < "$TS_TMP/verdicts")" = 10 ] || ts_fail "not 10 verdicts: $(cat "$TS_TMP/verdicts")"
while read -r profile verdict what; do
	ts_subtest "verdict-$profile" || continue
	ts_log "$profile: $what"
	[ "$verdict" = ok ] || ts_subtest_fail "wrong verdict: $what"
done < "$TS_TMP/verdicts"
ts_subtest probe-exit-status
if [ -s "$TS_TMP/flash-none" ] && [ "$rc" = 5 ]; then
	ts_log "exit 5: no verdict on $(tr '\n' ' ' < "$TS_TMP/flash-none")(inconsistent sizes)"
else
	ts_assert_eq 0 "$rc" "probe exit code"
fi

# what a profile sets up: write back (flushes reach the drive), the logical
# sector, the spec with the profile's name
ts_subtest attach-hdd-7200
dev=$(ts_emu_attach --profile hdd-7200 --size 64M)
name=${dev#/dev/}
ts_assert_eq "write back" "$(cat /sys/block/$name/queue/write_cache)" "hdd-7200: cache mode"
ts_assert_eq 512 "$(cat /sys/block/$name/queue/logical_block_size)" "hdd-7200: logical sector"
spec=$("$ALIGNPROBE" emulate --stats "$dev" -n -r -o SPEC) || ts_fail "emulate --stats $dev failed"
case $spec in
profile=hdd-7200,size=67108864,phys=4096,lba=0,*model=hdd,rpm=7200,*) ;;
*) ts_fail "hdd-7200: spec '$spec'" ;;
esac
# a misaligned O_DSYNC write: counted as partial at once, its RMW at the flush
"$ALIGNPROBE" emulate --reset-stats "$dev" || ts_fail "reset-stats failed"
dd if=/dev/zero of="$dev" bs=4096 count=1 seek=$((34 * 512)) oflag=direct,dsync,seek_bytes \
	status=none || ts_fail "write at LBA 34 failed"
stats=$("$ALIGNPROBE" emulate --stats "$dev" -n -r -o WRITES,RMW_WRITES,RMW,ALIGNED)
flushes=$("$ALIGNPROBE" emulate --stats "$dev" -n -r -o FLUSHES)
ts_assert_eq "1 1 2 0" "$stats" "hdd-7200: writes rmw-writes rmw aligned"
[ "$flushes" -ge 1 ] || ts_fail "hdd-7200: no flush reached the drive"
# the detach clears the loop device, then stops the server: with nothing
# left to take down it exits on SIGTERM, no SIGKILL after a time-out
if command -v strace > /dev/null; then
	# LeakSanitizer cannot run under ptrace (the ASan+UBSan run of CI)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -e trace=kill -o "$TS_TMP/detach.trace" \
		"$ALIGNPROBE" emulate --detach "$dev" || ts_fail "detach $dev failed"
	grep -q SIGTERM "$TS_TMP/detach.trace" || ts_fail "detach: no SIGTERM: $(cat "$TS_TMP/detach.trace")"
	! grep -q SIGKILL "$TS_TMP/detach.trace" ||
		ts_fail "detach: the server needed SIGKILL: $(cat "$TS_TMP/detach.trace")"
else
	ts_log "no strace: how the server stops is not checked"
	"$ALIGNPROBE" emulate --detach "$dev" || ts_fail "detach $dev failed"
fi
sed -i "\|^$dev\$|d" "$TS_TMP/.emus"

ts_subtest attach-usb-4kn
dev=$(ts_emu_attach --profile usb-4kn --size 64M)
name=${dev#/dev/}
ts_assert_eq 4096 "$(cat /sys/block/$name/queue/logical_block_size)" "usb-4kn: logical sector"
ts_assert_eq "write back" "$(cat /sys/block/$name/queue/write_cache)" "usb-4kn: cache mode"
"$ALIGNPROBE" emulate --detach "$dev" || ts_fail "detach $dev failed"
sed -i "\|^$dev\$|d" "$TS_TMP/.emus"

ts_subtest attach-flash-8k
dev=$(ts_emu_attach --profile flash-8k --size 64M)
name=${dev#/dev/}
ts_assert_eq "write through" "$(cat /sys/block/$name/queue/write_cache)" "flash-8k: cache mode"
"$ALIGNPROBE" emulate --detach "$dev" || ts_fail "detach $dev failed"
sed -i "\|^$dev\$|d" "$TS_TMP/.emus"

# a bad profile name: a usage error that names the known ones
ts_subtest bad-profile-name
ts_run_rc 2 "$ALIGNPROBE" emulate --attach --profile hdd-9000
grep -q "unknown drive profile 'hdd-9000'.*hdd-7200" "$TS_TMP/err" ||
	ts_fail "bad profile message: $(cat "$TS_TMP/err")"
ts_run_rc 2 "$ALIGNPROBE" probe --yes --emulate=hdd-9000
grep -q "hdd-9000.*honest-512n" "$TS_TMP/err" || ts_fail "probe: bad profile message: $(cat "$TS_TMP/err")"
ts_pass
