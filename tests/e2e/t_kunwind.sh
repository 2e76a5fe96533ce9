#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# zt record -g's kernel unwinder: user stacks walked in BPF with unwind tables
# built from the binaries' CFI. A workload built -O2 -fomit-frame-pointer
# (tests/workloads/nofp.c) in each of its shapes (a call chain, libc's qsort
# calling back, a thread, a stack deeper than perf's 8 KiB copy, a signal
# handler interrupting the code, the vDSO), JIT code without tables (the
# frame pointer), processes too short to wait for (their tables from the
# cache), and Debian's own programs against perf record --call-graph dwarf:
# the share of stacks from the program's start is at least perf's, and
# sample by sample the stacks are zt's own DWARF unwinder's. The
# report names the unwinder and counts the stacks that ended early; the
# tables are cached by build id; --call-graph fp keeps perf's frame pointers.
SRC=$(cd "$(dirname "$0")/../workloads" && pwd)
. "$(dirname "$0")/lib.sh"
cd "$T"
NOFP="$WL/nofp"

# share FOLDED REGEX [COMM]: integer percent of (COMM's) samples matching REGEX
share() {
	awk -v re="$2" -v comm="${3:-}" '{ n = $NF; if (comm != "" && index($0, comm ";") != 1) next;
		t += n; if ($0 ~ re) m += n } END { print t ? int(100 * m / t) : 0 }' "$1"
}
count() { awk -v re="$2" '$0 ~ re { t += $NF } END { print t + 0 }' "$1"; }
stop() { "$ZT" report -i "$1" --header-only 2> /dev/null | sed -n 's/^# unwind_stops : //p' | tr ',' '\n' | sed -n "s/^$2=//p"; }
table() { "$ZT" report -i "$1" --header-only 2> /dev/null | sed -n 's/^# unwind_tables : //p' | tr ',' '\n' | sed -n "s/^$2=//p"; }
rec() { # rec NAME ARGS... -- CMD: zt record -g into NAME.data, folded into NAME.folded
	local n=$1
	shift
	"$ZT" record -q -F 499 -o "$n.data" "$@" > /dev/null 2> "$n.err"
	"$ZT" script --folded -i "$n.data" > "$n.folded" 2> "$n.serr"
}
START='(^|;)(_start|clone3);'
CHAIN='(^|;)_start;([^;]*;)*main;nf_outer;nf_middle;nf_inner;nf_leaf( |$)'

# ---- the nofp workload's shapes ----------------------------------------------
for mode in chain qsort thread deep signal clock; do
	rec $mode -g -- "$NOFP" $mode 1
done
check "chain: >= 95% of the samples from _start through main to nf_leaf" [ "$(share chain.folded "$CHAIN")" -ge 95 ]
check "chain: the header says unwinder kernel" grep -q 'unwinder' <("$ZT" report -i chain.data --header-only | grep '^# unwinder : kernel')
check "qsort: through libc's qsort (no frame pointers) back into nf_cmp" \
	[ "$(share qsort.folded '_start;([^;]*;)*main;nf_sort;[^;]*qsort[^;]*;msort.*;nf_cmp( |$)')" -ge 5 ]
check "qsort: >= 95% from _start" [ "$(share qsort.folded "$START" nofp)" -ge 95 ]
check "thread: from clone3 through start_thread to nf_leaf" \
	[ "$(share thread.folded 'clone3;start_thread;nf_thread;nf_outer;nf_middle;nf_inner;nf_leaf( |$)')" -ge 90 ]
deep25="main$(printf ';nf_deep%.0s' $(seq 25));nf_leaf( |$)" # mawk has no {25}
check "deep: all 25 frames of nf_deep (26 KiB of stack, beyond an 8 KiB copy) to main" \
	[ "$(share deep.folded "_start;([^;]*;)*$deep25")" -ge 90 ]
