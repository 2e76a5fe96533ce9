#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --call-graph dwarf, zt against perf, in one run. One workload mix (the
# frame-pointer-less tests/workloads/nofp in chain, thread and qsort mode,
# gcc, xz and sha256sum; SECS seconds, every CPU busy) is recorded three
# times at the same rate: perf record --call-graph dwarf (8192-byte stack
# copies), perf record -z (the same, zstd-compressed) and zt record
# --call-graph dwarf. Then:
#  - unwinding throughput: samples/s of zt report --stdio and perf report
#    --stdio on perf's perf.data (both unwind every sample and print call
#    chains), and of zt report on zt's own recording; the ratio to perf.
#    Each also with --no-inline: perf 6.1 spends most of its time naming
#    inlined functions (addr2line), which hides its unwinding cost;
#  - bytes per sample of the three files, and the ratios to perf.data;
#  - wall time and peak RSS of every command (best wall time of RUNS runs,
#    largest peak RSS, from /usr/bin/time).
# Env: SECS (default 4), FREQ (499), RUNS (3). Root, no terminal needed;
# exits 1 when a tool fails (what could be measured is printed first).
set -u
. "$(dirname "$0")/lib.sh"
: "${ZT:?}" "${WL:?}"
SECS=${SECS:-4}
FREQ=${FREQ:-499}
RUNS=${RUNS:-3}
[ "$(id -u)" = 0 ] || { echo "bench-unwind: needs root (perf record, zt record)" >&2; exit 1; }
command -v perf > /dev/null ||
	{ echo "bench-unwind: perf not found: install linux-perf (scripts/setup.sh --test)" >&2; exit 1; }
T=$(mktemp -d /tmp/zt-unwindbench.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
export ZT_CACHE_DIR="$T/cache" # zt's symbol cache: warmed once before timing
fail=0
ncpu=$(nproc)
[ -x /usr/bin/time ] && TIME=/usr/bin/time || TIME=

# The mix (bench/lib.sh), every job for S seconds
unwind_mix "$T" || { echo "bench-unwind: cannot write the mix" >&2; exit 1; }
MIX=("$T/mix.sh" "$SECS" "$WL" "$T")

# timed NAME CMD...: CMD > /dev/null with its stderr in $T/NAME.err; sets
# ms (wall) and kb (peak RSS, "n/a" without /usr/bin/time); returns CMD's
# status
timed() {
	local name=$1 s e rc
	shift
	s=$(date +%s%N)
	if [ -n "$TIME" ]; then
		"$TIME" -f '%M' -o "$T/$name.time" "$@" > /dev/null 2> "$T/$name.err"
	else
		"$@" > /dev/null 2> "$T/$name.err"
	fi
	rc=$?
	e=$(date +%s%N)
	ms=$(( (e - s) / 1000000 ))
	kb=n/a
	[ -n "$TIME" ] && kb=$(tail -1 "$T/$name.time")
	return $rc
}

# perf 6.1 on this kernel sometimes aborts (in its build-id processing):
# perf commands get three tries, as the other benchmarks give them
retries() { case $1 in perf) echo 3 ;; *) echo 1 ;; esac; }

# record NAME CMD...: one recording; sets rec_ms and rec_kb, or fails
record() {
	local name=$1
	shift
	for _ in $(seq "$(retries "$1")"); do
		if timed "$name" "$@"; then
			rec_ms=$ms rec_kb=$kb
			return 0
		fi
	done
	echo "  FAILED: $*:"
	tail -5 "$T/$name.err" | sed 's/^/    /'
	fail=1
	return 1
}

# run NAME CMD...: CMD RUNS times; prints "best-ms largest-peak-KB", or
# "FAILED" (the error shown on stderr)
run() {
	local name=$1 k best=999999999 maxkb=0
	shift
	for _ in $(seq "$RUNS"); do
		for k in $(seq "$(retries "$1")"); do
			timed "$name" "$@" && break
			k=failed
		done
		if [ "$k" = failed ]; then
			echo "  FAILED: $*:" >&2
			tail -5 "$T/$name.err" | sed 's/^/    /' >&2
			echo FAILED
			return 1
		fi
		[ "$ms" -lt "$best" ] && best=$ms
		[ "$kb" != n/a ] && [ "$kb" -gt "$maxkb" ] && maxkb=$kb
	done
	[ -n "$TIME" ] || maxkb=n/a
	echo "$best $maxkb"
}

