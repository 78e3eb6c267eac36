#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Time to a verdict of `alignprobe sweep` (quick preset, default starts
# 34..64, --seed SEED) on emulated drives, with each step's share: the
# partition, mkfs, mount, workload and umount (sums over the steps, and
# each one's share of the run), the time outside the steps (the rotation
# and RMW-buffer checks, the analysis, the final wipe), and the floor
# estimated from the same run. With BASE set to an older build, its sweep
# runs side by side with this one: interleaved in one run (ABBA order over
# the repetitions), each on a fresh drive of the same profile attached by
# this build's emulator (so an old binary can be measured on a new profile),
# medians over REPS repetitions.
#
#   [BASE=/path/to/old/alignprobe] [REPS=n] [SEED=n] [KEEP=1] bench/sweep.sh [PROFILE...]
#     (default profiles: hdd-7200 hdd-7200-nocache hdd-7200-nocache-flush
#      simple wd-ears-jumper honest-512n; as root; ALIGNPROBE=path)
#
# Goals (issue 16, on the project's 2-core machine): a correct verdict in
# 60 s or less on simple, 90 s or less on hdd-7200 (the default drive);
# issue 26: 60 s on hdd-7200, 90 s on hdd-7200-nocache; issue 34: 60 s on
# every 7200 rpm profile, with and without a write cache (hdd-7200,
# hdd-7200-nocache, hdd-7200-nocache-flush: no cache, and every flush
# costs a seek and a revolution); on usb-bridge-noflush (flushes ignored)
# and hdd-lba7-rmwbuf (a buffer answers read-modify-writes) the named exit
# 5, early.
# The floor: the analysis needs 2 measurements of every start before it may
# stop early, where they split completely (src/analysis, design.md 3.6; 3
# otherwise), so 2 x 31 steps; each step keeps the mission's
# experiment (a GPT partition, mkfs, mount, umount: as measured, their
# misaligned writes are part of the physics) with a workload of a single
# transaction (the least that still yields a cost), plus the time outside
# the steps. The classic method, for scale: 31 starts x (parted, mkfs,
# mount, a 10-minute PostMark run, by eye) = 5 h 10 min.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
AP=${ALIGNPROBE:-$top/alignprobe}
BASE=${BASE:-}
REPS=${REPS:-1}
SEED=${SEED:-1}
PY=$(command -v /usr/bin/python3 || command -v python3) || { echo "bench: needs python3" >&2; exit 2; }
[ -x "$AP" ] || { echo "bench: $AP not built" >&2; exit 2; }
[ -z "$BASE" ] || [ -x "$BASE" ] || { echo "bench: BASE=$BASE is not a program" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "bench: needs root (loop devices, FUSE, mount)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/alignprobe-bench.XXXXXX) || exit 1
dev=
# KEEP=1: leave the runs' documents in $tmp
trap '[ -n "$dev" ] && "$AP" emulate --detach "$dev" >/dev/null 2>&1; [ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
export ALIGNPROBE_STATE_DIR=$tmp/state
[ $# -gt 0 ] || set -- hdd-7200 hdd-7200-nocache hdd-7200-nocache-flush simple wd-ears-jumper \
	honest-512n

bins="new"
[ -n "$BASE" ] && bins="base new"
printf 'sweep benchmark: alignprobe sweep DEVICE --seed %s, quick preset, starts 34..64, %s repetition(s)\n' \
	"$SEED" "$REPS"
printf 'new: %s (%s)\n' "$AP" "$("$AP" -V 2>&1)"
[ -n "$BASE" ] && printf 'base: %s (%s)\n' "$BASE" "$("$BASE" -V 2>&1)"
printf 'machine: %s CPUs; load average before: %s\n' "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
for rep in $(seq "$REPS"); do
	order=$bins
	[ $((rep % 2)) = 0 ] && [ -n "$BASE" ] && order="new base"
	for prof in "$@"; do
		for b in $order; do
			bin=$AP
			[ "$b" = base ] && bin=$BASE
			out=$tmp/$prof.$b.$rep
			dev=$("$AP" emulate --attach --profile "$prof") || { echo "bench: cannot attach $prof" >&2; exit 1; }
			t0=$(date +%s.%N)
			"$bin" sweep --yes --seed "$SEED" -q --json "$dev" > "$out.json" 2> "$out.err"
			echo "$? $(echo "$(date +%s.%N) - $t0" | bc) $(cut -d' ' -f1 /proc/loadavg)" > "$out.rc"
			"$AP" emulate --detach "$dev" >/dev/null 2>&1
			dev=
			# the device's description on stderr is no news; a failure's message is
			case $(cut -d' ' -f1 "$out.rc") in
			0 | 5) ;;
			*) sed "s/^/$prof ($b, run $rep): /" "$out.err" >&2 ;;
			esac
		done
	done
