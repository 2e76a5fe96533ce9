#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# zt report --gpu on a zt record --gpu recording of the stand-in capture
# (gpulib.sh): the kernel table (launches, grid, block, time shares), the
# launch sites through the report's call-chain options, hot lines and
# device functions with stall reasons, memory copies, the GPU symbol
# summary; a recording without GPU records; the TUI in tmux (kernels ->
# hot lines -> back -> launch stacks).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/gpulib.sh"
gpu_setup
cd "$T"

gpu_record fp.data 40 -g
check "record --gpu -g exits 0" [ $? -eq 0 ]
check "the recording has its 90 kernels" contains fp.data.err 'GPU: 1 process, 90 kernels'

"$ZT" report --gpu --stdio -i fp.data > r.txt 2> r.err
check "report --gpu --stdio exits 0" [ $? -eq 0 ]
check "nothing on stderr" [ ! -s r.err ]

# ---- the kernel table -------------------------------------------------------
# its rows: Time% Total Launches Mean Max Grid Block Kernel
sed -n '/^# =* GPU kernels/,/^# =* Launch sites/p' r.txt | grep -v '^#' | grep -v '^$' > kernels.txt
col() { awk -v k="$1" -v c="$2" '$NF == k { print $c; exit }' kernels.txt; }
check "three kernels: $(awk '{printf "%s ", $NF}' kernels.txt)" [ "$(wc -l < kernels.txt)" -eq 3 ]
check "saxpy: 40 launches ($(col saxpy 3))" [ "$(col saxpy 3)" = 40 ]
check "hot_loop: 40 launches ($(col hot_loop 3))" [ "$(col hot_loop 3)" = 40 ]
check "scale: 10 launches ($(col scale 3))" [ "$(col scale 3)" = 10 ]
check "saxpy: grid 16,1,1 block 256,1,1" [ "$(col saxpy 6) $(col saxpy 7)" = "16,1,1 256,1,1" ]
check "hot_loop: grid 32,1,1 block 128,1,1" [ "$(col hot_loop 6) $(col hot_loop 7)" = "32,1,1 128,1,1" ]
sum=$(awk '{ gsub("%", "", $1); s += $1 } END { printf "%d", s + 0.5 }' kernels.txt)
check "the time shares add up to 100% ($sum)" [ "$sum" -eq 100 ]
# sorted by total time: each share at most the one above
check "kernels by GPU time" awk '{ gsub("%", "", $1) } NR > 1 && $1 > p { exit 1 } { p = $1 }' kernels.txt
# mean = total / launches, with the units the table prints
us() { case $1 in *ns) echo "${1%ns} / 1000" | bc -l ;; *us) echo "${1%us}" ;; *ms) echo "${1%ms} * 1000" | bc -l ;; *s) echo "${1%s} * 1000000" | bc -l ;; esac; }
mean_ok() {
	local t m n
	t=$(us "$(col "$1" 2)"); m=$(us "$(col "$1" 4)"); n=$(col "$1" 3)
	[ "$(echo "d = $t / $n - $m; d < 0.01 && d > -0.01" | bc -l)" = 1 ]
}
check "saxpy's mean is its total over its launches" mean_ok saxpy
check "GPU summary line" contains r.txt '^# GPU: 90 kernel launches of 3 kernels, .* of GPU time; [0-9]+ PC samples'

# ---- launch sites -------------------------------------------------------------
sed -n '/^# =* Launch sites/,/^# =* Hot lines/p' r.txt > sites.txt
check "launch sites: Children and Self (perf's default with call chains)" contains sites.txt '^# Children +Self +Command'
check "launch_saxpy among the launch sites" contains sites.txt '\[\.\] launch_saxpy$'
check "the kernels are [gpu] entries" contains sites.txt '%  cuda_app +\[gpu\] +\[\.\] saxpy$'
# a kernel's Self in the launch sites is its share of the GPU time
self_saxpy=$(awk 'NF >= 3 && $NF == "saxpy" && $(NF-2) == "[gpu]" { print $2; exit }' sites.txt)
check "saxpy's Self ($self_saxpy) is its Time% ($(col saxpy 1))" [ "$self_saxpy" = "$(col saxpy 1)" ]
check "no frames of CUPTI or zt's injection library in the launch stacks" \
	bash -c "! grep -qE 'zc_launch|ztc_glue|zt_standin_api' sites.txt"

"$ZT" report --gpu --stdio -i fp.data --no-children -g folded > nc.txt 2> nc.err
check "--no-children -g folded exits 0" [ $? -eq 0 ]
sed -n '/^# =* Launch sites/,/^# =* Hot lines/p' nc.txt > nc-sites.txt
check "--no-children: only Self" contains nc-sites.txt '^# Overhead +Command'
check "--no-children: the kernels are the entries" \
	[ "$(grep -cE '^ +[0-9.]+% +cuda_app +\[gpu\]' nc-sites.txt)" -eq 3 ]
