#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# smr's short test (issue 35): time to a verdict per emulated rotating
# profile (goal: 30 s or less on a rotating disk), side by side with the
# probe on the same profile in the same run (alternating, so that both
# share the machine's load), with the verdict and the writes the drive saw
# (the emulator's counters: what the time went on). Preserving too, for
# the price of keeping the data.
#
#	bench/smr.sh [PROFILE...]	(root; ALIGNPROBE=path/to/alignprobe)
set -u
A=${ALIGNPROBE:-$(dirname "$0")/../alignprobe}
export ALIGNPROBE_STATE_DIR=${ALIGNPROBE_STATE_DIR:-$(mktemp -d)}
export ALIGNPROBE_JOURNAL_DIR=${ALIGNPROBE_JOURNAL_DIR:-$(mktemp -d)}
profiles=("$@")
[ ${#profiles[@]} -gt 0 ] ||
	profiles=(smr-trim smr-notrim sshd cmr-7200 hdd-7200 usb-bridge-noflush flash-8k)

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

printf '%-20s %-18s %8s %7s %8s %10s %8s\n' PROFILE VERDICT SMR_S WRITES PRESERVE PROBE_S GOAL
for p in "${profiles[@]}"; do
	dev=$("$A" emulate --attach --profile "$p" --size 1G) || { echo "$p: attach failed"; continue; }
	"$A" emulate --reset-stats "$dev"
	t0=$(now)
	verdict=$("$A" smr --json --yes "$dev" 2> /dev/null |
		  python3 -c 'import json,sys; print(json.load(sys.stdin)["smr"][0]["verdict"])')
	t1=$(now)
	writes=$("$A" emulate --stats "$dev" -n -r -o WRITES)
	t2=$(now)
	"$A" smr --preserve -q "$dev" > /dev/null 2>&1
	t3=$(now)
	"$A" probe -q --yes --time-budget 2m "$dev" > /dev/null 2>&1
	t4=$(now)
	s=$(secs "$t0" "$t1")
	goal=$(awk -v s="$s" 'BEGIN { print (s <= 30 ? "met" : "MISSED") }')
	printf '%-20s %-18s %8s %7s %8s %10s %8s\n' "$p" "${verdict:-error}" "$s" "$writes" \
		"$(secs "$t2" "$t3")" "$(secs "$t3" "$t4")" "$goal"
	"$A" emulate --detach "$dev" > /dev/null
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
