#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Time to a verdict of `alignprobe sweep --emulate=PROFILE` (quick preset,
# default starts 34..64) for each drive profile, side by side: the verdict
# and whether it is right, the time, where the time went (partition, mkfs,
# mount, workload, umount, and outside the steps: setting the emulated drive
# up and tearing it down), and the floor estimated from the same run.
#
#   bench/sweep.sh [PROFILE...]    (default: simple hdd-7200 wd-ears-jumper
#                                   honest-512n; as root; ALIGNPROBE=path,
#                                   SEED=n)
#
# Goals (issue 16, on the project's 2-core machine): a correct verdict in
# 60 s or less on simple, 90 s or less on hdd-7200 (the default drive);
# issue 26: 60 s on hdd-7200, 90 s on hdd-7200-nocache (no write cache),
# and on usb-bridge-noflush (flushes ignored) and hdd-lba7-rmwbuf (a buffer
# answers read-modify-writes) the named exit 5, early.
# The floor: the analysis needs 3 measurements of every start before it may
# stop early (src/analysis), so 3 x 31 steps; each step keeps the mission's
# experiment (a GPT partition, mkfs, mount, umount: as measured, their
# misaligned writes are part of the physics) with a workload of a single
# transaction (the least that still yields a cost), plus the drive's setup
# and teardown. The classic method, for scale: 31 starts x (parted, mkfs,
# mount, a 10-minute PostMark run, by eye) = 5 h 10 min.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
AP=${ALIGNPROBE:-$top/alignprobe}
SEED=${SEED:-1}
PY=$(command -v /usr/bin/python3 || command -v python3) || { echo "bench: needs python3" >&2; exit 2; }
[ -x "$AP" ] || { echo "bench: $AP not built" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "bench: needs root (loop devices, FUSE, mount)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/alignprobe-bench.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
export ALIGNPROBE_STATE_DIR=$tmp/state
[ $# -gt 0 ] || set -- simple hdd-7200 wd-ears-jumper honest-512n

printf 'sweep benchmark: alignprobe sweep --emulate=PROFILE --seed %s, quick preset, starts 34..64\n' "$SEED"
printf 'machine: %s CPUs; load average before: %s\n' "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
fail=0
for prof in "$@"; do
	t0=$(date +%s.%N)
	"$AP" sweep --emulate="$prof" --seed "$SEED" -q --json > "$tmp/$prof.json" 2> "$tmp/$prof.err"
	echo "$? $(echo "$(date +%s.%N) - $t0" | bc)" > "$tmp/$prof.rc"
	[ -s "$tmp/$prof.err" ] && sed "s/^/$prof: /" "$tmp/$prof.err" >&2
done
"$PY" - "$tmp" "$@" <<'EOF' || fail=1
import json, statistics, sys

tmp, profiles = sys.argv[1], sys.argv[2:]
# what each profile is: (physical sector, lowest aligned LBA, fast starts) or None: no effect
want = {
    "simple": (4096, 0, [40, 48, 56, 64]), "hdd-7200": (4096, 0, [40, 48, 56, 64]),
    "hdd-5400": (4096, 0, [40, 48, 56, 64]), "wd-ears-jumper": (4096, 7, [39, 47, 55, 63]),
    "honest-512n": None, "hdd-7200-nocache": (4096, 0, [40, 48, 56, 64]),
    "usb-bridge-noflush": "unmeasurable", "hdd-lba7-rmwbuf": "unmeasurable",
}
goal = {"simple": 60.0, "hdd-7200": 60.0, "hdd-7200-nocache": 90.0}
stages = ["partition_s", "mkfs_s", "mount_s", "workload_s", "umount_s"]
rows, notes, bad = [], [], 0
for p in profiles:
    rc, secs = open("%s/%s.rc" % (tmp, p)).read().split()
    rc, secs = int(rc), float(secs)
    try:
        d = json.load(open("%s/%s.json" % (tmp, p)))
    except ValueError:
        rows.append([p, "exit %d" % rc, "-", "%.1f" % secs] + ["-"] * 8)
        bad += 1
        continue
    v, res = d["verdict"], d["results"]
    if isinstance(want.get(p), str):	# a cause named, no verdict
        text = "named: %s" % d.get("stopped")
        right = rc == 5 and d.get("stopped") == want[p] and (v is None or not v["resolved"])
        rc = 0 if right else rc
    elif v is None:
        text, right = "none", False
    elif v["sensitive"]:
        text = "%s/LBA %s %.1fx" % (v["physical_sector"], v["lowest_aligned_lba"], v["slowdown"])
        right = want.get(p, ()) == (v["physical_sector"], v["lowest_aligned_lba"], v["fast_starts"])
    else:
        text = "no effect (%s)" % v["physical_sector"] if v["resolved"] else "unresolved"
        right = p in want and want[p] is None and v["resolved"]
    if p not in want:
        mark = "?"
    else:
        mark = "right" if right and rc == 0 else "WRONG"
        bad += mark == "WRONG"
    n = len(res)
    tot = {s: sum(r.get(s) or 0 for r in res) for s in stages}
    steps = sum(tot.values())
    outside = secs - steps
    # the floor: 3 x every start, the setup as measured, one transaction
    ok = [r for r in res if r["ok"] and r["transactions"]]
    one = [r["workload_s"] / r["transactions"] for r in ok]	# an upper bound for one
    nstarts = len(d["starts"])
    per_step_setup = (steps - tot["workload_s"]) / n if n else 0
    floor = 3 * nstarts * (per_step_setup + (statistics.mean(one) if one else 0)) + outside
    rows.append([p, "%s %s" % (mark, text), "%d" % n, "%.1f" % secs] +
                ["%.1f" % tot[s] for s in stages] + ["%.1f" % outside, "%.1f" % floor,
                                                     "%.2f" % (secs / n if n else 0)])
    if p in goal:
        g = goal[p]
        if secs <= g and mark == "right":
            notes.append("%s: goal %.0f s met (%.1f s)" % (p, g, secs))
        else:
            notes.append("%s: goal %.0f s MISSED by %.1f s: %d steps x %.2f s a step, of which "
                         "the workload %.2f s and the setup %.2f s, plus %.1f s outside the steps "
                         "(the emulated drive's setup and teardown)%s"
                         % (p, g, secs - g, n, steps / n, tot["workload_s"] / n, per_step_setup,
                            outside, "" if mark == "right" else "; and the verdict is wrong"))
head = ["PROFILE", "VERDICT", "STEPS", "TIME_S", "PARTITION", "MKFS", "MOUNT", "WORKLOAD",
        "UMOUNT", "OUTSIDE", "FLOOR_S", "S/STEP"]
w = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
for r in [head] + rows:
    print("  ".join(str(c).ljust(w[i]) if i < 2 else str(c).rjust(w[i]) for i, c in enumerate(r)))
print("(seconds; PARTITION..UMOUNT: the sum over all steps; OUTSIDE: setup and teardown of the")
print(" emulated drive, the analysis; FLOOR_S: 3 rounds x every start, the setup as measured,")
print(" a one-transaction workload)")
for s in notes:
    print(s)
sys.exit(1 if bad else 0)
EOF
printf 'load average after: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
exit $fail
