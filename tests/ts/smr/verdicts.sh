#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# smr (issue 35): the verdict on every emulated drive profile that matters,
# from the short timing test -- a persistent media cache (drive-managed
# SMR, a hybrid) on smr-trim, smr-notrim and sshd; no persistent cache on
# the conventional disks and on the USB bridge that drops flushes (never
# "SMR"); "does not rotate" on flash, nothing written. The emulated costs
# are far apart (a persistent cache write 0.3 ms, a seek and the platter
# 3-20 ms), so a loaded machine only slows the run.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "smr: verdicts on the emulated profiles"
ts_need_emulator

# profile  verdict  smr  flushes_ignored  wrote
cases="smr-trim dm-smr-or-hybrid True False True
smr-notrim dm-smr-or-hybrid True False True
sshd dm-smr-or-hybrid True False True
cmr-7200 cmr False False True
hdd-7200 cmr False False True
usb-bridge-noflush cmr False True True
flash-8k not-applicable False False False"

while read -r prof verdict smr unflushed wrote; do
	ts_subtest "$prof" || continue
	"$ALIGNPROBE" smr --json --emulate="$prof,size=256M" > "$TS_TMP/$prof.json" \
		2> "$TS_TMP/$prof.err"
	rc=$?
	if [ $rc != 0 ]; then
		ts_subtest_fail "exit $rc: $(cat "$TS_TMP/$prof.err")"
		continue
	fi
	ts_json_check "$TS_TMP/$prof.json" "$verdict" "$smr" "$unflushed" "$wrote" <<'PY' ||
r = d["smr"][0]
eq(r["verdict"], args[0], "verdict")
eq(str(r["smr"]), args[1], "smr")
eq(str(r["flushes_ignored"]), args[2], "flushes_ignored")
eq(str(r["wrote"]), args[3], "wrote")
names = [s["name"] for s in r["signals"]]
check("queue/zoned" in names and "discard (TRIM)" in names, "the signals are shown")
for s in r["signals"]:
    check(s["proves"] and s["does_not_prove"], "each signal says its strength")
if r["verdict"] == "dm-smr-or-hybrid":
    eq(r["cache_off"]["write_cache"], "off", "the decisive phase had the cache off")
PY
		ts_subtest_fail "$(cat "$TS_TMP/$prof.json")"
done <<< "$cases"

# TRIM as the profile advertises it, shown as a hint only
ts_subtest trim
ts_assert_eq "advertised" "$(ts_json "$TS_TMP/smr-trim.json" \
	'[s["value"] for s in d["smr"][0]["signals"] if s["name"] == "discard (TRIM)"][0]')" \
	"smr-trim's TRIM"
ts_assert_eq "not advertised" "$(ts_json "$TS_TMP/smr-notrim.json" \
	'[s["value"] for s in d["smr"][0]["signals"] if s["name"] == "discard (TRIM)"][0]')" \
	"smr-notrim's TRIM"
# the drive refuses the hole punch a discard becomes (on the file behind its
# loop device: a discard on the loop device itself would make the kernel
# switch the loop number's discards off)
if command -v fallocate > /dev/null 2>&1; then
	dev=$(ts_emu_attach --spec smr-notrim,size=64M)
	fallocate -p -o 0 -l 1M "$(cat "/sys/block/${dev#/dev/}/loop/backing_file")" \
		2> /dev/null && ts_fail "smr-notrim took a discard"
	dev=$(ts_emu_attach --spec smr-trim,size=64M)
	fallocate -p -o 0 -l 1M "$(cat "/sys/block/${dev#/dev/}/loop/backing_file")" ||
		ts_fail "smr-trim refused a discard"
fi

# the cliff: a full persistent cache stalls the write that finds no room
# while a batch of bands is cleaned (counted, never timed)
ts_subtest cliff
dev=$(ts_emu_attach --spec smr-notrim,size=1G,cache=off,pcache=64K,clean-idle=60s)
"$ALIGNPROBE" emulate --reset-stats "$dev"
for i in $(seq 0 16); do
	dd if=/dev/zero of="$dev" bs=4096 count=1 seek=$((i * 8192 + 1)) oflag=direct \
		status=none || ts_fail "write $i"
done
ts_assert_eq 17 "$("$ALIGNPROBE" emulate --stats "$dev" -n -r -o PCACHE_WRITES)" "PCACHE_WRITES"
ts_assert_eq 4 "$("$ALIGNPROBE" emulate --stats "$dev" -n -r -o CLEANED)" "CLEANED"
[ "$("$ALIGNPROBE" emulate --stats "$dev" -n -r -o STALL_NS)" -gt 1000000000 ] ||
	ts_fail "no stall of seconds: $("$ALIGNPROBE" emulate --stats "$dev")"

# a plain loop device (a file on this machine's disk): never SMR
ts_subtest plain-loop
ts_need_loop
ts_image "$TS_TMP/plain.img" 256M
dev=$(ts_loop_attach "$TS_TMP/plain.img")
"$ALIGNPROBE" smr --json --yes "$dev" > "$TS_TMP/plain.json" 2> "$TS_TMP/plain.err"
rc=$?
case $rc in 0 | 5) ;; *) ts_fail "plain loop: exit $rc: $(cat "$TS_TMP/plain.err")" ;; esac
ts_json_check "$TS_TMP/plain.json" <<'PY' || ts_fail "plain loop: $(cat "$TS_TMP/plain.json")"
r = d["smr"][0]
check(r["verdict"] != "dm-smr-or-hybrid", "a plain loop device is never SMR")
eq(r["smr"], False, "smr")
PY
ts_pass
