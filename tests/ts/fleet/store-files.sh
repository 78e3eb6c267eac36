#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The verdict store as a file (no device needed): one file under every
# name (a merge through a symbolic link locks and replaces the file the
# link points to, and the link stays a link, also a dangling one), one
# size limit for reading and writing (a merge that would write a store too
# large to read back is refused and writes nothing), the exit statuses of
# the errno table (a newer store, a directory), and the store's content
# kept: fields this alignprobe does not know, names that print alike,
# control characters and UTF-8 in what list and show print. Each case
# failed on d7e4e2c (issue 31, items 2, 10, 13, 14).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "verdict store files: links, locks, size limit, exit statuses, content kept"
ts_untimed "verdict stores, metrics and units from recorded results"
ts_need_cmd jq flock python3

A=$ALIGNPROBE
W=$TS_TMP/w
mkdir -p "$W"

# one_model FILE MODEL [VENDOR] [REVISION]: a store holding one model
one_model() {
	jq -n --arg m "$2" --arg v "${3-ATA}" --arg r "${4-0001}" '{format: "alignprobe-verdicts",
		version: 1, models: [{vendor: (if $v == "" then null else $v end), model: $m,
		revision: (if $r == "" then null else $r end), verdicts: [{logical_sector: 512,
		physical_sector: 4096, lowest_aligned_lba: 0, sensitive: true, examples: [{serial: "S1",
		wwn: null, device: "/dev/sdb", host: "h", source: "probe",
		recorded: "2026-11-30T10:00:00Z", confidence: 0.99, runs: 1}]}]}]}' > "$1"
}

# ---- item 2: the lock follows the file, not the name ----
ts_subtest link-locks-target
D=$W/lock1
mkdir -p "$D"
one_model "$D/src.json" M0
one_model "$D/store.json" BASE
ln -s store.json "$D/link.json"
ts_run_rc 0 "$A" verdicts merge -q --store "$D/link.json" "$D/src.json"
[ -L "$D/link.json" ] || ts_fail "the link was replaced by a file"
[ ! -e "$D/link.json.lock" ] || ts_fail "the merge locked link.json.lock, not the file it writes"
[ -e "$D/store.json.lock" ] || ts_fail "store.json.lock was not taken"
jq -e '[.models[].model] == ["BASE", "M0"]' "$D/store.json" >/dev/null ||
	ts_fail "the merge through the link: $(cat "$D/store.json")"

ts_subtest link-concurrent-merges
D=$W/lock2
mkdir -p "$D"
one_model "$D/store.json" BASE
ln -s "$D/store.json" "$D/link.json"
for i in $(seq 1 20); do one_model "$D/m$i.json" "MODEL-$i"; done
# hold both names' locks, start 20 merges (10 through each name), wait until
# all 20 wait for a lock, release both at once
exec {l1}> "$D/store.json.lock" {l2}> "$D/link.json.lock"
flock -x "$l1" && flock -x "$l2" || ts_fail "cannot take the locks"
inos="$(stat -c %i "$D/store.json.lock")|$(stat -c %i "$D/link.json.lock")"
blocked() { [ "$(grep -cE -- "-> FLOCK .*:($inos) " /proc/locks)" -ge "$1" ]; }
pids=()
for i in $(seq 1 20); do
	name=$D/store.json
	[ $((i % 2)) = 0 ] && name=$D/link.json
	"$A" verdicts merge -q --store "$name" "$D/m$i.json" > "$D/out$i" 2>&1 {l1}>&- {l2}>&- &
	pids+=($!)
done
ts_wait_for "20 merges waiting for a lock" blocked 20
exec {l1}>&- {l2}>&-
for p in "${pids[@]}"; do wait "$p" || { cat "$D"/out* >&2; ts_fail "a merge failed"; }; done
[ -L "$D/link.json" ] || ts_fail "the link was replaced by a file"
ts_assert_eq 21 "$(jq '.models | length' "$D/store.json")" "models after 20 concurrent merges"

