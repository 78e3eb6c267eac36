#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# smr --deep (issue 35 item 3): on a drive-managed SMR disk the deep test
# writes until its persistent cache is full (the cliff) and reports the
# bytes written before it, then waits for the idle cleaning; a byte or
# time budget smaller than the cache finds no cliff; a hybrid's flash
# cache has its cliff too; a conventional disk has nothing to measure;
# --preserve and budgets without --deep are refused before anything is
# written.
#
# The emulated drive: smr-notrim with a 1 MiB persistent cache and 4 MiB
# bands on 512 MiB (each band the cache's writes touched is cleaned: on
# 2 GiB they touched more, and the test took 17 s longer), the idle
# cleaning 200 ms after the last request, so the
# cliff comes after a few hundred writes and costs about 45 ms a write
# (bands read and rewritten; measured here) against a cache write's
# 0.3 ms: 8 times slower (the detector's factor) even with each write's
# cost on a busy machine at 5 ms. The hybrid's slow seeks (30 ms settle,
# 60 ms full stroke) make its cleaning as slow (about 35 ms a write,
# against 8 ms with the profile's). The cliff is asserted with the
# emulator's counters (stalls only when the cache was full) and the
# reported size against the emulated one within a generous factor, never
# a time.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "smr --deep: the persistent cache's size and the idle cleaning"
ts_need_emulator

pcache=$((1024 * 1024))
dev=$(ts_emu_attach --profile smr-notrim --size 512M --spec "pcache=$pcache,band=4M,clean-idle=200ms")
stat() { "$ALIGNPROBE" emulate --stats "$dev" -n -r -o "$1"; }

ts_subtest refusals
"$ALIGNPROBE" emulate --reset-stats "$dev" || ts_fail "reset-stats"
ts_run_rc 2 "$ALIGNPROBE" smr --deep --preserve --yes "$dev"
grep -q -- "--deep cannot preserve: it writes as much as the persistent cache holds" \
	"$TS_TMP/err" || ts_fail "preserve: $(cat "$TS_TMP/err")"
ts_run_rc 2 "$ALIGNPROBE" smr --time-budget 1m --yes "$dev"
grep -q "only used with --deep" "$TS_TMP/err" || ts_fail "budget: $(cat "$TS_TMP/err")"
ts_run_rc 2 "$ALIGNPROBE" smr --deep --byte-budget 0 --yes "$dev"
ts_run_rc 2 "$ALIGNPROBE" smr --deep --time-budget soon --yes "$dev"
ts_assert_eq 0 "$(stat WRITES)" "writes after the refusals"

ts_subtest dry-run
ts_run_rc 0 "$ALIGNPROBE" smr --deep --dry-run --time-budget 5m "$dev"
grep -q "the deep test (budget 300 s)" "$TS_TMP/out" || ts_fail "plan: $(cat "$TS_TMP/out")"
ts_assert_eq 0 "$(stat WRITES)" "writes after the dry run"

ts_subtest cliff
"$ALIGNPROBE" emulate --reset-stats "$dev" || ts_fail "reset-stats"
ts_run_rc 0 "$ALIGNPROBE" smr --deep --yes --writes 32 --time-budget 5m -J "$dev"
cp "$TS_TMP/out" "$TS_TMP/deep.json"
ts_json_check "$TS_TMP/deep.json" "$pcache" <<'PY' || ts_fail "deep: $(cat "$TS_TMP/deep.json")"
r = d["smr"][0]
eq(r["verdict"], "dm-smr-or-hybrid", "verdict")
x = r["deep"]
eq(x["ran"], True, "ran")
eq(x["stop"], "cliff", "stop")
eq(x["cliff"], True, "cliff")
size = int(args[0])
# the short test's writes (and what was not cleaned yet) fill part of it
check(size / 4 <= x["cache_bytes"] <= size * 2,
      "cache_bytes %s within a factor of the emulated %d" % (x["cache_bytes"], size))
check(x["after_ns"] > 8 * x["before_ns"], "after the cliff 8 times slower")
eq(x["idle_clean"], True, "idle_clean")
# the cache clean again: the band size (band.sh tests it on bands of real
# sizes); these 4 MiB bands clean in about 70 ms, near the 60 ms under
# which a cleaning is too short to tell: measured right, or not claimed
if x["band_bytes"] is None:
    check(len(x["band_reason"]) > 0, "band_reason")
else:
    check(abs(x["band_bytes"] - 4 * 1024 * 1024) <= x["band_error_bytes"] + 1024 * 1024,
          "band %s +- %s against the emulated 4 MiB" % (x["band_bytes"], x["band_error_bytes"]))
check(x["idle_probes"] >= 2, "two fast probes at least")
PY
# the cliff was the cache full: writes waited for its cleaning
[ "$(stat STALL_NS)" -gt 0 ] || ts_fail "no write waited for a full cache's cleaning"
[ "$(stat CLEANED)" -gt 0 ] || ts_fail "no unit cleaned"
ts_assert_eq "on write back" "$(ts_emu_write_cache "$dev")" "cache after the run"

