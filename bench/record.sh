#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Recorder benchmarks: zt against perf, same workload, frequency and duration,
# measured in one run. Prints each figure and its ratio zt/perf.
#   recorder CPU: user+sys of the recorder (+ BPF run time for zt, from
#                 kernel.bpf_stats_enabled); perf's in-kernel sampling cost is
#                 not visible to it, so this favours perf
#   bytes/sample: zt.data against perf.data (plain and -z)
#   lost samples at -F 10000 system-wide
# Env: SECS (default 8), FREQ (default 4000), ROUNDS (work size, default 3000),
# Root.
set -u
: "${ZT:?}" "${WL:?}"
SECS=${SECS:-8}
FREQ=${FREQ:-4000}
T=$(mktemp -d /tmp/zt-bench.XXXXXX)
trap 'pkill -f "$WL/hot hot" 2>/dev/null; rm -rf "$T"' EXIT
ncpu=$(nproc)
old_stats=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1

# cpu_of CMD...: runs CMD, prints "user+sys seconds" of it and its children
cpu_of() {
	( "$@" >/dev/null 2>"$T/last.err"; times > "$T/times" )
	awk 'NR==2 { split($1,u,"m"); split($2,s,"m"); sub("s","",u[2]); sub("s","",s[2]);
	     printf "%.3f", u[1]*60+u[2]+s[1]*60+s[2] }' "$T/times"
}
load() { for i in $(seq "$ncpu"); do "$WL/hot" hot $((SECS + 2)) & done; sleep 0.5; }
samples_zt() { sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$1" | tail -1; }
samples_perf() { perf report -i "$1" --stats 2>/dev/null | awk '$1 == "SAMPLE" && $2 == "events:" { print $3; exit }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "n/a" }'; }

echo "zt bench: $ncpu CPUs, -a -g -F $FREQ, ${SECS}s, all CPUs busy with tests/workloads/hot"

# 1. recorder CPU cost
load
zt_cpu=$(cpu_of "$ZT" record -a -g -F "$FREQ" -v -o "$T/zt.data" -- sleep "$SECS")
cp "$T/last.err" "$T/zt.err"
bpf_ms=$(sed -n 's/.*BPF program: \([0-9]*\) runs, \([0-9.]*\) us per run.*/\1 \2/p' "$T/zt.err" |
	 awk '{ printf "%.3f", $1 * $2 / 1e6 }')
wait
load
perf_cpu=$(cpu_of perf record -a -g -F "$FREQ" -e cpu-clock -o "$T/perf.data" -- sleep "$SECS")
cp "$T/last.err" "$T/perf.err"
wait
load
perfz_cpu=$(cpu_of perf record -z -a -g -F "$FREQ" -e cpu-clock -o "$T/perfz.data" -- sleep "$SECS")
cp "$T/last.err" "$T/perfz.err"
wait
zt_total=$(awk -v a="$zt_cpu" -v b="${bpf_ms:-0}" 'BEGIN { printf "%.3f", a + b }')
echo
echo "recorder CPU seconds (user+sys [+BPF]):"
echo "  zt   : ${zt_cpu}s + BPF ${bpf_ms:-0}s = ${zt_total}s"
echo "  perf : ${perf_cpu}s      perf -z : ${perfz_cpu}s"
echo "  ratio zt/perf: $(ratio "$zt_total" "$perf_cpu")   (goal <= 0.2)"

# 2. bytes per sample
zs=$(samples_zt "$T/zt.err"); ps=$(samples_perf "$T/perf.data"); pzs=$(samples_perf "$T/perfz.data")
zb=$(stat -c %s "$T/zt.data"); pb=$(stat -c %s "$T/perf.data"); pzb=$(stat -c %s "$T/perfz.data")
zbs=$(ratio "$zb" "$zs"); pbs=$(ratio "$pb" "$ps"); pzbs=$(ratio "$pzb" "$pzs")
echo
echo "bytes per sample:"
echo "  zt      : $zbs  ($zb bytes, $zs samples)"
echo "  perf    : $pbs  ($pb bytes, $ps samples)"
echo "  perf -z : $pzbs  ($pzb bytes, $pzs samples)"
echo "  ratio zt/perf: $(ratio "$zbs" "$pbs")   zt/perf -z: $(ratio "$zbs" "$pzbs")   (goal <= 0.1)"

# 3. lost samples at -F 10000, system-wide
load
"$ZT" record -a -g -F 10000 -o "$T/zt10k.data" -- sleep "$SECS" 2> "$T/zt10k.err"
wait
load
perf record -a -g -F 10000 -e cpu-clock -o "$T/perf10k.data" -- sleep "$SECS" > /dev/null 2> "$T/perf10k.err"
wait
zlost=$(sed -n 's/.*lost \([0-9]*\) samples.*/\1/p' "$T/zt10k.err"); zlost=${zlost:-0}
plost=$(perf report -i "$T/perf10k.data" --stats 2>/dev/null | awk '/LOST_SAMPLES|LOST events/ { s += $NF } END { print s + 0 }')
echo
echo "lost samples at -F 10000 -a:"
echo "  zt   : $zlost of $(samples_zt "$T/zt10k.err")"
echo "  perf : $plost of $(samples_perf "$T/perf10k.data")"

# 4. what sampling costs the machine, in-kernel work included: the same fixed
# work on every CPU, timed without a recorder, under zt and under perf
ROUNDS=${ROUNDS:-3000}
work() { # prints the wall ms of ncpu parallel "hot rounds ROUNDS"
	local s e i
	local pids=()
	s=$(date +%s%N)
	for i in $(seq "$ncpu"); do "$WL/hot" rounds "$ROUNDS" & pids+=($!); done
	wait "${pids[@]}"
	e=$(date +%s%N)
	echo $(( (e - s) / 1000000 ))
}
under() { # under NAME CMD...: work while CMD records system-wide
	local rp name=$1
	shift
	"$@" >/dev/null 2>&1 & rp=$!
	sleep 1
	work > "$T/under.$name"
	pkill -P "$rp" -x sleep   # the recorder's workload ends: it stops as usual
	wait "$rp" 2>/dev/null
}
med() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
for rep in 1 2 3; do
	work >> "$T/w.none"
	under zt "$ZT" record -a -g -F "$FREQ" -o "$T/u.zt" -- sleep 600; cat "$T/under.zt" >> "$T/w.zt"
	under perf perf record -a -g -F "$FREQ" -e cpu-clock -o "$T/u.perf" -- sleep 600; cat "$T/under.perf" >> "$T/w.perf"
done
none=$(med < "$T/w.none"); wzt=$(med < "$T/w.zt"); wperf=$(med < "$T/w.perf")
echo
echo "fixed work on all CPUs, wall ms (median of 3; kernel-side sampling cost included):"
echo "  no recorder: $none   zt: $wzt (+$(( wzt - none )))   perf: $wperf (+$(( wperf - none )))"
echo "  overhead zt: $(awk -v a="$wzt" -v b="$none" 'BEGIN { printf "%.1f%%", (a - b) * 100 / b }')" \
     "  perf: $(awk -v a="$wperf" -v b="$none" 'BEGIN { printf "%.1f%%", (a - b) * 100 / b }')" \
     "  ratio of the added time zt/perf: $(ratio $(( wzt - none )) $(( wperf - none )))"
sysctl -qw kernel.bpf_stats_enabled="$old_stats"