check "saxpy launched from launch_saxpy <- run_frames <- main (callee order)" \
	contains nc-sites.txt '^[0-9.]+% saxpy;(.*;)?cuLaunchKernel;launch_saxpy;run_frames;main'
check "hot_loop launched from launch_hot <- step_physics <- run_frames" \
	contains nc-sites.txt '^[0-9.]+% hot_loop;(.*;)?launch_hot;step_physics;run_frames;main'
"$ZT" report --gpu --stdio -i fp.data --no-children -g caller,folded > cl.txt 2> cl.err
check "-g caller: main first" contains cl.txt '^[0-9.]+% (.*;)?main;run_frames;launch_saxpy;cuLaunchKernel;(.*;)?saxpy$'
"$ZT" report --gpu --stdio -i fp.data -g none > none.txt 2> none.err
check "-g none: no chains" bash -c "! grep -q -- '---' none.txt"

# ---- hot lines, device functions, stall reasons ----------------------------------
total=$(sed -nE 's/^# GPU: .* ([0-9]+) PC samples( \(.*\))?$/\1/p' r.txt)
check "the recording's 1620 PC samples ($total)" [ "$total" = 1620 ]
# X_not_issued (as on an H200): a part of X's samples, named, never added
ni=$(sed -nE 's/^# GPU: .* PC samples \(([0-9]+) of them not issued\)$/\1/p' r.txt)
"$ZT" script -i fp.data --gpu 2> /dev/null | grep 'cuda:pcsample: .*stall=[^ ]*_not_issued ' |
	sed 's/.* samples=\([0-9]*\) .*/\1/' | awk '{ s += $1 } END { print s + 0 }' > ni.txt
check "the header names the not-issued part (${ni:-none}, zt script's: $(cat ni.txt))" bash -c "[ -n '$ni' ] && [ '$ni' = '$(cat ni.txt)' ] && [ '$ni' -gt 0 ]"
check "no X_not_issued reason among the stalls" bash -c "! grep -q '_not_issued:' r.txt"
ksum=$(sed -nE 's/^# Kernel [^:]+: ([0-9]+) samples .*/\1/p' r.txt | awk '{ s += $1 } END { print s + 0 }')
check "the kernels' samples add up to the total ($ksum)" [ "$ksum" = "$total" ]
check "hot_loop's samples, with stall reasons" contains r.txt '^# Kernel hot_loop: [0-9]+ samples \([0-9.]+%\), stalls: .*long_scoreboard:[0-9]+'
check "stall reasons shortened" bash -c "! grep -q 'smsp__pcsamp' r.txt"
# a hot line: samples, percent, file:line (or kernel+0xPC without line info), function, stalls
check "hot lines of saxpy" contains r.txt '^ +[0-9]+ +[0-9.]+%  (saxpy\+0x[0-9a-f]+|[^ ]+\.cu:[0-9]+) +saxpy +[a-z_]+:[0-9]+'
# hot_loop calls the __noinline__ device function shade
sed -n '/^# Kernel hot_loop/,/^$/p' r.txt > hot.txt
check "hot_loop's device functions include shade" \
	contains hot.txt '^ +[0-9]+ +[0-9]+  [^ ]*shade'
hot_total=$(sed -nE 's/^# Kernel hot_loop: ([0-9]+) samples.*/\1/p' r.txt)
check "and hot_loop itself, with all its $hot_total samples in its Total" \
	contains hot.txt "^ +[0-9]+ +$hot_total  hot_loop "
check "GPU symbol summary" contains r.txt '^# GPU symbols: [0-9]+ PCs with lines \(function, file:line\), [0-9]+ names only, 0 none$'
read -r full basic <<< "$(sed -nE 's/^# GPU symbols: ([0-9]+) PCs with lines .*, ([0-9]+) names only, .*/\1 \2/p' r.txt)"
check "every PC resolved with a line (kernels.cubin has -lineinfo): $full with lines, $basic names only" \
	[ "${full:-0}" -gt 0 -a "${basic:-1}" -eq 0 ]
# saxpy is lines 13-19 of kernels.cu, shade 6-11
check "saxpy's hot lines are kernels.cu:13-19" \
	bash -c "sed -n '/^# Kernel saxpy/,/^\$/p' r.txt | awk '\$3 ~ /\\.cu:/ { split(\$3, a, \":\"); if (a[1] != \"kernels.cu\" || a[2] < 13 || a[2] > 19) bad = 1; n++ } END { exit bad || !n }'"
