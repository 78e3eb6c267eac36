#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# verdicts merge of N models into a store of N (half of them the same),
# two binaries side by side: the time of each merge, alternating old and
# new so that drift hits both, and the median of each. A scan per model
# made the merge quadratic (43 s for 60,000 models on d7e4e2c); the merge
# looks models up by key now.
#
#	bench/vstore-merge.sh OLD NEW [N [ROUNDS]]	(OLD, NEW: alignprobe binaries)
set -u
[ $# -ge 2 ] || { echo "usage: bench/vstore-merge.sh OLD NEW [N [ROUNDS]]" >&2; exit 2; }
old=$1 new=$2 n=${3:-30000} rounds=${4:-3}
export LC_ALL=C
for b in "$old" "$new"; do
	[ -x "$b" ] || { echo "bench/vstore-merge.sh: $b: not executable" >&2; exit 2; }
done
command -v python3 >/dev/null || { echo "bench/vstore-merge.sh: needs python3" >&2; exit 77; }
tmp=$(mktemp -d /tmp/alignprobe-bench-vstore.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP

# stores: base.json models 0..N-1, src.json models N/2..N/2+N-1
python3 - "$tmp" "$n" <<'EOF'
import json, sys
d, n = sys.argv[1], int(sys.argv[2])
def store(lo, tag):
    return {"format": "alignprobe-verdicts", "version": 1, "models": [
        {"vendor": "ATA", "model": "M%07d" % i, "revision": "1", "verdicts": [
            {"logical_sector": 512, "physical_sector": 4096, "lowest_aligned_lba": 0,
             "sensitive": True, "examples": [{"serial": "%s%d" % (tag, i), "wwn": None,
             "device": "/dev/sdb", "host": "h", "source": "probe",
             "recorded": "2026-12-01T08:00:00Z", "confidence": 0.99, "runs": 1}]}]}
        for i in range(lo, lo + n)]}
json.dump(store(0, "B"), open(d + "/base.json", "w"))
json.dump(store(n // 2, "S"), open(d + "/src.json", "w"))
EOF

# run BINARY: seconds of one merge into a fresh copy of base.json
run() {
	local t0 t1
	cp "$tmp/base.json" "$tmp/store.json"
	rm -f "$tmp/store.json.lock"
	t0=$(date +%s.%N)
	"$1" verdicts merge -q --store "$tmp/store.json" "$tmp/src.json" ||
		{ echo "bench/vstore-merge.sh: $1 failed" >&2; exit 1; }
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

: > "$tmp/old.t"
: > "$tmp/new.t"
for r in $(seq 1 "$rounds"); do
	run "$old" >> "$tmp/old.t"
	run "$new" >> "$tmp/new.t"
done
mo=$(median < "$tmp/old.t")
mn=$(median < "$tmp/new.t")
printf 'verdicts merge of %d models into %d (%d new), %d rounds, median seconds\n' \
	"$n" "$n" $((n / 2)) "$rounds"
printf '  old %-50s %8.2f  (%s)\n' "$old" "$mo" "$(paste -sd ' ' "$tmp/old.t")"
printf '  new %-50s %8.2f  (%s)\n' "$new" "$mn" "$(paste -sd ' ' "$tmp/new.t")"
awk -v o="$mo" -v n="$mn" 'BEGIN { if (n > 0) printf "  old/new %.1fx\n", o / n }'
