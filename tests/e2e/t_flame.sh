#!/usr/bin/env bash
# zt flame: a well-formed SVG whose frames are as wide as their samples,
# with tooltips (function, module, kind, samples, percent), from zt.data,
# perf.data and folded stacks; --inverted, --reverse, --title, --width,
# --minwidth, --colors, filters, --diff, several events (--event); and in
# headless Chromium a click zooms, Reset Zoom restores, Search highlights and
# shows the matched share.
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
cd "$T"

# The frames of an SVG as lines "depth|x|y|width|samples|pct|fill|name|module|kind",
# checking on the way that each frame's width is its share of the root's
# and that children fit in their parent. Prints "BAD ..." on a violation.
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
    m = re.match(r'(\d+) \(([\d.]+)%\)', info.get('samples', ''))
    if not m:
        print('BAD title', t); continue
    fr.append(dict(name=t[0], module=info.get('module', ''), kind=info.get('kind', ''),
                   n=int(m.group(1)), pct=float(m.group(2)), x=float(r.get('x')),
                   y=float(r.get('y')), w=float(r.get('width')), fill=r.get('fill')))
if not fr:
    print('BAD no frames'); sys.exit()
top = fr[0]
ys = sorted(set(f['y'] for f in fr))
inverted = top['y'] == ys[0]
for f in fr:
    f['d'] = ys.index(f['y']) if inverted else len(ys) - 1 - ys.index(f['y'])
    want = f['n'] / top['n'] * top['w']
    if abs(f['w'] - want) > 0.02:
        print('BAD width', f['name'], f['w'], want)
    if abs(f['pct'] - 100.0 * f['n'] / top['n']) > 0.006:
        print('BAD percent', f['name'], f['pct'])
for f in fr:  # the frames one level down inside each frame weigh at most it
    kids = [k for k in fr if k['d'] == f['d'] + 1 and k['x'] >= f['x'] - 0.01 and k['x'] + k['w'] <= f['x'] + f['w'] + 0.02]
    if sum(k['n'] for k in kids) > f['n']:
        print('BAD children of', f['name'])
for f in fr:
    print('|'.join(str(v) for v in (f['d'], f['x'], f['y'], f['w'], f['n'], f['pct'], f['fill'], f['name'], f['module'], f['kind'])))
PY
}
# samples of the frames named $2 at depth $3 (all depths if empty), summed
sum_of() { awk -F'|' -v n="$2" -v d="${3:-}" '$8 == n && (d == "" || $1 == d) { s += $5 } END { print s + 0 }' "$1"; }
count_of() { awk -F'|' -v n="$2" '$8 == n { c++ } END { print c + 0 }' "$1"; }

"$ZT" record -q -g -o tree.data -- "$WL/tree" 1 > rec.out 2> rec.err
check "record the tree workload" [ -s tree.data ]
"$ZT" flame -i tree.data -o tree.svg 2> flame.err; check "zt flame exits 0" [ $? -eq 0 ]
check "the SVG is well-formed XML" wellformed tree.svg
check "the SVG is standalone (no external references)" bash -c "! grep -qE '(href|src)=' tree.svg"
frames tree.svg > tree.frames
check "widths proportional to samples, children within parents" bash -c "! grep -q '^BAD' tree.frames"
total=$(awk -F'|' '$8 == "all" { print $5 }' tree.frames)
check "root 'all' has the samples ($total)" [ "${total:-0}" -gt 1000 ]
check "both threads at depth 1" [ "$(awk -F'|' '$1 == 1 && ($8 == "tree" || $8 == "tree-worker")' tree.frames | wc -l)" -eq 2 ]
check "thread frames are of kind process" grep -q '^1|.*|tree-worker||process$' tree.frames
check "tree_a, tree_b, tree_c in each thread" \
	[ "$(count_of tree.frames tree_a)" -ge 2 -a "$(count_of tree.frames tree_b)" -ge 2 -a "$(count_of tree.frames tree_c)" -ge 2 ]
