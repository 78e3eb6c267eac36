#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A plain loop device (a file, no hidden sectors): no alignment sensitivity;
# the partition really started at each requested sector; afterwards the
# disk holds an empty GPT and nothing is mounted or left behind.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
. "$top_srcdir/tests/ts/sweep/common.sh"
ts_init "sweep on a plain loop device"
ts_need_loop
ts_need_cmd python3 parted
sw_private_tmpdir
SW_KEEP_TMP=disk.img

ts_image "$TMPDIR/disk.img" 96M
D=$(ts_loop_attach "$TMPDIR/disk.img")
"$ALIGNPROBE" sweep --yes -q --size 32M --starts 36..44 --rounds 3 --seed 3 --json "$D" \
	> "$TS_TMP/out.json" 2> "$TS_TMP/err" < /dev/null
rc=$?
[ $rc = 0 ] || [ $rc = 5 ] || { cat "$TS_TMP/err" >&2; ts_fail "sweep exited $rc"; }
J=$TS_TMP/out.json
sw_check "$J" "$D" <<'EOF'
eq(d["verdict"]["sensitive"], False, "sensitive")
eq(d["device"], args[0], "device")
eq(len([r for r in d["results"] if r["ok"]]), 27, "measurements")
eq(sorted(set(s["runs"] for s in d["starts"])), [3], "rounds per start")
r = sorted(d["results"], key=lambda x: x["seq"])
eq([a["start"] for a, b in zip(r, r[1:]) if a["start"] == b["start"]], [], "back-to-back repeats")
EOF
sw_assert_empty_gpt "$D"
sw_assert_clean "$D"
ts_pass
