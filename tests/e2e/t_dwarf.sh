#!/usr/bin/env bash
# --call-graph dwarf: a workload built -O2 -fomit-frame-pointer (tests/workloads/nofp.c)
# gives broken frame-pointer chains and full DWARF chains from main, in zt's own
# recordings (BPF and perf_event samplers) and in perf's --call-graph dwarf perf.data,
# where zt's unwinding must give the stacks perf's gives.
. "$(dirname "$0")/lib.sh"
cd "$T"
NOFP="$WL/nofp"
# perf 6.1 here sometimes aborts in its build-id post-processing: retry
precord() { local i; for i in 1 2 3 4 5; do perf record -B --buildid-mmap "$@" > /dev/null 2>&1 && return 0; done; return 1; }

# Folded stacks from `perf script` (leaf-first frame lines after each header)
perf_folded() {
	perf_retry script -F comm,ip,sym --no-inline -i "$1" | awk '
		function out() { if (st != "") c[comm ";" st]++; st = "" }
		/^[^ \t]/ { out(); comm = $1; next }
		/^[ \t]+[0-9a-f]+ / { s = $2; sub(/\+0x[0-9a-f]+$/, "", s); st = st == "" ? s : s ";" st; next }
		/^$/ { out() }
		END { out(); for (k in c) print k, c[k] }'
}
# Folded stacks reduced to the workload's own frames (main, nf_*), summed and sorted
proj() {
	awk '{ n = $NF; $NF = ""; sub(/ $/, ""); k = split($0, f, ";"); s = "";
	       for (i = 1; i <= k; i++) if (f[i] ~ /^(main|nf_[a-z_]+|start_thread)$/) s = s == "" ? f[i] : s ";" f[i];
	       c[s] += n }
	     END { for (s in c) print s, c[s] }' | sort
}
# Share (integer percent) of the samples whose stack contains regex $2
share() {
	awk -v re="$2" '{ n = $NF; t += n; if ($0 ~ re) m += n } END { print t ? int(100 * m / t) : 0 }' "$1"
}
total() { awk '{ t += $NF } END { print t + 0 }' "$1"; }
lacks() { ! grep -q -- "$2" "$1"; }
CHAIN='(^|;)main;nf_outer;nf_middle;nf_inner;nf_leaf( |$)'

# ---- perf's own --call-graph dwarf files ---------------------------------
for mode in chain qsort thread deep; do
	precord -e cpu-clock -F 499 --call-graph dwarf -o $mode.perf -- "$NOFP" $mode 1 || fail "perf record $mode"
	perf_folded $mode.perf > $mode.perf.folded
	"$ZT" script --folded -i $mode.perf > $mode.zt.folded 2> $mode.zt.err
	check "$mode: zt unwinds perf's dwarf perf.data" [ $? -eq 0 -a "$(total $mode.zt.folded)" -gt 100 ]
	check "$mode: the same samples as perf" [ "$(total $mode.zt.folded)" = "$(total $mode.perf.folded)" ]
	# the workload's frames of every sample, as perf's unwinder gives them
	check "$mode: the same stacks as perf script (workload frames)" \
		diff <(proj < $mode.perf.folded) <(proj < $mode.zt.folded)
done
check "chain: >= 90% of the samples unwind to main (perf.data)" [ "$(share chain.zt.folded "$CHAIN")" -ge 90 ]
check "chain: ... and out to _start" [ "$(share chain.zt.folded '^nofp;_start;')" -ge 90 ]
# qsort's frames are libc's (perf names them __GI___qsort_r, zt qsort_r)
check "qsort: through libc's qsort (no frame pointers)" \
	[ "$(share qsort.zt.folded 'main;nf_sort;[^;]*qsort[^;]*;msort')" -ge 90 ]
check "qsort: ... and back out of it into the comparison function" \
	[ "$(share qsort.zt.folded 'main;nf_sort;[^;]*qsort[^;]*;msort.*;nf_cmp( |$)')" -ge 5 ]
check "thread: from clone3 through start_thread" \
	[ "$(share thread.zt.folded 'clone3;start_thread;nf_thread;nf_outer;nf_middle;nf_inner;nf_leaf( |$)')" -ge 90 ]
