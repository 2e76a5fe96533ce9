#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Python frames (zt-record(1) PYTHON FRAMES): zt record -g reads CPython's
# frames from the interpreter's memory and splices them into the native
# stacks. tests/workloads/pyshares.py spends 50/30/20% of its time in
# py_half, py_third and py_fifth (the last through hashlib, a C extension,
# called back from the builtin map()), under Debian's python3.11 on every
# run, and under pyenv's 3.11-3.13 where this machine has them: the shares,
# the chains from main through the Python frames into the extension, the
# interpreter's glue folded (and kept with --python-glue), every output
# (report by sym, dso and srcline, script, folded, flame, pprof), -p of a
# Python started before zt, threads, a fork, a subprocess, a virtualenv,
# the debug build python3.11d, 3.10's warning, --no-python; and, against
# CPython 3.12's own perf trampolines (-X perf), zt's names sample by sample.
W=$(cd "$(dirname "$0")/../workloads" && pwd)/pyshares.py
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/servelib.sh"
cd "$T"
PY=/usr/bin/python3.11

if [ ! -x "$PY" ]; then
	skip "no $PY (Debian's python3.11): Python frames not tested"
	finish
fi

# children share (integer percent) of Python function $2 in report file $1
# (the first row of that name)
cshare() { awk -v s="$2" '!/^#/ && $NF == s { gsub("%", "", $1); print int($1 + 0.5); exit }' "$1"; }
# total of folded file $1's counts matching regex $2
fcount() { awk -v re="$2" '$0 ~ re { t += $NF } END { print t + 0 }' "$1"; }
meta() { "$ZT" report -i "$1" --header-only 2> /dev/null | sed -n 's/^# python : //p' | tr ',' '\n' | sed -n "s/^$2=//p"; }
rec() { # rec NAME ARGS... -- CMD
	local n=$1
	shift
	"$ZT" record -q -F 999 -o "$n.data" "$@" > "$n.out" 2> "$n.err"
	"$ZT" script --folded -i "$n.data" > "$n.folded" 2> "$n.serr"
	"$ZT" report -i "$n.data" --stdio --children --sort sym -g none > "$n.rep" 2> "$n.rerr"
}
# shares NAME: py_half, py_third and py_fifth's children shares, as shares of
# their sum (the program's own time: its start is not in the 50/30/20)
shares_ok() {
	local h t f s
	h=$(cshare "$1.rep" py_half) t=$(cshare "$1.rep" py_third) f=$(cshare "$1.rep" py_fifth)
	[ -n "$h" ] && [ -n "$t" ] && [ -n "$f" ] || { echo "    $1: no py_* rows"; return 1; }
	s=$((h + t + f))
	echo "    $1: py_half $h%, py_third $t%, py_fifth $f% of all; of their sum $((100 * h / s))/$((100 * t / s))/$((100 * f / s))"
	between $((100 * h / s)) 47 53 && between $((100 * t / s)) 27 33 && between $((100 * f / s)) 17 23
}
# the chain from the interpreter's entry through main into each function
CHAIN='(^|;)Py_RunMain;([^;]*;)*<module>;main;rounds;'

# ---- Debian's python3.11 (a static interpreter) ---------------------------
rec deb -g -- "$PY" "$W" 3
check "python3.11: the header counts the Python frames read (frames > 1000, 1 process)" \
	all '[ "$(meta deb.data frames)" -gt 1000 ]' '[ "$(meta deb.data procs)" -eq 1 ]'
check "python3.11: children shares py_half/py_third/py_fifth 50/30/20 within 3 points" shares_ok deb
n=$(fcount deb.folded ';py_(half|third|fifth)( |;)')
check "python3.11: >= 95% of the py_* samples go from _start through main, <module>, main, rounds ($n)" \
	[ "$n" -gt 1000 ] && [ $((100 * $(fcount deb.folded "^python3.11;_start;([^;]*;)*Py_RunMain;([^;]*;)*main;([^;]*;)*<module>;main;rounds;py_"))) -ge $((95 * n)) ]
check "python3.11: hashlib's native frames stand above py_fifth (SHA256 under _hashlib)" \
	[ "$(fcount deb.folded 'rounds;py_fifth;([^;]*;)*_hashlib[^;]*;([^;]*;)*SHA256_Update')" -gt 20 ]
check "python3.11: the glue is folded: no eval loop or vectorcall between rounds and py_fifth (called from map())" \
	all '[ "$(fcount deb.folded "rounds;py_fifth")" -gt 20 ]' \
	    '[ "$(fcount deb.folded "rounds;[^;]*(_PyEval|[Vv]ectorcall|map_next)[^;]*;([^;]*;)*py_fifth")" -eq 0 ]' \
	    '[ "$(fcount deb.folded "_PyEval_EvalFrameDefault;([^;]*;)*py_")" -eq 0 ]'
