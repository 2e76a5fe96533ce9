#!/usr/bin/env bash
# zt top: text snapshots of a running workload (-p and system-wide), the
# display options, bad options, and the full screen driven in tmux.
. "$(dirname "$0")/lib.sh"
cd "$T"
asnobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all -- "$@"; }

# The last snapshot of a --stdio output (snapshots end with a blank line)
last_snap() { awk 'BEGIN { RS = "" } { last = $0 } END { print last }' "$1"; }
# Share (integer percent) of symbol $2 in snapshot file $1 (first column)
pct() { awk -v s="$2" '!/^#/ && $NF == s { gsub("%", "", $1); print int($1); exit }' "$1"; }
# Row number of symbol $2 in snapshot file $1
rank() { awk -v s="$2" '!/^#/ && NF { n++ } !/^#/ && $NF == s { print n; exit }' "$1"; }

"$WL/hot" hot 60 & pid=$!; bgpids+=($pid)
sleep 0.3

# -p: a snapshot a second, zt_hot_a (75%) above zt_cold_b (25%)
timeout 20 "$ZT" top --stdio -d 1 --duration 3.2 -p "$pid" -s comm,dso,sym -n > p.txt 2> p.err
check "top -p exits 0" [ $? -eq 0 ]
check "a snapshot per second" [ "$(grep -c '^# [0-9:]* Samples: ' p.txt)" -ge 3 ]
check "snapshot header: time, samples, lost" contains p.txt '^# [0-9]{2}:[0-9]{2}:[0-9]{2} Samples: [0-9.]+K?/s of event .* lost: [0-9]+/[0-9]+, pid '
last_snap p.txt > p.last
check "zt_hot_a above zt_cold_b (-p)" [ "$(rank p.last zt_hot_a)" = 1 -a "$(rank p.last zt_cold_b)" = 2 ]
check "zt_hot_a near 75% (-p): $(pct p.last zt_hot_a)" between "$(pct p.last zt_hot_a)" 60 90
check "zt_cold_b near 25% (-p): $(pct p.last zt_cold_b)" between "$(pct p.last zt_cold_b)" 12 38
check "--sort comm,dso,sym: Command column" awk '!/^#/ && $NF == "zt_hot_a" { f = ($3 == "hot") } END { exit !f }' p.last
check "-n: a Samples column" awk '!/^#/ && $NF == "zt_hot_a" { f = ($2 ~ /^[0-9]+$/ && $2 > 100) } END { exit !f }' p.last
check "no warnings" [ ! -s p.err ]

# -g: Children and Self, callers of the hot functions
timeout 20 "$ZT" top --stdio -d 1 --duration 2 -g -p "$pid" > g.txt 2> g.err
check "top -g exits 0" [ $? -eq 0 ]
last_snap g.txt > g.last
check "-g: Children column" contains g.last '^# Children +Self'
check "-g: zt_round has children, no self" awk '$NF == "zt_round" { c = $1; s = $2; gsub("%", "", c); gsub("%", "", s); f = (c + 0 > 90 && s + 0 < 5) } END { exit !f }' g.last

# -g walks stacks in the kernel with the binaries' unwind tables: code
# built without frame pointers (tests/workloads/nofp) is whole to main;
# --call-graph fp is perf top -g's frame-pointer walk, which loses it
# children SNAP FUNC: FUNC's Children share (integer), 0 where not listed
children() { awk -v f="$2" '!/^#/ && $NF == f && !c { c = $1; gsub("%", "", c) } END { print int(c) }' "$1"; }
"$WL/nofp" chain 6 & npid=$!; bgpids+=($npid)
sleep 0.3
timeout 20 "$ZT" top --stdio -d 1 --duration 2 -g -p "$npid" > nk.txt 2> nk.err
last_snap nk.txt > nk.last
check "-g, no frame pointers: main's Children $(children nk.last main)% (>= 90: the kernel unwinder)" \
	[ "$(children nk.last main)" -ge 90 -a "$(children nk.last nf_outer)" -ge 90 ]
timeout 20 "$ZT" top --stdio -d 1 --duration 2 --call-graph fp -p "$npid" > nf.txt 2> nf.err
last_snap nf.txt > nf.last
check "--call-graph fp, no frame pointers: main's Children $(children nf.last main)% (< 20: perf's walk)" \
	[ "$(children nf.last main)" -lt 20 ]
