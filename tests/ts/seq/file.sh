#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# seq on a regular file: a missing file is created and removed (kept with
# --keep), an existing one is never truncated and only its first SIZE bytes
# change, every planned cell is in the JSON document, bad input exits 2.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "seq on a regular file"
ts_need_cmd jq

f=$TS_TMP/new.img
common=(--size 256K --block-sizes 4K,64K,256K --cell-time 0 -q)

# a missing file: created, measured, removed
ts_run_rc 0 "$ALIGNPROBE" seq "${common[@]}" --json "$f"
[ -e "$f" ] && ts_fail "the file this run created was not removed"
jq -e . "$TS_TMP/out" >/dev/null || ts_fail "invalid JSON"
ts_assert_eq "$f" "$(jq -r .target "$TS_TMP/out")" "target"
ts_assert_eq 18 "$(jq '.cells | length' "$TS_TMP/out")" "6 modes x 3 block sizes"
ts_assert_eq 0 "$(jq '[.cells[] | select(.runs != 1 or .bytes != 262144 or .mbps <= 0)] | length' "$TS_TMP/out")" \
	"every cell ran once over 256K"
ts_assert_eq false "$(jq '[.cells[] | select(.mode == "none")][0].stable' "$TS_TMP/out")" "none is not stable"
ts_assert_eq true "$(jq '[.cells[] | select(.mode == "fdatasync")][0].stable' "$TS_TMP/out")" "fdatasync is stable"
ts_assert_eq 6 "$(jq '.knees | length' "$TS_TMP/out")" "a knee per mode"
ts_assert_eq 6 "$(jq '[.cells[] | select(.knee)] | length' "$TS_TMP/out")" "one knee cell per mode"
ts_assert_eq 64 "$(jq '[.cells[] | select(.mode == "dsync" and .bs == 4096)][0].ios' "$TS_TMP/out")" "4K ios"
jq -e '.write_cache | has("sysfs") and has("drive")' "$TS_TMP/out" >/dev/null || ts_fail "write_cache keys"
jq -e '.write_cache.drive | startswith("not available")' "$TS_TMP/out" >/dev/null ||
	ts_fail "a file has no drive write cache state"

# --keep keeps it; --verify reads every write back
ts_run_rc 0 "$ALIGNPROBE" seq "${common[@]}" --keep --verify --modes none,direct "$f"
[ -f "$f" ] || ts_fail "--keep did not keep the file"
grep -q '^none ' "$TS_TMP/out" || ts_fail "no none row in the table"
grep -q 'NOT on stable storage' "$TS_TMP/out" || ts_fail "the table does not say none is not stable"
rm -f "$f"

# a pool smaller than the size: the data repeats, --verify still matches
ts_run_rc 0 "$ALIGNPROBE" seq "${common[@]}" --block-sizes 4K,64K --keep --verify --pool 64K --modes fdatasync --json "$f"
ts_assert_eq 65536 "$(jq .pool "$TS_TMP/out")" "pool in the JSON document"
ts_assert_eq "$(head -c 64K "$f" | sha256sum)" "$(tail -c +65537 "$f" | head -c 64K | sha256sum)" \
	"the data repeats with the pool's period"
ts_assert_eq 262144 "$(stat -c %s "$f")" "size of the kept file"
rm -f "$f"

# an existing file is never truncated; bytes after SIZE stay
g=$TS_TMP/existing.img
head -c 3M /dev/urandom > "$g"
tail_sum=$(tail -c +1048577 "$g" | sha256sum)
ts_run_rc 0 "$ALIGNPROBE" seq -q --size 1M --block-sizes 64K,1M --modes none,fdatasync --data zero -r -n "$g"
ts_assert_eq 3145728 "$(stat -c %s "$g")" "size of an existing file"
ts_assert_eq "$tail_sum" "$(tail -c +1048577 "$g" | sha256sum)" "bytes after --size"
ts_assert_eq "$(head -c 1M /dev/zero | sha256sum)" "$(head -c 1M "$g" | sha256sum)" "the region holds what was written"
ts_assert_eq 4 "$(wc -l < "$TS_TMP/out")" "raw rows without headings"
# the default size is capped by an existing file
ts_run_rc 0 "$ALIGNPROBE" seq -q --modes none --block-sizes 1M --csv -o MODE,BYTES -b "$g"
ts_assert_eq "MODE,BYTES
none,3145728" "$(cat "$TS_TMP/out")" "csv of a capped run"
ts_assert_eq 3145728 "$(stat -c %s "$g")" "size after a default-size run"

# --dry-run writes and creates nothing
ts_run_rc 0 "$ALIGNPROBE" seq --dry-run --size 1M "$f"
[ -e "$f" ] && ts_fail "--dry-run created the file"
grep -q 'nothing was written' "$TS_TMP/out" || ts_fail "--dry-run does not say so"

# a plot
ts_run_rc 0 "$ALIGNPROBE" seq "${common[@]}" --plot "$TS_TMP/p.svg" "$f"
grep -q '<svg' "$TS_TMP/p.svg" || ts_fail "no SVG written"
grep -q 'dsync' "$TS_TMP/p.svg" || ts_fail "the SVG does not name the modes"

# bad input: exit 2, nothing created
ts_run_rc 2 "$ALIGNPROBE" seq --block-sizes 1000 "$f"
grep -q 'multiple of 512' "$TS_TMP/err" || ts_fail "no reason for a bad block size"
ts_run_rc 2 "$ALIGNPROBE" seq --modes dsync,bogus "$f"
grep -q "bogus" "$TS_TMP/err" || ts_fail "the bad mode is not named"
ts_run_rc 2 "$ALIGNPROBE" seq --size 4M "$g"
grep -q 'beyond its end' "$TS_TMP/err" || ts_fail "no reason for a size beyond the end"
ts_run_rc 2 "$ALIGNPROBE" seq "$TS_TMP"
ts_run_rc 2 "$ALIGNPROBE" seq
ts_run_rc 2 "$ALIGNPROBE" seq --rounds 0 "$f"
ts_run_rc 2 "$ALIGNPROBE" seq --pool 1000 "$f"
ts_run_rc 2 "$ALIGNPROBE" seq --cell-time 5 "$f"
ts_run_rc 2 "$ALIGNPROBE" seq --json --raw "$f"
ts_run_rc 2 "$ALIGNPROBE" seq --size 1K "$f"
[ -e "$f" ] && ts_fail "a refused run left the file behind"
ts_assert_eq 3145728 "$(stat -c %s "$g")" "size after refused runs"
ts_run_rc 0 "$ALIGNPROBE" seq --help
grep -q Usage "$TS_TMP/out" || ts_fail "--help without Usage"
ts_pass
