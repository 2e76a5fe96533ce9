#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The GPU launch stacks of a Python program name the Python line that
# launched the kernel. tests/gpu/cuda_app.py, cuda_app.c in Python (ctypes
# on the driver API), runs under Debian's python3.11 on the stand-in libcuda
# and libcupti (tests/e2e/t_gpu.sh tells how they work), recorded with
# zt record --gpu -g: the launch probe's BPF program walks CPython's frame
# chain as a sample's does, and each kernel's launch stack must go from
# cuLaunchKernel through ctypes to the Python function that called it, at
# the line of its cuLaunchKernel call in cuda_app.py, then to its callers
# at their lines (run_frames, main, <module>). Seen in zt script --gpu
# (frames, dso, srcline), the GPU folded stacks and zt report --gpu (launch
# sites by symbol and by srcline); the CPU samples of the same run have
# their Python frames too.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/gpulib.sh"
gpu_setup
PY=/usr/bin/python3.11
if [ ! -x "$PY" ]; then
	skip "no $PY (Debian's python3.11): Python launch stacks not tested"
	finish
fi
APP=$(cd "$(dirname "$0")/../gpu" && pwd)/cuda_app.py
cd "$T"

# the lines to find: each cuLaunchKernel call ends in "# launch: KERNEL";
# the callers by their code
line_of() { # line_of ERE: the one line of cuda_app.py that matches
	local l
	l=$(grep -nE -- "$1" "$APP" | cut -d: -f1)
	[ "$(echo "$l" | wc -w)" -eq 1 ] && echo "$l"
}
L_saxpy=$(line_of '# launch: saxpy$')
L_hot=$(line_of '# launch: hot_loop$')
L_scale=$(line_of '# launch: scale$')
L_call_saxpy=$(line_of '^        launch_saxpy\(')
L_call_step=$(line_of '^        step_physics\(f\)$')
L_call_hot=$(line_of '^    launch_hot\(')
L_call_burn=$(line_of '^        burn_cpu\(\)$')
L_call_run=$(line_of '^    run_frames\(frames\)$')
L_call_main=$(line_of '^    sys\.exit\(main\(\)\)$')
echo "  cuda_app.py: cuLaunchKernel of saxpy at line ${L_saxpy:-?}, hot_loop ${L_hot:-?}, scale ${L_scale:-?}"
check "the lines of cuda_app.py's launches and calls are found" \
	all '[ -n "$L_saxpy" ] && [ -n "$L_hot" ] && [ -n "$L_scale" ]' \
	'[ -n "$L_call_saxpy" ] && [ -n "$L_call_step" ] && [ -n "$L_call_hot" ]' \
	'[ -n "$L_call_burn" ] && [ -n "$L_call_run" ] && [ -n "$L_call_main" ]'

# ---- record -------------------------------------------------------------------
LD_LIBRARY_PATH=$SD "$ZT" record --gpu -g -o py.data -- "$PY" "$APP" "$G/kernels.cubin" 40 > py.out 2> py.err
st=$?
sed 's/^/    /' py.err
check "record --gpu -g of python3.11 exits with the program's status (0): $st" [ "$st" -eq 0 ]
check "the program ran to its end" contains py.out 'cuda_app.py: 40 frames'
# without the BPF sampler (its launch program refused, say) the launch
# stacks come from the library's own unwinding, which sees no Python frames
check "the BPF sampler and its launch probe loaded (no 'cannot sample the CPU')" \
	bash -c "! grep -q 'cannot sample the CPU\|verifier refused' py.err"
check "sums up the GPU side: 90 kernels" contains py.err 'GPU: 1 process, 90 kernels'