ts_subtest dangling-link
D=$W/dangling
mkdir -p "$D/real"
one_model "$D/src.json" M1
ln -s real/store.json "$D/link.json"
ts_run_rc 0 "$A" verdicts merge -q --store "$D/link.json" "$D/src.json"
[ -L "$D/link.json" ] || ts_fail "a dangling link was replaced by a plain file"
jq -e '[.models[].model] == ["M1"]' "$D/real/store.json" >/dev/null ||
	ts_fail "the link's target was not created"
# forget through the link: the link stays
ts_run_rc 0 "$A" verdicts forget -q --store "$D/link.json" M1
[ -L "$D/link.json" ] || ts_fail "forget replaced the link by a file"
jq -e '.models == []' "$D/real/store.json" >/dev/null || ts_fail "forget through the link"
# a link into a directory that does not exist: an error naming it, nothing created
ln -s nowhere/store.json "$D/bad.json"
ts_run_rc 2 "$A" verdicts merge -q --store "$D/bad.json" "$D/src.json"
grep -qF "$D/bad.json: cannot create the lock $D/nowhere/store.json.lock" "$TS_TMP/err" || ts_fail "bad link: $(cat "$TS_TMP/err")"
[ -L "$D/bad.json" ] && [ ! -e "$D/nowhere" ] || ts_fail "the bad link was changed"

# ---- item 13: the errno table's statuses ----
ts_subtest newer-store-status
jq '.version = 2' "$W/lock1/store.json" > "$W/newer.json"
for act in "merge -q --store $W/newer.json $W/lock1/src.json" "forget -q --store $W/newer.json M0" \
	"list --verdicts $W/newer.json"; do
	# shellcheck disable=SC2086
	ts_run_rc 2 "$A" verdicts $act
	grep -qF "written by a newer alignprobe" "$TS_TMP/err" || ts_fail "$act: $(cat "$TS_TMP/err")"
done
ts_subtest directory-store-status
mkdir -p "$W/adir"
ts_run_rc 2 "$A" verdicts merge -q --store "$W/adir" "$W/lock1/src.json"
ts_run_rc 2 "$A" verdicts forget -q --store "$W/adir" M0
ts_run_rc 2 "$A" verdicts list --verdicts "$W/adir"

# ---- item 14: the store's content, as it is ----
ts_subtest forget-alike
# three models whose names print alike: "ATA Foo 0001"
S=$W/alike.json
one_model "$W/a1.json" Foo ATA 0001
one_model "$W/a2.json" "ATA Foo" "" 0001
one_model "$W/a3.json" "Foo 0001" ATA ""
ts_run_rc 0 "$A" verdicts merge -q --store "$S" "$W/a1.json" "$W/a2.json" "$W/a3.json"
sum=$(ts_checksum "$S")
ts_run_rc 2 "$A" verdicts forget --store "$S" 'ATA Foo 0001'
grep -qF "ATA Foo 0001: names 3 models that print alike ('ATA:Foo:0001', ':ATA Foo:0001', 'ATA:Foo 0001:')" \
	"$TS_TMP/err" || ts_fail "alike: $(cat "$TS_TMP/err")"
ts_assert_eq "$sum" "$(ts_checksum "$S")" "the store after a refused forget"
ts_run_rc 0 "$A" verdicts forget --store "$S" ':ATA Foo:0001'
ts_assert_eq "$S: forgot ATA Foo 0001" "$(cat "$TS_TMP/out")" "forget by key"
jq -e '[.models[] | [.vendor, .model, .revision]] == [["ATA", "Foo", "0001"], ["ATA", "Foo 0001", null]]' \
	"$S" >/dev/null || ts_fail "forget by key removed another: $(cat "$S")"

ts_subtest show-control-characters
S=$W/ctl.json
one_model "$S" "$(printf 'EVIL\033[2J\rX')" "$(printf 'V\a')"
ts_run_rc 0 "$A" verdicts show --verdicts "$S" "$(printf 'EVIL\033[2J\rX')"
LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$TS_TMP/out" &&
	ts_fail "show printed control characters: $(od -c "$TS_TMP/out" | head)"
grep -qF 'Model: V\x07 EVIL\x1b[2J\x0dX 0001' "$TS_TMP/out" || ts_fail "show: $(cat "$TS_TMP/out")"

