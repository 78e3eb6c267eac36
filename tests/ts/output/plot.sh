#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The SVG charts render headless (rsvg-convert from librsvg2-bin) into PNGs
# whose pixels show what the chart claims: one run of columns per bar in
# the aligned colour and in the misaligned colour, at the right positions
# and heights, the period markers under the aligned starts, a legend with
# both colours, line series with a gap where a value is missing; one chart
# byte for byte (tests/expected/output/plot-*). PLOT_DEMO: another build's
# plot_demo (a clang build's).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "SVG charts rendered to pixels"
ts_need_cmd rsvg-convert python3

DEMO=${PLOT_DEMO:-$top_builddir/tests/helpers/plot_demo}
PNGSTAT=$top_srcdir/tests/helpers/pngstat.py
[ -x "$DEMO" ] || { echo "plot/plot: $DEMO not built (make check builds it)" >&2; exit 99; }

ALIGNED='#1f77b4'	# AP_PLOT_COLOR_ALIGNED
MISALIGNED='#ff7f0e'	# AP_PLOT_COLOR_MISALIGNED
PERIOD='#555555'	# AP_PLOT_COLOR_PERIOD

# render SVG PNG: well-formed XML (python's parser), then pixels
render() {
	python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$1" ||
		ts_fail "$1 is not well-formed XML"
	rsvg-convert --format=png --output="$2" "$1" 2> "$TS_TMP/rsvg.err" || {
		cat "$TS_TMP/rsvg.err" >&2
		ts_fail "rsvg-convert $1 failed"
	}
	[ -s "$2" ] || ts_fail "rsvg-convert wrote an empty $2"
}

# stat PNG [pngstat args]: results in STAT_<name>_{count,ymin,runs}, STAT_size, STAT_nonwhite
stat_png() {
	local png=$1 kind name count ymin runs
	shift
	python3 "$PNGSTAT" "$png" "$@" > "$TS_TMP/stat" || ts_fail "pngstat $png failed"
	while read -r kind name count ymin runs; do
		case $kind in
		size) STAT_size="$name $count" ;;
		nonwhite) STAT_nonwhite=$name ;;
		color)
			printf -v "STAT_${name}_count" %s "$count"
			printf -v "STAT_${name}_ymin" %s "$ymin"
			printf -v "STAT_${name}_runs" %s "$runs"
			;;
		esac
	done < "$TS_TMP/stat"
}

# plot_top SVG: y of the top of the plot area (the y axis runs from there
# to y=402), so that a region can start below the title and the legend
plot_top() {
	sed -n 's/.*<line x1="78" y1="\([0-9]*\)[.0-9]*" x2="78" y2="402".*/\1/p' "$1" | head -n 1
}

nruns() { [ "$1" = - ] && echo 0 || tr ',' '\n' <<< "$1" | wc -l; }

# run_index RUNS_A RUNS_B: positions (0-based) of A's runs among A's and B's sorted by x
run_index() {
	{ tr ',' '\n' <<< "$1" | sed 's/$/ a/'; tr ',' '\n' <<< "$2" | sed 's/$/ b/'; } |
		sort -t- -k1,1n | awk '$2 == "a" { printf "%s%d", sep, NR - 1; sep = " " }'
}

# --- 1. a sweep: starts 34..64, 4096-byte sectors at phase 0 -------------
ts_subtest sweep-chart
for s in $(seq 34 64); do
	if [ $((s % 8)) = 0 ]; then
		echo "$s 900 1"
	else
		echo "$s $((300 + s % 5 * 4)) 0"
	fi
done > "$TS_TMP/sweep.dat"
"$DEMO" bars "$TS_TMP/sweep.svg" 8 0 \
	'physical 4096 <reported 512> & "aligned" at 40, 48, 56, 64' < "$TS_TMP/sweep.dat" ||
	ts_fail "plot_demo bars failed"
grep -q '&lt;reported 512&gt; &amp; &quot;aligned&quot;' "$TS_TMP/sweep.svg" ||
	ts_fail "title not escaped"
# the SVG itself, byte for byte: its y axis (0..1000, ticks every 200) read
# uninitialised members of the scale on d7e4e2c (clang -O2: "-7.83e-120")
ts_expect sweep-bars.svg "$TS_TMP/sweep.svg"
ts_subtest sweep-chart-pixels
render "$TS_TMP/sweep.svg" "$TS_TMP/sweep.png"

