#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The ptable fuzz harness's code path, without libFuzzer: the seed corpus
# (small sfdisk images, intact and damaged) and every crashing input kept in
# fuzz/regressions/ptable/ must go through without a crash (under ASan in CI).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "replay the ptable fuzz seeds and regressions"
ts_untimed "partition tables in files and on plain loop devices"
ts_need_cmd sfdisk od dd

replay=$top_builddir/fuzz/replay_ptable
[ -x "$replay" ] || ts_fail "$replay not built"
"$top_srcdir/fuzz/seeds_ptable.sh" "$TS_TMP/seeds" || ts_fail "seeds_ptable.sh failed"
nseeds=$(ls "$TS_TMP/seeds" | wc -l)
[ "$nseeds" -ge 17 ] || ts_fail "only $nseeds seeds"
nreg=$(find "$top_srcdir/fuzz/regressions/ptable" -type f ! -name '.*' 2>/dev/null | wc -l)

ts_run_rc 0 "$replay" "$TS_TMP/seeds" "$top_srcdir/fuzz/regressions/ptable"
ts_assert_eq "replayed $((nseeds + nreg)) inputs" "$(cat "$TS_TMP/out")" "replay count"
ts_log "$nseeds seeds, $nreg regression inputs"
ts_pass
