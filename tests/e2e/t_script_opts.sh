#!/usr/bin/env bash
# zt script's perf options on a perf.data file, each compared with perf
# script's own output on the same file (--pid, --tid, --comm, --time in
# its forms, -C, -S, --dsos, --max-stack, --show-task-events,
# --show-mmap-events, --header, --reltime), and the same options on a
# zt.data file.
. "$(dirname "$0")/lib.sh"
cd "$T"

precord() { perf_record_times "$@"; }
# what legitimately differs: zt keeps no device and inode numbers of
# mappings (FORK and EXIT times are perf's: their sample_id time)
norm() {
	sed -E 's/ [0-9a-f]{2}:[0-9a-f]{2} [0-9]+ [0-9]+\]: / 00:00 0 0]: /'
}
# NORM_EXTRA=ldso: without the samples in ld.so (with -G and srcline, a
# sample is two lines: its own, naming ld-linux-x86-64.so.2, and its srcline)
no_ldso() {
	if [ "${NORM_EXTRA:-}" = ldso ]; then
		awk 'NR % 2 { s = $0; next } s !~ /ld-linux-x86-64\.so\.2/ { print s; print }'
	else
		cat
	fi
}
# same NAME ARGS...: zt script and perf script give the same lines
same() {
	local n=$1
	shift
	if ! perf_retry script -i p.data "$@" | norm | no_ldso > "p.$n"; then
		fail "$n: perf script failed"
		return
	fi
	"$ZT" script -i p.data "$@" 2> "z.$n.err" | norm | no_ldso > "z.$n"
	if [ ! -s "p.$n" ] && [ "${EMPTY_OK:-}" != 1 ]; then
		fail "$n: perf printed nothing"
	elif cmp -s "p.$n" "z.$n"; then
		ok "$n: as perf script ($(wc -l < "p.$n") lines)"
	else
		fail "$n: differs from perf script"
		diff "p.$n" "z.$n" | head -10
	fi
}

precord p.data -- "$WL/tree" 1 || fail "perf record"
"$ZT" record -q -g -o z.data -- "$WL/tree" 1 > /dev/null 2> zrec.err || fail "zt record"

pid=$(perf_retry script -i p.data -F pid | awk '{print $1; exit}')
wtid=$(perf_retry script -i p.data -F tid,comm | awk '$1 == "tree-worker" {print $2; exit}')
perf_retry script -i p.data -F time | tr -d ' :' > times.txt
nt=$(wc -l < times.txt)
mapfile -t ts < <(sed -n "$((nt / 10))p;$((nt * 3 / 10))p;$((nt / 2))p;$((nt * 7 / 10))p" times.txt)

same default
same pid --pid "$pid"
same tid --tid "$wtid"
same comm --comm tree-worker
same symbols -S leaf_x,tree_c
same symbols-tid -S leaf_y --tid "$wtid"
# -S by address (perf 6.1: an entry that reads as hexadecimal is the
# sample's address, not a name nor a function's start): the hottest
# address of leaf_x, the start of leaf_x (nothing), with a name, with
# --addr-range
read -r hot hoff < <(perf_retry script -i p.data -F ip,sym,symoff -G |
	awk '$2 ~ /^leaf_x\+0x/ {n[$1 " " $2]++} END {for (k in n) print n[k], k}' |
	sort -rn | awk '{sub(/^leaf_x\+/, "", $3); print $2, $3; exit}')
if [ -n "$hot" ]; then
	same symbols-addr -S "0x$hot"
	same symbols-addr-bare -S "leaf_y,$hot"
	EMPTY_OK=1 same symbols-start -S "$(printf '0x%x' $((0x$hot - hoff)))"
	same symbols-addr-range -S "$(printf '0x%x' $((0x$hot - 4)))" --addr-range 8
else
	fail "no leaf_x address in perf script's output"