x=$(sum_of tree.frames leaf_x); y=$(sum_of tree.frames leaf_y); inl=$(sum_of tree.frames inl_mix)
check "leaf_x about 1/2 of the samples ($x of $total)" between $((x * 100 / total)) 35 65
check "leaf_y about 1/6 ($y of $total)" between $((y * 100 / total)) 8 25
check "inl_mix (inlined) about 1/3 ($inl of $total)" between $((inl * 100 / total)) 20 45
check "inl_mix is of kind inlined" grep -q '|inl_mix|tree|inlined$' tree.frames
check "leaf_x's tooltip: module tree, kind user" grep -q '|leaf_x|tree|user$' tree.frames
check "tooltips: function, module, source line, kind, samples and percent" \
	perl -0777 -ne 'exit !m{<title>leaf_x\nmodule: tree\nsource: tree\.c:3\d\nkind: user\nsamples: \d+ \([\d.]+%\)</title>}' tree.svg
check "title Flame Graph" grep -q '<text id="title"[^>]*>Flame Graph</text>' tree.svg
check "the script is embedded" grep -q 'function zoom' tree.svg

# folded stacks on stdin: zt script --folded gives the same graph's frames
"$ZT" script --folded -i tree.data > tree.folded
"$ZT" flame --folded -o folded.svg < tree.folded; check "--folded from stdin exits 0" [ $? -eq 0 ]
check "--folded SVG well-formed" wellformed folded.svg
frames folded.svg > folded.frames
check "--folded: widths proportional" bash -c "! grep -q '^BAD' folded.frames"
check "--folded: same total" [ "$(sum_of folded.frames all)" = "$total" ]
check "--folded: same leaf_x samples" [ "$(sum_of folded.frames leaf_x)" = "$x" ]
"$ZT" flame --folded -i tree.folded -o - > stdout.svg 2> stdout.err
check "-o -: exit 0, no message" bash -c "[ $? -eq 0 ] && [ ! -s stdout.err ]"
check "--folded -i FILE -o - writes stdout" wellformed stdout.svg
printf 'p;k_[k] 2\np;j_[j] 3\np;[libfoo.so] 1\nnot a stack\n' | "$ZT" flame --folded -o kinds.svg 2> kinds.err
check "bad folded lines are skipped with a warning" grep -q "1 lines are not folded stacks" kinds.err
frames kinds.svg > kinds.frames
check "folded annotations give kinds (kernel, jit, unresolved)" \
	bash -c "grep -q '|k||kernel\$' kinds.frames && grep -q '|j||jit\$' kinds.frames && grep -q '|\[libfoo.so\]||unresolved\$' kinds.frames"
kfill=$(awk -F'|' '$8 == "k" { print $7 }' kinds.frames); jfill=$(awk -F'|' '$8 == "j" { print $7 }' kinds.frames)
check "kernel and JIT frames colored apart ($kfill, $jfill)" [ "$kfill" != "$jfill" ]

# the same function gets the same color in two graphs
c1=$(awk -F'|' '$8 == "leaf_y" { print $7; exit }' tree.frames)
c2=$(awk -F'|' '$8 == "leaf_y" { print $7; exit }' folded.frames)
check "stable color per function ($c1)" [ -n "$c1" -a "$c1" = "$c2" ]

# options
"$ZT" flame -i tree.data --inverted -o inv.svg && frames inv.svg > inv.frames
check "--inverted: root at the top" bash -c "awk -F'|' '\$8 == \"all\" { print \$3 }' inv.frames | grep -qx '36.0'"
check "--inverted: widths proportional" bash -c "! grep -q '^BAD' inv.frames"
check "--inverted: title Icicle Graph" grep -q '>Icicle Graph</text>' inv.svg
"$ZT" flame -i tree.data --reverse -o rev.svg && frames rev.svg > rev.frames
check "--reverse: leaf_x has the same samples" [ "$(sum_of rev.frames leaf_x)" = "$x" ]
# a few samples may have a kernel frame (an interrupt) under leaf_x
check "--reverse: leaf_x mostly right above the root" between $(($(sum_of rev.frames leaf_x 1) * 100 / x)) 90 100
check "--reverse: thread names are the outermost frames" bash -c "! grep -q '^1|.*|tree-worker|' rev.frames"
"$ZT" flame -i tree.data --title 'My <graph>' --width 800 --minwidth 50 --colors blue -o opt.svg
check "--title (escaped)" grep -q '>My &lt;graph&gt;</text>' opt.svg
check "--width 800" grep -q '<svg [^>]*width="800"' opt.svg
frames opt.svg > opt.frames
check "--minwidth 50: no frame narrower" bash -c "awk -F'|' '\$4 < 50 { bad = 1 } END { exit bad }' opt.frames"
check "--minwidth 50: fewer frames" [ "$(wc -l < opt.frames)" -lt "$(wc -l < tree.frames)" ]
check "--colors blue: blue fills" bash -c "awk -F'|' '\$8 != \"all\" { split(\$7, c, /[(,)]/); if (!(c[4] > c[2])) bad = 1 } END { exit bad }' opt.frames"

