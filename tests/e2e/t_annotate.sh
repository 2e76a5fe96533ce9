#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# zt annotate against perf annotate on the same perf.data (the instruction
# lines, percentages, -l, --asm-raw, --percent-type, several events, --stdio2), on a zt.data, source
# lines of a -g binary, refusals that name the option and what to use; the
# view in a terminal (tmux): the report browser's menu, TAB to the hottest.
. "$(dirname "$0")/lib.sh"
cd "$T"

"$ZT" record -q -g -o x.data -- "$WL/hot" hot 1 2> rec.err
for i in 1 2 3; do
	perf record -e cpu-clock -o p.data -- "$WL/hot" hot 1 > /dev/null 2>&1 &&
		perf annotate -i p.data --stdio -s zt_hot_a > /dev/null 2>&1 && break
done

# the instruction lines: "   62.12 :   1239:   add    %rcx,%rax"
insns() { grep -E '^ +[0-9]+\.[0-9]+ : +[0-9a-f]+:' "$1" | sed 's/ *$//'; }
addrs() { insns "$1" | awk '{print $3}'; }
export -f insns
hottest() { insns "$1" | sort -k1,1 -rn | head -1 | awk '{print $3}'; }
# the largest difference between two files' percentages at the same address
maxdiff() {
	join <(insns "$1" | awk '{print $3, $1}' | sort) <(insns "$2" | awk '{print $3, $1}' | sort) |
		awk '{d = $2 - $3; if (d < 0) d = -d; if (d > m) m = d} END {printf "%.2f\n", m + 0}'
}

for sym in zt_hot_a zt_cold_b; do
	perf_retry annotate -i p.data --stdio -s $sym > p.$sym.txt
	"$ZT" annotate -i p.data --stdio $sym > z.$sym.txt 2> z.$sym.err
	check "perf.data, $sym: perf annotated it" grep -q 'Source code & Disassembly of hot' p.$sym.txt
	check "perf.data, $sym: zt's header is perf's" bash -c \
		"[ \"\$(head -2 z.$sym.txt)\" = \"\$(head -2 p.$sym.txt)\" ]"
	check "perf.data, $sym: the same instructions" cmp -s <(addrs p.$sym.txt) <(addrs z.$sym.txt)
	check "perf.data, $sym: the same hottest instruction" \
		[ "$(hottest z.$sym.txt)" = "$(hottest p.$sym.txt)" ]
	check "perf.data, $sym: percentages within 0.01" [ "$(maxdiff p.$sym.txt z.$sym.txt)" = 0.00 ]
	check "perf.data, $sym: the instruction lines are perf's, byte for byte" \
		cmp -s <(insns p.$sym.txt) <(insns z.$sym.txt)
	cmp -s <(insns p.$sym.txt) <(insns z.$sym.txt) ||
		diff <(insns p.$sym.txt) <(insns z.$sym.txt) | head -10
	check "perf.data, $sym: the source lines between them" \
		grep -qE '^ +: [0-9]+ +x = x \* 2862933555777941757ul \+ 3037000493ul \+ i;$' z.$sym.txt
done
check "source: the loop body's line just before its instructions" \
	bash -c "grep -B1 -E '^ +[0-9.]+ : +[0-9a-f]+: +movabs' z.zt_hot_a.txt | head -1 |
		grep -qE '^ +: 26 +x = x'"
check "source: real line numbers (hot.c:26 is the loop's body, 21 the brace)" \
	bash -c "grep -qE '^ +: 26 +x = x \* 2862933555777941757ul' z.zt_hot_a.txt &&
		 grep -qE '^ +: 21 +\{$' z.zt_hot_a.txt"

# options perf has, against perf
perf_retry annotate -i p.data --stdio -s zt_hot_a -l > pl.txt
"$ZT" annotate -i p.data --stdio -s zt_hot_a -l > zl.txt 2> zl.err
check "-l: perf's summary header" bash -c "grep -q '^Sorted summary for file .*/hot$' zl.txt"
check "-l: the same lines in the summary" cmp -s <(grep -E '^ +[0-9.]+ hot\.c:' pl.txt | awk '{print $2}') \
	<(grep -E '^ +[0-9.]+ hot\.c:' zl.txt | awk '{print $2}')
check "-l: the same // file:line comments" cmp -s <(grep -oE '// hot\.c:[0-9]+' pl.txt) \
	<(grep -oE '// hot\.c:[0-9]+' zl.txt)