ratio() { awk -v a="$1" -v b="$2" -v f="${3:-%.1f}" 'BEGIN { if (a == a + 0 && b == b + 0 && b > 0) printf f, a / b; else print "n/a" }'; }
sec() { awk -v m="$1" 'BEGIN { if (m == m + 0) printf "%.2f", m / 1000; else print m }'; }
mb() { awk -v k="$1" 'BEGIN { if (k == k + 0) printf "%.0f", k / 1024; else print k }'; }
perf_samples() { perf report --stats -i "$1" 2> /dev/null | awk '$1 == "SAMPLE" && $2 == "events:" { print $3; exit }'; }

echo "zt unwind bench: --call-graph dwarf, zt against perf; a mix of nofp (chain, thread, qsort), gcc, xz" \
     "and sha256sum for $SECS s, $ncpu CPUs, cpu-clock at $FREQ Hz"
[ -n "$TIME" ] || echo "  (no /usr/bin/time: peak RSS not measured; install the Debian package 'time')"

# ---- the three recordings ------------------------------------------------
declare -A size samples rwall rrss bps
P="-B --buildid-mmap -e cpu-clock -F $FREQ --call-graph dwarf"
# shellcheck disable=SC2086
if record perf-rec perf record $P -o "$T/rec.perf" -- "${MIX[@]}"; then
	size[perf]=$(stat -c %s "$T/rec.perf") samples[perf]=$(perf_samples "$T/rec.perf")
	rwall[perf]=$rec_ms rrss[perf]=$rec_kb
fi
# shellcheck disable=SC2086
if record perfz-rec perf record $P -z -o "$T/rec-z.perf" -- "${MIX[@]}"; then
	size[perfz]=$(stat -c %s "$T/rec-z.perf") samples[perfz]=$(perf_samples "$T/rec-z.perf")
	rwall[perfz]=$rec_ms rrss[perfz]=$rec_kb
fi
# zt record: its summary line says how many samples it wrote
if record zt-rec "$ZT" record -e cpu-clock -F "$FREQ" --call-graph dwarf -o "$T/rec.data" -- "${MIX[@]}"; then
	size[zt]=$(stat -c %s "$T/rec.data")
	samples[zt]=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$T/zt-rec.err" | tail -1)
	rwall[zt]=$rec_ms rrss[zt]=$rec_kb
	grep -i 'lost [1-9]' "$T/zt-rec.err" | sed 's/^/  zt record: /'
fi
echo
echo "  bytes per sample (each recording is its own run of the mix)"
printf "    %-34s %8s %10s %8s %13s %10s %8s\n" "" samples "file KB" "B/sample" "vs perf.data" "record s" "peak MB"
for k in perf perfz zt; do
	case $k in
	perf) label="perf record --call-graph dwarf" ;;
	perfz) label="perf record --call-graph dwarf -z" ;;
	zt) label="zt record --call-graph dwarf" ;;
	esac
	if [ -z "${size[$k]:-}" ]; then
		printf "    %-34s %8s\n" "$label" FAILED
		continue
	fi
	n=${samples[$k]:-}
	if [ -z "$n" ] || [ "$n" -eq 0 ]; then
		echo "  FAILED: $label: no sample count"
		fail=1
		continue
	fi
	bps[$k]=$(( size[$k] / n ))
	printf "    %-34s %8d %10d %8d %12sx %10s %8s\n" "$label" "$n" $(( size[$k] / 1024 )) "${bps[$k]}" \
	       "$(ratio "${bps[$k]}" "${bps[perf]:-}" %.3f)" "$(sec "${rwall[$k]}")" "$(mb "${rrss[$k]}")"