# filters as zt report's
"$ZT" flame -i tree.data --comm tree-worker -o comm.svg && frames comm.svg > comm.frames
wk=$(sum_of tree.frames tree-worker 1)
check "--comm: only that thread, its samples ($wk)" \
	bash -c "[ \$(awk -F'|' '\$8 == \"all\" { print \$5 }' comm.frames) = $wk ] && ! grep -q '|tree||process' comm.frames"
pid=$("$ZT" script -i tree.data -F pid 2>/dev/null | awk 'NR == 1 { print $1 }')
"$ZT" flame -i tree.data --pid 1 -o nopid.svg 2> nopid.err
check "--pid of no sample: an empty graph with a warning" grep -q "no samples" nopid.err
"$ZT" flame -i tree.data --pid "$pid" -o pid.svg && frames pid.svg > pid.frames
check "--pid $pid: every sample" [ "$(sum_of pid.frames all)" = "$total" ]

# perf.data written by zt convert
if "$ZT" convert -i tree.data --to perf -o tree.perf > /dev/null 2>&1; then
	"$ZT" flame -i tree.perf -o perf.svg && frames perf.svg > perf.frames
	check "perf.data input: same total" [ "$(sum_of perf.frames all)" = "$total" ]
fi

# --diff: red grew, blue shrank, widths of NEW
printf 'm;grew 80\nm;same 20\n' > new.folded; printf 'm;grew 50\nm;same 50\n' > old.folded
"$ZT" flame --diff old.folded new.folded -o diff.svg; check "--diff exits 0" [ $? -eq 0 ]
check "--diff well-formed" wellformed diff.svg
frames diff.svg > diff.frames
check "--diff: widths of NEW" [ "$(sum_of diff.frames grew)" = 80 ]
check "--diff: grew is red" grep -q '|rgb(255,[0-9]*,[0-9]*)|grew|' diff.frames
check "--diff: shrank is blue" grep -q '|rgb([0-9]*,[0-9]*,255)|same|' diff.frames
check "--diff: tooltip has before and change" grep -q 'before: 50 (50.00%), change: +30.00%' diff.svg
"$ZT" flame --diff tree.data tree.data -o selfdiff.svg; check "--diff of two recordings exits 0" [ $? -eq 0 ]
check "--diff of a recording with itself: all white" \
	bash -c "! grep -o 'fill=\"rgb([0-9,]*)\"' selfdiff.svg | grep -v 'rgb(255,255,255)\|rgb(200,200,200)' | grep -q ."

# kinds from a recording: kernel frames of a syscall-heavy command, a JIT frame
"$ZT" record -q -g -o k.data -- dd if=/dev/zero of=/dev/null bs=4k count=200000 > /dev/null 2>&1
"$ZT" flame -i k.data -o k.svg 2> k.err && frames k.svg > k.frames
check "kernel frames are of kind kernel" grep -q '|\[kernel.kallsyms\]|kernel$' k.frames
check "kernel frames in orange (no blue)" \
	bash -c "awk -F'|' '\$10 == \"kernel\" { split(\$7, c, /[(,)]/); if (!(c[2] >= 230 && c[4] <= 30)) bad = 1; n++ } END { exit bad || !n }' k.frames"
"$ZT" record -q -g -o j.data -- "$WL/jit" 1 > /dev/null 2>&1
"$ZT" flame -i j.data -o j.svg && frames j.svg > j.frames
check "the JIT frame is of kind jit" grep -q '|zt_jit_spin|\[JIT\] tid [0-9]*|jit$' j.frames

