#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# zt record --gpu checked on a real GPU (issue 33), in one run of under 6
# minutes that never hangs: every step has a timeout, and a step that fails
# does not stop the others. Run `make gpu-bundle` on the build machine, copy
# the tree with gpu-bundle/ to the GPU machine, then there:
#   OUT=/some/dir scripts/gpu-check.sh
# It writes to $OUT: summary.txt (every figure, PASS/FAIL/INFO lines),
# log.txt (every command and its stderr) and results.tar.gz (per-step
# outputs, recordings under a size limit, cuobjdump/nvdisasm of the cubin).
# Without a GPU (no /dev/nvidiactl or nvidia-smi fails) it runs the same
# checks in stand-in mode, on the stand-in libcuda and libcupti of the tests
# (build/tests/gpu/standin), and says so; figures then mean nothing.
# What the runs on an H200 showed and what changed: tests/gpu/H200-RUN-1.md and
# tests/gpu/H200-RUN-2.md.
# Variables: GPU_BUNDLE (default gpu-bundle/ beside scripts/), GPU_CHECK_MODE
# (gpu|standin: force one), GPU_CHECK_BUDGET (seconds, default 320;
# no step runs past it by more than 20 s).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
: "${OUT:?set OUT to the folder for the results}"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
BUNDLE=${GPU_BUNDLE:-$ROOT/gpu-bundle}
# ZT_BUILD: the build folder of the stand-ins, cubin_crc, and zt without a bundle (default build/; relative: to the root)
ZB=${ZT_BUILD:-build}; [ "${ZB#/}" != "$ZB" ] || ZB=$ROOT/$ZB
BUDGET=${GPU_CHECK_BUDGET:-320}
T0=$(date +%s)
W=$(mktemp -d /tmp/zt-gpucheck.XXXXXX)
R=$W/results
mkdir -p "$R"
SUM=$OUT/summary.txt
LOG=$OUT/log.txt
: > "$SUM"
: > "$LOG"
npass=0
nfail=0

say() { echo "$*" | tee -a "$SUM" >> "$LOG"; }
log() { echo "$*" >> "$LOG"; }
pass() { npass=$((npass + 1)); say "PASS $*"; }
fail() { nfail=$((nfail + 1)); say "FAIL $*"; }
# ok COND-EXIT-STATUS TEXT: PASS or FAIL
ok() { if [ "$1" -eq 0 ]; then pass "$2"; else fail "$2"; fi; }
info() { say "INFO $*"; }
fig() { say "FIG  $*"; }
elapsed() { echo $(($(date +%s) - T0)); }
# left SECONDS: whether the budget leaves that much
left() { [ $(($(elapsed) + $1)) -le "$BUDGET" ]; }
# run NAME TIMEOUT CMD...: stdout to $R/NAME.out, stderr to $R/NAME.err (and the log);
# returns the command's status (124: timed out)
run() {
	local name=$1 to=$2 st t1 rest
	shift 2
	# never past the budget (and 20 s of grace)
	rest=$((BUDGET + 20 - $(elapsed)))
	[ "$rest" -lt 5 ] && rest=5
	[ "$to" -gt "$rest" ] && to=$rest
	t1=$(date +%s%N)
	log "---- [$(elapsed)s] $name (timeout ${to}s): $*"
	timeout -k 5 "$to" "$@" > "$R/$name.out" 2> "$R/$name.err" < /dev/null
	st=$?
	# (no bc on the GPU machine of the first run: awk)
	log "     status $st after $(awk -v a="$t1" -v b="$(date +%s%N)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')s"
	tail -n 40 "$R/$name.err" | sed 's/^/     | /' >> "$LOG"
	[ "$st" -eq 124 ] && fail "$name: timed out after ${to}s"
	# killed by a signal (zt record passes the program's status on): say
	# which, and what glibc or a sanitizer said (the first run: 134, double free)
	if [ "$st" -gt 128 ] && [ "$st" -ne 137 ] || [ "$st" -eq 134 ]; then
		fail "$name: CRASHED, signal $((st - 128)): $(grep -m2 -E 'double free|corrupt|free\(\)|malloc|Segmentation|Abort|AddressSanitizer|core dumped|terminate called' "$R/$name.err" | tr '\n' ' ' | cut -c1-200)"
	fi
	return "$st"
}
# a duration as zt script prints it (12.5us, 3.2ms, 800ns, 1.5s) in ns
to_ns() { awk -v d="$1" 'BEGIN { v = d + 0; if (d ~ /ns$/) m = 1; else if (d ~ /us$/) m = 1e3;
	else if (d ~ /ms$/) m = 1e6; else m = 1e9; printf "%.0f\n", v * m }'; }

