#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --geometry applies the verdict of the device checked: in a probe result of
# several devices the entry whose device is this one (by WWN or serial where
# both sides know one, else by path: the same block device, the same file,
# the same path), not devices[0]; a file with no entry for this device is
# refused (exit 2, the entries named) unless --geometry-any says it describes
# this model of drive (then its entries must agree). On an image file and on
# a loop device of it, with symlinks as other names. Nothing is written.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "a saved verdict matched to the device it is applied to"
ts_untimed "partition tables in files and on plain loop devices"
ts_need_loop
ts_need_cmd sfdisk jq sha256sum

img=$TS_TMP/disk.img
truncate -s 32M "$img"
# 63 and 20487 are aligned on a drive whose lowest aligned LBA is 7, and
# misaligned on an unshifted one
printf 'label: dos\nstart=63,size=20417\nstart=20487,size=20480\n' |
	sfdisk -q --no-reread --no-tell-kernel "$img" >/dev/null || ts_fail "sfdisk"
dev=$(ts_loop_attach "$img")
ln -s "$img" "$TS_TMP/img-link"
ln -s "$dev" "$TS_TMP/dev-link"

verdict() {	# verdict PHYSICAL LOWEST
	printf '{"sensitive": true, "resolved": true, "logical_sector": 512,
 "reported_physical_sector": 512, "physical_sector": %s, "period": %s,
 "lowest_aligned_lba": %s, "fast_starts": [%s], "slowdown": 9.0, "p_value": 0.001,
 "confidence": 0.999}' "$1" $(( $1 / 512 )) "$2" "$2"
}
# probe_doc FILE ENTRY...: ENTRY is 'device phys lowest [wwn [serial]]'
probe_doc() {
	local f=$1 e sep= extra
	shift
	{
		printf '{"devices": ['
		for e in "$@"; do
			set -- $e
			extra=
			[ $# -ge 4 ] && extra=", \"wwn\": \"$4\""
			[ $# -ge 5 ] && extra="$extra, \"serial\": \"$5\""
			printf '%s{"device": "%s"%s, "verdict": %s}' "$sep" "$1" "$extra" "$(verdict "$2" "$3")"
			sep=', '
		done
		printf ']}\n'
	} > "$f"
}

doc=$TS_TMP/probe.json
for target in "$img" "$dev"; do
	# the entry of this device is the second: shifted, both partitions aligned;
	# the first (unshifted) would flag both
	probe_doc "$doc" "/dev/nonexistent-sdz 4096 0" "$target 4096 7" "/dev/nonexistent-sdx 8192 0"
	ts_run_rc_ro 0 "$target" "$ALIGNPROBE" check --geometry "$doc" "$target"
	grep -qF "Rule: probed: a probe verdict ($doc, devices[1].verdict; its entry is this device by path: $target) found 4096-byte physical sectors, lowest aligned LBA 7" \
		"$TS_TMP/out" || { cat "$TS_TMP/out" >&2; ts_fail "$target: the entry used"; }
	ts_run_rc_ro 0 "$target" "$ALIGNPROBE" check -J --geometry "$doc" "$target"
	jq -e --arg d "$target" '.rule.name == "probed" and .geometry.probed.entry == "devices[1].verdict"
		and .geometry.probed.entry_device == $d and .geometry.probed.matched_by == "path"
		and .geometry.in_force.lowest_aligned_lba == 7 and .aligned == true' \
		"$TS_TMP/out" >/dev/null || { cat "$TS_TMP/out" >&2; ts_fail "$target: JSON of the entry"; }

	# another name of the same device or file (a symlink) is the same device
	probe_doc "$doc" "/dev/nonexistent-sdz 4096 0" "$TS_TMP/$([ -b "$target" ] && echo dev || echo img)-link 4096 7"
	ts_run_rc_ro 0 "$target" "$ALIGNPROBE" check --geometry "$doc" "$target"
	# a WWN or serial the device does not have (loop devices have none): by path
	probe_doc "$doc" "/dev/nonexistent-sdz 4096 0 0x5000c500aaaaaaaa SER-A" \
		"$target 4096 7 0x5000c500bbbbbbbb SER-B"
	ts_run_rc_ro 0 "$target" "$ALIGNPROBE" check -J --geometry "$doc" "$target"
	jq -e '.geometry.probed.matched_by == "path" and .geometry.probed.entry == "devices[1].verdict"' \
		"$TS_TMP/out" >/dev/null || ts_fail "$target: entries with identities"

	# no entry for this device: refused, the entries named
	probe_doc "$doc" "/dev/nonexistent-sdz 4096 7" "/dev/nonexistent-sdy 4096 0"
	ts_run_rc_ro 2 "$target" "$ALIGNPROBE" check --geometry "$doc" "$target"
	grep -qF "alignprobe check: $doc: no entry is for $target (by WWN, serial number or path; the file is for /dev/nonexistent-sdz, /dev/nonexistent-sdy): use a probe result of this device, or --geometry-any if the file describes this model of drive" \
		"$TS_TMP/err" || { cat "$TS_TMP/err" >&2; ts_fail "$target: refusal"; }
	[ -s "$TS_TMP/out" ] && ts_fail "$target: a refused geometry printed a table"
	# --geometry-any: the entries disagree, so it describes no one model
	ts_run_rc_ro 2 "$target" "$ALIGNPROBE" check --geometry-any --geometry "$doc" "$target"
	grep -qF "$doc: the entries disagree (devices[0].verdict: 4096-byte physical sectors, lowest aligned LBA 7; devices[1].verdict: 4096, 0): it describes no one model of drive" \
		"$TS_TMP/err" || { cat "$TS_TMP/err" >&2; ts_fail "$target: disagreeing entries"; }
	# ... they agree: used, and said so
	probe_doc "$doc" "/dev/nonexistent-sdz 4096 7" "/dev/nonexistent-sdy 4096 7"
	ts_run_rc_ro 0 "$target" "$ALIGNPROBE" check --geometry-any --geometry "$doc" "$target"
	grep -qF "Rule: probed: a probe verdict ($doc, devices[0].verdict; no entry is this device; --geometry-any took the one of /dev/nonexistent-sdz)" \
		"$TS_TMP/out" || { cat "$TS_TMP/out" >&2; ts_fail "$target: --geometry-any"; }
	ts_run_rc_ro 0 "$target" "$ALIGNPROBE" check -J --geometry-any --geometry "$doc" "$target"
	jq -e '.geometry.probed.matched_by == "any"' "$TS_TMP/out" >/dev/null || ts_fail "$target: any in JSON"

	# a one-device result for another device: refused, or taken with --geometry-any
	printf '{"device": "/dev/nonexistent-sdz", "verdict": %s, "results": []}\n' "$(verdict 4096 7)" > "$doc"
	ts_run_rc_ro 2 "$target" "$ALIGNPROBE" check --geometry "$doc" "$target"
	grep -qF "no entry is for $target" "$TS_TMP/err" || ts_fail "$target: one-device refusal"
	ts_run_rc_ro 0 "$target" "$ALIGNPROBE" check --geometry-any --geometry "$doc" "$target"
done

# the block device is not its backing file, nor the reverse
probe_doc "$doc" "$img 4096 7"
ts_run_rc_ro 2 "$dev" "$ALIGNPROBE" check --geometry "$doc" "$dev"
probe_doc "$doc" "$dev 4096 7"
ts_run_rc_ro 2 "$img" "$ALIGNPROBE" check --geometry "$doc" "$img"

ts_run_rc_ro 2 "$img" "$ALIGNPROBE" check --geometry-any "$img"
grep -q "alignprobe check: --geometry-any needs --geometry" "$TS_TMP/err" || ts_fail "--geometry-any alone"
ts_pass
