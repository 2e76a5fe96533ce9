#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A recording made on a real H200 (tests/data/gpu/h200-gpucheck.ztdata:
# scripts/gpu-check.sh's `zt record -v --gpu -g` of gpucheck_app, second H200
# run, tests/gpu/H200-RUN-2.md) read by this zt, with no GPU and no CUDA:
# what real CUPTI 13 records look like must keep reading right. Its PC
# samples come with Hopper's "X_not_issued" stall reasons, a part of X's;
# counted once, they add up to CUPTI's totalSamples less its non-user ones.
. "$(dirname "$0")/lib.sh"
D=$(cd "$(dirname "$0")/../data/gpu" && pwd)
R=$D/h200-gpucheck.ztdata
cd "$T" || exit 1

"$ZT" script -i "$R" --gpu > s.txt 2> s.err
check "script --gpu of the H200 recording exits 0" [ $? -eq 0 ]
check "CUPTI 13.0.1 of CUDA 13's toolkit" contains s.txt 'cuda:info: cupti_version=130001$'
check "CUPTI's PC-sampling settings on an H200: 2^11 cycles, 512 MB, 1 MB, 100 ms" \
	contains s.txt 'cuda:info: pcs_config=period_log2=11 hwbuf_bytes=536870912 scratch_bytes=1048576 sleep_ms=100$'
check "63 kernels" [ "$(grep -c 'cuda:kernel:' s.txt)" -eq 63 ]
check "gc_hot with its grid and block" contains s.txt 'cuda:kernel: .*grid=1056,1,1 block=256,1,1 .*name=gc_hot$'
check "the copies of 64 MiB" [ "$(grep -c 'cuda:memcpy: .*bytes=67108864 ' s.txt)" -eq 2 ]
check "not-issued stall reasons, as Hopper gives them" contains s.txt 'cuda:pcsample: .*stall=smsp__pcsamp_warps_issue_stalled_wait_not_issued '
tot=$(grep -m1 -o 'pc_total_samples=[0-9]*' s.txt | cut -d= -f2)
nonuser=$(grep -m1 -o 'pc_nonuser_samples=[0-9]*' s.txt | cut -d= -f2)
sum_of() { grep 'cuda:pcsample:' s.txt | grep "$@" | sed 's/.* samples=\([0-9]*\) .*/\1/' | awk '{ s += $1 } END { print s + 0 }'; }
issued=$(sum_of -v 'stall=[^ ]*_not_issued ')
notiss=$(sum_of 'stall=[^ ]*_not_issued ')
check "issued reasons' samples = CUPTI's total - non-user ($issued = $tot - $nonuser)" \
	[ -n "$tot" -a -n "$nonuser" -a "$issued" -eq $((tot - nonuser)) ]

"$ZT" report -i "$R" --gpu --stdio > r.txt 2> r.err
check "report --gpu exits 0" [ $? -eq 0 ]
check "the header counts each sample once and names the not-issued part ($issued, $notiss)" \
	contains r.txt "^# GPU: 63 kernel launches of 3 kernels, .* of GPU time; $issued PC samples \\($notiss of them not issued\\)$"
ksum=$(sed -nE 's/^# Kernel [^:]+: ([0-9]+) samples .*/\1/p' r.txt | awk '{ s += $1 } END { print s + 0 }')
check "the kernels' samples add up to it ($ksum)" [ "$ksum" -eq "$issued" ]
check "no not-issued reason among the stalls" bash -c "! grep -q '_not_issued' r.txt"
hot=$(sed -n '/^# Kernel gc_hot:/,/^# *Self/p' r.txt | awk '!/^#/ && NF >= 4 { print $3; exit }')
check "gc_hot's hottest line: gpucheck.cu:21, the line the H200's samples named (${hot:-none})" [ "$hot" = gpucheck.cu:21 ]
check "every sampled PC resolved to a line" contains r.txt '^# GPU symbols: [0-9]+ PCs with lines \(function, file:line\), 0 names only, 0 none$'
# (gpucheck_app itself is not here: its frames are offsets, libcuda's too)
check "launch sites: gc_hot under its launch through the driver's cuLaunchKernel" \
	bash -c "sed -n '/Launch sites/,/Hot lines/p' r.txt | grep -A1 'libcuda.so.580.159.04+0x3aa171' | grep -q 'gc_hot'"

"$ZT" script -i "$R" --gpu --folded > f.txt 2> f.err
check "script --folded --gpu exits 0" [ $? -eq 0 ]
fsum=$(awk '/_\[gs\] [0-9]+$/ { s += $NF } END { print s + 0 }' f.txt)
check "the flame graph's stall frames hold each sample once ($fsum of $issued)" [ "$fsum" -eq "$issued" ]
check "no not-issued frame" bash -c "! grep -q '_not_issued_\\[gs\\]' f.txt"
finish
