#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# zt record --gpu end to end, without a GPU: a real driver-API CUDA program
# (tests/gpu/cuda_app.c) loads a real nvcc cubin on a stand-in libcuda and
# libcupti (tests/gpu/standin_*.c), which drive zt's real injection library
# as the driver and CUPTI would: launch callbacks, kernel and copy activity
# on the registered clock, PC samples at the cubin's real offsets with its
# real CRC (from the real libcupti). zt record merges it all into zt.data
# and zt script shows it. Also: the real runtime-API program without a
# driver, another CUPTI subscriber, a preset CUDA_INJECTION64_PATH, a CUDA
# process that crashes, a recorder killed with SIGKILL, -a.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/gpulib.sh"
# (under the sanitizers the recorder is the one checked, zt and its merge
# of the files, with the plain build's library: gpu_setup)
gpu_setup
cd "$T"
crc=$ZT_STANDIN_CUBIN_CRC
echo "  the cubin's CRC (real libcupti): $crc"
cubin_size=$(stat -c %s "$G/kernels.cubin")
# kernel section sizes, to check PC offsets against
# (script prints scale demangled; its section is .text._Z5scalePfif)
sec_size() {
	local n=$1
	[ "$n" = scale ] && n=_Z5scalePfif
	local h
	h=$(readelf -S -W "$G/kernels.cubin" 2>/dev/null | awk -v s=".text.$n" '$2 == s { print $6; exit }')
	[ -n "$h" ] && echo $((16#$h))
}

# ---- the library's ABI --------------------------------------------------------
LIB=${ZT_CUPTI_LIB:-$B/libztcupti.so}
exports=$(nm -D --defined-only "$LIB" | awk '{ print $NF }' | sort -u | tr '\n' ' ')
check "libztcupti.so exports only InitializeInjection (got: $exports)" [ "$exports" = "InitializeInjection " ]
check "libztcupti.so does not link libcuda" bash -c "! readelf -d '$LIB' | grep -q 'libcuda'"

# ---- frame pointers: launch stacks from zt's BPF sampler at the USDT probe ------
LD_LIBRARY_PATH=$SD "$ZT" record --gpu -g -o fp.data -- "$G/cuda_app" "$G/kernels.cubin" 40 > fp.out 2> fp.err
check "record --gpu exits with the program's status (0)" [ $? -eq 0 ]
check "says no GPU driver was found" contains fp.err 'no NVIDIA GPU driver found'
check "sums up the GPU side" contains fp.err 'GPU: 1 process, 90 kernels'
# launches through the runtime, as PyTorch's: the driver's launch nested in
# cudaLaunchKernel's is the same launch, counted once (the H200's PyTorch
# loop said 64560 launches for 34178 kernels)
ZT_STANDIN_RUNTIME=1 gpu_record rt.data 40 -g
check "runtime launches: record exits 0" [ $? -eq 0 ]
check "runtime launches: 90 kernels, 90 launches, all with stacks" \
	contains rt.data.err 'GPU: 1 process, 90 kernels, 90 launches \(90 with stacks\)'
"$ZT" report -i rt.data --gpu --stdio > rt-report.txt 2> /dev/null
check "runtime launches: the launch sites through the outer launch's stack (launch_hot)" \
	bash -c "sed -n '/Launch sites/,/Hot lines/p' rt-report.txt | grep -q launch_hot"
"$ZT" script -i fp.data --gpu > fp.txt 2> fp-script.err
check "script --gpu exits 0" [ $? -eq 0 ]
nk=$(grep -c 'cuda:kernel:' fp.txt)
check "90 kernels (40 saxpy, 40 hot_loop, 10 scale): $nk" [ "$nk" -eq 90 ]
check "saxpy with its grid and block" contains fp.txt 'cuda:kernel: .*grid=16,1,1 block=256,1,1 .*name=saxpy'
check "hot_loop with its dynamic shared memory" contains fp.txt 'cuda:kernel: .*smem=0\+1024 .*name=hot_loop'
check "the C++ kernel demangled" contains fp.txt 'name=scale'
# a saxpy kernel's launch stack goes back to main through the program's own frames
awk '/cuda:kernel:.*name=saxpy/ { f = 1; s = ""; next } f && /^$/ { print s; f = 0 } f { s = s " " $2 }' fp.txt > fp-saxpy.txt
awk '/cuda:kernel:.*name=hot_loop/ { f = 1; s = ""; next } f && /^$/ { print s; f = 0 } f { s = s " " $2 }' fp.txt > fp-hot.txt
check "saxpy's launch stack: launch_saxpy <- run_frames <- main" contains fp-saxpy.txt 'launch_saxpy\+0x[0-9a-f]+ run_frames\+0x[0-9a-f]+ main\+'
check "hot_loop's launch stack: launch_hot <- step_physics <- run_frames" contains fp-hot.txt 'launch_hot\+0x[0-9a-f]+ step_physics\+0x[0-9a-f]+ run_frames\+'
check "through cuLaunchKernel" contains fp-saxpy.txt 'cuLaunchKernel'
check "copies: HtoD 16384 bytes" contains fp.txt 'cuda:memcpy: .*kind=HtoD .*bytes=16384'
check "copies: DtoH 16384 bytes" contains fp.txt 'cuda:memcpy: .*kind=DtoH .*bytes=16384'
check "a memset" contains fp.txt 'cuda:memset: .*bytes=16384'
check "the cubin, with CUPTI's CRC and its size" contains fp.txt "cuda:cubin: crc=0x0*${crc#0x} size=$cubin_size "
check "the clock is the CPU samples' (CLOCK_MONOTONIC)" contains fp.txt 'cuda:info: clock=monotonic'
npcs=$(grep -c 'cuda:pcsample:' fp.txt)
check "PC samples: $npcs buckets" [ "$npcs" -ge 4 ]
check "PC samples carry the cubin's CRC" contains fp.txt "cuda:pcsample: .*0x0*${crc#0x}"
check "with CUPTI's stall reasons" contains fp.txt 'cuda:pcsample: .*smsp__pcsamp_warps_issue_stalled_long_scoreboard'
# CUPTI's function names are shared, one per function (the stand-in does as CUPTI 13):
# the library counts the distinct pointers it was handed (3 kernels sampled)
np=$(sed -n 's/.*cuda:info: pcs_name_pointers=\([0-9]*\).*/\1/p' fp.txt)
check "one shared function name per sampled kernel: pcs_name_pointers=${np:-none}" [ "${np:-0}" -ge 1 -a "${np:-9}" -le 3 ]
# what CUPTI took (read back): its defaults, as the H200 said them (2^11, 512 MB, 1 MB, 100 ms)
check "CUPTI's PC-sampling settings read back" \
	contains fp.txt 'cuda:info: pcs_config=period_log2=11 hwbuf_bytes=536870912 scratch_bytes=1048576 sleep_ms=100$'
# and set: --gpu-pcs-period and --gpu-opts reach CUPTI
gpu_record po.data 4 --gpu-pcs-period 14 --gpu-opts pcs_hwbuf_mb=1024,pcs_scratch_mb=8,pcs_sleep_ms=20
check "--gpu-opts: record exits 0" [ $? -eq 0 ]
"$ZT" script -i po.data --gpu > po.txt 2> /dev/null
check "--gpu-pcs-period and --gpu-opts reach CUPTI" \
	contains po.txt 'cuda:info: pcs_config=period_log2=14 hwbuf_bytes=1073741824 scratch_bytes=8388608 sleep_ms=20$'
"$ZT" record --gpu --gpu-opts pcs_hwbuf_mb=1x -o po2.data -- true > po2.out 2> po2.err
check "--gpu-opts with a bad value: usage error (129), naming the keys" \
	bash -c "[ $? -eq 129 ] && grep -q 'pcs_hwbuf_mb, pcs_scratch_mb, pcs_sleep_ms, mem_mb and flush_ms' po2.err"
"$ZT" record --gpu --gpu-opts stacks=off -o po2.data -- true > po2.out 2> po2.err
check "--gpu-opts: only its own keys (stacks has --gpu-stacks)" [ $? -eq 129 ]
# every sampled PC lies inside its kernel's section, on an instruction (16 bytes)
bad=0
while read -r fn off; do
	sz=$(sec_size "$fn")
	if [ -z "$sz" ] || [ $((off)) -ge "$sz" ] || [ $((off % 16)) -ne 0 ]; then bad=$((bad + 1)); fi
done < <(awk '/cuda:pcsample:/ { for (i = 1; i <= NF; i++) if ($i ~ /^pc=/) { sub("pc=", "", $i); pc = $i } f = $NF; sub("function=", "", f); print f, pc }' fp.txt)
check "every PC sample is an instruction of its kernel ($bad outside)" [ "$bad" -eq 0 ]
# one timeline: the kernels ran while the CPU samples were taken
"$ZT" script -i fp.data --cpu -F time > fp-cpu.txt 2>/dev/null
read -r cmin cmax < <(awk '{ t = $1 + 0; if (t > 0) { if (!n++ || t < lo) lo = t; if (t > hi) hi = t } } END { printf "%.6f %.6f\n", lo, hi }' fp-cpu.txt)
ktime=$(awk '/cuda:kernel:/ { sub(":", "", $3); print $3; exit }' fp.txt)
echo "  CPU samples from $cmin to $cmax s, first kernel at $ktime s"
check "the first kernel lies within the CPU samples' time range" \
	awk -v k="$ktime" -v a="$cmin" -v b="$cmax" 'BEGIN { exit !(k >= a - 1 && k <= b + 1) }'
"$ZT" report -i fp.data --stdio --no-children > fp-report.txt 2>&1
# (its share, not its rank: with ~150 samples a loaded machine's kernel work can come first)
check "the CPU side is there: burn_cpu, $(self_pct fp-report.txt burn_cpu)% self" [ "$(self_pct fp-report.txt burn_cpu)" -ge 25 ]

# ---- --call-graph dwarf: the probe's snapshot, unwound offline as a sample's ----
LD_LIBRARY_PATH=$SD "$ZT" record --gpu --call-graph dwarf -o dw.data -- "$G/cuda_app" "$G/kernels.cubin" 20 > dw.out 2> dw.err
check "record --gpu --call-graph dwarf exits 0" [ $? -eq 0 ]
"$ZT" script -v -i dw.data --gpu > dw.txt 2> dw-script.err
awk '/cuda:kernel:.*name=hot_loop/ { f = 1; s = ""; next } f && /^$/ { print s; f = 0 } f { s = s " " $2 }' dw.txt > dw-hot.txt
check "unwound offline: launch_hot <- step_physics <- run_frames <- main" \
	contains dw-hot.txt 'launch_hot\+0x[0-9a-f]+ step_physics\+0x[0-9a-f]+ run_frames\+0x[0-9a-f]+ main\+'
nlus=$(sed -n "s/.*; \([0-9]*\) GPU launches'.*/\1/p" dw-script.err)
nk=$(grep -c 'cuda:kernel:' dw.txt)
# Under ASan, now and then one or two probe firings of 45 reach no record of the
# sampler (not counted as lost: cause not found yet, see the session note);
# that launch shows 'launch=nostack'. Every one that arrived is unwound.
nlost=$(grep -c 'cuda:kernel:.*launch=nostack' dw.txt)
echo "  launch snapshots unwound: ${nlus:-?} (kernels: $nk, of which without a stack: $nlost)"
check "every launch's snapshot that arrived was unwound with the samples' unwinder" \
	[ "${nlus:-0}" -eq $((nk - nlost)) ]
check "at most 5 launches of $nk without their probe record ($nlost)" [ "$nlost" -le 5 ]
# ---- the library's own unwinding (libunwind, in the process) ----------------------
LD_LIBRARY_PATH=$SD "$ZT" record --gpu --gpu-stacks unwind -g -o uw.data -- "$G/cuda_app" "$G/kernels.cubin" 20 > uw.out 2> uw.err
"$ZT" script -i uw.data --gpu > uw.txt 2>/dev/null
awk '/cuda:kernel:.*name=saxpy/ { f = 1; s = ""; next } f && /^$/ { print s; f = 0 } f { s = s " " $2 }' uw.txt > uw-saxpy.txt
check "unwound in the process: launch_saxpy <- run_frames <- main" \
	contains uw-saxpy.txt 'launch_saxpy\+0x[0-9a-f]+ run_frames\+0x[0-9a-f]+ main\+'
check "a rate limit per thread: --gpu-stack-rate" \
	"$ZT" record --gpu --gpu-stack-rate 5 --gpu-pcs off -q -o rl.data -- env LD_LIBRARY_PATH="$SD" "$G/cuda_app" "$G/kernels.cubin" 20
"$ZT" script -i rl.data --gpu > rl.txt 2>/dev/null
check "launches over the rate are counted" contains rl.txt 'cuda:counters: .*launch_ratelimited=[1-9]'
check "no PC samples with --gpu-pcs off" bash -c "! grep -q 'cuda:pcsample:' rl.txt"

# ---- a CUDA process that starts after zt's first poll (PyTorch's imports take
# seconds): its file appears in a folder zt has read to the end before; on an
# H200 such a run said "no CUDA process reported GPU activity"
LD_LIBRARY_PATH=$SD "$ZT" record --gpu --gpu-pcs off -g -o late.data -- \
	sh -c "sleep 2.5; exec '$G/cuda_app' '$G/kernels.cubin' 10" > late.out 2> late.err
check "a CUDA process started 2.5 s late is recorded" contains late.err 'GPU: 1 process, [1-9][0-9]* kernels'

# ---- another CUPTI client holds the process ------------------------------------
LD_LIBRARY_PATH=$SD ZT_STANDIN_OTHER_SUBSCRIBER="Nsight Systems" "$ZT" record --gpu -g -o ns.data -- \
	"$G/cuda_app" "$G/kernels.cubin" 20 > ns.out 2> ns.err
check "with another subscriber, record still exits 0" [ $? -eq 0 ]
check "one warning naming the other subscriber" [ "$(grep -c 'Nsight Systems' ns.err)" -eq 1 ]
"$ZT" report -i ns.data --stdio --no-children > ns-report.txt 2>&1
check "the CPU side is recorded: burn_cpu, $(self_pct ns-report.txt burn_cpu)% self" [ "$(self_pct ns-report.txt burn_cpu)" -ge 25 ]

# ---- CUDA_INJECTION64_PATH already set ------------------------------------------
CUDA_INJECTION64_PATH=/opt/other/libprofiler.so LD_LIBRARY_PATH=$SD "$ZT" record --gpu -g -o pre.data -- \
	"$G/cuda_app" "$G/kernels.cubin" 5 > pre.out 2> pre.err
check "a preset CUDA_INJECTION64_PATH is kept and reported" contains pre.err "CUDA_INJECTION64_PATH is already set to '/opt/other/libprofiler.so'"

# ---- a real CUDA program where there is no driver --------------------------------
"$ZT" record --gpu -g -o va.data -- "$G/vecadd" > va.out 2> va.err
st=$?
check "vecadd without a driver: its own exit status (2) passed on" [ "$st" -eq 2 ]
check "says plainly that no GPU was found" contains va.err 'no GPU records: no GPU was found'
"$ZT" report -i va.data --stdio --no-children > va-report.txt 2>&1
check "its CPU side is recorded (cpu_work)" contains va-report.txt 'cpu_work'

# ---- a CUDA process that crashes keeps what it flushed -----------------------------
# 2,000 frames take about 3 s; the library flushes every 0.5 s
LD_LIBRARY_PATH=$SD CUDA_APP_KILL_AT=1500 "$ZT" record --gpu -g -o crash.data -- \
	"$G/cuda_app" "$G/kernels.cubin" 2000 > crash.out 2> crash.err
check "the program's SIGKILL is passed on (137)" [ $? -eq 137 ]
"$ZT" script -i crash.data --gpu > crash.txt 2>/dev/null
nc=$(grep -c 'cuda:kernel:' crash.txt)
echo "  kernels of the crashed process: $nc (launched before the crash: 3375)"
check "a crashed process keeps all but its last second of kernels" [ "$nc" -ge 1000 ]

# ---- the recorder killed with SIGKILL ---------------------------------------------
LD_LIBRARY_PATH=$SD "$ZT" record --gpu -g -o kill.data -- "$G/cuda_app" "$G/kernels.cubin" 5000 \
	> kill.out 2> kill.err & zpid=$!; bgpids+=($zpid)
sleep 4
kill -9 "$zpid"; wait "$zpid" 2>/dev/null
pkill -9 -f "cuda_app $G/kernels.cubin 5000"
"$ZT" script -i kill.data --gpu > kill.txt 2> kill-script.err
check "a killed recording still reads" [ $? -eq 0 ]
check "and has GPU records" contains kill.txt 'cuda:kernel:'
rmdir_left=$(find /tmp -maxdepth 1 -name 'zt-gpu.*' -newer fp.data -user root 2>/dev/null | wc -l)
echo "  GPU directories left by the killed recorder: $rmdir_left"

# ---- -a prints what to export ---------------------------------------------------
"$ZT" record -a --gpu --duration 1 -o a.data > a.out 2> a.err
check "-a --gpu prints the variables to start CUDA programs with" \
	contains a.err 'export CUDA_INJECTION64_PATH=/.*libztcupti.so ZT_GPU_DIR=/tmp/zt-gpu\.'
check "the --gpu-* options need --gpu" bash -c "! '$ZT' record --gpu-pcs serialized -o x.data -- true 2>/dev/null"
finish
