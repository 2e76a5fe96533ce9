#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# zt flame against flamegraph.pl on the same folded stacks: 1,000,000
# samples over NSTACKS distinct stacks (default 100000), written with awk
# from a fixed seed. flamegraph.pl is used when found
# (FLAMEGRAPH_PL=/path/to/flamegraph.pl, or on PATH); FlameGraph is not
# packaged in Debian. Goal: well under a second, at least 20x faster.
# As root with WL (the workloads), also a real recording of about SAMPLES
# samples (FREQ, default 4000 Hz, on every CPU; at most REC_SECS_MAX, 30 s).
set -u
: "${ZT:?}"
NSTACKS=${NSTACKS:-100000}
SAMPLES=${SAMPLES:-1000000}
T=$(mktemp -d /tmp/zt-flamebench.XXXXXX)
trap 'rm -rf "$T"' EXIT
# A program-like call tree of NSTACKS functions (callers chosen among the
# recent ones: deep chains, up to 60 frames; names from 3000), each node the
# end of one stack; the samples spread over them with a skew.
awk -v n="$NSTACKS" -v total="$SAMPLES" 'BEGIN {
	srand(42); path[0] = "app;main"; depth[0] = 2; sum = 0
	for (i = 1; i < n; i++) {
		p = i - 1 - int(rand() * rand() * i)
		if (depth[p] >= 60) p = int(rand() * i)
		nm = "fn_" int(rand() * 3000) (rand() < 0.05 ? "_[k]" : rand() < 0.05 ? "_[i]" : "")
		path[i] = path[p] ";" nm; depth[i] = depth[p] + 1
	}
	for (i = 0; i < n; i++) { w[i] = rand() ^ 4; sum += w[i] }
	left = total
	for (i = 0; i < n && left > 0; i++) {
		c = (i == n - 1) ? left : int(w[i] / sum * total + 0.5); if (c > left) c = left; left -= c
		if (c > 0) print path[i], c
	}
}' | LC_ALL=C sort > "$T/in.folded" # sorted, as stackcollapse writes it
. "$(dirname "$0")/lib.sh"
lines=$(wc -l < "$T/in.folded")
sum=$(awk '{ s += $NF } END { print s }' "$T/in.folded")
zt=$(ms "$ZT" flame --folded -i "$T/in.folded" -o "$T/zt.svg")
"$ZT" flame --folded -i "$T/in.folded" -o "$T/zt.svg"
frames=$(grep -c '<g class="f">' "$T/zt.svg")
echo "zt flame bench: $sum samples in $lines folded stacks -> $frames frames, $(( $(stat -c %s "$T/zt.svg") / 1024 )) KB"
echo "  zt flame --folded: $zt ms (goal: well under 1000)"
fg=${FLAMEGRAPH_PL:-$(command -v flamegraph.pl || true)}
if [ -n "$fg" ] && [ -x "$fg" -o -f "$fg" ]; then
	pl=$(ms perl "$fg" "$T/in.folded")
	echo "  flamegraph.pl:     $pl ms   speed-up $(awk -v a="$pl" -v b="$zt" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')x (goal >= 20)"
else
	echo "  flamegraph.pl: not found (set FLAMEGRAPH_PL=/path/to/flamegraph.pl): no comparison"
fi

# A real recording (root, WL set): the hot workload on every CPU, recorded
# system-wide with call graphs until about SAMPLES samples; zt flame on the
# recording itself, and on its folded stacks against flamegraph.pl.
if [ "$(id -u)" = 0 ] && [ -n "${WL:-}" ] && [ -x "$WL/hot" ]; then
	FREQ=${FREQ:-4000}
	secs=$(( SAMPLES / FREQ / $(nproc) + 1 ))
	[ "$secs" -gt "${REC_SECS_MAX:-30}" ] && secs=${REC_SECS_MAX:-30}
	pids=()
	for i in $(seq "$(nproc)"); do "$WL/hot" hot $((secs + 2)) & pids+=($!); done
	sleep 0.3
	"$ZT" record -q -a -g -F "$FREQ" -o "$T/rec.data" -- sleep "$secs" > /dev/null 2>&1
	kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null
	n=$("$ZT" script -i "$T/rec.data" -F pid 2>/dev/null | grep -c .)
	"$ZT" flame -i "$T/rec.data" -o "$T/rec.svg" > /dev/null 2>&1 # warm the symbol cache
	zr=$(ms "$ZT" flame -i "$T/rec.data" -o "$T/rec.svg")
	"$ZT" script --folded -i "$T/rec.data" > "$T/rec.folded" 2> /dev/null
	zf=$(ms "$ZT" flame --folded -i "$T/rec.folded" -o "$T/recf.svg")
	echo "recording: $n samples ($secs s, -a -g -F $FREQ, $(nproc) CPUs busy), $(wc -l < "$T/rec.folded") folded stacks"
	echo "  zt flame -i zt.data: $zr ms (read, resolve, build, write)   zt flame --folded: $zf ms"
	if [ -n "$fg" ] && [ -f "$fg" ]; then
		pl=$(ms perl "$fg" "$T/rec.folded")
		echo "  flamegraph.pl:       $pl ms   speed-up $(awk -v a="$pl" -v b="$zf" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')x on the same folded stacks"
	fi
fi
