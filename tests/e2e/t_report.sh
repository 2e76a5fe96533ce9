#!/usr/bin/env bash
# zt report --stdio: perf report's numbers, call chains, sort keys, fields
# and filters, on perf.data recorded by the real perf and on zt recordings.
. "$(dirname "$0")/lib.sh"
cd "$T"
# perf 6.1 on this kernel sometimes aborts in its build-id post-processing:
# -B skips it; retry a few times
precord() { perf_rec "$@"; }
preport() { perf_retry report "$@"; }
# The entries of at least $2 percent with the call chains under them, one
# block per entry, sorted (entries of equal overhead may come in another
# order); frames outside any symbol are named differently ([unknown],
# [dso+0x..] against perf's hex) and left out.
blocks() {
	awk -v min="$2" '
		function flush() { if (keep && blk != "") print blk; blk = ""; keep = 0 }
		/^#/ { next }
		/^ +[0-9.]+%/ { flush(); v = $1; sub("%", "", v); keep = (v + 0 >= min) && $0 !~ /\[unknown\]|\] 0x|\] 0000|\+0x/ }
		/^$/ { flush(); next }
		{ sub(/ +$/, ""); sub(/\[\.\.\.\] \(inlined\)$/, "[...]"); blk = blk $0 "\\n" }
		END { flush() }' "$1" | sort
}
same() { # same DESC PERF-OPTIONS... -- ZT-OPTIONS...
	local d=$1; shift
	local p=() z=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do p+=("$1"); shift; done
	shift
	z=("$@")
	preport -i t.perf --stdio "${p[@]}" > p.txt
	"$ZT" report -i t.perf --stdio --no-inline "${z[@]}" > z.txt 2> z.err
	if [ ! -s p.txt ]; then
		unavailable "$d"
	elif diff <(blocks p.txt 1) <(blocks z.txt 1) > d.txt && [ -s p.txt ] && [ "$(blocks p.txt 1 | wc -l)" -ge 2 ]; then
		ok "$d"
	else
		fail "$d"; head -30 d.txt
	fi
}

# --buildid-mmap: with -B alone this kernel marks MMAP2 records as having a
# build id that is not one, and perf report aborts on its own file; still,
# record again if perf cannot read what it wrote
for try in 1 2 3 4 5; do
	precord --buildid-mmap -e cpu-clock -g -o t.perf -- "$WL/tree" 1 || break
	(perf report -i t.perf --stdio > /dev/null 2>&1) 2> /dev/null && break
done
# the same entries, percentages and call-chain graphs as perf report
same "default: Children, Self, graph of callers" -- 
same "--no-children: graph of callees" --no-children -- --no-children
same "-g caller" -g caller -- -g caller
same "-g callee" -g callee -- -g callee
same "--no-children -g flat" --no-children -g flat -- --no-children -g flat
same "--no-children -g folded" --no-children -g folded -- --no-children -g folded
same "-g fractal" -g fractal -- -g fractal
same "-g fractal,0,callee" -g fractal,0,callee -- -g fractal,0,callee
same "-g graph,0.5,caller,count" -g graph,0.5,caller,count -- -g graph,0.5,caller,count
same "-g ...,period" --no-children -g graph,0.5,callee,period -- --no-children -g graph,0.5,callee,period
same "-G (inverted)" -G -- -G
same "-n --show-total-period" -n --show-total-period -g none -- -n --show-total-period -g none
same "--sort sym (first chain frame not repeated)" --sort sym -- --sort sym
same "--sort dso,sym" --sort dso,sym -- --sort dso,sym
same "--sort pid,sym (pid: perf's thread key)" --sort pid,sym --no-children -- --sort pid,sym --no-children
same "--sort comm" --sort comm -g none -- --sort comm -g none
same "-F overhead,sample,sym" -F overhead,sample,sym -g none -- -F overhead,sample,sym -g none
same "--comm tree-worker (column elided)" --comm tree-worker --no-children -- --comm tree-worker --no-children
same "--symbols leaf_x,tree_c" --symbols leaf_x,tree_c --no-children -- --symbols leaf_x,tree_c --no-children
same "--dso tree" --dso tree --no-children -- --dso tree --no-children
same "--percent-limit 20" --percent-limit 20 -- --percent-limit 20
first=$(perf_retry script -i t.perf -F time 2> /dev/null | awk 'NR == 1 { sub(":", "", $1); print $1 }')
mid=$(awk -v t="$first" 'BEGIN { printf "%.6f", t + 0.5 }')
same "--time START,END" --time "$first,$mid" --no-children -- --time "$first,$mid" --no-children
"$ZT" report -i t.perf --stdio --no-children --time "$first,$mid" > tm.txt
if [ -n "$first" ]; then check "--time: the header names the slice" grep -q "(time slices: $first,$mid)" tm.txt
else unavailable "--time: the header names the slice (no first sample time from perf script)"; fi