check "... and no warnings" [ ! -s nk.err -a ! -s nf.err ]
kill "$npid" 2> /dev/null
wait "$npid" 2> /dev/null

# JIT code announced in /tmp/perf-PID.map is named
"$WL/jit" 3 & jpid=$!; bgpids+=($jpid)
sleep 0.3
timeout 20 "$ZT" top --stdio -d 1 --duration 1.5 -p "$jpid" > j.txt 2> j.err
check "JIT function named from the perf map" grep -q '\[JIT\] tid [0-9]* *\[\.\] zt_jit_spin' j.txt
wait "$jpid"

# system-wide: the same two functions, 3:1
timeout 20 "$ZT" top --stdio -d 1 --duration 2.2 > a.txt 2> a.err
check "top (system-wide) exits 0" [ $? -eq 0 ]
last_snap a.txt > a.last
ha=$(pct a.last zt_hot_a); cb=$(pct a.last zt_cold_b)
check "system-wide shows zt_hot_a and zt_cold_b ($ha%, $cb%)" [ -n "$ha" -a -n "$cb" ]
check "system-wide: zt_hot_a above zt_cold_b" [ "$(rank a.last zt_hot_a)" -lt "$(rank a.last zt_cold_b)" ]
check "system-wide: zt_hot_a about 3x zt_cold_b" awk -v a="$ha" -v b="$cb" 'BEGIN { exit !(b > 0 && a / b >= 1.8 && a / b <= 5) }'

# a reader that goes away ends it quietly (zt top --stdio | head)
timeout 20 "$ZT" top --stdio -d 0.5 -p "$pid" 2> pipe.err | head -2 > /dev/null
check "--stdio | head: exits 0" [ "${PIPESTATUS[0]}" -eq 0 ]
check "--stdio | head: no message" [ ! -s pipe.err ]

# -K / -U hide kernel / user symbols; -z zeroes the history each refresh
timeout 20 "$ZT" top --stdio -d 0.5 --duration 1.5 -K -z > k.txt 2> k.err
check "-K exits 0" [ $? -eq 0 ]
check "-K: no kernel symbols" bash -c "! grep -v '^#' k.txt | grep -q '\[k\]'"
check "-K: user symbols" grep -q 'zt_hot_a' k.txt
timeout 20 "$ZT" top --stdio -d 0.5 --duration 1.5 -U > u.txt 2> u.err
check "-U exits 0" [ $? -eq 0 ]
check "-U: no user symbols" bash -c "! grep -v '^#' u.txt | grep -q '\[\.\]'"
check "-U: kernel symbols" grep -q '\[k\]' u.txt

# bad options and targets
"$ZT" top --bogus-option > /dev/null 2> e1.err
check "bad option -> 129" [ $? -eq 129 ]
check "bad option: says which" contains e1.err "zt top: unknown option '--bogus-option'"
"$ZT" top --stdio -d 0 > /dev/null 2> e2.err
check "-d 0 -> 129" [ $? -eq 129 ]
check "-d 0: says why" contains e2.err 'zt top: bad delay'
"$ZT" top --stdio -s nonsense > /dev/null 2> e3.err
check "bad sort key -> 129" [ $? -eq 129 ]
check "bad sort key: says which" contains e3.err "unknown sort key 'nonsense'"
"$ZT" top --stdio -p 12x > /dev/null 2> e4.err
check "bad pid list -> 129" [ $? -eq 129 ]
"$ZT" top --stdio -p 999999999 > /dev/null 2> e5.err
check "missing process -> 1" [ $? -eq 1 ]
check "missing process: says so" contains e5.err 'process 999999999 does not exist'
"$ZT" top --tui < /dev/null > /dev/null 2> e6.err
check "--tui without a terminal -> 129" [ $? -eq 129 ]
mkdir -m 777 nb
( cd nb && asnobody "$ZT" top --stdio --duration 1 ) > /dev/null 2> e7.err
check "unprivileged system-wide -> 1" [ $? -eq 1 ]
check "unprivileged: names the capabilities" contains e7.err 'zt top: .*needs root or CAP_BPF and CAP_PERFMON.*setcap'
# ... but the user's own process is profiled, user space only (perf_event)
asnobody "$WL/hot" wait 2> /dev/null & nb_job=$!
sleep 0.3
npid=$(pgrep -f "^$WL/hot wait" | head -1); bgpids+=($npid)
( cd nb && asnobody "$ZT" top --stdio -d 1 --duration 1.5 -p "$npid" ) > np.txt 2> np.err
check "unprivileged -p of own process works" [ $? -eq 0 ]
check "unprivileged -p: says user space only" contains np.err 'user-space samples of the given processes only'
last_snap np.txt > np.last
check "unprivileged -p: zt_hot_a on top" [ "$(rank np.last zt_hot_a)" = 1 ]
kill "$npid"; wait "$nb_job" 2> /dev/null

