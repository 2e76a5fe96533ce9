#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# libdwfl (zt's unwinder) against libunwind's remote API, on the same perf
# record --call-graph dwarf files: build/bench/unwind_cmp unwinds every stack
# snapshot with both and prints their speed (samples/s, cold: a fresh
# unwinder, as one zt report; warm: its caches filled) and how their call
# chains agree (raw addresses). Recordings:
#   chain qsort thread deep   tests/workloads/nofp, -O2 -fomit-frame-pointer
#   debug_frame               nofp chain built with -g and no unwind tables:
#                             its CFI only in .debug_frame
#   jit                       tests/workloads/jit: a leaf in anonymous code
#   mix                       nofp, gcc, xz, sha256sum (the command's processes)
#   mix -a                    the same, system-wide: whatever else runs too
# Env: SECS (per recording, default 2; the mixes 2x), FREQ (1999), RUNS (3),
# DIFFS=1 (show chains that differ). Root.
set -u
. "$(dirname "$0")/lib.sh"
: "${ZT:?}" "${WL:?}" "${UNWIND_CMP:?}"
SECS=${SECS:-2}
FREQ=${FREQ:-1999}
RUNS=${RUNS:-3}
[ "$(id -u)" = 0 ] || { echo "bench-unwind-cmp: needs root (perf record)" >&2; exit 1; }
command -v perf > /dev/null ||
	{ echo "bench-unwind-cmp: perf not found: install linux-perf (scripts/setup.sh --test)" >&2; exit 1; }
T=$(mktemp -d /tmp/zt-unwindcmp.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export ZT_CACHE_DIR="$T/cache"
src=$(dirname "$0")/..
fail=0

# perf 6.1 on this kernel sometimes aborts in its build-id processing: retry
precord() {
	local out=$1
	shift
	for _ in 1 2 3 4 5; do
		perf record -B --buildid-mmap -e cpu-clock -F "$FREQ" --call-graph dwarf -o "$T/$out" "$@" \
			> /dev/null 2> "$T/$out.err" && return 0
	done
	echo "  FAILED: perf record $* (5 tries):"
	tail -3 "$T/$out.err" | sed 's/^/    /'
	fail=1
	return 1
}

echo "unwind_cmp bench: libdwfl (zt) against libunwind $(dpkg-query -W -f='${Version}' libunwind8 2> /dev/null)" \
     "(remote API) on perf --call-graph dwarf recordings, -F $FREQ, $(nproc) CPUs"
files=()
for m in chain qsort thread deep; do
	precord "$m.perf" -- "$WL/nofp" "$m" "$SECS" && files+=("$m.perf")
done
if gcc -O2 -g -fomit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables \
	-o "$T/nofp-debug_frame" "$src/tests/workloads/nofp.c" -lpthread; then
	precord debug_frame.perf -- "$T/nofp-debug_frame" chain "$SECS" && files+=(debug_frame.perf)
else
	echo "  FAILED: gcc (the .debug_frame-only build of nofp)"
	fail=1
fi
precord jit.perf -- "$WL/jit" "$SECS" && files+=(jit.perf)

unwind_mix "$T" || { echo "bench-unwind-cmp: cannot write the mix" >&2; exit 1; }
precord mix.perf -- "$T/mix.sh" $((2 * SECS)) "$WL" "$T" && files+=(mix.perf)
precord mix-a.perf -a -- "$T/mix.sh" $((2 * SECS)) "$WL" "$T" && files+=(mix-a.perf)

v=
[ "${DIFFS:-0}" = 1 ] && v=-v
cd "$T" || exit 1
"$UNWIND_CMP" -s -r "$RUNS" ${v:+"$v"} "${files[@]}" > cmp.out 2> cmp.err || {
	echo "  FAILED: unwind_cmp:"
	sed 's/^/    /' cmp.err
	fail=1
}
grep -v '^summary' cmp.out | sed 's/^/  /'
echo
echo "  summary: samples/s (unwinding only, best of $RUNS), cold / warm; complete: walks the CFI ended;"
echo "  chains: same = identical addresses, dw+ / lu+ = one a longer prefix of the other, diff = other;"
echo "  bogus = chains with a return address in no code mapping (a guess gone wrong)"
printf "    %-12s %7s %15s %15s %10s %6s %6s %6s %6s %6s %6s %6s %6s\n" recording samples \
       "libdwfl c/w" "libunwind c/w" "dw/lu c/w" "dw ok%" "lu ok%" "same%" "dw+%" "lu+%" "diff%" "dwbog%" "lubog%"
awk -F'\t' '$1 == "summary" {
	f = $2; sub(/\.perf$/, "", f)
	printf "    %-12s %7d %7.0f/%-7.0f %7.0f/%-7.0f %4.2f/%-5.2f %6.1f %6.1f %6.1f %6.1f %6.1f %6.1f %6.1f %6.1f\n",
	       f, $3, $4, $6, $5, $7, ($5 > 0 ? $4 / $5 : 0), ($7 > 0 ? $6 / $7 : 0),
	       $8, $9, $10, $11, $12, $13, $14, $15
}' cmp.out
exit "$fail"