# a zt recording: shares from the workload's known work, inlined frames,
# source lines, threads
"$ZT" record -q -g -o t.data -- "$WL/tree" 1 || fail "zt record"
"$ZT" report -i t.data --stdio --no-children --sort sym -g none > s.txt
pct() { awk -v s="$2" '!/^#/ && $NF == s { gsub("%", "", $1); t += $1 } END { printf "%d", t }' "$1"; }
check "leaf_x about 50%" between "$(pct s.txt leaf_x)" 42 58
check "tree_c about 33%" between "$(pct s.txt tree_c)" 26 40
check "leaf_y about 17%" between "$(pct s.txt leaf_y)" 11 23
"$ZT" report -i t.data --stdio > g.txt
check "header: samples, event, frequency" grep -qE "^# Samples: [0-9]+(K| ) of event 'cpu-clock' at 4000 Hz" g.txt
check "header: the recording's command line" grep -q "^# Recorded: zt record -q -g -o t.data -- .*tree 1" g.txt
check "header: the time range" grep -qE '^# Time: [0-9]+\.[0-9]{6} to [0-9]+\.[0-9]{6} \(1\.[0-9]{3} s\)' g.txt
check "header: lost samples" grep -q "^# Total Lost Samples: 0" g.txt
check "header: symbol quality" grep -q "^# Symbols: [0-9]* frames full" g.txt
check "Children and Self columns" grep -q "^# Children      Self  Command" g.txt
check "the inlined function is a frame of its own in chains" grep -q -- "inl_mix (inlined)" g.txt
check "... and an entry with Children only" grep -qE "^ +[0-9.]+% +0\.00% +tree +tree +\[\.\] inl_mix \(inlined\)" g.txt
"$ZT" report -i t.data --stdio --no-inline > gi.txt
check "--no-inline: no inlined frames" [ "$(grep -c "(inlined)" gi.txt)" = 0 ]
"$ZT" report -i t.data --stdio --no-children -g none --sort sym,srcline > sl.txt
check "--sort srcline: file:line of each address" grep -qE "\[\.\] leaf_x +tree\.c:3[0-9]$" sl.txt
"$ZT" report -i t.data --stdio --no-children -g none --sort tid,sym > tid.txt
check "--sort tid: a row per thread for leaf_x" [ "$(grep -cE ':tree(-worker)? +\[\.\] leaf_x$' tid.txt)" = 2 ]
"$ZT" report -i t.data --stdio --no-children -g none --sort cpu,sym > cpu.txt
check "--sort cpu: CPU numbers" grep -qE "^ +[0-9.]+%  00[01]  \[\.\] leaf_x" cpu.txt
wtid=$(awk '!/^#/ && /tree-worker/ { split($2, a, ":"); print a[1]; exit }' tid.txt)
"$ZT" report -i t.data --stdio --no-children -g none --sort tid,sym --tid "$wtid" > ft.txt
check "--tid: only that thread" awk -v t="$wtid" '!/^#/ && NF { n++; split($2, a, ":"); if (a[1] != t) bad++ } END { exit !(n > 0 && !bad) }' ft.txt
"$ZT" report -i t.data --stdio --no-children -g none --comm tree-worker > fc.txt
check "--comm: one name elides the Command column" grep -q "^# Overhead  Shared Object" fc.txt
"$ZT" report -i t.data --stdio --no-children -g none --dso tree --cpu 0,1 > fd.txt
check "--dso, --cpu" grep -q "leaf_x" fd.txt
"$ZT" report -i t.data --stdio --no-children -g none --time 0%-50% > fh.txt
nh=$(awk '/^# Samples:/ { print $3 }' fh.txt); na=$(awk '/^# Samples:/ { print $3 }' g.txt)
check "--time A%-B%: about half the samples" [ "${nh%K}" != "${na%K}" ]
"$ZT" report -i t.data --stdio -q --no-children -g none > q.txt
check "-q: rows only" [ "$(grep -c '^#' q.txt)" = 0 -a -s q.txt ]

# errors: a message and exit 129
for bad in "-g sideways" "--time yesterday" "--cpu x" "--pid 1x" "--sort nope" "-F nope"; do
	# shellcheck disable=SC2086
	"$ZT" report -i t.data --stdio $bad > /dev/null 2> bad.err
	rc=$?
	check "bad '$bad': exit 129 with a message" all "[ $rc -eq 129 ]" 'grep -q "^zt report: " bad.err'
done

# zt's own recording converted to perf.data: perf report shows the same
# entries and call chains as zt report
"$ZT" convert -i t.data -o c.perf > /dev/null 2>&1
preport -i c.perf --stdio > pc.txt
"$ZT" report -i t.data --stdio --no-inline > zc.txt
check "converted: perf report's entries and chains match zt report's" diff <(blocks pc.txt 1) <(blocks zc.txt 1)
finish
