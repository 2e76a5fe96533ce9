#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --call-graph dwarf, the kernel unwinder (-g), and symbolization whatever the linker made of the load
# segments' p_offset and p_vaddr: C, C++ and a Rust release build linked by
# lld (code at a file offset a page off its vaddr: 0x990 at 0x1990), GNU ld
# with and without -z separate-code, gold, PIE and non-PIE, PIEs placed at a
# nonzero base (as prelink leaves them). Each is recorded by zt record and
# by perf record --call-graph dwarf: the stacks that reach main and _start
# are counted in zt's recording, in perf's read by zt, and in perf's own
# report of its recording (zt's must be at least perf's); names, source
# lines and zt annotate of the lld binaries are compared with perf's and
# addr2line's. perf failing is "reference unavailable", not a failure.
SRC=$(cd "$(dirname "$0")/../workloads" && pwd)
. "$(dirname "$0")/lib.sh"
cd "$T"
CF="-O2 -g -fomit-frame-pointer"

# perf 6.1 here sometimes aborts in its build-id post-processing: retry
precord() { local i; for i in 1 2 3 4 5; do perf record -B "$@" > /dev/null 2>&1 && return 0; done; return 1; }
# perf_ref B: perf's recording of ./B in B.perf and its own folded stacks in
# B.perf.folded; perf 6.1 here can abort on every reading of one file:
# recorded again, three times at most
perf_ref() {
	local i
	for i in 1 2 3; do
		# shellcheck disable=SC2046
		precord -e cpu-clock -F 499 --call-graph dwarf -o "$1.perf" -- "./$1" $(args "$1") &&
			perf_folded "$1.perf" > "$1.perf.folded" && [ -s "$1.perf.folded" ] && return 0
	done 2> /dev/null
	return 1
}
# Folded stacks from perf script's own unwinding (outermost frame first)
perf_folded() {
	perf_retry script -F comm,ip,sym --no-inline -i "$1" | awk '
		function out() { if (st != "") c[comm ";" st]++; st = "" }
		/^[^ \t]/ { out(); comm = $1; next }
		/^[ \t]+[0-9a-f]+ / { s = $2; sub(/\+0x[0-9a-f]+$/, "", s); st = st == "" ? s : s ";" st; next }
		/^$/ { out() }
		END { out(); for (k in c) print k, c[k] }'
}
total() { awk '{ t += $NF } END { print t + 0 }' "$1"; }
# samples whose stack goes from the program's _start to main: "comm;_start;...;main;..."
ROOTED='^[^;]*;_start;([^;]*;)*main(;| )'
reach() { awk -v re="$ROOTED" '$0 ~ re { t += $NF } END { print t + 0 }' "$1"; }
# the samples in the workload's hot function (leaf() B), and how many of
# them reach main from _start: "N R" (start-up samples, in ld.so, are as
# many on a loaded machine as a third of a short run's: not these)
leaf() { case $1 in lld-cpp) echo 'nfx::leaf' ;; rs) echo 'nofp_rs::rs_leaf' ;; *) echo nf_leaf ;; esac; }
hot() {
	awk -v lf=";$(leaf "$1")(;| )" -v re="$ROOTED" '
		$0 ~ lf { n += $NF; if ($0 ~ re) r += $NF } END { print n + 0, r + 0 }' "$2"
}
pct() { [ "$2" -gt 0 ] && echo $((100 * $1 / $2)) || echo 0; }
# (each check below is one command: a function, never "check ... [ ] && [ ]")
# mostly_rooted REACHED TOTAL: over 20 samples, >= 95% of them from _start to main
mostly_rooted() { [ "$2" -gt 20 ] && [ "$(pct "$1" "$2")" -ge 95 ]; }
# as_perf ZT_REACHED ZT_TOTAL PERF_REACHED PERF_TOTAL: the same file's samples, at least perf's rooted
as_perf() { [ "$2" = "$4" ] && [ "$1" -ge "$3" ] && [ "$1" -gt 0 ]; }
# same_nonempty A B: A has lines, and B is the same
same_nonempty() { [ -s "$1" ] && diff "$1" "$2"; }
# the code segment of an ELF file: "p_offset p_vaddr" in hex (readelf -lW
# splits the flags "R E" in two fields)
codeseg() { readelf -lW "$1" | awk '$1 == "LOAD" && / E 0x/ { print $2, $3; exit }'; }
# file offset (hex, no 0x) -> ELF vaddr (hex) through the PT_LOAD holding it
# (the test's own conversion, the oracle's)
off2vaddr() {
	local x=$((0x$2)) ty off va pa fs rest
	while read -r ty off va pa fs rest; do
		[ "$ty" = LOAD ] || continue
		if [ "$x" -ge $((off)) ] && [ "$x" -lt $((off + fs)) ]; then
			printf '%x\n' $((x - off + va))
			return 0
		fi
	done < <(readelf -lW "$1")
	return 1
}

