#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A verdict claims no more than its evidence (issue 23, items 6 and 7).
#   - "no effect" with writes up to 8 KiB (on an honest drive here: on the
#     issue's flash-16k drive, whose 16 KiB unit such writes cannot show,
#     the outcome depends on the noise): the verdict says it ruled out units
#     up to 8192 bytes ("ruled_out_up_to"), and check then stands for the
#     next unit that could hide (16 KiB): a partition at 2049 is refused
#     (exit 4), one at 2048 accepted.
#   - one round per size: the verdict is tentative ("tentative": true, exit
#     5), check refuses it as a geometry (exit 2, saying so); a sweep whose
#     two rounds resolve a unit, not yet clearly, is tentative too (its
#     replay exits 5; it exited 0).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "verdicts state what they ruled out; tentative ones are no verdict"
ts_need_emulator
ts_need_cmd parted python3

img=$TS_TMP/disk.img
part_at() {	# part_at START: a GPT image with one partition there
	rm -f "$img"
	ts_image "$img" 64M
	parted -s "$img" mklabel gpt mkpart data "$1s" 100000s 2>/dev/null ||
		ts_fail "parted at $1 failed"
}
field() { ts_json "$1" "d['verdict']['$2']"; }

# --- item 6: writes up to 8 KiB rule out units up to 8 KiB, no more ---
# (rounds and budget only end a hang: an honest drive needs every size)
ts_subtest writes-rule-out-units
ts_run_rc 0 "$ALIGNPROBE" probe -q -J --emulate=honest-512n --max-size 8K --max-rounds 400 \
	--time-budget 1h
cp "$TS_TMP/out" "$TS_TMP/f16.json"
ts_assert_eq true "$(field "$TS_TMP/f16.json" resolved)" "resolved"
ts_assert_eq false "$(field "$TS_TMP/f16.json" sensitive)" "sensitive"
ts_assert_eq 8192 "$(field "$TS_TMP/f16.json" ruled_out_up_to)" "ruled_out_up_to"
part_at 2049
ts_run_rc_ro 4 "$img" "$ALIGNPROBE" check --geometry-any -g "$TS_TMP/f16.json" "$img"
grep -q "only units up to 8192 bytes were ruled out, so a 16384-byte one may hide" "$TS_TMP/out" ||
	ts_fail "the rule does not say what was ruled out: $(cat "$TS_TMP/out")"
grep -q "start 2049 is not aligned to 16384-byte physical sectors" "$TS_TMP/err" ||
	ts_fail "2049 not refused: $(cat "$TS_TMP/err")"
part_at 2048
ts_run_rc_ro 0 "$img" "$ALIGNPROBE" check --geometry-any -g "$TS_TMP/f16.json" "$img"

# --- item 7: a tentative verdict is no verdict ---
# (--no-confirm: a confirming size measured once may not confirm, and the
# verdict is then none rather than tentative)
# One measurement per offset is never clear: the probe exits 5. Its verdict
# is tentative, or none at all when load here made one of the single
# measurements stray (a clean phase needs every offset; CI saw that), so
# the check of a tentative document uses the sweep's below, which is the
# same on every machine.
ts_subtest tentative-is-no-verdict
ts_run_rc 5 "$ALIGNPROBE" probe -q -J --emulate=wd-ears-jumper --min-rounds 1 --max-rounds 1 \
	--no-confirm
cp "$TS_TMP/out" "$TS_TMP/tentative.json"
if [ "$(field "$TS_TMP/tentative.json" resolved)" = true ]; then
	ts_assert_eq true "$(field "$TS_TMP/tentative.json" tentative)" "tentative (1 round)"
	ts_assert_eq 4096 "$(field "$TS_TMP/tentative.json" physical_sector)" "physical_sector (1 round)"
	ts_run_rc_ro 2 "$img" "$ALIGNPROBE" check --geometry-any -g "$TS_TMP/tentative.json" "$img"
	grep -q "tentative.json: verdict: tentative" "$TS_TMP/err" ||
		ts_fail "the tentative verdict is not named: $(cat "$TS_TMP/err")"
else
	ts_assert_eq null "$(field "$TS_TMP/tentative.json" physical_sector)" "physical_sector (none)"
	ts_run_rc_ro 2 "$img" "$ALIGNPROBE" check --geometry-any -g "$TS_TMP/tentative.json" "$img"
fi
ts_run_rc 5 "$ALIGNPROBE" probe -q --emulate=wd-ears-jumper --min-rounds 1 --max-rounds 1 \
	--no-confirm
grep -Eq "tentative:|no verdict" "$TS_TMP/out" ||
	ts_fail "neither tentative nor no verdict: $(cat "$TS_TMP/out")"

# a sweep of two rounds (starts 34..64, 4 KiB units from 0, 2-4x), one
# measurement of start 48 among the slow ones: resolved, tentative (2
# rounds are clear only where the split is complete: the same document
# without that measurement is clear)
python3 - "${top_srcdir:-.}/tests/ts/sweep/data/starts-38-42.json" "$TS_TMP/sweep2.json" \
	"$TS_TMP/sweep2-split.json" <<'PY' ||
import json, sys
d = json.load(open(sys.argv[1]))
starts = list(range(34, 65))
d["parameters"].update(starts=starts, min_rounds=2, max_rounds=2)
d["starts"], tmpl, res = [], d["results"][0], []
for rnd in (1, 2):
    for s in starts:
        r = dict(tmpl, start=s, round=rnd, seq=len(res) + 1)
        k = (s * 7 + rnd) % 13
        r["cost"] = 1e-4 * (1 + k / 6) if s % 8 == 0 else 4e-4 * (1 + k / 24)
        res.append(r)
d["results"] = res
json.dump(d, open(sys.argv[3], "w"))
res[31 + 48 - 34]["cost"] = 4.2e-4
json.dump(d, open(sys.argv[2], "w"))
PY
	ts_fail "cannot write the sweep document"
ts_run_rc 0 "$ALIGNPROBE" sweep --replay "$TS_TMP/sweep2-split.json" -J
ts_assert_eq false "$(field "$TS_TMP/out" tentative)" "sweep: tentative (2 rounds, split)"
ts_run_rc 5 "$ALIGNPROBE" sweep --replay "$TS_TMP/sweep2.json" -J
cp "$TS_TMP/out" "$TS_TMP/sweep2v.json"
ts_assert_eq true "$(field "$TS_TMP/out" resolved)" "sweep: resolved (2 rounds)"
ts_assert_eq true "$(field "$TS_TMP/out" tentative)" "sweep: tentative (2 rounds)"
ts_run_rc 5 "$ALIGNPROBE" sweep --replay "$TS_TMP/sweep2.json"
grep -q "^  Tentative: not yet statistically clear (fewer than 3 measurements" "$TS_TMP/out" ||
	ts_fail "sweep: not marked tentative: $(cat "$TS_TMP/out")"
ts_run_rc_ro 2 "$img" "$ALIGNPROBE" check --geometry-any -g "$TS_TMP/sweep2v.json" "$img"
grep -q "sweep2v.json: verdict: tentative" "$TS_TMP/err" ||
	ts_fail "check: the sweep's tentative verdict is not named: $(cat "$TS_TMP/err")"
ts_pass