finish_up() {
	info "checks: $npass passed, $nfail failed; $(elapsed)s"
	cp "$SUM" "$R/" 2> /dev/null
	# the recordings only while the archive stays small
	(cd "$W" && find results -name '*.data' -size +6M -printf '%p %s\n' > results/big-recordings.txt &&
		find results -name '*.data' -size +6M -delete)
	tar -C "$W" -czf "$OUT/results.tar.gz" results 2>> "$LOG" ||
		(cd "$W" && python3 -c 'import sys,tarfile; t=tarfile.open(sys.argv[1],"w:gz"); t.add("results"); t.close()' \
			"$OUT/results.tar.gz")
	ls -la "$OUT" >> "$LOG"
	rm -rf "$W"
}
trap finish_up EXIT

# ---- the mode, zt and the libraries -----------------------------------------------
MODE=${GPU_CHECK_MODE:-}
if [ -z "$MODE" ]; then
	if [ -e /dev/nvidiactl ] && timeout 20 nvidia-smi -L > /dev/null 2>&1; then MODE=gpu; else MODE=standin; fi
fi
if [ -x "$BUNDLE/bin/zt" ]; then
	ZT=$BUNDLE/bin/zt
	TB=$BUNDLE/tests
else
	ZT=$ZB/zt
	TB=$ZB/tests/gpu
fi
say "# zt gpu-check: mode $MODE ($( [ "$MODE" = gpu ] && echo 'a real GPU' || echo 'STAND-IN: no GPU here, the stand-in libcuda and libcupti of the tests; figures mean nothing')), $(date -u +%FT%TZ)"
# (the bundle's MANIFEST names the commit it was built from; the tree's own
# git, copied to a GPU machine, may not be that commit)
say "# zt: $ZT (tree: $(cd "$ROOT" && git describe --always --dirty 2>/dev/null || echo '?'); $( [ -f "$BUNDLE/MANIFEST" ] && head -1 "$BUNDLE/MANIFEST" || echo 'no bundle'))"
[ -f "$BUNDLE/MANIFEST" ] && cp "$BUNDLE/MANIFEST" "$R/bundle-MANIFEST.txt"
if [ ! -x "$ZT" ] || [ ! -x "$TB/gpucheck_app" ]; then
	fail "no zt or no gpucheck_app ($ZT, $TB): run make gpu-bundle (or make all tests-build) first"
	exit 1
fi
PRE_LD=${LD_LIBRARY_PATH:-}
SD=$ZB/tests/gpu/standin
CUPTI_DIR=
if [ "$MODE" = standin ]; then
	[ -f "$SD/libcupti.so.13" ] || { fail "stand-in mode needs $SD (make tests-build)"; exit 1; }
	APP_LD=$SD${PRE_LD:+:$PRE_LD}
	CUBIN_CRC=$("$ZB/tests/gpu/cubin_crc" "$TB/gpucheck.cubin" 2> /dev/null)
	export ZT_STANDIN_CUBIN_CRC=$CUBIN_CRC
else
	for d in /usr/local/cuda/extras/CUPTI/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda/lib64 \
		/usr/local/cuda-*/extras/CUPTI/lib64 /usr/local/cuda-*/targets/x86_64-linux/lib; do
		if [ -e "$d/libcupti.so.13" ]; then CUPTI_DIR=$d; break; fi
	done
	APP_LD=$CUPTI_DIR${PRE_LD:+:$PRE_LD}
fi
info "CUPTI folder for the C program (LD_LIBRARY_PATH): ${CUPTI_DIR:-none found} "
[ "$MODE" = gpu ] && [ -z "$CUPTI_DIR" ] && fail "no libcupti.so.13 under /usr/local/cuda*: the C program will find none"

# ---- 1. what is there --------------------------------------------------------------
say "## 1. the machine"
run uname 10 uname -a && info "kernel: $(cat "$R/uname.out")"
if [ "$MODE" = gpu ]; then
	run nvidia-smi 30 nvidia-smi && info "nvidia-smi: $(grep -m1 -o 'Driver Version: [0-9.]*.*CUDA Version: [0-9.]*' "$R/nvidia-smi.out")"
	run nvidia-smi-q 30 nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.sm,clocks.max.sm,memory.total --format=csv &&
		info "GPU: $(tail -1 "$R/nvidia-smi-q.out")"
fi
NVCC=$(command -v nvcc || true)
for d in /usr/local/cuda/bin /usr/local/cuda-*/bin; do [ -z "$NVCC" ] && [ -x "$d/nvcc" ] && NVCC=$d/nvcc; done
[ -n "$NVCC" ] && run nvcc-version 20 "$NVCC" --version && info "nvcc: $NVCC: $(grep -m1 release "$R/nvcc-version.out")"
CUDA_BIN=$(dirname "${NVCC:-/usr/local/cuda/bin/nvcc}")
run cupti-files 30 bash -c 'find /usr /opt /lib /lib64 $(python3 -c "import site; print(\" \".join(site.getsitepackages()))" 2>/dev/null) \( -name "libcupti.so*" -o -name "libcuda.so*" \) 2>/dev/null | sort -u'
info "CUPTI/CUDA libraries found: $(tr '\n' ' ' < "$R/cupti-files.out")"
run python-torch 60 python3 -c 'import sys, torch, os; import importlib.util as u
print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())
s = u.find_spec("nvidia.cuda_cupti") or u.find_spec("nvidia")
print("nvidia pkg", s.submodule_search_locations if s else None)
try:
    import triton; print("triton", triton.__version__)