# ---- the binaries ------------------------------------------------------------
# name, then how it is built (into ./name): built where its linker is
# there (a failure then fails), skipped (and counted) where it is not
bins=()
build() {
	local n=$1 rc
	shift
	"$@" > "$n.build.err" 2>&1
	rc=$?
	if [ "$rc" -eq 0 ]; then
		bins+=("$n")
	elif [ "$rc" -eq 99 ]; then
		skip "$n: $(cat "$n.build.err")"
	else
		fail "$n: does not build: $(head -3 "$n.build.err")"
	fi
}
cc_lld() { command -v ld.lld > /dev/null || { echo "no ld.lld (Debian package lld)"; return 99; }; "$@"; }
cc_gold() { command -v ld.gold > /dev/null || { echo "no ld.gold (Debian package binutils-gold)"; return 99; }; "$@"; }
build lld-c cc_lld gcc $CF -fuse-ld=lld -o lld-c "$SRC/nofp.c" -lpthread
build lld-cpp cc_lld g++ $CF -fuse-ld=lld -o lld-cpp "$SRC/nofp_cpp.cc"
build lld-nopie cc_lld gcc $CF -no-pie -fuse-ld=lld -o lld-nopie "$SRC/nofp.c" -lpthread
build lld-base cc_lld gcc $CF -fuse-ld=lld -Wl,--image-base=0x10000000 -o lld-base "$SRC/nofp.c" -lpthread
build bfd-sep gcc $CF -Wl,-z,separate-code -o bfd-sep "$SRC/nofp.c" -lpthread
build bfd-nosep gcc $CF -Wl,-z,noseparate-code -o bfd-nosep "$SRC/nofp.c" -lpthread
build bfd-base gcc $CF -Wl,-Ttext-segment=0x10000000 -o bfd-base "$SRC/nofp.c" -lpthread
build gold cc_gold gcc $CF -fuse-ld=gold -o gold "$SRC/nofp.c" -lpthread
if ! command -v rustc > /dev/null; then
	skip "rs: no rustc (the Rust release build)"
elif ! rustc --version > rustc.err 2>&1; then
	# rustup's proxy without a toolchain (a HOME without ~/.rustup: set RUSTUP_HOME)
	skip "rs: rustc does not run here ($(head -1 rustc.err))"
else
	# a release build as cargo makes it (opt-level 3, no debug info of its
	# own, no frame pointers); since Rust 1.90 linked by rust-lld
	build rs rustc -C opt-level=3 -o rs "$SRC/nofp_rs.rs"
fi
args() { case $1 in lld-cpp | rs) echo 1 ;; *) echo chain 1 ;; esac; }

# the premise: lld's code starts inside the file page of the read-only
# segment before it, at another vaddr - offset distance (the mapping of the
# code has pgoff 0, which the first segment holds too)
premise() {
	local o v f0 v0
	read -r o v < <(codeseg "$1")
	read -r f0 v0 < <(readelf -lW "$1" | awk '$1 == "LOAD" { print $2, $3; exit }')
	[ "${2:-}" = show ] && { echo "code at file offset $o, vaddr $v"; return 0; }
	[ $((o % 4096)) -ne 0 ] && [ $((v - o)) -ne $((v0 - f0)) ]
}
if [ -x lld-c ]; then
	check "lld-c: $(premise lld-c show), in a page shared with another segment" premise lld-c