perf_retry annotate -i p.data --stdio -s zt_hot_a --asm-raw > pr.txt
"$ZT" annotate -i p.data --stdio -s zt_hot_a --asm-raw > zr.txt 2> zr.err
check "--asm-raw: perf's lines (bytes, continuation lines)" cmp -s <(insns pr.txt) <(insns zr.txt)
perf_retry annotate -i p.data --stdio -s zt_hot_a --percent-type global-period > pg.txt
"$ZT" annotate -i p.data --stdio -s zt_hot_a --percent-type global-period > zg.txt 2> zg.err
check "--percent-type global-period: perf's header" bash -c \
	"[ \"\$(head -1 zg.txt)\" = \"\$(head -1 pg.txt)\" ]"
check "--percent-type global-period: perf's percentages" [ "$(maxdiff pg.txt zg.txt)" = 0.00 ]
# several events: perf annotate goes through them in turn, each with its functions
titles() { grep -o 'Source code & Disassembly of .* samples' "$1"; }
for i in 1 2 3; do
	perf record -e cpu-clock -e page-faults -o pm.data -- "$WL/hot" hot 0.3 > /dev/null 2>&1 && break
done
perf_retry annotate -i pm.data --stdio > pm.txt
"$ZT" annotate -i pm.data --stdio > zm.txt 2> zm.err
check "two events: perf annotated both" bash -c "grep -q ' for cpu-clock ' pm.txt && grep -q ' for page-faults ' pm.txt"
# (functions with as many samples, in either order: perf breaks ties its own way)
check "two events: perf's functions for each event" cmp -s <(titles pm.txt | sort) <(titles zm.txt | sort)
cmp -s <(titles pm.txt | sort) <(titles zm.txt | sort) ||
	diff <(titles pm.txt | sort) <(titles zm.txt | sort) | head -20 | sed 's/^/    perf<, zt>: /'
evorder() { grep -o 'Disassembly of .* for [^ ]* (' "$1" | awk '{print $(NF-1)}' | uniq; }
check "two events: one after the other, in perf's order" cmp -s <(evorder pm.txt) <(evorder zm.txt)
# hottest first: by period, as perf sorts; the titles give sample counts,
# which follow the period for cpu-clock (a fixed period), not for
# page-faults. (A function, not bash -c: a shell function is not there in a
# new shell, and the empty list it then gave passed for sorted.)
hottest_first() { # FILE EVENT
	[ -n "$(titles "$1" | grep " for $2 ")" ] && titles "$1" | grep " for $2 " |
		awk -F'[ (]' '{ n = $(NF-1) } NR > 1 && n > pn { bad = 1 } { pn = n } END { exit bad }'
}
check "two events: cpu-clock's functions hottest first" hottest_first zm.txt cpu-clock
"$ZT" annotate -i pm.data --stdio --event page-faults > zm1.txt 2> zm1.err
check "two events, --event page-faults (zt's): perf's page-faults functions alone" \
	cmp -s <(titles pm.txt | grep ' for page-faults ' | sort) <(titles zm1.txt | sort)
"$ZT" annotate -i p.data --stdio -s zt_hot_a --no-source > zn.txt 2> zn.err
check "--no-source: instructions only" bash -c \
	"! grep -q 'x = x' zn.txt && [ \$(insns zn.txt | wc -l) -eq \$(insns z.zt_hot_a.txt | wc -l) ]"
"$ZT" annotate -i p.data --stdio -s zt_hot_a -M intel > zi.txt 2> zi.err
check "-M intel: Intel syntax" grep -qE ' : +[0-9a-f]+: +mov +QWORD PTR \[rbp-0x8\],0x0' zi.txt
"$ZT" annotate -i p.data --stdio -s zt_hot_a -n > zs.txt 2> zs.err
check "-n: sample counts that add up to the header's" bash -c \
	"[ \$(grep -E '^ +[0-9]+ : +[0-9a-f]+:' zs.txt | awk '{s += \$1} END {print s}') -eq \
	   \$(head -1 zs.txt | grep -oE '\(([0-9]+) samples' | tr -dc 0-9) ]"

# without a symbol: every function with samples, hottest first, as perf
"$ZT" annotate -i p.data --stdio > za.txt 2> za.err
check "no symbol: zt_hot_a first, then zt_cold_b" bash -c \
	"grep -oE '<zt_(hot_a|cold_b)>:' za.txt | head -2 | tr '\n' ' ' | grep -qx '<zt_hot_a>: <zt_cold_b>: '"
check "no symbol: kernel functions skipped with a warning naming -k" \
	bash -c "! grep -q 'kernel function' za.err || grep -q 'use -k/--vmlinux' za.err"

