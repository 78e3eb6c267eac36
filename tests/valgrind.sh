#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/valgrind.sh [BUILDDIR]: valgrind memcheck over
#   commands  alignprobe's commands along their normal paths, one line each
#   unit      every cmocka unit test (tests/unit/test_*)
#   golden    the integration tests whose output is compared byte for byte
#             (tests/expected/), every alignprobe and plot_demo they run
#             under valgrind
# with --leak-check=full --error-exitcode=99: memory errors (invalid
# accesses, uninitialised values in a condition or a syscall) and definite
# or possible leaks fail. VG_PARTS="unit golden" runs some of the parts,
# VG_UNIT_SKIP names unit tests left out (default: the two slowest).
# Needs valgrind; the device parts (sweep, probe, emulate, check on a loop
# device, and golden tests that use them) need root, loop devices and
# /dev/fuse and are skipped otherwise (failed under
# ALIGNPROBE_REQUIRE_DEVICES=1, as in CI). Uses its own
# ALIGNPROBE_STATE_DIR and temporary directory and only devices it
# attaches. Exit status: 0 clean, 1 a leak, an error or a failed test (see
# the log named on the failing line), 77 valgrind missing. .ci/run runs it.
set -u
builddir=$(cd "${1:-.}" && pwd)
srcdir=$(cd "$(dirname "$0")/.." && pwd)
AP=$builddir/alignprobe
[ -x "$AP" ] || { echo "valgrind.sh: $AP not built" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "valgrind.sh: valgrind not installed" >&2; exit 77; }
export PATH=$PATH:/usr/sbin:/sbin LC_ALL=C
tmp=$(mktemp -d /tmp/alignprobe-vg.XXXXXX)
export ALIGNPROBE_STATE_DIR=$tmp/state TMPDIR=$tmp/tmp
mkdir -p "$ALIGNPROBE_STATE_DIR" "$TMPDIR"
loops=() emus=()
cleanup() {
	local d
	for d in "${emus[@]}"; do "$AP" emulate --detach "$d" >/dev/null 2>&1; done
	for d in "${loops[@]}"; do losetup -d "$d" 2>/dev/null; done
	"$AP" cleanup -q >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# libparted's and glibc's one-time allocations are "still reachable", not
# leaks; only definite and possible leaks count. The emulated drive's FUSE
# server is a forked child: valgrind follows it (its own log file).
VG=(valgrind -q --leak-check=full --show-leak-kinds=definite,possible
    --errors-for-leak-kinds=definite,possible --error-exitcode=99
    --track-fds=no --child-silent-after-fork=no
    --suppressions="$srcdir/tests/valgrind.supp")
n=0 bad=0 skipped=0
parts=" ${VG_PARTS:-commands unit golden} "
part() { [[ $parts == *" $1 "* ]]; }

# vg NAME EXPECTED-EXIT-CODES CMD...: one command under valgrind
vg() {
	local name=$1 want=$2 rc log=$tmp/vg-$1.log
	shift 2
	n=$((n + 1))
	"${VG[@]}" --log-file="$log.%p" "$@" > "$tmp/out-$name" 2> "$tmp/err-$name" < /dev/null
	rc=$?
	cat "$log".* > "$log" 2>/dev/null
	if [ $rc = 99 ] || vg_errors "$log"; then
		bad=$((bad + 1))
		cp "$log" "/tmp/alignprobe-vg-$name.log"
		printf 'LEAK/ERROR %-24s (exit %d) see /tmp/alignprobe-vg-%s.log\n' "$name" $rc "$name"
		grep -m5 "definitely lost\|possibly lost\|Invalid \|uninitialised" "$log" | sed 's/^/    /'
	elif ! [[ " $want " == *" $rc "* ]]; then
		bad=$((bad + 1))
		printf 'FAILED     %-24s exit %d, expected %s: %s\n' "$name" $rc "$want" "$(head -c 300 "$tmp/err-$name")"
	else
		printf 'clean      %-24s (exit %d)\n' "$name" $rc
	fi
}
skip() { skipped=$((skipped + 1)); printf 'skipped    %-24s %s\n' "$1" "$2"; }

# vg_errors LOG: LOG holds a memory error or a leak
vg_errors() {
	grep -q "definitely lost\|possibly lost\|Invalid \|uninitialised\|Mismatched\|Syscall param" "$1"
}

run_commands() {
# ---- no device needed
vg help 0 "$AP" --help
vg sweep-help 0 "$AP" sweep --help
vg bad-option 2 "$AP" sweep --no-such-option
printf 'set number 20\nset transactions 40\nset size 512 4096\nset location %s\nrun\n' "$tmp/pm" > "$tmp/tiny.pm"
mkdir -p "$tmp/pm"
vg postmark 0 "$AP" postmark "$tmp/tiny.pm"
vg postmark-json 0 "$AP" postmark -J "$tmp/tiny.pm"
vg seq-file 0 "$AP" seq -q -s 2M -B 4K,64K -m fdatasync,direct "$tmp/seq.dat"
"$srcdir/fuzz/seeds_json.sh" "$tmp/seeds" >/dev/null 2>&1
vg sweep-replay "0 5" "$AP" sweep --replay "$tmp/seeds/sweep-sensitive.json"
vg sweep-replay-json "0 5" "$AP" sweep --replay "$tmp/seeds/sweep-failed-step.json" -J
vg sweep-replay-bad 2 "$AP" sweep --replay "$tmp/seeds/truncated.json"
truncate -s 64M "$tmp/disk.img"
printf 'label: gpt\nstart=2048, size=16M\nstart=34823, size=16M\n' | sfdisk -q "$tmp/disk.img" >/dev/null 2>&1
vg check-image "0 4" "$AP" check --physical 4096 "$tmp/disk.img"
vg check-geometry "0 4" "$AP" check --geometry "$tmp/seeds/probe.json" --geometry-any -J "$tmp/disk.img"
vg cleanup-empty 0 "$AP" cleanup
sh -c 'exit 0' & dead=$!; wait $dead
mkdir -p "$TMPDIR/alignprobe-mnt.vg"
printf 'kind=tmpdir\nowner=%d\npath=%s\ndev=\naux=\n' $dead "$TMPDIR/alignprobe-mnt.vg" > "$ALIGNPROBE_STATE_DIR/$dead-tmpdir-0-1"
printf 'kind=journal\nowner=%d\npath=%s\ndev=/dev/loop99\naux=\n' $dead "$tmp/disk.img" > "$ALIGNPROBE_STATE_DIR/$dead-journal-0-1"
# the journal is kept (a journal is data to restore): 1, something remains
vg cleanup-dry-run 1 "$AP" cleanup --dry-run
vg cleanup-json 1 "$AP" cleanup -J
rm -f "$ALIGNPROBE_STATE_DIR"/*

# ---- devices (root)
if [ "$(id -u)" != 0 ] || ! [ -c /dev/loop-control ]; then
	skip devices "needs root and loop devices"
else
	truncate -s 96M "$tmp/loop.img"
	L=$(losetup -f --show "$tmp/loop.img") && loops+=("$L")
	printf 'set number 8\nset transactions 16\nset size 512 2048\nrun\n' > "$tmp/sweep.pm"
	vg sweep "0 5" "$AP" sweep --yes -q --rounds 1 --size 16M -w "$tmp/sweep.pm" --starts 34,40 --save "$tmp/saved.json" "$L"
	vg sweep-dry-run 0 "$AP" sweep --yes --dry-run "$L"
	vg sweep-refused 3 "$AP" sweep "$L"
	# the sweep left an empty GPT
	vg check-device "0 4" "$AP" check --physical 4096 "$L"
	vg probe "0 5" "$AP" probe --yes -q --region-size 8M --max-size 8K --min-rounds 2 --max-rounds 3 --time-budget 20s "$L"
	vg probe-preserve "0 5" "$AP" probe --preserve --yes -q --region-size 8M --max-size 8K --min-rounds 2 --max-rounds 3 --time-budget 20s "$L"
	vg seq-device 0 "$AP" seq --yes -q -s 4M -B 64K -m direct "$L"
	vg cleanup 0 "$AP" cleanup "$L"
	if [ -c /dev/fuse ] && "$AP" emulate --help >/dev/null 2>&1; then
		vg emulate-attach 0 "$AP" emulate --attach --size 64M --rmw-cost 300us
		E=$(head -n1 "$tmp/out-emulate-attach")
		if [ -b "$E" ]; then
			emus+=("$E")
			vg emulate-stats 0 "$AP" emulate --stats "$E" -J
			vg sweep-emulated "0 5" "$AP" sweep --yes -q --rounds 1 --size 16M -w "$tmp/sweep.pm" --starts 40,41 "$E"
			vg emulate-detach 0 "$AP" emulate --detach "$E"
			# the FUSE server forked by --attach has exited now: its own log
			n=$((n + 1))
			cat "$tmp"/vg-emulate-attach.log.* > "$tmp/vg-emu-server.log"
			if [ "$(ls "$tmp"/vg-emulate-attach.log.* | wc -l)" -lt 2 ]; then
				bad=$((bad + 1))
				echo "FAILED     emu-server               no log of the forked server"
			elif grep -q "definitely lost\|possibly lost\|Invalid \|uninitialised" "$tmp/vg-emu-server.log"; then
				bad=$((bad + 1))
				cp "$tmp/vg-emu-server.log" /tmp/alignprobe-vg-emu-server.log
				echo "LEAK/ERROR emu-server               see /tmp/alignprobe-vg-emu-server.log"
			else
				printf 'clean      %-24s (%s)\n' emu-server "forked FUSE server, until detach"
			fi
		fi
	else
		skip emulate "needs /dev/fuse and the emulated drive"
	fi
fi
}

# ---- every unit test, in the build directory as make check runs them;
# VG_UNIT_SKIP: the statistics' end-to-end simulations (minutes natively,
# hours under valgrind: arithmetic on arrays, which ASan+UBSan and the
# clang pass run)
: "${VG_UNIT_SKIP=test_analysis test_probe test_probe_fw}"
run_unit() {
	local t
	for t in "$builddir"/tests/unit/test_*; do
		[ -f "$t" ] && [ -x "$t" ] || continue
		if [[ " $VG_UNIT_SKIP " == *" ${t##*/} "* ]]; then
			skip "unit-${t##*/}" "VG_UNIT_SKIP (too slow under valgrind)"
			continue
		fi
		# not in a subshell: vg counts the runs and the failures
		cd "$builddir" || return 1
		vg "unit-${t##*/}" 0 "$t"
		cd - > /dev/null || return 1
	done
}

