#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Recorder benchmarks: zt against perf, system-wide, same workload, frequency
# and duration, measured in one run. The workload is Debian's xz (built
# without frame pointers) compressing on every CPU. Recorders:
#   zt -g                   the kernel unwinder (unwind tables in BPF)
#   zt --call-graph fp      frame pointers alone
#   perf -g                 frame pointers
#   perf --call-graph dwarf 8 KiB stack copies, unwound offline
# Figures, each with its ratio:
#   recorder CPU: user+sys of the recorder (+ BPF run time for zt, from
#                 kernel.bpf_stats_enabled); perf's in-kernel sampling cost is
#                 not visible to it, so this favours perf
#   bytes/sample: the files (goal: zt -g within 1.5x of zt's frame-pointer
#                 stacks; zt against perf -g: <= 0.1)
#   complete stacks: xz's samples whose stack reaches __libc_start_call_main
#                 (or a thread's start_thread)
#   lost samples at -F 10000 system-wide
#   the workload's slowdown: fixed work on every CPU, timed without a
#                 recorder and under each (in-kernel sampling cost included)
# Env: SECS (default 8), FREQ (default 4000), ROUNDS (xz runs per CPU for the
# fixed work, default 3). Root.
set -u
: "${ZT:?}" "${WL:?}"
SECS=${SECS:-8}
FREQ=${FREQ:-4000}
ROUNDS=${ROUNDS:-3}
T=$(mktemp -d /tmp/zt-bench.XXXXXX)
trap 'pkill -f "$T/in" 2>/dev/null; rm -rf "$T"' EXIT
ncpu=$(nproc)
old_stats=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1
XZ=$(command -v xz) || { echo "bench-record: needs xz (apt-get install xz-utils)"; exit 1; }
# 3 MiB of machine code to compress: a second or so of xz -6
for i in 1 2 3 4; do cat "$ZT"; done | head -c $((3 << 20)) > "$T/in"

# cpu_of CMD...: runs CMD, prints "user+sys seconds" of it and its children
cpu_of() {
	( "$@" >/dev/null 2>"$T/last.err"; times > "$T/times" )
	awk 'NR==2 { split($1,u,"m"); split($2,s,"m"); sub("s","",u[2]); sub("s","",s[2]);
	     printf "%.3f", u[1]*60+u[2]+s[1]*60+s[2] }' "$T/times"
}
# xz on every CPU, over and over, for SECS + 2 seconds
load() {
	local i
	for i in $(seq "$ncpu"); do
		( end=$(( $(date +%s) + SECS + 2 )); while [ "$(date +%s)" -lt $end ]; do
			"$XZ" -6 -c "$T/in" > /dev/null; done ) &
	done
	sleep 0.5
}
samples_zt() { sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$1" | tail -1; }
samples_perf() { perf report -i "$1" --stats 2>/dev/null | awk '$1 == "SAMPLE" && $2 == "events:" { print $3; exit }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "n/a" }'; }
bpf_s() { sed -n 's/.*BPF program: \([0-9]*\) runs, \([0-9.]*\) us per run.*/\1 \2/p' "$1" |
	  awk '{ printf "%.3f", $1 * $2 / 1e6 }'; }
# complete FOLDED: share (%) of xz's samples from its process's or a thread's start
complete() {
	awk '{ n = $NF; if ($1 !~ /^xz;/) next; t += n;
	       if ($1 ~ /(^|;)(__libc_start_call_main|start_thread)(;|$)/) m += n }
	     END { printf "%.1f%% of %d", t ? 100 * m / t : 0, t }' "$1"
}
perf_folded() {
	perf script -F comm,ip,sym --no-inline -i "$1" 2>/dev/null | awk '
		function out() { if (st != "") c[comm ";" st]++; st = "" }
		/^[^ \t]/ { out(); comm = $1; next }
		/^[ \t]+[0-9a-f]+ / { s = $2; sub(/\+0x[0-9a-f]+$/, "", s); st = st == "" ? s : s ";" st; next }
		/^$/ { out() }
		END { out(); for (k in c) print k, c[k] }'
}

