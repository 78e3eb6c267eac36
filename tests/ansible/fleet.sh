# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# The fleet loop (contrib/ansible/fleet.yml), end to end on this machine;
# sourced by tests/ansible/run.sh (its the_play, inst, ALIGNPROBE, TS_TMP).
# Three "hosts", inventory aliases with a local connection, each with its own
# store paths (they share this machine's /var/lib/alignprobe otherwise) and
# its own emulated drives standing for its disks: models FLEET-A (4096-byte
# sectors from LBA 0, partitions at 2048) and FLEET-B (from LBA 1, at 2049:
# aligned only by a verdict for the model, misaligned under the unproven
# 4 KiB rule). h1: A1 probe-able; h2: A2 and B1 probe-able; h3: A3 and B2,
# not probe-able. The first run probes A1 and B1 only (one disk per model,
# fleet-wide, in inventory order), merges both verdicts into the fleet store
# on the control node, pushes it, and h3 passes its gate by them; the second
# run changes nothing (changed=0 on every host) and writes no disk.
# argument_specs: a mapping where a list is wanted is refused by name.

ts_need_emulator
fleet_playbook=$top_srcdir/contrib/ansible/fleet.yml
[ -n "$deb" ] && fleet_playbook=/usr/share/doc/alignprobe/examples/ansible/fleet.yml
[ -f "$fleet_playbook" ] || ts_fail "no $fleet_playbook"

femu() {
	local model=$1 start=$2 dev
	shift 2
	dev=$(ts_emu_attach --profile simple --size 256M --drive-model "$model" "$@")
	printf 'label: gpt\nstart=%s,size=65536\n' "$start" | sfdisk -q --no-reread --no-tell-kernel "$dev" \
		>/dev/null || ts_fail "sfdisk $dev"
	echo "$dev"
}
A1=$(femu FLEET-A 2048)
A2=$(femu FLEET-A 2048)
A3=$(femu FLEET-A 2048)
B1=$(femu FLEET-B 2049 --lowest-aligned 1)
B2=$(femu FLEET-B 2049 --lowest-aligned 1)
ts_log "fleet: h1 $A1; h2 $A2 $B1; h3 $A3 $B2"
fwrites() { "$ALIGNPROBE" emulate --stats "$1" -n -r -o WRITES || ts_fail "emulate --stats $1"; }
fall() { local d; for d in "$A1" "$A2" "$A3" "$B1" "$B2"; do printf '%s ' "$(fwrites "$d")"; done; }

F=$TS_TMP/fleet
mkdir -p "$F/h1" "$F/h2" "$F/h3"
host() {	# host NAME '[disks]' '[probe-able]'
	cat <<-HOST
	    $1:
	      alignprobe_disks: $2
	      alignprobe_probe_disks: $3
	      alignprobe_store: $F/$1/verdicts.json
	      alignprobe_fleet_store_dest: $F/$1/fleet.json
	      alignprobe_default_file: $F/$1/default
	HOST
}
{
	echo "all:"
	echo "  vars: {ansible_connection: local, ansible_python_interpreter: /usr/bin/python3, ansible_become: false}"
	echo "  hosts:"
	host h1 "[$A1]" "[$A1]"
	host h2 "[$A2, $B1]" "[$A2, $B1]"
	host h3 "[$A3, $B2]" "[]"
} > "$F/inventory.yml"
fleet_args=(-e alignprobe_install=false -e alignprobe_write_default=true)
[ -z "$deb" ] && fleet_args+=(-e alignprobe_command="$ALIGNPROBE" -e alignprobe_control_command="$ALIGNPROBE")
fplay() {	# fplay NAME RC [args]
	local name=$1 want=$2 rc=0
	shift 2
	LC_ALL=C.UTF-8 ansible-playbook -i "$F/inventory.yml" "${fleet_args[@]}" "$@" "$fleet_playbook" \
		> "$TS_TMP/$name.out" 2>&1 || rc=$?
	[ "$rc" = "$want" ] || { cat "$TS_TMP/$name.out" >&2; ts_fail "$name: ansible-playbook exited $rc, expected $want"; }
}

# before: without a verdict for FLEET-B, B2's partition at 2049 is misaligned
ts_run_rc 4 "$ALIGNPROBE" check -q "$B2"

# ---- the first run: two probes, one per model ----
w0=$(fall)
fplay fleet1 0
w1=$(fall)
read -r a1 a2 a3 b1 b2 <<< "$w0"
read -r a1_ a2_ a3_ b1_ b2_ <<< "$w1"
[ "$a1_" -gt "$a1" ] && [ "$b1_" -gt "$b1" ] || ts_fail "fleet1: A1 and B1 were not probed (writes $w0 -> $w1)"
[ "$a2_" = "$a2" ] && [ "$a3_" = "$a3" ] && [ "$b2_" = "$b2" ] ||
	ts_fail "fleet1: a second disk of a model, or one not probe-able, was written (writes $w0 -> $w1)"
store=$F/inventory.yml
store=${store%/*}/verdicts.json
"$ALIGNPROBE" verdicts list -J --verdicts="$store" > "$TS_TMP/fleet-store.json" ||
	ts_fail "verdicts list $store"
jq -e '[.verdicts[] | {name, physical: .physical_sector, lowest_aligned: .lowest_aligned_lba, disks, state}] | sort_by(.name)
	== [{"name": "ALIGNPROBE FLEET-A", "physical": 4096, "lowest_aligned": 0, "disks": 1, "state": "ok"},
	    {"name": "ALIGNPROBE FLEET-B", "physical": 4096, "lowest_aligned": 1, "disks": 1, "state": "ok"}]' \
	"$TS_TMP/fleet-store.json" >/dev/null ||
	{ cat "$TS_TMP/fleet-store.json" >&2; ts_fail "fleet1: the fleet store is not the two verdicts"; }
for h in h1 h2 h3; do
	cmp -s "$store" "$F/$h/fleet.json" || ts_fail "fleet1: $h has not the merged store"
done
# h3 passed by the fleet's verdict; its settings for the service say so
ts_run_rc 0 "$ALIGNPROBE" check -q --verdicts="$F/h3/fleet.json" "$B2"
grep -qxF "ALIGNPROBE_CHECK_ARGS=\"--verdicts=$F/h3/fleet.json $A3 $B2\"" "$F/h3/default" ||
	{ cat "$F/h3/default" >&2; ts_fail "fleet1: h3's ALIGNPROBE_CHECK_ARGS"; }

# ---- the second run: nothing to probe, nothing changed ----
fplay fleet2 0
for h in h1 h2 h3; do
	grep -Eq "^$h +: ok=[0-9]+ +changed=0 +unreachable=0 +failed=0" "$TS_TMP/fleet2.out" ||
		{ cat "$TS_TMP/fleet2.out" >&2; ts_fail "fleet2: $h changed something on the second run"; }
done
ts_assert_eq "$w1" "$(fall)" "fleet2: writes on the second run"

# ---- argument_specs: a mapping for a list, refused by name ----
fplay fleet-spec 2 -e '{"alignprobe_probe_disks": {"a": 1}}'
grep -q "alignprobe_probe_disks" "$TS_TMP/fleet-spec.out" && grep -qi "argument spec\|unable to convert to list" "$TS_TMP/fleet-spec.out" ||
	{ cat "$TS_TMP/fleet-spec.out" >&2; ts_fail "fleet-spec: not refused by argument_specs"; }
