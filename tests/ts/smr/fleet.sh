#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# smr's verdict where verdicts go (issue 35): `smr --record` puts it in the
# verdict store under the disk's model; `check --verdicts --refuse-smr`
# refuses a model with a persistent cache (exit 8), passes one measured
# conventional (0) and does not pass one nobody measured (5); `smr
# --prometheus` writes the series the alert rules read.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "smr: store, check --refuse-smr, metrics"
ts_need_emulator
ts_need_cmd parted
export ALIGNPROBE_VERDICTS=$TS_TMP/verdicts.json

attach() {	# attach PROFILE: an emulated drive with one aligned partition
	local dev
	dev=$(ts_emu_attach --profile "$1" --size 256M)
	parted -s "$dev" mklabel gpt mkpart p 1MiB 100MiB > /dev/null 2>&1 ||
		ts_fail "parted on $dev"
	echo "$dev"
}
smr=$(attach smr-notrim)
cmr=$(attach cmr-7200)

ts_subtest unmeasured
ts_run_rc 2 "$ALIGNPROBE" check -q --refuse-smr "$smr"
grep -q "needs --verdicts" "$TS_TMP/err" || ts_fail "$(cat "$TS_TMP/err")"
"$ALIGNPROBE" smr -q --record --emulate=hdd-7200,size=256M > /dev/null ||
	ts_fail "smr --record of another model"
ts_run_rc 5 "$ALIGNPROBE" check -q --verdicts --refuse-smr "$smr"
grep -q "no smr verdict for the model ALIGNPROBE EMU-SMR-NOTRIM" "$TS_TMP/err" ||
	ts_fail "$(cat "$TS_TMP/err")"

ts_subtest record
ts_run_rc 0 "$ALIGNPROBE" smr --record --yes --prometheus "$TS_TMP/smr.prom" "$smr" "$cmr"
ts_json_check "$ALIGNPROBE_VERDICTS" <<'PY' || ts_fail "store: $(cat "$ALIGNPROBE_VERDICTS")"
rows = {r["model"]: r["verdict"] for r in d["smr"]}
eq(rows.get("EMU-SMR-NOTRIM"), "dm-smr-or-hybrid", "smr-notrim's row")
eq(rows.get("EMU-CMR-7200"), "cmr", "cmr-7200's row")
eq(rows.get("EMU-HDD-7200"), "cmr", "hdd-7200's row")
PY
grep -q "^alignprobe_smr{command=\"smr\",device=\"$smr\",verdict=\"dm-smr-or-hybrid\"} 1$" \
	"$TS_TMP/smr.prom" || ts_fail "metrics: $(cat "$TS_TMP/smr.prom")"
grep -q "^alignprobe_smr{command=\"smr\",device=\"$cmr\",verdict=\"cmr\"} 0$" \
	"$TS_TMP/smr.prom" || ts_fail "metrics: $(cat "$TS_TMP/smr.prom")"

ts_subtest refuse
ts_run_rc 8 "$ALIGNPROBE" check -q --verdicts --refuse-smr "$smr"
grep -q "persistent media cache.*refused" "$TS_TMP/err" || ts_fail "$(cat "$TS_TMP/err")"
ts_run_rc 8 "$ALIGNPROBE" check -J --verdicts --refuse-smr "$smr"
ts_json_check "$TS_TMP/out" <<'PY' || ts_fail "$(cat "$TS_TMP/out")"
eq(d["smr"]["refused"], True, "refused")
eq(d["smr"]["verdict"], "dm-smr-or-hybrid", "verdict")
eq(d["exit_status"], 8, "exit_status")
PY
ts_subtest pass
ts_run_rc 0 "$ALIGNPROBE" check -q --verdicts --refuse-smr "$cmr"
ts_run_rc 0 "$ALIGNPROBE" check -q --verdicts "$smr"	# without the rule: aligned
ts_subtest several
ts_run_rc 8 "$ALIGNPROBE" check -q --verdicts --refuse-smr "$cmr" "$smr"
ts_pass
