#!/usr/bin/env bash
# zt report's perf options on a perf.data file, each compared with perf
# report's own output on the same file (--stats, --tasks, --mmaps,
# --max-stack, -p, -x, --ignore-callees, -U, --time in its forms,
# --header-only, -T), the
# refusals of perf's options zt does not have, and the same options on
# zt.data.
. "$(dirname "$0")/lib.sh"
cd "$T"
not() { ! "$@"; }

precord() { perf_record_times "$@"; }
# rows NAME ARGS...: perf report's and zt report's entries and call-chain
# lines (not the # lines), as multisets (entries of equal shares may come
# in either order); perf 6.1's fp chains have no inline frames: --no-inline
rows() {
	local n=$1
	shift
	# NOUNK=1: without the rows of addresses in no mapping (the garbage
	# outermost frames of a process's first samples): perf names them by
	# address, with [k] or [.] from the frame it looked at before, zt with
	# the frame's own (a known difference); FILTER: perf_resolved unless set
	if ! perf_retry report -i p.data --stdio "$@" | grep -v '^#' | grep -v '^$' |
		{ if [ -n "${NOUNK:-}" ]; then grep -v '^ .*\[unknown\] '; else cat; fi; } |
		${FILTER:-perf_resolved} | sort > "p.$n"; then
		fail "$n: perf report failed"
		return
	fi
	"$ZT" report -i p.data --stdio --no-inline "$@" 2> "z.$n.err" | grep -v '^#' |
		grep -v '^$' | { if [ -n "${NOUNK:-}" ]; then grep -v '^ .*\[unknown\] '; else cat; fi; } |
		${FILTER:-perf_resolved} | sort > "z.$n"
	if [ ! -s "p.$n" ]; then
		fail "$n: perf printed nothing"
	elif cmp -s "p.$n" "z.$n"; then
		ok "$n: as perf report ($(wc -l < "p.$n") lines)"
	else
		fail "$n: differs from perf report"
		diff "p.$n" "z.$n" | head -10
	fi
}
# same NAME ARGS...: the whole output is perf's (normalised: inode numbers)
same() {
	local n=$1
	shift
	perf_retry report -i p.data "$@" | sed -E 's/ (r.xp [0-9a-f]{8}) [0-9]+ / \1 0 /' > "p.$n" ||
		fail "$n: perf report failed"
	"$ZT" report -i p.data "$@" > "z.$n" 2> "z.$n.err"
	if cmp -s "p.$n" "z.$n"; then
		ok "$n: as perf report ($(wc -l < "p.$n") lines)"
	else
		fail "$n: differs from perf report"
		diff "p.$n" "z.$n" | head -10
	fi
}

precord p.data -- "$WL/tree" 1 || fail "perf record"
"$ZT" record -q -g -o z.data -- "$WL/tree" 1 > /dev/null 2> zrec.err || fail "zt record"