check "deep: perf's 8 KiB copy does not reach main" [ "$(share deep.zt.folded 'main;nf_deep')" -le 10 ]
precord -z -e cpu-clock -F 499 --call-graph dwarf -o z.perf -- "$NOFP" chain 1 || fail "perf record -z"
"$ZT" script --folded -i z.perf > z.zt.folded 2> z.zt.err
check "perf record -z (compressed records): unwound the same" [ "$(share z.zt.folded "$CHAIN")" -ge 90 ]
"$ZT" report --stdio -i deep.perf > deep.rep 2> deep.err
check "deep: the report says the stack copy was too small" grep -q 'larger --call-graph dwarf,SIZE' deep.err
"$ZT" report --stdio -v -i chain.perf > chain.rep 2> chain.err
check "-v: unwinding statistics" grep -qE 'unwound [0-9]+ user stacks with DWARF CFI' chain.err

# ---- zt's own recordings ---------------------------------------------------
"$ZT" record -q -F 499 --call-graph fp -o fp.data -- "$NOFP" chain 1
"$ZT" script --folded -i fp.data > fp.folded
check "--call-graph fp: chains broken without frame pointers (<= 10% reach main)" \
	[ "$(share fp.folded "$CHAIN")" -le 10 ]
"$ZT" record -q -F 499 --call-graph dwarf -o dw.data -- "$NOFP" chain 1 2> dw-rec.err
check "--call-graph dwarf records" [ $? -eq 0 ]
"$ZT" script --folded -i dw.data > dw.folded 2> dw.err
check "--call-graph dwarf: >= 90% of the samples unwind to main" [ "$(share dw.folded "$CHAIN")" -ge 90 ]
check "... and out to _start" [ "$(share dw.folded '^nofp;_start;')" -ge 90 ]
perf_folded chain.perf | proj > perf-chain.proj
proj < dw.folded > zt-chain.proj
check "zt record and perf record give the same main chain" \
	[ "$(sort -k2 -n -r perf-chain.proj | head -1 | cut -d' ' -f1)" = "$(sort -k2 -n -r zt-chain.proj | head -1 | cut -d' ' -f1)" ]
check "recording stays readable without unwinding errors" [ ! -s dw.err ]
# what perf report shows for perf's recording, and zt report for zt's: the
# chain under nf_leaf (libc's versioned .dynsym name aside)
# (its main path: a few samples may branch off, differently in each run)
leaf_chain() { awk '/nf_leaf$/ && /%/ { f = 1; next } f && /^ +[0-9.]+%/ { exit } f && NF' "$1" |
	sed -E 's/@@?GLIBC_[0-9.]+$//; s/^[ |-]+//; s/^[0-9.]+%--//' |
	awk '/^(_start|__libc_start_main|__libc_start_call_main|main|nf_[a-z_]+)$/ && !seen[$0]++'; }
perf_retry report --stdio --no-children -G --no-inline -i chain.perf > chain-perf.rep
"$ZT" report --stdio --no-children -G --no-inline -i dw.data > dw-G.rep 2>/dev/null
leaf_chain chain-perf.rep > chain-perf.leaf
leaf_chain dw-G.rep > chain-zt.leaf
check "perf report's chain for perf's recording = zt report's for zt's (_start to nf_leaf)" \
	diff chain-perf.leaf chain-zt.leaf
check "... which is the whole chain" grep -qx 'nf_outer' chain-zt.leaf

"$ZT" record -q -F 499 --call-graph dwarf -o th.data -- "$NOFP" thread 1
"$ZT" script --folded -i th.data > th.folded
check "thread (zt record): full chains from start_thread" \
	[ "$(share th.folded 'start_thread;nf_thread;nf_outer;nf_middle;nf_inner;nf_leaf( |$)')" -ge 90 ]

"$ZT" record -q -F 499 --call-graph dwarf -o qs.data -- "$NOFP" qsort 1
"$ZT" script --folded -i qs.data > qs.folded
check "qsort (zt record): through libc's qsort" \
	[ "$(share qs.folded 'main;nf_sort;[^;]*qsort[^;]*;msort')" -ge 90 ]
check "qsort (zt record): ... into the comparison function" \
	[ "$(share qs.folded 'main;nf_sort;[^;]*qsort[^;]*;msort.*;nf_cmp( |$)')" -ge 5 ]

deep25="main$(printf ';nf_deep%.0s' $(seq 25));nf_leaf( |$)" # mawk has no {25}
deep25_=$deep25
"$ZT" record -q -F 499 --call-graph dwarf -o deep8.data -- "$NOFP" deep 1
"$ZT" script --folded -i deep8.data > deep8.folded 2> deep8.err
# the copy ends long before main: the kernel unwinder's chain, recorded
# with it, carries the unwind on (its first frames the same)
check "deep, dwarf,8192: past the copy's end with the kernel unwinder's chain, to main" \
	[ "$(share deep8.folded "$deep25_")" -ge 80 ]
