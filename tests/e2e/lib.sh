# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers for end-to-end tests: sourced by each tests/e2e/t_*.sh.
# ZT: the zt binary; WL: the workloads directory; T: a fresh temp directory.
set -u
: "${ZT:?}" "${WL:?}"
T=$(mktemp -d /tmp/zt-e2e.XXXXXX)
chmod 755 "$T"
export ZT_CACHE_DIR="$T/cache"
export ZT_CONFIG=/dev/null # no ~/.ztconfig or /etc/ztconfig of the machine (t_config unsets it)
fails=0 passes=0 skips=0 unavails=0
bgpids=()
# KEEP_T=1: leave $T behind, to look at after a failure
cleanup() {
	for p in "${bgpids[@]}"; do kill -9 "$p" 2>/dev/null; done
	[ -n "${KEEP_T:-}" ] || rm -rf "$T"
}
trap cleanup EXIT

fail() { echo "  FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "  ok: $*"; passes=$((passes + 1)); }
skip() { echo "  skip: $*"; skips=$((skips + 1)); } # a check that cannot run here
# a check against perf whose reference perf could not give (perf 6.1 aborts
# now and then on this kernel): neither passed nor failed; counted skipped
# and named apart in the closing lines
unavailable() { echo "  unavailable: $* (reference unavailable: perf failed, its stderr above)"; skips=$((skips + 1)); unavails=$((unavails + 1)); }
# pcheck DESC REF CMD...: a check against perf's output (or recording) REF:
# when perf gave none (REF missing or empty: perf failed, its stderr above),
# the check is unavailable instead of failed
pcheck() {
	local d=$1 r=$2
	shift 2
	if [ -s "$r" ]; then check "$d" "$@"; else unavailable "$d"; fi
}
# perf_rec ARGS...: perf record -B ARGS (-B: without the build-id pass that
# perf 6.1 aborts in on this kernel), five tries; on failure, perf's last
# stderr in the log and 1
perf_rec() {
	local i e
	e=$(mktemp "$T/perf-rec.XXXXXX")
	for i in 1 2 3 4 5; do
		perf record -B "$@" > /dev/null 2> "$e" && { rm -f "$e"; return 0; }
	done
	echo "    perf record -B $* failed 5 times; its last stderr:"
	perf_stderr "$e"
	return 1
}
# perf_stderr FILE: the last lines perf wrote to stderr, in the log
perf_stderr() { [ -s "$1" ] && tail -n 3 "$1" | sed 's/^/    perf: /'; return 0; }
check() { # check DESC CMD...
	local d=$1; shift
	if "$@"; then ok "$d"; else fail "$d"; fi
}
contains() { grep -qE -- "$2" "$1"; }
# all CMD...: each argument, a shell command, succeeds (evaluated in
# turn, the caller's variables in scope). A check of several conditions is
# one command: "check DESC [ a ] && [ b ]" would count only the first.
all() {
	local _c
	for _c in "$@"; do
		eval "$_c" || return 1
	done
}

# Self share (percent, integer part) of symbol $2 in a --no-children report file $1
self_pct() {
	awk -v s="$2" '!/^#/ && $NF == s { gsub("%", "", $1); print int($1); exit }' "$1"
}
# The symbol with the highest self share in a --no-children report
top_symbol() {
	awk '!/^#/ && NF >= 4 { print $NF; exit }' "$1"
}
finish() {
	# under ASan/UBSan: any report in any captured stderr fails the test
	if grep -rlsE --include='*.err' 'runtime error:|AddressSanitizer|LeakSanitizer' "$T"; then
		fail "sanitizer report in the output above"
	fi
	[ "$unavails" -eq 0 ] || echo "($unavails of the skipped: reference unavailable, perf failed)"
	echo "$passes passed, $fails failed, $skips skipped"
	if [ "$fails" -eq 0 ]; then echo "PASS"; exit 0; fi
	echo "FAILED ($fails)"; exit 1
}
# Real perf is the oracle, and perf 6.1 here sometimes aborts in its build-id
# code ("assertion failed at util/build-id.c", "stack smashing detected"),
# reading a file as well as recording it. perf_retry perf-ARGS...: perf's
# stdout from the first of five runs that completes (a run that dies part-way
# leaves nothing behind); 1 when none does, with the last run's stderr in
# the log (stderr of every run kept in $T/perf-out.*.err).
# perf_resolved: a report table without its rows of unresolved addresses
# in a mapping (a sample in the vDSO's static functions, now and then):
# perf prints each by address (0x780 as a self entry, 0x7f...780 as a
# children entry of its own), zt as [module+0xoff], one row (a known
# difference, zt-report(1))
perf_resolved() { grep -Ev '\] (0x[0-9a-f]+|\[[^]]*\+0x[0-9a-f]+\])( |$)'; }
perf_retry() {
	local i out
	out=$(mktemp "$T/perf-out.XXXXXX")
	for i in 1 2 3 4 5; do
		perf "$@" > "$out" 2> "$out.$i.err" && { cat "$out"; rm -f "$out"; return 0; }
	done
	echo "    perf $* failed 5 times; its last stderr:" >&2
	perf_stderr "$out.5.err" >&2
	rm -f "$out"
	return 1
}
# wellformed FILE: an XML file (the flame graphs' SVG) parses
wellformed() {
	if command -v xmllint >/dev/null; then xmllint --noout "$1"
	else python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$1"; fi
}
between() { [ -n "$1" ] && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }

# perf_record_times OUT ARGS...: perf record -e cpu-clock -F 1999 -g of
# ARGS into OUT, retried. perf 6.1 here often dies in its build-id pass,
# which is also what stores the first and last samples' times (perf's
# percent forms of --time, the header's times): after 8 failures, record
# with -B and set pct=0 (no such times to compare against)
pct=1
perf_record_times() {
	local o=$1 i
	shift
	for i in 1 2 3 4 5 6 7 8; do
		perf record -e cpu-clock -F 1999 -g -o "$o" "$@" > /dev/null 2> "$o.rec.err" &&
			perf script -i "$o" > /dev/null 2>&1 && return 0
	done 2> /dev/null
	pct=0
	echo "  (perf record without -B failed 8 times: -B, no percent --time against perf)"
	for i in 1 2 3; do
		perf record -B -e cpu-clock -F 1999 -g -o "$o" "$@" > /dev/null 2> "$o.rec.err" &&
			perf script -i "$o" > /dev/null 2>&1 && return 0
	done 2> /dev/null
	return 1
}