same stats --stats
same tasks --tasks
same mmaps --mmaps
rows max-stack --no-children --max-stack 2
rows max-stack-0 --max-stack 0
rows max-stack-none --no-children -g none --max-stack 1
# caller order (--children's default): perf keeps the outermost frames
NOUNK=1 rows max-stack-children --max-stack 2 -g caller,0.5,none
rows max-stack-caller --no-children -g caller --max-stack 3
rows parent --no-children -g none -p tree_a
rows parent-x -p tree_a -x
rows parent-x-callee -p '^tree_' -x --no-children
rows parent-sort --no-children -g none --sort sym,parent -p run_
rows ignore-callees --no-children --ignore-callees tree_a
rows ignore-callees-re --no-children --ignore-callees '^tree_|run_rounds'
rows ignore-callees-none --no-children -g none --ignore-callees '^tree_'
# caller order: the innermost match gets the Self, its chain its callees;
# with --max-stack, perf matches within the frames it kept
NOUNK=1 rows ignore-callees-caller --ignore-callees '^tree_|run_rounds' -g caller,0.5,none
rows ignore-callees-caller-chains --no-children -G --ignore-callees '^tree_|run_rounds'
rows ignore-callees-max-stack --no-children -G --max-stack 3 --ignore-callees tree_a
# (-U: with the unresolved rows, which must be gone from both)
FILTER=cat rows hide-unresolved -U -g none
FILTER=cat rows hide-unresolved-chains -U --no-children --max-stack 4
perf_retry script -i p.data -F time | tr -d ' :' > times.txt
nt=$(wc -l < times.txt)
mapfile -t ts < <(sed -n "$((nt / 10))p;$((nt * 3 / 10))p;$((nt / 2))p;$((nt * 7 / 10))p" times.txt)
rows time -g none --no-children "--time=${ts[0]},${ts[1]}"
rows time-ranges -g none --no-children "--time=${ts[0]},${ts[1]} ${ts[2]},${ts[3]}"
if [ "$pct" = 1 ]; then
	rows time-pcts -g none --no-children --time 0%-10%,30%-40%
	rows time-slice -g none --no-children --time 10%/2
fi

# --header-only: perf's fields with perf's values
perf_retry report -i p.data --header-only > ph.txt || fail "perf report --header-only"
"$ZT" report -i p.data --header-only > zh.txt 2> zh.err
times=""
[ "$pct" = 1 ] && times="time of first sample|time of last sample|sample duration"
IFS='|' read -r -a tf <<< "$times"
for f in "captured on" "header version" "data offset" "data size" "feat offset" "hostname" \
	"os release" "perf version" "arch" "nrcpus online" "nrcpus avail" "cpudesc" "cpuid" \
	"total memory" "cmdline" "${tf[@]}"; do
	check "--header-only: '$f' as perf" cmp -s <(grep "^# $f *:" ph.txt) <(grep "^# $f *:" zh.txt)
done

if [ "$pct" = 1 ]; then
	perf buildid-list -i p.data 2> /dev/null | sort > pb.txt
	sed -n 's/^# build id : //p' zh.txt | sort > zb.txt
	check "--header-only: the build ids of perf buildid-list" cmp -s pb.txt zb.txt
fi
check "zt.data --header-only: build ids" \
	grep -qE "^# build id : [0-9a-f]{40} .*/tree$" <("$ZT" report -i z.data --header-only)

# -T: perf's "# PID  TID" table, with each thread's count
perf_retry report -i p.data --stdio -T > pT.txt
"$ZT" report -i p.data --stdio -T > zT.txt
check "-T: perf prints its table's header" grep -q "^# PID  TID" pT.txt
# (a PID of 3 digits, after the pids wrapped, makes the header "# PID": show it on failure)
grep -qE "^# +PID +TID +cpu-clock$" zT.txt || grep -E "^#  *PID|^  +[0-9]" zT.txt | head -n 5 | sed 's/^/  | /'
check "-T: zt's table of threads and counts" grep -qE "^# +PID +TID +cpu-clock$" zT.txt
check "-T: two threads" [ "$(grep -cE '^  +[0-9]+ +[0-9]+ +[0-9]+$' zT.txt)" = 2 ]

# what zt does not do as perf, refused saying what to use: -x without -p
# (perf shows nothing)
"$ZT" report -i p.data --stdio -x > /dev/null 2> r.err
rc=$?
check "'-x' refused (exit 129)" [ "$rc" = 129 ]
check "'-x': the message says what to use" grep -q "give its pattern with -p" r.err
"$ZT" report -i p.data --stdio -p 'tree_(' > /dev/null 2> re.err
check "-p: a bad regex refused" grep -q "bad regular expression 'tree_('" re.err
"$ZT" report -i p.data --stdio -C 0 > /dev/null 2> rc.err
check "-C on a file without CPUs: refused, as perf" grep -q "remove -C/--cpu" rc.err
"$ZT" report -i p.data --stdio --time "1,3 2,4" > /dev/null 2> rt.err
check "--time overlapping ranges: refused" grep -q "bad --time '1,3 2,4'" rt.err

