#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Bad input to alignprobe postmark: exit 2, a message naming file:line (or
# the option), and nothing created: no work file, no subdirectory, no
# output file, even when the bad line comes after a good `run`.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "bad configs and options: exit 2, file:line, nothing created"

loc=$TS_TMP/loc
mkdir -p "$loc"
cd "$TS_TMP" || exit 99

expect_bad() {	# expect_bad "what" "pattern in stderr" args...
	local what=$1 pat=$2
	shift 2
	"$ALIGNPROBE" postmark -q "$@" > "$TS_TMP/out" 2> "$TS_TMP/err" < /dev/null
	rc=$?
	[ "$rc" = 2 ] || { cat "$TS_TMP/err" >&2; ts_fail "$what: exit $rc, expected 2"; }
	grep -q -- "$pat" "$TS_TMP/err" || { cat "$TS_TMP/err" >&2; ts_fail "$what: message lacks '$pat'"; }
	[ -z "$(ls -A "$loc")" ] || ts_fail "$what: created $(ls -A "$loc")"
	[ ! -e "$TS_TMP/report.txt" ] || ts_fail "$what: created the run's output file"
	[ ! -s "$TS_TMP/out" ] || ts_fail "$what: printed a report"
}

cfg() {	# cfg LINE...: a config that runs first, then has the bad line
	printf 'set location %s\nset number 20\nset transactions 20\nset subdirectories 3\nrun\n' "$loc" > "$TS_TMP/c.pm"
	printf '%s\n' "$@" >> "$TS_TMP/c.pm"
	echo "run $TS_TMP/report.txt" >> "$TS_TMP/c.pm"
}

cfg "set frobnicate 3";			expect_bad "unknown command" "c.pm:6: unknown command" c.pm
cfg "set sizes 5";			expect_bad "prefix of a command" "c.pm:6: unknown command" c.pm
cfg "set number 5x";			expect_bad "junk after a number" "c.pm:6: invalid number" c.pm
cfg "set number 0";			expect_bad "zero files" "c.pm:6: .*out of range" c.pm
cfg "set seed -3";			expect_bad "negative seed" "c.pm:6: invalid seed" c.pm
cfg "set size 2048 512";		expect_bad "min > max" "c.pm:6: minimum file size 2048 is larger" c.pm
cfg "set bias read 11";			expect_bad "bias out of range" "c.pm:6: bias '11' out of range" c.pm
cfg "set buffering yes";		expect_bad "buffering yes" "c.pm:6: 'set buffering' needs" c.pm
cfg "set location $TS_TMP/nowhere";	expect_bad "missing location" "c.pm:6: location '.*nowhere': No such file" c.pm
: > "$TS_TMP/plainfile"
cfg "set location $TS_TMP/plainfile";	expect_bad "location is a file" "c.pm:6: .*Not a directory" c.pm
cfg "!touch $TS_TMP/pwned";		expect_bad "shell escape" "c.pm:6: shell escapes" c.pm
[ ! -e "$TS_TMP/pwned" ] || ts_fail "a shell escape ran"
cfg "load $TS_TMP/missing.pm";		expect_bad "load of a missing file" "c.pm:6: cannot read configuration file" c.pm
cfg "run $TS_TMP/nodir/r.txt";		expect_bad "unwritable output" "c.pm:6: cannot create" c.pm
printf 'set location %s\nset number 7\nset seed 0\nrun\n' "$loc" > "$TS_TMP/n.pm"
printf 'load %s/n.pm\nrun\n' "$TS_TMP" > "$TS_TMP/outer.pm"
expect_bad "bad line in a nested file" "n.pm:3: seed '0' out of range" outer.pm
# a quit ends the execution, not the checking: the second file is checked too
printf 'show\nquit\n' > "$TS_TMP/show.pm"
printf 'set frobnicate 3\n' > "$TS_TMP/bad.pm"
expect_bad "bad file after a quit" "bad.pm:1: unknown command" show.pm bad.pm
expect_bad "unreadable config" "^alignprobe postmark: absent.pm: No such file or directory$" absent.pm
if [ "$(id -u)" != 0 ]; then
	mkdir -p "$TS_TMP/ro" && chmod 555 "$TS_TMP/ro"
	expect_bad "read-only location" "not writable" --location "$TS_TMP/ro"
fi

# options
expect_bad "bad option value" "invalid number of files" --number ten --location "$loc"
expect_bad "bad size option" "minimum file size 9 is larger" --size 9:3 --location "$loc"
expect_bad "bad sync policy" "unknown sync policy" --sync sometimes --location "$loc"
expect_bad "missing location option" "nowhere" --location "$TS_TMP/nowhere"
expect_bad "unknown option" "Try 'alignprobe postmark --help'" --frob
expect_bad "bad buffering" "--buffering" --buffering maybe
# as in PostMark, a quit in a loaded file ends that file only: the line
# after it is not applied, the loading file goes on
printf 'quit\nset number 7\n' > "$TS_TMP/q.pm"
printf 'load %s/q.pm\nshow\nquit\n' "$TS_TMP" > "$TS_TMP/lq.pm"
ts_run_rc 0 "$ALIGNPROBE" postmark lq.pm
grep -q "The base number of files is 500" "$TS_TMP/out" || ts_fail "quit in a loaded file: $(cat "$TS_TMP/out")"
# the good config still works and leaves nothing
printf 'set location %s\nset number 20\nset transactions 20\nset subdirectories 3\nrun\n' "$loc" > "$TS_TMP/good.pm"
ts_run_rc 0 "$ALIGNPROBE" postmark -q good.pm
grep -q "Creation alone: 20 files" "$TS_TMP/out" || ts_fail "good config: no report"
[ -z "$(ls -A "$loc")" ] || ts_fail "good config left $(ls -A "$loc")"
ts_pass
