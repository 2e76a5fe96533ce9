#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/gpu-check.sh (the check of zt record --gpu on a real GPU, issue 33)
# in its stand-in mode, so that its checking logic cannot rot between GPU
# runs: on the stand-in libcuda and libcupti every check must pass. As on a
# GPU machine, it runs from a bundle: the one `make gpu-bundle` makes of the
# build under test (scripts/gpu-bundle.sh into $T/bundle; the bundle's
# libztcupti.so is built with the tests, mk/gpubundle.mk), with that
# build's stand-ins (ZT_BUILD). tests/e2e/t_gpu_bundle.sh runs the bundle in
# a chroot without Debian's libraries.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/gpulib.sh"
gpu_setup
case "$B" in *build-asan*) skip "gpu-check.sh runs the plain build"; finish ;; esac
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ ! -f "$B/bundle/libztcupti.so" ] || [ ! -f "$G/gpucheck.cubin" ]; then
	fail "no $B/bundle/libztcupti.so or no $G/gpucheck.cubin: make tests-build builds them"
	finish
fi
"$root/scripts/gpu-bundle.sh" "$B" "$T/bundle" > "$T/bundle.txt" 2>&1
check "scripts/gpu-bundle.sh makes the bundle of $B" [ $? -eq 0 ]
sed 's/^/  /' "$T/bundle.txt"
bytes=$(find "$T/bundle" -type f -printf '%s\n' | awk '{ t += $1 } END { print t + 0 }')
check "the bundle is under 40 MiB ($bytes bytes)" [ "$bytes" -lt $((40 << 20)) ]
GPU_CHECK_MODE=standin GPU_BUNDLE=$T/bundle ZT_BUILD=$B OUT=$T/out timeout 200 "$root/scripts/gpu-check.sh" > "$T/run.txt" 2>&1
check "gpu-check.sh exits 0" [ $? -eq 0 ]
check "it says it ran with the stand-in" contains "$T/out/summary.txt" 'mode standin .*STAND-IN'
check "it ran the bundle's zt" contains "$T/out/summary.txt" "^# zt: $T/bundle/bin/zt "
check "the bundle's libztcupti.so was injected" \
	contains "$T/out/summary.txt" "cuda:info: library=$T/bundle/lib/zt/libztcupti.so"
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
