#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# GPU stacks, without a GPU (the stand-in capture of gpulib.sh): zt script
# --folded --gpu (launch stack;kernel_[g];device functions;line;stall_[gs]),
# PC samples shared among a kernel's launch stacks by GPU time, serialized
# samples, --gpu-weight time, the resolved frames under zt script's
# cuda:pcsample: lines, and zt flame --gpu in headless Chromium: GPU frames
# in their own colors, a click zooms, search finds a kernel.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/gpulib.sh"
here=$(cd "$(dirname "$0")" && pwd)
gpu_setup
cd "$T"

# the frames of an SVG: "depth|width|value|fill|name|kind" a line, depth 0 the root
frames() {
	python3 - "$1" <<'PY'
import re, sys, xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
root = ET.parse(sys.argv[1]).getroot()
fr = []
for g in root.iter(ns + 'g'):
    if g.get('class') != 'f':
        continue
    t = g.find(ns + 'title').text.split('\n')
    r = g.find(ns + 'rect')
    info = dict(l.split(': ', 1) for l in t[1:] if ': ' in l)
    v = [int(re.match(r'(\d+) \(', x).group(1)) for k, x in info.items() if re.match(r'\d+ \(', x)]
    fr.append((float(r.get('y')), float(r.get('width')), v[0] if v else -1, r.get('fill'), t[0], info.get('kind', '')))
ys = sorted(set(f[0] for f in fr), reverse=True)
for f in fr:
    print('|'.join(str(x) for x in (ys.index(f[0]), f[1], f[2], f[3], f[4], f[5])))
PY
}
sum() { awk '{ s += $NF } END { print s + 0 }' "$@"; }

# ---- continuous PC sampling (the default); --gpu-stack-rate leaves most
# launches without a stack, so each kernel has two launch stacks to share by
gpu_record c.data 20 -g --gpu-stack-rate 5
check "record --gpu exits 0" [ $? -eq 0 ]
"$ZT" script -i c.data --gpu > c.txt 2> c-script.err
# the samples of a stall reason X_not_issued are a part of X's (as CUPTI
# gives them on an H200, and the stand-in too): never counted twice
pcs=$(grep 'cuda:pcsample:' c.txt | grep -v 'stall=[^ ]*_not_issued ' | sed 's/.* samples=\([0-9]*\) .*/\1/' | awk '{ s += $1 } END { print s + 0 }')
ni=$(grep 'cuda:pcsample: .*stall=[^ ]*_not_issued ' c.txt | sed 's/.* samples=\([0-9]*\) .*/\1/' | awk '{ s += $1 } END { print s + 0 }')
echo "  PC samples recorded: $pcs (and $ni of X_not_issued)"
check "the recording has PC samples" [ "$pcs" -gt 100 ]
check "... and samples of X_not_issued reasons, as on an H200" [ "$ni" -gt 0 ]
"$ZT" script -i c.data --folded --gpu > c.folded 2> c-folded.err
check "script --folded --gpu exits 0" [ $? -eq 0 ]
check "no message" [ ! -s c-folded.err ]
head -3 c.folded | sed 's/^/    /'
check "every line: process;...;kernel_[g];...;stall_[gs] COUNT" \
	awk '!/^cuda_app;([^;]+;)*[^;]+_\[g\](;[^;]+_\[g[dil]\])*;[a-z_0-9]+_\[gs\] [0-9]+$/ { bad = 1; print } END { exit bad }' c.folded
check "saxpy under its launch stack: main;run_frames;launch_saxpy;cuLaunchKernel" \
	contains c.folded '^cuda_app;([^;]+;)*main;run_frames;launch_saxpy;cuLaunchKernel;saxpy_\[g\](;[^;]+_\[g[dil]\])*;[a-z_]+_\[gs\] [0-9]+$'
check "hot_loop under launch_hot, its samples inside shade as a device function" \
	contains c.folded ';launch_hot;cuLaunchKernel;hot_loop_\[g\];[^;]*shade[^;]*_\[gd\](;[^;]+_\[g[il]\])*;[a-z_]+_\[gs\] '
check "scale (a C++ kernel) demangled" contains c.folded ';scale_\[g\];'
# launch stacks are sampled: the launches past the rate show their
# kernel's captured stack nearest in time (none is left without one here)
check "launches past --gpu-stack-rate take their kernel's sampled stack: no [no launch stack]" \
	bash -c "! grep -q 'no launch stack' c.folded"