# the plot area (below the legend, above the axis)
stat_png "$TS_TMP/sweep.png" --region 0,62,720,400 al=$ALIGNED mis=$MISALIGNED
ts_assert_eq "720 460" "$STAT_size" "sweep chart size"
ts_assert_eq 4 "$(nruns "$STAT_al_runs")" "aligned bars ($STAT_al_runs)"
ts_assert_eq 27 "$(nruns "$STAT_mis_runs")" "misaligned bars ($STAT_mis_runs)"
ts_assert_eq "6 14 22 30" "$(run_index "$STAT_al_runs" "$STAT_mis_runs")" \
	"positions of the aligned bars among all bars"
# areas: 4 x 900 against 27 x ~304: about 0.44
awk -v a="$STAT_al_count" -v m="$STAT_mis_count" 'BEGIN { exit !(a / m > 0.38 && a / m < 0.50) }' ||
	ts_fail "aligned/misaligned pixel ratio $STAT_al_count/$STAT_mis_count, expected about 0.44"
# aligned bars are three times as high: their top is far above the others'
[ "$STAT_al_ymin" -lt $((STAT_mis_ymin - 150)) ] ||
	ts_fail "aligned bars top at y=$STAT_al_ymin, misaligned at y=$STAT_mis_ymin"
# not blank, not everything: ink between 10 % and 60 % of the plot area
awk -v n="$STAT_nonwhite" 'BEGIN { a = 720 * 338; exit !(n > a * 0.10 && n < a * 0.60) }' ||
	ts_fail "plot area ink $STAT_nonwhite pixels"