# a byte budget of 64 writes: with the short test's 64, half the cache (the
# cliff's run ended when the idle cleaning had emptied it)
ts_subtest byte-budget
"$ALIGNPROBE" emulate --reset-stats "$dev" || ts_fail "reset-stats"
ts_run_rc 0 "$ALIGNPROBE" smr --deep --yes --writes 32 --byte-budget 256K -J "$dev"
cp "$TS_TMP/out" "$TS_TMP/budget.json"
ts_json_check "$TS_TMP/budget.json" <<'PY' || ts_fail "byte budget: $(cat "$TS_TMP/budget.json")"
r = d["smr"][0]
eq(r["verdict"], "dm-smr-or-hybrid", "verdict")
x = r["deep"]
eq(x["ran"], True, "ran")
eq(x["stop"], "byte budget", "stop")
eq(x["writes"], 64, "writes")
eq(x["cliff"], False, "cliff")
eq(x["cache_bytes"], None, "cache_bytes")
eq(x["idle_probes"], 0, "idle probes")
PY
ts_assert_eq 0 "$(stat STALL_NS)" "stalls within the budget (the cache never full)"
ts_assert_eq 128 "$(stat WRITES)" "writes: the short test's 64 and the budget's 64"

ts_subtest words
ts_run_rc 0 "$ALIGNPROBE" smr --deep --yes --writes 32 --byte-budget 128K "$dev"
grep -q "^deep test (write cache off, budget 600 s, writes of at most 128 KiB" "$TS_TMP/out" ||
	ts_fail "words: $(cat "$TS_TMP/out")"
grep -q "persistent cache: no cliff within the budget (byte budget: 32 writes" "$TS_TMP/out" ||
	ts_fail "no cliff: $(cat "$TS_TMP/out")"
grep -q "band size: not measured: " "$TS_TMP/out" || ts_fail "band: $(cat "$TS_TMP/out")"
grep -q "idle cleaning: not measured: no cliff" "$TS_TMP/out" || ts_fail "idle: $(cat "$TS_TMP/out")"

# a hybrid's flash cache: the same cliff (its units are writes, not bands)
ts_subtest hybrid
sshd=$(ts_emu_attach --profile sshd --size 2G \
	--spec "pcache=$pcache,settle=30ms,seek=60ms,clean-idle=200ms")
ts_run_rc 0 "$ALIGNPROBE" smr --deep --yes --writes 32 --time-budget 5m -J "$sshd"
ts_json_check "$TS_TMP/out" "$pcache" <<'PY' || ts_fail "hybrid: $(cat "$TS_TMP/out")"
x = d["smr"][0]["deep"]
eq(x["stop"], "cliff", "stop")
size = int(args[0])
check(size / 4 <= x["cache_bytes"] <= size * 2,
      "cache_bytes %s within a factor of the emulated %d" % (x["cache_bytes"], size))
eq(x["idle_clean"], True, "idle_clean")
eq(x["band_bytes"], None, "band_bytes (a hybrid cleans write by write)")
check(len(x["band_reason"] or "") > 0, "band_reason")
PY
[ "$("$ALIGNPROBE" emulate --stats "$sshd" -n -r -o STALL_NS)" -gt 0 ] ||
	ts_fail "no write waited for the hybrid's full cache"

# the profile's own 256 MiB cache: 2 s of writes at 0.3 ms each cannot fill it
ts_subtest time-budget
big=$(ts_emu_attach --profile smr-notrim --size 256M)
ts_run_rc 0 "$ALIGNPROBE" smr --deep --yes --time-budget 2s -J "$big"
ts_json_check "$TS_TMP/out" <<'PY' || ts_fail "time budget: $(cat "$TS_TMP/out")"
x = d["smr"][0]["deep"]
eq(x["stop"], "time budget", "stop")
eq(x["cliff"], False, "cliff")
check(x["writes"] > 0, "writes")
eq(x["idle_probes"], 0, "idle probes")
PY
ts_assert_eq 0 "$("$ALIGNPROBE" emulate --stats "$big" -n -r -o STALL_NS)" "stalls"

ts_subtest conventional
cmr=$(ts_emu_attach --profile cmr-7200 --size 256M)
"$ALIGNPROBE" emulate --reset-stats "$cmr" || ts_fail "reset-stats"
ts_run_rc 0 "$ALIGNPROBE" smr --deep --yes -J "$cmr"
ts_json_check "$TS_TMP/out" <<'PY' || ts_fail "cmr: $(cat "$TS_TMP/out")"
r = d["smr"][0]
eq(r["verdict"], "cmr", "verdict")
eq(r["deep"]["ran"], False, "ran")
check("nothing to measure" in r["deep"]["reason"], "reason")
PY
# the short test's 128 writes (and its cache-off phase's when they were fast), no more
writes=$("$ALIGNPROBE" emulate --stats "$cmr" -n -r -o WRITES)
[ "$writes" -le 256 ] || ts_fail "the deep test wrote to a conventional disk ($writes writes)"
ts_run_rc 0 "$ALIGNPROBE" smr --deep --yes "$cmr"
grep -q "^deep test: not run: the short test found no persistent cache (cmr): nothing to measure" \
	"$TS_TMP/out" || ts_fail "cmr words: $(cat "$TS_TMP/out")"
ts_pass
