#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# GPU PC symbolization: zt's cubin symbolizer (cold from the bytes, from its
# symbol cache, warm in memory) against CUPTI's cuptiGetSassToSourceCorrelation
# per PC, which needs no GPU. The cubins: CUBINS (default 100) builds of
# bench/gpusym_kernels.cu with -DV=0..CUBINS-1, -lineinfo, for sm_75, sm_90
# and sm_100 in turn (REL and RELA line-table relocations), kept under
# GPUSYM_DIR/cubins for the next run. PCS (default 1000000) buckets; CUPTI is
# timed on the first CUPTI_PCS (default 20000) and extrapolated.
set -u
: "${GPUSYM_BENCH:?}" "${NVCC:?}" "${GPUSYM_DIR:?}"
CUBINS=${CUBINS:-100}
PCS=${PCS:-1000000}
CUPTI_PCS=${CUPTI_PCS:-20000}
src=$(cd "$(dirname "$0")" && pwd)/gpusym_kernels.cu
d=$GPUSYM_DIR/cubins
# a new source or compiler: build them all again
stamp="$(sha256sum < "$src" | cut -c1-16) $("$NVCC" --version | tail -1)"
if [ "$(cat "$d/.stamp" 2> /dev/null)" != "$stamp" ]; then
	rm -rf "$d"
fi
mkdir -p "$d"
rm -rf "$GPUSYM_DIR/cache"
start=$(date +%s)
archs=(sm_75 sm_90 sm_100)
for ((v = 0; v < CUBINS; v++)); do
	f=$d/v$(printf '%03d' $v).cubin
	[ -s "$f" ] || echo "$v ${archs[v % 3]} $f"
done | GPUSYM_SRC=$src xargs -r -P "$(nproc)" -L1 sh -c \
	'"$0" -cubin -lineinfo -arch="$2" -DV="$1" -o "$3.tmp" "$GPUSYM_SRC" && mv "$3.tmp" "$3"' \
	"$NVCC" 2> "$GPUSYM_DIR/nvcc.err" || true
n=$(ls "$d"/*.cubin 2> /dev/null | wc -l)
if [ "$n" -lt "$CUBINS" ]; then
	echo "gpusym: nvcc built $n of $CUBINS cubins:" >&2
	head -5 "$GPUSYM_DIR/nvcc.err" >&2
	exit 1
fi
echo "$stamp" > "$d/.stamp"
[ $(($(date +%s) - start)) -gt 1 ] && echo "gpusym: $n cubins built in $(($(date +%s) - start)) s"
pin=
command -v taskset > /dev/null && pin="taskset -c $(($(nproc) - 1))"
$pin "$GPUSYM_BENCH" "$d" "$PCS" "$CUPTI_PCS"