# the signal frame: the handler's stack goes on into the code it interrupted
check "signal: through the signal frame (__restore_rt) into the interrupted nf_spin, to _start" \
	[ "$(count signal.folded '_start;([^;]*;)*main;nf_spin;__restore_rt;nf_handler;nf_leaf( |$)')" -gt 20 ]
check "signal: every handler sample goes on to _start" \
	[ "$(count signal.folded 'nf_handler;nf_leaf( |$)')" -le "$(($(count signal.folded '_start;([^;]*;)*__restore_rt;nf_handler;nf_leaf( |$)') + 2))" ]
check "clock: the vDSO's clock_gettime, to _start" \
	[ "$(share clock.folded '_start;([^;]*;)*main;nf_clock;[^;]*clock_gettime[^;]*;__vdso_clock_gettime( |$)')" -ge 50 ]
for mode in chain qsort thread deep signal clock; do
	n=$(awk '{ t += $NF } END { print t + 0 }' $mode.folded)
	done_=$(( $(stop $mode.data end) + $(stop $mode.data fp_end) ))
	check "$mode: the walks' own count: $done_ of $n complete (>= 95%)" [ $((done_ * 100)) -ge $((n * 95)) ]
done

# ---- the report's header -----------------------------------------------------
"$ZT" report --stdio -i chain.data > chain.rep 2> chain.rep.err
check "report: '# Unwinder: kernel'" grep -q '^# Unwinder: kernel (unwind tables' chain.rep
check "report: '# User stacks: N complete ... ended early'" grep -qE '^# User stacks: [0-9]+ complete \([0-9]+ to the outermost frame, [0-9]+ to a null frame pointer\), [0-9]+ ended early' chain.rep

# ---- frame pointers alone, as perf -------------------------------------------
rec fp --call-graph fp -- "$NOFP" chain 1
check "--call-graph fp: the broken frame-pointer chains of perf -g (<= 10% to main)" \
	[ "$(share fp.folded "$CHAIN")" -le 10 ]
check "--call-graph fp: the header says frame pointers" grep -q '^# unwinder : fp' <("$ZT" report -i fp.data --header-only)
"$ZT" report --stdio -i fp.data > fp.rep 2> /dev/null
check "--call-graph fp: the report says frame pointers, no stop counts" \
	all '[ "$(grep -c "^# Unwinder: frame pointers$" fp.rep)" = 1 ]' '! grep -q "^# User stacks" fp.rep'

# ---- the tables' cache -------------------------------------------------------
bid=$(readelf -n "$NOFP" | awk '/Build ID/ { print $3 }')
f="$ZT_CACHE_DIR/cfi/${bid:0:2}/${bid:2}.cfi"
[ -f "$f" ] || f=$(find "$ZT_CACHE_DIR/cfi" -name "*$bid*" 2> /dev/null | head -1)
check "cache: nofp's table stored under its build id" [ -f "$f" ]
check "cache: mode 0644, a regular file" [ "$(stat -c %a "$f")" = 644 ]
rec again -g -- "$NOFP" chain 0.3
check "cache: the next recording reads the tables ($(table again.data cached) cached, $(table again.data built) built)" \
	[ "$(table again.data built)" = 0 -a "$(table again.data cached)" -ge 3 ]
# a damaged entry is rebuilt, not used
printf 'garbage' > "$f"
rec damaged -g -- "$NOFP" chain 0.5
check "cache: a damaged entry is built again and replaced" \
	[ "$(table damaged.data built)" -ge 1 -a "$(share damaged.folded "$CHAIN")" -ge 80 -a "$(head -c 5 "$f")" = ZTCFI ]

# ---- processes too short to wait for -----------------------------------------
# 20 runs of 50 ms under one recording, their tables cached already
rec short -g -- sh -c 'for i in $(seq 20); do "$0" chain 0.05; done' "$NOFP"
check "short-lived: 20 processes of 50 ms, >= 90% of their samples from _start ($(stop short.data not_ready) before a table was ready)" \
	[ "$(share short.folded "$START" nofp)" -ge 90 ]