"$ZT" script --folded --python-glue -i deb.data > glue.folded 2> glue.err
check "--python-glue: the interpreter's frames between rounds and py_fifth are shown (map, the eval loop)" \
	[ "$(fcount glue.folded "rounds;([^;]*;)*_PyEval_EvalFrameDefault;py_fifth")" -gt 20 ]
"$ZT" report -i deb.data --stdio --no-children --sort dso,sym -g none > dso.rep 2> dso.err
check "report --sort dso,sym: the .py file is the Python functions' dso" \
	grep -qE '\] py_half$' <(grep -F 'pyshares.py' dso.rep)
"$ZT" report -i deb.data --stdio --no-children --sort srcline -g none > src.rep 2> src.err
hl=$(grep -nE '^\s+for i in range\(2000\):' "$W" | cut -d: -f1)
check "report --sort srcline: py_half's loop lines (pyshares.py:$hl-$((hl + 1))) are rows" \
	grep -qE "pyshares\.py:($hl|$((hl + 1)))$" src.rep
"$ZT" script -i deb.data > deb.script 2> deb.scerr
check "script: a Python frame is its function and its .py file" \
	grep -qE "^\s+7[0-9a-f]{15} py_half\+0x[0-9a-f]+ \($W\)$" deb.script
"$ZT" flame -i deb.data -o deb.svg > /dev/null 2> flame.err
check "flame: py_half in the SVG" all 'wellformed deb.svg' 'grep -q "py_half" deb.svg'
"$ZT" convert -i deb.data --to pprof -o deb.pb.gz > /dev/null 2> conv.err
check "pprof: py_half among its function names" grep -qa 'py_half' <(gzip -dc deb.pb.gz)
lines=$("$ZT" report -i deb.data --stdio 2> /dev/null | grep -c "^# Python frames: [1-9][0-9]* from 1 process;")
check "report: the header says what Python frames were read" [ "$lines" -eq 1 ]

# ---- a short program: its code objects read before it ends -----------------
printf 'def burn():\n    x = 0\n    for i in range(300000):\n        x += i * i\n    return x\ndef outer():\n    return burn()\nouter()\n' > short.py
rec short -g -- "$PY" short.py
check "a 20 ms program that has ended: outer;burn named in the report" \
	[ "$(fcount short.folded "<module>;outer;burn")" -gt 2 ]

# ---- zt push and the server's views ----------------------------------------
PUSH=$("$ZT" serve token create --scope push --data-dir "$T/srv" 2> tok.err)
READ=$("$ZT" serve token create --scope read --data-dir "$T/srv" 2>> tok.err)
if serve_start "$T/srv"; then
	ZT_TOKEN=$PUSH "$ZT" push -i deb.data --server "$SERVE_URL" --label test=py > push.out 2> push.err
	id=$(sed -n 's/^zt push: stored \([0-9a-f]*\) .*/\1/p' push.out)
	TOKEN=$READ api GET "/api/v1/folded?id=$id" > srv.folded
	check "zt serve: a pushed recording's stacks have main;rounds;py_fifth over hashlib" \
		all '[ -n "$id" ]' '[ "$(fcount srv.folded "main;rounds;py_fifth;([^;]*;)*SHA256_Update")" -gt 20 ]'
	TOKEN=$READ api GET "/api/v1/top?id=$id&limit=50" > srv.top
	check "zt serve: the top view names py_half" grep -q '"py_half"' srv.top
	serve_stop
else
	fail "zt serve starts"
fi

# ---- --no-python ---------------------------------------------------------
rec nopy -g --no-python -- "$PY" "$W" 1
check "--no-python: no Python frames, the eval loop as perf shows it" \
	all '[ "$(fcount nopy.folded ";py_half")" -eq 0 ]' '[ "$(fcount nopy.folded "_PyEval_EvalFrameDefault")" -gt 100 ]'

# ---- a Python started before zt: -p ---------------------------------------
mkfifo in
"$PY" "$W" 2 wait < in > started.out 2>&1 &
pypid=$!
bgpids+=("$pypid")
exec 3> in
for _ in $(seq 100); do grep -q ready started.out && break; sleep 0.05; done
"$ZT" record -q -g -F 999 -p "$pypid" -o pid.data > pid.out 2> pid.err &
zpid=$!
sleep 1
echo go >&3
exec 3>&-
wait "$pypid"
wait "$zpid"
"$ZT" script --folded -i pid.data > pid.folded 2> pid.serr
check "-p of a python3.11 started before zt: main;rounds;py_half, from _start" \
	[ "$(fcount pid.folded "^python3.11;_start;([^;]*;)*main;rounds;py_half")" -gt 200 ]

# ---- system-wide ----------------------------------------------------------
rec sysw -a -g -- "$PY" "$W" 2
check "-a: the python3.11 among all processes has main;rounds;py_half" \
	[ "$(fcount sysw.folded "^python3.11;_start;([^;]*;)*<module>;main;rounds;py_half")" -gt 200 ]