check "deep, dwarf,8192: no warning about the copy's size then" lacks deep8.err 'larger --call-graph dwarf,SIZE'
ZT_BTF_VMLINUX=/nonexistent "$ZT" record -q -F 499 --call-graph dwarf -o deep8pe.data -- "$NOFP" deep 1 2> /dev/null
"$ZT" script --folded -i deep8pe.data > deep8pe.folded 2> deep8pe.err
check "deep, dwarf,8192, perf_event sampler (no kernel unwinder): cut short, and said so" \
	all '[ "$(share deep8pe.folded "main;nf_deep")" -le 10 ]' "grep -q 'larger --call-graph dwarf,SIZE' deep8pe.err"
"$ZT" record -q -F 499 --call-graph dwarf,32768 -o deep32.data -- "$NOFP" deep 1
"$ZT" script --folded -i deep32.data > deep32.folded 2> deep32.err

check "deep, dwarf,32768: all 25 frames of nf_deep, to main" [ "$(share deep32.folded "$deep25")" -ge 80 ]

# the mixed walk: the same deep recursion with frame pointers, an 8 KiB copy:
# DWARF to the end of the copy, the sampler's frame-pointer chain from there
# (the perf_event sampler's: the BPF sampler records the kernel unwinder's)
ZT_BTF_VMLINUX=/nonexistent "$ZT" record -q -F 499 --call-graph dwarf -o mixed.data -- "$WL/nofp-fp" deep 1 2> mixed-rec.err
"$ZT" script -v --folded -i mixed.data > mixed.folded 2> mixed.err
check "mixed: DWARF walks cut short carried on with frame pointers ($(grep -o 'unwound.*' mixed.err | head -c 120)$(head -c 200 mixed-rec.err))" \
	grep -qE 'unwound [0-9]+ user stacks .*[1-9][0-9]* extended with the recorded chain, 0 of them the kernel' mixed.err
check "mixed: all 25 nf_deep frames, each once, to main" [ "$(share mixed.folded "$deep25")" -ge 80 ]

# the perf_event sampler (no BTF): the same snapshots through perf's own format
ZT_BTF_VMLINUX=/nonexistent "$ZT" record -q -F 499 --call-graph dwarf -o pe.data -- "$NOFP" chain 1 2> pe-rec.err
"$ZT" script --folded -i pe.data > pe.folded
check "perf_event sampler: >= 90% unwind to main" [ "$(share pe.folded "$CHAIN")" -ge 90 ]

# without privileges: the user's own command, through perf_event (as perf does)
asnobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all -- "$@"; }
mkdir nb && chown 65534:65534 nb
( cd nb && ZT_CACHE_DIR="$T/nb/cache" asnobody "$ZT" record -q -F 499 --call-graph dwarf -o u.data -- "$NOFP" chain 1 ) 2> nb.err
( cd nb && ZT_CACHE_DIR="$T/nb/cache" asnobody "$ZT" script --folded -i u.data ) > nb.folded 2>> nb.err
check "unprivileged: --call-graph dwarf of one's own command unwinds to main" \
	[ "$(share nb.folded "$CHAIN")" -ge 90 ]

# every reader of a recording sees the unwound stacks
"$ZT" report --stdio --children -i dw.data > dw.rep
check "report: main has ~all the samples as Children" \
	awk '/^ +[0-9.]+% +[0-9.]+% / && $NF == "main" { gsub("%", "", $1); if ($1 + 0 >= 90) f = 1 } END { exit !f }' dw.rep
"$ZT" flame -i dw.data -o dw.svg 2> flame.err
check "flame: the chain is in the graph" grep -q 'nf_middle' dw.svg
"$ZT" convert -i dw.data -o dw.perf > /dev/null 2>&1
perf_retry report --stdio --no-children -G -i dw.perf > dw-perf.rep
grep -A12 'nf_leaf$' dw-perf.rep > dw-perf-chain.txt
check "convert: perf report shows the unwound chain" grep -q 'nf_middle' dw-perf-chain.txt

# usage errors
for bad in dwarf,0 dwarf,70000 dwarf,abc dwarf,; do
	"$ZT" record --call-graph "$bad" -o bad.data -- true 2> bad.err
	check "--call-graph $bad: a usage error" all "[ $? -eq 129 ]" "grep -q 'zt record:' bad.err"
done
finish
