#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What postmark prints without running the workload: the settings of
# configuration files that `show` and `quit` (PostMark's commands), its
# `help`, and the refusals of bad files and options (nothing created), with
# their exit status, byte for byte as in tests/expected/postmark/output-*.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "postmark settings and refusals as expected"
mkdir -p "$TS_TMP/work/pm" && cd "$TS_TMP/work" || exit 99

A=$ALIGNPROBE
printf 'show\nquit\n' > show.pmrc
cat > settings.pmrc <<'EOT'
set size 100 200
set number 10
set seed 7
set transactions 30
set location pm
set subdirectories 3
set read 1024
set write 2048
set buffering false
set bias read 3
set bias create -1
set report terse
show
quit
EOT
cat > extensions.pmrc <<'EOT'
set size 1000
set sync fdatasync
set data random
show
quit
EOT
printf 'load settings.pmrc\nset number 20\nshow\nquit\n' > load.pmrc
printf 'help\nquit\n' > help.pmrc
printf 'set size 100\nset bogus 1\nrun\n' > unknown.pmrc
printf 'set number -1\n' > bad-number.pmrc
printf 'set size 200 100\nshow\nquit\n' > bad-size.pmrc
printf 'set location %s\nshow\nquit\n' nonexistent > bad-location.pmrc
printf 'set sync sometimes\n' > bad-sync.pmrc
printf 'set bias read 11\n' > bad-bias.pmrc
: > empty.pmrc

ts_expect_run show-defaults "$A" postmark show.pmrc
ts_expect_run show-settings "$A" postmark settings.pmrc
ts_expect_run show-extensions "$A" postmark extensions.pmrc
ts_expect_run show-load "$A" postmark load.pmrc
ts_expect_run show-options "$A" postmark -S 4294967295 -s 1000 -N 3 -t 4 -l pm -d 2 \
	--read-block 4096 --write-block 4096 --buffering no --bias-read -1 --bias-create 10 \
	--sync fsync --data zeros show.pmrc
ts_expect_run show-two-locations "$A" postmark -l pm=3 -l .=1 show.pmrc
ts_expect_run show-options-override "$A" postmark -N 99 -s 10:20 settings.pmrc
ts_expect_run help "$A" postmark help.pmrc

# bad configuration files: exit 2, nothing created
ts_expect_run config-unknown-command "$A" postmark unknown.pmrc
ts_expect_run config-bad-number "$A" postmark bad-number.pmrc
ts_expect_run config-bad-size "$A" postmark bad-size.pmrc
ts_expect_run config-bad-location "$A" postmark bad-location.pmrc
ts_expect_run config-bad-sync "$A" postmark bad-sync.pmrc
ts_expect_run config-bad-bias "$A" postmark bad-bias.pmrc
ts_expect_run config-missing "$A" postmark nonexistent.pmrc
ts_expect_run config-directory "$A" postmark pm
ts_expect_run config-second-bad "$A" postmark show.pmrc unknown.pmrc

# bad options: exit 2, nothing created
ts_expect_run bad-number "$A" postmark -N 0 show.pmrc
ts_expect_run bad-number-large "$A" postmark -N 2147483649 show.pmrc
ts_expect_run bad-size "$A" postmark -s 10:5 show.pmrc
ts_expect_run bad-sync "$A" postmark --sync bogus show.pmrc
ts_expect_run bad-data "$A" postmark --data foo show.pmrc
ts_expect_run bad-seed "$A" postmark -S 0 show.pmrc
ts_expect_run bad-seed-large "$A" postmark -S 4294967296 show.pmrc
ts_expect_run bad-location "$A" postmark -l nonexistent/dir show.pmrc
ts_expect_run bad-location-weight "$A" postmark -l pm=0 show.pmrc
ts_expect_run bad-buffering "$A" postmark --buffering maybe show.pmrc
ts_expect_run bad-bias-read "$A" postmark --bias-read 11 show.pmrc
ts_expect_run json-and-terse "$A" postmark -J --terse show.pmrc

[ -z "$(ls -A pm)" ] || ts_fail "postmark left files in pm: $(ls pm)"
ts_expect_done