except Exception as e: print("triton", e)' && info "$(tr '\n' ';' < "$R/python-torch.out")"
run perf-paranoid 5 cat /proc/sys/kernel/perf_event_paranoid /proc/sys/kernel/unprivileged_bpf_disabled /proc/sys/kernel/kptr_restrict
info "perf_event_paranoid, unprivileged_bpf_disabled, kptr_restrict: $(tr '\n' ' ' < "$R/perf-paranoid.out"); uid $(id -u)"
# CPU sampling: the sampler zt chooses (-v says), on a short command
run cpu-probe 30 "$ZT" record -v -g -o "$R/cpu-probe.data" -- sleep 0.3
st=$?
info "zt record (CPU only) status $st: $(grep -iE 'sampler|bpf|perf_event|cannot|error' "$R/cpu-probe.err" | head -3 | tr '\n' ' ')"
ok "$st" "zt record works for the CPU (BPF or perf_event) on this kernel"

# ---- 2. the CUDA C program ---------------------------------------------------------
say "## 2. a CUDA program with known kernels (gpucheck_app, driver API, sm_90 cubin)"
SRC=$ROOT/tests/gpu/gpucheck.cu
[ -f "$SRC" ] || SRC=$TB/gpucheck.cu
CUBIN=$TB/gpucheck.cubin
if [ "$MODE" = gpu ] && [ -n "$NVCC" ]; then
	if run nvcc-cubin 90 "$NVCC" -cubin -lineinfo -arch=sm_90 -o "$R/gpucheck.cubin" "$SRC"; then
		CUBIN=$R/gpucheck.cubin
		info "cubin built here: nvcc -cubin -lineinfo -arch=sm_90"
	else
		fail "nvcc -cubin -lineinfo -arch=sm_90 here: status $?, the bundle's cubin used"
	fi
fi
for tool in cuobjdump nvdisasm; do
	p=$(command -v $tool || true)
	[ -z "$p" ] && [ -x "$CUDA_BIN/$tool" ] && p=$CUDA_BIN/$tool
	[ -z "$p" ] && { info "no $tool"; continue; }
	if [ $tool = cuobjdump ]; then
		run cuobjdump-elf 30 "$p" --list-elf "$CUBIN"
		run cuobjdump-sass 30 "$p" -sass "$CUBIN"
	else
		run nvdisasm 30 "$p" -g -c "$CUBIN"
	fi
done
HOTLINE=$(grep -n 'GC_HOT_LINE' "$SRC" | cut -d: -f1)
if [ "$MODE" = gpu ]; then APPARGS=(16777216 20000 20); else APPARGS=(65536 100 5); fi
run app-bare 60 env LD_LIBRARY_PATH="$APP_LD" "$TB/gpucheck_app" "$CUBIN" "${APPARGS[@]}"
ok $? "gpucheck_app runs without zt"
grep '^GC ' "$R/app-bare.out" | sed 's/^/INFO bare: /' | tee -a "$SUM" >> "$LOG"

