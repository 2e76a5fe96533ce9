#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# libztcupti.so's costs without a GPU (build/bench/cupti_bench drives the
# code CUPTI calls): CPU time a kernel launch adds (median, p99, against a
# no-op callback in the same run), PC-sampling aggregation throughput on
# one core, peak memory under the hard cap, bytes per kernel record and
# per PC bucket after zstd. The benchmark runs pinned to one CPU.
# Env: LAUNCHES (default 1000000).
set -u
: "${CUPTI_BENCH:?}" "${CUPTI_LIB:?}"
LAUNCHES=${LAUNCHES:-1000000}
echo "cupti bench: $(basename "$CUPTI_LIB") ($(stat -c %s "$CUPTI_LIB") bytes), $(nproc) CPUs," \
     "CUPTI $(readelf -d "$CUPTI_LIB" | sed -n 's/.*\[\(libcupti[^]]*\)\].*/\1/p')"
pin=
command -v taskset > /dev/null && pin="taskset -c $(($(nproc) - 1))"
for mode in launch usdt pcs memory size; do
	$pin "$CUPTI_BENCH" "$mode" "$LAUNCHES" || exit 1
done
