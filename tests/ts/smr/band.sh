#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# smr --deep's band size (issue 35 item 3): once the persistent cache is
# full and clean again, pairs of writes at growing distances, each
# followed by reads an idle delay apart, show where a pair costs two
# bands' cleaning instead of one: two such boundaries one band apart.
#
# The emulated drive: smr-notrim (its own bands are 32 MiB: Skylight
# measured 15-40 MiB on Seagate's DM-SMR disks; test_emu_smr checks the
# profile) with 12 MiB bands, not the profile's, and a 1 MiB cache so the
# cliff comes after a few hundred writes, on 256 MiB: the cache's writes
# are spread over the device, and the idle cleaning rewrites each band they
# touched (on 1 GiB, 22 s of a 98 s run; 9 s here, the band found as well);
# the reported band must be the emulated one within its stated error (plus
# a step: the boundaries are found to 1 MiB), and go to the verdict store
# and the metrics (test_smr has the words). Asserted on sizes, never on a
# time. One drive: the test has the machine to itself for a minute. (A
# hybrid's flash cache cleans write by write: no band; smr/deep.sh asserts
# that beside other tests, so this one holds the machine less.)
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "smr --deep: the band size"
ts_alone "its boundaries are reads that wait out a cleaning: four tests at a time once gave 12 MiB bands as 6.0 +- 1.0 MiB"
ts_need_emulator
export ALIGNPROBE_VERDICTS=$TS_TMP/verdicts.json

pcache=$((1024 * 1024))

# band_check JSON BAND: the band measured is BAND within its error
band_check() {
	ts_json_check "$1" "$2" <<'PY'
x = d["smr"][0]["deep"]
eq(x["idle_clean"], True, "idle_clean")
band = int(args[0])
check(x["band_bytes"] is not None, "band measured: %s" % x["band_reason"])
err = x["band_error_bytes"]
check(err <= 2 * 1024 * 1024, "error %s within two steps" % err)
check(abs(x["band_bytes"] - band) <= err + 1024 * 1024,
      "band %s +- %s against the emulated %d" % (x["band_bytes"], err, band))
check(x["band_pairs"] >= 4, "pairs")
check(x["clean_delay_ns"] > 0, "clean_delay_ns")
check(x["band_clean_ns"] > 0, "band_clean_ns")
PY
}

ts_subtest band-12M
dev=$(ts_emu_attach --profile smr-notrim --size 256M --spec "pcache=$pcache,band=12M,clean-idle=300ms")
ts_run_rc 0 "$ALIGNPROBE" smr --deep --yes --writes 32 --time-budget 10m -J --record \
	--prometheus "$TS_TMP/band.prom" "$dev"
cp "$TS_TMP/out" "$TS_TMP/band-12M.json"
band_check "$TS_TMP/band-12M.json" $((12 * 1024 * 1024)) ||
	ts_fail "band 12M: $(cat "$TS_TMP/band-12M.json")"
ts_json_check "$ALIGNPROBE_VERDICTS" $((12 * 1024 * 1024)) <<'PY' ||
x = [r for r in d["smr"] if r["model"] == "EMU-SMR-NOTRIM"][0]["deep"]
band = int(args[0])
check(abs(x["band_bytes"] - band) <= x["band_error_bytes"] + 1024 * 1024, "band_bytes")
check(x["cache_bytes"] > 0, "cache_bytes")
check(x["idle_clean_ns"] > 0, "idle_clean_ns")
PY
	ts_fail "store: $(cat "$ALIGNPROBE_VERDICTS")"
grep -qE "^alignprobe_smr_band_bytes\{device=\"$dev\"\} 1[0-9]+$" "$TS_TMP/band.prom" ||
	ts_fail "metrics: $(cat "$TS_TMP/band.prom")"
for f in alignprobe_smr_band_error_bytes alignprobe_smr_persistent_cache_bytes \
	alignprobe_smr_idle_clean_seconds; do
	grep -q "^$f{device=\"$dev\"} " "$TS_TMP/band.prom" || ts_fail "metrics: no $f"
done
if command -v promtool > /dev/null; then
	promtool check metrics < "$TS_TMP/band.prom" > "$TS_TMP/promtool.out" 2>&1 &&
		[ ! -s "$TS_TMP/promtool.out" ] || ts_fail "promtool: $(cat "$TS_TMP/promtool.out")"
fi

ts_pass