done

# ---- unwinding throughput ---------------------------------------------------
rows=()
measure() { # LABEL KEY(which recording) MODE(inline|noinline) NAME CMD...
	local label=$1 key=$2 mode=$3 name=$4 r
	shift 4
	r=$(run "$name" "$@") || fail=1
	rows+=("$label|$key|$mode|$r")
}
if [ -n "${size[perf]:-}" ]; then
	"$ZT" report --stdio -i "$T/rec.perf" > "$T/zt-perf.txt" 2>&1 # warms zt's symbol cache
	grep -qE '^ +(\||---)' "$T/zt-perf.txt" ||
		echo "  NOTE: zt report --stdio printed no call chains on perf.data"
	measure "perf report --stdio (perf.data)" perf inline perf-rep perf report --stdio -i "$T/rec.perf"
	measure "zt report --stdio (perf.data)" perf inline zt-rep-perf "$ZT" report --stdio -i "$T/rec.perf"
	measure "perf report --stdio --no-inline (perf.data)" perf noinline perf-rep-ni \
		perf report --stdio --no-inline -i "$T/rec.perf"
	measure "zt report --stdio --no-inline (perf.data)" perf noinline zt-rep-perf-ni \
		"$ZT" report --stdio --no-inline -i "$T/rec.perf"
fi
if [ -n "${size[zt]:-}" ]; then
	"$ZT" report --stdio -i "$T/rec.data" > /dev/null 2>&1
	measure "zt report --stdio (zt.data)" zt inline zt-rep-zt "$ZT" report --stdio -i "$T/rec.data"
	measure "zt report --stdio --no-inline (zt.data)" zt noinline zt-rep-zt-ni \
		"$ZT" report --stdio --no-inline -i "$T/rec.data"
fi
echo
echo "  unwinding and reporting: every sample's user stack unwound, call chains printed; best wall" \
     "time of $RUNS runs, largest peak RSS; speed: samples/s over perf report's with the same inline setting"
echo "  (perf 6.1 spends most of its time naming inlined functions, with addr2line: --no-inline is" \
     "closer to its unwinding cost)"
printf "    %-44s %7s %7s %10s %7s %8s\n" "" samples "wall s" samples/s "peak MB" "vs perf"
declare -A pms pn
for r in "${rows[@]}"; do
	IFS='|' read -r label key mode res <<< "$r"
	read -r ms kb <<< "$res"
	[ "$ms" != FAILED ] && [ "${label#perf}" != "$label" ] && pms[$mode]=$ms pn[$mode]=${samples[$key]:-0}
done
for r in "${rows[@]}"; do
	IFS='|' read -r label key mode res <<< "$r"
	read -r ms kb <<< "$res"
	n=${samples[$key]:-0}
	sps=$(ratio "$n" "$(awk -v m="$ms" 'BEGIN { if (m == m + 0) print m / 1000 }')" %.0f)
	vs=n/a
	# samples/s against perf's (the zt.data recording has its own count)
	[ -n "${pms[$mode]:-}" ] && [ "$ms" != FAILED ] &&
		vs="$(ratio "$(ratio "$n" "$ms" %.6f)" "$(ratio "${pn[$mode]}" "${pms[$mode]}" %.6f)")x"
	printf "    %-44s %7s %7s %10s %7s %8s\n" "$label" "$n" "$(sec "$ms")" "$sps" "$(mb "${kb:-}")" "$vs"
done
# perf built with libunwind unwinds with it (its libdw unwinder is then left
# out, whatever `perf version --build-options` says of libdw-dwarf-unwind)
if ldd "$(command -v perf)" 2> /dev/null | grep -q 'libunwind-x86_64'; then uw=libunwind; else uw=libdw; fi
echo "  unwinders: perf report $(perf version 2> /dev/null | awk '{ print $3 }') with $uw;" \
     "zt report with elfutils libdwfl (symbolizer/unwind.c)"
[ "$fail" = 0 ] || echo "  some commands FAILED (above): exit 1"
exit "$fail"