done
fail=0
"$PY" - "$tmp" "$REPS" "$bins" "$@" <<'EOF' || fail=1
import json, statistics, sys

tmp, reps, bins, profiles = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4:]
# what each profile is: (physical sector, lowest aligned LBA, fast starts) or None: no effect
want = {
    "simple": (4096, 0, [40, 48, 56, 64]), "hdd-7200": (4096, 0, [40, 48, 56, 64]),
    "hdd-5400": (4096, 0, [40, 48, 56, 64]), "wd-ears-jumper": (4096, 7, [39, 47, 55, 63]),
    "honest-512n": None, "hdd-7200-nocache": (4096, 0, [40, 48, 56, 64]),
    "hdd-7200-nocache-flush": (4096, 0, [40, 48, 56, 64]),
    "hdd-7200-ra": (4096, 0, [40, 48, 56, 64]), "honest-512n-ra": None,
    "usb-bridge-noflush": "unmeasurable", "hdd-lba7-rmwbuf": "unmeasurable",
}
goal = {"simple": 60.0, "hdd-7200": 60.0, "hdd-7200-nocache": 60.0,
        "hdd-7200-nocache-flush": 60.0, "hdd-7200-ra": 60.0, "honest-512n": 60.0,
        "honest-512n-ra": 60.0}
stages = ["partition_s", "mkfs_s", "mount_s", "workload_s", "umount_s"]
med = statistics.median


def one(p, b, rep):
    """One run: its verdict, right or not, and its figures."""
    base = "%s/%s.%s.%d" % (tmp, p, b, rep)
    rc, secs, load = open(base + ".rc").read().split()
    rc, secs = int(rc), float(secs)
    try:
        d = json.load(open(base + ".json"))
    except ValueError:
        return {"text": "exit %d" % rc, "right": False, "secs": secs, "load": load}
    v, res = d["verdict"], d["results"]
    if isinstance(want.get(p), str):	# a cause named, no verdict
        text = "named: %s" % d.get("stopped")
        right = rc == 5 and d.get("stopped") == want[p] and (v is None or not v["resolved"])
    elif v is None:
        text, right = "none", False
    elif v["sensitive"]:
        text = "%s/LBA %s" % (v["physical_sector"], v["lowest_aligned_lba"])
        right = rc == 0 and want.get(p, ()) == (v["physical_sector"], v["lowest_aligned_lba"],
                                                v["fast_starts"])
    else:
        text = "no effect (%s)" % v["physical_sector"] if v["resolved"] else "unresolved"
        right = rc == 0 and p in want and want[p] is None and v["resolved"]
    n = len(res)
    tot = {s: sum(r.get(s) or 0 for r in res) for s in stages}
    steps = sum(tot.values())
    ok = [r for r in res if r["ok"] and r["transactions"]]
    one_tx = statistics.mean([r["workload_s"] / r["transactions"] for r in ok]) if ok else 0
    setup = (steps - tot["workload_s"]) / n if n else 0
    outside = secs - steps
    return {"text": text, "right": right, "secs": secs, "load": load, "n": n, "tot": tot,
            "outside": outside, "setup": setup,
            "floor": 2 * len(d["starts"]) * (setup + one_tx) + outside,
            "step": {s: med([r.get(s) or 0 for r in res]) if n else 0 for s in stages}}


