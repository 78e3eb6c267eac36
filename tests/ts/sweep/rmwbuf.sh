#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A buffer in the drive that answers read-modify-writes (issue 26): the
# quick preset's 3 files touch a few dozen physical sectors, all still in the
# buffer, so no misaligned write costs anything. Before, the sweep of
# hdd-lba7-rmwbuf (4096-byte sectors from LBA 7) said "no alignment
# sensitivity", physical sector 512, exit 0, and --record kept that. Now
# its check before the first step (one-sector writes, each twice: the second
# a revolution faster) stops it, exit 5, the cause and the remedy named, no
# verdict shown, saved or recorded.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
. "$top_srcdir/tests/ts/sweep/common.sh"
ts_init "sweep --emulate: a buffer that answers read-modify-writes is named, no verdict"
ts_need_emulator
ts_need_cmd python3
sw_private_tmpdir

store="$TS_TMP/verdicts.json"
"$ALIGNPROBE" sweep --emulate=hdd-lba7-rmwbuf,size=256M --seed 17 --size 32M -q \
	--save "$TS_TMP/saved.json" --record="$store" > "$TS_TMP/text" 2> "$TS_TMP/err"
rc=$?
cat "$TS_TMP/err" >&2
grep -q "no alignment\|physical sectors\|no effect" "$TS_TMP/text" "$TS_TMP/err" &&
	ts_fail "a verdict on a drive whose buffer hides its 4096-byte sectors: $(cat "$TS_TMP/text")"
ts_assert_eq 5 "$rc" "sweep exit code"
for w in "a buffer in the drive answers read-modify-writes" "misaligned writes cost nothing" \
	"--preset thorough" "--workload FILE" "alignprobe probe"; do
	grep -qF -- "$w" "$TS_TMP/text" || ts_fail "no \"$w\" in: $(cat "$TS_TMP/text")"
done
if [ -e "$store" ]; then
	grep -q "EMU\|sweep" "$store" && ts_fail "a verdict recorded: $(cat "$store")"
fi
sw_assert_unmeasurable "$TS_TMP/saved.json"
sw_check "$TS_TMP/saved.json" <<'PY'
check("answers read-modify-writes" in d.get("cause", ""), "the cause saved")
eq(len(d["results"]), 0, "steps before the stop")
PY
sw_assert_clean
ts_pass
