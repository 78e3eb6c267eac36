#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The sweep on rotating disks that read ahead (issue 26: a 1 MiB read-ahead
# in 4 segments, hdd-7200-ra and honest-512n-ra). The probe's lead-ins were
# fooled by it; the sweep's cost is a whole file system's small-file
# workload with an fsync after every file write, which read-ahead does not
# answer: the 512e disk hiding 4096-byte sectors is found (LBA 0), the
# honest 512n disk shows no effect. Bounded as tests/ts/sweep/profiles.sh:
# every residue mod 8 for the honest disk, every fourth start for the other.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
. "$top_srcdir/tests/ts/sweep/common.sh"
ts_init "sweep --emulate: hdd-7200-ra, honest-512n-ra"
ts_need_emulator
ts_need_cmd python3
sw_private_tmpdir

sw_sweep_bg ra4k hdd-7200-ra 36..64:4 3..10
sw_sweep_bg ra512 honest-512n-ra 36..43 3..40
sw_sweep_wait ra4k ra512
sw_check "$TS_TMP/ra4k.json" <<'EOF'
v = d["verdict"]
eq(v["sensitive"], True, "hdd-7200-ra: sensitive")
eq(v["physical_sector"], 4096, "hdd-7200-ra: physical sector")
eq(v["lowest_aligned_lba"], 0, "hdd-7200-ra: lowest aligned LBA")
eq(v["fast_starts"], [40, 48, 56, 64], "hdd-7200-ra: fast starts")
eq([r for r in d["results"] if not r["ok"]], [], "hdd-7200-ra: failed steps")
EOF
sw_check "$TS_TMP/ra512.json" <<'EOF'
v = d["verdict"]
eq(v["sensitive"], False, "honest-512n-ra: sensitive")
eq(v["resolved"], True, "honest-512n-ra: resolved")
eq(v["physical_sector"], 512, "honest-512n-ra: physical sector")
eq(sum(r["emulator"]["rmw"] for r in d["results"]), 0, "honest-512n-ra: RMW anywhere")
EOF
sw_assert_clean
ts_pass
