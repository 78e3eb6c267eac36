#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# check --prometheus on loop devices partitioned by sfdisk and parted: an
# aligned disk (GPT, 1 MiB starts), a misaligned one (MBR at 63), a mixed
# one (parted at 1 MiB and at 22535 sectors), a table written for 4096-byte
# sectors, all in ONE run (one file per host, the exit status the worst:
# 7 > 4 > 0, and 2 over 7 when a device cannot be read). The file is parsed
# with Prometheus' own parser (promtool check metrics, which also lints the
# names), and its values are checked line by line. A device named through a
# path with a quote and a backslash is escaped. The file is replaced
# atomically (a new inode, no temporary file left, an existing file kept
# when the run fails before its end) and its path is checked before any
# device is read; a device named twice is checked once. (Store faults,
# umask and signals: tests/ts/fleet/textfile.sh; the alerts:
# tests/ts/fleet/alerts.sh.) (probe --prometheus: tests/ts/fleet/verdicts.sh.)
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "check --prometheus: aligned, misaligned, mixed, foreign; promtool"
ts_untimed "verdict stores, metrics and units from recorded results"
ts_need_loop
ts_need_cmd promtool sfdisk parted python3

prom=$TS_TMP/textfile/alignprobe.prom
mkdir -p "$TS_TMP/textfile"

truncate -s 64M "$TS_TMP/aligned.img" "$TS_TMP/misaligned.img" "$TS_TMP/mixed.img"
printf 'label: gpt\nstart=2048,size=20480\nstart=22528,size=20480\n' |
	sfdisk -q --no-reread --no-tell-kernel "$TS_TMP/aligned.img" >/dev/null || ts_fail "sfdisk"
printf 'label: dos\nstart=63,size=20480\nstart=22528,size=20480\n' |
	sfdisk -q --no-reread --no-tell-kernel "$TS_TMP/misaligned.img" >/dev/null || ts_fail "sfdisk"
parted -s "$TS_TMP/mixed.img" mklabel gpt mkpart a 2048s 22527s mkpart b 22535s 43014s \
	>/dev/null 2>&1 || ts_fail "parted"
al=$(ts_loop_attach "$TS_TMP/aligned.img")
mis=$(ts_loop_attach "$TS_TMP/misaligned.img")
mix=$(ts_loop_attach "$TS_TMP/mixed.img")
# a GPT written through 4096-byte sectors, read with 512: exit 7
truncate -s 32M "$TS_TMP/foreign.img"
f4k=$(ts_loop_attach "$TS_TMP/foreign.img" -b 4096)
parted -s "$f4k" mklabel gpt mkpart primary 1MiB 16MiB >/dev/null 2>&1 || ts_fail "parted -b 4096"
blockdev --flushbufs "$f4k" 2>/dev/null
fgn=$(ts_loop_attach "$TS_TMP/foreign.img")

. "$top_srcdir/tests/ts/fleet/prom-lib.sh"	# promcheck, value, expect

# the path is refused before any device is read
ts_run_rc 2 "$ALIGNPROBE" check --prometheus "$TS_TMP/nodir/x.prom" "$al"
grep -q "alignprobe check: $TS_TMP/nodir/x.prom: cannot create: No such file or directory" \
	"$TS_TMP/err" || ts_fail "missing directory: $(cat "$TS_TMP/err")"
[ -s "$TS_TMP/out" ] && ts_fail "a refused output path, yet the disk was checked"
ts_run_rc 2 "$ALIGNPROBE" check --prometheus "$TS_TMP/textfile" "$al"
grep -q "Is a directory" "$TS_TMP/err" || ts_fail "a directory: $(cat "$TS_TMP/err")"

