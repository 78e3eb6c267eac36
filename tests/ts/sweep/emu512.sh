#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# An honest drive (512-byte physical sectors behind 512-byte reports, the
# same read-modify-write price that would never be paid): no alignment
# sensitivity, no read-modify-write counted anywhere, and the verdict says
# what a 4 KiB-block file system cannot resolve.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
. "$top_srcdir/tests/ts/sweep/common.sh"
ts_init "sweep --emulate: an honest 512-byte drive"
ts_need_emulator
ts_need_cmd python3
sw_private_tmpdir

"$ALIGNPROBE" sweep --emulate=simple,phys=512,rmw=300us,size=256M --seed 13 --size 32M -q \
	--starts 36..44 --rounds 3..4 --save "$TS_TMP/saved.json" > "$TS_TMP/text" 2> "$TS_TMP/err"
rc=$?
# 0: "no sensitivity" proven; 5: not proven within 4 rounds on a noisy machine
[ $rc = 0 ] || [ $rc = 5 ] || { cat "$TS_TMP/err" >&2; ts_fail "sweep exited $rc"; }
J=$TS_TMP/saved.json
sw_check "$J" $rc <<'EOF'
eq(d["verdict"]["sensitive"], False, "sensitive")
eq(sum(r["emulator"]["rmw"] for r in d["results"]), 0, "RMW anywhere")
eq([r for r in d["results"] if not r["ok"]], [], "failed steps")
if args[0] == "0":
    eq(d["verdict"]["physical_sector"], 512, "physical sector")
EOF
if [ $rc = 0 ]; then
	grep -q "no alignment sensitivity" "$TS_TMP/text" || ts_fail "verdict: $(cat "$TS_TMP/text")"
	grep -q "alignprobe probe" "$TS_TMP/text" || ts_fail "no pointer to probe: $(cat "$TS_TMP/text")"
fi
sw_assert_clean
ts_pass
