#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The shipped alerting rules (contrib/prometheus/alignprobe.rules.yml) on the
# real output of check and probe: promtool check rules, then promtool test
# rules fed with the files this test makes for three "hosts" (a label
# instance each, as node_exporter's scrape adds): one healthy, one with a
# misaligned disk, a table for 4096-byte sectors (exit 7, check_success 1),
# a disk that does not exist and a corrupt verdict store, one with no store
# at all; plus a probe's file. At 10 minutes exactly the faults fire; at 3
# hours the check of every disk is stale (its timestamps set to the test
# clock's 0), the probe's timestamp never is, and node_exporter's
# node_textfile_mtime_seconds of an old alignprobe.prom fires too.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "alignprobe.rules.yml: promtool check rules, promtool test rules on real output"
ts_need_emulator
ts_need_cmd promtool sfdisk parted python3

rules=$top_srcdir/contrib/prometheus/alignprobe.rules.yml
[ -f "$rules" ] || rules=/usr/share/alignprobe/prometheus/alignprobe.rules.yml
promtool check rules "$rules" > "$TS_TMP/check.out" 2>&1 ||
	{ cat "$TS_TMP/check.out" >&2; ts_fail "promtool check rules $rules"; }

mkdir -p "$TS_TMP/lib"
ts_image "$TS_TMP/aligned.img" 64M
ts_image "$TS_TMP/mis.img" 64M
printf 'label: gpt\nstart=2048,size=20480\n' |
	sfdisk -q --no-reread --no-tell-kernel "$TS_TMP/aligned.img" >/dev/null || ts_fail "sfdisk"
printf 'label: dos\nstart=63,size=20480\n' |
	sfdisk -q --no-reread --no-tell-kernel "$TS_TMP/mis.img" >/dev/null || ts_fail "sfdisk"
al=$(ts_loop_attach "$TS_TMP/aligned.img")
mis=$(ts_loop_attach "$TS_TMP/mis.img")
ts_image "$TS_TMP/foreign.img" 32M
f4k=$(ts_loop_attach "$TS_TMP/foreign.img" -b 4096)
parted -s "$f4k" mklabel gpt mkpart primary 1MiB 16MiB >/dev/null 2>&1 || ts_fail "parted -b 4096"
blockdev --flushbufs "$f4k" 2>/dev/null
fgn=$(ts_loop_attach "$TS_TMP/foreign.img")
echo '{"format": "alignprobe-verdicts", "version": 1, "models": []}' > "$TS_TMP/lib/ok.json"
echo '{"format": "alignprobe-verdicts", "version": 1, "models": [' > "$TS_TMP/lib/corrupt.json"

ts_run_rc 0 "$ALIGNPROBE" check -q --verdicts="$TS_TMP/lib/ok.json" --prometheus "$TS_TMP/good.prom" "$al"
ts_run_rc 2 "$ALIGNPROBE" check -q --verdicts="$TS_TMP/lib/corrupt.json" --prometheus \
	"$TS_TMP/bad.prom" "$mis" "$fgn" "$TS_TMP/none.img"
ts_run_rc 2 "$ALIGNPROBE" check -q --verdicts="$TS_TMP/lib/none.json" --prometheus \
	"$TS_TMP/nostore.prom" "$al"
# (a disk's request cost: a drive that charges none times the host's block
# allocation in its sparse image, which CI once took for a 2 MiB unit: exit 5)
ts_run_rc 0 "$ALIGNPROBE" probe -q --emulate=simple,base=300us --prometheus "$TS_TMP/probe.prom"
probed=$(sed -n 's/^alignprobe_probe_success{device="\([^"]*\)"} 1$/\1/p' "$TS_TMP/probe.prom")
[ -n "$probed" ] || { cat "$TS_TMP/probe.prom" >&2; ts_fail "probe: no successful probe in its file"; }

# the unit test: input series from the files, the alerts expected
python3 - "$rules" "$TS_TMP" "$al" "$mis" "$fgn" "$TS_TMP/none.img" "$probed" \
	> "$TS_TMP/test.yml" <<'PY' || ts_fail "writing the promtool test"
