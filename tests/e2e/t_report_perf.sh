#!/usr/bin/env bash
# zt report prints what perf report 6.1 prints on the same perf.data: the
# order of entries of equal Children (perf's sort list, call depth within
# a thread, its red-black tree), -F with --sort, -S with --sort sym,
# --sort cpu without CPUs, kernel frames of --sort srcline, and the
# options --symbol-filter, --percentage, --group (of one event and of
# several), --hierarchy, --objdump and --ignore-vmlinux. When perf itself fails (it crashes now and then on
# this kernel), a check says "reference unavailable" and is skipped.
. "$(dirname "$0")/lib.sh"
cd "$T"
not_grep() { ! grep -q -- "$@"; }

# perf record -B (its build-id pass is what crashes), retried
recorded=0
for i in 1 2 3 4 5; do
	if perf record -B -e cpu-clock -F 1999 -g -o p.data -- "$WL/tree" 1 > /dev/null 2> rec.err &&
		perf report -i p.data --stdio > /dev/null 2>&1; then
		recorded=1
		break
	fi
done
if [ "$recorded" = 0 ]; then
	skip "reference unavailable: perf record failed 5 times"
	finish
fi

# The table of a report without the lines that differ for reasons of
# their own: the header's (zt adds lines), perf's tip, and the [k] or [.]
# of an address in no mapping (perf takes it from the frame it looked at
# before, zt from the frame's own: a known difference)
table() {
	grep -v '^# \(To display\|Total Lost\|Samples\|Event count\|Recorded\|Time\|Symbols\|Without\|Not read\)' |
		grep -v '^$' | grep -v '^#$' | grep -v 'Tip:' | sed -E 's/\[[k.]\] (0x[0-9a-f]{16}|0{16})/[?] \1/'
}
# same NAME ARGS...: perf's table and zt's, line for line (order counts)
# Rows of unresolved addresses are left out (perf_resolved).
# (DATA: the recording, p.data unless set; FILTER: a command the tables
# go through too, resolved unless set)
same() {
	local n=$1 data=${DATA:-p.data}
	shift
	if ! perf_retry report -i "$data" --stdio "$@" > "p.$n.raw"; then
		skip "$n: reference unavailable (perf report failed)"
		return
	fi
	table < "p.$n.raw" | ${FILTER:-perf_resolved} > "p.$n"
	"$ZT" report -i "$data" --stdio --no-inline "$@" > "z.$n.raw" 2> "z.$n.err"
	table < "z.$n.raw" | ${FILTER:-perf_resolved} > "z.$n"
	if [ ! -s "p.$n" ]; then
		fail "$n: perf printed no table"
	elif cmp -s "p.$n" "z.$n"; then
		ok "$n: as perf report ($(wc -l < "p.$n") lines)"
	else
		fail "$n: differs from perf report"
		diff "p.$n" "z.$n" | head -10
	fi
}
# header NAME LINE-REGEX ARGS...: the header lines matching the regex, as perf's
header() {
	local n=$1 re=$2
	shift 2
	if ! perf_retry report -i "${DATA:-p.data}" --stdio "$@" > "ph.$n"; then
		skip "$n: reference unavailable (perf report failed)"
		return
	fi
	"$ZT" report -i "${DATA:-p.data}" --stdio --no-inline "$@" > "zh.$n" 2> "zh.$n.err"
	# (zt adds the rate, " at 1999 Hz", to the Samples line)
	check "$n: '$re' lines as perf's" cmp -s <(grep -E "$re" "ph.$n") \
		<(grep -E "$re" "zh.$n" | sed -E "s/ at [0-9]+ Hz$//")
}

# entries of equal Children: perf's order (with call chains: the caller
# above its callee in one thread; without: Self, then the keys)
same ties-graph
same ties-none -g none
same ties-callee -g callee
same ties-dso-sym --sort dso,sym
same ties-dso-sym-none --sort dso,sym -g none
same ties-pid --sort pid,sym -g none
# A thread sampled before it names itself: the pid key shows its latest name
# (perf's thread), the comm key the name each sample had
renamed=0
for i in 1 2 3; do
	if perf record -B -e cpu-clock -F 1999 -g -o e.data -- "$WL/tree" 0.4 0.2 > /dev/null 2> erec.err &&
		perf report -i e.data --stdio > /dev/null 2>&1; then
		renamed=1
		break
	fi
done
if [ "$renamed" = 1 ]; then
	DATA=e.data same renamed-pid --sort pid,sym -g none
	DATA=e.data same renamed-comm --sort comm,sym -g none
	check "renamed: the worker's early samples under its creator's name with --sort comm" \
		grep -q '[0-9]%  *tree  *\[\.\] leaf_x' z.renamed-comm
	check "... and under its own with --sort pid" \
		test "$(grep -c 'tree-worker' z.renamed-pid)" -gt 0 -a \
		"$(grep -c ':tree  *\[' z.renamed-pid)" = "$(grep -c ':tree  *\[' p.renamed-pid)"
else
	skip "renamed: reference unavailable: perf record failed 3 times"
fi
# An entry without a function widens the module column to 16 (an
# address's digits), as perf's: ztgen's samples at 0x1234 in no mapping
if "$WL/../ztgen" pids 3 g.data > /dev/null 2>&1 && "$ZT" convert -i g.data -o g.perf > /dev/null 2>&1; then
	DATA=g.perf FILTER=cat same unresolved-width --sort dso,sym -g none --no-children
else
	fail "unresolved-width: ztgen or zt convert failed"
