#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# check --prometheus never goes dark: with --verdicts and a store that is
# missing, corrupt, unreadable or written by a newer alignprobe (also as
# one of several layers), the disks are still
# checked (as without a store), the file is written and says the store's
# state and age (alignprobe_verdict_store_state, _mtime_seconds), and the
# exit status is 2. The file is 0644 whatever the umask (node_exporter reads
# it as another user). A SIGTERM while the temporary file exists removes it
# (ALIGNPROBE_TEST_OUTFILE_HOLD stops the run right after creating it, so
# the signal comes at that moment without a race).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "check --prometheus: store faults as metrics, 0644, no temporary file after SIGTERM"
ts_untimed "verdict stores, metrics and units from recorded results"
ts_need_loop
ts_need_cmd promtool sfdisk

dir=$TS_TMP/textfile
prom=$dir/alignprobe.prom
mkdir -p "$dir" "$TS_TMP/lib"
ts_image "$TS_TMP/d.img" 64M
printf 'label: dos\nstart=63,size=20480\nstart=22528,size=20480\n' |
	sfdisk -q --no-reread --no-tell-kernel "$TS_TMP/d.img" >/dev/null || ts_fail "sfdisk"
dev=$(ts_loop_attach "$TS_TMP/d.img")

. "$top_srcdir/tests/ts/fleet/prom-lib.sh"	# promcheck, value, expect

echo '{"format": "alignprobe-verdicts", "version": 1, "models": [' > "$TS_TMP/lib/corrupt.json"
echo '{"format": "alignprobe-verdicts", "version": 9, "models": []}' > "$TS_TMP/lib/newer.json"
echo '{"format": "alignprobe-verdicts", "version": 1, "models": []}' > "$TS_TMP/lib/ok.json"
mkdir "$TS_TMP/lib/unreadable.json"	# a directory: it cannot be read
touch -d @1700000000 "$TS_TMP/lib/corrupt.json"
for state in missing corrupt newer unreadable ok; do
	store=$TS_TMP/lib/$state.json
	rm -f "$prom"
	want=2
	[ "$state" = ok ] && want=4
	ts_run_rc $want "$ALIGNPROBE" check -q --verdicts="$store" --prometheus "$prom" "$dev"
	[ -f "$prom" ] || ts_fail "$state store: no metrics file"
	promcheck "$prom"
	for s in ok missing unreadable corrupt newer; do
		v=0
		[ "$s" = "$state" ] && v=1
		expect "$prom" "alignprobe_verdict_store_state{store=\"$store\",state=\"$s\"}" $v
	done
	# the disk was still checked, by the 4 KiB rule: 63 is misaligned
	expect "$prom" "alignprobe_check_success{device=\"$dev\"}" 1
	expect "$prom" "alignprobe_check_exit_status{device=\"$dev\"}" 4
	expect "$prom" "alignprobe_partition_aligned{device=\"$dev\",partition=\"1\"}" 0
	expect "$prom" "alignprobe_check_rule_info{device=\"$dev\",rule=\"minimum_4k\",basis=\"reported\"}" 1
	if [ "$state" != ok ]; then
		grep -q "^alignprobe check: --verdicts: $store: .*; the disks are checked without it$" \
			"$TS_TMP/err" || ts_fail "$state store: $(cat "$TS_TMP/err")"
	fi
done
# its age: the file's mtime; the models it holds when it was read
expect "$prom" "alignprobe_verdict_store_models{store=\"$TS_TMP/lib/ok.json\"}" 0
ts_run_rc 2 "$ALIGNPROBE" check -q --verdicts="$TS_TMP/lib/corrupt.json" --prometheus "$prom" "$dev"
expect "$prom" "alignprobe_verdict_store_mtime_seconds{store=\"$TS_TMP/lib/corrupt.json\"}" 1700000000
grep -q '^alignprobe_verdict_store_models' "$prom" && ts_fail "models of a corrupt store"
# layers: each has its series; one bad layer and none is used (the disk's
# model has a verdict in the good one: used alone, not beside a bad one)
export "ALIGNPROBE_TEST_IDENTITY_${dev#/dev/}=ACME:Textfile Disk:1.0:S1"
cat > "$TS_TMP/lib/model.json" <<'JSON'
{"format": "alignprobe-verdicts", "version": 1, "models": [
 {"vendor": "ACME", "model": "Textfile Disk", "revision": "1.0", "verdicts": [
  {"logical_sector": 512, "physical_sector": 4096, "lowest_aligned_lba": 0, "sensitive": true,
   "examples": [{"serial": "S0", "wwn": null, "device": "/dev/sdz", "host": "h", "source": "probe",
                 "recorded": "2026-01-01T00:00:00Z", "confidence": 0.999, "runs": 1}]}]}]}
