#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# fuzz/seeds_pmconfig.sh OUTDIR: the seed corpus of the pmconfig harness:
# classic PostMark configurations (as published with alignment studies),
# every command and setting once, the extensions, and a few broken files.
set -eu
out=${1:?usage: seeds_pmconfig.sh OUTDIR}
mkdir -p "$out"

cat > "$out/classic.pm" <<'P'
set location /mnt/test
set number 262144
set transactions 65536
set size 512 2048
set read 1024
set write 1024
set buffering false
set seed 12345678
run
quit
P
cat > "$out/classic-4096.pm" <<'P'
set number 262144
set transactions 4096
set size 512 2048
set read 1024
set write 1024
set buffering false
set seed 12345678
run /tmp/report.txt
show
quit
P
cat > "$out/everything.pm" <<'P'
# every setting
set size 500 10000
set number 500
set seed 42
set transactions 500
set location /a 100
set location /b
set subdirectories 10
set read 512
set write 512
set buffering true
set bias read 5
set bias create -1
set report terse
set report verbose
show
help
help set
run
set transactions 1000
run
quit
P
cat > "$out/extensions.pm" <<'P'
set sync fsync
set sync fdatasync
set sync dsync
set sync direct
set data random
set data zero
set drop-caches true
run
P
cat > "$out/tiny.pm" <<'P'
set number 8
set transactions 16
set size 512 2048
run
P
printf 'load nosuchfile\nrun\n' > "$out/load.pm"
printf 'set size 10000 500\nset number -1\nset number 99999999999999999999\nrun\n' > "$out/bad-values.pm"
printf 'set\nset bias\nset location\nbogus command\n' > "$out/bad-commands.pm"
printf 'set number 1\r\nrun\r\n' > "$out/crlf.pm"
printf 'set number 1' > "$out/no-newline.pm"
printf 'set number 1\0\nrun\n' > "$out/nul.pm"