# --stdio2: perf's browser lines as text, byte for byte for the workloads' functions
for sym in zt_hot_a zt_cold_b; do
	if perf_retry annotate -i p.data --stdio2 -s $sym > p2.$sym.txt && [ -s p2.$sym.txt ]; then
		"$ZT" annotate -i p.data --stdio2 $sym > z2.$sym.txt 2> z2.$sym.err
		check "--stdio2 $sym: perf annotate --stdio2's bytes ($(wc -l < p2.$sym.txt) lines)" cmp -s p2.$sym.txt z2.$sym.txt
		cmp -s p2.$sym.txt z2.$sym.txt || diff p2.$sym.txt z2.$sym.txt | head -10
	else
		skip "perf annotate --stdio2 $sym failed: reference unavailable"
	fi
done
# the jump's line starts with its percentage when a sample landed on it
check "--stdio2: the loop's jump back, with an arrow to its target's offset" \
	grep -qE '^ *([0-9]+\.[0-9]+)? +↑ jne +[0-9a-f]+ *$' z2.zt_hot_a.txt
if perf_retry annotate -i p.data --stdio2 -s zt_hot_a -n > p2n.txt && [ -s p2n.txt ]; then
	"$ZT" annotate -i p.data --stdio2 -n zt_hot_a > z2n.txt 2> z2n.err
	check "--stdio2 -n: perf's sample counts" cmp -s p2n.txt z2n.txt
else
	skip "perf annotate --stdio2 -n failed: reference unavailable"
fi
if perf_retry annotate -i p.data --stdio2 -s zt_hot_a -l > p2l.txt && [ -s p2l.txt ]; then
	"$ZT" annotate -i p.data --stdio2 -l zt_hot_a > z2l.txt 2> z2l.err
	check "--stdio2 -l: perf's summary first, then the same lines" cmp -s p2l.txt z2l.txt
else
	skip "perf annotate --stdio2 -l failed: reference unavailable"
fi
for i in 1 2 3; do
	perf record -e cpu-clock -o pt.data -- "$WL/tree" 1 > /dev/null 2>&1 &&
		perf annotate -i pt.data --stdio -s leaf_x > /dev/null 2>&1 && break
done
for sym in leaf_x tree_c; do # tree_c: inlined code, its function's lines between
	if perf_retry annotate -i pt.data --stdio2 -s $sym > p2.$sym.txt && [ -s p2.$sym.txt ]; then
		"$ZT" annotate -i pt.data --stdio2 $sym > z2.$sym.txt 2> z2.$sym.err
		check "--stdio2 $sym (tree): perf's bytes" cmp -s p2.$sym.txt z2.$sym.txt
		cmp -s p2.$sym.txt z2.$sym.txt || diff p2.$sym.txt z2.$sym.txt | head -10
	else
		skip "perf annotate --stdio2 $sym failed: reference unavailable"
	fi
done
"$ZT" annotate -i p.data --stdio2 --tui zt_hot_a > /dev/null 2> z2t.err
check "--stdio2 with --tui: refused (129)" [ $? -eq 129 ]
"$ZT" annotate -i x.data --stdio2 zt_hot_a > z2x.txt 2> z2x.err
check "--stdio2 of a zt.data: perf's title line" grep -qE "^Samples: [0-9]+[ KMG] of event 'cpu-clock', 4000 Hz, Event count \(approx\.\): [0-9]+, \[percent: local period\]$" z2x.txt
check "... the lines of the perf.data run, but for the percentages" \
	cmp -s <(tail -n +3 z2x.txt | sed -E 's/^.{7}//') <(tail -n +3 z2.zt_hot_a.txt | sed -E 's/^.{7}//')

# a zt.data recording
"$ZT" annotate -i x.data --stdio zt_hot_a > zx.txt 2> zx.err
check "zt.data: annotated" grep -q 'Source code & Disassembly of hot for cpu-clock' zx.txt
check "zt.data: the binary's instructions (the perf.data run's)" cmp -s <(addrs zx.txt) <(addrs p.zt_hot_a.txt)
check "zt.data: the hottest instruction in the loop's body" bash -c \
	"insns p.zt_hot_a.txt | awk '\$1 > 1 {print \$3}' | grep -qx '$(hottest zx.txt)'"
check "zt.data: percentages add up to 100" bash -c \
	"insns zx.txt | awk '{s += \$1} END {exit !(s > 99.9 && s < 100.1)}'"
"$ZT" annotate -i x.data --stdio -d libc.so.6 zt_hot_a > /dev/null 2> zd.err
check "-d: zt_hot_a is not in libc" bash -c "[ \$? -ne 0 ] || true; grep -q \"no samples in 'zt_hot_a' in those modules\" zd.err"

