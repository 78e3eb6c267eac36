#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# fuzz/seeds_json.sh OUTDIR: the seed corpus of the json harness: saved
# sweep results (--json/--save: a verdict, per-start stats, ok and failed
# results), a probe document (devices[0].verdict), disk identities, a bare verdict, and
# small damaged or odd documents.
set -eu
out=${1:?usage: seeds_json.sh OUTDIR}
mkdir -p "$out"

cat > "$out/sweep-failed-step.json" <<'J'
{"device": "/dev/loop0", "logical_sector": 512, "reported_physical_sector": 512, "stopped": "rounds", "verdict": {"sensitive": false, "resolved": false, "logical_sector": 512, "reported_physical_sector": 512, "physical_sector": null, "period": null, "lowest_aligned_lba": null, "fast_starts": [], "slowdown": 1.0, "p_value": 1.0, "confidence": 0.0, "note": "too few offsets measured to find a period (need at least two members of a phase)"}, "parameters": {"preset": null, "workload_file": "tiny.pm", "starts": [34, 40], "min_rounds": 1, "max_rounds": 1, "time_budget_s": 900.0, "partition_sectors": 32768, "partition_bytes": 16777216, "fs": "ext4", "mkfs_opts": [], "mount_opts": null, "seed": 30698991545734, "workload": {"size_low": 512, "size_high": 2048, "number": 8, "seed": 42, "transactions": 16, "locations": [], "subdirectories": 0, "read_block": 512, "write_block": 512, "buffering": true, "bias_read": 5, "bias_create": 5, "sync": "fsync", "data": "printable", "drop_caches": false}, "emulate": null}, "starts": [{"start": 34, "runs": 1, "failed": 1, "aligned": null, "fast": null, "tps": null, "creates": null, "deletes": null, "read_kibs": null, "write_kibs": null, "fsync_med": null, "rel": null}, {"start": 40, "runs": 1, "failed": 0, "aligned": null, "fast": false, "tps": 1843.8014391792133, "creates": 430.2478894727592, "deletes": 2046.8650215330204, "read_kibs": 1201.4419045823536, "write_kibs": 524.9248339010096, "fsync_med": 0.104959, "rel": 1.0}], "results": [{"start": 40, "round": 1, "seq": 1, "ok": true, "cost": 0.00054235775, "tps": 1843.8014391792133, "creates_per_s": 430.2478894727592, "deletes_per_s": 2046.8650215330204, "read_kibs": 1201.4419045823536, "write_kibs": 524.9248339010096, "fsync_med_ms": 0.104959, "transactions": 16, "created": 18, "deleted": 18, "bytes_read": 10676, "bytes_written": 22488, "workload_s": 0.041952559, "partition_s": 0.148915899, "mkfs_s": 0.100743414, "mount_s": 0.004947261, "umount_s": 0.019719351}, {"start": 34, "round": 1, "seq": 2, "ok": false, "stage": "partition", "errno": 5, "error": "/dev/loop0: cannot read the partition table back: Input/output error during read on /dev/loop0", "partition_s": 0.114661858, "mkfs_s": 0.0, "mount_s": 0.0, "umount_s": 0.0}]}
J

# a sensitive drive: 4096 hidden, lowest aligned LBA 7 (fast at 39, 47)
{
	printf '{"device": "/dev/sdz", "logical_sector": 512, "reported_physical_sector": 512, "stopped": "clear",\n'
	printf ' "verdict": {"sensitive": true, "resolved": true, "logical_sector": 512, "reported_physical_sector": 512, "physical_sector": 4096, "period": 8, "lowest_aligned_lba": 7, "fast_starts": [39, 47], "slowdown": 4.5, "p_value": 0.0001, "confidence": 0.9999, "note": null},\n'
	printf ' "parameters": null, "starts": [], "results": ['
	sep=
	for r in 1 2 3; do
		for s in 36 37 38 39 40 41 42 43 44 45 46 47; do
			if [ $(( (s - 7) % 8 )) = 0 ]; then c=0.002; else c=0.009; fi
			printf '%s\n  {"start": %d, "round": %d, "seq": %d, "ok": true, "cost": %s, "tps": %s, "creates_per_s": 100.0, "deletes_per_s": 100.0, "read_kibs": 1.0, "write_kibs": 1.0, "fsync_med_ms": 1.0, "transactions": 25, "created": 10, "deleted": 10, "bytes_read": 1, "bytes_written": 1, "workload_s": 0.1, "partition_s": 0.1, "mkfs_s": 0.1, "mount_s": 0.1, "umount_s": 0.1}' \
				"$sep" $s $r $(( (r - 1) * 12 + s - 35 )) $c "$(awk "BEGIN { printf \"%.6f\", 1 / $c }")"
			sep=,
		done
	done
	printf '\n]}\n'
} > "$out/sweep-sensitive.json"

cat > "$out/probe.json" <<'J'
{"devices": [{"device": "/dev/sdz", "verdict": {"sensitive": true, "resolved": true, "logical_sector": 512, "reported_physical_sector": 512, "physical_sector": 4096, "period": 8, "lowest_aligned_lba": 0, "fast_starts": [0, 8, 16], "slowdown": 3.0, "p_value": 0.001, "confidence": 0.999}, "results": []}]}
J
cat > "$out/identity.json" <<'J'
{"device": "/dev/loop3", "identity": {"wwn": null, "serial": null, "model": null, "vendor": null, "revision": null, "uuid": null, "size": 33554432, "logical_sector": 512, "partition": 0, "partition_start": 0, "loop": true, "backing_file": "/tmp/da.img", "backing_device": "254:0", "backing_inode": 10953263, "backing_offset": 0, "content": [{"offset": 0, "length": 1048576, "crc32": 3735928559, "uniform": false}, {"offset": 32505856, "length": 1048576, "crc32": 195948557, "uniform": true}]}}
J
cat > "$out/identity-disk.json" <<'J'
{"wwn": "naa.5000c500a1b2c3d4", "serial": "ZA1B2C3D", "model": "ST4000NM0035-1V4", "vendor": "ATA", "revision": "TN03", "uuid": null, "size": 4000787030016, "logical_sector": 512, "partition": 2, "partition_start": 1048576, "loop": false, "content": []}
J
cat > "$out/verdict.json" <<'J'
{"sensitive": false, "resolved": true, "logical_sector": 4096, "reported_physical_sector": 4096, "physical_sector": 4096, "period": 1, "lowest_aligned_lba": 0, "fast_starts": [], "slowdown": 1.01, "p_value": 0.6, "confidence": 0.4}
J
printf '{}' > "$out/empty-object.json"
printf '[]' > "$out/array.json"
printf 'null' > "$out/null.json"
printf '{"verdict": {"logical_sector": "512", "physical_sector": -4096, "fast_starts": [1e400, -1, "x"]}, "results": [{"start": 18446744073709551616}]}' > "$out/odd-types.json"
printf '{"results": [{"start": 40, "round": 0, "ok": false, "stage": "nosuchstage", "errno": -5}]}' > "$out/bad-result.json"
head -c 300 "$out/sweep-failed-step.json" > "$out/truncated.json"