"$ZT" report -i c.data --gpu --stdio > c-report.txt 2> /dev/null
check "the report says how many launch stacks were captured and how many taken" \
	contains c-report.txt '^# Launch stacks: [0-9]+ kernels. launches captured \(--gpu-stack-rate per thread\), [0-9]+ shown with the stack of their kernel.s captured launch nearest in time'
"$ZT" script -i c.data --gpu > c-own.txt 2> /dev/null
check "zt script still shows each launch's own (most have none at 5/s)" \
	[ "$(grep -c ' launch=ratelimited ' c-own.txt)" -gt 0 ]
check "no frame of CUPTI, zt's library or the driver's inside" \
	bash -c "! grep -qE 'zc_launch|ztc_glue|zt_standin|;fire;|;enter;' c.folded"
check "stall reasons without CUPTI's prefix" bash -c "grep -q ';long_scoreboard_\[gs\] ' c.folded && ! grep -q smsp__ c.folded"
check "no X_not_issued frame (counted under X)" bash -c "! grep -q '_not_issued_\[gs\]' c.folded"
total=$(sum c.folded)
check "the stacks hold every PC sample ($total of $pcs)" [ "$total" = "$pcs" ]
for k in saxpy hot_loop scale; do
	want=$(grep "cuda:pcsample: .*function=$k\$" c.txt | grep -v 'stall=[^ ]*_not_issued ' | sed 's/.* samples=\([0-9]*\) .*/\1/' | awk '{ s += $1 } END { print s + 0 }')
	got=$(grep ";${k}_\[g\];" c.folded | sum)
	check "$k: its PC samples in its stacks ($got of $want)" [ "$got" = "$want" ]
done

# ---- time: stacks end at the kernel, widths in ns
"$ZT" script -i c.data --folded --gpu --gpu-weight time > t.folded 2> t.err
check "--gpu-weight time exits 0" [ $? -eq 0 ]
check "time: stacks end at the kernel" awk '!/_\[g\] [0-9]+$/ { bad = 1; print } END { exit bad }' t.folded
kns=$("$ZT" script -i c.data --gpu --ns 2> /dev/null | grep 'cuda:kernel:' |
	sed 's/.* dur=\([0-9]*\)\.\([0-9]*\)us.*/\1\2/' | awk '{ s += $1 } END { print s + 0 }')
check "time: the kernels' GPU time, all of it ($(sum t.folded) ns of $kns)" [ "$(sum t.folded)" = "$kns" ]
# continuous samples shared by time: each (launch stack, kernel) gets the
# kernel's samples times its share of the kernel's time, give or take one
# per stall/line row (each row is rounded on its own)
python3 - c.folded t.folded > share.txt <<'PY'
import collections, re, sys
def load(p):
    out = []
    for line in open(p):
        st, n = line.rsplit(' ', 1)
        fr = st.split(';')
        k = next(i for i, f in enumerate(fr) if f.endswith('_[g]'))
        out.append((';'.join(fr[:k]), fr[k], ';'.join(fr[k + 1:]), int(n)))
    return out
smp, tim = load(sys.argv[1]), load(sys.argv[2])
ks = collections.Counter(); kp = collections.Counter(); rows = collections.defaultdict(set)
for p, k, s, n in smp:
    ks[k] += n; kp[(p, k)] += n; rows[k].add(s)
kt = collections.Counter(); pt = collections.Counter()
for p, k, s, n in tim:
    kt[k] += n; pt[(p, k)] += n
bad = 0
for (p, k), t in pt.items():
    want = ks[k] * t / kt[k]
    got = kp[(p, k)]
    ok = abs(got - want) <= len(rows[k])
    bad += not ok
    print('%s %s: %d samples, time share %.1f%s' % (k, 'no-stack' if 'no launch' in p else 'stack', got, want, '' if ok else ' BAD'))
print('pairs', len(pt))
sys.exit(1 if bad else 0)
PY
st=$?
sed 's/^/    /' share.txt
check "samples shared among launch stacks by kernel time" [ $st -eq 0 ]
check "... saxpy's samples all under its launch stack" bash -c "grep -q '^saxpy_\\[g\\] stack:' share.txt && ! grep -q '^saxpy_\\[g\\] no-stack:' share.txt"

