#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The store's SMR verdicts (smr --record's "smr" rows) in `alignprobe
# verdicts`: list shows each model's in the SMR column, and a model that has
# only an SMR verdict gets a row of its own; show prints them; merge carries
# them from store to store (a later measurement names the disk); forget
# removes them with their model. Stores written by hand, as smr --record
# writes them: no device needed.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "verdicts list/show/merge/forget and the store's SMR verdicts"
ts_untimed "verdict stores, metrics and units from recorded results"
ts_need_cmd jq

A=$ALIGNPROBE
W=$TS_TMP/w
mkdir -p "$W"
# a model with a sector verdict and an SMR verdict, a model with an SMR verdict only
cat > "$W/a.json" <<'JSON'
{"format": "alignprobe-verdicts", "version": 1, "models": [
 {"vendor": "ATA", "model": "ST4000DM004-2CV104", "revision": "0001", "verdicts": [
  {"logical_sector": 512, "physical_sector": 4096, "lowest_aligned_lba": 0, "sensitive": true,
   "examples": [{"serial": "S1", "wwn": null, "device": "/dev/sdb", "host": "host1",
     "source": "probe", "recorded": "2026-11-30T10:00:00Z", "confidence": 0.99, "runs": 1}]}]}],
 "smr": [
 {"vendor": "ATA", "model": "ST4000DM004-2CV104", "revision": "0001", "verdict": "dm-smr-or-hybrid",
  "serial": "S1", "device": "/dev/sdb", "host": "host1", "recorded": "2026-11-30T10:05:00Z"},
 {"vendor": "ATA", "model": "WDC WD40EFAX-68JH4N0", "revision": "82.00A82",
  "verdict": "dm-smr-or-hybrid", "serial": "W1", "device": "/dev/sdc", "host": "host1",
  "recorded": "2026-11-30T11:00:00Z"}]}
JSON
efax="ATA:WDC WD40EFAX-68JH4N0:82.00A82"

ts_subtest list
ts_run_rc 0 "$A" verdicts list --verdicts "$W/a.json" -J
jq -e '.verdicts | length == 2
	and .[0].name == "ATA ST4000DM004-2CV104 0001" and .[0].smr == "dm-smr-or-hybrid"
	and .[0].physical_sector == 4096
	and .[1].name == "ATA WDC WD40EFAX-68JH4N0 82.00A82" and .[1].smr == "dm-smr-or-hybrid"
	and .[1].physical_sector == null and .[1].entry == "smr[1]"
	and .[1].recorded == "2026-11-30T11:00:00Z"' "$TS_TMP/out" > /dev/null ||
	ts_fail "list -J: $(cat "$TS_TMP/out")"
ts_run_rc 0 "$A" verdicts list --verdicts "$W/a.json" -n -r -o MODEL,SMR
grep -qxF 'ST4000DM004-2CV104 dm-smr-or-hybrid' "$TS_TMP/out" || ts_fail "list -o: $(cat "$TS_TMP/out")"

# the deep test's figures (issue 35): the latest disk of the model that
# measured one (main had no column for them)
ts_subtest list-deep
cat > "$W/deep.json" <<'JSON'
{"format": "alignprobe-verdicts", "version": 1, "models": [],
 "smr": [
 {"vendor": "ATA", "model": "ST8000DM004", "revision": null, "verdict": "dm-smr-or-hybrid",
  "serial": "D1", "device": "/dev/sdb", "host": "h1", "recorded": "2026-11-30T10:00:00Z",
  "deep": {"cache_bytes": 21474836480, "band_bytes": 31457280, "band_error_bytes": 1048576,
   "idle_clean_ns": 1500000000}},
 {"vendor": "ATA", "model": "ST8000DM004", "revision": null, "verdict": "dm-smr-or-hybrid",
  "serial": "D2", "device": "/dev/sdc", "host": "h2", "recorded": "2026-12-01T10:00:00Z",
  "deep": {"cache_bytes": 22548578304, "band_bytes": null, "band_error_bytes": null,
   "idle_clean_ns": null}},
 {"vendor": "ATA", "model": "ST8000DM004", "revision": null, "verdict": "dm-smr-or-hybrid",
  "serial": "D3", "device": "/dev/sdd", "host": "h3", "recorded": "2026-11-29T10:00:00Z",
  "deep": {"cache_bytes": 20401094656, "band_bytes": 27262976, "band_error_bytes": 1048576,
   "idle_clean_ns": null}},
 {"vendor": "ATA", "model": "WD40EFAX", "revision": null, "verdict": "dm-smr-or-hybrid",
  "serial": "W9", "device": "/dev/sde", "host": "h1", "recorded": "2026-11-30T11:00:00Z"}]}