# zt.data: the same options give the equivalent
"$ZT" report -i z.data --stats > zs.txt
check "zt.data --stats: the samples" grep -qE "^ +SAMPLE events: +[0-9]+  \(" zs.txt
check "zt.data --stats: FORK and EXIT" grep -qE "^ +FORK events: +1  \(" zs.txt
"$ZT" report -i z.data --mmaps > zm.txt
check "zt.data --mmaps: the worker under the main thread" grep -qE "^ +[0-9]+ +[0-9]+ +[0-9]+ \| tree-worker$" zm.txt
check "zt.data --mmaps: the workload's mapping" grep -qE "^ {32}[0-9a-f]+-[0-9a-f]+ r-xp [0-9a-f]{8} 0 .*/tree$" zm.txt
"$ZT" report -i z.data --stdio --no-children -g none --max-stack 1 -U > zu.txt
check "zt.data -U --max-stack 1: a report" grep -q "\[\.\] leaf_x" zu.txt
"$ZT" report -i z.data --stdio --no-children -g callee --max-stack 2 > zc.txt
"$ZT" report -i z.data --stdio --no-children -g caller --max-stack 2 > zco.txt
"$ZT" report -i z.data --stdio --no-children -g caller > zc0.txt
check "zt.data: chains reach run_rounds" grep -qE "^[ |-]+[0-9.%-]*run_rounds$" zc0.txt
check "zt.data -g callee --max-stack 2: not past the caller" \
	not grep -qE "^[ |-]+[0-9.%-]*(run_rounds|main)$" zc.txt
check "zt.data -g caller --max-stack 2: the outermost frames, not the middle" \
	bash -c "grep -qE '^[ |-]+[0-9.%-]*(main|start_thread|_start)$' zco.txt &&
		! grep -qE '^[ |-]+[0-9.%-]*tree_round$' zco.txt"
"$ZT" report -i z.data --stdio --no-children -g none -p tree_b -x > zp.txt
check "zt.data -p tree_b -x: only samples under tree_b" \
	[ "$(awk '!/^#/ && NF {print $NF}' zp.txt | sort -u)" = "tree_b" ]
check "zt.data -p tree_b -x: leaf_x among them" grep -qE "\] leaf_x +tree_b" zp.txt
"$ZT" report -i z.data --stdio --no-children --ignore-callees '^tree_[ab]$' > zi.txt
# (but those of a sample taken before leaf_x set up its frame: tree_a unseen)
check "zt.data --ignore-callees: leaf_x's samples go to tree_a and tree_b" \
	awk '/^ +[0-9.]+%  .*\] leaf_[xy]$/ {s += $1} END {exit !(s < 5)}' zi.txt
check "zt.data --ignore-callees: tree_a an entry" grep -qE "^ +[0-9.]+%  .*\] tree_a$" zi.txt
"$ZT" report -i z.data --stdio -T > zT2.txt
check "zt.data -T: two threads" [ "$(grep -cE '^  +[0-9]+ +[0-9]+ +[0-9]+$' zT2.txt)" = 2 ]
"$ZT" report -i z.data --header-only > zh2.txt
for f in "captured on" "hostname" "os release" "zt version" "arch" "nrcpus online" \
	"nrcpus avail" "cpudesc" "cpuid" "total memory" "cmdline" "event" "time of first sample" \
	"sample duration"; do
	check "zt.data --header-only: '$f'" grep -q "^# $f *: ." zh2.txt
done
check "zt.data --header-only: this machine's CPU" \
	grep -qF "# cpudesc : $(grep -m1 '^model name' /proc/cpuinfo | sed 's/^[^:]*: //')" zh2.txt
finish
