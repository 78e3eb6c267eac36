#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Every command line README.md shows works as written: the lines of its sh
# code blocks and its inline commands (`alignprobe ...`, `./alignprobe ...`,
# a script of the tree, a program of PATH with arguments, `check --geometry
# ...`) and the options it tells the reader to use (`--dry-run`, `--yes`). They are
# extracted from README.md and each one is either run here -- on emulated
# drives and loop devices this test created, /dev/sdX and DEVICE replaced by
# one, with extra options only where the command would run for minutes --
# and its outcome asserted, or listed below with the reason it cannot run in
# a test. A command line this test does not know fails it: a new one in the
# README needs a case here.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "the command lines of README.md"
ts_need_emulator
ts_need_cmd python3 parted lsblk cmp dd

README=$top_srcdir/README.md
[ -r "$README" ] || ts_fail "$README missing"

# KIND<TAB>TEXT per command line, in order, once each: "block" (a line of an
# sh code block), "inline" (a command in backquotes), "option" (an option in
# backquotes)
python3 - "$README" "$top_srcdir" > "$TS_TMP/commands" <<'EOF' || ts_fail "cannot read $README"
import os, re, shutil, sys
readme, top = sys.argv[1], sys.argv[2]
subcommands = {"sweep", "probe", "check", "postmark", "seq", "emulate", "cleanup", "verdicts"}
seen, fence, prose = set(), None, []
def emit(kind, cmd):
    if cmd not in seen:
        seen.add(cmd)
        print("%s\t%s" % (kind, cmd))
for line in open(readme):
    m = re.match(r"\s*```(\w*)", line)
    if m:
        fence = None if fence is not None else m.group(1)
        prose.append("\n")
        continue
    if fence is None:
        prose.append(line)
    elif fence == "sh" and line.strip() and not line.lstrip().startswith("#"):
        emit("block", line.strip())
# code spans may run over a line break (not over a blank line)
for para in "".join(prose).split("\n\n"):
    for span in re.findall(r"`([^`]+)`", para):
        span = " ".join(span.replace("\\|", "|").split())	# a table cell's escape
        words = span.split()
        while words and re.match(r"^[A-Z_][A-Z0-9_]*=", words[0]):
            words.pop(0)				# VAR=value before the command
        if not words:
            continue
        w = words[0]
        path = os.path.join(top, w)
        if (w in ("alignprobe", "./alignprobe") or (w in subcommands and len(words) > 1) or
                (not w.startswith("/") and "/" in w and os.path.isfile(path) and
                 os.access(path, os.X_OK)) or
                (not w.startswith("/") and len(words) > 1 and shutil.which(w))):
            emit("inline", span)
        elif w.startswith("-"):
            emit("option", span)
EOF
[ -s "$TS_TMP/commands" ] || ts_fail "no command lines found in $README"

# ---- what the commands run on --------------------------------------------

W=$TS_TMP/work			# the directory the commands run in (sweep.json ...)
mkdir -p "$W"
# A: a 4096/LBA 0 drive with an aligned GPT partition, probed in every mode.
# A and B cost 300 us a request, as a disk does: with none, a write costs
# only the host's, first writes pay its page allocations, and on B, after
# the sweep's mkfs had written some of it, a fresh bookworm chroot's probe
# took that for a 1 MiB first-write unit it could not place (exit 5)
emuA=$(ts_emu_attach --size 128M --phys 4096 --lowest-aligned 0 --base-cost 300us --rmw-cost 300us \
	--jitter 10% --seed 1)
parted -s "$emuA" mklabel gpt mkpart p1 1MiB 64MiB || ts_fail "parted $emuA"
partA=${emuA}p1
ts_part_node "$emuA" || ts_fail "no partition node $partA"
# B: destroyed by sweep, probed with A
emuB=$(ts_emu_attach --size 128M --phys 4096 --lowest-aligned 0 --base-cost 300us --rmw-cost 300us \
	--jitter 10% --seed 2)
# C: random content, an honest drive whose probe runs long enough to be killed
head -c 32M /dev/urandom > "$TS_TMP/c.img" || ts_fail "cannot create the random image"
emuC=$(ts_emu_attach --image "$TS_TMP/c.img" --phys 512 --base-cost 300us)
# a plain loop device and a GPT image file
ts_image "$TS_TMP/loop.img" 64M
loop=$(ts_loop_attach "$TS_TMP/loop.img")
ts_image "$TS_TMP/disk.img" 64M
parted -s "$TS_TMP/disk.img" mklabel gpt mkpart p1 1MiB 60MiB || ts_fail "parted disk.img"
# and one whose table was written through 4096-byte sectors (a USB bridge's)
ts_image "$TS_TMP/disk4k.img" 64M
l4k=$(ts_loop_attach "$TS_TMP/disk4k.img" --sector-size 4096)
parted -s "$l4k" mklabel gpt mkpart p1 1MiB 60MiB || ts_fail "parted $l4k"
losetup -d "$l4k"
# seq's file, postmark's config
printf 'set location %s\nset number 50\nset transactions 100\nrun\n' "$W" > "$TS_TMP/pm.cfg"