# ---- zt script --gpu: each kernel's launch stack, frame by frame ----------------
"$ZT" script -i py.data --gpu -F ip,sym,dso,srcline > gpu.txt 2> gpu-script.err
check "script --gpu exits 0" [ $? -eq 0 ]
# one line per kernel: NAME, then its frames leaf first as sym|dso|srcline
# (spaces inside a field made _)
awk '
function flush() { if (k != "") print k "\t" s; k = "" }
/cuda:kernel:/ { flush(); k = $NF; sub("name=", "", k); s = ""; next }
k != "" && /^\t/ {
	line = $0; sub(/^\t *[0-9a-f]+ /, "", line)
	dso = ""; p = match(line, / \([^()]*\)$/)
	if (p) { dso = substr(line, p + 2, RLENGTH - 3); line = substr(line, 1, p - 1) }
	gsub(/ /, "_", line); gsub(/ /, "_", dso)
	s = s " " line "|" dso "|"; next
}
k != "" && /^  [^ ]/ { l = $0; sub(/^ +/, "", l); gsub(/ /, "_", l); s = s l; next }
/^$/ { flush() }
END { flush() }' gpu.txt > stacks.txt
nk=$(wc -l < stacks.txt)
check "90 kernels (40 saxpy, 40 hot_loop, 10 scale): $nk" [ "$nk" -eq 90 ]
esc() { printf '%s' "$1" | sed 's/[][\.*^$()+?{}|]/\\&/g'; }
A=$(esc "$APP")
pyf() { # pyf FUNCTION LINE: a Python frame of cuda_app.py at LINE, as stacks.txt has it
	printf '%s' "$(esc "$1")\\|$A\\|cuda_app\\.py:$2"
}
tail_ok=" $(pyf '<module>' "$L_call_main")( |$)"
# leaf first: cuLaunchKernel, ctypes' and libffi's frames, then the Python ones
re_saxpy=" cuLaunchKernel\|[^ ]*libcuda[^ ]*( [^ ]*)* $(pyf launch_saxpy "$L_saxpy") $(pyf run_frames "$L_call_saxpy") $(pyf main "$L_call_run")$tail_ok"
re_hot=" cuLaunchKernel\|[^ ]*libcuda[^ ]*( [^ ]*)* $(pyf launch_hot "$L_hot") $(pyf step_physics "$L_call_hot") $(pyf run_frames "$L_call_step") $(pyf main "$L_call_run")$tail_ok"
re_scale=" cuLaunchKernel\|[^ ]*libcuda[^ ]*( [^ ]*)* $(pyf step_physics "$L_scale") $(pyf run_frames "$L_call_step") $(pyf main "$L_call_run")$tail_ok"
stack_checks() { # stack_checks KERNEL LAUNCHES WHO RE
	local k=$1 n=$2 who=$3 re=$4 ns nm
	ns=$(awk -F'\t' -v k="$k" '$1 == k && $2 != ""' stacks.txt | wc -l)
	nm=$(awk -F'\t' -v k="$k" '$1 == k && $2 != "" { print $2 }' stacks.txt | grep -cE -- "$re")
	echo "  $k: $n launched, $ns with a launch stack, $nm of them through $who"
	check "$k: at least 3/4 of its $n launches have a launch stack ($ns)" [ "$ns" -ge $((n * 3 / 4)) ]
	check "$k: every launch stack names $who" \
		all '[ "$ns" -gt 0 ]' '[ "$nm" -eq "$ns" ]'
}
stack_checks saxpy 40 "launch_saxpy (cuda_app.py:$L_saxpy) <- run_frames:$L_call_saxpy <- main:$L_call_run <- <module>" "$re_saxpy"
stack_checks hot_loop 40 "launch_hot (cuda_app.py:$L_hot) <- step_physics:$L_call_hot <- run_frames:$L_call_step <- main" "$re_hot"
stack_checks scale 10 "step_physics (cuda_app.py:$L_scale) <- run_frames:$L_call_step <- main" "$re_scale"
# every launch's probe record arrives (a sample's BPF program that
# interrupts the probe's on its CPU must not take its record)
nn=$(grep -c 'cuda:kernel:.*launch=nostack' gpu.txt)
check "every launch has its stack ($nn of 90 without)" [ "$nn" -eq 0 ]
awk -F'\t' '$1 == "saxpy" && $2 != "" { s = $2 } END { print s }' stacks.txt | tr ' ' '\n' | sed -n '/cuLaunchKernel/,/<module>/p' |
	sed 's/^/    saxpy: /'
check "a Python frame's dso is its .py file (script --gpu's default fields)" \
	bash -c "'$ZT' script -i py.data --gpu 2>/dev/null | grep -qE '^\s+[0-9a-f]+ launch_saxpy\+0x[0-9a-f]+ \($A\)$'"
check "no Python frame of a launch stack left unnamed ([python...])" bash -c "! grep -q '\[python' stacks.txt"

# ---- the GPU folded stacks: the Python functions by name -------------------------
# (a launch before the unwind tables of libffi are ready ends its native
# walk there: its Python frames then come right after the comm)
"$ZT" script -i py.data --gpu --folded --gpu-weight time > folded.txt 2> folded.err
check "script --folded --gpu exits 0" [ $? -eq 0 ]
check "folded: <module>;main;run_frames;launch_saxpy;...;cuLaunchKernel;saxpy_[g]" \
	contains folded.txt '^python3\.11;(.*;)?<module>;main;run_frames;launch_saxpy;([^;]+;)*cuLaunchKernel;saxpy_\[g\] [0-9]+$'
