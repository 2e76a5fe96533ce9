#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# zt script against perf script on the same large perf.data (perf record -a
# -g, all CPUs busy), in one run: wall time to /dev/null, and the ratio.
# Also zt report --stdio against perf report --stdio. Env: SECS (default 10),
# FREQ (4000). Root.
set -u
: "${ZT:?}" "${WL:?}"
SECS=${SECS:-10}
FREQ=${FREQ:-4000}
T=$(mktemp -d /tmp/zt-scriptbench.XXXXXX)
trap 'pkill -f "$WL/hot hot" 2>/dev/null; rm -rf "$T"' EXIT
for i in $(seq "$(nproc)"); do "$WL/hot" hot $((SECS + 2)) & done
sleep 0.3
# -B: perf 6.1's build-id post-processing crashes at random on this kernel
for i in 1 2 3 4 5; do
	perf record -B -a -g -F "$FREQ" -e cpu-clock -o "$T/big.perf" -- sleep "$SECS" > /dev/null 2>&1 && break
done
wait
. "$(dirname "$0")/lib.sh"
size=$(stat -c %s "$T/big.perf")
lines=$("$ZT" script -i "$T/big.perf" | wc -l)
"$ZT" script -i "$T/big.perf" > /dev/null 2>&1 # warm the symbol cache, as perf's is
ps=$(ms perf script -i "$T/big.perf")
zs=$(ms "$ZT" script -i "$T/big.perf")
pr=$(ms perf report -i "$T/big.perf" --stdio)
zr=$(ms "$ZT" report -i "$T/big.perf" --stdio)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }'; }
echo "zt script bench: perf.data of $SECS s, -a -g -F $FREQ, $((size / 1024)) KB, $lines lines of script output"
echo "  perf script: $ps ms   zt script: $zs ms   speed-up $(ratio "$ps" "$zs")x (goal >= 10)"
echo "  perf report: $pr ms   zt report: $zr ms   speed-up $(ratio "$pr" "$zr")x"
perf script -i "$T/big.perf" > "$T/p.txt" 2>/dev/null
"$ZT" script -i "$T/big.perf" > "$T/z.txt"
echo "  lines that differ from perf script's: $(diff "$T/p.txt" "$T/z.txt" | grep -c '^<') of $lines" \
     "(which alias names a libc address, where both pick one)"
