#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Go binaries named from .gopclntab: tests/workloads/gohot (known functions,
# helpers the compiler inlines, goroutines) built by Debian's go with DWARF
# and stripped (-ldflags='-s -w'), each recorded with zt record -g. The
# stripped one's report names its frames, inlined ones included, as the
# unstripped one's does (every address sampled in either recording gets the
# same name from both binaries); zt symbolize -f -i on 1,000 random PCs of
# its text agrees with go tool addr2line on the function and file:line
# (>= 99.9%), and its inline chains with the unstripped binary's DWARF
# answer. Skipped where go is not installed.
SRC=$(cd "$(dirname "$0")/../workloads/gohot" && pwd)
. "$(dirname "$0")/lib.sh"
cd "$T"
if ! command -v go > /dev/null; then
	skip "no go here (Debian's golang-go: scripts/setup.sh --test)"
	finish
fi
# a private build cache; no module lookups, no toolchain downloads
export HOME="$T" GOCACHE="$T/gocache" GOPATH="$T/gopath" GO111MODULE=off GOFLAGS= GOPROXY=off \
	GOTOOLCHAIN=local
echo "  $(go version)"
cp "$SRC/main.go" .
if ! go build -o gohot main.go || ! go build -ldflags='-s -w' -o gohot_strip main.go; then
	fail "go build of tests/workloads/gohot"
	finish
fi
stripped() { ! readelf -SW "$1" | grep -qE ' \.(symtab|debug_info|zdebug_info) '; }
check "gohot_strip has no symbol table and no DWARF" stripped gohot_strip
check "gohot has DWARF" all "readelf -SW gohot | grep -q ' \\.debug_info '"

# ---- recordings --------------------------------------------------------------------
"$ZT" record -q -g -F 999 -o full.data -- ./gohot 1 > /dev/null 2> rec-full.err
check "zt record -g of gohot" [ $? -eq 0 ]
"$ZT" record -q -g -F 999 -o strip.data -- ./gohot_strip 1 > /dev/null 2> rec-strip.err
check "zt record -g of gohot_strip" [ $? -eq 0 ]
"$ZT" report --stdio --no-children -i full.data > full.rep 2> full.err
"$ZT" report --stdio --no-children -v -i strip.data > strip.rep 2> strip.err
check "the stripped binary's frames are all named (no [gohot_strip+0x...])" \
	all "! grep -q 'gohot_strip+0x' strip.rep" "grep -q 'main\\.spinMix' strip.rep"
check "... with full symbols: not among the modules without them" \
	all "! grep -E '^# Without full symbols:.*gohot_strip' strip.rep" "grep -q '^# Symbols:' strip.rep"
check "the symbol source is said: go pclntab (-v, and the report's summary)" \
	all "grep -q \"gohot_strip': symbols from go pclntab\" strip.err" \
	    "grep -qE '^# Symbols from go pclntab \\(no DWARF\\): .*gohot_strip' strip.rep" \
	    "! grep -qE '^# Symbols from go pclntab' full.rep"
for f in main.spinMix main.hotLeaf main.main main.main.func1 'main.inlMix (inlined)' \
	'main.inlAdd (inlined)'; do
	check "both reports show $f" all "grep -qF -- '$f' full.rep" "grep -qF -- '$f' strip.rep"
done
hot() { awk '!/^#/ && $4 == "[.]" { print $5; n++ } n == 2 { exit }' "$1"; }
check "the same two hottest functions" \
	all "[ -n \"\$(hot strip.rep)\" ]" "[ \"\$(hot strip.rep)\" = \"\$(hot full.rep)\" ]"