JSON
ts_run_rc 4 "$ALIGNPROBE" check -q --verdicts="$TS_TMP/lib/model.json" --prometheus "$prom" "$dev"
expect "$prom" "alignprobe_check_rule_info{device=\"$dev\",rule=\"model_verdict\",basis=\"model\"}" 1
ts_run_rc 2 "$ALIGNPROBE" check -q --verdicts="$TS_TMP/lib/model.json" --verdicts="$TS_TMP/lib/newer.json" \
	--prometheus "$prom" "$dev"
expect "$prom" "alignprobe_verdict_store_state{store=\"$TS_TMP/lib/model.json\",state=\"ok\"}" 1
expect "$prom" "alignprobe_verdict_store_state{store=\"$TS_TMP/lib/newer.json\",state=\"newer\"}" 1
expect "$prom" "alignprobe_check_rule_info{device=\"$dev\",rule=\"minimum_4k\",basis=\"reported\"}" 1
unset "ALIGNPROBE_TEST_IDENTITY_${dev#/dev/}"
# a store given twice: its series once (a duplicate series aborted the run)
ts_run_rc 4 "$ALIGNPROBE" check -q --verdicts="$TS_TMP/lib/ok.json" --verdicts="$TS_TMP/lib/ok.json" \
	--prometheus "$prom" "$dev"
promcheck "$prom"
ts_assert_eq 5 "$(grep -c '^alignprobe_verdict_store_state{' "$prom")" "store series of a store given twice"
# without --prometheus the same: an error, the disk still judged
ts_run_rc 2 "$ALIGNPROBE" check --verdicts="$TS_TMP/lib/newer.json" "$dev"
grep -q "written by a newer alignprobe" "$TS_TMP/err" || ts_fail "newer: $(cat "$TS_TMP/err")"
grep -q "^ 1 *63 " "$TS_TMP/out" || ts_fail "newer store: the disk was not checked"

# 0644 whatever the umask, new file or old
rm -f "$prom"
(umask 077 && "$ALIGNPROBE" check -q --prometheus "$prom" "$dev") > /dev/null 2>&1
ts_assert_eq 644 "$(stat -c %a "$prom")" "the metrics file's mode under umask 077 (new)"
chmod 600 "$prom"
(umask 077 && "$ALIGNPROBE" check -q --prometheus "$prom" "$dev") > /dev/null 2>&1
ts_assert_eq 644 "$(stat -c %a "$prom")" "the metrics file's mode under umask 077 (replaced)"

# SIGTERM while the temporary file exists: it is removed, the old file kept
sum=$(ts_checksum "$prom")
ALIGNPROBE_TEST_OUTFILE_HOLD=1 "$ALIGNPROBE" check -q --prometheus "$prom" "$dev" \
	> /dev/null 2> "$TS_TMP/hold.err" &
pid=$!
ts_bg_pid "$pid"
tmpfile() { ls -A "$dir" | grep -q '^\.alignprobe\.prom\.'; }
ts_wait_for -p "$pid" "the temporary file" tmpfile || ts_fail "no temporary file: $(cat "$TS_TMP/hold.err")"
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
ts_assert_eq 143 "$rc" "exit status after SIGTERM"
ts_assert_eq "alignprobe.prom" "$(ls -A "$dir")" "files after SIGTERM"
ts_assert_eq "$sum" "$(ts_checksum "$prom")" "the old file after SIGTERM"
ts_pass
