#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Symbolizer benchmark: the same 10,000 random addresses of a large -O2 -g
# binary through addr2line -f -i, llvm-symbolizer --inlining and zt
# symbolize -f -i, cold (no GSYM cache, process start included) and warm
# (GSYM cache); wall time (best of 5) and peak memory, and how many answers
# agree with each peer (function, file:line, whole inline chain). Two
# programs: a generated ~100k-line C file, and a real one nobody here wrote:
# duktape (Debian's duktape-dev ships the ~100k-line amalgamated
# /usr/share/duktape/duktape.c: #line directives naming 145 files, deep
# inline chains, .cold parts), built -O2 -g with a small main.
# Env: NGROUPS (default 4000 ~ 100k lines), N (10000).
set -u
: "${ZT:?}"
NGROUPS=${NGROUPS:-4000}
N=${N:-10000}
T=$(mktemp -d /tmp/zt-symbench.XXXXXX)
trap 'rm -rf "$T"' EXIT
here=$(cd "$(dirname "$0")" && pwd)

# N random addresses inside the functions of $1 (a fixed LCG: the same set every run)
addrs() {
	nm -S --defined-only "$1" | awk -v n="$N" '
	function hex(s,   i, c, v) { v = 0; s = tolower(s)
		for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
		return v }
	$3 ~ /^[tT]$/ && NF == 4 { a[++k] = hex($1); s[k] = hex($2) }
	END { x = 12345
		for (i = 0; i < n; i++) {
			x = (x * 1103515245 + 12345) % 2147483648; f = x % k + 1
			x = (x * 1103515245 + 12345) % 2147483648; o = s[f] > 0 ? x % s[f] : 0
			printf "0x%x\n", a[f] + o } }'
}
# run NAME PRE CMD...: "seconds maxKB" of CMD < addrs > T/NAME.out: the
# best wall time of 5 runs, taken with bash's own clock around the command
# alone (no date or time process inside the measurement: they cost 2-3 ms,
# a third of a warm run), and the peak memory of one more run under
# /usr/bin/time; PRE (a shell command, or :) runs before each (cold: empty
# the cache)
run() {
	local name=$1 pre=$2 best= i s e d; shift 2
	for i in 1 2 3 4 5; do
		eval "$pre"
		s=$EPOCHREALTIME
		"$@" < "$T/addrs" > "$T/$name.out"
		e=$EPOCHREALTIME
		d=$(( ${e/./} - ${s/./} ))
		if [ -z "$best" ] || [ "$d" -lt "$best" ]; then best=$d; fi
	done
	eval "$pre"
	/usr/bin/time -f "%M" -o "$T/$name.time" "$@" < "$T/addrs" > /dev/null
	echo "$(awk -v d="$best" 'BEGIN { printf "%.4f", d / 1e6 }') $(cat "$T/$name.time")"
}
rate() { awk -v n="$N" -v s="$1" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
# llvm's blocks separated by blank lines, "file:line:col": without the column
llvm_norm() {
	awk 'BEGIN { RS = ""; FS = "\n" } { s = ""; for (i = 1; i <= NF; i += 2) { f = $(i + 1); sub(/:[0-9]+$/, "", f); s = s $i "@" f ";" } print s }'
}

# bench TITLE BIN: the whole comparison on one binary
bench() {
	local title=$1 bin=$2
	addrs "$bin" > "$T/addrs"
	echo "zt symbolize bench: $title, $N addresses"
	export ZT_CACHE_DIR="$T/cache"
	read -r a2l_s a2l_kb < <(run a2l : addr2line -f -i -e "$bin")
	read -r llvm_s llvm_kb < <(run llvm : llvm-symbolizer --inlining -e "$bin")
	read -r cold_s cold_kb < <(run cold 'rm -rf "$T/cache"' "$ZT" symbolize --no-debuginfod -f -i -e "$bin")
	read -r warm_s warm_kb < <(run warm : "$ZT" symbolize --no-debuginfod -f -i -e "$bin")
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
	llvm_norm < "$T/llvm.out" > "$T/llvm.norm"
	"$ZT" symbolize --no-debuginfod --output-style=LLVM -e "$bin" < "$T/addrs" | llvm_norm > "$T/zt.norm"
	agree=$(paste -d '\n' "$T/llvm.norm" "$T/zt.norm" | awk 'NR % 2 { a = $0; next } { t++; if (a == $0) s++ } END { printf "%d of %d (%.2f%%)", s, t, t ? 100 * s / t : 0 }')
	echo "  agreement with llvm-symbolizer --inlining (function, file:line, whole chain): $agree (goal >= 99.9%)"
	echo
}

"$here/gen-big-c.sh" "$NGROUPS" > "$T/big.c"
gcc -O2 -g -o "$T/big" "$T/big.c" || exit 1
bench "generated, $(wc -l < "$T/big.c") lines of C, gcc -O2 -g" "$T/big"

duk=/usr/share/duktape
if [ -r "$duk/duktape.c" ]; then
	mkdir -p "$T/duk"
	cp "$duk/duktape.c" "$duk/duktape.h" "$duk/duk_config.h" "$T/duk/"
	cat > "$T/duk/main.c" << 'EOC'
#include <stdio.h>
#include "duktape.h"
int main(int argc, char **argv)
{
	duk_context *ctx = duk_create_heap_default();

	duk_eval_string(ctx, argc > 1 ? argv[1] : "1 + 1");
	printf("%s\n", duk_safe_to_string(ctx, -1));
	duk_destroy_heap(ctx);
	return 0;
}
EOC
	(cd "$T/duk" && gcc -O2 -g -o duk main.c duktape.c -lm) || exit 1
	bench "duktape (Debian duktape-dev), $(wc -l < "$duk/duktape.c") lines of C, gcc -O2 -g" "$T/duk/duk"
else
	echo "zt symbolize bench: duktape skipped: /usr/share/duktape/duktape.c missing (apt-get install duktape-dev, or scripts/setup.sh --test)"
fi
