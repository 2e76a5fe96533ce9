#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The whole test suite on a fresh Debian 12 machine: installs what is missing,
# builds, then runs unit tests, fuzz-corpus replays and end-to-end tests, and
# the unit tests and replays again under ASan+UBSan. Run as root (the
# end-to-end tests record with BPF for real).
set -u
cd "$(dirname "$0")/.."
if [ "$(id -u)" -ne 0 ]; then
	echo "scripts/test.sh: run as root (the end-to-end tests load BPF programs): sudo $0" >&2
	exit 1
fi
scripts/setup.sh --test || exit 1
jobs=$(nproc)
pass=0 fail=0
t0=$SECONDS
step() { # step NAME CMD...
	local name=$1 t=$SECONDS; shift
	echo "=== $name"
	if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "=== $name: FAILED"; fi
	echo "=== $name: $((SECONDS - t)) s"
}
step build make -j"$jobs" all tests-build
step unit make -j"$jobs" check-unit
step fuzz-replay make -j"$jobs" check-fuzz
# Each end-to-end script runs once. Under ASan and UBSan (asan-e2e below),
# those where outside input comes in and where the recording and reading
# paths run: bad and hostile input, the server, perf.data, stack snapshots,
# every reader and output. In the plain build, those that time things or
# run live, where the sanitizers' slowness would change what is measured
# (perf_parity, perf_kernel, symbolize_parity, top, report_tui, serve_slow,
# record_opts, record_events, ...). `make check-e2e` runs them all.
asan_e2e="^t_(gpu|gpu_h200|gpu_trace|gpu_report|gpu_flame|script_gpu|symbolize_cubin|cubin|s3|serve|serve_faults|serve_hostile|serve_cluster|serve_query|serve_projects|tls_client|agent|serve_debuginfod|serve_symbols|symbols|symdb|push|record_workload|config|hostile|outputs|errors|sigkill|perfmap|symbolize|debuginfod|pprof|perfdata|script|script_opts|report|report_opts|annotate|flame|dwarf|badinput|lld|archive|diff|buildid_list|evlist|python|gpu_python|annotate_python|go|symbols_deb)\.sh$"
step e2e env E2E_SKIP="$asan_e2e" make check-e2e
step asan-build make -j"$jobs" SANITIZE=address,undefined tests-build
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:abort_on_error=1
step asan-unit make -j"$jobs" SANITIZE=address,undefined check-unit
step asan-fuzz-replay make -j"$jobs" SANITIZE=address,undefined check-fuzz
step asan-e2e env E2E_ONLY="$asan_e2e" make SANITIZE=address,undefined check-e2e
echo "suite: $pass passed, $fail failed, 0 skipped ($(( (SECONDS - t0) / 60 )) min $(( (SECONDS - t0) % 60 )) s)"
[ "$fail" -eq 0 ]
