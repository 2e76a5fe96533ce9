#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# zt's cubin symbolizer (symbolizer/cubin.c) against CUPTI's own
# cuptiGetSassToSourceCorrelation, which works without a GPU: every
# 16-byte PC of every function of every nvcc fixture (mk/gputest.mk:
# symtest.cu for sm_75, sm_90, sm_100, without -lineinfo and with -G, the
# device-linked rdc_a.cu + rdc_b.cu, kernels.cu; and the fuzz seeds,
# tests/fuzz/corpus/cubin/*.cubin) must give the same file,
# directory and line as zt's innermost frame, except the few PCs
# tests/gpu/cubin_cmp.c lists and explains.
. "$(dirname "$0")/lib.sh"
B=$(dirname "$ZT")
G=$B/tests/gpu
CMP=$G/cubin_cmp
if [ ! -x "$CMP" ] || [ ! -d "$G/cubins" ] || [ ! -f "$G/kernels.cubin" ]; then
	skip "zt was built without CUDA (no $CMP or no nvcc fixtures): cubin comparison not run"
	finish
fi
cubins=("$G"/cubins/*.cubin "$G/kernels.cubin")
check "all fixtures built (${#cubins[@]})" [ "${#cubins[@]}" -ge 9 ]
cubins+=("$(dirname "$0")"/../fuzz/corpus/cubin/*.cubin)
"$CMP" "${cubins[@]}" > "$T/cmp.out" 2> "$T/cmp.err"
rc=$?
sed 's/^/    /' "$T/cmp.out" | grep -v '^    *expected ' | head -60
check "cubin_cmp exits 0 (no unexpected disagreement): $rc" [ "$rc" -eq 0 ]
total=$(awk '/^total:/ { print $2 }' "$T/cmp.out")
agreed=$(awk '/^total:/ { print $5 }' "$T/cmp.out")
check "PCs compared: ${total:-0}" [ "${total:-0}" -gt 1000 ]
check "PCs agreed: ${agreed:-0}" [ "${agreed:-0}" -gt 0 ]
check "no DISAGREE line" bash -c "! grep -q DISAGREE '$T/cmp.out'"
# each fixture compared, with lines (all but symtest_noline agree on real lines)
for c in symtest_sm75 symtest_sm90 symtest_sm100 symtest_noline symtest_g rdc_sm75 rdc_sm90 rdc_sm100 kernels \
	seed-sm75 seed-sm90 seed-rdc-sm90; do
	n=$(awk -v c="$c.cubin:" '$1 == c && $3 == "PCs," { print $2 }' "$T/cmp.out")
	check "$c: ${n:-0} PCs compared" [ "${n:-0}" -gt 0 ]
done
# only __noinline__ callees' names are refused by CUPTI, never a kernel
check "CUPTI refuses no kernel's name" bash -c "! grep -q 'a kernel!' '$T/cmp.out'"
check "CUPTI refuses the callees' names" contains "$T/cmp.out" 'st_second\$_Z9st_calleefi: CUPTI refuses'
# a cubin built by nvcc on an H200 machine (tests/data/gpu): zt's line at every
# PC == the line nvdisasm -g printed there (and CUPTI's, through cubin_cmp)
D=$(dirname "$0")/../data/gpu
"$CMP" -v "$D/h200-gpucheck.cubin" > "$T/h200.out" 2>&1
check "the H200 cubin: cubin_cmp exits 0" [ $? -eq 0 ]
awk '/ cupti / { split($5, a, ":"); print $1, a[2] }' "$T/h200.out" | LC_ALL=C sort > "$T/h200-zt.txt"
LC_ALL=C join "$D/h200-gpucheck.nvdisasm-lines" "$T/h200-zt.txt" > "$T/h200-join.txt"
check "the H200 cubin: all 264 PCs compared with nvdisasm ($(wc -l < "$T/h200-join.txt"))" \
	[ "$(wc -l < "$T/h200-join.txt")" -eq 264 ]
check "the H200 cubin: zt's line == nvdisasm's at every PC" bash -c "! awk '\$2 != \$3' '$T/h200-join.txt' | grep -q ."
check "the H200 cubin: gc_hot's loop is at gpucheck.cu:21" contains "$T/h200-join.txt" '^gc_hot\+0x300 21 21$'
# the failure path: without its list of expected disagreements, the
# device-linked sm_90 cubin must fail the comparison
"$CMP" -x "$G/cubins/rdc_sm90.cubin" > "$T/cmp-x.out" 2>&1
check "cubin_cmp -x fails on rdc_sm90's known disagreements" [ $? -eq 1 ]
check "and prints them" contains "$T/cmp-x.out" 'DISAGREE rdc_sm90.cubin: rdc_kernel_a\+0x0: '
finish