echo "zt bench: $ncpu CPUs, -a -F $FREQ, ${SECS}s, every CPU busy with xz -6 (no frame pointers)"

# 1. recorder CPU cost and the files
declare -A cpu bytes samples
run() { # run NAME CMD...: records system-wide under load
	local name=$1
	shift
	load
	cpu[$name]=$(cpu_of "$@" -- sleep "$SECS")
	cp "$T/last.err" "$T/$name.err"
	wait
}
run zt "$ZT" record -a -g -F "$FREQ" -v -o "$T/zt.data"
run ztfp "$ZT" record -a --call-graph fp -F "$FREQ" -v -o "$T/ztfp.data"
run perf perf record -a -g -F "$FREQ" -e cpu-clock -o "$T/perf.data"
run perfz perf record -z -a -g -F "$FREQ" -e cpu-clock -o "$T/perfz.data"
run perfdw perf record -a --call-graph dwarf -F "$FREQ" -e cpu-clock -o "$T/perfdw.data"
zt_bpf=$(bpf_s "$T/zt.err"); ztfp_bpf=$(bpf_s "$T/ztfp.err")
zt_total=$(awk -v a="${cpu[zt]}" -v b="${zt_bpf:-0}" 'BEGIN { printf "%.3f", a + b }')
ztfp_total=$(awk -v a="${cpu[ztfp]}" -v b="${ztfp_bpf:-0}" 'BEGIN { printf "%.3f", a + b }')
echo
echo "recorder CPU seconds (user+sys [+BPF]):"
echo "  zt -g       : ${cpu[zt]}s + BPF ${zt_bpf:-0}s = ${zt_total}s"
echo "  zt fp       : ${cpu[ztfp]}s + BPF ${ztfp_bpf:-0}s = ${ztfp_total}s"
echo "  perf -g     : ${cpu[perf]}s      perf -z -g: ${cpu[perfz]}s      perf dwarf: ${cpu[perfdw]}s"
echo "  ratio zt -g / perf -g: $(ratio "$zt_total" "${cpu[perf]}")   (goal <= 0.2)" \
     "  zt -g / perf dwarf: $(ratio "$zt_total" "${cpu[perfdw]}")   zt -g / zt fp: $(ratio "$zt_total" "$ztfp_total")"
sed -n 's/.*BPF program: .* runs, \([0-9.]*\) us per run.*/\1/p' "$T/zt.err" > "$T/us.zt"
sed -n 's/.*BPF program: .* runs, \([0-9.]*\) us per run.*/\1/p' "$T/ztfp.err" > "$T/us.ztfp"
echo "  BPF program per sample: zt -g $(cat "$T/us.zt") us, zt fp $(cat "$T/us.ztfp") us"

# 2. bytes per sample
for n in zt ztfp; do
	samples[$n]=$(samples_zt "$T/$n.err"); bytes[$n]=$(stat -c %s "$T/$n.data")
done
for n in perf perfz perfdw; do
	samples[$n]=$(samples_perf "$T/$n.data"); bytes[$n]=$(stat -c %s "$T/$n.data")
done
bps() { ratio "${bytes[$1]}" "${samples[$1]}"; }
echo
echo "bytes per sample:"
echo "  zt -g      : $(bps zt)  (${bytes[zt]} bytes, ${samples[zt]} samples)"
echo "  zt fp      : $(bps ztfp)  (${bytes[ztfp]} bytes, ${samples[ztfp]} samples)"
echo "  perf -g    : $(bps perf)  (${bytes[perf]} bytes, ${samples[perf]} samples)"
echo "  perf -z -g : $(bps perfz)  (${bytes[perfz]} bytes, ${samples[perfz]} samples)"
echo "  perf dwarf : $(bps perfdw)  (${bytes[perfdw]} bytes, ${samples[perfdw]} samples)"
echo "  ratio zt -g / zt fp: $(ratio "$(bps zt)" "$(bps ztfp)")   (goal <= 1.5)" \
     "  zt -g / perf -g: $(ratio "$(bps zt)" "$(bps perf)")   (goal <= 0.1)" \
     "  zt -g / perf dwarf: $(ratio "$(bps zt)" "$(bps perfdw)")"

