#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# One meaning per exit code, one form per message, in every command: a table
# of command lines with their expected exit status and a regular expression
# for what they print. The same kind of bad input (a device or file that
# does not exist, a directory, the wrong type, too small, empty, unreadable,
# a device named twice) gives the same status everywhere; every message
# reads "alignprobe CMD: THING: reason" and names its THING once. Also:
# emulate takes its DEVICE anywhere on the line, seq fills in dd's bs=, a
# replay of an interrupted run claims no verdict, every exit 5 (no verdict:
# probe, sweep, with -q or -J) says why in one line, and a closed stdout is not
# a failure. Nothing is written to any device: every row is refused first.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "exit codes and messages of bad input, across the commands"
ts_need_emulator
ts_need_cmd python3 timeout

T=$TS_TMP
NX=/dev/alignprobe-nonexistent	# a device name that does not exist (under /dev: seq too)
NXF=$T/nonexistent.json		# a file that does not exist
D=$T/dir; mkdir -p "$D"
E=$T/empty; : > "$E"
F=$T/file.img; ts_image "$F" 64M
SMALL=$(ts_loop_attach "$(ts_image "$T/small.img" 1M; echo "$T/small.img")")
ts_image "$T/big.img" 256M
BIG=$(ts_loop_attach "$T/big.img")
RO=$(ts_loop_attach "$T/big.img" -r)
ts_image "$T/big4k.img" 8M
L4K=$(ts_loop_attach "$T/big4k.img" -b 4096)	# 4096-byte logical sectors
ln -s "$BIG" "$T/biglink"
EMU=$(ts_emu_attach --size 64M --rmw-cost 100us)
# a saved sweep whose run was interrupted: a verdict in its results, none from the run
python3 - "$top_srcdir/tests/ts/output/sweep-4096-0.json" "$T/interrupted.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["stopped"] = "signal"
json.dump(d, open(sys.argv[2], "w"))
EOF
# a saved sweep whose starts cannot decide (exit 5, the reason on stderr)
cp "$top_srcdir/tests/ts/sweep/data/starts-38-42.json" "$T/starts.json" ||
	ts_fail "cannot copy the saved sweep"
sumBIG=$(ts_checksum "$T/big.img")
sumSMALL=$(ts_checksum "$T/small.img")