# Every user address sampled in either recording (gohot's own frames), as
# ELF virtual addresses (Go's executables: file offset + the first load
# segment's vaddr - offset)
bias=$(readelf -lW gohot | awk '$1 == "LOAD" { print $3 " " $2; exit }')
base=$(( ${bias% *} - ${bias#* } ))
for d in full strip; do
	"$ZT" script -i $d.data 2> /dev/null | awk -v m="gohot" '
		$NF ~ "/" m "(_strip)?\\)$" && $1 ~ /^[0-9a-f]+$/ { print $1 }'
done | sort -u | while read -r off; do printf '0x%x\n' $(( 16#$off + base )); done > sampled.pcs
# outermost names, LLVM style (the covering symbol's name, else the
# function's): Go's symbol table says runtime.goexit.abi0 where its
# pclntab says runtime.goexit
outer() {
	"$ZT" symbolize --output-style=LLVM -e "$1" < sampled.pcs |
		awk 'NF == 0 { print last; n = 0; next } n++ % 2 == 0 { last = $0 }' | sed 's/\.abi0$//'
}
outer gohot > sampled.dwarf
outer gohot_strip > sampled.pclntab
# (an address in the padding after a function that ends in a call, a
# return address there: its symbol does not cover it, the pclntab does)
n=$(wc -l < sampled.pcs)
named=$(grep -cv '^??$' sampled.dwarf)
same=$(paste -d'\n' sampled.dwarf sampled.pclntab | paste - - | awk -F'\t' '$1 != "??" && $1 == $2' | wc -l)
echo "  $n addresses sampled in gohot's code, $named named by the unstripped binary, $same the same by the stripped one"
paste sampled.pcs sampled.dwarf sampled.pclntab | awk -F'\t' '$2 != "??" && $2 != $3' | head -5 | sed 's/^/    differ: /'
check "every sampled address: the stripped binary names what the unstripped one does" \
	all "[ $named -ge 20 ]" "[ $same -eq $named ]" "[ $(wc -l < sampled.dwarf) -eq $n ]" \
	"! grep -q '^??$' sampled.pclntab"

# ---- zt symbolize against go tool addr2line on 1,000 random PCs ------------------------
read -r taddr tsize < <(readelf -SW gohot_strip | sed 's/^ *\[ *[0-9]*\]//' |
	awk '$1 == ".text" { print $3, $5 }')
RANDOM=37
for i in $(seq 1000); do
	printf '0x%x\n' $(( 16#$taddr + (RANDOM * 32768 + RANDOM) % 16#$tsize ))
done > random.pcs
go tool addr2line gohot_strip < random.pcs | paste - - > go.txt
# zt symbolize -a -f -i: the address, then a name and a file:line per
# frame, innermost first; addr2line's answer is the outermost function
# with the innermost file:line
"$ZT" symbolize -a -f -i -e gohot_strip < random.pcs > zt.out 2> zt.err
awk 'function out() { if (name != "") print name "\t" pos }
     /^0x[0-9a-f]+$/ && length($0) == 18 { out(); name = ""; pos = ""; k = 0; next }
     { if (k % 2 == 0) name = $0; else if (pos == "") pos = $0; k++ }
     END { out() }' zt.out > zt.txt
# no line (the padding after a function's code, which its tables do not
# cover): addr2line says ":-1", zt "??:?", as GNU addr2line does
agree=$(paste -d'\n' go.txt zt.txt | paste - - |
	awk -F'\t' '{ sub(/^:-1$/, "??:?", $2) } $1 == $3 && $2 == $4' | wc -l)
echo "  go tool addr2line and zt symbolize agree on $agree of 1000 random PCs of .text"
paste random.pcs go.txt zt.txt | awk -F'\t' '{ sub(/^:-1$/, "??:?", $3) } $2 != $4 || $3 != $5' |
	head -5 | sed 's/^/    differ: /'
check "zt symbolize -f -i agrees with go tool addr2line on >= 99.9% (function, file:line)" \
	all "[ $(wc -l < zt.txt) -eq 1000 ]" "[ $(wc -l < go.txt) -eq 1000 ]" "[ $agree -ge 999 ]"

# ---- inline chains: the stripped binary's pclntab against the unstripped one's DWARF -----
chains() {
	"$ZT" symbolize --output-style=LLVM -e "$1" < random.pcs |
		awk 'NF == 0 { print c; c = ""; next } { sub(/\.abi0$/, ""); c = c == "" ? $0 : c " | " $0 }'
}
# (wrappers' file: DWARF's "<autogenerated>" under its compile directory ".",
# the pclntab's bare, as go tool addr2line prints it; and the pclntab names
# instantiations and their kind "[...]" where the symbol table spells out
# the type arguments, type..eq.[5]internal/cpu.option)
chains gohot | sed 's,\./<autogenerated>,<autogenerated>,g; s/\[[^]|]*\]/[...]/g' > chain.dwarf
chains gohot_strip | sed 's/\[[^]|]*\]/[...]/g' > chain.pclntab
inl=$(awk -F' [|] ' 'NF > 2' chain.pclntab | wc -l)
inl_same=$(paste -d'\n' chain.dwarf chain.pclntab | paste - - |
	awk -F'\t' '{ n = split($2, a, " [|] ") } n > 2 && $1 == $2' | wc -l)
# (DWARF has no function in the padding between functions: those PCs aside)
named=$(grep -cv '^?? ' chain.dwarf)
all_same=$(paste -d'\n' chain.dwarf chain.pclntab | paste - - | awk -F'\t' '$1 !~ /^\?\? / && $1 == $2' | wc -l)
echo "  $inl of the PCs in inlined code: $inl_same chains the same as DWARF's;" \
	"$all_same of the $named PCs DWARF names in all"
paste random.pcs chain.dwarf chain.pclntab | awk -F'\t' '$2 !~ /^\?\? / && $2 != $3' | head -3 |
	sed 's/^/    differ: /'
check "inline chains agree with the unstripped binary's DWARF (>= 99.9% of PCs in inlined code)" \
	all "[ $inl -ge 20 ]" "[ $((inl_same * 1000)) -ge $((inl * 999)) ]" \
	"[ $((all_same * 1000)) -ge $((named * 999)) ]" "[ $named -ge 900 ]"
# a chain through both inlined helpers, in a sample of the stripped binary
check "a sampled chain main.inlAdd < main.inlMix < main.spinMix, with their lines" \
	bash -c "'$ZT' symbolize --output-style=LLVM -e gohot_strip < sampled.pcs |
		tr '\n' ' ' | grep -qE 'main\\.inlAdd [^ ]*main\\.go:20:0 main\\.inlMix [^ ]*main\\.go:24:0 main\\.spinMix [^ ]*main\\.go:40:0'"
finish