writes() {	# writes DEV: the emulated drive's write counter
	"$ALIGNPROBE" emulate --stats "$1" -o WRITES -n -r || ts_fail "emulate --stats $1"
}

# subst TEXT: the README's placeholders replaced by what this test created
subst() {
	local s=$1
	s=${s//\/dev\/sd\[b-z\]/$emuA $emuB}
	s=${s//\/dev\/sdX/$emuA}
	s=${s//DEVICE.../$emuA $emuB}
	s=${s//JOURNAL/$journal}
	s=${s//TARGET/$TS_TMP/seq.file}
	printf '%s\n' "$s"
}

# rr WANT TEXT [EXTRA...]: run the README's command TEXT (placeholders
# replaced, `> FILE` honoured) with EXTRA appended, in $W; assert that the
# exit status is one of WANT ("0" or "0|5"); stdout in $TS_TMP/out
rr() {
	local want=$1 text=$2 rc i to=$TS_TMP/out
	local -a words cmd=()
	shift 2
	read -ra words <<< "$(subst "$text")"
	for ((i = 0; i < ${#words[@]}; i++)); do
		if [ "${words[i]}" = ">" ]; then
			to=${words[i + 1]}
			i=$((i + 1))
		else
			cmd+=("${words[i]}")
		fi
	done
	case ${cmd[0]} in alignprobe|./alignprobe) cmd[0]=$ALIGNPROBE ;; esac
	# the command runs in $W, and so does its redirection (never the build tree)
	case $to in /*) ;; *) to=$W/$to ;; esac
	(cd "$W" && "${cmd[@]}" "$@") > "$to" 2> "$TS_TMP/err" < /dev/null
	rc=$?
	[ "$to" = "$TS_TMP/out" ] || cp "$to" "$TS_TMP/out"
	case "|$want|" in
	*"|$rc|"*) ;;
	*) cat "$TS_TMP/err" >&2; ts_fail "README: '$text'${*:+ (with $*)}: exit $rc, expected $want" ;;
	esac
	ts_log "ran: $text${*:+ (with $*)}: exit $rc"
}

# states DEV [VENDOR:MODEL:REVISION:SERIAL]: what the loop device DEV states
# for the commands that follow (the test seam of alignprobe(8)); none without
states() {
	if [ $# -gt 1 ]; then
		export "ALIGNPROBE_TEST_IDENTITY_${1#/dev/}=$2"
	else
		unset "ALIGNPROBE_TEST_IDENTITY_${1#/dev/}"
	fi
}

out_has() {	# out_has PATTERN WHAT
	grep -q -- "$1" "$TS_TMP/out" || ts_fail "$2: no '$1' in: $(head -c 400 "$TS_TMP/out")"
}

# steps_of OPTIONS...: what check prints to run next for a disk of 1 GiB
# with a partition at 2048 under OPTIONS, one command a line, in $TS_TMP/steps
steps_of() {
	local img=$TS_TMP/levels.img dev
	rm -f "$img"
	truncate -s 1G "$img"
	echo 'start=2048, size=700000, type=L' | sfdisk -q -X gpt "$img" ||
		ts_fail "sfdisk $img"
	dev=$(ts_loop_attach "$img")
	"$ALIGNPROBE" check -J "$@" "$dev" > "$TS_TMP/levels.json" 2> "$TS_TMP/err"
	jq -r '.next_steps[].command | join(" ")' "$TS_TMP/levels.json" > "$TS_TMP/steps" ||
		ts_fail "check -J $*: no next steps: $(cat "$TS_TMP/err")"
}

# step_has TEXT: a step in $TS_TMP/steps has every word of TEXT (a word of
# TEXT may be the start of the step's word: su=64k,sw=3 of su=64k,sw=3,agcount=4)
step_has() {
	python3 - "$1" "$TS_TMP/steps" <<'PY' || ts_fail "no step like '$1' in: $(cat "$TS_TMP/steps")"
import sys
want = sys.argv[1].split()
for line in open(sys.argv[2]):
    words = line.split()
    if words and words[0] == want[0] and all(any(w.startswith(t) for w in words) for t in want):
        sys.exit(0)
sys.exit(1)
PY
}

# not_run TEXT REASON: a command this test cannot run; its program must exist
not_run() {
	local -a words
	read -ra words <<< "$1"
	while [[ ${words[0]} =~ ^[A-Z_][A-Z0-9_]*= ]]; do words=("${words[@]:1}"); done
	if [[ ${words[0]} == */* ]]; then
		[ -x "$top_srcdir/${words[0]}" ] || ts_fail "README: '$1': ${words[0]} is not an executable of the tree"
	else
		command -v "${words[0]}" >/dev/null || ts_fail "README: '$1': no ${words[0]}"
	fi
	ts_log "not run: $1: $2"
	nnot=$((nnot + 1))
}

journal=$TS_TMP/undo.journal
nrun=0 nnot=0
# a time budget ends a hang; it must never end a run that a slow machine
# would finish (exit 5 instead of a verdict): 1 h where a verdict is asserted
HOUR=(--time-budget 1h)
# nor may the quick preset's 8 rounds where a sweep's verdict is asserted:
# beside two CPU burners and an fsync loop, 1 sweep of B in 10 ended them
# tentative (rank test p 6.2e-5, the early stop's level 1e-5), and so did
# CI's; the sweep still stops as soon as its verdict is clear
SWEEP_HOUR=(--rounds 2..40 "${HOUR[@]}")
SWEEP_QUICK=(--emulate=simple,rmw=1ms,jitter=30%,size=256M --size 32M -q "${SWEEP_HOUR[@]}")
QUICK_WHY="the default sweep runs for half a minute or more: the constant-cost drive (simple,rmw=1ms) and 32M partitions"

# ---- one case per command line ---------------------------------------------

while IFS=$'\t' read -r kind text; do
	nrun=$((nrun + 1))
	ts_subtest "$kind $nrun: ${text//#/}"
	case "$text" in
	# -- the two commands
	"scripts/bootstrap.sh && ./alignprobe sweep --emulate")
		not_run "scripts/bootstrap.sh" "installs packages and rebuilds the tree this suite runs from"
		# $QUICK_WHY; two periods of starts (the whole range runs below)
		rr 0 "./alignprobe sweep --emulate" "${SWEEP_QUICK[@]}" --seed 3 --starts 34..49
		out_has "4096" "sweep --emulate"
		;;
	"scripts/bootstrap.sh && make check")
		not_run "scripts/bootstrap.sh" "installs packages and rebuilds the tree this suite runs from"
		not_run "make check" "is the suite this test is part of"
		;;
	*scripts/bootstrap.sh*)
		not_run "$text" "installs packages and rebuilds the tree this suite runs from" ;;
	"make check"|*" make check"*)
		not_run "$text" "is the suite this test is part of" ;;
	"make install"|*" make install"*)
		not_run "$text" "installs into the system (make distcheck installs into a staging directory)" ;;
	make\ *|*" make "*)
		not_run "$text" "a make target: builds and tests a second copy of the tree (CI runs it)" ;;
	.ci/*)
		not_run "$text" "is the whole CI: the suite twice and make distcheck" ;;
	fuzz/*)
		not_run "$text" "fuzzes with libFuzzer for minutes; make check replays the corpus" ;;
	bench/*|*" bench/"*)
		not_run "$text" "a benchmark: runs for minutes against other tools" ;;
	apt-get\ *|dpkg*|systemctl\ *|scripts/ci-deb.sh*)
		not_run "$text" "builds, installs or removes the Debian package or enables its timer: changes the system (CI runs scripts/ci-deb.sh)" ;;
	tests/*)
		not_run "$text" "a test: make check or CI runs it" ;;
	*ansible-playbook*)
		not_run "$text" "installs the package on an inventory's hosts (tests/ansible/run.sh runs the role)" ;;
	"alignprobe")
		ts_log "not a command line: $text (the Ansible role's name)" ;;
	"alignprobe check --json")	# what the role runs
		rr 0 "$text $emuA"
		ts_json_check "$TS_TMP/out" < /dev/null || ts_fail "check --json: not JSON"
		;;
	"alignprobe CMD: THING: reason")
		ts_log "not a command line: $text (the form of messages; tests/ts/cli/errors.sh checks it)" ;;
	"man -l docs/alignprobe.8")
		(cd "$top_srcdir" && MANPAGER=cat MANWIDTH=80 man -l docs/alignprobe.8) > "$TS_TMP/out" 2>&1 ||
			ts_fail "README: '$text' failed: $(head -c 300 "$TS_TMP/out")"
		out_has "alignprobe probe" "man -l"
		;;
	"lsblk -o NAME,SIZE,MODEL,SERIAL,MOUNTPOINTS,PHY-SEC")
		rr 0 "$text"
		out_has "PHY-SEC" "lsblk"
		;;

	# -- the table of commands
	"alignprobe sweep DEVICE")
		# destroys B; two starts, one round: seconds instead of minutes
		rr "0|5" "alignprobe sweep $emuB" --yes -q --starts 40,41 --rounds 1 --size 32M
		out_has "START" "sweep DEVICE"
		parted -s -m "$emuB" unit s print 2>&1 | grep -q ":gpt:" ||
			ts_fail "sweep DEVICE: no empty GPT left on $emuB"
		;;
	"alignprobe probe DEVICE...")
		before=$(writes "$emuA")
		rr 3 "$text"		# destructive: no terminal, no --yes
		ts_assert_eq "$before" "$(writes "$emuA")" "writes after the refusal"
		rr 0 "$text" --yes -q "${HOUR[@]}"
		[ "$(grep -c "^$emuA: .*4096\|^$emuB: .*4096" "$TS_TMP/out")" = 2 ] ||
			ts_fail "probe DEVICE...: not a 4096-byte verdict for each: $(cat "$TS_TMP/out")"
		;;
	"alignprobe check DEVICE|IMAGE"|"alignprobe check DEVICE|IMAGE...")
		rr 0 "alignprobe check $emuA"
		rr 0 "alignprobe check $TS_TMP/disk.img"
		rr 0 "alignprobe check $emuA $TS_TMP/disk.img"	# several: the worst status
		;;
	"alignprobe postmark [CONFIG]")
		rr 0 "alignprobe postmark" -q
		out_has "transactions" "postmark"
		rr 0 "alignprobe postmark $TS_TMP/pm.cfg" -q
		;;
	"alignprobe smr DEVICE...")
		rr 0 "alignprobe smr --yes $emuA"
		out_has "Signals (nothing written)" "smr DEVICE..."
		;;
	"--deep"|"--byte-budget"|"--time-budget")
		# a found cache measured, within a byte budget; refused with --preserve
		rr 0 "alignprobe smr --deep --yes --writes 32 --time-budget 5m --byte-budget 128K --emulate=smr-notrim,size=2G,pcache=1M,band=4M"
		out_has "band size: not measured" "smr --deep"
		rr 2 "alignprobe smr --deep --preserve --yes --emulate=smr-notrim,size=2G"
		;;
	"alignprobe seq TARGET")
		rr 0 "$text" -q -s 4M -B 64K,1M	# the default matrix writes 256M in 6 modes
		out_has "MODE" "seq TARGET"
		;;
	"alignprobe emulate --attach")
		rr 0 "$text"
		dev=$(cat "$TS_TMP/out")
		echo "$dev" >> "$TS_TMP/.emus"
		"$ALIGNPROBE" emulate --stats "$dev" > /dev/null || ts_fail "emulate --attach: $dev is not emulated"
		rr 0 "alignprobe emulate --detach $dev"
		;;
	"alignprobe cleanup [DEVICE]"|"alignprobe cleanup")
		: # run last, once the test's own drives are gone (below)
		;;
	"--preserve"|"--read-only")
		: # probe's modes: the safety steps below run both
		;;
	"--json")	# postmark's row
		rr 0 "alignprobe postmark --json" -q
		ts_json_check "$TS_TMP/out" <<< 'd["runs"]' || ts_fail "postmark --json: not JSON"
		;;
	"--phys 4096 --lowest-aligned 7 --rmw-cost 8ms --jitter 30% --write-cache")
		rr 0 "alignprobe emulate --attach $text"
		emuD=$(cat "$TS_TMP/out")
		echo "$emuD" >> "$TS_TMP/.emus"
		;;
	"--stats DEV")
		rr 0 "alignprobe emulate --stats $emuD" -o WRITES,RMW
		;;
	"--write-cache on,off")	# seq's row: the experiment on an emulated drive, restored
		emuW=$(ts_emu_attach --size 64M --write-cache=on)	# seq writes over it
		rr 0 "alignprobe seq --yes --write-cache on,off $emuW" -q -s 1M -B 64K -m dsync
		out_has "MODE" "seq --write-cache on,off"
		[ "$(cat "/sys/block/${emuW#/dev/}/queue/write_cache")" = "write back" ] ||
			ts_fail "seq --write-cache on,off: $emuW's write cache not restored"
		;;
	"--detach DEV")
		backing=$(cat "/sys/block/${emuD#/dev/}/loop/backing_file")
		rr 0 "alignprobe emulate --detach $emuD"
		# the number may be someone else's drive by now: ours is what is gone
		[ "$(cat "/sys/block/${emuD#/dev/}/loop/backing_file" 2>/dev/null)" != "$backing" ] ||
			ts_fail "--detach: $emuD still attached to $backing"
		;;
	"-o/--output"|"--output-all"|"-J/--json"|"-r/--raw"|"-n/--noheadings"|"-H/--list-columns"|"-b/--bytes"|"--csv")
		# lsblk's conventions, on check's table
		for opt in ${text//\// }; do
			case $opt in -o|--output) arg=NR,START ;; *) arg= ;; esac
			rr 0 "alignprobe check $TS_TMP/disk.img" "$opt" ${arg:+"$arg"}
		done
		;;

	# -- a real run on the emulated drive, its replay, its check
	"./alignprobe sweep --emulate --seed 1 --save sweep.json --plot sweep.svg")
		rr 0 "$text" "${SWEEP_QUICK[@]}"	# $QUICK_WHY
		python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))["verdict"]
assert v["physical_sector"] == 4096 and v["fast_starts"] == [40, 48, 56, 64], v' "$W/sweep.json" ||
			ts_fail "sweep.json: not the results of a 4096/LBA 0 drive"
		grep -q "</svg>" "$W/sweep.svg" || ts_fail "sweep.svg: not an SVG"
		;;
	"--plot")	# "The --plot picture of the same run": sweep.svg above
		:
		;;
	"alignprobe sweep --replay sweep.json")
		rr 0 "$text"
		out_has "40 48 56 64" "sweep --replay"
		;;
	"check --geometry sweep.json DEVICE")
		# sweep.json is the emulated drive's that sweep --emulate set up and
		# removed: A is another drive of its model, which --geometry-any says
		rr 0 "alignprobe check --geometry sweep.json $emuA" --geometry-any
		;;

	# -- running it on a real disk safely
	"alignprobe probe --preserve /dev/sdX")
		sum=$(ts_checksum "$emuA")
		rr 0 "$text" -q "${HOUR[@]}"
		out_has "data preserved" "probe --preserve"
		ts_assert_eq "$sum" "$(ts_checksum "$emuA")" "$emuA after probe --preserve"
		# the read-only mode of the same step writes nothing at all
		before=$(writes "$emuA")
		rr "0|5" "alignprobe probe --read-only /dev/sdX" -q
		out_has "read-only mode" "probe --read-only"
		ts_assert_eq "$before" "$(writes "$emuA")" "writes during probe --read-only"
		;;
	"alignprobe probe --undo JOURNAL")
		# a preserving probe killed while it writes (its journal is
		# complete before the first write), a torn range, then --undo
		"$ALIGNPROBE" probe --preserve --journal "$journal" --min-rounds 40 --max-rounds 40 \
			"${HOUR[@]}" -q "$emuC" > /dev/null 2>&1 &
		pid=$!
		ts_bg_pid $pid
		has_written() { [ "$(writes "$emuC")" -gt 0 ]; }
		ts_wait_for -p $pid "the preserving probe's first write" has_written ||
			ts_fail "the preserving probe ended before it wrote"
		kill -9 $pid
		wait $pid 2>/dev/null
		[ -e "$journal" ] || ts_fail "the killed probe left no journal"
		dd if=/dev/urandom of="$emuC" bs=64K count=1 seek=16 oflag=direct conv=notrunc status=none ||
			ts_fail "cannot damage $emuC"
		cmp -s "$emuC" "$TS_TMP/c.img" && ts_fail "the damage had no effect"
		# the torn range holds neither the bytes read nor those written: refused
		rr 3 "$text"
		grep -q "changed since the probe.*bytes 1048576+65536" "$TS_TMP/err" ||
			ts_fail "probe --undo: the changed range not named: $(cat "$TS_TMP/err")"
		[ -e "$journal" ] || ts_fail "probe --undo removed the journal it refused"
		;;
	"alignprobe probe --force --undo JOURNAL")	# the journal the refusal above kept
		[ -e "$journal" ] || ts_fail "no journal left for --force --undo"
		rr 0 "$text"
		out_has "every byte verified" "probe --force --undo"
		cmp "$emuC" "$TS_TMP/c.img" >&2 || ts_fail "probe --undo: $emuC differs from its original"
		[ -e "$journal" ] && ts_fail "probe --undo kept the journal"
		;;
	"alignprobe probe --dry-run /dev/sdX")
		sum=$(ts_checksum "$emuA")
		before=$(writes "$emuA")
		rr 0 "$text"
		out_has "dry run: nothing written" "probe --dry-run"
		out_has "timed writes" "probe --dry-run"
		out_has "duration: at most" "probe --dry-run"
		rr 0 "$text" --preserve
		out_has "undo journal" "probe --dry-run --preserve"
		ts_assert_eq "$before" "$(writes "$emuA")" "writes during probe --dry-run"
		ts_assert_eq "$sum" "$(ts_checksum "$emuA")" "$emuA after probe --dry-run"
		;;
	"--dry-run")	# step 3's rehearsal, of the probe of step 2, "sweep and seq too"
		sum=$(ts_checksum "$emuA")
		before=$(writes "$emuA")
		rr 0 "alignprobe probe --preserve --dry-run /dev/sdX"
		out_has "dry run: nothing written" "probe --preserve --dry-run"
		rr 0 "alignprobe sweep --dry-run /dev/sdX"
		out_has "dry run: nothing written" "sweep --dry-run"
		rr 0 "alignprobe seq --dry-run /dev/sdX"
		out_has "dry run: " "seq --dry-run"
		ts_assert_eq "$before" "$(writes "$emuA")" "writes during the dry runs"
		ts_assert_eq "$sum" "$(ts_checksum "$emuA")" "$emuA after the dry runs"
		;;
	"--emulate=size=2G"|"--emulate=simple,rmw=1ms")	# what plain --emulate means, and a spec
		rr 0 "alignprobe sweep --dry-run $text"
		case $text in
		*size=2G) out_has "(profile=hdd-7200,size=2147483648," "sweep --dry-run $text" ;;
		*) out_has "(profile=simple,.*,rmw=1ms,.*model=simple)" "sweep --dry-run $text" ;;
		esac
		;;
	"--emulate")	# step 5: cleanup takes down the emulated drive of a killed --emulate run
		st2=$TS_TMP/state2	# its own registry: the test's own drives stay out of it
		mkdir -p "$st2"
		ALIGNPROBE_STATE_DIR=$st2 "$ALIGNPROBE" probe --emulate=simple,phys=512,base=300us,size=64M \
			--min-rounds 40 --max-rounds 40 -q > /dev/null 2>&1 &
		pid=$!
		ts_bg_pid $pid
		emu_registered() { grep -qs "^kind=emu" "$st2"/*; }
		ts_wait_for -p $pid "the run's emulated drive" emu_registered ||
			ts_fail "the --emulate run ended before its drive was registered"
		kdev=$(sed -n 's/^dev=//p' "$st2"/*)
		kpath=$(sed -n 's/^path=//p' "$st2"/*)
		kill -9 $pid
		wait $pid 2>/dev/null
		ALIGNPROBE_STATE_DIR=$st2 "$ALIGNPROBE" cleanup > "$TS_TMP/out" 2> "$TS_TMP/err" ||
			ts_fail "cleanup after the killed --emulate run: $(cat "$TS_TMP/out" "$TS_TMP/err")"
		ts_log "ran: alignprobe cleanup (after kill -9 of probe --emulate): exit 0"
		[ -z "$(ls -A "$st2")" ] || ts_fail "cleanup left in the registry: $(ls -A "$st2")"
		case $(cat "/sys/block/${kdev#/dev/}/loop/backing_file" 2>/dev/null) in
		"$kpath"*) ts_fail "cleanup left the emulated drive $kdev ($kpath)" ;;
		esac
		;;
	"--allow-metadata-area")
		rr 3 "alignprobe probe --dry-run --region-start 0 $emuA"
		rr 0 "alignprobe probe --dry-run --region-start 0 --allow-metadata-area $emuA"
		;;
	"--undo")	# step 2: the identity; alignprobe probe --undo JOURNAL above
		:	# (a journal refused for another disk: tests/ts/probe/undo-identity.sh)
		;;
	"--geometry")	# check's rules: a probed verdict decides
		[ -s "$W/probe.json" ] ||
			rr 0 "alignprobe probe --preserve --json /dev/sdX > $W/probe.json" "${HOUR[@]}"
		rr 0 "alignprobe check --geometry $W/probe.json $emuA"
		;;
	"--geometry-any")	# sweep.json describes another drive of this model
		rr 2 "alignprobe check --geometry $W/sweep.json $emuA"
		rr 0 "alignprobe check --geometry $W/sweep.json --geometry-any $emuA"
		;;
	"--physical")
		rr 0 "alignprobe check --physical 4096 $TS_TMP/disk.img"
		;;
	"--lowest-aligned 0..physical/logical-1")
		rr 0 "alignprobe check --physical 4096 --lowest-aligned 0 $TS_TMP/disk.img"
		rr 2 "alignprobe check --physical 4096 --lowest-aligned 8 $TS_TMP/disk.img"
		;;
	"--trust-reported")
		rr 0 "alignprobe check --trust-reported $TS_TMP/disk.img"
		;;
	"--sector-size")	# an image whose table was written for 4096-byte sectors
		rr 7 "alignprobe check $TS_TMP/disk4k.img"
		rr 0 "alignprobe check --sector-size 4096 $TS_TMP/disk4k.img"
		;;
	"losetup --sector-size 4096 --partscan --find --show DEV")
		rr 0 "losetup --sector-size 4096 --partscan --find --show $TS_TMP/disk4k.img"
		dev4k=$(cat "$TS_TMP/out")
		echo "$dev4k $(realpath "$TS_TMP/disk4k.img")" >> "$TS_TMP/.loops"
		rr 0 "alignprobe check $dev4k"
		losetup -d "$dev4k"
		;;
	"--allow-partition")
		rr 3 "alignprobe probe --dry-run $partA"
		rr 0 "alignprobe probe --dry-run --allow-partition $partA"
		;;
	"--max-size")	# the probe's largest unit: up to 64 MiB, whole logical sectors
		rr 0 "alignprobe probe --dry-run --max-size 64K $loop"
		rr 2 "alignprobe probe --dry-run --max-size 65M $loop"
		rr 2 "alignprobe probe --dry-run --max-size 1000 $loop"
		;;
	"--yes")	# without it and without a terminal, refused (see probe DEVICE...)
		rr 3 "alignprobe probe $loop"
		rr "0|5" "alignprobe probe --yes $loop" --max-size 4K --max-rounds 3 -q
		;;
	"alignprobe check /dev/sdX --geometry probe.json")
		rr 0 "alignprobe probe --preserve --json /dev/sdX > $W/probe.json" "${HOUR[@]}"
		rr 0 "$text"
		;;
	"alignprobe probe --preserve --json /dev/sdX > probe.json")
		rr 0 "$text" "${HOUR[@]}"
		ts_json_check "$W/probe.json" <<< 'eq(d["verdict"]["physical_sector"], 4096, "physical sector")' ||
			ts_fail "probe.json: not the verdict"
		;;
	"alignprobe probe --preserve --json /dev/sd[b-z]")
		sa=$(ts_checksum "$emuA")
		sb=$(ts_checksum "$emuB")
		rr 0 "$text" "${HOUR[@]}"
		ts_json_check "$TS_TMP/out" <<< 'eq(len(d["devices"]), 2, "devices")' ||
			ts_fail "probe --json of two devices"
		ts_assert_eq "$sa" "$(ts_checksum "$emuA")" "$emuA after the parallel probe"
		ts_assert_eq "$sb" "$(ts_checksum "$emuB")" "$emuB after the parallel probe"
		;;
	# -- fleets: one probe per model, and monitoring
	"alignprobe probe --preserve --record /dev/sdX")
		# the emulated drive states no model: the test seam states one
		# (for these runs only), the store is the test's own
		sum=$(ts_checksum "$emuA")
		states "$emuA" "README:Fleet Drive:1.0:RA"
		ALIGNPROBE_VERDICTS=$W/verdicts.json rr 0 "$text" -q "${HOUR[@]}"
		states "$emuA"
		ts_assert_eq "$sum" "$(ts_checksum "$emuA")" "$emuA after probe --preserve --record"
		python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))["models"][0]
assert m["model"] == "Fleet Drive" and m["verdicts"][0]["physical_sector"] == 4096, m' \
			"$W/verdicts.json" || ts_fail "probe --record: not the verdict in the store"
		;;
	"alignprobe check --verdicts /dev/sd[b-z]")
		# B holds no partition table yet (a bad input, 2): A and an image
		states "$emuA" "README:Fleet Drive:1.0:RA"
		ALIGNPROBE_VERDICTS=$W/verdicts.json rr 0 "alignprobe check --verdicts $emuA $TS_TMP/disk.img"
		states "$emuA"
		out_has "Rule: model_verdict" "check --verdicts"
		;;
	"check --refuse-smr")
		# the model measured (a conventional disk), then the gate passes it
		states "$emuA" "README:Fleet Drive:1.0:RA"
		ALIGNPROBE_VERDICTS=$W/smr.json rr 0 \
			"alignprobe smr --record --preserve --journal $W/smr.journal $emuA" -q
		ALIGNPROBE_VERDICTS=$W/smr.json rr 0 "alignprobe check --verdicts --refuse-smr $emuA"
		states "$emuA"
		;;
	"--verdicts")
		states "$emuA" "README:Fleet Drive:1.0:RA"
		rr 0 "alignprobe check --verdicts=$W/verdicts.json $emuA"
		states "$emuA"
		out_has "Rule: model_verdict" "check --verdicts=STORE"
		;;
	"--record[=STORE]"|"--verdicts[=STORE]")
		: # the store named: sweep --record= and check --verdicts= run here
		;;
	"sweep --record")
		# B, destroyed by the sweep above anyway; two periods of starts
		states "$emuB" "README:Sweep Drive:1.0:RB"
		rr 0 "alignprobe sweep --record=$W/verdicts.json $emuB" --yes -q --size 32M \
			--starts 34..49 "${SWEEP_HOUR[@]}"
		states "$emuB"
		grep -q "Sweep Drive" "$W/verdicts.json" || ts_fail "sweep --record: not in the store"
		;;
	"alignprobe verdicts list|show|merge|forget")
		: # the synopsis of the command table: the lines below run it
		;;
	"--max-size 64K")	# the stripe bench row: the stripe step left out
		rr 0 "alignprobe probe --dry-run --max-size 64K $emuA"
		grep -q "RAID stripes" "$TS_TMP/out" &&
			ts_fail "probe --max-size 64K: the stripe step still planned"
		rr 0 "alignprobe probe --dry-run $emuA"
		grep -q "then, for RAID stripes above 64 KiB" "$TS_TMP/out" ||
			ts_fail "probe: no stripe step planned by default"
		;;
	"--stripes")	# the probe row: the stripe step skipped on one ATA disk that rotates
		states "$emuA" "ATA:README One Disk:1.0:R1"
		rr 0 "alignprobe probe --dry-run $emuA"
		grep -q "not if the disk is found rotating" "$TS_TMP/out" ||
			ts_fail "probe: one ATA disk's skip not planned"
		rr 0 "alignprobe probe --dry-run --stripes $emuA"
		grep -q "not if the disk is found rotating" "$TS_TMP/out" &&
			ts_fail "probe --stripes: the stripe step still skipped"
		states "$emuA"
		;;
	"--prometheus")	# the smr row: "--record and --prometheus carry these figures"
		states "$emuA" "README:Fleet Drive:1.0:RA"
		rr 0 "alignprobe smr --preserve --journal $W/smr-prom.journal --prometheus $W/smr.prom $emuA" -q
		states "$emuA"
		grep -q '^alignprobe_smr{' "$W/smr.prom" ||
			ts_fail "smr --prometheus: $(cat "$W/smr.prom")"
		;;
	"--record")	# the verdicts row: "like --record"; probe and sweep --record run below
		:
		;;
	"verdicts merge")	# the fleet block's merge runs it
		:
		;;
	"emulate --attach --drive-model NAME")
		rr 0 "alignprobe emulate --attach --size 64M --drive-model README-Drive"
		dev=$(cat "$TS_TMP/out")
		echo "$dev" >> "$TS_TMP/.emus"
		rr 0 "alignprobe probe --dry-run --record=$W/dm.json $dev"
		rr 0 "alignprobe emulate --detach $dev"
		;;
	"--stripe 192K"|"--chunk 64K")	# 2048 refused on a 192 KiB stripe, 6144 proposed
		steps_of --physical 4096 --chunk 64K --stripe 192K
		jq -e '.exit_status == 4' "$TS_TMP/levels.json" >/dev/null ||
			ts_fail "check $text: a partition at 2048 not refused"
		grep -q "first start aligned to every level 6144" "$TS_TMP/err" ||
			ts_fail "check $text: 6144 not proposed: $(cat "$TS_TMP/err")"
		;;
	"--allocation-unit 64K")	# 2048 is on a 64 KiB unit: aligned
		steps_of --physical 4096 --allocation-unit 64K
		jq -e '.partitions[0].aligned == true' "$TS_TMP/levels.json" >/dev/null ||
			ts_fail "--allocation-unit 64K: partition at 2048 not aligned"
		;;
	"mkfs.xfs -d su=64k,sw=3"|"mkfs.ext4 -E stride=16,stripe_width=48"|\
	"pvcreate --dataalignment 192k")	# the steps on a 192 KiB stripe of 64 KiB chunks
		steps_of --physical 4096 --chunk 64K --stripe 192K
		step_has "$text"
		grep -q '^sfdisk --move-data .* -N 1$' "$TS_TMP/steps" ||
			ts_fail "no move of partition 1 in: $(cat "$TS_TMP/steps")"
		;;
	"pvcreate --dataalignmentoffset 3584b")	# lowest aligned LBA 7
		steps_of --physical 4096 --lowest-aligned 7
		step_has "pvcreate --dataalignment 4096b --dataalignmentoffset 3584b"
		;;
	"sweep --replay")	# a replayed result names DEVICE, not a device it never held
		rr 0 "alignprobe sweep --replay $top_srcdir/tests/ts/output/sweep-4096-0.json"
		out_has "mkfs.xfs -s size=4096 DEVICE" "sweep --replay"
		;;
	"alignprobe probe: DEVICE: no verdict: ..."|"-q")	# exit 5 says why, also with -q
		rr 5 "alignprobe sweep --replay $top_srcdir/tests/ts/sweep/data/starts-38-42.json -q"
		grep -q "^alignprobe sweep: .*starts-38-42.json: no verdict: " "$TS_TMP/err" ||
			ts_fail "exit 5 without its reason on stderr: $(cat "$TS_TMP/err")"
		;;
	"--force")	# what undo needs it for: the block "probe --force --undo JOURNAL" runs it
		rr 0 "alignprobe probe --help"
		out_has "--force" "probe --help"
		;;
	"check -J")	# one document also for a device it refuses
		rr 2 "alignprobe check -J $TS_TMP/no-such-image"
		ts_json_check "$TS_TMP/out" <<< 'eq(d["exit_status"], 2, "exit status")' ||
			ts_fail "check -J on a refused device: not one document"
		;;
	"-J")	# the verdicts row: list -J (the fleet section's store, made by its block)
		rr 0 "alignprobe verdicts list -J --verdicts=$W/verdicts.json"
		ts_json_check "$TS_TMP/out" <<< 'check(d["verdicts"], "verdicts")' ||
			ts_fail "verdicts list -J: not the store's verdicts"
		;;
	"alignprobe probe --emulate=wd-ears-jumper --record=verdicts.json")
		rr 0 "$text" -q "${HOUR[@]}"
		grep -qF '"model": "EMU-WD-EARS-JUMPER"' "$W/verdicts.json" ||
			ts_fail "probe --emulate --record: not the emulated drive's model"
		;;
	"alignprobe verdicts list --verdicts=verdicts.json")
		rr 0 "$text"
		out_has "ALIGNPROBE EMU-WD-EARS-JUMPER" "verdicts list"
		;;
	"alignprobe verdicts merge --store fleet.json verdicts.json probe.json")
		# the blocks run before the inline commands: probe.json may not exist yet
		[ -s "$W/probe.json" ] ||
			rr 0 "alignprobe probe --preserve --json /dev/sdX > $W/probe.json" "${HOUR[@]}"
		rr 0 "$text"
		out_has "fleet.json: " "verdicts merge"
		rr 0 "$text"
		out_has "fleet.json: unchanged" "verdicts merge, twice"
		;;
	"alignprobe check --verdicts=verdicts.json --verdicts=fleet.json /dev/sdX")
		rr "0|4" "$text"
		;;
	"--prometheus FILE")
		rr 0 "alignprobe check --prometheus $W/alignprobe.prom $emuA"
		grep -q "^alignprobe_partition_aligned{device=\"$emuA\",partition=\"1\"} 1$" \
			"$W/alignprobe.prom" || ts_fail "check --prometheus: $(cat "$W/alignprobe.prom")"
		;;
	*)
		ts_fail "README.md shows a command line this test does not know: [$kind] '$text'"
		;;
	esac
done < <(
	# the rehearsals first, as the README asks before anything is written;
	# then the rest in the README's order
	grep -F -- "--dry-run" "$TS_TMP/commands"
	grep -vF -- "--dry-run" "$TS_TMP/commands"
)

# cleanup, last: the test's own drives go first, so that it finds nothing
# alive (what it would skip) and has nothing left to do
for dev in $(cat "$TS_TMP/.emus"); do
	"$ALIGNPROBE" emulate --detach "$dev" >/dev/null 2>&1
done
: > "$TS_TMP/.emus"
rr 0 "alignprobe cleanup"
rr 0 "alignprobe cleanup $loop"
ts_log "$nrun command lines of README.md: $nnot parts not run (reasons above), the rest run"
ts_pass