# ---- a process running before the recording (-p) ---------------------------------
"$NOFP" chain 3 & wl=$!
sleep 0.3
timeout -s INT 1 "$ZT" record -q -F 499 -g -o pid.data -p $wl > /dev/null 2> pid.err
"$ZT" script --folded -i pid.data > pid.folded 2> /dev/null
wait $wl
check "-p: a process there before, its mappings from /proc: >= 95% from _start to nf_leaf" \
	[ "$(share pid.folded "$CHAIN")" -ge 95 ]

# ---- JIT code: no table, the frame pointer ------------------------------------
rec jit -g -- "$WL/jit" 1
check "JIT: zt_jit_spin's samples go on past the JIT code to __libc_start_call_main" \
	[ "$(count jit.folded '__libc_start_call_main;([^;]*;)*zt_jit_spin( |$)')" -ge "$(($(count jit.folded 'zt_jit_spin( |$)') * 9 / 10))" ]
check "JIT: there are zt_jit_spin samples" [ "$(count jit.folded 'zt_jit_spin( |$)')" -gt 50 ]

# ---- sample by sample, against zt's own --call-graph dwarf -----------------------
# a dwarf recording carries the kernel unwinder's chain too: zt script
# --no-unwind shows it, zt script the offline DWARF unwinding of the copy
# (which the chain only extends where the copy ends, its first frames the
# same). Per sample, the user frames' functions of the two must agree.
# frames DATA [--no-unwind]: one line per sample, "PID #COMM|f1|f2..." (user
# frames)
frames() {
	"$ZT" script -F comm,pid,ip,sym,dso --no-inline "${@:2}" -i "$1" 2> /dev/null | awk '
		/^[^ \t]/ { if (s != "") print s; s = $2 " #" $1; next }
		/kernel\.kallsyms/ { next }
		/^[ \t]+[0-9a-f]+ / { n = $2; sub(/\+0x[0-9a-f]+$/, "", n); s = s "|" n }
		END { if (s != "") print s }'
}
# A process's tables are loaded as its mappings come in (the side-band),
# while it runs: its first few samples may come before (counted as "table
# not ready yet"), more of them on a busy machine. The comparison leaves
# out each process's first 5 samples (10 ms at 499 Hz) and says so; over
# all samples it must still be 95%.
EARLY=5
# alike NAME COMM: "PCT ALLPCT SHORT" of NAME.data's samples of COMM (at
# least 50) whose two stacks are the same: after each process's first EARLY
# samples, and of all; SHORT: the samples left out, whose DWARF unwind
# stopped before the kernel unwinder's walk (the copy's first page could
# not be read), a prefix of it
alike() {
	frames "$1.data" > "$1.dw"
	frames "$1.data" --no-unwind > "$1.ku"
	paste -d '\n' "$1.dw" "$1.ku" | awk -v c="#$2" -v early=$EARLY 'NR % 2 { a = $0; next }
		{ pid = a; sub(/ .*/, "", pid); sub(/^[^ ]* /, "", a); sub(/^[^ ]* /, "") }
		a == c || index(a, c "|") == 1 {
			# the DWARF unwinder stopped short of the kernel
			# unwinder (its stack copy could not be read): nothing
			# to compare the rest with, the sample is left out
			if (index($0, a "|") == 1) { short++; next }
			same = a == $0
			T++; M += same
			if (++seen[pid] > early) { t++; m += same }
			else if (!same) print "early: " a " <> " $0 > "/dev/stderr" }
		END { print (t >= 50 ? int(100 * m / t) : 0), (T ? int(100 * M / T) : 0), short + 0 }' 2> "$1.early"
}
same_as_dwarf() { # same_as_dwarf NAME COMM CMD...
	local n=$1 comm=$2 a
	shift 2
	rec "$n" --call-graph dwarf -- "$@"
	a=($(alike "$n" "$comm"))
	check "$n: the kernel unwinder's stack is the DWARF unwinder's for ${a[0]}% of $comm's samples (>= 99%; ${a[1]}% with each process's first $EARLY; ${a[2]} left out where the DWARF unwind stopped first)" \
		[ "${a[0]}" -ge 99 -a "${a[1]}" -ge 95 ]
}
for mode in chain qsort thread signal clock; do
	same_as_dwarf "dw-$mode" nofp "$NOFP" $mode 1