# check_app NAME: the checks of a recording NAME.data of gpucheck_app (its output NAME.out)
check_app() {
	local n=$1 d=$R/$1.data s=$R/$1.script.txt rp=$R/$1.report.txt
	run "$n.script" 90 "$ZT" script -v -i "$d" --gpu
	mv "$R/$n.script.out" "$s"
	run "$n.report" 90 "$ZT" report -i "$d" --gpu --stdio
	mv "$R/$n.report.out" "$rp"
	grep 'cuda:info\|cuda:counters' "$s" | sed 's/^ */INFO '"$n"': /' | cut -c1-300 | tee -a "$SUM" >> "$LOG"
	info "$n: GPU summary: $(grep -m1 '^# GPU:' "$rp")"
	while read -r _ _ k launches batch grid block _ ev; do
		k=${k#name=}; launches=${launches#launches=}; batch=${batch#batch=}
		grid=${grid#grid=}; block=${block#block=}; ev=${ev#event_ms=}
		grep "cuda:kernel:.* name=$k\$" "$s" > "$R/$n.k.$k" || true
		local got
		got=$(wc -l < "$R/$n.k.$k")
		[ "$got" -eq "$launches" ]; ok $? "$n: $k: $launches launches recorded ($got)"
		local badgeo
		badgeo=$(grep -vc "grid=$grid block=$block " "$R/$n.k.$k")
		[ "$badgeo" -eq 0 ]; ok $? "$n: $k: every launch with grid $grid, block $block ($badgeo not)"
		local sum=0 dd
		for dd in $(tail -n "$batch" "$R/$n.k.$k" | grep -o 'dur=[^ ]*' | cut -d= -f2); do
			sum=$((sum + $(to_ns "$dd")))
		done
		local evns
		evns=$(awk -v e="$ev" 'BEGIN { printf "%.0f", e * 1e6 }')
		fig "$n: $k: $batch launches: CUDA events ${ev} ms, zt's kernel durations $(awk -v s="$sum" 'BEGIN { printf "%.6f", s / 1e6 }') ms"
		awk -v a="$sum" -v b="$evns" 'BEGIN { exit !(b > 0 && a > 0 && (a - b) / b <= 0.10 && (b - a) / b <= 0.10) }'
		ok $? "$n: $k: durations within 10% of the CUDA events'"
	done < <(grep -q '^GC kernel ' "$R/$n.out" && grep '^GC kernel ' "$R/$n.out" || grep '^GC kernel ' "$R/app-bare.out")
	local kind bytes
	while read -r _ _ kind bytes; do
		kind=${kind#kind=}; bytes=${bytes#bytes=}
		grep -q "cuda:memcpy: .*kind=$kind .*bytes=$bytes " "$s"; ok $? "$n: the $kind copy of $bytes bytes"
	done < <(grep -q '^GC memcpy ' "$R/$n.out" && grep '^GC memcpy ' "$R/$n.out" || grep '^GC memcpy ' "$R/app-bare.out")
	bytes=$(awk '/^GC memset / { sub("bytes=", "", $3); print $3 }' "$R/app-bare.out")
	[ -n "$bytes" ] && { grep -q "cuda:memset: .*bytes=$bytes " "$s"; ok $? "$n: the memset of $bytes bytes"; }
	grep -q 'cuda:cubin: ' "$s"; ok $? "$n: the cubin is in the recording"
	local pcs hot
	pcs=$(grep 'cuda:pcsample: .*function=gc_hot$' "$s" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^samples=/) { sub("samples=", "", $i); t += $i } } END { print t + 0 }')
	fig "$n: PC samples on gc_hot: $pcs; stall reasons: $(grep -o 'stall=smsp__pcsamp_warps_issue_stalled_[a-z_]*' "$s" | sort | uniq -c | sort -rn | head -6 | awk '{ sub("stall=smsp__pcsamp_warps_issue_stalled_", "", $2); printf "%s:%s ", $2, $1 }')"
	info "$n: every stall reason of the samples (name:samples): $(awk '/cuda:pcsample:/ { st = ""; sm = 0; for (i = 1; i <= NF; i++) { if ($i ~ /^stall=/) st = substr($i, 7); if ($i ~ /^samples=/) sm = substr($i, 9) } t[st] += sm } END { for (k in t) printf "%s:%d ", k, t[k] }' "$s" | tr ' ' '\n' | sort -t: -k2 -rn | tr '\n' ' ' | cut -c1-1500)"
	[ "$pcs" -gt 0 ]; ok $? "$n: PC samples on the hot kernel"
	# CUPTI's totalSamples (pc_total_samples) counts each sample once: the
	# samples of the reasons X, and those of kernels not the user's; the
	# reasons X_not_issued (Hopper on) are a part of X's (the second H200
	# run found 2572331 = 2220145 + 352186 of them against 2276934)
	local tot nonuser issued notiss rtot
	tot=$(grep -m1 -o 'pc_total_samples=[0-9]*' "$s" | cut -d= -f2)
	nonuser=$(grep -m1 -o 'pc_nonuser_samples=[0-9]*' "$s" | cut -d= -f2)
	issued=$(awk '/cuda:pcsample:/ && !/stall=[^ ]*_not_issued / { for (i = 1; i <= NF; i++) if ($i ~ /^samples=/) t += substr($i, 9) } END { print t + 0 }' "$s")
	notiss=$(awk '/cuda:pcsample:/ && /stall=[^ ]*_not_issued / { for (i = 1; i <= NF; i++) if ($i ~ /^samples=/) t += substr($i, 9) } END { print t + 0 }' "$s")
	rtot=$(sed -nE 's/^# GPU: .* ([0-9]+) PC samples.*/\1/p' "$rp")
	fig "$n: PC samples: CUPTI's total ${tot:-?} (non-user ${nonuser:-?}); records of issued reasons $issued, of X_not_issued $notiss; zt report's total ${rtot:-?}"
	[ -n "$tot" ] && [ "$issued" -eq $((tot - ${nonuser:-0})) ]
	ok $? "$n: the samples zt counts are CUPTI's totalSamples less the non-user ones ($issued = ${tot:-?} - ${nonuser:-?})"
	[ "${rtot:-x}" = "$issued" ]; ok $? "$n: zt report's PC-sample total counts each sample once (${rtot:-none} of $issued)"
	grep -q 'cuda:pcsample: .*stall=smsp__pcsamp_warps_issue_stalled_' "$s"; ok $? "$n: PC samples carry stall reasons"
	sed -n '/^# Kernel gc_hot:/,/^# *Self/p' "$rp" > "$R/$n.hot.txt"
	hot=$(awk '!/^#/ && NF >= 4 { print $3; exit }' "$R/$n.hot.txt")
	info "$n: gc_hot's lines: $(awk '!/^#/ && NF >= 4 { printf "%s %s; ", $3, $2 }' "$R/$n.hot.txt" | cut -c1-300)"
	if [ "$MODE" = gpu ]; then
		[ "$hot" = "gpucheck.cu:$HOTLINE" ]; ok $? "$n: gc_hot's hottest line is gpucheck.cu:$HOTLINE (got ${hot:-none})"
	else
		info "$n: stand-in: PC samples at made-up offsets, hottest line ${hot:-none} (a GPU's would be gpucheck.cu:$HOTLINE)"
	fi
	# launch stacks: each kernel's record followed by its stack, through launch_*
	local k fn with total
	for k in gc_saxpy:launch_saxpy gc_hot:launch_hot gc_scale:launch_scale; do
		fn=${k#*:}; k=${k%%:*}
		read -r with total < <(awk -v k="name=$k" -v f="$fn" '
			/cuda:kernel:/ { if (inq) { t++; w += hit } inq = ($NF == k); hit = 0; next }
			inq && $2 ~ "^" f "\\+" { hit = 1 }
			inq && /^$/ { t++; w += hit; inq = 0 }
			END { if (inq) { t++; w += hit } print w + 0, t + 0 }' "$s")
		[ "$total" -gt 0 ] && [ "$with" -ge $((total * 9 / 10)) ]
		ok $? "$n: $k: launch stacks through $fn ($with of $total)"
	done
	grep -A14 -m1 'cuda:kernel:.* name=gc_hot$' "$s" | sed 's/^/     /' >> "$SUM"
}

# crash_bt NAME CMD...: after a crash, the same command once more under
# cuda-gdb (the GPU machine has no gdb), following zt record's child, for the
# backtrace of every thread (NAME.bt.out)
crash_bt() {
	local n=$1 cg
	shift
	cg=$(command -v cuda-gdb || true)
	[ -z "$cg" ] && [ -x "$CUDA_BIN/cuda-gdb" ] && cg=$CUDA_BIN/cuda-gdb
	[ -n "$cg" ] && left 90 || return 0
	run "$n.bt" 90 "$cg" -q -batch -ex 'set pagination off' -ex 'set follow-fork-mode child' \
		-ex 'set detach-on-fork on' -ex run -ex 'thread apply all bt 30' --args "$@"
	info "$n: under cuda-gdb: $(grep -m1 -E 'received signal|exited' "$R/$n.bt.out")"
	grep -A12 -m1 'received signal' "$R/$n.bt.out" | sed 's/^/     /' | cut -c1-200 >> "$SUM"
}
run app-zt 90 env LD_LIBRARY_PATH="$APP_LD" "$ZT" record -v --gpu -g -o "$R/app-zt.data" -- "$TB/gpucheck_app" "$CUBIN" "${APPARGS[@]}"
st=$?
ok $st "zt record -v --gpu -g of gpucheck_app exits 0"
[ "$st" -gt 128 ] && [ "$st" -ne 137 ] &&
	crash_bt app-zt env LD_LIBRARY_PATH="$APP_LD" "$ZT" record --gpu -g -o "$R/app-zt-bt.data" -- "$TB/gpucheck_app" "$CUBIN" "${APPARGS[@]}"
grep 'zt gpu:\|GPU:\|warning' "$R/app-zt.err" | sed 's/^/INFO app-zt: /' | cut -c1-300 | tee -a "$SUM" >> "$LOG"
[ -f "$R/app-zt.data" ] && check_app app-zt

if left 60; then
	run app-ser 90 env LD_LIBRARY_PATH="$APP_LD" "$ZT" record -v --gpu --gpu-pcs serialized -g -o "$R/app-ser.data" -- "$TB/gpucheck_app" "$CUBIN" "${APPARGS[@]}"
	ok $? "zt record --gpu --gpu-pcs serialized of gpucheck_app exits 0"
	run app-ser.script 60 "$ZT" script -i "$R/app-ser.data" --gpu
	fig "app-ser: PC sample records: $(grep -c 'cuda:pcsample:' "$R/app-ser.script.out"), on gc_hot: $(grep -c 'cuda:pcsample: .*gc_hot$' "$R/app-ser.script.out")"
	grep -q 'cuda:pcsample: .*gc_hot$' "$R/app-ser.script.out"; ok $? "app-ser: serialized PC sampling gives gc_hot samples"
fi
# without PC sampling: kernels, copies and launch stacks must not depend on it
if left 60; then
	run app-nopcs 90 env LD_LIBRARY_PATH="$APP_LD" "$ZT" record -v --gpu --gpu-pcs off -g -o "$R/app-nopcs.data" -- "$TB/gpucheck_app" "$CUBIN" "${APPARGS[@]}"
	ok $? "zt record --gpu --gpu-pcs off of gpucheck_app exits 0"
	run app-nopcs.script 60 "$ZT" script -i "$R/app-nopcs.data" --gpu
	while read -r _ _ k launches _; do
		k=${k#name=}; launches=${launches#launches=}
		got=$(grep -c "cuda:kernel:.* name=$k\$" "$R/app-nopcs.script.out")
		[ "$got" -eq "$launches" ]; ok $? "app-nopcs: $k: $launches launches recorded ($got)"
	done < <(grep '^GC kernel ' "$R/app-bare.out")
fi
# without CPU sampling (perf_event_open and bpf refused, as in a container)
if left 60; then
	run app-nocpu 90 env LD_LIBRARY_PATH="$APP_LD" LD_PRELOAD="$TB/noperf.so" "$ZT" record --gpu -g -o "$R/app-nocpu.data" -- "$TB/gpucheck_app" "$CUBIN" "${APPARGS[@]}"
	ok $? "zt record --gpu without perf_event/BPF exits 0"
	grep -q 'recording the GPU side only' "$R/app-nocpu.err"; ok $? "app-nocpu: says it records the GPU side only"
	run app-nocpu.script 60 "$ZT" script -i "$R/app-nocpu.data" --gpu
	nk=$(grep -c 'cuda:kernel:' "$R/app-nocpu.script.out")
	fig "app-nocpu: kernels $nk; launches through launch_hot: $(grep -c 'launch_hot+' "$R/app-nocpu.script.out")"
	[ "$nk" -gt 0 ]; ok $? "app-nocpu: kernels recorded without CPU sampling"
	grep -q ' launch_hot+' "$R/app-nocpu.script.out"; ok $? "app-nocpu: launch stacks resolved (launch_hot)"
fi

# ---- 2b. a runtime-API program (cudart, fat binary) --------------------------------
if [ "$MODE" = gpu ] && [ -n "$NVCC" ] && left 60; then
	say "## 2b. a runtime-API program (vecadd.cu: nvcc -lineinfo -arch=sm_90, the cubin in a fat binary)"
	VSRC=$ROOT/tests/gpu/vecadd.cu
	[ -f "$VSRC" ] || VSRC=$TB/vecadd.cu
	if run nvcc-vecadd 90 "$NVCC" -lineinfo -arch=sm_90 -O1 -Xcompiler -fno-omit-frame-pointer -o "$R/vecadd" "$VSRC"; then
		run vecadd-zt 60 env LD_LIBRARY_PATH="$APP_LD" "$ZT" record -v --gpu -g -o "$R/vecadd.data" -- "$R/vecadd"
		ok $? "zt record --gpu of vecadd (runtime API) exits 0"
		run vecadd.script 60 "$ZT" script -i "$R/vecadd.data" --gpu
		run vecadd.report 60 "$ZT" report -i "$R/vecadd.data" --gpu --stdio
		grep -q 'cuda:kernel:.*name=vecadd' "$R/vecadd.script.out"; ok $? "vecadd: the kernel recorded"
		grep -q 'cuda:cubin:' "$R/vecadd.script.out"; ok $? "vecadd: its cubin extracted from the fat binary"
		grep -q 'vecadd.cu:[0-9]' "$R/vecadd.report.out"; ok $? "vecadd: its PC samples resolve to vecadd.cu lines"
		grep -q 'cuda:kernel:.*name=vecadd' -A20 "$R/vecadd.script.out" | head -0
		awk '/cuda:kernel:.*name=vecadd/ { f = 1; next } f && /^$/ { exit } f' "$R/vecadd.script.out" | grep -q ' main+'
		ok $? "vecadd: its launch stack reaches main"
	fi
fi

# ---- 3 and 4. PyTorch --------------------------------------------------------------
say "## 3. a PyTorch training loop; 4. overhead"
TL=$ROOT/tests/gpu/torch_loop.py
[ -f "$TL" ] || TL=$TB/torch_loop.py
if [ "$MODE" = gpu ]; then
	# the CUPTI of the pip package, as PyTorch loads it
	# (nvidia/cuda_cupti/lib for CUDA 12 wheels, nvidia/cu13/lib for CUDA 13's)
	PYCUPTI=$(timeout 30 python3 -c 'import site, glob, os
for d in site.getsitepackages() + [site.getusersitepackages()]:
    for f in sorted(glob.glob(os.path.join(d, "nvidia", "*", "lib", "libcupti.so*"))):
        print(os.path.dirname(f)); raise SystemExit' 2> /dev/null || true)
	info "python's CUPTI folder: ${PYCUPTI:-none}"
	TORCH_LD=${PYCUPTI:-$CUPTI_DIR}${PRE_LD:+:$PRE_LD}
	SECS=4
	# torch_run NAME [zt options]: steps/s of the loop, with zt when options are given
	torch_run() {
		local n=$1
		shift
		if [ $# -eq 0 ]; then
			run "$n" 90 env LD_LIBRARY_PATH="$TORCH_LD" python3 "$TL" "$SECS"
		else
			run "$n" 120 env LD_LIBRARY_PATH="$TORCH_LD" "$ZT" record "$@" -o "$R/$n.data" -- python3 "$TL" "$SECS"
		fi
		local st=$?
		local sps
		sps=$(grep -o 'steps_per_s=[0-9.]*' "$R/$n.out" | cut -d= -f2)
		fig "torch $n: status $st, steps/s ${sps:-none}; $(grep '^TORCH' "$R/$n.out" | tr '\n' ' ' | cut -c1-300)"
		eval "SPS_${n//-/_}=${sps:-0}"
		return $st
	}
	left 40 && torch_run torch-bare
	left 60 && { torch_run torch-zt -v --gpu -g; ok $? "zt record --gpu -g of the PyTorch loop exits 0"; }
	grep 'zt gpu:\|GPU:\|warning' "$R/torch-zt.err" 2> /dev/null | sed 's/^/INFO torch-zt: /' | cut -c1-300 | tee -a "$SUM" >> "$LOG"
	grep -q 'cubin of module .* not kept' "$R/torch-zt.err" 2> /dev/null
	[ $? -ne 0 ]; ok $? "torch-zt: every cubin kept (no 'not kept' warning)"
	left 50 && { torch_run torch-zt-nopcs -v --gpu --gpu-pcs off -g; ok $? "zt record --gpu --gpu-pcs off of the PyTorch loop exits 0"; }
	grep 'zt gpu:\|GPU:\|warning' "$R/torch-zt-nopcs.err" 2> /dev/null | sed 's/^/INFO torch-zt-nopcs: /' | cut -c1-300 | tee -a "$SUM" >> "$LOG"
	# the first run found no GPU records here: PyTorch reaches cuInit seconds
	# after zt's first look into its folder (fixed: the folder rescanned)
	if [ -f "$R/torch-zt-nopcs.data" ] && left 30; then
		run torch-zt-nopcs.script 120 "$ZT" script -i "$R/torch-zt-nopcs.data" --gpu
		nk=$(grep -c 'cuda:kernel:' "$R/torch-zt-nopcs.script.out")
		[ "$nk" -gt 100 ]; ok $? "torch-zt-nopcs: kernels recorded ($nk)"
	fi
	b=${SPS_torch_bare:-0}
	for v in torch_zt torch_zt_nopcs; do
		eval "x=\${SPS_$v:-0}"
		awk -v a="$b" -v x="$x" 'BEGIN { exit !(a > 0 && x > 0) }' &&
			fig "overhead $v: $(awk -v a="$b" -v x="$x" 'BEGIN { printf "%.1f%% fewer steps/s than without zt (%s vs %s)", (a - x) / a * 100, x, a }')"
	done
	if [ -f "$R/torch-zt.data" ] && left 40; then
		run torch-zt.script 120 "$ZT" script -i "$R/torch-zt.data" --gpu
		s=$R/torch-zt.script.out
		nk=$(grep -c 'cuda:kernel:' "$s")
		npc=$(grep -c 'cuda:pcsample:' "$s")
		fig "torch-zt: kernel records $nk, PC sample records $npc, cubins $(grep -c 'cuda:cubin:' "$s")"
		grep 'cuda:info\|cuda:counters' "$s" | sed 's/^ */INFO torch-zt: /' | cut -c1-300 | tee -a "$SUM" >> "$LOG"
		[ "$nk" -gt 100 ]; ok $? "torch-zt: kernels recorded ($nk)"
		[ "$npc" -gt 0 ]; ok $? "torch-zt: PC samples ($npc)"
		grep -o 'name=.*' "$s" | sort | uniq -c | sort -rn | head -12 | sed 's/^/INFO torch-zt: kernel /' | tee -a "$SUM" >> "$LOG"
		awk '/cuda:kernel:/ { f = 1; n++; next } f && /^$/ { f = 0 } f && /libcuda|libcudart|libtorch/ { s[n] = 1 } END { for (k in s) c++; print c + 0, n + 0 }' "$s" > "$R/torch-stacks.txt"
		read -r with total < "$R/torch-stacks.txt"
		fig "torch-zt: kernels with a launch stack into CUDA/torch libraries: $with of $total"
		[ "$with" -gt 0 ]; ok $? "torch-zt: launches carry CPU stacks"
		awk '/cuda:kernel:/ { f = 1; next } f && /^$/ { exit } f' "$s" > "$R/torch-first-stack.txt"
		grep -m1 -A30 'cuda:kernel:.*gemm' "$s" | head -30 | sed 's/^/     /' >> "$SUM"
		grep -q 'train_step\|_PyEval_EvalFrame\|PyObject_Call' "$s"; ok $? "torch-zt: launch stacks reach Python (train_step or the interpreter)"
		run torch-zt.report 120 "$ZT" report -i "$R/torch-zt.data" --gpu --stdio
		sed -n '/GPU kernels/,/Launch sites/p' "$R/torch-zt.report.out" | head -20 >> "$SUM"
		sed -n '/Hot lines/,$p' "$R/torch-zt.report.out" | head -20 >> "$SUM"
	fi
	# ---- 3c. the program's own CUPTI client: PyTorch's profiler (Kineto).
	# CUPTI takes one subscriber: with zt's library injected at cuInit,
	# Kineto's comes second and is refused (on the H200: "CUPTI
	# initialization failed - CUDA profiler activities will be missing").
	# The program must run on, and zt must keep every kernel, those in the
	# profiler's window too.
	TP=$ROOT/tests/gpu/torch_prof.py
	[ -f "$TP" ] || TP=$TB/torch_prof.py
	if left 45; then
		say "## 3c. PyTorch's own profiler (torch.profiler, a CUPTI client) under zt record --gpu"
		run tprof-bare 60 env LD_LIBRARY_PATH="$TORCH_LD" python3 "$TP" 200
		run tprof-zt 90 env LD_LIBRARY_PATH="$TORCH_LD" "$ZT" record -v --gpu --gpu-pcs off -o "$R/tprof-zt.data" -- python3 "$TP" 200
		st=$?
		grep -q 'TPROF steps=600 ok=1' "$R/tprof-zt.out"
		g=$?
		[ "$st" -eq 0 ] && [ "$g" -eq 0 ]; ok $? "tprof: a program using torch.profiler runs to its end under zt record --gpu (status $st)"
		info "tprof: torch.profiler's CUDA kernels: without zt $(grep -o 'kineto_cuda_kernels=[0-9]*' "$R/tprof-bare.out" | cut -d= -f2), under zt $(grep -o 'kineto_cuda_kernels=[0-9]*' "$R/tprof-zt.out" | cut -d= -f2); Kineto said: $(grep -m1 -o 'CUPTI initialization failed.*\|MULTIPLE_SUBSCRIBERS[A-Z_]*' "$R/tprof-zt.err")"
		read -r ws we < <(sed -n 's/^TPROF window_start_ns=\([0-9]*\) window_end_ns=\([0-9]*\)$/\1 \2/p' "$R/tprof-zt.out")
		run tprof-zt.script 60 "$ZT" script -i "$R/tprof-zt.data" --gpu
		read -r nk nw < <(awk -v s="${ws:-0}" -v e="${we:-0}" '/cuda:kernel:/ { t = $3; sub(":", "", t); t *= 1e9; n++; if (t >= s && t <= e) w++ } END { print n + 0, w + 0 }' "$R/tprof-zt.script.out")
		fig "tprof: zt's kernels $nk, in the profiler's window $nw (the loop runs the same 200 steps before, inside and after it)"
		[ "$nw" -gt 0 ] && [ "$nk" -ge $((3 * nw * 9 / 10)) ]
		ok $? "tprof: zt keeps every kernel, inside torch.profiler's window too ($nw of $nk)"
		rm -f "$R/tprof-zt.data"
	fi
	# PC sampling's settings against its cost and its losses (the first
	# H200 runs: 6% fewer steps/s, and "hardware buffer full" 16 times at
	# CUPTI's defaults): one loop per setting, while the budget lasts
	say "## 4b. PC-sampling settings: steps/s, buffer-full events, samples"
	period=$(grep -m1 -o 'period_log2=[0-9]*' "$R/torch-zt.script.out" 2> /dev/null | cut -d= -f2)
	info "CUPTI's settings in torch-zt: $(grep -m1 -o 'pcs_config=.*' "$R/torch-zt.script.out" 2> /dev/null)"
	exps="hwbuf2g:--gpu-opts=pcs_hwbuf_mb=2048 scratch16:--gpu-opts=pcs_scratch_mb=16 sleep20:--gpu-opts=pcs_sleep_ms=20"
	[ -n "$period" ] && [ "$period" -gt 0 ] && [ "$period" -le 29 ] &&
		exps="$exps period$((period + 2)):--gpu-pcs-period=$((period + 2))"
	[ -n "$period" ] && [ "$period" -gt 0 ] && [ "$period" -le 27 ] &&
		exps="$exps period$((period + 4)):--gpu-pcs-period=$((period + 4))"
	for e in $exps; do
		left 35 || break
		n=torch-${e%%:*}
		torch_run "$n" --gpu -g ${e#*:}
		run "$n.script" 60 "$ZT" script -i "$R/$n.data" --gpu
		eval "x=\${SPS_${n//-/_}:-0}"
		fig "$n (${e#*:}): steps/s $x ($(awk -v a="${SPS_torch_bare:-0}" -v x="$x" 'BEGIN { if (a > 0 && x > 0) printf "%.1f%% fewer than without zt", (a - x) / a * 100; else print "?" }')); $(grep -m1 -o 'pcs_config=.*' "$R/$n.script.out"); $(grep -m1 -o 'pc_total_samples=[0-9]* pc_dropped_samples=[0-9]* pc_nonuser_samples=[0-9]* pc_hw_buffer_full=[0-9]*' "$R/$n.script.out"); PC records $(grep -c 'cuda:pcsample:' "$R/$n.script.out")"
		rm -f "$R/$n.data"
	done
	left 25 && { torch_run torch-bare2; info "torch-bare2: the loop without zt once more (the spread of the bare figure)"; }
else
	info "stand-in mode: no PyTorch step (it needs a GPU)"
fi
say "## done in $(elapsed)s"
exit 0