# the aligned disk alone
ts_run_rc_ro 0 "$al" "$ALIGNPROBE" check -q --prometheus "$prom" "$al"
promcheck "$prom"
expect "$prom" "alignprobe_check_success{device=\"$al\"}" 1
expect "$prom" "alignprobe_check_exit_status{device=\"$al\"}" 0
expect "$prom" "alignprobe_disk_aligned{device=\"$al\"}" 1
expect "$prom" "alignprobe_partition_aligned{device=\"$al\",partition=\"1\"}" 1
expect "$prom" "alignprobe_partition_aligned{device=\"$al\",partition=\"2\"}" 1
expect "$prom" "alignprobe_partition_start_bytes{device=\"$al\",partition=\"1\"}" 1048576
expect "$prom" "alignprobe_physical_sector_bytes{command=\"check\",device=\"$al\",source=\"reported\"}" 512
expect "$prom" "alignprobe_alignment_offset_bytes{command=\"check\",device=\"$al\",source=\"reported\"}" 0
expect "$prom" "alignprobe_logical_sector_bytes{command=\"check\",device=\"$al\"}" 512
expect "$prom" "alignprobe_check_rule_info{device=\"$al\",rule=\"minimum_4k\",basis=\"reported\"}" 1
expect "$prom" "alignprobe_check_required_alignment_bytes{device=\"$al\"}" 4096
grep -q '^# TYPE alignprobe_partition_aligned gauge$' "$prom" || ts_fail "TYPE line"
grep -q '^# HELP alignprobe_partition_aligned ' "$prom" || ts_fail "HELP line"
t=$(value "$prom" "alignprobe_last_run_timestamp_seconds{command=\"check\",device=\"$al\"}")
now=$(date +%s)
python3 -c "import sys; t = float('$t'); sys.exit(0 if $now - 600 < t <= $now + 1 else 1)" ||
	ts_fail "timestamp $t is not now ($now)"
ls -A "$TS_TMP/textfile" > "$TS_TMP/ls"
ts_assert_eq "alignprobe.prom" "$(cat "$TS_TMP/ls")" "files in the textfile directory"
ino1=$(stat -c %i "$prom")

# all of them in one run: one file, the worst status (7 > 4 > 0)
ts_run_rc 7 "$ALIGNPROBE" check -q --prometheus "$prom" "$al" "$mis" "$mix" "$fgn"
promcheck "$prom"
ino2=$(stat -c %i "$prom")
[ "$ino1" != "$ino2" ] || ts_fail "the file was rewritten in place, not replaced"
ls -A "$TS_TMP/textfile" > "$TS_TMP/ls"
ts_assert_eq "alignprobe.prom" "$(cat "$TS_TMP/ls")" "a temporary file was left behind"
for d in "$al" "$mis" "$mix" "$fgn"; do
	expect "$prom" "alignprobe_check_success{device=\"$d\"}" 1
done
expect "$prom" "alignprobe_check_exit_status{device=\"$al\"}" 0
expect "$prom" "alignprobe_check_exit_status{device=\"$mis\"}" 4
expect "$prom" "alignprobe_check_exit_status{device=\"$mix\"}" 4
expect "$prom" "alignprobe_check_exit_status{device=\"$fgn\"}" 7
expect "$prom" "alignprobe_disk_aligned{device=\"$mis\"}" 0
expect "$prom" "alignprobe_disk_aligned{device=\"$fgn\"}" 0
# misaligned: 63 fails, its first aligned start is 64 (32768 bytes); 22528 passes
expect "$prom" "alignprobe_partition_aligned{device=\"$mis\",partition=\"1\"}" 0
expect "$prom" "alignprobe_partition_start_bytes{device=\"$mis\",partition=\"1\"}" 32256
expect "$prom" "alignprobe_partition_next_aligned_start_bytes{device=\"$mis\",partition=\"1\"}" 32768
expect "$prom" "alignprobe_partition_aligned{device=\"$mis\",partition=\"2\"}" 1
expect "$prom" "alignprobe_check_misaligned_partitions{device=\"$mis\"}" 1
expect "$prom" "alignprobe_check_partitions{device=\"$mis\"}" 2
# mixed: 2048 passes, 22535 does not (next 22536)
expect "$prom" "alignprobe_partition_aligned{device=\"$mix\",partition=\"1\"}" 1
expect "$prom" "alignprobe_partition_aligned{device=\"$mix\",partition=\"2\"}" 0
expect "$prom" "alignprobe_partition_next_aligned_start_bytes{device=\"$mix\",partition=\"2\"}" $((22536 * 512))
expect "$prom" "alignprobe_check_misaligned_partitions{device=\"$mix\"}" 1
# foreign: what it was written for; its partitions are not judged
expect "$prom" "alignprobe_check_foreign_sector_bytes{device=\"$fgn\"}" 4096
grep -q "^alignprobe_partition_aligned{device=\"$fgn\"" "$prom" &&
	ts_fail "partitions of a foreign table were judged"