check "shade's lines are kernels.cu:6-11" \
	bash -c "awk '\$4 == \"shade\" && \$3 ~ /\\.cu:/ { split(\$3, a, \":\"); if (a[2] < 6 || a[2] > 11) bad = 1; n++ } END { exit bad || !n }' hot.txt"
check "no cubin named as lacking line info" bash -c "! grep -q '^# Cubins without line info' r.txt"

# ---- a cubin built without -lineinfo: kernel names only, and the summary says so
NL=$G/kernels-nolines.cubin
ZT_STANDIN_CUBIN_CRC=$("$G/cubin_crc" "$NL") LD_LIBRARY_PATH=$SD "$ZT" record --gpu -g -o nl.data -- \
	"$G/cuda_app" "$NL" 10 > nl.out 2> nl.err
check "record with a cubin without line info" [ $? -eq 0 ]
"$ZT" report -i nl.data --gpu --stdio > nl.txt 2> nl-report.err
check "report --gpu of it exits 0" [ $? -eq 0 ]
check "its PCs: names only" contains nl.txt '^# GPU symbols: 0 PCs with lines \(function, file:line\), [1-9][0-9]* names only, 0 none$'
check "the cubin is named, with why" contains nl.txt '^# Cubins without line info: cubin 0x[0-9a-f]{16} \(no line table \(built without -lineinfo\)\)$'
check "its hot lines as kernel+0xPC" contains nl.txt '^ +[0-9]+ +[0-9.]+%  saxpy\+0x[0-9a-f]+ +saxpy '
check "shade still named as a device function" contains nl.txt '^ +[0-9]+ +[0-9]+  shade '

# ---- memory copies ------------------------------------------------------------
sed -n '/^# =* Memory copies/,$p' r.txt | grep -v '^#' > copies.txt
check "HtoD: 1 copy of 16384 bytes" contains copies.txt '^  HtoD +1 +16384 '
check "DtoH: 1 copy of 16384 bytes" contains copies.txt '^  DtoH +1 +16384 '
check "a memset of 16384 bytes" contains copies.txt '^  memset +1 +16384 '

# ---- -q, and a recording without GPU records ---------------------------------------
"$ZT" report --gpu --stdio -q -i fp.data > q.txt 2> q.err
check "-q: no summary" bash -c "! grep -q '^# GPU:' q.txt"
check "-q: the tables still" contains q.txt '  saxpy$'
"$ZT" record -q -o cpu.data -- "$WL/hot" hot 0.3 2> cpu-rec.err
"$ZT" report --gpu --stdio -i cpu.data > nogpu.txt 2> nogpu.err
rc=$?
check "no GPU records: exit 1 ($rc)" [ "$rc" -eq 1 ]
check "no GPU records: says so" \
	contains nogpu.err "^zt report: 'cpu.data' has no GPU records \(record with zt record --gpu\)$"
check "no GPU records: nothing on stdout" [ ! -s nogpu.txt ]

# ---- PC samples tied to launches (serialized) ----------------------------------------
gpu_record ser.data 10 --gpu-pcs serialized
"$ZT" report --gpu --stdio -i ser.data > ser.txt 2> ser.err
check "serialized PC sampling: report exits 0" [ $? -eq 0 ]
check "serialized: 10 saxpy launches" contains ser.txt '^ +[0-9.]+% +[^ ]+ +10 +.*  saxpy$'
check "serialized: hot_loop's stall reasons" contains ser.txt '^# Kernel hot_loop: [0-9]+ samples .*stalls: [a-z_]+:[0-9]+'

# ---- the filters: the records of the launching process and thread, by time ----------
"$ZT" report --gpu --stdio -i fp.data --comm nobody > fn.txt 2>&1
check "--comm of no launcher: no kernel" contains fn.txt '^# GPU: 0 kernel launches of 0 kernels'
"$ZT" report --gpu --stdio -i fp.data --comm cuda_app -C 0 > fa.txt 2>&1
check "--comm of the launcher, -C not applying: the 90 kernels" \
	contains fa.txt '^# GPU: 90 kernel launches of 3 kernels'
