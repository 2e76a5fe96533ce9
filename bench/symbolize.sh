#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Symbolizer benchmark: the same 10,000 random addresses of a large -O2 -g
# binary (a generated ~100k-line C file) through addr2line -f -i,
# llvm-symbolizer --inlining and zt symbolize -f -i, cold (no GSYM cache,
# process start included) and warm (GSYM cache); wall time and peak memory,
# and how many answers agree with each peer (function, file:line, whole
# inline chain).  Env: NGROUPS (default 4000 ~ 100k lines), N (10000).
set -u
: "${ZT:?}"
NGROUPS=${NGROUPS:-4000}
N=${N:-10000}
T=$(mktemp -d /tmp/zt-symbench.XXXXXX)
trap 'rm -rf "$T"' EXIT
here=$(cd "$(dirname "$0")" && pwd)
"$here/gen-big-c.sh" "$NGROUPS" > "$T/big.c"
echo "zt symbolize bench: $(wc -l < "$T/big.c") lines of C, gcc -O2 -g, $N addresses"
gcc -O2 -g -o "$T/big" "$T/big.c" || exit 1
# N random addresses inside functions (a fixed LCG: the same set every run)
nm -S --defined-only "$T/big" | awk -v n="$N" '
	function hex(s,   i, c, v) { v = 0; s = tolower(s)
		for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
		return v }
	$3 ~ /^[tT]$/ && NF == 4 { a[++k] = hex($1); s[k] = hex($2) }
	END { x = 12345
		for (i = 0; i < n; i++) {
			x = (x * 1103515245 + 12345) % 2147483648; f = x % k + 1
			x = (x * 1103515245 + 12345) % 2147483648; o = s[f] > 0 ? x % s[f] : 0
			printf "0x%x\n", a[f] + o } }' > "$T/addrs"
run() { # run NAME CMD...: prints "seconds maxKB" of CMD < addrs > T/NAME.out
	local name=$1 s e; shift
	s=$(date +%s%N)
	/usr/bin/time -f "%M" -o "$T/$name.time" "$@" < "$T/addrs" > "$T/$name.out"
	e=$(date +%s%N)
	echo "$(awk -v d=$((e - s)) 'BEGIN { printf "%.4f", d / 1e9 }') $(cat "$T/$name.time")"
}
export ZT_CACHE_DIR="$T/cache"
read -r a2l_s a2l_kb < <(run a2l addr2line -f -i -e "$T/big")
read -r llvm_s llvm_kb < <(run llvm llvm-symbolizer --inlining -e "$T/big")
read -r cold_s cold_kb < <(run cold "$ZT" symbolize --no-debuginfod -f -i -e "$T/big")
read -r warm_s warm_kb < <(run warm "$ZT" symbolize --no-debuginfod -f -i -e "$T/big")
rate() { awk -v n="$N" -v s="$1" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
echo
printf "  %-22s %8s %12s %10s\n" tool seconds addresses/s "peak KB"
printf "  %-22s %8s %12s %10s\n" "addr2line -f -i" "$a2l_s" "$(rate "$a2l_s")" "$a2l_kb"
printf "  %-22s %8s %12s %10s\n" "llvm-symbolizer" "$llvm_s" "$(rate "$llvm_s")" "$llvm_kb"
printf "  %-22s %8s %12s %10s\n" "zt symbolize, cold" "$cold_s" "$(rate "$cold_s")" "$cold_kb"
printf "  %-22s %8s %12s %10s\n" "zt symbolize, warm" "$warm_s" "$(rate "$warm_s")" "$warm_kb"
echo
echo "  speed-up over llvm-symbolizer: cold $(ratio "$llvm_s" "$cold_s")x (goal >= 2), warm $(ratio "$llvm_s" "$warm_s")x (goal >= 10)"
echo "  speed-up over addr2line:       cold $(ratio "$a2l_s" "$cold_s")x, warm $(ratio "$a2l_s" "$warm_s")x"
echo "  peak memory, cold: $(ratio "$cold_kb" "$llvm_kb") of llvm-symbolizer's (goal <= 1)"
# agreement: per address, the whole answer (every frame's function and file:line)
if cmp -s "$T/warm.out" "$T/a2l.out"; then
	echo "  agreement with addr2line -f -i: all $N answers identical"
else
	echo "  agreement with addr2line -f -i: $(diff "$T/warm.out" "$T/a2l.out" | grep -c '^<') output lines differ"
fi
# llvm: blocks separated by blank lines, "file:line:col": compare without the column
awk 'BEGIN { RS = ""; FS = "\n" } { s = ""; for (i = 1; i <= NF; i += 2) { f = $(i + 1); sub(/:[0-9]+$/, "", f); s = s $i "@" f ";" } print s }' "$T/llvm.out" > "$T/llvm.norm"
"$ZT" symbolize --no-debuginfod --output-style=LLVM -e "$T/big" < "$T/addrs" |
	awk 'BEGIN { RS = ""; FS = "\n" } { s = ""; for (i = 1; i <= NF; i += 2) { f = $(i + 1); sub(/:[0-9]+$/, "", f); s = s $i "@" f ";" } print s }' > "$T/zt.norm"
agree=$(paste -d '\n' "$T/llvm.norm" "$T/zt.norm" | awk 'NR % 2 { a = $0; next } { t++; if (a == $0) s++ } END { printf "%d of %d (%.2f%%)", s, t, t ? 100 * s / t : 0 }')
echo "  agreement with llvm-symbolizer --inlining (function, file:line, whole chain): $agree (goal >= 99.9%)"