JSON
ts_run_rc 0 "$A" verdicts list --verdicts "$W/deep.json" -J -o MODEL,SMR_BAND,SMR_CACHE
jq -e '.verdicts == [
	{"model": "ST8000DM004", "smr_band_bytes": 31457280, "smr_cache_bytes": 22548578304},
	{"model": "WD40EFAX", "smr_band_bytes": null, "smr_cache_bytes": null}]' \
	"$TS_TMP/out" > /dev/null || ts_fail "list -o SMR_BAND,SMR_CACHE: $(cat "$TS_TMP/out")"

ts_subtest show
ts_run_rc 0 "$A" verdicts show --verdicts "$W/a.json" "$efax" ST4000DM004-2CV104
grep -qxF 'Model: ATA WDC WD40EFAX-68JH4N0 82.00A82 (an SMR verdict only)' "$TS_TMP/out" ||
	ts_fail "show: $(cat "$TS_TMP/out")"
grep -qxF 'SMR smr[0]: dm-smr-or-hybrid, measured on serial S1 (/dev/sdb on host1), 2026-11-30T10:05:00Z' \
	"$TS_TMP/out" || ts_fail "show: $(cat "$TS_TMP/out")"
ts_run_rc 0 "$A" verdicts show --verdicts "$W/a.json" -J "$efax"
jq -e '.models | length == 1 and .[0].verdicts == [] and .[0].smr[0].entry == "smr[1]"
	and .[0].smr[0].serial == "W1"' "$TS_TMP/out" > /dev/null || ts_fail "show -J: $(cat "$TS_TMP/out")"

ts_subtest merge
ts_run_rc 0 "$A" verdicts merge --store "$W/b.json" -J "$W/a.json"
jq -e '.smr_added == 2 and .smr_updated == 0' "$TS_TMP/out" > /dev/null ||
	ts_fail "merge -J: $(cat "$TS_TMP/out")"
jq -e '.smr | length == 2' "$W/b.json" > /dev/null || ts_fail "merge: the store: $(cat "$W/b.json")"
ts_run_rc 0 "$A" verdicts merge --store "$W/b.json" "$W/a.json"
grep -qxF "$W/b.json: unchanged" "$TS_TMP/out" || ts_fail "second merge: $(cat "$TS_TMP/out")"
# the same model and verdict measured later on another disk: that disk is named
sed 's/T11:00:00Z/T12:00:00Z/; s#/dev/sdc#/dev/sdd#' "$W/a.json" > "$W/later.json"
ts_run_rc 0 "$A" verdicts merge --store "$W/b.json" -J "$W/later.json"
jq -e '.smr_added == 0 and .smr_updated == 1' "$TS_TMP/out" > /dev/null ||
	ts_fail "merge of a later run: $(cat "$TS_TMP/out")"
jq -e '[.smr[] | select(.model == "WDC WD40EFAX-68JH4N0")] | length == 1 and .[0].device == "/dev/sdd"' \
	"$W/b.json" > /dev/null || ts_fail "merge of a later run: the store: $(cat "$W/b.json")"
# an earlier one changes nothing
ts_run_rc 0 "$A" verdicts merge --store "$W/b.json" "$W/a.json"
grep -qxF "$W/b.json: unchanged" "$TS_TMP/out" || ts_fail "merge of an earlier run: $(cat "$TS_TMP/out")"

