#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# zt convert --to pprof: a live recording exported as gzip'ed profile.proto, read back by an
# independent decoder (pprof-format under node: tests/e2e/pprof-decode); a
# recording of two events (sample types of each); and a zt record --gpu
# recording (gpulib.sh's stand-in capture) with the GPU sample types, in
# continuous and serialized PC-sampling modes.
decode=$(cd "$(dirname "$0")/pprof-decode" && pwd)/decode.sh
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/gpulib.sh"
cd "$T"
"$ZT" record -g -o w.data -- "$WL/hot" hot 2 2> rec.err
check "record exits 0" [ $? -eq 0 ]
"$ZT" convert --to pprof -i w.data -o out.pb.gz 2> pp.err
check "zt convert --to pprof exits 0" [ $? -eq 0 ]
check "gzip-compressed" [ "$(head -c 2 out.pb.gz | od -An -tx1 | tr -d ' ')" = 1f8b ]
"$decode" out.pb.gz > sum.txt 2> dec.err
rc=$?
[ $rc -eq 2 ] && cat dec.err
check "independent decoder reads it" [ $rc -eq 0 ]
check "sample types" contains sum.txt '^sample_type samples/count cpu/nanoseconds$'
check "functions named" contains sum.txt '^function zt_hot_a .*hot\.c$'
check "main binary mapping with full symbols" contains sum.txt '^mapping .*/hot [0-9a-f]{40} Ffli$'
check "the main binary is mapping[0]" bash -c "grep -m1 '^mapping ' sum.txt | grep -q '/hot '"
check "thread labels" contains sum.txt '^stack pid=[0-9]+ tid=[0-9]+ thread=hot '
# the same sample count as the recording's summary
n=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' rec.err)
check "all samples exported ($n)" contains sum.txt "^value\[0\] $n$"
# zt_hot_a's share of the total as leaf, as zt report has it (~75%)
share=$(awk '$1 == "stack" { n = split($NF, f, ";"); if (f[n] == "zt_hot_a") a += $6; t += $6 }
	END { if (t) print int(100 * a / t) }' sum.txt)
echo "  zt_hot_a self ${share:-?}% (expected 75)"
check "zt_hot_a near 75%" between "${share:-}" 65 85
check "stacks reach main" contains sum.txt '^stack .*[ ;]main;.*zt_hot_a$'
# several events: two sample types each, every event's samples in its columns
"$ZT" record -q -g -e cpu-clock,page-faults -o e.data -- "$WL/hot" hot 0.3 2> erec.err
"$ZT" convert -i e.data -o e.pb.gz 2> ec.err && "$decode" e.pb.gz > e.sum 2> edec.err
check "several events: the decoder reads it" [ $? -eq 0 ]
check "several events: samples and weights of each" grep -qx \
	'sample_type cpu-clock_samples/count cpu-clock/nanoseconds page-faults_samples/count page-faults/count' e.sum
nr_ev() { "$ZT" script -i e.data --event "$1" -F comm | wc -l; }
check "several events: each one's samples in its column" bash -c \
	"grep -qx 'value\[0\] $(nr_ev cpu-clock)' e.sum && grep -qx 'value\[2\] $(nr_ev page-faults)' e.sum"
"$ZT" convert --event page-faults -i e.data -o e1.pb.gz 2> /dev/null && "$decode" e1.pb.gz > e1.sum
check "--event page-faults: that event alone" grep -qx 'sample_type samples/count page-faults/count' e1.sum
# errors say what went wrong
"$ZT" convert --to pprof -i missing.data -o x.pb.gz 2> miss.err
check "missing input: exit 1" [ $? -eq 1 ]
check "missing input: message names the file" contains miss.err "missing\.data"
# ---- GPU: PC samples and kernel time as sample types of their own ---------------
gpu_setup
# per kernel (the first frame from the root named as one of the kernels K,
# space-separated): the sums of value V of the decoded samples
by_kernel() { awk -v v="$2" -v ks="$3" 'BEGIN { split(ks, a, " "); for (i in a) kn[a[i]] = 1 }
	$1 == "stack" { n = split($NF, f, ";"); for (i = 1; i <= n; i++) if (f[i] in kn) break
		if (i <= n) s[f[i]] += $(5 + v) }
	END { for (k in s) if (s[k]) print k, s[k] }' "$1" | sort; }
for mode in continuous serialized; do
	gpu_record g-$mode.data 40 -g --gpu-pcs $mode
	check "$mode: record --gpu" [ -s g-$mode.data ]
	"$ZT" convert -i g-$mode.data -o g-$mode.pb.gz 2> gp.err
	check "$mode: convert to pprof exits 0" [ $? -eq 0 ]
	"$decode" g-$mode.pb.gz > g-$mode.sum 2> gp-dec.err
	check "$mode: the independent decoder reads it" [ $? -eq 0 ]
	check "$mode: four sample types" \
		grep -qx 'sample_type samples/count cpu/nanoseconds gpu_samples/count gpu_time/nanoseconds' g-$mode.sum
	"$ZT" script -i g-$mode.data --gpu > g-$mode.txt 2> /dev/null
	# (X_not_issued: a part of X's samples, counted once, as on an H200)
	grep -v 'stall=[^ ]*_not_issued ' g-$mode.txt |
		sed -n 's/.*cuda:pcsample: .*samples=\([0-9]*\) function=\(.*\)$/\2 \1/p' |
		awk '{ s[$1] += $2 } END { for (k in s) print k, s[k] }' | sort > want-$mode.pcs
	kernels=$(cut -d' ' -f1 want-$mode.pcs | tr '\n' ' ')
	by_kernel g-$mode.sum 2 "$kernels" > got-$mode.pcs
	echo "  $mode: PC samples per kernel: $(tr '\n' ' ' < got-$mode.pcs)"
	check "$mode: gpu_samples per kernel as zt script's PC samples" \
		bash -c "[ -s want-$mode.pcs ] && cmp -s want-$mode.pcs got-$mode.pcs"
	# kernel time: the kernels' durations, as the chrome trace has them
	"$ZT" convert -i g-$mode.data -o g-$mode.json 2> /dev/null
	python3 -c '
import json, sys
from collections import Counter
from decimal import Decimal
ev = json.load(open(sys.argv[1]))["traceEvents"]
c = Counter()
for e in ev:
    if e["ph"] == "X" and e.get("cat") == "cuda" and "grid" in e.get("args", {}):
        c[e["name"]] += Decimal(repr(e["dur"])) * 1000
for k in sorted(c): print(k, c[k])' g-$mode.json > want-$mode.ns
	by_kernel g-$mode.sum 3 "$kernels" > got-$mode.ns
	# the trace's times are in 1/1024 us: within 1 ns a kernel
	check "$mode: gpu_time per kernel as the kernels' durations ($(tr '\n' ' ' < got-$mode.ns))" \
		python3 -c '
import sys
w = dict(l.split() for l in open(sys.argv[1])); g = dict(l.split() for l in open(sys.argv[2]))
sys.exit(not w or w.keys() != g.keys() or any(abs(float(w[k]) - int(g[k])) > 100 for k in w))' want-$mode.ns got-$mode.ns
	check "$mode: PC samples under their launch stacks: main;...;launch_saxpy;...;saxpy" \
		contains g-$mode.sum '^stack pid=[0-9]+ tid=[0-9]+ thread=cuda_app 0 0 [1-9][0-9]* 0 .*main;run_frames;launch_saxpy;cuLaunchKernel;.*;saxpy$'
	check "$mode: kernel time under the launch stack of hot_loop" \
		contains g-$mode.sum '^stack .* 0 0 0 [1-9][0-9]* .*step_physics;launch_hot;.*;hot_loop$'
	check "$mode: CPU samples keep zeros in the GPU columns" \
		contains g-$mode.sum '^stack .* [1-9][0-9]* [1-9][0-9]* 0 0 .*burn_cpu$'
	check "$mode: a stall label" grep -qx 'label stall' g-$mode.sum
done
finish
