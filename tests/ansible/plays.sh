# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# The role's plays past the aligned disk (tests/ansible/run.sh without
# --only fleet): a partition at 63, a table written for 4096-byte sectors,
# all disks at once, what the role registers, its choice of disks, a string
# for a list, alignprobe_refuse_smr. They read partition tables only and
# time nothing. Sourced by run.sh (its play, failed_with, disks, the loop
# devices, sums and before).

# the first aligned start of at63's partition 1 as check itself computes it
# (64 under the 4 KiB rule)
next63=$("$ALIGNPROBE" check -J "$at63" 2>/dev/null | jq -r '.partitions[0].next_aligned')

# ---- a partition at 63: the play fails, naming it and the start to use ----
play at63 2 -e "$(disks "$at63")" "$playbook"
failed_with at63 "${at63}p1 (partition 1 of $at63): starts at sector 63, not on a 4096-byte boundary"
failed_with at63 "first aligned start: sector $next63 (byte $(( next63 * 512 )))"
[ "$next63" = 64 ] || ts_fail "at63: check's first aligned start is $next63, not 64"
# the same in --check mode: check only reads, so it runs there too
play at63-check 2 --check -e "$(disks "$at63")" "$playbook"
failed_with at63-check "${at63}p1 (partition 1 of $at63): starts at sector 63, not on a 4096-byte boundary"

# ---- written for 4096-byte sectors: fails, naming the cause ----
play foreign 2 -e "$(disks "$foreign")" "$playbook"
failed_with foreign "$foreign: the partition table was written for 4096-byte logical sectors, not for the 512-byte sectors it is read with here; likely cause: "
failed_with foreign "USB bridge"
failed_with foreign "what to do: read it as written with losetup --read-only --sector-size 4096"

# ---- all at once, a blank disk and one that is not there: a line each ----
missing=/dev/alignprobe-ansible-test-missing
play all 2 -e "$(disks "$aligned" "$at63" "$foreign" "$blank" "$missing")" "$playbook"
failed_with all "${at63}p1 (partition 1 of $at63): starts at sector 63"
failed_with all "$foreign: the partition table was written for 4096-byte"
failed_with all "$blank: no partition table (neither MBR nor GPT"
failed_with all "$missing: alignprobe check exited with 2: alignprobe check: $missing: No such file or directory"
# (not as a prefix: /dev/loop1 of /dev/loop10)
grep '^fatal:' "$TS_TMP/all.out" | grep -qE -- "${aligned}([^0-9]|$)" && ts_fail "all: the aligned disk is named"

# ---- what the role registers ----
play report 0 -e "$(disks "$aligned" "$at63" "$foreign" "$blank" "$missing")" \
	-e report_file="$TS_TMP/report.json" "$top_srcdir/tests/ansible/report.yml"
jq -e --arg a "$aligned" --arg m "$at63" --arg f "$foreign" --arg b "$blank" --arg x "$missing" \
	--argjson n "$next63" '
	[.report[].disk] == [$a, $m, $f, $b, $x]
	and [.report[].rc] == [0, 4, 7, 2, 2]
	and [.report[].passed] == [true, false, false, false, false]
	and (.report[0].problems == []) and .report[0].check.aligned == true
	and (.report[1].problems | length == 1)
	and .report[1].check.rule.name == "minimum_4k"
	and .report[1].check.partitions[0].next_aligned == $n
	and (.report[2].problems | length == 1)
	and .report[2].check.foreign_sector_size.written_for == 4096
	and (.report[3].problems | length == 1)
	and (.report[3].problems[0] | startswith($b + ": no partition table (neither MBR nor GPT"))
	and .report[4].check == {device: $x, exit_status: 2}
	and (.problems | length == 4)
	and .problems == [.report[].problems[]]' "$TS_TMP/report.json" >/dev/null ||
	{ cat "$TS_TMP/report.json" >&2; ts_fail "report: not what check said"; }

ts_assert_eq "$before" "$(sums)" "the disks' contents after the plays"

