#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# zt top's own cost against perf top's, same frequency, refresh delay and
# duration, system-wide with every CPU busy (tests/workloads/hot), measured
# in one run. Prints each figure and the ratio zt/perf.
#   CPU: user+sys of the profiler process, + BPF run time for zt (from
#        kernel.bpf_stats_enabled); perf's in-kernel sampling cost is not
#        visible to it, so this favours perf
#   as text snapshots (--stdio into a pipe) and on the full screen (under
#   tmux), without and with -g
#   in all (start-up included: /proc and kallsyms read, first symbols), and
#   in the steady state (from 2 s on), which is what leaving it running costs;
#   without -g zt's BPF program sends the sampled address only, like perf
#   top's in-kernel work (no call chains); with -g it walks both stacks
#   memory: the largest resident set of each
# Env: SECS (default 10), FREQ (default 4000). Root.
set -u
: "${ZT:?}" "${WL:?}"
SECS=${SECS:-10}
FREQ=${FREQ:-4000}
T=$(mktemp -d /tmp/zt-bench.XXXXXX)
TM="zt-bench-top-$$"
loadpids=()
cleanup() {
	for p in "${loadpids[@]}"; do kill "$p" 2>/dev/null; done
	tmux -L "$TM" kill-server 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
ncpu=$(nproc)
old_stats=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1
tick=$(getconf CLK_TCK)

load() { # every CPU busy for the next measure
	local i
	loadpids=()
	for i in $(seq "$ncpu"); do "$WL/hot" hot $((SECS + 3)) & loadpids+=($!); done
	sleep 0.5
}
unload() { kill "${loadpids[@]}" 2>/dev/null; wait "${loadpids[@]}" 2>/dev/null; loadpids=(); }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "n/a" }'; }
add() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a + b }'; }

# BPF run time (s) from zt top -v's last words ("BPF program: N runs, X us per run")
bpf_secs() {
	sed -n 's/.*BPF program: \([0-9]*\) runs, \([0-9.]*\) us per run.*/\1 \2/p' "$1" |
		awk '{ s = $1 * $2 / 1e6 } END { printf "%.3f", s + 0 }'
}
# user+sys seconds and max RSS (KB) of a running process
proc_cpu() { awk -v t="$tick" '{ printf "%.3f", ($14 + $15) / t }' "/proc/$1/stat"; }
proc_rss() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"; }
# watch PID: from 1 s after its start to SECS, its CPU at 2 s (cpu0) and at
# the end (cpu), and its max RSS; returns 1 when it is gone by then
watch() {
	sleep 1
	cpu0=0 cpu=0 bpf=0 rss=0
	[ -n "$1" ] && [ -e "/proc/$1" ] && cpu0=$(proc_cpu "$1")
	sleep $((SECS - 2))
	[ -n "$1" ] && [ -e "/proc/$1" ] || return 1
	cpu=$(proc_cpu "$1"); rss=$(proc_rss "$1")
}

# stdio NAME CMD...: CMD runs SECS seconds writing snapshots into a pipe;
# sets cpu, bpf, rss (perf top 6.1 --stdio sometimes aborts: tried again)
stdio() {
	local name=$1 pid sub attempt
	shift
	for attempt in 1 2 3; do
		load
		# perf top --stdio reads keys from stdin: give it one that stays open
		( sleep $((SECS + 5)) | "$@" > "$T/$name.out" 2> "$T/$name.err" ) 2> /dev/null & sub=$!
		sleep 1
		pid=$(pgrep -n -f "^$1 top") || pid=
		watch "$pid" && kill -INT "$pid"
		pkill -P "$sub" -x sleep 2>/dev/null
		wait "$sub" 2> /dev/null
		[ "$1" = "$ZT" ] && bpf=$(bpf_secs "$T/$name.err")
		unload
		[ "$cpu" != 0 ] && return
		echo "  ($name: '$*' ended early: $(tail -1 "$T/$name.err"); again)"
	done
}

# tui NAME CMD...: CMD runs SECS seconds on a 120x40 screen in tmux
tui() {
	local name=$1 pid
	shift
	load
	tmux -L "$TM" new-session -d -s "$name" -x 120 -y 40 "exec $* 2> $T/$name.err"
	sleep 1
	pid=$(tmux -L "$TM" list-panes -t "$name" -F '#{pane_pid}')
	if watch "$pid"; then
		tmux -L "$TM" capture-pane -p -t "$name" > "$T/$name.screen"
		tmux -L "$TM" send-keys -t "$name" q
		sleep 0.5
		[ "$1" = "$ZT" ] && bpf=$(bpf_secs "$T/$name.err")
	fi
	tmux -L "$TM" kill-session -t "$name" 2>/dev/null
	unload
}

report() { # report WHAT ZT_CPU ZT_CPU_AT_2S ZT_BPF ZT_RSS PERF_CPU PERF_CPU_AT_2S PERF_RSS
	local zt zu zb zs ps w=$((SECS - 2))
	zt=$(add "$2" "$4")
	# steady state: CPU from 2 s on, BPF time pro rata
	zu=$(awk -v c="$2" -v c0="$3" -v w="$w" 'BEGIN { printf "%.2f", 100 * (c - c0) / w }')
	zb=$(awk -v b="$4" -v s="$SECS" 'BEGIN { printf "%.2f", 100 * b / s }')
	zs=$(awk -v a="$zu" -v b="$zb" 'BEGIN { printf "%.2f", a + b }')
	ps=$(awk -v c="$6" -v c0="$7" -v w="$w" 'BEGIN { printf "%.2f", 100 * (c - c0) / w }')
	echo "$1:"
	echo "  zt   : ${2}s + BPF ${4}s = ${zt}s in ${SECS}s; steady state ${zs}% of a CPU" \
	     "(user+sys ${zu}%, BPF ${zb}%); max RSS ${5} KB"
	echo "  perf : ${6}s in ${SECS}s; steady state ${ps}% of a CPU; max RSS ${8} KB"
	echo "  ratio zt/perf: $(ratio "$zt" "$6") in all, $(ratio "$zs" "$ps") in the steady state," \
	     "$(ratio "$zu" "$ps") without BPF"
}

echo "zt top bench: $ncpu CPUs, -a -F $FREQ -d 1, ${SECS}s each, all CPUs busy with tests/workloads/hot"
echo

stdio zt "$ZT" top -a -F "$FREQ" -d 1 --stdio -v; z=($cpu $cpu0 $bpf $rss)
stdio perf perf top -a -F "$FREQ" -e cpu-clock -d 1 --stdio; p=($cpu $cpu0 $rss)
report "text snapshots (--stdio into a pipe), CPU seconds (user+sys [+BPF])" "${z[@]}" "${p[@]}"

tui ztui "$ZT" top -a -F "$FREQ" -d 1 -v; z=($cpu $cpu0 $bpf $rss)
tui ptui perf top -a -F "$FREQ" -e cpu-clock -d 1; p=($cpu $cpu0 $rss)
report "full screen (120x40, tmux), CPU seconds" "${z[@]}" "${p[@]}"
grep -q zt_hot_a "$T/ztui.screen" 2>/dev/null || echo "  (warning: zt's screen did not show zt_hot_a)"

stdio zg "$ZT" top -a -g -F "$FREQ" -d 1 --stdio -v; z=($cpu $cpu0 $bpf $rss)
stdio pg perf top -a -g -F "$FREQ" -e cpu-clock -d 1 --stdio; p=($cpu $cpu0 $rss)
report "with call graphs (-g, --stdio), CPU seconds" "${z[@]}" "${p[@]}"

sysctl -qw kernel.bpf_stats_enabled="$old_stats"