# the same series once each: every family's samples together, no duplicate
python3 - "$prom" <<'PY' || ts_fail "families split or series repeated"
import sys
seen, fams, last = set(), [], None
for line in open(sys.argv[1]):
    if line.startswith("#"):
        continue
    series = line.rsplit(" ", 1)[0]
    name = series.split("{")[0]
    assert series not in seen, series
    seen.add(series)
    if name != last:
        assert name not in fams, "family split: " + name
        fams.append(name)
        last = name
PY

# a device that cannot be read outranks the findings: 2; the others are reported
ts_run_rc 2 "$ALIGNPROBE" check -q --prometheus "$prom" "$mis" "$TS_TMP/none.img" "$fgn"
promcheck "$prom"
expect "$prom" "alignprobe_check_success{device=\"$TS_TMP/none.img\"}" 0
expect "$prom" "alignprobe_check_exit_status{device=\"$TS_TMP/none.img\"}" 2
expect "$prom" "alignprobe_check_exit_status{device=\"$fgn\"}" 7
expect "$prom" "alignprobe_partition_aligned{device=\"$mis\",partition=\"1\"}" 0
# -J of several: one document per device, and the worst
ts_run_rc 4 "$ALIGNPROBE" check -J "$al" "$mis"
python3 - "$TS_TMP/out" "$al" "$mis" <<'PY' || ts_fail "-J of several devices: $(cat "$TS_TMP/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert [x["device"] for x in d["devices"]] == sys.argv[2:4]
assert [x["exit_status"] for x in d["devices"]] == [0, 4] and d["exit_status"] == 4
assert d["devices"][1]["partitions"][0]["next_aligned"] == 64
PY
# a device named twice (also through a link) is checked once, with a note
ln -s "$al" "$TS_TMP/al-link" || ts_fail "symlink"
ts_run_rc 0 "$ALIGNPROBE" check --prometheus "$prom" "$al" "$TS_TMP/al-link" "$al"
grep -qxF "alignprobe check: $TS_TMP/al-link: listed twice (also as $al): checked once" \
	"$TS_TMP/err" || ts_fail "listed twice: $(cat "$TS_TMP/err")"
promcheck "$prom"
[ "$(grep -c '^alignprobe_check_success{' "$prom")" = 1 ] || ts_fail "a device twice in the file"

# a run that fails before its end leaves the old file as it was (a bad column:
# a usage error before anything is read; a bad verdict store is a metric)
sum=$(ts_checksum "$prom")
ts_run_rc 2 "$ALIGNPROBE" check -q -o NOPE --prometheus "$prom" "$al"
ts_assert_eq "$sum" "$(ts_checksum "$prom")" "the old metrics after a failed run"
ls -A "$TS_TMP/textfile" > "$TS_TMP/ls"
ts_assert_eq "alignprobe.prom" "$(cat "$TS_TMP/ls")" "a temporary file after a failed run"

# label values are escaped: a path with a quote and a backslash
odd="$TS_TMP/disk \"q\" \\x"
ln -s "$mix" "$odd" || ts_fail "symlink"
ts_run_rc 4 "$ALIGNPROBE" check -q --prometheus "$prom" "$odd"
promcheck "$prom"
esc=$(printf '%s' "$odd" | sed 's/\\/\\\\/g; s/"/\\"/g')
expect "$prom" "alignprobe_partition_aligned{device=\"$esc\",partition=\"2\"}" 0

ts_pass
