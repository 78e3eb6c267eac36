#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The source tree is a map of the program (docs/design.md, "The map"): each
# folder of src/ is one layer, and a layer includes only the layers below
# it. This test holds the rules that keep it so:
#   - every #include of alignprobe's own headers names its folder, and the
#     folder is one the including layer may use (the table below), so no
#     include cycle between folders can exist;
#   - the table is exact: each edge it allows is used by an include, and
#     docs/design.md's map ("may use") says the same edges;
#   - a private header (*P.h) is included only from its own folder;
#   - nothing outside src/compat defines a symbol libc exports;
#   - no .c file over 900 lines; no function over 120 lines, option parsers
#     included (their shared options are src/cmd/opts.h's table).
. "$top_srcdir/tests/ts/functions.sh"
ts_init "layout: layers"
ts_untimed "the source tree and its documents"

src="$top_srcdir/src"

# layer: the layers it includes (itself always); exactly the edges in use,
# so a new edge is a line here and in design.md's map, seen in review
declare -A may=(
	[lib]=""
	[ui]="lib"
	[analysis]="lib"
	[workload]="lib"
	[emu]="lib"
	[device]="lib"
	[fleet]="device analysis lib"
	[sweep]="device workload analysis lib"
	[probe]="device analysis lib"
	[seq]="device workload lib"
	[smr]="probe device lib"
	[check]="fleet device analysis lib"
	[cleanup]="device emu lib"
	[cmd]="cleanup check sweep smr probe seq fleet device workload analysis emu ui lib"
	[compat]=""
	[.]="cmd lib"
)

bad=0
declare -A used=()
for f in "$src"/*.[ch] "$src"/*/*.[ch]; do
	rel=${f#"$src"/}
	case $rel in */*) layer=${rel%%/*} ;; *) layer=. ;; esac
	[ -n "${may[$layer]+x}" ] || { echo "$rel: folder $layer is not in the layer table"; bad=1; continue; }
	while IFS= read -r inc; do
		case $inc in
		*/*) dep=${inc%%/*} ;;
		config.h) continue ;;
		*) echo "$rel: #include \"$inc\" does not name its folder"; bad=1; continue ;;
		esac
		case $inc in
		*P.h) [ "$dep" = "$layer" ] || { echo "$rel: #include \"$inc\" is private to $dep/"; bad=1; } ;;
		esac
		[ "$dep" = "$layer" ] && continue
		used[$layer $dep]=1
		case " ${may[$layer]} " in
		*" $dep "*) ;;
		*) echo "$rel: layer $layer may not include $inc (layer $dep)"; bad=1 ;;
		esac
	done < <(sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$f")
done

# the table allows no edge that nothing uses, and design.md's map agrees
for layer in $(printf '%s\n' "${!may[@]}" | sort); do
	for dep in ${may[$layer]}; do
		[ -n "${used[$layer $dep]+x}" ] ||
			{ echo "layer table: $layer may include $dep, but no file does: drop the edge (here and in docs/design.md)"; bad=1; }
	done
done
design="$top_srcdir/docs/design.md"
declare -A doc=()
while IFS='|' read -r folder edges; do
	doc[$folder]=$edges
done < <(sed -n 's/^| `src\/\([a-z]*\)\/` |.*| \([a-z, ]*\) |$/\1|\2/p; s/^| `src\/main\.c` |.*| \([a-z, ]*\) |$/.|\1/p' "$design")
for layer in $(printf '%s\n' "${!may[@]}" | sort); do
	want=$(printf '%s\n' ${may[$layer]} | sort | tr '\n' ' ')
	[ -n "${doc[$layer]+x}" ] || { echo "docs/design.md: the map has no row for src/$layer"; bad=1; continue; }
	have=${doc[$layer]//,/ }
	[ "$have" = nothing ] && have=
	have=$(printf '%s\n' $have | sort | tr '\n' ' ')
	[ "$have" = "$want" ] ||
		{ echo "docs/design.md: the map says $layer may use \"${doc[$layer]}\", the table here \"${may[$layer]}\""; bad=1; }
done

# .c files over 900 lines
for f in "$src"/*.c "$src"/*/*.c; do
	n=$(wc -l < "$f")
	[ "$n" -le 900 ] || { echo "${f#"$src"/}: $n lines (at most 900)"; bad=1; }
done

# functions over 120 lines: a definition starts with a line at column 0
# ending in ')' followed by a line holding only '{', and ends at the next
# '}' at column 0 (the kernel style .clang-format enforces)
for f in "$src"/*.c "$src"/*/*.c; do
	awk -v file="${f#"$src"/}" '
		/^[A-Za-z_]/ && /\(/ { decl = $0; dline = NR }
		prev ~ /\)$/ && $0 == "{" && dline {
			name = decl; sub(/\(.*/, "", name); sub(/.*[ *]/, "", name); start = dline; next_in = 1
		}
		next_in && /^}/ {
			n = NR - start + 1; next_in = 0
			if (n > 120)
				printf "%s: %s() is %d lines (at most 120)\n", file, name, n
		}
		{ prev = $0 }' "$f"
done > "$TS_TMP/long"
if [ -s "$TS_TMP/long" ]; then cat "$TS_TMP/long"; bad=1; fi

# libc symbols defined outside src/compat
libc=$(ldd "$ALIGNPROBE" 2>/dev/null | sed -n 's/^[ \t]*libc\.so\.6 => \([^ ]*\).*/\1/p')
[ -n "$libc" ] && [ -r "$libc" ] || ts_skip "no libc.so.6 found through ldd $ALIGNPROBE"
command -v nm >/dev/null || ts_skip "no nm (binutils)"
nm -D --defined-only "$libc" | awk '{print $NF}' | sed 's/@.*//' | sort -u > "$TS_TMP/libc"
lib="$top_builddir/libalignprobe.a"
[ -r "$lib" ] || ts_fail "no $lib: build first"
nm --defined-only -g "$lib" 2>/dev/null | awk 'NF == 3 && $2 ~ /[TDBRW]/ {print $3}' | sort -u > "$TS_TMP/ours"
comm -12 "$TS_TMP/libc" "$TS_TMP/ours" > "$TS_TMP/both"
if [ -s "$TS_TMP/both" ]; then
	echo "libalignprobe.a defines libc symbols (only src/compat may, in the binary): $(tr '\n' ' ' < "$TS_TMP/both")"
	bad=1
fi

[ "$bad" = 0 ] || ts_fail "the tree breaks its layering rules (above)"
ts_pass
