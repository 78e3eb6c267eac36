#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The json and pmconfig fuzz harnesses' code paths, without libFuzzer: their
# seed corpora and every crashing input kept in fuzz/regressions/{json,pmconfig}/
# must go through without a crash (under ASan+UBSan in CI).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh" || exit 99
ts_init "replay the json and pmconfig fuzz seeds and regressions"
ts_need_cmd awk

for h in json pmconfig; do
	replay=$top_builddir/fuzz/replay_$h
	[ -x "$replay" ] || ts_fail "$replay not built"
	"$top_srcdir/fuzz/seeds_$h.sh" "$TS_TMP/seeds-$h" || ts_fail "seeds_$h.sh failed"
	nseeds=$(ls "$TS_TMP/seeds-$h" | wc -l)
	[ "$nseeds" -ge 10 ] || ts_fail "$h: only $nseeds seeds"
	nreg=$(find "$top_srcdir/fuzz/regressions/$h" -type f ! -name '.*' 2>/dev/null | wc -l)
	regress=()	# an empty directory would only exercise replay.c's qsort(NULL, 0)
	[ "$nreg" -gt 0 ] && regress=("$top_srcdir/fuzz/regressions/$h")
	ts_run_rc 0 "$replay" "$TS_TMP/seeds-$h" "${regress[@]}"
	ts_assert_eq "replayed $((nseeds + nreg)) inputs" "$(cat "$TS_TMP/out")" "$h: replay count"
	ts_log "$h: $nseeds seeds, $nreg regression inputs"
done
ts_pass
