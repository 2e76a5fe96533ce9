#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/gpu-check.sh (the check of zt record --gpu on a real GPU, issue 33)
# in its stand-in mode, so that its checking logic cannot rot between GPU
# runs: on the stand-in libcuda and libcupti every check must pass. It uses
# gpu-bundle/ when `make gpu-bundle` made one, else the build tree.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/gpulib.sh"
gpu_setup
case "$B" in *build-asan*) skip "gpu-check.sh runs the plain build"; finish ;; esac
root=$(cd "$(dirname "$0")/../.." && pwd)
GPU_CHECK_MODE=standin OUT=$T/out timeout 200 "$root/scripts/gpu-check.sh" > "$T/run.txt" 2>&1
check "gpu-check.sh exits 0" [ $? -eq 0 ]
check "it says it ran with the stand-in" contains "$T/out/summary.txt" 'mode standin .*STAND-IN'
grep '^FAIL' "$T/out/summary.txt" | sed 's/^/  /'
np=$(grep -c '^PASS' "$T/out/summary.txt")
check "no failed check ($np passed)" bash -c "! grep -q '^FAIL' '$T/out/summary.txt'"
check "at least 25 checks ran ($np)" [ "$np" -ge 25 ]
check "kernel durations compared with CUDA events" contains "$T/out/summary.txt" '^FIG  app-zt: gc_hot: 5 launches: CUDA events'
check "the GPU-only path (no perf_event, no BPF) kept launch stacks" \
	contains "$T/out/summary.txt" '^PASS app-nocpu: launch stacks resolved'
check "step durations in the log, without bc (absent on the first GPU machine)" \
	bash -c "grep -q 'status 0 after [0-9]*\.[0-9]*s' '$T/out/log.txt' && ! grep -q 'after ?s' '$T/out/log.txt'"
check "gpucheck_app also recorded without PC sampling" contains "$T/out/summary.txt" '^PASS app-nopcs: gc_hot: [0-9]+ launches recorded'
check "every stall reason of the samples listed" contains "$T/out/summary.txt" '^INFO app-zt: every stall reason of the samples .*long_scoreboard'
check "the results came back in at most 8 files" [ "$(ls "$T/out" | wc -l)" -le 8 ]
check "a results archive" [ -s "$T/out/results.tar.gz" ]
finish