# RC | where (err, out) | extended regex a line must match | arguments of alignprobe
# Every row with RC != 0 also has its whole stderr checked for the form.
cat > "$T/table" <<'EOF'
2 | err | ^alignprobe: unrecognized option '--bogus'$ | --bogus
2 | err | ^alignprobe: unknown command 'bogus'$ | bogus
2 | err | ^alignprobe sweep: unrecognized option '--bogus'$ | sweep --bogus
2 | err | ^alignprobe probe: unrecognized option '--bogus'$ | probe --bogus
2 | err | ^alignprobe check: unrecognized option '--bogus'$ | check --bogus
2 | err | ^alignprobe postmark: unrecognized option '--bogus'$ | postmark --bogus
2 | err | ^alignprobe seq: unrecognized option '--bogus'$ | seq --bogus
2 | err | ^alignprobe emulate: unrecognized option '--bogus'$ | emulate --bogus
2 | err | ^alignprobe cleanup: unrecognized option '--bogus'$ | cleanup --bogus
2 | err | ^alignprobe seq: invalid --rounds '0' \(1 to 1000\)$ | seq --rounds 0 $T/x
2 | err | ^alignprobe probe: $NX: No such file or directory$ | probe -y $NX
2 | err | ^alignprobe probe: $NX: No such file or directory$ | probe --preserve $NX
2 | err | ^alignprobe probe: $NX: No such file or directory$ | probe --read-only $NX
2 | err | ^alignprobe sweep: $NX: No such file or directory$ | sweep -y $NX
2 | err | ^alignprobe seq: $NX: no such device | seq -y -q -s 1M $NX
2 | err | ^alignprobe check: $NX: No such file or directory$ | check $NX
2 | err | ^alignprobe emulate: $NX: No such file or directory$ | emulate --stats $NX
2 | err | ^alignprobe emulate: $NX: No such file or directory$ | emulate --detach $NX
2 | err | ^alignprobe emulate: $NX: No such file or directory$ | emulate --reset-stats $NX
2 | err | ^alignprobe probe: $D: not a block device \(a directory\)$ | probe -y $D
2 | err | ^alignprobe probe: $D: not a block device$ | probe --read-only $D
2 | err | ^alignprobe sweep: $D: not a block device \(a directory\)$ | sweep -y $D
2 | err | ^alignprobe seq: $D: not a block device or a regular file$ | seq -y $D
2 | err | ^alignprobe check: $D: is a directory | check $D
2 | err | ^alignprobe cleanup: $D: not a block device$ | cleanup $D
2 | err | ^alignprobe emulate: $D: not an emulated drive$ | emulate --stats $D
2 | err | ^alignprobe probe: /dev/null: not a block device | probe -y /dev/null
2 | err | ^alignprobe probe: /dev/null: not a block device$ | probe --read-only /dev/null
2 | err | ^alignprobe sweep: /dev/null: not a block device | sweep -y /dev/null
2 | err | ^alignprobe seq: /dev/null: not a block device or a regular file$ | seq -y /dev/null
2 | err | ^alignprobe check: /dev/null: neither a block device nor an image file$ | check /dev/null
2 | err | ^alignprobe cleanup: /dev/null: not a block device$ | cleanup /dev/null
2 | err | ^alignprobe emulate: /dev/null: not an emulated drive$ | emulate --detach /dev/null
2 | err | ^alignprobe probe: $F: not a block device \(a regular file | probe -y $F
2 | err | ^alignprobe probe: $F: not a block device$ | probe --read-only $F
2 | err | ^alignprobe sweep: $F: not a block device \(a regular file | sweep -y $F
2 | err | ^alignprobe cleanup: $F: not a block device$ | cleanup $F
2 | err | ^alignprobe emulate: $BIG: not an emulated drive$ | emulate --stats $BIG
2 | err | ^alignprobe probe: $SMALL: the device is too small for the probe | probe -y $SMALL
2 | err | ^alignprobe probe: $SMALL: the device is too small for the probe | probe --read-only $SMALL
2 | err | ^alignprobe sweep: $SMALL: too small: only | sweep -y $SMALL
2 | err | ^alignprobe seq: $SMALL: offset 0 \+ size 2097152 is beyond its end | seq -y -q -s 2M $SMALL
2 | err | ^alignprobe seq: $SMALL: no room after offset | seq -y -q --offset 1M $SMALL
2 | err | ^alignprobe check: $E: 0 bytes, smaller than one 512-byte sector | check $E
2 | err | ^alignprobe sweep: $NXF: No such file or directory$ | sweep --replay $NXF
2 | err | ^alignprobe sweep: $NXF: No such file or directory$ | sweep --emulate --workload $NXF
2 | err | ^alignprobe postmark: $NXF: No such file or directory$ | postmark $NXF
2 | err | ^alignprobe check: $NXF: No such file or directory$ | check --geometry $NXF $BIG
2 | err | ^alignprobe probe: $NXF: No such file or directory$ | probe --undo $NXF
2 | err | ^alignprobe check: $NXF: No such file or directory$ | check $NXF
2 | err | ^alignprobe sweep: --emulate: image $NXF: No such file or directory$ | sweep -y --emulate=image=$NXF
2 | err | ^alignprobe probe: --emulate: image $NXF: No such file or directory$ | probe --emulate=image=$NXF
2 | err | ^alignprobe seq: --emulate: image $NXF: No such file or directory$ | seq --emulate=image=$NXF
2 | err | ^alignprobe emulate: image $NXF: No such file or directory$ | emulate --attach --image $NXF
2 | err | ^alignprobe sweep: $D: Is a directory$ | sweep --replay $D
2 | err | ^alignprobe sweep: $D: Is a directory$ | sweep --emulate --workload $D
2 | err | ^alignprobe postmark: $D: Is a directory$ | postmark $D
2 | err | ^alignprobe check: $D: .*Is a directory$ | check --geometry $D $BIG
2 | err | ^alignprobe probe: $D: .*Is a directory | probe --undo $D
2 | err | ^alignprobe sweep: --emulate: image $D: not a regular file$ | sweep -y --emulate=image=$D
2 | err | ^alignprobe probe: --emulate: image $D: not a regular file$ | probe --emulate=image=$D
2 | err | ^alignprobe seq: --emulate: image $D: not a regular file$ | seq --emulate=image=$D
2 | err | ^alignprobe emulate: image $D: not a regular file$ | emulate --attach --image $D
2 | err | ^alignprobe sweep: $E: not valid JSON | sweep --replay $E
2 | err | ^alignprobe check: $E: not valid JSON | check --geometry $E $BIG
2 | err | ^alignprobe probe: $E: not an alignprobe undo journal | probe --undo $E
2 | err | ^alignprobe emulate: image $E: size 0: must lie between | emulate --attach --image $E
2 | err | ^alignprobe probe: $BIG: listed twice$ | probe --preserve $BIG $BIG
2 | err | ^alignprobe probe: $T/biglink: listed twice \(also as $BIG\)$ | probe -y $BIG $T/biglink
2 | err | ^alignprobe probe: $BIG: --slots 100000: the scratch region \(.*\) holds at most [0-9]+ slots; use 1\.\.[0-9]+$ | probe --read-only --slots 100000 --min-rounds 1 --max-rounds 1 --max-size 8K --time-budget 10s $BIG
2 | err | ^alignprobe emulate: no device given$ | emulate --stats
3 | err | ^alignprobe probe: $RO: read-only | probe -y $RO
3 | err | ^alignprobe sweep: $RO: read-only | sweep -y $RO
3 | err | ^alignprobe seq: $RO: read-only | seq -y $RO
5 | err | ^alignprobe sweep: $T/interrupted.json: the run was interrupted: no verdict | sweep --replay $T/interrupted.json
5 | err | ^alignprobe sweep: $T/starts.json: no verdict: inconclusive: | sweep --replay $T/starts.json -q
5 | err | ^alignprobe sweep: $T/starts.json: no verdict: inconclusive: | sweep --replay $T/starts.json -J
5 | err | ^alignprobe probe: $EMU: no verdict: [^ ] | probe --read-only -q --max-size 8K --max-rounds 3 --time-budget 1h $EMU
5 | err | ^alignprobe probe: $EMU: no verdict: [^ ] | probe --read-only --max-size 8K --max-rounds 3 --time-budget 1h -J $EMU
0 | out | "device": "$EMU" | emulate --stats -J -o DEVICE,RMW $EMU
0 | out | ^$EMU [0-9]+$ | emulate --stats -r -o DEVICE,RMW $EMU
0 | out | ^$EMU [0-9]+$ | emulate --stats $EMU -rn -o DEVICE,WRITES
0 | out | ^$EMU [0-9]+$ | emulate --stats=$EMU -rn -o DEVICE,WRITES
0 | out | ^  none +4K  dd bs=4K conv=notrunc$ | seq --dry-run -s 1M -B 4K,1M $T/seq-dry
0 | out | "dd": "dd bs=1M conv=notrunc,fdatasync" | seq -q -s 1M -B 4K,1M -m fdatasync --cell-time 0 -J $T/seq-file
2 | err | ^alignprobe seq: --block-sizes: empty block size in list '4K,,1M'$ | seq --dry-run -s 1M -B 4K,,1M $T/seq-dry
2 | err | ^alignprobe seq: --modes: empty mode name in list 'none,,direct'$ | seq --dry-run -s 1M -m none,,direct $T/seq-dry
2 | err | ^alignprobe seq: --dry-run prints its plan as text: -J/--json cannot go with it$ | seq --dry-run -J -s 1M $T/seq-dry
0 | out | ^dry run: .*/seq-dry: 1 cell x 1 round, | seq --dry-run -s 1M -B 4K -m none $T/seq-dry
2 | err | ^Try 'alignprobe sweep --help' for more information\.$ | sweep --replay $T/interrupted.json -o START,NO_SUCH_COLUMN
2 | err | ^Try 'alignprobe sweep --help' for more information\.$ | sweep --replay $T/interrupted.json -o START,,TPS
2 | err | ^alignprobe sweep: unknown column: NO_SUCH_COLUMN | sweep --emulate=size=64M --dry-run -o NO_SUCH_COLUMN
2 | err | ^Try 'alignprobe probe --help' for more information\.$ | probe --dry-run --emulate=bogus=1
2 | err | ^Try 'alignprobe sweep --help' for more information\.$ | sweep --dry-run --emulate=bogus=1
0 | out | ^  direct +3K  dd bs=3K conv=notrunc oflag=direct,dsync$ | seq --dry-run -s 1M -B 3K -m direct $BIG
2 | err | ^alignprobe seq: $L4K: block size 3072 is not a multiple of the logical sector size 4096$ | seq --dry-run -s 1M -B 3K,4K $L4K
EOF

# the whole of a stderr in the one form, each THING named once
form() {	# form FILE: 0 when every line is a message in the form or the hint
	awk '
		/^Try .alignprobe( [a-z]+)? --help. for more information\.$/ { next }
		!/^alignprobe( (sweep|probe|check|postmark|seq|emulate|cleanup))?: [^ ]/ {
			print "not in the form: " $0; bad = 1; next
		}
		{
			rest = $0; sub(/^alignprobe( [a-z]+)?: /, "", rest)
			i = index(rest, ": ")
			if (i == 0) next
			thing = substr(rest, 1, i - 1); rest = substr(rest, i + 2)
			if (thing ~ /^(\/|--)/ && index(rest, thing) > 0) {
				print "THING named twice: " $0; bad = 1
			}
		}
		END { exit bad }' "$1"
}

# $NAME in a row's regular expression: the paths above (longest names first)
expand() {
	local s=$1 v
	for v in NXF NX SMALL BIG L4K RO EMU D E F T; do
		s=${s//\$$v/${!v}}
	done
	printf '%s' "$s"
}

nfail=0
fail_row() {
	ts_log "FAIL: alignprobe $1: $2"
	sed 's/^/    | /' "$T/err" >&2
	nfail=$((nfail + 1))
}
nrows=0
while IFS='|' read -r rc where re args; do
	rc=${rc// /}
	where=${where// /}
	re=$(expand "${re# }"); re=${re% }
	eval "set -- $args"
	nrows=$((nrows + 1))
	timeout 120 "$ALIGNPROBE" "$@" > "$T/out" 2> "$T/err" < /dev/null
	got=$?
	if [ "$got" != "$rc" ]; then
		fail_row "$*" "exit $got, expected $rc"
		continue
	fi
	if ! grep -Eq -- "$re" "$T/$where"; then
		fail_row "$*" "no line of std$where matches '$re'"
		continue
	fi
	if [ "$rc" != 0 ] && ! form "$T/err" > "$T/form"; then
		fail_row "$*" "$(cat "$T/form")"
		continue
	fi
	[ "$rc" = 0 ] || [ -s "$T/err" ] || fail_row "$*" "exit $rc without a word"
done < "$T/table"
[ "$nrows" -gt 60 ] || ts_fail "the table was not read ($nrows rows)"
# seq made a file of the mistyped device name (in /dev, in memory)
[ -f "$NX" ] && rm -f "$NX" && ts_log "FAIL: seq created $NX" && nfail=$((nfail + 1))

# not even a 'BS' left in the DD column of a real run
grep -q 'bs=BS' "$T/out" && ts_fail "seq -J: dd bs=BS not filled in: $(grep 'bs=BS' "$T/out")"

# unreadable files (as nobody, since root reads everything): bad input, 2
if command -v setpriv > /dev/null 2>&1; then
	chmod 0711 "$T"
	U=$T/unreadable
	cp "$top_srcdir/tests/ts/output/sweep-4096-0.json" "$U"
	chmod 000 "$U"
	for args in "sweep --replay $U" "postmark $U" "check $U" "probe --undo $U"; do
		# shellcheck disable=SC2086
		setpriv --reuid=65534 --regid=65534 --clear-groups "$ALIGNPROBE" $args \
			> "$T/out" 2> "$T/err" < /dev/null
		got=$?
		if [ "$got" != 2 ]; then
			fail_row "$args (as nobody)" "exit $got, expected 2"
		elif ! grep -q "^alignprobe ${args%% *}: $U: .*Permission denied" "$T/err"; then
			fail_row "$args (as nobody)" "no '$U: ... Permission denied'"
		elif ! form "$T/err" > "$T/form"; then
			fail_row "$args (as nobody)" "$(cat "$T/form")"
		fi
	done
	chmod 0700 "$T"
fi

# a stdout whose reader is gone (| head -1) is no failure, and said by nobody:
# the read end is closed before alignprobe starts, so its first write fails.
# Exit 5 says why there is no verdict, on stderr, as ever: that line only.
closed_stdout() {
	python3 -c '
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
sys.stderr.buffer.write(p.stderr)
sys.exit(p.returncode if p.returncode >= 0 else 128 - p.returncode)' "$@"
}
for args in "sweep --replay $top_srcdir/tests/ts/output/sweep-4096-0.json" \
	    "sweep --replay $top_srcdir/tests/ts/output/sweep-4096-0.json -J" \
	    "emulate --stats $EMU" \
	    "probe --emulate=simple,size=64M,rmw=1ms --min-rounds 3 --max-rounds 3 --max-size 8K -q"; do
	# shellcheck disable=SC2086
	closed_stdout "$ALIGNPROBE" $args 2> "$T/err"
	got=$?
	case $got in
	0) [ -s "$T/err" ] && fail_row "$args > closed pipe" "a message for a reader gone" ;;
	5) grep -v -e ": a tentative verdict only" -e ": no verdict" "$T/err" | grep -q . &&
		fail_row "$args > closed pipe" "a message for a reader gone" ;;
	*) fail_row "$args > closed pipe" "exit $got, expected that of the work (0, or 5)" ;;
	esac
done

ts_assert_eq "$sumBIG" "$(ts_checksum "$T/big.img")" "the 256M device after the refusals"
ts_assert_eq "$sumSMALL" "$(ts_checksum "$T/small.img")" "the 1M device after the refusals"
[ "$nfail" = 0 ] || ts_fail "$nfail of the rows above failed"
ts_pass