# ---- serialized PC sampling: each sample to its own launch
gpu_record s.data 10 -g --gpu-pcs serialized
"$ZT" script -i s.data --gpu > s.txt 2> /dev/null
spcs=$(grep 'cuda:pcsample:' s.txt | grep -v 'stall=[^ ]*_not_issued ' | sed 's/.* samples=\([0-9]*\) .*/\1/' | awk '{ s += $1 } END { print s + 0 }')
"$ZT" script -i s.data --folded --gpu > s.folded 2> s.err
check "serialized: all $spcs PC samples ($(sum s.folded))" [ "$(sum s.folded)" = "$spcs" -a "$spcs" -gt 0 ]
check "serialized: saxpy under launch_saxpy" contains s.folded ';launch_saxpy;cuLaunchKernel;saxpy_\[g\];'

# ---- zt script: resolved frames under each PC sample
check "a pcsample line is followed by its frames: shade, then hot_loop" \
	perl -0777 -ne 'exit !m{cuda:pcsample: [^\n]*function=hot_loop\n\t +[0-9a-f]+ [^\n]*shade[^\n]* \([^)]*\)\n\t +[0-9a-f]+ hot_loop \([^)]*\)\n\n}' c.txt
check "the fields of the pcsample lines are kept (function= last)" \
	awk '/cuda:pcsample:/ && !/ cubin=0x[0-9a-f]+ pc=0x[0-9a-f]+ stall=[^ ]+ samples=[0-9]+ function=[^ ]+$/ { bad = 1 } END { exit bad }' c.txt
# source lines: once the cubin decoder reads line tables (nvcc -lineinfo),
# each stack has its PC's line; shade's samples lie on its own lines (6-11)
if grep -qE $'^\t +[0-9a-f]+ .* \\(kernels\\.cu:[0-9]+\\)' c.txt; then
	check "source lines in the stacks (_[gl])" contains c.folded ';kernels\.cu:[0-9]+_\[gl\];[a-z_]+_\[gs\] [0-9]+$'
	check "shade's samples on shade's lines" \
		awk '/shade[^;]*_\[gd\];kernels\.cu:/ { n++; split($0, a, "kernels.cu:"); l = a[2] + 0; if (l < 6 || l > 11) bad = 1 } END { exit bad || !n }' c.folded
else
	echo "  (no source lines from the cubin yet: the _[gl] level is not checked)"
fi
"$ZT" script -i c.data --gpu -G > G.txt 2> /dev/null
check "-G: no frames, no empty lines" bash -c "! grep -q \$'^\t\\|^\$' G.txt"

# ---- zt flame --gpu
"$ZT" flame --gpu -i c.data -o g.svg 2> flame.err
check "flame --gpu exits 0" [ $? -eq 0 ]
check "the SVG is well-formed" wellformed g.svg
check "title GPU Flame Graph" grep -q '<text id="title"[^>]*>GPU Flame Graph</text>' g.svg
frames g.svg > g.frames
check "the root holds every PC sample" grep -q "^0|[0-9.]*|$pcs|.*|all|" g.frames
check "process frame cuda_app" grep -q '^1|.*|cuda_app|process$' g.frames
check "kernels are GPU kernel frames" \
	bash -c "grep -q '|saxpy|gpu kernel\$' g.frames && grep -q '|hot_loop|gpu kernel\$' g.frames && grep -q '|scale|gpu kernel\$' g.frames"
check "shade is a GPU device-function frame" grep -q 'shade[^|]*|gpu function$' g.frames
check "stall reasons are GPU stall frames" grep -q '|long_scoreboard|gpu stall$' g.frames
check "CPU frames are user frames" grep -q '|launch_saxpy|user$' g.frames
# colors: kernels blue, stall reasons rose, CPU frames red to yellow
check "GPU kernel frames are blue" \
	awk -F'|' '$6 == "gpu kernel" { split($4, c, /[(,)]/); n++; if (!(c[4] > 200 && c[2] < 100)) bad = 1 } END { exit bad || !n }' g.frames
check "GPU stall frames are rose" \
	awk -F'|' '$6 == "gpu stall" { split($4, c, /[(,)]/); n++; if (!(c[2] > 230 && c[3] < 200 && c[4] < 210)) bad = 1 } END { exit bad || !n }' g.frames
check "CPU frames keep their colors (no blue)" \
	awk -F'|' '$6 == "user" { split($4, c, /[(,)]/); n++; if (c[4] > 60) bad = 1 } END { exit bad || !n }' g.frames
sx=$(awk -F'|' '$5 == "saxpy" { s += $3 } END { print s + 0 }' g.frames)
check "saxpy's frames weigh its samples ($sx)" [ "$sx" = "$(grep ';saxpy_\[g\];' c.folded | sum)" ]
# the same graph from the folded text
"$ZT" flame --folded -i c.folded -o f.svg 2> /dev/null && frames f.svg > f.frames
check "--folded of script --folded --gpu: the same frames and kinds (but the process)" \
	cmp -s <(cut -d'|' -f1,3,5,6 g.frames | grep -v '|process$' | sort) <(cut -d'|' -f1,3,5,6 f.frames | grep -v '^1|.*|cuda_app|' | sort)