# ---- the role's choice of disks ----
play select 0 "$top_srcdir/tests/ansible/select.yml"
play discovered 0 -e report_file="$TS_TMP/discovered.json" "$top_srcdir/tests/ansible/discovered.yml"
jq -e '.discovered | all(test("^/dev/(loop|ram|zram|sr|fd)[0-9]") | not)' "$TS_TMP/discovered.json" >/dev/null ||
	{ cat "$TS_TMP/discovered.json" >&2; ts_fail "discovered: a loop, ram, zram, sr or fd device"; }
for d in "$aligned" "$at63" "$foreign"; do
	jq -e --arg d "$d" '.discovered | index($d) == null' "$TS_TMP/discovered.json" >/dev/null ||
		ts_fail "discovered: this test's $d"
done
# the disk(s) below /, found here with lsblk --inverse
root=$(findmnt -n -o SOURCE --nofsroot /)
if [ -b "$root" ]; then
	rootdisks=$(lsblk -n -l -s -o PATH,TYPE "$root" | awk '$2 == "disk" { print $1 }' | sort -u)
	[ -n "$rootdisks" ] || ts_fail "no disk below / ($root)"
	for d in $rootdisks; do
		jq -e --arg d "$d" '(.discovered | index($d) == null) and (.system | index($d) != null)' \
			"$TS_TMP/discovered.json" >/dev/null ||
			{ cat "$TS_TMP/discovered.json" >&2; ts_fail "discovered: the root disk $d"; }
	done
else
	ts_log "/ is on $root, no block device: no root disk to leave out"
fi
# nothing found here (a virtual machine's disks are its system disks): then
# the whole role, alignprobe_disks empty, checks nothing and passes
if jq -e '.discovered == []' "$TS_TMP/discovered.json" >/dev/null; then
	play none 0 "$playbook"
	grep -qF 'alignprobe: no disk to check (system disks: ' "$TS_TMP/none.out" ||
		{ cat "$TS_TMP/none.out" >&2; ts_fail "none: no message"; }
fi

# ---- a string where a list is wanted: one disk (argument_specs converts) ----
play string 0 -e alignprobe_disks="$aligned" "$playbook"

# ---- alignprobe_refuse_smr: a model's smr verdict in the store refuses its disks ----
# two emulated drives (their models stated), partitions at 1 MiB; the store's
# smr rows as `smr --record` writes them: EMU-SMR-NOTRIM shingled, EMU-CMR-7200 not
smrdisk() {
	local dev
	dev=$(ts_emu_attach --profile "$1" --size 256M)
	printf 'label: gpt\nstart=2048,size=65536\n' | sfdisk -q --no-reread --no-tell-kernel "$dev" \
		>/dev/null || ts_fail "sfdisk $dev"
	echo "$dev"
}
smr=$(smrdisk smr-notrim)
cmr=$(smrdisk cmr-7200)
cat > "$TS_TMP/smr-store.json" <<'JSON'
{"format": "alignprobe-verdicts", "version": 1, "models": [], "smr": [
 {"vendor": "ALIGNPROBE", "model": "EMU-SMR-NOTRIM", "revision": null, "verdict": "dm-smr-or-hybrid",
  "serial": null, "device": "/dev/sdx", "host": "h1", "recorded": "2026-12-01T10:00:00Z"},
 {"vendor": "ALIGNPROBE", "model": "EMU-CMR-7200", "revision": null, "verdict": "cmr",
  "serial": null, "device": "/dev/sdy", "host": "h1", "recorded": "2026-12-01T10:00:00Z"}]}
JSON
smr_store=$(jq -cn --arg s "--verdicts=$TS_TMP/smr-store.json" '{alignprobe_check_args: [$s]}')
play smr-off 0 -e "$(disks "$smr" "$cmr")" -e "$smr_store" "$playbook"
play smr-refused 2 -e "$(disks "$smr" "$cmr")" -e "$smr_store" -e alignprobe_refuse_smr=true "$playbook"
failed_with smr-refused "$smr: refused (alignprobe_refuse_smr): its model has a persistent media cache (dm-smr-or-hybrid)"
grep '^fatal:' "$TS_TMP/smr-refused.out" | grep -qE -- "${cmr}([^0-9]|$)" &&
	ts_fail "smr-refused: the conventional disk is named"
play smr-cmr 0 -e "$(disks "$cmr")" -e "$smr_store" -e alignprobe_refuse_smr=true "$playbook"
