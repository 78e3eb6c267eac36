#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# completion/alignprobe: source it in bash, set COMP_WORDS/COMP_CWORD, call
# the function and look at COMPREPLY. Against a fake alignprobe with known
# help texts (every parsing case), then against the real binary (the
# subcommands and each command's columns must match what it prints).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/ts/functions.sh"
ts_init "bash completion"
ts_need_cmd bash

COMPL=$top_srcdir/completion/alignprobe
bash -n "$COMPL" || ts_fail "$COMPL: syntax error"

# a fake alignprobe
FAKE=$TS_TMP/bin/alignprobe
mkdir -p "$TS_TMP/bin" "$TS_TMP/files/sub"
touch "$TS_TMP/files/a.svg" "$TS_TMP/files/b.json" "$TS_TMP/files/c.svg"
cat > "$FAKE" <<'FAKE'
#!/bin/bash
case "$1 $2" in
"--help ")
	printf 'Usage:\n alignprobe [--version] [--help] <command> [<args>]\n\nCommands:\n'
	printf ' sweep     partition, mkfs and time\n check     validate a table\n\nRun it.\n'
	;;
"check --help" | "sweep --help")
	cat <<'H'
Usage:
 alignprobe check [options] <device>|<image>

Options:
 -o, --output <list>    columns to print (+<list> appends to the defaults)
     --output-all       print all columns
 -J, --json             JSON output
     --geometry <file>  verdict of a probe or sweep (JSON)
     --emulate[=<spec>]  run on an emulated drive
     --fs <type>        file system: ext2|ext4|xfs
 -s, --size <size>      partition size
     --plot <file.svg>  write an SVG chart
 -m, --modes LIST       modes to run
     --sync POLICY      after every file write: none, fsync (default),
                        fdatasync
 -p, --preset NAME      quick (default) or thorough, see below
 -h, --help             display this help

Modes (what each one does,
in two lines):
 none      buffered
           dd bs=BS
 dsync     O_DSYNC
H
	;;
"check --list-columns" | "sweep --list-columns")
	printf 'NR partition number\nSTART first sector\nSIZE size in bytes\nALIGNED yes or no\n'
	;;
esac
FAKE
chmod +x "$FAKE"

# comp WORD... : COMPREPLY (sorted, one line, space separated) for the last word
comp() {
	bash -c '
		source "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
		_alignprobe 2>&1
		printf "%s\n" "${COMPREPLY[@]}" | sort | paste -sd " "
	' comp "$COMPL" "$@"
}
expect() {
	local want=$1 got
	shift
	got=$(comp "$@")
	[ "$got" = "$want" ] || ts_fail "completing '$*': expected '$want', got '$got'"
}

cd "$TS_TMP/files" || ts_fail "cd"
expect "check sweep"				"$FAKE" ""
expect "sweep"					"$FAKE" sw
expect "--help --version"			"$FAKE" --
expect "--output --output-all"			"$FAKE" check --out
expect "--emulate --fs --geometry --help --json --modes --output --output-all --plot --preset --size --sync" \
						"$FAKE" check --
expect "--emulate --fs --geometry --help --json --modes --output --output-all --plot --preset --size --sync -J -h -m -o -p -s" \
						"$FAKE" check -
expect "ALIGNED NR SIZE START"			"$FAKE" check -o ""
expect "SIZE START"				"$FAKE" check -o s
expect "START,SIZE"				"$FAKE" check --output START,SI
expect "START,ALIGNED START,NR START,SIZE"	"$FAKE" check -o START,
expect "+ALIGNED"				"$FAKE" check -o +a
expect "SIZE START"				"$FAKE" check --output = S
expect "ext2 ext4 xfs"				"$FAKE" check --fs ""
expect "xfs"					"$FAKE" check --fs = x
# choices from the help: a description that is a list (also on the next
# line), a section named after the option, a comma-separated LIST of them
expect "fdatasync fsync none"			"$FAKE" check --sync ""
expect "quick thorough"				"$FAKE" check -p ""
expect "dsync none"				"$FAKE" check -m ""
expect "none,dsync none,none"			"$FAKE" check --modes none,
expect "a.svg c.svg sub"			"$FAKE" check --plot ""
expect "b.json"					"$FAKE" check --geometry b
# an option with an optional argument does not eat the next word
expect "a.svg"					"$FAKE" check --emulate a
# after a complete option with its value: positional again
expect "a.svg"					"$FAKE" check -s 1G a
# device arguments: block devices from /sys
first=$(ls /sys/block | head -n 1)
if [ -n "$first" ]; then
	comp "$FAKE" sweep /dev/ | grep -qw "/dev/$first" || ts_fail "sweep DEVICE does not offer /dev/$first"
	comp "$FAKE" check /dev/ | grep -qw "/dev/$first" || ts_fail "check DEVICE does not offer /dev/$first"
fi

# with the bash-completion package loaded, the same function is registered
if [ -r /usr/share/bash-completion/bash_completion ]; then
	out=$(bash -c 'source /usr/share/bash-completion/bash_completion; source "$1"; complete -p alignprobe' x "$COMPL")
	case $out in *"-F _alignprobe alignprobe"*) ;; *) ts_fail "not registered: $out" ;; esac
fi

# the real binary: every subcommand of `alignprobe --help`
want=$(ts_commands | sort | paste -sd " ")
[ -n "$want" ] || ts_fail "alignprobe --help lists no commands"
expect "$want" "$ALIGNPROBE" ""
# and every command's options and columns as it prints them
for cmd in $want; do
	"$ALIGNPROBE" "$cmd" --help > "$TS_TMP/help" 2>/dev/null || continue
	got=$(comp "$ALIGNPROBE" "$cmd" --)
	for opt in $(grep -oE '^ +(-[A-Za-z0-9], )?--[a-z][a-z0-9-]*' "$TS_TMP/help" | grep -oE -- '--[a-z][a-z0-9-]*'); do
		case " $got " in *" $opt "*) ;; *) ts_fail "$cmd: option $opt of --help not completed ($got)" ;; esac
	done
	if "$ALIGNPROBE" "$cmd" --list-columns --raw > "$TS_TMP/cols" 2>/dev/null && [ -s "$TS_TMP/cols" ]; then
		cols=$(awk '{ print $1 }' "$TS_TMP/cols" | sort | paste -sd " ")
		expect "$cols" "$ALIGNPROBE" "$cmd" -o ""
	fi
done
# operands by the placeholders of each command's "Usage:" forms: verdicts'
# actions first, then merge's sources are files; a config, a target are files
expect "forget list merge show" "$ALIGNPROBE" verdicts ""
expect "$TS_TMP/files/b.json" "$ALIGNPROBE" verdicts merge --store x "$TS_TMP/files/b"
expect "" "$ALIGNPROBE" verdicts show "$TS_TMP/files/b"
expect "$TS_TMP/files/b.json" "$ALIGNPROBE" postmark "$TS_TMP/files/b"
expect "$TS_TMP/files/b.json" "$ALIGNPROBE" seq -s 1M "$TS_TMP/files/b"
expect "" "$ALIGNPROBE" sweep "$TS_TMP/files/b"
if [ -n "$first" ]; then
	comp "$ALIGNPROBE" probe /dev/ | grep -qw "/dev/$first" || ts_fail "probe <device> does not offer /dev/$first"
	comp "$ALIGNPROBE" check /dev/ | grep -qw "/dev/$first" || ts_fail "check <device> does not offer /dev/$first"
fi

ts_pass