"$ZT" flame --gpu --gpu-weight time -i c.data -o t.svg 2> /dev/null && frames t.svg > t.frames
check "time graph: the root is the kernels' time" grep -q "^0|[0-9.]*|$kns|.*|all|" t.frames
check "time graph: tooltips in ns" grep -q '<title>saxpy$' t.svg && grep -q '^ns: [0-9]* (' t.svg
check "time graph: kernels are the leaves" bash -c "! grep -q 'gpu stall\$' t.frames"

# errors and warnings
"$ZT" flame --gpu --gpu-weight bytes -i c.data -o x.svg 2> e1; check "--gpu-weight bytes -> 129" [ $? -eq 129 ]
check "... saying so" grep -q "zt flame: --gpu-weight: 'bytes' is neither" e1
"$ZT" flame --gpu-weight time -i c.data -o x.svg 2> e2; check "--gpu-weight without --gpu -> 129" [ $? -eq 129 ]
"$ZT" flame --gpu --diff c.data c.data -o x.svg 2> e3; check "--gpu --diff -> 129" [ $? -eq 129 ]
"$ZT" script -i c.data --gpu-weight time > /dev/null 2> e4; check "script --gpu-weight alone -> 129" [ $? -eq 129 ]
"$ZT" record -q -o cpu.data -- true > /dev/null 2>&1
"$ZT" flame --gpu -i cpu.data -o n.svg 2> n.err
check "a recording without GPU records: a warning" grep -q "zt flame: warning: 'cpu.data' has no GPU records" n.err
"$ZT" flame --gpu --comm x -i c.data -o x.svg 2> e5
check "--comm with --gpu: the records x launched (none)" grep -q 'no samples to draw' e5
"$ZT" flame --gpu -C 0 -i c.data -o x.svg 2> e6
check "-C with --gpu: said to be ignored" grep -q 'not to --gpu: ignored' e6

# ---- in a real browser: click a kernel, search a kernel, a screenshot
"$here/flame/browser.sh" g.svg "$T/gpu-flame.png" saxpy '^scale$' > browser.json 2> browser.err
rc=$?
if [ $rc -eq 2 ]; then
	fail "browser test not run: $(cat browser.err)"
elif [ $rc -ne 0 ]; then
	fail "browser test: $(head -c 1500 browser.err)"
else
	j() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' browser.json "$1"; }
	check "browser: the GPU frames render ($(j frames) frames)" [ "$(j frames)" = "$(wc -l < g.frames)" ]
	check "browser: a click on saxpy fills the width ($(j before) -> $(j after))" [ "$(j after)" = 1180 ]
	check "browser: frames outside hidden, callers faded" bash -c "[ $(j hidden) -gt 0 ] && [ $(j parents) -gt 0 ]"
	check "browser: reset restores the width" [ "$(j reset)" = "$(j before)" -a "$(j hiddenAfterReset)" = 0 ]
	nsc=$(awk -F'|' '$5 == "scale"' g.frames | wc -l)
	ssc=$(awk -F'|' '$5 == "scale" { s += $3 } END { print s }' g.frames)
	want=$(python3 -c "print('%.2f' % (100.0 * $ssc / $pcs))")
	check "browser: search finds the kernel scale ($(j matches) of $nsc frames, $(j magenta) magenta)" \
		[ "$(j matches)" = "$nsc" -a "$(j magenta)" = "$nsc" -a "$nsc" -gt 0 ]
	check "browser: matched share $(j matched)% (scale's samples: $want%)" \
		python3 -c "import sys; sys.exit(abs($(j matched) - $want) > 0.005)"
	check "browser: screenshot taken" [ -s "$T/gpu-flame.png" ]
	mkdir -p "${ZT_E2E_ARTIFACTS:-/tmp/zt-e2e-artifacts}" &&
		cp "$T/gpu-flame.png" "$T/gpu-flame-zoomed.png" "${ZT_E2E_ARTIFACTS:-/tmp/zt-e2e-artifacts}/" 2>/dev/null &&
		echo "  screenshots: ${ZT_E2E_ARTIFACTS:-/tmp/zt-e2e-artifacts}/gpu-flame.png, gpu-flame-zoomed.png"
fi
finish