# ---- the golden tests, every program they run under valgrind
GOLDEN=${VG_GOLDEN:-"tests/ts/cli/help.sh tests/ts/check/fixed-images.sh
	tests/ts/emulate/refusals.sh tests/ts/output/plot.sh tests/ts/postmark/output.sh
	tests/ts/cleanup/output.sh tests/ts/seq/output.sh tests/ts/sweep/output.sh
	tests/ts/probe/output.sh"}
run_golden() {
	local t name rc prog logs=$tmp/golden
	mkdir -p "$logs"
	for prog in alignprobe tests/helpers/plot_demo; do
		# the test runs this path as $ALIGNPROBE (its output says "alignprobe")
		printf '#!/bin/sh\nexec %s --log-file=%s/%s.%%p.log %s "$@"\n' "${VG[*]}" "$logs" \
			"${prog##*/}" "$builddir/$prog" > "$tmp/vg-${prog##*/}"
		chmod +x "$tmp/vg-${prog##*/}"
	done
	for t in $GOLDEN; do
		name=${t#tests/ts/}
		name=golden-${name%.sh}
		name=${name//\//-}
		n=$((n + 1))
		rm -f "$logs"/*.log
		(cd "$builddir" && top_srcdir=$srcdir top_builddir=$builddir \
			ALIGNPROBE=$tmp/vg-alignprobe PLOT_DEMO=$tmp/vg-plot_demo \
			bash "$srcdir/$t") > "$tmp/out-$name" 2>&1
		rc=$?
		cat "$logs"/*.log > "$tmp/vg-$name.log" 2>/dev/null
		if vg_errors "$tmp/vg-$name.log"; then
			bad=$((bad + 1))
			cp "$tmp/vg-$name.log" "/tmp/alignprobe-vg-$name.log"
			printf 'LEAK/ERROR %-24s see /tmp/alignprobe-vg-%s.log\n' "$name" "$name"
			grep -m5 "definitely lost\|possibly lost\|Invalid \|uninitialised\|Syscall param" \
				"$tmp/vg-$name.log" | sed 's/^/    /'
		elif [ $rc = 77 ] && [ "${ALIGNPROBE_REQUIRE_DEVICES:-0}" != 1 ]; then
			skip "$name" "$(grep -m1 -o 'SKIP.*' "$tmp/out-$name")"
		elif [ $rc != 0 ]; then
			bad=$((bad + 1))
			cp "$tmp/out-$name" "/tmp/alignprobe-vg-$name.out"
			printf 'FAILED     %-24s exit %d: see /tmp/alignprobe-vg-%s.out\n' "$name" $rc "$name"
			grep -m5 "^not ok" "$tmp/out-$name" | sed 's/^/    /'
		else
			printf 'clean      %-24s (%s cases)\n' "$name" "$(grep -c '^ok' "$tmp/out-$name")"
		fi
	done
}

part commands && run_commands
part unit && run_unit
part golden && run_golden
echo "valgrind.sh: $n runs, $bad with leaks, errors or failures, $skipped parts skipped"
[ $bad = 0 ]