import json, sys
rules, tmp, al, mis, fgn, none, probed = sys.argv[1:]
series = []
def load(host, path):
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        s, v = line.rstrip("\n").rsplit(" ", 1)
        if s.startswith("alignprobe_last_run_timestamp_seconds"):
            v = "0"    # examined at the test clock's 0
        lab = 'instance="%s"' % host
        s = s[:-1] + "," + lab + "}" if s.endswith("}") else s + "{" + lab + "}"
        series.append({"series": s, "values": "%s+0x200" % v})
hosts = {"good": "good.prom", "bad": "bad.prom", "nostore": "nostore.prom", "prober": "probe.prom"}
for h, f in hosts.items():
    load(h, tmp + "/" + f)
series.append({"series": 'node_textfile_mtime_seconds{file="/var/lib/prometheus/node-exporter/alignprobe.prom",instance="good"}', "values": "0+0x200"})
series.append({"series": 'node_textfile_mtime_seconds{file="/var/lib/prometheus/node-exporter/smartmon.prom",instance="good"}', "values": "0+0x200"})

def alert(labels, summary):
    l = dict(labels)
    return {"exp_labels": l, "exp_annotations": {"summary": summary}}
W = {"severity": "warning"}
store = lambda h, path, state: alert(dict(W, instance=h, store=path, state=state),
    "%s: the verdict store %s is %s; disks are checked without it" % (h, path, state))
at10 = {
    "AlignprobePartitionMisaligned": [alert(dict(W, instance="bad", device=mis, partition="1"),
        "bad: %s partition 1 is misaligned" % mis)],
    "AlignprobeForeignSectorSize": [alert(dict(W, instance="bad", device=fgn),
        "bad: the partition table of %s was written for another logical sector size" % fgn)],
    "AlignprobeCheckFailed": [alert(dict(W, instance="bad", device=none),
        "bad: alignprobe check could not judge %s" % none)],
    "AlignprobeVerdictStoreBroken": [store("bad", tmp + "/lib/corrupt.json", "corrupt"),
                                     store("nostore", tmp + "/lib/none.json", "missing")],
    "AlignprobeVerdictConflict": [],
    "AlignprobeCheckStale": [],
    "AlignprobeTextfileStale": [],
}
checked = [("good", al), ("bad", mis), ("bad", fgn), ("bad", none), ("nostore", al)]
at3h = dict(at10)
at3h["AlignprobeCheckStale"] = [alert(dict(W, instance=h, device=d, command="check"),
    "%s: alignprobe check has not examined %s for over 2 hours" % (h, d)) for h, d in checked]
at3h["AlignprobeTextfileStale"] = [alert(dict(W, instance="good",
    file="/var/lib/prometheus/node-exporter/alignprobe.prom"),
    "good: /var/lib/prometheus/node-exporter/alignprobe.prom has not been rewritten for over 2 hours")]
tests = []
for t, exp in (("10m", at10), ("3h", at3h)):
    for name, alerts in exp.items():
        tests.append({"eval_time": t, "alertname": name, "exp_alerts": alerts})
doc = {"rule_files": [rules], "evaluation_interval": "1m",
       "tests": [{"interval": "1m", "input_series": series, "alert_rule_test": tests}]}
print(json.dumps(doc, indent=1))   # JSON is YAML
PY
promtool test rules "$TS_TMP/test.yml" > "$TS_TMP/test.out" 2>&1 ||
	{ cat "$TS_TMP/test.out" >&2; ts_fail "promtool test rules"; }
grep -q SUCCESS "$TS_TMP/test.out" || { cat "$TS_TMP/test.out" >&2; ts_fail "promtool test rules: no SUCCESS"; }
# the probe's own timestamp was in the input, and fired nothing
grep -q "command=\\\\\"probe\\\\\"\|command=\\\\\"probe" "$TS_TMP/test.yml" || ts_fail "no probe timestamp in the input"
ts_pass