# inlined code: the inlined function's lines where its code landed
mkdir inl
cat > inl/mix.h <<'EOF2'
static inline __attribute__((always_inline)) unsigned long mix(unsigned long x, unsigned long i)
{
	return x * 2862933555777941757ul + i; /* MIXLINE */
}
EOF2
cat > inl/prog.c <<'EOF2'
#include <time.h>
#include "mix.h"
__attribute__((noinline)) unsigned long work(unsigned long n)
{
	unsigned long x = 1, i;

	for (i = 0; i < n; i++)
		x = mix(x, i);
	return x;
}
int main(void)
{
	struct timespec a, b;
	volatile unsigned long sink = 0, n = 1000000; /* volatile: a call per round */

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		sink += work(n);
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while (b.tv_sec - a.tv_sec < 1 && (b.tv_sec - a.tv_sec) * 1000000000L + b.tv_nsec - a.tv_nsec < 400000000L);
	return (int)(sink & 1);
}
EOF2
gcc -O1 -g -o inl/prog inl/prog.c
"$ZT" record -q -o inl.data -- inl/prog 2> inl.err
"$ZT" annotate -i inl.data --stdio work > zinl.txt 2> zinl.err
check "inline: where mix's code starts, a line naming it and its call site" \
	grep -qE '^ +: +mix\(\): inlined at prog\.c:8$' zinl.txt
check "inline: mix's own source line (mix.h:3) before its instructions" \
	bash -c "grep -A1 -E '^ +: 3 +return x \* 2862933555777941757ul \+ i; /\* MIXLINE' zinl.txt |
		tail -1 | grep -qE '^ +[0-9.]+ : +[0-9a-f]+:'"
check "inline: the samples in work" bash -c "insns zinl.txt | awk '{s += \$1} END {exit !(s > 99.9)}'"

# refusals: what is wrong and what to use
"$ZT" annotate -i x.data --stdio no_such_fn > /dev/null 2> e1.err; rc=$?
check "missing symbol: exit 1" [ $rc -eq 1 ]
check "missing symbol: named, and where to look" grep -q "no samples in 'no_such_fn'.*zt report" e1.err
"$ZT" annotate -i x.data --stdio -M foo zt_hot_a > /dev/null 2> e2.err; rc=$?
check "-M foo: usage error naming the option and the choices" \
	bash -c "[ $rc -eq 129 ] && grep -q -- \"-M/--disassembler-style 'foo': use att or intel\" e2.err"
"$ZT" annotate -i x.data --stdio --percent-type bogus zt_hot_a > /dev/null 2> e3.err; rc=$?
check "--percent-type bogus: usage error with the choices" \
	bash -c "[ $rc -eq 129 ] && grep -q 'use local-period, global-period' e3.err"
"$ZT" annotate -i x.data --stdio --tui zt_hot_a > /dev/null 2> e4.err; rc=$?
check "--stdio --tui: refused" bash -c "[ $rc -eq 129 ] && grep -q 'choose one' e4.err"
# the binary gone, its symbols still in the GSYM cache
mkdir gone && cp "$WL/hot" gone/hot
"$ZT" record -q -o g.data -- gone/hot hot 0.3 2> grec.err
"$ZT" report -i g.data --stdio > /dev/null 2>&1
rm -r gone
cp -r "$ZT_CACHE_DIR" cache2 && rm -r cache2/buildid
ZT_CACHE_DIR="$T/cache2" "$ZT" annotate -i g.data --stdio --no-debuginfod zt_hot_a \
	> /dev/null 2> e5.err; rc=$?
check "binary gone: exit 1, says so and what to use" \
	bash -c "[ $rc -eq 1 ] && grep -q 'the binary is gone (use --symfs' e5.err"
mkdir -p "symfs$T/gone" && cp "$WL/hot" "symfs$T/gone/hot"
ZT_CACHE_DIR="$T/cache2" "$ZT" annotate -i g.data --stdio --no-debuginfod --symfs symfs zt_hot_a \
	> zsf.txt 2> zsf.err
check "binary gone, --symfs DIR: the code read from DIR/path" \
	cmp -s <(addrs zsf.txt) <(addrs p.zt_hot_a.txt)

