#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# zt annotate of a Python function (zt-annotate(1) PYTHON FUNCTIONS): the
# source lines of tests/workloads/pyshares.py's py_half under Debian's
# python3.11, each with its share of the samples whose innermost Python
# frame is py_half; the hottest lines are the lines of its while loop's
# body, shown with their text; -l's sorted summary, -n, -d; py_fifth's
# samples in hashlib's native code counted at its hashlib line; the file
# gone: the lines' shares without text, and why; the view in a terminal.
W=$(cd "$(dirname "$0")/../workloads" && pwd)/pyshares.py
. "$(dirname "$0")/lib.sh"
cd "$T"
PY=/usr/bin/python3.11

if [ ! -x "$PY" ]; then
	skip "no $PY (Debian's python3.11): Python annotation not tested"
	finish
fi
# a copy of the program, to take away later
cp "$W" pyshares.py
"$ZT" record -q -g -F 999 -o py.data -- "$PY" "$T/pyshares.py" 2 > rec.out 2> rec.err
rc=$?
if [ $rc -ne 0 ] && grep -qE 'needs root or|CAP_BPF|CAP_PERFMON|Operation not permitted' rec.err; then
	sed 's/^/    /' rec.err
	skip "zt record cannot sample here (no root, CAP_BPF or CAP_PERFMON): Python annotation not tested"
	finish
fi
check "zt record -g of python3.11 pyshares.py: exit 0" [ $rc -eq 0 ]
[ $rc -eq 0 ] || sed 's/^/    /' rec.err
"$ZT" report -i py.data --header-only > hdr.txt 2> hdr.err
if ! grep -q '^# sampler : bpf$' hdr.txt; then
	skip "the recording is not the BPF sampler's (no BTF?): no Python frames to annotate"
	finish
fi