# 3. complete stacks
"$ZT" script --folded -i "$T/zt.data" > "$T/zt.folded" 2>/dev/null
"$ZT" script --folded -i "$T/ztfp.data" > "$T/ztfp.folded" 2>/dev/null
perf_folded "$T/perfdw.data" > "$T/perfdw.folded"
echo
echo "xz's stacks from its start (__libc_start_call_main or start_thread):"
echo "  zt -g: $(complete "$T/zt.folded")   zt fp: $(complete "$T/ztfp.folded")" \
     "  perf dwarf: $(complete "$T/perfdw.folded")"
echo "  zt -g's walks: $("$ZT" report -i "$T/zt.data" --header-only 2>/dev/null | sed -n 's/^# unwind_stops : //p')"

# 4. lost samples at -F 10000, system-wide
load
"$ZT" record -a -g -F 10000 -o "$T/zt10k.data" -- sleep "$SECS" 2> "$T/zt10k.err"
wait
load
perf record -a -g -F 10000 -e cpu-clock -o "$T/perf10k.data" -- sleep "$SECS" > /dev/null 2> "$T/perf10k.err"
wait
zlost=$(sed -n 's/.*lost \([0-9]*\) samples.*/\1/p' "$T/zt10k.err"); zlost=${zlost:-0}
plost=$(perf report -i "$T/perf10k.data" --stats 2>/dev/null | awk '/LOST_SAMPLES|LOST events/ { s += $NF } END { print s + 0 }')
echo
echo "lost samples at -F 10000 -a -g:"
echo "  zt   : $zlost of $(samples_zt "$T/zt10k.err")"
echo "  perf : $plost of $(samples_perf "$T/perf10k.data")"

# 5. what sampling costs the workload, in-kernel work included: the same
# fixed work on every CPU, timed without a recorder and under each
work() { # prints the wall ms of ncpu parallel runs of ROUNDS xz compressions
	local s e i
	local pids=()
	s=$(date +%s%N)
	for i in $(seq "$ncpu"); do
		( for r in $(seq "$ROUNDS"); do "$XZ" -6 -c "$T/in" > /dev/null; done ) & pids+=($!)
	done
	wait "${pids[@]}"
	e=$(date +%s%N)
	echo $(( (e - s) / 1000000 ))
}
under() { # under NAME CMD...: work while CMD records system-wide
	local rp name=$1
	shift
	"$@" >/dev/null 2>&1 & rp=$!
	sleep 1
	work >> "$T/w.$name"
	pkill -P "$rp" -x sleep   # the recorder's workload ends: it stops as usual
	wait "$rp" 2>/dev/null
}
med() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
for rep in 1 2 3; do
	work >> "$T/w.none"
	under zt "$ZT" record -a -g -F "$FREQ" -o "$T/u.zt" -- sleep 600
	under ztfp "$ZT" record -a --call-graph fp -F "$FREQ" -o "$T/u.ztfp" -- sleep 600
	under perf perf record -a -g -F "$FREQ" -e cpu-clock -o "$T/u.perf" -- sleep 600
	under perfdw perf record -a --call-graph dwarf -F "$FREQ" -e cpu-clock -o "$T/u.perfdw" -- sleep 600
done
none=$(med < "$T/w.none")
pct() { awk -v a="$1" -v b="$none" 'BEGIN { printf "%+.1f%%", (a - b) * 100 / b }'; }
echo
echo "fixed work on all CPUs (xz), wall ms, median of 3 (kernel-side sampling cost included):"
echo "  no recorder: $none"
for n in zt ztfp perf perfdw; do
	w=$(med < "$T/w.$n")
	printf '  %-10s: %s (%s)\n' "$n" "$w" "$(pct "$w")"
done
echo "  ratio of the added time zt -g / perf -g: $(ratio $(( $(med < "$T/w.zt") - none )) $(( $(med < "$T/w.perf") - none )))" \
     "  zt -g / perf dwarf: $(ratio $(( $(med < "$T/w.zt") - none )) $(( $(med < "$T/w.perfdw") - none )))"
sysctl -qw kernel.bpf_stats_enabled="$old_stats"