fi
# (a second of tree may have no kernel sample: then zt must print none too)
EMPTY_OK=1 same dsos-kernel --dsos '[kernel.kallsyms]'
same dsos-path --dsos "$WL/tree"
same max-stack --max-stack 3
same max-stack-0 --max-stack 0
same max-stack-G -G --max-stack 1
same time "--time=${ts[0]},${ts[1]}"
same time-open "--time=${ts[2]},"
same time-ranges "--time=${ts[0]},${ts[1]} ${ts[2]},${ts[3]}"
if [ "$pct" = 1 ]; then
	same time-pct --time 10%-30%
	same time-pcts --time 0%-10%,30%-40%
	same time-slice --time 10%/2
	same time-slices --time 10%/1,10%/3
	same time-one-pct --time 25%
fi
same tasks --show-task-events
same tasks-mmaps --show-task-events --show-mmap-events
same tasks-filtered --show-task-events --tid "$wtid" --max-stack 2
# --reltime: from the first time shown (a sample's, or a side-band record's)
same reltime --reltime
same reltime-ns --reltime --ns -F comm,tid,time,event
same reltime-tasks --reltime --show-task-events --show-mmap-events
same reltime-tid --reltime --tid "$wtid" -G
check "task events: FORK and EXIT of the worker" grep -q "PERF_RECORD_FORK($pid:$wtid)" z.tasks
# -F srcline: "  file:line" (or "  module[addr]") under each frame; perf 6.1
# names libc's inlined start code by another file than its DWARF line
# says, prints ":0" for some of ld.so and nothing for some user code
# without lines: the source lines of the tree binary's and the kernel's
# frames only, user code with lines only
srcl() {
	awk '/^\t/ {keep = / \((\/.*\/tree|\[kernel\.kallsyms\])\)$/}
	     /^  / && (!keep || /^  [^[ ]+\[[0-9a-f]+\]$/) {next} {print}' "$@"
}
if perf_retry script -i p.data -F +srcline | srcl > p.srcline; then
	"$ZT" script -i p.data -F +srcline | srcl > z.srcline
	check "-F +srcline: as perf script ($(grep -c '^  ' p.srcline) lines)" cmp -s p.srcline z.srcline
	check "-F +srcline: the tree binary's lines" grep -qE '^  tree\.c:[0-9]+$' z.srcline
else
	fail "perf script -F +srcline"
fi
# (srcline-G: the samples of a process's start in ld.so left out: perf 6.1
# names a line of code inlined there by the outer function's file
# (dl-get-cpu-features.c:321 for dl-cacheinfo.h:321, which addr2line and
# zt give) and prints ":0" where it has no line; a rare sample there made
# this check fail now and then)
NORM_EXTRA=ldso same srcline-G -G -F comm,tid,ip,sym,dso,srcline

# perf's refusals, and zt's
perf script -i p.data -C 0 > /dev/null 2> pc.err
"$ZT" script -i p.data -C 0 > zc.out 2> zc.err
check "-C on a file without CPUs: refused, as perf" \
	grep -q "has no CPU in its samples (record with -a or -C to have it): remove -C" zc.err
check "perf refuses it too" grep -q "does not contain CPU events" pc.err
for bad in "5,3" "1,3 2,4" "10%-200%" "10%/1,0%-10%" "1.1234567891," "x,"; do
	"$ZT" script -i p.data --time "$bad" > /dev/null 2> bt.err
	rc=$?
	check "--time '$bad' refused (exit 129)" [ "$rc" = 129 ]
	check "--time '$bad': the message says the forms" grep -q "bad --time '$bad': use START,END" bt.err
done
"$ZT" script -i p.data --max-stack -5 > /dev/null 2> ms.err
check "--max-stack -5 refused" grep -q "max-stack: -5 is not a number of frames" ms.err
"$ZT" script -i p.data --folded --show-task-events > /dev/null 2> fo.err
check "--folded with --show-task-events refused" grep -q "not with --folded" fo.err

# --header: perf's fields with perf's values
perf_retry script -i p.data --header-only > ph.txt || fail "perf script --header-only"
"$ZT" script -i p.data --header-only > zh.txt 2> zh.err
times=""
[ "$pct" = 1 ] && times="time of first sample|time of last sample|sample duration"
IFS='|' read -r -a tf <<< "$times"
for f in "captured on" "hostname" "os release" "perf version" "arch" "nrcpus online" \
	"nrcpus avail" "cpudesc" "cpuid" "total memory" "cmdline" "${tf[@]}"; do
	check "--header-only: '$f' as perf" cmp -s <(grep "^# $f *:" ph.txt) <(grep "^# $f *:" zh.txt)
done
check "--header-only: the event and its sample types" \
	grep -q "^# event : name = cpu-clock, .*sample_type = IP|TID|TIME|CALLCHAIN|PERIOD" zh.txt
"$ZT" script -i p.data --header | sed -n '/^# ========$/,/^#$/d; p' > zhs.txt
"$ZT" script -i p.data > zs.txt
check "--header: then the samples" cmp -s zhs.txt zs.txt

# zt.data: the same options give the equivalent
"$ZT" script -i z.data > zd.txt 2> zd.err
zpid=$(awk 'NF && !/^\t/ {print $2; exit}' zd.txt)
zw=$("$ZT" script -i z.data -F tid,comm | awk '$1 == "tree-worker" {print $2; exit}')
"$ZT" script -i z.data --tid "$zw" -F tid > zt1.txt
check "zt.data --tid: only that thread" [ "$(sort -u zt1.txt | tr -d ' ')" = "$zw" ]
"$ZT" script -i z.data --comm tree-worker -F comm > zc1.txt
check "zt.data --comm: only that name" [ "$(sort -u zc1.txt | tr -d ' ')" = "tree-worker" ]
"$ZT" script -i z.data -S leaf_y -F ip,sym -G > zs1.txt
check "zt.data -S: only that function" [ "$(awk '{print $2}' zs1.txt | sort -u)" = leaf_y ]
"$ZT" script -i z.data --max-stack 2 > zm.txt
check "zt.data --max-stack 2: two frames at most" \
	awk '/^\t/ {n++} /^$/ {if (n > 2) bad = 1; n = 0} END {exit bad}' zm.txt
all=$(grep -c '^[^	]' zd.txt)
half=$("$ZT" script -i z.data --time 0%-50% | grep -c '^[^	]')
slices=$("$ZT" script -i z.data --time 50%/1,50%/2 | grep -c '^[^	]')
check "zt.data --time 0%-50%: about half ($half of $all)" between "$half" $((all * 4 / 10)) $((all * 6 / 10))
check "zt.data --time 50%/1,50%/2: all ($slices of $all)" [ "$slices" = "$all" ]
"$ZT" script -i z.data -C 0,1 -G > /dev/null 2> zcpu.err
check "zt.data -C: accepted (zt records CPUs)" [ ! -s zcpu.err ]
"$ZT" script -i z.data --reltime -F time > zrel.txt 2> zrel.err
check "zt.data --reltime: the first time is 0.000000" [ "$(head -n 1 zrel.txt | tr -d ' ')" = "0.000000:" ]
check "zt.data --reltime: the last one under 2 s" \
	awk '{ t = $1 + 0 } END { exit !(NR > 1 && t > 0.5 && t < 2) }' zrel.txt
"$ZT" script -i z.data --show-task-events --show-mmap-events > zt2.txt
check "zt.data --show-task-events: the worker's COMM" \
	grep -qE "^tree-worker +$zw +[0-9.]+: PERF_RECORD_COMM: tree-worker:$zpid/$zw$" zt2.txt
check "zt.data --show-mmap-events: the workload's mapping" \
	grep -qE "^tree +$zpid +[0-9.]+: PERF_RECORD_MMAP2 $zpid/$zpid: \[0x[0-9a-f]+\(0x[0-9a-f]+\) @ 0x[0-9a-f]+ 00:00 0 0\]: r-xp .*/tree$" zt2.txt
"$ZT" script -i z.data -F +srcline | grep -A1 ' leaf_x+0x' > zsl.txt
check "zt.data -F +srcline: leaf_x's line in tree.c" grep -qE '^  tree\.c:[0-9]+$' zsl.txt
"$ZT" script -i z.data --header-only > zh2.txt
for f in "hostname" "os release" "zt version" "arch" "nrcpus online" "cpudesc" \
	"total memory" "cmdline" "time of first sample" "sample duration"; do
	check "zt.data --header-only: '$f'" grep -q "^# $f *: ." zh2.txt
done
finish