# py_half's lines in the file: its while, and the lines of the loop's body
# (those after the while, indented deeper, up to the first that is not)
read -r wl body <<< "$(awk '
	/^def py_half\(/ { in_f = 1; next }
	in_f && /^[^ \t#]/ { in_f = 0 }
	in_f && !w && /^[ \t]+while / { w = NR; match($0, /^[ \t]+/); wi = RLENGTH; next }
	in_f && w && !done { match($0, /^[ \t]*/); if (RLENGTH > wi && $0 !~ /^[ \t]*$/) b = b "," NR; else done = 1 }
	END { print w, substr(b, 2) }' pyshares.py)"
echo "  py_half: while on line ${wl:-?}, its body on lines ${body:-?}"
check "the workload's py_half has a while loop with a body" all '[ -n "$wl" ]' '[ -n "$body" ]'
in_body() { [[ ",$body," == *",$1,"* ]]; }

# the line rows: "   79.85 : 24              x = (x * 31 + i) & 0xFFFF", and
# "         : 25      return x" (no samples)
rows() { grep -E '^ +([0-9]+(\.[0-9]+)? )?: +[0-9]+( |$)' "$1"; }
# those with samples
srows() { grep -E '^ +[0-9]+(\.[0-9]+)? : +[0-9]+( |$)' "$1"; }
# line number and share of the rows with samples, most first
hot() { srows "$1" | awk '{print $3, $1}' | sort -k2,2 -rn; }
share() { srows "$1" | awk -v l="$2" '$3 == l { print $1; exit }'; }
nth_hot() { hot "$1" | sed -n "${2}p" | cut -d' ' -f1; }

"$ZT" annotate -i py.data --stdio py_half > half.txt 2> half.err
rc=$?
check "annotate --stdio py_half: exit 0" [ $rc -eq 0 ]
sed 's/^/    | /' half.txt | head -20
check "the header: py_half's source code, a Python function of pyshares.py" \
	grep -qE '^ Percent \|	Source code of py_half \(Python, pyshares\.py\) for cpu-clock \([0-9]+ samples, percent: local period\)$' half.txt
check "the header says what is counted: py_half as the innermost Python frame" \
	grep -qE 'samples: those with py_half as the innermost Python frame' half.txt
check "the header names the file the lines were read from" grep -qxE " +:	$T/pyshares.py" half.txt
n=$(sed -nE 's/.*Source code of py_half .*\(([0-9]+) samples.*/\1/p' half.txt)
check "py_half has samples (${n:-0})" [ "${n:-0}" -gt 100 ]
def=$(grep -nE '^def py_half\(' pyshares.py | cut -d: -f1)
check "the lines start at the def (line $def)" grep -qE "^ +: +$def  def py_half\(budget\):$" half.txt
ret=$(awk -v w="${wl:-0}" 'NR > w && /^[ \t]+return x$/ { print NR; exit }' pyshares.py)
check "... and end at its last line, the return ($ret), which has no samples of its own" \
	grep -qE "^ +: +$ret  +return x$" <(rows half.txt | tail -1)
h1=$(nth_hot half.txt 1) h2=$(nth_hot half.txt 2)
echo "  hottest lines: ${h1:-?} ($(share half.txt "${h1:-0}")%), ${h2:-?} ($(share half.txt "${h2:-0}")%)"
check "the hottest line ($h1) is in the while loop's body ($body)" in_body "${h1:-0}"
check "the second hottest ($h2) too" in_body "${h2:-0}"
sum=$(srows half.txt | awk -v b=",$body," 'index(b, "," $3 ",") { s += $1 } END { printf "%d", s }')
check "the loop's body has >= 80% of py_half's samples (${sum:-0}%)" [ "${sum:-0}" -ge 80 ]
for l in ${body//,/ }; do
	text=$(sed -n "${l}p" pyshares.py | sed 's/[[:space:]]*$//')
	exp=$(printf ' %7s : %s  %s' "$(share half.txt "$l")" "$l" "$text")
	check "line $l shown with its share and its text, indentation kept: '$text'" \
		grep -qxF -- "$exp" half.txt
done

# -n: sample counts, their sum the header's (no sample at no known line)
"$ZT" annotate -i py.data --stdio -n py_half > halfn.txt 2> halfn.err
sn=$(srows halfn.txt | awk '{ s += $1 } END { print s + 0 }')
un=$(sed -nE 's/^ +:	([0-9]+) samples? at no known line$/\1/p' halfn.txt)
check "-n: the lines' samples and those at no line add up to the header's ($sn + ${un:-0} = $n)" \
	[ $((sn + ${un:-0})) -eq "$n" ]
check "-n: the hottest line is the same" [ "$(nth_hot halfn.txt 1)" = "$h1" ]

# -l: perf's sorted summary, hottest first
"$ZT" annotate -i py.data --stdio -l py_half > halfl.txt 2> halfl.err
check "-l: 'Sorted summary for file' the .py file" grep -qxF "Sorted summary for file $T/pyshares.py" halfl.txt
top=$(grep -m1 -E '^ +[0-9.]+ pyshares\.py:[0-9]+$' halfl.txt | sed -E 's/.*://')
check "-l: the summary's first line is the hottest ($top)" [ "${top:-x}" = "$h1" ]

# py_fifth: most of its samples are in hashlib's native code (libcrypto)
"$ZT" annotate -i py.data --stdio py_fifth > fifth.txt 2> fifth.err
"$ZT" annotate -i py.data --stdio py_third > third.txt 2> third.err
nf=$(sed -nE 's/.*Source code of py_fifth .*\(([0-9]+) samples.*/\1/p' fifth.txt)
nt=$(sed -nE 's/.*Source code of py_third .*\(([0-9]+) samples.*/\1/p' third.txt)
s=$((n + ${nt:-0} + ${nf:-0}))
echo "  samples: py_half $n, py_third ${nt:-?}, py_fifth ${nf:-?}: $((100 * n / s))/$((100 * ${nt:-0} / s))/$((100 * ${nf:-0} / s))"
check "the three functions' samples are about 50/30/20 (native code they call counted)" \
	all 'between $((100 * n / s)) 44 56' 'between $((100 * ${nt:-0} / s)) 24 36' \
	    'between $((100 * ${nf:-0} / s)) 14 26'
hl=$(grep -nE '^[ \t]+hashlib\.sha256\(data\)\.digest\(\)$' pyshares.py | cut -d: -f1)
check "py_fifth's hottest line is the hashlib call ($hl), whose time is in native code" \
	[ "$(nth_hot fifth.txt 1)" = "$hl" ]

# every function with samples: the Python ones among them; -d the .py file
"$ZT" annotate -i py.data --stdio > all.txt 2> all.err
check "no symbol: py_half annotated among the others" \
	grep -qE '^ Percent \|	Source code of py_half \(Python, pyshares\.py\)' all.txt
"$ZT" annotate -i py.data --stdio -d pyshares.py > dso.txt 2> dso.err
check "-d pyshares.py: py_half, py_third and py_fifth, and only functions of pyshares.py" \
	all '[ "$(grep -oE "Source code of py_(half|third|fifth) " dso.txt | sort | wc -l)" -eq 3 ]' \
	    '! grep "Source code" dso.txt | grep -qvF "(Python, pyshares.py)"'

# the file gone: the lines with samples, their shares, no text, and why
mv pyshares.py moved.py
"$ZT" annotate -i py.data --stdio py_half > gone.txt 2> gone.err
rc=$?
check "file gone: exit 0" [ $rc -eq 0 ]
check "file gone: says why there is no text" \
	grep -qF "no source text: cannot read '$T/pyshares.py': No such file or directory" gone.txt
check "file gone: the same lines with the same shares, no text" \
	cmp -s <(hot gone.txt) <(hot half.txt)
check "file gone: the rows are the lines with samples, without text" \
	all '[ "$(rows gone.txt | wc -l)" -eq "$(srows half.txt | wc -l)" ]' \
	    '! rows gone.txt | grep -qvE "^ +[0-9.]+ : +[0-9]+$"'
mv moved.py pyshares.py

# ---- the view, in a terminal ----
if ! command -v tmux > /dev/null; then
	skip "no tmux: the view not tested"
	finish
fi
printf 'set -g remain-on-exit on\n' > tmux.conf
TM=(tmux -L "zt-test-$$" -f "$T/tmux.conf")
trap '"${TM[@]}" kill-server 2>/dev/null; cleanup' EXIT
S=P
keys() { "${TM[@]}" send-keys -t "$S" "$@"; }
wait_screen() {
	local i
	for i in $(seq 50); do
		"${TM[@]}" capture-pane -p -t "$S" > scr.txt 2>/dev/null
		grep -qE -- "$1" scr.txt && return 0
		sleep 0.1
	done
	echo "  (the screen does not show '$1':)"; sed 's/^/  | /' scr.txt
	return 1
}
# the highlighted line's line number
sel_line() {
	"${TM[@]}" capture-pane -e -p -t "$S" | grep -F $'\e[43m' | head -1 |
		sed -E 's/\x1b\[[0-9;]*m//g' | sed -E 's/^ *([0-9.]+)? *: *([0-9]+).*/\2/'
}
"${TM[@]}" new-session -d -s P -x 120 -y 40 -c "$T" \
	"TERM=xterm '$ZT' annotate -i py.data py_half 2> tui.err; echo \$? > P.rc"
check "view: py_half's lines" wait_screen '^Annotate py_half \(Python\): Samples: [0-9]+'
check "view: the loop body's text with its share" \
	wait_screen "^ +[0-9.]+ : $(echo "$body" | cut -d, -f2)  +x = \(x \* 31 \+ i\) & 0xFFFF"
check "view: the cursor starts on the hottest line ($h1)" [ "$(sel_line)" = "$h1" ]
keys Tab
sleep 0.3
check "view: TAB goes to the next hottest ($h2)" [ "$(sel_line)" = "$h2" ]
keys q
for i in $(seq 30); do [ -s P.rc ] && break; sleep 0.1; done
check "view: q quits, exit 0" [ "$(cat P.rc 2>/dev/null)" = 0 ]
finish