done

# ---- Debian's programs, against perf --call-graph dwarf ------------------------
# precord NAME CMD...: perf's recording, folded by perf's own unwinding
precord() {
	local n=$1 i
	shift
	for i in 1 2 3 4 5; do
		perf record -B --buildid-mmap -q -e cpu-clock -F 499 --call-graph dwarf -o "$n.perf" -- "$@" \
			> /dev/null 2> "$n.perf.err" && break
	done
	perf_retry script -F comm,ip,sym --no-inline -i "$n.perf" 2> /dev/null | awk '
		function out() { if (st != "") c[comm ";" st]++; st = "" }
		/^[^ \t]/ { out(); comm = $1; next }
		/^[ \t]+[0-9a-f]+ / { s = $2; sub(/\+0x[0-9a-f]+$/, "", s); st = st == "" ? s : s ";" st; next }
		/^$/ { out() }
		END { out(); for (k in c) print k, c[k] }' > "$n.perf.folded"
	[ -s "$n.perf.folded" ]
}
# the program's own samples from its process's or thread's start: libc's
# __libc_start_call_main or start_thread (named in every Debian binary,
# stripped or not)
FROM='(^|;)(__libc_start_call_main|start_thread)(;| )'
head -c $((2 << 20)) "$ZT" > xzin
printf 'def f(n):\n    return n if n < 2 else f(n-1) + f(n-2)\nprint(f(33))\n' > fib.py
awk 'BEGIN { for (i = 0; i < 400; i++) printf "int f%d(int x){int s=0;for(int i=0;i<x;i++){s+=(i*%d)^(s>>3);if(s%%7==%d)s-=x;}return s+%d;}\n", i, i % 97, i % 7, i }' > big.c
real() { # real NAME COMM CMD...
	local n=$1 comm=$2 z p
	shift 2
	if ! command -v "$1" > /dev/null; then
		skip "$n: no $1 here"
		return
	fi
	# once to build the tables (a new binary's first samples come before
	# its table: counted as not_ready), then measured
	rec "$n.warm" -g -- "$@"
	rec "$n" -g -- "$@"
	z=$(share "$n.folded" "$FROM" "$comm")
	if ! precord "$n" "$@"; then
		unavailable "$n: perf record --call-graph dwarf"
		perf_stderr "$n.perf.err"
		return
	fi
	p=$(share "$n.perf.folded" "$FROM" "$comm")
	check "$n: zt -g $z% of $comm's stacks from its start, perf --call-graph dwarf $p% (first run: $(stop "$n.warm.data" not_ready) samples before a table was ready)" \
		[ "$z" -ge $((p - 2)) -a "$z" -ge 80 ]
	same_as_dwarf "$n.dw" "$comm" "$@"
}
real xz xz xz -6 -c xzin
real sqlite3 sqlite3 sqlite3 :memory: 'with recursive c(x) as (select 1 union all select x+1 from c limit 10000000) select sum(x) from c;'
# Debian's own (not a pyenv shim that PATH may put first)
if [ -x /usr/bin/python3.11 ]; then
	real python3.11 python3.11 /usr/bin/python3.11 fib.py
else
	skip "python3.11: no /usr/bin/python3.11 (Debian package python3.11)"
fi
real cc1 cc1 gcc -O2 -c big.c -o /dev/null
real clang clang-14 clang-14 -O2 -c big.c -o /dev/null
if g++ -O2 -fomit-frame-pointer -o cxx "$SRC/nofp_cpp.cc" 2> cxx.err; then
	real cxx cxx ./cxx 1
else
	fail "cxx: g++ -O2 -fomit-frame-pointer: $(head -3 cxx.err)"
fi

finish