# serialized PC samples go with their kernel: two halves of the time add up
tot() { sed -n 's/^# GPU: \([0-9]*\) kernel launches.*; \([0-9]*\) PC samples.*$/\1 \2/p' "$@"; }
read -r k s < <(tot ser.txt)
"$ZT" report --gpu --stdio -i ser.data --time 0%-50% > h1.txt 2>&1
"$ZT" report --gpu --stdio -i ser.data --time 50%-100% > h2.txt 2>&1
read -r k1 s1 < <(tot h1.txt)
read -r k2 s2 < <(tot h2.txt)
check "--time halves: $k1 + $k2 of $k kernels, $s1 + $s2 of $s PC samples" \
	[ "${k1:-0}" -gt 0 -a "${k2:-0}" -gt 0 -a "$k1" -lt "$k" -a "$k2" -lt "$k" -a \
	  $((k1 + k2)) -ge "$k" -a "$s1" -lt "$s" -a "$s2" -lt "$s" -a $((s1 + s2)) -ge "$s" ]

# ---- the TUI -----------------------------------------------------------------
printf 'set -g remain-on-exit on\n' > tmux.conf
TM=(tmux -L "zt-test-$$" -f "$T/tmux.conf")
trap '"${TM[@]}" kill-server 2>/dev/null; cleanup' EXIT
cat > run.sh <<END
TERM=xterm "$ZT" report --gpu -i fp.data 2> tui.err
echo \$? > tui.rc
stty -a > tui.stty
END
keys() { "${TM[@]}" send-keys -t g "$@"; }
screen() { "${TM[@]}" capture-pane -p -t g; }
wait_screen() { # wait_screen REGEX: until the screen (in scr.txt) matches, 5 s at most
	local i
	for i in $(seq 50); do
		screen > scr.txt 2>/dev/null
		grep -qE -- "$1" scr.txt && return 0
		sleep 0.1
	done
	echo "  (the screen does not show '$1':)"; sed 's/^/  | /' scr.txt
	return 1
}
"${TM[@]}" new-session -d -s g -x 100 -y 30 -c "$T" "bash run.sh"
check "TUI: the kernels view" wait_screen '^GPU kernels of fp.data: 3 kernels, 90 launches'
check "TUI: saxpy with its 40 launches" contains scr.txt '^ *[0-9.]+% +[^ ]+ +40 .* saxpy *$'
# the selected row is the first: go down to saxpy's
row=$(sed -n '3,$p' scr.txt | grep -nE ' saxpy *$' | cut -d: -f1)
for ((i = 1; i < ${row:-1}; i++)); do keys Down; done
keys Enter
check "TUI: Enter goes to saxpy's hot lines" wait_screen '^Hot lines of saxpy: [0-9]+ PC samples'
check "TUI: hot lines with stall reasons" contains scr.txt '^ +[0-9]+ +[0-9.]+%  [^ ]+ +saxpy +[a-z_]+:[0-9]+'
keys Tab
check "TUI: Tab: saxpy's device functions" wait_screen '^Device functions of saxpy: [0-9]+ PC samples'
check "TUI: saxpy, all self, with stall reasons" contains scr.txt '^ +([0-9]+) +\1  saxpy +[a-z_]+:[0-9]+'
keys Tab
check "TUI: Tab again: the hot lines" wait_screen '^Hot lines of saxpy'
keys Escape
check "TUI: Esc goes back to the kernels" wait_screen '^GPU kernels of fp.data'
keys l
check "TUI: l shows saxpy's launch stacks (the selection was kept)" wait_screen '^Launch stacks of saxpy: 40 launches'
check "TUI: through launch_saxpy" contains scr.txt '^ +[0-9.]+% +[0-9]+ +launch_saxpy$'
# callers below, indented one more each: launch_saxpy, run_frames, main
ind() { awk -v f="$1" '{ n = $NF } n == f { match($0, /^ */); print RLENGTH; exit }' scr.txt; }
a=$(ind launch_saxpy) b=$(ind run_frames) c=$(ind main)
check "TUI: launch_saxpy <- run_frames <- main, indented ($a $b $c)" \
	bash -c "[ -n '$a' ] && [ -n '$b' ] && [ -n '$c' ] && [ $a -lt $b ] && [ $b -lt $c ]"
keys Left
check "TUI: Left goes back" wait_screen '^GPU kernels of fp.data'
keys Enter
wait_screen '^Hot lines of' > /dev/null
keys l
check "TUI: l from the hot lines too" wait_screen '^Launch stacks of saxpy'
keys Escape
check "TUI: back to the hot lines" wait_screen '^Hot lines of saxpy'
keys q
for i in $(seq 50); do [ -s tui.rc ] && break; sleep 0.1; done
check "TUI: q quits with 0 ($(cat tui.rc 2>/dev/null))" [ "$(cat tui.rc 2>/dev/null)" = 0 ]
check "TUI: the terminal given back (echo, icanon)" \
	bash -c "grep -qE '(^| )icanon( |;|\$)' tui.stty && grep -qE '(^| )echo( |;|\$)' tui.stty"
check "TUI: nothing on stderr" [ ! -s tui.err ]
finish