# ---- threads, fork, subprocess, virtualenv, debug build -------------------
rec thr -g -- "$PY" "$W" 2 threads
check "threads: the second thread's stacks go from clone3 through Thread._bootstrap to py_half" \
	[ "$(fcount thr.folded ';clone3;start_thread;([^;]*;)*Thread._bootstrap;([^;]*;)*Thread.run;rounds;py_half')" -gt 100 ]
rec frk -g -- "$PY" "$W" 2 fork
"$ZT" report -i frk.data --stdio --children --sort pid,sym -g none > frk.rep 2> frk.rerr
check "fork: both processes' samples have py_half" \
	[ "$(awk '!/^#/ && $NF == "py_half" { n++ } END { print n + 0 }' frk.rep)" -eq 2 ]
rec sub -g -- "$PY" -c 'import subprocess, sys; subprocess.run([sys.executable, sys.argv[1], "2"])' "$W"
check "subprocess: the child python's rounds;py_half, through the parent's subprocess.run" \
	[ "$(fcount sub.folded "main;([^;]*;)*<module>;main;rounds;py_half")" -gt 200 ]
if "$PY" -m venv --without-pip venv > venv.out 2>&1 && [ -x venv/bin/python ]; then
	rec venv -g -- venv/bin/python "$W" 2
	check "virtualenv: its python (a link to python3.11) has Python frames" \
		[ "$(fcount venv.folded "rounds;py_half")" -gt 200 ]
else
	skip "no virtualenv here ($PY -m venv: $(tail -n 1 venv.out))"
fi
if [ -x /usr/bin/python3.11d ]; then
	rec dbg -g -- /usr/bin/python3.11d "$W" 2
	check "python3.11d (python3.11-dbg's debug build): Python frames" \
		[ "$(fcount dbg.folded "rounds;py_half")" -gt 100 ]
else
	skip "no python3.11d (python3.11-dbg)"
fi

# ---- pyenv's CPythons, in libpython3.X.so, where this machine has them ----
for v in 3.11 3.12 3.13; do
	p=$(ls -d /root/.pyenv/versions/$v.*/bin/python$v 2> /dev/null | head -n 1)
	if [ -z "$p" ]; then
		skip "no pyenv CPython $v here"
		continue
	fi
	rec "py$v" -g -- "$p" "$W" 3
	check "CPython $v ($p): shares 50/30/20 within 3 points" shares_ok "py$v"
	check "CPython $v: chain from the interpreter's main into py_fifth's hashlib frames" \
		[ "$(fcount "py$v.folded" "${CHAIN}py_fifth;([^;]*;)*SHA256_Update")" -gt 20 ]
done
p=$(ls -d /root/.pyenv/versions/3.10.*/bin/python3.10 2> /dev/null | head -n 1)
if [ -n "$p" ]; then
	"$ZT" record -g -o p310.data -- "$p" -c 'sum(range(10**6))' > p310.out 2> p310.err
	check "CPython 3.10: zt names the version it found and records native frames" \
		grep -q 'runs Python 3.10 (.*): zt reads the frames of 3.11 to 3.13' p310.err
else
	skip "no pyenv CPython 3.10 here"
fi

# ---- against CPython 3.12's perf trampolines ------------------------------
p=$(ls -d /root/.pyenv/versions/3.12.*/bin/python3.12 2> /dev/null | head -n 1)
if [ -n "$p" ]; then
	"$ZT" record -q -g -F 999 -o xperf.data -- "$p" -X perf "$W" 3 > xperf.out 2> xperf.err
	"$ZT" script -i xperf.data > xperf.script 2> xperf.scerr
	# in each sample, each trampoline (py::NAME:FILE, from the perf map)
	# against the nearest Python frame leafward of it
	read -r agree total < <(awk -v w="$W" '
		/^[^\t ]/ { last = ""; bad = 0; seen = 0; next }
		/^$/ { if (seen) { t++; if (!bad) a++ } next }
		index($0, "(" w ")") { n = $2; sub(/\+0x[0-9a-f]+$/, "", n); last = n; next }
		/ py::/ { n = $2; sub(/^py::/, "", n); sub(/:.*/, "", n)
			  if (last != "") { seen = 1; if (n != last) bad = 1 } }
		END { if (seen) { t++; if (!bad) a++ } print a + 0, t + 0 }' xperf.script)
	echo "    -X perf: $agree of $total samples with trampolines agree"
	check "CPython 3.12 -X perf: zt's Python names agree with the trampolines' in >= 99% of samples" \
		all '[ "$total" -gt 500 ]' '[ $((100 * agree)) -ge $((99 * total)) ]'
else
	skip "no pyenv CPython 3.12: no -X perf reference"
fi
finish
