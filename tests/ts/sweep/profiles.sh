#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The sweep's verdict on drives that behave like real ones (issue 16): a
# 7200 rpm 512e disk hiding 4096-byte sectors (hdd-7200: fast 40 48 56 64),
# the WD jumper disk (wd-ears-jumper: lowest aligned LBA 7, fast 39 47 55 63)
# and an honest 512n disk (honest-512n: no alignment effect). There the
# effect is a revolution per read-modify-write (about 2x), not the simple
# model's 100x. Lean: every fourth start over two periods of 4096 bytes
# (both phases seen, as tests/ts/sweep/emu-lba7.sh), all eight residues for
# the honest disk (a "no effect" claim needs them), 32M partitions, and the
# three drives swept at once: the emulated drives sleep, they do not compute.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
. "$top_srcdir/tests/ts/sweep/common.sh"
ts_init "sweep --emulate: hdd-7200, wd-ears-jumper, honest-512n"
ts_need_emulator
ts_need_cmd python3
sw_private_tmpdir

# a time budget ends a hang; it must never end a run that a slow machine
# would finish
sweep() {	# NAME SPEC STARTS
	"$ALIGNPROBE" sweep --emulate="$2,size=128M" --seed 16 --size 32M -q --starts "$3" \
		--rounds 3..10 --time-budget 1h --json > "$TS_TMP/$1.json" 2> "$TS_TMP/$1.err" &
	eval "pid_$1=\$!"
	ts_bg_pid $!
}
sweep hdd hdd-7200 36..64:4
sweep jumper wd-ears-jumper 39..63:4
sweep honest honest-512n 36..43
for t in hdd jumper honest; do
	eval "wait \$pid_$t"
	rc=$?
	[ "$rc" = 0 ] || { cat "$TS_TMP/$t.err" >&2; ts_fail "$t: sweep exited $rc"; }
done

sw_check "$TS_TMP/hdd.json" <<'EOF'
v = d["verdict"]
eq(v["sensitive"], True, "hdd-7200: sensitive")
eq(v["physical_sector"], 4096, "hdd-7200: physical sector")
eq(v["lowest_aligned_lba"], 0, "hdd-7200: lowest aligned LBA")
eq(v["fast_starts"], [40, 48, 56, 64], "hdd-7200: fast starts")
check(v["slowdown"] < 10, "hdd-7200: slowdown %r: a real disk's, not the simple model's" % v["slowdown"])
eq(sum(r["emulator"]["rmw"] for r in d["results"] if r["start"] % 8 == 0), 0,
   "hdd-7200: RMW during the workload at aligned starts")
eq([r for r in d["results"] if not r["ok"]], [], "hdd-7200: failed steps")
EOF
sw_check "$TS_TMP/jumper.json" <<'EOF'
v = d["verdict"]
eq(v["sensitive"], True, "wd-ears-jumper: sensitive")
eq(v["physical_sector"], 4096, "wd-ears-jumper: physical sector")
eq(v["lowest_aligned_lba"], 7, "wd-ears-jumper: lowest aligned LBA")
eq(v["fast_starts"], [39, 47, 55, 63], "wd-ears-jumper: fast starts")
eq(sum(r["emulator"]["rmw"] for r in d["results"] if r["start"] % 8 == 7), 0,
   "wd-ears-jumper: RMW during the workload at aligned starts")
EOF
sw_check "$TS_TMP/honest.json" <<'EOF'
v = d["verdict"]
eq(v["sensitive"], False, "honest-512n: sensitive")
eq(v["resolved"], True, "honest-512n: resolved")
eq(v["physical_sector"], 512, "honest-512n: physical sector")
eq(sum(r["emulator"]["rmw"] for r in d["results"]), 0, "honest-512n: RMW anywhere")
EOF
sw_assert_clean
ts_pass