fi
same no-children --no-children
# -F with --sort: the sort keys stay columns, sorted by first; Overhead
same fields-sort -F overhead,sym --sort dso,sym -g none
same fields -F overhead,sym -g none
same fields-children -F overhead_children,overhead,sym
# -S with --sort sym: the symbol column is not elided (nothing would be left)
same symbols-sort-sym -S leaf_x --sort sym --no-children -g none
same dso-sort-dso -d tree --sort dso --no-children -g none
# no CPUs in the file: -001
same cpu --sort cpu --no-children -g none
"$ZT" report -i p.data --stdio --sort cpu --no-children -g none > zcpu.txt 2> zcpu.err
check "--sort cpu: -001, not 4294967295" not_grep '4294967295' zcpu.txt
# --sort srcline: a kernel function without lines is func+offset, as perf
if perf_retry report -i p.data --stdio --sort srcline,dso,sym --no-children -g none > psl.txt; then
	"$ZT" report -i p.data --stdio --sort srcline,dso,sym --no-children -g none > zsl.txt 2> zsl.err
	# (the column's width is of every row: user rows' lines may differ)
	grep '\[kernel.kallsyms\]' psl.txt | table | tr -s ' ' > psl.k
	grep '\[kernel.kallsyms\]' zsl.txt | table | tr -s ' ' > zsl.k
	if [ ! -s psl.k ]; then
		skip "--sort srcline: no kernel samples in this recording"
	else
		check "--sort srcline: kernel rows as perf's (func+offset)" cmp -s psl.k zsl.k
		check "--sort srcline: no kernel row is ??:0" not_grep '\?\?:0 .*\[kernel' zsl.txt
	fi
else
	skip "--sort srcline: reference unavailable (perf report failed)"
fi

# --symbol-filter and --percentage
same symbol-filter --symbol-filter tree -g none
same symbol-filter-relative --symbol-filter tree --percentage relative -g none
header symbol-filter-relative-count '^# Event count' --symbol-filter tree --percentage relative -g none
same comm-relative --comm tree-worker --percentage relative -g none
header comm-relative-count '^# (Samples|Event count)' --comm tree-worker --percentage relative -g none
same comm-absolute --comm tree-worker --percentage absolute -g none
"$ZT" report -i p.data --stdio --percentage half > /dev/null 2> pct.err
rc=$?
check "--percentage half: refused (exit 129)" [ "$rc" = 129 ]
check "--percentage half: says what to use" grep -q "use relative or absolute" pct.err

# --hierarchy: each sort key a level, Self only, chains under the last
same hier-none --hierarchy -g none
same hier-graph --hierarchy
same hier-callee --hierarchy --no-children
same hier-dso-sym --sort dso,sym --hierarchy
same hier-sym-dso --sort sym,dso --hierarchy -g none
same hier-comm --sort comm --hierarchy
same hier-pid --sort pid,sym --hierarchy -g none
same hier-cpu --sort cpu,comm --hierarchy -g none
same hier-columns --hierarchy -n --show-total-period -g none
same hier-limit --hierarchy --percent-limit 0.3 -g none
same hier-flat --sort dso,comm --hierarchy -g flat
same hier-folded --hierarchy -g folded,0.5,caller
"$ZT" report -i p.data --stdio --hierarchy -F overhead,sym > /dev/null 2> hf.err
rc=$?
check "--hierarchy with -F: refused (exit 129), as perf" [ "$rc" = 129 ]
check "--hierarchy with -F: says what to use" grep -q "with --sort" hf.err
# --group: one event, as without
same group --group -g none
# --group of several events: one table, a column of each event in every
# value column, perf's (an event group, or events it groups for --group)
for g in group forced; do
	ev='{cpu-clock,task-clock}'
	[ "$g" = forced ] && ev=cpu-clock,task-clock
	recorded=0
	for i in 1 2 3 4 5; do
		if perf record -B -e "$ev" -F 1999 -g -o g.data -- "$WL/tree" 1 > /dev/null 2> grec.err &&
			perf report -i g.data --stdio > /dev/null 2>&1; then
			recorded=1
			break
		fi
	done
	if [ "$recorded" = 0 ]; then
		skip "--group $ev: reference unavailable: perf record failed 5 times"
		continue
	fi
	DATA=g.data same "group-$g" --group -g none
	DATA=g.data same "group-$g-graph" --group
	DATA=g.data same "group-$g-self" --group --no-children -g callee
	DATA=g.data same "group-$g-columns" --group -n --show-total-period \
		--sort dso,sym -g none
	DATA=g.data same "group-$g-limit" --group --percent-limit 1 -g folded
	DATA=g.data header "group-$g-count" '^# Event count' --group -g none
	DATA=g.data same "group-$g-hier" --group --hierarchy
	DATA=g.data same "group-$g-hier-columns" --group --hierarchy -n \
		--sort dso,sym -g none
done
"$ZT" report -i g.data --stdio --group -g none > /dev/null 2> gw.err
check "--group of several events: no warning of sections" not_grep 'section' gw.err
# --objdump: accepted, said once to have no effect, the same report
"$ZT" report -i p.data --stdio -g none --objdump /usr/bin/objdump > zo.txt 2> zo.err
rc=$?
"$ZT" report -i p.data --stdio -g none > zn.txt 2> /dev/null
check "--objdump: accepted" [ "$rc" = 0 ]
check "--objdump: said once to have no effect" [ "$(grep -c 'objdump has no effect' zo.err)" = 1 ]
check "--objdump: the same report" cmp -s zo.txt zn.txt
# --ignore-vmlinux: -k is not used (its file is not even opened)
"$ZT" report -i p.data --stdio -g none -k "$T/no-such-vmlinux" --ignore-vmlinux > zv.txt 2> zv.err
rc=$?
check "--ignore-vmlinux: accepted" [ "$rc" = 0 ]
check "--ignore-vmlinux: -k's file unused, the same report" cmp -s zv.txt zn.txt
finish