ts_subtest forget
ts_run_rc 0 "$A" verdicts forget --store "$W/b.json" -J "$efax"
jq -e '.forgotten == ["ATA WDC WD40EFAX-68JH4N0 82.00A82"] and .absent == []' "$TS_TMP/out" \
	> /dev/null || ts_fail "forget an SMR-only model: $(cat "$TS_TMP/out")"
ts_run_rc 0 "$A" verdicts forget --store "$W/b.json" -J ST4000DM004-2CV104
jq -e '.forgotten == ["ATA ST4000DM004-2CV104 0001"]' "$TS_TMP/out" > /dev/null ||
	ts_fail "forget a model: $(cat "$TS_TMP/out")"
jq -e '.models == [] and (has("smr") | not)' "$W/b.json" > /dev/null ||
	ts_fail "forget: the store keeps $(cat "$W/b.json")"
ts_run_rc 0 "$A" verdicts forget --store "$W/b.json" -J "$efax"
jq -e '.changed == false and .absent == ["'"$efax"'"]' "$TS_TMP/out" > /dev/null ||
	ts_fail "forget twice: $(cat "$TS_TMP/out")"

# smr --deep's figures in a row ("deep"): shown, merged, kept; rows without
# them (the stores above, older ones) show and merge as they did
ts_subtest deep
jq '.smr[1].deep = {"cache_bytes": 21474836480, "band_bytes": 31457280,
	"band_error_bytes": 1048576, "idle_clean_ns": 61500000000}' "$W/a.json" > "$W/deep.json"
ts_run_rc 0 "$A" verdicts show --verdicts "$W/deep.json" "$efax" ST4000DM004-2CV104
grep -qxF '  deep test: persistent cache 20G, band 30M +- 1M, idle cleaning 61.5 s' \
	"$TS_TMP/out" || ts_fail "show deep: $(cat "$TS_TMP/out")"
ts_assert_eq 1 "$(grep -c 'deep test' "$TS_TMP/out")" "deep lines (the row without stays as it was)"
ts_run_rc 0 "$A" verdicts show --verdicts "$W/deep.json" -J "$efax"
jq -e '.models[0].smr[0].deep == {"cache_bytes": 21474836480, "band_bytes": 31457280,
	"band_error_bytes": 1048576, "idle_clean_ns": 61500000000}' "$TS_TMP/out" > /dev/null ||
	ts_fail "show -J deep: $(cat "$TS_TMP/out")"
ts_run_rc 0 "$A" verdicts show --verdicts "$W/a.json" -J "$efax"
jq -e '.models[0].smr[0] | has("deep") | not' "$TS_TMP/out" > /dev/null ||
	ts_fail "show -J without deep: $(cat "$TS_TMP/out")"
# merged into a store that has the row without them: carried over
cp "$W/a.json" "$W/c.json"
ts_run_rc 0 "$A" verdicts merge --store "$W/c.json" -J "$W/deep.json"
jq -e '.smr_added == 0 and .smr_updated == 1' "$TS_TMP/out" > /dev/null ||
	ts_fail "merge deep: $(cat "$TS_TMP/out")"
jq -e '.smr[1].deep.band_bytes == 31457280 and (.smr[0] | has("deep") | not)' "$W/c.json" \
	> /dev/null || ts_fail "merge deep: the store: $(cat "$W/c.json")"
# a later run without a deep test names its disk and leaves the figures
sed 's/T11:00:00Z/T12:00:00Z/; s#/dev/sdc#/dev/sdd#' "$W/a.json" > "$W/later.json"
ts_run_rc 0 "$A" verdicts merge --store "$W/c.json" -J "$W/later.json"
jq -e '.smr[1].device == "/dev/sdd" and .smr[1].deep.band_bytes == 31457280' "$W/c.json" \
	> /dev/null || ts_fail "merge later: the store: $(cat "$W/c.json")"
# a figure that is not a count: the store is refused, named
jq '.smr[0].deep = {"band_bytes": "32M"}' "$W/a.json" > "$W/bad.json"
ts_run_rc 2 "$A" verdicts show --verdicts "$W/bad.json" "$efax"
grep -q "deep.band_bytes is not a count" "$TS_TMP/err" || ts_fail "bad deep: $(cat "$TS_TMP/err")"
ts_pass