# ---- the view, in a terminal ----
printf 'set -g remain-on-exit on\n' > tmux.conf
TM=(tmux -L "zt-test-$$" -f "$T/tmux.conf")
trap '"${TM[@]}" kill-server 2>/dev/null; cleanup' EXIT
S=
keys() { "${TM[@]}" send-keys -t "$S" "$@"; }
wait_screen() {
	local i
	for i in $(seq 50); do
		"${TM[@]}" capture-pane -p -t "$S" > scr.txt 2>/dev/null
		grep -qE -- "$1" scr.txt && return 0
		sleep 0.1
	done
	echo "  (the screen does not show '$1':)"; sed 's/^/  | /' scr.txt
	return 1
}
# the highlighted line's percentage
sel_pct() {
	"${TM[@]}" capture-pane -e -p -t "$S" | grep -F $'\e[43m' | head -1 |
		sed -E 's/\x1b\[[0-9;]*m//g' | awk '{print $1}'
}
# the highlighted line
sel_line() {
	"${TM[@]}" capture-pane -e -p -t "$S" | grep -F $'\e[43m' | head -1 | sed -E 's/\x1b\[[0-9;]*m//g'
}
# the percentages of the function's instructions, most first (from --stdio)
nth_pct() { insns zx.txt | awk '{print $1}' | sort -rn | sed -n "${1}p"; }

S=R
"${TM[@]}" new-session -d -s R -x 100 -y 40 -c "$T" \
	"TERM=xterm '$ZT' report -i x.data --tui 2> r.err; echo \$? > R.rc"
wait_screen 'Samples: .* of event'
keys / z t _ h o t _ a Enter
wait_screen "1 entries with 'zt_hot_a'"
keys Enter
check "report, Enter: the action menu" wait_screen 'Annotate zt_hot_a'
keys Enter
check "menu, Annotate: the annotate view" wait_screen '^Annotate zt_hot_a: Samples: [0-9]+'
check "annotate view: instructions with percentages" wait_screen '^ +[0-9.]+ : +[0-9a-f]+: +imul' 
check "annotate view: the cursor starts on the hottest" [ "$(sel_pct)" = "$(nth_pct 1)" ]
keys Tab
sleep 0.3
check "TAB: the next hottest" [ "$(sel_pct)" = "$(nth_pct 2)" ]
keys Tab
sleep 0.3
check "TAB again: the third" [ "$(sel_pct)" = "$(nth_pct 3)" ]
keys BTab
sleep 0.3
check "shift-TAB: back to the second" [ "$(sel_pct)" = "$(nth_pct 2)" ]
keys s
sleep 0.3
"${TM[@]}" capture-pane -p -t R > scr.txt
check "s: the source lines hidden" bash -c "! grep -q 'x = x' scr.txt"
keys q
check "q: back to the report" wait_screen "^x\.data: Samples"
keys a
check "a: the annotate view directly" wait_screen '^Annotate zt_hot_a'
keys Escape
wait_screen "^x\.data: Samples"
# a caller without samples of its own: its code at 0%, its calls named
keys / C-u z t _ r o u n d Enter a
check "a on zt_round (Self 0): its code, the calls to zt_hot_a and zt_cold_b" \
	wait_screen 'call +[0-9a-f]+ <zt_cold_b>'
# (a timer tick now and then lands in zt_round's own pop or ret: a few samples)
check "a on zt_round: the calls' targets named, next to no samples" bash -c \
	"grep -qE 'call +[0-9a-f]+ <zt_hot_a>' scr.txt && grep -qE 'Annotate zt_round: Samples: [0-9] ' scr.txt"
# perf's browser: / searches, Enter on a call opens the callee, Left comes
# back. From the top (Home): the cursor starts on the hottest line, which
# is below the call when zt_round has a sample of its own
keys Home / '<' z t _ h o t _ a '>' Enter
sleep 0.3
sel_line > sel.txt
check "/ <zt_hot_a>: the cursor on the call" grep -qE 'call +[0-9a-f]+ <zt_hot_a>' sel.txt
keys Enter
check "Enter on the call: zt_hot_a's annotation" wait_screen '^Annotate zt_hot_a: Samples: [1-9]'
keys Left
check "Left: back in zt_round" wait_screen '^Annotate zt_round'
keys n
check "n: no other line with it below, said" wait_screen "'<zt_hot_a>' not found below"
keys '?' p u s h Enter
sleep 0.3
sel_line > sel.txt
check "? push: backwards, the push above the call" grep -qE ':  push ' sel.txt
keys q
wait_screen "^x\.data: Samples"
keys q
sleep 0.5
check "report: exit status 0" [ "$(cat R.rc 2>/dev/null)" = 0 ]

S=A
"${TM[@]}" new-session -d -s A -x 100 -y 40 -c "$T" \
	"TERM=xterm '$ZT' annotate -i x.data zt_cold_b 2> a.err; echo \$? > A.rc"
check "zt annotate on a terminal: the view" wait_screen '^Annotate zt_cold_b'
keys q
sleep 0.5
check "zt annotate: q quits, status 0" [ "$(cat A.rc 2>/dev/null)" = 0 ]
finish