head = ["PROFILE", "BUILD", "VERDICT", "STEPS", "TIME_S", "PARTITION", "MKFS", "MOUNT",
        "WORKLOAD", "UMOUNT", "OUTSIDE", "FLOOR_S", "S/STEP"]
rows, notes, bad = [], [], 0
per = {}
for p in profiles:
    for b in bins:
        runs = [one(p, b, r) for r in range(1, reps + 1)]
        per[p, b] = runs
        good = [r for r in runs if "tot" in r]
        wrong = [r for r in runs if not r["right"]]
        bad += len(wrong) if p in want else 0
        texts = sorted(set(r["text"] for r in runs))
        mark = "?" if p not in want else ("right" if not wrong else "WRONG %d/%d" % (len(wrong), reps))
        secs = med([r["secs"] for r in runs])
        if not good:
            rows.append([p, b, "%s %s" % (mark, "/".join(texts)), "-", "%.1f" % secs] + ["-"] * 8)
            continue
        t = med([r["secs"] for r in good])
        cell = []
        for s in stages:
            tot = med([r["tot"][s] for r in good])
            share = med([r["tot"][s] / r["secs"] for r in good]) * 100
            cell.append("%.1f %2.0f%%" % (tot, share))
        cell.append("%.1f %2.0f%%" % (med([r["outside"] for r in good]),
                                       med([r["outside"] / r["secs"] for r in good]) * 100))
        per_step = [r["secs"] / r["n"] for r in good if r["n"]]
        rows.append([p, b, "%s %s" % (mark, "/".join(texts)), "%d" % med([r["n"] for r in good]),
                     "%.1f" % t] + cell +
                    ["%.1f" % med([r["floor"] for r in good]),
                     "%.2f" % med(per_step) if per_step else "-"])
        if b == "new" and p in goal and per_step:
            g = goal[p]
            if secs <= g and not wrong:
                notes.append("%s: goal %.0f s met (median %.1f s)" % (p, g, secs))
            else:
                notes.append("%s: goal %.0f s MISSED by %.1f s (median): %.2f s a step, of which "
                             "the workload %.2f s and the set-up %.2f s, plus %.1f s outside "
                             "the steps%s"
                             % (p, g, secs - g, med(per_step),
                                med([r["tot"]["workload_s"] / r["n"] for r in good if r["n"]]),
                                med([r["setup"] for r in good]), med([r["outside"] for r in good]),
                                "" if not wrong else "; and a verdict is wrong"))
w = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
for r in [head] + rows:
    print("  ".join(str(c).ljust(w[i]) if i < 3 else str(c).rjust(w[i]) for i, c in enumerate(r)))
print("(medians over the repetitions; seconds, and the share of the run; PARTITION..UMOUNT: the")
print(" sum over all steps; OUTSIDE: the checks before the first step, the analysis, the wipe;")
print(" FLOOR_S: 2 rounds x every start, the set-up as measured, a one-transaction workload)")
if "base" in bins:
    print("per step, base -> new (medians of the per-run medians, seconds):")
    for p in profiles:
        gb = [r for r in per[p, "base"] if "tot" in r]
        gn = [r for r in per[p, "new"] if "tot" in r]
        if gb and gn:
            print("  %-24s %s" % (p, "  ".join(
                "%s %.3f -> %.3f" % (s[:-2], med([r["step"][s] for r in gb]),
                                     med([r["step"][s] for r in gn])) for s in stages)))
print("load average at the end of each run: %s" % " ".join(
    "%s/%s/%s:%s" % (p, b, i + 1, r["load"]) for (p, b), runs in per.items()
    for i, r in enumerate(runs)))
for s in notes:
    print(s)
sys.exit(1 if bad else 0)
EOF
printf 'load average after: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
exit $fail
