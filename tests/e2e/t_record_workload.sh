#!/usr/bin/env bash
# zt record -g -- ./workload: the known hot function ranks first with its known share.
. "$(dirname "$0")/lib.sh"
cd "$T"
"$ZT" record -g -o w.data -- "$WL/hot" hot 3 2> rec.err
check "record exits 0" [ $? -eq 0 ]
check "summary line printed" contains rec.err 'Captured and wrote .* MB w.data \([0-9]+ samples\)'
check "lost samples reported" contains rec.err 'no samples lost|lost [0-9]+ samples'
"$ZT" report -i w.data --stdio --no-children > self.txt 2> rep.err
check "report exits 0" [ $? -eq 0 ]
check "zt_hot_a is the top function" [ "$(top_symbol self.txt)" = zt_hot_a ]
a=$(self_pct self.txt zt_hot_a); b=$(self_pct self.txt zt_cold_b)
echo "  zt_hot_a ${a:-?}% zt_cold_b ${b:-?}% (expected 75/25)"
check "zt_hot_a near 75%" between "${a:-}" 65 85
check "zt_cold_b near 25%" between "${b:-}" 15 35
"$ZT" report -i w.data --stdio > children.txt
check "Children/Self header" contains children.txt '^# +Children +Self +Command +Shared Object +Symbol'
check "zt_round has ~100% children" awk '$NF=="zt_round" {gsub("%","",$1); f=($1>=90)} END {exit !f}' children.txt
check "main is on the stacks" contains children.txt '\[\.\] main$'
check "the event is named" contains children.txt "^# Samples: .* of event 'cpu-clock'"
# per-frame resolution: file:line (perf's srcline) and quality
"$ZT" report -i w.data --stdio --no-children --sort sym,srcline,symq > src.txt
check "srcline of the hot function" awk '$3 == "zt_hot_a" && $4 ~ /^hot\.c:[0-9]+$/ && $5 == "full" {f=1} END {exit !f}' src.txt
check "symbol summary line" contains children.txt '^# Symbols: [0-9]+ frames full'
# -c PERIOD: a sample every 1 ms of cpu-clock, one per ms of the workload's
# CPU time (measured by bash's time: under load it gets less than its 1 s)
"$ZT" record -e cpu-clock -c 1000000 -o c.data -- \
	bash -c 'TIMEFORMAT="%3U %3S"; { time "$0" hot 1; } 2> cpu.txt' "$WL/hot" 2> c.err
n=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' c.err)
ms=$(awk '{printf "%d", ($1 + $2) * 1000}' cpu.txt 2> /dev/null)
echo "  -c 1000000 for 1 s: ${n:-?} samples, ${ms:-?} ms of CPU"
check "the workload's CPU time measured" [ "${ms:-0}" -ge 100 ]
check "-c 1000000 gives a sample per ms of CPU" \
	between "${n:-}" "$((${ms:-0} * 7 / 10))" "$((${ms:-0} * 13 / 10 + 20))"
"$ZT" report -i c.data --stdio --header > ch.txt
check "period recorded in the header" contains ch.txt '^# period : 1000000$'
# --call-graph dwarf: a stack snapshot with (nearly) every sample, on both samplers
for path in bpf perf_event; do
	btf=/sys/kernel/btf/vmlinux; [ $path = perf_event ] && btf=/nonexistent
	ZT_BTF_VMLINUX=$btf "$ZT" record -v -F 499 --call-graph dwarf,4096 -o dw-$path.data -- "$WL/hot" hot 1 2> dw-$path.err
	check "dwarf ($path): records" [ $? -eq 0 ]
	read -r n m <<< "$(sed -n 's/.*stack snapshots: \([0-9]*\) of \([0-9]*\) samples.*/\1 \2/p' dw-$path.err)"
	echo "  dwarf ($path): ${n:-?} snapshots of ${m:-?} samples"
	check "dwarf ($path): a snapshot with every sample" between "${n:-}" "$(( ${m:-1} * 95 / 100 ))" "${m:-0}"
	"$ZT" report -i dw-$path.data --stdio --header > dwh-$path.txt 2> dwh-$path.err
	check "dwarf ($path): the sampler, callchain and stack_size in the header" \
		awk -v p=$path '$0 == "# sampler : " p { s = 1 } /^# callchain : dwarf$/ { a = 1 }
			/^# stack_size : 4096$/ { b = 1 } END { exit !(s && a && b) }' dwh-$path.txt
done
# the default file name, read back by default
mkdir dflt && ( cd dflt && "$ZT" record -q -g -- "$WL/hot" hot 0.3 && "$ZT" report --stdio --no-children > r.txt )
check "default output zt.data" [ -s dflt/zt.data ]
check "report reads zt.data by default" [ "$(top_symbol dflt/r.txt)" = zt_hot_a ]
# the workload's exit status is passed on
"$ZT" record -q -o e.data -- "$WL/hot" exit 7
check "exit status of the workload passed on" [ $? -eq 7 ]
# an existing output becomes .old
"$ZT" record -q -o w.data -- "$WL/hot" hot 0.2
check "existing file kept as .old" [ -s w.data.old ]
# a command that does not exist
"$ZT" record -o n.data -- /nonexistent/cmd 2> n.err
check "missing command fails" [ $? -ne 0 ]
check "missing command named" contains n.err "zt record: cannot run '/nonexistent/cmd': No such file"
finish
