#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Images made with sfdisk (GPT and DOS) and parted at many starts: aligned,
# misaligned by 1..7 sectors, and under a shifted geometry (lowest aligned
# LBA 7, where 63 is aligned and 2048 is not). Checked against the exact
# expectations (exit 0/4, columns, messages) and against `parted align-check`
# where both answer the same question: an image reports 512/512, so parted's
# "min" alignment is ALIGN_REPORTED and its "opt" alignment (1 MiB on a
# device without an optimal I/O size) is ALIGN_1M. That 512/512 report is no
# proof: unprobed, 4 KiB decides (--trust-reported: 512). check never writes.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "alignment of sfdisk and parted images at many starts"
ts_untimed "partition tables in files and on plain loop devices"
ts_need_cmd sfdisk parted sha256sum

img=$TS_TMP/disk.img
starts="34 35 40 63 64 2048 2049 2050 2051 2052 2053 2054 2055 2056 4095 4096 4103"
n=0

make_image() {	# make_image TOOL START SIZE
	rm -f "$img"
	truncate -s 8M "$img"
	case $1 in
	sfdisk-gpt) printf 'label: gpt\nfirst-lba: 34\nstart=%s,size=%s\n' "$2" "$3" |
		sfdisk -q --no-reread --no-tell-kernel "$img" ;;
	sfdisk-dos) printf 'label: dos\nstart=%s,size=%s\n' "$2" "$3" |
		sfdisk -q --no-reread --no-tell-kernel "$img" ;;
	parted-gpt) parted -s -a none "$img" mklabel gpt mkpart p1 "$2s" "$(( $2 + $3 - 1 ))s" ;;
	esac >/dev/null 2>&1 || ts_fail "$1: cannot make an image with start $2"
}

yesno() { [ "$1" = 0 ] && echo yes || echo no; }

for tool in sfdisk-gpt sfdisk-dos parted-gpt; do
	list=$starts
	[ "$tool" = sfdisk-gpt ] || list="63 2048 2049 2052 2055"
	for s in $list; do
		make_image "$tool" "$s" 2048
		sum=$(ts_checksum "$img")
		what="$tool start $s"
		mis=$(( s % 8 ))
		shifted=$(( (s - 7 + 8) % 8 ))

		# the image's 512/512 report proves nothing: 4 KiB from LBA 0 decides
		ts_run_rc "$([ "$mis" = 0 ] && echo 0 || echo 4)" "$ALIGNPROBE" check -q "$img"
		# --trust-reported: the report as stated, every start aligned
		ts_run_rc 0 "$ALIGNPROBE" check -q --trust-reported "$img"

		# 4096-byte physical sectors, unshifted: aligned exactly when s % 8 == 0
		ts_run_rc "$([ "$mis" = 0 ] && echo 0 || echo 4)" "$ALIGNPROBE" check -r -n -p 4096 \
			-o NR,START,SECTORS,ALIGN_REPORTED,ALIGN_PROBED,ALIGN_1M,MISALIGN,NEXT_ALIGNED,ALIGNED "$img"
		want="1 $s 2048 yes $(yesno $mis) $(yesno $(( s % 2048 ))) $mis $(( mis ? s + 8 - mis : s )) $(yesno $mis)"
		ts_assert_eq "$want" "$(cat "$TS_TMP/out")" "$what: columns"
		if [ "$mis" != 0 ]; then
			sect=sectors
			[ "$mis" = 1 ] && sect=sector
			grep -q "partition 1: start $s is not aligned to 4096-byte physical sectors (given, lowest aligned LBA 0): $mis $sect past a boundary; next aligned start $(( s + 8 - mis ))" "$TS_TMP/err" ||
				{ cat "$TS_TMP/err" >&2; ts_fail "$what: misalignment message"; }
		fi
		p1m=$(sed -n 's/^1 [0-9]* [0-9]* \([a-z]*\) [a-z]* \([a-z]*\) .*/\1 \2/p' "$TS_TMP/out")

		# shifted geometry: lowest aligned LBA 7
		ts_run_rc "$([ "$shifted" = 0 ] && echo 0 || echo 4)" "$ALIGNPROBE" check -q -p 4K -l 7 "$img"
		[ -s "$TS_TMP/out" ] && ts_fail "$what: --quiet printed on stdout"

		# parted speaks to the reported and the 1 MiB questions
		parted -s "$img" align-check min 1 >/dev/null 2>&1
		pmin=$(yesno $?)
		parted -s "$img" align-check opt 1 >/dev/null 2>&1
		popt=$(yesno $?)
		ts_assert_eq "$pmin $popt" "$p1m" "$what: parted align-check min/opt vs ALIGN_REPORTED/ALIGN_1M"

		ts_assert_eq "$sum" "$(ts_checksum "$img")" "$what: image changed"
		n=$((n + 1))
	done
done

# the summary line of the human output
make_image sfdisk-gpt 2056 2048
ts_run_rc 0 "$ALIGNPROBE" check -p 4096 "$img"
grep -q "1 of 1 partition aligned to 4096-byte physical sectors (given, lowest aligned LBA 0)" \
	"$TS_TMP/out" || ts_fail "no summary"

# the size: 2047 sectors is no whole number of 4 KiB sectors
make_image sfdisk-gpt 2048 2047
ts_run_rc 0 "$ALIGNPROBE" check -p 4096 -r -n -o SIZE_ALIGNED,ALIGNED "$img"
ts_assert_eq "no yes" "$(cat "$TS_TMP/out")" "size column"
ts_run_rc 4 "$ALIGNPROBE" check -p 4096 --check-size "$img"
grep -q "partition 1: size 2047 sectors is not a whole number of 4096-byte physical sectors" \
	"$TS_TMP/err" || ts_fail "--check-size message"

# several partitions, one misaligned by one sector; DOS logical partitions
# are checked, the extended container is not
rm -f "$img"
truncate -s 16M "$img"
printf 'label: dos\nstart=2048,size=4096\ntype=5,start=8192,size=16384\nstart=8200,size=2048\nstart=12289,size=2048\n' |
	sfdisk -q --no-reread --no-tell-kernel "$img" >/dev/null || ts_fail "sfdisk dos with logicals"
ts_run_rc 4 "$ALIGNPROBE" check -p 4096 "$img"
grep -q "2 of 3 partitions aligned" "$TS_TMP/out" || ts_fail "summary with logical partitions"
grep -q "partition 6: start 12289 is not aligned" "$TS_TMP/err" || ts_fail "logical partition 6 not flagged"
grep -q "partition 2:" "$TS_TMP/err" && ts_fail "the extended container was judged"
ts_run_rc 4 "$ALIGNPROBE" check -p 4096 -r -n -o NR,ALIGNED "$img"
ts_assert_eq "1 yes
2 -
5 yes
6 no" "$(cat "$TS_TMP/out")" "ALIGNED with a container"

ts_log "$n images checked against expectations and parted align-check"
ts_pass