fi
if [ -x rs ]; then
	if readelf -p .comment rs 2> /dev/null | grep -q 'Linker: LLD'; then
		check "rs: linked by lld, $(premise rs show), in a page shared with another segment" premise rs
	else
		echo "  (rs: not linked by lld with this rustc: checked as any other layout)"
	fi
fi

# ---- unwinding: zt's recording, perf's read by zt, perf's own --------------------
for b in "${bins[@]}"; do
	# shellcheck disable=SC2046
	"$ZT" record -q -F 499 --call-graph dwarf -o "$b.data" -- "./$b" $(args "$b") > /dev/null 2> "$b.rec.err"
	"$ZT" script --folded -i "$b.data" > "$b.zt.folded" 2> "$b.zt.err"
	read -r zt_n zt_r < <(hot "$b" "$b.zt.folded")
	check "$b: zt record --call-graph dwarf, $zt_r of $zt_n samples in $(leaf "$b") from _start to main (>= 95%)" \
		mostly_rooted "$zt_r" "$zt_n"
	# the kernel unwinder (-g): the same binary's tables in BPF
	# shellcheck disable=SC2046
	"$ZT" record -q -F 499 -g -o "$b.k.data" -- "./$b" $(args "$b") > /dev/null 2> "$b.k.err"
	"$ZT" script --folded -i "$b.k.data" > "$b.k.folded" 2> "$b.kz.err"
	read -r k_n k_r < <(hot "$b" "$b.k.folded")
	check "$b: zt record -g (kernel unwinder), $k_r of $k_n samples in $(leaf "$b") from _start to main (>= 95%)" \
		mostly_rooted "$k_r" "$k_n"
	if perf_ref "$b"; then
		read -r ph_n ph_r < <(hot "$b" "$b.perf.folded")
		check "$b: zt record -g, $(pct "$k_r" "$k_n")% of $(leaf "$b") to main (perf --call-graph dwarf: $(pct "$ph_r" "$ph_n")%)" \
			[ "$(pct "$k_r" "$k_n")" -ge $(($(pct "$ph_r" "$ph_n") - 2)) ]
		# the whole file's samples, every one compared
		p_n=$(total "$b.perf.folded") p_r=$(reach "$b.perf.folded")
		"$ZT" script --folded -i "$b.perf" > "$b.zp.folded" 2> "$b.zp.err"
		zp_n=$(total "$b.zp.folded") zp_r=$(reach "$b.zp.folded")
		check "$b: perf's recording read by zt, $zp_r of $zp_n from _start to main (perf: $p_r of $p_n)" \
			as_perf "$zp_r" "$zp_n" "$p_r" "$p_n"
		check "$b: zt's own recording, $(pct "$zt_r" "$zt_n")% of $(leaf "$b") to main (perf's of its own: $(pct "$ph_r" "$ph_n")%)" \
			[ "$(pct "$zt_r" "$zt_n")" -ge $(($(pct "$ph_r" "$ph_n") - 2)) ]
	else
		skip "$b: reference unavailable (perf record/script --call-graph dwarf failed)"
		rm -f "$b.perf"
	fi
done