# the legend row holds both colours
stat_png "$TS_TMP/sweep.png" --region 0,30,720,58 al=$ALIGNED mis=$MISALIGNED
ts_assert_eq 1 "$(nruns "$STAT_al_runs")" "aligned legend swatch"
ts_assert_eq 1 "$(nruns "$STAT_mis_runs")" "misaligned legend swatch"
# period markers under the axis, one under each aligned bar
stat_png "$TS_TMP/sweep.png" --region 80,403,720,410 --tol 24 pm=$PERIOD al=$ALIGNED
ts_assert_eq 4 "$(nruns "$STAT_pm_runs")" "period markers ($STAT_pm_runs)"
stat_png "$TS_TMP/sweep.png" --region 0,62,720,400 al=$ALIGNED
for r in $(tr ',' ' ' <<< "$STAT_pm_runs"); do
	c=$(( (${r%-*} + ${r#*-}) / 2 ))
	awk -v c="$c" -v runs="$STAT_al_runs" 'BEGIN {
		n = split(runs, R, ","); for (i = 1; i <= n; i++) { split(R[i], b, "-");
		if (c >= b[1] && c <= b[2]) exit 0 } exit 1 }' ||
		ts_fail "period marker at x=$c is not under an aligned bar ($STAT_al_runs)"
done

# --- 2. a probe: median latency per offset, lowest aligned LBA 7 ---------
ts_subtest probe-chart
for k in $(seq 0 15); do
	if [ $((k % 8)) = 7 ]; then echo "$k 0.25 1"; else echo "$k 8.1 0"; fi
done > "$TS_TMP/probe.dat"
"$DEMO" bars "$TS_TMP/probe.svg" 8 7 "probe: physical 4096, lowest aligned LBA 7" \
	< "$TS_TMP/probe.dat" || ts_fail "plot_demo bars (probe) failed"
render "$TS_TMP/probe.svg" "$TS_TMP/probe.png"
stat_png "$TS_TMP/probe.png" --region 0,62,720,400 al=$ALIGNED mis=$MISALIGNED
ts_assert_eq 2 "$(nruns "$STAT_al_runs")" "fast offsets ($STAT_al_runs)"
ts_assert_eq 14 "$(nruns "$STAT_mis_runs")" "slow offsets"
ts_assert_eq "7 15" "$(run_index "$STAT_al_runs" "$STAT_mis_runs")" "positions of offsets 7 and 15"
# short fast bars (0.25 of 8.1: about 10 px of 330)
[ "$STAT_al_ymin" -gt 370 ] && [ "$STAT_mis_ymin" -lt 160 ] ||
	ts_fail "bar tops: fast y=$STAT_al_ymin, slow y=$STAT_mis_ymin"

# --- 3. seq: MB/s by block size per mode, one value missing --------------
ts_subtest seq-chart
{
	echo "4096 65536 1048576 16777216 268435456"
	echo "none 900 1500 1900 2000 2000"
	echo "dsync 20 120 nan 310 330"
	echo "direct 400 700 800 820 830"
} > "$TS_TMP/seq.dat"
"$DEMO" lines "$TS_TMP/seq.svg" "seq /tmp/x: MB/s by block size" < "$TS_TMP/seq.dat" ||
	ts_fail "plot_demo lines failed"
render "$TS_TMP/seq.svg" "$TS_TMP/seq.png"
# plot area only (the legend is right of x=590)
stat_png "$TS_TMP/seq.png" --region 70,40,590,400 s0='#1f77b4' s1='#ff7f0e' s2='#2ca02c'
ts_assert_eq 1 "$(nruns "$STAT_s0_runs")" "series none: one unbroken line"
ts_assert_eq 2 "$(nruns "$STAT_s1_runs")" "series dsync: a gap at the missing value ($STAT_s1_runs)"
ts_assert_eq 1 "$(nruns "$STAT_s2_runs")" "series direct: one unbroken line"
[ "$STAT_s0_ymin" -lt "$STAT_s2_ymin" ] && [ "$STAT_s2_ymin" -lt "$STAT_s1_ymin" ] ||
	ts_fail "line heights: none $STAT_s0_ymin, direct $STAT_s2_ymin, dsync $STAT_s1_ymin"
stat_png "$TS_TMP/seq.png" --region 590,40,760,120 s0='#1f77b4' s1='#ff7f0e' s2='#2ca02c'
for s in 0 1 2; do
	v=STAT_s${s}_count
	[ "${!v}" -gt 20 ] || ts_fail "legend entry of series $s missing"
done

# the same on a log y axis: the slow modes leave the floor (direct's 830 MB/s
# at y < 200 of 40..402; a linear axis puts it near 260, dsync's 20 near 400)
"$DEMO" lines "$TS_TMP/seqlog.svg" "seq, log scale" logy < "$TS_TMP/seq.dat" ||
	ts_fail "plot_demo lines logy failed"
grep -q '(log scale)</text>' "$TS_TMP/seqlog.svg" || ts_fail "log y axis not labelled"
render "$TS_TMP/seqlog.svg" "$TS_TMP/seqlog.png"
stat_png "$TS_TMP/seqlog.png" --region 70,40,590,400 s0='#1f77b4' s1='#ff7f0e' s2='#2ca02c'
ts_assert_eq 2 "$(nruns "$STAT_s1_runs")" "log axis: series dsync still has its gap"
[ "$STAT_s2_ymin" -lt 200 ] || ts_fail "log axis: direct's top at y=$STAT_s2_ymin, expected < 200"

# --- 4. no data at all: a valid picture that says so, no bars ------------
ts_subtest no-data
"$DEMO" bars "$TS_TMP/empty.svg" 0 0 "no results" < /dev/null || ts_fail "plot_demo bars (empty) failed"
grep -q '>no data</text>' "$TS_TMP/empty.svg" || ts_fail "empty chart does not say 'no data'"
render "$TS_TMP/empty.svg" "$TS_TMP/empty.png"
stat_png "$TS_TMP/empty.png" --region 0,62,720,400 al=$ALIGNED mis=$MISALIGNED
ts_assert_eq "0 0" "$STAT_al_count $STAT_mis_count" "bars in an empty chart"
[ "$STAT_nonwhite" -gt 500 ] || ts_fail "empty chart has no axes or text"


# --- 5. the real command: sweep --replay of saved results (no device) ----
# sweep-4096-0.json: `alignprobe sweep --emulate=rmw=300us --starts 36..52
# --save`, verdict 4096-byte sectors, lowest aligned LBA 0
ts_subtest sweep-replay-plot
"$ALIGNPROBE" sweep --replay "$top_srcdir/tests/ts/output/sweep-4096-0.json" \
	--plot "$TS_TMP/replay.svg" > "$TS_TMP/replay.out" 2>&1 ||
	ts_fail "sweep --replay --plot failed: $(cat "$TS_TMP/replay.out")"
grep -q '4096' "$TS_TMP/replay.svg" || ts_fail "the verdict is not in the chart's title"
render "$TS_TMP/replay.svg" "$TS_TMP/replay.png"
top=$(plot_top "$TS_TMP/replay.svg")
[ -n "$top" ] || ts_fail "no y axis found in the sweep's chart"
stat_png "$TS_TMP/replay.png" --region 0,$((top - 4)),720,400 al=$ALIGNED mis=$MISALIGNED
ts_assert_eq 2 "$(nruns "$STAT_al_runs")" "sweep: aligned starts 40 and 48 ($STAT_al_runs)"
ts_assert_eq 15 "$(nruns "$STAT_mis_runs")" "sweep: misaligned starts"
ts_assert_eq "4 12" "$(run_index "$STAT_al_runs" "$STAT_mis_runs")" "sweep: positions of 40 and 48 in 36..52"
[ "$STAT_al_ymin" -lt "$STAT_mis_ymin" ] || ts_fail "sweep: aligned starts are not the fastest"
stat_png "$TS_TMP/replay.png" --region 80,403,720,410 --tol 24 pm=$PERIOD
ts_assert_eq 2 "$(nruns "$STAT_pm_runs")" "sweep: period markers under 40 and 48"

ts_expect_done