check "folded: ...;run_frames;step_physics;launch_hot;...;cuLaunchKernel;hot_loop_[g]" \
	contains folded.txt ';main;run_frames;step_physics;launch_hot;([^;]+;)*cuLaunchKernel;hot_loop_\[g\] [0-9]+$'
check "folded: ...;run_frames;step_physics;...;cuLaunchKernel;scale_[g], not through launch_hot" \
	bash -c "grep -E ';main;run_frames;step_physics;([^;]+;)*cuLaunchKernel;scale_\\[g\\] [0-9]+\$' folded.txt | grep -qv ';launch_hot;'"

# ---- zt report --gpu: the launch sites by function and by line ---------------------
"$ZT" report -i py.data --gpu --stdio -g none > rep.txt 2> rep.err
sed -n '/Launch sites/,/^# =====.*Hot lines/p' rep.txt > rep-sites.txt
check "report --gpu: launch site launch_saxpy, shared object cuda_app.py" \
	contains rep-sites.txt '%  python3\.11 +cuda_app\.py +\[\.\] launch_saxpy$'
check "report --gpu: launch site launch_hot, shared object cuda_app.py" \
	contains rep-sites.txt '%  python3\.11 +cuda_app\.py +\[\.\] launch_hot$'
"$ZT" report -i py.data --gpu --stdio -g none --sort srcline > rep-src.txt 2> rep-src.err
sed -n '/Launch sites/,/^# =====.*Hot lines/p' rep-src.txt > rep-src-sites.txt
for l in "$L_saxpy" "$L_hot" "$L_scale" "$L_call_saxpy" "$L_call_step" "$L_call_hot" "$L_call_run"; do
	check "report --gpu --sort srcline: launch site cuda_app.py:$l" \
		contains rep-src-sites.txt "%  cuda_app\\.py:$l\$"
done
# the share of each call line is its kernels': saxpy's ~43% of the GPU
# time, hot_loop's ~46%, scale's ~11% (launches without a stack make them less)
pct_of() { awk -v s="cuda_app.py:$1" '$NF == s { gsub("%", "", $1); print int($1); exit }' rep-src-sites.txt; }
p_saxpy=$(pct_of "$L_saxpy") p_hot=$(pct_of "$L_hot") p_scale=$(pct_of "$L_scale")
check "shares of the launch lines: saxpy ${p_saxpy:-?}% (35-44), hot_loop ${p_hot:-?}% (37-47), scale ${p_scale:-?}% (7-11)" \
	all 'between "$p_saxpy" 35 44' 'between "$p_hot" 37 47' 'between "$p_scale" 7 11'

# ---- the CPU samples of the same run have their Python frames ----------------------
"$ZT" script -i py.data --cpu -F comm,ip,sym,dso,srcline > cpu.txt 2> cpu.err
check "script --cpu exits 0" [ $? -eq 0 ]
awk '
function flush() { if (s != "") print s; s = "" }
/^[^\t ]/ { flush(); s = "S"; next }
/^\t/ {
	line = $0; sub(/^\t *[0-9a-f]+ /, "", line)
	dso = ""; p = match(line, / \([^()]*\)$/)
	if (p) { dso = substr(line, p + 2, RLENGTH - 3); line = substr(line, 1, p - 1) }
	gsub(/ /, "_", line); gsub(/ /, "_", dso)
	s = s " " line "|" dso "|"; next
}
/^  [^ ]/ { l = $0; sub(/^ +/, "", l); gsub(/ /, "_", l); s = s l; next }
/^$/ { flush() }
END { flush() }' cpu.txt > cpu-stacks.txt
nburn=$(grep -cE -- " burn_cpu\|$A\|cuda_app\.py:[0-9]+ $(pyf run_frames "$L_call_burn") $(pyf main "$L_call_run")$tail_ok" cpu-stacks.txt)
ncpu=$(wc -l < cpu-stacks.txt)
echo "  CPU samples: $ncpu, in burn_cpu <- run_frames:$L_call_burn <- main:$L_call_run: $nburn"
check "CPU samples in burn_cpu (cuda_app.py) <- run_frames <- main <- <module>: $nburn" [ "$nburn" -ge 100 ]
"$ZT" report -i py.data --stdio --no-children --sort dso,sym > cpu-rep.txt 2>&1
check "report: burn_cpu among the CPU side's functions, in cuda_app.py" \
	contains cpu-rep.txt '%  cuda_app\.py +\[\.\] burn_cpu$'
finish
