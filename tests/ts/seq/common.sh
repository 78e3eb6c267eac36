# SPDX-License-Identifier: GPL-2.0-or-later
#
# Helpers for seq's integration tests (sourced after functions.sh).

# seq_start DEV TAG [SEQ OPTIONS...]: a long seq on DEV in the background
# (its PID in spid), output in $TS_TMP/out$TAG and err$TAG; returns once
# its first run is done (its progress line on ALIGNPROBE_PROGRESS_FD),
# never after a fixed time: 999 runs are left
seq_start() {
	local dev=$1
	seq_tag=$2
	shift 2
	: > "$TS_TMP/progress$seq_tag"
	ALIGNPROBE_PROGRESS_FD=3 "$ALIGNPROBE" seq -q --yes "$@" --modes direct \
		--block-sizes 64K --size 1M --rounds 1000 --cell-time 0 "$dev" \
		> "$TS_TMP/out$seq_tag" 2> "$TS_TMP/err$seq_tag" 3> "$TS_TMP/progress$seq_tag" &
	spid=$!
	ts_bg_pid $spid
	seq_first_run() { grep -qE ': [1-9][0-9]* of 1000' "$TS_TMP/progress$seq_tag"; }
	ts_wait_for -p $spid "the first run of seq $*" seq_first_run ||
		ts_fail "seq $* ended before its first run: $(cat "$TS_TMP/err$seq_tag")"
}