ts_subtest list-utf8
S=$W/utf8.json
one_model "$S" "Dürr ΣSSD" "Ünicode" 0001
if LC_ALL=C.UTF-8 locale -k LC_CTYPE 2>/dev/null | grep -q 'charmap="UTF-8"'; then
	LC_ALL=C.UTF-8 ts_run_rc 0 "$A" verdicts list -n -o NAME --verdicts "$S"
	ts_assert_eq "Ünicode Dürr ΣSSD 0001" "$(cat "$TS_TMP/out")" "list under C.UTF-8"
	LC_ALL=C.UTF-8 ts_run_rc 0 "$A" verdicts show --verdicts "$S" "Dürr ΣSSD"
	grep -qF "Model: Ünicode Dürr ΣSSD 0001" "$TS_TMP/out" || ts_fail "show: $(cat "$TS_TMP/out")"
else
	ts_subtest_skip "no C.UTF-8 locale"
fi

ts_subtest unknown-fields-kept
S=$W/unknown.json
one_model "$W/u.json" KEEP
jq '.future = {"a": 1} | .models[0].tier = "gold" | .models[0].verdicts[0].zones = [4096, 65536]
	| .models[0].verdicts[0].examples[0].slot = 7' "$W/u.json" > "$S"
one_model "$W/u2.json" OTHER
ts_run_rc 0 "$A" verdicts merge -q --store "$S" "$W/u2.json"
jq -e '.future == {"a": 1} and .models[0].tier == "gold"
	and .models[0].verdicts[0].zones == [4096, 65536]
	and .models[0].verdicts[0].examples[0].slot == 7 and (.models | length) == 2' "$S" >/dev/null ||
	ts_fail "unknown fields dropped: $(cat "$S")"
# a source's unknown fields come along with its model
ts_run_rc 0 "$A" verdicts merge -q --store "$W/fresh.json" "$S"
jq -e '.models[0].tier == "gold" and .models[0].verdicts[0].zones == [4096, 65536]' \
	"$W/fresh.json" >/dev/null || ts_fail "a source's unknown fields: $(cat "$W/fresh.json")"

ts_subtest null-store
printf null > "$W/null.json"
ts_run_rc 2 "$A" verdicts list --verdicts "$W/null.json"
grep -qF "$W/null.json: the document is JSON null" "$TS_TMP/err" ||
	ts_fail "a null store: $(cat "$TS_TMP/err")"

# ---- item 10: one size limit both ways ----
ts_subtest size-limit
# two sources of 30,000 models each (about 40 MB each): one merges, the
# second would make the store larger than the 64 MiB alignprobe reads
python3 - "$W/big1.json" "$W/big2.json" <<'EOF'
import json, sys
pad = "p" * 1000
for f, part in ((sys.argv[1], "A"), (sys.argv[2], "B")):
    models = [{"vendor": "ATA", "model": "BIG-%s-%05d" % (part, i), "revision": "1",
               "verdicts": [{"logical_sector": 512, "physical_sector": 4096,
                             "lowest_aligned_lba": 0, "sensitive": True,
                             "examples": [{"serial": "S%d" % i, "wwn": None,
                                           "device": "/dev/disk/" + pad, "host": "h",
                                           "source": "probe",
                                           "recorded": "2026-11-30T10:00:00Z",
                                           "confidence": 0.99, "runs": 1}]}]}
              for i in range(30000)]
    with open(f, "w") as o:
        json.dump({"format": "alignprobe-verdicts", "version": 1, "models": models}, o)
EOF
big=$W/big.json
ts_run_rc 0 "$A" verdicts merge -q --store "$big" "$W/big1.json"
sum=$(ts_checksum "$big")
ts_run_rc 2 "$A" verdicts merge -q --store "$big" "$W/big2.json"
grep -qF "more than the 64 MiB" "$TS_TMP/err" || ts_fail "too large: $(cat "$TS_TMP/err")"
ts_assert_eq "$sum" "$(ts_checksum "$big")" "the store after a refused merge"
ls -A "$W" | grep -q '^\.big' && ts_fail "a temporary file was left: $(ls -A "$W")"
ts_run_rc 0 "$A" verdicts list -n -o NAME --verdicts "$big"
ts_assert_eq 30000 "$(wc -l < "$TS_TMP/out")" "models listed"
rm -f "$W"/big*

ts_pass
