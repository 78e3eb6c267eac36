#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# alignprobe-check.service is bounded and least-privileged: a finite
# TimeoutStartSec, systemd-analyze security (offline) below 4.0, and check
# does its work (a disk judged, the metrics written) under exactly the
# unit's capability bounding set with no_new_privs -- and executes nothing
# (strace: no execve but its own; libparted's `sh -c dmidecode` is gone,
# src/compat/popen.c). With an empty capability set it works too, without
# the drive's own answer. Every system call it makes is in the unit's
# SystemCallFilter.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "alignprobe-check.service: timeout, systemd-analyze security < 4.0, its capabilities, no exec"
ts_untimed "verdict stores, metrics and units from recorded results"
ts_need_loop
ts_need_cmd systemd-analyze setpriv strace sfdisk
# LeakSanitizer cannot run under ptrace (strace): the ASan build's runs here
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

unit=${ALIGNPROBE_UNIT:-$top_srcdir/contrib/systemd/alignprobe-check.service}
[ -f "$unit" ] || ts_fail "no $unit"

t=$(sed -n 's/^TimeoutStartSec=//p' "$unit")
case $t in
"" | infinity | 0) ts_fail "TimeoutStartSec is '${t:-unset}': a slow disk would hold the run forever" ;;
esac

systemd-analyze security --offline=yes "$unit" > "$TS_TMP/security.out" 2>&1
score=$(sed -n 's/^[^ ]* Overall exposure level for [^:]*: \([0-9.]*\) .*/\1/p' "$TS_TMP/security.out")
[ -n "$score" ] || { cat "$TS_TMP/security.out" >&2; ts_fail "no exposure level from systemd-analyze security"; }
ts_log "systemd-analyze security: $score"
awk -v s="$score" 'BEGIN { exit !(s < 4.0) }' ||
	{ cat "$TS_TMP/security.out" >&2; ts_fail "exposure level $score, not below 4.0"; }
grep -qx 'NoNewPrivileges=yes' "$unit" || ts_fail "no NoNewPrivileges=yes"
grep -qx 'ProtectSystem=strict' "$unit" || ts_fail "no ProtectSystem=strict"
grep -qx 'DeviceAllow=block-\* r' "$unit" || ts_fail "no DeviceAllow=block-* r"

# the unit's bounding set, as setpriv spells it: CAP_SYS_RAWIO -> +sys_rawio
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$unit")
bset=-all
for c in $caps; do
	c=${c#CAP_}
	bset=$bset,+${c,,}
done

ts_image "$TS_TMP/d.img" 64M
printf 'label: gpt\nstart=2048,size=20480\n' |
	sfdisk -q --no-reread --no-tell-kernel "$TS_TMP/d.img" >/dev/null || ts_fail "sfdisk"
dev=$(ts_loop_attach "$TS_TMP/d.img")
mkdir "$TS_TMP/textfile"
for b in "$bset" -all; do
	prom=$TS_TMP/textfile/alignprobe.prom
	rm -f "$prom"
	strace -f -qq -e trace=execve -o "$TS_TMP/trace" \
		setpriv --bounding-set "$b" --inh-caps -all --no-new-privs -- \
		"$ALIGNPROBE" check --prometheus "$prom" "$dev" > "$TS_TMP/out" 2> "$TS_TMP/err" ||
		{ cat "$TS_TMP/err" >&2; ts_fail "check under the bounding set $b failed"; }
	grep -q '^ 1 *2048 ' "$TS_TMP/out" || ts_fail "bounding set $b: the disk was not judged"
	grep -qx "alignprobe_check_success{device=\"$dev\"} 1" "$prom" ||
		ts_fail "bounding set $b: no metrics"
	# two programs: setpriv, then alignprobe; nothing after it
	grep ' execve(' "$TS_TMP/trace" | grep -v ' execve("[^"]*setpriv"' > "$TS_TMP/execs"
	[ "$(wc -l < "$TS_TMP/execs")" = 1 ] && grep -qF "execve(\"$ALIGNPROBE\"" "$TS_TMP/execs" ||
		{ cat "$TS_TMP/execs" >&2; ts_fail "check executed other programs (bounding set $b)"; }
done
# every system call check makes is one the unit's SystemCallFilter allows
# (the filter cannot run here without systemd: compared by name), but
# fchown, which the filter's ~@privileged refuses with EPERM and which
# replacing an existing file tries and does without
expand() {
	systemd-analyze syscall-filter "$1" 2>/dev/null | sed -n 's/^    //p' | grep -v '^#' |
		while read -r x; do case $x in @*) expand "$x" ;; *) echo "$x" ;; esac; done
}
allow= deny=
while read -r f; do	# a line's list: allowed, or with ~ all of it refused
	case $f in
	"~"*) deny="$deny ${f#\~}" ;;
	*) allow="$allow $f" ;;
	esac
done < <(sed -n 's/^SystemCallFilter=//p' "$unit")
for g in $allow; do expand "$g"; done | sort -u > "$TS_TMP/allow"
for g in $deny; do expand "$g"; done | sort -u > "$TS_TMP/deny"
[ -s "$TS_TMP/allow" ] || ts_fail "no system calls in the unit's SystemCallFilter ($allow)"
comm -23 "$TS_TMP/allow" "$TS_TMP/deny" > "$TS_TMP/allowed"
strace -f -qq -c -o "$TS_TMP/calls" "$ALIGNPROBE" check -q --prometheus "$prom" "$dev" > /dev/null 2>&1 ||
	ts_fail "check under strace -c failed"
awk '$NF ~ /^[a-z_0-9]+$/ && $NF != "syscall" && $NF != "total" { print $NF }' "$TS_TMP/calls" |
	grep -vx fchown | sort -u > "$TS_TMP/used"
[ -s "$TS_TMP/used" ] || ts_fail "strace -c counted no system call"
comm -23 "$TS_TMP/used" "$TS_TMP/allowed" > "$TS_TMP/refused"
[ -s "$TS_TMP/refused" ] && ts_fail "system calls check makes that the unit refuses: $(tr '\n' ' ' < "$TS_TMP/refused")"
ts_pass
