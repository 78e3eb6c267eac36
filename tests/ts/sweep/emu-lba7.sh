#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A drive shifted like the WD "jumper" models: 4096-byte hidden sectors,
# lowest aligned LBA 7. The analysis must not assume "divisible by 8": the
# fast starts are 39 47 55 63, and the recommendations follow the shift
# (2055 instead of 2048, 39 as the first aligned start >= 34). Every fourth
# start from 39 (both phases of a 4096-byte unit seen, one round ~8 steps)
# keeps it short with a clear signal (rmw=2ms).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
. "$top_srcdir/tests/ts/sweep/common.sh"
ts_init "sweep --emulate: lowest aligned LBA 7"
ts_need_emulator
ts_need_cmd python3
sw_private_tmpdir

"$ALIGNPROBE" sweep --emulate=simple,lba=7,rmw=2ms,size=256M --seed 12 --size 32M -q \
	--starts 39..63:4 --json > "$TS_TMP/out.json" 2> "$TS_TMP/err"
rc=$?
[ $rc = 0 ] || { cat "$TS_TMP/err" >&2; ts_fail "sweep exited $rc"; }
J=$TS_TMP/out.json
sw_check "$J" <<'EOF'
v = d["verdict"]
eq(v["sensitive"], True, "sensitive")
eq(v["physical_sector"], 4096, "physical sector")
eq(v["lowest_aligned_lba"], 7, "lowest aligned LBA")
eq(v["fast_starts"], [39, 47, 55, 63], "fast starts")
eq([s["start"] for s in d["starts"] if s["aligned"]], [39, 47, 55, 63], "ALIGNED column")
eq(sum(r["emulator"]["rmw"] for r in d["results"] if r["start"] % 8 == 7), 0, "RMW at aligned starts")
EOF

# the same results in words (replayed: no second sweep)
"$ALIGNPROBE" sweep --replay "$J" > "$TS_TMP/text" 2> "$TS_TMP/err" ||
	{ cat "$TS_TMP/err" >&2; ts_fail "replay exited $?"; }
grep -q "Physical sector: 4096 bytes" "$TS_TMP/text" || ts_fail "no physical sector in: $(cat "$TS_TMP/text")"
grep -q "lowest aligned LBA 7" "$TS_TMP/text" || ts_fail "no offset in: $(cat "$TS_TMP/text")"
grep -q "2055" "$TS_TMP/text" || ts_fail "recommendation not shifted: $(cat "$TS_TMP/text")"
grep -q "or 39 (the first aligned start >= 34)" "$TS_TMP/text" || ts_fail "first aligned start not 39: $(cat "$TS_TMP/text")"
sw_assert_clean
ts_pass
