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

sw_sweep_bg hdd hdd-7200 36..64:4 3..10
sw_sweep_bg jumper wd-ears-jumper 39..63:4 3..10
# "no effect" is an equivalence test: alone it is clear after 4 or 5 rounds,
# on a machine loaded by the two others (and CI) the noise may ask for more
sw_sweep_bg honest honest-512n 36..43 3..40
sw_sweep_wait hdd jumper honest

# a 512e disk hiding 4096-byte sectors from LBA L: fast at the starts == L mod 8
for t in "hdd 0 40,48,56,64" "jumper 7 39,47,55,63"; do
	set -- $t
	ts_subtest "verdict-$1" || continue
	sw_check "$TS_TMP/$1.json" "$1" "$2" "$3" <<'EOF2'
v, what, lba = d["verdict"], args[0], int(args[1])
eq(v["sensitive"], True, what + ": sensitive")
eq(v["physical_sector"], 4096, what + ": physical sector")
eq(v["lowest_aligned_lba"], lba, what + ": lowest aligned LBA")
eq(v["fast_starts"], [int(x) for x in args[2].split(",")], what + ": fast starts")
check(v["slowdown"] < 10, "%s: slowdown %r: a real disk's, not the simple model's" % (what, v["slowdown"]))
eq(sum(r["emulator"]["rmw"] for r in d["results"] if r["start"] % 8 == lba), 0,
   what + ": RMW during the workload at aligned starts")
eq([r for r in d["results"] if not r["ok"]], [], what + ": failed steps")
EOF2
done
ts_subtest verdict-honest
sw_check "$TS_TMP/honest.json" <<'EOF'
v = d["verdict"]
eq(v["sensitive"], False, "honest-512n: sensitive")
eq(v["resolved"], True, "honest-512n: resolved")
eq(v["physical_sector"], 512, "honest-512n: physical sector")
eq(sum(r["emulator"]["rmw"] for r in d["results"]), 0, "honest-512n: RMW anywhere")
EOF
ts_subtest nothing-left
sw_assert_clean
ts_pass