# the full screen, in tmux
if command -v tmux > /dev/null; then
	tm() { tmux -L "zt-top-$$" "$@"; }
	screen() { tm capture-pane -p -t top > "$1"; }
	wait_for() { # wait_for FILE REGEX [SECS]: capture until the screen matches
		local i
		for i in $(seq $((${3:-5} * 10))); do
			screen "$1"; grep -qE -- "$2" "$1" && return 0; sleep 0.1
		done
		return 1
	}
	tm new-session -d -s top -x 80 -y 24 -c "$T" \
		"echo before; '$ZT' top -p $pid -d 1 2> tui.err; echo rc=\$? > tui.rc; stty -a > stty.txt; echo restored; sleep 60"
	check "TUI shows zt_hot_a" wait_for s1.txt 'zt_hot_a'
	check "TUI title: samples/s and event" grep -qE '^Samples: .*/s of event' s1.txt
	check "TUI column names" grep -qE 'Overhead +Shared Object +Symbol' s1.txt
	check "TUI: zt_hot_a above zt_cold_b" awk '/zt_hot_a/ { h = NR } /zt_cold_b/ { c = NR } END { exit !(h && c && h < c) }' s1.txt
	tm send-keys -t top h
	check "h: help window" wait_for s2.txt 'Toggle zeroing'
	tm send-keys -t top q   # closes the help
	check "help closes" wait_for s3.txt 'h: help  q: quit'
	tm send-keys -t top U
	sleep 0.3; screen s4.txt
	check "U hides user symbols" bash -c "! grep -q 'zt_hot_a' s4.txt"
	tm send-keys -t top U
	tm send-keys -t top / cold Enter
	check "/ filters symbols" wait_for s5.txt 'Filter: cold'
	check "filter keeps zt_cold_b only" bash -c "grep -q zt_cold_b s5.txt && ! grep -q zt_hot_a s5.txt"
	tm send-keys -t top Escape
	check "Esc drops the filter" wait_for s6.txt 'zt_hot_a'
	# zt.hist.0 taken by a FIFO: never opened (that would wait for a reader), the next name
	mkfifo zt.hist.0
	tm send-keys -t top P
	check "P: the status line names the file" wait_for s7.txt "written 'zt.hist.1'"
	check "P prints the histogram to a new zt.hist.1" grep -q 'zt_hot_a' zt.hist.1
	check "P: the FIFO at zt.hist.0 is left alone" [ -p zt.hist.0 ]
	tm send-keys -t top q
	for i in $(seq 50); do [ -s tui.rc ] && break; sleep 0.1; done
	check "q quits with status 0" grep -q 'rc=0' tui.rc
	check "terminal restored (echo, canonical mode)" bash -c "grep -qw echo stty.txt && grep -qw icanon stty.txt"
	wait_for s7.txt 'restored' 2 > /dev/null
	check "screen restored (the shell's screen back, the table gone)" \
		bash -c "grep -q '^before' s7.txt && grep -q '^restored' s7.txt && ! grep -q 'zt_hot_a' s7.txt"
	check "TUI: no messages on stderr" [ ! -s tui.err ]
	# Ctrl-C quits the same way
	tm kill-session -t top
	rm -f tui.rc
	tm new-session -d -s top -x 80 -y 24 -c "$T" \
		"'$ZT' top -p $pid -d 1 2> tui2.err; echo rc=\$? > tui.rc; sleep 60"
	wait_for s8.txt 'zt_hot_a' > /dev/null
	tm send-keys -t top C-c
	for i in $(seq 50); do [ -s tui.rc ] && break; sleep 0.1; done
	check "Ctrl-C quits with status 0" grep -q 'rc=0' tui.rc
	tm kill-server
else
	echo "  skip: no tmux"
fi
kill "$pid"; wait "$pid" 2> /dev/null
finish