# several events: the first one's graph by default, with a note; -e/--event another
"$ZT" record -q -g -e cpu-clock,page-faults -o ev.data -- "$WL/tree" 0.3 > /dev/null 2> ev.rec.err
nr_ev() { "$ZT" script -i ev.data --event "$1" -F comm,tid | wc -l; }
"$ZT" flame -i ev.data -o ev1.svg 2> ev1.err && frames ev1.svg > ev1.frames
check "several events: a note names them and --event" grep -qxF \
	"zt flame: note: 'ev.data' has 2 events (cpu-clock, page-faults): showing cpu-clock; choose one with --event NAME" ev1.err
check "several events: cpu-clock's samples, its name under the title" \
	bash -c "[ $(sum_of ev1.frames all) = $(nr_ev cpu-clock) ] && grep -q '>Event: cpu-clock<' ev1.svg"
"$ZT" flame -q -e page-faults -i ev.data -o ev2.svg 2> ev2.err && frames ev2.svg > ev2.frames
check "-e page-faults: its samples only, named under the title" \
	bash -c "[ $(sum_of ev2.frames all) = $(nr_ev page-faults) ] && grep -q '>Event: page-faults<' ev2.svg"
check "-q: no note" bash -c "[ ! -s ev2.err ]"

# errors
"$ZT" flame -i tree.data --colors nope -o x.svg 2> e1; check "unknown palette -> 129" [ $? -eq 129 ]
check "unknown palette: message lists them" grep -q "zt flame: --colors: unknown palette 'nope'" e1
"$ZT" flame --diff old.folded -o x.svg 2> e2; check "--diff with one input -> 129" [ $? -eq 129 ]
"$ZT" flame -i missing.data -o x.svg 2> e3; check "missing input -> 1" [ $? -eq 1 ]
check "missing input: message" grep -q "zt flame: .*missing.data" e3
"$ZT" flame -i tree.data -o /nonexistent/x.svg 2> e4; check "unwritable output -> 1" [ $? -eq 1 ]
"$ZT" flame -i tree.data --width 5 -o x.svg 2> /dev/null; check "--width 5 -> 129" [ $? -eq 129 ]

# in a real browser: click zooms, Reset Zoom restores, Search counts matches
"$here/flame/browser.sh" tree.svg "$T/flame.png" tree_a 'leaf_' > browser.json 2> browser.err
rc=$?
if [ $rc -eq 2 ]; then
	fail "browser test not run: $(cat browser.err)"
elif [ $rc -ne 0 ]; then
	fail "browser test: $(head -c 1500 browser.err)"
else
	j() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' browser.json "$1"; }
	check "browser: clicked frame fills the width ($(j before) -> $(j after))" [ "$(j after)" = 1180 ]
	check "browser: frames outside hidden, callers faded" bash -c "[ $(j hidden) -gt 0 ] && [ $(j parents) -gt 0 ]"
	check "browser: Reset Zoom shown while zoomed" [ "$(j resetShown)" = True ]
	check "browser: reset restores the width" [ "$(j reset)" = "$(j before)" -a "$(j hiddenAfterReset)" = 0 ]
	leaves=$(awk -F'|' '$8 ~ /^leaf_/ { c++ } END { print c }' tree.frames)
	lsum=$(awk -F'|' '$8 ~ /^leaf_/ { s += $5 } END { print s }' tree.frames)
	want=$(python3 -c "print('%.2f' % (100.0 * $lsum / $total))")
	check "browser: search 'leaf_' via the prompt matches $leaves frames ($(j matches), $(j magenta) magenta)" \
		[ "$(j matches)" = "$leaves" -a "$(j magenta)" = "$leaves" ]
	# the share of the samples under matching frames (nested ones once)
	check "browser: matched share $(j matched)% (samples: $want%)" \
		python3 -c "import sys; sys.exit(abs($(j matched) - $want) > 0.005)"
	got=$(python3 -c "print('%.2f' % $(j matched))")
	check "browser: matched text shown" [ "$(j matchedText)" = "Matched: $got% ($leaves frames)" ]
	check "browser: screenshot taken" [ -s "$T/flame.png" ]
	mkdir -p "${ZT_E2E_ARTIFACTS:-/tmp/zt-e2e-artifacts}" &&
		cp "$T/flame.png" "$T/flame-zoomed.png" "${ZT_E2E_ARTIFACTS:-/tmp/zt-e2e-artifacts}/" 2>/dev/null &&
		echo "  screenshots: ${ZT_E2E_ARTIFACTS:-/tmp/zt-e2e-artifacts}/flame.png, flame-zoomed.png"
fi
finish