# ---- names, source lines, annotate of the lld binaries -------------------------
# per sample, the frames in the binary b itself: "name|name|...", leaf first
chains() {
	awk -v dso="/$1)" '
		/^$/ { if (s != "") print s; s = ""; next }
		index($0, dso) == length($0) - length(dso) + 1 {
			sub(/^[ \t]*[0-9a-f]+ /, ""); sub(/ \([^(]*\)$/, ""); sub(/\+0x[0-9a-f]+$/, "")
			s = s == "" ? $0 : s "|" $0 }
		END { if (s != "") print s }' | sort | uniq -c
}
# frames of b with their source lines: "ip name file:line", from -F
# ip,sym,dso,srcline (perf's "file:0", no line known, is left out: zt
# prints none there)
srclines() {
	awk -v dso="/$1)" '
		index($0, dso) == length($0) - length(dso) + 1 { ip = $1; nm = $2; want = 1; next }
		want && /^  [^ ]+:[1-9][0-9]*/ { print ip, nm, $1 } { want = 0 }' | sort -u
}
for b in lld-c lld-cpp rs; do
	[ -s "$b.perf" ] || continue
	perf_retry script -i "$b.perf" -F ip,sym,dso --no-inline > "$b.p.frames"
	"$ZT" script -i "$b.perf" -F ip,sym,dso --no-inline > "$b.z.frames" 2> "$b.zf.err"
	chains "$b" < "$b.p.frames" > "$b.p.chains"
	chains "$b" < "$b.z.frames" > "$b.z.chains"
	check "$b: the binary's frames named as perf names them ($(wc -l < "$b.p.chains") chains)" \
		same_nonempty "$b.p.chains" "$b.z.chains"
	if perf_retry script -i "$b.perf" -F ip,sym,dso,srcline --no-inline > "$b.p.src"; then
		"$ZT" script -i "$b.perf" -F ip,sym,dso,srcline --no-inline > "$b.z.src" 2> "$b.zs.err"
		srclines "$b" < "$b.p.src" > "$b.p.lines"
		srclines "$b" < "$b.z.src" > "$b.z.lines"
		if [ -s "$b.p.lines" ]; then
			check "$b: source lines as perf's ($(wc -l < "$b.p.lines") frames)" \
				diff "$b.p.lines" "$b.z.lines"
		else
			echo "  ($b: no source lines of its own, perf's or zt's)"
		fi
	else
		skip "$b: reference unavailable (perf script -F srcline failed)"
	fi
	# addr2line on zt's addresses (file offsets, turned into vaddrs here)
	bad=0 n=0
	while read -r ip nm fl; do
		va=$(off2vaddr "$b" "$ip")
		a2l=$(addr2line -e "$b" "0x$va" | sed 's|.*/||; s/ (discriminator [0-9]*)//')
		n=$((n + 1))
		[ "$a2l" = "$fl" ] || { bad=$((bad + 1)); echo "    $ip ($nm): zt $fl, addr2line $a2l"; }
	done < <(srclines "$b" < "$b.z.src")
	if [ "$n" -gt 0 ]; then
		check "$b: source lines as addr2line's at zt's addresses ($n frames)" [ "$bad" -eq 0 ]
	fi
done
# zt annotate of an lld binary's function: perf's instructions, perf's percentages
insns() { grep -E '^ +[0-9]+\.[0-9]+ : +[0-9a-f]+:' "$1" | sed 's/ *$//'; }
for b in lld-c,nf_leaf,nf_leaf lld-cpp,nfx::leaf,_ZN3nfx4leafEm; do
	IFS=, read -r b sym raw <<< "$b"
	[ -x "$b" ] || continue
	if [ -s "$b.perf" ] && perf_retry annotate -i "$b.perf" --stdio -s "$sym" > "$b.p.ann" &&
		[ -n "$(insns "$b.p.ann")" ]; then
		"$ZT" annotate -i "$b.perf" --stdio "$sym" > "$b.z.ann" 2> "$b.za.err"
		# (addresses and percentages: objdump's names of branch targets in C++
		# code, "nfx::leaf(unsigned long)+0x20", are not zt's, whatever the linker)
		check "$b: zt annotate $sym of perf's recording, perf's instructions and percentages" \
			cmp -s <(insns "$b.p.ann" | awk '{print $1, $3}') <(insns "$b.z.ann" | awk '{print $1, $3}')
	else
		skip "$b: reference unavailable (perf annotate $sym failed)"
	fi
	"$ZT" annotate -i "$b.data" --stdio "$sym" > "$b.zz.ann" 2> "$b.zza.err"
	addr=$(nm "$b" | awk -v s="$raw" '$3 == s { print $1; exit }')
	check "$b: zt annotate $sym of zt's recording, at its vaddr $addr (nm)" \
		grep -qF " $addr <$sym>:" "$b.zz.ann"
done
finish
