#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Python frames' cost (zt-record(1) PYTHON FRAMES), measured in one run on
# Debian's python3.11 running a fixed amount of pure-Python and hashlib work
# on every CPU (each process times its own work):
#   slowdown: the work's wall time under zt record -g -F 999 with Python
#             frames and with --no-python, against no recorder, and under
#             perf record -g (frame pointers: no Python frames) as the peer;
#             goal: with and without Python frames within 2 points
#   BPF:      the sampler's run time per sample (kernel.bpf_stats_enabled)
#   bytes per sample of both recordings
#   code objects: how many were read and the time reading them took
# Best of ROUNDS (default 3) runs each, interleaved. Root.
set -u
: "${ZT:?}"
ROUNDS=${ROUNDS:-3}
ITER=${ITER:-1000} # rounds of the work in each process: ~4 ms each
PY=/usr/bin/python3.11
[ -x "$PY" ] || { echo "bench-python: needs Debian's python3.11 (apt-get install python3.11)"; exit 1; }
T=$(mktemp -d /tmp/zt-bench.XXXXXX)
trap 'rm -rf "$T"' EXIT
old_stats=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1
ncpu=$(nproc)
cat > "$T/work.py" << 'EOF'
import hashlib, sys, time
def half(n):
    x = 0
    for i in range(n):
        x = (x * 31 + i) & 0xFFFF
    return x
def third(n):
    s = ""
    for i in range(n):
        s = str(i) + s[:20]
    return s
def fifth(n):
    d = b"zt" * 8192
    for _ in range(n):
        hashlib.sha256(d).digest()
def deep(k, n):
    return deep(k - 1, n) if k else half(n)
t0 = time.perf_counter()
for _ in range(int(sys.argv[1])):
    half(60000); third(20000); fifth(60); deep(30, 20000)
print(int(1000 * (time.perf_counter() - t0)))
EOF
cat > "$T/load.sh" << EOF
#!/bin/sh
for i in \$(seq $ncpu); do "$PY" "$T/work.py" $ITER > "$T/ms.\$i" & done
wait
EOF
chmod +x "$T/load.sh"

# wall CMD...: the work's own time (ms) under CMD: its slowest process's, so
# that the recorders' start and end do not count
wall() { rm -f "$T"/ms.*; "$@" > /dev/null 2>&1; cat "$T"/ms.* | sort -n | tail -n 1; }
best() { sort -n | head -n 1; }
under_zt() { "$ZT" record -q -g -F 999 "$@" -- "$T/load.sh"; }
under_perf() { perf record -q -g -F 999 -o "$T/perf.data" -- "$T/load.sh"; }

: > "$T/base" ; : > "$T/py" ; : > "$T/nopy" ; : > "$T/perf"
for r in $(seq "$ROUNDS"); do
	wall "$T/load.sh" >> "$T/base"
	wall under_zt -o "$T/py.data" >> "$T/py"
	wall under_zt --no-python -o "$T/nopy.data" >> "$T/nopy"
	if command -v perf > /dev/null; then wall under_perf >> "$T/perf"; fi
done
base=$(best < "$T/base") py=$(best < "$T/py") nopy=$(best < "$T/nopy")
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", 100 * (a - b) / b }'; }
echo "bench-python: $ncpu x python3.11 fixed work, -F 999 -g, best of $ROUNDS"
echo "  no recorder:          ${base} ms"
echo "  zt -g (Python):       ${py} ms   slowdown $(pct "$py" "$base")%"
echo "  zt -g --no-python:    ${nopy} ms   slowdown $(pct "$nopy" "$base")%"
if [ -s "$T/perf" ]; then
	pf=$(best < "$T/perf")
	echo "  perf -g (peer):       ${pf} ms   slowdown $(pct "$pf" "$base")%"
fi
echo "  Python frames cost:   $(awk -v a="$py" -v b="$nopy" -v c="$base" 'BEGIN { printf "%.1f", 100 * (a - b) / c }') points (goal: <= 2)"

# the sampler's own time per sample and the bytes per sample, from one more
# recording of each, with -v
for m in py nopy; do
	opt=; [ $m = nopy ] && opt=--no-python
	"$ZT" record -v -g -F 999 $opt -o "$T/$m.v.data" -- "$T/load.sh" > /dev/null 2> "$T/$m.v.err"
	us=$(sed -n 's/.*BPF program: [0-9]* runs, \([0-9.]*\) us per run.*/\1/p' "$T/$m.v.err" | tail -n 1)
	n=$("$ZT" report -i "$T/$m.v.data" --stdio 2> /dev/null | sed -n 's/^# Samples: \([0-9.KM]*\).*/\1/p' | head -n 1)
	samples=$("$ZT" script -i "$T/$m.v.data" -F time 2> /dev/null | grep -c .)
	bytes=$(stat -c %s "$T/$m.v.data")
	eval "us_$m=\${us:-?} bps_$m=\$(awk -v b=$bytes -v s=$samples 'BEGIN { printf \"%.1f\", s ? b / s : 0 }')"
done
echo "  BPF per sample:       ${us_py} us with Python frames, ${us_nopy} us without"
echo "  bytes per sample:     ${bps_py} with Python frames, ${bps_nopy} without ($(awk -v a="$bps_py" -v b="$bps_nopy" 'BEGIN { printf "%.2f", b ? a / b : 0 }')x)"
m=$("$ZT" report -i "$T/py.v.data" --header-only 2> /dev/null | sed -n 's/^# python : //p')
echo "  code objects:         $m"
sysctl -qw kernel.bpf_stats_enabled="$old_stats"
