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
#     5), check refuses it as a geometry (exit 2, saying so) and --record
#     records nothing.
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
field() { python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))["verdict"][sys.argv[2]]))' "$@"; }

# --- item 6: writes up to 8 KiB rule out units up to 8 KiB, no more ---
# (rounds and budget only end a hang: an honest drive needs every size)
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
ts_run_rc 5 "$ALIGNPROBE" probe -q -J --emulate=wd-ears-jumper --min-rounds 1 --max-rounds 1 \
	--no-confirm
cp "$TS_TMP/out" "$TS_TMP/tentative.json"
ts_assert_eq true "$(field "$TS_TMP/tentative.json" resolved)" "resolved (1 round)"
ts_assert_eq true "$(field "$TS_TMP/tentative.json" tentative)" "tentative (1 round)"
ts_run_rc_ro 2 "$img" "$ALIGNPROBE" check --geometry-any -g "$TS_TMP/tentative.json" "$img"
grep -q "tentative.json: verdict: tentative" "$TS_TMP/err" ||
	ts_fail "the tentative verdict is not named: $(cat "$TS_TMP/err")"
ts_run_rc 5 "$ALIGNPROBE" probe -q --emulate=wd-ears-jumper --min-rounds 1 --max-rounds 1 \
	--no-confirm
grep -q "tentative:" "$TS_TMP/out" || ts_fail "not marked tentative: $(cat "$TS_TMP/out")"
ts_pass
